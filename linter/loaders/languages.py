"""The programming languages the code input kind reads, from the headers of their query files.

A language is its query file ``code/languages/<name>.scm`` (the *where*, read by the code engine), its module
``code/<name>.py`` (the ``Language`` entry: node kinds by role, and what a query cannot say) and its grammar
dependency in ``pyproject.toml``. The query file's first comment lines say what the rest of visguard needs to know
before anything is parsed or imported::

    ; endings: .go                      file endings (or names) of the language's files
    ; markers: ReceiveMessage           bytes one of which a file's head must hold to be parsed
    ; grammar: tree_sitter_go.language  the grammar's module and the function returning its language pointer
    ; grammar typescript .ts .mts: tree_sitter_typescript.language_typescript   another grammar (its key, the
                                        endings it reads) for some of the language's files

This module reads only those lines (no tree-sitter, nothing of the code package is imported: a
CloudFormation-only run stays as light as before), once per process.
"""

from __future__ import annotations

import os

FOLDER = os.path.join(os.path.dirname(__file__), "code", "languages")
HEADER_BYTES = 4096
_CATALOGUE: dict[str, dict] | None = None


def parse_header(text: str) -> dict:
    """``{"endings": (...), "markers": (...), "grammars": {key or "": (module, function, endings)}}`` of a
    query file's leading comment lines (a blank ``;`` line or the first line that is not a comment ends the header)."""
    out: dict = {"endings": (), "markers": (), "grammars": {}}
    for raw in text.splitlines():
        line = raw.strip()
        if not line.startswith(";") or line == ";":  # the header ends at a blank comment line or the query
            break
        key, colon, value = line.lstrip("; ").partition(":")
        if not colon:
            continue
        words = key.split()
        if words[:1] == ["endings"]:
            out["endings"] = tuple(value.split())
        elif words[:1] == ["markers"]:
            out["markers"] = tuple(value.split())
        elif words[:1] == ["grammar"] and "." in value.strip():
            module, _, fn = value.strip().rpartition(".")
            key = words[1] if len(words) > 1 else ""
            out["grammars"][key] = (module, fn, tuple(words[2:]))
    return out


def catalogue() -> dict[str, dict]:
    """language (the query file's stem, also its module's name) -> its header (:func:`parse_header`); only
    languages whose header names endings and a grammar."""
    global _CATALOGUE
    if _CATALOGUE is None:
        found: dict[str, dict] = {}
        try:
            names = sorted(os.listdir(FOLDER))
        except OSError:
            names = []
        for name in names:
            if not name.endswith(".scm"):
                continue
            with open(os.path.join(FOLDER, name), encoding="utf-8") as f:
                head = parse_header(f.read(HEADER_BYTES))
            if head["endings"] and "" in head["grammars"]:
                found[name[: -len(".scm")]] = head
        _CATALOGUE = found
    return _CATALOGUE


def endings() -> tuple[str, ...]:
    return tuple(e for head in catalogue().values() for e in head["endings"])


def grammar(language: str, path: str = "") -> str:
    """The grammar key (a key of :func:`grammars`) for a file of ``language``: the one its header names for the
    file's ending, else the language's own."""
    head = catalogue().get(language)
    if head is not None:
        for key, (_, _, ends) in head["grammars"].items():
            if key and path.endswith(ends):
                return key
    return language


def grammars() -> dict[str, tuple[str, str]]:
    """Every grammar key -> (module, function)."""
    out = {}
    for language, head in catalogue().items():
        for key, (module, fn, _) in head["grammars"].items():
            out[key or language] = (module, fn)
    return out
