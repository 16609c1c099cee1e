"""End to end with a real editor: Neovim (Debian's package, headless, its built-in LSP client) starts
``visguard lsp`` on a scratch workspace, opens a template and a worker file, reads the diagnostics it received,
applies the quick fix the server offers and writes the buffer. Marked slow: it starts an editor and a server."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.linter.lsp.conftest import TEMPLATE

pytestmark = pytest.mark.slow

LUA = r"""
local out = {}
local root = vim.fn.getcwd()
local function codes(buf)
  local t = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do table.insert(t, d.code) end
  return t
end
local function has(buf, code)
  for _, c in ipairs(codes(buf)) do if c == code then return true end end
  return false
end
vim.cmd("edit " .. root .. "/worker/worker.py")
local worker = vim.api.nvim_get_current_buf()
vim.wait(60000, function() return has(worker, "VG065") end, 100)
out.worker = codes(worker)
vim.cmd("edit " .. root .. "/template.yaml")
local template = vim.api.nvim_get_current_buf()
-- an unsaved edit: the visibility drops below 6 x the function timeout
vim.api.nvim_buf_set_lines(template, 5, 6, false, { "      VisibilityTimeout: 100" })
vim.wait(60000, function() return has(template, "VG011") end, 100)
out.template = codes(template)
local line
for _, d in ipairs(vim.diagnostic.get(template)) do if d.code == "VG011" then line = d.lnum end end
local params = {
  textDocument = { uri = vim.uri_from_bufnr(template) },
  range = { start = { line = line, character = 0 }, ["end"] = { line = line, character = 0 } },
  context = { diagnostics = {} },
}
local replies = vim.lsp.buf_request_sync(template, "textDocument/codeAction", params, 60000)
out.actions = {}
for _, reply in pairs(replies or {}) do
  for _, action in ipairs(reply.result or {}) do
    table.insert(out.actions, action.title)
    if action.edit and string.sub(action.title, 1, 6) == "VG011:" and not out.applied then
      vim.lsp.util.apply_workspace_edit(action.edit, "utf-16")
      out.applied = action.title
    end
  end
end
vim.api.nvim_buf_call(template, function() vim.cmd("write! " .. root .. "/../nvim-fixed.yaml") end)
vim.fn.writefile({ vim.fn.json_encode(out) }, root .. "/../nvim-out.json")
vim.lsp.stop_client(visguard)
vim.cmd("qa!")
"""


def documented_config() -> str:
    """The Neovim configuration docs/lsp.md gives, as written there."""
    doc = (Path(__file__).resolve().parents[3] / "docs" / "lsp.md").read_text()
    block = doc.split("<!-- neovim-config -->", 1)[1].split("<!-- /neovim-config -->", 1)[0]
    return block.split("```lua", 1)[1].rsplit("```", 1)[0]


def test_neovim_receives_diagnostics_and_applies_the_fix(workspace):
    assert shutil.which("nvim"), (
        "Neovim is missing: scripts/install-system-deps.sh (make install) installs it"
    )
    script = workspace.parent / "visguard-test.lua"
    script.write_text(documented_config().replace("debounce = 0.3", "debounce = 0.05") + LUA)
    bin_dir = os.path.dirname(sys.executable)  # the documented command, `visguard lsp`, of this install
    env = dict(
        os.environ,
        PYTHONSAFEPATH="1",
        HOME=str(workspace.parent),
        XDG_STATE_HOME=str(workspace.parent),
        PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""),
    )
    proc = subprocess.run(
        ["nvim", "--headless", "--clean", "-n", "-i", "NONE", "-c", f"luafile {script}"],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    report = workspace.parent / "nvim-out.json"
    assert report.exists(), proc.stderr[-2000:]
    out = json.loads(report.read_text())
    assert "VG065" in out["worker"]  # the worker judged against the queue of infra/main.tf
    assert "VG011" in out["template"]
    assert out["applied"].startswith("VG011:")
    # what Neovim wrote after applying the action is what visguard lint --fix writes to the same text
    unsaved = TEMPLATE.replace("VisibilityTimeout: 200", "VisibilityTimeout: 100")
    scratch = workspace.parent / "cli"
    shutil.copytree(workspace, scratch)
    (scratch / "template.yaml").write_text(unsaved)
    subprocess.run(
        [sys.executable, "-P", "-m", "visguard", "lint", "--fix", "template.yaml"],
        cwd=scratch,
        capture_output=True,
        env=env,
        timeout=120,
    )
    assert (workspace.parent / "nvim-fixed.yaml").read_text() == (scratch / "template.yaml").read_text()
    assert (workspace / "template.yaml").read_text() == TEMPLATE  # the server wrote nothing
