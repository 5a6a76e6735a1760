#!/usr/bin/env bash
# Run ../shared/bench against pyslurm and against real Slurm 22.05 (the oracle) in one go and print
# issue 18's ratio table.
#
#   sudo bench/compare_with_slurm.sh LABEL [BENCH_* overrides in the environment]
#
# 1. pyslurm: bench/run_shared.sh on a throw-away quickstart cluster (PYSLURM_PREFIX, default
#    /opt/pyslurm: the installation or virtual environment whose bin/ holds our CLIs);
# 2. the interpreter floors of that installation (`python -c pass`, `python -c 'import click'`),
#    measured between the two runs so they share the machine's conditions;
# 3. real Slurm: ../shared/slurm-oracle/up.sh (left running if it already was, stopped otherwise),
#    then the same benches with Slurm's CLIs first on PATH;
# 4. bench/ratio_table.py over both result files.
# Results: bench/results/LABEL-{pyslurm,slurm,floors}.json and LABEL-table.md (BENCH_RESULTS_DIR
# moves them). COMPARE_ONLY=pyslurm or =slurm runs one side and reuses the other's file.
# Wall-clock figures only mean something on a quiet machine: check `uptime` first.
set -euo pipefail
label=${1:?usage: compare_with_slurm.sh LABEL}
here=$(cd "$(dirname "$0")" && pwd)
shared=${BENCH_SHARED:-$here/../../shared/bench}
oracle=${SLURM_ORACLE:-$here/../../shared/slurm-oracle}
prefix=${PYSLURM_PREFIX:-/opt/pyslurm}
export BENCH_RESULTS_DIR=${BENCH_RESULTS_DIR:-$here/results}
mkdir -p "$BENCH_RESULTS_DIR"
only=${COMPARE_ONLY:-both}
echo "compare: $(date -Is) $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2

if [ "$only" != slurm ]; then
  PYSLURM_PREFIX=$prefix "$here/run_shared.sh" "$label-pyslurm"
  "$prefix/bin/python" - "$BENCH_RESULTS_DIR/$label-floors.json" <<'PYEOF'
import json, statistics, subprocess, sys, time
def median_s(code):
    runs = []
    for _ in range(20):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        runs.append(time.perf_counter() - start)
    return round(statistics.median(runs), 4)
json.dump({"python_pass_s": median_s("pass"), "import_click_s": median_s("import click")},
          open(sys.argv[1], "w"), indent=1)
PYEOF
fi

if [ "$only" != pyslurm ]; then
  started_oracle=0
  if ! SLURM_CONF=/tmp/slurm-anchor/etc/slurm.conf timeout 10 /usr/bin/sinfo -h -o %T 2>/dev/null | grep -q .; then
    "$oracle/up.sh" --quiet
    started_oracle=1
  fi
  (
    # shellcheck source=/dev/null
    . "$oracle/etc/env.sh"
    export BENCH_CTLD_PIDFILE=$SLURMCTLD_PIDFILE BENCH_SKIP="${BENCH_SKIP:-} startup"
    "$shared/run_all.sh" "$label-slurm"
  ) || true
  if [ "$started_oracle" = 1 ]; then "$oracle/down.sh" --quiet; fi
fi

python3 "$here/ratio_table.py" "$BENCH_RESULTS_DIR/$label-slurm.json" "$BENCH_RESULTS_DIR/$label-pyslurm.json" \
  "$BENCH_RESULTS_DIR/$label-floors.json" | tee "$BENCH_RESULTS_DIR/$label-table.md"
