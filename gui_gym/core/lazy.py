"""A list built on first read: for ``info`` entries that cost more than most agents read.

Example:
    >>> import copy
    >>> xs = LazyList(lambda: [3, 1, 2])
    >>> xs.built
    False
    >>> len(xs), xs[0], xs == [3, 1, 2], xs.built
    (3, 3, True, True)
    >>> type(copy.deepcopy(xs)), xs.__reduce__()[0]  # copied or pickled: a plain list
    (<class 'list'>, <class 'list'>)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, Generic, TypeVar, overload

T = TypeVar("T")


class LazyList(Sequence[T], Generic[T]):
    """A read-only sequence whose items ``build()`` makes on the first read, once.

    It reads as a list (``len``, indexing, slicing, iteration, ``+``, ``copy()``, ``==`` with a
    list; it is no ``list`` subclass, so ``list(x)`` where a real list is needed), and pickles,
    copies and deep-copies as the plain list it holds, so a process that receives it never sees
    a builder. ``build`` must capture what it reads when the ``LazyList`` is made (a screen's
    nodes, not "the current screen"), so a late read gives the same items as an early one.
    """

    __slots__ = ("_build", "_items")

    def __init__(self, build: Callable[[], list[T]]) -> None:
        self._build: Callable[[], list[T]] | None = build
        self._items: list[T] | None = None

    @property
    def built(self) -> bool:
        """Whether the items exist yet."""
        return self._items is not None

    def items(self) -> list[T]:
        """The items as the list they are kept in (built now if not yet)."""
        if self._items is None:
            assert self._build is not None
            self._items, self._build = list(self._build()), None
        return self._items

    def __len__(self) -> int:
        return len(self.items())

    @overload
    def __getitem__(self, i: int) -> T: ...
    @overload
    def __getitem__(self, i: slice) -> list[T]: ...
    def __getitem__(self, i: int | slice) -> T | list[T]:
        return self.items()[i]

    def __iter__(self) -> Iterator[T]:
        return iter(self.items())

    def __bool__(self) -> bool:
        return bool(self.items())

    def copy(self) -> list[T]:
        """The items as a new plain list."""
        return list(self.items())

    def __add__(self, other: Sequence[T]) -> list[T]:
        return self.items() + list(other)

    def __radd__(self, other: Sequence[T]) -> list[T]:
        return list(other) + self.items()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazyList):
            other = other.items()
        return self.items() == other

    __hash__ = None  # type: ignore[assignment]  # like a list

    def __repr__(self) -> str:
        return repr(self.items())

    def __reduce__(self) -> tuple[Any, ...]:
        return (list, (self.items(),))
