#!/bin/bash
# The second machine of the two-VM test, a GPU box: README "Adding a second machine" steps 2, 4
# and 5 as written there, as a dynamic node; head.sh drives the rest and says when it is done.
set -u
. "$(dirname "$0")/single.sh"

install_no_start() {
  cd /root/pyslurm && sudo ./install.sh --no-start
}

hardware() {
  local line
  line=$(pyslurmd -C)
  echo "$line"
  [[ "$line" == "NodeName=box2 CPUs="*" Gres=gpu:2" ]] || fail "pyslurmd -C: $line"
}

join_cluster() {  # steps 4 and 5, with systemd, once the head is reachable
  wait_for 2400 ssh -o ConnectTimeout=5 head test -e /root/vmtest-ready
  sudo rsync -a head:/etc/pyslurm/ /etc/pyslurm/
  cp /root/pyslurm/systemd/pyslurmd.service /root/pyslurm/systemd/pyslurmsackd.service /etc/systemd/system/
  echo 'PYSLURMD_OPTIONS="-Z --conf Gres=gpu:2"' > /etc/default/pyslurmd
  systemctl daemon-reload
  systemctl enable --now pyslurmd pyslurmsackd
  wait_for 120 node_idle box2
}

step prepare prepare
step install_no_start install_no_start
step hardware hardware
step join_cluster join_cluster
wait_for 3000 test -e /root/vmtest-done || true
step journal_readable_box2 eval 'journalctl --no-pager -b -u pyslurmd | grep -q "registered as box2"'
finish
