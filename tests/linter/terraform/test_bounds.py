"""Issue 28, at the loader: FIFO names, module depth versus cycles, plan shapes, numbers, evaluation bounds
that try() cannot hide, and messages that name a value's type and place, never a string's content."""

from __future__ import annotations

import json
import re

import pytest
from visguard.errors import VisguardError
from visguard.linter.loaders import terraform

TOKEN = "c2VjcmV0LXRva2VuLTAxMjM0NTY3ODk"


def _load(module, opts, files, **kw):
    return terraform.load(module(files), opts(**kw))


@pytest.mark.parametrize(
    ("queue", "said"),
    [
        ('name = "orders"\n  fifo_queue = true', "a FIFO queue's name must end in .fifo"),
        ('name = "orders.fifo"', "only a FIFO queue's name may end in .fifo"),
        ('name = "orders.fifo"\n  fifo_queue = false', "only a FIFO queue's name may end in .fifo"),
    ],
    ids=["fifo without .fifo", ".fifo without fifo_queue", ".fifo with fifo_queue false"],
)
def test_fifo_name_mismatches_are_bad_input(module, opts, queue, said):
    with pytest.raises(VisguardError, match=said) as exc:
        _load(module, opts, {"main.tf": f'resource "aws_sqs_queue" "q" {{\n  {queue}\n}}\n'})
    assert exc.value.place == "line 2" and exc.value.detail.startswith("aws_sqs_queue.q: name: ")


@pytest.mark.parametrize(
    "queue",
    [
        'name = "orders.fifo"\n  fifo_queue = true',
        'name = "orders"',
        'name = "orders.fifo"\n  fifo_queue = var.f',
    ],
    ids=["fifo", "standard", "fifo_queue not known here"],
)
def test_matching_fifo_names_load(module, opts, queue):
    m = _load(
        module, opts, {"main.tf": f'variable "f" {{}}\nresource "aws_sqs_queue" "q" {{\n  {queue}\n}}\n'}
    )
    assert list(m.queues) == ["aws_sqs_queue.q"]


def _chain(n: int) -> dict[str, str]:
    files = {"main.tf": 'module "m1" {\n  source = "./m1"\n}\n'}
    for i in range(1, n + 1):
        inner = (
            f'module "m{i + 1}" {{\n  source = "./m{i + 1}"\n}}\n'
            if i < n
            else 'resource "aws_sqs_queue" "q" {}\n'
        )
        files["/".join(f"m{j}" for j in range(1, i + 1)) + "/main.tf"] = inner
    return files


def test_a_chain_of_21_local_modules_is_not_a_cycle(module, opts):
    m = _load(module, opts, _chain(21))
    (qid,) = m.queues
    assert qid.count("module.") == 21 and qid.endswith("aws_sqs_queue.q")


def test_a_chain_deeper_than_the_bound_is_reported_as_depth(module, opts):
    with pytest.raises(VisguardError, match="nested more than 64 levels deep") as exc:
        _load(module, opts, _chain(70))
    assert "itself" not in str(exc.value) and "cycle" in str(exc.value)  # "not a cycle"


def test_a_real_cycle_is_still_a_cycle(module, opts):
    files = {
        "main.tf": 'module "a" {\n  source = "./a"\n}\n',
        "a/main.tf": 'module "back" {\n  source = "../"\n}\n',
    }
    with pytest.raises(VisguardError, match="includes itself"):
        _load(module, opts, files)


PLAN = {"format_version": "1.2", "planned_values": {"root_module": {}}}
RESOURCE = {"address": "aws_sqs_queue.q", "type": "aws_sqs_queue", "name": "q", "values": {}}


@pytest.mark.parametrize(
    ("root_module", "said"),
    [
        ({"resources": {"aws_sqs_queue.q": RESOURCE}}, "resources: expected a list, got an object"),
        ({"resources": ["aws_sqs_queue.q"]}, "a planned resource must be an object"),
        ({"child_modules": {"module.a": {}}}, "child_modules: expected a list, got an object"),
        (
            {"resources": [{**RESOURCE, "values": {"message_retention_seconds": 1e300}}]},
            "message_retention_seconds: expected a number, got 1e+300, beyond any AWS limit",
        ),
        (
            {"resources": [{**RESOURCE, "values": {"redrive_policy": '{"maxReceiveCount": 1e300}'}}]},
            "maxReceiveCount must be a number, got 1e+300, beyond any AWS limit",
        ),
    ],
    ids=[
        "resources mapping",
        "resource not an object",
        "child_modules mapping",
        "retention 1e300",
        "mrc 1e300",
    ],
)
def test_plan_shapes_and_numbers_are_bad_input(tmp_path, root_module, said):
    p = tmp_path / "plan.json"
    p.write_text(json.dumps({**PLAN, "planned_values": {"root_module": root_module}}))
    with pytest.raises(VisguardError, match=re.escape(said)):
        terraform.load(str(p))


# expression -> the one error (or value) it gives; none of them may show the token
@pytest.mark.parametrize(
    ("expr", "said"),
    [
        ("var.t", "expected a number, got a string that is not a number"),
        ("tonumber(var.t)", "a number is required, got a string that is not a number"),
        ("lookup({a = 1}, var.t)", "lookup(): no such key and no default"),
        ("tobool(var.t) ? 1 : 2", "tobool(): cannot convert this string to a bool"),
        ("parseint(var.t, 10)", "parseint(): the string is not a number in base 10"),
        ("{a = 1}[var.t]", "no attribute or key (a computed string)"),
        ('{a = 1}["b"]', "no attribute or key 'b'"),  # written in the file: named
        ("length({for k in [var.t, var.t] : k => 1})", "duplicate key in a for expression"),
    ],
)
def test_a_value_from_a_variables_file_is_never_shown(module, opts, expr, said):
    files = {
        "main.tf": f'variable "t" {{}}\nresource "aws_sqs_queue" "q" {{\n  delay_seconds = {expr}\n}}\n',
        "terraform.tfvars": f't = "{TOKEN}"\n',
    }
    with pytest.raises(VisguardError, match=re.escape(said)) as exc:
        _load(module, opts, files)
    assert TOKEN[:6] not in str(exc.value) and TOKEN[-6:] not in str(exc.value)


def test_try_and_can_never_hide_a_bound(module, opts):
    big = "[for a in range(1000): [for b in range(1000): [for c in range(1000): 1]]]"
    for wrapped in (f"try(length(flatten({big})), 0)", f"can(flatten({big})) ? 1 : 0"):
        with pytest.raises(VisguardError, match="expand to more than 1,000,000 values"):
            _load(
                module,
                opts,
                {"main.tf": f'resource "aws_sqs_queue" "q" {{\n  delay_seconds = {wrapped}\n}}\n'},
            )


@pytest.mark.parametrize(
    ("expr", "value"),
    [
        ("length(distinct(concat(range(1000), range(1000))))", 1000),
        ("length(toset([for i in range(1000) : tostring(i % 7)]))", 7),
        ("length(distinct([{a = 1}, {a = 1}, {a = 2}, [1], [1]]))", 3),
        ("length(distinct([true, 1, 1.0]))", 2),  # a bool is never equal to a number in Terraform
    ],
)
def test_distinct_and_toset_keep_first_occurrences(module, opts, expr, value):
    m = _load(module, opts, {"main.tf": f'resource "aws_sqs_queue" "q" {{\n  delay_seconds = {expr}\n}}\n'})
    assert m.queues["aws_sqs_queue.q"].delay == value


def test_a_git_source_credential_is_not_shown_in_a_note(module, opts):
    src = f"git::https://deploy:{TOKEN}@example.com/org/mod.git"
    m = _load(module, opts, {"main.tf": f'module "queue" {{\n  source = "{src}"\n}}\n'})
    notes = " ".join(n.message for n in m.notes)
    assert "example.com" in notes and TOKEN[:6] not in notes and "deploy" not in notes
