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
  that id, or to ``<Function>.Alias`` / ``<Function>.Version``, is the function.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from visguard.linter.model import Consumer

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
