"""AndroidWorld's Contacts tasks on the simulated phone: the oracle solves seeds 0-29 through the
env, idling fails, near misses fail, the provider answers AndroidWorld's query, and the editor's
screen is judged as AndroidWorld's ``contacts.py`` judges it."""

from __future__ import annotations

import random
import re
from collections.abc import Callable

import gymnasium as gym
import pytest

import gui_gym  # noqa: F401  (registers GuiAndroid-v0)
from gui_gym.android.forest import BoundingBox, UIElement
from gui_gym.android.sim.adb.shell import Shell
from gui_gym.android.sim.apps.contacts.androidworld import (
    ContactsAddContact,
    ContactsNewContactDraft,
    all_elements,
    contact_info_entered,
)
from gui_gym.android.sim.apps.contacts.app import Contact, ContactEditor, ContactsData
from gui_gym.android.sim.tasks.androidworld import FAMILY_NAMES, GIVEN_NAMES

TASK_IDS = ("ContactsAddContact", "ContactsNewContactDraft")
QUERY = "content query --uri content://contacts/phones/ --projection display_name:number"


def _env(task_id: str) -> gym.Env:
    return gym.make("GuiAndroid-v0", task=task_id)


def _reset(env: gym.Env, seed: int) -> dict:
    _, info = env.reset(options={"params": {"seed": seed}})
    return info


def _tap_action(env: gym.Env, **kw: str) -> str | None:
    """The tap on the first element whose attributes are ``kw`` (``None`` if none shows)."""
    node = next((n for n in env.unwrapped.device.elements() if all(getattr(n, k) == v for k, v in kw.items())), None)
    return None if node is None else f'do(action="Tap", element=[{",".join(map(str, node.bounds))}])'


def _oracle(env: gym.Env, until: Callable[[str], bool] | None = None) -> dict:
    """Step the oracle to the end, or up to (not including) its first action ``until`` accepts."""
    info: dict = {}
    for _ in range(60):
        action = env.unwrapped.oracle_action()
        if until is not None and until(action):
            return info
        _, _, term, trunc, info = env.step(action)
        if term or trunc:
            return info
    raise AssertionError("the oracle did not end")


def _tap(env: gym.Env, **kw: str) -> dict:
    action = _tap_action(env, **kw)
    assert action is not None, kw
    _, _, _, _, info = env.step(action)
    assert info["format_valid"], info
    return info


def _finishing(action: str) -> bool:
    return action.startswith("finish")


def _listed(env: gym.Env) -> list[tuple[str, str]]:
    """contacts_utils.list_contacts over the served phone's shell: (name, digits of number)."""
    out = Shell(env.unwrapped.device).run(QUERY).stdout.decode()
    return [(m.group(1), re.sub(r"\D", "", m.group(2))) for m in re.finditer(r"display_name=(.*), number=(.*)", out)]


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_oracle_solves_every_seed(task_id: str) -> None:
    env = _env(task_id)
    for seed in range(30):
        _reset(env, seed)
        info = _oracle(env)
        assert info["success"] is True, f"{task_id} seed {seed}"
        assert info["progress"] == 1.0, f"{task_id} seed {seed}"
        if task_id == "ContactsAddContact":
            p = env.unwrapped.params
            assert _listed(env) == [(p["name"], re.sub(r"\D", "", p["number"]))]


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_idle_fails(task_id: str) -> None:
    env = _env(task_id)
    for seed in range(3):
        _reset(env, seed)
        _, reward, term, _, info = env.step("finish()")
        assert term and info["success"] is False and reward == 0.0


def test_add_contact_starts_with_an_empty_provider() -> None:
    """AddContact.initialize_task: ``pm clear com.android.providers.contacts``."""
    env = _env("ContactsAddContact")
    _reset(env, 3)
    assert env.unwrapped.device.data("contacts").contacts == []
    assert Shell(env.unwrapped.device).run(QUERY).stdout == b"No result found.\n"


def test_add_contact_near_misses_fail() -> None:
    env = _env("ContactsAddContact")
    task = ContactsAddContact()
    _reset(env, 0)
    dev, p = env.unwrapped.device, env.unwrapped.params
    book: ContactsData = dev.data("contacts")
    # One digit off, the name in another case, the first name only: no.
    wrong = p["number"][:-1] + str((int(p["number"][-1]) + 1) % 10)
    for first, last, number in (
        (p["first"], p["last"], wrong),
        (p["first"].lower(), p["last"], p["number"]),
        (p["first"], "", p["number"]),
    ):
        book.contacts.clear()
        book.add(Contact(first, last, number))
        assert not task.check(dev, p, None, "complete"), (first, last, number)
    # The number written another way (digits compared, ``clean_phone_number``): yes.
    book.contacts.clear()
    digits = re.sub(r"\D", "", p["number"])
    book.add(Contact(p["first"], p["last"], f"+{digits[0]} ({digits[1:4]}) {digits[4:7]}-{digits[7:]}"))
    assert task.check(dev, p, None, "complete")
    # The form filled but not saved: no.
    book.contacts.clear()
    _reset(env, 0)
    _oracle(env, until=lambda a: a == _tap_action(env, desc="Save"))
    assert isinstance(env.unwrapped.device.top_screen(), ContactEditor)
    _, _, term, _, info = env.step("finish()")
    assert term and info["success"] is False


def test_add_contact_draws_are_androidworlds() -> None:
    # contacts_validators.AddContact.generate_random_params: generate_random_name() draws a family
    # name, then a given name (user_data_generation.py); generate_random_number() "+1" and ten
    # digits, each random.choice(string.digits).
    r = random.Random(0)
    family, given = r.choice(FAMILY_NAMES), r.choice(GIVEN_NAMES)
    number = "+1" + "".join(r.choice("0123456789") for _ in range(10))
    assert (f"{given} {family}", number) == ("Louis Lopez", "+10487647593")
    p = ContactsAddContact().sample_seed(0)
    assert (p["name"], p["number"], p["first"], p["last"]) == ("Louis Lopez", "+10487647593", "Louis", "Lopez")


def test_draft_near_misses_fail() -> None:
    env = _env("ContactsNewContactDraft")
    # The details entered, the label left at Mobile: no.
    _reset(env, 0)
    _oracle(env, until=lambda a: a == _tap_action(env, label="Phone label"))
    task, dev, p = env.unwrapped.task, env.unwrapped.device, env.unwrapped.params
    assert p["phone_label"] != "Mobile" and not task.check(dev, p, None, None)
    # All entered, then saved ("Do NOT hit save"): the form is gone, so no.
    _reset(env, 0)
    _oracle(env, until=_finishing)
    assert env.unwrapped.task.check(env.unwrapped.device, env.unwrapped.params, None, None)
    _tap(env, desc="Save")
    _, _, term, _, info = env.step("finish()")
    assert term and info["success"] is False
    # All entered, the other label chosen: no.
    _reset(env, 1)
    _oracle(env, until=_finishing)
    other = "Home" if env.unwrapped.params["phone_label"] == "Work" else "Work"
    _tap(env, label="Phone label")
    _tap(env, text=other, role="menuitem")
    _, _, term, _, info = env.step("finish()")
    assert term and info["success"] is False


def test_draft_fields_keep_their_hints_and_the_label_reads_as_androidworld_expects() -> None:
    env = _env("ContactsNewContactDraft")
    _reset(env, 0)
    _oracle(env, until=_finishing)
    p = env.unwrapped.params
    els = all_elements(env.unwrapped.device)
    hinted = {e.hint_text: e.text for e in els if e.hint_text}
    assert hinted["First name"] == p["first"] and hinted["Last name"] == p["last"] and hinted["Phone"] == p["phone"]
    assert hinted["Company"] == "Company" and hinted["Email"] == "Email"  # empty fields read their hint
    label = next(e for e in els if e.content_description == f"{p['phone_label']} Phone")
    assert label.text == p["phone_label"]


def test_draft_draws_and_rule_are_androidworlds() -> None:
    # contacts.py ContactsNewContactDraft.generate_random_params: choice of first, of last,
    # "{randint(100,999)}-{randint(100,999)}-{randint(1000,9999)}", choice of ["Home", "Work"].
    r = random.Random(0)
    first, last = r.choice(ContactsNewContactDraft.FIRST_NAMES), r.choice(ContactsNewContactDraft.LAST_NAMES)
    phone = f"{r.randint(100, 999)}-{r.randint(100, 999)}-{r.randint(1000, 9999)}"
    want = {"first": first, "last": last, "phone": phone, "phone_label": r.choice(["Home", "Work"])}
    assert want == {"first": "Grace", "last": "Lee", "phone": "141-365-9376", "phone_label": "Work"}
    assert ContactsNewContactDraft().sample_seed(0) == {**want, "seed": 0}
    # _contact_info_is_entered: names fuzzy-matched (ratio >= 0.9, any case), the phone by its
    # digits, and the label without its description found just below the phone field
    # (_vertically_adjacent: phone.y_max <= label.y_min <= phone.y_max + phone.height).
    phone_box = BoundingBox(0, 500, 800, 950)
    els = [
        UIElement(text="grace", hint_text="First name"),
        UIElement(text="Lee", hint_text="Last name"),
        UIElement(text="(141) 365-9376", hint_text="Phone", bbox_pixels=phone_box),
        UIElement(text="Work", bbox_pixels=BoundingBox(0, 300, 1100, 1200)),
    ]
    assert contact_info_entered(els, "Grace", "Lee", "141-365-9376", "Work")
    far = [*els[:3], UIElement(text="Work", bbox_pixels=BoundingBox(0, 300, 1101, 1200))]
    assert not contact_info_entered(far, "Grace", "Lee", "141-365-9376", "Work")
    described = [*els[:3], UIElement(text="Work", content_description="Work Phone")]
    assert contact_info_entered(described, "Grace", "Lee", "141-365-9376", "Work")
    unhinted = [UIElement(text="Grace"), *els[1:]]
    assert not contact_info_entered(unhinted, "Grace", "Lee", "141-365-9376", "Work")
