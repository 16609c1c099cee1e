"""The one place this package reads a file: regular files only, size-bounded, UTF-8.

Every read of a ``.tf``, ``.tf.json``, ``.tfvars`` or plan JSON file goes through :func:`_read_text`, so the
linter's safe reader can replace it in one place.
"""

from __future__ import annotations

from .. import safe_io

MAX_BYTES = 10 * 1024 * 1024  # a Terraform file or plan larger than this is not something to lint


def _read_text(path: str) -> str:
    """The text of ``path`` through the linter's one safe reader (regular files only, bounded, UTF-8, no NUL)."""
    return safe_io.read_text(path, max_bytes=MAX_BYTES)
