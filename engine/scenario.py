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

from visguard.engine.risk import Profile
from visguard.errors import VisguardError

SCHEMA_PATH = Path(__file__).parent / "schemas" / "scenario.schema.json"


@dataclass(frozen=True)
class LambdaSettings:
    timeout: float = 3.0
    batch_size: int = 10
    batching_window: float = 0.0
    report_batch_item_failures: bool = False
    reserved_concurrency: int | None = None
    max_concurrency: int | None = None
    initial_concurrency: int = 5
    scale_up_per_minute: float = 300.0
    max_esm_concurrency: int = 1250
    throttle_retry: float = 1.0
    legacy_effective_visibility: bool = False
    error_backoff: float = 0.0


@dataclass(frozen=True)
class Scenario:
    visibility_timeout: float = 30.0
    fifo: bool = False
    max_receive_count: int | None = None
    message_retention: float = 345_600.0
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
    inflight_limit: int = 120_000
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
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(document)"


def parse_text(text: str, file: str = "<scenario>") -> dict:
    """YAML (JSON is YAML too) -> dict, with the line of a syntax error."""
    import yaml

    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        place = f"line {mark.line + 1}" if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise VisguardError(f"not valid YAML/JSON: {problem}", file=file, place=place) from None
    if not isinstance(doc, dict):
        raise VisguardError("a scenario must be a mapping with queue, workload and consumer", file=file)
    return doc


def load(path: str | Path) -> Scenario:
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise VisguardError(f"cannot read the scenario: {exc.strerror or exc}", file=str(path)) from None
    return from_dict(parse_text(text, str(path)), file=str(path))


def validate(doc: dict, file: str = "<scenario>") -> None:
    import jsonschema

    validator = jsonschema.Draft202012Validator(_schema())
    errors = sorted(validator.iter_errors(doc), key=lambda e: (list(e.absolute_path), e.message))
    if errors:
        err = jsonschema.exceptions.best_match(errors)
        path = list(err.absolute_path)
        message = err.message
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
        profile = Profile.lognormal(proc["p50"], proc["p99"])
    elif kind == "fixed":
        profile = Profile.fixed(proc["seconds"])
    else:
        profile = Profile.empirical(proc["samples"])

    arrival = wl.get("arrival", "poisson")
    rate = wl.get("arrival_rate")
    if arrival != "burst" and rate is None:
        raise bad("arrival_rate is required unless arrival is 'burst'", "workload.arrival_rate")

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
            lo, hi = prov.get("minimum_pollers", 2), prov.get("maximum_pollers", 200)
            if lo > hi:
                raise bad(f"minimum_pollers {lo} exceeds maximum_pollers {hi}", "consumer.lambda.provisioned")
            raw.update(initial_concurrency=10 * lo, scale_up_per_minute=1000.0, max_esm_concurrency=10 * hi)
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
    if hb and hb["interval"] >= 43200:
        raise bad("the heartbeat interval must be below the 12-hour cap", "consumer.heartbeat.interval")

    return Scenario(
        visibility_timeout=vt,
        fifo=fifo,
        max_receive_count=q.get("max_receive_count"),
        message_retention=float(q.get("message_retention", 345_600)),
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
        inflight_limit=int(sim.get("inflight_limit", 120_000)),
        name=str(doc.get("name", "")),
    )
