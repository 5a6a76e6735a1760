"""salloc --get-user-env[=timeout][S|L]: the command salloc runs starts from the login
environment of the job's user (--uid, else salloc's own), with salloc's own variables taking
precedence, as Slurm's salloc (env_array_user_default): root only, read by the user's own shell
("runuser [-l] <user> -c 'env -0'"), within GetEnvTimeout seconds (default 2) unless a timeout is given.
"""
from __future__ import annotations

import os
import pwd
import re
import subprocess
from collections.abc import Mapping

from .app import die

TYPE_CHECKING = False   # typing's constant without importing typing: CLI start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any

RUNUSER = "/usr/sbin/runuser"
MAX_BYTES = 1 << 20          # a login environment larger than this is not believed
MAX_TIMEOUT = 3600


def _option(raw: str) -> tuple[int, str]:
    """(timeout, mode) from `10`, `10L`, `S` ... as Slurm's strtol-then-letter parse."""
    found = re.fullmatch(r"\s*([+-]?\d*)(.*)", raw, re.S)
    digits, rest = (found.group(1), found.group(2)) if found else ("", raw)
    if rest and rest[0] not in "sSlL":
        die("Invalid --get-user-env specification", exit_code=255)
    timeout = int(digits) if digits.lstrip("+-").isdigit() else 0
    return min(max(timeout, 0), MAX_TIMEOUT), rest[:1].upper()


def parsed(values: Mapping[str, Any]) -> tuple[int, str] | None:
    """The option's (timeout, mode) as salloc parses its command line, None when not given."""
    return _option(str(values["get_user_env"] or "")) if "get_user_env" in values else None


def require_root(option: tuple[int, str] | None) -> None:
    """Checked before anything is asked of the controller, as Slurm's salloc does."""
    if option is not None and os.geteuid() != 0:
        die("SlurmdUser must be root to use --get-user-env")


def user_environment(option: tuple[int, str], uid: int) -> dict[str, str]:
    """The user's login variables, or Slurm's error when they cannot be read in time."""
    from pyslurm_common.client_settings import conf_value

    timeout, mode = option
    configured = conf_value("GetEnvTimeout")
    timeout = timeout or (int(configured) if configured.isdigit() and len(configured) < 6 else 2)
    try:
        user = pwd.getpwuid(uid).pw_name
    except KeyError:
        die(f"Invalid user id {uid}: No such user")
    login = [] if mode == "S" else ["-l"]
    try:
        done = subprocess.run([RUNUSER, *login, user, "-c", "env -0"], stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=timeout or None, check=False,
                              env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"})
    except (OSError, subprocess.TimeoutExpired):
        die("Failed to load current user environment variables")
    if done.returncode != 0 or not done.stdout or len(done.stdout) > MAX_BYTES:
        die("Failed to load current user environment variables")
    found = {}
    for item in done.stdout.decode(errors="surrogateescape").split("\0"):
        name, sep, value = item.partition("=")
        if sep and name and "\n" not in name:
            found[name] = value
    return found
