"""The range of every number pyslurm accepts: from a user (CLI options, `scontrol update`), a
script (`#SBATCH`), a configuration file or the wire.

One table for all of them, so that a number the CLI accepts is one the controller accepts, the
journal can hold, the wire can carry and every reader can print; and one refused is refused
wherever it comes from. The ranges are Slurm's: its counts are uint16/uint32/uint64 fields in
which the top values are reserved (NO_VAL, INFINITE), so a count is at most the type's maximum
less two; nice is ±(NICE_OFFSET - 3); array indices stay below the largest MaxArraySize.
Memory is further kept below 2**63 bytes, so a size in MB converts to bytes without overflow.

Pure and stdlib only (the CLIs import it). `Bound.parse`/`check` raise `OutOfRange`, a
ValueError, so parsers that already raise ValueError for bad text need no new except clause;
the caller words the message for its command, or uses `strerror` (what the controller answers).
"""
from __future__ import annotations


from .errors import SlurmError, Strerror
from .typed_tuple import NamedTuple

TYPE_CHECKING = False   # typing's constant without importing typing: CLI start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any, Mapping

UINT16_MAX = 0xFFFF - 2          # below NO_VAL16 (0xfffe) and INFINITE16 (0xffff)
UINT32_MAX = 0xFFFFFFFF - 2      # below NO_VAL and INFINITE
INT32_MAX = 0x7FFFFFFF
MEMORY_MB_MAX = (1 << 63) // (1 << 20) - 1      # any size in MB is a valid int64 count of bytes
NICE_MAX = 0x80000000 - 3        # Slurm's NICE_OFFSET - 3
ARRAY_INDEX_MAX = 4000000        # the largest MaxArraySize Slurm allows is 4000001
EPOCH_MAX = 253402300799         # 9999-12-31T23:59:59 UTC: the last time every formatter prints


class OutOfRange(ValueError):
    """A number outside its bound (or no number at all); `str()` says which and what the range is."""

    def __init__(self, bound: "Bound", value: object) -> None:
        super().__init__(f"{bound.what} {value} is out of range ({bound.low}..{bound.high})")
        self.bound, self.value = bound, value


class Bound(NamedTuple):   # a NamedTuple: CLIs import it, and dataclasses would import inspect
    what: str                     # what the number counts, for messages and logs
    low: int
    high: int
    strerror: Strerror = Strerror.INVALID_ARGUMENT     # the controller's refusal
    special: frozenset[int] = frozenset()              # sentinels allowed outside the range

    def check(self, value: int) -> int:
        """`value`, or OutOfRange."""
        if value in self.special or self.low <= value <= self.high:
            return value
        raise OutOfRange(self, value)

    def parse(self, text: str) -> int:
        """A decimal integer within the bound (a sign only where negatives are allowed), or OutOfRange."""
        stripped = text.strip()
        digits = stripped[1:] if self.low < 0 and stripped[:1] in "+-" else stripped
        if not digits.isascii() or not digits.isdigit() or len(digits) > 20:
            raise OutOfRange(self, repr(text))
        return self.check(int(stripped))

    def accepts(self, text: str) -> bool:
        """Whether `parse(text)` would succeed."""
        try:
            self.parse(text)
        except OutOfRange:
            return False
        return True

    def refuse(self, value: int) -> int:
        """`value`, or the controller's SlurmError for it (Slurm answers with the strerror alone)."""
        try:
            return self.check(value)
        except OutOfRange:
            raise SlurmError(self.strerror) from None


UNLIMITED = -1    # the minute fields' "no limit" (units.UNLIMITED; not imported: CLIs start fast)

TIME_LIMIT_MIN = Bound("time limit (minutes)", 1, UINT32_MAX, Strerror.INVALID_TIME_LIMIT,
                       frozenset({UNLIMITED}))
NODE_COUNT = Bound("node count", 1, UINT32_MAX, Strerror.NODE_COUNT_INVALID)
TASK_COUNT = Bound("task count", 1, UINT32_MAX, Strerror.BAD_TASK_COUNT)
CPU_COUNT = Bound("CPU count", 1, UINT32_MAX, Strerror.INVALID_CPU_COUNT)
CPUS_PER_TASK = Bound("CPUs per task", 1, UINT16_MAX, Strerror.INVALID_CPU_COUNT)
TASKS_PER_NODE = Bound("tasks per node", 1, UINT16_MAX, Strerror.BAD_TASK_COUNT)
NODE_CPUS = Bound("CPUs", 1, UINT16_MAX)                  # a node's CPUs/Sockets/Cores/Threads
MEMORY_MB = Bound("memory size (MB)", 0, MEMORY_MB_MAX, Strerror.INVALID_TASK_MEMORY)
GRES_COUNT = Bound("GRES count", 0, 0xFFFFFFFFFFFFFFFF - 2, Strerror.INVALID_GRES)    # Slurm's uint64
GPU_COUNT = Bound("GPU count", 1, UINT32_MAX, Strerror.INVALID_GRES)
NICE = Bound("nice value", -NICE_MAX, NICE_MAX, Strerror.INVALID_NICE)
PRIORITY = Bound("priority", 0, UINT32_MAX)
ARRAY_INDEX = Bound("array index", 0, ARRAY_INDEX_MAX, Strerror.INVALID_ARRAY)
ARRAY_THROTTLE = Bound("array task throttle", 0, UINT32_MAX, Strerror.INVALID_ARRAY)
JOB_ID = Bound("job id", 1, UINT32_MAX, Strerror.INVALID_JOB_ID)
STEP_ID = Bound("step id", 0, UINT32_MAX, Strerror.INVALID_JOB_ID)
PORT = Bound("port", 1, 65535)
SIGNAL_SECONDS = Bound("signal time (seconds)", 0, 0xFFFF)
SIGNAL_NUMBER = Bound("signal number", 0, 64)
EPOCH = Bound("time", 0, EPOCH_MAX, Strerror.INVALID_TIME_VALUE)
UMASK = Bound("umask", 0, 0o7777)
TASK_RANK = Bound("task rank", 0, INT32_MAX)                # srun -i/-o/-e <rank>; the wire's input_task is int32
TERMINAL_SIZE = Bound("terminal size", 0, 0xFFFF)          # struct winsize's unsigned short
COUNT = Bound("count", 0, UINT32_MAX)
TRES_COUNT = Bound("TRES count", 0, (1 << 63) - 1)        # sacctmgr GrpTRES=...: stored and sent as int64                     # any other uint32 setting (config)

# The numbers of a submission (JobDesc), field by field; 0 means "not given" where allowed.
JOB_DESC: Mapping[str, Bound] = {
    "min_nodes": NODE_COUNT, "num_tasks": TASK_COUNT, "cpus_per_task": CPUS_PER_TASK,
    "mem_per_node_mb": MEMORY_MB, "mem_per_cpu_mb": MEMORY_MB, "time_limit_min": TIME_LIMIT_MIN,
    "nice": NICE, "gpus": GPU_COUNT, "gpus_per_node": GPU_COUNT, "gpus_per_task": GPU_COUNT,
    "signal_number": SIGNAL_NUMBER, "signal_seconds": SIGNAL_SECONDS, "begin_time": EPOCH, "umask": UMASK,
    "time_min": Bound("time min (minutes)", 0, UINT32_MAX, Strerror.INVALID_TIME_MIN), "deadline": EPOCH,
    "priority": PRIORITY, "sockets_per_node": Bound("sockets per node", 0, UINT16_MAX, Strerror.BAD_NODE_CONFIG),
    "cores_per_socket": Bound("cores per socket", 0, UINT16_MAX, Strerror.BAD_NODE_CONFIG),
    "alloc_resp_port": Bound("port", 0, 65535),
}
# The numbers of a job step request (srun), as JOB_DESC.
STEP_REQUEST: Mapping[str, Bound] = {
    "num_tasks": TASK_COUNT, "min_nodes": NODE_COUNT, "cpus_per_task": CPUS_PER_TASK, "umask": UMASK,
    "io_port": Bound("port", 0, 65535), "input_task": Bound("input task", -2, INT32_MAX),   # -1 all, -2 none
    "pty_rows": TERMINAL_SIZE, "pty_cols": TERMINAL_SIZE,
}
_ZERO_MEANS_UNSET = frozenset({"min_nodes", "num_tasks", "cpus_per_task", "time_limit_min", "gpus",
                               "gpus_per_node", "gpus_per_task"})


def check_fields(record: Any, table: Mapping[str, Bound] = JOB_DESC) -> None:
    """Every field of `record` named in `table` within its bound (0 allowed where it means unset),
    or the controller's SlurmError for the first that is not."""
    for field, bound in table.items():
        value = getattr(record, field)
        if not (value == 0 and field in _ZERO_MEANS_UNSET):
            bound.refuse(value)
