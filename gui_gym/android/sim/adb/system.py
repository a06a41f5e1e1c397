"""The served phone's system commands beyond input and files: ``svc``, ``cp``, ``sqlite3``, and
the app data folders an AndroidWorld-ready emulator has.

- ``svc wifi|bluetooth|data enable|disable`` turns the radio on or off (``settings get global
  wifi_on`` then answers ``1`` / ``0``), silent on success as on Android 13; anything else gets
  ``svc``'s usage and status 1.
- ``cp [-a|-r|-R|-p|-f] SRC... DST``: files and folders (``SRC/.``: the folder's contents) copied
  on the phone, times kept with ``-a`` / ``-p``; a copy onto an app's database path becomes the
  app's data as a push there does (or is refused, with the reason, when the app could not open
  it). AndroidWorld restores each app's data so before every task (``app_snapshot``).
- ``sqlite3 DB "SQL"``: the one database without a file here is the telephony provider's
  ``mmssms.db``; ``DELETE FROM sms;`` and ``DELETE FROM threads;`` on it (AndroidWorld clears the
  messages so) delete every message. Other statements and databases are refused with the reason:
  this phone runs no SQL from a command line.
- App data folders: ``/data/data/<package>`` for every app (its ``databases/`` file where the app
  keeps one), and AndroidWorld's snapshot of each app's freshly set-up data under
  :data:`SNAPSHOTS` (``device_constants.SNAPSHOT_DATA``), which its ``restore_snapshot`` copies back
  with ``rm -r`` and ``cp -a``.
"""

from __future__ import annotations

import io
import re
from typing import Any

from gui_gym.android.sim.adb.commands import PhoneShell as Shell
from gui_gym.android.sim.adb.commands import command

__all__ = ["MMSSMS", "SNAPSHOTS", "app_folders"]

#: AndroidWorld's snapshots of the apps' data (``device_constants.SNAPSHOT_DATA``).
SNAPSHOTS = "/data/data/android_world/snapshots"
#: The telephony provider's database (SMS and MMS), held by the Messages app's data here.
MMSSMS = "/data/data/com.android.providers.telephony/databases/mmssms.db"
_RADIOS = {"wifi": "wifi", "bluetooth": "bluetooth", "data": None}


def app_folders(sh: Any) -> None:
    """Make each app's data folder, and AndroidWorld's snapshot of its fresh data (the database
    files a just-installed app writes), as an AndroidWorld-ready emulator has them."""
    device = sh.device
    for app in device.apps.values():
        for folder in (f"/data/data/{app.package}", f"{SNAPSHOTS}/{app.package}"):
            _mkdirs(sh, folder)
        for db in app.databases:
            relative = db.path[len(f"/data/data/{app.package}/") :]
            if db.path.startswith(f"/data/data/{app.package}/") and relative:
                snap = f"{SNAPSHOTS}/{app.package}/{relative}"
                _mkdirs(sh, snap.rsplit("/", 1)[0])
                sh.files[snap] = sh.system_files[snap] = db.encode(app.initial_data())
                sh.mtimes[snap] = device.state.now
    for package in ("com.android.providers.telephony", "com.android.providers.contacts"):
        _mkdirs(sh, f"/data/data/{package}/databases")


def _mkdirs(sh: Any, folder: str) -> None:
    parts = folder.strip("/").split("/")
    for i in range(1, len(parts) + 1):
        sh.dirs.add("/" + "/".join(parts[:i]))


@command("svc")
def _svc(sh: Shell, args: list[str], stdin: bytes, out: io.BytesIO, err: io.BytesIO) -> int:
    if len(args) == 2 and args[0] in _RADIOS and args[1] in ("enable", "disable"):
        setting = _RADIOS[args[0]]
        if setting is not None:
            sh.device.state.settings[setting] = args[1] == "enable"
            sh.device.invalidate()
        return 0
    out.write(
        b"Available commands:\n"
        b"    help     Show information about the subcommands\n"
        b"    bluetooth Control Bluetooth service\n"
        b"    data     Control mobile data connectivity\n"
        b"    wifi     Control the Wi-Fi manager\n"
        b"usage: svc wifi|bluetooth|data enable|disable\n"
    )
    return 1


def _copy(sh: Shell, src: str, dst: str, keep_times: bool, recursive: bool, err: io.BytesIO, name: str) -> int:
    """Copy the file or folder ``src`` to ``dst`` (both normal paths)."""
    if src in sh.files:
        data = sh.files[src]
        problem = sh.write(dst, data)
        if problem:
            err.write(f"{name}: '{dst}': {problem.split(': ', 1)[-1]}\n".encode())
            return 1
        if keep_times and src in sh.mtimes:
            sh.mtimes[dst] = sh.mtimes[src]
        return 0
    if not recursive:
        err.write(f"{name}: Skipped dir '{src}'\n".encode())
        return 1
    if dst in sh.files:
        err.write(f"{name}: '{dst}': Not a directory\n".encode())
        return 1
    if dst == src or dst.startswith(src.rstrip("/") + "/"):
        err.write(f"{name}: '{src}' into itself\n".encode())
        return 1
    parent = dst.rsplit("/", 1)[0] or "/"
    if parent not in sh.dirs:
        err.write(f"{name}: '{dst}': No such file or directory\n".encode())
        return 1
    sh.dirs.add(dst)
    if keep_times and src in sh.mtimes:
        sh.mtimes[dst] = sh.mtimes[src]
    status = 0
    for entry, _, _ in sh.listing(src) or []:
        status |= _copy(sh, f"{src.rstrip('/')}/{entry}", f"{dst.rstrip('/')}/{entry}", keep_times, True, err, name)
    return status


@command("cp")
def _cp(sh: Shell, args: list[str], stdin: bytes, out: io.BytesIO, err: io.BytesIO) -> int:
    """``cp [-a|-r|-R|-p|-f] SRC... DST`` (toybox's, as far as copying data goes)."""
    flags = {c for a in args if a.startswith("-") and len(a) > 1 for c in a[1:]}
    paths = [a for a in args if not (a.startswith("-") and len(a) > 1)]
    unknown = flags - set("arRpfdPv")
    if unknown or len(paths) < 2:
        err.write(b"usage: cp [-aprRf] SOURCE... DEST\n" if not unknown else f"cp: bad -{min(unknown)}\n".encode())
        return 1
    recursive, keep = bool(flags & set("arR")), bool(flags & set("ap"))
    *sources, target = paths
    dst_root = sh.path(target)
    into = dst_root in sh.dirs
    if len(sources) > 1 and not into:
        err.write(f"cp: '{target}' is not a directory\n".encode())
        return 1
    status = 0
    for source in sources:
        src = sh.path(source)
        contents = source.rstrip("/").endswith("/.")  # SRC/. : what the folder holds
        if src not in sh.files and src not in sh.dirs:
            err.write(f"cp: '{source}': No such file or directory\n".encode())
            status = 1
            continue
        if contents and src in sh.dirs and into:
            for entry, _, _ in sh.listing(src) or []:
                status |= _copy(
                    sh, f"{src.rstrip('/')}/{entry}", f"{dst_root.rstrip('/')}/{entry}", keep, recursive, err, "cp"
                )
            continue
        dst = f"{dst_root.rstrip('/')}/{src.rsplit('/', 1)[-1]}" if into else dst_root
        status |= _copy(sh, src, dst, keep, recursive, err, "cp")
    return status


_DELETE_ALL = re.compile(r"\s*DELETE\s+FROM\s+(\w+)\s*;?\s*", re.IGNORECASE)


@command("sqlite3")
def _sqlite3(sh: Shell, args: list[str], stdin: bytes, out: io.BytesIO, err: io.BytesIO) -> int:
    """``sqlite3 mmssms.db "DELETE FROM sms;"`` (and ``threads``): every message deleted."""
    words = [a for a in args if not a.startswith("-")]
    if len(words) != 2:
        err.write(b'usage: sqlite3 DATABASE "SQL" (this phone runs DELETE FROM sms|threads on mmssms.db only)\n')
        return 1
    db, sql = sh.path(words[0]), words[1]
    match = _DELETE_ALL.fullmatch(sql)
    if db != MMSSMS or match is None or match.group(1).lower() not in ("sms", "threads"):
        err.write(
            f"Error: this phone runs no SQL from the command line but DELETE FROM sms|threads on {MMSSMS}; "
            f"refused: {sql[:80]!r} on {words[0][:80]}\n".encode()
        )
        return 1
    data = sh.device.data("messages")
    if match.group(1).lower() == "sms":
        for conv in data.conversations:
            conv.messages.clear()
        data.log.clear()
        data.next_id = 1  # ``_id`` is an INTEGER PRIMARY KEY without AUTOINCREMENT: an empty table numbers from 1
    data.conversations[:] = [c for c in data.conversations if c.messages]
    sh.device.invalidate()
    return 0
