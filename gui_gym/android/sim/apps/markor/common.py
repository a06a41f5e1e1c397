"""What AndroidWorld's Markor tasks share: the notebook's draws and writes, the judging reads
(``check_file_or_folder_exists``, ``cat``, ``get_file_list_with_metadata``), the tasks' base
class and the note-writing step, and the helpers other apps' AndroidWorld tasks take from Markor
(``clear_device_storage``, opening a note). :mod:`gui_gym.android.sim.apps.markor.androidworld`
re-exports every name."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, ClassVar

from gui_gym.android.sim.apps.markor.app import DocumentScreen, FileBrowser, MarkorData, join
from gui_gym.android.sim.apps.markor.tasks import create_step, write_note
from gui_gym.android.sim.tasks.androidworld import (
    SENTENCES,
    AndroidWorldTask,
    fuzzy_match,
    noise_file_names,
    random_file_name,
    random_string,
)
from gui_gym.android.sim.tasks.base import Oracle, back_stack

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device


#: ``markor._NOTE_TITLES``: the names noise files vary.
NOTE_TITLES: tuple[str, ...] = (
    "grocery_list_weekly.md",
    "meeting_notes_project_team.md",
    "personal_goals_2024.md",
    "reading_list_2024.md",
    "research_paper_summary.md",
    "summer_vacation_plans.md",
    "budget_home_renovation.md",
    "april_workout_routine.md",
    "birthday_gift_ideas_mom.md",
    "recipe_homemade_pizza.md",
    "weekend_todo_list.md",
    "insurance_plan_comparison.md",
    "art_project_sketches.md",
    "python_learning_goals.md",
    "trip_reflections_recent.md",
    "startup_ideas_launch.md",
    "client_meetings_schedule.md",
    "favorite_book_quotes.md",
    "garden_layout_plan.md",
    "upcoming_presentation_outline.md",
)
EXTENSIONS = (".md", ".txt")


# ----------------------------------------------------------------------------- draws and writes


def random_note(r: random.Random) -> tuple[str, str]:
    """``markor._generate_random_note``: a random file name with ``.md`` or ``.txt``, then a
    sentence (drawn even where only the name is used)."""
    name = random_file_name(r) + r.choice(EXTENSIONS)
    return name, r.choice(SENTENCES)


def notebook(dev: Device) -> MarkorData:
    return dev.data("markor")


def create_file(dev: Device, r: random.Random, folder: str, name: str, content: str = "") -> str:
    """``file_utils.create_file``: 20 random letters and digits when ``content`` is empty, then
    ``mkdir -p`` and ``echo '<content>' >``. Returns what AndroidWorld's returns: the content
    with each ``'`` escaped for the shell as ``'"'"'`` (the file holds it unescaped)."""
    if not content:
        content = random_string(r, 20)
    notebook(dev).write(join(folder, name), content, dev.state.now)
    return content.replace("'", "'\"'\"'")


def noise_files(dev: Device, r: random.Random, base: str, folder: str, n: int = 20) -> None:
    """``user_data_generation.generate_noise_files``: 1-``n`` variants of the note titles (or of
    ``base``), each with 20 random characters."""
    for name in sorted(noise_file_names(r, base, list(NOTE_TITLES), n)):
        create_file(dev, r, folder, name)


# ----------------------------------------------------------------------------- judging


def exists(dev: Device, path: str) -> bool:
    """``check_file_or_folder_exists``: a file or folder at ``path`` (relative to the notebook)."""
    return notebook(dev).get(path) is not None


def cat(dev: Device, path: str) -> str | None:
    """What ``cat`` prints for the file ``path`` with ``\\r`` removed; ``None`` for a folder or
    a missing file (``cat`` prints an error, which matches no note text)."""
    e = notebook(dev).get(path)
    return None if e is None or e.is_dir else e.content.replace("\r", "")


def content_matches(dev: Device, path: str, text: str) -> bool:
    """``CreateFile.is_successful`` / ``check_file_content``: the file's stripped text
    ``fuzzy_match``-es ``text``."""
    got = cat(dev, path)
    return got is not None and fuzzy_match(got.strip(), text)


def file_list(dev: Device, folder: str = "") -> list[tuple[str, str]]:
    """``get_file_list_with_metadata``: ``(name, time stamp)`` of the regular files directly in
    ``folder``, sorted by time as ``MarkorDeleteNewestNote`` sorts them (a stable sort of the
    listing, which ``ls`` gives by name)."""
    files = sorted(sorted(notebook(dev).files(folder), key=lambda e: e.name), key=lambda e: e.mtime)
    return [(e.name, e.mtime.isoformat()) for e in files]


# ----------------------------------------------------------------------------- tasks


class MarkorAWTask(AndroidWorldTask):
    app = "markor"
    apps: ClassVar[tuple[str, ...]] = ("markor",)


def note_step(o: Oracle, name: str, text: str) -> str:
    """One step toward the note ``name`` (at the notebook root) holding ``text``, saved."""
    if not exists(o.dev, name):
        return create_step(o, "", name, "OK")
    return write_note(o, name, text)


# ----------------------------------------------------------------------------- for other apps' tasks


def clear_device_storage(dev: Device) -> None:
    """``user_data_generation.clear_device_storage``: every regular file under
    ``/storage/emulated/0`` deleted, folders kept (Markor's notes, the shared media)."""
    from gui_gym.android.sim.media import media

    book = notebook(dev)
    book.entries = {p: e for p, e in book.entries.items() if e.is_dir}
    store = media(dev)
    for path in list(store.files):
        store.remove(path)


def file_open(dev: Device, name: str) -> bool:
    """The note ``name`` is open in Markor (on its back stack)."""
    return any(isinstance(s, DocumentScreen) and s.path == name for s in back_stack(dev, "markor"))


def open_file_step(o: Oracle, name: str) -> str:
    """One step toward opening the note ``name`` of Markor's top folder (another app's tasks
    that read a file Markor holds)."""
    s = o.screen
    if o.app != "markor":
        return o.launch("Markor")
    if isinstance(s, FileBrowser) and s.dialog is None and not s.folder:
        return o.tap(o.find(role="row", label=name))
    return o.back()
