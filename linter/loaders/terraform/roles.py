"""A Terraform role that is the consumer of a workload deployed elsewhere (issue 35 §5): which ``aws_iam_role`` /
``awscc_iam_role`` blocks to read at all, and whether anything of the configuration uses the role.

A root reads roles only for a task definition (``consumers.NEEDED_BY``). A role an ECS task or a Kubernetes pod
may assume, granted receiving from a queue of the root and used by nothing of it, is also a consumer: the
workload that assumes it is deployed by another tool (ecspresso, Copilot, a Helm chart) and consumes the queue.
Deciding that costs nothing for a root without such a role: before anything is evaluated, the trust policy's
text as written (:func:`may_be_workload`) must name one of :data:`WORKLOAD_TRUST`.

"Used by nothing" cannot be known from the resources the loader evaluates (only the types of ``build.ARGS``):
an ``aws_lambda_function.role``, an ``aws_iam_instance_profile.role`` or a ``depends_on`` are never evaluated.
:func:`used` therefore reads the text of every file of the module that declares the role (once per module:
:func:`_index`): any mention of the role's address (``aws_iam_role.worker``, with an index or an attribute after
it), or of its name as a string on a line that names a role (``role = "render"``,
``"arn:aws:iam::1:role/render"``; not a queue's ``name = "render"``), outside the role's own block, its outputs
and the blocks that only bind it (:data:`BINDERS`) is a use. A mention in an output of a child module is
followed to the caller: a mention there of that output (``module.roles.worker_arn``, or of the whole module) is a
use, one in the root's outputs is not (handed to the tool that deploys the workload). A module with a file that
could not be read, a module call's argument, a local, a provider, a comment, ``moved`` / ``import`` blocks and
more than :data:`MAX_MENTIONS` mentions all count as a use: when unsure, no consumer.

Binders: the policies and attachments of the role (they grant it; they deploy nothing), an EKS Pod Identity
association and a Kubernetes service account (``kubernetes_service_account``'s IRSA annotation): they say which
pods may assume the role, but the pods themselves are in manifests or charts visguard does not read with this
root, so the role stays the consumer of a workload deployed elsewhere.
"""

from __future__ import annotations

import json
import re

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time (start-up)
if TYPE_CHECKING:
    from .hcl import Block
    from .scope import Scope

ROLE_TYPES = ("aws_iam_role", "awscc_iam_role")
# the trust argument, per role type
TRUST_ARG = {"aws_iam_role": "assume_role_policy", "awscc_iam_role": "assume_role_policy_document"}
# a trust policy naming one of these may be a workload's (consumers.role_platform decides on the value)
WORKLOAD_TRUST = ("ecs-tasks.amazonaws.com", "pods.eks.amazonaws.com", "AssumeRoleWithWebIdentity")
# resources that only grant the role or say who may assume it: not a use
BINDERS = frozenset(
    (
        "aws_iam_role_policy",
        "aws_iam_role_policy_attachment",
        "aws_iam_policy_attachment",
        "aws_iam_role_policies_exclusive",
        "aws_iam_role_policy_attachments_exclusive",
        "aws_eks_pod_identity_association",
        "kubernetes_service_account",
        "kubernetes_service_account_v1",
        "awscc_iam_role_policy",
        "awscc_eks_pod_identity_association",
    )
)
_DOC = re.compile(r"data\.aws_iam_policy_document\.([A-Za-z_][\w-]*)")
_USED, _OWN, _OUTPUT = "used", "own", "output"
MAX_MENTIONS = 1000  # mentions of one role (or one output) read


def text_of(attr) -> str:
    """An argument as written (a JSON-syntax value: its JSON)."""
    if attr.src is None:
        return ""
    expr = attr.expr
    if hasattr(expr, "start_byte"):
        return attr.src.slice(expr)
    return json.dumps(getattr(expr, "value", None), default=str)


def block_text(block: Block) -> str:
    """A block's lines as written."""
    if block.src is None or block.line is None:
        return ""
    lines = block.src.text.split("\n")
    return "\n".join(lines[block.line - 1 : block.end_line or block.line])


def may_be_workload(scope: Scope, block: Block, rtype: str) -> bool:
    """Whether the trust policy of a role block, as written, names an ECS task, a pod (Pod Identity) or a web
    identity (IRSA), directly or in the ``data "aws_iam_policy_document"`` it names: nothing is evaluated."""
    attr = block.attrs.get(TRUST_ARG[rtype])
    if attr is None:
        return False
    text = text_of(attr)
    if any(w in text for w in WORKLOAD_TRUST):
        return True
    for name in _DOC.findall(text)[:4]:
        doc = scope.mod.data.get(("aws_iam_policy_document", name))
        if doc is not None and any(w in block_text(doc) for w in WORKLOAD_TRUST):
            return True
    return False


def used(scope: Scope, block: Block, rtype: str, names: list[str]) -> bool:
    """Whether anything of the configuration, other than the role's own block, its bindings and the root's
    outputs, mentions the role (its address in ``scope``'s module, or one of its ``names`` as a string where a
    role is named)."""
    index = _index(scope.mod)
    if index is None:
        return True  # a file not read may use it
    hits = list(index.addresses.get((rtype, block.labels[1]), ()))
    for n in names:
        hits += index.names.get(n, ())
    outs = _classify(scope.mod, hits, block)
    while outs and scope.parent is not None and scope.call is not None:
        call = scope.call.labels[0]
        scope = scope.parent
        index = _index(scope.mod)
        if index is None:
            return True
        # a mention of the call followed by another output is about that output (``module.w.queue``)
        hits = [
            (src, line) for src, line, attr in index.modules.get(call, ()) if attr is None or attr in outs
        ]
        outs = _classify(scope.mod, hits, None)
    return outs is None


class _Index:
    """Where a module's files mention roles (by address, by a name where a role is named) and module calls."""

    __slots__ = ("addresses", "names", "modules")

    def __init__(self):
        self.addresses: dict[tuple[str, str], list] = {}
        self.names: dict[str, list] = {}
        self.modules: dict[str, list] = {}


_ADDRESS = re.compile(r"(?<![\w.\-])(aws_iam_role|awscc_iam_role)\.([A-Za-z_][\w-]*)(?![\w-])")
_MODULE = re.compile(
    r"(?<![\w.\-])module\.([A-Za-z_][\w-]*)(?![\w-])((?:\[[^\]\n]{0,200}\])*\.([A-Za-z_][\w-]*))?"
)
_NAME = re.compile(r"[\"/]([\w+=,.@-]{1,64})\"")
_ROLE_WORD = re.compile(r"role", re.I)


def _index(mod) -> _Index | None:
    """The mentions in ``mod``'s files, found once per module (None: a file of it was not read)."""
    if mod.unread:
        return None
    cached = getattr(mod, "_role_index", None)
    if cached is not None:
        return cached
    index = _Index()
    for src in _sources(mod):
        text, key = src.text, id(src)
        for rx, into in ((_ADDRESS, index.addresses), (_MODULE, index.modules)):
            line, at = 1, 0
            for m in rx.finditer(text):
                line, at = line + text.count("\n", at, m.start()), m.start()
                if rx is _ADDRESS:
                    into.setdefault((m.group(1), m.group(2)), []).append((key, line))
                else:
                    into.setdefault(m.group(1), []).append((key, line, m.group(3)))
        if "ole" not in text and "OLE" not in text:
            continue
        for i, ln in enumerate(text.split("\n"), 1):
            first = _ROLE_WORD.search(ln)
            if first is None:
                continue
            for m in _NAME.finditer(ln, first.start()):
                index.names.setdefault(m.group(1), []).append((key, i))
    mod._role_index = index
    return index


def _classify(mod, hits: list, own: Block | None) -> set[str] | None:
    """The outputs of ``mod`` that hold the mentions ``hits`` (None: one is elsewhere, a use)."""
    if len(hits) > MAX_MENTIONS:
        return None  # not a configuration's: a use, never a guess
    spans = _spans(mod)
    found: set[str] = set()
    for key, line in hits:
        kind, name = _where(spans.get(key, ()), line, own)
        if kind == _USED:
            return None
        if kind == _OUTPUT:
            found.add(name)
    return found


def _sources(mod) -> list:
    seen: dict[int, object] = {}
    for b in getattr(mod, "blocks", ()):
        if b.src is not None:
            seen.setdefault(id(b.src), b.src)
    return list(seen.values())


def _spans(mod) -> dict[int, list]:
    """Per file (its Source's id): (first line, last line, kind, name) of the outputs, binders and roles."""
    cached = getattr(mod, "_role_spans", None)
    if cached is not None:
        return cached
    out: dict[int, list] = {}
    for b in getattr(mod, "blocks", ()):
        if b.src is None or b.line is None:
            continue
        if b.type == "output" and b.labels:
            kind = _OUTPUT
        elif b.type == "resource" and len(b.labels) == 2 and b.labels[0] in BINDERS:
            kind = _OWN
        elif b.type == "resource" and len(b.labels) == 2 and b.labels[0] in ROLE_TYPES:
            kind = b  # the role itself: its own block is no use of it
        else:
            continue
        out.setdefault(id(b.src), []).append((b.line, b.end_line or b.line, kind, b.labels[0]))
    mod._role_spans = out
    return out


def _where(spans, line: int, own) -> tuple[str, str | None]:
    for first, last, kind, name in spans:
        if first <= line <= last:
            if kind == _OUTPUT:
                return _OUTPUT, name
            if kind == _OWN or kind is own:
                return _OWN, None
    return _USED, None


# ---------------------------------------------------------------------------------------------- a plan's configuration
MAX_CONFIG_NODES = 200_000  # values of a plan's configuration walked for one role


def used_in_config(conf: dict, module_address: str, rtype: str, label: str, names: list[str]) -> bool:
    """:func:`used` for a plan JSON: its ``configuration`` (each resource's, module call's, output's and
    provider's expressions and ``references``, ``depends_on``) mentions the role outside its own block, its
    bindings and the root's outputs; a configuration that is not there or not of the expected shape is a use."""
    node = conf.get("root_module")
    nodes, calls = [node], re.findall(r"module\.([A-Za-z0-9_-]+)", module_address)
    for call in calls:
        calls_of = node.get("module_calls") if isinstance(node, dict) else None
        entry = calls_of.get(call) if isinstance(calls_of, dict) else None
        node = entry.get("module") if isinstance(entry, dict) else None
        nodes.append(node)
    if not all(isinstance(n, dict) for n in nodes):
        return True
    token = f"{rtype}.{label}"

    def own(refs: list) -> bool:
        return any(
            isinstance(r, str) and (r == token or r.startswith((token + ".", token + "["))) for r in refs
        )

    budget = [MAX_CONFIG_NODES]
    outs = _config_mentions(nodes[-1], own, names, token, budget)
    level = len(nodes) - 1
    while outs and level > 0:
        level -= 1
        rx = re.compile(rf"^module\.{re.escape(calls[level])}(?:\[[^\]]*\])*(?:\.([A-Za-z_][\w-]*))?")
        found = outs

        def output_of(refs: list, rx=rx, found=found) -> bool:
            # Terraform lists ``module.w.role_arn`` and ``module.w``: the module alone is every output of it
            ms = [m for m in (rx.match(r) for r in refs if isinstance(r, str)) if m is not None]
            attrs = {m.group(1) for m in ms if m.group(1) is not None}
            return bool(attrs & found) if attrs else bool(ms)

        outs = _config_mentions(nodes[level], output_of, [], None, budget)
    if outs is not None and not calls and _walk(conf.get("provider_config"), own, [], budget):
        return True  # a provider of the root assumes it
    return outs is None


def _config_mentions(node: dict, match, names: list[str], own: str | None, budget: list) -> set[str] | None:
    found: set[str] = set()
    resources = node.get("resources")
    for cr in resources if isinstance(resources, list) else []:
        if not isinstance(cr, dict):
            return None
        if cr.get("address") == own or cr.get("type") in BINDERS:
            continue
        if _walk(cr, match, names, budget):
            return None
    calls = node.get("module_calls")
    for call in (calls if isinstance(calls, dict) else {}).values():
        if not isinstance(call, dict):
            return None
        args = {
            k: v for k, v in call.items() if k != "module"
        }  # what the call hands on, not the module itself
        if _walk(args, match, names, budget):
            return None
    outputs = node.get("outputs")
    for name, out in (outputs if isinstance(outputs, dict) else {}).items():
        if _walk(out, match, [], budget):
            found.add(name)
    if budget[0] <= 0:
        return None  # not a configuration's: a use, never a guess
    return found


def _walk(v, match, names: list[str], budget: list, role_key: bool = False) -> bool:
    """Whether ``v`` (a configuration part) holds a reference ``match`` accepts, or one of ``names`` as a
    constant under a key that names a role (``role``, ``role_arn``, ``iam_role_name``)."""
    stack = [(v, role_key)]
    while stack:
        budget[0] -= 1
        if budget[0] <= 0:
            return True
        x, under_role = stack.pop()
        if isinstance(x, dict):
            for k, y in x.items():
                if k in ("references", "depends_on") and isinstance(y, list):
                    if match(y[:MAX_MENTIONS]):
                        return True
                    continue
                stack.append((y, under_role or (isinstance(k, str) and "role" in k.lower())))
        elif isinstance(x, list):
            stack.extend((y, under_role) for y in x[:MAX_CONFIG_NODES])
        elif isinstance(x, str) and under_role and any(x == n or x.endswith("/" + n) for n in names):
            return True
    return False
