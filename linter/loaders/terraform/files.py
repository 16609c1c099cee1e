"""The one place this package reads a file: regular files only, size-bounded, UTF-8, confined to its folder.

Every read of a ``.tf``, ``.tf.json``, ``.tfvars`` or plan JSON file goes through :func:`_read_text`, so the
linter's safe reader can replace it in one place. A file found in a folder (a module's ``*.tf``, the root
module's ``terraform.tfvars`` and ``*.auto.tfvars(.json)``) is read only when it stays inside that folder once
symlinks are resolved (:func:`confined`); a file reached through a symlink is never quoted in a message
(:func:`linked`), and a message quotes at most a short, neutralised excerpt of the user's own file
(:func:`excerpt`).
"""

from __future__ import annotations

import os

from visguard.errors import VisguardError

from .. import safe_io

MAX_BYTES = 10 * 1024 * 1024  # a Terraform file or plan larger than this is not something to lint
EXCERPT_CHARS = 20  # the most of a file's text a message quotes
NAME_CHARS = 64  # the most of a name (an attribute, a key written in an expression) a message quotes


def _read_text(path: str) -> str:
    """The text of ``path`` through the linter's one safe reader (regular files only, bounded, UTF-8, no NUL)."""
    return safe_io.read_text(path, max_bytes=MAX_BYTES)


def confined(path: str, folder: str) -> bool:
    """Whether ``path`` (a file listed in ``folder``) stays inside ``folder`` once symlinks are resolved."""
    return safe_io.inside(path, folder)


def linked(path: str) -> bool:
    """Whether ``path`` is a symlink: its text is never quoted (it may be anyone's file)."""
    try:
        return os.path.islink(path)
    except (OSError, ValueError):
        return True


def outside_note(path: str, folder: str) -> str:
    """The one line saying a symlink out of ``folder`` was not read (its target is not named)."""
    return f"{path}: a symlink leading outside {folder}: not read"


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """At most ``limit`` characters of ``text``, quoted, every non-printable character escaped."""
    from visguard.neutralize import printable

    short = text if len(text) <= limit else text[: limit - 3] + "..."
    return "'" + printable(short) + "'"


def unquoted(exc: VisguardError, path: str, what: str) -> VisguardError:
    """``exc`` (a parse error of the file ``path``, reached through a symlink) without any of the file's text."""
    return VisguardError(
        f"cannot parse {what} (a file reached through a symlink: its text is not shown)",
        file=path,
        place=exc.place,
    )
