"""The options sbatch, srun and salloc share (cli/job_options.py): the submitting command line."""

from __future__ import annotations

from cli import job_options


def test_submit_line_names_the_command_not_its_path() -> None:
    assert job_options.submit_line(["/opt/pyslurm/bin/sbatch", "-N", "2", "--wrap", "sleep 1"]) == \
        "sbatch -N 2 --wrap sleep 1"
    assert job_options.submit_line(["srun"]) == "srun"
    assert job_options.submit_line([]) == ""
