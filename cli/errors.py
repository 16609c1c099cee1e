"""Exit codes and the error every door raises for bad input (DESIGN.md, "Clear errors, nothing lost")."""

from __future__ import annotations

EXIT_OK = 0
EXIT_BAD_INPUT = 1  # bad input or usage: a one-line message naming the file, the place and what is wrong
EXIT_FINDINGS = 2  # findings at or above --fail-on (lint), targets not met (recommend)
EXIT_INTERNAL = 3  # a bug in visguard: please report it


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
        text = " ".join(str(exc).split())[:300]
        what = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
        return cls(f"internal error ({what}); please report it", file=file)


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
