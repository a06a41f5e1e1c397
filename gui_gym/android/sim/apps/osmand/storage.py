"""Where OsmAnd keeps the data AndroidWorld's tasks read, as the served phone shows it.

- Favourites: the GPX 1.1 file ``favorites.gpx`` in the app's shared-storage folder
  (:data:`~gui_gym.android.sim.apps.osmand.data.FAVORITES_PATH`), one ``<wpt lat= lon=>`` per
  favourite with its ``<name>``, ``<time>``, ``<type>`` (the group) and OsmAnd's extensions.
  AndroidWorld pulls it, removes every ``wpt`` and pushes it back (``_clear_favorites``); a file
  pushed there is read back (namespaced as ElementTree rewrites it, or not); one that is no GPX
  (unparsable XML, a DTD, a waypoint without numeric ``lat``/``lon``) is refused.
- Map markers: the ``map_markers`` table of the SQLite database ``map_markers_db`` (the columns of
  ``MapMarkersDbHelper``; AndroidWorld's ``sqlite_schema_utils.OsmAndMapMarker`` reads them by name).

Both files belong to one app's data: a file pushed at one path replaces the app's data with what
that file holds (the other file's part starts empty), as the served phone reads one file per
:class:`~gui_gym.android.sim.storage.Database`.

Example:
    >>> data = OsmAndData([Favorite("Triesen", 47.106997, 9.5274854, "2023-10-15T15:34:00Z")])
    >>> [(f.name, f.lat) for f in decode_favorites(encode_favorites(data)).favorites]
    [('Triesen', 47.106997)]
    >>> raw = encode_markers(OsmAndData(markers=[Marker("m1", 47.1, 9.5)]))
    >>> [(m.marker_id, m.lat) for m in decode_markers(raw).markers]
    [('m1', 47.1)]
"""

from __future__ import annotations

import math
import sqlite3
from typing import Any
from xml.etree import ElementTree as ET
from xml.sax.saxutils import escape, quoteattr

from gui_gym.android.sim.apps.osmand.data import FAVORITES_PATH, MARKERS_PATH, Favorite, Marker, OsmAndData
from gui_gym.android.sim.storage import (
    MAX_DATABASE_BYTES,
    MAX_ROWS,
    Column,
    Database,
    StorageError,
    Table,
    check_int,
    check_text,
)

GPX_NS = "http://www.topografix.com/GPX/1/1"
OSMAND_NS = "https://osmand.net/docs/technical/osmand-file-formats/osmand-gpx"
_G = f"{{{GPX_NS}}}"
_O = f"{{{OSMAND_NS}}}"


def encode_favorites(data: OsmAndData) -> bytes:
    """``favorites.gpx`` as OsmAnd writes it (``GpxUtilities.writeGpx`` of the favourites)."""
    out = [
        "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>",
        f'<gpx version="1.1" creator="OsmAnd~ 4.6.13" xmlns="{GPX_NS}" xmlns:osmand="{OSMAND_NS}"'
        ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'
        ' xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">',
        "  <metadata>",
        "    <name>favorites</name>",
        "  </metadata>",
    ]
    for f in data.favorites:
        out.append(f'  <wpt lat="{f.lat!r}" lon="{f.lon!r}">')
        if f.time:
            out.append(f"    <time>{escape(f.time)}</time>")
        out.append(f"    <name>{escape(f.name)}</name>")
        if f.description:
            out.append(f"    <desc>{escape(f.description)}</desc>")
        if f.group:
            out.append(f"    <type>{escape(f.group)}</type>")
        out.append("    <extensions>")
        if f.address:
            out.append(f"      <osmand:address>{escape(f.address)}</osmand:address>")
        out.append(f"      <osmand:icon>{escape(f.icon)}</osmand:icon>")
        out.append("      <osmand:background>circle</osmand:background>")
        out.append(f"      <osmand:color>{escape(f.color)}</osmand:color>")
        out.append("    </extensions>")
        out.append("  </wpt>")
    groups = sorted({f.group for f in data.favorites})
    out.append("  <extensions>")
    out.append("    <osmand:points_groups>")
    for g in groups:
        out.append(f'      <group name={quoteattr(g)} color="#eecc22" icon="special_star" background="circle" />')
    out.append("    </osmand:points_groups>")
    out.append("  </extensions>")
    out.append("</gpx>")
    return ("\n".join(out) + "\n").encode("utf-8")


def _text(el: ET.Element, tag: str) -> str:
    child = el.find(tag)
    return (child.text or "") if child is not None else ""


def decode_favorites(raw: bytes) -> OsmAndData:
    """The favourites of a ``favorites.gpx``; :class:`StorageError` where OsmAnd could not read it."""
    if len(raw) > MAX_DATABASE_BYTES:
        raise StorageError(f"{len(raw)} bytes; a favourites file holds at most {MAX_DATABASE_BYTES}")
    if b"<!DOCTYPE" in raw.upper() or b"<!ENTITY" in raw.upper():
        raise StorageError("a GPX file has no document type declaration or entities")
    try:
        root = ET.fromstring(raw)
    except ET.ParseError as e:
        raise StorageError(f"not a GPX file: unreadable XML ({e})") from None
    ns = _G if root.tag == f"{_G}gpx" else "" if root.tag == "gpx" else None
    if ns is None:
        raise StorageError(f"not a GPX file: its root is <{root.tag}>, not <gpx>")
    data = OsmAndData()
    for i, w in enumerate(root.findall(f"{ns}wpt")):
        if i >= MAX_ROWS:
            raise StorageError(f"more than {MAX_ROWS} waypoints")
        try:
            lat, lon = float(w.attrib["lat"]), float(w.attrib["lon"])
        except (KeyError, ValueError):
            raise StorageError(f"waypoint {i + 1} has no numeric lat and lon") from None
        if not (math.isfinite(lat) and math.isfinite(lon)):
            raise StorageError(f"waypoint {i + 1} has no finite lat and lon")
        ext = w.find(f"{ns}extensions")
        fav = Favorite(
            name=_text(w, f"{ns}name"),
            lat=lat,
            lon=lon,
            time=_text(w, f"{ns}time"),
            group=_text(w, f"{ns}type"),
            description=_text(w, f"{ns}desc"),
        )
        if ext is not None:
            fav.address = _text(ext, f"{_O}address")
            fav.icon = _text(ext, f"{_O}icon") or fav.icon
            fav.color = _text(ext, f"{_O}color") or fav.color
        data.favorites.append(fav)
    return data


MARKERS = Table(
    "map_markers",
    (
        Column("marker_id", "TEXT PRIMARY KEY", ""),
        Column("marker_lat", "double", 0.0),
        Column("marker_lon", "double", 0.0),
        Column("marker_description", "TEXT", ""),
        Column("marker_active", "int", 1),
        Column("marker_added", "long", 0),
        Column("marker_visited", "long", 0),
        Column("group_name", "TEXT", ""),
        Column("group_key", "TEXT", ""),
        Column("marker_color", "int", 0),
        Column("marker_next_key", "TEXT", ""),
        Column("marker_disabled", "int", 0),
        Column("marker_selected", "int", 0),
        Column("marker_map_object_name", "TEXT", ""),
        Column("title", "TEXT", ""),
    ),
)


def marker_row(m: Marker) -> dict[str, Any]:
    return {
        "marker_id": m.marker_id,
        "marker_lat": m.lat,
        "marker_lon": m.lon,
        "marker_description": m.description,
        "marker_active": m.active,
        "marker_added": m.added,
        "marker_visited": m.visited,
        "group_name": m.group_name,
        "group_key": m.group_key,
        "marker_color": m.color,
        "marker_next_key": m.next_key,
        "marker_disabled": m.disabled,
        "marker_selected": m.selected,
        "marker_map_object_name": m.map_object_name,
        "title": m.title,
    }


def encode_markers(data: OsmAndData) -> bytes:
    return MARKERS.encode([marker_row(m) for m in data.markers])


def _real(row: dict[str, Any], name: str) -> float:
    v = row[name]
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise StorageError(f"column {name!r} holds {v!r}; the app stores a number there")
    return float(v)


def decode_markers(raw: bytes) -> OsmAndData:
    """The markers of a ``map_markers_db``; :class:`StorageError` where the app could not read it."""
    data = OsmAndData()
    seen: set[str] = set()
    for r in MARKERS.decode(raw):
        key = check_text(r, "marker_id")
        if key in seen:
            raise StorageError(f"marker_id {key!r} is used twice")
        seen.add(key)
        ints = {}
        for c in (
            "marker_active",
            "marker_added",
            "marker_visited",
            "marker_color",
            "marker_disabled",
            "marker_selected",
        ):
            ints[c] = 0 if r[c] is None else check_int(r, c)
        texts = {
            c: check_text(r, c, nullable=True)
            for c in (
                "marker_description",
                "group_name",
                "group_key",
                "marker_next_key",
                "marker_map_object_name",
                "title",
            )
        }
        data.markers.append(
            Marker(
                key,
                _real(r, "marker_lat"),
                _real(r, "marker_lon"),
                texts["marker_description"],
                ints["marker_active"],
                ints["marker_added"],
                ints["marker_visited"],
                texts["group_name"],
                texts["group_key"],
                ints["marker_color"],
                texts["marker_next_key"],
                ints["marker_disabled"],
                ints["marker_selected"],
                texts["marker_map_object_name"],
                texts["title"],
            )
        )
    try:
        encode_markers(data)
    except (sqlite3.Error, OverflowError, ValueError) as e:
        raise StorageError(f"a value the app cannot store back ({e})") from None
    return data


FAVORITES_DB = Database("osmand", FAVORITES_PATH, encode_favorites, decode_favorites, OsmAndData, owns=("favorites",))
MARKERS_DB = Database("osmand", MARKERS_PATH, encode_markers, decode_markers, OsmAndData, owns=("markers",))

__all__ = [
    "FAVORITES_DB",
    "MARKERS",
    "MARKERS_DB",
    "decode_favorites",
    "decode_markers",
    "encode_favorites",
    "encode_markers",
]
