"""AndroidWorld's OsmAnd tasks (``task_evals/single/osmand.py``) on the simulated phone.

Parameters are drawn as ``_random_location_str`` draws them: ``random.sample`` of one of the twelve
preloaded places' names, then (names only not asked) one random bit: set, the name
("Rotenboden, Liechtenstein"); clear, its coordinates as ``f"{lat}, {lon}"``. The start state:
the app's snapshot (no favourites, no markers); OsmAndFavorite then clears the favourites
(``_clear_favorites``), OsmAndMarker the ``map_markers`` table (``SQLiteApp._clear_db``). The
checks are AndroidWorld's:

- OsmAndFavorite (``_favorites_contains``): a ``wpt`` of ``favorites.gpx`` whose name contains the
  location text, or whose ``lat``/``lon`` are each within 0.001 degrees of the place's (or of the
  two numbers of a coordinate location);
- OsmAndMarker (``_marker_matches_location``): a ``map_markers`` row within 0.001 degrees.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, ClassVar

from gui_gym.android.sim.apps.osmand.app import FavoriteEditor, MainMenu, MapScreen, SearchScreen
from gui_gym.android.sim.apps.osmand.data import PLACES, Favorite, Marker, OsmAndData, osmand
from gui_gym.android.sim.apps.osmand.plan import PlanRouteScreen, SaveTrackScreen, StartPlanSheet
from gui_gym.android.sim.apps.osmand.tracks import TRACKS, track_points
from gui_gym.android.sim.media import media
from gui_gym.android.sim.tasks.androidworld import AndroidWorldTask
from gui_gym.android.sim.tasks.base import Milestone, Oracle, Params

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

#: ``_PRELOADED_MAP_LOCATIONS``, in its (sorted) key order
LOCATIONS: dict[str, tuple[float, float]] = {f"{p.name}, {p.country}": (p.lat, p.lon) for p in PLACES}


def random_locations(r: random.Random, names_only: bool = False, n: int = 1) -> list[str]:
    """``_random_location_str``: ``n`` names sampled, then (unless ``names_only``) one bit:
    names when set, else their coordinates."""
    names = r.sample(list(LOCATIONS), n)
    if names_only:
        return names
    coords = [LOCATIONS[x] for x in names]
    if r.getrandbits(1):
        return names
    return [f"{lat}, {lon}" for lat, lon in coords]


def parse_coords(text: str) -> tuple[float, ...] | None:
    """``_parse_coords``: the text's numbers, when there are exactly two."""
    nums = tuple(float(x) for x in re.findall(r"-?\d*\.?\d+", text))
    return nums if len(nums) == 2 else None


def location_coords(location: str) -> tuple[float, ...] | None:
    """The coordinates the checks compare with: a preloaded place's, else the text's two numbers."""
    return LOCATIONS.get(location) or parse_coords(location)


def coords_match(target: tuple[float, ...], actual: tuple[float, ...], delta: float = 0.001) -> bool:
    """``_coords_match``: each coordinate within ``delta`` degrees."""
    return all(abs(t - a) < delta for t, a in zip(target, actual, strict=False))


def favorite_matches(f: Favorite, location: str) -> bool:
    """``_waypoint_matches_location``: the name contains the location text, or the point is within
    0.001 degrees of it."""
    if location in f.name:
        return True
    want = location_coords(location)
    return want is not None and coords_match((f.lat, f.lon), want)


def marker_matches(m: Marker, location: str) -> bool:
    """``_marker_matches_location``."""
    want = location_coords(location)
    return want is not None and coords_match((m.lat, m.lon), want)


def search_text(location: str) -> str:
    """What a person types into OsmAnd's search for ``location``: the place's name, or the coordinates."""
    return location.split(",")[0] if location in LOCATIONS else location


def _opened(dev: Device, params: Params) -> bool:
    return "osmand" in dev.state.launched


def _shown(dev: Device, params: Params) -> bool:
    """The place's context menu is open on the map (or was: the task's point is saved)."""
    stack = dev.state.stacks.get("osmand", [])
    want = location_coords(params["location"])
    for s in stack:
        p = getattr(s, "place", None)
        if p is not None and want is not None and coords_match((p.lat, p.lon), want):
            return True
    return False


class OsmAndTask(AndroidWorldTask):
    app: ClassVar[str] = "osmand"
    apps: ClassVar[tuple[str, ...]] = ("osmand",)
    placeholders: ClassVar[dict[str, str]] = {"Location": "location"}
    button: ClassVar[str] = ""

    def generate(self, r: random.Random) -> Params:
        return {"location": random_locations(r)[0]}

    def done(self, dev: Device, params: Params) -> bool:
        return self.check(dev, params, None, None)

    def oracle(self, o: Oracle) -> str:
        if self.done(o.dev, o.p):
            return o.finish()
        if o.app != "osmand":
            return o.launch("OsmAnd")
        screen = o.screen
        if o.dialog is not None:
            return o.back()
        location = o.p["location"]
        want = location_coords(location)
        if isinstance(screen, FavoriteEditor):
            return o.tap(o.find(rid=":id/right_bottom_button"))
        if isinstance(screen, SearchScreen):
            act = o.fill("Search", search_text(location))
            if act is not None:
                return act
            row = next((n for n in o.nodes if n.role == "row" and n.rid.endswith(":id/searchListItemLayout")), None)
            return o.tap(row)
        if isinstance(screen, MapScreen):
            p = screen.place
            if p is not None and want is not None and coords_match((p.lat, p.lon), want):
                return o.tap(o.find(rid=self.button))
            return o.tap(o.find(desc="Search", rid=":id/map_search_button"))
        return o.back()


class OsmAndFavorite(OsmAndTask):
    """Add the location to the favourites: search it, "Add", "Save"."""

    id = "OsmAndFavorite"
    template = "Add a favorite location marker for {location} in the OsmAnd maps app."
    difficulty = "medium"
    optimal_steps = 6
    tags = ("search", "complex_ui_understanding", "parameterized")
    button: ClassVar[str] = ":id/context_menu_fav_view"
    milestones = (
        Milestone("Open OsmAnd", _opened),
        Milestone("Find <Location> on the map", _shown),
        Milestone("Add <Location> to the favourites", lambda d, p: OsmAndFavorite().check(d, p, None, None)),
    )

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        data = dev.state.data.setdefault("osmand", OsmAndData())  # the app's snapshot
        data.favorites.clear()  # _clear_favorites

    def check(self, dev: Device, params: Params, answer: str | None, status: str | None) -> bool:
        return any(favorite_matches(f, params["location"]) for f in osmand(dev).favorites)


class OsmAndMarker(OsmAndTask):
    """Put a map marker on the location: search it, "Marker"."""

    id = "OsmAndMarker"
    template = "Add a location marker for {location} in the OsmAnd maps app."
    difficulty = "hard"
    optimal_steps = 10
    tags = ("complex_ui_understanding", "search", "parameterized")
    button: ClassVar[str] = ":id/context_menu_route_view"
    milestones = (
        Milestone("Open OsmAnd", _opened),
        Milestone("Find <Location> on the map", _shown),
        Milestone("Put a marker on <Location>", lambda d, p: OsmAndMarker().check(d, p, None, None)),
    )

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        data = dev.state.data.setdefault("osmand", OsmAndData())
        data.markers.clear()  # SQLiteApp._clear_db

    def check(self, dev: Device, params: Params, answer: str | None, status: str | None) -> bool:
        return any(marker_matches(m, params["location"]) for m in osmand(dev).markers)


def target_coords(params: Params) -> list[tuple[float, ...]]:
    """``_lookup_target_waypoints``: each waypoint's coordinates (a place's, or the two numbers)."""
    out = [location_coords(w) for w in params["waypoints"]]
    return [c for c in out if c is not None]


def track_matches(points: Iterable[tuple[float, float]], targets: list[tuple[float, ...]]) -> bool:
    """``_track_matches``: the targets found among the points in order, anything between them."""
    it = iter(targets)
    want = next(it, None)
    for p in points:
        if want is not None and coords_match(p, want):
            want = next(it, None)
            if want is None:
                return True
    return False


def _plan(dev: Device) -> PlanRouteScreen | None:
    return next((s for s in dev.state.stacks.get("osmand", []) if isinstance(s, PlanRouteScreen)), None)


def _planning(dev: Device, params: Params) -> bool:
    return _plan(dev) is not None or OsmAndTrack().check(dev, params, None, None)


def _planned(dev: Device, params: Params) -> bool:
    plan = _plan(dev)
    if plan is not None and track_matches(((p.lat, p.lon) for p in plan.points), target_coords(params)):
        return True
    return OsmAndTrack().check(dev, params, None, None)


class OsmAndTrack(AndroidWorldTask):
    """Plan a route through the waypoints in order and save it as a new track: Menu, "Plan a
    route", "Create new route"; per waypoint "Search", its name, the result, "Add point"; "Save",
    the file name, "Save".

    ``generate_random_params``: ``random.randint(2, 4)`` waypoints, then ``_random_location_str``
    with names only (``random.sample`` of the names, no bit drawn); the track's name is
    "<first> to <last>". The set-up empties the tracks folder (``_clear_tracks``:
    ``rm -rf <files>/tracks/*``); the check (``is_successful``) parses every file of the folder and
    looks for the waypoints' coordinates, in order and each within 0.001 degrees, among its
    ``trk/trkseg/trkpt`` points.
    """

    id = "OsmAndTrack"
    app: ClassVar[str] = "osmand"
    apps: ClassVar[tuple[str, ...]] = ("osmand",)
    template = (
        "Save a track with waypoints Ruggell, Liechtenstein, Bendern, Liechtenstein in the OsmAnd maps app"
        " in the same order as listed."
    )
    difficulty = "hard"
    optimal_steps = 60
    tags = ("complex_ui_understanding", "search", "data_entry", "repetition", "parameterized")
    milestones = (
        Milestone("Open OsmAnd", _opened),
        Milestone("Start planning a route", _planning),
        Milestone("Add the waypoints in the order listed", _planned),
        Milestone("Save the route as a track", lambda d, p: OsmAndTrack().check(d, p, None, None)),
    )

    def generate(self, r: random.Random) -> Params:
        n = r.randint(2, 4)
        waypoints = random_locations(r, names_only=True, n=n)
        return {"track_name": f"{waypoints[0]} to {waypoints[-1]}", "waypoints": waypoints}

    def instruction(self, params: Params) -> str:
        return (
            f"Save a track with waypoints {', '.join(params['waypoints'])} in the OsmAnd maps app"
            " in the same order as listed."
        )

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        dev.state.data.setdefault("osmand", OsmAndData())
        media(dev).clear(TRACKS)  # _clear_tracks

    def check(self, dev: Device, params: Params, answer: str | None, status: str | None) -> bool:
        targets = target_coords(params)
        return any(track_matches(track_points(f.data()), targets) for f in media(dev).folder(TRACKS))

    def oracle(self, o: Oracle) -> str:
        if self.check(o.dev, o.p, None, None):
            return o.finish()
        if o.app != "osmand":
            return o.launch("OsmAnd")
        if o.dialog is not None:
            return o.back()
        screen, targets, names = o.screen, target_coords(o.p), o.p["waypoints"]
        plan = _plan(o.dev)
        if isinstance(screen, SaveTrackScreen):
            return o.fill("File name", o.p["track_name"]) or o.tap(o.find(rid=":id/right_bottom_button"))
        if isinstance(screen, PlanRouteScreen):
            pts = [(p.lat, p.lon) for p in screen.points]
            good = len(pts) <= len(targets) and all(coords_match(a, b) for a, b in zip(pts, targets, strict=False))
            if not good:
                return o.tap(o.find(desc="Undo"))
            if len(pts) == len(targets):
                return o.tap(o.find(desc="Save"))
            c = screen.center
            if c is not None and coords_match((c.lat, c.lon), targets[len(pts)]):
                return o.tap(o.find("Add point"))
            return o.tap(o.find(desc="Search", rid=":id/map_search_button"))
        if isinstance(screen, SearchScreen) and plan is not None:
            name = names[min(len(plan.points), len(names) - 1)]
            act = o.fill("Search", search_text(name))
            if act is not None:
                return act
            row = next((n for n in o.nodes if n.role == "row" and n.rid.endswith(":id/searchListItemLayout")), None)
            return o.tap(row)
        if isinstance(screen, StartPlanSheet):
            return o.tap(o.find("Create new route"))
        if isinstance(screen, MainMenu):
            return o.tap(o.find("Plan a route"))
        if isinstance(screen, MapScreen):
            return o.tap(o.find(desc="Back to menu"))
        return o.back()


TEMPLATES = (OsmAndFavorite, OsmAndMarker, OsmAndTrack)

__all__ = [
    "LOCATIONS",
    "TEMPLATES",
    "OsmAndFavorite",
    "OsmAndMarker",
    "OsmAndTrack",
    "coords_match",
    "favorite_matches",
    "location_coords",
    "marker_matches",
    "random_locations",
    "target_coords",
    "track_matches",
]
