"""``visguard lsp``: visguard in the editor, a Language Server Protocol server over stdio (issue 38).

Diagnostics, quick fixes (the fix plan's edits) and hover (the engine's numbers) for every input kind
``visguard lint`` reads, with the same join across the workspace. Needs the ``lsp`` extra (pygls, lsprotocol);
``visguard lint`` never imports this package.

- ``workspace``: open documents over the files on disk, the kept inputs and models, one lint (no protocol types);
- ``editor``: diagnostics, code actions, suppressions and hover as plain data;
- ``server``: the pygls edge.
"""

from __future__ import annotations


def main(argv: list[str], prog: str = "visguard lsp") -> int:
    import argparse

    p = argparse.ArgumentParser(
        prog=prog,
        description="Run visguard's language server on stdin/stdout (an editor starts it). Settings come from "
        "the client's initialization options: config, vars, parameters, debounce.",
    )
    p.add_argument(
        "--stdio", action="store_true", help="talk over stdin/stdout (the default and only transport)"
    )
    try:
        p.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    from visguard.errors import need

    need("pygls", extra="lsp", what="visguard lsp")
    from visguard.linter.lsp.server import serve

    return serve()
