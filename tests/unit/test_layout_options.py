"""Per-GPU, disk, overcommit and layout options (cli/layout_options.py): Slurm's checks and
wording (real sbatch 22.05.8), and the JobDesc fields the controller sizes the job by."""
from __future__ import annotations

import pytest

from cli import job_options
from cli.app import CliError
from cli.command_line import collect, command_line
from cli.option_tables import sbatch
from pyslurm_ctld.sched import node_fit
from pyslurm_ctld.translate.convert import request_from_desc


def desc_of(*args: str):  # type: ignore[no-untyped-def]
    return job_options.job_desc(collect(sbatch, command_line(sbatch, list(args)), {}), "wrap", {})


def refused(*args: str) -> tuple[str, ...]:
    with pytest.raises(CliError) as info:
        desc_of(*args)
    return info.value.lines


def test_fields_reach_the_job_description() -> None:
    desc = desc_of("--mem-per-gpu=2G", "--cpus-per-gpu=3", "--tmp=10G", "-O", "--ntasks-per-core=1",
                   "--ntasks-per-socket=2", "--hint=nomultithread", "-m", "cyclic:block,Pack",
                   "--ntasks-per-node=2", "--gpu-bind=closest")
    assert (desc.mem_per_gpu_mb, desc.cpus_per_gpu, desc.tmp_disk_mb, desc.overcommit, desc.ntasks_per_core,
            desc.ntasks_per_socket, desc.threads_per_core, desc.distribution, desc.ntasks_per_node) == (
        2048, 3, 10240, True, 1, 2, 1, "cyclic:block,pack", 2)   # -m as Slurm prints it back
    assert desc_of("--hint=multithread").threads_per_core == 0
    assert desc_of("--threads-per-core=2").threads_per_core == 2


@pytest.mark.parametrize("args, message", [
    (("--hint=bogus",), 'unrecognized --hint argument "bogus", see --hint=help'),
    (("--distribution=bogus",), "Invalid --distribution specification"),
    (("--gres-flags=bogus",), "Invalid --gres-flags specification"),
    (("--wait-all-nodes=2",), "Invalid --wait-all-nodes specification"),
    (("--gpu-bind=bogus",), "Invalid --gpu-bind argument: gpu:bogus"),
    (("--mem=1", "--mem-per-gpu=1"), "--mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive."),
    (("--mem=1", "--mem-per-cpu=1"), "--mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive."),
])
def test_slurms_refusals(args: tuple[str, ...], message: str) -> None:
    assert refused(*args) == (message,)


@pytest.mark.parametrize(("given", "shown"), [   # real sbatch 22.05.8 -v's "distribution" line
    ("nopack", "nopack"), ("NOPACK", "nopack"), ("pack", "pack"), ("pack,pack", "pack"), ("hostfile", "arbitrary"),
    ("block:fcyclic,Pack", "block:fcyclic,pack"), ("*:*:*", "block:cyclic:cyclic"), ("cyclic:*", "cyclic:cyclic"),
    ("block:fcyclic:*", "block:fcyclic:fcyclic"), ("Cyclic:Block:FCyclic", "cyclic:block:fcyclic"),
    ("plane=02", "plane=2"), ("PLANE=3", "plane=3"), ("block::cyclic", "block:cyclic"), ("block,", "block"),
    ("*", "block"),
])
def test_distribution_read_and_shown_as_slurm(given: str, shown: str) -> None:
    from cli.defined_options import defined_options

    values = collect(sbatch, command_line(sbatch, ["-m", given, "--wrap", "true"]), {})
    job_options.settle_options("sbatch", values)
    assert f"{'distribution':<20}: {shown}" in defined_options(sbatch.OPTIONS, values, "/w")
    assert desc_of("-m", given).distribution == shown


@pytest.mark.parametrize(("given", "lines"), [   # real sbatch 22.05.8
    ("arbitrary:cyclic", ("Invalid --distribution specification",)),
    ("block:block:block:block", ("Invalid --distribution specification",)),
    ("block,pack,nopack", ("Invalid --distribution specification",)), (",pack", ("Invalid --distribution specification",)),
    ("plane=2,pack", ("Invalid plane size or size not specified", "Invalid --distribution specification")),
])
def test_distribution_refused_as_slurm(given: str, lines: tuple[str, ...]) -> None:
    assert refused("-m", given) == lines


def test_hint_help_prints_the_hints_and_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        desc_of("--hint=help")
    assert info.value.code == 1 and capsys.readouterr().out.startswith("Application hint options:\n")


def test_licenses_and_reservation_travel_as_given_for_admission_to_check() -> None:
    request = request_from_desc(desc_of("-L", "matlab:2,fluent", "--reservation=maint"))
    assert (request.licenses, request.reservation) == ("matlab:2,fluent", "maint")


def test_the_scheduler_sizes_the_job_by_them() -> None:
    req = request_from_desc(desc_of("-n4", "--mem-per-gpu=2G", "--cpus-per-gpu=3", "--tmp=1G"))
    import dataclasses

    need = node_fit.job_need(dataclasses.replace(req, gpus_per_node=2), def_mem_per_cpu_mb=100)
    assert (need.cpus_per_node, need.memory_mb_per_node, need.tmp_disk_mb) == (6, 4096, 1024)
    overcommitted = node_fit.job_need(request_from_desc(desc_of("-n4", "-O")), def_mem_per_cpu_mb=100)
    assert overcommitted.cpus_per_node == 1
    node = node_fit.NodeCapacity(name="n1", usable=True, cpus=8, memory_mb=8192, free_cpu_ids=frozenset(range(8)),
                                  free_memory_mb=8192, tmp_disk_mb=512)
    assert not node_fit.could_ever_fit(node, node_fit.job_need(req, 100))


def test_ntasks_per_gpu_derives_the_gpus_as_slurm_generates_them() -> None:
    desc = desc_of("-n4", "--ntasks-per-gpu=2")
    assert (desc.ntasks_per_gpu, desc.gpus) == (2, 2)
    assert desc_of("-n2", "--ntasks-per-gpu=2", "--gres=gpu:1").gpus == 0   # the --gres count stands
    assert refused("--ntasks-per-gpu=2") == (
        "gres_job_state_validate: --ntasks-per-tres needs either a GRES GPU specification or a node/ntask "
        "specification", "Invalid generic resource (gres) specification")
    # Without -n (Slurm's gres_job_state_validate): the GPUs asked for times --ntasks-per-gpu, even
    # over -n; else a fixed -N's tasks per node, which set the GPUs (tasks / tasks per GPU, rounded down).
    assert (desc_of("--ntasks-per-gpu=2", "--gpus=2").num_tasks, desc_of("--ntasks-per-gpu=2", "--gpus=2").gpus) == (4, 2)
    assert desc_of("-n8", "--ntasks-per-gpu=2", "--gpus=1").num_tasks == 2
    assert desc_of("--ntasks-per-gpu=2", "-N2", "--gpus-per-node=2").num_tasks == 8
    assert desc_of("--ntasks-per-gpu=2", "--gres=gpu:3").num_tasks == 6
    one_node = desc_of("--ntasks-per-gpu=2", "-N1")
    assert (one_node.num_tasks, one_node.gpus) == (2, 1)
    assert (desc_of("--ntasks-per-gpu=2", "-n5").gpus, desc_of("--ntasks-per-gpu=2", "-n5").num_tasks) == (2, 5)
    assert refused("--ntasks-per-gpu=2", "-N1-2")[0].endswith("needs either a GRES GPU specification or a "
                                                             "node/ntask specification")
    assert refused("-n2", "--ntasks-per-gpu=2", "--gpus-per-task=1") == (
        "--gpus-per-task is mutually exclusive with --ntasks-per-gpu and SLURM_NTASKS_PER_GPU",)


@pytest.mark.parametrize("args, message, code", [    # real sbatch 22.05.8's words and exit codes
    (("-n", "x"), 'Invalid numeric value "x" for --ntasks.', 1),
    (("-n", "0"), 'Invalid numeric value "0" for --ntasks.', 1),
    (("-c", "x"), 'Invalid numeric value "x" for --cpus-per-task.', 1),
    (("--ntasks-per-node=<",), 'Invalid numeric value "<" for --ntasks-per-node.', 1),
    (("-n", "99999999999999999999"), "Numeric argument (9223372036854775807) to big for --ntasks.", 1),
    (("-N", "x"), '"x" is not a valid node count', 255),
    (("-N", "4294967295"), '"4294967295" is not a valid node count', 255),
    (("-N", "2-1"), "Maximum node count 1 is less than minimum node count 2", 255),
    (("--threads-per-core=x",), 'Invalid numeric value "x" for --threads-per-core.', 1),
    (("--wait-all-nodes=x",), 'Invalid numeric value "x" for --wait-all-nodes.', 1),
])
def test_numbers_refused_in_slurms_words(args: tuple[str, ...], message: str, code: int) -> None:
    with pytest.raises(CliError) as info:
        desc_of(*args)
    assert (info.value.lines, info.value.exit_code) == ((message,), code)


def test_node_count_zero_and_ranges_as_slurm_takes_them() -> None:
    assert (desc_of("-N", "0").min_nodes, desc_of("-N", "2-4").min_nodes) == (0, 2)
