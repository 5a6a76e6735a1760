"""sacctmgr against the real accounting daemon: add/modify/delete/show with Slurm's messages and
layouts, the commit prompt, and AdminLevel rights (root, Operator, a plain user)."""
from __future__ import annotations

import re

import pytest

from .conftest import Cluster, wait_for


@pytest.fixture(autouse=True, scope="module")
def accounting_up(cluster: Cluster) -> None:
    """The fixture waits for the nodes, not for the accounting daemon (still migrating its schema)."""
    wait_for(lambda: cluster.run("sacctmgr", "-n", "show", "cluster").returncode == 0)


def _mgr(cluster: Cluster, *args: str, user: str | None = None, input: str | None = None):  # type: ignore[no-untyped-def]
    return cluster.run("sacctmgr", *args, user=user, input=input)


def test_add_account_prints_slurms_report_and_refuses_a_second_add(cluster: Cluster) -> None:
    name = cluster.spec.cluster_name
    out = _mgr(cluster, "-i", "add", "account", "physics", "Description=Physics dept", "Organization=science")
    assert out.returncode == 0, out.stderr
    assert out.stdout == (
        " Adding Account(s)\n  physics\n Settings\n  Description     = Physics dept\n"
        "  Organization    = science\n Associations\n"
        f"  A = physics    C = {name:<10.10}\n"
    )
    again = _mgr(cluster, "-i", "add", "account", "physics")
    assert (again.returncode, again.stdout) == (1, " Nothing new added.\n")
    shown = _mgr(cluster, "show", "account", "physics")
    assert shown.stdout.splitlines() == [
        "   Account                Descr                  Org ",
        "---------- -------------------- -------------------- ",
        "   physics         Physics dept              science ",
    ]


def test_add_user_and_show_associations_in_tree_order(cluster: Cluster) -> None:
    name = cluster.spec.cluster_name
    _mgr(cluster, "-i", "add", "account", "chem", "Parent=root")
    _mgr(cluster, "-i", "add", "account", "organic", "Parent=chem", "MaxJobs=7")
    out = _mgr(cluster, "-i", "add", "user", "bob", "Account=organic", "MaxWall=2:00:00")
    assert out.returncode == 0, out.stderr
    assert out.stdout == (
        " Adding User(s)\n  bob\n Settings =\n  Default Account = organic\n Associations =\n"
        f"  U = bob       A = organic    C = {name:<10.10}\n"
        " Non Default Settings\n  MaxWall         = 2:00:00\n"
    )
    shown = _mgr(cluster, "-n", "-P", "show", "assoc", "where", "account=chem,organic",
                 "format=Account,User,MaxJobs,MaxWall,QOS")
    assert shown.stdout.splitlines() == ["chem||||normal", "organic||7||normal", "organic|bob||02:00:00|normal"]
    tree = _mgr(cluster, "-n", "-P", "show", "assoc", "tree", "account=chem,organic", "format=Account,User")
    assert tree.stdout.splitlines() == ["chem|", " organic|", "  organic|bob"]
    user = _mgr(cluster, "-p", "show", "user", "bob", "withassoc", "format=User,DefaultAccount,Account,MaxWall")
    assert user.stdout.splitlines() == ["User|Def Acct|Account|MaxWall|", "bob|organic|organic|02:00:00|"]


def test_commit_prompt_discards_unless_answered_y(cluster: Cluster) -> None:
    no = _mgr(cluster, "add", "qos", "scratch", input="n\n")
    assert no.returncode == 0, no.stderr
    assert no.stdout == (
        " Adding QOS(s)\n  scratch\n Settings\n  Description    = QOS Name\n"
        "Would you like to commit changes? (You have 30 seconds to decide)\n(N/y): \n Changes Discarded\n"
    )
    assert _mgr(cluster, "-n", "-P", "show", "qos", "scratch", "format=name").stdout == ""
    yes = _mgr(cluster, "add", "qos", "scratch", "Priority=5", input="y\n")
    assert yes.returncode == 0, yes.stderr
    assert _mgr(cluster, "-n", "-P", "show", "qos", "scratch", "format=name,priority").stdout == "scratch|5\n"


def test_qos_limits_modify_and_show(cluster: Cluster) -> None:
    assert _mgr(cluster, "-i", "add", "qos", "long").returncode == 0
    out = _mgr(cluster, "-i", "modify", "qos", "where", "name=long", "set", "MaxWall=1-00:00:00",
               "MaxTRESPerUser=cpu=4,mem=2048", "MaxJobsPerUser=3", "Flags=DenyOnLimit", "Preempt=normal")
    assert (out.returncode, out.stdout) == (0, " Modified qos...\n  long\n")
    shown = _mgr(cluster, "-n", "-P", "show", "qos", "long",
                 "format=Name,MaxWall,MaxTRESPU,MaxJobsPU,Flags,Preempt,UsageFactor,PreemptMode")
    assert shown.stdout == "long|1-00:00:00|cpu=4,mem=2G|3|DenyOnLimit|normal|1.000000|cluster\n"
    header = _mgr(cluster, "show", "qos", "format=name,priority", "normal").stdout.splitlines()
    assert header == ["      Name   Priority ", "---------- ---------- ", "    normal          0 "]
    bad = _mgr(cluster, "-i", "modify", "qos", "long", "set", "MaxWall=soon")
    assert (bad.returncode, bad.stderr) == (1, " Bad time limit 'soon'\n")
    nothing = _mgr(cluster, "-i", "modify", "qos", "where", "name=nosuch", "set", "Priority=1")
    assert (nothing.returncode, nothing.stdout) == (1, " Nothing modified\n")


def test_plain_users_are_refused_operators_may_change_but_not_make_admins(cluster: Cluster) -> None:
    _mgr(cluster, "-i", "add", "account", "bio")
    _mgr(cluster, "-i", "add", "user", "alice", "Account=bio")
    refused = _mgr(cluster, "-i", "add", "account", "hack", user="alice")
    assert refused.returncode == 1
    assert refused.stderr == " Problem adding accounts: Access/permission denied\n"   # as 22.05: no error: line
    assert _mgr(cluster, "-n", "show", "account", "hack").stdout == ""
    assert "alice" in _mgr(cluster, "-n", "-P", "show", "user", user="alice").stdout  # reading is open

    promoted = _mgr(cluster, "-i", "modify", "user", "alice", "set", "AdminLevel=Operator")
    assert (promoted.returncode, promoted.stdout) == (0, " Modified users...\n  alice\n")
    assert _mgr(cluster, "-i", "add", "account", "lab2", user="alice").returncode == 0
    escalate = _mgr(cluster, "-i", "modify", "user", "alice", "set", "AdminLevel=Admin", user="alice")
    assert escalate.returncode == 1
    assert "Your user doesn't have privilege to perform this action" in escalate.stderr
    admin = _mgr(cluster, "-n", "-P", "show", "user", "alice", "format=user,admin").stdout
    assert admin == "alice|Operator\n"


def test_delete_user_association_then_user_and_account(cluster: Cluster) -> None:
    name = cluster.spec.cluster_name
    _mgr(cluster, "-i", "add", "account", "geo,astro")
    _mgr(cluster, "-i", "add", "user", "bob", "Account=geo,astro", "DefaultAccount=geo")
    part = _mgr(cluster, "-i", "delete", "user", "bob", "where", "account=astro")
    assert part.stdout == f" Deleting user associations...\n  C = {name:<10.10} A = {'astro':<20} U = bob      \n"
    assert _mgr(cluster, "-i", "delete", "account", "astro").stdout == " Deleting accounts...\n  astro\n"
    rows = _mgr(cluster, "-n", "-P", "show", "assoc", "user=bob", "format=account").stdout.split()
    assert "astro" not in rows and "geo" in rows
    gone = _mgr(cluster, "-i", "delete", "account", "astro")
    assert (gone.returncode, gone.stdout) == (1, " Nothing deleted\n")


def test_cluster_is_registered_with_root_and_bad_input_is_reported(cluster: Cluster) -> None:
    name = cluster.spec.cluster_name
    shown = _mgr(cluster, "-n", "-P", "show", "cluster", "format=Cluster,Share,QOS")
    assert shown.stdout == f"{name}|1|normal\n"
    root = _mgr(cluster, "-n", "-P", "show", "user", "root", "format=user,defaultaccount,admin")
    assert root.stdout == "root|root|Administrator\n"
    unknown = _mgr(cluster, "-i", "add", "account", "x1", "Colour=blue")
    assert (unknown.returncode, unknown.stderr.splitlines()[0]) == (1, " Unknown option: Colour=blue")
    orphan = _mgr(cluster, "-i", "add", "account", "x2", "Parent=nosuch")
    assert orphan.returncode == 1
    assert orphan.stderr == (f" Parent account 'nosuch' doesn't exist on cluster {name}\n"
                             "        Contact your admin to add this account.\n")
    field = _mgr(cluster, "show", "qos", "format=nosuch")
    assert (field.returncode, field.stderr) == (1, 'sacctmgr: error: Invalid field requested: "nosuch"\n')


def test_definitions_survive_a_daemon_restart_and_a_stopped_daemon_is_reported(cluster: Cluster) -> None:
    assert _mgr(cluster, "-i", "add", "account", "durable").returncode == 0
    cluster.stop("dbd")
    try:
        down = _mgr(cluster, "show", "account")
        assert (down.returncode, down.stderr) == (1, "sacctmgr: error: Problem talking to the database: Connection refused\n")
        sacct = cluster.run("sacct", "-X", "-n")
        assert (sacct.returncode, sacct.stderr) == (1, "sacct: error: Problem talking to the database: Connection refused\n")
    finally:
        cluster.start("dbd")
    wait_for(lambda: _mgr(cluster, "-n", "-P", "show", "account", "durable", "format=account").stdout == "durable\n")


def test_show_tres_lists_the_fixed_ids(cluster: Cluster) -> None:
    out = _mgr(cluster, "-n", "-P", "show", "tres")
    assert out.stdout.splitlines() == ["cpu||1", "mem||2", "energy||3", "node||4", "billing||5", "fs|disk|6",
                                       "vmem||7", "pages||8"]
    refused = _mgr(cluster, "-i", "add", "tres", "gres/gpu")
    assert (refused.returncode, refused.stderr) == (
        1, " TRES are set by AccountingStorageTRES in slurm.conf, not changed with sacctmgr\n")


def test_show_stats_counts_calls_by_method_and_user_for_administrators_only(cluster: Cluster) -> None:
    assert cluster.run("sacct", "-X", "-n", user="alice").returncode == 0
    out = _mgr(cluster, "show", "stats")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == lines[4] == "*" * 67
    assert re.fullmatch(r"sacctmgr show stats output at \w{3} \w{3} \d\d \d\d:\d\d:\d\d \d{4} \(\d+\)", lines[1])
    assert lines[3] == "All statistics are in microseconds"
    assert any(line.startswith("Internal DBD rollup last ran ") for line in lines)   # the daemon's timer
    by_type = lines.index("Remote Procedure Call statistics by message type")
    by_user = lines.index("Remote Procedure Call statistics by user")
    calls = {m.group(1): int(m.group(2)) for line in lines[by_type:by_user]
             if (m := re.match(r"\t(\w+)\s+\(\s*\d+\) count:(\d+)\s+ave_time:\d+\s+total_time:\d+$", line))}
    assert calls["QueryJobs"] >= 1 and calls["ShowAssociations"] >= 1
    users = {line.split()[0] for line in lines[by_user + 1:]}
    assert {"alice", "root"} <= users
    refused = _mgr(cluster, "show", "stats", user="alice")
    assert (refused.returncode, refused.stdout, refused.stderr) == (
        1, "", "sacctmgr: RC:2002 Your user doesn't have privilege to perform this action\n")


def test_a_repeated_condition_adds_to_the_list(cluster: Cluster) -> None:
    """`user=a user=b` asks for both, as `user=a,b` does (real sacctmgr 22.05 appends each, as it
    appends each -j of sacct); accounts and names too."""
    _mgr(cluster, "-i", "add", "account", "rep_acct")
    for user in ("alice", "bob"):
        _mgr(cluster, "-i", "add", "user", user, "Account=rep_acct")
    both = _mgr(cluster, "-n", "-P", "show", "assoc", "account=rep_acct", "format=User,Account", "user=alice,bob").stdout
    assert both.splitlines() == ["alice|rep_acct", "bob|rep_acct"]
    for words in (("user=alice", "user=bob"), ("where", "user=alice", "where", "user=bob")):
        again = _mgr(cluster, "-n", "-P", "show", "assoc", "account=rep_acct", "format=User,Account", *words)
        assert again.stdout == both, words
    names = _mgr(cluster, "-n", "-P", "show", "user", "format=User", "names=alice", "names=bob").stdout
    assert names.splitlines() == ["alice", "bob"]
    accounts = _mgr(cluster, "-n", "-P", "show", "account", "format=Account", "names=rep_acct", "names=root").stdout
    assert sorted(accounts.splitlines()) == ["rep_acct", "root"]
