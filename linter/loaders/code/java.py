"""SQS consumers in Java: AWS SDK v2 and v1 receive requests, Spring Cloud AWS 3.x listeners and container options.

Where they are is ``languages/java.scm``; this module is the Java entry of the code engine (``engine.py``) and what
a query cannot say (a request's chain of option calls, Spring's one consumer per queue and its defaults).

- SDK v2 ``ReceiveMessageRequest.builder().queueUrl(..).visibilityTimeout(N)...build()`` and the consumer-builder
  form ``sqs.receiveMessage(r -> r.queueUrl(..).visibilityTimeout(N))``; SDK v1 ``new
  ReceiveMessageRequest(url).withVisibilityTimeout(N)`` and ``request.setVisibilityTimeout(N)``; v1
  ``sqs.receiveMessage(queueUrl)``. One consumer per request (platform ``sdk``); ``heartbeat`` True when the file
  changes visibility (``changeMessageVisibility``, ``ChangeMessageVisibilityRequest``), else False.
- Spring ``@SqsListener`` (one consumer per queue, platform ``spring``): ``messageVisibilitySeconds``,
  ``maxConcurrentMessages`` (concurrency), ``maxMessagesPerPoll``, ``pollTimeoutSeconds``,
  ``acknowledgementMode``; String attributes, so ``${...}`` placeholders are not values (a note), and a queue
  written as ``${app.queue}`` becomes ``QueueRef("env", "app.queue")``, which application.yml/properties bind
  (frameworks.py). ``SqsContainerOptions`` (``messageVisibility(Duration)``, ``listenerShutdownTimeout``,
  ``maxConcurrentMessages``...) apply to the file's listeners that do not set their own, or to the container's
  ``queueNames``; ``stop_timeout`` is ``listenerShutdownTimeout`` (facts.SPRING_LISTENER_SHUTDOWN_DEFAULT when
  not written). ``heartbeat``: True when the file calls ``Visibility.changeTo``, else False (3.x has none).
- JMS over SQS (the Amazon SQS Java Messaging Library, in a project that uses it): Spring's ``@JmsListener(destination
  = "q")`` and ``session.createConsumer(session.createQueue("q"))``, platform ``jms``: the queue's visibility applies.
- Spring Cloud AWS 3.4+ error handlers (issue 36): ``new ImmediateRetryAsyncErrorHandler<>()``,
  ``ExponentialBackoffErrorHandler.builder().initialVisibilityTimeoutSeconds(..).multiplier(..)
  .maxVisibilityTimeoutSeconds(..).jitter(..).build()`` and (3.4.1) ``LinearBackoffErrorHandler.builder()
  .increment(..)``, in the listener's file or another Java file of its project (an ``AsyncErrorHandler`` @Bean or a
  factory's ``errorHandler(..)``): the one handler of the project -> ``settings["error_handler"]`` of each
  listener ({"class", "initial", "multiplier", "increment", "max", "jitter"}, defaults from facts); two different
  handlers: a note, none set. The spring-cloud-aws version is read from the project's pom.xml / build.gradle(.kts)
  (the ``spring-cloud-aws*`` artifact or BOM, or its ``<...version>`` property): a handler its version does not
  have (3.3 and older) is not the library's, noted and not set; no version written: 3.4+ is assumed (the code names
  the class, so it compiles against a release that has it).
"""

from __future__ import annotations

import bisect
import re

from visguard import facts

from . import CodeResult, creates
from .engine import (
    FLOW,
    File,
    Language,
    Location,
    Reader,
    Value,
    call_arguments,
    classes_of,
    compose,
    evaluate,
    is_test,
    number,
    printf,
    shown,
    text,
    unknown,
)

EXTENSIONS = (".java",)

_SDK_OPTIONS = {  # request option (lower case, without set/with) -> field
    "queueurl": "queue",
    "visibilitytimeout": "visibility_override",
    "waittimeseconds": "wait_time",
    "maxnumberofmessages": "max_messages",
}
LISTENER_ATTRIBUTES = _LISTENER = {  # @SqsListener attribute -> field
    "messageVisibilitySeconds": "visibility_override",
    "maxConcurrentMessages": "concurrency",
    "maxMessagesPerPoll": "max_messages",
    "pollTimeoutSeconds": "wait_time",
}
_CONTAINER = {  # SqsContainerOptions builder method -> field
    "messageVisibility": "visibility_override",
    "maxConcurrentMessages": "concurrency",
    "maxMessagesPerPoll": "max_messages",
    "pollTimeout": "wait_time",
    "listenerShutdownTimeout": "stop_timeout",
    "acknowledgementMode": "acknowledgement_mode",
}
_FIELDS = tuple(dict.fromkeys(_CONTAINER.values()))


def _signature(fn, f: File):
    """(the names its calls use: a constructor's class, a method's name; [(parameter, None, positional)], 0)."""
    if fn.type not in ("constructor_declaration", "method_declaration"):
        return None
    params = []
    for p in fn.child_by_field_name("parameters").named_children:
        if p.type == "formal_parameter":
            params.append((text(p.child_by_field_name("name")), None, True))
        elif p.type == "spread_parameter":
            declarator = next((c for c in p.named_children if c.type == "variable_declarator"), None)
            params.append(
                ("*" + text(declarator.child_by_field_name("name") if declarator else p), None, False)
            )
    return (text(fn.child_by_field_name("name")),), params, 0


def _call_args(call, f: File):
    args = call.child_by_field_name("arguments")
    if args is None:
        return None
    return (
        [a for a in args.named_children if a.type not in ("comment", "line_comment", "block_comment")],
        {},
        False,
    )


def _super_calls(fn, f: File) -> list:
    """engine.Language.super_calls: for a class's constructor, the ``super(...)`` calls in the constructors of the
    classes of its package that extend it (``class Billing extends BaseWorker``, ``extends BaseWorker<T>``), and
    (File, None, None, name) for a subclass without a constructor (``new Sub()`` runs the base's)."""
    if fn.type != "constructor_declaration":
        return []
    base, out = text(fn.child_by_field_name("name")), []
    for g in [f, *FLOW.files_with(f, (base,))]:
        for cls in classes_of(g, ("class_declaration",)):
            sup = cls.child_by_field_name("superclass")
            m = re.match(r"\s*extends\s+([\w.]+)", text(sup)) if sup is not None else None
            name, body = cls.child_by_field_name("name"), cls.child_by_field_name("body")
            if m is None or m.group(1).rsplit(".", 1)[-1] != base or name is None or body is None:
                continue
            ctors = [c for c in body.named_children if c.type == "constructor_declaration"]
            if not ctors:
                out.append((g, None, None, text(name)))
            for ctor in ctors:
                block = ctor.child_by_field_name("body")
                for n in block.named_children if block is not None else ():
                    if (
                        n.type == "explicit_constructor_invocation"
                        and text(n.child_by_field_name("constructor")) == "super"
                    ):
                        out.append((g, n, ctor, text(name)))
    return out


# the configuration a field's annotation injects (MicroProfile/Quarkus @ConfigProperty(name=, defaultValue=),
# Spring @Value("${key:default}")), read from the project's base configuration files (not a profile's)
_CONFIG_FILES = ("application.properties", "application.yml", "application.yaml")
_PLACEHOLDER = re.compile(r"^\$\{([^:}]+)(?::([^}]*))?\}$")


def _injected(node, f: File, depth: int) -> Value:
    """The value a ``@ConfigProperty``/``@Value`` annotation injects: the property the project's
    application.properties/yml sets (``${ENV}`` there is that environment variable), else its default."""
    name = text(node.child_by_field_name("name"))
    args = node.child_by_field_name("arguments")
    key = default = None
    for a in args.named_children if args is not None else ():
        if a.type == "element_value_pair":
            k, v = text(a.child_by_field_name("key")), a.child_by_field_name("value")
            if k == "name" or (k == "value" and name == "Value"):
                key = evaluate(v, f, depth + 1)
            elif k == "defaultValue":
                default = evaluate(v, f, depth + 1)
        elif a.type == "string_literal" and name == "Value":
            key = evaluate(a, f, depth + 1)
    if key is None or key.kind != "str":
        return unknown(node)
    if name == "Value":  # "${queue.url:default}" (a literal is the value itself)
        return inject(f, node, key.value, default) if _PLACEHOLDER.match(key.value.strip()) else key
    return _configured(f, node, key.value, default)


def inject(f: File, node, raw: str, default: Value | None) -> Value:
    """The value ``@Value(raw)`` injects at ``node`` (Java's and Kotlin's): ``${prop:fallback}`` is the property
    the project's application.properties/yml sets (``${ENV}`` there is that environment variable), else its
    fallback; a literal is the value itself."""
    m = _PLACEHOLDER.match(raw.strip())
    if m is None:
        return Value("str", raw, node)
    prop, fallback = m.group(1), m.group(2)
    if fallback is not None:
        default = _scalar(fallback, node)
    return _configured(f, node, prop, default)


def _configured(f: File, node, prop: str, default: Value | None) -> Value:
    got = _property(f, prop)
    if got is None:
        if default is not None and default.kind in ("str", "int"):
            return default
        return unknown(node, f"{prop} is set in no application.properties/yml of the project")
    raw, g_path, line = got
    m = _PLACEHOLDER.match(raw.strip())
    if m is not None:  # ${QUEUE} / ${QUEUE:default}: an environment variable (or another property: not read)
        var, fb = m.group(1), m.group(2)
        if "." in var:
            return unknown(node, f"{prop} = {raw[:60]} in {g_path}")
        fallback = Value("str", fb, node) if fb else None
        return Value("env", var, node, default=fallback)
    v = _scalar(raw, node)
    v.via = node
    return v


def _scalar(raw: str, node) -> Value:
    """A configuration value as the code reads it: digits are a number (the field is an int), else a string."""
    n = number(raw.strip()) if raw.strip().isdigit() else None
    return Value("int", n, node) if n is not None else Value("str", raw, node)


def _property(f: File, prop: str):
    """(the raw value of ``prop``, the file, its line) in the project's one base configuration file that sets
    it (src/main before tests; two that disagree: None), or None."""
    import os

    if f.path is None or not FLOW.offered:
        return None
    top = FLOW.root(f.path)
    found = []
    for path in FLOW.offered:
        if os.path.basename(path) not in _CONFIG_FILES or not os.path.abspath(path).startswith(top + os.sep):
            continue
        data = FLOW.data(path)
        if data is None:
            continue
        got = _properties(data, prop) if path.endswith(".properties") else _yaml(data, prop)
        if got is not None:
            found.append((got, path, is_test(path)))
    plain = [x for x in found if not x[2]] or found
    if not plain or any(x[0] != plain[0][0] for x in plain[1:]):
        return None
    return plain[0][0], plain[0][1], None


def _properties(data: bytes, prop: str) -> str | None:
    """``prop``'s value in a .properties file (``key=value``, ``key: value``; ``#``/``!`` comments)."""
    for raw in data.decode("utf-8", "replace").splitlines():
        line = raw.strip()
        if not line or line[0] in "#!":
            continue
        m = re.match(r"([^=:\s]+)\s*[=:]\s*(.*)$", line)
        if m and m.group(1) == prop:
            return m.group(2).strip()
    return None


def _yaml(data: bytes, prop: str) -> str | None:
    """``prop`` (dotted) in an application.yml's first document (a scalar), or None."""
    import yaml

    try:
        doc = next(iter(yaml.safe_load_all(data.decode("utf-8", "replace"))), None)
    except yaml.YAMLError:
        return None
    for part in prop.split("."):
        if not isinstance(doc, dict) or part not in doc:
            return None
        doc = doc[part]
    return str(doc) if isinstance(doc, (str, int, float)) and not isinstance(doc, bool) else None


def _hook(node, f: File, depth: int) -> Value | None:
    """What the tables cannot say: a String of digits is a number (Spring's attributes are Strings), ``this.x``
    is the field ``x``, and ``sqs.getQueueUrl(...)`` is the queue name it looks up."""
    t = node.type
    if t == "annotation" and text(node.child_by_field_name("name")) in ("ConfigProperty", "Value"):
        return _injected(node, f, depth)
    if t == "string_literal":
        s = f.string(node, depth)
        if s.value.strip().isdigit():
            n = number(s.value)
            return (
                Value("int", n, node)
                if n is not None
                else unknown(node, f"{shown(node)} is not a number visguard reads")
            )
        return s
    if (
        t == "method_invocation"
        and text(node.child_by_field_name("object")) == "String"
        and (text(node.child_by_field_name("name")) in ("format", "formatted"))
    ):
        args = [evaluate(a, f, depth + 1) for a in call_arguments(node, f.lang)]
        if not args or args[0].kind != "str":
            return unknown(node)
        return compose(node, args[1:], lambda ps: printf(args[0].value, ps), shown(node))
    if t == "field_access" and text(node.child_by_field_name("object")) == "this":
        return f.name(node.child_by_field_name("field"), depth, field=True)
    if t == "method_invocation" and any(
        text(call.child_by_field_name("name")) == "getQueueUrl" for call in _chain(node)[1]
    ):
        return _looked_up(node, f, depth)
    return None


JAVA = Language(
    "java",
    "java",
    annotation="//",
    signature=_signature,
    call_args=_call_args,
    super_calls=lambda fn, f: _super_calls(fn, f),
    keys={k: k for k in ("value", "queueNames", "acknowledgementMode", "destination", *_LISTENER)},
    numbers={"decimal_integer_literal", "hex_integer_literal", "decimal_floating_point_literal"},
    strings={"string_literal"},
    string_parts={"string_fragment", "escape_sequence", "multiline_string_fragment"},
    names={"identifier"},
    wrappers={"parenthesized_expression", "cast_expression"},
    lists={"element_value_array_initializer", "array_initializer"},
    bools={"true": True, "false": False},
    unary={"unary_expression"},
    binary={"binary_expression"},
    calls={"method_invocation": "arguments"},
    env_calls={
        "System.getenv": (0, None),
        "System.getenv().get": (0, None),
        "System.getenv().getOrDefault": (0, 1),
    },
    passthrough={
        "Integer.parseInt": "number",
        "Integer.valueOf": "number",
        "Long.parseLong": "number",
        "Long.valueOf": "number",
        "String.valueOf": "number",
    },
    units={
        "Duration.ofSeconds": 1,
        "Duration.ofMinutes": 60,
        "Duration.ofHours": 3600,
        "Duration.ofMillis": 0.001,
        "Duration.ofDays": 86_400,
    },
    hook=_hook,
)


def read(path: str, data: bytes) -> CodeResult:
    f = File(JAVA, data, path=path)
    r = Reader(path, "java", data, JAVA)
    strings = {n.start_byte for n in f.captures("string")}
    # each request with the options set on its variable (the last request bound to it), then the receive calls,
    # in the order written; a request whose options come through a function of several call sites (``new
    # Listener(url, visibility)`` for two queues): one consumer per call site (engine.Reader.per_call_site)
    requests = [(node, _request_variable(f, node)) for node in f.captures("request")]
    last = {var: node.start_byte for node, var in requests if var is not None}
    later = sorted(
        ((f.parent(f.parent(value)), owner, key, value) for owner, key, value in f.assignments()),
        key=lambda x: _preorder(x[0]),
    )

    def request(node, var) -> None:
        c = _request(r, f, node)
        if var is not None and last[var] == node.start_byte:
            for _, owner, key, value in later:
                if owner == var:
                    _option(r, f, c, key, value)

    for node, var in requests:
        r.per_call_site(lambda node=node, var=var: request(node, var))
    receives = []
    for name in f.captures("receive"):
        call, args = _call(f, name)
        if call is not None and call.child_by_field_name("object") is not None and len(args) == 1:
            receives.append((call, args[0]))
    for call, arg in sorted(receives, key=lambda x: _preorder(x[0])):
        r.per_call_site(lambda call=call, arg=arg: _receive(r, f, call, arg, strings))
    heartbeat = bool(f.captures("heartbeat")) or any(_call(f, n)[0] for n in f.captures("heartbeat.call"))
    for c in r.result.consumers:
        c.heartbeat = heartbeat
    spring, jms = [], []
    for site, platform, args, _ in f.sites():
        if platform == "spring":
            spring.extend(_listener(r, f, site, args))
        elif platform == "jms":
            jms.append((site, args))
    if jms and _sqs_jms(path, data):
        for site, args in jms:
            _jms_consumer(r, f, site, args)
    spring.extend(_container(r, f, spring))
    heartbeat = any(_call(f, n)[0] for n in f.captures("heartbeat.spring"))
    for c in spring:
        c.heartbeat = heartbeat
        if c.stop_timeout is None:
            c.stop_timeout = facts.SPRING_LISTENER_SHUTDOWN_DEFAULT
    if spring:
        _error_handler(r, f, spring)
    creates.read(f, r)  # the queues the code creates (issue 35)
    return r.finish()


def _preorder(node) -> tuple[int, int]:
    """A node's place in the order of a walk of the tree (an enclosing call before the calls it is built on)."""
    return node.start_byte, -node.end_byte


# --------------------------------------------------------------------------------------------- the SDK
def _call(f: File, name) -> tuple:
    """The method invocation ``name`` is the name of and its arguments, or (None, [])."""
    call = f.parent(name)
    if call is None or call.type != "method_invocation" or call.child_by_field_name("name") != name:
        return None, []
    args = call.child_by_field_name("arguments")
    return call, (args.named_children if args is not None else [])


def _chain(node):
    """``a.b(x).c(y)``: the root (``a``) and the calls innermost first."""
    calls = []
    while node is not None and node.type == "method_invocation":
        calls.append(node)
        node = node.child_by_field_name("object")
    calls.reverse()
    return node, calls


def _request_variable(f: File, node) -> str | None:
    """The variable a request (and the options called on it in one chain) is bound to, or None."""
    top, up = node, f.parent(node)
    while up is not None and up.type == "method_invocation" and up.child_by_field_name("object") == top:
        top, up = up, f.parent(up)
    return (
        text(up.child_by_field_name("name")) if up is not None and up.type == "variable_declarator" else None
    )


def _request(r: Reader, f: File, node):
    """A request: ``new ReceiveMessageRequest(url)`` or ``ReceiveMessageRequest.builder()``, and the options
    called on it in one chain; its consumer."""
    calls, top, up = [], node, f.parent(node)
    while up is not None and up.type == "method_invocation" and up.child_by_field_name("object") == top:
        top, up = up, f.parent(up)
        calls.append(top)
    c = r.consumer(node, "sdk")
    if node.type == "object_creation_expression":
        args = node.child_by_field_name("arguments")
        if args is not None and args.named_children:
            r.queue(c, evaluate(args.named_children[0], f), "ReceiveMessageRequest")
    for call in calls:
        _call_option(r, f, c, call)
    if c.queue_ref is None and "queue_ref" not in c.locations:
        c.locations["queue_ref"] = c.location
    return c


def _call_option(r: Reader, f: File, c, call) -> None:
    args = call.child_by_field_name("arguments")
    if args is not None and args.named_children:
        _option(r, f, c, text(call.child_by_field_name("name")), args.named_children[0])


def _option(r: Reader, f: File, c, name: str, arg) -> None:
    """One option of a request (``queueUrl``, ``withVisibilityTimeout``, ``setWaitTimeSeconds``...)."""
    key = name
    for prefix in ("with", "set"):
        if key.startswith(prefix) and key[len(prefix) : len(prefix) + 1].isupper():
            key = key[len(prefix) :]
    field = _SDK_OPTIONS.get(key.lower())
    if field is None:
        return
    v = evaluate(arg, f)
    if field == "queue":
        r.queue(c, v, f"{name} at {r.path}")
    else:
        r.number(c, field, v, name)


def _receive(r: Reader, f: File, call, arg, strings: set[int]) -> None:
    """``sqs.receiveMessage(r -> r.queueUrl(..)...)`` and v1 ``sqs.receiveMessage(queueUrl)``."""
    if arg.type == "lambda_expression":
        body = arg.child_by_field_name("body")
        if body is not None and body.type == "method_invocation":
            c = r.consumer(call, "sdk")
            c.locations.setdefault("queue_ref", c.location)
            for option in _chain(body)[1]:
                _call_option(r, f, c, option)
        return
    bound = f.bindings.get(text(arg), {}) if arg.type == "identifier" else {}
    if (
        arg.type == "string_literal"
        or (arg.type == "method_invocation" and text(arg).startswith("System."))
        or (bound and all(start in strings for start in bound))
    ):
        c = r.consumer(call, "sdk")
        c.locations.setdefault("queue_ref", c.location)
        r.queue(c, evaluate(arg, f), "receiveMessage")


def _looked_up(node, f: File, depth: int) -> Value:
    """``sqs.getQueueUrl(GetQueueUrlRequest.builder().queueName("orders").build()).queueUrl()``: the name (or the
    environment variable) the first lookup under ``node`` names."""
    names = f.captures("lookup")
    lookups = []
    for name in names[bisect.bisect_left(names, node.start_byte, key=lambda n: n.start_byte) :]:
        if name.start_byte >= node.end_byte:
            break
        call, args = _call(f, name)
        if args:
            lookups.append((call, args[0]))
    for _, arg in sorted(lookups, key=lambda ca: _preorder(ca[0])):
        v = evaluate(arg, f, depth + 1)
        if v.kind in ("str", "env"):
            return Value("name" if v.kind == "str" else "env", v.value, v.node)
    return unknown(node)


# --------------------------------------------------------------------------------------------- Spring
# The Amazon SQS Java Messaging Library (a JMS provider over SQS): its classes, its artifact
# (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/jmsclient.html, checked 2026-12-04)
_SQS_JMS = (b"SQSConnectionFactory", b"com.amazon.sqs.javamessaging", b"amazon-sqs-java-messaging-lib")


def _sqs_jms(path: str, data: bytes) -> bool:
    """Whether JMS in this file is SQS's: the file names the library, or its project's pom.xml / build.gradle(.kts)
    depends on it (JMS consumers of another broker, ActiveMQ's, are none of visguard's)."""
    if any(m in data for m in _SQS_JMS):
        return True
    return any(b"amazon-sqs-java-messaging-lib" in got for _, got in build_files(path))


def build_files(path: str | None) -> list[tuple[str, bytes]]:
    """(name, bytes) of the pom.xml / build.gradle(.kts) at the project folder of ``path`` (:meth:`Flow.root`),
    at most MAX_BUILD_BYTES each; none outside a run (a file offered) or that cannot be read."""
    import os

    from .. import safe_io

    if path is None or not FLOW.offered:
        return []
    top, out = FLOW.root(path), []
    for name in ("pom.xml", "build.gradle", "build.gradle.kts"):
        build = os.path.join(top, name)
        if not safe_io.is_regular_file(build):
            continue
        try:
            out.append((name, safe_io.read_bytes(build, max_bytes=MAX_BUILD_BYTES, truncate=True)))
        except Exception:  # noqa: BLE001 - a build file that cannot be read says nothing
            continue
    return out


def _jms_consumer(r: Reader, f: File, site, args) -> None:
    """A JMS consumer of an SQS queue (platform ``jms``): ``@JmsListener(destination = "q")`` (a ``${property}`` as
    the property, which application.yml/properties bind) or ``session.createConsumer(queue)`` of a
    ``session.createQueue("q")`` (in the call or bound to a variable). The library receives with the queue's
    visibility timeout; what a message's work takes is not said here."""
    node = next((v for k, v in args if k in ("destination", "positional")), None)
    if site.type == "method_invocation":
        node = next((v for k, v in args if k == "destination"), None)
        node = _created_queue(f, node)
        if node is None:
            return  # createConsumer of a destination that is not a queue created here (a topic, a parameter)
    c = r.consumer(site, "jms")
    if node is None:
        return
    v = evaluate(node, f)
    if v.kind == "str" and v.value.startswith("${"):
        r.queue(c, Value("env", v.value[2:].rstrip("}").split(":", 1)[0], v.node), "@JmsListener destination")
    else:
        r.queue(c, v, "JMS destination")


def _created_queue(f: File, node):
    """The name argument of ``session.createQueue("q")`` that ``node`` is (or a variable bound once to), or None."""
    for _ in range(4):
        if node is None:
            return None
        if node.type == "method_invocation":
            name = node.child_by_field_name("name")
            args = node.child_by_field_name("arguments")
            kids = [k for k in args.named_children if k.type != "comment"] if args is not None else []
            return kids[0] if name is not None and text(name) == "createQueue" and len(kids) == 1 else None
        if node.type == "identifier":
            right, _ = f.resolve(node)
            node = right
            continue
        return None
    return None


def _listener(r: Reader, f: File, ann, args) -> list:
    """One consumer per queue of an ``@SqsListener`` (one without a queue when it names none)."""
    attrs: dict[str, object] = {}
    for field, node in args:
        if field == "positional":
            if node.type != "element_value_pair":
                attrs.setdefault("value", node)
        else:
            attrs[field] = node
    return listener_consumers(r, f, ann, attrs)


def listener_consumers(r: Reader, f: File, ann, attrs: dict) -> list:
    """One consumer per queue of an ``@SqsListener`` whose attributes are ``attrs`` (name -> node; the positional
    one as ``value``), Java's or Kotlin's: its queues (a ``${property}`` as the property), its numbers, its
    acknowledgement mode and deletion policy."""
    queues = []
    for key in ("value", "queueNames"):
        if key in attrs:
            v = evaluate(attrs[key], f)
            queues.extend(v.value if v.kind == "list" else [v])
    out = []
    for q in queues or [None]:
        c = r.consumer(ann, "spring")
        if q is not None and q.kind == "str" and q.value.startswith("${"):
            prop = q.value[2:].rstrip("}").split(":", 1)[0]
            r.queue(c, Value("env", prop, q.node), "@SqsListener")
        elif q is not None:
            r.queue(c, q, "@SqsListener")
        for attr, field in _LISTENER.items():
            if attr in attrs:
                v = evaluate(attrs[attr], f)
                if v.kind == "str" and v.value.strip().isdigit():
                    v = Value("int", number(v.value.strip()), v.node)
                if v.kind == "str" and v.value.startswith("${"):
                    r.note(f"@SqsListener {attr} is the property {v.value}: not read", v.node)
                else:
                    r.number(c, field, v, f"@SqsListener {attr}")
        for attr, field in (
            ("acknowledgementMode", "acknowledgement_mode"),
            ("deletionPolicy", "deletion_policy"),
        ):
            if attr in attrs:
                node = attrs[attr]
                v = evaluate(node, f)
                r.set(c, field, v.value if v.kind == "str" else text(node).rsplit(".", 1)[-1], node)
        out.append(c)
    return out


def _container(r: Reader, f: File, listeners: list) -> list:
    """SqsContainerOptions set in this file: onto its listeners, or a container's queueNames, or alone."""
    if not f.captures("container.type"):
        return []
    options = []
    for name in f.captures("container.option"):
        call, args = _call(f, name)
        if args:
            options.append((call, text(name), args[0]))
    options.sort(key=lambda o: _preorder(o[0]))
    calls = sorted(
        (c for c in (_call(f, n) for n in f.captures("container.queues")) if c[0] is not None),
        key=lambda c: _preorder(c[0]),
    )
    queues = [evaluate(q, f) for _, args in calls for q in args]
    if not options and not queues:
        return []
    targets = list(listeners)
    if queues:
        for q in queues:
            c = r.consumer(q.node, "spring")
            r.queue(c, q, "SqsMessageListenerContainer queueNames")
            targets.append(c)
    elif not targets:
        targets.append(r.consumer(options[0][0], "spring"))
    made = targets[len(listeners) :]
    # per field: the options before its first readable one (noted, once each, when a consumer reaches them)
    # and that one (set on every consumer without its own): O(consumers x fields), not x options
    pending: dict[str, list] = {}
    first: dict[str, tuple] = {}
    for i, (_, name, arg) in enumerate(options):
        field = _CONTAINER[name]
        if field in first:
            continue
        v = None if field == "acknowledgement_mode" else evaluate(arg, f)
        if v is None or (v.kind == "int" and isinstance(v.value, (int, float))):
            first[field] = (i, name, arg, v)
        else:
            pending.setdefault(field, []).append((i, name, arg, v))
    for c in targets:
        fields = [field for field in _FIELDS if field not in c.locations]  # the listener's own attribute wins
        due = [o for field in fields for o in pending.pop(field, ())]
        due += [first[field] for field in fields if field in first]
        for _, name, arg, v in sorted(due, key=lambda o: o[0]):
            if v is None:
                r.set(c, _CONTAINER[name], text(arg).rsplit(".", 1)[-1], arg)
            else:
                r.number(c, _CONTAINER[name], v, f"SqsContainerOptions {name}")
    return made


# --------------------------------------------------------------------------------------------- error handlers
_HANDLER_OPTIONS = {  # builder method -> the key of settings["error_handler"]
    "initialVisibilityTimeoutSeconds": "initial",
    "multiplier": "multiplier",
    "increment": "increment",
    "maxVisibilityTimeoutSeconds": "max",
}
_HANDLER_WORDS = tuple(facts.SPRING_ERROR_HANDLERS_SINCE)
MAX_BUILD_BYTES = 1 << 20  # a pom.xml / build.gradle read for the spring-cloud-aws version


def _error_handler(r: Reader, f: File, listeners: list) -> None:
    """The project's one Spring error handler (this file's, else another Java file's of the project) onto each
    listener: ``settings["error_handler"]`` located at the handler."""
    found = _handlers(f)
    if not found:
        for g in FLOW.files_with(f, _HANDLER_WORDS):
            found += _handlers(g)
    if not found:
        return
    kinds = {tuple(sorted((k, v) for k, v in h.items() if k != "location")) for h in found}
    if len(kinds) > 1:
        r.note(
            "several Spring error handlers in the project ("
            + ", ".join(sorted({h["class"] for h in found}))
            + "): which listener uses which is not read, none is judged",
            f.root,
        )
        return
    handler = found[0]
    since = facts.SPRING_ERROR_HANDLERS_SINCE[handler["class"]]
    version = spring_version(f.path)
    if version is not None and version < since:
        r.note(
            f"{handler['class']} is in spring-cloud-aws {'.'.join(map(str, since))}+, the project uses "
            f"{'.'.join(map(str, version))}: not the library's handler, not judged",
            f.root,
        )
        return
    for c in listeners:
        c.settings["error_handler"] = {k: v for k, v in handler.items() if k != "location"}
        c.locations["error_handler"] = handler["location"]


def _handlers(g: File) -> list[dict]:
    """The error handlers file ``g`` creates: {"class", "initial", "multiplier", "increment", "max", "jitter",
    "location"} with the library's defaults for what the builder does not set; a computed option is None."""
    out = []
    for node in g.captures("handler"):
        if node.type == "object_creation_expression":
            t = node.child_by_field_name("type")
            cls = text(t.named_children[0] if t.type == "generic_type" else t)
            if cls != "ImmediateRetryAsyncErrorHandler":
                continue  # the backoff handlers' constructors are private: built by their builder
        else:
            cls = text(node.child_by_field_name("object"))
        h = {
            "class": cls,
            "initial": None,
            "multiplier": None,
            "increment": None,
            "max": None,
            "jitter": None,
        }
        if cls != "ImmediateRetryAsyncErrorHandler":
            h.update(
                initial=facts.SPRING_BACKOFF_INITIAL_DEFAULT,
                max=facts.SPRING_BACKOFF_MAX_DEFAULT,
                jitter="NONE",
                **(
                    {"multiplier": facts.SPRING_BACKOFF_MULTIPLIER_DEFAULT}
                    if cls == "ExponentialBackoffErrorHandler"
                    else {"increment": facts.SPRING_BACKOFF_INCREMENT_DEFAULT}
                ),
            )
            top, up = node, g.parent(node)
            while (
                up is not None and up.type == "method_invocation" and up.child_by_field_name("object") == top
            ):
                name = text(up.child_by_field_name("name"))
                args = up.child_by_field_name("arguments")
                arg = args.named_children[0] if args is not None and args.named_children else None
                if name in _HANDLER_OPTIONS and arg is not None:
                    v = evaluate(arg, g)
                    ok = (
                        v.kind == "int"
                        and isinstance(v.value, (int, float))
                        and not isinstance(v.value, bool)
                    )
                    h[_HANDLER_OPTIONS[name]] = v.value if ok else None
                elif name == "jitter" and arg is not None:
                    h["jitter"] = text(arg).rsplit(".", 1)[-1]
                top, up = up, g.parent(up)
        row, col = node.start_point
        h["location"] = Location(g.path, line=row + 1, column=col + 1)
        out.append(h)
    return out


_GRADLE = re.compile(rb"io\.awspring\.cloud:spring-cloud-aws[\w-]*:(\d+)\.(\d+)\.(\d+)")
_POM = re.compile(
    rb"<artifactId>\s*spring-cloud-aws[\w-]*\s*</artifactId>\s*(?:<[^/>]+>[^<]*</[^>]+>\s*){0,8}?"
    rb"<version>\s*([^<\s]+)\s*</version>"
)
_SEMVER = re.compile(rb"^(\d+)\.(\d+)\.(\d+)")


def spring_version(path: str | None) -> tuple[int, int, int] | None:
    """The spring-cloud-aws release the project of ``path`` declares (its pom.xml or build.gradle(.kts) at the
    project folder, :meth:`Flow.root`), when every mention agrees; else None. Only during a run (a file offered)."""
    found = set()
    for name, data in build_files(path):
        if name == "pom.xml":
            for m in _POM.finditer(data):
                raw = m.group(1)
                if raw.startswith(b"${") and raw.endswith(b"}"):  # <spring-cloud-aws.version>3.4.0</...>
                    prop = re.escape(raw[2:-1])
                    p = re.search(rb"<" + prop + rb">\s*([^<\s]+)\s*</" + prop + rb">", data)
                    raw = p.group(1) if p else b""
                v = _SEMVER.match(raw)
                if v:
                    found.add(tuple(int(x) for x in v.groups()))
        else:
            found |= {tuple(int(x) for x in m.groups()) for m in _GRADLE.finditer(data)}
    return found.pop() if len(found) == 1 else None


# Spring Cloud AWS 2.x: the auto-configured container's and handler's properties (facts.SPRING2_PROPERTIES)
_SPRING2_KEYS = {  # normalised key (Spring's relaxed binding) -> field
    k.replace("-", ""): field for k, field in facts.SPRING2_PROPERTIES.items()
}


def spring2_defaults(r: Reader, f: File, listeners: list) -> None:
    """Spring Cloud AWS 2.x listeners take the auto-configured container's ``cloud.aws.sqs.listener.*`` (the
    visibility it sends on every receive, in seconds) and the handler's default deletion policy from the project's
    one base application.yml/properties that sets them (located there); a listener's own attribute wins."""
    import os

    from .frameworks import _Out, _properties, _yaml_flat

    if f.path is None or not FLOW.offered:
        return
    top = FLOW.root(f.path)
    found: dict[str, list] = {}
    for path in FLOW.offered:
        if os.path.basename(path) not in _CONFIG_FILES or not os.path.abspath(path).startswith(top + os.sep):
            continue
        data = FLOW.data(path)
        if data is None:
            continue
        raw = data.decode("utf-8", "replace")
        props = _properties(raw) if path.endswith(".properties") else _yaml_flat(_Out(path, data), raw)
        for k, (value, line) in props.items():
            field = _SPRING2_KEYS.get(k.replace("-", "").replace("_", "").lower())
            if field is not None:
                found.setdefault(field, []).append((value, path, line, is_test(path)))
    for field, every in found.items():
        got = [x for x in every if not x[3]] or every  # src/main before tests (as _property)
        got = [x[:3] for x in got]
        if len({str(v) for v, _, _ in got}) != 1:
            continue
        value, path, line = got[0]
        loc = Location(path, line=line or 1, column=1)
        if field == "deletion_policy":
            value = str(value).strip().upper()
        else:
            n = number(str(value).strip()) if str(value).strip().isdigit() else None
            if n is None:
                r.note(
                    f"{field} = {str(value)[:60]} in {path} is not read (a placeholder or not a number)",
                    f.root,
                )
                continue
            value = n
        for c in listeners:
            if field in c.locations:
                continue
            c.settings["words"] = "spring2"  # its findings name the 2.x property (consumer_words)
            if field in c.__slots__:
                setattr(c, field, value)
            else:
                c.settings[field] = value
            c.locations[field] = loc
