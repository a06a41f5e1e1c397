"""VLC's view helpers shared by its screens (:mod:`.app`) and its player (:mod:`.player`): the
package name and nodes carrying it, resource ids, and picture views."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from gui_gym.android.ui import Node

if TYPE_CHECKING:
    from PIL import Image

PKG = "org.videolan.vlc"


def node(cls: str, box: tuple[int, int, int, int], text: str = "", **kw: Any) -> Node:
    kw.setdefault("package", PKG)
    return Node(cls, box, text, **kw)


def rid(name: str) -> str:
    return f"{PKG}:id/{name}"


def picture(
    box: tuple[int, int, int, int],
    source: Callable[[], Image.Image | None],
    key: tuple,
    mode: str,
    rid: str,
    cls: str = "android.widget.ImageView",
) -> Node:
    """A view showing ``source()`` (no text or description: what it shows is in the pixels only);
    ``key`` names what it shows for the renderer's caches."""
    return node(cls, box, rid=rid, picture=source, role="picture", style=(mode, *key))
