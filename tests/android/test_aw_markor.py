"""AndroidWorld's Markor tasks on the simulated phone (``apps/markor/androidworld.py``): the oracle
solves AndroidWorld's instances 0-29 through the env, doing nothing fails, near misses fail, and
a few draws and check rules computed by hand from AndroidWorld's source."""

from __future__ import annotations

import datetime as dt
import random
import re
import string

import gymnasium as gym
import numpy as np
import pytest

import gui_gym  # noqa: F401  (registers GuiAndroid-v0)
from gui_gym.android.actions import parse_action
from gui_gym.android.backends.sim import SimBackend
from gui_gym.android.sim.adb.shell import Shell
from gui_gym.android.sim.apps.markor import androidworld as aw
from gui_gym.android.sim.apps.markor.app import NOTEBOOK, FileBrowser, FolderDialog
from gui_gym.android.sim.tasks import TASKS
from gui_gym.android.sim.tasks.base import Oracle

IDS = [t.id for t in (cls() for cls in aw.TEMPLATES)]
SEEDS = range(30)


def _start(task_id: str, seed: int) -> tuple[SimBackend, dict]:
    backend = SimBackend()
    episode = backend.start(task_id, np.random.default_rng(seed), {"seed": seed})
    return backend, episode.params


def _solve(backend: SimBackend, params: dict, limit: int = 80) -> None:
    task = TASKS[backend._task.id]
    for _ in range(limit):
        out = backend.device.act(parse_action(task.oracle(Oracle(backend.device, params))))
        assert out.valid, out.reason
        if out.done:
            return
    raise AssertionError("the oracle did not finish")


@pytest.mark.parametrize("task_id", IDS)
def test_the_oracle_solves_androidworlds_instances(task_id: str) -> None:
    env = gym.make("GuiAndroid-v0", task=task_id)
    task = TASKS[task_id]
    for seed in SEEDS:
        env.reset(options={"params": {"seed": seed}})
        steps = 0
        while True:
            _, reward, term, trunc, info = env.step(env.unwrapped.oracle_action())
            steps += 1
            assert info["format_valid"], f"seed {seed}, step {steps}: {info.get('reason')}"
            if term or trunc:
                break
        assert term and info["success"] and reward == 1.0, f"seed {seed}"
        assert info["progress"] == 1.0, f"seed {seed}: milestones left unreached"
        dev, params = env.unwrapped.backend.device, env.unwrapped.params
        assert task.score(dev, params, None, "complete") == 1.0
    env.close()


@pytest.mark.parametrize("task_id", IDS)
def test_doing_nothing_fails(task_id: str) -> None:
    env = gym.make("GuiAndroid-v0", task=task_id)
    for seed in range(5):
        env.reset(options={"params": {"seed": seed}})
        _, reward, term, _, info = env.step("finish()")
        assert term and not info["success"] and reward == 0.0, f"seed {seed}"
        assert TASKS[task_id].score(env.unwrapped.backend.device, env.unwrapped.params, None, "complete") == 0.0
    env.close()


# ----------------------------------------------------------------------------- near misses


def _notebook(backend: SimBackend):
    return backend.device.data("markor")


def test_a_note_named_with_markors_default_extension_is_not_the_note() -> None:
    """Typing the whole name into Name keeps Extension's ".md": Markor creates ``name.txt.md``."""
    backend, p = _start("MarkorCreateNote", 0)
    assert p["file_name"].endswith(".txt")
    dev = backend.device
    dev.act(parse_action('do(action="Launch", app="Markor")'))
    o = Oracle(dev, p)
    dev.act(parse_action(o.tap(o.find(desc="Create a new file or folder"))))
    o = Oracle(dev, p)
    dev.act(parse_action(o.type(p["file_name"])))  # Name; Enter moves to Extension, which keeps ".md"
    o = Oracle(dev, p)
    dev.act(parse_action(o.tap(o.find(label="OK", role="textbutton"))))
    assert _notebook(backend).get(p["file_name"] + ".md") is not None
    o = Oracle(dev, p)
    dev.act(parse_action(o.type(p["text"])))
    dev.act(parse_action('do(action="Back")'))
    assert not TASKS["MarkorCreateNote"].check(dev, p, None, "complete")


def test_near_misses_fail() -> None:
    now = dt.datetime(2023, 10, 15, 15, 34)

    backend, p = _start("MarkorCreateNote", 1)  # the right name, another text
    _notebook(backend).write(p["file_name"], "Something else entirely.", now)
    assert not TASKS["MarkorCreateNote"].check(backend.device, p, None, None)

    backend, p = _start("MarkorCreateFolder", 2)  # a note, not a folder, in a subfolder
    _notebook(backend).mkdir("Other/" + p["folder_name"], now)
    assert not TASKS["MarkorCreateFolder"].check(backend.device, p, None, None)

    backend, p = _start("MarkorDeleteNote", 3)  # another note deleted
    other = next(e.path for e in _notebook(backend).notes() if e.path != p["file_name"])
    _notebook(backend).delete(other)
    assert not TASKS["MarkorDeleteNote"].check(backend.device, p, None, None)

    backend, p = _start("MarkorDeleteNewestNote", 4)  # the oldest deleted instead
    _notebook(backend).delete(p["initial_files"][0][0])
    assert not TASKS["MarkorDeleteNewestNote"].check(backend.device, p, None, None)

    backend, p = _start("MarkorDeleteNewestNote", 5)  # the newest deleted, another one touched
    _notebook(backend).delete(p["initial_files"][-1][0])
    _notebook(backend).get(p["initial_files"][0][0]).mtime += dt.timedelta(seconds=1)
    assert not TASKS["MarkorDeleteNewestNote"].check(backend.device, p, None, None)

    backend, p = _start("MarkorDeleteAllNotes", 6)  # one note left
    for e in sorted(_notebook(backend).notes(), key=lambda e: e.path)[1:]:
        _notebook(backend).delete(e.path)
    assert not TASKS["MarkorDeleteAllNotes"].check(backend.device, p, None, None)

    backend, p = _start("MarkorMoveNote", 7)  # copied, not moved
    src = f"{p['source_folder']}/{p['file_name']}"
    _notebook(backend).copy(src, f"{p['destination_folder']}/{p['file_name']}", now)
    assert not TASKS["MarkorMoveNote"].check(backend.device, p, None, None)

    backend, p = _start("MarkorMergeNotes", 8)  # merged without the blank lines
    text = "\n".join(p[f"file{i}_content"] for i in (1, 2, 3))
    _notebook(backend).write(p["new_file_name"], text, now)
    assert not TASKS["MarkorMergeNotes"].check(backend.device, p, None, None)

    backend, p = _start("MarkorChangeNoteContent", 9)  # updated, not renamed
    _notebook(backend).write(p["original_name"], p["updated_content"], now)
    assert not TASKS["MarkorChangeNoteContent"].check(backend.device, p, None, None)

    backend, p = _start("MarkorAddNoteHeader", 10)  # renamed, the header without the blank line
    _notebook(backend).delete(p["original_name"])
    _notebook(backend).write(p["new_name"], p["header"] + "\n" + p["original_content"], now)
    assert not TASKS["MarkorAddNoteHeader"].check(backend.device, p, None, None)

    backend, p = _start("MarkorEditNote", 11)  # the note saved unchanged
    assert not TASKS["MarkorEditNote"].check(backend.device, p, None, None)
    assert aw.exists(backend.device, p["file_name"])

    backend, p = _start("MarkorCreateNoteFromClipboard", 12)  # the note holds other text
    _notebook(backend).write(p["file_name"], p["file_content"][::-1], now)
    assert not TASKS["MarkorCreateNoteFromClipboard"].check(backend.device, p, None, None)


def test_the_composite_scores_each_half() -> None:
    """``MarkorCreateNoteAndSms``: the mean of the two sub-tasks (composite/markor_sms.py); the
    SMS half needs Simple SMS Messenger in front (``SimpleSMSSendSms.is_successful``)."""
    task = TASKS["MarkorCreateNoteAndSms"]
    backend, p = _start("MarkorCreateNoteAndSms", 13)
    dev = backend.device
    _solve(backend, p)
    assert task.score(dev, p, None, "complete") == 1.0
    dev.act(parse_action('do(action="Home")'))  # sent, but the app is no longer in front
    assert task.score(dev, p, None, "complete") == 0.5 and not task.check(dev, p, None, "complete")
    backend, p = _start("MarkorCreateNoteAndSms", 14)
    dev = backend.device
    dev.data("markor").write(p["file_name"], p["text"], dev.state.now)  # the note only
    assert task.score(dev, p, None, "complete") == 0.5
    backend, p = _start("MarkorCreateNoteAndSms", 15)
    _solve(backend, p)
    backend.device.state.now += dt.timedelta(minutes=6)  # sent more than five minutes ago
    assert task.score(backend.device, p, None, "complete") == 0.5


# ----------------------------------------------------------------------------- by hand


def test_delete_all_notes_draws_as_androidworld() -> None:
    """``MarkorDeleteAllNotes.initialize_task``: ``generate_noise_files(generate_random_string(5), …,
    random.randint(2, 6))`` after ``random.seed(seed)``; the count of files is then
    ``randint(1, n)`` (``user_data_generation.generate_noise_files``), drawn here by hand."""
    for seed in range(10):
        r = random.Random(seed)
        r.choices(string.ascii_letters + string.digits, k=5)
        n = r.randint(2, 6)
        count = r.randint(1, n)
        backend, _ = _start("MarkorDeleteAllNotes", seed)
        assert len(_notebook(backend).notes()) == count


def test_edit_note_expects_the_escaped_original() -> None:
    """``MarkorEditNote`` keeps what ``file_utils.create_file`` returns: the sentence with each
    ``'`` escaped as ``'"'"'``, while the file (written by ``echo``) holds the sentence itself."""
    for seed in SEEDS:
        backend, p = _start("MarkorEditNote", seed)
        text = _notebook(backend).get(p["file_name"]).content
        assert text.endswith("\n") and p["original_content"] == text[:-1].replace("'", "'\"'\"'")
        if "'" in text:
            return
    raise AssertionError("no seed drew a sentence with an apostrophe")


def test_add_note_header_is_an_exact_match() -> None:
    """``MarkorAddNoteHeader.is_successful``: ``check_file_content(…, exact_match=True)`` against
    ``header + "\\n\\n" + original_content + "\\n"``: one more line break fails."""
    task = TASKS["MarkorAddNoteHeader"]
    backend, p = _start("MarkorAddNoteHeader", 0)
    notebook, now = _notebook(backend), backend.device.state.now
    notebook.delete(p["original_name"])
    notebook.add(p["new_name"], content=p["header"] + "\n\n" + p["original_content"] + "\n", mtime=now)
    assert task.check(backend.device, p, None, None)
    notebook.add(p["new_name"], content=p["header"] + "\n\n" + p["original_content"] + "\n\n", mtime=now)
    assert not task.check(backend.device, p, None, None)


def test_create_folder_names_its_folder_from_the_seed() -> None:
    """AndroidWorld takes the name from the host's clock; here it has that shape and is fixed by
    the seed."""
    names = {TASKS["MarkorCreateFolder"].sample_seed(s)["folder_name"] for s in range(10)}
    assert len(names) == 10 and all(re.fullmatch(r"folder_\d{8}_\d{6}", n) for n in names)
    assert TASKS["MarkorCreateFolder"].sample_seed(3) == TASKS["MarkorCreateFolder"].sample_seed(3)


def test_androidworlds_commands_read_the_same_notebook() -> None:
    """On the served phone's shell: ``ls <dir> -ll -au`` parsed as ``get_file_list_with_metadata``
    parses it ranks the notes as the check does, and ``find`` lists the moved note where
    ``check_file_or_folder_exists`` looks for it."""
    backend, p = _start("MarkorDeleteNewestNote", 0)
    sh = Shell(backend.device)
    out = sh.run(f"ls {NOTEBOOK} -ll -au").stdout.decode()
    files = []
    for line in out.split("\n"):
        if line.startswith("-"):
            parts = line.split(None, 8)
            files.append((parts[8], dt.datetime.fromisoformat(" ".join(parts[5:7])[:-3])))
    files.sort(key=lambda f: f[1])
    assert [(n, t.isoformat()) for n, t in files] == [tuple(f) for f in p["initial_files"]]
    assert len({t for _, t in files}) == len(files) >= 2  # the clock moved between the notes

    backend, p = _start("MarkorMoveNote", 0)
    _solve(backend, p)
    found = Shell(backend.device).run(f"find {NOTEBOOK} -type f -o -type d").stdout.decode().split("\n")
    assert f"{NOTEBOOK}/{p['destination_folder']}/{p['file_name']}" in found
    assert f"{NOTEBOOK}/{p['source_folder']}/{p['file_name']}" not in found


def test_the_move_dialog_renders() -> None:
    """The folder picker and the selection toolbar draw (the renderer knows their parts)."""
    from gui_gym.android.sim.render import Renderer

    backend, p = _start("MarkorMoveNote", 1)
    dev = backend.device
    for _ in range(12):
        s = dev.top_screen()
        if isinstance(s, FileBrowser) and isinstance(s.dialog, FolderDialog):
            break
        dev.act(parse_action(TASKS["MarkorMoveNote"].oracle(Oracle(dev, p))))
    else:
        raise AssertionError("the oracle never opened the folder picker")
    frame = Renderer((270, 600)).render(dev.screen())
    assert frame.shape == (600, 270, 3) and frame.std() > 0
