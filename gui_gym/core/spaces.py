"""A Gymnasium text space that holds any Unicode string up to a length."""

from __future__ import annotations

import string
from typing import Any

from gymnasium.spaces import Text


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
