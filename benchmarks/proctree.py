"""CPU-seconds of a process tree from /proc (Linux): the one sampler the audit benchmarks share.

A Spark audit's CPU is spread over the driver's Python, the JVM it starts and the JVM's Python workers (and, on a
standalone cluster, executor JVMs under the workers). ``/proc/PID/stat`` gives each live process's own user +
system time; children that exit are in their parent's ``cutime`` only once waited for, so the tree is sampled
every ``every`` seconds until the command exits and each process's last sample counts (the last ``every``
seconds of a process are missed: a slight underestimate, the same for every run).

Used by ``audit_scale.py``, ``audit_sources.py`` and ``audit_cpu_ab.py`` (``python -P`` puts no directory on
sys.path: they put this folder on it).
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path


def proc_table() -> dict[int, tuple[int, float, str]]:
    """{pid: (ppid, user + system CPU seconds of the process itself, its name)}."""
    tick = os.sysconf("SC_CLK_TCK")
    out = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                raw = (d / "stat").read_text()
            except OSError:
                continue
            name, rest = raw.split("(", 1)[1].rsplit(")", 1)
            f = rest.split()
            out[int(d.name)] = (int(f[1]), (int(f[11]) + int(f[12])) / tick, name)
    return out


def descendants(procs: dict, root: int) -> set[int]:
    """``root`` and every process below it in ``procs`` (:func:`proc_table`)."""
    tree, grew = {root}, True
    while grew:
        grew = False
        for pid, (ppid, *_) in procs.items():
            if ppid in tree and pid not in tree:
                tree.add(pid)
                grew = True
    return tree & procs.keys() | {root}


def tree_cpu(root: int) -> float:
    """CPU seconds of ``root`` and its live descendants now (inside a process: ``tree_cpu(os.getpid())``)."""
    procs = proc_table()
    return sum(procs[p][1] for p in descendants(procs, root) if p in procs)


def kind(name: str) -> str:
    """The part of an audit a process is: ``jvm``, ``driver`` (the visguard Python that started it; :func:`sample`
    counts the command's own process as the driver whatever its name) or ``workers`` (the JVM's Python workers),
    else its name."""
    if name == "java":
        return "jvm"
    if name == "visguard":
        return "driver"
    return "workers" if "python" in name else name


def sample(proc: subprocess.Popen, every: float = 0.25, also: tuple[int, ...] = ()) -> dict:
    """Sample ``proc``'s tree until it exits: ``cpu`` (all of it), ``cpu_by`` (:func:`kind` -> CPU) and ``other``
    (what the trees of the ``also`` processes, e.g. a standalone cluster's workers, spent meanwhile)."""
    start = proc_table()
    before = {p: start[p][1] for r in also for p in descendants(start, r) if p in start}
    last: dict[int, tuple[float, str]] = {}
    other: dict[int, float] = {}
    while proc.poll() is None:
        procs = proc_table()
        for pid in descendants(procs, proc.pid):
            if pid in procs:
                last[pid] = procs[pid][1:]
        for r in also:
            for pid in descendants(procs, r):
                if pid in procs:
                    other[pid] = procs[pid][1] - before.get(pid, 0.0)
        time.sleep(every)
    by: dict[str, float] = {}
    for pid, (cpu, name) in last.items():
        k = "driver" if pid == proc.pid else kind(name)
        by[k] = round(by.get(k, 0.0) + cpu, 1)
    return {
        "cpu": round(sum(c for c, _ in last.values()), 1),
        "cpu_by": {k: v for k, v in sorted(by.items()) if v},
        "other": round(sum(other.values()), 1),
    }


def cpu_of_tree(proc: subprocess.Popen, every: float = 0.25) -> float:
    """CPU seconds of ``proc`` and all its descendants, sampled until it exits."""
    return sample(proc, every)["cpu"]


def run_tree(cmd: list[str], *, log: Path | None = None, env: dict | None = None, every: float = 0.25,
             also: tuple[int, ...] = (), check: bool = True, cwd: Path | None = None) -> dict:  # fmt: skip
    """Run ``cmd``: ``wall`` seconds, :func:`sample`'s ``cpu``, ``cpu_by`` and ``other``, and its ``stdout``
    (into a file, never a pipe nobody reads while sampling; stderr to ``log``, or nowhere)."""
    import tempfile

    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as out, log.open("ab") if log else open(os.devnull, "wb") as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env, cwd=cwd)
        r = sample(proc, every, also)
        code = proc.wait()
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    if check and code != 0:
        raise SystemExit(
            f"{' '.join(map(str, cmd[:3]))} failed (exit {code})" + (f", see {log}" if log else "")
        )
    return {"wall": round(time.perf_counter() - t0, 1), **r, "stdout": text}
