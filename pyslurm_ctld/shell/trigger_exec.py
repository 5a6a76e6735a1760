"""The exec shim of a trigger's program: a fresh, single-threaded process that becomes the
trigger's user (initgroups, setgid, setuid, as slurmctld's _trigger_run_program) and execs the
program with Slurm's argv (the path's last part first). The controller is threaded (gRPC), and a
child forked from it to drop privileges may be aborted by gRPC's fork handlers before it execs
(status -6 seen), so it starts this with a plain exec instead. Stdlib only.

Usage: python -m pyslurm_ctld.shell.trigger_exec UID GID USER PATH ARGV0 [ARG...]
"""
from __future__ import annotations

import os
import sys


def main(words: list[str]) -> None:
    uid, gid, user, path, *argv = words
    if os.geteuid() == 0:
        os.initgroups(user, int(gid))
        os.setgid(int(gid))
        os.setuid(int(uid))
    if os.getuid() != int(uid) or os.geteuid() != int(uid):
        raise SystemExit(f"trigger_exec: not running as uid {uid}")
    os.execv(path, argv)


if __name__ == "__main__":
    main(sys.argv[1:])
