"""``ALFWorld-v0``: the env over generated games and game files, in vector envs, with bad input."""

from __future__ import annotations

import re
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import gui_gym  # noqa: F401
from gui_gym.alfworld.catalog import generated
from gui_gym.core import contract as C
from gui_gym.core.family import family_of
from gui_gym.core.io import CorruptFileError

GAMES = Path(__file__).parent / "fixtures" / "games"


def play_oracle(env: gym.Env) -> tuple[bool, int, dict]:
    _, info = env.reset(seed=0)
    steps, done = 0, False
    while not done:
        _obs, _reward, terminated, truncated, info = env.step(env.unwrapped.oracle_action())
        steps, done = steps + 1, terminated or truncated
    return bool(info[C.SUCCESS]), steps, info


def test_the_oracle_solves_games_of_every_type() -> None:
    env = gym.make("ALFWorld-v0", split="eval_out_of_distribution")
    seen = set()
    for entry in generated("eval_out_of_distribution")[:40]:
        _, info = env.reset(seed=0, options={C.TASK: entry.task_id})
        reached = list(info[C.MILESTONES])
        done = False
        while not done:
            _, reward, terminated, truncated, info = env.step(env.unwrapped.oracle_action())
            reached += info[C.MILESTONES]
            done = terminated or truncated
        assert terminated and reward == 1.0 and info[C.SUCCESS] and info["won"], entry.task_id
        assert info[C.PROGRESS] == 1.0 and reached == info_milestones(env)
        seen.add(entry.task_type)
    assert len(seen) == 6


def info_milestones(env: gym.Env) -> list[str]:
    return [m.label for m in env.unwrapped._milestones]


def test_step_info_follows_the_contract_and_textworld() -> None:
    env = gym.make("ALFWorld-v0", game_files=GAMES / "simple_pencil_dresser" / "game.tw-pddl")
    obs, info = env.reset(seed=0)
    assert obs["instruction"] == info[C.INSTRUCTION] == "put some pencil on dresser"
    assert obs["text"].startswith("-= Welcome to TextWorld, ALFRED! =-\n\nYou are in the middle of a room.")
    assert obs["admissible"].split("\n") == info[C.ADMISSIBLE_ACTIONS]
    assert info[C.TASK_ID] == "simple_pencil_dresser" and info["task_type"] == "pick_and_place_simple"
    assert info[C.TASK_MILESTONES] == ["Find the pencil", "Take the pencil", "Put the pencil in/on the dresser"]
    obs, reward, terminated, _, info = env.step("go to desk 1")
    assert obs["text"] == "You arrive at desk 1. On the desk 1, you see a pen 1, and a pencil 1."
    assert info[C.ACTION_KIND] == C.NAVIGATE and info[C.FORMAT_VALID]
    assert info[C.ACTION_DESCRIPTION] == f"go to desk 1: {obs['text']}"
    assert info[C.MILESTONES] == ["Find the pencil"] and info[C.PROGRESS] == pytest.approx(1 / 3)
    obs, reward, terminated, _truncated, info = env.step("take pencil 1 from desk 1")
    assert info[C.ACTION_KIND] == C.INTERACT and info[C.MILESTONES] == ["Take the pencil"]
    assert (reward, terminated) == (0.0, False)


@pytest.mark.parametrize(
    "action",
    ["", "   ", "Go to desk 1", "go to desk 9", "take pencil 1 from desk 1", "🙂" * 50, "x" * 9_000, None, 3, {"a": 1}],
)
def test_bad_actions_are_reported_no_ops(action: object) -> None:
    env = gym.make("ALFWorld-v0", game_files=GAMES / "simple_pencil_dresser" / "game.tw-pddl")
    obs, _ = env.reset(seed=0)
    obs2, reward, terminated, truncated, info = env.step(action)
    assert obs2["text"] == "Nothing happens."
    assert obs2["admissible"] == obs["admissible"] and obs2["instruction"] == obs["instruction"]
    assert info[C.FORMAT_VALID] is False and info[C.ACTION_KIND] == C.INVALID and info[C.REASON]
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert env.observation_space.contains(obs2)


def test_a_near_miss_gets_a_hint() -> None:
    env = gym.make("ALFWorld-v0", game_files=GAMES / "simple_pencil_dresser" / "game.tw-pddl")
    env.reset(seed=0)
    _, _, _, _, info = env.step("go to desk 2")
    assert "did you mean 'go to desk 1'" in info[C.REASON]


def test_the_episode_is_cut_at_max_steps() -> None:
    env = gym.make("ALFWorld-v0", split="eval_in_distribution", max_steps=3)
    env.reset(seed=1)
    for _ in range(3):
        _, reward, terminated, truncated, info = env.step("look")
    assert truncated and not terminated and info[C.SUCCESS] is False and reward == 0.0
    with pytest.raises(gym.error.ResetNeeded):
        env.step("look")


def test_default_limit_is_fifty_steps() -> None:
    env = gym.make("ALFWorld-v0")
    assert env.unwrapped.max_steps == 50


def test_legacy_grammar_and_its_commands() -> None:
    env = gym.make("ALFWorld-v0", game_files=GAMES / "simple_pencil_dresser" / "game.tw-pddl", grammar="legacy")
    env.reset(seed=0)
    obs, *_ = env.step("go to desk 1")
    assert obs["text"].startswith("You arrive at loc ")
    env.step("take pencil 1 from desk 1")
    obs, *_ = env.step("go to dresser 1")
    assert "put pencil 1 in/on dresser 1" in obs["admissible"].split("\n")
    assert "help" not in obs["admissible"].split("\n")
    _, _reward, terminated, _, info = env.step("put pencil 1 in/on dresser 1")
    assert terminated and info[C.SUCCESS]


def test_a_legacy_game_file_speaks_legacy() -> None:
    env = gym.make("ALFWorld-v0", game_files=GAMES / "simple_pencil_dresser.legacy")
    env.reset(seed=0)
    obs, *_ = env.step("go to desk 1")
    assert obs["text"].startswith("You arrive at loc ")


def test_shuffled_names_change_between_episodes_but_not_for_a_seed() -> None:
    env = gym.make("ALFWorld-v0", game_files=GAMES / "two_creditcard_armchair", shuffle_names=True)
    numberings = set()
    for seed in range(12):
        env.reset(seed=seed)
        numberings.add(tuple(sorted(env.unwrapped.engine.world.names.items())))
    assert len(numberings) > 1  # three credit cards, numbered in another order
    env.reset(seed=5)
    first = env.unwrapped.engine.world.names
    env.reset(seed=5)
    assert env.unwrapped.engine.world.names == first
    assert play_oracle(env)[0]


def test_task_selection_by_type_tier_split_and_id() -> None:
    family = family_of("ALFWorld-v0")
    heat = family.tasks("pick_heat_then_place_in_recep")
    assert heat and all(t.app == "pick_heat_then_place_in_recep" for t in heat)
    assert {t.difficulty for t in family.tasks("easy")} == {"easy"}
    ood = family.tasks("eval_out_of_distribution")
    env = gym.make("ALFWorld-v0")  # the train pool, yet any split's id resolves
    _, info = env.reset(seed=0, options={C.TASK: ood[3].id})
    assert info[C.TASK_ID] == ood[3].id
    with pytest.raises(ValueError, match="unknown task id"):
        env.reset(options={C.TASK: "pick_heat_then_place_in_recep-Egg-None-Nowhere-1/trial_x"})
    with pytest.raises(ValueError, match="unknown split"):
        gym.make("ALFWorld-v0", split="valid_seen")


def test_out_of_distribution_scenes_are_never_trained_on() -> None:
    scene = lambda tid: int(tid.split("/")[0].rsplit("-", 1)[1])  # noqa: E731
    train = {scene(e.task_id) for e in generated("train")}
    ood = {scene(e.task_id) for e in generated("eval_out_of_distribution")}
    seen = {scene(e.task_id) for e in generated("eval_in_distribution")}
    assert ood and not ood & train and seen <= train


def test_vector_envs_run_alfworld() -> None:
    envs = gym.vector.SyncVectorEnv([lambda: gym.make("ALFWorld-v0", split="eval_in_distribution")] * 2)
    obs, info = envs.reset(seed=[0, 1])
    commands = [a.split("\n")[0] for a in obs["admissible"]]
    obs, _reward, _terminated, _truncated, info = envs.step(commands)
    assert len(obs["text"]) == 2 and info[C.FORMAT_VALID].all()
    envs.close()
    async_envs = gym.vector.AsyncVectorEnv([lambda: gym.make("ALFWorld-v0", split="eval_in_distribution")] * 2)
    obs, _ = async_envs.reset(seed=[0, 1])
    obs, *_ = async_envs.step(["look", "nonsense"])
    assert tuple(obs["text"])[1] == "Nothing happens."
    async_envs.close()


def test_game_files_errors_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no ALFWorld game file"):
        gym.make("ALFWorld-v0", game_files=tmp_path / "missing.tw-pddl")
    with pytest.raises(FileNotFoundError, match=r"no game\.tw-pddl files"):
        gym.make("ALFWorld-v0", game_files=tmp_path)
    bad = tmp_path / "game.tw-pddl"
    bad.write_text('{"pddl_domain": "x", "grammar": "y", "pddl_problem": "(define (problem p"}', encoding="utf-8")
    with pytest.raises(CorruptFileError, match=re.escape(str(bad))):
        gym.make("ALFWorld-v0", game_files=bad)


def test_textworld_backend_without_textworld_says_what_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    real_import = builtins.__import__

    def no_textworld(name: str, *args: object, **kwargs: object) -> object:
        if name.split(".")[0] in ("textworld", "alfworld", "fast_downward"):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_textworld)
    with pytest.raises(ImportError, match="pip install"):
        env = gym.make("ALFWorld-v0", backend="textworld", game_files=GAMES / "simple_pencil_dresser")
        env.reset(seed=0)


def test_shuffled_names_need_the_embedded_engine() -> None:
    with pytest.raises(ValueError, match="shuffle_names=True needs backend='embedded'"):
        gym.make("ALFWorld-v0", backend="textworld", shuffle_names=True, game_files=GAMES / "simple_pencil_dresser")


def test_render_ansi_and_family_texts() -> None:
    env = gym.make("ALFWorld-v0", split="eval_in_distribution", render_mode="ansi")
    obs, info = env.reset(seed=2)
    text = env.render()
    assert text.startswith(f"[{info[C.INSTRUCTION]}]")
    family = family_of(env)
    compact = family.observation_text(obs)
    assert "Welcome" not in compact and "Your task is to" not in compact
    full = family.observation_text(obs, full=True)
    assert full.startswith(obs["text"]) and full.endswith(obs["admissible"])
    candidates = family.admissible_actions(obs)
    assert [c.action for c in candidates] == info[C.ADMISSIBLE_ACTIONS][: len(candidates)]
    assert family.instruction(obs) == info[C.INSTRUCTION]


def test_same_seed_same_episode() -> None:
    a, b = gym.make("ALFWorld-v0"), gym.make("ALFWorld-v0")
    for seed in (0, 7):
        oa, ia = a.reset(seed=seed)
        ob, ib = b.reset(seed=seed)
        assert oa == ob and ia == ib
    rng = np.random.default_rng(0)
    for _ in range(10):
        command = str(rng.choice(ia[C.ADMISSIBLE_ACTIONS]))
        ra, rb = a.step(command), b.step(command)
        assert ra[0] == rb[0] and ra[4] == rb[4]
        ia = ra[4]
        if ra[2] or ra[3]:
            break
