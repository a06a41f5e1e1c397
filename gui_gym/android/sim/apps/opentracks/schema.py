"""OpenTracks' ``tracks`` table as its schema gives it (the columns of AndroidWorld's
``sqlite_schema_utils.SportsActivity``): :mod:`~gui_gym.android.sim.apps.opentracks.storage` writes it
to the database file."""

from __future__ import annotations

from gui_gym.android.sim.storage import Column, Table

TRACKS = Table(
    "tracks",
    (
        Column("_id", "INTEGER PRIMARY KEY AUTOINCREMENT", None),
        Column("name", "TEXT", ""),
        Column("description", "TEXT", ""),
        Column("category", "TEXT", ""),
        Column("starttime", "INTEGER", 0),
        Column("stoptime", "INTEGER", 0),
        Column("numpoints", "INTEGER", 0),
        Column("totaldistance", "FLOAT", 0.0),
        Column("totaltime", "INTEGER", 0),
        Column("movingtime", "INTEGER", 0),
        Column("avgspeed", "FLOAT", 0.0),
        Column("avgmovingspeed", "FLOAT", 0.0),
        Column("maxspeed", "FLOAT", 0.0),
        Column("minelevation", "FLOAT", 0.0),
        Column("maxelevation", "FLOAT", 0.0),
        Column("elevationgain", "FLOAT", 0.0),
        Column("icon", "TEXT", None),
        Column("uuid", "BLOB", None),
        Column("elevationloss", "FLOAT", 0.0),
        Column("starttime_offset", "INTEGER", 0),
        Column("activity_type", "TEXT", ""),
    ),
)
