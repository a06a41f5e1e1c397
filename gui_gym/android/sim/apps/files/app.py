"""Files (com.google.android.documentsui, the emulator's DocumentsUI): the phone's shared storage,
folder by folder.

Data: the shared storage itself (:mod:`gui_gym.android.sim.apps.files.data`: the media store,
Markor's notebook and the emulator's standard folders); the app keeps nothing of its own.

Screens, as DocumentsUI lays them out in list mode:

- the browser (:class:`Browser`, ``FilesActivity``): the toolbar ("Show roots" at the left, the
  root's or folder's name), a breadcrumb of the folders from the storage's root
  (``horizontal_breadcrumb``) while browsing the storage, then the list (``dir_list``): folders
  first, then files, each by name, a row (``item_root``) with its icon, name (``android:id/title``),
  date and size. It opens on "Recent" (the newest files). Tap a folder to open it; Back goes up a
  folder, and leaves from the root. Long-press a file to select it; while items are selected a
  tap toggles one, the toolbar shows the count, "Select all", "Delete" and "More options" (Select
  all, Copy to…, Move to…), and Back clears the selection. Delete asks to confirm (Cancel / OK).
- the roots drawer (:class:`RootsDrawer`): Recent, Images, Videos, Audio, Documents, Downloads and
  the storage ("sdk_gphone_x86_64").
- the destination picker (:class:`Picker`, ``PickActivity``), for Copy to… and Move to…: the same
  breadcrumb and folder list (files shown, greyed), and CANCEL / MOVE (COPY) at the bottom; it
  opens where the selected files are.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from gui_gym.android.sim.apps.base import App
from gui_gym.android.sim.apps.files import data
from gui_gym.android.sim.apps.files.data import STORAGE_NAME, Item
from gui_gym.android.sim.dialogs import Dialog, MenuDialog
from gui_gym.android.sim.widgets import NAV_TOP, ROW_H, STATUS_H, TOOLBAR_H, UI, Inapplicable, Screen
from gui_gym.android.ui import SCREEN_W, Node

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

PKG = "com.google.android.documentsui"
LABEL = "Files"
SHOW_ROOTS = "Show roots"
MORE = "More options"
#: the roots the drawer lists: (key, title)
ROOTS = (
    ("recent", "Recent"),
    ("images", "Images"),
    ("videos", "Videos"),
    ("audio", "Audio"),
    ("documents", "Documents"),
    ("downloads", "Downloads"),
    ("storage", STORAGE_NAME),
)
ROOT_TITLES = dict(ROOTS)
#: where a browsing root starts in the storage
ROOT_FOLDERS = {"storage": "", "downloads": "Download"}
RECENT_MAX = 40
CRUMB_H = 120
BOTTOM_H = 170


def rid(name: str) -> str:
    return f"{PKG}:id/{name}"


def folder_title(root: str, folder: str) -> str:
    """The toolbar's title: the folder's name, the root's at its top."""
    if root in ROOT_FOLDERS and folder != ROOT_FOLDERS[root]:
        return posixpath.basename(folder)
    return ROOT_TITLES[root]


def crumbs(root: str, folder: str) -> list[tuple[str, str]]:
    """The breadcrumb's ``(text, folder)`` from the root's top down to ``folder``."""
    top = ROOT_FOLDERS[root]
    out = [(ROOT_TITLES[root], top)]
    rest = folder[len(top) :].strip("/") if folder.startswith(top) else folder
    path = top
    for part in [p for p in rest.split("/") if p]:
        path = f"{path}/{part}" if path else part
        out.append((part, path))
    return out


def summary(item: Item) -> str:
    """A row's second line: the date (the time of day for today's files) and a file's size."""
    when = item.mtime.strftime("%b %-d, %Y")
    return when if item.is_dir else f"{when} · {data.size_text(item.size)}"


def bar(
    ui: UI,
    title: str,
    left: tuple[str, str, Callable[[], Any]] | None,
    actions: Sequence[tuple[str, str, str, Callable[[], Any]]] = (),
) -> None:
    """DocumentsUI's toolbar: the icon at the left (``(desc, icon, on_tap)``), the title, and the
    action items ``(desc, icon, resource id, on_tap)``."""
    y = ui.y
    box = (0, y, SCREEN_W, y + TOOLBAR_H)
    tb = Node("android.view.ViewGroup", box, rid=rid("toolbar"), package=PKG, role="toolbar")
    x = 24
    if left is not None:
        desc, icon, cb = left
        tb.children.append(
            Node("android.widget.ImageButton", (x, y + 17, x + 120, y + 137), desc=desc, package=PKG,
                 on_tap=cb, role="icon", style=icon)
        )  # fmt: skip
        x += 140
    right = SCREEN_W - 24
    items = []
    for desc, icon, view_id, cb in reversed(list(actions)):
        items.insert(
            0,
            Node("android.widget.Button" if icon != "more" else "android.widget.ImageView",
                 (right - 120, y + 17, right, y + 137), desc=desc, rid=rid(view_id) if view_id else "",
                 package=PKG, on_tap=cb, role="icon", style=icon),
        )  # fmt: skip
        right -= 130
    tb.children.append(Node("android.widget.TextView", (x, y + 17, right, y + 137), title, package=PKG, role="title"))
    if items:
        tb.children.append(
            Node("androidx.appcompat.widget.ActionMenuView", (items[0].bounds[0], y + 17, SCREEN_W - 24, y + 137),
                 package=PKG, children=items)
        )  # fmt: skip
    ui.add(Node("android.widget.LinearLayout", box, rid=rid("toolbar_container"), package=PKG, children=[tb]))
    ui.y += TOOLBAR_H


def breadcrumb(ui: UI, root: str, folder: str, go: Callable[[str], Any]) -> None:
    """The horizontal breadcrumb: one text per folder from the root's top, each opening it."""
    y = ui.y
    x = 42
    kids = []
    parts = crumbs(root, folder)
    for i, (text, path) in enumerate(parts):
        w = min(600, 40 + 26 * len(text))
        kids.append(
            Node("android.widget.TextView", (x, y, x + w, y + CRUMB_H), text, rid=rid("breadcrumb_text"),
                 package=PKG, on_tap=lambda p=path: go(p), role="text", style=38, label=text,
                 selected=i == len(parts) - 1)
        )  # fmt: skip
        x += w
        if i < len(parts) - 1:
            kids.append(
                Node("android.widget.ImageView", (x, y + 30, x + 60, y + 90), rid=rid("breadcrumb_arrow"),
                     package=PKG, role="icon", style="chevron_right")
            )  # fmt: skip
            x += 60
    ui.add(
        Node("androidx.recyclerview.widget.RecyclerView", (0, y, SCREEN_W, y + CRUMB_H),
             rid=rid("horizontal_breadcrumb"), package=PKG, children=kids)
    )  # fmt: skip
    ui.y += CRUMB_H


def item_row(
    ui: UI,
    item: Item,
    on_tap: Callable[[], Any] | None,
    on_long_press: Callable[[], Any] | None = None,
    selected: bool = False,
    enabled: bool = True,
) -> None:
    """One list item (``item_doc_list.xml``): the icon, the name, the date and size."""
    l, t, r, b = ui.rect(ROW_H, x0=0, x1=SCREEN_W)
    icon = (
        "folder"
        if item.is_dir
        else {"image": "image", "video": "play", "audio": "music"}.get(data.kind(item.name), "file")
    )
    kids = [
        Node("android.widget.ImageView", (42, t + 34, 142, b - 34), rid=rid("icon_mime"), package=PKG,
             role="icon", style=icon),
        Node("android.widget.TextView", (180, t + 20, 1000, t + ROW_H // 2 + 4), item.name, rid="android:id/title",
             package=PKG, role="text", enabled=enabled),
        Node("android.widget.TextView", (180, t + ROW_H // 2 + 4, 1000, b - 16), summary(item),
             rid=rid("details") if not item.is_dir else rid("date"), package=PKG, role="subtext", enabled=enabled),
    ]  # fmt: skip
    ui.add(
        Node("android.widget.LinearLayout", (l, t, r, b), rid=rid("item_root"), package=PKG, on_tap=on_tap,
             on_long_press=on_long_press, label=item.name, role="row", selected=selected, children=kids,
             enabled=enabled, focusable=True)
    )  # fmt: skip


def kind_files(dev: Device, root: str) -> list[Item]:
    """A category root's files (Images, Videos, Audio, Documents), or Recent's: newest first."""
    want = {"images": "image", "videos": "video", "audio": "audio", "documents": "document"}.get(root)
    items = [i for i in data.files(dev) if want is None or data.kind(i.name) == want]
    if root == "recent":
        items = [i for i in items if not i.path.startswith("Android/")]
    items.sort(key=lambda i: (-i.mtime.timestamp(), i.name.lower()))
    return items[:RECENT_MAX] if root == "recent" else items


# ----------------------------------------------------------------------------- screens


class Browser(Screen):
    """``FilesActivity``: a root's files, or a folder of the storage."""

    def __init__(self, root: str = "recent") -> None:
        super().__init__()
        self.root = root
        self.folder = ROOT_FOLDERS.get(root, "")
        self.selected: list[str] = []

    # -- what is shown ---------------------------------------------------------------------
    def browsing(self) -> bool:
        return self.root in ROOT_FOLDERS

    def items(self, dev: Device) -> list[Item]:
        if self.browsing():
            return data.listing(dev, self.folder)
        return kind_files(dev, self.root)

    def build(self, ui: UI, dev: Device) -> None:
        present = {i.path for i in data.files(dev)} | data.folders(dev)
        self.selected = [p for p in self.selected if p in present]
        if self.selected:
            n = len(self.selected)
            bar(
                ui,
                f"{n} selected",
                ("Close", "close", lambda: self._clear(dev)),
                [
                    ("Select all", "select_all", "action_menu_select_all", lambda: self._select_all(dev)),
                    ("Delete", "delete", "action_menu_delete", lambda: self._delete(dev)),
                    (MORE, "more", "", lambda: self._more(dev)),
                ],
            )
        else:
            bar(ui, folder_title(self.root, self.folder), (SHOW_ROOTS, "menu", lambda: self._roots(dev)))
        if self.browsing():
            breadcrumb(ui, self.root, self.folder, lambda p: self._go(dev, p))
        items = self.items(dev)

        def render(ui: UI, item: Item) -> None:
            item_row(
                ui,
                item,
                lambda: self._tap(dev, item),
                lambda: self._long_press(dev, item),
                selected=item.path in self.selected,
            )

        ui.scroll_list(self, "list", items, render, list_id="dir_list", empty="No items")

    # -- acting ------------------------------------------------------------------------------
    def _roots(self, dev: Device) -> str:
        dev.open_dialog(RootsDrawer("on_root"))
        return f'Tap "{SHOW_ROOTS}" in {LABEL}'

    def on_root(self, dev: Device, root: str) -> str:
        self.root, self.folder, self.selected = root, ROOT_FOLDERS.get(root, ""), []
        self.scroll.clear()
        return f'Open "{ROOT_TITLES[root]}" in {LABEL}'

    def _go(self, dev: Device, folder: str) -> str:
        self.folder, self.selected = folder, []
        self.scroll.clear()
        return f'Open the folder "{folder_title(self.root, folder)}" in {LABEL}'

    def _tap(self, dev: Device, item: Item) -> str:
        if self.selected:
            return self._toggle(item)
        if item.is_dir:
            if not self.browsing():
                raise Inapplicable("no folder here")
            return self._go(dev, item.path)
        if item.name.lower().endswith((".html", ".htm")):  # Chrome takes web pages: Android asks with which app
            self.dialog = MenuDialog("on_open_with", [("Chrome", item.path)], title="Open with")
            return f'Tap the file "{item.name}" in {LABEL}: open with…'
        dev.toast("No app can open this file")
        return f'Tap the file "{item.name}" in {LABEL} (no app here opens it)'

    def on_open_with(self, dev: Device, path: str) -> str:
        from gui_gym.android.sim.apps.chrome.app import open_file  # the apps' packages import this one

        return open_file(dev, path)

    def _long_press(self, dev: Device, item: Item) -> str:
        return self._toggle(item)

    def _toggle(self, item: Item) -> str:
        if item.path in self.selected:
            self.selected.remove(item.path)
            return f'Deselect "{item.name}" in {LABEL}'
        self.selected.append(item.path)
        return f'Select "{item.name}" in {LABEL}'

    def _clear(self, dev: Device) -> str:
        self.selected = []
        return f"Close the selection in {LABEL}"

    def _select_all(self, dev: Device) -> str:
        self.selected = [i.path for i in self.items(dev)]
        return f"Select all items in {LABEL}"

    def _delete(self, dev: Device) -> str:
        n = len(self.selected)
        name = posixpath.basename(self.selected[0])
        message = f'Delete "{name}"?' if n == 1 else f"Delete {n} items?"
        dev.open_dialog(ConfirmDialog("on_delete", message))
        return f'Tap "Delete" in {LABEL}'

    def on_delete(self, dev: Device, value: str) -> str:
        names = [posixpath.basename(p) for p in self.selected]
        for p in self.selected:
            data.delete(dev, p)
        self.selected = []
        return f"Delete {', '.join(names)} in {LABEL}"

    def _more(self, dev: Device) -> str:
        items = [("Select all", "select_all"), ("Copy to…", "copy"), ("Move to…", "move")]
        dev.open_dialog(Popup("on_more", items))
        return f'Tap "{MORE}" in {LABEL}'

    def on_more(self, dev: Device, value: str) -> str:
        if value == "select_all":
            return self._select_all(dev)
        if any(data.is_dir(dev, p) for p in self.selected):
            raise Inapplicable("folders are not copied or moved here: select files")
        start = posixpath.dirname(self.selected[0])
        dev.push(Picker(value, list(self.selected), start))
        return f'Tap "{"Move to…" if value == "move" else "Copy to…"}" in {LABEL}'

    def on_back(self, dev: Device) -> str | None:
        if self.selected:
            return self._clear(dev)
        if self.browsing() and self.folder != ROOT_FOLDERS[self.root]:
            self._go(dev, posixpath.dirname(self.folder))
            return f'Press Back to go up to "{folder_title(self.root, self.folder)}" in {LABEL}'
        return None


class Picker(Screen):
    """``PickActivity`` choosing where Copy to… / Move to… puts the selected files."""

    activity = "com.android.documentsui.picker.PickActivity"

    def __init__(self, op: str, sources: list[str], folder: str) -> None:
        super().__init__()
        self.op = op
        self.sources = sources
        self.folder = folder

    def build(self, ui: UI, dev: Device) -> None:
        ui.bottom = ui.content_bottom - BOTTOM_H
        bar(ui, posixpath.basename(self.folder) or STORAGE_NAME, ("Navigate up", "arrow_left", lambda: self._up(dev)))
        breadcrumb(ui, "storage", self.folder, lambda p: self._go(p))

        def render(ui: UI, item: Item) -> None:
            if item.is_dir:
                item_row(ui, item, lambda: self._go(item.path))
            else:
                item_row(ui, item, None, enabled=False)

        ui.scroll_list(self, "list", data.listing(dev, self.folder), render, list_id="dir_list", empty="No items")
        y = ui.content_bottom - BOTTOM_H
        verb = "Move" if self.op == "move" else "Copy"
        buttons = [
            Node("android.widget.Button", (SCREEN_W - 620, y + 25, SCREEN_W - 340, y + 145), "CANCEL",
                 rid="android:id/button2", package=PKG, on_tap=lambda: self._cancel(dev), role="textbutton",
                 label="Cancel", clickable=True),
            Node("android.widget.Button", (SCREEN_W - 320, y + 25, SCREEN_W - 42, y + 145), verb.upper(),
                 rid="android:id/button1", package=PKG, on_tap=lambda: self._confirm(dev), role="textbutton",
                 label=verb, clickable=True),
        ]  # fmt: skip
        ui.add(
            Node("android.widget.LinearLayout", (0, y, SCREEN_W, ui.content_bottom), rid=rid("container_save"),
                 package=PKG, children=buttons)
        )  # fmt: skip

    def _go(self, folder: str) -> str:
        self.folder = folder
        self.scroll.clear()
        return f'Open the folder "{posixpath.basename(folder) or STORAGE_NAME}" in the {LABEL} picker'

    def _up(self, dev: Device) -> str:
        dev.pop()
        return f'Tap "Navigate up" to leave the {LABEL} picker'

    def _cancel(self, dev: Device) -> str:
        dev.pop()
        return f"Cancel the {'move' if self.op == 'move' else 'copy'} in {LABEL}"

    def _confirm(self, dev: Device) -> str:
        if self.op == "move" and all(posixpath.dirname(p) == self.folder for p in self.sources):
            raise Inapplicable("the files are in this folder already")
        names = []
        for p in self.sources:
            if data.read(dev, p) is None:
                continue
            names.append(posixpath.basename(p))
            (data.move if self.op == "move" else data.copy)(dev, p, self.folder)
        dev.pop()
        top = dev.top_screen()
        if isinstance(top, Browser):
            top.selected = []
        where = posixpath.basename(self.folder) or STORAGE_NAME
        n = len(names)
        dev.toast(f"{'Moving' if self.op == 'move' else 'Copying'} {n} file{'' if n == 1 else 's'} to {where}")
        return f"{'Move' if self.op == 'move' else 'Copy'} {', '.join(names)} to {where} in {LABEL}"

    def on_back(self, dev: Device) -> str | None:
        if self.folder:
            self._go(posixpath.dirname(self.folder))
            return f"Press Back to go up a folder in the {LABEL} picker"
        return None


class ConfirmDialog(Dialog):
    """The delete confirmation: the message, Cancel and OK."""

    def __init__(self, handler: str, message: str) -> None:
        super().__init__(handler, "")
        self.message = message

    def build(self, ui: UI, dev: Device) -> None:
        panel = ui.dialog_panel(self, height=170 + 150 + 60)
        ui.spacer(30)
        ui.text(self.message, h=170, rid="android:id/message", size=40)
        ui.dialog_buttons(self, [("Cancel", None), ("OK", "ok")])
        ui.end_panel(panel)


class Popup(Dialog):
    """The overflow menu: its items, top right."""

    def __init__(self, handler: str, items: Sequence[tuple[str, str]]) -> None:
        super().__init__(handler, "")
        self.items = list(items)

    def build(self, ui: UI, dev: Device) -> None:
        top = STATUS_H + 20
        box = (SCREEN_W - 620, top, SCREEN_W - 20, top + 20 + 140 * len(self.items))
        _panel(ui, self, box)
        kids = []
        for i, (text, value) in enumerate(self.items):
            y = top + 10 + 140 * i
            kids.append(
                Node("android.widget.LinearLayout", (box[0], y, box[2], y + 140), package=PKG,
                     on_tap=lambda v=value: self.finish(dev, v), role="menuitem", label=text, clickable=True,
                     children=[Node("android.widget.TextView", (box[0] + 50, y + 30, box[2] - 30, y + 110), text,
                                    rid=rid("title"), package=PKG, role="text")])
            )  # fmt: skip
        ui.nodes[-1].children[0].children[0].children[0].children.append(
            Node("android.widget.ListView", box, package=PKG, children=kids)
        )


class RootsDrawer(Dialog):
    """The navigation drawer of roots (``roots_list``)."""

    def build(self, ui: UI, dev: Device) -> None:
        box = (0, STATUS_H, 840, NAV_TOP)
        _panel(ui, self, box)
        kids = [
            Node("android.widget.TextView", (60, STATUS_H + 40, 800, STATUS_H + 160), LABEL, package=PKG,
                 role="title")
        ]  # fmt: skip
        y = STATUS_H + 200
        for key, title in ROOTS:
            icon = {"storage": "phone", "downloads": "download", "recent": "clock"}.get(key, "folder")
            kids.append(
                Node("android.widget.LinearLayout", (0, y, 840, y + 150), package=PKG,
                     on_tap=lambda k=key: self.finish(dev, k), role="row", label=title, clickable=True,
                     children=[
                         Node("android.widget.ImageView", (50, y + 35, 130, y + 115), rid=rid("icon"),
                              package=PKG, role="icon", style=icon),
                         Node("android.widget.TextView", (180, y + 35, 800, y + 115), title, rid="android:id/title",
                              package=PKG, role="text"),
                     ])
            )  # fmt: skip
            y += 150
        ui.nodes[-1].children[0].children[0].children[0].children.append(
            Node("android.widget.ListView", (0, STATUS_H + 200, 840, y), rid=rid("roots_list"), package=PKG,
                 children=kids[1:])
        )  # fmt: skip
        ui.nodes[-1].children[0].children[0].children[0].children.insert(0, kids[0])


def _panel(ui: UI, dialog: Dialog, box: tuple[int, int, int, int]) -> None:
    """A window at ``box`` (a popup or a drawer): a touch outside closes it."""

    def outside() -> str:
        dialog.finish(ui.dev, None)
        return "Tap outside to close it"

    ui.outside = outside
    inner = Node("android.widget.FrameLayout", box, rid="android:id/content", package=PKG)
    body = Node("android.widget.LinearLayout", box, package=PKG, children=[inner])
    ui.add(Node("android.widget.FrameLayout", box, role="panel", style="opaque", package=PKG, children=[body]))
    # the chain panel -> body -> content -> holder, where the items go
    inner.children.append(Node("android.widget.LinearLayout", box, package=PKG))


class FilesApp(App):
    name = "files"
    label = LABEL
    package = PKG
    activity = "com.android.documentsui.files.FilesActivity"
    aliases = ("files", "file manager")
    color = (26, 115, 232)
    icon = "files"
    layout = ()

    def root(self, dev: Device) -> Screen:
        return Browser()


__all__ = ["LABEL", "PKG", "Browser", "ConfirmDialog", "FilesApp", "Picker", "Popup", "RootsDrawer"]
