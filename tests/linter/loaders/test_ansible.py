"""Shell scripts an Ansible playbook renders from templates (linter/loaders/ansible.py, issue 35 §2): literal vars
are substituted, anything else stays unknown, templates outside the playbook's folder or with statements are not
rendered, and bad input is a note, never a traceback."""

from __future__ import annotations

import textwrap

import pytest
from visguard.linter.loaders import ansible, registry


def _tree(tmp_path, playbook: str, templates: dict[str, str]) -> str:
    for rel, text in templates.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
    path = tmp_path / "site.yml"
    path.write_text(textwrap.dedent(playbook))
    return str(path)


_PLAY = """\
    - hosts: all
      vars:
        url: https://sqs.us-east-1.amazonaws.com/123456789012/jobs
        vt: 900
        listed: [1, 2]
      tasks:
        - name: poller
          template:
            src: poll.sh.j2
            dest: /usr/local/bin/poll
"""


def _consumers(model):
    return [*model.pending, *(c for q in model.queues.values() for c in q.consumers)]


def test_literal_vars_are_substituted_and_the_receive_is_read_in_the_template(tmp_path):
    path = _tree(tmp_path, _PLAY, {"templates/poll.sh.j2": "#!/bin/sh\naws sqs receive-message \\\n"
                                   '  --queue-url "{{ url }}" --visibility-timeout {{vt}}\n'})  # fmt: skip
    assert registry.claim(path).name == "ansible"
    [c] = _consumers(registry.load(path))
    assert c.location.file.endswith("templates/poll.sh.j2") and c.location.line == 2
    assert (c.queue_ref.kind, c.queue_ref.value, c.visibility_override) == (
        "url",
        "https://sqs.us-east-1.amazonaws.com/123456789012/jobs",
        900,
    )
    assert c.location_of("visibility_override").line == 3


@pytest.mark.parametrize("expr", ["{{ nope }}", "{{ listed }}", "{{ vt | int }}", "{{ url ~ '/x' }}"])
def test_a_value_that_is_not_a_literal_var_stays_unknown(tmp_path, expr):
    path = _tree(tmp_path, _PLAY, {"templates/poll.sh.j2": f"aws sqs receive-message --queue-url {expr} "
                                   f"--visibility-timeout {expr}\n"})  # fmt: skip
    model = ansible.load(path)
    [c] = _consumers(model)
    assert c.queue_ref is None and c.visibility_override is None
    assert c.settings["queue_unknown"].startswith("{{")
    assert any("not known here" in n.message and "{{" in n.message for n in model.notes)


def test_statements_and_templates_outside_the_folder_are_not_rendered(tmp_path):
    play = _PLAY.replace("src: poll.sh.j2", "src: ../../etc/poll.sh.j2")
    path = _tree(tmp_path / "a", play, {"templates/ok.sh.j2": "x"})
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc" / "poll.sh.j2").write_text("aws sqs receive-message --queue-url q\n")
    assert _consumers(ansible.load(path)) == []
    path = _tree(tmp_path / "b", _PLAY, {"templates/poll.sh.j2": "{% if x %}\naws sqs receive-message --queue-url q\n{% endif %}\n"})  # fmt: skip
    model = ansible.load(path)
    assert _consumers(model) == [] and any("Jinja2 statements" in n.message for n in model.notes)


def test_a_template_that_is_not_a_script_is_not_read(tmp_path):
    play = _PLAY.replace("poll.sh.j2", "app.conf.j2")
    path = _tree(tmp_path, play, {"templates/app.conf.j2": "aws sqs receive-message --queue-url q\n"})
    assert _consumers(ansible.load(path)) == []


@pytest.mark.parametrize(
    "text",
    [
        "- hosts: all\n  tasks: [template: {src: 'a\\0b'}]\n",
        "- hosts: all\n  tasks: {template: x}\n",
        "hosts: all\ntemplate: 1\n",
        "- hosts: all\n  tasks:\n    - template: [1, 2]\n    - template: 'src=\"\" dest='\n",
        "- hosts: [\n",
    ],
)
def test_bad_playbooks_are_notes_or_nothing(tmp_path, text):
    path = tmp_path / "play.yml"
    path.write_text(text)
    model = ansible.load(str(path))
    assert _consumers(model) == []
    assert all(n.location.file == str(path) for n in model.notes)
