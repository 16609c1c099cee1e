"""``visguard lint PATH...``: lint templates, cdk.out assemblies and visguard.yaml files (and every input a
registered loader claims: ``visguard.linter.loaders.registry``).

Exit codes (the table: ``visguard.errors``; docs/contracts.md): 0 nothing at or above --fail-on (also a folder in
which nothing visguard reads is found: one line on stderr says what was looked for, as ruff and checkov do), 2
findings at or above it, 1 bad input or usage (each bad file gets one line on stderr naming the file and the
place; the other files are still linted), 4 both: some input was bad and the others have findings at or above
--fail-on, 3 an internal error on some input (a bug: that input gets one line, the others are still linted).
"""

from __future__ import annotations

import argparse
import os
import sys

from visguard.errors import (
    EXIT_BAD_INPUT,
    EXIT_BAD_INPUT_AND_FINDINGS,
    EXIT_FINDINGS,
    EXIT_INTERNAL,
    EXIT_OK,
    VisguardError,
)
from visguard.neutralize import printable


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors with exit code 1 (bad input or usage), not argparse's 2."""

    built = False  # set once every argument is added (build_parser)

    def _get_formatter(self):
        # argparse makes a formatter for every add_argument, only to check its metavar, and each one measures
        # the terminal with shutil, whose import (zlib, bz2, lzma) costs ~3 ms of every lint. The width matters
        # only for help and usage text, which are formatted after the parser is built, with the width measured.
        if not self.built:
            return self.formatter_class(prog=self.prog, width=80)
        return super()._get_formatter()

    def error(self, message: str):
        self.print_usage(sys.stderr)
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: {message}\n")


def build_parser(prog: str) -> argparse.ArgumentParser:
    from visguard.linter.report import FORMATS

    p = _Parser(
        prog=prog,
        description="Check SQS visibility timeouts, redrive policies and DLQs against their consumers, in "
        "CloudFormation/SAM templates, cdk.out assemblies, Terraform and OpenTofu (root modules, *.tf, plan "
        "JSON), Serverless Framework services (serverless.yml), visguard.yaml, and the SQS consumers of "
        "application code (Python, JavaScript/TypeScript, Java, Go, C#, PHP, Ruby; Celery, sqs-consumer, "
        "Spring, Laravel, Shoryuken) with the .env and compose files that name their queues.",
        epilog="Exit codes: 0 clean, 2 findings at or above --fail-on, 1 bad input or usage, 3 internal error. "
        "A folder is searched for the inputs a loader claims; it skips hidden folders, .terraform/, "
        "node_modules/, .venv/, venv/ and cdk.out/ (name a cdk.out on the command line to lint it), code in "
        "vendor/, dist/, build/, target/ and generated folders, and files that are not templates or do not "
        "consume SQS. Rules: 'visguard rules'; one rule in detail: 'visguard explain VG011'.",
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="CloudFormation/SAM template (JSON/YAML), cdk.out "
                   "folder, Terraform/OpenTofu root module folder, .tf file or plan JSON, serverless.yml (or its "
                   "folder), visguard.yaml, a source file or .env/compose file, or a folder to search for "
                   "them")  # fmt: skip
    p.add_argument("-f", "--format", choices=FORMATS, default="text", help="output format (default: text)")
    p.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE instead of stdout")
    p.add_argument("-c", "--config", metavar="FILE", help="visguard.yaml with settings, profiles, severity "
                   "overrides and suppressions (default: ./visguard.yaml if present)")  # fmt: skip
    p.add_argument("--no-config", action="store_true", help="do not pick up ./visguard.yaml")
    p.add_argument("-p", "--parameter", action="append", default=[], metavar="KEY=VALUE",
                   help="template parameter value (repeatable); overrides the parameter's Default")  # fmt: skip
    p.add_argument("--var", action="append", default=[], metavar="NAME=VALUE",
                   help="Terraform input variable (repeatable); overrides defaults and var files")  # fmt: skip
    p.add_argument("--var-file", action="append", default=[], metavar="FILE",
                   help="Terraform variable file (repeatable), read after terraform.tfvars and *.auto.tfvars")  # fmt: skip
    p.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                   help="skip files and folders matching GLOB in a folder search (repeatable): a glob with '/' "
                   "matches the path below the searched folder, one without matches any name; files named "
                   "on the command line are always linted")  # fmt: skip
    p.add_argument("--queues-from", action="append", default=[], metavar="INVENTORY_DIR|aws",
                   help="the deployed queues that consumers in the linted code read, when their infrastructure "
                   "is not linted with it (repeatable): an audit inventory folder ('visguard audit collect'), or "
                   "'aws' to read the queues the code names with GetQueueUrl/GetQueueAttributes (read only, your "
                   "AWS credentials; needs visguard[aws]); write ./aws for a folder named aws")  # fmt: skip
    p.add_argument("--fail-on", choices=("error", "warning", "info", "never"), default="warning",
                   help="lowest severity that makes the exit code 2 (default: warning)")  # fmt: skip
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="colour the text report (auto: when writing to a terminal and NO_COLOR is unset)")  # fmt: skip
    p.add_argument("--fix", action="store_true", help="write the mechanical fixes into the CloudFormation/SAM "
                   "templates (YAML or JSON) and the literals of Terraform root modules (.tf, .tfvars); comments "
                   "and formatting kept; exit 2 when a file changed")  # fmt: skip
    p.add_argument("--diff", action="store_true", help="print the fixes --fix would make as a unified diff and "
                   "change nothing; exit 2 when there is something to fix")  # fmt: skip
    p.built = True
    return p


def parse_parameters(items: list[str], flag: str = "--parameter") -> dict[str, str]:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise VisguardError(f"{flag} expects {'NAME' if flag == '--var' else 'KEY'}=VALUE, got {item!r}")
        out[key.strip()] = value
    return out


def _var_files(items: list[str]) -> tuple[str, ...]:
    from visguard.linter.loaders.safe_io import require_regular

    for f in items:
        try:
            require_regular(f)  # a FIFO or a device is named as such, never opened here
        except VisguardError as exc:
            raise VisguardError(f"--var-file: {exc.detail}", file=f) from None
    return tuple(items)


def _input_named(output: str | None, inputs: list[str]) -> str | None:
    """The input (a path given, or a file linted) that ``--output`` names, by inode: a link or another
    spelling of the same file counts; None when it names none of them."""
    if not output:
        return None
    try:
        out = os.stat(output)
    except (OSError, ValueError):
        return None  # a new file: it cannot be an input
    for p in inputs:
        try:
            if os.path.samestat(out, os.stat(p)):
                return p
        except (OSError, ValueError):
            continue
    return None


def _refuse_output(output: str | None, inputs: list[str]) -> None:
    named = _input_named(output, inputs)
    if named is not None:
        raise VisguardError(
            f"is {'the input ' + named if named != output else 'an input'}: the report would replace it; "
            "give another file",
            file=output,
            place="--output",
        )


def _find_config(args) -> str | None:
    if args.config:
        return args.config
    if args.no_config:
        return None
    from visguard.linter.loaders.registry import CONFIG_NAMES

    return next((n for n in CONFIG_NAMES if os.path.isfile(n)), None)


def exit_code(result, failing: bool) -> int:
    """The exit code of a lint (the table: ``visguard.errors``): an internal error first; bad input and findings
    at or above --fail-on (``failing``: or a file --fix changed / --diff would change) each, or both (4)."""
    if result.internal_errors:
        return EXIT_INTERNAL
    if result.errors:
        return EXIT_BAD_INPUT_AND_FINDINGS if failing else EXIT_BAD_INPUT
    return EXIT_FINDINGS if failing else EXIT_OK


def _say_errors(prog: str, result) -> None:
    """One line on stderr for each input that could not be linted, and for each folder with nothing to lint."""
    for err in [*result.errors, *result.nothing]:  # one line each, whatever the input's names hold
        print(f"{prog}: {printable(err)}", file=sys.stderr)


def main(argv: list[str], prog: str = "visguard lint", observe=None) -> int:
    """``visguard lint``. ``observe``, when given, is called with the final result before the report is rendered
    (the GitHub Action renders its SARIF, annotations and job summary from the same run: linter/action.py); the
    fix plan is then made as for ``--format sarif``."""
    parser = build_parser(prog)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage error (1)
        return int(exc.code or 0)

    from visguard.linter.api import lint_paths
    from visguard.linter.loaders.registry import LoadOptions
    from visguard.linter.model import LintConfig
    from visguard.linter.report import at_or_above, render

    options = LoadOptions(
        parameters=parse_parameters(args.parameter),
        variables=parse_parameters(args.var, "--var"),
        var_files=_var_files(args.var_file),
    )
    config = LintConfig()
    config_path = _find_config(args)
    if config_path:
        from visguard.linter.loaders import load_config

        config = load_config(config_path)  # VisguardError -> one line, exit 1 (dispatcher)

    fetch = None
    if args.queues_from:
        from visguard.linter.queues_from import AWS, loader_for

        if AWS in args.queues_from:
            from visguard.errors import need

            # one line and exit 1 before anything is read
            need("boto3", extra="aws", what="--queues-from aws")
        fetch = loader_for(args.queues_from)

    def run():
        return lint_paths(
            args.paths, config=config, options=options, exclude=args.exclude, fetch_queues=fetch
        )

    _refuse_output(args.output, args.paths)  # before anything is read or written
    result = run()
    _refuse_output(args.output, result.files)  # a template found in a linted folder
    changed = False
    if args.fix or args.diff or args.format == "sarif" or observe:  # the fixes, once (visguard.linter.fix)
        from visguard.linter.fix import plan

        result.fixes = plan(result, run)
    if args.fix or args.diff:
        from visguard.linter.fix import cli_step

        changed, result = cli_step(args.diff, result, run)
        if (args.format == "sarif" or observe) and result.fixes is None:  # re-linted after writing
            result.fixes = plan(result, run)
        if args.diff:
            _say_errors(prog, result)
            return exit_code(result, changed)
    _say_errors(prog, result)
    if observe is not None:
        observe(result)

    to_terminal = not args.output and sys.stdout.isatty()
    color = args.color == "always" or (
        args.color == "auto" and to_terminal and not os.environ.get("NO_COLOR")
    )
    report = render(result, args.format, color=color and args.format == "text", fail_on=args.fail_on)
    code = exit_code(result, changed or any(at_or_above(f.severity, args.fail_on) for f in result.findings))
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as fh:
                fh.write(report)
        except OSError as exc:
            raise VisguardError(f"cannot write report: {exc.strerror}", file=args.output) from None
    else:
        try:
            sys.stdout.write(report)
            sys.stdout.flush()
        except BrokenPipeError:  # `visguard lint . | head`: the reader stopped; the exit code still counts
            from visguard.cli import quiet_stdout

            quiet_stdout()
    return code
