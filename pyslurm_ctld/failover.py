"""Backup controllers: several SlurmctldHost lines sharing one StateSaveLocation.

Owns which SlurmctldHost this daemon is, the exclusive lock on the shared state, and the life
of a controller that is not in charge. Only the holder of the lock (an flock on
StateSaveLocation/controller.lock, released by the kernel when its process dies) replays and
appends to the journal, so two controllers never write it at once, whatever the network says.

A controller not in charge serves a standby server on the controller port: `Ping` (answered
with standby=true, so `scontrol ping` reports it UP), `Takeover` (scontrol takeover) and
UNAVAILABLE for everything else, which sends clients and node agents on to the next
SlurmctldHost (pyslurm_common.controller_channel). Meanwhile it pings the other controllers
and takes over when none in charge has answered for SlurmctldTimeout, or at once when told
to, and only once it holds the lock: a primary that is alive but cut off keeps the lock, and
the backup waits rather than split the state. Handing over (RequestControl): a returning
primary asks the controller in charge, which leaves the state, releases the lock and, being a
backup, stands by again; a primary asked by a backup (scontrol takeover) stops, as Slurm's.
"""
from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import socket
from pathlib import Path
from typing import Callable, Sequence

import grpc

from pyslurm_common.config import ControllerHost, SlurmConfig
from pyslurm_common.daemon_runtime import wait_first
from pyslurm_common.errors import SlurmError, Strerror
from pyslurm_common.rpc import ctld_pb2, ctld_pb2_grpc, types_pb2
from pyslurm_common.auth import CONTROLLER
from pyslurm_common.controller_channel import STANDBY_DETAIL
from pyslurm_common.rpc_client import signed_channel
from pyslurm_common.rpc_auth import ServerAuth, Serving, Signer, caller, insecure_channel, make_server, translate_errors

from .shell.controller import Controller
from .core.access import is_privileged
from .rpc.servicer import ControllerServicer

log = logging.getLogger(__name__)

LOCK_NAME = "controller.lock"
HAND_OVER_TIMEOUT = 5.0


# ---- who am I -----------------------------------------------------------------------------

def my_index(controllers: Sequence[ControllerHost], hostname: str, is_local: Callable[[str], bool]) -> int:
    """This daemon's position among the SlurmctldHost lines (0 = primary): the entry named
    like this host (short names compared), else the one whose address is on this host.

    Raises ValueError when there are several and none is this host.
    """
    if len(controllers) == 1:
        return 0
    short = hostname.split(".")[0]
    for index, host in enumerate(controllers):
        if host.name.split(".")[0] == short:
            return index
    for index, host in enumerate(controllers):
        if is_local(host.addr):
            return index
    names = ", ".join(host.name for host in controllers)
    raise ValueError(f"this host ({hostname}) is none of the SlurmctldHost entries ({names})")


def is_local_address(addr: str) -> bool:
    """Whether `addr` names an address of this host (it can be bound to)."""
    try:
        infos = socket.getaddrinfo(addr, None, type=socket.SOCK_STREAM)
    except OSError:
        return False
    for family, _, _, _, sockaddr in infos:
        with socket.socket(family, socket.SOCK_STREAM) as sock:
            try:
                sock.bind((sockaddr[0], 0))
            except OSError:
                continue
            return True
    return False


def takeover_due(last_in_charge_seen: float, now: float, timeout: int) -> bool:
    return now - last_in_charge_seen >= timeout


def poll_interval(timeout: int) -> float:
    """How often a standby controller pings the others: a few times per SlurmctldTimeout."""
    return min(10.0, max(0.2, timeout / 4))


# ---- the lock on the shared state ------------------------------------------------------------

class StateLock:
    """The right to write StateSaveLocation: an exclusive, non-blocking flock."""

    def __init__(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.path = directory / LOCK_NAME
        self._fd = -1

    @property
    def held(self) -> bool:
        return self._fd >= 0

    def try_acquire(self, holder: str) -> bool:
        if self.held:
            return True
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        os.ftruncate(fd, 0)   # who holds it, for an admin reading the file
        os.pwrite(fd, f"{holder} pid {os.getpid()}\n".encode(), 0)
        self._fd = fd
        return True

    def holder(self) -> str:
        with contextlib.suppress(OSError):
            return self.path.read_text().strip()
        return "another controller"

    def release(self) -> None:
        if self.held:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = -1


# ---- the other controllers --------------------------------------------------------------------

class Peers:
    """The other SlurmctldHosts, called as SlurmUser."""

    def __init__(self, cfg: SlurmConfig, index: int, signer: Signer) -> None:
        self.index = index
        self.me = cfg.controllers[index]
        self._signer = signer
        self._stubs = [(host, ctld_pb2_grpc.ControllerStub(
                            signed_channel(f"{host.addr}:{cfg.ctld_port}", CONTROLLER, signer, insecure_channel)))
                       for i, host in enumerate(cfg.controllers) if i != index]

    async def one_in_charge(self, timeout: float) -> str | None:
        """The name of a controller that answers as in charge, or None."""
        replies = await asyncio.gather(*(self._ping(host, stub, timeout) for host, stub in self._stubs))
        return next((name for name in replies if name), None)

    async def _ping(self, host: ControllerHost, stub: ctld_pb2_grpc.ControllerStub, timeout: float) -> str | None:
        try:
            reply = await stub.Ping(types_pb2.Empty(), timeout=timeout)
        except grpc.aio.AioRpcError:
            return None
        return None if reply.standby else host.name

    async def ask_to_hand_over(self) -> None:
        """RequestControl to every other controller; the one in charge leaves the state."""
        for host, stub in self._stubs:
            try:   # wait_for_ready: a controller that just came back is still being connected to
                await stub.RequestControl(types_pb2.Empty(), timeout=HAND_OVER_TIMEOUT, wait_for_ready=True)
                log.info("asked %s to hand over control", host.name)
            except grpc.aio.AioRpcError as exc:
                log.debug("%s did not take the hand-over request: %s", host.name, exc.code().name)


# ---- serving ---------------------------------------------------------------------------------

class InChargeServicer(ControllerServicer):
    """The controller service of the controller in charge, plus the hand-over calls."""

    def __init__(self, ctl: Controller, serving: Serving, hand_over: asyncio.Event, host: str) -> None:
        super().__init__(ctl, serving)
        self._hand_over = hand_over
        self._host = host

    async def Ping(self, request: types_pb2.Empty, context: grpc.aio.ServicerContext) -> ctld_pb2.PingReply:
        return ctld_pb2.PingReply(host=self._host)

    @translate_errors
    async def RequestControl(self, request: types_pb2.Empty, context: grpc.aio.ServicerContext) -> types_pb2.Empty:
        if not is_privileged(self.state, caller().uid):
            raise SlurmError(Strerror.ACCESS_DENIED)
        log.info("another controller asked for control: handing over")
        self._hand_over.set()
        return types_pb2.Empty()

    @translate_errors
    async def Takeover(self, request: types_pb2.Empty, context: grpc.aio.ServicerContext) -> types_pb2.Empty:
        if not is_privileged(self.state, caller().uid):
            raise SlurmError(Strerror.ACCESS_DENIED)
        return types_pb2.Empty()   # already in charge


def standby_handler(host: str, slurm_uid: int, takeover: asyncio.Event) -> grpc.GenericRpcHandler:
    """Every Controller method of a controller standing by: Ping, Takeover, else UNAVAILABLE."""

    async def ping(request: types_pb2.Empty, context: grpc.aio.ServicerContext) -> ctld_pb2.PingReply:
        return ctld_pb2.PingReply(host=host, standby=True)

    async def take_over(request: types_pb2.Empty, context: grpc.aio.ServicerContext) -> types_pb2.Empty:
        if caller().uid not in (0, slurm_uid):
            await context.abort(grpc.StatusCode.PERMISSION_DENIED,
                                SlurmError(Strerror.ACCESS_DENIED).status_details())
        log.info("takeover requested by uid %d", caller().uid)
        takeover.set()
        return types_pb2.Empty()

    async def not_in_charge(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        await context.abort(grpc.StatusCode.UNAVAILABLE, STANDBY_DETAIL)
        return b""

    handlers = {name: grpc.unary_unary_rpc_method_handler(not_in_charge)
                for name in ctld_pb2.DESCRIPTOR.services_by_name["Controller"].methods_by_name}
    handlers["Ping"] = grpc.unary_unary_rpc_method_handler(
        ping, types_pb2.Empty.FromString, ctld_pb2.PingReply.SerializeToString)
    handlers["Takeover"] = grpc.unary_unary_rpc_method_handler(
        take_over, types_pb2.Empty.FromString, types_pb2.Empty.SerializeToString)
    return grpc.method_handlers_generic_handler("pyslurm.Controller", handlers)


async def stand_by(cfg: SlurmConfig, peers: Peers, lock: StateLock, server_auth: ServerAuth, slurm_uid: int,
                   stop: asyncio.Event, eager: bool) -> bool:
    """Serve as standby until this controller holds the lock (True) or `stop` is set (False).
    `eager`: take the lock as soon as it is free (a primary that asked for control back)."""
    takeover = asyncio.Event()
    server = make_server(server_auth)
    server.add_generic_rpc_handlers((standby_handler(peers.me.name, slurm_uid, takeover),))
    address = f"0.0.0.0:{cfg.ctld_port}"
    if server.add_insecure_port(address) == 0:
        raise OSError(f"cannot listen on {address}")
    await server.start()
    log.info("standing by as %s on %s (SlurmctldTimeout=%d)", peers.me.name, address, cfg.slurmctld_timeout)
    loop = asyncio.get_running_loop()
    interval = poll_interval(cfg.slurmctld_timeout)
    last_seen = loop.time()
    told_held = False
    try:
        while not stop.is_set():
            if takeover.is_set():
                takeover.clear()
                if not eager:
                    await peers.ask_to_hand_over()
                    eager = True
            in_charge = await peers.one_in_charge(interval)
            if in_charge:
                last_seen = loop.time()
            if eager or takeover_due(last_seen, loop.time(), cfg.slurmctld_timeout):
                if eager and in_charge:
                    await peers.ask_to_hand_over()    # the request did not reach it before: again
                if lock.try_acquire(peers.me.name):
                    log.info("taking over control (%s)", "as asked" if eager
                             else f"no controller answered for {cfg.slurmctld_timeout}s")
                    return True
                if not told_held:   # expected for a moment while the one in charge hands over
                    (log.info if eager else log.warning)("not taking over yet: %s still holds %s",
                                                         lock.holder(), lock.path)
                    told_held = True
            await wait_first(stop, takeover, timeout=interval)
        return False
    finally:
        await server.stop(grace=0.5)
