"""Terraform's template language, and the functions that read files beside a module.

A string template (a quoted string, a heredoc, a string of Terraform's JSON syntax, the file ``templatefile``
renders, a ``data "template_file"``) is literal text with ``${ expr }`` interpolations and the directives
``%{ for x in coll } ... %{ endfor }`` / ``%{ if cond } ... %{ else } ... %{ endif }``; a ``~`` beside a ``${`` /
``%{`` or a closing ``}`` strips the spaces and newlines of the literal text on that side
(developer.hashicorp.com/terraform/language/expressions/strings, checked 2026-12-02). :class:`Templates` (mixed
into the :class:`~.evaluate.Evaluator`) renders one from tree-sitter's nodes: the literal text is read between the
nodes (tree-sitter leaves its spaces out), each directive's body as a region of its own. The result is a string,
or a :class:`~.values.Text` when a part is known only after apply; ``"${x}"`` alone is ``x`` with its type.

Bounded like the evaluator (its :class:`~.evaluate.Budget`): every loop iteration is a step, every piece of text is
charged before it is kept, one result is at most :data:`~.values.MAX_STRING` characters, directives nest at most
:data:`MAX_DEPTH` deep, a template file is at most :data:`MAX_TEMPLATE_BYTES`.

``file``, ``fileexists``, ``templatefile``, ``templatestring`` read files the way Terraform does (a relative path
from the root module's folder, Terraform's working directory), only inside what the command line named or the
folder of the module whose expression reads it (symlinks resolved; docs/security.md), at most
:data:`MAX_FILES` distinct files per root module, each bounded by ``safe_io``. A file outside, missing or
unreadable is "not known here", never an error: a generated file may be absent from a checkout.
``templatefile`` renders with only the variables it is given (as in Terraform: no ``var.``/``local.``), and never
from inside a template (Terraform forbids the recursion).
"""

from __future__ import annotations

import os

from visguard.errors import VisguardError

from .. import safe_io
from .files import NAME_CHARS, excerpt
from .values import MAX_STRING, SYMBOLIC, Encoded, EvalError, LimitError, Text, Unknown, kind, to_string

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

MAX_DEPTH = 64  # directives inside directives (a real template nests two or three)
MAX_TEMPLATE_BYTES = 1_000_000  # a template or data file read by file()/templatefile(): the heredoc bound
MAX_FILES = 200  # distinct files file()/templatefile() read in one root module
FILE_FUNCTIONS = frozenset(("file", "fileexists", "templatefile", "templatestring"))
_PARTS = ("template_interpolation", "template_directive")


class _Out:
    """The parts of a template being rendered: text (charged to the budget before it is kept, at most
    MAX_STRING characters in all) and values known only after apply; joined once, at the end."""

    __slots__ = ("parts", "size", "budget", "node", "values", "symbolic", "first")

    def __init__(self, budget, node):
        self.parts: list = []  # str pieces and symbolic values, in order
        self.size = 0
        self.budget = budget
        self.node = node
        self.values = 0
        self.symbolic = False
        self.first: tuple | None = None  # the first value while nothing else is there: "${x}" is x itself

    def text(self, s: str) -> None:
        if not s:
            return
        if self.first is not None:
            self._flush()
        self.size += len(s)
        if self.size > MAX_STRING:
            raise LimitError(
                f"a template renders more than {MAX_STRING:,} characters (visguard's bound on one value)",
                self.node,
            )
        self.budget.text(len(s), self.node)
        self.parts.append(s)

    def value(self, v: Any, shown: str) -> None:
        self.values += 1
        if self.values == 1 and not self.parts:
            self.first = (v, shown)
            return
        if self.first is not None:
            self._flush()
        self._add(v, shown)

    def _flush(self) -> None:
        v, shown = self.first
        self.first = None
        self._add(v, shown)

    def _add(self, v: Any, shown: str) -> None:
        if isinstance(v, Text):
            self.symbolic = True
            for p in v.parts:
                if type(p) is str:
                    self.text(p)
                else:
                    self.parts.append(p)
        elif isinstance(v, SYMBOLIC):
            self.symbolic = True
            if isinstance(v, Encoded):
                v = Unknown(shown, "a JSON document holding values known only after apply")
            self.parts.append(v)
        else:
            self.text(to_string(v))  # a list or an object: Terraform's error too

    def result(self) -> Any:
        if self.first is not None:
            return self.first[0]
        if not self.symbolic:
            return "".join(self.parts)
        merged: list = []
        run: list[str] = []
        for p in self.parts:
            if type(p) is str:
                run.append(p)
                continue
            if run:
                merged.append("".join(run))
                run = []
            merged.append(p)
        if run:
            merged.append("".join(run))
        return Text(tuple(merged))


def _marks(tag) -> tuple[bool, bool]:
    """(a ``~`` right after the tag's opening, a ``~`` right before its closing ``}``)."""
    kids = tag.children
    return (
        len(kids) > 2 and kids[1].type == "strip_marker",
        len(kids) > 2 and kids[-2].type == "strip_marker",
    )


def _heredoc_literal(s: str) -> str:
    """A heredoc's (a template file's) literal text: only ``$${`` and ``%%{`` are escapes."""
    return s.replace("$${", "${").replace("%%{", "%{") if "{" in s else s


class Templates:
    """Rendering templates and reading files: mixed into :class:`~.evaluate.Evaluator` (``budget``, ``loader``,
    ``mod``, ``_node``, ``_unescape``)."""

    in_template = False  # a scope of variables templatefile() gives: templatefile() is refused in it

    def _render(self, node, start: int, end: int, env, literal) -> Any:
        """The value of the template whose parts are the children of ``node`` between bytes ``start`` and
        ``end``; ``literal`` turns literal text into its value (escapes)."""
        out = _Out(self.budget, node)
        self._region(node.children, start, end, env, literal, out, False, False, 0)
        return out.result()

    def _region(self, kids, start, end, env, literal, out: _Out, lstrip, rstrip, depth) -> None:
        if depth > MAX_DEPTH:
            raise LimitError(f"template directives nested more than {MAX_DEPTH} deep", out.node)
        data = env.src.data
        pos, strip_next = start, lstrip
        for c in kids:
            t = c.type
            if t not in _PARTS or c.start_byte < start or c.end_byte > end:
                continue
            text = literal(data[pos : c.start_byte].decode("utf-8", "replace"))  # escapes first, then ~
            if strip_next:
                text = text.lstrip()
            if t == "template_interpolation":
                left, right = _marks(c)
            else:
                inner = c.children[0]
                left, right = _marks(inner.children[0])[0], _marks(inner.children[-1])[1]
            if left:
                text = text.rstrip()
            out.text(text)
            if t == "template_interpolation":
                expr = next((x for x in c.children if x.type == "expression"), None)
                if expr is None:
                    raise EvalError("an interpolation needs an expression", c)
                from .evaluate import text_of

                out.value(self._node(expr, env), text_of(c, env.src))
            elif c.children[0].type == "template_for":
                self._for(c.children[0], env, literal, out, depth + 1)
            elif c.children[0].type == "template_if":
                self._if(c.children[0], env, literal, out, depth + 1)
            else:
                raise EvalError(f"unexpected {c.children[0].type} in a template", c)
            strip_next = right
            pos = c.end_byte
        text = literal(data[pos:end].decode("utf-8", "replace")) if end > pos else ""
        if strip_next:
            text = text.lstrip()
        if rstrip:
            text = text.rstrip()
        out.text(text)

    def _for(self, node, env, literal, out: _Out, depth) -> None:
        from .evaluate import text_of

        head, tail = node.children[0], node.children[-1]
        names = [env.src.slice(c) for c in head.named_children if c.type == "identifier"]
        coll_node = next((c for c in head.named_children if c.type == "expression"), None)
        if coll_node is None or not 1 <= len(names) <= 2 or tail.type != "template_for_end":
            raise EvalError("malformed %{ for } directive", node)
        coll = self._node(coll_node, env)
        if isinstance(coll, SYMBOLIC):
            out.value(
                Unknown(text_of(head, env.src), "the collection of a %{ for } is known only after apply"), ""
            )
            return
        if isinstance(coll, dict):
            items = [(k, coll[k]) for k in sorted(coll)]
        elif isinstance(coll, list):
            items = list(enumerate(coll))
        else:
            raise EvalError(f"%{{ for }} needs a list or an object, got a {kind(coll)}", coll_node)
        lstrip, rstrip = _marks(head)[1], _marks(tail)[0]
        for k, v in items:
            self.budget.spend(1, node)
            e = env.child(**({names[0]: k, names[1]: v} if len(names) == 2 else {names[0]: v}))
            self._region(
                node.children, head.end_byte, tail.start_byte, e, literal, out, lstrip, rstrip, depth
            )

    def _if(self, node, env, literal, out: _Out, depth) -> None:
        from .evaluate import text_of

        kids = node.children
        head, tail = kids[0], kids[-1]
        other = next((c for c in kids if c.type == "template_else_intro"), None)
        cond_node = next((c for c in head.named_children if c.type == "expression"), None)
        if cond_node is None or tail.type != "template_if_end":
            raise EvalError("malformed %{ if } directive", node)
        c = self._node(cond_node, env)
        if isinstance(c, str) and c in ("true", "false"):
            c = c == "true"
        if isinstance(c, SYMBOLIC):
            out.value(
                Unknown(text_of(head, env.src), "the condition of a %{ if } is known only after apply"), ""
            )
            return
        if not isinstance(c, bool):
            raise EvalError(f"a condition must be a bool, got a {kind(c)}", cond_node)
        if c:
            stop = other if other is not None else tail
            self._region(
                kids,
                head.end_byte,
                stop.start_byte,
                env,
                literal,
                out,
                _marks(head)[1],
                _marks(stop)[0],
                depth,
            )
        elif other is not None:
            self._region(
                kids,
                other.end_byte,
                tail.start_byte,
                env,
                literal,
                out,
                _marks(other)[1],
                _marks(tail)[0],
                depth,
            )

    # ------------------------------------------------------------------ a template given as text
    def render_text(self, body: str, env, file: str = "<template>") -> Any:
        """``body`` (a heredoc's text, a JSON-syntax string, a template file) rendered as a template with the
        names of ``env``: parsed as a heredoc, so quotes inside ``${...}`` stay what they are."""
        from .evaluate import Env

        self.budget.text(len(body))
        expr, src, start, end = _parse_template(body, file)
        if env.src is not None and not env.src.shown:  # text of a file reached through a symlink
            from .hcl import Source

            src = Source(src.text, src.data)
            src.shown = False
        node = expr
        while node.type in ("expression", "template_expr"):
            node = node.children[0]
        return self._render(node, start, end, Env(env.names, src), _heredoc_literal)

    # ------------------------------------------------------------------ file(), templatefile()
    def file_call(self, name: str, args: list, node, env) -> Any:
        """``file(path)``, ``fileexists(path)``, ``templatefile(path, vars)``, ``templatestring(text, vars)``."""
        want = 1 if name in ("file", "fileexists") else 2
        if len(args) != want:
            raise EvalError(f"{name}() takes {want} argument(s), got {len(args)}", node)
        from .evaluate import text_of

        shown = text_of(node, env.src)
        if name in ("templatefile", "templatestring"):
            if self.in_template:
                raise EvalError(
                    f"{name}() cannot be called from inside a template (Terraform refuses it)", node
                )
            variables = args[1]
            if isinstance(variables, SYMBOLIC):
                return Unknown(shown, f"the variables of {name}() are known only after apply")
            if not isinstance(variables, dict):
                raise EvalError(f"{name}(): the variables must be an object, got a {kind(variables)}", node)
        if name == "templatestring":
            if not isinstance(args[0], str):
                return Unknown(shown, "the template is known only after apply")
            return self._template_scope().render_with(args[0], variables, "<templatestring>", node)
        path = args[0]
        if isinstance(path, SYMBOLIC) or not isinstance(path, str):
            return Unknown(shown, f"the path given to {name}() is not known here")
        full, why = self._confined(path)
        if name == "fileexists":
            return Unknown(shown, why) if why else safe_io.is_regular_file(full)
        if why is not None:
            return Unknown(shown, why)
        text = self._read(full)
        if isinstance(text, Unknown):
            return Unknown(shown, text.why)
        if name == "file":
            return text
        return self._template_scope().render_with(text, variables, full, node)

    def _confined(self, path: str) -> tuple[str, str | None]:
        """(the file ``path`` names, why it is not read: None when it may be)."""
        loader = self.loader
        root = getattr(loader, "root", None)
        asked = getattr(loader, "asked", None)
        if root is None or asked is None or getattr(loader, "file_texts", None) is None or "\x00" in path:
            return path, "files are not read here"
        base = root if os.path.isdir(root) else os.path.dirname(root) or "."
        full = os.path.normpath(os.path.join(os.path.abspath(base), path))
        if not (safe_io.inside(full, asked) or safe_io.inside(full, self.mod.dir)):
            return full, f"{excerpt(path, NAME_CHARS)} is outside the folder linted: not read"
        return full, None

    def _read(self, full: str) -> Any:
        """The text of ``full`` (cached per root module), or an Unknown saying why it is not known here."""
        loader = self.loader
        cache = loader.file_texts
        real = os.path.realpath(full)
        if real in cache:
            return cache[real]
        if len(cache) >= MAX_FILES:
            raise LimitError(f"file()/templatefile() read more than {MAX_FILES} files (visguard's bound)")
        try:
            text: Any = safe_io.read_text(full, max_bytes=MAX_TEMPLATE_BYTES)
        except VisguardError as exc:
            text = Unknown(os.path.basename(full), f"the file cannot be read here ({exc.detail})")
        else:
            files = getattr(loader, "files", None)
            if isinstance(files, list):
                files.append(full)
        cache[real] = text
        return text

    def template_file(self, name: str, node) -> dict | None:
        """What ``data.template_file.<name>`` is (the template provider's data source: ``template`` rendered with
        ``vars``); None for one with count/for_each (not known here)."""
        block = self.mod.data.get(("template_file", name))
        if block is None:
            return None
        if "count" in block.attrs or "for_each" in block.attrs:
            return None
        cache = self._resource_values
        key = ("data.template_file", name)
        if key in cache:
            return cache[key]
        address = f"{self.prefix}data.template_file.{name}"
        template = self.eval_attr(block.attrs["template"]) if "template" in block.attrs else None
        variables = self.eval_attr(block.attrs["vars"]) if "vars" in block.attrs else {}
        if not isinstance(template, str):
            rendered: Any = Unknown(f"{address}.rendered", "its template is not known here")
        elif not isinstance(variables, dict):
            rendered = Unknown(f"{address}.rendered", "its vars are not known here")
        else:
            rendered = self._template_scope().render_with(template, variables, address, node)
        cache[key] = out = {"rendered": rendered, "template": template, "vars": variables}
        return out

    def _template_scope(self):
        """A scope that sees only the variables templatefile() gives (and the functions), sharing this one's
        budget and loader."""
        from .scope import Module, Scope

        scope = Scope(self.loader, Module(self.mod.dir, []), self.prefix, parent=self)
        scope.in_template = True
        return scope

    def render_with(self, text: str, variables: dict, file: str, node) -> Any:
        from .evaluate import Env

        for k in variables:
            if not isinstance(k, str) or not k.replace("_", "a").replace("-", "a").isalnum():
                raise EvalError(f"templatefile(): {excerpt(str(k), NAME_CHARS)} is not a variable name", node)
        try:
            return self.render_text(text, Env(dict(variables)), file)
        except VisguardError as exc:  # the template does not parse: where in it
            raise EvalError(f"{_shown_file(file)}: {exc.detail}{_line(exc.place)}", node) from None
        except EvalError as exc:  # where in the template, at the call's place (the node is of the template)
            at = exc.node.start_point.row if getattr(exc, "node", None) is not None else None
            raise type(exc)(f"{_shown_file(file)}{f':{at}' if at else ''}: {exc}", node) from None


def _shown_file(file: str) -> str:
    return excerpt(os.path.basename(file), NAME_CHARS) if file != "<templatestring>" else "the template"


def _line(place: str | None) -> str:
    """The line of an error in a template file: its parse wraps the file in one line (``x = <<EOT``)."""
    import re

    m = re.search(r"\d+", place or "")
    return f" (line {int(m.group()) - 1})" if m and int(m.group()) > 1 else ""


_CACHE: dict[str, tuple] = {}  # the last few bodies parsed: a heredoc rendered per instance is parsed once


def _parse_template(body: str, file: str) -> tuple[Any, Any, int, int]:
    """(the heredoc expression node of ``body``, its Source, the bytes where the body starts and ends)."""
    hit = _CACHE.get(body)
    if hit is not None:
        return hit
    from .hcl import parse_expression

    mark = "VISGUARD_EOT"
    while mark in body:
        mark += "_"
    newline = "" if body.endswith("\n") else "\n"
    head = f"x = <<{mark}\n"
    expr, src = parse_expression(f"<<{mark}\n{body}{newline}{mark}", file)
    start = len(head.encode())
    end = start + len(body.encode("utf-8", "surrogatepass"))
    if len(_CACHE) >= 16:
        _CACHE.clear()
    _CACHE[body] = out = (expr, src, start, end)
    return out
