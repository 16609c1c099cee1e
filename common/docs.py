"""Where visguard's documentation site lives: the one home of its address.

The site (``make docs``: mkdocs, ``mkdocs.yml``'s ``site_url`` is this address, a test checks they agree) has one
page per rule, generated from the rule registry and the rule's fixtures (``scripts/docs_pages.py``).
``visguard explain ID`` and the SARIF rule metadata's ``helpUri`` point at that page: :func:`rule_url`.
"""

DOCS_URL = "https://visguard.github.io/visguard/"


def rule_url(rule_id: str) -> str:
    """The address of a rule's page (``VG011`` -> ``.../rules/vg011/``)."""
    return f"{DOCS_URL}rules/{rule_id.lower()}/"
