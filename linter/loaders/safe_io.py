"""The one way a loader reads a file: regular files only, a size limit on the bytes actually read, and reads
confined to a folder when the path came from inside an input (a cdk.out manifest's ``templateFile``).

Every loader (CloudFormation, cdk.out, visguard.yaml, Terraform, Serverless) reads through this module, so
these guarantees hold for all of them (docs/security.md):

- a device (``/dev/zero``, ``/dev/tty``), a named pipe (``pipe.yaml`` in a linted folder), a socket or a
  folder is refused before it is opened, and checked again on the open descriptor (the path may be swapped
  in between); a FIFO is opened non-blocking, so even a swap cannot make the read wait for a writer;
- at most ``max_bytes + 1`` bytes are ever read: a file that grows while it is read, or that lies about its
  size, is refused at the limit;
- ``inside(path, root)`` says whether ``path``, symlinks resolved, stays inside ``root``.

Every failure is a :class:`~visguard.errors.VisguardError` naming the file.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator

from visguard.errors import VisguardError

MAX_BYTES = 10 * 1024 * 1024  # larger than any CloudFormation template: 1 MB via S3 (CloudFormation quotas)
HEAD_BYTES = 256 * 1024  # what a loader's claim_file sees of a file (registry)
_CHUNK = 1024 * 1024
_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _os_error(exc: OSError, path: str) -> VisguardError:
    if isinstance(exc, FileNotFoundError):
        return VisguardError("no such file or directory", file=path)
    return VisguardError(f"cannot read: {exc.strerror or exc}", file=path)


def is_regular_file(path: str) -> bool:
    """True for a regular file (symlinks followed); False for anything else, or when it cannot be stat'ed."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def read_bytes(path: str, *, max_bytes: int = MAX_BYTES, truncate: bool = False) -> bytes:
    """The bytes of the regular file ``path``; at most ``max_bytes`` (more is refused, or cut when ``truncate``:
    the head of a file for a loader's claim)."""
    path = os.fspath(path)
    try:
        st = os.stat(path)
    except OSError as exc:
        raise _os_error(exc, path) from None
    except ValueError:  # a NUL in the path
        raise VisguardError("invalid file name", file=path) from None
    if not stat.S_ISREG(st.st_mode):
        raise VisguardError(f"not read: {_kind(st.st_mode)}, not a regular file", file=path)
    if not truncate and st.st_size > max_bytes:
        raise VisguardError(_too_big(st.st_size, max_bytes), file=path)
    try:
        fd = os.open(path, _FLAGS)
    except OSError as exc:
        raise _os_error(exc, path) from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):  # swapped between stat and open
            raise VisguardError(f"not read: {_kind(mode)}, not a regular file", file=path)
        chunks: list[bytes] = []
        total = 0
        while total <= max_bytes:
            chunk = os.read(fd, min(_CHUNK, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as exc:
        raise _os_error(exc, path) from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > max_bytes:
        if truncate:
            return data[:max_bytes]
        raise VisguardError(_too_big(None, max_bytes), file=path)
    return data


def read_text(path: str, *, max_bytes: int = MAX_BYTES) -> str:
    """The UTF-8 text of the regular file ``path`` (a BOM is dropped); binary or oversized files are refused."""
    data = read_bytes(path, max_bytes=max_bytes)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise VisguardError(f"not UTF-8 text (byte {exc.start})", file=path) from None
    if "\x00" in text:
        raise VisguardError("not a text file (contains NUL bytes)", file=path)
    return text


def read_head(path: str, *, max_bytes: int = HEAD_BYTES) -> bytes:
    """The first ``max_bytes`` of a regular file (what a loader's claim looks at)."""
    return read_bytes(path, max_bytes=max_bytes, truncate=True)


def _too_big(size: int | None, limit: int) -> str:
    mb = f"{limit / 1048576:g} MB"
    if size is None:
        return f"file grew beyond the {mb} limit while it was read"
    return f"file is {size / 1048576:.1f} MB, more than the {mb} limit"


def inside(path: str, root: str) -> bool:
    """Whether ``path`` lies inside folder ``root`` once every symlink of both is resolved."""
    try:
        real, base = os.path.realpath(path), os.path.realpath(root)
    except (OSError, ValueError):
        return False
    return real == base or real.startswith(base.rstrip(os.sep) + os.sep)


def confined(root: str, written: str, *, base: str | None = None, file: str, entry: str) -> str:
    """``base/written`` (``base`` defaults to ``root``) when it stays inside ``root`` once symlinks are
    resolved; otherwise a bad-input error naming ``file`` (the manifest that named it) and ``entry`` (where
    in it). Absolute paths, ``..`` and symlinks out of the folder are all refused."""
    if not isinstance(written, str) or not written or "\x00" in written:
        raise VisguardError(f"{entry}: not a file name", file=file)
    path = os.path.join(base or root, written)
    if os.path.isabs(written) or not inside(path, root):
        raise VisguardError(f"{entry}: {written!r} is outside the assembly folder; not read", file=file)
    return path


MAX_WALK_DEPTH = 64  # folders below a searched folder: deeper trees are reported, not searched


def walk(
    root: str,
    *,
    errors: list[VisguardError],
    skip_dir: Callable[[str, str], bool] = lambda path, name: False,
    max_depth: int = MAX_WALK_DEPTH,
) -> Iterator[tuple[str, list[str]]]:
    """``(folder, [regular files in it])`` for ``root`` and every folder below it, top-down and sorted.

    Iterative (no recursion limit), ``max_depth`` levels at most (the first folder past it is reported in
    ``errors``). Symlinks are followed only when their target stays inside ``root``, and each real folder is
    visited once (no symlink loops). ``skip_dir(path, name)`` prunes a sub-folder. Devices, FIFOs and sockets
    are never listed. Folders that cannot be read are reported in ``errors``, the walk goes on.
    """
    base = os.path.realpath(root)
    seen = {base}
    stack: list[tuple[str, int]] = [(root, 0)]
    reported_depth = False
    while stack:
        folder, depth = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            errors.append(VisguardError(f"cannot list folder: {exc.strerror or exc}", file=folder))
            continue
        files: list[str] = []
        subdirs: list[str] = []
        for e in entries:
            try:
                link = e.is_symlink()
                if link and not inside(e.path, base):
                    continue  # never read outside the tree that was asked for
                if e.is_dir():
                    if skip_dir(e.path, e.name):
                        continue
                    real = os.path.realpath(e.path) if link else None
                    if real is not None:
                        if real in seen:
                            continue
                        seen.add(real)
                    subdirs.append(e.path)
                elif e.is_file():
                    files.append(e.path)
            except OSError as exc:
                errors.append(VisguardError(f"cannot read: {exc.strerror or exc}", file=e.path))
        yield folder, files
        if subdirs and depth >= max_depth:
            if not reported_depth:
                reported_depth = True
                errors.append(
                    VisguardError(
                        f"folder tree deeper than {max_depth} levels below {root}: not searched further",
                        file=folder,
                    )
                )
            continue
        stack.extend((d, depth + 1) for d in reversed(subdirs))
