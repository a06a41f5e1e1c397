"""Apps' databases as the real apps keep them: Simple Calendar Pro's ``events.db``, written from the
simulator's data, read back when pushed (AndroidWorld's pull-edit-push), refused when the app could
not open it, through the shell and the real adb client on loopback."""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from _adb import adb

from gui_gym.android.sim.adb.server import AdbServer, serve_adb
from gui_gym.android.sim.adb.shell import Shell
from gui_gym.android.sim.apps.calendar.data import CalendarData, Event
from gui_gym.android.sim.apps.calendar.storage import DATABASE, EVENTS, decode, encode, seconds
from gui_gym.android.sim.device import Device
from gui_gym.android.sim.storage import StorageError

DB = DATABASE.path
T = dt.datetime


def _events() -> CalendarData:
    data = CalendarData()
    data.add(Event("Standup", T(2023, 10, 16, 9), T(2023, 10, 16, 9, 30), repeat="weekly"))  # a Monday
    data.add(Event("Dentist", T(2023, 10, 18, 14), T(2023, 10, 18, 15), "cleaning", "Main St", repeat="none"))
    data.add(Event("Rent", T(2023, 11, 1, 8), T(2023, 11, 1, 8, 15), repeat="monthly"))
    data.add(Event("Run", T(2023, 10, 20, 7), T(2023, 10, 20, 8), repeat="daily"))
    return data


def test_rows_as_the_app_stores_them() -> None:
    """Worked by hand: 2023-10-16 09:00 UTC is 1697414400 (that day's midnight) + 9 x 3600; a weekly
    event on a Monday has repeat_interval WEEK = 604800 and repeat_rule MONDAY_SUM = 1; monthly
    MONTH = 2592001 with REPEAT_SAME_DAY = 1; daily DAY = 86400, rule 0."""
    rows = EVENTS.decode(encode(_events()))
    assert [r["id"] for r in rows] == [1, 2, 3, 4]
    standup, dentist, rent, run = rows
    assert (standup["start_ts"], standup["end_ts"]) == (1697414400 + 9 * 3600, 1697414400 + 9 * 3600 + 1800)
    assert (standup["repeat_interval"], standup["repeat_rule"]) == (604800, 1)
    assert (dentist["repeat_interval"], dentist["repeat_rule"], dentist["location"]) == (0, 0, "Main St")
    assert (rent["repeat_interval"], rent["repeat_rule"]) == (2592001, 1)
    assert (run["repeat_interval"], run["repeat_rule"]) == (86400, 0)
    assert dentist["reminder_1_minutes"] == -1 and dentist["time_zone"] == "UTC" and dentist["event_type"] == 1


def test_decode_gives_back_the_events() -> None:
    data = _events()
    back = decode(encode(data))
    assert [(e.uid, e.title, e.start, e.end, e.description, e.location, e.repeat) for e in back.events] == [
        (e.uid, e.title, e.start, e.end, e.description, e.location, e.repeat) for e in data.events
    ]
    assert back.next_uid == data.next_uid
    assert encode(back) == encode(data)  # and the file is the same


def _edit(raw: bytes, tmp_path: Path, *sql: tuple[str, tuple]) -> bytes:
    """``raw`` edited on the host as AndroidWorld's sqlite_utils does: a file, sqlite3, the file."""
    f = tmp_path / "events.db"
    f.write_bytes(raw)
    con = sqlite3.connect(f)
    for statement, args in sql:
        con.execute(statement, args)
    con.commit()
    con.close()
    return f.read_bytes()


def _insert(title: str, start: dt.datetime, minutes: int, **cols: object) -> tuple[str, tuple]:
    row = {c.name: c.default for c in EVENTS.columns if c.name != "id"}
    row.update(title=title, start_ts=seconds(start), end_ts=seconds(start + dt.timedelta(minutes=minutes)), **cols)
    names = ", ".join(f'"{k}"' for k in row)
    return f"INSERT INTO events ({names}) VALUES ({', '.join('?' for _ in row)})", tuple(row.values())


def test_an_edited_database_becomes_the_apps_data(tmp_path: Path) -> None:
    raw = _edit(
        encode(_events()),
        tmp_path,
        ("DELETE FROM events WHERE title = ?", ("Rent",)),
        _insert("Review", T(2023, 10, 17, 11), 45, reminder_1_minutes=10, attendees="ana@example.com"),
        _insert("Gym", T(2023, 10, 17, 18), 60, repeat_interval=2 * 86400),  # every two days: not modelled
    )
    data = decode(raw)
    titles = [e.title for e in data.on(dt.date(2023, 10, 17))]
    assert titles == ["Review", "Gym"]  # the Gym's repetition is kept in the file, shown once
    review = next(e for e in data.events if e.title == "Review")
    assert review.extra["reminder_1_minutes"] == 10 and review.extra["attendees"] == "ana@example.com"
    assert "Rent" not in [e.title for e in data.events] and data.next_uid == 7  # ids 5 and 6 were new
    again = {r["title"]: r for r in EVENTS.decode(encode(data))}
    assert again["Gym"]["repeat_interval"] == 2 * 86400 and again["Review"]["reminder_1_minutes"] == 10


@pytest.mark.parametrize(
    "raw, why",
    [
        (b"not a database", "not an SQLite database"),
        (b"SQLite format 3\x00" + b"\x00" * 100, "unreadable"),
    ],
)
def test_garbage_is_refused(raw: bytes, why: str) -> None:
    with pytest.raises(StorageError, match=why):
        decode(raw)


def test_wrong_schemas_and_values_are_refused(tmp_path: Path) -> None:
    good = encode(_events())
    with pytest.raises(StorageError, match="no table 'events'"):
        decode(_edit(good, tmp_path, ("ALTER TABLE events RENAME TO old_events", ())))
    with pytest.raises(StorageError, match="lacks the column"):
        decode(_edit(good, tmp_path, ("ALTER TABLE events DROP COLUMN title", ())))
    with pytest.raises(StorageError, match="'start_ts' holds 'soon'"):
        decode(_edit(good, tmp_path, ("UPDATE events SET start_ts = 'soon' WHERE id = 1", ())))
    with pytest.raises(StorageError, match="no time the phone can show"):
        decode(_edit(good, tmp_path, ("UPDATE events SET end_ts = ? WHERE id = 1", (10**15,))))


@pytest.fixture
def sh() -> Shell:
    dev = Device()
    dev.state.data["calendar"] = _events()
    return Shell(dev)


def test_the_shell_shows_and_takes_the_database(sh: Shell, tmp_path: Path) -> None:
    listing = sh.run("ls /data/data/com.simplemobiletools.calendar.pro/databases -ll -au")
    assert listing.status == 0 and listing.stdout.decode().rstrip().endswith(" events.db")
    assert sh.run(f"rm -r {DATABASE.folder}/*").status == 0  # AndroidWorld's clear_directory
    assert sh.device.data("calendar").events == []
    assert sh.run(f"ls -1 {DATABASE.folder}").stdout == b""  # gone until the app writes it again
    edited = _edit(encode(_events()), tmp_path, _insert("Review", T(2023, 10, 17, 11), 45))
    assert sh.write(DB, edited) is None
    sh.run("true")  # the next command reads it in
    assert [e.title for e in sh.device.data("calendar").on(dt.date(2023, 10, 17))] == ["Review"]


def test_a_refused_write_changes_nothing(sh: Shell) -> None:
    before = encode(sh.device.data("calendar"))
    sh.run("true")
    problem = sh.write(DB, b"garbage")
    assert problem is not None and "not a database Simple Calendar Pro can open" in problem and DB in problem
    out = sh.run(f"echo junk > {DB}")
    assert out.status != 0 and b"not a database Simple Calendar Pro can open" in out.stderr
    assert encode(sh.device.data("calendar")) == before


@pytest.fixture
def server() -> Iterator[AdbServer]:
    srv = serve_adb(port=0, timeout=10)
    srv.backend.device.state.data["calendar"] = _events()
    yield srv
    srv.close()


def test_pull_edit_push_with_the_real_client(server: AdbServer, tmp_path: Path) -> None:
    """AndroidWorld's sqlite_utils round trip: pull the database, edit it on the host, clear the
    folder, push the file back; a push the app could not open fails and changes nothing."""
    pulled = tmp_path / "pulled.db"
    assert adb(server.port, "pull", DB, str(pulled)).returncode == 0
    con = sqlite3.connect(pulled)
    assert [r[0] for r in con.execute("SELECT title FROM events ORDER BY id")] == ["Standup", "Dentist", "Rent", "Run"]
    con.execute(*_insert("Review", T(2023, 10, 17, 11), 45))
    con.commit()
    con.close()
    assert adb(server.port, "shell", f"rm -r {DATABASE.folder}/*").returncode == 0
    assert adb(server.port, "push", str(pulled), DB).returncode == 0
    device = server.backend.device
    assert [e.title for e in device.data("calendar").on(dt.date(2023, 10, 17))] == ["Review"]
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000)
    out = adb(server.port, "push", str(garbage), DB)
    assert out.returncode != 0 and b"not a database Simple Calendar Pro can open" in out.stderr
    assert [e.title for e in device.data("calendar").on(dt.date(2023, 10, 17))] == ["Review"]


# -- databases from outside: whatever a client pushes is data, read within bounds ----------------------

_LOOSE = ", ".join(  # the events columns without NOT NULL or a key: what a hand-made file may declare
    f'"{c.name}" {c.sql.split()[0]}' for c in EVENTS.columns
)


def _file(*sql: str) -> bytes:
    con = sqlite3.connect(":memory:")
    for statement in sql:
        con.execute(statement)
    con.commit()
    raw = con.serialize()
    con.close()
    return raw


def _row(uid: object, start: dt.datetime, end: dt.datetime, attendees: str = "''") -> str:
    values = [str(uid), str(seconds(start)), str(seconds(end)), "'A'", "''", "''", "-1", "-1", "-1", "0", "0", "0",
              "0", "0", "0", "'[]'", attendees, "''", "'UTC'", "0", "1", "0", "0", "'s'", "0", "0", "0"]  # fmt: skip
    return f"INSERT INTO events VALUES ({', '.join(values)})"


MON = T(2023, 10, 16, 9)


@pytest.mark.parametrize(
    "sql, why",
    [
        ((f"CREATE TABLE events ({_LOOSE})", _row(2**63 - 1, MON, MON)), "out of range"),
        ((f"CREATE TABLE events ({_LOOSE})", _row(1, MON, MON), _row(1, MON, MON)), "used twice"),
        ((f"CREATE TABLE events ({_LOOSE})", _row(1, MON, MON, attendees="NULL")), "hold NULL"),
    ],
)
def test_rows_the_app_could_not_write_back_are_refused(sql: tuple[str, ...], why: str) -> None:
    with pytest.raises(StorageError, match=why):
        decode(_file(*sql))


def test_a_view_is_not_read() -> None:
    """A view named like the table would run the file's own SQL (here: rows without end)."""
    names = [c.name for c in EVENTS.columns]
    cols = ", ".join(["x AS id"] + [f"0 AS {n}" for n in names[1:]])
    endless = (
        f"CREATE VIEW events AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT {cols} FROM c"
    )
    with pytest.raises(StorageError, match="is a view"):
        decode(_file(endless))


def test_reading_is_bounded() -> None:
    """A generated column computes on read: another column is not read, and one of the app's
    columns is read within the value length allowed."""
    pad = "TEXT GENERATED ALWAYS AS (printf('%.*c', 50000000, 'x')) VIRTUAL"
    other = f"CREATE TABLE events ({_LOOSE}, pad {pad})"
    assert [e.title for e in decode(_file(other, _row(1, MON, MON))).events] == ["A"]
    cols = _LOOSE.replace('"attendees" TEXT', f'"attendees" {pad}')
    values = _row(1, MON, MON).replace(", '[]', '',", ", '[]',")
    with pytest.raises(StorageError):  # too long a value, or none at all: refused either way
        decode(_file(f"CREATE TABLE events ({cols})", values.replace("VALUES", f"({_names_but('attendees')}) VALUES")))


def _names_but(skip: str) -> str:
    return ", ".join(f'"{c.name}"' for c in EVENTS.columns if c.name != skip)


def test_wal_files_and_upper_case_names_are_read(tmp_path: Path) -> None:
    f = tmp_path / "events.db"
    con = sqlite3.connect(f)
    con.execute("PRAGMA journal_mode = WAL")
    con.execute(f"CREATE TABLE events ({_LOOSE.replace('title', 'Title')})")
    con.execute(_row(1, MON, MON + dt.timedelta(hours=1)))
    con.commit()
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    assert f.read_bytes()[18:20] == b"\x02\x02"
    assert [(e.uid, e.title, e.start) for e in decode(f.read_bytes()).events] == [(1, "A", MON)]


def test_an_event_to_year_9999_keeps_the_calendar_quick(sh: Shell) -> None:
    """Before its start an event covers no day, and a long one is looked at one repeat gap back."""
    from gui_gym.android.actions import parse_action

    raw = _file(f"CREATE TABLE events ({_LOOSE})", _row(1, T(2023, 11, 1, 9), T(9999, 12, 30, 10)))
    sh.run("true")
    assert sh.write(DB, raw) is None
    sh.run("true")
    dev = sh.device
    assert dev.act(parse_action('do(action="Launch", app="Simple Calendar Pro")')).valid
    dev.screen()  # the day view of the phone's date, before the event: no overflow
    data = dev.data("calendar")
    assert not data.on(dt.date(2023, 10, 31)) and [e.title for e in data.on(dt.date(2500, 1, 1))] == ["A"]


def test_occurrences_seen_one_repeat_gap_back_are_all_of_them() -> None:
    """``occurs_on`` looks back at most one gap between repeats; it agrees with looking back over
    the whole length of the event, on events of every repeat and length (month ends, Feb 29)."""
    import random

    def every_day_back(e: Event, day: dt.date) -> bool:
        last = (e.end - dt.timedelta(microseconds=1)).date() if e.end > e.start else e.start.date()
        return any(e._starts_on(day - dt.timedelta(days=k)) for k in range(max(0, (last - e.start.date()).days) + 1))

    rng = random.Random(0)
    starts = [T(2020, 2, 29, 8), T(2023, 1, 31, 9), T(2023, 3, 30, 10), T(2023, 10, 15, 23)]
    for _ in range(400):
        start = rng.choice(starts) + dt.timedelta(days=rng.choice([0, 0, rng.randrange(800)]))
        end = start + dt.timedelta(days=rng.choice([0, 1, 6, 10, 40, 70, 400, 3000]), hours=rng.randrange(24))
        e = Event("x", start, end, repeat=rng.choice(["none", "daily", "weekly", "monthly", "yearly"]))
        for _ in range(15):
            day = (start + dt.timedelta(days=rng.randrange(-20, 4000))).date()
            assert e.occurs_on(day) == every_day_back(e, day), (e, day)


def test_a_table_with_capitals_in_its_name_is_found() -> None:
    """SQLite's names ignore case: a Room table such as ``PlaylistEntity`` decodes by its own name."""
    from gui_gym.android.sim.storage import Column, Table

    table = Table("PlaylistEntity", (Column("playlist_id", "INTEGER PRIMARY KEY", None), Column("name", "TEXT", "")))
    assert table.decode(table.encode([{"playlist_id": 1, "name": "Road"}])) == [{"playlist_id": 1, "name": "Road"}]


def test_a_file_of_an_app_with_several_replaces_only_its_own_part() -> None:
    """OsmAnd keeps favourites in a GPX file and markers in a SQLite table: a markers database
    written over adb replaces the markers and leaves the favourites as they were; deleting it
    empties the markers only."""
    from gui_gym.android.sim.apps.osmand.data import Favorite, Marker, OsmAndData
    from gui_gym.android.sim.apps.osmand.storage import MARKERS_DB, encode_markers

    device = Device()
    device.reset(now=dt.datetime(2023, 10, 15, 15, 34))
    sh = Shell(device)
    device.state.data["osmand"] = OsmAndData(favorites=[Favorite("Vaduz", 47.14, 9.52)])
    assert sh.run("ls /data/data/net.osmand/databases").status == 0  # the app's files are shown
    raw = encode_markers(OsmAndData(markers=[Marker("m1", 47.1, 9.5, "Balzers")]))
    sh.files[MARKERS_DB.path] = raw  # as a push writes it
    sh.run("true")  # the next command reads what changed back into the app
    data = device.state.data["osmand"]
    assert [f.name for f in data.favorites] == ["Vaduz"] and [m.marker_id for m in data.markers] == ["m1"]
    assert sh.run(f"rm {MARKERS_DB.path}").status == 0
    data = device.state.data["osmand"]
    assert [f.name for f in data.favorites] == ["Vaduz"] and data.markers == []
