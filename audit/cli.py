"""``visguard audit collect|generate|run``: the fleet audit's sub-commands (each module owns its parser)."""

from __future__ import annotations

import argparse
import importlib
import sys

from visguard.errors import EXIT_BAD_INPUT


class ArgumentParser(argparse.ArgumentParser):
    """argparse that reports usage errors on one line with exit code 1 (bad input or usage), not argparse's 2
    (which means "findings at or above --fail-on" in visguard)."""

    def error(self, message: str):
        from visguard.audit.textsafe import printable

        self.exit(EXIT_BAD_INPUT, f"{self.prog}: {printable(message)}\n")


SUBCOMMANDS = {
    "collect": (
        "visguard.audit.collector",
        "read queues, mappings and functions from AWS accounts into an inventory",
    ),
    "generate": ("visguard.audit.generate", "write a synthetic fleet inventory"),
    "run": (
        "visguard.audit.job",
        "audit an inventory on Spark: findings (Parquet), summary.json, report.html",
    ),
    "cache": ("visguard.audit.cache_cli", "show (or --clear) the files the audit keeps between runs"),
}


def main(argv: list[str], prog: str) -> int:
    if not argv or argv[0] in ("-h", "--help") or argv[0] not in SUBCOMMANDS:
        lines = [f"usage: {prog} {{{','.join(SUBCOMMANDS)}}} [options]", ""]
        lines += [f"  {name:<9} {text}" for name, (_, text) in SUBCOMMANDS.items()]
        out = sys.stdout if argv and argv[0] in ("-h", "--help") else sys.stderr
        if argv and argv[0] not in ("-h", "--help"):
            print(f"{prog}: unknown sub-command {argv[0]!r}", file=out)
        print("\n".join(lines), file=out)
        return 0 if out is sys.stdout else 1
    name = argv[0]
    module = importlib.import_module(SUBCOMMANDS[name][0])
    return int(module.main(argv[1:], f"{prog} {name}") or 0)
