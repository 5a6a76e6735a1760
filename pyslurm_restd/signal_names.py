"""Signals as slurmrestd reads them (Slurm's sig_name2num): a number, or a name with or without
SIG in any case (USR1, sigusr1, SIGUSR1)."""
from __future__ import annotations

import signal as signals
from typing import Callable

from .envelope import RestError


def signal_number(text: str, refusal: Callable[[str], RestError]) -> int:
    name = text.upper().strip()
    if name.isdigit() and 0 < int(name) < 65:
        return int(name)
    try:
        return int(signals.Signals[name if name.startswith("SIG") else "SIG" + name])
    except KeyError:
        raise refusal(f"Unknown signal {text}") from None
