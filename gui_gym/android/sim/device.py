"""The simulated phone: system UI, app switching, input dispatch, snapshot/restore.

:class:`DeviceState` is all mutable state (app databases, back stacks, focus, dialogs,
clock, system settings) and is plain picklable data, so :meth:`Device.snapshot` /
:meth:`Device.restore` fork a device cheaply. :class:`Device` holds the code: it builds the
current screen as windows (:meth:`Device.windows`: the app or launcher, the app's dialog, the
keyboard, the status and navigation bars; the active one is what a dump shows) and applies
actions to it the way Android routes input (topmost view under the finger wins, a touch outside
a dialog cancels it; Back closes the keyboard, then a dialog, then the activity).
"""

from __future__ import annotations

import datetime as dt
import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gui_gym.android.actions import (
    MAX_QUOTE,
    TYPE_CLEAR_CHARS,
    Action,
    ActionParseError,
    clip_text,
    parse_action,
    quoted,
)
from gui_gym.android.backends.base import Outcome
from gui_gym.android.sim.apps import APPS, App
from gui_gym.android.sim.dialogs import Dialog
from gui_gym.android.sim.key_input import CLEAR_ALL, KeyInput
from gui_gym.android.sim.keyboard import build_keyboard
from gui_gym.android.sim.media import MEDIA, MediaStore
from gui_gym.android.sim.system_ui import (
    drawer,
    home_screen,
    launcher_key,
    nav_bar,
    recents,
    status_bar,
    status_key,
)
from gui_gym.android.sim.text_selection import FLOATING_TOOLBAR_TAG, TextSelection, add_text_toolbar
from gui_gym.android.sim.widgets import (
    KEYBOARD_PACKAGE,
    KEYBOARD_TOP,
    LAUNCHER_PACKAGE,
    NAV_TOP,
    STATUS_H,
    UI,
    Inapplicable,
    Screen,
    decor,
)
from gui_gym.android.ui import SCREEN_H, SCREEN_W, SYSTEM_PACKAGE, Node, Window, flatten
from gui_gym.core.io import Snapshot

_SWIPE_FRACTION = {"short": 0.25, "medium": 0.5, "long": 0.75}
_FINGER_TO_CONTENT = {"up": "down", "down": "up", "left": "right", "right": "left"}
# Names AndroidWorld (adb_utils._PATTERN_TO_ACTIVITY) sends to apps this phone does not have.
_ABSENT_APPS = {
    "messages": ("Google Messages", "text messages are sent with Simple SMS Messenger"),
    "google calendar|gcal": ("Google Calendar", "the calendar is Simple Calendar Pro"),
}
# Names AndroidWorld opens with a VIEW intent of a default URI (adb_utils._DEFAULT_URIS) where the
# phone's app for it is not found by name: the app that takes the intent here.
_DEFAULT_URI_APPS = {"gallery": "gallery"}
_WINDOW_IDS = {"launcher": 3, "app": 5, "dialog": 7, "keyboard": 9, "status": 11, "nav": 13}
_LONG_PRESS_TOUCHES = 3  # android_env: held for this many TOUCH steps without moving
#: the launcher's activity (``am stack list`` on the home screen)
LAUNCHER_ACTIVITY = "com.android.launcher3.uioverrides.QuickstepLauncher"


@dataclass
class DeviceState:
    """Everything that changes while the phone runs."""

    now: dt.datetime = dt.datetime(2023, 10, 15, 9, 30)
    settings: dict[str, Any] = field(default_factory=dict)
    data: dict[str, Any] = field(default_factory=dict)  # app name -> its database
    stacks: dict[str, list[Screen]] = field(default_factory=dict)
    foreground: str | None = None  # None: the launcher
    recents_open: bool = False
    drawer_open: bool = False  # the launcher's list of all apps, over the home screen
    recents: list[str] = field(default_factory=list)
    launched: set[str] = field(default_factory=set)  # every app opened since reset
    keyboard: bool = False
    keys: str = "letters"  # the keyboard's page (keyboard.PAGES); it opens on its letters
    toast: str | None = None
    toast_step: int = -1
    step: int = 0
    touches: list[tuple[int, int]] = field(default_factory=list)
    events: list[str] = field(default_factory=list)  # app events for checks (e.g. "sms_sent")
    clipboard: str = ""  # the primary clip's text
    selection: TextSelection | None = None  # the field whose text-selection toolbar shows


DEFAULT_SETTINGS = {
    "wifi": False,
    "bluetooth": False,
    "airplane": False,
    "brightness": 50,
    "dark_theme": False,
    "auto_rotate": True,
    "battery_saver": False,
    "dnd": False,
    "location": True,
    "font_size": "Default",
}


class Device(KeyInput):
    """A 1080x2400 Android phone with the apps of :data:`~gui_gym.android.sim.apps.APPS`.

    Example:
        >>> from gui_gym.android.actions import parse_action
        >>> d = Device()
        >>> d.act(parse_action('do(action="Launch", app="Clock")')).description
        'Launch Clock'
        >>> d.state.foreground
        'clock'
    """

    def __init__(self, apps: dict[str, App] | None = None) -> None:
        self.apps = apps if apps is not None else APPS
        self._windows: list[Window] | None = None
        self._screen: Node | None = None
        self._flat: list[Node] | None = None
        self._touchable: list[Node] | None = None
        self._system: dict[str, tuple[tuple, Node]] = {}
        #: where the finger is while a tap or swipe handler runs (a seek bar acts where it lands)
        self.touch_point: tuple[int, int] | None = None
        #: what apps run outside the simulator for this phone (a browser for web pages), by name;
        #: never part of its state, closed with :meth:`close`
        self.resources: dict[str, Any] = {}
        self.state = DeviceState()
        self.reset()

    # -- lifecycle -----------------------------------------------------------------------
    def reset(self, now: dt.datetime | None = None) -> None:
        """Factory state: every app's default data, launcher in front."""
        self.state = DeviceState(now=now or dt.datetime(2023, 10, 15, 9, 30), settings=dict(DEFAULT_SETTINGS))
        for name, app in self.apps.items():
            self.state.data[name] = app.initial_data()
        self.state.data[MEDIA] = MediaStore()  # shared storage: pictures and videos (sim.media)
        self.invalidate()

    def snapshot(self) -> Snapshot:
        """A copy of the full device state, in memory; :meth:`restore` brings it back."""
        return Snapshot.take(self.state)

    def restore(self, snap: Snapshot) -> None:
        if not isinstance(snap, Snapshot):
            raise TypeError(f"restore() takes what snapshot() returned, not {type(snap).__name__}")
        self.state = snap.load()
        self.invalidate()

    def data(self, app: str) -> Any:
        return self.state.data[app]

    def top_activity(self) -> str:
        """``package/activity`` of the activity in front (what ``am stack list`` reports as the
        visible task's ``topActivity``, AndroidWorld's ``get_current_activity``): the launcher's,
        the app's, a screen's own activity where it names one, or another package's activity on
        the app's task (the permission controller's grant dialog: :attr:`Screen.package
        <gui_gym.android.sim.widgets.Screen.package>`)."""
        st = self.state
        if st.recents_open or st.foreground is None:
            return f"{LAUNCHER_PACKAGE}/{LAUNCHER_ACTIVITY}"
        app = self.apps[st.foreground]
        screen = self.top_screen()
        package = (screen.package if screen is not None else "") or app.package
        activity = (screen.activity if screen is not None else "") or app.activity or f"{app.package}.MainActivity"
        return f"{package}/{activity}"

    # -- navigation ----------------------------------------------------------------------
    def app(self, name: str | None = None) -> App | None:
        name = self.state.foreground if name is None else name
        return None if name is None else self.apps[name]

    def top_screen(self) -> Screen | None:
        fg = self.state.foreground
        if fg is None or self.state.recents_open:
            return None
        stack = self.state.stacks.get(fg)
        return stack[-1] if stack else None

    def launch(self, name: str) -> str:
        app = self.apps[name]
        self.state.recents_open = False
        self.state.drawer_open = False
        self.state.keyboard = False
        if not self.state.stacks.get(name):
            self.state.stacks[name] = [app.root(self)]
        self.state.foreground = name
        if name in self.state.recents:
            self.state.recents.remove(name)
        self.state.recents.insert(0, name)
        self.state.launched.add(name)
        return f"Launch {app.label}"

    def push(self, screen: Screen) -> None:
        fg = self.state.foreground
        assert fg is not None, "push() needs an app in front"
        self.state.stacks[fg].append(screen)
        self.state.keyboard = screen.focus is not None

    def pop(self) -> None:
        """Finish the top activity; finishing the root returns to the launcher."""
        fg = self.state.foreground
        if fg is None:
            return
        stack = self.state.stacks[fg]
        stack.pop()
        self.state.keyboard = False
        if not stack:
            del self.state.stacks[fg]
            self.state.foreground = None

    def open_dialog(self, dialog: Dialog) -> None:
        screen = self.top_screen()
        assert screen is not None, "a dialog needs a screen"
        screen.dialog = dialog
        self.state.keyboard = dialog.focus is not None

    def close_dialog(self) -> None:
        screen = self.top_screen()
        if screen is not None:
            screen.dialog = None
        self.state.keyboard = False

    def toast(self, text: str) -> None:
        self.state.toast = text
        self.state.toast_step = self.state.step

    def go_home(self) -> str:
        self.state.recents_open = False
        self.state.drawer_open = False
        self.state.keyboard = False
        self.state.foreground = None
        return "Go to the home screen"

    def press_back(self, described: str = "Press Back") -> str:
        st = self.state
        if st.recents_open:
            st.recents_open = False
            return f"{described} to close recent apps"
        if st.keyboard:
            st.keyboard = False
            return f"{described} to hide the keyboard"
        screen = self.top_screen()
        if screen is None and st.drawer_open and st.foreground is None:
            st.drawer_open = False
            return f"{described} to close the app drawer"
        if screen is None:
            return f"{described} on the home screen (nothing happens)"
        if screen.dialog is not None:
            screen.dialog = None
            return f"{described} to close the dialog"
        handled = screen.on_back(self)
        if handled:
            return handled
        self.pop()
        return described

    def close(self) -> None:
        """Close what runs outside the simulator for this phone (a browser); the phone itself
        stays usable (a page needed again starts a new browser)."""
        for resource in self.resources.values():
            close = getattr(resource, "close", None)
            if close is not None:
                close()
        self.resources.clear()

    # -- the screen ----------------------------------------------------------------------
    def windows(self) -> list[Window]:
        """The windows on screen, bottom of the z-order first (built once per state change).

        An app's activity, its dialog, the keyboard, the status bar and the navigation bar are
        separate windows, as on a phone; exactly one is active (the launcher, the app, or the
        app's dialog while one is open).
        """
        if self._windows is None:
            self._build()
        assert self._windows is not None
        return self._windows

    def window(self) -> Window:
        """The active window: the one ``uiautomator dump`` writes."""
        return next(w for w in self.windows() if w.active)

    def tree(self) -> Node:
        """The active window's view hierarchy (what ``uiautomator dump`` reports)."""
        return self.window().root

    def screen(self) -> Node:
        """Every window composed as the screen shows them, in paint order, plus what only pixels
        show (a dialog's dimming, a toast): what the renderer draws and a finger touches."""
        if self._screen is None:
            self._build()
        assert self._screen is not None
        return self._screen

    def invalidate(self) -> None:
        self._windows = self._screen = self._flat = self._touchable = None

    def elements(self) -> list[Node]:
        """The nodes of :meth:`tree` in pre-order (the order of the dump)."""
        if self._flat is None:
            self._flat = flatten(self.tree())
        return self._flat

    def _screen_nodes(self) -> list[Node]:
        if self._touchable is None:
            self._touchable = flatten(self.screen())
        return self._touchable

    def _build(self) -> None:
        st = self.state
        status, nav = (
            self._kept("status", status_key(self), lambda: status_bar(self)),
            self._kept("nav", (), lambda: nav_bar(self)),
        )
        paint: list[Node] = [status]
        windows: list[Window] = []
        if st.recents_open or st.foreground is None:
            if st.recents_open:
                shown = recents(self)
            elif st.drawer_open:
                shown = self._kept("drawer", (), lambda: drawer(self))
            else:
                shown = self._kept("launcher", launcher_key(self), lambda: home_screen(self))
            main = decor(LAUNCHER_PACKAGE, shown, top=0, bottom=SCREEN_H, bars=False)  # the launcher is edge to edge
            windows.append(
                Window(
                    _WINDOW_IDS["launcher"],
                    "application",
                    1,
                    "Launcher",
                    LAUNCHER_PACKAGE,
                    main.bounds,
                    main,
                    active=True,
                    focused=True,
                )
            )
            paint.append(main)
        else:
            app = self.apps[st.foreground]
            screen = self.top_screen()
            assert screen is not None
            bottom = KEYBOARD_TOP if st.keyboard else NAV_TOP
            pkg = screen.package or app.package  # another package's activity on the app's task
            ui = UI(self, pkg, STATUS_H, bottom, app.label)
            screen.build(ui, self)
            main = decor(pkg, ui.content(() if screen.package else app.layout), top=STATUS_H, bottom=bottom)
            dialog = screen.dialog
            windows.append(
                Window(
                    _WINDOW_IDS["app"],
                    "application",
                    1,
                    app.label,
                    pkg,
                    main.bounds,
                    main,
                    active=dialog is None,
                    focused=dialog is None,
                )
            )
            paint.append(main)
            if dialog is not None:
                dui = UI(self, app.package, STATUS_H, bottom, app.label)
                dialog.build(dui, self)
                panel = dui.dialog_root()
                windows.append(
                    Window(
                        _WINDOW_IDS["dialog"],
                        "application",
                        2,
                        dialog.title or app.label,
                        app.package,
                        panel.bounds,
                        panel,
                        active=True,
                        focused=True,
                    )
                )
                # The dimming behind a dialog is no view: a touch on it dismisses the dialog.
                scrim = Node(
                    "android.view.View", (0, 0, SCREEN_W, NAV_TOP), package="android", on_tap=dui.outside, role="scrim"
                )
                paint += [scrim, panel]
            if st.selection is not None:
                add_text_toolbar(self, windows[-1].root, app.package)
        if st.keyboard and self.focused_host() is not None:
            kb = self._kept("keyboard", (st.keys,), lambda: build_keyboard(self))
            windows.append(
                Window(_WINDOW_IDS["keyboard"], "input_method", 3, "InputMethod", KEYBOARD_PACKAGE, kb.bounds, kb)
            )
            paint.append(kb)
        if st.toast is not None and st.toast_step >= st.step - 1:
            # A toast is drawn over everything but is no node of any window's tree.
            paint.append(
                Node(
                    "android.widget.Toast",
                    (190, NAV_TOP - 260, SCREEN_W - 190, NAV_TOP - 150),
                    st.toast,
                    package=SYSTEM_PACKAGE,
                    role="toast",
                )
            )
        windows.append(Window(_WINDOW_IDS["status"], "system", 4, "StatusBar", SYSTEM_PACKAGE, status.bounds, status))
        windows.append(Window(_WINDOW_IDS["nav"], "system", 5, "NavigationBar", SYSTEM_PACKAGE, nav.bounds, nav))
        paint.append(nav)
        self._windows = windows
        self._screen = Node(
            "android.widget.FrameLayout",
            (0, 0, SCREEN_W, SCREEN_H),
            package=SYSTEM_PACKAGE,
            children=paint,
            role="screen",
        )

    def _kept(self, part: str, key: tuple, build: Callable[[], Node]) -> Node:
        """The system UI's ``part`` (status bar, navigation bar, home screen, keyboard) for
        ``key``, the state it shows: built once, then the same nodes while ``key`` holds. (No
        node of a built screen changes afterwards; their handlers act on this device's state.)"""
        kept = self._system.get(part)
        if kept is None or kept[0] != key:
            kept = self._system[part] = (key, build())
        return kept[1]

    # -- input ---------------------------------------------------------------------------
    def act(self, action: Action) -> Outcome:
        """Apply one action. One that is not applicable changes nothing, not even the clock.

        The action is checked first (:func:`~gui_gym.android.actions.parse_action`), so a caller
        that hands the device an :class:`Action` holding anything gets a refusal, not a crash.
        """
        try:
            action = parse_action(action)
        except ActionParseError as e:
            return Outcome(False, f"Invalid action: {e}", reason=str(e))
        # Handlers raise Inapplicable before they change anything; input_text is the one
        # composite action (tap, then type) that may fail half-way, so it alone is rolled back.
        # (An Enter after typing that has nothing to do is part of no failure: the text stays.)
        before = self.snapshot() if action.kind == "input_text" else None
        selection = self.state.selection
        try:
            out = self._dispatch(action)
        except Inapplicable as e:
            if before is not None:
                self.restore(before)
            # Nothing changed, so the screen built before stays (restore() rebuilds).
            return Outcome(False, f"Invalid action: {e}", reason=str(e))
        if selection is not None and self.state.selection is selection and action.kind not in ("wait", "touch"):
            self.state.selection = None  # whatever else was done dismissed the text-selection toolbar
        if not self.state.keyboard or self.focused_host() is None:
            self.state.keys = "letters"  # a keyboard that hides opens on its letters next time
        # Time passes only when something was done: an invalid action is a no-op, so a toast
        # stays and the clock stands still, as if the action had never been sent.
        self.state.step += 1
        seconds = 3 if action.kind == "wait" else 1
        self.state.now += dt.timedelta(seconds=seconds)
        self.invalidate()
        return out

    def pass_time(self, seconds: float) -> None:
        """Let ``seconds`` pass on the phone's clock with nothing done (``adb shell sleep``)."""
        if seconds > 0:
            self.state.now += dt.timedelta(seconds=seconds)
            self.invalidate()

    def delete_keys(self, n: int) -> Outcome:
        """Press Delete *n* times in the focused field (``input keyevent KEYCODE_DEL`` over adb),
        with :meth:`act`'s rules: nothing to delete changes nothing."""
        try:
            if n < 1:
                raise Inapplicable("no key to press")
            fh = self.focused_host()
            if fh is None or not fh[0].form.get(fh[1], ""):
                raise Inapplicable("no text to delete: the focused field is empty or nothing has focus")
            described = self.type_text("", delete=n)
            self.state.selection = None
        except Inapplicable as e:
            return Outcome(False, f"Invalid action: {e}", reason=str(e))
        self.state.step += 1
        self.state.now += dt.timedelta(seconds=1)
        self.invalidate()
        return Outcome(True, described)

    def _point(self, a: Action) -> tuple[int, int] | None:
        if a.index is not None:
            els = self.elements()
            if not 0 <= a.index < len(els):
                raise Inapplicable(f"index {a.index} out of range: the screen has {len(els)} elements")
            return els[a.index].center()
        c = a.center()
        if c is not None and not (0 <= c[0] < SCREEN_W and 0 <= c[1] < SCREEN_H):
            raise Inapplicable(f"point ({c[0]}, {c[1]}) is outside the {SCREEN_W}x{SCREEN_H} screen")
        return c

    def _dispatch(self, a: Action) -> Outcome:
        k = a.kind
        if k == "tap":
            p = self._point(a)
            if p is None:
                raise Inapplicable("tap needs a target")
            return Outcome(True, self.tap(*p))
        if k == "long_press":
            p = self._point(a)
            if p is None:
                raise Inapplicable("long press needs a target")
            return Outcome(True, self.long_press(*p))
        if k == "double_tap":
            p = self._point(a)
            if p is None:
                raise Inapplicable("double tap needs a target")
            return Outcome(True, self.double_tap(*p))
        if k == "type":
            delete = TYPE_CLEAR_CHARS if a.clear else 0
            return Outcome(True, self.type_text(a.text or "", delete=delete, enter=bool(a.enter)))
        if k == "input_text":
            parts = []
            p = self._point(a)
            screen = self.top_screen()
            if screen is not None and screen.dialog is None:  # a page cannot take a tap back: it refuses first
                screen.check_input_text(self, p, a.text or "")
            if p is not None:
                parts.append(self.tap(*p))
                self.invalidate()  # the tap may have changed the screen
            if self.focused_host() is None:
                raise Inapplicable("input_text needs a text field: its target is not one and no field has focus")
            # AndroidWorld: Ctrl+A then Delete (the whole field) with clear_text; Enter always.
            parts.append(self.type_text(a.text or "", delete=CLEAR_ALL if a.clear else 0, enter=True))
            return Outcome(True, "; ".join(parts))
        if k == "swipe" and a.end is not None:
            assert a.point is not None
            return Outcome(True, self.drag(a.point, a.end))
        if k in ("swipe", "scroll"):
            p = self._point(a)
            content_dir = a.direction if k == "scroll" else _FINGER_TO_CONTENT[a.direction or "up"]
            frac = _SWIPE_FRACTION.get(a.dist or "medium", 0.5)
            return Outcome(True, self.scroll(content_dir, frac, p))
        if k == "launch":
            return Outcome(True, self.launch(self.resolve_app(a.app or "")))
        if k == "back":
            return Outcome(True, self.press_back())
        if k == "home":
            return Outcome(True, self.go_home())
        if k == "wait":
            return Outcome(True, "Wait for 3 seconds")
        if k == "enter":
            return Outcome(True, self.press_enter())
        if k == "finish":
            msg = a.text or ""
            return Outcome(
                True,
                "Finish the task" + (f': "{msg}"' if msg else ""),
                done=True,
                answer=msg or None,
                status="complete",
            )
        if k == "status":
            return Outcome(True, f"Declare the task {a.goal_status}", done=True, status=a.goal_status)
        if k == "answer":
            return Outcome(True, f'Answer "{a.text}"', done=True, answer=a.text, status="complete")
        if k in ("touch", "lift"):
            return self._raw(a)
        raise Inapplicable(f"unsupported action {k}")

    def resolve_app(self, name: str) -> str:
        """The app a Launch of ``name`` opens, as AndroidWorld's ``launch_app`` finds it: the app's
        name or package, else the first app whose pattern matches the start of the lower-cased
        name. A name AndroidWorld sends to an app this phone lacks (Google Messages for
        "Messages") is refused with the name to use instead."""
        key = name.strip().lower()
        if _DEFAULT_URI_APPS.get(key) in self.apps:  # opened by its VIEW intent: the default app
            return _DEFAULT_URI_APPS[key]
        for app_name, app in self.apps.items():
            if key in (app.label.lower(), app.package):
                return app_name
        for app_name, app in self.apps.items():
            if any(re.match(pattern, key) for pattern in app.aliases):
                return app_name
        for pattern, (other, instead) in _ABSENT_APPS.items():
            if re.match(pattern, key):
                raise Inapplicable(f"{quoted(name)} opens {other}, which is not installed; {instead}")
        choices = {app.label.lower(): app.label for app in self.apps.values()}
        close = difflib.get_close_matches(key, list(choices), n=3, cutoff=0.5)
        hint = (
            f"; did you mean {', '.join(choices[c] for c in close)}?"
            if close
            else f"; installed: {', '.join(a.label for a in self.apps.values())}"
        )
        raise Inapplicable(f"no app named {quoted(name)}{hint}")

    def _hit(self, x: int, y: int, attr: str) -> Node | None:
        """Topmost node under (x, y) with a handler ``attr``; an opaque panel stops the search."""
        for n in reversed(self._screen_nodes()):
            if not n.contains(x, y):
                continue
            if getattr(n, attr) is not None and n.enabled:
                return n
            if n.style == "opaque":
                return None
        return None

    def _describe(self, n: Node, verb: str) -> str:
        role = {
            "button": "button",
            "textbutton": "button",
            "fab": "button",
            "icon": "button",
            "navbutton": "button",
            "field": "field",
            "switch": "switch",
            "checkbox": "checkbox",
            "tab": "tab",
            "row": "item",
            "menuitem": "menu item",
            "day": "day",
            "key": "key",
            "appicon": "app icon",
            "card": "card",
        }.get(n.role, "element")
        where = (
            f" in {self.apps[self.state.foreground].label}"
            if self.state.foreground and not self.state.recents_open
            else ""
        )
        return f'{verb} the "{n.name}" {role}{where}'

    def tap(self, x: int, y: int) -> str:
        node = self._hit(x, y, "on_tap")
        if node is None:
            under = self._hit(x, y, "on_long_press")
            if under is not None:
                raise Inapplicable(f'"{clip_text(under.name, MAX_QUOTE)}" at ({x}, {y}) responds to long press only')
            raise Inapplicable(f"nothing clickable at ({x}, {y})")
        toolbar = self.state.selection is not None and any(n is node for n in self.text_actions())
        self.touch_point = (x, y)
        try:
            desc = node.on_tap()
        finally:
            self.touch_point = None
        if not toolbar:
            self.state.selection = None  # a touch outside the text-selection toolbar dismisses it
        return desc if isinstance(desc, str) else self._describe(node, "Tap")

    def long_press(self, x: int, y: int) -> str:
        node = self._hit_long_press(x, y)
        if node is None:
            raise Inapplicable(f"nothing long-clickable at ({x}, {y})")
        if node.field is not None and node.on_long_press is None:
            if not any(n is node for n in self.elements()):  # a field behind a dialog's dimming
                raise Inapplicable(f"nothing long-clickable at ({x}, {y})")
            return self._select_in_field(node)
        self.touch_point = (x, y)  # where on the node (a page's element: where on the page)
        try:
            desc = node.on_long_press()
        finally:
            self.touch_point = None
        return desc if isinstance(desc, str) else self._describe(node, "Long press")

    # -- text selection and the clipboard ------------------------------------------------
    def _hit_long_press(self, x: int, y: int) -> Node | None:
        """Topmost node under (x, y) that takes a long press: a long-clickable view or a text
        field (an EditText's long press starts text selection); an opaque panel stops the search."""
        for n in reversed(self._screen_nodes()):
            if not n.contains(x, y):
                continue
            if (n.on_long_press is not None or n.field is not None) and n.enabled:
                return n
            if n.style == "opaque":
                return None
        return None

    def _select_in_field(self, node: Node) -> str:
        """Long press on a text field: it takes focus (the keyboard shows) and the text-selection
        toolbar opens over it with the cursor at the end of its text: "Paste" when the clipboard
        holds text, "Select all" when the field does."""
        host, key = node.field
        host.focus = key
        self.state.keyboard = True
        if not host.form.get(key, "") and not self.state.clipboard:
            self.state.selection = None
            return f'Long press the "{node.label}" field (no text to select, nothing to paste)'
        self.state.selection = TextSelection(host, key)
        return f'Long press the "{node.label}" field to show the text actions'

    def text_actions(self) -> list[Node]:
        """The items of the text-selection toolbar on screen ("Cut", "Copy", "Paste", "Select
        all": each a clickable node whose ``desc`` is its title); empty when none shows."""
        if self.state.selection is None:
            return []
        last = self.tree().children[-1]  # the toolbar is its window's last view
        if not last.children or last.children[0].desc != FLOATING_TOOLBAR_TAG:
            return []
        return [n for n in flatten(last) if n.on_tap is not None]

    def scroll(self, content_dir: str, frac: float, point: tuple[int, int] | None) -> str:
        target = None
        if point is not None:
            target = self._hit(*point, "on_scroll")
        if target is None:
            lists = [n for n in self.elements() if n.on_scroll is not None]
            if point is None and lists:
                target = max(lists, key=lambda n: (n.bounds[2] - n.bounds[0]) * (n.bounds[3] - n.bounds[1]))
            elif point is not None and lists:
                target = next((n for n in lists if n.contains(*point)), None)
        if target is None:
            raise Inapplicable("nothing scrollable here")
        self.touch_point = point
        try:
            moved = target.on_scroll(content_dir, frac)
        finally:
            self.touch_point = None
        if isinstance(moved, str):  # the widget describes itself (e.g. a slider)
            return moved
        name = target.name or "list"
        if not moved:
            return f"Scroll {content_dir} the {name} (already at the {'end' if content_dir == 'down' else 'start'})"
        return f"Scroll {content_dir} the {name}"

    def _raw(self, a: Action) -> Outcome:
        """android_env's raw touch: TOUCH steps build a gesture, LIFT completes it.

        The first TOUCH of a gesture must land on something that takes a touch (a tap, a long
        press or a swipe); one that lands on nothing is invalid and starts no gesture, as a Tap
        on nothing is invalid. A LIFT always lifts the finger and ends the gesture; when the
        screen does not take the gesture (a hold on a button that has no long press, a swipe
        over nothing scrollable) nothing else happens, and the step says so. So an invalid raw
        action never changes the pending gesture, and no gesture can be left stuck.
        """
        assert a.touch_position is not None
        x = min(SCREEN_W - 1, int(a.touch_position[0] * SCREEN_W))
        y = min(SCREEN_H - 1, int(a.touch_position[1] * SCREEN_H))
        st = self.state
        if a.kind == "touch":
            if not st.touches and not self._takes_touch(x, y):
                raise Inapplicable(f"nothing clickable, long-clickable or scrollable at ({x}, {y})")
            st.touches.append((x, y))
            return Outcome(True, f"Touch down at ({x}, {y})")
        if not st.touches:
            raise Inapplicable("LIFT without a preceding TOUCH")
        pts = [*st.touches, (x, y)]
        st.touches = []
        try:
            return Outcome(True, self._gesture(pts))
        except Inapplicable as e:  # the finger is up all the same: the gesture ends with no effect
            return Outcome(True, f"Lift the finger at ({x}, {y}); nothing responds ({e})")

    def _takes_touch(self, x: int, y: int) -> bool:
        """Whether a gesture starting at ``(x, y)`` has a target: a tap, long press or scroll handler."""
        if any(self._hit(x, y, attr) is not None for attr in ("on_tap", "on_long_press", "on_scroll")):
            return True
        return any(n.on_scroll is not None and n.contains(x, y) for n in self.elements())  # as scroll() finds one

    def _gesture(self, pts: list[tuple[int, int]]) -> str:
        """What a finger down at ``pts[0]``, moved through ``pts`` and lifted, does (a screen that
        takes raw gestures, a WebView's page, gets them as they are)."""
        screen = self.top_screen()
        if screen is not None and screen.dialog is None and not self.state.keyboard:
            done = screen.on_gesture(self, pts)
            if done is not None:
                return done
        (x0, y0), (x1, y1) = pts[0], pts[-1]
        dx, dy = x1 - x0, y1 - y0
        if max(abs(dx), abs(dy)) > 60:
            finger = ("right" if dx > 0 else "left") if abs(dx) > abs(dy) else ("down" if dy > 0 else "up")
            span = SCREEN_W if abs(dx) > abs(dy) else SCREEN_H
            frac = min(0.9, max(abs(dx), abs(dy)) / span * 1.5)
            return self.scroll(_FINGER_TO_CONTENT[finger], frac, (x0, y0))
        if len(pts) - 1 >= _LONG_PRESS_TOUCHES:
            return self.long_press(x0, y0)
        return self.tap(x0, y0)

    def double_tap(self, x: int, y: int) -> str:
        """AndroidWorld's double tap: two taps at one point, the second on whatever the first
        left there (its ``adb_utils.double_tap`` sends two taps). The first must land on
        something; the second may land on nothing."""
        first = self.tap(x, y)
        self.invalidate()
        try:
            second = self.tap(x, y)
        except Inapplicable as e:
            second = f"the second tap does nothing ({e})"
        return f"Double tap: {first}; {second}"

    def drag(self, start: tuple[int, int], end: tuple[int, int]) -> str:
        """MobileRL's ``Swipe`` from ``start`` to ``end`` (``adb shell input swipe`` over 400 ms):
        the finger gesture of those two points, a scroll when it moves, else a tap."""
        return self._gesture([start, end])
