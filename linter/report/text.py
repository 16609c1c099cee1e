"""Human output: findings grouped by file and by resource, coloured on a terminal. Every value from input
goes through ``visguard.neutralize.printable`` (no escape sequence or newline reaches the terminal)."""

from __future__ import annotations

from itertools import groupby

from visguard.linter.api import severity_counts
from visguard.linter.report._common import display_path, queue_construct_path
from visguard.linter.vocabulary import JOINED_BY
from visguard.neutralize import printable as p

_COLORS = {"error": "\033[1;31m", "warning": "\033[33m", "info": "\033[36m"}
_BOLD, _DIM, _RESET = "\033[1m", "\033[2m", "\033[0m"


def _plural(n: int, word: str) -> str:
    if word == "info":
        return f"{n} info"
    return f"{n} {word}" + ("" if n == 1 else "s")


def _place(loc) -> str:
    return f"{display_path(loc.file)}:{loc.line}" if loc.line else display_path(loc.file)


def render_text(result, *, color: bool = False) -> str:
    def c(code: str, text: str) -> str:
        return f"{code}{text}{_RESET}" if color else text

    lines: list[str] = []
    by_file = lambda f: display_path(f.location.file)  # noqa: E731
    for file, file_findings in groupby(sorted(result.findings, key=by_file), key=by_file):
        lines.append(c(_BOLD, p(file)))
        file_findings = list(file_findings)
        order: dict[str, int] = {}
        groups: dict[str, list] = {}
        for f in file_findings:  # queues in the order of their first finding (by line)
            order.setdefault(f.queue, f.location.line or 0)
            groups.setdefault(f.queue, []).append(f)
        for queue in sorted(order, key=lambda k: (order[k], k)):
            group = groups[queue]  # one pass: a file of 10,000 queues is not read 10,000 times
            header = queue_construct_path(queue, group)
            lines.append(f"  {c(_BOLD, p(queue))}" + (f" [{p(header)}]" if header else ""))
            for f in group:
                where = f"{f.location.line}:{f.location.column or 1}" if f.location.line else "-"
                sev = f.severity.value
                lines.append(
                    f"    {where:<8} {c(_COLORS[sev], sev.ljust(7))}  {c(_BOLD, p(f.rule))}  {p(f.message)}"
                )
                pad = f"    {'':<8} {'':<7}  {'':<5}  "
                cp = f.location.construct_path
                if cp and cp != header:
                    lines.append(pad + c(_DIM, f"at {p(cp)}"))
                if f.joined_by is not None:
                    lines.append(pad + c(_DIM, p(JOINED_BY.format(place=_place(f.joined_by)))))
                if f.fix:
                    lines.append(pad + c(_DIM, "fix: " + p(f.fix)))
        lines.append("")
    counts = severity_counts(result.findings)
    total = sum(counts.values())
    scope = f"{_plural(result.files_read, 'file')}, {_plural(result.queues, 'queue')}"
    if total:
        parts = ", ".join(_plural(counts[s], s) for s in ("error", "warning", "info") if counts[s])
        lines.append(f"{_plural(total, 'finding')} ({parts}) in {scope}.")
    else:
        lines.append(f"No findings in {scope}.")
    if result.errors:
        lines.append(f"{_plural(len(result.errors), 'input')} could not be linted (see the errors above).")
    return "\n".join(lines) + "\n"
