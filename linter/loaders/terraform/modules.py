"""Module calls: ``module "jobs" { source = ... }`` and what ``module.jobs`` is to an expression.

A call's instances (``count`` / ``for_each``, :mod:`.instances`) are each read one of three ways: a local
module (``./modules/x``) or one ``terraform init`` put in ``.terraform/modules`` becomes a child
:class:`~.scope.Scope` whose variables are the call's arguments (evaluated in the caller's scope) and whose
outputs are read on demand, nested at most :data:`MAX_MODULE_DEPTH` deep and never through itself; the two
registry modules visguard models (:mod:`.registry`) create their resources from the arguments; any other
source is not read (noted, its outputs "not known here").
"""

from __future__ import annotations

import os
import re

from visguard.errors import VisguardError
from visguard.linter.model import Location, Suppression

from . import registry
from .evaluate import Env, Instance
from .files import NAME_CHARS, _read_text, confined, excerpt, outside_note
from .hcl import Block
from .values import EvalError, Unknown

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

    from .scope import Scope

ROOT = "root_module"  # the address a note about the root module itself names (its files, its tfvars)
META_ARGS = {"source", "version", "count", "for_each", "providers", "depends_on"}
MAX_MODULE_DEPTH = 64  # local modules calling local modules (a deeper chain is reported as too deep)


class ModuleObj(Instance):
    """A module instance as an expression sees it: ``module.jobs.queue_arn``."""

    def __init__(self, address: str, outputs):
        self.address = address
        self._outputs = outputs  # callable(name, node) -> value

    def attr(self, name: str, node=None) -> Any:
        return self._outputs(name, node)


class ModuleCalls:
    """What ``module.x`` is to an expression: mixed into :class:`~.scope.Scope` (``mod``, ``loader``,
    ``prefix``; the cache ``_modules``)."""

    def module_obj(self, name: str, node=None) -> Any:
        if name in self._modules:
            return self._modules[name]
        block = self.mod.modules.get(name)
        if block is None:
            raise EvalError(f"reference to undeclared module {name!r}", node)
        try:
            insts = self.loader.module_instances(self, name, block)
        except VisguardError as exc:  # the call cannot be read: the rest of the module still is
            self.loader.unreadable(exc, f"{self.prefix}module.{name}")
            v = self._modules[name] = Unknown(f"module.{name}", "the module could not be read here")
            return v
        if "count" in block.attrs:
            v: Any = [m for _, m, _ in insts]
        elif "for_each" in block.attrs:
            v = {env.names["each"]["key"]: m for env, m, _ in insts}
        else:
            v = insts[0][1] if insts else Unknown(f"module.{name}", "the module is not read")
        if (
            ("count" in block.attrs or "for_each" in block.attrs)
            and len(insts) == 1
            and insts[0][1].address.endswith("[*]")
        ):
            v = Unknown(f"module.{name}", "the module's count/for_each is not known here")
        # known before its contents are read: an argument of the call may read another output of the same call
        # (Terraform orders each input and output on its own); only a real cycle is one (issue 26 §3)
        self._modules[name] = v
        for _, m, read in insts:
            try:
                read()
            except VisguardError as exc:
                self.loader.unreadable(exc, m.address)
        return v


class ModuleReader:
    """Reading the module calls of a root module: mixed into :class:`~.load.TerraformLoader` (``root``,
    ``note()``, ``read_module()``, ``collect()``, ``suppressions()``, ``resources``; the cache ``_installed``)."""

    def module_instances(self, scope: Scope, name: str, block: Block) -> list[tuple[Env, ModuleObj, Any]]:
        """The instances of ``module "name"`` called from ``scope``: read (local), modelled or unknown; each with
        the function that reads what it creates (called once the instances are known to the caller's scope)."""
        base = f"{scope.prefix}module.{name}"
        src_attr = block.attrs.get("source")
        source = scope.eval_attr(src_attr) if src_attr is not None else None
        out: list[tuple[Env, ModuleObj, Any]] = []
        if not isinstance(source, str):
            raise VisguardError(
                f"module {name}: source must be a literal string", file=block.file, place=f"line {block.line}"
            )
        model = registry.model_for(source)
        local = source.startswith(("./", "../"))
        key = f"{scope.module_key}.{name}" if getattr(scope, "module_key", "") else name
        installed = self.installed_module(key) if not local and model is None else None
        if not local and model is None and installed is None:
            message = (
                f"{base}: module source {_source_shown(source)} is not read (visguard reads local modules, the modules "
                "`terraform init` put in .terraform/modules, and models terraform-aws-modules/sqs/aws and "
                "lambda/aws); run terraform init, or lint the plan JSON"
            )
            if about_queues(name, source, block):
                self.note(block, address=base, message=message)
            else:  # a VPC, a cluster, an IAM user: noted only if a queue or consumer reads one of its outputs
                self.quiet.append((Location(block.file, block.line, block.column), message, base))
        for address, env in scope.instances(block, base):
            inputs = {k: (a, scope, env) for k, a in block.attrs.items() if k not in META_ARGS}
            if local or installed is not None:
                directory = installed if installed is not None else module_dir(scope.mod.dir, source)
                child = self.child_scope(scope, block, source, address, inputs, directory)
                child.module_key = key  # type: ignore[attr-defined]
                out.append((env, ModuleObj(address, _outputs_of(child)), lambda c=child: self.collect(c)))
            elif model is not None:
                holder: dict = {}

                def modelled(out_name, node=None, _h=holder, _a=address):
                    if "outputs" not in _h:  # read by an argument of the same call while it is evaluated
                        return Unknown(f"{_a}.{out_name}", "read by the same module call's arguments")
                    return _h["outputs"](out_name, node)

                def run(_h=holder, _a=address, _e=env, _i=inputs):
                    met = len(self.undeclared)
                    res, _h["outputs"] = model(self, scope, block, _a, _e, _i)
                    if len(self.undeclared) > met:
                        self.note_undeclared(_a, met)
                    for r in res:
                        r.suppressions = self.suppressions(block) + r.suppressions
                        r.suppressions += scope_suppressions(scope)
                    self.resources += res

                out.append((env, ModuleObj(address, modelled), run))
            else:

                def unknown(out_name, node=None, _a=address, _s=source):
                    return Unknown(f"{_a}.{out_name}", f"module source {_s} is not read")

                out.append((env, ModuleObj(address, unknown), _nothing))
        return out

    def installed_module(self, key: str) -> str | None:
        """The folder ``terraform init`` downloaded module ``key`` (``jobs``, ``jobs.inner``) into, from
        .terraform/modules/modules.json of the root module; None when there is none (or it points outside)."""
        if self._installed is None:
            self._installed = {}
            manifest = os.path.join(self.root, ".terraform", "modules", "modules.json")
            if os.path.isfile(manifest) and not confined(manifest, self.root):
                self.note(Location(manifest), outside_note(manifest, self.root), ROOT)
            elif os.path.isfile(manifest):
                import json

                try:
                    doc = json.loads(_read_text(manifest))
                except ValueError:
                    self.note(
                        Location(manifest),
                        f"{manifest}: not valid JSON, installed modules are not read",
                        ROOT,
                    )
                    doc = {}
                root = os.path.realpath(os.path.join(self.root, ".terraform", "modules"))
                for m in doc.get("Modules") or [] if isinstance(doc, dict) else []:
                    if (
                        not isinstance(m, dict)
                        or not isinstance(m.get("Key"), str)
                        or not isinstance(m.get("Dir"), str)
                    ):
                        continue
                    d = os.path.realpath(os.path.join(self.root, m["Dir"]))
                    if d.startswith(root + os.sep) and os.path.isdir(d):
                        self._installed[m["Key"]] = os.path.join(
                            self.root, os.path.relpath(d, os.path.realpath(self.root))
                        )
        return self._installed.get(key)

    def child_scope(
        self, parent: Scope, block: Block, source: str, address: str, inputs, directory: str
    ) -> Scope:
        real = os.path.realpath(directory)
        ancestors, up = [], parent
        while up is not None:  # the module's own chain of callers, not every module being read
            ancestors.append(os.path.realpath(up.mod.dir))
            up = up.parent
        if real in ancestors:
            raise VisguardError(
                f"module {address} includes itself (source {excerpt(source, NAME_CHARS)})",
                file=block.file,
                place=f"line {block.line}",
            )
        if parent.depth + 1 > MAX_MODULE_DEPTH:
            raise VisguardError(
                f"module {address}: local modules nested more than {MAX_MODULE_DEPTH} levels deep "
                "(visguard's bound; not a cycle)",
                file=block.file,
                place=f"line {block.line}",
            )
        if not os.path.isdir(directory):
            raise VisguardError(
                f"module {address}: source {excerpt(source, NAME_CHARS)} is not a folder",
                file=block.file,
                place=f"line {block.line}",
            )
        mod = self.read_module(directory, address=address)
        for k, (a, _, _) in inputs.items():
            if k not in mod.variables:
                raise VisguardError(
                    f"module {address}: no variable {k!r} in {source}", file=a.file, place=f"line {a.line}"
                )
        from .scope import Scope  # scope.py is built on this module

        child = Scope(
            self, mod, address + ".", parent=parent, inputs=inputs, call=block, depth=parent.depth + 1
        )
        child.call_suppressions = scope_suppressions(parent) + self.suppressions(block)  # type: ignore[attr-defined]
        return child


# what a module call's name, source or argument names say when it may create or feed a queue or a consumer
_ABOUT_QUEUES = (
    r"sqs|queue|lambda|function|worker|consumer|ecs|fargate|task|pipe|beanstalk|sns|job|message|event|"
    r"subscri|dlq|dead.?letter|redrive|visibility"
)


def about_queues(name: str, source: str, block: Block) -> bool:
    """Whether a module visguard does not read may hold or feed a queue, a consumer or a setting of one (issue 35
    §4): its name, its source or one of its argument names says so, or an argument is written with a queue's
    reference or ARN/URL (``queue_arn = aws_sqs_queue.jobs.arn``)."""
    words = " ".join([name, source, *block.attrs]).lower()
    if re.search(_ABOUT_QUEUES, words):
        return True
    for attr in block.attrs.values():
        text = attr.src.slice(attr.expr) if attr.src is not None and hasattr(attr.expr, "start_byte") else ""
        if re.search(r"aws(?:cc)?_sqs_queue\.|:sqs:|sqs\.[a-z0-9-]+\.amazonaws\.com", text[:2000]):
            return True
    return False


def _nothing() -> None:
    """What reading a module visguard does not read takes."""


def scope_suppressions(scope: Scope) -> list[Suppression]:
    return list(getattr(scope, "call_suppressions", []))


def _outputs_of(child: Scope):
    def output(name: str, node=None):
        block = child.mod.outputs.get(name)
        if block is None or "value" not in block.attrs:
            raise EvalError(f"module {child.prefix[:-1]} has no output {name!r}", node)
        return child.eval_attr(block.attrs["value"])

    return output


def _source_shown(source: str) -> str:
    """A module source for a message: a user:password in a URL (``git::https://user:token@host/...``) removed."""
    return excerpt(re.sub(r"//[^/@\s]*@", "//", source), 120)


def module_dir(base: str, source: str) -> str:
    return os.path.normpath(os.path.join(base, source))
