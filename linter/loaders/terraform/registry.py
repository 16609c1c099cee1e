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
``function_response_types``, ``scaling_config.maximum_concurrency``, ``provisioned_poller_config`` (since
7.17), ``enabled`` (true)), created when
``create_unqualified_alias_allowed_triggers`` (true). Outputs ``lambda_function_arn``, ``lambda_function_name``,
``lambda_function_qualified_arn`` and the other ``lambda_function_*`` attributes.

The call's ``version`` constraint chooses the release Terraform would install (the newest that satisfies it)
among the major versions whose inputs or outputs differ (read from each tag's variables.tf, main.tf and
outputs.tf, github.com/terraform-aws-modules/terraform-aws-sqs and terraform-aws-lambda):

sqs 2.x-3.x: one ``aws_sqs_queue.this[0]`` named ``name`` as given (``name_prefix``: no name), ``redrive_policy``
(and from 3.3 ``redrive_allow_policy``) a JSON string (""), no DLQ; outputs ``this_sqs_queue_id`` / ``_arn`` /
``_name`` (2.x) or ``sqs_queue_id`` / ``_arn`` / ``_name`` (3.x). sqs 4.x-5.x: the model above; a call with no
``version`` whose configuration reads a 2.x/3.x output name has it read as the newest release's, with a note
(terraform init would install the newest, which lacks it: the configuration predates the rename).
lambda 1.x: outputs ``this_lambda_function_*``; before 2.26 ``lambda_at_edge`` caps the timeout at 5 (30 after);
before 2.33 an event source mapping takes no ``function_response_types``, before 4.13 no ``scaling_config``.
Any other version (1.x of sqs, a major released after these) is a note naming the call; what it creates is
not checked.
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


# the releases modelled: major -> its highest minor (every minor from 0 was released)
RELEASES = {
    "sqs": {2: 1, 3: 5, 4: 3, 5: 2},
    "lambda": {1: 48, 2: 36, 3: 3, 4: 18, 5: 3, 6: 8, 7: 21, 8: 8},
}


def model_for(source: str):
    """The model of a module source, or None (a submodule such as ``lambda/aws//modules/alias`` is not one)."""
    if "terraform-aws-modules" not in source:
        return None  # a local path or another module: most calls
    m = re.match(_REGISTRY, source) or re.match(_GIT, source)
    if m is None:
        return None
    return sqs_module if m.group(1) == "sqs" else lambda_module


def release(kind: str, constraint: str | None) -> tuple[int, int] | None:
    """(major, minor) of the release Terraform would install for ``version = constraint`` (the newest modelled
    one that satisfies it; no constraint: the newest), or None when no modelled release does."""
    known = [(M, m, p) for M, top in RELEASES[kind].items() for m in range(top + 1) for p in (0, 999)]
    if constraint is None:
        return max(known)[:2]
    checks = []
    for part in constraint.split(","):
        m = re.fullmatch(r"\s*(~>|>=|<=|!=|=|>|<)?\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?\s*", part)
        if m is None:
            return None  # a pre-release or something else visguard does not read
        op, parts = m.group(1) or "=", [int(x) for x in m.groups()[1:] if x is not None]
        checks.append((op, parts))
    ok = [v for v in known if all(_satisfies(v, op, parts) for op, parts in checks)]
    return max(ok)[:2] if ok else None


def _satisfies(v: tuple[int, int, int], op: str, parts: list[int]) -> bool:
    want = tuple(parts + [0] * (3 - len(parts)))
    if op == "~>":  # the last given part may grow: ~> 3.1 is >= 3.1, < 4.0; ~> 3.1.2 is >= 3.1.2, < 3.2.0
        keep = max(len(parts) - 1, 1)
        upper = tuple(parts[: keep - 1] + [parts[keep - 1] + 1] + [0] * (3 - keep))
        return want <= v < upper
    if op in ("=", "!="):  # = 3.1 is any 3.1.x; a patch level is its minor's (the inputs change by minor)
        n = min(len(parts), 2)
        return (v[:n] == want[:n]) == (op == "=") or (op == "!=" and len(parts) == 3)
    return {
        "=": v == want,
        "!=": v != want,
        ">": v > want,
        ">=": v >= want,
        "<": v < want,
        "<=": v <= want,
    }[op]


def _version(c: _Call, kind: str) -> tuple[int, int] | None:
    """The release of this call (its ``version``), or None after a note naming the call (never a refusal)."""
    attr = c.block.attrs.get("version")
    constraint = c.scope.eval_attr(attr) if attr is not None else None
    chosen = release(kind, constraint) if constraint is None or isinstance(constraint, str) else None
    if chosen is None:
        majors = sorted(RELEASES[kind])
        c.loader.note(
            c.block,
            f"{c.address}: version {_shown(constraint)} of terraform-aws-modules/{kind}/aws is not modelled by "
            f"visguard (it models {majors[0]}.x-{majors[-1]}.x); what the call creates is not checked (lint the "
            "plan JSON)",
            c.address,
        )
    return chosen


def _shown(v: Any) -> str:
    from .files import excerpt

    return excerpt(v, 40) if isinstance(v, str) else "(not known here)"


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
    chosen = _version(c, "sqs")
    if chosen is None:
        return [], _unknown_outputs(address)
    if c.val("create", True) is False:
        return [], _no_outputs(address)
    if chosen[0] < 4:
        return _sqs_v2_v3(c, chosen)
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

    unpinned, noted = c.block.attrs.get("version") is None, set()

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
        old = _EARLIER_OUTPUT.fullmatch(name)
        if old is not None and unpinned:  # a configuration written against 2.x/3.x, no version to say so
            if name not in noted:
                noted.add(name)
                c.loader.note(
                    c.block,
                    f"{address} reads the output {name}, which only terraform-aws-modules/sqs "
                    f"{'2.x' if old.group(1) else '3.x'} has; with no version pinned, terraform init installs the "
                    f"newest, which names it queue_{old.group(2)}: read as queue_{old.group(2)} (pin the version "
                    "or rename the output)",
                    address,
                )
            return table[f"queue_{old.group(2)}"]
        raise EvalError(f"module {address} (terraform-aws-modules/sqs) has no output {name!r}", node)

    return out, outputs


_EARLIER_OUTPUT = re.compile(r"(this_)?sqs_queue_(arn|id|name)")  # the queue's outputs in sqs 2.x / 3.x


def _sqs_v2_v3(c: _Call, chosen: tuple[int, int]):
    """terraform-aws-modules/sqs 2.x and 3.x: one queue, policies as JSON strings, no DLQ."""
    q = c.res(QUEUE, "this[0]")
    name = c.val("name") if c.val("name_prefix") is None else None
    c.put(q, "name", name, "name")
    c.put(q, "fifo_queue", c.val("fifo_queue", False), "fifo_queue")
    for arg in ("visibility_timeout_seconds", "message_retention_seconds", "delay_seconds"):
        c.put(q, arg, c.val(arg), arg)
    c.put(q, "tags", c.val("tags", {}))
    c.put(q, "redrive_policy", c.val("redrive_policy") or None, "redrive_policy")
    for key in ("maxReceiveCount", "deadLetterTargetArn"):
        loc = c.key_loc("redrive_policy", [key])
        if loc is not None:
            q.locations[f"redrive_policy.{key}"] = loc
    if chosen >= (3, 3):
        c.put(q, "redrive_allow_policy", c.val("redrive_allow_policy") or None, "redrive_allow_policy")
    prefix = "this_sqs_queue_" if chosen[0] == 2 else "sqs_queue_"

    def outputs(out: str, node=None):
        table = {"id": Ref(q.address, "url"), "arn": Ref(q.address, "arn")}
        table["name"] = name if isinstance(name, str) else Ref(q.address, "name")
        if out.startswith(prefix) and out[len(prefix) :] in table:
            return table[out[len(prefix) :]]
        raise EvalError(
            f"module {c.address} (terraform-aws-modules/sqs {chosen[0]}.x) has no output {out!r}", node
        )

    return [q], outputs


def lambda_module(loader, scope, block, address, env, inputs):
    c = _Call(loader, scope, block, address, env, inputs)
    chosen = _version(c, "lambda")
    if chosen is None:
        return [], _unknown_outputs(address)
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
        timeout = min(timeout, 5 if chosen < (2, 26) else 30)
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
            if arg == "function_response_types" and chosen < (2, 33):
                continue  # not passed to the mapping before 2.33
            if arg in m:
                r.values[arg] = m[arg]
                r.locations[arg] = c.key_loc("event_source_mapping", [key, arg]) or r.location
        r.values["enabled"] = m.get("enabled", True)
        sc = m.get("scaling_config") if chosen >= (4, 13) else None
        if isinstance(sc, dict) and "maximum_concurrency" in sc:
            r.values["scaling_config.maximum_concurrency"] = sc["maximum_concurrency"]
            r.locations["scaling_config.maximum_concurrency"] = (
                c.key_loc("event_source_mapping", [key, "scaling_config", "maximum_concurrency"])
                or r.location
            )
        # provisioned mode (issue 36): passed as a dynamic block since 7.17.0 (main.tf, PR #649, 2024-12-08)
        ppc = m.get("provisioned_poller_config") if chosen >= (7, 17) else None
        if isinstance(ppc, dict):
            for arg in ("minimum_pollers", "maximum_pollers"):
                if ppc.get(arg) is not None:
                    r.values[f"provisioned_poller_config.{arg}"] = ppc[arg]
                    r.locations[f"provisioned_poller_config.{arg}"] = (
                        c.key_loc("event_source_mapping", [key, "provisioned_poller_config", arg])
                        or r.location
                    )
        out.append(r)

    def outputs(name: str, node=None):
        if (
            chosen[0] == 1
        ):  # 1.x: this_lambda_function_*, this_lambda_layer_*, this_lambda_event_source_mapping_*
            if not name.startswith("this_lambda_"):
                if name.startswith("lambda_function_"):
                    raise EvalError(
                        f"module {address} (terraform-aws-modules/lambda 1.x) has no output {name!r}", node
                    )
            else:
                name = name[len("this_") :]
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


def _unknown_outputs(address):
    def outputs(name, node=None):
        return Unknown(f"{address}.{name}", "the module's version is not modelled by visguard")

    return outputs
