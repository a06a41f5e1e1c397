"""VLC for Android (org.videolan.vlc, 3.5.4 as AndroidWorld installs it: build 13050408): the
phone's videos, a file browser and a video player.

Database: :class:`~gui_gym.android.sim.apps.vlc.data.VlcData`, VLC's media library (videos,
groups, playlists), kept up to date with the phone's media store (``sim.media``) whenever VLC
shows it, as the library rescans when the app starts.

Screens, as VLC lays them out (resource ids and texts from the app's layouts and strings):

- the main screen (:class:`VlcMain`): a toolbar with the section's title and a bottom navigation
  bar (Video / Audio / Browse / Playlists / More; ids ``nav_video`` …). *Video* shows the
  library's videos grouped by name as VLC does by default (titles sharing their first six
  characters form a group named by the prefix they share, "N videos"; a group of one is the
  video itself) in a grid of cards: the thumbnail (the frame at 40 % of the video), the title
  (``ml_item_title``: the file name without its extension, as the library cleans it) and the
  length (``ml_item_time``, ``0:32``). A group card opens the group's videos. *Browse* lists
  Favorites (none), Storages ("Internal memory") and Local Network (no connection).
  *Audio* and *Playlists* are empty (the phone has no audio and no playlist screens yet).
- the file browser (:class:`VlcBrowser`): one folder of ``/storage/emulated/0`` at a time
  (the toolbar shows "Internal memory" or the folder's name), folders first, then files, by name;
  a folder's line says what it holds (``2 §*§ · 3 *§*``: VLC's markers of its folder and file
  icons, as the text the view holds). A video opens the player.
- the video player (:class:`VlcPlayer`): the current frame fitted on black (an image view with no
  text: what it shows is in the screenshot only), and the controls (shown for four seconds of
  phone time after each touch, and while paused): the title, the elapsed time and the length
  (``player_overlay_time`` / ``player_overlay_length``; tapping either toggles the remaining
  time ``-0:27``), the seek bar (a tap puts the position where it lands, a swipe drags it) and
  Play/Pause. A tap on the picture shows or hides the controls. Playback follows the phone's
  clock (``dev.state.now``: one second per action, three per Wait): the position is the phone
  time since playback (re)started plus where it started, whatever else is in front meanwhile. At
  the end the player closes and VLC's list is back (VLC's default: no repeat); the player sees
  that it has ended when the screen is next built (the env observes it after every step). Back
  leaves;
  VLC keeps the position to offer "Resume" when the video is opened again (as the library does
  between 5 % and 95 % of the video). A pushed video whose frames the phone cannot decode plays
  black for its length (its ``mvhd`` duration).
"""

from __future__ import annotations

import datetime as dt
import posixpath
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from gui_gym.android.sim.apps.base import App
from gui_gym.android.sim.apps.vlc.data import (
    MediaGroup,
    MediaRow,
    Playlist,
    VlcData,
    library,
    ms_text,
)
from gui_gym.android.sim.apps.vlc.player import HUD_H as HUD_H
from gui_gym.android.sim.apps.vlc.player import HUD_TOP as HUD_TOP
from gui_gym.android.sim.apps.vlc.player import NEVER as NEVER
from gui_gym.android.sim.apps.vlc.player import OVERLAY_SECONDS as OVERLAY_SECONDS
from gui_gym.android.sim.apps.vlc.player import ResumeDialog as ResumeDialog
from gui_gym.android.sim.apps.vlc.player import VlcPlayer, open_video, shown_frames
from gui_gym.android.sim.apps.vlc.player import frame_slots as frame_slots
from gui_gym.android.sim.apps.vlc.player import playing as playing
from gui_gym.android.sim.apps.vlc.storage import DATABASE
from gui_gym.android.sim.apps.vlc.views import PKG
from gui_gym.android.sim.apps.vlc.views import node as _node
from gui_gym.android.sim.apps.vlc.views import picture as _picture
from gui_gym.android.sim.apps.vlc.views import rid as _rid
from gui_gym.android.sim.dialogs import Dialog, MenuDialog
from gui_gym.android.sim.media import FOLDERS, media
from gui_gym.android.sim.widgets import PAD, UI, Inapplicable, Screen
from gui_gym.android.ui import SCREEN_W, Node

if TYPE_CHECKING:
    from PIL import Image

    from gui_gym.android.sim.device import Device
    from gui_gym.android.sim.media import MediaFile

TABS = ("Video", "Audio", "Browse", "Playlists", "More")
_NAV_IDS = {
    "Video": "nav_video",
    "Audio": "nav_audio",
    "Browse": "nav_directories",
    "Playlists": "nav_playlists",
    "More": "nav_more",
}
#: The toolbar's title per section (each fragment's ``getTitle``; videos grouped by name).
_TITLES = {"Video": "Video groups", "Audio": "Audio", "Browse": "Browse", "Playlists": "Playlists", "More": "More"}
INTERNAL_MEMORY = "Internal memory"
#: The folders of a new phone's shared storage (``/storage/emulated/0``) besides the media store's.
STANDARD_DIRS = ("Alarms", "Audiobooks", "Documents", "Music", "Notifications", "Podcasts", "Recordings", "Ringtones")
FOLDER_MARK, FILE_MARK = "§*§", "*§*"  # VLC's folderReplacementMarker / fileReplacementMarker
NOMEDIA = "No media files found, please transfer some files to your device or adjust your preferences."
MORE_ACTIONS = "More Actions"  # more_actions: the item_more button's description
PLAY, ADD_TO_PLAYLIST = "Play", "Add to playlist"  # the context sheet's items (play, add_to_playlist)
ADD_TO_NEW, ADD_TO_EXISTING = "Add to new playlist", "Add to existing playlist"
PLAYLIST_NAME = "Playlist name"  # playlist_name_hint
NO_PLAYLIST = "No playlist found."  # noplaylist
CARD_H = 470
FILE_ROW_H = 190


def _thumbnail(f: MediaFile | None) -> tuple[Callable[[], Image.Image | None], tuple]:
    """A video's thumbnail as the library makes it: the frame at 40 % of its length (none for a
    video the phone cannot decode)."""
    if f is None or not f.frames:
        return (lambda: None), ("none",)
    second = 0.4 * f.duration()
    return (lambda: f.frame_picture(second)), (*f.key(), "thumb")


def file_size(n: int) -> str:
    """Android's ``Formatter.formatFileSize``: 1000-based units, three significant figures or so.

    >>> file_size(532), file_size(12_345), file_size(123_456), file_size(2_500_000)
    ('532 B', '12.35 kB', '123 kB', '2.50 MB')
    """
    value, unit, scaled = float(n), "B", False
    for name in ("kB", "MB", "GB", "TB"):
        if value <= 900:
            break
        value, unit, scaled = value / 1000, name, True
    if not scaled or value >= 100:
        return f"{value:.0f} {unit}"
    return f"{value:.2f} {unit}"


def _count(n: int, one: str, many: str) -> str:
    return one if n == 1 else many % n


# ----------------------------------------------------------------------------- the main screen


class VlcMain(Screen):
    """MainActivity: a section per bottom navigation item."""

    def __init__(self) -> None:
        super().__init__()
        self.tab = "Video"

    def screen_name(self) -> str:
        return f"VLC/{self.tab}"

    def build(self, ui: UI, dev: Device) -> None:
        data = library(dev)
        ui.toolbar(_TITLES[self.tab], up=False)
        self._navigation(ui)
        if self.tab == "Video":
            video_grid(ui, dev, self, data.video_items(), "video_grid")
        elif self.tab == "Browse":
            self._browse(ui)
        elif self.tab == "Playlists":
            self._playlists(ui, dev, data)
        elif self.tab == "Audio":
            _empty(ui, NOMEDIA)
        else:
            self._more(ui)

    def _navigation(self, ui: UI) -> None:
        """The BottomNavigationView (``navigation``): each item described by its title, holding
        its icon and its label."""
        h = 150
        y = ui.bottom - h
        w = SCREEN_W // len(TABS)
        items = []
        for i, name in enumerate(TABS):
            on = name == self.tab
            box = (i * w, y, (i + 1) * w, y + h)
            icon = _node(
                "android.widget.ImageView",
                (box[0] + w // 2 - 36, y + 14, box[0] + w // 2 + 36, y + 86),
                rid=_rid("navigation_bar_item_icon_view"),
            )
            label = _node(
                "android.widget.TextView",
                (box[0], y + 86, box[2], y + h),
                name,
                rid=_rid(f"navigation_bar_item_{'large' if on else 'small'}_label_view"),
                selected=on,
                role="tab",
            )
            items.append(
                _node(
                    "android.widget.FrameLayout",
                    box,
                    desc=name,
                    rid=_rid(_NAV_IDS[name]),
                    selected=on,
                    on_tap=lambda n=name: self._select(n),
                    role="tab",
                    label=name,
                    children=[icon, label],
                )
            )
        ui.add(_node("android.widget.FrameLayout", (0, y, SCREEN_W, y + h), rid=_rid("navigation"), children=items))
        ui.bottom = y

    def _select(self, tab: str) -> str:
        self.tab = tab
        return f'Open the "{tab}" tab in VLC'

    def _browse(self, ui: UI) -> None:
        """MainBrowserFragment: Favorites, Storages and Local Network, each a titled list."""
        ui.y += 20
        _section(ui, "Favorites", "fav_browser_entry")
        _empty_line(ui, "No favorite")
        _section(ui, "Storages", "local_browser_entry")

        def open_storage() -> str:
            ui.dev.push(VlcBrowser(""))
            return f'Open "{INTERNAL_MEMORY}" in VLC'

        folders, files = _folder_content(ui.dev, "")
        _browser_row(
            ui,
            INTERNAL_MEMORY,
            _describe(len(folders), len(files)),
            open_storage,
            "folder",
            desc=_folder_desc(INTERNAL_MEMORY, len(folders), len(files)),
        )
        _section(ui, "Local Network", "network_browser_entry")
        _empty_line(ui, "No connection to local network.")

    def _playlists(self, ui: UI, dev: Device, data: VlcData) -> None:
        """PlaylistFragment: the playlists by name, each with its media count; a tap opens one."""
        items = data.sorted_playlists()
        if not items:
            _empty(ui, NO_PLAYLIST)
            return

        def render(ui: UI, p: Playlist) -> None:
            n = len(data.tracks(p.id_playlist))

            def open_playlist(pid: int = p.id_playlist) -> str:
                dev.push(VlcPlaylist(pid))
                return f'Open the playlist "{p.name}" in VLC'

            _browser_row(
                ui, p.name, _count(n, "1 media", "%d media"), open_playlist, "playlist", desc=f"Playlist: {p.name}"
            )

        ui.scroll_list(self, "playlists", items, render, item_h=FILE_ROW_H, list_id="audio_list")

    def _more(self, ui: UI) -> None:
        """MoreFragment: Settings and About, then History and Streams (both empty here)."""
        ui.y += 20
        for text, rid in (("Settings", "settingsButton"), ("About", "aboutButton")):
            ui.add(_node("android.widget.TextView", ui.rect(130), text, rid=_rid(rid), role="text"))
        _section(ui, "History", "history_entry")
        _empty_line(ui, "No history")
        _section(ui, "Streams", "streams_entry")
        _empty_line(ui, "No stream")


def _empty(ui: UI, text: str) -> None:
    ui.y += 200
    ui.add(_node("android.widget.TextView", ui.rect(220), text, rid=_rid("emptyTextView"), role="text"))


def _section(ui: UI, title: str, rid: str) -> None:
    """A TitleListView's title line."""
    box = ui.rect(110)
    ui.add(_node("android.widget.TextView", box, title, rid=_rid("title"), role="title", style=46))


def _empty_line(ui: UI, text: str) -> None:
    ui.add(_node("android.widget.TextView", ui.rect(100), text, rid=_rid("emptyTextView"), role="subtext"))
    ui.y += 20


def _describe(folders: int, files: int) -> str:
    """``BrowserProvider.getDescription``: ``"2 §*§ · 3 *§*"``, or "Empty"."""
    parts = [f"{folders} {FOLDER_MARK}"] if folders else []
    if files:
        parts.append(f"{files} {FILE_MARK}")
    return " · ".join(parts) if parts else "Empty"


def _folder_desc(title: str, folders: int, files: int) -> str:
    """TalkBack's description of a folder row (``TalkbackUtil.getDir``)."""
    out = f"Folder: {title}"
    if folders:
        out += ", " + _count(folders, "1 subfolder", "%d subfolders")
    if files:
        out += ", " + _count(files, "1 media file", "%d media files")
    if not folders and not files:
        out += ", Empty"
    return out


def _browser_row(
    ui: UI,
    title: str,
    subtitle: str,
    on_tap: Callable[[], Any] | None,
    icon: str,
    desc: str,
    picture: tuple[Callable[[], Image.Image | None], tuple] | None = None,
    more: Callable[[], Any] | None = None,
) -> Node:
    """A ``browser_item``: the clickable ``browser_container`` with its icon, ``title`` and
    ``text`` (the description line, left out when empty), and for a media file the
    ``item_more`` button ("More Actions": its context sheet)."""
    l, t, r, b = ui.rect(FILE_ROW_H, x0=0, x1=SCREEN_W)
    row = ui.add(
        _node(
            "android.view.ViewGroup",
            (l, t, r, b),
            rid=_rid("browser_container"),
            desc=desc,
            on_tap=on_tap,
            role="row",
            label=title,
        )
    )
    ibox = (PAD, t + 30, PAD + 130, b - 30)
    if picture is not None:
        source, key = picture
        row.children.append(_picture(ibox, source, key, "crop", _rid("item_icon")))
    else:
        row.children.append(_node("android.widget.ImageView", ibox, rid=_rid("item_icon"), role="icon", style=icon))
    x = PAD + 170
    if subtitle:
        row.children.append(
            _node(
                "android.widget.TextView", (x, t + 30, SCREEN_W - 140, t + 105), title, rid=_rid("title"), role="text"
            )
        )
        row.children.append(
            _node(
                "android.widget.TextView",
                (x, t + 105, SCREEN_W - 140, b - 30),
                subtitle,
                rid=_rid("text"),
                role="subtext",
            )
        )
    else:
        row.children.append(
            _node("android.widget.TextView", (x, t + 55, SCREEN_W - 140, b - 55), title, rid=_rid("title"), role="text")
        )
    if more is not None:
        row.children.append(_more_button((SCREEN_W - 130, t + 45, SCREEN_W - 30, b - 45), more))
    return row


def _more_button(box: tuple[int, int, int, int], on_tap: Callable[[], Any]) -> Node:
    return _node(
        "android.widget.ImageView", box, desc=MORE_ACTIONS, rid=_rid("item_more"), on_tap=on_tap, role="icon",
        style="more",
    )  # fmt: skip


# ----------------------------------------------------------------------------- the video grid


def video_grid(ui: UI, dev: Device, host: Screen, items: list[MediaRow | MediaGroup], key: str) -> None:
    """VideoGridFragment's cards, two to a row (a RecyclerView ``video_grid``)."""
    data: VlcData = dev.data("vlc")
    rows = [items[i : i + 2] for i in range(0, len(items), 2)]

    def render(ui: UI, pair: list[MediaRow | MediaGroup]) -> None:
        y = ui.y
        w = (SCREEN_W - 48) // 2
        for i, item in enumerate(pair):
            x = 16 + i * (w + 16)
            _card(ui, dev, data, item, (x, y + 8, x + w, y + CARD_H - 8))
        ui.y = y + CARD_H

    ui.scroll_list(host, key, rows, render, item_h=CARD_H, empty=NOMEDIA, list_id="video_grid")


def _card(ui: UI, dev: Device, data: VlcData, item: MediaRow | MediaGroup, box: tuple[int, int, int, int]) -> None:
    """A ``video_grid_card``: the clickable card (described as TalkBack reads it) holding the
    thumbnail, the title and the time (a group: its video count)."""
    l, t, r, b = box
    thumb_b = t + (r - l) * 10 // 16
    if isinstance(item, MediaGroup):
        videos = data.group_media(item.id_group)
        title, time = item.name, _count(len(videos), "1 video", "%d videos")
        desc = f"Video group: {item.name}"
        first = media(dev).files.get(videos[0].path) if videos else None

        def open_item(g: int = item.id_group) -> str:
            dev.push(VlcGroup(g))
            return f'Open the video group "{item.name}" in VLC'

    else:
        title, time = item.title, ms_text(item.duration) if item.duration > 0 else ""
        desc = f"Video: {item.title}"
        first = media(dev).files.get(item.path)

        def open_item(path: str = item.path) -> str:
            return open_video(dev, path)

    card = ui.add(_node("android.view.ViewGroup", box, desc=desc, on_tap=open_item, role="row", label=title))
    source, key = _thumbnail(first)
    card.children.append(_picture((l, t, r, thumb_b), source, key, "crop", _rid("ml_item_thumbnail")))
    card.children.append(
        _node(
            "android.widget.TextView",
            (l + 10, thumb_b + 8, r - 10, thumb_b + 70),
            title,
            rid=_rid("ml_item_title"),
            role="text",
            style=38,
        )
    )
    if time:
        card.children.append(
            _node(
                "android.widget.TextView",
                (l + 10, thumb_b + 70, r - 110, b),
                time,
                rid=_rid("ml_item_time"),
                role="subtext",
            )
        )
    if isinstance(item, MediaRow):
        card.children.append(
            _more_button((r - 100, b - 100, r - 10, b - 10), lambda p=item.path: context_sheet(dev, p))
        )


class VlcGroup(Screen):
    """SecondaryActivity with a group's videos (VideoGridFragment without grouping)."""

    def __init__(self, group_id: int) -> None:
        super().__init__()
        self.group_id = group_id

    def screen_name(self) -> str:
        return "VLC/Group"

    def build(self, ui: UI, dev: Device) -> None:
        data = library(dev)
        g = data.group(self.group_id)
        ui.toolbar(g.name if g is not None else "videos")
        video_grid(ui, dev, self, list(data.group_media(self.group_id)), "group")


# ----------------------------------------------------------------------------- the file browser


def _folder_content(dev: Device, folder: str) -> tuple[list[str], list[MediaFile]]:
    """The subfolders (names) and files directly in ``folder`` ("" is the storage's root)."""
    store = media(dev)
    if folder == "":
        dirs = set(STANDARD_DIRS) | {d.split("/")[0] for d in store.dirs} | {f.split("/")[0] for f in FOLDERS}
    else:
        dirs = {posixpath.basename(d) for d in store.dirs if posixpath.dirname(d) == folder}
    files = [f for f in store.files.values() if f.folder == folder]
    return sorted(dirs, key=str.lower), files


def _name_key(name: str, digits: int) -> str:
    """VLC's file name order (``getFilenameAscComp``): lower case, a leading number padded with
    zeros to the longest leading number of the list."""
    low = name.lower()
    if not low[:1].isdigit():
        return low
    zeros = len(low) - len(low.lstrip("0"))
    number = len(_leading_number(low.lstrip("0")))
    return "0" * max(0, digits - zeros - number) + low


def _leading_number(s: str) -> str:
    out = ""
    for c in s:
        if not c.isdigit():
            break
        out += c
    return out


class VlcBrowser(Screen):
    """FileBrowserFragment on a folder of the internal memory (``""``: its root)."""

    def __init__(self, folder: str) -> None:
        super().__init__()
        self.folder = folder

    def screen_name(self) -> str:
        return f"VLC/Browse/{self.folder}"

    def entries(self, dev: Device) -> list[tuple[str, Any]]:
        """The rows in order: ``("dir", name)`` for each subfolder, then ``("file", MediaFile)``."""
        dirs, files = _folder_content(dev, self.folder)
        digits = max((len(_leading_number(f.name.lstrip("0"))) for f in files), default=0)
        files.sort(key=lambda f: _name_key(f.name, digits))
        return [("dir", d) for d in dirs] + [("file", f) for f in files]

    def build(self, ui: UI, dev: Device) -> None:
        data = library(dev)
        ui.toolbar(posixpath.basename(self.folder) if self.folder else INTERNAL_MEMORY)
        items = self.entries(dev)

        def render(ui: UI, item: tuple[str, Any]) -> None:
            kind, obj = item
            if kind == "dir":
                path = posixpath.join(self.folder, obj) if self.folder else obj
                sub_dirs, sub_files = _folder_content(dev, path)

                def enter(p: str = path) -> str:
                    dev.push(VlcBrowser(p))
                    return f'Open the folder "{posixpath.basename(p)}" in VLC'

                _browser_row(
                    ui,
                    obj,
                    _describe(len(sub_dirs), len(sub_files)),
                    enter,
                    "folder",
                    desc=_folder_desc(obj, len(sub_dirs), len(sub_files)),
                )
                return
            f: MediaFile = obj
            row = data.by_path(f.path)
            known = row is not None and row.duration > 0
            subtitle = "" if known else file_size(len(f.data()))
            desc = f"File: {f.name}" + (f", File size: {subtitle}" if subtitle else "")
            on_tap = (lambda p=f.path: open_video(dev, p)) if f.kind == "video" else None
            pic = _thumbnail(f) if f.kind == "video" else ((f.picture, (f.path, f.mtime.isoformat(), "icon")))
            more = (lambda p=f.path: context_sheet(dev, p)) if f.kind == "video" and row is not None else None
            _browser_row(ui, f.name, subtitle, on_tap, "play", desc=desc, picture=pic, more=more)

        ui.scroll_list(self, "files", items, render, item_h=FILE_ROW_H, empty="Empty", list_id="network_list")


# ----------------------------------------------------------------------------- playlists


class VlcPlaylist(Screen):
    """PlaylistActivity: one playlist's videos in order (a tap plays one)."""

    def __init__(self, playlist_id: int) -> None:
        super().__init__()
        self.playlist_id = playlist_id

    def screen_name(self) -> str:
        return "VLC/Playlist"

    def build(self, ui: UI, dev: Device) -> None:
        data = library(dev)
        p = data.playlist(self.playlist_id)
        ui.toolbar(p.name if p is not None else "Playlist")
        tracks = data.tracks(self.playlist_id) if p is not None else []

        def render(ui: UI, m: MediaRow) -> None:
            _browser_row(
                ui,
                m.title,
                ms_text(m.duration) if m.duration > 0 else "",
                lambda path=m.path: open_video(dev, path),
                "play",
                desc=f"Video: {m.title}",
                picture=_thumbnail(media(dev).files.get(m.path)),
            )

        ui.scroll_list(self, "tracks", tracks, render, item_h=FILE_ROW_H, empty=NOMEDIA, list_id="songs")


def context_sheet(dev: Device, path: str) -> str:
    """A video's ``item_more``: the ContextSheet titled with the video's title (Play, Add to
    playlist)."""
    row = library(dev).by_path(path)
    if row is None:
        raise Inapplicable(f"VLC has no video at {path}")
    dev.open_dialog(ContextSheet(path, row.title))
    return f'Tap "{MORE_ACTIONS}" for "{row.title}" in VLC'


class ContextSheet(MenuDialog):
    """The bottom sheet of a video's actions; its items act on the video."""

    def __init__(self, path: str, title: str) -> None:
        super().__init__("", [(PLAY, "play"), (ADD_TO_PLAYLIST, "playlist")], title=title)
        self.path = path

    def finish(self, dev: Device, value: Any) -> str | None:
        dev.close_dialog()
        if value == "play":
            return open_video(dev, self.path)
        if value == "playlist":
            dev.open_dialog(SavePlaylistDialog([self.path]))
            return f'Tap "{ADD_TO_PLAYLIST}" for "{self.title}" in VLC'
        return None


class SavePlaylistDialog(Dialog):
    """SavePlaylistDialog for the videos ``paths``: "Add to new playlist" (the name field, Enter or
    SAVE creates the playlist with them; a name already used is refused: "Playlist … already
    exists"), then "Add to existing playlist" (the playlists by name: a tap appends them, those
    already there left out)."""

    def __init__(self, paths: list[str]) -> None:
        super().__init__("", ADD_TO_PLAYLIST)
        self.paths = list(paths)
        self.error = ""
        self._field_order = ["name"]

    def build(self, ui: UI, dev: Device) -> None:
        data = library(dev)
        playlists = data.sorted_playlists()
        count = _count(len(self.paths), "1 media", "%d media")
        rows = max(1, min(len(playlists), 4))
        panel = ui.dialog_panel(self, height=90 + 70 + 190 + (70 if self.error else 0) + 90 + 70 + rows * 150 + 40)
        ui.text(ADD_TO_NEW, h=90, rid=_rid("textView9"), size=44)
        ui.text(count, h=70, rid=_rid("medias2"), size=34)
        x1 = ui.x1
        ui.x1 = SCREEN_W - 330
        y = ui.y
        ui.field(self, "name", PLAYLIST_NAME, rid=_rid("dialog_playlist_name"), label=PLAYLIST_NAME)
        ui.x1 = x1
        ui.add(
            _node(
                "android.widget.Button",
                (SCREEN_W - 310, y + 15, SCREEN_W - 100, y + 135),
                "SAVE",
                rid=_rid("dialog_playlist_save"),
                on_tap=lambda: self._save_new(dev),
                role="textbutton",
                label="Save",
            )
        )
        if self.error:
            ui.text(self.error, h=70, rid=_rid("textinput_error"), size=34)
        ui.text(ADD_TO_EXISTING, h=90, rid=_rid("textView8"), size=44)
        ui.text(count, h=70, rid=_rid("medias"), size=34)
        if not playlists:
            ui.text(NO_PLAYLIST, h=150, rid="android:id/empty", size=40)
        for p in playlists[:4] if len(playlists) <= 4 else []:
            self._playlist_row(ui, dev, p)
        if len(playlists) > 4:
            top = ui.y

            def render(ui: UI, p: Playlist) -> None:
                self._playlist_row(ui, dev, p)

            lst = ui.scroll_list(self, "list", playlists, render, item_h=150, bottom=top + 4 * 150, list_id="list")
            lst.rid = "android:id/list"
        ui.end_panel(panel)

    def _playlist_row(self, ui: UI, dev: Device, p: Playlist) -> None:
        n = len(library(dev).tracks(p.id_playlist))
        l, t, r, b = ui.rect(150, x0=60, x1=SCREEN_W - 60)
        kids = [
            _node("android.widget.TextView", (l + 40, t + 15, r - 40, t + 85), p.name, rid=_rid("title"), role="text"),
            _node("android.widget.TextView", (l + 40, t + 85, r - 40, b - 10), _count(n, "1 media", "%d media"),
                  rid=_rid("subtitle"), role="subtext"),
        ]  # fmt: skip
        ui.add(
            _node("android.view.ViewGroup", (l, t, r, b), on_tap=lambda: self._pick(dev, p.id_playlist), role="row",
                  label=p.name, children=kids)
        )  # fmt: skip

    def on_enter(self, dev: Device, key: str) -> str | None:
        return self._save_new(dev)  # actionSend / Enter: addToNewPlaylist

    def _media_ids(self, dev: Device) -> list[int]:
        data = library(dev)
        return [row.id_media for row in (data.by_path(p) for p in self.paths) if row is not None]

    def _save_new(self, dev: Device) -> str:
        name = self.form.get("name", "").strip()
        if not name:
            raise Inapplicable("type the playlist's name first")
        data = library(dev)
        if data.playlist_by_name(name) is not None:
            self.error = f"Playlist {name} already exists"
            return f'Tap "SAVE": {self.error}'
        p = data.create_playlist(name, int(dev.state.now.replace(tzinfo=dt.UTC).timestamp()))
        for mid in self._media_ids(dev):
            data.append(p.id_playlist, mid)
        dev.close_dialog()
        return f'Create the playlist "{name}" with {_count(len(self.paths), "1 video", "%d videos")} in VLC'

    def _pick(self, dev: Device, playlist_id: int) -> str:
        data = library(dev)
        p = data.playlist(playlist_id)
        if p is None:
            raise Inapplicable("that playlist no longer exists")
        there = {m.id_media for m in data.tracks(playlist_id)}
        new = [mid for mid in self._media_ids(dev) if mid not in there]
        for mid in new:
            data.append(playlist_id, mid)
        dev.close_dialog()
        if not new:
            dev.toast("Already in the playlist")
            return f'Tap the playlist "{p.name}": already in it'
        return f'Add {_count(len(new), "1 video", "%d videos")} to the playlist "{p.name}" in VLC'


# ----------------------------------------------------------------------------- the app


class VlcApp(App):
    name = "vlc"
    label = "VLC"
    package = PKG
    activity = "org.videolan.vlc.gui.MainActivity"
    aliases = ("vlc", "vlc app", "vlc player")
    color = (255, 136, 0)
    icon = "vlc"
    layout = (("android.view.ViewGroup", f"{PKG}:id/coordinator"),)
    databases = (DATABASE,)

    def initial_data(self) -> VlcData:
        return VlcData()

    def root(self, dev: Device) -> Screen:
        return VlcMain()


__all__ = [
    "PKG",
    "ContextSheet",
    "SavePlaylistDialog",
    "VlcApp",
    "VlcBrowser",
    "VlcGroup",
    "VlcMain",
    "VlcPlayer",
    "VlcPlaylist",
    "context_sheet",
    "open_video",
    "shown_frames",
]
