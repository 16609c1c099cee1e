"""The language server's workspace: open documents over the files on disk, one lint of the whole workspace (the
same join across inputs as ``visguard lint``), and what the editor asks of it, without any protocol types.

- **Unsaved text.** Open documents are read instead of their files (``safe_io.planned``: every loader reads
  through it), so a lint sees exactly what the editor holds. A document outside the workspace root is never read.
- **Incremental.** What ``registry.discover`` found is kept until a file is created, deleted or saved under a new
  name (:meth:`Workspace.invalidate`); each input's Model is kept with the fingerprint of the files it read (the
  bytes of an open document, else size and modification time), so a change re-reads only the inputs whose
  files changed. Rules are pure and run over the kept models; the join across inputs and visguard.yaml's
  profiles change models, so they get copies (``lint_paths(writable=...)``).
- **A changed template** is parsed again in the resource that changed only (``decode_yaml.ChunkCache``); in a
  changed Terraform root only the resources the change touches are evaluated again (``terraform.reuse``).
- **Fixes.** :meth:`Workspace.fixes` is the fix plan ``visguard lint --fix`` would write (``linter.fix.plan``
  with its re-lint check), of the texts the editor holds.
- **Bad input never stops it.** A document that does not parse is an error of the lint result (one diagnostic at
  its place); a bug in one input is an ``InternalError`` of that input (``lint_paths`` already guards each).
"""

from __future__ import annotations

import copy
import hashlib
import os

from visguard.linter.loaders import safe_io

MAX_OPEN_BYTES = safe_io.MAX_BYTES  # an open document larger than a loader would read is not overlaid


MAX_DEBOUNCE = 10.0  # seconds
_LISTS = {"vars": "--var", "parameters": "--parameter", "queuesFrom": "--queues-from"}


def settings_from(options) -> tuple[dict, list[str]]:
    """The server's settings from the client's initialization options, and one line for each option that is not
    what it should be (the option is then left out; the client is told). Options come from an editor's
    configuration: anything can be in them."""
    out: dict = {}
    problems: list[str] = []
    if options is None:
        return out, problems
    if not isinstance(options, dict):
        return out, [f"initialization options must be an object, got {type(options).__name__}: ignored"]
    for key, value in options.items():
        if key == "config":
            if isinstance(value, str) and value and "\x00" not in value and len(value) <= 4096:
                out["config"] = value
            else:
                problems.append("config must be a file name inside the workspace: ignored")
        elif key == "debounce":
            ok = (
                isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= MAX_DEBOUNCE
            )
            if ok:
                out["debounce"] = float(value)
            else:
                problems.append(f"debounce must be a number of seconds from 0 to {MAX_DEBOUNCE:g}: ignored")
        elif key in _LISTS or key == "queues_from":
            name = "queuesFrom" if key == "queues_from" else key
            items = value if isinstance(value, list) else None
            good = [v for v in items or [] if isinstance(v, str) and "\x00" not in v and len(v) <= 4096]
            if name != "queuesFrom":
                good = [v for v in good if "=" in v and v.partition("=")[0].strip()]
            if items is None or len(good) != len(items):
                problems.append(
                    f"{name} must be a list of {'NAME=VALUE' if name != 'queuesFrom' else 'sources'}"
                    f" (as {_LISTS[name]}): the other entries are ignored"
                )
            out[name] = good
        else:
            problems.append(f"unknown initialization option {str(key)[:80]!r}: ignored")
    return out, problems


class Workspace:
    """One workspace folder: its configuration, the open documents, and the caches of the last lint."""

    def __init__(self, root: str, settings: dict | None = None):
        self.root = os.path.realpath(root)
        self.settings = dict(settings or {})
        self.open: dict[str, str] = {}  # real path -> the editor's text
        self._inputs = None  # registry.discover of the root, kept until invalidate()
        self._discover_errors: list = []
        self._models: dict[
            tuple[str, str], tuple[tuple, object]
        ] = {}  # (path, loader) -> (fingerprint, Model)
        self._config = None
        self.result = None  # the last LintResult
        self._fixes = None  # the fix plan of the last result (computed on demand)
        self.loads = 0  # inputs actually read (not from the cache): for tests and the benchmark
        from visguard.linter.loaders.decode_yaml import ChunkCache

        self.chunks = ChunkCache()  # a changed template is parsed again in the resource that changed only
        from visguard.linter.loaders.terraform.reuse import BlockCache

        self.blocks = (
            BlockCache()
        )  # a changed Terraform root reads again only the resources the change touches

    # -- documents ----------------------------------------------------------------------------------------------
    def contains(self, path: str) -> bool:
        """True when ``path`` (symlinks resolved) is inside the workspace root: nothing else is read."""
        return safe_io.inside(path, self.root)

    def set_text(self, path: str, text: str | None) -> bool:
        """The editor's text of ``path`` (None: closed, the file on disk counts again). False when ``path`` is
        outside the workspace (not kept, never read)."""
        real = os.path.realpath(path)
        if not self.contains(real):
            return False
        known = self._inputs is not None and any(os.path.realpath(i.path) == real for i in self._inputs)
        if text is None:
            self.open.pop(real, None)
        else:
            self.open[real] = text
        if not known:  # a new document may be an input discover has not seen (or has stopped being one)
            self.invalidate()
        return True

    def invalidate(self) -> None:
        """Files were created, deleted or renamed: discover the workspace again on the next lint."""
        self._inputs = None
        self._config = None

    # -- the lint -----------------------------------------------------------------------------------------------
    def _overlay(self) -> dict[str, bytes]:
        out = {}
        for path, text in self.open.items():
            data = text.encode("utf-8")
            if len(data) <= MAX_OPEN_BYTES and os.path.isfile(path):
                out[path] = data
        return out

    def _lint_config(self):
        from visguard.linter.model import LintConfig

        if self._config is None:
            from visguard.linter.loaders.registry import CONFIG_NAMES

            config = LintConfig()
            given = self.settings.get("config")
            names = [given] if given else list(CONFIG_NAMES)
            for name in names:
                path = os.path.join(self.root, name)
                if self.contains(path) and os.path.isfile(path):
                    from visguard.linter.loaders import load_config

                    config = load_config(path)
                    break
            self._config = config
        return self._config

    def _options(self):
        from visguard.linter.cli import parse_parameters
        from visguard.linter.loaders.registry import LoadOptions

        return LoadOptions(
            parameters=parse_parameters(list(self.settings.get("parameters") or [])),
            variables=parse_parameters(list(self.settings.get("vars") or []), "--var"),
        )

    @staticmethod
    def _fingerprint(files) -> tuple:
        """What the files a model was read from are now: the bytes read instead of a file (an open document, a
        planned fix), else its size and modification time."""
        out = []
        for path in files:
            try:
                st = os.stat(path)
            except OSError:
                out.append((path, None))
                continue
            planned = safe_io._PLANNED.get((st.st_dev, st.st_ino))
            if planned is not None:
                out.append((path, hashlib.blake2b(planned, digest_size=16).digest()))
            else:
                out.append((path, st.st_size, st.st_mtime_ns))
        return tuple(out)

    def _load(self, item, options):
        key = (item.path, item.loader.name)
        hit = self._models.get(key)
        if hit is not None:
            fingerprint, model = hit
            if fingerprint == self._fingerprint(f for f, *_ in fingerprint):
                return model
        before = self._fingerprint([item.path])  # a file changed while it is read is read again next time
        model = item.loader.load(item.path, options)
        self.loads += 1
        files = [item.path] + [f for f in (getattr(model, "files", None) or ()) if f != item.path]
        fingerprint = self._fingerprint(files)
        if fingerprint[0] == before[0]:
            self._models[key] = (fingerprint, model)
        return model

    def _writable(self, model):
        """A kept model is copied before the join or profiles change it (the rules themselves are pure)."""
        if any(m is model for _, m in self._models.values()):
            return copy.deepcopy(model)
        return model

    def _run(self):
        from visguard.linter.loaders import registry

        # the workspace as the folder the server runs in, when it is (the editor starts it there): findings then
        # name files as `visguard lint .` does, relative to it
        arg = "." if os.path.realpath(os.getcwd()) == self.root else self.root
        if self._inputs is None:
            errors: list = []
            self._inputs = registry.discover([arg], errors=errors)
            self._discover_errors = errors
        fetch = None
        sources = [
            str(x) for x in (self.settings.get("queuesFrom") or self.settings.get("queues_from") or [])
        ]
        if (
            sources
        ):  # deployed queues, as --queues-from: inventory folders, or aws (read-only, the user's creds)
            from visguard.linter.queues_from import loader_for

            fetch = loader_for(sources)
        from visguard.linter.loaders import decode_yaml
        from visguard.linter.loaders.terraform import reuse

        before = decode_yaml.use_chunks(self.chunks)
        before_blocks = reuse.use_blocks(self.blocks)
        try:
            result = self._lint_paths(arg, fetch)
        finally:
            decode_yaml.use_chunks(before)
            reuse.use_blocks(before_blocks)
        result.errors = [e for e in self._discover_errors if not isinstance(e, registry.NothingToLint)] + [
            e for e in result.errors
        ]
        return result

    def _lint_paths(self, arg, fetch):
        from visguard.linter.api import lint_paths

        return lint_paths(
            [arg],
            config=self._lint_config(),
            options=self._options(),
            fetch_queues=fetch,
            inputs=list(self._inputs),
            load=self._load,
            writable=self._writable,
        )

    def lint(self):
        """Lint the workspace as the editor holds it; the result is kept for hover and code actions."""
        try:
            config_error = None
            self._lint_config()
        except Exception as exc:  # a visguard.yaml that does not validate: reported, the rest still linted
            from visguard.linter.model import LintConfig

            config_error, self._config = exc, LintConfig()
        with safe_io.planned(self._overlay()):
            result = self._run()
        if config_error is not None:
            result.errors.insert(0, config_error)
            self._config = None  # read it again next time: the user is fixing it
        self.result, self._fixes = result, None
        return result

    def fixes(self):
        """The fix plan of the last lint, as ``visguard lint --fix`` would write it (checked by re-linting the
        texts it would write), of the texts the editor holds. Nothing is written."""
        if self.result is None:
            self.lint()
        if self._fixes is None:
            from visguard.linter.fix import plan

            with safe_io.planned(self._overlay()):
                self._fixes = plan(self.result, self._run)
        return self._fixes

    # -- what the editor asks -----------------------------------------------------------------------------------
    def models(self):
        return list((self.result.models if self.result is not None else {}).values())

    def findings_in(self, path: str):
        real = os.path.realpath(path)
        if self.result is None:
            return []
        return [f for f in self.result.findings if os.path.realpath(f.location.file) == real]

    def errors_in(self, path: str):
        real = os.path.realpath(path)
        if self.result is None:
            return []
        return [
            e for e in self.result.errors if getattr(e, "file", None) and os.path.realpath(e.file) == real
        ]

    def text_of(self, path: str) -> str:
        real = os.path.realpath(path)
        if real in self.open:
            return self.open[real]
        if not self.contains(real):
            return ""
        try:
            return safe_io.read_text(real)
        except Exception:
            return ""
