"""Terraform worker consumers (issue 24): ECS task definitions, Elastic Beanstalk worker environments, EventBridge
pipes, and the SNS subscriptions that deliver to a queue -> :class:`~visguard.linter.model.Consumer` records of the
shared model (``linter/consumers.py``; reference/consumers.md §2.1-§2.4).

Called by the model builder (``build.Builder``) once its queues are known, with the resources read (a root
module's or a plan's); every resource type is indexed once. A consumer whose queue is declared in these files is
attached to it; one named by a literal URL/ARN or a data source that is not declared here goes to
``Model.pending`` with a :class:`~visguard.linter.consumers.QueueRef`, for ``linter.consumers.join``.

Provider arguments read (registry.terraform.io/providers/hashicorp/aws/latest/docs):
``aws_ecs_task_definition`` (family, container_definitions: environment, secrets, stopTimeout; task_role_arn,
tags, requires_compatibilities), ``aws_ecs_service`` (name, task_definition, desired_count, launch_type,
capacity_provider_strategy), ``aws_ecs_capacity_provider`` (name, managed_instances_provider,
auto_scaling_group_provider: where the tasks run, issue 36), ``aws_appautoscaling_target`` (resource_id,
max_capacity), the task role's policies (``aws_iam_role`` inline_policy, ``aws_iam_role_policy``,
``aws_iam_policy`` + ``aws_iam_role_policy_attachment``, ``data.aws_iam_policy_document``), ``aws_ssm_parameter``
(a secret's value), ``aws_elastic_beanstalk_environment`` (tier, ``setting`` blocks of the
``aws:elasticbeanstalk:sqsd`` namespace, tags), ``aws_pipes_pipe`` (source, source_parameters
.sqs_queue_parameters, target, enrichment, tags; the target's ``aws_lambda_function`` timeout,
``aws_sfn_state_machine`` type, ``aws_cloudwatch_event_api_destination``), ``aws_sns_topic_subscription``
(protocol, endpoint, topic_arn, redrive_policy, raw_message_delivery), ``aws_sns_topic`` (fifo_topic) and
``aws_apprunner_service`` (source_configuration: the image's or the code's runtime_environment_variables, the
environment of the code the service runs: queue and setting bindings only, App Runner receives nothing itself).

A role an ECS task or a Kubernetes pod may assume (``aws_iam_role`` assume_role_policy, managed_policy_arns;
``awscc_iam_role``), granted receiving from a queue of the root and used by nothing of the configuration
(``roles.py`` decides which roles are read and which are used), is one worker consumer per queue
(:meth:`_Reader.free_role`, issue 35 §5), as the CloudFormation reader's ``_Reader.role``.

The declared processing time of a worker is the tag :data:`~visguard.linter.consumers.PROCESSING_P99_KEY`
(``"visguard.io/processing-p99" = "20m"``) on the task definition, the environment or the pipe. Nothing here
raises on a value it cannot use: the consumer is read without it and a note (VG902) says what and where.
"""

from __future__ import annotations

import fnmatch
import re

from visguard import facts
from visguard.errors import VisguardError
from visguard.linter.consumers import (
    PROCESSING_P50_KEY,
    PROCESSING_P99_KEY,
    EnvBinding,
    QueueRef,
    parse_duration,
    setting_number,
)
from visguard.linter.model import Consumer, Location, Subscription, Suppression

from .awscc import QUEUE_NAME_ATTRS, QUEUE_URL_ATTRS
from .files import excerpt
from .values import SYMBOLIC, Encoded, Ref, Text, Unknown, unholed

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

SOURCE = "terraform"
TASK = "aws_ecs_task_definition"
SERVICE = "aws_ecs_service"
SCALING = "aws_appautoscaling_target"
ROLE = "aws_iam_role"
ROLE_POLICY = "aws_iam_role_policy"
POLICY = "aws_iam_policy"
ATTACHMENT = "aws_iam_role_policy_attachment"
DOCUMENT = "data.aws_iam_policy_document"
PARAMETER = "aws_ssm_parameter"
BEANSTALK = "aws_elastic_beanstalk_environment"
PIPE = "aws_pipes_pipe"
STATE_MACHINE = "aws_sfn_state_machine"
API_DESTINATION = "aws_cloudwatch_event_api_destination"
SUBSCRIPTION = "aws_sns_topic_subscription"
TOPIC = "aws_sns_topic"
CAPACITY_PROVIDER = "aws_ecs_capacity_provider"
APPRUNNER = "aws_apprunner_service"

# the arguments read, per resource type (build.ARGS takes them in)
ARGS = {
    TASK: ("family", "container_definitions", "task_role_arn", "tags", "requires_compatibilities"),
    SERVICE: ("name", "task_definition", "desired_count", "launch_type", "capacity_provider_strategy"),
    CAPACITY_PROVIDER: ("name", "managed_instances_provider", "auto_scaling_group_provider"),
    SCALING: ("resource_id", "max_capacity"),
    ROLE: ("name", "inline_policy", "managed_policy_arns", "assume_role_policy"),
    ROLE_POLICY: ("role", "policy"),
    POLICY: ("name", "policy"),
    ATTACHMENT: ("role", "policy_arn"),
    DOCUMENT: ("statement",),
    PARAMETER: ("name", "value"),
    BEANSTALK: ("name", "tier", "setting", "tags"),
    PIPE: ("name", "source", "target", "enrichment", "source_parameters", "target_parameters", "tags"),
    STATE_MACHINE: ("name", "type"),
    API_DESTINATION: ("name",),
    SUBSCRIPTION: ("topic_arn", "protocol", "endpoint", "redrive_policy", "raw_message_delivery"),
    TOPIC: ("name", "fifo_topic"),
    APPRUNNER: ("service_name", "source_configuration"),
}
# nested blocks, read as lists of maps (the shape a plan gives them)
NESTED_BLOCKS = frozenset(
    ("setting", "inline_policy", "source_parameters", "target_parameters", "statement", "capacity_provider_strategy",
     "managed_instances_provider", "auto_scaling_group_provider", "source_configuration", "image_repository",
     "image_configuration", "code_repository", "code_configuration", "code_configuration_values")
)  # fmt: skip
# types read only when the root holds the consumer that needs them (load.TerraformLoader.collect_needed; a role
# and its grants also when the root has a queue and a role that may be a workload's: roles.py)
NEEDED_BY = {
    SERVICE: TASK,
    SCALING: TASK,
    CAPACITY_PROVIDER: TASK,
    ROLE: TASK,
    ROLE_POLICY: TASK,
    POLICY: TASK,
    ATTACHMENT: TASK,
    DOCUMENT: TASK,
    PARAMETER: TASK,
    STATE_MACHINE: PIPE,
    API_DESTINATION: PIPE,
    TOPIC: SUBSCRIPTION,
    "data.archive_file": "aws_lambda_function",  # the package a function is made from (lambda_env.py)
}
CONSUMER_TYPES = (TASK, BEANSTALK, PIPE, SUBSCRIPTION, APPRUNNER)
# what a role's grants are read from (also read for a role that is a consumer of its own: load.collect_needed)
ROLE_HELPERS = (ROLE_POLICY, POLICY, ATTACHMENT, DOCUMENT)
# a trust policy's service principal -> the platform of the workload that assumes the role
ROLE_PLATFORMS = {"ecs-tasks.amazonaws.com": "ecs", "pods.eks.amazonaws.com": "kubernetes"}
WEB_IDENTITY = "sts:assumerolewithwebidentity"
MAX_CONTAINERS = 100  # containers of one task definition read (ECS allows 10)
MAX_ENTRIES = 1000  # environment / secrets entries of one container, statements of one policy
MAX_JSON = 1_000_000  # characters of a JSON string decoded here (the evaluator's bound on one string)

_SQS_URL = re.compile(
    r"^https://(?:sqs\.|[^/]*\.queue\.amazonaws\.com)[^/]*/[^/]+/([A-Za-z0-9_-]{1,80}(?:\.fifo)?)/?$"
)
_SQS_ARN = re.compile(r"^arn:aws[a-z-]*:sqs:[^:]*:[^:]*:([A-Za-z0-9_-]{1,80}(?:\.fifo)?)$")
_ROLE_ARN = re.compile(r"^arn:aws[a-z-]*:iam::[^:]*:role/(?:.*/)?([^/]+)$")
_MODULE_PREFIX = re.compile(r"^((?:module\.[A-Za-z0-9_-]+(?:\[[^\]]*\])?\.)*)")
_RECEIVE = "sqs:receivemessage"
QUEUE_ATTRS = (*QUEUE_URL_ATTRS, *QUEUE_NAME_ATTRS)  # awscc_sqs_queue's names for its url and name


def read(builder) -> None:
    """The consumers of ``builder``'s resources into its model (``Queue.consumers``, ``Model.pending``,
    ``Model.env``, ``Queue.subscriptions``); notes into ``builder.notes``."""
    by_type: dict[str, list] = {}
    for r in builder.res:
        if r.type in ARGS and r.address not in builder.unread:
            by_type.setdefault(r.type, []).append(r)
    free = getattr(builder, "free_roles", None) or ()
    if not any(t in by_type for t in CONSUMER_TYPES) and not free:
        return
    _Reader(builder, by_type).read(free)


def _blocks(v: Any) -> list[dict]:
    """A nested block's value as a list of maps (a map alone: JSON syntax), the rest left out."""
    if isinstance(v, dict):
        return [v]
    return [x for x in v if isinstance(x, dict)] if isinstance(v, list) else []


def _strings(v: Any) -> list:
    if isinstance(v, list):
        return v[:MAX_ENTRIES]
    return [v] if v is not None else []


def _number(v: Any) -> Any:
    """A number (a numeric string converted), None when not set; SYMBOLIC values are returned as they are (not
    known here); anything else raises ValueError."""
    if v is None or isinstance(v, SYMBOLIC):
        return v
    if isinstance(v, bool):
        raise ValueError
    if isinstance(v, (int, float)):
        return v
    if isinstance(v, str) and re.fullmatch(r"\s*-?[0-9]{1,12}(\.[0-9]{1,9})?\s*", v):
        f = float(v)
        return int(f) if f.is_integer() else f
    raise ValueError


def _command(entry: Any, command: Any) -> list[str] | None:
    """A container's ``entryPoint`` + ``command`` as one exec-form list, when both are lists of known strings."""
    words: list[str] = []
    for part in (entry, command):
        if part is None:
            continue
        if not isinstance(part, list) or not all(isinstance(w, str) for w in part):
            return None
        words += part
    return words or None


def _prefix(address: str) -> str:
    m = _MODULE_PREFIX.match(address)
    return m.group(1) if m else ""


class _Reader:
    def __init__(self, builder, by_type: dict[str, list]):
        self.b = builder
        self.model = builder.model
        self.by_type = by_type
        self.by_address = {r.address: r for rs in by_type.values() for r in rs}

    def read(self, free_roles=()) -> None:
        roles = [r for r in self.by_type.get(ROLE, ()) if r.address in free_roles]
        for kind, fn in (
            (TASK, self.task),
            (BEANSTALK, self.beanstalk),
            (PIPE, self.pipe),
            (SUBSCRIPTION, self.subscription),
            (APPRUNNER, self.apprunner),
        ):
            for r in self.by_type.get(kind, ()):
                try:
                    fn(r)
                except VisguardError as exc:  # a value of the wrong kind: this consumer is left out, noted
                    self.note(
                        r, r.address, f"{r.address} could not be read here ({exc.detail}); the rest is linted"
                    )
        for r in roles:
            try:
                self.free_role(r)
            except VisguardError:  # a trust or a grant of the wrong kind: no consumer (never guessed)
                continue

    # ------------------------------------------------------------------------------------------ shared
    def note(self, r, where: Any, message: str) -> None:
        from .load import Note

        loc = where if isinstance(where, Location) else r.loc(where) if isinstance(where, str) else r.location
        self.b.notes.append(Note(message, loc, r.address))

    def attach(self, c: Consumer, r, qid: str | None, ref: QueueRef | None) -> None:
        if qid is None:
            c.queue_ref = ref
            self.model.pending.append(c)
            return
        q = self.model.queues[qid]
        q.consumers.append(c)
        for s in r.suppressions:
            q.suppressions.append(Suppression(s.rule, s.reason, s.location, consumer=c.id))

    def resolve(self, v: Any, loc: Location | None) -> tuple[str | None, QueueRef | None]:
        """(queue id of this model, or a reference to one declared elsewhere) that a value names: a queue's
        url/id/arn/name, a data source of a queue, a queue URL or ARN (literal or a template), a declared queue's
        name; (None, None) when it names no queue."""
        b = self.b
        if isinstance(v, Ref):
            if v.address in self.model.queues and v.attr in ("url", "id", "arn", "name", *QUEUE_ATTRS):
                return v.address, None
            if v.address in b.data and b.data[v.address][0] == "aws_sqs_queue":
                qid = b.queue_of(v, url=True)
                name = b.data[v.address][1]
                if qid is not None:
                    return qid, None
                return None, QueueRef("name", name, loc) if isinstance(name, str) else QueueRef(
                    "name", str(v), loc
                )
            return None, None
        if isinstance(v, Text):
            refs = {p.address for p in v.refs() if p.address in self.model.queues}
            if len(refs) == 1:
                return refs.pop(), None
            static = "".join(p for p in v.parts if isinstance(p, str))
            last = v.parts[-1] if v.parts else None
            if isinstance(last, str) and ("sqs" in static or ".queue.amazonaws.com" in static):
                name = re.split(r"[/:]", last.rstrip("/"))[-1]
                if re.fullmatch(r"[A-Za-z0-9_-]{1,80}(\.fifo)?", name or ""):
                    qid = b.queue_names.get(name)
                    return (qid, None) if qid else (None, QueueRef("name", name, loc))
            return None, None
        if isinstance(v, str) and len(v) <= 2048:
            m = _SQS_URL.match(v) or _SQS_ARN.match(v)
            if m:
                qid = b.queue_names.get(m.group(1))
                kind = "arn" if v.startswith("arn:") else "url"
                return (qid, None) if qid else (None, QueueRef(kind, v, loc))
            if v in b.queue_names:
                return b.queue_names[v], None
        return None, None

    def decode(self, r, arg: str, v: Any = None) -> Any:
        """A JSON value (argument ``arg`` of ``r``, or ``v`` inside it) written as ``jsonencode(...)``, a JSON
        string, a heredoc with references or (a plan) the value itself; None (noted) when it is not known here
        or not JSON."""
        from ..decode import loads_json

        v = r.values.get(arg) if v is None else v
        if isinstance(v, Encoded):
            return v.value
        holes: dict[str, Any] = {}
        if isinstance(v, Text):
            v, holes = v.holed()
        if isinstance(v, str):
            if len(v) > MAX_JSON:
                self.note(r, arg, f"{r.address}: {arg} is longer than {MAX_JSON:,} characters: not read")
                return None
            try:
                out = loads_json(v, file=r.loc(arg).file)
            except VisguardError as exc:
                self.note(
                    r, arg, f"{r.address}: {arg} is not valid JSON ({exc.detail}); its consumer is not read"
                )
                return None
            return unholed(out, holes) if holes else out
        if isinstance(v, (Unknown, Ref)):
            self.note(
                r,
                arg,
                f"{r.address}: {arg} ({excerpt(str(v), 64)}) is not known here; its consumer is not read",
            )
            return None
        return v

    def tags(self, c: Consumer, r) -> None:
        tags = r.values.get("tags")
        if not isinstance(tags, dict):
            return
        for key, field in ((PROCESSING_P99_KEY, "processing_p99"), (PROCESSING_P50_KEY, "processing_p50")):
            if key not in tags:
                continue
            seconds = parse_duration(tags[key])
            if seconds is None:
                self.note(
                    r,
                    "tags",
                    f'{r.address}: tag "{key}" must be a duration like "20m", "90s" or "600" (seconds); '
                    "the processing time is not read",
                )
                continue
            setattr(c, field, seconds)
            c.locations[field] = r.locations.get(f"tags.{key}", r.loc("tags"))

    def number_into(self, c: Consumer, r, field: str, v: Any, loc: Location, what: str) -> Any:
        """``v`` as a number into ``c.<field>`` (located); a value not known here or not a number is noted."""
        n = self.num(r, v, loc, what)
        if n is not None:
            setattr(c, field, n)
            c.locations[field] = loc
        return n

    def num(self, r, v: Any, loc: Location, what: str) -> Any:
        """``v`` as a number; None (noted) when it is not known here or not a number."""
        try:
            n = _number(v)
        except ValueError:
            self.note(r, loc, f"{r.address}: {what} must be a number; it is not read")
            return None
        if isinstance(n, SYMBOLIC):
            self.note(
                r,
                loc,
                f"{r.address}: {what} is not known here ({excerpt(str(n), 64)}); the rules that need it are skipped",
            )
            return None
        return n

    # ------------------------------------------------------------------------------------------ ECS
    def task(self, r) -> None:
        containers = self.decode(r, "container_definitions")
        if containers is None:
            return
        if not isinstance(containers, list):
            self.note(
                r,
                "container_definitions",
                f"{r.address}: container_definitions is not a list of containers; not read",
            )
            return
        role = self.role_of(r.values.get("task_role_arn"))
        grants = self.grants(role) if role else None
        links: dict[Any, tuple] = {}  # queue key -> (qid, ref, link, link_ref, container index, where)

        def add(qid, ref, link, link_ref, ci, where) -> None:
            key = qid if qid is not None else (ref.kind, ref.value)
            if key in links:
                return
            if qid is not None and grants is not None and qid in grants and not grants[qid]:
                return  # the task role may use the queue but not receive from it: a producer
            links[key] = (qid, ref, link, link_ref, ci, where)

        for ci, cont in enumerate(containers[:MAX_CONTAINERS]):
            if not isinstance(cont, dict):
                continue
            cname = cont.get("name") if isinstance(cont.get("name"), str) else str(ci)
            base = f"container_definitions[{ci}]"
            for kind, key in (("env", "environment"), ("secret", "secrets")):
                entries = cont.get(key)
                if not isinstance(entries, list):
                    continue
                for j, e in enumerate(entries[:MAX_ENTRIES]):
                    if not isinstance(e, dict) or not isinstance(e.get("name"), str):
                        continue
                    where = r.locations.get(
                        f"{base}.{key}[{j}].value" if kind == "env" else f"{base}.{key}[{j}].valueFrom"
                    )
                    where = where or r.locations.get(f"{base}.{key}[{j}]") or r.loc("container_definitions")
                    value = e.get("value") if kind == "env" else self.parameter_value(e.get("valueFrom"))
                    number = setting_number(e["name"], value) if kind == "env" else None
                    if number is not None:  # a setting's number, for code that reads it from the variable
                        self.model.env.append(
                            EnvBinding(e["name"], f"{r.address}/{cname}", location=where, number=number)
                        )
                        continue
                    qid, ref = self.resolve(value, where)
                    if qid is None and ref is None:
                        continue
                    if kind == "env":
                        self.model.env.append(EnvBinding(e["name"], f"{r.address}/{cname}", qid, ref, where))
                    add(qid, ref, kind, e["name"], ci, where)
        if grants:
            for qid, receives in grants.items():
                if receives:
                    add(qid, None, "iam", role, None, r.loc("task_role_arn"))
        for qid, ref, link, link_ref, ci, where in links.values():
            c = Consumer(
                id=r.address,
                kind="worker",
                location=r.location,
                platform="ecs",
                source=SOURCE,
                link=link,
                link_ref=link_ref,
            )
            c.locations["link"] = where
            self.container_into(c, r, containers, ci)
            self.service_into(c, r)
            self.capacity_into(c, r)
            self.tags(c, r)
            self.attach(c, r, qid, ref)

    def container_into(self, c: Consumer, r, containers: list, ci: int | None) -> None:
        """The stop timeout of the container that names the queue (the first one for an IAM link)."""
        if ci is None:
            ci = next((i for i, x in enumerate(containers[:MAX_CONTAINERS]) if isinstance(x, dict)), None)
            if ci is None:
                return
        cont = containers[ci]
        base = f"container_definitions[{ci}]"
        if isinstance(cont.get("name"), str):
            c.settings["container"] = cont["name"]
        if cont.get("stopTimeout") is not None:
            loc = r.locations.get(f"{base}.stopTimeout") or r.loc("container_definitions")
            self.number_into(c, r, "stop_timeout", cont["stopTimeout"], loc, f"{base}.stopTimeout")
        elif f"{base}" in r.locations:
            c.locations["stop_timeout"] = r.locations[base]  # where stopTimeout would be added
        command = _command(cont.get("entryPoint"), cont.get("command"))
        if command:  # the worker it starts: its framework's settings (visguard.linter.loaders.commandline)
            from visguard.linter.loaders import commandline

            loc = (
                r.locations.get(f"{base}.command") or r.locations.get(base) or r.loc("container_definitions")
            )
            for problem in commandline.settle(c, command, loc):
                self.note(r, "container_definitions", f"{r.address}: {problem}")

    def service_into(self, c: Consumer, r) -> None:
        family = r.values.get("family")
        for s in self.by_type.get(SERVICE, ()):
            td = s.values.get("task_definition")
            refs = [td] if isinstance(td, Ref) else td.refs() if isinstance(td, Text) else []
            mine = any(x.address == r.address for x in refs) or (
                isinstance(td, str)
                and isinstance(family, str)
                and td.split(":")[0].rsplit("/", 1)[-1] == family
            )
            if not mine:
                continue
            c.settings["service"] = s.address
            if s.values.get("desired_count") is not None:
                try:
                    n = _number(s.values["desired_count"])
                except ValueError:
                    n = None
                if isinstance(n, (int, float)):
                    c.settings["desired_count"] = n
                    c.locations["desired_count"] = s.loc("desired_count")
            name = s.values.get("name")
            for t in self.by_type.get(SCALING, ()):
                rid = t.values.get("resource_id")
                ids = [x.address for x in rid.refs()] if isinstance(rid, Text) else []
                said = str(rid).rstrip("/").rsplit("/", 1)[-1] if isinstance(rid, (str, Text)) else None
                if s.address in ids or (isinstance(name, str) and said == name):
                    try:
                        n = _number(t.values.get("max_capacity"))
                    except ValueError:
                        n = None
                    if isinstance(n, (int, float)):
                        c.settings["max_count"] = n
                        c.locations["max_count"] = t.loc("max_capacity")
            return

    def capacity_into(self, c: Consumer, r) -> None:
        """Where the tasks run (issue 36): ``settings["capacity"]`` (EC2, FARGATE, EXTERNAL, MANAGED_INSTANCES) from
        the service's launch_type, else its capacity_provider_strategy blocks (FARGATE/FARGATE_SPOT, or an
        ``aws_ecs_capacity_provider`` with a managed_instances_provider or auto_scaling_group_provider block), else
        the task definition's one requires_compatibilities value; ``settings["compatibilities"]`` as written."""
        raw = r.values.get("requires_compatibilities")
        compat = [v.upper() for v in raw[:MAX_ENTRIES] if isinstance(v, str)] if isinstance(raw, list) else []
        if compat:
            c.settings["compatibilities"] = compat
        found, at = None, None
        s = self.by_address.get(c.settings.get("service") or "")
        if s is not None:
            launch = s.values.get("launch_type")
            if isinstance(launch, str) and launch.upper() in facts.ECS_CAPACITY_TYPES:
                found, at = launch.upper(), s.loc("launch_type")
            else:
                kinds = {self.provider_kind(b.get("capacity_provider"))
                         for b in _blocks(s.values.get("capacity_provider_strategy"))}  # fmt: skip
                if len(kinds) == 1 and None not in kinds:
                    key = "capacity_provider_strategy[0].capacity_provider"
                    found, at = kinds.pop(), s.locations.get(key) or s.loc("capacity_provider_strategy")
        if found is None and len(set(compat)) == 1 and compat[0] in facts.ECS_CAPACITY_TYPES:
            found, at = compat[0], r.loc("requires_compatibilities")
        if found is not None:
            c.settings["capacity"] = found
            c.locations["capacity"] = at

    def provider_kind(self, v: Any) -> str | None:
        """The capacity type of a strategy's capacity_provider: FARGATE for Fargate's own, an
        aws_ecs_capacity_provider's kind (by reference or name), None when not known here."""
        if isinstance(v, Text) and len(v.refs()) == 1:
            v = v.refs()[0]
        cp = None
        if isinstance(v, Ref):
            cp = self.by_address.get(v.address)
        elif isinstance(v, str):
            if v.upper() in facts.ECS_FARGATE_PROVIDERS:
                return "FARGATE"
            cp = next((x for x in self.by_type.get(CAPACITY_PROVIDER, ()) if x.values.get("name") == v), None)
        if cp is None or cp.type != CAPACITY_PROVIDER:
            return None
        if _blocks(cp.values.get("managed_instances_provider")):
            return "MANAGED_INSTANCES"
        return "EC2" if _blocks(cp.values.get("auto_scaling_group_provider")) else None

    def parameter_value(self, v: Any) -> Any:
        """The value of the SSM parameter a secret's valueFrom names (``aws_ssm_parameter.p.arn``), else None."""
        if (
            isinstance(v, Ref)
            and v.address in self.by_address
            and self.by_address[v.address].type == PARAMETER
        ):
            return self.by_address[v.address].values.get("value")
        return None

    # ------------------------------------------------------------------------------------------ IAM
    def role_of(self, v: Any) -> str | None:
        if isinstance(v, Text) and len(v.refs()) == 1:
            v = v.refs()[0]
        if isinstance(v, Ref):
            other = self.by_address.get(v.address)
            return v.address if other is not None and other.type == ROLE else None
        if isinstance(v, str):
            m = _ROLE_ARN.match(v)
            name = m.group(1) if m else v
            for role in self.by_type.get(ROLE, ()):
                if role.values.get("name") == name:
                    return role.address
        return None

    def grants(self, role: str) -> dict[str, bool] | None:
        """Queue id -> whether the role may receive from it, over the policies of ``role`` read here; None when
        one of them is not known here (a role whose grants are partly unknown is never judged a producer)."""
        sites = self.grant_sites(role)
        return None if sites is None else {qid: receives for qid, (receives, _) in sites.items()}

    def grant_sites(self, role: str) -> dict[str, tuple[bool, Location]] | None:
        """Queue id -> (whether the role may receive from it, where the first statement that grants it is
        written), over the policies of ``role`` read here; None when one of them is not known here."""
        policies: list[tuple[Any, Any, Location]] = []  # (the resource, its policy value, where)
        r = self.by_address[role]
        for i, ip in enumerate(_blocks(r.values.get("inline_policy"))):
            where = r.locations.get(f"inline_policy[{i}].policy") or r.loc("inline_policy")
            policies.append((r, ("inline", i, ip.get("policy")), where))
        for rp in self.by_type.get(ROLE_POLICY, ()):
            if self.role_of(rp.values.get("role")) == role:
                policies.append((rp, ("arg", "policy", None), rp.loc("policy")))
        arns = [(att.values.get("policy_arn"), att) for att in self.by_type.get(ATTACHMENT, ())
                if self.role_of(att.values.get("role")) == role]  # fmt: skip
        managed = r.values.get("managed_policy_arns")
        if isinstance(managed, (Unknown, Ref, Text)):
            return None  # policies not known here
        arns += [(arn, r) for arn in _strings(managed)]
        for arn, _ in arns:
            if isinstance(arn, Text) and len(arn.refs()) == 1:
                arn = arn.refs()[0]
            pol = self.by_address.get(arn.address) if isinstance(arn, Ref) else None
            if pol is not None and pol.type == POLICY:
                policies.append((pol, ("arg", "policy", None), pol.loc("policy")))
            elif not (isinstance(arn, str) and ":aws:policy/" in arn):
                return None  # a customer policy not read here
        out: dict[str, tuple[bool, Location]] = {}
        for res, (how, arg, value), where in policies:
            statements, doc = self.statements(res, arg if how == "arg" else None, value, with_doc=True)
            if statements is None:
                return None
            for j, st in enumerate(statements[:MAX_ENTRIES]):
                effect = st.get("Effect", st.get("effect", "Allow"))
                if effect != "Allow":
                    continue
                actions = [
                    a.lower() for a in _strings(st.get("Action", st.get("actions"))) if isinstance(a, str)
                ]
                receives = any(fnmatch.fnmatchcase(_RECEIVE, a) for a in actions)
                sqs = receives or any(a.startswith("sqs:") for a in actions)
                if not sqs:
                    continue
                here = doc.locations.get(f"statement[{j}]", where) if doc is not None else where
                for res_v in _strings(st.get("Resource", st.get("resources"))):
                    qid = self.b.queue_of(res_v, url=False)
                    if qid is not None:
                        was, at = out.get(qid, (False, here))
                        out[qid] = (was or receives, at if was or not receives else here)
        return out

    def statements(self, r, arg: str | None, value: Any, with_doc: bool = False) -> Any:
        """The statements of a policy (argument ``arg`` of ``r``, or ``value``): a JSON document's, or those of
        the ``data.aws_iam_policy_document`` it names; None when not known here. ``with_doc``: also that data
        source (or None), as a pair."""
        if arg is not None:
            value = r.values.get(arg)
        if isinstance(value, Unknown) and re.fullmatch(
            r"data\.aws_iam_policy_document\.[A-Za-z0-9_-]+\.json", value.text
        ):
            doc = self.by_address.get(_prefix(r.address) + value.text[: -len(".json")])
            found = _blocks(doc.values.get("statement")) if doc is not None else None
            return (found, doc) if with_doc else found
        if isinstance(value, (Unknown, Ref)) or value is None:
            return (None, None) if with_doc else None
        decoded = self.decode(r, arg or "inline_policy", value)
        found = _blocks(decoded.get("Statement")) if isinstance(decoded, dict) else None
        return (found, None) if with_doc else found

    # ------------------------------------------------------------------------------------------ a free role
    def free_role(self, r) -> None:
        """An ``aws_iam_role`` / ``awscc_iam_role`` an ECS task or a Kubernetes pod may assume (EKS Pod Identity,
        or IRSA's web identity), that may ``sqs:ReceiveMessage`` on a queue of this root and that nothing of the
        configuration uses (``roles.used``): its workload is deployed by another tool (ecspresso, Copilot, a
        Helm chart) and consumes the queue (issue 35 §5: its IAM grants receiving). One worker consumer per
        queue, located at the grant, with nothing known of its settings (a note says so)."""
        if r.values.get("assume_role_policy") is None:
            return
        statements = self.statements(r, "assume_role_policy", None)
        platform = role_platform(statements) if statements is not None else None
        if platform is None:
            return
        sites = self.grant_sites(r.address)
        for qid, (receives, where) in (sites or {}).items():
            if not receives:
                continue
            c = Consumer(
                id=r.address, kind="worker", location=where, platform=platform, source=SOURCE,
                link="iam", link_ref=r.address, heartbeat=None,
            )  # fmt: skip
            c.locations["link"] = where
            c.settings["assumed_by_other_tool"] = True
            self.b.notes.append(_role_note(r.address, qid, platform, where))
            self.attach(c, r, qid, None)

    # ------------------------------------------------------------------------------------------ Beanstalk
    def apprunner(self, r) -> None:
        """An App Runner service's runtime environment (``source_configuration`` of an image or a code repository):
        the variables it gives the code its container runs, as an ECS container's environment (a queue, a
        setting's number); App Runner itself receives nothing, the code does."""
        for i, src in enumerate(_blocks(r.values.get("source_configuration"))):
            for kind, conf, values in (
                ("image_repository", "image_configuration", None),
                ("code_repository", "code_configuration", "code_configuration_values"),
            ):
                for j, repo in enumerate(_blocks(src.get(kind))):
                    for k, cfg in enumerate(_blocks(repo.get(conf))):
                        base = f"source_configuration[{i}].{kind}[{j}].{conf}[{k}]"
                        for m, block in enumerate(_blocks(cfg.get(values)) if values else [cfg]):
                            at = f"{base}.{values}[{m}]" if values else base
                            self.runtime_env(r, block.get("runtime_environment_variables"), at)

    def runtime_env(self, r, env, at: str) -> None:
        if not isinstance(env, dict):
            return
        for name, value in list(env.items())[:MAX_ENTRIES]:
            if not isinstance(name, str):
                continue
            where = r.locations.get(f"{at}.runtime_environment_variables.{name}") or r.locations.get(
                f"{at}.runtime_environment_variables"
            )
            where = where or r.location
            number = setting_number(name, value)
            if number is not None:
                self.model.env.append(EnvBinding(name, r.address, location=where, number=number))
                continue
            qid, ref = self.resolve(value, where)
            if qid is not None or ref is not None:
                self.model.env.append(EnvBinding(name, r.address, qid, ref, where))

    def beanstalk(self, r) -> None:
        sqsd: dict[str, tuple[Any, Location]] = {}
        unknown = False
        for i, s in enumerate(_blocks(r.values.get("setting"))):
            ns, name = s.get("namespace"), s.get("name")
            if isinstance(ns, SYMBOLIC) or isinstance(name, SYMBOLIC):
                unknown = True
            if ns == facts.SQSD_NAMESPACE and isinstance(name, str):
                where = (
                    r.locations.get(f"setting[{i}].value")
                    or r.locations.get(f"setting[{i}]")
                    or r.loc("setting")
                )
                sqsd[name] = (s.get("value"), where)
        if isinstance(r.values.get("setting"), (Unknown, Ref)):
            unknown = True
        tier = r.values.get("tier")
        if not (isinstance(tier, str) and tier.lower() == "worker") and not sqsd:
            return
        if unknown:
            self.note(
                r,
                "setting",
                f"{r.address}: some setting blocks are not known here; the sqsd settings read may be incomplete",
            )
        url, url_loc = sqsd.get("WorkerQueueURL", (None, r.location))
        qid, ref = self.resolve(url, url_loc)
        if qid is None and ref is None:
            why = (
                "uses the queue Elastic Beanstalk creates for it"
                if url is None
                else f"names its queue by {excerpt(str(url), 64)}, which visguard cannot resolve"
            )
            self.note(
                r, url_loc, f"{r.address} (a worker environment) {why}: its sqsd settings are not checked"
            )
            return
        c = Consumer(
            id=r.address,
            kind="worker",
            location=r.location,
            platform="beanstalk",
            source=SOURCE,
            link="source",
            link_ref="WorkerQueueURL",
            heartbeat=False,
        )
        c.locations["link"] = url_loc
        for option, (name, default, _range) in facts.SQSD_OPTIONS.items():
            field = {"visibility_override": "visibility_override", "inactivity_timeout": "work_timeout"}.get(
                name
            )
            value, where = sqsd.get(option, (None, r.location))
            n = None
            if option in sqsd:
                n = self.num(r, value, where, f"setting {option}")
            if n is None:
                n = default
                if name == "visibility_override":
                    c.settings["visibility_default"] = True
            if field is not None:
                setattr(c, field, n)
                c.locations[field] = where
                if name == "inactivity_timeout":
                    c.settings["inactivity_timeout"] = n
                    c.locations["inactivity_timeout"] = where
            else:
                c.settings[name] = n
                if option in sqsd:
                    c.locations[name] = where
        self.tags(c, r)
        self.attach(c, r, qid, ref)

    # ------------------------------------------------------------------------------------------ Pipes
    def pipe(self, r) -> None:
        src = r.values.get("source")
        qid, ref = self.resolve(src, r.loc("source"))
        if qid is None and ref is None:
            return  # a stream or a broker, or a queue visguard cannot name
        c = Consumer(
            id=r.address,
            kind="worker",
            location=r.location,
            platform="pipes",
            source=SOURCE,
            link="source",
            link_ref="source",
            heartbeat=False,
        )
        c.locations["link"] = r.loc("source")
        base = "source_parameters[0].sqs_queue_parameters[0]"
        params = next(iter(_blocks(r.values.get("source_parameters"))), {})
        sqs = next(iter(_blocks(params.get("sqs_queue_parameters"))), {})
        for arg, field in (
            ("batch_size", "batch_size"),
            ("maximum_batching_window_in_seconds", "batching_window"),
        ):
            if sqs.get(arg) is not None:
                loc = r.locations.get(f"{base}.{arg}") or r.loc("source_parameters")
                self.number_into(c, r, field, sqs[arg], loc, f"source_parameters.sqs_queue_parameters.{arg}")
        if c.batch_size is None:
            c.settings["batch_size_default"] = facts.DEFAULT_PIPES_BATCH_SIZE
        total, known = 0.0, True
        for arg in ("target", "enrichment"):
            v = r.values.get(arg)
            if v is None or v == "":
                continue
            seconds, where, what = self.target_timeout(v)
            if arg == "target" and _fire_and_forget(r) is not None:
                seconds, where, what = 0.0, _fire_and_forget(r), None  # the pipe does not wait for it
            if seconds is None:
                known = False
                if what:
                    self.note(r, arg, f"{r.address}: the {arg} {what}; the time it takes is not known here")
                continue
            total += seconds
            c.settings[f"{arg}_timeout"] = seconds
            c.locations[f"{arg}_timeout"] = where or r.loc(arg)
            c.locations.setdefault("work_timeout", where or r.loc(arg))
        if known and r.values.get("target") not in (None, ""):
            c.work_timeout = total
        self.tags(c, r)
        self.attach(c, r, qid, ref)

    def target_timeout(self, v: Any) -> tuple[float | None, Location | None, str | None]:
        """(seconds one invocation may take, where that is written, why not known) of a pipe's target."""
        if isinstance(v, Text) and len(v.refs()) == 1:
            v = v.refs()[0]
        if isinstance(v, Ref):
            other = self.by_address.get(v.address) or self.b.by_address.get(v.address)
            kind = other.type if other is not None else _MODULE_PREFIX.sub("", v.address).split(".", 1)[0]
            if kind in ("aws_lambda_function", "aws_lambda_alias"):
                fid, why = self.b.function_of(v, [])
                if fid is None:
                    return None, None, why
                fn = self.b.by_address[fid]
                try:
                    t = _number(fn.values.get("timeout"))
                except ValueError:
                    t = None
                if t is None and fn.values.get("timeout") is None:
                    return float(facts.DEFAULT_LAMBDA_TIMEOUT), fn.location, None
                if isinstance(t, (int, float)):
                    return float(t), fn.loc("timeout"), None
                return None, None, f"function {fid} has a timeout not known here"
            if kind == STATE_MACHINE:
                t = other.values.get("type")
                if t == "EXPRESS":
                    return float(facts.STEP_FUNCTIONS_EXPRESS_MAX), other.loc("type"), None
                return None, None, None  # a standard workflow runs on its own
            if kind == API_DESTINATION:
                return float(facts.API_DESTINATION_TIMEOUT), other.location, None
            if kind.startswith("aws_"):  # another AWS service (a bus, a queue, a log group): one call
                return 0.0, other.location if other is not None else None, None
            return None, None, None
        if isinstance(v, str) and ":lambda:" in v:
            fid, why = self.b.function_of(v, [])
            if fid is not None:
                return self.target_timeout(Ref(fid, "arn"))
            return None, None, why
        if isinstance(v, str) and v.startswith("arn:") and v.count(":") >= 2:
            service = v.split(":")[2]
            if service == "events" and ":api-destination/" in v:
                return float(facts.API_DESTINATION_TIMEOUT), None, None
            if service not in ("states", "lambda"):
                return 0.0, None, None  # another AWS service, as in a template
        return None, None, None

    # ------------------------------------------------------------------------------------------ SNS
    def subscription(self, r) -> None:
        if r.values.get("protocol") != "sqs":
            return
        qid, _ = self.resolve(r.values.get("endpoint"), r.loc("endpoint"))
        if qid is None:
            return  # a queue of another root: its model has no subscriptions to carry it
        s = Subscription(id=r.address, location=r.location, source=SOURCE)
        topic = r.values.get("topic_arn")
        s.locations["topic"] = r.loc("topic_arn")
        if isinstance(topic, Ref):
            s.topic = topic.address
            t = self.by_address.get(topic.address)
            if t is not None and t.type == TOPIC:
                fifo = t.values.get("fifo_topic")
                s.topic_fifo = bool(fifo) if isinstance(fifo, bool) else None if fifo is not None else False
                if fifo is not None:
                    s.locations["topic_fifo"] = t.loc("fifo_topic")
        elif topic is not None:
            s.topic = str(topic)
            if isinstance(topic, str):
                s.topic_fifo = topic.endswith(".fifo")
        if r.values.get("redrive_policy") not in (None, ""):
            s.locations["redrive"] = r.loc("redrive_policy")
            doc = self.decode(r, "redrive_policy")
            target = doc.get("deadLetterTargetArn") if isinstance(doc, dict) else None
            s.redrive = self.b.queue_of(target, url=False) if target is not None else None
            if s.redrive is None:
                s.redrive_ref = str(target) if target is not None else str(r.values.get("redrive_policy"))
        raw = r.values.get("raw_message_delivery")
        if raw is not None:
            s.raw_delivery = raw if isinstance(raw, bool) else raw == "true" if isinstance(raw, str) else None
            s.locations["raw_delivery"] = r.loc("raw_message_delivery")
        self.model.queues[qid].subscriptions.append(s)


def role_platform(statements: list) -> str | None:
    """The platform of the workload a trust policy's statements (JSON ``Principal`` / ``Action``, or a policy
    document's ``principals`` blocks and ``actions``) let assume the role: ``ecs`` (``ecs-tasks.amazonaws.com``),
    ``kubernetes`` (EKS Pod Identity, or ``sts:AssumeRoleWithWebIdentity`` of a federated OIDC provider: IRSA);
    None for any other."""
    for st in statements[:MAX_ENTRIES]:
        if not isinstance(st, dict) or st.get("Effect", st.get("effect", "Allow")) != "Allow":
            continue
        services: list = []
        federated = False
        principal = st.get("Principal")
        if isinstance(principal, dict):
            services += _strings(principal.get("Service"))
            federated = principal.get("Federated") is not None
        for p in _blocks(st.get("principals")):
            kind = p.get("type")
            if kind == "Service":
                services += _strings(p.get("identifiers"))
            elif kind == "Federated":
                federated = True
        for svc in services:
            if isinstance(svc, str) and svc in ROLE_PLATFORMS:
                return ROLE_PLATFORMS[svc]
        actions = [a.lower() for a in _strings(st.get("Action", st.get("actions"))) if isinstance(a, str)]
        if federated and WEB_IDENTITY in actions:
            return "kubernetes"
    return None


def _role_note(role: str, qid: str, platform: str, where: Location):
    from .load import Note

    return Note(
        f"consumer {role} of {qid} is the {platform} workload that assumes role {role}, declared elsewhere: its "
        "stop timeout, work limit and receive settings were not checked",
        where,
        role,
        fix="Lint the files that declare that workload together with this root (its task definition or "
        "manifests), or declare its processing time in a worker profile in visguard.yaml "
        f"(profiles: [{{match: {qid}, kind: worker, p99: ...}}]).",
    )


def _fire_and_forget(r) -> Location | None:
    """Where a pipe's target_parameters ask for an asynchronous call (FIRE_AND_FORGET) of its Lambda or Step
    Functions target; None when the pipe waits for the target."""
    params = next(iter(_blocks(r.values.get("target_parameters"))), {})
    for block in ("lambda_function_parameters", "step_function_state_machine_parameters"):
        inner = next(iter(_blocks(params.get(block))), {})
        if isinstance(inner, dict) and inner.get("invocation_type") == "FIRE_AND_FORGET":
            path = f"target_parameters[0].{block}[0].invocation_type"
            return r.locations.get(path) or r.loc("target_parameters")
    return None
