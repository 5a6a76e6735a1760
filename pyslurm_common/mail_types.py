"""--mail-type as Slurm reads and prints it, for the commands and the controller alike: names in
any case, comma separated; NONE anywhere means none; ALL is the six events it stands for;
printed in Slurm's fixed order. Pure."""
from __future__ import annotations

ORDER = ("ARRAY_TASKS", "INVALID_DEPEND", "BEGIN", "END", "FAIL", "REQUEUE", "STAGE_OUT",
         "TIME_LIMIT", "TIME_LIMIT_90", "TIME_LIMIT_80", "TIME_LIMIT_50")
ALL = ("INVALID_DEPEND", "BEGIN", "END", "FAIL", "REQUEUE", "STAGE_OUT")


def mail_kinds(text: str) -> frozenset[str]:
    """`end,fail` -> {"END", "FAIL"}; empty for NONE; ValueError for an unknown name or no name."""
    chosen: set[str] = set()
    for name in (part.strip().upper() for part in text.split(",")):
        if name == "NONE":
            return frozenset()
        if name == "ALL":
            chosen.update(ALL)
        elif name in ORDER:
            chosen.add(name)
        else:
            raise ValueError(name)
    if not chosen:
        raise ValueError(text)
    return frozenset(chosen)


def normalise_mail_type(text: str) -> str:
    """`end,fail` -> `END,FAIL`; "NONE" for none; ValueError for an unknown name."""
    kinds = mail_kinds(text)
    return ",".join(name for name in ORDER if name in kinds) if kinds else "NONE"
