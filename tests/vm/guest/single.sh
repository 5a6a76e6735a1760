#!/bin/bash
# The single-VM workload: a fresh Debian 12 box with systemd and pure cgroup v2, the README's
# install command, then real work as an ordinary user. Phase 1 ends with a reboot while a job is
# pending; phase 2 checks what the boot kept and that `systemctl stop` leaves nothing behind.
set -u
. "$(dirname "$0")/lib.sh"
UNITS="pyslurmdbd pyslurmctld pyslurmd pyslurmsackd pyslurmrestd"
NODE=$(hostname -s)
SCOPE=/sys/fs/cgroup/system.slice/pyslurmstepd_${NODE}_${NODE}.scope   # stepd_scope.py
NODE_CGROUP=$SCOPE/pyslurm_${NODE}_${NODE}

prepare() {
  # What the lab's box has before pyslurm: its network (two-VM test), the offline package mirror
  # pip is pointed at (the VM has no other network), an ordinary user, two NVIDIA device nodes (made at every boot, as the driver
  # does; opening one gives ENXIO, there being no driver, unless the device cgroup refuses: EPERM).
  lan_address
  printf '[global]\nno-index = true\nfind-links = %s/wheels\n' "$EXCHANGE" > /etc/pip.conf
  printf 'c /dev/nvidia%s 0666 root root - 195:%s\n' 0 0 1 1 > /etc/tmpfiles.d/nvidia-fake.conf
  systemd-tmpfiles --create /etc/tmpfiles.d/nvidia-fake.conf
  id alice >/dev/null 2>&1 || useradd --create-home --shell /bin/bash alice
  rm -rf /root/pyslurm && mkdir /root/pyslurm && tar -xf "$EXCHANGE/src.tar" -C /root/pyslurm
}

install() {  # the README's command, as written there
  cd /root/pyslurm && sudo ./install.sh
}

units_active() {
  systemctl is-active $UNITS || { systemctl --no-pager status $UNITS; return 1; }
  wait_for 120 node_idle
  sinfo
}

cgroup_tree() {  # the job trees sit in the stepds' delegated scope, controllers on; the agent's
  # unit holds only processes (so that systemd can restart it)
  systemctl show -p Delegate,KillMode,ControlGroup pyslurmd
  cat /proc/"$(systemctl show -p MainPID --value pyslurmd)"/cgroup
  wait_for 60 test -d "$SCOPE"
  systemctl show -p Delegate,TasksMax "$(basename "$SCOPE")"
  ls "$SCOPE" "$NODE_CGROUP"
  [ -z "$(cat /sys/fs/cgroup/system.slice/pyslurmd.service/cgroup.subtree_control)" ] ||
    fail "pyslurmd.service enables controllers: a restart would fail (219/CGROUP)"
  local controllers
  controllers=$(cat "$NODE_CGROUP/cgroup.subtree_control")
  echo "subtree_control: $controllers"
  for c in cpuset memory cpu pids; do [[ " $controllers " == *" $c "* ]] || fail "$c not enabled in $NODE_CGROUP"; done
  scontrol show config | grep -i cgroup
}

sbatch_job() {
  local id
  id=$(as_user alice 'sbatch --parsable -J hello -c 1 --mem=100M -t 5 --wrap "echo hello from \$SLURM_JOB_ID on \$(hostname); cat /proc/self/cgroup; cat /sys/fs/cgroup\$(cut -d: -f3 /proc/self/cgroup)/../memory.max"')
  wait_state "$id" COMPLETED
  cat /home/alice/slurm-"$id".out
  grep -qx "hello from $id on $NODE" /home/alice/slurm-"$id".out || fail "unexpected output"
  grep -q "job_$id/step_batch/user/task_0" /home/alice/slurm-"$id".out || fail "not in its step cgroup"
  grep -qx "$((100 * 1024 * 1024))" /home/alice/slurm-"$id".out || fail "memory.max is not 100M"
}

srun_steps() {
  local out
  out=$(as_user alice 'srun -n2 -l hostname | sort')
  echo "$out"
  [ "$out" = "$(printf '0: %s\n1: %s' "$NODE" "$NODE")" ] || fail "unexpected srun output"
  out=$(as_user alice 'salloc -n1 srun printenv SLURM_JOB_ID' 2>&1)
  echo "$out"
  echo "$out" | grep -q 'salloc: Granted job allocation' || fail "salloc did not allocate"
}

array_job() {
  local id
  id=$(as_user alice 'sbatch --parsable --array=1-3 -o "arr-%A_%a.out" --wrap "echo task \$SLURM_ARRAY_TASK_ID"')
  wait_for 120 eval '[ "$(sacct -n -X -P -j '"$id"' -o State | sort -u)" = COMPLETED ] && [ "$(sacct -n -X -P -j '"$id"' -o JobID | wc -l)" = 3 ]'
  sacct -X -j "$id" -o JobID,State
  for t in 1 2 3; do grep -qx "task $t" /home/alice/arr-"$id"_"$t".out || fail "task $t output"; done
}

scancel_job() {
  local id
  id=$(as_user alice 'sbatch --parsable --wrap "sleep 300"')
  wait_for 120 queued_as "$id" RUNNING
  wait_for 30 pgrep -u alice -x sleep
  as_user alice "scancel $id"
  wait_state "$id" CANCELLED
  wait_for 30 eval '! pgrep -u alice -x sleep'   # (wait_for fails the step when this never holds)
  wait_for 30 test ! -e "$NODE_CGROUP/job_$id"
}

oom_job() {
  local id
  id=$(as_user alice "sbatch --parsable --mem=64M --wrap 'python3 -c \"b = b\\\"x\\\" * (256 << 20)\"'")
  wait_state "$id" OUT_OF_MEMORY
  sacct -X -j "$id" -o JobID,State,ExitCode
}

fork_bomb() {  # contained by the job's memory and CPUs; scancel ends every process
  local id
  id=$(as_user alice "sbatch --parsable -c 1 --mem=128M --wrap 'bomb() { bomb | bomb & }; bomb; sleep 300'")
  wait_for 120 queued_as "$id" RUNNING
  sleep 10
  echo "alice processes during the bomb: $(pgrep -c -u alice)"
  systemctl is-active pyslurmctld pyslurmd
  as_user alice "scancel $id"
  wait_for 60 eval '! pgrep -u alice'
  wait_for 30 test ! -e "$NODE_CGROUP/job_$id"
  sacct -X -j "$id" -o JobID,State
  wait_for 60 node_idle
}

devices() {  # one of the two fake GPUs is the job's; the other is refused by the device program
  local id
  id=$(as_user alice 'sbatch --parsable --gres=gpu:1 --wrap "echo CUDA=\$CUDA_VISIBLE_DEVICES; for d in /dev/nvidia0 /dev/nvidia1; do python3 -c \"import errno, os, sys
try:
    os.open(sys.argv[1], os.O_RDWR)
except OSError as e:
    print(sys.argv[1], errno.errorcode[e.errno])\" \$d; done"')
  wait_state "$id" COMPLETED
  cat /home/alice/slurm-"$id".out
  grep -qx 'CUDA=0' /home/alice/slurm-"$id".out || fail "CUDA_VISIBLE_DEVICES"
  [ "$(grep -c ' ENXIO$' /home/alice/slurm-"$id".out)" = 1 ] || fail "the job's own GPU was not opened (ENXIO)"
  [ "$(grep -c ' EPERM$' /home/alice/slurm-"$id".out)" = 1 ] || fail "the other GPU was not refused (EPERM)"
}

restarts() {  # each unit restarted while a job runs; the job runs on and completes
  local id unit
  rm -f /tmp/vmtest-go
  id=$(as_user alice 'sbatch --parsable --wrap "while [ ! -e /tmp/vmtest-go ]; do sleep 1; done; echo survived"')
  wait_for 120 queued_as "$id" RUNNING
  for unit in $UNITS; do
    systemctl restart "$unit" || { systemctl --no-pager status "$unit"; fail "restart of $unit failed"; }
    systemctl is-active "$unit" || fail "$unit did not come back"
    wait_for 60 queued_as "$id" RUNNING || fail "job $id after restarting $unit: $(queue_state "$id")"
    echo "restarted $unit: job $id $(queue_state "$id")"
  done
  touch /tmp/vmtest-go
  wait_state "$id" COMPLETED
  grep -qx survived /home/alice/slurm-"$id".out
}

journal_readable() {
  journalctl --no-pager -b -u pyslurmd | tail -n 5
  journalctl --no-pager -b -u pyslurmd | grep -q "cgroup v2 at $NODE_CGROUP" || fail "no start line of pyslurmd in the journal"
  journalctl --no-pager -b -u pyslurmctld | grep -q "job=" || fail "no job line of pyslurmctld in the journal"
}

hold_for_reboot() {
  local id
  id=$(as_user alice 'sbatch --parsable --hold --wrap "echo ran after the reboot"')
  queued_as "$id" PENDING || fail "job $id: $(queue_state "$id")"
  echo "$id" > "$STATE/held"
}

after_reboot() {  # enabled units start at boot; the pending job is still there and runs
  local id
  id=$(cat "$STATE/held")
  systemctl is-active $UNITS
  wait_for 120 node_idle
  queued_as "$id" PENDING || fail "job $id after the reboot: $(queue_state "$id")"
  as_user alice "scontrol release $id"
  wait_state "$id" COMPLETED
  grep -qx 'ran after the reboot' /home/alice/slurm-"$id".out
}

stop_leaves_nothing() {
  systemctl stop $UNITS
  if systemctl is-active -q $UNITS; then fail "a unit is still active"; fi
  local left
  left=$(pgrep -a -f /opt/pyslurm/ || true)
  [ -z "$left" ] || fail "processes left after systemctl stop: $left"
  left=$(find /sys/fs/cgroup -name 'pyslurm*' ! -name pyslurm-vm-agent.service 2>/dev/null || true)
  [ -z "$left" ] || fail "cgroups left after systemctl stop: $left"
}

phase_one() {  # everything before the reboot
  step prepare prepare
  step install install
  step units_active units_active
  step sbatch sbatch_job
  step cgroup_tree cgroup_tree
  step srun_salloc srun_steps
  step array array_job
  step scancel scancel_job
  step oom oom_job
  step fork_bomb fork_bomb
  step devices devices
  step restarts restarts
  step journal journal_readable
  step hold_for_reboot hold_for_reboot
}

[ "${BASH_SOURCE[0]}" = "$0" ] || return 0   # sourced by head.sh: the functions only
case "$(cat "$STATE/phase" 2>/dev/null || echo 1)" in
  1)
    phase_one
    reboot_and_continue 2
    ;;
  2)
    step after_reboot after_reboot
    step stop_leaves_nothing stop_leaves_nothing
    finish
    ;;
esac
