#!/bin/bash
# The head of the two-VM test: the single-VM workload (single.sh), then the README's "Adding a
# second machine" with box2 (box2.sh) joining as a dynamic GPU node, then `systemctl stop`
# leaving nothing.
set -u
. "$(dirname "$0")/single.sh"
CONF=/etc/pyslurm/slurm.conf

second_machine() {  # README "Adding a second machine", steps 1 and 3 (dynamic node: Nodes=ALL)
  sed -i -e 's/^SlurmctldHost=.*/SlurmctldHost=head(192.168.1.10)/' \
         -e 's/^AccountingStorageHost=.*/AccountingStorageHost=192.168.1.10/' \
         -e 's/^\(PartitionName=debug Nodes=\)[^ ]*/\1ALL/' "$CONF"
  grep -E '^(SlurmctldHost|AccountingStorageHost|PartitionName)' "$CONF"
  systemctl restart pyslurmctld
  wait_for 120 node_idle
  touch /root/vmtest-ready       # box2.sh waits for this before its rsync
  wait_for 1800 node_idle box2 || { sinfo -N; fail "box2 did not join"; }
  sinfo -N -o '%N %t %G %f'
  scontrol show node box2
}

jobs_on_box2() {  # a GPU job and an srun step there, from the head, as alice
  local id out
  id=$(as_user alice 'sbatch --parsable -w box2 --gres=gpu:1 --wrap "hostname; echo CUDA=\$CUDA_VISIBLE_DEVICES"')
  wait_state "$id" COMPLETED
  out=$(ssh box2 cat /home/alice/slurm-"$id".out)
  echo "$out"
  [ "$out" = "$(printf 'box2\nCUDA=0')" ] || fail "unexpected output of job $id on box2"
  out=$(as_user alice 'srun -w box2 -n1 hostname')
  [ "$out" = box2 ] || fail "srun -w box2 printed: $out"
}

case "$(cat "$STATE/phase" 2>/dev/null || echo 1)" in
  1)
    phase_one
    reboot_and_continue 2
    ;;
  2)
    step after_reboot after_reboot
    step second_machine second_machine
    step jobs_on_box2 jobs_on_box2
    ssh box2 'systemctl stop pyslurmd pyslurmsackd' > "$OUT/steps/box2_stop.log" 2>&1
    step stop_leaves_nothing stop_leaves_nothing
    ssh box2 touch /root/vmtest-done || true
    finish
    ;;
esac
