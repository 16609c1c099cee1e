"""--fix in an Elastic Beanstalk worker's .ebextensions (linter/fixes/ebextensions.py): the digits of the sqsd
option the loader read, in the file that writes it, in either form of option_settings; an option no file writes
is left alone with the reason."""

from __future__ import annotations

import shutil
from pathlib import Path

from visguard.cli import main

APP = Path(__file__).parent / "fixtures" / "consumers" / "ebextensions" / "worker-app"


def _app(tmp_path: Path) -> Path:
    app = tmp_path / "app"
    shutil.copytree(APP, app)
    return app


def _lint(capsys, *args) -> tuple[int, str, str]:
    code = main(["lint", "--no-config", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_map_form_value_is_rewritten_quotes_kept_and_the_fix_converges(tmp_path, capsys):
    app = _app(tmp_path)
    tuning, worker = app / ".ebextensions" / "02-tuning.config", app / ".ebextensions" / "01-worker.config"
    before = worker.read_bytes()
    code, _, _ = _lint(capsys, "--fix", str(app))
    assert code == 2
    assert tuning.read_text() == (
        '{"option_settings": {"aws:elasticbeanstalk:sqsd": {"VisibilityTimeout": "1801", "HttpConnections": 2}}}\n'
    )  # InactivityTimeout 1800 (01-worker.config) + 1, quoted as written
    assert worker.read_bytes() == before  # the file that does not write the option is untouched
    code, out, _ = _lint(capsys, "--diff", str(app))
    assert code == 0 and out == ""  # nothing more to fix
    code, out, _ = _lint(capsys, str(app))
    assert "VG063" not in out and "VG060" not in out


def test_the_list_form_value_is_rewritten(tmp_path, capsys):
    app = _app(tmp_path)
    (app / ".ebextensions" / "02-tuning.config").unlink()
    worker = app / ".ebextensions" / "01-worker.config"
    worker.write_text(
        worker.read_text()
        + "  - namespace: aws:elasticbeanstalk:sqsd\n    option_name: VisibilityTimeout\n    value: 600\n"
    )
    code, out, _ = _lint(capsys, "--diff", str(app))
    assert code == 2
    assert "-    value: 600\n+    value: 1801\n" in out


def test_an_option_no_file_writes_is_left_alone_with_the_reason(tmp_path, capsys):
    app = _app(tmp_path)
    (
        app / ".ebextensions" / "02-tuning.config"
    ).unlink()  # sqsd's default VisibilityTimeout (300 s) is in effect
    code, _, err = _lint(capsys, "--fix", str(app))
    assert "VisibilityTimeout is not written in this file" in err
    assert "01-worker.config" in err
    assert "VisibilityTimeout" not in (app / ".ebextensions" / "01-worker.config").read_text()
