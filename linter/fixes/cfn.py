"""The CloudFormation adapter of the fix core (visguard.linter.fixes.core): templates in YAML or JSON, SAM, and a
Serverless service's ``resources`` files.

ruamel.yaml's round-trip parser says where every key and value is (line and column); an edit replaces only the
characters of the value it changes, or inserts the lines of a key it adds (with any missing parents). Comments,
key order, quoting, blank lines and short-form tags (``!GetAtt``, ``!Ref``) stay as they were; JSON stays JSON.
Every edit is placed in the text as read (one parse per text, however many findings): edits that add keys to
the same missing parent are written as one block.

What is mechanical: VisibilityTimeout, MessageRetentionPeriod, DelaySeconds, RedrivePolicy.maxReceiveCount,
FunctionResponseTypes, BatchSize, MaximumBatchingWindowInSeconds, a function's Timeout, and adding a DLQ with a
RedrivePolicy. A value that comes from somewhere else is left alone with the reason naming it, never flattened
into a literal: a parameter (``!Ref Param``), an intrinsic, a Serverless variable (``${self:custom.x}``, which may
differ per stage), a YAML anchor or alias.
"""

from __future__ import annotations

import io
import json

from visguard.linter.changes import CONSUMER_WORDS, QUEUE_WORDS
from visguard.linter.fixes.core import Adapter, CannotFix, Edit
from visguard.linter.model import Change
from visguard.records import Value

QUEUE_TYPE = "AWS::SQS::Queue"
ESM_TYPE = "AWS::Lambda::EventSourceMapping"


class GetAtt(Value):
    """``!GetAtt Resource.Attribute`` (``{"Fn::GetAtt": [...]}`` in JSON)."""

    __slots__ = ("resource", "attribute")


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
def edits_for(change: Change, doc) -> list[tuple[list, object, str | None]]:
    """(document path, new value, insert-after hint) of each edit a change makes; CannotFix with the reason
    otherwise."""
    res = doc.get("Resources") if hasattr(doc, "get") else None
    if not hasattr(res, "get"):
        raise CannotFix("no Resources in this document")
    if change.scope == "queue":
        r = res.get(change.target)
        if not hasattr(r, "get") or r.get("Type") != QUEUE_TYPE:
            raise CannotFix(f"{change.target} is not an AWS::SQS::Queue resource of this template")
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
                raise CannotFix("the RedrivePolicy is not a mapping written in the template")
            return [([*base, "RedrivePolicy", "maxReceiveCount"], int(change.value), None)]
        if change.field in QUEUE_WORDS:
            return [([*base, QUEUE_WORDS[change.field][0]], int(change.value), None)]
        raise CannotFix(f"{change.field} is not a property visguard writes")
    # a consumer: where its setting is written, else on its event source mapping / SAM event
    if change.field in WORKER_FIELDS:
        return _worker_edits(change, res)
    if change.field not in CONSUMER_WORDS:
        raise CannotFix(f"{change.field} is not a property visguard writes")
    prop = CONSUMER_WORDS[change.field][0]
    value = ["ReportBatchItemFailures"] if change.field == "report_batch_item_failures" else int(change.value)
    if change.field == "report_batch_item_failures" and not change.value:
        value = []
    loc = change.location.path.split("/") if change.location and change.location.path else []
    if loc and loc[-1] == prop:
        return [(loc, value, None)]
    if change.field == "function_timeout":
        raise CannotFix("the function timeout is not written in this template")
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
        raise CannotFix("SAM writes this mapping itself (SqsSubscription): the template cannot set it")
    raise CannotFix("the consumer is not an event source mapping or SAM event of this template")


# worker consumers (issue 24): an ECS container's StopTimeout, a Beanstalk worker's sqsd options
WORKER_FIELDS = {"stop_timeout": "StopTimeout", "visibility_override": "VisibilityTimeout",
                 "inactivity_timeout": "InactivityTimeout"}  # fmt: skip
APPEND = "+"  # the last key of an edit that appends an option setting: (APPEND, option name)


def _worker_edits(change: Change, res) -> list[tuple[list, object, str | None]]:
    """StopTimeout on the container that has (or gets) it; a Beanstalk OptionSettings entry's Value, or a new
    entry {Namespace: aws:elasticbeanstalk:sqsd, OptionName, Value} where the option is not set."""
    from visguard import facts

    loc = change.location.path.split("/") if change.location and change.location.path else []
    loc = [int(p) if p.isdigit() else p for p in loc]
    resource = res.get(loc[1]) if len(loc) > 1 and loc[0] == "Resources" else None
    if not hasattr(resource, "get"):
        raise CannotFix("the consumer's setting is not in a resource of this template")
    value = int(change.value)
    if change.field == "stop_timeout":
        if "ContainerDefinitions" not in loc:
            raise CannotFix("the container is not written in this template")
        at = loc[: loc.index("ContainerDefinitions") + 2]
        # the cap of where the task may run (facts.ecs_stop_timeout_cap): Fargate's 120 s when the task definition
        # names FARGATE; none is documented for EC2, EXTERNAL or MANAGED_INSTANCES
        compat = (resource.get("Properties") or {}).get("RequiresCompatibilities")
        compat = [str(v).upper() for v in compat] if isinstance(compat, list) else None
        cap = facts.ecs_stop_timeout_cap(None, compat) if compat else None
        if cap is not None and value > cap:
            raise CannotFix(
                f"Fargate allows a StopTimeout of at most {cap} s: drain the worker or use task scale-in protection"
            )
        container = res
        for k in at[1:]:
            container = _get(container, k)
        # a key added to a list item's mapping goes after its last key (not before the item's first line)
        last = list(container)[-1] if hasattr(container, "keys") and len(container) else None
        return [([*at, "StopTimeout"], value, last)]
    option = WORKER_FIELDS[change.field]
    if loc[-1] == "Value" and "OptionSettings" in loc:
        return [(loc, value, None)]
    if loc[-1] == "OptionSettings" or len(loc) == 2:
        base = loc if loc[-1] == "OptionSettings" else [*loc, "Properties", "OptionSettings"]
        entry = {"Namespace": facts.SQSD_NAMESPACE, "OptionName": option, "Value": str(value)}
        return [([*base, (APPEND, option)], entry, None)]
    raise CannotFix(f"the sqsd option {option} is not written in this template")


def _append_spans(lines, starts, text: str, doc, appends: list, as_json: bool) -> list:
    """Spans adding option-setting entries: at the end of their OptionSettings list, or a new OptionSettings."""
    by_list: dict[tuple, list] = {}
    for e in appends:
        by_list.setdefault(tuple(e.key[:-1]), []).append(e)
    spans = []
    for path, edits in by_list.items():
        node = doc
        for k in path[:-1]:
            node = _get(node, k)
            if node is _MISSING:
                raise CannotFix("the resource's Properties are not a mapping written in the template")
        entries = [e.value for e in edits]
        keys = [e.key for e in edits]
        seq = _get(node, path[-1])
        if seq is _MISSING:
            if not hasattr(node, "lc") or not len(node):
                raise CannotFix(
                    "the resource has no Properties written in the template: add the option by hand"
                )
            span = _insert(
                lines, starts, node, path[-1], entries, None, as_json=as_json, step=_indent_step(doc)
            )
            spans.append((*span, keys))
            continue
        if not hasattr(seq, "lc") or not isinstance(seq, list) or not seq:
            raise CannotFix("OptionSettings is not a list written in the template: add the option by hand")
        il, ic = seq.lc.item(len(seq) - 1)
        if as_json or seq.fa.flow_style():
            end = _close(text, starts[il] + ic)
            new = "".join(", " + _render(v, as_json=as_json, indent=0, step=2) if as_json else
                          ", " + _render_flow(v) for v in entries)  # fmt: skip
            spans.append((end, end, new, 0, keys))
            continue
        dash = lines[il].rfind("-", 0, ic)
        at = _block_end(lines, il, dash)
        block = "".join(
            " " * dash
            + "- "
            + ("\n" + " " * (dash + 2)).join(
                f"{k}: {_render(v, as_json=False, indent=0, step=2)}" for k, v in entry.items()
            )
            + "\n"
            for entry in entries
        )
        if at > 0 and not lines[at - 1].endswith("\n"):
            block = "\n" + block
        spans.append((starts[at], starts[at], block, dash, keys))
    return spans


def _close(text: str, start: int) -> int:
    """The offset after the value that starts at ``start`` (a JSON or flow mapping/list, strings skipped)."""
    depth, i, quote = 0, start, None
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\" and quote == '"':
                i += 1
            elif ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise CannotFix("the list's last entry does not end")


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
        items = (
            _render_flow(v)
            if isinstance(v, dict) and not as_json
            else _render(v, as_json=as_json, indent=indent, step=step)
            for v in value
        )
        return "[" + ", ".join(items) + "]"
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


class CfnAdapter(Adapter):
    """Locate a change by the property path it sets; render edits as spans of the text they were located in."""

    source = "cloudformation"

    def __init__(self, as_json: bool):
        self.as_json = as_json

    def parse(self, text: str):
        return parse(text)

    def locate(self, change: Change, doc) -> list[tuple[tuple, object, str | None]]:
        return [(tuple(path), value, after) for path, value, after in edits_for(change, doc)]

    def render(self, text: str, doc, edits: list[Edit]) -> tuple[str, dict]:
        lines = text.splitlines(keepends=True)
        starts = [0]
        for line in lines:
            starts.append(starts[-1] + len(line))
        spans, failed = [], {}
        inserts: dict = {}  # (node's id, key) -> [node, key, the value to add, after-hint, the edits' keys]
        seen = set()
        appends = [e for e in edits if isinstance(e.key[-1], tuple) and e.key[-1][:1] == (APPEND,)]
        if appends:
            unique = list({e.key: e for e in appends}.values())
            try:
                spans += _append_spans(lines, starts, text, doc, unique, self.as_json)
            except CannotFix as why:
                failed.update(dict.fromkeys((e.key for e in unique), str(why)))
            except Exception as exc:  # noqa: BLE001 - as below
                failed.update(
                    dict.fromkeys(
                        (e.key for e in unique), f"could not be written safely ({type(exc).__name__})"
                    )
                )
            seen.update(e.key for e in appends)
        for e in edits:
            if e.key in seen:  # another finding's edit of the same key: the same value
                continue
            seen.add(e.key)
            try:
                spans += [
                    (*span, [e.key])
                    for span in _place(
                        lines, starts, doc, list(e.key), e.value, e.place, inserts, self.as_json
                    )
                ]
            except CannotFix as why:
                failed[e.key] = str(why)
            except Exception as exc:  # noqa: BLE001 - an edit we cannot make safely: leave the text as it was
                failed[e.key] = f"could not be written safely ({type(exc).__name__})"
        step = _indent_step(doc)
        for node, key, value, after, keys in inserts.values():
            try:
                span = _insert(lines, starts, node, key, value, after, as_json=self.as_json, step=step)
                spans.append((*span, keys))
            except CannotFix as why:
                failed.update(dict.fromkeys(keys, str(why)))
            except Exception as exc:  # noqa: BLE001 - as above
                failed.update(dict.fromkeys(keys, f"could not be written safely ({type(exc).__name__})"))
        return _splice(text, spans, failed), failed

    def check(self, text: str) -> None:
        """The edited text still reads as a template, with the parser visguard reads templates with."""
        if self.as_json:
            json.loads(text)
        else:
            from visguard.linter.loaders.decode import loads_yaml

            loads_yaml(text, file="<edited>")


def _splice(text: str, spans: list[tuple[int, int, str, int, list]], failed: dict) -> str:
    """``text`` with each (start, end, new text, depth, keys) span written; insertions at one place deepest first
    (a key added at the end of a block comes before a resource added after it). A span that overlaps another is
    left out (its keys in ``failed``)."""
    out, pos = [], 0
    for start, end, new, _depth, keys in sorted(spans, key=lambda s: (s[0], -s[3])):
        if start < pos:
            failed.update(dict.fromkeys(keys, "two edits would overlap"))
            continue
        out += [text[pos:start], new]
        pos = end
    return "".join(out) + text[pos:]


def _place(lines, starts, doc, path: list, value, after, inserts: dict, as_json: bool) -> list:
    """The span that sets ``path`` to ``value`` in place, or none (the key is added: noted in ``inserts``, where
    the additions under one parent are merged)."""
    node, i = doc, 0
    while i < len(path) - 1 and _get(node, path[i]) is not _MISSING and hasattr(_get(node, path[i]), "lc"):
        node, i = node[path[i]], i + 1
    key = path[i]
    current = _get(node, key)
    flow = as_json or node.fa.flow_style()
    if current is not _MISSING and i == len(path) - 1:
        return [_replace(lines, starts, node, key, current, value, flow=flow, as_json=as_json)]
    nested = value
    for k in reversed(path[i + 1 :]):
        nested = {k: nested}
    slot = inserts.setdefault((id(node), key), [node, key, {}, after, []])
    slot[2] = _merge(slot[2], nested) if slot[4] else nested
    slot[4].append(tuple(path))
    return []


def _merge(a, b):
    if isinstance(a, dict) and isinstance(b, dict):
        out = dict(a)
        for k, v in b.items():
            out[k] = _merge(out[k], v) if k in out else v
        return out
    return b


def _replace(lines, starts, node, key, current, value, *, flow: bool, as_json: bool):
    vl, vc = node.lc.value(key)
    line = lines[vl]
    at = starts[vl]
    if isinstance(value, list) and hasattr(current, "lc"):  # FunctionResponseTypes: [] or a block list
        if current.fa.flow_style():
            end = line.index("]", vc) + 1
            return at + vc, at + end, _render(value, as_json=as_json, indent=0, step=2), 0
        il, ic = current.lc.item(0)
        item = " " * ic + "- " + _render(value[0], as_json=as_json, indent=0, step=2) + "\n"
        return starts[il], starts[il], item, ic
    why = _reference(current)
    if why:
        raise CannotFix(why)
    end = _scalar_end(line, vc, flow)
    old = line[vc:end]
    new = _render(value, as_json=as_json, indent=0, step=2)
    if old[:1] in ("'", '"') and not as_json:
        new = old[0] + str(value) + old[0]  # keep the template's quoting ("600" stays a quoted string)
    elif old[:1] == '"' and as_json and isinstance(value, int):
        new = f'"{value}"'
    return at + vc, at + end, new, 0


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


def _insert(lines, starts, node, key, value, after, *, as_json: bool, step: int):
    keys = list(node)
    if not keys:
        raise CannotFix("an empty mapping")
    kl, kc = node.lc.key(keys[0])
    if as_json or node.fa.flow_style():
        text = _render(value, as_json=as_json, indent=kc, step=step) if as_json else _render_flow(value)
        rendered = f"{json.dumps(key) if as_json else key}: {text}"
        if lines[kl][:kc].strip() == "":  # one key per line: a line of its own
            return starts[kl], starts[kl], " " * kc + rendered + ",\n", kc
        return starts[kl] + kc, starts[kl] + kc, rendered + ", ", kc
    body = _render(value, as_json=False, indent=kc, step=step)
    block = " " * kc + f"{key}:" + (body if body.startswith("\n") else " " + body) + "\n"
    at = kl
    if after is not None and after in node:
        at = _block_end(lines, node.lc.key(after)[0], kc)
    elif not hasattr(node[keys[-1]], "lc"):
        ll, _ = node.lc.value(keys[-1])
        if not str(lines[ll]).rstrip().endswith(("|", ">", "|-", ">-")):
            at = _block_end(lines, ll, kc)
    if at > 0 and not lines[at - 1].endswith("\n"):  # after the last line, which has no line break
        block = "\n" + block
    return starts[at], starts[at], block, kc


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
    return i
