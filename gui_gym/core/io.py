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

**Plain data only.** Bytes that come from a file or another process are unpickled with
:func:`load_plain`: it builds the standard containers and numbers, numpy arrays and the classes
its caller names, and refuses every other global, so a crafted file or message cannot run code.

**Snapshots.** :class:`Snapshot` copies a state in memory; it cannot be pickled, so it never
leaves the process and restoring one reads only bytes this process wrote.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import pickle
import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import IO, Any

__all__ = ["PLAIN_GLOBALS", "Snapshot", "atomic_write", "atomic_write_json", "load_plain"]


def _read_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# Read once: os.umask can only be read by setting it, which would race with other threads' writes.
_UMASK = _read_umask()


def atomic_write(
    path: str | os.PathLike[str], write_fn: Callable[[IO[Any]], object], binary: bool = False, backup: bool = False
) -> None:
    """Call ``write_fn(f)`` on a temporary file beside ``path``, fsync it, then rename it over ``path``.

    ``f`` is a text file (UTF-8) or, with ``binary``, a binary one. Missing parent directories
    are created. A crash or an exception leaves either the old file or the new one, never half
    of one, and no temporary file. With ``backup`` the previous file is kept as ``<path>.bak``
    (hard-linked before the rename, so ``path`` itself always exists).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
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


class Snapshot:
    """A copy of a state, kept in memory: :meth:`take` copies an object (by pickling it, faster
    than ``copy.deepcopy`` for big nested states), :meth:`load` gives a fresh copy back each time.

    A snapshot cannot be pickled itself, so it never reaches a file or another process, and
    :meth:`load` only ever reads bytes this process wrote from its own objects.

    >>> snap = Snapshot.take({"wifi": True})
    >>> state = snap.load(); state["wifi"] = False
    >>> snap.load()
    {'wifi': True}
    """

    __slots__ = ("_data",)

    def __init__(self, data: bytes) -> None:
        self._data = data

    @classmethod
    def take(cls, obj: Any) -> Snapshot:
        return cls(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))

    def load(self) -> Any:
        return pickle.loads(self._data)

    def __reduce__(self) -> Any:
        raise TypeError("a Snapshot lives in memory only: it cannot be pickled, saved or sent")
