"""AndroidWorld's Simple Draw Pro task (``task_evals/single/simple_draw_pro.py``:
``SimpleDrawProCreateDrawing``, over ``file_validators.CreateFile``).

Set-up: ``clear_device_storage`` (every regular file of shared storage deleted, folders kept).
Check: ``check_file_or_folder_exists(file_name, /storage/emulated/0/Pictures)``: a file (or folder)
at exactly ``Pictures/<file_name>``; what the drawing shows is not judged.
"""

from __future__ import annotations

import posixpath
import random
from typing import TYPE_CHECKING, ClassVar

from gui_gym.android.sim.apps.draw.app import LABEL, SAVE_AS, Canvas, FolderPicker, SaveImageDialog
from gui_gym.android.sim.apps.files import data as storage
from gui_gym.android.sim.tasks.androidworld import AndroidWorldTask, random_file_name
from gui_gym.android.sim.tasks.base import Milestone, Oracle, Params, in_app

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

#: ``SimpleDrawProCreateDrawing.generate_random_params``' words and extensions
WORDS = ("lorem", "ipsum", "dolor", "sit", "amet", "consectetur", "adipiscing", "elit")
EXTENSIONS = (".png", ".svg", ".jpg")
PICTURES = "Pictures"


def saved(dev: Device, name: str) -> bool:
    return storage.is_dir(dev, PICTURES) and storage.exists(dev, f"{PICTURES}/{name}")


def in_draw(dev: Device) -> bool:
    return in_app(dev, "draw")


def _saving(dev: Device) -> bool:
    s = dev.top_screen()
    return in_draw(dev) and s is not None and isinstance(s.dialog, SaveImageDialog | FolderPicker)


def save_step(o: Oracle, folder: str, file_name: str) -> str:
    """One step toward the drawing saved as ``folder/file_name`` (drawing a line first)."""
    stem, ext = posixpath.splitext(file_name)
    ext = ext.lstrip(".").lower()
    if not in_draw(o.dev):
        return o.launch(LABEL)
    screen, dialog = o.screen, o.dialog
    if not isinstance(screen, Canvas):
        return o.back()
    if dialog is None:
        if not o.dev.data("draw").strokes:
            return o.swipe("right", "medium", within=o.find(rid="my_canvas"))
        return o.tap(o.find(desc=SAVE_AS))
    if isinstance(dialog, FolderPicker):
        if dialog.folder == folder:
            return o.tap(o.find("OK", rid="button1"))
        if dialog.folder == "" or folder.startswith(dialog.folder + "/"):
            name = folder[len(dialog.folder) :].strip("/").split("/")[0]
            row = next((n for n in o.nodes if n.role == "row" and n.label == name), None)
            if row is None:
                lst = o.find(rid="filepicker_list", role="list")
                return o.swipe("up", within=lst) if lst is not None and lst.on_scroll else o.back()
            return o.tap(row)
        return o.tap(o.find(label="Internal", rid="breadcrumb_text"))
    if isinstance(dialog, SaveImageDialog):
        if dialog.folder != folder:
            return o.tap(o.find(rid="save_image_path"))
        step = o.fill("Filename", stem)
        if step is not None:
            return step
        if dialog.ext != ext:
            return o.tap(o.find(rid=f"save_image_radio_{ext}"))
        return o.tap(o.find("OK", rid="button1"))
    return o.back()


class SimpleDrawProCreateDrawing(AndroidWorldTask):
    """``SimpleDrawProCreateDrawing``: a drawing saved as ``Pictures/<file_name>``."""

    id = "SimpleDrawProCreateDrawing"
    app = "draw"
    apps: ClassVar[tuple[str, ...]] = ("draw",)
    template = (
        "Create a new drawing in Simple Draw Pro. Name it {file_name}. Save it in the Pictures folder within the"
        " sdk_gphone_x86_64 storage area."
    )
    difficulty = "easy"
    optimal_steps = 9
    tags = ("data_entry", "parameterized")
    placeholders: ClassVar[dict[str, str]] = {"FileName": "file_name"}
    milestones = (
        Milestone("Open Simple Draw Pro", lambda d, p: in_draw(d)),
        Milestone("Draw on the canvas", lambda d, p: bool(d.data("draw").strokes) or saved(d, p["file_name"])),
        Milestone('Open "Save as"', lambda d, p: _saving(d) or saved(d, p["file_name"])),
        Milestone("Save the drawing as <FileName> in Pictures", lambda d, p: saved(d, p["file_name"])),
    )

    def generate(self, r: random.Random) -> Params:
        word = "".join(r.choices(WORDS, k=1))
        name = word + "_" + random_file_name(r) + r.choice(EXTENSIONS)
        return {"file_name": name, "text": ""}

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        storage.clear_files(dev)  # CreateFile.initialize_task: clear_device_storage

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return saved(dev, p["file_name"])

    def oracle(self, o: Oracle) -> str:
        if saved(o.dev, o.p["file_name"]):
            return o.finish()
        return save_step(o, PICTURES, o.p["file_name"])


TEMPLATES = (SimpleDrawProCreateDrawing,)
