"""Every API command the audit prints changes what its finding is about (issue 27 §2): for each rule whose finding
carries structured changes, the queues are created in visguard's SQS engine as the finding describes, the
command's calls are applied (SetQueueAttributes/CreateQueue to the engine; UpdateEventSourceMapping and
UpdateFunctionConfiguration to the mapping and function records, which the engine does not model), the inventory
is read back from the engine and audited again: the finding is gone."""

from __future__ import annotations

import copy
import json

import pytest
from visguard.audit import build, inventory, wording
from visguard.engine import Engine
from visguard.linter.api import lint_model

from . import reference

A, R = "123456789012", "us-east-1"  # the engine's account and region: its ARNs are the inventory's
FN = f"arn:aws:lambda:{R}:{A}:function:fn"
DAY = 86_400


def arn(name: str) -> str:
    return f"arn:aws:sqs:{R}:{A}:{name}"


def rp(target: str, mrc) -> str:
    return json.dumps({"deadLetterTargetArn": arn(target), "maxReceiveCount": mrc})


WORKER = {"visguard:consumer": "worker"}
# rule -> (queues {name: (attributes the engine accepts, attributes only the inventory shows, tags)},
#          the Lambda consumer of "q" as (function timeout, batch size, window, ReportBatchItemFailures) or None)
CASES = {
    "VG001": ({"q-dlq": ({}, {}, {}), "q": ({"RedrivePolicy": rp("q-dlq", 5)}, {"VisibilityTimeout": "50000"}, WORKER)}, None),
    "VG002": ({"q-dlq": ({}, {}, {}), "q": ({}, {"RedrivePolicy": rp("q-dlq", 0)}, WORKER)}, None),
    "VG005": ({"q-dlq": ({}, {}, {}), "q": ({"RedrivePolicy": rp("q-dlq", 5)}, {"MessageRetentionPeriod": "30"}, WORKER)}, None),
    "VG010": ({"q-dlq": ({}, {}, {}), "q": ({"VisibilityTimeout": "100", "RedrivePolicy": rp("q-dlq", 5)}, {}, {})}, (200, 1, 0, True)),
    "VG011": ({"q-dlq": ({}, {}, {}), "q": ({"VisibilityTimeout": "60", "RedrivePolicy": rp("q-dlq", 5)}, {}, {})}, (30, 1, 0, True)),
    "VG012": (
        {"q-dlq": ({}, {}, {}),
         "q": ({"VisibilityTimeout": "60", "RedrivePolicy": rp("q-dlq", 5)}, {},
               {**WORKER, "visguard:processing-p50": "50", "visguard:processing-p99": "200"})},
        None,
    ),
    "VG013": ({"q-dlq": ({}, {}, {}), "q": ({"VisibilityTimeout": "43200", "RedrivePolicy": rp("q-dlq", 5)}, {}, {})}, (10, 1, 0, True)),
    "VG016": ({"q-dlq": ({}, {}, {}), "q": ({"VisibilityTimeout": "0", "RedrivePolicy": rp("q-dlq", 5)}, {}, WORKER)}, None),
    "VG020": ({"q": ({}, {}, WORKER)}, None),
    "VG021": ({"q-dlq": ({}, {}, {}), "q": ({"VisibilityTimeout": "180", "RedrivePolicy": rp("q-dlq", 2)}, {}, {})}, (30, 1, 0, True)),
    "VG022": ({"q-dlq": ({"MessageRetentionPeriod": str(4 * DAY)}, {}, {}), "q": ({"RedrivePolicy": rp("q-dlq", 5)}, {}, WORKER)}, None),
    "VG024": ({"q-dlq": ({}, {}, {}), "q": ({"RedrivePolicy": rp("q-dlq", 1)}, {}, WORKER)}, None),
    "VG030": ({"q-dlq": ({}, {}, {}), "q": ({"VisibilityTimeout": "180", "RedrivePolicy": rp("q-dlq", 5)}, {}, {})}, (30, 100, 0, True)),
    "VG031": ({"q-dlq": ({}, {}, {}), "q": ({"VisibilityTimeout": "180", "RedrivePolicy": rp("q-dlq", 5)}, {}, {})}, (30, 10, 0, False)),
    "VG032": ({"q-dlq": ({}, {}, {}), "q": ({"VisibilityTimeout": "43200", "RedrivePolicy": rp("q-dlq", 5)}, {}, {})}, (1000, 1, 0, True)),
}  # fmt: skip
# VG022 when the source already keeps the 14-day maximum: the DLQ cannot keep longer; the source must keep less
# (the command used to set the DLQ's retention to the 14 days it already had)
CASES["VG022-max"] = (
    {
        "q-dlq": ({"MessageRetentionPeriod": str(14 * DAY)}, {}, {}),
        "q": ({"MessageRetentionPeriod": str(14 * DAY), "RedrivePolicy": rp("q-dlq", 5)}, {}, WORKER),
    },
    None,
)
# FIFO: the new DLQ of VG020 must be a FIFO queue with a .fifo name
CASES["VG020-fifo"] = ({"q.fifo": ({"FifoQueue": "true"}, {}, WORKER)}, None)


class Fleet:
    """Queues in the engine (plus what only the inventory shows), a Lambda mapping and function as records."""

    def __init__(self, queues: dict, lam):
        self.sqs = Engine().client()
        self.urls, self.only_inventory, self.tags = {}, {}, {}
        for name, (attrs, shown, tags) in queues.items():  # DLQs first: a redrive names an existing queue
            attrs = {**attrs, **({"FifoQueue": "true"} if name.endswith(".fifo") else {})}
            self.urls[name] = self.sqs.create_queue(QueueName=name, Attributes=attrs)["QueueUrl"]
            self.only_inventory[name], self.tags[name] = dict(shown), tags
        self.mapping = self.function = None
        if lam is not None:
            timeout, batch, window, rbif = lam
            q = next(n for n in queues if not n.endswith("-dlq"))
            self.mapping = {
                "kind": "mapping", "account": A, "region": R, "uuid": "m-1", "event_source_arn": arn(q),
                "function_arn": FN, "state": "Enabled", "batch_size": batch, "batching_window": window,
                "maximum_concurrency": None, "function_response_types": ["ReportBatchItemFailures"] if rbif else [],
            }  # fmt: skip
            self.function = {
                "kind": "function",
                "account": A,
                "region": R,
                "arn": FN,
                "name": "fn",
                "timeout": timeout,
            }

    def records(self) -> list[dict]:
        out = []
        for name, url in self.urls.items():
            attrs = self.sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
            attrs = {**attrs, **self.only_inventory[name]}
            out.append({"kind": "queue", "account": A, "region": R, "arn": attrs["QueueArn"], "name": name,
                        "attributes": attrs, "tags": self.tags[name]})  # fmt: skip
        return out + [r for r in (self.mapping, self.function) if r is not None]

    def audit(self, tmp_path) -> list[tuple]:
        """(queue, its DLQ, finding) for every finding of the fleet as the audit sees it."""
        root = tmp_path / f"inv{len(list(tmp_path.iterdir()))}"
        lines = [json.dumps(r) for r in self.records()]
        counts = {k: sum(json.loads(x)["kind"] == k for x in lines) for k in ("queue", "mapping", "function")}
        inventory.write_lines(root, A, R, lines, {**counts, "error": 0})
        rows, quarantine = reference.joined_rows(str(root))
        assert not quarantine
        out = []
        for row in rows:
            model = build.model_for(row)
            q = model.queues[row["arn"]]
            out += [(q, model.dlq_of(q), f) for f in lint_model(model, only=(q.id,))]
        return out

    def apply(self, call: dict) -> None:
        op, target, params = call["operation"], call["target"], call["params"]
        if op == "CreateQueue":
            self.urls[target] = self.sqs.create_queue(QueueName=target, Attributes=params["Attributes"])[
                "QueueUrl"
            ]
            self.only_inventory[target], self.tags[target] = {}, {}
        elif op == "SetQueueAttributes":
            name = target.rsplit(":", 1)[-1]
            self.sqs.set_queue_attributes(QueueUrl=self.urls[name], Attributes=params)
            for k in params:  # the call replaced the value only the inventory showed
                self.only_inventory[name].pop(k, None)
        elif op == "UpdateEventSourceMapping":
            assert target == self.mapping["uuid"]
            fields = {"BatchSize": "batch_size", "MaximumBatchingWindowInSeconds": "batching_window",
                      "FunctionResponseTypes": "function_response_types"}  # fmt: skip
            for k, v in params.items():
                self.mapping[fields[k]] = v
        elif op == "UpdateFunctionConfiguration":
            assert target == FN and set(params) == {"Timeout"}
            self.function["timeout"] = params["Timeout"]
        else:  # pragma: no cover - a new operation needs a line here
            raise AssertionError(op)


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_api_command_fixes_its_finding_in_the_engine(case, tmp_path):
    rule = case.split("-")[0]
    fleet = Fleet(*CASES[case])
    found = [(q, d, f) for q, d, f in fleet.audit(tmp_path) if f.rule == rule]
    assert len(found) == 1, [f.rule for *_, f in fleet.audit(tmp_path)]
    q, dlq, f = found[0]
    calls = wording.api_calls(f, q, dlq)
    assert calls, f"{rule} has no API command"
    text = wording.audit_finding(f, q, dlq).fix
    for c in calls:
        assert wording.say(c) in text
    before = copy.deepcopy(fleet.records())
    for c in calls:
        fleet.apply(c)
    assert fleet.records() != before  # the command changes something
    after = [(q2.id, f2.rule, f2.consumer) for q2, _, f2 in fleet.audit(tmp_path)]
    assert (q.id, f.rule, f.consumer) not in after, after


def test_vg022_at_the_maximum_shortens_the_source_and_leaves_the_dlq(tmp_path):
    fleet = Fleet(*CASES["VG022-max"])
    q, dlq, f = next(x for x in fleet.audit(tmp_path) if x[2].rule == "VG022")
    calls = wording.api_calls(f, q, dlq)
    assert calls == [
        {
            "operation": "SetQueueAttributes",
            "target": arn("q"),
            "params": {"MessageRetentionPeriod": str(10 * DAY)},
        }
    ]


def test_fifo_dead_letter_queue_is_fifo(tmp_path):
    fleet = Fleet(*CASES["VG020-fifo"])
    q, dlq, f = next(x for x in fleet.audit(tmp_path) if x[2].rule == "VG020")
    create, redrive = wording.api_calls(f, q, dlq)
    assert create == {
        "operation": "CreateQueue",
        "target": "q-dlq.fifo",
        "params": {"Attributes": {"MessageRetentionPeriod": str(14 * DAY), "FifoQueue": "true"}},
    }
    assert json.loads(redrive["params"]["RedrivePolicy"])["deadLetterTargetArn"] == arn("q-dlq.fifo")


def test_no_command_without_structured_changes(tmp_path):
    # VG023 (a redrive loop) has no mechanical fix: the sentence stays, no API command is made up
    fleet = Fleet({"a": ({}, {}, WORKER), "b": ({"RedrivePolicy": rp("a", 5)}, {}, {})}, None)
    fleet.apply(
        {"operation": "SetQueueAttributes", "target": arn("a"), "params": {"RedrivePolicy": rp("b", 5)}}
    )
    loops = [x for x in fleet.audit(tmp_path) if x[2].rule == "VG023"]
    assert loops and all(not x[2].changes for x in loops)
    for q, dlq, f in loops:
        assert wording.api_fix(f, q, dlq) is None
        assert "API:" not in (wording.audit_finding(f, q, dlq).fix or "")
