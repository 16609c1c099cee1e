"""Suite-wide settings.

On CI (``CI`` set, as `.ci/run` is run) hypothesis is derandomized: every property and fuzz test still runs its
full number of generated examples, but the same ones on every run, so a landing never depends on luck. Locally
each run explores new examples; a failure prints the example to add as a regression test.
"""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


# What is slow is told by what a test needs, not by remembering to mark it: a test that uses Spark, a moto server
# or the CDK (jsii on Node) is marked ``slow`` here, so ``pytest -m "not slow"`` (``make test-fast``) is the quick
# edit-test loop. Under pytest-xdist (``make test`` runs ``-n 2 --dist loadgroup``) the tests that share one
# Spark session or one jsii process run in one worker, so each is started once.
SLOW_FIXTURES = {"spark": "spark", "audited": "spark", "moto_endpoint": "moto", "cdk": "cdk"}


def pytest_collection_modifyitems(config, items):
    import pytest

    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        groups = {SLOW_FIXTURES[f] for f in used & SLOW_FIXTURES.keys()}
        if "tests/cdk/" in item.nodeid or item.nodeid.startswith("cdk/"):
            groups.add("cdk")
        if groups:
            item.add_marker(pytest.mark.slow)
            item.add_marker(pytest.mark.xdist_group(sorted(groups)[0]))
