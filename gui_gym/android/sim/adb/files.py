"""The simulated phone's files and the shell commands that read and write them.

Storage is in memory (:class:`~gui_gym.android.sim.adb.shell.Shell`'s ``files``, ``dirs`` and
``mtimes``), with ``/storage/emulated/0`` as ``/sdcard``. An app whose data a phone keeps as files
is *mounted*: Markor's notebook is the folder :data:`MARKOR_DIR`, so ``echo 'text' > note.md``,
``cat``, ``rm -r``, ``find`` and ``adb pull`` there read and change the notes the Markor app shows
(AndroidWorld sets up and checks its Markor tasks exactly so). The shared folders
(``/sdcard/DCIM``, ``Pictures``, ``Movies``, ``Download``, ``Music``, ``Documents`` … but Markor's
notebook) are the phone's media store (:mod:`gui_gym.android.sim.media`): a picture pushed there
is what Gallery shows, a video what VLC plays, a file there what the Files app lists, and a photo
the camera takes is pulled from there. An app that keeps a database
(:attr:`App.databases <gui_gym.android.sim.apps.base.App.databases>`) shows it at the real app's
path: ``adb pull`` gets the app's data as that database, a database pushed there (AndroidWorld's
``sqlite_utils`` pulls, edits and pushes back) becomes the app's data, one the app could not open
is refused with the reason and changes nothing, and deleting it leaves the app with no data. A
write-ahead log pushed beside it (``events.db-wal``) is applied as SQLite applies it when the app
opens the database, then removed with its ``-shm`` (a log SQLite could not read with the database
is refused).

Commands: ``cat``, ``rm [-rf]``, ``mkdir [-p]``, ``ls [-1aluR]`` (``-ll``: full times, as
toybox), ``find PATH [-mindepth N] [-maxdepth N] [-type f|d] [-name PAT] [-o] [!] [-delete]``,
``test`` / ``[ … ]``, ``printf``, ``touch``, ``stat -c FORMAT``, ``chmod``.
"""

from __future__ import annotations

import datetime as dt
import fnmatch
import io
import pickle
from typing import TYPE_CHECKING

from gui_gym.android.sim.adb.commands import PhoneShell as Shell
from gui_gym.android.sim.adb.commands import command
from gui_gym.android.sim.media import FOLDERS, MEDIA, standard_dirs
from gui_gym.android.sim.storage import StorageError, apply_wal

if TYPE_CHECKING:
    from gui_gym.android.sim.storage import Database

__all__ = ["MARKOR_DIR", "check_database", "sync_in", "sync_out"]

#: Markor's notebook folder (AndroidWorld's ``device_constants.MARKOR_DATA``).
MARKOR_DIR = "/sdcard/Documents/Markor"
_PROTECTED = ("/", "/sdcard", "/data", "/sdcard/Documents")


# ----------------------------------------------------------------------------- app databases


def _databases(sh: Shell) -> list[Database]:
    return [db for app in sh.device.apps.values() for db in app.databases]


def _databases_in(sh: Shell) -> None:
    """Each app's data written as its database file, where it changed since the last command
    (``pickle`` only fingerprints the app's own data here; nothing is ever unpickled)."""
    shown = sh.databases_shown
    for db in _databases(sh):
        data = sh.device.state.data.get(db.app)
        if data is None:
            continue
        key = pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL)
        last = shown.get(db.path)
        if last is not None and last[0] == key:
            continue  # the app's data is as it was: the file is too, or what a client wrote there
        try:
            raw = db.encode(data)
        except Exception:  # a bug writing the app's data must not take the shell down: the file stays
            continue
        folder = db.folder
        while folder not in sh.dirs:  # /data/data/<package>/databases and what holds it
            sh.dirs.add(folder)
            folder = folder.rsplit("/", 1)[0] or "/"
        if sh.files.get(db.path) != raw:
            sh.files[db.path] = raw
            sh.mtimes[db.path] = sh.device.state.now
        shown[db.path] = (key, raw)


def _fold_wal(sh: Shell, db: Database) -> None:
    """A write-ahead log (``-wal``) next to an app's database is folded into the file and removed
    with its ``-shm``, as SQLite does when the app opens the database and closes it."""
    wal = sh.files.get(db.path + "-wal")
    if wal is None:
        return
    for side in ("-wal", "-shm"):
        sh.files.pop(db.path + side, None)
    raw = sh.files.get(db.path)
    if raw is None:  # a log without its database: SQLite has nothing to apply it to
        return
    try:
        sh.files[db.path] = apply_wal(raw, wal)
    except StorageError:  # refused when written (check_database): the database stays as it was
        return
    sh.mtimes[db.path] = sh.device.state.now


def _databases_out(sh: Shell) -> None:
    """A database a command replaced or deleted, read back into its app's data."""
    shown = sh.databases_shown
    for db in _databases(sh):
        _fold_wal(sh, db)
        last = shown.get(db.path)
        raw = sh.files.get(db.path)
        if last is None or raw == last[1]:
            continue
        checked = sh.databases_checked.pop(db.path, None)
        current = sh.device.state.data.get(db.app)
        if raw is None:  # deleted: the app has no data until something writes its database again
            data = db.merged(current, db.empty())
        elif checked is not None and checked[0] is raw:  # read when it was written (check_database)
            data = db.merged(current, checked[1])
        else:
            try:
                data = db.merged(current, db.decode(raw))
            except StorageError:  # refused when written (check_database); put back what was there
                sh.files[db.path] = last[1]
                continue
        sh.device.state.data[db.app] = data
        sh.device.invalidate()
        # a deleted database stays deleted until the app's data changes (the app writes it again)
        shown[db.path] = (pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL), raw)


def check_database(sh: Shell, path: str, data: bytes) -> str | None:
    """Why ``data`` may not be written at ``path``: a file at an app's database path that the app
    could not open (its schema, its values); ``None`` for any other file."""
    for db in _databases(sh):
        if path not in (db.path, db.path + "-wal"):
            continue
        label = sh.device.apps[db.app].label
        try:
            if path == db.path:
                sh.databases_checked[path] = (data, db.decode(data))
            elif db.path in sh.files:  # the log as SQLite would apply it to the database there
                db.decode(apply_wal(sh.files[db.path], data))
        except StorageError as e:
            return f"{path}: refused: not a database {label} can open: {e}; the app's data is unchanged"
    return None


# ----------------------------------------------------------------------------- the Markor mount


def _view(sh: Shell) -> dict[str, tuple[bool, bytes]]:
    prefix = MARKOR_DIR + "/"
    view = {d[len(prefix) :]: (True, b"") for d in sh.dirs if d.startswith(prefix)}
    view.update({f[len(prefix) :]: (False, data) for f, data in sh.files.items() if f.startswith(prefix)})
    return view


def sync_in(sh: Shell) -> None:
    """Show Markor's notes as files under :data:`MARKOR_DIR`, the media store under the media
    folders, and every app database at its path."""
    _databases_in(sh)
    _media_in(sh)
    data = sh.device.state.data.get("markor")
    if data is None:
        return
    prefix = MARKOR_DIR + "/"
    sh.files = {k: v for k, v in sh.files.items() if not k.startswith(prefix)}
    sh.dirs = {d for d in sh.dirs if not d.startswith(prefix)}
    sh.dirs |= {"/sdcard/Documents", MARKOR_DIR}
    for e in data.entries.values():
        p = prefix + e.path
        if e.is_dir:
            sh.dirs.add(p)
        else:
            sh.files[p] = e.content.encode("utf-8")
        sh.mtimes[p] = e.mtime
    sh._markor_view = _view(sh)


def sync_out(sh: Shell) -> None:
    """Write what a command changed under :data:`MARKOR_DIR` back into Markor's notebook, and a
    database changed or deleted at an app's path into that app's data."""
    from gui_gym.android.sim.apps.markor.app import Entry

    _databases_out(sh)
    _media_out(sh)
    data = sh.device.state.data.get("markor")
    if data is None:
        return
    view = _view(sh)
    if view == getattr(sh, "_markor_view", None):
        return
    now = sh.device.state.now
    for path in [p for p in data.entries if p not in view]:
        del data.entries[path]
    for path, (is_dir, raw) in sorted(view.items()):
        content = "" if is_dir else raw.decode("utf-8", errors="replace")
        mtime = sh.mtimes.get(MARKOR_DIR + "/" + path, now)
        e = data.entries.get(path)
        if e is None or e.is_dir != is_dir:
            data.entries[path] = Entry(path, is_dir, content, mtime)
        elif not is_dir and e.content != content:
            e.content, e.mtime = content, mtime
    sh._markor_view = view
    sh.device.invalidate()


# ----------------------------------------------------------------------------- the media mount


def _media_prefixes() -> tuple[str, ...]:
    return tuple(f"/sdcard/{folder}/" for folder in FOLDERS)


def _media_view(sh: Shell) -> tuple[frozenset[str], dict[str, bytes]]:
    """The shared folders' dirs and files, but Markor's notebook (mounted on its own)."""
    prefixes, markor = _media_prefixes(), MARKOR_DIR + "/"
    dirs = frozenset(d for d in sh.dirs if d.startswith(prefixes) and d != MARKOR_DIR and not d.startswith(markor))
    return dirs, {p: data for p, data in sh.files.items() if p.startswith(prefixes) and not p.startswith(markor)}


def _media_in(sh: Shell) -> None:
    """Show the phone's media store (:mod:`gui_gym.android.sim.media`) as the files under the
    shared media folders (:data:`~gui_gym.android.sim.media.FOLDERS`)."""
    store = sh.device.state.data.get(MEDIA)
    if store is None:
        return
    prefixes = _media_prefixes()
    sh.files = {k: v for k, v in sh.files.items() if not k.startswith(prefixes)}
    sh.dirs = {d for d in sh.dirs if not d.startswith(prefixes)} | {f"/sdcard/{d}" for d in store.dirs}
    for f in store.files.values():
        p = f"/sdcard/{f.path}"
        sh.files[p] = f.data()
        sh.mtimes[p] = f.mtime
    sh._media_view = _media_view(sh)


def _media_out(sh: Shell) -> None:
    """Files a command wrote, changed or removed under the media folders, into the media store
    (a file written from outside keeps only its bytes: see :class:`~gui_gym.android.sim.media.MediaFile`)."""
    store = sh.device.state.data.get(MEDIA)
    if store is None:
        return
    view = _media_view(sh)
    if view == getattr(sh, "_media_view", None):
        return
    dirs, files = view
    now = sh.device.state.now
    for path in [p for p in store.files if f"/sdcard/{p}" not in files]:
        store.remove(path)
    store.dirs = {d[len("/sdcard/") :] for d in dirs} | standard_dirs()
    for p, raw in files.items():
        rel = p[len("/sdcard/") :]
        f = store.files.get(rel)
        if f is None or (f.data() is not raw and f.data() != raw):
            store.add_file(rel, raw, sh.mtimes.get(p, now))
        elif f.mtime != sh.mtimes.get(p, f.mtime):
            f.mtime = sh.mtimes[p]
    sh._media_view = view
    sh.device.invalidate()


# ----------------------------------------------------------------------------- helpers


def _flags(args: list[str]) -> tuple[set[str], list[str]]:
    """Single-letter flags (``-rf`` → ``{r, f}``) and the other arguments."""
    flags = {c for a in args if a.startswith("-") and len(a) > 1 and not a.startswith("--") for c in a[1:]}
    return flags, [a for a in args if not (a.startswith("-") and len(a) > 1)]


def _mtime(sh: Shell, p: str) -> dt.datetime:
    return sh.mtimes.get(p, sh.device.state.now)


def _walk(sh: Shell, root: str) -> list[tuple[str, bool, int]]:
    """``(path, is_dir, depth)`` of *root* and everything under it, in pre-order by name."""
    out = [(root, root in sh.dirs, 0)]
    if root not in sh.dirs:
        return out

    def below(d: str, depth: int) -> None:
        for name, is_dir, _ in sh.listing(d) or []:
            p = (d.rstrip("/") + "/" + name) if d != "/" else "/" + name
            out.append((p, is_dir, depth))
            if is_dir:
                below(p, depth + 1)

    below(root, 1)
    return out


def _remove(sh: Shell, p: str) -> None:
    prefix = p.rstrip("/") + "/"
    sh.files = {k: v for k, v in sh.files.items() if k != p and not k.startswith(prefix)}
    sh.dirs = {d for d in sh.dirs if d != p and not d.startswith(prefix)}


# ----------------------------------------------------------------------------- the commands


@command("cat")
def _cat(sh: Shell, args: list[str], stdin: bytes, out: io.BytesIO, err: io.BytesIO) -> int:
    if not args:
        out.write(stdin)
        return 0
    status = 0
    for a in args:
        p = sh.path(a)
        if p in sh.files:
            out.write(sh.files[p])
        else:
            err.write(f"cat: {a}: {'Is a directory' if p in sh.dirs else 'No such file or directory'}\n".encode())
            status = 1
    return status


@command("rm")
def _rm(sh: Shell, args: list[str], stdin: bytes, out: io.BytesIO, err: io.BytesIO) -> int:
    flags, targets = _flags(args)
    status = 0
    for a in targets:
        p = sh.path(a)
        if p in sh.files:
            del sh.files[p]
        elif p in sh.dirs and ("r" in flags or "R" in flags) and p not in _PROTECTED:
            _remove(sh, p)
        elif "f" not in flags:
            reason = "Is a directory" if p in sh.dirs else "No such file or directory"
            err.write(f"rm: {a}: {reason}\n".encode())
            status = 1
    return status


@command("mkdir")
def _mkdir(sh: Shell, args: list[str], stdin: bytes, out: io.BytesIO, err: io.BytesIO) -> int:
    flags, targets = _flags(args)
    status = 0
    for a in targets:
        p = sh.path(a)
        parent = p.rsplit("/", 1)[0] or "/"
        if p in sh.files or (p in sh.dirs and "p" not in flags):
            err.write(f"mkdir: '{a}': File exists\n".encode())
            status = 1
            continue
        if parent not in sh.dirs and "p" not in flags:
            err.write(f"mkdir: '{a}': No such file or directory\n".encode())
            status = 1
            continue
        parts = p.strip("/").split("/")
        for i in range(1, len(parts) + 1):
            d = "/" + "/".join(parts[:i])
            if d in sh.files:
                err.write(f"mkdir: '{a}': Not a directory\n".encode())
                return 1
            if d not in sh.dirs:
                sh.dirs.add(d)
                sh.mtimes[d] = sh.device.state.now
    return status


def _long(sh: Shell, p: str, name: str, is_dir: bool, size: int, full: bool) -> str:
    """One ``ls -l`` line as toybox writes it (``-ll``: the time to the nanosecond and the zone)."""
    t = _mtime(sh, p)
    when = t.strftime("%Y-%m-%d %H:%M:%S.000000000 +0000") if full else t.strftime("%Y-%m-%d %H:%M")
    mode = "drwxrws---" if is_dir else "-rw-rw----"
    return f"{mode} {2 if is_dir else 1} root sdcard_rw {3452 if is_dir else size} {when} {name}"


@command("ls")
def _ls(sh: Shell, args: list[str], stdin: bytes, out: io.BytesIO, err: io.BytesIO) -> int:
    long = sum(a.count("l") for a in args if a.startswith("-") and not a.startswith("--"))
    flags, targets = _flags(args)
    targets = targets or ["/"]
    status = 0
    for t in targets:
        p = sh.path(t)
        if p in sh.files:
            size = len(sh.files[p])
            out.write(((_long(sh, p, t, False, size, long > 1) if long else t) + "\n").encode())
            continue
        entries = sh.listing(p)
        if entries is None:
            err.write(f"ls: {t}: No such file or directory\n".encode())
            status = 1
            continue
        if len(targets) > 1:
            out.write(f"{t}:\n".encode())
        if long:
            out.write(f"total {len(entries) * 4}\n".encode())
            if "a" in flags:
                for dot in (".", ".."):
                    out.write((_long(sh, p, dot, True, 0, long > 1) + "\n").encode())
            for name, is_dir, size in entries:
                full = p.rstrip("/") + "/" + name
                out.write((_long(sh, full, name, is_dir, size, long > 1) + "\n").encode())
        else:
            out.write("".join(f"{n}\n" for n, _, _ in entries).encode())
    return status


@command("find")
def _find(sh: Shell, args: list[str], stdin: bytes, out: io.BytesIO, err: io.BytesIO) -> int:
    roots: list[str] = []
    i = 0
    while i < len(args) and not args[i].startswith("-") and args[i] not in ("!", "("):
        roots.append(args[i])
        i += 1
    mindepth, maxdepth, delete, printed = 0, 1 << 30, False, False
    groups: list[list[tuple[str, str, bool]]] = [[]]  # OR of ANDs of (test, value, negated)
    negate = False
    while i < len(args):
        a = args[i]
        if a in ("-mindepth", "-maxdepth", "-type", "-name", "-iname") and i + 1 < len(args):
            value = args[i + 1]
            if a in ("-mindepth", "-maxdepth"):
                if not value.isdigit():
                    err.write(f"find: bad {a} '{value}'\n".encode())
                    return 1
                mindepth, maxdepth = (int(value), maxdepth) if a == "-mindepth" else (mindepth, int(value))
            else:
                groups[-1].append((a, value, negate))
                negate = False
            i += 2
        elif a in ("!", "-not"):
            negate, i = not negate, i + 1
        elif a in ("-o", "-or"):
            groups.append([])
            i += 1
        elif a in ("-a", "-and"):
            i += 1
        elif a == "-print":
            printed, i = True, i + 1
        elif a == "-delete":
            delete, i = True, i + 1
        else:
            err.write(f"find: unknown option {a}\n".encode())
            return 1

    def matches(path: str, is_dir: bool) -> bool:
        name = path.rsplit("/", 1)[-1]
        for group in groups:
            ok = True
            for test, value, neg in group:
                if test == "-type":
                    hit = (value == "d") == is_dir and value in ("d", "f")
                elif test == "-name":
                    hit = fnmatch.fnmatchcase(name, value)
                else:
                    hit = fnmatch.fnmatchcase(name.lower(), value.lower())
                if hit == neg:
                    ok = False
                    break
            if ok:
                return True
        return False

    status = 0
    for root in roots or ["."]:
        p = sh.path(root)
        if p not in sh.files and p not in sh.dirs:
            err.write(f"find: '{root}': No such file or directory\n".encode())
            status = 1
            continue
        shown = root.rstrip("/") or "/"
        hits = []
        for path, is_dir, depth in _walk(sh, p):
            if mindepth <= depth <= maxdepth and matches(path, is_dir):
                hits.append((path, is_dir))
                if printed or not delete:  # -delete is an action: no implicit -print
                    out.write(f"{shown + path[len(p.rstrip('/')) :] if depth else root}\n".encode())
        if delete:
            for path, is_dir in reversed(hits):  # depth first, as -delete does
                if is_dir and sh.listing(path):
                    err.write(f"find: {path}: Directory not empty\n".encode())
                    status = 1
                elif path not in _PROTECTED:
                    _remove(sh, path)
    return status


@command("test", "[")
def _test(sh: Shell, args: list[str], stdin: bytes, out: io.BytesIO, err: io.BytesIO) -> int:
    if args and args[-1] == "]":
        args = args[:-1]
    negate = False
    if args and args[0] == "!":
        negate, args = True, args[1:]
    if not args:
        result = False
    elif len(args) == 1:
        result = bool(args[0])
    elif len(args) == 2 and args[0] in ("-d", "-f", "-e", "-s", "-r", "-w", "-n", "-z"):
        op, value = args
        p = sh.path(value)
        result = {
            "-d": p in sh.dirs,
            "-f": p in sh.files,
            "-e": p in sh.files or p in sh.dirs,
            "-r": p in sh.files or p in sh.dirs,
            "-w": p in sh.files or p in sh.dirs,
            "-s": bool(sh.files.get(p)),
            "-n": bool(value),
            "-z": not value,
        }[op]
    elif len(args) == 3 and args[1] in ("=", "==", "!="):
        result = (args[0] == args[2]) != (args[1] == "!=")
    elif len(args) == 3 and args[1] in ("-eq", "-ne", "-lt", "-le", "-gt", "-ge"):
        try:
            a, b = int(args[0]), int(args[2])
        except ValueError:
            err.write(f"test: bad number: {args[0] if not args[0].lstrip('-').isdigit() else args[2]}\n".encode())
            return 2
        result = {"-eq": a == b, "-ne": a != b, "-lt": a < b, "-le": a <= b, "-gt": a > b, "-ge": a >= b}[args[1]]
    else:
        err.write(b"test: unsupported expression\n")
        return 2
    return 0 if result != negate else 1


_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", "r": "\r", "a": "\a", "'": "'", '"': '"', "0": "\0"}


def _unescape(text: str) -> str:
    out, i = [], 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text) and text[i + 1] in _ESCAPES:
            out.append(_ESCAPES[text[i + 1]])
            i += 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


@command("printf")
def _printf(sh: Shell, args: list[str], stdin: bytes, out: io.BytesIO, err: io.BytesIO) -> int:
    """``printf FORMAT [ARG...]`` with ``%s``, ``%d``, ``%b``, ``%%`` and backslash escapes; the
    format is used again while arguments remain, as in sh."""
    if not args:
        err.write(b"printf: needs a format\n")
        return 1
    fmt, rest = _unescape(args[0]), list(args[1:])
    while True:
        used, i, text = 0, 0, []
        while i < len(fmt):
            c = fmt[i]
            if c == "%" and i + 1 < len(fmt):
                spec = fmt[i + 1]
                if spec == "%":
                    text.append("%")
                elif spec in "sdb":
                    value = rest.pop(0) if rest else ""
                    used += 1
                    if spec == "d":
                        try:
                            value = str(int(value or "0"))
                        except ValueError:
                            err.write(f"printf: invalid number '{value}'\n".encode())
                            return 1
                    text.append(_unescape(value) if spec == "b" else value)
                else:
                    err.write(f"printf: %{spec}: unsupported format\n".encode())
                    return 1
                i += 2
            else:
                text.append(c)
                i += 1
        out.write("".join(text).encode("utf-8"))
        if not rest or not used:
            return 0


def _parse_when(flag: str, value: str) -> dt.datetime | None:
    try:
        if flag == "d":
            return dt.datetime.fromisoformat(value.replace("T", " ").strip())
        stamp, _, secs = value.partition(".")
        year = dt.datetime.now().year
        if len(stamp) == 12:
            year, stamp = int(stamp[:4]), stamp[4:]
        elif len(stamp) == 10:
            year, stamp = 2000 + int(stamp[:2]), stamp[2:]
        return dt.datetime(year, int(stamp[:2]), int(stamp[2:4]), int(stamp[4:6]), int(stamp[6:8]), int(secs or 0))
    except (ValueError, IndexError):
        return None


@command("touch")
def _touch(sh: Shell, args: list[str], stdin: bytes, out: io.BytesIO, err: io.BytesIO) -> int:
    """``touch [-d 'YYYY-MM-DD hh:mm:ss' | -t [[CC]YY]MMDDhhmm[.ss]] FILE...``"""
    when, targets, i = sh.device.state.now, [], 0
    while i < len(args):
        if args[i] in ("-d", "-t") and i + 1 < len(args):
            parsed = _parse_when(args[i][1], args[i + 1])
            if parsed is None:
                err.write(f"touch: bad date '{args[i + 1]}'\n".encode())
                return 1
            when, i = parsed, i + 2
        elif args[i].startswith("-"):
            i += 1
        else:
            targets.append(args[i])
            i += 1
    for t in targets:
        p = sh.path(t)
        if p not in sh.files and p not in sh.dirs:
            problem = sh.write(p, b"")
            if problem:
                err.write(f"touch: '{t}': {problem.split(': ', 1)[-1]}\n".encode())
                return 1
        sh.mtimes[p] = when
    return 0


@command("stat")
def _stat(sh: Shell, args: list[str], stdin: bytes, out: io.BytesIO, err: io.BytesIO) -> int:
    """``stat -c FORMAT FILE...`` with ``%n %s %F %y %Y``."""
    fmt = "%n %s %F %y"
    if "-c" in args and args.index("-c") + 1 < len(args):
        j = args.index("-c")
        fmt, args = args[j + 1], args[:j] + args[j + 2 :]
    status = 0
    for a in (a for a in args if not a.startswith("-")):
        p = sh.path(a)
        if p not in sh.files and p not in sh.dirs:
            err.write(f"stat: '{a}': No such file or directory\n".encode())
            status = 1
            continue
        t = _mtime(sh, p)
        values = {
            "n": a,
            "s": str(len(sh.files.get(p, b"")) if p in sh.files else 3452),
            "F": "directory" if p in sh.dirs else "regular file",
            "y": t.strftime("%Y-%m-%d %H:%M:%S.000000000 +0000"),
            "Y": str(int(t.replace(tzinfo=dt.UTC).timestamp())),
            "%": "%",
        }
        text, i = [], 0
        while i < len(fmt):
            if fmt[i] == "%" and i + 1 < len(fmt):
                text.append(values.get(fmt[i + 1], "?"))
                i += 2
            else:
                text.append(fmt[i])
                i += 1
        out.write(("".join(text) + "\n").encode())
    return status


@command("chmod", "chown")
def _chmod(sh: Shell, args: list[str], stdin: bytes, out: io.BytesIO, err: io.BytesIO) -> int:
    """Owners and permissions are not modelled: ``chmod MODE FILE...`` succeeds when the files exist."""
    return _exist(sh, [a for a in args if not a.startswith("-")][1:], "chmod", err)


@command("restorecon")
def _restorecon(sh: Shell, args: list[str], stdin: bytes, out: io.BytesIO, err: io.BytesIO) -> int:
    """SELinux labels are not modelled: ``restorecon [-RD] PATH...`` succeeds when the paths exist."""
    return _exist(sh, [a for a in args if not a.startswith("-")], "restorecon", err)


def _exist(sh: Shell, paths: list[str], name: str, err: io.BytesIO) -> int:
    for a in paths:
        p = sh.path(a)
        if p not in sh.files and p not in sh.dirs:
            err.write(f"{name}: '{a}': No such file or directory\n".encode())
            return 1
    return 0
