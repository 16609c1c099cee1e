"""The audit's cache folder: one class archive per environment (replaced, not added), stale ones pruned, and
``visguard audit cache [--clear]`` showing and removing only what visguard wrote."""

from __future__ import annotations

import os
import subprocess
import sys

from visguard.audit.session import ARCHIVE_PREFIX, KEEP_ARCHIVES, STALE_DAYS, cache_entries, prune_archives

NOW = 2_000_000_000.0


def _archive(folder, env, key, jars, age_days=0.0):
    p = folder / f"{ARCHIVE_PREFIX}{env}-{key}.jsa"
    p.write_bytes(b"x" * 10)
    if jars is not None:
        p.with_suffix(".env").write_text(f"{jars}\n")
    t = NOW - age_days * 86400
    os.utime(p, (t, t))
    return p


def test_prune_keeps_one_archive_per_environment_and_drops_stale_ones(tmp_path):
    cache, live = tmp_path / "cache", tmp_path / "jars"
    cache.mkdir()
    live.mkdir()
    other_live = tmp_path / "jars2"
    other_live.mkdir()
    written = _archive(cache, "aaaaaaaa", "1" * 16, live)
    replaced = _archive(cache, "aaaaaaaa", "0" * 16, live, age_days=1)  # same environment, older Spark/Java
    kept = _archive(cache, "bbbbbbbb", "2" * 16, other_live, age_days=2)  # another live environment
    gone = _archive(cache, "cccccccc", "3" * 16, tmp_path / "uninstalled")  # its venv was removed
    unused = _archive(cache, "dddddddd", "4" * 16, other_live, age_days=STALE_DAYS + 1)
    old_naming = cache / f"{ARCHIVE_PREFIX}{'5' * 16}.jsa"
    old_naming.write_bytes(b"x")
    no_note = _archive(cache, "eeeeeeee", "6" * 16, None)
    foreign = cache / "notes.txt"
    foreign.write_text("the user's")

    removed = prune_archives(cache, written=written, now=NOW)

    assert set(removed) == {replaced, gone, unused, old_naming, no_note}
    assert sorted(p.name for p in cache.iterdir()) == sorted(
        [
            written.name,
            written.with_suffix(".env").name,
            kept.name,
            kept.with_suffix(".env").name,
            "notes.txt",
        ]
    )


def test_prune_caps_the_number_of_environments(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    made = []
    for i in range(KEEP_ARCHIVES + 2):
        jars = tmp_path / f"jars{i}"
        jars.mkdir()
        made.append(_archive(cache, f"{i:08x}", f"{i:016x}", jars, age_days=i))  # made[0] used most recently
    removed = prune_archives(cache, now=NOW)
    assert removed == made[KEEP_ARCHIVES:]
    assert all(p.exists() for p in made[:KEEP_ARCHIVES])


def test_cache_command_lists_and_clears_only_visguard_files(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    jars = tmp_path / "jars"
    jars.mkdir()
    mine = [
        _archive(cache, "aaaaaaaa", "1" * 16, jars),
        cache / "visguard-code-0123.zip",
        cache / "jvm-error-9.log",
    ]
    mine[1].write_bytes(b"z" * 300_000)
    mine[2].write_text("crash")
    theirs = [cache / "keep.jsa", cache / "visguard-code.zip.bak"]
    for p in theirs:
        p.write_text("not ours")
    (cache / "sub").mkdir()
    assert set(cache_entries(cache)) == {*mine, mine[0].with_suffix(".env")}

    env = {**os.environ, "VISGUARD_CACHE_DIR": str(cache)}
    run = [sys.executable, "-P", "-m", "visguard", "audit", "cache"]
    shown = subprocess.run(run, capture_output=True, text=True, env=env, timeout=60)
    assert shown.returncode == 0, shown.stderr
    assert (
        str(cache) in shown.stdout and "visguard-code-0123.zip" in shown.stdout and "0.3 MB" in shown.stdout
    )
    assert "keep.jsa" not in shown.stdout

    cleared = subprocess.run([*run, "--clear"], capture_output=True, text=True, env=env, timeout=60)
    assert cleared.returncode == 0 and "removed 4 file(s)" in cleared.stdout, cleared.stdout + cleared.stderr
    assert sorted(p.name for p in cache.iterdir()) == ["keep.jsa", "sub", "visguard-code.zip.bak"]
