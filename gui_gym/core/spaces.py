"""A Gymnasium text space that holds any Unicode string up to a length."""

from __future__ import annotations

import multiprocessing as mp
import string
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.spaces import Text
from gymnasium.vector.utils import create_shared_memory, read_from_shared_memory, write_to_shared_memory


class AnyText(Text):
    """:class:`gymnasium.spaces.Text` that *contains* any ``str`` of at most ``max_length``.

    Gymnasium's ``Text`` only contains strings over a fixed charset; UI dumps and agent
    output carry arbitrary Unicode (names, emoji typed by an agent), so membership here checks
    type and length only. ``sample()`` still draws from printable ASCII.

    Example:
        >>> space = AnyText(max_length=16)
        >>> space.contains("Sofía ☕"), space.contains("x" * 17)
        (True, False)
    """

    def __init__(self, max_length: int, *, min_length: int = 0, seed: Any = None) -> None:
        super().__init__(max_length, min_length=min_length, charset=string.printable, seed=seed)

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length

    def __repr__(self) -> str:
        return f"AnyText({self.min_length}, {self.max_length})"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, AnyText) and (self.min_length, self.max_length) == (other.min_length, other.max_length)


# AsyncVectorEnv's shared memory stores Text as indices into the charset, which cannot hold
# arbitrary Unicode. AnyText is stored as [length, code points...] per env instead, so a step
# copies only the characters in use.


@create_shared_memory.register(AnyText)
def _create(space: AnyText, n: int = 1, ctx: Any = mp) -> Any:
    return ctx.Array(np.dtype(np.int32).char, n * (space.max_length + 1))


class SharedTexts(Sequence):
    """A live view of the strings of ``n`` envs in shared memory.

    AsyncVectorEnv reads its observation buffer once and relies on views to see later
    steps; strings are not views, so this sequence decodes on access. ``copy.deepcopy``
    (what AsyncVectorEnv does with ``copy=True``, the default) gives a plain tuple.
    """

    def __init__(self, shared_memory: Any, n: int, max_length: int) -> None:
        self._data = np.frombuffer(shared_memory.get_obj(), dtype=np.int32).reshape((n, max_length + 1))

    def __len__(self) -> int:
        return len(self._data)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return tuple(self[j] for j in range(*i.indices(len(self))))
        row = self._data[i]
        return row[1 : 1 + int(row[0])].astype(np.uint32).tobytes().decode("utf-32-le", "surrogatepass")

    def __deepcopy__(self, memo: dict) -> tuple[str, ...]:
        return tuple(self)

    def __eq__(self, other: Any) -> bool:
        return tuple(self) == tuple(other) if isinstance(other, Sequence) else NotImplemented

    def __repr__(self) -> str:
        return f"SharedTexts({tuple(self)!r})"


@read_from_shared_memory.register(AnyText)
def _read(space: AnyText, shared_memory: Any, n: int = 1) -> SharedTexts:
    return SharedTexts(shared_memory, n, space.max_length)


@write_to_shared_memory.register(AnyText)
def _write(space: AnyText, index: int, values: str, shared_memory: Any) -> None:
    size = space.max_length + 1
    row = np.frombuffer(shared_memory.get_obj(), dtype=np.int32)[index * size : (index + 1) * size]
    cps = np.frombuffer(values.encode("utf-32-le", "surrogatepass"), dtype=np.int32)[: space.max_length]
    row[0] = len(cps)
    row[1 : 1 + len(cps)] = cps
