"""The linter's front door: one registry of loaders, and the one place that decides the kind of each input.

A loader claims a path by name and content and builds the :class:`~visguard.linter.model.Model`:

```python
from visguard.linter.loaders.registry import LoaderSpec, LoadOptions, register
register(LoaderSpec(
    name="terraform",
    claim_dir=lambda path: ...,            # a folder that is ONE input (a root module with *.tf)
    claim_file=lambda path, head: ...,     # a file, from its path and its first bytes (HEAD_BYTES, read safely)
    load=lambda path, options: ...,        # -> Model; raises VisguardError(file=, place=) on bad input
    suffixes=(".json",),                   # file endings a folder search offers to claim_file
), before="cloudformation")
```

Loaders are asked in order; the first claim wins. Built in, in this order: ``cdk-assembly`` (a folder whose
manifest.json is shaped like a cloud assembly manifest), ``visguard-config`` (visguard.yaml by name, or a YAML
document whose top-level keys are all visguard.yaml keys), ``ebextensions`` (a ``.ebextensions`` folder, or a
``*.config`` file in one: Elastic Beanstalk option settings), ``cloudformation`` (a top-level ``Resources`` or
``AWSTemplateFormatVersion``; SAM is a transform inside it). A file named on the command line that no loader
claims is given to ``cloudformation``, which says why it is not a template.

Loaders in other modules (Terraform, Serverless, Kubernetes manifests, application code, the ``shell`` loader of
``aws sqs create-queue`` in scripts and Makefiles, the ``cdk-source`` loader of a CDK app's TypeScript/JavaScript,
whose files the code loader reads too: :func:`claims`) are :data:`PLUGINS`: the registry knows each one's claim
cheaply (file endings, file names, a marker in the first bytes, a folder holding such files) and imports the
module, which registers its loader, only when a path could be its input. ``visguard lint`` on one
CloudFormation template so imports neither (pre-commit runs it on every commit). A plugin's test must say yes
to every path its loader would claim; :func:`loaders` imports them all.

Every file is read through :mod:`.safe_io` (regular files only, bounded), and folder searches use its
iterative, symlink-confined walk.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
from collections.abc import Callable, Iterable

from visguard.errors import VisguardError
from visguard.linter.model import Model
from visguard.records import Value, fresh

from . import languages, safe_io

TEXT_SUFFIXES = (".json", ".yaml", ".yml", ".template")
# Folders a search never enters (a folder named on the command line is always read).
SKIP_DIRS = frozenset({".terraform", "node_modules", ".venv", "venv", "cdk.out", "__pycache__", ".git"})
# Hidden folders a search still enters: Elastic Beanstalk's configuration files (the ebextensions loader), and the
# folders LocalStack setups keep their ready hooks in (.docker/localstack/*.sh: the shell loader).
SEARCHED_DOT_DIRS = frozenset({".ebextensions", ".docker", ".localstack"})
# Folders whose code a search does not offer to the code loader (vendored dependencies, build output, generated
# code); their templates and Terraform are still found.
CODE_SKIP_DIRS = frozenset(
    {"vendor", "third_party", "third-party", "bower_components", "site-packages", "dist", "build", "target", "out",
     "bin", "obj", "generated", "__generated__", "gen", "coverage", "Pods"}
)  # fmt: skip
# A folder below the searched one whose package manifest names an SQS client library or an AWS SDK is a vendored
# copy of that library (its sources define ReceiveMessage; the application only calls it): its code is not read,
# whatever the folder is called. Told by content: the manifest's own package name, read from its first 8 KB.
VENDORED_PACKAGES = frozenset(
    {"boto3", "botocore", "aiobotocore", "aioboto3", "kombu", "celery", "moto", "aws-sdk", "sqs-consumer",
     "squiss-ts", "@ssut/nestjs-sqs", "aws/aws-sdk-php", "laravel/framework", "shoryuken", "aws-sdk-sqs",
     "aws-sdk-core", "rusoto_sqs", "rusoto_core"}
)  # fmt: skip
VENDORED_PREFIXES = ("@aws-sdk/", "@smithy/", "github.com/aws/aws-sdk-go", "aws-sdk-", "io.awspring.cloud")
_PACKAGE_NAME = {  # manifest -> its package's name (the first match: the package's own, before its dependencies)
    "go.mod": re.compile(rb"(?m)^\s*module\s+(\S+)"),
    "package.json": re.compile(rb'"name"\s*:\s*"([^"]{1,214})"'),
    "composer.json": re.compile(rb'"name"\s*:\s*"([^"]{1,214})"'),
    "pyproject.toml": re.compile(rb"""(?m)^\s*name\s*=\s*["']([^"']{1,214})["']"""),
    "setup.py": re.compile(rb"""\bname\s*=\s*["']([^"']{1,214})["']"""),
    "setup.cfg": re.compile(rb"(?m)^\s*name\s*=\s*([A-Za-z0-9_.-]{1,214})\s*$"),
    # Cargo.toml: the name of its [package] table (a crate's manifest starts with it; a workspace's has none)
    "Cargo.toml": re.compile(rb"""(?ms)^\s*\[package\][^\[]*?^\s*name\s*=\s*["']([^"']{1,214})["']"""),
}


def vendored_package(manifest: str, head: bytes) -> str | None:
    """The client library or SDK that a package manifest (its first bytes) says its folder is, or None."""
    pattern = _PACKAGE_NAME.get(os.path.basename(manifest))
    m = pattern.search(head) if pattern is not None else None
    if m is None:
        return None
    name = m.group(1).decode("utf-8", "replace").strip().lower()
    if name in VENDORED_PACKAGES or name.startswith(VENDORED_PREFIXES):
        return name
    return None


# Files that are never the user's templates, whatever they hold (CDK, npm, TypeScript, cdk.out internals).
SKIP_FILES = ("package.json", "package-lock.json", "tsconfig.json", "cdk.json", "cdk.context.json")
SKIP_SUFFIXES = (".assets.json", "tree.json")
# visguard.yaml by name, or a document whose top-level keys are all its keys (the visguard-config loader's claim,
# kept here so a claim does not import the config loader; visguard.linter.loaders.config re-exports them).
CONFIG_NAMES = ("visguard.yaml", "visguard.yml", ".visguard.yaml", ".visguard.yml", "visguard.json")
# ("$schema": the schema's address for editors, docs/schemas/README.md; ignored)
CONFIG_KEYS = frozenset(
    {"$schema", "version", "settings", "rules", "disable", "suppressions", "profiles", "queues"}
)


# LoadOptions is a records.Value record and LoaderSpec, Plugin and Input are plain classes, not dataclasses (a
# @dataclass compiles its methods at every `visguard lint` start); nothing compares or copies the last three.
class LoadOptions(Value):
    """What the command line passes to every loader (each uses what concerns it)."""

    __slots__ = {
        "parameters": fresh(dict),  # CloudFormation --parameter KEY=VALUE
        "variables": fresh(dict),  # Terraform --var NAME=VALUE
        "var_files": (),  # Terraform --var-file FILE
        "asked": None,  # the path on the command line this input was found under (reads stay inside it)
    }


class LoaderSpec:
    """One loader: which inputs it claims and how it builds their model (see the module docstring)."""

    __slots__ = ("name", "claim_dir", "claim_file", "load", "suffixes")

    def __init__(
        self,
        name: str,  # "cloudformation", "cdk-assembly", "visguard-config", "terraform", "serverless", ...
        claim_dir: Callable[[str], bool] | None,
        claim_file: Callable[[str, bytes], bool] | None,
        load: Callable[[str, LoadOptions], Model],
        suffixes: tuple[str, ...] = TEXT_SUFFIXES,  # file endings a folder search offers to claim_file
    ):
        self.name = name
        self.claim_dir = claim_dir
        self.claim_file = claim_file
        self.load = load
        self.suffixes = suffixes

    def __repr__(self) -> str:
        return f"LoaderSpec({self.name!r})"


class Plugin:
    """A module that adds a loader (it calls :func:`register` when imported), imported only when a path could
    be its input: ``could_claim_dir(folder)`` / ``could_claim_file(path, head)`` are cheap and say yes to every
    path the loader would claim (they may say yes to more)."""

    __slots__ = ("module", "could_claim_dir", "could_claim_file", "suffixes")

    def __init__(
        self,
        module: str,
        could_claim_dir: Callable[[str], bool] | None,
        could_claim_file: Callable[[str, bytes], bool] | None,
        suffixes: tuple[str, ...],  # file endings a folder search offers (the loader's LoaderSpec.suffixes)
    ):
        self.module = module
        self.could_claim_dir = could_claim_dir
        self.could_claim_file = could_claim_file
        self.suffixes = suffixes

    def __repr__(self) -> str:
        return f"Plugin({self.module!r})"


def _holds_terraform(folder: str) -> bool:
    try:
        with os.scandir(folder) as it:
            return any(
                e.name.endswith((".tf", ".tf.json", ".tofu", ".tofu.json", "terragrunt.hcl")) for e in it
            )
    except OSError:
        return False


def _terraform_file(path: str, head: bytes) -> bool:  # a .tf file, or a plan JSON document
    return (
        path.endswith((".tf", ".tf.json", ".tofu", ".tofu.json", "terragrunt.hcl"))
        or b'"format_version"' in head
    )


SERVERLESS_FILES = (
    "serverless.yml",
    "serverless.yaml",
    "serverless.json",
    "serverless.ts",
)  # = serverless.SERVICE_FILES


_PLAYBOOK_ENDINGS = (".yml", ".yaml")  # = ansible.ENDINGS


def _ansible_file(path: str, head: bytes) -> bool:  # = ansible.claim_file
    return (
        os.path.basename(path).endswith((".yml", ".yaml"))
        and b"hosts:" in head
        and b"template" in head
        and head.lstrip(b"\xef\xbb\xbf \t\r\n#-").find(b"Resources:") < 0
    )


def _playbook(path: str) -> bool:
    """A YAML file below a Terraform root that is a playbook (its first 16 KB); one not readable is none (it
    was never read there before playbooks were)."""
    try:
        return _ansible_file(path, safe_io.read_head(path, max_bytes=16 * 1024))
    except (OSError, VisguardError):
        return False


def _serverless_file(path: str, head: bytes) -> bool:
    """A service file, or a file beside one (a fragment it includes; a service in a parent folder is only
    asked once a service was claimed, by then the module is imported)."""
    if os.path.basename(path) in SERVERLESS_FILES:
        return True
    if path.endswith(".ts"):  # TypeScript beside a service is its code, not a fragment it includes
        return False
    folder = os.path.dirname(os.path.abspath(path))
    return any(os.path.isfile(os.path.join(folder, name)) for name in SERVERLESS_FILES)


# a line that is a Helm template's, not rendered YAML: `{{- if ...}}`, `name: {{ .Values.x }}`, `- {{ ... }}`
_HELM_TEMPLATE = re.compile(rb"(?m)^[ \t]*(?:-[ \t]+)?\{\{|:[ \t]+\{\{")


def kubernetes_file(path: str, head: bytes) -> bool:
    """Kubernetes manifests (kubernetes loader): YAML whose documents have top-level ``apiVersion`` and ``kind``
    (several documents, rendered Helm output, a List), or JSON with both keys; never a template (Resources), a
    Serverless service, a visguard.yaml, or a Helm template that is not rendered."""
    name = os.path.basename(path)
    if name in SERVERLESS_FILES or name in CONFIG_NAMES or b"apiVersion" not in head:
        return False
    if head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{"):
        return bool(
            re.search(rb'"apiVersion"\s*:', head)
            and re.search(rb'"kind"\s*:', head)
            and not re.search(_JSON_RESOURCES, head)
        )
    keys = top_level_keys(head)
    return (
        {"apiVersion", "kind"} <= keys
        and not keys & {"Resources", "AWSTemplateFormatVersion"}
        and not _HELM_TEMPLATE.search(head)
    )


# = code.loader.ENDINGS (application code and framework configuration; the loader claims those whose first bytes
# name an SQS receive API or a worker framework)
CODE_ENDINGS = (
    "application.yml", "application.yaml", "application.properties", "Procfile", ".conf", ".service", "shoryuken.yml",
    "shoryuken.yaml", "aws_active_job_sqs.yml", "aws_sqs_active_job.yml", ".env", ".env.local", ".env.dev", ".env.development", ".env.prod", ".env.production",
    ".env.staging", ".env.test", ".env.example", "compose.yml", "compose.yaml",
    *languages.endings(),  # the languages whose query file's header names them (no import: a file's first lines)
)  # fmt: skip


def _is_vendored(folder: str, files: list[str]) -> bool:
    for path in files:
        if os.path.basename(path) in _PACKAGE_NAME:
            try:
                head = safe_io.read_head(path, max_bytes=8192)
            except (OSError, VisguardError):
                continue
            if vendored_package(path, head) is not None:
                return True
    return False


def _code_file(path: str, head: bytes) -> bool:
    return path.endswith(CODE_ENDINGS)


# = shell.ENDINGS, shell.MAKEFILES: shell scripts and Makefiles whose first bytes hold an AWS CLI create-queue or a
# worker framework's start command (the shell loader: the queues `aws sqs create-queue` makes, the workers started)
SHELL_ENDINGS = (".sh", ".bash", ".mk", "Makefile", "makefile", "GNUmakefile")


def _shell_file(path: str, head: bytes) -> bool:  # = shell.claim_file
    return os.path.basename(path).endswith(SHELL_ENDINGS) and (
        ((b"create-queue" in head or b"receive-message" in head) and b"sqs" in head)
        or any(m in head for m in (b"queue:work", b"queue:listen", b"shoryuken", b"celery"))
        or (b"compose" in head and (b"QUEUE" in head or b"SQS" in head))
    )


# = code.cdk_source.MARKERS / ENDINGS: a JavaScript/TypeScript file whose first bytes import a CDK library (the
# cdk-source loader: the CloudFormation a CDK app's constructs synthesize; the code loader reads the file too)
CDK_MARKERS = (b"aws-cdk-lib", b"@aws-cdk/", b"sst/constructs")
CDK_TS_ENDINGS = (".ts", ".mts", ".cts", ".tsx", ".js", ".mjs", ".cjs")
CDK_PY_MARKERS = (b"import aws_cdk", b"from aws_cdk")  # = cdk_source.PY_MARKERS: a Python CDK app
CDK_ENDINGS = (*CDK_TS_ENDINGS, ".py")


def _cdk_file(path: str, head: bytes) -> bool:  # = cdk_source.could_claim
    name = os.path.basename(path)
    if name.endswith(".py"):
        return any(m in head for m in CDK_PY_MARKERS)
    return (
        name.endswith(CDK_TS_ENDINGS) and not name.endswith(".d.ts") and any(m in head for m in CDK_MARKERS)
    )


# In claim order among themselves (each registers before "cloudformation"). A missing module is skipped.
PLUGINS = (
    Plugin(
        "visguard.linter.loaders.terraform",
        _holds_terraform,
        _terraform_file,
        (".tf", ".tf.json", ".tofu", ".tofu.json", ".json", ".hcl"),
    ),
    Plugin("visguard.linter.loaders.ansible", None, _ansible_file, (".yml", ".yaml")),
    Plugin("visguard.linter.loaders.serverless", None, _serverless_file, (".yml", ".yaml", ".json", ".ts")),
    Plugin("visguard.linter.loaders.kubernetes", None, kubernetes_file, (".yaml", ".yml", ".json")),
    Plugin("visguard.linter.loaders.code.cdk_source", None, _cdk_file, CDK_ENDINGS),
    Plugin("visguard.linter.loaders.code.loader", None, _code_file, CODE_ENDINGS),
    Plugin("visguard.linter.loaders.shell", None, _shell_file, SHELL_ENDINGS),
)

_SPECS: list[LoaderSpec] = []
_imported: set[str] = set()  # plugin modules already imported (or found missing)


def register(spec: LoaderSpec, *, before: str | None = None) -> None:
    """Add ``spec`` (replacing a loader of the same name), ahead of loader ``before`` when given."""
    global _SPECS
    specs = [s for s in _SPECS if s.name != spec.name]
    names = [s.name for s in specs]
    if before is not None and before not in names:
        raise ValueError(f"no loader named {before!r} (have {', '.join(names)})")
    specs.insert(names.index(before) if before is not None else len(specs), spec)
    _SPECS = specs


def _import_plugin(plugin: Plugin) -> None:
    if plugin.module in _imported:
        return
    _imported.add(plugin.module)
    import importlib.util  # only when a plugin could claim a path (not for one CloudFormation template)

    try:
        found = importlib.util.find_spec(plugin.module) is not None
    except ModuleNotFoundError:
        found = False
    if found:
        importlib.import_module(plugin.module)


def _specs_for(path: str, head: bytes | None) -> list[LoaderSpec]:
    """The registered loaders, after importing the plugins that could claim ``path`` (a folder when ``head``
    is None)."""
    for plugin in PLUGINS:
        if plugin.module in _imported:
            continue
        if head is None:
            could = plugin.could_claim_dir is not None and plugin.could_claim_dir(path)
        else:
            could = plugin.could_claim_file is not None and plugin.could_claim_file(path, head)
        if could:
            _import_plugin(plugin)
    return list(_SPECS)


def loaders() -> list[LoaderSpec]:
    """All loaders in claim order (every plugin module imported)."""
    for plugin in PLUGINS:
        _import_plugin(plugin)
    return list(_SPECS)


def get(name: str) -> LoaderSpec:
    for s in (*_SPECS, *loaders()):
        if s.name == name:
            return s
    raise KeyError(name)


# ---------------------------------------------------------------------------------------------- claims
def claim(path: str, *, explicit: bool = True) -> LoaderSpec | None:
    """The loader for ``path``. A folder: the first ``claim_dir`` that says yes (None: search it). A file: the
    first ``claim_file`` that says yes; a file named on the command line (``explicit``) falls back to
    ``code`` for a source file, else ``cloudformation``. Raises VisguardError when the file cannot be read (a FIFO, a device, no access)."""
    if os.path.isdir(path):
        return _claim_dir(path)
    head = safe_io.read_head(path)
    name = os.path.basename(path)
    for s in _specs_for(path, head):
        if s.claim_file is not None and (explicit or name.endswith(s.suffixes)) and s.claim_file(path, head):
            return s
    if not explicit:
        return None
    if _code_file(path, head):  # a source file with no SQS in it: read, nothing to say (imported above)
        return next((s for s in _SPECS if s.name == "code"), None) or get("code")
    if name.endswith(SHELL_ENDINGS):  # a script or Makefile that creates no queue: read, nothing to say
        return get("shell")
    return get("cloudformation")


def claims(path: str, *, explicit: bool = True) -> list[LoaderSpec]:
    """Every loader that reads file ``path``: :func:`claim`'s, and, when that one claims a text file by its name
    (the code loader's framework configuration: a Spring ``application.yaml``), each later loader that claims it
    by its content (a CloudFormation/SAM template named ``application.yaml``). Content decides before names: such
    a file is read by both, never by the name's loader alone (issue 35 §3)."""
    first = claim(path, explicit=explicit)
    if first is not None and first.name == "cdk-source":  # a CDK app's source is application code too
        head = safe_io.read_head(path)
        code = next((s for s in _specs_for(path, head) if s.name == "code"), None)
        return [first, code] if code is not None and code.claim_file(path, head) else [first]
    if first is None or first.name != "code" or not os.path.basename(path).endswith(TEXT_SUFFIXES):
        return [first] if first is not None else []
    head = safe_io.read_head(path)
    later = _specs_for(path, head)
    later = later[later.index(first) + 1 :] if first in later else []
    return [first, *(s for s in later if s.claim_file is not None and s.claim_file(path, head))]


def _claim_dir(path: str) -> LoaderSpec | None:
    return next((s for s in _specs_for(path, None) if s.claim_dir is not None and s.claim_dir(path)), None)


def load(path: str, options: LoadOptions | None = None) -> Model:
    """Claim and load one input (a file, or a folder some loader claims)."""
    path = os.fspath(path)
    if not os.path.lexists(path):
        raise VisguardError("no such file or directory", file=path)
    spec = claim(path, explicit=True)
    if spec is None:  # a folder no loader claims: the assembly loader says what is wrong with it
        spec = get("cdk-assembly")
    return spec.load(path, options or LoadOptions())


# ---------------------------------------------------------------------------------------------- discovery
class Input:
    """One input to lint, the loader that claimed it, and the path on the command line it was found under
    (``asked``: a loader may read a file a symlink or an expression names only inside it)."""

    __slots__ = ("path", "loader", "asked")

    def __init__(self, path: str, loader: LoaderSpec, asked: str | None = None):
        self.path = path
        self.loader = loader
        self.asked = asked if asked is not None else path

    def __repr__(self) -> str:
        return f"Input({self.path!r}, {self.loader!r})"


def _excluded(rel: str, name: str, exclude: Iterable[str]) -> bool:
    """``--exclude GLOB``: a glob with a ``/`` is matched against the path below the searched folder, one
    without against each name; a folder that matches is not entered."""
    for g in exclude:
        g = g.rstrip("/").removeprefix("./")
        if "/" in g:
            if fnmatch.fnmatchcase(rel, g) or fnmatch.fnmatchcase(rel, g + "/*"):
                return True
        elif fnmatch.fnmatchcase(name, g):
            return True
    return False


def discover(
    paths: Iterable[str], *, exclude: Iterable[str] = (), errors: list[VisguardError]
) -> list[Input]:
    """The inputs behind ``paths``: a file as given (its loader claimed once, here); a folder some loader
    claims (cdk.out, a Terraform root module) as one input; other folders searched for what a loader claims.

    A search skips hidden folders and :data:`SKIP_DIRS`, the code of :data:`CODE_SKIP_DIRS` and of folders whose
    package manifest says they are a vendored SQS library or SDK (:func:`vendored_package`), folders and files
    matching ``exclude``, symlinks that leave the searched folder or lead nowhere (a loop), anything that is not a
    regular file, and files no loader claims (Helm charts, CI workflows, docker-compose: not reported). Problems
    go to ``errors``, one per path."""
    exclude = tuple(exclude)
    out: list[Input] = []
    seen: set[tuple[str, str]] = set()
    owner: dict[str, str] = {}  # a file's real path -> the one path it is read by

    asked = ""

    def add(path: str, spec: LoaderSpec) -> None:
        # one input per file (a file reached twice, by a link and by its own name, is read once, under the first
        # path), and per loader of that one path (a file two loaders claim: claims)
        real = os.path.realpath(path)
        if owner.setdefault(real, path) == path and (real, spec.name) not in seen:
            seen.add((real, spec.name))
            out.append(Input(path, spec, asked))

    for p in paths:
        p = asked = os.fspath(p)
        before = len(out)
        try:
            if not os.path.lexists(p):
                raise VisguardError("no such file or directory", file=p)
            if not os.path.isdir(p):
                found = claims(p, explicit=True)
                assert found
                for spec in found:
                    add(p, spec)
                continue
            spec = claim(p)
            if spec is not None:
                add(p, spec)
                if spec.name != "terraform":
                    continue
        except VisguardError as exc:
            errors.append(exc)
            continue
        found_errors = _search(p, exclude, errors, add, code_only=spec is not None)
        if spec is None and len(out) == before and not found_errors:
            errors.append(NothingToLint(f"nothing to lint: looked for {LOOKED_FOR}", file=p))
    return out


# what a folder search looks for, in a user's words (the one line of a folder where none is found)
LOOKED_FOR = (
    "CloudFormation/SAM templates, cdk.out assemblies, Terraform/OpenTofu, Serverless services, Kubernetes "
    "manifests, .ebextensions, visguard.yaml files and SQS consumers in application code"
)


class NothingToLint(VisguardError):
    """A folder in which a search found nothing visguard reads: not bad input (a valid repository without queues
    or consumers); ``lint_paths`` keeps it apart (``LintResult.nothing``) and the CLI says it on one line, exit 0."""


def _search(
    root: str, exclude: tuple[str, ...], errors: list[VisguardError], add, *, code_only: bool = False
) -> bool:
    """Search ``root``; a Terraform root module found on the way (or ``root`` itself, ``code_only``) is one
    input, and only its application code is searched further: code often lives beside its Terraform."""
    n_errors = len(errors)
    no_code: set[str] = set()  # folders below a vendored, built or generated folder (CODE_SKIP_DIRS)
    only_code: set[str] = {root} if code_only else set()  # a Terraform root and the folders below it
    cdk_bin: set[str] = set()  # folders below a bin/ (and no other CODE_SKIP_DIRS): CDK app entry points only

    def rel(path: str) -> str:
        return os.path.relpath(path, root).replace(os.sep, "/")

    def skip_dir(path: str, name: str) -> bool:
        if (
            (name.startswith(".") and name not in SEARCHED_DOT_DIRS)
            or name in SKIP_DIRS
            or _excluded(rel(path), name, exclude)
        ):
            return True
        parent = os.path.dirname(path)
        if parent in only_code:
            only_code.add(path)
        else:
            try:
                spec = _claim_dir(path)
            except VisguardError as exc:
                errors.append(exc)
                return True
            if spec is not None:
                add(path, spec)
                if spec.name != "terraform":
                    return True
                only_code.add(path)
        if name in CODE_SKIP_DIRS or parent in no_code:
            no_code.add(path)
            # a CDK app's entry point lives in bin/ by CDK's convention (cdk init): its source is still read as an
            # app (the cdk-source loader), not as application code
            if (name == "bin" and parent not in no_code) or (
                parent in cdk_bin and name not in CODE_SKIP_DIRS
            ):
                cdk_bin.add(path)
        return False

    suffixes = tuple(
        {x for s in _SPECS if s.claim_file is not None for x in s.suffixes}
        | {x for p in PLUGINS for x in p.suffixes}
    )
    vendored: list[str] = []  # folders a manifest says are a copy of an SQS library or SDK (and all below)
    for folder, files in safe_io.walk(root, errors=errors, skip_dir=skip_dir):
        if folder != root and _is_vendored(folder, files):
            vendored.append(folder + os.sep)
        in_vendored = bool(vendored) and (folder + os.sep).startswith(tuple(vendored))
        code = folder not in no_code and not in_vendored
        if folder in only_code and not code:
            continue
        for path in files:
            name = os.path.basename(path)
            if not code and folder in cdk_bin and not in_vendored and name.endswith(CDK_ENDINGS):
                if folder not in only_code and not _excluded(rel(path), name, exclude):
                    try:
                        spec = claim(path, explicit=False)
                    except VisguardError as exc:
                        errors.append(exc)
                        continue
                    if spec is not None and spec.name == "cdk-source":
                        add(path, spec)
                continue
            if (
                (folder in only_code and not _code_file(path, b"") and not name.endswith(_PLAYBOOK_ENDINGS))
                or not name.endswith(suffixes)
                or name in SKIP_FILES
                or name.endswith(SKIP_SUFFIXES)
                or (name == "manifest.json")
                or (not code and _code_file(path, b""))
                or _excluded(rel(path), name, exclude)
            ):
                continue
            try:
                # below a Terraform root, a YAML file is read only as a playbook that sets up its hosts
                if (
                    folder in only_code
                    and name.endswith(_PLAYBOOK_ENDINGS)
                    and not _code_file(path, b"")
                    and not _playbook(path)
                ):
                    continue
                found = claims(path, explicit=False)
            except VisguardError as exc:
                errors.append(exc)
                continue
            for spec in found:  # below a Terraform root: its code, and the playbooks that set up its hosts
                if folder not in only_code or spec.name in ("code", "ansible"):
                    add(path, spec)
    return len(errors) > n_errors


# ---------------------------------------------------------------------------------------------- built-ins
# compiled by the re module on first use: a run reads YAML or JSON, often not both
_YAML_TOP_KEY = rb"(?m)^([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:"
_JSON_RESOURCES = rb'"(Resources|AWSTemplateFormatVersion)"\s*:'


def top_level_keys(head: bytes) -> set[str]:
    """Top-level mapping keys of a YAML (block style) or small JSON document, from its first bytes."""
    stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if stripped.startswith(b"{"):
        if len(head) < safe_io.HEAD_BYTES:  # the whole file: parse it (cheap at this size)
            try:
                doc = json.loads(head.decode("utf-8-sig"))
            except (ValueError, RecursionError):
                return set()
            return {k for k in doc if isinstance(k, str)} if isinstance(doc, dict) else set()
        return set()
    return {m.group(1).decode() for m in re.finditer(_YAML_TOP_KEY, head)}


def _claim_template(path: str, head: bytes) -> bool:
    keys = top_level_keys(head)
    if keys & {"Resources", "AWSTemplateFormatVersion"}:
        return True
    return head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{") and bool(re.search(_JSON_RESOURCES, head))


def _load_template(path: str, options: LoadOptions) -> Model:
    from .cfn import load_template
    from .decode import load_file

    return load_template(load_file(path), file=path, parameters=dict(options.parameters))


def _claim_config(path: str, head: bytes) -> bool:
    if _named_config(path):
        return True
    keys = top_level_keys(head)
    return bool(keys) and keys <= CONFIG_KEYS and bool(keys - {"version", "$schema"})


def _named_config(path: str) -> bool:
    name = os.path.basename(path)
    return name in CONFIG_NAMES or name.endswith((".visguard.yaml", ".visguard.yml"))


def _load_config(path: str, options: LoadOptions) -> Model:
    """A visguard.yaml. One claimed by its keys only (not its name) that is not a valid one is another tool's
    file with the same key names (.NET's launchSettings.json holds ``profiles``): a note, not bad input."""
    from .config import ConfigModel, load_config_model

    try:
        return load_config_model(path)
    except VisguardError as exc:
        if _named_config(path):
            raise
        from visguard.linter.model import Location, Note

        from .code.loader import LANGUAGES

        model = ConfigModel(source_file=path)  # (config None: no settings of its own)
        if os.path.basename(path) in LANGUAGES["frameworks"][0]:
            # a framework's own file (shoryuken.yml's `queues:`), read as such by the code loader
            return model
        model.notes.append(
            Note(
                f"not read: its top-level keys are visguard.yaml's, but it is not a visguard configuration "
                f"({exc.detail})",
                Location(path),
                path,
                fix="Nothing, when it is another tool's file; a visguard configuration is read by its name: call it "
                "visguard.yaml to have it checked.",
            )
        )
        return model


def _claim_assembly_dir(path: str) -> bool:
    from .cdk_assembly import is_assembly

    return is_assembly(path)


def _claim_manifest(path: str, head: bytes) -> bool:
    return os.path.basename(path) == "manifest.json"


def _load_assembly(path: str, options: LoadOptions) -> Model:
    from .cdk_assembly import load_assembly

    directory = path if os.path.isdir(path) else (os.path.dirname(path) or ".")
    return load_assembly(directory, parameters=dict(options.parameters))


def _claim_ebextensions_dir(path: str) -> bool:  # the folder is one input: its files apply together
    return os.path.basename(os.path.abspath(path)) == ".ebextensions"


def _claim_ebextension(path: str, head: bytes) -> bool:
    return (
        path.endswith(".config")
        and os.path.basename(os.path.dirname(os.path.abspath(path))) == ".ebextensions"
    )


def _load_ebextension(path: str, options: LoadOptions) -> Model:
    from .ebextensions import load_ebextension

    return load_ebextension(path)


register(LoaderSpec("cdk-assembly", _claim_assembly_dir, _claim_manifest, _load_assembly, (".json",)))
register(LoaderSpec("visguard-config", None, _claim_config, _load_config))
register(
    LoaderSpec("ebextensions", _claim_ebextensions_dir, _claim_ebextension, _load_ebextension, (".config",))
)
register(LoaderSpec("cloudformation", None, _claim_template, _load_template))
