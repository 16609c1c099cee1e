"""serverless.ts: a Serverless Framework service written in TypeScript (the ``aws-nodejs-typescript`` template's
form), read as the data it builds, never run.

The file exports one object (``module.exports = cfg``, ``export default cfg``, ``export = cfg``) that
:class:`Reader` turns into the mapping a serverless.yml would be, each mapping a :class:`~.serverless_vars.Node`
that says where it and each of its keys are written, in whichever file that is: object literals, arrays, strings
(a template literal only when all of it is known), numbers, booleans, ``null``; a name bound once by a ``const``
of the file, or imported (``import { fn } from "@functions/fn"``, a default import) from a module of the service:
a relative path or a tsconfig ``paths`` alias (``compilerOptions.paths`` with its ``baseUrl``, in ``tsconfig.json``
or the file it ``extends``); spread properties (``...webhookQueue``) and shorthand ones (``{ hello }``); ``as``
/ ``satisfies`` and parentheses unwrapped. Anything else (a call such as ``handlerPath(__dirname)``, an expression,
a name bound twice) is an :class:`~.serverless_vars.Unresolved` value: the translation says what it could not read
(VG902), as it does for a variable it cannot resolve.

Bounded: files under the service's folder only (no ``..`` out of it, no symlink out), at most :data:`MAX_FILES`
modules, :data:`MAX_BYTES` each, :data:`MAX_DEPTH` nested values and :data:`MAX_VALUES` values in all.
"""

from __future__ import annotations

import json
import os
import re

from visguard.errors import VisguardError

from . import safe_io
from .serverless_vars import Node, Unresolved

MAX_FILES = 64  # modules one service file may bring in
MAX_BYTES = 2 * 1024 * 1024  # characters of one module
MAX_DEPTH = 48  # values nested in one another (and names followed)
MAX_VALUES = 200_000  # values read in all
_EXTENSIONS = ("", ".ts", ".mts", ".cts", ".js", ".mjs", ".cjs", "/index.ts", "/index.js")
_WRAPPERS = ("parenthesized_expression", "as_expression", "satisfies_expression", "non_null_expression")


def document(path: str) -> Node:
    """The service ``path`` (a serverless.ts) exports, as a mapping; VisguardError (naming the file and line)
    when it exports no object visguard can read."""
    return Reader(path).run()


class Reader:
    def __init__(self, path: str):
        self.path = os.path.abspath(path)
        self.top = os.path.realpath(os.path.dirname(self.path))
        self.files: dict[str, tuple] = {}  # real path -> (root node, data, {name: declarator}, imports)
        self.values = 0
        self._aliases: list[tuple[str, list[str]]] | None = None

    # ------------------------------------------------------------------------------------------ files
    def module(self, path: str):
        real = os.path.realpath(path)
        got = self.files.get(real)
        if got is not None:
            return got
        if len(self.files) >= MAX_FILES:
            raise VisguardError(f"more than {MAX_FILES} modules", file=self.path)
        from .code import parse

        data = safe_io.read_bytes(real, max_bytes=MAX_BYTES)
        root = parse("typescript", data)
        if root is None:
            raise VisguardError("the TypeScript parse ran out of time", file=path)
        decls, imports, exported = {}, {}, {}
        for stmt in root.named_children:
            inner = stmt
            if stmt.type == "export_statement":
                value = stmt.child_by_field_name("value")  # export default {...} / export = x
                if value is not None:
                    exported["default"] = value
                inner = stmt.child_by_field_name("declaration") or stmt
            if inner.type in ("lexical_declaration", "variable_declaration"):
                for d in inner.named_children:
                    if d.type == "variable_declarator" and d.child_by_field_name("name") is not None:
                        name = _text(d.child_by_field_name("name"))
                        decls[name] = None if name in decls else d  # bound twice: not one value
            elif stmt.type == "import_statement":
                src = stmt.child_by_field_name("source")
                spec = _string(src) if src is not None else None
                for clause in (c for c in stmt.named_children if c.type == "import_clause"):
                    for part in clause.named_children:
                        if part.type == "identifier":  # import cfg from "./x": its default
                            imports[_text(part)] = (spec, "default")
                        elif part.type == "named_imports":
                            for s in part.named_children:
                                if s.type == "import_specifier":
                                    n, a = s.child_by_field_name("name"), s.child_by_field_name("alias")
                                    imports[_text(a if a is not None else n)] = (spec, _text(n))
            elif stmt.type == "expression_statement" and stmt.named_children:
                e = stmt.named_children[0]
                if (
                    e.type == "assignment_expression"
                    and _text(e.child_by_field_name("left")) == "module.exports"
                ):
                    exported["default"] = e.child_by_field_name("right")
        got = self.files[real] = (root, data, decls, imports, exported, path)
        return got

    def resolve_module(self, importer: str, spec: str | None) -> str | None:
        """The file of the service ``spec`` names from ``importer``: relative, or a tsconfig ``paths`` alias."""
        if not spec:
            return None
        bases = []
        if spec.startswith("."):
            bases.append(os.path.join(os.path.dirname(importer), spec))
        else:
            for pattern, targets in self.aliases():
                if pattern.endswith("*") and spec.startswith(pattern[:-1]):
                    rest = spec[len(pattern) - 1 :]
                    bases += [t[:-1] + rest if t.endswith("*") else t for t in targets]
                elif spec == pattern:
                    bases += targets
        for base in bases:
            for ext in _EXTENSIONS:
                candidate = os.path.realpath(base + ext)
                if os.path.commonpath([candidate, self.top]) == self.top and safe_io.is_regular_file(
                    candidate
                ):
                    return candidate
        return None

    def aliases(self) -> list[tuple[str, list[str]]]:
        """tsconfig's ``paths`` (with ``baseUrl``) beside the service, following ``extends`` within it."""
        if self._aliases is None:
            self._aliases = []
            config, seen = os.path.join(self.top, "tsconfig.json"), set()
            while config and config not in seen and len(seen) < 4:
                seen.add(config)
                real = os.path.realpath(config)
                if os.path.commonpath([real, self.top]) != self.top or not safe_io.is_regular_file(real):
                    break
                try:
                    cfg = json.loads(_no_comments(safe_io.read_text(real, max_bytes=MAX_BYTES)))
                except (ValueError, OSError, VisguardError):
                    break
                opts = cfg.get("compilerOptions") if isinstance(cfg, dict) else None
                if isinstance(opts, dict) and isinstance(opts.get("paths"), dict):
                    base = os.path.join(os.path.dirname(real), str(opts.get("baseUrl") or "."))
                    for k, v in opts["paths"].items():
                        if isinstance(k, str) and isinstance(v, list):
                            self._aliases.append(
                                (k, [os.path.join(base, t) for t in v if isinstance(t, str)])
                            )
                ext = cfg.get("extends") if isinstance(cfg, dict) else None
                config = os.path.join(os.path.dirname(real), ext) if isinstance(ext, str) else None
        return self._aliases

    # ----------------------------------------------------------------------------------------- values
    def run(self) -> Node:
        _, _, _, _, exported, _ = self.module(self.path)
        node = exported.get("default")
        if node is None:
            raise VisguardError("serverless.ts exports no configuration object (module.exports, export default)",
                                file=self.path)  # fmt: skip
        v = self.value(self.path, node, 0)
        if not isinstance(v, Node):
            raise VisguardError("serverless.ts exports a value that is not an object literal", file=self.path)
        return v

    def value(self, file: str, node, depth: int):
        self.values += 1
        if depth > MAX_DEPTH or self.values > MAX_VALUES:
            return Unresolved(_shown(node), "nested or referenced too deep to read")
        while node is not None and node.type in _WRAPPERS:
            node = node.named_children[0] if node.named_children else None
        if node is None:
            return None
        t = node.type
        if t == "object":
            return self.obj(file, node, depth)
        if t == "array":
            return [self.value(file, k, depth + 1) for k in node.named_children if k.type != "comment"]
        if t == "string":
            return _string(node)
        if t == "template_string":
            if any(k.type == "template_substitution" for k in node.named_children):
                return Unresolved(_shown(node), "a template literal computed in TypeScript")
            return _text(node)[1:-1]
        if t == "number":
            raw = _text(node)
            try:
                return int(raw) if re.fullmatch(r"\d+", raw) else float(raw)
            except ValueError:
                return Unresolved(raw, "not a number visguard reads")
        if t in ("true", "false"):
            return t == "true"
        if t in ("null", "undefined"):
            return None
        if t in ("identifier", "shorthand_property_identifier"):
            return self.name(file, _text(node), node, depth)
        return Unresolved(_shown(node), "computed in TypeScript; not read")

    def obj(self, file: str, node, depth: int) -> Node:
        out = Node(file=file)
        out.line, out.col = node.start_point[0] + 1, node.start_point[1] + 1
        for p in node.named_children:
            if p.type == "pair":
                k = p.child_by_field_name("key")
                key = (
                    _string(k)
                    if k.type == "string"
                    else _text(k)
                    if k.type in ("property_identifier", "number")
                    else None
                )
                if key is None:
                    continue  # a computed key ([x]: ...): not one key
                self._put(out, key, self.value(file, p.child_by_field_name("value"), depth + 1), file, k)
            elif p.type == "shorthand_property_identifier":
                self._put(out, _text(p), self.name(file, _text(p), p, depth + 1), file, p)
            elif p.type == "spread_element" and p.named_children:
                v = self.value(file, p.named_children[0], depth + 1)
                if isinstance(v, Node):
                    for k, x in v.items():
                        out[k] = x
                        if k in v.key_pos:
                            out.key_pos[k] = v.key_pos[k]
                        out.key_file[k] = v.key_file.get(k, v.file)
        return out

    @staticmethod
    def _put(out: Node, key, value, file: str, at) -> None:
        out[key] = value
        out.key_pos[key] = (at.start_point[0] + 1, at.start_point[1] + 1)
        out.key_file[key] = file

    def name(self, file: str, name: str, node, depth: int):
        _, _, decls, imports, _, _ = self.module(file)
        d = decls.get(name)
        if d is not None:
            return self.value(file, d.child_by_field_name("value"), depth + 1)
        if name in imports:
            spec, key = imports[name]
            target = self.resolve_module(file, spec)
            if target is None:
                return Unresolved(name, f"imported from {spec}, which is not a module of the service")
            _, _, tdecls, _, texported, _ = self.module(target)
            found = texported.get("default") if key == "default" else tdecls.get(key)
            if found is None:
                return Unresolved(name, f"{key} is not a value {spec} exports")
            if found.type == "variable_declarator":
                found = found.child_by_field_name("value")
            return self.value(target, found, depth + 1)
        return Unresolved(name, f"{name} is not a constant of {os.path.basename(file)}")


def _text(node) -> str:
    return node.text.decode("utf-8", "replace") if node is not None else ""


def _string(node) -> str | None:
    raw = _text(node)
    if len(raw) >= 2 and raw[0] in "'\"" and raw[-1] == raw[0]:
        try:
            return json.loads('"' + raw[1:-1].replace('\\"', '"').replace('"', '\\"') + '"')
        except ValueError:
            return raw[1:-1]
    return None


def _shown(node) -> str:
    s = " ".join(_text(node).split())
    return s if len(s) <= 60 else s[:57] + "..."


def _no_comments(text: str) -> str:
    """tsconfig's JSON with its ``//`` and ``/* */`` comments and trailing commas taken out (outside strings)."""
    out, i, n, quote = [], 0, len(text), False
    while i < n:
        c = text[i]
        if quote:
            out.append(c)
            if c == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 1
            elif c == '"':
                quote = False
        elif c == '"':
            quote = True
            out.append(c)
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
            continue
        else:
            out.append(c)
        i += 1
    return re.sub(r",(\s*[}\]])", r"\1", "".join(out))
