"""SAM: ``AWS::Serverless::Function`` with ``Events`` of ``Type: SQS``, read directly.

cfn-lint >= 1.54 no longer runs the SAM translator, and running aws-sam-translator costs more than this
whole loader, so the few SAM facts the rules need are read from the template as written
(AWS SAM Developer Guide, "AWS::Serverless::Function" and "SQS" event source type,
https://docs.aws.amazon.com/serverless-application-model/latest/developerguide/sam-property-function-sqs.html):

- an SQS event becomes an event source mapping from ``Properties.Queue`` to the function, with
  ``BatchSize`` (default 10), ``MaximumBatchingWindowInSeconds``, ``FunctionResponseTypes``,
  ``ScalingConfig`` and ``Enabled`` (default true);
- ``Timeout`` and ``ReservedConcurrentExecutions`` come from the function, else ``Globals.Function``,
  else the Lambda default (3 s);
- ``AutoPublishAlias: live`` creates an alias whose logical id is ``<Function>Alias<live>``: a ``Ref`` to
  that id, or to ``<Function>.Alias`` / ``<Function>.Version``, is the function;
- an SNS event with ``SqsSubscription`` puts a queue between the topic and the function (SAM Developer Guide,
  "SNS" event source type and "SqsSubscriptionObject"): ``true`` creates ``AWS::SQS::Queue``
  ``<Function><Event>Queue`` with every property at its default (visibility timeout 30 s, no redrive policy;
  FIFO when the topic is a FIFO topic of this template) and an event source mapping with BatchSize 10 and no
  batching window or partial batch responses; a mapping subscribes an existing queue (``QueueArn``) with its
  ``BatchSize``. aws-sam-translator 1.115 always enables that mapping, whatever ``Enabled`` says, so it is
  read as enabled here too. The generated queue is what users never see in their template, and what the
  rules most often catch: a 30 s timeout in front of a longer function, no DLQ, whole-batch retries.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from visguard.linter.model import Consumer, Queue

from .intrinsics import Resolver

if TYPE_CHECKING:
    from .cfn import _Builder

SERVERLESS_FUNCTION = "AWS::Serverless::Function"
SERVERLESS_TRANSFORM = "AWS::Serverless-2016-10-31"


def is_sam(template: dict) -> bool:
    tr = template.get("Transform")
    names = tr if isinstance(tr, list) else [tr]
    if SERVERLESS_TRANSFORM in names:
        return True
    res = template.get("Resources") or {}
    return any(
        isinstance(r, dict) and str(r.get("Type", "")).startswith("AWS::Serverless::") for r in res.values()
    )


def function_globals(template: dict, r: Resolver, sam: bool) -> dict:
    if not sam:
        return {}
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


def sqs_events(b: _Builder, lid: str):
    """Yield (queue id, consumer, resource path for suppressions) for each SQS event of a SAM function."""
    props = b.props(lid)
    base = ["Resources", lid, "Properties"]
    events = props.get("Events")
    if events is None:
        return
    if not isinstance(events, dict):
        raise b.r.error("Events must be a mapping", [*base, "Events"])
    for name, ev in events.items():
        path = [*base, "Events", name]
        if not isinstance(ev, dict):
            raise b.r.error("an event must be a mapping with Type and Properties", path)
        if ev.get("Type") != "SQS":
            continue
        ep = ev.get("Properties")
        if not isinstance(ep, dict):
            raise b.r.error("an SQS event needs Properties with a Queue", [*path, "Properties"])
        if "Queue" not in ep:
            raise b.r.error("an SQS event needs Properties/Queue", [*path, "Properties"])
        src = b.r.value(ep["Queue"], [*path, "Properties", "Queue"])
        if isinstance(src, (list, dict, bool)):
            raise b.r.error("Queue must be a queue ARN", [*path, "Properties", "Queue"])
        queue_id, _ = b.queue_target(src, arn_attr=False)
        if queue_id is None:
            continue  # a queue outside this template
        c = Consumer(id=f"{lid}/{name}", kind="lambda", location=b.loc(path))
        b.function_settings(c, lid)
        b.esm_settings(c, ep, [*path, "Properties"])
        yield queue_id, c, path


def _sns_subscriptions(b: _Builder, lid: str):
    """Yield (event name, event path, SqsSubscription value) for the SNS events of a SAM function that go
    through a queue (``SqsSubscription`` true or a mapping)."""
    events = b.props(lid).get("Events")
    if not isinstance(events, dict):
        return  # reported by sqs_events
    for name, ev in events.items():
        if not isinstance(ev, dict) or ev.get("Type") != "SNS" or not isinstance(ev.get("Properties"), dict):
            continue
        path = ["Resources", lid, "Properties", "Events", name, "Properties", "SqsSubscription"]
        raw = ev["Properties"].get("SqsSubscription")
        if raw is None:
            continue
        sub = b.r.value(raw, path)
        if isinstance(sub, str) and sub.strip().lower() in ("true", "false"):
            sub = sub.strip().lower() == "true"
        if sub is False:
            continue
        if sub is not True and not isinstance(sub, dict):
            raise b.r.error(
                "SqsSubscription must be true, false or a mapping with QueueArn and QueueUrl", path
            )
        yield name, path, sub


def subscription_queues(b: _Builder, lid: str):
    """The queues SAM creates for ``SqsSubscription: true`` SNS events of function ``lid``, at their defaults."""
    for name, path, sub in _sns_subscriptions(b, lid):
        if sub is not True:
            continue
        qid = f"{lid}{name}Queue"
        if qid in b.res:
            raise b.r.error(
                f"SAM creates queue {qid} for this SqsSubscription, but {qid} already exists", path
            )
        q = Queue(id=qid, location=b.loc(path), source=b.source)
        q.fifo = _fifo_topic(b, b.props(lid)["Events"][name]["Properties"].get("Topic"))
        q.created_by = (
            f"SAM creates this queue for the SqsSubscription of SNS event {name} with default settings and takes"
            " none for it: declare the queue (with its DLQ) yourself and subscribe it with SqsSubscription:"
            " {QueueArn: !GetAtt <Queue>.Arn, QueueUrl: !Ref <Queue>}, or replace the SNS event by an"
            " AWS::SNS::Subscription to the queue and an SQS event on the function."
        )
        q.suppressions = [*b.suppressions(lid), *b.suppressions(lid, path[:-2])]
        yield q


def _fifo_topic(b: _Builder, raw: Any) -> bool:
    """A ``!Ref`` to an ``AWS::SNS::Topic`` of this template with ``FifoTopic: true`` (SAM then makes a FIFO queue)."""
    if not (isinstance(raw, dict) and len(raw) == 1 and isinstance(raw.get("Ref"), str)):
        return False
    tid = raw["Ref"]
    if b.res.get(tid, {}).get("Type") != "AWS::SNS::Topic":
        return False
    fifo = b.props(tid).get("FifoTopic")
    return fifo is not None and bool(b.boolean(fifo, ["Resources", tid, "Properties", "FifoTopic"]))


def sqs_subscriptions(b: _Builder, lid: str):
    """Yield (queue id, consumer, event path) for the mappings SAM creates for SNS events with SqsSubscription."""
    for name, path, sub in _sns_subscriptions(b, lid):
        event_path = path[:-2]
        c = Consumer(id=f"{lid}/{name}", kind="lambda", location=b.loc(event_path))
        c.created_by = (
            f"SAM writes this mapping for the SqsSubscription of SNS event {name} and takes only BatchSize for"
            " it: for partial batch responses, a batching window or maximum concurrency, subscribe the queue"
            " with an AWS::SNS::Subscription and consume it with an SQS event on the function."
        )
        b.function_settings(c, lid)
        if sub is True:
            c.batch_size = 10  # set explicitly by SAM (aws-sam-translator: BatchSize or 10)
            c.locations["batch_size"] = b.loc(path)
            yield f"{lid}{name}Queue", c, event_path
            continue
        if "QueueArn" not in sub or "QueueUrl" not in sub:
            raise b.r.error("SqsSubscription needs QueueArn and QueueUrl", path)
        src = b.r.value(sub["QueueArn"], [*path, "QueueArn"])
        if isinstance(src, (list, dict, bool)):
            raise b.r.error("QueueArn must be a queue ARN", [*path, "QueueArn"])
        queue_id, _ = b.queue_target(src, arn_attr=False)
        if queue_id is None:
            continue  # a queue outside this template
        if "BatchSize" in sub:
            b.esm_settings(c, {"BatchSize": sub["BatchSize"]}, path)
        else:
            c.batch_size = 10
        yield queue_id, c, event_path


def auto_alias_target(b: _Builder, raw: Any) -> str | None:
    """``!Ref FnAliaslive`` (``AutoPublishAlias: live``), ``!Ref Fn.Alias`` or ``!Ref Fn.Version`` -> ``Fn``."""
    if not (isinstance(raw, dict) and len(raw) == 1 and isinstance(raw.get("Ref"), str)):
        return None
    name = raw["Ref"]
    head, _, tail = name.partition(".")
    if tail in ("Alias", "Version") and b.res.get(head, {}).get("Type") == SERVERLESS_FUNCTION:
        return head  # !Ref Fn.Alias / !Ref Fn.Version (SAM resource attribute references)
    if name in b.res or "Alias" not in name:
        return None
    for fid, res in b.res.items():
        if res["Type"] != SERVERLESS_FUNCTION or not name.startswith(fid + "Alias"):
            continue
        alias = (res.get("Properties") or {}).get("AutoPublishAlias", b.globals.get("AutoPublishAlias"))
        if isinstance(alias, str) and name == f"{fid}Alias{alias}":
            return fid
    return None
