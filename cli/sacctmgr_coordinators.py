"""``sacctmgr add|remove coordinator``: what sacctmgr prints around the accounting daemon's answer.

As Slurm's sacctmgr: a request naming an unknown user or account is refused with the
daemon's line alone; otherwise the heading (who, to or from which accounts) comes first, then
either the refusal of a caller who is neither an Operator nor a coordinator of those accounts,
or (remove) the grants withdrawn, then the usual commit question.
"""

from __future__ import annotations

from . import sacctmgr_args

USER_KEYS = ("name", "names", "user", "users")
ACCOUNT_KEYS = ("account", "accounts", "acct")


def _named(request: sacctmgr_args.Request, keys: tuple[str, ...]) -> list[str]:
    specs = request.set if request.command == "add" else request.where
    found = list(request.names) if keys is USER_KEYS else []
    found += [v for s in specs if s.key.lower() in keys for v in s.value.split(",") if v]
    return list(dict.fromkeys(n.lower() for n in found))


def heading(request: sacctmgr_args.Request) -> list[str]:
    """The lines Slurm prints before sending the change."""
    users, accounts = _named(request, USER_KEYS), _named(request, ACCOUNT_KEYS)
    if request.command == "add":
        return [" Adding Coordinator User(s)", *(f"  {u}" for u in users),
                " To Account(s) and all sub-accounts", *(f"  {a}" for a in accounts)]
    if not users:
        return [" Removing all users from Accounts", *(f"  {a}" for a in accounts)]
    lines = [" Removing Coordinators with user name", *(f"  {u}" for u in users)]
    return lines + ([" From Account(s)", *(f"  {a}" for a in accounts)] if accounts else [" From all accounts"])


def removed(pairs: list[tuple[str, str]]) -> list[str]:
    """The direct grants a remove withdrew, (user, account) each."""
    return [" Removed Coordinators (sub accounts not listed)...",
            *(f"  U = {user:<9.9} A = {account:<10.10}" for user, account in pairs)]


def denied_lines(command: str, detail: str, strerror: str) -> list[str]:
    """What sacctmgr prints on stderr when the daemon refuses the caller."""
    if command == "add":
        return [f" Problem adding coordinator: {strerror}"]
    return [f"sacctmgr: error: {detail}", f" Error with request: {strerror}"]


SHOW_REFUSAL = (  # ``show coordinator``: Slurm lists them with ``show user|account withcoord``
    " No valid entity in list command\n"
    'Input line must include "Account", "Association", "Cluster", "Configuration",\n'
    '"Event", "Federation", "Problem", "QOS", "Resource", "Reservation",\n'
    '"RunAwayJobs", "Stats", "Transaction", "TRES", "User", or "WCKey"')
