"""OsmAnd (net.osmand 4.6.13, the build AndroidWorld installs, with the Liechtenstein map): the
map, search, a place's context menu, favourites and map markers.

Screens, as the app lays them out (resource ids and texts from OsmAnd's layouts and strings):

- the map (:class:`MapScreen`, ``MapActivity``): the map view (``map_view``: a picture, its
  contents in pixels only), "Search" (``map_search_button``), "Back to menu"
  (``map_menu_button``), zoom buttons. A place chosen in search opens its context menu at the
  bottom: the name (``context_menu_line1``), the country or "Location" (``context_menu_line2``) and
  the action buttons "Add" (``context_menu_fav_view``: adds a favourite through the editor; "Edit"
  once the place is one), "Marker" (``context_menu_route_view``: puts a map marker there), "Share"
  and "Actions". Back or a tap on the map closes it.
- search (:class:`SearchScreen`, ``QuickSearchDialogFragment``): the field (``searchEditText``,
  hint "Search") and the results (``list``): the map's places whose name starts with the text, or
  the point of a typed ``lat, lon``.
- the favourite editor (:class:`FavoriteEditor`): "Add favorite", the name (``name_edit``),
  description, the group "Favorites", "Cancel" / "Save" (``right_bottom_button``).
- the menu (:class:`MainMenu`): "My places" (the favourites, :class:`FavoritesScreen`,
  ``MyPlacesActivity``) and "Map markers" (:class:`MarkersScreen`).
"""

from __future__ import annotations

import datetime as dt
import functools
from typing import TYPE_CHECKING

from gui_gym.android.sim.apps.base import App
from gui_gym.android.sim.apps.osmand.common import MAP_ACTIVITY, SearchScreen, map_picture, osm_id
from gui_gym.android.sim.apps.osmand.data import PKG, Favorite, Marker, OsmAndData, Place, osmand
from gui_gym.android.sim.apps.osmand.storage import FAVORITES_DB, MARKERS_DB
from gui_gym.android.sim.media import MediaFile
from gui_gym.android.sim.widgets import PAD, UI, Inapplicable, Screen
from gui_gym.android.ui import SCREEN_W, Node

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device


def _is_favorite(data: OsmAndData, place: Place) -> bool:
    return any(abs(f.lat - place.lat) < 1e-7 and abs(f.lon - place.lon) < 1e-7 for f in data.favorites)


def add_marker(dev: Device, place: Place) -> Marker:
    """``MapMarkersHelper.addMapMarker``: a new active marker at the head of the list."""
    data = osmand(dev)
    now = dev.state.now
    ms = int(now.replace(tzinfo=dt.UTC).timestamp() * 1000)
    key = f"{place.lat:.5f}_{place.lon:.5f}_{len(data.markers) + 1}"
    used = {m.color for m in data.markers if m.active}
    color = next((c for c in range(10) if c not in used), 0)
    m = Marker(
        key,
        place.lat,
        place.lon,
        description=f"marker#{place.name}" if place.name else "marker#",
        added=ms,
        color=color,
        next_key=data.markers[0].marker_id if data.markers else "tail_next",
        map_object_name=place.name,
        title=place.name,
    )
    data.markers.insert(0, m)
    return m


class MapScreen(Screen):
    """MapActivity: the map, its buttons, and the context menu of a chosen place."""

    activity = MAP_ACTIVITY

    def __init__(self) -> None:
        super().__init__()
        self.place: Place | None = None

    def screen_name(self) -> str:
        return "OsmAnd/Map" + (f"/{self.place.title}" if self.place else "")

    def on_back(self, dev: Device) -> str | None:
        if self.place is not None:
            self.place = None
            return "Press Back to close the context menu"
        return None

    def choose_place(self, place: Place) -> None:
        """The search's choice: the map centred on ``place`` with its context menu."""
        self.place = place

    def build(self, ui: UI, dev: Device) -> None:
        top, bottom = ui.y, ui.bottom
        place = self.place

        def close() -> str:
            if self.place is None:
                raise Inapplicable("a tap on the map selects nothing here (search for a place)")
            self.place = None
            return "Tap the map to close the context menu"

        ui.add(
            Node(
                "android.view.View",
                (0, top, SCREEN_W, bottom),
                rid=osm_id("map_view"),
                picture=functools.partial(map_picture, place.lat if place else None, place.lon if place else None),
                role="picture",
                style=("crop", "osmand-map", place.lat if place else None, place.lon if place else None),
                on_tap=close,
            )
        )

        def search() -> str:
            self.place = None
            s = SearchScreen()
            dev.push(s)
            return 'Tap "Search"'

        def menu() -> str:
            self.place = None
            dev.push(MainMenu())
            return 'Tap "Back to menu"'

        for desc, rid, box, on_tap, icon in (
            ("Back to menu", "map_menu_button", (PAD, top + 40, PAD + 150, top + 190), menu, "menu"),
            (
                "Search",
                "map_search_button",
                (SCREEN_W - PAD - 150, top + 40, SCREEN_W - PAD, top + 190),
                search,
                "search",
            ),
        ):
            ui.add(
                Node(
                    "android.widget.ImageButton",
                    box,
                    desc=desc,
                    rid=osm_id(rid),
                    on_tap=on_tap,
                    role="icon",
                    style=icon,
                )
            )
        if place is None:
            for i, (desc, rid, icon) in enumerate(
                (("Zoom in", "map_zoom_in_button", "add"), ("Zoom out", "map_zoom_out_button", "remove"))
            ):
                y = bottom - 500 + i * 170
                ui.add(
                    Node(
                        "android.widget.ImageButton",
                        (SCREEN_W - PAD - 150, y, SCREEN_W - PAD, y + 150),
                        desc=desc,
                        rid=osm_id(rid),
                        on_tap=lambda d=desc: f'Tap "{d}"',
                        role="icon",
                        style=icon,
                    )
                )
            return
        self._context_menu(ui, dev, place, bottom)

    def _context_menu(self, ui: UI, dev: Device, place: Place, bottom: int) -> None:
        data = osmand(dev)
        t = bottom - 520
        panel = Node(
            "android.widget.LinearLayout",
            (0, t, SCREEN_W, bottom),
            rid=osm_id("context_menu_main"),
            role="panel",
            style="opaque",
        )
        ui.add(panel)
        kids = panel.children
        kids.append(
            Node(
                "android.widget.TextView",
                (PAD, t + 30, SCREEN_W - PAD, t + 130),
                place.title,
                rid=osm_id("context_menu_line1"),
                role="title",
                package=PKG,
            )
        )
        line2 = place.country if place.name else "Location"
        kids.append(
            Node(
                "android.widget.TextView",
                (PAD, t + 130, SCREEN_W - PAD, t + 200),
                f"{place.kind} • {line2}" if place.name else line2,
                rid=osm_id("context_menu_line2"),
                role="subtext",
                package=PKG,
            )
        )
        fav = _is_favorite(data, place)

        def add_fav() -> str:
            if fav:
                raise Inapplicable(f'"{place.title}" is a favourite already')
            dev.push(FavoriteEditor(place))
            return 'Tap "Add" (add to favourites)'

        def marker() -> str:
            add_marker(dev, place)
            dev.toast(f"{place.title} added to Map markers")
            return 'Tap "Marker"'

        def nothing(what: str) -> str:
            raise Inapplicable(f'"{what}" is not part of this simulation')

        y = t + 240
        w = (SCREEN_W - 2 * PAD) // 4
        for i, (label, rid, cb, icon) in enumerate(
            (
                ("Edit" if fav else "Add", "context_menu_fav_view", add_fav, "star"),
                ("Marker", "context_menu_route_view", marker, "flag"),
                ("Share", "context_menu_share_view", lambda: nothing("Share"), "share"),
                ("Actions", "context_menu_more_view", lambda: nothing("Actions"), "more"),
            )
        ):
            x = PAD + i * w
            kids.append(
                Node(
                    "android.widget.LinearLayout",
                    (x, y, x + w - 10, y + 200),
                    rid=osm_id(rid),
                    on_tap=cb,
                    clickable=True,
                    label=label,
                    role="button",
                    package=PKG,
                    children=[
                        Node(
                            "android.widget.ImageView",
                            (x + w // 2 - 50, y + 10, x + w // 2 + 50, y + 110),
                            desc=label,
                            role="icon",
                            style=icon,
                            package=PKG,
                        ),
                        Node(
                            "android.widget.TextView",
                            (x, y + 120, x + w - 10, y + 190),
                            label,
                            role="text",
                            package=PKG,
                        ),
                    ],
                )
            )


class FavoriteEditor(Screen):
    """FavoritePointEditorFragment: name, description and group of a new favourite; Save."""

    activity = MAP_ACTIVITY

    def __init__(self, place: Place) -> None:
        super().__init__()
        self.place = place
        self.form["name"] = place.title
        self.form["description"] = ""

    def screen_name(self) -> str:
        return "OsmAnd/Add favorite"

    def build(self, ui: UI, dev: Device) -> None:
        ui.toolbar("Add favorite")
        ui.field(self, "name", "Name", rid=osm_id("name_edit"), label="Name")
        ui.field(self, "description", "Description", rid=osm_id("description_edit"), label="Description")
        ui.row("Group", "Favorites", rid=osm_id("group_list_item"))
        ui.y = ui.bottom - 170

        def save() -> str:
            name = self.form.get("name", "").strip()
            if not name:
                raise Inapplicable("a favourite needs a name")
            data = osmand(dev)
            if any(f.name == name and f.group == "" for f in data.favorites):
                raise Inapplicable(f'a favourite named "{name}" exists already')
            when = dev.state.now.strftime("%Y-%m-%dT%H:%M:%SZ")
            address = f"{self.place.name}, {self.place.country}" if self.place.name else ""
            data.favorites.append(
                Favorite(name, self.place.lat, self.place.lon, when, "", self.form.get("description", ""), address)
            )
            dev.pop()
            return 'Tap "Save"'

        half = SCREEN_W // 2
        ui.button(
            "Cancel", lambda: dev.press_back('Tap "Cancel"'), rid=osm_id("dismiss_button"), h=140, x0=PAD, x1=half - 20
        )
        ui.y -= 140
        ui.button("Save", save, rid=osm_id("right_bottom_button"), h=140, x0=half + 20, x1=SCREEN_W - PAD)


class MainMenu(Screen):
    """The main menu (``DashboardOnMap`` drawer): where My places and Map markers are."""

    activity = MAP_ACTIVITY

    def screen_name(self) -> str:
        return "OsmAnd/Menu"

    def build(self, ui: UI, dev: Device) -> None:
        ui.toolbar("Menu")
        for title, screen in (("My places", FavoritesScreen), ("Map markers", MarkersScreen)):

            def go(screen: type[Screen] = screen, title: str = title) -> str:
                dev.push(screen())
                return f'Tap "{title}"'

            ui.row(title, on_tap=go, rid=osm_id("drawer_item"))

        def plan() -> str:
            from gui_gym.android.sim.apps.osmand.plan import StartPlanSheet

            dev.pop()
            dev.push(StartPlanSheet())
            return 'Tap "Plan a route"'

        ui.row("Plan a route", on_tap=plan, rid=osm_id("drawer_item"))
        for title in ("Search", "Directions", "Configure map", "Download maps", "Settings"):
            ui.row(title, on_tap=lambda t=title: f'Tap "{t}" (not part of this simulation)', rid=osm_id("drawer_item"))


class FavoritesScreen(Screen):
    """MyPlacesActivity: its Favorites tab (the favourites by name) and Tracks tab (the GPX files
    of the tracks folder, newest first)."""

    activity = "net.osmand.plus.myplaces.ui.MyPlacesActivity"

    def __init__(self) -> None:
        super().__init__()
        self.tab = "Favorites"

    def screen_name(self) -> str:
        return f"OsmAnd/My places/{self.tab}"

    def build(self, ui: UI, dev: Device) -> None:
        ui.toolbar("My places")

        def select(name: str) -> str:
            self.tab = name
            return f'Tap "{name}"'

        ui.tabs(["Favorites", "Tracks"], self.tab, select)
        if self.tab == "Tracks":
            from gui_gym.android.sim.apps.osmand.tracks import track_files, track_points

            def track(ui: UI, f: MediaFile) -> None:
                n = len(list(track_points(f.data())))
                ui.row(f.name.removesuffix(".gpx"), f"{n} points", rid=osm_id("gpx_track_item"), h=190)

            files = track_files(dev)
            ui.scroll_list(self, "tracks", files, track, item_h=190, empty="No tracks yet", list_id="list")
            return
        favs = sorted(osmand(dev).favorites, key=lambda f: f.name.lower())

        def render(ui: UI, f: Favorite) -> None:
            ui.row(f.name, f.address or f"{f.lat:.5f}, {f.lon:.5f}", rid=osm_id("favourite_item"), h=190)

        ui.scroll_list(self, "favs", favs, render, item_h=190, empty="No favorites yet", list_id="favourites_list")


class MarkersScreen(Screen):
    """MapMarkersDialogFragment: the active markers, newest first."""

    activity = MAP_ACTIVITY

    def screen_name(self) -> str:
        return "OsmAnd/Map markers"

    def build(self, ui: UI, dev: Device) -> None:
        ui.toolbar("Map markers")
        active = [m for m in osmand(dev).markers if m.active]

        def render(ui: UI, m: Marker) -> None:
            ui.row(
                m.title or m.map_object_name or f"{m.lat:.5f}, {m.lon:.5f}",
                f"{m.lat:.5f}, {m.lon:.5f}",
                rid=osm_id("map_marker_item"),
                h=190,
            )

        ui.scroll_list(self, "markers", active, render, item_h=190, empty="No markers", list_id="list")


class OsmAndApp(App):
    name = "osmand"
    label = "OsmAnd"
    package = PKG
    activity = MAP_ACTIVITY
    aliases = ("osmand",)
    color = (255, 136, 0)
    icon = "osmand"
    databases = (FAVORITES_DB, MARKERS_DB)

    def initial_data(self) -> OsmAndData:
        return OsmAndData()

    def root(self, dev: Device) -> Screen:
        return MapScreen()


__all__ = [
    "MAP_ACTIVITY",
    "FavoriteEditor",
    "FavoritesScreen",
    "MainMenu",
    "MapScreen",
    "MarkersScreen",
    "OsmAndApp",
    "SearchScreen",
    "add_marker",
    "map_picture",
]
