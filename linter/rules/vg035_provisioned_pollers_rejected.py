"""VG035: provisioned-mode settings Lambda rejects (MaximumConcurrency with pollers, poller counts out of range)."""

from __future__ import annotations

from visguard import facts
from visguard.linter.model import Severity
from visguard.linter.rules._base import Rule
from visguard.linter.vocabulary import Text

RULE = Rule(
    id="VG035",
    title="Provisioned mode with MaximumConcurrency, or poller counts Lambda rejects",
    severity=Severity.ERROR,
    rationale=(
        "An SQS event source mapping scales either by ScalingConfig.MaximumConcurrency (standard mode) or by "
        "ProvisionedPollerConfig (provisioned mode): AWS documents them as mutually exclusive ('the maximum "
        "concurrency setting cannot be used with provisioned mode; you control concurrency through the maximum "
        "event pollers setting'). For SQS, MinimumPollers is 2-200 (default 2) and MaximumPollers 2-10,000 "
        "(default 200), and the minimum cannot exceed the maximum. Lambda rejects the mapping otherwise, so the "
        "stack fails to deploy."
    ),
    source=facts.PROVISIONED_MODE_SOURCE,
    fix="Remove {max_concurrency_at} and cap concurrency with {max_pollers} (each poller runs up to 10 "
    "concurrent invokes); keep {min_pollers} within 2-200, {max_pollers} within 2-10000, and the minimum "
    "at most the maximum.",
    tags=("lambda", "concurrency", "provisioned", "deploy"),
    consumers_only=True,
    kinds=("lambda",),
)


def _provisioned(c) -> bool:
    return c.min_pollers is not None or c.max_pollers is not None


def check(queue, ctx):
    for c in queue.consumers:
        if c.kind != "lambda" or not _provisioned(c):
            continue
        label = ctx.consumer_label(c)
        where = c.locations.get("provisioned") or c.location or queue.location
        if facts.PROVISIONED_EXCLUDES_MAX_CONCURRENCY and c.max_concurrency is not None:
            yield ctx.finding(
                queue,
                Text(
                    "{label} sets {max_concurrency} {mc} together with {provisioned_poller_config}: Lambda "
                    "rejects maximum concurrency on a mapping in provisioned mode",
                    label=label,
                    mc=c.max_concurrency,
                ),
                location=c.locations.get("max_concurrency") or where,
                consumer=c,
                fix=Text(
                    "Remove {max_concurrency_at}: in provisioned mode {max_pollers} caps concurrency at 10 "
                    "concurrent invokes a poller ({n} pollers for about {mc})",
                    n=max(int(facts.MAX_POLLERS.lo), -(-c.max_concurrency // facts.INVOKES_PER_POLLER)),
                    mc=c.max_concurrency,
                ),
            )
        lo, hi = c.min_pollers, c.max_pollers
        out_of_range = False
        for key, value, allowed in (
            ("min_pollers", lo, facts.MIN_POLLERS),
            ("max_pollers", hi, facts.MAX_POLLERS),
        ):
            if value is not None and value not in allowed:
                out_of_range = True
                yield ctx.finding(
                    queue,
                    Text(
                        "{label} sets {" + key + "} {value} (SQS accepts {lo:g}-{hi:g})",
                        label=label,
                        value=value,
                        lo=allowed.lo,
                        hi=allowed.hi,
                    ),
                    location=c.locations.get(key) or where,
                    consumer=c,
                    fix=Text("Set {" + key + "} within {lo:g}-{hi:g}.", lo=allowed.lo, hi=allowed.hi),
                )
        lo = facts.DEFAULT_MIN_POLLERS if lo is None else lo
        hi = facts.DEFAULT_MAX_POLLERS if hi is None else hi
        if lo > hi and not out_of_range:  # an order of counts Lambda would take
            yield ctx.finding(
                queue,
                Text(
                    "{label} sets {min_pollers} {lo} above {max_pollers} {hi}{default}",
                    label=label,
                    lo=lo,
                    hi=hi,
                    default=" (the default)" if c.max_pollers is None else "",
                ),
                location=c.locations.get("min_pollers") or where,
                consumer=c,
                fix=Text(
                    "Set {min_pollers} to at most {hi}, or {max_pollers} to at least {lo}.", lo=lo, hi=hi
                ),
            )
