"""Every registered env keeps the env contract, and every reward term composes over it.

The env ids come from Gymnasium's registry (each id ``gui_gym`` registers, found by entry
point) plus the test-only ``TextRooms-v0`` family (``tests/textrooms.py``), so a new env id is
checked without editing this file.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
import textrooms

import gui_gym
from gui_gym.android.sim.adb.server import AdbServer, serve_adb
from gui_gym.core import contract as C
from gui_gym.core.contract import ContractError, check_contract
from gui_gym.core.family import EnvFamily, family_of
from wrappers.progress.model import ProgressModel
from wrappers.spec import TERMS, RewardState, make_env


def _ours(spec: gym.envs.registration.EnvSpec) -> bool:
    entry = spec.entry_point if isinstance(spec.entry_point, str) else spec.entry_point.__module__
    return entry.startswith(("gui_gym.", "textrooms"))


ENV_IDS = sorted(env_id for env_id, spec in gym.registry.items() if _ours(spec))
#: Per id, what makes one episode short enough for the suite (a small task selection).
KWARGS: dict[str, dict[str, Any]] = {
    "GuiAndroid-v0": {"task": "easy", "max_steps": 8},
    # the simulated phone served over the adb protocol (the ``served_phone`` fixture adds its port)
    "GuiAndroidDevice-v0": {"max_steps": 8, "settle_timeout": 0.05},
}


@pytest.fixture(scope="module")
def served_phone() -> Iterator[AdbServer]:
    server = serve_adb(port=0, timeout=10)
    yield server
    server.close()


def kwargs_for(env_id: str, request: pytest.FixtureRequest) -> dict[str, Any]:
    """``KWARGS[env_id]``, with the served phone's port for the device env."""
    kwargs = dict(KWARGS.get(env_id, {}))
    if env_id == "GuiAndroidDevice-v0":
        kwargs["port"] = request.getfixturevalue("served_phone").port
    return kwargs


def test_the_registry_holds_every_family() -> None:
    assert {"GuiAndroid-v0", "GuiAndroidDevice-v0", "TextRooms-v0"} <= set(ENV_IDS)
    assert gui_gym.__version__


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_check_contract(env_id: str, request: pytest.FixtureRequest) -> None:
    check_contract(env_id, env_kwargs=kwargs_for(env_id, request), seed=3)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_family_answers_for_every_task(env_id: str, request: pytest.FixtureRequest) -> None:
    family = family_of(env_id)
    assert isinstance(family, EnvFamily) and family is family_of(env_id)
    specs = family.tasks(None)
    assert specs and len({t.id for t in specs}) == len(specs)
    env = gym.make(env_id, **kwargs_for(env_id, request))
    for spec in specs[:: max(1, len(specs) // 6)]:
        obs, info = env.reset(seed=0, options={C.TASK: spec.id})
        assert info[C.TASK_ID] == spec.id and info[C.DIFFICULTY] == spec.difficulty
        assert family.instruction(obs) == info[C.INSTRUCTION]
        assert isinstance(family.observation_text(obs), str) and isinstance(
            family.observation_text(obs, full=True), str
        )
        candidates = family.admissible_actions(obs, info)
        assert candidates and all(c.kind in family.candidate_kinds for c in candidates)
        assert all(c.action_kind in C.ACTION_KINDS for c in candidates)
        # the kind a candidate declares is the kind the env reports when it is taken
        for c in candidates[:3]:
            env.reset(seed=0, options={C.TASK: spec.id})
            _, _, _, _, step_info = env.step(c.action)
            assert step_info[C.ACTION_KIND] in (c.action_kind, C.INVALID)
    with pytest.raises(ValueError, match="unknown task id"):
        family.tasks("NoSuchTask")
    assert family.action_prompt()


@pytest.fixture(scope="module")
def progress_checkpoint(tmp_path_factory: pytest.TempPathFactory, tiny_encoder: str) -> str:
    path = tmp_path_factory.mktemp("progress") / "model.pt"
    ProgressModel(tiny_encoder, hidden=8).save(path)
    return str(path)


#: Every term of the registry (with a checkpoint where it needs or takes one), and a composition.
SPECS = sorted(
    {name if term.arg != "required" else f"{name}=CKPT" for name, term in TERMS.items()}
    | {f"{name}=CKPT" for name, term in TERMS.items() if term.arg == "optional"}
    | {"milestone+spa"}
)


def test_specs_cover_the_registry() -> None:
    assert {s.partition("=")[0] for s in SPECS} >= set(TERMS)


@pytest.mark.parametrize("env_id", ENV_IDS)
@pytest.mark.parametrize("term", SPECS)
def test_every_reward_term_composes(
    env_id: str, term: str, progress_checkpoint: str, request: pytest.FixtureRequest
) -> None:
    spec = term.replace("CKPT", progress_checkpoint)
    state = RewardState()
    kwargs = kwargs_for(env_id, request)
    env = make_env(env_id, tasks=kwargs.get("task"), reward=spec, state=state,
                   **{k: v for k, v in kwargs.items() if k != "task"})  # fmt: skip
    family = family_of(env)
    obs, info = env.reset(seed=1)
    total, done, steps = [], False, 0
    while not done:
        action = family.admissible_actions(obs, info)[steps % 2]
        obs, reward, terminated, truncated, info = env.step(action.action)
        done, steps = terminated or truncated, steps + 1
        comps = info[C.REWARD_COMPONENTS] if spec != "outcome" else {"outcome": reward}
        assert reward == pytest.approx(sum(comps.values()))
        total.append(reward)
    assert isinstance(info[C.SUCCESS], bool)
    final = info.get(C.EPISODE_REWARDS)
    if final is not None:
        assert len(final) == steps and np.all(np.isfinite(final))


class _CountingRooms(textrooms.TextRoomsEnv):
    """Breaks the contract: its observation shows the step count, so an invalid action changes it."""

    def _obs(self) -> dict[str, str]:
        obs = super()._obs()
        return {**obs, "text": obs["text"] + f"\nStep {self._steps}."}


class _RaisingRooms(textrooms.TextRoomsEnv):
    """Breaks the contract: a malformed action raises instead of being a reported no-op."""

    def step(self, action: Any) -> Any:
        if not isinstance(action, str) or not textrooms.COMMAND.match(action):
            raise ValueError("bad action")
        return super().step(action)


@pytest.mark.parametrize(
    ("cls", "message"), [(_CountingRooms, "invalid action changed the observation"), (_RaisingRooms, "bad action")]
)
def test_check_contract_finds_a_broken_env(cls: type, message: str) -> None:
    gym.register("BrokenRooms-v0", entry_point=cls)
    try:
        with pytest.raises((ContractError, ValueError), match=message):
            check_contract("BrokenRooms-v0")
    finally:
        del gym.registry["BrokenRooms-v0"]
