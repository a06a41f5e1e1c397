"""Milestone predicates credit the named target only: another alarm's, task's or contact's
options or editor, a folder named like the note, deleting instead of turning off do not count."""

from __future__ import annotations

import posixpath
from collections.abc import Callable

import pytest
from _util import make

from gui_gym.android.actions import Action, format_action
from gui_gym.android.sim.tasks.base import Oracle
from gui_gym.android.ui import Node

SEEDS = (0, 1, 2)


def nodes(env) -> list[Node]:
    return env.unwrapped.device.elements()


def node(env, pred: Callable[[Node], bool]) -> Node:
    found = [n for n in nodes(env) if pred(n)]
    assert found, "no such node on the screen"
    return found[0]


def tap(n: Node) -> str:
    return format_action(Action("tap", element=tuple(n.bounds)))


def long_press(n: Node) -> str:
    return format_action(Action("long_press", element=tuple(n.bounds)))


def up_to(env, seed: int, text: str) -> tuple[bytes, str]:
    """Run the oracle of a fresh episode until its next step reports the milestone ``text``;
    returns the snapshot before that step and the step's action."""
    env.reset(seed=seed)
    for _ in range(100):
        snap, action = env.unwrapped.snapshot(), env.unwrapped.oracle_action()
        *_, term, trunc, info = env.step(action)
        if text in info["milestones"]:
            return snap, action
        assert not (term or trunc), f"the oracle ended without reaching {text!r}"
    raise AssertionError(f"the oracle did not reach {text!r}")


def milestone(env, k: int) -> str:
    return env.unwrapped.task.milestone_texts(env.unwrapped.params)[k]


def play(env, *actions: str | Callable[[], str]) -> list[str]:
    """Execute ``actions`` (texts, or callables giving one from the current screen); the
    milestones they reported."""
    got = []
    for a in actions:
        *_, term, trunc, info = env.step(a() if callable(a) else a)
        assert info["format_valid"], info.get("reason")
        got += info["milestones"]
        if term or trunc:
            break
    return got


def fill(env, label: str, value: str) -> list[str]:
    """Make the field ``label`` hold ``value`` (focus, clear, type); the milestones reported."""
    got = []
    while (act := Oracle(env.unwrapped.device, env.unwrapped.params).fill(label, value)) is not None:
        got += play(env, act)
    return got


def right_action_reaches(env, snap: bytes, action: str, text: str) -> None:
    env.unwrapped.restore(snap)
    *_, info = env.step(action)
    assert text in info["milestones"]


def row(label: str) -> Callable[[Node], bool]:
    return lambda n: n.role == "row" and n.label == label


def other_row(label: str, suffix: str = "") -> Callable[[Node], bool]:
    """A whole list row (not cut by an edge) of another item than ``label``."""
    return lambda n: (
        n.role == "row" and n.label != label and n.label.endswith(suffix) and n.bounds[3] - n.bounds[1] >= 150
    )


# ----------------------------------------------------------------------------- Clock


@pytest.mark.parametrize("seed", SEEDS)
def test_clock_options_of_another_alarm_do_not_count(seed: int) -> None:
    env = make("ClockAlarmDelete")
    env.reset(seed=seed)
    text, t = milestone(env, 1), env.unwrapped.params["time"]
    assert text == f"Open the options of the {t} alarm"
    snap, action = up_to(env, seed, text)
    assert action.startswith('do(action="Long Press"')
    env.unwrapped.restore(snap)
    other = node(env, other_row(f"{t} alarm", " alarm"))
    assert play(env, long_press(other)) == []  # another alarm's long-press menu
    assert env.unwrapped.device.top_screen().dialog is not None
    env.unwrapped.restore(snap)
    assert play(env, tap(other)) == []  # another alarm's card expanded (its Delete button)
    env.unwrapped.restore(snap)
    assert play(env, lambda: tap(node(env, row(f"{t} alarm")))) == [text]  # its own card expanded
    right_action_reaches(env, snap, action, text)


@pytest.mark.parametrize("seed", SEEDS)
def test_clock_deleting_the_alarm_is_not_turning_it_off(seed: int) -> None:
    env = make("ClockAlarmTurnOff")
    env.reset(seed=seed)
    text, t = milestone(env, 1), env.unwrapped.params["time"]
    assert text == f"Turn off the {t} alarm"
    snap, action = up_to(env, seed, text)
    env.unwrapped.restore(snap)
    got = play(
        env,
        lambda: long_press(node(env, row(f"{t} alarm"))),
        lambda: tap(node(env, lambda n: n.role == "menuitem" and n.text == "Delete")),
    )
    assert not env.unwrapped.device.data("clock").at(t), "the alarm was not deleted"
    assert text not in got
    right_action_reaches(env, snap, action, text)


# ----------------------------------------------------------------------------- Tasks


@pytest.mark.parametrize("seed", SEEDS)
def test_tasks_options_of_another_task_do_not_count(seed: int) -> None:
    env = make("TasksDeleteTask")
    env.reset(seed=seed)
    text, title = milestone(env, 1), env.unwrapped.params["title"]
    assert text == f"Open the options for {title}"
    snap, action = up_to(env, seed, text)
    env.unwrapped.restore(snap)
    other = node(env, other_row(title))
    assert play(env, long_press(other)) == []  # another task's long-press menu
    assert play(env, lambda: tap(node(env, lambda n: n.role == "menuitem" and n.text == "Delete"))) == []
    assert "Delete task?" in [n.text for n in nodes(env)]  # its delete confirmation
    env.unwrapped.restore(snap)
    assert play(env, lambda: tap(node(env, lambda n: n.desc == "More options"))) == []  # the list's menu
    env.unwrapped.restore(snap)
    got = play(  # the priority menu in another task's editor, then its Delete confirmation
        env,
        tap(other),
        lambda: tap(node(env, row("Priority"))),
        'do(action="Back")',
        lambda: tap(node(env, lambda n: n.desc == "Delete task")),
    )
    assert got == []
    env.unwrapped.restore(snap)  # the Delete confirmation of <Title>'s own editor counts
    got = play(env, lambda: tap(node(env, row(title))), lambda: tap(node(env, lambda n: n.desc == "Delete task")))
    assert got == [text]
    right_action_reaches(env, snap, action, text)


@pytest.mark.parametrize("seed", SEEDS)
def test_tasks_long_press_menu_is_not_the_list_menu(seed: int) -> None:
    env = make("TasksClearCompleted")
    env.reset(seed=seed)
    text = milestone(env, 1)
    assert text == "Open the menu of the task list"
    snap, action = up_to(env, seed, text)
    env.unwrapped.restore(snap)
    assert play(env, lambda: long_press(node(env, other_row("")))) == []
    assert env.unwrapped.device.top_screen().dialog is not None
    right_action_reaches(env, snap, action, text)


@pytest.mark.parametrize("seed", SEEDS)
def test_tasks_unchecking_the_completed_tasks_is_not_deleting_them(seed: int) -> None:
    env = make("TasksClearCompleted")
    env.reset(seed=seed)
    done_text = milestone(env, 2)
    snap, _ = up_to(env, seed, milestone(env, 1))
    env.unwrapped.restore(snap)
    got = play(
        env,
        lambda: tap(node(env, lambda n: n.desc == "More options")),
        lambda: tap(node(env, lambda n: n.role == "menuitem" and n.text == "Show completed")),
    )
    assert got == [milestone(env, 1)]  # the list's own menu
    for _ in range(10):  # un-check every completed task
        boxes = [n for n in nodes(env) if n.role == "checkbox" and n.checked]
        if not boxes:
            break
        got += play(env, tap(boxes[0]))
    assert not any(t.completed for t in env.unwrapped.device.data("tasks").tasks)
    assert done_text not in got
    *_, info = env.step("finish()")
    assert info["success"] is False


# ----------------------------------------------------------------------------- Contacts


@pytest.mark.parametrize("seed", SEEDS)
def test_contacts_editing_another_contact_does_not_count(seed: int) -> None:
    env = make("ContactsEditPhone")
    env.reset(seed=seed)
    p = env.unwrapped.params
    text, phone_text = milestone(env, 2), milestone(env, 3)
    assert text == f"Edit the contact {p['name']}"
    snap, action = up_to(env, seed, text)
    env.unwrapped.restore(snap)  # the detail page of <Name>: go to someone else's editor instead
    other = [
        'do(action="Back")',
        lambda: tap(node(env, other_row(p["name"]))),
        lambda: tap(node(env, lambda n: n.desc == "Edit contact")),
    ]
    got = play(env, *other)
    assert text not in got
    right_action_reaches(env, snap, action, text)
    # <Name>'s editor was open: typing the number into another contact's editor does not count
    env.step('do(action="Back")')  # discard
    got = play(env, *other) + fill(env, "Phone", p["phone"])
    assert phone_text not in got


# ----------------------------------------------------------------------------- Markor


@pytest.mark.parametrize("task_id", ["MarkorCreateNote", "MarkorCreateNoteInFolder"])
@pytest.mark.parametrize("seed", SEEDS)
def test_markor_a_folder_named_like_the_note_is_not_the_note(task_id: str, seed: int) -> None:
    env = make(task_id)
    env.reset(seed=seed)
    k = 2 if task_id == "MarkorCreateNote" else 3
    text = milestone(env, k)
    p = env.unwrapped.params
    name = p.get("file_name", p.get("name"))  # AndroidWorld's MarkorCreateNote calls it file_name
    assert text.startswith(f"Create the note {name}")
    snap, action = up_to(env, seed, text)
    env.unwrapped.restore(snap)  # the new-file dialog with the name typed in: "Folder" instead of "OK"
    got = play(env, lambda: tap(node(env, lambda n: n.role == "textbutton" and n.label == "Folder")))
    # Markor's Folder button makes a folder of the Name field alone (the extension field is for files).
    path = p.get("path", name)
    notes = env.unwrapped.device.data("markor")
    entry = notes.get(path) or notes.get(posixpath.splitext(path)[0])
    assert entry is not None and entry.is_dir
    assert text not in got
    right_action_reaches(env, snap, action, text)
