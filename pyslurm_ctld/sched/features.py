"""Node features and `--constraint` expressions (cli-sbatch-srun-salloc.md, `-C`).

A constraint is one feature (`gpu`), features that must all be present (`a&b`) or alternatives
(`a|b`); `&` binds tighter than `|`, so `a&b|c` means "a and b, or c". Each node of the job must
satisfy it on its own. Brackets, counts (`a*2`) and node-wide choices (`[a|b]`) are not
supported and are refused as an invalid specification, like a feature no node has.

Pure; `ValueError` for a malformed expression, `SlurmError` for a submission to refuse.
"""
from __future__ import annotations

import functools
import re

from pyslurm_common.errors import SlurmError, Strerror

Constraint = tuple[tuple[str, ...], ...]   # alternatives, each a set of features all required
_NAME = re.compile(r"[A-Za-z0-9_.:+-]+")


@functools.lru_cache(maxsize=1024)
def parse(text: str) -> Constraint:
    """`a&b|c` -> (("a", "b"), ("c",)); "" -> () (no constraint)."""
    if not text:
        return ()
    groups = []
    for alternative in text.split("|"):
        names = tuple(name.strip() for name in alternative.split("&"))
        if not all(_NAME.fullmatch(name) for name in names):
            raise ValueError(f"invalid constraint {text!r}")
        groups.append(names)
    return tuple(groups)


def satisfied(constraint: Constraint, features: frozenset[str]) -> bool:
    """Whether a node with `features` satisfies the constraint (always, without one)."""
    return not constraint or any(all(name in features for name in group) for group in constraint)


def known(constraint: Constraint, available: frozenset[str]) -> bool:
    """Whether every feature the constraint names exists somewhere in `available` (Slurm refuses
    a job naming a feature no node has, even as one of several alternatives)."""
    return all(name in available for group in constraint for name in group)


def batch_subset(batch: str, constraint: str, available: frozenset[str]) -> None:
    """sbatch --batch: each feature it names is one --constraint names and one some node has (of
    `a|b`, one is enough), else Slurm's BATCH_CONSTRAINT, which a job without -C always gets."""
    if not batch:
        return
    named = {name for group in parse(constraint) for name in group} if constraint else set()
    try:
        groups = parse(batch)
    except ValueError:
        raise SlurmError(Strerror.BATCH_CONSTRAINT) from None
    words = [name for group in groups for name in group]
    if not named or any(name not in named for name in words):
        raise SlurmError(Strerror.BATCH_CONSTRAINT)
    present = [name in available for name in words]
    if not (any(present) if len(groups) > 1 else all(present)):
        raise SlurmError(Strerror.BATCH_CONSTRAINT)


def validated(text: str, available: frozenset[str]) -> Constraint:
    """A submitted --constraint: well formed and naming only features of the job's nodes, else
    Slurm's `Invalid feature specification`."""
    try:
        constraint = parse(text)
    except ValueError:
        raise SlurmError(Strerror.INVALID_FEATURE) from None
    if not known(constraint, available):
        raise SlurmError(Strerror.INVALID_FEATURE)
    return constraint
