"""Hostlist expansion and compression, against the spec tables (config-slurm-conf.md §2)."""

from __future__ import annotations

import random

import pytest

from pyslurm_common.hostlist import MAX_HOSTS, HostlistError, compress, expand

# --- expansion: spec table ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expr", "names"),
    [
        ("node[01-03,12]", ["node01", "node02", "node03", "node12"]),
        ("gpu-a[1-2]-[3-4]", ["gpu-a1-3", "gpu-a1-4", "gpu-a2-3", "gpu-a2-4"]),
        (
            "rack[0-1]_blade[0-2]",
            ["rack0_blade0", "rack0_blade1", "rack0_blade2", "rack1_blade0", "rack1_blade1", "rack1_blade2"],
        ),
        ("node[9-11]", ["node9", "node10", "node11"]),
        ("node[009-011]", ["node009", "node010", "node011"]),
        ("x[1-3],y", ["x1", "x2", "x3", "y"]),
    ],
)
def test_expand_spec_table(expr: str, names: list[str]) -> None:
    assert expand(expr) == names


def test_expand_single_group_with_suffix_is_invalid() -> None:
    with pytest.raises(HostlistError) as info:
        expand("n[1-3]x")
    assert str(info.value) == "Invalid hostlist: n[1-3]x"


def test_hostlist_error_is_a_value_error() -> None:
    assert issubclass(HostlistError, ValueError)


# --- expansion: more cases -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expr", "names"),
    [
        ("localhost", ["localhost"]),
        ("", []),
        ("a,,b,", ["a", "b"]),
        ("n[5]", ["n5"]),
        ("n[05]", ["n05"]),
        ("n[08-10]", ["n08", "n09", "n10"]),
        ("[1-3]", ["1", "2", "3"]),
        ("n[1,1-2]", ["n1", "n1", "n2"]),  # duplicates kept
        ("n[3,1]", ["n3", "n1"]),  # order kept
        ("a[1-2]b[1-2]c", ["a1b1c", "a1b2c", "a2b1c", "a2b2c"]),  # text after several groups
        ("10.0.0.[1-2]", ["10.0.0.1", "10.0.0.2"]),
        ("  node[1-2]  ", ["node1", "node2"]),
        ("n[0-1],m[2-3]", ["n0", "n1", "m2", "m3"]),
    ],
)
def test_expand_more(expr: str, names: list[str]) -> None:
    assert expand(expr) == names


@pytest.mark.parametrize(
    "expr",
    ["n[", "n]", "n[]", "n[a-b]", "n[3-1]", "n[1-2-3]", "n[1,,2]", "n[-1]", "n[[1]]", "n[1-]",
     "n[1]x", "a b", "n[1-2]]"],
)
def test_expand_invalid(expr: str) -> None:
    with pytest.raises(HostlistError) as info:
        expand(expr)
    assert str(info.value) == f"Invalid hostlist: {expr}"


def test_expand_refuses_huge_ranges() -> None:
    with pytest.raises(HostlistError):
        expand(f"n[0-{MAX_HOSTS * 4}]")
    with pytest.raises(HostlistError):
        expand("n[0-1023]-[0-1023]-[0-3]")


# --- compression: spec table -----------------------------------------------------------------

# input, scontrol show hostlist (order kept, no dedup), scontrol show hostlistsorted
SPEC_COMPRESSION = [
    ("a1,a2,a3,b7,a5", "a[1-3],b7,a5", "a[1-3,5],b7"),
    ("node9,node10,node11", "node[9-11]", "node[9-11]"),
    ("node009,node010,node2", "node[009-010,2]", "node[2,009-010]"),
    ("n01,n1,n2", "n[01,1-2]", "n[1-2,01]"),
    ("gpu-a1-3,gpu-a1-4,gpu-a2-3", "gpu-a1-[3-4],gpu-a2-3", "gpu-a1-[3-4],gpu-a2-3"),
    ("node1,node1,node2", "node[1,1-2]", "node[1,1-2]"),
    ("c,b,a", "c,b,a", "a,b,c"),
]


@pytest.mark.parametrize(("names", "unsorted", "sorted_"), SPEC_COMPRESSION)
def test_compress_show_hostlist(names: str, unsorted: str, sorted_: str) -> None:
    assert compress(names.split(","), sort=False) == unsorted


@pytest.mark.parametrize(("names", "unsorted", "sorted_"), SPEC_COMPRESSION)
def test_compress_show_hostlistsorted(names: str, unsorted: str, sorted_: str) -> None:
    assert compress(names.split(","), sort=True, unique=False) == sorted_


def test_compress_daemon_form_deduplicates() -> None:
    # What squeue %N / SLURM_JOB_NODELIST print: sorted, compressed, each node once.
    assert compress(["node1", "node1", "node2"]) == "node[1-2]"
    assert compress(["a1", "a2", "a3", "b7", "a5"]) == "a[1-3,5],b7"
    assert compress(["n2", "n1", "n2"]) == "n[1-2]"


def test_compress_unsorted_can_deduplicate() -> None:
    assert compress(["b", "a", "b"], sort=False, unique=True) == "b,a"


# --- compression: more cases -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        ([], ""),
        (["localhost"], "localhost"),
        (["node5"], "node5"),
        (["node1", "node3"], "node[1,3]"),
        (["node09", "node10"], "node[09-10]"),  # 10 prints as itself at width 2
        (["node099", "node100"], "node[099-100]"),
        (["node9", "node010"], "node[9,010]"),
        (["n0", "n1"], "n[0-1]"),
        (["a", "a1"], "a,a1"),
        (["x1", "y1", "x2"], "x[1-2],y1"),
        (["rack0_blade0", "rack0_blade1", "rack1_blade0"], "rack0_blade[0-1],rack1_blade0"),
        (["10", "11", "12"], "[10-12]"),
    ],
)
def test_compress_more(names: list[str], expected: str) -> None:
    assert compress(names) == expected


@pytest.mark.parametrize("bad", ["", "a,b", "n[1]", "a b"])
def test_compress_rejects_unrepresentable_names(bad: str) -> None:
    with pytest.raises(HostlistError):
        compress(["ok", bad])


def test_compress_accepts_any_iterable() -> None:
    assert compress(f"n{i}" for i in (3, 1, 2)) == "n[1-3]"


# --- round trips -----------------------------------------------------------------------------


def _random_names(rng: random.Random) -> list[str]:
    names = []
    for _ in range(rng.randint(0, 25)):
        prefix = rng.choice(["n", "node", "gpu-a1-", "x", ""])
        number = rng.randint(0, 120)
        width = rng.choice([0, 0, 2, 3])
        digits = f"{number:0{width}d}" if width else str(number)
        names.append(rng.choice([prefix + digits, prefix + digits, "login"]) or "z")
    return names


@pytest.mark.parametrize("seed", range(200))
def test_round_trip(seed: int) -> None:
    names = _random_names(random.Random(seed))
    assert expand(compress(names, sort=False)) == names
    assert sorted(expand(compress(names))) == sorted(set(names))
    assert len(expand(compress(names, unique=False))) == len(names)
