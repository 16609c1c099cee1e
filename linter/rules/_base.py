"""What a rule is: its metadata (``RULE``) and a pure ``check(queue, ctx)`` over the shared model.

Every rule file ``vgNNN_short_name.py`` defines ``RULE = Rule(...)`` and ``check(queue, ctx)``. A rule that judges
what a consumer sets itself (its receive's visibility, a framework's options: VG070, VG072-VG074) may also define
``check_consumer(consumer, ctx)``: the linter calls it for each worker consumer whose queue is not known (no queue
of the run, or several, fit what it names: ``Model.unjoined``), once; its findings name the consumer and the
stand-in :func:`alone` for the queue. A joined consumer is judged by ``check`` only, so nothing is reported twice.
The registry in ``visguard.linter.rules`` binds them; ``visguard rules``, ``visguard explain``, the SARIF rule metadata, the
cfn-lint plugin and linter/README.md are all generated from these fields.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator

from visguard.linter.model import Finding, Queue, Severity
from visguard.linter.vocabulary import Text, catalogue
from visguard.policy import Work  # at import: in a function, it raises in policy's __getattr__ (__path__)

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time (start-up)
if TYPE_CHECKING:  # pragma: no cover
    from visguard.linter.api import RuleContext

CheckFn = Callable[[Queue, "RuleContext"], Iterator[Finding]]
CheckConsumerFn = Callable[[object, "RuleContext"], Iterator[Finding]]  # (a model Consumer, the context)

# the id of the stand-in queue of a consumer whose queue is not known, when it names none
NO_QUEUE = "<queue not known>"


class Rule:
    """A rule's metadata and its ``check``; every door's rule text is generated from these fields.

    A plain class, not a dataclass: ~30 rules are built at every ``visguard lint`` start, and a frozen
    dataclass compiles six methods at import (~0.7 ms); rules are never compared or hashed."""

    __slots__ = (
        "id", "title", "severity", "rationale", "source", "fix_text", "tags", "settings", "consumers_only", "kinds",
        "check", "check_consumer", "slug", "_fix",
    )  # fmt: skip

    def __init__(
        self,
        *,
        id: str,  # VGnnn, stable forever
        title: str,  # one line, shown in listings
        severity: Severity,  # default severity; visguard.yaml may override it
        rationale: str,  # why it matters, in a few sentences
        source: str,  # the AWS documentation page the rule rests on
        fix: str,  # what to change: a template whose fields are vocabulary keys ({visibility_timeout})
        tags: tuple[str, ...] = (),
        settings: dict | None = None,  # rule settings this rule reads, with their defaults
        # True when the rule judges a queue's consumers and can fire only on a queue that has some: the linter
        # skips it for queues without consumers (half of a fleet: DLQs, idle queues). tests/linter checks it.
        consumers_only: bool = False,
        # the consumer kinds ("lambda", "worker", "unknown") the rule judges, when it can fire only on a queue that
        # has a consumer of one of them (a Lambda rule, a worker rule): the linter skips it for other queues.
        # None: any consumer. tests/linter checks it.
        kinds: tuple[str, ...] | None = None,
        check: CheckFn | None = None,
        check_consumer: CheckConsumerFn
        | None = None,  # a consumer whose queue is not known (module docstring)
        slug: str = "",  # from the file name: vg011_visibility_below_lambda_guidance -> visibility-below-...
    ):
        self.id = id
        self.title = title
        self.severity = severity
        self.rationale = rationale
        self.source = source
        self.fix_text = Text(fix, id=f"{id}.fix")  # worded per input by visguard.linter.vocabulary
        self._fix = None  # in CloudFormation's words (the ``fix`` property): visguard rules / explain, SARIF
        self.tags = tags
        self.settings = {} if settings is None else settings
        self.consumers_only = consumers_only
        self.kinds = kinds
        self.check = check
        self.check_consumer = check_consumer
        self.slug = slug

    def bound(self, check: CheckFn, slug: str, check_consumer: CheckConsumerFn | None = None) -> Rule:
        """This rule with its ``check`` (and ``check_consumer``) and its file's slug (the catalogue binds them at
        discovery)."""
        kw = {name: getattr(self, name) for name in self.__slots__ if name not in ("_fix", "fix_text")}
        return Rule(
            **{
                **kw,
                "fix": self.fix_text.template,
                "check": check,
                "check_consumer": check_consumer,
                "slug": slug,
            }
        )

    def __repr__(self) -> str:
        return f"Rule({self.id!r}, {self.title!r})"

    @property
    def fix(self) -> str:
        """The fix as the catalogue shows it (CloudFormation's words; worded on first use, not at start-up)."""
        if self._fix is None:
            self._fix = catalogue(self.fix_text.template)
        return self._fix

    @property
    def name(self) -> str:
        """A short kebab-case name (SARIF ``rules[].name``, listings)."""
        return self.slug or self.id.lower()


def zero_in_a_test(c) -> bool:
    """Whether consumer ``c`` receives with VisibilityTimeout 0 written in a test (a file named as one,
    ``test_*.py``, ``*_test.go``, ``*.test.ts``, ``*Test.java``, or one directly in a ``tests/``, ``spec/``,
    ``__tests__/`` folder; the folders further up do not decide: a project may be checked out under any
    path): a test sets 0 on purpose, to
    see a message it does not delete come back at once (against an emulator such as moto, LocalStack or
    ElasticMQ, one receive after another), and no worker of the application receives so. VG061 and VG070 (the
    rules a receive's 0 raises) do not judge it; the queue's own findings (VG020, ...) stay."""
    o = c.visibility_override
    at = c.location
    if o is None or isinstance(o, bool) or o != 0 or at is None or not at.file:
        return False
    from visguard.linter.loaders.code.engine import _TEST_DIRS, _TEST_NAME  # only for a receive's 0

    parts = at.file.replace("\\", "/").split("/")
    return bool(_TEST_NAME.search(parts[-1])) or (len(parts) > 1 and parts[-2] in _TEST_DIRS)


def alone(c) -> Queue:
    """The stand-in queue of consumer ``c`` whose queue is not known (``check_consumer``): its id is what ``c``
    names its queue by (``$ORDERS_QUEUE_URL``, a URL), or :data:`NO_QUEUE`; it holds ``c`` alone, so a finding on it
    is worded in the consumer's terms; it has no settings of its own (a rule must not read them)."""
    from visguard.linter.model import Location

    ref = c.queue_ref
    loc = c.location or (ref.location if ref is not None else None) or Location("<unknown>")
    return Queue(
        id=str(ref) if ref is not None else NO_QUEUE, location=loc, source=c.source or "code", consumers=[c]
    )


def of_queue(queue, ctx, template: str = " of {queue} ({queue_at})"):
    """The queue as a consumer finding names it (`` of orders (main.tf:3)``); nothing when it is not known (a
    consumer judged alone)."""
    return "" if queue is None else Text(template, queue=queue.id, queue_at=ctx.where(queue.location))


def unknown_queue_said(c) -> str:
    """Why a consumer alone is judged, for its message: ``its queue $ORDERS_URL is not known here``."""
    ref = c.queue_ref
    if ref is None:
        return "which queue it reads is not known here"
    return f"its queue {ref} is not known here"


def fmt_seconds(value: float) -> str:
    """``30 s``, ``1.5 s``, ``900 s (15 min)``, ``43200 s (12 h)``: the unit people set next to the number."""
    v = float(value)
    text = f"{int(v)} s" if v == int(v) else f"{v:g} s"
    if v >= 172_800 and v % 86_400 == 0:
        text += f" ({int(v // 86_400)} days)"
    elif v >= 7200 and v % 3600 == 0:
        text += f" ({int(v // 3600)} h)"
    elif v >= 120 and v % 60 == 0:
        text += f" ({int(v // 60)} min)"
    return text


def fmt_location(loc) -> str:
    """Where a value is written, for a message that names another place than the finding's: ``main.tf:12``,
    ``template.yaml:40``, or the file and the path inside it when the line is not known."""
    if loc is None:
        return "an unknown place"
    if loc.line:
        return f"{loc.file}:{loc.line}"
    where = loc.construct_path or loc.path
    return f"{loc.file} ({where})" if where else str(loc.file)


def fmt_rate(rate: float) -> str:
    """A probability as a short percentage: ``2.9 %``, ``0.04 %``, ``<0.01 %``."""
    pct = 100.0 * rate
    if pct == 0:
        return "0 %"
    if pct < 0.01:
        return "<0.01 %"
    if pct < 1:
        return f"{pct:.2g} %"
    return f"{pct:.1f} %" if pct < 10 else f"{pct:.0f} %"


def as_number(value) -> float | None:
    """A setting as written, when it is a number (a loader keeps unresolved values as strings)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    return None


def unresolved(ref) -> bool:
    """A reference the loader could not resolve: ``${Param}``, ``<imported with Fn::ImportValue ...>``."""
    return isinstance(ref, str) and ("${" in ref or (ref.startswith("<") and ref.endswith(">")))


def cfnlint_id(rule: Rule) -> str:
    """The rule's id in the cfn-lint plugin: VG011 (warning) -> W9011. cfn-lint derives a rule's severity from
    the first letter of its id, and reserves E9xxx/W9xxx/I9xxx for user rules."""
    return f"{ {'error': 'E', 'warning': 'W', 'info': 'I'}[rule.severity.value] }9{rule.id[2:]}"


def work_of(c) -> object | None:
    """A model Consumer as the visibility-need policy sees it (``visguard.policy.Work``); None when its kind or
    function is unknown (nothing to derive a need from)."""
    if c.kind == "lambda":
        if c.function_id is None:
            return None
        bound = c.durable_bound
        return Work(
            "lambda",
            c.effective_function_timeout,
            c.effective_batching_window,
            durable_bound=bound[0] if bound is not None else None,
            label=c.id,
        )
    if c.kind != "worker" and c.processing_p99 is None:
        return None
    return Work(
        "worker",
        p50=c.processing_p50,
        p99=c.processing_p99,
        heartbeat_interval=c.heartbeat_interval,
        heartbeat_extend_by=c.heartbeat_extend_by,
        label=c.id,
    )


def need_of(c, ctx):
    """The policy's need (``visguard.policy.Need``) of one consumer under the rule settings, or None (computed
    once per consumer and settings: ``RuleContext.need``)."""
    return ctx.need(c)


def queue_need_of(queue, ctx, *, profiled_only: bool = False):
    """The policy's need of a queue's consumers (Lambda guidance, declared profiles, heartbeats), or None.
    ``profiled_only``: workers without a processing profile or heartbeat do not count (their need would be the
    SQS default, a guess). Computed once per queue and settings: ``RuleContext.queue_need``."""
    return ctx.queue_need(queue, profiled_only=profiled_only)


def raise_visibility(how: str, seconds: float) -> Text:
    """ "Set {visibility_timeout} to at least <how>.", ``how`` ending in ``seconds`` (e.g. "6 x 60 s = 360 s (6
    min)"): each input words it (Terraform: ``visibility_timeout_seconds = 360 (at least ...)``)."""
    return Text(
        "Set {visibility_timeout} to at least {how}.",
        id="raise_visibility",
        how=how,
        value=math.ceil(seconds),
    )


def need_fix(need) -> Text:
    """The fix for a need: a timeout, or a heartbeat plan (and the split-the-work advice past 12 h)."""
    if need.heartbeat is None or need.basis == "heartbeat":
        return raise_visibility(fmt_seconds(need.visibility_timeout), need.visibility_timeout)
    hb = need.heartbeat
    split = " Some work still runs past 12 h: split it into steps (Step Functions) or checkpoint it."
    return Text(
        "Add a heartbeat: {plan}; set {visibility_timeout} to {timeout} (a timeout alone cannot: {why}).{split}",
        id="heartbeat",
        plan=hb.text(),
        timeout=fmt_seconds(need.visibility_timeout),
        why=need.why.split(";")[0],
        split="" if need.feasible else split,
        extend_by=hb.extend_by,
        interval=hb.interval,
    )


# --- durable functions behind an event source mapping (issue 36, fact-drift L8) ---------------------------------
def durable_bound_said(c) -> Text | str:
    """What bounds the durable execution of ``c``'s function, for a message: ``its DurableConfig.ExecutionTimeout``
    or ``the 900 s limit of an event source mapping invocation`` (worded per input); "" when not durable."""
    bound = c.durable_bound
    if bound is None:
        return ""
    if bound[1] == "execution_timeout":
        return Text("its {durable_execution_timeout}", id="durable_bound.execution_timeout")
    return Text(
        "the {limit} s limit of an event source mapping invocation{on}, shorter than its "
        "{durable_execution_timeout}",
        id="durable_bound.invocation_limit",
        limit=f"{bound[0]:g}",
        on=" on Lambda Managed Instances" if c.capacity_provider is not None else "",
    )


def durable_facts(c) -> dict | None:
    """The durable bound of ``c`` as a finding's structured facts (``Finding.estimate``): its seconds and what set
    it (``execution_timeout`` | ``invocation_limit``), and that AWS states no visibility multiple for it."""
    bound = c.durable_bound
    if bound is None:
        return None
    return {"durable_bound": bound[0], "durable_bound_basis": bound[1], "durable_multiple_stated": False}
