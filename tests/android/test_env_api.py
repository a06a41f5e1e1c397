"""The Gymnasium API of GuiAndroid-v0: spaces, checker, observations, info, errors, task selection."""

from __future__ import annotations

import re
import warnings
import zlib

import gymnasium as gym
import numpy as np
import pytest
from _util import (
    TASK_IDS,
    check_elements,
    check_ui_xml,
    find_el,
    index_of,
    make,
    oracle_episode,
    random_action,
    tap,
)
from gymnasium.utils.env_checker import check_env

from gui_gym.android.env import GuiAndroidEnv, UIElement
from gui_gym.android.forest import element_box
from gui_gym.android.sim.tasks import TASKS

SMALL = (108, 240)
INFO_KEYS = {"task_id", "instruction", "format_valid", "action_description", "milestones", "progress", "ui_elements"}


@pytest.mark.parametrize("render_mode", ["rgb_array", "ansi"])
@pytest.mark.parametrize("obs_mode", ["text", "pixels", "both"])
def test_check_env(obs_mode: str, render_mode: str) -> None:
    env = make("ContactsAddContact", obs_mode=obs_mode, screen_size=SMALL, render_mode=render_mode)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a checker warning is a failure too
        check_env(env.unwrapped)
    env.close()


def test_check_env_with_task_pool() -> None:
    env = make(
        ["ContactsAddContact", "ContactsFavorite", "ContactsDeleteContact"],
        obs_mode="both",
        screen_size=SMALL,
        render_mode="rgb_array",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)


@pytest.mark.parametrize(
    "obs_mode, keys",
    [("text", {"instruction", "ui"}), ("pixels", {"instruction", "screen"}), ("both", {"instruction", "ui", "screen"})],
)
def test_reset_and_step_types_and_keys(obs_mode: str, keys: set) -> None:
    env = make("ContactsAddContact", obs_mode=obs_mode, screen_size=SMALL)
    assert set(env.observation_space.spaces) == keys
    obs, info = env.reset(seed=0)
    assert isinstance(obs, dict) and set(obs) == keys
    assert isinstance(info, dict)
    assert env.observation_space.contains(obs)
    for action in ('do(action="Launch", app="Contacts")', "not an action", {"action_type": "navigate_home"}):
        out = env.step(action)
        assert isinstance(out, tuple) and len(out) == 5
        obs, reward, terminated, truncated, info = out
        assert set(obs) == keys
        assert env.observation_space.contains(obs)
        assert isinstance(reward, float) and reward == 0.0
        assert type(terminated) is bool and type(truncated) is bool
        assert not terminated and not truncated
        assert isinstance(info, dict)
    assert isinstance(obs["instruction"], str) and obs["instruction"] == info["instruction"]
    if "ui" in keys:
        assert isinstance(obs["ui"], str)
        check_ui_xml(obs["ui"])
    if "screen" in keys:
        assert obs["screen"].dtype == np.uint8 and obs["screen"].shape == (SMALL[1], SMALL[0], 3)


def test_info_contents() -> None:
    env = make("ContactsAddContact")
    obs, info = env.reset(seed=0)
    assert set(info) >= INFO_KEYS
    assert info["task_id"] == "ContactsAddContact"
    assert info["instruction"] == obs["instruction"] and info["instruction"]
    assert info["format_valid"] is True
    assert isinstance(info["action_description"], str)
    assert isinstance(info["milestones"], list)
    assert 0.0 <= info["progress"] <= 1.0
    assert info["ui_elements"] and all(isinstance(e, UIElement) for e in info["ui_elements"])
    assert "success" not in info

    obs, r, term, trunc, info = env.step('do(action="Launch", app="Contacts")')
    assert set(info) >= INFO_KEYS
    assert info["format_valid"] is True
    assert info["action_description"] == "Launch Contacts"
    assert info["milestones"] == ["Open the Contacts app"]
    assert info["progress"] > 0
    assert "reason" not in info
    fab = find_el(info, content_description="Create contact")
    obs, r, term, trunc, info = env.step(tap(fab))
    assert "Create contact" in info["action_description"]
    assert info["milestones"] == ["Open the form to create a new contact"]

    obs, r, term, trunc, info = env.step("finish()")
    assert term and not trunc
    assert info["success"] is False and r == 0.0
    assert set(info) >= INFO_KEYS


def test_ui_elements_match_the_screen() -> None:
    env = make("ContactsEditPhone", ui_elements="dump")
    env.reset(seed=0)
    obs, _, _, _, info = env.step('do(action="Launch", app="Contacts")')
    els = info["ui_elements"]
    root = check_ui_xml(obs["ui"])
    nodes = list(root.iter("node"))
    assert len(nodes) == len(els)  # pre-order, the list AndroidWorld's index refers to
    for node, e in zip(nodes, els, strict=True):
        assert node.attrib["text"] == e.text
        assert node.attrib["class"] == e.class_name
        assert node.attrib["content-desc"] == e.content_description
        assert node.attrib["bounds"] == "[{},{}][{},{}]".format(*element_box(e))
        assert node.attrib["clickable"] == ("true" if e.is_clickable else "false")
    # AndroidWorld index actions address exactly these elements.
    fab = find_el(info, content_description="Create contact")
    _, _, _, _, info2 = env.step({"action_type": "click", "index": index_of(info, fab)})
    assert info2["format_valid"] and "Create contact" in info2["action_description"]


def test_render_modes() -> None:
    env = make("ContactsAddContact", render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and env.unwrapped.instruction in text
    env = make("ContactsAddContact", render_mode="rgb_array", screen_size=SMALL)
    env.reset(seed=0)
    img = env.render()
    assert img.dtype == np.uint8 and img.shape == (SMALL[1], SMALL[0], 3)
    env = make("ContactsAddContact")
    env.reset(seed=0)
    assert env.render() is None


# ----------------------------------------------------------------------------- UI dumps on many screens


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_ui_xml_well_formed_on_oracle_and_random_screens(task_id: str) -> None:
    env = make(task_id)
    for seed in (0, 1):
        obs, info = env.reset(seed=seed)
        check_ui_xml(obs["ui"], f"{task_id} seed {seed} reset")
        check_elements(info)
        _, steps = oracle_episode(env, seed)
        for i, (a, obs, *_rest, info) in enumerate(steps):
            where = f"{task_id} seed {seed} oracle step {i} after {a}"
            check_ui_xml(obs["ui"], where)
            check_elements(info, where)
    rng = np.random.default_rng(zlib.crc32(task_id.encode()))
    for seed in (0, 1):
        obs, info = env.reset(seed=seed)
        for i in range(200):
            a = random_action(rng, info)
            obs, _, term, trunc, info = env.step(a)
            where = f"{task_id} seed {seed} random step {i} after {a}"
            check_ui_xml(obs["ui"], where)
            check_elements(info, where)
            if term or trunc:
                break
        else:
            raise AssertionError("the episode did not end within its step limit")


_LINE = re.compile(r"^( *)\[(\d+)\] (\w+)( .*)? \[(\d+),(\d+)\]\[(\d+),(\d+)\]$")


def check_compressed(text: str, info: dict, where: str) -> None:
    els = info["ui_elements"]
    lines = text.split("\n")
    assert lines, where
    indices = []
    for line in lines:
        m = _LINE.match(line)
        assert m, f"bad compressed line {line!r} {where}"
        idx = int(m.group(2))
        assert idx < len(els), where
        e = els[idx]
        assert m.group(3) == e.class_name.rsplit(".", 1)[-1], f"{line!r} vs {e} {where}"
        assert tuple(int(m.group(k)) for k in range(5, 9)) == element_box(e), where
        indices.append(idx)
    assert indices == sorted(set(indices)), f"one line per node, in order {where}"
    for i, e in enumerate(els):
        if e.is_clickable or e.is_scrollable or e.text or e.content_description:
            assert i in indices, f"{e} missing from the compressed UI {where}"


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_compressed_ui_one_line_per_node(task_id: str) -> None:
    env = make(task_id, ui_format="indexed", ui_elements="dump")
    obs, info = env.reset(seed=0)
    check_compressed(obs["ui"], info, f"{task_id} reset")
    assert not obs["ui"].startswith("<?xml")
    _, steps = oracle_episode(env, 0)
    for i, (a, obs, *_rest, info) in enumerate(steps):
        check_compressed(obs["ui"], info, f"{task_id} step {i} after {a}")


def test_compressed_ui_escapes_quotes() -> None:
    env = make("ContactsAddContact", ui_format="indexed", ui_elements="dump")
    env.reset(seed=0)
    _, _, _, _, info = env.step('do(action="Launch", app="Contacts")')
    env.step(tap(find_el(info, content_description="Create contact")))
    obs, _, _, _, info = env.step('do(action="Type", text="Ann \\"Q\\" [1,2][3,4]")')
    assert info["format_valid"], info
    check_compressed(obs["ui"], info, "typed quotes")


def test_ui_xml_escapes_special_characters() -> None:
    env = make("ContactsAddContact")
    env.reset(seed=0)
    _, _, _, _, info = env.step('do(action="Launch", app="Contacts")')
    env.step(tap(find_el(info, content_description="Create contact")))
    text = "a<b>&c \"d\" 'e' é☕ 𝄞 \t"
    obs, _, _, _, info = env.step({"action_type": "input_text", "text": text})
    assert info["format_valid"], info
    root = check_ui_xml(obs["ui"])
    assert text in [n.attrib["text"] for n in root.iter("node")]


# ----------------------------------------------------------------------------- errors


def test_step_before_reset_raises() -> None:
    env = make("ContactsAddContact")
    with pytest.raises(gym.error.ResetNeeded):
        env.step('do(action="Back")')
    raw = GuiAndroidEnv(task="ContactsAddContact")
    with pytest.raises(gym.error.ResetNeeded):
        raw.step('do(action="Back")')
    with pytest.raises(gym.error.ResetNeeded):
        raw.oracle_action()


@pytest.mark.parametrize("wrapped", [True, False])
def test_step_after_episode_end_raises(wrapped: bool) -> None:
    env = make("ContactsAddContact") if wrapped else GuiAndroidEnv(task="ContactsAddContact")
    env.reset(seed=0)
    *_, term, trunc, info = env.step("finish()")
    assert term and "success" in info
    with pytest.raises(gym.error.ResetNeeded):
        env.step('do(action="Back")')
    env.reset(seed=1)  # a reset makes it usable again
    env.step('do(action="Back")')

    env = make("ContactsAddContact", max_steps=2) if wrapped else GuiAndroidEnv(task="ContactsAddContact", max_steps=2)
    env.reset(seed=0)
    *_, term, trunc, _ = env.step('do(action="Wait")')
    assert not term and not trunc
    *_, term, trunc, info = env.step('do(action="Wait")')
    assert trunc and not term and info["success"] is False
    with pytest.raises(gym.error.ResetNeeded):
        env.step('do(action="Wait")')


def test_unknown_task_suggests_close_matches() -> None:
    with pytest.raises(ValueError, match="ContactsAddContact"):
        make("ContactsAddContac")
    with pytest.raises(ValueError, match="ContactsAddContact"):
        make(["ContactsFavorite", "ContactsAddContac"])
    with pytest.raises(ValueError, match="xyzzy"):
        make("xyzzy")
    env = make("ContactsFavorite")
    with pytest.raises(ValueError, match="ContactsAddContact"):
        env.reset(seed=0, options={"task": "contactsaddcontact"})


@pytest.mark.parametrize(
    "kwargs",
    [
        {"obs_mode": "audio"},
        {"ui_format": "html"},
        {"render_mode": "human"},
        {"screen_size": (4, 4)},
        {"screen_size": (10_000, 240)},
        {"max_steps": 0},
    ],
)
def test_bad_constructor_arguments(kwargs: dict) -> None:
    with pytest.raises(ValueError):
        GuiAndroidEnv(task="ContactsAddContact", **kwargs)


def test_task_selection_by_id_list_tier_and_options() -> None:
    env = make("ContactsFavorite")
    assert {env.reset(seed=s)[1]["task_id"] for s in range(3)} == {"ContactsFavorite"}

    pool = ["ContactsFavorite", "ContactsDeleteContact"]
    env = make(pool)
    seen = {env.reset(seed=s)[1]["task_id"] for s in range(30)}
    assert seen == set(pool)

    env = make("ContactsFavorite")
    _, info = env.reset(seed=0, options={"task": "ContactsDeleteContact"})
    assert info["task_id"] == "ContactsDeleteContact"


@pytest.mark.parametrize("tier", ["easy", "medium", "hard"])
def test_task_selection_by_tier(tier: str) -> None:
    expected = {t for t, task in TASKS.items() if task.difficulty == tier}
    assert expected, f"no {tier} tasks"
    env = GuiAndroidEnv(task=tier)
    assert {t.id for t in env.pool} == expected
    for s in range(5):
        env.reset(seed=s)
        assert env.task.id in expected
    mixed = GuiAndroidEnv(task=[tier, "ContactsFavorite"])
    assert {t.id for t in mixed.pool} == expected | {"ContactsFavorite"}


def test_all_tasks_when_no_task_given() -> None:
    env = GuiAndroidEnv()
    assert {t.id for t in env.pool} == set(TASKS)


def test_observe_returns_the_current_observation() -> None:
    env = make("ContactsAddContact", obs_mode="both", screen_size=SMALL)
    env.reset(seed=0)
    obs, *_ = env.step('do(action="Launch", app="Contacts")')
    again = env.unwrapped.observe()
    assert again["ui"] == obs["ui"] and again["instruction"] == obs["instruction"]
    np.testing.assert_array_equal(again["screen"], obs["screen"])


def test_tier_without_tasks_is_refused() -> None:
    from gui_gym.android.backends.sim import SimBackend

    only_easy = {k: t for k, t in TASKS.items() if t.difficulty == "easy"}
    with pytest.raises(ValueError):
        GuiAndroidEnv(task="hard", backend=SimBackend(tasks=only_easy))
    with pytest.raises(ValueError):
        GuiAndroidEnv(task=["hard"], backend=SimBackend(tasks=only_easy))
    GuiAndroidEnv(task="easy", backend=SimBackend(tasks=only_easy)).reset(seed=0)


def test_ui_elements_are_the_steps_own_when_read_late() -> None:
    """``info["ui_elements"]`` is built on first read, from the screen of its own step."""
    late = make("ContactsAddContact")
    eager = make("ContactsAddContact")
    _, info_l = late.reset(seed=3)
    _, info_e = eager.reset(seed=3)
    kept, want = [info_l], [list(info_e["ui_elements"])]
    for _ in range(6):
        action = eager.unwrapped.oracle_action()
        *_, info_l = late.step(action)
        *_, info_e = eager.step(action)
        kept.append(info_l)
        want.append(list(info_e["ui_elements"]))
    assert not kept[0]["ui_elements"].built  # nobody read it
    assert [list(i["ui_elements"]) for i in kept] == want
    assert want[0] != want[-1]


def test_info_without_elements_still_takes_index_actions() -> None:
    env = make("ContactsAddContact", info_elements=False)
    twin = make("ContactsAddContact")
    _, info = env.reset(seed=0)
    _, twin_info = twin.reset(seed=0)
    assert "ui_elements" not in info
    i = next(i for i, e in enumerate(twin_info["ui_elements"]) if e.content_description == "Contacts")
    *_, info = env.step({"action_type": "click", "index": i})
    *_, twin_info = twin.step({"action_type": "click", "index": i})
    assert "ui_elements" not in info and info["format_valid"] is True
    assert info["action_description"] == twin_info["action_description"]
    assert env.unwrapped.current_elements() == list(twin_info["ui_elements"])
    *_, info = env.step({"action_type": "click", "index": 10_000})
    assert info["format_valid"] is False and "out of range" in info["reason"]
