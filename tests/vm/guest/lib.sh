# Helpers of the VM workloads (sourced). Each check is a named step: its output goes to
# $OUT/steps/<name>.log, its verdict to $OUT/result ("ok <name> <seconds>s" or "FAIL <name> ..."),
# and both to the console, which the host shows as the run goes.
EXCHANGE=/mnt/exchange
OUT=$EXCHANGE/out
STATE=/var/lib/pyslurm-vmtest
mkdir -p "$OUT/steps" "$STATE"
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

say() { echo "vmtest: $*" > /dev/console; }

step() {  # step <name> <command...>: run a check, record its verdict
  # The check runs in a subshell with errexit, outside any `||` (which would switch errexit off
  # inside it): its first failing command ends it and fails the step.
  local name=$1 started=$SECONDS status
  shift
  ( set -e; "$@" ) > "$OUT/steps/$name.log" 2>&1
  status=$?
  local took=$((SECONDS - started))
  if [ "$status" -eq 0 ]; then
    echo "ok $name ${took}s" >> "$OUT/result"
    say "ok $name (${took} s)"
  else
    echo "FAIL $name ${took}s (exit $status; see steps/$name.log)" >> "$OUT/result"
    say "FAIL $name (${took} s, exit $status):"
    tail -n 15 "$OUT/steps/$name.log" | sed 's/^/vmtest:   /' > /dev/console
  fi
  sync
  return 0
}

fail() { echo "$*" >&2; return 1; }

wait_for() {  # wait_for <seconds> <command...>: until the command succeeds
  local limit=$1
  shift
  local deadline=$((SECONDS + limit))
  until "$@"; do
    [ "$SECONDS" -lt "$deadline" ] || { echo "gave up after ${limit} s waiting for: $*" >&2; return 1; }
    sleep 1
  done
}

as_user() {  # as_user <user> <shell command>: a login shell of an ordinary user, in its home
  local user=$1
  shift
  runuser -l "$user" -c "$*"
}

job_state() { sacct -n -X -P -j "$1" -o State 2>/dev/null | head -n1 | cut -d' ' -f1; }
queue_state() { squeue -h -j "$1" -o %T 2>/dev/null; }
state_is() { [ "$(job_state "$1")" = "$2" ]; }
queued_as() { [ "$(queue_state "$1")" = "$2" ]; }

wait_state() {  # wait_state <job> <sacct state> [seconds]
  wait_for "${3:-120}" state_is "$1" "$2" || { echo "job $1: $(job_state "$1") in sacct, squeue: $(queue_state "$1")"; return 1; }
}

node_idle() { [ "$(sinfo -h -N -o %t -n "${1:-$(hostname -s)}")" = "idle" ]; }

finish() {  # the journal of every boot and the daemons' log files, for the host; then the verdict
  journalctl --no-pager -o short-precise > "$OUT/journal.txt" 2>&1
  cp -r /var/lib/pyslurm/log "$OUT/logs" 2>/dev/null
  systemctl --no-pager --failed > "$OUT/failed-units.txt" 2>&1
  grep -q '^FAIL' "$OUT/result" && { say "done: FAILED"; return 1; }
  say "done: all passed"
  return 0
}

reboot_and_continue() {  # reboot_and_continue <next phase>
  echo "$1" > "$STATE/phase"
  touch /run/pyslurm-vm-rebooting
  sync
  say "rebooting (phase $1 continues after the boot)"
  umount "$EXCHANGE" || true
  systemctl --no-block reboot
  exit 0
}

lan_address() {  # the two-VM link (tests/vm/run.py): head 192.168.1.10, box2 192.168.1.11; none alone
  local address
  case "$(hostname -s)" in head) address=192.168.1.10 ;; box2) address=192.168.1.11 ;; *) return 0 ;; esac
  printf '[Match]\nName=en*\n\n[Network]\nAddress=%s/24\n' "$address" > /etc/systemd/network/10-lan.network
  systemctl enable --now systemd-networkd
  wait_for 60 eval "ip -4 -o addr show | grep -q ' $address/'"
}
