"""The one place this package reads a file: regular files only, size-bounded, UTF-8.

Every read of a ``.tf``, ``.tf.json``, ``.tfvars`` or plan JSON file goes through :func:`_read_text`, so the
linter's safe reader can replace it in one place.
"""

from __future__ import annotations

import os
import stat

from visguard.errors import VisguardError

MAX_BYTES = 10 * 1024 * 1024  # a Terraform file or plan larger than this is not something to lint


def _read_text(path: str) -> str:
    """The text of ``path``: a VisguardError for a missing, special, oversized, binary or non-UTF-8 file."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise VisguardError("no such file or directory", file=path) from None
    except OSError as exc:
        raise VisguardError(f"cannot read: {exc.strerror}", file=path) from None
    if not stat.S_ISREG(st.st_mode):
        raise VisguardError("not a regular file", file=path)
    if st.st_size > MAX_BYTES:
        raise VisguardError(
            f"file is {st.st_size / 1048576:.1f} MB, more than the {MAX_BYTES // 1048576} MB limit", file=path
        )
    try:
        with open(path, encoding="utf-8-sig") as fh:
            text = fh.read(MAX_BYTES + 1)
    except UnicodeDecodeError as exc:
        raise VisguardError(f"not UTF-8 text (byte {exc.start})", file=path) from None
    except OSError as exc:
        raise VisguardError(f"cannot read: {exc.strerror}", file=path) from None
    if "\x00" in text:
        raise VisguardError("not a text file (contains NUL bytes)", file=path)
    return text
