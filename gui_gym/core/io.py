"""Saving and loading: one atomic file write, plain-data unpickling, in-memory snapshots.

**Atomic writes.** Every file gui-gym saves goes through :func:`atomic_write`: a reader sees the
old file or the new one.

:func:`atomic_write` writes to a temporary file in the target's directory (so the final rename
stays on one file system), flushes and fsyncs it, then ``os.replace``-s it over the target. If
the write raises, the temporary file is removed and the old file is untouched. The new file gets
the permissions an ordinary ``open(path, "w")`` would give (``0o666`` less the umask), not the
private ``0o600`` of a temporary file.

Example:
    >>> import json, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "run", "status.json")
    >>> atomic_write(path, lambda f: f.write("first"))
    >>> atomic_write_json(path, {"done": 4})  # keeps the previous file as status.json.bak
    >>> json.load(open(path)), open(path + ".bak").read()
    ({'done': 4}, 'first')

**Temporary files.** The temporary file is ``.<name>.<host>.<pid>.<random>.tmp`` beside the
target. A writer killed before its rename (SIGKILL, power cut) cannot remove its own; the next
write or load of the same file does (:func:`remove_stale_temporaries`): one of this host whose
writer process is gone, or one of another host (or an older naming) untouched for
:data:`STALE_AFTER_S` seconds.

**Reading.** Every loader reads through :func:`read_json`, :func:`read_jsonl_records` or
:func:`check_zip`. A file that exists but is not what it should hold raises
:class:`CorruptFileError` (a ``ValueError``) naming the file and the problem: empty, not UTF-8
(a UTF-8 byte-order mark is accepted), not JSON, nested deeper than :data:`MAX_JSON_DEPTH`,
a directory, or a zip archive whose members fail their CRC-32 — never a bare
``RecursionError``, ``UnicodeDecodeError`` or ``zipfile.BadZipFile``. A JSON Lines file whose
name ends in ``.gz`` is read through gzip (:func:`open_lines`); a damaged one is a
:class:`CorruptFileError` too, never a bare ``EOFError`` or ``zlib.error``.

**Plain data only.** Bytes that come from a file or another process are unpickled with
:func:`load_plain`: it builds the standard containers and numbers, numpy arrays and the classes
its caller names, and refuses every other global, so a crafted file or message cannot run code.

**Snapshots.** :class:`Snapshot` copies a state in memory; it cannot be pickled, so it never
leaves the process and restoring one reads only bytes this process wrote.
"""

from __future__ import annotations

import contextlib
import copy
import copyreg
import datetime as dt
import gzip
import hashlib
import io
import json
import logging
import os
import pickle
import secrets
import socket
import time
import types
import weakref
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any, TypeVar

__all__ = [
    "MAX_JSON_DEPTH",
    "PLAIN_GLOBALS",
    "STALE_AFTER_S",
    "CorruptFileError",
    "Snapshot",
    "atomic_write",
    "atomic_write_json",
    "check_file",
    "check_zip",
    "load_plain",
    "loads_json",
    "open_lines",
    "read_json",
    "read_jsonl_records",
    "remove_stale_temporaries",
]

log = logging.getLogger(__name__)
T = TypeVar("T")


class CorruptFileError(ValueError):
    """A file exists but does not hold what it should: truncated, damaged, or another kind of file."""


def _read_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# Read once: os.umask can only be read by setting it, which would race with other threads' writes.
_UMASK = _read_umask()

#: A temporary file of another host (whose writer cannot be asked) or of an older naming is
#: removed once it has not changed for this long; a live writer keeps touching its file.
STALE_AFTER_S = 3600.0
# Hostnames may hold dots; a short digest keeps the temporary's name parseable.
_HOST = hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]


def _temporary_name(target: Path) -> Path:
    return target.parent / f".{target.name}.{_HOST}.{os.getpid()}.{secrets.token_hex(4)}.tmp"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def _is_stale(name: str, mtime: float, now: float) -> bool:
    """Whether a temporary called ``.<target>.<rest>.tmp[.bak]`` was left by a writer that is gone."""
    parts = name.removesuffix(".bak").removesuffix(".tmp").split(".")
    if len(parts) >= 4 and parts[-3] == _HOST and parts[-2].isdigit():
        pid = int(parts[-2])
        return pid != os.getpid() and not _pid_alive(pid)
    return now - mtime > STALE_AFTER_S


def remove_stale_temporaries(path: str | os.PathLike[str]) -> list[Path]:
    """Remove the temporaries that writers of ``path`` killed mid-write left beside it; returns them.

    A temporary of this host goes when its writer's process is gone; one of another host (a
    shared disk) or named before pids were part of the name, once untouched for
    :data:`STALE_AFTER_S` seconds. Called by every :func:`atomic_write` and :func:`check_file`.
    """
    path = Path(path)
    prefix = f".{path.name}."
    removed: list[Path] = []
    now = time.time()
    try:
        entries = list(os.scandir(path.parent))
    except OSError:  # no directory yet, or not readable: nothing to clean
        return removed
    for entry in entries:
        name = entry.name
        if not name.startswith(prefix) or not name.endswith((".tmp", ".tmp.bak")):
            continue
        with contextlib.suppress(OSError):  # gone already, or not ours to remove
            if _is_stale(name, entry.stat(follow_symlinks=False).st_mtime, now):
                os.unlink(entry.path)
                removed.append(Path(entry.path))
    if removed:
        log.info("removed %d temporary file(s) left by killed writers of %s", len(removed), path)
    return removed


def atomic_write(
    path: str | os.PathLike[str], write_fn: Callable[[IO[Any]], object], binary: bool = False, backup: bool = False
) -> None:
    """Call ``write_fn(f)`` on a temporary file beside ``path``, fsync it, then rename it over ``path``.

    ``f`` is a text file (UTF-8) or, with ``binary``, a binary one. Missing parent directories
    are created. A crash or an exception leaves either the old file or the new one, never half
    of one, and no temporary file; temporaries that killed writers left are removed first
    (:func:`remove_stale_temporaries`). With ``backup`` the previous file is kept as
    ``<path>.bak`` (hard-linked before the rename, so ``path`` itself always exists).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(path)
    tmp = _temporary_name(path)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8"})) as f:
            write_fn(f)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~_UMASK)
        if backup and path.exists():
            bak_tmp = f"{tmp}.bak"
            os.link(path, bak_tmp)
            os.replace(bak_tmp, f"{path}.bak")
        os.replace(tmp, path)
    except BaseException:
        for leftover in (tmp, f"{tmp}.bak"):
            with contextlib.suppress(OSError):
                os.unlink(leftover)
        raise


def atomic_write_json(path: str | os.PathLike[str], data: Any, backup: bool = True) -> None:
    """Write ``data`` as JSON (UTF-8, indent 1) to ``path`` atomically; by default the previous
    file is kept as ``<path>.bak``."""
    atomic_write(path, lambda f: json.dump(data, f, ensure_ascii=False, indent=1), backup=backup)


# ----------------------------------------------------------------------------- reading

#: Deepest nesting of lists and objects a JSON file of ours may have. Our documents nest fewer
#: than ten levels; a deeper one is damaged or crafted, and would fail later in code that
#: walks it recursively (``copy.deepcopy``, ``json.dumps``).
MAX_JSON_DEPTH = 100
_BOM = "\ufeff"
_UTF8_BOM = _BOM.encode()


def check_file(path: str | os.PathLike[str], what: str, missing_hint: str = "") -> Path:
    """``path`` as a :class:`~pathlib.Path` if it is a file; FileNotFoundError (with
    ``missing_hint``) or :class:`CorruptFileError` (a directory, say) naming it otherwise.

    Also removes the temporaries killed writers of the file left (:func:`remove_stale_temporaries`).
    """
    path = Path(path)
    remove_stale_temporaries(path)
    if path.is_dir():
        raise CorruptFileError(f"{path} is a directory, not a {what}")
    if not path.is_file():
        hint = f"; {missing_hint}" if missing_hint else ""
        raise FileNotFoundError(f"no {what} at {path}{hint}")
    return path


def _too_deep(value: Any, limit: int) -> bool:
    """Whether ``value`` nests lists and dicts more than ``limit`` levels (iteratively: any depth)."""
    stack = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        children = v.values() if isinstance(v, dict) else v
        if depth > limit:
            return True
        stack.extend((c, depth + 1) for c in children if isinstance(c, dict | list))
    return False


def loads_json(text: str | bytes, source: str, what: str = "JSON document", max_depth: int = MAX_JSON_DEPTH) -> Any:
    """Parse ``text`` as JSON; :class:`CorruptFileError` starting with ``source`` (a path, or
    ``path:line``) if it is empty, not UTF-8, not JSON, or nested deeper than ``max_depth``.

    >>> loads_json('\ufeff{"a": [1]}', "x.json")
    {'a': [1]}
    >>> loads_json("[" * 100_000, "x.json")
    Traceback (most recent call last):
    ...
    gui_gym.core.io.CorruptFileError: x.json: not a readable JSON document: nested deeper than 100 levels
    """

    def bad(problem: str) -> CorruptFileError:
        return CorruptFileError(f"{source}: not a readable {what}: {problem}")

    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as e:
            raise bad(f"not UTF-8 text (byte {e.start}: {e.object[e.start : e.start + 4]!r})") from None
    text = text.removeprefix(_BOM)
    if not text.strip():
        raise bad("empty")
    try:
        value = json.loads(text)
    except RecursionError:
        raise bad(f"nested deeper than {max_depth} levels") from None
    except json.JSONDecodeError as e:
        raise bad(f"not JSON ({e.msg}: line {e.lineno} column {e.colno}; truncated or damaged?)") from None
    except ValueError as e:  # an integer of thousands of digits, and the like
        raise bad(f"not JSON ({e})") from None
    if isinstance(value, dict | list) and _too_deep(value, max_depth):
        raise bad(f"nested deeper than {max_depth} levels")
    return value


def read_json(
    path: str | os.PathLike[str], what: str = "JSON file", missing_hint: str = "", max_depth: int = MAX_JSON_DEPTH
) -> Any:
    """The JSON document in ``path`` (UTF-8, a byte-order mark allowed). FileNotFoundError if
    there is none; :class:`CorruptFileError` naming the file if it cannot be read as JSON."""
    path = check_file(path, what, missing_hint)
    return loads_json(path.read_bytes(), str(path), what, max_depth)


@contextlib.contextmanager
def open_lines(path: str | os.PathLike[str]) -> Iterator[IO[bytes]]:
    """``path`` opened for reading its lines as bytes; a name ending in ``.gz`` is decompressed first,
    whole, so that a damaged or truncated gzip raises :class:`CorruptFileError` naming the file before
    any line is read.

    >>> import tempfile
    >>> bad = Path(tempfile.mkdtemp()) / "rows.jsonl.gz"
    >>> _ = bad.write_bytes(gzip.compress(b'{"a": 1}\\n')[:-4])
    >>> with open_lines(bad) as f:  # doctest: +ELLIPSIS
    ...     pass
    Traceback (most recent call last):
    ...
    gui_gym.core.io.CorruptFileError: ...rows.jsonl.gz: not a readable gzip file (EOFError: ...); restore it or ...
    """
    path = Path(path)
    if not path.name.endswith(".gz"):
        with open(path, "rb") as f:
            yield f
        return
    raw = path.read_bytes()
    try:
        data = gzip.decompress(raw)
    except (OSError, EOFError, zlib.error) as e:  # BadGzipFile (an OSError): not gzip or a failed CRC
        raise CorruptFileError(
            f"{path}: not a readable gzip file ({type(e).__name__}: {e}); restore it or write it again"
        ) from None
    yield io.BytesIO(data)


def read_jsonl_records(
    path: str | os.PathLike[str],
    record: str,
    parse: Callable[[Any], T],
    strict: bool = False,
    report: logging.Logger | None = None,
    missing_hint: str = "",
    max_depth: int = MAX_JSON_DEPTH,
) -> list[T]:
    """``parse(value)`` of each non-blank line of a JSON Lines file of ``record``-s, in order.

    A bad line (not UTF-8, not JSON, too deep, or ``parse`` raising ``ValueError``,
    ``TypeError`` or ``KeyError``) is logged as a warning with ``path:line`` and skipped —
    the first few one by one, then one warning counting them all — or, with ``strict``, raises
    :class:`CorruptFileError` naming ``path:line``. A file with lines but no good one raises
    too: it is not a file of ``record``-s. An empty file gives ``[]``. A UTF-8 byte-order mark
    is accepted. FileNotFoundError (with ``missing_hint``) if there is no file. A ``.gz`` file is
    read through gzip (:func:`open_lines`).
    """
    what = f"{record} file"
    path = check_file(path, what, missing_hint)
    report = report or log
    out: list[T] = []
    bad: list[str] = []  # the first few problems
    skipped = 0
    with open_lines(path) as f:
        for lineno, raw in enumerate(f, 1):
            raw = raw.removeprefix(_UTF8_BOM)  # at the file's start, or a concatenated file's
            if not raw.strip():
                continue
            where = f"{path}:{lineno}"
            try:
                out.append(parse(loads_json(raw, where, record, max_depth)))
            except (ValueError, TypeError, KeyError) as e:
                detail = str(e).removeprefix(f"{where}: not a readable {record}: ")
                if strict:
                    raise CorruptFileError(f"{where}: corrupt {record} line ({detail})") from None
                skipped += 1
                if len(bad) < 5:
                    bad.append(f"{where}: skipped corrupt {record} line ({detail})")
    if skipped and not out:
        raise CorruptFileError(f"{path}: not a {what}: no line is a valid {record}; first: {bad[0]}")
    for problem in bad:
        report.warning("%s", problem)
    if skipped:
        n = skipped + len(out)
        report.warning("%s: skipped %d bad line(s) of %d, read %d %s(s)", path, skipped, n, len(out), record)
    return out


def check_zip(file: IO[bytes], source: str, what: str) -> None:
    """Check that ``file`` is a zip archive whose every member matches its recorded CRC-32.

    ``torch.save`` and ``numpy.savez`` write zip archives; the CRC-32 of each member's bytes is
    stored when it is written, but neither ``torch.load`` nor reading one array checks all of
    them, so damaged bytes could load as different numbers. Reading every member to its end
    makes :mod:`zipfile` compare them. :class:`CorruptFileError` naming ``source`` otherwise.
    The file is left positioned at its start.
    """
    try:
        with zipfile.ZipFile(file) as archive:
            for info in archive.infolist():
                with archive.open(info) as member:
                    while member.read(1 << 20):
                        pass
    except zipfile.BadZipFile as e:
        if "CRC" in str(e):
            raise CorruptFileError(
                f"{source}: checksum mismatch: the file is damaged; restore it or start again ({e})"
            ) from None
        raise CorruptFileError(
            f"{source} is not a readable {what}: damaged, truncated, or not a {what} at all ({e}); "
            "restore it or start again"
        ) from None
    except Exception as e:  # zipfile fails on garbage in many ways (EOFError, struct.error, ...)
        raise CorruptFileError(
            f"{source} is not a readable {what}: damaged, truncated, or not a {what} at all "
            f"({type(e).__name__}: {e}); restore it or start again"
        ) from None
    finally:
        file.seek(0)


# ----------------------------------------------------------------------------- plain data

_NUMPY = ("numpy.core.multiarray", "numpy._core.multiarray")
#: What :func:`load_plain` builds without being told: built-in types (called only as
#: constructors), standard containers, dates, paths, and numpy arrays, dtypes and scalars.
PLAIN_GLOBALS = frozenset(
    {("builtins", n) for n in ("list", "dict", "set", "frozenset", "tuple", "int", "float", "complex", "str",
                                "bytes", "bytearray", "bool", "slice", "range")}
    | {("collections", n) for n in ("OrderedDict", "defaultdict", "deque", "Counter")}
    | {("datetime", n) for n in ("datetime", "date", "time", "timedelta", "timezone")}
    | {("pathlib", n) for n in ("Path", "PosixPath", "PurePosixPath")}
    | {("_codecs", "encode"), ("copyreg", "_reconstructor"), ("builtins", "object")}  # protocols 0-2
    | {("numpy", "ndarray"), ("numpy", "dtype")}
    | {(m, n) for m in _NUMPY for n in ("_reconstruct", "scalar")}
    | {(m.replace("multiarray", "numeric"), "_frombuffer") for m in _NUMPY}
)  # fmt: skip


_PY2_MODULES = {"__builtin__": "builtins", "copy_reg": "copyreg"}


class _PlainUnpickler(pickle.Unpickler):
    def __init__(
        self, data: bytes, allowed: frozenset[tuple[str, str]], moved: Mapping[tuple[str, str], tuple[str, str]]
    ):
        super().__init__(io.BytesIO(data))
        self.allowed, self.moved = allowed, moved

    def find_class(self, module: str, name: str) -> Any:
        module = _PY2_MODULES.get(module, module)  # protocols 0-2 write Python 2's names
        module, name = self.moved.get((module, name), (module, name))
        if (module, name) not in self.allowed:
            raise pickle.UnpicklingError(f"refusing to load {module}.{name}: only plain data and named classes load")
        return super().find_class(module, name)


def load_plain(
    data: bytes,
    classes: Iterable[tuple[str, str]] = (),
    moved: Mapping[tuple[str, str], tuple[str, str]] | None = None,
) -> Any:
    """Unpickle ``data`` building only :data:`PLAIN_GLOBALS` and ``classes`` (``(module, name)``
    pairs of classes whose construction runs no code of the data's choosing, such as dataclasses).

    ``moved`` maps a class's old ``(module, name)`` to its new place, for data written before it
    moved. Anything else raises :class:`pickle.UnpicklingError` naming the global.

    >>> load_plain(pickle.dumps({"a": [1, 2.5, (3,)]}))
    {'a': [1, 2.5, (3,)]}
    >>> load_plain(pickle.dumps(os.system))
    Traceback (most recent call last):
    ...
    _pickle.UnpicklingError: refusing to load posix.system: only plain data and named classes load
    """
    return _PlainUnpickler(data, PLAIN_GLOBALS | frozenset(classes), moved or {}).load()


# ----------------------------------------------------------------------------- snapshots


#: what ``copy.deepcopy`` returns as it is
_ATOMIC = frozenset(
    {
        type(None), int, float, bool, complex, str, bytes, type, range, types.FunctionType,
        types.BuiltinFunctionType, type(Ellipsis), type(NotImplemented), types.CodeType, weakref.ref, property,
    }
)  # fmt: skip
#: immutable values ``copy.deepcopy`` rebuilds as equal new objects: shared instead
_VALUES = frozenset({dt.datetime, dt.date, dt.time, dt.timedelta, dt.timezone})
_MISSING = object()
_PLAIN: dict[type, bool] = {}


def _plain(cls: type) -> bool:
    """Whether ``copy.deepcopy`` copies instances of ``cls`` as a new ``cls.__new__(cls)`` whose
    ``__dict__`` takes a deep copy of the original's (no copy hook, reduction, slots, state or
    container base of its own)."""
    plain = _PLAIN.get(cls)
    if plain is None:
        plain = _PLAIN[cls] = (
            not issubclass(cls, (type, list, dict, set, frozenset, tuple))
            and cls.__reduce_ex__ is object.__reduce_ex__
            and cls.__reduce__ is object.__reduce__
            and getattr(cls, "__getstate__", _MISSING) in (_MISSING, getattr(object, "__getstate__", _MISSING))
            and not any(
                hasattr(cls, name) for name in ("__deepcopy__", "__setstate__", "__getnewargs_ex__", "__getnewargs__")
            )
            and all("__slots__" not in vars(c) for c in cls.__mro__[:-1])
            and cls not in copyreg.dispatch_table
            and cls not in copy._deepcopy_dispatch  # type: ignore[attr-defined]
        )
    return plain


def deep_copy(x: Any, memo: dict[int, Any] | None = None) -> Any:
    """``copy.deepcopy(x)``, faster on plain state (dicts, lists, tuples, sets, plain objects such
    as dataclasses, all copied as deepcopy copies them, shared references shared alike); anything
    else goes to ``copy.deepcopy`` with the same memo. Immutable dates and times are shared rather
    than rebuilt equal.

    >>> a = [1, 2]; c = deep_copy({"x": a, "y": a, "t": (a, 3)})
    >>> c == {"x": [1, 2], "y": [1, 2], "t": ([1, 2], 3)}, c["x"] is c["y"] is c["t"][0], c["x"] is a
    (True, True, False)
    """
    if memo is None:
        memo = {}
    cls = type(x)
    if cls in _ATOMIC or cls in _VALUES:
        return x
    y = memo.get(id(x), _MISSING)
    if y is not _MISSING:
        return y
    if cls is dict:
        y = memo[id(x)] = {}
        for k, v in x.items():
            y[deep_copy(k, memo)] = deep_copy(v, memo)
        return y
    if cls is list:
        y = memo[id(x)] = []
        for v in x:
            y.append(deep_copy(v, memo))
        return y
    if cls is tuple:
        items = [deep_copy(v, memo) for v in x]
        y = memo.get(id(x), _MISSING)  # a cycle through the tuple made it already
        if y is not _MISSING:
            return y
        y = x if all(a is b for a, b in zip(x, items, strict=True)) else tuple(items)
    elif cls is set or cls is frozenset:
        y = cls([deep_copy(v, memo) for v in x])
    elif _plain(cls) and hasattr(x, "__dict__"):
        y = memo[id(x)] = cls.__new__(cls)
        d = y.__dict__
        for k, v in x.__dict__.items():
            d[k] = deep_copy(v, memo)
        return y
    else:
        return copy.deepcopy(x, memo)
    if y is not x:
        memo[id(x)] = y
    return y


class Snapshot:
    """A copy of a state, kept in memory: :meth:`take` deep-copies an object, :meth:`load` gives
    a fresh deep copy back each time, so neither the original nor the snapshot sees later changes.

    No bytes are involved: nothing is unpickled, so a snapshot is a fork of live objects, never a
    file format. A snapshot cannot be pickled itself, so it never reaches a file or another process.

    >>> snap = Snapshot.take({"wifi": True})
    >>> state = snap.load(); state["wifi"] = False
    >>> snap.load()
    {'wifi': True}
    """

    __slots__ = ("_state",)

    def __init__(self, state: Any) -> None:
        self._state = state  # owned: take() passes a private copy

    @classmethod
    def take(cls, obj: Any) -> Snapshot:
        return cls(deep_copy(obj))

    def load(self) -> Any:
        return deep_copy(self._state)

    def __reduce__(self) -> Any:
        raise TypeError("a Snapshot lives in memory only: it cannot be pickled, saved or sent")
