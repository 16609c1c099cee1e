; endings: .py
; markers: receive_message ReceiveMessage create_queue celery Celery CELERY apply_async countdown broker_transport_options time_limit acks_late retry_delay
; grammar: tree_sitter_python.language
;
; Where SQS consumers are in Python (boto3/botocore/aioboto3, Celery/Kombu), for visguard's code engine (engine.py:
; the capture convention). A call is named by its function's last identifier (`sqs.receive_message`,
; `receive_message`); which receive calls are SQS consumers, and Celery's configuration merge, are python.py's.

; the calls read, each captured once with its name (one pattern for all: half the query's time of one pattern
; per role on a 3,000-receive file); python.py's _ROLES says what each name is: a receive
; (`<client>.receive_message(...)`, `<queue>.receive_messages(...)`, awaited or not), a heartbeat
; (`change_message_visibility(_batch)`, `message.change_visibility`), a sleep or wait (a heartbeat loop's interval),
; Celery's app, its configuration calls, task decorators (a call right under a decorator) and delays
(call
  function: [(identifier) @call.name (attribute attribute: (identifier) @call.name)]
  (#match? @call.name "^(receive_messages?|change_message_visibility(_batch)?|change_visibility|sleep|wait|Celery|update|config_from_object|task|shared_task|apply_async|retry|send_task|set|signature|s|si)$")) @call

; a literal "VisibilityTimeout" key of a dict (a change_message_visibility_batch entry)
(pair key: (string (string_content) @_k) (#eq? @_k "VisibilityTimeout")) @entry.visibility

; imports: the file uses the AWS SDK
(import_statement [(dotted_name) (aliased_import)] @import)
(import_from_statement [(dotted_name) (aliased_import)] @import)

; names bound in the file (`X = ...`, `self.x = ...`, `a = b = ...`: the value is the chain's last)
(assignment left: [(identifier) (attribute)] @bind.name right: (_) @bind.value)

; calls, for the value flow (engine.Flow: what the calls of a function pass its parameters), by the callee's last
; name: `AsyncListener("orders")`, `self.listen(q)`
(call function: [(identifier) @flow.callee (attribute attribute: (identifier) @flow.callee)]) @flow.call
; a function handed to a thread or an executor with its arguments (python.py's _call_args reads them):
; `Thread(target=poll, args=(url,))`, `executor.submit(poll, url)`, `asyncio.to_thread(poll, url)`,
; `loop.run_in_executor(None, poll, url)`; the captured node is the function's name (the call is around it)
(call arguments: (argument_list (keyword_argument name: (identifier) @_k
  value: [(identifier) @flow.callee (attribute attribute: (identifier) @flow.callee)] @flow.call)
  (#eq? @_k "target")))
(call function: (attribute attribute: (identifier) @_m)
  arguments: (argument_list . [(identifier) @flow.callee (attribute attribute: (identifier) @flow.callee)] @flow.call)
  (#match? @_m "^(submit|to_thread|start_new_thread)$"))
(call function: (attribute attribute: (identifier) @_m)
  arguments: (argument_list . (_) . [(identifier) @flow.callee (attribute attribute: (identifier) @flow.callee)] @flow.call)
  (#eq? @_m "run_in_executor"))

; parameters shadow the file's names inside their function (or lambda)
(function_definition
  parameters: (parameters [(identifier) @param
                           (default_parameter name: (identifier) @param)
                           (typed_parameter . (identifier) @param)
                           (typed_default_parameter name: (identifier) @param)
                           (list_splat_pattern (identifier) @param)
                           (dictionary_splat_pattern (identifier) @param)])) @param.scope
(lambda
  parameters: (lambda_parameters [(identifier) @param
                                  (default_parameter name: (identifier) @param)
                                  (list_splat_pattern (identifier) @param)
                                  (dictionary_splat_pattern (identifier) @param)])) @param.scope


; ---------------------------------------------------------------------------------------------- create sites
; (issue 35: visguard.linter.loaders.code.creates) a call that creates a queue, found by the name it calls
; (@create.call; creates.py takes its call and reads the request there: a pattern on the call would wait past its
; object, O(n^2) in a chain of n calls); @create.builder: the start of a request builder chain.
((identifier) @create.call (#eq? @create.call "create_queue"))
