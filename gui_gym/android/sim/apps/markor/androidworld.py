"""AndroidWorld's Markor tasks (``task_evals/single/markor.py``, ``composite/markor_sms.py``).

Markor's notebook is the folder ``/storage/emulated/0/Documents/Markor`` (:data:`NOTEBOOK`): each
task's set-up writes its notes there as AndroidWorld's ``file_utils.create_file`` does
(``mkdir -p``, then ``echo '<text>' > <path>``: the file holds the text and a line break, stamped
with the phone's clock), and each check reads the notebook as AndroidWorld's judging commands do:

- ``check_file_or_folder_exists(name, dir)``: ``find <dir> -type f -o -type d`` lists
  ``<dir>/<name>`` (a file or a folder at that exact path): :func:`exists`;
- ``cat <path>`` with ``\\r`` removed, stripped, ``fuzzy_match``-ed (``CreateFile``,
  ``check_file_content``), or compared byte for byte (``exact_match=True``): :func:`cat`;
- ``get_file_list_with_metadata(dir)``: ``ls <dir> -ll -au``, the regular files directly in
  ``dir`` with their time stamps: :func:`file_list`.

Draws follow AndroidWorld's order: ``generate`` replays ``generate_random_params``;
``initialize`` replays ``initialize_task``, including the validators' own re-seeding
(``MoveFile``/``DeleteFile`` receive the task's parameters with their seed and call
``random.seed`` again; ``CreateFile`` built from a new dict does not). Noise files are drawn as
a set whose order AndroidWorld does not fix; they are written in sorted order.
"""

from __future__ import annotations

import datetime as dt
import random
import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from gui_gym.android.sim.apps.markor.app import NEW_TITLE, DocumentScreen, FileBrowser, NameDialog, join
from gui_gym.android.sim.apps.markor.common import (  # noqa: F401 (some only re-exported: other apps import them from here)
    EXTENSIONS,
    NOTE_TITLES,
    MarkorAWTask,
    cat,
    clear_device_storage,
    content_matches,
    create_file,
    exists,
    file_list,
    file_open,
    noise_files,
    note_step,
    notebook,
    open_file_step,
    random_note,
)
from gui_gym.android.sim.apps.markor.tasks import (
    create_step,
    delete_step,
    dialog_open,
    editing,
    in_markor,
    move_step,
    open_note,
    rename_step,
    screens,
    selected,
    write_note,
)
from gui_gym.android.sim.apps.markor.transcribe import (  # noqa: F401 (some only re-exported)
    DOWNLOAD,
    RECEIPT_COMPANIES,
    RECEIPT_FOOTER,
    RECEIPT_HEADER,
    RECEIPT_ITEMS,
    RECEIPT_PICTURE,
    RECEIPT_SLOGANS,
    VIDEO_MESSAGE_SECONDS,
    VIDEO_PREFIXES,
    VIDEO_SUFFIXES,
    MarkorTranscribeReceipt,
    MarkorTranscribeVideo,
    receipt_transaction,
    video_file_name,
)
from gui_gym.android.sim.tasks.androidworld import (
    SENTENCES,
    AndroidWorldTask,
    fuzzy_match,
    random_file_name,
    random_number,
    random_string,
)
from gui_gym.android.sim.tasks.base import Milestone, Oracle, Params, in_app
from gui_gym.android.sim.widgets import KEYBOARD_TOP

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

#: ``MarkorMoveNote.generate_random_params``'s folders.
SUBFOLDERS: tuple[str, ...] = (
    "BookNotes",
    "CodeSnippets",
    "DailyNotes",
    "FitnessPlans",
    "MeetingMinutes",
    "PersonalJournal",
    "RecipeCollections",
    "StudyGuides",
    "TravelItineraries",
    "WorkProjects",
)
#: How far back ``SimpleSMSSendSms``'s ``was_sent`` looks for the message (minutes of phone time).
SMS_WINDOW = dt.timedelta(minutes=5)


# ----------------------------------------------------------------------------- tasks


OPEN = Milestone("Open the Markor app", lambda d, p: in_markor(d))


def _creating(d: Device, p: Params, key: str = "file_name") -> bool:
    return dialog_open(d, NameDialog, NEW_TITLE) or exists(d, p[key])


class MarkorCreateNote(MarkorAWTask):
    """``MarkorCreateNote``: a new note with a sentence (``CreateFile``: the name exists, the text
    fuzzy-matches)."""

    id = "MarkorCreateNote"
    template = "Create a new note in Markor named {file_name} with the following text: {text}"
    difficulty = "medium"
    optimal_steps = 8
    tags = ("data_entry", "parameterized")
    placeholders: ClassVar[dict[str, str]] = {"FileName": "file_name", "Text": "text"}
    milestones = (
        OPEN,
        Milestone("Open the dialog to create a new file", _creating),
        Milestone("Create the note <FileName>", lambda d, p: exists(d, p["file_name"])),
        Milestone(
            'Write "<Text>" into <FileName> and save it', lambda d, p: content_matches(d, p["file_name"], p["text"])
        ),
    )

    def generate(self, r: random.Random) -> Params:
        name, text = random_note(r)
        return {"file_name": name, "text": text}

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return content_matches(dev, p["file_name"], p["text"])

    def oracle(self, o: Oracle) -> str:
        p = o.p
        if self.check(o.dev, p, None, None):
            return o.finish()
        return note_step(o, p["file_name"], p["text"])


class MarkorCreateNoteFromClipboard(MarkorAWTask):
    """``MarkorCreateNoteFromClipboard``: the clipboard holds 10 random characters at set-up
    (``adb_utils.set_clipboard_contents``); a new note must hold them (fuzzy)."""

    id = "MarkorCreateNoteFromClipboard"
    apps = ("markor",)  # and AndroidWorld's "clipper" helper, which sets the clipboard
    template = "Create a note in Markor named {file_name}. Perform a paste operation in the note and save the note."
    difficulty = "medium"
    optimal_steps = 7
    tags = ("data_entry", "parameterized")
    placeholders: ClassVar[dict[str, str]] = {"FileName": "file_name", "Clip": "file_content"}
    milestones = (
        OPEN,
        Milestone("Create the note <FileName>", lambda d, p: exists(d, p["file_name"])),
        Milestone(
            'Paste "<Clip>" into <FileName>',
            lambda d, p: (
                editing(d, p["file_name"], p["file_content"]) or content_matches(d, p["file_name"], p["file_content"])
            ),
        ),
        Milestone("Save <FileName>", lambda d, p: content_matches(d, p["file_name"], p["file_content"])),
    )

    def generate(self, r: random.Random) -> Params:
        name, _ = random_note(r)
        return {"file_name": name, "file_content": random_string(r, 10)}

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        dev.state.clipboard = params["file_content"]

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return content_matches(dev, p["file_name"], p["file_content"])

    def oracle(self, o: Oracle) -> str:
        p = o.p
        if self.check(o.dev, p, None, None):
            return o.finish()
        if not exists(o.dev, p["file_name"]):
            return create_step(o, "", p["file_name"], "OK")
        act = open_note(o, p["file_name"])
        if act is not None:
            return act
        held = o.screen.form.get("content", "")
        if held.strip() == p["file_content"]:
            return o.tap(o.find(desc="Save"))
        text_actions = getattr(o.dev, "text_actions", None)
        if text_actions is None:  # a phone without the text-selection toolbar: no way to paste
            return o.finish()
        paste = next((n for n in text_actions() if n.desc == "Paste"), None)
        if paste is None:
            return o.long_press(o.field("Note content"))  # the text-selection toolbar, with "Paste"
        if o.keyboard and paste.center()[1] >= KEYBOARD_TOP:  # drawn under the keyboard: out of reach
            return o.finish()
        return o.tap(paste)


class MarkorCreateFolder(MarkorAWTask):
    """``MarkorCreateFolder``. AndroidWorld names the folder from the host's wall clock
    (``"folder_" + datetime.now().strftime("%Y%m%d_%H%M%S")``), which no seed reproduces: here the
    name has that shape, its date and time drawn from the seed (a second of 2023-2025)."""

    id = "MarkorCreateFolder"
    template = "Create a new folder in Markor named {folder_name}."
    difficulty = "easy"
    optimal_steps = 4
    tags = ("data_entry", "parameterized")
    placeholders: ClassVar[dict[str, str]] = {"Folder": "folder_name"}
    milestones = (
        OPEN,
        Milestone("Open the dialog to create a new folder", lambda d, p: _creating(d, p, "folder_name")),
        Milestone("Create the folder <Folder>", lambda d, p: exists(d, p["folder_name"])),
    )

    def generate(self, r: random.Random) -> Params:
        start = dt.datetime(2023, 1, 1)
        when = start + dt.timedelta(seconds=r.randrange(3 * 365 * 86400))
        return {"folder_name": "folder_" + when.strftime("%Y%m%d_%H%M%S")}

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        noise_files(dev, r, "file", "")

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return exists(dev, p["folder_name"])

    def oracle(self, o: Oracle) -> str:
        if self.check(o.dev, o.p, None, None):
            return o.finish()
        return create_step(o, "", o.p["folder_name"], "Folder")


EDIT_TEMPLATES = {
    "header": "Edit {file_name} in Markor. Add to the top of the note {header}",
    "footer": "Edit {file_name} in Markor. Add to the bottom of the note {footer}",
    "replace": "Edit {file_name} in Markor. Replace the text with {replace_text}",
}


def _edited(p: Params) -> str:
    """The text ``MarkorEditNote.is_successful`` expects; the original as AndroidWorld keeps it,
    its ``'`` escaped for the shell."""
    if p["edit_type"] == "header":
        return p["header"] + "\n" + p["original_content"]
    if p["edit_type"] == "footer":
        return p["original_content"] + "\n" + p["footer"]
    return p["replace_text"]


def _typed(p: Params) -> str:
    """What a person makes the note hold: :func:`_edited` with the note's own text."""
    original = p["original_content"].replace("'\"'\"'", "'")
    if p["edit_type"] == "header":
        return p["header"] + "\n" + original
    if p["edit_type"] == "footer":
        return original + "\n" + p["footer"]
    return p["replace_text"]


class MarkorEditNote(MarkorAWTask):
    """``MarkorEditNote``: add a sentence at the top or bottom of a note, or replace its text
    with three sentences; the note's stripped text must fuzzy-match the expected one."""

    id = "MarkorEditNote"
    template = EDIT_TEMPLATES["header"]
    difficulty = "easy"
    optimal_steps = 4
    tags = ("data_edit", "transcription", "parameterized")
    placeholders: ClassVar[dict[str, str]] = {"FileName": "file_name"}
    milestones = (
        OPEN,
        Milestone("Open the note <FileName>", lambda d, p: editing(d, p["file_name"]) or _edit_done(d, p)),
        Milestone(
            "Change the text of <FileName> as asked",
            lambda d, p: editing(d, p["file_name"], _typed(p)) or _edit_done(d, p),
        ),
        Milestone("Save the note <FileName>", lambda d, p: _edit_done(d, p)),
    )

    def instruction(self, params: Params) -> str:
        return EDIT_TEMPLATES[params["edit_type"]].format(**params)

    def generate(self, r: random.Random) -> Params:
        name = "note_" + random_string(r, 5) + r.choice(EXTENSIONS)
        edit_type = r.choice(["header", "footer", "replace"])
        p: Params = {"file_name": name, "edit_type": edit_type}
        if edit_type == "header":
            p["header"] = r.choice(SENTENCES)
        elif edit_type == "footer":
            p["footer"] = r.choice(SENTENCES)
        else:
            p["replace_text"] = "\n".join(r.choice(SENTENCES) for _ in range(3))
        return p

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        noise_files(dev, r, params["file_name"], "")
        params["original_content"] = create_file(dev, r, "", params["file_name"], r.choice(SENTENCES))

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return _edit_done(dev, p)

    def oracle(self, o: Oracle) -> str:
        if self.check(o.dev, o.p, None, None) or not exists(o.dev, o.p["file_name"]):
            return o.finish()
        return write_note(o, o.p["file_name"], _typed(o.p))


def _edit_done(dev: Device, p: Params) -> bool:
    return content_matches(dev, p["file_name"], _edited(p))


def _selecting(d: Device, paths: Sequence[str], done: bool) -> bool:
    return done or selected(d, paths)


class MarkorDeleteNote(MarkorAWTask):
    """``MarkorDeleteNote`` (``DeleteFile``): the note (a name without an extension, 20 random
    characters) among noise notes must be gone; deleting others is not judged."""

    id = "MarkorDeleteNote"
    template = "Delete the note in Markor named {file_name}."
    difficulty = "easy"
    optimal_steps = 5
    tags = ("data_edit", "requires_setup", "parameterized")
    placeholders: ClassVar[dict[str, str]] = {"FileName": "file_name"}
    milestones = (
        OPEN,
        Milestone(
            "Select the note <FileName>",
            lambda d, p: _selecting(d, [p["file_name"]], not exists(d, p["file_name"])),
        ),
        Milestone("Delete the note <FileName>", lambda d, p: not exists(d, p["file_name"])),
    )

    def generate(self, r: random.Random) -> Params:
        return {"file_name": random_file_name(r), "noise_candidates": list(NOTE_TITLES)}

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        r.seed(params["seed"])  # DeleteFile.initialize_task seeds again
        create_file(dev, r, "", params["file_name"])
        noise_files(dev, r, params["file_name"], "")

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return not exists(dev, p["file_name"])

    def oracle(self, o: Oracle) -> str:
        if self.check(o.dev, o.p, None, None):
            return o.finish()
        return delete_step(o, [o.p["file_name"]])


class MarkorDeleteNewestNote(MarkorAWTask):
    """``MarkorDeleteNewestNote``: 2-6 notes, the phone's clock moved by -500..500 minutes after
    each; the newest by time stamp must go and every other file keep its name and time.

    Each write takes a second of phone time here (AndroidWorld's clock moves on between its adb
    commands, then ``advance_system_time`` sets it to the whole second read plus the shift), so
    no two notes share a time stamp. The clock stays where set-up leaves it."""

    id = "MarkorDeleteNewestNote"
    template = "Delete the newest note in Markor."
    difficulty = "easy"
    optimal_steps = 4
    tags = ("data_edit", "parameterized")
    milestones = (
        OPEN,
        Milestone(
            "Select the newest note",
            lambda d, p: _selecting(d, [p["initial_files"][-1][0]], len(notebook(d).files()) < len(p["initial_files"])),
        ),
        Milestone("Delete the newest note", lambda d, p: _newest_gone(d, p)),
    )

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        for _ in range(r.randint(2, 6)):
            name, text = random_note(r)
            create_file(dev, r, "", name, text)
            now = dev.state.now + dt.timedelta(seconds=1)
            dev.state.now = now + dt.timedelta(minutes=r.randint(-500, 500))
        self.observe_start(dev, params)

    def observe_start(self, dev: Device, params: Params) -> None:
        params["initial_files"] = [list(f) for f in file_list(dev)]

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return _newest_gone(dev, p)

    def oracle(self, o: Oracle) -> str:
        if len(notebook(o.dev).files()) < len(o.p["initial_files"]):
            return o.finish()
        return delete_step(o, [o.p["initial_files"][-1][0]])


def _newest_gone(dev: Device, p: Params) -> bool:
    initial = [tuple(f) for f in p["initial_files"]]
    now = file_list(dev)
    return len(now) == len(initial) - 1 and all(now[i] == initial[i] for i in range(len(now)))


class MarkorDeleteAllNotes(MarkorAWTask):
    """``MarkorDeleteAllNotes``: 1-6 noise notes; no regular file may remain directly in the
    notebook (folders and what they hold are not judged)."""

    id = "MarkorDeleteAllNotes"
    template = "Delete all my notes in Markor."
    difficulty = "easy"
    optimal_steps = 7
    tags = ("data_edit", "repetition", "parameterized")
    milestones = (
        OPEN,
        Milestone("Select the notes", lambda d, p: _selecting(d, p["notes"], not file_list(d))),
        Milestone("Delete all the notes", lambda d, p: not file_list(d)),
    )

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        base = random_string(r, 5)
        noise_files(dev, r, base, "", r.randint(2, 6))
        params["notes"] = sorted(e.path for e in notebook(dev).files())

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return not file_list(dev)

    def oracle(self, o: Oracle) -> str:
        files = notebook(o.dev).files()
        if not files:
            return o.finish()
        return delete_step(o, sorted(e.path for e in files))


class MarkorMoveNote(MarkorAWTask):
    """``MarkorMoveNote`` (``MoveFile``): a note among noise notes in one folder must be in
    another folder and no longer in the first."""

    id = "MarkorMoveNote"
    template = "In Markor, move the note {file_name} from {source_folder} to {destination_folder}."
    difficulty = "medium"
    optimal_steps = 7
    tags = ("parameterized", "complex_ui_understanding")
    placeholders: ClassVar[dict[str, str]] = {
        "FileName": "file_name",
        "Source": "source_folder",
        "Destination": "destination_folder",
    }
    milestones = (
        OPEN,
        Milestone(
            "Open the folder <Source>",
            lambda d, p: (
                any(isinstance(s, FileBrowser) and s.folder == p["source_folder"] for s in screens(d)) or _moved(d, p)
            ),
        ),
        Milestone("Select the note <FileName>", lambda d, p: _selecting(d, [_source(p)], _moved(d, p))),
        Milestone("Move <FileName> to <Destination>", lambda d, p: _moved(d, p)),
    )

    def generate(self, r: random.Random) -> Params:
        source = r.choice(SUBFOLDERS)
        dest = r.choice([f for f in SUBFOLDERS if f != source])
        name, _ = random_note(r)
        return {
            "file_name": name,
            "source_folder": source,
            "destination_folder": dest,
            "noise_candidates": list(NOTE_TITLES),
        }

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        r.seed(params["seed"])  # MoveFile.initialize_task seeds again
        noise_files(dev, r, params["file_name"], params["source_folder"])
        create_file(dev, r, params["source_folder"], params["file_name"])
        notebook(dev).mkdir(params["destination_folder"], dev.state.now)

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return _moved(dev, p)

    def oracle(self, o: Oracle) -> str:
        p = o.p
        if _moved(o.dev, p) or not exists(o.dev, _source(p)):
            return o.finish()
        return move_step(o, _source(p), p["destination_folder"])


def _source(p: Params) -> str:
    return join(p["source_folder"], p["file_name"])


def _moved(dev: Device, p: Params) -> bool:
    return not exists(dev, _source(p)) and exists(dev, join(p["destination_folder"], p["file_name"]))


def _merged(p: Params) -> str:
    """``MarkorMergeNotes``' expected text: the contents joined by blank lines, then a line break."""
    return "\n\n".join([p["file1_content"], p["file2_content"], p["file3_content"]]) + "\n"


class MarkorMergeNotes(MarkorAWTask):
    """``MarkorMergeNotes``: a new note (a name without an extension) holding three notes'
    texts in order, a blank line between each: ``CreateFile``'s fuzzy match, and exactly five
    lines once stripped, the second and fourth empty."""

    id = "MarkorMergeNotes"
    template = (
        "Merge the contents of Markor notes {file1_name}, {file2_name} and {file3_name} (in the same order) into a"
        " new Markor note named {new_file_name} and save it. Add a new line between the content of each note."
    )
    difficulty = "hard"
    optimal_steps = 39
    tags = ("data_edit", "data_entry", "parameterized")
    placeholders: ClassVar[dict[str, str]] = {"NewFileName": "new_file_name"}
    milestones = (
        OPEN,
        Milestone("Create the note <NewFileName>", lambda d, p: exists(d, p["new_file_name"])),
        Milestone(
            "Write the three notes' texts into <NewFileName>, a blank line between each",
            lambda d, p: editing(d, p["new_file_name"], _merged(p)) or _merge_done(d, p),
        ),
        Milestone("Save <NewFileName>", lambda d, p: _merge_done(d, p)),
    )

    def generate(self, r: random.Random) -> Params:
        return {
            "file1_name": random_note(r)[0],
            "file2_name": random_note(r)[0],
            "file3_name": random_note(r)[0],
            "new_file_name": random_string(r, 8),
            "file1_content": random_string(r, 20),
            "file2_content": random_string(r, 20),
            "file3_content": random_string(r, 20),
        }

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        for i in (1, 2, 3):
            create_file(dev, r, "", params[f"file{i}_name"], params[f"file{i}_content"])

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return _merge_done(dev, p)

    def oracle(self, o: Oracle) -> str:
        p = o.p
        if self.check(o.dev, p, None, None):
            return o.finish()
        act = read_notes(o, [p["file1_name"], p["file2_name"], p["file3_name"]])
        return act or note_step(o, p["new_file_name"], _merged(p).rstrip("\n"))


#: The notes the expert has read in this episode, per phone (a person's short memory, as the
#: oracle's scrolling direction is): ``(id of the episode's parameters, {path: step read at})``.
_READ: weakref.WeakKeyDictionary[Device, tuple[int, dict[str, int]]] = weakref.WeakKeyDictionary()


def read_notes(o: Oracle, paths: Sequence[str]) -> str | None:
    """Open each note of ``paths`` once, in order, to read it; ``None`` once all have been read
    (in this episode, up to the phone's current step: a restored earlier state forgets what
    was read after it)."""
    dev = o.dev
    key, seen = _READ.get(dev, (id(o.p), {}))
    step = dev.state.step
    seen = {path: t for path, t in seen.items() if t <= step} if key == id(o.p) else {}
    s = o.screen
    if o.app == "markor" and isinstance(s, DocumentScreen) and s.path in paths and s.dialog is None:
        seen.setdefault(s.path, step)
    _READ[dev] = (id(o.p), seen)
    for path in paths:
        if path not in seen:
            return open_note(o, path)
    return None


def _merge_done(dev: Device, p: Params) -> bool:
    if not content_matches(dev, p["new_file_name"], _merged(p)):
        return False
    lines = (cat(dev, p["new_file_name"]) or "").strip().split("\n")
    return len(lines) == 5 and not lines[1] and not lines[3]


class MarkorChangeNoteContent(MarkorAWTask):
    """``MarkorChangeNoteContent``: a note's text replaced (fuzzy match) and the note renamed;
    the old name must be gone."""

    id = "MarkorChangeNoteContent"
    template = (
        'Update the content of {original_name} to "{updated_content}" in Markor and change its name to {new_name}.'
    )
    difficulty = "medium"
    optimal_steps = 5
    tags = ("data_entry", "requires_setup", "parameterized")
    placeholders: ClassVar[dict[str, str]] = {
        "OriginalName": "original_name",
        "NewName": "new_name",
        "Content": "updated_content",
    }
    milestones = (
        OPEN,
        Milestone(
            "Open the note <OriginalName>",
            lambda d, p: editing(d, p["original_name"]) or _text_done(d, p, p["updated_content"]),
        ),
        Milestone('Replace its text with "<Content>" and save it', lambda d, p: _text_done(d, p, p["updated_content"])),
        Milestone("Rename <OriginalName> to <NewName>", lambda d, p: _renamed(d, p, p["updated_content"])),
    )

    def generate(self, r: random.Random) -> Params:
        original = random_note(r)[0]
        new = random_note(r)[0]
        return {"original_name": original, "new_name": new, "updated_content": random_string(r, 20)}

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        create_file(dev, r, "", params["original_name"], random_string(r, 20))
        noise_files(dev, r, params["original_name"], "")

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return _renamed(dev, p, p["updated_content"])

    def oracle(self, o: Oracle) -> str:
        return _edit_and_rename(o, self, o.p["updated_content"], o.p["updated_content"])


def _current(dev: Device, p: Params) -> str:
    """Where the note is now: its original name until it is renamed."""
    return p["original_name"] if exists(dev, p["original_name"]) else p["new_name"]


def _text_done(dev: Device, p: Params, text: str, exact: bool = False) -> bool:
    got = cat(dev, _current(dev, p))
    if got is None:
        return False
    return got == text if exact else fuzzy_match(got.strip(), text)


def _renamed(dev: Device, p: Params, text: str, exact: bool = False) -> bool:
    return not exists(dev, p["original_name"]) and exists(dev, p["new_name"]) and _text_done(dev, p, text, exact)


def _edit_and_rename(o: Oracle, task: AndroidWorldTask, typed: str, text: str, exact: bool = False) -> str:
    """Edit the note first (typing ``typed``; saved it reads ``text``), then rename it."""
    p = o.p
    if task.check(o.dev, p, None, None):
        return o.finish()
    if not _text_done(o.dev, p, text, exact):
        return write_note(o, _current(o.dev, p), typed)
    if exists(o.dev, p["original_name"]):
        return rename_step(o, p["original_name"], p["new_name"])
    return o.finish()


class MarkorAddNoteHeader(MarkorAWTask):
    """``MarkorAddNoteHeader``: 20 random characters and a blank line put before a note's text,
    the note renamed; the renamed file must hold exactly ``header + "\\n\\n" + text + "\\n"``."""

    id = "MarkorAddNoteHeader"
    template = (
        "Update the Markor note {original_name} by adding the following text, along with a new blank line before"
        ' the existing content: "{header}", and rename it to {new_name}.'
    )
    difficulty = "medium"
    optimal_steps = 6
    tags = ("data_entry", "parameterized")
    placeholders: ClassVar[dict[str, str]] = {
        "OriginalName": "original_name",
        "NewName": "new_name",
        "Header": "header",
    }
    milestones = (
        OPEN,
        Milestone("Open the note <OriginalName>", lambda d, p: editing(d, p["original_name"]) or _header_done(d, p)),
        Milestone('Add "<Header>" and a blank line at the top and save it', lambda d, p: _header_done(d, p)),
        Milestone("Rename <OriginalName> to <NewName>", lambda d, p: _renamed(d, p, _with_header(p), exact=True)),
    )

    def generate(self, r: random.Random) -> Params:
        return {
            "original_name": random_note(r)[0],
            "original_content": r.choice(SENTENCES),
            "new_name": random_note(r)[0],
            "header": random_string(r, 20),
        }

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        create_file(dev, r, "", params["original_name"], params["original_content"])
        noise_files(dev, r, params["original_name"], "")

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return _renamed(dev, p, _with_header(p), exact=True)

    def oracle(self, o: Oracle) -> str:
        return _edit_and_rename(o, self, _with_header(o.p).rstrip("\n"), _with_header(o.p), exact=True)


def _with_header(p: Params) -> str:
    return p["header"] + "\n\n" + p["original_content"] + "\n"


def _header_done(dev: Device, p: Params) -> bool:
    return _text_done(dev, p, _with_header(p), exact=True)


# ----------------------------------------------------------------------------- with Simple SMS Messenger


def sms_sent(dev: Device, number: str, body: str) -> bool:
    """``sms_validators.was_sent`` on the messages the phone sent (the rows of
    ``content://sms/sent``: each outgoing message, its conversation's number as ``address``): to
    ``number`` (dashes and spaces removed, compared as text), a body that ``fuzzy_match``-es
    ``body``, sent at most five minutes (phone time) before now."""
    now = dev.state.now
    for conv in dev.data("messages").conversations:
        address = conv.number.replace("-", "").replace(" ", "")
        if address != number:
            continue
        for m in conv.messages:
            if not m.incoming and fuzzy_match(m.text, body) and now - m.time <= SMS_WINDOW:
                return True
    return False


def sms_done(dev: Device, p: Params) -> bool:
    """``SimpleSMSSendSms.is_successful``: the message was sent and Simple SMS Messenger is in front."""
    return sms_sent(dev, p["number"], p["text"]) and in_app(dev, "messages")


class MarkorCreateNoteAndSms(MarkorAWTask):
    """``MarkorCreateNoteAndSms`` (composite): ``MarkorCreateNote``, then ``SimpleSMSSendSms``
    sending the note's text to a number; the score is the mean of the two (0, 0.5 or 1). The
    SMS half needs Simple SMS Messenger in front when the episode ends."""

    id = "MarkorCreateNoteAndSms"
    apps = ("markor", "messages")
    template = (
        "Create a new note in Markor named {file_name} with the following text: {text}. Share the entire content"
        " of the note with the phone number {number} via SMS using Simple SMS Messenger"
    )
    difficulty = "hard"
    optimal_steps = 9
    tags = ("multi_app", "data_entry", "parameterized")
    placeholders: ClassVar[dict[str, str]] = {"FileName": "file_name", "Text": "text", "Number": "number"}
    milestones = (
        OPEN,
        Milestone("Create the note <FileName>", lambda d, p: exists(d, p["file_name"])),
        Milestone(
            'Write "<Text>" into <FileName> and save it', lambda d, p: content_matches(d, p["file_name"], p["text"])
        ),
        Milestone(
            "Open the Simple SMS Messenger app",
            lambda d, p: in_app(d, "messages") or sms_sent(d, p["number"], p["text"]),
        ),
        Milestone("Send the note's text to <Number>", lambda d, p: sms_sent(d, p["number"], p["text"])),
    )

    def generate(self, r: random.Random) -> Params:
        name, text = random_note(r)
        number = random_number(r)
        r.choice(SENTENCES)  # SimpleSMSSendSms's message, not used
        return {"file_name": name, "text": text, "number": number}

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        # SimpleSMSSendSms.initialize_task: airplane mode off, no messages (a new phone has none),
        # then its five seconds' sleep on the phone's clock.
        dev.state.settings["airplane"] = False
        dev.state.now += dt.timedelta(seconds=5)

    def score(self, dev: Device, p: Params, answer: str | None, status: str | None) -> float:
        return (float(content_matches(dev, p["file_name"], p["text"])) + float(sms_done(dev, p))) / 2

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return self.score(dev, p, answer, status) == 1.0

    def oracle(self, o: Oracle) -> str:
        from gui_gym.android.sim.apps.messages import tasks as sms

        p = o.p
        if not content_matches(o.dev, p["file_name"], p["text"]):
            return note_step(o, p["file_name"], p["text"])
        if not sms_sent(o.dev, p["number"], p["text"]):
            return sms.send_step(o, p["number"], p["text"], p["number"], contact=False)
        return o.finish() if in_app(o.dev, "messages") else o.launch("Simple SMS Messenger")


TEMPLATES = (
    MarkorAddNoteHeader,
    MarkorChangeNoteContent,
    MarkorCreateFolder,
    MarkorCreateNote,
    MarkorCreateNoteAndSms,
    MarkorCreateNoteFromClipboard,
    MarkorDeleteAllNotes,
    MarkorDeleteNewestNote,
    MarkorDeleteNote,
    MarkorEditNote,
    MarkorMergeNotes,
    MarkorMoveNote,
    MarkorTranscribeReceipt,
    MarkorTranscribeVideo,
)

__all__ = ["TEMPLATES"]
