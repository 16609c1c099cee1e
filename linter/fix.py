"""``visguard lint --fix`` / ``--diff``: write findings' structured changes into CloudFormation/SAM templates.

Issue 14 §4. The changes (``Finding.changes``, built by the rules; see visguard.linter.changes) become edits of
the template *text*: ruamel.yaml's round-trip parser says where every key and value is (line and column), and
only the characters of the value being changed, or the lines of a key being added, are touched. Comments, key
order, quoting, blank lines and short-form tags (``!GetAtt``, ``!Ref``) stay as they were; JSON stays JSON.

What is mechanical: VisibilityTimeout, MessageRetentionPeriod, DelaySeconds, RedrivePolicy.maxReceiveCount,
FunctionResponseTypes, BatchSize, MaximumBatchingWindowInSeconds, a function's Timeout, and adding a DLQ with a
RedrivePolicy. A value that comes from somewhere else is left alone with the reason naming it, never flattened
into a literal: a parameter (``!Ref Param``), an intrinsic, a Serverless variable (``${self:custom.x}``, which may
differ per stage), a YAML anchor or alias; and so is anything the template does not hold (a generated cdk.out, a
queue SAM creates).

A file with a parse error is never touched; a rewrite that does not parse back is never written. Every syntax is
written by one function, ``write_fix`` (docs/security.md, "The write policy"): atomically through a temporary
file no one can plant, mode and owner kept, only if the file is unchanged since it was read; a symbolic link, a
file with other hard links and a read-only file are refused with the reason. The lines an edit writes take the
file's dominant line ending. Terraform root modules (a folder or a ``.tf`` file) go to
visguard.linter.fix_hcl, which edits literal values in the module's own ``.tf`` and ``.tfvars`` files.
"""

from __future__ import annotations

import difflib
import io
import json
import os

from visguard.errors import VisguardError
from visguard.linter.changes import CONSUMER_WORDS, QUEUE_WORDS
from visguard.linter.model import Change, Finding
from visguard.records import Record, Value

QUEUE_TYPE = "AWS::SQS::Queue"
ESM_TYPE = "AWS::Lambda::EventSourceMapping"
FIXABLE_SUFFIXES = (".yaml", ".yml", ".json", ".template")


class GetAtt(Value):
    """``!GetAtt Resource.Attribute`` (``{"Fn::GetAtt": [...]}`` in JSON)."""

    __slots__ = ("resource", "attribute")

    def __init__(self, resource: str, attribute: str):
        self.resource = resource
        self.attribute = attribute


class FileFix(Record):
    # skipped: (finding, why it was not written); notes: what a reader of the change should know; stamp: the
    # file as it was read (safe_io.Stamp: write_fix replaces it only if it is still that); refused: why the
    # write policy left the file as it is (write_fix)
    __slots__ = ("path", "before", "after", "applied", "skipped", "notes", "stamp", "refused")

    def __init__(
        self,
        path: str,
        before: str,
        after: str,
        applied: list[Finding] | None = None,
        skipped: list[tuple[Finding, str]] | None = None,
        notes: list[str] | None = None,
        stamp=None,
    ):
        self.path = path
        self.before = before
        self.after = after
        self.applied = [] if applied is None else applied
        self.skipped = [] if skipped is None else skipped
        self.notes = [] if notes is None else notes
        self.stamp = stamp
        self.refused: str | None = None

    @property
    def changed(self) -> bool:
        return self.after != self.before

    def diff(self) -> str:
        return "".join(
            difflib.unified_diff(
                self.before.splitlines(keepends=True),
                self.after.splitlines(keepends=True),
                fromfile=f"a/{self.path.lstrip('/')}",
                tofile=f"b/{self.path.lstrip('/')}",
            )
        )


# ------------------------------------------------------------------------------------------ parsing
def _yaml():
    from ruamel.yaml import YAML

    y = YAML(typ="rt")
    y.preserve_quotes = True
    return y


def parse(text: str):
    """The round-trip document (ruamel CommentedMap with line/column data). Read only: the last few are kept, so
    the edits of one file's findings (``fix_text``, a SARIF fix per finding) parse each text once, not once per
    step (ruamel's parser is pure Python: four parses per finding made a 100-finding template take 25 s)."""
    key = hash(text)
    hit = _PARSED.get(key)
    if hit is not None and hit[0] == text:
        return hit[1]
    doc = _yaml().load(io.StringIO(text))
    if len(_PARSED) >= 4:
        del _PARSED[next(iter(_PARSED))]
    _PARSED[key] = (text, doc)
    return doc


_PARSED: dict[int, tuple[str, object]] = {}  # hash -> (text, its document), oldest first


def _is_json(path: str, text: str) -> bool:
    return path.lower().endswith(".json") or text.lstrip().startswith("{")


# ------------------------------------------------------------------------------------------ changes -> edits
def edits_for(change: Change, doc) -> list[tuple[list, object, str | None]] | str:
    """(document path, new value, insert-after hint) for a change, or the reason it is not written here."""
    res = doc.get("Resources") if hasattr(doc, "get") else None
    if not hasattr(res, "get"):
        return "no Resources in this document"
    if change.scope == "queue":
        r = res.get(change.target)
        if not hasattr(r, "get") or r.get("Type") != QUEUE_TYPE:
            return f"{change.target} is not an AWS::SQS::Queue resource of this template"
        base = ["Resources", change.target, "Properties"]
        if change.field == "redrive":
            v = change.value
            props = {"MessageRetentionPeriod": v["retention"]}
            if (r.get("Properties") or {}).get("FifoQueue") in (True, "true", "True"):
                props["FifoQueue"] = True
            policy = {
                "deadLetterTargetArn": GetAtt(v["id"], "Arn"),
                "maxReceiveCount": v["max_receive_count"],
            }
            return [
                (["Resources", v["id"]], {"Type": QUEUE_TYPE, "Properties": props}, change.target),
                ([*base, "RedrivePolicy"], policy, None),
            ]
        if change.field == "redrive.max_receive_count":
            rp = (r.get("Properties") or {}).get("RedrivePolicy")
            if not hasattr(rp, "get"):
                return "the RedrivePolicy is not a mapping written in the template"
            return [([*base, "RedrivePolicy", "maxReceiveCount"], int(change.value), None)]
        if change.field in QUEUE_WORDS:
            return [([*base, QUEUE_WORDS[change.field][0]], int(change.value), None)]
        return f"{change.field} is not a property visguard writes"
    # a consumer: where its setting is written, else on its event source mapping / SAM event
    if change.field not in CONSUMER_WORDS:
        return f"{change.field} is not a property visguard writes"
    prop = CONSUMER_WORDS[change.field][0]
    value = ["ReportBatchItemFailures"] if change.field == "report_batch_item_failures" else int(change.value)
    if change.field == "report_batch_item_failures" and not change.value:
        value = []
    loc = change.location.path.split("/") if change.location and change.location.path else []
    if loc and loc[-1] == prop:
        return [(loc, value, None)]
    if change.field == "function_timeout":
        return "the function timeout is not written in this template"
    if (
        len(loc) == 2
        and loc[0] == "Resources"
        and getattr(res.get(loc[1]), "get", lambda k: None)("Type") == ESM_TYPE
    ):
        return [([*loc, "Properties", prop], value, None)]
    if len(loc) >= 5 and loc[2:4] == ["Properties", "Events"]:  # a SAM SQS event (not SNS's SqsSubscription)
        event = res.get(loc[1], {}).get("Properties", {}).get("Events", {}).get(loc[4], {})
        if hasattr(event, "get") and event.get("Type") == "SQS":
            return [([*loc[:5], "Properties", prop], value, None)]
        return "SAM writes this mapping itself (SqsSubscription): the template cannot set it"
    return "the consumer is not an event source mapping or SAM event of this template"


# ------------------------------------------------------------------------------------------ text edits
def _get(node, key):
    try:
        return node[key]
    except (KeyError, IndexError, TypeError):
        return _MISSING


_MISSING = object()


def _scalar_end(line: str, col: int, flow: bool) -> int:
    ch = line[col : col + 1]
    if ch in ("'", '"'):
        i = col + 1
        while i < len(line):
            if ch == '"' and line[i] == "\\":
                i += 2
                continue
            if line[i] == ch:
                if ch == "'" and line[i + 1 : i + 2] == "'":
                    i += 2
                    continue
                return i + 1
            i += 1
        return len(line)
    end = len(line.rstrip("\r\n"))
    hash_at = line.find(" #", col)
    if hash_at != -1:
        end = min(end, hash_at)
    if flow:
        for stop in ",}]":
            j = line.find(stop, col)
            if j != -1:
                end = min(end, j)
    return len(line[:end].rstrip())


def _render_flow(value) -> str:
    """``value`` as one line of YAML flow style (inside ``{...}`` a block cannot start)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_render_flow(v)}" for k, v in value.items()) + "}"
    return _render(value, as_json=False, indent=0, step=2)


def _render(value, *, as_json: bool, indent: int, step: int) -> str:
    """``value`` as text: one line for scalars, lists and JSON; an indented block (after a newline) for YAML
    mappings."""
    if isinstance(value, GetAtt):
        if as_json:
            return json.dumps({"Fn::GetAtt": [value.resource, value.attribute]})
        return f"!GetAtt {value.resource}.{value.attribute}"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value) if as_json or not _plain(value) else value
    if isinstance(value, list):
        return "[" + ", ".join(_render(v, as_json=as_json, indent=indent, step=step) for v in value) + "]"
    if as_json:
        return (
            "{"
            + ", ".join(
                f"{json.dumps(k)}: {_render(v, as_json=True, indent=indent, step=step)}"
                for k, v in value.items()
            )
            + "}"
        )
    lines = []
    for k, v in value.items():
        if isinstance(v, dict):
            lines.append(
                " " * (indent + step) + f"{k}:" + _render(v, as_json=False, indent=indent + step, step=step)
            )
        else:
            lines.append(
                " " * (indent + step) + f"{k}: " + _render(v, as_json=False, indent=indent, step=step)
            )
    return "\n" + "\n".join(lines)


def _plain(s: str) -> bool:
    """A string YAML reads back as the same string without quotes."""
    import re

    reserved = ("true", "false", "yes", "no", "on", "off", "null", "y", "n")
    return bool(re.fullmatch(r"[A-Za-z][A-Za-z0-9_:./-]*", s)) and s.lower() not in reserved


def _indent_step(doc) -> int:
    res = doc.get("Resources")
    for r in res.values() if hasattr(res, "values") else []:
        if hasattr(r, "lc") and r and hasattr(res, "lc"):
            first = next(iter(r))
            return max(1, r.lc.key(first)[1] - res.lc.key(next(iter(res)))[1])
    return 2


def apply_edit(text: str, path: list, value, after: str | None, *, as_json: bool) -> str:
    """``text`` with the value at ``path`` set to ``value`` (added, with any missing parents, if absent)."""
    doc = parse(text)
    lines = text.splitlines(keepends=True)
    step = _indent_step(doc)
    node, i = doc, 0
    while i < len(path) - 1 and _get(node, path[i]) is not _MISSING and hasattr(_get(node, path[i]), "lc"):
        node, i = node[path[i]], i + 1
    key = path[i]
    nested = value
    for k in reversed(path[i + 1 :]):
        nested = {k: nested}
    current = _get(node, key)
    flow = as_json or node.fa.flow_style()
    if current is not _MISSING and i == len(path) - 1:
        return _replace(lines, node, key, current, value, flow=flow, as_json=as_json)
    return _insert(lines, node, key, nested, after, flow=flow, as_json=as_json, step=step)


def _replace(lines, node, key, current, value, *, flow: bool, as_json: bool) -> str:
    vl, vc = node.lc.value(key)
    line = lines[vl]
    if isinstance(value, list) and hasattr(current, "lc"):  # FunctionResponseTypes: [] or a block list
        if current.fa.flow_style():
            end = line.index("]", vc) + 1
            new = _render(value, as_json=as_json, indent=0, step=2)
            lines[vl] = line[:vc] + new + line[end:]
        else:
            il, ic = current.lc.item(0)
            lines.insert(il, " " * ic + "- " + _render(value[0], as_json=as_json, indent=0, step=2) + "\n")
        return "".join(lines)
    why = _reference(current)
    if why:
        raise _Skip(why)
    end = _scalar_end(line, vc, flow)
    old = line[vc:end]
    new = _render(value, as_json=as_json, indent=0, step=2)
    if old[:1] in ("'", '"') and not as_json:
        new = old[0] + str(value) + old[0]  # keep the template's quoting ("600" stays a quoted string)
    elif old[:1] == '"' and as_json and isinstance(value, int):
        new = f'"{value}"'
    lines[vl] = line[:vc] + new + line[end:]
    return "".join(lines)


def _reference(current) -> str | None:
    """Why a value is not rewritten in place (None: it is a literal): it comes from somewhere else, and writing
    a literal over the reference would cut the link (a parameter's value at deploy time, a Serverless variable
    defined per stage, a YAML anchor shared with its aliases). The fix belongs where the value is defined."""
    anchor = getattr(getattr(current, "anchor", None), "value", None)
    if anchor:
        return f"the value is the YAML anchor &{_short(anchor)}, shared with its aliases: change it by hand"
    tag = str(getattr(getattr(current, "tag", None), "value", "") or "")
    inner = getattr(current, "value", current)  # a short-form tag's scalar (!Ref Param)
    if hasattr(current, "keys") and len(current) == 1:  # JSON's {"Ref": "Param"}, {"Fn::If": [...]}
        tag, inner = str(next(iter(current))), next(iter(current.values()))
    if tag in ("!Ref", "Ref") and isinstance(inner, str):
        return (
            f"the value comes from the parameter {_short(inner)} (Ref): change its Default or the value "
            "given at deploy time, by hand"
        )
    if tag.startswith(("!", "Fn::")):
        return f"the value comes from {_short(tag)}: change it by hand"
    if hasattr(current, "lc"):
        return "the value is not a literal: change it by hand"
    if isinstance(current, str) and "${" in current:
        return f"the value comes from the variable {_short(current)}: change it where it is defined, by hand"
    return None


def _short(text: str) -> str:
    said = " ".join(str(text).split())
    return said if len(said) <= 60 else said[:57] + "..."


def _insert(lines, node, key, value, after, *, flow: bool, as_json: bool, step: int) -> str:
    keys = list(node)
    if not keys:
        raise _Skip("an empty mapping")
    kl, kc = node.lc.key(keys[0])
    if flow:
        text = _render(value, as_json=as_json, indent=kc, step=step) if as_json else _render_flow(value)
        rendered = f"{json.dumps(key) if as_json else key}: {text}"
        line = lines[kl]
        if line[:kc].strip() == "":  # one key per line: a line of its own
            lines.insert(kl, " " * kc + rendered + ",\n")
        else:
            lines[kl] = line[:kc] + rendered + ", " + line[kc:]
        return "".join(lines)
    body = _render(value, as_json=False, indent=kc, step=step)
    block = " " * kc + f"{key}:" + (body if body.startswith("\n") else " " + body) + "\n"
    at = kl
    if after is not None and after in node:
        at = _block_end(lines, node.lc.key(after)[0], kc)
    elif not hasattr(node[keys[-1]], "lc"):
        ll, _ = node.lc.value(keys[-1])
        if not str(lines[ll]).rstrip().endswith(("|", ">", "|-", ">-")):
            at = _block_end(lines, ll, kc)
    lines.insert(at, block)
    return "".join(lines)


def _block_end(lines, start: int, col: int) -> int:
    """The line after the block that starts at ``start`` (a key at column ``col``), before trailing blanks and
    comments that belong to what follows."""
    i = start + 1
    while i < len(lines):
        s = lines[i]
        if s.strip() and not s.lstrip().startswith("#") and len(s) - len(s.lstrip()) <= col:
            break
        i += 1
    while i > start + 1 and (not lines[i - 1].strip() or lines[i - 1].lstrip().startswith("#")):
        i -= 1
    if i > 0 and not lines[i - 1].endswith("\n"):
        lines[i - 1] += "\n"
    return i


class _Skip(Exception):
    pass


# ------------------------------------------------------------------------------------------ files
def fix_text(path: str, text: str, findings: list[Finding]) -> FileFix:
    """Apply the changes of ``findings`` (those about this file) to ``text``; never raises on a template it
    cannot edit (the reasons are in ``skipped``)."""
    out = FileFix(path, text, text)
    try:
        doc = parse(text)
    except Exception:  # noqa: BLE001 - ruamel raises many types; a file that does not parse is never touched
        out.skipped += [(f, "the file does not parse") for f in findings if f.changes]
        return out
    as_json = _is_json(path, text)
    current = text
    for f in findings:
        if not f.changes:
            continue
        try:
            doc = parse(current)  # the last edit's text: parsed by _check for YAML, parsed here for JSON
            trial = current
            for ch in f.changes:
                plan = edits_for(ch, doc)
                if isinstance(plan, str):
                    raise _Skip(plan)
                for p, value, after in plan:
                    trial = apply_edit(trial, p, value, after, as_json=as_json)
            _check(trial, as_json)
        except _Skip as why:
            out.skipped.append((f, str(why)))
            continue
        except Exception as exc:  # noqa: BLE001 - an edit we cannot make safely: leave the text as it was
            out.skipped.append((f, f"could not be written safely ({type(exc).__name__})"))
            continue
        current = trial
        out.applied.append(f)
    out.after = keep_line_endings(text, current)
    return out


def _check(text: str, as_json: bool) -> None:
    """The edited text still reads as a template, with the parser visguard reads templates with (C-speed: a SARIF
    fix is checked for each finding)."""
    if as_json:
        json.loads(text)
    else:
        from visguard.linter.loaders.decode import loads_yaml

        loads_yaml(text, file="<edited>")


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


def fix_files(files: list[str], findings: list[Finding], *, write: bool) -> list[FileFix]:
    """One FileFix per linted template file (or file of a linted Terraform root module, visguard.linter.fix_hcl)
    that has findings with changes. Writes the changed ones when ``write`` (``write_fix``; a file it leaves
    alone has ``refused`` set)."""
    from visguard.linter import fix_hcl

    results = []
    for path in files:
        root = fix_hcl.root_of(path)
        if root is not None:  # Terraform: the changes point into the module's files, not at the input
            mine = [f for f in findings if f.changes and f.location.file and _under(f.location.file, root)]
            if mine:
                results += fix_hcl.fix_root(root, mine, write=write)
            continue
        if not path.lower().endswith(FIXABLE_SUFFIXES) or os.path.isdir(path):
            continue
        mine = [f for f in findings if f.changes and f.location.file and _same_file(f.location.file, path)]
        if not mine or _generated(path):
            continue  # a cdk.out template is CDK's output: the fix belongs in the CDK code (its message says so)
        if fix_hcl.is_plan(path):  # Terraform's output, like cdk.out: the fix belongs in the .tf files
            why = "a Terraform plan is Terraform's output: run --fix on the root module folder"
            results.append(FileFix(path, "", "", skipped=[(f, why) for f in mine]))
            continue
        text, stamp = read_source(path)
        ff = fix_text(path, text, mine)
        ff.stamp = stamp
        if write and ff.changed:
            write_fix(ff)
        results.append(ff)
    return results


def _under(file: str, root: str) -> bool:
    """A finding of the Terraform root module ``root`` (its location is in the root's folder or below)."""
    # paths as the loader named them (a symlinked file is fix_hcl's to refuse, with its reason)
    a, r = os.path.abspath(file), os.path.abspath(root)
    return a == r or a.startswith(r.rstrip(os.sep) + os.sep)


# ------------------------------------------------------------------------------------------ SARIF + CLI
def _changed_runs(a: list[str], b: list[str]):
    """(i1, i2, j1, j2) of each run of lines where ``a`` and ``b`` differ (``a[i1:i2]`` became ``b[j1:j2]``)."""
    # the lines both share at the start and the end are left out of the diff: an edit is a few lines, and
    # SequenceMatcher is quadratic in the lines that repeat (every "}," of a JSON template)
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    matcher = difflib.SequenceMatcher(None, a[head : len(a) - tail], b[head : len(b) - tail], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            yield i1 + head, i2 + head, j1 + head, j2 + head


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


def sarif_fixes(
    finding: Finding, uri: str, _cache: dict | None = None, inputs: list[str] | None = None
) -> list[dict]:
    """The SARIF ``fixes`` of a finding: its structured changes as an artifact change of its file (none when the
    template cannot take them mechanically). A Terraform finding gets one when ``inputs`` (the linted paths)
    hold its root module and the change is in the finding's own file, as ``--fix`` would write it."""
    from visguard.linter import fix_hcl
    from visguard.linter.changes import describe

    path = finding.location.file
    if not finding.changes or not path:
        return []
    source = "cloudformation"
    if path.endswith(fix_hcl.HCL_SUFFIXES + fix_hcl.JSON_SUFFIXES):
        roots = [r for r in (fix_hcl.root_of(p) for p in inputs or ()) if r is not None]
        files = {c.location.file for c in finding.changes if c.location}
        root = next((r for r in roots if fix_hcl.in_root(path, r)), None)
        if root is None or files != {path}:
            return []
        try:
            if fix_hcl.defined_by(finding) and fix_hcl.shared_uses([finding], fix_hcl._module_texts(root)):
                return []  # a shared variable: --fix leaves it to a person
            ff = fix_hcl.fix_text(path, _read(path), [finding])
        except VisguardError:
            return []
        source = "terraform"
    elif not path.lower().endswith(FIXABLE_SUFFIXES):
        return []
    else:
        try:
            text = _read(path)
        except VisguardError:
            return []
        ff = fix_text(path, text, [finding])
    if not ff.changed:
        return []
    text_ = "; ".join(describe(c, source) for c in finding.changes)
    return [
        {
            "description": {"text": text_[0].upper() + text_[1:] + "."},
            "artifactChanges": [
                {"artifactLocation": {"uri": uri}, "replacements": replacements(ff.before, ff.after)}
            ],
        }
    ]


def cli_step(diff: bool, result, relint, out=None, err=None):
    """``visguard lint --fix`` / ``--diff`` between linting and reporting. Returns (anything changed, the lint
    result to report: re-linted after writing fixes). A file the write policy left alone is an error of that
    result (one line naming the file and why; exit 1): not a success, and the other files are still fixed."""
    import sys

    from visguard.engine.cli_guard import printable
    from visguard.linter.loaders import safe_io

    out, err = out or sys.stdout, err or sys.stderr
    fixes = fix_files(result.files, result.findings, write=not diff)
    changed = False
    refused = []
    for ff in fixes:
        for f, why in ff.skipped:
            err.write(
                printable(f"visguard lint: {ff.path}: {f.rule} on {f.queue} not fixed automatically: {why}")
                + "\n"
            )
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
