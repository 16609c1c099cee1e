import textwrap
from types import SimpleNamespace

import pytest


@pytest.fixture
def module(tmp_path):
    """Write files of a Terraform module (``{"main.tf": "...", "modules/q/main.tf": "..."}``), return its folder."""

    def _write(files: dict[str, str]) -> str:
        for name, text in files.items():
            p = tmp_path / name
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(textwrap.dedent(text), encoding="utf-8")
        return str(tmp_path)

    return _write


@pytest.fixture
def opts():
    """Loader options as the CLI passes them: --var NAME=VALUE and --var-file."""
    return lambda variables=None, var_files=(): SimpleNamespace(
        parameters={}, variables=variables or {}, var_files=tuple(var_files)
    )
