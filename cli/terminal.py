"""srun --pty's local terminal: its size, and raw mode while the remote pty owns line editing
and signals.

The terminal settings are restored on every way out (normal end, exception, SystemExit);
SIGTSTP/SIGTTOU from the remote side never reach this process because Ctrl-Z is just a byte
in raw mode.
"""
from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator


@contextlib.contextmanager
def raw_terminal() -> Iterator[bool]:
    """Put stdin in raw mode if it is a terminal; yields whether it is one."""
    fd = sys.stdin.fileno() if sys.stdin is not None else -1
    if fd < 0 or not sys.stdin.isatty():
        yield False
        return
    import termios
    import tty

    saved = termios.tcgetattr(fd)
    try:
        tty.setraw(fd, termios.TCSANOW)
        yield True
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def terminal_size() -> tuple[int, int]:
    """(rows, columns) of the terminal on stdin; 24x80 without one."""
    try:
        size = os.get_terminal_size(sys.stdin.fileno())
    except (OSError, ValueError, AttributeError):
        return 24, 80
    return size.lines, size.columns
