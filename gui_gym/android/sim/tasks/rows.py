"""AndroidWorld's SQLite row tasks: draws without replacement, rows as text, the addition/deletion
checks of ``sqlite_validators``.

AndroidWorld's ``SQLiteApp`` tasks (Pro Expense's ``expense.py``, Broccoli's ``recipe.py``) share
their plumbing: rows are dataclasses of ``sqlite_schema_utils`` (kept here as dicts of their
fields), drawn by ``get_random_items``, shown by a ``_get_rows_as_text`` (``csv`` or
``text_block``), inserted after the table is cleared (``initialize_task``: the noise rows, keys
from 1, then a deletion task's targets), and checked by ``sqlite_validators``: an addition must
add rows matching the targets and change nothing else; a deletion must remove exactly the target
keys. :class:`Table` holds what differs between the apps (the data, the key column, the fields,
which fields are compared fuzzily); :class:`RowsTask` and its deletion / addition bases the
task logic they share.
"""

from __future__ import annotations

import functools
import operator
import random
import textwrap
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from gui_gym.android.sim.tasks.androidworld import AndroidWorldTask, fuzzy_match, ratio_at_least_09
from gui_gym.android.sim.tasks.base import Milestone, Oracle, Params

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

Row = dict[str, Any]


# ----------------------------------------------------------------------------- draws


class Exhausted(ValueError):
    """``get_random_items`` gave up (more than 10,000 candidates)."""


def random_items(
    r: random.Random,
    n: int,
    make: Callable[[random.Random], Any],
    keep: Callable[[Any], bool] | None = None,
    replacement: bool = False,
    build: Callable[[Any], Row] | None = None,
) -> list[Row]:
    """``sqlite_schema_utils.get_random_items``: ``n`` rows passing ``keep``; without
    replacement none equal to another in every field; :class:`Exhausted` after the 10,001st
    candidate. With ``build``, ``make`` draws a cheaper candidate (the draw's indices) that
    ``keep`` judges and ``build`` turns into its row once kept: the same draws, fewer rows built."""
    out: list[Row] = []
    seen: set[tuple] = set()  # each kept row's fields: equal rows are equal tuples
    tries = 0
    while len(out) < n:
        candidate = make(r)
        tries += 1
        if tries > 10_000:
            raise Exhausted(f"generation exhausted after {len(out)} of {n} items")
        if keep is not None and not keep(candidate):
            continue
        row = candidate if build is None else build(candidate)
        if replacement:
            out.append(row)
            continue
        fields = tuple(sorted(row.items()))  # keys are unique: values are never compared
        if fields not in seen:
            seen.add(fields)
            out.append(row)
    return out


def distinct_items(r: random.Random, n: int, make: Callable[[random.Random], Row], field: str) -> list[Row]:
    """The deletion tasks' draw: ``n`` rows, a candidate dropped when a kept row has its ``field``."""
    items: list[Row] = []
    while len(items) < n:
        candidate = make(r)
        if not any(candidate[field] == x[field] for x in items):
            items.append(candidate)
    return items


# ----------------------------------------------------------------------------- text


@functools.lru_cache(maxsize=4096)
def wrapped(text: str, width: int) -> str:
    """``textwrap.wrap``'s lines joined (the same field values come back every reset)."""
    return "\n".join(textwrap.wrap(text, width))


def _text(row: Row, name: str) -> str:
    return str(row[name])


# ----------------------------------------------------------------------------- the table


@functools.lru_cache(maxsize=64)
def _getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """An object's attributes ``names`` as a tuple (``attrgetter`` gives a bare value for one name)."""
    if len(names) == 1:
        one = operator.attrgetter(names[0])
        return lambda x: (one(x),)
    return operator.attrgetter(*names) if names else lambda x: ()


@dataclass(frozen=True)
class Table:
    """An app's SQLite table as AndroidWorld's tasks see it."""

    app: str  #: the app, and the key of its data on the device
    key: str  #: the primary key column (-1 in a row until the database numbers it)
    fields: tuple[str, ...]  #: the row dataclass's fields, in its order
    record: Callable[..., Any]  #: the app's record, built from every field but the key
    empty: Callable[[], Any]  #: the app's data, without rows
    read: Callable[[Any], list[Row]]  #: the rows of the app's data, by key (``list_rows``)
    exact: tuple[str, ...]  #: the fields an addition is compared on exactly
    fuzzy: tuple[str, ...]  #: ... and fuzzily
    noun: str  #: what the text blocks head each row with (``Expense``, ``Recipe``)
    text_fields: tuple[str, ...]  #: the fields the goals and files show, the heading's first
    value: Callable[[Row, str], str] = _text  #: a shown field's text
    #: the app's records, in any order, whose attributes are the row's fields (``None``: rows only).
    #: The per-step checks (a target saved, a key gone) read them without building rows.
    records: Callable[[Any], Iterable[Any]] | None = None

    # -- text

    def rows_as_text(self, items: Sequence[Row], format_type: str, wrap_width: int | None = None) -> str:
        """``_get_rows_as_text``: ``csv`` (a ``|`` header and lines) or ``text_block`` (``Noun:
        first field`` and one indented line per other field, blocks separated by a blank line;
        with ``wrap_width`` each value wrapped at that width by ``textwrap.wrap``)."""
        fields, value = self.text_fields, self.value
        if format_type == "csv":
            return "|".join(fields) + "\n" + "\n".join("|".join(value(x, f) for f in fields) for x in items)
        blocks = []
        for x in items:
            block = f"{self.noun}: {x[fields[0]]}\n"
            for f in fields[1:]:
                text = value(x, f)
                if wrap_width is not None:
                    text = wrapped(text, wrap_width)
                block += f" {f}: {text}\n"
            blocks.append(block)
        return "\n".join(blocks)

    # -- state

    def rows(self, dev: Device) -> list[Row]:
        """The app's rows, by key (what AndroidWorld's ``list_rows`` reads)."""
        return self.read(dev.data(self.app))

    def clear(self, dev: Device) -> None:
        """The table emptied (``SQLiteApp.initialize_task``)."""
        dev.state.data[self.app] = self.empty()

    def numbered(self, items: Sequence[Row], first: int = 1) -> list[Row]:
        """``items`` as the database holds them once inserted: keys from ``first``."""
        return [{**x, self.key: first + i} for i, x in enumerate(items)]

    def insert(self, dev: Device, items: Sequence[Row]) -> None:
        """``add_rows``: insert ``items`` (the key is the table's)."""
        data = dev.data(self.app)
        for x in items:
            data.add(self.record(**{k: x[k] for k in self.fields if k != self.key}))

    # -- checks

    def matches(self, reference: Row, x: Row) -> bool:
        """``validate_rows_addition_integrity``'s row match: the exact fields equal, the others fuzzy."""
        return all(reference[f] == x[f] for f in self.exact) and all(
            fuzzy_match(reference[f], x[f]) for f in self.fuzzy
        )

    def addition_ok(self, before: Sequence[Row], after: Sequence[Row], references: Sequence[Row]) -> bool:
        """``sqlite_validators.validate_rows_addition_integrity``: each reference matched, one row
        added per reference, every other row unchanged."""
        if not all(any(self.matches(ref, x) for x in after) for ref in references):
            return False
        if len(after) != len(before) + len(references):
            return False
        return all(x in after for x in before)

    def removal_ok(self, before: Sequence[Row], after: Sequence[Row], keys: Sequence[int]) -> bool:
        """``sqlite_validators.validate_rows_removal_integrity``: the rows ``keys`` gone, every
        other row unchanged, nothing added."""
        for x in before:
            if (x[self.key] in keys) == (x in after):
                return False
        return all(x in before for x in after)

    def saved(self, dev: Device, target: Row) -> bool:
        """A row matching ``target`` (as the check matches rows) is in the table."""
        if self.records is None:
            return any(self.matches(target, x) for x in self.rows(dev))
        # fuzzy_match inlined, the records' fields read as tuples: run every step for every target
        # over every record
        close = tuple(target[f] for f in self.fuzzy)
        if any(a is None for a in close):  # None never matches
            return False
        close = tuple(a.lower() for a in close)
        exact, fuzzy = _getter(self.exact), _getter(self.fuzzy)
        want = tuple(target[f] for f in self.exact)
        for x in self.records(dev.data(self.app)):
            if exact(x) != want:
                continue
            for a, b in zip(close, fuzzy(x), strict=True):
                if b is None or not ratio_at_least_09(a, b.lower()):
                    break
            else:
                return True
        return False

    def present(self, dev: Device) -> set[int]:
        """The keys in the table."""
        if self.records is None:
            return {x[self.key] for x in self.rows(dev)}
        return {getattr(x, self.key) for x in self.records(dev.data(self.app))}

    def gone(self, dev: Device, params: Params, i: int) -> bool:
        """The ``i``-th target's key (inserted after the noise) is no longer in the table."""
        key = len(params.get("noise_row_objects", [])) + i + 1
        return key not in self.present(dev)

    # -- milestones

    def saved_milestones(self, n: int, label: str) -> tuple[Milestone, ...]:
        """``Save the ... <X{i}>`` for the first ``n`` targets (``label`` formatted with ``i``)."""
        return tuple(
            Milestone(label.format(i + 1), lambda d, p, i=i: self.saved(d, p["row_objects"][i])) for i in range(n)
        )

    def gone_milestones(self, n: int, label: str) -> tuple[Milestone, ...]:
        """``Delete the ... <X{i}>`` for the first ``n`` targets (``label`` formatted with ``i``)."""
        return tuple(Milestone(label.format(i + 1), lambda d, p, i=i: self.gone(d, p, i)) for i in range(n))


# ----------------------------------------------------------------------------- tasks


class RowsTask(AndroidWorldTask):
    """A task on an app's table: set up as ``SQLiteApp.initialize_task`` leaves it."""

    table: ClassVar[Table]
    kind = "action"
    n_rows: ClassVar[int] = 1
    n_rows_noise: ClassVar[int] = 0

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        # SQLiteApp.initialize_task: the table cleared, then the noise rows inserted
        self.table.clear(dev)
        self.table.insert(dev, params.get("noise_row_objects", []))


class AddRows(RowsTask):
    """``AddMultipleRows``: the targets added to the noise; the oracle saves each in turn."""

    def add_step(self, o: Oracle, target: Row) -> str:
        """One step toward saving ``target`` in the app."""
        raise NotImplementedError

    def targets(self, params: Params) -> list[Row]:
        return params["row_objects"]

    def check(self, dev: Device, params: Params, answer: str | None, status: str | None) -> bool:
        return self.table.addition_ok(
            self.table.numbered(params["noise_row_objects"]), self.table.rows(dev), params["row_objects"]
        )

    def oracle(self, o: Oracle) -> str:
        for target in self.targets(o.p):
            if not self.table.saved(o.dev, target):
                return self.add_step(o, target)
        return o.finish()


class DeleteRows(RowsTask):
    """``DeleteMultipleRows``: the targets inserted after the noise, to be deleted."""

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        super().initialize(dev, params, r)
        self.table.insert(dev, params["row_objects"])  # DeleteMultipleRows: the targets after the noise

    @classmethod
    def before(cls, params: Params) -> list[Row]:
        return cls.table.numbered([*params.get("noise_row_objects", []), *params["row_objects"]])

    @classmethod
    def keys(cls, params: Params) -> list[int]:
        """``rows_to_delete``: the keys of the rows inserted last, the targets."""
        before = cls.before(params)
        return [x[cls.table.key] for x in before[len(before) - len(params["row_objects"]) :]]

    @classmethod
    def left(cls, dev: Device, params: Params) -> list[int]:
        """The targets' keys still in the table, in the instruction's order."""
        present = cls.table.present(dev)
        return [k for k in cls.keys(params) if k in present]

    def check(self, dev: Device, params: Params, answer: str | None, status: str | None) -> bool:
        return self.table.removal_ok(self.before(params), self.table.rows(dev), self.keys(params))


class DeleteDuplicateRows(DeleteRows):
    """``DeleteDuplicateRows``: a row and its copy after the noise; one of the two to be deleted."""

    def delete_step(self, o: Oracle, keys: Sequence[int]) -> str:
        """One step toward deleting one of the rows ``keys`` in the app."""
        raise NotImplementedError

    @classmethod
    def keys(cls, params: Params) -> list[int]:
        """The two duplicates' keys (inserted after the noise)."""
        n = len(params["noise_row_objects"])
        return [n + 1, n + 2]

    @classmethod
    def one_removed(cls, dev: Device, params: Params) -> bool:
        present = cls.table.present(dev)
        return sum(k in present for k in cls.keys(params)) == 1

    def check(self, dev: Device, params: Params, answer: str | None, status: str | None) -> bool:
        before = self.table.numbered([*params["noise_row_objects"], *params["row_objects"]])
        after = self.table.rows(dev)
        return any(self.table.removal_ok(before, after, [k]) for k in self.keys(params))

    def oracle(self, o: Oracle) -> str:
        present = self.table.present(o.dev)
        keys = self.keys(o.p)
        if not all(k in present for k in keys):
            return o.finish()
        return self.delete_step(o, keys)
