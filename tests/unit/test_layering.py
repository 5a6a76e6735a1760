"""The import boundaries, read from the source (ast; nothing is imported or run).

* The daemons' packages never import each other (they talk over the wire only), and the shared
  package imports no daemon.
* The commands (cli) import only the shared package and themselves.
* Inside the controller, each module belongs to the layer of the folder it sits in
  (pyslurm_ctld/rpc/, shell/, translate/, core/, sched/, settings/, model/) and imports only its
  own layer and those below it; only the composition root (daemon.py) sits at the top. Where a
  new file is put is the moment to decide its layer (ARCHITECTURE.md draws the picture).
"""
from __future__ import annotations

import ast
import graphlib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DAEMONS = ("pyslurm_ctld", "pyslurm_d", "pyslurm_dbd", "pyslurm_restd")
SHARED = "pyslurm_common"
PACKAGES = (*DAEMONS, SHARED, "cli")

# Imports that cross a boundary today, each with why. This list only shrinks.
KNOWN_CROSSINGS = {
    # pyslurm-quickstart writes a first slurm.conf from this machine's hardware, which the node
    # agent's detector reads; it runs once, before any daemon.
    ("pyslurm_common.quickstart", "pyslurm_d.hardware"),
}

# The controller's layers, top to bottom: a module may import its own layer and those below. A
# module's layer is the subpackage it sits in (pyslurm_ctld/<layer>/...), so a new file's folder
# is its layer. Only the composition root sits at the top of the package.
CONTROLLER_LAYERS: tuple[tuple[str, frozenset[str]], ...] = (
    ("daemon", frozenset({"__init__", "daemon", "failover"})),   # modules at the top, not folders
    ("rpc", frozenset({"rpc"})),
    ("shell", frozenset({"shell"})),
    ("translate", frozenset({"translate"})),
    ("core", frozenset({"core"})),
    # The pass (sched/pass_plan.py) and the accounting limits it shares with admission
    # (sched/limits.py, sched/association_checks.py) sit below the core, so a plan needs no
    # ClusterState.
    ("sched", frozenset({"sched"})),
    ("model", frozenset({"model"})),
    # slurm.conf's controller settings, parsed once: typed values every layer may read.
    ("settings", frozenset({"settings"})),
)
_ROOT_LAYER = CONTROLLER_LAYERS[0][1]


def _modules(package: str) -> dict[str, Path]:
    root = REPO / package
    return {".".join((package, *path.relative_to(root).with_suffix("").parts)): path
            for path in sorted(root.rglob("*.py"))}


def _imports(module: str, path: Path) -> set[str]:
    """Every module `module` imports, absolute, with `from x import name` read as x.name (name
    may be a function: callers match prefixes)."""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            target = ".".join([*base, *(node.module.split(".") if node.module else [])])
            found.update(f"{target}.{alias.name}" for alias in node.names)
    return found


def _all_imports() -> list[tuple[str, str]]:
    return [(module, imported) for package in PACKAGES for module, path in _modules(package).items()
            for imported in _imports(module, path)]


def _crosses(module: str, imported: str) -> bool:
    """Whether `module` importing `imported` crosses a package boundary."""
    own, other = module.split(".")[0], imported.split(".")[0]
    if other not in PACKAGES or other == own:
        return False
    return own == SHARED or other != SHARED   # everyone may import the shared package


def test_packages_import_only_the_shared_package() -> None:
    crossings = {(module, imported) for module, imported in _all_imports() if _crosses(module, imported)}
    assert crossings <= KNOWN_CROSSINGS, sorted(crossings - KNOWN_CROSSINGS)


def _layer_of(module: str) -> int | None:
    """The index of a controller module's layer (0 is the top): its folder's, or the root's for
    the composition root's modules; None outside the controller."""
    parts = module.split(".")
    if parts[0] != "pyslurm_ctld" or len(parts) < 2:
        return None
    if parts[1] in _ROOT_LAYER:
        return 0
    for index, (_, folders) in enumerate(CONTROLLER_LAYERS[1:], start=1):
        if parts[1] in folders:
            return index
    raise AssertionError(f"{module} is in no layer's folder: move it into one of "
                         f"{sorted(set().union(*(folders for _, folders in CONTROLLER_LAYERS[1:])))} "
                         f"(or name a new folder in CONTROLLER_LAYERS in {Path(__file__).name})")


def test_every_controller_module_sits_in_a_layer_folder() -> None:
    for module, path in _modules("pyslurm_ctld").items():
        assert _layer_of(module) is not None
        if path.parent == REPO / "pyslurm_ctld":
            assert path.stem in _ROOT_LAYER, f"{path.name}: only the composition root sits at the top"


def test_controller_layers_import_only_layers_below() -> None:
    upward = []
    for module, imported in _all_imports():
        own = _layer_of(module)
        target = _layer_of(imported) if imported.startswith("pyslurm_ctld.") else None
        if own is not None and target is not None and target < own:
            upward.append(f"{module} ({CONTROLLER_LAYERS[own][0]}) imports {imported} "
                          f"({CONTROLLER_LAYERS[target][0]})")
    assert not upward, "\n".join(upward)


@pytest.mark.parametrize("source, module, expected", [
    ("from . import state", "pyslurm_ctld.core.apply", {"pyslurm_ctld.core.state"}),
    ("from ..model.job import Job", "pyslurm_ctld.core.apply", {"pyslurm_ctld.model.job.Job"}),
    ("from ..model import events", "pyslurm_ctld.core.apply", {"pyslurm_ctld.model.events"}),
    ("import pyslurm_d.hardware", "pyslurm_common.quickstart", {"pyslurm_d.hardware"}),
])
def test_relative_imports_resolve(tmp_path: Path, source: str, module: str, expected: set[str]) -> None:
    path = tmp_path / "mod.py"
    path.write_text(source + "\n")
    assert _imports(module, path) == expected


def test_an_upward_import_is_caught() -> None:
    """The check can fail: a model module importing the shell is reported."""
    assert _layer_of("pyslurm_ctld.shell.controller.Controller") < _layer_of("pyslurm_ctld.model.job")  # type: ignore[operator]
    assert _crosses("pyslurm_ctld.rpc.servicer", "pyslurm_d.hardware")
    assert not _crosses("cli.sbatch", "pyslurm_common.config")
    assert _crosses("cli.sbatch", "pyslurm_ctld.model.job")
    assert _crosses("pyslurm_common.config", "cli.sbatch")
    with pytest.raises(AssertionError, match="no layer's folder"):
        _layer_of("pyslurm_ctld.helpers.anything")



def _controller_import_graph() -> dict[str, set[str]]:
    modules = set(_modules("pyslurm_ctld"))
    graph: dict[str, set[str]] = {module: set() for module in modules}
    for module, imported in _all_imports():
        target = imported if imported in modules else imported.rsplit(".", 1)[0]
        if module in modules and target in modules and target != module:
            graph[module].add(target)
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle of the graph as the chain of modules it passes; empty when there is none."""
    try:
        tuple(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as error:
        return list(error.args[1])
    return []


def test_no_import_cycles_in_the_controller() -> None:
    """No chain of controller modules imports back to where it started (the scheduler and
    backfill once imported each other, through a deferred import): a cycle is one concern split
    in two or a shared vocabulary not yet given its own module."""
    cycle = _cycle(_controller_import_graph())
    assert not cycle, " -> ".join(cycle)


def test_a_cycle_is_caught() -> None:
    graph = _controller_import_graph()
    assert "pyslurm_ctld.model.events" in graph["pyslurm_ctld.core.apply"]
    graph["pyslurm_ctld.model.events"].add("pyslurm_ctld.core.apply")   # a model module importing apply
    assert set(_cycle(graph)) >= {"pyslurm_ctld.model.events", "pyslurm_ctld.core.apply"}
