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
