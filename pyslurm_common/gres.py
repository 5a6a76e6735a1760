"""Generic resources (GRES): the ``Gres=`` grammar, job GPU requests, and gres.conf.

This module owns three things, all pure and stdlib-only (CLIs and the node agent import it):

* the ``name[:type][:no_consume][:count]`` grammar of slurm.conf ``Gres=`` and of ``--gres``
  (spec config-slurm-conf.md §4, cli-sbatch-srun-salloc.md ``--gres``), parsed into
  :class:`GresSpec` and formatted back the ways Slurm prints it: ``gpu:2`` (``Gres=``),
  ``gres:gpu:2`` (squeue ``%b`` / ``TresPerNode=``), ``gres/gpu=2`` (TRES strings), and
  ``gpu:2(IDX:0-1)`` (``GresUsed=``);
* GPU slots of a node from its ``Gres=``: global indices ``0..N-1`` in the order written, each
  with the type its ``Gres=`` item gives (:func:`gpu_slots`);
* gres.conf (spec config-slurm-conf.md §6) read through :mod:`pyslurm_common.conf_syntax` into
  per-node GPU devices (:func:`load_gres_conf`).

Errors: a malformed ``Gres=``/``--gres`` string raises :class:`GresError` (a ``ValueError``; the
caller words it for its context: a ConfigError for slurm.conf, a SlurmError for a job); an
invalid gres.conf raises :class:`ConfigError` with ``<file>:<line>``. Unknown gres.conf keys are
warnings, as in slurm.conf.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pyslurm_common.bounds import GRES_COUNT
from pyslurm_common.conf_syntax import ConfigError, Token, read_conf

__all__ = [
    "GPU", "GpuDevice", "GresConf", "GresConfLine", "GresError", "GresSpec", "NodeGres",
    "format_gres", "format_gres_used", "format_indices", "format_tres", "gpu_count", "gpu_slots", "load_gres_conf",
    "node_gres_from_devices", "parse_count", "parse_gres", "parse_gres_conf", "parse_gres_request",
    "parse_gpu_option", "tres_per_node",
]

GPU = "gpu"
_COUNT = re.compile(r"(\d+)([kmgtp]?)", re.IGNORECASE)
_MULTIPLIER = {"": 1, "k": 1024, "m": 1024 ** 2, "g": 1024 ** 3, "t": 1024 ** 4, "p": 1024 ** 5}
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]*")
_NO_CONSUME = "no_consume"


class GresError(ValueError):
    """A ``Gres=`` / ``--gres`` / ``--gpus`` string that does not parse; ``str()`` says why."""


@dataclass(frozen=True, slots=True)
class GresSpec:
    """One ``name[:type]:count`` item. ``type`` is ``""`` when none was given."""

    name: str
    type: str
    count: int
    no_consume: bool = False      # slurm.conf only: shared, never used up

    def __str__(self) -> str:
        return format_gres((self,))


# ---- Gres= and --gres -----------------------------------------------------------------------


def parse_count(text: str) -> int:
    """``4``, ``2K`` (x1024), ``1M`` ... as Slurm's GRES counts (suffixes are powers of 1024)."""
    match = _COUNT.fullmatch(text.strip())
    count = int(match.group(1)) * _MULTIPLIER[match.group(2).lower()] if match else -1
    if not GRES_COUNT.low <= count <= GRES_COUNT.high:
        raise GresError(f"invalid GRES count {text!r}")
    return count


def _is_count(text: str) -> bool:
    return _COUNT.fullmatch(text) is not None


def _parse_item(item: str, allow_no_consume: bool) -> GresSpec:
    fields = item.split(":")
    name = fields[0]
    if not _NAME.fullmatch(name):
        raise GresError(f"invalid GRES name in {item!r}")
    rest = fields[1:]
    no_consume = _NO_CONSUME in (f.lower() for f in rest)
    if no_consume:
        if not allow_no_consume:
            raise GresError(f"no_consume is not allowed in a request: {item!r}")
        rest = [f for f in rest if f.lower() != _NO_CONSUME]
    count = 1
    if rest and _is_count(rest[-1]):
        count = parse_count(rest.pop())
    if len(rest) > 1 or any(not f or not _NAME.fullmatch(f) for f in rest):
        raise GresError(f"invalid GRES specification {item!r}")
    return GresSpec(name=name, type=rest[0] if rest else "", count=count, no_consume=no_consume)


def _items(text: str) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


def parse_gres(text: str) -> tuple[GresSpec, ...]:
    """slurm.conf ``Gres=``: ``gpu:4``, ``gpu:a100:2,gpu:v100:1``, ``gpu:no_consume:1``.

    A missing count means 1. ``(null)`` and the empty string mean no GRES.
    """
    if text.strip().lower() in ("", "(null)", "none"):
        return ()
    return tuple(_parse_item(item, allow_no_consume=True) for item in _items(text))


def parse_gres_request(text: str) -> tuple[GresSpec, ...]:
    """A job's ``--gres``: ``gpu``, ``gpu:2``, ``gpu:a100:1``, comma lists; ``none`` for nothing.

    Slurm's ``gres:`` / ``gres/`` prefix on an item is accepted. Items asking for 0 are dropped.
    """
    if text.strip().lower() in ("", "none"):
        return ()
    specs = []
    for item in _items(text):
        for prefix in ("gres:", "gres/"):
            if item.lower().startswith(prefix):
                item = item[len(prefix):]
        spec = _parse_item(item, allow_no_consume=False)
        if spec.count:
            specs.append(spec)
    return tuple(specs)


def parse_gpu_option(text: str) -> GresSpec:
    """``--gpus`` / ``--gpus-per-node`` / ``--gpus-per-task`` value ``[type:]N`` -> a gpu spec."""
    kind, _, count = text.strip().rpartition(":")
    if not _is_count(count) or (kind and not _NAME.fullmatch(kind)):
        raise GresError(f"invalid GPU specification {text!r}")
    value = parse_count(count)
    if value < 1:
        raise GresError(f"invalid GPU count in {text!r}")
    return GresSpec(GPU, kind, value)


def _one(spec: GresSpec, count: int | None = None) -> str:
    count = spec.count if count is None else count
    flag = f":{_NO_CONSUME}" if spec.no_consume else ""
    return f"{spec.name}:{spec.type}{flag}:{count}" if spec.type else f"{spec.name}{flag}:{count}"


def format_gres(specs: Iterable[GresSpec]) -> str:
    """``gpu:2`` / ``gpu:a100:2,gpu:v100:1``, as slurm.conf ``Gres=`` and ``scontrol`` write it."""
    return ",".join(_one(s) for s in specs)


def tres_per_node(specs: Iterable[GresSpec]) -> str:
    """``gres:gpu:2`` as squeue ``%b`` (TRES_PER_NODE) and ``TresPerNode=`` show it (22.05)."""
    return ",".join(f"gres:{_one(s)}" for s in specs)


def format_tres(specs: Iterable[GresSpec]) -> str:
    """``gres/gpu=2``: counts summed per name, in order of first appearance (TRES strings)."""
    totals: dict[str, int] = {}
    for spec in specs:
        totals[spec.name] = totals.get(spec.name, 0) + spec.count
    return ",".join(f"gres/{name}={count}" for name, count in totals.items())


def format_indices(indices: Iterable[int]) -> str:
    """``0,1,3`` -> ``0-1,3`` (Slurm's bitmap notation, as in ``IDX:`` of ``GresUsed=``)."""
    runs: list[list[int]] = []
    for index in sorted(set(indices)):
        if runs and index == runs[-1][1] + 1:
            runs[-1][1] = index
        else:
            runs.append([index, index])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def gpu_slots(specs: Iterable[GresSpec]) -> tuple[str, ...]:
    """The type of each GPU of a node by global index (``0..N-1`` in ``Gres=`` order)."""
    types: list[str] = []
    for spec in specs:
        if spec.name == GPU:
            types += [spec.type] * spec.count
    return tuple(types)


def format_gres_used(configured: Iterable[GresSpec], used_gpus: Iterable[int]) -> str:
    """``GresUsed=`` of a node: ``gpu:a100:2(IDX:1,3)`` per configured item, ``gpu:0`` when idle.

    ``configured`` is the node's parsed ``Gres=``; GPU indices follow :func:`gpu_slots`. Only GPUs
    are ever allocated, so other GRES always show 0.
    """
    taken = set(used_gpus)
    parts = []
    offset = 0
    for spec in configured:
        mine: list[int] = []
        if spec.name == GPU:
            mine = [i for i in range(offset, offset + spec.count) if i in taken]
            offset += spec.count
        head = _one(GresSpec(spec.name, spec.type, len(mine)))
        parts.append(f"{head}(IDX:{format_indices(mine)})" if mine else head)
    return ",".join(parts)


def gpu_count(text: str) -> int:
    """The GPUs a node's ``Gres=`` or ``GresUsed=`` names (``gpu:a100:2``, ``gpu:2(IDX:0,1)``); 0 when
    it names none or cannot be read."""
    plain = re.sub(r"\([^)]*\)", "", text)
    try:
        return sum(spec.count for spec in parse_gres(plain) if spec.name == GPU) if plain else 0
    except GresError:
        return 0


# ---- gres.conf ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GpuDevice:
    """One GPU of a node: global index (position among the node's device files, sorted)."""

    index: int
    path: Path
    type: str


@dataclass(frozen=True, slots=True)
class NodeGres:
    """What gres.conf says about one node.

    ``autodetect``: the node agent finds the GPUs itself (``hardware.detect_gpus``): there is no
    gres.conf, or it says ``AutoDetect=nvml`` and lists no gpu ``File=`` for this node (listed
    files win over detection). ``counts`` are GRES configured without ``File=`` (count only: no
    device isolation, no CUDA_VISIBLE_DEVICES by index).
    """

    node: str
    autodetect: bool
    gpus: tuple[GpuDevice, ...] = ()
    counts: tuple[GresSpec, ...] = ()


@dataclass(frozen=True, slots=True)
class GresConfLine:
    """One gres.conf line as written (``nodes`` None: every node)."""

    path: Path
    line: int
    nodes: tuple[str, ...] | None
    name: str                 # "" on an AutoDetect-only line
    type: str
    files: tuple[str, ...]
    count: int | None         # None: not given (= number of files, or 1)
    autodetect: str           # "nvml", "off", or "" when the line does not say

    def applies_to(self, node: str) -> bool:
        return self.nodes is None or node in self.nodes

    def error(self, message: str) -> ConfigError:
        return ConfigError(self.path, self.line, message)


@dataclass(frozen=True, slots=True)
class GresConf:
    """A parsed gres.conf; :meth:`node` gives one node's view."""

    path: Path
    lines: tuple[GresConfLine, ...]

    def node(self, node_name: str) -> NodeGres:
        """Raises ConfigError at the offending line (duplicate device, Count not matching File=)."""
        mine = [line for line in self.lines if line.applies_to(node_name)]
        mode = ""
        for line in mine:
            if line.autodetect:
                mode = line.autodetect      # a later line (e.g. per NodeName) overrides an earlier one
        files: dict[str, tuple[str, GresConfLine]] = {}
        counts: list[GresSpec] = []
        for line in mine:
            if not line.name:
                continue
            if line.name == GPU and line.count is not None and line.files and line.count != len(line.files):
                # One GPU per device file (mps/shard counts, by contrast, are shares of a device).
                raise line.error(f"Count={line.count} does not match the {len(line.files)} File= devices")
            if not line.files or line.name != GPU:
                # Count-only GRES; non-GPU devices are not isolated here.
                counts.append(GresSpec(line.name, line.type, line.count if line.count is not None
                                       else max(1, len(line.files))))
                continue
            for path in line.files:
                if path in files:
                    raise line.error(f"File={path} is already configured for node {node_name}")
                files[path] = (line.type, line)
        ordered = sorted(files, key=_device_key)
        gpus = tuple(GpuDevice(i, Path(p), files[p][0]) for i, p in enumerate(ordered))
        autodetect = mode == "nvml" and not gpus
        return NodeGres(node=node_name, autodetect=autodetect, gpus=gpus, counts=tuple(counts))


_KNOWN_KEYS = frozenset({"nodename", "name", "type", "file", "count", "autodetect", "cores", "cpus",
                         "links", "flags"})
_AUTODETECT = frozenset({"NVML", "OFF"})
_DEVICE_NUMBER = re.compile(r"^(.*?)(\d+)$")


def _device_key(path: str) -> tuple[str, int]:
    # /dev/nvidia2 before /dev/nvidia10: numeric, not text, order within a prefix.
    match = _DEVICE_NUMBER.match(path)
    return (match.group(1), int(match.group(2))) if match else (path, -1)


def _count(tok: Token) -> int:
    try:
        return parse_count(tok.value)
    except GresError:
        raise tok.error(f"invalid {tok.key} value {tok.value!r}: expected a count (K/M/G/T/P suffix allowed)") \
            from None


def _warn(message: str, *args: object) -> None:
    import logging  # here, not at the top: CLIs import this module and start-up is hot

    logging.getLogger(__name__).warning(message, *args)


def _line(tokens: list[Token]) -> GresConfLine:
    values: dict[str, Token] = {}
    for tok in tokens:
        if tok.lower == "multiplefiles":
            raise tok.error("MultipleFiles (MIG) is not supported")
        if tok.lower not in _KNOWN_KEYS:
            _warn("%s", tok.unrecognized())
            continue
        values[tok.lower] = tok
    first = tokens[0]
    nodes = values["nodename"].as_hostlist() if "nodename" in values else None
    autodetect = values["autodetect"].as_choice(_AUTODETECT).lower() if "autodetect" in values else ""
    name = values["name"].value if "name" in values else ""
    gres_keys = {"type", "file", "count"} & values.keys()
    if not name and gres_keys:
        raise first.error(f"Name= is required with {', '.join(sorted(k.capitalize() for k in gres_keys))}")
    if not name and not autodetect:
        raise first.error("a gres.conf line needs Name= (or is a lone AutoDetect=)")
    if name and not _NAME.fullmatch(name):
        raise values["name"].error(f"invalid Name value {name!r}")
    files: tuple[str, ...] = ()
    if "file" in values:
        files = tuple(values["file"].as_hostlist())
        if not files or any(not f.startswith("/") for f in files):
            raise values["file"].error(f"invalid File value {values['file'].value!r}: expected absolute paths")
    return GresConfLine(
        path=Path(first.path), line=first.line, nodes=tuple(nodes) if nodes is not None else None, name=name,
        type=values["type"].value if "type" in values else "", files=files,
        count=_count(values["count"]) if "count" in values else None, autodetect=autodetect,
    )


def parse_gres_conf(path: Path) -> GresConf:
    """Read gres.conf (and its Includes); raises ConfigError with file:line on invalid lines."""
    return GresConf(path=path, lines=tuple(_line(tokens) for tokens in read_conf(path)))


def load_gres_conf(path: Path, node_name: str) -> NodeGres:
    """The GPUs gres.conf gives ``node_name``; a missing gres.conf means AutoDetect."""
    if not path.exists():
        return NodeGres(node=node_name, autodetect=True)
    return parse_gres_conf(path).node(node_name)


def node_gres_from_devices(node_name: str, devices: Sequence[tuple[Path, str]]) -> NodeGres:
    """An autodetected node: ``(device path, type)`` pairs, indexed in sorted device order."""
    ordered = sorted(devices, key=lambda d: _device_key(str(d[0])))
    return NodeGres(node=node_name, autodetect=True,
                    gpus=tuple(GpuDevice(i, path, kind) for i, (path, kind) in enumerate(ordered)))
