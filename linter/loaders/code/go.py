"""SQS consumers in Go: ``sqs.ReceiveMessageInput`` literals of the AWS SDK v2 (and v1).

Where they are is ``languages/go.scm``; this module is the Go entry of the code engine (``engine.py``) and what
a query cannot say. One consumer per ``&sqs.ReceiveMessageInput{...}`` (platform ``sdk``): ``QueueUrl`` (a
literal, a constant or variable of the file bound once, ``os.Getenv("X")``), ``VisibilityTimeout``,
``WaitTimeSeconds``, ``MaxNumberOfMessages``, also when set later as ``input.VisibilityTimeout = N``. SDK v2 does
not send a VisibilityTimeout of 0 on ReceiveMessage (facts.GO_SDK_ZERO_NOT_SENT): a plain ``0`` leaves
``visibility_override`` None and sets ``settings["zero_not_sent"]``; v1's pointer ``aws.Int64(0)`` is sent.
``heartbeat``: True when the file changes visibility (``ChangeMessageVisibilityInput``,
``ChangeMessageVisibility``), else False. A literal cut off by the end of the file (tree-sitter recovers it as
an error holding its type and fields) is read too.
"""

from __future__ import annotations

from visguard import facts

from . import CodeResult, creates
from .engine import RECEIVE_API, File, Language, Reader, evaluate, text

EXTENSIONS = (".go",)

GO = Language(
    "go",
    "go",
    keys={api: field for field, api in RECEIVE_API.items()},
    numbers={"int_literal", "float_literal"},
    strings={"interpreted_string_literal", "raw_string_literal"},
    string_parts={"interpreted_string_literal_content", "raw_string_literal_content", "escape_sequence"},
    names={"identifier"},
    wrappers={"literal_element", "parenthesized_expression"},
    unary={"unary_expression"},
    binary={"binary_expression"},
    calls={"call_expression": "arguments"},
    env_calls={"os.Getenv": (0, None)},
    passthrough={
        "aws.String": None,
        "aws.Int64": "pointer",
        "aws.Int32": "pointer",
        "aws.Int": "pointer",
        "int32": None,
        "int64": None,
        "int": None,
    },  # fmt: skip
)


def read(path: str, data: bytes) -> CodeResult:
    f = File(GO, data)
    r = Reader(path, "go", data, GO)
    inputs: dict[str, object] = {}
    found = [(site.start_byte, site, args, var) for site, _, args, var in f.sites()]
    for err in f.captures("truncated"):
        found.extend(_truncated(err))
    for _, site, args, var in sorted(found, key=lambda x: x[0]):
        c = r.request(site, "sdk", args, lambda c, field, node: _field(r, f, c, field, node))
        if var is not None:
            inputs[text(var)] = c
    for owner, key, value in f.assignments():
        if owner in inputs and key in GO.keys:
            _field(r, f, inputs[owner], GO.keys[key], value)
    heartbeat = bool(f.captures("heartbeat"))
    for c in r.result.consumers:
        c.heartbeat = heartbeat
    creates.read(f, r)  # the queues the code creates (issue 35)
    return r.result


def _truncated(err) -> list:
    """A ReceiveMessageInput literal cut off by the end of the file: its type, then its fields as siblings."""
    out = []
    kids = err.named_children
    for i, k in enumerate(kids):
        if k.type == "qualified_type" and text(k).rsplit(".", 1)[-1] == "ReceiveMessageInput":
            j = i + 1
            while j < len(kids) and kids[j].type == "keyed_element":
                j += 1
            args = []
            for el in kids[i + 1 : j]:
                if len(el.named_children) >= 2 and text(el.named_children[0]) in GO.keys:
                    args.append((GO.keys[text(el.named_children[0])], el.named_children[-1]))
            out.append((k.start_byte, k, args, None))
    return out


def _field(r: Reader, f: File, c, field: str, node) -> None:
    v = evaluate(node, f)
    what = f"ReceiveMessageInput {RECEIVE_API[field]}"
    if field == "queue":
        r.queue(c, v, what)
    elif field == "visibility_override" and v.kind == "int" and v.value == 0 and v.mark != "pointer":
        c.visibility_override = None
        r.set(c, "zero_not_sent", facts.GO_SDK_ZERO_NOT_SENT, v.node)
    else:
        r.number(c, field, v, what)
