"""Synthetic fleets in the inventory format (``visguard audit generate``): the demo's default and the scale
benchmark's input.

Everything is drawn with numpy over whole arrays (one draw per attribute for all queues), then rendered to
JSON Lines with plain string formatting, so a million queues take seconds. The mix: standard and FIFO queues,
main queues with and without DLQs, DLQ chains, Lambda consumers (timeouts 3-900 s, batch sizes, batching
windows, partial batch responses, some mappings in another account, some function ARNs qualified with an
alias), workers with a declared processing profile, worker records (ECS services naming a queue in their
environment, some by another account's queue URL; EventBridge pipes with Lambda targets), CloudWatch evidence (receives, deletes and the oldest
message's age: most queues healthy, some redelivering because their timeout is short, their consumer fails or
crashes, or their batches fail whole; some with no traffic; DLQs that fill), unconsumed queues, drifted
settings (each rule of the catalogue has some queues that break it) and a few malformed attribute values
(a RedrivePolicy that is not JSON, a missing or non-numeric VisibilityTimeout) for the audit's quarantine.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np
from visguard import facts
from visguard.audit import inventory

REGIONS = ("us-east-1", "eu-west-1", "ap-southeast-2")
SERVICES = np.array(
    ["orders", "payments", "billing", "emails", "events", "ingest", "thumbnails", "reports", "audit", "sync"]
)
FOURTEEN_DAYS = 14 * 86_400


@dataclass(frozen=True)
class Shares:
    """Fractions of the fleet; the defaults give every rule something to find."""

    fifo: float = 0.10
    dlq: float = 0.60  # main queues with a DLQ
    chain: float = 0.01  # DLQs that have a DLQ of their own (of all queues)
    lambda_consumer: float = 0.55
    worker: float = 0.25  # the rest of the main queues have no known consumer
    cross_account: float = 0.05  # mappings created in another account of the same region
    qualified: float = 0.10  # mappings naming an alias-qualified function ARN
    drift_below_timeout: float = 0.03  # VT < function timeout
    drift_below_guidance: float = 0.12  # timeout <= VT < 6 x timeout + window
    drift_worker_short: float = 0.15  # VT < declared processing p99
    drift_out_of_range: float = 0.005  # VT above 43,200
    drift_dlq_type: float = 0.003  # DLQ of the other type (FIFO vs standard)
    dangling: float = 0.003  # redrive target deleted from its (collected) account and region: VG004
    bad_max_receive: float = 0.002  # maxReceiveCount outside 1-1,000
    dlq_short_retention: float = 0.05
    ecs_worker: float = 0.03  # main queues without a known consumer read by an ECS service (a worker record)
    pipe_worker: float = 0.01  # ... or by an EventBridge pipe
    malformed_redrive: float = 0.0005  # RedrivePolicy that is not JSON
    missing_vt: float = 0.0005  # no VisibilityTimeout attribute
    non_numeric_vt: float = 0.0002  # VisibilityTimeout "thirty"


MAX_QUEUES = 50_000_000  # a fleet far beyond any real organisation (1M queues take ~10 s and ~1 GB)
MAX_ACCOUNTS = 100_000


def account_ids(m: int) -> list[str]:
    return [f"{100000000000 + 111 * (k + 1):012d}" for k in range(m)]


def generate(
    n_queues: int, n_accounts: int, seed: int, out: str, shares: Shares = Shares(), *, owners: bool = False
) -> dict:
    """Write a fleet of exactly ``n_queues`` queues to ``out`` and return its counts.

    The phases draw from one random generator in a fixed order (same seed, same fleet): the queues' slots and
    names, their redrive policies, consumers, visibility timeouts and other attributes, CloudWatch evidence,
    the Lambda side (mappings and functions), then the rendering into partition files. ``owners`` adds owner
    records (issue 39 §1: :data:`OWNER_SHARES` of the queues owned by a CloudFormation stack or a Terraform
    state), drawn from a generator of their own: the rest of the fleet is the same with or without them."""
    if n_queues < 1 or n_accounts < 1:
        raise ValueError("need at least one queue and one account")
    f = SimpleNamespace(
        rng=np.random.default_rng(seed), sh=shares, n=n_queues, n_accounts=n_accounts, seed=seed
    )
    f.accounts = np.array(account_ids(n_accounts))
    f.regions = np.array(REGIONS)
    _slots(f)
    _redrive(f)
    _consumers(f)
    _attributes(f)
    _lambda_side(f)
    _evidence(f)
    _worker_side(f)
    f.owners = owners
    return _render(f, out)


def _pick(f: SimpleNamespace, candidates: np.ndarray, share: float) -> np.ndarray:
    """Exactly round(share x candidates) of them (at least one in fleets of 200+ queues), chosen at random."""
    idx = np.flatnonzero(candidates)
    k = min(len(idx), max(round(share * len(idx)), 1 if f.n >= 200 else 0))
    mask = np.zeros(len(candidates), bool)
    mask[f.rng.choice(idx, k, replace=False)] = True
    return mask


def _slots(f: SimpleNamespace) -> None:
    """Slots [main queues | their DLQs | chained DLQs (DLQs of DLQs)]: accounts, regions, types, names, ARNs."""
    rng, sh, n = f.rng, f.sh, f.n
    n_chain = int(n * sh.chain)
    rest = n - n_chain
    n_main = max(1, round(rest / (1 + sh.dlq)))
    n_dlq = rest - n_main
    n_chain = min(n_chain, n_dlq)
    n_main = n - n_dlq - n_chain
    main_of_dlq = rng.permutation(n_main)[:n_dlq]  # DLQ j serves main queue main_of_dlq[j]
    dlq_idx = np.arange(n_main, n_main + n_dlq)
    chain_idx = np.arange(n_main + n_dlq, n)  # chain c is the DLQ of DLQ c

    owner = np.arange(n)  # the main queue whose account, region and type a slot inherits
    owner[dlq_idx] = main_of_dlq
    owner[chain_idx] = main_of_dlq[: len(chain_idx)]
    acct_i = rng.integers(0, f.n_accounts, n_main)[np.minimum(owner, n_main - 1)]
    reg_i = rng.integers(0, len(f.regions), n_main)[np.minimum(owner, n_main - 1)]
    fifo = (rng.random(n_main) < sh.fifo)[owner]
    flip = np.zeros(n, bool)
    flip[dlq_idx] = rng.random(n_dlq) < sh.drift_dlq_type
    fifo = fifo ^ flip

    svc = SERVICES[rng.integers(0, len(SERVICES), n_main)][owner]
    base = np.char.add(np.char.add(svc, "-"), np.char.zfill(owner.astype(str), 7))
    suffix = np.full(n, "", dtype=object)
    suffix[dlq_idx] = "-dlq"
    suffix[chain_idx] = "-dlq-dlq"
    f.names = [
        f"{b}{s}{'.fifo' if q else ''}"
        for b, s, q in zip(base.tolist(), suffix.tolist(), fifo.tolist(), strict=True)
    ]
    f.acct, f.reg = f.accounts[acct_i], f.regions[reg_i]
    f.arns = [
        f"arn:aws:sqs:{r}:{a}:{nm}" for r, a, nm in zip(f.reg.tolist(), f.acct.tolist(), f.names, strict=True)
    ]
    f.n_main, f.n_dlq, f.n_chain = n_main, n_dlq, n_chain
    f.main_of_dlq, f.dlq_idx, f.chain_idx = main_of_dlq, dlq_idx, chain_idx
    f.acct_i, f.reg_i, f.fifo, f.svc = acct_i, reg_i, fifo, svc


def _redrive(f: SimpleNamespace) -> None:
    f.target = np.full(f.n, -1)
    f.target[f.main_of_dlq] = f.dlq_idx
    f.target[f.dlq_idx[: len(f.chain_idx)]] = f.chain_idx
    f.mrc = f.rng.choice([1, 2, 3, 5, 10, 20], f.n, p=[0.04, 0.06, 0.15, 0.4, 0.3, 0.05])
    bad = _pick(f, np.ones(f.n, bool), f.sh.bad_max_receive)
    f.mrc[bad] = f.rng.choice([0, 2000], int(bad.sum()))
    f.dangling = _pick(f, f.target >= 0, f.sh.dangling)


def _consumers(f: SimpleNamespace) -> None:
    """Who reads each main queue (Lambda, a worker fleet, nobody known) and the consumers' settings."""
    rng, sh, n, n_main = f.rng, f.sh, f.n, f.n_main
    kind_draw = rng.random(n_main)
    f.is_lambda = np.zeros(n, bool)
    f.is_lambda[:n_main] = kind_draw < sh.lambda_consumer
    f.is_worker = np.zeros(n, bool)
    f.is_worker[:n_main] = (kind_draw >= sh.lambda_consumer) & (kind_draw < sh.lambda_consumer + sh.worker)
    f.timeout = rng.choice(
        [3, 5, 10, 30, 60, 120, 300, 600, 900], n, p=[0.1, 0.1, 0.15, 0.25, 0.15, 0.1, 0.08, 0.04, 0.03]
    )
    window = np.where(rng.random(n) < 0.7, 0, rng.choice([1, 5, 20, 60, 300], n))
    window[f.fifo] = 0
    batch = rng.choice([1, 5, 10, 100, 1000], n, p=[0.2, 0.2, 0.4, 0.15, 0.05])
    batch[f.fifo] = np.minimum(batch[f.fifo], 10)
    no_window = (batch > 10) & (window == 0) & (rng.random(n) < 0.9)
    window[no_window] = rng.choice([1, 5, 20], int(no_window.sum()))
    f.window, f.batch = window, batch
    f.partial = rng.random(n) < 0.4
    f.p99_worker = np.round(np.exp(rng.normal(np.log(20), 1.0, n)), 1) + 0.5
    f.p50_worker = np.round(f.p99_worker / rng.uniform(3, 8, n), 2)


def _attributes(f: SimpleNamespace) -> None:
    """Visibility timeouts (healthy by default, drifted for a share), retention, malformed values."""
    rng, sh, n = f.rng, f.sh, f.n
    vt = np.full(n, 30)
    guidance = 6 * f.timeout + f.window
    u = rng.random(n)
    lam_vt = np.where(
        u < sh.drift_below_timeout,
        np.maximum(1, f.timeout // 2),
        np.where(
            u < sh.drift_below_timeout + sh.drift_below_guidance,
            f.timeout + (guidance - f.timeout) // 3,
            guidance,
        ),
    )
    wk_vt = np.where(
        u < sh.drift_worker_short, np.maximum(1, f.p99_worker * 0.5), f.p99_worker * rng.uniform(2, 4, n)
    )
    vt = np.where(f.is_lambda, lam_vt, np.where(f.is_worker, np.ceil(wk_vt), vt)).astype(np.int64)
    vt = np.minimum(vt, facts.MAX_VISIBILITY)
    vt[_pick(f, np.ones(n, bool), sh.drift_out_of_range)] = 50_000
    f.vt = vt

    retention = np.where(rng.random(n) < 0.7, facts.DEFAULT_RETENTION, facts.RETENTION.hi)
    f.dlq_like = np.zeros(n, bool)
    f.dlq_like[f.n_main :] = True
    retention[f.dlq_like] = np.where(
        rng.random(int(f.dlq_like.sum())) < sh.dlq_short_retention,
        facts.DEFAULT_RETENTION,
        facts.RETENTION.hi,
    )
    f.retention = retention

    f.malformed_rp = _pick(f, f.target >= 0, sh.malformed_redrive)
    f.missing_vt = _pick(f, ~f.malformed_rp, sh.missing_vt)
    f.text_vt = _pick(f, ~f.missing_vt & ~f.malformed_rp, sh.non_numeric_vt)


def _evidence(f: SimpleNamespace) -> None:
    """CloudWatch evidence over 14 days: receives, deletes and the oldest message's age (drawn from a stream of
    its own, after the Lambda side, whose processing times it uses).

    Main queues: traffic is lognormal around 50,000 messages (3 % have none). Redelivery (received / deleted - 1)
    is a trickle on healthy queues; it is the share of processing that outlasts the visibility timeout where the
    timeout is short (a lognormal tail from the consumer's p50/p99, x the batch for Lambda batches without
    ReportBatchItemFailures), but a third of the workers whose declared profile says so are in fact fine (a stale
    profile: the estimate is high, the observation is not); 6 % of the consumers fail or crash on 2-60 % of their
    messages whatever their settings. Failures with a redrive policy fill the DLQ (its oldest message ages);
    without one the oldest message lives to its retention. DLQs are read by people now and then (receives, no
    deletes)."""
    from visguard.engine.risk_array import ndtr  # the risk model's normal CDF (scipy's when installed)

    rng, n = np.random.default_rng([f.seed, 27]), f.n
    main = np.zeros(n, bool)
    main[: f.n_main] = True
    received = np.round(np.exp(rng.normal(np.log(50_000), 1.5, n)))
    received[main & (rng.random(n) < 0.03)] = 0
    # processing-time tail beyond the timeout: lognormal from p50/p99 (z99 = 2.326)
    p50, p99 = f.p50_worker.copy(), f.p99_worker.copy()
    lam = f.lam
    p50[lam], p99[lam] = np.maximum(f.d50, 1e-3), np.maximum(f.d99, 2e-3)
    sigma = np.log(np.maximum(p99 / np.maximum(p50, 1e-3), 1.0001)) / 2.326
    tail = 1 - ndtr((np.log(np.maximum(f.vt, 1e-3)) - np.log(np.maximum(p50, 1e-3))) / sigma)
    batch = np.ones(n)
    batch[lam] = np.where(f.partial[lam], 1, f.batch[lam])
    consumed = f.is_lambda | f.is_worker
    rate = rng.uniform(0, 0.0015, n)  # healthy: stale-handle noise
    rate = np.where(consumed, rate + np.minimum(tail * batch, 3.0), rate)
    stale = f.is_worker & (f.vt < f.p99_worker) & (rng.random(n) < 1 / 3)
    rate[stale] = rng.uniform(0, 0.002, int(stale.sum()))
    failing = main & (rng.random(n) < 0.06)
    rate[failing] += rng.uniform(0.02, 0.6, int(failing.sum())) * np.minimum(batch[failing], 10)
    f.received = received
    f.deleted = np.where(main, np.round(received / (1 + rate)), 0)
    f.age = np.round(rng.uniform(1, 600, n))
    no_dlq = main & (f.target < 0) & failing
    f.age[no_dlq] = np.round(f.retention[no_dlq] * rng.uniform(0.6, 1.0, int(no_dlq.sum())))
    # DLQs: people look at a few messages (receives, no deletes); failures of their source fill them
    f.received[~main] = np.where(
        rng.random(int((~main).sum())) < 0.2, rng.integers(1, 50, int((~main).sum())), 0
    )
    f.age[~main] = 0
    fed = f.target[main & failing & (f.target >= 0)]
    f.age[fed] = np.round(rng.uniform(3_600, 10 * 86_400, len(fed)))
    f.has_metrics = main | f.dlq_like
    f.has_metrics[main & ~consumed] = rng.random(int((main & ~consumed).sum())) < 0.5


def _lambda_side(f: SimpleNamespace) -> None:
    """One mapping and one function per Lambda-consumed queue: accounts (some across), qualifiers, limits."""
    rng, sh = f.rng, f.sh
    lam = np.flatnonzero(f.is_lambda)
    k = len(lam)
    m_acct_i = f.acct_i[lam].copy()
    cross = (rng.random(k) < sh.cross_account) & (f.n_accounts > 1)
    m_acct_i[cross] = (
        m_acct_i[cross] + 1 + rng.integers(0, max(1, f.n_accounts - 1), int(cross.sum()))
    ) % f.n_accounts
    f.lam, f.m_acct_i = lam, m_acct_i
    f.qualified = rng.random(k) < sh.qualified
    f.qual_record = f.qualified & (rng.random(k) < 0.5)  # else only the unqualified function is on record
    f.reserved = np.where(rng.random(k) < 0.1, rng.choice([1, 5, 20, 100], k), -1)
    f.max_conc = np.where(rng.random(k) < 0.2, rng.choice([2, 5, 50, 200], k), -1)
    f.has_dur = rng.random(k) < 0.95
    f.d99 = np.round(f.timeout[lam] * rng.beta(2, 5, k), 3)
    f.d50 = np.round(f.d99 / rng.uniform(2, 6, k), 3)
    f.enabled = rng.random(k) < 0.95


def _worker_side(f: SimpleNamespace) -> None:
    """Worker records for a few main queues without a known consumer (drawn from a stream of their own, so the
    rest of the fleet is the same as without them): ECS services (stop timeout 30 s, or below the declared p99
    for a third; 1 in 10 in another account, naming the queue by URL) and pipes with a Lambda target (its
    timeout above the queue's visibility timeout for some; a declared p99 for half)."""
    rng = np.random.default_rng([f.seed, 24])
    free = np.zeros(f.n, bool)
    free[: f.n_main] = ~f.is_lambda[: f.n_main] & ~f.is_worker[: f.n_main]
    f.ecs = _pick_with(rng, f, free, f.sh.ecs_worker)
    f.pipe = _pick_with(rng, f, free & ~f.ecs, f.sh.pipe_worker)
    n = f.n
    f.stop = np.where(rng.random(n) < 1 / 3, np.maximum(2, np.floor(f.p99_worker / 2)), 30).astype(np.int64)
    f.declared = rng.random(n) < 0.5
    f.desired = rng.integers(1, 20, n)
    f.w_cross = (rng.random(n) < 0.1) & (f.n_accounts > 1)
    f.w_acct_i = np.where(f.w_cross, (f.acct_i + 1) % f.n_accounts, f.acct_i)
    f.pipe_timeout = rng.choice([3, 10, 20, 60, 300], n)
    f.pipe_batch = rng.choice([1, 10, 100], n)
    f.pipe_window = rng.choice([0, 5, 20], n)


def _pick_with(rng, f: SimpleNamespace, candidates: np.ndarray, share: float) -> np.ndarray:
    """Like :func:`_pick`, from ``rng``."""
    idx = np.flatnonzero(candidates)
    k = min(len(idx), max(round(share * f.n_main), 1 if f.n >= 200 else 0))  # a share of the main queues
    mask = np.zeros(len(candidates), bool)
    mask[rng.choice(idx, k, replace=False)] = True
    return mask


def _render(f: SimpleNamespace, out: str) -> dict:
    """JSON Lines per account and region (plain string formatting: a million queues in seconds)."""
    lines: dict[int, list[str]] = {}
    counts: dict[int, dict] = {}

    def put(p: int, kind: str, line: str) -> None:
        lines.setdefault(p, []).append(line)
        c = counts.setdefault(
            p, {"queue": 0, "mapping": 0, "function": 0, "worker": 0, "owner": 0, "error": 0}
        )
        c[kind] += 1

    _render_queues(f, put)
    _render_lambda(f, put)
    _render_workers(f, put)
    n_owners = _render_owners(f, put) if f.owners else 0
    n_regions = len(f.regions)
    n_parts = len(f.accounts) * n_regions
    for p in range(n_parts):
        a, r = f.accounts[p // n_regions], f.regions[p % n_regions]
        inventory.write_lines(out, str(a), str(r), lines.get(p, []), counts.get(p, {}))
    return {
        "queues": f.n,
        "accounts": f.n_accounts,
        "partitions": n_parts,
        "mappings": len(f.lam),
        "functions": len(f.lam),
        "workers": int(f.ecs.sum() + f.pipe.sum()),
        "dlqs": f.n_dlq + f.n_chain,
        **({"owners": n_owners} if f.owners else {}),
    }


OWNER_SHARES = (
    0.5,
    0.3,
)  # of the queues: owned by a CloudFormation stack, by a Terraform state (the rest: none)


def _render_owners(f: SimpleNamespace, put) -> int:
    """An owner record for :data:`OWNER_SHARES` of the queues: a stack per service, account and region (logical id
    and CDK construct path from the queue's name), or a state per service and account (a for_each address in a
    module per service). Returns how many."""
    rng = np.random.default_rng([f.seed, 39])  # its own stream: the fleet does not change with --owners
    draw = rng.random(f.n)
    cfn, tf = OWNER_SHARES
    parts = (f.acct_i * len(f.regions) + f.reg_i).tolist()
    rows = zip(
        parts, f.acct.tolist(), f.reg.tolist(), f.names, f.arns, f.svc.tolist(), draw.tolist(), strict=True
    )
    n = 0
    for p, a, r, nm, arn, sv, d in rows:
        common = (
            f'{{"kind":"owner","account":"{a}","region":"{r}","resource":"{arn}","resource_type":"AWS::SQS::Queue",'
            f'"url":"https://sqs.{r}.amazonaws.com/{a}/{nm}",'
        )
        if d < cfn:
            stack = f"{sv}-{r}"
            lid = "".join(ch for ch in nm.title() if ch.isalnum())
            put(p, "owner", common + f'"owner":"cloudformation","stack":"{stack}",'
                f'"stack_id":"arn:aws:cloudformation:{r}:{a}:stack/{stack}/00000000-0000-4000-8000-{a}",'
                f'"logical_id":"{lid}","construct_path":"{stack}/{nm}/Resource","root_stack":null}}')  # fmt: skip
        elif d < cfn + tf:
            put(p, "owner", common + f'"owner":"terraform","state":"s3://tf-state-{a}/{sv}.tfstate",'
                f'"address":"module.{sv}.aws_sqs_queue.this[\\"{nm}\\"]","module":"module.{sv}"}}')  # fmt: skip
        else:
            continue
        n += 1
    return n


def _render_queues(f: SimpleNamespace, put) -> None:
    arns = f.arns
    rows = zip(
        (f.acct_i * len(f.regions) + f.reg_i).tolist(),
        f.acct.tolist(),
        f.reg.tolist(),
        f.names,
        arns,
        f.vt.tolist(),
        f.retention.tolist(),
        f.fifo.tolist(),
        f.target.tolist(),
        f.mrc.tolist(),
        f.dangling.tolist(),
        f.malformed_rp.tolist(),
        f.missing_vt.tolist(),
        f.text_vt.tolist(),
        f.is_worker.tolist(),
        f.p50_worker.tolist(),
        f.p99_worker.tolist(),
        f.has_metrics.tolist(),
        f.received.tolist(),
        f.deleted.tolist(),
        f.age.tolist(),
        f.svc.tolist(),
        strict=True,
    )
    for p, a, r, nm, arn, v, ret, fi, t, mr, dang, mal, miss, txt, wk, p50, p99, hm, rc, dl, ag, sv in rows:
        attrs = [f'"QueueArn":"{arn}"', f'"MessageRetentionPeriod":"{ret}"', '"DelaySeconds":"0"']
        if not miss:
            attrs.append(f'"VisibilityTimeout":"{"thirty" if txt else v}"')
        if fi:
            attrs.append('"FifoQueue":"true"')
        if t >= 0:
            dlq_arn = arns[t] + ("-gone" if dang else "")
            rp = (
                f"{{deadLetterTargetArn: {dlq_arn}, maxReceiveCount: {mr}"
                if mal
                else f'{{"deadLetterTargetArn":"{dlq_arn}","maxReceiveCount":{mr}}}'
            )
            attrs.append(f'"RedrivePolicy":{json.dumps(rp)}')
        tags = f'"team":"{sv}"'
        if wk:
            tags += f',"visguard:consumer":"worker","visguard:processing-p50":"{p50}","visguard:processing-p99":"{p99}"'
        metrics = f'{{"received":{rc},"deleted":{dl},"age_oldest_max":{ag}}}' if hm else "null"
        put(
            p,
            "queue",
            f'{{"kind":"queue","account":"{a}","region":"{r}","arn":"{arn}","name":"{nm}",'
            f'"url":"https://sqs.{r}.amazonaws.com/{a}/{nm}","attributes":{{{",".join(attrs)}}},'
            f'"tags":{{{tags}}},"dlq_sources":null,"metrics":{metrics}}}',
        )


def _render_lambda(f: SimpleNamespace, put) -> None:
    n_regions = len(f.regions)
    for k, qi in enumerate(f.lam.tolist()):
        ma = f.accounts[f.m_acct_i[k]]
        r = f.reg[qi]
        p = int(f.m_acct_i[k]) * n_regions + int(f.reg_i[qi])
        fn_arn = f"arn:aws:lambda:{r}:{ma}:function:fn-{qi:07d}"
        named = fn_arn + ":live" if f.qualified[k] else fn_arn
        resp = '["ReportBatchItemFailures"]' if f.partial[qi] else "[]"
        mc = int(f.max_conc[k])
        put(
            p,
            "mapping",
            f'{{"kind":"mapping","account":"{ma}","region":"{r}","uuid":"{f.seed & 0xFFFF:04x}{qi:08x}-0000-4000-8000-000000000000",'
            f'"event_source_arn":"{f.arns[qi]}","function_arn":"{named}","state":"{"Enabled" if f.enabled[k] else "Disabled"}",'
            f'"batch_size":{int(f.batch[qi])},"batching_window":{int(f.window[qi])},'
            f'"maximum_concurrency":{mc if mc > 0 else "null"},"function_response_types":{resp}}}',
        )
        rc_ = int(f.reserved[k])
        dur = (
            f'"duration_p50":{f.d50[k]},"duration_p99":{f.d99[k]}'
            if f.has_dur[k]
            else '"duration_p50":null,"duration_p99":null'
        )
        put(
            p,
            "function",
            f'{{"kind":"function","account":"{ma}","region":"{r}","arn":"{named if f.qual_record[k] else fn_arn}",'
            f'"name":"fn-{qi:07d}","timeout":{int(f.timeout[qi])},"memory":512,'
            f'"reserved_concurrency":{rc_ if rc_ >= 0 else "null"},{dur}}}',
        )


def _render_workers(f: SimpleNamespace, put) -> None:
    n_regions = len(f.regions)
    for qi in np.flatnonzero(f.ecs | f.pipe).tolist():
        r, nm, p99, p50 = f.reg[qi], f.names[qi], f.p99_worker[qi], f.p50_worker[qi]
        profile = (
            f'"processing_p50":{p50},"processing_p99":{p99}'
            if f.declared[qi]
            else ('"processing_p50":null,"processing_p99":null')
        )
        if f.ecs[qi]:
            a_i = int(f.w_acct_i[qi])
            a = f.accounts[a_i]
            queue = f"https://sqs.{r}.amazonaws.com/{f.acct[qi]}/{nm}" if f.w_cross[qi] else f.arns[qi]
            svc = f"arn:aws:ecs:{r}:{a}:service/workers/{nm}-worker"
            fields = (
                f'"arn":"{svc}","name":"{nm}-worker","platform":"ecs","queue":"{queue}","link":"env",'
                f'"link_ref":"QUEUE_URL","state":"ACTIVE","stop_timeout":{int(f.stop[qi])},'
                f'"desired_count":{int(f.desired[qi])},"batch_size":null,"batching_window":null,'
                f'"work_timeout":null,"heartbeat":null,{profile},'
                f'"task_definition":"arn:aws:ecs:{r}:{a}:task-definition/{nm}:1","container":"app","target":null'
            )
        else:
            a_i, a = int(f.acct_i[qi]), f.acct[qi]
            fields = (
                f'"arn":"arn:aws:pipes:{r}:{a}:pipe/{nm}-pipe","name":"{nm}-pipe","platform":"pipes",'
                f'"queue":"{f.arns[qi]}","link":"source","link_ref":null,"state":"RUNNING","stop_timeout":null,'
                f'"desired_count":null,"batch_size":{int(f.pipe_batch[qi])},"batching_window":{int(f.pipe_window[qi])},'
                f'"work_timeout":{int(f.pipe_timeout[qi])},"heartbeat":false,{profile},"task_definition":null,'
                f'"container":null,"target":"arn:aws:lambda:{r}:{a}:function:{nm}-target"'
            )
        put(
            a_i * n_regions + int(f.reg_i[qi]),
            "worker",
            f'{{"kind":"worker","account":"{a}","region":"{r}",{fields}}}',
        )


def main(argv: list[str], prog: str) -> int:
    import sys
    import time

    from visguard.audit.cli import ArgumentParser
    from visguard.errors import VisguardError

    ap = ArgumentParser(
        prog=prog, description="Write a synthetic fleet inventory (JSON Lines per account and region)."
    )
    ap.add_argument("--queues", type=int, required=True, help="number of queues (DLQs included)")
    ap.add_argument("--accounts", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", required=True, help="inventory directory")
    ap.add_argument(
        "--owners",
        action="store_true",
        help="also owner records: half the queues owned by a CloudFormation stack, 30%% by a Terraform state",
    )
    args = ap.parse_args(argv)
    if not 1 <= args.queues <= MAX_QUEUES or not 1 <= args.accounts <= MAX_ACCOUNTS:
        raise VisguardError(
            f"--queues must be 1-{MAX_QUEUES:,} and --accounts 1-{MAX_ACCOUNTS:,}", place="arguments"
        )
    from visguard.audit import inventory
    from visguard.neutralize import printable

    inventory.check_root(args.out)
    t0 = time.perf_counter()
    c = generate(args.queues, args.accounts, args.seed, args.out, owners=args.owners)
    print(
        f"generated {c['queues']:,} queues ({c['dlqs']:,} DLQs), {c['mappings']:,} mappings, "
        f"{c['accounts']} accounts x {len(REGIONS)} regions in {time.perf_counter() - t0:.1f} s -> {printable(args.out)}",
        file=sys.stderr,
    )
    return 0
