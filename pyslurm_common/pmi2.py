"""The PMI wire protocol a step serves to its MPI tasks (srun --mpi=pmi2), pure and stdlib only.

Slurm's mpi/pmi2 plugin speaks both wire versions on the task's PMI_FD socket, and so does this:
every client starts with the PMI-1 line `cmd=init pmi_version=V pmi_subversion=S`; with V=2
(MPICH's PMI2 client) the rest of the conversation is PMI-2 frames, a 6-byte decimal length
(left-justified, blank-padded) then `cmd=NAME;key=value;...;` with ';' in a value doubled;
with V=1 (MPICH's default simple PMI client) it stays one `cmd=NAME key=value ...` line per request.

The key-value space: a task's puts become visible to the others after a fence (kvs-fence,
barrier_in). The node's `PmiNode` answers a fence once every local task entered it and the
step's merged puts came back: the stepd sends `fence_payload()` up its stream to srun,
`FenceRound` there merges what every node sent, and each stepd hands the merged space to
`fence_done()`. srun is the tree root as in Slurm; the controller never sees the exchange.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

LENGTH_FIELD = 6
MAX_MESSAGE = 64 * 1024          # PMII_MAX_COMMAND_LEN of MPICH's client
MAX_KEY = 64
MAX_VALUE = 1024
MAX_NODE_PUTS = 900 * 1024       # one node's puts between fences must fit one stream frame (1 MiB)
MAX_NODE_ATTRS = 4096
APPNUM = 0


class PmiProtocolError(Exception):
    """A client broke the framing or exceeded a bound: its connection is closed."""


@dataclass(frozen=True, slots=True)
class PmiJob:
    kvsname: str                 # PMI_JOBID: "<job>.<step>"
    size: int
    process_mapping: str


@dataclass(frozen=True, slots=True)
class Reply:
    rank: int
    data: bytes


@dataclass(frozen=True, slots=True)
class Abort:
    rank: int
    code: int
    message: str


def process_mapping(tasks_per_node: list[int]) -> str:
    """Slurm's PMI_process_mapping for block distribution: (vector,(first node,node count,tasks each),...)."""
    blocks: list[list[int]] = []
    for index, count in enumerate(tasks_per_node):
        if blocks and blocks[-1][2] == count:
            blocks[-1][1] += 1
        else:
            blocks.append([index, 1, count])
    return "(vector," + ",".join(f"({a},{b},{c})" for a, b, c in blocks) + ")"


def parse_counts(text: str) -> list[int]:
    """`2(x3),1` (SLURM_STEP_TASKS_PER_NODE) -> [2, 2, 2, 1]; ValueError if malformed."""
    counts: list[int] = []
    for part in text.split(","):
        match = re.fullmatch(r"(\d{1,6})(?:\(x(\d{1,6})\))?", part)
        if not match:
            raise ValueError(f"bad tasks per node: {text!r}")
        counts.extend([int(match[1])] * int(match[2] or 1))
        if len(counts) > 1 << 16:
            raise ValueError("too many nodes")
    return counts


# ---- framing -----------------------------------------------------------------

def encode_v2(command: str, pairs: list[tuple[str, str]]) -> bytes:
    body = f"cmd={command};" + "".join(f"{k}={v.replace(';', ';;')};" for k, v in pairs)
    data = body.encode()
    return f"{len(data):<{LENGTH_FIELD}d}".encode() + data


def decode_v2(body: bytes) -> tuple[str, dict[str, str]]:
    """`cmd=x;a=b;;c;` -> ("x", {"a": "b;c"})."""
    text = body.decode(errors="replace")
    pairs: dict[str, str] = {}
    pos = 0
    while pos < len(text):
        eq = text.find("=", pos)
        if eq < 0 or eq - pos > MAX_KEY:
            raise PmiProtocolError("bad key=value pair")
        key, value, pos = text[pos:eq], [], eq + 1
        while pos < len(text):
            if text[pos] == ";":
                if text[pos + 1:pos + 2] == ";":
                    value.append(";")
                    pos += 2
                    continue
                break
            value.append(text[pos])
            pos += 1
        else:
            raise PmiProtocolError("unterminated value")
        pos += 1
        pairs[key] = "".join(value)
    command = pairs.pop("cmd", None)
    if command is None:
        raise PmiProtocolError("no cmd")
    return command, pairs


def encode_v1(command: str, pairs: list[tuple[str, str]]) -> bytes:
    return (" ".join([f"cmd={command}", *(f"{k}={v}" for k, v in pairs)]) + "\n").encode()


def decode_v1(line: bytes) -> tuple[str, dict[str, str]]:
    pairs = dict(word.split("=", 1) for word in line.decode(errors="replace").split() if "=" in word)
    command = pairs.pop("cmd", None) or pairs.pop("mcmd", None)
    if command is None:
        raise PmiProtocolError("no cmd")
    return command, pairs


@dataclass
class ClientStream:
    """Splits one task's bytes into requests: PMI-1 lines until a version-2 init, then PMI-2 frames."""
    version: int = 1
    buffer: bytearray = field(default_factory=bytearray)

    def feed(self, data: bytes) -> list[tuple[str, dict[str, str]]]:
        self.buffer += data
        requests = []
        while True:
            request = self._next()
            if request is None:
                return requests
            requests.append(request)
            if request[0] == "init" and request[1].get("pmi_version") == "2":
                self.version = 2

    def _next(self) -> tuple[str, dict[str, str]] | None:
        if self.version == 1:
            end = self.buffer.find(b"\n")
            if end < 0:
                if len(self.buffer) > MAX_MESSAGE:
                    raise PmiProtocolError("PMI-1 line too long")
                return None
            line = bytes(self.buffer[:end])
            del self.buffer[:end + 1]
            return decode_v1(line)
        if len(self.buffer) < LENGTH_FIELD:
            return None
        header = bytes(self.buffer[:LENGTH_FIELD]).strip()
        if not header.isdigit() or int(header) > MAX_MESSAGE:
            raise PmiProtocolError(f"bad PMI-2 length field {header!r}")
        length = int(header)
        if len(self.buffer) < LENGTH_FIELD + length:
            return None
        body = bytes(self.buffer[LENGTH_FIELD:LENGTH_FIELD + length])
        del self.buffer[:LENGTH_FIELD + length]
        return decode_v2(body)


# ---- the node's server -----------------------------------------------------------

@dataclass
class PmiNode:
    """One stepd's PMI service for its local tasks (ranks): answers requests, runs the fence."""
    job: PmiJob
    ranks: list[int]
    streams: dict[int, ClientStream] = field(default_factory=dict)
    kvs: dict[str, str] = field(default_factory=dict)          # visible: merged at the last fence
    pending_puts: dict[str, str] = field(default_factory=dict)  # this node's puts since the last fence
    pending_bytes: int = 0                                       # their size in the fence payload
    node_attrs: dict[str, str] = field(default_factory=dict)
    attr_waiters: list[tuple[int, str]] = field(default_factory=list)
    in_fence: dict[int, int] = field(default_factory=dict)       # rank -> wire version it waits with
    fence_sent: bool = False

    def __post_init__(self) -> None:
        self.streams = {rank: ClientStream() for rank in self.ranks}

    @property
    def fence_ready(self) -> bool:
        """Every local task entered the fence and this node's part was not sent up yet."""
        return not self.fence_sent and len(self.in_fence) == len(self.ranks)

    def fence_payload(self) -> bytes:
        self.fence_sent = True
        payload = json.dumps(self.pending_puts, separators=(",", ":")).encode()
        self.pending_puts, self.pending_bytes = {}, 0
        return payload

    def fence_done(self, merged: bytes) -> list[Reply]:
        """The step's merged puts arrived: publish them and release every waiting task."""
        self.kvs.update(decode_space(merged))
        replies = [Reply(rank, encode_v2("kvs-fence-response", [("rc", "0")]) if version == 2
                         else encode_v1("barrier_out", [("rc", "0")]))
                   for rank, version in sorted(self.in_fence.items())]
        self.in_fence.clear()
        self.fence_sent = False
        return replies

    def receive(self, rank: int, data: bytes) -> list[Reply | Abort]:
        out: list[Reply | Abort] = []
        stream = self.streams[rank]
        for command, args in stream.feed(data):
            version = 2 if stream.version == 2 and command != "init" else 1
            handler = self._v2 if version == 2 else self._v1
            out.extend(handler(rank, command, args))
        return out

    # PMI-1 (MPICH's simple PMI client)
    def _v1(self, rank: int, command: str, args: dict[str, str]) -> list[Reply | Abort]:
        def reply(name: str, *pairs: tuple[str, str]) -> list[Reply | Abort]:
            return [Reply(rank, encode_v1(name, list(pairs)))]
        job = self.job
        if command == "init":
            version = args.get("pmi_version", "1")
            return reply("response_to_init", ("pmi_version", version if version in ("1", "2") else "1"),
                         ("pmi_subversion", args.get("pmi_subversion", "1") if version in ("1", "2") else "1"),
                         ("rc", "0" if version in ("1", "2") else "-1"))
        if command == "get_maxes":
            return reply("maxes", ("kvsname_max", "256"), ("keylen_max", str(MAX_KEY)),
                         ("vallen_max", str(MAX_VALUE)), ("rc", "0"))
        if command == "get_universe_size":
            return reply("universe_size", ("size", str(job.size)), ("rc", "0"))
        if command == "get_appnum":
            return reply("appnum", ("appnum", str(APPNUM)), ("rc", "0"))
        if command == "get_my_kvsname":
            return reply("my_kvsname", ("kvsname", job.kvsname), ("rc", "0"))
        if command == "put":
            error = self._put(args.get("key", ""), args.get("value", ""))
            return reply("put_result", ("rc", "-1" if error else "0"), ("msg", error or "success"))
        if command == "get":
            value = self._get(args.get("key", ""))
            if value is None:
                return reply("get_result", ("rc", "-1"), ("msg", "key_not_found"))
            return reply("get_result", ("rc", "0"), ("msg", "success"), ("value", value))
        if command == "barrier_in":
            self.in_fence[rank] = 1
            return []
        if command == "finalize":
            return reply("finalize_ack", ("rc", "0"))
        if command == "abort":
            return [Abort(rank, _int(args.get("exitcode", "1")), "")]
        if command == "spawn":
            return reply("spawn_result", ("rc", "-1"), ("msg", "spawn_not_supported"))
        return reply(f"{command}_result", ("rc", "-1"), ("msg", "unknown_command"))

    # PMI-2 (MPICH's pmi2 client, PMI_VERSION=2)
    def _v2(self, rank: int, command: str, args: dict[str, str]) -> list[Reply | Abort]:
        def reply(name: str, *pairs: tuple[str, str]) -> list[Reply | Abort]:
            return [Reply(rank, encode_v2(name, list(pairs)))]
        job = self.job
        if command == "fullinit":
            return reply("fullinit-response", ("rc", "0"), ("pmi-version", "2"), ("pmi-subversion", "0"),
                         ("rank", str(rank)), ("size", str(job.size)), ("appnum", str(APPNUM)),
                         ("debugged", "FALSE"), ("pmiverbose", "FALSE"))
        if command == "job-getid":
            return reply("job-getid-response", ("rc", "0"), ("jobid", job.kvsname))
        if command == "info-getjobattr":
            value = self._job_attr(args.get("key", ""))
            if value is None:
                return reply("info-getjobattr-response", ("rc", "0"), ("found", "FALSE"))
            return reply("info-getjobattr-response", ("rc", "0"), ("found", "TRUE"), ("value", value))
        if command == "info-putnodeattr":
            key = args.get("key", "")[:MAX_KEY]
            if key not in self.node_attrs and len(self.node_attrs) >= MAX_NODE_ATTRS:
                return reply("info-putnodeattr-response", ("rc", "-1"), ("errmsg", "too many node attributes"))
            self.node_attrs[key] = args.get("value", "")[:MAX_VALUE]
            return reply("info-putnodeattr-response", ("rc", "0")) + self._release_attr_waiters()
        if command == "info-getnodeattr":
            key = args.get("key", "")
            if key in self.node_attrs:
                return reply("info-getnodeattr-response", ("rc", "0"), ("found", "TRUE"),
                             ("value", self.node_attrs[key]))
            if args.get("wait") == "TRUE":   # a client waits for one answer at a time: one entry per rank
                self.attr_waiters = [w for w in self.attr_waiters if w[0] != rank] + [(rank, key)]
                return []
            return reply("info-getnodeattr-response", ("rc", "0"), ("found", "FALSE"))
        if command == "kvs-put":
            error = self._put(args.get("key", ""), args.get("value", ""))
            return reply("kvs-put-response", ("rc", "-1" if error else "0"), *([("errmsg", error)] if error else []))
        if command == "kvs-get":
            value = self._get(args.get("key", ""))
            if value is None:
                return reply("kvs-get-response", ("rc", "0"), ("found", "FALSE"))
            return reply("kvs-get-response", ("rc", "0"), ("found", "TRUE"), ("value", value))
        if command == "kvs-fence":
            self.in_fence[rank] = 2
            return []
        if command == "finalize":
            return reply("finalize-response", ("rc", "0"))
        if command == "abort":
            return [Abort(rank, 1, args.get("msg", ""))]
        if command == "spawn":
            return reply("spawn-response", ("rc", "-1"), ("errmsg", "spawn is not supported"))
        return reply(f"{command}-response", ("rc", "-1"), ("errmsg", f"unknown command {command}"))

    def _job_attr(self, key: str) -> str | None:
        return {"PMI_process_mapping": self.job.process_mapping, "universeSize": str(self.job.size)}.get(key)

    def _put(self, key: str, value: str) -> str:
        if not key or len(key) > MAX_KEY or len(value) > MAX_VALUE:
            return "key or value too long"
        size = len(json.dumps(key)) + len(json.dumps(value)) + 2   # as the fence payload will carry it
        if self.pending_bytes + size > MAX_NODE_PUTS:
            return "too many puts before a fence"
        self.pending_puts[key] = value
        self.pending_bytes += size
        return ""

    def _get(self, key: str) -> str | None:
        if key == "PMI_process_mapping":
            return self.job.process_mapping
        return self.kvs.get(key)

    def _release_attr_waiters(self) -> list[Reply | Abort]:
        ready = [(rank, key) for rank, key in self.attr_waiters if key in self.node_attrs]
        self.attr_waiters = [w for w in self.attr_waiters if w not in ready]
        return [Reply(rank, encode_v2("info-getnodeattr-response",
                                      [("rc", "0"), ("found", "TRUE"), ("value", self.node_attrs[key])]))
                for rank, key in ready]


def decode_space(payload: bytes) -> dict[str, str]:
    """A fence payload (JSON object of strings) -> dict; PmiProtocolError if it is anything else."""
    try:
        space = json.loads(payload)
    except ValueError as exc:
        raise PmiProtocolError("bad fence payload") from exc
    if not isinstance(space, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                              for k, v in space.items()):
        raise PmiProtocolError("bad fence payload")
    return space


@dataclass
class FenceRound:
    """srun's side of the fence: the puts of every node of the step, merged once all have sent."""
    num_nodes: int
    parts: dict[int, dict[str, str]] = field(default_factory=dict)

    def add(self, node_index: int, payload: bytes) -> bytes | None:
        """The merged space to send to every node once the last one arrived, else None."""
        self.parts[node_index] = decode_space(payload)
        if len(self.parts) < self.num_nodes:
            return None
        merged: dict[str, str] = {}
        for index in sorted(self.parts):
            merged.update(self.parts[index])
        self.parts = {}
        return json.dumps(merged, separators=(",", ":")).encode()


def _int(text: str) -> int:
    return int(text) if text.lstrip("-").isdigit() and len(text) < 10 else 1
