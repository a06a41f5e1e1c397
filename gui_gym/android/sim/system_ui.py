"""The phone's own screens around the apps: the status bar, the navigation bar, the launcher's home
screen and app drawer, and recent apps (``SystemUI`` and the Pixel launcher), built from a
:class:`~gui_gym.android.sim.device.Device`'s state; their handlers act on that device."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gui_gym.android.sim.widgets import LAUNCHER_PACKAGE, NAV_TOP, PAD, STATUS_H, Inapplicable
from gui_gym.android.ui import SCREEN_H, SCREEN_W, SYSTEM_PACKAGE, Node

if TYPE_CHECKING:
    from gui_gym.android.sim.apps import App
    from gui_gym.android.sim.device import Device

#: the apps whose icons the home screen shows (the first ones installed); the app drawer lists all
HOME_ICONS = 8


def status_key(dev: Device) -> tuple:
    s = dev.state.settings
    return (dev.state.now.hour, dev.state.now.minute, s["airplane"], s["wifi"], s["bluetooth"])


def launcher_key(dev: Device) -> tuple:
    return (dev.state.now.date(),)


def status_bar(dev: Device) -> Node:
    st, s = dev.state, dev.state.settings
    bar = Node(
        "android.widget.FrameLayout",
        (0, 0, SCREEN_W, STATUS_H),
        rid="com.android.systemui:id/status_bar",
        package=SYSTEM_PACKAGE,
        role="statusbar",
    )
    clock = st.now.strftime("%-H:%M")
    bar.children.append(
        Node(
            "android.widget.TextView",
            (40, 10, 240, 74),
            clock,
            rid="com.android.systemui:id/clock",
            package=SYSTEM_PACKAGE,
            role="statustext",
        )
    )
    icons = []
    if s["airplane"]:
        icons.append("Airplane mode on")
    else:
        icons.append("Wi-Fi on" if s["wifi"] else "Wi-Fi off")
    if s["bluetooth"]:
        icons.append("Bluetooth on")
    icons.append("Battery 84 percent")
    x = SCREEN_W - 40
    for desc in reversed(icons):
        bar.children.append(
            Node(
                "android.widget.ImageView",
                (x - 64, 10, x, 74),
                desc=desc,
                package=SYSTEM_PACKAGE,
                role="statusicon",
            )
        )
        x -= 80
    return bar


def nav_bar(dev: Device) -> Node:
    bar = Node(
        "android.widget.FrameLayout",
        (0, NAV_TOP, SCREEN_W, SCREEN_H),
        rid="com.android.systemui:id/navigation_bar_frame",
        package=SYSTEM_PACKAGE,
        role="navbar",
    )
    for i, (desc, cb, name, icon) in enumerate(
        (
            ("Back", dev.press_back, "back", "back"),
            ("Home", dev.go_home, "home", "home"),
            ("Overview", lambda: open_recents(dev), "recent_apps", "overview"),
        )
    ):
        x = 180 + i * 270
        bar.children.append(
            Node(
                "android.widget.ImageView",
                (x, NAV_TOP + 13, x + 180, SCREEN_H - 13),
                desc=desc,
                rid=f"{SYSTEM_PACKAGE}:id/{name}",
                package=SYSTEM_PACKAGE,
                on_tap=cb,
                role="navbutton",
                style=icon,
            )
        )
    return bar


def open_recents(dev: Device) -> str:
    dev.state.recents_open = True
    dev.state.drawer_open = False
    dev.state.keyboard = False
    return "Open recent apps"


def _panel(name: str, role: str, **kw: Any) -> Node:
    """A launcher view filling the screen between the status and navigation bars."""
    pkg = LAUNCHER_PACKAGE
    return Node(
        "android.widget.FrameLayout",
        (0, STATUS_H, SCREEN_W, NAV_TOP),
        package=pkg,
        rid=f"{pkg}:id/{name}",
        role=role,
        **kw,
    )


def home_screen(dev: Device) -> Node:
    pkg = LAUNCHER_PACKAGE
    home = _panel("workspace", "launcher", on_scroll=lambda content_dir, frac: swipe_home(dev, content_dir, frac))
    home.scrollable = False  # the swipe to all apps is the launcher's gesture, not a scrolling view
    st = dev.state
    home.children.append(
        Node(
            "android.widget.TextView",
            (PAD, 200, SCREEN_W - PAD, 380),
            st.now.strftime("%A, %B %-d"),
            package=pkg,
            rid=f"{pkg}:id/date",
            role="wallpapertext",
        )
    )
    home.children += _icons(dev, list(dev.apps.items())[:HOME_ICONS], 520, "on the home screen")
    return home


def _icons(dev: Device, apps: list[tuple[str, App]], top: int, where: str) -> list[Node]:
    """App icons in rows of four from ``top``; tapping one opens its app."""
    cols, cw, ch = 4, SCREEN_W // 4, 300
    icons = []
    for i, (name, app) in enumerate(apps):
        r, c = divmod(i, cols)
        x, y = c * cw, top + r * ch

        def open_app(n: str = name) -> str:
            dev.launch(n)
            return f'Tap the "{dev.apps[n].icon_label}" app icon {where}'

        icons.append(
            Node(
                "android.widget.TextView",
                (x + 10, y, x + cw - 10, y + ch - 20),
                app.icon_label,
                desc=app.icon_label,
                package=LAUNCHER_PACKAGE,
                on_tap=open_app,
                role="appicon",
                style=(app.icon, app.color),
                label=app.icon_label,
            )
        )
    return icons


def swipe_home(dev: Device, content_dir: str, frac: float) -> str:
    """A swipe up on the home screen opens the app drawer, as on a Pixel."""
    if content_dir != "down":
        raise Inapplicable("only a swipe up does something on the home screen: it opens the app drawer")
    dev.state.drawer_open = True
    return "Swipe up on the home screen to open the app drawer"


def drawer(dev: Device) -> Node:
    """The launcher's list of all apps (Pixel launcher's ``apps_view``): every installed app,
    by name, in rows of four; a swipe down closes it."""
    pkg = LAUNCHER_PACKAGE

    def swipe(content_dir: str, frac: float) -> str | bool:
        if content_dir == "up":  # a finger moving down, at the top of the list
            dev.state.drawer_open = False
            return "Swipe down to close the app drawer"
        return False  # every app shows: nothing to scroll to

    view = _panel("apps_view", "launcher")
    listing = Node(
        "androidx.recyclerview.widget.RecyclerView",
        (0, 360, SCREEN_W, NAV_TOP),
        package=pkg,
        rid=f"{pkg}:id/apps_list_view",
        scrollable=True,
        on_scroll=swipe,
        label="all apps",
    )
    ordered = sorted(dev.apps.items(), key=lambda kv: kv[1].icon_label.casefold())
    listing.children += _icons(dev, ordered, 400, "in the app drawer")
    view.children.append(listing)
    return view


def recents(dev: Device) -> Node:
    pkg = LAUNCHER_PACKAGE
    view = _panel("overview_panel", "recents")
    running = [n for n in dev.state.recents if dev.state.stacks.get(n)]
    y = 200
    for name in running[:6]:

        def switch(n: str = name) -> str:
            dev.launch(n)
            return f"Switch to {dev.apps[n].label} from recent apps"

        view.children.append(
            Node(
                "android.widget.FrameLayout",
                (120, y, SCREEN_W - 120, y + 280),
                dev.apps[name].label,
                desc=dev.apps[name].label,
                package=pkg,
                on_tap=switch,
                role="card",
                style=dev.apps[name].color,
                label=dev.apps[name].label,
            )
        )
        y += 320
    if not running:
        view.children.append(
            Node(
                "android.widget.TextView",
                (PAD, 900, SCREEN_W - PAD, 1000),
                "No recent items",
                package=pkg,
                role="text",
            )
        )
    else:

        def clear() -> str:
            dev.state.stacks.clear()
            dev.state.recents.clear()
            dev.state.recents_open = False
            dev.state.foreground = None
            dev.state.keyboard = False
            return "Clear all recent apps"

        view.children.append(
            Node(
                "android.widget.Button",
                (380, NAV_TOP - 200, 700, NAV_TOP - 80),
                "Clear all",
                package=pkg,
                on_tap=clear,
                role="textbutton",
            )
        )
    return view
