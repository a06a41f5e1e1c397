"""Plain-data unpickling: containers, numbers, numpy arrays and named classes load; code does not."""

from __future__ import annotations

import collections
import datetime as dt
import os
import pickle
from dataclasses import dataclass

import numpy as np
import pytest

from gui_gym.core.io import load_plain


@dataclass
class Point:
    x: int
    y: float


HERE = (__name__, "Point")


@pytest.mark.parametrize("protocol", [2, 4, pickle.HIGHEST_PROTOCOL])
def test_plain_data_round_trips(protocol: int) -> None:
    data = {
        "ints": [1, -2, 10**30], "floats": (1.5, float("inf")), "text": "Sofía ☕", "raw": b"\x00\x01",
        "set": {1, 2}, "frozen": frozenset({"a"}), "counts": collections.Counter("abca"),
        "by": collections.defaultdict(list, {"k": [1]}), "when": dt.datetime(2026, 11, 23, 15, 0),
        "arrays": [np.arange(4, dtype=np.int64), np.zeros((2, 3), np.float32), np.array([True, False])],
        "scalar": np.float64(0.25),
    }  # fmt: skip
    out = load_plain(pickle.dumps(data, protocol=protocol))
    assert out.keys() == data.keys() and out["by"]["k"] == [1] and out["counts"]["a"] == 2
    for a, b in zip(out["arrays"], data["arrays"], strict=True):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    assert {k: v for k, v in out.items() if k != "arrays"} == {k: v for k, v in data.items() if k != "arrays"}


@pytest.mark.parametrize("payload", [os.system, eval, getattr, Point(1, 2.0), pickle.loads])
def test_every_other_global_is_refused(payload: object) -> None:
    with pytest.raises(pickle.UnpicklingError, match="refusing to load"):
        load_plain(pickle.dumps(payload))


def test_a_crafted_reduce_runs_nothing(tmp_path) -> None:
    marker = tmp_path / "ran"

    class Evil:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    with pytest.raises(pickle.UnpicklingError, match=r"(posix|nt)\.system"):
        load_plain(pickle.dumps(Evil()))
    assert not marker.exists()


def test_named_and_moved_classes_load() -> None:
    assert load_plain(pickle.dumps([Point(1, 2.0)]), classes=[HERE]) == [Point(1, 2.0)]
    old = pickle.dumps(Point(3, 4.0), protocol=0).replace(f"c{__name__}\nPoint".encode(), b"cold.place\nPoint")
    assert load_plain(old, classes=[HERE], moved={("old.place", "Point"): HERE}) == Point(3, 4.0)
