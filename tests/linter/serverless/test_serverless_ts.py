"""serverless.ts (linter/loaders/serverless_ts.py): a Serverless service written in TypeScript, read as the data it
exports: its modules through relative paths and tsconfig ``paths`` aliases, spreads and shorthand properties, each
value located in the file that writes it; what TypeScript computes is said, never run; a read stays in the service's
folder, bounded."""

from __future__ import annotations

import json
import os

import pytest
from visguard.cli import main
from visguard.errors import VisguardError
from visguard.linter.loaders import serverless
from visguard.linter.loaders.serverless_ts import document

SERVICE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "serverless-ts")


def _findings(capsys, path: str) -> list:
    main(["lint", "--no-config", "--fail-on", "never", "-f", "json", path])
    return json.loads(capsys.readouterr().out)["findings"]


def test_a_template_layout_is_read_through_its_aliases_spreads_and_modules(capsys):
    got = sorted(
        (f["rule"], os.path.relpath(f["file"], SERVICE).replace(os.sep, "/"), f["line"])
        for f in _findings(capsys, SERVICE)
    )
    assert got == [
        ("VG011", "src/resources/queues.ts", 5),  # VisibilityTimeout 60 < 6 x provider.timeout 20
        ("VG020", "src/resources/queues.ts", 2),  # OrdersQueue, spread into resources.Resources
        ("VG031", "src/functions/ingest/index.ts", 9),  # batchSize 5 of @functions/ingest's default export
    ]


def test_what_typescript_computes_is_unresolved_and_said():
    doc = document(os.path.join(SERVICE, "serverless.ts"))
    handler = doc["functions"]["ingest"]["handler"]
    assert type(handler).__name__ == "Unresolved" and "computed" in handler.why
    assert doc["functions"].key_file["ingest"].endswith("serverless.ts")
    assert (
        doc["resources"]["Resources"].key_file["OrdersQueue"].endswith(os.path.join("resources", "queues.ts"))
    )


@pytest.mark.parametrize(
    "body, words",
    [
        ("export default makeConfig();", "not an object literal"),
        ("const x = 1;", "exports no configuration object"),
    ],
)
def test_a_service_that_exports_no_object_is_one_error(tmp_path, body, words):
    f = tmp_path / "serverless.ts"
    f.write_text("// service provider\n" + body)
    with pytest.raises(VisguardError) as e:
        serverless.load(str(f))
    assert words in str(e.value) and "serverless.ts" in (e.value.file or "")


def test_an_import_out_of_the_service_folder_is_not_read(tmp_path):
    outside = tmp_path / "secret.ts"
    outside.write_text("export const q = { Evil: { Type: 'AWS::SQS::Queue' } };\n")
    svc = tmp_path / "svc"
    svc.mkdir()
    (svc / "serverless.ts").write_text(
        "import { q } from '../secret';\n"
        "export default { service: 's', provider: { name: 'aws' }, resources: { Resources: { ...q } } };\n"
    )
    doc = document(str(svc / "serverless.ts"))
    assert dict(doc["resources"]["Resources"]) == {}


def test_names_that_refer_to_each_other_end(tmp_path):
    f = tmp_path / "serverless.ts"
    f.write_text(
        "const a = { x: b };\nconst b = { y: a };\n"
        "export default { service: 's', provider: { name: 'aws' }, custom: a };\n"
    )
    doc = document(str(f))
    assert doc["service"] == "s"  # the loop is cut at the depth bound, as an unresolved value


def test_random_typescript_never_escapes_as_anything_but_a_one_line_error(tmp_path):
    import hypothesis
    from hypothesis import strategies as st

    tokens = st.sampled_from(
        ["export default", "module.exports =", "{", "}", "[", "]", "(", ")", ",", ":", "...", "a", "b", "'s'",
         "`t${x}`", "1", "true", "null", "const a =", "import { a } from './a';", "as const", "service",
         "provider", ";", "\n", "//", "/*", "*/"]
    )  # fmt: skip
    f = tmp_path / "serverless.ts"

    @hypothesis.settings(max_examples=200, deadline=None)
    @hypothesis.given(st.lists(tokens, max_size=40))
    def run(parts):
        f.write_text(" ".join(parts))
        try:
            document(str(f))
        except VisguardError as e:
            assert "\n" not in str(e)

    run()
