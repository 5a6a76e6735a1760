#!/bin/bash -l
#SBATCH -J Singularity_KerA_Coord
#SBATCH -N 3 # Nodes
#SBATCH -n 3 # Tasks
#SBATCH --ntasks-per-node=1
#SBATCH --mem=9GB
#SBATCH -c 3 # Cores assigned to each task
#SBATCH --time=0-00:15:00
#SBATCH -p batch
#SBATCH --qos=normal
#SBATCH --mail-user=firstname.lastname@uni.lu
#SBATCH --mail-type=BEGIN,END

module load tools/Singularity

hostName="$(hostname -s)-ib0"
IP=$(getent hosts $hostName | awk '{print $1}')
echo "On your laptop: ssh -p 8022 -NL 8889:$hostName:8889 ${USER}@access-iris.uni.lu"

echo "SLURM_JOBID  = ${SLURM_JOBID}"
echo "SLURM_JOB_NODELIST = ${SLURM_JOB_NODELIST}"
echo "SLURM_NNODES = ${SLURM_NNODES}"
echo "SLURM_NTASK  = ${SLURM_NTASKS}"
echo "Submission directory = ${SLURM_SUBMIT_DIR}"

export KERA_WORKER_CORES=${SLURM_CPUS_PER_TASK:-1}

echo "Cores: $KERA_WORKER_CORES"

export DAEMON_MEM=${SLURM_MEM_PER_CPU:=2048}
export KERA_MEM=$(( ${DAEMON_MEM}*${KERA_WORKER_CORES} ))

export KERA_MASTER_HOST=$(hostname -s)

export NWLOCATOR="infrc:host"

#srun --exclusive -N 1 -n 1 -l -o $HOME/coordout \ 
 singularity run --bind /dev/infiniband,/etc/libibverbs.d  kera.sif \
 coordinator -C $NWLOCATOR=${hostName},port=11100,dev=mlx5_0 --maxCores ${SLURM_CPUS_PER_TASK:-2} -n --reset --clusterName test &

pid=$!
sleep 10s

echo "Starting brokers"

KERA_BROKER_LAUNCHER=${HOME}/kera-start-brokers-${SLURM_JOBID}.sh
echo " - create broker launcher script '${KERA_BROKER_LAUNCHER}'"
cat << 'EOF' > ${KERA_BROKER_LAUNCHER}
#!/bin/bash

echo "I am ${SLURM_PROCID} running on:"
hostname

KERA_WORKER_CORES=${SLURM_CPUS_PER_TASK:-1}

echo "Cores: $KERA_WORKER_CORES"

DAEMON_MEM=${SLURM_MEM_PER_CPU:=2048}
KERA_MEM=$(( ${DAEMON_MEM}*${KERA_WORKER_CORES} ))

echo "memory: $KERA_MEM"

KERA_WORKER_HOST="`hostname`-ib0"
echo ${KERA_WORKER_HOST}


# --bind /opt/mellanox,/sys/class/infiniband \
#  --bind /sys/class/infiniband_cm,/sys/class/infiniband_mad \
#  --bind /sys/class/infiniband_verbs

singularity run --bind /dev/infiniband,/etc/libibverbs.d kera.sif \
 broker -L $NWLOCATOR=${KERA_WORKER_HOST},port=11101,dev=mlx5_0 --totalMasterMemory ${KERA_MEM} \
 -C $NWLOCATOR=$1,port=11100,dev=mlx5_0 --cleanerBalancer fixed:50 -D -d --detectFailures 0 -h 1 \
 -f /tmp/storagemaster1 --maxCores ${SLURM_CPUS_PER_TASK:-2} --clusterName test -r 0 --masterOnly \
 --numberActiveGroupsPerStreamlet 1 --masterActiveGroupsPerStreamlet 1

EOF
chmod +x ${KERA_BROKER_LAUNCHER}

# Start the KerA brokers; pass coordinator hostname as param  service ; for srun: --bind /etc/init.d/
srun --exclusive -N 3 -n 3 --ntasks-per-node=1 -l -o $HOME/broker-$(hostname -s).out \
 ${KERA_BROKER_LAUNCHER} ${hostName} &

sleep 900s
wait $pid

echo $HOME

echo "Ready Stopping instance"

