"""The task sbcast runs on each node of the job: its standard input becomes DEST.

Runs as the job's user (a task of the job), so it can write only where that user may.
Arguments: DEST MODE(octal) FORCE(0/1) NODE_SUFFIX(0/1: DEST is followed by the node's name, so
nodes sharing a file system write files of their own) [ATIME_NS MTIME_NS]. Errors are printed in Slurm's words,
`sbcast: error: REQUEST_FILE_BCAST(<node>): <strerror>`, and the exit status is the errno.
"""
from __future__ import annotations

import os
import shutil
import sys

CHUNK = 1 << 20


def receive(dest: str, mode: int, force: bool, times: tuple[int, int] | None) -> None:
    flags = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if force else os.O_EXCL) | os.O_NOFOLLOW
    with os.fdopen(os.open(dest, flags, mode & 0o7777), "wb") as out:
        os.fchmod(out.fileno(), mode & 0o7777)     # the source's mode, whatever the umask
        shutil.copyfileobj(sys.stdin.buffer, out, CHUNK)
        out.flush()
        if times is not None:
            os.utime(out.fileno(), ns=times)


def main() -> None:
    dest, mode, force, node_suffix, *times = sys.argv[1:]
    node = os.environ.get("SLURMD_NODENAME", "")
    if node_suffix == "1":
        dest += node
    try:
        receive(dest, int(mode, 8), force == "1", (int(times[0]), int(times[1])) if times else None)
    except OSError as exc:
        print(f"sbcast: error: REQUEST_FILE_BCAST({node}): {exc.strerror}", file=sys.stderr)
        raise SystemExit(exc.errno or 1) from None


if __name__ == "__main__":
    main()
