"""Simple SMS Messenger's messages as Android keeps them: the telephony provider's ``mmssms.db``.

Simple SMS Messenger is the phone's default SMS app: what it shows and sends are the rows of the
``sms`` table of ``/data/data/com.android.providers.telephony/databases/mmssms.db``, which
``content query --uri content://sms[/inbox|/sent]`` prints and AndroidWorld's SMS tasks judge
(``sms_validators``: ``address``, ``body``, ``date`` in milliseconds, the newest row first).
Every :class:`~gui_gym.android.sim.apps.messages.app.Message` is one row: ``_id`` its id,
``thread_id`` its conversation's, ``address`` the conversation's number as it was given (a
typed recipient, the emulator's sender), ``type`` 1 (received, ``content://sms/inbox``) or 2
(sent, ``content://sms/sent``), ``date`` its time as UTC milliseconds (the phone's clock is UTC),
``read``/``seen`` whether it was shown. The ``threads`` and ``canonical_addresses`` tables hold
one row per conversation, as the provider keeps them.

:func:`sms_rows` gives the rows, :func:`query` the text ``content query`` prints for them,
:func:`parse_row` reads one printed row back as AndroidWorld reads it, and :data:`DATABASE`
writes and reads the database file (the served phone shows it at its path; a database pushed
there becomes the app's messages; ``log``, which messages this episode's user sent, is no part
of it and starts empty).

Example:
    >>> import datetime as dt
    >>> from gui_gym.android.sim.apps.messages.data import MessagesData
    >>> data = MessagesData()
    >>> _ = data.add("+15551234567", "Hi, see you at 6", incoming=True, time=dt.datetime(2023, 10, 15, 15, 34))
    >>> row = sms_rows(data)[0]
    >>> row["_id"], row["thread_id"], row["address"], row["date"], row["type"], row["read"]
    (1, 1, '+15551234567', 1697384040000, 1, 1)
    >>> parse_row(query([row], ("address", "body", "date")).splitlines()[0])["body"]
    'Hi, see you at 6'
    >>> decode(encode(data)).conversations[0].messages[0].text
    'Hi, see you at 6'
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Sequence
from typing import Any

from gui_gym.android.sim.apps.messages.data import PKG, Conversation, Message, MessagesData
from gui_gym.android.sim.storage import Column, Database, StorageError, Table, check_int, check_text

#: where the telephony provider keeps SMS (AndroidWorld's ``clear_sms_and_threads`` path)
PATH = "/data/data/com.android.providers.telephony/databases/mmssms.db"
RECEIVED, SENT = 1, 2  # the ``type`` column: Telephony.Sms.MESSAGE_TYPE_INBOX / _SENT

SMS = Table(
    "sms",
    (
        Column("_id", "INTEGER PRIMARY KEY", None),
        Column("thread_id", "INTEGER", None),
        Column("address", "TEXT", None),
        Column("person", "INTEGER", None),
        Column("date", "INTEGER", None),
        Column("date_sent", "INTEGER DEFAULT 0", 0),
        Column("protocol", "INTEGER", None),
        Column("read", "INTEGER DEFAULT 0", 0),
        Column("status", "INTEGER DEFAULT -1", -1),
        Column("type", "INTEGER", None),
        Column("reply_path_present", "INTEGER", None),
        Column("subject", "TEXT", None),
        Column("body", "TEXT", None),
        Column("service_center", "TEXT", None),
        Column("locked", "INTEGER DEFAULT 0", 0),
        Column("sub_id", "INTEGER DEFAULT -1", -1),
        Column("error_code", "INTEGER DEFAULT 0", 0),
        Column("creator", "TEXT", None),
        Column("seen", "INTEGER DEFAULT 0", 0),
    ),
)
THREADS = Table(
    "threads",
    (
        Column("_id", "INTEGER PRIMARY KEY AUTOINCREMENT", None),
        Column("date", "INTEGER DEFAULT 0", 0),
        Column("message_count", "INTEGER DEFAULT 0", 0),
        Column("recipient_ids", "TEXT", None),
        Column("snippet", "TEXT", None),
        Column("snippet_cs", "INTEGER DEFAULT 0", 0),
        Column("read", "INTEGER DEFAULT 1", 1),
        Column("archived", "INTEGER DEFAULT 0", 0),
        Column("type", "INTEGER DEFAULT 0", 0),
        Column("error", "INTEGER DEFAULT 0", 0),
        Column("has_attachment", "INTEGER DEFAULT 0", 0),
    ),
)
CANONICAL_ADDRESSES = Table(
    "canonical_addresses",
    (Column("_id", "INTEGER PRIMARY KEY AUTOINCREMENT", None), Column("address", "TEXT", None)),
)
#: the ``sms`` table's columns, in its order (what ``content query`` prints without a projection)
SMS_COLUMNS: tuple[str, ...] = SMS.names


def ms(t: dt.datetime) -> int:
    """A phone time (naive, UTC) as the provider's milliseconds."""
    return int(t.replace(tzinfo=dt.UTC).timestamp() * 1000)


def _from_ms(value: int) -> dt.datetime:
    return dt.datetime.fromtimestamp(value / 1000, dt.UTC).replace(tzinfo=None)


def _numbered(data: MessagesData) -> tuple[dict[int, int], dict[int, int]]:
    """``id(conversation) -> thread _id`` and ``id(message) -> _id``: the ids the data holds, and
    for rows added without one (a task appending a :class:`Message` itself) the next ids, in
    time order."""
    threads = {id(c): c.thread_id for c in data.conversations if c.thread_id}
    top = max([data.next_thread - 1, *threads.values()])
    for c in data.conversations:
        if not c.thread_id:
            top += 1
            threads[id(c)] = top
    msgs = [m for c in data.conversations for m in c.messages]
    ids = {id(m): m.id for m in msgs if m.id}
    top = max([data.next_id - 1, *ids.values()])
    for m in sorted((m for m in msgs if not m.id), key=lambda m: m.time):
        top += 1
        ids[id(m)] = top
    return threads, ids


def sms_rows(data: MessagesData, kind: int | None = None) -> list[dict[str, Any]]:
    """Every message as its ``sms`` row (``kind``: only received or only sent ones), the newest
    first, as the provider answers a query (``date DESC``; the later ``_id`` first on a tie)."""
    threads, ids = _numbered(data)
    rows = []
    for c in data.conversations:
        for m in c.messages:
            typ = RECEIVED if m.incoming else SENT
            if kind is not None and typ != kind:
                continue
            when = ms(m.time)
            rows.append(
                {
                    "_id": ids[id(m)], "thread_id": threads[id(c)], "address": c.number, "person": None,
                    "date": when, "date_sent": when if m.incoming else 0, "protocol": 0 if m.incoming else None,
                    "read": int(m.read), "status": -1, "type": typ,
                    "reply_path_present": 0 if m.incoming else None, "subject": None, "body": m.text,
                    "service_center": None, "locked": 0, "sub_id": 1, "error_code": 0, "creator": PKG,
                    "seen": int(m.read),
                }
            )  # fmt: skip
    rows.sort(key=lambda r: (r["date"], r["_id"]), reverse=True)
    return rows


def query(rows: Sequence[dict[str, Any]], columns: Sequence[str] = SMS_COLUMNS) -> str:
    """What ``content query`` prints for ``rows``: ``Row: N col=value, ...`` lines (``NULL`` for
    none), or ``No result found.``"""
    if not rows:
        return "No result found.\n"
    lines = []
    for i, r in enumerate(rows):
        cells = ", ".join(f"{c}={'NULL' if r.get(c) is None else r[c]}" for c in columns)
        lines.append(f"Row: {i} {cells}\n")
    return "".join(lines)


def parse_row(text: str) -> dict[str, str]:
    """One printed row as AndroidWorld's ``sms_validators.parse_message`` reads it: the body runs
    from ``body=`` to the last ``", "`` before the next ``=`` (so a body may hold commas); the
    other cells split on ``", "``."""
    out: dict[str, str] = {}
    text = text.strip()
    start = text.find("body=")
    if start != -1:
        body = text[start + 5 :]
        eq = body.find("=")
        if eq != -1:
            body = body[: body.rfind(", ", 0, eq)]
        out["body"] = body
        text = text[:start] + text[start + 5 + len(body) :]
    for part in text.split(", "):
        if "=" in part:
            key, value = part.split("=", 1)
            out[key.strip()] = value.strip()
        elif ":" in part:
            key, value = part.split(":", 1)
            out[key.strip()] = value.strip()
    return out


def queried(data: MessagesData, kind: int | None = None) -> list[str]:
    """The rows of ``content query --uri content://sms[/inbox|/sent]`` as AndroidWorld splits its
    output (``_decode_messages_from_response``): one text per row, the newest first."""
    out = query(sms_rows(data, kind))
    if out.startswith("No result found."):
        return []
    parts = out.split("\nRow:")
    return [p if i == 0 else "Row:" + p for i, p in enumerate(parts)]


# ----------------------------------------------------------------------------- the database file


def encode(data: MessagesData) -> bytes:
    """``mmssms.db`` holding ``data``: its ``sms``, ``threads`` and ``canonical_addresses`` rows."""
    rows = sorted(sms_rows(data), key=lambda r: r["_id"])
    threads: dict[int, dict[str, Any]] = {}
    for r in rows:  # by _id: a thread's last row is its newest
        t = threads.setdefault(r["thread_id"], {"_id": r["thread_id"], "message_count": 0, "read": 1})
        t["message_count"] += 1
        t["recipient_ids"] = str(r["thread_id"])
        if r["date"] >= t.get("date", 0):
            t["date"], t["snippet"] = r["date"], r["body"]
        t["read"] = min(t["read"], r["read"])
    addresses = {r["thread_id"]: r["address"] for r in rows}
    con = sqlite3.connect(":memory:")
    try:
        con.execute("CREATE TABLE android_metadata (locale TEXT)")
        con.execute("INSERT INTO android_metadata VALUES ('en_US')")
        for table, items in (
            (SMS, rows),
            (THREADS, [threads[k] for k in sorted(threads)]),
            (CANONICAL_ADDRESSES, [{"_id": k, "address": addresses[k]} for k in sorted(addresses)]),
        ):
            con.execute(table.ddl())
            names = ", ".join(f'"{n}"' for n in table.names)
            marks = ", ".join("?" for _ in table.names)
            con.executemany(
                f'INSERT INTO "{table.name}" ({names}) VALUES ({marks})',
                [tuple(item.get(c.name, c.default) for c in table.columns) for item in items],
            )
        con.commit()
        return con.serialize()
    finally:
        con.close()


def decode(raw: bytes) -> MessagesData:
    """The messages of the ``sms`` table of ``raw`` (received and sent ones; a conversation per
    ``thread_id``, its number the address of its first row), or :class:`StorageError`."""
    data = MessagesData()
    by_thread: dict[int, Conversation] = {}
    for row in SMS.decode(raw):
        key = check_int(row, "_id")
        thread = check_int(row, "thread_id") if row["thread_id"] is not None else 0
        typ = check_int(row, "type")
        if typ not in (RECEIVED, SENT):
            raise StorageError(f"row {key}: type {typ}; the app's messages are received (1) or sent (2)")
        address = check_text(row, "address")
        body = check_text(row, "body", nullable=True)
        when = _from_ms(check_int(row, "date"))
        read = bool(check_int(row, "read")) if row["read"] is not None else False
        conv = by_thread.get(thread)
        if conv is None:
            conv = by_thread[thread] = Conversation(address, thread_id=thread)
            data.conversations.append(conv)
        conv.messages.append(Message(body, typ == RECEIVED, when, read=read, id=key))
    for conv in data.conversations:
        conv.messages.sort(key=lambda m: (m.time, m.id))
    data.next_id = 1 + max((m.id for c in data.conversations for m in c.messages), default=0)
    data.next_thread = 1 + max((c.thread_id for c in data.conversations), default=0)
    return data


#: the telephony provider's database, as the served phone shows it
DATABASE = Database("messages", PATH, encode, decode, MessagesData)
