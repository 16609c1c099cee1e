"""The configuration schemas where editors find them (issue 37 §4): the copies published with the docs site equal
their sources, each ``$id`` is its published address, the SchemaStore catalog entry names the files visguard
claims, a ``$schema`` key is accepted, every documented example validates (against the schema, and in visguard),
and every documented rejected example gets exactly visguard's one-line error (docs/schemas/index.md)."""

from __future__ import annotations

import fnmatch
import importlib.util
import json
import re
from pathlib import Path

import jsonschema
import pytest
import yaml
from visguard.cli import main
from visguard.linter.loaders import registry

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("publish_schemas", ROOT / "scripts" / "publish_schemas.py")
publish = importlib.util.module_from_spec(spec)
spec.loader.exec_module(publish)

CONFIG = json.loads(publish.SOURCES["visguard-config.schema.json"].read_text())
SCENARIO = json.loads(publish.SOURCES["scenario.schema.json"].read_text())
SCENARIO_KEYS = {"queue", "workload", "consumer"}
DOCS = sorted(
    [
        ROOT / "README.md",
        ROOT / "linter" / "README.md",
        *(ROOT / "docs").rglob("*.md"),
        *(ROOT / "engine").rglob("*.md"),
    ]
)


def test_the_published_copies_are_the_sources(tmp_path, monkeypatch):
    assert publish.stale() == [], "run: python -P scripts/publish_schemas.py"
    for name, src in publish.SOURCES.items():
        assert (ROOT / "docs" / "schemas" / name).read_bytes() == src.read_bytes()
    # and --check says so when one is not
    monkeypatch.setattr(publish, "PUBLISHED", tmp_path)
    assert publish.main(["--check"]) == 1
    assert publish.main([]) == 0 and publish.main(["--check"]) == 0


@pytest.mark.parametrize("name", sorted(publish.SOURCES))
def test_each_id_is_its_published_address_and_the_schema_is_valid(name):
    schema = json.loads(publish.SOURCES[name].read_text())
    assert schema["$id"] == publish.BASE_URL + name
    assert publish.BASE_URL.startswith("https://") and publish.BASE_URL.endswith("/schemas/")
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["properties"]["$schema"]["type"] == "string"  # an editor's $schema key is allowed


def test_the_schemastore_entry_names_what_visguard_claims_as_a_configuration(tmp_path):
    entry = json.loads((ROOT / "docs" / "schemas" / publish.CATALOG).read_text())
    assert set(entry) == {"name", "description", "fileMatch", "url"}  # SchemaStore's catalog entry fields
    assert entry["url"] == CONFIG["$id"] and entry["name"] == "visguard" and entry["description"]
    assert set(registry.CONFIG_NAMES) <= set(entry["fileMatch"])
    for pattern in entry["fileMatch"]:
        name = pattern.replace("*", "orders")
        assert fnmatch.fnmatch(name, pattern)
        path = tmp_path / name
        path.write_text("version: 1\n" if not name.endswith(".json") else '{"version": 1}\n')
        assert registry.claim(str(path), explicit=False).name == "visguard-config", pattern
    # a file no fileMatch names is not claimed by its name
    other = tmp_path / "visguard-notes.yaml"
    other.write_text("title: notes\n")
    assert not any(fnmatch.fnmatch(other.name, p) for p in entry["fileMatch"])
    assert registry.claim(str(other), explicit=False) is None


def test_a_schema_key_is_accepted_and_claimed_by_content(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    doc = {"$schema": CONFIG["$id"], "version": 1, "rules": {"VG041": "info"}}
    Path("team-config.json").write_text(json.dumps(doc))  # claimed by content: every key a visguard.yaml key
    assert registry.claim("team-config.json", explicit=False).name == "visguard-config"
    Path("visguard.yaml").write_text(f"$schema: {CONFIG['$id']}\nversion: 1\n")
    assert main(["lint", "visguard.yaml", "team-config.json"]) == 0
    assert capsys.readouterr().err == ""
    scenario = yaml.safe_load((ROOT / "engine" / "examples" / "order-pipeline.yaml").read_text())
    Path("scenario.json").write_text(json.dumps({"$schema": SCENARIO["$id"], **scenario}))
    assert main(["simulate", "scenario.json", "--mode", "fast", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["mode"] == "fast"


def _blocks(text: str) -> list[tuple[str, str]]:
    """(language, body) of each fenced code block, in order."""
    return [(m.group(1), m.group(2)) for m in re.finditer(r"```(\w*)\n(.*?)```", text, re.S)]


def _documented() -> list[tuple[str, str, str]]:
    """(where, kind, text) of every example document: YAML blocks of the docs shaped as a visguard.yaml (every
    top-level key one of its keys) or as a scenario, not marked rejected; the example files."""
    out = []
    for doc in DOCS:
        for n, (lang, body) in enumerate(_blocks(doc.read_text())):
            if lang not in ("yaml", "yml") or body.startswith("# rejected"):
                continue
            try:
                data = yaml.safe_load(body)
            except yaml.YAMLError:
                continue
            if not isinstance(data, dict) or not data:
                continue
            if set(data) <= registry.CONFIG_KEYS:
                out.append((f"{doc.relative_to(ROOT)}#{n}", "config", body))
            elif set(data) >= SCENARIO_KEYS:
                out.append((f"{doc.relative_to(ROOT)}#{n}", "scenario", body))
    for path in sorted((ROOT / "examples").rglob("*visguard.yaml")):
        out.append((str(path.relative_to(ROOT)), "config", path.read_text()))
    for path in sorted((ROOT / "engine" / "examples").glob("*.yaml")):
        out.append((str(path.relative_to(ROOT)), "scenario", path.read_text()))
    return out


DOCUMENTED = _documented()


def test_the_documented_examples_are_found():
    kinds = {kind for _, kind, _ in DOCUMENTED}
    assert kinds == {"config", "scenario"}
    assert any(w.startswith("docs/schemas/index.md") for w, _, _ in DOCUMENTED)
    assert sum(1 for w, _, _ in DOCUMENTED if "README" in w) >= 2  # the README's and linter/README's


@pytest.mark.parametrize("where, kind, text", DOCUMENTED, ids=[w for w, _, _ in DOCUMENTED])
def test_every_documented_example_validates(where, kind, text, tmp_path, monkeypatch, capsys):
    schema = CONFIG if kind == "config" else SCENARIO
    errors = [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(yaml.safe_load(text))]
    assert errors == [], where
    monkeypatch.chdir(tmp_path)
    if kind == "config":
        Path("visguard.yaml").write_text(text)
        code = main(["lint", "visguard.yaml", "--fail-on", "never"])
    else:
        Path("scenario.yaml").write_text(text)
        code = main(["simulate", "scenario.yaml", "--mode", "fast"])
    assert code == 0 and capsys.readouterr().err == "", where


def _rejected() -> list[tuple[str, str, str]]:
    """(file name, document, the line visguard says) of docs/schemas/index.md's rejected examples."""
    blocks = _blocks((ROOT / "docs" / "schemas" / "index.md").read_text())
    out = []
    for (lang, body), (next_lang, said) in zip(blocks, blocks[1:], strict=False):
        if lang == "yaml" and body.startswith("# rejected: "):
            assert next_lang == "console", body
            name = body.splitlines()[0].removeprefix("# rejected: ").strip()
            out.append((name, body, said.strip()))
    return out


REJECTED = _rejected()


def test_the_rejected_examples_are_found():
    assert len(REJECTED) >= 6 and {n for n, _, _ in REJECTED} == {"visguard.yaml", "scenario.yaml"}


@pytest.mark.parametrize("name, text, says", REJECTED, ids=[s.split(": ", 2)[-1] for _, _, s in REJECTED])
def test_every_rejected_example_is_visguards_one_line(name, text, says, tmp_path, monkeypatch, capsys):
    schema = CONFIG if name == "visguard.yaml" else SCENARIO
    assert not jsonschema.Draft202012Validator(schema).is_valid(
        yaml.safe_load(text)
    )  # the editor refuses it too
    monkeypatch.chdir(tmp_path)
    Path(name).write_text(text)
    argv = ["lint", name] if name == "visguard.yaml" else ["simulate", name, "--mode", "fast"]
    assert main(argv) == 1
    captured = capsys.readouterr()
    assert captured.err.strip().splitlines() == [says]
    assert "Traceback" not in captured.err
