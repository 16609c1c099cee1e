"""``visguard-pre-commit {terraform|serverless} [visguard lint options] FILE...``: the pre-commit hooks' entry.

pre-commit passes the changed files that match a hook's ``files`` pattern as the last arguments (split into
several runs when the command line gets long; ``require_serial`` keeps them in one process at a time). Neither
kind of input is linted file by file:

- Terraform evaluates a *root module*: the folder where ``terraform plan`` runs, with every ``.tf`` file in
  it and the local modules it calls (``source = "./modules/queue"``). A changed ``.tf``/``.tfvars`` file
  therefore selects its folder, and a folder that another folder of the repository calls as a local module
  selects its callers instead (transitively), because a child module alone has inputs without values; a
  folder whose callers all have callers (a module cycle) selects itself, so the cycle is reported. Folders
  under ``.terraform/`` (downloaded modules) are ignored; the search goes 64 levels deep at most.
- A Serverless Framework service is its ``serverless.yml`` plus the files it includes with ``${file(...)}``:
  a changed YAML/JSON file selects the nearest ``serverless.yml``/``.yaml``/``.json`` in its folder or a
  parent folder (up to the repository root, where pre-commit runs); files outside any service are ignored.

A file outside the repository (the folder it runs in, symlinks resolved: ``../other/serverless.yml``, a link out of
it) is never read: one line says so and the exit code is 1 (bad input), the other files are linted.

The selected roots/services are then linted with ``visguard lint`` and its exit code returned (0 clean,
1 bad input, 2 findings at or above ``--fail-on``, 4 both). Arguments that start with ``-`` (and the value after an
option that takes one) are passed to ``visguard lint`` unchanged, e.g. ``args: [--fail-on, error]``.
"""

from __future__ import annotations

import os
import re
import sys
from collections import deque

from visguard.errors import EXIT_BAD_INPUT, EXIT_BAD_INPUT_AND_FINDINGS, EXIT_FINDINGS, EXIT_OK, VisguardError
from visguard.neutralize import printable

TF_SUFFIXES = (".tf", ".tf.json", ".tfvars", ".tfvars.json")
SERVICE_FILES = ("serverless.yml", "serverless.yaml", "serverless.json")
SKIP_DIRS = {".terraform", "node_modules", ".venv", "venv", "cdk.out", ".git", ".serverless"}
# `visguard lint` options that take a value (the value is not a file name)
_VALUE_OPTIONS = {"-f", "--format", "-o", "--output", "-c", "--config", "-p", "--parameter", "--fail-on",
                  "--color", "--var", "--var-file", "--exclude"}  # fmt: skip
_LOCAL_SOURCE = re.compile(r'(?<![\w.-])"?source"?\s*[=:]\s*"(\.{1,2}/[^"]*)"')  # HCL and JSON


def split_args(argv: list[str]) -> tuple[list[str], list[str]]:
    """(options for visguard lint, file names)."""
    opts, files = [], []
    it = iter(argv)
    for a in it:
        if a.startswith("-"):
            opts.append(a)
            if a in _VALUE_OPTIONS:
                opts.append(next(it, ""))
        else:
            files.append(a)
    return opts, files


def _skipped(path: str) -> bool:
    return any(part in SKIP_DIRS for part in os.path.normpath(path).split(os.sep))


def _norm(path: str) -> str:
    return os.path.normpath(path) or "."


def module_calls(repo: str = ".") -> dict[str, set[str]]:
    """Folder -> folders that call it as a local module (``source = "./..."`` or ``"../..."``)."""
    from visguard.linter.loaders import safe_io
    from visguard.linter.loaders.serverless import _read_text

    callers: dict[str, set[str]] = {}
    # iterative, at most 64 levels, symlinks out of the repository not followed: a 1,100-level tree made
    # os.walk (recursive before Python 3.12) end in a RecursionError traceback
    unread: list[VisguardError] = []  # folders too deep or unreadable: the loader reports the roots it reads
    walk = safe_io.walk(
        repo, errors=unread, skip_dir=lambda path, name: name in SKIP_DIRS or name.startswith(".")
    )
    for folder, files in walk:
        for path in files:
            if not path.endswith((".tf", ".tf.json")):
                continue
            try:
                text = _read_text(path)
            except VisguardError:
                continue  # the Terraform loader reports unreadable files of the roots it reads
            for m in _LOCAL_SOURCE.finditer(text):
                target = _norm(os.path.join(folder, m.group(1)))
                callers.setdefault(target, set()).add(_norm(folder))
    return callers


def terraform_roots(files: list[str], repo: str = ".") -> list[str]:
    """The root modules that changed ``files`` belong to."""
    dirs = {_norm(os.path.dirname(f)) for f in files if f.endswith(TF_SUFFIXES) and not _skipped(f)}
    if not dirs:
        return []
    callers = module_calls(repo)
    roots: set[str] = set()
    for d in dirs:
        seen = {d}
        todo = deque([d])
        found = False
        while todo:
            cur = todo.popleft()
            ups = callers.get(cur, set()) - seen
            if not callers.get(cur):
                roots.add(cur)
                found = True
            seen |= ups
            todo.extend(sorted(ups))
        if not found:  # every caller is itself called: a module cycle; lint the folder, the loader reports it
            roots.add(d)
    return sorted(roots)


def serverless_services(files: list[str], repo: str = ".") -> list[str]:
    """The serverless.yml files of the services that changed ``files`` belong to."""
    top = os.path.realpath(repo)
    out: set[str] = set()
    for f in files:
        if _skipped(f):
            continue
        d = os.path.dirname(os.path.abspath(f))
        while True:
            found = next(
                (os.path.join(d, n) for n in SERVICE_FILES if os.path.isfile(os.path.join(d, n))), None
            )
            if found:
                out.add(os.path.relpath(found, os.path.abspath(repo)))
                break
            parent = os.path.dirname(d)
            if os.path.realpath(d) == top or parent == d:
                break
            d = parent
    return sorted(out)


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("terraform", "serverless"):
        print(
            "usage: visguard-pre-commit {terraform|serverless} [visguard lint options] FILE...",
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT
    opts, files = split_args(argv[1:])
    files, outside = in_repository(files)
    for f in outside:  # pre-commit passes files of the repository only: another caller asked for more
        print(f"visguard-pre-commit: {printable(f)}: outside the repository ({os.getcwd()}); not read",
              file=sys.stderr)  # fmt: skip
    targets = terraform_roots(files) if argv[0] == "terraform" else serverless_services(files)
    code = EXIT_OK
    if targets:
        from visguard.cli import main as visguard

        code = visguard(["lint", *opts, *targets])
    # bad input and findings are each said, or both (4), as in `visguard lint`; an internal error outranks them
    if outside and code == EXIT_OK:
        return EXIT_BAD_INPUT
    return EXIT_BAD_INPUT_AND_FINDINGS if outside and code == EXIT_FINDINGS else code


def in_repository(files: list[str], repo: str = ".") -> tuple[list[str], list[str]]:
    """(files inside ``repo`` once symlinks are resolved, the others). A root or service is searched from a file
    upwards only as far as the repository, so a file outside it must not start a search."""
    from visguard.linter.loaders.safe_io import inside

    ok, out = [], []
    for f in files:
        (ok if inside(f, repo) else out).append(f)
    return ok, out


def entry() -> None:  # pragma: no cover - console script wrapper
    from visguard import startup  # noqa: F401 - the console scripts' own start-up (PyYAML's regex seed)
    from visguard.cli import end_now, run

    # through the program's edge (errors, exit codes, broken pipe, Ctrl-C); it runs `visguard lint` only: no
    # teardown (visguard.cli.FAST_EXIT)
    end_now(run("visguard-pre-commit", lambda: main(sys.argv[1:])))
