#!/usr/bin/env bash
# Install pyslurm from this checkout into /opt/pyslurm and start a single-box cluster.
#
#   sudo ./install.sh              install (or upgrade) and start the cluster (pyslurm-quickstart)
#   sudo ./install.sh --no-start   install only
#
# Re-running upgrades in place; configuration, state and accounting data are kept.
set -euo pipefail

PREFIX=${PYSLURM_PREFIX:-/opt/pyslurm}
START=1
for arg in "$@"; do
  case "$arg" in
    --no-start) START=0 ;;
    *) echo "install.sh: unknown option $arg" >&2; exit 2 ;;
  esac
done

if [ "$(id -u)" -ne 0 ]; then
  echo "install.sh: must run as root (it installs system daemons)" >&2
  exit 1
fi
cd "$(dirname "$0")"

# Debian/Ubuntu system Python (>= 3.11) with venv; pyenv and friends are not visible to job users.
PY=/usr/bin/python3
if ! "$PY" -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  if command -v apt-get >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-venv >/dev/null
  fi
fi
"$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || {
  echo "install.sh: pyslurm needs Python 3.11 or newer as /usr/bin/python3 (Debian 12, Ubuntu 24.04)" >&2
  exit 1
}

[ -x "$PREFIX/bin/python" ] || "$PY" -m venv "$PREFIX"
"$PREFIX/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip
# Tests are part of the install (pytest is a declared dependency): `pytest tests` runs against it.
"$PREFIX/bin/python" -m pip install -q --disable-pip-version-check --upgrade ".[test]"
chmod -R a+rX "$PREFIX"

for cmd in sbatch srun salloc squeue scancel sinfo sacct sacctmgr sstat scontrol sdiag pyslurm-quickstart \
           pyslurmctld pyslurmd pyslurmdbd pyslurmsackd; do
  ln -sf "$PREFIX/bin/$cmd" "/usr/local/bin/$cmd"
done
echo "pyslurm installed in $PREFIX (commands linked into /usr/local/bin)"

if [ "$START" -eq 1 ]; then
  "$PREFIX/bin/pyslurm-quickstart"
fi
