"""OpenTracks' data: its recorded tracks, the ``tracks`` rows of its ``database.db``.

A row is kept as a dict of the real table's columns (:mod:`~gui_gym.android.sim.apps.opentracks.storage`
lists them), so what the phone holds maps one to one to the database served over adb: times in
Unix milliseconds (``starttime``, ``stoptime``; ``totaltime`` and ``movingtime`` durations),
``totaldistance`` in meters, speeds in meters per second, elevations in meters; ``category`` the
activity's free-text type ("running"), ``activity_type`` the icon's.

Example:
    >>> data = OpenTracksData()
    >>> t = data.add({"name": "Morning Run", "category": "running", "starttime": 1697000000000})
    >>> t["_id"], [x["name"] for x in data.listed()]
    (1, ['Morning Run'])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gui_gym.android.sim.apps.opentracks.schema import TRACKS

PKG = "de.dennisguse.opentracks"
LABEL = "OpenTracks"
#: meters in a mile (AndroidWorld's ``_MILES_TO_METERS``; the app shows distances in miles)
MILE = 1609.34

Row = dict[str, Any]


@dataclass
class OpenTracksData:
    tracks: list[Row] = field(default_factory=list)
    next_id: int = 1

    def add(self, values: Row) -> Row:
        """A ``tracks`` row as ``INSERT`` without ``_id`` makes it: the columns given, the others
        their defaults, the next id."""
        row = {c.name: c.default for c in TRACKS.columns}
        row.update((k, v) for k, v in values.items() if k in row)
        row["_id"] = self.next_id
        self.next_id += 1
        self.tracks.append(row)
        return row

    def by_id(self, track_id: int | None) -> Row | None:
        return next((t for t in self.tracks if t["_id"] == track_id), None)

    def listed(self) -> list[Row]:
        """The track list's order: the newest start first (the app's ``starttime DESC``)."""
        return sorted(self.tracks, key=lambda t: (-(t["starttime"] or 0), -t["_id"]))
