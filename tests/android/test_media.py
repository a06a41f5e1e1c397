"""The phone's shared media store: pictures and videos the phone draws, files pushed over adb,
the MP4s it writes, and the folders the served phone mounts."""

from __future__ import annotations

import datetime as dt
import io
import struct
from collections.abc import Iterator
from pathlib import Path

import pytest
from _adb import adb
from PIL import Image

from gui_gym.android.sim.adb.server import AdbServer, serve_adb
from gui_gym.android.sim.adb.shell import Shell
from gui_gym.android.sim.device import Device
from gui_gym.android.sim.media import MEDIA, MediaStore, media, mp4_duration
from gui_gym.android.sim.render import Renderer
from gui_gym.android.ui import Node

NOW = dt.datetime(2023, 10, 15, 15, 34)


def test_a_drawn_picture_is_a_real_png_or_jpeg_of_its_lines() -> None:
    store = MediaStore()
    png = store.add_image("DCIM/a.png", ("Total: $12.00",), NOW)
    jpg = store.add_image("DCIM/b.jpg", ("one", "two"), NOW, size=(300, 200))
    with Image.open(io.BytesIO(png.data())) as im:
        assert im.format == "PNG" and im.getextrema() != ((255, 255),) * 3  # text drawn on white
    with Image.open(io.BytesIO(jpg.data())) as im:
        assert im.format == "JPEG" and im.size == (300, 200)
    assert store.folder("DCIM", "image")[0].kind == "image" and store.dirs >= {"DCIM", "Download"}


def test_a_pushed_picture_decodes_and_garbage_does_not() -> None:
    buf = io.BytesIO()
    Image.new("RGB", (40, 20), (255, 0, 0)).save(buf, format="PNG")
    store = MediaStore()
    red = store.add_file("Pictures/red.png", buf.getvalue(), NOW)
    assert red.picture() is not None and red.picture().getpixel((3, 3)) == (255, 0, 0)
    bad = store.add_file("Pictures/bad.jpg", b"\xff\xd8 not a jpeg", NOW)
    assert bad.picture() is None  # shown as undecodable, never an exception
    assert store.add_file("Download/x.mp4", b"garbage", NOW).duration() == 0


def test_a_made_video_is_an_mp4_whose_header_gives_its_length() -> None:
    """Worked example: frames ("edna", 8 s) and ("pineapple", 8 s) are 16 one-second samples at a
    timescale of 1000, so the movie header holds duration 16000 and the length is 16 s."""
    v = MediaStore().add_video("Download/clip.mp4", [("edna", 8), ("pineapple", 8)], NOW)
    raw = v.data()
    assert raw[4:8] == b"ftyp" and b"moov" in raw and b"mdat" in raw
    mvhd = raw.index(b"mvhd")
    scale, duration = struct.unpack(">II", raw[mvhd + 16 : mvhd + 24])
    assert (scale, duration) == (1000, 16000) and mp4_duration(raw) == 16
    assert [v.frame_at(s) for s in (0, 7.9, 8, 15.9, 16)] == ["edna", "edna", "pineapple", "pineapple", None]
    stsz = raw.index(b"stsz")
    assert struct.unpack(">I", raw[stsz + 12 : stsz + 16])[0] == 16  # one sample per second
    assert mp4_duration(raw[:40]) == 0 and mp4_duration(b"") == 0


def test_the_picture_role_paints_the_picture_and_nothing_of_it_is_in_the_tree() -> None:
    f = MediaStore().add_image("DCIM/r.png", ("SECRET 42",), NOW)
    node = Node("android.widget.ImageView", (0, 0, 1080, 1200), role="picture", picture=f.picture,
                style=("fit", f.path))  # fmt: skip
    pixels = Renderer((270, 600)).render(Node("android.widget.FrameLayout", (0, 0, 1080, 2400), children=[node]))
    top = pixels[:300]
    assert (top == 255).all(axis=2).any() and (top < 64).all(axis=2).any()  # white picture on black
    assert node.text == "" and node.desc == "" and node.to_dict()["is_editable"] is False


@pytest.fixture
def sh() -> Shell:
    device = Device()
    device.reset(now=NOW)
    return Shell(device)


def test_the_shell_mounts_the_media_folders(sh: Shell) -> None:
    store = media(sh.device)
    assert sh.device.state.data[MEDIA] is store
    store.add_image("DCIM/receipt.png", ("a",), NOW)
    assert sh.run("ls /sdcard/DCIM").stdout == b"receipt.png\n"
    assert sh.run("rm /sdcard/DCIM/receipt.png").status == 0 and "DCIM/receipt.png" not in store.files
    assert sh.run("mkdir -p /sdcard/DCIM/Camera && echo hi > /sdcard/DCIM/Camera/n.txt").status == 0
    assert store.files["DCIM/Camera/n.txt"].data() == b"hi\n" and "DCIM/Camera" in store.dirs
    assert sh.run("ls /sdcard/Download").stdout == b""


@pytest.fixture
def server() -> Iterator[AdbServer]:
    srv = serve_adb(port=0)
    try:
        yield srv
    finally:
        srv.close()


def test_a_picture_pushed_over_adb_is_in_the_store_and_a_made_video_pulls(server: AdbServer, tmp_path: Path) -> None:
    dev = server.backend.device
    buf = io.BytesIO()
    Image.new("RGB", (64, 32), (0, 0, 255)).save(buf, format="JPEG")
    (tmp_path / "e.jpg").write_bytes(buf.getvalue())
    assert adb(server.port, "push", str(tmp_path / "e.jpg"), "/sdcard/DCIM/expenses.jpg").returncode == 0
    pushed = media(dev).files["DCIM/expenses.jpg"]
    assert pushed.raw == buf.getvalue() and pushed.picture() is not None
    media(dev).add_video("Download/v.mp4", [("x", 3)], NOW)
    assert adb(server.port, "pull", "/sdcard/Download/v.mp4", str(tmp_path / "v.mp4")).returncode == 0
    assert mp4_duration((tmp_path / "v.mp4").read_bytes()) == 3
