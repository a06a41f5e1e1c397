"""OpenTracks' database on the phone: the ``tracks`` table of
``/data/data/de.dennisguse.opentracks/databases/database.db``.

The columns are OpenTracks' (``TracksColumns``), the fields of AndroidWorld's
``sqlite_schema_utils.SportsActivity``: its ``activity_app_utils`` deletes every row, inserts
tracks without ``_id`` and reads them back with ``SELECT *`` (so the table has no other column).
A row is kept as it is stored (:mod:`~gui_gym.android.sim.apps.opentracks.data`), so a database
pulled, edited on a host and pushed back loses nothing.

Example:
    >>> from gui_gym.android.sim.apps.opentracks.data import OpenTracksData
    >>> data = OpenTracksData()
    >>> _ = data.add({"name": "Lap Swim", "category": "swimming", "totaldistance": 805.0, "uuid": b"x" * 16})
    >>> back = decode(encode(data))
    >>> back.tracks[0]["name"], back.tracks[0]["totaldistance"], back == data
    ('Lap Swim', 805.0, True)
"""

from __future__ import annotations

import sqlite3

from gui_gym.android.sim.apps.opentracks.data import PKG, OpenTracksData, Row
from gui_gym.android.sim.apps.opentracks.schema import TRACKS
from gui_gym.android.sim.storage import Database, StorageError

_KINDS = {
    "TEXT": (str,),
    "INTEGER": (int,),
    "FLOAT": (int, float),
    "BLOB": (bytes,),
}
_MAX_ID = 2**63 - 1


def encode(data: OpenTracksData) -> bytes:
    return TRACKS.encode(sorted(data.tracks, key=lambda t: t["_id"]))


def _checked(row: Row) -> Row:
    for c in TRACKS.columns:
        v = row[c.name]
        if v is None:
            if c.name == "_id":
                raise StorageError("tracks._id holds NULL")
            continue
        kinds = _KINDS[c.sql.split()[0]]
        if isinstance(v, bool) or not isinstance(v, kinds):
            raise StorageError(f"tracks.{c.name} holds {v!r}; the app stores {c.sql.split()[0].lower()} there")
    return row


def decode(raw: bytes) -> OpenTracksData:
    """The tracks of a ``database.db``; :class:`StorageError` if OpenTracks could not read it."""
    data = OpenTracksData()
    seen: set[int] = set()
    for values in TRACKS.decode(raw):
        row = _checked(values)
        if not 1 <= row["_id"] <= _MAX_ID or row["_id"] in seen:
            raise StorageError(f"_id {row['_id']} is {'used twice' if row['_id'] in seen else 'out of range'}")
        seen.add(row["_id"])
        data.tracks.append(row)
    data.next_id = max(seen, default=0) + 1
    try:
        encode(data)
    except (sqlite3.Error, OverflowError, ValueError) as e:
        raise StorageError(f"a value the app cannot store back ({e})") from None
    return data


DATABASE = Database("opentracks", f"/data/data/{PKG}/databases/database.db", encode, decode, OpenTracksData)
