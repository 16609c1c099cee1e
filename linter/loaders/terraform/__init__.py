"""Terraform: a root module folder (``*.tf`` / ``*.tf.json``, OpenTofu's ``*.tofu`` / ``*.tofu.json``), a
Terragrunt ``terragrunt.hcl`` (its local module with its ``inputs``) or a plan (``terraform show -json``) -> Model.

```python
from visguard.linter.loaders import terraform
terraform.claim_dir("infra/")                 # True: the folder holds *.tf or *.tf.json files
terraform.claim_file("plan.json", head)       # True: a plan JSON document (or a single .tf file)
model = terraform.load("infra/", options)     # options.parameters, .variables (--var), .var_files (--var-file)
```
Queue and consumer ids are resource addresses (``module.jobs.aws_sqs_queue.this[0]``); locations point at the
argument to change; ``Queue.source`` is ``"terraform"``. The returned model is a :class:`TerraformModel`, whose
``notes`` say what could not be evaluated here and why. No Terraform binary and no network are used.
"""

from __future__ import annotations

import os

from visguard.errors import VisguardError

from .files import _read_text
from .load import SUFFIXES, Note, TerraformLoader, TerraformModel

TERRAGRUNT = "terragrunt.hcl"

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Note", "TerraformModel", "_read_text", "claim_dir", "claim_file", "load"]


def claim_dir(path: str) -> bool:
    """A folder with ``*.tf``, ``*.tf.json``, ``*.tofu`` or ``*.tofu.json`` files (a Terraform or OpenTofu
    module), or a ``terragrunt.hcl`` that names a module (a Terragrunt unit; the root configuration the units
    include names none, and its folder is searched)."""
    try:
        with os.scandir(path) as it:
            names = {e.name for e in it if e.is_file()}
    except OSError:
        return False
    if any(n.endswith(SUFFIXES) for n in names):
        return True
    return TERRAGRUNT in names and _names_a_module(os.path.join(path, TERRAGRUNT))


def _names_a_module(path: str) -> bool:
    """A terragrunt.hcl with ``terraform { source = ... }``."""
    import re

    try:
        text = _read_text(path)
    except VisguardError:
        return True  # claimed: the loader reports what is wrong with it
    return (
        re.search(r"(?m)^\s*terraform\s*\{", text) is not None
        and re.search(r"(?m)^\s*source\s*=", text) is not None
    )


def claim_file(path: str, head: bytes) -> bool:
    """A single ``.tf`` / ``.tf.json`` file, or a plan JSON document (``format_version`` and ``planned_values``
    or ``resource_changes`` near the start)."""
    if path.endswith(SUFFIXES) or os.path.basename(path) == TERRAGRUNT:
        return True
    if not path.endswith(".json") and not head.lstrip().startswith(b"{"):
        return False
    return b'"format_version"' in head and (
        b'"planned_values"' in head or b'"resource_changes"' in head or b'"terraform_version"' in head
    )


def load(path: str, options: Any = None) -> TerraformModel:
    """Load a root module folder, the module a ``.tf`` file belongs to (its folder), or a plan JSON file."""
    path = os.fspath(path)
    variables = dict(getattr(options, "variables", None) or {})
    var_files = tuple(getattr(options, "var_files", None) or ())
    asked = getattr(options, "asked", None) or path  # reads stay inside what the command line named
    folder = path if os.path.isdir(path) else os.path.dirname(path) or "."
    if os.path.basename(path) == TERRAGRUNT or (
        os.path.isdir(path) and os.path.isfile(os.path.join(path, TERRAGRUNT))
    ):
        from .terragrunt import load_terragrunt

        return load_terragrunt(folder, variables=variables, var_files=var_files, asked=asked)
    if os.path.isdir(path):
        return TerraformLoader(path, variables=variables, var_files=var_files, asked=asked).load()
    if path.endswith(SUFFIXES):
        return TerraformLoader(path, variables=variables, var_files=var_files, asked=asked).load()
    if not os.path.exists(path):
        raise VisguardError("no such file or directory", file=path)
    from .plan import load_plan

    return load_plan(path)


def _register() -> None:
    from ..registry import LoaderSpec, register

    register(
        LoaderSpec(
            name="terraform",
            claim_dir=claim_dir,
            claim_file=claim_file,
            load=load,
            suffixes=(*SUFFIXES, ".json", ".hcl"),
        ),
        before="cloudformation",
    )


_register()
