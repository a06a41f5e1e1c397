"""Compact screen text for the progress model: what a screen says, not where it says it.

A uiautomator XML dump of one phone screen runs to ~12,000 characters and a compressed
tree (:mod:`gui_gym.android.compressed`) to ~1,200, mostly bounds and system bars; a sentence encoder reads
256 word pieces. :func:`screen_text` keeps, in reading order, the text and content
descriptions of the app's nodes with the states that matter for progress (checked,
selected, focused), and drops coordinates, indices and the status and navigation bars.

Example:
    >>> xml = ('<hierarchy><node text="" class="android.widget.FrameLayout" package="com.android.contacts" '
    ...        'bounds="[0,0][1080,2400]"><node text="Zara" class="android.widget.EditText" focused="true" '
    ...        'package="com.android.contacts" content-desc="" bounds="[42,268][1038,418]" />'
    ...        '<node text="" content-desc="Save" class="android.widget.ImageButton" '
    ...        'package="com.android.contacts" bounds="[936,101][1056,221]" /></node></hierarchy>')
    >>> screen_text({"ui": xml})
    'contacts | EditText "Zara" (focused) | ImageButton desc="Save"'
    >>> screen_text('[7] ImageButton desc="Save" id=save clickable [936,101][1056,221]')
    'ImageButton desc="Save" id=save'
    >>> from gui_gym.android.compressed import MOBILERL_HEADER
    >>> screen_text(MOBILERL_HEADER + '\\n    LinearLayout;click;Wi-Fi|Off;[0,99,999,189]'
    ...             '\\n        Switch;click check checked;ON;[795,115,962,173]')
    'LinearLayout "Wi-Fi" "Off" | Switch "ON" (checked)'
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

from gui_gym.android.compressed import detect_format, is_system_bounds, parse_compressed
from gui_gym.android.ui import SCREEN_H, SCREEN_W, SYSTEM_IDS, SYSTEM_PACKAGE
from gui_gym.core.family import OVERLAY
from gui_gym.core.family import text_items as screen_items

__all__ = ["screen_items", "screen_text"]

MAX_CHARS = 1200
_FULL_SCREEN = f"[0,0][{SCREEN_W},{SCREEN_H}]"
_STATES = ("checked", "selected", "focused")
_BOUNDS = re.compile(r"\s*\[\d+,\d+\]\[\d+,\d+\]")
_INDEX = re.compile(r"^\s*\[\d+\]\s*")
_FLAG_WORDS = {"clickable", "long-clickable", "scrollable", "checkable", "focusable", *_STATES}
_FLAGS = re.compile(r"(?<=\s)[\w-]+(?:,[\w-]+)*(?=\s|$)")
_SYSTEM_IDS = re.compile(rf"\bid=(?:{'|'.join(sorted(SYSTEM_IDS))})\b")


def screen_text(obs: Any, max_chars: int = MAX_CHARS) -> str:
    """Compact text of an observation: a dict with ``"ui"`` or ``"text"``, or the text itself.

    Observations without text (pixels only) give ``""``; text that is neither XML nor the
    compressed tree is kept as it is, cut to ``max_chars``.
    """
    if isinstance(obs, dict):
        obs = obs.get("ui", obs.get("text", ""))
    if not isinstance(obs, str):
        return ""
    text = obs.strip()
    fmt = None if text.startswith("<") else detect_format(text)
    if text.startswith("<"):
        out = _from_xml(text)
    elif fmt == "indexed":
        out = _from_compressed(text)
    elif fmt is not None:
        out = _from_mobilerl(text)
    else:
        out = " ".join(text.split())
    return out[:max_chars]


def _from_xml(text: str) -> str:
    try:
        root = ET.fromstring(text)
    except ET.ParseError:
        return " ".join(_BOUNDS.sub("", text).split())
    parts: list[str] = []
    app = ""
    top = root.find("node")
    # A window smaller than the screen (a dialog's) floats over the screen under it.
    floating = top is not None and top.get("bounds", _FULL_SCREEN) != _FULL_SCREEN
    for node in root.iter("node"):
        package = node.get("package", "")
        if package == SYSTEM_PACKAGE:
            continue
        if not app and package:
            app = package.rsplit(".", 1)[-1]
        label = node.get("text", "").strip()
        desc = node.get("content-desc", "").strip()
        if not label and not desc:
            continue
        kind = node.get("class", "").rsplit(".", 1)[-1]
        item = kind
        if label:
            item += f' "{label}"'
        if desc and desc != label:
            item += f' desc="{desc}"'
        states = [s for s in _STATES if node.get(s) == "true"]
        if states:
            item += f" ({', '.join(states)})"
        parts.append(item)
    if app and floating:
        app = f"{app} {OVERLAY}"
    return " | ".join(([app] if app else []) + parts)


def _from_compressed(text: str) -> str:
    parts = []
    for line in text.splitlines():
        if _SYSTEM_IDS.search(line) or "Battery" in line or "Wi-Fi" in line:
            continue
        line = _INDEX.sub("", _BOUNDS.sub("", line))
        line = _FLAGS.sub(_keep_states, " " + line).strip()
        if line:
            parts.append(line)
    return " | ".join(parts)


def _from_mobilerl(text: str) -> str:
    parts = []
    for n in parse_compressed(text):
        if is_system_bounds(n.bounds) or not (n.text.strip() or n.desc or n.folded):
            continue
        item = n.cls
        if n.text.strip():
            item += f' "{n.text.strip()}"'
        if n.desc:
            item += f' desc="{n.desc}"'
        item += "".join(f' "{t}"' for t in n.folded)
        states = [s for s in ("checked", "selected") if s in n.flags]
        if states:
            item += f" ({', '.join(states)})"
        parts.append(item)
    return " | ".join(parts)


def _keep_states(m: re.Match[str]) -> str:
    words = m.group(0).split(",")
    if not all(w in _FLAG_WORDS for w in words):
        return m.group(0)
    states = [w for w in words if w in _STATES]
    return f"({', '.join(states)})" if states else ""
