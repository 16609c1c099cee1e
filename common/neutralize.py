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
- :func:`uri` for a relative path as a URI reference (SARIF ``artifactLocation.uri``): percent-encoded UTF-8;
- :func:`scrub` removes AWS credentials from text the audit's collector keeps or shows (AWS echoes parts of a
  request in some error messages: a ``SignatureDoesNotMatch`` answer quotes the canonical request with its
  ``x-amz-security-token`` header, query-signed URLs carry ``X-Amz-Credential``/``X-Amz-Signature``), and
  :func:`safe` is :func:`scrub` then :func:`printable`.

JSON needs nothing: ``json.dumps`` escapes control characters and, with ``ensure_ascii``, everything else.
"""

from __future__ import annotations

import os


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
    import urllib.parse  # only SARIF needs it: not at CLI start

    try:
        raw = os.fsencode(path)
    except UnicodeEncodeError:
        raw = path.encode("utf-8", "surrogatepass")
    return urllib.parse.quote(raw, safe="/")


# ------------------------------------------------------------------------------------------- credentials
REDACTED = "[REDACTED]"

# The patterns are compiled (and cached by the re module) on the first scrub: the CLI's start never pays for them.
# AWS access key ids: a 4-letter type prefix and 16 more characters (IAM identifiers, "unique ID prefixes").
_KEY_ID = r"(?<![A-Za-z0-9])(?:AKIA|ASIA|AIDA|AROA|AGPA|ANPA|ANVA|APKA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{12,}"
# A named credential: the value after the name, up to the next separator. Covers the canonical request's header
# lines (``x-amz-security-token:VALUE``), query strings (``X-Amz-Security-Token=VALUE``, also percent-encoded),
# the Authorization header (``Credential=AKIA.../20260101/...``, ``Signature=hex``) and config-style text.
_NAMED = (
    r"(?i)((?:x-amz-security-token|x-amz-signature|x-amz-credential|security[-_]?token|session[-_]?token"
    r"|aws_secret_access_key|secret[-_]?access[-_]?key|aws_session_token|credential|signature"
    r"|authorization)\s*(?:[:=]|%3A|%3D)\s*)"
    r"(?:AWS4-HMAC-SHA256\s+)?[^\s&'\",;<>]+"
)
# Secret-looking strings: a long run of base64/hex characters with both letters and digits (secret access keys
# are 40 characters, session tokens hundreds). ARNs, URLs and names are broken up by ':', '-', '.', '/'.
_LONG = r"(?<![A-Za-z0-9+/=])(?=[A-Za-z0-9+/=]*[0-9])(?=[A-Za-z0-9+/=]*[A-Za-z])[A-Za-z0-9+/=]{32,}"


def scrub(text: str | None) -> str | None:
    """``text`` without anything that looks like an AWS credential (each replaced by ``[REDACTED]``)."""
    if not text:
        return text
    import re

    text = re.sub(_NAMED, lambda m: m.group(1) + REDACTED, text)
    text = re.sub(_KEY_ID, REDACTED, text)
    return re.sub(_LONG, REDACTED, text)


def safe(text: object, limit: int | None = None) -> str:
    """:func:`scrub` then :func:`printable` (and cut to ``limit`` characters after scrubbing, so a cut never
    leaves part of a credential behind)."""
    s = printable(scrub(str(text)))
    return s if limit is None or len(s) <= limit else s[: limit - 1] + "…"
