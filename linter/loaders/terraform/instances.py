"""Instances: what ``count`` and ``for_each`` expand a resource or module block into (an address and the
``count.index`` / ``each`` an expression of the instance sees), and what ``aws_sqs_queue.q`` is to an
expression: one :class:`ResourceObj`, a list of them under ``count``, a map of them under ``for_each``, "not
known here" when the count or the keys are not.
"""

from __future__ import annotations

import json

from visguard.errors import VisguardError
from visguard.linter.model import (
    DEFAULT_DELAY,
    DEFAULT_LAMBDA_TIMEOUT,
    DEFAULT_RETENTION,
    DEFAULT_VISIBILITY_TIMEOUT,
)

from .evaluate import Env, Instance
from .hcl import Attr, Block
from .values import SYMBOLIC, EvalError, Ref, Text, Unknown, describe, kind, to_number

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

    from .scope import Scope

# Arguments whose default the AWS provider's schema sets, so a reference to an unset one is known at plan time
# (aws_sqs_queue, aws_lambda_function, aws_lambda_event_source_mapping resource docs); others stay a Ref.
SCHEMA_DEFAULTS = {
    ("aws_sqs_queue", "visibility_timeout_seconds"): DEFAULT_VISIBILITY_TIMEOUT,
    ("aws_sqs_queue", "message_retention_seconds"): DEFAULT_RETENTION,
    ("aws_sqs_queue", "delay_seconds"): DEFAULT_DELAY,
    ("aws_sqs_queue", "fifo_queue"): False,
    ("aws_lambda_function", "timeout"): DEFAULT_LAMBDA_TIMEOUT,
    ("aws_lambda_event_source_mapping", "enabled"): True,
}
# Attributes of a resource that exist only after apply (a reference to them stays a Ref).
COMPUTED = {"arn", "id", "url", "invoke_arn", "qualified_arn", "qualified_invoke_arn", "version", "uuid"}
MAX_INSTANCES = 1000  # count / for_each of one block
EACH_SOURCE = (
    "\x00each"  # in an instance's Env: (the for_each argument, its scope); no expression can name it
)


def address_key(key: Any) -> str:
    if key is None:
        return ""
    if isinstance(key, int) and not isinstance(key, bool):
        return f"[{key}]"
    if isinstance(key, Unknown):
        return "[*]"
    return "[" + json.dumps(str(key)) + "]"


class ResourceObj(Instance):
    """One instance of a resource, as an expression sees it."""

    def __init__(self, scope: Scope, block: Block, address: str, env: Env):
        self.scope, self.block, self.address, self.env = scope, block, address, env

    def attr(self, attr: str, node=None) -> Any:
        if attr not in COMPUTED and attr in self.block.attrs:
            v = self.scope.eval_attr(self.block.attrs[attr], self.env)
            # a value not known here (a data source in a name) is still this resource's attribute: a reference
            # to it keeps naming the resource (a mapping's function_name = aws_lambda_function.f.function_name)
            if v is not None:
                return Ref(self.address, attr) if isinstance(v, (Unknown, Text)) else v
            # null: Terraform reads an argument set to null as one not set ("Types and Values": null) — the
            # provider's default, or a value it computes (a queue's generated name)
        default = SCHEMA_DEFAULTS.get((self.block.labels[0], attr), _MISSING)
        if default is not _MISSING:
            return default
        return Ref(self.address, attr)


class Instances:
    """The instances of the blocks of one module instance: mixed into :class:`~.scope.Scope` (``mod``, ``loader``,
    ``prefix``, ``budget``, ``eval_attr()``; the caches ``_instances`` and ``_resource_values``)."""

    def instances(self, block: Block, base_address: str) -> list[tuple[str, Env]]:
        """(address, env) of each instance of a resource or module block (count / for_each expanded)."""
        key = (block.type, tuple(block.labels))
        if key in self._instances:
            return self._instances[key]
        out: list[tuple[str, Env]] = []
        if "count" in block.attrs and "for_each" in block.attrs:
            raise VisguardError(
                "count and for_each cannot both be set", file=block.file, place=f"line {block.line}"
            )
        if "count" in block.attrs:
            n = self.eval_attr(block.attrs["count"])
            if isinstance(n, SYMBOLIC):
                self.loader.note(
                    block,
                    f"{base_address}: count ({_why(n)}) is not known here; its settings are read once, as {base_address}[*]",
                    base_address,
                )
                out.append(
                    (
                        base_address + "[*]",
                        Env({"count": {"index": Unknown("count.index", "count is not known here")}}),
                    )
                )
            else:
                n = to_number_or_error(n, block.attrs["count"])
                if not isinstance(n, int) or n < 0 or n > MAX_INSTANCES:
                    a = block.attrs["count"]
                    raise VisguardError(
                        f"count must be a whole number 0-{MAX_INSTANCES}, got {describe(n)}",
                        file=a.file,
                        place=f"line {a.line}",
                    )
                out = [(f"{base_address}[{i}]", Env({"count": {"index": i}})) for i in range(n)]
        elif "for_each" in block.attrs:
            a = block.attrs["for_each"]
            coll = self.eval_attr(a)
            if (
                isinstance(coll, SYMBOLIC)
                or isinstance(coll, dict)
                and any(isinstance(k, SYMBOLIC) for k in coll)
            ):
                self.loader.note(
                    block,
                    f"{base_address}: for_each ({_why(coll)}) is not known here; its settings are read once, as {base_address}[*]",
                    base_address,
                )
                unk = Unknown("each.value", "for_each is not known here")
                out.append(
                    (base_address + "[*]", Env({"each": {"key": Unknown("each.key", unk.why), "value": unk}}))
                )
            elif isinstance(coll, dict):
                out = [
                    (
                        base_address + address_key(k),
                        Env({"each": {"key": k, "value": coll[k]}, EACH_SOURCE: (a, self)}),
                    )
                    for k in sorted(coll)
                ]
            elif isinstance(coll, list):
                if not all(isinstance(x, str) for x in coll):
                    if any(isinstance(x, SYMBOLIC) for x in coll):
                        self.loader.note(
                            block, f"{base_address}: a for_each key is not known here", base_address
                        )
                        unk = Unknown("each.value", "for_each is not known here")
                        return [(base_address + "[*]", Env({"each": {"key": unk, "value": unk}}))]
                    raise VisguardError(
                        "for_each needs a map or a set of strings", file=a.file, place=f"line {a.line}"
                    )
                out = [
                    (base_address + address_key(k), Env({"each": {"key": k, "value": k}}))
                    for k in sorted(set(coll))
                ]
            else:
                raise VisguardError(
                    f"for_each needs a map or a set of strings, got a {kind(coll)}",
                    file=a.file,
                    place=f"line {a.line}",
                )
            if len(out) > MAX_INSTANCES:
                raise VisguardError(
                    f"for_each has more than {MAX_INSTANCES} elements", file=a.file, place=f"line {a.line}"
                )
        else:
            out = [(base_address, Env())]
        self.budget.add_instances(len(out), block)
        self._instances[key] = out
        return out

    def resource_value(self, key: tuple[str, str]) -> Any:
        if not self.prefix and getattr(self.loader, "_capture", None) is not None:
            self.loader._capture.append(("ref", "resource", key))  # reuse.py: replayed with a kept resource
        v = self._resource_values.get(key, _MISSING)
        if v is _MISSING:
            v = self._resource_values[key] = self._resource_value(key)
        return v

    def _resource_value(self, key: tuple[str, str]) -> Any:
        block = self.mod.resources[key]
        base = self.prefix + ".".join(key)
        insts = self.instances(block, base)
        objs = [ResourceObj(self, block, addr, env) for addr, env in insts]
        if "count" in block.attrs:
            return (
                objs
                if not (len(insts) == 1 and insts[0][0].endswith("[*]"))
                else Unknown(base, "count is not known here")
            )
        if "for_each" in block.attrs:
            if len(insts) == 1 and insts[0][0].endswith("[*]"):
                return Unknown(base, "for_each is not known here")
            return {env.names["each"]["key"]: o for (addr, env), o in zip(insts, objs, strict=True)}
        return objs[0]


_MISSING = object()


def _why(v) -> str:
    return v.why if isinstance(v, Unknown) else "known only after apply"


def to_number_or_error(v, attr: Attr):
    try:
        return to_number(v)
    except EvalError as exc:
        raise VisguardError(f"{attr.name}: {exc}", file=attr.file, place=f"line {attr.line}") from None
