"""AndroidWorld's Simple Gallery Pro task (``task_evals/single/simple_gallery_pro.py``):
``SaveCopyOfReceiptTaskEval``.

Parameters (``generate_random_params``): a receipt picture drawn first
(``receipt_generator.create_receipt()``, one transaction: the company and slogan, then the
transaction's item, price and day; a 500 x 500 image), then its name, ``receipt_`` +
``generate_random_file_name()`` + ``.jpg``. AndroidWorld keeps the image itself in its parameters;
here ``receipt`` holds what it shows (company, slogan, transactions) and ``receipt_image`` the
image's ``repr`` without its memory address (``<PIL.Image.Image image mode=RGB size=500x500>``).

Set-up (``initialize_task``): the phone's storage cleared (``clear_device_storage``: every file under
``/storage/emulated/0``), then the receipt saved as that JPEG and pushed to ``/sdcard/DCIM``.
Check (``is_successful``): ``find /storage/emulated/0/Download -type f -o -type d`` lists
``/storage/emulated/0/Download/<file_name>``: a file (or folder) of that name directly in
Download. Nothing else is compared (another name, a copy in a subfolder of Download, the picture
left only in DCIM: all fail; a move instead of a copy passes).

The oracle acts as a person in Gallery: the DCIM folder, the picture, "More options", "Copy to";
Download holds no media, so it is not among the destinations: "Other folder", the breadcrumb
"Internal", the folder Download, OK.
"""

from __future__ import annotations

import posixpath
import random
from typing import TYPE_CHECKING, ClassVar

from gui_gym.android.sim.apps.gallery.app import (
    COPY_TO,
    INTERNAL,
    OTHER_FOLDER,
    FilePickerDialog,
    PickDirectoryDialog,
    Viewer,
    folder_name,
    folders,
    subfolders,
)
from gui_gym.android.sim.apps.gallery.oracle import view_step, viewed
from gui_gym.android.sim.apps.markor.androidworld import (
    RECEIPT_COMPANIES,
    RECEIPT_FOOTER,
    RECEIPT_SLOGANS,
    clear_device_storage,
    receipt_transaction,
)
from gui_gym.android.sim.dialogs import MenuDialog
from gui_gym.android.sim.media import media
from gui_gym.android.sim.tasks.androidworld import AndroidWorldTask, random_file_name
from gui_gym.android.sim.tasks.base import Milestone, Oracle, Params, back_stack

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

#: ``device_constants.GALLERY_DATA`` and ``DOWNLOAD_DATA``, below /sdcard
DCIM, DOWNLOAD = "DCIM", "Download"
#: ``create_receipt()``'s image size with its default one transaction (500 wide, 2 * max(250, 50 * 5) high)
RECEIPT_SIZE = (500, 500)


def receipt_lines(receipt: dict) -> list[str]:
    """The receipt picture's lines, placed about where ``create_receipt`` draws them on its 500 x 500
    image: the company and slogan near the top, the transactions below, the footer at the bottom."""
    body = ["", "", receipt["company"], receipt["slogan"], "", *receipt["transactions"]]
    return body + [""] * max(0, 13 - len(body)) + list(RECEIPT_FOOTER)


def copied(dev: Device, name: str) -> bool:
    """``check_file_or_folder_exists(name, DOWNLOAD_DATA)``: a file or folder ``Download/<name>``."""
    store = media(dev)
    path = posixpath.join(DOWNLOAD, name)
    return path in store.files or path in store.dirs


def _done(dev: Device, p: Params) -> bool:
    return copied(dev, p["file_name"])


def _source(p: Params) -> str:
    return posixpath.join(DCIM, p["file_name"])


def _viewer(dev: Device, p: Params) -> Viewer | None:
    stack = back_stack(dev, "gallery")
    top = stack[-1] if stack else None
    return top if isinstance(top, Viewer) and top.path == _source(p) else None


def _picking(dev: Device, p: Params) -> bool:
    v = _viewer(dev, p)
    return v is not None and v.pending == "copy" and isinstance(v.dialog, PickDirectoryDialog | FilePickerDialog)


def _download_chosen(dev: Device, p: Params) -> bool:
    v = _viewer(dev, p)
    return v is not None and isinstance(v.dialog, FilePickerDialog) and v.dialog.folder == DOWNLOAD


class SaveCopyOfReceiptTaskEval(AndroidWorldTask):
    """Copy ``DCIM/<file_name>`` to ``Download`` under the same name (see the module docstring)."""

    id = "SaveCopyOfReceiptTaskEval"
    app = "gallery"
    apps = ("gallery",)
    template = "In Simple Gallery Pro, copy {file_name} in DCIM and save a copy with the same name in Download"
    difficulty = "hard"
    optimal_steps = 8
    tags = ("parameterized", "complex_ui_understanding")
    placeholders: ClassVar[dict[str, str]] = {"FileName": "file_name"}
    milestones = (
        Milestone("Open <FileName> in DCIM in Simple Gallery Pro", lambda d, p: viewed(d, _source(p)) or _done(d, p)),
        Milestone('Choose "Copy to" for it', lambda d, p: _picking(d, p) or _done(d, p)),
        Milestone("Pick the Download folder as the destination", lambda d, p: _download_chosen(d, p) or _done(d, p)),
        Milestone("Save the copy of <FileName> in Download", lambda d, p: _done(d, p)),
    )

    def generate(self, r: random.Random) -> Params:
        company, slogan = r.choice(RECEIPT_COMPANIES), r.choice(RECEIPT_SLOGANS)  # _random_company_info
        transactions = [receipt_transaction(r)]  # create_receipt(num_transactions=1)
        w, h = RECEIPT_SIZE
        return {
            "receipt_image": f"<PIL.Image.Image image mode=RGB size={w}x{h}>",
            "file_name": "receipt_" + random_file_name(r) + ".jpg",
            "receipt": {"company": company, "slogan": slogan, "transactions": transactions},
        }

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        clear_device_storage(dev)
        media(dev).add_image(_source(params), receipt_lines(params["receipt"]), dev.state.now, size=RECEIPT_SIZE)

    def check(self, dev: Device, params: Params, answer: str | None, status: str | None) -> bool:
        return copied(dev, params["file_name"])

    def oracle(self, o: Oracle) -> str:
        p = o.p
        if self.check(o.dev, p, None, None):
            return o.finish()
        v = _viewer(o.dev, p) if o.app == "gallery" and not o.keyboard else None
        if v is None or o.screen is not v:
            return view_step(o, _source(p)) or o.back()
        d = v.dialog
        if d is None:
            return o.tap(o.find(desc="More options"))
        if isinstance(d, MenuDialog) and d.handler == "on_more":
            return o.tap(o.find(COPY_TO, role="menuitem"))
        if isinstance(d, PickDirectoryDialog) and v.pending == "copy":
            if any(folder == DOWNLOAD for folder, _ in folders(media(o.dev))):
                return o.tap(o.find(role="row", label=folder_name(DOWNLOAD)))
            return o.tap(o.find(label=OTHER_FOLDER, role="textbutton"))
        if isinstance(d, FilePickerDialog) and v.pending == "copy":
            if d.folder == DOWNLOAD:
                return o.tap(o.find(label="OK", role="textbutton"))
            if d.folder != "":
                return o.tap(o.find(label=INTERNAL, rid=":id/breadcrumb_text"))
            order = subfolders(media(o.dev), "")
            at = order.index(DOWNLOAD)

            def before(row: object) -> bool:
                label = getattr(row, "label", "")
                return label in order and order.index(label) < at

            act = o.reveal(
                lambda n: n.role == "row" and n.label == DOWNLOAD, before=before, list_rid=":id/filepicker_list"
            )
            return act or o.tap(o.find(role="row", label=DOWNLOAD))
        return o.back()


TEMPLATES = (SaveCopyOfReceiptTaskEval,)

__all__ = ["TEMPLATES", "copied", "receipt_lines"]
