"""What OsmAnd's map screens share: the map activity, the drawn map, resource ids, and the
search (``QuickSearchDialogFragment``) that centres whichever map screen opened it."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from PIL import Image, ImageDraw

from gui_gym.android.sim.apps.osmand.data import PKG, Place, find
from gui_gym.android.sim.widgets import UI, Screen

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

MAP_ACTIVITY = "net.osmand.plus.activities.MapActivity"
#: the map's extent drawn (Liechtenstein), south-west and north-east corners
MAP_BOX = (47.04, 9.46, 47.28, 9.66)


def osm_id(name: str) -> str:
    return f"{PKG}:id/{name}"


@functools.lru_cache(maxsize=32)
def map_picture(lat: float | None, lon: float | None) -> Image.Image:
    """The map as the screen shows it: land, the Rhine, roads, and a pin at the chosen point."""
    w, h = 540, 1000
    img = Image.new("RGB", (w, h), (241, 238, 232))
    d = ImageDraw.Draw(img)
    s, west, n, east = MAP_BOX

    def xy(la: float, lo: float) -> tuple[int, int]:
        return int((lo - west) / (east - west) * w), int((n - la) / (n - s) * h)

    d.line([xy(47.04, 9.50), xy(47.10, 9.51), xy(47.17, 9.49), xy(47.28, 9.52)], fill=(170, 211, 223), width=14)
    d.rectangle([xy(47.14, 9.58), xy(47.08, 9.65)], fill=(205, 235, 176))
    d.line([xy(47.06, 9.51), xy(47.11, 9.53), xy(47.17, 9.51), xy(47.24, 9.53)], fill=(255, 255, 255), width=8)
    d.line([xy(47.17, 9.51), xy(47.19, 9.545), xy(47.22, 9.57)], fill=(255, 255, 255), width=6)
    d.line([xy(47.11, 9.53), xy(47.13, 9.59), xy(47.10, 9.61)], fill=(255, 255, 255), width=6)
    if lat is not None and lon is not None:
        x, y = xy(lat, lon)
        d.ellipse([x - 16, y - 40, x + 16, y - 8], fill=(229, 57, 53), outline=(120, 20, 20))
        d.polygon([(x - 12, y - 18), (x + 12, y - 18), (x, y)], fill=(229, 57, 53))
    return img


class SearchScreen(Screen):
    """QuickSearchDialogFragment: type a place's name or a coordinate pair; the results."""

    activity = MAP_ACTIVITY

    def __init__(self) -> None:
        super().__init__()
        self.focus = "query"

    def screen_name(self) -> str:
        return "OsmAnd/Search"

    def build(self, ui: UI, dev: Device) -> None:
        ui.toolbar("Search")
        ui.field(self, "query", "Search", rid=osm_id("searchEditText"), label="Search")
        results = find(self.form.get("query", ""))

        def render(ui: UI, p: Place) -> None:
            def choose(p: Place = p) -> str:
                dev.pop()
                top = dev.top_screen()
                if hasattr(top, "choose_place"):  # the map, or Plan a route: centred there
                    top.choose_place(p)
                return f'Choose "{p.title}"'

            sub = f"{p.kind} • {p.country}" if p.name else "Location"
            ui.row(p.title, sub, on_tap=choose, rid=osm_id("searchListItemLayout"), h=190)

        empty = "Nothing found" if self.form.get("query") else "Type a place's name or coordinates"
        ui.scroll_list(self, "results", results, render, item_h=190, empty=empty, list_id="list")
