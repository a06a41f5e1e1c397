"""wrappers.spec: one registry of reward terms, its parser, and the builders that use it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

import gui_gym  # noqa: F401
from gui_gym.core.trajectory import Step, Trajectory
from wrappers import MilestoneReward, OutcomeModelReward, ProgressReward, ShortestPathReward
from wrappers.progress.model import ProgressModel
from wrappers.protocol import RewardShaping
from wrappers.spec import TERMS, RewardState, make_env, parse_reward, register_term, wrap, wrapper_chain

TASK = "SystemWifiTurnOn"


@pytest.fixture(scope="module")
def checkpoint(tiny_encoder: str, tmp_path_factory: pytest.TempPathFactory) -> str:
    """An (untrained) progress-model checkpoint: what orm=PATH and progress=PATH load."""
    path = tmp_path_factory.mktemp("rm") / "best.pt"
    ProgressModel(encoder=tiny_encoder, hidden=8).save(path)
    return str(path)


def oracle_episode(env: gym.Env, seed: int = 0) -> tuple[list[float], dict[str, Any]]:
    env.reset(seed=seed)
    rewards, done = [], False
    while not done:
        _, r, terminated, truncated, info = env.step(env.unwrapped.oracle_action())
        rewards.append(float(r))
        done = terminated or truncated
    return rewards, info


def describe(env: gym.Env) -> list[tuple[Any, ...]]:
    """What a wrapper chain is, comparable across two builds: each wrapper's type and settings."""
    out: list[tuple[Any, ...]] = []
    for w in wrapper_chain(env):
        if isinstance(w, MilestoneReward):
            out.append(("milestone", w.config, w.book is not None))
        elif isinstance(w, ShortestPathReward):
            out.append(("spa", w.alpha))
        elif isinstance(w, ProgressReward | OutcomeModelReward):
            out.append((type(w).__name__, type(w.model).__name__))
        else:
            out.append((type(w).__name__,))
    return out


# -- every term builds and pays ---------------------------------------------------------------


def test_every_registered_term_builds_on_the_android_env(checkpoint: str) -> None:
    args = {"orm": checkpoint, "progress": checkpoint, "milestone": "no-decay", "milestone-adaptive": "base-success"}
    assert set(TERMS) >= {"outcome", "orm", "milestone", "milestone-adaptive", "progress", "spa"}
    state = RewardState()
    for name in TERMS:
        spec = f"{name}={args[name]}" if name in args else name
        env = make_env("GuiAndroid-v0", tasks=TASK, reward=spec, state=state, max_steps=8)
        rewards, info = oracle_episode(env)
        assert info["success"] is True
        chain = wrapper_chain(env)
        assert len(chain) == (0 if name == "outcome" else 1), (name, chain)
        if chain:
            comps = info["reward_components"]
            assert comps["outcome"] in (0.0, 1.0)  # the ORM's verdict or the env's check
            if isinstance(chain[0], RewardShaping):  # the step reward is the sum of the components
                assert rewards[-1] == pytest.approx(sum(comps.values()))
    # The run's shared objects were made once and handed to the terms that share them.
    assert state.book is not None and state.lengths is not None and list(state.models) == [checkpoint]


def test_progress_without_a_path_reads_the_env_and_with_one_loads_the_model_once(checkpoint: str) -> None:
    env = make_env("GuiAndroid-v0", tasks=TASK, reward="progress")
    assert wrapper_chain(env)[0].model is None  # "env": the env's own milestones
    state = RewardState()
    a = make_env("GuiAndroid-v0", tasks=TASK, reward=f"progress={checkpoint}", state=state)
    b = make_env("GuiAndroid-v0", tasks=TASK, reward=f"orm={checkpoint}+spa", state=state)
    model = wrapper_chain(a)[0].model
    assert isinstance(model, ProgressModel) and wrapper_chain(b)[-1].model is model


def test_terms_compose_in_spec_order_with_the_orm_innermost(checkpoint: str) -> None:
    env = make_env("GuiAndroid-v0", tasks=TASK, reward=f"spa+milestone=no-decay+orm={checkpoint}", spa_alpha=0.5)
    chain = wrapper_chain(env)  # outermost first
    assert [type(w) for w in chain] == [MilestoneReward, ShortestPathReward, OutcomeModelReward]
    assert chain[0].config.decay is False and chain[1].alpha == 0.5


def test_wrap_puts_a_spec_on_an_env_made_elsewhere() -> None:
    state = RewardState()
    envs = [wrap(gym.make("GuiAndroid-v0", task=TASK), "milestone-adaptive+spa", state) for _ in range(2)]
    books = {id(wrapper_chain(e)[1].book) for e in envs}
    lengths = {id(wrapper_chain(e)[0].lengths) for e in envs}
    assert books == {id(state.book)} and lengths == {id(state.lengths)}  # one book, one T_min per run


# -- a new term is one registration ------------------------------------------------------------


class StepCost(RewardShaping):
    """A fixed cost per step: the smallest real shaping term (for the registry test)."""

    def __init__(self, env: gym.Env, cost: float = 0.01) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, cost=cost)
        super().__init__(env)
        self.cost = float(cost)

    def step_terms(self, step: Step, info: dict[str, Any]) -> dict[str, float]:
        return {"step_cost": -self.cost}

    def episode_terms(self, episode: Trajectory) -> dict[str, list[float]]:
        return {"step_cost": [-self.cost] * len(episode.steps)}


@pytest.fixture
def step_cost_term():
    @register_term("step-cost", summary="a cost per step", arg="optional", arg_name="COST")
    def _build(env: gym.Env, arg: str | None, ctx) -> gym.Env:
        return StepCost(env, cost=float(arg) if arg else 0.01)

    yield "step-cost"
    del TERMS["step-cost"]


def test_a_registered_term_is_usable_from_a_spec(step_cost_term: str) -> None:
    assert parse_reward("spa+step-cost=0.25") == [("spa", None), ("step-cost", "0.25")]
    env = make_env("GuiAndroid-v0", tasks=TASK, reward="step-cost=0.25+spa", max_steps=8)
    assert [type(w) for w in wrapper_chain(env)] == [ShortestPathReward, StepCost]
    rewards, info = oracle_episode(env)
    assert info["reward_components"] == {"outcome": 1.0, "step_cost": -0.25, "spa": 0.0}
    assert rewards == [-0.25] * (len(rewards) - 1) + [0.75]
    assert info["episode_rewards"] == [0.75] * len(rewards)  # SPA: a success pays its outcome at every step
    with pytest.raises(ValueError, match="already registered"):
        register_term("step-cost")(lambda env, arg, ctx: env)


# -- errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("", "empty reward spec"),
        ("  + ", "empty reward spec"),
        ("dense", "unknown reward term 'dense'.*choose from outcome, orm, no-outcome, milestone"),
        ("spa+spa", "'spa' appears twice"),
        ("milestone+milestone-adaptive", "either 'milestone' or 'milestone-adaptive'"),
        ("spa=3", "takes no argument"),
        ("outcome=x", "takes no argument"),
        ("orm", "needs a checkpoint"),
        ("orm= ", "needs a checkpoint"),
        ("milestone=decay", "unknown milestone option 'decay'"),
        ("milestone-adaptive=no-decay,typo", "unknown milestone-adaptive option 'typo'"),
    ],
)
def test_bad_specs_say_what_is_wrong(spec: str, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        parse_reward(spec)


def test_a_bad_spec_fails_before_the_env_is_made(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_make(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("gym.make ran for a bad spec")

    monkeypatch.setattr(gym, "make", no_make)
    with pytest.raises(ValueError, match="unknown reward term"):
        make_env("GuiAndroid-v0", tasks=TASK, reward="milestone+bogus")


def test_term_names_are_checked_at_registration() -> None:
    for bad in ("", "a+b", "a=b", "a b"):
        with pytest.raises(ValueError, match="reward term name"):
            register_term(bad)
    with pytest.raises(ValueError, match="needs the allowed options"):
        register_term("switches", arg="options")
    assert "switches" not in TERMS


def test_spec_names_are_case_and_space_insensitive() -> None:
    assert parse_reward(" Milestone-Adaptive = No-Decay + SPA ") == [("milestone-adaptive", "No-Decay"), ("spa", None)]
    env = make_env("GuiAndroid-v0", tasks=TASK, reward=" Milestone-Adaptive = No-Decay + SPA ")
    assert wrapper_chain(env)[1].config.decay is False


# -- one registry for every trainer ------------------------------------------------------------


def test_the_sb3_builder_and_the_trainer_build_the_same_chain(tiny_encoder: str, tmp_path: Path, checkpoint: str):
    pytest.importorskip("stable_baselines3")
    from agents.sb3 import CandidateSlots, make_sb3_env
    from agents.train import TrainConfig, Trainer

    for i, spec in enumerate(["outcome", "milestone+spa", f"milestone-adaptive=no-decay+progress={checkpoint}"]):
        cfg = TrainConfig(
            tasks=TASK, reward=spec, iterations=1, tasks_per_iter=1, group_size=2, num_envs=2, max_steps=6,
            eval_every=0, out=str(tmp_path / f"run{i}"), encoder=tiny_encoder, progress=False, hidden=16,
        )  # fmt: skip
        trainer = Trainer(cfg)
        try:
            trained = trainer.rollouts.envs.envs[0]  # a sub-env of the trainer's vector env
            sb3 = make_sb3_env(task=TASK, reward=spec, slots=16, encoder=tiny_encoder, monitor=False, max_steps=6)
            assert isinstance(sb3, CandidateSlots)
            assert describe(sb3) == describe(trained), spec
            assert len(describe(sb3)) == len(parse_reward(spec)) - (spec == "outcome")
        finally:
            trainer.rollouts.close()
            trainer.eval_rollouts.close()


def test_the_study_settings_are_specs_of_the_registry() -> None:
    from agents.study.settings import SETTINGS, Setting

    for s in SETTINGS:
        assert all(name in TERMS for name, _ in parse_reward(s.spec("/models")))
    with pytest.raises(ValueError, match="unknown reward term 'bogus'"):
        Setting("bogus", "milestone+bogus", "main", "Bogus")


def test_the_cosine_option_scores_with_the_papers_matcher() -> None:
    """``=cosine``: ADMIRE's Eq. 8-9 as written (pure cosine, δ = 0.75) in place of the guarded matcher;
    it leaves ADMIRE's credit settings as they are."""
    from wrappers.spec import admire_config

    def matcher(spec: str) -> Any:
        env = make_env("GuiAndroid-v0", tasks="SystemWifiTurnOn", reward=spec)
        (reward,) = [w for w in wrapper_chain(env) if isinstance(w, MilestoneReward)]
        return reward.matcher

    for term in ("milestone", "milestone-adaptive"):
        paper = matcher(f"{term}=cosine,no-decay")
        assert (paper.mode, paper.delta) == ("cosine", 0.75)
        assert matcher(term).mode == "guarded"
    assert admire_config("cosine,no-decay") == admire_config("no-decay")
    assert matcher("milestone-adaptive=Cosine").mode == "cosine"  # options are case-insensitive
