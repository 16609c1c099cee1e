"""``visguard lint --fix`` / ``--diff`` for Terraform HCL: the literal cases (issue 14 §4, called from fix.py).

The Terraform loader points every value at the place to change it (``Change.location``): the argument in a
``.tf`` file, the ``terraform.tfvars`` line, the variable's ``default``, the module call's argument, the key
inside ``jsonencode({...})`` or an element of a ``for_each`` map; a setting that is not written points at its
resource block. This module turns a change into a text edit there:

- the value is a literal (``60``, ``"60"``, ``[]``, ``["ReportBatchItemFailures"]``): only its characters are
  replaced (a quoted number stays quoted);
- the argument is missing from an ``aws_sqs_queue`` or ``aws_lambda_event_source_mapping`` block: one line
  ``name = value`` is added after the block's last argument, with its indentation;
- a missing dead-letter queue (``field == "redrive"``, a standard queue without count/for_each): a new
  ``aws_sqs_queue "<name>_dlq"`` block after the queue's, keeping messages 14 days, and the queue's one-line
  ``redrive_policy = jsonencode({ deadLetterTargetArn = ..., maxReceiveCount = N })``;
- anything else is left alone with the reason: an expression or reference (``var.x ? ... : ...``,
  ``max(...)``), a file that does not parse, JSON syntax (``.tf.json``), a file outside the linted root module
  (a local child module shared by its callers, ``.terraform/``, a registry module), a value two findings want
  different, or a rewrite that does not parse back with python-hcl2.
"""

from __future__ import annotations

import os
import re

from visguard.linter.changes import CONSUMER_WORDS, QUEUE_WORDS
from visguard.linter.model import Change, Finding

HCL_SUFFIXES = (".tf", ".tfvars")
JSON_SUFFIXES = (".tf.json", ".tfvars.json")
_NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?")
# the resource type a missing argument is added to, by the change's scope
_BLOCK_TYPE = {"queue": "aws_sqs_queue", "consumer": "aws_lambda_event_source_mapping"}


class Skip(Exception):
    pass


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


def _new_text(change: Change) -> str:
    if change.field == "report_batch_item_failures":
        return '["ReportBatchItemFailures"]' if change.value else "[]"
    v = change.value
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise Skip(f"{change.field} = {v!r} is not a number visguard writes")
    return str(v)


def _argument(change: Change) -> str:
    table = QUEUE_WORDS if change.scope == "queue" else CONSUMER_WORDS
    if change.field not in table or change.field in (
        "redrive",
        "redrive.max_receive_count",
        "function_timeout",
    ):
        raise Skip(f"{change.field} is not an argument visguard adds to a Terraform block")
    return table[change.field][2]


# ------------------------------------------------------------------------------------------ the tree
def _literal_kind(expr) -> str | None:
    """ "number", "string-number", "list" (of literal strings) or None (an expression or reference)."""
    from lark import Token, Tree

    node = expr
    if isinstance(node, Tree) and node.data == "expr_term" and len(node.children) == 1:
        node = node.children[0]
    if isinstance(node, Token):
        return "number" if node.type in ("int_lit", "float_lit") or _NUMBER.fullmatch(str(node)) else None
    if node.data in ("int_lit", "float_lit"):
        return "number"
    if node.data == "unary_op":
        inner = node.children[-1]
        return "number" if _literal_kind(inner) == "number" else None
    if node.data == "string":
        parts = [c for c in node.children if isinstance(c, Tree)]
        if len(parts) == 1 and parts[0].data == "string_part":
            text = "".join(str(t) for t in parts[0].children)
            return "string-number" if _NUMBER.fullmatch(text) else None
        return None
    if node.data == "tuple":
        items = [c for c in node.children if isinstance(c, Tree)]
        for item in items:
            s = item.children[0] if item.data == "expr_term" and len(item.children) == 1 else item
            if not isinstance(s, Tree) or s.data != "string":
                return None
            if any(isinstance(c, Tree) and c.data != "string_part" for c in s.children):
                return None
        return "list"
    return None


def _find(tree, line: int, column: int):
    """The attribute, object element or block written at (line, column)."""
    for sub in tree.iter_subtrees():
        if sub.data in ("attribute", "object_elem", "block") and (sub.meta.line, sub.meta.column) == (
            line,
            column,
        ):
            return sub
    return None


def _lines(text: str) -> list[str]:
    """The lines as the HCL parser counts them (only "\n" ends one; str.splitlines also splits at \u2028 ...)."""
    return re.split(r"(?<=\n)", text)


def _offset(lines: list[str], line: int, column: int) -> int:
    return sum(len(s) for s in lines[: line - 1]) + column - 1


def edit_for(
    change: Change, text: str, tree, lines: list[str], taken: set[str] = frozenset()
) -> list[tuple[int, int, str, str]]:
    """[(start, end, new text, what)] of the edits ``change`` makes in ``text``; Skip with the reason otherwise.
    ``taken``: the aws_sqs_queue names the root module already has (a new DLQ gets a free one)."""
    loc = change.location
    if loc is None or loc.line is None or loc.column is None:
        raise Skip("the loader does not know where the value is written")
    node = _find(tree, loc.line, loc.column)
    if node is None:
        raise Skip("the value is not where the loader read it (the file changed?)")
    if change.field == "redrive":
        if node.data != "block":
            raise Skip("the queue's block is not where the loader read it")
        return _add_dlq(change, node, lines, taken)
    if node.data == "block":
        return [_insert(change, node, lines)]
    expr = node.children[-1]
    kind = _literal_kind(expr)
    new = _new_text(change)
    if kind is None:
        raise Skip(f"{_written(text, expr)} is an expression, not a literal: change it by hand")
    if (kind == "list") != (change.field == "report_batch_item_failures"):
        raise Skip(f"{_written(text, expr)} is not a value of this kind")
    m = expr.meta
    start, end = _offset(lines, m.line, m.column), _offset(lines, m.end_line, m.end_column)
    if kind == "string-number":
        new = f'"{new}"'  # the file's quoting is kept ("60" stays a string; Terraform converts it)
    return [(start, end, new, "")]


def _written(text: str, expr) -> str:
    m = expr.meta
    lines = _lines(text)
    s = _offset(lines, m.line, m.column)
    e = _offset(lines, m.end_line, m.end_column)
    said = " ".join(text[s:e].split())
    return said if len(said) <= 60 else said[:57] + "..."


def _insert(
    change: Change, block, lines: list[str], arg: str = "", value: str = ""
) -> tuple[int, int, str, str]:
    from lark import Tree

    from .loaders.terraform.hcl import name_of

    arg = arg or _argument(change)
    head = [c for c in block.children if isinstance(c, Tree) and c.data != "body"]
    labels = [name_of(h) for h in head]
    want = _BLOCK_TYPE[change.scope]
    if labels[:2] != ["resource", want]:
        raise Skip(f"{arg} is not written here and the place is not an {want} block")
    body = next(c for c in block.children if isinstance(c, Tree) and c.data == "body")
    attrs = [c for c in body.children if isinstance(c, Tree) and c.data == "attribute"]
    if any(name_of(a.children[0]) == arg for a in attrs):
        raise Skip(f"{arg} is already written in the block")
    if not attrs or block.meta.end_line == block.meta.line:
        raise Skip("a block without arguments on lines of their own")
    last = attrs[-1]
    indent = " " * (last.meta.column - 1)
    first_line = lines[last.meta.line - 1]
    eq = first_line.find("=", last.meta.column - 1)
    name_width = max(len(arg), eq - (last.meta.column - 1) - 1) if eq > 0 else len(arg)
    new_line = f"{indent}{arg.ljust(name_width)} = {value or _new_text(change)}\n"
    if last.meta.end_line >= block.meta.end_line:
        raise Skip("the block's closing brace is on the line of its last argument")
    at = _offset(lines, last.meta.end_line + 1, 1)
    return at, at, new_line, arg


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


def _add_dlq(change: Change, block, lines: list[str], taken) -> list[tuple[int, int, str, str]]:
    """A new ``aws_sqs_queue`` after the queue's block, keeping messages 14 days, and the queue's one-line
    ``redrive_policy = jsonencode({...})`` to it (a standard queue without count or for_each only)."""
    from lark import Tree

    from .loaders.terraform.hcl import name_of

    head = [name_of(c) for c in block.children if isinstance(c, Tree) and c.data != "body"]
    if head[:2] != ["resource", "aws_sqs_queue"] or len(head) != 3 or not _NAME.fullmatch(head[2]):
        raise Skip("the queue is not an aws_sqs_queue block of this file")
    body = next(c for c in block.children if isinstance(c, Tree) and c.data == "body")
    attrs = {name_of(a.children[0]) for a in body.children if isinstance(a, Tree) and a.data == "attribute"}
    if attrs & {"count", "for_each"}:
        raise Skip("the queue has count or for_each: add a dead-letter queue per instance by hand")
    if attrs & {"fifo_queue", "redrive_policy"}:
        raise Skip("a FIFO queue or one with a redrive_policy: add the dead-letter queue by hand")
    name, n = f"{head[2]}_dlq", 2
    while name in taken:
        name, n = f"{head[2]}_dlq{n}", n + 1
    v = change.value
    policy = (
        f"jsonencode({{ deadLetterTargetArn = aws_sqs_queue.{name}.arn, "
        f"maxReceiveCount = {int(v['max_receive_count'])} }})"
    )
    redrive = _insert(change, block, lines, "redrive_policy", policy)
    end = block.meta.end_line
    if end >= len(lines) or not lines[end - 1].endswith("\n"):
        raise Skip("the queue's block ends the file")
    pad = " " * (block.meta.column - 1)
    indent = redrive[2][: len(redrive[2]) - len(redrive[2].lstrip())]
    qname = _literal_string(body, "name")
    named = ""
    if (
        qname and re.fullmatch(r"[A-Za-z0-9_-]{1,76}", qname) and f"name:{qname}-dlq" not in taken
    ):  # SQS names: 80 characters at most
        named = f'{indent}{"name".ljust(25)} = "{qname}-dlq"\n'
    new = (
        f'\n{pad}resource "aws_sqs_queue" "{name}" {{\n{named}'
        f"{indent}message_retention_seconds = {int(v['retention'])}\n{pad}}}\n"
    )
    at = _offset(lines, end + 1, 1)
    return [redrive, (at, at, new, f"dlq:{name}")]


def _literal_string(body, arg: str) -> str | None:
    """The value of ``arg = "text"`` in a block body when it is a plain string (no ``${...}``)."""
    from lark import Tree

    from .loaders.terraform.hcl import name_of

    for a in body.children:
        if isinstance(a, Tree) and a.data == "attribute" and name_of(a.children[0]) == arg:
            node = a.children[-1]
            node = node.children[0] if node.data == "expr_term" and len(node.children) == 1 else node
            if isinstance(node, Tree) and node.data == "string":
                parts = [c for c in node.children if isinstance(c, Tree)]
                if len(parts) == 1 and parts[0].data == "string_part":
                    return "".join(str(t) for t in parts[0].children)
            return None
    return None


def queue_names(text: str) -> set[str]:
    """The aws_sqs_queue resource names of ``text``, and ``name:<n>`` for every literal ``name = "<n>"``."""
    names = set(re.findall(r'resource\s+"aws_sqs_queue"\s+"([^"]+)"', text))
    return names | {f"name:{n}" for n in re.findall(r'(?m)^\s*name\s*=\s*"([^"$]*)"', text)}


# ------------------------------------------------------------------------------------------ one file
def fix_text(path: str, text: str, findings: list[Finding], taken: set[str] | None = None):
    """The FileFix (visguard.linter.fix) of one HCL file: the literal changes of ``findings`` written in."""
    from visguard.errors import VisguardError

    from .fix import FileFix
    from .loaders.terraform.hcl import parse_tree

    out = FileFix(path, text, text)
    try:
        tree = parse_tree(text, path)
    except VisguardError:
        out.skipped += [(f, "the file does not parse") for f in findings]
        return out
    lines = _lines(text)
    planned: list[tuple[Finding, dict[tuple[int, int, str], str]]] = []
    wanted: dict[tuple[int, int, str], set[str]] = {}
    for f in findings:
        try:
            mine: dict[tuple[int, int, str], str] = {}
            for ch in f.changes:
                for s, e, new, what in edit_for(ch, text, tree, lines, taken or queue_names(text)):
                    if mine.setdefault((s, e, what), new) != new:
                        raise Skip("its changes set the same value twice, differently")
        except Skip as why:
            out.skipped.append((f, str(why)))
            continue
        planned.append((f, mine))
        for key, new in mine.items():
            wanted.setdefault(key, set()).add(new)
    edits: dict[tuple[int, int, str], str] = {}
    # a value two findings want different (a shared variable) is for a person to choose
    for f, mine in planned:
        clash = [k for k in mine if len(wanted[k]) > 1]
        if clash:
            said = " or ".join(sorted(x.strip() for x in wanted[clash[0]]))
            out.skipped.append((f, f"findings want this value set to {said}: choose by hand"))
            continue
        edits.update(mine)
        out.applied.append(f)
    after = text
    for (s, e, _), new in sorted(edits.items(), reverse=True):
        after = after[:s] + new + after[e:]
    if after != text:
        try:
            parse_tree(after, path)
        except VisguardError:
            out.skipped += [(f, "the rewrite would not parse: left untouched") for f in out.applied]
            out.applied = []
            return out
    out.after = after
    return out


# ------------------------------------------------------------------------------------------ a root module
def fix_root(root: str, findings: list[Finding], read, write) -> list:
    """One FileFix per file of the root module ``root`` that findings change (and one, unchanged, per file
    outside it that a change points at, to say why it was left alone)."""
    from .fix import FileFix, _same_file
    from .loaders.terraform.load import tf_files

    by_file: dict[str, list[Finding]] = {}
    outside: dict[str, list[tuple[Finding, str]]] = {}
    for f in findings:
        files = {ch.location.file for ch in f.changes if ch.location and ch.location.file}
        if len(files) != 1:
            where = f.location.file or root
            outside.setdefault(where, []).append((f, "its changes are not in one file of the module"))
            continue
        file = files.pop()
        if not in_root(file, root):
            why = (
                "the value is written in a module outside the root module (its callers share it; "
                ".terraform/ and registry modules are never edited): change it by hand"
            )
            outside.setdefault(file, []).append((f, why))
        elif os.path.islink(file):
            outside.setdefault(file, []).append((f, "a symbolic link: --fix writes only regular files"))
        elif file.endswith(JSON_SUFFIXES) or not file.endswith(HCL_SUFFIXES):
            outside.setdefault(file, []).append((f, "Terraform JSON syntax is not rewritten by --fix"))
        else:
            key = next((k for k in by_file if _same_file(k, file)), file)
            by_file.setdefault(key, []).append(f)
    results = []
    taken = set().union(*(queue_names(read(p)) for p in tf_files(root) if p.endswith(".tf")))
    for file, mine in sorted(by_file.items()):
        ff = fix_text(file, read(file), mine, taken)
        if ff.changed:
            ff.notes = shared_notes(root, ff.applied, read)
            write(ff)
        results.append(ff)
    for file, skipped in sorted(outside.items()):
        results.append(FileFix(file, "", "", skipped=skipped))
    return results


def shared_notes(root: str, applied: list[Finding], read) -> list[str]:
    """A variable or local the fix changed that the root module uses more than once: every use gets the value."""
    from .loaders.terraform.load import tf_files

    names = set()
    for f in applied:
        for ch in f.changes:
            owner, _, name = (ch.location.path or "").partition("/") if ch.location else ("", "", "")
            if owner.startswith("var.") and name == "default":
                names.add(owner)
            elif owner == "locals" and name:
                names.add(f"local.{name}")
            elif owner.endswith((".tfvars", ".tfvars.json")) and name:
                names.add(f"var.{name}")
    if not names:
        return []
    texts = [read(p) for p in tf_files(root) if p.endswith(".tf")]
    notes = []
    for ref in sorted(names):
        uses = sum(len(re.findall(rf"\b{re.escape(ref)}\b(?![\w-])", t)) for t in texts)
        if uses > 1:
            notes.append(f"{ref} is used {uses} times in the root module: the new value applies to every use")
    return notes
