"""``visguard audit run`` as users run it: a fresh process with its own local JVM, Spark settings from
``--conf``, and the JVM class archive in the cache directory (created by the first run, used by the next)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # each test starts `visguard audit run` processes, each with its own JVM


def _run(args, cache, cwd=None, **env):
    e = {**os.environ, "VISGUARD_CACHE_DIR": str(cache), **env}
    e.pop("VISGUARD_SPARK_JAVA_OPTIONS", None)
    return subprocess.run(
        [sys.executable, "-P", "-m", "visguard", "audit", "run", *args],
        capture_output=True,
        text=True,
        env=e,
        cwd=cwd,
        timeout=600,
    )


@pytest.fixture(scope="module")
def inventory(tmp_path_factory):
    from visguard.audit import generate

    inv = tmp_path_factory.mktemp("cli") / "inventory"
    generate.generate(300, 2, 5, str(inv))
    return inv


def test_class_archive_is_created_once_then_used(inventory, tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    # earlier archives: of this environment (an older Spark or Java: replaced), of an environment whose pyspark
    # is gone, of another live environment (kept), and of the earlier naming (removed)
    import pyspark
    from visguard.audit.session import env_key

    here = env_key(Path(pyspark.__file__).parent / "jars")
    other = tmp_path / "other-env-jars"
    other.mkdir()
    planted = {}
    for name, env, jars in (
        ("same", here, Path(pyspark.__file__).parent / "jars"),
        ("gone", "0badc0de", tmp_path / "uninstalled"),
        ("other", "0ddba11a", other),
    ):
        planted[name] = cache / f"spark-classes-{env}-{'0' * 16}.jsa"
        planted[name].write_bytes(b"x")
        planted[name].with_suffix(".env").write_text(f"{jars}\n")
    planted["old naming"] = cache / f"spark-classes-{'1' * 16}.jsa"
    planted["old naming"].write_bytes(b"x")
    first = _run(["--inventory", str(inventory), "--out", str(tmp_path / "a"), "--fail-on", "never"], cache)
    assert first.returncode == 0, first.stderr[-2000:]
    assert {n for n, p in planted.items() if p.exists()} == {"other"}
    planted["other"].unlink()
    planted["other"].with_suffix(".env").unlink()
    archives = sorted(cache.iterdir())
    assert [p.suffix for p in archives] == [".env", ".jsa"], (
        archives
    )  # moved into place; no temporary file left
    assert archives[1].name.startswith(f"spark-classes-{here}-") and archives[0].stem == archives[1].stem
    archives = archives[1:]
    assert archives[0].stat().st_size > 1_000_000
    # the JVM's per-class CDS warnings are switched off: nothing of it on the user's terminal
    assert "[cds]" not in first.stdout + first.stderr
    assert "saving the Spark JVM's class archive" in first.stderr and "audit cache --clear" in first.stderr
    assert "read the inventory" not in first.stderr  # stderr is not a terminal here: no progress lines
    # the normal path prints only what the user needs: no Spark or JVM start-up chatter
    noise = [ln for ln in first.stderr.splitlines() if not ln.startswith(("audited ", "visguard: saving"))]
    assert noise == [], noise
    written = (archives[0].stat().st_ino, archives[0].stat().st_size)

    # -Xshare:on ("require") makes the JVM refuse to start unless it maps the archive
    second = _run(
        [
            "--inventory",
            str(inventory),
            "--out",
            str(tmp_path / "b"),
            "--conf",
            "spark.sql.shuffle.partitions=3",
        ],
        cache,
        VISGUARD_SPARK_CDS="require",
        VISGUARD_PROGRESS="1",  # as on a terminal
    )
    # the generated fleet has error findings: the default --fail-on error exits 2, as visguard lint does
    assert second.returncode == 2, second.stderr[-2000:]
    assert "class archive" not in second.stderr
    phases = [
        line.split("] ", 1)[1]
        for line in second.stderr.splitlines()
        if line.startswith("visguard audit run: [")
    ]
    assert phases[0].startswith("starting Spark (local[*])"), second.stderr[-2000:]
    assert phases[1].startswith("read the inventory: ") and " records (" in phases[1]
    assert phases[2].startswith("joined and linted: ") and phases[3].startswith("wrote findings/: ")
    assert phases[-1].startswith("wrote summary.json, report.html")
    assert (
        sorted(cache.glob("*.jsa")) == archives
        and (archives[0].stat().st_ino, archives[0].stat().st_size) == written
    )
    a = json.loads((tmp_path / "a" / "summary.json").read_text())
    b = json.loads((tmp_path / "b" / "summary.json").read_text())
    assert a["findings_by_rule"] == b["findings_by_rule"] and a["queues"] == b["queues"] > 0

    # a damaged archive (here: cut short) makes the JVM exit at start: the run drops it and goes on without
    archives[0].chmod(0o644)
    with archives[0].open("r+b") as f:
        f.truncate(1_000_000)
    (tmp_path / "cwd").mkdir()
    third = _run(
        ["--inventory", str(inventory), "--out", str(tmp_path / "c"), "--fail-on", "never"],
        cache,
        cwd=tmp_path / "cwd",
    )
    assert third.returncode == 0, third.stderr[-2000:]
    assert not archives[0].exists()
    c = json.loads((tmp_path / "c" / "summary.json").read_text())
    assert c["findings_by_rule"] == a["findings_by_rule"]
    # the JVM's crash report went to the cache directory, not into the user's working directory
    assert not list((tmp_path / "cwd").iterdir()) and list(cache.glob("jvm-error-*.log"))


def test_bad_conf_is_a_clear_error(inventory, tmp_path):
    r = _run(
        ["--inventory", str(inventory), "--out", str(tmp_path), "--conf", "spark.sql.shuffle.partitions"],
        tmp_path,
    )
    assert r.returncode != 0
    assert "--conf #1: expected KEY=VALUE, got 'spark.sql.shuffle.partitions'" in r.stderr
