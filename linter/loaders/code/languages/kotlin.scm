; endings: .kt .kts
; markers: ReceiveMessage receiveMessage CreateQueueRequest createQueue SqsListener
; grammar: tree_sitter_kotlin.language
;
; Where SQS consumers are in Kotlin (the AWS SDK for Java v2 and v1 called from Kotlin, the AWS SDK for Kotlin
; `aws.sdk.kotlin.services.sqs`, Spring Cloud AWS @SqsListener), for visguard's code engine (engine.py: the capture
; convention). A request's options are the calls chained on it or the assignments of its builder lambda (kotlin.py
; follows them: a query cannot say a chain of any length).

; SDK v2: ReceiveMessageRequest.builder() ... ; v1: ReceiveMessageRequest(queueUrl) ... (found by the type's name:
; kotlin.py takes the call and the calls chained on it)
((identifier) @request (#eq? @request "ReceiveMessageRequest"))

; sqs.receiveMessage(request), sqs.receiveMessage { queueUrl = u; visibilityTimeout = 30 } (the SDK for Kotlin),
; sqs.receiveMessage { it.queueUrl(u) } (SDK v2's consumer builder), v1 sqs.receiveMessage(queueUrl)
((identifier) @receive (#any-of? @receive "receiveMessage" "receiveMessageAsync"))

; Spring @SqsListener("q"), @SqsListener(value = ["q"], deletionPolicy = SqsMessageDeletionPolicy.NEVER), and the
; annotation without arguments
(annotation (constructor_invocation (user_type (identifier) @_n) (value_arguments)) (#eq? @_n "SqsListener")) @listener
(annotation (user_type (identifier) @_n) (#eq? @_n "SqsListener")) @listener

; the file changes a message's visibility: SDK calls and request types; Spring 3.x Visibility.changeTo
((identifier) @heartbeat
  (#any-of? @heartbeat "changeMessageVisibility" "changeMessageVisibilityAsync" "changeMessageVisibilityBatch"
    "changeMessageVisibilityBatchAsync" "ChangeMessageVisibilityRequest" "ChangeMessageVisibilityBatchRequest"
    "changeTo" "changeToAsync"))

; names bound in the file: `val`/`var`/`const val` (a property without an initializer is bound to what is not read),
; a constructor's property by the configuration its @Value annotation injects; `for (q in queues)`: q is each of
; queues (kotlin.py: a name bound to a collection it iterates)
(property_declaration (variable_declaration (identifier) @bind.name) . [(_) @bind.value] )
(class_parameter (modifiers (annotation (constructor_invocation (user_type (identifier) @_a)))) @bind.value
  (identifier) @bind.name (#eq? @_a "Value"))
(for_statement (variable_declaration (identifier) @bind.name) . (_) @bind.value)

; parameters shadow the file's names inside their function (kotlin.py reads an @Value parameter's property first)
(parameter (identifier) @param)


; ---------------------------------------------------------------------------------------------- create sites
; (issue 35: visguard.linter.loaders.code.creates) a call that creates a queue, found by the name it calls
; (kotlin.create_site reads the request it is given: a builder chain, a name bound to one, a builder lambda)
((identifier) @create.call (#eq? @create.call "createQueue"))
