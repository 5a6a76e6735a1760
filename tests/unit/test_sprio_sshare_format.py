"""sprio and sshare output (cli/sprio_format.py, cli/sshare_fields.py): spec
cli-sacct-sacctmgr-sprio-sshare.md §4 and §5."""
from __future__ import annotations

from cli import print_fields, sprio_format, sshare_fields
from pyslurm_common.rpc import messages as pb

WEIGHTS = pb.PriorityWeights(age=1000, fairshare=10000, qos=2000)
JOB = pb.PriorityFactorsInfo(job_id=42, user_name="alice", partition="debug", priority=11534, age=0.25,
                             fairshare=1.0, qos=0.5, nice=0,
                             tres=[pb.TresFactor(name="cpu", factor=0.25, weight=1000)])


def test_default_format_follows_the_weights() -> None:
    fmt = sprio_format.default_format(WEIGHTS, long=False, normalized=False, users=False)
    assert fmt == "%.15i %9r %.10Y %.10S %.10A %.10F %.10Q"
    lines = sprio_format.render(sprio_format.parse_format(fmt), [JOB], WEIGHTS)
    assert lines == ["          JOBID PARTITION   PRIORITY       SITE        AGE  FAIRSHARE        QOS",
                     "             42 debug          11534          0        250      10000       1000"]


def test_weights_row_and_user_column() -> None:
    fmt = sprio_format.default_format(WEIGHTS, long=False, normalized=False, users=True)
    lines = sprio_format.render(sprio_format.parse_format(fmt), [JOB], WEIGHTS, weights_only=True)
    # JOBID %.15i, PARTITION %9r, USER %.8u, PRIORITY %.10Y blank; SITE's weight is 1.
    assert lines[1] == "Weights".rjust(15) + " " * 9 + " " * 10 + " " * 11 + "".join(
        f" {w:>10}" for w in (1, 1000, 10000, 2000))


def test_normalized_and_long() -> None:
    fmt = sprio_format.default_format(WEIGHTS, long=False, normalized=True, users=False)
    line = sprio_format.render(sprio_format.parse_format(fmt), [JOB], WEIGHTS, header=False)[0]
    assert line.split() == ["42", "debug", f"{11534 / 0xFFFFFFFF:16.14f}"[:10], "0", "0.2500000", "1.0000000",
                            "0.5000000"]
    long = sprio_format.parse_format(sprio_format.LONG_FORMAT)
    cells = sprio_format.render(long, [JOB], WEIGHTS, header=False)[0].split()
    assert cells[-2:] == ["0", "cpu=250"]


def test_sshare_default_layout() -> None:
    rows = [pb.ShareInfo(account="root", depth=0, norm_shares=0.0, raw_usage=600.4, effective_usage=1.0),
            pb.ShareInfo(account="physics", depth=1, raw_shares=2, norm_shares=2 / 3, raw_usage=600,
                         effective_usage=1.0, level_fs=2 / 3),
            pb.ShareInfo(account="physics", user="alice", depth=2, raw_shares=1, norm_shares=1.0, raw_usage=600,
                         effective_usage=1.0, fairshare=0.5, level_fs=1.0)]
    widths = {name: f.width for name, f in sshare_fields.FIELDS.items()}
    columns = print_fields.parse_field_list(sshare_fields.default_fields(True, False, False), widths)
    def line(account: str, user: str, raw: str, norm: str, usage: str, effective: str, factor: str) -> str:
        cells = (account.ljust(20), user.rjust(10), raw.rjust(10), norm.rjust(11), usage.rjust(11),
                 effective.rjust(13), factor.rjust(10))
        return "".join(cell + " " for cell in cells)

    assert print_fields.render_records(sshare_fields.FIELDS, columns, rows) == [
        "Account                    User  RawShares  NormShares    RawUsage  EffectvUsage  FairShare ",
        "-------------------- ---------- ---------- ----------- ----------- ------------- ---------- ",
        line("root", "", "", "0.000000", "600", "1.000000", ""),
        line(" physics", "", "2", "0.666667", "600", "1.000000", ""),
        line("  physics", "alice", "1", "1.000000", "600", "1.000000", "0.500000"),
    ]
    long = sshare_fields.default_fields(True, True, False)
    assert long[-5:] == ["EffectvUsage", "FairShare", "LevelFS", "GrpTRESMins", "TRESRunMins"]
    assert "LevelFS" not in sshare_fields.default_fields(False, True, False)
