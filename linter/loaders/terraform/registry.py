"""The two most used registry modules, modelled from their documented inputs and defaults.

A root module that calls ``terraform-aws-modules/sqs/aws`` or ``terraform-aws-modules/lambda/aws`` is checked
without ``terraform init``: the call's arguments become the resources the module creates, with the module's
own defaults (its variables.tf) and addresses (``module.jobs.aws_sqs_queue.this[0]``). What the models follow
(read from the modules' variables.tf / main.tf / outputs.tf, v5 of sqs and v8 of lambda):

sqs: ``create`` (true), ``name``, ``use_name_prefix`` (false), ``fifo_queue`` (false; the module appends
``.fifo`` to the name), ``visibility_timeout_seconds`` / ``message_retention_seconds`` / ``delay_seconds``
(null: the AWS default), ``redrive_policy`` ({}), ``redrive_allow_policy`` ({}), ``create_dlq`` (false): a DLQ
``aws_sqs_queue.dlq[0]`` named ``dlq_name`` or ``<name>-dlq``, whose settings are ``dlq_*`` or else the
queue's, a redrive policy ``merge({deadLetterTargetArn = dlq.arn, maxReceiveCount = 5}, redrive_policy)``, and
(``create_dlq_redrive_allow_policy``, true) a DLQ allow policy ``byQueue`` for the queue. Outputs ``queue_arn``,
``queue_url``, ``queue_id``, ``queue_name``, ``dead_letter_queue_*`` (and their ``_static`` forms).

lambda: ``create`` / ``create_function`` (true), ``create_layer`` (false), ``function_name``, ``timeout`` (3;
at most 30 with ``lambda_at_edge``), ``reserved_concurrent_executions`` (-1: unreserved),
``event_source_mapping`` (a map: each entry an ``aws_lambda_event_source_mapping.this["key"]`` on the function's
ARN, with ``event_source_arn``, ``batch_size``, ``maximum_batching_window_in_seconds``,
``function_response_types``, ``scaling_config.maximum_concurrency``, ``enabled`` (true)), created when
``create_unqualified_alias_allowed_triggers`` (true). Outputs ``lambda_function_arn``, ``lambda_function_name``,
``lambda_function_qualified_arn`` and the other ``lambda_function_*`` attributes.
"""

from __future__ import annotations

import re

from visguard.linter.model import Location

from .build import ALIAS, ESM, FUNCTION, QUEUE, REDRIVE, REDRIVE_ALLOW, Res  # noqa: F401
from .values import SYMBOLIC, EvalError, Ref, Unknown

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

# sources of the two modelled modules; patterns compiled on first use (``re`` caches them), not at import
_REGISTRY = r"^(?:registry\.terraform\.io/)?terraform-aws-modules/(sqs|lambda)/aws$"
_GIT = (
    r"^(?:git::)?(?:https://|ssh://git@|git@)?github\.com[/:]terraform-aws-modules/terraform-aws-(sqs|lambda)"
    r"(?:\.git)?(?:\?[^/]*)?$"
)


def model_for(source: str):
    """The model of a module source, or None (a submodule such as ``lambda/aws//modules/alias`` is not one)."""
    if "terraform-aws-modules" not in source:
        return None  # a local path or another module: most calls
    m = re.match(_REGISTRY, source) or re.match(_GIT, source)
    if m is None:
        return None
    return sqs_module if m.group(1) == "sqs" else lambda_module


class _Call:
    """The arguments of one module call, evaluated on demand in the caller's scope."""

    def __init__(self, loader, scope, block, address, env, inputs):
        self.loader, self.scope, self.block, self.address, self.env, self.inputs = (
            loader,
            scope,
            block,
            address,
            env,
            inputs,
        )

    def val(self, name: str, default: Any = None) -> Any:
        if name not in self.inputs:
            return default
        attr, scope, env = self.inputs[name]
        v = scope.eval_attr(attr, env)
        return default if v is None else v

    def loc(self, name: str) -> Location:
        if name in self.inputs:
            attr, scope, env = self.inputs[name]
            return self.loader.origin(scope, attr, env, self.address)
        b = self.block
        return Location(b.file, b.line, b.column, path=self.address)

    def key_loc(self, name: str, path: list[str]) -> Location | None:
        if name not in self.inputs:
            return None
        attr, scope, env = self.inputs[name]
        return self.loader.path_location(scope, attr, env, self.address, path)

    def res(self, rtype: str, local: str) -> Res:
        b = self.block
        address = f"{self.address}.{rtype}.{local}"
        return Res(rtype, address, Location(b.file, b.line, b.column, path=address))

    def put(self, r: Res, arg: str, value: Any, input_name: str | None = None) -> None:
        r.values[arg] = value
        if input_name is not None and input_name in self.inputs:
            r.locations[arg] = self.loc(input_name)


def _strip_fifo(name: Any) -> Any:
    return name[: -len(".fifo")] if isinstance(name, str) and name.endswith(".fifo") else name


def _first(*values: Any) -> Any:
    """``try(coalesce(a, b), null)``: the first value that is neither null nor empty."""
    for v in values:
        if v is not None and v != "":
            return v
    return None


def sqs_module(loader, scope, block, address, env, inputs):
    c = _Call(loader, scope, block, address, env, inputs)
    if c.val("create", True) is False:
        return [], _no_outputs(address)
    fifo = c.val("fifo_queue", False)
    prefix = c.val("use_name_prefix", False)
    base = _strip_fifo(c.val("name"))
    if prefix is True or base is None:
        qname: Any = None
    elif isinstance(base, SYMBOLIC):
        qname = base
    else:
        qname = f"{base}.fifo" if fifo is True else base
    q = c.res(QUEUE, "this[0]")
    c.put(q, "name", qname, "name")
    c.put(q, "fifo_queue", fifo, "fifo_queue")
    for arg in ("visibility_timeout_seconds", "message_retention_seconds", "delay_seconds"):
        c.put(q, arg, c.val(arg), arg)
    c.put(q, "tags", c.val("tags", {}))
    out = [q]
    redrive = c.val("redrive_policy", {})
    allow = c.val("redrive_allow_policy", {})
    dlq = None
    if c.val("create_dlq", False) is True:
        dlq = c.res(QUEUE, "dlq[0]")
        dname = _first(_strip_fifo(c.val("dlq_name")), f"{base}-dlq" if isinstance(base, str) else None)
        if prefix is True:
            dname = None
        elif isinstance(dname, str) and fifo is True:
            dname += ".fifo"
        c.put(dlq, "name", dname, "dlq_name" if "dlq_name" in inputs else "name")
        c.put(dlq, "fifo_queue", fifo, "fifo_queue")
        for arg in ("visibility_timeout_seconds", "message_retention_seconds", "delay_seconds"):
            own = c.val(f"dlq_{arg}")
            c.put(dlq, arg, _first(own, c.val(arg)), f"dlq_{arg}" if own is not None else arg)
        out.append(dlq)
        rp = c.res(REDRIVE, "dlq[0]")
        policy = {"deadLetterTargetArn": Ref(dlq.address, "arn"), "maxReceiveCount": 5}
        if isinstance(redrive, dict):
            policy.update(redrive)
        c.put(rp, "queue_url", Ref(q.address, "url"))
        c.put(rp, "redrive_policy", policy if isinstance(redrive, dict) else redrive, "redrive_policy")
        for key in ("maxReceiveCount", "deadLetterTargetArn"):
            loc = c.key_loc("redrive_policy", [key])
            if loc is not None:
                rp.locations[f"redrive_policy.{key}"] = loc
        if "redrive_policy" not in inputs:
            rp.locations["redrive_policy"] = c.loc("create_dlq")
        out.append(rp)
        if c.val("create_dlq_redrive_allow_policy", True) is True:
            ap = c.res(REDRIVE_ALLOW, "dlq[0]")
            extra = c.val("dlq_redrive_allow_policy", {})
            allow_dlq = {"redrivePermission": "byQueue", "sourceQueueArns": [Ref(q.address, "arn")]}
            if isinstance(extra, dict):
                allow_dlq.update(extra)
            c.put(ap, "queue_url", Ref(dlq.address, "url"))
            c.put(ap, "redrive_allow_policy", allow_dlq, "dlq_redrive_allow_policy")
            out.append(ap)
    else:
        if redrive and redrive != {}:
            rp = c.res(REDRIVE, "this[0]")
            c.put(rp, "queue_url", Ref(q.address, "url"))
            c.put(rp, "redrive_policy", redrive, "redrive_policy")
            for key in ("maxReceiveCount", "deadLetterTargetArn"):
                loc = c.key_loc("redrive_policy", [key])
                if loc is not None:
                    rp.locations[f"redrive_policy.{key}"] = loc
            out.append(rp)
        if allow and allow != {}:
            ap = c.res(REDRIVE_ALLOW, "this[0]")
            c.put(ap, "queue_url", Ref(q.address, "url"))
            c.put(ap, "redrive_allow_policy", allow, "redrive_allow_policy")
            out.append(ap)

    def outputs(name: str, node=None):
        table = {
            "queue_arn": Ref(q.address, "arn"),
            "queue_arn_static": Ref(q.address, "arn"),
            "queue_url": Ref(q.address, "url"),
            "queue_id": Ref(q.address, "url"),
            "queue_name": qname if qname is not None else Ref(q.address, "name"),
        }
        if dlq is not None:
            table.update(
                {
                    "dead_letter_queue_arn": Ref(dlq.address, "arn"),
                    "dead_letter_queue_arn_static": Ref(dlq.address, "arn"),
                    "dead_letter_queue_url": Ref(dlq.address, "url"),
                    "dead_letter_queue_id": Ref(dlq.address, "url"),
                    "dead_letter_queue_name": dlq.values.get("name") or Ref(dlq.address, "name"),
                }
            )
        if name in table:
            return table[name]
        if name.startswith("dead_letter_queue_"):
            return None  # the module's try(..., null) when no DLQ is created
        raise EvalError(f"module {address} (terraform-aws-modules/sqs) has no output {name!r}", node)

    return out, outputs


def lambda_module(loader, scope, block, address, env, inputs):
    c = _Call(loader, scope, block, address, env, inputs)
    if (
        c.val("create", True) is False
        or c.val("create_function", True) is False
        or c.val("create_layer", False) is True
    ):
        return [], _no_outputs(address)
    fn = c.res(FUNCTION, "this[0]")
    name = c.val("function_name", "")
    c.put(fn, "function_name", name, "function_name")
    timeout = c.val("timeout", 3)
    if c.val("lambda_at_edge", False) is True and isinstance(timeout, (int, float)):
        timeout = min(timeout, 30)
    c.put(fn, "timeout", timeout, "timeout")
    c.put(
        fn,
        "reserved_concurrent_executions",
        c.val("reserved_concurrent_executions", -1),
        "reserved_concurrent_executions",
    )
    out = [fn]
    mappings = c.val("event_source_mapping", {})
    if isinstance(mappings, SYMBOLIC) or not isinstance(mappings, dict):
        loader.note(
            block, f"{address}: event_source_mapping is not known here; its mappings are not checked", address
        )
        mappings = {}
    if c.val("create_unqualified_alias_allowed_triggers", True) is not True:
        mappings = {}
    for key in sorted(mappings):
        m = mappings[key]
        if not isinstance(m, dict):
            continue
        r = c.res(ESM, f'this["{key}"]')
        r.location = c.key_loc("event_source_mapping", [key]) or c.loc("event_source_mapping")
        r.values["function_name"] = Ref(fn.address, "arn")
        for arg in (
            "event_source_arn",
            "batch_size",
            "maximum_batching_window_in_seconds",
            "function_response_types",
        ):
            if arg in m:
                r.values[arg] = m[arg]
                r.locations[arg] = c.key_loc("event_source_mapping", [key, arg]) or r.location
        r.values["enabled"] = m.get("enabled", True)
        sc = m.get("scaling_config")
        if isinstance(sc, dict) and "maximum_concurrency" in sc:
            r.values["scaling_config.maximum_concurrency"] = sc["maximum_concurrency"]
            r.locations["scaling_config.maximum_concurrency"] = (
                c.key_loc("event_source_mapping", [key, "scaling_config", "maximum_concurrency"])
                or r.location
            )
        out.append(r)

    def outputs(name: str, node=None):
        if name == "lambda_function_name":
            return name_value
        if name in ("lambda_function_arn", "lambda_function_arn_static"):
            return Ref(fn.address, "arn")
        if name.startswith("lambda_function_"):
            return Ref(fn.address, name[len("lambda_function_") :])
        if name.startswith(
            (
                "lambda_role_",
                "lambda_cloudwatch_",
                "local_",
                "s3_",
                "lambda_layer_",
                "lambda_event_source_mapping_",
            )
        ):
            return Unknown(f"{address}.{name}", "not modelled by visguard")
        raise EvalError(f"module {address} (terraform-aws-modules/lambda) has no output {name!r}", node)

    name_value = name if name else Ref(fn.address, "function_name")
    return out, outputs


def _no_outputs(address):
    def outputs(name, node=None):
        return None

    return outputs
