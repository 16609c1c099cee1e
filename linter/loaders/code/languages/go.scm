; endings: .go
; markers: ReceiveMessage CreateQueue
; grammar: tree_sitter_go.language
;
; Where SQS consumers are in Go (AWS SDK for Go v2 and v1), for visguard's code engine (engine.py: the capture
; convention). One consumer per sqs.ReceiveMessageInput literal; its keyed fields are the receive's settings.

; &sqs.ReceiveMessageInput{QueueUrl: ..., VisibilityTimeout: 30}
(composite_literal
  type: [(qualified_type name: (type_identifier) @_type) (type_identifier) @_type]
  body: (literal_value
    (keyed_element . (literal_element (identifier) @key) . (literal_element) @value))
  (#eq? @_type "ReceiveMessageInput")) @consumer.sdk

(composite_literal
  type: [(qualified_type name: (type_identifier) @_type) (type_identifier) @_type]
  (#eq? @_type "ReceiveMessageInput")) @consumer.sdk

; input := &sqs.ReceiveMessageInput{...} (later input.VisibilityTimeout = 30 sets it)
(short_var_declaration
  left: (expression_list . (identifier) @var)
  right: (expression_list . [
    (composite_literal type: [(qualified_type name: (type_identifier) @_type) (type_identifier) @_type]) @consumer.sdk
    (unary_expression (composite_literal type: [(qualified_type name: (type_identifier) @_type) (type_identifier) @_type]) @consumer.sdk)])
  (#eq? @_type "ReceiveMessageInput"))
(var_spec
  name: (identifier) @var
  value: (expression_list . [
    (composite_literal type: [(qualified_type name: (type_identifier) @_type) (type_identifier) @_type]) @consumer.sdk
    (unary_expression (composite_literal type: [(qualified_type name: (type_identifier) @_type) (type_identifier) @_type]) @consumer.sdk)])
  (#eq? @_type "ReceiveMessageInput"))
(assignment_statement
  left: (expression_list . (identifier) @var)
  right: (expression_list . [
    (composite_literal type: [(qualified_type name: (type_identifier) @_type) (type_identifier) @_type]) @consumer.sdk
    (unary_expression (composite_literal type: [(qualified_type name: (type_identifier) @_type) (type_identifier) @_type]) @consumer.sdk)])
  (#eq? @_type "ReceiveMessageInput"))

; input.VisibilityTimeout = aws.Int32(30)
(assignment_statement
  left: (expression_list . (selector_expression operand: (identifier) @set.owner field: (field_identifier) @set.key) .)
  right: (expression_list . (_) @set.value))

; the file changes a message's visibility: it extends its messages
(composite_literal
  type: [(qualified_type name: (type_identifier) @_hb) (type_identifier) @_hb]
  (#match? @_hb "^ChangeMessageVisibility(Batch)?Input$")) @heartbeat
(selector_expression
  field: (field_identifier) @_hb
  (#match? @_hb "^ChangeMessageVisibility(Batch)?(WithContext)?$")) @heartbeat

; names bound in the file: const/var specs, := and = of one name to one value; a name of a multiple
; assignment (next to a comma) or of a spec without a value is bound to what is not read
(const_spec name: (identifier) @bind.name . value: (expression_list . (_) @bind.value .))
(var_spec name: (identifier) @bind.name . value: (expression_list . (_) @bind.value .))
(const_spec name: (identifier) @bind.name . ",")
(const_spec name: (identifier) @bind.name .)
(var_spec name: (identifier) @bind.name . ",")
(var_spec name: (identifier) @bind.name . type: (_))
(short_var_declaration left: (expression_list . (identifier) @bind.name .) right: (expression_list . (_) @bind.value .))
(assignment_statement left: (expression_list . (identifier) @bind.name .) right: (expression_list . (_) @bind.value .))
(const_spec "," . (identifier) @bind.name)
(var_spec "," . (identifier) @bind.name)
(short_var_declaration left: (expression_list "," . (identifier) @bind.name))
(short_var_declaration left: (expression_list (identifier) @bind.name . ","))
(assignment_statement left: (expression_list "," . (identifier) @bind.name))
(assignment_statement left: (expression_list (identifier) @bind.name . ","))
(short_var_declaration left: (expression_list . (identifier) @bind.name .) right: (expression_list (_) (_)))
(assignment_statement left: (expression_list . (identifier) @bind.name .) right: (expression_list (_) (_)))

; fields, for the value flow (engine.Flow): `Listener{queueUrl: url}`, `&worker.Config{QueueName: "q"}`,
; `q.url = u` (go.py keys a field as ".url": every value of a field of that name, whatever the variable); the
; SDK's request and response shapes (`sqs.ReceiveMessageInput{QueueUrl: ...}`, `aws.Config{...}`) are not read
(composite_literal
  type: [(type_identifier) @_t (qualified_type package: (package_identifier) @_p name: (type_identifier) @_t)]
  body: (literal_value (keyed_element . (literal_element (identifier) @bind.name) . (literal_element) @bind.value))
  (#not-match? @_t "(Input|Output)$") (#not-eq? @_p "aws"))
; `url, err := getQueueURL(...)`: the first name is the call's first result
(short_var_declaration left: (expression_list . (identifier) @bind.name . ",") right: (expression_list . (call_expression) @bind.value .))
(assignment_statement left: (expression_list . [(identifier) (selector_expression)] @bind.name . ",") right: (expression_list . (call_expression) @bind.value .))
(assignment_statement left: (expression_list . (selector_expression) @bind.name .) right: (expression_list . (_) @bind.value .))
(assignment_statement left: (expression_list "," . (selector_expression) @bind.name))
(assignment_statement left: (expression_list (selector_expression) @bind.name . ","))

; calls, for the value flow: what the calls of a function pass its parameters (`CreateListener(p, "http://...")`,
; `l.client.GetMessages(ctx, l.queueUrl, 10, 10)`), by the callee's last name
(call_expression function: [(identifier) @flow.callee (selector_expression field: (field_identifier) @flow.callee)]) @flow.call

; parameters shadow the file's names inside their function
(parameter_declaration name: (identifier) @param)

; a truncated literal: tree-sitter recovers its type and fields as siblings in an error
(ERROR (qualified_type name: (type_identifier) @_type) (#eq? @_type "ReceiveMessageInput")) @truncated


; ---------------------------------------------------------------------------------------------- create sites
; (issue 35: visguard.linter.loaders.code.creates) a call that creates a queue, found by the name it calls
; (@create.call; creates.py takes its call and reads the request there: a pattern on the call would wait past its
; object, O(n^2) in a chain of n calls); @create.builder: the start of a request builder chain.
((field_identifier) @create.call (#any-of? @create.call "CreateQueue" "CreateQueueWithContext"))
