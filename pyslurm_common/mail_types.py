"""--mail-type as Slurm reads and prints it, for the commands and the controller alike: names in
any case, comma separated; a name Slurm does not know is passed over (`BEGIN,FOO` is BEGIN), and
only a value with no name it knows is refused; NONE anywhere means none; ALL is the six events
it stands for; printed in Slurm's fixed order. Pure."""
from __future__ import annotations

from collections.abc import Iterable

ORDER = ("ARRAY_TASKS", "INVALID_DEPEND", "BEGIN", "END", "FAIL", "REQUEUE", "STAGE_OUT",
         "TIME_LIMIT", "TIME_LIMIT_90", "TIME_LIMIT_80", "TIME_LIMIT_50")
ALL = ("INVALID_DEPEND", "BEGIN", "END", "FAIL", "REQUEUE", "STAGE_OUT")


def mail_kinds(text: str) -> frozenset[str]:
    """`end,fail` -> {"END", "FAIL"}; empty for NONE; ValueError when no name is one Slurm knows.
    Names are compared whole, as Slurm's parse_mail_type does (` END` is no name it knows)."""
    chosen: set[str] = set()
    for name in (part.upper() for part in text.split(",")):
        if name == "NONE":
            return frozenset()
        if name == "ALL":
            chosen.update(ALL)
        elif name in ORDER:
            chosen.add(name)
    if not chosen:
        raise ValueError(text)
    return frozenset(chosen)


def combined_mail_kinds(occurrences: Iterable[str]) -> frozenset[str]:
    """--mail-type given several times: Slurm ORs each occurrence into the ones before, so a later
    NONE takes nothing away (`END` then `NONE` is END); ValueError at an occurrence with no name
    Slurm knows, whatever came before it."""
    chosen: frozenset[str] = frozenset()
    for text in occurrences:
        chosen |= mail_kinds(text)
    return chosen


def shown_mail_type(kinds: frozenset[str]) -> str:
    """The kinds as Slurm prints them: `END,FAIL` in its order; "NONE" for none."""
    return ",".join(name for name in ORDER if name in kinds) if kinds else "NONE"


def normalise_mail_type(text: str) -> str:
    """`end,fail` -> `END,FAIL`; "NONE" for none; ValueError when no name is one Slurm knows."""
    return shown_mail_type(mail_kinds(text))
