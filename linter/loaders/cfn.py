"""A CloudFormation (or SAM) template -> the shared :class:`~visguard.linter.model.Model`.

Read: ``AWS::SQS::Queue``; ``AWS::Lambda::EventSourceMapping`` whose source is one of those queues;
``AWS::Lambda::Function``, ``AWS::Lambda::Alias`` and ``AWS::Lambda::Version`` to find the function behind a
mapping; SAM ``AWS::Serverless::Function`` with ``Events`` of type ``SQS`` (see ``sam.py``).

Properties and their AWS defaults come from the CloudFormation resource references
(https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-sqs-queue.html,
.../aws-resource-lambda-eventsourcemapping.html, .../aws-resource-lambda-function.html). CloudFormation
accepts numbers written as strings ("600") for integer properties, so they are coerced; a value of the wrong
type (a list, a word) is bad input, an out-of-range number is data for the rules. A value only the deployed
stack knows (``Fn::ImportValue``, a parameter without a default) is kept as a string such as
``${QueueTimeout}``, which the rules treat as "not known here".
"""

from __future__ import annotations

import json
import re

from visguard import facts
from visguard.errors import VisguardError
from visguard.linter.model import Consumer, Location, Model, Queue, Redrive, Suppression

from . import foreach, sam, values
from .decode import locate
from .intrinsics import NOVALUE, ExternalRef, Resolver, ResRef, Text, Unknown, is_intrinsic

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

QUEUE = "AWS::SQS::Queue"
ESM = "AWS::Lambda::EventSourceMapping"
FUNCTION = "AWS::Lambda::Function"
ALIAS = "AWS::Lambda::Alias"
VERSION = "AWS::Lambda::Version"
FUNCTION_TYPES = (FUNCTION, sam.SERVERLESS_FUNCTION)
_UNKNOWN = (Unknown, ResRef, Text)  # values only the deployed stack knows: kept as text, "not known here"


def load_template(
    template: Any,
    *,
    file: str,
    parameters: dict[str, str] | None = None,
    construct_paths: dict[str, str] | None = None,
    source: str | None = None,
    imports: dict[str, Any] | None = None,
    external: dict[str, Queue] | None = None,
) -> Model:
    """Build the model of one template. ``construct_paths`` maps logical ids to CDK construct paths (else
    each resource's ``aws:cdk:path`` metadata is used); ``imports`` resolves ``Fn::ImportValue`` names
    (exports of sibling stacks in a cloud assembly) and ``external`` holds those stacks' queues, so a
    mapping or redrive policy can point at a queue of another stack."""
    if isinstance(template, dict) and foreach.has_foreach(template.get("Resources")):
        template = foreach.expand(template, file=file, parameters=parameters)
    _check_shape(template, file)
    sam_app = sam.is_sam(template)
    # SAM is a transform before the builder: the builder reads plain CloudFormation (sam.py)
    t = sam.transform(template, file=file, parameters=parameters) if sam_app else sam.Transformed(template)
    builder = _Builder(t, template, file, parameters, construct_paths or {}, source, imports)
    builder.source = source or ("sam" if sam_app else "cloudformation")
    builder.external = external or {}
    return builder.build()


def _check_shape(template: Any, file: str) -> None:
    if not isinstance(template, dict):
        what = "empty" if template is None else f"a {type(template).__name__}, not a mapping"
        raise VisguardError(f"not a CloudFormation template: the document is {what}", file=file)
    if "Resources" not in template:
        raise VisguardError("not a CloudFormation template: no Resources section", file=file)
    resources = template["Resources"]
    if not isinstance(resources, dict):
        line = locate(template, ["Resources"])[0]
        raise VisguardError("Resources: must be a mapping", file=file, place=line and str(line))
    for lid, res in resources.items():
        line = locate(template, ["Resources", lid])[0]
        place = line and str(line)
        if not isinstance(lid, str):
            raise VisguardError(f"Resources/{lid}: a logical id must be a string", file=file, place=place)
        if not isinstance(res, dict):
            raise VisguardError(f"Resources/{lid}: a resource must be a mapping", file=file, place=place)
        if not isinstance(res.get("Type"), str):
            raise VisguardError(f"Resources/{lid}: a resource needs a Type string", file=file, place=place)
        for key in ("Properties", "Metadata"):
            if res.get(key) is not None and not isinstance(res[key], dict):
                line = locate(template, ["Resources", lid, key])[0]
                raise VisguardError(
                    f"Resources/{lid}/{key}: must be a mapping", file=file, place=line and str(line)
                )


# The resource types that can make a worker consumer or a subscription (loaders/consumers_cfn.py reads them).
CONSUMER_TYPES = frozenset(
    {
        "AWS::ECS::TaskDefinition",
        "AWS::ElasticBeanstalk::Environment",
        "AWS::Pipes::Pipe",
        "AWS::SNS::Subscription",
        "AWS::Serverless::Function",
        "AWS::Lambda::Function",
        "AWS::IAM::Role",
    }
)
# a role whose trust policy names one of these may be a consumer's (consumers_cfn.role_platform decides)
_WORKLOAD_TRUST = ("ecs-tasks.amazonaws.com", "pods.eks.amazonaws.com", "sts:AssumeRoleWithWebIdentity")
LAMBDA_TYPES = ("AWS::Lambda::Function", "AWS::Serverless::Function")


class _Builder:
    """Builds the model of one CloudFormation template (SAM already transformed: ``transformed.template``);
    every location and error points into ``written``, the template as the user wrote it."""

    def __init__(self, transformed, written, file, parameters, construct_paths, source, imports):
        template = transformed.template
        self.t = template
        self.written = written
        self.translate = transformed.translate
        self.generated = transformed.generated
        self.file = file
        self.r = Resolver(template, file=file, parameters=parameters, imports=imports)
        self.r.translate, self.r.positions = self.translate, written
        for name in self.r.condition_defs:  # CloudFormation validates every condition, used or not
            self.r.condition(name, ["Conditions", name])
        self.r.resources = {
            lid: res for lid, res in self.r.all_resources.items() if self.r.exists(lid) is not False
        }
        self.res = self.r.resources
        self.construct_paths = construct_paths
        self.source = source or "cloudformation"
        self.model = Model(source_file=file)
        self.pending_targets: dict[str, Any] = {}  # queue id -> deadLetterTargetArn, linked after all queues
        self.pending_allow: dict[str, tuple] = {}  # queue id -> (redrivePermission, sourceQueueArns)
        self.external: dict[str, Queue] = {}  # queues of sibling stacks (cloud assembly), by model id
        self._functions_by_name: dict[str, str] | None = None
        _check_cycles(self.res, self.r)

    # ------------------------------------------------------------------ helpers
    def loc(self, path: list) -> Location:
        path = self.translate(path)  # a resource SAM generates points at what the user wrote
        line, col = locate(self.written, path)
        lid = path[1] if len(path) > 1 and path[0] == "Resources" else None
        return Location(
            self.file,
            line=line,
            column=col,
            path="/".join(str(p) for p in path),
            construct_path=self.construct_path(lid) if lid else None,
        )

    def construct_path(self, lid: str) -> str | None:
        if lid in self.construct_paths:
            return self.construct_paths[lid]
        meta = self.res.get(lid, {}).get("Metadata") or {}
        cp = meta.get("aws:cdk:path")
        return cp if isinstance(cp, str) else None

    def may_consume(self, lid: str, rtype: str) -> bool:
        """Whether consumers_cfn can read anything from resource ``lid``: one of CONSUMER_TYPES, and for a
        function only one with ``Events`` (SAM's SNS events with ``SqsSubscription``; a function's own queue
        mapping is read here) or an ``Environment`` for its code in a local folder (``CodeUri``/``Code`` a path):
        a template of queues, functions and mappings imports no consumer reader."""
        if rtype not in CONSUMER_TYPES:
            return False
        if rtype == "AWS::IAM::Role":
            props = self.res[lid].get("Properties")
            trust = repr(props.get("AssumeRolePolicyDocument")) if isinstance(props, dict) else ""
            return any(w in trust for w in _WORKLOAD_TRUST)
        if rtype not in LAMBDA_TYPES:
            return True
        # SNS events with SqsSubscription; an environment for its local code (issue 35)
        props = self.props(lid)
        code = props.get("CodeUri", props.get("Code"))
        return isinstance(props.get("Events"), dict) or (
            "Environment" in props and isinstance(code, str) and not code.startswith("s3://")
        )

    def props(self, lid: str) -> dict:
        path = ["Resources", lid, "Properties"]
        raw = self.res[lid].get("Properties") or {}
        if is_intrinsic(raw):
            raw = self.r.value(raw, path)
            if not isinstance(raw, dict):
                return {}
        return raw

    # settings, read by the one policy of ``values`` (what is a number, what is bad input)
    def read(self, reader, raw: Any, path: list, **kw) -> Any:
        """``reader`` (values.number, integer, boolean, string) of the resolved ``raw``; bad input at ``path``."""
        v = self.r.value(raw, path)
        try:
            return reader(None if v is NOVALUE else v, unknown=_UNKNOWN, **kw)
        except values.BadValue as exc:
            raise self.r.error(exc.quoted(), path) from None

    def number(self, raw: Any, path: list) -> int | float | str | None:
        """A numeric property: a number, or the text of a value not known here (``${QueueTimeout}``)."""
        return self.read(values.number, raw, path)

    def integer(self, raw: Any, path: list) -> int | None:
        """A count the model keeps as an int (batch size, concurrency); None when not known here."""
        v = self.read(values.integer, raw, path, expected="an integer")
        return v if isinstance(v, int) else None

    def boolean(self, raw: Any, path: list) -> bool | None:
        return self.read(values.boolean, raw, path)

    def string(self, raw: Any, path: list) -> str | None:
        """A name: a literal string (or number), None when only the deployed stack knows it."""
        return self.read(values.string, raw, path)

    # ------------------------------------------------------------------ build
    def build(self) -> Model:
        for lid, res in self.res.items():
            if res["Type"] == QUEUE:
                self.model.add(self.queue(lid))
        self.queues_by_name = {q.name: q.id for q in self.model.queues.values() if q.name}
        for q in self.model.queues.values():
            if q.redrive is not None:
                self.link_redrive(q)
            if q.id in self.pending_allow:
                self.link_redrive_allow(q)
        self.outputs()
        for lid, res in self.res.items():
            if res["Type"] == ESM:
                self.mapping(lid)
        if any(self.may_consume(lid, res["Type"]) for lid, res in self.res.items()):
            from . import consumers_cfn  # imported only for a template that may declare worker consumers

            consumers_cfn.read(self)  # ECS, Beanstalk, Pipes, SNS subscriptions (issue 24)
        return self.model

    def queue(self, lid: str) -> Queue:
        p = self.props(lid)
        base = ["Resources", lid, "Properties"]
        q = Queue(id=lid, location=self.loc(["Resources", lid]), source=self.source)
        fields = {
            "visibility_timeout": "VisibilityTimeout",
            "message_retention": "MessageRetentionPeriod",
            "delay": "DelaySeconds",
        }
        for attr, prop in fields.items():
            if prop in p:
                setattr(q, attr, self.number(p[prop], [*base, prop]))
                q.locations[attr] = self.loc([*base, prop])
        if "FifoQueue" in p:
            q.fifo = bool(self.boolean(p["FifoQueue"], [*base, "FifoQueue"]))
            q.locations["fifo"] = self.loc([*base, "FifoQueue"])
        if "QueueName" in p:
            q.name = self.string(p["QueueName"], [*base, "QueueName"])
            q.locations["name"] = self.loc([*base, "QueueName"])
            fifo = self.boolean(p["FifoQueue"], [*base, "FifoQueue"]) if "FifoQueue" in p else False
            problem = (
                facts.fifo_name_mismatch(q.name, fifo)
                if isinstance(q.name, str) and fifo is not None
                else None
            )
            if problem:  # SQS refuses the queue (the deploy fails): as the Terraform loader, bad input
                raise self.r.error(f"{problem} (FifoQueue: {str(bool(fifo)).lower()})", [*base, "QueueName"])
        if isinstance(p.get("Tags"), list):
            for i, tag in enumerate(self.r.value(p["Tags"], [*base, "Tags"])):
                if (
                    isinstance(tag, dict)
                    and isinstance(tag.get("Key"), str)
                    and isinstance(tag.get("Value"), str)
                ):
                    q.tags[tag["Key"]] = tag["Value"]
                elif not isinstance(tag, dict):
                    raise self.r.error("a tag must be a mapping with Key and Value", [*base, "Tags", i])
        if "RedriveAllowPolicy" in p:
            self.redrive_allow(lid, p["RedriveAllowPolicy"], [*base, "RedriveAllowPolicy"])
            q.locations["redrive_allow"] = self.loc([*base, "RedriveAllowPolicy"])
        if "RedrivePolicy" in p:
            q.redrive = self.redrive(lid, p["RedrivePolicy"], [*base, "RedrivePolicy"])
            if q.redrive is not None:
                q.locations["redrive"] = q.redrive.location
        q.suppressions = self.suppressions(lid)
        gen = self.generated.get(lid)
        if gen:  # a queue SAM creates: its function's and its event's suppressions apply
            q.created_by = gen.get("created_by")
            q.suppressions = [s for rp in gen.get("suppress_from", []) for s in self.suppressions(rp[1], rp)]
        return q

    def policy(self, raw: Any, path: list, what: str) -> dict | Unknown | None:
        """A policy written as a mapping or as a JSON string (RedrivePolicy, RedriveAllowPolicy)."""
        v = self.r.value(raw, path)
        if v is None or v is NOVALUE:
            return None
        placeholders: dict[str, Any] = {}
        if isinstance(v, Text):  # !Sub '{"deadLetterTargetArn": "${Dlq.Arn}", ...}'
            v = _render_with_placeholders(v, placeholders)
        if isinstance(v, str):
            try:
                v = json.loads(v)
            except ValueError as exc:
                raise self.r.error(f"{what} is not valid JSON ({getattr(exc, 'msg', exc)})", path) from None
            if isinstance(v, dict):
                v = {k: _unplace(x, placeholders) for k, x in v.items()}
        if isinstance(v, (dict, Unknown)):
            return v
        raise self.r.error(f"{what} must be a mapping or a JSON string, got a {_kind(v)}", path)

    def redrive(self, lid: str, raw: Any, path: list) -> Redrive | None:
        v = self.policy(raw, path, "RedrivePolicy")
        if v is None:
            return None
        if isinstance(v, Unknown):
            return Redrive(target=None, target_ref=str(v), max_receive_count=None, location=self.loc(path))
        mrc = self.number(v.get("maxReceiveCount"), [*path, "maxReceiveCount"])
        target = v.get("deadLetterTargetArn")
        if isinstance(target, (list, dict, bool)):
            raise self.r.error("deadLetterTargetArn must be a queue ARN", [*path, "deadLetterTargetArn"])
        # the target is linked once every queue (and its name) is known
        self.pending_targets[lid] = target
        return Redrive(target=None, target_ref=None, max_receive_count=mrc, location=self.loc(path))

    def redrive_allow(self, lid: str, raw: Any, path: list) -> None:
        v = self.policy(raw, path, "RedriveAllowPolicy")
        if not isinstance(v, dict):
            return
        perm = self.r.value(v.get("redrivePermission"), [*path, "redrivePermission"])
        if perm is not None and not isinstance(perm, (str, Unknown)):
            raise self.r.error(
                "redrivePermission must be allowAll, denyAll or byQueue", [*path, "redrivePermission"]
            )
        arns = self.r.value(v.get("sourceQueueArns", []), [*path, "sourceQueueArns"])
        if (
            not isinstance(arns, (list, Unknown))
            or isinstance(arns, list)
            and any(isinstance(a, (list, dict)) for a in arns)
        ):
            raise self.r.error("sourceQueueArns must be a list of queue ARNs", [*path, "sourceQueueArns"])
        self.pending_allow[lid] = (perm, arns)

    def link_redrive_allow(self, q: Queue) -> None:
        perm, arns = self.pending_allow[q.id]
        sources = []
        for a in arns if isinstance(arns, list) else []:
            target, ref = self.queue_target(a, arn_attr=True)
            sources.append(target or ref)
        q.redrive_allow = {
            "redrivePermission": str(perm) if perm is not None else None,
            "sourceQueueArns": sources,
        }

    def link_redrive(self, q: Queue) -> None:
        rd = q.redrive
        target = self.pending_targets.get(q.id)
        base = ["Resources", q.id, "Properties", "RedrivePolicy"]
        written = self.props(q.id).get("RedrivePolicy")
        if isinstance(written, dict) and "maxReceiveCount" in written:
            q.locations["redrive.max_receive_count"] = self.loc([*base, "maxReceiveCount"])
        if target is None:
            return
        q.locations["redrive.target"] = self.loc([*base, "deadLetterTargetArn"])
        rd.target, rd.target_ref = self.queue_target(target, arn_attr=True)

    def queue_target(self, v: Any, *, arn_attr: bool) -> tuple[str | None, str | None]:
        """(queue id in this model, reference as written) for an ARN-valued property."""
        if isinstance(v, ResRef):
            res = self.res.get(v.id)
            rtype = res["Type"] if res else "?"
            if rtype != QUEUE:
                return None, f"{v.id} ({rtype}, not an SQS queue)"
            if v.attr == "Arn":
                return v.id, f"{v.id}.Arn"
            if v.attr is None and arn_attr:
                return None, f"Ref {v.id} (Ref gives the queue URL; use Fn::GetAtt {v.id}.Arn)"
            if v.attr is None:
                return v.id, f"Ref {v.id}"
            return None, f"{v.id}.{v.attr} (not the queue ARN)"
        if isinstance(v, Text):
            queues = {r.id for r in v.refs() if self.res.get(r.id, {}).get("Type") == QUEUE}
            if len(queues) == 1 and all(r.attr in ("Arn", "QueueName") for r in v.refs() if r.id in queues):
                return next(iter(queues)), str(v)
            last = v.parts[-1]  # arn:aws:sqs:${AWS::Region}:${AWS::AccountId}:orders
            if not queues and isinstance(last, str) and ":sqs:" in str(v) and ":" in last:
                return self.queues_by_name.get(last.rsplit(":", 1)[1]), str(v)
            return None, str(v)
        if isinstance(v, ExternalRef) and v.type == QUEUE and v.id in self.external:
            if v.attr == "Arn" or (v.attr is None and not arn_attr):
                return v.id, str(v)
            return None, f"{str(v)} (not the queue ARN)"
        if isinstance(v, Unknown):
            return None, str(v)
        if isinstance(v, (int, float)):
            v = str(v)
        if isinstance(v, str):
            parts = v.split(":")
            if v.startswith("arn:") and len(parts) == 6 and parts[2] == "sqs":
                return self.queues_by_name.get(parts[5]), v
            return None, v
        return None, None

    # ------------------------------------------------------------------ consumers
    def mapping(self, lid: str) -> None:
        p = self.props(lid)
        base = ["Resources", lid, "Properties"]
        if "EventSourceArn" not in p:
            return  # Kafka/MQ mappings use other properties; nothing to do with SQS
        src = self.r.value(p["EventSourceArn"], [*base, "EventSourceArn"])
        if isinstance(src, (list, dict, bool)):
            raise self.r.error(f"must be a queue ARN, got a {_kind(src)}", [*base, "EventSourceArn"])
        queue_id, _ = self.queue_target(src, arn_attr=False)
        ref = None
        if queue_id is None:
            if any(k in p for k in facts.ESM_NOT_SQS):
                return  # a stream's, a broker's or a document database's mapping (facts.ESM_NOT_SQS)
            ref, why = self.outside_queue(src, lid, [*base, "EventSourceArn"])
            if ref is None and why is None:
                return  # another service's stream (Kinesis, DynamoDB, MSK): nothing to check here
        c = Consumer(id=lid, kind="lambda", location=self.loc(["Resources", lid]))
        c.created_by = self.generated.get(lid, {}).get("created_by")
        self.function_into(c, p.get("FunctionName"), [*base, "FunctionName"])
        self.esm_settings(c, p, base)
        if queue_id is not None:
            self.attach(queue_id, c, lid, ["Resources", lid])
            return
        # a queue outside this template: pending, for the join (another input of the run may declare it); else
        # judged alone by what the mapping sets (its batches), the queue's checks said not to run
        c.queue_ref, c.link = ref, "source"
        if why is not None:
            c.settings["queue_unknown"] = why
        self.model.pending.append(c)

    def outputs(self) -> None:
        """The template's ``Outputs`` whose value is one of its queues (``Ref`` its URL, ``Fn::GetAtt`` its Arn):
        the queue's ``exports``, by key and by ``Export.Name`` (what another stack's ``${cf:..}`` or
        ``Fn::ImportValue`` names). A value or name not known here names nothing."""
        outs = self.t.get("Outputs") if isinstance(self.t, dict) else None
        if not isinstance(outs, dict):
            return
        for key, out in list(outs.items())[:MAX_OUTPUTS]:
            if not isinstance(out, dict) or "Value" not in out or not isinstance(key, str):
                continue
            try:
                v = self.r.value(out["Value"], ["Outputs", key, "Value"])
                qid, _ = self.queue_target(v, arn_attr=False)
                export = out.get("Export")
                name = (
                    self.r.value(export.get("Name"), ["Outputs", key, "Export", "Name"])
                    if isinstance(export, dict) and "Name" in export
                    else None
                )
            except VisguardError:  # an output visguard cannot read names no queue (the template is linted)
                continue
            q = self.model.queues.get(qid) if qid is not None else None
            if q is None:
                continue
            q.exports.append(f"output:{key}")
            if isinstance(name, str) and name:
                q.exports.append(f"export:{name}")

    def outside_queue(self, src, lid: str, path: list) -> tuple:
        """(QueueRef, why) of an event source mapping's queue that this template does not declare: a literal SQS
        ARN (``arn:aws:sqs:eu-west-1:123456789012:jobs``); a queue the offline emulator's ``queueName`` names
        beside an ``arn`` of a resource the stack lacks (serverless-offline-sqs; ``Metadata: {visguard: {queue:
        <name>}}`` on the mapping says the same in a template); or no reference and why (a
        parameter, an import, a stack output: what it is, as the unjoined note says). (None, None): not a queue."""
        from visguard.linter.consumers import QueueRef

        where = self.loc(path)
        if isinstance(src, str):
            parts = src.split(":")
            if src.startswith("arn:") and len(parts) == 6 and parts[2] == "sqs" and parts[5]:
                return QueueRef("arn", src, where), None
            return None, None
        meta = (self.res.get(lid) or {}).get("Metadata")
        name = ((meta.get("visguard") if isinstance(meta, dict) else None) or {}).get("queue")
        if isinstance(name, str) and re.fullmatch(r"[A-Za-z0-9_-]{1,80}(\.fifo)?", name):
            return QueueRef("name", name, where), None
        text = getattr(src, "text", None) if isinstance(src, Unknown) else None
        m = _CF_OUTPUT.fullmatch(text or "")
        if (
            m is not None
        ):  # Serverless's ${cf:stack.Output}: the queue a stack of the run outputs under that key
            return QueueRef("output", f"{m.group(1)}/{m.group(2)}", where), None
        if text and text.startswith("Fn::ImportValue "):
            return QueueRef("export", text[len("Fn::ImportValue ") :], where), None
        if isinstance(src, ResRef) and src.id not in self.res:
            return None, f"{src.id} (not declared in this template)"
        if isinstance(src, (Unknown, ExternalRef)) or (isinstance(src, Text) and ":sqs:" in str(src)):
            return None, _shown_ref(src)
        return None, None

    def esm_settings(self, c: Consumer, p: dict, base: list) -> None:
        """Batch settings shared by event source mappings and SAM SQS events."""
        if "BatchSize" in p:
            c.batch_size = self.integer(p["BatchSize"], [*base, "BatchSize"])
            c.locations["batch_size"] = self.loc([*base, "BatchSize"])
        if "MaximumBatchingWindowInSeconds" in p:
            w = self.number(p["MaximumBatchingWindowInSeconds"], [*base, "MaximumBatchingWindowInSeconds"])
            c.batching_window = w if isinstance(w, (int, float)) else None
            c.locations["batching_window"] = self.loc([*base, "MaximumBatchingWindowInSeconds"])
        if "FunctionResponseTypes" in p:
            types = self.r.value(p["FunctionResponseTypes"], [*base, "FunctionResponseTypes"])
            if isinstance(types, str):
                types = [types]
            if not isinstance(types, (list, Unknown, Text)):
                raise self.r.error("FunctionResponseTypes must be a list", [*base, "FunctionResponseTypes"])
            c.report_batch_item_failures = isinstance(types, list) and "ReportBatchItemFailures" in types
            c.locations["report_batch_item_failures"] = self.loc([*base, "FunctionResponseTypes"])
        scaling = p.get("ScalingConfig")
        if scaling is not None:
            scaling = self.r.value(scaling, [*base, "ScalingConfig"])
            if isinstance(scaling, dict) and "MaximumConcurrency" in scaling:
                path = [*base, "ScalingConfig", "MaximumConcurrency"]
                c.max_concurrency = self.integer(scaling["MaximumConcurrency"], path)
                c.locations["max_concurrency"] = self.loc(path)
            elif not isinstance(scaling, (dict, Unknown)):
                raise self.r.error("ScalingConfig must be a mapping", [*base, "ScalingConfig"])
        self.provisioned_pollers(c, p, base)
        if "Enabled" in p:
            enabled = self.boolean(p["Enabled"], [*base, "Enabled"])
            c.enabled = True if enabled is None else enabled
            c.locations["enabled"] = self.loc([*base, "Enabled"])
        self.esm_metrics(c, p, base)

    def esm_metrics(self, c: Consumer, p: dict, base: list) -> None:
        """``MetricsConfig: {Metrics: [EventCount]}`` into ``Consumer.metrics`` (issue 36; the fleet audit reads the
        deployed mapping's; no lint rule judges it). A value not known here is left unset."""
        raw = p.get("MetricsConfig")
        cfg = self.r.value(raw, [*base, "MetricsConfig"]) if raw is not None else None
        metrics = cfg.get("Metrics") if isinstance(cfg, dict) else None
        if isinstance(metrics, list) and all(isinstance(x, str) for x in metrics):
            c.metrics = list(metrics)
            c.locations["metrics"] = self.loc([*base, "MetricsConfig", "Metrics"])

    def provisioned_pollers(self, c: Consumer, p: dict, base: list) -> None:
        """``ProvisionedPollerConfig`` (provisioned mode, issue 36): MinimumPollers / MaximumPollers into
        ``min_pollers`` / ``max_pollers``; the block written empty is provisioned mode at the defaults, so the
        consumer's ``locations`` keep the block (``provisioned``) for the rules to point at."""
        if p.get("ProvisionedPollerConfig") is None:
            return
        path = [*base, "ProvisionedPollerConfig"]
        ppc = self.r.value(p["ProvisionedPollerConfig"], path)
        if isinstance(ppc, Unknown):
            return
        if not isinstance(ppc, dict):
            raise self.r.error("ProvisionedPollerConfig must be a mapping", path)
        c.locations["provisioned"] = self.loc(path)
        for field, prop in (("min_pollers", "MinimumPollers"), ("max_pollers", "MaximumPollers")):
            if ppc.get(prop) is not None:
                setattr(c, field, self.integer(ppc[prop], [*path, prop]))
                c.locations[field] = self.loc([*path, prop])
        if ppc.get("MinimumPollers") is None and ppc.get("MaximumPollers") is None:  # at the defaults
            c.min_pollers, c.max_pollers = facts.DEFAULT_MIN_POLLERS, facts.DEFAULT_MAX_POLLERS

    def function_into(self, c: Consumer, raw: Any, path: list) -> None:
        """Resolve a FunctionName (name, ARN, Ref/GetAtt of a function, alias or version) into ``c``."""
        fid, note = self.function_of(raw, path, [])
        if fid is None:
            c.kind = "unknown"
            c.note = note
            v = self.r.value(raw, path) if raw is not None else None
            c.function_id = v if isinstance(v, str) else None
            return
        self.function_settings(c, fid)

    def function_settings(self, c: Consumer, fid: str) -> None:
        c.kind = "lambda"
        c.function_id = fid
        fp = self.props(fid)
        base = ["Resources", fid, "Properties"]
        for attr, prop in (
            ("function_timeout", "Timeout"),
            ("reserved_concurrency", "ReservedConcurrentExecutions"),
        ):
            if prop not in fp:
                continue
            raw, path = fp[prop], [*base, prop]
            if attr == "function_timeout":
                v = self.number(raw, path)
                c.function_timeout = v if isinstance(v, (int, float)) else None
                if not isinstance(v, (int, float)) and v is not None:
                    # never compare against the 3 s default when the template sets a value we cannot see
                    c.kind = "unknown"
                    c.note = f"the timeout of function {fid} ({v}) is not known here"
            else:
                c.reserved_concurrency = self.integer(raw, path)
            c.locations[attr] = self.loc(path)
        self.lambda_compute(c, fid, fp, base)

    def lambda_compute(self, c: Consumer, fid: str, fp: dict, base: list) -> None:
        """Issue 36 (fact-drift L7, L8): the function's capacity provider (Lambda Managed Instances:
        ``CapacityProviderConfig.LambdaManagedInstancesCapacityProviderConfig.CapacityProviderArn``, SAM's
        ``CapacityProviderConfig.Arn``) and its ``DurableConfig.ExecutionTimeout`` (durable function)."""
        if "CapacityProviderConfig" in fp:
            path = [*base, "CapacityProviderConfig"]
            v = self.r.value(fp["CapacityProviderConfig"], path)
            if isinstance(v, dict):
                inner = v.get("LambdaManagedInstancesCapacityProviderConfig")
                key, at = "Arn", path  # SAM's own shape
                if inner is not None:
                    at = [*path, "LambdaManagedInstancesCapacityProviderConfig"]
                    inner = self.r.value(inner, at)
                    if not isinstance(inner, (dict, Unknown)):
                        raise self.r.error(
                            "LambdaManagedInstancesCapacityProviderConfig must be a mapping", at
                        )
                    key, v = "CapacityProviderArn", inner if isinstance(inner, dict) else {}
                arn = self.r.value(v[key], [*at, key]) if key in v else None
                c.capacity_provider = _written(arn) if arn is not None else "(capacity provider)"
            elif v is not None and v is not NOVALUE:
                if not isinstance(v, _UNKNOWN):
                    raise self.r.error("CapacityProviderConfig must be a mapping", path)
                c.capacity_provider = _written(v)  # set, though only the deployed stack knows which
            if c.capacity_provider is not None:
                c.locations["capacity_provider"] = self.loc(path)
        if "DurableConfig" in fp:
            path = [*base, "DurableConfig"]
            v = self.r.value(fp["DurableConfig"], path)
            if isinstance(v, dict) and "ExecutionTimeout" in v:
                d = self.number(v["ExecutionTimeout"], [*path, "ExecutionTimeout"])
                c.locations["durable_execution_timeout"] = self.loc([*path, "ExecutionTimeout"])
                if isinstance(d, (int, float)):
                    c.durable_execution_timeout = d
                elif d is not None and c.kind == "lambda":
                    # never judge a durable function as one whose batches end with its Timeout
                    c.kind = "unknown"
                    c.note = f"the DurableConfig.ExecutionTimeout of function {fid} ({d}) is not known here"
            elif v is not None and v is not NOVALUE and not isinstance(v, (dict, *_UNKNOWN)):
                raise self.r.error("DurableConfig must be a mapping", path)
            elif isinstance(v, _UNKNOWN) and c.kind == "lambda":
                c.kind = "unknown"
                c.note = f"the DurableConfig of function {fid} is not known here"

    def function_of(self, raw: Any, path: list, seen: list[str]) -> tuple[str | None, str | None]:
        if raw is None:
            return None, "the mapping has no FunctionName"
        v = self.r.value(raw, path)
        if isinstance(v, Text):
            refs = v.refs()
            v = refs[0] if refs else Unknown(f"function {v} is not known here", str(v))
        if isinstance(v, ResRef):
            if v.id in seen:
                raise self.r.error("cyclic reference: " + " -> ".join([*seen, v.id]), path)
            rtype = self.res[v.id]["Type"]
            if rtype in FUNCTION_TYPES:
                return v.id, None
            if rtype in (ALIAS, VERSION):
                fp = self.props(v.id)
                return self.function_of(
                    fp.get("FunctionName"), ["Resources", v.id, "Properties", "FunctionName"], [*seen, v.id]
                )
            return None, f"FunctionName refers to {v.id}, a {rtype}, not a Lambda function"
        if isinstance(v, Unknown):
            return None, v.why
        if isinstance(v, str):
            name = values.function_name(v)
            if name in self.functions_by_name():
                return self.functions_by_name()[name], None
            return None, f"function {name!r} is not defined in this template"
        raise self.r.error(f"FunctionName must be a function name or ARN, got a {_kind(v)}", path)

    def functions_by_name(self) -> dict[str, str]:
        """FunctionName (when the template fixes it) -> logical id, computed once."""
        if self._functions_by_name is None:
            self._functions_by_name = {}
            for fid, res in self.res.items():
                fn = self.props(fid).get("FunctionName") if res["Type"] in FUNCTION_TYPES else None
                name = (
                    self.string(fn, ["Resources", fid, "Properties", "FunctionName"])
                    if fn is not None
                    else None
                )
                if name is not None:
                    self._functions_by_name.setdefault(name, fid)
        return self._functions_by_name

    def attach(self, queue_id: str, c: Consumer, lid: str, res_path: list) -> None:
        q = self.model.queues.get(queue_id) or self.external[queue_id]
        q.consumers.append(c)
        for s in self.suppressions(lid, res_path):
            q.suppressions.append(Suppression(s.rule, s.reason, s.location, consumer=c.id))
        if c.function_id in self.res:
            for s in self.suppressions(c.function_id):
                q.suppressions.append(Suppression(s.rule, s.reason, s.location, consumer=c.id))

    # ------------------------------------------------------------------ suppressions
    def suppressions(self, lid: str, res_path: list | None = None) -> list[Suppression]:
        """``Metadata: {visguard: {suppress: [{rule: VG020, reason: "..."}]}}`` on a resource (or a SAM event)."""
        res_path = res_path or ["Resources", lid]
        node: Any = self.t
        for key in res_path:
            node = node.get(key) if isinstance(node, dict) else None
        meta = node.get("Metadata") if isinstance(node, dict) else None
        if not isinstance(meta, dict) or "visguard" not in meta:
            return []
        base = [*res_path, "Metadata", "visguard"]
        vg = meta["visguard"]
        if not isinstance(vg, dict):
            raise self.r.error("must be a mapping with a suppress list", base)
        items = vg.get("suppress", [])
        if not isinstance(items, list):
            raise self.r.error("suppress must be a list of {rule, reason}", [*base, "suppress"])
        out = []
        for i, item in enumerate(items):
            path = [*base, "suppress", i]
            if isinstance(item, str):
                item = {"rule": item}
            if not isinstance(item, dict) or not isinstance(item.get("rule"), str):
                raise self.r.error("a suppression needs a rule id, e.g. {rule: VG020, reason: ...}", path)
            reason = item.get("reason")
            if reason is not None and not isinstance(reason, str):
                raise self.r.error("reason must be a string", [*path, "reason"])
            out.append(Suppression(item["rule"].strip(), reason, self.loc(path)))
        return out


def _unplace(x: Any, placeholders: dict[str, Any]) -> Any:
    if isinstance(x, str):
        return placeholders.get(x, x)
    if isinstance(x, list):
        return [placeholders.get(i, i) if isinstance(i, str) else i for i in x]
    return x


def _render_with_placeholders(t: Text, placeholders: dict[str, Any]) -> str:
    out = []
    for i, p in enumerate(t.parts):
        if isinstance(p, str):
            out.append(p)
        else:
            key = f"@@visguard{i}@@"
            placeholders[key] = p
            out.append(key)
    return "".join(out)


def _written(v: Any) -> str:
    """A value as the template wrote it, for the model (a resource reference by its logical id)."""
    if isinstance(v, ResRef):
        return v.id
    return str(v)


def _kind(v: Any) -> str:
    return {dict: "mapping", list: "list", bool: "boolean"}.get(type(v), type(v).__name__)


def _refs_in(node: Any, out: set[str], names: dict) -> None:
    """Resource ids ``node`` depends on (Ref, Fn::GetAtt, ${...} in Fn::Sub)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, dict):
            if len(n) == 1:
                ((k, v),) = n.items()
                if k == "Ref" and isinstance(v, str) and v in names:
                    out.add(v)
                elif k == "Fn::GetAtt":
                    first = (
                        v.split(".", 1)[0]
                        if isinstance(v, str)
                        else (v[0] if isinstance(v, list) and v else None)
                    )
                    if isinstance(first, str) and first in names:
                        out.add(first)
                elif k == "Fn::Sub":
                    text = (
                        v
                        if isinstance(v, str)
                        else (v[0] if isinstance(v, list) and v and isinstance(v[0], str) else "")
                    )
                    local = (
                        set(v[1]) if isinstance(v, list) and len(v) > 1 and isinstance(v[1], dict) else set()
                    )
                    for var in _sub_vars(text):
                        head = var.split(".", 1)[0]
                        if head in names and var not in local:
                            out.add(head)
            stack.extend(n.values())
        elif isinstance(n, list):
            stack.extend(n)


def _sub_vars(text: str) -> list[str]:
    from .intrinsics import _SUB_VAR

    return [m.group(1).strip() for m in re.finditer(_SUB_VAR, text) if not m.group(1).startswith("!")]


def _check_cycles(resources: dict, r: Resolver) -> None:
    """CloudFormation rejects circular dependencies between resources (Ref, GetAtt, Sub, DependsOn). A SAM
    resource's ``Events`` (kept on the function the transform makes) become resources of their own (a
    permission, a mapping, a rule): what they name is not a dependency of the function itself (an Api event
    naming the API whose body names the function is no cycle)."""
    deps: dict[str, set[str]] = {}
    for lid, res in resources.items():
        out: set[str] = set()
        props = res.get("Properties")
        rtype = str(res.get("Type", ""))
        if (rtype.startswith("AWS::Serverless::") or rtype == "AWS::Lambda::Function") and isinstance(
            props, dict
        ):
            props = {k: v for k, v in props.items() if k != "Events"}
        _refs_in(props, out, resources)
        dep = res.get("DependsOn")
        for d in [dep] if isinstance(dep, str) else dep if isinstance(dep, list) else []:
            if isinstance(d, str) and d in resources:
                out.add(d)
        deps[lid] = out
    state: dict[str, int] = {}  # 1 visiting, 2 done
    for start in deps:
        if state.get(start):
            continue
        stack: list[tuple[str, list[str]]] = [(start, sorted(deps[start]))]
        trail = [start]
        state[start] = 1
        while stack:
            node, todo = stack[-1]
            if not todo:
                state[node] = 2
                stack.pop()
                trail.pop()
                continue
            nxt = todo.pop()
            if state.get(nxt) == 1:
                cycle = [*trail[trail.index(nxt) :], nxt]
                raise r.error(
                    "circular dependency between resources: " + " -> ".join(cycle), ["Resources", nxt]
                )
            if not state.get(nxt):
                state[nxt] = 1
                trail.append(nxt)
                stack.append((nxt, sorted(deps[nxt])))


def _shown_ref(v) -> str:
    """A reference as a note shows it, at most 80 characters."""
    s = " ".join(str(v).split())
    return s if len(s) <= 80 else s[:77] + "..."


MAX_OUTPUTS = 200  # a template's Outputs read (CloudFormation allows 200)
_CF_OUTPUT = re.compile(r"\$\{cf(?:\([a-z0-9-]+\))?:([A-Za-z][A-Za-z0-9-]{0,127})\.([A-Za-z0-9]{1,255})\}")
