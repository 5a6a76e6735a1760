"""pyslurmsackd: the per-host auth agent.

Listens on a unix socket open to every local user. For each request it reads
the caller's uid/gid from the kernel (SO_PEERCRED), signs a credential for
exactly that identity, method and body, and forwards the opaque protobuf body
to the controller or the accounting daemon over a long-lived gRPC channel,
only once that daemon has proven that it holds the cluster key (rpc_client.py):
a process squatting a stopped daemon's port gets no user's credential.
A token request (pyslurmrestd's, protocol.TOKEN_KIND) is signed for the user of the auth/jwt token
it carries, once jwt_tokens.token_identity has verified it, instead of for the caller.
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import struct
from pathlib import Path
from typing import Callable

import grpc

from .. import config as config_mod
from .. import jwt_tokens, sd_notify
from ..auth import ACCOUNTING, AuthError, Identity, load_key
from ..daemon_log import setup_logging
from ..daemon_runtime import argument_parser, fatal, reload_logging_on_hangup, run_until_signalled, write_pid_file
from ..controller_channel import FailoverChannel, to_controllers
from ..rpc_auth import Signer, insecure_channel
from ..rpc_client import SignedChannel, signed_channel
from . import protocol

log = logging.getLogger(__name__)
PROG = "pyslurmsackd"
_UCRED = struct.Struct("3i")
# What one local user can make the agent (root) hold: this many connections at once, each read within
# READ_TIMEOUT (a connection that sends nothing holds no slot for long), and requests of at most
# protocol.MAX_REQUEST bytes, BYTES_PER_USER of them at once: a request is refused before its body is
# read when the user's requests being read and forwarded would exceed that (32 connections of 16 MiB
# each made the agent hold half a gigabyte). Two of the largest requests fit: a user's sbatch of the
# largest script and a squeue beside it never meet the bound.
CONNECTIONS_PER_USER = 32
BYTES_PER_USER = 2 * protocol.MAX_REQUEST
READ_TIMEOUT = 30.0


class OverBudget(Exception):
    """The user's requests in hand would exceed BYTES_PER_USER."""


def peer_identity(sock: socket.socket, host: str) -> Identity:
    raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _UCRED.size)
    _pid, uid, gid = _UCRED.unpack(raw)
    return Identity(uid=uid, gid=gid, host=host)


class Agent:
    def __init__(self, signer: Signer, controllers: FailoverChannel, dbd_address: str | None, host: str,
                 tokens: Callable[[str, str], Identity] | None = None) -> None:
        self._host = host
        self._tokens = tokens                # (token, user name) -> whom a token request speaks for
        self._open: dict[int, int] = {}      # uid -> connections being served
        self._held: dict[int, int] = {}      # uid -> bytes of its requests being read or forwarded
        self._controllers = controllers
        self._channels: dict[str, FailoverChannel | SignedChannel] = {protocol.CONTROLLER_PREFIX: controllers}
        if dbd_address:
            self._channels[protocol.ACCOUNTING_PREFIX] = signed_channel(dbd_address, ACCOUNTING, signer,
                                                                        insecure_channel)

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        identity = peer_identity(writer.get_extra_info("socket"), self._host)
        uid = identity.uid
        try:
            if self._open.get(uid, 0) >= CONNECTIONS_PER_USER:
                log.warning("uid %d has %d requests open already: connection refused", uid, CONNECTIONS_PER_USER)
                return
            self._open[uid] = self._open.get(uid, 0) + 1
            held = [0]      # what this connection has reserved of the user's budget
            try:
                bearer, (method, timeout_ms, body) = await asyncio.wait_for(self._read_request(reader, uid, held),
                                                                            READ_TIMEOUT)
                caller = identity if bearer is None else self._token_identity(uid, *bearer)
                reply = (await self._forward(caller, method, timeout_ms, body) if caller is not None else
                         protocol.encode_reply(grpc.StatusCode.UNAUTHENTICATED.value[0],
                                               "Authentication failure: invalid token", b""))
                del body
                self._release(uid, held)
                writer.write(reply)
                await writer.drain()
            finally:
                self._release(uid, held)
                self._open[uid] -= 1
                if not self._open[uid]:
                    del self._open[uid]
        except protocol.TooLarge as exc:
            log.warning("request from uid %d refused: %s", uid, exc)
            with contextlib.suppress(ConnectionError):
                writer.write(protocol.encode_reply(protocol.TOO_LARGE_STATUS, protocol.TOO_LARGE_DETAILS, b""))
                await writer.drain()
        except OverBudget:
            log.warning("uid %d has %d bytes of requests in hand already: request refused", uid, BYTES_PER_USER)
        except protocol.ProtocolError as exc:
            log.warning("request from uid %d refused: %s", uid, exc)
        except TimeoutError:
            log.warning("request from uid %d refused: not sent within %.0f s", uid, READ_TIMEOUT)
        except (asyncio.IncompleteReadError, ConnectionError) as exc:
            log.debug("client went away: %s", exc)
        finally:
            writer.close()

    async def _read_request(self, reader: asyncio.StreamReader, uid: int, held: list[int]
                            ) -> tuple[tuple[str, str] | None, tuple[str, int, bytes]]:
        head = await reader.readexactly(protocol.LENGTH_SIZE)
        length = protocol.frame_length(head, protocol.MAX_REQUEST)
        if self._held.get(uid, 0) + length > BYTES_PER_USER:
            raise OverBudget()
        self._held[uid] = self._held.get(uid, 0) + length     # before the body arrives: a slow sender counts
        held[0] = length
        bearer, payload = protocol.split_token(await reader.readexactly(length))
        return bearer, protocol.decode_request(payload)

    def _release(self, uid: int, held: list[int]) -> None:
        if held[0]:
            self._held[uid] -= held[0]
            held[0] = 0
            if not self._held[uid]:
                del self._held[uid]

    def _token_identity(self, uid: int, token: str, user: str) -> Identity | None:
        try:
            if self._tokens is None:
                raise jwt_tokens.TokenError("tokens are not taken here")
            return self._tokens(token, user)
        except jwt_tokens.TokenError as exc:
            log.warning("token request from uid %d refused: %s", uid, exc)
            return None

    async def _forward(self, identity: Identity, method: str, timeout_ms: int, body: bytes) -> bytes:
        method, target = protocol.controller_target(method)
        channel = next((c for prefix, c in self._channels.items() if method.startswith(prefix)), None)
        if target is not None and target < len(self._controllers.addresses):
            channel = self._controllers.channel(target)
        elif target is not None:
            channel = None
        if channel is None:
            return protocol.encode_reply(grpc.StatusCode.UNIMPLEMENTED.value[0], f"no route for {method}", b"")
        call = channel.unary_unary(method)  # bytes in, bytes out: the agent never parses bodies
        try:
            reply = await call(body, timeout=max(timeout_ms, 1) / 1000, identity=identity)
        except grpc.aio.AioRpcError as exc:
            return protocol.encode_reply(exc.code().value[0], exc.details() or "", b"")
        return protocol.encode_reply(0, "", reply)


class SocketInUse(Exception):
    """Another agent answers on the socket path."""


def listen_socket(path: Path) -> socket.socket:
    """Listen on `path`; a socket left by an agent that is gone is replaced, a live one is not."""
    if not path.parent.is_dir():    # a directory of our own; an existing one (/run, /tmp) keeps its mode
        path.parent.mkdir(parents=True)
        os.chmod(path.parent, 0o755)
    if path.exists() or path.is_symlink():
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(str(path))
        except OSError:
            path.unlink()            # stale: nobody listens there
        else:
            raise SocketInUse(f"Unable to bind listen socket {path}: another agent is listening on it")
        finally:
            probe.close()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(path))
    os.chmod(path, 0o666)  # every local user may ask; the kernel tells us who they are
    sock.listen(512)
    return sock


def main() -> None:
    opts = argument_parser(PROG, "pyslurm per-host authentication agent").parse_args()
    try:
        cfg = config_mod.load_config(opts.conf)
        key = load_key(cfg.key_file)
    except (config_mod.ConfigError, AuthError) as exc:
        fatal(PROG, exc)
    setup_logging(cfg.slurmctld_debug, None, opts.verbose, opts.log_file)
    host = socket.gethostname()
    dbd = f"{cfg.accounting_storage_host}:{cfg.accounting_storage_port}" if cfg.accounting_enabled and cfg.accounting_storage_host else None

    write_pid_file(opts.pid_file)

    async def serve(stop: asyncio.Event) -> None:
        # grpc.aio channels belong to the loop they are made on: build the agent inside it.
        signer = Signer(key, host=host)
        agent = Agent(signer, to_controllers(cfg, signer, patient=True), dbd, host,
                      lambda token, user: jwt_tokens.token_identity(cfg, token, user, host))
        try:
            sock = listen_socket(cfg.auth_socket)
        except (SocketInUse, OSError) as exc:
            fatal(PROG, str(exc))
        server = await asyncio.start_unix_server(agent.handle, sock=sock)
        log.info("listening on %s", cfg.auth_socket)
        reload_logging_on_hangup(lambda: (config_mod.load_config(cfg.path).slurmctld_debug, None))
        sd_notify.ready(f"listening on {cfg.auth_socket}")
        await stop.wait()
        server.close()
        cfg.auth_socket.unlink(missing_ok=True)

    run_until_signalled(serve)
