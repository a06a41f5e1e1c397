"""Success is judged on app state, not on what the screen shows."""

from __future__ import annotations

from _util import find_el, make, tap

from gui_gym.android.sim.apps.contacts.app import ContactEditor


def _oracle_until(env, info: dict, stop) -> dict:
    """Step the oracle until ``stop(next_action, info)`` is true; returns the last info."""
    for _ in range(60):
        a = env.unwrapped.oracle_action()
        if stop(a, info):
            return info
        _, _, term, trunc, info = env.step(a)
        assert info["format_valid"] and not term and not trunc, info
    raise AssertionError("the stop condition never held")


def tap_on(desc: str):
    """Stop condition: the oracle is about to tap the element described ``desc``."""

    def stop(a: str, info: dict) -> bool:
        els = [e for e in info["ui_elements"] if e.content_description == desc]
        return bool(els) and a == tap(els[0])

    return stop


def _contact_saved(env) -> bool:
    p = env.unwrapped.params
    return any(c.name == p["name"] for c in env.unwrapped.device.data("contacts").contacts)


def test_add_contact_filled_editor_then_finish_fails() -> None:
    env = make("ContactsAddContact")
    _, info = env.reset(seed=0)
    info = _oracle_until(env, info, tap_on("Save"))
    screen = env.unwrapped.device.top_screen()
    p = env.unwrapped.params
    assert isinstance(screen, ContactEditor)
    assert (screen.form["first"], screen.form["last"], screen.form["phone"]) == (p["first"], p["last"], p["number"])
    assert 0.5 < info["progress"] < 1.0  # every milestone but "Save"
    _, reward, term, _, info = env.step('finish(message="I created the contact")')
    assert term and info["success"] is False and reward == 0.0
    assert not _contact_saved(env)


def test_add_contact_discarded_then_finish_fails() -> None:
    env = make("ContactsAddContact")
    _, info = env.reset(seed=1)
    _oracle_until(env, info, tap_on("Save"))
    _, _, _, _, info = env.step('do(action="Back")')  # hides the keyboard
    assert info["format_valid"]
    _, _, _, _, info = env.step(tap(find_el(info, content_description="Navigate up")))  # discards the form
    assert info["format_valid"]
    assert not isinstance(env.unwrapped.device.top_screen(), ContactEditor)
    _, reward, term, _, info = env.step("finish()")
    assert term and info["success"] is False and reward == 0.0
    assert not _contact_saved(env)


def test_edit_phone_typed_but_not_saved_fails() -> None:
    env = make("ContactsEditPhone")
    _, info = env.reset(seed=2)
    _oracle_until(env, info, tap_on("Save"))
    p = env.unwrapped.params
    screen = env.unwrapped.device.top_screen()
    assert isinstance(screen, ContactEditor) and screen.form["phone"] == p["phone"]
    _, reward, term, _, info = env.step("finish()")
    assert term and info["success"] is False and reward == 0.0


def test_delete_cancelled_fails() -> None:
    env = make("ContactsDeleteContact")
    _, info = env.reset(seed=0)
    name = env.unwrapped.params["name"]
    # the oracle opens the confirmation dialog; we cancel it
    info = _oracle_until(env, info, lambda a, i: any(e.text == "CANCEL" for e in i["ui_elements"]))
    _, _, _, _, info = env.step(tap(find_el(info, text="CANCEL")))
    assert info["format_valid"], info
    assert any(c.name == name for c in env.unwrapped.device.data("contacts").contacts)
    _, reward, term, _, info = env.step("finish()")
    assert term and info["success"] is False and reward == 0.0


def test_favourite_toggled_twice_fails() -> None:
    env = make("ContactsFavorite")
    _, info = env.reset(seed=3)
    info = _oracle_until(env, info, tap_on("Add to favourites"))
    _, _, _, _, info = env.step(tap(find_el(info, content_description="Add to favourites")))
    _, _, _, _, info = env.step(tap(find_el(info, content_description="Remove from favourites")))
    assert info["format_valid"]
    _, _, term, _, info = env.step("finish()")
    assert term and info["success"] is False
