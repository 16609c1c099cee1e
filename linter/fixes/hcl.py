"""``visguard lint --fix`` / ``--diff`` for Terraform HCL: the literal cases (issue 14 §4, called from fix.py).

The Terraform loader points every value at the place to change it (``Change.location``): the argument in a
``.tf`` file, the ``terraform.tfvars`` line, the variable's ``default``, the module call's argument, the key
inside ``jsonencode({...})`` or an element of a ``for_each`` map; a setting that is not written points at its
resource block. This module turns a change into a text edit there:

- the value is a literal (``60``, ``"60"``, ``[]``, ``["ReportBatchItemFailures"]``): only its characters are
  replaced (a quoted number stays quoted);
- the argument is missing from an ``aws_sqs_queue`` or ``aws_lambda_event_source_mapping`` block: one line
  ``name = value`` is added after the block's last argument, with its indentation;
- a missing dead-letter queue (``field == "redrive"``, a queue without count/for_each): a new
  ``aws_sqs_queue "<name>_dlq"`` block after the queue's, keeping messages 14 days, and the queue's one-line
  ``redrive_policy = jsonencode({ deadLetterTargetArn = ..., maxReceiveCount = N })``; for a FIFO queue named
  ``"<name>.fifo"``, a FIFO dead-letter queue ``"<name>-dlq.fifo"``;
- a worker consumer (issue 24): a container's ``stopTimeout`` inside ``jsonencode([{ ... }])`` is edited where
  written, or added to the container's object literal on a line of its own; an ``aws:elasticbeanstalk:sqsd``
  setting's ``value`` is edited where written (a quoted number stays quoted), or a ``setting`` block is added
  after the environment's last argument or block;
- anything else is left alone with the reason: an expression or reference (``var.x ? ... : ...``,
  ``max(...)``), a variable or local the root module uses more than once (its ``default``, ``.tfvars`` value or
  ``locals`` entry would change every use), a file that does not parse, a file outside the linted root module
  (a local child module shared by its callers, ``.terraform/``, a registry module), a value two findings want
  different, or a rewrite that does not parse back (tree-sitter-hcl, the loader's parser).

This module is the HCL adapter of the fix core (visguard.linter.fixes.core: it only locates a change and renders
its edits; the core plans, applies the clash policy and checks the rewrite) and says which findings of a root
module may be fixed at all (``select``). Files in Terraform's JSON syntax (``*.tf.json``) have their adapter in
``fixes.tfjson``. visguard.linter.fix reads and writes the files.
"""

from __future__ import annotations

import os
import re

from visguard.linter.fixes import terraform as words
from visguard.linter.fixes.core import Adapter, CannotFix, Edit, splice
from visguard.linter.model import Change, Finding

HCL_SUFFIXES = (".tf", ".tfvars")
JSON_SUFFIXES = (".tf.json", ".tfvars.json")


# ------------------------------------------------------------------------------------------ the root module
def root_of(path: str) -> str | None:
    """The root module folder of a linted input: the folder itself, or the folder of a ``.tf`` file."""
    from visguard.linter.loaders import terraform

    if os.path.isdir(path):
        return path if terraform.claim_dir(path) else None
    if path.endswith((".tf", ".tf.json")):
        return os.path.dirname(path) or "."
    return None


def is_plan(path: str) -> bool:
    """A ``terraform show -json`` plan (the Terraform loader's test)."""
    from visguard.linter.loaders import terraform

    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    return path.lower().endswith(".json") and terraform.claim_file(path, head)


def in_root(file: str, root: str) -> bool:
    """``file`` is one of the root module's own files (not in a subfolder: no child module, no .terraform/)."""
    try:
        return os.path.samefile(os.path.dirname(os.path.abspath(file)), root)
    except OSError:
        return False


# ------------------------------------------------------------------------------------------ the tree
class Tree:
    """A parsed HCL file: its tree-sitter root node and its Source (tree-sitter counts bytes, edits characters)."""

    def __init__(self, root, src):
        self.root, self.src = root, src

    def span(self, node) -> tuple[int, int]:
        """(start, end) of ``node`` as indexes into the file's text."""
        return self.src.offset(node.start_byte), self.src.offset(node.end_byte)


def _parse(text: str, path: str) -> Tree:
    from visguard.linter.loaders.terraform.hcl import parse_source

    return Tree(*parse_source(text, path))


def _term(expr):
    """The one term an ``expression`` node is (``60``, ``"60"``, ``-5``, ``[...]``), or None."""
    kids = [c for c in expr.children if c.type != "comment"] if expr is not None else []
    if len(kids) != 1:
        return None
    node = kids[0]
    if node.type == "collection_value":
        node = node.named_children[0]
    return node


def _literal_kind(expr, tree: Tree) -> str | None:
    """ "number", "string-number", "list" (of literal strings) or None (an expression or reference)."""
    node = _term(expr)
    if node is None:
        return None
    if node.type == "operation":
        op = node.named_children[0]
        kids = [c for c in op.children if c.type != "comment"]
        if op.type == "unary_operation" and kids[0].type == "-" and len(kids) == 2:
            inner = kids[1]
            return "number" if inner.type == "literal_value" and _number(inner, tree) else None
        return None
    if node.type == "literal_value":
        if _number(node, tree):
            return "number"
        lit = node.named_children[0]
        if lit.type == "string_lit":
            return "string-number" if words.NUMBER.fullmatch(tree.src.slice(lit)[1:-1]) else None
        return None
    if node.type == "tuple":
        for item in node.named_children:
            if item.type != "expression":
                continue
            s = _term(item)
            if s is None or s.type != "literal_value" or s.named_children[0].type != "string_lit":
                return None
        return "list"
    return None


def _number(literal, tree: Tree) -> bool:
    lit = literal.named_children[0]
    return lit.type == "numeric_lit" and bool(re.fullmatch(r"[0-9.eE+-]+", tree.src.slice(lit)))


def _find(tree: Tree, line: int, column: int, types=("attribute", "object_elem", "block")):
    """The attribute, object element or block (or another of ``types``) written at (line, column)."""
    stack = [tree.root]
    while stack:
        node = stack.pop()
        row = node.start_point.row + 1
        if row > line or node.end_point.row + 1 < line:
            continue
        if node.type in types and row == line and tree.src.column(node) == column:
            return node
        stack.extend(reversed(node.children))
    return None


def _value(node):
    """The value expression of an attribute or object element."""
    from visguard.linter.loaders.terraform.hcl import expr_of

    return expr_of(node)


def _lines(text: str) -> list[str]:
    """The lines as the HCL parser counts them (only "\n" ends one; str.splitlines also splits at \u2028 ...)."""
    return re.split(r"(?<=\n)", text)


def _offset(lines: list[str], line: int, column: int) -> int:
    return sum(len(s) for s in lines[: line - 1]) + column - 1


def edit_for(change: Change, tree: Tree, lines: list[str], taken: set[str] = frozenset()) -> list[tuple]:
    """(key, value, (start, end, render)) of each edit ``change`` makes (``render(value)`` is the text that
    replaces ``text[start:end]``; the key is what it sets: the place of the value, or of the block and the argument
    added); CannotFix with the reason otherwise. ``taken``: the aws_sqs_queue names the root module already has (a
    new DLQ gets a free one)."""
    loc = change.location
    if loc is None or loc.line is None or loc.column is None:
        raise CannotFix("the loader does not know where the value is written")
    consumer = _consumer_kind(change)
    types = ("attribute", "object_elem", "block") + (("object",) if consumer == "ecs" else ())
    node = _find(tree, loc.line, loc.column, types)
    if node is None:
        raise CannotFix("the value is not where the loader read it (the file changed?)")
    where = (loc.line, loc.column)
    if consumer is not None and node.type in ("block", "object"):
        arg, place = _add_consumer_setting(change, consumer, node, tree, lines)
        return [((*where, arg), change.value, place)]
    if change.field == "redrive":
        if node.type != "block":
            raise CannotFix("the queue's block is not where the loader read it")
        return [
            ((*where, what), change.value, place)
            for what, place in _add_dlq(change, node, tree, lines, taken)
        ]
    if node.type == "block":
        arg, place = _insert(change, node, tree, lines)
        return [((*where, arg), change.value, place)]
    expr = _value(node)
    kind = _literal_kind(expr, tree)
    if kind is None:
        raise CannotFix(f"{_written(tree, expr)} is an expression, not a literal: change it by hand")
    if (kind == "list") != (change.field == "report_batch_item_failures"):
        raise CannotFix(f"{_written(tree, expr)} is not a value of this kind")
    start, end = tree.span(expr)
    quote = '"' if kind == "string-number" else ""  # the file's quoting is kept ("60" stays a string)

    def render(value):
        return f"{quote}{words.literal(change.replace(value=value))}{quote}"

    render(change.value)  # a value visguard does not write is refused here
    return [((*where, ""), change.value, (start, end, render))]


# ------------------------------------------------------------------------------------------ worker consumers
# a consumer change on a worker consumer (issue 24): the container's stopTimeout inside
# ``jsonencode([{ ... }])``, or an ``aws:elasticbeanstalk:sqsd`` setting block's value
_SQSD_FIELDS = {
    "visibility_override": "VisibilityTimeout",
    "inactivity_timeout": "InactivityTimeout",
    "work_timeout": "InactivityTimeout",
}


def _consumer_kind(change: Change) -> str | None:
    """ "ecs" / "beanstalk" for a consumer change of a task definition's or a worker environment's setting."""
    if change.scope != "consumer":
        return None
    rtype = _aws(re.sub(r"^(?:module\.[^.]+\.)*", "", change.target).split(".", 1)[0])
    if rtype == "aws_ecs_task_definition" and change.field == "stop_timeout":
        return "ecs"
    if rtype == "aws_elastic_beanstalk_environment" and change.field in _SQSD_FIELDS:
        return "beanstalk"
    return None


def _add_consumer_setting(change: Change, kind: str, node, tree: Tree, lines: list[str]):
    """(what is added, (start, end, render)): ``stopTimeout = N`` in a container's object literal, or a
    ``setting`` block of the sqsd namespace in a worker environment."""
    from visguard.facts import SQSD_NAMESPACE
    from visguard.linter.loaders.terraform.hcl import block_parts

    if kind == "ecs":
        if node.type != "object":
            raise CannotFix(
                "container_definitions is not a jsonencode([...]) of object literals: add stopTimeout to the "
                "container by hand"
            )
        key = "stop_timeout" if _is_awscc(change.target) else "stopTimeout"  # awscc: snake_case attributes
        elems = [c for c in node.named_children if c.type == "object_elem"]
        if any(tree.src.slice(e.named_children[0]).strip().strip('"') == key for e in elems):
            raise CannotFix(f"{key} is already written in the container")
        if not elems or node.end_point.row == elems[-1].end_point.row:
            raise CannotFix("a container object without elements on lines of their own")
        last = elems[-1]
        indent = " " * (tree.src.column(last) - 1)
        end_line = last.end_point.row + 1
        after = lines[end_line - 1][tree.src.column(last) - 1 :].rstrip("\n")
        if "," in after and not after.rstrip().endswith(","):
            raise CannotFix("the container's last element shares its line with another")

        def render_stop(value):
            return f"{indent}{key} = {words.literal(change.replace(value=value))}\n"

        render_stop(change.value)
        at = _offset(lines, end_line + 1, 1)
        return key, (at, at, render_stop)
    labels, body = block_parts(node, tree.src)
    if labels[:2] != ["resource", "aws_elastic_beanstalk_environment"]:
        raise CannotFix("the setting is not written here and the place is not the worker environment's block")
    option = _SQSD_FIELDS[change.field]
    children = [c for c in body.children if c.type in ("attribute", "block")] if body is not None else []
    if not children or node.end_point.row == children[-1].end_point.row:
        raise CannotFix("a block without arguments on lines of their own")
    last = children[-1]
    pad = " " * (tree.src.column(last) - 1)
    inner = pad + "  "
    at = _offset(lines, last.end_point.row + 2, 1)

    def render_setting(value):
        v = words.literal(change.replace(value=value))
        return (
            f'\n{pad}setting {{\n{inner}namespace = "{SQSD_NAMESPACE}"\n{inner}name      = "{option}"\n'
            f'{inner}value     = "{v}"\n{pad}}}\n'
        )

    render_setting(change.value)
    return f"setting:{option}", (at, at, render_setting)


def _written(tree: Tree, expr) -> str:
    said = " ".join(tree.src.slice(expr).split())
    return said if len(said) <= 60 else said[:57] + "..."


def _attributes(body, tree: Tree) -> list:
    return [c for c in body.children if c.type == "attribute"] if body is not None else []


def _name(attr, tree: Tree) -> str:
    return tree.src.slice(attr.children[0])


def _insert(change: Change, block, tree: Tree, lines: list[str], arg: str = "", text: str = ""):
    """(the argument, (start, end, render)) of a line ``arg = value`` added after the block's last argument."""
    from visguard.linter.loaders.terraform.hcl import block_parts

    arg = arg or words.argument(change)
    labels, body = block_parts(block, tree.src)
    want = words.BLOCK_TYPE[change.scope]
    if labels[:1] != ["resource"] or len(labels) < 2 or _aws(labels[1]) != want:
        raise CannotFix(f"{arg} is not written here and the place is not an {want} block")
    arg = _argument(labels[1], arg)
    attrs = _attributes(body, tree)
    if any(_name(a, tree) == arg for a in attrs):
        raise CannotFix(f"{arg} is already written in the block")
    block_line, block_end = block.start_point.row + 1, block.end_point.row + 1
    if not attrs or block_end == block_line:
        raise CannotFix("a block without arguments on lines of their own")
    last = attrs[-1]
    last_line, last_col, last_end = last.start_point.row + 1, tree.src.column(last), last.end_point.row + 1
    indent = " " * (last_col - 1)
    first_line = lines[last_line - 1]
    eq = first_line.find("=", last_col - 1)
    name_width = max(len(arg), eq - (last_col - 1) - 1) if eq > 0 else len(arg)
    if last_end >= block_end:
        raise CannotFix("the block's closing brace is on the line of its last argument")

    def render(value):
        return f"{indent}{arg.ljust(name_width)} = {text or words.literal(change.replace(value=value))}\n"

    render(change.value)
    at = _offset(lines, last_end + 1, 1)
    return arg, (at, at, render)


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


def _add_dlq(change: Change, block, tree: Tree, lines: list[str], taken) -> list[tuple[str, tuple]]:
    """A new ``aws_sqs_queue`` after the queue's block, keeping messages 14 days, and the queue's one-line
    ``redrive_policy = jsonencode({...})`` to it. A FIFO queue's dead-letter queue must be FIFO too ("the
    dead-letter queue of a FIFO queue must also be a FIFO queue", SQS Developer Guide): it gets ``fifo_queue =
    true`` and a name ending in ``.fifo``, so the queue's own name must be a literal ``"<name>.fifo"`` to derive it
    from. A queue with ``count`` or ``for_each`` (written on one line) gets one dead-letter queue per instance: the
    same ``count``/``for_each``, no name (the provider gives each a unique one), and each instance's redrive
    policy points at its own (``[count.index]``, ``[each.key]``)."""
    from visguard.linter.loaders.terraform.hcl import block_parts

    head, body = block_parts(block, tree.src)
    if (
        head[:1] != ["resource"]
        or len(head) != 3
        or _aws(head[1]) != "aws_sqs_queue"
        or not _NAME.fullmatch(head[2])
    ):
        raise CannotFix("the queue is not an aws_sqs_queue block of this file")
    rtype = head[1]  # aws_sqs_queue, or awscc_sqs_queue: the new queue is written in the queue's own provider
    name_arg, retention_arg = _argument(rtype, "name"), _argument(rtype, "message_retention_seconds")
    by_name = {_name(a, tree): a for a in _attributes(body, tree)}
    attrs = set(by_name)
    meta = next((m for m in ("for_each", "count") if m in attrs), None)
    repeat = tree.src.slice(_value(by_name[meta])).strip() if meta else ""
    if "\n" in repeat:
        raise CannotFix(f"the queue's {meta} spans lines: add a dead-letter queue per instance by hand")
    if "redrive_policy" in attrs:
        raise CannotFix("the queue has a redrive_policy: add the dead-letter queue by hand")
    fifo = _literal_bool(body, tree, "fifo_queue") if "fifo_queue" in attrs else False
    if fifo is None:
        raise CannotFix("fifo_queue is not a literal true or false: add the dead-letter queue by hand")
    if fifo and meta:
        raise CannotFix(f"a FIFO queue with {meta}: add a dead-letter queue per instance by hand")
    name, n = f"{head[2]}_dlq", 2
    while name in taken:
        name, n = f"{head[2]}_dlq{n}", n + 1
    v = change.value
    index = {"for_each": "[each.key]", "count": "[count.index]"}.get(meta or "", "")
    policy = (
        f"jsonencode({{ deadLetterTargetArn = {rtype}.{name}{index}.arn, "
        f"maxReceiveCount = {int(v['max_receive_count'])} }})"
    )
    _, redrive = _insert(change, block, tree, lines, "redrive_policy", policy)
    first = redrive[2](v)
    end = block.end_point.row + 1
    if end >= len(lines) or not lines[end - 1].endswith("\n"):
        raise CannotFix("the queue's block ends the file")
    pad = " " * (tree.src.column(block) - 1)
    indent = first[: len(first) - len(first.lstrip())]
    qname = _literal_string(body, tree, name_arg)
    named = ""
    suffix = ".fifo" if fifo else ""  # SQS names: 80 characters at most, a FIFO queue's ending in .fifo
    base = (
        qname[: -len(suffix)] if qname and suffix and qname.endswith(suffix) else (None if suffix else qname)
    )
    dlq_name = f"{base}-dlq{suffix}"
    if (
        not meta
        and base
        and re.fullmatch(r"[A-Za-z0-9_-]+", base)
        and len(dlq_name) <= 80
        and f"name:{dlq_name}" not in taken
    ):
        named = f'{indent}{name_arg.ljust(25)} = "{dlq_name}"\n'
    elif fifo:
        raise CannotFix(
            'a FIFO queue without a literal name "<name>.fifo": add the dead-letter queue by hand'
        )
    width = max(len(name_arg), len(retention_arg))  # the longest argument the new block writes
    if named:
        named = f'{indent}{name_arg.ljust(width)} = "{dlq_name}"\n'
    fifo_line = f"{indent}{'fifo_queue'.ljust(width)} = true\n" if fifo else ""
    meta_line = f"{indent}{meta.ljust(width)} = {repeat}\n" if meta else ""
    new = (
        f'\n{pad}resource "{rtype}" "{name}" {{\n{meta_line}{named}{fifo_line}'
        f"{indent}{retention_arg.ljust(width)} = {int(v['retention'])}\n{pad}}}\n"
    )
    at = _offset(lines, end + 1, 1)
    return [("redrive_policy", redrive), (f"dlq:{name}", (at, at, lambda value: new))]


def _literal_bool(body, tree: Tree, arg: str) -> bool | None:
    """``arg = true`` / ``false`` in a block body (None: anything else)."""
    for a in _attributes(body, tree):
        if _name(a, tree) == arg:
            node = _term(_value(a))
            if node is not None and node.type == "literal_value":
                text = tree.src.slice(node.named_children[0])
                return {"true": True, "false": False}.get(text)
            return None
    return None


def _literal_string(body, tree: Tree, arg: str) -> str | None:
    """The value of ``arg = "text"`` in a block body when it is a plain string (no ``${...}``)."""
    for a in _attributes(body, tree):
        if _name(a, tree) == arg:
            node = _term(_value(a))
            if node is not None and node.type == "literal_value":
                lit = node.named_children[0]
                if lit.type == "string_lit":
                    return tree.src.slice(lit)[1:-1]
            return None
    return None


def queue_names(text: str) -> set[str]:
    """The aws_sqs_queue (and awscc_sqs_queue) resource names of ``text``, and ``name:<n>`` for every literal
    ``name = "<n>"`` (``queue_name`` in awscc)."""
    names = set(re.findall(r'resource\s+"awsc?c?_sqs_queue"\s+"([^"]+)"', text))
    return names | {f"name:{n}" for n in re.findall(r'(?m)^\s*(?:queue_)?name\s*=\s*"([^"$]*)"', text)}


def _is_awscc(target: str) -> bool:
    """A change of a resource of the Cloud Control provider (``awscc_sqs_queue.jobs``, in a module or not)."""
    return re.sub(r"^(?:module\.[^.]+\.)*", "", target).startswith("awscc_")


def _aws(rtype: str) -> str:
    """The aws_* type a resource type is read as (an awscc_* type's, loaders.terraform.awscc)."""
    from visguard.linter.loaders.terraform import awscc

    return awscc.kind(rtype)


def _argument(rtype: str, arg: str) -> str:
    """The aws_* argument ``arg`` as a resource of ``rtype`` writes it (``visibility_timeout`` in awscc)."""
    from visguard.linter.loaders.terraform import awscc

    return awscc.argument(rtype, arg) or arg


# ------------------------------------------------------------------------------------------ the adapter
class HclAdapter(Adapter):
    """Terraform's native syntax: edits are spans of the text as read, found with the loader's parser."""

    source = "terraform"

    def __init__(self, path: str, taken: set[str] | None = None):
        self.path, self.taken = path, taken

    def parse(self, text: str):
        return (
            _parse(text, self.path),
            _lines(text),
            self.taken if self.taken is not None else queue_names(text),
        )

    def locate(self, change: Change, doc) -> list[tuple]:
        tree, lines, taken = doc
        return edit_for(change, tree, lines, taken)

    def render(self, text: str, doc, edits: list[Edit]) -> tuple[str, dict]:
        return splice(text, edits)

    def check(self, text: str) -> None:
        _parse(text, self.path)


def adapter_for(path: str, taken: set[str] | None = None) -> Adapter:
    """The adapter of a Terraform file: HCL, or JSON syntax (``*.tf.json``, ``*.tfvars.json``)."""
    if path.endswith(JSON_SUFFIXES):
        from visguard.linter.fixes.tfjson import TfJsonAdapter

        return TfJsonAdapter(path)
    return HclAdapter(path, taken)


def fix_text(path: str, text: str, findings: list[Finding], taken: set[str] | None = None, choices=None):
    """The FileFix (visguard.linter.fixes.core) of one Terraform file, HCL or JSON syntax: the literal changes
    of ``findings`` written in."""
    from visguard.linter.fixes.core import plan_text

    return plan_text(adapter_for(path, taken), path, text, findings, choices)


# ------------------------------------------------------------------------------------------ a root module
def select(root: str, findings: list[Finding], texts: list[str]):
    """({file: its findings}, {file: [(finding, why it is left alone)]}) of the root module ``root``: a change
    is written only in the module's own Terraform files, in one file per finding, and never in a variable or local
    the module uses more than once (``texts``: the module's ``.tf`` files)."""
    by_file: dict[str, list[Finding]] = {}
    skipped: dict[str, list[tuple[Finding, str]]] = {}
    shared = shared_uses(findings, texts)
    for f in findings:
        files = {ch.location.file for ch in f.changes if ch.location and ch.location.file}
        if len(files) != 1:
            where = f.location.file or root
            skipped.setdefault(where, []).append((f, "its changes are not in one file of the module"))
            continue
        file = files.pop()
        refs = sorted(r for r in defined_by(f) if r in shared)
        if not in_root(file, root):
            why = (
                "the value is written in a module outside the root module (its callers share it; "
                ".terraform/ and registry modules are never edited): change it by hand"
            )
            skipped.setdefault(file, []).append((f, why))
        elif refs:
            why = (
                f"the value is {refs[0]}, used {shared[refs[0]]} times in the root module: a new value would "
                "change every use, change it by hand"
            )
            skipped.setdefault(file, []).append((f, why))
        elif not file.endswith(HCL_SUFFIXES + JSON_SUFFIXES):
            skipped.setdefault(file, []).append((f, "not a Terraform file of the module"))
        else:
            key = next((k for k in by_file if _same_file(k, file)), file)
            by_file.setdefault(key, []).append(f)
    return by_file, skipped


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


def defined_by(finding: Finding) -> set[str]:
    """The variables and locals (``var.x``, ``local.y``) whose definition the finding's changes rewrite: a
    variable's ``default``, a ``.tfvars`` value, an entry of ``locals``."""
    names = set()
    for ch in finding.changes:
        owner, _, name = (ch.location.path or "").partition("/") if ch.location else ("", "", "")
        if owner.startswith("var.") and name == "default":
            names.add(owner)
        elif owner == "locals" and name:
            names.add(f"local.{name}")
        elif owner.endswith((".tfvars", ".tfvars.json")) and name:
            names.add(f"var.{name}")
    return names


def shared_uses(findings: list[Finding], texts: list[str]) -> dict[str, int]:
    """The variables and locals the findings' changes would rewrite that ``texts`` (the root module's ``.tf``
    files) use more than once, with their number of uses: a fix there is left to a person, since the new value
    would apply to every use (issue 28: never change more than the value the finding is about)."""
    out = {}
    for ref in sorted(set().union(*(defined_by(f) for f in findings))):
        uses = sum(len(re.findall(rf"\b{re.escape(ref)}\b(?![\w-])", t)) for t in texts)
        if uses > 1:
            out[ref] = uses
    return out
