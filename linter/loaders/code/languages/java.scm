; endings: .java
; markers: ReceiveMessage receiveMessage CreateQueueRequest createQueue SqsListener SqsContainerOptions messageVisibility JmsListener createConsumer
; grammar: tree_sitter_java.language
;
; Where SQS consumers are in Java (AWS SDK v2 and v1, Spring Cloud AWS 3.x), for visguard's code engine (engine.py:
; the capture convention). A request's options are the calls chained on it (java.py follows the chain: a query
; cannot say a chain of any length).

; SDK v2: ReceiveMessageRequest.builder() ... ; v1: new ReceiveMessageRequest(queueUrl) ...
(method_invocation
  object: (identifier) @_r
  name: (identifier) @_b
  (#eq? @_r "ReceiveMessageRequest")
  (#eq? @_b "builder")) @request
(object_creation_expression
  type: [(type_identifier) @_t (scoped_type_identifier (type_identifier) @_t .)]
  (#eq? @_t "ReceiveMessageRequest")) @request

; request.setVisibilityTimeout(30), request.withQueueUrl(url), builder.queueUrl(url) on a request's variable
(method_invocation
  object: (identifier) @set.owner
  name: (identifier) @set.key
  arguments: (argument_list . (_) @set.value)
  (#any-of? @set.key "queueUrl" "withQueueUrl" "setQueueUrl" "visibilityTimeout" "withVisibilityTimeout"
    "setVisibilityTimeout" "waitTimeSeconds" "withWaitTimeSeconds" "setWaitTimeSeconds" "maxNumberOfMessages"
    "withMaxNumberOfMessages" "setMaxNumberOfMessages"))

; A call is found by its name (java.py takes the name's call): a pattern on the call would wait past its object,
; O(n^2) in a chain of n calls.
; sqs.receiveMessage(r -> r.queueUrl(..)...), v1 sqs.receiveMessage(queueUrl)
((identifier) @receive (#any-of? @receive "receiveMessage" "receiveMessageAsync"))

; sqs.getQueueUrl(b -> b.queueName("orders")): the queue is the name it looks up
((identifier) @lookup (#any-of? @lookup "queueName" "getQueueUrl" "withQueueName"))

; Spring @SqsListener("q"), @SqsListener(value = .., queueNames = {..}, messageVisibilitySeconds = "300", ..)
(annotation
  name: [(identifier) @_n (scoped_identifier name: (identifier) @_n)]
  arguments: (annotation_argument_list (element_value_pair key: (identifier) @key value: (_) @value))
  (#eq? @_n "SqsListener")) @consumer.spring
(annotation
  name: [(identifier) @_n (scoped_identifier name: (identifier) @_n)]
  arguments: (annotation_argument_list . (_) @positional)
  (#eq? @_n "SqsListener")) @consumer.spring
(annotation
  name: [(identifier) @_n (scoped_identifier name: (identifier) @_n)]
  (#eq? @_n "SqsListener")) @consumer.spring
(marker_annotation
  name: [(identifier) @_n (scoped_identifier name: (identifier) @_n)]
  (#eq? @_n "SqsListener")) @consumer.spring

; SqsContainerOptions: its builder's options (anywhere in a file that names a container type) and a
; container's queueNames(..)
((identifier) @container.option
  (#any-of? @container.option "messageVisibility" "maxConcurrentMessages" "maxMessagesPerPoll" "pollTimeout"
    "listenerShutdownTimeout" "acknowledgementMode"))
((identifier) @container.queues (#eq? @container.queues "queueNames"))
([(type_identifier) (identifier)] @container.type
  (#any-of? @container.type "SqsContainerOptions" "SqsMessageListenerContainerFactory" "SqsMessageListenerContainer"))

; the file changes a message's visibility: SDK calls and request types; Spring's Visibility.changeTo
((identifier) @heartbeat.call
  (#any-of? @heartbeat.call "changeMessageVisibility" "changeMessageVisibilityAsync" "changeMessageVisibilityBatch"
    "changeMessageVisibilityBatchAsync"))
([(type_identifier) (identifier)] @heartbeat
  (#any-of? @heartbeat "ChangeMessageVisibilityRequest" "ChangeMessageVisibilityBatchRequest"))
((identifier) @heartbeat.spring (#any-of? @heartbeat.spring "changeTo" "changeToAsync"))

; names bound in the file: constants, locals (declared as String: @string); a field by its initializer, by what
; a constructor assigns it (`this.queueUrl = queueUrl`: the value flow follows the parameter to the `new` that
; passes it), or by the configuration property its annotation injects (`@ConfigProperty(name = "queue.url")`,
; `@Value("${queue.url}")`: java.py reads the project's application.properties/yml)
(local_variable_declaration declarator: (variable_declarator name: (identifier) @bind.name value: (_)? @bind.value))
(constant_declaration declarator: (variable_declarator name: (identifier) @bind.name value: (_)? @bind.value))
(field_declaration declarator: (variable_declarator name: (identifier) @bind.name value: (_) @bind.value))
(field_declaration
  (modifiers (annotation name: (identifier) @_a) @bind.value)
  declarator: (variable_declarator name: (identifier) @bind.name)
  (#any-of? @_a "ConfigProperty" "Value"))
(assignment_expression left: (field_access object: (this) field: (identifier) @bind.name) right: (_) @bind.value)
(_ type: (type_identifier) @_t declarator: (variable_declarator name: (identifier) @string) (#eq? @_t "String"))

; calls, for the value flow: `new Listener("orders")`, `listener.start(url)`, by the callee's last name
(object_creation_expression type: [(type_identifier) @flow.callee (generic_type (type_identifier) @flow.callee)]) @flow.call
(method_invocation name: (identifier) @flow.callee) @flow.call

; parameters shadow the file's names inside their method
(formal_parameter name: (identifier) @param)
(spread_parameter (variable_declarator name: (identifier) @param))


; ---------------------------------------------------------------------------------------------- create sites
; (issue 35: visguard.linter.loaders.code.creates) a call that creates a queue, found by the name it calls
; (@create.call; creates.py takes its call and reads the request there: a pattern on the call would wait past its
; object, O(n^2) in a chain of n calls); @create.builder: the start of a request builder chain.
(method_invocation
  object: (identifier) @_create
  name: (identifier) @_builder
  (#eq? @_create "CreateQueueRequest")
  (#eq? @_builder "builder")) @create.builder
(object_creation_expression
  type: (type_identifier) @_create
  (#eq? @_create "CreateQueueRequest")) @create.builder
((identifier) @create.call (#eq? @create.call "createQueue"))


; ---------------------------------------------------------------------------------------------- error handlers
; (issue 36) Spring Cloud AWS 3.4+ error handlers that set a failed message's visibility: `new
; ImmediateRetryAsyncErrorHandler<>()` and `ExponentialBackoffErrorHandler.builder()` /
; `LinearBackoffErrorHandler.builder()` (java.py follows the builder's chain of options)
(object_creation_expression
  type: [(type_identifier) @_h (generic_type (type_identifier) @_h)]
  (#any-of? @_h "ImmediateRetryAsyncErrorHandler" "ExponentialBackoffErrorHandler" "LinearBackoffErrorHandler")) @handler
(method_invocation
  object: (identifier) @_h
  name: (identifier) @_b
  (#any-of? @_h "ExponentialBackoffErrorHandler" "LinearBackoffErrorHandler")
  (#eq? @_b "builder")) @handler

; JMS (the Amazon SQS Java Messaging Library is a JMS provider): Spring's @JmsListener(destination = "q") and a
; session's createConsumer(session.createQueue("q")); java.py keeps them only in a project that uses that library
(annotation
  name: [(identifier) @_n (scoped_identifier name: (identifier) @_n)]
  arguments: (annotation_argument_list (element_value_pair key: (identifier) @key value: (_) @value))
  (#eq? @_n "JmsListener")) @consumer.jms
(method_invocation
  name: (identifier) @_c
  arguments: (argument_list . (_) @destination)
  (#eq? @_c "createConsumer")) @consumer.jms
