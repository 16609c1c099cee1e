"""Terraform reads stay inside what the command line named (issue 35 §0): a symlink inside the linted tree to a
file inside it is read, one leading outside is refused; ``file()`` reads only there too. A name a module does not
declare because one of its files was not read is "not known here" (a note on the resource that needs it), never
the run's failure."""

from __future__ import annotations

import os
import shutil
import textwrap

import pytest
from visguard.errors import VisguardError
from visguard.linter.api import lint_paths
from visguard.linter.loaders import terraform
from visguard.linter.loaders.registry import LoadOptions

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "terraform", "confinement")


@pytest.fixture
def tree(tmp_path):
    """A copy of the fixture (symlinks kept), so a test may add files beside it."""
    dst = tmp_path / "repo"
    shutil.copytree(FIXTURE, dst, symlinks=True)
    return dst


def _notes(result) -> list[str]:
    return [f.message for f in result.findings if f.rule == "VG902"]


def _queues(path, asked=None):
    return terraform.load(str(path), LoadOptions(asked=str(asked) if asked else None)).queues


def test_a_symlink_inside_the_linted_tree_is_read_with_the_file_it_reads(tree):
    assert os.path.islink(tree / "live" / "app" / "locals.tf")
    result = lint_paths([str(tree)])
    assert not result.errors
    queues = _queues(tree / "live" / "app", asked=tree)
    assert (
        queues["aws_sqs_queue.orders"].name == "orders-demo"
    )  # local.env from yamldecode(file("../../env.yaml"))
    assert queues["aws_sqs_queue.orders"].tags == {"Env": "demo", "Team": "payments"}
    # the modelled registry module reads the same local
    assert queues["module.jobs.aws_sqs_queue.this[0]"].name == "jobs-demo"
    assert not any("symlink" in n for n in _notes(result))


def test_a_symlink_leading_outside_what_was_asked_is_refused_and_its_names_are_not_known_here(tree):
    app = tree / "live" / "app"
    result = lint_paths([str(app)])
    assert not result.errors  # a valid root: never the run's failure
    notes = _notes(result)
    assert any("locals.tf: a symlink leading outside" in n for n in notes)
    # the resource whose argument needs the undeclared name gets the note, naming the expression
    assert any(
        n.startswith(
            "aws_sqs_queue.orders: name uses local.env, not declared in the files read here (locals.tf"
        )
        for n in notes
    ), notes
    assert any(n.startswith("module.jobs: name uses local.env") for n in notes), notes
    q = _queues(app)["aws_sqs_queue.orders"]
    assert q.name is None  # not known here, never guessed
    # the file the link leads to is never read
    assert not any(f.endswith("shared/locals.tf") for f in terraform.load(str(app)).files)


def test_a_symlink_out_of_the_whole_tree_is_refused_even_when_its_parent_is_linted(tree, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "secret.tf").write_text('locals { env = "from-outside" }\n')
    os.remove(tree / "live" / "app" / "locals.tf")
    os.symlink(outside / "secret.tf", tree / "live" / "app" / "locals.tf")
    result = lint_paths([str(tree)])
    assert not result.errors
    assert any("a symlink leading outside" in n for n in _notes(result))
    assert _queues(tree / "live" / "app", asked=tree)["aws_sqs_queue.orders"].name is None


@pytest.mark.parametrize(
    "path",
    ["../../../outside.yaml", "/etc/hostname", "../../../repo-sibling/x.yaml"],
    ids=["dotdot", "absolute", "sibling"],
)
def test_file_reads_nothing_outside_what_was_asked(tree, tmp_path, path):
    (tmp_path / "outside.yaml").write_text("Env: leaked\n")
    (tmp_path / "repo-sibling").mkdir()
    (tmp_path / "repo-sibling" / "x.yaml").write_text("Env: leaked\n")
    (tree / "live" / "app" / "extra.tf").write_text(
        f'resource "aws_sqs_queue" "probe" {{\n  name = yamldecode(file("{path}"))["Env"]\n}}\n'
    )
    m = terraform.load(str(tree / "live" / "app"), LoadOptions(asked=str(tree)))
    assert m.queues["aws_sqs_queue.probe"].name is None
    assert not any("outside.yaml" in f or "x.yaml" in f or f.startswith("/etc") for f in m.files)
    result = lint_paths([str(tree)])
    assert not result.errors
    assert "leaked" not in repr([f.message for f in result.findings])


def test_a_symlinked_template_inside_the_tree_is_read_one_outside_is_not(tree, tmp_path):
    app = tree / "live" / "app"
    (tree / "shared" / "name.txt").write_text("from-shared")
    os.symlink("../../shared/name.txt", app / "name.txt")
    (tmp_path / "out.txt").write_text("from-outside")
    os.symlink(tmp_path / "out.txt", app / "out.txt")
    (app / "extra.tf").write_text(
        textwrap.dedent(
            """\
            resource "aws_sqs_queue" "inside" { name = file("${path.module}/name.txt") }
            resource "aws_sqs_queue" "outside" { name = file("${path.module}/out.txt") }
            """
        )
    )
    queues = _queues(app, asked=tree)
    assert queues["aws_sqs_queue.inside"].name == "from-shared"
    assert queues["aws_sqs_queue.outside"].name is None


def test_an_undeclared_name_in_a_module_read_whole_stays_bad_input(tmp_path):
    (tmp_path / "main.tf").write_text('resource "aws_sqs_queue" "q" {\n  name = local.nope\n}\n')
    with pytest.raises(VisguardError, match="undeclared local value 'nope'") as exc:
        terraform.load(str(tmp_path))
    assert exc.value.place == "line 2"


def test_the_asked_folder_is_what_the_command_line_named(tree):
    """registry.discover records it for each input it finds below."""
    from visguard.linter.loaders import registry

    errors: list = []
    inputs = registry.discover([str(tree)], errors=errors)
    apps = [i for i in inputs if i.path.endswith(os.path.join("live", "app"))]
    assert apps and apps[0].asked == str(tree)


# ---------------------------------------------------------------------------------------------- notes (§4)
NOISY_ROOT = """
variable "env" {}
variable "token" {}
module "vpc" {
  source = "terraform-aws-modules/vpc/aws"
  cidr   = "10.0.0.0/16"
}
module "naming" {
  source = "cloudposse/label/null"
}
module "orders_queue" {
  source = "cloudposse/sqs-queue/aws"
}
module "relay" {
  source    = "acme/relay/aws"
  input_arn = aws_sqs_queue.q.arn
}
resource "aws_sqs_queue" "q" {
  name = "q-${module.naming.id}"
}
resource "aws_sqs_queue" "r" {
  name  = "r-${var.env}"
  count = length(module.vpc.private_subnets)
}
resource "aws_ssm_parameter" "p" {
  count = length(module.vpc.private_subnets)
  name  = "/p"
  value = var.token
}
resource "aws_ecs_task_definition" "t" {
  family                = "t"
  container_definitions = jsonencode([{ name = "t", image = "t", environment = [{ name = "Q", value = aws_sqs_queue.q.url }] }])
}
"""


def test_notes_only_about_what_decides_a_queue_or_a_consumer(tmp_path):
    (tmp_path / "main.tf").write_text(NOISY_ROOT)
    notes = {n.address: n.message for n in terraform.load(str(tmp_path)).notes}
    assert "module.vpc" not in notes  # a VPC holds no queue (the count it decides is noted on the queue)
    assert "aws_ssm_parameter.p" not in notes and "var.token" not in notes  # a parameter's count and value
    assert "module.orders_queue" in notes  # its source says queue
    assert "module.relay" in notes  # it is given a queue's ARN
    assert notes["module.naming"].endswith("its outputs decide aws_sqs_queue.q")  # a queue's name reads it
    assert notes["var.env"].endswith("(it decides aws_sqs_queue.r[*])")
    assert "aws_sqs_queue.r" in notes  # the queue's count is not known: its settings are read once


def test_a_symlink_out_of_what_was_asked_is_always_noted(tree, tmp_path):
    """A file not read because it leads outside what was asked may declare a queue: it is said, whether or not the
    module misses a name from it."""
    app = tree / "live" / "app"
    (tmp_path / "provider.tf").write_text('provider "aws" {}\n')
    os.symlink(tmp_path / "provider.tf", app / "provider.tf")
    notes = [n.message for n in terraform.load(str(app), LoadOptions(asked=str(tree))).notes]
    assert any("provider.tf: a symlink leading outside" in n for n in notes)
    notes = [n.message for n in terraform.load(str(app)).notes]
    assert any("locals.tf: a symlink leading outside" in n for n in notes)  # local.env is declared there
