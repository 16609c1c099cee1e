"""The version of a library a repository pins (issue 36: Kombu, sqs-consumer), read from its manifests and lock files.

One shared reader for every consumer library whose behaviour changed between releases (reference:
fact-drift-2026-12.md F1, F2, F8). Pure parsers in the middle (:func:`pin_in`: the bytes of one file and a package
name -> what that file says), one walk at the edge (:func:`nearest`: the folders from a source file up to the
linted root, read through ``safe_io``).

Files read, per ecosystem, in each folder (a lock file before a manifest):
- Python: ``poetry.lock``, ``uv.lock``, ``Pipfile.lock`` (locks); ``pyproject.toml`` (PEP 621 ``[project]
  dependencies`` and ``optional-dependencies``, PEP 735 ``[dependency-groups]``, Poetry's
  ``[tool.poetry.dependencies]`` and groups), ``requirements*.txt`` (manifests; ``-r`` includes are not followed).
- Node: ``package-lock.json``, ``npm-shrinkwrap.json``, ``yarn.lock`` (v1 and Berry), ``pnpm-lock.yaml`` (v5 to v9)
  (locks); ``package.json`` ``dependencies``, ``devDependencies``, ``optionalDependencies`` (manifest).

The policy (what :func:`nearest` returns):
1. Folders are walked from the file's own folder upwards, at most ``MAX_UP`` of them, and never above ``bound``
   (the path the run was asked to lint; a file named alone: its own folder). Nothing outside is opened.
2. A lock file that names the package gives its exact version (``basis="lock"``) and ends the walk: the lock
   wins over any range, also one written in a nearer manifest (a workspace's lock sits at its root).
3. A manifest that pins one exact version (``==5.5.3``, ``"14.1.0"``, Poetry's ``"5.5.3"``) gives it
   (``basis="pin"``) and ends the walk.
4. A manifest that gives a range is kept (the nearest one) while the walk looks further up for a lock only; at
   the end, the range's lower bound (``>=5.5``, ``~=5.5.0``, ``^14.0.0``, ``~14.1``, ``14.x``: ``basis="range"``),
   or, for a range without one (``*``, ``latest``, ``<15``, a git URL, a tag, a path), an unknown version
   (``basis="unknown"``, ``version=None``).
5. Nothing found: None. The caller decides what to assume (the consumer readers assume the newest release and
   say so in the finding).

Untrusted input: a file larger than its bound is skipped with a note; a malformed file (TOML, JSON, a lock line)
is a note naming the file, never an exception. Bounds: ``MAX_MANIFEST_BYTES`` for a manifest,
``MAX_LOCK_BYTES`` for a lock file, ``MAX_REQUIREMENT_FILES`` requirements files per folder.
"""

from __future__ import annotations

import json
import os
import re

MAX_UP = 8  # folders walked up from a source file
MAX_MANIFEST_BYTES = 2 * 1024 * 1024  # a package.json, a pyproject.toml, a requirements file
MAX_LOCK_BYTES = 32 * 1024 * 1024  # a lock file of a large monorepo
MAX_REQUIREMENT_FILES = 16  # requirements*.txt files read in one folder

PYTHON_LOCKS = ("poetry.lock", "uv.lock", "Pipfile.lock")
PYTHON_MANIFESTS = ("pyproject.toml",)  # and requirements*.txt (:func:`_manifests`)
NODE_LOCKS = ("package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml")
NODE_MANIFESTS = ("package.json",)
ECOSYSTEMS = {"python": (PYTHON_LOCKS, PYTHON_MANIFESTS), "node": (NODE_LOCKS, NODE_MANIFESTS)}


class Pin:
    """What a repository says about one package: ``version`` (a tuple of ints, None when not known), as
    written (``spec``), how it is known (``basis``: lock | pin | range | unknown), and where (``file``,
    ``line``: 1-based, None when the format gives no line)."""

    __slots__ = ("package", "version", "spec", "basis", "file", "line")

    def __init__(self, package, version, spec, basis, file, line=None):
        self.package, self.version, self.spec, self.basis = package, version, spec, basis
        self.file, self.line = file, line

    @property
    def text(self) -> str:
        """The version as words: ``14.1.0``, or ``unknown``."""
        return ".".join(map(str, self.version)) if self.version is not None else "unknown"

    def __repr__(self) -> str:
        return f"Pin({self.package!r}, {self.text}, {self.basis}, {self.file}:{self.line})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Pin) and all(getattr(self, k) == getattr(other, k) for k in self.__slots__)


# ----------------------------------------------------------------------------------------------- versions
_VERSION = re.compile(r"v?(\d{1,9}(?:\.\d{1,9}){0,3})")


def version_tuple(text: str) -> tuple[int, ...] | None:
    """``14.1.0`` -> (14, 1, 0); ``5.6.0rc1`` -> (5, 6, 0); ``14`` -> (14,); not a version -> None."""
    m = _VERSION.match(text.strip()) if isinstance(text, str) else None
    return tuple(int(p) for p in m.group(1).split(".")) if m else None


def at_least(version: tuple | None, floor: tuple) -> bool | None:
    """``version >= floor`` (missing components count as 0), or None when ``version`` is not known."""
    if version is None:
        return None
    n = max(len(version), len(floor))
    return tuple(version) + (0,) * (n - len(version)) >= tuple(floor) + (0,) * (n - len(floor))


def normalize(name: str) -> str:
    """A Python distribution name as PEP 503 compares them (``Kombu``, ``kombu_x`` -> ``kombu``, ``kombu-x``);
    npm names are compared as written (they are lower case)."""
    return re.sub(r"[-_.]+", "-", name).lower()


_PY_CLAUSE = re.compile(r"(===|==|~=|>=|<=|!=|>|<)\s*([^\s,;]+)")


def python_spec(spec: str) -> tuple[tuple | None, str]:
    """A PEP 440 specifier (``==5.5.3``, ``>=5.5,<5.6``, ``~=5.5.0``) -> (version, basis)."""
    clauses = _PY_CLAUSE.findall(spec)
    for op, v in clauses:
        if op in ("==", "===") and "*" not in v:
            return version_tuple(v), "pin" if version_tuple(v) else "unknown"
    for op, v in clauses:  # the lower bound
        if op in (">=", "~=", "==") and version_tuple(v.replace(".*", "")):
            return version_tuple(v.replace(".*", "")), "range"
        if op == ">" and version_tuple(v):
            return version_tuple(v), "range"  # just above it; the bound as the best known
    return None, "unknown"


def poetry_spec(spec: str) -> tuple[tuple | None, str]:
    """A Poetry constraint: ``5.5.3`` (exact), ``^5.5``, ``~5.5``, ``5.5.*``, ``>=5.5,<6``, ``*``."""
    s = spec.strip()
    if re.fullmatch(r"\d+(\.\d+){0,3}", s):
        return version_tuple(s), "pin"
    if s[:1] in "^~" and version_tuple(s[1:].lstrip("=")):
        return version_tuple(s[1:].lstrip("=")), "range"
    if re.fullmatch(r"\d+(\.\d+)*\.\*", s):
        return version_tuple(s[:-2]), "range"
    return python_spec(s)


def npm_spec(spec: str) -> tuple[tuple | None, str]:
    """An npm range: ``14.1.0`` / ``=14.1.0`` (exact), ``^14.0.0``, ``~14.1``, ``>=13``, ``14.x``, ``14``,
    ``>=13 <15``, ``workspace:^14``, ``npm:sqs-consumer@^14``; ``*``, ``latest``, a URL, a path, ``a || b``:
    unknown (several ranges, or none stated)."""
    s = spec.strip()
    if s.startswith("workspace:"):
        s = s[len("workspace:") :]
    if s.startswith("npm:") and "@" in s[5:]:
        s = s[s.rindex("@") + 1 :]
    if not s or "||" in s or "/" in s or ":" in s or s in ("*", "x", "latest", "next"):
        return None, "unknown"
    if re.fullmatch(r"=?v?\d+\.\d+\.\d+([-+][0-9A-Za-z.-]+)?", s):
        return version_tuple(s.lstrip("=")), "pin"
    first = s.split()[0]
    if " - " in s:  # a hyphen range: its first end
        first = s.split(" - ")[0].strip()
    for op in ("^", "~>", "~", ">=", "="):
        if first.startswith(op):
            first = first[len(op) :]
            break
    else:
        if first.startswith((">", "<")):
            return None, "unknown"
    first = re.sub(r"\.[xX*].*$", "", first)
    v = version_tuple(first)
    return (v, "range") if v is not None else (None, "unknown")


# ----------------------------------------------------------------------------------------------- parsers
class Malformed(Exception):
    """A file that is not what its name says (bad TOML, JSON): the walk's note."""


def pin_in(filename: str, data: bytes, package: str, path: str = "") -> Pin | None:
    """What the file ``filename`` (its bytes ``data``) says about ``package``, or None when it does not name it.
    Raises :class:`Malformed` for a file that does not parse; never anything else."""
    name = os.path.basename(filename)
    path = path or filename
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise Malformed(f"not UTF-8 (byte {e.start})") from None
    try:
        if name in ("poetry.lock", "uv.lock"):
            return _toml_lock(text, package, path)
        if name == "Pipfile.lock":
            return _pipfile_lock(text, package, path)
        if name == "pyproject.toml":
            return _pyproject(text, package, path)
        if name.startswith("requirements") and name.endswith(".txt"):
            return _requirements(text, package, path)
        if name in ("package-lock.json", "npm-shrinkwrap.json"):
            return _package_lock(text, package, path)
        if name == "yarn.lock":
            return _yarn_lock(text, package, path)
        if name == "pnpm-lock.yaml":
            return _pnpm_lock(text, package, path)
        if name == "package.json":
            return _package_json(text, package, path)
    except Malformed:
        raise
    except (ValueError, TypeError, AttributeError, KeyError, IndexError, RecursionError) as e:
        raise Malformed(type(e).__name__) from None
    return None


def _line_of(text: str, needle: str) -> int | None:
    at = text.find(needle)
    return text.count("\n", 0, at) + 1 if at >= 0 else None


def _line_re(text: str, pattern: str) -> int | None:
    m = re.search(pattern, text, flags=re.IGNORECASE)
    return text.count("\n", 0, m.start()) + 1 if m else None


def _toml(text: str):
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise Malformed(f"not TOML ({e})") from None


def _toml_lock(text, package, path):
    want = normalize(package)
    doc = _toml(text)
    for p in doc.get("package") or ():
        if isinstance(p, dict) and isinstance(p.get("name"), str) and normalize(p["name"]) == want:
            v = p.get("version")
            if isinstance(v, str):
                line = _line_of(text, f'name = "{p["name"]}"') or _line_of(text, f'"{p["name"]}"')
                return Pin(
                    package, version_tuple(v), v, "lock" if version_tuple(v) else "unknown", path, line
                )
    return None


def _pipfile_lock(text, package, path):
    doc = json.loads(text)
    if not isinstance(doc, dict):
        raise Malformed("not a JSON object")
    want = normalize(package)
    for section in ("default", "develop"):
        deps = doc.get(section)
        if not isinstance(deps, dict):
            continue
        for k, v in deps.items():
            if normalize(k) == want and isinstance(v, dict) and isinstance(v.get("version"), str):
                ver, _ = python_spec(v["version"])
                return Pin(
                    package, ver, v["version"], "lock" if ver else "unknown", path, _line_of(text, f'"{k}"')
                )
    return None


_REQ = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(.*)$")


def _requirement(line: str, package: str):
    """A PEP 508 requirement naming ``package`` -> its specifier text, else None."""
    m = _REQ.match(line)
    if m is None or normalize(m.group(1)) != normalize(package):
        return None
    rest = m.group(3).split(";", 1)[0].strip()
    if rest.startswith("@"):  # a direct reference (a URL): no version stated
        return "@"
    return rest.strip("() ")


def _requirements(text, package, path):
    lines = text.splitlines()
    for n, raw in enumerate(lines, 1):
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith(("#", "-")):
            continue
        spec = _requirement(line, package)
        if spec is not None:
            ver, basis = python_spec(spec)
            return Pin(package, ver, spec or "(any)", basis, path, n)
    return None


def _pyproject(text, package, path):
    doc = _toml(text)
    found = []
    project = doc.get("project") if isinstance(doc.get("project"), dict) else {}
    lists = [project.get("dependencies")]
    optional = project.get("optional-dependencies")
    if isinstance(optional, dict):
        lists += list(optional.values())
    groups = doc.get("dependency-groups")
    if isinstance(groups, dict):
        lists += list(groups.values())
    for deps in lists:
        for d in deps if isinstance(deps, list) else ():
            spec = _requirement(d, package) if isinstance(d, str) else None
            if spec is not None:
                found.append((spec, python_spec(spec)))
    poetry = (doc.get("tool") or {}).get("poetry") if isinstance(doc.get("tool"), dict) else None
    if isinstance(poetry, dict):
        tables = [poetry.get("dependencies"), poetry.get("dev-dependencies")]
        for g in (poetry.get("group") or {}).values() if isinstance(poetry.get("group"), dict) else ():
            tables.append(g.get("dependencies") if isinstance(g, dict) else None)
        for t in tables:
            for k, v in t.items() if isinstance(t, dict) else ():
                if normalize(k) != normalize(package):
                    continue
                spec = v.get("version") if isinstance(v, dict) else v
                if isinstance(spec, str):
                    found.append((spec, poetry_spec(spec)))
                else:
                    found.append(("(git or path)", (None, "unknown")))
    if not found:
        return None
    spec, (ver, basis) = min(found, key=lambda f: {"pin": 0, "range": 1, "unknown": 2}[f[1][1]])
    name = re.escape(package)
    line = _line_re(text, r"[\"']" + name + r"(?=[\s\[=<>~!;@\"'])") or _line_re(
        text, r"(?m)^\s*" + name + r"\s*="
    )
    return Pin(package, ver, spec, basis, path, line)


def _json_object(text):
    doc = json.loads(text)
    if not isinstance(doc, dict):
        raise Malformed("not a JSON object")
    return doc


def _package_json(text, package, path):
    doc = _json_object(text)
    for section in ("dependencies", "devDependencies", "optionalDependencies"):
        deps = doc.get(section)
        if isinstance(deps, dict) and isinstance(deps.get(package), str):
            spec = deps[package]
            ver, basis = npm_spec(spec)
            return Pin(package, ver, spec, basis, path, _line_of(text, f'"{package}"'))
    return None


def _package_lock(text, package, path):
    doc = _json_object(text)
    packages = doc.get("packages")
    v = None
    if isinstance(packages, dict):  # lockfileVersion 2 and 3: the top-level install, else a workspace's
        entry = packages.get(f"node_modules/{package}")
        if not isinstance(entry, dict):
            tail = f"/node_modules/{package}"
            entry = next(
                (
                    e
                    for k, e in packages.items()
                    if k.endswith(tail) and "node_modules" not in k[: -len(tail)]
                ),
                None,
            )
        if isinstance(entry, dict):
            v = entry.get("version")
    if v is None and isinstance(doc.get("dependencies"), dict):  # lockfileVersion 1
        entry = doc["dependencies"].get(package)
        v = entry.get("version") if isinstance(entry, dict) else None
    if not isinstance(v, str):
        return None
    ver = version_tuple(v)
    return Pin(
        package, ver, v, "lock" if ver else "unknown", path, _line_of(text, f'node_modules/{package}"')
    )


def _yarn_lock(text, package, path):
    """yarn.lock v1 (``sqs-consumer@^14.0.0:`` then ``  version "14.1.0"``) and Berry (``"sqs-consumer@npm:^14":``
    then ``  version: 14.1.0``). Several versions of the package (nested installs): the highest is not
    necessarily the app's, so the entries' versions must agree, else the version is unknown."""
    versions, first_line, head = {}, None, None
    for n, line in enumerate(text.splitlines(), 1):
        if line and not line[0].isspace() and line.rstrip().endswith(":"):
            names = [d.strip().strip('"') for d in line.rstrip()[:-1].split(",")]
            head = n if any(d.startswith(package + "@") for d in names) else None
        elif head is not None:
            m = re.match(r'\s+version:?\s+"?([^"\s]+)"?', line)
            if m:
                versions.setdefault(m.group(1), head)
                first_line = first_line or head
                head = None
    if not versions:
        return None
    if len(versions) > 1:
        return Pin(package, None, ", ".join(versions), "unknown", path, first_line)
    ((v, line),) = versions.items()
    ver = version_tuple(v)
    return Pin(package, ver, v, "lock" if ver else "unknown", path, line)


def _pnpm_lock(text, package, path):
    """pnpm-lock.yaml: the importers' (v6+, ``importers: . : dependencies: sqs-consumer: {specifier, version}``)
    or the top level's (v5, ``dependencies: sqs-consumer: 14.1.0``) direct dependency, read line by line (no YAML
    parse of a large lock)."""
    lines = text.splitlines()
    key = re.compile(r"^(\s+)(['\"]?)" + re.escape(package) + r"\2:\s*(.*)$")
    versions = {}
    for n, line in enumerate(lines):
        m = key.match(line)
        if not m:
            continue
        indent, rest = len(m.group(1)), m.group(3).strip()
        if rest and not rest.startswith("{"):
            versions.setdefault(rest.strip("'\""), n + 1)  # v5: name: 14.1.0
            continue
        if rest.startswith("{"):
            vm = re.search(r"version:\s*['\"]?([^,'\"}\s]+)", rest)
            if vm:
                versions.setdefault(vm.group(1), n + 1)
            continue
        for follow in lines[n + 1 : n + 4]:
            if len(follow) - len(follow.lstrip()) <= indent:
                break
            vm = re.match(r"\s+version:\s*['\"]?([^'\"\s]+)", follow)
            if vm:
                versions.setdefault(vm.group(1), n + 1)
                break
    plain = {
        re.split(r"[(_]", v, maxsplit=1)[0]: line for v, line in versions.items()
    }  # 14.1.0(peer@1) -> 14.1.0
    plain = {v: line for v, line in plain.items() if version_tuple(v) is not None}
    if not plain:
        return None
    if len(plain) > 1:
        return Pin(package, None, ", ".join(plain), "unknown", path, min(plain.values()))
    ((v, line),) = plain.items()
    return Pin(package, version_tuple(v), v, "lock", path, line)


# ----------------------------------------------------------------------------------------------- the walk
def _manifests(folder: str, names: tuple, ecosystem: str, listdir) -> list[str]:
    out = list(names)
    if ecosystem == "python":
        try:
            reqs = sorted(n for n in listdir(folder) if n.startswith("requirements") and n.endswith(".txt"))
        except OSError:
            reqs = []
        out += sorted(reqs, key=lambda n: (n != "requirements.txt", n))[:MAX_REQUIREMENT_FILES]
    return out


def _read(path: str, limit: int) -> bytes | str | None:
    """The bytes of ``path`` (a regular file, at most ``limit``), None when there is none, or the sentence why it
    is not read."""
    from visguard.linter.loaders import safe_io

    if not os.path.isfile(path):
        return None
    try:
        st = safe_io.require_regular(path)
        if st.st_size > limit:
            return f"{st.st_size:,} bytes, more than the {limit:,} read from a dependency file"
        return safe_io.read_bytes(path, max_bytes=limit)
    except Exception as e:  # a file that vanished, a permission: not read, said once
        return f"not readable ({type(e).__name__})"


# (file, size, mtime, package) -> (Pin | None, why not read | None): a lock file is parsed once per package for all
# the source files of a run that look it up (a 30 MB package-lock.json is not parsed again for each worker file)
_CACHE: dict[tuple, tuple] = {}
MAX_CACHED = 512


def _pin_of(file: str, name: str, package: str, limit: int, read) -> tuple:
    """(the Pin ``file`` gives ``package`` or None, the sentence why it is not read or None)."""
    key = None
    if read is _read:
        try:
            st = os.stat(file)
        except OSError:
            return None, None  # no such file
        key = (file, st.st_size, st.st_mtime_ns, package, limit)
        if key in _CACHE:
            return _CACHE[key]
    data = read(file, limit)
    if data is None:
        got = (None, None)
    elif isinstance(data, str):
        got = (None, data)
    else:
        try:
            got = (pin_in(name, data, package, file), None)
        except Malformed as e:
            got = (None, f"not read: {e}")
    if key is not None:
        if len(_CACHE) >= MAX_CACHED:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = got
    return got


def _inside(path: str, root: str) -> bool:
    from visguard.linter.loaders import safe_io

    return safe_io.inside(path, root)


def bound_of(asked: str | None, path: str) -> str:
    """The highest folder a walk from ``path`` may read: the asked folder, or for a file named alone its own
    folder (only the files beside it)."""
    here = os.path.dirname(os.path.abspath(path))
    if asked:
        a = os.path.abspath(asked)
        top = a if os.path.isdir(a) else os.path.dirname(a)
        if here == top or here.startswith(top.rstrip(os.sep) + os.sep):
            return top
    return here


def nearest(package: str, path: str, ecosystem: str, bound: str, *, read=_read, listdir=os.listdir):
    """(the :class:`Pin` of ``package`` nearest to the file ``path``, notes): the module docstring's policy.
    ``bound``: the highest folder read (:func:`bound_of`). ``read(path, limit)``: bytes, None (no such file) or
    the sentence why not read; ``notes`` are (file, sentence) of the files that could not be read."""
    locks, manifests = ECOSYSTEMS[ecosystem]
    folder = os.path.dirname(os.path.abspath(path))
    top = os.path.abspath(bound)
    notes: list[tuple[str, str]] = []
    ranged: Pin | None = None
    for _ in range(MAX_UP):
        if not (folder == top or folder.startswith(top.rstrip(os.sep) + os.sep)):
            break
        names = [(n, True) for n in locks]
        if ranged is None:
            names += [(n, False) for n in _manifests(folder, manifests, ecosystem, listdir)]
        for name, is_lock in names:
            file = os.path.join(folder, name)
            if os.path.islink(file) and not _inside(file, top):
                notes.append((file, "not read: a symlink to outside what was asked"))
                continue
            pin, why = _pin_of(file, name, package, MAX_LOCK_BYTES if is_lock else MAX_MANIFEST_BYTES, read)
            if why is not None:
                notes.append((file, why))
                continue
            if pin is None:
                continue
            if is_lock and pin.version is not None:
                return pin, notes
            if not is_lock and pin.basis == "pin":
                return pin, notes
            if not is_lock and ranged is None:
                ranged = pin
        if folder == top:
            break
        up = os.path.dirname(folder)
        if up == folder:
            break
        folder = up
    return ranged, notes
