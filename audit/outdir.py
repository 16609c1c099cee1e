"""The audit's result folder: visguard never deletes what it did not write.

A result folder holds a marker file (``.visguard-audit.json``) that lists the entries the audit wrote there.
``visguard audit run --out X``:

- X missing or empty: the audit writes into it;
- X a previous result (it has the marker): refused unless ``--overwrite``; with it, only the entries the
  marker lists are removed before the new result is written (files the user added stay);
- X anything else that is not empty, or not a folder: refused, nothing touched.

The marker is written before the first output (status ``running``, listing the outputs the audit is about to
write) and rewritten at the end with what it did write (status ``complete``), so an interrupted audit's
folder is still recognised as visguard's and can be replaced with ``--overwrite``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from visguard.errors import VisguardError
from visguard.neutralize import printable

MARKER = ".visguard-audit.json"
# What every audit writes (other outputs are found by listing the folder at the end of the run).
OUTPUTS = ("findings", "queues", "quarantine", "summary.json", "report.html")


def prepare(
    folder: str | Path, overwrite: bool, place: str = "--out", *, check_only: bool = False
) -> set[str]:
    """Make ``folder`` ready for a new result; returns the names of the entries in it that are not visguard's
    (kept, and never listed in the marker). Raises VisguardError (exit 1) when it must not be written to.
    ``check_only``: raise the same errors, but create and remove nothing (the CLI checks before Spark starts)."""
    p = Path(folder)
    shown = printable(folder)
    if p.is_symlink() and not p.exists():
        raise VisguardError("is a dangling symbolic link", file=shown, place=place)
    if p.exists() and not p.is_dir():
        raise VisguardError("is not a folder (the audit writes a folder of results)", file=shown, place=place)
    if not p.exists():
        if check_only:
            return set()
        try:
            p.mkdir(parents=True)
        except OSError as exc:
            raise VisguardError(
                f"cannot create the folder: {exc.strerror}", file=shown, place=place
            ) from None
        return set()
    names = {e.name for e in p.iterdir()}
    if not names:
        return set()
    marker = p / MARKER
    if MARKER not in names:
        raise VisguardError(
            "is not empty and is not a visguard audit result: give a new or empty folder "
            "(visguard never deletes what it did not write)",
            file=shown,
            place=place,
        )
    ours = read_marker(marker, shown)
    if not overwrite:
        raise VisguardError(
            "holds a previous visguard audit result: give --overwrite to replace it, or a new folder",
            file=shown,
            place=place,
        )
    if check_only:
        return set()
    for name in ours:
        _remove(p / name)
    marker.unlink()
    foreign = {e.name for e in p.iterdir()}
    if foreign & set(OUTPUTS):
        raise VisguardError(
            f"{', '.join(sorted(foreign & set(OUTPUTS)))} in it are not listed in {MARKER}: "
            "visguard does not replace what it did not write",
            file=shown,
            place=place,
        )
    return foreign


def read_marker(marker: Path, shown: str) -> list[str]:
    """The entries a marker lists: plain names of direct children (anything else makes the marker invalid)."""
    try:
        doc = json.loads(marker.read_text(encoding="utf-8"))
        entries = doc["entries"]
        ok = isinstance(entries, list) and all(
            isinstance(e, str) and e not in ("", ".", "..", MARKER) and "/" not in e and "\\" not in e
            for e in entries
        )
    except (OSError, ValueError, KeyError, TypeError):
        ok = False
    if not ok:
        raise VisguardError(
            f"{MARKER} is damaged: remove the folder's old result by hand", file=shown, place="--out"
        )
    return entries


def _remove(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()  # a link is removed, never what it points at
    elif path.is_dir():
        shutil.rmtree(path)


def write_marker(folder: str | Path, foreign: set[str], complete: bool) -> None:
    """List what the audit wrote in ``folder``: every entry but the foreign ones (while running: the outputs it
    is about to write)."""
    p = Path(folder)
    if complete:
        entries = sorted(e.name for e in p.iterdir() if e.name not in foreign and e.name != MARKER)
    else:
        entries = sorted(set(OUTPUTS) - foreign)
    doc = {"tool": "visguard audit run", "status": "complete" if complete else "running", "entries": entries}
    tmp = p / f"{MARKER}.tmp"
    tmp.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    tmp.replace(p / MARKER)
