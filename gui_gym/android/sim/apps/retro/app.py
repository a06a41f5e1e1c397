"""Retro Music (code.name.monkey.retromusic, 6.0.x as AndroidWorld installs it): the phone's songs,
playlists and the playing queue.

Screens, as the app lays them out (resource ids and texts from its layouts, menus and strings):

- the main screen (:class:`RetroMain`): the toolbar ("Retro Music", Search, More options) and
  the bottom navigation (For you / Songs / Albums / Artists / Playlists, ids ``action_home`` …).
  *Songs* lists every song (``item_list``: ``title``, ``text`` the artist, the overflow ``menu``)
  under a "Shuffle all" button; tapping a song plays the list from it (the queue becomes the
  list). A song's menu (``menu_item_song``): Play next, Add to playing queue, Add to playlist,
  Go to album, Go to artist, Share, Tag editor, Details, Set as ringtone, Add to Blacklist,
  Delete from device. *Playlists* lists the playlists ("N Songs"); its More options menu has
  "New playlist"; a playlist's menu (``menu_item_playlist``) has Play, Play next, Add to playing
  queue, Add to playlist, Rename, Delete and "Save as file". *Albums* and *Artists* list the
  library's albums and artists; *For you* shows the last added songs.
- "Add to playlist" (:class:`AddToPlaylistDialog`): "New playlist" then the playlists; a playlist
  takes the songs (at its end, in order); "New playlist" asks a name (:class:`CreatePlaylistDialog`,
  "Playlist name", Create) and creates it with the songs.
- a playlist (:class:`PlaylistDetail`): its name, "N Songs • total length", its songs in order.
- Details: the song's file name, path, size, format and length.
- "Save as file" opens Android's document picker (:class:`SaveDocument`, DocumentsUI's
  ``PickActivity``) on Downloads with the name ``<playlist>.m3u``; SAVE writes the playlist as
  M3U there (``/sdcard/Download/<name>``).
- the playing queue (:class:`PlayingQueue`, from the mini player at the bottom): the queued songs.
"""

from __future__ import annotations

import posixpath
import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from gui_gym.android.sim.apps.base import App
from gui_gym.android.sim.apps.retro.data import (
    PKG,
    RetroData,
    Song,
    duration_text,
    m3u,
    retro,
    songs,
)
from gui_gym.android.sim.apps.retro.storage import PLAYBACK_DB, PLAYLIST_DB
from gui_gym.android.sim.dialogs import AlertDialog, Dialog, InputDialog, MenuDialog
from gui_gym.android.sim.media import media
from gui_gym.android.sim.widgets import PAD, UI, Inapplicable, Screen
from gui_gym.android.ui import SCREEN_W, Node

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

TABS = ("For you", "Songs", "Albums", "Artists", "Playlists")
_NAV_IDS = {
    "For you": "action_home",
    "Songs": "action_song",
    "Albums": "action_album",
    "Artists": "action_artist",
    "Playlists": "action_playlist",
}
SONG_MENU = (
    "Play next",
    "Add to playing queue",
    "Add to playlist",
    "Go to album",
    "Go to artist",
    "Share",
    "Tag editor",
    "Details",
    "Set as ringtone",
    "Add to Blacklist",
    "Delete from device",
)
PLAYLIST_MENU = ("Play", "Play next", "Add to playing queue", "Add to playlist", "Rename", "Delete", "Save as file")
NEW_PLAYLIST = "New playlist"
ITEM_H = 190


def _node(cls: str, bounds: tuple[int, int, int, int], text: str = "", **kw: Any) -> Node:
    """A view of this app's window (every view of a window carries its package in a dump)."""
    kw.setdefault("package", PKG)
    return Node(cls, bounds, text, **kw)


DOCS_PKG = "com.google.android.documentsui"


def _rid(name: str) -> str:
    return f"{PKG}:id/{name}"


def _count(n: int) -> str:
    return "1 Song" if n == 1 else f"{n} Songs"


def _song_by_id(dev: Device, song_id: int) -> Song | None:
    return next((s for s in songs(dev) if s.id == song_id), None)


def _item(
    ui: UI,
    title: str,
    text: str,
    on_tap: Callable[[], Any] | None,
    on_menu: Callable[[], Any] | None,
    label: str = "",
) -> Node:
    """An ``item_list`` row: the clickable row with its image, ``title``, ``text`` and the
    overflow ``menu``."""
    l, t, r, b = ui.rect(ITEM_H, x0=0, x1=SCREEN_W)
    row = ui.add(_node("android.view.ViewGroup", (l, t, r, b), on_tap=on_tap, role="row", label=label or title))
    row.children.append(
        _node(
            "android.widget.ImageView", (PAD, t + 30, PAD + 130, b - 30), rid=_rid("image"), role="icon", style="music"
        )
    )
    row.children.append(
        _node(
            "android.widget.TextView",
            (PAD + 170, t + 30, SCREEN_W - 170, t + 100),
            title,
            rid=_rid("title"),
            role="text",
        )
    )
    row.children.append(
        _node(
            "android.widget.TextView",
            (PAD + 170, t + 100, SCREEN_W - 170, b - 30),
            text,
            rid=_rid("text"),
            role="subtext",
        )
    )
    if on_menu is not None:
        row.children.append(
            _node(
                "android.widget.ImageView",
                (SCREEN_W - 150, t + 35, SCREEN_W - 30, b - 35),
                rid=_rid("menu"),
                on_tap=on_menu,
                role="icon",
                style="more_vert",
                label=f"{title} menu",
            )
        )
    return row


# ----------------------------------------------------------------------------- what the menus do


def open_queue(dev: Device, items: list[Song], position: int) -> None:
    """``MusicPlayerRemote.openQueue``: the queue becomes ``items``, playing from ``position``."""
    data = retro(dev)
    data.queue = list(items)
    data.original_queue = list(items)
    data.position = position


def enqueue(dev: Device, items: list[Song]) -> str:
    """``MusicPlayerRemote.enqueue``: at the end of the queue (an empty queue opens with them)."""
    data = retro(dev)
    if data.queue:
        data.queue += items
        data.original_queue += items
    else:
        open_queue(dev, items, 0)
    text = (
        "Added 1 title to the playing queue." if len(items) == 1 else f"Added {len(items)} titles to the playing queue."
    )
    dev.toast(text)
    return text


def play_next(dev: Device, items: list[Song]) -> str:
    """``MusicPlayerRemote.playNext``: right after the current song."""
    data = retro(dev)
    if data.queue:
        at = data.position + 1
        data.queue[at:at] = items
        data.original_queue += items
    else:
        open_queue(dev, items, 0)
    text = (
        "Added 1 title to the playing queue." if len(items) == 1 else f"Added {len(items)} titles to the playing queue."
    )
    dev.toast(text)
    return text


def add_to_playlist(dev: Device, name: str, items: list[Song]) -> str:
    """``LibraryViewModel.addToPlaylist``: the playlist named ``name`` (created when there is none)
    gets ``items`` at its end."""
    data: RetroData = retro(dev)
    playlist = data.playlist(name)
    created = playlist is None
    if playlist is None:
        playlist = data.create(name)
    data.add(playlist, items)
    dev.toast(f"Added {len(items)} song(s) to {name}" if not created or items else f"{name} created successfully")
    if not items:
        return f'Create the playlist "{name}" in Retro Music'
    titles = ", ".join(f'"{s.title}"' for s in items)
    return f'Add {titles} to the playlist "{name}"' + (" (new)" if created else "")


class SongMenuHost:
    """A screen whose rows open a song's menu (``SongMenuHelper``)."""

    menu_song: int = -1

    def open_song_menu(self, dev: Device, song: Song) -> str:
        self.menu_song = song.id
        dev.open_dialog(MenuDialog("_song_menu", [(t, t) for t in SONG_MENU]))
        return f'Open the menu of "{song.title}"'

    def _song_menu(self, dev: Device, value: str) -> str:
        song = _song_by_id(dev, self.menu_song)
        if song is None:
            raise Inapplicable("that song is gone")
        if value == "Add to playing queue":
            enqueue(dev, [song])
            return f'Add "{song.title}" to the playing queue'
        if value == "Play next":
            play_next(dev, [song])
            return f'Play "{song.title}" next'
        if value == "Add to playlist":
            dev.open_dialog(AddToPlaylistDialog([song.id]))
            return f'Tap "Add to playlist" for "{song.title}"'
        if value == "Details":
            dev.open_dialog(details_dialog(dev, song))
            return f'Show the details of "{song.title}"'
        if value == "Go to album":
            dev.push(ListDetail("album", song.album_name))
            return f'Open the album "{song.album_name}"'
        if value == "Go to artist":
            dev.push(ListDetail("artist", song.artist_name))
            return f'Open the artist "{song.artist_name}"'
        raise Inapplicable(f'"{value}" is not available on this phone')

    def _add_to_playlist(self, dev: Device, value: tuple[str, tuple[int, ...]]) -> str:
        name, ids = value
        items = [s for i in ids if (s := _song_by_id(dev, i)) is not None]
        if name == NEW_PLAYLIST:
            dev.open_dialog(CreatePlaylistDialog(ids))
            return 'Tap "New playlist"'
        return add_to_playlist(dev, name, items)

    def _create_playlist(self, dev: Device, value: dict) -> str:
        name = value.get("name", "")
        if not name.strip():
            dev.toast("Playlist name can't be empty")
            return "Tap Create with no name (nothing is created)"
        ids = value.get("_songs", ())
        items = [s for i in ids if (s := _song_by_id(dev, i)) is not None]
        return add_to_playlist(dev, name, items)


def details_dialog(dev: Device, song: Song) -> AlertDialog:
    """``SongDetailDialog``: file name, path, size, format, length."""
    path = song.data.removeprefix("/storage/emulated/0/")
    f = media(dev).files.get(path)
    size = len(f.data()) if f is not None else 0
    lines = [
        f"File name: {posixpath.basename(song.data)}",
        f"File path: {song.data}",
        f"Size: {size / 1024 / 1024:.2f} MB",
        f"File format: {posixpath.splitext(song.data)[1].lstrip('.').upper()}",
        f"Length: {duration_text(song.duration)}",
    ]
    return AlertDialog("", "Details", "\n".join(lines), [("OK", None)])


class AddToPlaylistDialog(Dialog):
    """``AddToPlaylistDialog``: "Add to playlist", "New playlist" then the playlists; Cancel."""

    def __init__(self, ids: list[int]) -> None:
        super().__init__("_add_to_playlist", "Add to playlist")
        self.ids = tuple(ids)

    def build(self, ui: UI, dev: Device) -> None:
        names = [NEW_PLAYLIST] + [p.playlist_name for p in retro(dev).playlists]
        panel = ui.dialog_panel(self, height=180 + 140 * len(names) + 150)
        ui.dialog_title(self.title)
        with ui.group("android.widget.ListView", rid="android:id/select_dialog_listview"):
            for name in names:
                ui.button(
                    name,
                    lambda n=name: self.finish(ui.dev, (n, self.ids)),
                    rid="android:id/text1",
                    cls="android.widget.TextView",
                    h=140,
                    role="menuitem",
                )
        ui.dialog_buttons(self, [("Cancel", None)])
        ui.end_panel(panel)


class CreatePlaylistDialog(InputDialog):
    """``CreatePlaylistDialog``: "New playlist", the ``actionNewPlaylist`` field, Cancel / Create."""

    def __init__(self, ids: tuple[int, ...] = ()) -> None:
        super().__init__("_create_playlist", "New playlist", [("name", "Playlist name")], ok="Create")
        self.ids = tuple(ids)

    def build(self, ui: UI, dev: Device) -> None:
        panel = ui.dialog_panel(self, height=130 + 180 + 160)
        ui.dialog_title(self.title)
        with (
            ui.group("android.widget.FrameLayout", rid="android:id/custom"),
            ui.group(rid=_rid("actionNewPlaylistContainer")),
        ):
            ui.field(self, "name", "Playlist name", rid=_rid("actionNewPlaylist"))
        ui.dialog_buttons(self, [("Cancel", None), ("Create", "ok")])
        ui.end_panel(panel)

    def finish(self, dev: Device, value: Any) -> str | None:
        if value is None:
            return Dialog.finish(self, dev, None)
        return Dialog.finish(self, dev, dict(self.form) | {"_songs": self.ids})


# ----------------------------------------------------------------------------- the main screen


class RetroMain(SongMenuHost, Screen):
    """MainActivity: a library section per bottom navigation item."""

    activity = "code.name.monkey.retromusic.activities.MainActivity"

    def __init__(self) -> None:
        super().__init__()
        self.tab = "For you"
        self.menu_playlist = -1

    def screen_name(self) -> str:
        return f"Retro Music/{self.tab}"

    def build(self, ui: UI, dev: Device) -> None:
        actions = [("Search", "search", lambda: "Tap Search (the search screen is not on this phone)")]
        actions.append(("More options", "more_vert", lambda: self._overflow(dev)))
        ui.toolbar("Retro Music", up=False, actions=actions)
        self._navigation(ui)
        mini_player(ui, dev)
        if self.tab == "Songs":
            self._songs(ui, dev)
        elif self.tab == "Playlists":
            self._playlists(ui, dev)
        elif self.tab == "Albums":
            self._groups(ui, dev, "album")
        elif self.tab == "Artists":
            self._groups(ui, dev, "artist")
        else:
            self._home(ui, dev)

    def _overflow(self, dev: Device) -> str:
        items = [("Grid size", "grid"), ("Sort order", "sort"), ("Settings", "settings")]
        if self.tab == "Playlists":
            items = [(NEW_PLAYLIST, "new"), ("Import playlist", "import"), *items]
        dev.open_dialog(MenuDialog("_main_menu", items))
        return "Open the More options menu"

    def _main_menu(self, dev: Device, value: str) -> str:
        if value == "new":
            dev.open_dialog(CreatePlaylistDialog())
            return 'Tap "New playlist"'
        raise Inapplicable("that option is not available on this phone")

    def _navigation(self, ui: UI) -> None:
        h = 150
        y = ui.bottom - h
        w = SCREEN_W // len(TABS)
        items = []
        for i, name in enumerate(TABS):
            on = name == self.tab
            box = (i * w, y, (i + 1) * w, y + h)
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
                    children=[label],
                )
            )
        ui.add(
            _node(
                "android.widget.FrameLayout", (0, y, SCREEN_W, y + h), rid=_rid("bottomNavigationView"), children=items
            )
        )
        ui.bottom = y

    def _select(self, tab: str) -> str:
        self.tab = tab
        return f'Open the "{tab}" tab in Retro Music'

    def _songs(self, ui: UI, dev: Device) -> None:
        library = songs(dev)

        def shuffle() -> str:
            if not library:
                raise Inapplicable("there are no songs")
            order = list(library)
            random.Random(dev.state.step).shuffle(order)
            open_queue(dev, order, 0)
            return "Shuffle all songs"

        items: list[Any] = ["shuffle", *library] if library else []
        where = {id(s): i for i, s in enumerate(library)}  # each song's place (ids are unique)

        def render(ui: UI, item: Any) -> None:
            if item == "shuffle":
                ui.y += 20
                ui.button("Shuffle all", shuffle, rid=_rid("shuffleButton"), h=130, x0=PAD, x1=SCREEN_W // 2)
                ui.y += 40
                return
            song: Song = item
            index = where[id(song)]

            def play(i: int = index, s: Song = song) -> str:
                open_queue(dev, library, i)
                return f'Play "{s.title}" (the queue is now every song)'

            _item(ui, song.title, song.artist_name, play, lambda s=song: self.open_song_menu(dev, s))

        ui.scroll_list(self, "songs", items, render, item_h=ITEM_H, empty="You have no songs", list_id="recyclerView")

    def _playlists(self, ui: UI, dev: Device) -> None:
        data = retro(dev)

        def render(ui: UI, p: Any) -> None:
            n = len(data.songs_of(p.playlist_id))

            def open_it(pid: int = p.playlist_id, name: str = p.playlist_name) -> str:
                dev.push(PlaylistDetail(pid))
                return f'Open the playlist "{name}"'

            _item(ui, p.playlist_name, _count(n), open_it, lambda q=p: self._open_playlist_menu(dev, q.playlist_id))

        ui.scroll_list(
            self,
            "playlists",
            list(data.playlists),
            render,
            item_h=ITEM_H,
            empty="You have no playlists",
            list_id="recyclerView",
        )

    def _open_playlist_menu(self, dev: Device, pid: int) -> str:
        self.menu_playlist = pid
        dev.open_dialog(MenuDialog("_playlist_menu", [(t, t) for t in PLAYLIST_MENU]))
        return "Open the playlist's menu"

    def _playlist_menu(self, dev: Device, value: str) -> str:
        return playlist_action(dev, self.menu_playlist, value)

    def _groups(self, ui: UI, dev: Device, kind: str) -> None:
        library = songs(dev)
        names: dict[str, int] = {}
        for s in library:
            key = s.album_name if kind == "album" else s.artist_name
            names[key] = names.get(key, 0) + 1

        def render(ui: UI, name: Any) -> None:
            def open_it(n: str = name) -> str:
                dev.push(ListDetail(kind, n))
                return f'Open the {kind} "{n}"'

            _item(ui, name, _count(names[name]), open_it, None)

        ui.scroll_list(
            self,
            kind,
            sorted(names, key=str.lower),
            render,
            item_h=ITEM_H,
            empty="You have no songs",
            list_id="recyclerView",
        )

    def _home(self, ui: UI, dev: Device) -> None:
        recent = sorted(songs(dev), key=lambda s: (-s.date_modified, s.title))[:10]
        ui.text("Last added", h=110, rid=_rid("title"), size=46)

        def render(ui: UI, s: Any) -> None:
            _item(
                ui,
                s.title,
                s.artist_name,
                lambda x=s: self._play_one(dev, recent, x),
                lambda x=s: self.open_song_menu(dev, x),
            )

        ui.scroll_list(self, "home", recent, render, item_h=ITEM_H, empty="You have no songs", list_id="recyclerView")

    def _play_one(self, dev: Device, items: list[Song], s: Song) -> str:
        open_queue(dev, items, items.index(s))
        return f'Play "{s.title}"'


def playlist_action(dev: Device, pid: int, value: str) -> str:
    """``PlaylistMenuHelper``: what a playlist's menu item does."""
    data = retro(dev)
    playlist = next((p for p in data.playlists if p.playlist_id == pid), None)
    if playlist is None:
        raise Inapplicable("that playlist is gone")
    items = [e.song for e in data.songs_of(pid)]
    if value == "Play":
        if not items:
            raise Inapplicable("the playlist is empty")
        open_queue(dev, items, 0)
        return f'Play the playlist "{playlist.playlist_name}"'
    if value == "Play next":
        play_next(dev, items)
        return f'Play the playlist "{playlist.playlist_name}" next'
    if value == "Add to playing queue":
        enqueue(dev, items)
        return f'Add the playlist "{playlist.playlist_name}" to the playing queue'
    if value == "Add to playlist":
        dev.open_dialog(AddToPlaylistDialog([s.id for s in items]))
        return 'Tap "Add to playlist"'
    if value == "Delete":
        data.delete(pid)
        return f'Delete the playlist "{playlist.playlist_name}"'
    if value == "Save as file":
        dev.push(SaveDocument(pid, playlist.playlist_name + ".m3u"))
        return f'Save the playlist "{playlist.playlist_name}" as a file'
    raise Inapplicable(f'"{value}" is not available on this phone')


def mini_player(ui: UI, dev: Device) -> None:
    """The mini player above the navigation (while the queue holds a song): its title; tapping it
    opens the playing queue."""
    data = retro(dev)
    if not data.queue or not 0 <= data.position < len(data.queue):
        return
    song = data.queue[data.position]
    h = 150
    y = ui.bottom - h

    def open_queue_screen() -> str:
        dev.push(PlayingQueue())
        return "Open the playing queue"

    ui.add(
        _node(
            "android.widget.FrameLayout",
            (0, y, SCREEN_W, ui.bottom),
            rid=_rid("miniPlayerFragment"),
            on_tap=open_queue_screen,
            role="row",
            label="mini player",
            children=[
                _node(
                    "android.widget.TextView",
                    (PAD, y + 20, SCREEN_W - 200, y + h - 20),
                    song.title,
                    rid=_rid("miniPlayerTitle"),
                    role="text",
                )
            ],
        )
    )
    ui.bottom = y


class PlaylistDetail(SongMenuHost, Screen):
    """PlaylistDetailsFragment: the playlist's songs in order."""

    activity = "code.name.monkey.retromusic.activities.MainActivity"

    def __init__(self, pid: int) -> None:
        super().__init__()
        self.pid = pid

    def screen_name(self) -> str:
        return "Retro Music/Playlist"

    def build(self, ui: UI, dev: Device) -> None:
        data = retro(dev)
        playlist = next((p for p in data.playlists if p.playlist_id == self.pid), None)
        if playlist is None:
            ui.toolbar("Playlist")
            ui.text("Playlist is empty", rid=_rid("empty"))
            return
        entries = data.songs_of(self.pid)
        total = sum(e.song.duration for e in entries)
        ui.toolbar(playlist.playlist_name, actions=[("More options", "more_vert", lambda: self._menu(dev))])
        ui.text(f"{_count(len(entries))} • {duration_text(total)}", h=100, rid=_rid("text"), size=38)

        def render(ui: UI, e: Any) -> None:
            s: Song = e.song
            _item(
                ui,
                s.title,
                f"{s.artist_name} • {duration_text(s.duration)}",
                None,
                lambda x=s: self._entry_menu(dev, x),
            )

        ui.scroll_list(self, "songs", entries, render, item_h=ITEM_H, empty="Playlist is empty", list_id="recyclerView")

    def _menu(self, dev: Device) -> str:
        dev.open_dialog(MenuDialog("_playlist_menu", [(t, t) for t in PLAYLIST_MENU]))
        return "Open the playlist's menu"

    def _playlist_menu(self, dev: Device, value: str) -> str:
        out = playlist_action(dev, self.pid, value)
        if value == "Delete":
            dev.pop()
        return out

    def _entry_menu(self, dev: Device, song: Song) -> str:
        return self.open_song_menu(dev, song)


class ListDetail(SongMenuHost, Screen):
    """An album's or artist's songs."""

    def __init__(self, kind: str, name: str) -> None:
        super().__init__()
        self.kind, self.name = kind, name

    def screen_name(self) -> str:
        return f"Retro Music/{self.kind.title()}"

    def build(self, ui: UI, dev: Device) -> None:
        items = [s for s in songs(dev) if (s.album_name if self.kind == "album" else s.artist_name) == self.name]
        ui.toolbar(self.name)

        def render(ui: UI, s: Any) -> None:
            def play(x: Song = s) -> str:
                open_queue(dev, items, items.index(x))
                return f'Play "{x.title}"'

            _item(ui, s.title, s.artist_name, play, lambda x=s: self.open_song_menu(dev, x))

        ui.scroll_list(self, "songs", items, render, item_h=ITEM_H, empty="You have no songs", list_id="recyclerView")


class PlayingQueue(Screen):
    """PlayingQueueActivity: the queue, the current song first marked "Now playing"."""

    activity = "code.name.monkey.retromusic.activities.PlayingQueueActivity"

    def screen_name(self) -> str:
        return "Retro Music/Playing queue"

    def build(self, ui: UI, dev: Device) -> None:
        data = retro(dev)
        ui.toolbar("Playing Queue")
        rows = list(enumerate(data.queue))

        def render(ui: UI, item: Any) -> None:
            i, s = item
            text = s.artist_name + (" • Now playing" if i == data.position else "")
            _item(ui, s.title, text, None, None)

        ui.scroll_list(
            self, "queue", rows, render, item_h=ITEM_H, empty="Playing queue is empty", list_id="recyclerView"
        )


class SaveDocument(Screen):
    """Android's document picker asked to create ``audio/mpegurl`` (``createNewFile``): Downloads,
    the file name, SAVE."""

    package = DOCS_PKG
    activity = "com.android.documentsui.picker.PickActivity"

    def __init__(self, pid: int, name: str) -> None:
        super().__init__()
        self.pid = pid
        self.form["name"] = name
        self.focus = None

    def screen_name(self) -> str:
        return "Files/Save to"

    def build(self, ui: UI, dev: Device) -> None:
        ui.toolbar("Downloads")
        files = media(dev).folder("Download")
        for f in files[:8]:
            ui.text(f.name, h=110, rid="com.google.android.documentsui:id/item_title", size=38)
        ui.y = max(ui.y, ui.bottom - 200)
        with ui.group(rid="com.google.android.documentsui:id/container_save"):
            ui.field(self, "name", "File name", rid="android:id/title", h=140)
            ui.y -= 170
            ui.button(
                "SAVE", lambda: self._save(dev), rid="android:id/button1", x0=SCREEN_W - 300, x1=SCREEN_W - PAD, h=140
            )

    def _save(self, dev: Device) -> str:
        name = self.form.get("name", "").strip()
        if not name:
            raise Inapplicable("the file needs a name")
        if "." not in name:
            name += ".m3u"
        store = media(dev)
        path = f"Download/{name}"
        stem, ext = posixpath.splitext(name)
        n = 1
        while path in store.files:  # DocumentsUI names a copy "<name> (1).m3u"
            path = f"Download/{stem} ({n}){ext}"
            n += 1
        store.add_file(path, m3u(dev, self.pid).encode("utf-8"), dev.state.now)
        dev.pop()
        dev.toast(f"Saved playlist to {posixpath.basename(path)}.")
        return f'Save "{posixpath.basename(path)}" in Downloads'


class RetroApp(App):
    name = "retro"
    label = "Retro Music"
    package = PKG
    activity = "code.name.monkey.retromusic.activities.MainActivity"
    aliases = ("retro music", "retro", "retro player")
    color = (236, 64, 122)
    icon = "music"
    databases = (PLAYLIST_DB, PLAYBACK_DB)

    def initial_data(self) -> RetroData:
        return RetroData()

    def root(self, dev: Device) -> Screen:
        return RetroMain()


__all__ = [
    "AddToPlaylistDialog",
    "CreatePlaylistDialog",
    "PlayingQueue",
    "PlaylistDetail",
    "RetroApp",
    "RetroMain",
    "SaveDocument",
]
