"""Helpers shared by the reporters."""

from __future__ import annotations

import os

from visguard.linter.model import Finding


def display_path(file: str | None) -> str:
    """A path as users typed it, relative to the working directory when it lies below it, with '/', without a
    leading ``./``."""
    if not file:
        return "<unknown>"
    path = str(file)
    try:
        if os.path.isabs(path):
            rel = os.path.relpath(path)
            if not rel.startswith(".."):
                path = rel
    except ValueError:  # another drive (Windows)
        pass
    path = path.replace(os.sep, "/")
    while (
        path.startswith("./") and len(path) > 2
    ):  # `visguard lint .` finds ./stacks/x.yaml: stacks/x.yaml, the
        path = path[2:]  # path below the working directory that GitHub and GitLab map results onto
    return path


def queue_construct_path(queue: str, findings: list[Finding]) -> str | None:
    """The CDK construct path of a queue, from a finding that points into the queue's own resource (findings
    about a consumer point at the consumer's construct)."""
    logical_id = queue.rsplit("/", 1)[-1]
    for f in findings:
        path = f.location.path or ""
        if f.location.construct_path and (
            path == f"Resources/{logical_id}" or path.startswith(f"Resources/{logical_id}/")
        ):
            return f.location.construct_path
    return None


def fingerprint(f: Finding) -> str:
    """Stable across runs and unrelated edits: rule, file, queue and consumer (not the line or the numbers)."""
    import hashlib

    key = "\x1f".join([f.rule, display_path(f.location.file), f.queue, f.consumer or ""])
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def error_parts(err) -> tuple[str | None, str | None, str]:
    return getattr(err, "file", None), getattr(err, "place", None), getattr(err, "detail", None) or str(err)
