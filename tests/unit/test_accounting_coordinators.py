"""Account coordinators in the accounting daemon (sacctmgr add|remove coordinator, show
withcoord) against SQLite, MariaDB and PostgreSQL, with Slurm 22.05's rules and wording."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pyslurm_common.errors import SlurmError, Strerror
from pyslurm_dbd.admin_requests import AssocKey, Caller, Setting
from pyslurm_dbd.association_messages import entities, state

from test_accounting_admin import Db

ALICE = Caller("alice", privileged=False)
BOB = Caller("bob", privileged=False)


@pytest.fixture
def db(accounting_url: str) -> Iterator[Db]:
    d = Db(accounting_url)
    d.change("add", "account", ["physics"])
    d.change("add", "account", ["theory"], set_=[Setting("Parent", "physics")])
    d.change("add", "account", ["chem"])
    for user, account in (("alice", "theory"), ("bob", "physics"), ("carol", "chem")):
        d.change("add", "user", [user], set_=[Setting("Account", account)])
    yield d
    d.store.close()


def _coord_accounts(db: Db, viewer: Caller = Caller("root", privileged=True)) -> dict[str, list[str]]:
    users = entities(db.show("user", [], viewer)).users
    return {u.name: list(u.coord_accounts) for u in users if u.coord_accounts}


def test_a_coordinator_covers_the_account_and_every_account_below_it(db: Db) -> None:
    report = db.change("add", "coordinator", ["Bob"], set_=[Setting("Accounts", "physics")])
    assert (report.names, report.associations) == (["bob"], [AssocKey("", "physics", "bob")])
    assert _coord_accounts(db) == {"bob": ["physics", "theory"]}
    accounts = {a.name: list(a.coordinators) for a in entities(db.show("account", [])).accounts}
    assert accounts == {"chem": [], "physics": ["bob"], "root": [], "theory": ["bob"]}
    direct = {a.name: list(a.direct_coordinators) for a in entities(db.show("account", [])).accounts}
    assert direct == {"chem": [], "physics": ["bob"], "root": [], "theory": []}   # theory only through physics
    assert [list(u.direct_coord_accounts) for u in entities(db.show("user", [])).users if u.name == "bob"] == [
        ["physics"]]
    # A sub-account created later is covered at once; the controller's feed carries the same list.
    db.change("add", "account", ["strings"], set_=[Setting("Parent", "theory")])
    feed = state(db.queries.definitions("lab"), "v")
    assert {u.name: list(u.coord_accounts) for u in feed.users if u.coord_accounts} == {
        "bob": ["physics", "strings", "theory"]}


def test_granting_twice_is_no_error_and_a_dry_run_stores_nothing(db: Db) -> None:
    db.change("add", "coordinator", ["bob"], set_=[Setting("Account", "chem")], commit=False)
    assert _coord_accounts(db) == {}
    for _ in range(2):
        db.change("add", "coordinator", [], set_=[Setting("Names", "bob"), Setting("Account", "chem")])
    assert _coord_accounts(db) == {"bob": ["chem"]}


@pytest.mark.parametrize(("set_", "message"), [
    ([Setting("Account", "nosuch"), Setting("Names", "bob")], " You specified a non-existent account 'nosuch'."),
    ([Setting("Account", "chem"), Setting("Names", "nosuch")], " You specified a non-existent user 'nosuch'."),
    ([Setting("Names", "bob")], " You need to specify an account list here."),
    ([Setting("Account", "chem")], " You need to specify a user list here."),
])
def test_add_refuses_unknown_or_missing_names_with_slurms_words(db: Db, set_: list[Setting], message: str) -> None:
    with pytest.raises(SlurmError) as refused:
        db.change("add", "coordinator", [], set_=set_)
    assert (refused.value.strerror, refused.value.detail) == (Strerror.INVALID_ARGUMENT, message)


def test_only_operators_and_the_accounts_coordinators_may_change_coordinators(db: Db) -> None:
    with pytest.raises(SlurmError) as refused:
        db.change("add", "coordinator", ["alice"], set_=[Setting("Account", "theory")], caller=ALICE)
    assert refused.value.strerror == Strerror.ACCESS_DENIED
    db.change("add", "coordinator", ["bob"], set_=[Setting("Account", "physics")])
    # bob coordinates physics, so theory below it too: he may name alice there, not in chem.
    db.change("add", "coordinator", ["alice"], set_=[Setting("Account", "theory")], caller=BOB)
    with pytest.raises(SlurmError) as refused:
        db.change("add", "coordinator", ["bob"], set_=[Setting("Account", "chem")], caller=BOB)
    assert refused.value.strerror == Strerror.ACCESS_DENIED
    with pytest.raises(SlurmError):
        db.change("delete", "coordinator", where={"Names": "bob"}, caller=BOB)   # no account: everywhere
    assert _coord_accounts(db) == {"alice": ["theory"], "bob": ["physics", "theory"]}


def test_remove_withdraws_direct_grants_only(db: Db) -> None:
    db.change("add", "coordinator", ["bob"], set_=[Setting("Account", "physics")])
    db.change("add", "coordinator", ["bob", "carol"], set_=[Setting("Account", "chem")])
    # theory is bob's only through physics: nothing to remove there.
    assert db.change("delete", "coordinator", where={"Names": "bob", "Account": "theory"}).associations == []
    report = db.change("delete", "coordinator", where={"Names": "bob"})
    assert report.associations == [AssocKey("", "chem", "bob"), AssocKey("", "physics", "bob")]
    assert _coord_accounts(db) == {"carol": ["chem"]}
    with pytest.raises(SlurmError) as refused:
        db.change("delete", "coordinator")
    assert refused.value.detail == " You need to specify a user list or account list here."
    assert db.change("delete", "coordinator", where={"Account": "chem"}).associations == [AssocKey("", "chem", "carol")]


def test_deleting_a_user_or_an_account_drops_their_grants(db: Db) -> None:
    db.change("add", "coordinator", ["bob", "carol"], set_=[Setting("Account", "chem,physics")])
    db.change("delete", "account", where={"Name": "theory"})
    db.change("delete", "user", where={"Name": "carol"})
    db.change("add", "user", ["carol"], set_=[Setting("Account", "chem")])   # a new carol is no coordinator
    assert _coord_accounts(db) == {"bob": ["chem", "physics"]}


def _denied(db: Db, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SlurmError) as refused:
        db.change(*args, caller=BOB, **kwargs)
    assert (refused.value.strerror, refused.value.detail) == (
        Strerror.ACCESS_DENIED, "Your user doesn't have privilege to perform this action")


def test_a_coordinator_adds_users_to_its_accounts_and_those_below_only(db: Db) -> None:
    _denied(db, "add", "user", ["dave"], set_=[Setting("Account", "theory")])   # not yet a coordinator
    db.change("add", "coordinator", ["bob"], set_=[Setting("Account", "physics")])
    report = db.change("add", "user", ["dave"], set_=[Setting("Account", "theory"), Setting("Fairshare", "4")],
                       caller=BOB)
    assert (report.names, report.associations) == (["dave"], [AssocKey("lab", "theory", "dave")])
    assert db.assoc("theory", "dave").shares == 4
    # Elsewhere, or making an operator, is refused and leaves nothing behind (not even the user).
    _denied(db, "add", "user", ["erin"], set_=[Setting("Account", "chem")])
    _denied(db, "add", "user", ["dave"], set_=[Setting("Account", "chem")])
    _denied(db, "add", "user", ["frank"], set_=[Setting("Account", "theory"), Setting("AdminLevel", "Operator")])
    assert [u.name for u in entities(db.show("user", [])).users] == ["alice", "bob", "carol", "dave", "root"]
    assert db.assocs(user="dave") == [("theory", "dave", "")]
    with pytest.raises(SlurmError):
        db.change("add", "user", ["erin"], set_=[Setting("Account", "theory")], caller=ALICE)


def test_a_coordinator_changes_and_deletes_associations_of_its_accounts_only(db: Db) -> None:
    db.change("add", "coordinator", ["bob"], set_=[Setting("Account", "physics")])
    db.change("add", "user", ["carol"], set_=[Setting("Account", "theory")])   # carol: chem and theory
    db.change("modify", "user", where={"Names": "carol", "Accounts": "theory"},
              set_=[Setting("Fairshare", "7"), Setting("GrpJobs", "3")], caller=BOB)
    assert (db.assoc("theory", "carol").shares, db.assoc("theory", "carol").grp_jobs) == (7, 3)
    _denied(db, "modify", "user", where={"Names": "carol"}, set_=[Setting("Fairshare", "9")])   # chem too
    _denied(db, "modify", "user", where={"Names": "carol", "Accounts": "chem"}, set_=[Setting("Fairshare", "9")])
    _denied(db, "modify", "user", where={"Names": "alice"}, set_=[Setting("DefaultAccount", "theory")])
    assert (db.assoc("theory", "carol").shares, db.assoc("chem", "carol").shares) == (7, 1)
    _denied(db, "delete", "user", where={"Names": "carol"})   # the user itself
    _denied(db, "modify", "account", where={"Names": "theory"}, set_=[Setting("Fairshare", "2")])
    # Deleting where some accounts are not its own removes only those it coordinates, as Slurm.
    report = db.change("delete", "user", where={"Names": "carol", "Accounts": "chem,theory"}, caller=BOB)
    assert report.associations == [AssocKey("lab", "theory", "carol")]
    assert db.assocs(user="carol") == [("chem", "carol", "")]
    assert db.change("delete", "user", where={"Names": "carol", "Accounts": "chem"}, caller=BOB).associations == []
