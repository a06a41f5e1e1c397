"""Backends of ``GuiAndroid-v0``: the phones the env can drive, by name.

:data:`BACKENDS` maps a name to the ``module:Class`` that implements
:class:`~gui_gym.android.backends.base.AndroidBackend`; it is imported only when asked for, so a
backend's dependencies (adbutils, android_env) are needed only by whoever uses it.

Example:
    >>> from gui_gym.android.backends import make_backend
    >>> make_backend("sim").name
    'sim'
    >>> make_backend("nokia")
    Traceback (most recent call last):
    ...
    ValueError: unknown backend 'nokia'; known backends: sim, adb, android_env (or pass an AndroidBackend instance)
"""

from __future__ import annotations

import importlib
from typing import Any

from gui_gym.android.backends.base import (
    AndroidBackend,
    BackendCapabilityError,
    Episode,
    Outcome,
    missing_members,
    supports,
)

#: backend name -> ``"module:Class"`` (a new backend is one line here)
BACKENDS: dict[str, str] = {
    "sim": "gui_gym.android.backends.sim:SimBackend",
    "adb": "gui_gym.android.backends.adb:AdbBackend",
    "android_env": "gui_gym.android.backends.android_env:AndroidEnvBackend",  # backend_options={"env": ...}
}


def make_backend(backend: str | AndroidBackend = "sim", **options: Any) -> AndroidBackend:
    """A backend by name (a key of :data:`BACKENDS`, made with *options*: ``serial``, ``port`` …
    for ``adb``), or ``backend`` itself when it is one."""
    if isinstance(backend, str):
        if backend not in BACKENDS:
            known = ", ".join(BACKENDS)
            hint = "or pass an AndroidBackend instance"
            raise ValueError(f"unknown backend {backend!r}; known backends: {known} ({hint})")
        module, _, cls = BACKENDS[backend].partition(":")
        return getattr(importlib.import_module(module), cls)(**options)
    missing = missing_members(backend)
    if missing:
        raise TypeError(
            f"backend must be a name ({', '.join(BACKENDS)}) or an AndroidBackend; "
            f"{type(backend).__name__} lacks {', '.join(missing)}"
        )
    return backend


__all__ = [
    "BACKENDS",
    "AndroidBackend",
    "BackendCapabilityError",
    "Episode",
    "Outcome",
    "make_backend",
    "supports",
]
