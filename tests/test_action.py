"""The GitHub Action (issue 37 §1), run as GitHub runs it: action.yml read, its steps run in order (``run:`` steps
through bash with the ``${{ inputs.* }}``, ``${{ github.* }}``, ``${{ steps.*.outputs.* }}`` and ``${{ runner.* }}``
expressions substituted, the ``GITHUB_*`` variables and files a runner provides: ``GITHUB_OUTPUT`` per step,
``GITHUB_STEP_SUMMARY``, ``GITHUB_WORKSPACE``, ``GITHUB_EVENT_PATH`` of a pull_request event), in a scratch git
repository holding a CloudFormation template and a Terraform root module with a local module.

The install step finds the project's virtualenv first on PATH (as a self-hosted runner with visguard installed
would) and installs nothing, so no test reaches a package index; the install into a fresh virtualenv from the
checkout is the slow test at the end. A ``uses:`` step (actions/cache) is GitHub's own: its inputs are checked,
and it is not run. action.yml is validated against SchemaStore's published schema of action metadata
(github-action.json, as check-jsonschema ships it: the dev extra).
"""

from __future__ import annotations

import importlib.resources
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
GIT = shutil.which("git") or "git"
BASH = shutil.which("bash") or "bash"
_EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        [GIT, "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def _evaluate(expr: str, ctx: dict) -> str:
    """The expressions action.yml uses: a context's property (``inputs.fail-on``, ``steps.plan.outputs.venv``),
    or one ``==`` comparison with a string (``inputs.cache == 'true'``). Anything else fails the test."""
    left, eq, right = expr.partition("==")
    if eq:
        literal = right.strip()
        assert literal[0] == literal[-1] == "'", expr
        return "true" if _evaluate(left.strip(), ctx) == literal[1:-1] else "false"
    assert re.fullmatch(r"[a-z_]+(\.[\w-]+)+", expr), f"unsupported expression {expr!r}"
    value = ctx
    for part in expr.split("."):
        if expr.startswith("steps.") and not (isinstance(value, dict) and part in value):
            return ""  # an output a step did not write (or a step not run) is null: '' in a string
        assert isinstance(value, dict) and part in value, f"{expr!r}: no {part!r}"
        value = value[part]
    return "" if value is None else str(value)


def _substitute(text: str, ctx: dict) -> str:
    return _EXPR.sub(lambda m: _evaluate(m.group(1), ctx), str(text))


def _read_outputs(path: Path) -> dict[str, str]:
    """$GITHUB_OUTPUT: ``name=value`` lines and ``name<<DELIMITER`` blocks."""
    out, lines = {}, path.read_text().splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delim = line.split("<<", 1)
            end = lines.index(delim, i + 1)
            out[name] = "\n".join(lines[i + 1 : end])
            i = end + 1
            continue
        name, _, value = line.partition("=")
        out[name] = value
        i += 1
    return out


class Run:
    def __init__(self):
        self.steps: list[dict] = []  # {"id", "code", "stdout", "stderr"} of every step run
        self.skipped: list[dict] = []  # uses: steps (GitHub's own actions)
        self.outputs: dict[str, str] = {}
        self.summary = ""
        self.failed = False

    @property
    def stdout(self) -> str:
        return "".join(s["stdout"] for s in self.steps)


def run_action(
    repo: Path, tmp: Path, inputs: dict | None = None, event: str = "pull_request", path=None
) -> Run:
    """Run action.yml's steps in order as a runner does for ``uses: ./`` with ``with: inputs``."""
    base_sha = _git(repo, "rev-parse", "HEAD~1")
    head_sha = _git(repo, "rev-parse", "HEAD")
    event_file = tmp / "event.json"
    event_file.write_text(
        json.dumps(
            {
                "action": "synchronize",
                "number": 7,
                "pull_request": {
                    "number": 7,
                    "base": {"sha": base_sha, "ref": "main"},
                    "head": {"sha": head_sha, "ref": "feature"},
                },
            }
        )  # fmt: skip
    )
    summary = tmp / "step_summary.md"
    summary.write_text("")
    runner_temp = tmp / "runner-temp"
    runner_temp.mkdir(exist_ok=True)
    given = {k: str(v) for k, v in (inputs or {}).items()}
    assert set(given) <= set(ACTION["inputs"]), set(given) - set(ACTION["inputs"])
    ctx = {
        "inputs": {name: given.get(name, str(spec.get("default", ""))) for name, spec in ACTION["inputs"].items()},
        "github": {"action_path": str(ROOT), "action_ref": "v0-test", "workspace": str(repo),
                   "event_name": event, "event_path": str(event_file), "sha": head_sha},
        "runner": {"temp": str(runner_temp), "os": "Linux"},
        "steps": {},
    }  # fmt: skip
    env_base = {
        "PATH": path or f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "HOME": str(tmp / "home"),
        "CI": "true",
        "GITHUB_ACTIONS": "true",
        "GITHUB_WORKSPACE": str(repo),
        "GITHUB_EVENT_NAME": event,
        "GITHUB_EVENT_PATH": str(event_file),
        "GITHUB_SHA": head_sha,
        "GITHUB_ACTION_PATH": str(ROOT),
        "GITHUB_ACTION_REF": "v0-test",
        "GITHUB_STEP_SUMMARY": str(summary),
        "RUNNER_TEMP": str(runner_temp),
        "RUNNER_OS": "Linux",
    }
    run = Run()
    for n, step in enumerate(ACTION["runs"]["steps"]):
        if "if" in step and _substitute("${{ " + step["if"] + " }}", ctx) != "true":
            continue
        if "uses" in step:
            run.skipped.append(
                {"uses": step["uses"], "with": {k: _substitute(v, ctx) for k, v in step["with"].items()}}
            )
            continue
        output = tmp / f"output-{n}"
        output.write_text("")
        script = tmp / f"step-{n}.sh"
        script.write_text(_substitute(step["run"], ctx))
        env = {**env_base, "GITHUB_OUTPUT": str(output)}
        env.update({k: _substitute(v, ctx) for k, v in (step.get("env") or {}).items()})
        assert step["shell"] == "bash"
        done = subprocess.run(  # the runner's bash: bash --noprofile --norc -eo pipefail {0}
            [BASH, "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        if "id" in step:
            ctx["steps"][step["id"]] = {"outputs": _read_outputs(output)}
        run.steps.append(
            {"id": step.get("id"), "code": done.returncode, "stdout": done.stdout, "stderr": done.stderr}
        )
        if done.returncode != 0:
            run.failed = True
            break
    run.outputs = {name: _substitute(spec["value"], ctx) for name, spec in ACTION["outputs"].items()}
    run.summary = summary.read_text()
    return run


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    """A git repository: a CloudFormation template and a Terraform root (calling a local module) on main, and a
    pull request's commit that changes only the local module."""
    top = tmp_path_factory.mktemp("scratch") / "repo"
    shutil.copytree(ROOT / "examples" / "terraform", top / "infra" / "terraform")
    (top / "stacks").mkdir()
    shutil.copy(ROOT / "examples" / "templates" / "orders-cfn.yaml", top / "stacks" / "orders-cfn.yaml")
    (top / "README.md").write_text("scratch\n")
    (top / "visguard.yaml").write_text(  # picked up from the workspace, as by visguard lint
        "version: 1\nprofiles:\n  - match: OrdersQueue\n    kind: lambda\n    p50: 4\n    p99: 28\n"
    )
    _git(top, "init", "-q", "-b", "main")
    _git(top, "add", "-A")
    _git(top, "commit", "-qm", "base")
    module = top / "infra" / "terraform" / "modules" / "worker" / "main.tf"
    module.write_text(module.read_text() + "\n# the pull request's change\n")
    (top / "README.md").write_text("scratch, changed\n")
    _git(top, "commit", "-qam", "the pull request")
    return top


def _json_report(repo: Path, *paths: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-P", "-m", "visguard.cli", "lint", "--format", "json", "--fail-on", "never", *paths],
        cwd=repo, capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _annotations(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if re.match(r"::(error|warning|notice) ", line)]


def test_the_action_lints_the_repository_and_writes_outputs_annotations_summary_and_sarif(repo, tmp_path):
    run = run_action(repo, tmp_path)
    ids = [s["id"] for s in run.steps]
    assert ids == ["plan", "install", "lint"], ids
    # nothing installed: the project's Python already imports this visguard
    install = run.steps[1]
    assert "nothing to install" in install["stdout"], install
    (cache,) = run.skipped
    assert cache["uses"].startswith("actions/cache@") and cache["with"]["key"].startswith("visguard-action-")
    assert "v0-test" in cache["with"]["key"] and cache["with"]["path"]

    expected = _json_report(repo, ".")
    severities = [f["severity"] for f in expected["findings"]]
    assert (
        run.failed and run.steps[-1]["code"] == 2
    )  # findings at or above warning fail the step, as the command
    out = run.outputs
    assert int(out["findings"]) == len(severities) > 0
    assert int(out["errors"]) == severities.count("error") >= 1
    assert int(out["warnings"]) == severities.count("warning") and int(out["infos"]) == severities.count(
        "info"
    )
    assert out["bad-inputs"] == "0" and out["exit-code"] == "2" and out["scope"] == "all"
    sarif = json.loads(Path(out["sarif"]).read_text())
    assert Path(out["sarif"]) == repo / "visguard.sarif"
    results = sarif["runs"][0]["results"]
    assert len(results) == len(severities) and {r["ruleId"] for r in results} >= {"VG010", "VG011"}
    files = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
    assert "stacks/orders-cfn.yaml" in files and "infra/terraform/terraform.tfvars" in files

    notes = _annotations(run.stdout)
    assert any(
        a.startswith("::error file=infra/terraform/terraform.tfvars,line=2") and "title=VG010" in a
        for a in notes
    )
    assert any(a.startswith("::warning file=stacks/orders-cfn.yaml,line=") for a in notes)
    assert len(notes) == len(severities)  # fewer than GitHub's cap: every finding is one annotation
    assert not [a for a in notes if str(repo) in a]  # paths below the workspace, never the runner's folders
    text = run.steps[-1]["stdout"]
    assert "VG010" in text and "findings (" in text  # the text report in the log (format: text)

    assert run.summary.startswith("## visguard")
    assert f"{len(severities)} finding(s)" in run.summary
    assert "| VG010 | error |" in run.summary and "infra/terraform/terraform.tfvars:2" in run.summary
    assert "processed twice" in run.summary  # the engine's estimate, where a rule quotes one


def test_changed_only_lints_the_root_module_of_the_changed_local_module(repo, tmp_path):
    """The pull request changes only modules/worker/main.tf (and a README): the root module that calls it is
    linted, the untouched CloudFormation template is not."""
    run = run_action(repo, tmp_path, {"changed-only": "true", "fail-on": "error", "sarif": "out/vg.sarif"})
    out = run.outputs
    assert out["scope"] == "changed"
    expected = _json_report(repo, "infra/terraform")
    assert int(out["findings"]) == len(expected["findings"]) > 0
    assert out["sarif"] == str(repo / "out" / "vg.sarif")  # its folder made
    results = json.loads((repo / "out" / "vg.sarif").read_text())["runs"][0]["results"]
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
    assert uris and all(u.startswith("infra/terraform/") for u in uris), uris
    notes = _annotations(run.stdout)
    assert notes and all("stacks/" not in a for a in notes)
    assert "stacks/orders-cfn.yaml" not in run.summary and "infra/terraform/" in run.summary
    assert run.steps[-1]["code"] == 2 and out["exit-code"] == "2"  # VG010 is an error


def test_changed_only_outside_a_pull_request_lints_everything(repo, tmp_path):
    run = run_action(
        repo, tmp_path, {"changed-only": "true", "fail-on": "never", "annotations": "false"}, event="push"
    )
    assert not run.failed and run.outputs["scope"] == "all" and run.outputs["exit-code"] == "0"
    assert int(run.outputs["findings"]) == len(_json_report(repo, ".")["findings"])
    assert _annotations(run.stdout) == [] and "## visguard" in run.summary


def test_a_pull_request_that_changes_nothing_visguard_reads(tmp_path):
    repo = tmp_path / "repo"
    (repo / "stacks").mkdir(parents=True)
    shutil.copy(ROOT / "examples" / "templates" / "orders-cfn.yaml", repo / "stacks" / "orders-cfn.yaml")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "base")
    (repo / "notes.txt").write_text("a change\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "docs only")
    run = run_action(repo, tmp_path, {"changed-only": "true"})
    assert not run.failed and run.outputs["findings"] == "0" and run.outputs["scope"] == "changed"
    assert "changes nothing visguard reads" in run.summary and _annotations(run.stdout) == []


def test_inputs_paths_config_args_and_format(repo, tmp_path):
    (tmp_path / "cfg").mkdir()
    cfg = tmp_path / "cfg" / "visguard.yaml"
    cfg.write_text("version: 1\nrules:\n  VG011: info\n")
    run = run_action(
        repo,
        tmp_path,
        {
            "paths": "stacks",
            "config": str(cfg),
            "format": "json",
            "fail-on": "error",
            "args": "--exclude '*.tf'",
        },
    )
    assert not run.failed, run.steps[-1]
    report = json.loads(run.steps[-1]["stdout"].split("\n::")[0])  # the JSON report, then the annotations
    rules = {(f["rule"], f["severity"]) for f in report["findings"]}
    assert ("VG011", "info") in rules and all(f["file"].startswith("stacks/") for f in report["findings"])
    assert run.outputs["exit-code"] == "0" and int(run.outputs["infos"]) >= 1


@pytest.mark.parametrize(
    "inputs, says",
    [
        ({"args": "--format json"}, "args: --format is the Action's to set"),
        ({"args": "--fix"}, "args: --fix is the Action's to set"),
        ({"format": "html"}, "format: 'html' is not one of text, json"),
    ],
)
def test_bad_inputs_are_one_error_annotation(repo, tmp_path, inputs, says):
    run = run_action(repo, tmp_path, inputs)
    assert run.failed and run.steps[-1]["code"] == 1 and run.outputs["exit-code"] == "1"
    (line,) = [line for line in run.steps[-1]["stdout"].splitlines() if line]
    assert line.startswith("::error title=visguard action::") and says in line
    assert "Traceback" not in run.steps[-1]["stderr"]


def test_a_config_visguard_cannot_read_is_one_line(repo, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("severity: [\n")
    run = run_action(repo, tmp_path, {"config": str(bad)})
    lint = run.steps[-1]
    assert run.failed and lint["code"] == 1 and "Traceback" not in lint["stderr"]
    assert len(lint["stderr"].strip().splitlines()) == 1 and "bad.yaml" in lint["stderr"]


# ------------------------------------------------------------------------------------- the metadata itself
def test_action_yml_validates_against_schemastores_github_action_schema():
    schema = json.loads(
        importlib.resources.files("check_jsonschema.builtin_schemas.vendor")
        .joinpath("github-actions.json")
        .read_text()
    )
    assert schema["$id"] == "https://json.schemastore.org/github-action.json"
    jsonschema.Draft7Validator.check_schema(schema)
    errors = [e.message for e in jsonschema.Draft7Validator(schema).iter_errors(ACTION)]
    assert errors == []
    broken = {
        **ACTION,
        "runs": {"using": "composite", "steps": [{"run": "true"}]},
    }  # a run step needs its shell
    assert list(jsonschema.Draft7Validator(schema).iter_errors(broken))


def test_every_input_reaches_the_lint_step_as_an_environment_variable_not_as_script_text():
    """No ``${{ inputs.* }}`` inside a ``run:`` script (a value with quotes would be shell code: GitHub's
    script-injection advice); every input is mapped into a step's env and read by the scripts."""
    steps = ACTION["runs"]["steps"]
    mapped = set()
    for step in steps:
        assert "inputs." not in step.get("run", ""), step["run"]
        for value in (step.get("env") or {}).values():
            mapped |= set(re.findall(r"inputs\.([\w-]+)", value))
        for value in (step.get("with") or {}).values():
            mapped |= set(re.findall(r"inputs\.([\w-]+)", str(value)))
        if "if" in step:
            mapped |= set(re.findall(r"inputs\.([\w-]+)", step["if"]))
    assert mapped == set(ACTION["inputs"]), set(ACTION["inputs"]) ^ mapped
    lint = next(s for s in steps if s.get("id") == "lint")
    assert all(
        name.isidentifier() for name in lint["env"]
    )  # INPUT_FAIL_ON, not INPUT_FAIL-ON: bash can read it
    # every output is one the lint step writes
    source = (ROOT / "linter" / "action.py").read_text()
    for name, spec in ACTION["outputs"].items():
        assert spec["value"] == f"${{{{ steps.lint.outputs.{name} }}}}" and f'"{name}"' in source


@pytest.mark.slow
def test_the_install_step_installs_from_the_checkout_into_a_fresh_virtualenv(tmp_path):
    """A runner without visguard: the install step makes the virtualenv and pip installs this checkout (visguard's
    dependencies from the index pip is configured with: offline here, the local mirror), and a second run finds
    it there (a warm cache) and installs nothing."""
    py = shutil.which("python3", path="/usr/bin:/usr/local/bin") or sys.executable
    base = subprocess.run(
        [py, "-c", "import sys; print(sys.version_info >= (3, 11))"], capture_output=True, text=True
    )
    if base.stdout.strip() != "True":
        py = str(Path(sys.base_prefix) / "bin" / "python3")
    checkout = tmp_path / "action"  # the Action's checkout: its tracked files (pip builds in it: not in ROOT)
    listed = subprocess.run([GIT, "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout.splitlines()  # fmt: skip
    for rel in listed:
        if (ROOT / rel).is_file() and not (ROOT / rel).is_symlink():
            (checkout / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, checkout / rel)
    env = {**os.environ, "GITHUB_ACTION_PATH": str(checkout), "VISGUARD_ACTION_REF": "v0-test",
           "VISGUARD_ACTION_CACHE": str(tmp_path / "cache"), "GITHUB_OUTPUT": str(tmp_path / "out")}  # fmt: skip
    env.pop("VIRTUAL_ENV", None)
    script = str(checkout / "scripts" / "action_install.py")
    for expect in ("true", "false"):
        (tmp_path / "out").write_text("")
        done = subprocess.run(
            [py, "-P", script, "install"], env=env, capture_output=True, text=True, timeout=900
        )
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        got = _read_outputs(tmp_path / "out")
        assert got["installed"] == expect and got["python"].startswith(str(tmp_path / "cache"))
    check = subprocess.run([got["python"], "-P", "-m", "visguard.cli", "lint", str(ROOT / "examples/terraform")],
                           capture_output=True, text=True, cwd=tmp_path)  # fmt: skip
    assert check.returncode == 2 and "VG010" in check.stdout


def _vendored(name: str) -> dict:
    return json.loads(
        importlib.resources.files("check_jsonschema.builtin_schemas.vendor").joinpath(name).read_text()
    )


def test_the_documented_workflow_is_a_valid_workflow_using_the_action_and_uploading_its_sarif():
    """docs/github-action.md's workflow against SchemaStore's github-workflow.json: one step of the Action, one
    upload-sarif step reading the Action's sarif output, run even when the lint failed the job."""
    text = (ROOT / "docs" / "github-action.md").read_text()
    block = next(b for b in re.findall(r"```yaml\n(.*?)```", text, re.S) if "jobs:" in b)
    workflow = yaml.safe_load(block)
    workflow["on"] = workflow.pop(True)  # PyYAML reads YAML 1.1's `on` as true; GitHub reads the key "on"
    schema = _vendored("github-workflows.json")
    assert [e.message for e in jsonschema.Draft7Validator(schema).iter_errors(workflow)] == []
    (job,) = workflow["jobs"].values()
    ours = next(s for s in job["steps"] if s.get("uses", "").startswith("visguard/visguard@"))
    assert set(ours.get("with", {})) <= set(ACTION["inputs"])
    upload = next(
        s for s in job["steps"] if s.get("uses", "").startswith("github/codeql-action/upload-sarif@")
    )
    assert upload["with"]["sarif_file"] == f"${{{{ steps.{ours['id']}.outputs.sarif }}}}"
    assert "cancelled()" in upload["if"] or "always()" in upload["if"]
    assert job["steps"].index(upload) == job["steps"].index(ours) + 1
    assert workflow["permissions"]["security-events"] == "write"


def test_changed_only_in_a_shallow_checkout_fetches_the_base_commit(repo, tmp_path):
    """actions/checkout clones one commit deep: the base commit is fetched from origin, one commit deep."""
    shallow = tmp_path / "shallow"
    subprocess.run([GIT, "clone", "-q", "--depth", "1", f"file://{repo}", str(shallow)], check=True)
    base = _git(repo, "rev-parse", "HEAD~1")
    assert subprocess.run([GIT, "cat-file", "-e", f"{base}^{{commit}}"], cwd=shallow).returncode != 0
    from visguard.linter.action import changed_files

    assert sorted(changed_files(str(shallow), base)) == [
        "README.md",
        "infra/terraform/modules/worker/main.tf",
    ]


def test_changed_targets_expand_as_the_pre_commit_hooks_do(tmp_path, monkeypatch):
    from visguard.linter.action import changed_targets

    monkeypatch.chdir(tmp_path)
    (tmp_path / "svc" / "conf").mkdir(parents=True)
    (tmp_path / "svc" / "serverless.yml").write_text(
        "service: s\nprovider: {name: aws}\nresources: ${file(conf/queues.yml)}\n"
    )
    (tmp_path / "svc" / "conf" / "queues.yml").write_text("Resources: {}\n")
    (tmp_path / "k8s").mkdir()
    (tmp_path / "k8s" / "worker.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w}\n"
    )
    (tmp_path / "notes.yaml").write_text("title: not an input\n")
    files = ["svc/conf/queues.yml", "k8s/worker.yaml", "notes.yaml", "gone.yaml"]
    assert changed_targets(files, ["."]) == ["svc/serverless.yml", "k8s/worker.yaml"]
    assert changed_targets(files, ["k8s"]) == ["k8s/worker.yaml"]  # only under the paths asked
    (tmp_path / "visguard.yaml").write_text("version: 1\n")
    assert changed_targets([*files, "visguard.yaml"], ["svc", "k8s"]) == ["svc", "k8s"]  # config: everything
    assert changed_targets([*files, "ci/vg.yaml"], ["k8s"], config="ci/vg.yaml") == [
        "k8s"
    ]  # the config input
    assert changed_targets(["other/visguard.yaml", "k8s/worker.yaml"], ["k8s"]) == ["k8s/worker.yaml"]


def test_a_summary_over_githubs_limit_is_cut_with_a_line_saying_how_much():
    from visguard.linter.action import fit_summary

    head = "## visguard\n\n3 finding(s)\n\n| severity | rule |\n| --- | --- |\n"
    rows = [f"| warning | VG0{n:02d} {'x' * 60} |\n" for n in range(40)]
    whole = head + "".join(rows)
    assert fit_summary(whole, limit=10_000) == whole  # fits: unchanged
    cut = fit_summary(whole, limit=2_000)
    assert len(cut.encode()) <= 2_000 and cut.startswith(head)
    shown = sum(1 for line in cut.splitlines() if line.startswith("| warning"))
    assert 0 < shown < 40 and f"{40 - shown} more row(s) not shown" in cut


def test_format_github_prints_the_annotations_once(repo, tmp_path):
    run = run_action(repo, tmp_path, {"format": "github", "fail-on": "never"})
    notes = _annotations(run.steps[-1]["stdout"])
    assert notes and len(notes) == len(set(notes)) == int(run.outputs["findings"])
