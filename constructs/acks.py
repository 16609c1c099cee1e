"""Acknowledging a visguard rule on a construct, on every supported aws-cdk-lib.

``acknowledge(scope, "VG021", reason="...")`` records the acknowledgement as ``aws:cdk:acknowledged-rules``
metadata on ``scope`` (through ``Validations.of(scope).acknowledge`` where the release has it, directly before
that: the same metadata either way). It applies to ``scope`` and everything below it. GuardedQueue's own checks
(its annotations) and the ``VisGuardChecks`` plugin both honour it themselves, so it works whether or not the
installed aws-cdk-lib suppresses third-party findings; ``Validations.of(x).acknowledge(Acknowledgment(
id="visguard::VG021", reason=...))`` on releases that have it is read the same way.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

ACK_NAMESPACE = "visguard"  # CDK derives a plugin's acknowledgement namespace from its name: visguard::VG011
ACK_METADATA = "aws:cdk:acknowledged-rules"
_RULE = re.compile(r"^(?:visguard::)?(VG\d{3})$")


def ack_id(rule: str) -> str:
    return f"{ACK_NAMESPACE}::{rule}"


def acknowledge(scope: Any, rule: str, *, reason: str) -> None:
    """Acknowledge visguard rule ``rule`` ("VG021" or "visguard::VG021") on ``scope`` and its children, with a
    reason (recorded in the cloud assembly for auditors)."""
    match = _RULE.match(rule or "")
    if not match:
        raise ValueError(f"acknowledge: {rule!r} is not a visguard rule id (VGnnn, see `visguard rules`)")
    if not (reason or "").strip():
        raise ValueError(f"acknowledge: give a reason for acknowledging {match.group(1)}")
    from .compat import api

    names = api()
    full = ack_id(match.group(1))
    if names.validations is not None and names.acknowledgment is not None:
        names.validations.of(scope).acknowledge(names.acknowledgment(id=full, reason=reason))
    else:
        scope.node.add_metadata(ACK_METADATA, {full: reason})


def acknowledged_in_tree(construct: Any) -> dict[str, str]:
    """Rule id -> reason of every visguard acknowledgement on ``construct`` or one of its ancestors (a few jsii
    requests per scope: called only for queues the rules have something to say about)."""
    out: dict[str, str] = {}
    for scope in construct.node.scopes:
        for entry in scope.node.metadata:
            if entry.type == ACK_METADATA and isinstance(entry.data, dict):
                out.update(_visguard_rules(entry.data))
    return out


def _visguard_rules(data: dict) -> dict[str, str]:
    prefix = f"{ACK_NAMESPACE}::"
    return {
        k[len(prefix) :]: str(v or "") for k, v in data.items() if isinstance(k, str) and k.startswith(prefix)
    }


def stack_metadata(template_path: str) -> dict[str, list[dict]]:
    """Construct path (no leading "/") -> metadata entries of the stack whose template is ``template_path``,
    from its cloud assembly: ``<stack>.metadata.json`` (newer releases) or the manifest's artifact (older)."""
    folder, name = os.path.split(template_path)
    try:
        with open(os.path.join(folder, "manifest.json"), encoding="utf-8") as fh:
            manifest = json.load(fh)
    except (OSError, ValueError):
        return {}
    for artifact in (manifest.get("artifacts") or {}).values():
        if not isinstance(artifact, dict) or (artifact.get("properties") or {}).get("templateFile") != name:
            continue
        entries = artifact.get("metadata")
        extra = artifact.get("additionalMetadataFile")
        if isinstance(extra, str):
            try:
                with open(os.path.join(folder, extra), encoding="utf-8") as fh:
                    entries = {**(entries or {}), **(json.load(fh) or {})}
            except (OSError, ValueError):
                pass
        if isinstance(entries, dict):
            return {
                path.lstrip("/"): [e for e in v if isinstance(e, dict)]
                for path, v in entries.items()
                if isinstance(v, list)
            }
    return {}


def assembly_acknowledgements(metadata: dict[str, list[dict]]) -> list[tuple[str, str, str]]:
    """(construct path, full rule id, reason) of every acknowledgement recorded in one stack's metadata."""
    out = []
    for path, entries in metadata.items():
        for entry in entries:
            if entry.get("type") == ACK_METADATA and isinstance(entry.get("data"), dict):
                out += [(path, rule, str(reason or "")) for rule, reason in entry["data"].items()]
    return out


def is_acknowledged(acks: list[tuple[str, str, str]], rule: str, construct_path: str) -> str | None:
    """The reason if ``rule`` is acknowledged at ``construct_path`` or one of its parents, else None."""
    full = ack_id(rule)
    for path, acked, reason in acks:
        if acked == full and (construct_path == path or construct_path.startswith(path + "/") or not path):
            return reason
    return None
