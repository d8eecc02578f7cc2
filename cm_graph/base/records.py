"""``@record``: an annotated class becomes an immutable named tuple, at a fraction of the start-up
cost of the standard alternatives.

Every ``cm-graph query`` is a fresh process, and every class on the question path is built at
import. Measured on this project's two dozen record classes: ``dataclasses`` costs about 15 ms
of a query's start (it imports ``inspect`` and generates methods with ``exec``),
``typing.NamedTuple`` about 10 ms; a ``collections.namedtuple`` base costs about 1 ms. This
decorator keeps the readable, typed class body and builds that base from it. Type checkers see a
frozen dataclass (``dataclass_transform``), so constructors and fields stay checked.
"""

from __future__ import annotations

from collections import namedtuple

TYPE_CHECKING = False  # recognised by type checkers; avoids importing typing at run time
if TYPE_CHECKING:
    from typing import TypeVar, dataclass_transform

    T = TypeVar("T")
else:
    def dataclass_transform(**_: object):  # noqa: ANN202 - run-time stand-in, never checked
        return lambda decorator: decorator


if TYPE_CHECKING:
    def replaced(value: T, **changes: object) -> T:
        """``value`` with the named fields changed (type checkers see a frozen dataclass, which
        has no ``_replace``; at run time a record is a named tuple, which has)."""
else:
    def replaced(value, **changes):
        return value._replace(**changes)


@dataclass_transform(frozen_default=True)
def record(cls: type[T]) -> type[T]:
    """The class ``cls`` as a tuple subclass: fields in annotation order, trailing defaults, value
    equality, no instance dict, no assignment. Methods and properties of the body are kept."""
    names = tuple(cls.__dict__.get("__annotations__", {}))
    with_default = [name in cls.__dict__ for name in names]
    if with_default != sorted(with_default):
        raise TypeError(f"{cls.__name__}: fields with defaults must come after those without")
    defaults = tuple(cls.__dict__[name] for name in names if name in cls.__dict__)
    base = namedtuple(cls.__name__, names, defaults=defaults, module=cls.__module__)  # type: ignore[misc]
    body = {
        key: value for key, value in cls.__dict__.items()
        if key not in names and key not in ("__dict__", "__weakref__")
    }
    return type(cls.__name__, (base,), {**body, "__slots__": ()})  # type: ignore[return-value]
