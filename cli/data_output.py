"""--json and --yaml text of a data_parser document, byte for byte as Slurm 22.05 writes it.

Slurm's JSON comes from json-c's pretty printer: two-space indents, ``"key": value``, an empty
list as ``[`` and ``]`` on two lines, ``/`` escaped as ``\\/``. Its YAML comes from libyaml with
every node tagged (``!!str key: !!int 5``), block style, sequences not indented under their key,
``%YAML 1.1``, ``---`` and ``...`` around the document; a string Slurm never set (``""`` in
its JSON) is ``!!null null``, one it keeps empty (EMPTY here) a bare ``!!str``. Scalars are plain
unless libyaml's rules need quotes, and long ones fold at spaces past column 80, as libyaml's
emitter does. The documents are plain trees (dict, list, str, int, float, bool, None), so no
YAML library is needed. Pure.
"""
from __future__ import annotations

import json
from typing import Any

WIDTH = 80   # libyaml's best_width: a scalar breaks at a space once the line is past it
_INDENT = "  "
# A first character that keeps a scalar out of plain style (libyaml's indicators).
_FIRST_INDICATORS = frozenset("#,[]{}&*!|>'\"%@`")


# --------------------------------------------------------------------------- JSON (json-c)


class EmptyText(str):
    """An empty string Slurm keeps as a string: YAML ``!!str`` with nothing after it, where a
    plain ``""`` (a field Slurm never set) is ``!!null null``; JSON writes both as ``""``."""


EMPTY = EmptyText("")


def json_text(document: Any) -> str:
    """The document as json-c's JSON_C_TO_STRING_PRETTY writes it (Slurm adds no final newline)."""
    return "".join(_json(document, 0))


def _json(value: Any, level: int) -> list[str]:
    pad = _INDENT * (level + 1)
    if isinstance(value, dict):
        if not value:
            return ["{\n", _INDENT * level, "}"]
        parts = ["{\n"]
        for i, (key, item) in enumerate(value.items()):
            parts += [",\n" if i else "", pad, _json_string(str(key)), ": ", *_json(item, level + 1)]
        return [*parts, "\n", _INDENT * level, "}"]
    if isinstance(value, list):
        if not value:
            return ["[\n", _INDENT * level, "]"]
        parts = ["[\n"]
        for i, item in enumerate(value):
            parts += [",\n" if i else "", pad, *_json(item, level + 1)]
        return [*parts, "\n", _INDENT * level, "]"]
    if isinstance(value, str):
        return [_json_string(value)]
    if isinstance(value, float):
        return [repr(value) if value == value and value not in (float("inf"), float("-inf")) else "null"]
    return [json.dumps(value)]


def _json_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False).replace("/", "\\/")


# --------------------------------------------------------------------------- YAML (libyaml)


def yaml_text(document: Any) -> str:
    """The document as Slurm's YAML serializer writes it through libyaml."""
    lines: list[str] = []
    _yaml_node(document, 0, "--- ", 0, lines)
    return "%YAML 1.1\n" + "".join(line + "\n" for line in lines) + "...\n"


def _yaml_node(value: Any, level: int, prefix: str, line_indent: int, lines: list[str]) -> None:
    """Append ``value``'s lines: its tag (and scalar) after ``prefix`` (``--- ``, ``key: `` or
    ``- ``), a collection's entries below at ``level``. ``line_indent`` is where the prefix's
    line starts: a folded scalar continues two columns further in."""
    if isinstance(value, dict) and value:
        lines.append(prefix + "!!map")
        for key, item in value.items():
            key_prefix = _INDENT * level + "!!str " + _quoted(str(key)) + ": "
            # a block sequence under a mapping key is not indented (libyaml's indentless sequence)
            _yaml_node(item, level if isinstance(item, list) else level + 1, key_prefix, level * 2, lines)
    elif isinstance(value, list) and value:
        lines.append(prefix + "!!seq")
        for item in value:
            _yaml_node(item, level + 1, _INDENT * level + "- ", level * 2, lines)
    else:
        lines.extend(_scalar_lines(prefix, value, line_indent + 2))


def _scalar_lines(prefix: str, value: Any, continuation: int) -> list[str]:
    if isinstance(value, dict):
        return [prefix + "!!map {}"]
    if isinstance(value, list):
        return [prefix + "!!seq []"]
    if isinstance(value, EmptyText):
        return [prefix + "!!str"]
    if value is None or value == "":
        return [prefix + "!!null null"]
    if isinstance(value, bool):
        return [prefix + "!!bool " + ("true" if value else "false")]
    if isinstance(value, int):
        return [f"{prefix}!!int {value}"]
    if isinstance(value, float):
        return [f"{prefix}!!float {value:f}"]
    text = str(value)
    style = _style(text)
    if style == "double":
        return [prefix + "!!str " + _double_quoted(text)]
    quote = "'" if style == "single" else ""
    return _fold(prefix + "!!str " + quote, text.replace("'", "''") if quote else text, quote, continuation)


def _quoted(key: str) -> str:
    """A mapping key: never folded (libyaml's simple keys)."""
    style = _style(key)
    if style == "double":
        return _double_quoted(key)
    return f"'{key}'" if style == "single" else key


_ESCAPES = {"\0": "0", "\a": "a", "\b": "b", "\t": "t", "\n": "n", "\v": "v", "\f": "f", "\r": "r",
            "\x1b": "e", '"': '"', "\\": "\\", "\x85": "N", "\xa0": "_", "\u2028": "L", "\u2029": "P"}


def _double_quoted(text: str) -> str:
    """libyaml's double-quoted scalar without its unicode option (Slurm sets none): anything
    outside printable ASCII escaped, as ``\\t``, ``\\xE9``, ``\\u20AC`` (upper-case hex)."""
    out = []
    for ch in text:
        code = ord(ch)
        if ch in _ESCAPES:
            out.append("\\" + _ESCAPES[ch])
        elif " " <= ch <= "~":
            out.append(ch)
        else:
            out.append(f"\\x{code:02X}" if code <= 0xFF else f"\\u{code:04X}" if code <= 0xFFFF else f"\\U{code:08X}")
    return '"' + "".join(out) + '"'


def _fold(head: str, body: str, quote: str, continuation: int) -> list[str]:
    """libyaml's line breaking: a single space, once the line is past WIDTH and more text
    follows, becomes a line break (a quoted scalar never breaks at its first or last character);
    a line break in a single-quoted scalar is written as an empty line, the text going on indented."""
    lines, line = [], head
    last = len(body) - 1
    breaks = False
    for i, ch in enumerate(body):
        if ch == "\n":
            lines += [line, ""] if not breaks else [line]
            line, breaks = "", True
            continue
        if breaks:
            line, breaks = " " * continuation, False
        if (ch == " " and len(line) > WIDTH and i + 1 <= last and body[i + 1] not in " \n"
                and (i == 0 or body[i - 1] != " ") and not (quote and i in (0, last))):
            lines.append(line)
            line = " " * continuation
            continue
        line += ch
    return [*lines, line + quote]


def _style(text: str) -> str:
    """plain, single or double: the first style libyaml's scalar analysis allows in block context."""
    if not all(ch == "\n" or " " <= ch <= "~" for ch in text):
        return "double"
    if "\n" in text:
        return "double" if (" \n" in text or "\n " in text) else "single"
    if text[0] == " " or text[-1] == " " or text.startswith(("---", "...")):
        return "single"
    first = text[0]
    if first in _FIRST_INDICATORS or (first in "?:-" and (len(text) == 1 or text[1] == " ")):
        return "single"
    if ": " in text or text.endswith(":") or " #" in text:
        return "single"
    return "plain"
