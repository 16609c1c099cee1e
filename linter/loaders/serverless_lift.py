"""The Lift plugin's ``queue`` construct (``constructs: {jobs: {type: queue, worker: ...}}``) as CloudFormation.

What Lift documents (getlift/lift, docs/queue.md, https://github.com/getlift/lift/blob/master/docs/queue.md) and
does (src/constructs/aws/Queue.ts), modelled here:

- an SQS queue named ``<stack name>-<id>`` (``.fifo`` when ``fifo: true``) and a dead-letter queue
  ``<stack name>-<id>-dlq`` of the same type whose retention is 14 days ("Production ready");
- the redrive policy's maxReceiveCount is ``maxRetries`` (default 3, "Retries");
- the visibility timeout ("Retry delay") is 6 x the worker's timeout + ``maxBatchingWindow``. The worker's
  timeout is the ``timeout`` written on the worker (or on the referenced function when ``worker`` names one),
  else 6 s: Lift does not look at ``provider.timeout``, while the Serverless Framework gives the function
  ``provider.timeout`` (getlift/lift issue #388: a 450 s provider timeout and a 36 s queue, and the deploy
  fails). That is modelled exactly, so VG010 reports it;
- the worker function (``<id>Worker`` when ``worker`` is a function definition) subscribed with
  ``batchSize`` (default 1), ``maxBatchingWindow`` (default 0), ``maxConcurrency`` and
  ``functionResponseType: ReportBatchItemFailures`` always on;
- ``delay`` -> DelaySeconds; ``extensions.queue.Properties`` / ``extensions.dlq.Properties`` are merged over
  the generated properties ("Extensions"), so ``VisibilityTimeout`` set there wins.

A construct without ``worker`` is rejected by Lift ("no 'worker' defined"): bad input here too.
"""

from __future__ import annotations

from visguard.errors import VisguardError

from . import values
from .serverless_vars import MISSING, Node, Partial, Unresolved

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

    from .serverless_translate import Translator

LIFT_DEFAULT_TIMEOUT = (
    6  # docs/queue.md "Retry delay": "Serverless deploy functions with a timeout of 6 seconds"
)
LIFT_VISIBILITY_MULTIPLIER = 6
LIFT_DEFAULT_MAX_RETRIES = 3
LIFT_DEFAULT_BATCH_SIZE = 1
LIFT_DLQ_RETENTION = 14 * 86_400


def queue_ids(cid: str) -> tuple[str, str]:
    """Internal logical ids of the construct's queue and DLQ (renamed ``constructs.<id>`` afterwards)."""
    base = "".join(ch for ch in cid if ch.isalnum()) or "Queue"
    return f"VgLift{base[:1].upper()}{base[1:]}Queue", f"VgLift{base[:1].upper()}{base[1:]}Dlq"


def add_queue(t: Translator, cid: str, c: dict, cpath: list) -> None:
    """Add the construct's queue, DLQ, worker function and event to the translation ``t``."""
    addr = f"constructs.{cid}"
    where_c = t.at(t.constructs_node, cid)
    qid, did = queue_ids(cid)
    t.ids[qid], t.ids[did] = addr, f"{addr}.dlq"

    def val(key: str, default: Any = MISSING) -> Any:
        v = t.vars.get([*cpath, key]) if key in c else MISSING
        return default if v is MISSING or v is None else v

    def where(key: str):
        return t.at(c, key) if key in c else where_c

    def key_addr(key: str) -> str:
        return f"{addr}.{key}" if key in c else addr

    worker = t.vars.get([*cpath, "worker"], shallow=True) if "worker" in c else MISSING
    if worker is MISSING or worker is None:
        raise VisguardError(
            f"{addr}: a Lift queue construct needs a worker", file=where_c[0], place=str(where_c[1])
        )
    window = val("maxBatchingWindow", 0)
    fifo = val("fifo", False) is True
    stack = t.stack_name
    name = f"{stack}-{cid}" if isinstance(stack, str) else Partial((stack, f"-{cid}"))

    # the worker: a function of its own (<id>Worker) or an existing one
    if isinstance(worker, str):
        fname = worker
        if fname not in t.function_nodes:
            raise VisguardError(
                f"{addr}.worker: {fname!r} is not a function of this service",
                file=where("worker")[0],
                place=str(where("worker")[1]),
            )
        fnode, fpath = t.function_nodes[fname]
        wt = t.vars.get([*fpath, "timeout"]) if "timeout" in fnode else MISSING
        wt_where, wt_addr = (
            (t.at(fnode, "timeout"), f"functions.{fname}.timeout")
            if "timeout" in fnode
            else (where("worker"), f"{addr}.worker")
        )
    elif isinstance(worker, dict):
        fname = f"{cid}Worker"
        fpath = [*cpath, "worker"]
        t.function_nodes[fname] = (worker, fpath)
        t.function_addr[fname] = f"{addr}.worker"
        wt = t.vars.get([*fpath, "timeout"]) if "timeout" in worker else MISSING
        wt_where, wt_addr = (
            (t.at(worker, "timeout"), f"{addr}.worker.timeout")
            if "timeout" in worker
            else (where("worker"), f"{addr}.worker")
        )
    else:
        raise VisguardError(
            f"{addr}.worker: must be a function definition or the name of a function",
            file=where("worker")[0],
            place=str(where("worker")[1]),
        )
    worker_timeout = LIFT_DEFAULT_TIMEOUT if wt is MISSING or wt is None else wt

    # the dead-letter queue
    dprops = t.gen(addr, where_c)
    t.put(
        dprops,
        "QueueName",
        Partial((name, "-dlq.fifo" if fifo else "-dlq"))
        if not isinstance(name, str)
        else f"{name}-dlq" + (".fifo" if fifo else ""),
        where_c,
        addr,
    )
    t.put(dprops, "MessageRetentionPeriod", LIFT_DLQ_RETENTION, where_c, addr)
    if fifo:
        t.put(dprops, "FifoQueue", True, where("fifo"), key_addr("fifo"))
    _extend(t, dprops, c, cpath, "dlq", addr)
    t.add_resource(did, "AWS::SQS::Queue", dprops, where_c, f"{addr}.dlq")

    # the queue
    qprops = t.gen(addr, where_c)
    t.put(
        qprops,
        "QueueName",
        name + (".fifo" if fifo else "") if isinstance(name, str) else name,
        where_c,
        addr,
    )
    vis = _visibility(worker_timeout, window)
    vis_where = wt_where if "maxBatchingWindow" not in c or wt is not MISSING else where("maxBatchingWindow")
    vis_addr = wt_addr if "maxBatchingWindow" not in c or wt is not MISSING else key_addr("maxBatchingWindow")
    t.put(qprops, "VisibilityTimeout", vis, vis_where, vis_addr)
    redrive = t.gen(key_addr("maxRetries"), where("maxRetries"))
    t.put(redrive, "deadLetterTargetArn", {"Fn::GetAtt": [did, "Arn"]}, where_c, addr)
    t.put(
        redrive,
        "maxReceiveCount",
        val("maxRetries", LIFT_DEFAULT_MAX_RETRIES),
        where("maxRetries"),
        key_addr("maxRetries"),
    )
    t.put(qprops, "RedrivePolicy", redrive, where("maxRetries"), key_addr("maxRetries"))
    if fifo:
        t.put(qprops, "FifoQueue", True, where("fifo"), key_addr("fifo"))
    if "delay" in c:
        t.put(qprops, "DelaySeconds", val("delay"), where("delay"), key_addr("delay"))
    _extend(t, qprops, c, cpath, "queue", addr)
    t.add_resource(qid, "AWS::SQS::Queue", qprops, where_c, addr)

    # the worker's subscription (Lift's addFunctionEvent)
    sqs = t.gen(addr, where_c)
    t.put(sqs, "arn", {"Fn::GetAtt": [qid, "Arn"]}, where_c, addr)
    t.put(
        sqs, "batchSize", val("batchSize", LIFT_DEFAULT_BATCH_SIZE), where("batchSize"), key_addr("batchSize")
    )
    t.put(sqs, "maximumBatchingWindow", window, where("maxBatchingWindow"), key_addr("maxBatchingWindow"))
    if "maxConcurrency" in c:
        t.put(
            sqs,
            "maximumConcurrency",
            val("maxConcurrency"),
            where("maxConcurrency"),
            key_addr("maxConcurrency"),
        )
    t.put(sqs, "functionResponseType", "ReportBatchItemFailures", where_c, addr)
    t.extra_events.setdefault(fname, []).append((sqs, f"{addr}.worker", where_c))


def construct_ref(t: Translator, cid: str, attr: str) -> Any:
    """``${construct:jobs.queueArn}`` and friends (docs/queue.md, "Variables")."""
    if cid not in t.lift_ids:
        return None
    qid, did = queue_ids(cid)
    return {
        "queueArn": {"Fn::GetAtt": [qid, "Arn"]},
        "queueUrl": {"Ref": qid},
        "dlqArn": {"Fn::GetAtt": [did, "Arn"]},
        "dlqUrl": {"Ref": did},
    }.get(attr)


def _visibility(timeout: Any, window: Any) -> Any:
    if isinstance(timeout, bool) or isinstance(window, bool):
        return Unresolved(
            f"6 x {timeout} + {window}", "the worker timeout or batching window is not a number"
        )
    try:
        t, w = values.number(timeout), values.number(window)
    except (
        values.BadValue
    ):  # the CloudFormation loader reports it where it was written (the worker's timeout)
        t = w = None
    if not isinstance(t, (int, float)) or not isinstance(w, (int, float)):
        bad = timeout if not isinstance(t, (int, float)) else window
        return bad if isinstance(bad, Unresolved) else Unresolved(str(bad), f"{bad} is not a number")
    v = LIFT_VISIBILITY_MULTIPLIER * t + w
    return int(v) if isinstance(v, float) and v.is_integer() else v


def _extend(t: Translator, props: Node, c: dict, cpath: list, key: str, addr: str) -> None:
    """``extensions.<key>.Properties`` merged over the generated properties."""
    ext = t.vars.get([*cpath, "extensions", key, "Properties"]) if "extensions" in c else MISSING
    if ext is MISSING or ext is None:
        return
    if not isinstance(ext, dict):
        w = t.at(c, "extensions")
        raise VisguardError(
            f"{addr}.extensions.{key}.Properties: must be a mapping", file=w[0], place=str(w[1])
        )
    for k, v in ext.items():
        w = t.at(ext, k)
        t.put(props, k, v, w, f"{addr}.extensions.{key}.Properties.{k}")
