"""Batch script handling for sbatch: validation, `#SBATCH` directives, --wrap.

Pure functions over the script text; the directive words go through the same getopt
table as the command line (cli/option_tables/sbatch.py).
"""
from __future__ import annotations


class ScriptError(Exception):
    def __init__(self, *lines: str, exit_code: int = 1, severity: str = "error") -> None:
        super().__init__(lines[0])
        self.lines = lines
        self.exit_code = exit_code
        self.severity = severity


def wrap(command: str) -> str:
    return f"#!/bin/sh\n# This script was created by sbatch --wrap.\n\n{command}\n"


def validate(text: str) -> None:
    if not text:
        raise ScriptError("Batch script is empty!")
    if not text.strip():
        raise ScriptError("Batch script contains only whitespace!")
    if not text.startswith("#!"):
        raise ScriptError("This does not look like a batch script.  The first",
                          "line must start with #! followed by the path to an interpreter.",
                          "For instance: #!/bin/sh")
    if "\0" in text:
        raise ScriptError("The Slurm controller does not allow scripts that",
                          "contain a NULL character '\\0'.")
    if "\r\n" in text:
        raise ScriptError("Batch script contains DOS line breaks (\\r\\n)",
                          "instead of expected UNIX line breaks (\\n).")


MAGIC = "#SBATCH"
LEGACY_MAGIC = "#SLURM"   # still accepted, with a warning (legacy_directives)
LEGACY_WARNING = "Change from #SLURM to #SBATCH in your script and verify the options are valid in sbatch"
HETJOB_SEPARATORS = ("hetjob", "packjob")


def _directive_rest(line: str) -> str | None:
    """The text after `#SBATCH` (or legacy `#SLURM`) at column 0, or None for other lines.
    Slurm compares only the magic word's characters: `#SBATCH-N 2` is `-N 2`."""
    for magic in (MAGIC, LEGACY_MAGIC):
        if line.startswith(magic):
            return line[len(magic):]
    return None


def _ends_directives(line: str) -> bool:
    """A line whose first non-blank character is not `#` is the first command."""
    stripped = line.lstrip()
    return bool(stripped) and not stripped.startswith("#")


def legacy_directives(text: str) -> bool:
    """True if the directive block uses `#SLURM` (sbatch then prints LEGACY_WARNING once)."""
    for line in text.split("\n"):
        if line.startswith(MAGIC):
            continue
        if line.startswith(LEGACY_MAGIC):
            return True
        if _ends_directives(line):
            return False
    return False


def _separator(text: str) -> str | None:
    """`hetjob`/`packjob` (any case) as a whole word at the start of `text`, else None."""
    for word in HETJOB_SEPARATORS:
        if text[:len(word)].lower() == word and (len(text) == len(word) or text[len(word)].isspace()):
            return word
    return None


def line_words(rest: str, source: str, number: int) -> list[str]:
    """The arguments of one directive line, by Slurm's rules: blanks separate words; quotes
    (' or ") group and are removed; a backslash takes the next character as it is (one at the
    end of the line vanishes); an unquoted `#` starts a comment; a separator word is a blank;
    an empty word (`""`) ends the line."""
    words: list[str] = []
    position = 0
    while True:
        start = position    # Slurm's error shows the line from here on
        while position < len(rest) and rest[position].isspace():
            position += 1
        separator = _separator(rest[position:])
        if separator:
            position += len(separator)
            continue
        if rest[position:position + 1] == ":":
            raise ScriptError(f"{source}: line {number}: Unexpected `:` in [{rest[start:]}]", severity="fatal")
        word: list[str] = []
        quote = ""
        escaped = False
        while position < len(rest) and (quote or not rest[position].isspace()):
            char = rest[position]
            position += 1
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
                continue
            elif quote:
                if char == quote:
                    quote = ""
                    continue
            elif char in "\"'":
                quote = char
                continue
            elif char == "#":
                position = len(rest)
                break
            word.append(char)
        if quote:
            raise ScriptError(f"{source}: line {number}: Unmatched `{quote}` in [{rest[start:]}]", severity="fatal")
        if not word:
            return words
        words.append("".join(word))


def directive_words(text: str, source: str) -> list[list[str]]:
    """The words of the `#SBATCH` lines before the first command, one list per hetjob component.

    Slurm runs getopt over all the words of a component together, so an option's value may
    sit on the next directive line."""
    components: list[list[str]] = [[]]
    for number, line in enumerate(text.split("\n"), 1):
        rest = _directive_rest(line)
        if rest is None:
            if _ends_directives(line):
                break
            continue
        if _separator(rest.lstrip()):
            components.append([])
        components[-1].extend(line_words(rest, source, number))
    return components
