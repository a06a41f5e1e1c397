"""Shared state files: atomic saves, corrupt files, several processes on one book."""

from __future__ import annotations

import json
import os

import pytest
from _util import run_in_processes

from gui_gym.core import Step, Trajectory
from wrappers import GenerationError, MilestoneBook, ShortestLengths, StateFileError


def successful(task_id: str, descriptions: list[str], placeholders: dict | None = None) -> Trajectory:
    steps = [Step(action="", action_description=d, info={"obs": str(i)}) for i, d in enumerate(descriptions)]
    return Trajectory(task_id, f"do {task_id}", steps=steps, success=True, meta={"placeholders": placeholders or {}})


def keep_all(req):
    return [s.action_description for s in req.trajectory.steps]


def test_book_save_load_round_trip(tmp_path):
    book = MilestoneBook(generator=keep_all)
    book.update(successful("A", ["Open A", "Save <X>"]), epoch=2)
    book.record("A", ["Open A"], epoch=2)
    book.record("B", [], epoch=2)
    path = book.save(tmp_path / "book.json")
    back = MilestoneBook.load(path)
    assert back.templates("A") == ["Open A", "Save <X>"]
    assert back.versions("A") == [
        {"version": 1, "milestones": ["Open A", "Save <X>"], "epoch": 2, "source": "init", "length": 2}
    ]
    assert back.hit_counts("A") == {2: {"Open A": 1}}
    assert back.coverage() == 0.5  # A has milestones, B was seen without
    assert json.loads(path.read_text())["kind"] == "milestone_book"


def test_refinement_adds_a_version_and_unchanged_output_does_not():
    book = MilestoneBook(generator=keep_all)
    assert book.update(successful("A", ["a", "b", "c"]))
    assert not book.update(successful("A", ["a", "b", "c"]))  # Φ returned the same milestones
    assert book.update(successful("A", ["a", "c"]), epoch=4)
    assert [v["source"] for v in book.versions("A")] == ["init", "refine"]
    assert book.version("A") == 2 and book.templates("A") == ["a", "c"]
    assert not book.update(Trajectory("A", "x", steps=[Step("")], success=False))  # failures teach nothing


@pytest.mark.parametrize(
    "output",
    [GenerationError("the LLM said: I cannot help with that"), [], ["ok", ""], "not a list", [1, 2], None],
)
def test_bad_generator_output_keeps_the_previous_milestones(output, caplog):
    book = MilestoneBook(generator=keep_all)
    book.update(successful("A", ["a", "b"]))

    def bad(req):
        if isinstance(output, Exception):
            raise output
        return output

    book.generator = bad
    with caplog.at_level("WARNING"):
        assert not book.update(successful("A", ["x"]))
    assert book.templates("A") == ["a", "b"]
    assert "kept" in caplog.text


def test_a_crashing_generator_does_not_raise(caplog):
    def broken(req):
        raise KeyError("bug")

    book = MilestoneBook(generator=broken)
    assert not book.update(successful("A", ["a"]))
    assert "KeyError" in caplog.text and book.templates("A") == []


def test_placeholders_are_filled_per_episode():
    book = MilestoneBook(generator=keep_all)
    book.set("ContactsFavorite", ['Open the contact "<Name>"', "Add <Name> to favourites"])
    assert book.milestones("ContactsFavorite", {"Name": "Kofi Rossi"}) == [
        'Open the contact "Kofi Rossi"',
        "Add Kofi Rossi to favourites",
    ]
    assert book.milestones("Unknown", {"Name": "x"}) == []


def test_crash_mid_write_keeps_the_previous_copy(tmp_path, monkeypatch):
    path = tmp_path / "book.json"
    book = MilestoneBook(path, generator=keep_all)
    book.update(successful("A", ["a"]))
    before = path.read_text()

    def crash(src, dst):
        raise OSError("power cut")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="power cut"):
        book.update(successful("A", ["b", "c", "d"]))
    monkeypatch.undo()
    assert path.read_text() == before  # the file on disk is the last complete version
    assert MilestoneBook.load(path).templates("A") == ["a"]
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]  # no litter


def test_corrupt_file_is_a_clear_error_and_is_never_overwritten(tmp_path, caplog):
    path = tmp_path / "book.json"
    book = MilestoneBook(path, generator=keep_all)
    book.update(successful("A", ["a"]))
    book.update(successful("B", ["b"]))  # now book.json.bak holds the first version
    path.write_text('{"kind": "milestone_book", "data": {"tasks": [')
    with pytest.raises(StateFileError, match=r"cannot read.*previous good copy is .*book\.json\.bak"):
        MilestoneBook.load(path)
    assert MilestoneBook.load(f"{path}.bak").templates("A") == ["a"]
    # A running book keeps the copy it read, refuses to overwrite the broken file and writes its
    # change to a recovery file beside it.
    with caplog.at_level("WARNING"):
        assert book.templates("A") == ["a"]
        book.update(successful("C", ["c"]))
    assert "not overwriting" in caplog.text
    assert path.read_text().endswith("[")
    assert book.recovery_path is not None and MilestoneBook.load(book.recovery_path).templates("C") == ["c"]


def test_wrong_kind_and_missing_files(tmp_path):
    lengths = ShortestLengths()
    lengths.observe("k", 3)
    p = lengths.save(tmp_path / "spa.json")
    with pytest.raises(StateFileError, match="not a milestone_book file"):
        MilestoneBook.load(p)
    with pytest.raises(StateFileError, match="no such"):
        ShortestLengths.load(tmp_path / "missing.json")
    with pytest.raises(ValueError, match="no file"):
        ShortestLengths().save()
    assert ShortestLengths.load(p).get("k") == 3


def _worker(path: str, worker: int, n: int) -> None:
    book = MilestoneBook(path, generator=keep_all)
    lengths = ShortestLengths(f"{path}.spa")
    for i in range(n):
        book.update(successful(f"T{worker}-{i % 3}", [f"step {worker} {i}"]))
        book.record("shared", ["m"], epoch=0)
        lengths.observe("shared", 100 - (worker * n + i))
    book.flush()


def test_several_processes_share_one_book(tmp_path):
    path = str(tmp_path / "book.json")
    run_in_processes(_worker, [(path, w, 12) for w in range(3)])
    book = MilestoneBook.load(path)
    assert len(book.tasks()) == 3 * 3 + 1
    assert sum(book.to_dict()["tasks"][t]["successes"] for t in book.tasks()) == 36  # no update lost
    assert book.hit_counts("shared") == {0: {"m": 36}}
    assert ShortestLengths.load(f"{path}.spa").get("shared") == 100 - 35


def test_pickled_book_keeps_its_file(tmp_path):
    import pickle

    book = MilestoneBook(tmp_path / "b.json", generator=keep_all)
    book.update(successful("A", ["a"]))
    clone = pickle.loads(pickle.dumps(book))
    clone.update(successful("B", ["b"]))
    assert book.templates("B") == ["b"]  # the original reloads what the clone wrote


# ----------------------------------------------------------------------------- damaged mid-run

DAMAGES = {
    "garbage": b"\x00\xffgarbage from another process",
    "truncated": b"",
    "cut-short": b'{"kind": "milestone_book", "format_version": 1, "da',
}


def _recovered(path) -> list:
    return sorted(path.parent.glob(f"{path.stem}.recovered-*{path.suffix}"))


def _one_warning(caplog) -> str:
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 1, warnings
    return warnings[0]


@pytest.mark.parametrize("damage", DAMAGES.values(), ids=list(DAMAGES))
def test_a_book_damaged_mid_run_loses_none_of_the_runs_updates(tmp_path, caplog, damage: bytes):
    path = tmp_path / "book.json"
    book = MilestoneBook(path, generator=keep_all)
    book.update(successful("A", ["Open A", "Save <X>"]), epoch=0)
    book.record("A", ["Open A"], epoch=0)  # a hit counted before the damage, not yet written
    path.write_bytes(damage)  # another process damages the file mid-run
    with caplog.at_level("WARNING"):
        book.update(successful("B", ["Open B"]), epoch=1)  # the update made after the damage
        book.record("B", ["Open B"], epoch=1)
        book.flush()
        book.save()
    assert path.read_bytes() == damage  # the damaged file is left as it is
    [recovery] = _recovered(path)
    assert book.recovery_path == recovery
    warning = _one_warning(caplog)
    assert str(path) in warning and str(recovery) in warning
    # the recovery file is a whole book: what was read before the damage and every change since
    back = MilestoneBook.load(recovery)
    assert back.templates("A") == ["Open A", "Save <X>"] and back.templates("B") == ["Open B"]
    assert back.hit_counts("A") == {0: {"Open A": 1}} and back.hit_counts("B") == {1: {"Open B": 1}}
    # later changes of the run go to the same recovery file
    book.set("C", ["Open C"])
    assert _recovered(path) == [recovery] and MilestoneBook.load(recovery).templates("C") == ["Open C"]
    assert path.read_bytes() == damage


@pytest.mark.parametrize("damage", DAMAGES.values(), ids=list(DAMAGES))
def test_spa_lengths_damaged_mid_run_lose_none_of_the_runs_updates(tmp_path, caplog, damage: bytes):
    path = tmp_path / "spa.json"
    lengths = ShortestLengths(path)
    lengths.observe("a", 5)
    path.write_bytes(damage)
    with caplog.at_level("WARNING"):
        assert lengths.observe("a", 3) == 3  # a shorter success after the damage
        assert lengths.observe("b", 7) == 7
        lengths.save()
    assert path.read_bytes() == damage
    [recovery] = _recovered(path)
    assert lengths.recovery_path == recovery
    warning = _one_warning(caplog)
    assert str(path) in warning and str(recovery) in warning
    assert ShortestLengths.load(recovery).to_dict() == {"shortest": {"a": 3, "b": 7}}
    assert lengths.observe("c", 2) == 2 and _recovered(path) == [recovery]
    assert ShortestLengths.load(recovery).get("c") == 2 and path.read_bytes() == damage


@pytest.mark.parametrize("cls", [MilestoneBook, ShortestLengths])
def test_after_a_repair_the_state_follows_the_file_and_names_the_recovery_file(tmp_path, caplog, cls):
    def change(state, key: str) -> None:
        state.set(key, [f"open {key}"]) if cls is MilestoneBook else state.observe(key, 1)

    def has(path, key: str) -> bool:
        return key in cls.load(path).to_dict()["tasks" if cls is MilestoneBook else "shortest"]

    path = tmp_path / "state.json"
    state = cls(path)
    change(state, "a")
    good = path.read_bytes()
    path.write_text("garbage")
    change(state, "b")
    recovery = state.recovery_path
    assert recovery is not None and has(recovery, "b")
    path.write_bytes(good)  # another process puts a good copy back
    caplog.clear()
    with caplog.at_level("WARNING"):
        change(state, "c")
    assert state.recovery_path is None and str(recovery) in _one_warning(caplog)
    assert has(path, "c") and not has(path, "b") and has(recovery, "b")  # kept, for a person to merge
    # a damaged file that is removed is written afresh
    path.write_text("garbage")
    change(state, "d")
    path.unlink()
    change(state, "e")
    assert has(path, "d") and has(path, "e") and len(_recovered(path)) == 2


@pytest.mark.parametrize("cls", [MilestoneBook, ShortestLengths])
def test_a_copy_in_another_process_names_its_own_recovery_file(tmp_path, cls):
    import pickle

    def change(state, key: str) -> None:
        state.set(key, [f"open {key}"]) if cls is MilestoneBook else state.observe(key, 1)

    path = tmp_path / "state.json"
    state = cls(path)
    change(state, "a")
    path.write_text("garbage")
    change(state, "b")
    clone = pickle.loads(pickle.dumps(state))
    assert state.recovery_path is not None and clone.recovery_path is None
    change(clone, "c")
    assert clone.recovery_path not in (None, state.recovery_path) and len(_recovered(path)) == 2
    assert path.read_text() == "garbage"


def test_two_writers_on_a_damaged_file_each_keep_their_updates(tmp_path):
    path = tmp_path / "spa.json"
    ShortestLengths(path).observe("before", 4)
    good = path.read_bytes()
    path.write_text("garbage")
    # a worker that opens the damaged file fails at once; ones already running keep their updates
    with pytest.raises(StateFileError):
        ShortestLengths(path)
    path.write_bytes(good)
    states = [ShortestLengths(path) for _ in range(2)]
    path.write_text("garbage")
    for w, lengths in enumerate(states):
        for i in range(3):
            lengths.observe(f"w{w}-{i}", 10 + i)
    recoveries = {s.recovery_path for s in states}
    assert None not in recoveries and len(recoveries) == 2 and len(_recovered(path)) == 2
    for w, lengths in enumerate(states):
        back = ShortestLengths.load(lengths.recovery_path).to_dict()["shortest"]
        assert back == {"before": 4, **{f"w{w}-{i}": 10 + i for i in range(3)}}
    assert path.read_text() == "garbage"


# ----------------------------------------------------------------------------- damaged documents


def _book_document(tmp_path) -> dict:
    book = MilestoneBook(tmp_path / "good.json", generator=keep_all)
    book.update(successful("A", ["Open A", "Save <X>"], {"X": "x1"}), epoch=1)
    book.record("A", ["Open A"], epoch=1)
    book.flush()
    return json.loads((tmp_path / "good.json").read_text())


def _set(doc: dict, where: tuple, value) -> dict:
    doc = json.loads(json.dumps(doc))
    target = doc
    for key in where[:-1]:
        target = target[key]
    target[where[-1]] = value
    return doc


TASK = ("data", "tasks", "A")
BAD_BOOKS = {
    "entry not an object": (TASK, ["Open A"]),
    "milestones not strings": ((*TASK, "milestones"), ["Open A", 3]),
    "versions not a list": ((*TASK, "versions"), "1"),
    "version without epoch": ((*TASK, "versions", 0, "epoch"), None),
    "version number a string": ((*TASK, "versions", 0, "version"), "1"),
    "version length a string": ((*TASK, "versions", 0, "length"), "2"),
    "version milestones a string": ((*TASK, "versions", 0, "milestones"), "Open A"),
    "hits not an object": ((*TASK, "hits"), [1]),
    "hits epoch not a number": ((*TASK, "hits"), {"first": {"Open A": 1}}),
    "hit count a string": ((*TASK, "hits", "1", "Open A"), "1"),
    "episodes a string": ((*TASK, "episodes"), "3"),
    "successes negative": ((*TASK, "successes"), -1),
    "successes a bool": ((*TASK, "successes"), True),
    "history not a list": ((*TASK, "history"), {}),
    "history record without task": ((*TASK, "history", 0, "task_id"), 7),
    "history steps not a list": ((*TASK, "history", 0, "steps"), "a"),
    "history step too short": ((*TASK, "history", 0, "steps", 0), ["Open A", True]),
    "history step flag a string": ((*TASK, "history", 0, "steps", 0, 1), "yes"),
    "placeholder not a string": ((*TASK, "history", 0, "placeholders", "X"), 1),
    "missing successes": (TASK, {"milestones": [], "versions": [], "history": [], "hits": {}, "episodes": 0}),
    "format_version a string": (("format_version",), "1"),
}


@pytest.mark.parametrize("case", BAD_BOOKS, ids=list(BAD_BOOKS))
def test_a_half_valid_book_fails_at_load_naming_the_entry(tmp_path, case):
    """Every field the book reads later is checked at load: the error names the file and the entry."""
    where, value = BAD_BOOKS[case]
    path = tmp_path / "book.json"
    path.write_text(json.dumps(_set(_book_document(tmp_path), where, value)))
    with pytest.raises(StateFileError) as e:
        MilestoneBook.load(path)
    msg = str(e.value)
    assert msg.startswith(f"{path}: cannot read this milestone_book (")
    assert "format_version" in msg if where[0] == "format_version" else "task 'A'" in msg, msg


def test_the_good_document_of_those_cases_loads(tmp_path):
    path = tmp_path / "book.json"
    path.write_text(json.dumps(_book_document(tmp_path)))
    book = MilestoneBook.load(path, generator=keep_all)
    assert book.templates("A") == ["Open A", "Save <X>"] and book.hit_counts("A") == {1: {"Open A": 1}}
    assert book.update(successful("A", ["Open A"]), epoch=2)  # the history it read is usable


@pytest.mark.parametrize(
    "text", ["[" * 100_000 + "]" * 100_000, '{"a": ' * 50_000 + "1" + "}" * 50_000], ids=["lists", "objects"]
)
def test_deeply_nested_state_files_are_a_state_file_error(tmp_path, text):
    for cls in (MilestoneBook, ShortestLengths):
        path = tmp_path / f"{cls.kind}.json"
        path.write_text(text)
        with pytest.raises(StateFileError, match=rf"^{path}: cannot read this {cls.kind} \(.*nested deeper than"):
            cls.load(path)


def test_a_byte_order_mark_is_not_damage(tmp_path):
    lengths = ShortestLengths()
    lengths.observe("k", 3)
    path = lengths.save(tmp_path / "spa.json")
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert ShortestLengths.load(path).get("k") == 3


@pytest.mark.parametrize("table", [{"k": True}, {"k": "3"}, {"k": 0}, {"k": 2.5}, []])
def test_spa_lengths_must_be_positive_integers(tmp_path, table):
    path = tmp_path / "spa.json"
    path.write_text(json.dumps({"kind": "spa_shortest_lengths", "format_version": 1, "data": {"shortest": table}}))
    with pytest.raises(StateFileError, match=rf"^{path}: cannot read this spa_shortest_lengths \('shortest' must"):
        ShortestLengths.load(path)
