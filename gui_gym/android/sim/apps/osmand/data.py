"""OsmAnd's data as the app keeps it: favourites (``favorites.gpx``) and map markers
(``map_markers_db``), and the places of the Liechtenstein map AndroidWorld preloads.

AndroidWorld installs OsmAnd 4.6.13 with ``Liechtenstein_europe.obf`` and names twelve places of
it (``task_evals/single/osmand.py``: ``_PRELOADED_MAP_LOCATIONS``); the app's search finds those
(:data:`PLACES`) and any typed ``lat, lon`` pair.

Example:
    >>> find("rotenb")[0].name, find("47.1, 9.5")[0].lat
    ('Rotenboden', 47.1)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

PKG = "net.osmand"
#: the app's files in shared storage, as AndroidWorld addresses them (``osmand._DEVICE_FILES``)
FILES = "/sdcard/Android/data/net.osmand/files"  # /data/media/0/... on the phone: the same folder
FAVORITES_PATH = f"{FILES}/favorites/favorites.gpx"
MARKERS_PATH = f"/data/data/{PKG}/databases/map_markers_db"


@dataclass(frozen=True)
class Place:
    """A place of the map: its name, country and coordinates (a typed coordinate pair: no name)."""

    name: str
    lat: float
    lon: float
    kind: str = "Village"
    country: str = "Liechtenstein"

    @property
    def title(self) -> str:
        return self.name or f"{self.lat:.5f}, {self.lon:.5f}"


#: the places AndroidWorld's tasks name, with its coordinates (``_PRELOADED_MAP_LOCATIONS``)
PLACES: tuple[Place, ...] = (
    Place("Balzers", 47.0688832, 9.5061564),
    Place("Bendern", 47.2122151, 9.5062101),
    Place("Malbun", 47.1026191, 9.6083057),
    Place("Nendeln", 47.1973857, 9.5430636),
    Place("Oberplanken", 47.1784977, 9.5450163),
    Place("Planken", 47.1858882, 9.5452201),
    Place("Rotenboden", 47.1275785, 9.5387131),
    Place("Ruggell", 47.23976, 9.5262837),
    Place("Schaan", 47.1663432, 9.5103085),
    Place("Schaanwald", 47.2165476, 9.5699984),
    Place("Schönberg", 47.1303814, 9.5930117),
    Place("Triesen", 47.106997, 9.5274854),
)
_COORDS = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*[,; ]\s*(-?\d+(?:\.\d+)?)\s*$")


def find(query: str) -> list[Place]:
    """What the search lists for ``query``: a typed ``lat, lon`` as a point, else the places whose
    name starts with the query's words (``, Liechtenstein`` may follow), by name."""
    m = _COORDS.match(query)
    if m:
        lat, lon = float(m.group(1)), float(m.group(2))
        if -90 <= lat <= 90 and -180 <= lon <= 180:
            return [Place("", lat, lon, "Location", "")]
        return []
    q = query.strip().lower()
    if not q:
        return []
    head = q.split(",")[0].strip()
    rest = q[len(q.split(",")[0]) :].strip(" ,")
    out = []
    for p in PLACES:
        if p.name.lower().startswith(head) and (not rest or p.country.lower().startswith(rest)):
            out.append(p)
    return sorted(out, key=lambda p: (p.name.lower() != head, p.name))


@dataclass
class Favorite:
    """A favourite point: a ``<wpt>`` of ``favorites.gpx``."""

    name: str
    lat: float
    lon: float
    time: str = ""  # ISO 8601 UTC, as the GPX writes it
    group: str = ""  # "" is the default group ("Favorites")
    description: str = ""
    address: str = ""
    color: str = "#eecc22"
    icon: str = "special_star"


@dataclass
class Marker:
    """A map marker: a row of ``map_markers`` (the columns of ``MapMarkersDbHelper``)."""

    marker_id: str
    lat: float
    lon: float
    description: str = ""
    active: int = 1
    added: int = 0  # Unix milliseconds
    visited: int = 0
    group_name: str = ""
    group_key: str = ""
    color: int = 0
    next_key: str = "tail_next"
    disabled: int = 0
    selected: int = 0
    map_object_name: str = ""
    title: str = ""


@dataclass
class OsmAndData:
    favorites: list[Favorite] = field(default_factory=list)
    markers: list[Marker] = field(default_factory=list)


def osmand(dev: Device) -> OsmAndData:
    return dev.data("osmand")


__all__ = [
    "FAVORITES_PATH",
    "FILES",
    "MARKERS_PATH",
    "PKG",
    "PLACES",
    "Favorite",
    "Marker",
    "OsmAndData",
    "Place",
    "find",
    "osmand",
]
