"""The login environment a --get-user-env / --export=NONE batch job starts from (pyslurm_d/user_login_env.py)."""
from __future__ import annotations

import asyncio
import os
import pwd

import pytest

from pyslurm_d import user_login_env


def test_submitted_variables_win_over_the_login_ones() -> None:
    login = user_login_env.parse(b"HOME=/home/a\0PATH=/usr/bin\0SHELL=/bin/bash\0broken\0")
    assert login == {"HOME": "/home/a", "PATH": "/usr/bin", "SHELL": "/bin/bash"}
    env = user_login_env.merged(login, ["PATH=/opt/bin", "SLURM_JOB_ID=3", user_login_env.MARKER])
    assert dict(item.split("=", 1) for item in env) == {
        "HOME": "/home/a", "PATH": "/opt/bin", "SHELL": "/bin/bash", "SLURM_JOB_ID": "3", "SLURM_GET_USER_ENV": "1"}
    assert user_login_env.wanted([user_login_env.MARKER]) and not user_login_env.wanted(["A=1"])


@pytest.mark.skipif(os.geteuid() != 0 or not os.path.exists(user_login_env.RUNUSER), reason="needs root and runuser")
def test_a_real_login_environment_of_a_user() -> None:
    user = pwd.getpwuid(0).pw_name
    login = asyncio.run(user_login_env.login_environment(user, 1))
    assert login is not None and login.get("HOME") == pwd.getpwuid(0).pw_dir


def test_an_unknown_user_leaves_the_job_its_own_environment() -> None:
    assert asyncio.run(user_login_env.login_environment("no-such-user-xyz", 1)) is None
