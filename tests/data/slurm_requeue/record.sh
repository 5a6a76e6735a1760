# How the transcripts beside this file were recorded: real Slurm 22.05.8 (Debian 12), a private
# copy of shared/slurm-oracle with two slurmd on one host (NodeName=n1,n2 NodeHostname=localhost
# Port=17202/17203, CPUs=1 each, `slurmd -N n1`, `slurmd -N n2`), SlurmdTimeout=10, KillWait=5,
# JobRequeue unset (1), ReturnToService=2, proctrack/linuxproc. The scripts below ran as root:
#   kill_other_node.txt              A.sh n2: kill -9 of the slurmd of the job's second node
#   batch_host_down_and_requeue.txt  B.sh: kill -9 of the batch host's slurmd (B), --no-requeue (F),
#     scontrol update state=down of the second node (C) and of the batch host (C2), scontrol requeue
#     of a job running `srun sleep` (D), requeue/requeuehold of pending jobs (E)
# snap JOBID LABEL : record squeue/scontrol/sacct views of a job
j=$1; l=$2
echo "===== $l $(date +%T)"
echo "--- squeue"; squeue -j $j -o "%i|%T|%r|%N|%S" 2>&1
echo "--- scontrol show job"; scontrol show job $j 2>&1
echo "--- sacct"; sacct -j $j -P -o JobID,State,ExitCode,NodeList,Start,End,Reason 2>&1
echo "--- sacct -D"; sacct -D -j $j -P -o JobID,State,ExitCode,NodeList,Start,End,Submit,Eligible 2>&1
# A: -N2 batch job, kill -9 of slurmd on n2 (not the batch host)
. /work/oracle-requeue/etc/env.sh; cd /work/oracle-requeue/exp; R=/tmp/slurm-requeue
victim=${1:-n2}
j=$(sbatch --parsable -N2 -o $R/work/out-%j.txt --wrap 'echo start $SLURM_RESTART_COUNT; srun sleep 300')
sleep 4
. ./snap.sh $j running
kill -9 $(cat $R/run/slurmd-$victim.pid)
t0=$(date +%s)
for i in $(seq 60); do s=$(squeue -h -j $j -o %T); [ "$s" != RUNNING ] && break; sleep 1; done
echo "left RUNNING after $(( $(date +%s)-t0 )) s: $s"
sleep 1
. ./snap.sh $j after-fail
sinfo -N -o "%N|%T|%E"
sleep 5
. ./snap.sh $j after-fail+5
echo "--- output"; cat $R/work/out-$j.txt
scontrol show node $victim | grep -E "State|Reason"
slurmd -N $victim; sleep 6
sinfo -N -o "%N|%T|%E"
. ./snap.sh $j after-restart
echo JOB=$j
. /work/oracle-requeue/etc/env.sh; cd /work/oracle-requeue/exp; R=/tmp/slurm-requeue
scancel 1; sleep 3
# B: kill -9 of the batch host's slurmd
j=$(sbatch --parsable -N2 -o $R/work/out-%j.txt --wrap 'echo start $SLURM_RESTART_COUNT; srun sleep 300')
sleep 4
kill -9 $(cat $R/run/slurmd-n1.pid)
for i in $(seq 60); do s=$(squeue -h -j $j -o %T); [ "$s" != RUNNING ] && break; sleep 1; done
sleep 6
. ./snap.sh $j B-after-fail
echo "--- output"; cat $R/work/out-$j.txt
slurmd -N n1; sleep 8
sinfo -N -o "%N|%T|%E"
scancel $j; sleep 2
# F: --no-requeue job, kill -9 of n2
j=$(sbatch --parsable --no-requeue -N2 -o $R/work/out-%j.txt --wrap 'echo start; srun sleep 300')
sleep 4
kill -9 $(cat $R/run/slurmd-n2.pid)
for i in $(seq 60); do s=$(squeue -h -j $j -o %T); [ "$s" != RUNNING ] && break; sleep 1; done
sleep 6
. ./snap.sh $j F-norequeue-after-fail
echo "--- output"; cat $R/work/out-$j.txt
slurmd -N n2; sleep 8
sinfo -N -o "%N|%T|%E"
# C: scontrol update state=down of n2 with a -N2 job
j=$(sbatch --parsable -N2 -o $R/work/out-%j.txt --wrap 'echo start; srun sleep 300')
sleep 4
scontrol update nodename=n2 state=down reason=testdown; echo "rc=$?"
sleep 8
. ./snap.sh $j C-down-n2
echo "--- output"; cat $R/work/out-$j.txt
sinfo -N -o "%N|%T|%E"
scontrol update nodename=n2 state=resume
scancel $j; sleep 2
# C2: state=down of the batch host
j=$(sbatch --parsable -N2 -o $R/work/out-%j.txt --wrap 'echo start; srun sleep 300')
sleep 4
scontrol update nodename=n1 state=down reason=testdown1; echo "rc=$?"
sleep 8
. ./snap.sh $j C2-down-n1
echo "--- output"; cat $R/work/out-$j.txt
scontrol update nodename=n1 state=resume
scancel $j; sleep 2
# D: scontrol requeue of a running job running srun sleep
j=$(sbatch --parsable -N1 -o $R/work/out-%j.txt --wrap 'echo start $SLURM_RESTART_COUNT; srun sleep 300')
sleep 4
scontrol requeue $j; echo "rc=$?"
sleep 8
. ./snap.sh $j D-requeue
echo "--- output"; cat $R/work/out-$j.txt
# E: requeuehold / requeue of the PENDING job
scontrol requeuehold $j; echo "requeuehold pending rc=$?"
scontrol requeue $j; echo "requeue pending rc=$?"
scontrol hold $j; scontrol requeuehold $j; echo "requeuehold held-pending rc=$?"
scancel $j
j2=$(sbatch --parsable --hold --wrap 'true')
scontrol requeuehold $j2; echo "requeuehold submitted-held rc=$?"
scontrol requeue $j2; echo "requeue submitted-held rc=$?"
scontrol requeuehold 99999; echo "requeuehold unknown rc=$?"
scancel $j2
