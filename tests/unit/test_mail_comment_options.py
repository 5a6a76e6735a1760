"""--mail-type/--mail-user/--comment: parsed as Slurm's sbatch does, carried into the JobDesc and
shown by scontrol (Comment=, MailUser= MailType=), the mail user defaulting to the job's user."""
from __future__ import annotations

import pytest

from cli import job_options
from cli.app import CliError
from cli.command_line import collect, command_line
from pyslurm_common.mail_types import normalise_mail_type
from cli.option_tables import sbatch


@pytest.mark.parametrize("given, shown", [
    ("end,FAIL", "END,FAIL"), ("FAIL,BEGIN", "BEGIN,FAIL"), ("ALL", "INVALID_DEPEND,BEGIN,END,FAIL,REQUEUE,STAGE_OUT"),
    ("TIME_LIMIT,ARRAY_TASKS", "ARRAY_TASKS,TIME_LIMIT"), ("fail,none", "NONE"),
])
def test_mail_type_reads_and_prints_as_slurm(given: str, shown: str) -> None:   # shown: real sbatch -v
    assert normalise_mail_type(given) == shown


def desc_of(args: list[str]):  # type: ignore[no-untyped-def]
    values = collect(sbatch, command_line(sbatch, args), {})
    return job_options.job_desc(values, "wrap", {})


def test_the_options_reach_the_job_description() -> None:
    desc = desc_of(["--mail-type=end,fail", "--mail-user", "a@b", "--comment", "a b"])
    assert (desc.mail_type, desc.mail_user, desc.comment) == ("END,FAIL", "a@b", "a b")
    assert desc_of(["--mail-type=NONE"]).mail_type == ""


def test_an_unknown_mail_type_is_refused_with_exit_255() -> None:
    with pytest.raises(CliError) as info:
        desc_of(["--mail-type=bogus"])
    assert (info.value.lines, info.value.exit_code) == (("Invalid --mail-type specification",), 255)


def test_values_slurms_client_takes() -> None:
    # --gpus=0 asks for none; --gpus-per-task needs no -n (the controller counts a task per node);
    # --time=2- is two days; --array takes brackets.
    from cli.defined_options import defined_options
    from pyslurm_common.array_spec import parse_array_spec
    from pyslurm_common.units import parse_time_limit

    assert desc_of(["--gpus=0"]).gpus == 0
    assert desc_of(["--gpus-per-task=1"]).gpus_per_task == 1
    assert parse_time_limit("2-") == 2 * 24 * 60
    assert parse_array_spec("[1-4]%2").indices == (1, 2, 3, 4)
    values = collect(sbatch, command_line(sbatch, ["-v", "--mail-type=begin", "--mail-type=end", "-t", "2-"]), {},
                     [("mail_type", "fail")])
    assert defined_options(sbatch.OPTIONS, values, "/w")[2:-2] == [
        "mail-type           : BEGIN,END,FAIL", "time                : 2-00:00:00", "verbose             : 1"]
