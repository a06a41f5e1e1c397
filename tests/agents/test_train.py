"""The trainer: advantages per algorithm, rollouts with failing envs, resume, bad input, learning."""

from __future__ import annotations

import json
import math

import gymnasium as gym
import numpy as np
import pytest
import torch
from _util import ScriptedPolicy

from agents.algos.registry import algorithm
from agents.collect import Episode, Instance, collect, final_rewards, make_vector_env
from agents.policies.base import Decision
from agents.train import TrainConfig, Trainer, compute_advantages, load_checkpoint
from wrappers.spec import make_env, parse_reward


def _episode(group: int, rewards: list[float], success: bool, outcome: float | None = None, member: int = 0) -> Episode:
    n = len(rewards)
    o = float(success) if outcome is None else outcome
    decisions = [Decision("finish()", "finish", np.zeros(1, np.float32)) for _ in range(n)]
    return Episode(
        Instance("T", 1, group, member), "T", "easy", decisions, np.asarray(rewards, float),
        {"outcome": np.full(n, o)}, success, False, 0,
    )  # fmt: skip


def _rows(run) -> list[dict]:
    with open(run / "metrics.jsonl", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def _cfg(tmp_path, encoder, **kw) -> TrainConfig:
    base = dict(
        tasks="SystemWifiTurnOn", iterations=2, tasks_per_iter=2, group_size=3, num_envs=3, max_steps=6,
        eval_every=0, eval_episodes=2, out=str(tmp_path / "run"), encoder=encoder, progress=False, minibatch=16,
        hidden=16,
    )  # fmt: skip
    base.update(kw)
    return TrainConfig(**base)


# -- advantages (hand-computed) ---------------------------------------------------------


def test_grpo_trajectory_advantage_is_broadcast_to_every_step():
    eps = [_episode(0, [1.0, 1.0], True), _episode(0, [0.0, 0.0, 0.0], False, member=1)]
    adv = compute_advantages(eps, algorithm("grpo"))
    # R = [1, 0]: mean 0.5, unbiased std 1/sqrt(2) → ±0.7071
    assert np.allclose(adv[0], [1 / math.sqrt(2)] * 2, atol=1e-5)
    assert np.allclose(adv[1], [-1 / math.sqrt(2)] * 3, atol=1e-5)


def test_singleton_and_zero_variance_groups_get_zero_advantage():
    eps = [_episode(0, [1.0], True), _episode(1, [0.0, 0.0], False), _episode(1, [0.0], False, member=1)]
    for name in ("grpo", "rloo", "dapo"):
        adv = compute_advantages(eps, algorithm(name))
        assert all(np.all(a == 0) for a in adv), name


def test_rloo_g2_is_the_difference_of_returns():
    eps = [_episode(0, [1.0], True), _episode(0, [0.0], False, member=1)]
    adv = compute_advantages(eps, algorithm("rloo"))
    assert adv[0].tolist() == [1.0] and adv[1].tolist() == [-1.0]


def test_step_level_grpo_normalises_over_all_steps_of_the_group():
    # ADMIRE Eq. 13: R = {1, 3} ∪ {2}: mean 2, unbiased std 1 → (−1, 1) and (0)
    eps = [_episode(0, [1.0, 3.0], True), _episode(0, [2.0], False, member=1)]
    adv = compute_advantages(eps, algorithm("grpo", level="step"))
    assert np.allclose(adv[0], [-1.0, 1.0], atol=1e-5) and np.allclose(adv[1], [0.0], atol=1e-5)


def test_adagrpo_uses_spa_over_the_group():
    # MobileRL Eq. 2 worked example: lengths 4, 8, 5, 10 with outcomes 1, 1, 0, 1 → R = 1, .5, 0, .4
    eps = [_episode(0, [1.0] * 4, True, member=0), _episode(0, [1.0] * 8, True, member=1),
           _episode(0, [0.0] * 5, False, member=2), _episode(0, [1.0] * 10, True, member=3)]  # fmt: skip
    adv = compute_advantages(eps, algorithm("adagrpo"))
    r = np.array([1.0, 0.5, 0.0, 0.4])
    expected = (r - r.mean()) / (r.std(ddof=1) + 1e-6)
    assert np.allclose([a[0] for a in adv], expected, atol=1e-5)
    assert [len(a) for a in adv] == [4, 8, 5, 10]


def test_reinforce_pp_counts_the_outcome_once():
    # Broadcast outcome [1, 1] becomes the terminal reward: returns (γ=1) are [1, 1]; another
    # episode with [0, 0] → [0, 0]; whitened over all four tokens: mean .5, std (ddof 1) .577
    eps = [_episode(0, [1.0, 1.0], True), _episode(1, [0.0, 0.0], False)]
    adv = compute_advantages(eps, algorithm("reinforce++"))
    s = np.std([1, 1, 0, 0], ddof=1)
    assert np.allclose(adv[0], [0.5 / s] * 2, atol=1e-4) and np.allclose(adv[1], [-0.5 / s] * 2, atol=1e-4)


# -- final rewards and rollouts ----------------------------------------------------------


def test_final_rewards_follow_the_env_contract():
    r, c = final_rewards({}, [0.0, 0.0, 1.0])
    assert r.tolist() == [1.0, 1.0, 1.0] and c["outcome"].tolist() == [1.0, 1.0, 1.0]
    info = {"episode_reward_components": {"outcome": [0.0, 0.0], "progress": [0.5, 0.5]}}
    assert final_rewards(info, [0.5, 0.5])[0].tolist() == [0.5, 0.5]
    info["episode_rewards"] = [2.0, 3.0]
    assert final_rewards(info, [0.0, 0.0])[0].tolist() == [2.0, 3.0]
    with pytest.raises(FloatingPointError):
        final_rewards({"episode_rewards": [float("nan")]}, [0.0])


def test_reward_specs_are_validated():
    assert parse_reward("milestone+spa") == [("milestone", None), ("spa", None)]
    for bad in ("", "bogus", "spa+spa", "milestone+milestone-adaptive", "spa=3"):
        with pytest.raises(ValueError):
            parse_reward(bad)


class _Flaky(gym.Wrapper):
    """Raises on the second step of episodes whose seed is odd."""

    def reset(self, *, seed=None, options=None):
        self.odd, self.t = bool(seed and seed % 2), 0
        return self.env.reset(seed=seed, options=options)

    def step(self, action):
        self.t += 1
        if self.odd and self.t == 2:
            raise RuntimeError("device went away")
        return self.env.step(action)


def test_an_env_that_raises_drops_only_that_episode():
    envs = make_vector_env(lambda: _Flaky(gym.make("GuiAndroid-v0", task="SystemWifiTurnOn")), 2)
    instances = [Instance("SystemWifiTurnOn", s, s, 0) for s in range(6)]
    episodes, errors = collect(envs, ScriptedPolicy(), instances)
    envs.close()
    assert [ep.instance.seed for ep in episodes] == [0, 2, 4]
    assert [inst.seed for inst, _ in errors] == [1, 3, 5] and "device went away" in errors[0][1]
    assert all(ep.length == 2 for ep in episodes)


def test_episode_actions_do_not_depend_on_batching():
    instances = [Instance("SystemWifiTurnOn", s, 0, m) for s in (3, 4) for m in range(2)]
    runs = []
    for n in (1, 3):
        envs = make_vector_env(lambda: make_env("GuiAndroid-v0", tasks="SystemWifiTurnOn"), n)
        eps, _ = collect(envs, ScriptedPolicy(), instances)
        envs.close()
        runs.append([(ep.instance, [float(d.logp[0]) for d in ep.decisions]) for ep in eps])
    assert runs[0] == runs[1]


# -- the trainer -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "algo,level,reward",
    [("grpo", "trajectory", "milestone"), ("grpo", "step", "milestone"), ("rloo", "trajectory", "outcome"),
     ("dapo", "trajectory", "spa"), ("reinforce++", "trajectory", "progress"), ("adagrpo", "trajectory", "outcome")],
)  # fmt: skip
def test_every_algorithm_trains_and_logs_reward_components(tmp_path, tiny_encoder, algo, level, reward):
    cfg = _cfg(tmp_path, tiny_encoder, algo=algo, level=level, reward=reward, iterations=1, max_resample=1)
    trainer = Trainer(cfg)
    trainer.run()
    rows = _rows(tmp_path / "run")
    assert rows[-1]["iteration"] == 0 and rows[-1]["episodes"] >= 1
    assert "reward_outcome" in rows[-1]
    if reward != "outcome":
        assert any(k.startswith("reward_") and k != "reward_outcome" for k in rows[-1])
    assert (tmp_path / "run" / "metrics.csv").read_text().startswith("iteration,")
    if algo == "adagrpo":
        assert "replay_size" in rows[-1]


def _untimed(rows: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if not k.startswith("time_")} for r in rows]


def test_resume_reproduces_the_next_iteration(tmp_path, tiny_encoder):
    """Bit for bit, with the embedding cache emptied in between (as in a new process)."""
    from wrappers.matching import SemanticMatcher

    straight = Trainer(_cfg(tmp_path / "a", tiny_encoder, reward="milestone"))
    straight.run()
    SemanticMatcher(tiny_encoder).clear_cache()
    SemanticMatcher().clear_cache()  # the milestone matcher's MiniLM
    first = Trainer(_cfg(tmp_path / "b", tiny_encoder, reward="milestone", iterations=1))
    first.run()
    SemanticMatcher(tiny_encoder).clear_cache()
    resumed = Trainer(_cfg(tmp_path / "b", tiny_encoder, reward="milestone", iterations=2), resume=True)
    assert resumed.iteration == 1
    assert len(resumed.policy.matcher.cache) > 1  # the checkpoint brought the embeddings the run had read
    resumed.run()
    a, b = _rows(tmp_path / "a" / "run"), _rows(tmp_path / "b" / "run")
    assert len(a) == len(b) == 2 and _untimed(a) == _untimed(b)
    for pa, pb in zip(straight.policy.state_dict().values(), resumed.policy.state_dict().values(), strict=True):
        assert torch.equal(pa, pb)


def _same_weights(a, b) -> bool:
    return all(torch.equal(x, y) for x, y in zip(a.state_dict().values(), b.state_dict().values(), strict=True))


@pytest.mark.parametrize("algo", ["reinforce++", "adagrpo"])
def test_the_kl_reference_is_the_policy_training_starts_from(tmp_path, tiny_encoder, algo):
    """π_ref is the warm-started policy, not the randomly built one: KL is 0 at the first step.

    Covers both KL placements: in the reward (REINFORCE++'s per-token k1) and in the loss (AdaGRPO).
    """
    start = Trainer(_cfg(tmp_path / "init", tiny_encoder, iterations=1, seed=3))
    start.run()  # a trained policy to start from, with other weights than a fresh seed-0 policy
    start.close()
    fresh = Trainer(_cfg(tmp_path / "fresh", tiny_encoder, algo=algo))
    warm = Trainer(_cfg(tmp_path / "warm", tiny_encoder, algo=algo, init=str(tmp_path / "init" / "run")))
    try:
        assert fresh.reference is not None and _same_weights(fresh.reference, fresh.policy)
        assert warm.reference is not None and _same_weights(warm.reference, warm.policy)
        assert not _same_weights(warm.reference, fresh.policy)  # the random start is not the reference
        assert all(not p.requires_grad for p in warm.reference.parameters())
        episodes, _ = warm.rollout()
        kl = warm._token_kl(episodes)  # k1 = log π_old − log π_ref of every sampled token
        assert max(abs(float(k.max(initial=0))) for steps in kl for k in steps) < 1e-6
        assert max(abs(float(k.min(initial=0))) for steps in kl for k in steps) < 1e-6
        warm.run()
        with torch.no_grad():  # as if training had moved the policy: the checkpoint holds both
            for p in warm.policy.parameters():
                p.add_(0.05)
        warm.save()
    finally:
        fresh.close()
        warm.close()
    # a resumed run keeps the reference it started from, not the policy it resumes with
    resumed = Trainer(_cfg(tmp_path / "warm", tiny_encoder, algo=algo, iterations=3,
                           init=str(tmp_path / "init" / "run")), resume=True)  # fmt: skip
    try:
        assert resumed.reference is not None and _same_weights(resumed.reference, warm.reference)
        assert not _same_weights(resumed.reference, resumed.policy)
    finally:
        resumed.close()


def test_a_run_stopped_before_its_first_checkpoint_starts_over(tmp_path, tiny_encoder):
    """Its rows are not written twice, with --resume or without."""
    run = tmp_path / "run"
    run.mkdir()
    stale = json.dumps({"eval_episodes": 2, "iteration": -1}) + "\n"
    for resume in (False, True):
        (run / "metrics.jsonl").write_text(stale + '{"torn')
        Trainer(_cfg(tmp_path, tiny_encoder, iterations=1, eval_every=1, eval_episodes=1), resume=resume).run()
        assert [r["iteration"] for r in _rows(run)] == [-1, 0]
        (run / "checkpoint.pt").unlink()


def test_the_checkpoint_carries_the_embeddings_the_policy_read(tmp_path, tiny_encoder):
    trainer = Trainer(_cfg(tmp_path, tiny_encoder, iterations=1))
    trainer.run()
    saved = load_checkpoint(tmp_path / "run" / "checkpoint.pt")["embeddings"]
    policy = trainer.policy
    texts, vectors = saved["texts"], saved["vectors"].numpy()
    assert len(texts) > 10 and vectors.tobytes() == policy.matcher.encode(texts).tobytes()
    policy.matcher.clear_cache()
    assert policy.load_embedding_state(saved) == len(texts)
    assert policy.matcher.cache_arrays()[0] == texts
    assert policy.matcher.cache_arrays()[1].tobytes() == vectors.tobytes()
    other = {**saved, "encoder": str(tmp_path / "another-encoder")}  # another directory: left out
    assert policy.load_embedding_state(other) == 0
    with pytest.raises(ValueError, match="dimensions"):
        policy.load_embedding_state({**saved, "vectors": saved["vectors"][:, :3]})


def test_a_finished_run_is_not_overwritten_and_bad_checkpoints_are_named(tmp_path, tiny_encoder):
    Trainer(_cfg(tmp_path, tiny_encoder, iterations=1)).run()
    with pytest.raises(FileExistsError, match="--resume"):
        Trainer(_cfg(tmp_path, tiny_encoder, iterations=1))
    with pytest.raises(ValueError, match="algo"):
        Trainer(_cfg(tmp_path, tiny_encoder, iterations=2, algo="rloo"), resume=True)
    ckpt = tmp_path / "run" / "checkpoint.pt"
    ckpt.write_bytes(b"not a checkpoint")
    with pytest.raises(ValueError, match=r"checkpoint\.pt"):
        load_checkpoint(ckpt)
    with pytest.raises(FileNotFoundError, match="without --resume"):
        Trainer(_cfg(tmp_path / "none", tiny_encoder), resume=True)


def test_bad_settings_are_refused_with_the_setting_named(tmp_path, tiny_encoder):
    bad = [({"algo": "ppo2"}, "ppo2"), ({"group_size": 0}, "group_size"), ({"tasks": "NoSuchTask"}, "NoSuch"),
           ({"algo": "rloo", "level": "step"}, "step-level"), ({"policy": "lm"}, "lm-path")]  # fmt: skip
    for kw, match in bad:
        with pytest.raises(ValueError, match=match):
            Trainer(_cfg(tmp_path, tiny_encoder, **kw))


def test_a_non_finite_loss_skips_the_update(tmp_path, tiny_encoder, monkeypatch):
    trainer = Trainer(_cfg(tmp_path, tiny_encoder, iterations=1))
    real = trainer.policy.log_probs

    def poisoned(decisions):
        logp, mask, ent = real(decisions)
        return logp * float("nan"), mask, ent

    monkeypatch.setattr(trainer.policy, "log_probs", poisoned)
    before = [p.detach().clone() for p in trainer.policy.parameters()]
    trainer.run()
    row = _rows(tmp_path / "run")[-1]
    assert row["skipped_updates"] >= 1 and row["updates"] == 0
    assert all(torch.equal(a, b) for a, b in zip(before, trainer.policy.parameters(), strict=True))


def test_the_lm_policy_trains_through_the_same_trainer(tmp_path):
    from agents.policies.tiny_lm import tiny_lm

    path = tiny_lm(tmp_path / "lm", vocab="actions", family="GuiAndroid-v0")
    cfg = TrainConfig(tasks="SystemWifiTurnOn", env_kwargs={"ui_format": "compressed"}, policy="lm", lm_path=path,
                      iterations=1, tasks_per_iter=1, group_size=2, num_envs=2, max_steps=2, eval_every=0,
                      out=str(tmp_path / "run"), progress=False, reward="milestone", lr=1e-3,
                      entropy_coef=0.01)  # fmt: skip
    trainer = Trainer(cfg)
    before = [p.detach().clone() for p in trainer.policy.parameters()]
    trainer.run()
    row = _rows(tmp_path / "run")[-1]
    assert row["episodes"] == 2 and row["batch_decisions"] == 4 and row["updates"] >= 1
    assert "invalid_rate" in row  # garbage from an untrained LM is the env's no-op, not a crash
    assert any(not torch.equal(a, b) for a, b in zip(before, trainer.policy.parameters(), strict=True))


def test_the_candidate_policy_learns_an_easy_task(tmp_path):
    """ADMIRE (step-level GRPO, milestone rewards), the real MiniLM, fixed seeds: held-out success rises."""
    cfg = TrainConfig(tasks="SystemWifiTurnOn", reward="milestone", level="step", iterations=12, tasks_per_iter=2,
                      group_size=8,
                      num_envs=8, max_steps=12, eval_every=12, eval_episodes=24, eval_greedy=False,
                      out=str(tmp_path / "run"), progress=False, seed=1)  # fmt: skip
    summary = Trainer(cfg).run()
    before, after = summary["first_eval"]["eval_success_rate"], summary["last_eval"]["eval_success_rate"]
    assert after >= before + 0.2, (before, after)


def test_cli_train_then_plot(tmp_path, tiny_encoder, capsys):
    from agents.cli import main

    out = tmp_path / "run"
    args = ["train", "--tasks", "SystemWifiTurnOn", "--iterations", "2", "--tasks-per-iter", "1", "--group-size", "2",
            "--num-envs", "2", "--max-steps", "4", "--eval-every", "2", "--eval-episodes", "1", "--hidden", "8",
            "--encoder", tiny_encoder, "--out", str(out), "--no-progress"]  # fmt: skip
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "random policy" in text and "after training" in text
    assert (out / "curves.png").stat().st_size > 1000 and (out / "summary.json").is_file()
    assert main(args) == 2  # the run exists: refused, not overwritten
    assert "--resume" in capsys.readouterr().err
    assert main([*args[:3], "--iterations", "3", *args[5:], "--resume"]) == 0
    assert len(_rows(out)) == 1 + 3  # the evaluation before training, then three iterations
    assert main(["plot", str(out), str(out), "-o", str(tmp_path / "c.png"), "--labels", "a,b"]) == 0
    assert (tmp_path / "c.png").is_file()
    assert main(["plot", str(tmp_path / "nothing")]) == 2


def test_objects_of_older_checkpoints_find_moved_classes():
    """Checkpoints written before the reward-spec registry pickled ``agents.envs.RewardState``."""
    import pickle

    from agents.train import load_objects
    from wrappers.spec import RewardState

    state = RewardState()
    state.milestone_book()
    old = pickle.dumps({"reward_state": state}, protocol=0).replace(
        b"cwrappers.spec\nRewardState", b"cagents.envs\nRewardState"
    )
    assert b"agents.envs" in old
    loaded = load_objects(old)["reward_state"]
    assert isinstance(loaded, RewardState) and loaded.book is not None


def test_checkpoint_objects_load_as_plain_data_and_known_classes(tmp_path):
    """Episodes with candidate and LM decisions and the shared reward state round-trip; code does not."""
    import os
    import pickle

    from agents.collect import Episode, Instance
    from agents.policies.base import Decision
    from agents.policies.candidate import CandidateRecord
    from agents.train import load_objects
    from wrappers.spec import RewardState

    record = CandidateRecord("Turn on Wi-Fi.", ("tap", "go back"), ("tap", "back"), ("settings",), (), 0, 1)
    lm_data = {"prompt": [1, 2], "response": [3]}
    decisions = [
        Decision('do(action="Back")', "go back", np.zeros(1, np.float32), data=record),
        Decision("finish()", "finish()", np.full(3, -0.5, np.float32), data=lm_data),
    ]
    instance = Instance("SystemWifiTurnOn", 7, 0, 1, {"guidance": "none"})
    episode = Episode(instance, "SystemWifiTurnOn", "easy", decisions, np.ones(2), {"outcome": np.ones(2)}, True,
                      False, 0, milestones=(1, 2))  # fmt: skip
    state = RewardState()
    book = state.milestone_book()
    book.generator = book._default_generator()  # set by the first success that formed milestones
    state.shortest_lengths()
    objects = load_objects(pickle.dumps({"replay": [episode], "reward_state": state, "history": [{"loss": 0.1}]}))
    back = objects["replay"][0]
    assert back.decisions[0].data == record and back.decisions[1].data["prompt"] == [1, 2]
    assert back.instance == episode.instance and np.array_equal(back.rewards, episode.rewards)
    assert isinstance(objects["reward_state"], RewardState) and objects["reward_state"].lengths is not None
    assert objects["reward_state"].book.generator == book.generator

    marker = tmp_path / "ran"

    class Evil:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    with pytest.raises(pickle.UnpicklingError, match="refusing to load"):
        load_objects(pickle.dumps({"replay": [Evil()]}))
    assert not marker.exists()


def test_every_algorithm_takes_an_iteration_without_episodes():
    """When every env of an iteration failed there is nothing to score, for any algorithm."""
    from agents.algos.registry import ALGORITHMS

    for name, algo in ALGORITHMS.items():
        assert algo.advantages([], kl=[] if algo.kl_in_reward else None, kl_coef=algo.kl_coef) == [], name


def test_resume_compares_the_sampler_that_ran(tmp_path, tiny_encoder):
    """No --sampler means the algorithm's own (FCF for AdaGRPO): naming it on resume is the same run."""
    Trainer(_cfg(tmp_path, tiny_encoder, algo="adagrpo", iterations=1)).run()
    resumed = Trainer(_cfg(tmp_path, tiny_encoder, algo="adagrpo", iterations=2, sampler="fcf"), resume=True)
    assert resumed.iteration == 1 and resumed.sampler.name == "fcf"
    resumed.close()
    with pytest.raises(ValueError, match="sampler='fcf', not 'uniform'"):
        Trainer(_cfg(tmp_path, tiny_encoder, algo="adagrpo", iterations=2, sampler="uniform"), resume=True)


@pytest.mark.parametrize("part", ["iteration", "rng", "torch_rng", "objects", "config"])
def test_a_checkpoint_missing_a_part_is_a_clear_error(tmp_path, tiny_encoder, part):
    Trainer(_cfg(tmp_path, tiny_encoder, iterations=1)).run()
    path = tmp_path / "run" / "checkpoint.pt"
    ckpt = load_checkpoint(path)
    del ckpt[part]
    torch.save(ckpt, path)
    with pytest.raises(ValueError, match=r"checkpoint\.pt .*(damaged|config)"):
        Trainer(_cfg(tmp_path, tiny_encoder, iterations=2), resume=True)
