"""Simple Gallery Pro's copy and move destination pickers: "Select destination"
(:class:`PickDirectoryDialog`, the folders holding media) and Simple-Commons' "Select a folder"
(:class:`FilePickerDialog`, any folder of the storage, by breadcrumbs), which the viewer's "Copy
to" and "Move to" open (:class:`~gui_gym.android.sim.apps.gallery.app.Viewer`).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from gui_gym.android.sim.apps.gallery.common import (
    DIR_COLUMNS,
    INTERNAL,
    NO_MEDIA,
    OTHER_FOLDER,
    PKG,
    SAME_FOLDER,
    SELECT_DESTINATION,
    SELECT_FOLDER,
    children_count,
    db,
    folder_name,
    folders,
    inset,
    is_folder,
    picture,
    rid,
    subfolders,
)
from gui_gym.android.sim.dialogs import Dialog
from gui_gym.android.sim.media import MediaFile, media
from gui_gym.android.sim.widgets import ROW_H, UI, union
from gui_gym.android.ui import SCREEN_W, Node

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

__all__ = ["FilePickerDialog", "PickDirectoryDialog"]


def _inside(node: Node, left: int, right: int) -> None:
    """Narrow ``node`` and what it holds to the columns ``left``-``right`` (a list in a dialog)."""
    l, t, r, b = node.bounds
    node.bounds = (max(l, left), t, min(r, right), b)
    for c in node.children:
        _inside(c, left, right)


def _dialog_list(ui: UI, host: Dialog, key: str, items: Sequence[Any], render: Callable[[UI, Any], None],
                 item_h: int, rows: int, list_id: str, empty: str) -> None:  # fmt: skip
    """A RecyclerView of ``items`` inside a dialog's panel, ``rows`` items high at most."""
    h = max(1, min(len(items), rows)) * item_h
    lst = ui.scroll_list(host, key, items, render, item_h=item_h, bottom=ui.y + h, empty=empty, list_id=list_id)
    for n in ui.nodes[-2:]:  # the list's frame (and its empty text) inside the panel
        _inside(n, 60, SCREEN_W - 60)
    _inside(lst, 60, SCREEN_W - 60)


class PickDirectoryDialog(Dialog):
    """``PickDirectoryDialog`` picking a copy or move destination ("Select destination"): the
    folders holding pictures or videos (the folder grid's), a tap on one picks it; OK and Cancel
    close it, "Other folder" opens the folder picker. The handler gets the folder picked."""

    def __init__(self, handler: str, source: str) -> None:
        super().__init__(handler, SELECT_DESTINATION)
        self.source = source  # the folder of the file being copied

    def build(self, ui: UI, dev: Device) -> None:
        store = media(dev)
        shown = folders(store)
        cell = (SCREEN_W - 120) // DIR_COLUMNS
        rows = [shown[i : i + DIR_COLUMNS] for i in range(0, len(shown), DIR_COLUMNS)]
        list_h = max(1, min(len(rows), 2)) * cell
        panel = ui.dialog_panel(self, height=130 + list_h + 180)
        ui.dialog_title(self.title)

        def render(ui: UI, row: list[tuple[str, list[MediaFile]]]) -> None:
            y = ui.y
            for c, (path, files) in enumerate(row):
                box = (60 + c * cell, y, 60 + (c + 1) * cell, y + cell)
                l, _, r, b = box
                name = folder_name(path)
                texts = [
                    Node("android.widget.TextView", (l + 21, b - 150, r - 21, b - 85), name, rid=rid("dir_name")),
                    Node("android.widget.TextView", (l + 21, b - 85, r - 21, b - 21), str(len(files)),
                         rid=rid("photo_cnt")),
                ]  # fmt: skip
                for n in texts:
                    n.package, n.role, n.style = PKG, "text", 40
                caption = Node("android.widget.LinearLayout", (l, b - 160, r, b), rid=rid("dir_bottom_holder"),
                               package=PKG, children=texts, role="toolbar")  # fmt: skip
                ui.add(
                    Node(
                        "android.widget.RelativeLayout",
                        box,
                        rid=rid("dir_holder"),
                        package=PKG,
                        on_tap=lambda p=path: self._pick(dev, p),
                        focusable=True,
                        label=name,
                        role="row",
                        children=[picture("android.widget.ImageView", inset(box), files[0], "crop", "dir_thumbnail"),
                                  caption],
                    )
                )  # fmt: skip

        _dialog_list(ui, self, "grid", rows, render, cell, 2, "directories_grid", NO_MEDIA)
        ui.dialog_buttons(self, [("Cancel", None), ("OK", None)])
        # the neutral button ("Other folder", button3) at the start of the bar, as AlertDialog lays it
        y, bar = ui.y - 130, ui.nodes[-1]
        bar.children[0].children.insert(
            0,
            Node(
                "android.widget.Button",
                (100, y, 100 + 34 * len(OTHER_FOLDER) + 60, y + 120),
                OTHER_FOLDER.upper(),
                label=OTHER_FOLDER,
                rid="android:id/button3",
                package=PKG,
                on_tap=lambda: self.finish(dev, "other"),
                role="textbutton",
            ),
        )
        bar.children[0].bounds = union(n.bounds for n in bar.children[0].children)
        bar.bounds = bar.children[0].bounds
        ui.end_panel(panel)

    def _pick(self, dev: Device, path: str) -> str:
        if path == self.source:
            dev.toast(SAME_FOLDER)
            return f'Tap the folder "{folder_name(path)}": {SAME_FOLDER.lower()}'
        return self.finish(dev, path) or f'Pick the folder "{folder_name(path)}"'

    def finish(self, dev: Device, value: Any) -> str | None:
        if value == "other":
            start = db(dev).last_copy_path
            if not start or not is_folder(media(dev), start):
                start = self.source
            dev.open_dialog(FilePickerDialog(self.handler, start))
            return f'Tap "{OTHER_FOLDER}"'
        return super().finish(dev, value)


class FilePickerDialog(Dialog):
    """Simple-Commons' ``FilePickerDialog`` picking a folder ("Select a folder"): the breadcrumbs
    of the folder shown ("Internal", then each folder of its path: tap one to go back up there)
    and its subfolders (name, item count; a tap enters one), Cancel and OK (the folder shown is
    picked). The handler gets the folder."""

    def __init__(self, handler: str, folder: str) -> None:
        super().__init__(handler, SELECT_FOLDER)
        self.folder = folder

    def build(self, ui: UI, dev: Device) -> None:
        store = media(dev)
        if not is_folder(store, self.folder):  # removed underneath: the storage's root
            self.folder = ""
        names = subfolders(store, self.folder)
        panel = ui.dialog_panel(self, height=130 + 130 + min(max(len(names), 1), 7) * ROW_H + 180)
        ui.dialog_title(self.title)
        crumbs, x, y = [], 100, ui.y
        parts = self.folder.split("/") if self.folder else []
        for i, label in enumerate([INTERNAL, *parts]):
            target = "/".join(parts[:i])
            w = 24 * (len(label) + (2 if i else 0)) + 40
            crumbs.append(
                Node(
                    "android.widget.TextView",
                    (x, y, x + w, y + 110),
                    label if i == 0 else f"> {label}",
                    rid=rid("breadcrumb_text"),
                    package=PKG,
                    on_tap=lambda t=target: self._enter(t),
                    label=label,
                    clickable=True,
                    role="text",
                    style=44,
                )
            )
            x += w + 10
        ui.add(Node("android.widget.HorizontalScrollView", (60, y, SCREEN_W - 60, y + 110),
                    rid=rid("filepicker_breadcrumbs"), package=PKG, children=crumbs))  # fmt: skip
        ui.y = y + 130

        def render(ui: UI, name: str) -> None:
            path = posixpath.join(self.folder, name) if self.folder else name
            n = children_count(store, path)
            l, t, r, b = ui.rect(ROW_H, x0=60, x1=SCREEN_W - 60)
            kids = [
                Node("android.widget.ImageView", (l + 40, t + 34, l + 140, b - 34), rid=rid("list_item_icon"),
                     package=PKG, role="icon", style="folder"),
                Node("android.widget.TextView", (l + 180, t + 20, r - 40, t + 90), name, rid=rid("list_item_name"),
                     package=PKG, role="text"),
                Node("android.widget.TextView", (l + 180, t + 90, r - 40, b - 20),
                     "1 item" if n == 1 else f"{n} items", rid=rid("list_item_details"), package=PKG, role="subtext"),
            ]  # fmt: skip
            ui.add(Node("android.widget.RelativeLayout", (l, t, r, b), rid=rid("list_item_holder"), package=PKG,
                        on_tap=lambda p=path: self._enter(p), label=name, role="row", children=kids))  # fmt: skip

        _dialog_list(ui, self, "list", names, render, ROW_H, 7, "filepicker_list", "No items found.")
        ui.dialog_buttons(self, [("Cancel", None), ("OK", "ok")])
        ui.end_panel(panel)

    def _enter(self, folder: str) -> str:
        self.folder = folder
        self.scroll["list"] = 0
        return f'Open "{folder_name(folder)}" in the folder picker'

    def finish(self, dev: Device, value: Any) -> str | None:
        if value is None:
            return super().finish(dev, None)
        db(dev).last_copy_path = self.folder  # config.lastCopyPath
        return super().finish(dev, self.folder)
