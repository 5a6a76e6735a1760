"""The same sbatch command lines through real Slurm 22.05 (parse-only: a controller port nothing
listens on) and through ours: both accept with the same "defined options", or both refuse with
the same first line and exit code. Skipped where real Slurm is not installed
(../shared/slurm-oracle/README.md installs it)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from corpus_report import ORACLE_CONF, clean_environment, defined, parse_only_conf  # noqa: E402

REAL = Path("/usr/bin/sbatch")
pytestmark = pytest.mark.skipif(not REAL.exists() or not ORACLE_CONF.exists(), reason="real Slurm not installed")

LINES = [
    "--foo", "--hold=3", "--n 3", "-z", "-n", "--ntasks", "--cpu 2", "-Hn2 -N1", "--out=o.%j --err e.%j",
    "--nice", "--nice=5", "--exclusive", "--exclusive=user", "-t 2-", "-t 1-1", "-t 90", "-t UNLIMITED",
    "-N 1-1", "-N 1-2", "-N x", "-N 2-1", "-n x", "-n 0", "-c x", "--ntasks-per-node=0",
    "--mail-type=end,fail", "--mail-type=bogus", "--mail-type=ALL --mail-user=a@b", "--mem=4G", "--mem=0",
    "--mem=1 --mem-per-cpu=1", "--mem-per-gpu=16G", "--hint=bogus", "--hint=nomultithread",
    "--distribution=bogus", "-m cyclic:block", "--gres-flags=bogus", "--wait-all-nodes=2", "--gpu-bind=bogus",
    "--open-mode=a", "--open-mode=bogus", "--signal=B:USR1@60", "--signal=10", "--gres=gpu:2", "-o none",
    "--array=[1-4]", "--gpus=0", "-D rel", "-J 'a b'", "--comment=x --wckey=w", "--tasks-per-node=2",
    "--clusters=anchor", "--export=NONE", "--switches=2", "-O --tmp=10G", "--threads-per-core=x",
    "--kill-on-invalid-dep=yes", "--requeue", "--no-requeue", "--parsable", "-Q",
    "--propagate=BOGUS", "--propagate=STACK,CORE", "--mincpus=x", "--mincpus=2", "--nodefile=/nonexistent",
    "--export-file=/nonexistent", "--ntasks-per-gpu=x", "--signal=BOGUS", "--kill-on-invalid-dep=maybe", "-W",
    # cli/scheduling_options.py
    "--time-min=5", "--time-min=x", "--priority=5", "--priority=x", "--priority=-1", "--priority=TOP",
    "--priority=4294967295", "-B x", "-B 1:x", "-B 2:4:1", "-B *:2", "-B 2-4:*:1", "--sockets-per-node=x",
    "--cores-per-socket=0", "--sockets-per-node=2 --cores-per-socket=3", "--cpu-freq=bogus", "--cpu-freq=low:bogus",
    "--cpu-freq=Low-High:Performance", "--cpu-freq=performance", "--cpu-freq=1000-2000", "--acctg-freq=bogus",
    "--acctg-freq=5", "--acctg-freq=task=x", "--acctg-freq=task=30,energy=10", "--prefer=a&b",
    "--begin=now+2hours --deadline=now+1hour", "-k", "--no-kill=off", "--contiguous", "--test-only",
    "--gpu-freq=bogus", "--gpu-freq=high", "--gpu-freq=memory=low,verbose", "--gpu-freq=1500", "-s",
    "--exclusive=mcs", "--exclusive=bogus", "--ntasks-per-tres=x",
    "--batch=haswell -C haswell", "--batch=a|b",
]


def run_both(line: str, tmp_path: Path) -> tuple[subprocess.CompletedProcess[str], subprocess.CompletedProcess[str]]:
    import shlex

    args = [*shlex.split(line), "-v", "--wrap", "true"]
    env = clean_environment()
    conf = parse_only_conf(tmp_path)
    real = subprocess.run(["sbatch", *args], executable=str(REAL), cwd=tmp_path, env=dict(env, SLURM_CONF=str(conf)),
                          capture_output=True, text=True, timeout=60)
    ours = subprocess.run([sys.executable, "-c", "from cli.sbatch import main; main()", *args], cwd=tmp_path,
                          env=dict(env, PYSLURM_CONF=str(tmp_path / "none.conf"), PYTHONPATH=str(ROOT)),
                          capture_output=True, text=True, timeout=60)
    return real, ours


@pytest.mark.parametrize("line", LINES)
def test_same_answer_as_real_sbatch(line: str, tmp_path: Path) -> None:
    real, ours = run_both(line, tmp_path)
    real_block, our_block = defined(real.stderr), defined(ours.stderr)
    if real_block is not None:
        if "clusters" in real_block:   # ours names a cluster only once a configuration is read
            pytest.skip("-M needs the cluster name")
        assert our_block == {k: v for k, v in real_block.items()}, ours.stderr
    else:
        assert our_block is None, ours.stderr
        first = lambda text: next(l for l in text.splitlines() if "select/" not in l)  # noqa: E731
        assert (ours.returncode, first(ours.stderr)) == (real.returncode, first(real.stderr))


SRUN = Path("/usr/bin/srun")
SRUN_LINES = [
    "-n1", "--foo", "-K", "-K1 -n2", "-K0", "--mpi=bogus", "--cpu-bind=q -n1", "-N 2-1", "-N x",
    "-l -u -n2", "--open-mode=a -o out", "--exclusive", "--overlap", "--overlap=force", "-W 5", "-W x",
    "--kill-on-bad-exit=1", "--pty", "-Q", "-J name", "--export=NONE", "-m block", "--hint=nomultithread",
    # cli/srun_step_options.py
    "--threads=0", "--threads=200", "-T x", "-T 5", "-T ' 7'", "--het-group=0", "--het-group=[0]", "--het-group=x",
    "--het-group=200", "--x11", "--x11=bogus", "-Z", "--exact --whole", "--exclusive --whole", "--whole",
    "--prolog=/bin/true --epilog=none", "-E -n1",
    "--relative=1", "--relative=x", "-r -1", "-r 0 -w localhost", "-r 0 -Z -w localhost", "-r 0 -x localhost",
    "--resv-ports", "--resv-ports=3", "--resv-ports=x", "--resv-ports=-2",
    "--accel-bind=g", "--accel-bind=x", "--accel-bind=vgmn", "--accel-bind=n",
]


@pytest.mark.skipif(not SRUN.exists(), reason="real Slurm not installed")
@pytest.mark.parametrize("line", SRUN_LINES)
def test_same_answer_as_real_srun(line: str, tmp_path: Path) -> None:
    import shlex

    args = ["-v", *shlex.split(line), "true"]
    env = clean_environment()
    conf = parse_only_conf(tmp_path)
    real = subprocess.run(["srun", *args], executable=str(SRUN), cwd=tmp_path, env=dict(env, SLURM_CONF=str(conf)),
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    ours = subprocess.run([sys.executable, "-c", "from cli.srun import main; main()", *args], cwd=tmp_path,
                          env=dict(env, PYSLURM_CONF=str(tmp_path / "none.conf"), PYTHONPATH=str(ROOT)),
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    real_block = defined(real.stderr.replace("srun: ", "sbatch: "))
    our_block = defined(ours.stderr.replace("srun: ", "sbatch: "))
    if real_block is not None:
        assert our_block == real_block, ours.stderr
    else:
        assert our_block is None, ours.stderr
        first = ours.stderr.splitlines()[0]
        assert ours.returncode == real.returncode and first in real.stderr.splitlines(), (ours.stderr, real.stderr)


@pytest.mark.parametrize("line", ["-B 2:4:1", "-B 2:3 -N 2", "-B *:2"])
def test_implicit_task_count_line_as_real_sbatch(line: str, tmp_path: Path) -> None:
    real, ours = run_both(line, tmp_path)
    assert ours.stderr.splitlines()[0] == real.stderr.splitlines()[0]


MULTI_PROG_FILES = [   # (srun options, configuration file): real srun checks the file before it contacts anyone
    ("", "0-1 echo a\n"), ("", "# c\n0 echo a\n2 echo b\n"), ("", "* echo a\n0 echo b\n"), ("", "0 a\n0 b\n"),
    ("", "3-1 echo\n"), ("", "x echo\n"), ("", "0\n"), ("", "0-2x echo\n"), ("-n1", "0-1 echo\n"),
    ("-n3", "0,1 echo\n  # indented\n\n*  echo\n"), ("", "0 echo a \\\n  b\n1 echo c\n"), ("-n4", "0-2 a\n"),
    ("", "0 " + "x" * 16400 + "\n"), ("", "# " + "x" * 60000 + "\n"), ("-n2", "1 a\n0 b\n"),
]


@pytest.mark.skipif(not SRUN.exists(), reason="real Slurm not installed")
@pytest.mark.parametrize(("options", "text"), MULTI_PROG_FILES)
def test_multi_prog_file_checked_as_real_srun(options: str, text: str, tmp_path: Path) -> None:
    (tmp_path / "mp.conf").write_text(text)
    args = [*options.split(), "--multi-prog", "mp.conf", "extra"]
    env = clean_environment()
    conf = parse_only_conf(tmp_path)
    real = subprocess.run([str(SRUN), *args], cwd=tmp_path, env=dict(env, SLURM_CONF=str(conf)),
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    ours = subprocess.run([sys.executable, "-c", "from cli.srun import main; main()", *args], cwd=tmp_path,
                          env=dict(env, PYSLURM_CONF=str(tmp_path / "none.conf"), PYTHONPATH=str(ROOT)),
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    refusal = lambda text: [l for l in text.splitlines() if "Unable to" not in l and "configuration file:" not in l]  # noqa: E731
    assert (ours.returncode, refusal(ours.stderr)) == (real.returncode, refusal(real.stderr)), (ours.stderr, real.stderr)


SALLOC = Path("/usr/bin/salloc")


@pytest.mark.skipif(not SALLOC.exists(), reason="real Slurm not installed")
@pytest.mark.parametrize("line", ["--get-user-env", "--get-user-env=10L", "--get-user-env=S", "--get-user-env=5x"])
def test_salloc_get_user_env_as_real_salloc(line: str) -> None:
    """As an ordinary user (root may read login environments): the same block, then the same refusal."""
    import pwd
    import shlex
    import tempfile

    if not any(p.pw_name == "nobody" for p in pwd.getpwall()):
        pytest.skip("no unprivileged user")
    with tempfile.TemporaryDirectory(prefix="salloc-oracle-") as where:   # one nobody can read
        _compare_as_nobody(line, Path(where), pwd.getpwnam("nobody"), shlex.split)


def _compare_as_nobody(line: str, tmp_path: Path, nobody: Any, split: Any) -> None:
    os.chmod(tmp_path, 0o755)
    conf = parse_only_conf(tmp_path)
    os.chmod(conf, 0o644)
    args = ["-v", *split(line), "true"]
    env = clean_environment()
    as_nobody = {"user": nobody.pw_uid, "group": nobody.pw_gid, "extra_groups": []}
    real = subprocess.run([str(SALLOC), *args], cwd=tmp_path, env=dict(env, SLURM_CONF=str(conf)),
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, **as_nobody)
    ours = subprocess.run([sys.executable, "-c", "from cli.salloc import main; main()", *args], cwd=tmp_path,
                          env=dict(env, PYSLURM_CONF=str(tmp_path / "none.conf"), PYTHONPATH=str(ROOT)),
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, **as_nobody)
    assert (ours.returncode, ours.stderr) == (real.returncode, real.stderr)
