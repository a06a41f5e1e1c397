"""Screenshots drawn with Pillow from the same view tree the XML dump describes.

Every visible node is painted by its ``role`` (button, field, switch, list row, app icon,
dialog panel, keyboard, toast …) at the requested resolution, with Pillow's embedded
FreeType font, so text is legible and what a pixel agent sees matches the dump exactly.

A :class:`Renderer` draws each frame incrementally, byte-identical to painting the whole tree
afresh (``tests/android/test_render.py`` holds it to that):

* Compiled nodes. A node is compiled once per content (role, bounds, text, state, style) and
  theme into an :class:`_Item`: the Pillow calls that paint it, its labels already rasterised
  (FreeType is the costliest call; the label masks are shared by every renderer), and the box
  each call's pixels can reach. Screens are rebuilt every step but repeat their nodes, so a
  frame is mostly a list of items compiled before.
* Bands. The frame's rows are cut into bands, and a band's pixels are a function of the items
  that reach it, in paint order, and of the theme. A band whose items are the last frame's is
  kept; one seen a few frames ago comes from an LRU cache of bands (a dialog closing, Back, the
  home screen after a reset); only the others are repainted, adjacent ones together.
* Exact repaints. Every Pillow call used writes each pixel from that pixel alone (no
  anti-aliasing; a label blends with what is under it, a dialog's scrim darkens it), so rows are
  repainted exactly by filling them with the background and replaying, in paint order, every
  call that reaches them. Calls run unclipped on one persistent scratch canvas (where Pillow
  puts a shape's pixels must not depend on a clip), except fills and the scrim, the large ones,
  which are clipped to the rows: for them it cannot matter.
* No whole-image conversion. Only repainted bands leave Pillow, each as one ``bytes``, and each
  call returns a fresh array assembled from the bands' bytes in one pass: the caller's own,
  never written to again.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from gui_gym.android.sim.icons import GLYPHS, draw_app_icon
from gui_gym.android.ui import SCREEN_H, SCREEN_W, Node

ACCENT = (26, 115, 232)
# Label masks are shared by every renderer in the process and bounded by their pixels (64 MB);
# compiled nodes are kept per renderer and theme (they hold their masks, so a renderer's items
# reach about as far again at full resolution).
_TEXT_CACHE_BYTES = 64 * 1024 * 1024
_ITEM_CACHE_SIZE = 4096
#: the most bytes of scaled pictures a renderer keeps (thumbnails and viewers scrolled or shown again)
_SCALED_BYTES = 16 * 1024 * 1024
_BANDS = 24  # the frame's rows are cached and repainted in this many bands
_CACHE_FRAMES = 8  # default budget of a renderer's band cache, in whole frames
LIGHT = {
    "bg": (255, 255, 255),
    "fg": (32, 33, 36),
    "sub": (95, 99, 104),
    "line": (218, 220, 224),
    "bar": (241, 243, 244),
    "panel": (255, 255, 255),
    "hint": (154, 160, 166),
}
DARK = {
    "bg": (32, 33, 36),
    "fg": (232, 234, 237),
    "sub": (170, 174, 180),
    "line": (70, 72, 76),
    "bar": (45, 46, 49),
    "panel": (48, 49, 52),
    "hint": (120, 124, 130),
}


#: label masks by (text, font size, anchor): see :meth:`Renderer._glyphs`
_text_cache: dict[tuple[str, int, str], tuple[Image.Image | None, tuple[int, int]]] = {}
_text_bytes = 0  # the masks' pixels in _text_cache

Box = tuple[int, int, int, int]  # left, top, right, bottom; right and bottom exclusive

# Ops, as (kind, reach, *payload): ``reach`` bounds every pixel the op can write.
_FILL = 0  # (_FILL, reach, colour): a plain rectangle, exactly its reach
_DRAW = 1  # (_DRAW, reach, ImageDraw method, args, kwargs)
_PASTE = 2  # (_PASTE, reach, colour, "L" mask the size of reach): a label
_SHADE = 3  # (_SHADE, reach, lookup table): the dimming under a dialog


class _Item:
    """One node, compiled: the ops that paint it, the union of their reaches, and the bands of
    rows that union meets (set by the renderer).

    Compared by identity: a renderer compiles each content once, so two frames hold the same
    item only where they paint the same pixels the same way (after the compile cache is cleared,
    the same content gets a new item: a needless repaint, never a wrong frame).
    """

    __slots__ = ("bands", "ops", "reach")

    def __init__(self, reach: Box, ops: tuple[tuple, ...]) -> None:
        self.reach, self.ops = reach, ops
        self.bands = range(0)


_NOTHING = _Item((0, 0, 0, 0), ())


class _Recorder:
    """Stands in for ``ImageDraw.Draw`` while a node is compiled: keeps each call as an op, and
    the box it can reach (the shape's box or points, widened by its stroke and a pixel of slack)."""

    def __init__(self, draw: ImageDraw.ImageDraw) -> None:
        self.draw = draw
        self.ops: list[tuple] = []

    def _call(self, fn: Any, xy: Any, pad: int, args: tuple = (), **kw: Any) -> None:
        flat = [v for p in xy for v in (p if isinstance(p, tuple | list) else (p,))]
        xs, ys = flat[0::2], flat[1::2]
        reach = (
            math.floor(min(xs)) - pad,
            math.floor(min(ys)) - pad,
            math.ceil(max(xs)) + pad + 1,
            math.ceil(max(ys)) + pad + 1,
        )
        self.ops.append((_DRAW, reach, fn, (xy, *args), kw))

    def rectangle(self, xy: Box, fill: Any = None, outline: Any = None, width: int = 1) -> None:
        x0, y0, x1, y1 = xy
        if outline is None and fill is not None and x0 <= x1 and y0 <= y1 and all(type(v) is int for v in xy):
            self.ops.append((_FILL, (x0, y0, x1 + 1, y1 + 1), fill))
        else:
            self._call(self.draw.rectangle, xy, 1, fill=fill, outline=outline, width=width)

    def rounded_rectangle(self, xy: Any, **kw: Any) -> None:
        self._call(self.draw.rounded_rectangle, xy, 1, **kw)

    def ellipse(self, xy: Any, **kw: Any) -> None:
        self._call(self.draw.ellipse, xy, 1, **kw)

    def arc(self, xy: Any, start: float, end: float, **kw: Any) -> None:
        self._call(self.draw.arc, xy, kw.get("width", 1) + 1, (start, end), **kw)

    def line(self, xy: Any, **kw: Any) -> None:
        self._call(self.draw.line, xy, kw.get("width", 1) + 1, **kw)

    def pieslice(self, xy: Any, start: float, end: float, **kw: Any) -> None:
        self._call(self.draw.pieslice, xy, 1, (start, end), **kw)

    def chord(self, xy: Any, start: float, end: float, **kw: Any) -> None:
        self._call(self.draw.chord, xy, 1, (start, end), **kw)

    def polygon(self, xy: Any, **kw: Any) -> None:
        self._call(self.draw.polygon, xy, kw.get("width", 1) + 1, **kw)

    def paste(self, color: tuple[int, int, int], xy: tuple[int, int], mask: Image.Image) -> None:
        x, y = xy
        self.ops.append((_PASTE, (x, y, x + mask.width, y + mask.height), color, mask))

    def image(self, img: Image.Image, xy: tuple[int, int]) -> None:
        """Paste an RGB picture at ``xy`` (a photo, a video frame)."""
        x, y = xy
        self.ops.append((_PASTE, (x, y, x + img.width, y + img.height), img, None))

    def shade(self, box: Box, lut: list[int]) -> None:
        self.ops.append((_SHADE, box, lut))

    def item(self) -> _Item:
        if not self.ops:
            return _NOTHING
        boxes = [op[1] for op in self.ops]
        reach = (
            min(b[0] for b in boxes),
            min(b[1] for b in boxes),
            max(b[2] for b in boxes),
            max(b[3] for b in boxes),
        )
        return _Item(reach, tuple(self.ops))


#: the roles :meth:`Renderer._paint` knows; a node of another role paints only a text of its own
# fmt: off
_ROLES = frozenset({
    "statusbar", "navbar", "statustext", "statusicon", "wallpapertext", "toolbar", "title", "text", "subtext",
    "row", "icon", "navbutton", "fab", "button", "textbutton", "menuitem", "tab", "field", "switch", "checkbox",
    "avatar", "appicon", "launcher", "recents", "card", "scrim", "panel", "keyboard", "key", "bubble",
    "toast", "day", "list", "slider", "picture",
})
# fmt: on


class Renderer:
    """Draws a :class:`~gui_gym.android.ui.Node` tree into an ``(h, w, 3)`` uint8 array.

    Each call returns a new array. The renderer repaints only what changed since its last frame
    and keeps the bands of about ``cache_frames`` frames seen before (see the module's docstring;
    the default, 8, is 15 MB at 540x1200 and 62 MB at 1080x2400), so one renderer should follow
    one screen. Its compiled nodes (at most 4,096 per theme) and the process's label masks (at
    most 64 MB) come on top.

    Example:
        >>> from gui_gym.android.sim.device import Device
        >>> Renderer((270, 600)).render(Device().screen()).shape
        (600, 270, 3)
    """

    def __init__(self, size: tuple[int, int] = (540, 1200), cache_frames: float = _CACHE_FRAMES) -> None:
        self.w, self.h = size
        self.sx, self.sy = self.w / SCREEN_W, self.h / SCREEN_H
        self._fonts: dict[int, ImageFont.FreeTypeFont] = {}
        self._luts: dict[int, list[int]] = {}
        self._compiled: tuple[dict[tuple, _Item], dict[tuple, _Item]] = ({}, {})  # light, dark
        self._canvas = Image.new("RGB", size)  # scratch: right only inside the rows being repainted
        self._draw = ImageDraw.Draw(self._canvas)
        self._band_h = max(1, -(-self.h // _BANDS))
        n_bands = -(-self.h // self._band_h)
        self._bands: list[tuple] | None = None  # the band keys of the last frame
        self._data: list[bytes] = [b""] * n_bands  # and its pixels: per band, RGB bytes
        self._band_cache: OrderedDict[tuple, bytes] = OrderedDict()  # band key -> its pixels, LRU
        self._band_bytes, self._max_bytes = 0, int(cache_frames * self.w * self.h * 3)
        self._last_key: tuple | None = None  # (dark, items) of the last frame; None: draw the next anew
        self._pal = LIGHT
        self._rec = _Recorder(self._draw)
        self._scaled: OrderedDict[tuple, Image.Image] = OrderedDict()  # (style, w, h) -> scaled picture
        self._scaled_bytes = 0

    # -- public --------------------------------------------------------------------------
    def render(self, root: Node, dark: bool = False) -> np.ndarray:
        """The screen ``root`` as an ``(h, w, 3)`` uint8 array of the caller's own."""
        items = self._display_list(root, dark)
        key = (dark, tuple(items))
        if key != self._last_key:
            self._update(items, dark, fresh=self._last_key is None)
            self._last_key = key
        # A fresh array, assembled from the bands' bytes (which never change) in one pass.
        out = np.empty(self.h * self.w * 3, np.uint8)
        view, pos = memoryview(out), 0
        for data in self._data:
            view[pos : pos + len(data)] = data
            pos += len(data)
        return out.reshape(self.h, self.w, 3)

    # -- frames --------------------------------------------------------------------------
    def _display_list(self, root: Node, dark: bool) -> list[_Item]:
        """The compiled items of the nodes that paint, in paint order."""
        compiled = self._compiled[dark]
        items: list[_Item] = []
        for n in root.walk():
            role = n.role
            if role not in _ROLES and (not n.text or n.children or role == "webnode"):
                continue  # a container (or a page's node: the page's pixels are its WebView's picture)
            style = n.style
            if not isinstance(style, str | int | float | tuple | None):
                style = repr(style)
            key = (role, n.bounds, n.text, n.desc, n.checked, n.focused, n.selected, n.enabled, style)
            item = compiled.get(key)
            if item is None:
                if len(compiled) >= _ITEM_CACHE_SIZE:
                    compiled.clear()
                item = compiled[key] = self._compile(n, dark)
            if item.ops:
                items.append(item)
        return items

    def _compile(self, n: Node, dark: bool) -> _Item:
        self._pal, self._rec = DARK if dark else LIGHT, _Recorder(self._draw)
        self._paint(n)
        item = self._rec.item()
        l, t, r, b = item.reach
        if item.ops and r > 0 and l < self.w and b > 0 and t < self.h:
            item.bands = range(max(t, 0) // self._band_h, (min(b, self.h) - 1) // self._band_h + 1)
        return item

    def _update(self, items: list[_Item], dark: bool, fresh: bool) -> None:
        """Bring the bands' pixels to ``items``: each band of rows whose items changed comes from
        the band cache or is repainted (with its changed neighbours, in one go)."""
        w, h, bh = self.w, self.h, self._band_h
        per_band: list[list[_Item]] = [[] for _ in self._data]
        for item in items:
            for i in item.bands:
                per_band[i].append(item)
        # A band's pixels follow from its index, the theme and the items that reach it, in order.
        bands = [(i, dark, tuple(band)) for i, band in enumerate(per_band)]
        last = None if fresh else self._bands
        cache, canvas = self._band_cache, self._canvas
        todo: list[int] = []
        for i, key in enumerate(bands):
            if last is not None and last[i] == key:
                continue
            data = None if fresh else cache.get(key)
            if data is None:
                todo.append(i)
            else:
                cache.move_to_end(key)
                self._data[i] = data
        bg = (DARK if dark else LIGHT)["bg"]
        while todo:
            run = 1  # adjacent bands are repainted together: fewer passes over the items
            while run < len(todo) and todo[run] == todo[0] + run:
                run += 1
            t, b = todo[0] * bh, min(h, (todo[0] + run) * bh)
            self._repaint((0, t, w, b), items, bg)
            # One read of the run's rows, cut into its bands (a read per band costs Pillow's
            # per-call set-up more than the copy).
            rows = canvas.crop((0, t, w, b)).tobytes()
            stride = bh * w * 3
            for j, i in enumerate(todo[:run]):
                data = rows[j * stride : (j + 1) * stride]
                self._data[i] = data
                self._remember(bands[i], data)
            del todo[:run]
        self._bands = bands

    def _remember(self, key: tuple, data: bytes) -> None:
        cache = self._band_cache
        old = cache.pop(key, None)
        if old is not None:
            self._band_bytes -= len(old)
        cache[key] = data
        self._band_bytes += len(data)
        while self._band_bytes > self._max_bytes and cache:
            self._band_bytes -= len(cache.popitem(last=False)[1])

    def _repaint(self, region: Box, items: list[_Item], bg: tuple[int, int, int]) -> None:
        """Paint ``region`` of the canvas from the background with every op that reaches it."""
        l, t, r, b = region
        ops = [
            op
            for item in items
            if item.reach[0] < r and item.reach[2] > l and item.reach[1] < b and item.reach[3] > t
            for op in item.ops
            if op[1][0] < r and op[1][2] > l and op[1][1] < b and op[1][3] > t
        ]
        # A fill over the whole region hides all painted before it (the launcher, a keyboard).
        start = next(
            (i for i in range(len(ops) - 1, -1, -1) if ops[i][0] == _FILL and _covers(ops[i][1], region)), None
        )
        canvas, draw = self._canvas, self._draw
        if start is None:
            draw.rectangle((l, t, r - 1, b - 1), fill=bg)
            start = 0
        for op in ops[start:]:
            kind, (x0, y0, x1, y1) = op[0], op[1]
            if kind == _PASTE:
                canvas.paste(op[2], op[1], op[3])
            elif kind == _FILL:
                draw.rectangle((max(x0, l), max(y0, t), min(x1, r) - 1, min(y1, b) - 1), fill=op[2])
            elif kind == _DRAW:
                op[2](*op[3], **op[4])
            else:  # _SHADE: each pixel from itself, so only the region's part
                box = (max(x0, l), max(y0, t), min(x1, r), min(y1, b))
                canvas.paste(canvas.crop(box).point(op[2]), box)

    # -- helpers -------------------------------------------------------------------------
    def _box(self, b: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
        l, t, r, bt = b
        return (
            int(l * self.sx),
            int(t * self.sy),
            max(int(l * self.sx), int(r * self.sx) - 1),
            max(int(t * self.sy), int(bt * self.sy) - 1),
        )

    def _font_size(self, px: float) -> int:
        """The pixel size of the font for ``px`` device pixels."""
        return max(6, int(px * self.sy))

    def _font(self, size: int) -> ImageFont.FreeTypeFont:
        f = self._fonts.get(size)
        if f is None:
            f = self._fonts[size] = ImageFont.load_default(size=size)
        return f

    def _text(
        self,
        box: tuple[int, int, int, int],
        text: str,
        size: float,
        color: tuple[int, int, int],
        align: str = "left",
        pad: float = 0,
    ) -> None:
        if not text:
            return
        l, t, r, b = box
        fs = self._font_size(size)
        first = text.split("\n", 1)[0]
        width = r - l - int(pad * self.sx) * 2
        max_chars = max(1, int(width / (0.56 * fs)))
        if len(first) > max_chars:
            first = first[: max(1, max_chars - 1)] + "…"
        y = (t + b) // 2
        anchor = "mm" if align == "center" else "lm"
        x = (l + r) // 2 if align == "center" else l + int(pad * self.sx)
        mask, (dx, dy) = self._glyphs(first, fs, anchor)
        if mask is not None:
            self._rec.paste(color, (x + dx, y + dy), mask)

    def _glyphs(self, text: str, size: int, anchor: str) -> tuple[Image.Image | None, tuple[int, int]]:
        """The rasterised text as an "L" mask and its offset from the anchor point, cached for
        every renderer (the masks are only read): screens and envs repeat the same labels, and
        FreeType rendering is the costliest part of a frame. Each renderer keeps its own fonts."""
        key = (text, size, anchor)
        hit = _text_cache.get(key)
        if hit is None:
            font = self._font(size)
            x0, y0, x1, y1 = font.getbbox(text, anchor=anchor)
            if x1 <= x0 or y1 <= y0:
                hit = (None, (0, 0))
            else:
                mask = Image.new("L", (x1 - x0, y1 - y0), 0)
                ImageDraw.Draw(mask).text((-x0, -y0), text, fill=255, font=font, anchor=anchor)
                hit = (mask, (x0, y0))
            global _text_bytes
            size = 0 if hit[0] is None else hit[0].size[0] * hit[0].size[1]
            if _text_bytes + size > _TEXT_CACHE_BYTES:
                _text_cache.clear()
                _text_bytes = 0
            _text_cache[key] = hit
            _text_bytes += size
        return hit

    def _shade(self, box: tuple[int, int, int, int], alpha: int) -> None:
        """Darken ``box`` as a black layer of opacity ``alpha`` would (a dialog's scrim)."""
        l, t, r, b = box
        lut = self._luts.get(alpha)
        if lut is None:
            lut = self._luts[alpha] = [v * (255 - alpha) // 255 for v in range(256)] * 3
        self._rec.shade((l, t, r + 1, b + 1), lut)

    # -- painting ------------------------------------------------------------------------
    def _paint(self, n: Node) -> None:
        role, pal, d = n.role, self._pal, self._rec
        box = self._box(n.bounds)
        l, t, r, b = box
        if r <= l or b <= t:
            return
        if role == "statusbar" or role == "navbar":
            d.rectangle(box, fill=pal["bar"])
        elif role == "statustext":
            self._text(box, n.text, 40, pal["fg"])
        elif role == "statusicon":
            self._text(box, _STATUS_GLYPHS.get(n.desc, n.desc[:3]), 26, pal["sub"], align="center")
        elif role == "wallpapertext":
            self._text(box, n.text, 64, (255, 255, 255))
        elif role == "toolbar":
            d.rectangle(box, fill=pal["bar"])
        elif role == "title":
            self._text(box, n.text, 56 if n.style is None else n.style, pal["fg"])
        elif role == "text":
            self._text(box, n.text, n.style if isinstance(n.style, int) else 44, pal["fg"])
        elif role == "subtext":
            self._text(box, n.text, 36, pal["sub"])
        elif role == "row":
            d.line((l, b, r, b), fill=pal["line"], width=1)
            if n.selected:
                d.rectangle(box, outline=ACCENT, width=2)
        elif role in ("icon", "navbutton"):
            self._icon(box, n.style or n.desc[:1], pal["fg"])
        elif role == "fab":
            d.rounded_rectangle(box, radius=int(40 * self.sx), fill=ACCENT)
            self._icon(box, n.style or "add", (255, 255, 255))
        elif role == "button":
            fill = ACCENT if n.enabled else pal["line"]
            d.rounded_rectangle(box, radius=int(60 * self.sx), fill=fill)
            self._text(box, n.text, 44, (255, 255, 255), align="center")
        elif role in ("textbutton", "menuitem", "tab"):
            if role == "menuitem":
                d.line((l, b, r, b), fill=pal["line"], width=1)
                self._text(box, n.text, 44, ACCENT if n.selected else pal["fg"], pad=40)
            else:
                color = ACCENT if (role == "textbutton" or n.selected) else pal["sub"]
                self._text(box, n.text, 42, color, align="center")
                if role == "tab" and n.selected:
                    d.rectangle((l, b - max(2, int(8 * self.sy)), r, b), fill=ACCENT)
        elif role == "field":
            color = ACCENT if n.focused else pal["sub"]
            d.rectangle((l, b - max(1, int(6 * self.sy)), r, b), fill=color)
            self._text(box, n.text, 46, pal["hint"] if n.style == "hint" else pal["fg"], pad=20)
            if n.focused:
                x = (
                    min(r - 4, l + int(20 * self.sx) + int(len(n.text) * 0.56 * self._font_size(46)))
                    if n.style != "hint"
                    else l + int(20 * self.sx)
                )
                d.line((x, t + (b - t) // 4, x, b - (b - t) // 4), fill=ACCENT, width=max(1, int(4 * self.sx)))
        elif role == "switch":
            cy = (t + b) // 2
            th = max(4, int(50 * self.sy))
            track = (l + (r - l) // 6, cy - th // 2, r - (r - l) // 6, cy + th // 2)
            d.rounded_rectangle(track, radius=th // 2, fill=(138, 180, 248) if n.checked else pal["line"])
            rad = max(3, int(36 * self.sy))
            cx = track[2] - rad // 2 if n.checked else track[0] + rad // 2
            d.ellipse(
                (cx - rad, cy - rad, cx + rad, cy + rad),
                fill=ACCENT if n.checked else (250, 250, 250),
                outline=pal["sub"],
            )
        elif role == "checkbox":
            s = int(60 * self.sy)
            cy = (t + b) // 2
            cb = (l, cy - s // 2, l + s, cy + s // 2)
            d.rectangle(
                cb,
                outline=ACCENT if n.checked else pal["sub"],
                width=max(1, int(5 * self.sx)),
                fill=ACCENT if n.checked else None,
            )
            if n.checked:
                d.line(
                    (cb[0] + s // 5, cy, cb[0] + s // 2.4, cb[3] - s // 5, cb[2] - s // 6, cb[1] + s // 5),
                    fill=(255, 255, 255),
                    width=max(1, int(6 * self.sx)),
                )
            self._text((l + s + int(30 * self.sx), t, r, b), n.text, 44, pal["fg"])
        elif role == "avatar":
            color = ACCENT if n.style in (None, "avatar") else (100, 160, 100)
            d.ellipse(box, fill=color)
            self._icon(box, n.style or "person", (255, 255, 255))
        elif role == "appicon":
            # n.style: (glyph, colour), the app's icon (see icons.py); its label under it
            glyph, color = n.style if isinstance(n.style, tuple) and len(n.style) == 2 else ("", ACCENT)
            size = min(r - l, b - t) * 5 // 9
            cx = (l + r) // 2
            ib = (cx - size // 2, t, cx + size // 2, t + size)
            draw_app_icon(d, ib, glyph, color)
            if glyph not in GLYPHS:
                self._text(ib, n.text[:1], 90, (255, 255, 255), align="center")
            self._text((l, t + size + int(14 * self.sy), r, b), n.text, 34, (255, 255, 255), align="center")
        elif role == "launcher":
            d.rectangle(box, fill=(38, 70, 83))
        elif role == "recents":
            d.rectangle(box, fill=(60, 64, 67))
        elif role == "card":
            d.rounded_rectangle(box, radius=int(30 * self.sx), fill=(250, 250, 250))
            d.rounded_rectangle((l, t, r, t + (b - t) // 3), radius=int(30 * self.sx), fill=n.style or ACCENT)
            self._text((l, t, r, t + (b - t) // 3), n.text, 44, (255, 255, 255), pad=40)
        elif role == "scrim":
            self._shade(box, 110)
        elif role == "panel":
            d.rounded_rectangle(box, radius=int(40 * self.sx), fill=pal["panel"], outline=pal["line"])
        elif role == "keyboard":
            d.rectangle(box, fill=(232, 234, 237) if pal is LIGHT else (40, 42, 45))
        elif role == "key":
            self._key(n, box, pal)
        elif role == "bubble":
            sent = n.style == "sent"
            d.rounded_rectangle(box, radius=int(36 * self.sx), fill=ACCENT if sent else pal["bar"])
            self._text(box, n.text, 40, (255, 255, 255) if sent else pal["fg"], pad=30)
        elif role == "toast":
            d.rounded_rectangle(box, radius=int(50 * self.sx), fill=(60, 64, 67))
            self._text(box, n.text, 38, (255, 255, 255), align="center")
        elif role == "day":
            if n.selected:
                d.ellipse(box, fill=ACCENT)
            self._text(box, n.text, 40, (255, 255, 255) if n.selected else pal["fg"], align="center")
        elif role == "list":
            if isinstance(n.style, tuple) and n.style[1] > 0:  # scrollbar
                off, max_off = n.style
                h = b - t
                frac = h / (h + max_off * self.sy)
                bar_h = max(6, int(h * frac))
                y = t + int((h - bar_h) * off / max_off)
                d.rectangle((r - max(2, int(8 * self.sx)), y, r, y + bar_h), fill=pal["line"])
        elif role == "slider":
            cy = (t + b) // 2
            value = n.style if isinstance(n.style, (int, float)) else 0
            d.line((l, cy, r, cy), fill=pal["line"], width=max(2, int(8 * self.sy)))
            x = l + int((r - l) * value / 100)
            d.line((l, cy, x, cy), fill=ACCENT, width=max(2, int(8 * self.sy)))
            rad = max(3, int(24 * self.sy))
            d.ellipse((x - rad, cy - rad, x + rad, cy + rad), fill=ACCENT)
        elif role == "picture":
            self._picture(n, box)
        elif n.text and not n.children:
            # Unknown leaf with text: still legible.
            self._text(box, n.text, 42, pal["fg"])

    def _picture(self, n: Node, box: tuple[int, int, int, int]) -> None:
        """A photo or video frame: ``n.picture()`` gives the picture (``None``: one the phone cannot
        decode), ``n.style`` is ``(mode, key...)`` with mode ``"fit"`` (whole, centred on black) or
        ``"crop"`` (filling the box, as a thumbnail), the key naming the picture for the caches."""
        l, t, r, b = box
        w, h = r - l + 1, b - t + 1
        mode = n.style[0] if isinstance(n.style, tuple) and n.style else "fit"
        if mode == "fit":
            self._rec.rectangle(box, fill=(0, 0, 0))
        # A picture scrolled or shown again at the same size is scaled once (kept by its key).
        named = isinstance(n.style, tuple) and len(n.style) > 1
        key = (n.style, w, h) if named else None
        img = self._scaled.get(key) if named else None
        if img is None:
            pic = n.picture() if n.picture is not None else None
            if pic is None or pic.width < 1 or pic.height < 1:
                if mode != "fit":
                    self._rec.rectangle(box, fill=self._pal["line"])
                return
            if mode == "crop":
                scale = max(w / pic.width, h / pic.height)
                cw, ch = min(pic.width, max(1, round(w / scale))), min(pic.height, max(1, round(h / scale)))
                x0, y0 = (pic.width - cw) // 2, (pic.height - ch) // 2
                img = pic.crop((x0, y0, x0 + cw, y0 + ch)).resize((w, h), Image.Resampling.BILINEAR)
            else:
                scale = min(w / pic.width, h / pic.height)
                pw, ph = max(1, round(pic.width * scale)), max(1, round(pic.height * scale))
                img = pic.resize((pw, ph), Image.Resampling.BILINEAR)
            if named:
                self._keep_scaled(key, img)
        else:
            self._scaled.move_to_end(key)
        if mode == "crop":
            self._rec.image(img, (l, t))
        else:
            self._rec.image(img, (l + (w - img.width) // 2, t + (h - img.height) // 2))

    def _keep_scaled(self, key: tuple, img: Image.Image) -> None:
        """Keep a scaled picture, the least recently used ones dropped past ``_SCALED_BYTES``."""
        self._scaled[key] = img
        self._scaled_bytes += img.width * img.height * 3
        while self._scaled_bytes > _SCALED_BYTES and len(self._scaled) > 1:
            old = self._scaled.popitem(last=False)[1]
            self._scaled_bytes -= old.width * old.height * 3

    def _key(self, n: Node, box: Box, pal: dict) -> None:
        """A keyboard key (``keyboard.py``): its face by ``n.style``, what it types or does on it."""
        d, style = self._rec, n.style
        l, t, r, b = box
        if n.rid.endswith("key_pos_1_0"):  # a and l: a key's face, their touch areas reach the edges
            l = r - int(107 * self.sx)
        elif n.rid.endswith("key_pos_1_8"):
            r = l + int(107 * self.sx)
        gx, gy = int(6 * self.sx), int(10 * self.sy)
        face = (l + gx, t + gy, max(l + gx, r - gx), max(t + gy, b - gy))
        light = pal is LIGHT
        if style == "enter":
            d.rounded_rectangle(face, radius=int(24 * self.sx), fill=ACCENT)
            self._icon(face, "enter", (255, 255, 255))
            return
        plain = style in ("char", "space")
        fill = (255, 255, 255) if light else (95, 99, 104)
        if not plain:
            fill = (209, 214, 220) if light else (60, 64, 67)
        if style == "shift_on":
            fill = (173, 200, 245) if light else (66, 90, 140)
        d.rounded_rectangle(face, radius=int(16 * self.sx), fill=fill)
        if style == "char":
            self._text(face, n.desc, 56, pal["fg"], align="center")
        elif style in ("shift", "shift_on"):
            self._icon(face, "shift", pal["fg"])
        elif style == "delete":
            self._icon(face, "backspace", pal["fg"])
        elif style != "space":
            self._text(face, str(style), 40, pal["fg"], align="center")

    def _icon(self, box: tuple[int, int, int, int], name: str, color: tuple[int, int, int]) -> None:
        l, t, r, b = box
        d = self._rec
        cx, cy = (l + r) // 2, (t + b) // 2
        s = max(3, min(r - l, b - t) // 4)
        w = max(1, s // 4)
        if name == "add":
            d.line((cx - s, cy, cx + s, cy), fill=color, width=w)
            d.line((cx, cy - s, cx, cy + s), fill=color, width=w)
        elif name in ("arrow_left", "back", "chevron_left"):
            d.line((cx + s // 2, cy - s, cx - s // 2, cy, cx + s // 2, cy + s), fill=color, width=w)
        elif name == "chevron_right":
            d.line((cx - s // 2, cy - s, cx + s // 2, cy, cx - s // 2, cy + s), fill=color, width=w)
        elif name == "home":
            d.ellipse((cx - s, cy - s, cx + s, cy + s), outline=color, width=w)
        elif name == "overview":
            d.rectangle((cx - s, cy - s, cx + s, cy + s), outline=color, width=w)
        elif name == "more":
            for dy in (-s, 0, s):
                d.ellipse((cx - w, cy + dy - w, cx + w, cy + dy + w), fill=color)
        elif name == "search":
            d.ellipse((cx - s, cy - s, cx + s // 3, cy + s // 3), outline=color, width=w)
            d.line((cx + s // 4, cy + s // 4, cx + s, cy + s), fill=color, width=w)
        elif name in ("star", "star_on"):
            pts = [
                (
                    cx + s * math.cos(math.pi / 2 + k * math.pi / 5) * (1 if k % 2 == 0 else 0.45),
                    cy - s * math.sin(math.pi / 2 + k * math.pi / 5) * (1 if k % 2 == 0 else 0.45),
                )
                for k in range(10)
            ]
            d.polygon(pts, fill=(251, 188, 4) if name == "star_on" else None, outline=color)
        elif name in ("save", "check", "done"):
            d.line((cx - s, cy, cx - s // 3, cy + s * 2 // 3, cx + s, cy - s * 2 // 3), fill=color, width=w)
        elif name in ("close", "clear"):
            d.line((cx - s, cy - s, cx + s, cy + s), fill=color, width=w)
            d.line((cx - s, cy + s, cx + s, cy - s), fill=color, width=w)
        elif name == "edit":
            d.line((cx - s, cy + s, cx + s, cy - s), fill=color, width=w * 2)
        elif name == "delete":
            d.rectangle((cx - s * 2 // 3, cy - s // 2, cx + s * 2 // 3, cy + s), outline=color, width=w)
            d.line((cx - s, cy - s // 2 - w, cx + s, cy - s // 2 - w), fill=color, width=w)
        elif name == "enter":
            d.line((cx + s, cy - s, cx + s, cy, cx - s, cy), fill=color, width=w)
            d.line((cx - s, cy, cx - s // 2, cy - s // 2), fill=color, width=w)
        elif name in ("calendar", "today", "event", "date"):
            d.rectangle((cx - s, cy - s * 3 // 4, cx + s, cy + s), outline=color, width=w)
            d.line((cx - s, cy - s // 4, cx + s, cy - s // 4), fill=color, width=w)
        elif name in ("alarm", "timer", "stopwatch", "clock", "schedule"):
            d.ellipse((cx - s, cy - s, cx + s, cy + s), outline=color, width=w)
            d.line((cx, cy - s * 2 // 3, cx, cy, cx + s // 2, cy), fill=color, width=w)
        elif name in ("send",):
            d.polygon([(cx - s, cy - s), (cx + s, cy), (cx - s, cy + s), (cx - s // 2, cy)], outline=color)
        elif name in ("folder", "create_new_folder"):
            d.rectangle((cx - s, cy - s // 2, cx + s, cy + s), outline=color, width=w)
            d.line((cx - s, cy - s // 2, cx - s // 2, cy - s), fill=color, width=w)
        elif name in ("person", "avatar"):
            d.ellipse((cx - s // 2, cy - s, cx + s // 2, cy), outline=color, width=w)
            d.arc((cx - s, cy + s // 6, cx + s, cy + s * 2), 180, 360, fill=color, width=w)
        elif name == "phone":
            d.rounded_rectangle(
                (cx - s // 2, cy - s, cx + s // 2, cy + s), radius=max(1, s // 4), outline=color, width=w
            )
        elif name == "email":
            d.rectangle((cx - s, cy - s * 2 // 3, cx + s, cy + s * 2 // 3), outline=color, width=w)
            d.line((cx - s, cy - s * 2 // 3, cx, cy, cx + s, cy - s * 2 // 3), fill=color, width=w)
        elif name == "play":
            d.polygon([(cx - s * 2 // 3, cy - s), (cx + s, cy), (cx - s * 2 // 3, cy + s)], fill=color)
        elif name == "pause":
            d.rectangle((cx - s * 2 // 3, cy - s, cx - s // 4, cy + s), fill=color)
            d.rectangle((cx + s // 4, cy - s, cx + s * 2 // 3, cy + s), fill=color)
        elif name == "tabs":  # Chrome's tab switcher: the number of tabs in a rounded square
            d.rounded_rectangle((cx - s, cy - s, cx + s, cy + s), radius=max(1, s // 3), outline=color, width=w)
            self._text(box, "1", 34, color, align="center")
        elif name == "shift":
            d.polygon([(cx, cy - s), (cx + s, cy), (cx + s // 2, cy), (cx + s // 2, cy + s), (cx - s // 2, cy + s),
                       (cx - s // 2, cy), (cx - s, cy)], outline=color, width=w)  # fmt: skip
        elif name == "backspace":
            h = s * 2 // 3
            d.polygon([(cx - s, cy), (cx - s // 2, cy - h), (cx + s, cy - h), (cx + s, cy + h), (cx - s // 2, cy + h)],
                      outline=color, width=w)  # fmt: skip
            d.line((cx - s // 6, cy - s // 3, cx + s // 2, cy + s // 3), fill=color, width=w)
            d.line((cx - s // 6, cy + s // 3, cx + s // 2, cy - s // 3), fill=color, width=w)
        elif name in ("minus", "remove"):
            d.line((cx - s, cy, cx + s, cy), fill=color, width=w)
        else:
            self._text(box, (name or "?")[:1].upper(), 50, color, align="center")


_STATUS_GLYPHS = {
    "Wi-Fi on": "WiFi",
    "Wi-Fi off": "",
    "Bluetooth on": "BT",
    "Airplane mode on": "AIR",
    "Battery 84 percent": "84%",
}


def _covers(a: Box, b: Box) -> bool:
    return a[0] <= b[0] and a[1] <= b[1] and a[2] >= b[2] and a[3] >= b[3]
