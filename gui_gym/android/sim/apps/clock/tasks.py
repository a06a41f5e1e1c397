"""Clock tasks of gui-gym's own suite: alarms (add, turn off, delete, a repeating labelled alarm,
and a question). AndroidWorld's Clock tasks are in :mod:`~gui_gym.android.sim.apps.clock.androidworld`."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from gui_gym.android.sim.apps.clock.app import ALARM_H, DAYS, Alarm, ClockData, ClockMain
from gui_gym.android.sim.dialogs import InputDialog, MenuDialog, TimePickerDialog
from gui_gym.android.sim.tasks.base import Milestone, Oracle, Params, TaskTemplate, answer_matches
from gui_gym.android.ui import Node

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

ALARM_LABELS = (
    "Wake up",
    "Gym",
    "Medicine",
    "School run",
    "Standup",
    "Laundry",
    "Dinner",
    "Yoga",
    "Call mom",
    "Bedtime",
    "Water plants",
    "Pick up kids",
)
REPEATS = (
    ("every weekday (Monday to Friday)", (0, 1, 2, 3, 4)),
    ("every Saturday and Sunday", (5, 6)),
    ("every Monday, Wednesday and Friday", (0, 2, 4)),
    ("every Tuesday and Thursday", (1, 3)),
)


def db(dev: Device) -> ClockData:
    return dev.data("clock")


def in_clock(dev: Device) -> bool:
    return dev.state.foreground == "clock" and not dev.state.recents_open


def on_tab(dev: Device, tab: str) -> bool:
    return any(isinstance(s, ClockMain) and s.tab == tab for s in dev.state.stacks.get("clock", []))


def times(rng: np.random.Generator, k: int) -> list[tuple[int, int]]:
    """``k`` distinct alarm times: hours 5-22 but 9, minutes in fives but 30, so none shares an hour
    or a minute with the time picker's default (the clock's 09:30) and typing both is always needed."""
    slots = [(h, m) for h in range(5, 23) for m in range(0, 60, 5) if h != 9 and m != 30]
    return [slots[int(i)] for i in rng.choice(len(slots), size=k, replace=False)]


def fmt(hm: tuple[int, int]) -> str:
    return f"{hm[0]:02d}:{hm[1]:02d}"


def populate(
    dev: Device, rng: np.random.Generator, hms: list[tuple[int, int]], labels: list[str] | None = None
) -> None:
    """Alarms at ``hms``, each randomly on/off with random repeat days (labels if given)."""
    for i, (h, m) in enumerate(hms):
        days = tuple(sorted(int(d) for d in rng.choice(7, size=int(rng.integers(0, 4)), replace=False)))
        db(dev).add(Alarm(h, m, labels[i] if labels else "", bool(rng.integers(2)), days))


def snapshot(dev: Device) -> list[tuple]:
    return [(a.uid, a.hour, a.minute, a.label, a.enabled, a.days) for a in db(dev).alarms]


def untouched(dev: Device, p: Params, except_uid: int | None = None) -> bool:
    """Every alarm from the start (but ``except_uid``) is still there, unchanged."""
    now = {s[0]: s for s in snapshot(dev)}
    return all(now.get(s[0]) == s for s in p["before"] if s[0] != except_uid)


def turned_off(dev: Device, time: str) -> bool:
    """An alarm at ``time`` is there, and every alarm at ``time`` is off (a deleted one is not)."""
    alarms = db(dev).at(time)
    return bool(alarms) and not any(a.enabled for a in alarms)


def options_open(dev: Device, uid: int) -> bool:
    """The options of the alarm ``uid`` show: its card is expanded (with its Delete button) or its
    long-press menu is open (:attr:`ClockMain.target` is the alarm the menu was opened for)."""
    return any(
        isinstance(s, ClockMain)
        and (
            s.expanded == uid
            or (isinstance(s.dialog, MenuDialog) and s.dialog.handler == "on_menu" and s.target == uid)
        )
        for s in dev.state.stacks.get("clock", [])
    )


def clock_tab(o: Oracle, tab: str = "Alarm") -> str | None:
    """From anywhere: the next action toward Clock's ``tab`` with no dialog; ``None`` there."""
    if o.app != "clock":
        return o.launch("Clock")
    s = o.screen
    if not isinstance(s, ClockMain) or s.dialog is not None or o.keyboard:
        return o.back()
    if s.tab != tab:
        return o.tap(o.find(role="tab", label=tab))
    return None


def order(label: str) -> tuple[str, int]:
    """Where a list row lies in the alarm list: (time, 0 card / 1 label row); ``("", 0)`` if unknown."""
    m = re.search(r"\d\d:\d\d", label)
    if m is None:
        return "", 0
    return m.group(0), int(label.startswith("Label of"))


def show(o: Oracle, match: Callable[[Node], bool], key: tuple[str, int], min_h: int = 40) -> Node | str:
    """The visible node that ``match``-es, or the swipe that brings it (well) into view.

    ``key`` is the target's :func:`order` in the alarm list. The way to scroll comes from the
    target's own rows when they show (toward the edge that cuts them), else from the others.
    A match less than ``min_h`` pixels high is cut by an edge and is scrolled in first.
    """
    node = next((n for n in o.nodes if match(n)), None)
    lst = o.find(role="list")
    if lst is None or lst.on_scroll is None or (node is not None and node.bounds[3] - node.bounds[1] >= min_h):
        assert node is not None, "the oracle lost its target"
        return node
    rows = [r for r in lst.children if r.role == "row"]
    mine = [r for r in rows if order(r.label)[0] == key[0]]
    ref = node or next((r for r in mine if order(r.label) == key), None)
    if ref is not None:  # the target is cut by an edge of the list
        below = ref.bounds[3] >= lst.bounds[3]
    else:
        below = all(order(r.label) < key for r in (mine or rows))
    # A finger moving up reveals what is below; half a page never skips past a 240-px row.
    return o.swipe("up" if below else "down", "short" if ref is not None else "medium", within=lst)


def tap_in_list(o: Oracle, match: Callable[[Node], bool], key: tuple[str, int]) -> str:
    got = show(o, match, key)
    return got if isinstance(got, str) else o.tap(got)


def tap_switch(o: Oracle, time: str) -> str:
    return tap_in_list(o, lambda n: n.role == "switch" and n.label == f"{time} alarm", (time, 0))


def add_alarm_step(o: Oracle, time: str) -> str:
    """One step toward a new alarm at ``time`` (from anywhere), through the time picker."""
    s = o.screen
    if (
        o.app == "clock"
        and isinstance(s, ClockMain)
        and isinstance(s.dialog, TimePickerDialog)
        and s.dialog.handler == "on_new_time"
    ):
        hh, mm = time.split(":")
        return o.fill_form([("Hour", hh), ("Minute", mm)]) or o.tap(o.find(label="OK", role="textbutton"))
    return clock_tab(o) or o.tap(o.find(desc="Add alarm", role="fab"))


class ClockAlarmAdd(TaskTemplate):
    id = "ClockAlarmAdd"
    app = "clock"
    difficulty = "medium"
    template = "Set an alarm for {time}."
    placeholders: ClassVar[dict[str, str]] = {"Time": "time", "Hour": "hour", "Minute": "minute"}
    milestones = (
        Milestone("Open the Clock app", lambda d, p: in_clock(d)),
        Milestone(
            "Open the time picker for a new alarm",
            lambda d, p: (
                any(
                    isinstance(s, ClockMain)
                    and isinstance(s.dialog, TimePickerDialog)
                    and s.dialog.handler == "on_new_time"
                    for s in d.state.stacks.get("clock", [])
                )
                or bool(db(d).at(p["time"]))
            ),
        ),
        Milestone('Enter the hour "<Hour>"', lambda d, p: ClockAlarmAdd.picker(d, p, "hour")),
        Milestone('Enter the minute "<Minute>"', lambda d, p: ClockAlarmAdd.picker(d, p, "minute")),
        Milestone("Save the alarm for <Time>", lambda d, p: any(a.enabled for a in db(d).at(p["time"]))),
    )

    @staticmethod
    def picker(dev: Device, p: Params, key: str) -> bool:
        """The new-alarm picker holds the target ``key`` (or the alarm exists already)."""
        return bool(db(dev).at(p["time"])) or any(
            isinstance(s, ClockMain)
            and isinstance(s.dialog, TimePickerDialog)
            and s.dialog.handler == "on_new_time"
            and s.dialog.form.get(key) == p[key]
            for s in dev.state.stacks.get("clock", [])
        )

    def sample(self, rng: np.random.Generator) -> Params:
        hms = times(rng, 5)
        k = int(rng.integers(2, 5))
        return {"time": fmt(hms[0]), "others": hms[1 : k + 1], "hour": fmt(hms[0])[:2], "minute": fmt(hms[0])[3:]}

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        populate(dev, rng, p["others"])
        p["before"] = snapshot(dev)

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        new = [a for a in db(dev).alarms if a.uid not in {s[0] for s in p["before"]}]
        return untouched(dev, p) and len(new) == 1 and new[0].time == p["time"] and new[0].enabled

    def oracle(self, o: Oracle) -> str:
        d = db(o.dev)
        made = d.at(o.p["time"])
        if not made:
            return add_alarm_step(o, o.p["time"])
        if made[0].enabled:
            return o.finish()
        return clock_tab(o) or tap_switch(o, o.p["time"])


class ClockAlarmTurnOff(TaskTemplate):
    id = "ClockAlarmTurnOff"
    app = "clock"
    template = "Turn off the {time} alarm."
    placeholders: ClassVar[dict[str, str]] = {"Time": "time"}
    milestones = (
        Milestone("Open the Clock app", lambda d, p: in_clock(d)),
        Milestone("Turn off the <Time> alarm", lambda d, p: turned_off(d, p["time"])),
    )

    def sample(self, rng: np.random.Generator) -> Params:
        hms = times(rng, 7)
        return {"all": hms[: int(rng.integers(3, 8))], "time": fmt(hms[0])}

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        populate(dev, rng, p["all"])
        db(dev).alarms[0].enabled = True
        p["before"] = snapshot(dev)

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        target = db(dev).by_uid(p["before"][0][0])
        return (
            target is not None
            and not target.enabled
            and untouched(dev, p, except_uid=target.uid)
            and len(db(dev).alarms) == len(p["before"])
        )

    def oracle(self, o: Oracle) -> str:
        t = o.p["time"]
        if not any(a.enabled for a in db(o.dev).at(t)):
            return o.finish()
        return clock_tab(o) or tap_switch(o, t)


class ClockAlarmDelete(TaskTemplate):
    id = "ClockAlarmDelete"
    app = "clock"
    template = "Delete the alarm set for {time}."
    placeholders: ClassVar[dict[str, str]] = {"Time": "time"}
    milestones = (
        Milestone("Open the Clock app", lambda d, p: in_clock(d)),
        Milestone(
            "Open the options of the <Time> alarm",
            # Or that alarm (its uid, not just any alarm at <Time>) is gone: deleting it took its
            # options (the long-press menu or the expanded card's Delete button).
            lambda d, p: options_open(d, p["uid"]) or db(d).by_uid(p["uid"]) is None,
        ),
        Milestone("Delete the <Time> alarm", lambda d, p: not db(d).at(p["time"])),
    )

    def sample(self, rng: np.random.Generator) -> Params:
        hms = times(rng, 7)
        return {"all": hms[: int(rng.integers(3, 8))], "time": fmt(hms[0])}

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        populate(dev, rng, p["all"])
        p["before"] = snapshot(dev)
        p["uid"] = p["before"][0][0]

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return (
            not db(dev).at(p["time"])
            and untouched(dev, p, except_uid=p["uid"])
            and len(db(dev).alarms) == len(p["before"]) - 1
        )

    def oracle(self, o: Oracle) -> str:
        t = o.p["time"]
        if not db(o.dev).at(t):
            return o.finish()
        s = o.screen
        if o.app == "clock" and isinstance(s, ClockMain) and isinstance(s.dialog, MenuDialog):
            return o.tap(o.find("Delete", role="menuitem"))
        act = clock_tab(o)
        if act is not None:
            return act
        got = show(o, lambda n: n.role == "row" and n.label == f"{t} alarm", (t, 0))
        return got if isinstance(got, str) else o.long_press(got)


class ClockAlarmRepeatingLabelled(TaskTemplate):
    id = "ClockAlarmRepeatingLabelled"
    app = "clock"
    difficulty = "hard"
    template = 'Set an alarm for {time} {repeat}, labelled "{label}".'
    placeholders: ClassVar[dict[str, str]] = {"Time": "time", "Repeat": "repeat", "Label": "label"}
    milestones = (
        Milestone("Open the Clock app", lambda d, p: in_clock(d)),
        Milestone("Create an alarm for <Time>", lambda d, p: bool(db(d).at(p["time"]))),
        Milestone(
            'Label the <Time> alarm "<Label>"', lambda d, p: any(a.label == p["label"] for a in db(d).at(p["time"]))
        ),
        Milestone(
            "Make the <Time> alarm repeat <Repeat>",
            lambda d, p: any(a.label == p["label"] and a.days == tuple(p["days"]) for a in db(d).at(p["time"])),
        ),
    )

    def sample(self, rng: np.random.Generator) -> Params:
        hms = times(rng, 4)
        repeat, days = REPEATS[int(rng.integers(len(REPEATS)))]
        return {
            "time": fmt(hms[0]),
            "others": hms[1 : int(rng.integers(1, 4)) + 1],
            "repeat": repeat,
            "days": days,
            "label": ALARM_LABELS[int(rng.integers(len(ALARM_LABELS)))],
        }

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        populate(dev, rng, p["others"])
        p["before"] = snapshot(dev)

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        new = [a for a in db(dev).alarms if a.uid not in {s[0] for s in p["before"]}]
        return (
            untouched(dev, p)
            and len(new) == 1
            and new[0].time == p["time"]
            and new[0].enabled
            and new[0].label.lower() == p["label"].lower()
            and new[0].days == tuple(p["days"])
        )

    def oracle(self, o: Oracle) -> str:
        p, t = o.p, o.p["time"]
        made = db(o.dev).at(t)
        if not made:
            return add_alarm_step(o, t)
        a = made[0]
        if a.label == p["label"] and a.days == tuple(p["days"]) and a.enabled:
            return o.finish()
        s = o.screen
        if o.app == "clock" and isinstance(s, ClockMain) and isinstance(s.dialog, InputDialog):
            return o.fill("Label", p["label"]) or o.tap(o.find(label="OK", role="textbutton"))
        act = clock_tab(o)
        if act is not None:
            return act
        if not a.enabled:
            return tap_switch(o, t)
        if s.expanded != a.uid:  # only the expanded card shows its label row and day toggles
            return tap_in_list(o, lambda n: n.role == "row" and n.label == f"{t} alarm", (t, 0))
        if a.label != p["label"]:
            return tap_in_list(o, lambda n: n.role == "row" and n.label == f"Label of the {t} alarm", (t, 1))
        day = next(i for i in range(7) if (i in a.days) != (i in p["days"]))
        return tap_in_list(o, lambda n: n.role == "day" and n.label == DAYS[day], (t, 2))


class ClockAlarmTimeQuestion(TaskTemplate):
    id = "ClockAlarmTimeQuestion"
    app = "clock"
    kind = "question"
    template = 'At what time is my alarm labelled "{label}" set? Answer in 24-hour HH:MM format.'
    placeholders: ClassVar[dict[str, str]] = {"Label": "label", "Time": "time"}
    milestones = (
        Milestone("Open the Clock app", lambda d, p: in_clock(d)),
        Milestone("Open the Alarm tab", lambda d, p: on_tab(d, "Alarm")),
    )

    def sample(self, rng: np.random.Generator) -> Params:
        hms = times(rng, 7)
        n = int(rng.integers(3, 8))
        labels = [ALARM_LABELS[int(i)] for i in rng.choice(len(ALARM_LABELS), size=n, replace=False)]
        k = int(rng.integers(n))
        return {"all": hms[:n], "labels": labels, "label": labels[k], "time": fmt(hms[k])}

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        populate(dev, rng, p["all"], p["labels"])

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        """The answer names the labelled alarm's time (24-hour, or 12-hour with am/pm) and no other alarm's."""
        mine = [a for a in db(dev).alarms if a.label == p["label"]]
        if len(mine) != 1:
            return False
        h, m = mine[0].hour, mine[0].minute
        h12, half = f"{(h - 1) % 12 + 1}:{m:02d}", "pm" if h >= 12 else "am"
        ok = [mine[0].time, f"{h}:{m:02d}", f"{h12} {half}", f"{h12}{half}"]
        others = [a.time for a in db(dev).alarms if a.time != mine[0].time]
        return answer_matches(answer, ok) and not any(answer_matches(answer, t) for t in others)

    def oracle(self, o: Oracle) -> str:
        act = clock_tab(o)
        if act is not None:
            return act
        label = o.p["label"]
        card = show(
            o,
            lambda n: n.role == "row" and any(c.rid.endswith(":id/label") and c.text == label for c in n.children),
            (o.p["time"], 0),
            min_h=ALARM_H,
        )
        if isinstance(card, str):
            return card
        return o.answer(next(c.text for c in card.children if c.rid.endswith(":id/digital_clock")))


TEMPLATES: tuple[type[TaskTemplate], ...] = (
    ClockAlarmAdd,
    ClockAlarmTurnOff,
    ClockAlarmDelete,
    ClockAlarmRepeatingLabelled,
    ClockAlarmTimeQuestion,
)
