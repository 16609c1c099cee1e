"""The environment a Terraform ``aws_lambda_function`` gives the code of its package (issue 35 §5).

A function that no event source mapping invokes (EventBridge, a schedule) may receive with the SDK from the URL
its ``environment { variables = { QUEUE_URL = aws_sqs_queue.q.url } }`` gives. Each such variable that names a
queue becomes an :class:`~visguard.linter.consumers.EnvBinding` for the folder of the function's package
(:mod:`visguard.linter.loaders.lambda_code`): ``filename`` (an archive: the package at or above it), or
``data "archive_file"``'s ``source_dir`` / ``source_file`` when ``filename`` is its ``output_path``. An ``s3_*``
or ``image_uri`` package, a path with unknown parts or no package on disk binds nothing: the code's consumer stays
unjoined with its note. Relative paths are Terraform's: relative to the root module's folder (the working
directory); ``path.module`` is already absolute. The binding carries the function, its timeout and handler file,
so that ``linter.consumers.join`` says the code runs in it.

Provider arguments read (registry.terraform.io/providers/hashicorp/aws/latest/docs): ``aws_lambda_function``
``filename``, ``handler``, ``environment.variables``, ``timeout`` (default 3 s); the ``hashicorp/archive``
provider's ``archive_file`` data source ``source_dir``, ``source_file``, ``output_path``. The awscc provider's
``awscc_lambda_function`` has no local package (its ``code`` is inline or in S3): nothing is bound for it.
"""

from __future__ import annotations

import os
import re

from visguard.linter.consumers import EnvBinding
from visguard.linter.model import DEFAULT_LAMBDA_TIMEOUT

from ..lambda_code import code_folder, handler_file

FUNCTION = "aws_lambda_function"
ARCHIVE = "data.archive_file"
FUNCTION_ARGS = ("filename", "handler", "environment.variables")
ARGS = {ARCHIVE: ("source_dir", "source_file", "output_path")}
KEYED_ARGS = frozenset({"environment.variables"})  # an argument whose map keys are located one by one
MAX_VARIABLES = 200
_ARCHIVE_PATH = re.compile(r"^data\.archive_file\.([A-Za-z0-9_-]+)\.output_path$")


def read(builder) -> None:
    """An :class:`EnvBinding` in ``builder.model.env`` per queue-naming variable of each function whose package
    folder is known."""
    functions = [r for r in builder.res if r.type == FUNCTION and r.address not in builder.unread]
    if not functions or not any(isinstance(r.values.get("environment.variables"), dict) for r in functions):
        return
    from .consumers import _prefix, _Reader

    reader = _Reader(builder, {})
    src = builder.model.source_file or "."
    base = src if os.path.isdir(src) else os.path.dirname(os.path.abspath(src))
    archives = {r.address: r for r in builder.res if r.type == ARCHIVE}
    for r in functions:
        variables = r.values.get("environment.variables")
        if not isinstance(variables, dict):
            continue
        folder = _package(r, archives, base, _prefix(r.address))
        if folder is None:
            continue
        timeout = r.values.get("timeout")
        timeout = DEFAULT_LAMBDA_TIMEOUT if timeout is None else timeout
        handler = r.values.get("handler")
        handler = handler if isinstance(handler, str) else None
        source = handler_file(handler, folder) if handler is not None else None
        for name, value in list(variables.items())[:MAX_VARIABLES]:
            where = r.locations.get(f"environment.variables.{name}") or r.loc("environment.variables")
            qid, ref = reader.resolve(value, where)
            if qid is None and ref is None:
                continue
            builder.model.env.append(
                EnvBinding(
                    str(name), workload=r.address, queue=qid, ref=ref, location=where, folder=folder,
                    function=r.address, function_timeout=timeout if isinstance(timeout, (int, float)) else None,
                    timeout_location=r.locations.get("timeout"), handler=handler, handler_file=source,
                )
            )  # fmt: skip


def _package(r, archives: dict, base: str, prefix: str) -> str | None:
    """The folder of ``r``'s package: its ``archive_file``'s source, else the package at or above its archive."""
    filename = r.values.get("filename")
    if isinstance(filename, str):
        return code_folder(filename, base, kind="archive")
    text = getattr(filename, "text", None)
    m = _ARCHIVE_PATH.match(text) if isinstance(text, str) else None
    archive = archives.get(f"{prefix}{ARCHIVE}.{m.group(1)}") if m else None
    if archive is None:
        return None
    source_dir, source_file = archive.values.get("source_dir"), archive.values.get("source_file")
    if isinstance(source_dir, str) and source_file is None:
        return code_folder(source_dir, base, kind="dir")
    if isinstance(source_file, str) and source_dir is None:
        return code_folder(source_file, base, kind="file")
    return None  # several sources, or none known: which folder is the code's is not known
