"""conf_syntax scans slurm.conf lines by hand (no re on the CLIs' start-up path, issue 18): each
scanner must agree exactly with the pattern it replaced, on every line, which these tests check
against the patterns themselves on many random lines built from the characters that matter."""
from __future__ import annotations

import random
import re

import pytest

from pyslurm_common import conf_syntax
from pyslurm_common.conf_syntax import ConfigError, tokenize

# The patterns conf_syntax used to match with: the definition of what its scanners accept.
TOKEN = re.compile(r'([A-Za-z0-9_.]+)[ \t]*([+-]?=)[ \t]*(?:"([^"]*)"|([^\s"]*))(?=\s|$)')
INCLUDE = re.compile(r"include\s+(.+)", re.IGNORECASE)
ESCAPE = re.compile(r"\\(.)")
GLOB_CHARS = re.compile(r"[*?\[]")

ALPHABET = ['a', 'Z', '0', '_', '.', ' ', ' ', '\t', '=', '=', '+', '-', '"', '"', '\\', '\n', '\u00a0', '\x0b',
            'é', '*', '[', '?', 'x', '/', 'İ', 'ı', 'I', 'include', 'Include ', 'INCLUDE\t', 'Key=', '="v w"']


def _lines(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 12))) for _ in range(count)]


def _pattern_tokens(text: str) -> list[tuple[str, str]] | str:
    """What tokenize() did with the pattern: the tokens, or the error text."""
    tokens, pos, end = [], 0, len(text)
    while True:
        while pos < end and text[pos].isspace():
            pos += 1
        if pos >= end:
            return tokens
        m = TOKEN.match(text, pos)
        if m is None:
            return f"parsing error at: {text[pos:].strip()}"
        if m.group(2) != "=":
            return f"{m.group(1)}{m.group(2)} is not supported; use {m.group(1)}="
        tokens.append((m.group(1), m.group(3) if m.group(3) is not None else m.group(4)))
        pos = m.end()


def _scanned_tokens(text: str) -> list[tuple[str, str]] | str:
    try:
        return [(tok.key, tok.value) for tok in tokenize(text, "slurm.conf", 1)]
    except ConfigError as exc:
        return exc.message


@pytest.mark.parametrize("seed", range(4))
def test_tokens_as_the_pattern_read_them(seed: int) -> None:
    for text in _lines(5000, seed):
        assert _scanned_tokens(text) == _pattern_tokens(text), repr(text)


@pytest.mark.parametrize("text, expected", [
    ('Key=Value Other = "a b"', [("Key", "Value"), ("Other", "a b")]),
    ('A= "x"y', 'parsing error at: "x"y'),      # the empty value before the last space, then the rest refused
    ('A="x"y', 'parsing error at: A="x"y'),
    ("A+=1", "A+= is not supported; use A="),
    ("A=", [("A", "")]),
])
def test_tokens_of_known_lines(text: str, expected: list[tuple[str, str]] | str) -> None:
    assert _scanned_tokens(text) == expected == _pattern_tokens(text)


def test_include_lines_as_the_pattern_read_them() -> None:
    for text in _lines(20000, 7) + ["Include a", "include\u00a0b", "İnclude c", "ınclude d", "Includex e",
                                    "include", "INCLUDE  f g"]:
        stripped = text.strip()
        m = INCLUDE.fullmatch(stripped)
        assert conf_syntax._include_argument(stripped) == (m.group(1) if m else None), repr(stripped)


def test_unescaping_and_glob_characters_as_the_patterns_read_them() -> None:
    for text in _lines(20000, 11) + ["\\", "a\\", "\\\\\\", "\\\n", "x\\#y"]:
        assert conf_syntax._unescape(text) == ESCAPE.sub(r"\1", text), repr(text)
        assert any(char in text for char in conf_syntax._GLOB_CHARS) == bool(GLOB_CHARS.search(text))
