"""UI-Mem's guidance wrapper and guidance-aware reward (Eq. 4-5) on the families that report
milestones, in a real vector env, and Eq. 5 against hand-computed values."""

from __future__ import annotations

import gymnasium as gym
import pytest
import textrooms  # noqa: F401  (registers TextRooms-v0)

import gui_gym  # noqa: F401
from gui_gym.core import contract as C
from gui_gym.core.family import family_of
from wrappers.memory import ExperienceMemory, GuidanceReward, GuidanceWrapper
from wrappers.spec import RewardState, make_env


def memory_for_wifi() -> ExperienceMemory:
    memory = ExperienceMemory()
    memory.add_workflow("SystemWifiTurnOn", ["Open Settings", "Open 'Network & internet'", "Turn Wi-Fi on"],
                        scene="settings")  # fmt: skip
    memory.add_skill("settings", "Turn Wi-Fi on", "Tap the Wi-Fi switch")
    memory.add_failure("settings", "Open Settings", "opened Chrome", "Launch Settings, not a browser")
    return memory


@pytest.mark.parametrize(
    ("level", "want"),
    [
        ("strong", "1.Open Settings  (Guidance: Avoid: Launch Settings, not a browser)\n2.Open 'Network & internet'\n"
                   "3.Turn Wi-Fi on  (Guidance: Tip: Tap the Wi-Fi switch)"),
        ("weak", "1.Open Settings\n2.Open 'Network & internet'\n3.Turn Wi-Fi on"),
        ("none", ""),
    ],
)  # fmt: skip
def test_the_level_in_the_reset_options_decides_the_guidance(level: str, want: str) -> None:
    env = GuidanceWrapper(gym.make("GuiAndroid-v0", task="SystemWifiTurnOn"), memory_for_wifi())
    obs, info = env.reset(seed=0, options={C.GUIDANCE: level})
    assert obs[C.GUIDANCE] == want and info[C.GUIDANCE_LEVEL] == level and info[C.GUIDANCE] == want
    assert env.observation_space.contains(obs) and env.scene_of("SystemWifiTurnOn") == "settings"
    obs, _, _, _, info = env.step('do(action="Home")')
    assert obs[C.GUIDANCE] == want and info[C.GUIDANCE_LEVEL] == level
    assert "Guidance" not in obs["instruction"]  # the instruction stays what the env gave


def test_a_task_the_memory_does_not_know_is_unguided_whatever_was_asked() -> None:
    env = GuidanceWrapper(gym.make("GuiAndroid-v0", task="SystemBluetoothTurnOn"), memory_for_wifi(), level="strong")
    obs, info = env.reset(seed=0)
    assert obs[C.GUIDANCE] == "" and info[C.GUIDANCE_LEVEL] == "none"
    with pytest.raises(ValueError, match="unknown guidance level 'full'"):
        env.reset(seed=0, options={C.GUIDANCE: "full"})


def test_eq5_by_hand() -> None:
    r = GuidanceReward(gym.make("GuiAndroid-v0", task="SystemWifiTurnOn"), outcome=1.0, progress=0.5, bonus=0.2)
    # R = λ_o·r_o + λ_p·r_p + α·1[none]·r_o; the env pays r_o = 1 itself, the terms add the rest
    assert r.terms(success=True, progress=0.5, guided=False) == {"uimem_progress": 0.5, "uimem_bonus": 0.2}
    assert r.terms(success=True, progress=1.0, guided=True) == {"uimem_progress": 0.5, "uimem_bonus": 0.0}
    assert r.terms(success=False, progress=0.6, guided=False) == {"uimem_progress": 0.3, "uimem_bonus": 0.0}
    half = GuidanceReward(gym.make("GuiAndroid-v0", task="SystemWifiTurnOn"), outcome=0.5, progress=0.5, bonus=0.5)
    # λ_o = 0.5: an unguided success is 0.5·1 + 0.5·1 + 0.5·1 = 1.5 = 1 (paid) + 0.5 + 0.5 − 0.5
    assert half.terms(True, 1.0, False) == {"uimem_progress": 0.5, "uimem_bonus": 0.5, "uimem_outcome": -0.5}
    assert sum(half.terms(True, 1.0, False).values()) + 1.0 == pytest.approx(1.5)
    with pytest.raises(ValueError, match="weights are >= 0"):
        GuidanceReward(gym.make("GuiAndroid-v0", task="SystemWifiTurnOn"), bonus=-1)


def _play(env: gym.Env, level: str, oracle: bool) -> dict:
    env.reset(seed=1, options={C.GUIDANCE: level})
    while True:
        action = env.unwrapped.oracle_action() if oracle else 'do(action="Home")'
        _, _, term, trunc, info = env.step(action)
        if term or trunc:
            return info


def test_the_reward_pays_progress_and_the_unguided_bonus_at_the_end() -> None:
    env = GuidanceReward(GuidanceWrapper(gym.make("GuiAndroid-v0", task="SystemWifiTurnOn", max_steps=4),
                                         memory_for_wifi()))  # fmt: skip
    unguided = _play(env, "none", oracle=True)
    assert unguided[C.REWARD_COMPONENTS] == {"outcome": 1.0, "uimem_progress": 0.5, "uimem_bonus": 0.2}
    n = len(unguided[C.EPISODE_REWARDS])
    assert unguided[C.EPISODE_REWARDS] == pytest.approx([1.7] * n)  # trajectory terms broadcast
    assert set(unguided[C.EPISODE_TRAJECTORY_TERMS]) >= {"outcome", "uimem_progress", "uimem_bonus"}
    guided = _play(env, "strong", oracle=True)
    assert guided[C.REWARD_COMPONENTS]["uimem_bonus"] == 0.0
    failed = _play(env, "none", oracle=False)  # Home, four times: no milestone, no success
    assert failed[C.REWARD_COMPONENTS] == {"outcome": 0.0, "uimem_progress": 0.0, "uimem_bonus": 0.0}


@pytest.mark.parametrize("env_id", ["GuiAndroid-v0", "ALFWorld-v0", "WebShop-v0", "GuiExperience-v0", "TextRooms-v0"])
def test_the_uimem_term_runs_in_a_vector_env_on_every_family(env_id: str) -> None:
    """The reward spec ``uimem`` builds the guidance wrapper and Eq. 5 on each family with
    milestones; the run's memory is shared, and guidance reaches every sub-env's observation."""
    state = RewardState()
    family = family_of(env_id)
    task = family.tasks(None)[0].id
    memory = state.experience_memory()
    memory.add_workflow(task, ["First step", "Second step"])
    envs = gym.vector.SyncVectorEnv(
        [lambda: make_env(env_id, tasks=task, reward="uimem", state=state, max_steps=3)] * 2
    )
    obs, info = envs.reset(seed=0, options={C.GUIDANCE: "weak"})
    assert list(obs[C.GUIDANCE]) == ["1.First step\n2.Second step"] * 2
    assert list(info[C.GUIDANCE_LEVEL]) == ["weak", "weak"]
    done = [False, False]
    for _ in range(4):
        actions = []
        for i in range(2):
            row = {k: v[i] for k, v in obs.items()}
            extra = (
                {C.ADMISSIBLE_ACTIONS: list(info[C.ADMISSIBLE_ACTIONS][i])} if C.ADMISSIBLE_ACTIONS in info else None
            )
            cands = family.admissible_actions(row, extra)
            actions.append(cands[0].action)
        obs, _, term, trunc, info = envs.step(actions)
        done = [d or t or u for d, t, u in zip(done, term, trunc, strict=True)]
    assert all(done) and memory.plans(task)[0]["n_used"] == 2
    envs.close()


def test_async_workers_read_the_memory_file_and_count_their_uses_in_it(tmp_path) -> None:
    state = RewardState(memory=ExperienceMemory(tmp_path / "memory.json"))
    make = lambda: make_env("GuiAndroid-v0", tasks="SystemWifiTurnOn", reward="uimem", state=state, max_steps=3)  # noqa: E731
    envs = gym.vector.AsyncVectorEnv([make, make])
    try:
        state.memory.add_workflow("SystemWifiTurnOn", ["Open Settings", "Turn Wi-Fi on"])  # after the workers started
        obs, _ = envs.reset(seed=0, options={C.GUIDANCE: "weak"})
    finally:
        envs.close()
    assert list(obs[C.GUIDANCE]) == ["1.Open Settings\n2.Turn Wi-Fi on"] * 2
    assert ExperienceMemory.load(tmp_path / "memory.json").plans("SystemWifiTurnOn")[0]["n_used"] == 2
