"""Consumers in application code and framework configuration (issue 25), read with tree-sitter grammars.

Every language is read by one engine (``engine.py``: the budgeted parse, the language's query
``languages/<name>.scm``, one ``Value``/``evaluate``, one ``Reader``, the ``Place`` of every number read). One
module per language (``python.py``, ``javascript.py`` for JavaScript and TypeScript, ``java.py``, ``go.py``,
``csharp.py``, ``php.py``, ``ruby.py``, ``rust.py``, ``kotlin.py``: its ``Language`` entry and what a query cannot say) and per framework
configuration file; each exposes

    EXTENSIONS: tuple[str, ...]                       # the file suffixes (and names) it reads
    def read(path: str, data: bytes) -> CodeResult    # pure: no I/O, no imports of other languages

``read`` returns the consumers it found as ``visguard.linter.model.Consumer`` records with ``kind="worker"``,
``platform`` (sdk | celery | sqs-consumer | squiss | spring | laravel | shoryuken | activejob), ``source`` (the language), a
``location`` (file and line of the receive call or the framework's consumer; every reader's columns are Unicode
code points, 1-based, as SARIF reads them: :func:`column`), ``queue_ref``
(``visguard.linter.consumers.QueueRef``: a literal URL/ARN/name, or ``env`` with the variable's name), and what
the code sets: ``visibility_override`` (the VisibilityTimeout the receive sends; a framework option that
replaces the queue's), ``heartbeat`` (True when the same consumer calls ChangeMessageVisibility or its framework
extends), ``heartbeat_interval``, ``work_timeout`` (the framework's limit on one message: Celery
``task_time_limit``, sqs-consumer ``handleMessageTimeout`` in seconds, Laravel ``--timeout``), ``stop_timeout``
(a framework's shutdown wait), ``concurrency``, each located in ``Consumer.locations`` under its field name.
Framework facts go in ``Consumer.settings`` under these keys (located under the same key):

    wait_time, max_messages            ReceiveMessage's WaitTimeSeconds / MaxNumberOfMessages
    created_visibility                 a visibility used only when the framework creates the queue (Celery)
    delays                             [{"seconds", "what", "location"}]: countdown/eta/retry/backoff/release delays
    acks_late, prefetch, tries         Celery task_acks_late, worker_prefetch_multiplier; Laravel --tries
    zero_not_sent                      Go SDK v2: VisibilityTimeout 0 on receive is not sent (queue's applies)

A value the code computes (not a literal, a constant of the same file or an environment variable's default) is
left None and named in ``CodeResult.notes`` (visguard.linter.model.Note), never guessed. Environment variables a
file sets for a workload (``.env``, compose) are ``CodeResult.env`` (``EnvBinding``). ``CodeResult.spans``
holds the byte span of the node each field's value was read from; ``CodeResult.places`` where each number is
written, for the fixer (``engine.Place``: its digits and unit, or why it is not to be edited there). A file that
does not parse is not an error of the run: tree-sitter recovers, and ``read`` reads what it can.

Grammars are imported only when a file of their language is read (:func:`parser`).
"""

from __future__ import annotations

from visguard.linter.loaders import languages as _languages
from visguard.records import Record, fresh

GRAMMARS = _languages.grammars()  # grammar key -> (module, function returning the language pointer), as the
# query files' headers name them (visguard.linter.loaders.languages)

_PARSERS: dict[str, object] = {}


class CodeResult(Record):
    """What one file says: consumers (with ``queue_ref``), environment bindings, notes, and the queues the code
    creates at run time (``visguard.linter.created_queues``: a CreateQueue call, the queue Kombu creates)."""

    # spans: (consumer id, field) -> (start, end) byte offsets of the node the reader read the field's value from
    # (the fixer edits only there, and only when the text there is the value read)
    # places: (consumer id, field) -> engine.Place: where the fixer may write the field's number, or why not
    __slots__ = {
        "consumers": fresh(list), "env": fresh(list), "notes": fresh(list), "spans": fresh(dict),
        "places": fresh(dict), "queues": fresh(list),
    }  # fmt: skip


PARSE_CPU_S = (
    2.0  # CPU seconds one parse may take, plus PARSE_CPU_S_PER_MB per MB: tree-sitter's error recovery
)
PARSE_CPU_S_PER_MB = 2.0  # can be quadratic on hostile text (the same bound as the HCL parser's)


def parse(language: str, data: bytes):
    """The syntax tree's root of ``data`` in ``language``, or None when the parse ran out of its CPU budget.

    The budget needs tree-sitter's progress callback, which it calls only for a parse that reads its text through
    a callback; a tree read that way also reads every node's text back through it (a copy per node). So the
    budgeted parse is followed by a reparse of the same bytes with its tree as the old tree (nothing changed:
    tree-sitter reuses every node, a fraction of the first parse), whose nodes slice ``data``."""
    import time

    p = parser(language)
    budget = PARSE_CPU_S + PARSE_CPU_S_PER_MB * len(data) / 1_000_000
    start = time.process_time()
    view = memoryview(data)
    try:
        tree = p.parse(
            lambda byte, _point: view[byte : byte + 1_048_576].tobytes(),
            progress_callback=lambda _offset, _err: time.process_time() - start > budget,
        )
    except ValueError:  # cancelled by the budget
        p.reset()
        return None
    if tree is None:
        return None
    return p.parse(data, old_tree=tree).root_node


def column(data: bytes, node) -> int:
    """The 1-based column of ``node`` in Unicode code points (tree-sitter counts bytes): every reader's Location."""
    col = node.start_point[1]
    start = node.start_byte
    return len(data[start - col : start].decode("utf-8", "replace")) + 1 if col else 1


def parser(language: str):
    """A tree-sitter parser for ``language`` (a key of :data:`GRAMMARS`), its grammar imported on first use."""
    p = _PARSERS.get(language)
    if p is None:
        import importlib

        import tree_sitter

        module, fn = GRAMMARS[language]
        lang = tree_sitter.Language(getattr(importlib.import_module(module), fn)())
        p = _PARSERS[language] = tree_sitter.Parser(lang)
    return p
