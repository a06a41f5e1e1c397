"""One atomic file write for every file gui-gym saves: a reader sees the old file or the new one.

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
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

__all__ = ["atomic_write", "atomic_write_json"]


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
