"""AndroidWorld's Simple SMS Messenger tasks on the simulated phone (``apps/messages/androidworld.py``):
the oracle solves AndroidWorld's instances 0-29, doing nothing fails, near misses fail, and the
judging follows ``sms_validators`` (its row parser, its exact address rule, its five minutes)."""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

import gymnasium as gym
import pytest

import gui_gym  # noqa: F401  (registers GuiAndroid-v0)
from gui_gym.android.actions import Action, format_action
from gui_gym.android.sim.apps.messages.androidworld import GLITCH, sent_rows, was_sent
from gui_gym.android.sim.apps.messages.app import ThreadScreen, compose
from gui_gym.android.sim.apps.messages.storage import SENT, decode, encode, parse_row, query, sms_rows
from gui_gym.android.sim.tasks import TASKS
from gui_gym.android.sim.tasks.androidworld import SENTENCES, random_number

SEEDS = range(30)
PASTE = "SimpleSmsSendClipboardContent"
TYPED = [
    "SimpleSmsSend",
    "SimpleSmsReply",
    "SimpleSmsReplyMostRecent",
    "SimpleSmsResend",
    "SimpleSmsSendReceivedAddress",
]
ALL = [*TYPED, PASTE]


def _env(task_id: str) -> gym.Env:
    return gym.make("GuiAndroid-v0", task=task_id)


def _reset(env: gym.Env, seed: int, **params: Any) -> Any:
    env.reset(options={"params": {"seed": seed, **params}})
    return env.unwrapped


def _run_oracle(env: gym.Env, seed: int, **params: Any) -> tuple[bool, list[str]]:
    u = _reset(env, seed, **params)
    actions = []
    while True:
        a = u.oracle_action()
        _, _, term, trunc, info = env.step(a)
        actions.append(a)
        assert info["format_valid"], (seed, a, info.get("reason"))
        if term or trunc:
            return bool(info["success"]), actions


def _act(env: gym.Env, action: Any) -> dict:
    _, _, _, _, info = env.step(action)
    return info


def _oracle_until(env: gym.Env, done: Any) -> None:
    """Step the oracle until ``done(device)`` holds (the episode goes on)."""
    u = env.unwrapped
    for _ in range(40):
        if done(u.device):
            return
        env.step(u.oracle_action())
    raise AssertionError("the oracle never got there")


def _thread(dev: Any) -> ThreadScreen:
    s = dev.top_screen()
    assert isinstance(s, ThreadScreen)
    return s


@pytest.mark.parametrize("task_id", TYPED)
def test_the_oracle_solves_androidworlds_instances(task_id: str) -> None:
    env = _env(task_id)
    for seed in SEEDS:
        ok, actions = _run_oracle(env, seed)
        assert ok, (seed, actions)
        assert len(actions) <= 12, (seed, actions)


def test_the_oracle_pastes_the_clipboard() -> None:
    """Long press on "Type a message", then "Paste" (the phone's text field menu)."""
    env = _env(PASTE)
    for seed in SEEDS:
        ok, actions = _run_oracle(env, seed)
        assert ok, (seed, actions)
        assert any("Long Press" in a for a in actions), actions


@pytest.mark.parametrize("task_id", ALL)
def test_doing_nothing_fails(task_id: str) -> None:
    env = _env(task_id)
    for seed in range(3):
        _reset(env, seed)
        info = _act(env, "finish()")
        assert info["success"] is False, seed


def test_start_states_are_androidworlds() -> None:
    """Worked from ``sms.py``: Resend leaves the thread it sent from in front (``send_sms`` taps
    "SMS" there) with the contact's question under it; ReceivedAddress adds two contacts and one
    unread text; the clipboard task only fills the clipboard."""
    u = _reset(_env("SimpleSmsResend"), 0)
    dev, p = u.device, u.params
    assert (p["name"], p["number"], p["message"]) == ("Louis Lopez", "+10487647593", "Better late than never.")
    thread = _thread(dev)
    assert thread.number == p["number"] and dev.state.foreground == "messages"
    assert [(m.incoming, m.text) for m in dev.data("messages").get(p["number"]).messages] == [
        (False, p["message"]),
        (True, GLITCH),
    ]
    assert p["sent_before"] == [[p["number"], p["message"]]]
    assert [(c.first, c.last, c.phone) for c in dev.data("contacts").contacts] == [("Louis", "Lopez", p["number"])]

    u = _reset(_env("SimpleSmsSendReceivedAddress"), 0)
    dev, p = u.device, u.params
    assert [c.name for c in dev.data("contacts").contacts] == ["Louis Lopez", "Hana Ali"]
    (conv,) = dev.data("messages").conversations
    assert conv.number == p["number2"] and [m.text for m in conv.messages] == ["1415 W Cedar Ave Denver, CO, 80223"]
    assert not conv.messages[0].read and dev.state.foreground is None

    u = _reset(_env(PASTE), 1)
    assert u.device.state.clipboard == "Pick up groceries: Milk and Bread and Apples."
    assert u.device.data("messages").conversations == []


def test_replys_texts_are_drawn_as_androidworld_draws_them() -> None:
    """``SimpleSmsReply.initialize_task`` after ``random.seed(0)``: rounds = randint(1, 5); each
    round, while the number has not texted, a coin flip decides whether it does now, then a
    random number texts a random sentence; the number texts last if no flip came up."""
    r = random.Random(0)
    number = random_number(r)
    r.choice(SENTENCES)  # the reply, drawn by generate_random_params
    r = random.Random(0)
    want, texted = [], False
    for _ in range(r.randint(1, 5)):
        if not texted and r.choice([True, False]):
            want.append((number, r.choice(SENTENCES)))
            texted = True
        other = random_number(r)
        want.append((other, r.choice(SENTENCES)))
    if not texted:
        want.append((number, r.choice(SENTENCES)))
    dev = _reset(_env("SimpleSmsReply"), 0).device
    rows = sorted(sms_rows(dev.data("messages")), key=lambda row: row["_id"])
    assert [(row["address"], row["body"]) for row in rows] == want
    assert want[0] == ("+10487647593", "Better late than never.")  # what AndroidWorld's code gives for seed 0
    assert len({row["date"] for row in rows}) == len(rows)  # one at a time: distinct times, in order


def test_the_row_parser_and_the_address_rule_are_androidworlds() -> None:
    """``sms_validators.parse_message``: the body runs to the last ", " before the next "=", so an
    address with commas survives; ``was_sent`` compares addresses exactly after removing dashes
    and spaces, so "6604876475" is not "+16604876475"."""
    line = "Row: 0 _id=3, address=+1 660-487-6475, body=1415 W Cedar Ave Denver, CO, 80223, service_center=NULL"
    row = parse_row(line)
    assert row["body"] == "1415 W Cedar Ave Denver, CO, 80223" and row["service_center"] == "NULL"
    assert row["address"].replace("-", "").replace(" ", "") == "+16604876475"
    for address, body, judged in (
        ("6604876475", "The squeaky wheel gets the grease.", False),
        ("+1 660-487-6475", "the squeaky wheel gets the grease", True),  # fuzzy: case, a full stop
        ("+16604876475", "The squeaky wheel gets the grease!!! Really.", False),  # ratio < 0.9
    ):
        dev = _reset(_env("SimpleSmsSend"), 0).device
        dev.data("messages").add(address, body, False, dev.state.now)
        assert was_sent(dev, "+16604876475", "The squeaky wheel gets the grease.") is judged, address


def _send_here(env: gym.Env, text: str) -> None:
    """Type ``text`` into the open thread's message field and tap "SMS"."""
    dev = env.unwrapped.device
    field = next(n for n in dev.elements() if n.field is not None and n.label == "Type a message")
    _act(env, format_action(Action("tap", element=field.bounds)))
    _act(env, format_action(Action("input_text", text=text, clear=True), "androidworld"))
    button = next(n for n in dev.elements() if n.rid.endswith(":id/thread_send_message"))
    assert button.text == "SMS" and button.enabled
    info = _act(env, format_action(Action("tap", element=button.bounds)))
    assert info["format_valid"], info.get("reason")


def _new_thread(env: gym.Env, number: str) -> None:
    compose(env.unwrapped.device, number)


def test_near_misses_fail() -> None:
    env = _env("SimpleSmsSend")
    u = _reset(env, 0)
    p = u.params
    task = TASKS["SimpleSmsSend"]
    _new_thread(env, p["number"][2:])  # the number without +1: another address
    _send_here(env, p["message"])
    assert not task.check(u.device, p, None, "complete")
    # (the app keeps that thread's address for the same number written with +1: start afresh)
    u = _reset(env, 0)
    _new_thread(env, p["number"])
    _send_here(env, "The squeaky wheel gets oiled.")  # another text
    assert not task.check(u.device, p, None, "complete")
    _send_here(env, p["message"])
    assert task.check(u.device, p, None, "complete")
    _act(env, 'do(action="Home")')  # sent, but the app is not in front
    assert not task.check(u.device, p, None, "complete")
    _act(env, 'do(action="Launch", app="Simple SMS Messenger")')
    assert task.check(u.device, p, None, "complete")
    u.device.state.now += dt.timedelta(minutes=5, seconds=1)  # sent over five minutes ago
    assert not task.check(u.device, p, None, "complete")

    # Reply to someone else: the newest text's sender is the asked one, an older one is not.
    env = _env("SimpleSmsReplyMostRecent")
    u = _reset(env, 0)
    p = u.params
    older = next(c.number for c in u.device.data("messages").conversations if c.number != p["number"])
    _new_thread(env, older)
    _send_here(env, p["message"])
    assert not TASKS["SimpleSmsReplyMostRecent"].check(u.device, p, None, "complete")

    # A text on screen starting with "Sending" fails the episode (AndroidWorld raises).
    env = _env("SimpleSmsReply")
    u = _reset(env, 0)
    p = u.params
    _new_thread(env, p["number"])
    _send_here(env, p["message"])
    assert TASKS["SimpleSmsReply"].check(u.device, p, None, "complete")
    _thread(u.device).form["msg"] = "Sending you more soon"
    u.device.invalidate()
    assert not TASKS["SimpleSmsReply"].check(u.device, p, None, "complete")

    # The address to the one who sent it, not to name1.
    env = _env("SimpleSmsSendReceivedAddress")
    u = _reset(env, 0)
    p = u.params
    _new_thread(env, p["number2"])
    _send_here(env, p["message"])
    assert not TASKS["SimpleSmsSendReceivedAddress"].check(u.device, p, None, "complete")


def test_resend_counts_sent_rows() -> None:
    """``SimpleSmsResend.is_successful``: one more sent row than after set-up, the newest equal
    to the set-up's; another text or the message twice fails."""
    task = TASKS["SimpleSmsResend"]
    for extra in (["Hello"], ["Better late than never.", "Better late than never."]):
        env = _env("SimpleSmsResend")
        u = _reset(env, 0)
        for text in extra:
            _send_here(env, text)
        assert not task.check(u.device, u.params, None, "complete"), extra
    env = _env("SimpleSmsResend")
    u = _reset(env, 0)
    _send_here(env, "better late than never")
    _act(env, 'do(action="Home")')  # Resend has no foreground rule
    assert task.check(u.device, u.params, None, "complete")
    assert [r["body"] for r in sent_rows(u.device)] == ["better late than never", "Better late than never."]


def test_two_contacts_of_one_name_the_oracle_picks_the_number() -> None:
    """``generate_random_name(excluding=name1)`` excludes nothing: name2 may be name1."""
    env = _env("SimpleSmsSendReceivedAddress")
    ok, _ = _run_oracle(env, 0, name2="Louis Lopez")
    assert ok
    p = env.unwrapped.params
    assert was_sent(env.unwrapped.device, p["number"], p["message"])
    assert not any(r["address"] == p["number2"] for r in sent_rows(env.unwrapped.device))


def test_rows_are_the_providers() -> None:
    """Each message is one ``sms`` row; received texts are unread until their thread shows; the
    database file reads back as the same messages."""
    env = _env("SimpleSmsReply")
    u = _reset(env, 0)
    data = u.device.data("messages")
    rows = sms_rows(data)
    assert [r["_id"] for r in rows] == sorted((r["_id"] for r in rows), reverse=True)  # newest first
    assert {r["type"] for r in rows} == {1} and {r["read"] for r in rows} == {0}
    assert sms_rows(data, SENT) == []
    ok, _ = _run_oracle(env, 0)
    assert ok
    data = u.device.data("messages")
    newest = sms_rows(data)[0]
    assert (newest["type"], newest["address"], newest["body"]) == (2, u.params["number"], u.params["message"])
    assert all(r["read"] == 1 for r in sms_rows(data) if r["address"] == u.params["number"])
    text = query(sms_rows(data, SENT), ("_id", "address", "body", "date"))
    assert text.startswith("Row: 0 _id=") and parse_row(text)["body"] == u.params["message"]
    back = decode(encode(data))
    assert sms_rows(back) == sms_rows(data)
