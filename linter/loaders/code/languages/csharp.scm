; endings: .cs
; markers: ReceiveMessage CreateQueue
; grammar: tree_sitter_c_sharp.language
;
; Where SQS consumers are in C# (AWS SDK for .NET), for visguard's code engine (engine.py: the capture
; convention). One consumer per new ReceiveMessageRequest(...) { ... }; its constructor argument is the queue and
; its initializer's assignments are the receive's settings.

; new ReceiveMessageRequest(queueUrl) { QueueUrl = ..., VisibilityTimeout = 30 }
(object_creation_expression
  type: [(identifier) @_type (qualified_name name: (identifier) @_type)]
  arguments: (argument_list . (argument) @queue)?
  (#eq? @_type "ReceiveMessageRequest")) @consumer.sdk
(object_creation_expression
  type: [(identifier) @_type (qualified_name name: (identifier) @_type)]
  initializer: (initializer_expression (assignment_expression left: (identifier) @key right: (_) @value))
  (#eq? @_type "ReceiveMessageRequest")) @consumer.sdk

; var request = new ReceiveMessageRequest ...; request = new ReceiveMessageRequest ... (later
; request.VisibilityTimeout = 30 sets it)
(variable_declarator
  name: (identifier) @var
  (object_creation_expression type: [(identifier) @_type (qualified_name name: (identifier) @_type)] (#eq? @_type "ReceiveMessageRequest")) @consumer.sdk)
(assignment_expression
  left: (_) @var
  right: (object_creation_expression type: [(identifier) @_type (qualified_name name: (identifier) @_type)] (#eq? @_type "ReceiveMessageRequest")) @consumer.sdk)

; request.VisibilityTimeout = 30
(assignment_expression
  left: (member_access_expression expression: (_) @set.owner name: (identifier) @set.key)
  right: (_) @set.value)

; sqs.ReceiveMessageAsync(queueUrl): a receive at the queue's visibility when its argument is a queue URL (the
; reader decides: a literal, an environment variable, a string of the file). The call's name, not the call: a
; pattern on the call waits past its callee, O(n^2) in a chain of n calls; csharp.py takes the name's call.
((identifier) @receive (#any-of? @receive "ReceiveMessage" "ReceiveMessageAsync"))

; the file changes a message's visibility: it extends its messages
(object_creation_expression
  type: [(identifier) @_hb (qualified_name name: (identifier) @_hb)]
  (#any-of? @_hb "ChangeMessageVisibility" "ChangeMessageVisibilityAsync" "ChangeMessageVisibilityBatch" "ChangeMessageVisibilityBatchAsync" "ChangeMessageVisibilityRequest" "ChangeMessageVisibilityBatchRequest")) @heartbeat
((identifier) @heartbeat.call
  (#any-of? @heartbeat.call "ChangeMessageVisibility" "ChangeMessageVisibilityAsync" "ChangeMessageVisibilityBatch" "ChangeMessageVisibilityBatchAsync" "ChangeMessageVisibilityRequest" "ChangeMessageVisibilityBatchRequest"))

; names bound in the file: fields, constants and locals (declared as strings: @string), and x = value;
; (a field without an initializer is bound by what its constructor assigns: `_queueUrl = queueUrl;`, whose
; parameter the value flow follows to the `new Worker("...")` that passes it)
(local_declaration_statement (variable_declaration (variable_declarator name: (identifier) @bind.name (_)? @bind.value .)))
(field_declaration (variable_declaration (variable_declarator name: (identifier) @bind.name (_) @bind.value .)))
(using_statement (variable_declaration (variable_declarator name: (identifier) @bind.name (_)? @bind.value .)))
(for_statement (variable_declaration (variable_declarator name: (identifier) @bind.name (_)? @bind.value .)))
(expression_statement
  (assignment_expression left: (member_access_expression "this" name: (identifier) @bind.name) right: (_) @bind.value))
(variable_declaration
  type: (_) @_t
  (variable_declarator name: (identifier) @string)
  (#any-of? @_t "string" "String"))
(expression_statement (assignment_expression left: (identifier) @bind.name right: (_) @bind.value))

; calls, for the value flow: `new Worker("orders")`, `worker.Run(url)`, by the callee's last name
(object_creation_expression type: [(identifier) @flow.callee (qualified_name name: (identifier) @flow.callee) (generic_name (identifier) @flow.callee)]) @flow.call
(invocation_expression function: [(identifier) @flow.callee (member_access_expression name: (identifier) @flow.callee)]) @flow.call

; parameters shadow the file's names inside their method
(parameter name: (identifier) @param)


; ---------------------------------------------------------------------------------------------- create sites
; (issue 35: visguard.linter.loaders.code.creates) a call that creates a queue, found by the name it calls
; (@create.call; creates.py takes its call and reads the request there: a pattern on the call would wait past its
; object, O(n^2) in a chain of n calls); @create.builder: the start of a request builder chain.
((identifier) @create.call (#any-of? @create.call "CreateQueue" "CreateQueueAsync"))
