"""Synthetic fleets in the inventory format (``visguard audit generate``): the demo's default and the scale
benchmark's input.

Everything is drawn with numpy over whole arrays (one draw per attribute for all queues), then rendered to
JSON Lines with plain string formatting, so a million queues take seconds. The mix: standard and FIFO queues,
main queues with and without DLQs, DLQ chains, Lambda consumers (timeouts 3-900 s, batch sizes, batching
windows, partial batch responses, some mappings in another account, some function ARNs qualified with an
alias), workers with a declared processing profile and CloudWatch evidence, unconsumed queues, drifted
settings (each rule of the catalogue has some queues that break it) and a few malformed attribute values
(a RedrivePolicy that is not JSON, a missing or non-numeric VisibilityTimeout) for the audit's quarantine.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
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
    malformed_redrive: float = 0.0005  # RedrivePolicy that is not JSON
    missing_vt: float = 0.0005  # no VisibilityTimeout attribute
    non_numeric_vt: float = 0.0002  # VisibilityTimeout "thirty"


def account_ids(m: int) -> list[str]:
    return [f"{100000000000 + 111 * (k + 1):012d}" for k in range(m)]


def generate(n_queues: int, n_accounts: int, seed: int, out: str, shares: Shares = Shares()) -> dict:
    """Write a fleet of exactly ``n_queues`` queues to ``out`` and return its counts."""
    if n_queues < 1 or n_accounts < 1:
        raise ValueError("need at least one queue and one account")
    rng = np.random.default_rng(seed)
    sh = shares

    def pick(candidates: np.ndarray, share: float) -> np.ndarray:
        """Exactly round(share x candidates) of them (at least one in fleets of 200+ queues), chosen at random."""
        idx = np.flatnonzero(candidates)
        k = min(len(idx), max(round(share * len(idx)), 1 if n_queues >= 200 else 0))
        mask = np.zeros(len(candidates), bool)
        mask[rng.choice(idx, k, replace=False)] = True
        return mask

    accounts = np.array(account_ids(n_accounts))
    regions = np.array(REGIONS)

    # --- slots: [main queues | their DLQs | chained DLQs (DLQs of DLQs)] ---------------------------------
    n_chain = int(n_queues * sh.chain)
    rest = n_queues - n_chain
    n_main = max(1, round(rest / (1 + sh.dlq)))
    n_dlq = rest - n_main
    n_chain = min(n_chain, n_dlq)
    n_main = n_queues - n_dlq - n_chain
    n = n_queues
    main_of_dlq = rng.permutation(n_main)[:n_dlq]  # DLQ j serves main queue main_of_dlq[j]
    dlq_idx = np.arange(n_main, n_main + n_dlq)
    chain_idx = np.arange(n_main + n_dlq, n)  # chain c is the DLQ of DLQ c

    owner = np.arange(n)  # the main queue whose account, region and type a slot inherits
    owner[dlq_idx] = main_of_dlq
    owner[chain_idx] = main_of_dlq[: len(chain_idx)]
    acct_i = rng.integers(0, n_accounts, n_main)[np.minimum(owner, n_main - 1)]
    reg_i = rng.integers(0, len(regions), n_main)[np.minimum(owner, n_main - 1)]
    fifo = (rng.random(n_main) < sh.fifo)[owner]
    flip = np.zeros(n, bool)
    flip[dlq_idx] = rng.random(n_dlq) < sh.drift_dlq_type
    fifo = fifo ^ flip

    svc = SERVICES[rng.integers(0, len(SERVICES), n_main)][owner]
    base = np.char.add(np.char.add(svc, "-"), np.char.zfill(owner.astype(str), 7))
    suffix = np.full(n, "", dtype=object)
    suffix[dlq_idx] = "-dlq"
    suffix[chain_idx] = "-dlq-dlq"
    names = [
        f"{b}{s}{'.fifo' if f else ''}"
        for b, s, f in zip(base.tolist(), suffix.tolist(), fifo.tolist(), strict=True)
    ]
    acct = accounts[acct_i]
    reg = regions[reg_i]
    arns = [f"arn:aws:sqs:{r}:{a}:{nm}" for r, a, nm in zip(reg.tolist(), acct.tolist(), names, strict=True)]

    # --- redrive -------------------------------------------------------------------------------------------
    target = np.full(n, -1)
    target[main_of_dlq] = dlq_idx
    target[dlq_idx[: len(chain_idx)]] = chain_idx
    mrc = rng.choice([1, 2, 3, 5, 10, 20], n, p=[0.04, 0.06, 0.15, 0.4, 0.3, 0.05])
    bad = pick(np.ones(n, bool), sh.bad_max_receive)
    mrc[bad] = rng.choice([0, 2000], int(bad.sum()))
    dangling = pick(target >= 0, sh.dangling)

    # --- consumers -----------------------------------------------------------------------------------------
    kind_draw = rng.random(n_main)
    is_lambda = np.zeros(n, bool)
    is_lambda[:n_main] = kind_draw < sh.lambda_consumer
    is_worker = np.zeros(n, bool)
    is_worker[:n_main] = (kind_draw >= sh.lambda_consumer) & (kind_draw < sh.lambda_consumer + sh.worker)
    timeout = rng.choice(
        [3, 5, 10, 30, 60, 120, 300, 600, 900], n, p=[0.1, 0.1, 0.15, 0.25, 0.15, 0.1, 0.08, 0.04, 0.03]
    )
    window = np.where(rng.random(n) < 0.7, 0, rng.choice([1, 5, 20, 60, 300], n))
    window[fifo] = 0
    batch = rng.choice([1, 5, 10, 100, 1000], n, p=[0.2, 0.2, 0.4, 0.15, 0.05])
    batch[fifo] = np.minimum(batch[fifo], 10)
    no_window = (batch > 10) & (window == 0) & (rng.random(n) < 0.9)
    window[no_window] = rng.choice([1, 5, 20], int(no_window.sum()))
    partial = rng.random(n) < 0.4
    p99_worker = np.round(np.exp(rng.normal(np.log(20), 1.0, n)), 1) + 0.5
    p50_worker = np.round(p99_worker / rng.uniform(3, 8, n), 2)

    # --- visibility timeouts: healthy by default, drifted for a share -------------------------------------
    vt = np.full(n, 30)
    guidance = 6 * timeout + window
    u = rng.random(n)
    lam_vt = np.where(
        u < sh.drift_below_timeout,
        np.maximum(1, timeout // 2),
        np.where(
            u < sh.drift_below_timeout + sh.drift_below_guidance,
            timeout + (guidance - timeout) // 3,
            guidance,
        ),
    )
    wk_vt = np.where(
        u < sh.drift_worker_short, np.maximum(1, p99_worker * 0.5), p99_worker * rng.uniform(2, 4, n)
    )
    vt = np.where(is_lambda, lam_vt, np.where(is_worker, np.ceil(wk_vt), vt)).astype(np.int64)
    vt = np.minimum(vt, 43_200)
    vt[pick(np.ones(n, bool), sh.drift_out_of_range)] = 50_000

    retention = np.where(rng.random(n) < 0.7, 345_600, 1_209_600)
    dlq_like = np.zeros(n, bool)
    dlq_like[n_main:] = True
    retention[dlq_like] = np.where(
        rng.random(int(dlq_like.sum())) < sh.dlq_short_retention, 345_600, 1_209_600
    )

    malformed_rp = pick(target >= 0, sh.malformed_redrive)
    missing_vt = pick(~malformed_rp, sh.missing_vt)
    text_vt = pick(~missing_vt & ~malformed_rp, sh.non_numeric_vt)

    # --- CloudWatch evidence -------------------------------------------------------------------------------
    received = np.round(np.exp(rng.normal(np.log(50_000), 1.5, n)))
    redelivered = np.where(vt < p99_worker, rng.uniform(0.01, 0.2, n), rng.uniform(0, 0.002, n))
    deleted = np.round(received * (1 - redelivered))
    age = np.round(rng.uniform(1, 600, n))
    has_metrics = is_worker | is_lambda | dlq_like

    # --- mappings and functions ----------------------------------------------------------------------------
    lam = np.flatnonzero(is_lambda)
    m_acct_i = acct_i[lam].copy()
    cross = (rng.random(len(lam)) < sh.cross_account) & (n_accounts > 1)
    m_acct_i[cross] = (
        m_acct_i[cross] + 1 + rng.integers(0, max(1, n_accounts - 1), int(cross.sum()))
    ) % n_accounts
    qualified = rng.random(len(lam)) < sh.qualified
    qual_record = qualified & (rng.random(len(lam)) < 0.5)  # else only the unqualified function is on record
    reserved = np.where(rng.random(len(lam)) < 0.1, rng.choice([1, 5, 20, 100], len(lam)), -1)
    max_conc = np.where(rng.random(len(lam)) < 0.2, rng.choice([2, 5, 50, 200], len(lam)), -1)
    has_dur = rng.random(len(lam)) < 0.95
    d99 = np.round(timeout[lam] * rng.beta(2, 5, len(lam)), 3)
    d50 = np.round(d99 / rng.uniform(2, 6, len(lam)), 3)
    enabled = rng.random(len(lam)) < 0.95

    # --- render -----------------------------------------------------------------------------------------
    part_of = acct_i * len(regions) + reg_i
    lines: dict[int, list[str]] = {}
    counts: dict[int, dict] = {}

    def put(p: int, kind: str, line: str) -> None:
        lines.setdefault(p, []).append(line)
        c = counts.setdefault(p, {"queue": 0, "mapping": 0, "function": 0, "error": 0})
        c[kind] += 1

    rows = zip(
        part_of.tolist(),
        acct.tolist(),
        reg.tolist(),
        names,
        arns,
        vt.tolist(),
        retention.tolist(),
        fifo.tolist(),
        target.tolist(),
        mrc.tolist(),
        dangling.tolist(),
        malformed_rp.tolist(),
        missing_vt.tolist(),
        text_vt.tolist(),
        is_worker.tolist(),
        p50_worker.tolist(),
        p99_worker.tolist(),
        has_metrics.tolist(),
        received.tolist(),
        deleted.tolist(),
        age.tolist(),
        svc.tolist(),
        strict=True,
    )
    for p, a, r, nm, arn, v, ret, f, t, mr, dang, mal, miss, txt, wk, p50, p99, hm, rc, dl, ag, sv in rows:
        attrs = [f'"QueueArn":"{arn}"', f'"MessageRetentionPeriod":"{ret}"', '"DelaySeconds":"0"']
        if not miss:
            attrs.append(f'"VisibilityTimeout":"{"thirty" if txt else v}"')
        if f:
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

    for k, qi in enumerate(lam.tolist()):
        ma = accounts[m_acct_i[k]]
        r = reg[qi]
        p = int(m_acct_i[k]) * len(regions) + int(reg_i[qi])
        fn_arn = f"arn:aws:lambda:{r}:{ma}:function:fn-{qi:07d}"
        named = fn_arn + ":live" if qualified[k] else fn_arn
        resp = '["ReportBatchItemFailures"]' if partial[qi] else "[]"
        mc = int(max_conc[k])
        put(
            p,
            "mapping",
            f'{{"kind":"mapping","account":"{ma}","region":"{r}","uuid":"{seed & 0xFFFF:04x}{qi:08x}-0000-4000-8000-000000000000",'
            f'"event_source_arn":"{arns[qi]}","function_arn":"{named}","state":"{"Enabled" if enabled[k] else "Disabled"}",'
            f'"batch_size":{int(batch[qi])},"batching_window":{int(window[qi])},'
            f'"maximum_concurrency":{mc if mc > 0 else "null"},"function_response_types":{resp}}}',
        )
        rc_ = int(reserved[k])
        dur = (
            f'"duration_p50":{d50[k]},"duration_p99":{d99[k]}'
            if has_dur[k]
            else '"duration_p50":null,"duration_p99":null'
        )
        put(
            p,
            "function",
            f'{{"kind":"function","account":"{ma}","region":"{r}","arn":"{named if qual_record[k] else fn_arn}",'
            f'"name":"fn-{qi:07d}","timeout":{int(timeout[qi])},"memory":512,'
            f'"reserved_concurrency":{rc_ if rc_ >= 0 else "null"},{dur}}}',
        )

    n_parts = len(accounts) * len(regions)
    for p in range(n_parts):
        a, r = accounts[p // len(regions)], regions[p % len(regions)]
        inventory.write_lines(out, str(a), str(r), lines.get(p, []), counts.get(p, {}))
    return {
        "queues": n,
        "accounts": n_accounts,
        "partitions": n_parts,
        "mappings": len(lam),
        "functions": len(lam),
        "dlqs": n_dlq + n_chain,
    }


def main(argv: list[str], prog: str) -> int:
    import argparse
    import sys
    import time

    from visguard.errors import VisguardError

    ap = argparse.ArgumentParser(
        prog=prog, description="Write a synthetic fleet inventory (JSON Lines per account and region)."
    )
    ap.add_argument("--queues", type=int, required=True, help="number of queues (DLQs included)")
    ap.add_argument("--accounts", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", required=True, help="inventory directory")
    args = ap.parse_args(argv)
    if args.queues < 1 or args.accounts < 1:
        raise VisguardError("--queues and --accounts must be at least 1", place="arguments")
    t0 = time.perf_counter()
    c = generate(args.queues, args.accounts, args.seed, args.out)
    print(
        f"generated {c['queues']:,} queues ({c['dlqs']:,} DLQs), {c['mappings']:,} mappings, "
        f"{c['accounts']} accounts x {len(REGIONS)} regions in {time.perf_counter() - t0:.1f} s -> {args.out}",
        file=sys.stderr,
    )
    return 0
