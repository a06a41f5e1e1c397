"""Native pickers for a page's inputs, as Android's WebView and Chrome show them: a tap on a
``<select>`` opens a list dialog of its options (the chosen one checked; a ``<select multiple>``:
its options checkable, with Cancel and OK), on an ``<input type="date">`` the calendar date
picker, on an ``<input type="time">`` the time picker. The choice is written into the element as
the browser writes a picked value (its ``value``, then ``input`` and ``change`` events), never as
text the page runs.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import TYPE_CHECKING, Any

from gui_gym.android.sim.dialogs import DatePickerDialog, MenuDialog, MultiChoiceDialog, TimePickerDialog

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device
    from gui_gym.android.sim.web.webview import WebView
    from gui_gym.android.sim.widgets import Screen

# What a touch at a page point would open natively: [kind, index among its kind, value, options].
_AT = """(() => {{
  const e = document.elementFromPoint({x!r}, {y!r});
  if (!e || e.disabled) return null;
  const list = e.tagName === 'OPTION' ? e.closest('select') : e;  // a multiple list shows its options
  if (list && list.tagName === 'SELECT' && list.multiple && !list.disabled) {{
    return ['select-multiple', Array.from(document.querySelectorAll('select')).indexOf(list),
            Array.from(list.options).flatMap((o, i) => o.selected ? [i] : []),
            Array.from(list.options).map(o => o.text)];
  }}
  if (e.tagName === 'SELECT') {{
    return ['select', Array.from(document.querySelectorAll('select')).indexOf(e), e.selectedIndex,
            Array.from(e.options).map(o => o.text)];
  }}
  const t = (e.getAttribute('type') || '').toLowerCase();
  if (e.tagName === 'INPUT' && (t === 'date' || t === 'time')) {{
    return [t, Array.from(document.querySelectorAll('input[type=' + t + ']')).indexOf(e), e.value, []];
  }}
  return null;
}})()"""
# Write a picked value into the index-th element of a kind, as the browser does.
_SET = """(() => {{
  const e = document.querySelectorAll({selector})[{index}];
  if (!e) return false;
  {assign}
  e.dispatchEvent(new Event('input', {{bubbles: true}}));
  e.dispatchEvent(new Event('change', {{bubbles: true}}));
  return true;
}})()"""


def picker_at(view: WebView, point: tuple[int, int]) -> list[Any] | None:
    """What the page's element at screen ``point`` opens natively (see :data:`_AT`), or ``None``."""
    x, y = view.frame.to_page(*point)
    found = view.read(_AT.format(x=x, y=y))
    return found if isinstance(found, list) else None


def open_picker(screen: Screen, dev: Device, found: list[Any]) -> str:
    """Show the native picker for ``found`` over ``screen`` (its handlers: :class:`PagePickers`)."""
    kind, index, value, options = found
    if kind == "select":
        items = [(text, (index, i)) for i, text in enumerate(options)]
        dev.open_dialog(MenuDialog("on_pick_option", items, selected=(index, value)))
        return "Tap the list on the page: its options open"
    if kind == "select-multiple":
        items = [(text, i) for i, text in enumerate(options)]
        dev.open_dialog(MultiChoiceDialog("on_pick_options", items, checked=value, tag=index))
        return "Tap the list on the page: its options open"
    if kind == "date":
        try:
            day = dt.date.fromisoformat(value) if value else dev.state.now.date()
        except ValueError:
            day = dev.state.now.date()
        screen.picking = index  # type: ignore[attr-defined]
        dev.open_dialog(DatePickerDialog("on_pick_date", day))
        return "Tap the date field on the page: the date picker opens"
    try:
        at = dt.time.fromisoformat(value) if value else dev.state.now.time().replace(second=0, microsecond=0)
    except ValueError:
        at = dev.state.now.time().replace(second=0, microsecond=0)
    screen.picking = index  # type: ignore[attr-defined]
    dev.open_dialog(TimePickerDialog("on_pick_time", at))
    return "Tap the time field on the page: the time picker opens"


class PagePickers:
    """The handlers a screen showing a page gives its native pickers (mixed into the screen;
    ``page_view(dev)`` is the screen's :class:`~gui_gym.android.sim.web.webview.WebView`)."""

    picking: int = 0

    def page_view(self, dev: Device) -> WebView:
        raise NotImplementedError

    def _write(self, dev: Device, selector: str, index: int, assign: str) -> bool:
        script = _SET.format(selector=json.dumps(selector), index=index, assign=assign)
        return bool(self.page_view(dev).evaluate(script))

    def on_pick_option(self, dev: Device, value: tuple[int, int]) -> str:
        index, option = value
        self._write(dev, "select", index, f"e.selectedIndex = {int(option)};")
        return f"Choose option {int(option) + 1} of the list"

    def on_pick_options(self, dev: Device, value: tuple[int, tuple[int, ...]]) -> str:
        index, chosen = value
        picked = json.dumps([int(i) for i in chosen])
        assign = f"Array.from(e.options).forEach((o, i) => {{ o.selected = {picked}.includes(i); }});"
        self._write(dev, "select", index, assign)
        if not chosen:
            return "Choose no option of the list"
        return f"Choose options {', '.join(str(int(i) + 1) for i in chosen)} of the list"

    def on_pick_date(self, dev: Device, value: dt.date) -> str:
        self._write(dev, "input[type=date]", self.picking, f"e.value = {json.dumps(value.isoformat())};")
        return f"Set the date to {value.isoformat()}"

    def on_pick_time(self, dev: Device, value: dt.time) -> str:
        text = value.strftime("%H:%M")
        self._write(dev, "input[type=time]", self.picking, f"e.value = {json.dumps(text)};")
        return f"Set the time to {text}"
