"""A language is its query file, its module and its grammar dependency (issue 34): the query file's header says
its endings, markers and grammar, and every part of visguard that needs them reads them there."""

from __future__ import annotations

import pytest
from visguard.linter.loaders import languages, registry
from visguard.linter.loaders.code import GRAMMARS, loader

HEADERS = [
    ("; endings: .go\n; markers: ReceiveMessage\n; grammar: tree_sitter_go.language\n;\n; endings: .x\n",
     {"endings": (".go",), "markers": ("ReceiveMessage",), "grammars": {"": ("tree_sitter_go", "language", ())}}),
    ("; endings: .js .ts\n; grammar: tree_sitter_javascript.language\n"
     "; grammar typescript .ts .mts: tree_sitter_typescript.language_typescript\n(call) @x\n; endings: .y\n",
     {"endings": (".js", ".ts"), "markers": (),
      "grammars": {"": ("tree_sitter_javascript", "language", ()),
                   "typescript": ("tree_sitter_typescript", "language_typescript", (".ts", ".mts"))}}),
    ("(call) @x\n; endings: .z\n", {"endings": (), "markers": (), "grammars": {}}),
    ("; a comment: with a colon\n; endings: .q\n", {"endings": (".q",), "markers": (), "grammars": {}}),
]  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), HEADERS)
def test_header(text, expected):
    assert languages.parse_header(text) == expected


def test_every_query_file_is_a_language_of_every_part():
    """Each shipped query file's endings are offered by the folder search, claimed by the code loader with its
    markers, and its grammar is known to the parser."""
    cat = languages.catalogue()
    assert "go" in cat
    for name, head in cat.items():
        assert set(head["endings"]) <= set(registry.CODE_ENDINGS), name
        assert loader.LANGUAGES[name] == (head["endings"], tuple(m.encode() for m in head["markers"]))
        for key in head["grammars"]:
            assert (key or name) in GRAMMARS
        assert loader.module(name) is not None, f"{name}.scm has no module {name}.py"


def test_grammar_by_ending(monkeypatch):
    cat = {"javascript": languages.parse_header(HEADERS[1][0])}
    monkeypatch.setattr(languages, "_CATALOGUE", cat)
    assert languages.grammar("javascript", "src/a.ts") == "typescript"
    assert languages.grammar("javascript", "src/a.js") == "javascript"
    assert languages.grammars() == {
        "javascript": ("tree_sitter_javascript", "language"),
        "typescript": ("tree_sitter_typescript", "language_typescript"),
    }


def test_each_query_file_splits_into_its_patterns():
    """The sites, the names and the value flow's calls of a query file are compiled apart (compiling costs);
    together they are every pattern of the file, with every capture."""
    import tree_sitter
    from visguard.linter.loaders.code import engine, loader, parser

    for name in languages.catalogue():
        with open(f"{languages.FOLDER}/{name}.scm", encoding="utf-8") as f:
            source = f.read()
        lang = next(v for v in vars(loader.module(name)).values() if isinstance(v, engine.Language))
        whole = tree_sitter.Query(parser(lang.grammar).language, source)
        sites, names, flow = engine.query(lang), engine.query(lang, "names"), engine.query(lang, "flow")
        assert sites.pattern_count + names.pattern_count + flow.pattern_count == whole.pattern_count, name

        def captures(q):
            return {q.capture_name(i) for i in range(q.capture_count)}

        assert captures(sites) | captures(names) | captures(flow) == captures(whole), name
        assert not any(c.startswith("flow.") for c in captures(sites) | captures(names)), name
        assert not any(c.startswith("bind.") for c in captures(sites)), name


@pytest.mark.parametrize(
    ("source", "parts"),
    [
        (
            "(a) @x\n; (not) a pattern\n(b (c) @y)* @z\n[(d) (e)] @w",
            ["(a) @x", "(b (c) @y)* @z", "[(d) (e)] @w"],
        ),
        ('((call) @c (#eq? @c "(")) ; ")"\n(x)', ['((call) @c (#eq? @c "("))', "(x)"]),
        (r'(s (#match? @s "\"(")) (t)', [r'(s (#match? @s "\"("))', "(t)"]),
    ],
)
def test_split_patterns(source, parts):
    from visguard.linter.loaders.code import engine

    assert engine.split_patterns(source) == parts
