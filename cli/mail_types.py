"""--mail-type as Slurm reads and prints it: names in any case, comma separated; NONE anywhere
means none; ALL is the six events it stands for; printed in Slurm's fixed order."""
from __future__ import annotations

ORDER = ("ARRAY_TASKS", "INVALID_DEPEND", "BEGIN", "END", "FAIL", "REQUEUE", "STAGE_OUT",
         "TIME_LIMIT", "TIME_LIMIT_90", "TIME_LIMIT_80", "TIME_LIMIT_50")
ALL = ("INVALID_DEPEND", "BEGIN", "END", "FAIL", "REQUEUE", "STAGE_OUT")


def normalise_mail_type(text: str) -> str:
    """`end,fail` -> `END,FAIL`; "NONE" for none; ValueError for an unknown name."""
    chosen: set[str] = set()
    for name in (part.strip().upper() for part in text.split(",")):
        if name == "NONE":
            return "NONE"
        if name == "ALL":
            chosen.update(ALL)
        elif name in ORDER:
            chosen.add(name)
        else:
            raise ValueError(name)
    if not chosen:
        raise ValueError(text)
    return ",".join(name for name in ORDER if name in chosen)
