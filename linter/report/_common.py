"""Helpers shared by the reporters."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from visguard.linter.model import Finding


def display_path(file: str | None) -> str:
    """A path as users typed it, relative to the working directory when it lies below it, with '/'."""
    if not file:
        return "<unknown>"
    try:
        p = Path(file)
        if p.is_absolute():
            rel = os.path.relpath(p, Path.cwd())
            if not rel.startswith(".."):
                return Path(rel).as_posix()
        return p.as_posix()
    except ValueError:  # different drive (Windows)
        return str(file)


def resource_label(f: Finding) -> str:
    loc = f.location
    label = f.queue
    if loc.construct_path:
        label += f" [{loc.construct_path}]"
    return label


def fingerprint(f: Finding) -> str:
    """Stable across runs and unrelated edits: rule, file, queue and consumer (not the line or the numbers)."""
    key = "\x1f".join([f.rule, display_path(f.location.file), f.queue, f.consumer or ""])
    return hashlib.sha256(key.encode()).hexdigest()[:32]


def error_parts(err) -> tuple[str | None, str | None, str]:
    return getattr(err, "file", None), getattr(err, "place", None), getattr(err, "detail", None) or str(err)
