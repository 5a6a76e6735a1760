#!/bin/bash -l
# Time-stamp: <Wed 2021-11-17 19:31 svarrette>
################################################################################
# build.OSU - Build OSU Micro-benchmarks
################################################################################
# set -e
#SBATCH --partition=batch
#SBATCH --time=00:20:00
#SBATCH --nodes 1
#SBATCH --ntasks-per-node=1

# Load Modules
if [ -f  /etc/profile ]; then
    .  /etc/profile
fi

### Default mode
BENCH=OSU
MODE='openmpi'

STARTDIR="$(pwd)"
SCRIPTFILENAME=$(basename $0)
SCRIPTDIR="$( cd "$( dirname "${BASH_SOURCE[0]}" )" && pwd )"

if [ -n "${SLURM_SUBMIT_DIR}" ]; then
    # We assume we submit from the super directory holding the build script
    # as sbatch ./scripts/build.OSU
    TOP_SRCDIR=${SLURM_SUBMIT_DIR}
else
    TOP_SRCDIR="$( cd ${SCRIPTDIR}/.. && pwd )"
fi


VERSION="5.8"
SRCDIR=

#TOP_SRCDIR="${TOP_SRCDIR}/src/osu-micro-benchmarks-${VERSION}"

######################
print_error_and_exit() {
    echo "*** ERROR *** $*"
    exit 1
}
usage() {
    cat <<EOF
NAME
  $(basename $0): Build MVAPICH OSU ${VERSION}
	https://mvapich.cse.ohio-state.edu/benchmarks/

USAGE
  $0 {openmpi | intel }

  This will build everything under build.<mpisuit>

EOF
}


############################################
################# Let's go #################
############################################

##################################
# Check for command-line options
while [ $# -ge 1 ]; do
    case $1 in
	-h | --help) usage; exit 0;;
        -v | --version) shift; VERSION="$1";;
        -t | --topdir)  shift; TOP_SRCDIR=$1;;
        -s | --srcdir)  shift; SRCDIR=$1;;
        openmpi | intel)       MODE=$1;;
        *) print_error_and_exit "unrecognized option $1"
    esac
    shift
done

[ -z "${SRCDIR}" ]   && SRCDIR="${TOP_SRCDIR}/src/osu-micro-benchmarks-${VERSION}"
echo "${SRCDIR}"
[ ! -d "${SRCDIR}" ] && print_error_and_exit "unable to find the OSU source directory" && exit 1

build_dir=${TOP_SRCDIR}/build.${MODE}
if [ ! -d "${build_dir}" ]; then
    echo "=> creating ${build_dir}"
    mkdir -p ${build_dir}
fi

case ${MODE} in
    openmpi)  CCopt="CC=mpicc";  MODULE=mpi/OpenMPI;;
    mvapich*) CCopt="CC=mpicc";  MODULE=mpi/MVAPICH2;;
    intel)    CCopt="CC=mpiicc CXX=mpiicpc"; MODULE=toolchain/intel;;
esac

echo "=> loading module ${MODULE}"
module purge
module load ${MODULE}
module list

if [ -d "${build_dir}" ]; then
    echo "=> installing OSU Micro-benchmarks ${VERSION} with ${MODULE} in ${build_dir}"
    cd ${build_dir}
    ${SRCDIR}/configure ${CCopt} CFLAGS=-I${SRCDIR}/util --prefix=$(pwd)
    make && make install
    cd -
fi
