"""A Terraform root module folder -> :class:`~.build.Res` records -> the model.

Reads ``*.tf`` and ``*.tf.json`` of the folder (one root module), the variable values Terraform would use
(``terraform.tfvars``, ``terraform.tfvars.json``, ``*.auto.tfvars(.json)`` in lexical order, then
``--var-file`` files in order, then ``--var NAME=VALUE``), local child modules (``source = "./modules/x"``)
with the arguments of their call, and the two registry modules visguard models (module calls: ``modules.py``;
expressions: ``evaluate.py``, in the :class:`~.scope.Scope` of each module instance).
Only the resources visguard checks are evaluated; an expression it cannot evaluate is kept as "not known
here" and noted once (``TerraformModel.notes``), never guessed.
"""

from __future__ import annotations

import gc
import os
import re

from visguard.errors import VisguardError
from visguard.linter.model import Location, Model, Suppression
from visguard.records import Record, fresh

from . import awscc, reuse
from .build import ARGS, Res, build_model
from .consumers import NEEDED_BY, NESTED_BLOCKS, ROLE_HELPERS
from .consumers import ROLE as ROLE_TYPE
from .evaluate import Env, _key_value, text_of
from .files import _read_text, confined, linked, outside_note, unquoted
from .hcl import Attr, Block, JsonExpr, parse_attrs, parse_expression, parse_hcl, parse_json
from .instances import EACH_SOURCE
from .lambda_env import KEYED_ARGS
from .modules import ROOT, ModuleReader, scope_suppressions
from .scope import Module, Scope
from .values import Bound, Encoded, Ref, Text, Unknown

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

# Terraform's and OpenTofu's file endings; foo.tofu takes the place of foo.tf (opentofu.org/docs/language/files)
SUFFIXES = (".tf", ".tf.json", ".tofu", ".tofu.json")
_OVERRIDE = r"(?:^|_)override\.(?:tf|tofu)(?:\.json)?$"
_MISSING_REF = object()
MAX_FILES = 2000
QUEUE = "aws_sqs_queue"

# map arguments of nested blocks whose keys are located one by one (an App Runner service's environment)
_KEYED_MAPS = frozenset(("runtime_environment_variables",))


class Note(Record):
    """Something the loader could not evaluate or read: what, why, where, and the address it is about (a
    resource, ``var.x``, ``module.jobs``; :data:`ROOT` for the root module's own files)."""

    __slots__ = ("message", "location", "address", "fix")

    def __init__(self, message: str, location: Location, address: str | None = None, fix: str | None = None):
        self.message = message
        self.location = location
        self.address = address or location.path or ROOT
        self.fix = fix  # what to do, when VG902's general advice does not fit


class TerraformModel(Model):
    """A Model read from Terraform; its notes are :class:`Note` records; ``files`` lists the files read."""

    __slots__ = {"files": fresh(list)}


def listing(
    directory: str, suffixes: tuple[str, ...] = SUFFIXES, asked: str | None = None
) -> tuple[list[str], list[str]]:
    """(the regular files of ``directory`` ending in ``suffixes`` that stay inside it, or inside the folder
    ``asked`` (what the command line named: a root's ``locals.tf`` linked to ``../../shared/locals.tf`` of the
    linted tree is read), the symlinks among them that lead outside both: never read). ``foo.tf`` is left out
    when ``foo.tofu`` is there (``.tf.json`` and ``.tofu.json`` likewise), as OpenTofu reads a folder."""
    try:
        names = sorted(os.listdir(directory))
    except OSError as exc:
        raise VisguardError(f"cannot list the folder: {exc.strerror}", file=directory) from None
    inside: list[str] = []
    outside: list[str] = []
    for n in names:
        p = os.path.join(directory, n)
        if n.endswith(suffixes) and os.path.isfile(p):
            if n.endswith((".tf", ".tf.json")) and _tofu_name(n) in names:
                continue
            ok = confined(p, directory) or (asked is not None and confined(p, asked))
            (inside if ok else outside).append(p)
    if len(inside) > MAX_FILES:
        raise VisguardError(f"more than {MAX_FILES} Terraform files in one module", file=directory)
    return inside, outside


def asked_folder(asked: str) -> str:
    """The folder a path on the command line names: itself, or a file's folder."""
    return asked if os.path.isdir(asked) else (os.path.dirname(asked) or ".")


def _tofu_name(name: str) -> str:
    """foo.tf -> foo.tofu, foo.tf.json -> foo.tofu.json: the OpenTofu file that takes its place."""
    return name[:-8] + ".tofu.json" if name.endswith(".tf.json") else name[:-3] + ".tofu"


def tf_files(directory: str) -> list[str]:
    """The ``*.tf`` / ``*.tf.json`` files of ``directory`` that stay inside it once symlinks are resolved."""
    return listing(directory)[0]


def hidden(path: str, asked: str | None) -> bool:
    """Whether ``path`` was reached through a symlink leading outside the folder ``asked`` (a file named on the
    command line, read because it was asked for): then no message quotes its text. A link inside what was asked
    leads to the user's own file, shown as any other."""
    return linked(path) and (asked is None or not confined(path, asked))


def _parse_file(path: str, native, json_syntax, asked: str | None = None):
    """``path`` parsed by ``native`` (HCL) or ``json_syntax`` (``*.json``), and whether its text is hidden
    (:func:`hidden`: then its parse errors quote none of its text, and neither may anything read from it)."""
    text = _read_text(path)
    is_json = path.endswith(".json")
    link = hidden(path, asked)
    try:
        return (json_syntax if is_json else native)(text, path), link
    except VisguardError as exc:
        if link:
            raise unquoted(exc, path, "JSON" if is_json else "HCL") from None
        raise


def read_blocks(path: str, asked: str | None = None) -> list[Block]:
    blocks, link = _parse_file(path, parse_hcl, parse_json, asked)
    if link:
        for b in blocks[:1]:
            b.src.shown = False  # one Source per file: no expression of it is quoted
    return blocks


class TerraformLoader(ModuleReader):
    def __init__(
        self,
        root: str,
        *,
        variables: dict[str, str] | None = None,
        var_files: tuple[str, ...] = (),
        inputs: dict[str, Any] | None = None,
        input_locations: dict[str, Location] | None = None,
        asked: str | None = None,
    ):
        self.root = root
        # the folder the command line named (a file: its folder): a symlink or a file() may lead anywhere
        # inside it, never outside (docs/security.md)
        self.asked = asked_folder(asked or root)
        self.inputs = inputs or {}  # evaluated root variable values given by a caller (Terragrunt's inputs)
        self.input_locations = input_locations or {}  # where each of them is written
        self.defaults_unknown: str | None = None  # why a root variable without a value is not known here
        self.variables = dict(variables or {})
        self.var_files = tuple(var_files)
        self.notes: list[Note] = []
        self._noted: set[str] = set()
        self.resources: list[Res] = []
        self._module_cache: dict[str, Module] = {}
        self._lines: dict[str, list[str]] = {}  # file -> its lines (comment suppressions)
        self._marks: dict[str, list[int]] = {}  # file -> indexes of its lines that hold "visguard:ignore"
        self._installed: dict[str, str] | None = None  # module key -> folder, from .terraform/modules
        self._refs: dict[int, tuple[str, str] | None] = {}  # id(attr) -> simple_ref(attr)
        self._linked: set[str] = (
            set()
        )  # files read through a symlink out of `asked`: no message shows their text
        self.problems: list[
            tuple[VisguardError, str, str]
        ] = []  # (error, address, what) of each part not read
        self.files: list[str] = []  # every file read
        # data.aws_sqs_queue.x / data.aws_lambda_function.f -> (type, the name it looks up or None, where)
        self.data: dict[str, tuple[str, str | None, Location]] = {}
        self.deferred: list = []  # (scope, block, type, address) of resources read only if needed
        # addresses of the roles (instances) an ECS task or a pod may assume that nothing of the configuration
        # uses (roles.py): each may be the consumer of a workload deployed elsewhere
        self.free_roles: set[str] = set()
        # [expression, why, where it is written, noted] of each var./local. a module whose files were not all
        # read does not declare (Scope.var / Scope.local): a note each, never the input's error
        self.undeclared: list[list] = []
        self.quiet: list[
            tuple
        ] = []  # (where, message, address) of notes kept only if a queue or consumer needs it
        self.file_texts: dict[
            str, Any
        ] = {}  # real path -> text (or why not known) of file()/templatefile() reads
        # the language server's kept root resources (reuse.py): what a root resource's reading records, the
        # entries that may be reused, the new ones, and the root's snapshot
        self._capture: list | None = None
        self._kept: dict = {}
        self._entries: dict | None = None
        self._snapshot = None

    # -------------------------------------------------------------------------------------------- notes
    def note(
        self, where: Block | Attr | Location, message: str, address: str, fix: str | None = None
    ) -> None:
        loc = where if isinstance(where, Location) else Location(where.file, where.line, where.column)
        if self._capture is not None:  # every note, before it is de-duplicated: replayed with a kept resource
            self._capture.append(("note", loc, message, address))
        if loc.file in self._linked:
            message = (
                f"{loc.file}: not evaluated here (a file reached through a symlink: its text is not shown)"
            )
        if message in self._noted:
            return
        self._noted.add(message)
        self.notes.append(Note(message, loc, address, fix))

    def data_source(self, scope: Scope, address: str, block: Block) -> None:
        """Record a ``data "aws_sqs_queue"`` / ``data "aws_lambda_function"`` block referred to: the name it
        looks up (None when not known here). A name that is a queue's (a function's) own name attribute, not
        known here (``name = aws_sqs_queue.q.name``, often through a module's variable), is kept as that reference:
        whatever the name turns out to be, the data source looks up that resource."""
        if address in self.data:
            return
        from .evaluate import DATA_NAMES

        kind = block.labels[0]
        attr = block.attrs.get(DATA_NAMES[kind])
        name = None
        if attr is not None:
            try:
                v = scope.eval_attr(attr)
            except VisguardError as exc:
                self.unreadable(exc, address)
                v = None
            own = {
                "aws_sqs_queue": ("aws_sqs_queue", "name"),
                "aws_lambda_function": ("aws_lambda_function", "function_name"),
            }
            ref_ok = (
                isinstance(v, Ref) and (v.address.rpartition(".")[0].rsplit(".", 1)[-1], v.attr) == own[kind]
            )
            name = v if isinstance(v, str) or ref_ok else None
        self.data[address] = (kind, name, Location(block.file, block.line, block.column, path=address))

    def undeclared_name(self, scope: Scope, kind: str, name: str) -> Unknown:
        """``var.x`` / ``local.x`` that a module whose files were not all read (``Module.unread``) does not
        declare: not known here (it may be declared in the file not read), recorded for a note."""
        expr = f"{kind}.{name}"
        why = f"not declared in the files read here ({scope.mod.unread} not read)"
        self.undeclared.append([scope.prefix + expr, why, None, False])
        return Unknown(expr, why)

    def note_undeclared(self, owner: str | None = None, since: int = 0) -> None:
        """One note for each undeclared name met since ``since`` (on ``owner``, the resource whose argument needs
        it, else on the name itself), naming the expression and where it is written."""
        for hit in self.undeclared[since:]:
            expr, why, where, noted = hit
            if noted:
                continue
            hit[3] = True
            arg = f"{where.path} uses " if where is not None and where.path else ""
            self.note(
                where or Location(self.root),
                f"{owner + ': ' if owner else ''}{arg}{expr}, {why}: not known here, the rules that need it are "
                "skipped",
                owner or expr,
            )

    def unreadable(self, exc: VisguardError, address: str, what: str | None = None) -> None:
        """A part of the root module (a file, a module call, a resource: ``what``, default its address) that
        cannot be read: recorded, and the rest is still read and linted. A bound (:class:`Bound`) refuses the
        whole input."""
        if isinstance(exc, Bound):
            raise exc
        if self._capture is not None:
            self._capture.append(("problem", exc, address, what))
        self.problems.append((exc, address, what or address))

    # -------------------------------------------------------------------------------------------- modules
    def read_module(
        self, directory: str, files: list[str] | None = None, address: str = ROOT, outside: list[str] = ()
    ) -> Module:
        key = os.path.realpath(directory)
        if key in self._module_cache:
            return self._module_cache[key]
        blocks: list[Block] = []
        if files is None:
            files, outside = listing(directory, asked=self.asked)
            for path in outside:
                self.note(Location(path), outside_note(path, self.asked), address)
        unread = [os.path.basename(p) for p in outside]  # each is noted on its own, with why
        for path in files:
            if hidden(path, self.asked):
                self._linked.add(path)
            if re.search(_OVERRIDE, os.path.basename(path)):
                self.note(Location(path), f"{path}: override files are not merged by visguard", address)
                unread.append(os.path.basename(path))
                continue
            try:
                blocks += read_blocks(path, self.asked)
            except VisguardError as exc:  # one file that does not parse: the module's other files are read
                self.unreadable(exc, address, path)
                unread.append(os.path.basename(path))
                continue
            self.files.append(path)
        problems: list = []
        mod = Module(directory, blocks, problems)
        if unread:  # a name it does not declare may be declared there: "not known here", never an error
            mod.unread = ", ".join(unread[:3]) + (f" and {len(unread) - 3} more" if len(unread) > 3 else "")
        prefix = "" if address == ROOT else address + "."
        for exc, name in problems:
            self.unreadable(exc, prefix + name)
        self._module_cache[key] = mod
        return mod

    def root_values(self, mod: Module) -> dict[str, tuple[Attr | None, Any]]:
        values: dict[str, tuple[Attr | None, Any]] = {
            k: (None, v) for k, v in self.inputs.items() if k in mod.variables
        }  # Terragrunt's inputs are TF_VAR_ variables: the lowest precedence, undeclared ones ignored
        d = self.root
        found, outside = listing(d, (".tfvars", ".tfvars.json"), self.asked) if os.path.isdir(d) else ([], [])
        for path in outside:
            self.note(Location(path), outside_note(path, self.asked), ROOT)
        names = [os.path.basename(p) for p in found]
        auto = [os.path.join(d, n) for n in ("terraform.tfvars", "terraform.tfvars.json") if n in names]
        auto += [os.path.join(d, n) for n in names if n.endswith((".auto.tfvars", ".auto.tfvars.json"))]
        for path in [*auto, *self.var_files]:
            if hidden(path, self.asked):
                self._linked.add(path)
            attrs = read_vars(path, self.asked)
            self.files.append(path)
            for name, attr in attrs.items():
                if name not in mod.variables:
                    self.note(
                        attr, f"{path}: {name} is not a variable of the root module (ignored)", f"var.{name}"
                    )
                    continue
                values[name] = (attr, None)
        for name, raw in self.variables.items():
            if name not in mod.variables:
                raise VisguardError(f"--var {name}: the root module has no variable {name!r}")
            values[name] = (None, _cli_value(raw, name))
        return values

    # -------------------------------------------------------------------------------------------- resources
    def collect(self, scope: Scope) -> None:
        for (rtype, rname), block in scope.mod.resources.items():
            if rtype not in ARGS and rtype not in awscc.RESOURCES:
                continue
            base = f"{scope.prefix}{rtype}.{rname}"
            if awscc.kind(rtype) in NEEDED_BY:  # read only when the root has the consumer that needs it
                self.deferred.append((scope, block, rtype, base))
                continue
            self.read_resource(scope, block, rtype, base)
        for (dtype, dname), block in scope.mod.data.items():
            rtype = f"data.{dtype}"
            if rtype in NEEDED_BY:
                self.deferred.append((scope, block, rtype, f"{scope.prefix}{rtype}.{dname}"))
        for name in scope.mod.modules:
            scope.module_obj(name)

    def collect_needed(self) -> None:
        """The resources a consumer reader needs (a task role's policies, a service of a task definition, a
        pipe's target), read only when the root holds such a consumer: a root without one lints as fast."""
        present = {r.type for r in self.resources}
        read: dict[str, list[Res]] = {}  # address of a block read here -> its instances
        for scope, block, rtype, base in self.deferred:
            if NEEDED_BY[awscc.kind(rtype)] not in present:
                continue
            start = len(self.resources)
            self.read_resource(scope, block, rtype, base)
            read[base] = self.resources[start:]
        has_role = any(awscc.kind(d[2]) == ROLE_TYPE for d in self.deferred)
        if has_role and QUEUE in present and self.free_role_blocks(read):
            for scope, block, rtype, base in self.deferred:  # the grants of a free role
                if base not in read and awscc.kind(rtype) in ROLE_HELPERS:
                    self.read_resource(scope, block, rtype, base)
        self.deferred = []

    def free_role_blocks(self, read: dict[str, list[Res]]) -> bool:
        """The roles an ECS task or a pod may assume that nothing of the configuration uses (roles.py), into
        :attr:`free_roles`; a role is evaluated only when its trust policy as written names such a principal."""
        from . import roles

        found = False
        for scope, block, rtype, base in self.deferred:
            if rtype not in roles.ROLE_TYPES or not roles.may_be_workload(scope, block, rtype):
                continue
            if roles.used(scope, block, rtype, []):
                continue  # by its address: not evaluated for it
            if base not in read:
                start = len(self.resources)
                self.read_resource(scope, block, rtype, base)
                read[base] = self.resources[start:]
            instances = [r for r in read[base] if r.type == ROLE_TYPE]
            names = [r.values["name"] for r in instances if isinstance(r.values.get("name"), str)]
            if instances and not roles.used(scope, block, rtype, names):
                self.free_roles.update(r.address for r in instances)
                found = True
        return found

    def read_resource(self, scope: Scope, block: Block, rtype: str, base: str) -> None:
        """The instances of one resource block, read (or, in the language server, reused: reuse.py)."""
        if self._entries is None or scope.prefix:
            self._read_resource(scope, block, rtype, base)
            return
        kept = self._kept.get(base)
        if kept is not None:
            self._replay(scope, kept)
            self._entries[base] = kept
            return
        start = len(self.resources)
        self._capture = records = []
        try:
            self._read_resource(scope, block, rtype, base)
        finally:
            self._capture = None
        item = self._snapshot.items.get(("resource", rtype, block.labels[1])) if self._snapshot else None
        if item is not None:
            from .reuse import Entry, refs

            self._entries[base] = Entry(item[4], refs(item[4]), self.resources[start:], records)

    def _read_resource(self, scope: Scope, block: Block, rtype: str, base: str) -> None:
        try:
            instances = scope.instances(block, base)
        except VisguardError as exc:
            self.unreadable(exc, base)
            return
        for address, env in instances:
            self.resources.append(self.resource(scope, block, rtype, address, env))

    def _replay(self, scope: Scope, entry) -> None:
        """A kept root resource: what its reading recorded is recorded again, in order. The names it read are read
        again (``ref``: cached after the first read, whose notes are then recorded, whichever resource reads
        them first), then its own notes and parts not read."""
        for record in entry.records:
            if record[0] == "ref":
                try:
                    if record[1] == "var":
                        scope.var(record[2])
                    elif record[1] == "local":
                        scope.local(record[2])
                    else:
                        scope.resource_value(record[2])
                except VisguardError as exc:
                    if isinstance(exc, Bound):
                        raise
            elif record[0] == "note":
                self.note(record[1], record[2], record[3])
            else:
                self.unreadable(record[1], record[2], record[3])
        self.resources.extend(entry.resources)
        reuse.active().reused += 1

    def resource(self, scope: Scope, block: Block, rtype: str, address: str, env: Env) -> Res:
        kind = awscc.kind(rtype)  # an awscc_* resource is read as its aws_* type, by its own argument names
        cc = kind != rtype
        r = Res(kind, address, Location(block.file, block.line, block.column, path=address))
        met = len(self.undeclared)
        for arg in ARGS[kind]:
            name = awscc.argument(rtype, arg)
            if name is None:
                continue
            try:
                if "." in arg:
                    if cc:
                        self.attribute_object(scope, block, r, arg, name, env)
                    else:
                        self.nested(scope, block, r, arg, env)
                    continue
                if arg in NESTED_BLOCKS and name not in block.attrs:
                    self.blocks_of(scope, block, r, arg, env)
                    continue
                attr = block.attrs.get(name)
                if attr is None:
                    continue
                value = scope.eval_attr(attr, env)
            except VisguardError as exc:  # the resource is not linted; the others are (build.Builder.skip)
                if isinstance(exc, Bound):
                    raise
                r.unread = r.unread or exc
                continue
            r.values[arg] = value
            r.locations[arg] = self.origin(scope, attr, env, address)
            if arg == "redrive_policy":
                for key, loc in self.key_locations(
                    scope, attr, env, address, ("maxReceiveCount", "deadLetterTargetArn")
                ):
                    r.locations[f"{arg}.{key}"] = loc
            elif arg == "container_definitions":
                for key, loc in self.literal_locations(scope, attr, env, address):
                    r.locations[f"{arg}{key}"] = loc
            elif cc and arg in awscc.OBJECT_ARGS and isinstance(value, dict):
                self.object_locations(scope, attr, env, r, arg, value)
        if cc:
            awscc.normalize(r)
        if len(self.undeclared) > met:
            self.note_undeclared(address, met)
        r.suppressions = self.suppressions(block) + scope_suppressions(scope)
        return r

    def blocks_of(self, scope: Scope, block: Block, r: Res, bname: str, env: Env) -> None:
        """Repeated nested blocks (``setting { namespace = ... name = ... value = ... }``, ``statement {...}``)
        and dynamic ones whose for_each is known, as a list of maps (the shape a plan gives them); each value
        located at ``bname[i].name``. Blocks inside them become lists of maps too (``source_parameters {
        sqs_queue_parameters { batch_size = 5 } }``)."""
        out: list = []
        self._blocks_into(scope, block, r, bname, env, bname, out, 0)
        if out or block.nested(bname) or any(d.labels == [bname] for d in block.nested("dynamic")):
            r.values[bname] = out

    def _blocks_into(self, scope, block, r, bname, env, path, out, depth) -> None:
        items: list[tuple[Block, Env]] = [(b, env) for b in block.nested(bname)]
        for d in block.nested("dynamic"):
            if d.labels != [bname] or "for_each" not in d.attrs or not d.nested("content"):
                continue
            coll = scope.eval_attr(d.attrs["for_each"], env)
            if isinstance(coll, dict):
                pairs = list(coll.items())
            elif isinstance(coll, list):
                pairs = list(enumerate(coll))
            else:
                self.note(d, f"{r.address}: dynamic {bname} ({_why(coll)}) is not known here", r.address)
                continue
            iterator = parse_name(d.attrs["iterator"]) if "iterator" in d.attrs else bname
            scope.budget.spend(len(pairs))
            content = d.nested("content")[0]
            items += [(content, env.child(**{iterator: {"key": k, "value": v}})) for k, v in pairs]
        for b, e in items:
            i = len(out)
            here = f"{path}[{i}]"
            value: dict = {}
            for name, attr in b.attrs.items():
                value[name] = scope.eval_attr(attr, e)
                r.locations[f"{here}.{name}"] = self.origin(scope, attr, e, r.address)
                if name in _KEYED_MAPS and isinstance(value[name], dict):  # where each variable is written
                    for key in list(value[name])[:50]:
                        loc = self.path_location(scope, attr, e, r.address, [key])
                        if loc is not None:
                            r.locations[f"{here}.{name}.{key}"] = loc
            r.locations.setdefault(here, Location(b.file, b.line, b.column, path=f"{r.address}/{here}"))
            if depth < 3:
                for sub in {x.type for x in b.blocks} - {"dynamic", "content"}:
                    inner: list = []
                    self._blocks_into(scope, b, r, sub, e, f"{here}.{sub}", inner, depth + 1)
                    value[sub] = inner
            out.append(value)

    def literal_locations(self, scope: Scope, attr: Attr, env: Env, owner: str) -> list[tuple[str, Location]]:
        """(``[0].stopTimeout``, where it is written) for the elements of the list and object literals of an
        argument (``jsonencode([{ name = "app", stopTimeout = 30 }])``, through a local or a variable's
        default); ``[0]`` is where the first object starts. Bounded: the first 2,000 elements."""
        target, owner, _ = self.origin_attr(scope, attr, env, owner)
        if isinstance(target.expr, JsonExpr):
            return []
        node = _encoded_tuple(target.expr, target.src)
        if node is None:
            return []
        src, out = target.src, []
        stack = [(node, "")]
        while stack and len(out) < 2000:
            n, path = stack.pop()
            if n.type == "tuple":
                items = [c for c in n.named_children if c.type == "expression"]
                for i, item in reversed(list(enumerate(items))):
                    inner = _first_collection(item, shallow=True)
                    if inner is not None:
                        stack.append((inner, f"{path}[{i}]"))
                continue
            out.append(
                (
                    path,
                    Location(
                        target.file, n.start_point.row + 1, src.column(n), path=f"{owner}/{target.name}{path}"
                    ),
                )
            )
            for k, elem, v in _elements(n, src):
                key = f"{path}.{k}"
                out.append(
                    (
                        key,
                        Location(
                            target.file,
                            elem.start_point.row + 1,
                            src.column(elem),
                            path=f"{owner}/{target.name}{key}",
                        ),
                    )
                )
                inner = _first_collection(v, shallow=True)
                if inner is not None:
                    stack.append((inner, key))
        return out

    def attribute_object(self, scope: Scope, block: Block, r: Res, arg: str, name: str, env: Env) -> None:
        """``scaling_config = { maximum_concurrency = 5 }`` (the awscc provider's nested attribute objects)."""
        outer, inner = name.split(".", 1)
        attr = block.attrs.get(outer)
        if attr is None:
            return
        v = scope.eval_attr(attr, env)
        if isinstance(v, dict) and inner in v:
            r.values[arg] = v[inner]
            r.locations[arg] = self.path_location(scope, attr, env, r.address, [inner]) or self.origin(
                scope, attr, env, r.address
            )
        elif isinstance(v, (Unknown, Ref)):
            r.values[arg] = Unknown(f"{outer}.{inner}", _why(v))
            r.locations[arg] = self.origin(scope, attr, env, r.address)

    def object_locations(self, scope: Scope, attr: Attr, env: Env, r: Res, arg: str, value: dict) -> None:
        """Where each key of an attribute object is written (``source_parameters = { sqs_queue_parameters = {
        batch_size = 5 } }``), under the keys a block of the same shape gets (``source_parameters[0]
        .sqs_queue_parameters[0].batch_size``). Two levels, at most 50 keys."""
        todo = [([k], v) for k, v in value.items()]
        seen = 0
        while todo and seen < 50:
            path, v = todo.pop(0)
            seen += 1
            loc = self.path_location(scope, attr, env, r.address, path)
            if loc is not None:
                r.locations[f"{arg}[0]." + "[0].".join(path)] = loc
            if isinstance(v, dict) and len(path) < 2:
                todo += [([*path, k], x) for k, x in v.items()]

    def nested(self, scope: Scope, block: Block, r: Res, arg: str, env: Env) -> None:
        """``scaling_config { maximum_concurrency = N }`` (or a dynamic block of one element)."""
        bname, aname = arg.split(".", 1)
        if "." in aname:
            self.nested_deep(scope, block, r, arg, env)
            return
        for b in block.nested(bname):
            if aname in b.attrs:
                r.values[arg] = scope.eval_attr(b.attrs[aname], env)
                r.locations[arg] = self.origin(scope, b.attrs[aname], env, r.address)
                if arg in KEYED_ARGS and isinstance(r.values[arg], dict):  # where each key is written
                    for key in list(r.values[arg])[:200]:
                        loc = self.path_location(scope, b.attrs[aname], env, r.address, [key])
                        if loc is not None:
                            r.locations[f"{arg}.{key}"] = loc
        for d in block.nested("dynamic"):
            if d.labels != [bname]:
                continue
            content = d.nested("content")
            if not content or aname not in content[0].attrs or "for_each" not in d.attrs:
                continue
            coll = scope.eval_attr(d.attrs["for_each"], env)
            items = _dynamic_items(coll)
            iterator = bname
            if "iterator" in d.attrs:
                it = d.attrs["iterator"]
                iterator = parse_name(it)
            attr = content[0].attrs[aname]
            if items is None:
                r.values[arg] = Unknown(f"dynamic {bname}", "its for_each is not known here")
            elif items:
                k, v = items[0]
                r.values[arg] = scope.eval_attr(attr, env.child(**{iterator: {"key": k, "value": v}}))
            r.locations[arg] = Location(attr.file, attr.line, attr.column, path=f"{r.address}/{arg}")

    def nested_deep(self, scope: Scope, block: Block, r: Res, arg: str, env: Env) -> None:
        """A block in a block (``capacity_provider_config { lambda_managed_instances_capacity_provider_config {
        capacity_provider_arn = ... } }``), a dynamic one by its first element when its for_each is known."""
        *names, aname = arg.split(".")
        level: list[tuple[Block, Env]] = [(block, env)]
        for bname in names:
            below: list[tuple[Block, Env]] = []
            for b, e in level:
                below += [(nb, e) for nb in b.nested(bname)]
                for d in b.nested("dynamic"):
                    content = d.nested("content")
                    if d.labels != [bname] or not content or "for_each" not in d.attrs:
                        continue
                    coll = scope.eval_attr(d.attrs["for_each"], e)
                    items = _dynamic_items(coll)
                    if items is None:
                        fe = d.attrs["for_each"]
                        r.values[arg] = Unknown(f"dynamic {bname}", "its for_each is not known here")
                        r.locations[arg] = Location(fe.file, fe.line, fe.column, path=f"{r.address}/{arg}")
                        return
                    if items:
                        it = parse_name(d.attrs["iterator"]) if "iterator" in d.attrs else bname
                        k, v = items[0]
                        below.append((content[0], e.child(**{it: {"key": k, "value": v}})))
            level = below
        for b, e in level:
            if aname in b.attrs:
                r.values[arg] = scope.eval_attr(b.attrs[aname], e)
                r.locations[arg] = self.origin(scope, b.attrs[aname], e, r.address)

    # -------------------------------------------------------------------------------------------- locations
    def origin(self, scope: Scope, attr: Attr, env: Env, owner: str) -> Location:
        """Where to change a value: the argument itself, or (for ``var.x`` / ``local.x``) where x got its value:
        the module call's argument, the tfvars line or the variable's default; for ``each.value.x``, the element
        of the for_each map."""
        ref = self._refs.get(id(attr), _MISSING_REF)
        if ref is _MISSING_REF:
            ref = self._refs[id(attr)] = simple_ref(attr)  # the attrs live as long as the loader
        if ref is None and EACH_SOURCE not in env.names:
            return Location(
                attr.file, attr.line, attr.column, path=f"{owner}/{attr.name}"
            )  # the argument itself
        target, owner, each = self.origin_attr(scope, attr, env, owner)
        if each is not None:
            return each
        return Location(target.file, target.line, target.column, path=f"{owner}/{target.name}")

    def origin_attr(
        self, scope: Scope, attr: Attr, env: Env, owner: str
    ) -> tuple[Attr, str, Location | None]:
        for _ in range(12):
            ref = self._refs.get(id(attr), _MISSING_REF)
            if ref is _MISSING_REF:
                ref = self._refs[id(attr)] = simple_ref(attr)  # the attrs live as long as the loader
            if ref is None:
                return attr, owner, self.each_origin(attr, env)
            kind, name = ref
            if kind == "local":
                a = scope.mod.locals.get(name)
                if a is None:
                    break
                attr, env, owner = a, Env(), "locals"
                continue
            src = scope.var_source(name)
            if src is None and scope.inputs is None and name in self.input_locations:
                return attr, owner, self.input_locations[name]  # terragrunt.hcl's inputs = { name = ... }
            if src is None:
                break
            a, s, e = src
            if a.name == "default":
                owner = f"var.{name}"
            elif s is not scope:  # an argument of the module call, in the caller's file
                owner = scope.prefix[:-1]
            else:
                owner = os.path.basename(a.file)
            attr, scope, env = a, s, e
        return attr, owner, None

    # patterns compiled on first use (``re`` caches them): most modules need neither
    _EACH = r"^\"?\$?\{?\s*each\.value(?:\.([A-Za-z_][A-Za-z0-9_-]*)|\[\"([^\"]+)\"\])?\s*\}?\"?$"

    def each_origin(self, attr: Attr, env: Env) -> Location | None:
        """``each.value.timeout`` where for_each is an object literal (here, in a local, a variable default or a
        tfvars file): the line of that element (``email = { timeout = 20 }``)."""
        src = env.names.get(EACH_SOURCE)
        if src is None or isinstance(attr.expr, JsonExpr):
            return None
        m = re.match(self._EACH, text_of(attr.expr, attr.src))
        key = (env.names.get("each") or {}).get("key")
        if m is None or not isinstance(key, str):
            return None
        fe_attr, fe_scope = src
        target, owner, _ = self.origin_attr(fe_scope, fe_attr, Env(), "for_each")
        if isinstance(target.expr, JsonExpr):
            return None
        name = m.group(1) or m.group(2)
        path = [key, name] if name else [key]
        pos = _path_position(target.expr, target.src, path)
        if pos is None:
            return None
        return Location(target.file, pos[0], pos[1], path=f"{owner}/{target.name}.{'.'.join(path)}")

    def key_locations(
        self, scope: Scope, attr: Attr, env: Env, owner: str, keys: tuple[str, ...]
    ) -> list[tuple[str, Location]]:
        """(key, where ``key = ...`` is written) for each of ``keys`` found in the first object literal of the
        expression (``jsonencode({maxReceiveCount = 5})``), in the order of ``keys``."""
        target, owner, _ = self.origin_attr(scope, attr, env, owner)
        if isinstance(target.expr, JsonExpr):
            return []
        obj = _first_object(target.expr)
        if obj is None:
            return []
        src, found = target.src, {}
        for k, elem, _ in _elements(obj, src):
            if k in keys and k not in found:
                found[k] = Location(
                    target.file, elem.start_point.row + 1, src.column(elem), path=f"{owner}/{target.name}.{k}"
                )
        return [(k, found[k]) for k in keys if k in found]

    def path_location(self, scope: Scope, attr: Attr, env: Env, owner: str, path: list) -> Location | None:
        target, owner, _ = self.origin_attr(scope, attr, env, owner)
        if isinstance(target.expr, JsonExpr):
            return None
        pos = _path_position(target.expr, target.src, path)
        if pos is None:
            return None
        return Location(target.file, pos[0], pos[1], path=f"{owner}/{target.name}.{'.'.join(path)}")

    # -------------------------------------------------------------------------------------------- suppressions
    _IGNORE = r"(?:#|//)\s*visguard:ignore\s+([A-Za-z0-9*,]+)[ \t]*(.*)$"

    def suppressions(self, block: Block) -> list[Suppression]:
        """``# visguard:ignore VG011[,VG020] reason`` on the lines just above a block or inside it."""
        if not block.src or block.line is None:
            return []
        lines = self._lines.get(block.file)
        if lines is None:
            text = block.src.text
            # most files hold no suppression: they are not split into lines
            lines = self._lines[block.file] = text.splitlines() if "visguard:ignore" in text else []
            self._marks[block.file] = [i for i, ln in enumerate(lines) if "visguard:ignore" in ln]
        marks = self._marks[block.file]
        if not marks or marks[0] >= (block.end_line or block.line):
            return []  # no suppression comment above the end of this block
        start = block.line - 1
        while start > 0 and lines[start - 1].lstrip().startswith(("#", "//")):
            start -= 1
        out = []
        for i in range(start, min(block.end_line or block.line, len(lines))):
            m = re.search(self._IGNORE, lines[i])
            if m is None:
                continue
            reason = m.group(2).strip() or None
            col = lines[i].find(m.group(0)) + 1
            for rule in filter(None, m.group(1).split(",")):
                out.append(Suppression(rule.strip().upper(), reason, Location(block.file, i + 1, col)))
        return out

    # -------------------------------------------------------------------------------------------- entry
    def load(self) -> TerraformModel:
        # Reading a module allocates tens of thousands of objects (tree-sitter nodes, records, dicts) that all
        # live until the model is built and form no garbage cycles: the cyclic collector would walk them again
        # and again (~3 % of a large module's lint) to free nothing. It is paused here and resumed after.
        paused = gc.isenabled()
        gc.disable()
        try:
            return self._load()
        except VisguardError as exc:
            if exc.file in self._linked and "its text is not shown" not in exc.detail:
                raise VisguardError(
                    "invalid Terraform here (a file reached through a symlink: its text is not shown)",
                    file=exc.file,
                    place=exc.place,
                ) from None
            raise
        finally:
            if paused:
                gc.enable()

    def _load(self) -> TerraformModel:
        directory = self.root if os.path.isdir(self.root) else (os.path.dirname(self.root) or ".")
        files, outside = listing(directory, asked=self.asked)
        if not os.path.isdir(self.root):
            # a .tf file is part of the module its folder holds: Terraform reads the folder as one. The file
            # named on the command line is read even when it is a symlink out (asked for), never quoted.
            named = os.path.join(directory, os.path.basename(self.root))
            if not os.path.dirname(self.root):  # "main.tf", not "./main.tf": as the user wrote it
                files = [os.path.basename(p) for p in files]
                outside = [os.path.basename(p) for p in outside]
                named = self.root
            files = sorted({*files, named})
            outside = [p for p in outside if p != named]
        for path in outside:
            self.note(Location(path), outside_note(path, self.asked), ROOT)
        if not files:
            more = f" ({len(outside)} symlink(s) leading outside it not read)" if outside else ""
            raise VisguardError(f"no *.tf, *.tf.json or *.tofu files in this folder{more}", file=self.root)
        mod = self.read_module(directory, files, outside=outside)
        if not os.path.isdir(self.root):
            self.root = directory
        values = self.root_values(mod)
        scope = Scope(self, mod, "", values=values)
        scope.call_suppressions = []  # type: ignore[attr-defined]
        cache = reuse.active()  # the language server's: kept root resources (reuse.py)
        if cache is not None:
            key = os.path.realpath(directory)
            self._snapshot = reuse.snapshot(mod, values, self.inputs, self.variables, self.var_files)
            old, entries = cache.roots.pop(key, (None, {}))
            cache.reused = 0
            ok = reuse.reusable(old, self._snapshot) or ()
            self._kept = {a: entries[a] for a in ok if a in entries}
            self._entries = {}
        try:
            self.collect(scope)
            self.collect_needed()
            self.note_undeclared()
        except RecursionError:
            raise Bound("expression or module nesting too deep", file=self.root) from None
        if cache is not None and self._snapshot is not None:
            cache.roots[key] = (self._snapshot, self._entries)
        notes: list[Note] = []
        model = build_model(self.resources, self.root, self.problems, self.data, notes, self.free_roles)
        self.partial(model)
        for n in notes:
            self.note(n.location, n.message, n.address, n.fix)
        self.note_unknown_values(model)
        self.keep_relevant_notes()
        return TerraformModel(
            queues=model.queues,
            source_file=model.source_file,
            notes=self.notes,
            files=self.files,
            pending=model.pending,
            env=model.env,
        )

    def partial(self, model: Model) -> None:
        """The parts that could not be read become notes (VG902: address, file:line, why) and the rest is linted;
        when nothing at all could be read (no queue), the first of them is the input's one error."""
        if not self.problems:
            return
        if not model.queues:
            raise self.problems[0][0]
        for problem in self.problems:
            n = problem_note(*problem, self.root)
            self.note(n.location, n.message, n.address)

    def keep_relevant_notes(self) -> None:
        """Notes only about what decides a queue or a consumer (issue 35 §4): a variable, a local or a module
        visguard does not read is noted when a queue's or a consumer's resource uses it (the note names them), a
        resource only when it is one of them (an ``aws_ssm_parameter`` whose count is not known is not); a file
        not read because it is a symlink leading outside what was asked always (it may declare a queue)."""
        if not self.notes and not self.quiet:
            return  # nothing to judge (most roots): the resources' texts are not built
        used = {r.address: _symbolic_text(r.values) for r in self.resources if r.type not in NEEDED_BY}

        def users(address: str) -> list[str]:
            m = re.match(r"^((?:module\.[^.\[]+(?:\[[^\]]*\])?\.)*)(.+)$", address)
            prefix, name = (m.group(1), m.group(2)) if m else ("", address)
            return [a for a, t in used.items() if a.startswith(prefix) and name in t]

        kept: list[Note] = []
        for n in self.notes:
            local = re.sub(r"^(?:module\.[^.\[]+(?:\[[^\]]*\])?\.)*", "", n.address)
            if ": a symlink leading outside " in n.message:
                pass  # a file not read may declare a queue: always said (and it is a refusal, docs/security.md)
            elif local.startswith(("var.", "local.")) and n.address != ROOT:
                who = users(n.address)
                if not who:
                    continue
                n = Note(f"{n.message} (it decides {_listed(who)})", n.location, n.address)
            elif n.address in self.free_roles and n.fix is not None:
                pass  # the consumer a role is (consumers._Reader.free_role): what was not checked of it
            elif (
                re.match(r"^[a-z][a-z0-9]*_[a-z0-9_]+\.[^.]+$", re.sub(r"\[[^\]]*\]$", "", local))
                and awscc.kind(local.split(".", 1)[0]) in NEEDED_BY
            ):
                continue  # a helper of a consumer (a role, a parameter): its own notes say nothing decisive
            kept.append(n)
        for where, message, address in self.quiet:
            who = users(address + ".")
            if who:
                kept.append(Note(f"{message}; its outputs decide {_listed(who)}", where, address))
        self.notes[:] = kept

    def note_unknown_values(self, model: Model) -> None:
        """A setting the rules need whose value is not known here (a data source, a remote output): noted once
        each (what and why), never guessed; the rules that need it stay quiet."""
        from visguard.linter.vocabulary import TERRAFORM_NOTES as hcl

        for q in model.queues.values():
            items = [(q.id, q, f) for f in ("visibility_timeout", "message_retention", "delay")]
            if q.redrive is not None:
                items.append((q.id, q.redrive, "max_receive_count"))
            items += [
                (c.id, c, f)
                for c in q.consumers
                for f in ("function_timeout", "batch_size", "batching_window", "reserved_concurrency")
            ]
            for owner, obj, fld in items:
                value = getattr(obj, fld, None)
                if isinstance(value, str):
                    where = (getattr(obj, "locations", None) or {}).get(fld) or getattr(obj, "location", None)
                    where = where or q.location
                    self.note(
                        where,
                        f"{owner}: {hcl.get(fld, fld)} is not known here ({value.strip('${}')}); "
                        "the rules that need it are skipped",
                        owner,
                    )


def _symbolic_text(values: dict, limit: int = 4000) -> str:
    """The expressions not known here that a resource's values hold (``${var.env}``, ``${module.vpc.id}``), as
    one text to search (the first ``limit`` values walked)."""
    out: list[str] = []
    stack = list(values.values())
    n = 0
    while stack and n < limit:
        v = stack.pop()
        n += 1
        if isinstance(v, (Unknown, Ref)):
            out.append(str(v))
        elif isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
        elif isinstance(v, (Text, Encoded)):
            out.append(str(v))
    return " ".join(out)


def _listed(addresses: list[str]) -> str:
    return ", ".join(addresses[:3]) + (f" and {len(addresses) - 3} more" if len(addresses) > 3 else "")


def problem_note(exc: VisguardError, address: str, what: str, file: str) -> Note:
    """The note (VG902) for a part that could not be read: what, where (file:line) and why."""
    detail = exc.detail
    for prefix in (what + ": ", f"module {what}: "):
        if detail.startswith(prefix):
            detail = detail[len(prefix) :]
    m = re.search(r"\d+", exc.place or "")
    loc = Location(exc.file or file, int(m.group()) if m else None)
    return Note(f"{what} could not be read here ({detail}); the rest is linted", loc, address)


def read_vars(path: str, asked: str | None = None) -> dict[str, Attr]:
    """The ``NAME = VALUE`` lines of a ``.tfvars`` (or ``.tfvars.json``) file."""
    from .hcl import json_vars

    attrs, link = _parse_file(path, parse_attrs, json_vars, asked)
    if link:
        for a in list(attrs.values())[:1]:
            a.src.shown = False
    return attrs


def _cli_value(raw: str, name: str) -> Any:
    """``--var NAME=VALUE``: a list or object is an HCL expression, anything else the string itself (Terraform
    converts it to the variable's type)."""
    s = raw.strip()
    if s.startswith(("[", "{")):
        expr, src = parse_expression(s, f"--var {name}")
        scope = Scope(None, Module(".", []), "")
        from .values import EvalError

        try:
            return scope.eval(expr, Env(src=src))
        except EvalError as exc:
            raise VisguardError(f"--var {name}: {exc}") from None
    return raw


def parse_name(attr: Attr) -> str:
    expr = attr.expr
    if isinstance(expr, JsonExpr):
        return str(expr.value)
    return text_of(expr, attr.src)


_SIMPLE = r"^\$\{\s*(var|local)\.([A-Za-z_][A-Za-z0-9_-]*)\s*\}$"  # compiled on first use (``re`` caches it)


def simple_ref(attr: Attr) -> tuple[str, str] | None:
    """("var", "x") for an argument written exactly ``var.x`` (or ``"${var.x}"``), ("local", "y") for ``local.y``."""
    if isinstance(attr.expr, JsonExpr):
        m = re.match(_SIMPLE, attr.expr.value) if isinstance(attr.expr.value, str) else None
        return (m.group(1), m.group(2)) if m else None
    data, start = attr.src.data, attr.expr.start_byte
    head = data[start : start + 6]
    if head[:1] == b'"':
        second = head[1:2]
        if second not in (b"$", b"{", b"v", b"l") and not second.isspace():
            return None  # a string or template that does not start with ${var. / ${local. ("q-${var.env}")
    elif not (head.startswith(b"var.") or head == b"local."):
        return None  # neither var.x, local.x nor "${...}": most arguments
    text = text_of(attr.expr, attr.src)
    m = re.match(r"^\"?\$?\{?\s*(var|local)\.([A-Za-z_][A-Za-z0-9_-]*)\s*\}?\"?$", text)
    if m is None:
        return None
    if text.startswith('"') != text.endswith('"'):
        return None
    return m.group(1), m.group(2)


def _path_position(expr, src, path: list[str]) -> tuple[int, int] | None:
    """Where the key path ``["orders", "batch_size"]`` is written in nested object literals: at each level the
    first object literal met (in text order) inside the expression."""

    node = expr
    for i, key in enumerate(path):
        obj = _first_object(node)
        if obj is None:
            return None
        for k, elem, v in _elements(obj, src):
            if k == key:
                if i == len(path) - 1:
                    return elem.start_point.row + 1, src.column(elem)
                node = v
                break
        else:
            return None
    return None


def _elements(obj, src):
    """(key as written, unquoted; the ``object_elem`` node; its value node) of an object literal, in text order."""
    for elem in obj.named_children:
        if elem.type == "object_elem":
            k, v = _key_value(elem)
            yield src.slice(k).strip().strip('"'), elem, v


def _first_collection(node, shallow: bool = False):
    """The first tuple or object literal (in text order) inside ``node`` (``shallow``: only when ``node`` is
    one, through its wrappers), or None."""
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type in ("tuple", "object"):
            return n
        if n.type in ("function_call", "for_tuple_expr", "for_object_expr", "conditional") and shallow:
            return None
        kids = [c for c in n.children if c.type != "comment"]
        if shallow and len(kids) != 1:
            return None
        stack.extend(reversed(kids))
    return None


def _encoded_tuple(node, src):
    """The list literal an expression is, written as ``[...]`` or ``jsonencode([...])``, else None (its elements'
    indexes are then those of the value)."""
    from .evaluate import call_parts

    for _ in range(8):
        kids = [c for c in node.children if c.type != "comment"]
        if node.type == "tuple":
            return node
        if node.type == "function_call":
            name, args, expand = call_parts(node, src)
            if name != "jsonencode" or len(args) != 1 or expand:
                return None
            node = args[0]
        elif node.type in ("expression", "collection_value") and len(kids) == 1:
            node = kids[0]
        else:
            return None
    return None


def _why(v) -> str:
    return v.why if isinstance(v, Unknown) else "known only after apply"


def _first_object(node):
    """The first object literal (in text order) inside ``node``, or None."""
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type == "object":
            return n
        stack.extend(reversed(n.children))
    return None


def _dynamic_items(coll) -> list | None:
    """The (key, value) pairs a ``dynamic`` block's for_each gives: a map's items, a list's (index, element);
    None when it is neither (not known here)."""
    if isinstance(coll, dict):
        return list(coll.items())
    if isinstance(coll, list):
        return list(enumerate(coll))
    return None
