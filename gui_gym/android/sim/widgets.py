"""Screens and the layout builder the simulated apps draw with (dialogs: :mod:`.dialogs`).

A :class:`Screen` (an activity on an app's back stack) and a :class:`~.dialogs.Dialog` are plain,
picklable data: what they show is rebuilt into :class:`~gui_gym.android.ui.Node` trees every
step by :meth:`build`, and their behaviour lives in the callbacks the build attaches.
Everything an app needs to look like Android — toolbars, fields with focus, switches,
sliders, scrolling lists, FABs, tabs, menus, date and time pickers — is a method of :class:`UI`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from gui_gym.android.ui import SCREEN_H, SCREEN_W, Node

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device
    from gui_gym.android.sim.dialogs import Dialog

# Geometry of the 1080x2400 device (pixels).
STATUS_H = 84
NAV_TOP = 2274
KEYBOARD_TOP = 1470
TOOLBAR_H = 154
ROW_H = 168
FIELD_H = 150
PAD = 42
MAX_FIELD_CHARS = 500
LAUNCHER_PACKAGE = "com.google.android.apps.nexuslauncher"
KEYBOARD_PACKAGE = "com.google.android.inputmethod.latin"


def decor(package: str, content: Sequence[Node] | Node, top: int, bottom: int, bars: bool = True) -> Node:
    """An activity's window: the DecorView, its LinearLayout and ``android:id/content``
    holding ``content`` (the content area runs from ``top`` to ``bottom``), as in a real dump;
    with ``bars``, the DecorView's own views behind the navigation and status bars follow."""
    kids = [content] if isinstance(content, Node) else list(content)
    frame = Node(
        "android.widget.FrameLayout",
        (0, top, SCREEN_W, bottom),
        rid="android:id/content",
        package=package,
        children=kids,
    )
    body = Node("android.widget.LinearLayout", (0, 0, SCREEN_W, SCREEN_H), package=package, children=[frame])
    kids = [body]
    if bars:
        kids.append(
            Node(
                "android.view.View",
                (0, NAV_TOP, SCREEN_W, SCREEN_H),
                rid="android:id/navigationBarBackground",
                package=package,
            )
        )
        kids.append(
            Node("android.view.View", (0, 0, SCREEN_W, STATUS_H), rid="android:id/statusBarBackground", package=package)
        )
    return Node("android.widget.FrameLayout", (0, 0, SCREEN_W, SCREEN_H), package=package, children=kids)


class Inapplicable(Exception):
    """Raised by a callback when an action cannot be applied; the step becomes a no-op."""


class FormHost:
    """Anything that owns text fields, a focus and scroll offsets (screens and dialogs)."""

    def __init__(self) -> None:
        self.form: dict[str, str] = {}
        self.focus: str | None = None
        self.scroll: dict[str, int] = {}
        self.multiline: set[str] = set()

    def on_key_input(self, dev: Device, key: str, text: str, delete: int, enter: bool) -> str | None:
        """Key input into field ``key`` kept somewhere else than :attr:`form` (a web page's);
        ``None``: the form's field, typed by the phone."""
        return None

    def on_enter(self, dev: Device, key: str) -> str | None:
        """IME action on a single-line field: move to the next field, else hide the keyboard."""
        order = getattr(self, "_field_order", [])
        if key in order and order.index(key) + 1 < len(order):
            self.focus = order[order.index(key) + 1]
            return f'Press Enter to move to the next field "{dev.field_label(self, self.focus)}"'
        self.focus = None
        return "Press Enter"


class Screen(FormHost):
    """One activity. Subclasses implement :meth:`build` and may override :meth:`on_back`."""

    title = ""
    #: another package's activity on the app's task (the permission controller's grant dialog):
    #: its package and activity class name the window and the activity in front; "" for the app's own
    package = ""
    activity = ""

    def __init__(self) -> None:
        super().__init__()
        self.dialog: Dialog | None = None

    def build(self, ui: UI, dev: Device) -> None:
        raise NotImplementedError

    def on_gesture(self, dev: Device, points: list[tuple[int, int]]) -> str | None:
        """A finger's whole gesture through ``points``, for a screen that takes gestures as they
        are (a WebView's page); ``None``: the phone's own taps, presses and swipes."""
        return None

    def check_input_text(self, dev: Device, point: tuple[int, int] | None, text: str) -> None:
        """Raise :class:`Inapplicable` before an ``input_text`` touches anything, where the screen
        could not undo its tap (a page in a browser); default: nothing to check."""

    def on_back(self, dev: Device) -> str | None:
        """Handle system Back before the screen is popped; return a description to consume it."""
        return None

    def screen_name(self) -> str:
        return type(self).__name__


class UI:
    """Lays nodes out top to bottom in the content area; a fresh one per build.

    Callbacks attached to nodes return a description of what they did (or ``None`` for the
    default "Tap the ... in App") and raise :class:`Inapplicable` when they cannot act.
    """

    def __init__(self, dev: Device, package: str, top: int, bottom: int, app_label: str) -> None:
        self.dev = dev
        self.package = package
        self.app_label = app_label
        self.top = top
        self.bottom = bottom
        self.content_bottom = bottom  # the content area's bottom (``bottom`` shrinks above a bottom bar)
        self.y = top
        self.nodes: list[Node] = []
        self._stack: list[tuple[list[Node], int, int]] = []
        self.x0, self.x1 = PAD, SCREEN_W - PAD  # default horizontal extent of widgets
        self.outside: Callable[[], Any] | None = None  # what a touch outside a dialog does

    def content(self, layout: Sequence[tuple[str, str]] = ()) -> list[Node]:
        """The screen's nodes inside the app's own root layouts (``(class, resource id)`` from
        the outermost in), each spanning the content area, as an activity's layout nests them."""
        nodes, box = self.nodes, (0, self.top, SCREEN_W, self.content_bottom)
        for cls, rid in reversed(layout):
            nodes = [Node(cls, box, rid=rid, package=self.package, children=nodes)]
        return nodes

    def dialog_root(self) -> Node:
        """The dialog window's root, once a dialog's :meth:`Dialog.build` has run."""
        return next(n for n in self.nodes if n.role == "panel")

    @contextmanager
    def group(self, cls: str = "android.widget.LinearLayout", rid: str = "", **kw: Any) -> Iterator[Node]:
        """A layout container around the widgets added inside the ``with`` block; its bounds are
        their union (a container without children is left out, as a real dump has none)."""
        node = Node(cls, (0, 0, 0, 0), rid=rid, package=self.package, **kw)
        saved, self.nodes = self.nodes, node.children
        try:
            yield node
        finally:
            self.nodes = saved
            if node.children:
                node.bounds = union(c.bounds for c in node.children)
                self.add(node)

    # -- plumbing ------------------------------------------------------------------------
    def add(self, node: Node) -> Node:
        if not node.package:
            node.package = self.package
        self.nodes.append(node)
        return node

    def rect(self, h: int, x0: int | None = None, x1: int | None = None) -> tuple[int, int, int, int]:
        r = (self.x0 if x0 is None else x0, self.y, self.x1 if x1 is None else x1, self.y + h)
        self.y += h
        return r

    def spacer(self, h: int) -> None:
        self.y += h

    # -- widgets -------------------------------------------------------------------------
    def toolbar(
        self,
        title: str,
        up: bool | Callable[[], Any] = True,
        actions: Sequence[tuple[str, str, Callable[[], Any]]] = (),
    ) -> None:
        """App bar with optional navigate-up arrow and icon actions ``(desc, icon, on_tap)``: an
        AppBarLayout holding the Toolbar (reported as ``android.view.ViewGroup``), whose action
        items sit in an ActionMenuView and are reported as buttons with a description."""
        y = self.y
        box = (0, y, SCREEN_W, y + TOOLBAR_H)
        bar = Node(
            "android.view.ViewGroup", box, rid=f"{self.package}:id/toolbar", package=self.package, role="toolbar"
        )
        self.add(Node("android.widget.LinearLayout", box, rid=f"{self.package}:id/app_bar_layout", children=[bar]))
        x = 24
        if up:
            cb = up if callable(up) else self._navigate_up
            bar.children.append(
                Node(
                    "android.widget.ImageButton",
                    (x, y + 17, x + 120, y + 137),
                    desc="Navigate up",
                    package=self.package,
                    on_tap=cb,
                    role="icon",
                    style="arrow_left",
                )
            )
            x += 140
        right = SCREEN_W - 24
        icons = []
        for desc, icon, cb in reversed(list(actions)):
            icons.append(
                Node(
                    "android.widget.Button",
                    (right - 120, y + 17, right, y + 137),
                    desc=desc,
                    package=self.package,
                    on_tap=cb,
                    role="icon",
                    style=icon,
                    rid=f"{self.package}:id/{icon}",
                )
            )
            right -= 130
        bar.children.append(
            Node("android.widget.TextView", (x, y + 17, right, y + 137), title, package=self.package, role="title")
        )
        if icons:
            menu = Node(
                "android.widget.LinearLayout",
                union(n.bounds for n in icons),
                package=self.package,
                children=list(reversed(icons)),
            )
            bar.children.append(menu)
        self.y += TOOLBAR_H

    def _navigate_up(self) -> str:
        # Up leaves the screen even with the keyboard showing (Back would only hide it).
        self.dev.state.keyboard = False
        return self.dev.press_back(described='Tap the "Navigate up" button')

    def text(
        self, text: str, h: int = 100, rid: str = "", size: int = 42, desc: str = "", x0: int | None = None
    ) -> Node:
        return self.add(
            Node("android.widget.TextView", self.rect(h, x0=x0), text, rid=rid, desc=desc, role="text", style=size)
        )

    def button(
        self,
        text: str,
        on_tap: Callable[[], Any],
        rid: str = "",
        h: int = 140,
        cls: str = "android.widget.Button",
        selected: bool = False,
        role: str = "button",
        enabled: bool = True,
        x0: int | None = None,
        x1: int | None = None,
    ) -> Node:
        r = self.rect(h, x0, x1)
        return self.add(
            Node(
                cls,
                r,
                text,
                rid=rid,
                on_tap=on_tap if enabled else None,
                clickable=True,
                focusable=True,
                selected=selected,
                role=role,
                enabled=enabled,
            )
        )

    def field(
        self,
        host: FormHost,
        key: str,
        hint: str,
        rid: str = "",
        label: str = "",
        multiline: bool = False,
        h: int | None = None,
        password: bool = False,
    ) -> Node:
        """An EditText bound to ``host.form[key]``. Empty fields show their hint as text, as
        uiautomator reports them. Tapping focuses it and raises the keyboard."""
        order = host.__dict__.setdefault("_field_order", [])
        if key not in order:
            order.append(key)
        if multiline:
            host.multiline.add(key)
        value = host.form.get(key, "")
        hgt = h or (FIELD_H * 3 if multiline else FIELD_H)
        r = self.rect(hgt)
        self.y += 30
        name = label or hint
        focused = host.focus == key

        def tap() -> str:
            host.focus = key
            self.dev.state.keyboard = True
            return f'Tap the "{name}" field'

        shown = ("•" * len(value) if password else value) if value else hint
        node = self.add(
            Node(
                "android.widget.EditText",
                r,
                shown,
                rid=rid,
                on_tap=tap,
                focusable=True,
                focused=focused,
                password=password,
                field=(host, key),
                label=name,
                role="field",
                style="hint" if not value else None,
            )
        )
        return node

    def switch(
        self, label: str, checked: bool, on_toggle: Callable[[bool], Any], rid: str = "", summary: str = ""
    ) -> Node:
        """A settings-style row with a Switch; tapping the row or the switch toggles it."""
        r = self.rect(ROW_H + (50 if summary else 0), x0=0, x1=SCREEN_W)
        _l, t, _rr, b = r

        def tap() -> str:
            on_toggle(not checked)
            return f'Turn {"off" if checked else "on"} "{label}" in {self.app_label}'

        # A preference row as AndroidX lays it out: the texts in a RelativeLayout, the switch in
        # android:id/widget_frame.
        row = self.add(Node("android.widget.LinearLayout", r, on_tap=tap, label=label, role="row"))
        texts = [
            Node(
                "android.widget.TextView",
                (PAD, t + 30, 820, t + 110),
                label,
                package=self.package,
                rid="android:id/title",
                role="text",
            )
        ]
        if summary:
            texts.append(
                Node(
                    "android.widget.TextView",
                    (PAD, t + 110, 820, b - 20),
                    summary,
                    package=self.package,
                    rid="android:id/summary",
                    role="subtext",
                )
            )
        row.children.append(
            Node("android.widget.RelativeLayout", union(n.bounds for n in texts), package=self.package, children=texts)
        )
        switch = Node(
            "android.widget.Switch",
            (860, t + 40, 1040, b - 40),
            "ON" if checked else "OFF",
            package=self.package,
            rid="android:id/switch_widget",
            checkable=True,
            checked=checked,
            on_tap=tap,
            label=label,
            role="switch",
        )
        frame = Node("android.widget.LinearLayout", switch.bounds, rid="android:id/widget_frame", package=self.package)
        frame.children.append(switch)
        row.children.append(frame)
        return row

    def checkbox(self, label: str, checked: bool, on_toggle: Callable[[bool], Any], rid: str = "") -> Node:
        def tap() -> str:
            on_toggle(not checked)
            return f'{"Uncheck" if checked else "Check"} "{label}"'

        return self.add(
            Node(
                "android.widget.CheckBox",
                self.rect(ROW_H - 30),
                label,
                rid=rid,
                checkable=True,
                checked=checked,
                on_tap=tap,
                role="checkbox",
                label=label,
            )
        )

    def slider(
        self, label: str, value: int, on_change: Callable[[int], Any], rid: str = "", step: int = 100, h: int = 130
    ) -> Node:
        """A SeekBar from 0 to 100 percent (text "NN%"), dragged sideways.

        A finger swipe to the right moves the thumb right (a scroll's content direction is the
        opposite: AndroidWorld's ``scroll left`` is this swipe) and raises the value by ``step``
        times the swipe's share of the width (short 0.25, medium 0.5, long 0.75), clamped to
        0-100; to the left lowers it. Vertical swipes are refused. The action is described by the
        change it made, not as a scroll: ``Drag the "Brightness level" slider right (to 70%)``,
        ``(to 100%, the maximum)`` at an end, ``(already at 100%, the maximum)`` when the thumb
        was there already.
        """

        def drag(content_dir: str, frac: float) -> str:
            if content_dir not in ("left", "right"):
                raise Inapplicable(f'the "{label}" slider moves sideways: swipe left or right on it')
            thumb = "right" if content_dir == "left" else "left"  # the finger's direction
            new = max(0, min(100, value + round(frac * step) * (1 if thumb == "right" else -1)))
            end = {0: ", the minimum", 100: ", the maximum"}.get(new, "")
            if new != value:
                on_change(new)
            where = f"to {new}%" if new != value else f"already at {new}%"
            return f'Drag the "{label}" slider {thumb} ({where}{end})'

        return self.add(
            Node(
                "android.widget.SeekBar",
                self.rect(h),
                f"{value}%",
                rid=rid,
                desc=label,
                on_scroll=drag,
                focusable=True,
                role="slider",
                style=value,
                label=label,
            )
        )

    def row(
        self,
        title: str,
        subtitle: str = "",
        on_tap: Callable[[], Any] | None = None,
        on_long_press: Callable[[], Any] | None = None,
        rid: str = "",
        h: int = ROW_H,
        icon: str | None = None,
        trailing: Node | None = None,
        label: str = "",
    ) -> Node:
        """A two-line list item. The row is the clickable view; its texts are children."""
        l, t, r, b = self.rect(h, x0=0, x1=SCREEN_W)
        node = self.add(
            Node(
                "android.widget.LinearLayout",
                (l, t, r, b),
                on_tap=on_tap,
                on_long_press=on_long_press,
                rid=rid,
                label=label or title,
                role="row",
            )
        )
        x = PAD
        if icon:
            node.children.append(
                Node(
                    "android.widget.ImageView",
                    (x, t + 24, x + h - 48, b - 24),
                    package=self.package,
                    role="avatar",
                    style=icon,
                )
            )
            x += h - 20
        if subtitle:
            node.children.append(
                Node(
                    "android.widget.TextView",
                    (x, t + 20, 900, t + h // 2 + 4),
                    title,
                    package=self.package,
                    role="text",
                )
            )
            node.children.append(
                Node(
                    "android.widget.TextView",
                    (x, t + h // 2 + 4, 1000, b - 16),
                    subtitle,
                    package=self.package,
                    role="subtext",
                )
            )
        else:
            node.children.append(
                Node("android.widget.TextView", (x, t + 30, 1000, b - 30), title, package=self.package, role="text")
            )
        if trailing is not None:
            trailing.package = self.package
            node.children.append(trailing)
        return node

    def scroll_list(
        self,
        host: FormHost,
        key: str,
        items: Sequence[Any],
        render: Callable[[UI, Any], None],
        item_h: int = ROW_H,
        bottom: int | None = None,
        empty: str = "Nothing here yet",
        list_id: str = "list",
        cls: str = "androidx.recyclerview.widget.RecyclerView",
    ) -> Node:
        """A RecyclerView of ``items``: only the rows inside the viewport exist in the tree.

        ``render(ui, item)`` draws one item of height ``item_h``. The viewport runs from the
        current ``y`` to ``bottom`` (the content bottom by default); a swipe scrolls it.
        """
        top = self.y
        bottom = bottom or self.bottom
        view_h = max(1, bottom - top)
        total = len(items) * item_h
        max_off = max(0, total - view_h)
        off = min(host.scroll.get(key, 0), max_off)

        def scroll(direction: str, frac: float) -> bool:
            if direction not in ("up", "down"):
                raise Inapplicable("this list scrolls vertically only")
            cur = min(host.scroll.get(key, 0), max_off)
            delta = int(view_h * frac) * (1 if direction == "down" else -1)
            new = max(0, min(max_off, cur + delta))
            host.scroll[key] = new
            return new != cur

        container = Node(
            cls,
            (0, top, SCREEN_W, bottom),
            rid=f"{self.package}:id/{list_id}",
            package=self.package,
            on_scroll=scroll if max_off > 0 else None,
            role="list",
            style=(off, max_off),
        )
        # Lists sit in a container of their own (a list frame, a swipe-to-refresh layout).
        self.add(Node("android.widget.FrameLayout", container.bounds, children=[container]))
        if not items:
            self.y = top + 60
            self.text(empty, rid=f"{self.package}:id/empty", size=40)
            self.y = bottom
            return container
        first = off // item_h
        last = min(len(items), (off + view_h) // item_h + 1)
        saved, self.nodes = self.nodes, []
        for i in range(first, last):
            self.y = top + i * item_h - off
            render(self, items[i])
        rows, self.nodes = self.nodes, saved
        from gui_gym.android.ui import clip

        for n in rows:
            if clip(n, top, bottom) is not None:
                container.children.append(n)
        self.y = bottom
        return container

    def fab(self, desc: str, on_tap: Callable[[], Any], rid: str = "", icon: str = "add") -> Node:
        """A floating action button at the bottom right of the content area."""
        b = self.bottom - 60
        return self.add(
            Node(
                "android.widget.ImageButton",
                (SCREEN_W - 230, b - 170, SCREEN_W - 60, b),
                desc=desc,
                rid=rid or f"{self.package}:id/fab",
                on_tap=on_tap,
                role="fab",
                style=icon,
            )
        )

    def tabs(self, names: Sequence[str], selected: str, on_select: Callable[[str], Any], bottom: bool = False) -> None:
        """A tab row (top) or a bottom navigation bar."""
        h = 150
        y = self.bottom - h if bottom else self.y
        w = SCREEN_W // len(names)
        for i, name in enumerate(names):
            self.add(
                Node(
                    "android.widget.TextView" if not bottom else "android.widget.FrameLayout",
                    (i * w, y, (i + 1) * w, y + h),
                    name,
                    desc=name,
                    selected=name == selected,
                    on_tap=lambda n=name: on_select(n),
                    role="tab",
                    label=name,
                    rid=f"{self.package}:id/{'navigation_bar_item' if bottom else 'tab'}",
                )
            )
        if bottom:
            self.bottom = y
        else:
            self.y += h

    # -- dialogs -------------------------------------------------------------------------
    def dialog_panel(self, dialog: Dialog, height: int, top: int | None = None) -> Node:
        """The dialog's window (DecorView, ``android:id/content``, ``parentPanel``); children go
        into the panel until :meth:`end_panel`. A touch outside it cancels a cancelable dialog."""

        def outside() -> str:
            if not dialog.cancelable:
                raise Inapplicable("this dialog must be answered")
            dialog.finish(self.dev, None)
            return "Tap outside the dialog to dismiss it"

        self.outside = outside
        bottom_limit = KEYBOARD_TOP - 40 if self.dev.state.keyboard else NAV_TOP - 60
        t = top if top is not None else max(STATUS_H + 60, min((NAV_TOP - height) // 2, bottom_limit - height))
        box = (60, t, SCREEN_W - 60, t + height)
        parent = Node("android.widget.LinearLayout", box, rid="android:id/parentPanel", package=self.package)
        content = Node(
            "android.widget.FrameLayout", box, rid="android:id/content", package=self.package, children=[parent]
        )
        body = Node("android.widget.LinearLayout", box, package=self.package, children=[content])
        panel = self.add(
            Node(
                "android.widget.FrameLayout",
                box,
                role="panel",
                style="opaque",
                package=self.package,
                children=[body],
            )
        )
        self._stack.append((self.nodes, self.x0, self.x1))
        self.nodes = parent.children
        self.x0, self.x1 = 100, SCREEN_W - 100
        self.y = t + 30
        return panel

    def end_panel(self, panel: Node) -> None:
        self.nodes, self.x0, self.x1 = self._stack.pop()

    def dialog_title(self, title: str, rid: str = "android:id/alertTitle") -> None:
        with self.group(rid="android:id/topPanel"), self.group(rid="android:id/title_template"):
            self.add(Node("android.widget.TextView", self.rect(100), title, rid=rid, role="title"))
        self.y += 20

    def dialog_buttons(self, dialog: Dialog, buttons: Sequence[tuple[str, Any]]) -> None:
        """The button bar, right-aligned; the last button is the positive one (``button1``), the
        one before it the negative (``button2``), as AlertDialog numbers them."""
        y = self.y + 10
        right = SCREEN_W - 100
        placed = []
        for i, (label, value) in enumerate(reversed(list(buttons))):
            w = max(200, 40 * len(label) + 60)
            placed.append((i, label, value, (right - w, y, right, y + 120)))
            right -= w + 20
        with self.group("android.widget.ScrollView", rid="android:id/buttonPanel"), self.group():
            for i, label, value, box in reversed(placed):
                self.add(
                    Node(
                        "android.widget.Button",
                        box,
                        label.upper(),
                        label=label,
                        rid=f"android:id/button{i + 1}",
                        on_tap=lambda v=value: dialog.finish(self.dev, v),
                        role="textbutton",
                    )
                )
        self.y = y + 130


def union(boxes: Iterable[tuple[int, int, int, int]]) -> tuple[int, int, int, int]:
    """The smallest box holding every box of ``boxes``."""
    ls, ts, rs, bs = zip(*boxes, strict=True)
    return min(ls), min(ts), max(rs), max(bs)
