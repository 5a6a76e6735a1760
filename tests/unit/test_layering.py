"""The import boundaries, read from the source (ast; nothing is imported or run).

* The daemons' packages never import each other (they talk over the wire only), and the shared
  package imports no daemon.
* The commands (cli) import only the shared package and themselves.
* Inside the controller, each module belongs to one layer and imports only its own layer and
  those below it. A new module must be given a layer here: that is the moment to decide where it
  belongs (ARCHITECTURE.md draws the picture).
"""
from __future__ import annotations

import ast
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

# The controller's layers, top to bottom: a module may import its own layer and those below.
# A name is a module of pyslurm_ctld or a subpackage (every module under it).
CONTROLLER_LAYERS: tuple[tuple[str, frozenset[str]], ...] = (
    ("daemon", frozenset({"__init__", "daemon", "failover"})),
    ("rpc", frozenset({"servicer", "config_report", "metrics", "explain", "auth_tokens"})),
    ("shell", frozenset({"controller", "journal", "journal_replay", "accounting_outbox", "node_link", "notifier",
                         "association_cache", "gpu_idle_actions", "job_notices", "shell_ports", "allocating_client"})),
    ("translate", frozenset({"convert", "job_env", "job_mail", "node_events", "job_info_cache"})),
    ("core", frozenset({"core", "job_control", "job_priorities", "node_reconcile", "partition_admin",
                        "reconfigure", "time_limit_update", "gpu_idle", "step_layout", "dependency_checks"})),
    # The pass (pass_plan) and the accounting limits it shares with admission (limits,
    # association_checks) sit below the core, so a plan needs no ClusterState.
    ("sched", frozenset({"pass_plan", "scheduler", "backfill", "node_fit", "preemption", "priority", "fairshare",
                         "features", "sched_params", "priority_settings", "license_gate", "reservation_fence",
                         "limits", "association_checks"})),
    ("model", frozenset({"job", "job_table", "events", "nodes", "associations", "dependency", "states", "job_steps",
                         "preempt_transitions", "statistics", "reservations"})),
)


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
    """The index of a controller module's layer (0 is the top); None outside the controller."""
    parts = module.split(".")
    if parts[0] != "pyslurm_ctld" or len(parts) < 2:
        return None
    for index, (_, members) in enumerate(CONTROLLER_LAYERS):
        if parts[1] in members:
            return index
    raise AssertionError(f"{module} is in no layer: add it to CONTROLLER_LAYERS in {Path(__file__).name}")


def test_every_controller_module_has_a_layer() -> None:
    for module in _modules("pyslurm_ctld"):
        assert _layer_of(module) is not None


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
    ("from . import scheduler", "pyslurm_ctld.core.apply", {"pyslurm_ctld.core.scheduler"}),
    ("from ..job import Job", "pyslurm_ctld.core.apply", {"pyslurm_ctld.job.Job"}),
    ("from .. import events", "pyslurm_ctld.core.apply", {"pyslurm_ctld.events"}),
    ("import pyslurm_d.hardware", "pyslurm_common.quickstart", {"pyslurm_d.hardware"}),
])
def test_relative_imports_resolve(tmp_path: Path, source: str, module: str, expected: set[str]) -> None:
    path = tmp_path / "mod.py"
    path.write_text(source + "\n")
    assert _imports(module, path) == expected


def test_an_upward_import_is_caught() -> None:
    """The check can fail: a model module importing the shell is reported."""
    assert _layer_of("pyslurm_ctld.controller.Controller") < _layer_of("pyslurm_ctld.job")  # type: ignore[operator]
    assert _crosses("pyslurm_ctld.servicer", "pyslurm_d.hardware")
    assert not _crosses("cli.sbatch", "pyslurm_common.config")
    assert _crosses("cli.sbatch", "pyslurm_ctld.job")
    assert _crosses("pyslurm_common.config", "cli.sbatch")



def test_no_two_controller_modules_import_each_other() -> None:
    """A pair that imports each other (the scheduler and backfill once did, through a deferred
    import) is one concern split in two or a shared vocabulary not yet given its own module."""
    modules = set(_modules("pyslurm_ctld"))
    edges: set[tuple[str, str]] = set()
    for module, imported in _all_imports():
        target = imported if imported in modules else imported.rsplit(".", 1)[0]
        if module in modules and target in modules and target != module:
            edges.add((module, target))
    mutual = sorted({tuple(sorted(edge)) for edge in edges if edge[::-1] in edges})
    assert not mutual, mutual
