"""Shell scripts an Ansible playbook renders from Jinja2 templates (issue 35 §2): the worker script a host runs.

A playbook that sets up worker hosts often installs its poller as a template (``template: src=poll.sh.j2
dest=/usr/local/bin/poll.sh``) whose receive command takes its settings from the play's ``vars``
(``aws sqs receive-message --visibility-timeout "{{ visibility_timeout }}"``). This loader renders such a
template the bounded way and hands the text to the shell loader (:mod:`.shell`), whose receive loops, queues and
worker commands are then located in the template itself, line for line:

- the plays of a playbook (a YAML list of mappings with ``hosts``) and their tasks (``pre_tasks``, ``tasks``,
  ``post_tasks``, ``handlers``, ``block``/``rescue``/``always`` one level deep); a task of the ``template``
  module (``template``, ``ansible.builtin.template``; ``src`` as a mapping or as ``src=... dest=...``) whose
  ``src`` is a literal found beside the playbook (``templates/SRC``, then ``SRC``, as Ansible searches a play's
  folder), and that renders a shell script (``src`` or ``dest`` ends in ``.sh``/``.bash``, or the template starts
  with a ``#!`` line naming ``sh``/``bash``);
- ``{{ name }}`` (a plain variable, spaces allowed, no filter) is the play's ``vars`` value when that is a
  literal string or number on one line; anything else stays unknown (the shell loader sees a value it cannot
  know, as for ``$(...)``, and its notes say which ``{{ ... }}`` it was). A template with ``{% ... %}``
  statements is not rendered (a note says so); ``{# ... #}`` comments are dropped within their line.

Not read: roles (``roles/*/templates``), ``vars_files``, inventory and group variables, ``set_fact`` and
registered results (those are known only on the host). Bounded: :data:`MAX_TEMPLATES` templates a playbook, each
through :mod:`.safe_io` at most :data:`MAX_BYTES`, inside the playbook's folder.
"""

from __future__ import annotations

import os
import re

from visguard.errors import VisguardError
from visguard.linter.model import Location, Model, Note

from . import safe_io

ENDINGS = (".yml", ".yaml")
MAX_BYTES = 1_000_000  # a playbook or a template
MAX_TEMPLATES = 50
MAX_TASKS = 2000
TEMPLATE_MODULES = ("template", "ansible.builtin.template", "ansible.legacy.template")
TASK_LISTS = ("pre_tasks", "tasks", "post_tasks", "handlers")
BLOCK_LISTS = ("block", "rescue", "always")
_SCRIPT_ENDINGS = (".sh", ".bash")
_EXPRESSION = re.compile(r"\{\{(.*?)\}\}")
_COMMENT = re.compile(r"\{#.*?#\}")
_NAME = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*")
_SHEBANG = re.compile(r"#!\S*\b(?:ba)?sh\b|#!\S*env\s+(?:ba)?sh\b")
# an unknown {{ ... }} as the shell loader sees it: a command substitution it cannot run (shown as written)
_UNKNOWN = "$(jinja {})"
_UNKNOWN_SHOWN = re.compile(r"\$\(jinja '(\{\{.*?\}\})'\)")


def claim_file(path: str, head: bytes) -> bool:
    """A YAML file whose first bytes look like a playbook that renders a template (``hosts:`` and a
    ``template`` task): the registry's plugin claim (``registry._ansible_file``) is the same test."""
    return (
        os.path.basename(path).endswith(ENDINGS)
        and b"hosts:" in head
        and b"template" in head
        and head.lstrip(b"\xef\xbb\xbf \t\r\n#-").find(b"Resources:") < 0
    )


def load(path: str, options=None) -> Model:
    from .decode import loads

    model = Model(source_file=path)
    st = safe_io.require_regular(path)
    if st.st_size > MAX_BYTES:
        model.notes.append(
            Note(f"not read: {st.st_size / 1048576:.1f} MB, more than a playbook", Location(path))
        )
        return model
    text = safe_io.read_bytes(path, max_bytes=MAX_BYTES).decode("utf-8", "replace")
    try:
        doc = loads(text, file=path)
    except VisguardError as exc:
        where = f" (line {exc.place})" if exc.place else ""
        model.notes.append(Note(f"playbook not read{where}: {exc.detail}", Location(path)))
        return model
    if not isinstance(doc, list):
        return model
    seen: set[str] = set()
    for play in doc[:100]:
        if not isinstance(play, dict) or "hosts" not in play:
            continue
        variables = play.get("vars") if isinstance(play.get("vars"), dict) else {}
        for task in _tasks(play):
            src = _template_src(task)
            if src is None:
                continue
            found = _find(path, src)
            if found is None or found in seen or len(seen) >= MAX_TEMPLATES:
                continue
            seen.add(found)
            _render_into(model, path, found, src, task, variables)
    return model


def _tasks(play: dict) -> list:
    out: list = []
    for key in TASK_LISTS:
        items = play.get(key)
        for t in items[:MAX_TASKS] if isinstance(items, list) else ():
            if not isinstance(t, dict):
                continue
            out.append(t)
            for b in BLOCK_LISTS:
                inner = t.get(b)
                out += (
                    [x for x in inner[:MAX_TASKS] if isinstance(x, dict)] if isinstance(inner, list) else []
                )
    return out[:MAX_TASKS]


def _template_src(task: dict) -> tuple[str, str | None] | None:
    """(src, dest) of a ``template`` task whose src is a literal, else None."""
    for module in TEMPLATE_MODULES:
        if module not in task:
            continue
        args = task[module]
        if isinstance(args, str):  # template: src=a.j2 dest=/x
            pairs = dict(p.split("=", 1) for p in args.split() if "=" in p)
            args = pairs
        if not isinstance(args, dict):
            return None
        src, dest = args.get("src"), args.get("dest")
        if not isinstance(src, str) or "{{" in src or not src or len(src) > 1024:
            return None
        return src, dest if isinstance(dest, str) else None
    return None


def _find(playbook: str, src: tuple) -> str | None:
    """The template file: ``templates/SRC`` then ``SRC`` beside the playbook, inside the playbook's folder."""
    name = src[0]
    if os.path.isabs(name) or "\x00" in name:
        return None
    here = os.path.dirname(playbook)  # the template is named as the playbook is (relative when it is)
    folder = os.path.abspath(here or ".")
    for rel in (os.path.join("templates", name), name):
        full = os.path.normpath(os.path.join(folder, rel))
        if os.path.commonpath([folder, full]) != folder:
            continue  # outside the playbook's folder
        if os.path.isfile(full):
            return os.path.normpath(os.path.join(here, rel))
    return None


def _render_into(model: Model, playbook: str, found: str, src: tuple, task: dict, variables: dict) -> None:
    from . import shell

    try:
        data = safe_io.read_bytes(found, max_bytes=MAX_BYTES)
    except VisguardError as exc:
        model.notes.append(Note(f"template {src[0]} not read: {exc.detail}", Location(found)))
        return
    text = data.decode("utf-8", "replace")
    first = text.split("\n", 1)[0]
    script = src[0].removesuffix(".j2").endswith(_SCRIPT_ENDINGS) or (src[1] or "").endswith(_SCRIPT_ENDINGS)
    if not (script or _SHEBANG.match(first)):
        return
    if "{%" in text:
        line = text[: text.index("{%")].count("\n") + 1
        model.notes.append(
            Note(
                f"template {src[0]} has Jinja2 statements ({{% ... %}}): it is not rendered here, and the commands "
                "in it are not checked",
                Location(found, line=line),
                found,
            )
        )
        return
    rendered = "\n".join(_render_line(ln, variables) for ln in text.split("\n"))
    part = shell.read(found, rendered, Model(source_file=found))
    for c in [*part.pending, *(c for q in part.queues.values() for c in q.consumers)]:
        c.settings["rendered_by"] = playbook
        if isinstance(c.settings.get("queue_unknown"), str):
            c.settings["queue_unknown"] = _UNKNOWN_SHOWN.sub(r"\1", c.settings["queue_unknown"])
    for n in part.notes:
        n.message = _UNKNOWN_SHOWN.sub(r"\1", n.message)
    model.queues.update(part.queues)
    model.pending += part.pending
    model.notes += part.notes
    model.env += part.env


def _render_line(line: str, variables: dict) -> str:
    line = _COMMENT.sub("", line)

    def value(m: re.Match) -> str:
        name = _NAME.fullmatch(m.group(1))
        v = variables.get(name.group(1)) if name else None
        if isinstance(v, bool) or v is None:
            return _UNKNOWN.format("'" + m.group(0).replace("'", "") + "'")
        if isinstance(v, (int, float)) or (isinstance(v, str) and "\n" not in v and "{{" not in v):
            return str(v)
        return _UNKNOWN.format("'" + m.group(0).replace("'", "") + "'")

    return _EXPRESSION.sub(value, line)


def _register() -> None:
    from .registry import LoaderSpec, register

    register(LoaderSpec("ansible", None, claim_file, load, ENDINGS), before="cloudformation")


_register()
