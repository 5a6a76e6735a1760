#!/usr/bin/env bash
# Run the CLI-agnostic benchmarks (../shared/bench) against a throw-away single-box pyslurm cluster.
#
#   sudo bench/run_shared.sh LABEL [BENCH_* overrides in the environment]
#
# The cluster lives in a temporary directory on its own ports, so it never touches /etc/pyslurm;
# results land in bench/results/LABEL.json (see ../shared/bench/README.md for the figures).
set -euo pipefail
label=${1:?usage: run_shared.sh LABEL}
here=$(cd "$(dirname "$0")" && pwd)
shared=${BENCH_SHARED:-$here/../../shared/bench}
prefix=${PYSLURM_PREFIX:-/opt/pyslurm}
root=$(mktemp -d /tmp/pyslurm-bench-XXXXXX)
chmod 755 "$root"
dirs=(--conf-dir "$root/etc" --state-dir "$root/state" --run-dir "$root/run" --base-port "${BENCH_BASE_PORT:-26817}")
trap '"$prefix/bin/pyslurm-quickstart" --stop "${dirs[@]}" || true' EXIT
"$prefix/bin/pyslurm-quickstart" "${dirs[@]}"

export PATH="$prefix/bin:$PATH" PYSLURM_CONF="$root/etc/slurm.conf"
export BENCH_CTLD_PIDFILE="$root/run/pyslurmctld.pid"
export BENCH_STOP_CMD="$prefix/bin/pyslurm-quickstart --stop ${dirs[*]}"
export BENCH_START_CMD="$prefix/bin/pyslurm-quickstart ${dirs[*]}"
export BENCH_RESULTS_DIR=${BENCH_RESULTS_DIR:-$here/results}
mkdir -p "$BENCH_RESULTS_DIR"
"$shared/run_all.sh" "$label"
python3 "$shared/summarize.py" "$BENCH_RESULTS_DIR/$label.json"
