"""mkdocs hooks (mkdocs.yml ``hooks:``): the generated pages of scripts/docs_pages.py added at every build, and the
Rules section of the navigation filled with one entry per rule of the registry. Nothing generated is committed."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # scripts/: docs_pages (never the repository root)

import docs_pages  # noqa: E402
from mkdocs.structure.files import File  # noqa: E402


def on_config(config):
    from visguard.linter.rules import ALL_RULES

    rules = [{"All rules": "rules/index.md"}] + [
        {f"{r.id} {r.title}": f"rules/{r.id.lower()}.md"} for r in ALL_RULES.values()
    ]
    for i, entry in enumerate(config["nav"] or []):
        if isinstance(entry, dict) and "Rules" in entry:
            config["nav"][i] = {"Rules": rules}
    return config


def on_files(files, config):
    for path, text in docs_pages.pages().items():
        if files.get_file_from_path(path) is not None:  # pragma: no cover - a committed copy would drift
            raise RuntimeError(f"docs/{path} is generated at build time: remove the committed copy")
        files.append(File.generated(config, path, content=text))
    return files
