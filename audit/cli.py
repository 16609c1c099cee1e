"""``visguard audit collect|generate|run``: the fleet audit's sub-commands (each module owns its parser)."""

from __future__ import annotations

import argparse
import importlib
import os
import shutil
import sys

from visguard.errors import EXIT_BAD_INPUT, VisguardError, need


class ArgumentParser(argparse.ArgumentParser):
    """argparse that reports usage errors on one line with exit code 1 (bad input or usage), not argparse's 2
    (which means "findings at or above --fail-on" in visguard)."""

    def error(self, message: str):
        from visguard.neutralize import printable

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
    if not {"-h", "--help"} & set(argv[1:]):
        _check_requirements(name, argv[1:])
    module = importlib.import_module(SUBCOMMANDS[name][0])
    return int(module.main(argv[1:], f"{prog} {name}") or 0)


JAVA_HINT = "install Java 17 or newer (e.g. apt-get install openjdk-17-jre-headless) or set JAVA_HOME"


def _check_requirements(name: str, argv: list[str]) -> None:
    """What a sub-command needs beyond the base install, checked before it starts: one line naming what is
    missing and how to install it (exit 1), never an import traceback or Java's own error pages."""
    if name == "collect":
        need("boto3", extra="audit", what="collect (the AWS collector)")
    elif name == "generate":
        need("numpy", extra="audit", what="generate (the synthetic fleet)")
    elif name == "run":
        what = "run (the Spark job)"
        for module in ("pyspark", "pyarrow", "numpy"):
            need(module, extra="audit", what=what)
        remote = any(a == "--remote" or a.startswith("--remote=") for a in argv)
        if not remote and java() is None:  # a Spark Connect client (--remote sc://...) starts no JVM
            raise VisguardError(f"{what} runs Spark, which needs Java, and none was found: {JAVA_HINT}")


def java() -> str | None:
    """The java Spark's launcher would run: $JAVA_HOME/bin/java when JAVA_HOME is set, else java on PATH."""
    home = os.environ.get("JAVA_HOME")
    if home:
        path = os.path.join(home, "bin", "java")
        return path if os.access(path, os.X_OK) else None
    return shutil.which("java")
