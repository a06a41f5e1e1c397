"""The phone's observations equal what a full rebuild of every step gave, on recorded episodes.

Every task, an oracle, a mixed and a fuzzed episode (``observation_record.py``), stepped by one
env per observation option: the dump in every window mode, the compressed texts, the forest,
both element lists, frames at two sizes, rewards and infos, digest for digest.
"""

from __future__ import annotations

import functools

import pytest

from tests.android import observation_record as R


@functools.cache
def _episodes() -> dict[str, list[dict]]:
    by_task: dict[str, list[dict]] = {}
    for ep in R.load():
        by_task.setdefault(ep["task"], []).append(ep)
    return by_task


def _task_ids() -> list[str]:
    return sorted(_episodes())


def test_every_task_is_recorded() -> None:
    from gui_gym.android.sim.tasks import TASKS

    assert sorted(TASKS) == _task_ids(), "re-record: python tests/android/observation_record.py"


@pytest.mark.parametrize("task", _task_ids())
def test_observations_match_the_recording(task: str) -> None:
    envs = R.make_envs()
    for ep in _episodes()[task]:
        got = R.run_episode(envs, task, ep["seed"], ep["kind"], actions=ep["actions"])
        assert len(got["steps"]) == len(ep["steps"]), f"{ep['kind']} episode: {len(got['steps'])} steps"
        for t, (want, have) in enumerate(zip(ep["steps"], got["steps"], strict=True)):
            differ = sorted(k for k in want.keys() | have.keys() if want.get(k) != have.get(k))
            assert not differ, f"{ep['kind']} episode (seed {ep['seed']}), step {t}: {differ} differ"
    for env in envs.values():
        env.close()


def _screen_views(env) -> tuple[str, str, str]:
    from gui_gym.android.ui import to_xml

    dev = env.unwrapped.device
    return to_xml(dev.tree()), to_xml(dev.screen()), to_xml([w.root for w in dev.windows()])


@pytest.mark.parametrize("kind", ["mixed", "fuzz"])
def test_the_kept_screen_equals_a_fresh_build(kind: str) -> None:
    """Whatever the device keeps between steps (after a refused action it keeps the screen it
    had) equals what building the screen afresh from its state gives."""
    envs = R.make_envs()
    env = envs["xml"]
    for i, task in enumerate(_task_ids()):
        _, info = env.reset(seed=1000 + i, options={"task": task})
        driver = R.Driver(1000 + i, kind)
        for t in range(20):
            _, _, term, trunc, info = env.step(driver.act(env, info))
            kept = _screen_views(env)
            env.unwrapped.device.invalidate()
            assert kept == _screen_views(env), f"{task}, step {t}: the kept screen is stale"
            if term or trunc:
                break


def test_dumps_hold_while_the_xml_memo_keeps_emptying(monkeypatch: pytest.MonkeyPatch) -> None:
    """The dump's node memo is bounded by the characters it holds; emptied every few screens it
    still writes what was recorded."""
    from gui_gym.android import ui

    monkeypatch.setattr(ui, "_XML_MEMO_CHARS", 20_000)
    envs = R.make_envs()
    for task in _task_ids()[::9]:
        for ep in _episodes()[task]:
            got = R.run_episode(envs, task, ep["seed"], ep["kind"], actions=ep["actions"])
            assert [s["xml"] for s in got["steps"]] == [s["xml"] for s in ep["steps"]], task
            assert ui._xml_chars <= 20_000
