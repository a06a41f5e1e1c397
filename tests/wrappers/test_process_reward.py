"""ProcessReward (wrappers.process): ADMIRE's LLM-as-judge process reward on GuiAndroid-v0.

The judge is an OpenAI-compatible server on loopback whose verdict rule is chosen by the first
path segment of the base URL.
"""

from __future__ import annotations

import base64
import io
import itertools
import json
import logging
import re
import time
import warnings
from collections.abc import Iterator
from typing import Any

import gymnasium as gym
import pytest
from _loopback import CannedHandler, CannedServer, dead_url, serving
from gymnasium.utils.env_checker import check_env
from PIL import Image

import gui_gym  # noqa: F401  (registers GuiAndroid-v0)
from wrappers import EpisodeRecorder
from wrappers.llm import OpenAICompatibleLLM
from wrappers.process import JUDGE_PROMPT, PROCESS, ProcessReward, judge_prompt, parse_verdict

TASK = "SystemWifiTurnOn"  # oracle: Launch Settings, tap Network & internet, tap the Wi-Fi switch, finish
SMALL = (108, 240)
_DESCRIPTION = re.compile(r"^Step Action Description: (.*)$", re.MULTILINE)


class _Server(CannedServer):
    requests: list[tuple[str, Any]]  # (mode, message content)

    def __init__(self) -> None:
        super().__init__(_Handler)

    def count(self, mode: str) -> int:
        return sum(m == mode for m, _ in self.requests)


class _Handler(CannedHandler):
    server: _Server

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        mode = self.path.strip("/").split("/")[0]
        content = body["messages"][-1]["content"]
        with self.server.lock:
            self.server.requests.append((mode, content))
        prompt = content if isinstance(content, str) else content[0]["text"]
        description = _DESCRIPTION.search(prompt).group(1)  # type: ignore[union-attr]
        if mode == "launch":  # helpful: launching the app; everything else is not
            answer = "Yes" if description.startswith("Launch") else " no."
        elif mode == "slow":
            time.sleep(0.5)
            answer = "yes"
        elif mode == "maybe":
            answer = "Maybe; it is hard to say."
        else:
            answer = "yes"
        self.reply(answer)


@pytest.fixture(scope="module")
def server() -> Iterator[_Server]:
    with serving(_Server()) as srv:
        yield srv


def judge(server: _Server, mode: str, **kw: Any) -> OpenAICompatibleLLM:
    kw = {"timeout": 5.0, "retries": 0, "backoff": 0.0, **kw}
    return OpenAICompatibleLLM(server.url(mode), model="judge", **kw)


def dead_judge() -> OpenAICompatibleLLM:
    return OpenAICompatibleLLM(dead_url(), model="judge", timeout=1.0, retries=0)


def oracle_run(env: gym.Env, seed: int = 0) -> list[dict[str, Any]]:
    """Run the oracle to the end; returns each step's (reward, info) as dicts."""
    env.reset(seed=seed)
    out = []
    while True:
        _, r, term, trunc, info = env.step(env.unwrapped.oracle_action())
        out.append({"r": r, **info})
        if term or trunc:
            return out


# -- pure pieces -----------------------------------------------------------------------------------
def test_judge_prompt_is_fig16_filled() -> None:
    p = judge_prompt("Turn Wi-Fi on.", 'do(action="Launch", app="Settings")', "Launch Settings")
    assert p.startswith("You are a step helpfulness judge with precise evaluative capabilities")
    assert p.endswith(
        'Goal: Turn Wi-Fi on.\n\nStep Action Text: do(action="Launch", app="Settings")\n\n'
        "Step Action Description: Launch Settings\n\n"
        "Question: Does this step help progress toward the goal? Answer 'yes' or 'no' directly."
    )
    assert "Step Action Description: None" in judge_prompt("g", "a", "")
    assert judge_prompt("{action}", "a", "d").count("Goal: {action}") == 1  # filled in one pass
    assert JUDGE_PROMPT.count("{") == 3


@pytest.mark.parametrize(
    "reply, verdict",
    [
        ("yes", True),
        ("YES", True),
        ("  Yes.\n", True),
        ('"yes"', True),
        ("**yes**", True),
        ("<think>the tap opens Settings</think>\nyes", True),
        ("no", False),
        ("No!", False),
        ("'no'", False),
        ("", None),
        ("yes and no", None),
        ("Yes, because it opens the app", None),
        ("I think not", None),
        ("yesterday", None),
    ],
)
def test_parse_verdict(reply: str, verdict: bool | None) -> None:
    assert parse_verdict(reply) is verdict


# -- the wrapper -----------------------------------------------------------------------------------
def test_yes_and_no_give_the_process_term(server: _Server) -> None:
    env = ProcessReward(gym.make("GuiAndroid-v0", task=TASK), judge(server, "launch"))
    before = server.count("launch")
    steps = oracle_run(env)
    assert len(steps) >= 3
    for s in steps:
        yes = s["action_description"].startswith("Launch")
        assert s["process_judge"] == ("yes" if yes else "no")
        assert s["reward_components"][PROCESS] == (0.3 if yes else 0.0)
        assert s["r"] == pytest.approx(s["reward_components"]["outcome"] + s["reward_components"][PROCESS])
        assert "process_error" not in s
    assert [s["process_judge"] for s in steps].count("yes") == 1
    last = steps[-1]
    assert last["success"] and last["r"] == pytest.approx(1.0)
    assert last["episode_reward_components"][PROCESS] == [s["reward_components"][PROCESS] for s in steps]
    assert "episode_rewards" not in last  # nothing here depends on the outcome
    assert server.count("launch") - before == len(steps)  # one judge call per step
    prompts = [c for m, c in server.requests if m == "launch"][-len(steps) :]
    assert all(isinstance(c, str) for c in prompts)  # text observations: no images
    assert all(f"Goal: {env.episode.instruction}\n" in c for c in prompts)
    assert 'Step Action Text: do(action="Launch", app="Settings")' in prompts[0]


def test_weight_and_composition(server: _Server) -> None:
    env = EpisodeRecorder(ProcessReward(gym.make("GuiAndroid-v0", task=TASK), judge(server, "yes"), weight=0.5))
    steps = oracle_run(env)
    assert [s["reward_components"][PROCESS] for s in steps] == [0.5] * len(steps)
    assert env.episodes[-1].steps[0].action_description == "Launch Settings"
    assert steps[-1]["episode_reward_components"][PROCESS] == [0.5] * len(steps)


def test_unparseable_reply_counts_as_no(server: _Server) -> None:
    env = ProcessReward(gym.make("GuiAndroid-v0", task=TASK), judge(server, "maybe"))
    steps = oracle_run(env)
    assert all(s["reward_components"][PROCESS] == 0.0 and s["process_judge"] == "unparsed" for s in steps)
    assert steps[0]["process_reply"] == "Maybe; it is hard to say."


def test_invalid_actions_skip_the_judge(server: _Server) -> None:
    env = ProcessReward(gym.make("GuiAndroid-v0", task=TASK), judge(server, "yes"))
    env.reset(seed=0)
    before = server.count("yes")
    _, r, _, _, info = env.step("tap somewhere nice")
    assert not info["format_valid"] and info["process_judge"] == "skipped"
    assert r == 0.0 and info["reward_components"][PROCESS] == 0.0
    assert server.count("yes") == before
    env = ProcessReward(gym.make("GuiAndroid-v0", task=TASK), judge(server, "yes"), skip_invalid=False)
    env.reset(seed=0)
    _, r, _, _, info = env.step("tap somewhere nice")
    assert info["process_judge"] == "yes" and r == pytest.approx(0.3)
    assert server.count("yes") == before + 1


def test_judge_down_never_ends_the_episode(caplog: pytest.LogCaptureFixture) -> None:
    env = ProcessReward(gym.make("GuiAndroid-v0", task=TASK), dead_judge(), max_failures=2)
    with caplog.at_level(logging.WARNING, logger="wrappers.process"):
        steps = oracle_run(env)
        assert steps[-1]["success"]  # the episode completed
        assert all(s["reward_components"][PROCESS] == 0.0 and s["process_judge"] == "error" for s in steps)
        assert "connection failed" in steps[0]["process_error"]
        assert "failed 2 times in a row" in steps[-1]["process_error"]  # stopped asking after two failures
        assert env.calls == env.failures == 2
        assert steps[-1]["r"] == pytest.approx(1.0)  # the outcome is untouched
        oracle_run(env, seed=1)  # a new episode asks again
    assert env.calls == env.failures == 4
    records = [r for r in caplog.records if r.name == "wrappers.process"]
    assert len(records) == 2  # once per episode
    assert TASK in records[0].getMessage() and "connection failed" in records[0].getMessage()


def test_slow_judge_and_raising_judge(server: _Server) -> None:
    env = ProcessReward(gym.make("GuiAndroid-v0", task=TASK), judge(server, "slow", timeout=0.05))
    env.reset(seed=0)
    _, r, _, _, info = env.step(env.unwrapped.oracle_action())
    assert r == 0.0 and info["process_judge"] == "error" and "timeout=0.05s" in info["process_error"]

    class Broken:
        def complete(self, prompt: str, images: Any = None) -> str:
            raise KeyError("no such model")

    env = ProcessReward(gym.make("GuiAndroid-v0", task=TASK), Broken(), max_failures=None)
    steps = oracle_run(env)
    assert all(s["process_error"] == "KeyError: 'no such model'" for s in steps)
    assert env.calls == len(steps)


def _png_size(url: str) -> tuple[int, int]:
    head, data = url.split(",", 1)
    assert head == "data:image/png;base64"
    return Image.open(io.BytesIO(base64.b64decode(data))).size


def test_screenshots_before_and_after_are_sent(server: _Server) -> None:
    env = ProcessReward(gym.make("GuiAndroid-v0", task=TASK, obs_mode="both", screen_size=SMALL), judge(server, "shot"))
    steps = oracle_run(env)
    sent = [c for m, c in server.requests if m == "shot"][-len(steps) :]
    for content in sent:
        text, before, after = content
        assert text["text"].startswith("You are a step helpfulness judge")
        assert _png_size(before["image_url"]["url"]) == SMALL and _png_size(after["image_url"]["url"]) == SMALL
    for prev, cur in itertools.pairwise(sent):
        assert cur[1] == prev[2]  # this step's "before" is the last step's "after"
    assert sent[0][1] != sent[0][2]  # launching Settings changed the screen
    assert all(s["reward_components"][PROCESS] == 0.3 for s in steps)


@pytest.mark.parametrize("obs_mode, supports", [("text", True), ("both", False)])
def test_text_only_when_no_screen_or_no_vision(server: _Server, obs_mode: str, supports: bool) -> None:
    mode = f"text-{obs_mode}"
    llm = judge(server, mode, supports_images=supports)
    env = ProcessReward(gym.make("GuiAndroid-v0", task=TASK, obs_mode=obs_mode, screen_size=SMALL), llm)
    env.reset(seed=0)
    env.step(env.unwrapped.oracle_action())
    assert isinstance(server.requests[-1][1], str) and server.requests[-1][0] == mode


def test_needs_a_judge() -> None:
    with pytest.raises(ValueError, match=r"OpenAICompatibleLLM\(base_url, model\).*TransformersLLM\(path\)"):
        ProcessReward(gym.make("GuiAndroid-v0", task=TASK), None)
    with pytest.raises(TypeError, match="complete"):
        ProcessReward(gym.make("GuiAndroid-v0", task=TASK), "gpt-4o")


@pytest.mark.parametrize("obs_mode", ["text", "both"])
def test_check_env(server: _Server, obs_mode: str) -> None:
    base = gym.make("GuiAndroid-v0", task=TASK, obs_mode=obs_mode, screen_size=SMALL, render_mode="rgb_array")
    env = ProcessReward(base.unwrapped, judge(server, "yes"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # check_env advises checking the unwrapped env; the wrapper is what is under test here
        warnings.filterwarnings("ignore", message=r".*is different from the unwrapped version")
        check_env(env)
