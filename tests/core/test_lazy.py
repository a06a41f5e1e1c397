"""LazyList: built once on first read, a list to every reader, a plain list once pickled."""

from __future__ import annotations

import copy
import pickle

import numpy as np

from gui_gym.core.lazy import LazyList


def test_built_once_on_first_read() -> None:
    calls: list[int] = []
    xs = LazyList(lambda: calls.append(1) or ["a", "b", "c"])
    assert calls == [] and not xs.built
    assert len(xs) == 3 and xs[1] == "b" and xs[-1] == "c" and xs[:2] == ["a", "b"]
    assert list(xs) == ["a", "b", "c"] and list(reversed(xs)) == ["c", "b", "a"] and "b" in xs
    assert xs == ["a", "b", "c"] and xs != ["a"] and xs == LazyList(lambda: ["a", "b", "c"])
    assert calls == [1] and xs.built
    assert xs[0] is xs.items()[0]  # the same objects on every read


def test_plain_list_when_pickled_or_copied() -> None:
    xs = LazyList(lambda: [1, 2])
    for out in (pickle.loads(pickle.dumps(xs)), copy.copy(xs), copy.deepcopy(xs)):
        assert type(out) is list and out == [1, 2]


def test_empty_is_falsy_and_unhashable() -> None:
    empty = LazyList(list)
    assert not empty and len(empty) == 0 and repr(empty) == "[]"
    try:
        hash(empty)
    except TypeError:
        pass
    else:
        raise AssertionError("a LazyList must be unhashable, like a list")


def test_fits_an_object_array_as_itself() -> None:
    # What Gymnasium's vector envs do with an info value that is not a number.
    a = np.full(2, None, dtype=object)
    a[0] = LazyList(lambda: [5, 6])
    assert a[0] == [5, 6]
