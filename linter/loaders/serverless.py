"""Serverless Framework services (serverless.yml / serverless.yaml / serverless.json) -> the shared Model.

The service is translated into the CloudFormation the Serverless Framework would deploy
(:mod:`.serverless_translate`, Lift constructs by :mod:`.serverless_lift`, variables resolved by
:mod:`.serverless_vars`: what each source gives, and why ``${env:...}`` never reads the real environment), that
template is read by the CloudFormation loader (one implementation of queues, redrive policies and mappings), and
the model is said back in serverless.yml terms (:mod:`.serverless_relocate`: serverless addresses, the
serverless.yml line and column of each value, comment suppressions). A value that cannot be resolved is "not
known here" to the rules, recorded once in ``model.notes``. Fixes are worded in serverless.yml terms by
``visguard.linter.vocabulary``.

Suppressions: ``visguard.yaml`` by queue id, ``Metadata: {visguard: {suppress: ...}}`` on a resource, and a
comment ``# visguard:ignore VG011 reason`` on (or on the line above) a function, one of its events, a
resource or a construct.

This module is the loader: which files are a service (registry interface: :func:`claim_dir`, never: a folder
is searched; :func:`claim_file`, a service file, also a file its service includes, so a resources fragment is
linted with its service and not as a broken template), the ``--var`` / ``--var-file`` values, and :func:`load`.
Every file is read through :func:`_read_text`.
"""

from __future__ import annotations

import os
import re

from visguard.errors import VisguardError, too_deep
from visguard.linter.model import Model

from . import safe_io
from .decode import MAX_BYTES, loads
from .serverless_relocate import relocate, relocate_error
from .serverless_translate import Translator
from .serverless_vars import Values

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

SERVICE_FILES = ("serverless.yml", "serverless.yaml", "serverless.json", "serverless.ts")
_HEAD_KEY = {
    key: re.compile(rb'(?m)^["\']?' + key.encode() + rb'["\']?\s*:|"' + key.encode() + rb'"\s*:')
    for key in ("service", "provider")
}


# ------------------------------------------------------------------------------------------ I/O (one edge)
def _read_text(path: str) -> str:
    """Every file this loader reads goes through the linter's one safe reader: regular files only, at most
    MAX_BYTES, UTF-8."""
    return safe_io.read_text(path, max_bytes=MAX_BYTES)


# ------------------------------------------------------------------------------------------ registry hooks
def claim_dir(path: str) -> bool:
    """A folder is never one input: it is searched, and its serverless.yml claimed as a file."""
    return False


def claim_file(path: str, head: bytes) -> bool:
    """serverless.yml / .yaml / .json whose first bytes show a ``service`` and a ``provider`` key; also a file
    that a service in its folder or a parent folder includes with ``${file(...)}`` (a resources fragment is
    not a template of its own: it is linted with its service, never as a broken CloudFormation template)."""
    if os.path.basename(path) in SERVICE_FILES:
        ok = (
            all(k in head for k in (b"service", b"provider"))  # serverless.ts: keys of an object literal
            if path.endswith(".ts")
            else all(rx.search(head) for rx in _HEAD_KEY.values())
        )
        if ok:
            _seen_services.add(os.path.realpath(path))
        return ok
    return included_by_a_service(path)


_INCLUDE = re.compile(r"\$\{file\(\s*['\"]?([^)'\"]+?)['\"]?\s*\)")
_include_cache: dict[str, tuple[str, ...]] = {}
# service files claimed in this process: a folder search meets a service before the folders below it, so a
# fragment's service above its own folder is read only when it is part of what was asked
_seen_services: set[str] = set()
INCLUDE_LEVELS = 4  # parent folders searched for the service that includes a file


def _include_patterns(service: str) -> tuple[str, ...]:
    """The files a service includes, as globs relative to its folder (a variable in the path is ``*``)."""
    if service not in _include_cache:
        try:
            text = _read_text(service)
        except VisguardError:
            text = ""
        pats = []
        for m in _INCLUDE.finditer(text):
            rel = re.sub(r"\$\{[^}]*\}?", "*", m.group(1).strip())
            pats.append(os.path.normpath(rel).replace(os.sep, "/"))
        _include_cache[service] = tuple(pats)
    return _include_cache[service]


def included_by_a_service(path: str) -> bool:
    """Whether the nearest service above ``path`` includes it. Reads that service file only when it is in the
    same folder as ``path`` or was claimed before (it is inside what was asked): never a read outside."""
    import fnmatch

    d = os.path.dirname(os.path.abspath(path))
    for level in range(INCLUDE_LEVELS + 1):
        for name in SERVICE_FILES:
            sf = os.path.join(d, name)
            if os.path.isfile(sf):
                if level and os.path.realpath(sf) not in _seen_services:
                    return False
                rel = os.path.relpath(os.path.abspath(path), d).replace(os.sep, "/")
                return any(fnmatch.fnmatchcase(rel, p) for p in _include_patterns(sf))
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    return False


def service_file(path: str) -> str:
    if os.path.isdir(path):
        for name in SERVICE_FILES:
            if os.path.isfile(os.path.join(path, name)):
                return os.path.join(path, name)
        raise VisguardError("no serverless.yml, serverless.yaml or serverless.json here", file=path)
    return path


def values_from(options: Any) -> Values:
    """``--var NAME=VALUE`` (a CLI option, ``${opt:NAME}``), ``--var env:NAME=VALUE``, ``--var param:NAME=VALUE``
    and ``--var-file`` YAML/JSON mappings of the same keys (other var files, e.g. .tfvars, are Terraform's)."""
    out = Values()
    items: list[tuple[str, Any, str]] = []
    for vf in getattr(options, "var_files", None) or []:
        if not str(vf).endswith((".yml", ".yaml", ".json")):
            continue
        doc = loads(_read_text(vf), file=vf)
        if not isinstance(doc, dict):
            raise VisguardError("a var file must be a mapping of NAME: VALUE", file=vf)
        items += [(str(k), v, vf) for k, v in doc.items()]
    items += [(str(k), v, "--var") for k, v in (getattr(options, "variables", None) or {}).items()]
    for key, value, _ in items:
        source, sep, name = key.partition(":")
        if not sep:
            source, name = "opt", key
        target = {"opt": out.opt, "env": out.env, "param": out.param}.get(source)
        if target is None:
            raise VisguardError(f"--var {key}: use NAME, opt:NAME, env:NAME or param:NAME")
        target[name] = value
    return out


def load(path: str, options: Any = None) -> Model:
    """A serverless.yml (or the folder holding one) -> Model. Raises VisguardError on bad input."""
    file = service_file(os.fspath(path))
    if os.path.basename(file) not in SERVICE_FILES and included_by_a_service(file):
        return Model(source_file=file)  # a fragment of a service: linted when its serverless.yml is
    if file.endswith(".ts"):  # the object it exports, read as data (serverless_ts)
        from .serverless_ts import document

        doc = document(file)
    else:
        doc = loads(_read_text(file), file=file)
    if not isinstance(doc, dict) or "service" not in doc or "provider" not in doc:
        raise VisguardError("not a Serverless Framework service: no service and provider keys", file=file)
    try:
        t = Translator(doc, file, values_from(options), _read_text)
        template = t.template()
        from . import load_template

        try:
            model = load_template(
                template,
                file=file,
                parameters=getattr(options, "parameters", None) or None,
                source="serverless",
            )
        except VisguardError as exc:  # said about the translated template: say it in serverless.yml terms
            raise relocate_error(exc, template, file) from None
        relocate(model, template, t)
        stack = t.stack_name
        for q in model.queues.values():  # the stack the service deploys as (the audit's --sources join)
            q.stack = stack if isinstance(stack, str) else None
    except RecursionError:  # names the service file (the path linted may be its folder)
        raise too_deep(file) from None
    return model


# ------------------------------------------------------------------------------------------ registration
def _register() -> None:
    """Join the loader registry (visguard.linter.loaders.registry)."""
    from .registry import LoaderSpec, register

    register(
        LoaderSpec("serverless", claim_dir, claim_file, load, (".yml", ".yaml", ".json", ".ts")),
        before="cloudformation",
    )


_register()
