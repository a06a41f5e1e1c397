"""The phone's shared media: the pictures and videos under ``/sdcard`` that Gallery, VLC and Camera
show and make.

A :class:`MediaStore` (``dev.state.data[MEDIA]``, one per phone, made fresh at reset) holds every
file under the shared folders :data:`FOLDERS` (``DCIM``, ``Pictures``, ``Movies``, ``Download``,
``Music`` … an emulator's standard folders), keyed by its path below ``/sdcard``
(``"DCIM/receipt.png"``). A :class:`MediaFile` is either

- *made by the phone* (a task's set-up, the camera): it knows what it shows (an image's text
  lines, a video's frames with the text each shows and for how long), and its bytes, a real PNG /
  JPEG drawn with Pillow or an MP4 of JPEG frames, are made the first time something reads them
  (``adb pull``, ``ls -l``), or
- *written from outside* (``adb push``): its bytes are all it has. A picture Pillow can open is
  shown as it is; what a video shows is not decoded (the phone has no video decoder), its length
  comes from the MP4's ``mvhd`` box.

What a picture shows is in the screenshot only, as on a phone: the view hierarchy (and so the
``uiautomator`` dump and the text observation) has an image view with no text, and a task that
asks to read a receipt or a video needs the pixels.

Example:
    >>> import datetime as dt
    >>> store = MediaStore()
    >>> f = store.add_image("DCIM/note.png", ("Hello", "World"), dt.datetime(2023, 10, 15))
    >>> f.kind, f.name, store.folder("DCIM")[0].path
    ('image', 'note.png', 'DCIM/note.png')
    >>> f.data()[:8]
    b'\\x89PNG\\r\\n\\x1a\\n'
    >>> v = store.add_video("Download/clip.mp4", (("edna", 8), ("pineapple", 8)), dt.datetime(2023, 10, 15))
    >>> v.duration(), v.frame_at(9)
    (16, 'pineapple')
    >>> mp4_duration(v.data())
    16
"""

from __future__ import annotations

import datetime as dt
import functools
import io
import posixpath
import struct
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from PIL import Image, ImageDraw, ImageFont

__all__ = [
    "FOLDERS",
    "IMAGE_EXTENSIONS",
    "MEDIA",
    "VIDEO_EXTENSIONS",
    "MediaFile",
    "MediaStore",
    "media",
    "mp4_duration",
    "standard_dirs",
]

#: the key of the store in ``DeviceState.data``
MEDIA = "media"
#: the shared folders the store holds, below ``/sdcard`` (an emulator's standard folders; Markor's
#: notebook under Documents is Markor's own, see gui_gym.android.sim.adb.files)
FOLDERS = (
    "DCIM", "Pictures", "Movies", "Download", "Alarms", "Audiobooks", "Documents", "Music", "Notifications",
    "Podcasts", "Recordings", "Ringtones",
    "Android/data/com.dimowner.audiorecorder/files/Music/records",  # Audio Recorder's recordings
    "VLCVideos",  # AndroidWorld's VLC folder (its set-up makes it)
    "Android/data/net.osmand/files/tracks",  # OsmAnd's saved tracks (GPX)
)  # fmt: skip


def standard_dirs() -> set[str]:
    """Every folder of :data:`FOLDERS` and the folders above them (``Android``, ``Android/data`` …)."""
    out: set[str] = set()
    for folder in FOLDERS:
        while folder:
            out.add(folder)
            folder = posixpath.dirname(folder)
    return out


IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".webp", ".gif", ".bmp")
VIDEO_EXTENSIONS = (".mp4", ".3gp", ".mkv", ".webm", ".mov", ".avi")
#: the most bytes of one file Pillow is asked to open (a larger picture is shown as undecodable)
MAX_PICTURE_BYTES = 32 * 1024 * 1024
_PICTURES: OrderedDict[tuple, Image.Image | None] = OrderedDict()  # decoded or drawn, LRU
_PICTURE_CACHE = 64
_FONT_PX = 24


def _font(px: int = _FONT_PX) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    return ImageFont.load_default(size=px)


@functools.lru_cache(maxsize=16_384)
def _split(path: str) -> tuple[str, str, str]:
    """A path's folder, name and kind, kept per path: apps list the store's files on every build."""
    name = posixpath.basename(path)
    ext = posixpath.splitext(name)[1].lower()
    kind = "image" if ext in IMAGE_EXTENSIONS else "video" if ext in VIDEO_EXTENSIONS else "other"
    return posixpath.dirname(path), name, kind


@dataclass
class MediaFile:
    """One file of shared storage: its path below ``/sdcard``, its time, and its bytes or what the
    phone drew it from."""

    path: str
    mtime: dt.datetime
    raw: bytes | None = None  # the bytes of a file written from outside (None: made by the phone)
    lines: tuple[str, ...] = ()  # a picture the phone drew: its text, line by line
    frames: tuple[tuple[str, int], ...] = ()  # a video the phone made: (text shown, seconds) each
    size: tuple[int, int] = (0, 0)  # a drawn picture's or a made video's width and height
    #: a made file's bytes, encoded the first time they are read (what it shows stays its lines)
    encoded: bytes | None = field(default=None, compare=False, repr=False)

    @property
    def name(self) -> str:
        return _split(self.path)[1]

    @property
    def folder(self) -> str:
        return _split(self.path)[0]

    @property
    def kind(self) -> str:
        """``"image"``, ``"video"`` or ``"other"``, by the name's extension (as the media scanner)."""
        return _split(self.path)[2]

    def data(self) -> bytes:
        """The file's bytes (a drawn picture or made video is encoded once, then kept)."""
        if self.raw is not None:
            return self.raw
        if self.encoded is None:
            if self.kind == "video":
                self.encoded = _mp4(self.frames, self.size)
            else:
                self.encoded = _encode(self.picture() or Image.new("RGB", (1, 1), "white"), self.name)
        return self.encoded

    def key(self) -> tuple:
        """What names the file's content for caches (a renderer's ``style`` key): path, time, and
        its lines and frames or its bytes' length and hash."""
        content: Any = (self.lines, self.frames)
        if self.raw is not None:
            content = (len(self.raw), hash(self.raw))
        return (self.path, self.mtime.isoformat(), content, self.size)

    def picture(self) -> Image.Image | None:
        """What the file shows as a picture (an RGB image; a video's first frame), or ``None``
        where the phone cannot decode it. Shared and read-only: copy before drawing on it."""
        if self.kind == "video":
            return _frame(self.frame_at(0), self.size) if self.frames else None
        if self.raw is None:  # by content: files showing the same lines share one picture
            return _cached(("lines", self.lines, self.size), lambda: _draw_lines(self.lines, self.size))
        raw = self.raw
        return _cached(("raw", len(raw), hash(raw)), lambda: _decode(raw))

    def duration(self) -> int:
        """A video's length in whole seconds (0 where it has none the phone can read)."""
        if self.frames:
            return sum(s for _, s in self.frames)
        return mp4_duration(self.raw) if self.raw is not None and self.kind == "video" else 0

    def frame_at(self, second: float) -> str | None:
        """The text of a made video's frame at ``second`` (``None``: past its end, or not made
        by the phone)."""
        t = 0
        for text, seconds in self.frames:
            t += seconds
            if second < t:
                return text
        return None

    def frame_picture(self, second: float) -> Image.Image | None:
        """The picture of the frame at ``second`` (``None`` where the phone cannot decode it)."""
        text = self.frame_at(min(second, max(0, self.duration() - 1)))
        return None if text is None else _frame(text, self.size)


@dataclass
class MediaStore:
    """The files of the shared media folders, by path below ``/sdcard``."""

    files: dict[str, MediaFile] = field(default_factory=dict)
    dirs: set[str] = field(default_factory=standard_dirs)

    def add(self, f: MediaFile) -> MediaFile:
        folder = f.folder
        while folder and folder not in self.dirs:
            self.dirs.add(folder)
            folder = posixpath.dirname(folder)
        self.files[f.path] = f
        return f

    def add_image(
        self, path: str, lines: tuple[str, ...] | list[str], mtime: dt.datetime, size: tuple[int, int] = (0, 0)
    ) -> MediaFile:
        """A picture of ``lines`` of black text on white (``size`` (0, 0): fitted to the text)."""
        return self.add(MediaFile(path, mtime, lines=tuple(lines), size=size))

    def add_video(
        self, path: str, frames: tuple[tuple[str, int], ...] | list[tuple[str, int]], mtime: dt.datetime,
        size: tuple[int, int] = (320, 240),
    ) -> MediaFile:  # fmt: skip
        """A video showing each ``(text, seconds)`` of ``frames`` in turn."""
        return self.add(MediaFile(path, mtime, frames=tuple((str(t), int(s)) for t, s in frames), size=size))

    def add_file(self, path: str, raw: bytes, mtime: dt.datetime) -> MediaFile:
        return self.add(MediaFile(path, mtime, raw=bytes(raw)))

    def remove(self, path: str) -> None:
        self.files.pop(path, None)

    def clear(self, folder: str) -> None:
        """Remove everything below ``folder`` (the folder itself stays)."""
        prefix = folder.rstrip("/") + "/"
        for p in [p for p in self.files if p.startswith(prefix)]:
            del self.files[p]
        self.dirs = {d for d in self.dirs if not d.startswith(prefix)}

    def folder(self, folder: str, kind: str | None = None) -> list[MediaFile]:
        """The files directly in ``folder`` (of ``kind`` if given), newest first, then by name."""
        out = [f for f in self.files.values() if f.folder == folder and (kind is None or f.kind == kind)]
        return sorted(out, key=lambda f: (-f.mtime.timestamp(), f.name))

    def of_kind(self, kind: str) -> list[MediaFile]:
        """Every file of ``kind`` (``"image"`` / ``"video"``), newest first, then by path."""
        out = [f for f in self.files.values() if f.kind == kind]
        return sorted(out, key=lambda f: (-f.mtime.timestamp(), f.path))


def media(dev: Any) -> MediaStore:
    """The phone's media store (``dev`` a :class:`~gui_gym.android.sim.device.Device`)."""
    store = dev.state.data.get(MEDIA)
    if store is None:
        store = dev.state.data[MEDIA] = MediaStore()
    return store


# ----------------------------------------------------------------------------- pictures


def _cached(key: tuple, make: Any) -> Image.Image | None:
    """A drawn or decoded picture, kept in a small LRU (pictures are shared and read-only)."""
    if key in _PICTURES:
        _PICTURES.move_to_end(key)
        return _PICTURES[key]
    pic = _PICTURES[key] = make()
    while len(_PICTURES) > _PICTURE_CACHE:
        _PICTURES.popitem(last=False)
    return pic


def _draw_lines(lines: tuple[str, ...], size: tuple[int, int]) -> Image.Image:
    font = _font()
    pad, step = 20, _FONT_PX + 8
    w, h = size
    if not w or not h:
        widest = max((int(font.getlength(s)) for s in lines), default=0)
        w, h = w or max(200, widest + 2 * pad), h or max(100, 2 * pad + step * len(lines))
    img = Image.new("RGB", (w, h), "white")
    draw = ImageDraw.Draw(img)
    for i, text in enumerate(lines):
        draw.text((pad, pad + i * step), text, fill="black", font=font)
    return img


def _frame(text: str | None, size: tuple[int, int]) -> Image.Image:
    """A made video's frame: its text in yellow on a dark ground (AndroidWorld's videos draw it in
    yellow over noise, at the left, half-way down)."""
    return _cached(("frame", text, size), lambda: _draw_frame(text, size))  # type: ignore[return-value]


def _draw_frame(text: str | None, size: tuple[int, int]) -> Image.Image:
    w, h = size if size[0] and size[1] else (320, 240)
    img = Image.new("RGB", (w, h), (40, 40, 48))
    if text:
        ImageDraw.Draw(img).text((50, h // 2 - _FONT_PX), text, fill=(255, 255, 0), font=_font())
    return img


def _decode(raw: bytes) -> Image.Image | None:
    if len(raw) > MAX_PICTURE_BYTES:
        return None
    try:
        with Image.open(io.BytesIO(raw)) as im:
            im.draft("RGB", (1080, 2400))  # a JPEG is decoded at a reduced scale where it can be
            return im.convert("RGB")
    except (OSError, ValueError, SyntaxError, Image.DecompressionBombError):
        return None


def _encode(img: Image.Image, name: str) -> bytes:
    out = io.BytesIO()
    ext = posixpath.splitext(name)[1].lower()
    fmt = {".jpg": "JPEG", ".jpeg": "JPEG", ".webp": "WEBP", ".gif": "GIF", ".bmp": "BMP"}.get(ext, "PNG")
    img.save(out, format=fmt)
    return out.getvalue()


# ----------------------------------------------------------------------------- MP4


def _box(kind: bytes, *parts: bytes) -> bytes:
    body = b"".join(parts)
    return struct.pack(">I", 8 + len(body)) + kind + body


def _full(kind: bytes, version_flags: int, *parts: bytes) -> bytes:
    return _box(kind, struct.pack(">I", version_flags), *parts)


def _mp4(frames: tuple[tuple[str, int], ...], size: tuple[int, int]) -> bytes:
    """An MP4 (ISO base media file) of one JPEG frame per second of ``frames``: a video track of
    MPEG-4 ``mp4v`` sample entries whose decoder config says JPEG (object type 0x6C), which players
    such as VLC and ffmpeg show."""
    w, h = size if size[0] and size[1] else (320, 240)
    samples: list[bytes] = []
    cache: dict[str, bytes] = {}
    for text, seconds in frames:
        if text not in cache:
            cache[text] = _encode(_frame(text, (w, h)), "f.jpg")
        samples += [cache[text]] * max(0, seconds)
    n, scale = len(samples), 1000
    duration = n * scale
    matrix = struct.pack(">9I", 0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000)
    mvhd = _full(b"mvhd", 0, struct.pack(">IIII", 0, 0, scale, duration), struct.pack(">IH", 0x10000, 0x100),
                 bytes(10), matrix, bytes(24), struct.pack(">I", 2))  # fmt: skip
    tkhd = _full(b"tkhd", 3, struct.pack(">IIIII", 0, 0, 1, 0, duration), bytes(8), struct.pack(">HHHH", 0, 0, 0, 0),
                 matrix, struct.pack(">II", w << 16, h << 16))  # fmt: skip
    mdhd = _full(b"mdhd", 0, struct.pack(">IIII", 0, 0, scale, duration), struct.pack(">HH", 0x55C4, 0))
    hdlr = _full(b"hdlr", 0, bytes(4), b"vide", bytes(12), b"VideoHandler\x00")
    dinf = _box(b"dinf", _full(b"dref", 0, struct.pack(">I", 1), _full(b"url ", 1)))
    dec_specific = b""
    dcd = bytes([0x04, 13 + len(dec_specific), 0x6C, 0x11]) + bytes(3) + struct.pack(">II", 0, 0)
    esd = bytes([0x03, 3 + len(dcd) + 3]) + struct.pack(">HB", 1, 0) + dcd + bytes([0x06, 1, 0x02])
    esds = _full(b"esds", 0, esd)
    mp4v = _box(b"mp4v", bytes(6), struct.pack(">H", 1), bytes(16), struct.pack(">HH", w, h),
                struct.pack(">II", 0x480000, 0x480000), bytes(4), struct.pack(">H", 1), bytes(32),
                struct.pack(">hh", 24, -1), esds)  # fmt: skip
    stsd = _full(b"stsd", 0, struct.pack(">I", 1), mp4v)
    stts = _full(b"stts", 0, struct.pack(">III", 1, n, scale))
    stsc = _full(b"stsc", 0, struct.pack(">IIII", 1, 1, 1, 1))
    stsz = _full(b"stsz", 0, struct.pack(">II", 0, n), b"".join(struct.pack(">I", len(s)) for s in samples))

    def moov(first: int) -> bytes:
        offsets, pos = [], first
        for s in samples:
            offsets.append(pos)
            pos += len(s)
        stco = _full(b"stco", 0, struct.pack(">I", n), b"".join(struct.pack(">I", o) for o in offsets))
        stbl = _box(b"stbl", stsd, stts, stsc, stsz, stco)
        minf = _box(b"minf", _full(b"vmhd", 1, bytes(8)), dinf, stbl)
        trak = _box(b"trak", tkhd, _box(b"mdia", mdhd, hdlr, minf))
        return _box(b"moov", mvhd, trak)

    ftyp = _box(b"ftyp", b"isom", struct.pack(">I", 0x200), b"isomiso2mp41")
    head = len(ftyp) + len(moov(0)) + 8  # moov's size does not depend on the offsets it holds
    return ftyp + moov(head) + struct.pack(">I", 8 + sum(map(len, samples))) + b"mdat" + b"".join(samples)


def mp4_duration(raw: bytes | None) -> int:
    """The length in whole seconds an MP4's movie header (``moov/mvhd``) gives (0: none found)."""
    if not raw:
        return 0
    pos, end = 0, len(raw)
    while pos + 8 <= end:
        size, kind = struct.unpack(">I4s", raw[pos : pos + 8])
        head = 8
        if size == 1 and pos + 16 <= end:
            size, head = struct.unpack(">Q", raw[pos + 8 : pos + 16])[0], 16
        elif size == 0:
            size = end - pos
        if size < head:
            return 0
        if kind == b"moov":
            end, pos = min(pos + size, len(raw)), pos + head  # look inside (a cut file: as far as it goes)
            continue
        if kind == b"mvhd":
            body = raw[pos + head : pos + size]
            if len(body) < 4:
                return 0
            if body[0] == 1 and len(body) >= 32:
                scale, duration = struct.unpack(">IQ", body[20:32])
            elif len(body) >= 20:
                scale, duration = struct.unpack(">II", body[12:20])
            else:
                return 0
            return int(duration // scale) if scale else 0
        pos += size
    return 0
