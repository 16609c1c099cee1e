"""A ``cdk.out`` cloud assembly -> one Model over every stack.

The assembly's ``manifest.json`` lists artifacts (AWS CDK cloud-assembly schema,
https://github.com/aws/aws-cdk-cli/tree/main/packages/@aws-cdk/cloud-assembly-schema):
``aws:cloudformation:stack`` artifacts name their ``templateFile``; ``cdk:cloud-assembly`` artifacts are
nested assemblies (one per ``Stage``) in ``directoryName``. Nested stacks are ``AWS::CloudFormation::Stack``
resources whose ``aws:asset:path`` metadata names a ``*.nested.template.json`` file in the same folder (files
not reached that way are loaded too).

Queue ids become ``<stack>/<logical id>`` so stacks cannot collide; every location carries the construct
path, from the resource's ``aws:cdk:path`` metadata or, when path metadata is off, from the manifest's
``aws:cdk:logicalId`` entries (``additionalMetadataFile`` in newer assemblies). Cross-stack references
(CDK turns them into ``Outputs.Export`` + ``Fn::ImportValue``) are followed: stacks that export are loaded
first, and a mapping or redrive policy importing a queue's ARN is linked to that queue.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import Any

from visguard.errors import VisguardError
from visguard.linter.model import Model

from .cfn import load_template
from .decode import load_file
from .intrinsics import ExternalRef

STACK = "aws:cloudformation:stack"
NESTED_ASSEMBLY = "cdk:cloud-assembly"
MAX_DEPTH = 8


@dataclass
class _Stack:
    path: str
    label: str
    doc: Any
    construct_paths: dict[str, str] = field(default_factory=dict)


def load_assembly(directory: str, *, parameters: dict[str, str] | None = None) -> Model:
    manifest_path = os.path.join(directory, "manifest.json")
    if not os.path.isfile(manifest_path):
        raise VisguardError(
            "a folder to lint must be a cdk.out cloud assembly (no manifest.json)", file=directory
        )
    stacks: list[_Stack] = []
    _collect(directory, 0, stacks)
    seen = {os.path.abspath(s.path) for s in stacks}
    # nested stack templates not reached through aws:asset:path metadata (synthesized without it)
    for root, _, files in sorted(os.walk(directory)):
        for f in sorted(files):
            path = os.path.join(root, f)
            if f.endswith(".nested.template.json") and os.path.abspath(path) not in seen:
                seen.add(os.path.abspath(path))
                stacks.append(_Stack(path, f.removesuffix(".nested.template.json"), load_file(path)))
    model = Model(source_file=directory)
    exports = _exports(stacks)
    for st in _exporters_first(stacks, exports):
        imports = {
            name: ref
            for name, (label, ref) in exports.items()
            if label != st.label and ref.id in model.queues
        }
        part = load_template(
            st.doc, file=st.path, parameters=parameters, source="cdk", imports=imports, external=model.queues
        )
        for q in part.queues.values():
            cp = st.construct_paths.get(q.id)
            if q.location.construct_path is None and cp:
                q.location = replace(q.location, construct_path=cp)
                q.locations = {k: replace(v, construct_path=cp) for k, v in q.locations.items()}
        _merge(model, part, st.label)
    return model


def _collect(directory: str, depth: int, stacks: list[_Stack]) -> None:
    manifest_path = os.path.join(directory, "manifest.json")
    if depth > MAX_DEPTH:
        raise VisguardError("nested assemblies too deep (a cycle?)", file=manifest_path)
    manifest = load_file(manifest_path)
    artifacts = manifest.get("artifacts") if isinstance(manifest, dict) else None
    if not isinstance(artifacts, dict):
        raise VisguardError("not a cloud assembly manifest: no artifacts mapping", file=manifest_path)
    for name, art in artifacts.items():
        if not isinstance(art, dict):
            raise VisguardError(f"artifacts/{name}: must be a mapping", file=manifest_path)
        props = art.get("properties") or {}
        if art.get("type") == STACK:
            template_file = props.get("templateFile") if isinstance(props, dict) else None
            if not isinstance(template_file, str):
                raise VisguardError(
                    f"artifacts/{name}: stack without properties.templateFile", file=manifest_path
                )
            label = art.get("displayName") if isinstance(art.get("displayName"), str) else name
            paths = _construct_paths(art.get("metadata"))
            extra = art.get("additionalMetadataFile")  # newer assemblies keep the metadata in its own file
            if isinstance(extra, str) and os.path.isfile(os.path.join(directory, extra)):
                paths.update(_construct_paths(load_file(os.path.join(directory, extra))))
            _add_stack(directory, template_file, label, paths, stacks, 0)
        elif art.get("type") == NESTED_ASSEMBLY:
            sub = props.get("directoryName") if isinstance(props, dict) else None
            if not isinstance(sub, str):
                raise VisguardError(
                    f"artifacts/{name}: nested assembly without directoryName", file=manifest_path
                )
            _collect(os.path.join(directory, sub), depth + 1, stacks)


def _add_stack(
    directory: str, template_file: str, label: str, paths: dict, stacks: list[_Stack], depth: int
) -> None:
    path = os.path.join(directory, template_file)
    if any(os.path.abspath(s.path) == os.path.abspath(path) for s in stacks):
        return
    doc = load_file(path)
    stacks.append(_Stack(path, label, doc, paths))
    resources = doc.get("Resources") if isinstance(doc, dict) else None
    if depth >= MAX_DEPTH or not isinstance(resources, dict):
        return
    for lid, res in resources.items():
        meta = res.get("Metadata") if isinstance(res, dict) else None
        asset = meta.get("aws:asset:path") if isinstance(meta, dict) else None
        nested = res.get("Type") == "AWS::CloudFormation::Stack" and isinstance(asset, str)
        if nested and asset.endswith(".json") and os.path.isfile(os.path.join(directory, asset)):
            _add_stack(directory, asset, f"{label}/{lid}", {}, stacks, depth + 1)


def _construct_paths(metadata: Any) -> dict[str, str]:
    out: dict[str, str] = {}
    if not isinstance(metadata, dict):
        return out
    for path, entries in metadata.items():
        for e in entries if isinstance(entries, list) else []:
            if (
                isinstance(e, dict)
                and e.get("type") == "aws:cdk:logicalId"
                and isinstance(e.get("data"), str)
            ):
                out[e["data"]] = path.lstrip("/")
    return out


def _exports(stacks: list[_Stack]) -> dict[str, tuple[str, ExternalRef]]:
    """Export name -> (exporting stack, reference) for exports of a resource (``Ref`` or ``Fn::GetAtt``)."""
    out: dict[str, tuple[str, ExternalRef]] = {}
    for st in stacks:
        doc = st.doc if isinstance(st.doc, dict) else {}
        outputs, resources = doc.get("Outputs"), doc.get("Resources")
        if not isinstance(outputs, dict) or not isinstance(resources, dict):
            continue
        for o in outputs.values():
            name = (
                o.get("Export", {}).get("Name")
                if isinstance(o, dict) and isinstance(o.get("Export"), dict)
                else None
            )
            value = o.get("Value") if isinstance(o, dict) else None
            if not isinstance(name, str) or not isinstance(value, dict) or len(value) != 1:
                continue
            ((fn, arg),) = value.items()
            lid, attr = None, None
            if fn == "Ref" and isinstance(arg, str):
                lid = arg
            elif (
                fn == "Fn::GetAtt"
                and isinstance(arg, list)
                and len(arg) == 2
                and all(isinstance(a, str) for a in arg)
            ):
                lid, attr = arg
            res = resources.get(lid) if lid else None
            if isinstance(res, dict) and isinstance(res.get("Type"), str):
                why = f"imported with Fn::ImportValue {name} from stack {st.label}"
                ref = ExternalRef(
                    why, f"Fn::ImportValue {name}", id=f"{st.label}/{lid}", attr=attr, type=res["Type"]
                )
                out[name] = (st.label, ref)
    return out


def _imported_names(node: Any) -> set[str]:
    names: set[str] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, dict):
            if len(n) == 1 and isinstance(n.get("Fn::ImportValue"), str):
                names.add(n["Fn::ImportValue"])
            stack.extend(n.values())
        elif isinstance(n, list):
            stack.extend(n)
    return names


def _exporters_first(stacks: list[_Stack], exports: dict) -> list[_Stack]:
    """Stacks ordered so that each comes after the stacks whose exports it imports (manifest order otherwise)."""
    needs = {
        id(st): {exports[n][0] for n in _imported_names(st.doc) if n in exports} - {st.label} for st in stacks
    }
    done: set[str] = set()
    ordered: list[_Stack] = []
    pending = list(stacks)
    while pending:
        ready = [st for st in pending if needs[id(st)] <= done] or pending[:1]  # a cycle: keep manifest order
        for st in ready:
            ordered.append(st)
            done.add(st.label)
            pending.remove(st)
    return ordered


def _merge(model: Model, part: Model, prefix: str) -> None:
    local = set(part.queues)
    for q in part.queues.values():
        q.id = f"{prefix}/{q.id}"
        if q.redrive is not None and q.redrive.target in local:
            q.redrive.target = f"{prefix}/{q.redrive.target}"
        if q.redrive_allow:
            q.redrive_allow["sourceQueueArns"] = [
                f"{prefix}/{s}" if s in local else s for s in q.redrive_allow.get("sourceQueueArns", [])
            ]
        model.add(q)
