"""JSON parsing in parts, so a large project file read in a worker does not hold the GIL in one stretch.

``json.loads`` parses the whole text in C without letting other threads run: 0.2 s for an 11 MB project and
about 1 s for a 60 MB one, during which the window cannot paint (issue #27). :func:`loads` walks the top
levels of the document in Python and hands each value below ``depth`` to the same C scanner, so the GIL is
released between values; the result, and the errors (``json.JSONDecodeError`` with the same positions), are
those of ``json.loads``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from json.decoder import WHITESPACE, scanstring
from json.scanner import make_scanner
from typing import Any

#: Containers this deep or deeper are parsed by the C scanner in one call.
DEPTH = 4
#: Texts shorter than this are parsed by ``json.loads`` at once (a short hold of the GIL).
SMALL = 1_000_000

_DECODER = json.JSONDecoder()
_SCAN = make_scanner(_DECODER)


def loads(text: str, depth: int = DEPTH) -> Any:
    """``json.loads(text)``, parsed in parts when the text is large."""
    if len(text) < SMALL:
        return json.loads(text)
    value, end = _value(text, _skip(text, 0), depth)
    end = _skip(text, end)
    if end != len(text):
        raise json.JSONDecodeError("Extra data", text, end)
    return value


def _skip(text: str, i: int) -> int:
    return WHITESPACE.match(text, i).end()


def _value(text: str, i: int, depth: int) -> tuple[Any, int]:
    """The value starting at ``i`` (no whitespace before it) and the index after it."""
    char = text[i : i + 1]
    if depth <= 0 or char not in ("{", "["):
        try:
            return _SCAN(text, i)
        except StopIteration as stop:
            raise json.JSONDecodeError("Expecting value", text, stop.value) from None
    if char == "[":
        return _array(text, i + 1, depth - 1)
    return _object(text, i + 1, depth - 1)


def _array(text: str, i: int, depth: int) -> tuple[list[Any], int]:
    items: list[Any] = []
    i = _skip(text, i)
    if text[i : i + 1] == "]":
        return items, i + 1
    while True:
        value, i = _value(text, i, depth)
        items.append(value)
        i = _skip(text, i)
        char = text[i : i + 1]
        if char == "]":
            return items, i + 1
        if char != ",":
            raise json.JSONDecodeError("Expecting ',' delimiter", text, i)
        i = _skip(text, i + 1)


def _object(text: str, i: int, depth: int) -> tuple[dict[str, Any], int]:
    obj: dict[str, Any] = {}
    i = _skip(text, i)
    if text[i : i + 1] == "}":
        return obj, i + 1
    while True:
        if text[i : i + 1] != '"':
            raise json.JSONDecodeError("Expecting property name enclosed in double quotes", text, i)
        key, i = scanstring(text, i + 1)
        i = _skip(text, i)
        if text[i : i + 1] != ":":
            raise json.JSONDecodeError("Expecting ':' delimiter", text, i)
        value, i = _value(text, _skip(text, i + 1), depth)
        obj[key] = value
        i = _skip(text, i)
        char = text[i : i + 1]
        if char == "}":
            return obj, i + 1
        if char != ",":
            raise json.JSONDecodeError("Expecting ',' delimiter", text, i)
        i = _skip(text, i + 1)


#: Items of a list of plain values encoded by one call of the C encoder.
CHUNK = 20_000


def dumps_parts(value: Any, depth: int = 2 * DEPTH, **options: Any) -> Iterator[str]:
    """Pieces of ``json.dumps(value, **options)`` (``separators`` given, no ``indent``): containers above
    ``depth`` are walked in Python and long lists, at any depth, cut into :data:`CHUNK` items, so the C
    encoder never holds the GIL for a large document at a stretch (a digest of the 100k city's results held
    it 0.3 s)."""
    item_sep, key_sep = options["separators"]
    if depth > 0 and type(value) is dict and all(type(k) is str for k in value):
        yield from _dict_parts(value, depth, item_sep, key_sep, options)
    elif type(value) in (list, tuple) and value and (depth > 0 or len(value) > CHUNK):
        yield "["
        nested = any(type(v) in (dict, list, tuple) for v in value)
        step = 1 if nested else CHUNK
        for start in range(0, len(value), step):
            if start:
                yield item_sep
            if nested:
                yield from dumps_parts(value[start], depth - 1, **options)
            else:
                yield json.dumps(value[start : start + step], **options)[1:-1]
        yield "]"
    else:
        yield json.dumps(value, **options)


def _dict_parts(
    value: dict[str, Any], depth: int, item_sep: str, key_sep: str, options: dict
) -> Iterator[str]:
    items = sorted(value.items()) if options.get("sort_keys") else list(value.items())
    if not items:
        yield "{}"
        return
    yield "{"
    for i, (key, item) in enumerate(items):
        if i:
            yield item_sep
        yield json.dumps(key, ensure_ascii=options.get("ensure_ascii", True)) + key_sep
        yield from dumps_parts(item, depth - 1, **options)
    yield "}"


_SCALARS = (str, int, float, bool, type(None))


def indented_parts(value: Any, indent: int = 2, level: int = 0) -> Iterator[str]:
    """Pieces of ``json.dumps(value, indent=indent, ensure_ascii=False, allow_nan=False)``, made mostly by
    the C encoder: Python's encoder writes an indented document value by value in Python (3 s for the 100k
    city's 60 MB project, the GIL handed back to the window only every switch interval, so each of its many
    GIL requests while painting waited), while here a list or dict of plain values is one C call per
    :data:`CHUNK` items, and only the containers holding containers are walked in Python."""
    kind = type(value)
    if kind is dict and value and all(type(k) is str for k in value):
        yield from _indented_dict(value, indent, level)
    elif kind in (list, tuple) and value:
        yield from _indented_list(value, indent, level)
    else:  # a scalar; an empty container, a dict with keys that are not strings or a subclass: rare, small
        text = json.dumps(value, indent=indent, ensure_ascii=False, allow_nan=False)
        yield text.replace("\n", "\n" + " " * (indent * level))  # strings in JSON text hold no raw newline


def _indented_list(value: list | tuple, indent: int, level: int) -> Iterator[str]:
    inner = "\n" + " " * (indent * (level + 1))
    yield "[" + inner
    if all(type(v) in _SCALARS for v in value):
        yield from _flat((value[start : start + CHUNK] for start in range(0, len(value), CHUNK)), inner)
    else:
        for i, item in enumerate(value):
            if i:
                yield "," + inner
            yield from indented_parts(item, indent, level + 1)
    yield "\n" + " " * (indent * level) + "]"


def _indented_dict(value: dict[str, Any], indent: int, level: int) -> Iterator[str]:
    inner = "\n" + " " * (indent * (level + 1))
    yield "{" + inner
    if all(type(v) in _SCALARS for v in value.values()):  # e.g. a value per person: chunks of items
        items = list(value.items())
        yield from _flat((dict(items[start : start + CHUNK]) for start in range(0, len(items), CHUNK)), inner)
    else:
        for i, (key, item) in enumerate(value.items()):
            if i:
                yield "," + inner
            yield json.dumps(key, ensure_ascii=False) + ": "
            yield from indented_parts(item, indent, level + 1)
    yield "\n" + " " * (indent * level) + "}"


def _flat(chunks: Iterator[Any], inner: str) -> Iterator[str]:
    """The items of lists or dicts of plain values, one C call each, separated as an indented container's
    items at the indentation ``inner`` (a newline and spaces)."""
    separators = ("," + inner, ": ")
    for i, chunk in enumerate(chunks):
        if i:
            yield separators[0]
        yield json.dumps(chunk, ensure_ascii=False, allow_nan=False, separators=separators)[1:-1]
