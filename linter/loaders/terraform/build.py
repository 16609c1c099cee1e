"""Terraform resources (from HCL or a plan) -> the shared :class:`~visguard.linter.model.Model`.

Both doors (a root module folder and ``terraform show -json`` output) hand this module a list of :class:`Res`:
one per resource instance, with its address, the evaluated arguments visguard reads and where each was
written. Queue and consumer ids are the Terraform addresses; defaults are the AWS provider's (which are the
SQS and Lambda API defaults the model already applies when a value is None).

Provider arguments read (registry.terraform.io/providers/hashicorp/aws/latest/docs):
``aws_sqs_queue`` (name, fifo_queue, visibility_timeout_seconds, message_retention_seconds, delay_seconds,
redrive_policy, redrive_allow_policy, tags), ``aws_sqs_queue_redrive_policy`` and
``aws_sqs_queue_redrive_allow_policy`` (queue_url + policy), ``aws_lambda_event_source_mapping``
(event_source_arn, function_name, batch_size, maximum_batching_window_in_seconds, function_response_types,
scaling_config.maximum_concurrency, provisioned_poller_config.{minimum_pollers, maximum_pollers}, enabled),
``aws_lambda_function`` (function_name, timeout,
reserved_concurrent_executions), ``aws_lambda_alias`` (function_name).
"""

from __future__ import annotations

import json

from visguard import facts
from visguard.errors import VisguardError
from visguard.linter.model import Consumer, Location, Model, Queue, Redrive, Suppression
from visguard.records import REQUIRED, Record, fresh, internal

from .. import values
from . import awscc, consumers, lambda_env
from .files import excerpt
from .values import SYMBOLIC, Bound, Encoded, Ref, Text, Unknown

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

SOURCE = "terraform"
QUEUE = "aws_sqs_queue"
REDRIVE = "aws_sqs_queue_redrive_policy"
REDRIVE_ALLOW = "aws_sqs_queue_redrive_allow_policy"
ESM = "aws_lambda_event_source_mapping"
FUNCTION = "aws_lambda_function"
ALIAS = "aws_lambda_alias"

# the attributes of a queue that are its URL (awscc_sqs_queue's queue_url: awscc.py)
URL_ATTRS = ("url", "id", *awscc.QUEUE_URL_ATTRS)
# the arguments visguard reads, per resource type
# aws_lambda_function's capacity provider (Lambda Managed Instances), as the provider nests it
CAPACITY_PROVIDER_ARG = (
    "capacity_provider_config.lambda_managed_instances_capacity_provider_config.capacity_provider_arn"
)
ARGS = {
    QUEUE: (
        "name",
        "name_prefix",
        "fifo_queue",
        "visibility_timeout_seconds",
        "message_retention_seconds",
        "delay_seconds",
        "redrive_policy",
        "redrive_allow_policy",
        "tags",
    ),
    REDRIVE: ("queue_url", "redrive_policy"),
    REDRIVE_ALLOW: ("queue_url", "redrive_allow_policy"),
    ESM: (
        "event_source_arn",
        "function_name",
        "batch_size",
        "maximum_batching_window_in_seconds",
        "function_response_types",
        "enabled",
        "scaling_config.maximum_concurrency",
        "provisioned_poller_config.minimum_pollers",  # provisioned mode (issue 36)
        "provisioned_poller_config.maximum_pollers",
        "metrics_config.metrics",  # issue 36 (fact-drift L4): Consumer.metrics; no rule reads it
    ),
    FUNCTION: (
        "function_name",
        "timeout",
        "reserved_concurrent_executions",
        # issue 36 (fact-drift L7, L8): Lambda Managed Instances and durable functions
        CAPACITY_PROVIDER_ARG,
        "durable_config.execution_timeout",
        # issue 35: the environment it gives its package's code (lambda_env.py)
        *lambda_env.FUNCTION_ARGS,
    ),
    ALIAS: ("name", "function_name"),
}
ARGS.update(consumers.ARGS)  # worker consumers (issue 24): consumers.py reads them
ARGS.update(lambda_env.ARGS)  # the packages of Lambda functions (issue 35): lambda_env.py reads them
# model field <- (resource argument) for queues and consumers
QUEUE_FIELDS = {
    "visibility_timeout": "visibility_timeout_seconds",
    "message_retention": "message_retention_seconds",
    "delay": "delay_seconds",
}


class Res(Record):
    """One resource instance: its evaluated arguments and where each was written."""

    __slots__ = {
        "type": REQUIRED,
        "address": REQUIRED,
        "location": REQUIRED,
        "values": fresh(dict),
        "locations": fresh(dict),
        "suppressions": fresh(list),
        "unread": internal(None),  # why an argument of it could not be read (it is not linted)
    }

    def loc(self, arg: str) -> Location:
        return self.locations.get(arg, self.location)

    def error(self, arg: str, message: str, cls: type[VisguardError] = VisguardError) -> VisguardError:
        loc = self.loc(arg)
        return cls(
            f"{self.address}: {arg}: {message}", file=loc.file, place=f"line {loc.line}" if loc.line else None
        )


# ---------------------------------------------------------------------------------------------- conversions
# The one reading of a setting (``visguard.linter.loaders.values``: what is a number, what is bad input). A message
# names the type of a wrong value and where it was written (``r.loc(arg)``: the tfvars line when it came from one),
# never a string's content: a value may come from a variables file (a token in a Docker config).
_WORDS = {"a mapping": "a map", "a boolean": "a bool", "a tuple": "a list"}  # Terraform's names of the types


def read(r: Res, arg: str, reader, v: Any = None, *, what: str = "") -> Any:
    """``reader`` (values.number, integer, boolean, string) of argument ``arg`` of ``r`` (or of ``v``, a value
    inside it: ``what`` names it); a wrong value is ``r``'s error, a bound (``BadValue.bound``) refuses the input."""
    try:
        return reader(r.values.get(arg) if v is None else v, unknown=SYMBOLIC)
    except values.BadValue as exc:
        said = f"{what} must be {exc.expected}" if what else f"expected {exc.expected}"
        got = _WORDS.get(exc.got, exc.got)
        raise r.error(arg, f"{said}, got {got}", Bound if exc.bound else VisguardError) from None


def number(r: Res, arg: str) -> int | float | str | None:
    """A numeric argument: a number, or the text of a value not known here."""
    return read(r, arg, values.number)


def integer(r: Res, arg: str) -> int | None:
    v = read(r, arg, values.integer)
    return v if isinstance(v, int) else None


def _kind(v: Any) -> str:
    return {dict: "map", list: "list", str: "string"}.get(type(v), type(v).__name__)


def boolean(r: Res, arg: str) -> bool | None:
    return read(r, arg, values.boolean)


def string(r: Res, arg: str) -> str | None:
    return read(r, arg, values.string)


def policy(r: Res, arg: str) -> dict | str | None:
    """A policy as ``jsonencode({...})``, a JSON string or (plan JSON, modules) a map; a str when not known."""
    v = r.values.get(arg)
    if v is None or v == "":
        return None
    if isinstance(v, Encoded):
        v = v.value
    holes: dict[str, Any] = {}
    if isinstance(v, Text):  # "{\"deadLetterTargetArn\":\"${aws_sqs_queue.dlq.arn}\", ...}" or a heredoc
        v, holes = v.holed()
    if isinstance(v, str):
        try:
            v = json.loads(v)
        except ValueError as exc:
            raise r.error(arg, f"not valid JSON ({exc.msg})") from None
        if isinstance(v, dict) and holes:
            v = {k: holes.get(x, x) if isinstance(x, str) else x for k, x in v.items()}
    if isinstance(v, dict):
        return v
    if isinstance(v, (Unknown, Ref, Text)):
        return str(v)
    raise r.error(arg, f"expected a JSON object, got a {_kind(v)}")


def _check_fifo_name(r: Res, name: str, fifo: bool | None) -> None:
    """SQS: a FIFO queue's name ends in ``.fifo`` and only a FIFO queue's does (CreateQueue, QueueName); the AWS
    provider refuses both mismatches at plan time, so they are bad input (an unknown fifo_queue is not judged)."""
    if r.values.get("fifo_queue") is not None and fifo is None:
        return
    problem = facts.fifo_name_mismatch(name, bool(fifo))
    if problem:
        raise r.error("name", f"{problem} (fifo_queue = {str(bool(fifo)).lower()})")


# ---------------------------------------------------------------------------------------------- the model
class Builder:
    def __init__(
        self,
        resources: list[Res],
        file: str,
        problems: list | None = None,
        data: dict | None = None,
        notes: list | None = None,
        free_roles: set[str] | frozenset = frozenset(),
    ):
        self.res = resources
        # roles an ECS task or a pod may assume that nothing of the configuration uses (load.py, roles.py)
        self.free_roles = free_roles
        self.by_address = {r.address: r for r in resources}
        self.model = Model(source_file=file)
        self.queue_names: dict[str, str] = {}
        self.function_names: dict[str, str] = {}
        self.redrive_targets: dict[str, object] = {}  # queue id -> its deadLetterTargetArn, until link()
        # (error, address) of each resource that could not be read; None: the first one is raised
        self.problems = problems
        self.unread: set[str] = set()
        self.data = data or {}  # data source address -> (type, the name it looks up or None, where)
        self.notes = notes if notes is not None else []  # (load.Note) a consumer of a queue not declared here

    def skip(self, r: Res, exc: VisguardError) -> None:
        """``r`` cannot be read (``exc``): recorded, and nothing refers to it any more (a reference to it is then
        "not known here", never a wrong type or a missing resource)."""
        if self.problems is None or isinstance(exc, Bound):
            raise exc
        self.problems.append((exc, r.address, r.address))
        self.unread.add(r.address)
        self.by_address.pop(r.address, None)

    def build(self) -> Model:
        for r in self.res:
            if r.unread is not None and r.type in consumers.ARGS:  # a consumer's resource: noted, never the
                self.unread.add(r.address)  # input's one error (a root of workers may declare no queue)
                self.notes.append(problem_note(r.unread, r.address, r.address, self.model.source_file))
            elif r.unread is not None:
                self.skip(r, r.unread)
        for r in self.res:
            if r.type == QUEUE and r.address not in self.unread:
                try:
                    self.model.add(self.queue(r))
                except VisguardError as exc:
                    self.skip(r, exc)
        self.queue_names = {q.name: q.id for q in self.model.queues.values() if q.name}
        for r in self.res:
            if r.type in (REDRIVE, REDRIVE_ALLOW):
                self.policy_resource(r)
        for r in self.res:
            if r.type == QUEUE and r.address in self.model.queues:
                self.link(self.model.queues[r.address], r)
        for r in self.res:
            if r.type == FUNCTION and r.address not in self.unread:
                try:
                    name = string(r, "function_name")
                    number(r, "timeout"), integer(r, "reserved_concurrent_executions")
                except VisguardError as exc:
                    self.skip(r, exc)
                    continue
                if name:
                    self.function_names.setdefault(name, r.address)
                elif isinstance(r.values.get("function_name"), (Text, Unknown)):
                    # "w-${data.x.y}": indexed as written, for a mapping that writes the same template
                    self.function_names.setdefault(str(r.values["function_name"]), r.address)
        for r in self.res:
            if r.type == ESM:
                self.mapping(r)
        consumers.read(self)
        lambda_env.read(self)
        return self.model

    # queues ---------------------------------------------------------------------------------------------
    def queue(self, r: Res) -> Queue:
        q = Queue(id=r.address, location=r.location, source=SOURCE)
        for attr, arg in QUEUE_FIELDS.items():
            if arg in r.values and r.values[arg] is not None:
                setattr(q, attr, number(r, arg))
                q.locations[attr] = r.loc(arg)
        if r.values.get("fifo_queue") is not None:
            q.fifo = bool(boolean(r, "fifo_queue"))
            q.locations["fifo"] = r.loc("fifo_queue")
        q.name = string(r, "name")
        if q.name is not None:
            q.locations["name"] = r.loc("name")
            _check_fifo_name(r, q.name, boolean(r, "fifo_queue"))
        tags = r.values.get("tags")
        if isinstance(tags, dict):
            q.tags = {k: v for k, v in tags.items() if isinstance(v, str)}
        q.suppressions = list(r.suppressions)
        if r.values.get("redrive_policy") not in (None, ""):
            self.set_redrive(q, r, "redrive_policy")
        if r.values.get("redrive_allow_policy") not in (None, ""):
            self.set_allow(q, r, "redrive_allow_policy")
        return q

    def set_redrive(self, q: Queue, r: Res, arg: str) -> None:
        v = policy(r, arg)
        loc = r.loc(arg)
        if v is None:
            return
        q.locations["redrive"] = loc
        if isinstance(v, str):
            q.redrive = Redrive(target=None, target_ref=v, max_receive_count=None, location=loc)
            return
        mrc = v.get("maxReceiveCount")
        mrc = None if mrc is None else read(r, arg, values.number, mrc, what="maxReceiveCount")
        target = v.get("deadLetterTargetArn")
        if isinstance(target, (list, dict, bool)):
            raise r.error(arg, "deadLetterTargetArn must be a queue ARN")
        q.redrive = Redrive(target=None, target_ref=None, max_receive_count=mrc, location=loc)
        self.redrive_targets[q.id] = target  # linked once every queue is known
        for key, name in (
            ("maxReceiveCount", "redrive.max_receive_count"),
            ("deadLetterTargetArn", "redrive.target"),
        ):
            if key in v:
                q.locations[name] = r.locations.get(f"{arg}.{key}", loc)

    def set_allow(self, q: Queue, r: Res, arg: str) -> None:
        v = policy(r, arg)
        q.locations["redrive_allow"] = r.loc(arg)
        if not isinstance(v, dict):
            return
        perm = v.get("redrivePermission")
        arns = v.get("sourceQueueArns") or []
        if not isinstance(arns, list):
            raise r.error(arg, "sourceQueueArns must be a list of queue ARNs")
        q.redrive_allow = {
            "redrivePermission": str(perm) if perm is not None else None,
            "sourceQueueArns": arns,  # linked in link()
        }

    def policy_resource(self, r: Res) -> None:
        qid = self.queue_of(r.values.get("queue_url"), url=True)
        if qid is None:
            return  # a queue outside these files: nothing to attach it to
        q = self.model.queues[qid]
        try:
            if r.address in self.unread:
                raise r.unread or VisguardError("not read")
            if r.type == REDRIVE:
                self.set_redrive(q, r, "redrive_policy")
            else:
                self.set_allow(q, r, "redrive_allow_policy")
        except VisguardError as exc:
            if r.address not in self.unread:
                self.skip(r, exc)
            if r.type == REDRIVE:  # the queue has a redrive policy, not known here: never "no redrive policy"
                q.redrive = Redrive(None, f"${{{r.address}.redrive_policy}}", None, r.location)
                self.redrive_targets.pop(q.id, None)
            return
        q.suppressions += r.suppressions

    def link(self, q: Queue, r: Res) -> None:
        rd = q.redrive
        if rd is not None and q.id in self.redrive_targets:
            target = self.redrive_targets.pop(q.id)
            if target is not None:
                rd.target = self.queue_of(target, url=False)
                rd.target_ref = _ref_text(target)
                if isinstance(target, Ref) and (target.address in self.unread or target.address in self.data):
                    rd.target_ref = str(target)  # a queue that could not be read, or not declared here
                if isinstance(target, Ref) and target.address in self.by_address and rd.target is None:
                    other = self.by_address[target.address]
                    rd.target_ref = f"{target.address}.{target.attr} ({other.type}, not an SQS queue ARN)"
                elif isinstance(target, Ref) and target.address == rd.target and target.attr != "arn":
                    rd.target, rd.target_ref = (
                        None,
                        f"{target.address}.{target.attr} (not the queue ARN: use .arn)",
                    )
        if q.redrive_allow is not None:
            q.redrive_allow["sourceQueueArns"] = [
                self.queue_of(a, url=False) or _ref_text(a) for a in q.redrive_allow["sourceQueueArns"]
            ]

    def queue_of(self, v: Any, *, url: bool) -> str | None:
        """The queue id an ARN (or, with ``url``, a queue URL) names, when the queue is in this model."""
        if isinstance(v, Ref) and v.address in self.data:  # data "aws_sqs_queue": the queue of that name
            kind, name, _ = self.data[v.address]
            if kind == QUEUE and isinstance(name, Ref):  # name = aws_sqs_queue.q.name: that queue
                return name.address if name.address in self.model.queues else None
            return self.queue_names.get(name) if kind == QUEUE and isinstance(name, str) else None
        if isinstance(v, Ref):
            if v.address in self.model.queues and v.attr in (URL_ATTRS if url else ("arn",)):
                return v.address
            if v.address in self.model.queues and not url and v.attr in URL_ATTRS:
                return v.address  # caller reports the wrong attribute
            return None
        if isinstance(v, Text):
            refs = {p.address for p in v.refs() if p.address in self.model.queues}
            if len(refs) == 1:
                return next(iter(refs))
            last = v.parts[-1]
            if isinstance(last, str) and ":" in last:
                return self.queue_names.get(last.rsplit(":", 1)[1])
            if isinstance(last, str) and "/" in last:
                return self.queue_names.get(last.rsplit("/", 1)[1])
            return None
        if isinstance(v, str):
            if v.startswith("arn:") and v.count(":") == 5 and v.split(":")[2] == "sqs":
                return self.queue_names.get(v.split(":")[5])
            if url and v.startswith("https://") and "/" in v:
                return self.queue_names.get(v.rstrip("/").rsplit("/", 1)[1])
        return None

    # consumers ------------------------------------------------------------------------------------------
    def mapping(self, r: Res) -> None:
        src = r.values.get("event_source_arn")
        qid = self.queue_of(src, url=False)
        if qid is None:
            self.note_elsewhere(r, src)
            return  # a stream, a broker, or a queue outside these files
        try:
            if r.address in self.unread:
                raise r.unread or VisguardError("not read")
            self.consumer(r, qid, src)
        except VisguardError as exc:
            if r.address not in self.unread:
                self.skip(r, exc)
            # a consumer is there, its settings are not known: the timeout rules skip it, VG050 names it
            c = Consumer(id=r.address, kind="unknown", location=r.location)
            c.note = "the event source mapping could not be read here"
            self.model.queues[qid].consumers.append(c)

    def note_elsewhere(self, r: Res, src: Any) -> None:
        """A mapping of a queue not declared here (a data source, an SQS ARN): noted, so a clean run is never an
        unchecked one; a stream or a broker is not a queue (nothing to say)."""
        from .load import Note

        text = str(src) if isinstance(src, (str, Text)) else ""
        if isinstance(src, Ref) and src.address in self.data and self.data[src.address][0] == QUEUE:
            name = self.data[src.address][1]
            what = (
                f"queue {excerpt(name, 64)} (through {src.address})"
                if isinstance(name, str)
                else f"{src.address}"
            )
        elif text.startswith("arn:") and ":sqs:" in text:
            what = f"queue {excerpt(text.rsplit(':', 1)[1], 64)} (by ARN)"
        else:
            return
        self.notes.append(
            Note(
                f"{r.address} consumes {what}, which is not declared in these files: the queue's settings are "
                "not checked here (lint the root module that declares it too)",
                r.loc("event_source_arn"),
                r.address,
            )
        )

    def consumer(self, r: Res, qid: str, src: Any) -> None:
        c = Consumer(id=r.address, kind="lambda", location=r.location)
        if isinstance(src, Ref) and src.attr != "arn":
            c.kind, c.note = "unknown", f"event_source_arn is {src.address}.{src.attr}, not the queue's .arn"
        fid = self.function_into(c, r)
        if "batch_size" in r.values and r.values["batch_size"] is not None:
            c.batch_size = integer(r, "batch_size")
            c.locations["batch_size"] = r.loc("batch_size")
        w = r.values.get("maximum_batching_window_in_seconds")
        if w is not None:
            n = number(r, "maximum_batching_window_in_seconds")
            c.batching_window = n if isinstance(n, (int, float)) else None
            c.locations["batching_window"] = r.loc("maximum_batching_window_in_seconds")
        types = r.values.get("function_response_types")
        if types is not None:
            if isinstance(types, str):
                types = [types]
            if not isinstance(types, (list, Unknown, Text, Ref)):
                raise r.error("function_response_types", "expected a list of strings")
            c.report_batch_item_failures = isinstance(types, list) and "ReportBatchItemFailures" in types
            c.locations["report_batch_item_failures"] = r.loc("function_response_types")
        if r.values.get("scaling_config.maximum_concurrency") is not None:
            c.max_concurrency = integer(r, "scaling_config.maximum_concurrency")
            c.locations["max_concurrency"] = r.loc("scaling_config.maximum_concurrency")
        for field, arg in (
            ("min_pollers", "provisioned_poller_config.minimum_pollers"),
            ("max_pollers", "provisioned_poller_config.maximum_pollers"),
        ):  # provisioned mode (issue 36); an empty block reads as standard mode (the provider sends none)
            if r.values.get(arg) is not None:
                setattr(c, field, integer(r, arg))
                c.locations[field] = r.loc(arg)
        _metrics_into(c, r)
        if r.values.get("enabled") is not None:
            e = boolean(r, "enabled")
            c.enabled = True if e is None else e
            c.locations["enabled"] = r.loc("enabled")
        q = self.model.queues[qid]
        q.consumers.append(c)
        for s in r.suppressions:
            q.suppressions.append(Suppression(s.rule, s.reason, s.location, consumer=c.id))
        fn = self.by_address.get(fid) if fid else None
        if fn is not None:
            for s in fn.suppressions:
                q.suppressions.append(Suppression(s.rule, s.reason, s.location, consumer=c.id))

    def function_into(self, c: Consumer, r: Res) -> str | None:
        """The function of mapping ``r`` into ``c``; returns its address. A mapping is a Lambda consumer even
        when its function (or the function's timeout) is not known here: ``function_id`` stays None, so the rules
        that need the function skip it and those that need only the mapping and the queue still run (issue 26
        §5); ``note`` says why (VG050)."""
        fid, note = self.function_of(r.values.get("function_name"), [])
        if fid is None:
            if c.kind != "unknown":
                c.kind = "lambda"
            c.note = c.note or note
            return None
        if c.kind == "unknown":
            return fid
        fn = self.by_address[fid]
        c.function_id = fid
        if fn.values.get("timeout") is not None:
            t = number(fn, "timeout")
            c.locations["function_timeout"] = fn.loc("timeout")
            if isinstance(t, (int, float)):
                c.function_timeout = t
            else:  # never compare against the 3 s default when the file sets a value not known here
                c.function_id = None
                c.note = f"the timeout of {fid} ({t}) is not known here"
        if fn.values.get("reserved_concurrent_executions") is not None:
            rc = integer(fn, "reserved_concurrent_executions")
            c.reserved_concurrency = None if rc is not None and rc < 0 else rc  # -1: unreserved
            c.locations["reserved_concurrency"] = fn.loc("reserved_concurrent_executions")
        self.lambda_compute(c, fn, fid)
        return fid

    def lambda_compute(self, c: Consumer, fn: Res, fid: str) -> None:
        """The function's capacity provider (``capacity_provider_config``: Lambda Managed Instances) and its
        ``durable_config.execution_timeout`` (a durable function): issue 36, fact-drift L7 and L8."""
        arn = fn.values.get(CAPACITY_PROVIDER_ARG)
        if arn is not None:
            c.capacity_provider = str(arn)  # set, even when only the apply knows which one
            c.locations["capacity_provider"] = fn.loc(CAPACITY_PROVIDER_ARG)
        if fn.values.get("durable_config.execution_timeout") is not None:
            d = number(fn, "durable_config.execution_timeout")
            c.locations["durable_execution_timeout"] = fn.loc("durable_config.execution_timeout")
            if isinstance(d, (int, float)):
                c.durable_execution_timeout = d
            elif c.function_id is not None:  # never judge a durable function by its timeout alone
                c.function_id = None
                c.note = f"the durable_config.execution_timeout of {fid} ({d}) is not known here"

    def function_of(self, v: Any, seen: list[str]) -> tuple[str | None, str | None]:
        if v is None:
            return None, "the mapping has no function_name"
        if isinstance(v, (Text, Unknown)) and str(v) in self.function_names:
            # the same name template as a function's, data sources and all
            return self.function_names[str(v)], None
        if isinstance(v, Text):
            refs = v.refs()
            v = refs[0] if refs else Unknown(str(v), "it holds a value known only at plan or apply")
        if (
            isinstance(v, Ref) and v.address in self.data
        ):  # data "aws_lambda_function": by the name it looks up
            kind, name, _ = self.data[v.address]
            if kind == FUNCTION and isinstance(name, (str, Ref)):
                v = name  # a Ref: function_name = aws_lambda_function.f.function_name, that function
            else:
                return None, f"function_name is {v.address}.{v.attr}, a data source not known here"
        if isinstance(v, Ref):
            other = self.by_address.get(v.address)
            if other is None and v.address in self.unread:
                return None, f"function_name refers to {v.address}, which could not be read here"
            if other is None:
                return None, f"function_name refers to {v.address}, which is not read here"
            if other.type == FUNCTION:
                return v.address, None
            if other.type == ALIAS:
                if v.address in seen:
                    return None, "function_name refers to an alias cycle"
                return self.function_of(other.values.get("function_name"), [*seen, v.address])
            return None, f"function_name refers to {v.address}, a {other.type}, not a Lambda function"
        if isinstance(v, Unknown):
            return None, f"function_name ({v.text}) is not known here: {v.why}"
        if isinstance(v, Encoded):
            return None, "function_name is not a name"
        if isinstance(v, str):
            name = values.function_name(v)
            if name in self.function_names:
                return self.function_names[name], None
            return None, f"function {excerpt(name, 64)} is not declared in these files"
        return None, f"function_name is a {type(v).__name__}, not a function name or ARN"


def problem_note(exc: VisguardError, address: str, what: str, file: str):
    from .load import problem_note

    return problem_note(exc, address, what, file)


def _ref_text(v: Any) -> str | None:
    if v is None:
        return None
    if isinstance(v, Ref):
        return f"{v.address}.{v.attr}"
    if isinstance(v, (Unknown, Text, Encoded)):
        return str(v)
    return str(v)


def build_model(
    resources: list[Res],
    file: str,
    problems: list | None = None,
    data: dict | None = None,
    notes: list | None = None,
    free_roles: set[str] | frozenset = frozenset(),
) -> Model:
    """The model of ``resources``. A resource that cannot be read raises its error, or with ``problems`` (a
    list) is recorded there as (error, address, what) and left out; the rest is built (a bound is always
    raised). ``data``: the data sources referred to (``TerraformLoader.data``); ``notes`` receives a note for
    each mapping of a queue not declared here; ``free_roles`` the addresses of the roles that may each be the consumer
    of a workload deployed elsewhere (``roles.py``: only a root module's loader can tell)."""
    return Builder(resources, file, problems, data, notes, free_roles).build()


def _metrics_into(c: Consumer, r: Res) -> None:
    """The mapping's ``metrics_config { metrics = ["EventCount"] }`` into ``Consumer.metrics`` (issue 36; the fleet
    audit reads the deployed mapping's; no lint rule judges it). A value not known here is left unset."""
    v = r.values.get("metrics_config.metrics")
    if isinstance(v, list) and all(isinstance(x, str) for x in v):
        c.metrics = list(v)
        c.locations["metrics"] = r.loc("metrics_config.metrics")
