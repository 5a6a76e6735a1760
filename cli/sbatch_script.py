"""Batch script handling for sbatch: validation, `#SBATCH` directives, --wrap.

Pure functions over the script text; option parsing itself is the sbatch
click command, which parses directive arguments exactly like the command line.
"""
from __future__ import annotations

import shlex


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


def _directive_rest(line: str) -> str | None:
    """The text after `#SBATCH` (or legacy `#SLURM`) at column 0, or None for other lines."""
    for magic in (MAGIC, LEGACY_MAGIC):
        if line.startswith(magic):
            rest = line[len(magic):]
            return rest if not rest or rest[0].isspace() else None
    return None


def legacy_directives(text: str) -> bool:
    """True if the directive block uses `#SLURM` (sbatch then prints LEGACY_WARNING once)."""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            return False
        if line.startswith(LEGACY_MAGIC) and _directive_rest(line) is not None:
            return True
    return False


def directive_lines(text: str, source: str) -> list[list[str]]:
    """Arguments of each `#SBATCH` line of the leading comment block, in order."""
    found: list[list[str]] = []
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            break  # the first command ends the directive block
        rest = _directive_rest(line)
        if rest is None:
            continue
        lexer = shlex.shlex(rest, posix=True)
        lexer.whitespace_split = True
        lexer.commenters = "#"
        try:
            args = list(lexer)
        except ValueError:
            quote = '"' if rest.count('"') % 2 else "'"
            raise ScriptError(f"{source}: line {number}: Unmatched `{quote}' in [{line}]", severity="fatal")
        if args:
            found.append(args)
    return found
