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
# edit-test loop. Under pytest-xdist (``make test`` runs two workers) each worker starts its own Spark session and
# jsii process once (session fixtures). (pytest-xdist's ``xdist_group`` marks did not group anything with pytest
# 9.2 / xdist 3.8 here, so the suite does not rely on them: no test depends on running beside another.)
SLOW_FIXTURES = {"spark", "audited", "moto_endpoint", "cdk"}


def pytest_collection_modifyitems(config, items):
    import pytest

    for item in items:
        if SLOW_FIXTURES & set(getattr(item, "fixturenames", ())) or "tests/cdk/" in item.nodeid:
            item.add_marker(pytest.mark.slow)
