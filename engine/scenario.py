"""Scenario documents for `visguard simulate`: load YAML/JSON, validate against the published schema
(engine/schemas/scenario.schema.json), and turn them into a typed, defaulted ``Scenario``.

Every error is a ``VisguardError`` naming the file and the dotted place in the document
("consumer.processing.p99"), one line.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from visguard import facts
from visguard.engine.risk import Profile
from visguard.errors import VisguardError, too_deep

SCHEMA_PATH = Path(__file__).parent / "schemas" / "scenario.schema.json"


@dataclass(frozen=True)
class LambdaSettings:
    timeout: float = 3.0
    batch_size: int = 10
    batching_window: float = 0.0
    report_batch_item_failures: bool = False
    reserved_concurrency: int | None = None
    max_concurrency: int | None = None
    initial_concurrency: int = facts.POLLERS["standard"].initial
    scale_up_per_minute: float = float(facts.POLLERS["standard"].added_per_minute)
    max_esm_concurrency: int = facts.POLLERS["standard"].ceiling
    throttle_retry: float = 1.0
    legacy_effective_visibility: bool = False
    error_backoff: float = 0.0
    # provisioned mode (consumer.lambda.provisioned): the poller counts it was given, None in standard mode;
    # initial_concurrency / scale_up_per_minute / max_esm_concurrency then come from them (facts.esm_pollers)
    min_pollers: int | None = None
    max_pollers: int | None = None

    @property
    def provisioned(self) -> bool:
        return self.min_pollers is not None or self.max_pollers is not None


@dataclass(frozen=True)
class Scenario:
    visibility_timeout: float = 30.0
    fifo: bool = False
    max_receive_count: int | None = None
    message_retention: float = float(facts.DEFAULT_RETENTION)
    queue_delay: float = 0.0
    messages: int = 1000
    arrival_rate: float | None = None
    arrival: str = "poisson"
    bursts: tuple[tuple[float, int], ...] = ()
    message_groups: int = 1
    consumer_type: str = "worker"
    concurrency: int = 10
    receive_max_messages: int = 1
    wait_time: float = 20.0
    profile: Profile = field(default_factory=lambda: Profile.fixed(1.0))
    heartbeat_interval: float | None = None
    heartbeat_extend_by: float | None = None
    crash_before_delete: float = 0.0
    poison: float = 0.0
    transient: float = 0.0
    on_failure: str = "wait"
    lam: LambdaSettings | None = None
    seed: int = 1
    horizon: float | None = None
    inflight_limit: int = facts.INFLIGHT_QUOTA["standard"]
    name: str = ""

    @property
    def is_lambda(self) -> bool:
        return self.consumer_type == "lambda"

    def with_changes(self, **changes) -> Scenario:
        from dataclasses import replace

        return replace(self, **changes)


def _schema() -> dict:
    return json.loads(SCHEMA_PATH.read_text())


def _place(path) -> str:
    from visguard.neutralize import printable

    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return printable(out[:200]) or "(document)"


# Limits of a scenario document (bounded time and memory on untrusted input; docs in the schema).
MAX_DOCUMENT_BYTES = 10_000_000
MAX_NODES = 100_000  # YAML nodes after anchors/aliases are expanded (an alias bomb is refused, not walked)
MAX_DEPTH = 100  # nesting of mappings/lists
MAX_INT_DIGITS = 30
MAX_MESSAGES = 10_000_000
MAX_SPAN = 31_536_000  # one year of arrivals, bursts and horizon
MAX_P99_OVER_P50 = 1_000
# The exact simulator's work: events it may need (receives, heartbeats, idle long polls). Above this a run
# would take hours; the scenario is refused with what to lower instead.
MAX_EVENTS = 2_000_000_000
# JSON numbers that YAML 1.1 reads as strings (``1e-05``, ``1E3``): YAML 1.2 reads them as floats, and so do we.
_FLOAT_12 = r"^[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)[eE][-+]?[0-9]+$"


def _loader():
    import re

    import yaml

    class Loader(yaml.SafeLoader):
        """SafeLoader that reads YAML 1.2 exponent floats and refuses documents that expand past MAX_NODES
        or nest deeper than MAX_DEPTH (counted on the composed graph, aliases included, before anything is
        built)."""

        def compose_document(self):
            node = super().compose_document()
            _check_graph(node, self)
            return node

    Loader.add_implicit_resolver("tag:yaml.org,2002:float", re.compile(_FLOAT_12), list("-+0123456789."))
    return Loader


def _check_graph(root, loader) -> None:
    import yaml

    sizes: dict[int, int] = {}
    # iterative post-order walk with memoised sizes: shared (aliased) nodes are counted once per use
    stack = [(root, 1, False)]
    while stack:
        node, depth, done = stack.pop()
        if depth > MAX_DEPTH:
            raise _TooBig(f"nested deeper than {MAX_DEPTH} levels", node)
        kids = _children(node, yaml)
        if done:
            sizes[id(node)] = 1 + sum(sizes[id(k)] for k in kids)
            if sizes[id(node)] > MAX_NODES:
                raise _TooBig(
                    f"expands to more than {MAX_NODES:,} values (anchors and aliases included)", node
                )
            continue
        if id(node) in sizes:
            continue
        stack.append((node, depth, True))
        stack.extend((k, depth + 1, False) for k in kids if id(k) not in sizes)


def _children(node, yaml) -> list:
    if isinstance(node, yaml.MappingNode):
        return [x for kv in node.value for x in kv]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


class _TooBig(Exception):
    def __init__(self, message, node):
        super().__init__(message)
        self.line = node.start_mark.line + 1 if getattr(node, "start_mark", None) else None


def _reject_constant(name: str):
    raise ValueError(f"{name} is not a number a scenario can hold")


def _check_values(doc, file: str) -> None:
    """Every number finite and every integer of sensible length, anywhere in the document (iterative)."""
    stack = [(doc, [])]
    while stack:
        value, path = stack.pop()
        if isinstance(value, dict):
            stack.extend((v, [*path, str(k)]) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((v, [*path, i]) for i, v in enumerate(value))
        elif isinstance(value, float) and not math.isfinite(value):
            raise VisguardError(f"{value!r} is not a finite number", file=file, place=_place(path))
        elif isinstance(value, int) and not isinstance(value, bool) and len(str(abs(value))) > MAX_INT_DIGITS:
            raise VisguardError(
                f"an integer of more than {MAX_INT_DIGITS} digits", file=file, place=_place(path)
            )


def _looks_like_json(text: str, file: str) -> bool:
    return file.lower().endswith(".json") or text.lstrip().startswith("{")


def parse_text(text: str, file: str = "<scenario>") -> dict:
    """A scenario's text -> dict. JSON (a ``.json`` file, or text starting with ``{``) is read as JSON; anything
    else as YAML (safe loader, YAML 1.2 floats). Bounded: size, nesting, alias expansion, integer length, and
    every number finite. Errors name the line."""
    import yaml

    if len(text) > MAX_DOCUMENT_BYTES:
        raise VisguardError(f"larger than {MAX_DOCUMENT_BYTES:,} bytes", file=file)
    doc = None
    if _looks_like_json(text, file):
        try:
            doc = json.loads(text, parse_constant=_reject_constant, parse_int=_json_int)
        except json.JSONDecodeError as exc:
            if file.lower().endswith(".json"):
                raise VisguardError(
                    f"not valid JSON: {exc.msg}", file=file, place=f"line {exc.lineno}"
                ) from None
            doc = None  # flow-style YAML that starts with "{": read it as YAML below
        except ValueError as exc:
            raise VisguardError(f"not a valid scenario: {exc}", file=file) from None
        except RecursionError:
            raise too_deep(file, limit=MAX_DEPTH) from None
    if doc is None:
        try:
            doc = yaml.load(text, Loader=_loader())  # noqa: S506 - a SafeLoader subclass
        except _TooBig as exc:
            raise VisguardError(str(exc), file=file, place=f"line {exc.line}" if exc.line else None) from None
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            place = f"line {mark.line + 1}" if mark is not None else None
            problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
            raise VisguardError(f"not valid YAML/JSON: {problem}", file=file, place=place) from None
        except (ValueError, OverflowError) as exc:  # e.g. an integer past Python's digit limit
            raise VisguardError(f"not a valid scenario: {str(exc).splitlines()[0]}", file=file) from None
        except RecursionError:
            raise too_deep(file, limit=MAX_DEPTH) from None
    if not isinstance(doc, dict):
        raise VisguardError("a scenario must be a mapping with queue, workload and consumer", file=file)
    _check_values(doc, file)
    _check_depth(doc, file)
    return doc


def _json_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise ValueError(f"an integer of more than {MAX_INT_DIGITS} digits")
    return int(text)


def _check_depth(doc, file: str) -> None:
    stack = [(doc, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise VisguardError(f"nested deeper than {MAX_DEPTH} levels", file=file)
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)


def read_text(path: str | Path) -> str:
    """A regular file's text, at most MAX_DOCUMENT_BYTES (a device, FIFO or folder is refused, never read)."""
    import os
    import stat

    path = Path(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise VisguardError(f"cannot read the scenario: {exc.strerror or exc}", file=str(path)) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise VisguardError("not a regular file", file=str(path))
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(MAX_DOCUMENT_BYTES + 1)
    except OSError as exc:
        raise VisguardError(f"cannot read the scenario: {exc.strerror or exc}", file=str(path)) from None
    finally:
        os.close(fd)
    if len(data) > MAX_DOCUMENT_BYTES:
        raise VisguardError(f"larger than {MAX_DOCUMENT_BYTES:,} bytes", file=str(path))
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise VisguardError(f"not UTF-8 text (byte {exc.start})", file=str(path)) from None


def load(path: str | Path) -> Scenario:
    return from_dict(parse_text(read_text(path), str(path)), file=str(path))


def validate(doc: dict, file: str = "<scenario>") -> None:
    import jsonschema
    from visguard.schema_errors import describe

    validator = jsonschema.Draft202012Validator(_schema())
    errors = sorted(validator.iter_errors(doc), key=lambda e: (list(e.absolute_path), e.message))
    if errors:
        err = jsonschema.exceptions.best_match(errors)
        path = list(err.absolute_path)
        message = describe(err, validator.schema)
        if err.validator == "additionalProperties":
            message = f"unknown setting: {message}"
        raise VisguardError(message, file=file, place=_place(path))


def from_dict(doc: dict, file: str = "<scenario>") -> Scenario:
    """Validate a parsed document and build the Scenario; cross-field rules after the schema."""
    validate(doc, file)

    def bad(msg: str, place: str) -> VisguardError:
        return VisguardError(msg, file=file, place=place)

    q, wl, c = doc.get("queue", {}), doc["workload"], doc["consumer"]
    fail, sim = c.get("failures") or {}, doc.get("simulation") or {}
    proc = c["processing"]
    kind = proc["distribution"]
    if kind == "lognormal":
        if proc["p99"] < proc["p50"]:
            raise bad(f"p99 ({proc['p99']}) must be at least p50 ({proc['p50']})", "consumer.processing.p99")
        if proc["p99"] > MAX_P99_OVER_P50 * proc["p50"]:
            raise bad(
                f"p99 ({proc['p99']:g}) is more than {MAX_P99_OVER_P50:,} x p50 ({proc['p50']:g}): not a "
                "processing time a lognormal describes; use an empirical profile",
                "consumer.processing.p99",
            )
        profile = Profile.lognormal(proc["p50"], proc["p99"])
    elif kind == "fixed":
        profile = Profile.fixed(proc["seconds"])
    else:
        profile = Profile.empirical(proc["samples"])

    arrival = wl.get("arrival", "poisson")
    rate = wl.get("arrival_rate")
    if arrival != "burst" and rate is None:
        raise bad("arrival_rate is required unless arrival is 'burst'", "workload.arrival_rate")

    bursts = wl.get("bursts", [])
    if sum(b["count"] for b in bursts) > wl["messages"]:
        raise bad(
            f"the bursts send {sum(b['count'] for b in bursts):,} messages, more than workload.messages "
            f"({wl['messages']:,}), the total of the run",
            "workload.bursts",
        )
    vt = float(q.get("visibility_timeout", 30))
    fifo = bool(q.get("fifo", False))
    if fifo and q.get("delay", 0):
        raise bad("FIFO queues take no per-queue delay in this simulator", "queue.delay")
    hb = c.get("heartbeat")
    ctype = c.get("type", "worker")
    lam = None
    if ctype == "lambda":
        if hb:
            raise bad(
                "a Lambda event source mapping never calls ChangeMessageVisibility: remove the heartbeat",
                "consumer.heartbeat",
            )
        raw = dict(c.get("lambda") or {})
        prov = raw.pop("provisioned", None)
        if prov is not None:
            # Provisioned mode (reference/lambda-sqs-esm.md, behaviour 11): "the maximum concurrency setting cannot
            # be used with provisioned mode"; up to 10 concurrent invokes per poller, +1,000 concurrency a minute.
            if raw.get("max_concurrency") is not None:
                raise bad(
                    "maximum concurrency cannot be used with provisioned mode",
                    "consumer.lambda.max_concurrency",
                )
            lo = prov.get("minimum_pollers", facts.DEFAULT_MIN_POLLERS)
            hi = prov.get("maximum_pollers", facts.DEFAULT_MAX_POLLERS)
            if lo > hi:
                raise bad(f"minimum_pollers {lo} exceeds maximum_pollers {hi}", "consumer.lambda.provisioned")
            pollers = facts.provisioned_pollers(lo, hi, fifo)
            raw.update(
                initial_concurrency=facts.INVOKES_PER_POLLER
                * lo,  # the warm pollers' invokes (FIFO: at most)
                scale_up_per_minute=float(pollers.added_per_minute),
                max_esm_concurrency=pollers.ceiling,
                min_pollers=lo,
                max_pollers=hi,
            )
        lam = LambdaSettings(**raw)
        # Each rule below is a validation of CreateEventSourceMapping (reference/lambda-sqs-esm.md, behaviour 1).
        if lam.timeout > vt:
            raise bad(
                f"Queue visibility timeout: {vt:g} seconds is less than Function timeout: {lam.timeout:g} seconds "
                "(the event source mapping cannot be created)",
                "consumer.lambda.timeout",
            )
        if lam.batch_size > 10 and lam.batching_window == 0:
            raise bad(
                "Maximum batch window in seconds must be greater than 0 if maximum batch size is greater than 10",
                "consumer.lambda.batching_window",
            )
        if fifo and lam.batch_size > 10:
            raise bad("FIFO queues allow a batch size of at most 10", "consumer.lambda.batch_size")
        if fifo and lam.batching_window:
            raise bad("FIFO queues do not support a batching window", "consumer.lambda.batching_window")
        if lam.batching_window != math.floor(lam.batching_window):
            raise bad("the batching window is whole seconds", "consumer.lambda.batching_window")
    # A worker ignores `lambda:` settings (the minimal form carries both).
    if hb and hb["interval"] >= facts.MAX_VISIBILITY:
        raise bad("the heartbeat interval must be below the 12-hour cap", "consumer.heartbeat.interval")

    sc = Scenario(
        visibility_timeout=vt,
        fifo=fifo,
        max_receive_count=q.get("max_receive_count"),
        message_retention=float(q.get("message_retention", facts.DEFAULT_RETENTION)),
        queue_delay=float(q.get("delay", 0)),
        messages=int(wl["messages"]),
        arrival_rate=None if rate is None else float(rate),
        arrival=arrival,
        bursts=tuple((float(b["at"]), int(b["count"])) for b in wl.get("bursts", [])),
        message_groups=int(wl.get("message_groups", 1)),
        consumer_type=ctype,
        concurrency=int(c.get("concurrency", 10)),
        receive_max_messages=int(c.get("receive_max_messages", 1)),
        wait_time=float(c.get("wait_time", 20)),
        profile=profile,
        heartbeat_interval=float(hb["interval"]) if hb else None,
        heartbeat_extend_by=float(hb["extend_by"]) if hb else None,
        crash_before_delete=float(fail.get("crash_before_delete", 0.0)),
        poison=float(fail.get("poison", 0.0)),
        transient=float(fail.get("transient", 0.0)),
        on_failure=fail.get("on_failure", "wait"),
        lam=lam,
        seed=int(doc.get("seed", 1)),
        horizon=sim.get("horizon"),
        inflight_limit=int(sim.get("inflight_limit", facts.INFLIGHT_QUOTA["standard"])),
        name=str(doc.get("name", "")),
    )
    check_limits(sc, file)
    return sc


def check_limits(sc: Scenario, file: str = "<scenario>", messages_place: str = "workload.messages") -> None:
    """The limits that hold across fields (checked again after a command-line override): the arrivals span at
    most a year, and the run's work stays below MAX_EVENTS."""
    if not 1 <= sc.messages <= MAX_MESSAGES:
        raise VisguardError(f"must be 1 to {MAX_MESSAGES:,} messages", file=file, place=messages_place)
    if sc.arrival != "burst" and sc.arrival_rate and sc.messages / sc.arrival_rate > MAX_SPAN:
        raise VisguardError(
            f"{sc.messages:,} messages at {sc.arrival_rate:g} a second take {sc.messages / sc.arrival_rate:,.0f} s,"
            f" more than one year ({MAX_SPAN:,} s): raise arrival_rate or lower messages",
            file=file,
            place="workload.arrival_rate",
        )
    events = estimated_events(sc)
    if events > MAX_EVENTS:
        raise VisguardError(
            f"this run needs about {events:,.0f} simulator events (more than {MAX_EVENTS:,}, hours of work): "
            "lower workload.messages or consumer.concurrency, shorten the arrivals, or space heartbeats out",
            file=file,
        )


def arrival_span(sc: Scenario) -> float:
    """Seconds from the first to the last send (bounded by the schema: at most one year)."""
    span = 0.0 if sc.arrival == "burst" or not sc.arrival_rate else sc.messages / sc.arrival_rate
    return max([span, *(at for at, _ in sc.bursts)])


def estimated_events(sc: Scenario) -> float:
    """An upper estimate of the exact simulator's work: a few events per delivery, one per heartbeat, one per
    idle long poll of each worker (or poller) over the run. Used to refuse runs that would take hours."""
    hold = float(min(sc.profile.p99, facts.MAX_VISIBILITY))
    beats = hold / sc.heartbeat_interval if sc.heartbeat_interval else 0.0
    pollers = sc.concurrency if not sc.is_lambda else sc.lam.max_esm_concurrency
    idle = pollers * (arrival_span(sc) + 20 * max(sc.visibility_timeout, 1.0)) / max(sc.wait_time, 1.0)
    return sc.messages * (4.0 + beats) + idle
