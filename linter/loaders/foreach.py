"""``Fn::ForEach`` in ``Resources`` (the ``AWS::LanguageExtensions`` transform), expanded before loading.

CloudFormation User Guide, "Fn::ForEach"
(https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/intrinsic-function-reference-foreach.html):

```yaml
Fn::ForEach::Queues:
  - Name                       # identifier
  - [Orders, Payments]         # collection: a list, or a Ref to a CommaDelimitedList parameter
  - Queue${Name}:              # output key with ${Name} (or &{Name}: non-alphanumerics removed)
      Type: AWS::SQS::Queue
      Properties: {QueueName: !Sub "${Name}-queue"}
```
Inside the fragment ``Ref: Name`` is the item and ``${Name}``/``&{Name}`` are replaced in strings. Loops may
nest. A collection only the deployed stack knows is left unexpanded (its resources are not linted).

Expansion limit: CloudFormation applies its quotas to the expanded template (500 resources, 1 MB), so a loop
nest that expands to more than :data:`MAX_RESOURCES` resources, or copies more than :data:`MAX_NODES`
values, cannot deploy; it is refused as bad input before it can exhaust memory (three nested loops over 200
items would otherwise make 8,000,000 resources).
"""

from __future__ import annotations

import re

from visguard.errors import VisguardError

from .decode import PosDict, locate

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

PREFIX = "Fn::ForEach::"
MAX_RESOURCES = 5_000  # 10 x CloudFormation's 500 resources per template
MAX_NODES = 2_000_000  # values copied by the expansion (the same bound as YAML alias expansion)


class _Budget:
    def __init__(self, template: dict, file: str):
        self.resources = 0
        self.nodes = 0
        self.template, self.file = template, file

    def spend(self, resources: int, nodes: int, where: list) -> None:
        self.resources += resources
        self.nodes += nodes
        if self.resources > MAX_RESOURCES or self.nodes > MAX_NODES:
            raise _error(
                f"Fn::ForEach expands to more than {MAX_RESOURCES:,} resources or {MAX_NODES:,} values "
                "(CloudFormation allows 500 resources per template)",
                self.template,
                self.file,
                where,
            )


def has_foreach(resources: Any) -> bool:
    return isinstance(resources, dict) and any(isinstance(k, str) and k.startswith(PREFIX) for k in resources)


def expand(template: dict, *, file: str, parameters: dict[str, str] | None) -> dict:
    """A shallow copy of ``template`` whose Resources have every ``Fn::ForEach::`` loop expanded."""
    out = PosDict(template)
    _copy_pos(template, out)
    budget = _Budget(template, file)
    out["Resources"] = _expand_mapping(
        template["Resources"], template, file, parameters or {}, ["Resources"], budget
    )
    return out


def _expand_mapping(node: dict, template: dict, file: str, params: dict, path: list, budget: _Budget) -> dict:
    out = PosDict()
    _copy_pos(node, out)
    for key, value in node.items():
        if not (isinstance(key, str) and key.startswith(PREFIX)):
            out[key] = value
            if isinstance(node, PosDict) and key in node.key_pos:
                out.key_pos[key] = node.key_pos[key]
            continue
        where = [*path, key]
        if not (
            isinstance(value, list)
            and len(value) == 3
            and isinstance(value[0], str)
            and isinstance(value[2], dict)
        ):
            raise _error(
                "Fn::ForEach takes [identifier, collection, {output key: fragment}]", template, file, where
            )
        ident, items, fragment = value
        items = _collection(items, template, params)
        if items is None:
            continue
        pos = node.key_pos.get(key) if isinstance(node, PosDict) else None
        for item in items:
            if isinstance(item, (dict, list)):
                raise _error("Fn::ForEach collection items must be strings", template, file, [*where, 1])
            item = str(item)
            budget.spend(0, _size(fragment, MAX_NODES + 1), where)
            expanded = _substitute(fragment, ident, item)
            expanded = _expand_mapping(expanded, template, file, params, where, budget)
            budget.spend(sum(1 for k in expanded if not str(k).startswith(PREFIX)), 0, where)
            for k, v in expanded.items():
                if k in out or k in node:
                    raise _error(f"Fn::ForEach produces the logical id {k!r} twice", template, file, where)
                out[k] = v
                kpos = expanded.key_pos.get(k) or pos  # the fragment's own line
                if kpos:
                    out.key_pos[k] = kpos
    return out


def _size(node: Any, limit: int) -> int:
    """Values in ``node`` (stops counting past ``limit``)."""
    n, stack = 0, [node]
    while stack and n <= limit:
        x = stack.pop()
        n += 1
        if isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
    return n


def _collection(items: Any, template: dict, params: dict) -> list | None:
    if isinstance(items, list):
        return items
    if isinstance(items, dict) and len(items) == 1 and isinstance(items.get("Ref"), str):
        name = items["Ref"]
        section = template.get("Parameters")
        # A Parameters section that is not a mapping is reported by the intrinsics resolver afterwards.
        spec = section.get(name) if isinstance(section, dict) else None
        raw = params.get(name, spec.get("Default") if isinstance(spec, dict) else None)
        if isinstance(raw, str):
            return [s.strip() for s in raw.split(",")]
        if isinstance(raw, list):
            return raw
    return None


def _substitute(node: Any, ident: str, item: str) -> Any:
    alnum = re.sub(r"[^A-Za-z0-9]", "", item)

    def text(s: str) -> str:
        return s.replace("${" + ident + "}", item).replace("&{" + ident + "}", alnum)

    if isinstance(node, dict):
        if len(node) == 1 and node.get("Ref") == ident:
            return item
        out = PosDict()
        _copy_pos(node, out)
        for k, v in node.items():
            nk = text(k) if isinstance(k, str) else k
            out[nk] = _substitute(v, ident, item)
            if isinstance(node, PosDict) and k in node.key_pos:
                out.key_pos[nk] = node.key_pos[k]
        return out
    if isinstance(node, list):
        return [_substitute(v, ident, item) for v in node]
    if isinstance(node, str):
        return text(node)
    return node


def _copy_pos(src: Any, dst: PosDict) -> None:
    if isinstance(src, PosDict):
        dst.line, dst.col = src.line, src.col
        dst.key_pos.update(src.key_pos)


def _error(message: str, template: dict, file: str, path: list) -> VisguardError:
    line = locate(template, path)[0]
    return VisguardError(f"{'/'.join(map(str, path))}: {message}", file=file, place=line and str(line))
