"""Queues the code creates (issue 35): every CreateQueue call the language's query finds becomes a queue of the file's
model (``visguard.linter.created_queues``: created at run time, located at the call).

Where the calls are is each ``languages/<name>.scm``'s last block (its captures: ``@create.call`` the name a create
call calls, ``@create.builder`` the start of a request builder chain whose calls are the fields); what the call's
arguments hold is read here (:func:`_call_site`). What this module knows is the shape of a request in each
language, read structurally (the same for every SDK of it):

    python      create_queue(QueueName=..., Attributes={...})            keyword arguments, a dict
    javascript  createQueue({QueueName, Attributes}), new CreateQueueCommand({...})   an object literal
    java        CreateQueueRequest.builder().queueName(..).attributes(Map.of(K, V)) / attributesWithStrings,
                createQueue(b -> b.queueName(..)), new CreateQueueRequest(name).withAttributes(..)
                .addAttributesEntry(K, V), createQueue("name")
    go          CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: .., Attributes: map[string]string{..}})
    csharp      CreateQueueAsync(new CreateQueueRequest { QueueName = .., Attributes = new Dictionary<..> {..} }),
                CreateQueueAsync("name")
    php         createQueue(['QueueName' => .., 'Attributes' => [..]])
    ruby        create_queue(queue_name: .., attributes: {..})
    rust        create_queue().queue_name(..).attributes(QueueAttributeName::VisibilityTimeout, "60")
                .set_attributes(Some(map)) (aws-sdk-sqs: the builder's chain, a map of HashMap::from([(K, V)]) or of
                inserts on a HashMap::new()), CreateQueueRequest { queue_name, attributes: Some(map), .. } (rusoto)
    kotlin      createQueue(CreateQueueRequest.builder().queueName(..).attributes(mapOf(K to V)).build()),
                createQueue { queueName = ..; attributes = mapOf(..) }: read by kotlin.create_site (its calls have no
                fields), located at the createQueue call
A name that is each of a collection the code iterates (Kotlin's ``it`` of ``names.forEach { }``: a list value) creates
one queue per name, all located at the call.

Only a file that says SQS somewhere (its client, its import) is read for them. A field's key is read by its last
word, case and ``_`` aside (``QueueAttributeName.VISIBILITY_TIMEOUT``,
``string(types.QueueAttributeNameVisibilityTimeout)``, ``"VisibilityTimeout"``, ``:visibility_timeout`` are one).
A request, or its attributes, held in a name bound once in the file is followed there, with the writes to the map
after its binding while they are sound (:func:`_written_after`). Values are ``engine.evaluate``'s: a literal, a
constant, an environment variable's literal default.

A queue whose name is known only at run time (``"test-#{SecureRandom.uuid}"``, a method's parameter) is still the
queue declared at that call: its id says where (``<name built at file:line>``,
``visguard.linter.created_queues.unnamed_id``), it has no name, so no join by name ever picks it; a consumer of this
file reaches it only through the very binding its name is, or the URL its create returned (:func:`_link_by_binding`),
and a RedrivePolicy through the ARN read back for it (:func:`_created_in`). So the rules that judge a queue alone
run on it (VG020 when such a consumer reads it, VG022 with its dead-letter queue created beside it), once per
create call. A name read from an environment variable (no default), or the last segment of the URL one holds
(``QUEUE_URL.split("/").pop()``, ``url.rsplit("/", 1)[-1]``: :func:`_env_tail`), is the queue that variable names
(id ``$VAR``, ``created_queues.env_id``): the consumers of the run reading the variable read it, unless a binding of
the run names a declared queue for it, which is then the queue (``created_queues.settle``). A queue whose attributes are not a literal map is not a
queue of the model: one note names the call and the expression that stopped it. An attribute whose value is
computed is kept as such (``<computed: expr>``, so no rule judges it); a RedrivePolicy whose JSON is built by the
code (``json.dumps({...})``) is a policy whose target is not known unless its expression reaches one create call of
the file (its ``maxReceiveCount`` read when written as a literal).
"""

from __future__ import annotations

import itertools
import re

from visguard import facts

from .engine import File, Reader, Value, evaluate, shown, text

MAX_FIELDS = 200  # entries read from one request or attribute map
MAX_FOLLOW = 3  # names followed to the literal that holds a request or its attributes
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SQS = re.compile(rb"sqs|SQS|Sqs")
_COUNT = re.compile(r"maxReceiveCount\W{0,8}(\d{1,4})\b")


def key(raw: str) -> str:
    """A field's key as compared: its last word, lower case, without ``_`` or the SDKs' ``QueueAttributeName``."""
    words = _WORD.findall(raw)
    word = words[-1] if words else raw
    word = word.replace("_", "").lower()
    return (
        word[len("queueattributename") :]
        if word.startswith("queueattributename") and len(word) > 18
        else word
    )


_NAME_KEYS = {"queuename"}
_ATTRIBUTE_KEYS = {"attributes", "attributeswithstrings"}
_ATTRIBUTES = {  # the compared key -> the API's name
    "visibilitytimeout": "VisibilityTimeout",
    "messageretentionperiod": "MessageRetentionPeriod",
    "delayseconds": "DelaySeconds",
    "fifoqueue": "FifoQueue",
    "redrivepolicy": "RedrivePolicy",
}


def read(f: File, r: Reader) -> None:
    """Add a queue to ``r.result.queues`` for every create site of ``f`` whose queue name is known. A file that
    never says SQS (its client, its import) creates other queues: Azure's ``createQueue("name")``, an in-house
    ``create_queue``."""
    says_sqs = _SQS.search(f.data) is not None
    if not says_sqs and f.lang.name not in _DEFS:
        return
    from visguard.linter import created_queues

    sites: dict[tuple[int, int], dict] = {}
    for _, caps in f.matches if says_sqs else ():  # else: only the calls of a helper (of an SQS file)
        if "create.builder" in caps:
            node = caps["create.builder"][0]
            sites.setdefault((node.start_byte, node.end_byte), {"site": node, "builder": node})
        for token in caps.get("create.call", ()):
            entry = _call_site(f, token)
            if entry is not None:
                sites.setdefault((entry["site"].start_byte, entry["site"].end_byte), entry)
    seen: set[str] = {q.id for q in r.result.queues}
    created: list[tuple[object, str, dict]] = []  # (the create site, the queue's name, its attributes)
    refused: dict = {}  # name -> the queue of a create CreateQueue refuses (a FIFO name without .fifo)
    # (site, id) of each create whose name is a literal, or is not known (its id): a DLQ's ARN may be one's
    known = _known_sites(f, r, sites)
    unnamed: list[tuple[object, str]] = []  # (the name's expression, the queue's id) of each name not known
    instances = _instances(f, r)  # the calls of helpers that create the queue they are given
    known += [(i["call"], i["id"], i["name_node"] if i["name_file"] is f else None) for i in instances]
    # a helper's own create call: its queues are the ones its calls create (above), not one of its own
    of_helpers = {(h["site"].start_byte, h["site"].end_byte) for h in helpers(f)} if says_sqs else set()
    sites = {k: e for k, e in sites.items() if k not in of_helpers}
    for _, entry in sorted(sites.items()):
        fields, where = _request(f, entry)
        if fields is None:
            continue
        name_node = fields.get("name")
        if name_node is None:
            continue
        per_site = _per_call_site(f, r, entry, fields, known, seen, created)
        if per_site:
            continue
        v = evaluate(name_node, f)
        if v.kind == "env" and v.default is not None:
            v = v.default
        name = None
        each = []  # a name that is each of a collection the code iterates: one queue per name
        if v.kind == "list" and v.value and all(x.kind == "str" and x.value.strip() for x in v.value):
            each = [x.value.strip() for x in v.value[:MAX_FIELDS]]
            v = v.value[0]
        if v.kind != "str" or not v.value.strip():
            if entry.get("name") is name_node:  # a positional argument: perhaps a request object, not a name
                continue
            if v.kind == "none":  # QueueName=None is refused: the code runs it only when a name is given
                continue
            var = v.value if v.kind == "env" else _env_tail(f, name_node)
            if var and _ENV_NAME.fullmatch(var):  # the queue the variable names (created_queues.settle)
                qid = created_queues.env_id(var)
                if qid not in seen:
                    q, _ = created_queues.code_queue(None, r.loc(where), attributes_of(f, r, fields, known))
                    q.id = qid
                    q.locations["name"] = r.loc(name_node)
                    seen.add(qid)
                    r.result.queues.append(q)
                    created.append((entry["site"], qid, {}))
                continue
            if v.kind == "env" or (v.kind == "str" and not v.value.strip()):
                # a variable's queue may be a queue the run declares (a CreateQueue of it creates nothing)
                why = v.why or shown(name_node)
                _note(
                    r,
                    f"the queue created at {_at(r, where)} was not read: its name is computed ({why})",
                    name_node,
                )
                continue
        else:
            name = v.value.strip()
        attributes = {}
        attrs_node = fields.get("attributes")
        if attrs_node is not None:
            entries = _entries(f, attrs_node)
            if entries is None:
                _note(
                    r,
                    f"the queue {name or shown(name_node)} created at {_at(r, where)} was not read: its "
                    f"attributes are computed ({shown(attrs_node)})",
                    attrs_node,
                )
                continue
            for k, value_node in entries:
                api = _ATTRIBUTES.get(key(k))
                if api is not None:
                    attributes[api] = (_attribute(f, api, value_node, known), r.loc(_node(value_node)))
        for k, value_node in fields.get("entries", ()):  # Java v1: addAttributesEntry(K, V)
            api = _ATTRIBUTES.get(key(k))
            if api is not None:
                attributes[api] = (_attribute(f, api, value_node, known), r.loc(_node(value_node)))
        loc = r.loc(where)
        if (
            name is None
        ):  # known only at run time: the queue declared at this call (created_queues.unnamed_id)
            qid = created_queues.unnamed_id(loc)
            if qid in seen:
                continue
            q, _ = created_queues.code_queue(None, loc, attributes)
            q.locations["name"] = r.loc(name_node)
            seen.add(qid)
            r.result.queues.append(q)
            created.append((entry["site"], qid, attributes))
            unnamed.append((name_node, qid))
            continue
        for name in each or [name]:  # noqa: B020 - each name in turn is the queue's
            if name in seen:
                continue
            q, _ = created_queues.code_queue(name, loc, attributes)
            if "FifoQueue" in attributes and facts.fifo_name_mismatch(name, q.fifo):
                # CreateQueue refuses it (``if name.endswith(".fifo"): create FIFO else: create standard``):
                # another create of the name is the queue; this one only when there is none
                refused.setdefault(name, q)
                continue
            seen.add(name)
            r.result.queues.append(q)
            created.append((entry["site"], name, attributes))
    for i in instances:
        if i["id"] in seen:
            continue
        q = _instance_queue(f, r, i, known)
        if q is None:
            continue
        seen.add(q.id)
        r.result.queues.append(q)
        created.append((i["call"], q.id, i.get("attributes") or {}))
        if q.name is None and i["name_file"] is f:
            unnamed.append((i["name_node"], q.id))
    r.result.queues += [q for name, q in refused.items() if name not in seen]
    if created and _SET.search(f.data) is not None:
        _set_sites(f, r, created, known)
    if instances and created:
        _apply(r, created, _set_by_helpers(f, r, created, known))
    _link_created_dlqs(r)
    if r.computed_queues and created:
        _link_by_binding(f, r, unnamed, created)


# ------------------------------------------------------------------------------------- SetQueueAttributes
# A queue created without a RedrivePolicy often gets one right after, by SetQueueAttributes (the policy needs the
# dead-letter queue's ARN, known only once that queue exists). Such a call on a queue this file creates changes
# what it was created with: its queue is the create call whose result the QueueUrl is (followed through names
# bound once: ``url = create_queue(...).queue_url``), or the created queue its URL names. Attributes the call
# writes as a literal map are read as a create's; attributes it computes leave the queue's redrive not known.
# When its queue is not known, no queue this file creates is judged on its redrive (the call may be setting it).
_SET = re.compile(
    rb"\b(?:set_queue_attributes|setQueueAttributes|SetQueueAttributesCommand|SetQueueAttributesAsync"
    rb"|SetQueueAttributes)\b"
)
MAX_SET_SITES = 50  # SetQueueAttributes calls read in one file
_URL_KEYS = {"queueurl"}


_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
# the queue name as the last segment of a URL an environment variable holds: ``QUEUE_URL.split("/").pop()``,
# ``url?.split('/').at(-1)``, ``url.split("/")[-1]``, ``url.rsplit("/", 1)[-1]``
_TAIL = re.compile(
    r"""^\s*([A-Za-z_$][\w$.]*?(?:\[\s*["'][\w]+["']\s*\])?)\s*\??\.\s*r?split\(\s*(["'])/\2\s*(?:,\s*1\s*)?\)\s*"""
    r"""(?:\??\.\s*pop\(\s*\)|\??\.\s*at\(\s*-1\s*\)|\[\s*-1\s*\])\s*$"""
)


def _env_tail(f: File, node) -> str | None:
    """The environment variable whose URL's last segment the name at ``node`` is (followed through names bound
    once, MAX_FOLLOW), or None."""
    for _ in range(MAX_FOLLOW + 1):
        if node is None or node.end_byte - node.start_byte > 300:
            return None
        m = _TAIL.match(text(node))
        if m is not None:
            start = node.start_byte + len(text(node)[: m.start(1)].encode())
            owner = f.root.descendant_for_byte_range(start, start + len(m.group(1).encode()))
            v = evaluate(owner, f) if owner is not None and text(owner) == m.group(1) else None
            return v.value if v is not None and v.kind == "env" and v.default is None else None
        node = _bound_once(f, node)
    return None


def attributes_of(f: File, r: Reader, fields: dict, known) -> dict:
    """The attributes a create request's fields write (API name -> (value, location)); {} when not a literal map."""
    out: dict = {}
    attrs_node = fields.get("attributes")
    for k, value_node in (_entries(f, attrs_node) or []) if attrs_node is not None else []:
        api = _ATTRIBUTES.get(key(k))
        if api is not None:
            out[api] = (_attribute(f, api, value_node, known), r.loc(_node(value_node)))
    return out


def _set_sites(f: File, r: Reader, created: list, known: list) -> None:

    changes: dict[str, dict] = {}
    for m in itertools.islice(_SET.finditer(f.data), MAX_SET_SITES):
        token = f.root.descendant_for_byte_range(m.start(), m.end())
        if token is None or (token.start_byte, token.end_byte) != m.span():
            continue  # inside a string or a comment
        entry = _call_site(f, token)
        node = entry.get("input") if entry is not None else None
        if entry is not None and "rust" in entry:  # set_queue_attributes().queue_url(u).attributes(K, V)...
            chained, url = _rust_chain(f, entry["site"])
            attrs = chained.get("attributes")
            entries = _entries(f, attrs) if attrs is not None else None
            if chained["entries"]:
                entries = (entries or []) + chained["entries"]
        elif node is None:
            continue
        else:
            candidates = node.named_children if f.lang.name == "go" else [node]
            fields = next((e for e in (_entries(f, c) for c in candidates) if e), None) or []
            fields = [(k, v) for k, v in fields if not isinstance(v, Unsure)]
            url = next((v for k, v in fields if key(k) in _URL_KEYS), None)
            attrs = next((v for k, v in fields if key(k) in _ATTRIBUTE_KEYS), None)
            entries = _entries(f, attrs) if attrs is not None else None
        at = r.loc(entry["site"])
        written: dict = {}
        for k, value_node in entries or ():
            api = _ATTRIBUTES.get(key(k))
            if api is not None:
                written[api] = (
                    _attribute(f, api, value_node, known),
                    r.loc(_node(value_node)),
                )
        if not written:  # computed (or built up after it is bound): the policy may be among them
            if entries:  # a literal map that sets nothing visguard reads
                continue
            written = {"RedrivePolicy": (f"<computed: set at {at.file}:{at.line}>", at)}
        name = _target(f, url, created) if url is not None else None
        if name is not None:
            changes.setdefault(name, {}).update(written)
            continue
        per_site = _site_targets(f, r, url, entries, created, known) if url is not None else None
        if per_site:
            for n, w in per_site:
                changes.setdefault(n, {}).update(w)
            if any(_unknown_target(w) for _, w in per_site):
                # a dead-letter queue not read: it may be any other queue created here, whose own redrive
                # (a consumed dead-letter queue's) is then not judged
                for n in {n for _, n, _ in created} - {n for n, _ in per_site}:
                    changes.setdefault(n, {}).setdefault(
                        "RedrivePolicy",
                        (f"<computed: a dead-letter queue of the call at {at.file}:{at.line}>", at),
                    )
            continue
        if "RedrivePolicy" not in written:
            continue
        names = [n for _, n, _ in created]
        for n in names:
            changes.setdefault(n, {}).setdefault(
                "RedrivePolicy", (f"<computed: set at {at.file}:{at.line}>", at)
            )
        _note(
            r,
            f"the SetQueueAttributes call at {at.file}:{at.line} sets a RedrivePolicy on a queue not known here: "
            f"the redrive of {', '.join(names[:5])}{' and more' if len(names) > 5 else ''}, created in this file, "
            "is not judged",
            entry["site"],
        )
    _apply(r, created, changes)


def _apply(r: Reader, created: list, changes: dict) -> None:
    """The queues of ``created`` with the attributes ``changes`` sets on them (queue id -> attributes)."""
    from visguard.linter import created_queues

    if not changes:
        return
    by_name = {q.id: i for i, q in enumerate(r.result.queues)}
    for _, name, attributes in created:
        if name in changes and name in by_name:
            old = r.result.queues[by_name[name]]
            q, _ = created_queues.code_queue(old.name, old.location, {**attributes, **changes[name]})
            q.locations["name"] = old.locations.get("name", old.location)
            r.result.queues[by_name[name]] = q


# A helper that sets the redrive of the queue whose URL it is given (``configureDeadLetterQueue(sourceUrl, dlqArn,
# n)`` called with the URLs the creates returned): read once per call site of the helper (engine.Flow.sites_of_shared,
# pinned as a create's name is, :func:`_per_call_site`), the URL of each site the created queue it is
# (engine.response_url), and the attributes read with that site's values. A site whose queue is not known leaves
# the call's old reading (every created queue's redrive not known, a note).
def _site_targets(f: File, r: Reader, url, entries, created: list, known: list) -> list | None:
    """(queue id, the attributes the call writes for it) per call site of the helper the SetQueueAttributes
    call's QueueUrl goes through, when every site's URL is a queue of ``created``; else None."""
    if f.lang.name not in _CTOR_LANGS or not entries:
        return None
    from .engine import FLOW

    names = {n for _, n, _ in created}
    FLOW.watch()
    evaluate(url, f)
    shared = FLOW.sites_of_shared(MAX_CTOR_QUEUES)
    if shared is None:
        return None
    g, fn, sig, sites = shared
    out = []
    for site in sites:
        with FLOW.pinned(g, fn, sig, site):
            v = evaluate(url, f)
            if v.kind not in ("name", "str") or not isinstance(v.value, str):
                return None
            last = v.value.strip().rstrip("/").rsplit("/", 1)[-1]
            if last not in names:
                return None
            written: dict = {}
            for k, value_node in entries:
                api = _ATTRIBUTES.get(key(k))
                if api is not None:
                    value = _attribute(f, api, value_node, known)
                    if isinstance(value, dict) and value.get("maxReceiveCount") is None:
                        value = {**value, "maxReceiveCount": _site_count(f, value_node)}
                    written[api] = (value, r.loc(_node(value_node)))
            if written:
                out.append((last, written))
    return out or None


def _site_count(f: File, node) -> int | None:
    """The ``maxReceiveCount`` a policy's expression writes, read for the call site pinned now (``JSON.stringify({
    deadLetterTargetArn: arn, maxReceiveCount: n})``, ``json.dumps({...: count})``, through the one local it is
    bound to in its function), or None."""
    from .engine import _FUNCTIONS, _around

    for _ in range(MAX_FOLLOW):
        if node is None or isinstance(node, Unsure):
            return None
        if node.type not in f.lang.names and node.type != "identifier":
            break
        fn = _around(f, node, _FUNCTIONS)
        found = [
            d
            for d in _descendants(fn, MAX_WALK)
            if d.type == "variable_declarator" and text(d.child_by_field_name("name")) == text(node)
        ] if fn is not None else []  # fmt: skip
        bound = _bound_once(f, node) if not found else None
        if len(found) == 1:
            bound = found[0].child_by_field_name("value")
        node = bound
    if node is None:
        return None
    for d in _descendants(node, MAX_WALK):
        pair = (
            _pair(f, d)
            if d.type != "pair"
            else (_key_text(f, d.child_by_field_name("key")), d.child_by_field_name("value"))
        )
        if pair is not None and pair[1] is not None and key(pair[0]) == "maxreceivecount":
            v = evaluate(pair[1], f)
            return v.value if v.kind == "int" and not isinstance(v.value, bool) else None
    return None


def _descendants(node, limit: int):
    out, todo = [], [node]
    while todo and len(out) < limit:
        n = todo.pop()
        out.append(n)
        todo.extend(reversed(n.named_children))
    return out


def _unknown_target(written: dict) -> bool:
    policy = written.get("RedrivePolicy", (None,))[0]
    return isinstance(policy, str) or (isinstance(policy, dict) and not policy.get("deadLetterTargetArn"))


def _js_written(f: File, use, lit, entries: list) -> list:
    """JavaScript/TypeScript: ``entries`` of the object literal ``lit`` the name ``use`` is bound to, with the writes of one of
    its keys between the binding and ``use`` in the same function (``attrs.FifoQueue = "true"``,
    ``attrs["K"] = v``): one in the binding's block is applied, one under a guard is an :class:`Unsure` entry (read
    per call site, :func:`_decided`), one elsewhere (a loop, a callback) not known."""
    if f.lang.name not in ("javascript", "typescript", "tsx") or use.type != "identifier":
        return entries
    from .engine import _FUNCTIONS, _around

    declarator = f.parent(lit) if lit is not None else None
    if declarator is None or declarator.type != "variable_declarator":
        return entries
    if text(declarator.child_by_field_name("name")) != text(use):
        return entries
    decl = f.parent(declarator)
    home = f.parent(decl) if decl is not None else None
    fn = _around(f, use, _FUNCTIONS)
    if home is None or not _same(_around(f, decl, _FUNCTIONS), fn):
        return entries
    out = list(entries)
    pattern = re.compile(rb"(?<![\w$.])" + re.escape(text(use).encode()) + rb"(?![\w$])")
    for m in itertools.islice(pattern.finditer(f.data, decl.end_byte, use.start_byte), MAX_USES):
        occ = f.root.descendant_for_byte_range(m.start(), m.end())
        if occ is None or (occ.start_byte, occ.end_byte) != m.span() or occ.type != "identifier":
            continue
        member = f.parent(occ)
        if member is None or member.type not in ("member_expression", "subscript_expression"):
            continue
        if not _same(member.child_by_field_name("object"), occ):
            continue
        top = f.parent(member)
        if (
            top is None
            or top.type != "assignment_expression"
            or not _same(top.child_by_field_name("left"), member)
        ):
            continue
        prop = member.child_by_field_name("property") or member.child_by_field_name("index")
        if prop is None:
            continue
        if member.type == "subscript_expression":
            if prop.type != "string":
                return out  # a key the code computes: left as read (the object's literal)
            k = _key_text(f, prop)
        else:
            k = text(prop)
        value = top.child_by_field_name("right")
        stmt = f.parent(top)
        if stmt is None or value is None:
            continue
        why = f"written at line {stmt.start_point[0] + 1}"
        if _same(f.parent(stmt), home):
            entry = value
        elif _same(_around(f, stmt, _FUNCTIONS), fn):
            entry = Unsure(stmt, why, value, home, next((b for a, b in out if key(a) == key(k)), None))
        else:
            entry = Unsure(stmt, why)
        out = [(a, b) for a, b in out if key(a) != key(k)] + [(k, entry)]
    return out[:MAX_FIELDS]


def _decided(f: File, unsure: Unsure):
    """The value node of an entry written under a condition (``if fifo: attrs["FifoQueue"] = "true"``), when the
    site pinned now decides it: the write's value when its guards hold, None when one is false; else the
    :class:`Unsure` entry itself (computed). Only ``if`` guards between the write and the block the map is bound in
    are read (a loop, a ``try``, another function: not known)."""
    from .engine import _FUNCTIONS

    if unsure.home is None or unsure.value is None:
        return unsure
    child, up = unsure.node, f.parent(unsure.node)
    for _ in range(64):
        if _same(up, unsure.home):
            return unsure.value
        repeats = up.type in _REPEATS and (up.type != "block" or f.lang.name == "ruby")
        if up is None or up.type in _FUNCTIONS or repeats or up.type.startswith("try"):
            return unsure
        test = _guard_of(f, up, child)
        if test is not None:
            cond, runs_when = test
            holds = _condition(f, cond, up)
            if holds is None:
                return unsure
            if holds != runs_when:  # not written for this site: what was there before it
                return _decided(f, unsure.before) if isinstance(unsure.before, Unsure) else unsure.before
        elif up.type not in _BLOCKS:
            return unsure
        child, up = up, f.parent(up)
    return unsure


# what may stand between a guarded write and its guard (a block, the ``else`` around its body, an ``elif``)
_BLOCKS = {
    "block", "statement_block", "expression_statement", "else_clause", "elif_clause", "if_statement",
    "parenthesized_expression", "assignment", "augmented_assignment", "assignment_expression", "call",
    "call_expression",
}  # fmt: skip


def _target(f: File, url, created: list) -> str | None:
    """The created queue a SetQueueAttributes call's QueueUrl is: the result of its create call (through names
    bound once), or the queue its URL's last segment names."""
    from .engine import url_object

    node = url
    for _ in range(MAX_FOLLOW + 1):
        while node.type in f.lang.wrappers and node.named_children:  # &url, (url)
            node = node.named_children[-1]
        obj = url_object(node, f) if f.lang.name != "python" else None
        if obj is not None:  # out.QueueUrl, out.queueUrl(): the result it is a field of
            node = obj
            continue
        for site, name, _ in created:
            if node.start_byte <= site.start_byte and site.end_byte <= node.end_byte:
                return name
        if node.type not in f.lang.names:
            break
        bound = _bound_once(f, node)
        if bound is None:
            break
        node = bound
    v = evaluate(url, f)
    if v.kind == "env" and v.default is not None:
        v = v.default
    if v.kind == "str":
        last = v.value.rstrip("/").rsplit("/", 1)[-1]
        return next((name for _, name, _ in created if name == last), None)
    return None


FIX = (
    "Write the queue's name and attributes where the call is (a literal, or a constant of the file), or declare the "
    "queue in the infrastructure code linted in the same run (a declared queue is the one the consumers are judged "
    "against), or give the deployed queues: --queues-from INVENTORY_DIR or --queues-from aws."
)


def _note(r: Reader, message: str, node) -> None:
    """One note at ``node`` (once), with the fix that says how to tell visguard the queue."""
    before = len(r.result.notes)
    r.note(message, node)
    for n in r.result.notes[before:]:
        n.fix = FIX


def _at(r: Reader, node) -> str:
    loc = r.loc(node)
    return f"{loc.file}:{loc.line}"


def _node(v):
    """The syntax node of an entry's value (an :class:`Unsure` entry's write)."""
    return v.node if isinstance(v, Unsure) else v


def _attribute(f: File, api: str, node, known=()):
    """An attribute's value: a number, a string, a bool, a dict (a RedrivePolicy the code writes as a map), or
    ``<computed: ...>`` (a RedrivePolicy: the policy with its literal maxReceiveCount, when one is written, and
    its dead-letter queue when the policy's expression reaches exactly one create call of this file: the ARN
    GetQueueAttributes gives for the URL that create returned, :func:`_created_in`)."""
    if isinstance(node, Unsure):  # written in a branch: it may or may not be set (so nothing is judged)
        return f"<computed: {node.why}>"
    v = evaluate(node, f)
    if v.kind == "env" and v.default is not None:
        v = v.default
    if v.kind in ("int", "str", "bool"):
        return v.value
    if api == "RedrivePolicy":
        written = _policy_written(f, node)
        if written is not None:  # json.dumps({...}) of a dict the code writes (in place or bound to a name)
            if written["deadLetterTargetArn"] is None and known:  # its target the ARN a create's queue gives
                dlq = _created_in(f, node, known)
                written["deadLetterTargetArn"] = f"{_CREATED}{dlq}" if dlq else None
            return written
        m, n = _COUNT.search(text(node)[:2000]), node
        for _ in range(MAX_FOLLOW):  # ``redrive = {...}.to_json`` bound before: its literal count
            n = _bound_once(f, n) if m is None and n is not None else None
            if n is None:
                break
            m = _COUNT.search(text(n)[:2000])
        dlq = _created_in(f, node, known) if known else None
        return {
            "deadLetterTargetArn": f"{_CREATED}{dlq}" if dlq else None,
            "maxReceiveCount": int(m.group(1)) if m else None,
        }
    return f"<computed: {v.why or shown(node)}>"


_DUMPS = ("json.dumps", "JSON.stringify", "JSON.generate", "json.Marshal", "json_encode")


def _policy_written(f: File, node) -> dict | None:
    """The RedrivePolicy ``json.dumps(policy)`` writes (``JSON.stringify``, ``JSON.generate``, ``json_encode``) when
    ``policy`` is a dict the code writes, in place or bound once: {"deadLetterTargetArn": its ARN when a literal,
    "maxReceiveCount": its number when a literal}; None for any other expression (the caller reads it as before)."""
    call = node if node is not None and node.type in f.lang.calls else None
    fn = call.child_by_field_name("function") if call is not None else None
    if fn is None or text(fn) not in _DUMPS:
        return None
    args = call.child_by_field_name(f.lang.calls[call.type])
    kids = [k for k in args.named_children if k.type != "comment"] if args is not None else []
    v = evaluate(kids[0], f) if len(kids) == 1 else None
    if v is None or v.kind != "dict" or not isinstance(v.value, dict):
        return None
    pairs = {str(k).lower(): n for k, n in v.value.items()}
    out = {"deadLetterTargetArn": None, "maxReceiveCount": None}
    target = pairs.get("deadlettertargetarn")
    t = evaluate(target, f) if target is not None and not isinstance(target, Value) else target
    if t is not None and t.kind == "str" and t.value.startswith("arn:"):
        out["deadLetterTargetArn"] = t.value
    count = pairs.get("maxreceivecount")
    c = evaluate(count, f) if count is not None and not isinstance(count, Value) else count
    if c is not None and c.kind in ("int", "str") and str(c.value).strip().isdigit():
        out["maxReceiveCount"] = int(str(c.value).strip())
    return out if out["deadLetterTargetArn"] or out["maxReceiveCount"] is not None else None


_CREATED = "\x00created:"  # a dead-letter target that is a queue this file creates (no written ARN has it)
MAX_WALK = 400  # nodes looked at when following a policy's expression to the create calls it reaches


def _known_sites(f: File, r: Reader, sites: dict) -> list:
    """(create site, queue id, the name's expression) of each create call of ``f`` that is a queue of it."""
    from visguard.linter import created_queues

    out = []
    for _, entry in sorted(sites.items()):
        fields, where = _request(f, entry)
        node = fields.get("name") if fields else None
        v = evaluate(node, f) if node is not None else None
        if v is not None and v.kind == "env" and v.default is not None:
            v = v.default
        if v is not None and v.kind == "str" and v.value.strip():
            out.append((entry["site"], v.value.strip(), node))
        elif v is not None and v.kind not in ("env", "none", "str") and entry.get("name") is not node:
            out.append((entry["site"], created_queues.unnamed_id(r.loc(where)), node))
    return out


def _created_in(f: File, node, known) -> str | None:
    """The one queue created in this file that ``node``'s expression reaches: a create call written in it, or in
    the expression a name of it is bound to (once), and so on (``dlq_arn = get_queue_attributes(QueueUrl=dlq_url,
    ...)["Attributes"]["QueueArn"]`` with ``dlq_url = create_queue(QueueName="jobs-dlq")["QueueUrl"]``); None
    when it reaches none, or more than one (never a guess between two). At most MAX_WALK nodes, names followed
    MAX_FOLLOW deep."""
    found: set[str] = set()
    todo, seen, walked = [(node, 0)], set(), 0
    names: dict | None = None  # a create's name expression's binding -> its queue ids (GetQueueUrl of it)
    while todo and walked < MAX_WALK:
        n, depth = todo.pop()
        # (a wrapper and the one expression in it span the same bytes)
        key = (n.start_byte, n.end_byte, n.type)
        if key in seen:
            continue
        seen.add(key)
        walked += 1
        found.update(
            name
            for site, name, *_ in known
            if n.start_byte <= site.start_byte and site.end_byte <= n.end_byte
        )
        if n.type in ("pair", "keyword_argument") and f.parent(n) is not None:
            # ``get_queue_url(queue_name: dlq_name)``: the queue a create of this file made from that name
            k = n.child_by_field_name("key") or n.child_by_field_name("name")
            value = n.child_by_field_name("value")
            if k is not None and value is not None and _key(f, k) in _NAME_KEYS:
                if names is None:
                    names = {}
                    for _, qid, expr in known:
                        names.setdefault(identity(f, expr) or ("text", text(expr)), set()).add(qid)
                v = evaluate(value, f)
                ident = ("literal", v.value.strip()) if v.kind == "str" else identity(f, value)
                hit = names.get(ident) if ident is not None and ident[0] != "literal" else None
                if ident is not None and ident[0] == "literal":
                    hit = {qid for _, qid, _ in known if qid == ident[1]}
                if hit:
                    found.update(hit)
                    continue
        if n.type in f.lang.names and known:
            # f"arn:aws:sqs:{region}:{account}:{dlq_name}": the ARN built from the binding a create's name is
            if names is None:
                names = {}
                for _, qid, expr in known:
                    names.setdefault(identity(f, expr) or ("text", text(expr)), set()).add(qid)
            ident = identity(f, n)
            hit = names.get(ident) if ident is not None else None
            if hit:
                found.update(hit)
                continue
        bound = _bound_once(f, n) if depth < MAX_FOLLOW else None
        if bound is not None:
            todo.append((bound, depth + 1))
            continue
        todo.extend((c, depth) for c in n.named_children)
    return found.pop() if len(found) == 1 else None


def _bound_once(f: File, node):
    """The expression the name at ``node`` is bound to once in this file, or None (not a name, a parameter, bound
    twice). JavaScript's names are its scopes' (javascript._Scopes: one declaration, never assigned again)."""
    for _ in range(8):  # Go's literal_element, (x): the expression inside
        if node.type not in f.lang.wrappers or len(node.named_children) != 1:
            break
        node = node.named_children[0]
    if node.type in f.lang.names:
        bound = f.resolve(node)[0]
        if bound is None:
            let = _let(f, node)
            return let[1] if let is not None else None
        return bound
    if node.type == "identifier" and f.lang.name in ("javascript", "typescript", "tsx"):
        from .javascript import _js, _strip

        js = _js(f)
        decls = js.decls.get(text(node), [])
        if len(decls) == 1 and text(node) not in js.assigned:
            return _strip(decls[0][0].child_by_field_name("value"))
    return None


def _link_created_dlqs(r: Reader) -> None:
    """A created queue whose policy names another queue this file creates (reached from its create call, or by
    the name a literal ARN ends in: ``arn:aws:sqs:eu-west-3:123456789012:jobs-dlq``): its dead-letter queue is
    that one."""
    ids = {q.id for q in r.result.queues}
    for q in r.result.queues:
        ref = q.redrive.target_ref if q.redrive is not None else None
        if isinstance(ref, str) and ref.startswith(_CREATED):
            name = ref[len(_CREATED) :]
            q.redrive.target_ref = name
            q.redrive.target = name if name in ids and name != q.id else None
        elif isinstance(ref, str) and ref.startswith("arn:") and ref.count(":") == 5 and ":sqs:" in ref:
            name = ref.rsplit(":", 1)[1]
            if name in ids and name != q.id:
                q.redrive.target = name


# ------------------------------------------------------------------------------------------------ requests
def _call_site(f: File, token) -> dict | None:
    """The create site whose callee ends with ``token`` (``sqs.create_queue``, ``new CreateQueueCommand``): the call
    and what its arguments hold, per language (see the module docstring); None when ``token`` is not a callee."""
    if f.lang.name == "kotlin":  # its calls have no fields: kotlin.py reads the request
        from .kotlin import create_site

        return create_site(f, token)
    call = token
    for _ in range(3):
        call = f.parent(call)
        if call is None or call.type in _CALLS:
            break
    if call is None or call.type not in _CALLS:
        return None
    callee = next((n for n in map(call.child_by_field_name, _CALLEES) if n is not None), None)
    args = call.child_by_field_name("arguments")
    if callee is None or args is None or callee.end_byte != token.end_byte:
        return None
    kids = [k for k in args.named_children if k.type not in ("comment", "line_comment", "block_comment")]
    lang = f.lang.name
    # aws-sdk-sqs: client.create_queue() and its chain (rusoto's request literal is a builder site)
    if lang == "rust":
        return {"site": call, "rust": token} if not kids else None
    if lang in ("python", "ruby", "go"):  # keyword arguments; Go: the argument that is the input
        return {"site": call, "input": args}
    if not kids:
        return None
    first = kids[0]
    if lang == "java":
        if first.type == "lambda_expression":  # createQueue(b -> b.queueName(..)...)
            return {"site": call, "chain": first.child_by_field_name("body")}
        if len(kids) == 1 and first.type in (
            "string_literal",
            "identifier",
            "field_access",
            "binary_expression",
        ):
            return {"site": call, "name": first}  # createQueue("name") (a request variable is skipped)
        return None
    return {"site": call, "input": first}


_CALLS = {"call", "call_expression", "new_expression", "method_invocation", "invocation_expression",
          "member_call_expression"}  # fmt: skip
_CALLEES = ("function", "constructor", "name", "method")


def _request(f: File, entry: dict):
    """({"name": node, "attributes": node, "entries": [(key, node)]}, the node the queue is located at), or
    (None, None) for a site that is not a request visguard reads."""
    site = entry["site"]
    if "rust" in entry:
        return _rust_chain(f, site)[0], entry["rust"]
    if "kotlin" in entry:
        return entry["kotlin"], site
    # rusoto: CreateQueueRequest { queue_name, attributes, .. }
    if "builder" in entry and entry["builder"].type == "struct_expression":
        fields = _fields(f, entry["builder"])
        return (fields, site) if fields else (None, None)
    if "builder" in entry:
        return _chain(f, entry["builder"], upward=True)
    if "chain" in entry:
        fields, _ = _chain(f, entry["chain"], upward=False)
        return fields, site
    if "name" in entry:
        return {"name": entry["name"]}, site
    node = entry.get("input")
    if node is None:
        return None, None
    if f.lang.name == "go":  # CreateQueue(ctx, &sqs.CreateQueueInput{...}): the argument that is the input
        for arg in node.named_children:
            fields = _fields(f, arg)
            if fields:
                return fields, site
        return None, None
    if f.lang.name == "csharp":
        v = evaluate(node, f)
        if v.kind == "str":  # CreateQueueAsync("name")
            return {"name": node}, site
    fields = _fields(f, node)
    return (fields, site) if fields is not None else (None, None)


def _fields(f: File, node, depth: int = 0) -> dict | None:
    """The request's fields written at ``node`` (followed through a name bound once), None when it is none."""
    entries = _entries(f, node, depth)
    if entries is None:
        return None
    out: dict = {}
    for k, v in entries:
        k = key(k)
        if isinstance(v, Unsure):
            continue  # a field a branch may write: not read (a name not known is no queue)
        if k in _NAME_KEYS:
            out.setdefault("name", v)
        elif k in _ATTRIBUTE_KEYS:
            out.setdefault("attributes", v)
    return out


def _entries(f: File, node, depth: int = 0) -> list[tuple[str, object]] | None:
    """The (key text, value node) entries of the map, object, argument list or initializer at ``node``; None when
    it is not one (a call, a parameter)."""
    if node is None or depth > MAX_FOLLOW:
        return None
    lang, t = f.lang.name, node.type
    if lang in ("javascript", "typescript", "tsx"):  # its scopes and object literals are the hook's
        v = evaluate(node, f)
        if v.kind == "obj" and isinstance(v.value, dict):
            return [(k, n) for k, n in v.value.items() if n is not None][:MAX_FIELDS]
        return None
    if (
        t in ("argument", "literal_element", "parenthesized_expression", "unary_expression")
        and node.named_children
    ):
        return _entries(f, node.named_children[-1], depth)
    if lang == "rust":
        got = _rust_entries(f, node, depth)
        if got is not False:
            return got
    if t == "composite_literal":  # Go: T{...}
        body = node.child_by_field_name("body")
        return _entries(f, body, depth) if body is not None else None
    if t in f.lang.names:
        bound, where = f.resolve(node)
        if bound is None:
            return None
        entries = _entries(f, bound, depth + 1)
        return _written_after(f, node, where, entries) if entries is not None else None
    out: list[tuple[str, object]] = []
    for child in node.named_children[:MAX_FIELDS]:
        pair = _pair(f, child)
        if pair is not None:
            out.append(pair)
    if t == "method_invocation" and text(node.child_by_field_name("name")) in ("of", "ofEntries"):
        args = node.child_by_field_name("arguments")
        kids = [k for k in args.named_children if k.type != "comment"] if args is not None else []
        if text(node.child_by_field_name("name")) == "of":
            return [(text(kids[i]), kids[i + 1]) for i in range(0, len(kids) - 1, 2)][:MAX_FIELDS]
        out = []
        for e in kids:
            inner = e.child_by_field_name("arguments")
            two = [k for k in inner.named_children if k.type != "comment"] if inner is not None else []
            if len(two) == 2:
                out.append((text(two[0]), two[1]))
        return out
    if t == "object_creation_expression":  # C#: new X { A = 1 }, new Dictionary<..> { {k, v} }
        init = node.child_by_field_name("initializer")
        return _entries(f, init, depth) if init is not None else None
    if t in _MAPS or out:
        return out
    return None


_MAPS = {  # the node kinds whose children are a request's or a map's entries
    "field_initializer_list", "argument_list", "dictionary", "hash", "arguments", "array_creation_expression",
    "composite_literal",
    "literal_value", "initializer_expression",
}  # fmt: skip


def _pair(f: File, node) -> tuple[str, object] | None:
    """(key text, value node) of one entry of a map or argument list, None for another child."""
    t = node.type
    if t in ("keyword_argument", "pair", "keyed_element", "field_initializer"):  # Python, Ruby, Go, Rust
        k = node.child_by_field_name("name") or node.child_by_field_name("key")
        v = node.child_by_field_name("value")
        if k is None or v is None:
            kids = node.named_children
            if len(kids) != 2:
                return None
            k, v = kids
        return _key_text(f, k), v
    if t == "array_element_initializer" and len(node.named_children) == 2:  # PHP 'K' => v
        k, v = node.named_children
        return _key_text(f, k), v
    if t == "assignment_expression":  # C#: A = v, [K] = v
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        return (_key_text(f, left), right) if left is not None and right is not None else None
    if t == "initializer_expression" and len(node.named_children) == 2:  # C#: { K, v }
        k, v = node.named_children
        return _key_text(f, k), v
    return None


def _key_text(f: File, node) -> str:
    """A key's text: a string literal's content, else the text as written (a constant, an enum member)."""
    if node.type in ("literal_element",) and node.named_children:
        node = node.named_children[-1]
    rust_string = f.lang.name == "rust" and node.type == "call_expression"  # "VisibilityTimeout".to_string()
    v = evaluate(node, f) if node.type in f.lang.strings or rust_string else None
    return v.value if v is not None and v.kind == "str" else text(node)[:200]


def _chain(f: File, start, upward: bool):
    """A builder chain's fields: from its start (``CreateQueueRequest.builder()``, ``new CreateQueueRequest(n)``)
    up through the calls on it, or (``upward=False``) down from its last call (a lambda's body), and the node the
    queue is located at (the chain's last call)."""
    calls = []
    if upward:
        node = start
        for _ in range(64):
            up = f.parent(node)
            if up is None:
                break
            obj = up.child_by_field_name("object") if up is not None else None
            if (
                up.type != "method_invocation"
                or obj is None
                or (obj.start_byte, obj.end_byte)
                != (
                    node.start_byte,
                    node.end_byte,
                )
            ):
                break
            calls.append(up)
            node = up
        top = node
    else:
        node, top = start, start
        for _ in range(64):
            if node is None or node.type != "method_invocation":
                break
            calls.append(node)
            node = node.child_by_field_name("object")
    out: dict = {"entries": []}
    if start.type == "object_creation_expression":  # new CreateQueueRequest("name")
        args = start.child_by_field_name("arguments")
        kids = [k for k in args.named_children if k.type != "comment"] if args is not None else []
        if kids:
            out["name"] = kids[0]
    for call in calls:
        name = text(call.child_by_field_name("name"))
        args = call.child_by_field_name("arguments")
        kids = [k for k in args.named_children if k.type != "comment"] if args is not None else []
        k = key(name.removeprefix("with"))
        if k in _NAME_KEYS and kids:
            out.setdefault("name", kids[0])
        elif k in _ATTRIBUTE_KEYS and kids:
            out.setdefault("attributes", kids[0])
        elif k == "addattributesentry" and len(kids) == 2:
            out["entries"].append((text(kids[0]), kids[1]))
    return out, top


# ------------------------------------------------------------------------------------------------ Rust
def _rust_chain(f: File, call) -> tuple[dict, object]:
    """The fields of an aws-sdk-sqs builder chain on ``call`` (``client.create_queue()``): ``queue_name(n)``,
    ``attributes(K, V)`` (each an entry), ``set_attributes(Some(map))``; and the node its ``queue_url(u)`` passes
    (a SetQueueAttributes chain's queue), or None."""
    from .rust import _some, up_chain

    out: dict = {"entries": []}
    url = None
    for _, name_node, args in up_chain(f, call):
        method = text(name_node)
        if method in ("queue_name", "set_queue_name") and args:
            out.setdefault("name", _some(args[0]) if method.startswith("set_") else args[0])
        elif method == "attributes" and len(args) == 2:
            out["entries"].append((text(args[0]), args[1]))
        elif method == "set_attributes" and args:
            out.setdefault("attributes", _some(args[0]))
        elif method in ("queue_url", "set_queue_url") and args and url is None:
            url = _some(args[0]) if method.startswith("set_") else args[0]
    return out, url


_RUST_NEW_MAP = re.compile(r"^(?:std::collections::)?(?:HashMap|BTreeMap)::(?:new|with_capacity)$")
MAX_INSERTS = 200  # `attrs.insert(K, V)` calls read for one map


def _rust_entries(f: File, node, depth: int):
    """Rust's maps: ``Some(m)``, ``HashMap::from([(K, V), ..])`` (and ``BTreeMap``), ``[(K, V), ..]
    .into_iter().collect()``, rusoto's ``CreateQueueRequest { .. }``, and a name bound once to ``HashMap::new()``
    whose entries are its ``name.insert(K, V)`` calls in the file; False for another node (the generic reading)."""
    from .rust import _some

    t = node.type
    if text(node) == "None":  # rusoto's `attributes: None`: none given
        return []
    if t == "struct_expression":
        body = node.child_by_field_name("body")
        return _entries(f, body, depth) if body is not None else None
    if t == "reference_expression" and node.named_children:
        return _entries(f, node.named_children[-1], depth)
    if t == "identifier":
        bound, _ = f.resolve(node)
        if bound is not None and bound.type == "call_expression":
            fn = text(bound.child_by_field_name("function"))
            if _RUST_NEW_MAP.match(fn):
                return _inserts(f, text(node))
        return _entries(f, bound, depth + 1) if bound is not None else None
    if t != "call_expression":
        return False
    inner = _some(node)
    if inner is not node:
        return _entries(f, inner, depth)
    fn = node.child_by_field_name("function")
    args = node.child_by_field_name("arguments")
    kids = [k for k in args.named_children if k.type not in ("line_comment", "block_comment")] if args else []
    name = text(fn)
    array = None
    if re.match(r"^(?:std::collections::)?(?:HashMap|BTreeMap)::from$", name) and len(kids) == 1:
        array = kids[0]
    elif (
        fn is not None
        and fn.type == "field_expression"
        and text(fn.child_by_field_name("field")) == "collect"
    ):
        obj = fn.child_by_field_name("value")  # [(K, V)].into_iter().collect()
        for _ in range(3):
            if obj is None or obj.type != "call_expression":
                break
            inner_fn = obj.child_by_field_name("function")
            obj = inner_fn.child_by_field_name("value") if inner_fn is not None else None
        array = obj
    if array is None or array.type != "array_expression":
        return None
    out = []
    for pair in array.named_children[:MAX_FIELDS]:
        two = [k for k in pair.named_children if k.type not in ("line_comment", "block_comment")]
        if pair.type == "tuple_expression" and len(two) == 2:
            out.append((_key_text(f, two[0]), two[1]))
    return out


def _inserts(f: File, name: str) -> list:
    """``(K, V)`` of each ``name.insert(K, V)`` call of the file (its map built up after ``HashMap::new()``)."""
    out = []
    needle = re.compile(rb"\b" + re.escape(name.encode()) + rb"\s*\.\s*insert\b")
    for m in itertools.islice(needle.finditer(f.data), MAX_INSERTS):
        token = f.root.descendant_for_byte_range(m.end() - len("insert"), m.end())
        if token is None or token.type != "field_identifier":
            continue
        fe = f.parent(token)
        call = f.parent(fe) if fe is not None else None
        if call is None or call.type != "call_expression":
            continue
        args = call.child_by_field_name("arguments")
        kids = (
            [k for k in args.named_children if k.type not in ("line_comment", "block_comment")]
            if args
            else []
        )
        if len(kids) == 2:
            out.append((_key_text(f, kids[0]), kids[1]))
    return out


# ------------------------------------------------------------------------------- a map built up after it is bound
# ``attributes = {"VisibilityTimeout": "30"}`` then ``attributes["RedrivePolicy"] = policy`` (Ruby also
# ``attributes[:k] = v``, ``.merge!(..)``, ``.update(..)``, ``.store(k, v)``; Python ``.update(..)``,
# ``.setdefault(k, v)``), then the map passed to a create or SetQueueAttributes call: the map's entries are the
# literal's and those writes. A write is followed only while it is sound:
# - a write that is a statement of the very block the map is bound in, between the binding and the use (in the
#   order written), is applied; after the use it does not matter (when the use is in the binding's function);
# - a write of a literal key anywhere else (inside a branch, a loop, a block, another method) makes that key's value
#   not known (``<computed: ...>``: no rule judges it, a RedrivePolicy's target is not known);
# - any other use of the map (passed to a method not known to only read it, aliased, a write whose key is computed,
#   ``||=``) makes the whole map not known, as a map visguard cannot read.
MAX_USES = 200  # occurrences of a map's name looked at; more: the map is not known
_REPEATS = {  # what may run its body again: loops, blocks (Ruby ``each do``, ``{ }``), comprehensions
    "for_statement", "while_statement", "for", "while", "until", "do_block", "block", "list_comprehension",
    "dictionary_comprehension", "set_comprehension", "generator_expression", "lambda",
}  # fmt: skip


class Unsure:
    """An entry whose value is not known (a write of its key in a branch): ``node`` is where it is written."""

    __slots__ = ("node", "why", "value", "home", "before")

    def __init__(self, node, why: str, value=None, home=None, before=None):
        # value: the value node it writes; home: the block the map is bound in, when the write is before the use
        # in its function (a guard between them may be decided for a call site: :func:`_decided`); before: the
        # entry's value when the write does not run (None: no entry)
        self.node, self.why, self.value, self.home, self.before = node, why, value, home, before


# per language: the subscript node (its object field), the method-call shape, and the methods of a map
_SHAPES = {
    "ruby": {
        "subscript": ("element_reference", "object"),
        "reads": {"[]", "fetch", "key?", "has_key?", "include?", "to_json", "to_h", "to_a", "to_s", "inspect",
                  "dup", "clone", "merge", "each", "each_pair", "map", "keys", "values", "any?", "empty?", "size",
                  "length", "count", "dig", "select", "reject", "transform_keys", "transform_values", "frozen?",
                  "freeze", "slice", "except"},
        "set": {"store"},
        "merge": {"merge!", "update"},
        "delete": {"delete"},
        "clear": {"clear"},
    },
    "python": {
        "subscript": ("subscript", "value"),
        "reads": {"get", "copy", "items", "keys", "values", "__contains__"},
        "set": set(),
        "setdefault": {"setdefault"},
        "merge": {"update"},
        "delete": {"pop"},
        "clear": {"clear"},
    },
}  # fmt: skip


def _block(f: File, stmt):
    """The statement list ``stmt`` is a statement of (Python's ``expression_statement`` seen through)."""
    up = f.parent(stmt)
    if up is not None and up.type == "expression_statement":
        up = f.parent(up)
    return up


def _same(a, b) -> bool:
    return (
        a is not None
        and b is not None
        and (a.start_byte, a.end_byte, a.type) == (b.start_byte, b.end_byte, b.type)
    )


def _written_after(f: File, use, where, entries: list):
    """``entries`` of the map bound at ``where`` (the name's node at its binding) as they are at ``use``, with the
    writes of the name between (see above); None when the map is not known there."""
    shapes = _SHAPES.get(f.lang.name)
    if shapes is None or where is None or not hasattr(where, "start_byte"):
        return entries
    binding = f.parent(where)
    home = _block(f, binding) if binding is not None else None
    if home is None:
        return entries
    from .engine import _FUNCTIONS, _around

    fns = _around(f, binding, _FUNCTIONS), _around(f, use, _FUNCTIONS)
    same_fn = fns == (None, None) or _same(*fns)
    # a use inside a loop (or a block) the binding is not in runs again after the writes that follow it there
    end, n = use.start_byte, f.parent(use)
    for _ in range(64):
        if n is None:
            break
        if n.type in _REPEATS and not (n.start_byte <= binding.start_byte < n.end_byte):
            end = max(end, n.end_byte)
        n = f.parent(n)
    name = text(where).encode()
    pattern = re.compile(rb"(?<![\w$@:])" + re.escape(name) + rb"(?![\w?!])")
    out = list(entries)
    uses = 0
    for m in pattern.finditer(f.data, binding.end_byte):
        if m.start() >= end and same_fn:
            break
        if use.start_byte <= m.start() < use.end_byte:
            continue
        occ = f.root.descendant_for_byte_range(m.start(), m.end())
        if occ is None or (occ.start_byte, occ.end_byte) != m.span() or occ.type not in f.lang.names:
            continue  # in a string, a comment, a symbol, a longer name
        uses += 1
        if uses > MAX_USES:
            return None
        what = _write(f, occ, shapes)
        if what is None:
            continue  # a read
        kind, stmt, k, v = what
        if kind == "unknown":
            return None
        straight = m.start() < use.start_byte and _same(_block(f, stmt), home)
        keys = None
        if kind in ("set", "setdefault", "delete"):
            if k is None or k.type not in (*f.lang.strings, "simple_symbol"):
                return None  # a key the code computes: any entry may be it
            keys = [(_key_text(f, k).lstrip(":"), v)]
        elif kind == "merge":
            keys = _entries(f, k)
            if keys is None:
                return None
        if not straight:  # in a branch, a loop, another method: what it writes may or may not be there
            why = f"written at line {stmt.start_point[0] + 1}"
            decidable = m.start() < use.start_byte and same_fn and kind in ("set", "merge")
            for kt, vt in keys or [("*", None)]:
                if kind == "clear":
                    return None
                before = next((b for a, b in out if key(a) == key(kt)), None)
                unsure = Unsure(stmt, why, vt, home, before) if decidable else Unsure(stmt, why)
                out = [(a, b) for a, b in out if key(a) != key(kt)] + [(kt, unsure)]
            continue
        if kind == "clear":
            out = []
            continue
        for kt, vt in keys:
            present = any(key(a) == key(kt) for a, _ in out)
            if kind == "setdefault" and present:
                continue
            out = [(a, b) for a, b in out if key(a) != key(kt)]
            if kind != "delete":
                out.append((kt, vt))
    return out[:MAX_FIELDS]


_NOT_THE_NAME = {"call": ("method",), "attribute": ("attribute",), "keyword_argument": ("name",)}


def _write(f: File, occ, shapes: dict):
    """What the occurrence ``occ`` of a map's name does to it: None (a read), or (kind, its statement, key or
    argument node, value node): ``set``, ``setdefault``, ``merge``, ``delete``, ``clear``, or ``unknown``."""
    up = f.parent(occ)
    if up is None:
        return ("unknown", occ, None, None)
    for field in _NOT_THE_NAME.get(up.type, ()):
        if _same(up.child_by_field_name(field), occ):
            return None  # ``x.attributes``, ``attributes=v``: a method or keyword of that name, not the map
    sub, obj_field = shapes["subscript"]
    if up.type == sub and _same(up.child_by_field_name(obj_field), occ):
        top = f.parent(up)
        kids = [k for k in up.named_children if not _same(k, occ) and k.type != "comment"]
        index = up.child_by_field_name("subscript") or (kids[0] if len(kids) == 1 else None)
        if (
            top is not None
            and top.type in ("assignment", "operator_assignment", "augmented_assignment")
            and _same(top.child_by_field_name("left"), up)
        ):
            if top.type != "assignment":
                return ("unknown", top, None, None)  # ||=, +=: not followed
            return ("set", top, index, top.child_by_field_name("right"))
        if top is not None and top.type == "delete_statement":
            return ("delete", top, index, None)
        return None  # x['K']: a read
    call, method = None, None
    if f.lang.name == "ruby" and up.type == "call" and _same(up.child_by_field_name("receiver"), occ):
        call, method = up, text(up.child_by_field_name("method"))
    elif up.type == "attribute" and _same(up.child_by_field_name("object"), occ):
        top = f.parent(up)
        if top is not None and top.type == "call" and _same(top.child_by_field_name("function"), up):
            call, method = top, text(up.child_by_field_name("attribute"))
        else:
            return ("unknown", up, None, None)
    if call is None:
        if up.type in (
            "interpolation",
            "string",
            "binary",
            "comparison_operator",
            "boolean_operator",
            "unary",
        ):
            return None  # read in a string or a test
        return ("unknown", up, None, None)  # passed to a method, aliased, returned: anything may write it
    if method in shapes["reads"]:
        return None
    args = call.child_by_field_name("arguments")
    kids = [k for k in args.named_children if k.type != "comment"] if args is not None else []
    if method in shapes["merge"]:
        if len(kids) == 1 and kids[0].type in ("hash", "dictionary"):
            return ("merge", call, kids[0], None)
        if kids and all(k.type in ("pair", "keyword_argument") for k in kids):
            return ("merge", call, args, None)
        return ("unknown", call, None, None)
    if method in shapes["set"] | shapes.get("setdefault", set()) and len(kids) == 2:
        return ("setdefault" if method in shapes.get("setdefault", ()) else "set", call, kids[0], kids[1])
    if method in shapes["delete"] and len(kids) == 1:
        return ("delete", call, kids[0], None)
    if method in shapes["clear"] and not kids:
        return ("clear", call, None, None)
    return ("unknown", call, None, None)


# ----------------------------------------------------------------------------- queues whose name is not known
# ``queue = "test-#{SecureRandom.uuid}"`` then ``create_queue(queue_name: queue)``: the queue is declared at the
# call (created_queues.unnamed_id). Nothing joins it by a name; a reference of this file reaches it only through
# the very binding its name is (the same name bound once, or the same parameter of the same function): a consumer
# whose queue is that expression (``Shoryuken.add_queue(queue, 1, 'default')``), a GetQueueUrl of that name.


def identity(f: File, node):
    """What ``node`` (a queue's name as written) is bound to, compared between two places of ``f``: ("bound", its
    binding's place) for a name bound once (or the one assignment that reaches it), ("param", the parameter, its
    function) for a parameter; None for anything else (a literal, a call, a computed string: not one binding)."""
    if node is None or node.type not in f.lang.names:
        return None
    k = f.key(node)
    if f.is_param(k, node.start_byte):
        from .engine import _FUNCTIONS, _around

        fn = _around(f, node, _FUNCTIONS)
        return ("param", k, fn.start_byte) if fn is not None else None
    right, where = f.resolve(node)
    if right is None or not hasattr(where, "start_byte"):
        let = _let(f, node)
        return ("let", k, let[0].start_byte) if let is not None else None
    return ("bound", k, where.start_byte)


_LETS = {
    "let",
    "let!",
}  # RSpec: ``let(:queue) { "test-#{SecureRandom.hex}" }`` defines ``queue`` for each example


def _let(f: File, node):
    """(the ``let`` call, its block's value) that the bare name at ``node`` is in a Ruby file with exactly one
    ``let(:name)`` (or ``let!``) of that name; else None (two may be of two example groups: never a guess)."""
    if f.lang.name != "ruby" or node.type != "identifier" or f.parent(node) is None:
        return None
    up = f.parent(node)
    if up.type == "call" and not _same(up.child_by_field_name("receiver"), node):
        return None  # x.queue, queue(1): a method call, not the bare name
    name = text(node).encode()
    found = []
    for m in re.finditer(rb"\blet!?\s*\(\s*:" + re.escape(name) + rb"(?![\w?!])", f.data):
        token = f.root.descendant_for_byte_range(m.start(), m.start() + 3)
        call = f.parent(token) if token is not None else None
        if call is None or call.type != "call" or text(call.child_by_field_name("method")) not in _LETS:
            continue
        block = call.child_by_field_name("block")
        body = block.child_by_field_name("body") if block is not None else None
        kids = [k for k in body.named_children if k.type != "comment"] if body is not None else []
        if not kids:
            return None
        found.append((call, kids[-1]))
        if len(found) > 1:
            return None
    return found[0] if found else None


def _link_by_binding(f: File, r: Reader, unnamed: list, created: list) -> None:
    """Each consumer of ``f`` whose queue expression is not known reads a queue this file creates when that
    expression is the binding an unnamed create's name is, or the URL a create call returned (through names bound
    once: ``url = create_queue(...)["QueueUrl"]``, :func:`_target`); its note that the queue is computed is
    dropped. Two candidates: none is picked."""
    from .engine import QueueRef

    by = {}
    for node, qid in unnamed:
        ident = identity(f, node)
        if ident is not None:
            by.setdefault(ident, set()).add(qid)
    for c, node, notes in r.computed_queues:
        if c.queue_ref is not None:
            continue
        ident = identity(f, node)
        qids = set(by.get(ident, ())) if ident is not None else set()
        made = _target(f, node, created)
        if made is not None:
            qids.add(made)
        if len(qids) != 1:
            continue  # two creates of one binding: which one it reads is not said (never a guess)
        r.link(c, QueueRef("id", qids.pop(), r.loc(node)))
        r.result.notes = [n for n in r.result.notes if all(n is not x for x in notes)]


def _key(f: File, node) -> str:
    """A pair's or keyword argument's key as compared (:func:`key` of its text)."""
    return key(_key_text(f, node).lstrip(":"))


# ------------------------------------------------------------------ a helper that creates the queue it is given
# ``def create_test_queue(name, attributes: {}) sqs.create_queue(queue_name: name, attributes: attributes) end``
# (a file of the package, often a test helper), called as ``create_test_queue(dlq_name)``: each call of it is a
# queue created at the helper's create call, with the name and attributes that call passes (a parameter's default
# when it passes none). The queue is read in the calling file (its consumers, its dead-letter queue are there):
# located at the helper's create call (one declaration: the findings of its queues are one per rule there,
# ``linter.api``), its name and attributes at the call (where they are given, and where a missing one is written:
# ``locations["attributes"]``). A call with a splat, or more arguments than the method takes, is not read.
MAX_HELPERS = 20  # helper methods taken from the package
MAX_HELPER_CALLS = 200  # calls of helpers read in one file
_DEFS = {  # language -> (function node, its parameter kinds: positional, keyword (name, default field))
    "ruby": ("method", {"identifier": "pos", "optional_parameter": "pos", "keyword_parameter": "kw"}),
    "python": ("function_definition", {"identifier": "pos", "default_parameter": "pos", "typed_parameter": "pos",
                                       "typed_default_parameter": "pos"}),
}  # fmt: skip


def helpers(h: File) -> list[dict]:
    """The methods of ``h`` whose body makes a create call whose queue name is one of their parameters:
    {"name", "params": [(key, "pos"|"kw", default node or None)], "file", "site", "fields"}."""
    shape = _DEFS.get(h.lang.name)
    if shape is None or _SQS.search(h.data) is None:
        return []
    from .engine import _FUNCTIONS, _around

    out = []
    for _, caps in h.matches:
        for token in caps.get("create.call", ()):
            entry = _call_site(h, token)
            if entry is None:
                continue
            fields, _ = _request(h, entry)
            name = fields.get("name") if fields else None
            if name is None or name.type not in h.lang.names:
                continue
            fn = _around(h, entry["site"], _FUNCTIONS)
            if fn is None or fn.type != shape[0] or _around(h, fn, _FUNCTIONS) is not None:
                continue  # a method of a method, a block: not one called by its name
            params = _params(h, fn, shape)
            if not params or text(name) not in [k for k, _, _ in params]:
                continue
            if h.lang.name == "python" and params[0][0] in ("self", "cls"):
                continue  # a method called on an object: not by its name alone
            out.append({
                "name": text(fn.child_by_field_name("name")), "params": params, "file": h,
                "site": entry["site"], "fields": fields,
            })  # fmt: skip
            if len(out) >= MAX_HELPERS:
                return out
    return out


def _params(h: File, fn, shape) -> list | None:
    """[(name, "pos"|"kw", default node or None)] of the function ``fn``; None when a splat or a block
    parameter is among them (its calls are not read)."""
    params = []
    plist = fn.child_by_field_name("parameters")
    keyword_only = False  # Python: the parameters after a bare `*` are passed by keyword only
    for p in plist.named_children if plist is not None else ():
        if p.type == "keyword_separator" and h.lang.name == "python":
            keyword_only = True
            continue
        kind = shape[1].get(p.type)
        if keyword_only and kind == "pos":
            kind = "kw"
        if kind is None:
            return None
        pname = p if p.type == "identifier" else (p.child_by_field_name("name") or p.named_children[0])
        params.append((text(pname), kind, p.child_by_field_name("value")))
    return params


# ``def set_redrive(source_url, dlq_arn, count=3): sqs.set_queue_attributes(QueueUrl=source_url, Attributes={
# "RedrivePolicy": json.dumps({...})})`` called as ``set_redrive(slow_url, arn, 5)`` with the URL a create (a
# helper's) returned: each call sets the attributes of the queue its URL is, read with the call pinned (its
# maxReceiveCount). Python and Ruby (the languages whose helpers are read by their calls: :func:`_instances`);
# JavaScript's are read per call site in the helper's own file (:func:`_site_targets`).
def _set_helpers(h: File) -> list[dict]:
    """The functions of ``h`` whose SetQueueAttributes call's QueueUrl is one of their parameters: {"name",
    "params", "file", "site", "url", "entries"}."""
    shape = _DEFS.get(h.lang.name)
    if shape is None or _SET.search(h.data) is None:
        return []
    from .engine import _FUNCTIONS, _around

    out = []
    for m in itertools.islice(_SET.finditer(h.data), MAX_SET_SITES):
        token = h.root.descendant_for_byte_range(m.start(), m.end())
        if token is None or (token.start_byte, token.end_byte) != m.span():
            continue
        entry = _call_site(h, token)
        node = entry.get("input") if entry is not None else None
        if node is None or "rust" in entry:
            continue
        fields = [(k, v) for k, v in (_entries(h, node) or []) if not isinstance(v, Unsure)]
        url = next((v for k, v in fields if key(k) in _URL_KEYS), None)
        attrs = next((v for k, v in fields if key(k) in _ATTRIBUTE_KEYS), None)
        entries = _entries(h, attrs) if attrs is not None else None
        fn = _around(h, entry["site"], _FUNCTIONS)
        if url is None or not entries or fn is None or fn.type != shape[0]:
            continue
        params = _params(h, fn, shape)
        if not params or text(url) not in [k for k, _, _ in params] or params[0][0] in ("self", "cls"):
            continue
        out.append({
            "name": text(fn.child_by_field_name("name")), "params": params, "file": h, "site": entry["site"],
            "url": url, "entries": entries,
        })  # fmt: skip
    return out


def _set_by_helpers(f: File, r: Reader, created: list, known: list) -> dict:
    """{queue id: the attributes} the calls of ``f`` of the package's SetQueueAttributes helpers set on the
    queues ``f`` creates (above)."""
    from .engine import FLOW

    if f.lang.name not in _DEFS or not created:
        return {}
    found = _set_helpers(f)
    if FLOW.offered and f.path is not None:
        for g in FLOW.files_with(f, ("set_queue_attributes",)):
            found += _set_helpers(g)
            if len(found) >= MAX_HELPERS:
                break
    names = {n for _, n, _ in created}
    changes: dict = {}
    for hc in _helper_calls(f, found[:MAX_HELPERS]):
        helper, call = hc["helper"], hc["call"]
        h = helper["file"]
        passed = hc["args"].get(text(helper["url"]))
        with _helper_pinned(f, helper, call):
            # the URL the call passes: the result of a create of this file (through names bound once), or the
            # queue the URL's value names
            last = _target(f, passed[0], created) if passed is not None and passed[1] is f else None
            if last is None:
                v = evaluate(helper["url"], h)
                if v.kind not in ("name", "str") or not isinstance(v.value, str):
                    continue
                last = v.value.strip().rstrip("/").rsplit("/", 1)[-1]
            if last not in names:
                continue
            for k, value_node in helper["entries"]:
                api = _ATTRIBUTES.get(key(k))
                if api is None:
                    continue
                value = _attribute(h, api, value_node, ())
                if isinstance(value, dict) and value.get("maxReceiveCount") is None:
                    value = {**value, "maxReceiveCount": _site_count(h, value_node)}
                changes.setdefault(last, {})[api] = (value, r.loc(call))
    if any(_unknown_target(w) for w in changes.values()):
        # a dead-letter queue not read: it may be any other queue created here, whose own redrive is then not
        # judged (as :func:`_set_sites`)
        for n in names - set(changes):
            at = r.loc(created[0][0])
            changes[n] = {
                "RedrivePolicy": (f"<computed: perhaps a dead-letter queue of {found[0]['name']}>", at)
            }
    return changes


def _package_helpers(f: File) -> list[dict]:
    """The helpers of ``f`` itself and of the other files of its package that create queues."""
    from .engine import FLOW

    found = helpers(f)
    if FLOW.offered and f.path is not None:
        for g in FLOW.files_with(f, ("create_queue",)):
            found += helpers(g)
            if len(found) >= MAX_HELPERS:
                break
    return found[:MAX_HELPERS]


def _helper_calls(f: File, found: list[dict]) -> list[dict]:
    """Each call in ``f`` of a helper of ``found`` by its name (not the helper's own create call): {"helper",
    "call", "args": {param: (node, the File it is of)}}."""
    out = []
    for helper in found:
        pattern = re.compile(rb"(?<![\w.:@$])" + re.escape(helper["name"].encode()) + rb"(?![\w?!])")
        for m in pattern.finditer(f.data):
            if len(out) >= MAX_HELPER_CALLS:
                return out
            token = f.root.descendant_for_byte_range(m.start(), m.end())
            if token is None or (token.start_byte, token.end_byte) != m.span():
                continue
            call = f.parent(token)
            if call is None or call.type != "call":
                continue
            if f.lang.name == "ruby":
                if call.child_by_field_name("receiver") is not None or not _same(
                    call.child_by_field_name("method"), token
                ):
                    continue
            elif not _same(call.child_by_field_name("function"), token):
                continue
            if (
                helper["file"] is f
                and helper["site"].start_byte >= call.start_byte
                and (helper["site"].end_byte <= call.end_byte)
            ):
                continue
            args = _bind_args(f, call, helper)
            if args is not None:
                out.append({"helper": helper, "call": call, "args": args})
    return out


def _bind_args(f: File, call, helper: dict) -> dict | None:
    """{parameter: (node, File)}: what ``call`` passes each parameter, else its default (of the helper's file)."""
    a = call.child_by_field_name("arguments")
    kids = [k for k in a.named_children if k.type != "comment"] if a is not None else []
    if len(kids) == 1 and kids[0].type == "hash" and any(kind == "kw" for _, kind, _ in helper["params"]):
        kids = list(kids[0].named_children)  # Ruby: the keywords written as one hash
    pos, kw = [], {}
    for k in kids:
        if k.type in ("pair", "keyword_argument"):
            key_node = k.child_by_field_name("key") or k.child_by_field_name("name")
            kw[_key_text(f, key_node).strip(":")] = k.child_by_field_name("value")
        elif k.type in ("splat_argument", "hash_splat_argument", "list_splat", "dictionary_splat",
                        "block_argument"):  # fmt: skip
            return None
        else:
            pos.append(k)
    params = helper["params"]
    positional = [p for p in params if p[1] == "pos"]
    if len(pos) > len(positional):
        return None  # another method of that name
    out = {}
    for i, (k, _kind, default) in enumerate(positional):
        if i < len(pos):
            out[k] = (pos[i], f)
        elif k in kw and f.lang.name == "python":
            out[k] = (kw.pop(k), f)
        elif default is not None:
            out[k] = (default, helper["file"])
    for k, kind, default in params:
        if kind != "kw":
            continue
        if k in kw:
            out[k] = (kw.pop(k), f)
        elif default is not None:
            out[k] = (default, helper["file"])
    if kw:
        return None  # a keyword the method does not take: another method
    return out


def _helper_location(h: File, node):
    from visguard.linter.model import Location

    row, col = node.start_point
    return Location(h.path or "<code>", line=row + 1, column=col + 1)


_HELPERS: dict = {}  # (run, project folder, ending, a test's) -> the package's helpers (read once per run)


def _instances(f: File, r: Reader) -> list[dict]:
    """The calls of ``f`` of the package's helpers, each with what it passes: {"call", "helper", "id", "name",
    "name_node", "name_file", "attrs": (node, File) or None}."""
    import os

    from visguard.linter import created_queues

    from .engine import FLOW, is_test

    if f.lang.name not in _DEFS:
        return []
    if FLOW.offered and f.path is not None:
        k = (FLOW.run, FLOW.root(f.path), os.path.splitext(f.path)[1], is_test(f.path))
        found = _HELPERS.get(k)
        if found is None:
            if len(_HELPERS) > 64:
                _HELPERS.clear()
            found = _HELPERS[k] = _package_helpers(f)
        found = [h for h in found if h["file"].path != f.path] + helpers(f)
    else:
        found = helpers(f)
    if not found:
        return []
    out = []
    for hc in _helper_calls(f, found):
        helper, args = hc["helper"], hc["args"]
        h, fields = helper["file"], helper["fields"]
        params = {k for k, _, _ in helper["params"]}
        got = args.get(text(fields["name"]))
        if got is None:
            continue
        name_node, name_file = got
        attrs = fields.get("attributes")
        if attrs is not None and attrs.type in h.lang.names and text(attrs) in params:
            attrs = args.get(text(attrs))
            if attrs is None:
                continue  # a required parameter not passed: another method
        elif attrs is not None:
            attrs = (attrs, h)
        if _helper_unreached(f, helper, hc["call"]):
            continue  # `if existing: return existing` before the create, and this call gives one
        v = evaluate(name_node, name_file)
        if v.kind == "env" and v.default is not None:
            v = v.default
        if v.kind in ("env", "none") or (v.kind == "str" and not v.value.strip()):
            continue
        name = v.value.strip() if v.kind == "str" else None
        qid = name if name is not None else created_queues.unnamed_id(r.loc(hc["call"]))
        out.append({
            "call": hc["call"], "helper": helper, "id": qid, "name": name, "name_node": name_node,
            "name_file": name_file, "attrs": attrs,
        })  # fmt: skip
    return out


def _helper_unreached(f: File, helper: dict, call) -> bool:
    """Whether the helper's create does not run for ``call``: a guard around it false with the call pinned
    (:func:`_unreached`, Python's ``if existing: return existing else: create``)."""
    from .engine import _FUNCTIONS, FLOW, _around

    h = helper["file"]
    fn = _around(h, helper["site"], _FUNCTIONS)
    sig = h.lang.signature(fn, h) if fn is not None and h.lang.signature else None
    got = f.lang.call_args(call, f) if f.lang.call_args else None
    if sig is None or got is None or got[2]:
        return False
    with FLOW.pinned(h, fn, sig, (f, call, got[0], got[1])):
        return _unreached(h, helper["site"])


def _helper_pinned(f: File, helper: dict, call):
    """A context in which the helper's parameters are what ``call`` passes (engine.Flow.pinned), or a context
    that pins nothing when its arguments are not read (a splat)."""
    import contextlib

    from .engine import _FUNCTIONS, FLOW, _around

    h = helper["file"]
    fn = _around(h, helper["site"], _FUNCTIONS)
    sig = h.lang.signature(fn, h) if fn is not None and h.lang.signature else None
    got = f.lang.call_args(call, f) if f.lang.call_args else None
    if sig is None or got is None or got[2]:
        return contextlib.nullcontext()
    return FLOW.pinned(h, fn, sig, (f, call, got[0], got[1]))


def _instance_attributes(f: File, r: Reader, i: dict, known: list) -> dict | None:
    """The attributes a call of a helper creates its queue with, read with the call pinned (its values, the writes
    under guards it decides: :func:`_decided`), each located where its value is written; None (a note) when the
    map is not read."""
    helper, call = i["helper"], i["call"]
    at = r.loc(call)

    def loc(node, g):
        return r.loc(node) if g is f else _helper_location(g, node)

    attributes: dict = {}
    if i["attrs"] is None:
        return attributes
    node, g = i["attrs"]
    entries = _entries(g, node)
    if entries is None:
        _note(
            r,
            f"the queue {i['name'] or shown(i['name_node'])} created by the call of {helper['name']} at "
            f"{at.file}:{at.line} was not read: its attributes are computed ({shown(node)})",
            call,
        )
        return None
    for k, value_node in entries:
        api = _ATTRIBUTES.get(key(k))
        if api is None:
            continue
        where = loc(_node(value_node), g)
        if isinstance(value_node, Unsure):
            value_node = _decided(g, value_node)
            if value_node is None:
                continue  # its write does not run for this call
        v = evaluate(value_node, g) if g is not f and not isinstance(value_node, Unsure) else None
        if v is not None and v.kind in ("int", "str", "bool") and v.node is not None:
            h = v.file or next((x for x in (f, g) if _holds(x, v.node)), None)
            if h is not None:
                where = loc(v.node, h)  # built in the helper: where this call's value is written
        attributes[api] = (_attribute(g, api, value_node, known if g is f else ()), where)
    return attributes


def _holds(f: File, node) -> bool:
    """Whether ``node`` is a node of ``f``'s tree (a value the flow read from a call site carries no file)."""
    found = f.root.descendant_for_byte_range(node.start_byte, node.end_byte)
    while found is not None and (found.start_byte, found.end_byte) == (node.start_byte, node.end_byte):
        if found == node:
            return True
        found = found.named_children[0] if found.named_children else None
    return False


def _instance_queue(f: File, r: Reader, i: dict, known: list):
    """The queue a call of a helper creates (see above), or None (a note) when its attributes are not read."""
    from visguard.linter import created_queues

    helper, call = i["helper"], i["call"]
    h = helper["file"]
    at = r.loc(call)

    def loc(node, g):
        return r.loc(node) if g is f else _helper_location(g, node)

    attributes = {}
    with _helper_pinned(f, helper, call):  # the helper's values for this call (``str(visibility or 30)``)
        attributes = _instance_attributes(f, r, i, known)
    if attributes is None:
        return None
    i["attributes"] = attributes
    site = _helper_location(h, helper["site"])
    q, _ = created_queues.code_queue(
        i["name"], site, attributes, by=f"{helper['name']}, called at {at.file}:{at.line}"
    )
    q.id = i["id"]
    q.locations["name"] = loc(i["name_node"], i["name_file"])
    given = i["attrs"] is not None and i["attrs"][1] is f
    given = (
        given and call.start_byte <= i["attrs"][0].start_byte < call.end_byte
    )  # not the parameter's default
    q.locations["attributes"] = r.loc(i["attrs"][0]) if given else at  # where they are, or would be, written
    q.locations["call"] = at  # one of several calls' queues: its findings one per rule (linter.api)
    return q


# ------------------------------------------------------------ a constructor that creates the queue it is given
# ``class Queue: def __init__(self, queue_name, queue_attr=None): ... sqs.create_queue(QueueName=queue_name,
# Attributes=queue_attr)`` called as ``Queue(queue_name="jobs.fifo", queue_attr=ATTRS)`` in several places (the
# name reaching the create through the constructor's parameter, ``self.queue_name``, another method's parameter):
# the create's name is read once per call site of the function of several calls it goes through
# (engine.Flow.sites_of_shared, pinned as Reader.per_call_site pins a receive's), each site a queue located at the
# create call with that site's name and attributes (its name and attributes located at the site). Python,
# JavaScript/TypeScript, Java and Go (the languages whose call sites the engine pins).
#
# A create that runs only when the object is not given its queue (``if self.url is None: self.url =
# create_queue(...)``, ``url or create_queue(...)``, ``if (!this.url) {...}``, ``url ?? await create(...)``, the
# ``else`` of ``if existing:``) is no queue of a call site that gives one: the guard is read with that site pinned
# (:func:`_unreached`), the guarded name's value taken from its assignments outside the guard. A guard whose value
# is not known for the site (an environment variable, a computed expression) leaves the create as if it ran.
# A site whose name or attributes are not read is a note naming it, never a silent pass.
MAX_CTOR_QUEUES = 32  # queues one create call gives this way (engine.MAX_SITES)
_CTOR_LANGS = {"python", "javascript", "typescript", "tsx", "java", "go"}
_DICTS = {"dict", "obj"}  # a literal map (Python's dict, JavaScript's object literal)


def _per_call_site(
    f: File, r: Reader, entry: dict, fields: dict, known: list, seen: set, created: list
) -> bool:
    """Add the queues of ``entry``'s create call read per call site (above); False when its name is not read
    that way (a literal, one call site, calls that all say the same)."""
    if f.lang.name not in _CTOR_LANGS:
        return False
    from visguard.linter import created_queues

    from .engine import FLOW

    name_node, attrs_node = fields.get("name"), fields.get("attributes")
    FLOW.watch()
    v = evaluate(name_node, f)
    if v.kind == "str":
        return False
    shared = FLOW.sites_of_shared(MAX_CTOR_QUEUES)
    if shared is None:
        return False
    got: list = []
    skipped: list = []  # (the outermost call's Location, why its queue is not read)

    def read_attributes(attrs) -> dict | None:
        """The attributes of the site pinned now (their values read with its values: ``String(o.vt ?? 30)``,
        a write under ``if (o.fifo)``), or None when the map is not read."""
        attributes: dict = {}
        if attrs is None:
            return attributes
        g = attrs.file or f
        entries = _entries(g, attrs.node)
        if entries is None:
            return None
        if g is f and attrs_node is not None:
            entries = _js_written(f, attrs_node, attrs.node, entries)
        for k, value_node in entries:
            api = _ATTRIBUTES.get(key(k))
            if api is not None:
                where = r.loc(_node(value_node)) if g is f else _helper_location(g, _node(value_node))
                if isinstance(value_node, Unsure):
                    value_node = _decided(g, value_node)
                    if value_node is None:
                        continue  # its write does not run for this site
                v = evaluate(value_node, g) if not isinstance(value_node, Unsure) else None
                if v is not None and v.kind in ("int", "str", "bool") and v.node is not None:
                    h = v.file or g  # where this site's value is written (its call's literal, the default)
                    where = r.loc(v.node) if h is f else _helper_location(h, v.node)
                attributes[api] = (_attribute(g, api, value_node, known if g is f else ()), where)
        return attributes

    _pin_sites(
        f, shared, entry["site"], name_node, attrs_node, got, skipped, [MAX_CTOR_QUEUES], 0, read_attributes
    )
    if not got and not any(why is None for _, why in skipped):
        return False  # no site read: the create call is read as one
    site = r.loc(entry["site"])
    for at, why in skipped:
        if why is not None:
            _note(r, f"the queue created at {site.file}:{site.line} for the call at {at.file}:{at.line} was "
                     f"not read: {why}", entry["site"])  # fmt: skip
    for name, nv, attrs, at, attributes in got:
        if name in seen:
            continue
        if attributes is None:
            _note(r, f"the queue {name} created at {site.file}:{site.line} for the call at {at.file}:{at.line} "
                     f"was not read: its attributes are computed ({shown(attrs.node)})", entry["site"])  # fmt: skip
            continue
        q, _ = created_queues.code_queue(name, site, attributes, by=f"the call at {at.file}:{at.line}")
        g = nv.file or f
        q.locations["name"] = r.loc(nv.node) if g is f else _helper_location(g, nv.node)
        q.locations["attributes"] = at
        q.locations["call"] = at  # one of several calls' queues: its findings one per rule (linter.api)
        seen.add(name)
        r.result.queues.append(q)
        created.append((entry["site"], name, attributes))
    return True


def _pin_sites(
    f: File, shared, create, name_node, attrs_node, got: list, skipped: list, room: list, depth: int, read
) -> None:
    """Each call site of ``shared`` pinned in turn (nested through another function of several calls): (name,
    its Value, the attributes' Value or None, the outermost call's Location) of each site whose create runs and
    whose name is read; (Location, why) of each site not read, why None when its create does not run."""
    from .engine import FLOW

    g, fn, sig, sites = shared
    for site in sites:
        if room[0] <= 0:
            return
        h, call = site[0], site[1]
        with FLOW.pinned(g, fn, sig, site):
            FLOW.watch()
            if _unreached(f, create):
                skipped.append((_helper_location(h, call), None))
                continue
            FLOW.watch()
            v = evaluate(name_node, f)
            if v.kind == "env" and v.default is not None:
                v = v.default
            if v.kind != "str" or not v.value.strip():
                inner = FLOW.sites_of_shared(room[0]) if depth < 3 else None
                if inner is not None:
                    _pin_sites(f, inner, create, name_node, attrs_node, got, skipped, room, depth + 1, read)
                elif v.kind not in ("none", "env"):  # None: refused; a variable: perhaps a declared queue
                    skipped.append(
                        (_helper_location(h, call), f"its name is computed ({v.why or shown(name_node)})")
                    )
                continue
            a = evaluate(attrs_node, f) if attrs_node is not None else None
            if a is not None and a.kind == "none":
                continue  # Attributes=None is refused by the SDK: no queue
            if a is not None and a.kind not in _DICTS and _entries(f, attrs_node) is not None:
                # a map the reader reads in place (Go, Java: not the hook's)
                a = Value("dict", None, attrs_node)
            if a is not None and a.kind not in _DICTS:
                why = f"its attributes are computed ({a.why or shown(attrs_node)})"
                skipped.append((_helper_location(h, call), why))
                continue
            room[0] -= 1
            got.append((v.value.strip(), v, a, _helper_location(h, call), read(a)))


# the guards read (:func:`_unreached`): the condition's shape -> what it tests of its one operand
_NOT = {"not_operator", "unary_expression"}  # `not x`, `!x`
_NONE_WORDS = {"None", "null", "undefined"}
MAX_GUARDS = 8  # guards around one create call read
# a name, a field (JavaScript's: its hook reads them)
_NAMES = {"identifier", "member_expression", "attribute"}
_CLASSES = {"class_definition", "class_declaration", "class", "abstract_class_declaration"}


def _unreached(f: File, site) -> bool:
    """Whether the create call ``site`` cannot run for the call site pinned now: a guard around it (up to its
    function) that is false for it (above). Not known: False."""
    from .engine import _FUNCTIONS

    child, up = site, f.parent(site)
    guards = 0
    for _ in range(64):
        if up is None or up.type in _FUNCTIONS or guards >= MAX_GUARDS:
            return False
        test = _guard_of(f, up, child)
        if test is not None:
            guards += 1
            cond, runs_when = test
            holds = _condition(f, cond, up)
            if holds is not None and holds != runs_when:
                return True
        child, up = up, f.parent(up)
    return False


def _guard_of(f: File, up, child):
    """(condition, the value it has when ``child`` runs) when ``up`` runs ``child`` only on a condition: an
    ``if``'s branch (its ``else``: the condition false), ``x or create()`` / ``x || create()`` / ``x ??
    create()`` (x nothing), ``a if c else b`` / ``c ? a : b``; else None."""
    kind = up.type
    if kind in ("if_statement", "elif_clause"):
        cond = up.child_by_field_name("condition")
        if cond is None or child.id == cond.id:
            return None
        cons = up.child_by_field_name("consequence")
        return (cond, cons is not None and child.id == cons.id)
    if kind in ("boolean_operator", "binary_expression"):
        op = text(up.child_by_field_name("operator")).strip()
        left, right = up.child_by_field_name("left"), up.child_by_field_name("right")
        if right is None or left is None or child.id != right.id:
            return None
        if op in ("or", "||"):
            return (left, False)
        if op in ("and", "&&"):
            return (left, True)
        if op == "??":
            return (("nullish", left), False)
        return None
    if kind == "conditional_expression":  # Python: a if c else b
        kids = up.named_children
        if len(kids) == 3 and child.id != kids[1].id:
            return (kids[1], child.id == kids[0].id)
        return None
    if kind == "ternary_expression":  # JavaScript: c ? a : b
        cond = up.child_by_field_name("condition")
        if cond is None or child.id == cond.id:
            return None
        cons = up.child_by_field_name("consequence")
        return (cond, cons is not None and child.id == cons.id)
    return None


def _condition(f: File, cond, stmt) -> bool | None:
    """The value of the guard ``cond`` (of the statement ``stmt``) for the call site pinned now, when it tests
    whether one name is given: ``x``, ``not x``/``!x``, ``x is None``, ``x is not None``, ``x == None``, ``x ===
    null``/``undefined``, ``x != null``, ``typeof``-free forms only; None when not known."""
    if isinstance(cond, tuple):  # `x ?? y`: whether x is null or undefined
        given = _given(f, cond[1], stmt)
        return None if given is None else given[0]
    while cond.type == "parenthesized_expression" and cond.named_children:
        cond = cond.named_children[0]
    if cond.type in _NOT:
        arg = cond.child_by_field_name("argument") or (
            cond.named_children[-1] if cond.named_children else None
        )
        op = text(cond.child_by_field_name("operator")).strip() if cond.type == "unary_expression" else "not"
        if arg is None or op not in ("not", "!"):
            return None
        truth = _truthy(f, arg, stmt)
        return None if truth is None else not truth
    if cond.type in ("comparison_operator", "binary_expression"):
        kids = [k for k in cond.named_children if k.type != "comment"]
        ops = " ".join(text(c) for c in cond.children if not c.is_named)
        if cond.type == "binary_expression":
            ops = text(cond.child_by_field_name("operator")).strip()
        if len(kids) != 2 or ops not in ("is", "is not", "==", "!=", "===", "!=="):
            return None
        name, other = kids
        if text(name) in _NONE_WORDS:
            name, other = other, name
        if text(other) not in _NONE_WORDS:
            return None
        given = _given(f, name, stmt)
        if given is None:
            return None
        exists, _ = given
        if ops in ("===", "!==") and f.lang.name != "python":  # strict: null and undefined differ
            return None
        return (not exists) if ops in ("is", "==", "===") else exists
    truth = _truthy(f, cond, stmt)
    return truth


def _given(f: File, node, stmt) -> tuple[bool, object] | None:
    """(whether the value of ``node`` is something, not None/null/undefined; its Value) for the call site
    pinned now, or None when not known."""
    if node.type not in f.lang.names and node.type not in f.lang.members and node.type not in _NAMES:
        return None
    absent = _absent_key(f, node)
    if absent is not None:
        return (False, absent)
    v = _guarded_value(f, node, stmt)
    if v is None or v.kind in ("unknown", "env", "bad"):
        return None
    return (v.kind != "none", v)


def _absent_key(f: File, node):
    """JavaScript: a ``Value("none")`` (undefined) for ``o.k`` when ``o`` is, for the site pinned now, an object
    literal that writes no ``k`` and spreads nothing (``createQueue(name, { visibilityTimeout: 120 })`` read as
    ``options.fifo``); else None."""

    if f.lang.name not in ("javascript", "typescript", "tsx") or node.type != "member_expression":
        return None
    obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
    if obj is None or prop is None or text(obj) == "this":
        return None
    o = evaluate(obj, f)
    lit = o.node
    if o.kind != "obj" or not isinstance(o.value, dict) or o.mark == "open" or lit is None:
        return None
    if lit.type != "object" or any(c.type != "pair" for c in lit.named_children if c.type != "comment"):
        return None  # a spread, a shorthand, a method: another key may be there
    if text(prop) in o.value:
        return None
    return Value("none", None, node)


def _truthy(f: File, node, stmt) -> bool | None:
    given = _given(f, node, stmt)
    if given is None:
        return None
    exists, v = given
    if not exists:
        return False
    if v.kind == "str":
        return v.value != ""
    if v.kind == "int":
        return v.value != 0
    if v.kind == "bool":
        return bool(v.value)
    if v.kind in ("list", "dict"):
        return bool(v.value) if f.lang.name == "python" else True
    if v.kind == "obj":
        return True
    return None


def _guarded_value(f: File, node, stmt):
    """The value of the guarded name ``node`` before the guard ``stmt`` runs: its one assignment outside
    ``stmt`` (a field set by the constructor, then by the guarded create) when it has exactly one, else its
    value as read at ``node`` (a parameter: what the pinned call passes)."""
    from .engine import _FUNCTIONS, _around

    bound = list(f.bindings.get(f.key(node), {}).values())
    scope = _around(f, stmt, _CLASSES if node.type in f.lang.members else _FUNCTIONS)
    if scope is not None:  # a field of this class, a local of this function
        bound = [(n, right) for n, right in bound if scope.start_byte <= n.start_byte < scope.end_byte]
    outside = [(n, right) for n, right in bound if not (stmt.start_byte <= n.start_byte < stmt.end_byte)]
    if len(outside) < len(bound):
        if len(outside) == 1 and outside[0][1] is not None:
            if f.is_param(text(node), node.start_byte) and node.type in f.lang.names:
                return None  # a parameter reassigned: which reaches is the parameter's or this one's
            return evaluate(outside[0][1], f)
        if outside or node.type not in f.lang.names or not f.is_param(text(node), node.start_byte):
            return None
    return evaluate(node, f)
