"""Fuzzing the real ``visguard lint`` entry point with mutated templates, cdk.out assemblies and visguard.yaml
files (issue 11, "Proof").

Every example writes real files (hostile snippets: escape sequences, 5,000-digit numbers, deep nesting, alias
and ForEach bombs, manifests pointing outside the assembly, at devices, FIFOs and symlinks) next to one good
template, and runs ``visguard.cli.main`` in process with captured streams, in a random output format. For
every example:

- the exit code is one of the documented table (0, 1, 2), never 3 (an internal error is a bug) and it is 1
  exactly when some input is reported bad;
- stderr holds at most one line per input, each ``visguard lint: FILE...``, no traceback;
- the report is well formed (JSON, SARIF, JUnit parse) and the good template is still linted;
- nothing from input reaches stdout or stderr as a raw control character;
- each example finishes within 10 s.
A few subprocess runs of the nastiest inputs run under a 1 GB address-space limit and a timeout (bounded
memory and time for the whole process). At least 1,000 inputs per run (``test_fuzz_counts``);
``VISGUARD_FUZZ_EXAMPLES`` scales the run up for a longer hunt.
"""

import contextlib
import glob
import io
import json
import os
import resource
import shutil
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from visguard.cli import main

from .conftest import ROOT, VISGUARD, WARN_TEMPLATE

SCALE = int(os.environ.get("VISGUARD_FUZZ_EXAMPLES", "0")) or 1
FUZZ = dict(deadline=None, database=None, suppress_health_check=list(HealthCheck))
COUNT = {"inputs": 0, "examples": 0, "bad": 0, "clean_or_findings": 0, "seconds": 0.0}


def _read(p):
    with open(p, encoding="utf-8") as fh:
        return fh.read()


TEMPLATE_SOURCES = [
    _read(p)
    for p in sorted(
        glob.glob(str(ROOT / "tests/linter/fixtures/loaders/*.yaml"))
        + glob.glob(str(ROOT / "tests/linter/fixtures/loaders/*.json"))
        + glob.glob(str(ROOT / "examples/templates/*"))
    )
    if not p.endswith("visguard.yaml")
] + [WARN_TEMPLATE]
CONFIG_SOURCES = [
    _read(ROOT / "examples/visguard.yaml"),
    _read(ROOT / "tests/linter/fixtures/loaders/visguard.yaml"),
]
HOSTILE = [
    "\x1b]0;pwned\x07",
    "\x1b[2J",
    "\n  Forged:\n    Type: AWS::SQS::Queue\n",
    "\u202e",
    "\r",
    "9" * 5000,
    "1" + "0" * 400,
    "1e400",
    ".inf",
    ".nan",
    "-.inf",
    "[" * 300,
    "{a: " * 120,
    "- " * 300,
    "2020-13-45",
    "!!timestamp 2020-99-01",
    "!!binary zz",
    "!!python/object:os.system",
    "&a [x, x, x] ",
    "*a",
    "<<: *a",
    "!Ref ",
    "!GetAtt ",
    "!Sub '${",
    "Fn::ForEach::L: [X, [a, b], {Q${X}: {Type: AWS::SQS::Queue}}]",
    "Timeout: ",
    "VisibilityTimeout: ",
    ":",
    "\t",
    '"',
    "'",
    "\\ud800",
    "\x85",
    "\u2028",
]


@st.composite
def mutated(draw, sources):
    text = draw(st.sampled_from(sources))
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(text)))
        op = draw(st.sampled_from(["insert", "insert", "delete", "replace", "dup-line"]))
        if op == "insert":
            text = text[:i] + draw(st.sampled_from(HOSTILE)) + text[i:]
        elif op == "delete":
            text = text[:i] + text[i + draw(st.integers(1, 40)) :]
        elif op == "replace":
            j = min(len(text), i + draw(st.integers(1, 8)))
            text = (
                text[:i] + draw(st.text(alphabet="0123456789abc-:!{}[]\"' \n\x1b\x00", max_size=8)) + text[j:]
            )
        else:
            lines = text.splitlines(keepends=True)
            if lines:
                k = draw(st.integers(0, len(lines) - 1))
                lines.insert(k, lines[k] * draw(st.integers(1, 3)))
                text = "".join(lines)
    return text


PATHS = [
    "S.template.json",
    "S.template.json",
    "sub/../S.template.json",
    "../outside.yaml",
    "../../../../../../etc/passwd",
    "/etc/passwd",
    "/dev/zero",
    "pipe.json",
    "link.json",
    "missing.json",
    "",
    ".",
    "nested",
]
path_values = (
    st.sampled_from(PATHS) | st.integers() | st.none() | st.lists(st.sampled_from(PATHS), max_size=2)
)


def artifact():
    return st.one_of(
        st.fixed_dictionaries(
            {"type": st.just("aws:cloudformation:stack")},
            optional={
                "properties": st.fixed_dictionaries({}, optional={"templateFile": path_values})
                | st.integers(),
                "displayName": st.sampled_from(["S", "\x1b[2JS", 5]),
                "additionalMetadataFile": path_values,
                "metadata": st.just({"/S/Q/Resource": [{"type": "aws:cdk:logicalId", "data": "Q"}]}),
            },
        ),
        st.fixed_dictionaries(
            {"type": st.just("cdk:cloud-assembly")},
            optional={"properties": st.fixed_dictionaries({}, optional={"directoryName": path_values})},
        ),
        st.fixed_dictionaries({"type": st.sampled_from(["cdk:tree", "cdk:asset-manifest", "weird", 3])}),
        st.sampled_from([None, 5, "x", []]),
    )


manifests = st.fixed_dictionaries(
    {},
    optional={
        "version": st.sampled_from(["36.0.0", 36, None]),
        "artifacts": st.dictionaries(st.sampled_from(["S", "T", "N", "\x1bX"]), artifact(), max_size=3)
        | st.sampled_from([5, [], None]),
    },
)
nested_stack = st.fixed_dictionaries(
    {
        "Resources": st.fixed_dictionaries(
            {
                "Q": st.just({"Type": "AWS::SQS::Queue", "Properties": {"VisibilityTimeout": 20}}),
                "Inner": st.fixed_dictionaries(
                    {
                        "Type": st.just("AWS::CloudFormation::Stack"),
                        "Metadata": st.fixed_dictionaries({"aws:asset:path": path_values}),
                    }
                ),
            }
        )
    }
)

config_docs = st.fixed_dictionaries(
    {},
    optional={
        "version": st.sampled_from([1, 2, "1"]),
        "settings": st.dictionaries(
            st.sampled_from(["lambda_multiplier", "target_duplicate_rate", "x"]),
            st.one_of(st.floats(), st.integers(-10, 10**20), st.text(max_size=3)),
            max_size=2,
        ),
        "profiles": st.lists(
            st.fixed_dictionaries(
                {"match": st.sampled_from(["*", "Q?", "\x1b[2J*", ["a", "b"]])},
                optional={
                    "p50": st.floats(),
                    "p99": st.floats(),
                    "kind": st.sampled_from(["lambda", "worker", "x"]),
                    "heartbeat": st.fixed_dictionaries({"interval": st.floats()}),
                    "concurrency": st.integers(-1, 10**30),
                },
            ),
            max_size=2,
        ),
        "queues": st.lists(
            st.fixed_dictionaries(
                {"name": st.sampled_from(["a", "b\x1b]0;x\x07", "c\n"])},
                optional={
                    "visibility_timeout": st.floats() | st.integers(-1, 10**30),
                    "consumers": st.lists(
                        st.fixed_dictionaries(
                            {"kind": st.sampled_from(["lambda", "worker"])},
                            optional={"timeout": st.floats() | st.integers(), "p99": st.floats()},
                        ),
                        max_size=2,
                    ),
                },
            ),
            max_size=3,
        ),
        "suppressions": st.lists(
            st.fixed_dictionaries(
                {"rule": st.sampled_from(["VG011", "VG999", "*"])},
                optional={"reason": st.text(max_size=4), "queue": st.sampled_from(["*", "Orders"])},
            ),
            max_size=2,
        ),
    },
)


@pytest.fixture(scope="module")
def workdir():
    d = tempfile.mkdtemp(prefix="visguard-fuzz-")
    with open(os.path.join(d, "outside.yaml"), "w") as fh:
        fh.write("Resources:\n  StolenSecretQueue: {Type: AWS::SQS::Queue}\n")
    good = os.path.join(d, "good.yaml")
    with open(good, "w") as fh:
        fh.write(WARN_TEMPLATE)
    yield d
    shutil.rmtree(d, ignore_errors=True)


def _fresh(workdir: str) -> str:
    COUNT["examples"] += 1
    d = os.path.join(workdir, f"ex{COUNT['examples']}")
    os.mkdir(d)
    return d


def _run(workdir: str, inputs: list[str], fmt: str) -> None:
    good = os.path.join(workdir, "good.yaml")
    out, err = io.StringIO(), io.StringIO()
    start = time.monotonic()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["lint", "--no-config", "-f", fmt, *inputs, good])
    elapsed = time.monotonic() - start
    COUNT["seconds"] += elapsed
    COUNT["inputs"] += len(inputs)
    stdout, stderr = out.getvalue(), err.getvalue()
    lines = stderr.splitlines()
    assert code in (0, 1, 2, 4), (code, stderr)
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr
    assert len(lines) <= len(inputs) and all(line.startswith("visguard lint: ") for line in lines), lines
    # a folder with nothing to lint is one line, exit 0: the other lines are bad input
    bad = [line for line in lines if ": nothing to lint: looked for " not in line]
    assert (code in (1, 4)) == bool(bad), (code, lines)  # 4: bad input and findings
    assert elapsed < 10, elapsed
    kept = "\n\t" if fmt == "junit" else "\n"  # XML text keeps tabs
    for text in (stdout, stderr):
        assert not any(ord(c) < 32 and c not in kept or 0x7F <= ord(c) <= 0x9F or c == "\u202e" for c in text)
    assert "StolenSecretQueue" not in stdout
    if fmt == "json":
        doc = json.loads(stdout)
        assert any(f["rule"] == "VG011" and f["file"].endswith("good.yaml") for f in doc["findings"])
        assert len(doc["errors"]) == len(bad)
    elif fmt == "sarif":
        assert json.loads(stdout)["version"] == "2.1.0"
    elif fmt == "junit":
        ET.fromstring(stdout.encode())
    else:
        assert "VG011" in stdout
    COUNT["bad" if bad else "clean_or_findings"] += 1


formats = st.sampled_from(["text", "json", "sarif", "junit"])


@settings(max_examples=500 * SCALE, **FUZZ)
@given(st.lists(mutated(TEMPLATE_SOURCES), min_size=1, max_size=2), st.booleans(), formats)
def _prop_fuzz_templates(workdir, texts, as_json, fmt):
    d = _fresh(workdir)
    paths = []
    for i, text in enumerate(texts):
        p = os.path.join(d, f"t{i}.{'json' if as_json else 'yaml'}")
        with open(p, "w", encoding="utf-8", errors="surrogatepass") as fh:
            fh.write(text)
        paths.append(p)
    _run(workdir, paths, fmt)


@settings(max_examples=250 * SCALE, **FUZZ)
@given(manifests, nested_stack, st.sampled_from(TEMPLATE_SOURCES), st.booleans(), formats)
def _prop_fuzz_cdk_assemblies(workdir, manifest, parent, template, search_parent, fmt):
    d = _fresh(workdir)
    out = os.path.join(d, "cdk.out")
    os.makedirs(os.path.join(out, "sub"))
    os.mkdir(os.path.join(out, "nested"))
    with open(os.path.join(out, "manifest.json"), "w") as fh:
        json.dump(manifest, fh)
    with open(os.path.join(out, "S.template.json"), "w") as fh:
        json.dump(parent, fh)
    with open(os.path.join(out, "nested", "manifest.json"), "w") as fh:
        json.dump(manifest, fh)  # a nested assembly pointing at itself again (depth bound)
    with open(os.path.join(out, "T.nested.template.json"), "w") as fh:
        fh.write(template if template.lstrip().startswith("{") else json.dumps({"Resources": {}}))
    os.mkfifo(os.path.join(out, "pipe.json"))
    os.symlink(os.path.join(workdir, "outside.yaml"), os.path.join(out, "link.json"))
    # `visguard lint cdk.out` (one input) or `visguard lint <folder above>` (cdk.out skipped unless named)
    _run(workdir, [d if search_parent else out], fmt)


@settings(max_examples=250 * SCALE, **FUZZ)
@given(
    st.one_of(mutated(CONFIG_SOURCES), config_docs.map(lambda d: yaml.safe_dump(d, allow_unicode=True))),
    st.sampled_from(["visguard.yaml", "team-queues.yaml", "x.visguard.yml"]),
    st.booleans(),
    formats,
)
def _prop_fuzz_configs(workdir, text, name, as_config_flag, fmt):
    d = _fresh(workdir)
    p = os.path.join(d, name)
    with open(p, "w", encoding="utf-8", errors="surrogatepass") as fh:
        fh.write(text)
    if as_config_flag:  # --config: a bad one is the run's one error line, nothing else runs
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            code = main(["lint", "--config", p, "-f", fmt, os.path.join(workdir, "good.yaml")])
        lines = err.getvalue().splitlines()
        COUNT["inputs"] += 1
        assert code in (0, 1, 2) and len(lines) <= 1 and "Traceback" not in err.getvalue(), lines
        assert (code == 1) == bool(lines)
        return
    _run(workdir, [p], fmt)


HOSTILE_FILES = {
    "deep.yaml": "a: " + "[" * 60_000 + "]" * 60_000,
    "deep.json": '{"a":' * 60_000 + "1" + "}" * 60_000,
    "long.yaml": "Resources:\n  Q:\n    Type: " + "9" * 50_000,
    "laughs.yaml": "a: &a [" + ", ".join(["x"] * 10) + "]\n"
    + "".join(f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n" for i in range(9)),
    "bomb.json": json.dumps(
        {
            "Resources": {
                "Fn::ForEach::A": ["A", [str(i) for i in range(300)], {
                    "Fn::ForEach::B": ["B", [str(i) for i in range(300)], {
                        "Q${A}x${B}": {"Type": "AWS::SQS::Queue"}}]}]
            }
        }
    ),
}  # fmt: skip


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS")
def test_hostile_files_in_a_memory_limited_process(tmp_path):
    """The whole process, under a 1 GB address-space limit: every hostile file is one bad-input line, the good
    one is linted, within 60 s."""
    for name, text in HOSTILE_FILES.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "good.yaml").write_text(WARN_TEMPLATE)
    os.mkfifo(tmp_path / "pipe.yaml")

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    import subprocess

    args = [VISGUARD, "lint", "--no-config", "-f", "json", *(str(tmp_path / n) for n in HOSTILE_FILES)]
    proc = subprocess.run(
        [*args, str(tmp_path / "good.yaml")], capture_output=True, text=True, timeout=60, preexec_fn=limit
    )
    assert proc.returncode == 4, proc.stderr
    assert len(proc.stderr.splitlines()) == len(HOSTILE_FILES) and "Traceback" not in proc.stderr
    assert json.loads(proc.stdout)["summary"]["files"] == 1
    folder = subprocess.run(
        [VISGUARD, "lint", "--no-config", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=limit,
    )
    # a folder search claims only templates (top-level Resources): the bomb and the long number; the deep and
    # alias documents are not templates there and are skipped quietly, the FIFO is never opened
    assert folder.returncode == 4 and len(folder.stderr.splitlines()) == 2, folder.stderr  # and VG011
    assert "bomb.json" in folder.stderr and "long.yaml" in folder.stderr and "VG011" in folder.stdout


def test_fuzz_templates_assemblies_and_configs_through_the_cli(workdir):
    """The three properties above in one test, so the counts are this test's own however the suite is run (one
    process or pytest-xdist workers): at least 1,000 inputs through the real entry point, both outcomes
    exercised, and the in-process memory stayed bounded."""
    COUNT.update(inputs=0, examples=0, bad=0, clean_or_findings=0, seconds=0.0)
    # the high-water mark when this test starts: what the tests before it in this process (an xdist worker runs
    # many) used is theirs, not this test's
    rss_start = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    _prop_fuzz_templates(workdir)
    _prop_fuzz_cdk_assemblies(workdir)
    _prop_fuzz_configs(workdir)
    print(COUNT)
    assert COUNT["inputs"] >= 1000, COUNT
    assert COUNT["bad"] >= 100 and COUNT["clean_or_findings"] >= 100, COUNT
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_start) / 1024
    assert grown_mb < 800, grown_mb
