"""What the engine's sub-commands (simulate, recommend) share: usage errors as one-line bad-input errors (exit 1,
not argparse's 2) and bounded numeric options. Everything else that ends a command (errors, internal errors,
a closed stdout pipe, Ctrl-C) is the program's edge, ``visguard.cli.run``."""

from __future__ import annotations

import argparse
import math

from visguard.errors import VisguardError


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
