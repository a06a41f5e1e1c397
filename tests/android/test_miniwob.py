"""MobileMiniWoB++ on the phone: AndroidWorld's MiniWoB registry, the Miniwob app showing MiniWoB++'s
real pages in a real headless Chromium, the pages' own rewards deciding success.

The registry's facts (ids, the subset, the goal, the step limit) are AndroidWorld's
(``android_world/task_evals/miniwob/miniwob_registry.py`` and ``miniwob_base.py``). The episodes
run the ``miniwob`` package's pages in Chromium: without Chromium these tests fail saying what to
install (``GUI_GYM_NO_BROWSER=1`` skips them, as the other browser tests).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import gymnasium as gym
import pytest

from gui_gym.android.sim.apps.miniwob import experts
from gui_gym.android.sim.apps.miniwob.pages import GOAL, NAMES, STEP_LIMIT, SUBSET, class_name
from gui_gym.android.sim.tasks import TASKS, WEB_TASKS
from gui_gym.android.sim.web.chromium import INSTALL_HINT, BrowserError, Chromium, find_chromium

PREFIX = GOAL.split("{")[0]


# -- the registry (no browser) ------------------------------------------------------------
def test_registry_is_androidworlds() -> None:
    assert len(NAMES) == 92 and list(NAMES) == sorted(NAMES)
    assert [t.id for t in WEB_TASKS.values() if t.suite == "miniwob"] == [class_name(n) for n in NAMES]
    assert class_name("click-collapsible-2") == "MiniWobClickCollapsible2"
    assert class_name("email-inbox-forward-nl-turk") == "MiniWobEmailInboxForwardNlTurk"
    # papers' subset: 64 names, of which click-menu and use-spinner are not registered
    assert len(SUBSET) == 62 and set(SUBSET) <= set(NAMES)
    assert "MiniWobClickMenu" not in WEB_TASKS and "MiniWobUseSpinner" not in WEB_TASKS
    for t in (t for t in WEB_TASKS.values() if t.suite == "miniwob"):
        spec = t.spec()
        assert spec.suite == "miniwob" and spec.requires == ("browser",) and t.step_limit == STEP_LIMIT == 30
        assert (spec.subsets == ("miniwob-subset",)) == (t.page in SUBSET)
    assert not set(WEB_TASKS) & set(TASKS)  # the simulator's own tasks need no browser


def test_selection_names_the_browser_suites() -> None:
    env = gym.make("GuiAndroid-v0")
    assert not any(t.id.startswith("MiniWob") for t in env.unwrapped.pool)  # "all" needs no browser
    env.close()
    env = gym.make("GuiAndroid-v0", task="miniwob")
    assert len(env.unwrapped.pool) == 92
    env.close()
    env = gym.make("GuiAndroid-v0", task="miniwob-subset")
    assert sorted(t.id for t in env.unwrapped.pool) == sorted(class_name(n) for n in SUBSET)
    env.close()
    env = gym.make("GuiAndroid-v0", task="MiniWobClickButton,ContactsAddContact")
    assert [t.id for t in env.unwrapped.pool] == ["MiniWobClickButton", "ContactsAddContact"]
    env.close()


def test_missing_chromium_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GUI_GYM_CHROMIUM", "/nonexistent/chromium")
    with pytest.raises(BrowserError, match="apt-get install"):
        find_chromium()
    with pytest.raises(BrowserError, match="apt-get install"):
        Chromium()
    assert "apt-get" in INSTALL_HINT


# -- episodes in Chromium -----------------------------------------------------------------
@pytest.fixture(scope="module")
def env(chromium_present: None) -> Iterator[gym.Env]:
    e = gym.make("GuiAndroid-v0", task="miniwob", obs_mode="both")
    yield e
    e.close()


def run_expert(env: gym.Env, task: str, seed: int) -> tuple[int, dict]:
    _, info = env.reset(seed=seed, options={"task": task})
    assert info["instruction"].startswith(PREFIX)
    for steps in range(1, STEP_LIMIT + 1):
        _, _, terminated, truncated, info = env.step(env.unwrapped.oracle_action())
        assert info["format_valid"], info
        if terminated or truncated:
            return steps, info
    raise AssertionError("no end")


@pytest.mark.parametrize(("page", "seed"), [(p, i % 2) for i, p in enumerate(sorted(experts.EXPERTS))])
def test_experts_succeed_by_the_pages_reward(env: gym.Env, page: str, seed: int) -> None:
    """One seed per page here (seeds 0 and 1 alternate); the README's sweep runs seeds 0-7 of each."""
    steps, info = run_expert(env, class_name(page), seed)
    assert info["success"] and info["page_reward"] == 1.0 and info["page_done"], (page, seed, info)
    assert 0 < info["page_reward_time"] <= 1.0  # MiniWoB++'s time-discounted reward
    assert steps < STEP_LIMIT  # the expert finishes well inside the 30 steps


def test_a_seed_fixes_the_pages_problem(env: gym.Env) -> None:
    got = []
    for seed in (5, 5, 6, 7):
        obs, info = env.reset(seed=seed, options={"task": "MiniWobClickButton"})
        got.append((info["instruction"], obs["ui"]))
    assert got[0] == got[1]
    assert len({g[0] for g in got[1:]}) > 1  # other seeds, other problems
    instruction = got[0][0]
    assert re.fullmatch(re.escape(PREFIX) + r'Click on the "[^"]+" button\.', instruction)


def test_the_dump_is_the_page_as_a_webview_exposes_it(env: gym.Env) -> None:
    obs, _ = env.reset(seed=3, options={"task": "MiniWobLoginUser"})
    nodes = re.findall(r"<node [^>]*>", obs["ui"])

    def attrs(n: str) -> dict[str, str]:
        return dict(re.findall(r'([\w-]+)="([^"]*)"', n))

    page = [attrs(n) for n in nodes if attrs(n)["package"] == "com.google.androidenv.miniwob"]
    webviews = [a for a in page if a["class"] == "android.webkit.WebView"]
    assert webviews[0]["resource-id"] == "com.google.androidenv.miniwob:id/webView"
    assert webviews[1]["text"] == "Login User Task"  # the document: its title
    by_id = {a["resource-id"]: a for a in page if a["resource-id"]}
    # the 160 x 210 CSS-pixel task at 500 %, 10dp below the status bar
    assert by_id["wrap"]["bounds"] == "[0,110][800,1160]"
    assert by_id["query"]["bounds"] == "[0,110][800,360]"
    assert by_id["username"]["class"] == "android.widget.EditText" and by_id["username"]["focusable"] == "true"
    assert by_id["password"]["class"] == "android.widget.EditText"
    assert by_id["subbtn"]["class"] == "android.widget.Button" and by_id["subbtn"]["text"] == "Login"
    assert by_id["subbtn"]["clickable"] == "true"
    texts = [a["text"] for a in page if a["class"] == "android.widget.TextView"]
    assert "Username" in texts and "Password" in texts
    shot = obs["screen"]
    assert shot.shape == (1200, 540, 3)
    assert tuple(shot[60, 100]) == (255, 255, 0)  # the query's yellow, at the page's top left


def test_a_wrong_click_ends_the_episode_as_a_failure(env: gym.Env) -> None:
    _, info = env.reset(seed=0, options={"task": "MiniWobClickTest2"})
    want = re.search(r"Click button (\w+)\.", info["instruction"]).group(1)
    other = next(e for e in info["ui_elements"] if e.class_name == "android.widget.Button" and e.text != want)
    _, reward, terminated, truncated, info = env.step(
        {"action_type": "click", "index": info["ui_elements"].index(other)}
    )
    assert terminated and not truncated and not info["success"] and reward == 0.0
    assert info["page_reward"] == -1.0


def test_no_ops_stay_no_ops_on_the_page(env: gym.Env) -> None:
    obs, _ = env.reset(seed=2, options={"task": "MiniWobEnterText"})
    before = obs["ui"]
    _, _, terminated, _, info = env.step('do(action="Type", text="hello")')  # nothing focused
    assert not info["format_valid"] and not terminated
    _, _, terminated, _, info = env.step({"action_type": "input_text", "text": "x", "x": 900, "y": 1500})
    assert not info["format_valid"] and not terminated  # no field there: nothing was touched
    obs, _, _, _, info = env.step('do(action="Back")')  # the app takes Back and stays
    assert info["format_valid"] and env.unwrapped.device.state.foreground == "miniwob"
    assert obs["ui"] == before
    assert info["page_reward"] == 0.0 and not info["page_done"]


def test_typed_text_is_only_page_input(env: gym.Env) -> None:
    _, info = env.reset(seed=4, options={"task": "MiniWobEnterText"})
    field = next(e for e in info["ui_elements"] if e.class_name == "android.widget.EditText")
    text = "'); core.endEpisode(1.0); ('"
    _, _, terminated, _, info = env.step(
        {"action_type": "input_text", "text": text, "index": info["ui_elements"].index(field)}
    )
    assert info["format_valid"] and not terminated and info["page_reward"] == 0.0
    field = next(e for e in info["ui_elements"] if e.class_name == "android.widget.EditText")
    assert field.text == text


def test_check_env_passes(chromium_present: None) -> None:
    from gymnasium.utils.env_checker import check_env

    e = gym.make("GuiAndroid-v0", task="MiniWobClickButton")
    check_env(e.unwrapped, skip_render_check=True)
    e.close()


def test_a_list_and_a_time_field_open_androids_own_pickers(env: gym.Env) -> None:
    from gui_gym.android.sim.dialogs import MenuDialog, TimePickerDialog

    _, info = env.reset(seed=1, options={"task": "MiniWobChooseList"})
    dev = env.unwrapped.device
    box = next(e for e in info["ui_elements"] if e.class_name == "android.widget.Spinner")
    _, _, _, _, info = env.step({"action_type": "click", "index": info["ui_elements"].index(box)})
    dialog = dev.top_screen().dialog
    assert isinstance(dialog, MenuDialog) and len(dialog.items) >= 2 and info["format_valid"]
    texts = {e.text for e in info["ui_elements"] if e.class_name == "android.widget.CheckedTextView"}
    assert {text for text, _ in dialog.items} == texts  # the page's options, as a native list
    _, info = env.reset(seed=1, options={"task": "MiniWobEnterTime"})
    field = next(e for e in info["ui_elements"] if e.class_name == "android.widget.Spinner")
    env.step({"action_type": "click", "index": info["ui_elements"].index(field)})
    assert isinstance(dev.top_screen().dialog, TimePickerDialog)


def test_a_multiple_list_opens_checkable_options_that_ok_writes(env: gym.Env) -> None:
    """click-scroll-list's ``<select multiple>``: Android's checkable list; Cancel writes nothing, OK
    writes exactly the checked options into the page."""
    from gui_gym.android.sim.dialogs import MultiChoiceDialog

    _, info = env.reset(seed=2, options={"task": "MiniWobClickScrollList"})
    dev = env.unwrapped.device
    view = dev.top_screen().page_view(dev)
    selected = "Array.from(document.getElementById('options').selectedOptions).map(o => o.text)"
    page = "(() => { const r = document.getElementById('options').getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })()"  # noqa: E501
    box = view.frame.to_screen(view.evaluate(page, changes=False))

    def tap(info: dict, text: str, cls: str) -> dict:
        index = next(i for i, e in enumerate(info["ui_elements"]) if e.text == text and e.class_name == cls)
        _, _, _, _, info = env.step({"action_type": "click", "index": index})
        assert info["format_valid"], info
        return info

    def open_list() -> tuple[MultiChoiceDialog, dict]:
        _, _, _, _, info = env.step(f'do(action="Tap", element={list(box)})')
        assert info["format_valid"] and isinstance(dev.top_screen().dialog, MultiChoiceDialog)
        return dev.top_screen().dialog, info

    dialog, info = open_list()
    labels = [label for label, _ in dialog.items]
    info = tap(info, labels[0], "android.widget.CheckedTextView")  # checked; the list stays open
    assert dev.top_screen().dialog is dialog and dialog.checked == {0}
    tap(info, "CANCEL", "android.widget.Button")
    assert dev.top_screen().dialog is None and view.evaluate(selected, changes=False) == []
    dialog, info = open_list()
    for i in (1, 3):
        info = tap(info, labels[i], "android.widget.CheckedTextView")
    tap(info, "OK", "android.widget.Button")
    assert view.evaluate(selected, changes=False) == [labels[1], labels[3]]


def test_keys_reach_a_field_the_page_focused_itself_one_key_at_a_time(env: gym.Env) -> None:
    """terminal's page focuses its hidden field from a timer and reads each keydown's ``key``: typed
    text arrives there key by key, without a tap first, as ``adb shell input text`` types."""
    env.reset(seed=0, options={"task": "MiniWobTerminal"})
    dev = env.unwrapped.device
    view = dev.top_screen().page_view(dev)
    view.evaluate("document.getElementById('terminal-target').focus()")  # what its 200 ms timer does
    _, _, _, _, info = env.step('do(action="Type", text="ls")')
    assert info["format_valid"], info
    lines = view.evaluate(
        "Array.from(document.querySelectorAll('#terminal-contents > div')).map(d => d.textContent.trim())",
        changes=False,
    )
    assert any("".join(line.split()) == "user$ls" for line in lines), lines  # the command line: keys, one by one


def test_androidworlds_start_and_broadcasts_over_the_served_shell(chromium_present: None) -> None:
    """What AndroidWorld's ``MiniWoBTask`` sends over adb: the app started with the task's config,
    then ``reset`` and ``step``; the utterance and the raw reward read back by broadcast."""
    import datetime as dt

    from gui_gym.android.sim.adb.shell import Shell
    from gui_gym.android.sim.apps.miniwob.app import FRAME, web_view
    from gui_gym.android.sim.device import Device

    dev = Device()
    dev.reset(now=dt.datetime(2023, 10, 15, 15, 34))
    sh = Shell(dev)
    start = "am start -n com.google.androidenv.miniwob/com.google.androidenv.miniwob.app.MainActivity"
    try:
        assert sh.run(start + """ --es RL_TASK_APP_CONFIG '{"task":"click-test"}'""").status == 0
        assert sh.run(start + " --ez reset true").status == 0 and sh.run(start + " --ez step true").status == 0
        assert dev.state.foreground == "miniwob"
        got = sh.run("am broadcast -a com.google.androidenv.miniwob.app.GET_UTTERANCE_ACTION").stdout.decode()
        assert 'Broadcast completed: result=-1, data="Click the button."' in got
        reward = "am broadcast -a com.google.androidenv.miniwob.app.GET_REWARD_ACTION"
        assert 'data=""' in sh.run(reward).stdout.decode()  # no reward before the episode ends
        rect = web_view(dev).evaluate(
            "(() => { const r = document.getElementById('subbtn').getBoundingClientRect();"
            " return [(r.left + r.right) / 2, (r.top + r.bottom) / 2]; })()",
            changes=False,
        )
        x, y = round(FRAME.left + rect[0] * FRAME.zoom), round(FRAME.top + rect[1] * FRAME.zoom)
        assert sh.run(f"input tap {x} {y}").status == 0
        assert 'Broadcast completed: result=-1, data="1"' in sh.run(reward).stdout.decode()
        sh.run("input keyevent KEYCODE_HOME")  # the receiver runs only while the app is in front
        assert "result=0" in sh.run(reward).stdout.decode()
    finally:
        dev.close()


def test_an_async_vector_env_runs_a_browser_per_worker(chromium_present: None) -> None:
    """Two MiniWoB envs in Gymnasium's AsyncVectorEnv: each worker process starts its own Chromium,
    steps reach the pages, and closing the vector env closes the browsers."""
    import functools

    def make(task: str) -> gym.Env:
        return gym.make("GuiAndroid-v0", task=task)

    envs = gym.vector.AsyncVectorEnv(
        [functools.partial(make, "MiniWobClickTest"), functools.partial(make, "MiniWobFocusText")]
    )
    try:
        _, infos = envs.reset(seed=0)
        assert list(infos["instruction"]) == [PREFIX + "Click the button.", PREFIX + "Focus into the textbox."]
        _, _, terminated, _, infos = envs.step(['do(action="Back")', 'do(action="Back")'])
        assert list(infos["format_valid"]) == [True, True] and not terminated.any()
        assert list(infos["page_reward"]) == [0.0, 0.0]
    finally:
        envs.close()


def test_a_labelled_check_box_is_named_by_its_label(env: gym.Env) -> None:
    """Chromium names a check box or radio button by its <label>: the dump's text is the label's,
    not the input's value ("on")."""
    obs, info = env.reset(seed=3, options={"task": "MiniWobClickOption"})
    radios = re.findall(r'<node [^>]*class="android.widget.RadioButton"[^>]*>', obs["ui"])
    texts = [re.search(r' text="([^"]*)"', n).group(1) for n in radios]
    assert len(texts) > 1 and "on" not in texts
    want = re.search(r"Select (\S+) and click Submit", info["instruction"]).group(1)
    assert want in texts


def test_a_long_press_on_the_page_is_the_pages(env: gym.Env) -> None:
    """A long press lands on the page at the finger's point (a touch held), a valid action."""
    obs, _ = env.reset(seed=0, options={"task": "MiniWobClickButton"})
    node = re.search(r'<node [^>]*class="android.widget.Button"[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"', obs["ui"])
    x, y = (int(node.group(1)) + int(node.group(3))) // 2, (int(node.group(2)) + int(node.group(4))) // 2
    _, _, _, _, info = env.step({"action_type": "long_press", "x": x, "y": y})
    assert info["format_valid"], info
    assert "Long press" in info["action_description"]
