"""The expert's copy and paste through Android's text-selection toolbar (for any app's oracle).

On the phone (:mod:`gui_gym.android.sim.device`), a long press on a text field focuses it and
opens the floating text-selection toolbar over the field, whose items are "Cut", "Copy",
"Paste" and "Select all" as they apply (each a clickable view whose content description is its
title; :meth:`~gui_gym.android.sim.device.Device.text_actions` lists them). These helpers give
the next action of a person copying a field's text or pasting into a field, like the other
oracle helpers: ``None`` when the field is not on screen (the caller navigates there first).

>>> from gui_gym.android.sim.device import Device
>>> from gui_gym.android.sim.tasks.base import Oracle
>>> text_action(Oracle(Device(), {}), "Paste") is None  # no toolbar on the home screen
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gui_gym.android.sim.tasks.base import Oracle
    from gui_gym.android.ui import Node

__all__ = ["copy_field", "paste_into", "text_action"]


def text_action(o: Oracle, title: str) -> Node | None:
    """The text-selection toolbar's item ``title`` ("Cut", "Copy", "Paste", "Select all") on
    screen, or ``None``."""
    return next((n for n in o.dev.text_actions() if n.desc == title), None)


def _selected(o: Oracle, field: Node, whole: bool | None = None) -> bool:
    """Whether the toolbar shows for ``field`` (with its whole text selected, when ``whole``)."""
    sel = o.dev.state.selection
    if sel is None or not sel.on(*field.field):
        return False
    return whole is None or sel.whole == whole


def copy_field(o: Oracle, label: str) -> str | None:
    """The next action to copy the whole text of the field labelled ``label``: long press it,
    "Select all", "Copy". ``None`` when the field is not on screen. The caller stops once
    ``o.dev.state.clipboard`` holds the text."""
    field = o.field(label)
    if field is None:
        return None
    if _selected(o, field):
        item = text_action(o, "Copy") or text_action(o, "Select all")
        if item is not None:
            return o.tap(item)
    return o.long_press(field)


def paste_into(o: Oracle, label: str, replace: bool = False) -> str | None:
    """The next action to paste the clipboard into the field labelled ``label``: long press it,
    then "Paste" (at the end of its text; with ``replace``, "Select all" first when it holds
    text, so the paste replaces it). ``None`` when the field is not on screen. The clipboard
    must hold text (else no "Paste" is offered); the caller stops once the field holds it."""
    field = o.field(label)
    if field is None:
        return None
    host, key = field.field
    if _selected(o, field):
        if replace and host.form.get(key, "") and not _selected(o, field, whole=True):
            item = text_action(o, "Select all")
        else:
            item = text_action(o, "Paste")
        if item is not None:
            return o.tap(item)
    return o.long_press(field)
