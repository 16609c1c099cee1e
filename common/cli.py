"""The ``visguard`` console script, and the program's edge (:func:`run`) that every command of it and of
``visguard-pre-commit`` ends through: errors, exit codes (the table in :mod:`visguard.errors`), a closed stdout
pipe, Ctrl-C and internal errors are handled here and nowhere else.

Each sub-command lives with its part (``visguard.engine.cli_simulate``, ``visguard.linter.cli``, ...) and owns its
own argument parser; this dispatcher imports only the one that runs, so ``visguard lint`` never imports aws_cdk
or pyspark.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys

from visguard import __version__
from visguard.errors import (
    EXIT_BAD_INPUT,
    EXIT_BROKEN_PIPE,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    VisguardError,
    debug_traceback,
    internal_error_text,
    too_deep,
)
from visguard.neutralize import printable

# name -> (module, one-line help). The module exposes ``main(argv: list[str], prog: str) -> int``.
COMMANDS: dict[str, tuple[str, str]] = {
    "engine-demo": (
        "visguard.engine.demo",
        "show a message's life on the virtual clock (receive, heartbeat, expiry, DLQ)",
    ),
    "simulate": (
        "visguard.engine.cli_simulate",
        "simulate a consumer fleet against a queue (scenario YAML/JSON, or --example NAME)",
    ),
    "recommend": (
        "visguard.engine.cli_recommend",
        "recommend visibility timeout, heartbeat and maxReceiveCount",
    ),
    "lint": (
        "visguard.linter.cli",
        "lint CloudFormation/SAM, cdk.out, Terraform/OpenTofu, Serverless Framework and visguard.yaml",
    ),
    "rules": ("visguard.linter.cli_rules", "list the rule catalogue"),
    "explain": ("visguard.linter.cli_explain", "explain one rule (visguard explain VG011)"),
    "audit": ("visguard.audit.cli", "collect, generate and audit fleet-wide queue inventories"),
    "lsp": ("visguard.linter.lsp", "the language server for editors (diagnostics, quick fixes, hover)"),
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
    for stream in (sys.stdout, sys.stderr):  # a name the terminal's encoding lacks is escaped, not a crash
        with contextlib.suppress(AttributeError, ValueError):
            stream.reconfigure(errors="backslashreplace")
    name = argv[0] if argv and argv[0] in COMMANDS else None
    return run(f"visguard {name}" if name else "visguard", lambda: _dispatch(argv))


def _dispatch(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(_usage())
        return EXIT_OK if argv else EXIT_BAD_INPUT
    if argv[0] in ("-V", "--version"):
        print(f"visguard {__version__}")
        return EXIT_OK
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        print(f"visguard: unknown command '{printable(name)}'\n\n{_usage()}", file=sys.stderr)
        return EXIT_BAD_INPUT
    module = importlib.import_module(COMMANDS[name][0])
    return module.main(rest, f"visguard {name}")


def run(prog: str, command) -> int:
    """The program's edge: run ``command()`` (a command's whole work) and turn what ends it into an exit code
    (the table in :mod:`visguard.errors`), every command of both console scripts alike:

    - its return value (None is 0), after stdout is flushed;
    - :class:`~visguard.errors.VisguardError`: one line ``PROG: message`` on stderr, the error's exit code;
    - ``RecursionError``: input nested deeper than a reader's own limit: bad input, one line, exit 1;
    - ``KeyboardInterrupt``: 130; a closed stdout pipe (``... | head``): 141; both quiet;
    - ``SystemExit`` (argparse's ``--help`` or usage error): its code;
    - any other exception is a bug: one line, exit 3 (the traceback only with VISGUARD_DEBUG=1).
    """
    try:
        code = int(command() or 0)
        sys.stdout.flush()
        return code
    except VisguardError as exc:
        error(f"{prog}: {exc}")
        return exc.exit_code
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        quiet_stdout()
        return EXIT_BROKEN_PIPE
    except RecursionError:
        error(f"{prog}: {too_deep(what='input')}")
        return EXIT_BAD_INPUT
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            return exc.code or 0
        error(f"{prog}: {exc.code}")
        return EXIT_BAD_INPUT
    except Exception as exc:
        debug_traceback()
        error(f"{prog}: {internal_error_text(exc)}")
        return EXIT_INTERNAL


def error(line: str) -> None:
    """One line on stderr, control characters from input shown escaped (docs/security.md)."""
    with contextlib.suppress(OSError, ValueError):
        print(printable(line), file=sys.stderr)


def quiet_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's last flush cannot fail again on the closed pipe."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


# Commands that leave nothing for the interpreter's teardown to do: no thread, no atexit handler, every file they
# write closed by a ``with`` block. For them the console script flushes its output and ends the process without
# freeing every module and object one by one, about 7 % of a small lint's CPU (pre-commit runs one on every
# commit, issue 12). Never for ``audit`` (PySpark stops its JVM from an atexit handler) nor inside ``main``, which
# tests and other programs call.
FAST_EXIT = frozenset({"lint", "rules", "explain"})


def end_now(code: int) -> None:
    """End a FAST_EXIT command's process with ``code``: flush stdout and stderr, then skip the teardown."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # the reader went away: the normal exit handles the closed pipe
        sys.exit(code)
    os._exit(code)


def entry() -> None:  # pragma: no cover - console script wrapper (tests/linter/test_cli_imports.py runs it)
    from visguard import startup  # noqa: F401 - the console script's own start-up (PyYAML's regex seed)

    code = main()
    if len(sys.argv) > 1 and sys.argv[1] in FAST_EXIT:
        end_now(code)
    sys.exit(code)


if __name__ == "__main__":  # pragma: no cover
    entry()
