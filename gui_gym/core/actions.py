"""Deprecated: the action grammar is the Android family's, now :mod:`gui_gym.android.actions`.

``from gui_gym.core.actions import parse_action`` (and ``from gui_gym.core import
parse_action``) keep working for now with a ``DeprecationWarning``; import from
``gui_gym.android.actions`` (or ``gui_gym.android``) instead. The names are looked up when first
used, so importing ``gui_gym.core`` never loads a family.
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any

#: Where the grammar lives now. The one place gui_gym.core names a family (tests/test_layers.py).
MOVED_TO = "gui_gym.android.actions"


def moved(name: str, where: str) -> Any:
    """``MOVED_TO.name``, with a warning that says where to import it from."""
    module = importlib.import_module(MOVED_TO)
    if not hasattr(module, name):
        raise AttributeError(f"module {where!r} has no attribute {name!r}")
    warnings.warn(
        f"{where}.{name} moved to {MOVED_TO}.{name}; import it from there",
        DeprecationWarning,
        stacklevel=3,
    )
    return getattr(module, name)


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    value = globals()[name] = moved(name, __name__)  # warn once
    return value
