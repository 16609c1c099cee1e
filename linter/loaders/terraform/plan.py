"""``terraform show -json PLANFILE`` -> the model: every value as Terraform resolved it.

The plan JSON format (developer.hashicorp.com/terraform/internals/json-format): ``planned_values.root_module``
holds each resource instance that will exist after apply (``resources``, and ``child_modules`` recursively)
with its ``address`` and ``values``; ``resource_changes[].change.after_unknown`` marks the values known only
after apply (the ARN of a queue created by the same plan); ``configuration`` keeps the expressions, whose
``references`` say which resource such a value comes from (``aws_sqs_queue.dlq.arn``). So a redrive policy or an
event source mapping pointing at a queue created in the same plan is still linked to it; the
``maxReceiveCount`` inside a redrive policy computed that way is known only after apply. A role an ECS task or a
pod may assume that the ``configuration`` uses nowhere (``roles.used_in_config``) may be the consumer of a workload
deployed elsewhere (``consumers._Reader.free_role``).
"""

from __future__ import annotations

import json
import re

from visguard.errors import VisguardError
from visguard.linter.model import Location

from ..decode import loads_json, locate
from . import awscc
from .build import ARGS, Res, build_model
from .files import _read_text, excerpt, linked, unquoted
from .load import Note, TerraformModel, problem_note
from .values import Ref, Unknown

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

_REF = re.compile(
    r"^((?:module\.[A-Za-z0-9_-]+(?:\[[^\]]+\])?\.)*)([a-z0-9_]+)\.([A-Za-z0-9_-]+)(\[[^\]]+\])?\.([a-z_]+)$"
)


def load_plan(path: str) -> TerraformModel:
    text = _read_text(path)
    try:
        doc = loads_json(text, file=path)
    except VisguardError as exc:
        if linked(path):  # named on the command line: read, but its text is never shown
            raise unquoted(exc, path, "JSON") from None
        raise
    if not isinstance(doc, dict) or "format_version" not in doc:
        raise VisguardError(
            "not a Terraform plan: no format_version (expected `terraform show -json` output)",
            file=path,
            place="line 1",
        )
    major = str(doc["format_version"]).split(".", 1)[0]
    if major != "1":  # the format's own rule: reject an unsupported major version
        raise VisguardError(
            f"unsupported plan format_version {excerpt(str(doc['format_version']))} (visguard reads 1.x)",
            file=path,
            place="line 1",
        )
    pv = doc.get("planned_values")
    if pv is None and "values" in doc:  # `terraform show -json` of a state: the same shape under "values"
        pv = doc["values"]
    if not isinstance(pv, dict) or not isinstance(pv.get("root_module", {}), dict):
        raise VisguardError(
            "not a Terraform plan: planned_values.root_module is missing", file=path, place="line 1"
        )
    return _Plan(doc, path, pv).load()


class _Plan:
    def __init__(self, doc: dict, file: str, pv: dict):
        self.doc, self.file, self.pv = doc, file, pv
        self.notes: list[Note] = []
        self.changes: dict[str, dict] = {}
        for rc in self.list_at(doc, ["resource_changes"]):
            if isinstance(rc, dict) and isinstance(rc.get("address"), str):
                self.changes[rc["address"]] = rc
        self.instances: list[tuple[dict, list, str]] = []  # (resource, json path, module address)
        self.addresses: set[str] = set()

    def load(self) -> TerraformModel:
        base = (
            ["planned_values", "root_module"] if "planned_values" in self.doc else ["values", "root_module"]
        )
        self.walk(self.pv.get("root_module") or {}, base, "", 0)
        res = [self.resource(r, jp, mod) for r, jp, mod in self.instances]
        problems: list = []
        notes: list = []
        model = build_model(res, self.file, problems, notes=notes, free_roles=self.free_roles())
        if problems and not model.queues:
            raise problems[0][0]  # nothing at all could be read: the input's one error
        self.notes += [problem_note(*p, self.file) for p in problems] + notes
        return TerraformModel(
            queues=model.queues,
            source_file=self.file,
            notes=self.notes,
            files=[self.file],
            pending=model.pending,
            env=model.env,
        )

    def free_roles(self) -> set[str]:
        """The roles an ECS task or a pod may assume that nothing of the configuration uses (roles.py), when the
        plan holds a queue and its ``configuration`` (a state's JSON has none: no such consumer)."""
        from . import roles

        conf = self.doc.get("configuration")
        if not isinstance(conf, dict) or not any(
            awscc.kind(r["type"]) == "aws_sqs_queue" for r, _, _ in self.instances
        ):
            return set()
        out: set[str] = set()
        for r, _, mod in self.instances:
            if r["type"] not in roles.ROLE_TYPES:
                continue
            values = r.get("values") if isinstance(r.get("values"), dict) else {}
            trust = values.get(roles.TRUST_ARG[r["type"]])
            text = trust if isinstance(trust, str) else json.dumps(trust, default=str)
            if not any(w in text for w in roles.WORKLOAD_TRUST):
                continue
            name = values.get("name" if r["type"] == "aws_iam_role" else "role_name")
            names = [name] if isinstance(name, str) and name else []
            if not roles.used_in_config(conf, mod, r["type"], str(r.get("name")), names):
                out.add(r["address"])
        return out

    def list_at(self, node: dict, path: list) -> list:
        """``node[path[-1]]`` (written at ``path`` in the document): a list, or absent; anything else (a mapping
        of resources) is bad input rather than read as nothing."""
        v = node.get(path[-1])
        if v is None:
            return []
        if not isinstance(v, list):
            line = locate(self.doc, path)[0]
            raise VisguardError(
                f"{'.'.join(map(str, path))}: expected a list, got {'an object' if isinstance(v, dict) else 'a ' + type(v).__name__}",
                file=self.file,
                place=f"line {line}" if line else None,
            )
        return v

    def walk(self, module: dict, jpath: list, mod_address: str, depth: int) -> None:
        if depth > 64:
            raise VisguardError("modules nested too deeply", file=self.file)
        for i, r in enumerate(self.list_at(module, [*jpath, "resources"])):
            if not isinstance(r, dict):
                line = locate(self.doc, [*jpath, "resources", i])[0]
                raise VisguardError(
                    "a planned resource must be an object",
                    file=self.file,
                    place=f"line {line}" if line else None,
                )
            if r.get("mode", "managed") != "managed":
                continue
            if not isinstance(r.get("address"), str) or not isinstance(r.get("type"), str):
                line = locate(self.doc, [*jpath, "resources", i])[0]
                raise VisguardError(
                    "a planned resource needs an address and a type", file=self.file, place=f"line {line}"
                )
            self.addresses.add(r["address"])
            if r["type"] in ARGS or r["type"] in awscc.RESOURCES:
                self.instances.append((r, [*jpath, "resources", i], mod_address))
        for j, child in enumerate(self.list_at(module, [*jpath, "child_modules"])):
            if isinstance(child, dict):
                self.walk(child, [*jpath, "child_modules", j], str(child.get("address", "")), depth + 1)

    def loc(self, jpath: list, address: str, arg: str | None = None) -> Location:
        line, col = locate(self.doc, [*jpath, "values", arg] if arg else jpath)
        return Location(self.file, line, col, path=f"{address}/{arg}" if arg else address)

    def resource(self, r: dict, jpath: list, mod_address: str) -> Res:
        address = r["address"]
        values = r.get("values") if isinstance(r.get("values"), dict) else {}
        change = (self.changes.get(address) or {}).get("change") or {}
        unknown = change.get("after_unknown") if isinstance(change.get("after_unknown"), dict) else {}
        kind = awscc.kind(r["type"])  # an awscc_* resource is read as its aws_* type, by its own names
        out = Res(kind, address, self.loc(jpath, address))
        for arg in ARGS[kind]:
            name = awscc.argument(r["type"], arg)
            if name is None:
                continue
            top = name.split(".", 1)[0]
            if unknown.get(top) is True:
                v: Any = self.from_references(r, mod_address, top)
            elif top in values:
                v = values[top]
                # scaling_config.maximum_concurrency: a list of one block (awscc: an object), blocks in it too
                # (capacity_provider_config.lambda_managed_instances_capacity_provider_config.capacity_provider_arn)
                for part in arg.split(".")[1:]:
                    block = v[0] if isinstance(v, list) and v and isinstance(v[0], dict) else v
                    v = block.get(part) if isinstance(block, dict) else None
            else:
                continue
            if v is None:
                continue
            out.values[arg] = v
            out.locations[arg] = self.loc(jpath, address, top)
        if kind != r["type"]:
            awscc.normalize(out)
        return out

    def from_references(self, r: dict, mod_address: str, arg: str) -> Any:
        """A value known only after apply: the resource its expression refers to, from ``configuration``."""
        expr = self.expression(mod_address, r, arg)
        if expr is None:
            return None  # not written in the configuration: a value the provider computes, not the user's
        refs = [x for x in (expr or {}).get("references") or [] if isinstance(x, str)]
        for ref in refs:
            m = _REF.match(ref)
            if m is None or m.group(2).startswith(("var", "local", "each", "count", "data")):
                continue
            target_base = f"{mod_address + '.' if mod_address else ''}{m.group(1)}{m.group(2)}.{m.group(3)}"
            candidates = [target_base + (m.group(4) or "")]
            if m.group(4) is None and "each.key" in refs and r.get("index") is not None:
                from .instances import address_key

                candidates.append(target_base + address_key(r["index"]))
            candidates.append(target_base + "[0]")
            for c in candidates:
                if c in self.addresses:
                    target = Ref(c, m.group(5))
                    if arg in ("redrive_policy",):
                        return {
                            "deadLetterTargetArn": target,
                            "maxReceiveCount": Unknown("maxReceiveCount", "known only after apply"),
                        }
                    return target
        text = f"{r['address']}.{arg}"
        why = "known only after apply"
        self.notes.append(Note(f"{text}: {why}", Location(self.file, path=r["address"]), r["address"]))
        return Unknown(text, why)

    def expression(self, mod_address: str, r: dict, arg: str) -> dict | None:
        node = (self.doc.get("configuration") or {}).get("root_module") or {}
        for part in re.findall(r"module\.([A-Za-z0-9_-]+)", mod_address):
            node = ((node.get("module_calls") or {}).get(part) or {}).get("module") or {}
        local = f"{r['type']}.{r.get('name')}"
        for cr in node.get("resources") or []:
            if isinstance(cr, dict) and cr.get("address") == local:
                e = (cr.get("expressions") or {}).get(arg)
                return e if isinstance(e, dict) else None
        return None
