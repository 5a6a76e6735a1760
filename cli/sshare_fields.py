"""sshare's fields and default field lists (spec cli-sacct-sacctmgr-sprio-sshare.md §5).

Rows come from the controller's fairshare table in tree order; the Account column is indented
one space per level below root. Shares, usage and factors print with ``%f`` (six decimals),
RawUsage as a whole number of billing-seconds, RawShares ``parent`` for Fairshare=parent and
blank for root, LevelFS ``inf`` for an association that never ran, FairShare blank for accounts
under Fair Tree. Rendering is the shared print_fields layout. Pure.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pyslurm_common.rpc import messages as pb

from .print_fields import Value

Share = pb.ShareInfo
SHARES_PARENT = 0x7FFFFFFF


@dataclass(frozen=True, slots=True)
class ShareField:
    width: int
    get: Callable[[Share], Value]


def _double(value: float) -> str:
    return f"{value:f}"


def _optional_double(name: str) -> Callable[[Share], Value]:
    return lambda row: _double(getattr(row, name)) if row.HasField(name) else None


def _raw_shares(row: Share) -> Value:
    if not row.HasField("raw_shares"):
        return None
    return "parent" if row.raw_shares == SHARES_PARENT else int(row.raw_shares)


FIELDS: dict[str, ShareField] = {
    "Account": ShareField(-20, lambda r: " " * r.depth + r.account),
    "Cluster": ShareField(10, lambda r: None),
    "EffectvUsage": ShareField(13, lambda r: _double(r.effective_usage)),
    "FairShare": ShareField(10, _optional_double("fairshare")),
    "LevelFS": ShareField(10, _optional_double("level_fs")),
    "NormShares": ShareField(11, lambda r: _double(r.norm_shares)),
    # Slurm leaves root's NormUsage blank (its usage is the whole cluster's by definition)
    "NormUsage": ShareField(11, lambda r: _double(r.norm_usage) if r.depth else None),
    # No GrpTRESMins limit is set on associations here: blank, as Slurm prints an unset one
    "GrpTRESMins": ShareField(30, lambda r: None),
    "TRESRunMins": ShareField(30, lambda r: r.tres_run_mins or None),
    "Partition": ShareField(12, lambda r: r.partition or None),
    "RawShares": ShareField(10, _raw_shares),
    "RawUsage": ShareField(11, lambda r: int(r.raw_usage)),
    "User": ShareField(10, lambda r: r.user or None),
}


def default_fields(fair_tree: bool, long: bool, partitions: bool) -> list[str]:
    names = ["Account", "User", *(["Partition"] if partitions else []), "RawShares", "NormShares", "RawUsage"]
    if long:
        names.append("NormUsage")
    names += ["EffectvUsage", "FairShare"]
    if long and fair_tree:
        names.append("LevelFS")
    if long:
        names += ["GrpTRESMins", "TRESRunMins"]
    return names


# What Slurm's sshare -e lists, in its order (a few pyslurm does not print: GrpTRESMins,
# GrpTRESRaw, ID, TRESRunMins).
SLURM_FIELDS = ("Account", "Cluster", "EffectvUsage", "FairShare", "GrpTRESMins", "GrpTRESRaw", "ID", "LevelFS",
                "NormShares", "NormUsage", "Partition", "RawShares", "RawUsage", "TRESRunMins", "User")


def help_format() -> str:
    """-e/--helpformat: four names to a line, each 17 wide, a space between."""
    rows = [SLURM_FIELDS[i:i + 4] for i in range(0, len(SLURM_FIELDS), 4)]
    return "".join(" ".join(f"{name:<17}" for name in row) + "\n" for row in rows)
