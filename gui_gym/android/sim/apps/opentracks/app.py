"""OpenTracks (de.dennisguse.opentracks): a sport tracker's recorded tracks.

Data: the app's ``tracks`` rows (:mod:`~gui_gym.android.sim.apps.opentracks.data`), served as its
database (:mod:`~gui_gym.android.sim.apps.opentracks.storage`). Screens, after OpenTracks' layouts
and ids (units as on an en-US phone: miles, feet, mph):

- **Track list** (``TrackListActivity``, ``track_list``): the toolbar "OpenTracks"; the tracks,
  newest first, each a ``list_item``: the activity icon (``list_item_icon``), the name
  (``list_item_name``), the start date (``list_item_date``) and time (``list_item_time``), the
  total time and distance (``list_item_time_distance``, "45:00 · 1.55 mi"), and the category with
  the description (``list_item_category_description``, "[running] Felt great"). Tap a track for
  its details.
- **Track details** (``TrackRecordedActivity``, ``statistics_recorded``): the track's name in the
  toolbar, its category and start, then its statistics: distance, total and moving time, average
  speed, elevation gain and loss (``stats_*_value`` with their units).

Not modelled: recording, editing, markers, charts, export and settings.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

from gui_gym.android.sim.apps.base import App
from gui_gym.android.sim.apps.opentracks.data import LABEL, MILE, PKG, OpenTracksData, Row
from gui_gym.android.sim.apps.opentracks.storage import DATABASE
from gui_gym.android.sim.widgets import PAD, UI, Screen
from gui_gym.android.ui import SCREEN_W, Node

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

__all__ = [
    "ITEM_H",
    "LABEL",
    "PKG",
    "OpenTracksApp",
    "TrackDetails",
    "TrackList",
    "category_line",
    "distance_text",
    "elapsed",
]

ITEM_H = 230
_EPOCH = dt.datetime(1970, 1, 1)


def _db(dev: Device) -> OpenTracksData:
    return dev.data("opentracks")


def _rid(name: str) -> str:
    return f"{PKG}:id/{name}"


def start_of(t: Row) -> dt.datetime:
    """The track's start on the phone's clock (UTC)."""
    return _EPOCH + dt.timedelta(milliseconds=int(t["starttime"] or 0))


def elapsed(ms: Any) -> str:
    """A duration as OpenTracks shows it (``DateUtils.formatElapsedTime``): ``45:00``, ``1:30:00``."""
    s = int(ms or 0) // 1000
    h, rest = divmod(s, 3600)
    m, sec = divmod(rest, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m:02d}:{sec:02d}"


def distance_text(meters: Any) -> str:
    """A distance in miles with two decimals (what AndroidWorld rounds its distances to)."""
    return f"{float(meters or 0) / MILE:.2f} mi"


def category_line(t: Row) -> str:
    """``StringUtils.getCategoryDescription``: ``[category] description``."""
    category, description = str(t["category"] or ""), str(t["description"] or "")
    parts = ([f"[{category}]"] if category else []) + ([description] if description else [])
    return " ".join(parts)


class TrackList(Screen):
    """The recorded tracks, newest first."""

    def build(self, ui: UI, dev: Device) -> None:
        ui.toolbar(LABEL, up=False)

        def render(ui: UI, t: Row) -> None:
            _, top, _, b = ui.rect(ITEM_H, 0, SCREEN_W)
            when = start_of(t)
            name = str(t["name"] or "")
            x = PAD + 130
            kids = [
                Node(
                    "android.widget.ImageView",
                    (PAD, top + 50, PAD + 100, top + 150),
                    desc="Track",
                    rid=_rid("list_item_icon"),
                    package=PKG,
                    role="avatar",
                    style="run",
                ),
                Node(
                    "android.widget.TextView",
                    (x, top + 16, 760, top + 86),
                    name,
                    rid=_rid("list_item_name"),
                    package=PKG,
                    role="text",
                ),
                Node(
                    "android.widget.TextView",
                    (770, top + 16, SCREEN_W - PAD, top + 86),
                    f"{when:%b} {when.day}, {when.year}",
                    rid=_rid("list_item_date"),
                    package=PKG,
                    role="subtext",
                ),
                Node(
                    "android.widget.TextView",
                    (x, top + 86, 760, top + 146),
                    f"{elapsed(t['totaltime'])} · {distance_text(t['totaldistance'])}",
                    rid=_rid("list_item_time_distance"),
                    package=PKG,
                    role="subtext",
                ),
                Node(
                    "android.widget.TextView",
                    (770, top + 86, SCREEN_W - PAD, top + 146),
                    f"{when:%H:%M}",
                    rid=_rid("list_item_time"),
                    package=PKG,
                    role="subtext",
                ),
            ]
            line = category_line(t)
            if line:
                kids.append(
                    Node(
                        "android.widget.TextView",
                        (x, top + 146, SCREEN_W - PAD, b - 16),
                        line,
                        rid=_rid("list_item_category_description"),
                        package=PKG,
                        role="subtext",
                    )
                )
            ui.add(
                Node(
                    "android.widget.FrameLayout",
                    (0, top, SCREEN_W, b),
                    on_tap=lambda: self._open(dev, int(t["_id"])),
                    label=name,
                    role="row",
                    children=kids,
                )
            )

        ui.scroll_list(
            self,
            "tracks",
            _db(dev).listed(),
            render,
            item_h=ITEM_H,
            empty="Start recording a track by tapping the button below.",
            list_id="track_list",
            cls="android.widget.ListView",
        )

    def _open(self, dev: Device, track_id: int) -> str:
        t = _db(dev).by_id(track_id)
        assert t is not None
        dev.push(TrackDetails(track_id))
        return f'Open the track "{t["name"]}" in OpenTracks'


def _mph(t: Row) -> float:
    """The average speed the app shows: distance over total time (it recomputes a stored speed
    that does not match them)."""
    seconds = int(t["totaltime"] or 0) / 1000
    return float(t["totaldistance"] or 0) / seconds * 3600 / MILE if seconds > 0 else 0.0


class TrackDetails(Screen):
    """A recorded track's statistics."""

    def __init__(self, track_id: int) -> None:
        super().__init__()
        self.track_id = track_id

    def build(self, ui: UI, dev: Device) -> None:
        t = _db(dev).by_id(self.track_id)
        ui.toolbar("" if t is None else str(t["name"] or ""), up=True)
        if t is None:  # deleted underneath (over adb)
            return
        when = start_of(t)
        ui.spacer(20)
        line = category_line(t)
        if line:
            ui.text(line, h=90, rid=_rid("track_detail_category"), size=40)
        ui.text(f"{when:%b} {when.day}, {when.year} {when:%H:%M}", h=90, rid=_rid("track_detail_date"), size=40)
        ui.spacer(20)
        feet = 3.28084
        stats = (
            ("distance", "Distance", f"{float(t['totaldistance'] or 0) / MILE:.2f}", "mi"),
            ("total_time", "Total time", elapsed(t["totaltime"]), ""),
            ("moving_time", "Moving time", elapsed(t["movingtime"]), ""),
            ("average_speed", "Average speed", f"{_mph(t):.2f}", "mph"),
            ("elevation_gain", "Elevation gain", f"{float(t['elevationgain'] or 0) * feet:.0f}", "ft"),
            ("elevation_loss", "Elevation loss", f"{float(t['elevationloss'] or 0) * feet:.0f}", "ft"),
        )
        for key, label, value, unit in stats:
            _, top, _, b = ui.rect(150, 0, SCREEN_W)
            kids = [
                Node("android.widget.TextView", (PAD, top + 10, 500, top + 70), label, package=PKG, role="subtext"),
                Node(
                    "android.widget.TextView",
                    (PAD, top + 70, 700, b - 10),
                    value,
                    rid=_rid(f"stats_{key}_value"),
                    package=PKG,
                    role="text",
                    style=52,
                ),
            ]
            if unit:
                kids.append(
                    Node(
                        "android.widget.TextView",
                        (720, top + 70, 900, b - 10),
                        unit,
                        rid=_rid(f"stats_{key}_unit"),
                        package=PKG,
                        role="subtext",
                    )
                )
            ui.add(Node("android.widget.LinearLayout", (0, top, SCREEN_W, b), package=PKG, children=kids))


class OpenTracksApp(App):
    name = "opentracks"
    label = LABEL
    package = PKG
    activity = "de.dennisguse.opentracks.TrackListActivity"
    aliases = ("open tracks sports tracker", "activity tracker", "open tracks", "opentracks")
    color = (230, 81, 0)
    icon = "tracks"
    databases = (DATABASE,)

    def initial_data(self) -> OpenTracksData:
        return OpenTracksData()

    def root(self, dev: Device) -> Screen:
        return TrackList()
