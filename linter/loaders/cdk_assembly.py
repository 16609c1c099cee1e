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

import json
import os

from visguard.errors import VisguardError
from visguard.linter.model import Model
from visguard.records import REQUIRED, Record, fresh

from . import safe_io
from .decode import load_file

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

    from .intrinsics import ExternalRef

STACK = "aws:cloudformation:stack"
NESTED_ASSEMBLY = "cdk:cloud-assembly"
MAX_DEPTH = 8
MANIFEST_MAX_BYTES = 4 * 1024 * 1024
# artifact types of the AWS CDK cloud-assembly schema (an unversioned manifest must use one of them)
KNOWN_TYPES = {STACK, NESTED_ASSEMBLY, "cdk:asset-manifest", "cdk:tree", "cdk:feature-flag-report"}


class _Stack(Record):
    # stack_name: the deployed stack's name (properties.stackName, else the artifact's id; a nested stack's: its
    # top stack's)
    __slots__ = {
        "path": REQUIRED,
        "label": REQUIRED,
        "doc": REQUIRED,
        "construct_paths": fresh(dict),
        "stack_name": None,
    }


def _manifest_shape(doc: Any) -> bool:
    """A cloud assembly manifest: a mapping whose ``artifacts`` maps names to mappings with a ``type`` string
    (and, when present, a ``version`` string). Anything else named manifest.json is not an assembly."""
    if not isinstance(doc, dict) or not isinstance(doc.get("artifacts"), dict):
        return False
    if "version" in doc and not isinstance(doc["version"], str):
        return False
    return all(isinstance(a, dict) and isinstance(a.get("type"), str) for a in doc["artifacts"].values())


def is_assembly(directory: str) -> bool:
    """Whether ``directory`` is a cdk.out cloud assembly: its manifest.json is a regular file shaped like one
    (checked cheaply: the registry asks this of every folder ``visguard lint .`` walks through)."""
    manifest = os.path.join(directory, "manifest.json")
    if not safe_io.is_regular_file(manifest):
        return False
    try:
        doc = json.loads(safe_io.read_bytes(manifest, max_bytes=MANIFEST_MAX_BYTES))
    except (VisguardError, ValueError, RecursionError):
        return False
    return _manifest_shape(doc) and (
        isinstance(doc.get("version"), str)
        or any(a["type"] in KNOWN_TYPES for a in doc["artifacts"].values())
    )


def load_assembly(directory: str, *, parameters: dict[str, str] | None = None) -> Model:
    from .cfn import load_template  # not at import: the registry asks is_assembly() of every folder it meets

    manifest_path = os.path.join(directory, "manifest.json")
    if not os.path.lexists(manifest_path):
        raise VisguardError(
            "a folder to lint must be a cdk.out cloud assembly (no manifest.json)", file=directory
        )
    stacks: list[_Stack] = []
    _collect(directory, directory, 0, stacks)
    seen = {os.path.realpath(s.path) for s in stacks}
    # nested stack templates not reached through aws:asset:path metadata (synthesized without it)
    errors: list[VisguardError] = []
    for _folder, files in safe_io.walk(directory, errors=errors, max_depth=MAX_DEPTH):
        for path in files:
            f = os.path.basename(path)
            if f.endswith(".nested.template.json") and os.path.realpath(path) not in seen:
                seen.add(os.path.realpath(path))
                stacks.append(_Stack(path, f.removesuffix(".nested.template.json"), load_file(path)))
    if errors:
        raise errors[0]
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
            q.stack = st.stack_name
            cp = st.construct_paths.get(q.id)
            if q.location.construct_path is None and cp:
                q.location = q.location.replace(construct_path=cp)
                q.locations = {k: v.replace(construct_path=cp) for k, v in q.locations.items()}
            for c in q.consumers:  # worker consumers (issue 24): each location at its resource's construct
                if c.kind == "worker":
                    _construct_paths_into(c, st.construct_paths)
        for c in part.pending:
            _construct_paths_into(c, st.construct_paths)
        _merge(model, part, st.label)
    return model


def _collect(root: str, directory: str, depth: int, stacks: list[_Stack]) -> None:
    """Read the manifest of ``directory`` (``root`` or a nested assembly inside it). Every file a manifest
    names is read only when it lies inside ``root`` once symlinks are resolved (docs/security.md)."""
    manifest_path = os.path.join(directory, "manifest.json")
    if depth > MAX_DEPTH:
        raise VisguardError("nested assemblies too deep (a cycle?)", file=manifest_path)
    safe_io.confined(root, "manifest.json", base=directory, file=manifest_path, entry="manifest.json")
    manifest = load_file(manifest_path)
    artifacts = manifest.get("artifacts") if isinstance(manifest, dict) else None
    if not isinstance(artifacts, dict):
        raise VisguardError("not a cloud assembly manifest: no artifacts mapping", file=manifest_path)
    for name, art in artifacts.items():
        entry = f"artifacts/{name}"
        if not isinstance(art, dict):
            raise VisguardError(f"{entry}: must be a mapping", file=manifest_path)
        props = art.get("properties") or {}
        if art.get("type") == STACK:
            template_file = props.get("templateFile") if isinstance(props, dict) else None
            if not isinstance(template_file, str):
                raise VisguardError(f"{entry}: stack without properties.templateFile", file=manifest_path)
            path = safe_io.confined(
                root,
                template_file,
                base=directory,
                file=manifest_path,
                entry=f"{entry}/properties/templateFile",
            )
            label = art.get("displayName") if isinstance(art.get("displayName"), str) else name
            paths = _construct_paths(art.get("metadata"))
            extra = art.get("additionalMetadataFile")  # newer assemblies keep the metadata in its own file
            if isinstance(extra, str):
                extra_path = safe_io.confined(
                    root,
                    extra,
                    base=directory,
                    file=manifest_path,
                    entry=f"{entry}/additionalMetadataFile",
                )
                if os.path.isfile(extra_path):
                    paths.update(_construct_paths(load_file(extra_path)))
            stack_name = props.get("stackName") if isinstance(props.get("stackName"), str) else name
            _add_stack(root, directory, path, label, paths, stacks, 0, stack_name)
        elif art.get("type") == NESTED_ASSEMBLY:
            sub = props.get("directoryName") if isinstance(props, dict) else None
            if not isinstance(sub, str):
                raise VisguardError(f"{entry}: nested assembly without directoryName", file=manifest_path)
            sub_path = safe_io.confined(
                root,
                sub,
                base=directory,
                file=manifest_path,
                entry=f"{entry}/properties/directoryName",
            )
            _collect(root, sub_path, depth + 1, stacks)


def _add_stack(
    root: str,
    directory: str,
    path: str,
    label: str,
    paths: dict,
    stacks: list[_Stack],
    depth: int,
    stack_name: str | None = None,
) -> None:
    if any(os.path.realpath(s.path) == os.path.realpath(path) for s in stacks):
        return
    doc = load_file(path)
    stacks.append(_Stack(path, label, doc, paths, stack_name))
    resources = doc.get("Resources") if isinstance(doc, dict) else None
    if depth >= MAX_DEPTH or not isinstance(resources, dict):
        return
    for lid, res in resources.items():
        meta = res.get("Metadata") if isinstance(res, dict) else None
        asset = meta.get("aws:asset:path") if isinstance(meta, dict) else None
        nested = isinstance(res, dict) and res.get("Type") == "AWS::CloudFormation::Stack"
        if not (nested and isinstance(asset, str) and asset.endswith(".json")):
            continue
        nested_path = safe_io.confined(
            root,
            asset,
            base=directory,
            file=path,
            entry=f"Resources/{lid}/Metadata/aws:asset:path",
        )
        if os.path.isfile(nested_path):
            _add_stack(root, directory, nested_path, f"{label}/{lid}", {}, stacks, depth + 1, stack_name)


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
    from .intrinsics import ExternalRef

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


def _construct_paths_into(c, paths: dict[str, str]) -> None:
    def at(loc):
        parts = (loc.path or "").split("/")
        cp = paths.get(parts[1]) if len(parts) > 1 and parts[0] == "Resources" else None
        return loc.replace(construct_path=cp) if cp and loc.construct_path is None else loc

    c.location = at(c.location) if c.location is not None else None
    c.locations = {k: at(v) for k, v in c.locations.items()}


def _merge(model: Model, part: Model, prefix: str) -> None:
    local = set(part.queues)
    model.notes += part.notes
    model.pending += part.pending
    model.env += [e.replace(queue=f"{prefix}/{e.queue}") if e.queue in local else e for e in part.env]
    for q in part.queues.values():
        q.id = f"{prefix}/{q.id}"
        for s in q.subscriptions:
            if s.redrive in local:
                s.redrive = f"{prefix}/{s.redrive}"
        if q.redrive is not None and q.redrive.target in local:
            q.redrive.target = f"{prefix}/{q.redrive.target}"
        if q.redrive_allow:
            q.redrive_allow["sourceQueueArns"] = [
                f"{prefix}/{s}" if s in local else s for s in q.redrive_allow.get("sourceQueueArns", [])
            ]
        model.add(q)
