"""Domain errors that cross process boundaries, spelled as Slurm users see them.

A `SlurmError` carries Slurm's strerror text (what follows e.g. `Batch job
submission failed: `) and an optional detail line (the controller's err_msg,
printed on its own `error:` line first). Servers turn it into a gRPC status
through `GRPC_CODE`; clients turn the status back with `from_status_details`.
Stdlib only: CLIs import this.
"""
from __future__ import annotations

from .str_enum import StrEnum


class Strerror(StrEnum):
    INVALID_JOB_ID = "Invalid job id specified"
    ACCESS_DENIED = "Access/permission denied"
    INVALID_PARTITION = "Invalid partition name specified"
    PARTITION_IN_USE = "Partition is in use"
    NO_DEFAULT_PARTITION = "No partition specified or system default partition"
    BAD_NODE_CONFIG = "Requested node configuration is not available"
    INVALID_TIME_LIMIT = "Requested time limit is invalid (missing or exceeds some limit)"
    NODE_COUNT_INVALID = "Node count specification invalid"
    INVALID_CPU_COUNT = "CPU count specification invalid"
    BAD_TASK_COUNT = "Task count specification invalid"
    INVALID_TASK_MEMORY = "Memory required by task is not available"
    ALREADY_DONE = "Job/step already completing or completed"
    PARTITION_NOT_AVAIL = "Required partition not available (inactive or drain)"
    INVALID_NODE_NAME = "Invalid node name specified"
    TOO_MANY_JOBS = "Slurm temporarily unable to accept job, sleeping and retrying"
    DISABLED = "Requested operation is presently disabled"
    INVALID_ARGUMENT = "Invalid argument"
    INVALID_GRES = "Invalid generic resource (gres) specification"
    INVALID_RESERVATION = "Requested reservation is invalid"
    RESERVATION_ACCESS = "Access denied to requested reservation"
    RESERVATION_BUSY = "Requested reservation is in use"
    RESERVATION_OVERLAP = "Requested reservation overlaps with another reservation"
    RESERVATION_NAME_DUP = "Duplicate reservation name"
    INVALID_LICENSES = "Invalid license specification"
    PATHNAME_TOO_LONG = "Pathname of a file, directory or other parameter too long"
    NOT_PENDING = "Job is no longer pending execution"
    JOB_HELD = "Job is in held state, pending scheduler release"
    PART_CONFIG_UNAVAILABLE = "Requested partition configuration not available now"
    JOB_FINISHED = "Job has already finished"
    JOB_PENDING = "Job is pending execution"
    TRANSITION_STATE_NO_UPDATE = "Job can not be altered now, try again later"
    JOB_NOT_RUNNING = "Job is not running"
    JOB_NOT_SUSPENDED = "Job is not suspended"
    BATCH_ONLY = "Only batch jobs are accepted or processed"
    AUTH_FAILURE = "Protocol authentication error"
    COMM_FAILURE = "Communication connection failure"
    PROLOG_FAILED = "Prolog error"
    INVALID_ARRAY = "Invalid job array specification"
    INVALID_DEPENDENCY = "Job dependency problem"
    CIRCULAR_DEPENDENCY = "Circular job dependency"
    INVALID_TIME_VALUE = "Invalid time specified"
    INTERNAL = "Unexpected error"
    TOO_MANY_CPUS = "More processors requested than permitted"
    STEP_NODES_BUSY = "Requested nodes are busy"
    PORTS_BUSY = "Required ports are in use"
    PORTS_INVALID = "Requires more ports than can be reserved"
    BATCH_CONSTRAINT = "Job --batch option is invalid or not a subset of --constraints"
    INVALID_CREDENTIAL = "Invalid job credential"
    INVALID_ACCOUNT = "Invalid account or account/partition combination specified"
    INVALID_QOS = "Invalid qos specification"
    INVALID_FEATURE = "Invalid feature specification"
    INVALID_PREFER = "Invalid preferred feature specification"
    INVALID_TIME_MIN = "Invalid time-min specification (exceeds job's time or other limits)"
    ACCOUNTING_POLICY = "Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)"
    INVALID_NICE = "Invalid --nice value"
    INVALID_USER_ID = "Invalid user id"
    PLUGIN_NOT_LOADED = "Required plugin type not loaded or initialized"
    TOKEN_GENERATION_FAILED = "Token Generation failed."
    UNEXPECTED_MESSAGE = "Unexpected message received"
    TRIGGER_DUP = "Duplicate event trigger"
    NO_SUCH_PROCESS = "No such process"       # ESRCH: strigger --clear of no trigger
    TRY_AGAIN = "Resource temporarily unavailable"   # EAGAIN


# gRPC status code names (strings, so this module needs no grpc import).
GRPC_CODE: dict[Strerror, str] = {
    Strerror.INVALID_JOB_ID: "NOT_FOUND",
    Strerror.ACCESS_DENIED: "PERMISSION_DENIED",
    Strerror.AUTH_FAILURE: "UNAUTHENTICATED",
    Strerror.TOO_MANY_JOBS: "RESOURCE_EXHAUSTED",
    Strerror.INTERNAL: "INTERNAL",
    Strerror.PROLOG_FAILED: "FAILED_PRECONDITION",
    Strerror.INVALID_CREDENTIAL: "PERMISSION_DENIED",
    Strerror.INVALID_USER_ID: "PERMISSION_DENIED",
}
DEFAULT_GRPC_CODE = "INVALID_ARGUMENT"

# Slurm's error number (slurm_errno.h) for each strerror the daemons send back: slurmrestd
# reports it, scancel exits with it (modulo 256, as a process status is).
ERRNO: dict[str, int] = {
    Strerror.INVALID_PARTITION: 2000, Strerror.NO_DEFAULT_PARTITION: 2001, Strerror.ACCESS_DENIED: 2002,
    Strerror.TOO_MANY_CPUS: 2005, Strerror.NODE_COUNT_INVALID: 2006, Strerror.INVALID_USER_ID: 2010,
    Strerror.PATHNAME_TOO_LONG: 2012,
    Strerror.BAD_NODE_CONFIG: 2014, Strerror.STEP_NODES_BUSY: 2016, Strerror.INVALID_JOB_ID: 2017,
    Strerror.INVALID_NODE_NAME: 2018, Strerror.TRANSITION_STATE_NO_UPDATE: 2020, Strerror.ALREADY_DONE: 2021, Strerror.JOB_PENDING: 2024,
    Strerror.INVALID_CREDENTIAL: 2026, Strerror.INVALID_FEATURE: 2029, Strerror.DISABLED: 2037,
    Strerror.INVALID_DEPENDENCY: 2038, Strerror.BATCH_ONLY: 2039, Strerror.INVALID_ACCOUNT: 2045,
    Strerror.ACCOUNTING_POLICY: 2050, Strerror.INVALID_TIME_LIMIT: 2051,
    Strerror.INVALID_RESERVATION: 2053, Strerror.INVALID_TIME_VALUE: 2054,
    Strerror.INVALID_QOS: 2066, Strerror.INVALID_CPU_COUNT: 2069, Strerror.PARTITION_NOT_AVAIL: 2070,
    Strerror.CIRCULAR_DEPENDENCY: 2071, Strerror.INVALID_GRES: 2072, Strerror.NOT_PENDING: 2073,
    Strerror.PARTITION_IN_USE: 2075, Strerror.INVALID_ARRAY: 2081, Strerror.JOB_NOT_RUNNING: 2085,
    Strerror.JOB_NOT_SUSPENDED: 2087, Strerror.INVALID_NICE: 2123, Strerror.AUTH_FAILURE: 1007,
    Strerror.COMM_FAILURE: 1001, Strerror.INTERNAL: 1000, Strerror.INVALID_ARGUMENT: 22,
    Strerror.TOO_MANY_JOBS: 11, Strerror.PROLOG_FAILED: 2061,
    Strerror.PLUGIN_NOT_LOADED: 3006, Strerror.TOKEN_GENERATION_FAILED: 6003,
}


class SlurmError(Exception):
    def __init__(self, strerror: Strerror | str, detail: str = "") -> None:
        super().__init__(str(strerror))
        self.strerror = str(strerror)
        self.detail = detail

    def status_details(self) -> str:
        """The gRPC details string: optional detail line, then the strerror."""
        return f"{self.detail}\n{self.strerror}" if self.detail else self.strerror

    @property
    def grpc_code(self) -> str:
        try:
            return GRPC_CODE.get(Strerror(self.strerror), DEFAULT_GRPC_CODE)
        except ValueError:
            return DEFAULT_GRPC_CODE

    @classmethod
    def from_status_details(cls, details: str) -> "SlurmError":
        detail, _, strerror = details.rpartition("\n")
        return cls(strerror, detail)
