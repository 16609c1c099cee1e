"""One sentence, in visguard's words, for a JSON Schema validation error (visguard.yaml, scenarios, inventories).

The sentence is built from the error's structure (which keyword failed, its value in the schema, the value in
the document), never from the validator library's own wording, which changes between releases. A value from
the document is shown short (at most ``SHOWN`` characters) and on one line.
"""

from __future__ import annotations

import re

from visguard.neutralize import printable

SHOWN = 40  # characters of a document value quoted in a message
_TYPES = {
    "number": "a number",
    "integer": "an integer",
    "string": "a string",
    "boolean": "true or false",
    "object": "a mapping",
    "array": "a list",
    "null": "null",
}


def shown(value: object) -> str:
    """A document value as it appears in a message: ``repr`` for strings, one line, cut at SHOWN characters."""
    text = (
        repr(value)
        if isinstance(value, str)
        else _kind(value)
        if isinstance(value, (dict, list))
        else str(value)
    )
    text = printable(text)
    return text if len(text) <= SHOWN else text[: SHOWN - 1] + "…"


def _kind(value: object) -> str:
    return "a mapping" if isinstance(value, dict) else "a list"


def _names(keys) -> str:
    return ", ".join(shown(k) for k in keys)


def _extra_keys(err) -> list:
    inst, schema = err.instance, err.schema
    if not isinstance(inst, dict):
        return []
    props = schema.get("properties", {}) if isinstance(schema, dict) else {}
    patterns = schema.get("patternProperties", {}) if isinstance(schema, dict) else {}
    return [k for k in inst if k not in props and not any(re.search(p, str(k)) for p in patterns)]


def describe(err, root: dict | None = None) -> str:
    """The failure of one ``jsonschema`` error as a sentence (without the path: the caller names the place).
    ``root``: the whole schema, to follow its local ``$ref``s when naming keys no sub-schema declares."""
    kw, want, got = err.validator, err.validator_value, err.instance
    if kw == "type":
        kinds = [want] if isinstance(want, str) else list(want)
        return f"expected {' or '.join(_TYPES.get(k, k) for k in kinds)}, got {shown(got)}"
    if kw == "const":
        return f"must be {shown(want)}, not {shown(got)}"
    if kw == "enum":
        return f"{shown(got)} is not one of {_names(want)}"
    if kw == "required":
        missing = [k for k in want if isinstance(got, dict) and k not in got] or list(want)
        return f"{_names(missing)} {'is' if len(missing) == 1 else 'are'} required"
    if kw in ("additionalProperties", "unevaluatedProperties"):
        extra = _extra_keys(err) if kw == "additionalProperties" else _unevaluated(err, root)
        if extra:
            return f"{_names(extra)} {'is' if len(extra) == 1 else 'are'} not allowed"
        return "has settings that are not allowed here"
    if kw == "minimum":
        return f"{shown(got)} is less than the minimum of {shown(want)}"
    if kw == "maximum":
        return f"{shown(got)} is more than the maximum of {shown(want)}"
    if kw == "exclusiveMinimum":
        return f"{shown(got)} must be more than {shown(want)} (it is less than or equal to it)"
    if kw == "exclusiveMaximum":
        return f"{shown(got)} must be less than {shown(want)}"
    if kw == "minLength":
        return "must not be empty" if want == 1 else f"must be at least {want} characters long"
    if kw == "maxLength":
        return f"must be at most {want} characters long"
    if kw == "minItems":
        return "must not be empty" if want == 1 else f"must have at least {want} items"
    if kw == "maxItems":
        return f"must have at most {want} items"
    if kw == "minProperties":
        return "must not be empty" if want == 1 else f"must have at least {want} entries"
    if kw == "pattern":
        return f"{shown(got)} does not match the pattern {want}"
    if kw == "propertyNames":
        return f"a key does not match the allowed names ({_property_names_hint(want)})"
    if kw in ("anyOf", "oneOf"):
        return "does not match any of the allowed forms"
    return f"is not valid here (schema keyword {kw!r})"


def _property_names_hint(schema) -> str:
    if isinstance(schema, dict) and "pattern" in schema:
        return f"pattern {schema['pattern']}"
    return "see the schema"


def _resolve(ref: str, root: dict | None):
    """A local ``#/a/b`` reference in ``root``, or None."""
    if root is None or not ref.startswith("#/"):
        return None
    node = root
    for part in ref[2:].split("/"):
        node = node.get(part.replace("~1", "/").replace("~0", "~")) if isinstance(node, dict) else None
    return node


def _unevaluated(err, root: dict | None) -> list:
    """Keys named by an unevaluatedProperties error: the ones no sub-schema (local $refs followed) declares."""
    inst = err.instance
    if not isinstance(inst, dict):
        return []
    declared: set = set()
    stack, seen = [err.schema], set()
    while stack:
        node = stack.pop()
        if not isinstance(node, dict) or id(node) in seen:
            continue
        seen.add(id(node))
        declared.update(node.get("properties", {}))
        for key in ("allOf", "anyOf", "oneOf"):
            stack.extend(node.get(key, []))
        if isinstance(node.get("$ref"), str):
            stack.append(_resolve(node["$ref"], root))
    return [k for k in inst if k not in declared]
