"""Simple Calendar Pro (com.simplemobiletools.calendar.pro): a day view and an event editor.

Database: :class:`CalendarData` with a list of :class:`Event` (title, start/end datetimes,
description, location, repeat rule). Screens: the day view (events of the selected date;
previous/next day arrows, the date header and a toolbar icon open a "Go to date" picker,
"Go to today"; long-press menu: Edit / Delete; a FAB for a new event) and the event editor
(title, location, description; start and end date/time rows opening the date and time
pickers; a Repeat row, and for a weekly event a "Repeat on" row opening the weekday checkboxes
and the "Forever" limit; Save, and Delete for an existing event, with a confirm dialog).
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from gui_gym.android.sim.apps.base import App
from gui_gym.android.sim.apps.calendar.data import (
    LABEL,
    PKG,
    REPEAT_LABEL,
    REPEATS,
    WEEKDAYS,
    CalendarData,
    Event,
    implied_rule,
    weekday_names,
)
from gui_gym.android.sim.apps.calendar.storage import DATABASE
from gui_gym.android.sim.dialogs import AlertDialog, DatePickerDialog, Dialog, MenuDialog, TimePickerDialog
from gui_gym.android.sim.widgets import FIELD_H, PAD, UI, Inapplicable, Screen
from gui_gym.android.ui import SCREEN_W, Node

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device


def _db(dev: Device) -> CalendarData:
    return dev.data("calendar")


def _long(d: dt.date) -> str:
    return d.strftime("%A, %B %-d, %Y")


class DayView(Screen):
    """The main screen: the events of one day."""

    def __init__(self, day: dt.date) -> None:
        super().__init__()
        self.date = day
        self.menu_uid: int | None = None

    def build(self, ui: UI, dev: Device) -> None:
        ui.toolbar(
            LABEL,
            up=False,
            actions=[
                ("Go to today", "today", lambda: self._today(dev)),
                ("Go to date", "calendar", lambda: self._pick(dev)),
            ],
        )
        y = ui.y
        ui.add(
            Node(
                "android.widget.ImageButton",
                (24, y + 10, 164, y + 130),
                desc="Previous day",
                rid=f"{PKG}:id/top_left_arrow",
                on_tap=lambda: self._shift(-1),
                role="icon",
                style="chevron_left",
            )
        )
        ui.add(
            Node(
                "android.widget.TextView",
                (164, y, SCREEN_W - 164, y + 140),
                _long(self.date),
                rid=f"{PKG}:id/top_value",
                on_tap=lambda: self._pick(dev),
                role="text",
                style=44,
            )
        )
        ui.add(
            Node(
                "android.widget.ImageButton",
                (SCREEN_W - 164, y + 10, SCREEN_W - 24, y + 130),
                desc="Next day",
                rid=f"{PKG}:id/top_right_arrow",
                on_tap=lambda: self._shift(1),
                role="icon",
                style="chevron_right",
            )
        )
        ui.y = y + 150

        def render(ui: UI, e: Event) -> None:
            sub = e.times() + ("" if e.repeat == "none" else f" · {REPEAT_LABEL[e.repeat]}")
            ui.row(
                e.title,
                sub,
                on_tap=lambda: self._open(dev, e.uid),
                on_long_press=lambda: self._menu(dev, e.uid),
                rid=f"{PKG}:id/event_item_holder",
                label=e.title,
            )

        ui.scroll_list(self, "list", _db(dev).on(self.date), render, empty="No events", list_id="day_events")
        ui.fab("New event", lambda: self._new(dev), rid=f"{PKG}:id/calendar_fab")

    def _go(self, day: dt.date) -> None:
        self.date = day
        self.scroll.clear()

    def _shift(self, days: int) -> str:
        self._go(self.date + dt.timedelta(days=days))
        return f"Go to the {'next' if days > 0 else 'previous'} day ({_long(self.date)}) in {LABEL}"

    def _today(self, dev: Device) -> str:
        self._go(dev.state.now.date())
        return f"Go to today ({_long(self.date)}) in {LABEL}"

    def _pick(self, dev: Device) -> str:
        dev.open_dialog(DatePickerDialog("on_goto", self.date, title="Go to date"))
        return f'Open the "Go to date" picker in {LABEL}'

    def on_goto(self, dev: Device, day: dt.date) -> str:
        self._go(day)
        return f"Go to {_long(day)} in {LABEL}"

    def _new(self, dev: Device) -> str:
        start = dt.datetime.combine(self.date, dev.state.now.time().replace(minute=0, second=0, microsecond=0))
        start = min(start + dt.timedelta(hours=1), dt.datetime.combine(self.date, dt.time(23)))
        dev.push(EventEditor(None, start=start, end=start + dt.timedelta(hours=1)))
        return f'Tap the "New event" button in {LABEL}'

    def _open(self, dev: Device, uid: int) -> str:
        e = _db(dev).by_uid(uid)
        assert e is not None
        dev.push(EventEditor(uid, e))
        return f'Open the event "{e.title}" in {LABEL}'

    def _menu(self, dev: Device, uid: int) -> str:
        e = _db(dev).by_uid(uid)
        assert e is not None
        self.menu_uid = uid
        dev.open_dialog(MenuDialog("on_menu", [("Edit", "edit"), ("Delete", "delete")], title=e.title))
        return f'Long press the event "{e.title}" in {LABEL}'

    def on_menu(self, dev: Device, value: str) -> str | None:
        e = _db(dev).by_uid(self.menu_uid)
        if e is None:
            return None
        if value == "edit":
            return self._open(dev, e.uid)
        dev.open_dialog(_confirm(e))
        return f'Tap "Delete" for the event "{e.title}" in {LABEL}'

    def on_delete(self, dev: Device, value: str) -> str:
        e = _db(dev).by_uid(self.menu_uid)
        if e is None:  # handlers run after the dialog closed: nothing left to refuse
            return f"Close the dialog in {LABEL}"
        _db(dev).events.remove(e)
        dev.toast("Event deleted")
        return f'Confirm deleting the event "{e.title}" in {LABEL}'


def _confirm(e: Event) -> AlertDialog:
    msg = f'"{e.title}" will be deleted.' if e.repeat == "none" else f'All occurrences of "{e.title}" will be deleted.'
    return AlertDialog("on_delete", "Delete event?", msg, [("Cancel", None), ("Delete", "delete")])


class WeekdaysDialog(Dialog):
    """The weekly repetition's days (the app's ``RepeatRuleWeeklyDialog``): a checkbox per
    weekday, Sunday first as on a phone in the US locale (``isSundayFirst``), Cancel/OK; OK passes
    the checked days' bits (Monday 1 ... Sunday 64)."""

    def __init__(self, handler: str, bits: int) -> None:
        super().__init__(handler, "")
        self.bits = bits

    def build(self, ui: UI, dev: Device) -> None:
        panel = ui.dialog_panel(self, height=60 + 7 * 138 + 160)
        ui.spacer(20)
        with ui.group(rid=f"{PKG}:id/dialog_vertical_linear_layout"):
            for i in (6, 0, 1, 2, 3, 4, 5):
                ui.checkbox(WEEKDAYS[i], bool(self.bits >> i & 1), lambda on, b=1 << i: self._toggle(b, on))
        ui.dialog_buttons(self, [("Cancel", None), ("OK", "ok")])
        ui.end_panel(panel)

    def _toggle(self, bit: int, on: bool) -> None:
        self.bits = self.bits | bit if on else self.bits & ~bit

    def finish(self, dev: Device, value: object) -> str | None:
        return super().finish(dev, None if value is None else ("rule", self.bits))


class EventEditor(Screen):
    """Create (``uid=None``) or edit an event.

    The repetition is kept as the app keeps it (``EventActivity``): an interval and a rule.
    Choosing Weekly sets the rule to the start's weekday, Monthly or Yearly to the same day;
    Daily and No repetition leave the rule as it was (so an event made weekly, then daily, is
    stored with the weekday's bit, as the app stores it). Moving the start date of a weekly event
    on one weekday moves that weekday; unticking every weekday ends the repetition.
    """

    FIELDS = (("title", "Title"), ("location", "Location"), ("description", "Description"))

    def __init__(
        self,
        uid: int | None,
        event: Event | None = None,
        start: dt.datetime | None = None,
        end: dt.datetime | None = None,
    ) -> None:
        super().__init__()
        self.uid = uid
        self.repeat = "none"
        self.rule = 0  # the app's repeat_rule (mRepeatRule)
        if event is not None:
            self.form = {"title": event.title, "location": event.location, "description": event.description}
            start, end, self.repeat, self.rule = event.start, event.end, event.repeat, event.repeat_rule
        assert start is not None and end is not None
        self.start, self.end = start, end
        self.focus = "title" if uid is None else None

    def build(self, ui: UI, dev: Device) -> None:
        actions = [] if self.uid is None else [("Delete", "delete", lambda: self._delete(dev))]
        actions.append(("Save", "save", lambda: self._save(dev)))
        ui.toolbar("New Event" if self.uid is None else "Edit Event", up=lambda: self._cancel(dev), actions=actions)
        ui.spacer(20)
        for key, hint in self.FIELDS:
            ui.field(
                self,
                key,
                hint,
                rid=f"{PKG}:id/event_{key}",
                label=hint,
                multiline=key == "description",
                h=FIELD_H * 3 // 2 if key == "description" else None,
            )
        for which, caption in (("start", "From"), ("end", "To")):
            when: dt.datetime = getattr(self, which)
            y = ui.y
            ui.add(Node("android.widget.TextView", (PAD, y, 200, y + 140), caption, role="subtext"))
            ui.add(
                Node(
                    "android.widget.TextView",
                    (200, y, 720, y + 140),
                    when.strftime("%a, %b %-d, %Y"),
                    rid=f"{PKG}:id/event_{which}_date",
                    label=f"{which.title()} date",
                    role="text",
                    style=44,
                    on_tap=lambda w=which: self._pick_date(dev, w),
                )
            )
            ui.add(
                Node(
                    "android.widget.TextView",
                    (760, y, SCREEN_W - PAD, y + 140),
                    when.strftime("%H:%M"),
                    rid=f"{PKG}:id/event_{which}_time",
                    label=f"{which.title()} time",
                    role="text",
                    style=44,
                    on_tap=lambda w=which: self._pick_time(dev, w),
                )
            )
            ui.y = y + 140
        ui.row(
            "Repeat",
            REPEAT_LABEL[self.repeat],
            on_tap=lambda: self._pick_repeat(dev),
            rid=f"{PKG}:id/event_repetition",
            label="Repeat",
        )
        if self.repeat == "weekly":
            ui.row(
                "Repeat on",
                weekday_names(self.rule, short=True),
                on_tap=lambda: self._pick_weekdays(dev),
                rid=f"{PKG}:id/event_repetition_rule_holder",
                label="Repeat on",
            )
        if self.repeat != "none":
            ui.row("Repeat", "Forever", rid=f"{PKG}:id/event_repetition_limit_holder", label="Repeat till")

    # -- pickers ------------------------------------------------------------------------------
    def _pick_date(self, dev: Device, which: str) -> str:
        self.focus = None
        when: dt.datetime = getattr(self, which)
        dev.open_dialog(DatePickerDialog(f"on_{which}_date", when.date(), title=f"{which.title()} date"))
        return f"Open the {which} date picker ({when:%a, %b %-d, %Y}) in {LABEL}"

    def _pick_time(self, dev: Device, which: str) -> str:
        self.focus = None
        when: dt.datetime = getattr(self, which)
        dev.open_dialog(TimePickerDialog(f"on_{which}_time", when.time(), title=f"{which.title()} time"))
        return f"Open the {which} time picker ({when:%H:%M}) in {LABEL}"

    def _pick_repeat(self, dev: Device) -> str:
        self.focus = None
        dev.open_dialog(
            MenuDialog("on_repeat", [(label, key) for key, label in REPEATS], title="Repeat", selected=self.repeat)
        )
        return f'Open the "Repeat" options in {LABEL}'

    def _pick_weekdays(self, dev: Device) -> str:
        self.focus = None
        dev.open_dialog(WeekdaysDialog("on_weekdays", self.rule))
        return f'Open the "Repeat on" weekdays in {LABEL}'

    def on_weekdays(self, dev: Device, value: tuple[str, int]) -> str:
        self.rule = value[1]
        if self.rule == 0:  # no weekday left: the event no longer repeats
            self.repeat = "none"
            return f"Untick every weekday: the event no longer repeats in {LABEL}"
        return f"Set the event to repeat on {weekday_names(self.rule)} in {LABEL}"

    def _set_start(self, start: dt.datetime) -> str:
        """Move the start; the end moves with it, keeping the duration (as the real app does). A
        weekly event on one weekday moves to the new start's weekday."""
        if self.repeat == "weekly" and self.rule in {1 << i for i in range(7)}:
            self.rule = implied_rule("weekly", start)
        self.end, self.start = start + (self.end - self.start), start
        return f"Set the event start to {start:%a, %b %-d, %Y %H:%M} (end {self.end:%a, %b %-d, %Y %H:%M}) in {LABEL}"

    def on_start_date(self, dev: Device, day: dt.date) -> str:
        return self._set_start(dt.datetime.combine(day, self.start.time()))

    def on_start_time(self, dev: Device, t: dt.time) -> str:
        return self._set_start(dt.datetime.combine(self.start.date(), t))

    def on_end_date(self, dev: Device, day: dt.date) -> str:
        self.end = dt.datetime.combine(day, self.end.time())
        return f"Set the event end date to {day:%a, %b %-d, %Y} in {LABEL}"

    def on_end_time(self, dev: Device, t: dt.time) -> str:
        self.end = dt.datetime.combine(self.end.date(), t)
        return f"Set the event end time to {t:%H:%M} in {LABEL}"

    def on_repeat(self, dev: Device, value: str) -> str:
        self.repeat = value
        if value in ("weekly", "monthly", "yearly"):
            self.rule = implied_rule(value, self.start)
        return f'Set the event repetition to "{REPEAT_LABEL[value]}" in {LABEL}'

    # -- actions ------------------------------------------------------------------------------
    def _cancel(self, dev: Device) -> str:
        dev.pop()
        return f"Discard the event edits in {LABEL}"

    def _save(self, dev: Device) -> str:
        title = self.form.get("title", "").strip()
        if not title:
            raise Inapplicable("the event needs a title")
        if self.end < self.start:
            raise Inapplicable("the end of the event cannot be before its start")
        db = _db(dev)
        values = {k: self.form.get(k, "").strip() for k, _ in self.FIELDS}
        if self.uid is None:
            e = db.add(Event(start=self.start, end=self.end, repeat=self.repeat, **values))
        else:
            e = db.by_uid(self.uid)
            if e is None:
                raise Inapplicable("the event no longer exists")
            for k, v in values.items():
                setattr(e, k, v)
            e.start, e.end, e.repeat = self.start, self.end, self.repeat
        e.rule = None if self.rule == implied_rule(self.repeat, self.start) else self.rule
        # what the app writes on every save: the time (ms) and a local event's source
        e.extra.update(last_updated=int((dev.state.now - dt.datetime(1970, 1, 1)).total_seconds()) * 1000)
        e.extra.update(source="simple-calendar")
        dev.pop()
        dev.toast("Event saved")
        return f'Save the event "{e.title}" in {LABEL}'

    def _delete(self, dev: Device) -> str:
        e = _db(dev).by_uid(self.uid)
        if e is None:
            raise Inapplicable("the event no longer exists")
        self.focus = None
        dev.open_dialog(_confirm(e))
        return f'Tap the "Delete" button for the event "{e.title}" in {LABEL}'

    def on_delete(self, dev: Device, value: str) -> str:
        e = _db(dev).by_uid(self.uid)
        dev.pop()
        if e is None:
            return f"Close the editor of a deleted event in {LABEL}"
        _db(dev).events.remove(e)
        dev.toast("Event deleted")
        return f'Confirm deleting the event "{e.title}" in {LABEL}'


class CalendarApp(App):
    name = "calendar"
    label = LABEL
    package = PKG
    activity = "com.simplemobiletools.calendar.pro.activities.MainActivity"
    aliases = ("simple calendar pro", "simple calendar")
    launcher_label = "Calendar"
    color = (244, 81, 30)
    icon = "calendar"
    databases = (DATABASE,)

    def initial_data(self) -> CalendarData:
        return CalendarData()

    def root(self, dev: Device) -> Screen:
        return DayView(dev.state.now.date())
