"""Loaders: every input door into the one shared model (DESIGN.md, "One model, many doors").

```python
from visguard.linter.loaders import load_path, load_template, load_config, apply_profiles
model = load_path("template.yaml", parameters={"Env": "prod"})   # template, cdk.out folder or visguard.yaml
model = load_template(template_dict, file="Stack.template.json", construct_paths={...})
config = load_config("visguard.yaml")
apply_profiles(model, config)
```
Bad input raises :class:`visguard.errors.VisguardError` with the file and the line; nothing else escapes.
"""

from __future__ import annotations

import os
from typing import Any

from visguard.errors import VisguardError
from visguard.linter.model import LintConfig, Model

from .cfn import load_template as _load_template
from .config import apply_profiles, config_from_document, is_config_document, load_config, model_from_config
from .decode import load_file

__all__ = ["apply_profiles", "load_config", "load_path", "load_template"]


def load_template(
    template: dict,
    *,
    file: str,
    parameters: dict[str, str] | None = None,
    construct_paths: dict[str, str] | None = None,
    **kwargs: Any,
) -> Model:
    """One CloudFormation/SAM template given as a dict (also cfn-lint's decoded nodes)."""
    try:
        return _load_template(
            template, file=file, parameters=parameters, construct_paths=construct_paths, **kwargs
        )
    except RecursionError:
        raise VisguardError("template nested too deeply", file=file) from None


def load_path(path: str, *, parameters: dict[str, str] | None = None) -> Model:
    """A template (JSON/YAML), a cdk.out folder or a visguard.yaml file -> Model."""
    path = os.fspath(path)
    if os.path.isdir(path):
        from .cdk_assembly import load_assembly

        return load_assembly(path, parameters=parameters)
    if not os.path.exists(path):
        raise VisguardError("no such file or directory", file=path)
    if os.path.basename(path) == "manifest.json":
        from .cdk_assembly import load_assembly

        return load_assembly(os.path.dirname(path) or ".", parameters=parameters)
    try:
        doc = load_file(path)
        if is_config_document(doc, path):
            return model_from_config(doc, file=path)
        return _load_template(doc, file=path, parameters=parameters)
    except RecursionError:
        raise VisguardError("document nested too deeply", file=path) from None


def load_config_document(doc: Any, *, file: str) -> LintConfig:
    return config_from_document(doc, file=file)
