"""``visguard lsp``: the Language Server Protocol edge (pygls over stdio). Everything it says comes from
:mod:`visguard.linter.lsp.editor` over a :class:`~visguard.linter.lsp.workspace.Workspace`; this module only
turns it into protocol types and schedules the lints.

- Diagnostics on open, on save, and on change after a pause (``debounce`` seconds, 0.3 by default), for every
  document of the workspace the lint has something to say about; a document whose findings are gone gets an
  empty list.
- Code actions: the fix plan's edits (``quickfix``), exactly what ``visguard lint --fix`` writes; a refused fix
  is a disabled action with the reason; "suppress with a reason" in the input's own syntax.
- Hover: the visibility in effect, the consumers' processing bounds and the engine's estimate.
- Settings from the client's initialization options: ``config``, ``vars`` and ``parameters`` (lists of
  ``NAME=VALUE``, as ``--var`` and ``--parameter``), ``debounce``.
- A request that fails is logged to the client (``window/logMessage``) and answered empty; the server keeps
  serving. A document outside the workspace is neither read nor linted.
"""

from __future__ import annotations

import os
import threading
import traceback

from lsprotocol import types as t
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path
from visguard.linter.lsp import editor
from visguard.linter.lsp.workspace import Workspace, settings_from


class VisguardServer(LanguageServer):
    def __init__(self):
        from visguard import __version__

        super().__init__("visguard", __version__, text_document_sync_kind=t.TextDocumentSyncKind.Full)
        self.ws: Workspace | None = None
        self.debounce = 0.3
        self._lock = threading.Lock()  # one lint at a time (the overlay of unsaved texts is process-wide)
        self._timer: threading.Timer | None = None
        self._published: set[str] = set()

    # -- scheduling ---------------------------------------------------------------------------------------------
    def log(self, text: str, kind=t.MessageType.Error) -> None:
        self.window_log_message(t.LogMessageParams(type=kind, message=text))

    def relint(self, delay: float = 0.0) -> None:
        if self._timer is not None:
            self._timer.cancel()
        if delay <= 0:
            self._lint_and_publish()
            return
        self._timer = threading.Timer(delay, self._lint_and_publish)
        self._timer.daemon = True
        self._timer.start()

    def _lint_and_publish(self) -> None:
        if self.ws is None:
            return
        try:
            with self._lock:
                result = self.ws.lint()
                paths = {os.path.realpath(f.location.file) for f in result.findings}
                paths |= {os.path.realpath(e.file) for e in result.errors if getattr(e, "file", None)}
                paths |= set(self.ws.open)
                paths = {p for p in paths if self.ws.contains(p)}
                for path in sorted(paths | self._published):
                    diags = (
                        [_diagnostic(d) for d in editor.diagnostics(self.ws, path)] if path in paths else []
                    )
                    self.text_document_publish_diagnostics(
                        t.PublishDiagnosticsParams(uri=from_fs_path(path), diagnostics=diags)
                    )
                self._published = paths
        except Exception:  # a bug in visguard: logged, the server keeps serving
            self.log("visguard: lint failed: " + traceback.format_exc(limit=8))


def _range(r) -> t.Range:
    return t.Range(start=t.Position(line=r[0], character=r[1]), end=t.Position(line=r[2], character=r[3]))


def _diagnostic(d: dict) -> t.Diagnostic:
    related = [
        t.DiagnosticRelatedInformation(
            location=t.Location(
                uri=from_fs_path(os.path.abspath(r["file"])), range=_range((r["line"], 0, r["line"], 0))
            ),
            message=r["message"],
        )
        for r in d["related"]
    ]
    return t.Diagnostic(
        range=_range(d["range"]),
        severity=t.DiagnosticSeverity(d["severity"]),
        code=d["code"],
        code_description=t.CodeDescription(href=d["href"]) if d["href"] else None,
        source="visguard",
        message=d["message"],
        related_information=related or None,
    )


def _edit(uri: str, edits) -> t.WorkspaceEdit:
    return t.WorkspaceEdit(changes={uri: [t.TextEdit(range=_range(e[:4]), new_text=e[4]) for e in edits]})


def build() -> VisguardServer:
    server = VisguardServer()

    def path_of(uri: str) -> str | None:
        p = to_fs_path(uri)
        return p if p and server.ws is not None and server.ws.contains(p) else None

    @server.feature(t.INITIALIZE)
    def initialize(ls: VisguardServer, params: t.InitializeParams):
        root = None
        if params.workspace_folders:
            root = to_fs_path(params.workspace_folders[0].uri)
        elif params.root_uri:
            root = to_fs_path(params.root_uri)
        settings, problems = settings_from(params.initialization_options)
        ls.debounce = settings.get("debounce", ls.debounce)
        ls.ws = Workspace(root or os.getcwd(), settings)
        for line in problems:
            ls.log(f"visguard: {line}", t.MessageType.Warning)

    @server.feature(t.INITIALIZED)
    def initialized(ls: VisguardServer, params):
        ls.relint()

    @server.feature(t.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: VisguardServer, params: t.DidOpenTextDocumentParams):
        path = path_of(params.text_document.uri)
        if path is not None:
            ls.ws.set_text(path, params.text_document.text)
            ls.relint()

    @server.feature(t.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: VisguardServer, params: t.DidChangeTextDocumentParams):
        path = path_of(params.text_document.uri)
        if path is not None and params.content_changes:
            ls.ws.set_text(path, params.content_changes[-1].text)  # full sync: the last change is the text
            ls.relint(ls.debounce)

    @server.feature(t.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: VisguardServer, params: t.DidSaveTextDocumentParams):
        path = path_of(params.text_document.uri)
        if path is not None:
            ls.relint()

    @server.feature(t.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: VisguardServer, params: t.DidCloseTextDocumentParams):
        path = path_of(params.text_document.uri)
        if path is not None:
            ls.ws.set_text(path, None)
            ls.relint()

    @server.feature(t.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched(ls: VisguardServer, params):
        if ls.ws is not None:
            ls.ws.invalidate()
            ls.relint(ls.debounce)

    @server.feature(
        t.TEXT_DOCUMENT_CODE_ACTION,
        t.CodeActionOptions(code_action_kinds=[t.CodeActionKind.QuickFix]),
    )
    def code_action(ls: VisguardServer, params: t.CodeActionParams):
        path = path_of(params.text_document.uri)
        return [] if path is None else code_actions(ls, path, params)

    @server.feature(t.TEXT_DOCUMENT_HOVER)
    def hover(ls: VisguardServer, params: t.HoverParams):
        path = path_of(params.text_document.uri)
        return None if path is None else hover_at(ls, path, params)

    return server


def code_actions(ls, path: str, params: t.CodeActionParams) -> list[t.CodeAction]:
    """The quick fixes and suppressions of the findings on the lines of ``params.range``; a failure is logged to
    the client and answered with none."""
    try:
        with ls._lock:
            lo, hi = params.range.start.line, params.range.end.line
            uri = params.text_document.uri
            out = []
            for a in editor.quick_fixes(ls.ws, path):
                f = a["finding"]
                if f is not None and not (lo <= (int(f.location.line or 1) - 1) <= hi):
                    continue
                action = t.CodeAction(title=a["title"], kind=t.CodeActionKind.QuickFix)
                if a.get("disabled"):
                    action.disabled = t.CodeActionDisabled(reason=a["disabled"])
                else:
                    action.edit = _edit(uri, a["edits"])
                out.append(action)
            for f in ls.ws.findings_in(path):
                if lo <= (int(f.location.line or 1) - 1) <= hi:
                    s = editor.suppression(ls.ws, path, f)
                    if s is not None:
                        out.append(
                            t.CodeAction(
                                title=s["title"], kind=t.CodeActionKind.QuickFix, edit=_edit(uri, s["edits"])
                            )
                        )
            return out
    except Exception:
        ls.log("visguard: code actions failed: " + traceback.format_exc(limit=8))
        return []


def hover_at(ls, path: str, params: t.HoverParams) -> t.Hover | None:
    """The hover of the line under the cursor; a failure is logged to the client and answered with none."""
    try:
        with ls._lock:
            text = editor.hover(ls.ws, path, params.position.line)
    except Exception:
        ls.log("visguard: hover failed: " + traceback.format_exc(limit=8))
        return None
    if not text:
        return None
    return t.Hover(contents=t.MarkupContent(kind=t.MarkupKind.Markdown, value=text))


def serve() -> int:
    build().start_io()
    return 0
