"""``visguard lint --fix`` / ``--diff`` for Terraform HCL: the literal cases (issue 14 §4, called from fix.py).

The Terraform loader points every value at the place to change it (``Change.location``): the argument in a
``.tf`` file, the ``terraform.tfvars`` line, the variable's ``default``, the module call's argument, the key
inside ``jsonencode({...})`` or an element of a ``for_each`` map; a setting that is not written points at its
resource block. This module turns a change into a text edit there:

- the value is a literal (``60``, ``"60"``, ``[]``, ``["ReportBatchItemFailures"]``): only its characters are
  replaced (a quoted number stays quoted);
- the argument is missing from an ``aws_sqs_queue`` or ``aws_lambda_event_source_mapping`` block: one line
  ``name = value`` is added after the block's last argument, with its indentation;
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


def edit_for(change: Change, text: str, tree, lines: list[str]) -> tuple[int, int, str, str]:
    """(start, end, new text, what) of the edit ``change`` makes in ``text``; Skip with the reason otherwise."""
    loc = change.location
    if loc is None or loc.line is None or loc.column is None:
        raise Skip("the loader does not know where the value is written")
    if change.field == "redrive":
        raise Skip("adding a dead-letter queue is not written into Terraform by --fix (add it by hand)")
    node = _find(tree, loc.line, loc.column)
    if node is None:
        raise Skip("the value is not where the loader read it (the file changed?)")
    if node.data == "block":
        return _insert(change, node, lines)
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
    return start, end, new, ""


def _written(text: str, expr) -> str:
    m = expr.meta
    lines = _lines(text)
    s = _offset(lines, m.line, m.column)
    e = _offset(lines, m.end_line, m.end_column)
    said = " ".join(text[s:e].split())
    return said if len(said) <= 60 else said[:57] + "..."


def _insert(change: Change, block, lines: list[str]) -> tuple[int, int, str, str]:
    from lark import Tree

    from .loaders.terraform.hcl import name_of

    arg = _argument(change)
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
    new_line = f"{indent}{arg.ljust(name_width)} = {_new_text(change)}\n"
    if last.meta.end_line >= block.meta.end_line:
        raise Skip("the block's closing brace is on the line of its last argument")
    at = _offset(lines, last.meta.end_line + 1, 1)
    return at, at, new_line, arg


# ------------------------------------------------------------------------------------------ one file
def fix_text(path: str, text: str, findings: list[Finding]):
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
                s, e, new, what = edit_for(ch, text, tree, lines)
                if mine.setdefault((s, e, what), new) != new:
                    raise Skip("its changes set the same value twice, differently")
        except Skip as why:
            out.skipped.append((f, str(why)))
            continue
        planned.append((f, mine))
        for key, new in mine.items():
            wanted.setdefault(key, set()).add(new)
    edits: dict[tuple[int, int, str], str] = {}
    for (
        f,
        mine,
    ) in planned:  # a value two findings want different (a shared variable) is for a person to choose
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
    for file, mine in sorted(by_file.items()):
        ff = fix_text(file, read(file), mine)
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
