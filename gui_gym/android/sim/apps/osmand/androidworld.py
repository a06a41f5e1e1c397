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
from typing import TYPE_CHECKING, ClassVar

from gui_gym.android.sim.apps.osmand.app import FavoriteEditor, MapScreen, SearchScreen
from gui_gym.android.sim.apps.osmand.data import PLACES, Favorite, Marker, OsmAndData, osmand
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


TEMPLATES = (OsmAndFavorite, OsmAndMarker)

__all__ = [
    "LOCATIONS",
    "TEMPLATES",
    "OsmAndFavorite",
    "OsmAndMarker",
    "coords_match",
    "favorite_matches",
    "location_coords",
    "marker_matches",
    "random_locations",
]
