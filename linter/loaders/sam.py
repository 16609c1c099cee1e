"""SAM as a transform: a template with ``AWS::Serverless::Function`` becomes the CloudFormation the SAM
translator would write for what the rules need, before the CloudFormation builder (``cfn.py``) reads it.

cfn-lint >= 1.54 no longer runs the SAM translator, and running aws-sam-translator costs more than this whole
loader, so the few SAM facts the rules need are rewritten here from the template as written (AWS SAM Developer
Guide, "AWS::Serverless::Function" and "SQS" event source type,
https://docs.aws.amazon.com/serverless-application-model/latest/developerguide/sam-property-function-sqs.html):

- the function becomes ``AWS::Lambda::Function`` with ``Globals.Function`` merged in (its own properties win;
  ``Environment.Variables`` maps are merged, its own entries winning, as SAM merges maps);
- an SQS event becomes an ``AWS::Lambda::EventSourceMapping`` from ``Properties.Queue`` to the function, with
  ``BatchSize`` (default 10), ``MaximumBatchingWindowInSeconds``, ``FunctionResponseTypes``, ``ScalingConfig``,
  ``ProvisionedPollerConfig`` (passed through as written, as SAM does) and ``Enabled`` (default true);
- ``AutoPublishAlias: live`` creates an alias whose logical id is ``<Function>Alias<live>``; ``!Ref
  <Function>.Alias`` / ``<Function>.Version`` name the function's alias and version;
- an SNS event with ``SqsSubscription`` puts a queue between the topic and the function (SAM Developer Guide,
  "SNS" event source type and "SqsSubscriptionObject"): ``true`` creates ``AWS::SQS::Queue``
  ``<Function><Event>Queue`` with every property at its default (visibility timeout 30 s, no redrive policy;
  FIFO when the topic is a FIFO topic of this template) and an event source mapping with BatchSize 10 and no
  batching window or partial batch responses; a mapping subscribes an existing queue (``QueueArn``) with its
  ``BatchSize``. aws-sam-translator 1.115 always enables that mapping, whatever ``Enabled`` says, so it is
  read as enabled here too. The generated queue is what users never see in their template, and what the
  rules most often catch: a 30 s timeout in front of a longer function, no DLQ, whole-batch retries.

Generated resources get ids no template can hold (a mapping is ``<Function>/<Event>``, the consumer id users
see), and :class:`Transformed` says where each came from: ``aliases`` maps a path in the transformed template to
the path the user wrote (so every finding and error points at the SAM event, the SqsSubscription or
``Globals/Function/Timeout``), ``generated`` carries what SAM decides for them (``created_by``, whose
suppressions apply).
"""

from __future__ import annotations

from . import values
from .decode import PosDict
from .intrinsics import Resolver

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

SERVERLESS_FUNCTION = "AWS::Serverless::Function"
SERVERLESS_TRANSFORM = "AWS::Serverless-2016-10-31"
FUNCTION = "AWS::Lambda::Function"
ESM = "AWS::Lambda::EventSourceMapping"

QUEUE_CREATED_BY = (
    "SAM creates this queue for the SqsSubscription of SNS event {name} with default settings and takes"
    " none for it: declare the queue (with its DLQ) yourself and subscribe it with SqsSubscription:"
    " {{QueueArn: !GetAtt <Queue>.Arn, QueueUrl: !Ref <Queue>}}, or replace the SNS event by an"
    " AWS::SNS::Subscription to the queue and an SQS event on the function."
)
MAPPING_CREATED_BY = (
    "SAM writes this mapping for the SqsSubscription of SNS event {name} and takes only BatchSize for"
    " it: for partial batch responses, a batching window or maximum concurrency, subscribe the queue"
    " with an AWS::SNS::Subscription and consume it with an SQS event on the function."
)


def is_sam(template: dict) -> bool:
    tr = template.get("Transform")
    names = tr if isinstance(tr, list) else [tr]
    if SERVERLESS_TRANSFORM in names:
        return True
    res = template.get("Resources") or {}
    return any(
        isinstance(r, dict) and str(r.get("Type", "")).startswith("AWS::Serverless::") for r in res.values()
    )


class Transformed:
    """A template after the SAM transform, and where each of its paths was written (a plain class: every
    template, SAM or not, goes through one, and a dataclass would compile its methods at every lint's start)."""

    def __init__(self, template: dict):
        self.template = template
        self.aliases: dict[tuple, list] = {}  # transformed path prefix -> path as written
        self.generated: dict[str, dict] = {}  # generated logical id -> what SAM decides

    def translate(self, path: list) -> list:
        """The path the user wrote for ``path`` of the transformed template (longest aliased prefix)."""
        for k in range(len(path), 1, -1):
            to = self.aliases.get(tuple(path[:k]))
            if to is not None:
                return [*to, *path[k:]]
        return list(path)


def transform(template: dict, *, file: str, parameters: dict[str, str] | None = None) -> Transformed:
    """The CloudFormation template SAM would deploy, as far as the rules read it (see the module docstring)."""
    r = Resolver(template, file=file, parameters=parameters)
    g = _function_globals(template, r)
    out = Transformed(PosDict(template))
    _copy_pos(template, out.template)
    resources = PosDict()
    _copy_pos(template["Resources"], resources)
    out.template["Resources"] = resources
    for lid, res in template["Resources"].items():
        _keep(resources, template["Resources"], lid, res)
        if res["Type"] == SERVERLESS_FUNCTION:
            _function(out, r, g, lid, res)
    return out


# ---------------------------------------------------------------------------------------------- helpers
def _copy_pos(src: Any, dst: PosDict) -> None:
    if isinstance(src, PosDict):
        dst.line, dst.col = src.line, src.col
        dst.key_pos.update(src.key_pos)


def _keep(resources: PosDict, source: dict, key: str, value: Any) -> None:
    resources[key] = value
    if isinstance(source, PosDict) and key in source.key_pos:
        resources.key_pos[key] = source.key_pos[key]


def _function_globals(template: dict, r: Resolver) -> dict:
    g = template.get("Globals")
    if g is None:
        return {}
    if not isinstance(g, dict):
        raise r.error("Globals must be a mapping", ["Globals"])
    fn = g.get("Function")
    if fn is None:
        return {}
    if not isinstance(fn, dict):
        raise r.error("Globals/Function must be a mapping", ["Globals", "Function"])
    return fn


def _add(out: Transformed, lid: str, res: dict, written: list, condition: Any) -> None:
    """Add generated resource ``lid`` whose declaration the user wrote at ``written``."""
    resources = out.template["Resources"]
    if condition is not None:
        res["Condition"] = condition
    resources[lid] = res
    out.aliases[("Resources", lid)] = written


# ---------------------------------------------------------------------------------------------- functions
def _function(out: Transformed, r: Resolver, g: dict, lid: str, res: dict) -> None:
    base = ["Resources", lid, "Properties"]
    own = res.get("Properties") or {}
    props = PosDict(own)
    _copy_pos(own, props)
    for key, value in g.items():
        if key not in props:
            props[key] = value
            out.aliases[("Resources", lid, "Properties", key)] = ["Globals", "Function", key]
        elif key == "Environment":
            _merge_variables(out, lid, props, value)
    fn = PosDict(res)
    _copy_pos(res, fn)
    fn["Type"] = FUNCTION
    fn["Properties"] = props
    out.template["Resources"][lid] = fn
    cond = res.get("Condition")
    ref = {"Ref": lid}
    existing = out.template["Resources"]
    for suffix, rtype in (("Alias", "AWS::Lambda::Alias"), ("Version", "AWS::Lambda::Version")):
        if f"{lid}.{suffix}" in existing:
            continue
        _add(
            out,
            f"{lid}.{suffix}",
            {"Type": rtype, "Properties": {"FunctionName": ref}},
            ["Resources", lid],
            cond,
        )
    alias = props.get("AutoPublishAlias")
    if isinstance(alias, str) and f"{lid}Alias{alias}" not in existing:
        _add(
            out,
            f"{lid}Alias{alias}",
            {"Type": "AWS::Lambda::Alias", "Properties": {"FunctionName": ref}},
            [*base, "AutoPublishAlias"],
            cond,
        )
    events = props.get("Events")
    if events is None:
        return
    if not isinstance(events, dict):
        raise r.error("Events must be a mapping", [*base, "Events"])
    subs = list(_sns_subscriptions(r, lid, events))
    for name, path, sub in subs:  # the queues SAM creates come first (the builder reads queues first)
        if sub is True:
            _subscription_queue(out, r, lid, name, path, events[name]["Properties"].get("Topic"), cond)
    for name, ev in events.items():
        path = [*base, "Events", name]
        if not isinstance(ev, dict):
            raise r.error("an event must be a mapping with Type and Properties", path)
        if ev.get("Type") != "SQS":
            continue
        ep = ev.get("Properties")
        if not isinstance(ep, dict):
            raise r.error("an SQS event needs Properties with a Queue", [*path, "Properties"])
        if "Queue" not in ep:
            raise r.error("an SQS event needs Properties/Queue", [*path, "Properties"])
        mp = PosDict(ep)
        _copy_pos(ep, mp)
        mp["EventSourceArn"] = ep["Queue"]
        mp["FunctionName"] = ref
        mid = f"{lid}/{name}"
        mapping = {"Type": ESM, "Properties": mp}
        if ev.get("Metadata") is not None:
            mapping["Metadata"] = ev["Metadata"]
        _add(out, mid, mapping, path, cond)
        out.aliases[("Resources", mid, "Properties", "EventSourceArn")] = [*path, "Properties", "Queue"]
        out.aliases[("Resources", mid, "Properties", "FunctionName")] = ["Resources", lid]
        out.aliases[("Resources", mid, "Properties")] = [*path, "Properties"]
    for name, path, sub in subs:
        _subscription_mapping(out, r, lid, name, path, sub, events[name], cond)


def _merge_variables(out: Transformed, lid: str, props: PosDict, glob: Any) -> None:
    """``Globals.Function.Environment.Variables`` merged under the function's own (SAM's Globals: maps are
    merged, the resource's entry wins); each global variable located where Globals writes it."""
    own = props.get("Environment")
    gv = glob.get("Variables") if isinstance(glob, dict) else None
    ov = own.get("Variables") if isinstance(own, dict) else None
    if not isinstance(gv, dict) or not isinstance(ov, dict) or not gv:
        return
    merged = PosDict(own)
    _copy_pos(own, merged)
    merged["Variables"] = {**gv, **ov}
    props["Environment"] = merged
    for name in gv:
        if name not in ov:
            at = ("Resources", lid, "Properties", "Environment", "Variables", name)
            out.aliases[at] = ["Globals", "Function", "Environment", "Variables", name]


def _sns_subscriptions(r: Resolver, lid: str, events: dict):
    """(event name, SqsSubscription path, value) for the SNS events that go through a queue."""
    for name, ev in events.items():
        if not isinstance(ev, dict) or ev.get("Type") != "SNS" or not isinstance(ev.get("Properties"), dict):
            continue
        path = ["Resources", lid, "Properties", "Events", name, "Properties", "SqsSubscription"]
        raw = ev["Properties"].get("SqsSubscription")
        if raw is None:
            continue
        sub = r.value(raw, path)
        if isinstance(sub, str) and sub.strip().lower() in ("true", "false"):
            sub = sub.strip().lower() == "true"
        if sub is False:
            continue
        if sub is not True and not isinstance(sub, dict):
            raise r.error("SqsSubscription must be true, false or a mapping with QueueArn and QueueUrl", path)
        if isinstance(sub, dict) and ("QueueArn" not in sub or "QueueUrl" not in sub):
            raise r.error("SqsSubscription needs QueueArn and QueueUrl", path)
        yield name, path, sub


def _subscription_queue(
    out: Transformed, r: Resolver, lid: str, name: str, path: list, topic: Any, cond
) -> None:
    qid = f"{lid}{name}Queue"
    if qid in out.template["Resources"] or qid in r.all_resources:
        raise r.error(f"SAM creates queue {qid} for this SqsSubscription, but {qid} already exists", path)
    props: dict = {}
    if _fifo_topic(r, topic):
        props["FifoQueue"] = True
        out.aliases[("Resources", qid, "Properties", "FifoQueue")] = path
    _add(out, qid, {"Type": "AWS::SQS::Queue", "Properties": props}, path, cond)
    out.generated[qid] = {
        "created_by": QUEUE_CREATED_BY.format(name=name),
        # the function's suppressions and the event's cover the queue SAM makes for it
        "suppress_from": [["Resources", lid], path[:-2]],
    }


def _subscription_mapping(out, r: Resolver, lid: str, name: str, path: list, sub, ev: dict, cond) -> None:
    event_path = path[:-2]
    mid = f"{lid}/{name}"
    props: dict = {"FunctionName": {"Ref": lid}}
    if sub is True:
        props["EventSourceArn"] = {"Fn::GetAtt": [f"{lid}{name}Queue", "Arn"]}
        props["BatchSize"] = 10  # set explicitly by SAM (aws-sam-translator: BatchSize or 10)
        out.aliases[("Resources", mid, "Properties", "BatchSize")] = path
        out.aliases[("Resources", mid, "Properties", "EventSourceArn")] = path
    else:
        props["EventSourceArn"] = sub["QueueArn"]
        out.aliases[("Resources", mid, "Properties", "EventSourceArn")] = [*path, "QueueArn"]
        if "BatchSize" in sub:
            props["BatchSize"] = sub["BatchSize"]
            out.aliases[("Resources", mid, "Properties", "BatchSize")] = [*path, "BatchSize"]
        else:
            props["BatchSize"] = 10
            out.aliases[("Resources", mid, "Properties", "BatchSize")] = event_path
    out.aliases[("Resources", mid, "Properties", "FunctionName")] = ["Resources", lid]
    mapping: dict = {"Type": ESM, "Properties": props}
    if ev.get("Metadata") is not None:
        mapping["Metadata"] = ev["Metadata"]
    _add(out, mid, mapping, event_path, cond)
    out.generated[mid] = {"created_by": MAPPING_CREATED_BY.format(name=name)}


def _fifo_topic(r: Resolver, raw: Any) -> bool:
    """A ``!Ref`` to an ``AWS::SNS::Topic`` of this template with ``FifoTopic: true`` (SAM then makes a FIFO queue)."""
    if not (isinstance(raw, dict) and len(raw) == 1 and isinstance(raw.get("Ref"), str)):
        return False
    tid = raw["Ref"]
    res = r.all_resources.get(tid)
    if not isinstance(res, dict) or res.get("Type") != "AWS::SNS::Topic":
        return False
    path = ["Resources", tid, "Properties", "FifoTopic"]
    try:
        return bool(values.boolean(r.value((res.get("Properties") or {}).get("FifoTopic"), path)))
    except values.BadValue:
        raise r.error("expected true or false", path) from None
