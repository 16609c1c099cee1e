"""Kubernetes manifests and KEDA (issue 24): consumers, their places, pending refs, env bindings, notes, bad input,
the join with a Terraform root, and the grace-period fix."""

import glob
import json
import os
import time

import pytest
from visguard.cli import main
from visguard.linter import consumers
from visguard.linter.fix import fix_text
from visguard.linter.loaders import kubernetes, registry
from visguard.linter.model import Change, Finding, Severity

from .conftest import FIXTURES

K8S = os.path.join(os.path.dirname(FIXTURES), "consumers", "kubernetes")

KEDA = """\
---
# Source: worker/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: orders-worker
  annotations:
    visguard.io/processing-p99: 10m
spec:
  replicas: 2
  template:
    spec:
      terminationGracePeriodSeconds: 30
      containers:
        - name: worker
          image: example/worker:1
          env:
            - name: QUEUE_URL
              valueFrom:
                configMapKeyRef: {name: worker-config, key: queue}
            - name: TOKEN
              valueFrom:
                secretKeyRef: {name: worker, key: token}
          lifecycle:
            preStop:
              exec: {command: ["sleep", "5"]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: worker-config}
data:
  queue: https://sqs.eu-west-1.amazonaws.com/123456789012/orders
---
apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata:
  name: orders-scaler
spec:
  scaleTargetRef:
    name: orders-worker
  maxReplicaCount: 20
  triggers:
    - type: cpu
      metadata: {value: "50"}
    - type: aws-sqs-queue
      metadata:
        queueURLFromEnv: QUEUE_URL
        queueLength: "10"
        scaleOnInFlight: "false"
        awsRegion: eu-west-1
"""

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
spec:
  replicas: 3
  template:
    spec:
      containers:
        - name: app
          image: example/app:1
          env:
            - name: {var}
              value: {value}
"""


def one(model):
    (c,) = model.pending
    return c


def lint(capsys, *args):
    code = main(["lint", "--no-config", "-f", "json", *args])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() else None), err


# ------------------------------------------------------------------------------------------ records
def test_scaled_object_reads_its_deployment_configmap_and_trigger(write):
    path = write(KEDA, "worker.yaml")
    m = registry.load(path)
    assert isinstance(m, kubernetes.Manifests) and m.queues == {}
    c = one(m)
    assert (c.id, c.kind, c.platform, c.source) == (
        "ScaledObject/orders-scaler",
        "worker",
        "keda",
        "kubernetes",
    )
    assert (c.link, c.link_ref) == ("env", "QUEUE_URL")  # queueURLFromEnv, resolved through the ConfigMap
    assert (c.queue_ref.kind, consumers.queue_name_of(c.queue_ref)) == ("url", "orders")
    assert (
        c.queue_ref.location.line == 32 and c.queue_ref.location.path == "ConfigMap/worker-config/data/queue"
    )
    assert (c.stop_timeout, c.processing_p99, c.concurrency) == (30, 600.0, 20)
    assert c.settings == {
        "scaler": "ScaledObject",
        "queue_length": 10,
        "activation_queue_length": 0,
        "scale_on_in_flight": False,
        "aws_region": "eu-west-1",
        "max_count": 20,
        "workload": "Deployment/orders-worker",
        "pre_stop": True,
    }
    lines = {k: (v.file, v.line) for k, v in c.locations.items()}
    assert c.location.line == 34 and c.location.path == "ScaledObject/orders-scaler"
    assert lines["stop_timeout"] == (path, 13)
    assert (
        c.locations["stop_timeout"].path
        == "Deployment/orders-worker/spec/template/spec/terminationGracePeriodSeconds"
    )
    assert lines["scale_on_in_flight"] == (path, 49) and lines["queue_length"] == (path, 48)
    assert lines["queue_ref"] == (path, 47)  # the queueURLFromEnv key
    assert lines["processing_p99"] == (path, 8) and lines["pre_stop"] == (path, 25)
    assert lines["max_count"] == (path, 41)
    url, token = m.env
    assert (url.name, url.workload, url.ref.value) == (
        "QUEUE_URL",
        "Deployment/orders-worker",
        c.queue_ref.value,
    )
    assert (token.name, token.ref, token.location.line) == ("TOKEN", None, 22)  # a secret: set, queue unknown
    assert m.notes == []


@pytest.mark.parametrize(
    "url, kind, name",
    [
        ("https://sqs.us-east-1.amazonaws.com/123456789012/jobs", "url", "jobs"),
        ("arn:aws:sqs:us-east-1:123456789012:jobs.fifo", "arn", "jobs.fifo"),
        ("jobs", "name", "jobs"),  # KEDA takes a bare name when it is not ambiguous
    ],
)
def test_queue_url_of_the_trigger(write, url, kind, name):
    text = KEDA.replace("queueURLFromEnv: QUEUE_URL", f"queueURL: {url}")
    c = one(registry.load(write(text, "w.yaml")))
    assert (c.link, c.link_ref, c.queue_ref.kind, consumers.queue_name_of(c.queue_ref)) == (
        "trigger",
        url,
        kind,
        name,
    )
    assert c.queue_ref.location.line == 47


def test_scale_on_in_flight_defaults_to_true(write):
    c = one(registry.load(write(KEDA.replace('        scaleOnInFlight: "false"\n', ""), "w.yaml")))
    assert c.settings["scale_on_in_flight"] is True


def test_a_deployment_without_keda_is_a_consumer_only_when_its_env_names_a_queue_directly(write):
    m = registry.load(
        write(
            DEPLOYMENT.format(name="mailer", var="JOBS", value="https://sqs.us-east-1.amazonaws.com/1/mail"),
            "d.yaml",
        )
    )
    c = one(m)
    assert (c.id, c.platform, c.link, c.link_ref, c.queue_ref.kind) == (
        "Deployment/mailer",
        "kubernetes",
        "env",
        "JOBS",
        "url",
    )
    assert (c.stop_timeout, c.effective_stop_timeout, c.concurrency, c.settings["max_count"]) == (
        None,
        30,
        3,
        3,
    )
    assert c.locations["stop_timeout"].path == "Deployment/mailer/spec/template/spec"  # where to add it
    assert c.locations["stop_timeout"].line == 9
    # a name in a variable that says QUEUE: an env binding for the app code to join, not a consumer
    m = registry.load(write(DEPLOYMENT.format(name="m2", var="ORDERS_QUEUE_NAME", value="orders"), "n.yaml"))
    assert m.pending == [] and [(b.name, b.ref.kind, b.ref.value) for b in m.env] == [
        ("ORDERS_QUEUE_NAME", "name", "orders")
    ]
    m = registry.load(write(DEPLOYMENT.format(name="m3", var="LOG_LEVEL", value="info"), "l.yaml"))
    assert m.pending == [] and m.env == []


def test_scaled_job_reads_its_job_deadline_and_pod(write):
    text = """\
apiVersion: keda.sh/v1alpha1
kind: ScaledJob
metadata: {name: export, annotations: {visguard.io/processing-p99: 20m}}
spec:
  jobTargetRef:
    activeDeadlineSeconds: 3600
    template:
      spec:
        terminationGracePeriodSeconds: 90
        containers:
          - name: x
            env: [{name: Q, value: "https://sqs.eu-west-2.amazonaws.com/7/export"}]
  triggers:
    - type: aws-sqs-queue
      metadata: {queueURLFromEnv: Q, awsRegion: eu-west-2}
"""
    c = one(registry.load(write(text, "job.yaml")))
    assert (c.id, c.platform, c.work_timeout, c.stop_timeout, c.processing_p99) == (
        "ScaledJob/export",
        "keda",
        3600,
        90,
        1200.0,
    )
    assert c.locations["work_timeout"].line == 6 and c.locations["stop_timeout"].line == 9
    assert c.settings["queue_length"] == 5 and c.settings["max_count"] == 100  # KEDA's defaults
    assert consumers.queue_name_of(c.queue_ref) == "export"


def test_a_list_and_json(write):
    doc = {
        "apiVersion": "v1",
        "kind": "List",
        "items": [
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": "sync", "namespace": "fin"},
                "spec": {"template": {"spec": {"terminationGracePeriodSeconds": 45, "containers": [
                    {"name": "s", "env": [{"name": "Q", "value": "arn:aws:sqs:us-east-1:123456789012:ledger"}]}]}}},
            }
        ],
    }  # fmt: skip
    c = one(registry.load(write(json.dumps(doc, indent=2), "list.json")))
    assert (c.id, c.stop_timeout, c.queue_ref.kind, c.locations["stop_timeout"].line) == (
        "Deployment/fin/sync",
        45,
        "arn",
        15,
    )


def test_the_scale_target_in_another_file_is_found_in_the_run(tmp_path):
    deployment, scaler = KEDA.split("---\napiVersion: keda.sh")
    (tmp_path / "deploy.yaml").write_text(deployment)
    (tmp_path / "scaler.yaml").write_text("---\napiVersion: keda.sh" + scaler)
    alone = registry.load(str(tmp_path / "scaler.yaml"))
    c = one(alone)
    assert c.stop_timeout is None and c.queue_ref.kind == "env"
    (note,) = alone.notes
    assert "scales Deployment/orders-worker, which no manifest of this run declares" in note.message
    assert note.location.line == 7  # scaleTargetRef
    models = [registry.load(str(tmp_path / n)) for n in ("scaler.yaml", "deploy.yaml")]
    kubernetes.link(models)
    c = one(models[0])
    assert (
        models[0].notes == [] and models[1].pending == []
    )  # the Deployment is KEDA's, not a second consumer
    assert (c.stop_timeout, c.processing_p99, consumers.queue_name_of(c.queue_ref)) == (30, 600.0, "orders")
    assert c.locations["stop_timeout"].file == str(tmp_path / "deploy.yaml")


# ------------------------------------------------------------------------------------------ notes, bad input
@pytest.mark.parametrize(
    "old, new, words, line",
    [
        ("visguard.io/processing-p99: 10m", "visguard.io/processing-p99: soon", "'soon' is not a duration", 8),
        ("terminationGracePeriodSeconds: 30", "terminationGracePeriodSeconds: -1", "terminationGracePeriodSeconds -1", 13),
        ('queueLength: "10"', 'queueLength: "ten"', "queueLength 'ten' is not a whole number", 48),
        ("queueURLFromEnv: QUEUE_URL", "identityOwner: pod", "names no queue", 47),
    ],
)  # fmt: skip
def test_what_cannot_be_read_is_a_note_with_its_place(write, old, new, words, line):
    path = write(KEDA.replace(old, new), "w.yaml")
    m = registry.load(path)
    (note,) = m.notes
    assert words in note.message and (note.location.file, note.location.line) == (path, line)
    assert len(m.pending) == 1  # the consumer is still read


def test_a_document_that_is_not_a_mapping_is_a_note(write):
    m = registry.load(write(KEDA + "---\n- just\n- a list\n", "w.yaml"))
    assert len(m.pending) == 1 and ["document 4 is not a mapping" in n.message for n in m.notes] == [True]


@pytest.mark.parametrize(
    "text, words",
    [
        ("apiVersion: v1\nkind: Deployment\nmetadata: {name: [unclosed\n", "malformed YAML"),
        ("apiVersion: v1\nkind: Deployment\nspec: " + "[" * 200 + "]" * 200 + "\n", "nested too deeply"),
        (
            "apiVersion: v1\nkind: Deployment\nspec: !Sub x\n---\nkind: Deployment\nspec: !Nope y\n",
            "unknown tag",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_1(write, capsys, text, words):
    path = write(text, "bad.yaml")
    code, _, err = lint(capsys, path)
    assert code == 1 and err.count("\n") == 1 and path in err and words in err and "Traceback" not in err


def test_a_huge_manifest_is_refused(write, capsys):
    path = write(
        "apiVersion: v1\nkind: ConfigMap\ndata:\n" + "  k: " + "x" * (11 * 1024 * 1024) + "\n", "big.yaml"
    )
    code, _, err = lint(capsys, path)
    assert code == 1 and path in err and "limit" in err and err.count("\n") == 1


# ------------------------------------------------------------------------------------------ claims
@pytest.mark.parametrize(
    "name, text, kind",
    [
        ("app.yaml", KEDA, "kubernetes"),
        ("list.json", '{"apiVersion": "v1", "kind": "List", "items": []}', "kubernetes"),
        ("rendered.yaml", "---\n# Source: c/templates/d.yaml\napiVersion: apps/v1\nkind: Deployment\n", "kubernetes"),
        ("template.yaml", "AWSTemplateFormatVersion: '2010-09-09'\nResources: {}\napiVersion: x\nkind: y\n", "cloudformation"),
        ("serverless.yml", "service: s\nprovider: {name: aws}\napiVersion: v1\nkind: x\n", "serverless"),
        ("helm.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n", None),
        ("values.yaml", "kind: Deployment\nimage: x\n", None),
    ],
)  # fmt: skip
def test_claims(tmp_path, name, text, kind):
    (tmp_path / name).write_text(text)
    found = registry.discover([str(tmp_path)], errors=[])  # a folder search
    assert ([i.loader.name for i in found] or [None]) == [kind]


def test_a_manifest_without_workloads_is_not_parsed(write):
    path = write("apiVersion: v1\nkind: Service\nmetadata: {name: [broken\n", "svc.yaml")
    m = registry.load(path)  # nothing this loader reads: not parsed, no error
    assert m.pending == [] and m.documents == []


# ------------------------------------------------------------------------------------------ the run
def _e2e(tmp_path, redrive: bool):
    (tmp_path / "k8s").mkdir()
    (tmp_path / "terraform").mkdir()
    (tmp_path / "k8s" / "worker.yaml").write_text(
        KEDA.replace("# Source: worker/templates/deployment.yaml\n", "")
    )
    dlq = 'resource "aws_sqs_queue" "orders_dlq" {\n  name = "orders-dlq"\n}\n'
    policy = (
        "  redrive_policy = jsonencode({ deadLetterTargetArn = aws_sqs_queue.orders_dlq.arn, maxReceiveCount = 5 })\n"
        if redrive
        else ""
    )
    (tmp_path / "terraform" / "main.tf").write_text(
        'resource "aws_sqs_queue" "orders" {\n  name = "orders"\n  visibility_timeout_seconds = 1200\n'
        + policy
        + "}\n"
        + dlq
    )
    return str(tmp_path / "k8s"), str(tmp_path / "terraform")


def test_lint_k8s_with_terraform_joins_the_consumer_to_the_queue(tmp_path, capsys, monkeypatch):
    k8s, tf = _e2e(tmp_path, redrive=False)
    (tmp_path / "k8s" / "other.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    models = [registry.load(os.path.join(k8s, n)) for n in ("worker.yaml", "other.yaml")] + [
        registry.load(tf)
    ]
    consumers.join(models)
    (c,) = models[2].queues["aws_sqs_queue.orders"].consumers
    assert (c.id, c.platform, c.stop_timeout, c.processing_p99) == (
        "ScaledObject/orders-scaler",
        "keda",
        30,
        600.0,
    )
    assert models[0].pending == [] and models[0].notes == []
    consumers.join(models)  # idempotent: the consumer is attached once
    assert len(models[2].queues["aws_sqs_queue.orders"].consumers) == 1
    monkeypatch.chdir(tmp_path)
    code, out, _ = lint(capsys, "k8s/", "terraform/")
    vg020 = [f for f in out["findings"] if f["rule"] == "VG020"]
    assert [f["queue"] for f in vg020] == ["aws_sqs_queue.orders"] and "ScaledObject/orders-scaler" in vg020[
        0
    ]["message"]
    assert not [f for f in out["findings"] if f["rule"] == "VG902"] and code == 2


def test_lint_k8s_alone_says_the_queue_was_not_checked(tmp_path, capsys, monkeypatch):
    k8s, _ = _e2e(tmp_path, redrive=True)
    monkeypatch.chdir(tmp_path)
    code, out, _ = lint(capsys, "k8s/")
    (f,) = out["findings"]
    assert (f["rule"], f["file"], f["line"], code) == ("VG902", "k8s/worker.yaml", 33, 0)
    assert "its queue https://sqs.eu-west-1.amazonaws.com/123456789012/orders is not declared" in f["message"]


# ------------------------------------------------------------------------------------------ fixtures, corpus
@pytest.mark.parametrize(
    "name, cid, stop, p99",
    [
        ("../../rules/vg062/kubernetes/fail-keda", "ScaledObject/invoice-renderer", 30, 600.0),
        ("../../rules/vg062/kubernetes/fail-default", "Deployment/thumbnailer", None, 300.0),
        ("../../rules/vg065/kubernetes/fail", "ScaledObject/email-sender", 120, None),
        ("ok-consistent", "ScaledObject/report-builder", 900, 480.0),
    ],
)
def test_rule_fixtures_join_their_terraform_queue(name, cid, stop, p99):
    folder = os.path.join(K8S, name)
    models = [registry.load(p) for p in sorted(glob.glob(os.path.join(folder, "k8s", "*.yaml")))]
    models.append(registry.load(os.path.join(folder, "terraform")))
    consumers.join(models)
    attached = [(q.name, c) for q in models[-1].queues.values() for c in q.consumers]
    assert [(c.id, c.stop_timeout, c.processing_p99) for _, c in attached] == [(cid, stop, p99)]
    assert all(m.notes == [] for m in models)


def test_rule_fixtures_readme_names_each_folder():
    with open(os.path.join(K8S, "README.md")) as f:
        readme = f.read()
    for folder in ("ok-consistent", "corpus"):
        assert f"`{folder}/`" in readme


@pytest.mark.parametrize("example", sorted(os.listdir(os.path.join(K8S, "corpus"))))
def test_corpus_reads_what_a_careful_reader_finds(example):
    folder = os.path.join(K8S, "corpus", example)
    with open(os.path.join(folder, "expected.json")) as f:
        expected = json.load(f)
    paths = [p for p in sorted(glob.glob(os.path.join(folder, "*"))) if not p.endswith("expected.json")]
    assert all(registry.claim(p, explicit=False).name == "kubernetes" for p in paths)
    models = [registry.load(p) for p in paths]
    kubernetes.link(models)
    got = [c for m in models for c in m.pending]
    assert [c.id for c in got] == [e["id"] for e in expected["consumers"]]
    for c, e in zip(got, expected["consumers"], strict=True):
        name = consumers.queue_name_of(c.queue_ref) if c.queue_ref else None
        assert (c.platform, c.link, name, c.stop_timeout, c.processing_p99) == (
            e["platform"],
            e["link"],
            e["queue"],
            e["stop_timeout"],
            e["processing_p99"],
        )
        assert c.effective_stop_timeout == e["effective_stop_timeout"] and c.work_timeout == e.get(
            "work_timeout"
        )
        assert {k: c.settings.get(k) for k in e["settings"]} == e["settings"]
    env = [
        [b.name, b.workload, consumers.queue_name_of(b.ref) if b.ref else None] for m in models for b in m.env
    ]
    assert env == expected["env"]
    notes = [n.message for m in models for n in m.notes]
    assert len(notes) == len(expected["notes"]) and all(
        w in n for w, n in zip(expected["notes"], notes, strict=True)
    )


# ------------------------------------------------------------------------------------------ the fix
def _grace_finding(path, text=None, value=900):
    m = registry.load(path)
    (c,) = m.pending
    ch = Change("consumer", c.id, "stop_timeout", value, c.location_of("stop_timeout"))
    return Finding("VG062", Severity.WARNING, "grace", "q", c.location, consumer=c.id, changes=(ch,))


def test_fix_sets_the_grace_period_and_keeps_every_other_document(write):
    text = KEDA.replace("# Source: worker/templates/deployment.yaml\n", "# the worker\n")
    path = write(text, "w.yaml")
    ff = fix_text(path, text, [_grace_finding(path, value=660.5)])
    assert ff.skipped == [] and ff.adapter.source == "kubernetes"
    assert ff.after == text.replace("terminationGracePeriodSeconds: 30", "terminationGracePeriodSeconds: 661")
    assert registry.load(write(ff.after, "w.yaml")).pending[0].stop_timeout == 661


def test_fix_adds_the_grace_period_to_the_pod_spec(write):
    text = (
        "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {x: 'y'}  # kept\n---\n"
        + DEPLOYMENT.format(name="mailer", var="JOBS", value="https://sqs.us-east-1.amazonaws.com/1/mail")
    )
    path = write(text, "d.yaml")
    ff = fix_text(path, text, [_grace_finding(path)])
    before, after = text.split("---\napiVersion: apps/v1"), ff.after.split("---\napiVersion: apps/v1")
    assert after[0] == before[0]  # the other document, byte for byte
    assert "    spec:\n      terminationGracePeriodSeconds: 900\n      containers:\n" in ff.after
    assert ff.after.replace("      terminationGracePeriodSeconds: 900\n", "") == text


def test_fix_in_json_and_flow_style(write):
    doc = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "j"},
           "spec": {"template": {"spec": {"containers": [
               {"name": "c", "env": [{"name": "Q", "value": "https://sqs.us-east-1.amazonaws.com/1/q"}]}]}}}}  # fmt: skip
    text = json.dumps(doc, indent=2) + "\n"
    path = write(text, "j.json")
    ff = fix_text(path, text, [_grace_finding(path)])
    assert json.loads(ff.after)["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] == 900
    flow = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: f}\nspec:\n  template:\n    spec: {containers: [{name: c, env: [{name: Q, value: 'https://sqs.us-east-1.amazonaws.com/1/q'}]}]}\n"
    path = write(flow, "f.yaml")
    ff = fix_text(path, flow, [_grace_finding(path)])
    assert "spec: {terminationGracePeriodSeconds: 900, containers:" in ff.after


def test_fix_leaves_helm_output_and_anchors_alone(write):
    path = write(KEDA, "rendered.yaml")
    ff = fix_text(path, KEDA, [_grace_finding(path)])
    assert ff.after == KEDA and "rendered by Helm from worker/templates/deployment.yaml" in ff.skipped[0][1]
    text = KEDA.replace("# Source: worker/templates/deployment.yaml\n", "").replace(
        "terminationGracePeriodSeconds: 30", "terminationGracePeriodSeconds: &g 30"
    )
    path = write(text, "anchored.yaml")
    ff = fix_text(path, text, [_grace_finding(path)])
    assert ff.after == text and "change it by hand" in ff.skipped[0][1]


# ------------------------------------------------------------------------------------------ declared twice, size
def _scaled_twice(tmp_path, where: str) -> list:
    """The Deployment KEDA scales declared twice: ``where`` is "files" (two files), "docs" (two documents of one
    file), "namespaces" (two namespaces, the ScaledObject in one: not ambiguous)."""
    deployment, scaler = KEDA.split("---\napiVersion: keda.sh")
    scaler = "---\napiVersion: keda.sh" + scaler
    if where == "files":
        (tmp_path / "a.yaml").write_text(deployment)
        (tmp_path / "b.yaml").write_text(
            deployment.replace("terminationGracePeriodSeconds: 30", "terminationGracePeriodSeconds: 90")
        )
        (tmp_path / "scaler.yaml").write_text(scaler)
    elif where == "docs":
        (tmp_path / "all.yaml").write_text(deployment + deployment + scaler)
    else:

        def ns(text, n, name="orders-worker"):
            return text.replace(f"\n  name: {name}\n", f"\n  name: {name}\n  namespace: {n}\n", 1)

        (tmp_path / "all.yaml").write_text(
            ns(deployment, "blue") + ns(deployment, "green") + ns(scaler, "green", "orders-scaler")
        )
    models = [registry.load(str(p)) for p in sorted(tmp_path.iterdir())]
    kubernetes.link(models)
    return models


@pytest.mark.parametrize(("where", "ambiguous"), [("files", True), ("docs", True), ("namespaces", False)])
def test_a_scale_target_declared_twice_is_named_not_chosen(tmp_path, where, ambiguous):
    models = _scaled_twice(tmp_path, where)
    (c,) = [c for m in models for c in m.pending if c.platform == "keda"]
    notes = [n.message for m in models for n in m.notes if "declared 2 times" in n.message]
    if ambiguous:
        assert c.stop_timeout is None and c.processing_p99 is None and c.queue_ref.kind == "env"
        (note,) = notes
        assert note.count(".yaml:") == 2 and "none is chosen" in note
    else:
        assert (
            notes == []
            and c.stop_timeout == 30
            and c.settings["workload"] == "Deployment/green/orders-worker"
        )


@pytest.mark.parametrize("shape", ["documents", "list"])
def test_a_large_manifest_is_read_in_linear_time(write, shape):
    """A hang guard: 5,000 workloads (about 1 s when linear, most of it decoding; 2,000 took 7 s before)."""
    n = 5_000
    docs = [
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": f"w{i}"}, "spec": {"template": {"spec": {
            "containers": [{"name": "a", "env": [{"name": "Q", "value": f"arn:aws:sqs:us-east-1:123456789012:q{i}"}]}]}}}}
        for i in range(n)
    ]  # fmt: skip
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": docs}) if shape == "list" else (
        "".join("---\n" + DEPLOYMENT.format(name=f"w{i}", var="Q", value=f"arn:aws:sqs:us-east-1:123456789012:q{i}")
        for i in range(n)))  # fmt: skip
    start = time.perf_counter()
    model = registry.load(write(text, "big.yaml"))
    assert time.perf_counter() - start < 20  # a guard against a hang, not a speed test
    assert len(model.pending) == n and model.pending[-1].queue_ref.value.endswith(f":q{n - 1}")
