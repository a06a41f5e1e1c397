"""Dialogs: modal windows over the top screen, as Android draws them (an alert, a list, a
multi-choice list, text fields, the date and time pickers). Like a :class:`~.widgets.Screen`, a
dialog is plain, picklable data rebuilt into nodes every step by :meth:`Dialog.build`.
"""

from __future__ import annotations

import calendar
import datetime as dt
import functools
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from gui_gym.android.actions import MAX_QUOTE, clip_text
from gui_gym.android.sim.widgets import FIELD_H, UI, FormHost, Inapplicable
from gui_gym.android.ui import Node

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device


class Dialog(FormHost):
    """A modal window over the top screen. ``handler`` names a method of the owning screen
    called as ``handler(dev, value)`` with the chosen button's value."""

    def __init__(self, handler: str = "", title: str = "", cancelable: bool = True) -> None:
        super().__init__()
        self.handler = handler
        self.title = title
        self.cancelable = cancelable

    def build(self, ui: UI, dev: Device) -> None:
        raise NotImplementedError

    def finish(self, dev: Device, value: Any) -> str | None:
        owner = dev.top_screen()
        keyboard = dev.state.keyboard
        dev.close_dialog()
        if value is None or owner is None or not self.handler:
            return None
        try:
            return getattr(owner, self.handler)(dev, value)
        except Inapplicable:
            owner.dialog, dev.state.keyboard = self, keyboard  # an invalid choice changes nothing
            raise


class AlertDialog(Dialog):
    """Title, message and buttons, e.g. ``[("Cancel", None), ("Delete", "delete")]``."""

    def __init__(self, handler: str, title: str, message: str = "", buttons: Sequence[tuple[str, Any]] = ()) -> None:
        super().__init__(handler, title)
        self.message = message
        self.buttons = list(buttons)

    def build(self, ui: UI, dev: Device) -> None:
        panel = ui.dialog_panel(self, height=200 + (110 if self.message else 0) + 150)
        ui.dialog_title(self.title)
        if self.message:
            with (
                ui.group("android.widget.FrameLayout", rid="android:id/contentPanel"),
                ui.group("android.widget.ScrollView", rid="android:id/scrollView"),
                ui.group(),
            ):
                ui.text(self.message, h=110, rid="android:id/message", size=40)
        ui.dialog_buttons(self, self.buttons)
        ui.end_panel(panel)


class MenuDialog(Dialog):
    """A list of choices (context menu, single-choice list); tapping one closes it."""

    def __init__(self, handler: str, items: Sequence[tuple[str, Any]], title: str = "", selected: Any = None) -> None:
        super().__init__(handler, title)
        self.items = list(items)
        self.selected = selected

    def build(self, ui: UI, dev: Device) -> None:
        panel = ui.dialog_panel(self, height=(180 if self.title else 60) + 140 * len(self.items))
        if self.title:
            ui.dialog_title(self.title)
        with ui.group("android.widget.ListView", rid="android:id/select_dialog_listview"):
            for label, value in self.items:
                ui.button(
                    label,
                    lambda v=value: self.finish(ui.dev, v),
                    rid="android:id/text1",
                    cls="android.widget.CheckedTextView" if self.selected is not None else "android.widget.TextView",
                    h=140,
                    selected=value == self.selected and self.selected is not None,
                    role="menuitem",
                )
        ui.end_panel(panel)


class MultiChoiceDialog(Dialog):
    """A list of checkable choices with Cancel/OK (AlertDialog's multi-choice list, as Chrome shows a
    ``<select multiple>``): a tap checks or unchecks a row; OK passes ``(tag, checked values)``."""

    def __init__(
        self,
        handler: str,
        items: Sequence[tuple[str, Any]],
        checked: Iterable[Any] = (),
        title: str = "",
        tag: Any = None,
    ) -> None:
        super().__init__(handler, title)
        self.items = list(items)
        self.checked = {v for _, v in self.items if v in set(checked)}
        self.tag = tag

    def _toggle(self, label: str, value: Any) -> str:
        on = value not in self.checked
        (self.checked.add if on else self.checked.discard)(value)
        return f'{"Check" if on else "Uncheck"} "{label}" in the list'

    def build(self, ui: UI, dev: Device) -> None:
        panel = ui.dialog_panel(self, height=(180 if self.title else 60) + 140 * len(self.items) + 150)
        if self.title:
            ui.dialog_title(self.title)
        with ui.group("android.widget.ListView", rid="android:id/select_dialog_listview"):
            for label, value in self.items:
                ui.add(
                    Node(
                        "android.widget.CheckedTextView",
                        ui.rect(140),
                        label,
                        rid="android:id/text1",
                        checkable=True,
                        checked=value in self.checked,
                        on_tap=lambda lab=label, v=value: self._toggle(lab, v),
                        role="checkbox",
                        label=label,
                    )
                )
        ui.dialog_buttons(self, [("Cancel", None), ("OK", "ok")])
        ui.end_panel(panel)

    def finish(self, dev: Device, value: Any) -> str | None:
        order = [v for _, v in self.items if v in self.checked]
        return super().finish(dev, None if value is None else (self.tag, tuple(order)))


class InputDialog(Dialog):
    """One or more text fields with OK/Cancel; OK passes ``dict(form)`` to the handler."""

    def __init__(
        self, handler: str, title: str, fields: Sequence[tuple[str, str]], ok: str = "OK", values: dict | None = None
    ) -> None:
        super().__init__(handler, title)
        self._field_order = [k for k, _ in fields]
        self.hints = dict(fields)
        self.ok = ok
        self.form.update(values or {})
        self.focus = self._field_order[0] if self._field_order else None

    def build(self, ui: UI, dev: Device) -> None:
        panel = ui.dialog_panel(self, height=130 + (FIELD_H + 30) * len(self.hints) + 160)
        ui.dialog_title(self.title)
        with (
            ui.group("android.widget.FrameLayout", rid="android:id/customPanel"),
            ui.group("android.widget.FrameLayout", rid="android:id/custom"),
            ui.group(),
        ):
            for key, hint in self.hints.items():
                ui.field(self, key, hint, rid=f"android:id/{key}")
        ui.dialog_buttons(self, [("Cancel", None), (self.ok, "ok")])
        ui.end_panel(panel)

    def finish(self, dev: Device, value: Any) -> str | None:
        return super().finish(dev, None if value is None else dict(self.form))


@functools.lru_cache(maxsize=256)
def _day_labels(year: int, month: int) -> tuple[str, ...]:
    """The date picker's day cells' labels of a month (``1 October 2023`` ...)."""
    return tuple(
        dt.date(year, month, day).strftime("%-d %B %Y") for day in range(1, calendar.monthrange(year, month)[1] + 1)
    )


class DatePickerDialog(Dialog):
    """Android's calendar date picker: month header with previous/next arrows, a day grid,
    Cancel/OK. OK passes a :class:`datetime.date` to the handler."""

    def __init__(self, handler: str, date: dt.date, title: str = "Select date") -> None:
        super().__init__(handler, title)
        self.date = date

    def build(self, ui: UI, dev: Device) -> None:
        y0 = 520
        panel = ui.dialog_panel(self, height=1250, top=y0)
        d = self.date
        ui.dialog_title(d.strftime("%a, %b %-d, %Y"), rid="android:id/date_picker_header_date")
        row_y = ui.y
        ui.add(
            Node(
                "android.widget.ImageButton",
                (120, row_y, 260, row_y + 120),
                desc="Previous month",
                rid="android:id/prev",
                on_tap=lambda: self._shift(-1),
                role="icon",
                style="chevron_left",
            )
        )
        ui.add(
            Node(
                "android.widget.TextView",
                (260, row_y, 820, row_y + 120),
                d.strftime("%B %Y"),
                rid="android:id/month_view",
                role="text",
            )
        )
        ui.add(
            Node(
                "android.widget.ImageButton",
                (820, row_y, 960, row_y + 120),
                desc="Next month",
                rid="android:id/next",
                on_tap=lambda: self._shift(1),
                role="icon",
                style="chevron_right",
            )
        )
        ui.y = row_y + 130
        first_wd, ndays = calendar.monthrange(d.year, d.month)
        first_wd = (first_wd + 1) % 7  # Sunday-first grid
        cell_w, cell_h = 112, 110
        labels = _day_labels(d.year, d.month)
        for day in range(1, ndays + 1):
            pos = first_wd + day - 1
            r, c = divmod(pos, 7)
            x = 148 + c * cell_w
            y = ui.y + r * cell_h
            label = labels[day - 1]
            ui.add(
                Node(
                    "android.view.View",
                    (x, y, x + cell_w, y + cell_h),
                    str(day),
                    desc=label,
                    selected=day == d.day,
                    on_tap=lambda dd=day: self._pick(dd),
                    role="day",
                    label=label,
                )
            )
        ui.y += 6 * cell_h + 20
        ui.dialog_buttons(self, [("Cancel", None), ("OK", "ok")])
        ui.end_panel(panel)

    def _shift(self, months: int) -> str:
        y, m = divmod(self.date.year * 12 + self.date.month - 1 + months, 12)
        day = min(self.date.day, calendar.monthrange(y, m + 1)[1])
        self.date = dt.date(y, m + 1, day)
        return f"Go to {'next' if months > 0 else 'previous'} month ({self.date.strftime('%B %Y')}) in the date picker"

    def _pick(self, day: int) -> str:
        self.date = self.date.replace(day=day)
        return f"Select {self.date.strftime('%B %-d, %Y')} in the date picker"

    def finish(self, dev: Device, value: Any) -> str | None:
        return super().finish(dev, None if value is None else self.date)


class TimePickerDialog(Dialog):
    """Android's time picker in keyboard-input mode: hour and minute fields (24-hour), Cancel/OK.
    OK passes a :class:`datetime.time` to the handler; out-of-range input is refused."""

    def __init__(self, handler: str, time: dt.time, title: str = "Set time") -> None:
        super().__init__(handler, title)
        self._field_order = ["hour", "minute"]
        self.form = {"hour": f"{time.hour:02d}", "minute": f"{time.minute:02d}"}

    def build(self, ui: UI, dev: Device) -> None:
        panel = ui.dialog_panel(self, height=130 + 2 * (FIELD_H + 30) + 160)
        ui.dialog_title(self.title)
        ui.field(self, "hour", "Hour", rid="android:id/input_hour", label="Hour")
        ui.field(self, "minute", "Minute", rid="android:id/input_minute", label="Minute")
        ui.dialog_buttons(self, [("Cancel", None), ("OK", "ok")])
        ui.end_panel(panel)

    def finish(self, dev: Device, value: Any) -> str | None:
        if value is None:
            return super().finish(dev, None)
        try:
            t = dt.time(int(self.form.get("hour", "")), int(self.form.get("minute", "")))
        except (ValueError, OverflowError):  # not numbers, out of range, or too many digits
            hour, minute = (clip_text(str(self.form.get(k)), MAX_QUOTE) for k in ("hour", "minute"))
            raise Inapplicable(f"invalid time {hour}:{minute}") from None
        return super().finish(dev, t)
