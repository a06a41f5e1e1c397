"""Shared state that outlives an episode, persisted atomically and shareable across processes.

:class:`SharedState` holds one JSON document. Without a path it lives in memory and is shared by
every wrapper holding the object (a ``SyncVectorEnv``'s envs, threads). With a path it is also
shared between processes (``AsyncVectorEnv`` workers, Ray actors): every change runs under an
exclusive file lock on ``<path>.lock``, first reloading what other processes wrote, then writing
the whole document back atomically; reads reload when the file changed on disk.

A write never loses the previous copy (:func:`gui_gym.core.io.atomic_write_json`): the new
document goes to a temporary file that is flushed and fsynced, the current file is hard-linked
to ``<path>.bak``, and only then the temporary file replaces ``<path>`` (an atomic rename). A
crash at any point leaves a complete ``<path>``. A file that does not parse (empty, not UTF-8,
not JSON, nested too deeply, the wrong kind, or a document its class's ``_check`` rejects)
raises :class:`StateFileError` at load, naming the file, the problem and the backup; it is never
overwritten.

**A file damaged during a run** (another process writes garbage into it or truncates it) is left
as it is, and the run's changes are not lost: each change (and :meth:`~SharedState.save`) writes
the whole document — what was read before the damage plus every change since — atomically to a
recovery file beside it, ``<stem>.recovered-<date>-<time>-<pid>-<tag><suffix>`` (one per process
and object, so that no two writers share one; a pickled copy names its own), and the first such
write names both files in a ``log.warning``. Later changes of the run go to the same recovery file
(:attr:`~SharedState.recovery_path`). When the file reads again (repaired or replaced by another
process), the state follows it as before and a warning names the recovery file, which holds what
the run wrote meanwhile; a damaged file deleted meanwhile is written afresh. To go on from a
recovery file, rename it over the damaged one. This holds for every shared state: the milestone
book, SPA's shortest lengths, UI-Mem's memory.

Checkpoints (``torch.save`` files) load through :func:`read_torch_checkpoint`, which first
checks every member of the zip archive ``torch.save`` writes against the CRC-32 stored with it
(:func:`gui_gym.core.io.check_zip`): ``torch.load`` does not, and would load damaged bytes as
different numbers. Why the CRCs and not a SHA-256 of our own: they are already in every
checkpoint, old ones and ones written by plain ``torch.save`` included, so no format changes;
a CRC-32 catches any burst of damage up to 32 bits and other damage but for a 2⁻³² chance,
which is what a damaged disk or a half-copied file needs (it is no defence against a crafted
file; ``weights_only`` is that).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import re
import secrets
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from gui_gym.core.io import CorruptFileError, atomic_write_json, check_file, check_zip, read_json

log = logging.getLogger(__name__)

S = TypeVar("S", bound="SharedState")


class StateFileError(CorruptFileError):
    """A state file is missing, corrupt, or holds another kind of state."""


def read_torch_checkpoint(
    path: str | os.PathLike,
    what: str,
    fmt: str,
    version: int,
    missing_hint: str,
    required: tuple[str, ...] = (),
) -> dict[str, Any]:
    """A ``torch.save``-d dict of ours at ``path``, checked for its ``format``, ``version`` and
    ``required`` dict entries; FileNotFoundError (with ``missing_hint``) or ValueError naming the
    file otherwise. ``what`` names the kind of file in messages ("progress-model checkpoint").
    """
    import torch

    path = check_file(path, what, missing_hint)
    with open(path, "rb") as f:
        check_zip(f, str(path), what)  # every member against its CRC-32: damage never loads as other numbers
        try:
            ckpt = torch.load(f, map_location="cpu", weights_only=True)  # tensors and plain data only
        except Exception as e:  # a zip that is not torch's, or objects weights_only refuses
            raise ValueError(f"{path} is not a readable {what}: {_one_line(e)}") from e
    if not isinstance(ckpt, dict) or ckpt.get("format") != fmt:
        raise ValueError(f"{path} is not a {what} (no format {fmt!r})")
    if ckpt.get("version") != version:
        raise ValueError(f"{path} has {what} format version {ckpt.get('version')}, this code reads {version}")
    if missing := [k for k in required if not isinstance(ckpt.get(k), dict)]:
        raise ValueError(f"{path} is missing {', '.join(missing)}")
    return ckpt


def _one_line(e: Exception) -> str:
    """The gist of a ``torch.load`` error, whose messages run to paragraphs of advice."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(e))
    _, found, rest = text.partition("WeightsUnpickler error:")
    line = (rest if found else text).strip().split("\n")[0].split(". Please use")[0].strip()
    return line or type(e).__name__


@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """An exclusive advisory lock on ``<path>.lock`` (blocks until it is free)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(f"{path}.lock", "a") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock.fileno(), fcntl.LOCK_UN)


class SharedState:
    """One JSON document with a kind and a format version; subclasses add the operations.

    Subclasses set :attr:`kind`, implement :meth:`_empty` and may extend :meth:`_check`, and
    change the document only inside ``with self._change() as data:``.
    """

    kind: ClassVar[str] = "state"
    format_version: ClassVar[int] = 1
    _recovery: Path | None = None  # the class default too: copies pickled before it existed load

    def __init__(self, path: str | os.PathLike | None = None) -> None:
        self.path = Path(path) if path is not None else None
        self._lock = threading.RLock()
        self._stamp: tuple[int, int, int] | None = None
        self._file_ok = True  # False while the file on disk does not parse
        self._recovery = None  # where changes go while the file does not parse
        self._data: dict[str, Any] = self._empty()
        if self.path is not None and self.path.exists():
            self._data = self._read_file(self.path)
            self._stamp = self._file_stamp()

    # -- to implement --------------------------------------------------------------------
    def _empty(self) -> dict[str, Any]:
        return {}

    def _check(self, doc: dict[str, Any]) -> None:
        """Raise ``ValueError`` if ``doc`` (the body, without the header) is malformed."""

    def _before_write(self, data: dict[str, Any]) -> None:
        """Last changes to the document inside a change, just before it is written."""

    # -- persistence ---------------------------------------------------------------------
    @classmethod
    def load(cls: type[S], path: str | os.PathLike, **kwargs: Any) -> S:
        """The state saved at ``path``; raises :class:`StateFileError` if it is missing or corrupt."""
        if not Path(path).exists():
            raise StateFileError(f"{path}: no such {cls.kind} file")
        return cls(path, **kwargs)

    def save(self, path: str | os.PathLike | None = None) -> Path:
        """Write the state to ``path`` (default: its own file) atomically; returns the path."""
        target = Path(path) if path is not None else self.path
        if target is None:
            raise ValueError(f"this {self.kind} has no file: pass save(path)")
        if target == self.path:  # through a change: what other processes wrote is kept
            with self._change():
                pass
            return target
        with self._lock:
            self._refresh()
            self._before_write(self._data)
            atomic_write_json(target, self._document())
        return target

    @property
    def recovery_path(self) -> Path | None:
        """The recovery file this object writes to while its file does not parse (``None``: none);
        see the module docstring."""
        return self._recovery

    def to_dict(self) -> dict[str, Any]:
        with self._lock:
            self._refresh()
            return json.loads(json.dumps(self._data))

    # -- internals -----------------------------------------------------------------------
    def _document(self) -> dict[str, Any]:
        return {"kind": self.kind, "format_version": self.format_version, "data": self._data}

    def _file_stamp(self) -> tuple[int, int, int] | None:
        assert self.path is not None
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return None
        return (st.st_ino, st.st_mtime_ns, st.st_size)

    def _read_file(self, path: Path) -> dict[str, Any]:
        try:
            doc = read_json(path, f"{self.kind} file")
            if not isinstance(doc, dict):
                raise ValueError(f"not a {self.kind} file (a JSON {type(doc).__name__}, not an object)")
            kind = doc.get("kind")
            if kind != self.kind:
                raise ValueError(f"not a {self.kind} file (kind={kind!r})")
            version = doc.get("format_version", 0)
            if not isinstance(version, int) or isinstance(version, bool):
                raise ValueError(f"format_version must be an integer, not {version!r}")
            if version > self.format_version:
                raise ValueError(f"format version {version} is newer than this gui-gym reads")
            data = doc.get("data")
            if not isinstance(data, dict):
                raise ValueError("no 'data' object")
            self._check(data)
        except (FileNotFoundError, IsADirectoryError) as e:
            raise StateFileError(f"{path}: no such {self.kind} file ({e})") from e
        except (OSError, ValueError, TypeError, KeyError) as e:
            bak = Path(f"{path}.bak")
            hint = f"; the previous good copy is {bak}" if bak.exists() else ""
            problem = str(e).removeprefix(f"{path}: ")
            raise StateFileError(f"{path}: cannot read this {self.kind} ({problem}){hint}") from e
        return data

    def _refresh(self, force: bool = False) -> None:
        """Reload if another process changed the file (``force``: reload anyway). A corrupt file
        keeps the in-memory copy."""
        if self.path is None:
            return
        stamp = self._file_stamp()
        if stamp is None or (stamp == self._stamp and not force):
            return
        try:
            self._data = self._read_file(self.path)
            self._file_ok = True
        except StateFileError as e:
            log.error("%s; keeping the copy read before", e)
            self._file_ok = False
        self._stamp = stamp

    @contextlib.contextmanager
    def _change(self) -> Iterator[dict[str, Any]]:
        """Reload, let the caller change the document, write it back (under the locks). While the
        file does not parse, the document goes to the recovery file instead (module docstring)."""
        with self._lock:
            if self.path is None:
                yield self._data
                self._before_write(self._data)
                return
            with file_lock(self.path):
                # Under the lock, always re-read: a file replaced by another process can reuse the
                # inode, size and (coarse) mtime of the one we read, and its change would be lost.
                self._refresh(force=True)
                if not self._file_ok and self._file_stamp() is None:
                    self._file_ok = True  # the damaged file was removed: nothing left there to keep
                if self._file_ok and self._recovery is not None:
                    log.warning(
                        "%s reads again; this %s follows it from now on. %s holds what this run wrote "
                        "while it did not parse",
                        self.path,
                        self.kind,
                        self._recovery,
                    )
                    self._recovery = None
                yield self._data
                self._before_write(self._data)
                if self._file_ok:
                    atomic_write_json(self.path, self._document())
                    self._stamp = self._file_stamp()
                else:  # never replace a file we could not read
                    self._write_recovery()

    def _write_recovery(self) -> None:
        """Write the whole document to the recovery file (named on the first call), never to the
        damaged file, which stays as it is for a person to look at."""
        assert self.path is not None
        first = self._recovery is None
        if self._recovery is None:
            stamp = time.strftime("%Y%m%d-%H%M%S")
            name = f"{self.path.stem}.recovered-{stamp}-{os.getpid()}-{secrets.token_hex(3)}{self.path.suffix}"
            self._recovery = self.path.with_name(name)
        atomic_write_json(self._recovery, self._document(), backup=False)
        if first:
            log.warning(
                "%s does not parse; not overwriting it (it is left as it is). This run's %s, with its "
                "changes, is written to %s instead, and so are its later changes",
                self.path,
                self.kind,
                self._recovery,
            )

    def __getstate__(self) -> dict[str, Any]:
        with self._lock:
            state = self.__dict__.copy()
        del state["_lock"]
        state["_recovery"] = None  # a copy elsewhere names its own recovery file, never this one
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.RLock()
