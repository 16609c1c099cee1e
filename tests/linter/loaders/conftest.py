import os

import pytest

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "loaders")


@pytest.fixture
def fixture_path():
    return lambda name: os.path.join(FIXTURES, name)


@pytest.fixture
def write(tmp_path):
    """Write a document into a temporary file and return its path."""

    def _write(text: str, name: str = "template.yaml") -> str:
        p = tmp_path / name
        p.write_text(text, encoding="utf-8")
        return str(p)

    return _write
