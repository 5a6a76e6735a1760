"""sacctmgr's command words: ``<command> <entity> [name ...] [where] Key=value ... [set] Key=value``.

Owns spec §3.1 of cli-sacct-sacctmgr-sprio-sshare.md for syntax: command and entity names with
their aliases (``create``=``add``, ``list``=``show``, ``remove``=``delete``, ``update``=``modify``;
entities by a prefix of at least three letters), the ``where``/``set`` keywords, the ``+=``/
``-=`` operators, and the show-only words ``format=``, ``withassoc``, ``withcoord``, ``WOLimits`` and ``tree``. The values
themselves are checked by the accounting daemon. ``tree`` (show assoc) indents accounts by depth. Pure. Errors: :class:`ArgumentError`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

COMMANDS = {"add": "add", "create": "add", "modify": "modify", "update": "modify",
            "delete": "delete", "remove": "delete", "show": "show", "list": "show"}  # fmt: skip
ENTITIES = ("account", "association", "cluster", "coordinator", "event", "qos", "reservation", "stats", "tres", "user")
_ENTITY_ALIASES = {"assoc": "association", "acct": "account", "resv": "reservation"}
_SHOW_FLAGS = {"withassoc": "with_assoc", "wassoc": "with_assoc", "withcoord": "with_coord", "wcoord": "with_coord",
               "wolimits": "wo_limits", "tree": "tree"}


class ArgumentError(ValueError):
    """Text sacctmgr prints (on stderr, leading space) before exiting 1."""


@dataclass(frozen=True, slots=True)
class Spec:
    key: str
    op: str
    value: str


@dataclass(slots=True)
class Request:
    command: str
    entity: str
    names: list[str] = field(default_factory=list)
    where: list[Spec] = field(default_factory=list)
    set: list[Spec] = field(default_factory=list)
    format: str = ""
    with_assoc: bool = False
    with_coord: bool = False
    wo_limits: bool = False
    tree: bool = False


def _entity(word: str) -> str:
    lower = word.lower() if word.lower() in ("qos", "tres") else word.lower().rstrip("s")
    lower = _ENTITY_ALIASES.get(lower, lower)
    if len(lower) >= 3:
        for entity in ENTITIES:
            if entity.startswith(lower):
                return entity
    raise ArgumentError(f" Unknown entity '{word}'")


def _spec(word: str) -> Spec | None:
    """``Key=value``, ``Key+=value``, ``Key-=value``; None for a bare word."""
    key, sep, value = word.partition("=")
    if not sep:
        return None
    op = "="
    if key.endswith(("+", "-")):
        op, key = key[-1] + "=", key[:-1]
    return Spec(key.strip(), op, value)


def parse(words: list[str]) -> Request:
    """The request in ``words`` (everything after the options)."""
    if len(words) < 2:
        raise ArgumentError(" You need to specify a command and an entity (e.g. 'show user')")
    command = COMMANDS.get(words[0].lower())
    if command is None:
        raise ArgumentError(f" Invalid command '{words[0]}'")
    request = Request(command, _entity(words[1]))
    mode = "set" if command == "add" else "where"
    for word in words[2:]:
        lower = word.lower()
        if lower == "where":
            mode = "where"
            continue
        if lower == "set":
            if command != "modify":
                raise ArgumentError(f" Keyword 'set' is only valid with modify: {word}")
            mode = "set"
            continue
        if command == "show" and lower in _SHOW_FLAGS:
            setattr(request, _SHOW_FLAGS[lower], True)
            continue
        spec = _spec(word)
        if spec is None:  # a bare word names what to add, or which entities to show/change
            if command == "add":
                request.names.extend(n for n in word.split(",") if n)
            elif mode == "where":
                request.where.append(Spec("name", "=", word))
            else:
                raise ArgumentError(f" Unknown option: {word}")
            continue
        if spec.key.lower() == "format" and command == "show":
            request.format = ",".join(filter(None, (request.format, spec.value)))
        elif mode == "set":
            request.set.append(spec)
        else:
            request.where.append(spec)
    if command == "modify" and not request.set:
        raise ArgumentError(" You didn't give me anything to set")
    return request
