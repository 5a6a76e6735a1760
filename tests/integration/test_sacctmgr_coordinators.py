"""sacctmgr add|remove coordinator and show withcoord against the real accounting daemon, with
the messages and layouts Slurm 22.05 prints (taken from a real sacctmgr/slurmdbd)."""
from __future__ import annotations

import pytest

from .conftest import Cluster, wait_for


@pytest.fixture(autouse=True, scope="module")
def accounts(cluster: Cluster) -> None:
    """lab with sub-account labsub; alice in labsub, bob in lab (the fixture's plain users); the
    cluster is the session's, so an earlier file may have promoted them or given them other accounts."""
    wait_for(lambda: cluster.run("sacctmgr", "-n", "show", "cluster").returncode == 0)
    for words in (("account", "lab"), ("account", "labsub", "Parent=lab"), ("user", "alice", "Account=labsub"),
                  ("user", "bob", "Account=lab")):
        assert cluster.run("sacctmgr", "-i", "add", *words).returncode == 0
    for user, account in (("alice", "labsub"), ("bob", "lab")):   # as plain users, whatever ran before
        cluster.run("sacctmgr", "-i", "modify", "user", user, "set", "AdminLevel=None", f"DefaultAccount={account}",
                    check=True)


def _mgr(cluster: Cluster, *args: str, user: str | None = None, input: str | None = None):  # type: ignore[no-untyped-def]
    return cluster.run("sacctmgr", *args, user=user, input=input)


def test_coordinator_of_an_account_is_shown_on_it_and_its_sub_accounts(cluster: Cluster) -> None:
    out = _mgr(cluster, "-i", "add", "coordinator", "account=lab", "names=Bob")
    assert (out.returncode, out.stdout) == (
        0, " Adding Coordinator User(s)\n  bob\n To Account(s) and all sub-accounts\n  lab\n")
    users = _mgr(cluster, "-P", "show", "user", "withcoord", "where", "name=alice,bob")
    assert users.stdout.splitlines() == ["User|Def Acct|Admin|Coord Accounts", "alice|labsub|None|",
                                         "bob|lab|None|lab,labsub"]
    accounts = _mgr(cluster, "show", "account", "withcoord", "where", "name=lab,labsub")
    assert accounts.stdout.splitlines() == [
        "   Account                Descr                  Org       Coord Accounts ",
        "---------- -------------------- -------------------- -------------------- ",
        "       lab                  lab                  lab                  bob ",
        "    labsub               labsub                  lab                  bob ",
    ]
    removed = _mgr(cluster, "remove", "coordinator", "account=lab", "names=bob", input="n\n")
    assert removed.stdout == (
        " Removing Coordinators with user name\n  bob\n From Account(s)\n  lab\n"
        " Removed Coordinators (sub accounts not listed)...\n  U = bob       A = lab       \n"
        "Would you like to commit changes? (You have 30 seconds to decide)\n(N/y): \n Changes Discarded\n")
    assert _mgr(cluster, "-n", "-P", "show", "user", "bob", "format=User,Coordinators").stdout == "bob|lab,labsub\n"


def test_unknown_names_and_plain_users_are_refused_with_slurms_words(cluster: Cluster) -> None:
    unknown = _mgr(cluster, "-i", "add", "coordinator", "account=nosuch", "names=bob")
    assert (unknown.returncode, unknown.stdout, unknown.stderr) == (
        1, "", " You specified a non-existent account 'nosuch'.\n")
    plain = _mgr(cluster, "-i", "add", "coordinator", "account=labsub", "names=alice", user="alice")
    assert (plain.returncode, plain.stderr) == (1, " Problem adding coordinator: Access/permission denied\n")
    assert plain.stdout == " Adding Coordinator User(s)\n  alice\n To Account(s) and all sub-accounts\n  labsub\n"
    remove = _mgr(cluster, "-i", "remove", "coordinator", "account=labsub", "names=bob", user="alice")
    assert (remove.returncode, remove.stderr) == (
        1, "sacctmgr: error: Your user doesn't have privilege to perform this action\n"
           " Error with request: Access/permission denied\n")
    nothing = _mgr(cluster, "-i", "remove", "coordinator", "account=labsub", "names=alice")
    assert (nothing.returncode, nothing.stdout.splitlines()[-1]) == (1, " Nothing removed")
    assert _mgr(cluster, "show", "coordinator").returncode == 1


def test_a_coordinator_may_cancel_and_hold_jobs_of_its_accounts_a_plain_user_may_not(cluster: Cluster) -> None:
    """The controller learns coordinators through its association feed, as Slurm's assoc_mgr."""
    assert _mgr(cluster, "-i", "remove", "coordinator", "names=bob").returncode in (0, 1)   # none left
    submitted = cluster.run("sbatch", "--parsable", "--account=labsub", "--begin=now+1hour", "--wrap", "sleep 60",
                            user="alice", check=True)
    job = submitted.stdout.strip()
    # No longer a coordinator (once the controller's feed has the removal): Slurm's refusals.
    wait_for(lambda: cluster.run("scontrol", "hold", job, user="bob").stderr.startswith(
        f"Invalid user id for job {job}\n"))
    cluster.run("scontrol", "release", job, check=True)   # a hold that came before the removal arrived
    denied = cluster.run("scancel", job, user="bob")
    assert denied.stderr == f"scancel: error: Kill job error on job id {job}: Access/permission denied\n"
    assert _mgr(cluster, "-i", "add", "coordinator", "account=lab", "names=bob").returncode == 0
    # Coordinator of lab, so of labsub below it: bob holds, releases and cancels alice's job.
    wait_for(lambda: cluster.run("scontrol", "hold", job, user="bob").returncode == 0)
    held = cluster.run("squeue", "-h", "-j", job, "-o", "%r").stdout
    assert held == "JobHeldUser\n"
    assert cluster.run("scontrol", "release", job, user="bob").returncode == 0
    assert cluster.run("scancel", job, user="bob").returncode == 0
    wait_for(lambda: cluster.run("squeue", "-h", "-j", job, "-o", "%T").stdout in ("", "CANCELLED\n"))
    # alice coordinates nothing: bob's own job stays out of her reach.
    mine = cluster.run("sbatch", "--parsable", "--account=lab", "--begin=now+1hour", "--wrap", "sleep 60",
                       user="bob", check=True).stdout.strip()
    refused = cluster.run("scancel", mine, user="alice")
    assert refused.stderr == f"scancel: error: Kill job error on job id {mine}: Access/permission denied\n"
    cluster.run("scancel", mine, check=True)


def test_a_coordinator_adds_changes_and_deletes_users_of_its_accounts_only(cluster: Cluster) -> None:
    """Slurm 22.05's words (real sacctmgr/slurmdbd): a coordinator of lab adds carol to labsub below
    it, sets her limits there and removes her; in an account it does not coordinate it is refused."""
    assert _mgr(cluster, "-i", "add", "account", "elsewhere").returncode == 0
    assert _mgr(cluster, "-i", "add", "coordinator", "account=lab", "names=bob").returncode == 0
    added = _mgr(cluster, "-i", "add", "user", "carol", "account=labsub", user="bob")
    assert (added.returncode, added.stderr) == (0, "")
    assert added.stdout.startswith(" Adding User(s)\n  carol\n")
    refused = _mgr(cluster, "-i", "add", "user", "carol", "account=elsewhere", user="bob")
    assert (refused.returncode, refused.stderr) == (1, " Problem adding users: Access/permission denied\n")
    denied = ("sacctmgr: error: Your user doesn't have privilege to perform this action\n"
              " Error with request: Access/permission denied\n")
    modified = _mgr(cluster, "-i", "modify", "user", "carol", "where", "account=labsub", "set", "fairshare=7",
                    user="bob")
    assert (modified.returncode, modified.stdout.splitlines()[0]) == (0, " Modified user associations...")
    assert _mgr(cluster, "-i", "modify", "user", "carol", "set", "defaultaccount=lab", user="bob").stderr == denied
    assert _mgr(cluster, "-i", "delete", "user", "carol", user="bob").stderr == denied   # the user itself
    assert _mgr(cluster, "-n", "-P", "show", "assoc", "where", "user=carol", "format=account,fairshare").stdout == (
        "labsub|7\n")
    plain = _mgr(cluster, "-i", "add", "user", "carol", "account=labsub", user="alice")
    assert (plain.returncode, plain.stderr) == (1, " Problem adding users: Access/permission denied\n")
    deleted = _mgr(cluster, "-i", "delete", "user", "carol", "where", "account=labsub", user="bob")
    assert (deleted.returncode, deleted.stdout.splitlines()[0]) == (0, " Deleting user associations...")
    assert _mgr(cluster, "-n", "show", "assoc", "where", "user=carol").stdout == ""
