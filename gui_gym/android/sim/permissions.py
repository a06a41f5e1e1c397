"""Runtime permissions and the permission controller's grant dialog, as Android 13 has them.

An app that lacks a runtime permission asks for it with ``requestPermissions``; the system then
starts the permission controller's ``GrantPermissionsActivity`` in the app's task, over the
app's own activity: a dialog card, one permission group at a time ("Allow Camera to take
pictures and record video?"), with the buttons "While using the app", "Only this time" and
"Don’t allow" (the controller's ``grant_dialog_button_*`` strings; "Don’t" with U+2019). While it
shows, the activity in front is the permission controller's, not the app's: ``am stack list``
reports the app's task with ``topActivity`` the controller's
``com.google.android.permissioncontroller/com.android.permissioncontroller.permission.ui.GrantPermissionsActivity``
(the package of a Google build; its views keep the resource ids of the AOSP package,
``com.android.permissioncontroller:id/permission_message`` …).

The phone keeps the grants in ``dev.state.data[PERMISSIONS]``: package -> permission -> "granted"
or "one_time" (made on first use with :data:`DEFAULT_GRANTS`, what AndroidWorld's device set-up
granted, so a reset starts from them). A one-time grant lasts the episode: Android revokes it a
minute after the app leaves the foreground, longer than the episodes here last.

A :class:`GrantPermissions` is the controller's activity on the requesting app's back stack
(``package`` and ``activity`` name its window, see :func:`top_activity`); an app subclasses it
to act on the result (:meth:`GrantPermissions.done`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from gui_gym.android.sim.widgets import UI, Screen, union
from gui_gym.android.ui import SCREEN_W, Node

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

#: the key of the grants in ``DeviceState.data``
PERMISSIONS = "permissions"
#: the permission controller of a Google build (``pm list packages``), and the package its
#: resource ids keep (the AOSP one)
PERMISSION_CONTROLLER = "com.google.android.permissioncontroller"
CONTROLLER_RES = "com.android.permissioncontroller"
GRANT_ACTIVITY = "com.android.permissioncontroller.permission.ui.GrantPermissionsActivity"

CAMERA = "android.permission.CAMERA"
RECORD_AUDIO = "android.permission.RECORD_AUDIO"
ACCESS_COARSE_LOCATION = "android.permission.ACCESS_COARSE_LOCATION"
ACCESS_FINE_LOCATION = "android.permission.ACCESS_FINE_LOCATION"

GRANTED, ONE_TIME = "granted", "one_time"
#: the buttons of the grant dialog: (view id, text, what a tap does)
ALLOW_FOREGROUND = ("permission_allow_foreground_only_button", "While using the app", GRANTED)
ALLOW_ONE_TIME = ("permission_allow_one_time_button", "Only this time", ONE_TIME)
DENY = ("permission_deny_button", "Don\u2019t allow", "")
BUTTONS = (ALLOW_FOREGROUND, ALLOW_ONE_TIME, DENY)

#: AndroidWorld's device set-up (``setup_device/apps.py`` ``CameraApp.setup``) grants the camera
#: coarse location "to prevent the pop-up"; nothing else is granted there
DEFAULT_GRANTS: dict[str, dict[str, str]] = {"com.android.camera2": {ACCESS_COARSE_LOCATION: GRANTED}}


@dataclass(frozen=True)
class Group:
    """A permission group as the grant dialog asks for it: "Allow <b>App</b> to <request>?"."""

    name: str
    permissions: tuple[str, ...]
    request: str  # the framework's ``permgrouprequest_*`` text after "Allow App to"


GROUPS: dict[str, Group] = {
    g.name: g
    for g in (
        Group("camera", (CAMERA,), "take pictures and record video"),
        Group("microphone", (RECORD_AUDIO,), "record audio"),
        Group("location", (ACCESS_COARSE_LOCATION, ACCESS_FINE_LOCATION), "access this device\u2019s location"),
    )
}


def grants(dev: Device) -> dict[str, dict[str, str]]:
    """The phone's runtime grants: package -> permission -> "granted" / "one_time"."""
    table = dev.state.data.get(PERMISSIONS)
    if table is None:
        table = dev.state.data[PERMISSIONS] = {pkg: dict(perms) for pkg, perms in DEFAULT_GRANTS.items()}
    return table


def is_granted(dev: Device, package: str, permission: str) -> bool:
    return permission in grants(dev).get(package, {})


def grant(dev: Device, package: str, permission: str, one_time: bool = False) -> None:
    """``pm grant`` (or a tap on "While using the app" / "Only this time")."""
    grants(dev).setdefault(package, {})[permission] = ONE_TIME if one_time else GRANTED


def revoke(dev: Device, package: str, permission: str) -> None:
    """``pm revoke`` (or a tap on "Don’t allow")."""
    grants(dev).get(package, {}).pop(permission, None)


def top_activity(dev: Device) -> str:
    """``package/activity`` in front (:meth:`Device.top_activity <gui_gym.android.sim.device.Device.top_activity>`)."""
    return dev.top_activity()


def top_package(dev: Device) -> str:
    """The package of :func:`top_activity` (``parse_component_name(...).package_name``)."""
    return top_activity(dev).split("/", 1)[0]


def _node(cls: str, bounds: tuple[int, int, int, int], text: str = "", **kw: object) -> Node:
    return Node(cls, bounds, text, package=PERMISSION_CONTROLLER, **kw)  # type: ignore[arg-type]


class GrantPermissions(Screen):
    """``GrantPermissionsActivity`` over ``requester``'s activity, asking for ``groups`` in turn.

    Each answer grants or denies the group's permissions at once. After the last group (or Back,
    which cancels what is left: denied) :meth:`done` gets the results, group -> granted.
    """

    #: the window's package and activity (not the app's whose back stack holds it)
    package: ClassVar[str] = PERMISSION_CONTROLLER
    activity: ClassVar[str] = GRANT_ACTIVITY
    title = "Permission request"

    def __init__(self, requester: str, app_label: str, groups: Sequence[str]) -> None:
        super().__init__()
        self.requester = requester  # the requesting app's package
        self.app_label = app_label
        self.groups = list(groups)
        self.index = 0
        self.results: dict[str, bool] = {}

    @property
    def group(self) -> Group:
        return GROUPS[self.groups[self.index]]

    def message(self) -> str:
        """``permission_message``: "Allow Camera to take pictures and record video?"."""
        return f"Allow {self.app_label} to {self.group.request}?"

    def screen_name(self) -> str:
        return f"GrantPermissions/{self.groups[self.index] if self.index < len(self.groups) else 'done'}"

    def build(self, ui: UI, dev: Device) -> None:
        res = f"{CONTROLLER_RES}:id"
        top, bottom = ui.top, ui.bottom
        card_h = 40 + 110 + 30 + 130 + 40 + len(BUTTONS) * 150 + 30
        t = top + (bottom - top - card_h) // 2
        card = (60, t, SCREEN_W - 60, t + card_h)
        y = t + 40
        icon = _node(
            "android.widget.ImageView", (480, y, 600, y + 110), rid=f"{res}/permission_icon", style=self.group.name
        )
        y += 140
        message = _node(
            "android.widget.TextView",
            (100, y, SCREEN_W - 100, y + 130),
            self.message(),
            rid=f"{res}/permission_message",
            role="text",
            style=32,
        )
        description = _node(
            "android.widget.LinearLayout", union((icon.bounds, message.bounds)), children=[icon, message]
        )
        content = _node(
            "android.widget.LinearLayout", description.bounds, rid=f"{res}/content_container", children=[description]
        )
        y += 170
        buttons = []
        for view_id, text, choice in BUTTONS:
            buttons.append(
                _node(
                    "android.widget.Button",
                    (110, y, SCREEN_W - 110, y + 130),
                    text,
                    rid=f"{res}/{view_id}",
                    on_tap=lambda c=choice, s=text: self._answer(dev, c, s),
                    clickable=True,
                    focusable=True,
                    role="button",
                )
            )
            y += 150
        bar = _node("android.widget.LinearLayout", union(b.bounds for b in buttons), children=buttons)
        dialog = _node(
            "android.widget.LinearLayout", card, rid=f"{res}/grant_dialog", children=[content, bar], role="panel"
        )
        full = (0, top, SCREEN_W, bottom)
        # The controller's window is translucent and dims what is under it (the requester's own
        # activity); its views span the screen around the card.
        singleton = _node(
            "android.widget.LinearLayout", full, rid=f"{res}/grant_singleton", children=[dialog], role="scrim"
        )
        ui.add(_node("android.widget.ScrollView", full, children=[singleton]))

    def _answer(self, dev: Device, choice: str, button: str) -> str:
        group, asked = self.group, self.message()
        for permission in group.permissions:
            if choice:
                grant(dev, self.requester, permission, one_time=choice == ONE_TIME)
            else:
                revoke(dev, self.requester, permission)
        self.results[group.name] = bool(choice)
        self.index += 1
        said = f'Tap "{button}" to {"allow" if choice else "deny"} "{asked}"'
        if self.index < len(self.groups):
            return said
        after = self.done(dev, dict(self.results))
        return f"{said}; {after}" if after else said

    def on_back(self, dev: Device) -> str | None:
        """Back cancels the request: the groups not answered yet stay denied."""
        for name in self.groups[self.index :]:
            self.results.setdefault(name, False)
        self.index = len(self.groups)
        after = self.done(dev, dict(self.results))
        return "Press Back to dismiss the permission request" + (f"; {after}" if after else "")

    def done(self, dev: Device, results: dict[str, bool]) -> str | None:
        """The request is answered: by default the dialog closes (the requester's activity is in
        front again). Returns what else happened, for the action's description."""
        dev.pop()
        return None
