"""The keys `scontrol show config` prints, in Slurm 22.05's order, with Slurm's default for each.

Data only, read from what real Slurm 22.05.8 prints for a slurm.conf that leaves the key out
(tests/data/slurm_show_config/). `config_report` fills in the values in force; the formats here
say how Slurm words a value written in slurm.conf (`KillWait=5` is `5 sec`).
"""
from __future__ import annotations

# One "Key=default" per line, in the order Slurm prints them. Keys whose line depends on the
# configuration (DefMemPer*, MaxMemPer*, the SlurmctldHost[i] lines, the priority/multifactor
# block) are placed by config_report at the key that stands for them here.
_ORDER = """\
AccountingStorageBackupHost=(null)
AccountingStorageEnforce=none
AccountingStorageHost=(null)
AccountingStorageExternalHost=(null)
AccountingStorageParameters=(null)
AccountingStoragePort=0
AccountingStorageTRES=cpu,mem,energy,node,billing,fs/disk,vmem,pages
AccountingStorageType=accounting_storage/none
AccountingStorageUser=N/A
AccountingStoreFlags=(null)
AcctGatherEnergyType=acct_gather_energy/none
AcctGatherFilesystemType=acct_gather_filesystem/none
AcctGatherInterconnectType=acct_gather_interconnect/none
AcctGatherNodeFreq=0
AcctGatherProfileType=acct_gather_profile/none
AllowSpecResourcesUsage=No
AuthAltTypes=(null)
AuthAltParameters=(null)
AuthInfo=(null)
AuthType=auth/slurm
BatchStartTimeout=10
BcastExclude=/lib,/usr/lib,/lib64,/usr/lib64
BcastParameters=(null)
BOOT_TIME=
BurstBufferType=(null)
CliFilterPlugins=(null)
ClusterName=
CommunicationParameters=(null)
CompleteWait=0
CoreSpecPlugin=core_spec/none
CpuFreqDef=Unknown
CpuFreqGovernors=OnDemand,Performance,UserSpace
CredType=cred/slurm
DebugFlags=(null)
DefMemPerNode=UNLIMITED
DependencyParameters=(null)
DisableRootJobs=No
EioTimeout=60
EnforcePartLimits=NO
Epilog=(null)
EpilogMsgTime=2000
EpilogSlurmctld=(null)
ExtSensorsType=ext_sensors/none
ExtSensorsFreq=0
FairShareDampeningFactor=1
FederationParameters=(null)
FirstJobId=1
GetEnvTimeout=2
GresTypes=(null)
GpuFreqDef=high,memory=high
GroupUpdateForce=1
GroupUpdateTime=600
HASH_VAL=Match
HealthCheckInterval=0
HealthCheckNodeState=ANY
HealthCheckProgram=(null)
InactiveLimit=0
InteractiveStepOptions=--interactive --preserve-env --pty $SHELL
JobAcctGatherFrequency=30
JobAcctGatherType=jobacct_gather/cgroup
JobAcctGatherParams=(null)
JobCompHost=localhost
JobCompLoc=/var/log/slurm_jobcomp.log
JobCompPort=0
JobCompType=jobcomp/none
JobCompUser=root
JobContainerType=job_container/none
JobCredentialPrivateKey=(null)
JobCredentialPublicCertificate=(null)
JobDefaults=(null)
JobFileAppend=0
JobRequeue=1
JobSubmitPlugins=(null)
KillOnBadExit=0
KillWait=30
LaunchParameters=(null)
LaunchType=launch/slurm
Licenses=(null)
LogTimeFormat=iso8601_ms
MailDomain=(null)
MailProg=
MaxArraySize=1001
MaxDBDMsgs=
MaxJobCount=10000
MaxJobId=67043328
MaxMemPerNode=UNLIMITED
MaxNodeCount=
MaxStepCount=40000
MaxTasksPerNode=512
MCSPlugin=mcs/none
MCSParameters=(null)
MessageTimeout=10
MinJobAge=300
MpiDefault=none
MpiParams=(null)
MULTIPLE_SLURMD=Yes
NEXT_JOB_ID=
NodeFeaturesPlugins=(null)
OverTimeLimit=0
PluginDir=(null)
PlugStackConfig=(null)
PowerParameters=(null)
PowerPlugin=
PreemptMode=OFF
PreemptType=preempt/none
PreemptExemptTime=00:00:00
PrEpParameters=(null)
PrEpPlugins=prep/script
PriorityParameters=(null)
PrioritySiteFactorParameters=(null)
PrioritySiteFactorPlugin=(null)
PriorityType=priority/basic
PrivateData=none
ProctrackType=proctrack/cgroup
Prolog=(null)
PrologEpilogTimeout=65534
PrologSlurmctld=(null)
PrologFlags=(null)
PropagatePrioProcess=0
PropagateResourceLimits=ALL
PropagateResourceLimitsExcept=(null)
RebootProgram=(null)
ReconfigFlags=(null)
RequeueExit=(null)
RequeueExitHold=(null)
ResumeFailProgram=(null)
ResumeProgram=(null)
ResumeRate=300
ResumeTimeout=60
ResvEpilog=(null)
ResvOverRun=0
ResvProlog=(null)
ReturnToService=0
RoutePlugin=route/default
SchedulerParameters=(null)
SchedulerTimeSlice=30
SchedulerType=sched/backfill
ScronParameters=(null)
SelectType=select/cons_tres
SelectTypeParameters=CR_CORE_MEMORY
SlurmUser=
SlurmctldAddr=(null)
SlurmctldDebug=info
SlurmctldHost=
SlurmctldLogFile=(null)
SlurmctldPort=6817
SlurmctldSyslogDebug=(null)
SlurmctldPrimaryOffProg=(null)
SlurmctldPrimaryOnProg=(null)
SlurmctldTimeout=120
SlurmctldParameters=(null)
SlurmdDebug=info
SlurmdLogFile=(null)
SlurmdParameters=(null)
SlurmdPidFile=(null)
SlurmdPort=6818
SlurmdSpoolDir=
SlurmdSyslogDebug=(null)
SlurmdTimeout=300
SlurmdUser=root(0)
SlurmSchedLogFile=(null)
SlurmSchedLogLevel=0
SlurmctldPidFile=(null)
SlurmctldPlugstack=(null)
SLURM_CONF=
SLURM_VERSION=22.05.8
SrunEpilog=(null)
SrunPortRange=0-0
SrunProlog=(null)
StateSaveLocation=
SuspendExcNodes=(null)
SuspendExcParts=(null)
SuspendProgram=(null)
SuspendRate=60
SuspendTime=INFINITE
SuspendTimeout=30
SwitchParameters=(null)
SwitchType=switch/none
TaskEpilog=(null)
TaskPlugin=task/cgroup
TaskPluginParam=(null type)
TaskProlog=(null)
TCPTimeout=2
TmpFS=/tmp
TopologyParam=(null)
TopologyPlugin=topology/none
TrackWCKey=No
TreeWidth=50
UsePam=No
UnkillableStepProgram=(null)
UnkillableStepTimeout=60
VSizeFactor=0
WaitTime=0
X11Parameters=(null)
"""
SLURM_KEYS: tuple[tuple[str, str], ...] = tuple(
    (key, default) for key, _, default in (line.partition("=") for line in _ORDER.splitlines()))

# The priority/multifactor block Slurm prints in place of `PriorityType = priority/basic`.
MULTIFACTOR_KEYS = ("PriorityDecayHalfLife", "PriorityCalcPeriod", "PriorityFavorSmall", "PriorityFlags",
                    "PriorityMaxAge", "PriorityUsageResetPeriod", "PriorityType", "PriorityWeightAge",
                    "PriorityWeightAssoc", "PriorityWeightFairShare", "PriorityWeightJobSize",
                    "PriorityWeightPartition", "PriorityWeightQOS", "PriorityWeightTRES")
MULTIFACTOR_ONLY = frozenset({"FairShareDampeningFactor"})

# The unit Slurm prints after a number (written or default) of these keys.
UNITS = {
    **dict.fromkeys(("AcctGatherNodeFreq", "BatchStartTimeout", "CompleteWait", "ExtSensorsFreq", "GetEnvTimeout",
                     "GroupUpdateTime", "HealthCheckInterval", "InactiveLimit", "KillWait", "MessageTimeout",
                     "MinJobAge", "ResumeTimeout", "SchedulerTimeSlice", "SlurmctldTimeout", "SlurmdTimeout",
                     "SuspendTimeout", "TCPTimeout", "UnkillableStepTimeout", "WaitTime"), "sec"),
    "OverTimeLimit": "min", "ResvOverRun": "min", "EpilogMsgTime": "usec", "VSizeFactor": "percent",
    "ResumeRate": "nodes/min", "SuspendRate": "nodes/min",
}
# Booleans Slurm prints as Yes / No whatever the spelling in slurm.conf.
YES_NO = frozenset({"AllowSpecResourcesUsage", "DisableRootJobs", "TrackWCKey", "UsePam", "PriorityFavorSmall"})
# Words Slurm prints in capitals.
UPPER = frozenset({"HealthCheckNodeState", "PriorityUsageResetPeriod"})
# EnforcePartLimits: Slurm reads YES as ANY.
ENFORCE_PART_LIMITS = {"YES": "ANY", "NO": "NO", "ANY": "ANY", "ALL": "ALL"}
# slurm.conf spells some keys otherwise than show config does.
WRITTEN_AS = {"WaitTime": "Waittime", "PriorityWeightFairShare": "PriorityWeightFairshare"}

CGROUP_KEYS = ("AllowedKmemSpace", "AllowedRAMSpace", "AllowedSwapSpace", "CgroupAutomount", "CgroupMountpoint",
               "CgroupPlugin", "ConstrainCores", "ConstrainDevices", "ConstrainKmemSpace", "ConstrainRAMSpace",
               "ConstrainSwapSpace", "IgnoreSystemd", "IgnoreSystemdOnFailure", "MaxKmemPercent", "MaxRAMPercent",
               "MaxSwapPercent", "MemorySwappiness", "MinKmemSpace", "MinRAMSpace")
