"""The options sbatch, srun and salloc share (cli/job_options.py): the submitting command line."""

from __future__ import annotations

import pytest

from cli import job_options
from cli.app import CliError


def test_submit_line_names_the_command_not_its_path() -> None:
    assert job_options.submit_line(["/opt/pyslurm/bin/sbatch", "-N", "2", "--wrap", "sleep 1"]) == \
        "sbatch -N 2 --wrap sleep 1"
    assert job_options.submit_line(["srun"]) == "srun"
    assert job_options.submit_line([]) == ""


@pytest.mark.parametrize(("given", "shown"), [   # real sbatch 22.05.8 -v's "nodes" line
    ("-3", "1-3"), ("0-3", "0-3"), ("1k", "1024"), ("3-0", "3-0"), ("2-2", "2"), ("02-4", "2-4"), ("0", "0"),
    (" 4", "4"),
])
def test_node_counts_read_and_shown_as_slurm(given: str, shown: str) -> None:
    from cli.command_line import collect, command_line
    from cli.defined_options import defined_options
    from cli.option_tables import sbatch

    values = collect(sbatch, command_line(sbatch, [f"-N{given}", "--wrap", "true"]), {})
    assert f"{'nodes':<20}: {shown}" in defined_options(sbatch.OPTIONS, values, "/w")
    assert job_options.positive_int(values, "nodes", "--nodes") == int(shown.split("-")[0])


@pytest.mark.parametrize(("given", "error"), [   # real sbatch 22.05.8, exit 255
    ("2-", "Maximum node count -1 is less than minimum node count 2"),
    ("-", "Maximum node count -1 is less than minimum node count 1"),
    ("1--3", "Maximum node count -3 is less than minimum node count 1"),
    ("1-3x", '"3x" is not a valid node count'), ("3x", '"3x" is not a valid node count'),
    ("x-3", '"x" is not a valid node count'),
])
def test_node_counts_refused_in_slurms_words(given: str, error: str) -> None:
    with pytest.raises(CliError) as refused:
        job_options.node_range(given)
    assert (refused.value.lines, refused.value.exit_code) == ((error,), 255)


@pytest.mark.parametrize(("prog", "argv", "nodes", "nodelist", "error"), [   # real sbatch, salloc, srun 22.05.8 -v
    ("sbatch", ["-N2-5", "-w", "n[1-3]"], "3-5", "n[1-3]", None),
    ("sbatch", ["-N1", "-w", "n1,n1"], "1", "n1,n1", None),
    ("sbatch", ["-N5", "-w", "n[1-3]"], "5", "n[1-3]", None),
    ("sbatch", ["-N1", "-w", "localhost,n2"], None, None, "invalid number of nodes (-N 2-1)"),
    ("salloc", ["-N1-1", "-w", "n[1-3],n1"], None, None, "invalid number of nodes (-N 3-1)"),
    ("srun", ["-N2-5", "-w", "n[1-3]"], "3-5", "n[1-3]", None),
    ("srun", ["-N2", "-w", "n[1-3]"], "2", "n[1-2]",
     "srun: error: Required nodelist includes more nodes than permitted by max-node count (3 > 2). "
     "Eliminating nodes from the nodelist."),
    ("srun", ["-N1", "-w", "n1,n1"], "1", "n1",
     "srun: error: Required nodelist includes more nodes than permitted by max-node count (2 > 1). "
     "Eliminating nodes from the nodelist."),
])
def test_nodes_and_nodelist_as_slurms_option_checks(prog: str, argv: list[str], nodes: str | None,
                                                    nodelist: str | None, error: str | None,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    import importlib

    from cli.command_line import collect, command_line

    spec = importlib.import_module(f"cli.option_tables.{prog}")
    values = collect(spec, command_line(spec, [*argv, "true"]), {})
    if nodes is None:
        with pytest.raises(CliError) as refused:
            job_options.nodes_and_nodelist(prog, values)
        assert (refused.value.lines, refused.value.exit_code) == ((error,), 1)
        return
    job_options.nodes_and_nodelist(prog, values)
    assert (values["nodes"], values["nodelist"]) == (nodes, nodelist)
    assert capsys.readouterr().err == (f"{error}\n" if error else "")
