"""Where a Lambda function's code is, so that its environment binds the variables of that code (issue 35 §5).

A Lambda function that is not invoked by an event source mapping (EventBridge, a schedule, an API) may still be a
queue's consumer: its code receives with the SDK from the URL its environment gives
(``process.env.SQS_QUEUE_URL``). The function's ``environment`` then binds that variable for the code of its
package, as a compose service's environment binds the code of its build context. The package's folder is

- the folder the package is made from when the input says it: Terraform ``data "archive_file"`` ``source_dir``
  (``source_file``: the folder of the nearest manifest at or above it), SAM ``CodeUri`` / CloudFormation
  ``Code`` as a local folder;
- else the nearest folder at or above the archive (``filename = "fn/dist/fn.zip"``) or the handler file (a
  Serverless function's ``handler: src/worker.main``) that holds a package manifest (:data:`MANIFESTS`);
- else not known: S3 keys, container images, inline code and paths with unknown parts bind nothing.

Only the file system's names are read (``os.path.isdir``/``isfile``/``listdir`` of at most :data:`MAX_UP`
folders), never a file's content; :func:`code_folder` returns an absolute folder or None.
"""

from __future__ import annotations

import os

# files that make a folder a package (the ecosystems the code loader reads)
MANIFESTS = frozenset(
    {
        "package.json", "requirements.txt", "pyproject.toml", "setup.py", "setup.cfg", "Pipfile", "go.mod",
        "pom.xml", "build.gradle", "build.gradle.kts", "Gemfile", "composer.json", "Cargo.toml",
    }
)  # fmt: skip
MANIFEST_ENDINGS = (".csproj", ".fsproj")
ARCHIVES = (".zip", ".jar", ".war")
MAX_UP = 8  # folders walked up from an archive or a handler file
MAX_PATH = 1024


def _is_package(folder: str) -> bool:
    try:
        names = os.listdir(folder)
    except OSError:
        return False
    return any(n in MANIFESTS or n.endswith(MANIFEST_ENDINGS) for n in names[:10_000])


def nearest_package(start: str, stop: str | None = None) -> str | None:
    """The nearest folder at or above ``start`` that holds a package manifest, not above ``stop`` (a repository's
    root: the folder with ``.git``), at most :data:`MAX_UP` folders up; None when there is none."""
    folder = os.path.abspath(start)
    stop = os.path.abspath(stop) if stop else None
    for _ in range(MAX_UP):
        if os.path.isdir(folder) and _is_package(folder):
            return folder
        if folder == stop or os.path.isdir(os.path.join(folder, ".git")):
            return None
        up = os.path.dirname(folder)
        if up == folder:
            return None
        folder = up
    return None


def _usable(path) -> bool:
    return isinstance(path, str) and 0 < len(path) <= MAX_PATH and "\x00" not in path and "${" not in path


def code_folder(path, base: str, *, kind: str = "auto") -> str | None:
    """The folder of the code a function's package holds: ``path`` (relative to ``base``, the folder the input's
    paths are relative to) is ``kind`` ``dir`` (the package's own folder), ``file`` (a source file: its package's
    folder), ``archive`` (a built archive: the package it was built from) or ``auto`` (decided by what is on disk
    and by the name). None: not known (a value with unknown parts, nothing on disk, no manifest)."""
    if not _usable(path) or "://" in path:
        return None
    full = os.path.normpath(os.path.join(os.path.abspath(base), path))
    if kind == "auto":
        kind = "dir" if os.path.isdir(full) else "archive" if full.lower().endswith(ARCHIVES) else "file"
    if kind == "dir":
        return full if os.path.isdir(full) else None
    start = os.path.dirname(full)
    if kind == "file" and not os.path.isdir(start):
        return None
    return nearest_package(start)


def handler_file(handler, base: str) -> str | None:
    """The source file a Serverless/SAM ``handler`` names (``src/worker.main`` -> ``src/worker.py``/``.js``/``.ts``
    ... that exists under ``base``); None when none exists or the handler is not a path (Java's ``pkg.Class::m``)."""
    if not _usable(handler) or "::" in handler:
        return None
    stem = handler.rsplit(".", 1)[0] if "." in os.path.basename(handler) else handler
    for ending in (".py", ".js", ".mjs", ".cjs", ".ts", ".mts", ".rb", ".go", ""):
        full = os.path.normpath(os.path.join(os.path.abspath(base), stem + ending))
        if os.path.isfile(full):
            return full
    return None
