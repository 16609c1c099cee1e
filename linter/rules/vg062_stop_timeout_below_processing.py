"""VG062: a worker's stop or grace timeout is shorter than its processing time."""

from __future__ import annotations

import math

from visguard import facts
from visguard.linter.changes import set_consumer, with_changes
from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule, as_number, fmt_seconds
from visguard.linter.vocabulary import Text

RULE = Rule(
    id="VG062",
    title="Stop or grace timeout shorter than the processing time: work killed mid-message",
    severity=Severity.WARNING,
    rationale=(
        "A deploy, a scale-in or a node drain stops a worker: it gets a stop signal, then is killed when its stop "
        "timeout ends (ECS StopTimeout, 30 s by default and at most 120 s on Fargate; Kubernetes "
        "terminationGracePeriodSeconds, 30 s by default, preStop included; a framework's shutdown wait). A "
        "message whose processing takes longer than that is killed mid-work, is not deleted, and comes back "
        "after the visibility in effect: it is processed again from the start and its receive count grows "
        "towards the dead-letter queue. On ECS Managed Instances this happens even with no deploy: AWS replaces "
        "its hosts for patching (at most 14 days after launch), draining every task on them, so every "
        "long-running worker is stopped regularly; no maximum stop timeout is documented there (the 120 s cap is "
        "Fargate's), and task scale-in protection covers scale-in and deployments, not a host's replacement. "
        "Judged against the declared processing p99."
    ),
    source=facts.ECS_STOP_TIMEOUT.source,
    fix="Raise {stop_timeout} above the processing p99; where the platform caps it (Fargate: 120 s), protect busy "
    "tasks from scale-in (ECS task scale-in protection) or stop taking messages at the stop signal and finish "
    "within the timeout.",
    tags=("consumer", "worker", "shutdown", "duplicates", "profile"),
    consumers_only=True,
    kinds=("worker", "unknown"),
)


_FIX = {  # the advice in the platform's own terms (the rule's fix above is the catalogue's summary)
    "ecs": "Raise {stop_timeout} above the processing p99 (at most 120 s on Fargate); past that, protect busy tasks "
    "with ECS task scale-in protection, or stop taking messages at SIGTERM and finish within the timeout.",
    "kubernetes": "Raise {stop_timeout} above the processing p99 (a preStop hook runs within it), or stop taking "
    "messages at SIGTERM and finish within the grace period.",
    None: "Raise {stop_timeout} above the processing p99, or stop taking messages at the stop signal and finish "
    "within it.",
}
_FIX["keda"] = _FIX["kubernetes"]
# Shoryuken kills its processors `timeout` seconds after TERM and, since 7.0.3, after a soft stop (USR1/TSTP) too,
# which used to wait without bound (facts.SHORYUKEN_SOFT_STOP_BOUNDED_SINCE): a quiet-then-stop deploy no longer
# lets a long job finish either
_FIX["shoryuken"] = (
    "Raise {stop_timeout} above the processing p99: Shoryuken kills busy processors that long after TERM and, "
    f"since {'.'.join(map(str, facts.SHORYUKEN_SOFT_STOP_BOUNDED_SINCE))}, after a soft stop (USR1/TSTP) too; or "
    "make long jobs resumable (ActiveJob Continuations, stopping?)."
)
_FIX["ecs-open"] = (  # a capacity type with no documented maximum (EC2, EXTERNAL)
    "Raise {stop_timeout} above the processing p99, or stop taking messages at SIGTERM and finish within the timeout."
)
_FIX["ecs-managed-instances"] = (
    "Raise {stop_timeout} above the processing p99 (no maximum is documented for ECS Managed Instances: the 120 s "
    "cap is Fargate's), and stop taking messages at SIGTERM: host replacement drains every task, and task "
    "scale-in protection does not hold it off (it covers service scale-in and deployments)."
)
_FIX[
    "ecs-managed-instances-fargate"
] = (  # Managed Instances, but the task definition is also validated for Fargate
    "Raise {stop_timeout} above the processing p99 (at most 120 s: the task definition also requires FARGATE "
    "compatibility), or stop taking messages at SIGTERM and finish within the timeout: host replacement drains "
    "every task, and task scale-in protection does not hold it off (it covers service scale-in and deployments)."
)
# why the worker is stopped at all, by where it runs (ECS Managed Instances: host replacement, deploys or not)
_WHEN = {
    "MANAGED_INSTANCES": "a host replacement (ECS Managed Instances replaces each host for patching at most {days} "
    "days after its launch, with or without deploys), a deploy or a scale-in",
    None: "a deploy or scale-in",
}


def _capacity(c) -> str | None:
    return c.settings.get("capacity") if c.platform == "ecs" else None


def _cap(c) -> float | None:
    if c.platform != "ecs":
        return None
    cap = facts.ecs_stop_timeout_cap(_capacity(c), c.settings.get("compatibilities"))
    return None if cap is None else float(cap)


def _fix_key(c) -> str | None:
    if c.platform != "ecs":
        return c.platform if c.platform in _FIX else None
    if _capacity(c) == "MANAGED_INSTANCES":
        return "ecs-managed-instances" if _cap(c) is None else "ecs-managed-instances-fargate"
    return "ecs-open" if _cap(c) is None else "ecs"


def check(queue, ctx):
    for c in queue.consumers:
        if c.kind == "lambda" or (c.stop_timeout is not None and as_number(c.stop_timeout) is None):
            continue  # an unresolved stop timeout (a variable the loader noted) is not judged
        stop, bound = c.effective_stop_timeout, as_number(c.processing_p99)
        if stop is None or bound is None or stop >= bound:
            continue
        cap = _cap(c)
        value = int(math.ceil(bound))
        change = None if cap is not None and value > cap else set_consumer(c, "stop_timeout", value)
        declared = c.locations.get("processing_p99")
        vt = ctx.visibility_for(queue, c)
        yield with_changes(
            ctx.finding(
                queue,
                Text(
                    "{label} is killed {stop} after its stop signal ({stop_timeout}{default}, {at}), before its "
                    "processing p99 {p99}{decl}: {when} kills work mid-message, which comes back "
                    "after the visibility in effect{vt} ({queue_at}) and is processed again",
                    label=ctx.consumer_label(c),
                    when=_WHEN.get(_capacity(c), _WHEN[None]).format(
                        days=facts.ECS_MANAGED_INSTANCES_MAX_LIFETIME_DAYS
                    ),
                    stop=fmt_seconds(stop),
                    default=" not set: the platform's default" if c.stop_timeout is None else "",
                    at=ctx.where(c.location_of("stop_timeout")),
                    p99=fmt_seconds(bound),
                    decl=f" (declared at {ctx.where(declared)})" if declared is not None else "",
                    vt=f" {fmt_seconds(vt)}" if vt is not None else "",
                    queue_at=ctx.visibility_said(queue, c),
                ),
                location=c.location_of("stop_timeout") or queue.location,
                consumer=c,
                fix=Text(_FIX[_fix_key(c)], id="VG062.fix"),
            ),
            change,
        )
