"""Packaging as users install (issue 37 §5): the sdist and the wheel (the wheel built from the sdist, as
``python -m build`` does) pass ``twine check --strict``; the metadata has the project URLs, the documentation link,
classifiers and the README as a Markdown long description; and ``pip install 'visguard[EXTRA]'`` from the built
wheel resolves for every extra of pyproject.toml with ``--no-index``.

The extras are installed into a fresh virtualenv that sees the packages of the environment running the tests (a
folder of links to its site-packages, less visguard itself, named in a ``.pth`` file), so pip downloads nothing:
it must find every requirement of each extra already there (``make install`` installs them all), installs the
wheel, and each extra's own modules then import from the fresh virtualenv with visguard from the wheel.
The build reads the working tree's tracked files copied into a temporary folder (nothing written into the
checkout); its build backend comes from the index pip is configured with (offline here: the local mirror).
"""

from __future__ import annotations

import email.parser
import os
import shutil
import subprocess
import sys
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
EXTRAS = sorted(PYPROJECT["project"]["optional-dependencies"])
GIT = shutil.which("git") or "git"
DOCS_URL = "https://visguard.github.io/visguard/"
# what each extra brings that a program imports (the base install has none of them: tests/test_install.py)
IMPORTS = {
    "aws": ["boto3", "botocore"],
    "sim": ["numpy"],
    "plots": ["matplotlib", "numpy"],
    "cfn-lint": ["cfnlint", "visguard.linter.cfnlint_rules"],
    "cdk": ["aws_cdk", "constructs"],
    "audit": ["pyspark", "pyarrow", "pandas", "scipy"],
    "lsp": ["pygls", "lsprotocol"],
}


def _run(args, cwd, timeout=900, env=None):
    return subprocess.run(
        [str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env
    )


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    """``python -m build`` of a snapshot of the working tree's tracked files: the sdist, and the wheel from it."""
    tmp = tmp_path_factory.mktemp("dist")
    src = tmp / "visguard"
    files = _run([GIT, "ls-files", "--cached", "--others", "--exclude-standard"], ROOT).stdout.splitlines()
    for rel in files:
        path = ROOT / rel
        if path.is_file() and not path.is_symlink():
            (src / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, src / rel)
    built = _run([sys.executable, "-m", "build", "--outdir", tmp / "out", src], tmp)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    return tmp / "out"


def _wheel(dist: Path) -> Path:
    (wheel,) = dist.glob("visguard-*.whl")
    return wheel


@pytest.mark.slow
def test_the_sdist_and_the_wheel_pass_twine_check(dist):
    artifacts = sorted(dist.iterdir())
    assert sorted(p.suffix for p in artifacts) == [".gz", ".whl"], artifacts
    check = _run([sys.executable, "-m", "twine", "check", "--strict", *artifacts], dist)
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout.count("PASSED") == 2, check.stdout


@pytest.mark.slow
def test_the_metadata_has_urls_classifiers_and_the_readme(dist):
    with zipfile.ZipFile(_wheel(dist)) as zf:
        name = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        meta = email.parser.Parser().parsestr(zf.read(name).decode())
        shipped = set(zf.namelist())
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL"))
    assert urls["Documentation"] == DOCS_URL
    assert {"Homepage", "Source", "Issues"} <= set(urls) and all(
        u.startswith("https://") for u in urls.values()
    )
    classifiers = meta.get_all("Classifier")
    assert "Programming Language :: Python :: 3.11" in classifiers
    assert not [c for c in classifiers if c.startswith("License ::")]  # PEP 639: the SPDX expression instead
    assert meta["License-Expression"] == "Apache-2.0" and meta["Requires-Python"] == ">=3.11"
    assert meta["Description-Content-Type"] == "text/markdown"
    assert meta.get_payload().strip() == (ROOT / "README.md").read_text().strip()
    assert set(meta.get_all("Provides-Extra")) == set(EXTRAS)
    # the schemas the docs publish are in the wheel too (an editor offline can point at them)
    assert {
        "visguard/linter/schemas/visguard-config.schema.json",
        "visguard/engine/schemas/scenario.schema.json",
    } <= shipped


def _layered_venv(where: Path) -> Path:
    """A fresh virtualenv whose ``.pth`` names a folder of links to this environment's packages, visguard not
    among them; its python."""
    venv.create(where, with_pip=True)
    farm = where / "outer-packages"
    farm.mkdir()
    for site in [p for p in sys.path if p.endswith("site-packages") and os.path.isdir(p)]:
        for entry in Path(site).iterdir():
            low = entry.name.lower()
            if low.startswith(
                ("visguard", "__editable__", "_virtualenv", "pip", "__pycache__")
            ) or low.endswith(".pth"):
                continue
            if not (farm / entry.name).exists():
                (farm / entry.name).symlink_to(entry)
    (site_packages,) = (where / "lib").glob("python3*/site-packages")
    (site_packages / "zz-outer-packages.pth").write_text(str(farm) + "\n")
    return where / "bin" / "python"


@pytest.mark.slow
def test_every_extra_installs_from_the_wheel_without_an_index(dist, tmp_path):
    python = _layered_venv(tmp_path / "venv")
    wheel = _wheel(dist)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "VIRTUAL_ENV", "PYTHON"))}
    pip = [python, "-m", "pip", "install", "--no-index", "--disable-pip-version-check", "--no-input"]
    base = _run([*pip, wheel], tmp_path, env=env)
    assert base.returncode == 0, base.stdout[-3000:] + base.stderr[-3000:]
    for extra in EXTRAS:
        done = _run([*pip, f"{wheel}[{extra}]"], tmp_path, env=env)
        assert done.returncode == 0, (extra, done.stdout[-3000:] + done.stderr[-3000:])
        assert "Successfully installed" not in done.stdout, (
            extra,
            done.stdout,
        )  # every requirement was there
    where = _run([python, "-P", "-c", "import visguard, sys; print(visguard.__file__)"], tmp_path, env=env)
    assert where.stdout.strip().startswith(str(tmp_path / "venv" / "lib")), where  # the wheel's visguard
    for extra, modules in IMPORTS.items():
        if extra not in EXTRAS:
            continue
        code = "import importlib, sys\nfor m in sys.argv[1:]:\n    importlib.import_module(m)\n"
        done = _run([python, "-P", "-c", code, *modules], tmp_path, env=env)
        assert done.returncode == 0, (extra, done.stderr[-2000:])
    check = _run([python, "-m", "pip", "check"], tmp_path, env=env)
    assert check.returncode == 0, check.stdout + check.stderr
    lint = _run(
        [python, "-P", "-m", "visguard.cli", "lint", ROOT / "examples" / "terraform"], tmp_path, env=env
    )
    assert lint.returncode == 2 and "VG010" in lint.stdout, lint.stderr


def test_every_extra_that_adds_packages_has_its_imports_checked():
    """A new extra gets a line in IMPORTS (what a program imports from it); aggregates (all) and the tool extras
    (dev, docs) are made of packages no visguard door imports."""
    for extra in EXTRAS:
        deps = PYPROJECT["project"]["optional-dependencies"][extra]
        if all(d.startswith("visguard[") for d in deps) or extra in ("dev", "docs"):
            continue
        assert extra in IMPORTS, (
            f"the extra {extra!r} has no modules to import in tests/test_packaging.py IMPORTS"
        )
