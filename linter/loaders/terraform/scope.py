"""The scope of one module instance: what its expressions may name.

A :class:`Scope` is one module instance (the root module, or ``module.jobs["a"]``): its variables (given by
the caller, tfvars files, ``--var`` or their defaults), locals, resources (with ``count`` / ``for_each``
instances, :mod:`.instances`), local child modules and the modelled registry modules (:mod:`.modules`).
Everything is evaluated lazily (:mod:`.evaluate`) and cached; locals that depend on each other in a circle are
reported as the cycle.
"""

from __future__ import annotations

from visguard.errors import VisguardError

from .evaluate import Budget, Env, Evaluator
from .hcl import Attr, Block
from .instances import Instances
from .modules import ModuleCalls
from .values import EvalError, Unknown

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time (start-up)
if TYPE_CHECKING:
    from typing import Any


class Module:
    """The files of one module folder, grouped by block type. A name declared twice raises, or with
    ``problems`` (a list) is recorded there as (error, local address) and left out: neither is guessed."""

    def __init__(self, directory: str, blocks: list[Block], problems: list | None = None):
        self.dir = directory
        self.blocks = blocks  # every block as parsed (roles.used reads their files' text)
        self.variables: dict[str, Block] = {}
        self.locals: dict[str, Attr] = {}
        self.resources: dict[tuple[str, str], Block] = {}
        self.modules: dict[str, Block] = {}
        self.outputs: dict[str, Block] = {}
        self.data: dict[tuple[str, str], Block] = {}
        self.unread: str | None = None  # why some files of the folder were not read (a name may be there)
        self._problems = problems
        twice: list[tuple[dict, Any]] = []
        for b in blocks:
            key = tuple(b.labels)
            if b.type == "variable" and len(key) == 1:
                self._unique(self.variables, key[0], b, "variable", twice)
            elif b.type == "locals":
                for name, a in b.attrs.items():
                    if name in self.locals:
                        self._twice(
                            VisguardError(
                                f"local.{name} is defined twice", file=a.file, place=f"line {a.line}"
                            ),
                            f"local.{name}",
                        )
                        twice.append((self.locals, name))
                    self.locals[name] = a
            elif b.type == "resource" and len(key) == 2:
                self._unique(self.resources, key, b, "resource", twice)
            elif b.type == "module" and len(key) == 1:
                self._unique(self.modules, key[0], b, "module", twice)
            elif b.type == "output" and len(key) == 1:
                self.outputs[key[0]] = b
            elif b.type == "data" and len(key) == 2:
                self.data.setdefault(key, b)
        for d, key in twice:
            d.pop(key, None)

    def _twice(self, exc: VisguardError, name: str) -> None:
        if self._problems is None:
            raise exc
        self._problems.append((exc, name))

    def _unique(self, d, key, b: Block, what: str, twice: list) -> None:
        if key in d:
            name = ".".join(key) if isinstance(key, tuple) else key
            local = name if what == "resource" else f"{'var' if what == 'variable' else what}.{name}"
            self._twice(
                VisguardError(f"{what} {name} is declared twice", file=b.file, place=f"line {b.line}"), local
            )
            twice.append((d, key))
        d[key] = b


class Scope(Evaluator, Instances, ModuleCalls):
    """One module instance (the root module, or ``module.jobs["a"]``): the module's declarations, the values of
    its variables and locals, and the caches of what its expressions evaluate to (:class:`~.evaluate.Evaluator`),
    its blocks' instances (:class:`~.instances.Instances`) and its module calls
    (:class:`~.modules.ModuleCalls`)."""

    def __init__(
        self,
        loader,
        module: Module,
        prefix: str,
        *,
        parent: Scope | None = None,
        inputs: dict[str, tuple[Attr, Scope, Env]] | None = None,
        call: Block | None = None,
        values: dict[str, Any] | None = None,
        depth: int = 0,
    ):
        self.loader = loader  # the TerraformLoader: notes, files, options
        self.mod = module
        self.prefix = prefix  # "" or "module.jobs." / 'module.jobs["a"].'
        self.parent = parent
        self.inputs = inputs  # child module: variable name -> (argument, caller scope, caller env)
        self.call = call  # the module block that created this scope
        self.values = values or {}  # root module: variable name -> (Attr | None, value) from tfvars / --var
        self.depth = depth
        self.budget: Budget = parent.budget if parent is not None else Budget()
        self._vars: dict[str, Any] = {}
        self._locals: dict[str, Any] = {}
        self._local_stack: list[str] = []
        self._active: set = set()
        self._instances: dict[tuple, list] = {}
        self._modules: dict[str, Any] = {}
        self._resource_values: dict[tuple[str, str], Any] = {}  # what aws_sqs_queue.q is to an expression

    # ------------------------------------------------------------------ names: var.x and local.y
    def var(self, name: str, node=None) -> Any:
        if not self.prefix and getattr(self.loader, "_capture", None) is not None:
            self.loader._capture.append(("ref", "var", name))  # reuse.py: replayed with a kept resource
        if name in self._vars:
            return self._vars[name]
        block = self.mod.variables.get(name)
        if block is None:
            if self.mod.unread and self.loader is not None:
                return self.loader.undeclared_name(self, "var", name)  # not cached: each use is noted
            raise EvalError(f"reference to undeclared input variable {name!r}", node)
        v = self._var_value(name, block)
        self._vars[name] = v
        return v

    def var_source(self, name: str) -> tuple[Attr, Scope, Env] | None:
        """Where variable ``name`` of this scope got its value: a module argument, a tfvars line or the default."""
        block = self.mod.variables.get(name)
        if block is None:
            return None
        if self.inputs is not None and name in self.inputs:
            return self.inputs[name]
        if self.inputs is None and name in self.values:
            attr, _ = self.values[name]
            if attr is not None:
                return attr, self, Env()
            return None
        if "default" in block.attrs:
            return block.attrs["default"], self, Env()
        return None

    def _var_value(self, name: str, block: Block) -> Any:
        v: Any = _MISSING
        if self.inputs is not None:
            if name in self.inputs:
                attr, scope, env = self.inputs[name]
                v = scope.eval_attr(attr, env)
        elif name in self.values:
            attr, raw = self.values[name]
            v = self.eval_attr(attr, Env()) if attr is not None else raw
        nullable = block.attrs.get("nullable")
        if v is None and nullable is not None and self.eval_attr(nullable) is False:
            v = _MISSING
        if v is _MISSING and self.inputs is None and getattr(self.loader, "defaults_unknown", None):
            # a Terragrunt configuration that includes another: its inputs may set any variable
            return Unknown(f"var.{name}", self.loader.defaults_unknown)
        if v is _MISSING:
            if "default" in block.attrs:
                v = self.eval_attr(block.attrs["default"], Env())
            else:
                where = f"{self.prefix}var.{name}" if self.prefix else f"var.{name}"
                why = (
                    f"variable {name} has no default and the module call does not set it"
                    if self.inputs is not None
                    else f"variable {name} has no default and no value (give it with --var {name}=... or a .tfvars file)"
                )
                self.loader.note(block, f"{where}: {why}", where)
                return Unknown(f"var.{name}", why)
        from .types import typed

        return typed(v, block, self)

    def local(self, name: str, node=None) -> Any:
        if not self.prefix and getattr(self.loader, "_capture", None) is not None:
            self.loader._capture.append(("ref", "local", name))  # reuse.py: replayed with a kept resource
        if name in self._locals:
            return self._locals[name]
        attr = self.mod.locals.get(name)
        if attr is None:
            if self.mod.unread and self.loader is not None:
                return self.loader.undeclared_name(self, "local", name)  # not cached: each use is noted
            raise EvalError(f"reference to undeclared local value {name!r}", node)
        if name in self._local_stack:
            cycle = [*self._local_stack[self._local_stack.index(name) :], name]
            first = self.mod.locals[cycle[0]]
            raise VisguardError(
                "cycle in locals: " + " -> ".join(f"local.{c}" for c in cycle),
                file=first.file,
                place=f"line {first.line}",
            )
        self._local_stack.append(name)
        try:
            v = self.eval_attr(attr, Env())
        finally:
            self._local_stack.pop()
        self._locals[name] = v
        return v


_MISSING = object()
