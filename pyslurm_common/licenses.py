"""License lists as Slurm 22.05 writes them: slurm.conf `Licenses=` and a job's `-L/--licenses`.

A list is `name[:count]` items separated by `,` or `;`; the count defaults to one, and a name
given twice adds up. A blank inside an item, a count that is not a number, or one outside its
bound makes the whole list invalid (`LicenseError`), as in Slurm, which then refuses the job with
"Invalid license specification". There is no `|` (OR) form in 22.05: `a|b` is one license name,
unknown unless configured so.

Pure and stdlib only (the controller and the CLIs import it).
"""
from __future__ import annotations

import re

from .bounds import UINT32_MAX

_SEPARATORS = re.compile(r"[,;]")


class LicenseError(ValueError):
    """A license list that does not parse."""


def parse_licenses(text: str) -> dict[str, int]:
    """Name -> count, in the order first named; {} for an empty list."""
    counts: dict[str, int] = {}
    for item in _SEPARATORS.split(text):
        if not item:
            continue
        if any(ch.isspace() for ch in item):
            raise LicenseError(f"blank in license item {item!r}")
        name, colon, count_text = item.partition(":")
        count = 1
        if colon:
            # Slurm's strtol: an empty count reads as 0, a sign is allowed but never negative.
            if count_text and not re.fullmatch(r"\+?\d+", count_text):
                raise LicenseError(f"bad license count in {item!r}")
            count = int(count_text or "0")
        if count > UINT32_MAX:
            raise LicenseError(f"license count in {item!r} out of range")
        counts[name] = counts.get(name, 0) + count
        if counts[name] > UINT32_MAX:
            raise LicenseError(f"license count of {name} out of range")
    return counts


def format_licenses(counts: dict[str, int]) -> str:
    """`name:count,...` (how scontrol shows a reservation's licenses); "" for none."""
    return ",".join(f"{name}:{count}" for name, count in counts.items())


def request_valid(text: str, configured: dict[str, int]) -> bool:
    """Whether a job may ask for `text`: it parses, names only configured licenses and asks for
    no more of one than its total (Slurm refuses anything else at submit)."""
    try:
        wanted = parse_licenses(text)
    except LicenseError:
        return False
    return all(name in configured and count <= configured[name] for name, count in wanted.items())
