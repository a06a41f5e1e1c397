"""What Simple Gallery Pro's screens and dialogs share: its names (package, strings, sizes), its
own data (:class:`GalleryData`) and the media store as it shows it (folders, their files, a copy
into a folder), with the pieces of a picture's view.

:mod:`~gui_gym.android.sim.apps.gallery.app` (the screens) and
:mod:`~gui_gym.android.sim.apps.gallery.pickers` (the copy/move folder pickers) import it; ``app``
names all of it again.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gui_gym.android.sim.media import FOLDERS, MediaFile, MediaStore
from gui_gym.android.ui import SCREEN_W, Node

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

PKG = "com.simplemobiletools.gallery.pro"
LABEL = "Simple Gallery Pro"
#: the shared storage's path on the phone (what Properties shows as a file's path)
STORAGE = "/storage/emulated/0"
DIR_COLUMNS = 2  # integers.xml: directory_columns_vertical_scroll
MEDIA_COLUMNS = 3  # media_columns_vertical_scroll
DIR_CELL = SCREEN_W // DIR_COLUMNS
MEDIA_CELL = SCREEN_W // MEDIA_COLUMNS
BOTTOM_H = 168  # bottom_actions_height (64dp) at 2.625 px/dp
NO_MEDIA = "No media files have been found with the selected filters."  # no_media_with_filters
SEARCH_FOLDERS = "Search folders"
RECYCLE_BIN = "Are you sure you want to move this item into the Recycle Bin?"  # are_you_sure_recycle_bin
SHOWN_KINDS = ("image", "video")
COPY_TO, MOVE_TO = "Copy to", "Move to"  # copy_to, move_to (menu_viewpager.xml's overflow items)
SELECT_DESTINATION = "Select destination"  # select_destination: PickDirectoryDialog's title
SELECT_FOLDER = "Select a folder"  # select_folder: FilePickerDialog's title (picking a folder)
OTHER_FOLDER = "Other folder"  # other_folder: PickDirectoryDialog's neutral button
SAME_FOLDER = "Source and destination cannot be the same"  # source_and_destination_same
INTERNAL = "Internal"  # internal: the breadcrumb of the internal storage
#: the folders of a new phone's shared storage besides the media store's (what a file picker lists)
STANDARD_DIRS = ("Alarms", "Audiobooks", "Documents", "Music", "Notifications", "Podcasts", "Recordings", "Ringtones")


def rid(name: str) -> str:
    return f"{PKG}:id/{name}"


@dataclass
class GalleryData:
    """What the app keeps of its own: the favorites (paths below ``/sdcard``), as its
    ``favorites`` table lists them."""

    favorites: list[str] = field(default_factory=list)
    #: the last copy or move destination (the app's ``last_copy_path`` preference; "": none yet)
    last_copy_path: str = ""


def db(dev: Device) -> GalleryData:
    """The app's own data on ``dev``."""
    return dev.data("gallery")


# ----------------------------------------------------------------------------- the media store


def folder_files(store: MediaStore, folder: str) -> list[MediaFile]:
    """The pictures and videos directly in ``folder``, newest first (the app's default order:
    date modified, descending), then by name."""
    return [f for f in store.folder(folder) if f.kind in SHOWN_KINDS]


def folders(store: MediaStore) -> list[tuple[str, list[MediaFile]]]:
    """Every folder holding pictures or videos directly, with its files: newest first (the
    directories' default order, by their newest file), then by path."""
    paths = sorted({f.folder for f in store.files.values() if f.kind in SHOWN_KINDS})
    out = [(p, folder_files(store, p)) for p in paths]
    return sorted(out, key=lambda kv: -kv[1][0].mtime.timestamp())


def subfolders(store: MediaStore, folder: str) -> list[str]:
    """The names of the folders directly in ``folder`` ("" the storage's root), as a file picker
    lists them (a new phone's standard folders at the root too), by name."""
    names = {posixpath.basename(d) for d in store.dirs if posixpath.dirname(d) == folder}
    if folder == "":
        names |= set(STANDARD_DIRS) | {f.split("/")[0] for f in FOLDERS}
    return sorted(names, key=str.lower)


def children_count(store: MediaStore, folder: str) -> int:
    """What a folder holds directly, files and folders (``getDirectChildrenCount``)."""
    return len(subfolders(store, folder)) + sum(1 for f in store.files.values() if f.folder == folder)


def is_folder(store: MediaStore, folder: str) -> bool:
    return folder == "" or folder in store.dirs or folder in STANDARD_DIRS


def copy_into(store: MediaStore, f: MediaFile, folder: str) -> MediaFile:
    """A copy of ``f`` in ``folder``: the same bytes (a picture the phone drew keeps what it shows
    and the bytes it was encoded to) and the same last-modified time; a name taken there gets
    "(1)", "(2)" … before its extension."""
    stem, ext = posixpath.splitext(f.name)
    path, n = posixpath.join(folder, f.name), 0
    while path in store.files or path in store.dirs:
        n += 1
        path = posixpath.join(folder, f"{stem}({n}){ext}")
    encoded = f.data() if f.raw is None else None
    return store.add(MediaFile(path, f.mtime, raw=f.raw, lines=f.lines, frames=f.frames, size=f.size, encoded=encoded))


def folder_name(folder: str) -> str:
    """How the app names a folder: its last part ("Internal" for the storage's root)."""
    return posixpath.basename(folder) or "Internal"


def picture(cls: str, box: tuple[int, int, int, int], f: MediaFile | None, mode: str, view_id: str) -> Node:
    """An image view showing ``f``'s picture (``mode`` "crop": a thumbnail, "fit": whole). It
    has no text or description: what it shows is in the pixels only."""
    return Node(
        cls,
        box,
        rid=rid(view_id),
        package=PKG,
        picture=f.picture if f is not None else None,
        role="picture",
        style=(mode, *(f.key() if f is not None else ())),
    )


def inset(box: tuple[int, int, int, int], px: int = 3) -> tuple[int, int, int, int]:
    """A thumbnail's box inside its cell (the grid's thumbnail spacing, 1dp)."""
    l, t, r, b = box
    return (l + px, t + px, r - px, b - px)


def duration_text(seconds: int) -> str:
    """A video's length as the grid shows it (``getFormattedDuration``): ``00:16``, ``1:02:03``."""
    h, rest = divmod(max(0, seconds), 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


def size_text(n: int) -> str:
    """Simple-Commons' ``formatSize``: 1024-based units, up to one decimal (``23.4 kB``)."""
    if n <= 0:
        return "0 B"
    units = ("B", "kB", "MB", "GB", "TB")
    group = 0
    while group + 1 < len(units) and n >= 1024 ** (group + 1):
        group += 1
    value = round(n / 1024**group, 1)
    return f"{value:,.1f}".rstrip("0").rstrip(".") + f" {units[group]}"
