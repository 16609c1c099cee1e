"""Spark clusters on 127.0.0.1 for the audit tests: a standalone master and worker, a Spark Connect server, and an
executor Python that has pyspark, numpy and pyarrow but not visguard (a venv of the base interpreter whose only
packages are links to those, so nothing else of this environment leaks in)."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pyspark

SPARK_HOME = Path(pyspark.__file__).parent
# what the executors need besides the shipped code: pyspark (and its py4j), numpy, pyarrow; no visguard
EXECUTOR_PACKAGES = ("pyspark", "py4j", "numpy", "numpy.libs", "pyarrow")


def site_packages() -> Path:
    return Path(pyspark.__file__).parent.parent


def executor_python(root: Path) -> str:
    """A Python (venv of the base interpreter, no pip) that can import only ``EXECUTOR_PACKAGES``."""
    venv = root / "executor-venv"
    py = venv / "bin" / "python"
    if not py.exists():
        base = getattr(sys, "_base_executable", None) or sys.executable
        subprocess.run([base, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
        shim = root / "executor-packages"
        shim.mkdir(exist_ok=True)
        for name in EXECUTOR_PACKAGES:
            src = site_packages() / name
            if src.exists() and not (shim / name).exists():
                (shim / name).symlink_to(src)
        sp = next((venv / "lib").glob("python3*/site-packages"))
        (sp / "executor-packages.pth").write_text(f"{shim}\n")
    check = subprocess.run(
        [
            str(py),
            "-c",
            "import pyspark, numpy, pyarrow\ntry:\n import visguard\nexcept ImportError:\n print('ok')",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env={k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")},
    )
    assert check.stdout.strip() == "ok", check.stderr  # the executors cannot import visguard
    return str(py)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spark_env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYSPARK_", "SPARK_"))}
    env.update(SPARK_HOME=str(SPARK_HOME), SPARK_LOCAL_IP="127.0.0.1", SPARK_NO_DAEMONIZE="1", **extra)
    return env


def _wait_for(path: Path, pattern: str, proc: subprocess.Popen | None, timeout: float = 120) -> re.Match:
    deadline = time.time() + timeout
    while time.time() < deadline:
        text = path.read_text(errors="replace") if path.exists() else ""
        m = re.search(pattern, text)
        if m:
            return m
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"{proc.args[:3]} exited: {text[-3000:]}")
        time.sleep(0.3)
    raise TimeoutError(f"{pattern!r} not in {path}: {text[-3000:]}")


class Standalone:
    """``bin/spark-class`` Master and Worker on 127.0.0.1 (one worker, 2 cores)."""

    def __init__(self, root: Path):
        self.root = root
        self.procs: list[subprocess.Popen] = []

    def start(self) -> str:
        port = free_port()
        env = spark_env(SPARK_DAEMON_MEMORY="512m")
        cls = str(SPARK_HOME / "bin" / "spark-class")
        mlog = self.root / "master.log"
        self.procs.append(
            subprocess.Popen(
                [cls, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port),
                 "--webui-port", str(free_port())],
                stdout=mlog.open("wb"), stderr=subprocess.STDOUT, env=env, start_new_session=True,
            )
        )  # fmt: skip
        _wait_for(mlog, r"I have been elected leader|Starting Spark master", self.procs[-1])
        self.url = f"spark://127.0.0.1:{port}"
        wlog = self.root / "worker.log"
        (self.root / "work").mkdir(exist_ok=True)
        self.procs.append(
            subprocess.Popen(
                [cls, "org.apache.spark.deploy.worker.Worker", self.url, "--host", "127.0.0.1", "--cores", "2",
                 "--memory", "1g", "--webui-port", str(free_port()), "--work-dir", str(self.root / "work")],
                stdout=wlog.open("wb"), stderr=subprocess.STDOUT, env=env, start_new_session=True,
            )
        )  # fmt: skip
        _wait_for(wlog, r"Successfully registered with master", self.procs[-1])
        return self.url

    def stop(self) -> None:
        for p in reversed(self.procs):
            p.terminate()
        for p in self.procs:
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                p.kill()


class ConnectServer:
    """``sbin/start-connect-server.sh`` on 127.0.0.1 (logs and pid file in ``root``), local[2] executors run by
    ``python``."""

    def __init__(self, root: Path, python: str):
        self.root, self.python = root, python
        # the server builds its Python workers' command from PYSPARK_PYTHON (not from spark.pyspark.python)
        self.env = spark_env(
            SPARK_LOG_DIR=str(root / "logs"),
            SPARK_PID_DIR=str(root),
            SPARK_IDENT_STRING="vg",
            PYSPARK_PYTHON=python,
        )
        self.env.pop("SPARK_NO_DAEMONIZE")

    def start(self) -> str:
        port = free_port()
        subprocess.run(
            [str(SPARK_HOME / "sbin" / "start-connect-server.sh"), "--master", "local[2]",
             "--conf", f"spark.connect.grpc.binding.port={port}",
             "--conf", "spark.connect.grpc.binding.address=127.0.0.1",
             "--conf", f"spark.pyspark.python={self.python}", "--conf", "spark.ui.enabled=false",
             "--conf", "spark.sql.shuffle.partitions=2", "--driver-memory", "1g"],
            env=self.env, check=True, timeout=120, capture_output=True,
        )  # fmt: skip
        log = next((self.root / "logs").glob("*.out"))
        _wait_for(log, r"Spark Connect server started|SparkConnectServer.*started", None)
        return f"sc://127.0.0.1:{port}"

    def stop(self) -> None:
        subprocess.run(
            [str(SPARK_HOME / "sbin" / "stop-connect-server.sh")],
            env=self.env,
            timeout=120,
            capture_output=True,
        )
