"""Helpers for the simulator tests: build scenario documents in code, run them on the engine."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from visguard.engine.scenario import from_dict
from visguard.engine.sim import simulate


def worker_doc(vt=30, messages=20_000, rate=10.0, concurrency=300, processing=None, heartbeat=None,
               failures=None, max_receive_count=None, seed=1):  # fmt: skip
    queue = {"visibility_timeout": vt}
    if max_receive_count:
        queue["max_receive_count"] = max_receive_count
    consumer = {
        "type": "worker",
        "concurrency": concurrency,
        "processing": processing or {"distribution": "lognormal", "p50": 5, "p99": 45},
        "failures": failures or {},
    }
    if heartbeat:
        consumer["heartbeat"] = {"interval": heartbeat[0], "extend_by": heartbeat[1]}
    return {
        "queue": queue,
        "workload": {"messages": messages, "arrival_rate": rate},
        "consumer": consumer,
        "seed": seed,
    }


def lambda_doc(vt=60, messages=10_000, lam=None, failures=None, max_receive_count=None, processing=None,
               workload=None, seed=1):  # fmt: skip
    queue = {"visibility_timeout": vt}
    if max_receive_count:
        queue["max_receive_count"] = max_receive_count
    return {
        "queue": queue,
        "workload": workload or {"messages": messages, "arrival": "burst"},
        "consumer": {
            "type": "lambda",
            "processing": processing or {"distribution": "lognormal", "p50": 2, "p99": 20},
            "failures": failures or {},
            "lambda": lam or {"timeout": 30, "batch_size": 10},
        },
        "seed": seed,
    }


def run(doc: dict) -> dict:
    return simulate(from_dict(doc))


@pytest.fixture
def sim():
    """Scenario builders and the runner: ``sim.worker_doc(...)``, ``sim.lambda_doc(...)``, ``sim.run(doc)``."""
    return SimpleNamespace(worker_doc=worker_doc, lambda_doc=lambda_doc, run=run)
