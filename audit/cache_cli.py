"""``visguard audit cache``: where the audit keeps files between runs, how big they are, and ``--clear``.

The cache holds the Spark JVM's class archive (one per environment, about 190 MB, written by the first
``audit run`` and replaced, not added to, when Spark or Java changes), zips of visguard's code shipped to
cluster executors, and JVM crash reports. ``--clear`` removes only those files (visguard's own names), never
anything else in the folder.
"""

from __future__ import annotations

import argparse

from visguard.audit.session import cache_dir, cache_entries
from visguard.neutralize import printable


def _size(n: int) -> str:
    return f"{n / 1e6:,.1f} MB" if n >= 100_000 else f"{n:,} B"


def main(argv: list[str], prog: str) -> int:
    from visguard.audit.cli import ArgumentParser

    ap: argparse.ArgumentParser = ArgumentParser(
        prog=prog,
        description="Show the audit's cache folder (VISGUARD_CACHE_DIR, else $XDG_CACHE_HOME/visguard or "
        "~/.cache/visguard) and what visguard keeps there; --clear removes it.",
    )
    ap.add_argument(
        "--clear", action="store_true", help="remove every file visguard wrote in the cache folder"
    )
    args = ap.parse_args(argv)
    folder = cache_dir()
    entries = cache_entries(folder)
    sizes = {}
    for p in entries:
        try:
            sizes[p] = p.stat().st_size
        except OSError:
            sizes[p] = 0
    total = sum(sizes.values())
    if args.clear:
        removed = 0
        for p in entries:
            try:
                p.unlink()
                removed += 1
            except FileNotFoundError:
                pass
        print(f"{prog}: removed {removed} file(s), {_size(total)}, from {printable(folder)}")
        return 0
    print(f"cache folder: {printable(folder)}")
    for p in entries:
        print(f"  {_size(sizes[p]):>12}  {printable(p.name)}")
    print(f"  {_size(total):>12}  in {len(entries)} file(s) ('{prog} --clear' removes them)")
    return 0
