"""Terragrunt: a ``terragrunt.hcl`` -> the module it deploys, read with its ``inputs`` (issue 26 §8).

Terragrunt copies the module named by ``terraform { source = ... }`` and runs Terraform there with ``inputs`` as
``TF_VAR_`` variables (terragrunt.gruntwork.io/docs/reference/config-blocks-and-attributes). visguard reads a
local source (``../modules/x``, ``../modules//x``) as the root module with those inputs (the lowest precedence:
the module's tfvars files and ``--var`` still win), and no source as the folder itself. What only Terragrunt
knows when it runs (``dependency.x.outputs``, ``include``, its functions such as ``find_in_parent_folders()``)
is not known here; a configuration that includes another gets no variable defaults (the included inputs may set
any of them). A remote source (``git::``, ``tfr://``) is a note: nothing is downloaded. Nothing outside the
folders asked for is read, except the local module the source names.
"""

from __future__ import annotations

import os

from visguard.errors import VisguardError
from visguard.linter.model import Location

from .evaluate import Env
from .files import _read_text
from .hcl import _file_body, parse_source
from .load import ROOT, Note, TerraformLoader, TerraformModel
from .scope import Module, Scope
from .values import SYMBOLIC

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

FILE = "terragrunt.hcl"
# Terragrunt's built-in functions and its own references (not Terraform's)
FUNCTIONS = frozenset(
    """find_in_parent_folders path_relative_to_include path_relative_from_include get_env get_platform
    get_repo_root get_path_from_repo_root get_path_to_repo_root get_terragrunt_dir get_working_dir
    get_parent_terragrunt_dir get_original_terragrunt_dir get_terraform_commands_that_need_vars
    get_terraform_commands_that_need_input get_terraform_commands_that_need_locking
    get_terraform_commands_that_need_parallelism get_terraform_command get_terraform_cli_args
    get_default_retryable_errors get_aws_account_alias get_aws_account_id get_aws_caller_identity_arn
    get_aws_caller_identity_user_id run_cmd read_terragrunt_config sops_decrypt_file read_tfvars_file
    mark_as_read constraint_check""".split()  # noqa: SIM905
)
ROOTS = frozenset(("dependency", "dependencies", "include", "feature", "values", "stack", "unit"))


class _Scope(Scope):
    unknown_functions = FUNCTIONS
    unknown_roots = ROOTS


class _Notes:
    """What the terragrunt.hcl's own expressions need of a loader: notes."""

    def __init__(self, root: str):
        self.root = root
        self.notes: list[Note] = []
        self.defaults_unknown = None

    def note(self, where, message: str, address: str) -> None:
        loc = where if isinstance(where, Location) else Location(where.file, where.line, where.column)
        self.notes.append(Note(message, loc, address))

    def unreadable(self, exc: VisguardError, address: str, what: str | None = None) -> None:
        raise exc


def load_terragrunt(
    folder: str,
    *,
    variables: dict[str, str] | None = None,
    var_files: tuple[str, ...] = (),
    asked: str | None = None,
) -> TerraformModel:
    path = os.path.join(folder, FILE)
    root, src = parse_source(_read_text(path), path)
    attrs, blocks = _file_body(root, src, path)
    mod = Module(folder, [b for b in blocks if b.type == "locals"])
    notes = _Notes(folder)
    scope = _Scope(notes, mod, "")
    source, where = None, None
    for b in blocks:
        if b.type == "terraform" and "source" in b.attrs:
            where = b.attrs["source"]
            source = scope.eval_attr(where, Env())
    inputs: dict[str, Any] = {}
    if "inputs" in attrs:
        inputs = scope.eval_attr(attrs["inputs"], Env())
        if not isinstance(inputs, dict):
            raise VisguardError("inputs must be a map", file=path, place=f"line {attrs['inputs'].line}")
    includes = [b for b in blocks if b.type == "include"]
    if source is None:
        if not any(n.endswith((".tf", ".tf.json", ".tofu", ".tofu.json")) for n in os.listdir(folder)):
            # a configuration other ones include (the root terragrunt.hcl): no module of its own
            return TerraformModel(source_file=path, notes=notes.notes, files=[path])
        module = folder
    elif not isinstance(source, str) or isinstance(source, SYMBOLIC):
        notes.note(
            where, f"{ROOT}: terraform.source ({source}) is not known here; the module is not read", ROOT
        )
        return TerraformModel(source_file=path, notes=notes.notes, files=[path])
    elif "::" in source or "://" in source or not source.startswith(("./", "../", "/")):
        notes.note(
            where,
            f"{ROOT}: terraform.source {_shown(source)} is a remote module: not read (visguard reads local "
            "sources; lint the module's own folder, or the plan JSON)",
            ROOT,
        )
        return TerraformModel(source_file=path, notes=notes.notes, files=[path])
    else:  # ../modules//sqs: the folder to copy, then the module inside it
        module = os.path.normpath(os.path.join(folder, source.split("?", 1)[0].replace("//", "/")))
        if not os.path.isdir(module):
            raise VisguardError(
                f"terraform.source {_shown(source)} is not a folder", file=path, place=f"line {where.line}"
            )
    where_inputs = {}
    if "inputs" in attrs:
        for key in inputs:
            loc = _input_location(attrs["inputs"], key)
            if loc is not None:
                where_inputs[key] = loc
    loader = TerraformLoader(
        module,
        variables=variables,
        var_files=var_files,
        inputs=inputs,
        input_locations=where_inputs,
        asked=asked or folder,
    )
    if includes:
        loader.defaults_unknown = "the configuration includes another one, whose inputs are not read here"
    model = loader.load()
    model.notes = notes.notes + model.notes
    model.files = [path, *model.files]
    return model


def _input_location(attr, key: str) -> Location | None:
    from .load import _path_position

    if not isinstance(key, str) or not attr.src.shown:
        return None
    pos = _path_position(attr.expr, attr.src, [key])
    return Location(attr.file, pos[0], pos[1], path=f"{FILE}/inputs.{key}") if pos else None


def _shown(v: str) -> str:
    from .modules import _source_shown

    return _source_shown(v)
