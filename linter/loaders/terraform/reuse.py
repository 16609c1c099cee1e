"""What the language server keeps of a Terraform root between two lints: each root resource's evaluated
instances (``Res``), reused while nothing it depends on has changed. A one-shot ``visguard lint`` never uses it.

A changed file is parsed by tree-sitter's incremental parse (``hcl.use_trees``: the kept tree, told the edit).
Evaluating every resource is most of a Terraform root's lint (a 500-resource root: ~40 ms of ~60 ms); an edit in
the editor changes one block. After each lint the cache holds, per root folder, a **snapshot** of the root
module's blocks (each resource, data, variable, output and module block and each ``locals`` entry: its file,
position and text) and the root variables' values as given (tfvars, ``--var``), and per root resource what its
evaluation produced: its instances, and the notes and parts-not-read it recorded (replayed as they were).

On the next lint the snapshots are compared. A resource's kept instances are reused only when **all** hold:
- it is not *tainted*. Tainted are the resources, data sources, variables, locals and module calls whose block
  changed, appeared or went away, the variables whose given value changed; every module call; every block that
  refers to a module's outputs (``module.x``: the child module's files are not compared) or a data source, or
  calls a function that reads a file (``file``, ``templatefile``, ...: the file may have changed); and,
  transitively, each block that refers to a tainted name (a walk over who refers to whom: each block once);
- the module has no file that could not be read, every file is native HCL (``.tf``), the text outside those
  blocks in the files that hold them (comments, ``terraform`` and ``provider`` blocks) is unchanged, and the
  loader's inputs (Terragrunt's, ``--var``, ``--var-file``) are equal. (A block of another kind decides nothing
  the loader evaluates: a file of only such blocks is not compared.)
Otherwise the resource is evaluated again, as without the cache. References are found in the block's text
(``type.name``, ``var.x``, ``local.x``, ...): a name mentioned only in a string taints too (evaluated again),
never the reverse. Memory: one entry per root resource, replaced at each lint; roots no longer linted are
dropped (:meth:`BlockCache.keep`).
"""

from __future__ import annotations

import re

_REF = re.compile(r"(?<![\w.\-])((?:data\.)?[A-Za-z_][\w-]*\.[A-Za-z_][\w-]*)")
_READS_FILES = re.compile(r"file\w*\s*\(|abspath\s*\(")
_TRACKED = ("resources", "data", "variables", "outputs", "modules")


class Snapshot:
    """The root module as the last lint read it: ``items`` maps a key (``("resource", type, name)``,
    ``("local", name)``, ...) to (file, line, column, end line, text); ``rest`` is each file's text outside
    them; ``values`` the root variables' values as given."""

    __slots__ = ("items", "rest", "values", "inputs")

    def __init__(self, items, rest, values, inputs):
        self.items, self.rest, self.values, self.inputs = items, rest, values, inputs


class Entry:
    """One root resource's evaluation: the text it was read from, the names it refers to, its instances and
    what it recorded (``("note", where, message, address)`` / ``("problem", error, address, what)``)."""

    __slots__ = ("text", "refs", "resources", "records")

    def __init__(self, text, refs, resources, records):
        self.text, self.refs, self.resources, self.records = text, refs, resources, records


class BlockCache:
    """Per root folder: the last :class:`Snapshot` and the :class:`Entry` of each root resource."""

    def __init__(self):
        self.roots: dict[str, tuple[Snapshot, dict[str, Entry]]] = {}
        self.trees: dict = {}  # file -> its last parse (hcl.use_trees): a changed file is parsed incrementally
        self.reused = (
            0  # resources reused (not evaluated again) in the last lint: for tests and the benchmark
        )

    def keep(self, roots) -> None:
        """Forget the roots not in ``roots``."""
        for key in set(self.roots) - set(roots):
            del self.roots[key]


_CACHE: BlockCache | None = None


def use_blocks(cache: BlockCache | None) -> BlockCache | None:
    """Keep Terraform roots' evaluated resources in ``cache`` from now on (None: nothing kept, as a one-shot lint
    does); returns the cache that was in use."""
    global _CACHE
    from . import hcl

    before, _CACHE = _CACHE, cache
    hcl.use_trees(cache.trees if cache is not None else None)
    return before


def active() -> BlockCache | None:
    return _CACHE


def _lines(src) -> list[str]:
    return src.text.split("\n")


def snapshot(mod, values: dict, inputs: dict, variables: dict = {}, var_files=()) -> Snapshot | None:  # noqa: B006
    """The root module's snapshot, or None when it cannot be compared (a JSON file, a file not read)."""
    if mod.unread:
        return None
    items: dict[tuple, tuple] = {}
    covered: dict[str, set[int]] = {}
    texts: dict[str, list[str]] = {}
    parts = [
        ((group.rstrip("s") if group != "data" else "data", *(name if isinstance(name, tuple) else (name,))),
         block, block.end_line)
        for group in _TRACKED for name, block in getattr(mod, group).items()
    ]  # fmt: skip
    parts += [(("local", name), attr, attr.expr.end_point.row + 1) for name, attr in mod.locals.items()]
    for key, part, end in parts:
        if part.src is None or part.file.endswith(".json"):
            return None
        lines = texts.get(part.file)
        if lines is None:
            lines = texts[part.file] = _lines(part.src)
        items[key] = (part.file, part.line, part.column, end, "\n".join(lines[part.line - 1 : end]))
        covered.setdefault(part.file, set()).update(range(part.line, end + 1))
    rest = {}
    for file, lines in texts.items():
        skip = covered.get(file, ())
        rest[file] = (len(lines), "\n".join(line for i, line in enumerate(lines, 1) if i not in skip))
    given = {}
    for name, (attr, value) in values.items():
        if attr is None:
            given[name] = ("value", repr(value))
        else:
            given[name] = (attr.file, attr.line, attr.column, attr.src.slice(attr.expr) if attr.src else None)
    given_inputs = repr(
        (sorted(inputs.items(), key=lambda kv: kv[0]), sorted(variables.items()), tuple(var_files))
    )
    return Snapshot(items, rest, given, given_inputs)


def _token(key: tuple) -> str | None:
    kind = key[0]
    if kind == "resource":
        return f"{key[1]}.{key[2]}"
    if kind == "data":
        return f"data.{key[1]}.{key[2]}"
    if kind == "variable":
        return f"var.{key[1]}"
    if kind == "local":
        return f"local.{key[1]}"
    if kind == "module":
        return f"module.{key[1]}"
    return None  # a root output: nothing in the root refers to it


def refs(text: str) -> frozenset[str]:
    """The names a block's text refers to (``aws_sqs_queue.q``, ``var.x``, ``data.aws_iam_policy_document.p``)."""
    return frozenset(_REF.findall(text))


def reusable(old: Snapshot | None, new: Snapshot | None) -> set[str] | None:
    """The resource addresses (``type.name``) whose kept entries may be reused, or None when nothing may."""
    if old is None or new is None or old.rest != new.rest or old.inputs != new.inputs:
        return None
    tainted: set[str] = set()
    for key in old.items.keys() | new.items.keys():
        if old.items.get(key) != new.items.get(key):
            token = _token(key)
            if token:
                tainted.add(token)
    tainted |= {
        f"var.{n}" for n in old.values.keys() | new.values.keys() if old.values.get(n) != new.values.get(n)
    }
    # what refers to a tainted name is tainted (its value may have changed: whatever refers to it must be read
    # again): a walk over who-refers-to-whom, each block visited once
    derived = [
        (key, _token(key), refs(item[4]), item[4]) for key, item in new.items.items() if key[0] != "output"
    ]
    users: dict[str, list[str]] = {}
    for key, token, names, text in derived:
        if token is None:
            continue
        if _opaque(key, names, text):
            tainted.add(token)
        for name in names:
            users.setdefault(name, []).append(token)
    todo = list(tainted)
    while todo:
        for token in users.get(todo.pop(), ()):
            if token not in tainted:
                tainted.add(token)
                todo.append(token)
    return {
        f"{key[1]}.{key[2]}" for key, token, _, _ in derived if key[0] == "resource" and token not in tainted
    }


def _opaque(key: tuple, names: frozenset[str], text: str) -> bool:
    """What the snapshot cannot tell unchanged: a module call (its files are not compared), and a block that
    refers to a module's outputs or a data source, or calls a function that reads a file."""
    if key[0] == "module":
        return True
    if key[0] in ("variable", "local") and not names:
        return False
    return bool(_READS_FILES.search(text)) or any(n.startswith(("module.", "data.")) for n in names)
