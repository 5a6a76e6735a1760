"""A cgroup v2 device filter: a BPF_PROG_TYPE_CGROUP_DEVICE program built and loaded by hand.

This module owns the eBPF side of ConstrainDevices (spec daemons-and-cgroups.md §4.3): encoding
the instructions of a program that denies a fixed list of (type, major, minor) devices and
allows everything else, loading it with bpf(BPF_PROG_LOAD) and attaching it to a cgroup v2
directory with bpf(BPF_PROG_ATTACH, BPF_CGROUP_DEVICE, BPF_F_ALLOW_MULTI) — all through ctypes,
no libbpf, no compiler.

The kernel runs the program on every device access (open, mknod) by a process of the cgroup or
its descendants, with a ``struct bpf_cgroup_dev_ctx`` in r1::

    offset 0  u32 access_type   low 16 bits: device type (BPF_DEVCG_DEV_BLOCK 1, _CHAR 2)
                                high 16 bits: access mask (BPF_DEVCG_ACC_MKNOD 1, _READ 2, _WRITE 4)
    offset 4  u32 major
    offset 8  u32 minor

A return value of 0 refuses the access (the syscall fails with EPERM), 1 allows it.  With
BPF_F_ALLOW_MULTI every program attached on the path to the root must allow, so a step filter
can only narrow what its ancestors allow.  The attachment holds its own reference to the
program; the fd is kept only to detach.  Removing the cgroup detaches and frees the program too.

The program calls no kernel helper, so it needs no GPL-compatible license: it is loaded as
"Apache-2.0".  Errors are :class:`BpfError` (an :class:`OSError` with the failing command and,
for a refused load, the verifier log).  Needs CAP_SYS_ADMIN (root).  Stdlib only.
"""

from __future__ import annotations

import ctypes
import errno
import os
import resource
import struct
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Protocol

__all__ = ["BpfError", "DeviceNumber", "LoadedFilter", "attach", "detach", "device_program", "load_program"]

# ---- kernel constants (include/uapi/linux/bpf.h) ----------------------------------------------

BPF_PROG_LOAD = 5
BPF_PROG_ATTACH = 8
BPF_PROG_DETACH = 9
BPF_PROG_TYPE_CGROUP_DEVICE = 15
BPF_CGROUP_DEVICE = 6  # enum bpf_attach_type
BPF_F_ALLOW_MULTI = 2

BPF_DEVCG_DEV_BLOCK = 1
BPF_DEVCG_DEV_CHAR = 2
DEVICE_TYPES = {"b": BPF_DEVCG_DEV_BLOCK, "c": BPF_DEVCG_DEV_CHAR}

# instruction classes, sizes, modes, operations, sources
_BPF_LDX, _BPF_JMP, _BPF_ALU64 = 0x01, 0x05, 0x07
_BPF_W, _BPF_MEM = 0x00, 0x60
_BPF_K = 0x00
_BPF_AND, _BPF_MOV = 0x50, 0xB0
_BPF_JNE, _BPF_EXIT = 0x50, 0x90

R0, R1, R2, R3, R4 = 0, 1, 2, 3, 4

_OFF_ACCESS_TYPE, _OFF_MAJOR, _OFF_MINOR = 0, 4, 8

# bpf(2) syscall numbers per architecture
_SYS_BPF = {"x86_64": 321, "aarch64": 280, "arm64": 280, "riscv64": 280, "ppc64le": 361, "ppc64": 361,
            "s390x": 351, "loongarch64": 280, "i686": 357, "i386": 357, "armv7l": 386}

PROGRAM_NAME = b"pyslurm_devices"  # at most 15 characters: [A-Za-z0-9_.]
LICENSE = b"Apache-2.0"
_LOG_SIZE = 1 << 16


class BpfError(OSError):
    """A bpf(2) command failed; ``errno`` is the kernel's, the text says what was attempted."""


class DeviceNumber(Protocol):
    """A device to deny: ``kind`` ``"c"`` or ``"b"``, and its numbers (cgroup_limits.Device)."""

    @property
    def kind(self) -> str: ...

    @property
    def major(self) -> int: ...

    @property
    def minor(self) -> int: ...


# ---- instruction encoding -----------------------------------------------------------------------


def _insn(code: int, dst: int = 0, src: int = 0, off: int = 0, imm: int = 0) -> bytes:
    """One ``struct bpf_insn``: u8 code, u8 dst_reg:4 + src_reg:4 (bitfield order follows the
    host byte order), s16 off, s32 imm."""
    regs = (src << 4 | dst) if sys.byteorder == "little" else (dst << 4 | src)
    return struct.pack("=BBhi", code, regs, off, imm)


def load_u32(dst: int, src: int, offset: int) -> bytes:
    """dst = *(u32 *)(src + offset)"""
    return _insn(_BPF_LDX | _BPF_MEM | _BPF_W, dst, src, offset)


def and_imm(dst: int, imm: int) -> bytes:
    """dst &= imm (64-bit)"""
    return _insn(_BPF_ALU64 | _BPF_AND | _BPF_K, dst, imm=imm)


def mov_imm(dst: int, imm: int) -> bytes:
    """dst = imm (64-bit)"""
    return _insn(_BPF_ALU64 | _BPF_MOV | _BPF_K, dst, imm=imm)


def jump_if_not_equal(dst: int, imm: int, skip: int) -> bytes:
    """if dst != imm: skip the next ``skip`` instructions"""
    return _insn(_BPF_JMP | _BPF_JNE | _BPF_K, dst, off=skip, imm=imm)


def exit_insn() -> bytes:
    """return r0"""
    return _insn(_BPF_JMP | _BPF_EXIT)


def device_program(denied: Iterable[DeviceNumber]) -> bytes:
    """The program: 0 (deny) for any access to a denied device, otherwise 1 (allow).

    ::

        r2 = ctx->access_type & 0xffff; r3 = ctx->major; r4 = ctx->minor
        for each denied device:  if r2 == type && r3 == major && r4 == minor: return 0
        return 1
    """
    code = [load_u32(R2, R1, _OFF_ACCESS_TYPE), and_imm(R2, 0xFFFF),
            load_u32(R3, R1, _OFF_MAJOR), load_u32(R4, R1, _OFF_MINOR)]
    for rule in denied:
        if rule.kind not in DEVICE_TYPES:
            raise ValueError(f"device type must be 'c' or 'b', not {rule.kind!r}")
        if not (0 <= rule.major < 1 << 31 and 0 <= rule.minor < 1 << 31):
            raise ValueError(f"device number out of range: {rule.major}:{rule.minor}")
        # Each test skips the rest of this rule (the remaining tests, mov and exit) on mismatch.
        code += [jump_if_not_equal(R2, DEVICE_TYPES[rule.kind], 4),
                 jump_if_not_equal(R3, rule.major, 3),
                 jump_if_not_equal(R4, rule.minor, 2),
                 mov_imm(R0, 0), exit_insn()]
    code += [mov_imm(R0, 1), exit_insn()]
    return b"".join(code)


# ---- the bpf(2) syscall -------------------------------------------------------------------------


class _ProgLoadAttr(ctypes.Structure):
    """The BPF_PROG_LOAD member of ``union bpf_attr``, up to expected_attach_type."""

    _fields_ = [
        ("prog_type", ctypes.c_uint32),
        ("insn_cnt", ctypes.c_uint32),
        ("insns", ctypes.c_uint64),
        ("license", ctypes.c_uint64),
        ("log_level", ctypes.c_uint32),
        ("log_size", ctypes.c_uint32),
        ("log_buf", ctypes.c_uint64),
        ("kern_version", ctypes.c_uint32),
        ("prog_flags", ctypes.c_uint32),
        ("prog_name", ctypes.c_char * 16),
        ("prog_ifindex", ctypes.c_uint32),
        ("expected_attach_type", ctypes.c_uint32),
    ]


class _AttachAttr(ctypes.Structure):
    """The BPF_PROG_ATTACH/DETACH member of ``union bpf_attr``."""

    _fields_ = [
        ("target_fd", ctypes.c_uint32),
        ("attach_bpf_fd", ctypes.c_uint32),
        ("attach_type", ctypes.c_uint32),
        ("attach_flags", ctypes.c_uint32),
        ("replace_bpf_fd", ctypes.c_uint32),
    ]


_libc: ctypes.CDLL | None = None


def _bpf(cmd: int, attr: ctypes.Structure) -> int:
    global _libc
    machine = os.uname().machine
    number = _SYS_BPF.get(machine)
    if number is None:
        raise BpfError(errno.ENOSYS, f"bpf(2): unknown syscall number on {machine}")
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
    result = _libc.syscall(ctypes.c_long(number), ctypes.c_int(cmd), ctypes.byref(attr),
                           ctypes.c_uint(ctypes.sizeof(attr)))
    if result < 0:
        return -ctypes.get_errno()
    return int(result)


def load_program(code: bytes) -> int:
    """Load a device program; returns its fd.  A refused program raises with the verifier log."""
    insns = ctypes.create_string_buffer(code, len(code))
    license_buf = ctypes.create_string_buffer(LICENSE)
    attr = _ProgLoadAttr(prog_type=BPF_PROG_TYPE_CGROUP_DEVICE, insn_cnt=len(code) // 8,
                         insns=ctypes.addressof(insns), license=ctypes.addressof(license_buf),
                         prog_name=PROGRAM_NAME, expected_attach_type=BPF_CGROUP_DEVICE)
    fd = _bpf(BPF_PROG_LOAD, attr)
    if fd == -errno.EPERM and os.geteuid() == 0:
        # Kernels before 5.11 charge BPF memory to RLIMIT_MEMLOCK (often 64 KiB): lift it, once.
        try:
            resource.setrlimit(resource.RLIMIT_MEMLOCK, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
            fd = _bpf(BPF_PROG_LOAD, attr)
        except (OSError, ValueError):
            pass
    if fd >= 0:
        return fd
    log = ctypes.create_string_buffer(_LOG_SIZE)
    attr.log_level, attr.log_size, attr.log_buf = 1, _LOG_SIZE, ctypes.addressof(log)
    retry = _bpf(BPF_PROG_LOAD, attr)
    if retry >= 0:  # loaded the second time (transient failure): keep it
        return retry
    text = log.value.decode(errors="replace").strip()
    detail = f"; verifier: {text[-2000:]}" if text else ""
    raise BpfError(-fd, f"bpf(BPF_PROG_LOAD) of the device program: {os.strerror(-fd)}{detail}")


def attach(cgroup_fd: int, prog_fd: int) -> None:
    attr = _AttachAttr(target_fd=cgroup_fd, attach_bpf_fd=prog_fd, attach_type=BPF_CGROUP_DEVICE,
                       attach_flags=BPF_F_ALLOW_MULTI)
    rc = _bpf(BPF_PROG_ATTACH, attr)
    if rc < 0:
        raise BpfError(-rc, f"bpf(BPF_PROG_ATTACH): {os.strerror(-rc)}")


def detach(cgroup_fd: int, prog_fd: int) -> None:
    attr = _AttachAttr(target_fd=cgroup_fd, attach_bpf_fd=prog_fd, attach_type=BPF_CGROUP_DEVICE)
    rc = _bpf(BPF_PROG_DETACH, attr)
    if rc < 0:
        raise BpfError(-rc, f"bpf(BPF_PROG_DETACH): {os.strerror(-rc)}")


class LoadedFilter:
    """A device program attached to one cgroup directory; :meth:`close` detaches it (idempotent).

    A cgroup that is already gone has lost the program with it: closing then only frees the fds.
    """

    def __init__(self, cgroup_dir: Path, denied: Iterable[DeviceNumber]) -> None:
        self.cgroup_dir = cgroup_dir
        self._prog_fd = load_program(device_program(denied))
        try:
            self._cgroup_fd = os.open(cgroup_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError:
            os.close(self._prog_fd)
            raise
        try:
            attach(self._cgroup_fd, self._prog_fd)
        except BpfError:
            self._close_fds()
            raise

    @property
    def closed(self) -> bool:
        return self._prog_fd < 0

    def close(self) -> None:
        if self.closed:
            return
        try:
            detach(self._cgroup_fd, self._prog_fd)
        except BpfError as exc:
            if exc.errno not in (errno.ENOENT, errno.ENODEV):  # gone together with its cgroup
                raise
        finally:
            self._close_fds()

    def _close_fds(self) -> None:
        for fd in (self._prog_fd, self._cgroup_fd):
            try:
                os.close(fd)
            except OSError:
                pass
        self._prog_fd = self._cgroup_fd = -1
