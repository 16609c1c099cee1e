"""The one way a loader reads a file: regular files only, a size limit on the bytes actually read, and reads
confined to a folder when the path came from inside an input (a cdk.out manifest's ``templateFile``).

Every loader (CloudFormation, cdk.out, visguard.yaml, Terraform, Serverless) reads through this module, so
these guarantees hold for all of them (docs/security.md):

- a device (``/dev/zero``, ``/dev/tty``), a named pipe (``pipe.yaml`` in a linted folder), a socket or a
  folder is refused before it is opened, and checked again on the open descriptor (the path may be swapped
  in between); a FIFO is opened non-blocking, so even a swap cannot make the read wait for a writer;
- at most ``max_bytes + 1`` bytes are ever read: a file that grows while it is read, or that lies about its
  size, is refused at the limit;
- ``inside(path, root)`` says whether ``path``, symlinks resolved, stays inside ``root``;
- ``read_lines`` streams a JSON Lines file (an audit inventory's partition) with a bound per line and per file,
  each line strict UTF-8, errors naming the file and the line.

It is also the one way ``--fix`` writes a file, whatever its syntax (``read_stamped``, then ``replace_file``):
a temporary file with an unpredictable name, created exclusively next to it without following links, renamed
over it with its mode and owner, only if the file is still what was read; a symbolic link, a file with other
hard links and a read-only file are refused with the reason (``unwritable``).

Every failure is a :class:`~visguard.errors.VisguardError` naming the file.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Callable, Iterator

from visguard.errors import VisguardError
from visguard.records import Value

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


def require_regular(path: str) -> os.stat_result:
    """The ``stat`` of ``path`` when it is a regular file (symlinks followed); otherwise a VisguardError that
    says what it is ("no such file", "a named pipe, not a regular file"). Never opens it: a FIFO cannot block."""
    try:
        st = os.stat(path)
    except OSError as exc:
        raise _os_error(exc, path) from None
    except ValueError:
        raise VisguardError("invalid file name", file=path) from None
    if not stat.S_ISREG(st.st_mode):
        raise VisguardError(f"{_kind(st.st_mode)}, not a regular file", file=path)
    return st


def is_regular_file(path: str) -> bool:
    """True for a regular file (symlinks followed); False for anything else, or when it cannot be stat'ed."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def open_regular(path: str) -> tuple[int, os.stat_result]:
    """An open read-only descriptor of the regular file ``path`` and its ``stat`` (taken before the open): anything else (a FIFO, a
    device, a folder) is refused, named, before it is opened and again on the descriptor; a FIFO swapped in
    between is opened non-blocking, so nothing ever waits for a writer. The caller closes the descriptor."""
    path = os.fspath(path)
    try:
        st = os.stat(path)
    except OSError as exc:
        raise _os_error(exc, path) from None
    except ValueError:  # a NUL in the path
        raise VisguardError("invalid file name", file=path) from None
    if not stat.S_ISREG(st.st_mode):
        raise VisguardError(f"not read: {_kind(st.st_mode)}, not a regular file", file=path)
    try:
        fd = os.open(path, _FLAGS)
    except OSError as exc:
        raise _os_error(exc, path) from None
    try:
        mode = os.fstat(fd).st_mode
    except OSError as exc:
        os.close(fd)
        raise _os_error(exc, path) from None
    if not stat.S_ISREG(mode):  # swapped between stat and open
        os.close(fd)
        raise VisguardError(f"not read: {_kind(mode)}, not a regular file", file=path)
    return fd, st


def _read_fd(fd: int, max_bytes: int, path: str) -> bytes:
    """At most ``max_bytes + 1`` bytes of ``fd``."""
    chunks: list[bytes] = []
    total = 0
    try:
        while total <= max_bytes:
            chunk = os.read(fd, min(_CHUNK, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as exc:
        raise _os_error(exc, path) from None
    return b"".join(chunks)


def read_bytes(path: str, *, max_bytes: int = MAX_BYTES, truncate: bool = False) -> bytes:
    """The bytes of the regular file ``path``; at most ``max_bytes`` (more is refused, or cut when ``truncate``:
    the head of a file for a loader's claim)."""
    path = os.fspath(path)
    fd, st = open_regular(path)
    planned = _PLANNED.get((st.st_dev, st.st_ino)) if _PLANNED else None
    if planned is not None:  # --fix checks its plan: the file as the plan would write it
        os.close(fd)
        return planned[:max_bytes] if truncate else planned
    try:
        if not truncate and st.st_size > max_bytes:
            raise VisguardError(_too_big(st.st_size, max_bytes), file=path)
        data = _read_fd(fd, max_bytes, path)
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        if truncate:
            return data[:max_bytes]
        raise VisguardError(_too_big(None, max_bytes), file=path)
    return data


_PLANNED: dict[tuple[int, int], bytes] = {}  # (device, inode) -> the bytes a --fix plan would write


@contextlib.contextmanager
def planned(files: dict[str, bytes]) -> Iterator[None]:
    """Reads of ``files`` return the given bytes instead of what is on disk, for the duration: ``--fix`` lints
    the files as its plan would write them before it writes anything (visguard.linter.fix), and the language server
    lints the unsaved texts of open documents (visguard.linter.lsp). Nested, the inner texts win until the inner
    context ends. Nothing is written."""
    keys = {}
    for path, data in files.items():
        try:
            st = os.stat(path)
        except OSError:  # gone: the write will say so
            continue
        keys[(st.st_dev, st.st_ino)] = data
    before = {k: _PLANNED[k] for k in keys if k in _PLANNED}  # nested: the language server's unsaved texts
    _PLANNED.update(keys)
    try:
        yield
    finally:
        for k in keys:
            _PLANNED.pop(k, None)
        _PLANNED.update(before)


MAX_LINE_BYTES = 1024 * 1024  # one line of a JSON Lines file (an inventory record is a few KB)


def read_lines(
    path: str, *, max_bytes: int, max_line_bytes: int = MAX_LINE_BYTES
) -> Iterator[tuple[int, str]]:
    """``(line number, text)`` of each line of the regular file ``path`` (UTF-8, the newline dropped), streamed:
    at most ``max_bytes`` of the file and ``max_line_bytes`` of one line are ever held or read past (a file of
    millions of records is never read whole). A line that is not UTF-8 or is too long, and a file over the
    limit, are refused naming the file and the line."""
    path = os.fspath(path)
    fd, st = open_regular(path)
    try:
        if st.st_size > max_bytes:
            raise VisguardError(_too_big(st.st_size, max_bytes), file=path)
        n, total, rest = 0, 0, b""
        while True:
            try:
                chunk = os.read(fd, _CHUNK)
            except OSError as exc:
                raise _os_error(exc, path) from None
            if not chunk:
                break
            total += len(chunk)
            if total > max_bytes:  # grew while it was read, or lied about its size
                raise VisguardError(_too_big(None, max_bytes), file=path)
            lines = (rest + chunk).split(b"\n")
            rest = lines.pop()
            for raw in lines:
                n += 1
                yield n, _line_text(raw, path, n, max_line_bytes)
            if len(rest) > max_line_bytes:
                raise VisguardError(f"line longer than {max_line_bytes:,} bytes", file=path, place=str(n + 1))
        if rest:
            yield n + 1, _line_text(rest, path, n + 1, max_line_bytes)
    finally:
        os.close(fd)


def _line_text(raw: bytes, path: str, n: int, max_line_bytes: int) -> str:
    if len(raw) > max_line_bytes:
        raise VisguardError(f"line longer than {max_line_bytes:,} bytes", file=path, place=str(n))
    try:
        return raw.decode("utf-8-sig" if n == 1 else "utf-8").rstrip("\r")
    except UnicodeDecodeError as exc:
        raise VisguardError(
            f"not UTF-8 text (byte {exc.start + 1} of the line)", file=path, place=str(n)
        ) from None


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
    are never listed, nor a symlink that resolves to itself (ELOOP). Folders that cannot be read are reported in ``errors``, the walk goes on.
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
                if exc.errno != errno.ELOOP:  # a symlink loop names nothing to read: skipped as loops are
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


# ------------------------------------------------------------------------------------------ --fix writes
class Stamp(Value):
    """A file as it was read for ``--fix``: where it lives (device, inode), its size and mtime, a hash of it."""

    __slots__ = ("dev", "ino", "size", "mtime_ns", "digest")


class NotWritten(Exception):
    """``replace_file`` left the file as it is; the message says why (one line, the file not named)."""


def read_stamped(path: str, *, max_bytes: int = MAX_BYTES) -> tuple[bytes, Stamp]:
    """The bytes of the regular file ``path`` and its :class:`Stamp` (``replace_file`` checks it)."""
    path = os.fspath(path)
    fd, st = open_regular(path)
    try:
        if st.st_size > max_bytes:
            raise VisguardError(_too_big(st.st_size, max_bytes), file=path)
        st = os.fstat(fd)  # the file read, not the path stat'ed before the open
        data = _read_fd(fd, max_bytes, path)
    except OSError as exc:
        raise _os_error(exc, path) from None
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise VisguardError(_too_big(None, max_bytes), file=path)
    stamp = _stamp(st, data)
    planned = _PLANNED.get((st.st_dev, st.st_ino)) if _PLANNED else None
    if planned is not None:  # the language server plans fixes of an unsaved text (it never writes)
        return planned, stamp
    return data, stamp


def _stamp(st: os.stat_result, data: bytes) -> Stamp:
    import hashlib  # only --fix reads this way: not at every lint's start

    return Stamp(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, hashlib.sha256(data).hexdigest())


def unwritable(st: os.stat_result) -> str | None:
    """Why ``--fix`` does not replace a file with this ``lstat`` (None: it may). The one policy of every syntax
    (docs/security.md): a symbolic link, a file with other hard links, a read-only file and anything but a
    regular file are refused, never replaced by a regular file."""
    if stat.S_ISLNK(st.st_mode):
        return "a symbolic link: --fix writes only regular files (run it on the file the link points to)"
    if not stat.S_ISREG(st.st_mode):
        return f"{_kind(st.st_mode)}, not a regular file"
    if st.st_nlink > 1:
        return f"has {st.st_nlink} hard links: replacing it would split them (fix it by hand)"
    if not st.st_mode & stat.S_IWUSR:
        return f"read-only (mode {stat.S_IMODE(st.st_mode):04o}): --fix does not replace it"
    return None


def replace_file(path: str, data: bytes, expect: Stamp) -> None:
    """Replace the file ``path`` by ``data`` atomically, keeping its mode and owner, if it is still what was
    read (``expect``). Everything happens relative to one descriptor of the file's folder, and no link is
    followed: the temporary file has an unpredictable name, is created exclusively (``O_EXCL|O_NOFOLLOW``,
    mode 0600) next to the file, and is renamed over it. :class:`NotWritten` when the file is refused
    (``unwritable``) or changed since it was read; :class:`VisguardError` when the system refuses a write."""
    path = os.fspath(path)
    folder, name = os.path.split(os.path.abspath(path))
    try:
        dfd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise VisguardError(f"cannot write the fixed file: {exc.strerror or exc}", file=path) from None
    tmp = None
    try:
        st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
        why = unwritable(st)
        if why:
            raise NotWritten(why)
        tmp, fd = _create_temp(dfd, name)
        try:
            _write_all(fd, data)
            os.fchmod(fd, stat.S_IMODE(st.st_mode))
            _keep_owner(fd, st)
            os.fsync(fd)
        finally:
            os.close(fd)
        if _changed(dfd, name, expect):  # right before the replace: an edit since the read is never lost
            raise NotWritten("changed since visguard read it: left as it is (run --fix again)")
        os.replace(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
        tmp = None
    except OSError as exc:
        raise VisguardError(f"cannot write the fixed file: {exc.strerror or exc}", file=path) from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=dfd)
        os.close(dfd)


def _keep_owner(fd: int, st: os.stat_result) -> None:
    """The new file ``fd`` gets the owner and group of the file it replaces (``st``), or NotWritten."""
    new = os.fstat(fd)
    for differs, uid, gid, who in (
        (new.st_uid != st.st_uid, st.st_uid, -1, f"owned by another user (uid {st.st_uid})"),
        (new.st_gid != st.st_gid, -1, st.st_gid, f"its group (gid {st.st_gid})"),
    ):
        if differs:
            try:
                os.fchown(fd, uid, gid)
            except PermissionError:
                raise NotWritten(f"{who} cannot be kept by a new file: fix it by hand") from None


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _create_temp(dfd: int, name: str) -> tuple[str, int]:
    """(name, descriptor) of a new, empty file ``.<name>.<random>.visguard-fix`` in the folder ``dfd``."""
    import secrets

    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = f".{name[:100]}.{secrets.token_hex(8)}.visguard-fix"
        try:
            return tmp, os.open(tmp, flags, 0o600, dir_fd=dfd)
        except FileExistsError:
            continue
    raise OSError(errno.EEXIST, "no free temporary name")


def _changed(dfd: int, name: str, expect: Stamp) -> bool:
    """Whether ``name`` is no longer the file ``expect`` stamped: another file, another size, mtime or content."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | _FLAGS, dir_fd=dfd)
    except OSError:
        return True
    try:
        st = os.fstat(fd)
        same = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns) == (
            expect.dev,
            expect.ino,
            expect.size,
            expect.mtime_ns,
        )
        if not stat.S_ISREG(st.st_mode) or not same:
            return True
        data = _read_fd(fd, expect.size, name)
    finally:
        os.close(fd)
    return _stamp(st, data) != expect
