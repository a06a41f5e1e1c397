"""The Porter stemmer as Lucene's ``PorterStemFilter`` runs it.

Lucene's ``PorterStemmer`` follows Martin Porter's reference implementation, which departs from
the 1980 paper in three places: ``-bli`` → ``-ble`` (not ``-abli`` → ``-able``), ``-logi`` →
``-log``, and words of one or two letters left alone. Those departures are kept here, so the
index terms equal those of upstream WebShop's pyserini index.

Example:
    >>> [stem(w) for w in ("caresses", "ponies", "running", "hopping", "generalization", "sky")]
    ['caress', 'poni', 'run', 'hop', 'gener', 'sky']
    >>> [stem(w) for w in ("conditional", "probabilistic", "archaeology", "as", "washable")]
    ['condit', 'probabilist', 'archaeolog', 'as', 'washabl']
"""

from __future__ import annotations

from functools import lru_cache
from typing import ClassVar

__all__ = ["stem"]

_VOWELS = frozenset("aeiou")


class _Word:
    """One word being stemmed: ``b`` the letters, ``k`` the end, ``j`` the end of the stem
    before the suffix last tested (the reference implementation's variables)."""

    __slots__ = ("b", "j", "k")

    def __init__(self, word: str) -> None:
        self.b = list(word)
        self.k = len(word) - 1
        self.j = 0

    def cons(self, i: int) -> bool:
        ch = self.b[i]
        if ch in _VOWELS:
            return False
        if ch == "y":
            return i == 0 or not self.cons(i - 1)
        return True

    def m(self) -> int:
        """The measure: the number of vowel-consonant sequences in b[0..j]."""
        n, i, j = 0, 0, self.j
        while True:
            if i > j:
                return n
            if not self.cons(i):
                break
            i += 1
        i += 1
        while True:
            while True:
                if i > j:
                    return n
                if self.cons(i):
                    break
                i += 1
            i += 1
            n += 1
            while True:
                if i > j:
                    return n
                if not self.cons(i):
                    break
                i += 1
            i += 1

    def vowel_in_stem(self) -> bool:
        return any(not self.cons(i) for i in range(self.j + 1))

    def double_c(self, j: int) -> bool:
        return j >= 1 and self.b[j] == self.b[j - 1] and self.cons(j)

    def cvc(self, i: int) -> bool:
        if i < 2 or not self.cons(i) or self.cons(i - 1) or not self.cons(i - 2):
            return False
        return self.b[i] not in "wxy"

    def ends(self, s: str) -> bool:
        n = len(s)
        if n > self.k + 1 or "".join(self.b[self.k - n + 1 : self.k + 1]) != s:
            return False
        self.j = self.k - n
        return True

    def set_to(self, s: str) -> None:
        self.b[self.j + 1 : self.k + 1] = list(s)
        self.k = self.j + len(s)

    def r(self, s: str) -> None:
        if self.m() > 0:
            self.set_to(s)

    # -- the steps ----------------------------------------------------------------------------
    def step1ab(self) -> None:
        """Plurals, -eed, -ed, -ing."""
        if self.b[self.k] == "s":
            if self.ends("sses"):
                self.k -= 2
            elif self.ends("ies"):
                self.set_to("i")
            elif self.b[self.k - 1] != "s":
                self.k -= 1
        if self.ends("eed"):
            if self.m() > 0:
                self.k -= 1
        elif (self.ends("ed") or self.ends("ing")) and self.vowel_in_stem():
            self.k = self.j
            if self.ends("at"):
                self.set_to("ate")
            elif self.ends("bl"):
                self.set_to("ble")
            elif self.ends("iz"):
                self.set_to("ize")
            elif self.double_c(self.k):
                self.k -= 1
                if self.b[self.k] in "lsz":
                    self.k += 1
            elif self.m() == 1 and self.cvc(self.k):  # j == k here: the measure of the whole stem
                self.set_to("e")

    def step1c(self) -> None:
        """Terminal y to i when the stem has a vowel."""
        if self.ends("y") and self.vowel_in_stem():
            self.b[self.k] = "i"

    _STEP2: ClassVar[dict[str, tuple[tuple[str, str], ...]]] = {
        "a": (("ational", "ate"), ("tional", "tion")),
        "c": (("enci", "ence"), ("anci", "ance")),
        "e": (("izer", "ize"),),
        "l": (("bli", "ble"), ("alli", "al"), ("entli", "ent"), ("eli", "e"), ("ousli", "ous")),
        "o": (("ization", "ize"), ("ation", "ate"), ("ator", "ate")),
        "s": (("alism", "al"), ("iveness", "ive"), ("fulness", "ful"), ("ousness", "ous")),
        "t": (("aliti", "al"), ("iviti", "ive"), ("biliti", "ble")),
        "g": (("logi", "log"),),
    }
    _STEP3: ClassVar[dict[str, tuple[tuple[str, str], ...]]] = {
        "e": (("icate", "ic"), ("ative", ""), ("alize", "al")),
        "i": (("iciti", "ic"),),
        "l": (("ical", "ic"), ("ful", "")),
        "s": (("ness", ""),),
    }
    _STEP4: ClassVar[dict[str, tuple[str, ...]]] = {
        "a": ("al",),
        "c": ("ance", "ence"),
        "e": ("er",),
        "i": ("ic",),
        "l": ("able", "ible"),
        "n": ("ant", "ement", "ment", "ent"),
        "o": ("ion", "ou"),
        "s": ("ism",),
        "t": ("ate", "iti"),
        "u": ("ous",),
        "v": ("ive",),
        "z": ("ize",),
    }

    def step_table(self, table: dict[str, tuple[tuple[str, str], ...]], key_offset: int) -> None:
        if self.k < key_offset:
            return
        for suffix, replacement in table.get(self.b[self.k - key_offset], ()):
            if self.ends(suffix):
                self.r(replacement)
                return

    def step4(self) -> None:
        """-ant, -ence, ... removed when the measure exceeds 1."""
        if self.k < 1:
            return
        for suffix in self._STEP4.get(self.b[self.k - 1], ()):
            if self.ends(suffix):
                if suffix == "ion" and not (self.j >= 0 and self.b[self.j] in "st"):
                    continue  # "ion" only after s or t; "ou" is the next candidate
                break
        else:
            return
        if self.m() > 1:
            self.k = self.j

    def step5(self) -> None:
        """A final -e, and -ll to -l, by measure."""
        self.j = self.k
        if self.b[self.k] == "e":
            a = self.m()
            if a > 1 or (a == 1 and not self.cvc(self.k - 1)):
                self.k -= 1
        # the measure still counts up to the original end (j), as in the reference
        if self.b[self.k] == "l" and self.double_c(self.k) and self.m() > 1:
            self.k -= 1

    def result(self) -> str:
        return "".join(self.b[: self.k + 1])


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """The Porter stem of a lower-case *word* (words of up to two letters come back unchanged)."""
    if len(word) <= 2:
        return word
    w = _Word(word)
    w.step1ab()
    if w.k > 0:
        w.step1c()
        w.step_table(_Word._STEP2, 1)
        w.step_table(_Word._STEP3, 0)
        w.step4()
        w.step5()
    return w.result()
