#!/usr/bin/env python3
"""Run SchedMD's own python testsuite (an already-fetched checkout, never fetched here) against a
fresh two-node pyslurm cluster, the integration tests' (tests/integration/conftest.py).

    git -C <slurm clone> archive slurm-22-05-11-1 testsuite/python | tar -x -C /tmp/schedmd
    python3 -m venv /tmp/ts-venv && /tmp/ts-venv/bin/pip install pytest pytest-timeout py pexpect \\
        jsondiff jsonpatch requests pyyaml
    sudo <this checkout's venv, made with /usr/bin/python3>/bin/python scripts/run_schedmd_testsuite.py \\
        /tmp/schedmd/testsuite/python /tmp/ts-venv -- tests --timeout=150 -q --deselect tests/test_133_1.py

Slurm 22.05.11's testsuite is the one for 22.05 semantics (its tests/test_1xx_*.py; master's
needs newer CLIs, `scontrol --json`). Run as root in local-config mode: the test user is root,
so a `sudo` that only reports NOPASSWD and runs the command, and a `slurmctld -V` that reports
pyslurm's version, go first on PATH. MinJobAge is long because the testsuite's last teardown
cancels every job it ever submitted and fails on a purged one; KillWait is the oracle's (5).
test_133_1 compiles against libslurm and does not apply.
"""
from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "integration")]

SUDO = """#!/bin/bash
user=root
while [ $# -gt 0 ]; do
  case "$1" in
    -ln|-l) echo "    (ALL : ALL) NOPASSWD: ALL"; exit 0 ;;
    --preserve-env=*|-E|-n|-H) shift ;;
    -u|-nu) user=$2; shift 2 ;;
    --) shift; break ;;
    *) break ;;
  esac
done
if [ "$user" = root ]; then exec "$@"; fi
exec setpriv --reuid="$user" --regid="$(id -g "$user")" --init-groups "$@"
"""
VERSION_PROBE = "#!/bin/sh\nexec srun -V\n"


def main() -> int:
    suite, venv = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    args = sys.argv[4:] if sys.argv[3:4] == ["--"] else sys.argv[3:]
    import conftest as cluster_harness  # tests/integration/conftest.py

    def spec(root: Path, name: str):  # type: ignore[no-untyped-def]
        return dataclasses.replace(cluster_harness.two_node_spec(root, name), kill_wait=5, min_job_age=3600)

    with tempfile.TemporaryDirectory(prefix="schedmd-shims-") as shims, cluster_harness.running_cluster(spec) as c:
        for name, text in (("bin/sudo", SUDO), ("sbin/slurmctld", VERSION_PROBE), ("sbin/slurmd", VERSION_PROBE)):
            path = Path(shims) / name
            path.parent.mkdir(exist_ok=True)
            path.write_text(text)
            path.chmod(0o755)
        (suite.parent / "testsuite.conf").write_text(
            f"SlurmInstallDir=/nonexistent\nSlurmConfigDir={c.spec.conf_dir}\n")
        env = dict(os.environ, **c.env, SLURM_CONF=str(c.spec.slurm_conf))
        env["PATH"] = f"{shims}/bin:{shims}/sbin:{cluster_harness.BIN}:{venv}/bin:/usr/bin:/bin:/usr/sbin:/sbin"
        return subprocess.run([str(venv / "bin" / "python"), "-m", "pytest", "-p", "no:cacheprovider", "-rA",
                               *args], cwd=suite, env=env).returncode


if __name__ == "__main__":
    sys.exit(main())
