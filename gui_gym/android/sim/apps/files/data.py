"""The phone's shared storage (``/storage/emulated/0``, the "sdk_gphone_x86_64" storage area) as
the Files app browses it.

There is no store of the Files app's own: a folder's items are

- the phone's media store (:func:`~gui_gym.android.sim.media.media`): every file kept under
  ``/sdcard`` by path (``"Music/song.mp3"``, ``"DCIM/photo.jpg"``) and its folders;
- Markor's notebook (``Documents/Markor``: the notes Markor's data holds, as files);
- the folders every emulator's storage has (:data:`STANDARD_FOLDERS`), empty or not.

Deleting, moving and copying change the store the files came from, so Gallery, VLC and Markor see
the change, and so does the phone served over adb where it mounts them (see the module's report:
the media folders ``DCIM``, ``Pictures``, ``Movies`` and ``Download`` are the store there; the
other shared folders are not yet mounted).

Example:
    >>> from gui_gym.android.sim.device import Device
    >>> import datetime as dt
    >>> dev = Device()
    >>> _ = write(dev, "Music/a.mp3", b"x\\n", dt.datetime(2023, 10, 15))
    >>> [i.name for i in listing(dev, "Music")], exists(dev, "Music/a.mp3")
    (['a.mp3'], True)
    >>> move(dev, "Music/a.mp3", "Alarms"), exists(dev, "Music/a.mp3")
    ('Alarms/a.mp3', False)
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import posixpath
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gui_gym.android.sim.media import media

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

#: the storage's name as the Files app shows it (the emulator's device name)
STORAGE_NAME = "sdk_gphone_x86_64"
#: the folders an emulator's shared storage holds from the start
STANDARD_FOLDERS = (
    "Alarms",
    "Android",
    "Audiobooks",
    "DCIM",
    "Documents",
    "Download",
    "Movies",
    "Music",
    "Notifications",
    "Pictures",
    "Podcasts",
    "Recordings",
    "Ringtones",
)
#: Markor's notebook, below the storage
MARKOR = "Documents/Markor"
AUDIO_EXT = (".mp3", ".m4a", ".ogg", ".wav", ".aac", ".flac", ".amr", ".opus")
DOCUMENT_EXT = (".pdf", ".txt", ".md", ".doc", ".docx", ".odt", ".xls", ".xlsx", ".ppt", ".pptx", ".csv")


@dataclass(frozen=True)
class Item:
    """A file or folder of shared storage: its path below the storage's root."""

    path: str
    is_dir: bool
    size: int
    mtime: dt.datetime

    @property
    def name(self) -> str:
        return posixpath.basename(self.path)

    @property
    def folder(self) -> str:
        return posixpath.dirname(self.path)


def _markor(dev: Device):
    return dev.state.data.get("markor")


def folders(dev: Device) -> set[str]:
    """Every folder of the storage (paths below its root)."""
    out = set(STANDARD_FOLDERS) | set(media(dev).dirs)
    notebook = _markor(dev)
    if notebook is not None:
        out.add(MARKOR)
        out |= {f"{MARKOR}/{e.path}" for e in notebook.entries.values() if e.is_dir}
    for d in list(out):  # every folder's parents are folders too
        out.update(_parents(d))
    return out


@functools.lru_cache(maxsize=16_384)
def _parents(path: str) -> tuple[str, ...]:
    """The folders above ``path`` (below the storage's root), kept per path: the app lists the
    storage on every build."""
    out = []
    while "/" in path:
        path = posixpath.dirname(path)
        out.append(path)
    return tuple(out)


@functools.lru_cache(maxsize=16_384)
def _parent(path: str) -> str:
    return posixpath.dirname(path)


def files(dev: Device) -> list[Item]:
    """Every regular file of the storage."""
    out = [Item(f.path, False, len(f.data()), f.mtime) for f in media(dev).files.values()]
    notebook = _markor(dev)
    if notebook is not None:
        out += [
            Item(f"{MARKOR}/{e.path}", False, len(e.content.encode("utf-8")), e.mtime)
            for e in notebook.entries.values()
            if not e.is_dir
        ]
    return out


def listing(dev: Device, folder: str) -> list[Item]:
    """What ``folder`` holds: its folders first, then its files, each by name (the Files app's
    default order, names compared without case)."""
    now = dev.state.now
    dirs = [Item(d, True, 0, now) for d in folders(dev) if _parent(d) == folder and d != folder]
    kept = [f for f in files(dev) if f.folder == folder]
    return sorted(dirs, key=lambda i: i.name.lower()) + sorted(kept, key=lambda i: i.name.lower())


def exists(dev: Device, path: str) -> bool:
    """A file or folder at ``path`` (AndroidWorld's ``check_file_or_folder_exists``)."""
    return path in folders(dev) or any(f.path == path for f in files(dev))


def is_dir(dev: Device, path: str) -> bool:
    return path == "" or path in folders(dev)


def read(dev: Device, path: str) -> bytes | None:
    """A file's bytes (``None``: no file there)."""
    if path.startswith(MARKOR + "/"):
        notebook = _markor(dev)
        e = None if notebook is None else notebook.get(path[len(MARKOR) + 1 :])
        return None if e is None or e.is_dir else e.content.encode("utf-8")
    f = media(dev).files.get(path)
    return None if f is None else f.data()


def write(dev: Device, path: str, raw: bytes, mtime: dt.datetime) -> str:
    """Store ``raw`` as the file ``path`` (its folders made as ``mkdir -p`` makes them)."""
    if path.startswith(MARKOR + "/") and _markor(dev) is not None:
        _markor(dev).add(path[len(MARKOR) + 1 :], content=raw.decode("utf-8", errors="replace"), mtime=mtime)
    else:
        media(dev).add_file(path, raw, mtime)
    dev.invalidate()
    return path


def mkdir(dev: Device, folder: str) -> None:
    """``mkdir -p folder``."""
    if folder.startswith(MARKOR + "/") and _markor(dev) is not None:
        _markor(dev).mkdir(folder[len(MARKOR) + 1 :], dev.state.now)
        return
    store = media(dev)
    while folder and folder not in store.dirs:
        store.dirs.add(folder)
        folder = posixpath.dirname(folder)


def delete(dev: Device, path: str) -> None:
    """Delete a file, or a folder with everything in it."""
    notebook = _markor(dev)
    if path == MARKOR or path.startswith(MARKOR + "/"):
        if notebook is not None and path != MARKOR:
            notebook.delete(path[len(MARKOR) + 1 :])
        elif notebook is not None:
            notebook.entries.clear()
        dev.invalidate()
        return
    store = media(dev)
    if path in store.files:
        store.remove(path)
    else:
        store.clear(path)
        store.dirs.discard(path)
        if notebook is not None and MARKOR.startswith(path + "/"):
            notebook.entries.clear()
    dev.invalidate()


def free_name(dev: Device, folder: str, name: str) -> str:
    """``name``, or ``name (1).ext``, ``name (2).ext`` … where ``folder`` already holds it."""
    taken = {i.name for i in listing(dev, folder)}
    if name not in taken:
        return name
    stem, ext = posixpath.splitext(name)
    n = 1
    while f"{stem} ({n}){ext}" in taken:
        n += 1
    return f"{stem} ({n}){ext}"


def _target(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


def copy(dev: Device, path: str, folder: str) -> str:
    """Copy the file ``path`` into ``folder`` (a new file, stamped now); its new path."""
    new = _target(folder, free_name(dev, folder, posixpath.basename(path)))
    f = media(dev).files.get(path)
    if f is not None and not new.startswith(MARKOR + "/"):
        media(dev).add(dataclasses.replace(f, path=new, mtime=dev.state.now))
        dev.invalidate()
        return new
    raw = read(dev, path)
    return write(dev, new, raw or b"", dev.state.now)


def move(dev: Device, path: str, folder: str) -> str:
    """Move the file ``path`` into ``folder``, keeping its time; its new path."""
    new = _target(folder, free_name(dev, folder, posixpath.basename(path)))
    store = media(dev)
    f = store.files.get(path)
    if f is not None and not new.startswith(MARKOR + "/"):
        store.remove(path)
        store.add(dataclasses.replace(f, path=new))
        dev.invalidate()
        return new
    raw, mtime = read(dev, path), next((i.mtime for i in files(dev) if i.path == path), dev.state.now)
    delete(dev, path)
    return write(dev, new, raw or b"", mtime)


def clear_files(dev: Device) -> None:
    """AndroidWorld's ``clear_device_storage``: every regular file of the storage deleted
    (``find /storage/emulated/0/ -mindepth 1 -type f -delete``), the folders kept."""
    store = media(dev)
    store.files.clear()
    notebook = _markor(dev)
    if notebook is not None:
        for e in [e for e in notebook.entries.values() if not e.is_dir]:
            del notebook.entries[e.path]
    dev.invalidate()


def kind(name: str) -> str:
    """``image``, ``video``, ``audio``, ``document`` or ``other``, by the name's extension."""
    from gui_gym.android.sim.media import IMAGE_EXTENSIONS, VIDEO_EXTENSIONS

    ext = posixpath.splitext(name)[1].lower()
    if ext in IMAGE_EXTENSIONS:
        return "image"
    if ext in VIDEO_EXTENSIONS:
        return "video"
    if ext in AUDIO_EXT:
        return "audio"
    return "document" if ext in DOCUMENT_EXT else "other"


def size_text(n: int) -> str:
    """A size as Android's ``Formatter.formatFileSize`` writes it (1000-based: ``21 B``, ``1.2 kB``)."""
    if n < 1000:
        return f"{n} B"
    value, units = float(n), ["kB", "MB", "GB"]
    unit = units.pop(0)
    value /= 1000
    while value >= 1000 and units:
        value, unit = value / 1000, units.pop(0)
    return (f"{value:.2f}".rstrip("0").rstrip(".") if value < 10 else f"{value:.0f}") + f" {unit}"
