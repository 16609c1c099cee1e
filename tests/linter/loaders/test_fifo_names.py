"""A FIFO queue's name ends in .fifo and only a FIFO queue's may (CreateQueue): SQS refuses the others, so a
template declaring one is bad input at the QueueName, as in the Terraform loader; an unknown FifoQueue or a name
only the deployed stack knows is not judged."""

from __future__ import annotations

import pytest
from visguard.errors import VisguardError
from visguard.linter.loaders import load_path

BAD = {
    "FIFO without the suffix": ("QueueName: orders\n      FifoQueue: true", "must end in .fifo"),
    "the suffix on a standard queue": ("QueueName: orders.fifo", "only a FIFO queue's name may end in .fifo"),
    "the suffix with FifoQueue false": ("QueueName: orders.fifo\n      FifoQueue: 'false'", "only a FIFO"),
}
GOOD = {
    "FIFO with the suffix": "QueueName: orders.fifo\n      FifoQueue: true",
    "standard": "QueueName: orders",
    "FIFO, name chosen by CloudFormation": "FifoQueue: true",
    "FifoQueue from a parameter": "QueueName: orders.fifo\n      FifoQueue: !Ref Fifo",
    "name from a parameter": "QueueName: !Ref Name\n      FifoQueue: true",
}


def _template(tmp_path, props):
    p = tmp_path / "t.yaml"
    p.write_text(
        "Parameters:\n  Fifo: {Type: String}\n  Name: {Type: String}\n"
        f"Resources:\n  Q:\n    Type: AWS::SQS::Queue\n    Properties:\n      {props}\n"
    )
    return str(p)


@pytest.mark.parametrize("case", sorted(BAD))
def test_mismatched_fifo_names_are_bad_input_at_the_queue_name(tmp_path, case):
    props, words = BAD[case]
    path = _template(tmp_path, props)
    with pytest.raises(VisguardError) as err:
        load_path(path)
    assert err.value.file == path and err.value.place == "8" and words in str(err.value)


@pytest.mark.parametrize("case", sorted(GOOD))
def test_consistent_or_unknown_fifo_names_load(tmp_path, case):
    (m,) = [load_path(_template(tmp_path, GOOD[case]))]
    assert "Q" in m.queues
