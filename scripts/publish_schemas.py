"""Publish visguard's JSON Schemas with the documentation site: copy each source schema to ``docs/schemas/`` byte for
byte (the site serves that folder at ``SITE/schemas/``: the stable address each schema's ``$id`` names), and
write the SchemaStore catalog entry (``docs/schemas/schemastore-catalog.json``) from the configuration file names
the loader registry claims.

    python -P scripts/publish_schemas.py           # write the copies and the catalog entry
    python -P scripts/publish_schemas.py --check   # exit 1, naming them, when a published file is out of date

tests/test_schemas_published.py runs ``--check``'s comparison, so a schema changed without publishing fails the
suite. Standard library only.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PUBLISHED = ROOT / "docs" / "schemas"
# the address the documentation site serves docs/schemas/ at (mkdocs.yml's site_url + "schemas/")
BASE_URL = "https://visguard.github.io/visguard/schemas/"
SOURCES = {
    "visguard-config.schema.json": ROOT / "linter" / "schemas" / "visguard-config.schema.json",
    "scenario.schema.json": ROOT / "engine" / "schemas" / "scenario.schema.json",
}
CATALOG = "schemastore-catalog.json"
# the names the registry claims a visguard.yaml by (linter/loaders/registry.py CONFIG_NAMES), and the
# `NAME.visguard.yaml` form it also claims by name
CONFIG_NAMES = ("visguard.yaml", "visguard.yml", ".visguard.yaml", ".visguard.yml", "visguard.json")
CONFIG_GLOBS = ("*.visguard.yaml", "*.visguard.yml")


def catalog_entry() -> dict:
    """The entry to add to SchemaStore's src/api/json/catalog.json (its "schemas" list), as SchemaStore's
    contributing guide asks: name, description, fileMatch, url."""
    return {
        "name": "visguard",
        "description": "visguard configuration: Amazon SQS queues, consumer processing profiles, rule settings, "
        "severity overrides and suppressions for the visguard linter",
        "fileMatch": [*CONFIG_NAMES, *CONFIG_GLOBS],
        "url": BASE_URL + "visguard-config.schema.json",
    }


def wanted() -> dict[str, bytes]:
    out = {name: src.read_bytes() for name, src in SOURCES.items()}
    out[CATALOG] = (json.dumps(catalog_entry(), indent=2) + "\n").encode()
    return out


def stale() -> list[str]:
    """The published files that differ from what this script writes."""
    return [
        name
        for name, data in wanted().items()
        if not (PUBLISHED / name).is_file() or (PUBLISHED / name).read_bytes() != data
    ]


def main(argv: list[str]) -> int:
    if argv == ["--check"]:
        names = stale()
        for name in names:
            print(
                f"docs/schemas/{name} is out of date: run python -P scripts/publish_schemas.py",
                file=sys.stderr,
            )
        return 1 if names else 0
    if argv:
        print("usage: publish_schemas.py [--check]", file=sys.stderr)
        return 1
    PUBLISHED.mkdir(parents=True, exist_ok=True)
    for name, data in wanted().items():
        (PUBLISHED / name).write_bytes(data)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
