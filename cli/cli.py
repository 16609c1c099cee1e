"""The ``visguard`` console script.

Each sub-command lives with its part (``visguard.engine.cli``, ``visguard.linter.cli``, ...) and owns its own
argument parser; this dispatcher imports only the one that runs, so ``visguard lint`` never imports aws_cdk
or pyspark.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys

from visguard import __version__
from visguard.errors import EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_OK, VisguardError
from visguard.neutralize import printable

EXIT_INTERRUPTED = 130  # Ctrl-C (128 + SIGINT), as shells report it
EXIT_BROKEN_PIPE = 141  # the reader of stdout went away (128 + SIGPIPE), as `yes | head` reports it

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
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(_usage())
        return EXIT_OK if argv else EXIT_BAD_INPUT
    if argv[0] in ("-V", "--version"):
        print(f"visguard {__version__}")
        return EXIT_OK
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        print(f"visguard: unknown command {printable(name)!r}\n\n{_usage()}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        module = importlib.import_module(COMMANDS[name][0])
        code = int(module.main(rest, f"visguard {name}") or 0)
        sys.stdout.flush()
        return code
    except VisguardError as exc:
        _error(f"visguard {name}: {exc}")
        return exc.exit_code
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        quiet_stdout()
        return EXIT_BROKEN_PIPE
    except RecursionError:  # a document deeper than a door's own limit: still bad input, not a crash
        _error(f"visguard {name}: input nested too deeply")
        return EXIT_BAD_INPUT
    except Exception as exc:  # a bug: one line, exit 3, and the traceback only when asked for
        if os.environ.get("VISGUARD_DEBUG"):
            import traceback

            traceback.print_exc()
        text = " ".join(str(exc).split())[:300]
        _error(
            f"visguard {name}: internal error ({type(exc).__name__}{': ' + text if text else ''}); "
            "please report it (VISGUARD_DEBUG=1 shows the traceback)"
        )
        return EXIT_INTERNAL


def _error(line: str) -> None:
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
