"""The one reader of pinned dependency versions (linter/loaders/code/dependencies.py): every format, the walk's
policy (a lock wins over a range, an exact pin ends the walk, never above the bound), bad input as notes."""

from __future__ import annotations

import json
import os

import pytest
from visguard.linter.loaders.code import dependencies as deps
from visguard.linter.loaders.code.dependencies import Malformed, at_least, npm_spec, pin_in, python_spec


def write(root, rel, text):
    p = os.path.join(root, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w", encoding="utf-8") as fh:
        fh.write(text)
    return p


@pytest.mark.parametrize(
    "spec, want",
    [
        ("==5.5.3", ((5, 5, 3), "pin")),
        (">=5.5,<5.6", ((5, 5), "range")),
        ("~=5.6.0", ((5, 6, 0), "range")),
        ("<6", (None, "unknown")),
        ("", (None, "unknown")),
        ("==5.*", ((5,), "range")),
    ],
)
def test_python_specifiers(spec, want):
    assert python_spec(spec) == want


@pytest.mark.parametrize(
    "spec, want",
    [
        ("14.1.0", ((14, 1, 0), "pin")),
        ("=14.1.0", ((14, 1, 0), "pin")),
        ("^14.0.0", ((14, 0, 0), "range")),
        ("~13.0", ((13, 0), "range")),
        (">=13 <15", ((13,), "range")),
        ("14.x", ((14,), "range")),
        ("13", ((13,), "range")),
        ("*", (None, "unknown")),
        ("latest", (None, "unknown")),
        ("^13 || ^14", (None, "unknown")),
        ("github:bbc/sqs-consumer", (None, "unknown")),
        ("npm:sqs-consumer@^14.2.0", ((14, 2, 0), "range")),
        ("workspace:^15.0.0", ((15, 0, 0), "range")),
        ("<15", (None, "unknown")),
    ],
)
def test_npm_ranges(spec, want):
    assert npm_spec(spec) == want


def test_at_least_compares_missing_parts_as_zero():
    assert at_least((14,), (14, 0, 0)) is True
    assert at_least((13, 9, 9), (14,)) is False
    assert at_least(None, (14,)) is None


def test_requirements_names_compare_as_pep_503_and_extras_and_markers_are_read():
    text = (
        "# pinned\n-r base.txt\nboto3==1.35.0\nCelery[sqs]==5.5.3 ; python_version >= '3.9'  # the worker\n"
    )
    pin = pin_in("requirements.txt", text.encode(), "celery", "r/requirements.txt")
    assert (pin.version, pin.basis, pin.line, pin.file) == ((5, 5, 3), "pin", 4, "r/requirements.txt")
    assert pin_in("requirements.txt", text.encode(), "kombu") is None


def test_pyproject_pep621_poetry_and_groups():
    pep621 = '[project]\nname = "app"\ndependencies = ["celery[sqs]>=5.5,<5.6", "boto3"]\n'
    pin = pin_in("pyproject.toml", pep621.encode(), "celery")
    assert (pin.version, pin.basis, pin.line) == ((5, 5), "range", 3)
    poetry = '[tool.poetry.dependencies]\npython = "^3.11"\nkombu = {version = "5.5.4", extras = ["sqs"]}\n'
    pin = pin_in("pyproject.toml", poetry.encode(), "kombu")
    assert (pin.version, pin.basis) == ((5, 5, 4), "pin")
    group = '[tool.poetry.group.worker.dependencies]\ncelery = "^5.6"\n'
    assert pin_in("pyproject.toml", group.encode(), "celery").version == (5, 6)


def test_python_lock_files():
    poetry = (
        '[[package]]\nname = "boto3"\nversion = "1.35.0"\n\n[[package]]\nname = "kombu"\nversion = "5.5.4"\n'
    )
    pin = pin_in("poetry.lock", poetry.encode(), "Kombu")
    assert (pin.version, pin.basis, pin.line) == ((5, 5, 4), "lock", 6)
    uv = 'version = 1\n[[package]]\nname = "kombu"\nversion = "5.6.2"\nsource = { registry = "https://pypi.org/simple" }\n'
    assert pin_in("uv.lock", uv.encode(), "kombu").version == (5, 6, 2)
    pipfile = {"_meta": {}, "default": {"kombu": {"version": "==5.6.1"}}, "develop": {}}
    pin = pin_in("Pipfile.lock", json.dumps(pipfile, indent=4).encode(), "kombu")
    assert (pin.version, pin.basis) == ((5, 6, 1), "lock")


def test_node_manifest_and_lock_files():
    pkg = {"name": "w", "dependencies": {"@aws-sdk/client-sqs": "^3.600.0", "sqs-consumer": "^14.1.0"}}
    pin = pin_in("package.json", json.dumps(pkg, indent=2).encode(), "sqs-consumer")
    assert (pin.version, pin.basis, pin.spec, pin.line) == ((14, 1, 0), "range", "^14.1.0", 5)
    lock3 = {
        "lockfileVersion": 3,
        "packages": {"": {}, "node_modules/sqs-consumer": {"version": "14.2.8"}},
    }
    assert pin_in("package-lock.json", json.dumps(lock3).encode(), "sqs-consumer").version == (14, 2, 8)
    lock1 = {"lockfileVersion": 1, "dependencies": {"sqs-consumer": {"version": "13.0.0"}}}
    assert pin_in("package-lock.json", json.dumps(lock1).encode(), "sqs-consumer").version == (13, 0, 0)
    yarn1 = 'sqs-consumer@^14.0.0, sqs-consumer@^14.1.0:\n  version "14.2.1"\n  resolved "https://x"\n'
    pin = pin_in("yarn.lock", yarn1.encode(), "sqs-consumer")
    assert (pin.version, pin.basis, pin.line) == ((14, 2, 1), "lock", 1)
    berry = '__metadata:\n  version: 8\n\n"sqs-consumer@npm:^15.0.0":\n  version: 15.0.3\n  resolution: "x"\n'
    assert pin_in("yarn.lock", berry.encode(), "sqs-consumer").version == (15, 0, 3)
    pnpm9 = (
        "lockfileVersion: '9.0'\nimporters:\n  .:\n    dependencies:\n      sqs-consumer:\n"
        "        specifier: ^14.0.0\n        version: 14.2.8(@aws-sdk/client-sqs@3.700.0)\n"
    )
    pin = pin_in("pnpm-lock.yaml", pnpm9.encode(), "sqs-consumer")
    assert (pin.version, pin.basis, pin.line) == ((14, 2, 8), "lock", 5)
    pnpm5 = (
        "lockfileVersion: 5.4\nspecifiers:\n  sqs-consumer: ^13.0.0\ndependencies:\n  sqs-consumer: 13.0.0\n"
    )
    assert pin_in("pnpm-lock.yaml", pnpm5.encode(), "sqs-consumer").version == (13, 0, 0)


def test_two_locked_versions_that_disagree_are_unknown_not_the_highest():
    yarn1 = 'sqs-consumer@^13.0.0:\n  version "13.0.0"\n\nsqs-consumer@^15.0.0:\n  version "15.0.3"\n'
    pin = pin_in("yarn.lock", yarn1.encode(), "sqs-consumer")
    assert (pin.version, pin.basis) == (None, "unknown")


@pytest.mark.parametrize(
    "name, data",
    [
        ("pyproject.toml", b"[project\ndependencies = ["),
        ("poetry.lock", b"[[package]\nname="),
        ("package.json", b'{"dependencies": {"sqs-consumer": '),
        ("package.json", b"[1, 2]"),
        ("package-lock.json", b"\xff\xfe\x00garbage"),
        ("Pipfile.lock", b"null"),
    ],
)
def test_malformed_files_raise_malformed_only(name, data):
    with pytest.raises(Malformed):
        pin_in(name, data, "sqs-consumer")


def test_a_lock_higher_up_wins_over_a_nearer_range(tmp_path):
    root = str(tmp_path)
    write(
        root,
        "package-lock.json",
        json.dumps({"packages": {"node_modules/sqs-consumer": {"version": "13.0.0"}}}),
    )
    write(root, "packages/worker/package.json", json.dumps({"dependencies": {"sqs-consumer": "^13.0.0"}}))
    src = write(root, "packages/worker/src/worker.js", "")
    pin, notes = deps.nearest("sqs-consumer", src, "node", root)
    assert (pin.version, pin.basis, pin.file) == ((13, 0, 0), "lock", os.path.join(root, "package-lock.json"))
    assert notes == []


def test_a_range_without_a_lock_gives_its_lower_bound(tmp_path):
    root = str(tmp_path)
    write(root, "svc/package.json", json.dumps({"dependencies": {"sqs-consumer": "^14.0.0"}}))
    write(root, "package.json", json.dumps({"dependencies": {"sqs-consumer": "13.0.0"}}))  # farther: not read
    src = write(root, "svc/worker.js", "")
    pin, _ = deps.nearest("sqs-consumer", src, "node", root)
    assert (pin.version, pin.basis) == ((14, 0, 0), "range")


def test_an_exact_pin_ends_the_walk(tmp_path):
    root = str(tmp_path)
    write(root, "poetry.lock", '[[package]]\nname = "kombu"\nversion = "5.6.2"\n')
    write(root, "app/requirements-worker.txt", "kombu==5.5.4\n")
    src = write(root, "app/celeryconfig.py", "")
    pin, _ = deps.nearest("kombu", src, "python", root)
    assert (pin.version, pin.basis, pin.line) == ((5, 5, 4), "pin", 1)


def test_the_walk_never_reads_above_the_bound(tmp_path):
    root = str(tmp_path)
    write(
        root,
        "package-lock.json",
        json.dumps({"packages": {"node_modules/sqs-consumer": {"version": "14.0.0"}}}),
    )
    src = write(root, "repo/worker.js", "")
    seen = []

    def read(path, limit):
        seen.append(path)
        return deps._read(path, limit)

    pin, _ = deps.nearest("sqs-consumer", src, "node", os.path.join(root, "repo"), read=read)
    assert pin is None
    assert all(p.startswith(os.path.join(root, "repo") + os.sep) for p in seen)
    # the bound of a file named alone is its own folder; of an asked folder, that folder
    assert deps.bound_of(src, src) == os.path.join(root, "repo")
    assert deps.bound_of(root, src) == root
    os.makedirs(os.path.join(root, "elsewhere"))
    assert deps.bound_of(os.path.join(root, "elsewhere"), src) == os.path.join(root, "repo")


def test_a_malformed_or_oversized_file_is_a_note_and_the_walk_goes_on(tmp_path, monkeypatch):
    root = str(tmp_path)
    write(root, "package-lock.json", "{not json")
    write(root, "yarn.lock", 'sqs-consumer@^14.0.0:\n  version "14.1.0"\n')
    big = write(root, "pnpm-lock.yaml", "x" * 100)
    src = write(root, "worker.js", "")
    monkeypatch.setattr(deps, "MAX_LOCK_BYTES", 40)
    pin, notes = deps.nearest("sqs-consumer", src, "node", root)
    assert pin is None or pin.version is None  # yarn.lock is also over the small bound
    files = {f for f, _ in notes}
    assert os.path.join(root, "package-lock.json") in files and big in files
    monkeypatch.setattr(deps, "MAX_LOCK_BYTES", 1 << 20)
    pin, notes = deps.nearest("sqs-consumer", src, "node", root)
    assert (pin.version, pin.basis) == ((14, 1, 0), "lock")
    assert [f for f, _ in notes] == [os.path.join(root, "package-lock.json")]


def test_a_lock_file_is_parsed_once_for_every_source_file_that_looks_it_up(tmp_path, monkeypatch):
    root = str(tmp_path)
    write(
        root,
        "package-lock.json",
        json.dumps({"packages": {"node_modules/sqs-consumer": {"version": "14.0.0"}}}),
    )
    calls = []
    real = deps.pin_in
    monkeypatch.setattr(deps, "pin_in", lambda *a: calls.append(a[0]) or real(*a))
    for i in range(5):
        src = write(root, f"svc{i}/worker.js", "")
        pin, _ = deps.nearest("sqs-consumer", src, "node", root)
        assert pin.version == (14, 0, 0)
    assert calls == ["package-lock.json"]
    write(
        root,
        "package-lock.json",
        json.dumps({"packages": {"node_modules/sqs-consumer": {"version": "15.0.3"}}}),
    )
    assert deps.nearest("sqs-consumer", src, "node", root)[0].version == (15, 0, 3)  # changed: read again


def test_a_symlink_to_outside_what_was_asked_is_not_followed(tmp_path):
    outside = write(
        str(tmp_path),
        "elsewhere/package-lock.json",
        json.dumps({"packages": {"node_modules/sqs-consumer": {"version": "13.0.0"}}}),
    )
    root = os.path.join(str(tmp_path), "repo")
    src = write(root, "worker.js", "")
    os.symlink(outside, os.path.join(root, "package-lock.json"))
    pin, notes = deps.nearest("sqs-consumer", src, "node", root)
    assert pin is None and [f for f, _ in notes] == [os.path.join(root, "package-lock.json")]


def test_a_pyproject_pin_is_located_at_its_requirement_not_the_project_name():
    text = '[project]\nname = "celery-reports"\ndependencies = [\n  "boto3",\n  "celery[sqs]==5.6.2",\n]\n'
    assert pin_in("pyproject.toml", text.encode(), "celery").line == 5
