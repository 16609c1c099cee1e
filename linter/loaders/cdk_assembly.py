"""A ``cdk.out`` cloud assembly -> one Model over every stack.

The assembly's ``manifest.json`` lists artifacts (AWS CDK cloud-assembly schema,
https://github.com/aws/aws-cdk-cli/tree/main/packages/@aws-cdk/cloud-assembly-schema):
``aws:cloudformation:stack`` artifacts name their ``templateFile``; ``cdk:cloud-assembly`` artifacts are
nested assemblies (one per ``Stage``) in ``directoryName``. Nested stacks are ``AWS::CloudFormation::Stack``
resources whose ``aws:asset:path`` metadata names a ``*.nested.template.json`` file in the same folder.

Queue ids become ``<stack>/<logical id>`` so stacks cannot collide; every location carries the construct
path, from the resource's ``aws:cdk:path`` metadata or, when path metadata is off, from the manifest's
``aws:cdk:logicalId`` entries.
"""

from __future__ import annotations

import os
from typing import Any

from visguard.errors import VisguardError
from visguard.linter.model import Model

from .cfn import load_template
from .decode import load_file

STACK = "aws:cloudformation:stack"
NESTED_ASSEMBLY = "cdk:cloud-assembly"
MAX_DEPTH = 8


def load_assembly(directory: str, *, parameters: dict[str, str] | None = None) -> Model:
    manifest_path = os.path.join(directory, "manifest.json")
    if not os.path.isfile(manifest_path):
        raise VisguardError(
            "a folder to lint must be a cdk.out cloud assembly (no manifest.json)", file=directory
        )
    model = Model(source_file=directory)
    loaded: set[str] = set()
    _load_into(model, directory, parameters, 0, loaded)
    # nested stack templates not reached through aws:asset:path metadata (synthesized without it)
    for root, _, files in os.walk(directory):
        for f in sorted(files):
            path = os.path.join(root, f)
            if f.endswith(".nested.template.json") and os.path.abspath(path) not in loaded:
                _load_stack(model, root, f, f.removesuffix(".nested.template.json"), parameters, {}, loaded)
    return model


def _load_into(model: Model, directory: str, parameters, depth: int, loaded: set[str]) -> None:
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
            _load_stack(model, directory, template_file, label, parameters, paths, loaded)
        elif art.get("type") == NESTED_ASSEMBLY:
            sub = props.get("directoryName") if isinstance(props, dict) else None
            if not isinstance(sub, str):
                raise VisguardError(
                    f"artifacts/{name}: nested assembly without directoryName", file=manifest_path
                )
            _load_into(model, os.path.join(directory, sub), parameters, depth + 1, loaded)


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


def _load_stack(model: Model, directory, template_file, label, parameters, paths, loaded, depth=0) -> None:
    path = os.path.join(directory, template_file)
    if os.path.abspath(path) in loaded:
        return
    loaded.add(os.path.abspath(path))
    template = load_file(path)
    stack_model = load_template(template, file=path, parameters=parameters, source="cdk")
    for q in stack_model.queues.values():
        if q.location.construct_path is None and q.id in paths:
            q.location = _with_cp(q.location, paths[q.id])
            q.locations = {k: _with_cp(v, paths[q.id]) for k, v in q.locations.items()}
    _merge(model, stack_model, label)
    if depth >= MAX_DEPTH or not isinstance(template, dict):
        return
    for lid, res in (template.get("Resources") or {}).items():
        meta = res.get("Metadata") if isinstance(res, dict) else None
        asset = meta.get("aws:asset:path") if isinstance(meta, dict) else None
        if (
            res.get("Type") == "AWS::CloudFormation::Stack"
            and isinstance(asset, str)
            and asset.endswith(".json")
        ) and os.path.isfile(os.path.join(directory, asset)):
            _load_stack(model, directory, asset, f"{label}/{lid}", parameters, {}, loaded, depth + 1)


def _with_cp(loc, cp):
    from dataclasses import replace

    return replace(loc, construct_path=cp)


def _merge(model: Model, part: Model, prefix: str) -> None:
    for q in part.queues.values():
        q.id = f"{prefix}/{q.id}"
        if q.redrive is not None and q.redrive.target is not None:
            q.redrive.target = f"{prefix}/{q.redrive.target}"
        model.add(q)
