"""OsmAnd's "Plan a route" (``MeasurementToolFragment``): points added one by one, saved as a track.

- the start sheet (:class:`StartPlanSheet`, ``StartPlanRouteBottomSheet``): "Create new route",
  "Open existing track" (the saved tracks);
- the tool (:class:`PlanRouteScreen`): the map with its crosshair at the centre (the map is
  centred on a place chosen in search: ``map_search_button``), the planned line, and the bottom
  panel: the count of points (``measurement_points_text_view``) and the distance
  (``measurement_distance_text_view``), "Options", "Undo" / "Redo" (``undo_point_button``,
  ``redo_point_button``) and "Add point" (``add_point_button``: a point at the map's centre).
  "Save" in the toolbar opens
- "Save as new track" (:class:`SaveTrackScreen`, ``SaveAsNewTrackBottomSheetDialogFragment``):
  the file name (``name_edit``, default the date and time as OsmAnd names new tracks), the folder
  "tracks", "Cancel" / "Save" (``right_bottom_button``). Saving writes ``<name>.gpx`` into the
  tracks folder (:mod:`~gui_gym.android.sim.apps.osmand.tracks`) and closes the tool.
"""

from __future__ import annotations

import functools
import itertools
import math
from typing import TYPE_CHECKING

from PIL import Image, ImageDraw

from gui_gym.android.sim.apps.osmand.common import MAP_ACTIVITY, MAP_BOX, SearchScreen, map_picture, osm_id
from gui_gym.android.sim.apps.osmand.data import PKG, Place
from gui_gym.android.sim.apps.osmand.tracks import BAD_CHARS, TRACKS, save_track, track_files
from gui_gym.android.sim.media import media
from gui_gym.android.sim.widgets import PAD, UI, Inapplicable, Screen
from gui_gym.android.ui import SCREEN_W, Node

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device


@functools.lru_cache(maxsize=32)
def plan_picture(center: tuple[float, float] | None, points: tuple[tuple[float, float], ...]) -> Image.Image:
    """The map in planning mode: the planned line and its points, the crosshair at the centre."""
    img = map_picture(None, None).copy()
    w, h = img.size
    s, west, n, east = MAP_BOX
    d = ImageDraw.Draw(img)

    def xy(p: tuple[float, float]) -> tuple[int, int]:
        return int((p[1] - west) / (east - west) * w), int((n - p[0]) / (n - s) * h)

    if len(points) > 1:
        d.line([xy(p) for p in points], fill=(230, 120, 0), width=6)
    for p in points:
        x, y = xy(p)
        d.ellipse([x - 9, y - 9, x + 9, y + 9], fill=(255, 255, 255), outline=(230, 120, 0), width=4)
    x, y = xy(center) if center else (w // 2, h // 2)
    d.line([(x - 24, y), (x + 24, y)], fill=(40, 40, 40), width=3)
    d.line([(x, y - 24), (x, y + 24)], fill=(40, 40, 40), width=3)
    return img


def distance_km(points: list[Place]) -> float:
    """The planned line's length (great-circle legs)."""
    total = 0.0
    for a, b in itertools.pairwise(points):
        la1, lo1, la2, lo2 = map(math.radians, (a.lat, a.lon, b.lat, b.lon))
        hav = math.sin((la2 - la1) / 2) ** 2 + math.cos(la1) * math.cos(la2) * math.sin((lo2 - lo1) / 2) ** 2
        total += 2 * 6371.0 * math.asin(math.sqrt(hav))
    return total


class StartPlanSheet(Screen):
    """StartPlanRouteBottomSheet: how to start planning."""

    activity = MAP_ACTIVITY

    def screen_name(self) -> str:
        return "OsmAnd/Plan a route/Start"

    def build(self, ui: UI, dev: Device) -> None:
        ui.toolbar("Plan a route")

        def create() -> str:
            dev.pop()
            dev.push(PlanRouteScreen())
            return 'Tap "Create new route"'

        def existing() -> str:
            raise Inapplicable("opening a saved track is not part of this simulation")

        ui.row("Create new route", on_tap=create, rid=osm_id("create_new_route"))
        ui.row("Open existing track", on_tap=existing, rid=osm_id("open_existing_track"))
        ui.text("Recent tracks")

        def render(ui: UI, f: object) -> None:
            ui.row(f.name.removesuffix(".gpx"), rid=osm_id("gpx_track_item"), h=170)  # type: ignore[attr-defined]

        ui.scroll_list(self, "tracks", track_files(dev), render, item_h=170, empty="No tracks", list_id="list")


class PlanRouteScreen(Screen):
    """MeasurementToolFragment: the planned points, added at the map's centre."""

    activity = MAP_ACTIVITY

    def __init__(self) -> None:
        super().__init__()
        self.center: Place | None = None
        self.points: list[Place] = []
        self.undone: list[Place] = []

    def screen_name(self) -> str:
        return f"OsmAnd/Plan a route/{len(self.points)} points"

    def choose_place(self, place: Place) -> None:
        """A place chosen in search: the map is centred on it."""
        self.center = place

    def build(self, ui: UI, dev: Device) -> None:
        def close() -> str:
            dev.pop()
            return 'Tap "Close" (discard the plan)'

        def save() -> str:
            if not self.points:
                raise Inapplicable("there are no points to save")
            dev.push(SaveTrackScreen(self, dev.state.now.strftime("%Y-%m-%d_%H-%M_%a")))
            return 'Tap "Save"'

        ui.toolbar("Plan a route", up=close, actions=(("Save", "save", save),))
        top, bottom = ui.y, ui.bottom
        panel_top = bottom - 420
        center = (self.center.lat, self.center.lon) if self.center else None
        pts = tuple((p.lat, p.lon) for p in self.points)

        def tap_map() -> str:
            raise Inapplicable('tap "Add point" to add a point at the map\'s centre (the crosshair)')

        ui.add(
            Node(
                "android.view.View",
                (0, top, SCREEN_W, panel_top),
                rid=osm_id("map_view"),
                picture=functools.partial(plan_picture, center, pts),
                role="picture",
                style=("crop", "osmand-plan", center, pts),
                on_tap=tap_map,
            )
        )

        def search() -> str:
            dev.push(SearchScreen())
            return 'Tap "Search"'

        ui.add(
            Node(
                "android.widget.ImageButton",
                (SCREEN_W - PAD - 150, top + 40, SCREEN_W - PAD, top + 190),
                desc="Search",
                rid=osm_id("map_search_button"),
                on_tap=search,
                role="icon",
                style="search",
            )
        )
        if self.center is not None:
            ui.add(
                Node(
                    "android.widget.TextView",
                    (PAD, top + 40, SCREEN_W - PAD - 180, top + 190),
                    self.center.title,
                    rid=osm_id("map_center_info"),
                    role="text",
                    package=PKG,
                )
            )
        panel = Node(
            "android.widget.LinearLayout",
            (0, panel_top, SCREEN_W, bottom),
            rid=osm_id("main_view"),
            role="panel",
            style="opaque",
        )
        ui.add(panel)
        n = len(self.points)
        pkg = PKG
        panel.children += [
            Node(
                "android.widget.TextView",
                (PAD, panel_top + 30, SCREEN_W // 2, panel_top + 110),
                f"{distance_km(self.points):.2f} km",
                rid=osm_id("measurement_distance_text_view"),
                role="title",
                package=pkg,
            ),
            Node(
                "android.widget.TextView",
                (SCREEN_W // 2, panel_top + 30, SCREEN_W - PAD, panel_top + 110),
                f"Points: {n}",
                rid=osm_id("measurement_points_text_view"),
                role="subtext",
                package=pkg,
            ),
        ]

        def undo() -> str:
            if not self.points:
                raise Inapplicable("nothing to undo")
            self.undone.append(self.points.pop())
            return 'Tap "Undo"'

        def redo() -> str:
            if not self.undone:
                raise Inapplicable("nothing to redo")
            self.points.append(self.undone.pop())
            return 'Tap "Redo"'

        def add() -> str:
            if self.center is None:
                raise Inapplicable("move the map to the point first (search a place)")
            self.points.append(self.center)
            self.undone.clear()
            return f'Tap "Add point" (at {self.center.title})'

        def options() -> str:
            raise Inapplicable('"Options" is not part of this simulation')

        y = panel_top + 180
        for label, rid, cb, x0, x1, icon in (
            ("Options", "options_button", options, PAD, PAD + 240, None),
            ("Undo", "undo_point_button", undo, PAD + 260, PAD + 400, "undo"),
            ("Redo", "redo_point_button", redo, PAD + 420, PAD + 560, "redo"),
            ("Add point", "add_point_button", add, SCREEN_W - PAD - 380, SCREEN_W - PAD, None),
        ):
            if icon:
                enabled = bool(self.points) if label == "Undo" else bool(self.undone)
                panel.children.append(
                    Node(
                        "android.widget.ImageButton",
                        (x0, y, x1, y + 140),
                        desc=label,
                        rid=osm_id(rid),
                        on_tap=cb if enabled else None,
                        enabled=enabled,
                        role="icon",
                        style=icon,
                        package=pkg,
                    )
                )
            else:
                panel.children.append(
                    Node(
                        "android.widget.Button",
                        (x0, y, x1, y + 140),
                        label,
                        rid=osm_id(rid),
                        on_tap=cb,
                        clickable=True,
                        role="button",
                        package=pkg,
                    )
                )


class SaveTrackScreen(Screen):
    """SaveAsNewTrackBottomSheetDialogFragment: the new track's file name; Save."""

    activity = MAP_ACTIVITY

    def __init__(self, plan: PlanRouteScreen, default: str = "") -> None:
        super().__init__()
        self.plan = plan
        self.form["name"] = default

    def screen_name(self) -> str:
        return "OsmAnd/Save as new track"

    def build(self, ui: UI, dev: Device) -> None:
        ui.toolbar("Save as new track", up=lambda: dev.press_back('Tap "Navigate up"'))
        ui.field(self, "name", "File name", rid=osm_id("name_edit"), label="File name")
        ui.row("Folder", "tracks", rid=osm_id("select_folder"))
        ui.y = ui.bottom - 170

        def save() -> str:
            name = self.form.get("name", "").strip()
            if not name:
                raise Inapplicable("the file name is empty")
            if any(c in name for c in BAD_CHARS):
                raise Inapplicable(f"the file name may not hold any of {BAD_CHARS}")
            if f"{TRACKS}/{name}.gpx" in media(dev).files:
                raise Inapplicable(f'a track named "{name}" exists already')
            save_track(dev, name, [(p.lat, p.lon) for p in self.plan.points])
            dev.pop()  # this sheet
            if dev.top_screen() is self.plan:
                dev.pop()  # the tool closes once the new track is saved
            dev.toast(f"{name}.gpx saved")
            return 'Tap "Save"'

        half = SCREEN_W // 2
        ui.button(
            "Cancel", lambda: dev.press_back('Tap "Cancel"'), rid=osm_id("dismiss_button"), h=140, x0=PAD, x1=half - 20
        )
        ui.y -= 140
        ui.button("Save", save, rid=osm_id("right_bottom_button"), h=140, x0=half + 20, x1=SCREEN_W - PAD)


__all__ = ["PlanRouteScreen", "SaveTrackScreen", "StartPlanSheet", "distance_km", "plan_picture"]
