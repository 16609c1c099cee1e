"""Kubernetes manifests -> worker consumers (issue 24; reference/consumers.md §2.5).

A manifest file is YAML (one or more documents, ``---`` separated: plain manifests, ``helm template`` output with
its ``# Source:`` comments, ``kubectl get -o yaml`` Lists) or JSON, each document with an ``apiVersion`` and a
``kind``. What is read:

- a KEDA ``ScaledObject`` with an ``aws-sqs-queue`` trigger: a consumer (platform ``keda``, link ``trigger``) of
  the queue its ``queueURL`` names (a URL, an ARN or a name), or of the queue the scale target's container gets
  in the variable ``queueURLFromEnv`` names (link ``env``); its ``queueLength``, ``activationQueueLength``,
  ``scaleOnInFlight`` (KEDA's default true: in-flight messages keep pods up), ``awsRegion``, replica counts;
- the ``Deployment``/``StatefulSet`` it scales (``scaleTargetRef``), in any manifest of the run: the pod's
  ``terminationGracePeriodSeconds`` (``stop_timeout``: a preStop hook runs inside it), ``preStop``, replicas;
- a KEDA ``ScaledJob``: the same trigger, its job's ``activeDeadlineSeconds`` (``work_timeout``: the job is killed
  there) and pod;
- every workload's container environment (``value``; ``configMapKeyRef`` and ``envFrom`` resolved against the
  ConfigMaps of the run; ``secretKeyRef`` unknown) as ``Model.env`` bindings named ``Deployment/NAME``, so the
  application code that reads the variable joins the queue;
- a Deployment/StatefulSet no KEDA trigger scales whose container gets an SQS queue URL or ARN as a literal: a
  consumer (platform ``kubernetes``, link ``env``) unless its code only sends: the join looks at the folder its
  containers' images are built from (``settings["images"]``, :mod:`visguard.linter.receiving`).

The declared processing time: the annotations :data:`~visguard.linter.consumers.PROCESSING_P99_KEY` /
``PROCESSING_P50_KEY`` on the ScaledObject/ScaledJob, the workload or its pod template (the first found, in that
order). What cannot be read (a bad annotation, a document that is not a mapping, a scale target no manifest
declares) is a note naming the file and line. A scale target declared more than once (same kind, name and
namespace, in two files or documents) is not chosen: the note names every copy (file:line). Objects are looked up
by (kind, name) (:class:`_Index`), so a manifest of 20,000 workloads is read in linear time.

Consumers wait in ``Model.pending`` for :func:`visguard.linter.consumers.join`, which attaches them to the queue
Terraform or CloudFormation declares in another input; before that, :func:`link` rebuilds every manifest input
with the workloads and ConfigMaps of all of them (a ScaledObject and its Deployment are often two files).
"""

from __future__ import annotations

import re

from visguard import facts
from visguard.linter.consumers import (
    PROCESSING_P50_KEY,
    PROCESSING_P99_KEY,
    EnvBinding,
    QueueRef,
    parse_duration,
    queue_name_of,
    setting_number,
)
from visguard.linter.model import Consumer, Location, Model, Note
from visguard.records import fresh

from . import safe_io
from .decode import MAX_BYTES, loads_all

WORKLOADS = ("Deployment", "StatefulSet")
SCALERS = ("ScaledObject", "ScaledJob")
TRIGGER = "aws-sqs-queue"
# KEDA's defaults (https://keda.sh/docs/latest/scalers/aws-sqs/, .../reference/scaledobject-spec/)
KEDA_QUEUE_LENGTH = 5
KEDA_ACTIVATION_QUEUE_LENGTH = 0
KEDA_MAX_REPLICAS = 100
# a manifest that names none of these kinds holds nothing this loader reads: it is not parsed
_RELEVANT = re.compile(
    rb"""kind["']?[ \t]*:[ \t]*["']?(?:Deployment|StatefulSet|ScaledObject|ScaledJob|ConfigMap|[A-Za-z]*List)\b"""
)
_QUEUE_VAR = re.compile(r"QUEUE|SQS", re.I)


class Manifests(Model):
    """The model of one manifest file, with its documents (:func:`link` rebuilds it with those of the run)."""

    # Doc objects; notes of the reading; linked: rebuilt with the run's manifests (link), once
    __slots__ = {"documents": fresh(list), "read_notes": fresh(list), "linked": False}


class Doc:
    """One Kubernetes object: its mapping, file, and path inside the file's document (``items/3`` of a List)."""

    __slots__ = ("obj", "file", "kind", "name", "namespace")

    def __init__(self, obj: dict, file: str):
        meta = _map(obj.get("metadata"))
        self.obj, self.file = obj, file
        self.kind = obj.get("kind") if isinstance(obj.get("kind"), str) else None
        self.name = meta.get("name") if isinstance(meta.get("name"), str) else None
        ns = meta.get("namespace")
        self.namespace = ns if isinstance(ns, str) else None

    @property
    def address(self) -> str:
        """``Kind/name`` (``Kind/namespace/name`` when the manifest names its namespace)."""
        return "/".join(x for x in (self.kind, self.namespace, self.name or "?") if x)

    def at(self, path: tuple = (), node=None, key=None) -> Location:
        """The location of ``key`` in ``node`` (the object itself without them); ``path``: below the object."""
        node = self.obj if node is None else node
        line, col = getattr(node, "line", None), getattr(node, "col", None)
        if key is not None and key in getattr(node, "key_pos", {}):
            line, col = node.key_pos[key]
        where = "/".join(str(p) for p in (self.kind, self.name or "?", *path))
        return Location(self.file, line, col, where)


def _map(node) -> dict:
    return node if isinstance(node, dict) else {}


def _list(node) -> list:
    return node if isinstance(node, list) else []


# ------------------------------------------------------------------------------------------ registry hooks
def claim_file(path: str, head: bytes) -> bool:
    """A YAML/JSON file whose documents have ``apiVersion`` and ``kind`` (registry.kubernetes_file)."""
    from .registry import kubernetes_file

    return kubernetes_file(path, head)


def load(path: str, options=None) -> Manifests:
    """One manifest file -> its model: consumers pending, environment bindings, notes. Raises VisguardError when
    the file cannot be read as YAML/JSON."""
    text = safe_io.read_text(path, max_bytes=MAX_BYTES)
    model = Manifests(source_file=path)
    if not _RELEVANT.search(text.encode("utf-8", "replace")):
        return model  # a Service, an Ingress, a CRD: nothing about queues
    for i, obj in enumerate(loads_all(text, file=path)):
        if obj is None:
            continue
        if not isinstance(obj, dict):
            line = getattr(obj, "line", None)  # a list or a scalar: no position kept
            model.read_notes.append(
                Note(f"document {i + 1} is not a mapping: skipped", Location(path, line), path)
            )
            continue
        model.documents += _objects(obj, path, model.read_notes)
    _build(model, _Index(model.documents))
    return model


def _objects(obj: dict, file: str, notes: list[Note]) -> list[Doc]:
    kind = obj.get("kind")
    if isinstance(kind, str) and kind.endswith("List") and "items" in obj:
        out = []
        for item in _list(obj.get("items")):
            if isinstance(item, dict):
                out.append(Doc(item, file))
            else:
                notes.append(
                    Note("an item of a List is not a mapping: skipped", Location(file, obj.line), file)
                )
        return out
    return [Doc(obj, file)]


# ------------------------------------------------------------------------------------------ the run's objects
class _Index:
    """The workloads, ConfigMaps and KEDA scale targets of some manifests (a file's, or the whole run's), by
    (kind, name), so each lookup costs the objects of that name only (a 20,000-item List is linear)."""

    def __init__(self, docs: list[Doc]):
        self.by_name: dict[tuple, list[Doc]] = {}
        self.scaled: dict[tuple, list[Doc]] = {}  # (target kind, target name) -> the scalers of SQS triggers
        for d in docs:
            if d.kind in WORKLOADS or d.kind == "ConfigMap":
                self.by_name.setdefault((d.kind, d.name), []).append(d)
            if d.kind == "ScaledObject" and _sqs_triggers(d):
                ref = _map(_map(d.obj.get("spec")).get("scaleTargetRef"))
                self.scaled.setdefault(
                    (str(ref.get("kind") or "Deployment"), str(ref.get("name"))), []
                ).append(d)

    def workloads(self, scaler: Doc, kind: str, name) -> list[Doc]:
        """Every workload ``kind``/``name`` that ``scaler`` may scale (more than one: declared twice)."""
        return [w for w in self.by_name.get((kind, name), ()) if _same(w, scaler, kind, name)]

    def configmap(self, user: Doc, name) -> Doc | None:
        return next(
            (c for c in self.by_name.get(("ConfigMap", name), ()) if _same(c, user, "ConfigMap", name)), None
        )

    def is_scaled(self, w: Doc) -> bool:
        return any(_same(w, s, w.kind, str(w.name)) for s in self.scaled.get((w.kind, str(w.name)), ()))


def _same(d: Doc, near: Doc, kind: str, name) -> bool:
    """``d`` is the object ``kind``/``name`` that ``near`` refers to (same namespace, or one of them unnamed)."""
    ns_ok = d.namespace is None or near.namespace is None or d.namespace == near.namespace
    return d.kind == kind and d.name == name and ns_ok


def link(models: list[Model]) -> None:
    """Rebuild every manifest model of the run with the workloads and ConfigMaps of all of them (a ScaledObject
    and the Deployment it scales, a Deployment and its ConfigMap, are often in two files). Called by
    ``consumers.join`` before it joins."""
    mine = [m for m in models if isinstance(m, Manifests) and m.documents]
    if len(mine) < 2 or all(m.linked for m in mine):
        return
    index = _Index([d for m in mine for d in m.documents])
    for m in mine:
        if not m.linked:  # a model the join has already emptied is not read again (join is idempotent)
            _build(m, index)
            m.linked = True


# ------------------------------------------------------------------------------------------ building
def _build(model: Manifests, index: _Index) -> None:
    """``model``'s consumers, environment bindings and notes from its own documents, ``index`` for the rest."""
    notes: list[Note] = []
    model.pending, model.env = [], []
    for d in model.documents:
        if d.kind in WORKLOADS or d.kind == "ScaledJob":
            model.env += _bindings(d, index)
    env_of: dict[str, list[EnvBinding]] = {}
    for b in model.env:
        env_of.setdefault(b.workload, []).append(b)
    for d in model.documents:
        if d.kind in SCALERS:
            model.pending += _keda_consumers(d, index, notes)
        elif d.kind in WORKLOADS and not index.is_scaled(d):
            model.pending += _direct_consumers(d, env_of.get(d.address, []), notes)
    seen: set = set()  # a workload read for two consumers says its problems once
    model.notes = list(model.read_notes)
    for n in notes:
        key = (n.message, n.location.line)
        if key not in seen:
            seen.add(key)
            model.notes.append(n)


def _note(notes: list[Note], message: str, loc: Location, address: str) -> None:
    notes.append(Note(message, loc, address))


def _pod(d: Doc) -> tuple[dict, tuple]:
    """The pod spec of a workload (``spec.template.spec``) or ScaledJob (``spec.jobTargetRef.template.spec``)."""
    spec = _map(d.obj.get("spec"))
    if d.kind == "ScaledJob":
        job = _map(spec.get("jobTargetRef"))
        return _map(_map(job.get("template")).get("spec")), ("spec", "jobTargetRef", "template", "spec")
    return _map(_map(spec.get("template")).get("spec")), ("spec", "template", "spec")


def _containers(d: Doc) -> list[tuple[tuple, dict]]:
    """(path, container) of each container of ``d``'s pod."""
    pod, at = _pod(d)
    return [
        ((*at, "containers", i), c) for i, c in enumerate(_list(pod.get("containers"))) if isinstance(c, dict)
    ]


def _bindings(d: Doc, index: _Index) -> list[EnvBinding]:
    """The environment ``d``'s containers get: a literal (or a ConfigMap's value) naming a queue by URL, ARN, or
    by name in a variable whose name says QUEUE/SQS; a secret's value: bound, queue unknown."""
    out = []
    for at, c in _containers(d):
        for j, e in enumerate(_list(c.get("env"))):
            if not isinstance(e, dict) or not isinstance(e.get("name"), str):
                continue
            name, source = e["name"], _map(e.get("valueFrom"))
            number = setting_number(name, e.get("value")) if "value" in e else None
            if number is not None:  # a setting's number, for code that reads it from the variable
                out.append(
                    EnvBinding(
                        name, d.address, location=d.at((*at, "env", j, "value"), e, "value"), number=number
                    )
                )
                continue
            if "value" in e:
                ref = _ref_of(e.get("value"), name, d.at((*at, "env", j, "value"), e, "value"))
            elif "configMapKeyRef" in source:
                sel = _map(source["configMapKeyRef"])
                ref = _from_configmap(index.configmap(d, sel.get("name")), sel.get("key"), name)
            else:
                if "secretKeyRef" in source:  # set, from a secret: the queue it names is not known here
                    out.append(EnvBinding(name, d.address, location=d.at((*at, "env", j), e, "valueFrom")))
                continue
            if ref is not None:
                out.append(EnvBinding(name, d.address, ref=ref, location=ref.location))
        for f in _list(c.get("envFrom")):
            f = _map(f)
            cm = index.configmap(d, _map(f.get("configMapRef")).get("name"))
            prefix = f.get("prefix") if isinstance(f.get("prefix"), str) else ""
            for key in _map(cm.obj.get("data")) if cm is not None else ():
                ref = _from_configmap(cm, key, f"{prefix}{key}")
                if ref is not None:
                    out.append(EnvBinding(f"{prefix}{key}", d.address, ref=ref, location=ref.location))
    return out


def _from_configmap(cm: Doc | None, key, var: str) -> QueueRef | None:
    data = _map(cm.obj.get("data")) if cm is not None else {}
    if cm is None or key not in data:
        return None
    return _ref_of(data[key], var, cm.at(("data", key), data, key))


def _ref_of(value, var: str, loc: Location) -> QueueRef | None:
    """A queue reference written as a literal: a URL or ARN, or a name where the variable says it is a queue."""
    if not isinstance(value, str) or queue_name_of(value) is None:
        return None
    if value.startswith(("http://", "https://")):
        return QueueRef("url", value, loc)
    if value.startswith("arn:"):
        return QueueRef("arn", value, loc)
    return QueueRef("name", value, loc) if _QUEUE_VAR.search(var) else None


def _sqs_triggers(d: Doc) -> list[tuple[int, dict]]:
    triggers = _list(_map(d.obj.get("spec")).get("triggers"))
    return [(i, t) for i, t in enumerate(triggers) if isinstance(t, dict) and t.get("type") == TRIGGER]


def _number(node: dict, key: str, d: Doc, path: tuple, notes: list[Note]) -> tuple[int, Location] | None:
    """The whole number ``node[key]`` (KEDA writes some as strings) and where it is; a note when it is not one."""
    value = node.get(key)
    loc = d.at(path, node, key)
    n = value if isinstance(value, int) and not isinstance(value, bool) else None
    if isinstance(value, str) and re.fullmatch(r"\s*\d{1,12}\s*", value):
        n = int(value)
    if n is None or n < 0:
        _note(notes, f"{d.kind} {d.name}: {key} {value!r} is not a whole number of 0 or more: not read",
              loc, d.address)  # fmt: skip
        return None
    return n, loc


def _setting(c: Consumer, field: str, node: dict, key: str, d: Doc, path: tuple, notes) -> bool:
    got = _number(node, key, d, path, notes) if key in node else None
    if got is not None:
        c.settings[field], c.locations[field] = got
    return got is not None


def _keda_consumers(d: Doc, index: _Index, notes: list[Note]) -> list[Consumer]:
    spec = _map(d.obj.get("spec"))
    triggers = _sqs_triggers(d)
    if not triggers:
        return []
    if d.kind == "ScaledJob":
        target: Doc | None = d
    else:
        ref = _map(spec.get("scaleTargetRef"))
        kind, name = str(ref.get("kind") or "Deployment"), ref.get("name")
        found = index.workloads(d, kind, name)
        target = found[0] if len(found) == 1 else None
        if len(found) > 1:
            places = ", ".join(f"{w.file}:{w.at().line}" for w in found)
            _note(
                notes,
                f"{d.kind} {d.name} scales {kind}/{name}, which is declared {len(found)} times ({places}): "
                "none is chosen, so its grace period is taken as Kubernetes' default "
                f"({facts.DEFAULT_K8S_GRACE_PERIOD} s) and its preStop hook, environment and annotations are "
                "not read; declare the workload once (or give each copy its own namespace)",
                d.at(("spec", "scaleTargetRef"), spec, "scaleTargetRef"),
                d.address,
            )
        elif target is None:
            _note(
                notes,
                f"{d.kind} {d.name} scales {kind}/{name}, which no manifest of this run declares: its grace "
                f"period is taken as Kubernetes' default ({facts.DEFAULT_K8S_GRACE_PERIOD} s) and its "
                "preStop hook, environment and annotations are not known",
                d.at(("spec", "scaleTargetRef"), spec, "scaleTargetRef"),
                d.address,
            )
    out = []
    for i, trigger in triggers:
        cid = d.address if len(triggers) == 1 else f"{d.address}#{i}"
        c = Consumer(cid, "worker", location=d.at(), platform="keda", source="kubernetes")
        c.settings["scaler"] = d.kind
        meta = _map(trigger.get("metadata"))
        _read_trigger(c, d, meta, ("spec", "triggers", i, "metadata"), target, index, notes)
        _setting(c, "min_count", spec, "minReplicaCount", d, ("spec", "minReplicaCount"), notes)
        if not _setting(c, "max_count", spec, "maxReplicaCount", d, ("spec", "maxReplicaCount"), notes):
            c.settings["max_count"] = KEDA_MAX_REPLICAS
        c.concurrency = c.settings["max_count"]
        _setting(c, "polling_interval", spec, "pollingInterval", d, ("spec", "pollingInterval"), notes)
        _setting(c, "cooldown_period", spec, "cooldownPeriod", d, ("spec", "cooldownPeriod"), notes)
        job = _map(spec.get("jobTargetRef"))
        if d.kind == "ScaledJob" and "activeDeadlineSeconds" in job:  # the job is killed at its deadline
            path = ("spec", "jobTargetRef", "activeDeadlineSeconds")
            got = _number(job, "activeDeadlineSeconds", d, path, notes)
            if got is not None:
                c.work_timeout, c.locations["work_timeout"] = got
        if target is not None:
            _read_workload(c, target, notes)
        _read_annotations(c, [d] if target in (None, d) else [d, target], notes)
        out.append(c)
    return out


def _read_trigger(
    c: Consumer, d: Doc, meta: dict, at: tuple, target: Doc | None, index: _Index, notes
) -> None:
    url = meta.get("queueURL")
    if isinstance(url, str) and url:
        loc = d.at((*at, "queueURL"), meta, "queueURL")
        kind = (
            "url" if url.startswith(("http://", "https://")) else "arn" if url.startswith("arn:") else "name"
        )
        c.queue_ref, c.link, c.link_ref = QueueRef(kind, url, loc), "trigger", url
        c.locations["queue_ref"] = loc
    elif isinstance(meta.get("queueURLFromEnv"), str) and meta["queueURLFromEnv"]:
        var = meta["queueURLFromEnv"]
        loc = d.at((*at, "queueURLFromEnv"), meta, "queueURLFromEnv")
        bound = [b.ref for b in _bindings(target, index) if b.name == var and b.ref] if target else []
        c.queue_ref = bound[0] if bound else QueueRef("env", var, loc)
        c.link, c.link_ref = "env", var
        c.locations["queue_ref"] = loc
    else:
        _note(notes, f"{d.kind} {d.name}: its {TRIGGER} trigger names no queue (queueURL or queueURLFromEnv)",
              d.at(at, meta), d.address)  # fmt: skip
    if not _setting(c, "queue_length", meta, "queueLength", d, (*at, "queueLength"), notes):
        c.settings["queue_length"] = KEDA_QUEUE_LENGTH
    path = (*at, "activationQueueLength")
    if not _setting(c, "activation_queue_length", meta, "activationQueueLength", d, path, notes):
        c.settings["activation_queue_length"] = KEDA_ACTIVATION_QUEUE_LENGTH
    flag = meta.get("scaleOnInFlight", True)  # KEDA's default: in-flight messages count, pods stay up
    c.settings["scale_on_in_flight"] = not (flag is False or str(flag).strip().lower() == "false")
    c.locations["scale_on_in_flight"] = d.at((*at, "scaleOnInFlight"), meta, "scaleOnInFlight")
    if isinstance(meta.get("awsRegion"), str):
        c.settings["aws_region"] = meta["awsRegion"]
        c.locations["aws_region"] = d.at((*at, "awsRegion"), meta, "awsRegion")


def _read_workload(c: Consumer, w: Doc, notes: list[Note]) -> None:
    """The pod's grace period (``stop_timeout``, or where to add it), preStop hooks, the workload's name."""
    pod, at = _pod(w)
    c.settings["workload"] = w.address
    key = "terminationGracePeriodSeconds"
    got = _number(pod, key, w, (*at, key), notes) if key in pod else None
    if got is not None:
        c.stop_timeout, c.locations["stop_timeout"] = got
    elif key not in pod:  # the pod spec, where the grace period would be added
        c.locations["stop_timeout"] = w.at(at, pod)
    for path, cont in _containers(w):  # the worker the first container whose command starts one runs
        command, args = cont.get("command"), cont.get("args")
        if command is None and args is None:
            continue
        words = [*(_list(command) if command is not None else []), *(_list(args) if args is not None else [])]
        if not all(isinstance(x, str) for x in words):
            break
        from visguard.linter.loaders import commandline  # its framework's settings

        key = "args" if args is not None else "command"  # the worker's options are most often in args
        for problem in commandline.settle(c, words, w.at((*path, key), cont, key)):
            _note(notes, f"{w.kind} {w.name}: {problem}", w.at((*path, key), cont, key), w.address)
        if "framework" in c.settings:  # a sidecar's command is not the worker's: the next container's may be
            break
    for path, cont in _containers(w):
        lifecycle = _map(cont.get("lifecycle"))
        if lifecycle.get("preStop"):
            c.settings["pre_stop"] = True  # the hook runs inside the grace period
            c.locations["pre_stop"] = w.at((*path, "lifecycle", "preStop"), lifecycle, "preStop")
            break


def _read_annotations(c: Consumer, docs: list[Doc], notes: list[Note]) -> None:
    """``visguard.io/processing-p99`` / ``-p50``: on the scaler, the workload or the pod template (the first)."""
    places = []
    for d in docs:
        places.append((d, _map(_map(d.obj.get("metadata")).get("annotations")), ("metadata", "annotations")))
        spec = _map(d.obj.get("spec"))
        holder, path = (_map(spec.get("jobTargetRef")), ("spec", "jobTargetRef", "template")) if (
            d.kind == "ScaledJob") else (spec, ("spec", "template"))  # fmt: skip
        meta = _map(_map(holder.get("template")).get("metadata"))
        places.append((d, _map(meta.get("annotations")), (*path, "metadata", "annotations")))
    for key, field in ((PROCESSING_P99_KEY, "processing_p99"), (PROCESSING_P50_KEY, "processing_p50")):
        for d, ann, path in places:
            if key not in ann:
                continue
            loc = d.at((*path, key), ann, key)
            seconds = parse_duration(ann[key])
            if seconds is None:
                _note(notes, f"{d.kind} {d.name}: annotation {key}: {ann[key]!r} is not a duration (like 20m, "
                      "90s or 600): not read", loc, d.address)  # fmt: skip
                continue
            setattr(c, field, seconds)
            c.locations[field] = loc
            break


def _direct_consumers(w: Doc, env: list[EnvBinding], notes: list[Note]) -> list[Consumer]:
    """A workload no KEDA trigger scales, whose container gets a queue URL or ARN: one consumer per queue."""
    refs: dict[str, EnvBinding] = {}
    for b in env:
        if b.workload == w.address and b.ref is not None and b.ref.kind in ("url", "arn"):
            refs.setdefault(b.ref.value, b)
    out = []
    spec = _map(w.obj.get("spec"))
    for b in refs.values():
        cid = w.address if len(refs) == 1 else f"{w.address}/{b.name}"
        c = Consumer(cid, "worker", location=w.at(), platform="kubernetes", source="kubernetes")
        c.queue_ref, c.link, c.link_ref = b.ref, "env", b.name
        c.locations["queue_ref"] = b.location
        if _setting(c, "max_count", spec, "replicas", w, ("spec", "replicas"), notes):
            c.concurrency = c.settings["max_count"]
        _read_workload(c, w, notes)
        _read_annotations(c, [w], notes)
        # what its code is (the join asks whether that code receives: visguard.linter.receiving)
        c.settings["images"] = [x["image"] for _, x in _containers(w) if isinstance(x.get("image"), str)]
        out.append(c)
    return out


# ------------------------------------------------------------------------------------------ registration
def _register() -> None:
    """Join the loader registry (visguard.linter.loaders.registry)."""
    from .registry import LoaderSpec, register

    register(
        LoaderSpec("kubernetes", None, claim_file, load, (".yaml", ".yml", ".json")), before="cloudformation"
    )


_register()
