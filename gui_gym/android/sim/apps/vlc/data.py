"""VLC's media library: the rows of ``vlc_media.db`` the app shows and the player keeps.

VLC for Android (3.5.4, AndroidWorld's build 13050408) indexes the phone's media with its
*medialibrary* (VideoLAN's C++ library, at the revision that build pins) into the SQLite database
``/data/data/org.videolan.vlc/app_db/vlc_media.db`` (:data:`DB_PATH`). What the simulator keeps of
it, one row per row of the real tables:

- ``Media`` (:class:`MediaRow`): one per video the library found under ``/sdcard``: its file name,
  its title (the file name as the library's title analyzer cleans it, :func:`media_title`), its
  length in milliseconds, its play count and the position playback was left at;
- ``MediaGroup`` (:class:`MediaGroup`): the automatic video groups of the Video tab (videos whose
  titles share their first six characters, named by the longest prefix they share);
- ``Playlist`` and ``PlaylistMediaRelation`` (:class:`Playlist`, :class:`PlaylistMedia`): the
  user's playlists and their media in order (AndroidWorld's ``VlcCreatePlaylist`` reads these
  three tables joined: playlist name, ``Media.filename``, position), made with "Add to playlist"
  (``app.SavePlaylistDialog``) and listed in the Playlists tab.

The served phone keeps these rows in ``vlc_media.db`` (:mod:`~gui_gym.android.sim.apps.vlc.storage`).

:func:`library` brings the rows up to date with the phone's media store (``sim.media``), as the
library's discoverer does when the app starts: a new video gets the next id and joins a group, a
video that is gone loses its row. What the player showed of each video (the stretches of its
timeline that were on screen) is kept too, in :attr:`VlcData.shown`: it is no table of the real
app, only what a person in front of the phone saw.
"""

from __future__ import annotations

import datetime as dt
import posixpath
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gui_gym.android.sim.media import media

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device
    from gui_gym.android.sim.media import MediaFile

#: Where VLC keeps its media library (AndroidWorld's ``vlc._DB_PATH``).
DB_PATH = "/data/data/org.videolan.vlc/app_db/vlc_media.db"
#: ``MediaGroup::AutomaticGroupPrefixSize``: titles sharing this many first characters are grouped.
GROUP_PREFIX = 6
#: ``IMedia::Type::Video`` (the ``type`` column of ``Media``).
TYPE_VIDEO = 1


# ----------------------------------------------------------------------------- titles

_SEP = r"(\.|-|_|\+)"
_I = re.IGNORECASE | re.ASCII
# medialibrary's utils/TitleAnalyzer.cpp ``sanitize``: its rules in order, each (pattern, replacement).
# std::regex's ECMAScript grammar as Python's re reads it (ASCII word characters, so "_" is one: a
# name joined by underscores keeps them), "$n" as "\n" (a group that did not match gives "").
_TITLE_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(_SEP + r"(?:MEMENTO|Web((\.|-)DL)?)" + _SEP, _I), r"\1\3"),
    (re.compile(r"(\b|" + _SEP + r")(?:MeGusta|CRiMSON|Eclipse|MiNX\[TGx\]|ADRENALiNE)(\b|" + _SEP + ")", re.ASCII),
     r"\1\3"),
    (re.compile(r"((\b|" + _SEP + r")(?:DDP(" + _SEP + r"|\s)?((5|2)\.(1|0))?|5\.1|HD.TS|AT-X|LOST-UGM|BD|h("
                + _SEP + r")?26(4|5))(\b|" + _SEP + r"))|(\[[a-z]+-raws\])", _I), ""),
    (re.compile(r"\.[A-Za-z0-9]{2,4}$", re.ASCII), ""),
    (re.compile(r"(\s|-|_)(\d{1,4}(\.\d{1,3})?(MB|GB))\b", _I), ""),
    (re.compile(r"(\s|\b|\(|\[|^)" + _SEP + r"{1,2}(\b|\s|\)|\]|$)", re.ASCII), " "),
    (re.compile(r"\bPuyaSubs!", _I), ""),
    (re.compile(
        r"\b(xvid|dvd|rip|divx|x264|hdtv|aac|webrip|bluray|bdrip|brrip|dvdrip|ac3|HDTC|x265|mp4|mkv|10\s?bit(s)?|"
        r"avi|HDRip|HEVC|YUV420P10|FLAC|([0-9]{3,4}(p|i))|"
        r"((7680|4096|4520|3840|2560|2048|2160|1920|1728|1280|720|460)x"
        r"(4320|3072|2540|2160|1536|1440|1080|720|420|360|320))|(VOST( )?([a-z]{2})?)|HBO|AMC|TX|"
        r"ETTV|ETHD|DTOne|1337x|xrg|evo|yify|HorribleSubs|JiyuuNoFansub|ROVERS|YTS(\s[A-Z]{2,})?|AMZN|RARBG|"
        r"anoXmous(_){0,2}|BOKUTOX)\b", _I), ""),
    (re.compile(r"(\(|\[)\s+|\s+(\)|\])", re.ASCII), r"\1\2"),
    (re.compile(r"(\(\)|\[\])"), ""),
    (re.compile(r"(\s|\b|\(|\[|^)" + _SEP + r"(\b|\s|\)|\]|$)", re.ASCII), " "),
    (re.compile(r"^\s+|\s+$|(\s)\s+", re.ASCII), r"\1"),
)  # fmt: skip


def media_title(file_name: str) -> str:
    """The title the media library gives a video file (``utils::title::sanitize``): no extension,
    separators between words made spaces, release tags dropped; the name itself when nothing
    would be left.

    >>> media_title("clip_69__2023_01_30.mp4"), media_title("Deadly.Still.2019.BDRip.XviD.AC3-EVO.mkv")
    ('clip_69__2023_01_30', 'Deadly Still 2019')
    """
    out = file_name
    for pattern, repl in _TITLE_RULES:
        out = pattern.sub(repl, out)
    return out or file_name


def ms_text(ms: int) -> str:
    """A time as VLC writes it (medialibrary ``Tools.millisToString``): ``m:ss`` or ``h:mm:ss``.

    >>> ms_text(32_000), ms_text(185_000), ms_text(3_725_000)
    ('0:32', '3:05', '1:02:05')
    """
    sign = "-" if ms < 0 else ""
    s = abs(int(ms)) // 1000
    h, rest = divmod(s, 3600)
    m, sec = divmod(rest, 60)
    return f"{sign}{h}:{m:02d}:{sec:02d}" if h else f"{sign}{m}:{sec:02d}"


# ----------------------------------------------------------------------------- rows


@dataclass
class MediaRow:
    """A row of ``Media``: a video the library indexed."""

    id_media: int
    path: str  # below /sdcard ("Download/clip_3_.mp4"); the File row's mrl is file:///storage/emulated/0/<path>
    filename: str
    title: str
    duration: int  # milliseconds (-1: unknown)
    type: int = TYPE_VIDEO
    group_id: int = 0
    play_count: int = 0
    last_played_date: int | None = None  # seconds since the epoch
    last_position: float = -1.0  # the share of the video playback was left at (-1: none to resume)
    last_time: int = -1  # the milliseconds playback was left at (-1: none to resume)
    insertion_date: int = 0


@dataclass
class MediaGroup:
    """A row of ``MediaGroup``: an automatic group of videos (``forced_singleton`` 0)."""

    id_group: int
    name: str
    user_interacted: bool = False


@dataclass
class Playlist:
    """A row of ``Playlist``."""

    id_playlist: int
    name: str
    creation_date: int = 0


@dataclass
class PlaylistMedia:
    """A row of ``PlaylistMediaRelation``: ``media_id`` at ``position`` (from 0) of a playlist."""

    media_id: int
    playlist_id: int
    position: int


@dataclass
class VlcData:
    """VLC's database (see the module's docstring)."""

    media: list[MediaRow] = field(default_factory=list)
    groups: list[MediaGroup] = field(default_factory=list)
    playlists: list[Playlist] = field(default_factory=list)
    playlist_media: list[PlaylistMedia] = field(default_factory=list)
    next_media_id: int = 1
    next_group_id: int = 1
    next_playlist_id: int = 1
    #: per video path, the stretches of its timeline the player showed, in seconds ``(from, to)``
    #: (a paused picture is a stretch of length 0); not a table of the real app
    shown: dict[str, list[tuple[float, float]]] = field(default_factory=dict)

    def by_path(self, path: str) -> MediaRow | None:
        return next((m for m in self.media if m.path == path), None)

    def by_id(self, id_media: int) -> MediaRow | None:
        return next((m for m in self.media if m.id_media == id_media), None)

    def group(self, id_group: int) -> MediaGroup | None:
        return next((g for g in self.groups if g.id_group == id_group), None)

    def group_media(self, id_group: int) -> list[MediaRow]:
        """A group's videos by title (case-insensitive), as the group screen lists them."""
        rows = [m for m in self.media if m.group_id == id_group]
        return sorted(rows, key=lambda m: (m.title.lower(), m.id_media))

    def video_items(self) -> list[MediaRow | MediaGroup]:
        """The Video tab's items grouped by name: each group by its name (case-insensitive), a
        group of one video shown as that video (``VideoGroupsProvider.sanitizeGroups``)."""
        items: list[tuple[str, int, MediaRow | MediaGroup]] = []
        for g in self.groups:
            rows = [m for m in self.media if m.group_id == g.id_group]
            if not rows:
                continue
            items.append((g.name.lower(), g.id_group, rows[0] if len(rows) == 1 else g))
        return [item for _, _, item in sorted(items, key=lambda t: (t[0], t[1]))]

    # -- playlists ---------------------------------------------------------------------------
    def playlist(self, id_playlist: int) -> Playlist | None:
        return next((p for p in self.playlists if p.id_playlist == id_playlist), None)

    def playlist_by_name(self, name: str) -> Playlist | None:
        """``getPlaylistByName``: the playlist titled exactly ``name``."""
        return next((p for p in self.playlists if p.name == name), None)

    def sorted_playlists(self) -> list[Playlist]:
        """The playlists by name (the library's default order), then by id."""
        return sorted(self.playlists, key=lambda p: (p.name.lower(), p.id_playlist))

    def create_playlist(self, name: str, now: int) -> Playlist:
        """``createPlaylist``: a new, empty playlist (``now``: seconds since the epoch)."""
        p = Playlist(self.next_playlist_id, name, now)
        self.next_playlist_id += 1
        self.playlists.append(p)
        return p

    def append(self, id_playlist: int, id_media: int) -> PlaylistMedia:
        """``Playlist::append``: ``id_media`` at the end (positions count from 0)."""
        position = sum(1 for r in self.playlist_media if r.playlist_id == id_playlist)
        row = PlaylistMedia(id_media, id_playlist, position)
        self.playlist_media.append(row)
        return row

    def tracks(self, id_playlist: int) -> list[MediaRow]:
        """A playlist's videos in order (entries whose video is gone left out)."""
        entries = sorted((r for r in self.playlist_media if r.playlist_id == id_playlist), key=lambda r: r.position)
        out = []
        for r in entries:
            m = self.by_id(r.media_id)
            if m is not None:
                out.append(m)
        return out

    def playlist_rows(self) -> list[tuple[str, str, int]]:
        """AndroidWorld's ``vlc._get_playlist_info_query``: ``(Playlist.name, Media.filename,
        PlaylistMediaRelation.position)`` for each relation whose playlist and media exist (inner
        joins), by playlist name, then position."""
        names = {p.id_playlist: p.name for p in self.playlists}
        files = {m.id_media: m.filename for m in self.media}
        rows = [
            (names[r.playlist_id], files[r.media_id], r.position)
            for r in self.playlist_media
            if r.playlist_id in names and r.media_id in files
        ]
        return sorted(rows, key=lambda t: (t[0].lower(), t[2]))

    # -- what was on screen -----------------------------------------------------------------
    def record_shown(self, path: str, start: float, end: float) -> None:
        self.shown.setdefault(path, []).append((float(start), float(end)))


def vlc(dev: Device) -> VlcData:
    return dev.data("vlc")


def _assign_group(data: VlcData, row: MediaRow) -> None:
    """``MediaGroup::assignToGroup``: join the group whose name shares the longest prefix (at
    least six characters, case-insensitive) with the title, renaming it to that prefix; else a
    new group named by the title. (A leading "the " is skipped, as the library does.)"""
    title = row.title
    skip = 4 if title[:4].lower() == "the " else 0
    prefix = title[skip : skip + GROUP_PREFIX]
    best: tuple[str, MediaGroup] | None = None
    if len(prefix) >= GROUP_PREFIX:
        for g in data.groups:
            if g.name[:GROUP_PREFIX].lower() != prefix.lower():
                continue
            common = _common_prefix(g.name, title)
            if len(common) >= GROUP_PREFIX and (best is None or len(common) > len(best[0])):
                best = (common, g)
    if best is None:
        g = MediaGroup(data.next_group_id, title[skip:])
        data.next_group_id += 1
        data.groups.append(g)
        row.group_id = g.id_group
        return
    common, g = best
    if not g.user_interacted:
        g.name = common
    row.group_id = g.id_group


def _common_prefix(group_name: str, title: str) -> str:
    """``MediaGroup::commonPattern``: the start of ``group_name`` that ``title`` shares (letters
    compared case-insensitively, a leading "the " skipped on either side)."""
    i = 4 if group_name[:4].lower() == "the " else 0
    j = 4 if title[:4].lower() == "the " else 0
    start = i
    while i < len(group_name) and j < len(title) and group_name[i].lower() == title[j].lower():
        i += 1
        j += 1
    return group_name[start:i] if i - start >= GROUP_PREFIX else ""


def library(dev: Device) -> VlcData:
    """VLC's database, brought up to date with the videos on the phone (the library's scan):
    videos found since get rows (in path order) and join groups; rows of videos gone are removed
    with their playlist entries, and groups left empty go."""
    data = vlc(dev)
    videos = {f.path: f for f in media(dev).of_kind("video")}
    known = {m.path for m in data.media}
    gone = known - set(videos)
    if gone:
        ids = {m.id_media for m in data.media if m.path in gone}
        data.media = [m for m in data.media if m.path not in gone]
        data.playlist_media = [r for r in data.playlist_media if r.media_id not in ids]
        used = {m.group_id for m in data.media}
        data.groups = [g for g in data.groups if g.id_group in used]
    for path in sorted(set(videos) - known):
        f = videos[path]
        length = f.duration()
        row = MediaRow(
            id_media=data.next_media_id,
            path=path,
            filename=f.name,
            title=media_title(f.name),
            duration=length * 1000 if length > 0 else -1,
            insertion_date=int(dev.state.now.replace(tzinfo=dt.UTC).timestamp()),
        )
        data.next_media_id += 1
        data.media.append(row)
        _assign_group(data, row)
    return data


def file_of(dev: Device, row: MediaRow) -> MediaFile | None:
    return media(dev).files.get(row.path)


def folder_of(path: str) -> str:
    return posixpath.dirname(path)
