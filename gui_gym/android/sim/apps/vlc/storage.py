"""VLC's media library as the app keeps it: ``/data/data/org.videolan.vlc/app_db/vlc_media.db``.

The medialibrary's tables the simulator keeps (:mod:`gui_gym.android.sim.apps.vlc.data`), with
the medialibrary's own column names and types (its ``Media``, ``File``, ``MediaGroup``,
``Playlist`` and ``PlaylistMediaRelation`` schemas; columns it has beyond these are left out)::

    CREATE TABLE Media(id_media INTEGER PRIMARY KEY AUTOINCREMENT, type INTEGER, subtype INTEGER NOT NULL
        DEFAULT 0, duration INTEGER DEFAULT -1, last_position REAL DEFAULT -1, last_time INTEGER DEFAULT -1,
        play_count UNSIGNED INTEGER, last_played_date UNSIGNED INTEGER, insertion_date UNSIGNED INTEGER,
        release_date UNSIGNED INTEGER, title TEXT COLLATE NOCASE, filename TEXT COLLATE NOCASE,
        is_favorite BOOLEAN NOT NULL DEFAULT FALSE, is_present BOOLEAN NOT NULL DEFAULT TRUE,
        nb_playlists UNSIGNED INTEGER NOT NULL DEFAULT 0, import_type UNSIGNED INTEGER NOT NULL,
        group_id UNSIGNED INTEGER, forced_title BOOLEAN NOT NULL DEFAULT FALSE)
    CREATE TABLE File(id_file INTEGER PRIMARY KEY AUTOINCREMENT, media_id UNSIGNED INT DEFAULT NULL,
        playlist_id UNSIGNED INT DEFAULT NULL, mrl TEXT, type UNSIGNED INTEGER, ...)
    CREATE TABLE MediaGroup(id_group INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT COLLATE NOCASE,
        user_interacted BOOLEAN, forced_singleton BOOLEAN, ...)
    CREATE TABLE Playlist(id_playlist INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT COLLATE NOCASE,
        file_id UNSIGNED INT DEFAULT NULL, creation_date UNSIGNED INT NOT NULL, artwork_mrl TEXT)
    CREATE TABLE PlaylistMediaRelation(media_id INTEGER, mrl STRING, playlist_id INTEGER, position INTEGER)

A video's path is its ``File`` row's ``mrl`` (``file:///storage/emulated/0/<path>``, the main file of
the media). AndroidWorld's ``vlc`` tasks read ``Playlist.name``, ``Media.filename`` and
``PlaylistMediaRelation.position`` joined on the keys, and empty ``Playlist``, ``Media`` and
``PlaylistMediaRelation`` at set-up (pull, ``DELETE FROM``, push): a ``File`` row left without its
media is dropped on reading, as the library forgets it; the videos on the phone are indexed again
the next time VLC looks (:func:`~gui_gym.android.sim.apps.vlc.data.library`). A relation whose media
or playlist is missing stays (the inner join leaves it out), as in the real table.

Example:
    >>> from gui_gym.android.sim.apps.vlc.data import MediaRow, Playlist, PlaylistMedia, VlcData
    >>> d = VlcData(media=[MediaRow(1, "VLCVideos/clip_1_.mp4", "clip_1_.mp4", "clip_1_", 20000)])
    >>> d.playlists.append(Playlist(1, "Comedy Favorites", 1697384040))
    >>> d.playlist_media.append(PlaylistMedia(1, 1, 0))
    >>> back = decode(encode(d))
    >>> [(m.path, m.filename) for m in back.media], back.playlist_rows()
    ([('VLCVideos/clip_1_.mp4', 'clip_1_.mp4')], [('Comedy Favorites', 'clip_1_.mp4', 0)])
"""

from __future__ import annotations

import sqlite3
from typing import Any

from gui_gym.android.sim.apps.vlc.data import DB_PATH, MediaGroup, MediaRow, Playlist, PlaylistMedia, VlcData
from gui_gym.android.sim.storage import Column, Database, StorageError, Table, check_int, check_text

#: the shared storage's path in the library's file MRLs
MRL_ROOT = "file:///storage/emulated/0/"


class _Table(Table):
    """A table whose name has capitals (the medialibrary's ``Media``, ``File`` …): read under its
    lower-case name, as SQLite's names ignore case (:meth:`Table.decode` looks the table up by its
    name compared with ``lower(name)``)."""

    def decode(self, raw: bytes) -> list[dict[str, Any]]:
        return Table(self.name.lower(), self.columns).decode(raw)


MEDIA = _Table(
    "Media",
    (
        Column("id_media", "INTEGER PRIMARY KEY AUTOINCREMENT", None),
        Column("type", "INTEGER", 1),
        Column("subtype", "INTEGER NOT NULL DEFAULT 0", 0),
        Column("duration", "INTEGER DEFAULT -1", -1),
        Column("last_position", "REAL DEFAULT -1", -1.0),
        Column("last_time", "INTEGER DEFAULT -1", -1),
        Column("play_count", "UNSIGNED INTEGER", 0),
        Column("last_played_date", "UNSIGNED INTEGER", None),
        Column("insertion_date", "UNSIGNED INTEGER", 0),
        Column("release_date", "UNSIGNED INTEGER", 0),
        Column("title", "TEXT COLLATE NOCASE", ""),
        Column("filename", "TEXT COLLATE NOCASE", ""),
        Column("is_favorite", "BOOLEAN NOT NULL DEFAULT FALSE", 0),
        Column("is_present", "BOOLEAN NOT NULL DEFAULT TRUE", 1),
        Column("nb_playlists", "UNSIGNED INTEGER NOT NULL DEFAULT 0", 0),
        Column("import_type", "UNSIGNED INTEGER NOT NULL", 0),
        Column("group_id", "UNSIGNED INTEGER", None),
        Column("forced_title", "BOOLEAN NOT NULL DEFAULT FALSE", 0),
    ),
)
FILE = _Table(
    "File",
    (
        Column("id_file", "INTEGER PRIMARY KEY AUTOINCREMENT", None),
        Column("media_id", "UNSIGNED INT DEFAULT NULL", None),
        Column("playlist_id", "UNSIGNED INT DEFAULT NULL", None),
        Column("mrl", "TEXT", ""),
        Column("type", "UNSIGNED INTEGER", 1),  # IFile::Type::Main
        Column("last_modification_date", "UNSIGNED INT", 0),
        Column("size", "UNSIGNED INT", 0),
        Column("is_removable", "BOOLEAN NOT NULL", 0),
        Column("is_external", "BOOLEAN NOT NULL", 0),
        Column("is_network", "BOOLEAN NOT NULL", 0),
    ),
)
GROUP = _Table(
    "MediaGroup",
    (
        Column("id_group", "INTEGER PRIMARY KEY AUTOINCREMENT", None),
        Column("name", "TEXT COLLATE NOCASE", ""),
        Column("nb_video", "UNSIGNED INTEGER DEFAULT 0", 0),
        Column("creation_date", "INTEGER NOT NULL", 0),
        Column("last_modification_date", "INTEGER NOT NULL", 0),
        Column("user_interacted", "BOOLEAN", 0),
        Column("forced_singleton", "BOOLEAN", 0),
    ),
)
PLAYLIST = _Table(
    "Playlist",
    (
        Column("id_playlist", "INTEGER PRIMARY KEY AUTOINCREMENT", None),
        Column("name", "TEXT COLLATE NOCASE", ""),
        Column("file_id", "UNSIGNED INT DEFAULT NULL", None),
        Column("creation_date", "UNSIGNED INT NOT NULL", 0),
        Column("artwork_mrl", "TEXT", None),
    ),
)
RELATION = _Table(
    "PlaylistMediaRelation",
    (
        Column("media_id", "INTEGER", None),
        Column("mrl", "STRING", None),
        Column("playlist_id", "INTEGER", None),
        Column("position", "INTEGER", None),
    ),
)
_INDEX = "CREATE INDEX playlist_position_pl_id_index ON PlaylistMediaRelation(playlist_id, position)"


def encode(data: VlcData) -> bytes:
    """``vlc_media.db`` holding ``data``'s rows."""
    media = [
        {
            "id_media": m.id_media,
            "type": m.type,
            "duration": m.duration,
            "last_position": m.last_position,
            "last_time": m.last_time,
            "play_count": m.play_count,
            "last_played_date": m.last_played_date,
            "insertion_date": m.insertion_date,
            "title": m.title,
            "filename": m.filename,
            "nb_playlists": sum(1 for r in data.playlist_media if r.media_id == m.id_media),
            "group_id": m.group_id or None,
        }
        for m in sorted(data.media, key=lambda m: m.id_media)
    ]
    files = [
        {"id_file": m["id_media"], "media_id": m["id_media"], "mrl": MRL_ROOT + row.path}
        for m, row in zip(media, sorted(data.media, key=lambda m: m.id_media), strict=True)
    ]
    groups = [
        {
            "id_group": g.id_group,
            "name": g.name,
            "nb_video": sum(1 for m in data.media if m.group_id == g.id_group),
            "user_interacted": int(g.user_interacted),
        }
        for g in sorted(data.groups, key=lambda g: g.id_group)
    ]
    playlists = [
        {"id_playlist": p.id_playlist, "name": p.name, "creation_date": p.creation_date}
        for p in sorted(data.playlists, key=lambda p: p.id_playlist)
    ]
    by_id = {m.id_media: m for m in data.media}
    relations = [
        {
            "media_id": r.media_id,
            "mrl": MRL_ROOT + by_id[r.media_id].path if r.media_id in by_id else None,
            "playlist_id": r.playlist_id,
            "position": r.position,
        }
        for r in data.playlist_media
    ]
    con = sqlite3.connect(":memory:")
    try:
        con.execute("CREATE TABLE android_metadata (locale TEXT)")
        con.execute("INSERT INTO android_metadata VALUES ('en_US')")
        for table, rows in (
            (MEDIA, media),
            (FILE, files),
            (GROUP, groups),
            (PLAYLIST, playlists),
            (RELATION, relations),
        ):
            con.execute(table.ddl())
            names = ", ".join(f'"{n}"' for n in table.names)
            marks = ", ".join("?" for _ in table.names)
            con.executemany(
                f'INSERT INTO "{table.name}" ({names}) VALUES ({marks})',
                [tuple(r.get(c.name, c.default) for c in table.columns) for r in rows],
            )
        con.execute(_INDEX)
        con.commit()
        return con.serialize()
    finally:
        con.close()


def _int_or(r: dict[str, Any], name: str, default: int | None) -> int | None:
    return default if r[name] is None else check_int(r, name)


def decode(raw: bytes) -> VlcData:
    """The library of a ``vlc_media.db``; :class:`StorageError` where VLC could not read it."""
    data = VlcData()
    paths: dict[int, str] = {}
    for r in FILE.decode(raw):
        mrl = r["mrl"]
        if r["media_id"] is not None and isinstance(mrl, str) and mrl.startswith(MRL_ROOT):
            paths.setdefault(check_int(r, "media_id"), mrl[len(MRL_ROOT) :])
    seen: set[int] = set()
    for r in MEDIA.decode(raw):
        key = check_int(r, "id_media")
        if key in seen:
            raise StorageError(f"id_media {key} is used twice")
        seen.add(key)
        filename = check_text(r, "filename", nullable=True)
        path = paths.get(key)
        if path is None:  # no file of its own on the phone's storage: the library forgets it
            continue
        last_position = r["last_position"]
        if last_position is not None and not isinstance(last_position, int | float):
            raise StorageError(f"column 'last_position' holds {last_position!r}; the app stores a number there")
        data.media.append(
            MediaRow(
                id_media=key,
                path=path,
                filename=filename,
                title=check_text(r, "title", nullable=True),
                duration=_int_or(r, "duration", -1),
                type=_int_or(r, "type", 1),
                group_id=_int_or(r, "group_id", 0) or 0,
                play_count=_int_or(r, "play_count", 0) or 0,
                last_played_date=_int_or(r, "last_played_date", None),
                last_position=-1.0 if last_position is None else float(last_position),
                last_time=_int_or(r, "last_time", -1),
                insertion_date=_int_or(r, "insertion_date", 0) or 0,
            )
        )
    for r in GROUP.decode(raw):
        data.groups.append(
            MediaGroup(check_int(r, "id_group"), check_text(r, "name", nullable=True), bool(r["user_interacted"]))
        )
    for r in PLAYLIST.decode(raw):
        data.playlists.append(
            Playlist(check_int(r, "id_playlist"), check_text(r, "name", nullable=True), _int_or(r, "creation_date", 0))
        )
    for r in RELATION.decode(raw):
        if r["media_id"] is None or r["playlist_id"] is None:
            continue
        position = _int_or(r, "position", None)
        data.playlist_media.append(
            PlaylistMedia(check_int(r, "media_id"), check_int(r, "playlist_id"), -1 if position is None else position)
        )
    data.next_media_id = max(seen, default=0) + 1
    data.next_group_id = max((g.id_group for g in data.groups), default=0) + 1
    data.next_playlist_id = max((p.id_playlist for p in data.playlists), default=0) + 1
    try:
        encode(data)
    except (sqlite3.Error, OverflowError, ValueError) as e:
        raise StorageError(f"a value the app cannot store back ({e})") from None
    return data


DATABASE = Database("vlc", DB_PATH, encode, decode, VlcData)
