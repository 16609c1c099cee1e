"""Text that came from outside (AWS error messages, queue names, tags, inventory lines) made safe to keep and to
show: pure functions, no I/O.

- :func:`scrub` removes credentials. AWS echoes parts of a request in some error messages: a
  ``SignatureDoesNotMatch`` answer quotes the canonical request, which holds the ``x-amz-security-token``
  header, and query-signed URLs carry ``X-Amz-Credential``/``X-Amz-Signature``. Whatever the collector records
  or prints goes through it first, so not even a part of a credential lands in an inventory, a summary or a
  terminal.
- :func:`printable` is :func:`visguard.neutralize.printable` (the one neutraliser of every door): control
  characters shown escaped (``\\x1b``, ``\\x0a``) so a hostile name or error text cannot move the cursor,
  retitle a terminal or forge a second line: one error = one line.
"""

from __future__ import annotations

import re

from visguard.neutralize import printable

__all__ = ["REDACTED", "printable", "safe", "scrub"]

REDACTED = "[REDACTED]"

# AWS access key ids: a 4-letter type prefix and 16 more characters (IAM identifiers, "unique ID prefixes").
_KEY_ID = re.compile(
    r"(?<![A-Za-z0-9])(?:AKIA|ASIA|AIDA|AROA|AGPA|ANPA|ANVA|APKA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{12,}"
)
# A named credential: the value after the name, up to the next separator. Covers the canonical request's header
# lines (``x-amz-security-token:VALUE``), query strings (``X-Amz-Security-Token=VALUE``, also percent-encoded),
# the Authorization header (``Credential=AKIA.../20260101/...``, ``Signature=hex``) and config-style text.
_NAMED = re.compile(
    r"(?i)((?:x-amz-security-token|x-amz-signature|x-amz-credential|security[-_]?token|session[-_]?token"
    r"|aws_secret_access_key|secret[-_]?access[-_]?key|aws_session_token|credential|signature"
    r"|authorization)\s*(?:[:=]|%3A|%3D)\s*)"
    r"(?:AWS4-HMAC-SHA256\s+)?[^\s&'\",;<>]+"
)
# Secret-looking strings: a long run of base64/hex characters with both letters and digits (secret access keys
# are 40 characters, session tokens hundreds). ARNs, URLs and names are broken up by ':', '-', '.', '/'.
_LONG = re.compile(
    r"(?<![A-Za-z0-9+/=])(?=[A-Za-z0-9+/=]*[0-9])(?=[A-Za-z0-9+/=]*[A-Za-z])[A-Za-z0-9+/=]{32,}"
)


def scrub(text: str | None) -> str | None:
    """``text`` without anything that looks like an AWS credential (each replaced by ``[REDACTED]``)."""
    if not text:
        return text
    text = _NAMED.sub(lambda m: m.group(1) + REDACTED, text)
    text = _KEY_ID.sub(REDACTED, text)
    return _LONG.sub(REDACTED, text)


def safe(text: object, limit: int | None = None) -> str:
    """:func:`scrub` then :func:`printable` (and cut to ``limit`` characters after scrubbing, so a cut never
    leaves part of a credential behind)."""
    s = printable(scrub(str(text)))
    return s if limit is None or len(s) <= limit else s[: limit - 1] + "…"
