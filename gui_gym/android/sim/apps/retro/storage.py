"""Retro Music's two databases, as the app keeps them under ``/data/data/code.name.monkey.retromusic/databases``.

``playlist.db`` is Room's ``RetroDatabase`` (version 24); its playlist tables::

    CREATE TABLE `PlaylistEntity` (`playlist_id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
        `playlist_name` TEXT NOT NULL)
    CREATE TABLE `SongEntity` (`song_key` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
        `playlist_creator_id` INTEGER NOT NULL, `id` INTEGER NOT NULL, `title` TEXT NOT NULL,
        `track_number` INTEGER NOT NULL, `year` INTEGER NOT NULL, `duration` INTEGER NOT NULL,
        `data` TEXT NOT NULL, `date_modified` INTEGER NOT NULL, `album_id` INTEGER NOT NULL,
        `album_name` TEXT NOT NULL, `artist_id` INTEGER NOT NULL, `artist_name` TEXT NOT NULL,
        `composer` TEXT, `album_artist` TEXT)

(a unique index on ``(playlist_creator_id, id)``). AndroidWorld's ``retro_music`` joins them
(playlist name, ``title``, ``duration``, the order of ``song_key``) and empties both at set-up.

``music_playback_state.db`` is ``MusicPlaybackQueueStore`` (version 12): ``playing_queue`` and
``original_playing_queue``, one row per queued song in order (``_id``, ``title``, ``track``,
``year``, ``duration``, ``_data``, ``date_modified``, ``album_id``, ``album``, ``artist_id``,
``artist``, ``composer``, ``album_artist``); AndroidWorld reads ``SELECT title FROM playing_queue``.

Both files are the one app's data (:class:`~gui_gym.android.sim.apps.retro.data.RetroData`): a
database pushed back replaces the part it holds; as :class:`~gui_gym.android.sim.storage.Database`
reads one file into the whole app's data, the other part is then empty (AndroidWorld pushes only
``playlist.db``, emptied, while the queue is the snapshot's empty one).

Example:
    >>> from gui_gym.android.sim.apps.retro.data import RetroData, Song
    >>> d = RetroData()
    >>> s = Song(1, "Moments", 0, 0, 200000, "/storage/emulated/0/Music/Moments.mp3", 0, 1, "Music", 1, "Emma")
    >>> d.add(d.create("Party Mix 3"), [s])
    >>> back = decode_playlists(encode_playlists(d))
    >>> [(p.playlist_name, [e.song.title for e in back.songs_of(p.playlist_id)]) for p in back.playlists]
    [('Party Mix 3', ['Moments'])]
"""

from __future__ import annotations

import sqlite3
from typing import Any

from gui_gym.android.sim.apps.retro.data import PKG, Playlist, PlaylistSong, RetroData, Song
from gui_gym.android.sim.storage import Column, Database, StorageError, Table, check_int, check_text

FOLDER = f"/data/data/{PKG}/databases"

PLAYLISTS = Table(
    "PlaylistEntity",
    (
        Column("playlist_id", "INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL", None),
        Column("playlist_name", "TEXT NOT NULL", ""),
    ),
)
SONGS = Table(
    "SongEntity",
    (
        Column("song_key", "INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL", None),
        Column("playlist_creator_id", "INTEGER NOT NULL", 0),
        Column("id", "INTEGER NOT NULL", 0),
        Column("title", "TEXT NOT NULL", ""),
        Column("track_number", "INTEGER NOT NULL", 0),
        Column("year", "INTEGER NOT NULL", 0),
        Column("duration", "INTEGER NOT NULL", 0),
        Column("data", "TEXT NOT NULL", ""),
        Column("date_modified", "INTEGER NOT NULL", 0),
        Column("album_id", "INTEGER NOT NULL", 0),
        Column("album_name", "TEXT NOT NULL", ""),
        Column("artist_id", "INTEGER NOT NULL", 0),
        Column("artist_name", "TEXT NOT NULL", ""),
        Column("composer", "TEXT", None),
        Column("album_artist", "TEXT", None),
    ),
)
_QUEUE_COLUMNS = (
    Column("_id", "INT NOT NULL", 0),
    Column("title", "STRING NOT NULL", ""),
    Column("track", "INT NOT NULL", 0),
    Column("year", "INT NOT NULL", 0),
    Column("duration", "LONG NOT NULL", 0),
    Column("_data", "STRING NOT NULL", ""),
    Column("date_modified", "LONG NOT NULL", 0),
    Column("album_id", "INT NOT NULL", 0),
    Column("album", "STRING NOT NULL", ""),
    Column("artist_id", "INT NOT NULL", 0),
    Column("artist", "STRING NOT NULL", ""),
    Column("composer", "STRING", None),
    Column("album_artist", "STRING", None),
)
QUEUE = Table("playing_queue", _QUEUE_COLUMNS)
ORIGINAL_QUEUE = Table("original_playing_queue", _QUEUE_COLUMNS)
_INDEX = "CREATE UNIQUE INDEX `index_SongEntity_playlist_creator_id_id` ON `SongEntity` (`playlist_creator_id`, `id`)"


def _write(tables: list[tuple[Table, list[dict[str, Any]]]], extra: tuple[str, ...] = ()) -> bytes:
    con = sqlite3.connect(":memory:")
    try:
        con.execute("CREATE TABLE android_metadata (locale TEXT)")
        con.execute("INSERT INTO android_metadata VALUES ('en_US')")
        for table, rows in tables:
            con.execute(table.ddl())
            names = ", ".join(f'"{n}"' for n in table.names)
            marks = ", ".join("?" for _ in table.names)
            con.executemany(
                f'INSERT INTO "{table.name}" ({names}) VALUES ({marks})',
                [tuple(r.get(c.name, c.default) for c in table.columns) for r in rows],
            )
        for sql in extra:
            con.execute(sql)
        con.commit()
        return con.serialize()
    finally:
        con.close()


def _song_row(s: Song) -> dict[str, Any]:
    f = s.fields()
    return {k: v for k, v in f.items() if k != "id"} | {"id": s.id}


def encode_playlists(data: RetroData) -> bytes:
    playlists = [{"playlist_id": p.playlist_id, "playlist_name": p.playlist_name} for p in data.playlists]
    songs = [
        {"song_key": e.song_key, "playlist_creator_id": e.playlist_creator_id} | _song_row(e.song)
        for e in sorted(data.entries, key=lambda e: e.song_key)
    ]
    return _write([(PLAYLISTS, playlists), (SONGS, songs)], (_INDEX,))


def _song(r: dict[str, Any], names: dict[str, str]) -> Song:
    """A row's song fields (``names``: the song field -> the row's column)."""
    for c in ("id", "track_number", "year", "duration", "date_modified", "album_id", "artist_id"):
        check_int(r, names.get(c, c))
    for c in ("title", "data", "album_name", "artist_name"):
        check_text(r, names.get(c, c))
    composer, album_artist = r[names.get("composer", "composer")], r[names.get("album_artist", "album_artist")]
    return Song(
        id=r[names.get("id", "id")],
        title=r[names.get("title", "title")],
        track_number=r[names.get("track_number", "track_number")],
        year=r[names.get("year", "year")],
        duration=r[names.get("duration", "duration")],
        data=r[names.get("data", "data")],
        date_modified=r[names.get("date_modified", "date_modified")],
        album_id=r[names.get("album_id", "album_id")],
        album_name=r[names.get("album_name", "album_name")],
        artist_id=r[names.get("artist_id", "artist_id")],
        artist_name=r[names.get("artist_name", "artist_name")],
        composer=composer if isinstance(composer, str) else None,
        album_artist=album_artist if isinstance(album_artist, str) else None,
    )


def decode_playlists(raw: bytes) -> RetroData:
    """The playlists of a ``playlist.db``; :class:`StorageError` where the app could not read it."""
    data = RetroData()
    for r in PLAYLISTS.decode(raw):
        data.playlists.append(Playlist(check_int(r, "playlist_id"), check_text(r, "playlist_name")))
    for r in SONGS.decode(raw):
        data.entries.append(PlaylistSong(check_int(r, "song_key"), check_int(r, "playlist_creator_id"), _song(r, {})))
    data.next_playlist = max((p.playlist_id for p in data.playlists), default=0) + 1
    data.next_key = max((e.song_key for e in data.entries), default=0) + 1
    return data


_QUEUE_NAMES = {
    "id": "_id",
    "track_number": "track",
    "data": "_data",
    "album_name": "album",
    "artist_name": "artist",
}


def _queue_row(s: Song) -> dict[str, Any]:
    return {_QUEUE_NAMES.get(k, k): v for k, v in s.fields().items()}


def encode_queue(data: RetroData) -> bytes:
    return _write(
        [(QUEUE, [_queue_row(s) for s in data.queue]), (ORIGINAL_QUEUE, [_queue_row(s) for s in data.original_queue])]
    )


def decode_queue(raw: bytes) -> RetroData:
    """The playing queue of a ``music_playback_state.db`` (rows in their stored order)."""
    data = RetroData()
    data.queue = [_song(r, _QUEUE_NAMES) for r in _in_order(QUEUE, raw)]
    data.original_queue = [_song(r, _QUEUE_NAMES) for r in _in_order(ORIGINAL_QUEUE, raw)]
    data.position = 0 if data.queue else -1
    return data


def _in_order(table: Table, raw: bytes) -> list[dict[str, Any]]:
    """``table``'s rows in the order they were inserted (the queue's order): checked by
    :meth:`Table.decode` (a table with the app's columns, within bounds), then read by ``rowid``."""
    checked = table.decode(raw)
    if raw[18:20] == b"\x02\x02":
        raw = raw[:18] + b"\x01\x01" + raw[20:]
    con = sqlite3.connect(":memory:")
    try:
        con.deserialize(raw)
        con.execute("PRAGMA query_only = 1")
        names = ", ".join(f'"{n}"' for n in table.names)
        rows = con.execute(f'SELECT {names} FROM "{table.name}" ORDER BY rowid').fetchmany(len(checked) + 1)
    except sqlite3.Error as e:
        raise StorageError(f"table {table.name!r} cannot be read ({e})") from None
    finally:
        con.close()
    return [dict(zip(table.names, r, strict=True)) for r in rows]


PLAYLIST_DB = Database(
    "retro", f"{FOLDER}/playlist.db", encode_playlists, decode_playlists, RetroData,
    owns=("playlists", "entries", "next_playlist", "next_key"),
)  # fmt: skip
PLAYBACK_DB = Database(
    "retro", f"{FOLDER}/music_playback_state.db", encode_queue, decode_queue, RetroData,
    owns=("queue", "original_queue", "position"),
)  # fmt: skip
