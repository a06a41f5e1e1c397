"""Retro Music's data: the songs it finds in shared storage, its playlists and its playing queue.

Retro Music (code.name.monkey.retromusic 6.0.x, AndroidWorld's build 10603) lists what Android's
media store indexes as audio: here every ``.mp3`` (and other audio file) of the phone's media
store (:mod:`gui_gym.android.sim.media`) outside ``Android/``, read as the media scanner reads it:
title and artist from the file's ID3v2 tag (the file name without its extension and
``<unknown>`` where it has none), the length from the first MPEG audio frame (its Xing/Info
header's frame count, else the constant bit rate's share of the file). AndroidWorld puts such files
into ``/sdcard/Music`` (``user_data_generation.write_mp3_file_to_device``: pydub's silent MP3 with
``artist`` and ``title`` tags); :func:`make_mp3` writes an equivalent small file (a tag and one
Info frame counting the frames of the length asked for).

The app's own data (:class:`RetroData`) is what its two databases hold (``storage``): the
playlists (Room's ``PlaylistEntity``) with their songs (``SongEntity``: a copy of the song's
fields per playlist, ordered by ``song_key``) in ``playlist.db``, and the playing queue
(``playing_queue``, the song fields in queue order) in ``music_playback_state.db``.

Example:
    >>> raw = make_mp3("Night Drive", "Emma", 200_000)
    >>> tags = read_mp3(raw)
    >>> tags.title, tags.artist, abs(tags.duration - 200_000) < 27
    ('Night Drive', 'Emma', True)
"""

from __future__ import annotations

import functools
import posixpath
import struct
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gui_gym.android.sim.media import media

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device
    from gui_gym.android.sim.media import MediaFile

PKG = "code.name.monkey.retromusic"
#: where AndroidWorld puts its songs (``device_constants.MUSIC_DATA``, below ``/sdcard``)
MUSIC = "Music"
AUDIO_EXTENSIONS = (".mp3", ".m4a", ".ogg", ".wav", ".flac", ".aac", ".opus")
UNKNOWN = "<unknown>"  # MediaStore.UNKNOWN_STRING
SDCARD = "/storage/emulated/0"


# ----------------------------------------------------------------------------- MP3 files


@dataclass(frozen=True)
class Tags:
    """What the media scanner reads of an audio file."""

    title: str | None
    artist: str | None
    album: str | None
    duration: int  # milliseconds


_BITRATES = {  # (MPEG-1?, layer III) kbit/s by index
    True: (0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 0),
    False: (0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160, 0),
}
_RATES = {3: (44100, 48000, 32000), 2: (22050, 24000, 16000), 0: (11025, 12000, 8000)}


def _syncsafe(b: bytes) -> int:
    return (b[0] << 21) | (b[1] << 14) | (b[2] << 7) | b[3]


def _text(frame: bytes) -> str | None:
    if not frame:
        return None
    enc, body = frame[0], frame[1:]
    try:
        if enc == 0:
            s = body.decode("latin-1")
        elif enc == 1:
            s = body.decode("utf-16")
        elif enc == 2:
            s = body.decode("utf-16-be")
        else:
            s = body.decode("utf-8")
    except UnicodeDecodeError:
        return None
    s = s.split("\x00", 1)[0].strip()
    return s or None


def _id3(raw: bytes) -> tuple[dict[str, str], int]:
    """The text frames of an ID3v2 tag at the start of ``raw``, and the tag's length."""
    if len(raw) < 10 or raw[:3] != b"ID3":
        return {}, 0
    version, flags = raw[3], raw[5]
    end = 10 + _syncsafe(raw[6:10]) + (10 if flags & 0x10 else 0)
    out: dict[str, str] = {}
    pos = 10
    if flags & 0x40 and pos + 4 <= len(raw):  # an extended header
        pos += _syncsafe(raw[pos : pos + 4]) if version == 4 else 4 + struct.unpack(">I", raw[pos : pos + 4])[0]
    limit = min(end, len(raw))
    while pos + 10 <= limit:
        fid = raw[pos : pos + 4]
        if not fid.strip(b"\x00"):
            break
        size = _syncsafe(raw[pos + 4 : pos + 8]) if version == 4 else struct.unpack(">I", raw[pos + 4 : pos + 8])[0]
        body = raw[pos + 10 : pos + 10 + size]
        name = fid.decode("latin-1", errors="replace")
        if name.startswith("T") and name not in out:
            text = _text(body)
            if text is not None:
                out[name] = text
        pos += 10 + size
    return out, end


def _duration(raw: bytes, start: int) -> int:
    """Milliseconds of the MPEG audio (layer III) from ``start``: the Xing/Info frame count, else
    the constant bit rate's length of the rest of the file."""
    pos = start
    while pos + 4 <= len(raw) and pos < start + 65536:
        if raw[pos] == 0xFF and raw[pos + 1] & 0xE0 == 0xE0:
            break
        pos += 1
    else:
        return 0
    h = struct.unpack(">I", raw[pos : pos + 4])[0]
    version = (h >> 19) & 3  # 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5
    layer = (h >> 17) & 3
    br_index, sr_index = (h >> 12) & 15, (h >> 10) & 3
    if version == 1 or layer != 1 or sr_index == 3:
        return 0
    mpeg1 = version == 3
    rate = _RATES[version][sr_index]
    bitrate = _BITRATES[mpeg1][br_index] * 1000
    samples = 1152 if mpeg1 else 576
    mono = (h >> 6) & 3 == 3
    side = (17 if mono else 32) if mpeg1 else (9 if mono else 17)
    tag = pos + 4 + side
    if raw[tag : tag + 4] in (b"Xing", b"Info") and len(raw) >= tag + 12:
        flags = struct.unpack(">I", raw[tag + 4 : tag + 8])[0]
        if flags & 1:
            frames = struct.unpack(">I", raw[tag + 8 : tag + 12])[0]
            return frames * samples * 1000 // rate
    if not bitrate:
        return 0
    return (len(raw) - pos) * 8 * 1000 // bitrate


def read_mp3(raw: bytes) -> Tags:
    """Title, artist, album and length of an MP3 file's bytes (``None`` where it has no tag)."""
    frames, end = _id3(raw)
    return Tags(frames.get("TIT2"), frames.get("TPE1"), frames.get("TALB"), _duration(raw, end))


def _frame(fid: str, text: str) -> bytes:
    body = b"\x03" + text.encode("utf-8") + b"\x00"
    n = len(body)
    size = bytes(((n >> 21) & 127, (n >> 14) & 127, (n >> 7) & 127, n & 127))
    return fid.encode("ascii") + size + b"\x00\x00" + body


def make_mp3(title: str, artist: str, duration_ms: int) -> bytes:
    """A small MP3 as the media scanner reads one: an ID3v2.4 tag (``TIT2`` title, ``TPE1``
    artist, ``TSSE`` encoder) and one MPEG-1 layer III frame (128 kbit/s, 44.1 kHz, mono) whose
    Info header counts the frames of ``duration_ms`` (the length to the nearest frame, 26 ms)."""
    tag = _frame("TPE1", artist) + _frame("TIT2", title) + _frame("TSSE", "Lavf58.76.100")
    n = len(tag)
    head = b"ID3\x04\x00\x00" + bytes(((n >> 21) & 127, (n >> 14) & 127, (n >> 7) & 127, n & 127))
    frames = round(duration_ms * 44100 / 1152 / 1000)
    frame = bytearray(417)
    frame[0:4] = b"\xff\xfb\x90\xc4"
    frame[21:33] = b"Info" + struct.pack(">II", 1, frames)
    return head + tag + bytes(frame)


def put_song(dev: Device, path: str, title: str, artist: str, duration_ms: int, mtime: Any) -> MediaFile:
    """``write_mp3_file_to_device``: the MP3 at ``path`` (below ``/sdcard``) in the media store."""
    return media(dev).add_file(path, make_mp3(title, artist, duration_ms), mtime)


# ----------------------------------------------------------------------------- the library


@dataclass(frozen=True)
class Song:
    """One song as Retro Music's ``Song`` holds it (the media store's audio columns)."""

    id: int
    title: str
    track_number: int
    year: int
    duration: int  # ms
    data: str  # the file's absolute path
    date_modified: int  # seconds
    album_id: int
    album_name: str
    artist_id: int
    artist_name: str
    composer: str | None = None
    album_artist: str | None = None

    def fields(self) -> dict[str, Any]:
        return dict(self.__dict__)


def is_audio(f: MediaFile) -> bool:
    return _audio_path(f.path)


@functools.lru_cache(maxsize=16_384)
def _audio_path(path: str) -> bool:
    """An audio file's extension, outside ``Android/`` (kept per path: read on every build)."""
    return posixpath.splitext(path)[1].lower() in AUDIO_EXTENSIONS and not path.startswith("Android/")


def songs(dev: Device) -> list[Song]:
    """The phone's songs as Retro lists them (title A-Z, then path); ids in the order the media
    store met the files (by time, then path), albums and artists numbered by first appearance.

    Read by every build of Retro's screens: kept under what they are made of (each audio file's
    path, time and content), so a build costs one pass over the files while the library holds."""
    audio = [f for f in media(dev).files.values() if is_audio(f)]
    key = tuple((f.path, f.mtime, f.lines, f.frames, f.raw is None or (len(f.raw), hash(f.raw))) for f in audio)
    kept = _SONGS.get(key)
    if kept is None:
        if len(_SONGS) >= 64:
            _SONGS.clear()
        kept = _SONGS[key] = tuple(_library(audio))
    return list(kept)


_SONGS: dict[tuple, tuple[Song, ...]] = {}


def _library(audio: list[MediaFile]) -> list[Song]:
    files = sorted(audio, key=lambda f: (f.mtime, f.path))
    albums: dict[str, int] = {}
    artists: dict[str, int] = {}
    out = []
    for i, f in enumerate(files, start=1):
        tags = _tags(f)
        title = tags.title or posixpath.splitext(f.name)[0]
        artist = tags.artist or UNKNOWN
        album = tags.album or posixpath.basename(f.folder) or UNKNOWN
        album_id = albums.setdefault(album, len(albums) + 1)
        artist_id = artists.setdefault(artist, len(artists) + 1)
        stamp = int(f.mtime.timestamp())
        out.append(Song(i, title, 0, 0, tags.duration, f"{SDCARD}/{f.path}", stamp, album_id, album, artist_id, artist))
    return sorted(out, key=lambda s: (s.title.lower(), s.data))


_TAGS: dict[tuple, Tags] = {}


def _tags(f: MediaFile) -> Tags:
    key = f.key()
    tags = _TAGS.get(key)
    if tags is None:
        if len(_TAGS) > 512:
            _TAGS.clear()
        tags = _TAGS[key] = read_mp3(f.data()) if f.name.lower().endswith(".mp3") else Tags(None, None, None, 0)
    return tags


def duration_text(ms: int) -> str:
    """``MusicUtil.getReadableDurationString``: ``m:ss`` (``h:mm:ss`` from an hour).

    >>> duration_text(200_000), duration_text(2_850_000), duration_text(3_723_000)
    ('3:20', '47:30', '1:02:03')
    """
    s = ms // 1000
    h, m, sec = s // 3600, s // 60 % 60, s % 60
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{s // 60}:{sec:02d}"


# ----------------------------------------------------------------------------- the app's data


@dataclass
class Playlist:
    """A ``PlaylistEntity`` row."""

    playlist_id: int
    playlist_name: str


@dataclass
class PlaylistSong:
    """A ``SongEntity`` row: a song's fields copied into a playlist."""

    song_key: int
    playlist_creator_id: int
    song: Song


@dataclass
class RetroData:
    """Retro Music's playlists (``playlist.db``) and playing queue (``music_playback_state.db``)."""

    playlists: list[Playlist] = field(default_factory=list)
    entries: list[PlaylistSong] = field(default_factory=list)
    queue: list[Song] = field(default_factory=list)
    original_queue: list[Song] = field(default_factory=list)
    next_playlist: int = 1
    next_key: int = 1
    position: int = -1  # the queue's current song (-1: nothing)

    def playlist(self, name: str) -> Playlist | None:
        """``PlaylistDao.playlist(name)``'s first row (names compared exactly)."""
        return next((p for p in self.playlists if p.playlist_name == name), None)

    def create(self, name: str) -> Playlist:
        p = Playlist(self.next_playlist, name)
        self.next_playlist += 1
        self.playlists.append(p)
        return p

    def add(self, playlist: Playlist, items: list[Song]) -> None:
        """``insertSongsToPlaylist`` (REPLACE on the unique (playlist, song id) index: a song
        already there gets a new key, so it moves to the end)."""
        for s in items:
            self.entries = [
                e for e in self.entries if not (e.playlist_creator_id == playlist.playlist_id and e.song.id == s.id)
            ]
            self.entries.append(PlaylistSong(self.next_key, playlist.playlist_id, s))
            self.next_key += 1

    def songs_of(self, playlist_id: int) -> list[PlaylistSong]:
        return sorted((e for e in self.entries if e.playlist_creator_id == playlist_id), key=lambda e: e.song_key)

    def delete(self, playlist_id: int) -> None:
        self.playlists = [p for p in self.playlists if p.playlist_id != playlist_id]
        self.entries = [e for e in self.entries if e.playlist_creator_id != playlist_id]


def retro(dev: Device) -> RetroData:
    return dev.data("retro")


def m3u(dev: Device, playlist_id: int) -> str:
    """``M3UWriter.writeIO``: the playlist as the file "Save as file" writes (nothing for an
    empty playlist); the length is the song's in milliseconds, as the app writes it."""
    items = retro(dev).songs_of(playlist_id)
    if not items:
        return ""
    lines = ["#EXTM3U"]
    for e in items:
        s = e.song
        lines += [f"#EXTINF:{s.duration},{s.artist_name} - {s.title}", s.data]
    return "\n".join(lines)
