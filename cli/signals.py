"""Signal names and numbers as scancel --signal and sbatch --signal take them."""
from __future__ import annotations

import signal as _signal


def parse_signal(text: str) -> int:
    """`10`, `USR1`, `SIGUSR1` (any case) -> number; ValueError otherwise."""
    if text.isdigit():
        number = int(text)
        if 0 < number < _signal.NSIG:
            return number
        raise ValueError(text)
    name = text.upper()
    if not name.startswith("SIG"):
        name = "SIG" + name
    try:
        return int(getattr(_signal.Signals, name))
    except AttributeError:
        raise ValueError(text) from None
