"""Make a value that came from input safe for the output it goes to (docs/security.md, "Output").

Logical ids, queue names, tags, file names and error texts come from templates, assemblies, inventories and
the file system: anyone who can open a pull request chooses them. Written raw they can retitle or clear a
terminal (OSC/CSI escapes), forge a report line (a newline), hide text (bidirectional overrides, Trojan
Source), break a JUnit file (XML 1.0 forbids most control characters) or a SARIF URI. Each output calls one
of these:

- :func:`printable` for text on a terminal or in a text report: every character that is not printable
  (control characters, DEL, C1, bidi and zero-width formatting, line/paragraph separators, lone surrogates)
  is shown escaped (``\\x1b``, ``\\u202e``), so one value is always one visible line;
- :func:`xml_text` for XML 1.0 attribute and text values (the same escapes; newlines and tabs kept);
- :func:`uri` for a relative path as a URI reference (SARIF ``artifactLocation.uri``): percent-encoded UTF-8.

JSON needs nothing: ``json.dumps`` escapes control characters and, with ``ensure_ascii``, everything else.
"""

from __future__ import annotations

import os
import urllib.parse


def _escape(ch: str) -> str:
    n = ord(ch)
    if n <= 0xFF:
        return f"\\x{n:02x}"
    if n <= 0xFFFF:
        return f"\\u{n:04x}"
    return f"\\U{n:08x}"


def printable(value: object) -> str:
    """``value`` as one visible line: every non-printable character escaped (``\\n`` -> ``\\x0a``)."""
    s = value if isinstance(value, str) else str(value)
    if s.isprintable():
        return s
    return "".join(ch if ch.isprintable() else _escape(ch) for ch in s)


def _xml_ok(ch: str) -> bool:
    """Kept as is in XML text: printable characters, tab and newline. Everything else is escaped: what XML 1.0
    forbids (C0 controls, lone surrogates, U+FFFE/FFFF) and what it allows but a terminal or a viewer acts
    on (\\r, DEL, C1, bidi overrides, line separators)."""
    return ch.isprintable() or ch in "\t\n"


def xml_text(value: object) -> str:
    """``value`` safe as an XML 1.0 attribute or text value (escaped as :func:`printable` does, newlines kept)."""
    s = value if isinstance(value, str) else str(value)
    if s.isprintable():
        return s
    return "".join(ch if _xml_ok(ch) else _escape(ch) for ch in s)


def uri(path: str) -> str:
    """A relative file path as a URI reference: ``/`` kept, everything else outside RFC 3986's unreserved
    set percent-encoded from the file name's bytes (a non-UTF-8 name keeps its own bytes)."""
    try:
        raw = os.fsencode(path)
    except UnicodeEncodeError:
        raw = path.encode("utf-8", "surrogatepass")
    return urllib.parse.quote(raw, safe="/")
