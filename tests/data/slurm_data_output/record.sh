#!/usr/bin/env bash
# Record real Slurm 22.05's --json/--yaml documents (data_parser v0.0.38) and what
# `scontrol -d show job|node` adds, for tests/unit/test_data_output_oracle.py. Run as root with the oracle cluster up
# (../shared/slurm-oracle/README.md: up.sh, then `. etc/env.sh`), from the repository root:
#   bash tests/data/slurm_data_output/record.sh
# It submits a finished job, a running one, a held one with a long comment (YAML quoting and
# folding), one with a non-ASCII name and a tab and a line break in its comment (escapes),
# a held array and a held script with arguments, writes the documents here, cancels
# what it submitted, and records their accounting once it stops changing.
set -euo pipefail
out=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/record-data-output.XXXXXX)
chmod 755 "$work"
cd "$work"
printf '#!/bin/bash\nsleep 1\n' > job.sh
done_job=$(sbatch --parsable -J finished -o /dev/null --wrap true)
while squeue -h -j "$done_job" 2>/dev/null | grep -q .; do sleep 1; done
running=$(sbatch --parsable -J runner -o /dev/null -t 10 --wrap "sleep 120")
while [ "$(squeue -h -j "$running" -o %T)" != RUNNING ]; do sleep 1; done
held=$(sbatch --parsable -H -J held --comment "a comment long enough to be folded by the YAML emitter: it has #signs, colons: and 'quotes' in it" --wrap "sleep 1")
quoted=$(sbatch --parsable -H -J "ünï" --comment $'café\ttab\nsecond line' -o /dev/null --wrap true)
array=$(sbatch --parsable -H -a 1-3 -J arr -o /dev/null --wrap true)
script=$(sbatch --parsable -H -J script ./job.sh first "second arg")
sleep 2
squeue --json > "$out/squeue.json"
squeue --yaml > "$out/squeue.yaml"
sinfo --json > "$out/sinfo.json"
sinfo --yaml > "$out/sinfo.yaml"
scontrol show job "$running" > "$out/scontrol_job.txt"
scontrol -d show job "$running" > "$out/scontrol_d_job.txt"
scontrol show node > "$out/scontrol_node.txt"
scontrol -d show node > "$out/scontrol_d_node.txt"
scancel "$running" "$held" "$quoted" "$array" "$script"
# accounting records once they stop changing: finished, cancelled while running, cancelled pending
while squeue -h -j "$running" 2>/dev/null | grep -q .; do sleep 1; done
sleep 3
sacct --json -j "$done_job,$running,$held" > "$out/sacct.json"
sacct --yaml -j "$done_job,$running,$held" > "$out/sacct.yaml"
rm -rf "$work"
echo "recorded: finished=$done_job running=$running held=$held array=$array script=$script"
