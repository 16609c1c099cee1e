"""Worker consumers declared in a CloudFormation template (issue 24; reference/consumers.md §2.1-§2.4).

Read after the queues of the template (``cfn._Builder.build`` calls :func:`read`; SAM is already transformed,
a cdk.out template comes through the same builder):

- ``AWS::ECS::TaskDefinition``: a container that gets a queue of the template by environment variable (``Ref`` /
  ``Fn::GetAtt`` QueueUrl, Arn or QueueName, ``Fn::Sub``, a literal URL, ARN or the queue's name), by secret
  (``ValueFrom`` an ``AWS::SSM::Parameter`` whose Value is the queue), or whose task role may
  ``sqs:ReceiveMessage`` on the queue (inline policies, ``AWS::IAM::Policy``/``ManagedPolicy`` attached to it; a
  ``"*"`` resource links no queue). One worker consumer per (task definition, queue), platform ``ecs``: the
  containers' StopTimeout, the service's DesiredCount and its scalable target's MaxCapacity, where the tasks run
  (``settings["capacity"]``: the service's LaunchType or CapacityProviderStrategy, else RequiresCompatibilities). A task role that
  grants only sending on the queue makes the container a producer: no consumer. A variable naming a queue outside
  the template (a literal URL/ARN, ``Fn::ImportValue``) gives a pending consumer (``Model.pending``).
- ``AWS::ElasticBeanstalk::Environment`` of the Worker tier (or with ``aws:elasticbeanstalk:sqsd`` options, also
  through its ``TemplateName``'s ``AWS::ElasticBeanstalk::ConfigurationTemplate``): sqsd's options with their
  documented defaults (:func:`sqsd_consumer`, shared with the ``.ebextensions`` loader), platform ``beanstalk``.
- ``AWS::Pipes::Pipe`` with a queue source: batch size and window, the target's (and enrichment's) timeout,
  platform ``pipes``.
- ``AWS::SNS::Subscription`` (protocol sqs) and SAM's SNS events with ``SqsSubscription``: ``Queue.subscriptions``.

The declared processing time comes from the tag :data:`~visguard.linter.consumers.PROCESSING_P99_KEY` (and
``PROCESSING_P50_KEY``) of the task definition, environment or pipe. Every value read is located in
``Consumer.locations`` under its field (or settings) name; a value only the deployed stack knows is kept out of the
numbers and said in a note.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re

from visguard import facts
from visguard.linter.consumers import (
    PROCESSING_P50_KEY,
    PROCESSING_P99_KEY,
    EnvBinding,
    QueueRef,
    parse_duration,
    queue_name_of,
    setting_number,
)
from visguard.linter.model import Consumer, Location, Note, Subscription

from . import values
from .intrinsics import NOVALUE, ExternalRef, ResRef, Text, Unknown

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

QUEUE = "AWS::SQS::Queue"
TASK_DEFINITION = "AWS::ECS::TaskDefinition"
SERVICE = "AWS::ECS::Service"
CAPACITY_PROVIDER = "AWS::ECS::CapacityProvider"
SCALABLE_TARGET = "AWS::ApplicationAutoScaling::ScalableTarget"
ROLE = "AWS::IAM::Role"
POLICY = "AWS::IAM::Policy"
MANAGED_POLICY = "AWS::IAM::ManagedPolicy"
SSM_PARAMETER = "AWS::SSM::Parameter"
EB_ENVIRONMENT = "AWS::ElasticBeanstalk::Environment"
EB_TEMPLATE = "AWS::ElasticBeanstalk::ConfigurationTemplate"
PIPE = "AWS::Pipes::Pipe"
SUBSCRIPTION = "AWS::SNS::Subscription"
TOPIC = "AWS::SNS::Topic"
STATE_MACHINE = "AWS::StepFunctions::StateMachine"
SAM_STATE_MACHINE = "AWS::Serverless::StateMachine"
API_DESTINATION = "AWS::Events::ApiDestination"
LAMBDA_TYPES = ("AWS::Lambda::Function", "AWS::Serverless::Function")
ENV_NAMESPACE = "aws:elasticbeanstalk:application:environment"
_UNKNOWN = (Unknown, ResRef, Text)
_QUEUE_ATTRS = (None, "Arn", "QueueUrl", "QueueName")
_QUEUE_HINT = re.compile(r"QUEUE|SQS", re.I)
# a trust policy's service principal -> the platform of the workload that assumes the role
_ROLE_PLATFORMS = {"ecs-tasks.amazonaws.com": "ecs", "pods.eks.amazonaws.com": "kubernetes"}
MAX_ITEMS = 10_000  # containers, variables, statements read per resource (a larger list is not a template's)


def read(b) -> None:
    """Add the worker consumers, environment bindings and SNS subscriptions of builder ``b``'s template to its
    model (``b``: ``cfn._Builder``, queues and redrive already linked)."""
    r = _Reader(b)  # (cfn.py calls this only for a template with one of cfn.CONSUMER_TYPES)
    for lid, res in b.res.items():
        t = res["Type"]
        if t == TASK_DEFINITION:
            r.task_definition(lid)
        elif t == EB_ENVIRONMENT:
            r.beanstalk(lid)
        elif t == PIPE:
            r.pipe(lid)
        elif t == SUBSCRIPTION:
            r.subscription(lid)
        elif t in LAMBDA_TYPES:
            r.sam_subscriptions(lid)
            r.function_environment(lid)
        elif t == ROLE:
            r.role(lid)


def _items(v: Any) -> list:
    return v[:MAX_ITEMS] if isinstance(v, list) else []


def _as_list(v: Any) -> list:
    return [v] if not isinstance(v, list) else v[:MAX_ITEMS]


class _Reader:
    def __init__(self, b):
        self.b = b
        self.model = b.model
        self._grants: dict[str, list] | None = None
        self._used: set[str] | None = None

    # ------------------------------------------------------------------ helpers
    def value(self, raw: Any, path: list) -> Any:
        v = self.b.r.value(raw, path)
        return None if v is NOVALUE else v

    def note(self, message: str, path: list, address: str | None) -> None:
        self.model.notes.append(Note(message, self.b.loc(path), address))

    def number(self, raw: Any, path: list, c: Consumer, what: str) -> int | float | None:
        """A numeric setting; None (and a note) when only the deployed stack knows it."""
        v = self.b.number(raw, path)
        if v is None or isinstance(v, (int, float)):
            return v
        self.note(f"{what} of consumer {c.id} is {v}, not known here: it was not checked", path, c.id)
        c.settings.setdefault("unknown", []).append(what)
        return None

    def queue_of(self, v: Any, loc: Location, *, hint: bool = False) -> tuple[str | None, QueueRef | None]:
        """(queue id of this template, None) or (None, reference to a queue elsewhere) or (None, None) for a
        resolved value naming a queue by URL, ARN or name. ``hint``: the variable's name says it is a queue
        (an unresolved ``Fn::ImportValue`` is then taken as one)."""
        b = self.b
        if isinstance(v, ResRef):
            rtype = b.res.get(v.id, {}).get("Type")
            if rtype == QUEUE and v.attr in _QUEUE_ATTRS:
                return v.id, None
            if rtype == SSM_PARAMETER and v.attr in (None, "Value"):
                return self.ssm_queue(v.id, loc)
            return None, None
        if isinstance(v, ExternalRef):
            if v.type == QUEUE and v.id in b.external and v.attr in _QUEUE_ATTRS:
                return v.id, None
            return None, None
        if isinstance(v, Text):
            queues = {p.id for p in v.refs() if b.res.get(p.id, {}).get("Type") == QUEUE}
            if len(queues) == 1:
                return next(iter(queues)), None
            last = v.parts[-1]
            text = str(v)
            if queues or not isinstance(last, str) or not _sqs_like(text):
                return None, None
            name = re.split(r"[/:]", last)[-1]
            if name in b.queues_by_name:
                return b.queues_by_name[name], None
            return (None, QueueRef("name", name, loc)) if queue_name_of(name) else (None, None)
        if isinstance(v, Unknown):
            if hint and "ImportValue" in str(v):
                return None, QueueRef("name", str(v), loc)
            return None, None
        if isinstance(v, str):
            s = v.strip()
            kind = "url" if s.startswith(("https://", "http://")) else "arn" if s.startswith("arn:") else None
            if kind and _sqs_like(s):
                name = queue_name_of(s)
                if name is None:
                    return None, None
                if name in b.queues_by_name:
                    return b.queues_by_name[name], None
                return None, QueueRef(kind, s, loc)
            if s in b.queues_by_name:
                return b.queues_by_name[s], None
        return None, None

    def ssm_queue(self, pid: str, loc: Location) -> tuple[str | None, QueueRef | None]:
        path = ["Resources", pid, "Properties", "Value"]
        raw = self.b.props(pid).get("Value")
        v = self.value(raw, path)
        if isinstance(v, ResRef) and self.b.res.get(v.id, {}).get("Type") == SSM_PARAMETER:
            return None, None  # a parameter naming a parameter: not followed
        return self.queue_of(v, loc)

    def tags(self, c: Consumer, raw: Any, path: list) -> None:
        """The declared processing time: tag ``visguard.io/processing-p99`` (list of Key/Value, or a map)."""
        v = self.value(raw, path)
        pairs: list[tuple[Any, Any, list]] = []
        if isinstance(v, dict):
            pairs = [(k, x, [*path, k]) for k, x in v.items()]
        elif isinstance(v, list):
            pairs = [
                (t.get("Key"), t.get("Value"), [*path, i, "Value"])
                for i, t in enumerate(_items(v))
                if isinstance(t, dict)
            ]
        for key, val, at in pairs:
            field = {PROCESSING_P99_KEY: "processing_p99", PROCESSING_P50_KEY: "processing_p50"}.get(key)
            if field is None:
                continue
            seconds = parse_duration(val)
            if seconds is None:
                self.note(
                    f"tag {key} of consumer {c.id} is not a duration ({str(val)[:40]!r}; write e.g. 20m, 90s "
                    "or 600): its processing time was not read",
                    at,
                    c.id,
                )
                continue
            setattr(c, field, seconds)
            c.locations[field] = self.b.loc(at)

    def attach(self, qid: str | None, ref: QueueRef | None, c: Consumer, lid: str) -> None:
        if qid is not None:
            self.b.attach(qid, c, lid, ["Resources", lid])
        elif ref is not None:
            c.queue_ref = ref
            self.model.pending.append(c)

    # ------------------------------------------------------------------ ECS
    def task_definition(self, lid: str) -> None:
        b = self.b
        base = ["Resources", lid, "Properties"]
        p = b.props(lid)
        containers = self.value(p.get("ContainerDefinitions"), [*base, "ContainerDefinitions"])
        # queue key (id or reference) -> {"links": [(link, ref, loc)], "containers": [index], "ref": QueueRef}
        found: dict[Any, dict] = {}
        role = self.role_of(self.value(p.get("TaskRoleArn"), [*base, "TaskRoleArn"]))
        access = self.role_access(role) if role else {}
        for i, cd in enumerate(_items(containers)):
            if not isinstance(cd, dict):
                continue
            cpath = [*base, "ContainerDefinitions", i]
            for kind, key, vkey in (("env", "Environment", "Value"), ("secret", "Secrets", "ValueFrom")):
                for j, e in enumerate(_items(cd.get(key))):
                    if not isinstance(e, dict) or not isinstance(e.get("Name"), str) or vkey not in e:
                        continue
                    at = [*cpath, key, j, vkey]
                    loc = b.loc(at)
                    number = setting_number(e["Name"], e[vkey]) if kind == "env" else None
                    if number is not None:  # a setting's number, for code that reads it from the variable
                        self.model.env.append(EnvBinding(e["Name"], lid, location=loc, number=number))
                        continue
                    qid, ref = self.queue_of(e[vkey], loc, hint=bool(_QUEUE_HINT.search(e["Name"])))
                    if qid is None and ref is None:
                        continue
                    if kind == "env":
                        self.model.env.append(EnvBinding(e["Name"], lid, qid, ref, loc))
                    if qid is not None and access.get(qid, (None,))[0] is False:
                        continue  # the task role only sends to this queue: a producer
                    slot = found.setdefault(qid if qid is not None else (ref.kind, ref.value), {"links": []})
                    slot["links"].append((kind, e["Name"], loc))
                    slot.setdefault("containers", set()).add(i)
                    slot["ref"] = ref
        for qid, (receive, loc) in access.items():
            if receive:
                slot = found.setdefault(qid, {"links": []})
                slot["links"].append(("iam", role, loc))
                slot.setdefault("containers", set()).update(range(len(_items(containers))))
                slot["ref"] = None
        if not found:
            return
        services = self.services_of(lid)
        for key, slot in found.items():
            link, link_ref, loc = slot["links"][0]
            c = Consumer(
                id=lid, kind="worker", location=b.loc(["Resources", lid]), platform="ecs",
                source=b.source, link=link, link_ref=link_ref, heartbeat=None,
            )  # fmt: skip
            c.locations["link"] = loc
            if all(
                k != "iam" for k, _, _ in slot["links"]
            ):  # given the queue, not granted receiving: does its
                # code receive? (the join asks: visguard.linter.receiving)
                c.settings["images"] = [
                    cd["Image"] for i, cd in enumerate(_items(containers))
                    if i in slot["containers"] and isinstance(cd, dict) and isinstance(cd.get("Image"), str)
                ]  # fmt: skip
            self.stop_timeout(c, containers, sorted(slot["containers"]), base)
            self.command(c, containers, sorted(slot["containers"]), base, lid)
            self.scaling(c, services)
            self.capacity(c, p, base, services)
            self.tags(c, p.get("Tags"), [*base, "Tags"])
            qid = key if isinstance(key, str) else None
            self.attach(qid, slot["ref"] if qid is None else None, c, lid)

    def stop_timeout(self, c: Consumer, containers: Any, indexes: list[int], base: list) -> None:
        """The largest StopTimeout of the containers that get the queue (a container without one has the
        default); located at it, or at the first such container (where a fix adds it)."""
        best, best_at, undeclared = None, None, None
        for i in indexes:
            cd = containers[i] if isinstance(containers, list) and i < len(containers) else None
            if not isinstance(cd, dict):
                continue
            at = [*base, "ContainerDefinitions", i]
            if "StopTimeout" not in cd:
                undeclared = undeclared or at
                continue
            v = self.number(cd["StopTimeout"], [*at, "StopTimeout"], c, "the StopTimeout")
            if v is None:
                return  # not known here: the default is not assumed
            if best is None or v > best:
                best, best_at = v, [*at, "StopTimeout"]
        if best is not None and (undeclared is None or best >= facts.DEFAULT_ECS_STOP_TIMEOUT):
            c.stop_timeout = best
            c.locations["stop_timeout"] = self.b.loc(best_at)
        elif undeclared is not None:
            c.locations["stop_timeout"] = self.b.loc(undeclared)

    def capacity(self, c: Consumer, p: dict, base: list, services: list[str]) -> None:
        """Where the tasks run (issue 36): ``settings["capacity"]`` (EC2, FARGATE, EXTERNAL, MANAGED_INSTANCES) from
        the service's LaunchType, else its CapacityProviderStrategy (FARGATE/FARGATE_SPOT, or a capacity provider of
        this template with ManagedInstancesProvider or AutoScalingGroupProvider), else the task definition's one
        RequiresCompatibilities value; ``settings["compatibilities"]``: that list as written. Located under
        ``capacity``; left unset when not known here."""
        b = self.b
        raw = self.value(p.get("RequiresCompatibilities"), [*base, "RequiresCompatibilities"])
        compat = [v.upper() for v in _items(raw) if isinstance(v, str)] if isinstance(raw, list) else []
        if compat:
            c.settings["compatibilities"] = compat
        found, at = None, None
        for sid in services[:1]:
            sbase = ["Resources", sid, "Properties"]
            sp = b.props(sid)
            launch = self.value(sp.get("LaunchType"), [*sbase, "LaunchType"])
            if isinstance(launch, str) and launch.upper() in facts.ECS_CAPACITY_TYPES:
                found, at = launch.upper(), [*sbase, "LaunchType"]
                break
            strategy = self.value(sp.get("CapacityProviderStrategy"), [*sbase, "CapacityProviderStrategy"])
            kinds = {
                self.provider_kind(item.get("CapacityProvider"))
                for item in _items(strategy)
                if isinstance(item, dict)
            }
            if len(kinds) == 1 and None not in kinds:
                found, at = kinds.pop(), [*sbase, "CapacityProviderStrategy"]
        if found is None and len(set(compat)) == 1 and compat[0] in facts.ECS_CAPACITY_TYPES:
            found, at = compat[0], [*base, "RequiresCompatibilities"]
        if found is not None:
            c.settings["capacity"] = found
            c.locations["capacity"] = b.loc(at)

    def provider_kind(self, v: Any) -> str | None:
        """The capacity type of a strategy's capacity provider: FARGATE for Fargate's own, the kind of a
        capacity provider of this template (by reference or its Name), None when not known here."""
        v = v.refs()[0] if isinstance(v, Text) and len(v.refs()) == 1 else v
        pid = None
        if isinstance(v, ResRef) and self.b.res.get(v.id, {}).get("Type") == CAPACITY_PROVIDER:
            pid = v.id
        elif isinstance(v, str):
            if v.upper() in facts.ECS_FARGATE_PROVIDERS:
                return "FARGATE"
            pid = next((lid for lid, r in self.b.res.items() if r["Type"] == CAPACITY_PROVIDER
                        and self.b.props(lid).get("Name") == v), None)  # fmt: skip
        if pid is None:
            return None
        props = self.b.props(pid)
        if "ManagedInstancesProvider" in props:
            return "MANAGED_INSTANCES"
        return "EC2" if "AutoScalingGroupProvider" in props else None

    def command(self, c: Consumer, containers: Any, indexes: list[int], base: list, lid: str) -> None:
        """The worker the first container with a ``Command`` starts (``EntryPoint`` + ``Command``, exec form):
        its framework's settings onto the consumer (visguard.linter.loaders.commandline)."""
        for i in indexes:
            cd = containers[i] if isinstance(containers, list) and i < len(containers) else None
            if not isinstance(cd, dict) or "Command" not in cd:
                continue
            at = [*base, "ContainerDefinitions", i]
            words: list = []
            for key in ("EntryPoint", "Command"):
                v = self.value(cd[key], [*at, key]) if key in cd else []
                if not isinstance(v, list) or not all(isinstance(w, str) for w in v):
                    words = None  # computed (a parameter, a Sub): not known here
                    break
                words += v
            if words is None:
                continue
            from visguard.linter.loaders import commandline

            for problem in commandline.settle(c, words, self.b.loc([*at, "Command"])):
                self.note(f"{lid}: {problem}", [*at, "Command"], lid)
            if (
                "framework" in c.settings
            ):  # else a sidecar's: the next container's command may start the worker
                return

    def role_of(self, v: Any) -> str | None:
        if isinstance(v, Text):
            refs = v.refs()
            v = refs[0] if len(refs) == 1 else None
        if isinstance(v, ResRef) and self.b.res.get(v.id, {}).get("Type") == ROLE and v.attr in (None, "Arn"):
            return v.id
        return None

    def grants(self) -> dict[str, list[tuple[dict, list]]]:
        """Role id -> (statement, its path) of every policy attached to it in this template (computed once)."""
        if self._grants is not None:
            return self._grants
        b, out = self.b, {}
        managed: dict[str, list] = {}
        for lid, res in b.res.items():
            t = res["Type"]
            if t not in (ROLE, POLICY, MANAGED_POLICY):
                continue
            base = ["Resources", lid, "Properties"]
            p = b.props(lid)
            if t == ROLE:
                for i, pol in enumerate(_items(p.get("Policies"))):
                    if isinstance(pol, dict):
                        doc = [*base, "Policies", i, "PolicyDocument"]
                        out.setdefault(lid, []).extend(self.statements(pol.get("PolicyDocument"), doc))
                continue
            stmts = self.statements(p.get("PolicyDocument"), [*base, "PolicyDocument"])
            if t == MANAGED_POLICY:
                managed[lid] = stmts
            for role in _as_list(self.value(p.get("Roles"), [*base, "Roles"])):
                if isinstance(role, ResRef) and b.res.get(role.id, {}).get("Type") == ROLE:
                    out.setdefault(role.id, []).extend(stmts)
        for lid, res in b.res.items():
            if res["Type"] == ROLE:
                arns = self.value(b.props(lid).get("ManagedPolicyArns"), ["Resources", lid, "Properties"])
                for a in _items(arns):
                    if isinstance(a, ResRef) and a.id in managed:
                        out.setdefault(lid, []).extend(managed[a.id])
        self._grants = out
        return out

    def statements(self, raw: Any, path: list) -> list[tuple[dict, list]]:
        doc = self.value(raw, path)
        if isinstance(doc, str):
            try:
                doc = json.loads(doc)
            except ValueError:
                return []
        stmts = doc.get("Statement") if isinstance(doc, dict) else None
        if isinstance(stmts, dict):
            return [(stmts, [*path, "Statement"])]
        return [(s, [*path, "Statement", i]) for i, s in enumerate(_items(stmts)) if isinstance(s, dict)]

    def role_access(self, role: str) -> dict[str, tuple[bool, Location]]:
        """Queue id -> (the role may receive from it, where) for the queues its policies name (not ``*``)."""
        out: dict[str, tuple[bool, Location]] = {}
        for stmt, path in self.grants().get(role, []):
            if stmt.get("Effect") != "Allow" or "Action" not in stmt:
                continue
            actions = [a.lower() for a in _as_list(stmt.get("Action")) if isinstance(a, str)]
            if not any(a == "*" or a.startswith("sqs:") for a in actions):
                continue
            receive = any(fnmatch.fnmatchcase("sqs:receivemessage", a) for a in actions)
            for res in _as_list(stmt.get("Resource")):
                if isinstance(res, str) and "*" in res:
                    continue  # a wildcard names no one queue
                qid, _ = self.b.queue_target(res, arn_attr=True)
                if qid is not None and qid in self.model.queues:
                    was = out.get(qid)
                    if was is None or (receive and not was[0]):
                        out[qid] = (receive, self.b.loc(path))
        return out

    # ------------------------------------------------------------------ a role granted receiving
    def role(self, lid: str) -> None:
        """An ``AWS::IAM::Role`` whose trust policy lets an ECS task or a Kubernetes pod assume it (EKS Pod
        Identity, or IRSA's web identity), that may ``sqs:ReceiveMessage`` on a queue of the template, and that
        no other resource of the template uses: its workload is deployed by another tool (ecspresso, Copilot, a
        Helm chart) and consumes the queue (issue 35 §5: its IAM grants receiving). One worker consumer per
        queue, located at the grant, with nothing known of its settings (a note says so)."""
        platform = role_platform(self.b.res[lid])
        if platform is None or lid in self.used_roles():
            return
        for qid, (receive, loc) in self.role_access(lid).items():
            if not receive:
                continue
            c = Consumer(
                id=lid, kind="worker", location=loc, platform=platform, source=self.b.source,
                link="iam", link_ref=lid, heartbeat=None,
            )  # fmt: skip
            c.locations["link"] = loc
            c.settings["assumed_by_other_tool"] = True
            self.model.notes.append(
                Note(
                    f"consumer {lid} of {qid} is the {platform} workload that assumes role {lid}, declared "
                    "elsewhere: its stop timeout, work limit and receive settings were not checked",
                    loc,
                    lid,
                    fix=f"Lint the files that declare that workload together with this template (its task "
                    "definition or manifests), or declare its processing time in a worker profile in "
                    f"visguard.yaml (profiles: [{{match: {qid}, kind: worker, p99: ...}}]).",
                )
            )
            self.b.attach(qid, c, lid, ["Resources", lid])

    def used_roles(self) -> set[str]:
        """Roles another resource of the template names (not a policy attaching to it): their user is read
        where it is declared (a task definition's TaskRoleArn, a function's Role, a pipe's RoleArn)."""
        if self._used is None:
            from .cfn import _refs_in

            out: set[str] = set()
            for res in self.b.res.values():
                if res.get("Type") not in (ROLE, POLICY, MANAGED_POLICY):
                    _refs_in(res.get("Properties"), out, self.b.res)
            self._used = out
        return self._used

    def services_of(self, lid: str) -> list[str]:
        out = []
        for sid, res in self.b.res.items():
            if res["Type"] == SERVICE:
                path = ["Resources", sid, "Properties", "TaskDefinition"]
                v = self.value(self.b.props(sid).get("TaskDefinition"), path)
                if isinstance(v, ResRef) and v.id == lid:
                    out.append(sid)
        return out

    def scaling(self, c: Consumer, services: list[str]) -> None:
        b = self.b
        for sid in services[:1]:
            base = ["Resources", sid, "Properties"]
            if "DesiredCount" in b.props(sid):
                v = b.integer(b.props(sid)["DesiredCount"], [*base, "DesiredCount"])
                if v is not None:
                    c.settings["desired_count"] = v
                    c.locations["desired_count"] = b.loc([*base, "DesiredCount"])
            for tid, res in b.res.items():
                if res["Type"] != SCALABLE_TARGET:
                    continue
                tbase = ["Resources", tid, "Properties"]
                tp = b.props(tid)
                rid = self.value(tp.get("ResourceId"), [*tbase, "ResourceId"])
                refs = rid.refs() if isinstance(rid, Text) else [rid] if isinstance(rid, ResRef) else []
                dim = self.value(tp.get("ScalableDimension"), [*tbase, "ScalableDimension"])
                if (
                    dim == "ecs:service:DesiredCount"
                    and any(r.id == sid for r in refs)
                    and "MaxCapacity" in tp
                ):
                    v = b.integer(tp["MaxCapacity"], [*tbase, "MaxCapacity"])
                    if v is not None:
                        c.settings["max_count"] = v
                        c.locations["max_count"] = b.loc([*tbase, "MaxCapacity"])
        for key in ("max_count", "desired_count"):
            if key in c.settings:
                c.concurrency = c.settings[key]
                c.locations["concurrency"] = c.locations[key]
                break

    # ------------------------------------------------------------------ Elastic Beanstalk
    def beanstalk(self, lid: str) -> None:
        b = self.b
        base = ["Resources", lid, "Properties"]
        p = b.props(lid)
        tier = self.value(p.get("Tier"), [*base, "Tier"])
        worker = isinstance(tier, dict) and str(tier.get("Name", "")).lower() == "worker"
        opts: dict[str, tuple[Any, list]] = {}  # option -> (raw value, path); the environment's win
        env_vars: list[tuple[str, Any, list]] = []
        add_at = [*base, "OptionSettings"] if "OptionSettings" in p else ["Resources", lid]
        tmpl = self.value(p.get("TemplateName"), [*base, "TemplateName"])
        sources = []
        if isinstance(tmpl, ResRef) and b.res.get(tmpl.id, {}).get("Type") == EB_TEMPLATE:
            tbase = ["Resources", tmpl.id, "Properties"]
            sources.append((b.props(tmpl.id).get("OptionSettings"), [*tbase, "OptionSettings"]))
        sources.append((p.get("OptionSettings"), [*base, "OptionSettings"]))
        for raw, path in sources:
            for i, o in enumerate(_items(self.value(raw, path))):
                if not isinstance(o, dict) or not isinstance(o.get("OptionName"), str) or "Value" not in o:
                    continue
                ns = o.get("Namespace")
                if ns == facts.SQSD_NAMESPACE:
                    opts[o["OptionName"]] = (o["Value"], [*path, i, "Value"])
                elif ns == ENV_NAMESPACE:
                    env_vars.append((o["OptionName"], o["Value"], [*path, i, "Value"]))
        for name, v, at in env_vars:
            loc = b.loc(at)
            qid, ref = self.queue_of(v, loc)
            if qid is not None or ref is not None:
                self.model.env.append(EnvBinding(name, lid, qid, ref, loc))
        if not worker and not opts:
            return
        if "WorkerQueueURL" not in opts:
            self.note(
                f"Beanstalk worker environment {lid} sets no WorkerQueueURL: Elastic Beanstalk creates its queue "
                "(and a dead-letter queue); that queue is not in this template and was not checked",
                ["Resources", lid],
                lid,
            )
            return
        raw, at = opts.pop("WorkerQueueURL")
        qid, ref = self.queue_of(self.value(raw, at), b.loc(at))
        if qid is None and ref is None:
            self.note(
                f"the WorkerQueueURL of Beanstalk worker environment {lid} names no queue visguard can read: "
                "it was not checked",
                at,
                lid,
            )
            return
        read: dict[str, tuple[Any, Location]] = {}
        for option, (raw_v, path) in opts.items():
            if option in facts.SQSD_OPTIONS:
                v = self.value(raw_v, path)
                try:
                    n = values.number(v, unknown=_UNKNOWN)
                except values.BadValue as exc:
                    raise b.r.error(exc.quoted(), path) from None
                read[option] = (n, b.loc(path))
        c, notes = sqsd_consumer(lid, read, b.loc(["Resources", lid]), b.source, b.loc(add_at))
        c.locations["link"] = b.loc(at)
        self.model.notes.extend(notes)
        self.tags(c, p.get("Tags"), [*base, "Tags"])
        self.attach(qid, ref, c, lid)

    # ------------------------------------------------------------------ EventBridge Pipes
    def pipe(self, lid: str) -> None:
        b = self.b
        base = ["Resources", lid, "Properties"]
        p = b.props(lid)
        src = self.value(p.get("Source"), [*base, "Source"])
        if isinstance(src, (list, dict, bool)) or src is None:
            return
        qid, ref = self.queue_of(src, b.loc([*base, "Source"]))
        if qid is None and ref is None:
            return  # a stream, a broker: not a queue
        c = Consumer(
            id=lid, kind="worker", location=b.loc(["Resources", lid]), platform="pipes", source=b.source,
            link="source", link_ref="Source", heartbeat=False, batch_size=facts.DEFAULT_PIPES_BATCH_SIZE,
        )  # fmt: skip
        c.locations["link"] = b.loc([*base, "Source"])
        sp = self.value(p.get("SourceParameters"), [*base, "SourceParameters"])
        sqs = sp.get("SqsQueueParameters") if isinstance(sp, dict) else None
        spath = [*base, "SourceParameters", "SqsQueueParameters"]
        if isinstance(sqs, dict):
            if "BatchSize" in sqs:
                c.batch_size = b.integer(sqs["BatchSize"], [*spath, "BatchSize"])
                c.locations["batch_size"] = b.loc([*spath, "BatchSize"])
            if "MaximumBatchingWindowInSeconds" in sqs:
                w = spath + ["MaximumBatchingWindowInSeconds"]
                c.batching_window = self.number(
                    sqs["MaximumBatchingWindowInSeconds"], w, c, "the batching window"
                )
                c.locations["batching_window"] = b.loc(w)
        if "DesiredState" in p:
            state = self.value(p["DesiredState"], [*base, "DesiredState"])
            c.enabled = state != "STOPPED"
            c.locations["enabled"] = b.loc([*base, "DesiredState"])
        tp = self.value(p.get("TargetParameters"), [*base, "TargetParameters"])
        target = self.pipe_step(
            c, "target", p.get("Target"), [*base, "Target"], tp if isinstance(tp, dict) else {}
        )
        parts = [target]
        if "Enrichment" in p:
            parts.append(self.pipe_step(c, "enrichment", p["Enrichment"], [*base, "Enrichment"], {}))
        if all(x is not None for x in parts):
            c.work_timeout = sum(parts)
            where = c.locations.get("target_timeout") or c.locations.get("enrichment_timeout")
            if where is not None:
                c.locations["work_timeout"] = where
        self.tags(c, p.get("Tags"), [*base, "Tags"])
        self.attach(qid, ref, c, lid)

    def pipe_step(self, c: Consumer, role: str, raw: Any, path: list, params: dict) -> float | None:
        """Seconds one call of a pipe's target (or enrichment) may take: a Lambda function's timeout (default
        3 s), an Express state machine's 5 minutes, an API destination's 5 s, 0 for an asynchronous call
        (FIRE_AND_FORGET) or another AWS service; None when not known here (noted)."""
        b = self.b
        v = self.value(raw, path)
        c.locations[f"{role}_timeout"] = b.loc(path)
        if isinstance(v, Text):
            refs = v.refs()
            v = refs[0] if len(refs) == 1 else str(v)
        invocation = None
        for key in ("LambdaFunctionParameters", "StepFunctionStateMachineParameters"):
            if isinstance(params.get(key), dict):
                invocation = params[key].get("InvocationType")
        if invocation == "FIRE_AND_FORGET":
            c.settings[f"{role}_kind"] = "asynchronous"
            c.settings[f"{role}_timeout"] = 0
            return 0
        kind, seconds, at = None, None, None
        if isinstance(v, ResRef):
            rtype = b.res.get(v.id, {}).get("Type")
            if rtype in LAMBDA_TYPES or rtype in ("AWS::Lambda::Alias", "AWS::Lambda::Version"):
                fid, _ = b.function_of(raw, path, [])
                kind, seconds, at = "lambda", *self.function_timeout(c, fid)
            elif rtype in (STATE_MACHINE, SAM_STATE_MACHINE):
                key = "Type" if rtype == SAM_STATE_MACHINE else "StateMachineType"  # SAM names it Type
                smt = self.value(b.props(v.id).get(key), ["Resources", v.id, "Properties", key])
                kind = "express" if smt == "EXPRESS" else "standard"
                seconds = facts.STEP_FUNCTIONS_EXPRESS_MAX if kind == "express" else None
            elif rtype == API_DESTINATION:
                kind, seconds = "api-destination", facts.API_DESTINATION_TIMEOUT
            else:
                kind, seconds = "service", 0
        elif isinstance(v, str) and v.startswith("arn:"):
            service = v.split(":")[2] if v.count(":") >= 2 else ""
            if service == "lambda":
                fid = b.functions_by_name().get(values.function_name(v))
                kind, seconds, at = "lambda", *(self.function_timeout(c, fid) if fid else (None, None))
            elif service == "events" and ":api-destination/" in v:
                kind, seconds = "api-destination", facts.API_DESTINATION_TIMEOUT
            elif service == "states":
                kind = "state-machine"
            else:
                kind, seconds = "service", 0
        c.settings[f"{role}_kind"] = kind
        if seconds is None:
            what = f"the {role} of pipe {c.id}"
            self.note(f"{what} is not a Lambda function, Express state machine or API destination of this "
                      "template: its time per batch is not known here", path, c.id)  # fmt: skip
            return None
        c.settings[f"{role}_timeout"] = seconds
        if at is not None:
            c.locations[f"{role}_timeout"] = at
        return seconds

    def function_timeout(self, c: Consumer, fid: str | None) -> tuple[float | None, Location | None]:
        if fid is None:
            return None, None
        fp = self.b.props(fid)
        path = ["Resources", fid, "Properties", "Timeout"]
        if "Timeout" not in fp:
            return facts.DEFAULT_LAMBDA_TIMEOUT, self.b.loc(["Resources", fid])
        return self.number(fp["Timeout"], path, c, f"the Timeout of function {fid}"), self.b.loc(path)

    # ------------------------------------------------------------------ SNS
    def subscription(self, lid: str) -> None:
        b = self.b
        base = ["Resources", lid, "Properties"]
        p = b.props(lid)
        if self.value(p.get("Protocol"), [*base, "Protocol"]) != "sqs":
            return
        qid, _ = self.queue_of(self.value(p.get("Endpoint"), [*base, "Endpoint"]), b.loc([*base, "Endpoint"]))
        if qid is None or qid not in self.model.queues:
            return
        s = Subscription(id=lid, location=b.loc(["Resources", lid]), source=b.source)
        s.locations["queue"] = b.loc([*base, "Endpoint"])
        self.topic(s, p.get("TopicArn"), [*base, "TopicArn"])
        if "RawMessageDelivery" in p:
            s.raw_delivery = b.boolean(p["RawMessageDelivery"], [*base, "RawMessageDelivery"])
            s.locations["raw_delivery"] = b.loc([*base, "RawMessageDelivery"])
        if "RedrivePolicy" in p:
            self.sub_redrive(s, p["RedrivePolicy"], [*base, "RedrivePolicy"])
        self.model.queues[qid].subscriptions.append(s)

    def topic(self, s: Subscription, raw: Any, path: list) -> None:
        b = self.b
        v = self.value(raw, path)
        s.locations["topic"] = b.loc(path)
        if isinstance(v, ResRef) and b.res.get(v.id, {}).get("Type") == TOPIC:
            s.topic = v.id
            tp = b.props(v.id)
            fifo_path = ["Resources", v.id, "Properties", "FifoTopic"]
            s.topic_fifo = bool(b.boolean(tp["FifoTopic"], fifo_path)) if "FifoTopic" in tp else False
            if "FifoTopic" in tp:
                s.locations["topic_fifo"] = b.loc(fifo_path)
        elif v is not None:
            s.topic = str(v)
            if isinstance(v, str):
                s.topic_fifo = v.endswith(".fifo")

    def sub_redrive(self, s: Subscription, raw: Any, path: list) -> None:
        v = self.b.policy(raw, path, "RedrivePolicy")
        s.locations["redrive"] = self.b.loc(path)
        if not isinstance(v, dict):
            s.redrive_ref = str(v) if v is not None else None
            return
        target = v.get("deadLetterTargetArn")
        if target is None:
            return
        tv = (
            self.value(target, [*path, "deadLetterTargetArn"])
            if not isinstance(target, (ResRef, Text))
            else target
        )
        s.redrive, s.redrive_ref = self.b.queue_target(tv, arn_attr=True)
        s.locations["redrive.target"] = self.b.loc([*path, "deadLetterTargetArn"])

    # ------------------------------------------------------------------ a function's environment (issue 35)
    def function_environment(self, lid: str) -> None:
        """``Environment.Variables`` that name a queue bind the code of the function's package (its ``CodeUri``
        or ``Code`` as a local path, relative to the template: :mod:`.lambda_code`), which may receive with the
        SDK from them: an :class:`EnvBinding` with the function, its ``Timeout`` (default 3 s) and its handler's
        file. A package in S3, an image or inline code binds nothing."""
        b = self.b
        p = b.props(lid)
        base = ["Resources", lid, "Properties"]
        env = self.value(p.get("Environment"), [*base, "Environment"])
        variables = env.get("Variables") if isinstance(env, dict) else None
        if not isinstance(variables, dict) or not variables:
            return
        from . import lambda_code

        key = "CodeUri" if "CodeUri" in p else "Code"
        code = self.value(p.get(key), [*base, key])
        if not isinstance(code, str) or code.startswith("s3://") or not b.file:
            return
        folder = lambda_code.code_folder(code, os.path.dirname(os.path.abspath(b.file)))
        if folder is None:
            return
        handler = self.value(p.get("Handler"), [*base, "Handler"])
        handler = handler if isinstance(handler, str) else None
        timeout = self.value(p.get("Timeout"), [*base, "Timeout"])
        try:
            timeout = values.number(timeout, unknown=_UNKNOWN)
        except values.BadValue:
            timeout = None  # the builder reports it (the function's own reading)
        timeout = facts.DEFAULT_LAMBDA_TIMEOUT if timeout is None else timeout
        for name in list(variables)[:MAX_ITEMS]:
            at = [*base, "Environment", "Variables", name]
            loc = b.loc(at)
            qid, ref = self.queue_of(
                self.value(variables[name], at), loc, hint=bool(_QUEUE_HINT.search(str(name)))
            )
            if qid is None and ref is None:
                continue
            self.model.env.append(
                EnvBinding(
                    str(name), workload=lid, queue=qid, ref=ref, location=loc, folder=folder, function=lid,
                    function_timeout=timeout if isinstance(timeout, (int, float)) else None,
                    timeout_location=b.loc([*base, "Timeout"]) if "Timeout" in p else None, handler=handler,
                    handler_file=lambda_code.handler_file(handler, folder) if handler else None,
                )
            )  # fmt: skip

    def sam_subscriptions(self, lid: str) -> None:
        """SAM: an SNS event with ``SqsSubscription`` subscribes a queue (its own, or the one it names)."""
        b = self.b
        events = b.props(lid).get("Events")
        if not isinstance(events, dict) or lid in b.model.queues:
            return
        for name, ev in events.items():
            if (
                not isinstance(ev, dict)
                or ev.get("Type") != "SNS"
                or not isinstance(ev.get("Properties"), dict)
            ):
                continue
            ep = ev["Properties"]
            epath = ["Resources", lid, "Properties", "Events", name, "Properties"]
            sub = self.value(ep.get("SqsSubscription"), [*epath, "SqsSubscription"])
            if isinstance(sub, dict):
                qid, _ = b.queue_target(sub.get("QueueArn"), arn_attr=True)
            elif sub is True or (isinstance(sub, str) and sub.strip().lower() == "true"):
                qid = f"{lid}{name}Queue"
            else:
                continue
            if qid not in self.model.queues:
                continue
            s = Subscription(id=f"{lid}/{name}", location=b.loc(epath[:-1]), source=b.source)
            s.locations["queue"] = b.loc([*epath, "SqsSubscription"])
            self.topic(s, ep.get("Topic"), [*epath, "Topic"])
            if "RedrivePolicy" in ep:
                self.sub_redrive(s, ep["RedrivePolicy"], [*epath, "RedrivePolicy"])
            self.model.queues[qid].subscriptions.append(s)


def role_platform(res: dict) -> str | None:
    """The platform of the workload an ``AWS::IAM::Role``'s trust policy (as written) lets assume it: ``ecs``
    (``ecs-tasks.amazonaws.com``), ``kubernetes`` (EKS Pod Identity, or ``sts:AssumeRoleWithWebIdentity`` of a
    federated OIDC provider: IRSA); None for any other or a trust policy not written out."""
    props = res.get("Properties")
    doc = props.get("AssumeRolePolicyDocument") if isinstance(props, dict) else None
    stmts = doc.get("Statement") if isinstance(doc, dict) else None
    for st in [stmts] if isinstance(stmts, dict) else _items(stmts):
        if not isinstance(st, dict) or st.get("Effect") != "Allow":
            continue
        principal = st.get("Principal")
        if not isinstance(principal, dict):
            continue
        for svc in _as_list(principal.get("Service")):
            if isinstance(svc, str) and svc in _ROLE_PLATFORMS:
                return _ROLE_PLATFORMS[svc]
        actions = [a for a in _as_list(st.get("Action")) if isinstance(a, str)]
        if principal.get("Federated") is not None and "sts:AssumeRoleWithWebIdentity" in actions:
            return "kubernetes"
    return None


def _sqs_like(text: str) -> bool:
    """An SQS queue URL or ARN (``sqs.<region>.amazonaws.com``, ``queue.amazonaws.com``, ``:sqs:``, a local
    endpoint with a 12-digit account)."""
    if text.startswith("arn:"):
        return ":sqs:" in text
    host = text.split("//", 1)[-1].split("/", 1)[0]
    return "sqs" in host or host.startswith("queue.") or bool(re.search(r"//[^/]+/\d{12}/", text))


# ---------------------------------------------------------------------------------------------- sqsd
def sqsd_consumer(
    cid: str, options: dict[str, tuple[Any, Location]], location: Location, source: str, add_at: Location
) -> tuple[Consumer, list[Note]]:
    """The worker consumer of a Beanstalk worker environment from its ``aws:elasticbeanstalk:sqsd`` options
    (option name -> (number, or the text of a value not known here; where it is written)). An option not set
    takes sqsd's documented default (facts.SQSD_OPTIONS), located at ``add_at`` (where a fix adds it) and listed
    in ``settings["defaults"]``. sqsd's VisibilityTimeout is the visibility in effect; InactivityTimeout bounds one
    message's work (``work_timeout``); HttpConnections is the concurrency per instance; no heartbeat (the
    application never sees a receipt handle)."""
    c = Consumer(
        id=cid, kind="worker", location=location, platform="beanstalk", source=source, link="source",
        link_ref="WorkerQueueURL", heartbeat=False,
    )  # fmt: skip
    notes: list[Note] = []
    defaults = []
    for option, (field, default, _range) in facts.SQSD_OPTIONS.items():
        if option in options:
            v, loc = options[option]
        else:
            v, loc = default, add_at
            defaults.append(field)
        if v is not None and not isinstance(v, (int, float)):
            notes.append(Note(f"sqsd {option} of worker environment {cid} is {v}, not known here: it was not "
                              "checked", loc, cid))  # fmt: skip
            c.settings.setdefault("unknown", []).append(field)
            v = None
        c.locations[field] = loc
        if field == "visibility_override":
            c.visibility_override = v
        else:
            c.settings[field] = v
    c.settings["defaults"] = defaults
    c.work_timeout = c.settings["inactivity_timeout"]
    c.locations["work_timeout"] = c.locations["inactivity_timeout"]
    c.concurrency = c.settings["http_connections"]
    c.locations["concurrency"] = c.locations["http_connections"]
    return c, notes
