"""`StrEnum` for modules every CLI imports: enum.StrEnum to type checkers, a lighter class of
the same behaviour at run time.

The enum module costs a command about 13 M instructions to import and Strerror's sixty members
another 5 M to build (sbatch's whole call is about 75 M); pyslurm's string enumerations use none
of what that buys beyond what is here: members that are str instances of their class (equal to,
and hashing as, their text), `Cls(text)` finding a member or raising ValueError, iteration and
len in definition order, `.name` and `.value`, enum's repr, pickling to the same member, and
members that cannot be reassigned. Every public str attribute of the class body is a member.
"""
from __future__ import annotations

TYPE_CHECKING = False   # typing's constant without importing typing: CLI start-up (issue 18)
if TYPE_CHECKING:
    from enum import StrEnum as StrEnum
else:
    class _StrEnumType(type):
        def __new__(mcls, name: str, bases: tuple[type, ...], namespace: dict[str, object]) -> type:
            cls = super().__new__(mcls, name, bases, namespace)
            members: dict[str, StrEnum] = {}
            for key, text in namespace.items():
                if isinstance(text, str) and not key.startswith("_"):
                    member = str.__new__(cls, text)
                    member._name_ = key
                    members[key] = member
                    type.__setattr__(cls, key, member)
            type.__setattr__(cls, "_member_map_", members)
            type.__setattr__(cls, "_value2member_map_", {str(member): member for member in members.values()})
            return cls

        def __call__(cls, value: object) -> StrEnum:
            try:
                return cls._value2member_map_[value]
            except (KeyError, TypeError):
                raise ValueError(f"{value!r} is not a valid {cls.__qualname__}") from None

        def __iter__(cls):   # noqa: ANN204 - an iterator of members
            return iter(cls._member_map_.values())

        def __len__(cls) -> int:
            return len(cls._member_map_)

        def __setattr__(cls, name: str, value: object) -> None:
            if name in cls.__dict__.get("_member_map_", {}):
                raise AttributeError(f"cannot reassign member {name!r}")
            super().__setattr__(name, value)

    class StrEnum(str, metaclass=_StrEnumType):
        """Base of a string enumeration: `class Colour(StrEnum): RED = "red"`."""

        @property
        def name(self) -> str:
            return self._name_

        @property
        def value(self) -> str:
            return str(self)

        def __repr__(self) -> str:
            return f"<{type(self).__name__}.{self._name_}: {str.__repr__(self)}>"

        def __reduce_ex__(self, protocol: object) -> tuple[type, tuple[str]]:
            return type(self), (str(self),)
