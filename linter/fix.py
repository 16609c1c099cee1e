"""``visguard lint --fix`` / ``--diff`` and SARIF fixes: the door of the fix core (issue 14 §4, issue 23 §2).

The pipeline: loaders -> model -> rules -> findings (with structured ``Change``s) -> **fixes** -> reporters.

- ``plan`` turns a lint result into one FileFix per file to change, once, after linting: each file goes to the
  adapter of its syntax (CloudFormation/SAM/Serverless resources in YAML or JSON: visguard.linter.fixes.cfn;
  Terraform HCL: visguard.linter.fixes.hcl; Terraform JSON: visguard.linter.fixes.tfjson; a consumer's setting in
  application code or worker configuration, the code loader's files: visguard.linter.fixes.code), and the core
  (visguard.linter.fixes.core) writes the changes, with one clash policy and one re-parse check for all of them.
- The plan is checked by linting the files as it would write them (nothing is written meanwhile:
  ``safe_io.planned``). Where findings want one value set differently, the value written is the first (in
  ascending order) with which none of them is reported any more and nothing new is; when there is none, they
  are left alone with the values they want. A fix that would bring a new finding is refused, with the
  finding named. Findings that the fixed files still have and can fix (a consumer's new batching window raises
  the visibility timeout it needs) are fixed in the same run, up to three rounds: ``--fix`` converges, a second
  run changes nothing.
- The reporters get the plan with the lint result (``LintResult.fixes``): ``--diff`` prints it, ``--fix``
  writes it, SARIF offers each finding the settled plan's edits that are its own (``sarif_fix_map``).

Reading and writing are here only. A file with a parse error is never touched. Every syntax is written by one
function, ``write_fix`` (docs/security.md, "The write policy"): atomically through a temporary file no one can
plant, mode and owner kept, only if the file is unchanged since it was read; a symbolic link, a file with other
hard links and a read-only file are refused with the reason. The lines an edit writes take the file's dominant
line ending. A template inside a cloud assembly (cdk.out) and a Terraform plan are tools' output: never edited.
"""

from __future__ import annotations

import difflib
import os

from visguard.errors import VisguardError
from visguard.linter.fixes.core import FileFix, plan_text, render_alone
from visguard.linter.model import Finding

__all__ = [
    "FileFix",
    "cli_step",
    "fix_files",
    "fix_text",
    "plan",
    "replacements",
    "sarif_fix_map",
    "write_fix",
]

FIXABLE_SUFFIXES = (".yaml", ".yml", ".json", ".template")
ROUNDS = 3  # plans of the findings a fixed file still has (a fix changes what another finding needs)
TRIES = 6  # plans: after choosing a value where findings clash, after refusing a fix that brings a finding


def fix_text(path: str, text: str, findings: list[Finding], choices=None) -> FileFix:
    """The FileFix of one CloudFormation/SAM template (or Serverless resources file): the changes of
    ``findings`` written into ``text`` (visguard.linter.fixes.cfn); of Kubernetes manifests
    (visguard.linter.fixes.kubernetes)."""
    from visguard.linter.loaders import registry

    if registry.kubernetes_file(path, text[: registry.safe_io.HEAD_BYTES].encode("utf-8", "replace")):
        from visguard.linter.fixes.kubernetes import KubeAdapter  # Kubernetes manifests

        return plan_text(KubeAdapter(path), path, text, findings, choices)
    from visguard.linter.fixes.cfn import CfnAdapter

    as_json = path.lower().endswith(".json") or text.lstrip().startswith("{")
    return plan_text(CfnAdapter(as_json), path, text, findings, choices)


# ------------------------------------------------------------------------------------------ reading, writing
def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


def _generated(path: str) -> bool:
    """A template inside a cloud assembly (cdk.out): written by ``cdk synth``, never edited by hand."""
    folder = os.path.dirname(os.path.abspath(path))
    return os.path.isfile(os.path.join(folder, "manifest.json")) or os.path.basename(folder) == "cdk.out"


def read_source(path: str):
    """(text, stamp) of a file to fix: its exact text (line endings and a BOM kept) and how it was when read
    (``write_fix`` checks the stamp)."""
    from visguard.linter.loaders import safe_io

    data, stamp = safe_io.read_stamped(path)
    try:
        return data.decode("utf-8"), stamp
    except UnicodeDecodeError as exc:
        raise VisguardError(
            f"cannot read the file to fix it: not UTF-8 text (byte {exc.start})", file=path
        ) from None


def _read(path: str) -> str:
    return read_source(path)[0]


def write_fix(ff: FileFix) -> bool:
    """The one writer of ``--fix``, for every syntax: ``ff.after`` replaces ``ff.path`` (safe_io.replace_file:
    atomic, through a temporary file no one can plant, mode and owner kept) unless the write policy refuses
    it (a symbolic link, other hard links, a read-only file, a file changed since it was read: ``ff.refused``
    says why, and the file is left as it is). True when written."""
    from visguard.linter.loaders import safe_io

    try:
        safe_io.replace_file(ff.path, ff.after.encode("utf-8"), ff.stamp)
    except safe_io.NotWritten as why:
        ff.refused = str(why)
        return False
    except VisguardError as exc:
        ff.refused = exc.detail
        return False
    return True


def keep_line_endings(before: str, after: str) -> str:
    """``after`` with the lines an edit wrote ending as most lines of ``before`` do ("\r\n" or "\n"); the
    lines no edit touched keep theirs."""
    crlf = before.count("\r\n")
    if crlf <= before.count("\n") - crlf:
        return after
    a, b = before.splitlines(keepends=True), after.splitlines(keepends=True)
    for _i1, _i2, j1, j2 in _changed_runs(a, b):
        for j in range(j1, j2):
            if b[j].endswith("\n") and not b[j].endswith("\r\n"):
                b[j] = b[j][:-1] + "\r\n"
    return "".join(b)


# ------------------------------------------------------------------------------------------ one round
class _Texts:
    """The files a plan reads: each read once from disk (its text and stamp); ``planned`` texts stand in for
    them in the rounds after the first."""

    def __init__(self):
        self.read: dict[str, tuple[str, object]] = {}
        self.planned: dict[str, str] = {}

    def text(self, path: str) -> str:
        key = os.path.abspath(path)
        if key in self.planned:
            return self.planned[key]
        if key not in self.read:
            self.read[key] = read_source(path)
        return self.read[key][0]

    def stamp(self, path: str):
        return self.read[os.path.abspath(path)][1]


def _round(files: list[str], findings: list[Finding], texts: _Texts, choices: dict) -> list[FileFix]:
    """One FileFix per linted file (or file of a linted Terraform root module) that findings with changes are
    about, planned on ``texts``; ``choices``: file -> {key: value} where findings want different values."""
    from visguard.linter.fixes import hcl as fix_hcl

    results = []
    in_cdk, findings = _cdk_findings(findings)
    for path, mine in in_cdk.items():  # a CDK app's source: CloudFormation text is never written into it
        results.append(FileFix(path, "", "", skipped=[(f, CDK_SOURCE_REFUSED) for f in mine]))
    in_code, findings = _code_findings(findings)
    for path, mine in in_code.items():  # application code: the consumer's own setting, where it is written
        results.append(_planned(_code_fix(path, mine, texts, choices.get(_key(path))), texts))
    for path in files:
        root = fix_hcl.root_of(path)
        if root is not None:  # Terraform: the changes point into the module's files, not at the input
            mine = [f for f in findings if f.changes and _at(f) and _under(_at(f), root)]
            if mine:
                results += _root(root, mine, texts, choices)
            continue
        if _ebextensions(path):  # a worker's sqsd options, in the .config file that writes each
            mine = [f for f in findings if f.changes and _at(f) and _ebextensions(os.path.dirname(_at(f)))]
            for file in sorted({_at(f) for f in mine}):
                results.append(
                    _planned(_eb_fix(file, [f for f in mine if _at(f) == file], texts, choices), texts)
                )
            continue
        if _shell(
            path
        ):  # a queue an AWS CLI command creates, a worker a script starts: no adapter edits them
            mine = [f for f in findings if f.changes and _at(f) and _same_file(_at(f), path)]
            if mine:
                why = (
                    "a shell script or Makefile is not edited by --fix: change the aws sqs create-queue --attributes "
                    "(or the worker's options) by hand"
                )
                results.append(FileFix(path, "", "", skipped=[(f, why) for f in mine]))
            continue
        if not path.lower().endswith(FIXABLE_SUFFIXES) or os.path.isdir(path):
            continue
        mine = [f for f in findings if f.changes and _at(f) and _same_file(_at(f), path)]
        if not mine or _generated(path):
            continue  # a cdk.out template is CDK's output: the fix belongs in the CDK code (its message says so)
        if fix_hcl.is_plan(path):  # Terraform's output, like cdk.out: the fix belongs in the .tf files
            why = "a Terraform plan is Terraform's output: run --fix on the root module folder"
            results.append(FileFix(path, "", "", skipped=[(f, why) for f in mine]))
            continue
        results.append(_planned(fix_text(path, texts.text(path), mine, choices.get(_key(path))), texts))
    return results


def _at(f: Finding) -> str | None:
    """The file a finding's fix is planned with: where it is reported, or, for a finding reported in application
    code whose changes are all in one other file (the queue's, raised for a consumer), that file."""
    from visguard.linter.fixes.code import language

    if f.location.file and language(f.location.file):
        files = {c.location.file for c in f.changes if c.location and c.location.file}
        if len(files) == 1:
            return files.pop()
    return f.location.file


CDK_SOURCE_REFUSED = (
    "a CDK app's source (its constructs in TypeScript/JavaScript) is not edited by --fix: set the property on the "
    "construct by hand, as the finding's fix says"
)


def _cdk_findings(findings: list[Finding]) -> tuple[dict[str, list[Finding]], list[Finding]]:
    """({CDK source file: the findings about or changing what it declares}, the other findings): the queues,
    functions and mappings the cdk-source loader synthesized from a CDK app's code (visguard.linter.loaders.code.
    cdk_source) have no adapter; their findings are refused, never written as CloudFormation into the file."""
    from visguard.linter.loaders.code.cdk_source import is_cdk_source

    known: dict[str, bool] = {}

    def cdk(file) -> bool:
        if not file:
            return False
        if file not in known:
            known[file] = is_cdk_source(file)
        return known[file]

    by_file: dict[str, list[Finding]] = {}
    rest = []
    for f in findings:
        files = [c.location.file for c in f.changes if c.location and c.location.file]
        file = next((x for x in [f.location.file, *files] if cdk(x)), None)
        if file is None:
            rest.append(f)
            continue
        by_file.setdefault(file, []).append(f)
    return by_file, rest


def _code_findings(findings: list[Finding]) -> tuple[dict[str, list[Finding]], list[Finding]]:
    """({code file: the findings whose consumer changes are written there}, the other findings): a consumer's
    setting read from application code or framework configuration (visguard.linter.fixes.code)."""
    from visguard.linter.fixes.code import language

    by_file: dict[str, list[Finding]] = {}
    rest = []
    for f in findings:
        file = next(
            (
                c.location.file
                for c in f.changes
                if c.scope == "consumer" and c.location and c.location.file and language(c.location.file)
            ),
            None,
        )
        if file is None:
            rest.append(f)
            continue
        key = next((k for k in by_file if _same_file(k, file)), file)
        by_file.setdefault(key, []).append(f)
    return by_file, rest


def _shell(path: str) -> bool:
    """A shell script or Makefile the shell loader reads (visguard.linter.loaders.shell)."""
    from visguard.linter.loaders.registry import SHELL_ENDINGS

    return not os.path.isdir(path) and os.path.basename(path).endswith(SHELL_ENDINGS)


def _ebextensions(path: str) -> bool:
    """An Elastic Beanstalk configuration folder (the loader's one input), or a .config file in one."""
    if path.endswith(".config"):
        path = os.path.dirname(path)
    return os.path.basename(os.path.normpath(path)) == ".ebextensions"


def _eb_fix(path: str, findings: list[Finding], texts: _Texts, choices) -> FileFix:
    from visguard.linter.fixes.ebextensions import EbextensionsAdapter

    try:
        text = texts.text(path)
    except VisguardError as exc:
        return FileFix(path, "", "", skipped=[(f, exc.detail) for f in findings])
    return plan_text(EbextensionsAdapter(path), path, text, findings, choices.get(_key(path)))


def _code_fix(path: str, findings: list[Finding], texts: _Texts, choices) -> FileFix:
    from visguard.linter.fixes.code import CodeAdapter

    try:
        text = texts.text(path)
    except VisguardError as exc:
        return FileFix(path, "", "", skipped=[(f, exc.detail) for f in findings])
    return plan_text(CodeAdapter(path), path, text, findings, choices)


def _root(root: str, findings: list[Finding], texts: _Texts, choices: dict) -> list[FileFix]:
    """The FileFixes of a Terraform root module (and one, unchanged, per file outside it that a change points
    at, to say why it was left alone)."""
    from visguard.linter.fixes import hcl as fix_hcl

    module = _module_texts(root, texts)
    by_file, skipped = fix_hcl.select(root, findings, module)
    taken = set().union(*(fix_hcl.queue_names(t) for t in module))
    results = []
    for file, mine in sorted(by_file.items()):
        ff = fix_hcl.fix_text(file, texts.text(file), mine, taken, choices.get(_key(file)))
        ff.skipped += skipped.pop(file, [])
        results.append(_planned(ff, texts))
    for file, why in sorted(skipped.items()):
        results.append(FileFix(file, "", "", skipped=why))
    return results


def _module_texts(root: str, texts: _Texts) -> list[str]:
    """The text of each ``.tf`` file of the root module (one that cannot be read counts as empty)."""
    from visguard.linter.loaders.terraform.load import tf_files

    out = []
    for p in tf_files(root):
        if p.endswith(".tf"):
            try:
                out.append(texts.text(p))
            except VisguardError:
                out.append("")
    return out


def _planned(ff: FileFix, texts: _Texts) -> FileFix:
    """``ff`` with the lines it writes ending as the file's do, and the stamp of the file as read."""
    ff.after = keep_line_endings(ff.before, ff.after)
    key = os.path.abspath(ff.path)
    if key in texts.read:
        ff.stamp = texts.read[key][1]
    return ff


def _key(path: str) -> str:
    return os.path.abspath(path)


def _under(file: str, root: str) -> bool:
    """A finding of the Terraform root module ``root`` (its location is in the root's folder or below)."""
    # paths as the loader named them (a symlinked file is fixes.hcl's to refuse, with its reason)
    a, r = os.path.abspath(file), os.path.abspath(root)
    return a == r or a.startswith(r.rstrip(os.sep) + os.sep)


# ------------------------------------------------------------------------------------------ the plan
def _id(f: Finding) -> tuple:
    return f.rule, f.queue, f.consumer or "", os.path.abspath(f.location.file or "")


def _relint(relint, fixes: list[FileFix]):
    """The lint result of the files as ``fixes`` would write them (nothing is written)."""
    from visguard.linter.loaders import safe_io

    with safe_io.planned({ff.path: ff.after.encode("utf-8") for ff in fixes if ff.changed}):
        return relint()


def plan(result, relint=None) -> list[FileFix]:
    """The fixes of a lint result, once: one FileFix per file its findings' changes are about. ``relint`` lints
    the same inputs again (the CLI's run); with it, the plan is checked by linting the files as it would write
    them: the clash policy, follow-up rounds and refusals in the module docstring."""
    findings = [f for f in result.findings if f.changes]
    if not findings:
        return []
    texts = _Texts()
    base = {_id(f) for f in result.findings}
    refused: dict[int, tuple[str, str]] = {}  # id(finding) -> (the file, why its fix is not written there)
    choices: dict = {}  # file -> {key: the value written there}
    for _ in range(TRIES):
        texts.planned = {}
        todo = [f for f in findings if id(f) not in refused]
        fixes = _round(result.files, todo, texts, choices)
        if relint is None or not any(ff.changed or ff.clashes for ff in fixes):
            break
        if _choose(fixes, result, todo, texts, choices, relint, base):
            continue
        skip = {_id(f) for ff in fixes for f, _ in ff.skipped} | {
            _id(f) for f in findings if id(f) in refused
        }
        later = _settle(fixes, texts, relint, skip)
        blame = _blame(fixes, later, result, base) if later is not None else _unsettled(fixes)
        if not blame:
            break
        refused.update(blame)
    else:  # every plan brought a new finding (never seen on a real template): nothing is written
        why = "no fix of this file leaves it without a new finding: fix it by hand"
        for ff in fixes:
            ff.skipped += [(f, why) for f in ff.applied]
            ff.after, ff.applied, ff.edits = ff.before, [], []
    by_id = {id(f): f for f in findings}
    for i, (path, why) in refused.items():
        ff = next((ff for ff in fixes if _same_file(ff.path, path)), None)
        if ff is None:
            ff = FileFix(path, "", "")
            fixes.append(ff)
        ff.skipped.append((by_id[i], why))
    return fixes


def _choose(fixes, result, todo, texts, choices, relint, base) -> bool:
    """The clash policy: for each key findings want set to different values, the first value (ascending) with
    which none of them is reported any more and nothing new is; None when there is none. True when a value
    was chosen (the plan is made again with it)."""
    chose = False
    for ff in fixes:
        for key, (values, wanting) in ff.clashes.items():
            mine = choices.setdefault(_key(ff.path), {})
            if key in mine:
                continue
            mine[key] = None
            for value in sorted(values, key=_order):
                mine[key] = value
                trial = _round(result.files, todo, texts, choices)
                after = {_id(f) for f in _relint(relint, trial).findings}
                if not (after - base) and not after & {_id(f) for f in wanting}:
                    chose = True
                    break
                mine[key] = None
    return chose


def _order(value):
    return (
        (0, value, "")
        if isinstance(value, (int, float)) and not isinstance(value, bool)
        else (1, 0, str(value))
    )


def _settle(fixes, texts, relint, skip: set):
    """Fix what the planned files still have (but the findings in ``skip``: left alone for a reason), up to
    ROUNDS more plans; a round that brings back a finding the plan fixed is undone (the finding it fixed is
    then blamed on the plan). The final lint result of the planned files, or None when they do not settle."""
    by_key = {_key(ff.path): ff for ff in fixes}
    later = _relint(relint, fixes)
    gone = {_id(f) for ff in fixes for f in ff.applied} - {_id(f) for f in later.findings}
    for _ in range(ROUNDS):
        texts.planned = {_key(ff.path): ff.after for ff in fixes if ff.changed}
        todo = [f for f in later.findings if _id(f) not in skip]
        more = [m for m in _round(later.files, todo, texts, {}) if m.changed]
        if not more:
            return later
        undo = {k: ff.after for k, ff in by_key.items()}
        for m in more:
            ff = by_key.get(_key(m.path))
            if ff is None:  # a file the first plan did not change
                m.applied, m.edits, m.skipped = [], [], []
                fixes.append(m)
                by_key[_key(m.path)] = m
            else:
                ff.after = keep_line_endings(ff.before, m.after)
        again = _relint(relint, fixes)
        if gone & {_id(f) for f in again.findings}:  # the findings pull one value different ways
            fixes[:] = [ff for ff in fixes if _key(ff.path) in undo]
            for ff in fixes:
                ff.after = undo[_key(ff.path)]
            return later
        later = again
    return None


def _blame(fixes, later, result, base) -> dict[int, tuple[str, str]]:
    """The planned findings whose fixes bring a new finding or error: (the file, why they are not written)."""
    applied = [(ff, f) for ff in fixes for f in ff.applied]
    out: dict[int, str] = {}
    old_errors = {(e.file, e.detail) for e in result.errors}
    for e in later.errors:
        if (e.file, e.detail) in old_errors:
            continue
        for ff, f in applied:
            if e.file and _same_file(e.file, ff.path):
                out[id(f)] = ff.path, f"the fixed file would not load ({e.detail}): left untouched"
    for n in later.findings:
        if _id(n) in base:
            continue
        why = f"its fix would bring {n.rule} on {n.queue}: fix it by hand"
        culprits = [(ff, f) for ff, f in applied if _touches(f, n)] or [
            (ff, f) for ff, f in applied if n.location.file and _same_file(n.location.file, ff.path)
        ]
        for ff, f in culprits or applied:
            out.setdefault(id(f), (ff.path, why))
    return out


def _touches(f: Finding, n: Finding) -> bool:
    """``f``'s changes are about the queue or consumer of ``n`` (or add it: a dead-letter queue)."""
    ids = {f.queue, f.consumer} | {c.target for c in f.changes}
    ids |= {c.value.get("id") for c in f.changes if c.field == "redrive" and isinstance(c.value, dict)}
    return n.queue in ids or (n.consumer is not None and n.consumer in ids)


def _unsettled(fixes) -> dict[int, tuple[str, str]]:
    why = "the fixed file keeps needing other values (its findings pull it different ways): fix it by hand"
    return {id(f): (ff.path, why) for ff in fixes if ff.changed for f in ff.applied}


# ------------------------------------------------------------------------------------------ doors
def fix_files(files: list[str], findings: list[Finding], *, write: bool) -> list[FileFix]:
    """One FileFix per linted file with findings with changes, planned once without the lint check (``plan``
    makes that). Writes the changed ones when ``write`` (``write_fix``; a file it leaves alone has
    ``refused`` set)."""
    fixes = _round(files, findings, _Texts(), {})
    if write:
        for ff in fixes:
            if ff.changed:
                write_fix(ff)
    return fixes


def _changed_runs(a: list[str], b: list[str]):
    """(i1, i2, j1, j2) of each run of lines where ``a`` and ``b`` differ (``a[i1:i2]`` became ``b[j1:j2]``)."""
    # the lines both share at the start and the end are left out of the diff: an edit is a few lines, and
    # SequenceMatcher is quadratic in the lines that repeat (every "}," of a JSON template); between them, the
    # lines found once in each text and in the same order anchor the diff (patience diff), so a plan of 800
    # scattered edits is 800 small diffs, not one SequenceMatcher over the whole file
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    i, j = head, head
    for ai, bj in [*_anchors(a, b, head, len(a) - tail, head, len(b) - tail), (len(a) - tail, len(b) - tail)]:
        if ai > i or bj > j:
            yield from _gap(a, b, i, ai, j, bj)
        i, j = ai + 1, bj + 1


def _anchors(a: list[str], b: list[str], alo: int, ahi: int, blo: int, bhi: int) -> list[tuple[int, int]]:
    """(i, j) of the lines found once in ``a[alo:ahi]`` and once in ``b[blo:bhi]``, the longest run of them in the
    same order in both (patience sorting: O(n log n))."""
    import bisect

    once_a: dict[str, int | None] = {}
    for i in range(alo, ahi):
        once_a[a[i]] = None if a[i] in once_a else i
    once_b: dict[str, int | None] = {}
    for j in range(blo, bhi):
        once_b[b[j]] = None if b[j] in once_b else j
    pairs = [
        (i, once_b[line]) for line, i in once_a.items() if i is not None and once_b.get(line) is not None
    ]
    pairs.sort()
    tops: list[int] = []  # the smallest j ending an increasing run of each length
    ends: list[int] = []  # index in pairs of that run's last pair
    back: list[int] = []  # index in pairs of the pair before each one in its run (-1: none)
    for k, (_, j) in enumerate(pairs):
        n = bisect.bisect_left(tops, j)
        back.append(ends[n - 1] if n else -1)
        if n == len(tops):
            tops.append(j)
            ends.append(k)
        else:
            tops[n], ends[n] = j, k
    out, k = [], ends[-1] if ends else -1
    while k >= 0:
        out.append(pairs[k])
        k = back[k]
    return out[::-1]


def _gap(a: list[str], b: list[str], alo: int, ahi: int, blo: int, bhi: int):
    """The changed runs between two anchors (a few lines: SequenceMatcher is cheap there)."""
    if alo == ahi or blo == bhi:
        yield alo, ahi, blo, bhi
        return
    matcher = difflib.SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            yield i1 + alo, i2 + alo, j1 + blo, j2 + blo


def replacements(before: str, after: str) -> list[dict]:
    """SARIF ``replacements`` (whole lines, 1-based) that turn ``before`` into ``after``."""
    a, b = before.splitlines(keepends=True), after.splitlines(keepends=True)
    out = []
    for i1, i2, j1, j2 in _changed_runs(a, b):
        region = {"startLine": i1 + 1, "startColumn": 1}
        if i2 > i1:
            region.update(
                endLine=i2 + 1, endColumn=1
            )  # up to the start of the line after the last deleted one
        else:
            region.update(endLine=i1 + 1, endColumn=1)  # an insertion: an empty region
        out.append({"deletedRegion": region, "insertedContent": {"text": "".join(b[j1:j2])}})
    return out


def sarif_fix_map(fixes: list[FileFix], uri_of) -> dict[int, list[dict]]:
    """The SARIF ``fixes`` of every finding the plan ``fixes`` writes (id(finding) -> its one fix), made once for
    all findings. A SARIF fix is the settled plan's own edits, the lines ``--fix``/``--diff`` write (the values the
    clash policy chose and the follow-up rounds settled, not the finding's first wish): each changed run of
    lines of a file goes to the findings whose own edits it covers, and a run no finding's edit covers (a
    follow-up round's) to every finding of that file. A finding the plan refuses or leaves alone has none; a
    finding alone in its file, or whose edits settle with all of the file's, gets exactly what ``--fix`` writes
    there; the other findings of one file get their share, which applied alone brings no new finding."""
    from visguard.linter.changes import describe, words

    out: dict[int, list[dict]] = {}
    for ff in fixes:
        if not ff.changed or not ff.applied:
            continue
        settled = replacements(ff.before, ff.after)
        spans = [_span(r) for r in settled]
        own: dict[int, set[int]] = {}  # id(finding) -> the settled runs its own edits fall in
        wished: dict[int, list[dict] | None] = {}  # id(finding) -> the replacements of its edits alone
        for f in ff.applied:
            alone = render_alone(ff, f)
            if alone is None:  # not written alone: the file's whole plan is its fix
                own[id(f)], wished[id(f)] = set(range(len(settled))), None
                continue
            wished[id(f)] = replacements(ff.before, keep_line_endings(ff.before, alone))
            mine = [_span(r) for r in wished[id(f)]]
            own[id(f)] = {i for i, s in enumerate(spans) if any(_overlap(s, m) for m in mine)}
        orphans = set(range(len(settled))) - set().union(*own.values())
        for f in ff.applied:
            runs = sorted(own[id(f)] | orphans)
            if not runs:
                continue
            given = [settled[i] for i in runs]
            if _as_wished(wished[id(f)], given):  # its own edits, with the values it asked for
                text = "; ".join(describe(c, ff.adapter.source) for c in f.changes)
                if given != wished[id(f)]:
                    text += " (with the edits the fix plan writes with it)"
            else:
                names = ", ".join(f"{words(c, ff.adapter.source)[0]} of {c.target}" for c in f.changes)
                text = f"set {names} to the value the fix plan settles with this file's other fixes (what --fix writes)"
            change = {
                "artifactLocation": {"uri": uri_of(ff.path)},
                "replacements": [settled[i] for i in runs],
            }
            fix = out.setdefault(id(f), [{"description": {"text": ""}, "artifactChanges": []}])[0]
            fix["artifactChanges"].append(change)
            said = fix["description"]["text"]
            fix["description"]["text"] = (f"{said[:-1]}; " if said else "") + text[0].upper() + text[1:] + "."
    return out


def _span(r: dict) -> tuple[int, int]:
    """The lines of ``ff.before`` a replacement covers, [start, end) (an insertion: empty, before ``start``)."""
    region = r["deletedRegion"]
    return region["startLine"], region["endLine"]


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Two runs of lines share a line, or an insertion is at the edge of (or in) the other run."""
    if a[0] == a[1] or b[0] == b[1]:
        return a[0] <= b[1] and b[0] <= a[1]
    return a[0] < b[1] and b[0] < a[1]


def _as_wished(wished: list[dict] | None, given: list[dict]) -> bool:
    """Every line the finding's edits write alone is among the lines ``given`` writes (its values, not values
    the plan settled differently)."""
    if wished is None:
        return False
    written = {line for r in given for line in r["insertedContent"]["text"].splitlines()}
    return all(line in written for r in wished for line in r["insertedContent"]["text"].splitlines())


def cli_step(diff: bool, result, relint, out=None, err=None):
    """``visguard lint --fix`` / ``--diff`` between linting and reporting: the plan (``result.fixes``, made here
    if the caller has not) printed or written. Returns (anything changed, the lint result to report: re-linted
    after writing fixes). A file the write policy left alone is an error of that result (one line naming the
    file and why; exit 1): not a success, and the other files are still fixed."""
    import sys

    from visguard.linter.loaders import safe_io
    from visguard.neutralize import printable

    out, err = out or sys.stdout, err or sys.stderr
    fixes = result.fixes if getattr(result, "fixes", None) is not None else plan(result, relint)
    changed = False
    refused = []
    for ff in fixes:
        for f, why in ff.skipped:
            err.write(
                printable(f"visguard lint: {ff.path}: {f.rule} on {f.queue} not fixed automatically: {why}")
                + "\n"
            )
        if not diff and ff.changed:
            write_fix(ff)
        if ff.refused:
            refused.append(VisguardError(f"not written by --fix: {ff.refused}", file=ff.path))
            continue
        if not ff.changed:
            continue
        for note in ff.notes:
            err.write(printable(f"visguard lint: {ff.path}: note: {note}") + "\n")
        changed = True
        if diff:
            out.write(ff.diff())
            why = _policy(ff.path, safe_io)
            if why:
                err.write(
                    printable(f"visguard lint: {ff.path}: note: --fix would not write it: {why}") + "\n"
                )
        else:
            err.write(printable(f"visguard lint: {ff.path}: fixed {len(ff.applied)} finding(s)") + "\n")
    if changed and not diff:
        result = relint()
    result.errors.extend(refused)
    return changed, result


def _policy(path: str, safe_io) -> str | None:
    try:
        return safe_io.unwritable(os.lstat(path))
    except OSError:
        return None
