"""Screenshots drawn with Pillow from the same view tree the XML dump describes.

Every visible node is painted by its ``role`` (button, field, switch, list row, app icon,
dialog panel, keyboard, toast …) at the requested resolution, with Pillow's embedded
FreeType font, so text is legible and what a pixel agent sees matches the dump exactly.
A frame whose tree is unchanged since the last call is served from a cache.
"""

from __future__ import annotations

import math

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from gui_gym.android.ui import SCREEN_H, SCREEN_W, Node

ACCENT = (26, 115, 232)
_TEXT_CACHE_SIZE = 4096  # rasterised labels kept per renderer
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


class Renderer:
    """Draws a :class:`~gui_gym.android.ui.Node` tree into an ``(h, w, 3)`` uint8 array.

    Example:
        >>> from gui_gym.android.sim.device import Device
        >>> Renderer((270, 600)).render(Device().screen()).shape
        (600, 270, 3)
    """

    def __init__(self, size: tuple[int, int] = (540, 1200)) -> None:
        self.w, self.h = size
        self.sx, self.sy = self.w / SCREEN_W, self.h / SCREEN_H
        self._fonts: dict[int, ImageFont.FreeTypeFont] = {}
        self._luts: dict[int, list[int]] = {}
        self._text_cache: dict[tuple[str, int, str], tuple[Image.Image | None, tuple[int, int]]] = {}
        self._last_key: tuple | None = None
        self._last: Image.Image | None = None
        self._base: tuple[tuple, Image.Image] | None = None  # the dimmed layer under a dialog

    # -- public --------------------------------------------------------------------------
    def render(self, root: Node, dark: bool = False) -> np.ndarray:
        nodes = list(root.walk())
        sig = _signature(nodes)
        key = (dark, sig)
        if key != self._last_key or self._last is None:
            pal = DARK if dark else LIGHT
            self._pal = pal
            # A dialog dims everything under it; that dimmed layer usually stays the same for
            # several steps, so it is cached and only the dialog is painted anew.
            scrim = next((i for i, n in enumerate(nodes) if n.role == "scrim"), None)
            start = 0
            if scrim is not None and self._base is not None and self._base[0] == (dark, sig[: scrim + 1]):
                img, start = self._base[1].copy(), scrim + 1
            else:
                img = Image.new("RGB", (self.w, self.h), pal["bg"])
            self._img, self._draw = img, ImageDraw.Draw(img)
            for i in range(start, len(nodes)):
                self._paint(nodes[i])
                if i == scrim:
                    self._base = ((dark, sig[: scrim + 1]), img.copy())
            self._last_key, self._last = key, img
        return np.array(self._last)  # one copy: the caller owns it

    # -- helpers -------------------------------------------------------------------------
    def _box(self, b: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
        l, t, r, bt = b
        return (
            int(l * self.sx),
            int(t * self.sy),
            max(int(l * self.sx), int(r * self.sx) - 1),
            max(int(t * self.sy), int(bt * self.sy) - 1),
        )

    def _font(self, px: float) -> ImageFont.FreeTypeFont:
        size = max(6, int(px * self.sy))
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
        font = self._font(size)
        fs = font.size
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
            self._img.paste(color, (x + dx, y + dy), mask)

    def _glyphs(self, text: str, size: int, anchor: str) -> tuple[Image.Image | None, tuple[int, int]]:
        """The rasterised text as an "L" mask and its offset from the anchor point, cached:
        screens repeat the same labels, and FreeType rendering is the costliest part of a frame."""
        key = (text, size, anchor)
        hit = self._text_cache.get(key)
        if hit is None:
            font = self._fonts[size]
            x0, y0, x1, y1 = font.getbbox(text, anchor=anchor)
            if x1 <= x0 or y1 <= y0:
                hit = (None, (0, 0))
            else:
                mask = Image.new("L", (x1 - x0, y1 - y0), 0)
                ImageDraw.Draw(mask).text((-x0, -y0), text, fill=255, font=font, anchor=anchor)
                hit = (mask, (x0, y0))
            if len(self._text_cache) >= _TEXT_CACHE_SIZE:
                self._text_cache.clear()
            self._text_cache[key] = hit
        return hit

    def _shade(self, box: tuple[int, int, int, int], alpha: int) -> None:
        """Darken ``box`` as a black layer of opacity ``alpha`` would (a dialog's scrim)."""
        l, t, r, b = box
        lut = self._luts.get(alpha)
        if lut is None:
            lut = self._luts[alpha] = [v * (255 - alpha) // 255 for v in range(256)] * 3
        region = (l, t, r + 1, b + 1)
        self._img.paste(self._img.crop(region).point(lut), region)

    # -- painting ------------------------------------------------------------------------
    def _paint(self, n: Node) -> None:
        role, pal, d = n.role, self._pal, self._draw
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
                    min(r - 4, l + int(20 * self.sx) + int(len(n.text) * 0.56 * self._font(46).size))
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
            size = min(r - l, b - t) * 2 // 3
            cx = (l + r) // 2
            ib = (cx - size // 2, t, cx + size // 2, t + size)
            d.rounded_rectangle(ib, radius=size // 4, fill=n.style or ACCENT)
            self._text(ib, n.text[:1], 90, (255, 255, 255), align="center")
            self._text((l, t + size, r, b), n.text, 34, (255, 255, 255), align="center")
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
        elif role == "keyrow":
            keys = n.text.split()
            kw = (r - l) / max(1, len(keys))
            for i, k in enumerate(keys):
                kb = (int(l + i * kw) + 2, t, int(l + (i + 1) * kw) - 2, b)
                d.rounded_rectangle(kb, radius=4, fill=pal["panel"])
                self._text(kb, k, 50, pal["fg"], align="center")
        elif role == "key":
            d.rounded_rectangle(box, radius=int(30 * self.sx), fill=ACCENT)
            self._icon(box, "enter", (255, 255, 255))
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
        elif n.text and not n.children:
            # Unknown leaf with text: still legible.
            self._text(box, n.text, 42, pal["fg"])

    def _icon(self, box: tuple[int, int, int, int], name: str, color: tuple[int, int, int]) -> None:
        l, t, r, b = box
        d = self._draw
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


def _signature(nodes: list[Node]) -> tuple:
    return tuple(
        (
            n.role,
            n.bounds,
            n.text,
            n.desc,
            n.checked,
            n.focused,
            n.selected,
            n.enabled,
            n.style if isinstance(n.style, (str, int, tuple)) else None,
        )
        for n in nodes
    )
