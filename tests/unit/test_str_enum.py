"""pyslurm_common.str_enum.StrEnum behaves as enum.StrEnum in everything pyslurm uses (issue 18:
the enum module is a sixth of an sbatch call)."""
from __future__ import annotations

import copy
import enum
import json
import pickle

import pytest

from pyslurm_common import str_enum
from pyslurm_common.errors import Strerror


class Light(str_enum.StrEnum):
    """Colours."""

    RED = "red"
    AMBER = "amber"
    _hidden = "not a member"

    def shouted(self) -> str:
        return self.upper()


class Reference(enum.StrEnum):
    RED = "red"
    AMBER = "amber"


def test_members_behave_as_enum_members() -> None:
    red = Light.RED
    assert isinstance(red, Light) and isinstance(red, str)
    assert red == "red" and hash(red) == hash("red") and {"red": 1}[red] == 1
    assert str(red) == str(Reference.RED) == "red" and type(str(red)) is str
    assert f"{red:>5}" == f"{Reference.RED:>5}"
    assert repr(red) == repr(Reference.RED).replace("Reference", "Light")
    assert red.name == "RED" and red.value == "red"
    assert Light("amber") is Light.AMBER
    assert [m.name for m in Light] == [m.name for m in Reference] and len(Light) == len(Reference)
    assert pickle.loads(pickle.dumps(red)) is red and copy.deepcopy(red) is red
    assert json.dumps({"c": red}) == json.dumps({"c": Reference.RED})


def test_unknown_values_and_reassignment_are_refused() -> None:
    with pytest.raises(ValueError, match="'blue' is not a valid Light"):
        Light("blue")
    with pytest.raises(ValueError):
        Light(["red"])
    with pytest.raises(AttributeError):
        Light.RED = "x"   # type: ignore[misc]
    assert Light._hidden == "not a member" and "_hidden" not in [m.name for m in Light]
    assert Light.RED.shouted() == "RED" and Light.__doc__ == "Colours."


def test_strerror_lookup_and_grpc_codes() -> None:
    assert Strerror("Invalid job id specified") is Strerror.INVALID_JOB_ID
    assert Strerror.INVALID_JOB_ID.name == "INVALID_JOB_ID" and len(Strerror) == len(set(Strerror))
