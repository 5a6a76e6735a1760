"""pyslurm_common.typed_tuple.NamedTuple: the shape of typing.NamedTuple without its per-field
annotation checks (whose compile() costs a CLI call a tenth of its instructions, issue 18)."""
from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from pyslurm_common.typed_tuple import NamedTuple


class Point(NamedTuple):
    """A point."""

    x: int
    y: int = 0
    label: str = ""

    @property
    def norm1(self) -> int:
        return abs(self.x) + abs(self.y)

    def moved(self, dx: int) -> Point:
        return self._replace(x=self.x + dx)


def test_fields_defaults_and_methods_as_typing_namedtuple() -> None:
    p = Point(3, label="a")
    assert p == (3, 0, "a") and isinstance(p, tuple)
    assert Point._fields == ("x", "y", "label")
    assert Point._field_defaults == {"y": 0, "label": ""}
    assert Point.__annotations__ == {"x": "int", "y": "int", "label": "str"}
    assert p.norm1 == 3 and p.moved(2) == Point(5, 0, "a")
    assert repr(p) == "Point(x=3, y=0, label='a')"
    assert Point.__doc__ == "A point." and Point.__module__ == __name__
    assert pickle.loads(pickle.dumps(p)) == p
    with pytest.raises(AttributeError):
        p.z = 1   # type: ignore[attr-defined]


def test_a_field_without_default_after_one_with_is_refused() -> None:
    with pytest.raises(TypeError, match="Non-default namedtuple field b cannot follow default field"):
        class Bad(NamedTuple):
            a: int = 0
            b: int   # type: ignore[misc]


def test_namedtuple_methods_cannot_be_replaced() -> None:
    with pytest.raises(AttributeError, match="Cannot overwrite NamedTuple attribute _replace"):
        class Bad(NamedTuple):
            a: int

            def _replace(self) -> None:   # type: ignore[override]
                pass


@pytest.mark.parametrize("command", ["sbatch", "squeue", "scancel", "sacct", "srun"])
def test_a_command_compiles_no_annotation_on_import(command: str) -> None:
    """No compile() while a command is imported (its modules' bytecode is cached): the first one
    of a process costs 7 M instructions, setting up the AST types."""
    code = ("import builtins, sys\n"
            "calls = []\n"
            "real = builtins.compile\n"
            "def spy(source, filename, *args, **kwargs):\n"
            "    if filename == '<string>': calls.append(source)\n"
            "    return real(source, filename, *args, **kwargs)\n"
            "builtins.compile = spy\n"
            f"from cli.{command} import main\n"
            "print(calls)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[2])
    assert out.stdout.strip() == "[]"
