"""AndroidWorld's Files tasks (``task_evals/single/files.py``: ``FilesDeleteFile``,
``FilesMoveFile``, over ``common_validators/file_validators.py``'s ``DeleteFile`` and ``MoveFile``).

Set-up as AndroidWorld's: ``clear_device_storage`` (every regular file of ``/storage/emulated/0``
deleted, folders kept), then the files written with ``file_utils.create_file`` (``mkdir -p``,
``echo '<20 random letters and digits>' > <path>``: the text and a line break, stamped with the
phone's clock) and ``generate_noise_files`` (1-20 variants of the folder's names, written here in
sorted order: AndroidWorld's set does not fix one). Checks as ``check_file_or_folder_exists``: the
exact path ``<folder>/<name>`` is a file or folder of the storage.
"""

from __future__ import annotations

import posixpath
import random
from typing import TYPE_CHECKING, ClassVar

from gui_gym.android.sim.apps.files import data
from gui_gym.android.sim.apps.files.app import (
    LABEL,
    MORE,
    SHOW_ROOTS,
    Browser,
    ConfirmDialog,
    Picker,
    Popup,
    RootsDrawer,
)
from gui_gym.android.sim.apps.files.data import STORAGE_NAME
from gui_gym.android.sim.tasks.androidworld import AndroidWorldTask, noise_file_names, random_file_name, random_string
from gui_gym.android.sim.tasks.base import Milestone, Oracle, Params, back_stack, in_app

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device
    from gui_gym.android.ui import Node

#: ``user_data_generation.EMULATOR_DIRECTORIES``: the shared folders and the names of their files
EMULATOR_DIRECTORIES: dict[str, tuple[str, ...]] = {
    "Alarms": (
        "morning_alarm.mp3",
        "wake_up.mp3",
        "early_alarm.mp3",
        "daily_reminder.mp3",
        "weekend_alarm.mp3",
        "night_alarm.mp3",
        "early_bird.mp3",
        "fitness_reminder.mp3",
        "meditation_time.mp3",
    ),
    "Audiobooks": (
        "sci_fi_book.mp3",
        "history_lecture.mp3",
        "novel_chapter.mp3",
        "biography_audio.mp3",
        "mystery_novel.mp3",
        "self_help_guide.mp3",
        "adventure_story.mp3",
        "language_lessons.mp3",
        "childrens_fable.mp3",
    ),
    "DCIM": (
        "holiday_photos.jpg",
        "birthday_party.jpg",
        "wedding_event.jpg",
        "nature_pics.jpg",
        "road_trip.jpg",
        "graduation_ceremony.jpg",
        "first_day_school.jpg",
        "mountain_hike.jpg",
        "winter_holiday.jpg",
    ),
    "Documents": (
        "resume.pdf",
        "cover_letter.pdf",
        "annual_report.pdf",
        "meeting_notes.pdf",
        "project_plan.pdf",
        "expense_report.pdf",
        "invoice_details.pdf",
        "client_brief.pdf",
        "contract_agreement.pdf",
    ),
    "Download": (
        "setup_exe.exe",
        "sample_pdf.pdf",
        "test_download.zip",
        "image_file.png",
        "movie_trailer.mp4",
        "software_patch.exe",
        "ebook_reader.apk",
        "music_album.zip",
    ),
    "Movies": (
        "action_film.mp4",
        "romantic_comedy.mp4",
        "documentary.mp4",
        "horror_movie.mp4",
        "sci_fi_thriller.mp4",
        "animation_kids.mp4",
        "drama_series.mp4",
        "mystery_feature.mp4",
    ),
    "Music": (
        "rock_album.mp3",
        "jazz_song.mp3",
        "classical_music.mp3",
        "pop_hit.mp3",
        "electronic_dance.mp3",
        "folk_tunes.mp3",
        "hip_hop_beats.mp3",
        "opera_recordings.mp3",
    ),
    "Notifications": (
        "new_message.mp3",
        "app_alert.mp3",
        "system_notification.mp3",
        "calendar_event.mp3",
        "email_received.mp3",
        "weather_update.mp3",
        "traffic_info.mp3",
        "sports_score.mp3",
    ),
    "Pictures": (
        "selfie.jpg",
        "sunset.jpg",
        "beach_day.jpg",
        "city_night.jpg",
        "family_gathering.jpg",
        "pets_playing.jpg",
        "garden_blooms.jpg",
        "food_snapshot.jpg",
    ),
    "Podcasts": (
        "news_podcast.mp3",
        "tech_talk.mp3",
        "comedy_show.mp3",
        "health_series.mp3",
        "educational_content.mp3",
        "music_reviews.mp3",
        "political_discussion.mp3",
        "travel_tips.mp3",
    ),
    "Recordings": (
        "interview_recording.mp3",
        "lecture_capture.mp3",
        "memoir_audio.mp3",
        "meeting_audio.mp3",
        "brainstorm_session.mp3",
        "book_reading.mp3",
        "therapy_session.mp3",
        "personal_notes.mp3",
    ),
    "Ringtones": (
        "default_ringtone.mp3",
        "custom_tone.mp3",
        "vintage_bell.mp3",
        "modern_beep.mp3",
        "jazzy_ring.mp3",
        "funky_tune.mp3",
        "classic_music.mp3",
        "nature_sounds.mp3",
    ),
}


# ----------------------------------------------------------------------------- set-up and judging


def create_file(dev: Device, r: random.Random, folder: str, name: str) -> None:
    """``file_utils.create_file`` with no content: 20 random letters and digits, then a line break."""
    content = random_string(r, 20)
    data.mkdir(dev, folder)
    data.write(dev, f"{folder}/{name}", (content + "\n").encode(), dev.state.now)


def noise_files(dev: Device, r: random.Random, base: str, folder: str, variants: list[str]) -> None:
    """``generate_noise_files``: 1-20 variants of ``variants`` (or of ``base``), each a created file."""
    for name in sorted(noise_file_names(r, base, variants)):
        create_file(dev, r, folder, name)


def exists(dev: Device, folder: str, name: str) -> bool:
    """``check_file_or_folder_exists(name, /storage/emulated/0/<folder>)``."""
    return data.is_dir(dev, folder) and data.exists(dev, f"{folder}/{name}")


# ----------------------------------------------------------------------------- the oracle's steps


def in_files(dev: Device) -> bool:
    return in_app(dev, "files")


def browser(dev: Device) -> Browser | None:
    stack = back_stack(dev, "files")
    return next((s for s in stack if isinstance(s, Browser)), None)


def showing(dev: Device, folder: str) -> bool:
    """The Files app in front, browsing the storage's ``folder``."""
    b = browser(dev)
    return in_files(dev) and b is not None and b.root == "storage" and b.folder == folder


def file_row(o: Oracle, name: str) -> Node | None:
    return next((n for n in o.nodes if n.role == "row" and n.label == name and n.rid.endswith("item_root")), None)


def reveal_file_step(o: Oracle, folder: str, name: str) -> str | None:
    """Scroll ``folder``'s list toward ``name`` (``None``: its row is on screen)."""
    order = [i.name for i in data.listing(o.dev, folder)]
    where = order.index(name) if name in order else len(order)
    return o.reveal(
        lambda n: n.role == "row" and n.label == name and n.rid.endswith("item_root"),
        before=lambda row: (order.index(row.label) if row.label in order else -1) < where,
        list_rid="dir_list",
    )


def open_folder_step(o: Oracle, folder: str, screen_folder: str, crumb_root: str) -> str:
    """One step from the folder ``screen_folder`` toward ``folder``: down into the next folder, or
    up through the breadcrumb's first crumb (``crumb_root``)."""
    if screen_folder == "" or folder.startswith(screen_folder + "/"):
        rest = folder[len(screen_folder) :].strip("/")
        name = rest.split("/")[0]
        step = reveal_file_step(o, screen_folder, name)
        return step if step is not None else o.tap(file_row(o, name))
    return o.tap(o.find(crumb_root, rid="breadcrumb_text"))


def browse_step(o: Oracle, folder: str) -> str | None:
    """One step toward the Files app browsing the storage's ``folder``; ``None`` once it does
    (and nothing is open over it)."""
    if not in_files(o.dev):
        return o.launch(LABEL)
    screen, dialog = o.screen, o.dialog
    if isinstance(dialog, RootsDrawer):
        return o.tap(o.find(STORAGE_NAME, rid="title"))
    if dialog is not None:
        return o.back()
    if not isinstance(screen, Browser):
        return o.back()
    if screen.root != "storage":
        return o.tap(o.find(desc=SHOW_ROOTS))
    if screen.folder != folder:
        if screen.selected:
            return o.back()
        return open_folder_step(o, folder, screen.folder, STORAGE_NAME)
    return None


def select_step(o: Oracle, folder: str, name: str) -> str | None:
    """One step toward ``folder/name`` being the one item selected; ``None`` once it is."""
    step = browse_step(o, folder)
    if step is not None:
        return step
    screen = o.screen
    assert isinstance(screen, Browser)
    path = f"{folder}/{name}"
    if screen.selected == [path]:
        return None
    if screen.selected:
        return o.tap(o.find(desc="Close"))
    step = reveal_file_step(o, folder, name)
    return step if step is not None else o.long_press(file_row(o, name))


def delete_step(o: Oracle, folder: str, name: str) -> str:
    """One step toward deleting ``folder/name`` with the Files app."""
    if isinstance(o.dialog, ConfirmDialog) and in_files(o.dev):
        return o.tap(o.find("OK", rid="button1"))
    step = select_step(o, folder, name)
    return step if step is not None else o.tap(o.find(desc="Delete"))


def move_step(o: Oracle, folder: str, name: str, dest: str) -> str:
    """One step toward moving ``folder/name`` into ``dest`` with the Files app's Move to…."""
    screen = o.screen
    if in_files(o.dev) and isinstance(screen, Picker) and screen.dialog is None:
        if screen.op != "move" or screen.sources != [f"{folder}/{name}"]:
            return o.back()
        if screen.folder != dest:
            return open_folder_step(o, dest, screen.folder, STORAGE_NAME)
        return o.tap(o.find("MOVE", rid="button1"))
    if in_files(o.dev) and isinstance(o.dialog, Popup):
        b = o.screen
        if isinstance(b, Browser) and b.selected == [f"{folder}/{name}"]:
            return o.tap(next((n for n in o.nodes if n.role == "menuitem" and n.label == "Move to…"), None))
        return o.back()
    step = select_step(o, folder, name)
    return step if step is not None else o.tap(o.find(desc=MORE))


# ----------------------------------------------------------------------------- tasks


class FilesAWTask(AndroidWorldTask):
    app = "files"
    apps: ClassVar[tuple[str, ...]] = ("files",)


OPEN = Milestone("Open the Files app", lambda d, p: in_files(d))


class FilesDeleteFile(FilesAWTask):
    """``FilesDeleteFile``: a file with a random name among noise files of one shared folder must
    be gone (deleting others is not judged)."""

    id = "FilesDeleteFile"
    template = (
        "Delete the file {file_name} from the Android filesystem located in the {subfolder} folder within the"
        " sdk_gphone_x86_64 storage area."
    )
    difficulty = "medium"
    optimal_steps = 4
    tags = ("data_edit", "parameterized")
    placeholders: ClassVar[dict[str, str]] = {"FileName": "file_name", "Subfolder": "subfolder"}
    milestones = (
        OPEN,
        Milestone("Open the <Subfolder> folder", lambda d, p: showing(d, p["subfolder"]) or _deleted(d, p)),
        Milestone(
            "Select <FileName>",
            lambda d, p: (
                (browser(d) is not None and f"{p['subfolder']}/{p['file_name']}" in browser(d).selected)
                or _deleted(d, p)
            ),
        ),
        Milestone("Delete <FileName>", lambda d, p: _deleted(d, p)),
    )

    def generate(self, r: random.Random) -> Params:
        subfolder = r.choice(list(EMULATOR_DIRECTORIES))
        noise = list(EMULATOR_DIRECTORIES[subfolder])
        ext = posixpath.splitext(noise[0])[1]
        return {"file_name": random_file_name(r) + ext, "subfolder": subfolder, "noise_candidates": noise}

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        r.seed(params["seed"])  # DeleteFile.initialize_task seeds again
        data.clear_files(dev)
        create_file(dev, r, params["subfolder"], params["file_name"])
        noise_files(dev, r, params["file_name"], params["subfolder"], list(params["noise_candidates"]))

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return _deleted(dev, p)

    def oracle(self, o: Oracle) -> str:
        if _deleted(o.dev, o.p):
            return o.finish()
        return delete_step(o, o.p["subfolder"], o.p["file_name"])


def _deleted(dev: Device, p: Params) -> bool:
    return not exists(dev, p["subfolder"], p["file_name"])


class FilesMoveFile(FilesAWTask):
    """``FilesMoveFile``: a file among noise files of one shared folder must be in another shared
    folder and no longer in the first."""

    id = "FilesMoveFile"
    template = (
        "Move the file {file_name} from {source_folder} within the sdk_gphone_x86_64 storage area to the"
        " {destination_folder} within the same sdk_gphone_x86_64 storage area in the Android filesystem."
    )
    difficulty = "medium"
    optimal_steps = 10
    tags = ("search", "screen_reading", "parameterized")
    placeholders: ClassVar[dict[str, str]] = {
        "FileName": "file_name",
        "Source": "source_folder",
        "Destination": "destination_folder",
    }
    milestones = (
        OPEN,
        Milestone("Open the <Source> folder", lambda d, p: showing(d, p["source_folder"]) or _moved(d, p)),
        Milestone(
            "Select <FileName>",
            lambda d, p: (
                (browser(d) is not None and _source(p) in browser(d).selected)
                or any(isinstance(s, Picker) and _source(p) in s.sources for s in back_stack(d, "files"))
                or _moved(d, p)
            ),
        ),
        Milestone(
            'Choose "Move to…" and open <Destination>',
            lambda d, p: (
                any(
                    isinstance(s, Picker) and s.op == "move" and s.folder == p["destination_folder"]
                    for s in back_stack(d, "files")
                )
                or _moved(d, p)
            ),
        ),
        Milestone("Move <FileName> to <Destination>", lambda d, p: _moved(d, p)),
    )

    def generate(self, r: random.Random) -> Params:
        source = r.choice(list(EMULATOR_DIRECTORIES))
        dest = r.choice([f for f in EMULATOR_DIRECTORIES if f != source])
        noise = list(EMULATOR_DIRECTORIES[source])
        name = r.choice(EMULATOR_DIRECTORIES[dest])
        return {"file_name": name, "source_folder": source, "destination_folder": dest, "noise_candidates": noise}

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        r.seed(params["seed"])  # MoveFile.initialize_task seeds again
        data.clear_files(dev)
        noise_files(dev, r, params["file_name"], params["source_folder"], list(params["noise_candidates"]))
        create_file(dev, r, params["source_folder"], params["file_name"])
        data.mkdir(dev, params["destination_folder"])

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return _moved(dev, p)

    def oracle(self, o: Oracle) -> str:
        p = o.p
        if _moved(o.dev, p) or not exists(o.dev, p["source_folder"], p["file_name"]):
            return o.finish()
        return move_step(o, p["source_folder"], p["file_name"], p["destination_folder"])


def _source(p: Params) -> str:
    return f"{p['source_folder']}/{p['file_name']}"


def _moved(dev: Device, p: Params) -> bool:
    return not exists(dev, p["source_folder"], p["file_name"]) and exists(dev, p["destination_folder"], p["file_name"])


TEMPLATES = (FilesDeleteFile, FilesMoveFile)
