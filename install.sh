#!/usr/bin/env bash
# Install pyslurm from this checkout into /opt/pyslurm and start a single-box cluster.
#
#   sudo ./install.sh              install (or upgrade) and start the cluster
#   sudo ./install.sh --no-start   install (or upgrade) only
#   sudo ./install.sh --uninstall  remove the installation; configuration, key, job state,
#                                  accounting data and logs stay (/etc/pyslurm, /var/lib/pyslurm)
#
# Re-running upgrades in place and keeps configuration, state and accounting data. The system
# user slurm is created when missing; a new configuration runs the controller and the accounting
# daemon as it (SlurmUser=slurm; they start as root and drop to it). On a host run
# by systemd the units go to /etc/systemd/system (pointing at this installation) and the cluster
# runs under them (`systemctl status pyslurmctld`); elsewhere pyslurm-quickstart starts the
# daemons. Paths for tests and packagers: PYSLURM_PREFIX, PYSLURM_BIN_DIR (command links),
# PYSLURM_UNIT_DIR (setting it installs the units there even without systemd running).
set -euo pipefail

PREFIX=${PYSLURM_PREFIX:-/opt/pyslurm}
BIN_DIR=${PYSLURM_BIN_DIR:-/usr/local/bin}
UNIT_DIR=${PYSLURM_UNIT_DIR:-/etc/systemd/system}
UNITS="pyslurmdbd pyslurmctld pyslurmd pyslurmsackd pyslurmrestd"
COMMANDS="sbatch srun salloc squeue scancel sinfo sacct sacctmgr sstat scontrol sdiag sreport sprio sshare seff sbcast sattach strigger
          pyslurm-quickstart
          pyslurmctld pyslurmd pyslurmdbd pyslurmsackd pyslurmrestd"
ACTION=install
START=1
for arg in "$@"; do
  case "$arg" in
    --no-start) START=0 ;;
    --uninstall) ACTION=uninstall ;;
    *) echo "install.sh: unknown option $arg" >&2; exit 2 ;;
  esac
done

if [ "$(id -u)" -ne 0 ]; then
  echo "install.sh: must run as root (it installs system daemons)" >&2
  exit 1
fi
cd "$(dirname "$0")"

# systemd manages the daemons only where it is the init system (not in containers or chroots).
SYSTEMD=0
[ -d /run/systemd/system ] && command -v systemctl >/dev/null && SYSTEMD=1
INSTALL_UNITS=$SYSTEMD
[ -n "${PYSLURM_UNIT_DIR:-}" ] && INSTALL_UNITS=1

uninstall() {
  if [ "$SYSTEMD" -eq 1 ]; then
    for unit in $UNITS; do
      systemctl disable --now "$unit.service" 2>/dev/null || true
    done
  elif [ -x "$PREFIX/bin/pyslurm-quickstart" ]; then
    "$PREFIX/bin/pyslurm-quickstart" --stop || true
  fi
  for unit in $UNITS; do
    # only units this installation wrote (they name its prefix)
    if [ -f "$UNIT_DIR/$unit.service" ] && grep -q "^ExecStart=$PREFIX/bin/" "$UNIT_DIR/$unit.service"; then
      rm -f "$UNIT_DIR/$unit.service"
    fi
  done
  [ "$SYSTEMD" -eq 1 ] && systemctl daemon-reload
  for cmd in $COMMANDS; do
    if [ "$(readlink "$BIN_DIR/$cmd" 2>/dev/null)" = "$PREFIX/bin/$cmd" ]; then
      rm -f "$BIN_DIR/$cmd"
    fi
  done
  rm -rf "$PREFIX"
  echo "pyslurm removed from $PREFIX; configuration (/etc/pyslurm) and data (/var/lib/pyslurm) are kept"
}

if [ "$ACTION" = uninstall ]; then
  uninstall
  exit 0
fi

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
# setuptools' distutils shim: a .pth that every interpreter of the prefix runs at start-up (1.3 M
# instructions, about 0.3 ms of each sbatch or squeue call), so that `import distutils` finds
# setuptools' copy; pyslurm imports no distutils, and code that does gets Python's own, as without
# setuptools. A setuptools upgrade puts the file back; re-running install.sh removes it.
rm -f "$PREFIX"/lib/python3*/site-packages/distutils-precedence.pth
chmod -R a+rX "$PREFIX"

mkdir -p "$BIN_DIR"
for cmd in $COMMANDS; do
  ln -sf "$PREFIX/bin/$cmd" "$BIN_DIR/$cmd"
done
echo "pyslurm installed in $PREFIX (commands linked into $BIN_DIR)"

# The controller and the accounting daemon drop root to SlurmUser; a new configuration names
# this system account (an existing slurm.conf keeps its SlurmUser, root included).
id -u slurm >/dev/null 2>&1 ||
  useradd --system --user-group --no-create-home --home-dir /var/lib/pyslurm --shell /usr/sbin/nologin slurm
# pyslurmrestd runs as its own unprivileged account (never root or SlurmUser, as slurmrestd).
id -u slurmrestd >/dev/null 2>&1 ||
  useradd --system --user-group --no-create-home --home-dir /var/lib/pyslurm --shell /usr/sbin/nologin slurmrestd

if [ "$INSTALL_UNITS" -eq 1 ]; then
  mkdir -p "$UNIT_DIR"
  for unit in $UNITS; do
    sed "s|/opt/pyslurm/bin/|$PREFIX/bin/|g" "systemd/$unit.service" > "$UNIT_DIR/$unit.service"
    chmod 644 "$UNIT_DIR/$unit.service"
  done
  echo "systemd units installed in $UNIT_DIR"
fi

if [ "$START" -eq 1 ]; then
  if [ "$SYSTEMD" -eq 1 ]; then
    "$PREFIX/bin/pyslurm-quickstart" --no-start   # configuration, key and directories, unless present
    systemctl daemon-reload
    systemctl enable $UNITS
    # an upgrade: the running daemons pick up the new code (jobs keep running in their stepds)
    systemctl restart $UNITS
  else
    "$PREFIX/bin/pyslurm-quickstart"
  fi
elif [ "$SYSTEMD" -eq 1 ]; then
  systemctl daemon-reload
fi
