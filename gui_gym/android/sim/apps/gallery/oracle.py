"""The oracle's steps through Simple Gallery Pro, for the tasks that read a picture in it
(AndroidWorld's MarkorTranscribeReceipt and ExpenseAddMultipleFromGallery)."""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from gui_gym.android.sim.apps.gallery.app import (
    LABEL,
    FolderGrid,
    MediaGrid,
    Viewer,
    folder_files,
    folder_name,
    folders,
)
from gui_gym.android.sim.media import media
from gui_gym.android.sim.tasks.base import Oracle, back_stack

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device


def viewed(dev: Device, path: str) -> bool:
    """The file ``path`` (below ``/sdcard``) is open in Gallery's viewer (in front or behind
    another app: what was on screen stays on Gallery's back stack)."""
    return any(isinstance(s, Viewer) and s.path == path for s in back_stack(dev, "gallery"))


def view_step(o: Oracle, path: str) -> str | None:
    """From anywhere: one step toward viewing the file ``path`` in Gallery (its folder in the
    folder grid, its thumbnail in the folder's grid); ``None`` once it is on screen."""
    folder = posixpath.dirname(path)
    if o.app != "gallery":
        return o.launch(LABEL)
    s = o.screen
    if s is None or s.dialog is not None or o.keyboard or s.form.get("search"):
        return o.back()  # a dialog, the keyboard or a search: Back closes it
    store = media(o.dev)
    if isinstance(s, Viewer):
        if s.path == path:
            return None
        if s.folder != folder:
            return o.back()
        order = [f.path for f in folder_files(store, folder)]
        pager = o.find(rid=":id/view_pager")
        ahead = order.index(path) > order.index(s.path)
        return o.swipe("left" if ahead else "right", within=pager)  # a finger to the left: the next file
    if isinstance(s, MediaGrid):
        if s.folder != folder:
            return o.back()
        order = [f.name for f in folder_files(store, folder)]
        return _open_cell(o, ":id/media_grid", order, posixpath.basename(path))
    if isinstance(s, FolderGrid):
        order = [folder_name(p) for p, _ in folders(store)]
        return _open_cell(o, ":id/directories_grid", order, folder_name(folder))
    return o.back()


def _open_cell(o: Oracle, list_rid: str, order: list[str], name: str) -> str:
    """Scroll the grid to the cell ``name`` (``order``: the grid's cells' names in order), then tap it."""
    at = order.index(name)

    def before(cell: object) -> bool:
        label = getattr(cell, "label", "")
        return label in order and order.index(label) < at

    act = o.reveal(lambda n: n.role == "row" and n.label == name, before=before, list_rid=list_rid)
    return act or o.tap(o.find(role="row", label=name))
