"""What every engine sub-command (simulate, recommend) shares at its edge: usage errors as one-line bad-input
errors (exit 1, not argparse's 2), bounded numeric options, internal errors as exit 3, and a quiet exit when
stdout is a pipe that closed (``visguard simulate ... --json | head``)."""

from __future__ import annotations

import argparse
import functools
import math
import os
import sys

from visguard.errors import EXIT_INTERNAL, VisguardError

EXIT_BROKEN_PIPE = 141  # the reader of stdout went away (128 + SIGPIPE); the same code as visguard.cli


class ArgumentParser(argparse.ArgumentParser):
    """argparse, but a usage error raises VisguardError (one line, exit 1) instead of exiting with 2."""

    def error(self, message: str):  # noqa: D401 - argparse's hook
        raise VisguardError(message.splitlines()[0] if message else "bad arguments")


def number(lo: float, hi: float, *, integer: bool = False, lo_open: bool = False):
    """An argparse ``type``: a finite number in [lo, hi] (``(lo, hi]`` with ``lo_open``), an int if asked."""

    def parse(text: str):
        if len(text) > 40:
            raise argparse.ArgumentTypeError(f"{text[:20]}... is not a number in range")
        try:
            v = int(text) if integer else float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not {'a whole number' if integer else 'a number'}"
            ) from None
        if not math.isfinite(v) or v > hi or v < lo or (lo_open and v == lo):
            low = f"above {lo:g}" if lo_open else f"{lo:g}"
            raise argparse.ArgumentTypeError(f"{text} is outside {low} to {hi:g}")
        return v

    parse.__name__ = "integer" if integer else "number"
    return parse


def guarded(main):
    """Wrap a sub-command's ``main``: VisguardError passes through to the dispatcher (exit 1); a closed stdout
    pipe ends quietly (exit 141, as every sub-command); any other exception is a bug: one line on stderr and exit 3."""

    @functools.wraps(main)
    def run(argv, prog):
        try:
            return main(argv, prog)
        except VisguardError:
            raise
        except BrokenPipeError:
            _silence_stdout()
            return EXIT_BROKEN_PIPE  # as the dispatcher reports it (docs/contracts.md): 128 + SIGPIPE
        except (KeyboardInterrupt, SystemExit):
            raise
        except RecursionError:
            print(f"{prog}: internal error: recursion too deep (please report it)", file=sys.stderr)
            return EXIT_INTERNAL
        except Exception as exc:  # noqa: BLE001 - the last line of defence: exit 3, never a traceback
            text = printable(" ".join(str(exc).split())[:300])
            print(f"{prog}: internal error: {type(exc).__name__}: {text} (please report it)", file=sys.stderr)
            return EXIT_INTERNAL

    return run


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def printable(text: str) -> str:
    """Control characters shown escaped (``\\x1b``): text from input never drives the terminal."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
