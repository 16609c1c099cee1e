"""Elastic Beanstalk ``.ebextensions/*.config`` files -> a model with the worker environment's consumer (issue 24).

A config file is YAML or JSON; its ``option_settings`` come in a list form (``[{namespace, option_name, value}]``)
or a map form (``{"aws:elasticbeanstalk:sqsd": {VisibilityTimeout: 600}}``), both documented in the Elastic
Beanstalk Developer Guide ("Option settings", ebextensions-optionsettings.html). The ``aws:elasticbeanstalk:sqsd``
options make the consumer (``consumers_cfn.sqsd_consumer``: sqsd's defaults where unset). Its queue is the
``WorkerQueueURL``: a literal URL/ARN/name leaves the consumer pending (``Model.pending``) until the run's join
finds the queue in another input; a ``{"Ref": ...}`` to an ``AWS::SQS::Queue`` of the file's own ``Resources``
attaches it there (a resource without a ``Type``, or an empty one, customises one of Beanstalk's own:
``AWSEBAutoScalingGroup: Metadata: ...``, the documented pattern; it is not read). Without a WorkerQueueURL, or
with one that refers to Beanstalk's own ``AWSEBWorkerQueue``, Beanstalk uses a queue it creates itself: a note,
no consumer.
Environment properties (``aws:elasticbeanstalk:application:environment``) naming a queue by URL or ARN become
``Model.env`` bindings.
"""

from __future__ import annotations

import json
import os

from visguard import facts
from visguard.errors import VisguardError
from visguard.linter.consumers import EnvBinding, QueueRef, queue_name_of
from visguard.linter.model import Location, Model, Note

from . import values
from .consumers_cfn import ENV_NAMESPACE, MAX_ITEMS, _sqs_like, sqsd_consumer
from .decode import PosDict, load_file, locate

FOLDER = ".ebextensions"
SUFFIX = ".config"


def is_ebextension(path: str) -> bool:
    return path.endswith(SUFFIX) and os.path.basename(os.path.dirname(os.path.abspath(path))) == FOLDER


def config_files(path: str) -> list[str]:
    """The config files of ``path``: itself, or a ``.ebextensions`` folder's ``*.config`` files in the order
    Elastic Beanstalk applies them (alphabetical: a later file's option wins)."""
    if not os.path.isdir(path):
        return [path]
    with os.scandir(path) as it:
        names = sorted(e.name for e in it if e.name.endswith(SUFFIX) and e.is_file(follow_symlinks=False))
    return [os.path.join(path, n) for n in names[:MAX_ITEMS]]


def load_ebextension(path: str) -> Model:
    """The model of one config file, or of a ``.ebextensions`` folder (its files' options together)."""
    model = Model(source_file=path)
    entries = []  # (namespace, option, value, Location)
    for file in config_files(path):
        doc = load_file(file)
        if doc is None:
            continue
        if not isinstance(doc, dict):
            raise VisguardError("not an .ebextensions config: the document is not a mapping", file=file)
        own = _own_resources(doc)
        if own is not None:
            from .cfn import load_template

            part = load_template(own, file=file, source="ebextensions")
            model.queues.update(part.queues)
            model.notes += part.notes
            model.pending += part.pending
            model.env += part.env
        entries += [(ns, opt, v, _loc(doc, file, at)) for ns, opt, v, at in _entries(doc, file)]
    cid = FOLDER if os.path.isdir(path) else f"{FOLDER}/{os.path.basename(path)}"
    sqsd = {opt: (v, loc) for ns, opt, v, loc in entries if ns == facts.SQSD_NAMESPACE}
    for ns, opt, v, loc in entries:
        if ns == ENV_NAMESPACE:
            ref = _ref(v, loc)
            if ref is not None:
                model.env.append(EnvBinding(opt, cid, None, ref, loc))
    if not sqsd:
        return model
    first = next(loc for ns, _, _, loc in entries if ns == facts.SQSD_NAMESPACE)
    where = first
    if "WorkerQueueURL" not in sqsd:
        model.notes.append(
            Note(
                f"{cid} sets sqsd options but no WorkerQueueURL: the worker environment's queue is set elsewhere "
                "(or created by Elastic Beanstalk), so its consumer was not checked",
                where,
                cid,
            )
        )
        return model
    raw, at = sqsd.pop("WorkerQueueURL")
    read = {}
    for option, (v, loc) in sqsd.items():
        if option in facts.SQSD_OPTIONS:
            fn = _function_name(v)
            if (
                fn is not None
            ):  # a function call: its value is known only at deploy time (as a WorkerQueueURL's)
                read[option] = (f"a {fn} (known at deploy time)", loc)
                continue
            try:
                read[option] = (values.number(v), loc)
            except values.BadValue as exc:
                raise VisguardError(
                    f"{loc.path}: {exc.quoted()}", file=loc.file, place=loc.line and str(loc.line)
                ) from None
    c, notes = sqsd_consumer(cid, read, at, "ebextensions", at)
    c.locations["link"] = at
    model.notes += notes
    own = _own_queue(raw, model)
    if own is not None:
        model.queues[own].consumers.append(c)
        return model
    ref = _ref(raw, at) or (QueueRef("name", raw.strip(), at) if queue_name_of(raw) else None)
    beanstalks = _beanstalk_resource(raw)
    if ref is None and beanstalks is not None:
        model.notes.append(
            Note(
                f"the WorkerQueueURL of {cid} is {beanstalks}, the queue Elastic Beanstalk creates for the worker "
                "environment: its settings are not in these files, so its consumer was not checked against it",
                at,
                cid,
            )
        )
        return model
    if ref is None:
        model.notes.append(Note(f"the WorkerQueueURL of {cid} names no queue visguard can read", at, cid))
        return model
    c.queue_ref = ref
    model.pending.append(c)
    return model


def _own_resources(doc: dict) -> dict | None:
    """``doc`` with only the resources the file declares (those with a ``Type``), or None when it declares none.
    A resource without a ``Type`` customises one Elastic Beanstalk creates itself (``AWSEBAutoScalingGroup:
    Metadata: ...``, the documented pattern): nothing of it concerns a queue or its worker, so it is not read."""
    resources = doc.get("Resources")
    if not isinstance(resources, dict) or not resources:
        return None
    own = {
        k: v for k, v in resources.items() if v is not None and not (isinstance(v, dict) and "Type" not in v)
    }
    if not own:
        return None
    if len(own) == len(resources):
        return doc
    return _like(doc, {**doc, "Resources": _like(resources, own)})


def _like(node: dict, items: dict) -> dict:
    """``items`` as a mapping written where ``node`` was (its positions kept, for the findings' lines)."""
    if not isinstance(node, PosDict):
        return items
    out = PosDict(items)
    out.line, out.col, out.key_pos = node.line, node.col, node.key_pos
    return out


def _loc(doc: dict, file: str, at: list) -> Location:
    line, col = locate(doc, at)
    return Location(file, line=line, column=col, path="/".join(str(p) for p in at))


def _entries(doc: dict, path: str):
    """(namespace, option, value, document path) of each option setting, in either form."""
    opts = doc.get("option_settings")
    if opts is None:
        return
    if isinstance(opts, list):
        for i, o in enumerate(opts[:MAX_ITEMS]):
            if isinstance(o, dict) and isinstance(o.get("option_name"), str) and "value" in o:
                yield o.get("namespace"), o["option_name"], o["value"], ["option_settings", i, "value"]
        return
    if isinstance(opts, dict):
        for ns, options in list(opts.items())[:MAX_ITEMS]:
            if isinstance(options, dict):
                for name, v in list(options.items())[:MAX_ITEMS]:
                    if isinstance(name, str):
                        yield ns, name, v, ["option_settings", ns, name]
        return
    line, _ = locate(doc, ["option_settings"])
    raise VisguardError("option_settings: must be a list or a mapping", file=path, place=line and str(line))


def _backtick(raw):
    """``'`{"Ref": "WorkerQueue"}`'``: an .ebextensions function call, as its JSON (None otherwise)."""
    if isinstance(raw, str) and raw.strip().startswith("`") and raw.strip().endswith("`"):
        try:
            return json.loads(raw.strip()[1:-1])
        except ValueError:
            return None
    return raw if isinstance(raw, dict) else None


def _function_name(raw) -> str | None:
    """The function an option value calls (``Fn::GetOptionSetting``, ``Ref``, ...), written in backticks or as a
    one-key mapping; None for a plain value."""
    fn = _backtick(raw)
    if isinstance(fn, dict) and len(fn) == 1:
        ((name, _),) = fn.items()
        if isinstance(name, str) and (name == "Ref" or name.startswith("Fn::")):
            return name
    return None


def _own_queue(raw, model: Model) -> str | None:
    fn = _backtick(raw)
    if isinstance(fn, dict) and len(fn) == 1:
        ((k, v),) = fn.items()
        target = v if k == "Ref" else v[0] if k == "Fn::GetAtt" and isinstance(v, list) and v else None
        if isinstance(target, str) and target in model.queues:
            return target
    return None


def _beanstalk_resource(raw) -> str | None:
    """``AWSEBWorkerQueue`` when a WorkerQueueURL refers to a resource Elastic Beanstalk creates itself (its
    logical ids start with ``AWSEB``: Elastic Beanstalk Developer Guide, "Customizing environment resources",
    environment-resources.html, checked 2026-12-02), else None."""
    fn = _backtick(raw)
    if isinstance(fn, dict) and len(fn) == 1:
        ((k, v),) = fn.items()
        target = v if k == "Ref" else v[0] if k == "Fn::GetAtt" and isinstance(v, list) and v else None
        if isinstance(target, str) and target.startswith("AWSEB"):
            return target
    return None


def _ref(v, loc: Location) -> QueueRef | None:
    if not isinstance(v, str) or not _sqs_like(v.strip()) or queue_name_of(v.strip()) is None:
        return None
    s = v.strip()
    return QueueRef("arn" if s.startswith("arn:") else "url", s, loc)
