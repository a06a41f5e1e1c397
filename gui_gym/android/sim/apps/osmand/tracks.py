"""OsmAnd's saved tracks: GPX files in the app's ``tracks`` folder of shared storage.

OsmAnd keeps a track as ``<name>.gpx`` in ``/storage/emulated/0/Android/data/net.osmand/files/tracks``
(the phone's media store, :data:`TRACKS` below ``/sdcard``). A route made with "Plan a route" and
saved with "Save as new track" is written by OsmAnd's GPX writer: ``<gpx>`` (GPX 1.1 and OsmAnd's
namespace), its ``<metadata><name>``, and one ``<trk>`` with the track's name and a ``<trkseg>``
whose ``<trkpt lat= lon=>`` are the planned points in order (straight lines between them).

Example:
    >>> raw = encode_track("Trip", [(47.1, 9.5), (47.2, 9.6)])
    >>> list(track_points(raw))
    [(47.1, 9.5), (47.2, 9.6)]
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING
from xml.etree import ElementTree as ET
from xml.sax.saxutils import escape

from gui_gym.android.sim.apps.osmand.data import PKG
from gui_gym.android.sim.apps.osmand.storage import GPX_NS, OSMAND_NS
from gui_gym.android.sim.media import MediaFile, media

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

#: the tracks folder below ``/sdcard`` (AndroidWorld: ``<_DEVICE_FILES>/tracks``)
TRACKS = f"Android/data/{PKG}/files/tracks"
#: characters OsmAnd's file name check refuses
BAD_CHARS = '\\/:*?"<>|'
_G = f"{{{GPX_NS}}}"


def encode_track(name: str, points: Sequence[tuple[float, float]], when: dt.datetime | None = None) -> bytes:
    """A planned route saved as a new track, as OsmAnd's GPX writer lays it out."""
    out = [
        "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>",
        f'<gpx version="1.1" creator="OsmAnd~ 4.6.13" xmlns="{GPX_NS}" xmlns:osmand="{OSMAND_NS}"'
        ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'
        ' xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">',
        "  <metadata>",
        f"    <name>{escape(name)}</name>",
    ]
    if when is not None:
        out.append(f"    <time>{when.strftime('%Y-%m-%dT%H:%M:%SZ')}</time>")
    out += ["  </metadata>", "  <trk>", f"    <name>{escape(name)}</name>", "    <trkseg>"]
    for lat, lon in points:
        out.append(f'      <trkpt lat="{lat!r}" lon="{lon!r}">')
        out.append("      </trkpt>")
    out += [
        "    </trkseg>",
        "  </trk>",
        "  <extensions>",
        "    <osmand:show_arrows>false</osmand:show_arrows>",
        "    <osmand:show_start_finish>true</osmand:show_start_finish>",
        "  </extensions>",
        "</gpx>",
    ]
    return ("\n".join(out) + "\n").encode("utf-8")


def track_points(raw: bytes) -> Iterator[tuple[float, float]]:
    """Every ``gpx:trk/gpx:trkseg/gpx:trkpt`` point of a GPX file, in order (nothing where the
    file is no GPX the phone can read)."""
    try:
        root = ET.fromstring(raw)
    except ET.ParseError:
        return
    for trk in root.findall(f"{_G}trk"):
        for seg in trk.findall(f"{_G}trkseg"):
            for pt in seg.findall(f"{_G}trkpt"):
                try:
                    yield float(pt.get("lat", "")), float(pt.get("lon", ""))
                except ValueError:
                    return


def track_files(dev: Device) -> list[MediaFile]:
    """The files in the tracks folder, newest first."""
    return media(dev).folder(TRACKS)


def save_track(dev: Device, name: str, points: Sequence[tuple[float, float]]) -> MediaFile:
    """Write ``<name>.gpx`` into the tracks folder."""
    now = dev.state.now
    return media(dev).add_file(f"{TRACKS}/{name}.gpx", encode_track(name, points, now), now)


__all__ = ["BAD_CHARS", "TRACKS", "encode_track", "save_track", "track_files", "track_points"]
