"""What the trainer computes against the papers' definitions, each value worked out by hand.

One test per formula that was once computed differently: MobileRL Eq. 1 (per-trajectory
averaging) and Eq. 2 (SPA over the group's shortest success, under every algorithm), ADMIRE
Alg. 1 (milestones refined from the batch before any episode of it is credited), REINFORCE++'s
per-token k1 KL in the reward (ProgRM §2.4), and R(τ) per algorithm (agents.algos.returns).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from _util import save_tiny_encoder

from agents.algos import algorithm, policy_loss
from agents.algos.reinforce_pp import token_returns
from agents.algos.returns import group_returns, terminal_rewards, trajectory_return
from agents.collect import Episode, Instance
from agents.policies.base import Decision
from agents.train import TrainConfig, Trainer
from gui_gym.core import Step, Trajectory
from gui_gym.core.contract import EPISODE_SETTLE
from wrappers.admire import AdmireConfig
from wrappers.book import MilestoneBook, trajectory_record
from wrappers.generation import abstract
from wrappers.spec import TERMS, RewardState, make_env, settle_batch


def _ep(
    length: int,
    success: bool,
    group: int = 0,
    member: int = 0,
    extra: dict[str, list[float]] | None = None,
    terms: tuple[str, ...] = ("outcome",),
    descriptions: list[str] | None = None,
    settle: dict | None = None,
) -> Episode:
    components = {"outcome": np.full(length, float(success))}
    components |= {k: np.asarray(v, dtype=float) for k, v in (extra or {}).items()}
    decisions = [Decision("a", "a", np.zeros(1, np.float32)) for _ in range(length)]
    rewards = np.sum(list(components.values()), axis=0)
    return Episode(Instance("T", 7, group, member), "T", "easy", decisions, rewards, components, success, False, 0,
                   descriptions=descriptions or [""] * length, trajectory_terms=terms,
                   settle=settle or {})  # fmt: skip


# -- R(τ) ---------------------------------------------------------------------------------------


def test_each_algorithm_trains_on_its_papers_return():
    assert {name: algorithm(name).returns for name in ("grpo", "rloo", "dapo", "reinforce++", "adagrpo")} == {
        "grpo": "sum", "rloo": "sum", "dapo": "sum", "reinforce++": "sum", "adagrpo": "spa",
    }  # fmt: skip
    assert algorithm("grpo", level="step").returns == "step"
    assert algorithm("grpo", returns="mean").returns == "mean"
    with pytest.raises(ValueError, match="reinforce"):
        algorithm("reinforce++", returns="mean")
    with pytest.raises(ValueError, match="step level"):
        algorithm("grpo", level="step", returns="sum")


def test_the_sum_counts_trajectory_terms_once_and_step_terms_at_every_step():
    # a failure with progress gains 0.25, 0, 0.5: the sum keeps the whole gain, the mean divides it by 3
    failure = _ep(3, False, extra={"progress": [0.25, 0.0, 0.5]})
    assert trajectory_return(failure, "sum") == pytest.approx(0.75)
    assert trajectory_return(failure, "mean") == pytest.approx(0.25)
    # a success of 4 steps: the outcome broadcast to every step is worth 1, not 4
    assert trajectory_return(_ep(4, True), "sum") == 1.0


# -- MobileRL Eq. 2 -----------------------------------------------------------------------------


def test_spa_uses_the_groups_shortest_success_and_reinforce_pp_counts_it_once():
    # Successes of 4, 6 and 8 steps and a failure; the wrappers' running minimum (2, from another
    # group) gave provisional penalties. Eq. 2 over the group: T_min = 4, R = 1, 1 − 2/6, 1 − 4/8, 0.
    runs = [(4, True), (6, True), (8, True), (3, False)]
    stale = [_ep(n, win, member=i, extra={"spa": [-(n - 2) / n] * n if win else [0.0] * n}, terms=("outcome", "spa"))
             for i, (n, win) in enumerate(runs)]  # fmt: skip
    settle_batch("spa", stale, RewardState())
    want = [1.0, 2 / 3, 0.5, 0.0]
    assert [float(terminal_rewards(ep).sum()) for ep in stale] == pytest.approx(want)
    # REINFORCE++'s return at the first step is R(τ) (γ = 1): 0.667 and 0.5, not −1 and −3
    assert [float(token_returns(terminal_rewards(ep))[0][0]) for ep in stale] == pytest.approx(want)
    adv = algorithm("reinforce++").advantages(stale)
    firsts = [float(a[0]) for a in adv]
    assert firsts == sorted(firsts, reverse=True) and firsts[2] > firsts[3]  # the 8-step success beats the failure
    assert group_returns(stale, "sum") == pytest.approx(want) == group_returns(stale, "spa")


def test_spa_settles_per_group_in_a_real_rollout(tmp_path):
    cfg = TrainConfig(tasks="SystemWifiTurnOn,ClockStopWatchRunning", reward="spa", algo="reinforce++",
                      iterations=1, tasks_per_iter=2, group_size=6, num_envs=4, max_steps=8, eval_every=0,
                      out=str(tmp_path / "run"), progress=False, encoder=save_tiny_encoder(tmp_path / "enc"),
                      temperature=3.0)  # fmt: skip
    trainer = Trainer(cfg)
    try:
        episodes, _ = trainer.rollout()
    finally:
        trainer.close()
    assert episodes
    for group in {ep.group for ep in episodes}:
        eps = [ep for ep in episodes if ep.group == group]
        wins = [ep.length for ep in eps if ep.success]
        for ep in eps:
            want = 1 - (ep.length - min(wins)) / ep.length if ep.success else 0.0
            assert float(terminal_rewards(ep).sum()) == pytest.approx(want)


# -- AdaGRPO ------------------------------------------------------------------------------------


def test_adagrpo_trains_on_the_shaping_terms_too():
    # R = SPA outcome + Σ milestone credit: 1 + 0.3, 0 + 0.2, 0 + 0 → mean 0.5, std(ddof=1) 0.7
    eps = [
        _ep(2, True, member=0, extra={"milestone": [0.3, 0.0]}),
        _ep(2, False, member=1, extra={"milestone": [0.1, 0.1]}),
        _ep(2, False, member=2, extra={"milestone": [0.0, 0.0]}),
    ]
    adv = algorithm("adagrpo").advantages(eps)
    assert [float(a[0]) for a in adv] == pytest.approx([0.8 / 0.7, -0.3 / 0.7, -0.5 / 0.7], abs=1e-5)


# -- ADMIRE Alg. 1 ------------------------------------------------------------------------------


class _Exact:
    delta = 0.75

    def score(self, action: str, milestone: str) -> float:
        return 1.0 if action == milestone else 0.0


def _book() -> MilestoneBook:
    return MilestoneBook(generator=lambda req: [abstract(s.action_description, req.placeholders)
                                                for s in req.trajectory.steps])  # fmt: skip


def _admire_batch(order: list[int]) -> list[Episode]:
    win = Trajectory("T", "do it", success=True, steps=[Step("a", action_description=d) for d in ("open", "save")],
                     meta={"placeholders": {}})  # fmt: skip
    payload = {"placeholders": {}, "trajectory": None}
    eps = [
        _ep(2, False, member=0, descriptions=["open", "wander"], settle={"milestone": payload}),
        _ep(2, True, member=1, descriptions=["open", "save"],
            settle={"milestone": {"placeholders": {}, "trajectory": trajectory_record(win)}}),
        _ep(2, False, member=2, descriptions=["open", "wander"], settle={"milestone": payload}),
    ]  # fmt: skip
    for ep in eps:
        ep.components["milestone"] = np.zeros(2)  # provisional: the book had no milestones yet
    return [eps[i] for i in order]


@pytest.mark.parametrize("order", [[0, 1, 2], [2, 1, 0], [1, 0, 2]])
def test_admire_refines_from_the_batch_before_crediting_any_of_it(order):
    from wrappers.milestone import settle_milestones

    book = _book()
    eps = _admire_batch(order)
    assert settle_milestones(book, eps, _Exact(), AdmireConfig(), epoch=0) == 1
    assert book.templates("T") == ["open", "save"]
    by_member = {ep.member: ep for ep in eps}
    # Eq. 11 for each failure (k = 1 of K = 2 after step 1, ζ = 0.5, s = 1), λ(0) = 0.3:
    # step 1: 1/2 + 0.5·1 = 1.0 → 0.3; step 2: 1/2 → 0.15. Eq. 10 for the success: s at each hit.
    for m in (0, 2):
        assert by_member[m].components["milestone"].tolist() == pytest.approx([0.3, 0.15])
        assert by_member[m].rewards.tolist() == pytest.approx([0.3, 0.15])
        assert by_member[m].milestones == (1, 2)
    assert by_member[1].components["milestone"].tolist() == pytest.approx([0.3, 0.3])
    assert by_member[1].rewards.tolist() == pytest.approx([1.3, 1.3])


def test_milestone_wrapper_in_batch_mode_leaves_the_book_to_the_trainer():
    state = RewardState()
    env = make_env("GuiAndroid-v0", tasks="SystemWifiTurnOn", reward="milestone-adaptive", state=state,
                   matcher=_Exact(), batch=True)  # fmt: skip
    env.reset(seed=0)
    descriptions = []
    while True:
        *_, term, trunc, info = env.step(env.unwrapped.oracle_action())
        descriptions.append(info["action_description"])
        if term or trunc:
            break
    assert info["success"] and state.milestone_book().templates("SystemWifiTurnOn") == []  # untouched
    payload = json.loads(info[EPISODE_SETTLE])["milestone"]
    assert [step[0] for step in payload["trajectory"]["steps"]] == descriptions
    assert isinstance(payload["placeholders"], dict)
    env.close()


# -- MobileRL Eq. 1 -----------------------------------------------------------------------------


def test_trajectory_mean_weighs_a_split_trajectory_once():
    # Trajectory A: 15 steps with advantage 1; B: 2 steps with advantage −1; ρ = 1, so ℓ = −A per step.
    # Eq. 1: 1/2·(−1 + 1) = 0. Mini-batches: 8 steps of A | 7 of A + 2 of B; M = 2, G = 2:
    # w_A = 2/(2·15), w_B = 2/(2·2) → −8/15 and −7/15 + 1 = 8/15, whose mean is Eq. 1's 0.
    def loss(adv: list[float], weights: list[float] | None) -> float:
        n = len(adv)
        logp = torch.zeros(n, 1)
        mask = torch.ones(n, 1, dtype=torch.bool)
        groups = torch.tensor([0 if a > 0 else 1 for a in adv])
        w = None if weights is None else torch.tensor(weights)
        value, _ = policy_loss(logp, logp, torch.tensor(adv), mask, aggregation="trajectory-mean", groups=groups,
                               token_weights=w)  # fmt: skip
        return value.item()

    wa, wb = 2 / 30, 2 / 4
    first, second = loss([1.0] * 8, [wa] * 8), loss([1.0] * 7 + [-1.0] * 2, [wa] * 7 + [wb] * 2)
    assert (first, second) == pytest.approx((-8 / 15, 8 / 15))
    assert (first + second) / 2 == pytest.approx(loss([1.0] * 15 + [-1.0] * 2, None))  # one batch: Eq. 1
    # a mini-batch-local mean counts A in both halves: 3× B's weight
    assert (loss([1.0] * 8, None) + loss([1.0] * 7 + [-1.0] * 2, None)) / 2 == pytest.approx(-0.5)


# -- REINFORCE++ --------------------------------------------------------------------------------


def test_reinforce_pp_puts_per_token_k1_into_the_reward():
    # two steps of two and one tokens, step rewards 0 and 1 (outcome at the end), β = 0.1, γ = 1
    kl = [np.array([0.2, -0.1]), np.array([0.5])]
    got = token_returns(np.array([0.0, 1.0]), kl, kl_coef=0.1)
    # token rewards −0.02, +0.01 | 1 − 0.05 = 0.95 → returns 0.94, 0.96 | 0.95
    assert [g.tolist() for g in got] == [pytest.approx([0.94, 0.96]), pytest.approx([0.95])]
    # γ = 0.5 discounts between steps only: 0.95·0.5 − 0.02 + 0.01 = 0.465, 0.485
    half = token_returns(np.array([0.0, 1.0]), kl, kl_coef=0.1, gamma=0.5)
    assert half[0].tolist() == pytest.approx([0.465, 0.485])


def test_the_trainers_kl_is_k1_of_each_sampled_token(tmp_path):
    cfg = TrainConfig(tasks="SystemWifiTurnOn", reward="outcome", algo="reinforce++", iterations=1, tasks_per_iter=1,
                      group_size=2, num_envs=2, max_steps=4, eval_every=0, out=str(tmp_path / "run"), progress=False,
                      encoder=save_tiny_encoder(tmp_path / "enc"))  # fmt: skip
    trainer = Trainer(cfg)
    try:
        assert trainer.reference is not None
        with torch.no_grad():
            for p in trainer.reference.parameters():
                p.add_(0.05 * torch.randn_like(p))
        episodes, _ = trainer.rollout()
        kl = trainer._token_kl(episodes)
        for ep, per_step in zip(episodes, kl, strict=True):
            ref, mask, _ = trainer.reference.log_probs(ep.decisions)
            for d, k, row, m in zip(ep.decisions, per_step, ref, mask.bool(), strict=True):
                assert k.tolist() == pytest.approx((d.logp - row[m].numpy()).tolist(), abs=1e-6)
        assert any(abs(float(k[0])) > 1e-4 for steps in kl for k in steps)  # the reference differs
    finally:
        trainer.close()


def test_progress_without_a_model_is_named_oracle_progress():
    summary = TERMS["progress"].summary
    assert "ProgRM Env" not in summary and "oracle" in summary
