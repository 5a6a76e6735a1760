"""sacctmgr setting values as the accounting daemon parses them (pyslurm_dbd.settings)."""

from __future__ import annotations

import pytest

from pyslurm_dbd.association_models import SHARES_PARENT
from pyslurm_dbd.settings import (ASSOCIATION_KEYS, QOS_KEYS, SettingError, merge_list, parse_admin_level,
                                  parse_count, parse_fairshare, parse_minutes, parse_qos_flags, parse_seconds,
                                  parse_tres, tres_table)


@pytest.mark.parametrize(("text", "stored"), [
    ("cpu=4", "cpu=4"),
    ("node=2,CPU=8,mem=1G", "cpu=8,mem=1024,node=2"),
    ("gres/gpu=2,billing=3,mem=500", "mem=500,billing=3,gres/gpu=2"),
    ("license/matlab=1,gres/gpu=1", "gres/gpu=1,license/matlab=1"),
    ("cpu=4,mem=-1", "cpu=4"),
    ("-1", None),
    ("mem=-1", None),
])  # fmt: skip
def test_tres_lists_are_canonical_in_tres_id_order(text: str, stored: str | None) -> None:
    assert parse_tres(text) == stored


@pytest.mark.parametrize("text", ["cpu", "gpu=2", "cpu=x", "mem=4Q", "cpu=-3"])
def test_bad_tres_is_refused(text: str) -> None:
    with pytest.raises(SettingError):
        parse_tres(text)


def test_numbers_durations_and_clearing() -> None:
    assert (parse_count("5"), parse_count("-1")) == (5, None)
    assert (parse_minutes("1-00:00:00"), parse_minutes("90"), parse_minutes("2:00:00"), parse_minutes("-1")) == (
        1440, 90, 120, None)
    assert (parse_seconds("120"), parse_seconds("00:02:00"), parse_seconds("1-00:00:01"), parse_seconds("-1")) == (
        120, 120, 86401, None)
    assert (parse_fairshare("parent"), parse_fairshare("10"), parse_fairshare("-1")) == (SHARES_PARENT, 10, 1)
    for parse, text in ((parse_count, "many"), (parse_minutes, "soon"), (parse_seconds, "1:2")):
        with pytest.raises(SettingError):
            parse(text)


def test_admin_levels_and_qos_flags_take_slurms_spellings() -> None:
    assert [parse_admin_level(t) for t in ("none", "Operator", "admin", "ADMINISTRATOR")] == [
        "None", "Operator", "Administrator", "Administrator"]
    assert parse_qos_flags("denyonlimit,NoDecay,denyonlimit") == "DenyOnLimit,NoDecay"
    with pytest.raises(SettingError, match="Unknown QOS flag 'Fast'"):
        parse_qos_flags("Fast")
    with pytest.raises(SettingError):
        parse_admin_level("root")


def test_key_aliases_map_to_one_column() -> None:
    assert ASSOCIATION_KEYS["share"] is ASSOCIATION_KEYS["fairshare"]
    assert ASSOCIATION_KEYS["maxsubmit"].column == ASSOCIATION_KEYS["maxsubmitjobs"].column == "max_submit"
    assert ASSOCIATION_KEYS["maxwalldurationperjob"].column == "max_wall"
    assert QOS_KEYS["maxtrespu"].column == QOS_KEYS["maxtresperuser"].column == "max_tres_per_user"
    assert QOS_KEYS["usagefactor"].parse("-1") == 1.0


def test_list_operators() -> None:
    assert merge_list("normal,high", "=", "low") == "low"
    assert merge_list("normal", "+=", "high,normal") == "normal,high"
    assert merge_list("normal,high", "-=", "normal") == "high"


def test_tres_table_fixed_ids_then_configured_ones() -> None:
    assert tres_table("") == [("cpu", "", 1), ("mem", "", 2), ("energy", "", 3), ("node", "", 4),
                              ("billing", "", 5), ("fs", "disk", 6), ("vmem", "", 7), ("pages", "", 8)]
    assert tres_table("cpu, gres/GPU,license/matlab,gres/gpu")[8:] == [("gres", "gpu", 1001), ("license", "matlab", 1002)]


@pytest.mark.parametrize(("parse", "text"), [
    (parse_count, "99999999999999999999"), (parse_count, "4294967294"), (parse_fairshare, "99999999999999999999"),
    (parse_minutes, "99999999999999999999"), (parse_seconds, "99999999999999999999"),
    (parse_seconds, "99999999999-00:00:00"), (parse_tres, "cpu=99999999999999999999"),
    (parse_tres, "mem=99999999999999999999999"),
])  # fmt: skip
def test_numbers_beyond_what_the_records_hold_are_refused(parse: object, text: str) -> None:
    with pytest.raises(SettingError):
        parse(text)  # type: ignore[operator]
