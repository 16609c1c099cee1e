"""The ``visguard`` console script.

Each sub-command lives with its part (``visguard.engine.cli``, ``visguard.linter.cli``, ...) and owns its own
argument parser; this dispatcher imports only the one that runs, so ``visguard lint`` never imports aws_cdk
or pyspark.
"""

from __future__ import annotations

import importlib
import sys

from visguard import __version__
from visguard.errors import EXIT_BAD_INPUT, EXIT_OK, VisguardError

# name -> (module, one-line help). The module exposes ``main(argv: list[str], prog: str) -> int``.
COMMANDS: dict[str, tuple[str, str]] = {
    "engine-demo": (
        "visguard.engine.demo",
        "show a message's life on the virtual clock (receive, heartbeat, expiry, DLQ)",
    ),
    "simulate": (
        "visguard.engine.cli_simulate",
        "simulate a consumer fleet against a queue (scenario YAML/JSON)",
    ),
    "recommend": (
        "visguard.engine.cli_recommend",
        "recommend visibility timeout, heartbeat and maxReceiveCount",
    ),
    "lint": (
        "visguard.linter.cli",
        "lint CloudFormation/SAM templates, cdk.out assemblies and visguard.yaml",
    ),
    "rules": ("visguard.linter.cli_rules", "list the rule catalogue"),
    "explain": ("visguard.linter.cli_explain", "explain one rule (visguard explain VG011)"),
    "audit": ("visguard.audit.cli", "collect, generate and audit fleet-wide queue inventories"),
}


def _usage() -> str:
    width = max(len(n) for n in COMMANDS)
    lines = [
        "usage: visguard [--version] <command> [args...]",
        "",
        "Keep Amazon SQS visibility timeouts, redrive policies and dead-letter queues right.",
        "",
        "commands:",
    ]
    lines += [f"  {name.ljust(width)}  {text}" for name, (_, text) in COMMANDS.items()]
    lines += ["", "Run 'visguard <command> --help' for a command's options."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(_usage())
        return EXIT_OK if argv else EXIT_BAD_INPUT
    if argv[0] in ("-V", "--version"):
        print(f"visguard {__version__}")
        return EXIT_OK
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        print(f"visguard: unknown command {name!r}\n\n{_usage()}", file=sys.stderr)
        return EXIT_BAD_INPUT
    module = importlib.import_module(COMMANDS[name][0])
    try:
        return int(module.main(rest, f"visguard {name}") or 0)
    except VisguardError as exc:
        print(f"visguard {name}: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130


def entry() -> None:  # pragma: no cover - console script wrapper
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    entry()
