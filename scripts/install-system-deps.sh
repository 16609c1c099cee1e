#!/usr/bin/env bash
# System packages the tests and demo need beyond Python and Node (installed only when missing).
set -euo pipefail
need=()
command -v java >/dev/null 2>&1 || need+=(openjdk-17-jre-headless)   # PySpark
# Headless browser for the audit report test (tests/audit/test_report.py) and the documentation site test
# (tests/docs/test_site.py): Debian's chromium.
command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ] || need+=(chromium)
# Neovim, a real LSP client for the language server's end-to-end test (tests/linter/lsp/test_lsp_neovim.py).
command -v nvim >/dev/null 2>&1 || need+=(neovim)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  else
    echo "visguard: please install: ${need[*]}" >&2; exit 1
  fi
fi
