"""Launcher icons: each app's glyph on its adaptive-icon circle, drawn with Pillow's primitives.

A Pixel launcher masks every app icon to a circle; the glyph inside is the app's own picture (a
clock face, a gear, a folder). :func:`draw_app_icon` draws one at any size on anything with
``ImageDraw``'s shape methods (the renderer's op recorder, or an ``ImageDraw.Draw``)::

    >>> from PIL import Image, ImageDraw
    >>> img = Image.new("RGB", (96, 96), "white")
    >>> draw_app_icon(ImageDraw.Draw(img), (0, 0, 96, 96), "clock", (66, 133, 244))
    >>> img.getpixel((48, 4)) == (66, 133, 244)  # the circle's top, in the app's colour
    True

Glyphs are named by :data:`GLYPHS`; an unknown name draws the app's initial in white (the
fallback a launcher shows for an app without an icon).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

Color = tuple[int, int, int]
WHITE: Color = (255, 255, 255)
_INK: Color = (60, 64, 67)  # dark strokes on a white glyph (a clock's hands)


def _shade(c: Color, k: float) -> Color:
    """``c`` darkened (``k`` < 1) or lightened towards white (``k`` > 1)."""
    if k <= 1:
        return (int(c[0] * k), int(c[1] * k), int(c[2] * k))
    t = k - 1
    return (int(c[0] + (255 - c[0]) * t), int(c[1] + (255 - c[1]) * t), int(c[2] + (255 - c[2]) * t))


Quad = tuple[float, float, float, float]  # u0, v0, u1, v1 in glyph units


class _Pen:
    """Draws in glyph units: (0, 0) is the icon's centre and 1 the glyph's size, so a glyph is
    written once for every icon size. ``w`` is the glyph's stroke width in pixels."""

    def __init__(self, d: Any, x: int, y: int, size: int) -> None:
        self.d, self.x, self.y, self.s = d, x, y, size
        self.w = max(1, size // 10)

    def _xy(self, pts: list[tuple[float, float]]) -> list[tuple[float, float]]:
        return [(self.x + self.s * u, self.y + self.s * v) for u, v in pts]

    def _box(self, u0: float, v0: float, u1: float, v1: float) -> tuple[float, float, float, float]:
        return (self.x + self.s * u0, self.y + self.s * v0, self.x + self.s * u1, self.y + self.s * v1)

    def rect(self, u0: float, v0: float, u1: float, v1: float, fill: Color, radius: float = 0.0) -> None:
        if radius:
            self.d.rounded_rectangle(self._box(u0, v0, u1, v1), radius=self.s * radius, fill=fill)
        else:
            self.d.rectangle(self._box(u0, v0, u1, v1), fill=fill)

    def oval(self, u0: float, v0: float, u1: float, v1: float, fill: Color) -> None:
        self.d.ellipse(self._box(u0, v0, u1, v1), fill=fill)

    def dot(self, u: float, v: float, r: float, fill: Color) -> None:
        self.d.ellipse(self._box(u - r, v - r, u + r, v + r), fill=fill)

    def poly(self, pts: list[tuple[float, float]], fill: Color) -> None:
        self.d.polygon(self._xy(pts), fill=fill)

    def line(self, pts: list[tuple[float, float]], fill: Color, width: float = 1.0) -> None:
        self.d.line(self._xy(pts), fill=fill, width=max(1, round(self.w * width)), joint="curve")

    def arc(self, box: Quad, start: float, end: float, fill: Color, width: float = 1.0) -> None:
        self.d.arc(self._box(*box), start, end, fill=fill, width=max(1, round(self.w * width)))

    def chord(self, box: Quad, start: float, end: float, fill: Color) -> None:
        self.d.chord(self._box(*box), start, end, fill=fill)

    def pie(self, box: Quad, start: float, end: float, fill: Color) -> None:
        self.d.pieslice(self._box(*box), start, end, fill=fill)


Glyph = Callable[[_Pen, Color], None]  # draws on the pen, given the app's colour


def _contacts(p: _Pen, c: Color) -> None:
    p.oval(-0.22, -0.42, 0.22, 0.02, WHITE)
    p.chord((-0.42, 0.1, 0.42, 0.9), 180, 360, WHITE)


def _messages(p: _Pen, c: Color) -> None:
    p.rect(-0.48, -0.38, 0.48, 0.28, WHITE, radius=0.14)
    p.poly([(-0.3, 0.2), (-0.32, 0.5), (-0.05, 0.26)], WHITE)
    for u in (-0.22, 0.0, 0.22):
        p.dot(u, -0.05, 0.06, c)


def _calendar(p: _Pen, c: Color) -> None:
    p.rect(-0.45, -0.38, 0.45, 0.48, WHITE, radius=0.08)
    p.rect(-0.45, -0.38, 0.45, -0.16, _shade(c, 0.75))
    for u in (-0.24, 0.24):
        p.line([(u, -0.5), (u, -0.3)], WHITE)
    for row in range(3):
        for col in range(4):
            u, v = -0.3 + col * 0.2, -0.02 + row * 0.15
            p.rect(u - 0.04, v - 0.04, u + 0.04, v + 0.04, c)


def _clock(p: _Pen, c: Color) -> None:
    p.oval(-0.5, -0.5, 0.5, 0.5, WHITE)
    for k in range(12):
        a, r0 = k * math.pi / 6, 0.36 if k % 3 else 0.32
        p.line([(r0 * math.sin(a), -r0 * math.cos(a)), (0.42 * math.sin(a), -0.42 * math.cos(a))], _INK, 0.4)
    p.line([(0, 0), (0.2, -0.12)], _INK)  # ten past ten
    p.line([(0, 0), (-0.22, -0.26)], c, 0.7)


def _markor(p: _Pen, c: Color) -> None:
    p.rect(-0.36, -0.46, 0.3, 0.46, WHITE, radius=0.06)
    for k in range(4):
        v = -0.24 + k * 0.16
        p.line([(-0.24, v), (0.18 if k < 3 else 0.0, v)], c, 0.5)
    p.poly([(0.44, -0.3), (0.54, -0.2), (0.16, 0.34), (0.06, 0.24)], _INK)  # a pen across the page


def _expense(p: _Pen, c: Color) -> None:
    p.rect(-0.5, -0.32, 0.5, 0.36, WHITE, radius=0.1)  # a wallet
    p.rect(0.12, -0.1, 0.56, 0.14, _shade(c, 1.5), radius=0.08)
    p.dot(0.3, 0.02, 0.07, c)
    p.line([(-0.44, -0.18), (0.44, -0.18)], c, 0.5)


def _tasks(p: _Pen, c: Color) -> None:
    p.line([(-0.38, 0.02), (-0.1, 0.3), (0.42, -0.28)], WHITE, 2.0)


def _settings(p: _Pen, c: Color) -> None:
    teeth = []
    for k in range(16):
        a, r = k * math.pi / 8 + math.pi / 16, 0.5 if k % 2 == 0 else 0.36
        teeth += [(r * math.cos(a + da), r * math.sin(a + da)) for da in (-0.16, 0.16)]
    p.poly(teeth, WHITE)
    p.dot(0, 0, 0.16, c)


def _gallery(p: _Pen, c: Color) -> None:
    p.rect(-0.48, -0.38, 0.48, 0.38, WHITE, radius=0.08)
    p.poly([(-0.4, 0.3), (-0.1, -0.08), (0.12, 0.3)], c)  # two hills and a sun
    p.poly([(-0.02, 0.3), (0.2, 0.02), (0.42, 0.3)], _shade(c, 0.7))
    p.dot(0.22, -0.2, 0.09, c)


def _vlc(p: _Pen, c: Color) -> None:
    p.poly([(0, -0.5), (0.34, 0.3), (-0.34, 0.3)], WHITE)  # a traffic cone, striped
    for v0, v1 in ((-0.22, -0.1), (0.04, 0.16)):
        h0, h1 = 0.34 * (v0 + 0.5) / 0.8, 0.34 * (v1 + 0.5) / 0.8
        p.poly([(-h0, v0), (h0, v0), (h1, v1), (-h1, v1)], c)
    p.rect(-0.46, 0.28, 0.46, 0.42, WHITE, radius=0.05)


def _camera(p: _Pen, c: Color) -> None:
    p.rect(-0.5, -0.26, 0.5, 0.4, WHITE, radius=0.1)
    p.rect(-0.18, -0.38, 0.18, -0.24, WHITE)
    p.oval(-0.24, -0.16, 0.24, 0.32, c)
    p.oval(-0.13, -0.05, 0.13, 0.21, _shade(c, 1.6))


def _phone(p: _Pen, c: Color) -> None:
    p.line([(-0.36, -0.3), (-0.22, 0.04), (0.04, 0.24), (0.3, 0.34)], WHITE, 2.0)  # a handset
    p.rect(-0.46, -0.46, -0.2, -0.24, WHITE, radius=0.06)
    p.rect(0.18, 0.2, 0.44, 0.44, WHITE, radius=0.06)


def _files(p: _Pen, c: Color) -> None:
    p.rect(-0.5, -0.36, -0.04, -0.12, WHITE, radius=0.06)  # a folder and its tab
    p.rect(-0.5, -0.24, 0.5, 0.38, WHITE, radius=0.08)
    p.line([(-0.5, -0.12), (0.5, -0.12)], _shade(c, 1.6), 0.5)


def _broccoli(p: _Pen, c: Color) -> None:
    p.poly([(-0.1, 0), (0.1, 0), (0.14, 0.5), (-0.14, 0.5)], WHITE)
    for u, v, r in (
        (-0.24, -0.06, 0.2),
        (0.24, -0.06, 0.2),
        (0.0, -0.26, 0.24),
        (-0.12, 0.06, 0.14),
        (0.12, 0.06, 0.14),
    ):
        p.dot(u, v, r, WHITE)


def _joplin(p: _Pen, c: Color) -> None:
    p.line([(0.14, -0.44), (0.14, 0.14)], WHITE, 2.0)  # a J
    p.arc((-0.42, -0.14, 0.28, 0.44), 0, 180, WHITE, 2.0)


def _music(p: _Pen, c: Color) -> None:
    p.oval(-0.34, 0.1, -0.02, 0.38, WHITE)  # a quaver
    p.line([(-0.04, 0.24), (-0.04, -0.42)], WHITE)
    p.poly([(-0.04, -0.42), (0.34, -0.26), (0.34, -0.1), (-0.04, -0.24)], WHITE)


def _recorder(p: _Pen, c: Color) -> None:
    p.rect(-0.15, -0.46, 0.15, 0.1, WHITE, radius=0.15)  # a microphone on its stand
    p.arc((-0.28, -0.3, 0.28, 0.26), 0, 180, WHITE)
    p.line([(0, 0.26), (0, 0.44)], WHITE)
    p.line([(-0.16, 0.44), (0.16, 0.44)], WHITE)


def _draw(p: _Pen, c: Color) -> None:
    p.oval(-0.46, -0.4, 0.46, 0.4, WHITE)  # a palette
    for u, v, col in ((-0.22, -0.14, (66, 133, 244)), (0.02, -0.24, (251, 188, 4)), (0.24, -0.08, (52, 168, 83))):
        p.dot(u, v, 0.09, col)
    p.dot(-0.1, 0.14, 0.1, c)


def _tracks(p: _Pen, c: Color) -> None:
    p.line([(-0.4, 0.34), (-0.1, -0.04), (0.1, 0.14), (0.4, -0.34)], WHITE)  # a route, start to end
    p.dot(-0.4, 0.34, 0.1, WHITE)
    p.dot(0.4, -0.34, 0.1, WHITE)


def _osmand(p: _Pen, c: Color) -> None:
    p.oval(-0.3, -0.46, 0.3, 0.14, WHITE)  # a map pin
    p.poly([(-0.26, -0.06), (0.26, -0.06), (0, 0.46)], WHITE)
    p.oval(-0.12, -0.28, 0.12, -0.04, c)


def _miniwob(p: _Pen, c: Color) -> None:
    p.rect(-0.5, -0.4, 0.5, 0.4, WHITE, radius=0.06)  # a page with a pointer on it
    p.rect(-0.5, -0.4, 0.5, -0.22, _INK)
    p.poly([(-0.08, -0.1), (-0.08, 0.32), (0.02, 0.22), (0.1, 0.36), (0.16, 0.32), (0.08, 0.18), (0.2, 0.16)], _INK)


def _chrome(p: _Pen, c: Color) -> None:
    whole = (-0.5, -0.5, 0.5, 0.5)
    p.pie(whole, -150, -30, (234, 67, 53))  # red on top (Pillow: degrees clockwise from 3 o'clock)
    p.pie(whole, -30, 90, (251, 188, 4))  # yellow, lower right
    p.pie(whole, 90, 210, (52, 168, 83))  # green, lower left
    p.dot(0, 0, 0.24, WHITE)
    p.dot(0, 0, 0.18, (66, 133, 244))


#: glyph name -> drawing; an app names its glyph in ``App.icon``
GLYPHS: dict[str, Glyph] = {
    "contacts": _contacts,
    "messages": _messages,
    "calendar": _calendar,
    "clock": _clock,
    "markor": _markor,
    "expense": _expense,
    "tasks": _tasks,
    "settings": _settings,
    "gallery": _gallery,
    "vlc": _vlc,
    "camera": _camera,
    "phone": _phone,
    "files": _files,
    "broccoli": _broccoli,
    "joplin": _joplin,
    "music": _music,
    "recorder": _recorder,
    "draw": _draw,
    "tracks": _tracks,
    "osmand": _osmand,
    "miniwob": _miniwob,
    "chrome": _chrome,
}

#: glyphs drawn on a white circle (their own colours carry the brand, as Chrome's does)
ON_WHITE = frozenset({"chrome"})


def draw_app_icon(d: Any, box: tuple[int, int, int, int], glyph: str, color: Color) -> None:
    """Draw app icon ``glyph`` filling ``box`` on ``d``: a circle in ``color`` (white for the
    glyphs of :data:`ON_WHITE`), the glyph inside at 62% of its diameter. An unknown glyph draws
    the circle alone: the caller writes the app's initial over it."""
    l, t, r, b = box
    size = min(r - l, b - t)
    x, y, half = (l + r) // 2, (t + b) // 2, size // 2
    if half < 2:
        return  # smaller than a few pixels: nothing to draw
    d.ellipse((x - half, y - half, x + half - 1, y + half - 1), fill=WHITE if glyph in ON_WHITE else color)
    draw = GLYPHS.get(glyph)
    if draw is not None:
        draw(_Pen(d, x, y, size * 62 // 100), color)
