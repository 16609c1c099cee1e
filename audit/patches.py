"""``visguard audit run --sources DIR... --patches OUT``: the linter's fix plan of each source repository as one
unified diff (``OUT/<repository>.diff``), never applied: exactly what ``visguard lint ROOT --diff`` prints for that
root (the same ``visguard.linter.fix.plan``, with re-linting; the paths in it are the root's absolute path, as
the audit lints it). The fixes the plan refused are in ``OUT/refused.txt`` with their reasons, and
``OUT/README.md`` says which file is which. OUT must be new or empty and outside every source folder.
"""

from __future__ import annotations

from pathlib import Path

from visguard.errors import VisguardError
from visguard.neutralize import printable

README = "README.md"
REFUSED = "refused.txt"


def check_folder(folder, roots) -> None:
    """Refuse OUT inside (or holding) a source folder, or not new/empty (before anything is read)."""
    from visguard.audit.sources import refuse_inside

    refuse_inside({folder: "--patches"}, roots)
    p = Path(folder)
    if p.is_symlink() or (p.exists() and not p.is_dir()):
        raise VisguardError("is not a folder", file=printable(str(folder)), place="--patches")
    if p.is_dir() and any(p.iterdir()):
        raise VisguardError("must be a new or empty folder", file=printable(str(folder)), place="--patches")


def readme(roots: list[str], names: list[str], plans: dict[int, tuple[str, str]], errors) -> str:
    """README.md of the patches folder (pure)."""
    lines = [
        "# visguard fix plans, one per source repository",
        "",
        "Each `.diff` is what `visguard lint ROOT --diff` prints for that repository (nothing was applied). The",
        "paths in it are the repository's absolute path as the audit read it; apply one from `/` with",
        "`patch -p1 < FILE`, or review it and open a pull request. The fixes the plan refused, with the reason, are",
        f"in `{REFUSED}`.",
        "",
        "| repository | patch | files changed | refused fixes | lint errors |",
        "| --- | --- | --- | --- | --- |",
    ]
    for i, (root, name) in enumerate(zip(roots, names, strict=True)):
        diff, refused = plans.get(i, ("", ""))
        files = sum(1 for ln in diff.splitlines() if ln.startswith("+++ "))
        n_ref = len([r for r in refused.splitlines() if r])
        n_err = sum(1 for k, _ in errors if k == i)
        patch = f"`{name}.diff`" if diff else "(nothing to change)"
        cell = printable(root).replace("|", "\\|")
        lines.append(f"| `{cell}` | {patch} | {files} | {n_ref} | {n_err} |")
    return "\n".join(lines) + "\n"


def write(folder, roots: list[str], plans: list[tuple[int, str, str]], errors) -> dict:
    """Write the diffs, refused.txt and README.md into ``folder``; returns what summary.json says of them."""
    from visguard.audit.sarif_repos import slugs

    p = Path(folder)
    p.mkdir(parents=True, exist_ok=True)
    names = slugs(roots)
    by_root = {i: (d, r) for i, d, r in plans}
    written = {}
    refused_lines = []
    for i, (root, name) in enumerate(zip(roots, names, strict=True)):
        diff, refused = by_root.get(i, ("", ""))
        if diff:
            (p / f"{name}.diff").write_text(diff, encoding="utf-8", newline="")
            written[root] = f"{name}.diff"
        refused_lines += [f"{printable(root)}: {printable(r)}" for r in refused.splitlines() if r]
    (p / REFUSED).write_text("".join(f"{x}\n" for x in refused_lines), encoding="utf-8")
    (p / README).write_text(readme(roots, names, by_root, errors), encoding="utf-8")
    return {"folder": str(p), "patches": written, "refused": len(refused_lines)}
