"""Job priority (pyslurm_ctld/sched/priority.py, priority_settings.py): spec scheduling-policy.md §3.1
and config-slurm-conf.md. Expected values are worked out by hand from the spec's formulas."""
from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path
from typing import Any

import pytest

from pyslurm_common.config import ConfigError, load_config
from pyslurm_ctld.model.job import Hold, Job, JobId, Reason
from pyslurm_ctld.sched.priority import (BASIC_PRIORITY_CEILING, PriorityContext, basic_priority, job_priority,
                                         weighted)
from pyslurm_ctld.settings.priority_settings import PrioritySettings, priority_settings
from tests.builders import job_request

DAY = 86400
REQUEST = job_request(partition="batch", account="physics", qos="normal", min_nodes=2, num_tasks=4,
                      ntasks_given=True, mem_per_node_mb=1000, time_limit_min=60, std_out="o", std_err="e", script="",
                      gpus_per_node=1)
WEIGHTS = PrioritySettings(priority_type="priority/multifactor", weight_age=1000, weight_assoc=100,
                           weight_fairshare=10000, weight_job_size=2000, weight_partition=500, weight_qos=3000)
# 4 nodes of 4 CPUs; partitions with job factors 2 and 4; QOS priorities 10 and 40.
CONTEXT = PriorityContext(
    total_nodes=4, total_cpus=16, partition_factors={"batch": 2, "big": 4},
    qos_priorities={"normal": 10, "high": 40}, association_priorities={("physics", "alice", ""): 5,
                                                                       ("chem", "bob", ""): 10},
    fairshare={("physics", "alice", ""): 0.6},
    partition_tres={"batch": {"cpu": 16, "mem": 16000, "node": 4, "gres/gpu": 8}},
)


def job(**request: Any) -> Job:
    changes = {k: v for k, v in request.items() if k not in ("reason", "eligible_time", "hold")}
    return Job(job_id=JobId(7), request=dataclasses.replace(REQUEST, **changes), uid=1000, gid=1000,
               user_name="alice", group_name="alice", submit_time=0,
               eligible_time=request.get("eligible_time", 0 if request.get("hold") else 1),
               reason=request.get("reason", Reason.PRIORITY), hold=request.get("hold", Hold.NONE))


def test_every_factor_by_hand() -> None:
    now = 1 + DAY * 7 // 2                      # half of PriorityMaxAge (7 days) since eligible
    factors = job_priority(job(nice=50), WEIGHTS, CONTEXT, now)
    assert factors.age == pytest.approx(0.5)
    assert factors.job_size == pytest.approx((2 / 4 + 4 / 16) / 2)     # 0.375: favor large
    assert factors.partition_factor == pytest.approx(0.5)             # 2 / 4
    assert factors.qos == pytest.approx(0.25)                         # 10 / 40
    assert factors.assoc == pytest.approx(0.5)                        # 5 / 10
    assert factors.fairshare == pytest.approx(0.6)
    # 500 + 750 + 250 + 750 + 50 + 6000 - 50
    assert factors.priority == 8250
    assert factors.nice == 50
    assert weighted(factors, WEIGHTS)["job_size"] == pytest.approx(750)


def test_all_weights_zero_gives_priority_one() -> None:
    settings = PrioritySettings(priority_type="priority/multifactor")
    assert job_priority(job(), settings, CONTEXT, 10 * DAY).priority == 1


def test_favor_small_and_small_relative_to_time() -> None:
    small = dataclasses.replace(WEIGHTS, favor_small=True)
    assert job_priority(job(), small, CONTEXT, 1).job_size == pytest.approx(((4 - 2) / 4 + (16 - 4) / 16) / 2)
    relative = dataclasses.replace(WEIGHTS, flags=frozenset({"SMALL_RELATIVE_TO_TIME"}))
    # max(4 cpus, 2 nodes x 16/4 cpus) / 60 min / 16 cpus
    assert job_priority(job(), relative, CONTEXT, 1).job_size == pytest.approx(8 / 60 / 16)


def test_no_age_while_held_dependent_or_before_begin() -> None:
    for reason in (Reason.DEPENDENCY, Reason.BEGIN_TIME):
        assert job_priority(job(reason=reason), WEIGHTS, CONTEXT, 3 * DAY).age == 0
    assert job_priority(job(hold=Hold.USER, reason=Reason.HELD_USER), WEIGHTS, CONTEXT, 3 * DAY).age == 0
    accrue = dataclasses.replace(WEIGHTS, flags=frozenset({"ACCRUE_ALWAYS"}))
    assert job_priority(job(reason=Reason.DEPENDENCY), accrue, CONTEXT, 1 + 7 * DAY).age == 1.0
    assert job_priority(job(), WEIGHTS, CONTEXT, 1 + 70 * DAY).age == 1.0      # capped at 1


def test_tres_factors_against_the_partition() -> None:
    settings = dataclasses.replace(WEIGHTS, weight_tres=(("cpu", 1000.0), ("gres/gpu", 3000.0)))
    factors = job_priority(job(), settings, CONTEXT, 1)
    assert factors.tres == (("cpu", pytest.approx(4 / 16)), ("gres/gpu", pytest.approx(2 / 8)))
    without = job_priority(job(), WEIGHTS, CONTEXT, 1).priority
    assert factors.priority == without + 250 + 750


def test_no_normal_flags_use_raw_values() -> None:
    raw = dataclasses.replace(WEIGHTS, weight_qos=1, flags=frozenset({"NO_NORMAL_QOS"}))
    assert job_priority(job(), raw, CONTEXT, 1).qos == 10


def test_fixed_priority_and_clamp() -> None:
    fixed = job_priority(job(), WEIGHTS, CONTEXT, 1, admin_priority=1234)
    assert (fixed.priority, fixed.fixed, fixed.age) == (1234, True, 0)
    assert job_priority(job(nice=10**9), WEIGHTS, CONTEXT, 1).priority == 1
    huge = dataclasses.replace(WEIGHTS, weight_fairshare=2**33)
    assert job_priority(job(), huge, CONTEXT, 1).priority == 2**32 - 1


def test_basic_priority_counts_down_from_the_ceiling() -> None:
    assert basic_priority(1) == BASIC_PRIORITY_CEILING - 1 == 4294901759
    assert basic_priority(BASIC_PRIORITY_CEILING + 5) == 1


# ---- slurm.conf keys ----------------------------------------------------------------------

def conf(tmp_path: Path, text: str) -> PrioritySettings:
    path = tmp_path / "slurm.conf"
    path.write_text("ClusterName=lab\nSlurmctldHost=head\n" + textwrap.dedent(text))
    return priority_settings(load_config(path))


def test_defaults_are_slurm_22_05s(tmp_path: Path) -> None:
    settings = conf(tmp_path, "")
    assert settings.priority_type == "priority/basic" and not settings.multifactor
    assert (settings.max_age_s, settings.decay_half_life_s, settings.calc_period_s) == (7 * DAY, 7 * DAY, 300)
    assert settings.fair_tree and not settings.favor_small


def test_keys_parsed(tmp_path: Path) -> None:
    settings = conf(tmp_path, """\
        PriorityType=priority/multifactor
        PriorityWeightAge=1000
        PriorityWeightFairshare=10000
        PriorityWeightTRES=CPU=1000,Mem=2000,GRES/gpu=3000
        PriorityMaxAge=1-0
        PriorityDecayHalfLife=0
        PriorityCalcPeriod=2
        PriorityFavorSmall=YES
        PriorityFlags=NO_FAIR_TREE,ACCRUE_ALWAYS
        PriorityUsageResetPeriod=DAILY
        """)
    assert settings.multifactor and not settings.fair_tree and settings.favor_small
    assert (settings.weight_age, settings.weight_fairshare, settings.weight_qos) == (1000, 10000, 0)
    assert settings.weight_tres == (("cpu", 1000.0), ("mem", 2000.0), ("gres/gpu", 3000.0))
    assert (settings.max_age_s, settings.decay_half_life_s, settings.calc_period_s) == (DAY, 0, 120)
    assert settings.usage_reset_period == "DAILY" and "ACCRUE_ALWAYS" in settings.flags


@pytest.mark.parametrize("line", ["PriorityType=priority/fancy", "PriorityWeightAge=lots",
                                  "PriorityWeightTRES=CPU", "PriorityMaxAge=soon",
                                  "PriorityUsageResetPeriod=HOURLY"])
def test_bad_values_name_the_key(tmp_path: Path, line: str) -> None:
    with pytest.raises(ConfigError, match=line.split("=")[0]):
        conf(tmp_path, line + "\n")
