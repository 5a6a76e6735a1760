"""Slurm's slurm_ctime2: ``Thu Dec 03 12:52:45 2026`` (local time; the day zero-padded, unlike
Python's time.ctime)."""
from __future__ import annotations

import time


def slurm_ctime(epoch: float) -> str:
    return time.strftime("%a %b %d %H:%M:%S %Y", time.localtime(epoch))
