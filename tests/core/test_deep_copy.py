"""``io.deep_copy`` (what snapshots copy with) copies as ``copy.deepcopy`` does: equal values, the
same types, shared references shared alike, copy hooks honoured."""

from __future__ import annotations

import copy
import datetime as dt
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gui_gym.core.io import Snapshot, deep_copy


@dataclass
class Row:
    name: str
    when: dt.datetime
    extra: dict[str, Any] = field(default_factory=dict)
    tags: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Slotted:
    x: list[int]


class Hooked:
    def __init__(self) -> None:
        self.copies = 0

    def __deepcopy__(self, memo: dict) -> Hooked:
        new = Hooked()
        new.copies = self.copies + 1
        return new


class Reduced:
    def __init__(self, v: list[int]) -> None:
        self.v = v

    def __reduce__(self) -> Any:
        return (Reduced, (self.v,))


def _shape(x: Any, seen: dict[int, int]) -> Any:
    """``x`` as plain nested data, each object numbered at first sight (so sharing shows)."""
    if id(x) in seen and not isinstance(x, (str, int, float, bool, type(None))):
        return ("ref", seen[id(x)])
    seen[id(x)] = len(seen)
    if isinstance(x, dict):
        return ("dict", [(_shape(k, seen), _shape(v, seen)) for k, v in x.items()])
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [_shape(v, seen) for v in x])
    if isinstance(x, (set, frozenset)):
        return (type(x).__name__, sorted(map(repr, x)))
    if hasattr(x, "__dict__") and not callable(x):
        return (type(x).__name__, _shape(vars(x), seen))
    if isinstance(x, Slotted):
        return ("Slotted", _shape(x.x, seen))
    return (type(x).__name__, x if isinstance(x, (str, int, float, bool, type(None), dt.date)) else None)


def test_deep_copy_is_deepcopy() -> None:
    shared = [1, 2]
    row = Row("a", dt.datetime(2023, 10, 15, 9, 30), {"k": shared}, ["x"])
    state: dict[str, Any] = {
        "rows": [row, row],
        "shared": shared,
        "tuple": (shared, 3, "s"),
        "plain_tuple": (1, "a", None),
        "set": {1, 2, 3},
        "frozen": frozenset({"a", "b"}),
        "slotted": Slotted(shared),
        "hooked": Hooked(),
        "reduced": Reduced(shared),
        "fn": len,
        "lambda": lambda: 1,
        "rng": np.random.default_rng(1),
        "day": dt.date(2023, 10, 15),
    }
    state["self"] = state  # a cycle
    a, b = copy.deepcopy(state), deep_copy(state)
    assert _shape(a, {}) == _shape(b, {})
    assert b["rows"][0] is b["rows"][1] is not row and b["rows"][0].extra["k"] is b["shared"] is b["tuple"][0]
    assert b["shared"] is not shared and b["self"] is b and b["plain_tuple"] is state["plain_tuple"]
    assert b["hooked"].copies == 1 and b["reduced"].v is b["shared"] and b["slotted"].x is b["shared"]
    assert b["lambda"] is state["lambda"] and b["rng"].random() == state["rng"].random()


def test_a_snapshot_is_a_fork() -> None:
    state = {"rows": [Row("a", dt.datetime(2023, 1, 1))]}
    snap = Snapshot.take(state)
    state["rows"][0].tags.append("changed")
    first = snap.load()
    first["rows"][0].name = "b"
    assert snap.load() == {"rows": [Row("a", dt.datetime(2023, 1, 1))]}
