"""How a Python CDK app writes what the construct model (``cdk_source._Synth``) reads: the :class:`Syntax` of
``aws_cdk`` Python apps. Imported only for a ``.py`` file whose first bytes import ``aws_cdk``.

- Constructs are calls of the imported classes: ``sqs.Queue(self, "Q", visibility_timeout=Duration.seconds(30))``
  (``import aws_cdk as cdk`` + ``cdk.aws_sqs.Queue``, ``from aws_cdk import aws_sqs as sqs``,
  ``import aws_cdk.aws_sqs as sqs``, ``from aws_cdk.aws_sqs import Queue``; CDK v1's ``aws_cdk.core``).
- Properties are the call's keyword arguments, named in snake_case; the model reads CDK's camelCase names
  (``visibility_timeout`` -> ``visibilityTimeout``, ``queue_url`` -> ``queueUrl``, ``add_event_source`` ->
  ``addEventSource``). A struct is a call of keywords only (``sqs.DeadLetterQueue(queue=dlq,
  max_receive_count=3)``, ``CfnPipe.PipeSourceParametersProperty(...)``, ``dict(...)``) or a dict literal (its
  string keys as written: an environment's variables stay as they are; a struct's snake_case keys are read as
  CDK's). A ``**kwargs`` of a dict of the file is read; of anything else it is a spread (the properties it may set
  are not known, never a default).
- Names: a name or ``self.x`` assigned once in the file (the engine's bindings; a function's parameter is not
  followed).
"""

from __future__ import annotations

import re

from .cdk_source import MAX_DEPTH, Syntax, _text
from .engine import snake

_SNAKE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")
_CAMEL = re.compile(r"\b[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+\b")


def camel(name: str) -> str:
    """``visibility_timeout`` -> ``visibilityTimeout`` (a keyword's name as CDK's TypeScript writes it)."""
    if not _SNAKE.fullmatch(name):
        return name
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def _module_family(module: str) -> str | None:
    """``aws_cdk`` / ``aws_cdk.core`` -> core; ``aws_cdk.aws_sqs`` -> aws-sqs; anything else: None."""
    if module in ("aws_cdk", "aws_cdk.core"):
        return "core"
    if module.startswith("aws_cdk."):
        return module[len("aws_cdk.") :].split(".")[0].replace("_", "-")
    return None


class PythonSyntax(Syntax):
    OBJECT = "keyword arguments or a dict"
    SPREAD = "**kwargs"

    def written(self, key: str) -> str:
        """``deadLetterQueue.maxReceiveCount`` -> ``dead_letter_queue.max_receive_count`` (an environment
        variable's name stays as written)."""
        return _CAMEL.sub(lambda m: snake(m.group(0)), key)

    def setup(self) -> bool:
        from . import parse
        from .engine import File
        from .python import PYTHON

        s = self.synth
        root = parse("python", s.data)
        if root is None:
            s.note("not read as a CDK app: the parser gave up (its CPU budget)", None)
            return False
        s.f = File(PYTHON, s.data, root, path=s.path)
        self.root = root
        return True

    def walk(self) -> tuple[list, list]:
        return self._walk(self.root, ("call",), ("call",))

    def imports(self) -> dict[str, tuple[str, str | None]]:
        out: dict[str, tuple[str, str | None]] = {}
        for stmt in self.root.named_children:
            if stmt.type == "import_statement":  # import aws_cdk as cdk / import aws_cdk.aws_sqs as sqs
                for part in stmt.named_children:
                    name, alias = _aliased(part)
                    family = _module_family(name)
                    if family is None:
                        continue
                    if alias:
                        out[alias] = (family, None)
                    elif "." not in name:
                        out[name] = (family, None)
                    else:  # import aws_cdk.aws_sqs: used as aws_cdk.aws_sqs.Queue
                        out.setdefault("aws_cdk", ("core", None))
            elif stmt.type == "import_from_statement":
                module = stmt.child_by_field_name("module_name")
                family = _module_family(_text(module)) if module is not None else None
                if family is None:
                    continue
                for part in stmt.children_by_field_name("name"):
                    name, alias = _aliased(part)
                    local = alias or name
                    if family == "core" and name.startswith("aws_"):  # from aws_cdk import aws_sqs as sqs
                        out[local] = (name.replace("_", "-"), None)
                    else:  # from aws_cdk.aws_sqs import Queue; from aws_cdk import Duration
                        out[local] = (family, name)
        return out

    def ctor(self, node) -> list[str]:
        return _dotted_py(node.child_by_field_name("function"))

    def args(self, node) -> list:
        args = node.child_by_field_name("arguments")
        if args is None:
            return []
        return [a for a in args.named_children if a.type not in ("comment", "keyword_argument", "dictionary_splat",
                                                                   "list_splat")]  # fmt: skip

    def props_at(self, node, args: list, index: int):
        """A construct's (or a method's) properties: its keyword arguments (the argument list stands for them);
        else a positional argument at ``index`` (a dict or a struct passed as one)."""
        arguments = node.child_by_field_name("arguments")
        if arguments is not None and any(
            a.type in ("keyword_argument", "dictionary_splat") for a in arguments.named_children
        ):
            return arguments
        return args[index] if len(args) > index else None

    def is_construct(self, node) -> bool:
        return node.type == "call"

    def strip(self, node):
        while node is not None and node.type == "parenthesized_expression":
            kids = [k for k in node.named_children if k.type != "comment"]
            node = kids[0] if kids else None
        return node

    def member(self, node) -> tuple | None:
        if node is None or node.type != "attribute":
            return None
        return node.child_by_field_name("object"), camel(_text(node.child_by_field_name("attribute")))

    def method(self, call) -> tuple | None:
        return self.member(call.child_by_field_name("function"))

    def call(self, node) -> tuple | None:
        if node.type != "call":
            return None
        return _dotted_py(node.child_by_field_name("function")), self.args(node)

    def obj(self, node, raw: bool = False, depth: int = 0) -> tuple | None:
        """(key -> value node, open, elsewhere) of keyword arguments, a struct call or a dict literal."""
        from .engine import evaluate

        node = self.strip(node)
        if node is None or depth > MAX_DEPTH:
            return None
        if node.type == "call":  # a struct: keywords only (a construct has its scope and id first)
            if self.args(node):
                return None
            node = node.child_by_field_name("arguments")
            if node is None:
                return None
        if node.type == "argument_list":
            items: dict = {}
            open_ = False
            for a in node.named_children:
                if a.type == "keyword_argument":
                    name, value = a.child_by_field_name("name"), a.child_by_field_name("value")
                    if name is not None and value is not None:
                        items[camel(_text(name))] = value
                elif a.type == "dictionary_splat":
                    inner = (
                        self.obj(self.resolve(a.named_children[0]), raw, depth + 1)
                        if a.named_children
                        else None
                    )
                    if inner is None or inner[2]:
                        open_ = True
                    else:
                        items.update(inner[0])
                        open_ = open_ or inner[1]
            return items, open_, False
        if node.type == "dictionary":
            v = evaluate(node, self.synth.f)
            if v.kind != "dict":
                return None
            items = {}
            for key, pair in v.value.items():
                value = pair.child_by_field_name("value") if pair.type == "pair" else pair
                items[key if raw else camel(key)] = value
            open_ = any(
                c.type == "dictionary_splat"
                and (self.obj(self.resolve(c.named_children[0]), raw, depth + 1) is None)
                for c in node.named_children
                if c.named_children
            )
            return items, open_, False
        return None

    def array(self, node) -> list | None:
        node = self.strip(node)
        if node is None or node.type not in ("list", "tuple"):
            return None
        return [k for k in node.named_children if k.type != "comment"]

    def resolve(self, node, depth=0):
        """Through parentheses and names assigned once in the file (``q = sqs.Queue(...)``, ``self.q = ...``)."""
        f = self.synth.f
        node = self.strip(node)
        while node is not None and depth < MAX_DEPTH:
            depth += 1
            if node.type == "identifier" or (
                node.type == "attribute" and _text(node.child_by_field_name("object")) == "self"
            ):
                right, _where = f.resolve(node, field=node.type == "attribute")
                right = self.strip(right)
                if right is None:
                    return node
                node = right
                continue
            return node
        return node


def _dotted_py(node) -> list[str]:
    """``a.b.C`` -> ["a", "b", "C"]; [] for anything else."""
    parts = []
    while node is not None and node.type == "attribute":
        parts.append(_text(node.child_by_field_name("attribute")))
        node = node.child_by_field_name("object")
    if node is None or node.type != "identifier":
        return []
    parts.append(_text(node))
    return parts[::-1]


def _aliased(part) -> tuple[str, str | None]:
    if part.type == "aliased_import":
        name, alias = part.child_by_field_name("name"), part.child_by_field_name("alias")
        return _text(name), _text(alias) if alias is not None else None
    return _text(part), None
