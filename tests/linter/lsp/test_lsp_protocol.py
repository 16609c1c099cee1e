"""visguard lsp over a real stdio pipe, driven by pygls's own client: initialize, open/change/save, diagnostics
across inputs, code actions that give what --fix writes, hover with the engine's numbers, a document outside the
workspace, a crash in one request, shutdown/exit."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import subprocess
import sys

from lsprotocol import types as t
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

from tests.linter.lsp.conftest import TEMPLATE

TIMEOUT = 60


def _apply(text: str, edits: list[t.TextEdit]) -> str:
    """The text with LSP edits applied (last first, so earlier positions stay valid)."""
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for ln in lines:
        offsets.append(offsets[-1] + len(ln))

    def off(p: t.Position) -> int:
        return offsets[min(p.line, len(lines))] + p.character

    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[: off(e.range.start)] + e.new_text + text[off(e.range.end) :]
        lines = text.splitlines(keepends=True)
        offsets = [0]
        for ln in lines:
            offsets.append(offsets[-1] + len(ln))
    return text


class Session:
    def __init__(self, root):
        self.root = root
        self.client = LanguageClient("visguard-test", "1")
        self.diagnostics: dict[str, list[t.Diagnostic]] = {}
        self.logs: list[str] = []
        self.event = asyncio.Event()

        @self.client.feature(t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diag(params: t.PublishDiagnosticsParams):
            self.diagnostics[params.uri] = params.diagnostics
            self.event.set()

        @self.client.feature(t.WINDOW_LOG_MESSAGE)
        def on_log(params: t.LogMessageParams):
            self.logs.append(params.message)

    async def start(self, **options):
        env = dict(os.environ, PYTHONSAFEPATH="1")
        await self.client.start_io(sys.executable, "-P", "-m", "visguard", "lsp", env=env, cwd=str(self.root))
        await asyncio.wait_for(
            self.client.initialize_async(
                t.InitializeParams(
                    capabilities=t.ClientCapabilities(),
                    root_uri=from_fs_path(str(self.root)),
                    workspace_folders=[t.WorkspaceFolder(uri=from_fs_path(str(self.root)), name="ws")],
                    initialization_options={"debounce": 0.05, **options},
                )
            ),
            TIMEOUT,
        )
        self.client.initialized(t.InitializedParams())

    async def wait_for(self, uri: str, predicate, timeout: float = TIMEOUT):
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while not predicate(self.diagnostics.get(uri)):
            self.event.clear()
            left = end - loop.time()
            if left <= 0:
                raise AssertionError(f"no such diagnostics for {uri}: {self.diagnostics.get(uri)}")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.event.wait(), left)
        return self.diagnostics[uri]

    def open(self, path, text=None, version=1):
        text = path.read_text() if text is None else text
        lang = {"yaml": "yaml", "tf": "terraform", "py": "python"}.get(path.suffix.lstrip("."), "plaintext")
        self.client.text_document_did_open(
            t.DidOpenTextDocumentParams(
                text_document=t.TextDocumentItem(
                    uri=from_fs_path(str(path)), language_id=lang, version=version, text=text
                )
            )
        )

    def change(self, path, text, version):
        self.client.text_document_did_change(
            t.DidChangeTextDocumentParams(
                text_document=t.VersionedTextDocumentIdentifier(uri=from_fs_path(str(path)), version=version),
                content_changes=[t.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )

    async def stop(self):
        await asyncio.wait_for(self.client.shutdown_async(None), TIMEOUT)
        self.client.exit(None)
        await asyncio.wait_for(self.client.stop(), TIMEOUT)


def codes(diags) -> set[str]:
    return {str(d.code) for d in diags or []}


def test_diagnostics_quick_fix_and_hover_over_stdio(workspace):
    async def run():
        s = Session(workspace)
        await s.start()
        template, worker, tf = (
            workspace / "template.yaml",
            workspace / "worker" / "worker.py",
            workspace / "infra" / "main.tf",
        )
        t_uri, w_uri, tf_uri = (from_fs_path(str(p)) for p in (template, worker, tf))
        # the join across inputs: the worker in worker.py is judged against the queue in infra/main.tf
        s.open(worker)
        diags = await s.wait_for(w_uri, lambda d: d is not None and "VG065" in codes(d))
        d = next(x for x in diags if x.code == "VG065")
        assert d.code_description.href.endswith("/vg065/")
        assert any(r.location.uri == tf_uri for r in d.related_information)
        # the receive's 20 s below the queue's 30 s: VG060 at the receive's value, naming the queue's place
        diags = await s.wait_for(w_uri, lambda d: d is not None and "VG060" in codes(d))
        vg060 = next(x for x in diags if x.code == "VG060")
        assert any(r.location.uri == tf_uri for r in vg060.related_information)

        # an unsaved change: the template's visibility drops below 6 x the function timeout
        s.open(template)
        await s.wait_for(t_uri, lambda d: d is not None and not d)
        unsaved = TEMPLATE.replace("VisibilityTimeout: 200", "VisibilityTimeout: 100")
        s.change(template, unsaved, 2)
        diags = await s.wait_for(t_uri, lambda d: d is not None and "VG011" in codes(d))
        vg011 = next(x for x in diags if x.code == "VG011")
        line = unsaved.splitlines()[vg011.range.start.line]
        assert line[vg011.range.start.character :].strip() == "100"  # the range is the value to change
        assert template.read_text() == TEMPLATE  # nothing written

        # the quick fix applied to the editor's text is what visguard lint --fix writes to that text
        actions = await asyncio.wait_for(
            s.client.text_document_code_action_async(
                t.CodeActionParams(
                    text_document=t.TextDocumentIdentifier(uri=t_uri),
                    range=vg011.range,
                    context=t.CodeActionContext(diagnostics=[vg011]),
                )
            ),
            TIMEOUT,
        )
        fix = next(a for a in actions if a.title.startswith("VG011:") and a.edit)
        fixed = _apply(unsaved, fix.edit.changes[t_uri])
        scratch = workspace.parent / "cli-fix"
        shutil.copytree(workspace, scratch)
        (scratch / "template.yaml").write_text(unsaved)
        subprocess.run(
            [sys.executable, "-P", "-m", "visguard", "lint", "--fix", "template.yaml"],
            cwd=scratch,
            capture_output=True,
            env=dict(os.environ, PYTHONSAFEPATH="1"),
            timeout=120,
        )
        assert fixed == (scratch / "template.yaml").read_text()
        suppress = next(a for a in actions if "suppress" in a.title)
        suppressed = _apply(unsaved, suppress.edit.changes[t_uri])
        assert "rule: VG011" in suppressed and "Metadata:" in suppressed

        # hover on the visibility line: the value in effect, the function's bound, the recommendation
        h = await asyncio.wait_for(
            s.client.text_document_hover_async(
                t.HoverParams(text_document=t.TextDocumentIdentifier(uri=t_uri), position=vg011.range.start)
            ),
            TIMEOUT,
        )
        assert "100 s" in h.contents.value and "30 s" in h.contents.value and "180 s" in h.contents.value

        # the fixed text saved: the diagnostic goes away
        s.change(template, fixed, 3)
        await s.wait_for(t_uri, lambda d: d is not None and "VG011" not in codes(d))

        # a document outside the workspace is not read
        outside = workspace.parent / "outside.yaml"
        outside.write_text(TEMPLATE.replace("200", "5"))
        s.open(outside)
        await asyncio.sleep(0.5)
        assert from_fs_path(str(outside)) not in s.diagnostics

        # a document that does not parse: one diagnostic at its place, the server still serves
        s.change(template, "Resources:\n  Orders: [unclosed\n", 4)
        bad = await s.wait_for(t_uri, lambda d: d is not None and "bad-input" in codes(d))
        assert len(bad) == 1
        s.change(template, TEMPLATE, 5)
        await s.wait_for(t_uri, lambda d: d is not None and not d)
        await s.stop()

    asyncio.run(run())


def test_kept_models_are_not_changed_by_the_join(workspace):
    """The worker's join attaches it to the Terraform queue: a second and a third lint, with nothing changed,
    read no input again and give the same findings (the kept models were copied before the join)."""
    from visguard.linter.lsp.workspace import Workspace

    ws = Workspace(str(workspace))
    first = ws.lint()
    loads = ws.loads
    again = ws.lint()
    third = ws.lint()
    assert ws.loads == loads
    key = [(f.rule, f.queue, f.consumer, f.message) for f in first.findings]
    assert key == [(f.rule, f.queue, f.consumer, f.message) for f in again.findings]
    assert key == [(f.rule, f.queue, f.consumer, f.message) for f in third.findings]
    tf_queue = next(m for p, m in ws.result.models.items() if p.endswith("infra")).queues[
        "aws_sqs_queue.jobs"
    ]
    kept = next(m for (p, _), (_, m) in ws._models.items() if p.endswith("infra"))
    assert tf_queue.consumers and not kept.queues["aws_sqs_queue.jobs"].consumers


def test_queues_from_an_inventory_as_an_initialization_option(tmp_path):
    """``queuesFrom`` (as --queues-from): a worker whose queue is only deployed is judged against the inventory's
    record of it; without the option it is not joined."""
    import json

    from visguard.linter.lsp.workspace import Workspace

    url = "https://sqs.us-east-1.amazonaws.com/123456789012/orders"
    app = tmp_path / "app"
    app.mkdir()
    (app / "worker.py").write_text(
        "import boto3\nsqs = boto3.client('sqs')\n"
        f"def poll():\n    sqs.receive_message(QueueUrl={url!r}, VisibilityTimeout=20)\n"
    )
    part = tmp_path / "inv" / "123456789012" / "us-east-1.jsonl"
    part.parent.mkdir(parents=True)
    arn = "arn:aws:sqs:us-east-1:123456789012:orders"
    part.write_text(json.dumps({"kind": "queue", "account": "123456789012", "region": "us-east-1", "arn": arn,
                                "name": "orders", "url": url,
                                "attributes": {"QueueArn": arn, "VisibilityTimeout": "45"}}) + "\n")  # fmt: skip
    plain = Workspace(str(app)).lint()
    deployed = Workspace(str(app), {"queuesFrom": [str(tmp_path / "inv")]}).lint()
    assert "VG060" not in {f.rule for f in plain.findings}
    vg060 = [f for f in deployed.findings if f.rule == "VG060"]
    assert vg060 and "45" in vg060[0].message


def test_a_crash_in_one_request_is_logged_and_answered_empty(workspace):
    """A bug met while answering (here: a workspace whose lint raises) is logged to the client and the request
    answered with nothing; the next request is served."""
    import threading
    import types

    from visguard.linter.lsp import server as srv
    from visguard.linter.lsp.workspace import Workspace

    class Broken(Workspace):
        def fixes(self):
            raise RuntimeError("boom")

        def models(self):
            raise RuntimeError("boom")

    logs: list[str] = []
    ls = types.SimpleNamespace(ws=Broken(str(workspace)), _lock=threading.Lock(), log=logs.append)
    ls.ws.lint()
    uri = from_fs_path(str(workspace / "template.yaml"))
    where = t.Range(start=t.Position(line=5, character=0), end=t.Position(line=5, character=0))
    doc = t.TextDocumentIdentifier(uri=uri)
    path = str(workspace / "template.yaml")
    assert (
        srv.code_actions(
            ls,
            path,
            t.CodeActionParams(text_document=doc, range=where, context=t.CodeActionContext(diagnostics=[])),
        )
        == []
    )
    assert srv.hover_at(ls, path, t.HoverParams(text_document=doc, position=where.start)) is None
    assert len(logs) == 2 and all("boom" in x for x in logs)
    ls.ws = Workspace(str(workspace))
    ls.ws.lint()
    assert srv.hover_at(ls, path, t.HoverParams(text_document=doc, position=where.start)) is not None


HOSTILE_OPTIONS = {
    "debounce": "0.3; rm -rf /",
    "vars": "region=eu-west-1",  # a string, not a list
    "parameters": ["Env=prod", 7, "no-equals", "\x00=x", "=v"],
    "config": {"path": "visguard.yaml"},
    "queuesFrom": [None, "x" * 5000],
    "\u202eunknown\n": 1,
}


def test_hostile_initialization_options_are_each_one_line_and_left_out():
    from visguard.linter.lsp.workspace import settings_from

    settings, problems = settings_from(HOSTILE_OPTIONS)
    assert settings == {"vars": [], "parameters": ["Env=prod"], "queuesFrom": []}
    assert len(problems) == 6 and all("\n" not in p.strip("\n") or "unknown" in p for p in problems)
    assert settings_from(["not", "an", "object"])[0] == {}
    assert settings_from({"debounce": float("nan")})[0] == {}
    assert settings_from({"debounce": 1e308})[0] == {}
    assert settings_from({"debounce": True})[0] == {}


def test_the_server_serves_with_hostile_initialization_options(workspace):
    async def run():
        s = Session(workspace)
        await s.start(**HOSTILE_OPTIONS)
        worker = workspace / "worker" / "worker.py"
        s.open(worker)
        await s.wait_for(from_fs_path(str(worker)), lambda d: d is not None and "VG065" in codes(d))
        await s.stop()
        return s.logs

    logs = asyncio.run(run())
    assert sum("ignored" in line for line in logs) == 6
    assert not any("Traceback" in line for line in logs)
