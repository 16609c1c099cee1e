"""The ``.ebextensions`` adapter of the fix core (visguard.linter.fixes.core): an Elastic Beanstalk worker's sqsd
option settings in a ``.ebextensions/*.config`` file (YAML or JSON), in either form of ``option_settings``:

    option_settings:                                  option_settings:
      - namespace: aws:elasticbeanstalk:sqsd            aws:elasticbeanstalk:sqsd:
        option_name: VisibilityTimeout                    VisibilityTimeout: 300
        value: 300

What is mechanical: an sqsd option already written in the file the loader read it from (``visibility_override``
is sqsd's VisibilityTimeout, ``inactivity_timeout`` its InactivityTimeout): only the digits of its value change,
quotes kept. An option the file does not write (sqsd's default is in effect) is left alone with the reason: which
file of the folder should carry it is the team's choice.
"""

from __future__ import annotations

import io
import re

from visguard import facts
from visguard.linter.fixes.core import Adapter, CannotFix, Edit, splice
from visguard.linter.model import Change

# model field -> sqsd option (visguard.facts.SQSD_OPTIONS names both)
OPTIONS = {field: option for option, (field, _default, _range) in facts.SQSD_OPTIONS.items()}
_NUMBER = re.compile(r"([\"']?)(\d+)\1(?![\w.])")


class _Parsed:
    __slots__ = ("text", "doc", "starts")

    def __init__(self, text: str):
        from ruamel.yaml import YAML

        y = YAML(typ="rt")
        y.preserve_quotes = True
        self.text = text
        self.doc = y.load(io.StringIO(text))
        self.starts = [0]
        for line in text.splitlines(keepends=True):
            self.starts.append(self.starts[-1] + len(line))


def _value_at(doc, option: str) -> tuple[int, int] | None:
    """(line, column), 0-based, of ``option``'s value in the sqsd namespace, in either form; None when absent."""
    settings = doc.get("option_settings") if hasattr(doc, "get") else None
    found = None
    if isinstance(settings, list):
        for entry in settings:
            if (
                hasattr(entry, "get")
                and entry.get("namespace") == facts.SQSD_NAMESPACE
                and entry.get("option_name") == option
                and "value" in entry
            ):
                found = entry.lc.value("value")  # a later entry wins, as Beanstalk applies them
    elif hasattr(settings, "get"):
        sqsd = settings.get(facts.SQSD_NAMESPACE)
        if hasattr(sqsd, "get") and option in sqsd:
            found = sqsd.lc.value(option)
    return found


class EbextensionsAdapter(Adapter):
    source = "ebextensions"

    def __init__(self, path: str):
        self.path = path

    def parse(self, text: str) -> _Parsed:
        return _Parsed(text)

    def locate(self, change: Change, doc: _Parsed) -> list[tuple[tuple, object, object]]:
        option = OPTIONS.get(change.field) if change.scope == "consumer" else None
        if option is None:
            raise CannotFix(f"{change.field} is not an sqsd option visguard writes in .ebextensions")
        at = _value_at(doc.doc, option)
        if at is None:
            raise CannotFix(
                f"{option} is not written in this file (sqsd's default is in effect): add it to option_settings "
                f"under {facts.SQSD_NAMESPACE} by hand"
            )
        value = change.value
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise CannotFix(f"{option} = {value!r} is not a whole number of seconds")
        return [((facts.SQSD_NAMESPACE, option), value, at)]

    def render(self, text: str, doc: _Parsed, edits: list[Edit]) -> tuple[str, dict]:
        placed, failed = [], {}
        for e in edits:
            line, col = e.place
            start = doc.starts[line] + col
            m = _NUMBER.match(text, start)
            if m is None:
                failed[e.key] = f"{e.key[1]} is not a number written there (a reference or an expression)"
                continue
            quote = m.group(1)
            placed.append(
                Edit(e.finding, e.key, e.value, (start, m.end(), lambda v, q=quote: f"{q}{int(v)}{q}"))
            )
        out, overlap = splice(text, placed)
        failed.update(overlap)
        return out, failed

    def check(self, text: str) -> None:
        """The edited file still reads as a configuration file (the parser the loader's YAML reading accepts)."""
        _Parsed(text)
