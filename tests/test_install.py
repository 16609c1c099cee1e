"""Install as users install (issue 21): the base install from the wheel, the pre-commit snippets of the docs run
against a clone, and every door whose pip extra (or Java) is missing saying so in one line, exit 1.

The two slow tests build from a snapshot of the working tree (its tracked files committed into a git repository
in a temporary folder, so nothing is written into the checkout) and install with pip, which reads the package
index pip.conf names (offline here: a local mirror).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
import venv
from pathlib import Path

import pytest
import yaml
from visguard.cli import main

ROOT = Path(__file__).resolve().parents[1]
GIT = shutil.which("git") or "git"  # the test environment has git (pre-commit needs it)
HEAVY = {
    "numpy",
    "scipy",
    "matplotlib",
    "pyspark",
    "aws-cdk-lib",
    "cfn-lint",
    "aws-sam-translator",
    "boto3",
    "botocore",
}
BASE_LIMIT = 40 * 10**6  # bytes of files in site-packages, pip and setuptools themselves not counted
# (102 MB with numpy, 72 MB of it, on 2026-11-30; without numpy (issue 33) see README's Install section)
NOT_OURS = ("pip", "setuptools", "pkg_resources", "_distutils_hack", "distutils-precedence.pth")


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run([GIT, *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    """A git repository holding the working tree's tracked files, committed (what a user's clone holds)."""
    dest = tmp_path_factory.mktemp("clone") / "visguard"
    files = _git(ROOT, "ls-files", "--cached", "--others", "--exclude-standard").splitlines()
    for rel in files:
        src = ROOT / rel
        if src.is_file() and not src.is_symlink():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    _git(dest, "init", "-q")
    _git(dest, "add", "-A")
    _git(dest, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "snapshot")
    return dest


def _run(args: list, cwd: Path, env: dict | None = None, timeout: int = 600) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )


def _installed_bytes(site: Path) -> int:
    total = 0
    for entry in site.iterdir():
        if entry.name.startswith(NOT_OURS) and (entry.name in NOT_OURS or ".dist-info" in entry.name):
            continue
        files = [entry] if entry.is_file() else [p for p in entry.rglob("*") if p.is_file()]
        total += sum(p.lstat().st_size for p in files)
    return total


@pytest.fixture(scope="module")
def base(clone, tmp_path_factory) -> Path:
    """The wheel of the clone installed into a fresh virtualenv with the base dependencies only; its folder."""
    tmp = tmp_path_factory.mktemp("base")
    dist = tmp / "dist"
    built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", dist, clone], cwd=tmp)
    assert built.returncode == 0, built.stderr[-3000:]
    assert "would be ignored" not in built.stdout + built.stderr  # package data declared
    (wheel,) = dist.glob("visguard-*.whl")
    env_dir = tmp / "venv"
    venv.create(env_dir, with_pip=True)
    inst = _run([env_dir / "bin" / "python", "-m", "pip", "install", "-q", wheel], cwd=tmp)
    assert inst.returncode == 0, inst.stderr[-3000:]
    work = tmp / "work"  # not the clone: the installed package only
    shutil.copytree(clone / "examples", work)
    (work / "samples.txt").write_text("1.5\n2\n3\n40\n")
    return env_dir


@pytest.mark.slow
def test_base_install_from_the_wheel(base):
    """The wheel in a fresh virtualenv: none of the heavy packages (numpy neither), under 40 MB, and it lints
    CloudFormation, Terraform, serverless.yml and code, quotes the risk model's estimate, recommends as text and
    runs the fast model of a shipped example."""
    bindir, work = base / "bin", base.parent / "work"
    names = {
        d["name"].lower() for d in json.loads(_run([bindir / "pip", "list", "--format", "json"], work).stdout)
    }
    assert "visguard" in names and not names & HEAVY, sorted(names & HEAVY)
    (site,) = (base / "lib").glob("python3*/site-packages")
    size = _installed_bytes(site)
    assert size <= BASE_LIMIT, f"base install {size / 1e6:.1f} MB"

    vg = bindir / "visguard"
    cfn = _run([vg, "lint", "templates/orders-cfn.yaml", "--config", "visguard.yaml"], cwd=work)
    assert cfn.returncode == 2 and "VG011" in cfn.stdout and "VG012" in cfn.stdout, cfn.stdout + cfn.stderr
    assert "processed twice" in cfn.stdout  # the risk model's estimate, without numpy or scipy
    tf = _run([vg, "lint", "terraform"], cwd=work)
    assert tf.returncode == 2 and "VG010" in tf.stdout and "aws_sqs_queue.orders" in tf.stdout, tf.stderr
    sls = _run([vg, "lint", "serverless/serverless.yml"], cwd=work)
    assert sls.returncode == 2 and "VG010" in sls.stdout and "InvoicesQueue" in sls.stdout, sls.stderr
    app = _run([vg, "lint", "consumers"], cwd=work)  # Terraform, manifests and code in every base grammar
    assert app.returncode == 2 and "VG061" in app.stdout and "VG072" in app.stdout, app.stdout + app.stderr
    assert _run([vg, "explain", "VG011"], cwd=work).returncode == 0
    shipped = {p.name for p in site.glob("visguard/linter/loaders/code/languages/*.scm")}
    queries = {p.name for p in (ROOT / "linter/loaders/code/languages").glob("*.scm")}
    assert queries and shipped == queries, sorted(queries - shipped)  # every language's query is in the wheel

    fast = _run([vg, "simulate", "--example", "order-pipeline", "--mode", "fast", "--json"], cwd=work)
    assert fast.returncode == 0, fast.stderr
    assert json.loads(fast.stdout)["mode"] == "fast" and json.loads(fast.stdout)["duplicate_rate"] > 0
    rec = _run(
        [vg, "recommend", "--p50", "1800", "--p99", "21600", "--max-recovery", "1800", "--max-duplicate-rate", "0.005"],
        cwd=work,
    )  # fmt: skip
    assert rec.returncode == 0 and "visibility timeout" in rec.stdout, rec.stderr


# Every door of every extra, from the base install: (door, what runs, the extra it names). A list of strings runs
# the console script ``visguard``; a str is Python code (a library door) whose ImportError is printed as one line.
_LIBRARY = "import sys\ntry:\n{}\nexcept ImportError as exc:\n    sys.exit(str(exc))\n"
BASE_DOORS = [
    ("simulate (exact)", ["simulate", "--example", "order-pipeline"], "sim"),
    ("simulate --plot", ["simulate", "--example", "order-pipeline", "--plot", "run.png"], "plots"),
    ("simulate --mode fast --plot", ["simulate", "--example", "order-pipeline", "--mode", "fast", "--plot",
                                     "run.png"], "plots"),
    ("recommend --plot", ["recommend", "--p50", "1", "--p99", "5", "--plot", "run.png"], "plots"),
    ("recommend --samples", ["recommend", "--samples", "samples.txt"], "sim"),
    ("engine-demo", ["engine-demo"], "aws"),
    ("lint --queues-from aws", ["lint", "templates/orders-cfn.yaml", "--queues-from", "aws"], "aws"),
    ("audit collect", ["audit", "collect", "--accounts", "111122223333", "--out", "inv"], "audit"),
    ("audit generate", ["audit", "generate", "--out", "inv"], "audit"),
    ("audit run", ["audit", "run", "--out", "out"], "audit"),
    ("Engine.client()", "    from visguard.engine import Engine\n    Engine().client()", "aws"),
    ("mock_sqs()", "    from visguard.engine.testing import mock_sqs\n    mock_sqs().__enter__()", "aws"),
    ("Profile.empirical", "    from visguard.engine.risk import Profile\n    Profile.empirical([1.0, 2.0])", "sim"),
    ("cfn-lint plugin", "    import visguard.linter.cfnlint_rules", "cfn-lint"),
    ("CDK constructs", "    from visguard.constructs import GuardedQueue", "cdk"),
    ("CDK app", "    import runpy\n    runpy.run_module('visguard.cdk_app', run_name='__main__')", "cdk"),
]  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("door, run, extra", BASE_DOORS, ids=[d[0] for d in BASE_DOORS])
def test_every_door_of_every_extra_from_the_base_install(base, door, run, extra):
    """From the fresh base install: one line naming the extra, exit 1, nothing written, no traceback."""
    work = base.parent / "work"
    before = sorted(p.name for p in work.iterdir())
    if isinstance(run, list):
        out = _run([base / "bin" / "visguard", *run], cwd=work)
    else:
        out = _run([base / "bin" / "python", "-P", "-c", _LIBRARY.format(run)], cwd=work)
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 1 and len(lines) == 1, (door, out.stdout, out.stderr)
    assert f"pip install 'visguard[{extra}]'" in lines[0], lines
    assert "internal error" not in lines[0] and "Traceback" not in out.stderr
    if isinstance(run, list):
        assert lines[0].startswith(f"visguard {run[0]}: "), lines
    assert sorted(p.name for p in work.iterdir()) == before


# the documents with a .pre-commit-config.yaml snippet (the README's is the pre-commit quickstart's and the
# Serverless guide's, copied: a copy that differs is one more snippet run)
SNIPPET_DOCS = ("README.md", "docs/quickstart/pre-commit.md", "docs/serverless.md", "linter/README.md")


def _snippets() -> list[tuple[str, dict]]:
    """The .pre-commit-config.yaml snippets of the docs: (where, the one repository entry)."""
    out = []
    for doc in SNIPPET_DOCS:
        blocks = (ROOT / doc).read_text().split("```yaml\n")[1:]
        for block in blocks:
            text = block.split("```", 1)[0]
            if "rev:" in text and "hooks:" in text:
                (entry,) = yaml.safe_load(text)["repos"]
                out.append((doc, entry))
    return out


@pytest.mark.slow
def test_precommit_snippets_run_against_a_clone(clone, tmp_path):
    """Each snippet as written, with `repo:` the clone's path and `rev:` its HEAD commit: pre-commit installs
    visguard from the clone into its own virtualenv and the hooks report the planted defects."""
    snippets = _snippets()
    assert [doc for doc, _ in snippets] == list(SNIPPET_DOCS)
    head = _git(clone, "rev-parse", "HEAD").strip()
    project = tmp_path / "project"
    shutil.copytree(clone / "examples" / "serverless", project / "svc")
    shutil.copytree(clone / "examples" / "terraform", project / "tf")
    (project / "infra").mkdir()
    shutil.copy(clone / "examples" / "templates" / "orders-cfn.yaml", project / "infra" / "orders-stack.yaml")
    _git(project, "init", "-q")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "NO_COLOR": "1"}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    serverless = ("VG010", "InvoicesQueue")
    expected = {doc: serverless for doc in SNIPPET_DOCS[:3]} | {
        "linter/README.md": ("VG011", "orders-stack.yaml")
    }
    ran: set[str] = set()
    for doc, entry in snippets:
        if json.dumps(entry, sort_keys=True) in ran:
            continue  # the same snippet as a document before it: run once
        ran.add(json.dumps(entry, sort_keys=True))
        assert entry["repo"].startswith("/") and len(entry["rev"]) == 40, (
            entry
        )  # the placeholders the docs explain
        config = {"repos": [{**entry, "repo": str(clone), "rev": head}]}
        (project / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
        _git(project, "add", "-A")
        run = _run(
            [sys.executable, "-m", "pre_commit", "run", "--all-files", "--color", "never"], project, env
        )
        assert run.returncode == 1, doc + "\n" + run.stdout[-3000:] + run.stderr[-3000:]
        for text in expected[doc]:
            assert text in run.stdout, doc + "\n" + run.stdout[-3000:]
        assert "Failed" in run.stdout and "error" not in run.stderr.lower(), run.stderr[-2000:]


# --------------------------------------------------------------------------- doors whose extra is missing
def _one_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


@pytest.mark.parametrize(
    "argv, module, extra",
    [
        (
            ["simulate", "--example", "order-pipeline", "--mode", "fast", "--plot", "x.png"],
            "matplotlib",
            "plots",
        ),
        (["recommend", "--p50", "1", "--p99", "5", "--plot", "x.png"], "matplotlib", "plots"),
        (["engine-demo"], "botocore", "aws"),
        (["simulate", "--example", "order-pipeline"], "numpy", "sim"),
        (["recommend", "--samples", "samples.txt"], "numpy", "sim"),
        (["audit", "generate", "--out", "inv"], "numpy", "audit"),
        (["audit", "run", "--out", "out"], "numpy", "audit"),
        (["audit", "collect", "--accounts", "111122223333", "--out", "inv"], "boto3", "audit"),
        (["audit", "run", "--inventory", "inv", "--out", "out"], "pyspark", "audit"),
    ],
)
def test_a_missing_extra_is_one_line_and_exit_1(argv, module, extra, monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "samples.txt").write_text("1.5\n2\n3\n40\n")
    monkeypatch.setitem(sys.modules, module, None)  # import fails as if the package were not installed
    assert main(argv) == 1
    line = _one_line(capsys)
    assert line.startswith(f"visguard {argv[0]}: ") and line.endswith(f"pip install 'visguard[{extra}]'")
    assert "internal error" not in line and [p.name for p in tmp_path.iterdir()] == ["samples.txt"]


def test_audit_run_without_java_says_how_to_get_it(monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "no-jdk"))
    assert main(["audit", "run", "--inventory", "inv", "--out", "out"]) == 1
    line = _one_line(capsys)
    assert "needs Java" in line and "JAVA_HOME" in line and "internal error" not in line
    monkeypatch.delenv("JAVA_HOME")
    monkeypatch.setenv("PATH", str(tmp_path))  # no java on PATH either
    assert main(["audit", "run", "--inventory", "inv", "--out", "out"]) == 1
    assert "needs Java" in _one_line(capsys)


def test_spark_connect_needs_no_local_java(monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "no-jdk"))
    code = main(["audit", "run", "--inventory", "missing", "--out", "out", "--remote", "sc://127.0.0.1:1"])
    assert code == 1 and "needs Java" not in capsys.readouterr().err  # it got past the check to the input


def test_library_doors_raise_an_import_error_naming_the_extra(monkeypatch):
    from visguard.engine import Engine
    from visguard.engine import client as engine_client
    from visguard.errors import MissingExtra

    monkeypatch.setitem(sys.modules, "botocore", None)
    monkeypatch.setattr(engine_client, "_model_cache", {})
    with pytest.raises(ImportError, match=r"pip install 'visguard\[aws\]'"):
        Engine().client()
    from visguard.engine.testing import mock_sqs

    with pytest.raises(MissingExtra, match=r"mock_sqs\(\).*visguard\[aws\]"):
        mock_sqs().__enter__()

    monkeypatch.setitem(sys.modules, "cfnlint", None)
    monkeypatch.delitem(sys.modules, "visguard.linter.cfnlint_rules", raising=False)
    monkeypatch.delitem(sys.modules, "visguard.linter.cfnlint_rules._base", raising=False)
    with pytest.raises(
        ImportError, match=r"cfn-lint plugin.*needs cfn-lint.*pip install 'visguard\[cfn-lint\]'"
    ):
        import visguard.linter.cfnlint_rules  # noqa: F401


def test_cdk_constructs_without_aws_cdk_lib_name_the_extra(monkeypatch):
    import visguard.constructs as vc
    from visguard.constructs import compat

    monkeypatch.setattr(compat, "installed_version", lambda: None)
    compat.require_supported.cache_clear()
    monkeypatch.delitem(vc.__dict__, "AuditRole", raising=False)
    try:
        with pytest.raises(ImportError, match=r"pip install 'visguard\[cdk\]'"):
            vc.AuditRole  # noqa: B018 - the attribute access is the import
    finally:
        compat.require_supported.cache_clear()
    assert vc.QueueSettings.__name__ == "QueueSettings"  # the pure part needs no aws-cdk-lib


def test_cdk_app_without_aws_cdk_lib_is_one_line_exit_1(tmp_path):
    code = (
        "import importlib.metadata as m, runpy\n"
        "real = m.version\n"
        "def version(name):\n"
        "    if name == 'aws-cdk-lib':\n"
        "        raise m.PackageNotFoundError(name)\n"
        "    return real(name)\n"
        "m.version = version\n"
        "runpy.run_module('visguard.cdk_app', run_name='__main__')\n"
    )
    out = _run([sys.executable, "-P", "-c", code], cwd=tmp_path)
    assert out.returncode == 1
    assert (
        out.stderr.strip().splitlines() == [out.stderr.strip()]
        and "pip install 'visguard[cdk]'" in out.stderr
    )


# --------------------------------------------------------------------------- the example scenarios, shipped
def test_simulate_example_lists_and_runs_the_shipped_scenarios(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # not the repository: the package's own copy
    shipped = sorted(p.stem for p in (ROOT / "engine" / "examples").glob("*.yaml"))
    assert main(["simulate", "--example"]) == 0
    listing = capsys.readouterr().out
    assert all(name in listing for name in shipped) and "order pipeline (seed 002)" in listing
    assert main(["simulate", "--help"]) == 0  # argparse's --help ends through the edge, as every command
    assert "order-pipeline" in capsys.readouterr().out
    assert main(["simulate", "--example", "video-encoder-heartbeat", "--mode", "fast", "--json"]) == 0
    fast = json.loads(capsys.readouterr().out)
    assert fast["mode"] == "fast" and fast["messages"] == 3000


@pytest.mark.parametrize(
    "argv, says",
    [
        (
            ["simulate", "--example", "nope"],
            "no example scenario 'nope'; there are: lambda-reserved-concurrency",
        ),
        (
            ["simulate", "x.yaml", "--example", "order-pipeline"],
            "a scenario file or --example NAME, not both",
        ),
        (["simulate"], "give a scenario file, or --example NAME"),
    ],
)
def test_simulate_example_usage_errors(argv, says, capsys):
    assert main(argv) == 1
    assert says in _one_line(capsys)


def test_every_package_folder_is_in_the_wheel():
    """A folder with an ``__init__.py`` under a mapped root is listed in ``packages`` (a missing one installs
    nothing and its door fails only from a wheel)."""
    tool = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(tool["packages"])
    for name, folder in tool["package-dir"].items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder)
            if any(part.startswith((".", "__")) or part in ("node_modules", "cdk.out") for part in rel.parts):
                continue
            package = ".".join((name, *rel.parts)) if rel.parts else name
            assert package in listed, f"{package} ({init.parent}) is not in pyproject's packages"


def _generated(tmp_path: Path, blocked: tuple[str, ...]) -> dict[str, bytes]:
    """``visguard audit generate`` in a child process with the ``blocked`` packages made uninstallable."""
    code = (
        "import sys\n"
        f"for name in {list(blocked)!r}:\n"
        "    sys.modules[name] = None\n"
        "from visguard.cli import main\n"
        "sys.exit(main(['audit', 'generate', '--queues', '400', '--accounts', '3', '--seed', '7', '--out', 'inv']))\n"
    )
    cwd = tmp_path / ("-".join(blocked) or "all")
    cwd.mkdir()
    out = _run([sys.executable, "-P", "-c", code], cwd=cwd)
    assert out.returncode == 0, out.stderr[-2000:]
    inv = cwd / "inv"
    return {str(p.relative_to(inv)): p.read_bytes() for p in sorted(inv.rglob("*.jsonl*")) if p.is_file()}


def test_audit_generate_needs_no_scipy(tmp_path):
    """`audit generate` runs on numpy alone (issue 33: without scipy it ended in an internal error) and writes the
    same inventory either way (the risk model's normal CDF: scipy's, or its own to ~1e-15)."""
    with_scipy, without = _generated(tmp_path, ()), _generated(tmp_path, ("scipy",))
    assert with_scipy and without == with_scipy


# What the base install runs without numpy (issue 33): the risk model's scalar path. (argv, exit code, a text of
# the output that only the engine's model gives.)
WITHOUT_NUMPY = [
    (["lint", "templates/orders-cfn.yaml", "--config", "visguard.yaml"], 2, "processed twice"),
    (
        [
            "recommend",
            "--p50",
            "1800",
            "--p99",
            "21600",
            "--max-recovery",
            "1800",
            "--max-duplicate-rate",
            "0.005",
        ],
        0,
        "heartbeat",
    ),
    (["recommend", "--lambda-timeout", "30", "--p50", "5", "--p99", "20"], 0, "maxReceiveCount"),
    (["simulate", "--example", "order-pipeline", "--mode", "fast"], 0, "effective timeout"),
]


@pytest.mark.parametrize(
    "argv, code, says", WITHOUT_NUMPY, ids=[" ".join(a[:1] + a[-1:]) for a, _, _ in WITHOUT_NUMPY]
)
def test_the_scalar_path_runs_without_numpy(argv, code, says, tmp_path):
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    prog = (
        "import sys\n"
        "sys.modules['numpy'] = None\n"
        "from visguard.cli import main\n"
        f"code = main({argv!r})\n"
        "assert 'numpy' not in [m.partition('.')[0] for m in sys.modules if sys.modules[m] is not None]\n"
        "sys.exit(code)\n"
    )
    out = _run([sys.executable, "-P", "-c", prog], cwd=tmp_path / "examples")
    assert out.returncode == code, out.stdout[-2000:] + out.stderr[-2000:]
    assert says in out.stdout and not out.stderr.strip(), out.stderr[-2000:]
