"""CandidatePolicy: a softmax over the screen's admissible actions (agents/policies/candidate.py)."""

from __future__ import annotations

import copy
import math
import pickle
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
import torch

import gui_gym  # noqa: F401  (registers GuiAndroid-v0)
from agents.policies import CandidatePolicy
from agents.policies.base import Decision, TrainablePolicy
from agents.policies.candidate import CandidateRecord, distribution
from agents.rollout import rollout
from gui_gym.android.actions import parse_action
from gui_gym.android.candidates import candidate_actions
from gui_gym.core.family import family_of

ANDROID = "GuiAndroid-v0"


class PoisonInfo(dict):
    """An ``info`` that fails the test if anything reads it."""

    def __getitem__(self, key: Any) -> Any:
        raise AssertionError(f"the policy read info[{key!r}]")

    def get(self, key: Any, default: Any = None) -> Any:
        raise AssertionError(f"the policy read info.get({key!r})")


@pytest.fixture(scope="module")
def policy(tiny_encoder: str) -> CandidatePolicy:
    return CandidatePolicy(ANDROID, tiny_encoder, hidden=16, prior=2.0, seed=0)


def states(n: int = 6, task: str = "easy") -> tuple[list[dict], list[list[Decision]]]:
    """Observations of different screens (and so candidate counts), with empty histories."""
    env = gym.make("GuiAndroid-v0", task=task)
    obs = []
    for seed in range(n):
        o, _ = env.reset(seed=seed)
        for _ in range(seed % 3):  # a few oracle steps in: apps' screens, not only the home screen
            o, *_ = env.step(env.unwrapped.oracle_action())
        obs.append(o)
    return obs, [[] for _ in obs]


def test_it_is_a_trainable_policy(policy: CandidatePolicy) -> None:
    assert isinstance(policy, TrainablePolicy)
    assert policy.config() == {
        "family": "GuiAndroid-v0",
        "kinds": list(family_of("GuiAndroid-v0").candidate_kinds),
        "encoder": policy.encoder_path,
        "hidden": 16,
        "history": 2,
        "temperature": 1.0,
        "prior": 2.0,
        "max_candidates": 96,
        "group_answers": True,
        "seed": 0,
    }


def test_decisions_are_valid_env_actions_and_never_read_info(policy: CandidatePolicy) -> None:
    env = gym.make("GuiAndroid-v0", task="easy")
    policy.reset(seed=0)
    obs, _ = env.reset(seed=0)
    valid = 0
    for _ in range(12):
        action = policy.act(obs, PoisonInfo())
        assert action in {c.action for c in candidate_actions(obs)}
        parse_action(action)  # the env's own parser accepts it
        obs, _, terminated, truncated, info = env.step(action)
        valid += info["format_valid"]
        if terminated or truncated:
            policy.reset(seed=1)
            obs, _ = env.reset(seed=1)
    assert valid >= 6  # screen swipes on a screen with nothing to scroll are the invalid ones


def test_record_is_texts_and_compact(policy: CandidatePolicy) -> None:
    obs, hist = states(1)
    (d,) = policy.decide(obs, hist, rng=np.random.default_rng(0))
    r = d.data
    assert isinstance(r, CandidateRecord)
    assert r.labels[r.chosen] == d.label and r.step == 0 and r.history == ()
    assert all(isinstance(t, str) for t in (r.instruction, *r.labels, *r.kinds, *r.items))
    assert d.logp.dtype == np.float32 and d.logp.shape == (1,)
    assert len(pickle.dumps(d)) < 4000


def test_history_is_the_last_k_labels(policy: CandidatePolicy) -> None:
    obs, _ = states(1)
    first = policy.decide(obs, [[]], rng=np.random.default_rng(0))
    second = policy.decide(obs, [first], rng=np.random.default_rng(1))
    third = policy.decide(obs, [first + second], rng=np.random.default_rng(2))
    fourth = policy.decide(obs, [first + second + third], rng=np.random.default_rng(3))
    assert second[0].data.history == (first[0].label,) and second[0].data.step == 1
    assert fourth[0].data.history == (second[0].label, third[0].label) and fourth[0].data.step == 3


def test_deterministic_under_an_rng_seed(tiny_encoder: str) -> None:
    obs, hist = states(6)
    a = CandidatePolicy(ANDROID, tiny_encoder, hidden=16, seed=3)
    b = CandidatePolicy(ANDROID, tiny_encoder, hidden=16, seed=3)
    run = [[d.action for d in p.decide(obs, hist, rng=np.random.default_rng(7))] for p in (a, a, b)]
    assert run[0] == run[1] == run[2]
    assert [d.action for d in a.decide(obs, hist, rng=np.random.default_rng(8))] != run[0]
    # without an rng, the policy's own stream (seeded by ``seed``)
    assert [d.action for d in CandidatePolicy(ANDROID, a.encoder_path, hidden=16, seed=3).decide(obs, hist)] == [
        d.action for d in b.decide(obs, hist)
    ]


def test_greedy_is_the_argmax(policy: CandidatePolicy) -> None:
    obs, hist = states(6)
    decisions = policy.decide(obs, hist, greedy=True)
    with torch.no_grad():
        logits, valid = policy([d.data for d in decisions])
    for i, d in enumerate(decisions):
        row = logits[i, : len(d.data.labels)]
        assert d.data.chosen == int(row.argmax())
        assert valid[i].sum() == len(d.data.labels)


def test_log_probs_match_decide_time_logp(policy: CandidatePolicy) -> None:
    obs, hist = states(8)
    decisions = policy.decide(obs, hist, rng=np.random.default_rng(0))
    decisions += policy.decide(obs[:3], [decisions[:1], decisions[1:3], []], rng=np.random.default_rng(1))
    assert len({len(d.data.labels) for d in decisions}) > 1  # padding over different candidate counts
    logp, mask, entropy = policy.log_probs(decisions)
    assert logp.shape == mask.shape == entropy.shape == (len(decisions), 1)
    assert logp.requires_grad and torch.all(mask == 1)
    expected = torch.tensor(np.concatenate([d.logp for d in decisions])).unsqueeze(1)
    torch.testing.assert_close(logp.detach(), expected, atol=1e-5, rtol=0)
    # one at a time (no padding) scores the same as in a batch
    alone = torch.cat([policy.log_probs([d])[0] for d in decisions]).detach()
    torch.testing.assert_close(alone, logp.detach(), atol=1e-5, rtol=0)
    assert policy.log_probs([])[0].shape == (0, 1)


def test_entropy_by_hand(tiny_encoder: str) -> None:
    obs, hist = states(1)  # the home screen: app icons, launches, and its texts to answer with
    flat = CandidatePolicy(ANDROID, tiny_encoder, hidden=16, prior=0.0, group_answers=False)  # untrained: uniform
    (d,) = flat.decide(obs, hist, rng=np.random.default_rng(0))
    n = len(d.data.labels)
    logp, _, entropy = flat.log_probs([d])
    assert entropy.item() == pytest.approx(math.log(n), abs=1e-5)
    assert logp.item() == pytest.approx(-math.log(n), abs=1e-5)

    # answers share one slot: each other candidate 1/(m+1), each of the a answers 1/((m+1)·a)
    grouped = CandidatePolicy(ANDROID, tiny_encoder, hidden=16, prior=0.0)
    (d,) = grouped.decide(obs, hist, rng=np.random.default_rng(0))
    a = d.data.kinds.count("answer")
    m = n - a
    assert a > 1
    logp, _, entropy = grouped.log_probs([d])
    assert entropy.item() == pytest.approx(math.log(m + 1) + math.log(a) / (m + 1), abs=1e-5)
    expected = -math.log(m + 1) - (math.log(a) if d.data.kinds[d.data.chosen] == "answer" else 0.0)
    assert logp.item() == pytest.approx(expected, abs=1e-5)

    prior = CandidatePolicy(ANDROID, tiny_encoder, hidden=16, prior=3.0, temperature=0.5)  # softmax(3·cos / 0.5)
    (d,) = prior.decide(obs, hist, rng=np.random.default_rng(0))
    g = prior.matcher.encode([d.data.instruction])[0].astype(np.float64)
    c = prior.matcher.encode(list(d.data.labels)).astype(np.float64)
    z = 3.0 * (c @ g) / 0.5 - np.log(a) * np.array([k == "answer" for k in d.data.kinds])
    p = np.exp(z - z.max())
    p /= p.sum()
    logp, _, entropy = prior.log_probs([d])
    assert entropy.item() == pytest.approx(float(-(p * np.log(p)).sum()), abs=1e-4)
    assert logp.item() == pytest.approx(float(np.log(p[d.data.chosen])), abs=1e-4)


def test_distribution_masks_padding() -> None:
    logits = torch.tensor([[1.0, 2.0, 3.0], [0.0, 5.0, -7.0]], requires_grad=True)
    valid = torch.tensor([[True, True, True], [True, False, False]])
    logp, entropy = distribution(logits, valid)
    assert logp[1, 0].item() == 0.0 and entropy[1].item() == 0.0 and logp[1, 1].item() == -math.inf
    (logp[:, 0].sum() + entropy.sum()).backward()
    assert torch.isfinite(logits.grad).all()


def test_reinforce_raises_the_probability_of_a_rewarded_candidate(tiny_encoder: str) -> None:
    policy = CandidatePolicy(ANDROID, tiny_encoder, hidden=16, prior=0.0, seed=0)
    obs, _ = gym.make("GuiAndroid-v0", task="SystemWifiTurnOn").reset(seed=0)
    target = "launch Settings"

    def p_target() -> float:
        (d,) = policy.decide([obs], [[]], greedy=True)
        with torch.no_grad():
            logits, valid = policy([d.data])
            logp, _ = distribution(logits, valid)
        return float(logp[0, d.data.labels.index(target)].exp())

    before = p_target()
    opt = torch.optim.Adam(policy.parameters(), lr=0.03)
    rng = np.random.default_rng(0)
    for _ in range(30):  # 20 apps to launch: the target starts at ~1/50
        batch = policy.decide([obs] * 32, [[]] * 32, rng=rng)
        reward = np.array([d.label == target for d in batch], dtype=np.float32)
        advantage = torch.from_numpy(reward - reward.mean()).unsqueeze(1)
        logp, mask, _ = policy.log_probs(batch)
        loss = -(advantage * logp * mask).sum() / mask.sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
    after = p_target()
    others = [c for c in candidate_actions(obs) if c.kind != "answer"]
    assert before == pytest.approx(1 / (len(others) + 1), rel=1e-4)  # uniform; the answers share one slot
    assert after > 0.4 and after > 10 * before


def test_observation_without_ui_and_bad_input(policy: CandidatePolicy) -> None:
    ds = policy.decide(
        [{"instruction": "Turn Wi-Fi on."}, {"instruction": "x", "ui": ""}, {"instruction": "y", "ui": np.zeros(3)}],
        [[], [], []],
        rng=np.random.default_rng(0),
    )
    for d in ds:
        assert d.data.items == () and {"go back", "finish: the task is done"} <= set(d.data.labels)
        parse_action(d.action)
    with pytest.raises(TypeError, match="observation must be the env's dict"):
        policy.decide(["<hierarchy/>"], [[]])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="2 observations but 1 histories"):
        policy.decide([{}, {}], [[]])
    with pytest.raises(TypeError, match="not a CandidateRecord"):
        policy.log_probs([Decision('do(action="Back")', "go back", np.zeros(1, np.float32), data={"chosen": 0})])
    with pytest.raises(ValueError, match="temperature"):
        CandidatePolicy(ANDROID, policy.encoder_path, temperature=0.0)


def test_copies_share_the_encoder_not_its_state(policy: CandidatePolicy) -> None:
    obs, hist = states(3)
    decisions = policy.decide(obs, hist, rng=np.random.default_rng(0))
    for twin in (copy.deepcopy(policy), pickle.loads(pickle.dumps(policy))):
        assert twin._matcher is None  # rebuilt on first use, from the process-wide cache
        torch.testing.assert_close(twin.log_probs(decisions)[0], policy.log_probs(decisions)[0])
    assert len(pickle.dumps(policy)) < 200_000  # the head only (16 hidden units on a 32-wide encoder)


def test_save_load_round_trip(tiny_encoder: str, tmp_path: Path) -> None:
    policy = CandidatePolicy(ANDROID, tiny_encoder, hidden=16, history=1, temperature=0.7, prior=1.5, seed=4)
    with torch.no_grad():
        for p in policy.parameters():
            p.add_(0.1 * torch.randn_like(p))  # not the initial weights
    obs, hist = states(4)
    decisions = policy.decide(obs, hist, rng=np.random.default_rng(0))
    path = tmp_path / "sub" / "policy.pt"
    path.parent.mkdir()
    policy.save(path, step=12)
    loaded = CandidatePolicy.load(path)
    assert loaded.config() == policy.config() and loaded.extra == {"step": 12}
    torch.testing.assert_close(loaded.log_probs(decisions)[0], policy.log_probs(decisions)[0])
    assert [d.action for d in loaded.decide(obs, hist, rng=np.random.default_rng(0))] == [d.action for d in decisions]
    assert CandidatePolicy.load(path, temperature=2.0).temperature == 2.0
    assert [p.name for p in path.parent.iterdir()] == ["policy.pt"]  # no temporary files left behind


def test_bad_checkpoints_raise_clear_errors(tiny_encoder: str, tmp_path: Path) -> None:
    policy = CandidatePolicy(ANDROID, tiny_encoder, hidden=16)
    with pytest.raises(FileNotFoundError, match=r"no candidate-policy checkpoint at .*missing\.pt"):
        CandidatePolicy.load(tmp_path / "missing.pt")

    corrupt = tmp_path / "corrupt.pt"
    corrupt.write_bytes(b"not a checkpoint at all")
    with pytest.raises(ValueError, match=r"corrupt\.pt is not a readable"):
        CandidatePolicy.load(corrupt)

    good = tmp_path / "good.pt"
    policy.save(good)
    truncated = tmp_path / "truncated.pt"
    truncated.write_bytes(good.read_bytes()[:200])
    with pytest.raises(ValueError, match=r"truncated\.pt is not a readable"):
        CandidatePolicy.load(truncated)

    def tampered(name: str, **changes: Any) -> Path:
        ckpt = torch.load(good, weights_only=True)
        for key, value in changes.items():
            if key in ckpt["config"]:
                ckpt["config"][key] = value
            else:
                ckpt[key] = value
        torch.save(ckpt, tmp_path / name)
        return tmp_path / name

    with pytest.raises(ValueError, match="not a candidate-policy checkpoint"):
        CandidatePolicy.load(tampered("other.pt", format="gui-gym/progrm"))
    with pytest.raises(ValueError, match="format version 99"):
        CandidatePolicy.load(tampered("future.pt", version=99))
    with pytest.raises(ValueError, match="does not fit a candidate policy"):
        CandidatePolicy.load(tampered("wider.pt", hidden=32))
    with pytest.raises(ValueError, match=r"384-dimensional embeddings .* gives 32"):
        CandidatePolicy.load(tampered("minilm.pt", dim=384))
    with pytest.raises(FileNotFoundError, match="pass encoder="):
        CandidatePolicy.load(tampered("moved.pt", encoder=str(tmp_path / "gone")))
    assert CandidatePolicy.load(tampered("moved2.pt", encoder=str(tmp_path / "gone")), encoder=tiny_encoder).dim == 32


def test_rollout_runs_it(policy: CandidatePolicy) -> None:
    env = gym.make("GuiAndroid-v0", task="easy")
    results = rollout(env, policy, episodes=2, progress=False)
    assert len(results) == 2
    for r in results:
        assert r.steps == len(r.trajectory.steps) >= 1 and isinstance(r.success, bool)
        for step in r.trajectory.steps:
            parse_action(step.action)


def test_minilm_prior_prefers_what_reads_like_the_instruction() -> None:
    policy = CandidatePolicy(ANDROID, hidden=16, prior=10.0)  # the real MiniLM (~5 s to load)
    obs, _ = gym.make("GuiAndroid-v0", task="ClockStopWatchRunning").reset(seed=0)
    (d,) = policy.decide([obs], [[]], greedy=True)
    with torch.no_grad():
        logp, _ = distribution(*policy([d.data]))
    p = dict(zip(d.data.labels, logp[0].exp().tolist(), strict=False))
    assert p["launch Clock"] > 3 * p["launch Contacts"]
    assert p["launch Clock"] > 1 / len(p)


def test_declaring_infeasible_is_understood_by_the_env() -> None:
    # candidates.py once wrote it as finish(message="infeasible"), which the env reads as an answer
    env = gym.make("GuiAndroid-v0", task="ContactsDeleteNonexistent")
    obs, _ = env.reset(seed=0)
    obs, *_ = env.step('do(action="Launch", app="Contacts")')  # infeasible counts only after looking
    (infeasible,) = [c for c in candidate_actions(obs) if c.kind == "infeasible"]
    *_, terminated, _, info = env.step(infeasible.action)
    assert terminated and info["success"]


def test_answers_are_grouped_by_their_contract_kind(tiny_encoder: str) -> None:
    """A family may name its answer candidates as it likes: grouping reads the contract's kind."""
    android = family_of(ANDROID)

    class Renamed:  # the phone's family with its answer candidates called "reply"
        name, candidate_kinds = "renamed", tuple("reply" if k == "answer" else k for k in android.candidate_kinds)
        tasks, instruction, observation_text = android.tasks, android.instruction, android.observation_text
        action_prompt, edit_actions = android.action_prompt, android.edit_actions

        def admissible_actions(self, obs, info=None, limit=96):
            return [
                c._replace(kind="reply") if c.kind == "answer" else c
                for c in android.admissible_actions(obs, info, limit)
            ]

    obs, hist = states(1)  # the home screen: many texts to answer with
    a = CandidatePolicy(ANDROID, tiny_encoder, hidden=16, prior=0.0)
    b = CandidatePolicy(Renamed(), tiny_encoder, hidden=16, prior=0.0)
    (da,) = a.decide(obs, hist, greedy=True)
    (db,) = b.decide(obs, hist, greedy=True)
    assert "reply" in db.data.kinds and sum(db.data.answers()) == sum(da.data.answers()) > 1
    torch.testing.assert_close(b.log_probs([db])[0], a.log_probs([da])[0])
