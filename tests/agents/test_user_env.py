"""A user's own env, registered by their own module, through ``--env module:EnvId`` and the trainer.

This module is that user module: importing it registers ``Lamps-v0``, a three-button world
with its own family, so ``gui-gym ... --env test_user_env:Lamps-v0`` makes gymnasium import it.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
import pytest
import torch

from agents.cli import build_parser, main
from agents.cli.train import config_from_args
from agents.policies.base import Decision, TrainablePolicyMixin
from agents.train import TrainConfig, Trainer, env_family, task_ids
from gui_gym.core import contract as C
from gui_gym.core.family import Candidate, select_tasks
from gui_gym.core.task import TaskSpec

ENV = "test_user_env:Lamps-v0"
SPECS = (
    TaskSpec("LampsPressOne", "lamps", "easy", "Press button <k>", kind="action"),
    TaskSpec("LampsPressTwice", "lamps", "medium", "Press button <k> twice", kind="action"),
)


class LampsFamily:
    """The family of ``Lamps-v0``: what the trainer and the CLI learn about it."""

    name = "lamps"
    candidate_kinds = ("press", "finish")

    def tasks(self, selection: str | Sequence[str] | None = None) -> list[TaskSpec]:
        return select_tasks(SPECS, selection, "Lamps-v0")

    def instruction(self, obs: Any) -> str:
        return ""  # the instruction is in info only; this observation does not show it

    def observation_text(self, obs: Any, full: bool = False) -> str:
        return str(obs)

    def action_prompt(self) -> str:
        return "Reply with `press N` (N in 0, 1, 2) or `finish`."

    def admissible_actions(self, obs: Any, info: dict[str, Any] | None = None, limit: int = 96) -> list[Candidate]:
        presses = [Candidate(f"press {i}", "press", f"press button {i}", C.INTERACT) for i in range(3)]
        return [*presses, Candidate("finish", "finish", "finish", C.FINISH)][:limit]

    def edit_actions(self) -> None:
        return None


class LampsEnv(gym.Env):
    """Press the instructed button (twice for the medium task); ``finish`` or the step limit ends it."""

    family = LampsFamily()
    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"]}

    def __init__(self, task: str | list[str] | None = None, max_steps: int | None = 6, render_mode=None) -> None:
        self.specs = self.family.tasks(task)
        self.max_steps = max_steps or 6
        self.render_mode = render_mode
        self.observation_space = gym.spaces.Text(256, charset=string.printable)
        self.action_space = gym.spaces.Text(64, charset=string.printable)
        self.last_options: dict[str, Any] | None = None

    def _obs(self) -> str:
        return f"lamps | lit {self.lit} | buttons 0 1 2"

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        self.last_options = dict(options or {})
        chosen = (options or {}).get(C.TASK)
        specs = self.family.tasks(chosen) if chosen else self.specs
        self.spec_ = specs[int(self.np_random.integers(len(specs)))]
        self.target = int(self.np_random.integers(3))
        self.need = 2 if self.spec_.id == "LampsPressTwice" else 1
        self.lit, self.t = 0, 0
        info = {C.TASK_ID: self.spec_.id, C.INSTRUCTION: self.instruction, C.DIFFICULTY: self.spec_.difficulty}
        return self._obs(), info

    @property
    def instruction(self) -> str:
        return self.spec_.template.replace("<k>", str(self.target))

    def oracle_action(self) -> str:
        return "finish" if self.lit >= self.need else f"press {self.target}"

    def step(self, action: str):
        self.t += 1
        words = str(action).split()
        info: dict[str, Any] = {C.TASK_ID: self.spec_.id, C.INSTRUCTION: self.instruction, C.MILESTONES: []}
        terminated = False
        if words == ["finish"]:
            terminated = True
            info.update({C.FORMAT_VALID: True, C.ACTION_KIND: C.FINISH, C.ACTION_DESCRIPTION: "Finish"})
        elif len(words) == 2 and words[0] == "press" and words[1] in ("0", "1", "2"):
            self.lit += int(words[1]) == self.target
            info.update({C.FORMAT_VALID: True, C.ACTION_KIND: C.INTERACT, C.ACTION_DESCRIPTION: f"Press {words[1]}"})
        else:
            info.update({C.FORMAT_VALID: False, C.REASON: "not an action", C.ACTION_KIND: C.INVALID,
                         C.ACTION_DESCRIPTION: "Nothing"})  # fmt: skip
        success = self.lit >= self.need
        info[C.PROGRESS] = min(1.0, self.lit / self.need)
        truncated = not terminated and self.t >= self.max_steps
        if terminated or truncated:
            info[C.SUCCESS] = bool(terminated and success)
        return self._obs(), float(terminated and success), terminated, truncated, info

    def render(self) -> str:
        return self._obs()


if "Lamps-v0" not in gym.registry:
    gym.register("Lamps-v0", entry_point=LampsEnv)


class LabelPolicy(TrainablePolicyMixin, torch.nn.Module):
    """Softmax over the family's admissible actions, one learned logit per candidate label."""

    def __init__(self, family: LampsFamily) -> None:
        super().__init__()
        self.family = family
        labels = [c.label for c in family.admissible_actions("")]
        self.index = {label: i for i, label in enumerate(labels)}
        self.logits = torch.nn.Parameter(torch.zeros(len(labels)))

    def decide(self, observations, histories, greedy=False, rng=None) -> list[Decision]:
        out = []
        for i, obs in enumerate(observations):
            gen = rng[i] if isinstance(rng, list | tuple) else rng
            cands = self.family.admissible_actions(obs)
            idx = [self.index[c.label] for c in cands]
            p = torch.softmax(self.logits.detach()[idx], 0).numpy().astype(np.float64)
            k = int(np.argmax(p)) if greedy else int(gen.choice(len(cands), p=p / p.sum()))
            out.append(Decision(cands[k].action, cands[k].label, np.log(p[[k]]).astype(np.float32), data=(idx, k)))
        return out

    def log_probs(self, decisions: Sequence[Decision]):
        rows = [torch.log_softmax(self.logits[torch.tensor(d.data[0])], 0) for d in decisions]
        logp = torch.stack([r[d.data[1]] for r, d in zip(rows, decisions, strict=True)]).unsqueeze(1)
        entropy = torch.stack([-(r.exp() * r).sum() for r in rows]).unsqueeze(1)
        return logp, torch.ones_like(logp), entropy

    def config(self) -> dict[str, Any]:
        return {}


# -- the CLI -------------------------------------------------------------------------------


def test_tasks_lists_a_user_family_from_module_colon_id(capsys):
    assert main(["tasks", "--env", ENV]) == 0
    out = capsys.readouterr().out
    assert "LampsPressOne" in out and "LampsPressTwice" in out and "2 tasks: 1 easy, 1 medium, 0 hard" in out
    assert main(["tasks", "--env", ENV, "--difficulty", "medium"]) == 0
    out = capsys.readouterr().out
    assert "LampsPressTwice" in out and "LampsPressOne" not in out


def test_rollout_runs_the_oracle_on_a_user_env(tmp_path, capsys):
    out = tmp_path / "t.jsonl"
    args = ["rollout", "--env", ENV, "--env-kwargs", "max_steps=5", "--policy", "oracle", "--episodes", "4",
            "--quiet", "--out", str(out)]  # fmt: skip
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "policy=oracle episodes=4" in text and "all" in text
    from gui_gym.core.trajectory import read_jsonl

    trajs = read_jsonl(out)
    assert len(trajs) == 4 and all(t.success for t in trajs)
    # the observation text comes from the family, the tier from the reset info
    assert trajs[0].steps[0].observation.startswith("lamps | lit 0")
    assert {t.meta["difficulty"] for t in trajs} <= {"easy", "medium"}


def test_unknown_envs_and_bad_env_kwargs_are_messages(capsys):
    assert main(["tasks", "--env", "NoSuchEnv-v0"]) == 2
    assert "NoSuchEnv-v0" in capsys.readouterr().err
    assert main(["tasks", "--env", "no_such_module_xyz:Lamps-v0"]) == 2
    assert "no_such_module_xyz" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        build_parser().parse_args(["rollout", "--env-kwargs", "max steps"])


def test_train_flags_fill_env_id_and_env_kwargs():
    parse = build_parser().parse_args
    cfg = config_from_args(
        parse(["train", "--env", ENV, "--env-kwargs", "max_steps=9", 'label="x y"', "--tasks", "all"])
    )
    assert cfg.env_id == ENV and cfg.env_kwargs == {"max_steps": 9, "label": "x y"}
    # an LM on GuiAndroid-v0 reads MobileRL's App. C text unless told otherwise; other envs get nothing
    lm = ["--policy", "lm", "--lm-path", "x"]
    assert config_from_args(parse(["train", *lm])).env_kwargs == {"ui_format": "mobilerl_appc"}
    assert config_from_args(parse(["train", *lm, "--env-kwargs", "ui_format=xml"])).env_kwargs == {"ui_format": "xml"}
    assert config_from_args(parse(["train", "--env", ENV, *lm])).env_kwargs == {}
    assert config_from_args(parse(["train"])).env_kwargs == {}


# -- the trainer ---------------------------------------------------------------------------


def test_task_ids_come_from_the_family():
    assert task_ids("all", ENV) == ["LampsPressOne", "LampsPressTwice"]
    assert task_ids("medium", ENV) == ["LampsPressTwice"]
    with pytest.raises(ValueError, match="LampsPressOnce"):
        task_ids("LampsPressOnce", ENV)
    with pytest.raises(ValueError, match="unknown env"):
        task_ids("all", "NoSuchEnv-v0")


def test_the_trainer_trains_on_a_user_env_and_resume_refuses_another_env(tmp_path):
    torch.set_num_threads(1)
    cfg = TrainConfig(env_id=ENV, env_kwargs={"max_steps": 4}, tasks="all", iterations=2, tasks_per_iter=2,
                      group_size=4, num_envs=2, eval_every=2, eval_episodes=2, out=str(tmp_path / "run"),
                      progress=False, lr=0.1)  # fmt: skip
    family = env_family(ENV)
    trainer = Trainer(cfg, policy=LabelPolicy(family))
    assert trainer.family is family and trainer.train_tasks == ["LampsPressOne", "LampsPressTwice"]
    episodes, _ = trainer.evaluation_episodes(trainer.train_tasks, 2)
    assert {ep.task_id: ep.difficulty for ep in episodes} == {"LampsPressOne": "easy", "LampsPressTwice": "medium"}
    before = trainer.policy.logits.detach().clone()
    summary = trainer.run()
    assert summary["iterations"] == 2 and summary["last_eval"]["eval_episodes"] == 4
    assert not torch.equal(before, trainer.policy.logits.detach())
    assert {"eval_success_easy", "eval_success_medium"} <= set(summary["last_eval"])

    other = TrainConfig(**{**cfg.__dict__, "env_id": "GuiAndroid-v0", "tasks": "SystemWifiTurnOn", "iterations": 3})
    with pytest.raises(ValueError, match="env_id"):
        Trainer(other, resume=True, policy=LabelPolicy(family))
