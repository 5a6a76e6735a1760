"""srun --prolog / --epilog (default: SrunProlog / SrunEpilog of slurm.conf; "none": neither):
programs srun itself runs, as the user running srun, just before the step is launched and just
after it ends, with the step's command line as their arguments (srun(1)).

They see srun's environment with the job's variables (SLURM_JOB_ID, SLURM_NODELIST,
SLURM_NTASKS ...) and SLURM_SCRIPT_CONTEXT=prolog_srun|epilog_srun, as Slurm's do. pyslurm's
controller creates and launches a step in one call, so the prolog runs before the step exists:
it sees no SLURM_STEP_ID (the epilog does); a failing prolog ends srun before anything is
launched, where Slurm aborts the created step's launch.
"""
from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence

TYPE_CHECKING = False   # typing's constant without importing typing: CLI start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any


def script_path(values: Mapping[str, Any], dest: str, conf_key: str) -> str | None:
    """The program to run, None when there is none (or "none")."""
    path = values.get(dest)
    if path is None:
        from pyslurm_common.client_settings import conf_value

        path = conf_value(conf_key)
    path = str(path or "")
    return None if not path or path.lower() == "none" else path


def job_variables(job_id: int, nodelist: str, nodes: int, tasks: int, step_id: int | None = None) -> dict[str, str]:
    """The job's and step's variables srun has set in its own environment by the time it runs them."""
    env = {"SLURM_JOB_ID": str(job_id), "SLURM_JOBID": str(job_id), "SLURM_NODELIST": nodelist,
           "SLURM_JOB_NODELIST": nodelist, "SLURM_NNODES": str(nodes), "SLURM_JOB_NUM_NODES": str(nodes)}
    if tasks:
        env.update({"SLURM_NTASKS": str(tasks), "SLURM_NPROCS": str(tasks)})
    if step_id is not None:
        env.update({"SLURM_STEP_ID": str(step_id), "SLURM_STEPID": str(step_id)})
    return env


def run_script(path: str, context: str, argv: Sequence[str], variables: Mapping[str, str]) -> int:
    """Run one of them and wait: its exit status; 0 for one srun may not run (Slurm's info line)."""
    if not os.access(path, os.R_OK | os.X_OK):
        try:
            os.stat(path)
            why = "Permission denied"
        except OSError as exc:
            why = exc.strerror or "No such file or directory"
        print(f"srun: Access denied for {path}: {why}", file=sys.stderr)
        return 0
    import subprocess   # here: most sruns run neither script, and its import costs each of them

    env = dict(os.environ, **variables, SLURM_SCRIPT_CONTEXT=context)
    try:
        return subprocess.run([path, *argv], env=env, check=False).returncode & 0xFF
    except OSError as exc:
        print(f"srun: error: Failed to execute srun prolog/epilog script: {exc.strerror}", file=sys.stderr)
        return 127


def run_prolog(values: Mapping[str, Any], argv: Sequence[str], variables: Mapping[str, str]) -> bool:
    """Whether the step may go on; a failing prolog says so in Slurm's words."""
    path = script_path(values, "prolog", "SrunProlog")
    if path is None:
        return True
    status = run_script(path, "prolog_srun", argv, variables)
    if status:
        print(f"srun: error: srun prolog failed rc = {status}. Aborting step.", file=sys.stderr)
    return status == 0


def run_epilog(values: Mapping[str, Any], argv: Sequence[str], variables: Mapping[str, str]) -> None:
    path = script_path(values, "epilog", "SrunEpilog")
    if path is not None and (status := run_script(path, "epilog_srun", argv, variables)):
        print(f"srun: error: srun epilog failed status={status}", file=sys.stderr)

