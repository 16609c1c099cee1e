; endings: .rs
; markers: receive_message ReceiveMessageRequest ReceiveMessageInput create_queue
; grammar: tree_sitter_rust.language
;
; Where SQS consumers are in Rust (the AWS SDK for Rust, aws-sdk-sqs; rusoto_sqs), for visguard's code engine
; (engine.py: the capture convention). An aws-sdk-sqs request is a fluent builder: its options are the calls chained
; on `client.receive_message()` (rust.py follows the chain up: a query cannot say a chain of any length).

; aws-sdk-sqs: client.receive_message().queue_url(u).visibility_timeout(30)...send().await (found by its name:
; rust.py takes the name's call, with no arguments, and the calls chained on it)
((field_identifier) @receive (#eq? @receive "receive_message"))

; aws-sdk-sqs: ReceiveMessageInput::builder().queue_url(u).visibility_timeout(30).build()?.send_with(&client)
(call_expression
  function: (scoped_identifier
    path: [(identifier) @_input (scoped_identifier name: (identifier) @_input)]
    name: (identifier) @_builder)
  (#eq? @_input "ReceiveMessageInput")
  (#eq? @_builder "builder")) @receive.input

; rusoto_sqs: ReceiveMessageRequest { queue_url: u, visibility_timeout: Some(30), ..Default::default() }
(struct_expression
  name: [(type_identifier) @_type (scoped_type_identifier name: (type_identifier) @_type)]
  body: (field_initializer_list (field_initializer field: (field_identifier) @key value: (_) @value))
  (#eq? @_type "ReceiveMessageRequest")) @consumer.sdk
(struct_expression
  name: [(type_identifier) @_type (scoped_type_identifier name: (type_identifier) @_type)]
  body: (field_initializer_list (shorthand_field_initializer (identifier) @key @value))
  (#eq? @_type "ReceiveMessageRequest")) @consumer.sdk
(struct_expression
  name: [(type_identifier) @_type (scoped_type_identifier name: (type_identifier) @_type)]
  (#eq? @_type "ReceiveMessageRequest")) @consumer.sdk

; the file changes a message's visibility: aws-sdk-sqs's builders, rusoto's requests
((field_identifier) @heartbeat
  (#any-of? @heartbeat "change_message_visibility" "change_message_visibility_batch"))
([(type_identifier) (identifier)] @heartbeat
  (#any-of? @heartbeat "ChangeMessageVisibilityRequest" "ChangeMessageVisibilityBatchRequest"
    "ChangeMessageVisibilityInput" "ChangeMessageVisibilityBatchInput"))

; names bound in the file: `const`/`static` items, `let` of one name (a `let` without a value, or of a pattern, is
; bound to what is not read); fields, for the value flow (engine.Flow; rust.py keys a field as ".url": every value
; of a field of that name, whatever the variable): `Worker { queue_url: u }`, `Worker { queue_url }`,
; `self.queue_url = u`. The SDK's own request types are not read as fields.
(const_item name: (identifier) @bind.name value: (_) @bind.value)
(static_item name: (identifier) @bind.name value: (_) @bind.value)
(let_declaration pattern: (identifier) @bind.name value: (_) @bind.value)
(let_declaration pattern: (mut_pattern (identifier) @bind.name) value: (_) @bind.value)
(let_declaration pattern: (identifier) @bind.name !value)
(let_declaration pattern: (mut_pattern (identifier) @bind.name) !value)
(assignment_expression left: (identifier) @bind.name right: (_) @bind.value)
(struct_expression
  name: [(type_identifier) @_t (scoped_type_identifier name: (type_identifier) @_t)]
  body: (field_initializer_list (field_initializer field: (field_identifier) @bind.name value: (_) @bind.value))
  (#not-match? @_t "(Request|Input|Output)$"))
(struct_expression
  name: [(type_identifier) @_t (scoped_type_identifier name: (type_identifier) @_t)]
  body: (field_initializer_list (shorthand_field_initializer (identifier) @bind.name @bind.value))
  (#not-match? @_t "(Request|Input|Output)$"))
(assignment_expression left: (field_expression) @bind.name right: (_) @bind.value)

; calls, for the value flow: what the calls of a function pass its parameters, by the callee's last name
; (`start(client, "https://...")`, `worker.run(url)`); a constructor `Worker::new(url)` by its type (rust.py: the
; names of a `new` are its impl's type), as Java's `new Worker(url)`
(call_expression function: [(identifier) @flow.callee (field_expression field: (field_identifier) @flow.callee)]) @flow.call
(call_expression
  function: (scoped_identifier name: (identifier) @flow.callee)
  (#not-eq? @flow.callee "new")) @flow.call
(call_expression
  function: (scoped_identifier
    path: [(identifier) @flow.callee (scoped_identifier name: (identifier) @flow.callee)]
    name: (identifier) @_new)
  (#eq? @_new "new")) @flow.call

; parameters shadow the file's names inside their function
(parameter pattern: (identifier) @param)
(parameter pattern: (mut_pattern (identifier) @param))
(closure_parameters (identifier) @param)


; ---------------------------------------------------------------------------------------------- create sites
; (issue 35: visguard.linter.loaders.code.creates) a call that creates a queue, found by the name it calls
; (@create.call; creates.py takes its call and follows the builder's chain up: queue_name(..), attributes(K, V),
; set_attributes(Some(map))); rusoto's CreateQueueRequest { queue_name, attributes } literal
((field_identifier) @create.call (#eq? @create.call "create_queue"))
(struct_expression
  name: [(type_identifier) @_create (scoped_type_identifier name: (type_identifier) @_create)]
  (#eq? @_create "CreateQueueRequest")) @create.builder
