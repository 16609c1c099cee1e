; endings: .js .mjs .cjs .jsx .ts .mts .cts .tsx
; markers: receiveMessage ReceiveMessage createQueue CreateQueueCommand sqs-consumer nestjs-sqs squiss
; grammar: tree_sitter_javascript.language
; grammar typescript .ts .mts .cts: tree_sitter_typescript.language_typescript
; grammar tsx .tsx: tree_sitter_typescript.language_tsx
;
; Where SQS consumers are in JavaScript, TypeScript and TSX (one query, compiled for each of the three grammars),
; for visguard's code engine (engine.py: the capture convention). What a query cannot say stays in javascript.py:
; which local name is sqs-consumer's Consumer or nestjs-sqs's SqsModule (imports, require, scopes), and the
; value of an options object (constants of enclosing scopes, spreads, class fields).

; AWS SDK v3: new ReceiveMessageCommand({...})
(new_expression
  constructor: [(identifier) @_c (member_expression property: (property_identifier) @_c)]
  (#eq? @_c "ReceiveMessageCommand")) @consumer.sdk

; AWS SDK v2 and v3's aggregated client: sqs.receiveMessage({...}) (the reader checks it is the SDK's)
(call_expression
  function: (member_expression property: (property_identifier) @_m)
  (#eq? @_m "receiveMessage")) @consumer.sdk-call

; sqs-consumer: new Consumer({...}), new ns.Consumer({...}), Consumer.create({...}); @class is kept when it is
; the class imported from sqs-consumer
(new_expression
  constructor: (identifier) @class
  (#not-match? @class "^(ReceiveMessageCommand|ChangeMessageVisibility(Batch)?Command)$")) @consumer.sqs-consumer
(new_expression
  constructor: (member_expression property: (property_identifier) @_k) @class
  (#eq? @_k "Consumer")) @consumer.sqs-consumer
(call_expression
  function: (member_expression object: (_) @class property: (property_identifier) @_m)
  (#eq? @_m "create")) @consumer.sqs-consumer

; @ssut/nestjs-sqs: SqsModule.register({consumers: [...]}), SqsModule.registerAsync({useFactory})
(call_expression
  function: (member_expression object: (identifier) @module property: (property_identifier) @_m)
  (#eq? @_m "register")) @consumer.nest-register
(call_expression
  function: (member_expression object: (identifier) @module property: (property_identifier) @_m)
  (#eq? @_m "registerAsync")) @consumer.nest-registerAsync

; a message handler of nestjs-sqs: @SqsMessageHandler("name", batch)
(decorator (call_expression function: (identifier) @handler.class)) @handler

; the file changes a message's visibility (the reader drops calls that only release: VisibilityTimeout 0)
(new_expression
  constructor: [(identifier) @_h (member_expression property: (property_identifier) @_h)]
  (#any-of? @_h "ChangeMessageVisibilityCommand" "ChangeMessageVisibilityBatchCommand")) @heartbeat
(call_expression
  function: (member_expression property: (property_identifier) @_h)
  (#any-of? @_h "changeMessageVisibility" "changeMessageVisibilityBatch")) @heartbeat

; imports: which local names are sqs-consumer's Consumer (or its module), nestjs-sqs's SqsModule and
; SqsMessageHandler; whether the file imports the SDK. import C from "m"; import * as ns from "m";
; import { A, B as C } from "m"; import "m"
(import_statement (import_clause (identifier) @import.default) source: (string) @import.module)
(import_statement (import_clause (namespace_import (identifier) @import.namespace)) source: (string) @import.module)
(import_statement
  (import_clause (named_imports (import_specifier name: (_) @import.name alias: (_)? @import.alias)))
  source: (string) @import.module)
(import_statement source: (string) @import.module)

; every declarator (const/let/var, destructuring too) and every name assigned again (a let assigned again is
; not a constant): javascript.py resolves a name to its nearest visible declaration
(variable_declarator) @declarator
(assignment_expression left: (identifier) @assigned)
(augmented_assignment_expression left: (identifier) @assigned)
(update_expression argument: (identifier) @assigned)


; ---------------------------------------------------------------------------------------------- create sites
; (issue 35: visguard.linter.loaders.code.creates) a call that creates a queue, found by the name it calls
; (@create.call; creates.py takes its call and reads the request there: a pattern on the call would wait past its
; object, O(n^2) in a chain of n calls); @create.builder: the start of a request builder chain.
((property_identifier) @create.call (#eq? @create.call "createQueue"))
((identifier) @create.call (#eq? @create.call "CreateQueueCommand"))


; ---------------------------------------------------------------------------------------------- the value flow
; (issue 35, engine.Flow) calls and constructions by the callee's last name: what the calls of a function pass
(call_expression
  function: [(identifier) @flow.callee (member_expression property: (property_identifier) @flow.callee)]) @flow.call
(new_expression
  constructor: [(identifier) @flow.callee (member_expression property: (property_identifier) @flow.callee)]) @flow.call

; a function's parameters, each its whole node (an identifier, a pattern, a default: javascript.py's name_key
; says its name; TypeScript's required/optional parameters hold them), and an arrow function's one bare parameter
(_ parameters: (formal_parameters (_) @param)) @param.scope
(arrow_function parameter: (identifier) @param) @param.scope
