"""Simple Draw Pro (com.simplemobiletools.draw.pro): a canvas drawn on with a finger, saved as a
picture.

Data (:class:`DrawData`): the strokes on the canvas (colour, width, points in canvas pixels), the
current colour and brush width, and the folder the last picture was saved to. A saved picture is a
file of the phone's shared storage (the media store, :func:`~gui_gym.android.sim.media.media`):
a real PNG or JPEG drawn with Pillow, or an SVG of the strokes' paths, as the app writes them.

Screens, as the real app lays them out (``activity_main.xml``, ``menu_main.xml``,
``dialog_save_image.xml``; strings of the app and of Simple-Commons):

- the canvas (:class:`Canvas`, ``MainActivity``): the top bar with "Save as" and "More options"
  (Clear), the canvas (``my_canvas``: a swipe draws a straight stroke from where the finger
  starts to where it lifts, a tap a dot), and the bottom bar with Undo, Redo, the colour
  (``color_picker``: the next of a few colours) and the brush size (``stroke_width_bar``).
  What the canvas shows is in the pixels only.
- "Save as" (:class:`SaveImageDialog`): Path (``save_image_path``, "Internal/Simple Draw" at first;
  tap it to pick a folder), the file name (``save_image_filename``, ``image_<date>_<time>`` at
  first) and the format (PNG, SVG, JPG); OK saves ``<folder>/<name>.<format>`` (an empty name or
  one with a slash is refused with a toast).
- the folder picker (:class:`FolderPicker`, Simple-Commons' ``FilePickerDialog``): a breadcrumb
  ("Internal" and the folders below), the folders of the current one; tap a folder to open it, a
  crumb to go back up, OK to choose the folder shown.
"""

from __future__ import annotations

import io
import posixpath
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from PIL import Image, ImageDraw

from gui_gym.android.sim.apps.base import App
from gui_gym.android.sim.apps.files import data as storage
from gui_gym.android.sim.dialogs import Dialog
from gui_gym.android.sim.widgets import NAV_TOP, STATUS_H, TOOLBAR_H, UI, Inapplicable, Screen
from gui_gym.android.ui import SCREEN_H, SCREEN_W, Node

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

PKG = "com.simplemobiletools.draw.pro"
LABEL = "Simple Draw Pro"
DEFAULT_FOLDER = "Simple Draw"  # SaveImageDialog's folder when none was used before
INTERNAL = "Internal"  # how Simple-Commons names the storage's root
SAVE_AS = "Save as"
FORMATS = (("PNG", "png"), ("SVG", "svg"), ("JPG", "jpg"))
COLORS = ((0, 0, 0), (244, 67, 54), (33, 150, 243), (76, 175, 80), (255, 193, 7))
BOTTOM_H = 180
CANVAS = (0, STATUS_H + TOOLBAR_H, SCREEN_W, NAV_TOP - BOTTOM_H)  # the canvas on screen
_FINGER_SPAN = 1.5  # the phone reads a swipe of d pixels over a span as a scroll of 1.5 d / span


def rid(name: str) -> str:
    return f"{PKG}:id/{name}"


@dataclass
class DrawData:
    strokes: list[tuple[tuple[int, int, int], int, tuple[tuple[int, int], ...]]] = field(default_factory=list)
    undone: list[tuple[tuple[int, int, int], int, tuple[tuple[int, int], ...]]] = field(default_factory=list)
    color: int = 0  # index into COLORS
    width: int = 12
    last_folder: str = ""  # where the last picture went ("" until one is saved)


def _db(dev: Device) -> DrawData:
    return dev.data("draw")


def canvas_size() -> tuple[int, int]:
    l, t, r, b = CANVAS
    return r - l, b - t


def picture(strokes: tuple, size: tuple[int, int] | None = None) -> Image.Image:
    """The canvas as a picture: the strokes on white."""
    w, h = size or canvas_size()
    img = Image.new("RGB", (w, h), "white")
    d = ImageDraw.Draw(img)
    for color, width, pts in strokes:
        if len(pts) == 1:
            (x, y) = pts[0]
            d.ellipse((x - width // 2, y - width // 2, x + width // 2, y + width // 2), fill=color)
        else:
            d.line(list(pts), fill=color, width=width, joint="curve")
    return img


def svg(strokes: tuple, size: tuple[int, int] | None = None) -> bytes:
    """The canvas as the app's SVG: a white rectangle, then one path per stroke."""
    w, h = size or canvas_size()
    parts = [
        '<?xml version="1.0" encoding="UTF-8" standalone="no"?>',
        f'<svg width="{w}" height="{h}" xmlns="http://www.w3.org/2000/svg">',
        f'<rect width="{w}" height="{h}" fill="#FFFFFF"/>',
    ]
    for color, width, pts in strokes:
        d = " ".join(("M" if i == 0 else "L") + f"{x},{y}" for i, (x, y) in enumerate(pts))
        if len(pts) == 1:
            d += f" L{pts[0][0]},{pts[0][1]}"
        hexcolor = "#{:02X}{:02X}{:02X}".format(*color)
        parts.append(
            f'<path d="{d}" fill="none" stroke="{hexcolor}" stroke-width="{width}" stroke-linecap="round"'
            ' stroke-linejoin="round"/>'
        )
    parts.append("</svg>")
    return ("\n".join(parts) + "\n").encode()


def encode(strokes: tuple, ext: str) -> bytes:
    """The file the app writes for ``ext`` (``png``, ``jpg`` or ``svg``)."""
    if ext == "svg":
        return svg(strokes)
    out = io.BytesIO()
    picture(strokes).save(out, format="JPEG" if ext == "jpg" else "PNG")
    return out.getvalue()


def humanize(folder: str) -> str:
    """Simple-Commons' ``humanizePath``: the storage's root as "Internal"."""
    return f"{INTERNAL}/{folder}" if folder else INTERNAL


# ----------------------------------------------------------------------------- screens


class Canvas(Screen):
    """``MainActivity``: the canvas and its tools."""

    def build(self, ui: UI, dev: Device) -> None:
        db = _db(dev)
        y = ui.y
        bar = Node("android.view.ViewGroup", (0, y, SCREEN_W, y + TOOLBAR_H), rid=rid("main_toolbar"), package=PKG,
                   role="toolbar")  # fmt: skip
        bar.children.append(
            Node("android.widget.TextView", (42, y + 17, 700, y + 137), LABEL, package=PKG, role="title")
        )
        actions = [
            (SAVE_AS, "save", "menu_save", lambda: self._save(dev)),
            ("More options", "more", "", lambda: self._more(dev)),
        ]
        right = SCREEN_W - 24
        for desc, icon, view_id, cb in reversed(actions):
            bar.children.append(
                Node("android.widget.Button", (right - 120, y + 17, right, y + 137), desc=desc,
                     rid=rid(view_id) if view_id else "", package=PKG, on_tap=cb, role="icon", style=icon)
            )  # fmt: skip
            right -= 130
        ui.add(bar)
        strokes = tuple(db.strokes)
        ui.add(
            Node("android.view.View", CANVAS, rid=rid("my_canvas"), package=PKG, on_tap=lambda: self._dot(dev),
                 on_scroll=lambda d, f: self._stroke(dev, d, f), picture=lambda: picture(strokes),
                 role="picture", style=("crop", "draw", strokes))
        )  # fmt: skip
        top = CANVAS[3]
        tools = [
            ("Undo", "undo", "undo", lambda: self._undo(dev), bool(db.strokes)),
            ("Redo", "redo", "redo", lambda: self._redo(dev), bool(db.undone)),
            ("Change color", "color_picker", "color", lambda: self._color(dev), True),
        ]
        x = 42
        kids = []
        for desc, view_id, icon, cb, enabled in tools:
            kids.append(
                Node("android.widget.ImageView", (x, top + 30, x + 120, top + 150), desc=desc, rid=rid(view_id),
                     package=PKG, on_tap=cb if enabled else None, role="icon", style=icon, enabled=enabled)
            )  # fmt: skip
            x += 150
        kids.append(
            Node("android.widget.SeekBar", (x + 40, top + 40, SCREEN_W - 42, top + 140), f"{db.width}",
                 rid=rid("stroke_width_bar"), desc="Brush size", package=PKG, role="slider",
                 style=min(100, db.width * 2), on_scroll=lambda d, f: self._width(dev, d, f), label="Brush size")
        )  # fmt: skip
        ui.add(Node("android.widget.LinearLayout", (0, top, SCREEN_W, NAV_TOP), rid=rid("bottom_tools"),
                    package=PKG, children=kids))  # fmt: skip

    # -- drawing -------------------------------------------------------------------------------
    def _add(self, dev: Device, pts: tuple[tuple[int, int], ...]) -> None:
        db = _db(dev)
        db.strokes.append((COLORS[db.color], db.width, pts))
        db.undone.clear()

    def _dot(self, dev: Device) -> str:
        x, y = dev.touch_point or ((CANVAS[0] + CANVAS[2]) // 2, (CANVAS[1] + CANVAS[3]) // 2)
        self._add(dev, ((x - CANVAS[0], y - CANVAS[1]),))
        return f"Draw a dot on the canvas in {LABEL}"

    def _stroke(self, dev: Device, content_dir: str, frac: float) -> str:
        x, y = dev.touch_point or ((CANVAS[0] + CANVAS[2]) // 2, (CANVAS[1] + CANVAS[3]) // 2)
        finger = {"down": (0, -1), "up": (0, 1), "right": (-1, 0), "left": (1, 0)}[content_dir]
        span = SCREEN_W if finger[0] else SCREEN_H
        d = round(frac * span / _FINGER_SPAN)
        x1 = min(CANVAS[2] - 1, max(CANVAS[0], x + finger[0] * d))
        y1 = min(CANVAS[3] - 1, max(CANVAS[1], y + finger[1] * d))
        self._add(dev, ((x - CANVAS[0], y - CANVAS[1]), (x1 - CANVAS[0], y1 - CANVAS[1])))
        way = {(0, -1): "up", (0, 1): "down", (-1, 0): "left", (1, 0): "right"}[finger]
        return f"Draw a line {way} on the canvas in {LABEL}"

    def _undo(self, dev: Device) -> str:
        db = _db(dev)
        db.undone.append(db.strokes.pop())
        return f'Tap "Undo" in {LABEL}'

    def _redo(self, dev: Device) -> str:
        db = _db(dev)
        db.strokes.append(db.undone.pop())
        return f'Tap "Redo" in {LABEL}'

    def _color(self, dev: Device) -> str:
        db = _db(dev)
        db.color = (db.color + 1) % len(COLORS)
        return f"Change the brush colour in {LABEL}"

    def _width(self, dev: Device, content_dir: str, frac: float) -> str:
        if content_dir not in ("left", "right"):
            raise Inapplicable("the brush size bar moves sideways")
        db = _db(dev)
        step = round(frac * 50) * (1 if content_dir == "left" else -1)
        db.width = max(1, min(50, db.width + step))
        return f"Set the brush size to {db.width} in {LABEL}"

    def _more(self, dev: Device) -> str:
        dev.open_dialog(MoreMenu("on_more"))
        return f'Tap "More options" in {LABEL}'

    def on_more(self, dev: Device, value: str) -> str:
        db = _db(dev)
        db.strokes.clear()
        db.undone.clear()
        return f"Clear the canvas in {LABEL}"

    def _save(self, dev: Device) -> str:
        db = _db(dev)
        stamp = dev.state.now.strftime("%Y_%m_%d_%H_%M_%S")
        dev.open_dialog(SaveImageDialog(db.last_folder or DEFAULT_FOLDER, f"image_{stamp}"))
        return f'Tap "{SAVE_AS}" in {LABEL}'

    def on_save(self, dev: Device, value: tuple[str, str, str]) -> str:
        folder, name, ext = value
        db = _db(dev)
        path = f"{folder}/{name}.{ext}" if folder else f"{name}.{ext}"
        storage.mkdir(dev, folder)
        storage.write(dev, path, encode(tuple(db.strokes), ext), dev.state.now)
        db.last_folder = folder
        dev.toast("File saved successfully")
        return f'Save the drawing as "{posixpath.basename(path)}" in {humanize(folder)} in {LABEL}'


class MoreMenu(Dialog):
    """The overflow menu (only Clear acts here)."""

    def build(self, ui: UI, dev: Device) -> None:
        top = STATUS_H + 20
        box = (SCREEN_W - 560, top, SCREEN_W - 20, top + 160)
        holder = _window(ui, self, box)
        holder.children.append(
            Node("android.widget.LinearLayout", (box[0], top + 10, box[2], top + 150), package=PKG,
                 on_tap=lambda: self.finish(dev, "clear"), role="menuitem", label="Clear", clickable=True,
                 children=[Node("android.widget.TextView", (box[0] + 50, top + 40, box[2] - 30, top + 120), "Clear",
                                rid=rid("title"), package=PKG, role="text")])
        )  # fmt: skip


def _window(ui: UI, dialog: Dialog, box: tuple[int, int, int, int]) -> Node:
    """A popup window at ``box``; a touch outside closes it. Returns the node its items go in."""

    def outside() -> str:
        dialog.finish(ui.dev, None)
        return "Tap outside to close it"

    ui.outside = outside
    holder = Node("android.widget.ListView", box, package=PKG)
    inner = Node("android.widget.FrameLayout", box, rid="android:id/content", package=PKG, children=[holder])
    body = Node("android.widget.LinearLayout", box, package=PKG, children=[inner])
    ui.add(Node("android.widget.FrameLayout", box, role="panel", style="opaque", package=PKG, children=[body]))
    return holder


class SaveImageDialog(Dialog):
    """ "Save as": the folder, the file name and the format."""

    def __init__(self, folder: str, name: str) -> None:
        super().__init__("on_save", SAVE_AS)
        self.folder = folder
        self.ext = "png"
        self.form["filename"] = name
        self._field_order = ["filename"]
        self.focus = "filename"

    def build(self, ui: UI, dev: Device) -> None:
        panel = ui.dialog_panel(self, height=130 + 110 + 140 + 180 + 140 + 160)
        ui.dialog_title(SAVE_AS)
        with ui.group("android.widget.ScrollView", rid=rid("save_image_holder")), ui.group():
            ui.text("Path", h=70, rid=rid("save_image_path_label"), size=34)
            path = ui.text(humanize(self.folder), h=110, rid=rid("save_image_path"), size=40)
            path.on_tap = lambda: self._pick(dev)
            path.clickable = True
            ui.field(self, "filename", "Filename", rid=rid("save_image_filename"), label="Filename")
            y = ui.y
            radios = []
            x = ui.x0
            for text, ext in FORMATS:
                radios.append(
                    Node("android.widget.RadioButton", (x, y, x + 260, y + 120), text,
                         rid=rid(f"save_image_radio_{ext}"), package=PKG, checkable=True, checked=self.ext == ext,
                         on_tap=lambda e=ext: self._format(e), role="checkbox", label=text, clickable=True)
                )  # fmt: skip
                x += 280
            ui.add(Node("android.widget.RadioGroup", (ui.x0, y, x, y + 120), rid=rid("save_image_radio_group"),
                        package=PKG, children=radios))  # fmt: skip
            ui.y = y + 140
        ui.dialog_buttons(self, [("Cancel", None), ("OK", "ok")])
        ui.end_panel(panel)

    def _format(self, ext: str) -> str:
        self.ext = ext
        return f'Choose "{ext.upper()}" in {LABEL}\'s "{SAVE_AS}" dialog'

    def _pick(self, dev: Device) -> str:
        start = self.folder if storage.is_dir(dev, self.folder) else ""
        dev.open_dialog(FolderPicker(self, start))
        return f'Tap the path "{humanize(self.folder)}" in {LABEL}'

    def finish(self, dev: Device, value: Any) -> str | None:
        if value is None:
            return super().finish(dev, None)
        name = self.form.get("filename", "").strip()
        if not name:
            dev.toast("Filename cannot be empty")
            raise Inapplicable("the file name is empty")
        if "/" in name or "\0" in name:
            dev.toast("Filename contains invalid characters")
            raise Inapplicable("the file name has invalid characters")
        return super().finish(dev, (self.folder, name, self.ext))


class FolderPicker(Dialog):
    """Simple-Commons' ``FilePickerDialog`` choosing a folder for "Save as"."""

    def __init__(self, save: SaveImageDialog, folder: str) -> None:
        super().__init__("", "Select a folder")
        self.save = save
        self.folder = folder

    def build(self, ui: UI, dev: Device) -> None:
        subfolders = [i for i in storage.listing(dev, self.folder) if i.is_dir]
        rows = min(len(subfolders), 8)
        panel = ui.dialog_panel(self, height=130 + 120 + 150 * max(1, rows) + 170, top=STATUS_H + 100)
        ui.dialog_title("Select a folder")
        y, x = ui.y, ui.x0
        crumbs = [(INTERNAL, "")]
        path = ""
        for part in [p for p in self.folder.split("/") if p]:
            path = f"{path}/{part}" if path else part
            crumbs.append((part, path))
        kids = []
        for text, target in crumbs:
            w = min(500, 60 + 26 * len(text))
            kids.append(
                Node("android.widget.TextView", (x, y, x + w, y + 110), f"{text} >" if target != self.folder else text,
                     rid=rid("breadcrumb_text"), package=PKG, on_tap=lambda t=target: self._go(t), role="text",
                     style=36, label=text)
            )  # fmt: skip
            x += w
        ui.add(Node("android.widget.LinearLayout", (ui.x0, y, ui.x1, y + 110), rid=rid("filepicker_breadcrumbs"),
                    package=PKG, children=kids))  # fmt: skip
        ui.y = y + 120

        def render(ui: UI, item: storage.Item) -> None:
            l, t, r, b = ui.rect(150)
            ui.add(
                Node("android.widget.LinearLayout", (l, t, r, b), rid=rid("list_item_holder"), package=PKG,
                     on_tap=lambda: self._go(item.path), role="row", label=item.name, clickable=True,
                     children=[Node("android.widget.TextView", (l + 120, t + 30, r - 20, b - 30), item.name,
                                    rid=rid("list_item_name"), package=PKG, role="text")])
            )  # fmt: skip

        ui.scroll_list(self, "list", subfolders, render, item_h=150, bottom=ui.y + 150 * max(1, rows),
                       list_id="filepicker_list", empty="")  # fmt: skip
        for n in ui.nodes:  # the list inside the dialog's columns
            _narrow(n, ui.x0, ui.x1)
        ui.dialog_buttons(self, [("Cancel", None), ("OK", "ok")])
        ui.end_panel(panel)

    def _go(self, folder: str) -> str:
        self.folder = folder
        self.scroll.clear()
        return f'Open "{humanize(folder)}" in the folder picker'

    def finish(self, dev: Device, value: Any) -> str | None:
        if value is not None:
            self.save.folder = self.folder
        dev.close_dialog()
        dev.open_dialog(self.save)
        return f'Choose the folder "{humanize(self.folder)}"' if value is not None else "Cancel the folder picker"


def _narrow(node: Node, left: int, right: int) -> None:
    l, t, r, b = node.bounds
    node.bounds = (max(l, left), t, min(r, right), b)
    for c in node.children:
        _narrow(c, left, right)


class DrawApp(App):
    name = "draw"
    label = LABEL
    launcher_label = "Draw"
    package = PKG
    activity = f"{PKG}.activities.MainActivity"
    aliases = ("simple draw pro",)
    color = (244, 67, 54)
    icon = "draw"
    layout = ()

    def initial_data(self) -> DrawData:
        return DrawData()

    def root(self, dev: Device) -> Screen:
        return Canvas()


__all__ = ["LABEL", "PKG", "Canvas", "DrawApp", "DrawData", "FolderPicker", "SaveImageDialog", "encode"]
assert CANVAS[3] < SCREEN_H
