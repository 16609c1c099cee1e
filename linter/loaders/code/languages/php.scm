; endings: .php
; markers: ReceiveMessage receiveMessage createQueue sqs ShouldQueue
; grammar: tree_sitter_php.language_php
;
; Where SQS consumers are in PHP, for visguard's code engine (engine.py: the capture convention): AWS SDK receive
; calls, Laravel's config/queue.php connections and its queued job classes. An array's 'key' => value elements
; are the settings (php.py names them).

; $client->receiveMessage(['QueueUrl' => ..., 'VisibilityTimeout' => 30]) (also ?->, ::, receiveMessageAsync)
([(member_call_expression name: (name) @_m
   arguments: (arguments . (argument (array_creation_expression
     (array_element_initializer . (_) @key . (_) @value .)))))
  (nullsafe_member_call_expression name: (name) @_m
   arguments: (arguments . (argument (array_creation_expression
     (array_element_initializer . (_) @key . (_) @value .)))))
  (scoped_call_expression name: (name) @_m
   arguments: (arguments . (argument (array_creation_expression
     (array_element_initializer . (_) @key . (_) @value .)))))] @consumer.sdk
 (#match? @_m "^receiveMessage(Async)?$"))
; ->receiveMessage($params): the options are the array $params is bound to (php.py)
([(member_call_expression name: (name) @_m arguments: (arguments . (argument (variable_name) @options)))
  (nullsafe_member_call_expression name: (name) @_m arguments: (arguments . (argument (variable_name) @options)))
  (scoped_call_expression name: (name) @_m arguments: (arguments . (argument (variable_name) @options)))] @consumer.sdk
 (#match? @_m "^receiveMessage(Async)?$"))
([(member_call_expression name: (name) @_m)
  (nullsafe_member_call_expression name: (name) @_m)
  (scoped_call_expression name: (name) @_m)] @consumer.sdk
 (#match? @_m "^receiveMessage(Async)?$"))

; the file changes a message's visibility: it extends its messages
([(member_call_expression name: (name) @_hb)
  (nullsafe_member_call_expression name: (name) @_hb)
  (scoped_call_expression name: (name) @_hb)] @heartbeat
 (#match? @_hb "^changeMessageVisibility(Batch)?(Async)?$"))

; a connection of config/queue.php: an array with a 'driver' (php.py reads its items when the driver is 'sqs')
(array_creation_expression
  (array_element_initializer . [(string (string_content) @_k) (encapsed_string (string_content) @_k)] . (_) .)
  (#eq? @_k "driver")) @consumer.laravel

; a queued job: class X implements ShouldQueue { public $timeout = 600; public $tries = 3; ... }
(class_declaration
  (class_interface_clause [(name) @_i (qualified_name (name) @_i .)])
  (#eq? @_i "ShouldQueue")) @consumer.job
(class_declaration
  (class_interface_clause [(name) @_i (qualified_name (name) @_i .)])
  body: (declaration_list (property_declaration
    (property_element name: (variable_name (name) @key) default_value: (_) @value)))
  (#eq? @_i "ShouldQueue")) @consumer.job
; $this->release(45), ->onQueue('media'), ->backoff(...) (php.py gives each to the job classes around it)
([(member_call_expression name: (name) @_j) (scoped_call_expression name: (name) @_j)] @job.call
 (#match? @_j "^(release|onQueue|backoff)$"))

; names bound in the file: const, define(), properties with a default, assignments; $x, $this->x and self::X
; are one name x (php.py's name_key); $x += 1 and $x++ bind x to what is not read
(const_element . (name) @bind.name (_) @bind.value .)
(function_call_expression function: (name) @_f
  arguments: (arguments . (argument (string (string_content) @bind.name)) . (argument (_) @bind.value) .)
  (#eq? @_f "define"))
(property_element name: (variable_name) @bind.name default_value: (_) @bind.value)
(assignment_expression left: [(variable_name) (member_access_expression)] @bind.name right: (_) @bind.value)
(augmented_assignment_expression left: [(variable_name) (member_access_expression)] @bind.name)
(update_expression argument: [(variable_name) (member_access_expression)] @bind.name)

; parameters shadow the file's names inside their function
(simple_parameter name: (variable_name) @param)
(variadic_parameter name: (variable_name) @param)
(property_promotion_parameter name: (variable_name) @param)


; ---------------------------------------------------------------------------------------------- create sites
; (issue 35: visguard.linter.loaders.code.creates) a call that creates a queue, found by the name it calls
; (@create.call; creates.py takes its call and reads the request there: a pattern on the call would wait past its
; object, O(n^2) in a chain of n calls); @create.builder: the start of a request builder chain.
((name) @create.call (#eq? @create.call "createQueue"))
