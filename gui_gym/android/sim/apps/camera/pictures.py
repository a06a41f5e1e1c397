"""What the camera sees and the pictures its controls are drawn with (Pillow).

The emulator's back camera films a virtual scene (a room); here it is one drawn scene, the same
every time: the viewfinder shows it, a photo is a 3:4 crop of it saved as a JPEG, and a video's
frames show the time they were recorded at. Icons (the shutter, the bottom bar) are pictures too,
so the screenshot shows them while the view tree has only their image views, as on a phone.
"""

from __future__ import annotations

import functools
import io

from PIL import Image, ImageDraw

#: the scene's size (the viewfinder is 1080 x 2190 on screen: drawn at half that, scaled up)
SCENE_SIZE = (540, 1095)
#: a photo's size (the emulated camera's 4:3, portrait)
PHOTO_SIZE = (480, 640)
#: a video's frame size
VIDEO_SIZE = (240, 320)
BAR = (20, 20, 24)  # the bottom bar's colour


@functools.cache
def scene() -> Image.Image:
    """The room the camera looks at: a wall with a window and a picture, a table with a plant
    and a cup on a wooden floor. Shared and read-only."""
    w, h = SCENE_SIZE
    img = Image.new("RGB", (w, h), (222, 214, 196))  # the wall
    d = ImageDraw.Draw(img)
    floor = int(h * 0.62)
    d.rectangle((0, floor, w, h), fill=(150, 108, 72))
    for x in range(-h, w, 60):  # floor boards
        d.line((x, h, x + (h - floor) // 2, floor), fill=(128, 90, 58), width=3)
    # the window: sky, sun, a hill
    wx0, wy0, wx1, wy1 = 60, 150, 300, 470
    d.rectangle((wx0, wy0, wx1, wy1), fill=(135, 196, 240))
    d.ellipse((220, 180, 270, 230), fill=(255, 214, 90))
    d.pieslice((wx0 - 80, 380, wx1 + 40, 620), 180, 360, fill=(96, 160, 80))
    d.rectangle((wx0, 470, wx1, wy1), fill=(96, 160, 80))
    d.rectangle((wx0, wy0, wx1, wy1), outline=(250, 250, 250), width=10)
    d.line(((wx0 + wx1) // 2, wy0, (wx0 + wx1) // 2, wy1), fill=(250, 250, 250), width=8)
    d.line((wx0, (wy0 + wy1) // 2, wx1, (wy0 + wy1) // 2), fill=(250, 250, 250), width=8)
    # a framed picture
    d.rectangle((360, 220, 480, 330), fill=(60, 90, 140), outline=(90, 60, 30), width=8)
    d.polygon([(372, 318), (410, 260), (440, 300), (468, 250), (468, 318)], fill=(230, 230, 210))
    # the table, a plant and a cup
    d.rectangle((70, floor - 40, 470, floor - 10), fill=(110, 70, 40))
    d.rectangle((100, floor - 10, 120, floor + 170), fill=(95, 60, 34))
    d.rectangle((420, floor - 10, 440, floor + 170), fill=(95, 60, 34))
    d.polygon([(150, floor - 40), (160, floor - 110), (220, floor - 110), (230, floor - 40)], fill=(196, 90, 60))
    for dx, dy in ((-34, -14), (34, -14), (0, -30), (-20, -58), (22, -62), (0, -88)):
        d.ellipse((190 + dx - 30, floor - 110 + dy - 22, 190 + dx + 30, floor - 110 + dy + 22), fill=(60, 140, 70))
    d.rectangle((330, floor - 95, 380, floor - 40), fill=(240, 240, 245))
    d.arc((365, floor - 85, 400, floor - 55), 270, 90, fill=(240, 240, 245), width=6)
    return img


def photo_jpeg() -> bytes:
    """A photo of the scene: its middle 3:4 part, :data:`PHOTO_SIZE`, as a JPEG."""
    return _photo_jpeg()


@functools.cache
def _photo_jpeg() -> bytes:
    img = scene()
    w, h = img.size
    ch = w * 4 // 3
    top = (h - ch) // 2
    out = io.BytesIO()
    img.crop((0, top, w, top + ch)).resize(PHOTO_SIZE, Image.Resampling.BILINEAR).save(out, "JPEG", quality=88)
    return out.getvalue()


@functools.cache
def solid(color: tuple[int, int, int] = BAR) -> Image.Image:
    return Image.new("RGB", (8, 8), color)


@functools.cache
def shutter(kind: str) -> Image.Image:
    """The shutter button: a white ring with a white disc (photo), a red disc (video) or a red
    square (recording: tap to stop), on the bottom bar's colour."""
    s = 200
    img = Image.new("RGB", (s, s), BAR)
    d = ImageDraw.Draw(img)
    d.ellipse((6, 6, s - 6, s - 6), outline=(255, 255, 255), width=10)
    if kind == "photo":
        d.ellipse((26, 26, s - 26, s - 26), fill=(255, 255, 255))
    elif kind == "video":
        d.ellipse((40, 40, s - 40, s - 40), fill=(219, 68, 55))
    else:
        d.rounded_rectangle((66, 66, s - 66, s - 66), radius=10, fill=(219, 68, 55))
    return img
