"""Just enough of CloudFormation's intrinsic functions to read queue and consumer settings.

A value is resolved to a plain Python value when the template and its parameters decide it, to a
:class:`ResRef` when it names a resource of the template (``Ref``, ``Fn::GetAtt``), to a :class:`Text` when
a ``Fn::Sub``/``Fn::Join`` mixes literals and references, and to an :class:`Unknown` (with the reason)
when only the deployed stack could tell (``Fn::ImportValue``, ``AWS::AccountId``, a parameter with no
value). Conditions use three-valued logic: True, False, or None when unknown.

Semantics follow the CloudFormation User Guide, "Intrinsic function reference" and "Pseudo parameters
reference" (https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/intrinsic-function-reference.html).
"""

from __future__ import annotations

import re

from visguard.errors import VisguardError
from visguard.records import REQUIRED, Value

from .decode import locate

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

NOVALUE = object()  # Ref AWS::NoValue: the property is removed


# The values below are records.Value records, not frozen dataclasses: every template lint imports this module,
# and each frozen dataclass compiles six methods at import.
class ResRef(Value):
    """``Ref`` (attr None) or ``Fn::GetAtt`` of a resource of this template."""

    __slots__ = {"id": REQUIRED, "attr": None}

    def __str__(self) -> str:
        return f"${{{self.id}.{self.attr}}}" if self.attr else f"${{{self.id}}}"


class Unknown(Value):
    """A value only the deployed stack knows; ``why`` says where it comes from."""

    # text: how it was written, e.g. "${OrdersDlqArn}" for a Ref to a parameter
    __slots__ = {"why": REQUIRED, "text": None}

    def __str__(self) -> str:
        return self.text or f"<{self.why}>"


class ExternalRef(Unknown):
    """``Fn::ImportValue`` of an export of another stack of the same cloud assembly: ``id`` is the
    resource's id in the merged model (``<stack>/<logical id>``), ``attr`` the exported attribute."""

    __slots__ = {"id": "", "attr": None, "type": ""}


class Text(Value):
    """A string built from literals, :class:`ResRef` and :class:`Unknown` parts."""

    __slots__ = ("parts",)

    def refs(self) -> list[ResRef]:
        return [p for p in self.parts if isinstance(p, ResRef)]

    def __str__(self) -> str:
        return "".join(str(p) for p in self.parts)


PSEUDO_DEFAULTS = {"AWS::Partition": "aws", "AWS::URLSuffix": "amazonaws.com"}
PSEUDO = {
    "AWS::AccountId",
    "AWS::NotificationARNs",
    "AWS::NoValue",
    "AWS::Partition",
    "AWS::Region",
    "AWS::StackId",
    "AWS::StackName",
    "AWS::URLSuffix",
}
_SUB_VAR = r"\$\{([^}]*)\}"  # compiled by the re module on the first Fn::Sub
LIST_TYPES = ("CommaDelimitedList", "List<")


def is_intrinsic(value: Any) -> bool:
    if not isinstance(value, dict) or len(value) != 1:
        return False
    (key,) = value
    return isinstance(key, str) and (key == "Ref" or key.startswith("Fn::") or key == "Condition")


def _text(parts: list) -> str | Text:
    merged: list = []
    for p in parts:
        if isinstance(p, (int, float)) and not isinstance(p, bool):
            p = str(p)
        if isinstance(p, str) and merged and isinstance(merged[-1], str):
            merged[-1] += p
        else:
            merged.append(p)
    if all(isinstance(p, str) for p in merged):
        return "".join(merged)
    return Text(tuple(merged))


class Resolver:
    """Resolves values of one template. ``resources`` are the resources that exist at these parameters."""

    def __init__(
        self,
        template: dict,
        *,
        file: str,
        parameters: dict[str, str] | None = None,
        imports: dict[str, Any] | None = None,
    ):
        self.template = template
        self.file = file
        # where errors point: a path of this template -> the path as written, in the template as written
        # (SAM's transform generates resources; their errors point at the SAM event)
        self.translate = lambda path: path
        self.positions: dict = template
        self.imports = imports or {}
        self.mappings = template.get("Mappings") if isinstance(template.get("Mappings"), dict) else {}
        self.all_resources: dict = template["Resources"]
        self.resources: dict = self.all_resources  # narrowed once conditions are known
        self.params = self._parameters(parameters or {})
        conds = template.get("Conditions", {})
        if conds is None:
            conds = {}
        if not isinstance(conds, dict):
            raise self.error("Conditions must be a mapping", ["Conditions"])
        self.condition_defs: dict = conds
        self._cond_cache: dict[str, bool | None] = {}
        self._cond_stack: list[str] = []

    # ------------------------------------------------------------------ errors and positions
    def error(self, message: str, path: list) -> VisguardError:
        path = self.translate(path)
        line, _ = locate(self.positions, path)
        where = "/".join(str(p) for p in path)
        return VisguardError(
            f"{where}: {message}" if where else message, file=self.file, place=line and str(line)
        )

    # ------------------------------------------------------------------ parameters
    def _parameters(self, overrides: dict[str, str]) -> dict[str, Any]:
        section = self.template.get("Parameters") or {}
        if not isinstance(section, dict):
            raise self.error("Parameters must be a mapping", ["Parameters"])
        values: dict[str, Any] = {}
        for key, spec in section.items():
            name = str(
                key
            )  # a YAML 1.1 key such as `on:` decodes as a boolean; CloudFormation reads its text
            if not isinstance(spec, dict):
                raise self.error("a parameter must be a mapping with a Type", ["Parameters", name])
            ptype = str(spec.get("Type", "String"))
            if name in overrides:
                raw: Any = overrides[name]
            elif "Default" in spec:
                raw = spec["Default"]
            else:
                why = f"parameter {name} has no default; pass --parameter {name}=VALUE"
                values[name] = Unknown(why, "${" + name + "}")
                continue
            if is_intrinsic(raw) or isinstance(raw, (dict, list)) and not ptype.startswith(LIST_TYPES):
                raise self.error("a parameter default must be a plain value", ["Parameters", name, "Default"])
            if ptype.startswith(LIST_TYPES):
                raw = [s.strip() for s in raw.split(",")] if isinstance(raw, str) else raw
            values[name] = raw
        for key in ("AWS::Region", "AWS::AccountId", "AWS::StackName", "AWS::Partition"):
            if key in overrides:
                values[key] = overrides[key]
        return values

    # ------------------------------------------------------------------ conditions
    def condition(self, name: Any, path: list) -> bool | None:
        if not isinstance(name, str) or name not in self.condition_defs:
            raise self.error(f"unknown condition {name!r}", path)
        if name in self._cond_cache:
            return self._cond_cache[name]
        if name in self._cond_stack:
            cycle = " -> ".join([*self._cond_stack[self._cond_stack.index(name) :], name])
            raise self.error(f"cyclic condition reference: {cycle}", ["Conditions", name])
        self._cond_stack.append(name)
        try:
            result = self._cond_expr(self.condition_defs[name], ["Conditions", name])
        finally:
            self._cond_stack.pop()
        self._cond_cache[name] = result
        return result

    def _cond_expr(self, expr: Any, path: list) -> bool | None:
        if isinstance(expr, bool):
            return expr
        if isinstance(expr, str) and expr.lower() in ("true", "false"):
            return expr.lower() == "true"
        if not is_intrinsic(expr):
            raise self.error("a condition must be Fn::Equals, Fn::And, Fn::Or, Fn::Not or Condition", path)
        (fn, arg), sub = next(iter(expr.items())), [*path, next(iter(expr))]
        if fn == "Condition":
            return self.condition(arg, sub)
        if fn == "Fn::Equals":
            if not isinstance(arg, list) or len(arg) != 2:
                raise self.error("Fn::Equals takes a list of two values", sub)
            a, b = (self.value(v, [*sub, i]) for i, v in enumerate(arg))
            if not _concrete(a) or not _concrete(b):
                return None
            return _norm(a) == _norm(b)
        if fn in ("Fn::And", "Fn::Or", "Fn::Not"):
            if not isinstance(arg, list) or not arg or (fn == "Fn::Not" and len(arg) != 1):
                raise self.error(f"{fn} takes a list of conditions", sub)
            vals = [self._cond_expr(v, [*sub, i]) for i, v in enumerate(arg)]
            if fn == "Fn::Not":
                return None if vals[0] is None else not vals[0]
            if fn == "Fn::And":
                return False if False in vals else (None if None in vals else True)
            return True if True in vals else (None if None in vals else False)
        raise self.error(f"{fn} cannot be used in a condition", sub)

    def exists(self, logical_id: str) -> bool | None:
        """Whether a resource is created: its Condition evaluated (None: unknown, kept)."""
        res = self.all_resources.get(logical_id)
        if not isinstance(res, dict) or "Condition" not in res:
            return True
        return self.condition(res["Condition"], ["Resources", logical_id, "Condition"])

    # ------------------------------------------------------------------ values
    def value(self, v: Any, path: list) -> Any:
        """Resolve ``v`` (found at ``path``) as far as the template allows."""
        if isinstance(v, dict):
            if is_intrinsic(v):
                return self._intrinsic(v, path)
            out = {}
            for k, item in v.items():
                r = self.value(item, [*path, k])
                if r is not NOVALUE:
                    out[k] = r
            return out
        if isinstance(v, list):
            return [r for i, item in enumerate(v) if (r := self.value(item, [*path, i])) is not NOVALUE]
        return v

    def _intrinsic(self, v: dict, path: list) -> Any:
        ((fn, arg),) = v.items()
        sub = [*path, fn]
        if fn == "Ref":
            return self.ref(arg, sub)
        if fn == "Fn::GetAtt":
            return self.getatt(arg, sub)
        if fn == "Fn::Sub":
            return self.sub(arg, sub)
        if fn == "Fn::Join":
            if not isinstance(arg, list) or len(arg) != 2 or not isinstance(arg[0], str):
                raise self.error("Fn::Join takes [delimiter, [values]]", sub)
            items = self.value(arg[1], [*sub, 1])
            if not isinstance(items, list):
                return (
                    items if isinstance(items, Unknown) else Unknown("Fn::Join over a value not known here")
                )
            parts: list = []
            for i, item in enumerate(items):
                if isinstance(item, (list, dict)):
                    raise self.error("Fn::Join values must be strings", [*sub, 1, i])
                parts += [arg[0], item] if i else [item]
            return _text(parts)
        if fn == "Fn::If":
            if not isinstance(arg, list) or len(arg) != 3:
                raise self.error("Fn::If takes [condition, value if true, value if false]", sub)
            cond = self.condition(arg[0], [*sub, 0])
            if cond is None:
                return Unknown(f"Fn::If on condition {arg[0]}, which depends on values not known here")
            return self.value(arg[1] if cond else arg[2], [*sub, 1 if cond else 2])
        if fn == "Fn::Select":
            if not isinstance(arg, list) or len(arg) != 2:
                raise self.error("Fn::Select takes [index, list]", sub)
            index, items = self.value(arg[0], [*sub, 0]), self.value(arg[1], [*sub, 1])
            if isinstance(index, str) and index.strip().isdigit() and len(index.strip()) <= 18:
                index = int(index)
            if not isinstance(index, int) or isinstance(index, bool) or not isinstance(items, list):
                return Unknown("Fn::Select over values not known here")
            if not 0 <= index < len(items):
                raise self.error(f"Fn::Select index {index} is outside the list", sub)
            return items[index]
        if fn == "Fn::Split":
            if not isinstance(arg, list) or len(arg) != 2 or not isinstance(arg[0], str) or not arg[0]:
                raise self.error("Fn::Split takes [delimiter, string]", sub)
            text = self.value(arg[1], [*sub, 1])
            return (
                text.split(arg[0])
                if isinstance(text, str)
                else Unknown("Fn::Split of a value not known here")
            )
        if fn == "Fn::FindInMap":
            return self._find_in_map(arg, sub)
        if fn == "Fn::ImportValue":
            name = self.value(arg, sub)
            if isinstance(name, str) and name in self.imports:
                return self.imports[name]
            return Unknown(f"imported with Fn::ImportValue {name}", f"Fn::ImportValue {name}")
        if fn == "Fn::ToJsonString":
            return Unknown("Fn::ToJsonString")
        if fn == "Fn::Length":
            items = self.value(arg, sub)
            return len(items) if isinstance(items, list) else Unknown("Fn::Length of a value not known here")
        if fn == "Condition":
            return self.condition(arg, sub)
        return Unknown(f"{fn} is evaluated by CloudFormation at deploy time")

    def ref(self, name: Any, path: list) -> Any:
        if not isinstance(name, str):
            raise self.error("Ref takes the name of a parameter or resource", path)
        if name == "AWS::NoValue":
            return NOVALUE
        if name in self.params:
            return self.params[name]
        if name in PSEUDO:
            return PSEUDO_DEFAULTS.get(name) or Unknown(f"{name} is known at deploy time", "${" + name + "}")
        if name in self.all_resources:
            if name not in self.resources:
                return Unknown(f"resource {name} is not created at these parameters (its condition is false)")
            return ResRef(name)
        return Unknown(f"no parameter or resource named {name} in this template")

    def getatt(self, arg: Any, path: list) -> Any:
        if isinstance(arg, str) and "." in arg:
            arg = arg.split(".", 1)
        if isinstance(arg, list) and len(arg) == 2 and is_intrinsic(arg[0]):  # AWS::LanguageExtensions
            arg = [self.value(arg[0], [*path, 0]), arg[1]]
        if not isinstance(arg, list) or len(arg) != 2 or not isinstance(arg[0], str):
            raise self.error("Fn::GetAtt takes [resource, attribute]", path)
        attr = self.value(arg[1], [*path, 1])
        if not isinstance(attr, str):
            raise self.error("Fn::GetAtt attribute must be a string", [*path, 1])
        if arg[0] not in self.all_resources:
            return Unknown(f"no resource named {arg[0]} in this template")
        if arg[0] not in self.resources:
            return Unknown(f"resource {arg[0]} is not created at these parameters (its condition is false)")
        return ResRef(arg[0], attr)

    def sub(self, arg: Any, path: list) -> Any:
        variables: dict = {}
        if isinstance(arg, list):
            if len(arg) != 2 or not isinstance(arg[0], str) or not isinstance(arg[1], dict):
                raise self.error("Fn::Sub takes a string or [string, {variables}]", path)
            variables = {k: self.value(v, [*path, 1, k]) for k, v in arg[1].items()}
            arg = arg[0]
        if not isinstance(arg, str):
            raise self.error("Fn::Sub takes a string or [string, {variables}]", path)
        parts: list = []
        pos = 0
        for m in re.finditer(_SUB_VAR, arg):
            parts.append(arg[pos : m.start()])
            pos = m.end()
            name = m.group(1).strip()
            if name.startswith("!"):  # ${!Literal} is written as ${Literal}
                parts.append("${" + name[1:] + "}")
            elif name in variables:
                parts.append(variables[name])
            elif "." in name and name.split(".", 1)[0] in self.all_resources:
                parts.append(self.getatt(name, path))
            else:
                parts.append(self.ref(name, path))
        parts.append(arg[pos:])
        return _text([p for p in parts if p != ""])

    def _find_in_map(self, arg: Any, path: list) -> Any:
        if not isinstance(arg, list) or len(arg) not in (3, 4):
            raise self.error("Fn::FindInMap takes [map, top-level key, second-level key]", path)
        keys = [self.value(a, [*path, i]) for i, a in enumerate(arg[:3])]
        default = None
        if len(arg) == 4 and isinstance(arg[3], dict) and "DefaultValue" in arg[3]:
            default = self.value(arg[3]["DefaultValue"], [*path, 3, "DefaultValue"])
        if not all(isinstance(k, (str, int)) for k in keys):
            return default if default is not None else Unknown("Fn::FindInMap keys not known here")
        node: Any = self.mappings
        for k in keys:
            node = node.get(k, node.get(str(k))) if isinstance(node, dict) else None
            if node is None:
                if default is not None:
                    return default
                raise self.error(f"Fn::FindInMap: no entry {'/'.join(map(str, keys))} in Mappings", path)
        return node


def _concrete(v: Any) -> bool:
    return not isinstance(v, (Unknown, ResRef, Text))


def _norm(v: Any) -> Any:
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, (int, float)):
        return str(v)
    return v
