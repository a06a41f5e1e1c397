"""Simple Gallery Pro (com.simplemobiletools.gallery.pro, 6.28.1 / version code 396 as AndroidWorld
installs it): the phone's pictures and videos, by folder.

Data: the phone's media store (:func:`~gui_gym.android.sim.media.media`: the files under
``/sdcard/DCIM``, ``Pictures``, ``Movies`` and ``Download``, what ``adb push`` writes there
included). The app keeps only its favorites (:class:`GalleryData`, the ``favorites`` table of its
``gallery.db``: full paths).

Screens, as the real app lays them out with its default settings (SimpleMobileTools/Simple-Gallery
at 6.28.1: ``activity_main.xml``, ``directory_item_grid_square.xml``, ``activity_media.xml``,
``photo_item_grid.xml`` / ``video_item_grid.xml``, ``activity_medium.xml``, ``pager_photo_item.xml``,
``bottom_actions.xml``; strings of the app and of Simple-Commons):

- the folder grid (:class:`FolderGrid`, ``MainActivity``): the search bar ("Search folders",
  filtering the folders by name), then every folder holding pictures or videos directly, two a
  row, newest first (by the newest file's time): a square thumbnail of the folder's newest file,
  the folder's name (``dir_name``) and its number of files (``photo_cnt``). Tap one to open it.
- a folder's media grid (:class:`MediaGrid`, ``MediaActivity``): the search bar ("Search in
  DCIM", its icon a Back arrow), then the folder's files as square thumbnails, three a row,
  newest first; file names are not shown (the app's "Show file names" setting is off by default),
  a video has a play mark and its length. Tap one to view it.
- the viewer (:class:`Viewer`, ``ViewPagerActivity``): the file's picture, whole, on black (a
  video's first frame); the top bar with Navigate up, the file's name and Properties; the bottom
  actions Toggle favorite and Delete (the real default bar also has Edit and Share, which open
  other apps: not here). Swipe left for the next file of the folder, right for the one before;
  Back returns to the grid. Delete asks to move the file to the Recycle Bin and removes it.
  "More options" (the toolbar's overflow) holds "Copy to" and "Move to": they open the destination
  picker (:class:`PickDirectoryDialog`, "Select destination": the folders holding media, as the
  folder grid shows them, with Other folder / Cancel / OK). A folder there is the destination (the
  file's own folder is refused: "Source and destination cannot be the same"); OK only closes it;
  "Other folder" opens Simple-Commons' folder picker (:class:`FilePickerDialog`, "Select a folder":
  the breadcrumbs "Internal" > … of the folder shown, starting at the last copy destination or the
  file's folder, and its subfolders with their item counts; a tap enters a folder, a breadcrumb goes
  back up, OK picks the folder shown). The file is then copied (same bytes, same time: the app keeps
  the last-modified date) or moved there; a name already taken there gets "(1)" before its extension.

What a picture shows is only in the screenshot: its image view has no text, as on a phone.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from gui_gym.android.sim.apps.base import App
from gui_gym.android.sim.apps.gallery.common import (
    BOTTOM_H,
    COPY_TO,
    DIR_CELL,
    DIR_COLUMNS,
    INTERNAL,
    LABEL,
    MEDIA_CELL,
    MEDIA_COLUMNS,
    MOVE_TO,
    NO_MEDIA,
    OTHER_FOLDER,
    PKG,
    RECYCLE_BIN,
    SAME_FOLDER,
    SEARCH_FOLDERS,
    SELECT_DESTINATION,
    SELECT_FOLDER,
    SHOWN_KINDS,
    STANDARD_DIRS,
    STORAGE,
    GalleryData,
    children_count,
    copy_into,
    db,
    duration_text,
    folder_files,
    folder_name,
    folders,
    inset,
    is_folder,
    picture,
    rid,
    size_text,
    subfolders,
)
from gui_gym.android.sim.apps.gallery.pickers import FilePickerDialog, PickDirectoryDialog
from gui_gym.android.sim.dialogs import Dialog, MenuDialog
from gui_gym.android.sim.media import MediaFile, media
from gui_gym.android.sim.widgets import TOOLBAR_H, UI, Inapplicable, Screen
from gui_gym.android.ui import SCREEN_W, Node

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

# ----------------------------------------------------------------------------- layout pieces


@contextmanager
def root(ui: UI, cls: str, view_id: str) -> Iterator[Node]:
    """The activity's root layout, spanning the content area, around what is added inside."""
    node = Node(cls, (0, ui.top, SCREEN_W, ui.content_bottom), rid=rid(view_id), package=PKG)
    saved, ui.nodes = ui.nodes, node.children
    try:
        yield node
    finally:
        ui.nodes = saved
        ui.add(node)


def search_menu(
    ui: UI, host: Screen, hint: str, back: Callable[[], Any] | None = None, actions: Sequence[Node] = ()
) -> None:
    """Simple-Commons' ``MySearchMenu`` (``menu_search.xml``): the search icon (a Back arrow where
    the screen returns somewhere), the search field, the menu's icons at the end."""
    y = ui.y
    box = (0, y, SCREEN_W, y + TOOLBAR_H)
    holder = Node("android.widget.RelativeLayout", (42, y + 16, SCREEN_W - 42, y + TOOLBAR_H - 16), package=PKG)
    holder.rid = rid("top_toolbar_holder")
    bar = Node("android.widget.LinearLayout", box, rid=rid("top_app_bar_layout"), package=PKG, children=[holder])
    l, t, r, b = holder.bounds
    icon = Node(
        "android.widget.ImageView",
        (l, t, l + 110, b),
        desc="Back" if back else "Search",
        rid=rid("top_toolbar_search_icon"),
        package=PKG,
        on_tap=back,
        role="icon",
        style="arrow_left" if back else "search",
    )
    holder.children.append(icon)
    right = r - 12
    menu = []
    for a in reversed(list(actions)):
        a.bounds = (right - 120, t, right, b)
        right -= 130
        menu.insert(0, a)
    saved, ui.nodes = ui.nodes, holder.children
    ui.y, x0, x1 = t, ui.x0, ui.x1
    ui.x0, ui.x1 = l + 120, right
    ui.field(host, "search", hint, rid=rid("top_toolbar_search"), label=hint, h=b - t)
    ui.nodes, ui.x0, ui.x1 = saved, x0, x1
    if menu:
        holder.children.append(
            Node(
                "android.view.ViewGroup",
                (menu[0].bounds[0], t, r, b),
                rid=rid("top_toolbar"),
                package=PKG,
                children=menu,
            )
        )
    ui.add(bar)
    ui.y = y + TOOLBAR_H


def grid(
    ui: UI,
    host: Screen,
    list_id: str,
    items: Sequence[Any],
    columns: int,
    cell: Callable[[UI, Any, tuple[int, int, int, int]], None],
) -> Node:
    """A ``MyRecyclerView`` with a grid layout: ``items`` ``columns`` a row in square cells,
    scrolling vertically (only the cells on screen are in the tree)."""
    size = SCREEN_W // columns
    rows = [list(items[i : i + columns]) for i in range(0, len(items), columns)]

    def render(ui: UI, row: list[Any]) -> None:
        y = ui.y
        for c, item in enumerate(row):
            cell(ui, item, (c * size, y, (c + 1) * size, y + size))

    return ui.scroll_list(host, "grid", rows, render, item_h=size, list_id=list_id)


def _close_search(host: Screen, dev: Device) -> str | None:
    """Back with a search typed: the search closes and its text is cleared, as ``MySearchMenu``
    does; ``None`` when there is none."""
    if host.form.get("search"):
        host.form["search"] = ""
        host.focus = None
        host.scroll["grid"] = 0
        return "Press Back to close the search"
    return None


# ----------------------------------------------------------------------------- screens


class FolderGrid(Screen):
    """``MainActivity``: the folders holding pictures or videos."""

    def build(self, ui: UI, dev: Device) -> None:
        store = media(dev)
        query = self.form.get("search", "").strip().lower()
        shown = [(p, files) for p, files in folders(store) if query in folder_name(p).lower()]
        with root(ui, "android.view.ViewGroup", "directories_coordinator"):
            search_menu(ui, self, SEARCH_FOLDERS)
            if not shown:
                ui.text(NO_MEDIA, h=160, rid=rid("directories_empty_placeholder"), size=40)
                return

            def cell(ui: UI, item: tuple[str, list[MediaFile]], box: tuple[int, int, int, int]) -> None:
                path, files = item
                name = folder_name(path)
                l, _, r, b = box
                texts = [
                    Node("android.widget.TextView", (l + 21, b - 150, r - 21, b - 85), name, rid=rid("dir_name")),
                    Node(
                        "android.widget.TextView",
                        (l + 21, b - 85, r - 21, b - 21),
                        str(len(files)),
                        rid=rid("photo_cnt"),
                    ),
                ]
                for n in texts:
                    n.package, n.role, n.style = PKG, "text", 40
                caption = Node(
                    "android.widget.LinearLayout",
                    (l, b - 160, r, b),
                    rid=rid("dir_bottom_holder"),
                    package=PKG,
                    children=texts,
                    role="toolbar",  # drawn as a band under the texts, as the app's shadow gradient
                )
                ui.add(
                    Node(
                        "android.widget.RelativeLayout",
                        box,
                        rid=rid("dir_holder"),
                        package=PKG,
                        on_tap=lambda: self._open(dev, path),
                        focusable=True,
                        label=name,
                        role="row",
                        children=[
                            picture("android.widget.ImageView", inset(box), files[0], "crop", "dir_thumbnail"),
                            caption,
                        ],
                    )
                )

            grid(ui, self, "directories_grid", shown, DIR_COLUMNS, cell)

    def _open(self, dev: Device, path: str) -> str:
        dev.state.keyboard = False
        self.focus = None
        dev.push(MediaGrid(path))
        return f'Open the folder "{folder_name(path)}" in {LABEL}'

    def on_back(self, dev: Device) -> str | None:
        return _close_search(self, dev)


class MediaGrid(Screen):
    """``MediaActivity``: one folder's pictures and videos."""

    def __init__(self, folder: str) -> None:
        super().__init__()
        self.folder = folder

    def files(self, dev: Device) -> list[MediaFile]:
        """The files shown: the folder's, filtered by the search's text (in their names)."""
        query = self.form.get("search", "").strip().lower()
        return [f for f in folder_files(media(dev), self.folder) if query in f.name.lower()]

    def build(self, ui: UI, dev: Device) -> None:
        files = self.files(dev)
        hint = f"Search in {folder_name(self.folder)}"  # search_in_placeholder
        with root(ui, "android.view.ViewGroup", "media_coordinator"):
            search_menu(ui, self, hint, back=lambda: self._leave(dev))
            if not files:
                ui.text(NO_MEDIA, h=160, rid=rid("media_empty_text_placeholder"), size=40)
                return

            def cell(ui: UI, f: MediaFile, box: tuple[int, int, int, int]) -> None:
                l, _, r, b = box
                kids = [picture("android.widget.ImageView", inset(box), f, "crop", "medium_thumbnail")]
                if f.kind == "video":
                    kids.append(
                        Node(
                            "android.widget.ImageView",
                            (r - 90, b - 90, r - 16, b - 16),
                            rid=rid("play_portrait_outline"),
                            package=PKG,
                            role="icon",
                            style="play",
                        )
                    )
                    kids.append(
                        Node(
                            "android.widget.TextView",
                            (l + 16, b - 80, r - 100, b - 16),
                            duration_text(f.duration()),
                            rid=rid("video_duration"),
                            package=PKG,
                            role="text",
                            style=36,
                        )
                    )
                ui.add(
                    Node(
                        "android.widget.RelativeLayout",
                        box,
                        rid=rid("media_item_holder"),
                        package=PKG,
                        on_tap=lambda: self._view(dev, f.path),
                        focusable=True,
                        label=f.name,
                        role="row",
                        children=kids,
                    )
                )

            grid(ui, self, "media_grid", files, MEDIA_COLUMNS, cell)

    def _view(self, dev: Device, path: str) -> str:
        dev.state.keyboard = False
        self.focus = None
        dev.push(Viewer(self.folder, path))
        return f'Open "{posixpath.basename(path)}" in {LABEL}'

    def _leave(self, dev: Device) -> str:
        dev.state.keyboard = False
        dev.pop()
        return f'Tap "Back" to return to the folders in {LABEL}'

    def on_back(self, dev: Device) -> str | None:
        return _close_search(self, dev)


class ConfirmDialog(Dialog):
    """Simple-Commons' ``ConfirmationDialog``: a message, No and Yes."""

    def __init__(self, handler: str, message: str) -> None:
        super().__init__(handler, "")
        self.message = message

    def build(self, ui: UI, dev: Device) -> None:
        panel = ui.dialog_panel(self, height=170 + 150 + 60)
        ui.spacer(30)
        ui.text(self.message, h=170, rid=rid("message"), size=40)
        ui.dialog_buttons(self, [("No", None), ("Yes", "yes")])
        ui.end_panel(panel)


class PropertiesDialog(Dialog):
    """Simple-Commons' ``PropertiesDialog`` for one file: Name, Path (its folder), Size,
    Resolution, Last modified; OK."""

    def __init__(self, path: str) -> None:
        super().__init__("", "Properties")
        self.path = path

    def rows(self, dev: Device) -> list[tuple[str, str]]:
        f = media(dev).files.get(self.path)
        if f is None:
            return []
        rows = [("Name", f.name), ("Path", posixpath.join(STORAGE, f.folder)), ("Size", size_text(len(f.data())))]
        pic = f.picture()
        if pic is not None:
            mpx = round(pic.width * pic.height / 1_000_000 * 10) / 10
            rows.append(("Resolution", f"{pic.width} x {pic.height} ({mpx}MP)"))
        if f.kind == "video":
            rows.append(("Duration", duration_text(f.duration())))
        rows.append(("Last modified", f.mtime.strftime("%d.%m.%Y, %H:%M")))
        return rows

    def build(self, ui: UI, dev: Device) -> None:
        rows = self.rows(dev)
        panel = ui.dialog_panel(self, height=130 + 190 * len(rows) + 160)
        ui.dialog_title(self.title)
        with (
            ui.group("android.widget.ScrollView", rid=rid("properties_scrollview")),
            ui.group(rid=rid("properties_holder")),
        ):
            for label, value in rows:
                with ui.group(rid=rid("property_holder")):
                    ui.text(label, h=80, rid=rid("property_label"), size=36)
                    ui.text(value, h=100, rid=rid("property_value"), size=40)
                ui.spacer(10)
        ui.dialog_buttons(self, [("OK", "ok")])
        ui.end_panel(panel)


class Viewer(Screen):
    """``ViewPagerActivity``: one file of a folder, full screen; the folder's other files a swipe
    away."""

    def __init__(self, folder: str, path: str) -> None:
        super().__init__()
        self.folder = folder
        self.path = path
        self.index = 0  # where the file was in the folder (the neighbour takes its place if it goes)
        self.pending = "copy"  # what "More options" asked for: "copy" or "move"

    def files(self, dev: Device) -> list[MediaFile]:
        return folder_files(media(dev), self.folder)

    def current(self, dev: Device) -> MediaFile | None:
        """The file shown (the one at its place, if it has gone)."""
        files = self.files(dev)
        paths = [f.path for f in files]
        if self.path in paths:
            self.index = paths.index(self.path)
        elif files:
            self.index = min(self.index, len(files) - 1)
            self.path = files[self.index].path
        else:
            return None
        return files[self.index]

    def build(self, ui: UI, dev: Device) -> None:
        f = self.current(dev)
        top, bottom = ui.top, ui.content_bottom
        with root(ui, "android.widget.RelativeLayout", "fragment_holder"):
            view = (0, top + TOOLBAR_H, SCREEN_W, bottom - BOTTOM_H)  # the picture between the bars
            holder = Node(
                "android.widget.RelativeLayout",
                (0, top, SCREEN_W, bottom),
                rid=rid("photo_holder"),
                package=PKG,
                children=[picture("android.widget.ImageView", view, f, "fit", "gestures_view")],
            )
            ui.add(
                Node(
                    "androidx.viewpager.widget.ViewPager",
                    (0, top, SCREEN_W, bottom),
                    rid=rid("view_pager"),
                    package=PKG,
                    on_scroll=lambda direction, frac: self._swipe(dev, direction),
                    label="pictures",
                    children=[holder],
                )
            )
            if f is None:
                return
            favorite = f.path in db(dev).favorites
            actions = [
                ("Toggle favorite", "bottom_favorite", "star_on" if favorite else "star", lambda: self._favorite(dev)),
                ("Delete", "bottom_delete", "delete", lambda: self._delete(dev)),
            ]
            step = SCREEN_W // len(actions)
            icons = [
                Node(
                    "android.widget.ImageView",
                    (i * step + step // 2 - 70, bottom - BOTTOM_H + 21, i * step + step // 2 + 70, bottom - 7),
                    desc=desc,
                    rid=rid(view_id),
                    package=PKG,
                    on_tap=cb,
                    focusable=True,
                    role="icon",
                    style=icon,
                )
                for i, (desc, view_id, icon, cb) in enumerate(actions)
            ]
            ui.add(
                Node(
                    "android.view.ViewGroup",
                    (0, bottom - BOTTOM_H, SCREEN_W, bottom),
                    rid=rid("bottom_actions_wrapper"),
                    package=PKG,
                    children=icons,
                    role="toolbar",
                )
            )
            bar_box = (0, top, SCREEN_W, top + TOOLBAR_H)
            up = Node(
                "android.widget.ImageButton",
                (24, top + 17, 144, top + 137),
                desc="Navigate up",
                package=PKG,
                on_tap=lambda: self._up(dev),
                role="icon",
                style="arrow_left",
            )
            properties = Node(
                "android.widget.Button",
                (SCREEN_W - 144, top + 17, SCREEN_W - 24, top + 137),
                desc="Properties",
                rid=rid("menu_properties"),
                package=PKG,
                on_tap=lambda: self._properties(dev),
                role="icon",
                style="info",
            )
            properties.bounds = (SCREEN_W - 274, top + 17, SCREEN_W - 154, top + 137)
            more = Node(
                "android.widget.ImageView",
                (SCREEN_W - 144, top + 17, SCREEN_W - 24, top + 137),
                desc="More options",
                package=PKG,
                on_tap=lambda: self._more(dev),
                role="icon",
                style="more",
            )
            title = Node(
                "android.widget.TextView", (164, top + 17, SCREEN_W - 294, top + 137), f.name, package=PKG, role="title"
            )
            menu = Node(
                "android.widget.LinearLayout",
                (properties.bounds[0], top + 17, SCREEN_W - 24, top + 137),
                package=PKG,
                children=[properties, more],
            )
            bar = Node(
                "android.view.ViewGroup",
                bar_box,
                rid=rid("medium_viewer_toolbar"),
                package=PKG,
                children=[up, title, menu],
                role="toolbar",
            )
            ui.add(
                Node(
                    "android.widget.LinearLayout", bar_box, rid=rid("medium_viewer_appbar"), package=PKG, children=[bar]
                )
            )

    # -- acting ------------------------------------------------------------------------
    def _swipe(self, dev: Device, direction: str) -> str:
        """A swipe: content to the right (a finger to the left) shows the next file."""
        if direction not in ("left", "right"):
            raise Inapplicable("the viewer pages sideways: swipe left or right for another file")
        files = self.files(dev)
        if self.current(dev) is None:
            raise Inapplicable("no file to show")
        new = self.index + (1 if direction == "right" else -1)
        if not 0 <= new < len(files):
            which = "last" if direction == "right" else "first"
            return f"Swipe in {LABEL}: already at the {which} file of the folder"
        self.index, self.path = new, files[new].path
        which = "next" if direction == "right" else "previous"
        return f'Swipe to the {which} file, "{files[new].name}" ({new + 1} of {len(files)}), in {LABEL}'

    def _up(self, dev: Device) -> str:
        dev.pop()
        return f'Tap the "Navigate up" button to return to the folder in {LABEL}'

    def _favorite(self, dev: Device) -> str:
        favorites = db(dev).favorites
        name = posixpath.basename(self.path)
        if self.path in favorites:
            favorites.remove(self.path)
            return f'Remove "{name}" from the favorites in {LABEL}'
        favorites.append(self.path)
        return f'Add "{name}" to the favorites in {LABEL}'

    def _delete(self, dev: Device) -> str:
        dev.open_dialog(ConfirmDialog("on_delete", RECYCLE_BIN))
        return f'Tap "Delete" for "{posixpath.basename(self.path)}" in {LABEL}'

    def on_delete(self, dev: Device, value: str) -> str:
        """Yes: the file leaves its folder (into the app's Recycle Bin); the next one shows, or the
        grid when it was the folder's last."""
        name = posixpath.basename(self.path)
        media(dev).remove(self.path)
        favorites = db(dev).favorites
        if self.path in favorites:
            favorites.remove(self.path)
        if self.current(dev) is None:
            dev.pop()
        return f'Move "{name}" to the Recycle Bin in {LABEL}'

    def _more(self, dev: Device) -> str:
        dev.open_dialog(MenuDialog("on_more", [(COPY_TO, "copy"), (MOVE_TO, "move")]))
        return f'Tap "More options" in {LABEL}'

    def on_more(self, dev: Device, value: str) -> str:
        self.pending = value
        dev.open_dialog(PickDirectoryDialog("on_destination", self.folder))
        return f'Tap "{COPY_TO if value == "copy" else MOVE_TO}" for "{posixpath.basename(self.path)}" in {LABEL}'

    def on_destination(self, dev: Device, folder: str) -> str:
        """Copy (or move) the file shown into ``folder`` (``copyMoveFilesTo``)."""
        store = media(dev)
        f = store.files.get(self.path)
        if f is None:
            raise Inapplicable("the file is gone")
        if folder == self.folder:
            dev.toast(SAME_FOLDER)
            return f'Pick "{folder_name(folder)}": {SAME_FOLDER.lower()}'
        copy = copy_into(store, f, folder)
        if self.pending == "move":
            store.remove(f.path)
            favorites = db(dev).favorites
            if f.path in favorites:
                favorites[favorites.index(f.path)] = copy.path
            if self.current(dev) is None:
                dev.pop()
            return f'Move "{f.name}" to "{folder_name(folder)}" in {LABEL}'
        return f'Copy "{f.name}" to "{folder_name(folder)}" as "{copy.name}" in {LABEL}'

    def _properties(self, dev: Device) -> str:
        dev.open_dialog(PropertiesDialog(self.path))
        return f'Tap "Properties" for "{posixpath.basename(self.path)}" in {LABEL}'


class GalleryApp(App):
    name = "gallery"
    label = LABEL
    launcher_label = "Gallery"  # app_launcher_name
    package = PKG
    activity = f"{PKG}.activities.MainActivity"
    aliases = ("simple gallery pro", "simple gallery")
    color = (255, 152, 0)
    icon = "gallery"
    layout = ()

    def initial_data(self) -> GalleryData:
        return GalleryData()

    def root(self, dev: Device) -> Screen:
        return FolderGrid()


__all__ = [  # (and the names of .common and .pickers that others import from here)
    "COPY_TO",
    "DIR_CELL",
    "INTERNAL",
    "LABEL",
    "MEDIA_CELL",
    "OTHER_FOLDER",
    "PKG",
    "SELECT_DESTINATION",
    "SELECT_FOLDER",
    "SHOWN_KINDS",
    "STANDARD_DIRS",
    "FilePickerDialog",
    "FolderGrid",
    "GalleryApp",
    "GalleryData",
    "MediaGrid",
    "PickDirectoryDialog",
    "PropertiesDialog",
    "Viewer",
    "children_count",
    "folder_files",
    "folder_name",
    "folders",
    "is_folder",
    "size_text",
    "subfolders",
]
