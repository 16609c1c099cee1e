"""Serverless Framework variables in serverless.yml: ``${source:address, fallback, ...}``.

What is resolved (Serverless Framework docs, "Variables", https://www.serverless.com/framework/docs/guides/variables
and the pages it links: self, core, env-vars, cli-options, file, parameters):

- ``${self:a.b.0}`` another value of the same service (itself resolved, to any depth);
- ``${opt:name}`` a CLI option: ``visguard lint --var name=VALUE`` (``--var opt:name=VALUE`` too);
- ``${sls:stage}``: ``${opt:stage, self:provider.stage, 'dev'}`` (docs, "core"); ``${aws:region}``:
  ``--var region``, ``provider.region``, else ``us-east-1``;
- ``${env:NAME}``: only a value passed with ``--var env:NAME=VALUE``. visguard never reads its own process
  environment: in CI it holds credentials and tokens, and a value read from it could end up in a finding
  message, a SARIF file uploaded to code scanning, or a log. A missing value takes the written default, as
  Serverless does when the variable is unset;
- ``${param:name}``: ``--var param:name=VALUE``, else ``stages.<stage>.params.name``, else
  ``stages.default.params.name``;
- ``${file(./x.yml):a.b}``: a YAML/JSON file of the service folder (after resolving symlinks: a path that
  leaves the folder is not read), its own variables resolved in the context of serverless.yml;
- ``${strToBool(x)}``; ``${construct:id.queueArn}`` (Lift) through a callback of the loader;
- fallbacks: ``${opt:stage, 'dev'}``, ``${env:X, self:custom.x, 30}``; nested variables in addresses and
  fallbacks (``${file(./config.${sls:stage}.yml):timeout}``).

Sources only AWS or another tool knows at deploy time (``ssm``, ``cf``, ``s3``, ``aws:accountId``, ``output``,
``terraform``, ``vault``, JavaScript files ...) become :class:`Unresolved` with the reason: never guessed,
even when a fallback is written (the fallback applies only when the source has no value, which cannot be
known here). Circular references are bad input; nesting depth, expanded size and string length are bounded.
"""

from __future__ import annotations

import os
import re

from visguard.errors import VisguardError
from visguard.linter.model import Location
from visguard.records import REQUIRED, Record, Value, fresh

from .decode import PosDict, loads

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time (start-up)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

MAX_DEPTH = 64  # variables resolving through variables
MAX_NODES = 1_000_000  # mappings, lists and strings created while resolving
MAX_STRING = 1_000_000  # characters of one interpolated string
MAX_FILES = 100  # ${file(...)} documents read per service

# a Serverless variable starts with a source and one colon (``self:``, ``aws:ssm:``) or a function call
# (``file(...)``, ``strToBool(...)``); ``${AWS::Region}`` and ``${Queue.Arn}`` are CloudFormation Fn::Sub
# variables and are left alone, as Serverless does.
_SOURCE = re.compile(r"\s*(?:[A-Za-z][\w-]*\(|[A-Za-z][\w-]*:(?!:))")
_REF = re.compile(r"^([A-Za-z][\w-]*)(?:\((.*)\))?(?::(.*))?$", re.S)
_NUMBER = re.compile(r"^-?\d+(\.\d+)?$")
# sources that only AWS or another service can answer
_REMOTE = {
    "ssm": "an SSM parameter",
    "cf": "a CloudFormation stack output",
    "s3": "an S3 object",
    "output": "a Serverless Dashboard output",
    "terraform": "Terraform state",
    "vault": "HashiCorp Vault",
    "doppler": "Doppler",
    "git": "the git repository at deploy time",
    "sls": "the Serverless CLI",
}


class Node(PosDict):
    """A resolved mapping: where it was written (file, line, column) and its address in the service
    (``functions.worker``); ``key_addr`` overrides the address of single keys (generated resources)."""

    __slots__ = ("file", "addr", "key_addr", "key_file")

    def __init__(self, *args, file: str | None = None, addr: str | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.file = file
        self.addr = addr
        self.key_addr: dict[Any, str] = {}
        self.key_file: dict[Any, str] = {}


class Unresolved(Value):
    """A value that cannot be known here; ``text`` is the variable as written."""

    # quiet: known to be irrelevant for the rules (an account id inside an ARN)
    __slots__ = {"text": REQUIRED, "why": REQUIRED, "quiet": False}

    def __str__(self) -> str:
        return self.text


class Partial(Value):
    """A string whose parts are partly :class:`Unresolved` (``arn:aws:sqs:us-east-1:${aws:accountId}:q``)."""

    __slots__ = ("parts",)

    def __str__(self) -> str:
        return "".join(str(p) for p in self.parts)


MISSING = object()  # the source has no value: the next fallback applies


class Note(Record):
    """A value that stays unknown: the variable as written, why, and where it is used (``location.path`` is
    the serverless address). Same shape as the Terraform loader's notes: ``message`` and ``location``."""

    __slots__ = ("text", "why", "location")

    @property
    def message(self) -> str:
        return self.why if self.why.startswith(self.text) else f"{self.text}: {self.why}"


class Values(Record):
    """What the user passed: CLI options, environment values, parameters (never the real environment)."""

    __slots__ = {"opt": fresh(dict), "env": fresh(dict), "param": fresh(dict)}


def addr_of(path: list | tuple) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


def parse_address(address: str) -> list:
    """``custom.queues.0.timeout`` -> ["custom", "queues", 0, "timeout"] (empty: the whole document)."""
    return [int(p) if p.isdigit() else p for p in address.strip().split(".") if p != ""]


def split_variables(s: str) -> list:
    """A string -> literal chunks and ``("var", inner)`` for each top-level ``${...}`` Serverless variable."""
    out: list = []
    i, n, start = 0, len(s), 0
    while True:
        j = s.find("${", i)
        if j < 0:
            break
        depth, k = 0, j
        while k < n:
            if s.startswith("${", k):
                depth += 1
                k += 2
                continue
            if s[k] == "}":
                depth -= 1
                if depth == 0:
                    break
            k += 1
        if k >= n:  # unbalanced: not a variable
            break
        inner = s[j + 2 : k]
        if _SOURCE.match(inner):
            if j > start:
                out.append(s[start:j])
            out.append(("var", inner))
            start = k + 1
        i = k + 1
    if start < n:
        out.append(s[start:])
    return out


def has_variables(s: str) -> bool:
    return "${" in s and any(isinstance(p, tuple) for p in split_variables(s))


def _split_top(inner: str, sep: str = ",") -> list[str]:
    """Split at ``sep`` outside ``${}``, ``()`` and quotes."""
    parts, depth, quote, cur = [], 0, None, []
    i = 0
    while i < len(inner):
        ch = inner[i]
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif inner.startswith("${", i):
            depth += 1
            cur.append("${")
            i += 2
            continue
        elif ch == "(":
            depth += 1
        elif ch in ")}":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
            i += 1
            continue
        cur.append(ch)
        i += 1
    parts.append("".join(cur))
    return [p.strip() for p in parts]


class VarResolver:
    """Resolves the variables of one service document, lazily and by address, with memoization."""

    def __init__(
        self,
        root: dict,
        *,
        file: str,
        service_dir: str,
        read: Callable[[str], str],
        values: Values | None = None,
        construct_ref: Callable[[str, str], Any] | None = None,
    ):
        self.root = root
        self.file = file
        self.service_dir = os.path.realpath(service_dir)
        self.read = read
        self.values = values or Values()
        self.construct_ref = construct_ref
        self.notes: dict[tuple[str, str], Note] = {}
        self._file_of: dict[int, str] = {}  # id(mapping of an included document) -> its file
        self._docs: dict[str, Any] = {}  # realpath -> decoded document (or an Unresolved)
        self._memo: dict[tuple, Any] = {}
        self._active: list[tuple] = []  # (address, string) being resolved (cycle detection)
        self._nodes = 0
        self._stage: Any = None
        self._including: list[str] = []  # files whose values are being resolved (include cycles)

    # ------------------------------------------------------------------ errors, notes
    def file_of(self, node: Any) -> str:
        """The file a mapping was read from."""
        return getattr(node, "file", None) or self._file_of.get(id(node), self.file)

    def error(self, message: str, path: list | tuple) -> VisguardError:
        from .decode import locate

        line, _ = locate(self.root, list(path))
        return VisguardError(f"{addr_of(path)}: {message}", file=self.file, place=line and str(line))

    def note(self, u: Unresolved, path: list | tuple) -> None:
        """Remember an unresolved value at the place it is used (once per variable and address)."""
        if u.quiet:
            return
        from .decode import locate

        key = (u.text, addr_of(path))
        if key not in self.notes:
            line, col = locate(self.root, list(path))
            self.notes[key] = Note(u.text, u.why, Location(self.file, line, col, path=addr_of(path)))

    def _count(self, n: int = 1) -> None:
        self._nodes += n
        if self._nodes > MAX_NODES:
            raise VisguardError(f"variables expand to more than {MAX_NODES:,} values", file=self.file)

    # ------------------------------------------------------------------ public API
    @property
    def stage(self) -> Any:
        """``${sls:stage}``: --var stage, else provider.stage, else "dev"."""
        if self._stage is None:
            if "stage" in self.values.opt:
                self._stage = self.values.opt["stage"]
            else:
                v = self.get(["provider", "stage"])
                self._stage = "dev" if v is MISSING or v is None else v
        return self._stage

    def get(self, path: list | tuple, *, shallow: bool = False) -> Any:
        """The value at ``path`` of the service (variables resolved), or MISSING."""
        key = (tuple(path), shallow)
        if key in self._memo:
            return self._memo[key]
        node: Any = self.root
        walked: list = []
        for p in path:
            node = self.shallow(node, walked)
            if _has(node, p):
                node = node[p]
            elif isinstance(node, (Unresolved, Partial)):
                return node if isinstance(node, Unresolved) else Unresolved(str(node), "not known here")
            else:
                return MISSING
            walked.append(p)
        out = self.shallow(node, walked) if shallow else self.resolve(node, walked)
        self._memo[key] = out
        return out

    def shallow(self, node: Any, path: list | tuple) -> Any:
        """``node`` with its own variables resolved when it is a string (mappings and lists as they are)."""
        while isinstance(node, str) and "${" in node:
            new = self.interpolate(node, path)
            if new is node or not isinstance(new, str) or new == node:
                return new
            node = new
        return node

    def resolve(self, node: Any, path: list | tuple, file: str | None = None) -> Any:
        """``node`` with every variable inside resolved; mappings become :class:`Node` copies."""
        if isinstance(node, str):
            return self.interpolate(node, path) if "${" in node else node
        if isinstance(node, dict):
            self._count()
            f = file or self.file_of(node)
            out = Node(file=f, addr=addr_of(path))
            if isinstance(node, PosDict):
                out.line, out.col = node.line, node.col
                out.key_pos = dict(node.key_pos)
            for k, v in node.items():
                out[k] = self.resolve(v, [*path, k], f)
            return out
        if isinstance(node, list):
            self._count()
            return [self.resolve(v, [*path, i], file) for i, v in enumerate(node)]
        return node

    # ------------------------------------------------------------------ strings
    def interpolate(self, s: str, path: list | tuple) -> Any:
        parts = split_variables(s)
        if not any(isinstance(p, tuple) for p in parts):
            return s
        key = (tuple(path), s)  # the same string at the same place again: a cycle
        if key in self._active:
            cycle = [addr_of(p) for p, _ in self._active[self._active.index(key) :]] + [addr_of(path)]
            raise self.error("circular variable reference: " + " -> ".join(cycle), path)
        if len(self._active) >= MAX_DEPTH:
            raise self.error(f"variables nested more than {MAX_DEPTH} levels deep", path)
        self._active.append(key)
        try:
            if len(parts) == 1:
                v = self.expression(parts[0][1], path)
                if isinstance(v, Unresolved):
                    self.note(v, path)
                return v
            out: list = []
            for p in parts:
                if isinstance(p, str):
                    out.append(p)
                    continue
                v = self.expression(p[1], path)
                if isinstance(v, Unresolved):
                    self.note(v, path)
                    out.append(v)
                elif isinstance(v, Partial):
                    out.extend(v.parts)
                elif isinstance(v, (dict, list)):
                    u = Unresolved("${" + p[1] + "}", "a mapping or list cannot be part of a string")
                    self.note(u, path)
                    out.append(u)
                elif v is None:
                    out.append("null")
                elif isinstance(v, bool):
                    out.append(str(v).lower())
                else:
                    out.append(str(v))
            merged: list = []
            for p in out:
                if isinstance(p, str) and merged and isinstance(merged[-1], str):
                    merged[-1] += p
                else:
                    merged.append(p)
            if sum(len(p) for p in merged if isinstance(p, str)) > MAX_STRING:
                raise self.error(f"a variable expands to more than {MAX_STRING:,} characters", path)
            self._count()
            if all(isinstance(p, str) for p in merged):
                return "".join(merged)
            return Partial(tuple(merged))
        finally:
            self._active.pop()

    def expression(self, inner: str, path: list | tuple) -> Any:
        """``source:address, fallback, ...`` -> value, or Unresolved when no fallback has a value."""
        refs = _split_top(inner)
        text = "${" + inner + "}"
        for ref in refs:
            v = self.reference(ref, path)
            if v is MISSING or v is None:
                continue
            return v
        first = refs[0] if refs else inner
        why = f"{first} has no value here and no default is written"
        if first.startswith("env:"):
            name = first[4:].strip()
            why = (
                f"environment variable {name} is not read (it could hold a secret); "
                f"pass --var env:{name}=VALUE or write a default"
            )
        elif first.startswith("opt:"):
            why = f"CLI option {first[4:].strip()} not given; pass --var {first[4:].strip()}=VALUE"
        return Unresolved(text, why)

    def reference(self, ref: str, path: list | tuple) -> Any:
        if not ref:
            return MISSING
        if ref.startswith("${") and ref.endswith("}"):
            return self.interpolate(ref, path)
        if len(ref) >= 2 and ref[0] == ref[-1] and ref[0] in "'\"":
            return ref[1:-1]
        if _NUMBER.match(ref):
            return float(ref) if "." in ref else int(ref)
        if ref in ("true", "false"):
            return ref == "true"
        if ref == "null":
            return None
        if not _SOURCE.match(ref):
            return ref  # a bare word: a literal default (``${opt:stage, dev}``)
        if "${" in ref:  # nested variables in the address: resolve them first
            ref2 = self.interpolate(ref, path)
            if not isinstance(ref2, str):
                return (
                    ref2 if isinstance(ref2, Unresolved) else Unresolved("${" + ref + "}", "not known here")
                )
            ref = ref2
        m = _REF.match(ref)
        if not m:
            return Unresolved("${" + ref + "}", f"cannot read variable {ref!r}")
        source, arg, address = m.group(1), m.group(2), m.group(3)
        return self.source(source, arg, (address or "").strip(), ref, path)

    # ------------------------------------------------------------------ sources
    def source(self, source: str, arg: str | None, address: str, ref: str, path: list | tuple) -> Any:
        text = "${" + ref + "}"
        if source == "self" and arg is None:
            return self.get(parse_address(address))
        if source == "opt" and arg is None:
            return self.values.opt.get(address, MISSING)
        if source == "env" and arg is None:
            return self.values.env.get(address, MISSING)
        if source == "sls" and address == "stage":
            return self.stage
        if source == "aws" and address == "region":
            if "region" in self.values.opt:
                return self.values.opt["region"]
            v = self.get(["provider", "region"])
            return "us-east-1" if v is MISSING or v is None else v
        if source == "aws" and address == "accountId":
            return Unresolved(text, "the AWS account id is known at deploy time", quiet=True)
        if source == "param" and arg is None:
            if address in self.values.param:
                return self.values.param[address]
            stage = self.stage
            for st in ([stage] if isinstance(stage, str) else []) + ["default"]:
                v = self.get(["stages", st, "params", address])
                if v is not MISSING:
                    return v
            return MISSING
        if source == "file" and arg is not None:
            return self.file_value(arg, address, ref, path)
        if source == "strToBool" and arg is not None:
            v = self.reference(arg.strip(), path)
            if isinstance(v, bool):
                return v
            s = str(v).strip().lower() if isinstance(v, (str, int)) else None
            if s in ("true", "1"):
                return True
            if s in ("false", "0"):
                return False
            if isinstance(v, Unresolved):
                return v
            return Unresolved(text, f"strToBool of {v!r} is an error in Serverless")
        if source == "construct" and self.construct_ref is not None:
            cid, _, attr = address.rpartition(".")
            v = self.construct_ref(cid, attr)
            return v if v is not None else Unresolved(text, f"no Lift construct {cid!r} with {attr!r}")
        what = _REMOTE.get(source) or ("AWS" if source == "aws" else None)
        if what:
            return Unresolved(text, f"{text} is read from {what} at deploy time; not known here")
        return Unresolved(text, f"unknown variable source {source!r}")

    def file_value(self, arg: str, address: str, ref: str, path: list | tuple) -> Any:
        text = "${" + ref + "}"
        rel = arg.strip()
        if len(rel) >= 2 and rel[0] == rel[-1] and rel[0] in "'\"":
            rel = rel[1:-1]
        if rel.startswith("~") or os.path.isabs(rel):
            return Unresolved(text, f"{rel} is outside the service folder; not read")
        full = os.path.realpath(os.path.join(self.service_dir, rel))
        if os.path.commonpath([full, self.service_dir]) != self.service_dir:
            return Unresolved(text, f"{rel} resolves outside the service folder; not read")
        if full.endswith((".js", ".cjs", ".mjs", ".ts", ".mts", ".cts")):
            return Unresolved(text, f"{rel} is JavaScript/TypeScript, which visguard does not run")
        shown = os.path.normpath(os.path.join(os.path.dirname(self.file), rel))  # as the user names it
        doc = self._load(full, rel, text, shown)
        if doc is MISSING or isinstance(doc, Unresolved):
            return doc
        if full in self._including:
            raise self.error(f"circular ${{file(...)}} include of {rel}", path)
        self._including.append(full)
        try:
            node: Any = doc
            for p in parse_address(address):
                node = self.shallow(node, path)
                if _has(node, p):
                    node = node[p]
                else:
                    return MISSING
            return self.resolve(node, path, shown)
        finally:
            self._including.pop()

    def _load(self, full: str, rel: str, text: str, shown: str) -> Any:
        if full in self._docs:
            return self._docs[full]
        if not os.path.exists(full):
            self._docs[full] = MISSING  # Serverless: a missing file has no value (a fallback applies)
            return MISSING
        if len(self._docs) >= MAX_FILES:
            raise VisguardError(f"more than {MAX_FILES} files included with ${{file(...)}}", file=self.file)
        if not full.endswith((".yml", ".yaml", ".json")):
            doc: Any = Unresolved(text, f"{rel} is not a .yml/.yaml/.json file")
        else:
            doc = loads(self.read(full), file=shown)
            for d in _mappings(doc):
                self._file_of[id(d)] = shown
        self._docs[full] = doc
        return doc


def _has(node: Any, key: Any) -> bool:
    if isinstance(node, dict):
        return key in node
    return isinstance(node, list) and isinstance(key, int) and 0 <= key < len(node)


def _mappings(doc: Any):
    stack = [doc]
    while stack:
        n = stack.pop()
        if isinstance(n, dict):
            yield n
            stack.extend(n.values())
        elif isinstance(n, list):
            stack.extend(n)
