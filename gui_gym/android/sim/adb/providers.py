"""``content``: the simulated phone's content providers, as Android's ``content`` tool shows them.

- Contacts: ``content://contacts/phones`` and ``content://com.android.contacts/data/phones``
  (columns ``_id``, ``display_name``, ``number`` / ``data1``, ``starred``), read-only: contacts
  are added through the Contacts app's INSERT intent, as AndroidWorld adds them.
- SMS: ``content://sms``, ``content://sms/inbox`` and ``content://sms/sent`` (the telephony
  provider's columns, ``type`` 1 received and 2 sent; the rows of
  :func:`gui_gym.android.sim.apps.messages.storage.sms_rows`, as ``sqlite3`` on ``mmssms.db``
  shows them): ``query``, ``insert --bind COLUMN:TYPE:VALUE`` (``address``, ``body``, ``date``,
  ``read``: a received row is unread unless bound, a sent one read, as the provider makes them)
  and ``delete`` (all rows of the URI). The Messages app shows these messages; what the app
  sends appears as sent rows.

- Media: ``content://media/external/downloads`` (the files under ``/sdcard/Download``: ``_id``,
  ``_display_name``, ``_data``, ``_size``): ``query`` and ``delete`` (the files go, the folders
  stay; AndroidWorld clears the phone's storage so); the other media collections hold nothing
  (``query``: no rows, ``delete``: nothing to delete).

Rows print as the tool prints them: ``Row: N col=value, col=value`` (``NULL`` for none), ``No
result found.`` when there are none; ``--projection a:b`` picks columns, ``--sort "date ASC"``
orders SMS rows (newest first by default, as the provider sorts).
"""

from __future__ import annotations

import datetime as dt
import io
from typing import Any

from gui_gym.android.sim.adb.commands import PhoneShell as Shell
from gui_gym.android.sim.adb.commands import command

__all__ = ["SMS_COLUMNS", "sms_rows"]

CONTACT_URIS = ("content://contacts/phones", "content://com.android.contacts/data/phones")
SMS_URIS = {"content://sms": None, "content://sms/inbox": 1, "content://sms/sent": 2}
#: The telephony provider's ``sms`` table, in its column order (``storage.SMS_COLUMNS``).
SMS_COLUMNS = (
    "_id", "thread_id", "address", "person", "date", "date_sent", "protocol", "read", "status", "type",
    "reply_path_present", "subject", "body", "service_center", "locked", "sub_id", "error_code", "creator", "seen",
)  # fmt: skip


def sms_rows(sh: Shell, kind: int | None = None) -> list[dict[str, str]]:
    """Every message as its row of the ``sms`` table (``kind`` 1: received, 2: sent), newest
    first, as printed: the rows of :func:`gui_gym.android.sim.apps.messages.storage.sms_rows`
    (the database the phone keeps at the provider's path), ``NULL`` for none."""
    from gui_gym.android.sim.apps.messages.storage import sms_rows as table_rows

    return [
        {k: "NULL" if v is None else str(v) for k, v in r.items()} for r in table_rows(sh.device.data("messages"), kind)
    ]


def _contact_rows(sh: Shell) -> list[dict[str, str]]:
    rows = []
    for c in sh.device.data("contacts").contacts:
        if c.phone:
            starred = "1" if c.starred else "0"
            rows.append(
                {"_id": str(c.uid), "display_name": c.name, "number": c.phone, "data1": c.phone, "starred": starred}
            )
    return rows


MEDIA = "content://media/"
DOWNLOADS = "content://media/external/downloads"


def _media(sh: Shell, verb: str, uri: str, opts: dict[str, str], out: io.BytesIO, err: io.BytesIO) -> int:
    """The media store: the files under /sdcard/Download as its downloads, nothing else indexed."""
    if verb == "insert":
        err.write(b"Error: the media store is filled by the files on the phone, not by insert\n")
        return 1
    if "--where" in opts:
        err.write(b"Error: --where is not supported on this phone's providers\n")
        return 1
    files = sorted(p for p in sh.files if p.startswith("/sdcard/Download/")) if uri == DOWNLOADS else []
    if verb == "delete":
        for p in files:
            del sh.files[p]
        return 0
    rows = [
        {"_id": str(i), "_display_name": p.rsplit("/", 1)[-1], "_data": "/storage/emulated/0" + p[len("/sdcard") :],
         "_size": str(len(sh.files[p]))}
        for i, p in enumerate(files, 1)
    ]  # fmt: skip
    _print(rows, opts.get("--projection", "_id:_display_name:_data:_size").split(":"), out)
    return 0


def _options(args: list[str]) -> tuple[dict[str, str], list[str]] | None:
    """``--name value`` pairs (``--bind`` may repeat) or ``None`` when one lacks its value."""
    opts: dict[str, str] = {}
    binds: list[str] = []
    i = 0
    while i < len(args):
        if not args[i].startswith("--") or i + 1 >= len(args):
            return None
        if args[i] == "--bind":
            binds.append(args[i + 1])
        else:
            opts[args[i]] = args[i + 1]
        i += 2
    return opts, binds


def _print(rows: list[dict[str, str]], columns: list[str], out: io.BytesIO) -> None:
    if not rows:
        out.write(b"No result found.\n")
        return
    for i, r in enumerate(rows):
        cells = ", ".join(f"{c}={r.get(c, 'NULL')}" for c in columns)
        out.write(f"Row: {i} {cells}\n".encode())


def _bind(spec: str) -> tuple[str, Any] | None:
    """``COLUMN:TYPE:VALUE`` (types s, i, l, b, f, d, n) as (column, value)."""
    column, _, rest = spec.partition(":")
    typ, _, value = rest.partition(":")
    if not column or typ not in ("s", "i", "l", "b", "f", "d", "n"):
        return None
    try:
        if typ in ("i", "l"):
            return column, int(value)
        if typ in ("f", "d"):
            return column, float(value)
    except ValueError:
        return None
    if typ == "b":
        return column, value.lower() in ("true", "1")
    return column, None if typ == "n" else value


USAGE = (
    b"usage: content query|insert|delete --uri URI [--projection COLUMNS] [--bind COLUMN:TYPE:VALUE] [--sort ORDER]\n"
)


@command("content")
def _content(sh: Shell, args: list[str], stdin: bytes, out: io.BytesIO, err: io.BytesIO) -> int:
    parsed = _options(args[1:]) if args else None
    if not args or args[0] not in ("query", "insert", "delete") or parsed is None or "--uri" not in parsed[0]:
        err.write(USAGE)
        return 1
    verb, (opts, binds) = args[0], parsed
    uri = opts["--uri"].rstrip("/")
    if uri in CONTACT_URIS:
        if verb != "query":
            err.write(b"Error: contacts are added and changed through the Contacts app on this phone\n")
            return 1
        columns = opts.get("--projection", "_id:display_name:number:starred").split(":")
        _print(_contact_rows(sh), columns, out)
        return 0
    if uri.startswith(MEDIA):
        return _media(sh, verb, uri, opts, out, err)
    if uri not in SMS_URIS:
        authority = uri.split("/")[2] if "//" in uri else uri
        err.write(f"Error while accessing provider:{authority}\n".encode())
        return 1
    kind = SMS_URIS[uri]
    if "--where" in opts:
        err.write(b"Error: --where is not supported on this phone's providers\n")
        return 1
    if verb == "query":
        rows = sms_rows(sh, kind)
        sort = opts.get("--sort", "date DESC").split()
        if sort and sort[0] in SMS_COLUMNS:
            key = sort[0]
            numeric = key in ("_id", "thread_id", "date", "date_sent", "type", "read")
            rows.sort(key=lambda r: int(r[key]) if numeric else r[key], reverse=sort[-1].upper() == "DESC")
        columns = opts.get("--projection", ":".join(SMS_COLUMNS)).split(":")
        _print(rows, columns, out)
        return 0
    data = sh.device.data("messages")
    if verb == "delete":
        for conv in data.conversations:
            conv.messages[:] = [m for m in conv.messages if kind is not None and (1 if m.incoming else 2) != kind]
        data.conversations[:] = [c for c in data.conversations if c.messages]
        if kind in (None, 2):
            data.log.clear()
        # ``_id`` is an INTEGER PRIMARY KEY (no AUTOINCREMENT): SQLite numbers on from the largest left
        data.next_id = 1 + max((m.id for c in data.conversations for m in c.messages), default=0)
        sh.device.invalidate()
        return 0
    values = dict(b for b in map(_bind, binds) if b is not None)
    if len(values) != len(binds):
        err.write(b"Error: a --bind is not COLUMN:TYPE:VALUE (types s, i, l, b, f, d, n)\n")
        return 1
    typ = kind or int(values.get("type", 1))
    address, body = values.get("address"), values.get("body")
    if not address or body is None or typ not in (1, 2):
        err.write(b"Error: an sms row needs address, body and type 1 or 2\n")
        return 1
    ms = values.get("date")
    time = sh.device.state.now if ms is None else dt.datetime.fromtimestamp(int(ms) / 1000, dt.UTC)
    # the provider's rule: a received row is unread unless ``read`` is bound; any other row is read
    read = bool(values.get("read", 0)) if typ == 1 else True
    data.add(str(address), str(body), typ == 1, time.replace(tzinfo=None), read=read)
    sh.device.invalidate()
    return 0
