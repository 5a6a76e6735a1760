"""sacctmgr's pure parts: the command words, show fields and layouts, change reports."""

from __future__ import annotations

import pytest

from cli import sacctmgr_args, sacctmgr_fields
from cli.print_fields import FormatError, render
from cli.sacctmgr import report_lines
from cli.sacctmgr_args import ArgumentError, Spec
from pyslurm_common.rpc import messages as pb


def test_add_collects_names_and_settings() -> None:
    req = sacctmgr_args.parse(["create", "accounts", "physics,chem", "Parent=root", "Description=Physics dept"])
    assert (req.command, req.entity, req.names) == ("add", "account", ["physics", "chem"])
    assert req.set == [Spec("Parent", "=", "root"), Spec("Description", "=", "Physics dept")]


def test_modify_splits_where_and_set_with_list_operators() -> None:
    req = sacctmgr_args.parse(["update", "user", "bob", "where", "account=phys", "set", "QOS+=high", "MaxJobs=-1"])
    assert (req.command, req.entity) == ("modify", "user")
    assert req.where == [Spec("name", "=", "bob"), Spec("account", "=", "phys")]
    assert req.set == [Spec("QOS", "+=", "high"), Spec("MaxJobs", "=", "-1")]


def test_show_takes_format_and_flags() -> None:
    req = sacctmgr_args.parse(["list", "assoc", "where", "user=bob", "format=Account,User", "WOLimits"])
    assert (req.command, req.entity, req.format, req.wo_limits) == ("show", "association", "Account,User", True)
    assert req.where == [Spec("user", "=", "bob")]
    assert sacctmgr_args.parse(["show", "users", "withassoc"]).with_assoc


@pytest.mark.parametrize(("words", "message"), [
    (["show"], " You need to specify a command and an entity (e.g. 'show user')"),
    (["frobnicate", "user"], " Invalid command 'frobnicate'"),
    (["show", "us"], " Unknown entity 'us'"),
    (["modify", "user", "bob"], " You didn't give me anything to set"),
    (["add", "user", "bob", "set", "x=1"], " Keyword 'set' is only valid with modify: set"),
    (["modify", "qos", "set", "Priority=1", "extra"], " Unknown option: extra"),
])  # fmt: skip
def test_bad_words(words: list[str], message: str) -> None:
    with pytest.raises(ArgumentError) as err:
        sacctmgr_args.parse(words)
    assert str(err.value) == message


def _show(entity: str, spec: str, rows: list[sacctmgr_fields.Row], with_assoc: bool = False) -> list[str]:
    names, columns = sacctmgr_fields.columns(entity, spec, with_assoc, False)
    return render(columns, (sacctmgr_fields.values(entity, names, with_assoc, r) for r in rows))


def _assoc(**fields: object) -> "pb.AssociationRecord":
    return pb.AssociationRecord(**fields)


def test_default_assoc_header_matches_slurm() -> None:
    lines = _show("association", "", [])
    assert lines[0] == ("   Cluster    Account       User  Partition     Share   Priority GrpJobs       GrpTRES"
                        " GrpSubmit     GrpWall   GrpTRESMins MaxJobs       MaxTRES MaxTRESPerNode MaxSubmit"
                        "     MaxWall   MaxTRESMins                  QOS   Def QOS GrpTRESRunMin ")  # cut to width 13


def test_assoc_values_durations_tres_and_parent_share() -> None:
    record = _assoc(key=pb.AssociationKey(cluster="lab", account="phys", user="bob"), shares=0x7FFFFFFF,
                    limits=pb.Limits(max_wall=1500, max_tres="cpu=4,mem=2048", max_jobs=3),
                    qos=["normal", "high"], default_qos="high")
    row = sacctmgr_fields.Row(None, record)
    assert _show("association", "Account,User,Share,MaxWall,MaxTRES,MaxJobs,GrpJobs,QOS,DefaultQOS", [row])[2] == (
        "      phys        bob    parent  1-01:00:00  cpu=4,mem=2G       3                  high,normal      high ")


def test_user_and_qos_defaults() -> None:
    user = sacctmgr_fields.Row(pb.UserRecord(name="alice", default_account="bio", admin_level="Administrator"))
    assert _show("user", "", [user]) == ["      User   Def Acct     Admin ", "---------- ---------- --------- ",
                                         "     alice        bio Administ+ "]
    qos = sacctmgr_fields.Row(pb.QosRecord(name="normal", usage_factor=1.0, preempt_mode="cluster"))
    line = _show("qos", "Name,Priority,GraceTime,PreemptMode,UsageFactor,MaxWall", [qos])[2]
    assert line == "    normal          0   00:00:00     cluster    1.000000             "


def test_format_names_match_by_prefix_and_unknown_is_an_error() -> None:
    names, columns = sacctmgr_fields.columns("user", "user,def%-12,adm", False, False)
    assert names == ["User", "DefaultAccount", "AdminLevel"]
    assert [(c.name, c.width) for c in columns] == [("User", 10), ("Def Acct", -12), ("Admin", 9)]
    with pytest.raises(FormatError, match='Invalid field requested: "colour"'):
        sacctmgr_fields.columns("qos", "colour", False, False)


def _result(**fields: object) -> "pb.AssociationChangeResult":
    return pb.AssociationChangeResult(**fields)


def test_add_user_report() -> None:
    result = _result(names=["bob"], settings=[pb.Setting(key="Default Account", value="physics")],
                     limits=[pb.Setting(key="MaxJobs", value="5")],
                     associations=[pb.AssociationKey(cluster="anchor", account="physics", user="bob", partition="gpu")])
    assert report_lines("add", "user", result) == [
        " Adding User(s)", "  bob", " Settings =", "  Default Account = physics", " Associations =",
        "  U = bob       A = physics    C = anchor     P = gpu       ", " Non Default Settings",
        "  MaxJobs         = 5"]


def test_modify_and_delete_reports() -> None:
    assoc = pb.AssociationKey(cluster="anchor", account="physics", user="bob")
    assert report_lines("modify", "user", _result(associations=[assoc])) == [
        " Modified user associations...", "  C = anchor     A = physics              U = bob      "]
    assert report_lines("delete", "user", _result(names=["bob"], associations=[assoc])) == [
        " Deleting users...", "  bob"]
    assert report_lines("delete", "qos", _result(names=["high"])) == [" Deleting QOS(s)...", "  high"]


def test_show_tres_layout() -> None:
    assert sacctmgr_args.parse(["show", "tres"]).entity == "tres"
    rows = [sacctmgr_fields.Row(pb.TresRecord(type="cpu", id=1)),
            sacctmgr_fields.Row(pb.TresRecord(type="fs", name="disk", id=6)),
            sacctmgr_fields.Row(pb.TresRecord(type="gres", name="gpu", id=1001))]
    assert _show("tres", "", rows) == ["    Type            Name     ID ", "-------- --------------- ------ ",
                                       "     cpu                      1 ", "      fs            disk      6 ",
                                       "    gres             gpu   1001 "]


def test_show_assoc_tree_indents_accounts_by_depth() -> None:
    def assoc(account: str, parent: str = "", user: str = "") -> "pb.AssociationRecord":
        return _assoc(key=pb.AssociationKey(cluster="lab", account=account, user=user), parent_account=parent, shares=1)

    listed = [assoc("root"), assoc("root", "root", "root"), assoc("phys", "root"), assoc("phys", "phys", "bob"),
              assoc("theory", "phys")]
    assert sacctmgr_fields.tree_depths(listed) == [0, 1, 1, 2, 2]
    assert sacctmgr_args.parse(["show", "assoc", "tree"]).tree
    names, columns = sacctmgr_fields.columns("association", "Account,User", False, False, tree=True)
    rows = [sacctmgr_fields.Row(None, a, d) for a, d in zip(listed, sacctmgr_fields.tree_depths(listed), strict=True)]
    expected = [("root", ""), (" root", "root"), (" phys", ""), ("  phys", "bob"), ("  theory", "")]
    assert render(columns, (sacctmgr_fields.values("association", names, False, r) for r in rows)) == [
        "Account                    User ", "-------------------- ---------- ",
        *(f"{account:<20} {user:>10} " for account, user in expected)]


def test_coordinator_words_headings_and_withcoord_columns() -> None:
    from cli import sacctmgr_coordinators as coordinators

    add = sacctmgr_args.parse(["add", "coord", "account=lab,other", "names=Bob"])
    assert coordinators.heading(add) == [" Adding Coordinator User(s)", "  bob", " To Account(s) and all sub-accounts",
                                         "  lab", "  other"]
    assert coordinators.heading(sacctmgr_args.parse(["remove", "coordinator", "user=bob"])) == [
        " Removing Coordinators with user name", "  bob", " From all accounts"]
    assert coordinators.heading(sacctmgr_args.parse(["delete", "coordinator", "account=lab"])) == [
        " Removing all users from Accounts", "  lab"]
    assert coordinators.removed([("benchuser", "bench")]) == [
        " Removed Coordinators (sub accounts not listed)...", "  U = benchuser A = bench     "]
    show = sacctmgr_args.parse(["show", "user", "withcoord", "withassoc"])
    names, _ = sacctmgr_fields.columns("user", "", show.with_assoc, False, with_coord=show.with_coord)
    assert names[:5] == ["User", "DefaultAccount", "AdminLevel", "Coordinators", "Cluster"]
    names, _ = sacctmgr_fields.columns("account", "", True, False, with_coord=True)
    assert names[-1] == "Coordinators"   # Slurm puts it last on accounts
    user = pb.UserRecord(name="bob", default_account="lab", admin_level="None", coord_accounts=["lab", "sub"])
    assert _show("user", "User,Coordinators", [sacctmgr_fields.Row(user)]) == [
        "      User       Coord Accounts ", "---------- -------------------- ", "       bob              lab,sub "]
