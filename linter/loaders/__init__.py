"""Loaders: every input door into the one shared model (DESIGN.md, "One model, many doors").

```python
from visguard.linter.loaders import load_path, load_template, load_config, apply_profiles
model = load_path("template.yaml", parameters={"Env": "prod"})   # template, cdk.out folder or visguard.yaml
model = load_path("infra/", options=LoadOptions(variables={"env": "prod"}))  # any registered loader
model = load_template(template_dict, file="Stack.template.json", construct_paths={...})
config = load_config("visguard.yaml")
apply_profiles(model, config)
```
Bad input raises :class:`visguard.errors.VisguardError` with the file and the line; nothing else escapes.
"""

from __future__ import annotations

import os

from visguard.errors import too_deep
from visguard.linter.model import LintConfig, Model

from . import registry
from .registry import LoaderSpec, LoadOptions, register

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "LoadOptions",
    "LoaderSpec",
    "apply_profiles",
    "load_config",
    "load_path",
    "load_template",
    "register",
]


def load_template(
    template: dict,
    *,
    file: str,
    parameters: dict[str, str] | None = None,
    construct_paths: dict[str, str] | None = None,
    **kwargs: Any,
) -> Model:
    """One CloudFormation/SAM template given as a dict (also cfn-lint's decoded nodes)."""
    from .cfn import load_template as _load_template  # (not imported by a Terraform or Serverless lint)

    try:
        return _load_template(
            template, file=file, parameters=parameters, construct_paths=construct_paths, **kwargs
        )
    except RecursionError:  # library callers (the cfn-lint and CDK plugins) get bad input, not a crash
        raise too_deep(file, what="template") from None


def load_path(
    path: str, *, parameters: dict[str, str] | None = None, options: LoadOptions | None = None
) -> Model:
    """A template (JSON/YAML), a cdk.out folder or a visguard.yaml file -> Model: the registry decides which
    loader reads it (``registry.claim``)."""
    if options is None:
        options = LoadOptions(parameters=dict(parameters or {}))
    try:
        return registry.load(os.fspath(path), options)
    except RecursionError:  # library callers (the CDK plugin) get bad input naming the path, not a crash
        raise too_deep(os.fspath(path)) from None


# visguard.yaml (.config): imported when a configuration is read, not by every lint
def load_config(path: str) -> LintConfig:
    """Read and validate a visguard.yaml file."""
    from .config import load_config

    return load_config(path)


def load_config_document(doc: Any, *, file: str) -> LintConfig:
    from .config import config_from_document

    return config_from_document(doc, file=file)


def apply_profiles(model: Model, config: LintConfig) -> None:
    """Attach visguard.yaml's processing profiles to the matching queues' consumers (``config.apply_profiles``)."""
    from .config import apply_profiles

    apply_profiles(model, config)
