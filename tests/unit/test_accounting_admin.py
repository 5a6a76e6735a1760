"""sacctmgr's changes in the accounting daemon (AssociationAdmin, AssociationQueries) against
SQLite, MariaDB and PostgreSQL: the association tree, limits, dry runs and AdminLevel rights."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pyslurm_common.errors import SlurmError, Strerror
from pyslurm_dbd.admin import AssociationAdmin
from pyslurm_dbd.admin_requests import AssocKey, Caller, ChangeReport, Setting
from pyslurm_dbd.association_models import SHARES_PARENT
from pyslurm_dbd.association_queries import AssociationQueries
from pyslurm_dbd.store import AccountingStore

ROOT = Caller("root", privileged=True)


class Db:
    """The admin and query sides of one fresh accounting database with cluster ``lab``."""

    def __init__(self, url: str) -> None:
        self.store = AccountingStore(url)
        self.store.create_schema()
        self.admin = AssociationAdmin(self.store.sessions)
        self.queries = AssociationQueries(self.store.sessions)
        assert self.admin.ensure_cluster("lab")

    def change(self, action: str, entity: str, names: list[str] = [], where: dict[str, str] | None = None,  # noqa: B006
               set_: list[Setting] | None = None, *, caller: Caller = ROOT, commit: bool = True) -> ChangeReport:
        conditions = [Setting(k, v) for k, v in (where or {}).items()]
        return self.admin.change(caller, action, entity, names, conditions, set_ or [], commit)

    def show(self, entity: str, where: list[Setting], viewer: Caller = ROOT, with_assoc: bool = False):  # type: ignore[no-untyped-def]
        return self.queries.show(entity, where, with_assoc, viewer)

    def assocs(self, **where: str) -> list[tuple[str, str, str]]:
        rows = self.show("association", [Setting(k, v) for k, v in where.items()]).associations
        return [(r.account, r.user, r.partition) for r in rows]

    def assoc(self, account: str, user: str = ""):  # type: ignore[no-untyped-def]
        rows = self.show("association", [Setting("account", account)]).associations
        return next(r for r in rows if r.user == user)


@pytest.fixture
def db(accounting_url: str) -> Iterator[Db]:
    d = Db(accounting_url)
    yield d
    d.store.close()


def S(key: str, value: str, op: str = "=") -> Setting:  # noqa: N802 - reads like the command line
    return Setting(key, value, op)


def test_registered_cluster_has_root_account_user_and_normal_qos(db: Db) -> None:
    assert db.assocs() == [("root", "", ""), ("root", "root", "")]
    assert db.assoc("root").qos == "normal"
    (user,) = db.show("user", [S("name", "root")]).users
    assert (user.admin_level, user.default_account) == ("Administrator", "root")
    assert not db.admin.ensure_cluster("lab")
    assert [c.name for c, _ in db.show("cluster", []).clusters] == ["lab"]


def test_add_account_under_parent_inherits_qos_and_fills_defaults(db: Db) -> None:
    report = db.change("add", "account", ["Physics"], set_=[S("MaxJobs", "5")])
    assert report.names == ["physics"]
    assert report.associations == [AssocKey("lab", "physics")]
    assert report.settings == [("Description", "Account Name"), ("Organization", "Parent/Account Name")]
    assert report.limits == [("MaxJobs", "5")]
    db.change("add", "account", ["theory"], set_=[S("Parent", "physics"), S("Organization", "uni")])
    (theory,) = db.show("account", [S("name", "theory")]).accounts
    assert (theory.description, theory.organization) == ("theory", "uni")
    assert db.assoc("theory").parent_account == "physics"
    assert db.assoc("theory").qos == "normal"
    assert db.assoc("physics").max_jobs == 5
    assert db.change("add", "account", ["physics"]) == ChangeReport()


def test_add_account_with_missing_parent_is_refused(db: Db) -> None:
    with pytest.raises(SlurmError) as err:
        db.change("add", "account", ["x"], set_=[S("Parent", "nosuch")])
    assert err.value.detail.splitlines()[0] == " Parent account 'nosuch' doesn't exist on cluster lab"


def test_add_user_needs_a_default_account_and_an_existing_account(db: Db) -> None:
    with pytest.raises(SlurmError, match="Invalid argument") as err:
        db.change("add", "user", ["bob"])
    assert err.value.detail == " Need a default account for these users to add."
    with pytest.raises(SlurmError) as err:
        db.change("add", "user", ["bob"], set_=[S("Account", "nosuch")])
    assert "Account 'nosuch' doesn't exist on cluster lab" in err.value.detail
    db.change("add", "account", ["a1", "a2"])
    report = db.change("add", "user", ["bob"], set_=[S("Accounts", "a1,a2"), S("Partition", "gpu")])
    assert report.settings == [("Default Account", "a1")]
    assert db.assocs(user="bob") == [("a1", "bob", "gpu"), ("a2", "bob", "gpu")]
    db.change("add", "user", ["carl"], set_=[S("Account", "a1"), S("DefaultAccount", "a2")])
    assert db.assocs(user="carl") == [("a1", "carl", ""), ("a2", "carl", "")]  # the default joins the list
    again = db.change("add", "user", ["bob"], set_=[S("Account", "a2")])
    assert (again.names, again.associations) == ([], [AssocKey("lab", "a2", "bob")])


def test_dry_run_reports_without_changing_anything(db: Db) -> None:
    report = db.change("add", "account", ["ghost"], commit=False)
    assert report.names == ["ghost"]
    assert db.show("account", [S("name", "ghost")]).accounts == []
    assert ("ghost", "", "") not in db.assocs()


def test_limits_are_parsed_listed_and_cleared(db: Db) -> None:
    db.change("add", "account", ["phys"])
    db.change("add", "qos", ["high", "low"])
    db.change("modify", "account", where={"name": "phys"}, set_=[
        S("GrpTRES", "cpu=8,mem=2G,gres/gpu=2"), S("MaxWall", "1-00:00:00"), S("Fairshare", "parent"),
        S("QOS", "high", "+="), S("DefaultQOS", "high"), S("Priority", "3")])
    row = db.assoc("phys")
    assert (row.grp_tres, row.max_wall, row.shares, row.qos, row.default_qos, row.priority) == (
        "cpu=8,mem=2048,gres/gpu=2", 1440, SHARES_PARENT, "normal,high", "high", 3)
    db.change("modify", "account", where={"name": "phys"}, set_=[S("GrpTRES", "-1"), S("MaxWall", "-1"),
                                                                 S("QOS", "normal", "-=")])
    row = db.assoc("phys")
    assert (row.grp_tres, row.max_wall, row.qos) == (None, None, "high")
    with pytest.raises(SlurmError) as err:
        db.change("modify", "account", where={"name": "phys"}, set_=[S("QOS", "nosuch", "+=")])
    assert err.value.detail == " Unknown QOS name 'nosuch'"
    with pytest.raises(SlurmError) as err:
        db.change("modify", "account", where={"name": "phys"}, set_=[S("DefaultQOS", "low")])
    assert err.value.detail == " Default QOS 'low' is not in the QOS list 'high'"
    with pytest.raises(SlurmError) as err:
        db.change("modify", "account", where={"name": "phys"}, set_=[S("MaxJobs", "5", "+=")])
    assert err.value.detail == " Unknown option: MaxJobs+=5"


def test_qos_settings_and_delete_removes_it_from_lists(db: Db) -> None:
    db.change("add", "qos", ["gpu"], set_=[S("Priority", "100"), S("MaxTRESPerUser", "gres/gpu=4"),
                                            S("MaxJobsPerUser", "2"), S("MaxSubmitJobsPerUser", "5"),
                                            S("UsageFactor", "2.5"), S("Flags", "denyonlimit,NoDecay"),
                                            S("PreemptMode", "requeue"), S("GraceTime", "120")])
    (qos,) = db.show("qos", [S("name", "gpu")]).qos
    assert (qos.priority, qos.max_tres_per_user, qos.max_jobs_per_user, qos.max_submit_per_user) == (
        100, "gres/gpu=4", 2, 5)
    assert (qos.usage_factor, qos.flags, qos.preempt_mode, qos.grace_time) == (
        2.5, "DenyOnLimit,NoDecay", "requeue", 120)
    db.change("modify", "qos", where={"name": "normal"}, set_=[S("Preempt", "gpu")])
    db.change("modify", "cluster", where={"name": "lab"}, set_=[S("QOS", "gpu", "+=")])
    assert db.change("delete", "qos", where={"name": "gpu"}).names == ["gpu"]
    assert db.assoc("root").qos == "normal"
    (normal,) = db.show("qos", []).qos
    assert normal.preempt == ""


def test_modify_user_default_account_must_be_one_of_its_accounts(db: Db) -> None:
    db.change("add", "account", ["a1", "a2", "a3"])
    db.change("add", "user", ["bob"], set_=[S("Account", "a1,a2")])
    report = db.change("modify", "user", where={"name": "bob"}, set_=[S("DefaultAccount", "a2")])
    assert (report.names, report.settings) == (["bob"], [("Default Account", "a2")])
    with pytest.raises(SlurmError) as err:
        db.change("modify", "user", where={"name": "bob"}, set_=[S("DefaultAccount", "a3")])
    assert err.value.detail == " User 'bob' has no association with account 'a3'"
    scoped = db.change("modify", "user", where={"name": "bob", "account": "a1"}, set_=[S("MaxJobs", "4")])
    assert (scoped.names, scoped.associations) == ([], [AssocKey("lab", "a1", "bob")])
    assert (db.assoc("a1", "bob").max_jobs, db.assoc("a2", "bob").max_jobs) == (4, None)
    assert db.change("modify", "user", where={"name": "nobody"}, set_=[S("MaxJobs", "1")]) == ChangeReport()


def test_move_account_and_refuse_a_cycle(db: Db) -> None:
    db.change("add", "account", ["top"])
    db.change("add", "account", ["mid"], set_=[S("Parent", "top")])
    db.change("add", "account", ["other"])
    db.change("modify", "account", where={"name": "mid"}, set_=[S("Parent", "other")])
    assert db.assoc("mid").parent_account == "other"
    with pytest.raises(SlurmError) as err:
        db.change("modify", "account", where={"name": "other"}, set_=[S("Parent", "mid")])
    assert err.value.detail == " Can't move account 'other' below its own sub-account 'mid'"


def test_tree_order_users_first_then_sub_accounts(db: Db) -> None:
    db.change("add", "account", ["b", "a"])
    db.change("add", "account", ["a2"], set_=[S("Parent", "a")])
    db.change("add", "user", ["zed", "amy"], set_=[S("Account", "a")])
    assert db.assocs() == [("root", "", ""), ("root", "root", ""), ("a", "", ""), ("a", "amy", ""),
                           ("a", "zed", ""), ("a2", "", ""), ("b", "", "")]


def test_delete_account_takes_its_subtree_and_root_is_kept(db: Db) -> None:
    db.change("add", "account", ["top"])
    db.change("add", "account", ["sub"], set_=[S("Parent", "top")])
    db.change("add", "user", ["bob"], set_=[S("Account", "sub")])
    report = db.change("delete", "account", where={"name": "top"})
    assert report.names == ["top"]
    assert set(report.associations) == {AssocKey("lab", "top"), AssocKey("lab", "sub"), AssocKey("lab", "sub", "bob")}
    assert db.assocs() == [("root", "", ""), ("root", "root", "")]
    with pytest.raises(SlurmError) as err:
        db.change("delete", "account", where={"name": "root"})
    assert err.value.detail == " You can't remove the root account"
    with pytest.raises(SlurmError) as err:
        db.change("delete", "user", where={})
    assert err.value.detail == " No conditions given"


def test_the_default_account_goes_last(db: Db) -> None:
    db.change("add", "account", ["a1", "a2"])
    db.change("add", "account", ["sub"], set_=[S("Parent", "a1")])
    db.change("add", "user", ["bob"], set_=[S("Account", "sub,a2")])
    expected = (" Can't remove the default account 'sub' of user 'bob' while it has other associations:"
                " change its DefaultAccount first")
    for entity, where in (("user", {"name": "bob", "account": "sub"}), ("account", {"name": "a1"})):
        with pytest.raises(SlurmError) as err:
            db.change("delete", entity, where=where)
        assert err.value.detail == expected
    db.change("delete", "user", where={"name": "bob", "account": "a2"})
    assert db.change("delete", "account", where={"name": "a1"}).names == ["a1"]  # its last association


def test_delete_user_association_or_whole_user(db: Db) -> None:
    db.change("add", "account", ["a1", "a2"])
    db.change("add", "user", ["bob"], set_=[S("Account", "a1,a2")])
    part = db.change("delete", "user", where={"name": "bob", "account": "a2"})
    assert (part.names, part.associations) == ([], [AssocKey("lab", "a2", "bob")])
    whole = db.change("delete", "user", where={"name": "bob"})
    assert (whole.names, whole.associations) == (["bob"], [AssocKey("lab", "a1", "bob")])
    assert db.show("user", [S("name", "bob")]).users == []


def test_delete_cluster_drops_its_associations(db: Db) -> None:
    db.admin.ensure_cluster("other")
    assert db.change("delete", "cluster", where={"name": "other"}).names == ["other"]
    assert db.assocs(cluster="other") == []
    assert db.assocs(cluster="lab") == [("root", "", ""), ("root", "root", "")]


def test_only_administrators_and_operators_may_change(db: Db) -> None:
    db.change("add", "account", ["lab"])
    db.change("add", "user", ["alice", "olga"], set_=[S("Account", "lab")])
    alice, olga = Caller("alice", False), Caller("olga", False)
    for action, entity, names, where in (("add", "account", ["x"], None), ("add", "qos", ["q"], None),
                                         ("delete", "user", [], {"name": "olga"})):
        with pytest.raises(SlurmError) as err:
            db.change(action, entity, names, where, caller=alice)
        assert (err.value.strerror, err.value.detail) == (
            Strerror.ACCESS_DENIED, "Your user doesn't have privilege to perform this action")
    db.change("modify", "user", where={"name": "olga"}, set_=[S("AdminLevel", "Operator")])
    assert db.change("add", "account", ["x"], caller=olga).names == ["x"]
    with pytest.raises(SlurmError) as err:
        db.change("modify", "user", where={"name": "alice"}, set_=[S("AdminLevel", "Admin")], caller=olga)
    assert err.value.strerror == Strerror.ACCESS_DENIED
    db.change("modify", "user", where={"name": "alice"}, set_=[S("AdminLevel", "Administrator")])
    assert db.change("add", "qos", ["q"], caller=alice).names == ["q"]
    for demote in (lambda: db.change("modify", "user", where={"name": "alice"}, set_=[S("AdminLevel", "None")],
                                     caller=olga),
                   lambda: db.change("delete", "user", where={"name": "root"}, caller=olga)):
        with pytest.raises(SlurmError) as err:
            demote()
        assert err.value.strerror == Strerror.ACCESS_DENIED
    report = db.change("modify", "user", where={"name": "olga"}, set_=[S("AdminLevel", "none")], caller=alice)
    assert report.settings == [("Admin Level", "None")]


def test_modify_needs_conditions(db: Db) -> None:
    for entity in ("user", "account", "qos", "cluster"):
        with pytest.raises(SlurmError) as err:
            db.change("modify", entity, set_=[S("Priority", "1")])
        assert err.value.detail == " You didn't set any conditions with 'WHERE'."


def test_unknown_keys_and_conditions_are_reported(db: Db) -> None:
    with pytest.raises(SlurmError) as err:
        db.change("add", "account", ["x"], set_=[S("Colour", "blue")])
    assert err.value.detail.splitlines()[0] == " Unknown option: Colour=blue"
    with pytest.raises(SlurmError) as err:
        db.show("user", [S("colour", "blue")])
    assert err.value.detail == " Unknown condition: colour=blue"
    with pytest.raises(SlurmError) as err:
        db.change("add", "association", ["x"])
    assert err.value.detail == " Can't add association entities"


def test_private_data_hides_others_from_plain_users(db: Db) -> None:
    db.change("add", "account", ["mine", "theirs"])
    db.change("add", "user", ["alice"], set_=[S("Account", "mine")])
    db.change("add", "user", ["bob"], set_=[S("Account", "theirs")])
    db.change("add", "user", ["olga"], set_=[S("Account", "theirs"), S("AdminLevel", "Operator")])
    private = AssociationQueries(db.store.sessions, frozenset({"users", "accounts"}))
    alice, olga = Caller("alice", False), Caller("olga", False)
    assert [u.name for u in private.show("user", [], False, alice).users] == ["alice"]
    assert [a.name for a in private.show("account", [], False, alice).accounts] == ["mine"]
    assert [(a.account, a.user) for a in private.show("association", [], False, alice).associations] == [
        ("mine", "alice")]
    assert [q.name for q in private.show("qos", [], False, alice).qos] == ["normal"]
    assert len(private.show("user", [], False, olga).users) == 4  # operators see everyone
    assert len(db.show("user", [], alice).users) == 4  # without PrivateData everyone does
