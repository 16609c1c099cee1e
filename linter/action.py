"""The GitHub Action's lint step (``action.yml`` at the repository root runs ``python -m visguard.linter.action``).

One ``visguard lint`` run, its result rendered four ways: the report the ``format`` input asks for in the log,
SARIF to the ``sarif`` input's file (for ``github/codeql-action/upload-sarif``), workflow-command annotations on
stdout (``--format github``: capped at what GitHub shows of one step, the rest counted in one notice) and the
Markdown job summary appended to ``$GITHUB_STEP_SUMMARY`` (``--format markdown``). The counts and the SARIF path
go to ``$GITHUB_OUTPUT``; the exit code is ``visguard lint``'s (0 clean, 2 findings at or above ``fail-on``,
1 bad input, 4 both, 3 internal error), so the step fails the job as the command would.

The inputs arrive as ``INPUT_*`` environment variables (action.yml maps them: a value is never pasted into a
shell script). ``changed-only: true`` on a pull request lints only what the pull request changed (the files
``git diff`` names between the event's base commit and the checked-out ``HEAD``), expanded as the pre-commit
hooks expand them (``linter/precommit.py``): a changed ``.tf``/``.tfvars`` file is its root module (the callers of
a local module), a file of a Serverless service is its ``serverless.yml``; another changed file is linted when a
folder search would read it; a changed visguard.yaml lints everything. On other events it lints every path.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys

from visguard.errors import EXIT_BAD_INPUT, EXIT_OK

PR_EVENTS = ("pull_request", "pull_request_target")
# what a run of the Action may not pass in ``args``: the Action writes these itself, or they rewrite the checkout
_REFUSED = {"-f", "--format", "-o", "--output", "--fix", "--diff"}
_TRUE = ("true", "yes", "1", "on")
_SERVICE_FILES = (".yml", ".yaml", ".json")
# GitHub refuses a step summary over 1024 KiB whole ("$GITHUB_STEP_SUMMARY upload aborted, supports content up to a
# size of 1024k": https://docs.github.com/actions/using-workflows/workflow-commands-for-github-actions#adding-a-markdown-summary,
# checked 2026-12-02): the table is cut to fit, with a line saying how many rows are left out
SUMMARY_LIMIT = 1024 * 1024  # what a Serverless service includes with ${file(...)}
# the step's outputs, which action.yml's outputs name
OUTPUTS = ("findings", "errors", "warnings", "infos", "bad-inputs", "exit-code", "sarif", "scope")


class ActionError(Exception):
    """A problem with the Action's inputs or its event: one ``::error`` line, exit 1."""


def _flag(env: dict, name: str, default: bool) -> bool:
    value = env.get(f"INPUT_{name}", "").strip().lower()
    return default if not value else value in _TRUE


def _items(text: str) -> list[str]:
    """A list input: one item a line, or several separated by spaces (``paths: infra services/api``)."""
    return [item for line in text.splitlines() for item in shlex.split(line, comments=True)]


def lint_argv(env: dict, paths: list[str]) -> list[str]:
    """The ``visguard lint`` arguments the inputs ask for (without ``--format``/``--output``)."""
    argv: list[str] = []
    config = env.get("INPUT_CONFIG", "").strip()
    if config:
        argv += ["--config", config]
    argv += ["--fail-on", env.get("INPUT_FAIL_ON", "").strip() or "warning"]
    for source in _items(env.get("INPUT_QUEUES_FROM", "")):
        argv += ["--queues-from", source]
    extra = shlex.split(env.get("INPUT_ARGS", ""))
    refused = sorted({a.partition("=")[0] for a in extra} & _REFUSED)
    if refused:
        raise ActionError(
            f"args: {', '.join(refused)} is the Action's to set (use the format and sarif inputs; the Action "
            "never rewrites the checkout)"
        )
    return [*argv, *extra, *paths]


# -------------------------------------------------------------------------------------------- changed-only
def _git(workspace: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=workspace, capture_output=True, text=True)


def pull_request_base(env: dict) -> str | None:
    """The base commit of the pull request the event is about; None for another event."""
    if env.get("GITHUB_EVENT_NAME") not in PR_EVENTS:
        return None
    try:
        with open(env.get("GITHUB_EVENT_PATH", ""), encoding="utf-8") as fh:
            event = json.load(fh)
        base = event["pull_request"]["base"]["sha"]
    except (OSError, ValueError, KeyError, TypeError):
        raise ActionError("changed-only: the pull request event has no pull_request.base.sha") from None
    if not isinstance(base, str) or not base.strip():
        raise ActionError("changed-only: the pull request event has no pull_request.base.sha")
    return base.strip()


def changed_files(workspace: str, base: str) -> list[str]:
    """The files ``HEAD`` adds, changes or renames since ``base`` (deleted ones are gone), relative to the
    workspace. A shallow checkout (actions/checkout's default) may lack the base commit: it is fetched, one
    commit deep."""
    if _git(workspace, "cat-file", "-e", f"{base}^{{commit}}").returncode != 0:
        _git(workspace, "fetch", "--no-tags", "--depth=1", "origin", base)
    diff = _git(workspace, "diff", "--name-only", "-z", "--no-renames", "--diff-filter=d", base, "HEAD")
    if diff.returncode != 0:
        raise ActionError(
            f"changed-only: git cannot compare the pull request's base {base[:12]} with HEAD "
            f"({diff.stderr.strip().splitlines()[-1] if diff.stderr.strip() else 'no output'}); check out with "
            "fetch-depth: 0, or set changed-only: false"
        )
    top = _git(workspace, "rev-parse", "--show-toplevel").stdout.strip() or workspace
    out = []
    for name in diff.stdout.split("\0"):
        if name:
            out.append(os.path.relpath(os.path.join(top, name), workspace))
    return out


def _under(path: str, roots: list[str]) -> bool:
    path = os.path.normpath(path)
    for root in roots:
        root = os.path.normpath(root)
        if root in (".", "") or path == root or path.startswith(root.rstrip(os.sep) + os.sep):
            return True
    return False


def changed_targets(files: list[str], paths: list[str], config: str = "") -> list[str]:
    """What to lint for the changed ``files`` under ``paths``: the pre-commit hooks' root modules and services,
    and each other file a folder search would read. A changed configuration (the ``config`` input, the
    workspace's visguard.yaml, one under ``paths``): ``paths`` themselves."""
    from visguard.linter import precommit
    from visguard.linter.loaders import registry

    def configures(f: str) -> bool:
        f = os.path.normpath(f)
        if config and f == os.path.normpath(os.path.relpath(os.path.abspath(config))):
            return True
        named = os.path.basename(f) in registry.CONFIG_NAMES
        return named and (os.path.dirname(f) == "" or _under(f, paths))

    if any(configures(f) for f in files):
        return list(paths)
    files = [f for f in files if _under(f, paths) and os.path.isfile(f)]
    files, _outside = precommit.in_repository(files)
    services = precommit.serverless_services(files)
    targets = [*precommit.terraform_roots(files), *services]
    for f in files:
        if f.endswith(precommit.TF_SUFFIXES) or precommit._skipped(f):
            continue
        if services and f.endswith(_SERVICE_FILES) and precommit.serverless_services([f]):
            continue  # a file of a Serverless service (its ${file(...)} includes): the service is linted
        try:
            spec = registry.claim(f, explicit=False)
        except Exception:  # an unreadable file: visguard lint names it
            spec = None
        if spec is not None and spec.name not in ("terraform", "serverless"):
            targets.append(f)
    seen: set[str] = set()
    return [t for t in targets if not (os.path.normpath(t) in seen or seen.add(os.path.normpath(t)))]


# ------------------------------------------------------------------------------------------------ the step
def fit_summary(markdown: str, limit: int = SUMMARY_LIMIT) -> str:
    """``markdown`` whole when it fits in ``limit`` bytes; else its first lines and one line naming how many
    findings' rows were left out (every finding is still in the SARIF report and the log)."""
    if len(markdown.encode()) <= limit:
        return markdown
    lines = markdown.splitlines(keepends=True)
    budget = limit - 400  # the closing line
    kept, used = [], 0
    for line in lines:
        size = len(line.encode())
        if used + size > budget:
            break
        kept.append(line)
        used += size
    left = sum(1 for line in lines[len(kept) :] if line.startswith("| "))
    kept.append(
        f"\n{left} more row(s) not shown: GitHub keeps at most 1 MiB of a step's summary; every finding is in "
        "the SARIF report and the log.\n"
    )
    return "".join(kept)


def _append(path: str | None, text: str) -> None:
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(text)


def _outputs(env: dict, values: dict[str, object]) -> None:
    """Every output, always (a count not known is empty)."""
    values = {**dict.fromkeys(OUTPUTS, ""), **values}
    _append(env.get("GITHUB_OUTPUT"), "".join(f"{k}={v}\n" for k, v in values.items()))


def run(env: dict, out=sys.stdout) -> int:
    from visguard.linter import cli
    from visguard.linter.api import severity_counts
    from visguard.linter.report import FORMATS, render

    workspace = env.get("GITHUB_WORKSPACE") or os.getcwd()
    os.chdir(workspace)
    paths = _items(env.get("INPUT_PATHS", "")) or ["."]
    sarif = env.get("INPUT_SARIF", "").strip() or "visguard.sarif"
    fmt = env.get("INPUT_FORMAT", "").strip() or "text"
    argv = lint_argv(env, paths)  # the inputs checked before anything is read
    if fmt not in FORMATS:
        raise ActionError(f"format: {fmt!r} is not one of {', '.join(FORMATS)}")
    scope = "all"
    if _flag(env, "CHANGED_ONLY", False):
        base = pull_request_base(env)
        if base is not None:
            scope = "changed"
            targets = changed_targets(
                changed_files(workspace, base), paths, env.get("INPUT_CONFIG", "").strip()
            )
            argv = [*argv[: len(argv) - len(paths)], *targets]
            if not targets:
                print(
                    f"visguard: the pull request changes nothing visguard reads under {' '.join(paths)}",
                    file=out,
                )
                _append(
                    env.get("GITHUB_STEP_SUMMARY"),
                    "## visguard\n\nThe pull request changes nothing visguard reads.\n",
                )
                _outputs(env, {"findings": 0, "errors": 0, "warnings": 0, "infos": 0, "bad-inputs": 0,
                               "exit-code": 0, "sarif": "", "scope": scope})  # fmt: skip
                return EXIT_OK

    seen = []
    out.flush()
    code = cli.main([*argv, "--format", fmt], observe=seen.append)
    sys.stdout.flush()
    if not seen:  # usage or a config that could not be read: visguard lint said why on one line
        _outputs(env, {"exit-code": code, "sarif": "", "scope": scope})
        return code
    (result,) = seen
    if os.path.dirname(sarif):
        os.makedirs(os.path.dirname(sarif), exist_ok=True)
    with open(sarif, "w", encoding="utf-8") as fh:
        fh.write(render(result, "sarif"))
    if _flag(env, "ANNOTATIONS", True) and fmt != "github":  # format: github printed them already
        out.write(render(result, "github"))
        out.flush()
    if _flag(env, "SUMMARY", True):
        _append(env.get("GITHUB_STEP_SUMMARY"), fit_summary(render(result, "markdown")))
    counts = severity_counts(result.findings)
    _outputs(
        env,
        {
            "findings": len(result.findings),
            "errors": counts["error"],
            "warnings": counts["warning"],
            "infos": counts["info"],
            "bad-inputs": len(result.errors),
            "exit-code": code,
            "sarif": os.path.abspath(sarif),
            "scope": scope,
        },
    )
    return code


def main(env: dict | None = None) -> int:
    env = dict(os.environ if env is None else env)
    try:
        return run(env)
    except ActionError as exc:
        from visguard.linter.report.ci import _data

        print(f"::error title=visguard action::{_data(str(exc))}")
        _outputs(env, {"exit-code": EXIT_BAD_INPUT})
        return EXIT_BAD_INPUT


def entry() -> None:  # pragma: no cover - `python -m visguard.linter.action`, the Action's lint step
    from visguard import startup  # noqa: F401 - the console scripts' own start-up
    from visguard.cli import end_now
    from visguard.cli import run as edge

    end_now(edge("visguard action", main))


if __name__ == "__main__":  # pragma: no cover
    entry()
