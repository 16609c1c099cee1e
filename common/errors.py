"""Exit codes and the error every door raises for bad input (DESIGN.md, "Clear errors, nothing lost").

The exit codes of every command of both console scripts (``visguard ...`` and ``visguard-pre-commit``), which
all end through one edge (:func:`visguard.cli.run`):

====  ===========================================================================================================
0     ok; also a lint that found nothing it reads in a folder (one line on stderr says what it looked for)
1     bad input or usage: one line on stderr, ``PROG: FILE:PLACE: what is wrong``; input nested deeper than Python's
      stack (a ``RecursionError``) is bad input too: ``nested too deeply``
2     findings at or above ``--fail-on`` (lint; a file ``--fix`` changed or ``--diff`` would change), targets
      not met (recommend)
3     internal error (a bug): one line ``internal error (Type: message); please report it (...)``, no traceback
      unless ``VISGUARD_DEBUG=1``; :class:`InternalError` reports one per input when the others can still run
4     both 1 and 2 (lint): some input was bad (one line each on stderr) and the inputs that could be read have
      findings at or above ``--fail-on``; a run that fails on one malformed file still says the rest is not clean
130   interrupted (Ctrl-C: 128 + SIGINT, as shells report it); nothing printed
141   stdout closed by its reader (128 + SIGPIPE, as ``yes | head`` reports it); nothing printed (``visguard
      lint`` has its verdict by then and returns its own code)
====  ===========================================================================================================
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_BAD_INPUT = 1
EXIT_FINDINGS = 2
EXIT_INTERNAL = 3
EXIT_BAD_INPUT_AND_FINDINGS = 4
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141


class VisguardError(Exception):
    """Bad input. ``str(err)`` is one line: ``FILE:PLACE: what is wrong``."""

    exit_code = EXIT_BAD_INPUT

    def __init__(self, message: str, *, file: str | None = None, place: str | None = None):
        self.file, self.place, self.detail = file, place, message
        prefix = ":".join(p for p in (file, place) if p)
        super().__init__(f"{prefix}: {message}" if prefix else message)


class InternalError(VisguardError):
    """A bug in visguard met while handling one input: reported on one line for that input (the other inputs
    still run) and exit code 3."""

    exit_code = EXIT_INTERNAL

    @classmethod
    def from_exception(cls, exc: BaseException, *, file: str | None = None) -> InternalError:
        """Called in the ``except`` block that caught ``exc``: prints its traceback when VISGUARD_DEBUG is set."""
        debug_traceback()
        return cls(internal_error_text(exc), file=file)


def internal_error_text(exc: BaseException) -> str:
    """The one wording of a bug's report (exit 3), on one line whatever the exception says."""
    text = " ".join(str(exc).split())[:300]
    what = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return f"internal error ({what}); please report it (VISGUARD_DEBUG=1 shows the traceback)"


def debug_traceback() -> None:
    """The traceback of the exception being handled on stderr, when VISGUARD_DEBUG is set (never otherwise)."""
    import os

    if os.environ.get("VISGUARD_DEBUG"):
        import traceback

        traceback.print_exc()


def too_deep(
    file: str | None = None, place: str | None = None, *, what: str = "document", limit: int | None = None
) -> VisguardError:
    """The one bad-input error for input nested deeper than Python's stack can follow (a ``RecursionError``):
    raised ``from None`` by the few readers that name the file (and place) so the other inputs still run; the
    edge (:func:`visguard.cli.run`) says the same without a file for the rest. ``limit``: the reader's own
    nesting limit, when it has one."""
    more = f" (more than {limit} levels)" if limit else ""
    return VisguardError(f"{what} nested too deeply{more}", file=file, place=place)


class MissingExtra(VisguardError, ModuleNotFoundError):
    """A door whose optional dependencies (a pip extra of visguard) are not installed: one line naming what is
    missing and the command that installs it, exit code 1. Also an ``ImportError``, so library code (``import
    visguard.linter.cfnlint_rules``, ``Engine.client()``) raises what Python programs expect of a missing module."""

    def __init__(self, what: str, package: str, extra: str):
        self.extra = extra
        VisguardError.__init__(
            self, f"{what} needs {package}, which is not installed: pip install 'visguard[{extra}]'"
        )
        self.name = package


def need(module: str, *, extra: str, what: str, package: str | None = None):
    """Import and return ``module``, or raise :class:`MissingExtra` naming ``package`` (default: the module's
    top-level name), ``extra`` (the pip extra that installs it) and ``what`` needs it."""
    import importlib

    top = module.partition(".")[0]
    try:
        importlib.import_module(top)  # first: a submodule already imported would hide a missing package
        return importlib.import_module(module)
    except ImportError as exc:
        if exc.name is not None and exc.name.partition(".")[0] != top:
            raise  # the module is there but one of *its* imports is broken: not a missing extra
        raise MissingExtra(what, package or top, extra) from None
