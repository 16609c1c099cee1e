"""pytest plugin (entry point ``pytest11``: visguard_engine): the ``sqs_engine`` fixture.

```python
def test_my_consumer(sqs_engine):          # boto3 SQS clients inside the test talk to sqs_engine
    sqs = boto3.client("sqs", region_name="us-east-1")
    ...
    sqs_engine.advance(3600)               # one virtual hour (time.sleep(3600) does the same)
```
The fixture is ``visguard.engine.testing.mock_sqs()`` (virtual clock) around the test; a test that wants other
options uses ``mock_sqs(...)`` itself.
"""

from __future__ import annotations

import pytest


@pytest.fixture
def sqs_engine():
    """An Engine that every boto3 SQS client of the test talks to, on a virtual clock (mock_sqs())."""
    from visguard.engine.testing import mock_sqs

    with mock_sqs() as eng:
        yield eng
