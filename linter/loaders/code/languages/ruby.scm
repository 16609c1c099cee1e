; endings: .rb .rake Rakefile rakefile
; markers: receive_message create_queue shoryuken Shoryuken QueuePoller add_queue
; grammar: tree_sitter_ruby.language
;
; Where SQS consumers are in Ruby, for visguard's code engine (engine.py: the capture convention): aws-sdk-sqs
; receive calls and QueuePoller, Shoryuken workers. A call's keyword arguments (key: v, :key => v, 'key' => v, or
; one hash argument) are its settings (ruby.py names them).

; sqs.receive_message(queue_url: ..., visibility_timeout: 30)
(call receiver: (_) method: (identifier) @_m
  arguments: (argument_list (pair key: (_) @key value: (_) @value))
  (#eq? @_m "receive_message")) @consumer.sdk
(call receiver: (_) method: (identifier) @_m
  arguments: (argument_list . (hash (pair key: (_) @key value: (_) @value)) .)
  (#eq? @_m "receive_message")) @consumer.sdk
(call receiver: (_) method: (identifier) @_m (#eq? @_m "receive_message")) @consumer.sdk

; Aws::SQS::QueuePoller.new(url, options); poller = ... names it for its poll(...)
(call receiver: [(constant) @_r (scope_resolution name: (constant) @_r)] method: (identifier) @_m
  arguments: (argument_list . (_) @queue)
  (#eq? @_r "QueuePoller") (#eq? @_m "new")) @consumer.sdk
(call receiver: [(constant) @_r (scope_resolution name: (constant) @_r)] method: (identifier) @_m
  arguments: (argument_list (pair key: (_) @key value: (_) @value))
  (#eq? @_r "QueuePoller") (#eq? @_m "new")) @consumer.sdk
(call receiver: [(constant) @_r (scope_resolution name: (constant) @_r)] method: (identifier) @_m
  arguments: (argument_list . (hash (pair key: (_) @key value: (_) @value)) .)
  (#eq? @_r "QueuePoller") (#eq? @_m "new")) @consumer.sdk
(call receiver: [(constant) @_r (scope_resolution name: (constant) @_r)] method: (identifier) @_m
  (#eq? @_r "QueuePoller") (#eq? @_m "new")) @consumer.sdk
(assignment left: (_) @var
  right: (call receiver: [(constant) @_r (scope_resolution name: (constant) @_r)] method: (identifier) @_m
    (#eq? @_r "QueuePoller") (#eq? @_m "new")) @consumer.sdk)

; poller.poll(visibility_timeout: 60): not a consumer of its own, the options of the poller it is called on
(call receiver: (_) method: (identifier) @_m
  arguments: (argument_list (pair key: (_) @key value: (_) @value))
  (#eq? @_m "poll")) @consumer.poll
(call receiver: (_) method: (identifier) @_m
  arguments: (argument_list . (hash (pair key: (_) @key value: (_) @value)) .)
  (#eq? @_m "poll")) @consumer.poll

; shoryuken_options queue: 'name', auto_visibility_timeout: true, retry_intervals: [...], batch: true
(call method: (identifier) @_m
  arguments: (argument_list (pair key: (_) @key value: (_) @value))
  (#eq? @_m "shoryuken_options")) @consumer.shoryuken
(call method: (identifier) @_m
  arguments: (argument_list . (hash (pair key: (_) @key value: (_) @value)) .)
  (#eq? @_m "shoryuken_options")) @consumer.shoryuken
(call method: (identifier) @_m (#eq? @_m "shoryuken_options")) @consumer.shoryuken

; Shoryuken.add_queue(queue, weight, group): the launcher polls that queue (its worker registered elsewhere)
(call receiver: [(constant) @_r (scope_resolution name: (constant) @_r)] method: (identifier) @_m
  arguments: (argument_list . (_) @queue)
  (#eq? @_r "Shoryuken") (#eq? @_m "add_queue")) @consumer.launcher

; the file changes a message's visibility (the SDK's calls, the poller's change_message_visibility_timeout)
(call method: (identifier) @_hb
  (#match? @_hb "^change_message_visibility(_batch|_timeout)?$")) @heartbeat

; names bound in the file: constants, locals and instance variables; x += 1 binds x to what is not read
(assignment left: [(constant) (identifier) (instance_variable)] @bind.name right: (_) @bind.value)
(operator_assignment left: [(constant) (identifier) (instance_variable)] @bind.name)

; a method's parameters shadow the file's names inside it
(method_parameters [(identifier) @param
  (optional_parameter name: (identifier) @param) (keyword_parameter name: (identifier) @param)
  (splat_parameter name: (identifier) @param) (hash_splat_parameter name: (identifier) @param)])
(lambda_parameters [(identifier) @param
  (optional_parameter name: (identifier) @param) (keyword_parameter name: (identifier) @param)])


; ---------------------------------------------------------------------------------------------- create sites
; (issue 35: visguard.linter.loaders.code.creates) a call that creates a queue, found by the name it calls
; (@create.call; creates.py takes its call and reads the request there: a pattern on the call would wait past its
; object, O(n^2) in a chain of n calls); @create.builder: the start of a request builder chain.
((identifier) @create.call (#eq? @create.call "create_queue"))
