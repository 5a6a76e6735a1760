"""-o/-e/-i filename patterns (pyslurm_common/filename_pattern.py), spec cli-sbatch-srun-salloc.md §1.6."""
from __future__ import annotations

import pytest

from pyslurm_common.filename_pattern import NO_VAL, PatternContext, expand, resolve, step_array_ids

BATCH = PatternContext(job_id=128, job_name="train", user_name="alice", node_name="gpu03")
ARRAY_TASK = PatternContext(job_id=671, job_name="sweep", user_name="bob", node_name="n1",
                            array_job_id=669, array_task_id=2)
STEP = PatternContext(job_id=128, job_name="train", user_name="alice", node_name="gpu04", step="0",
                      task_rank=3, node_index=1)


@pytest.mark.parametrize(("pattern", "ctx", "expected"), [
    ("%%", BATCH, "%"),
    ("%j", BATCH, "128"),
    ("%j", ARRAY_TASK, "671"),                 # an array task's own id
    ("%x", BATCH, "train"),
    ("%u", BATCH, "alice"),
    ("%A", BATCH, "128"),                      # not an array job: the job id
    ("%A", ARRAY_TASK, "669"),
    ("%a", BATCH, str(NO_VAL)),
    ("%a", ARRAY_TASK, "2"),
    ("%N", BATCH, "gpu03"),
    ("%n", BATCH, "0"),
    ("%n", STEP, "1"),
    ("%s", BATCH, "batch"),
    ("%s", STEP, "0"),
    ("%t", BATCH, "0"),
    ("%t", STEP, "3"),
    ("%J", BATCH, "128"),                      # batch script: just the job id
    ("%J", STEP, "128.0"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_each_token(pattern: str, ctx: PatternContext, expected: str) -> None:
    assert expand(pattern, ctx) == expected


def test_no_val_is_slurms() -> None:
    assert NO_VAL == 4294967294


def test_default_and_array_defaults() -> None:
    assert expand("slurm-%j.out", BATCH) == "slurm-128.out"
    assert expand("slurm-%A_%a.out", ARRAY_TASK) == "slurm-669_2.out"


def test_tokens_combine_with_literal_text() -> None:
    assert expand("%u/%x-%j.%N.log", BATCH) == "alice/train-128.gpu03.log"
    assert expand("100%%-%j%%", BATCH) == "100%-128%"
    assert expand("%%j", BATCH) == "%j"        # a literal percent, then a plain `j`


@pytest.mark.parametrize(("pattern", "ctx", "expected"), [
    ("job%4j.out", BATCH, "job0128.out"),
    ("%2t", BATCH, "00"),
    ("%2t", STEP, "03"),
    ("%3n", STEP, "001"),
    ("%6A_%3a", ARRAY_TASK, "000669_002"),
    ("%2j", BATCH, "128"),                     # never truncated
])
def test_a_number_zero_pads_numeric_values(pattern: str, ctx: PatternContext, expected: str) -> None:
    assert expand(pattern, ctx) == expected


@pytest.mark.parametrize(("pattern", "expected"), [
    ("%8x", "train"), ("%8u", "alice"), ("%8N", "gpu03"), ("%8s", "batch")])
def test_padding_is_ignored_for_non_numeric_tokens(pattern: str, expected: str) -> None:
    assert expand(pattern, BATCH) == expected


def test_a_backslash_disables_all_substitution() -> None:
    assert expand("\\%j-%x.out", BATCH) == "%j-%x.out"
    assert expand("out%j\\.txt", BATCH) == "out%j.txt"     # anywhere in the pattern
    assert expand("%%\\", BATCH) == "%%"


def test_relative_paths_are_joined_to_the_work_dir() -> None:
    assert resolve("slurm-%j.out", BATCH, "/home/alice/run") == "/home/alice/run/slurm-128.out"
    assert resolve("logs/%x.out", BATCH, "/home/alice/") == "/home/alice/logs/train.out"
    assert resolve("/scratch/%u/%j.out", BATCH, "/home/alice") == "/scratch/alice/128.out"
    assert resolve("/dev/null", BATCH, "/home/alice") == "/dev/null"
    assert resolve("\\%j", BATCH, "/w") == "/w/%j"


def test_padding_stops_at_ten_digits() -> None:
    """Slurm's documented cap: a larger number pads to 10 (a huge one must not crash the controller)."""
    assert expand("%20j", BATCH) == "0000000128"
    assert expand("%99999999999999999999j.out", BATCH) == "0000000128.out"


def test_a_step_of_an_array_task_takes_its_array_ids_from_the_task_environment() -> None:
    env = {"SLURM_JOB_ID": "7", "SLURM_ARRAY_JOB_ID": "5", "SLURM_ARRAY_TASK_ID": "2"}
    ctx = PatternContext(job_id=7, job_name="x", user_name="alice", step="0", **step_array_ids(7, env))
    assert expand("%A_%a_%t.out", ctx) == "5_2_0.out"
    assert step_array_ids(8, env) == {}                       # variables inherited from another job
    assert step_array_ids(7, {"SLURM_JOB_ID": "7"}) == {}
    assert step_array_ids(7, dict(env, SLURM_ARRAY_TASK_ID="9" * 30))["array_task_id"] == NO_VAL
