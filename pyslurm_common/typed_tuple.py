"""`NamedTuple` for modules the CLIs import: typing.NamedTuple to type checkers, a cheaper
class of the same shape at run time.

typing.NamedTuple checks every field's annotation, and under `from __future__ import annotations`
each one is a string it turns into a ForwardRef, which compile()s it. The first compile() of a
process sets up the interpreter's AST types: about 7 M instructions, a tenth of an sbatch call,
for checks nothing reads. This builds the same class (collections.namedtuple, the fields in
annotation order, the defaults, the methods and docstring of the class body) without looking
at the annotations, and without importing typing.
"""
from __future__ import annotations

TYPE_CHECKING = False   # typing's constant, without importing typing (type checkers know the name)
if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
else:
    from collections import namedtuple

    # What namedtuple defines and a class body must not replace (typing.NamedTuple refuses them too).
    _PROHIBITED = frozenset({"__new__", "__init__", "__slots__", "__getnewargs__", "_fields",
                             "_field_defaults", "_make", "_replace", "_asdict", "_source"})

    class _NamedTupleMeta(type):
        def __new__(mcls, name: str, bases: tuple[type, ...], namespace: dict[str, object]) -> type:
            if not bases:   # NamedTuple itself
                return super().__new__(mcls, name, bases, namespace)
            annotations = namespace.get("__annotations__", {})
            defaults: list[object] = []
            for field in annotations:
                if field in namespace:
                    defaults.append(namespace[field])
                elif defaults:
                    raise TypeError(f"Non-default namedtuple field {field} cannot follow default field"
                                    f"{'s' if len(defaults) > 1 else ''}")
            cls = namedtuple(name, list(annotations), defaults=defaults, module=namespace["__module__"])
            cls.__annotations__ = dict(annotations)
            for key, value in namespace.items():
                if key in _PROHIBITED:
                    raise AttributeError(f"Cannot overwrite NamedTuple attribute {key}")
                if key not in ("__module__", "__annotations__") and key not in annotations:
                    setattr(cls, key, value)
            return cls

    class NamedTuple(metaclass=_NamedTupleMeta):
        """Base of a typed record: `class Token(NamedTuple): key: str; line: int = 0`."""
