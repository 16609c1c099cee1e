"""``make demo-lsp``: an editor session with ``visguard lsp``, scripted with pygls's client over stdio.

Opens each FILE of the workspace ROOT as an editor would, prints the diagnostics the server publishes for it,
the hover on the first one's line and the quick fixes it offers there, and writes the whole session as JSON to
OUT. Nothing in ROOT is written.

    python -P scripts/lsp_session.py ROOT OUT FILE...
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

from lsprotocol import types as t
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

TIMEOUT = 60


async def session(root: Path, files: list[Path]) -> list[dict]:
    client = LanguageClient("visguard-demo", "1")
    published: dict[str, list[t.Diagnostic]] = {}
    event = asyncio.Event()

    @client.feature(t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: t.PublishDiagnosticsParams):
        published[params.uri] = params.diagnostics
        event.set()

    env = dict(os.environ, PYTHONSAFEPATH="1")
    await client.start_io(sys.executable, "-P", "-m", "visguard", "lsp", env=env, cwd=str(root))
    folder = t.WorkspaceFolder(uri=from_fs_path(str(root)), name=root.name)
    await asyncio.wait_for(
        client.initialize_async(
            t.InitializeParams(capabilities=t.ClientCapabilities(), workspace_folders=[folder])
        ),
        TIMEOUT,
    )
    client.initialized(t.InitializedParams())
    out = []
    for path in files:
        uri = from_fs_path(str(path))
        client.text_document_did_open(
            t.DidOpenTextDocumentParams(
                text_document=t.TextDocumentItem(
                    uri=uri, language_id="plaintext", version=1, text=path.read_text()
                )
            )
        )
        loop = asyncio.get_running_loop()
        end = loop.time() + TIMEOUT
        while uri not in published and loop.time() < end:
            event.clear()
            try:
                await asyncio.wait_for(event.wait(), end - loop.time())
            except TimeoutError:
                break
        diags = published.get(uri, [])
        entry: dict = {"file": str(path.relative_to(root)), "diagnostics": []}
        for d in diags:
            entry["diagnostics"].append(
                {"line": d.range.start.line + 1, "code": d.code, "message": d.message}
            )
            print(f"{entry['file']}:{d.range.start.line + 1}: {d.code} {d.message[:110]}")
        if diags:
            doc = t.TextDocumentIdentifier(uri=uri)
            hover = await client.text_document_hover_async(
                t.HoverParams(text_document=doc, position=diags[0].range.start)
            )
            actions = await client.text_document_code_action_async(
                t.CodeActionParams(
                    text_document=doc, range=diags[0].range, context=t.CodeActionContext(diagnostics=[])
                )
            )
            entry["hover"] = hover.contents.value if hover else None
            entry["actions"] = [a.title for a in actions or []]
            if hover:
                print("  hover: " + hover.contents.value.replace("\n", "\n         "))
            for a in entry["actions"]:
                print(f"  quick fix: {a}")
        out.append(entry)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return out


def main(argv: list[str]) -> int:
    root, target, files = Path(argv[0]).resolve(), Path(argv[1]), [Path(a).resolve() for a in argv[2:]]
    result = asyncio.run(session(root, files))
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(result, indent=2) + "\n")
    return 0 if any(e["diagnostics"] for e in result) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
