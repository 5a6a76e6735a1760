"""Domain errors that cross process boundaries, spelled as Slurm users see them.

A `SlurmError` carries Slurm's strerror text (what follows e.g. `Batch job
submission failed: `) and an optional detail line (the controller's err_msg,
printed on its own `error:` line first). Servers turn it into a gRPC status
through `GRPC_CODE`; clients turn the status back with `from_status_details`.
Stdlib only: CLIs import this.
"""
from __future__ import annotations

from enum import StrEnum


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
    NOT_PENDING = "Job is no longer pending execution"
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
