"""AndroidWorld's information-retrieval tasks on Joplin (``proto/tasks.textproto``, ``Notes*``).

Each is defined by AndroidWorld's data (:mod:`gui_gym.android.sim.tasks.information`): the goal
and parameters are drawn as AndroidWorld draws them, and the start state is what its
``joplin_app_utils.setup_task_state`` writes: 100 noise notes drawn first (each in one of the
relevant notes' notebooks 30% of the time, else in any of twelve; a to-do or not; noise that
would change the answer drawn again), then the relevant notes; shuffled; a notebook is created
the first time a note needs it. The answer is judged as AndroidWorld's ``check_agent_answer``
judges it (the expected value formatted from the parameters).

The expert opens the relevant notebook from the side menu, brings the note(s) into view, opens the
note where the answer is in its body, and answers.

Ids: AndroidWorld's notes and notebooks get random UUIDs (``uuid4``, drawing nothing from
``random``); here they come from a generator of their own seeded by the instance, so a seed
always gives the same rows.
"""

from __future__ import annotations

import json
import random
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any, ClassVar

from gui_gym.android.sim.apps.joplin.app import NoteScreen, NotesScreen, SideMenu
from gui_gym.android.sim.apps.joplin.data import LABEL, YESTERDAY_MS, JoplinData, Row
from gui_gym.android.sim.apps.joplin.schema import NOTES_NORMALIZED, full
from gui_gym.android.sim.tasks.base import Milestone, Oracle, Params, in_app
from gui_gym.android.sim.tasks.information import (
    Exclusion,
    PromptQuestion,
    answer_is_correct,
    answer_text,
    compare,
    expected_answers,
    show_row,
    with_expected_values,
)
from gui_gym.android.sim.widgets import ROW_H

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

#: noise notes of a Notes task (``setup_task_state``'s 100)
NOISE = 100


@cache
def noise_notes() -> dict[str, tuple[tuple[str, str], ...]]:
    """``joplin_app_utils._FOLDERS``: each notebook's noise notes (title, body), in its order."""
    raw = json.loads(resources.files("gui_gym.android.sim.apps.joplin").joinpath("noise_notes.json").read_text())
    return {name: tuple((t, b) for t, b in notes) for name, notes in raw["folders"]}


def _db(dev: Device) -> JoplinData:
    return dev.data("joplin")


def _ids(seed: Any) -> Any:
    """32-hex-digit ids (``uuid4().hex``'s form) from a generator of the instance's own."""
    g = random.Random(f"joplin ids {seed}")
    while True:
        yield f"{g.getrandbits(128) & ~((0xC000 << 48) | (0xF000 << 64)) | (0x8000 << 48) | (4 << 76):032x}"


def note_row(folder_id: str, title: str, body: str, is_todo: bool, done: bool, note_id: str) -> Row:
    """``create_note``'s ``JoplinNote`` as the ``notes`` row it inserts (times: yesterday)."""
    return {
        "id": note_id,
        "parent_id": folder_id,
        "title": title,
        "body": body,
        "created_time": YESTERDAY_MS,
        "updated_time": YESTERDAY_MS,
        "user_created_time": YESTERDAY_MS,
        "user_updated_time": YESTERDAY_MS,
        "is_todo": int(is_todo),
        "todo_completed": int(done),
        "conflict_original_id": "",
    }


def passes(note: Row, folder_name: str, exclusions: list[Exclusion]) -> bool:
    """``_check_note_conditions``: False when the note meets every exclusion."""
    if not exclusions:
        return True
    met = True
    for field, op, value in exclusions:
        if field == "title":
            met = met and compare(note["title"].lower(), op, value.lower())
        elif field == "folder":
            met = met and compare(folder_name.lower(), op, value.lower())
        elif field in ("is_todo", "todo_completed"):
            met = met and compare(note[field], op, 1 if value.lower() == "true" else 0)
    return not met


def write_notes(dev: Device, params: Params, rows: list[Row], exclusions: list[Exclusion], r: random.Random) -> None:
    """``joplin_app_utils.setup_task_state``: the rows of the start state, with AndroidWorld's
    draws in its order; the relevant notes as ``[notebook, title, is_todo]`` in
    ``params["relevant_notes"]`` (by content: AndroidWorld's own set-up over adb gives them other,
    random ids)."""
    data = _db(dev)
    data.folders.clear()
    data.notes.clear()
    data.normalized.clear()
    data.selected = None
    ids = _ids(params.get("seed"))
    folder_ids: dict[str, str] = {}
    vocab = noise_notes()
    names = list(vocab)

    def folder(name: str) -> str:
        if name not in folder_ids:
            folder_ids[name] = data.add_folder(name, next(ids))["id"]
            data.folders[-1].update(
                created_time=YESTERDAY_MS,
                updated_time=YESTERDAY_MS,
                user_created_time=YESTERDAY_MS,
                user_updated_time=YESTERDAY_MS,
            )
        return folder_ids[name]

    relevant_folders = [row["folder"] for row in rows]
    noise: list[Row] = []
    tries = 0
    while len(noise) < NOISE:
        tries += 1
        if tries > 10_000:
            raise ValueError("generation exhausted")
        if r.random() < 0.3:
            name = r.choice(relevant_folders)
            if name not in vocab:
                raise ValueError(f"Unexpected folder name: {name}")
        else:
            name = r.choice(names)
        is_todo = str(r.choice([True, False])).lower() == "true"
        done = r.choice(["True", "False"]).lower() == "true"
        title, body = r.choice(vocab[name])
        note = note_row(folder(name), title, body, is_todo, done, next(ids))
        if passes(note, name, exclusions):
            noise.append(note)
    relevant = [
        note_row(
            folder(row["folder"]),
            row["title"],
            row["body"],
            row.get("is_todo", "").lower() == "true",
            row.get("todo_completed", "").lower() == "true",
            next(ids),
        )
        for row in rows
    ]
    notes = noise + relevant
    r.shuffle(notes)
    for n in notes:
        data.add_note(n)
    columns = NOTES_NORMALIZED.names
    for n in data.notes:  # _normalize_notes: the search copy, titles lower-cased
        data.normalized.append(full(NOTES_NORMALIZED, {k: n[k] for k in columns} | {"title": n["title"].lower()}))
    params["relevant_notes"] = [
        [row["folder"], n["title"], n["is_todo"]] for row, n in zip(rows, relevant, strict=True)
    ]
    params["notebook"] = rows[0]["folder"]


def folder_id(dev: Device, p: Params) -> str | None:
    """The id of the relevant notebook (by its name) on the phone now."""
    return next((f["id"] for f in _db(dev).folders if f["title"] == p["notebook"]), None)


def relevant_ids(dev: Device, p: Params) -> list[str]:
    """The ids of the relevant notes on the phone now, found by notebook, title and to-do flag."""
    db = _db(dev)
    names = {f["id"]: f["title"] for f in db.folders}
    out = []
    for folder, title, is_todo in p["relevant_notes"]:
        found = next(
            (
                n["id"]
                for n in db.notes
                if n["title"] == title and names.get(n["parent_id"]) == folder and n["is_todo"] == is_todo
            ),
            None,
        )
        if found is not None:
            out.append(found)
    return out


# ----------------------------------------------------------------------------- predicates


def notebook_shown(dev: Device, p: Params) -> bool:
    """The notes list of the relevant notebook is in front."""
    folder = folder_id(dev, p)
    return (
        folder is not None
        and in_app(dev, "joplin")
        and isinstance(dev.top_screen(), NotesScreen)
        and _db(dev).shown_folder() == folder
    )


def note_open(dev: Device, p: Params) -> bool:
    top = dev.top_screen()
    return in_app(dev, "joplin") and isinstance(top, NoteScreen) and top.note_id in relevant_ids(dev, p)[:1]


def rows_shown(dev: Device, p: Params) -> bool:
    """The relevant notebook's list shows every relevant note's row."""
    if not notebook_shown(dev, p):
        return False
    shown = {n.label for n in dev.elements() if n.role == "row"}
    db = _db(dev)
    return all((note := db.note(i)) is not None and note["title"] in shown for i in relevant_ids(dev, p))


# ----------------------------------------------------------------------------- oracle steps


def go_to_notebook(o: Oracle, folder: str | None) -> str | None:
    """From anywhere: the notes list of notebook ``folder`` (an id) with nothing over it; ``None``
    once there."""
    if o.app != "joplin":
        return o.launch(LABEL)
    if not isinstance(o.screen, NotesScreen):
        return o.back()
    db = _db(o.dev)
    d = o.dialog
    if isinstance(d, SideMenu):
        if db.shown_folder() == folder:
            return o.back()
        return o.tap(o.find(db.folder_title(folder), role="menuitem"))
    if d is not None:
        return o.back()
    if db.shown_folder() != folder:
        return o.tap(o.find(desc="Sidebar"))
    return None


def show_note(o: Oracle, note_id: str) -> str | None:
    """Scroll the notes list until the note's row shows whole; ``None`` once it does."""
    db = _db(o.dev)
    order = [n["id"] for n in db.notes_in(db.shown_folder())]
    if note_id not in order:
        return None
    return show_row(o, o.find(rid=":id/list", role="list"), order.index(note_id), ROW_H)


# ----------------------------------------------------------------------------- tasks


class NotesQuestion(PromptQuestion):
    """An IR task on Joplin: set-up writes the notebooks and notes; the expert reads the notes
    list of the relevant notebook (and opens the note where the answer is in its body)."""

    app = "joplin"
    apps = ("joplin",)
    #: the answer is in the note's body: the expert opens it
    opens_note: ClassVar[bool] = True
    placeholders: ClassVar[dict[str, str]] = {"Notebook": "notebook", "Title": "title"}
    milestones = (
        Milestone(f"Open {LABEL}", lambda d, p: in_app(d, "joplin")),
        Milestone("Open the notebook <Notebook>", notebook_shown),
        Milestone('Open the note "<Title>"', note_open),
    )

    def write_state(
        self, dev: Device, params: Params, rows: list[Row], exclusions: list[Exclusion], r: random.Random
    ) -> None:
        write_notes(dev, params, rows, exclusions, r)

    def expected(self, params: Params) -> list[Any]:
        return expected_answers(with_expected_values(self.definition, params), params["relevant"])

    def answer(self, params: Params) -> str:
        return answer_text(with_expected_values(self.definition, params), params["relevant"])

    def check(self, dev: Device, params: Params, answer: str | None, status: str | None) -> bool:
        return answer_is_correct(with_expected_values(self.definition, params), params["relevant"], answer)

    def oracle(self, o: Oracle) -> str:
        p = o.p
        if self.opens_note and note_open(o.dev, p) and o.dialog is None:
            return o.answer(self.answer(p))
        act = go_to_notebook(o, folder_id(o.dev, p))
        if act is not None:
            return act
        ids = relevant_ids(o.dev, p)
        for note_id in ids:
            act = show_note(o, note_id)
            if act is not None:
                return act
        if self.opens_note:
            title = _db(o.dev).note(ids[0])["title"]  # type: ignore[index]
            return o.tap(o.find(label=title, role="row"))
        return o.answer(self.answer(p))


class NotesIsTodo(NotesQuestion):
    """The notes list shows a to-do's checkbox: the expert reads the row."""

    id = "NotesIsTodo"
    template = (
        "Is the note titled '{title}' in the Joplin app marked as a todo item? Respond with either 'True' if it is a"
        " todo or 'False' if not."
    )
    difficulty = "easy"
    optimal_steps = 2
    tags = ("information_retrieval", "parameterized")
    opens_note = False
    milestones = (
        Milestone(f"Open {LABEL}", lambda d, p: in_app(d, "joplin")),
        Milestone("Open the notebook <Notebook>", notebook_shown),
        Milestone('Show the note "<Title>" in the list', rows_shown),
    )


class NotesMeetingAttendeeCount(NotesQuestion):
    id = "NotesMeetingAttendeeCount"
    template = (
        "How many attendees were present in the meeting titled '{title}' in the Joplin app? Express your answer as"
        " just a single number."
    )
    difficulty = "easy"
    optimal_steps = 3
    tags = ("search", "parameterized")


class NotesRecipeIngredientCount(NotesQuestion):
    id = "NotesRecipeIngredientCount"
    template = (
        "What quantity of {ingredient} do I need for the recipe '{title}' in the Joplin app? Express your answer in"
        " the format <amount> <unit> without using abbreviations."
    )
    difficulty = "easy"
    optimal_steps = 2
    tags = ("search", "parameterized")


class NotesTodoItemCount(NotesQuestion):
    """Three to-dos in the notebook and no other: the expert counts the checkboxes."""

    id = "NotesTodoItemCount"
    template = (
        "How many to-dos do I have in the '{folder}' folder in the Joplin app? Express your answer as just a single"
        " number."
    )
    difficulty = "medium"
    optimal_steps = 5
    tags = ("information_retrieval", "math_counting", "parameterized")
    opens_note = False
    placeholders: ClassVar[dict[str, str]] = {"Notebook": "notebook"}
    milestones = (
        Milestone(f"Open {LABEL}", lambda d, p: in_app(d, "joplin")),
        Milestone("Open the notebook <Notebook>", notebook_shown),
        Milestone("Show the to-dos of <Notebook>", rows_shown),
    )


TEMPLATES = (NotesIsTodo, NotesMeetingAttendeeCount, NotesRecipeIngredientCount, NotesTodoItemCount)

__all__ = ["TEMPLATES", "NotesQuestion", "noise_notes", "write_notes"]
