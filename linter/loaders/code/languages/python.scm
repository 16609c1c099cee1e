; Where SQS consumers are in Python (boto3/botocore/aioboto3, Celery/Kombu), for visguard's code engine (engine.py:
; the capture convention). A call is named by its function's last identifier (`sqs.receive_message`,
; `receive_message`); which receive calls are SQS consumers, and Celery's configuration merge, are python.py's.

; <client>.receive_message(...) / <queue>.receive_messages(...), awaited or not
(call
  function: [(identifier) @_f (attribute attribute: (identifier) @_f)]
  (#match? @_f "^receive_messages?$")) @consumer.sdk

; the file changes a message's visibility (a heartbeat unless it only sets 0)
(call
  function: [(identifier) @_hb (attribute attribute: (identifier) @_hb)]
  (#match? @_hb "^(change_message_visibility(_batch)?|change_visibility)$")) @heartbeat

; a sleep or wait (a heartbeat loop's interval)
(call
  function: [(identifier) @_s (attribute attribute: (identifier) @_s)]
  (#match? @_s "^(sleep|wait)$")) @sleep

; a literal "VisibilityTimeout" key of a dict (a change_message_visibility_batch entry)
(pair key: (string (string_content) @_k) (#eq? @_k "VisibilityTimeout")) @entry.visibility

; Celery: the app, its configuration calls, task decorators and the calls that delay a task
(call
  function: [(identifier) @_c (attribute attribute: (identifier) @_c)]
  (#eq? @_c "Celery")) @celery.app
(call
  function: (attribute attribute: (identifier) @_u)
  (#match? @_u "^(update|config_from_object)$")) @celery.update
(decorator
  (call
    function: [(identifier) @_t (attribute attribute: (identifier) @_t)]
    (#match? @_t "^(task|shared_task)$")) @celery.task)
(call
  function: [(identifier) @_d (attribute attribute: (identifier) @_d)]
  (#match? @_d "^(apply_async|retry|send_task|set|signature|s|si)$")) @celery.delay

; imports: the file uses the AWS SDK
(import_statement [(dotted_name) (aliased_import)] @import)
(import_from_statement [(dotted_name) (aliased_import)] @import)

; names bound in the file (`X = ...`, `self.x = ...`, `a = b = ...`: the value is the chain's last)
(assignment left: [(identifier) (attribute)] @bind.name right: (_) @bind.value)

; parameters shadow the file's names inside their function (or lambda)
(parameters [(identifier) @param
             (default_parameter name: (identifier) @param)
             (typed_parameter . (identifier) @param)
             (typed_default_parameter name: (identifier) @param)
             (list_splat_pattern (identifier) @param)
             (dictionary_splat_pattern (identifier) @param)])
(lambda_parameters [(identifier) @param
                    (default_parameter name: (identifier) @param)
                    (list_splat_pattern (identifier) @param)
                    (dictionary_splat_pattern (identifier) @param)])
