"""The GitHub Action's install steps (scripts/action_install.py): the cache key and the decision to install."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("action_install", ROOT / "scripts" / "action_install.py")
inst = importlib.util.module_from_spec(spec)
spec.loader.exec_module(inst)


def _checkout(tmp_path: Path) -> Path:
    """A small stand-in for the Action's checkout: pyproject.toml and one file of a package folder."""
    root = tmp_path / "action"
    (root / "linter").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "visguard"\nversion = "9.8.7"\n')
    (root / "linter" / "api.py").write_text("x = 1\n")
    return root


def test_the_key_names_os_python_ref_extras_version_and_what_pip_installs(tmp_path):
    root = _checkout(tmp_path)
    env = {
        "GITHUB_ACTION_PATH": str(root),
        "VISGUARD_ACTION_REF": "v1.2",
        "VISGUARD_ACTION_CACHE": str(tmp_path / "c"),
    }
    made = inst.plan(env)
    py = f"py{sys.version_info.major}.{sys.version_info.minor}"
    assert made["version"] == "9.8.7" and made["key"].startswith("visguard-action-")
    assert "-v1.2-9.8.7-" in made["key"] and py in made["key"] and "-base-" in made["key"]
    assert made["venv"].startswith(str(tmp_path / "c")) and made["key"].endswith(Path(made["venv"]).name)
    assert inst.plan(env) == made  # the same checkout, the same key
    assert "-aws+sim-" in inst.plan({**env, "INPUT_EXTRAS": "sim, aws"})["key"]
    assert inst.plan({**env, "VISGUARD_ACTION_REF": "feature/x y"})["key"].count("feature_x_y") == 1
    (root / "linter" / "api.py").write_text("x = 2\n")  # a moving ref (@main) with new code: a new virtualenv
    assert inst.plan(env)["key"] != made["key"]
    (root / "linter" / "__pycache__").mkdir()
    (root / "linter" / "__pycache__" / "api.cpython-311.pyc").write_bytes(b"\0")
    assert inst.plan(env)["key"] == inst.plan({**env})["key"]  # compiled files are not what pip installs


@pytest.mark.parametrize("bad", ["aws;rm -rf /", "sim]", "../x"])
def test_an_extra_that_is_no_name_is_one_error(bad):
    with pytest.raises(SystemExit, match="extras: .* is not an extra's name"):
        inst.extras({"INPUT_EXTRAS": bad})


def test_the_projects_python_has_this_visguard_and_its_extras():
    version = inst.version(str(ROOT))
    assert inst.has_visguard(sys.executable, version, [])
    assert inst.has_visguard(sys.executable, version, ["aws", "sim"])  # make install installs every extra
    assert not inst.has_visguard(sys.executable, "0.0.0-not-this", [])
    assert not inst.has_visguard(str(ROOT / "no-such-python"), version, [])


def test_install_uses_the_python_that_has_it_and_writes_the_outputs(tmp_path, capsys):
    out = tmp_path / "out"
    env = {
        "GITHUB_ACTION_PATH": str(ROOT),
        "GITHUB_OUTPUT": str(out),
        "VISGUARD_ACTION_CACHE": str(tmp_path / "c"),
    }
    assert inst.main(["install"], env) == 0
    assert out.read_text() == f"python={sys.executable}\ninstalled=false\n"
    assert "nothing to install" in capsys.readouterr().out
    assert not (tmp_path / "c").exists()  # no virtualenv made
    assert inst.main(["nope"], env) == 1


def test_a_virtualenv_restored_from_the_cache_is_used_as_it_is(tmp_path, monkeypatch):
    """A warm cache: the planned virtualenv's python has visguard (here: a script that runs this one), nothing installed."""
    env = {"GITHUB_ACTION_PATH": str(ROOT), "VISGUARD_ACTION_CACHE": str(tmp_path / "c")}
    bindir = Path(inst.plan(env)["venv"]) / "bin"
    bindir.mkdir(parents=True)
    (bindir / "python").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    (bindir / "python").chmod(0o755)
    real = inst.has_visguard
    monkeypatch.setattr(
        inst,
        "has_visguard",
        lambda python, want, extra: python != sys.executable and real(python, want, extra),
    )
    monkeypatch.setattr(inst.venv, "create", lambda *a, **k: pytest.fail("made a virtualenv"))
    got = inst.install(env, log=lambda *_: None)
    assert got == {"python": str(bindir / "python"), "installed": "false"}
