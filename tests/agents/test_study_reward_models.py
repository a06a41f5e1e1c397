"""``agents.study.reward_models``: the study's ProgRM Env / ProgRM LCS / ORM models, end to end.

One small real run (2 training tasks, 24 rollouts, 2 epochs, a random 1-layer BERT encoder) is
shared by the tests; the others check what it left on disk, that a second call redoes nothing, and
that an interrupted or inconsistent directory is resumed or refused with a clear message.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from _util import make

import agents.study.reward_models as rm
from gui_gym.android.screen import screen_text
from gui_gym.core.trajectory import read_jsonl
from wrappers import OutcomeModelReward
from wrappers.progress import ProgressModel
from wrappers.spec import make_env

TASKS = ["SystemWifiTurnOn", "ClockStopWatchRunning"]
SIZES = {"episodes": 24, "epochs": 2, "patience": 2, "seed": 0, "max_steps": 12}


@pytest.fixture(scope="module")
def prepared(tiny_encoder: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict, dict]:
    models = tmp_path_factory.mktemp("reward_models")
    kwargs = {**SIZES, "encoder": tiny_encoder, "progress": False}
    return models, rm.prepare_reward_models(models, TASKS, **kwargs), kwargs


def _files(models: Path) -> dict[str, int]:
    return {str(p.relative_to(models)): p.stat().st_mtime_ns for p in sorted(models.rglob("*")) if p.is_file()}


def test_rollouts_are_of_the_training_tasks_with_reserved_seeds(prepared):
    models, _, _ = prepared
    trajectories = read_jsonl(models / "trajectories.jsonl")
    assert len(trajectories) == 24 and {t.task_id for t in trajectories} == set(TASKS)
    seeds = [t.seed for t in trajectories]
    assert seeds == list(range(rm.ROLLOUT_SEED, rm.ROLLOUT_SEED + 24))  # apart from 0..99 and 10⁶ up
    assert [t.meta["policy"] for t in trajectories] == ["oracle"] * 4 + ["noisy"] * 12 + ["random"] * 8
    assert all(len(t) <= 12 for t in trajectories) and all(t.success for t in trajectories[:4])
    marker = json.loads((models / "collection.json").read_text())
    assert marker["episodes"] == 24 and marker["tasks"] == TASKS
    assert marker["successes"] == sum(t.success for t in trajectories)


def test_every_model_is_trained_evaluated_and_loads(prepared):
    models, results, _ = prepared
    assert set(results) == set(rm.REWARD_MODELS)
    val_tasks = {tuple(r["val_tasks"]) for r in results.values()}
    assert len(val_tasks) == 1 and len(next(iter(val_tasks))) == 1  # one held-out task, the same for all
    for name, result in results.items():
        out = models / name
        assert result["checkpoint"] == str(out / "best.pt")
        model = ProgressModel.load(result["checkpoint"])
        assert model.config["encoder"] is not None and not model.training
        metrics = json.loads((out / "eval.json").read_text())
        assert metrics == json.loads(json.dumps({k: v for k, v in result.items() if k != "checkpoint"}))
        for key in ("key_step_mae", "label_mae", "final_score_success", "accuracy", "f1", "constant_baseline"):
            assert key in metrics
        assert 0.0 <= metrics["key_step_mae"] <= 1.0 and metrics["key_steps"] > 0 and metrics["epochs_run"] >= 1
        assert metrics["latency_ms_per_step"] is None
        assert json.loads((out / "done.json").read_text())["settings"]["episodes"] == 24
        assert (out / "last.pt").is_file() and (out / "metrics.jsonl").is_file()
    # All three are scored on the same env-labelled validation states (ProgRM Table 3).
    assert len({(r["states"], r["key_steps"], r["final_states"]) for r in results.values()}) == 1
    orm = results["orm"]
    assert orm["outcome"]["states"] == orm["outcome"]["final_states"] == orm["final_states"]
    assert orm["val_examples"] == orm["final_states"] < results["progress-env"]["val_examples"]


def test_a_second_call_redoes_nothing(prepared, monkeypatch: pytest.MonkeyPatch):
    models, results, kwargs = prepared
    before = _files(models)

    def fail(*args, **kwargs):
        raise AssertionError("a finished stage ran again")

    monkeypatch.setattr("wrappers.progress.training.train_progress_model", fail)
    monkeypatch.setattr("wrappers.progress.train_progress_model", fail, raising=False)  # the lazily cached name
    monkeypatch.setattr(rm, "collect", fail)
    monkeypatch.setattr(rm, "label_trajectories", fail)
    assert rm.prepare_reward_models(models, TASKS, **kwargs) == results
    assert rm.prepare_reward_models(models, ",".join(TASKS), needed=["orm"], **kwargs) == {"orm": results["orm"]}
    assert _files(models) == before


def test_an_interrupted_run_resumes_without_retraining(prepared, tmp_path: Path):
    models, results, kwargs = prepared
    copy = tmp_path / "models"
    shutil.copytree(models, copy)
    # Killed after training the ORM but before its evaluation was recorded.
    (copy / "orm" / "done.json").unlink()
    (copy / "orm" / "eval.json").unlink()
    metrics = (copy / "orm" / "metrics.jsonl").read_text()
    again = rm.prepare_reward_models(copy, TASKS, needed=["orm"], **kwargs)["orm"]
    assert (copy / "orm" / "metrics.jsonl").read_text() == metrics  # resumed from last.pt: no epoch ran
    assert again["checkpoint"] == str(copy / "orm" / "best.pt")
    assert again["key_step_mae"] == pytest.approx(results["orm"]["key_step_mae"])
    assert (copy / "orm" / "done.json").is_file()


def test_other_settings_or_broken_files_are_refused(prepared, tmp_path: Path):
    models, _, kwargs = prepared
    with pytest.raises(ValueError, match="was trained with"):
        rm.prepare_reward_models(models, TASKS, **{**kwargs, "epochs": 3})
    copy = tmp_path / "models"
    shutil.copytree(models, copy)
    shutil.rmtree(copy / "orm")
    with pytest.raises(ValueError, match="was collected with"):
        rm.prepare_reward_models(copy, TASKS[:1], needed=["orm"], **kwargs)
    lines = (copy / "trajectories.jsonl").read_text().splitlines(keepends=True)
    (copy / "trajectories.jsonl").write_text("".join(lines[:-1]) + lines[-1][:40] + "\n")
    with pytest.raises(ValueError, match="holds 23 readable trajectories of 24"):
        rm.prepare_reward_models(copy, TASKS, needed=["orm"], **kwargs)
    (copy / "collection.json").write_text("{not json")
    with pytest.raises(ValueError, match=r"collection\.json is unreadable"):
        rm.prepare_reward_models(copy, TASKS, needed=["orm"], **kwargs)
    (copy / "progress-env" / "best.pt").unlink()
    with pytest.raises(FileNotFoundError, match=r"best\.pt is missing"):
        rm.prepare_reward_models(copy, TASKS, needed=["progress-env"], **kwargs)
    with pytest.raises(ValueError, match="unknown reward model 'prm'"):
        rm.prepare_reward_models(copy, TASKS, needed=["prm"], **kwargs)
    with pytest.raises(ValueError, match="no training tasks"):
        rm.prepare_reward_models(tmp_path / "new", " , ", **kwargs)


def test_held_out_keeps_tasks_apart_or_a_fifth_of_one_task(prepared):
    models, _, _ = prepared
    trajectories = read_jsonl(models / "trajectories.jsonl")
    val = rm.held_out(trajectories, seed=0)
    val_tasks = {trajectories[i].task_id for i in val}
    assert len(val_tasks) == 1 and {t.task_id for i, t in enumerate(trajectories) if i not in val}.isdisjoint(val_tasks)
    assert rm.held_out(trajectories, seed=0) == val  # deterministic
    one_task = [t for t in trajectories if t.task_id == TASKS[0]]
    val = rm.held_out(one_task, seed=0)
    assert len(val) == round(0.2 * len(one_task)) and val < set(range(len(one_task)))
    with pytest.raises(ValueError, match="too few"):
        rm.held_out(one_task[:1], seed=0)


def test_the_orm_checkpoint_works_as_the_outcome(prepared):
    _, results, _ = prepared
    checkpoint = results["orm"]["checkpoint"]
    env = OutcomeModelReward(make(TASKS[0]), model=checkpoint)
    _, info0 = env.reset(seed=0)
    history, rewards = [], []
    while True:
        obs, r, term, trunc, info = env.step(env.unwrapped.oracle_action())
        history.append(info["action_description"])
        rewards.append(r)
        if term or trunc:
            break
    score = ProgressModel.load(checkpoint).score(info0["instruction"], history, screen_text(obs))
    assert info["orm_score"] == pytest.approx(score, abs=1e-6) and info["success"] is True
    assert rewards == [0.0] * (len(rewards) - 1) + [1.0 if score >= 0.5 else 0.0]
    # The reward spec the study uses for its "orm" setting builds the same stack.
    env = make_env("GuiAndroid-v0", tasks=TASKS[0], reward=f"orm={checkpoint}")
    assert isinstance(env, OutcomeModelReward)
    env.reset(seed=0)
    _, _, term, trunc, info = env.step("finish()")
    assert term and set(info["reward_components"]) == {"outcome"} and 0.0 <= info["orm_score"] <= 1.0
