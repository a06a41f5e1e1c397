"""Behaviour cloning (gui-gym sft): pass@k by hand, the oracle imitated on disjoint seeds with noisy
recoveries, the kept epoch, and RL warm-started from the result (gui-gym train --init)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from agents.cli import main
from agents.collect import Episode, Instance
from agents.policies import LMPolicy
from agents.policies.candidate import CandidatePolicy
from agents.policies.tiny_lm import tiny_lm
from agents.sft import SFT_SEED_BASE, SFTConfig, clone, collect_demonstrations, pass_at_k
from agents.train import TrainConfig, Trainer


def _ep(task: str, tier: str, seed: int, member: int, success: bool) -> Episode:
    return Episode(Instance(task, seed, 0, member), task, tier, [], [float(success)], {}, success, False, 0)


def test_pass_at_k_by_hand() -> None:
    eps = [_ep("A", "easy", 0, m, m == 1) for m in range(4)]  # seed 0 of A: one success in 4
    eps += [_ep("A", "easy", 1, m, False) for m in range(4)]  # seed 1 of A: none
    eps += [_ep("B", "hard", 0, m, True) for m in range(4)]  # B: all
    stats = pass_at_k(eps, k=4)
    assert stats["pass@1_easy"] == pytest.approx((0.25 + 0.0) / 2) and stats["pass@4_easy"] == 0.5
    assert stats["pass@1_hard"] == 1.0 and stats["pass@4_hard"] == 1.0
    assert stats["pass@1_all"] == pytest.approx((0.25 + 0 + 1) / 3) and stats["pass@4_all"] == pytest.approx(2 / 3)


def test_the_kept_epoch_by_hand() -> None:
    from agents.sft import _score

    zero = {"pass@8_easy": 0.0, "pass@8_hard": 0.0, "pass@1_all": 0.0}
    untrained, imitating, better = {**zero, "loss": None}, {**zero, "loss": 1.2}, {**zero, "loss": 0.6}
    # nothing succeeds yet: the epoch that imitates best ranks first, and epoch 0 last
    assert _score(untrained, 8) < _score(imitating, 8) < _score(better, 8)
    one_success = {"pass@8_easy": 0.25, "pass@8_hard": 0.0, "pass@1_all": 0.03, "loss": 2.0}
    assert _score(one_success, 8) > _score(better, 8)  # a tier in the band beats any loss
    saturated = {"pass@8_easy": 1.0, "pass@8_hard": 0.5, "pass@1_all": 0.6, "loss": 0.1}
    assert _score(saturated, 8) == (1, 2, 0.6, -0.1) and _score(one_success, 8) == (1, 1, 0.03, -2.0)


def test_demonstrations_label_noisy_states_with_the_oracle(tiny_encoder: str) -> None:
    policy = CandidatePolicy("GuiAndroid-v0", tiny_encoder, hidden=8, seed=0)
    rng = np.random.default_rng(0)
    clean, counts = collect_demonstrations(policy, "GuiAndroid-v0", ["SystemWifiTurnOn"], 2, 0.0, rng)
    assert counts["episodes"] == 2 and counts["successes"] == 2 and counts["covered"] == counts["steps"]
    noisy, ncounts = collect_demonstrations(policy, "GuiAndroid-v0", ["SystemWifiTurnOn"], 2, 0.5, rng)
    assert ncounts["episodes"] == 4 and len(noisy) > len(clean)  # detours add states to recover from
    d = clean[0]
    assert d.data.labels[d.data.chosen] == d.label and d.data.step == 0  # the oracle's candidate, first step
    assert SFT_SEED_BASE > 1000  # demonstrations never use the evaluation seeds 0..n-1


def test_clone_then_warm_start_rl(tmp_path, tiny_encoder: str) -> None:
    torch.set_num_threads(1)
    cfg = SFTConfig(tasks="SystemWifiTurnOn,SystemBluetoothTurnOff", epochs=3, demos_per_task=2, eval_seeds=1, k=2,
                    max_steps=12, encoder=tiny_encoder, hidden=16, num_envs=2, out=str(tmp_path / "sft"),
                    progress=False)  # fmt: skip
    summary = clone(cfg)
    assert summary["coverage"] > 0.9 and 0 <= summary["kept_epoch"] <= summary["epochs_run"] <= 3
    rows = [json.loads(line) for line in (tmp_path / "sft" / "sft.jsonl").read_text().splitlines()]
    assert rows[0]["epoch"] == 0 and rows[0]["loss"] is None and all(r["loss"] > 0 for r in rows[1:])
    assert {"pass@1_easy", "pass@2_easy", "pass@1_all", "pass@2_all"} <= set(rows[0])
    base = dict(tasks="SystemWifiTurnOn", iterations=1, group_size=2, tasks_per_iter=1, num_envs=2, max_steps=6,
                eval_every=0, encoder=tiny_encoder, hidden=16, progress=False, seed=1)  # fmt: skip
    warm = Trainer(TrainConfig(**base, init=str(tmp_path / "sft"), out=str(tmp_path / "rl")))
    cold = Trainer(TrainConfig(**base, out=str(tmp_path / "cold")))
    saved = torch.load(tmp_path / "sft" / "checkpoint.pt", weights_only=True)["policy"]
    for name, tensor in warm.policy.state_dict().items():
        assert torch.equal(tensor, saved[name]), name
    # seed 1 initialises other weights: the warm start's are the cloned policy's, not its own
    assert any(not torch.equal(a, b) for a, b in zip(warm.policy.state_dict().values(),
                                                      cold.policy.state_dict().values(), strict=True))  # fmt: skip
    warm.close()
    cold.close()
    with pytest.raises(ValueError, match="does not fit this run"):
        Trainer(TrainConfig(**{**base, "hidden": 8}, init=str(tmp_path / "sft"), out=str(tmp_path / "bad")))


def test_the_cli_reports_pass_at_k_per_tier(tmp_path, tiny_encoder: str, capsys: pytest.CaptureFixture) -> None:
    code = main(["sft", "--tasks", "SystemWifiTurnOn", "--epochs", "1", "--demos-per-task", "1", "--eval-seeds", "1",
                 "--k", "2", "--max-steps", "10", "--encoder", tiny_encoder, "--hidden", "8", "--num-envs", "2",
                 "--out", str(tmp_path / "s"), "--no-progress"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0 and "pass@2 before" in out and "gui-gym train --init" in out
    assert main(["sft", "--noise", "1.5", "--out", str(tmp_path / "x")]) == 2


def test_clone_an_lm_policy_then_warm_start_rl(tmp_path) -> None:
    torch.set_num_threads(1)
    lm = tiny_lm(tmp_path / "lm", vocab="actions", family="GuiAndroid-v0")
    code = main(["sft", "--policy", "lm", "--lm-path", lm, "--device", "cpu", "--tasks", "SystemWifiTurnOn",
                 "--epochs", "2", "--demos-per-task", "1", "--noise", "0", "--eval-seeds", "1", "--k", "2",
                 "--max-steps", "3", "--num-envs", "2", "--lr", "1e-2", "--out", str(tmp_path / "s"),
                 "--no-progress"])  # fmt: skip
    assert code == 0
    summary = json.loads((tmp_path / "s" / "sft_summary.json").read_text())
    assert summary["coverage"] == 1.0 and summary["config"]["policy"] == "lm"  # any text is an LM's action
    assert summary["config"]["env_kwargs"] == {"ui_format": "mobilerl_appc"}  # the screen gui-gym train gives it
    rows = [json.loads(line) for line in (tmp_path / "s" / "sft.jsonl").read_text().splitlines()]
    assert len(rows) == 3 and rows[1]["loss"] > rows[2]["loss"] > 0  # the imitation NLL falls
    base = dict(tasks="SystemWifiTurnOn", iterations=1, group_size=2, tasks_per_iter=1, num_envs=2, max_steps=3,
                eval_every=0, progress=False, policy="lm", lm_path=lm, device="cpu",
                env_kwargs={"ui_format": "mobilerl_appc"})  # fmt: skip
    warm = Trainer(TrainConfig(**base, init=str(tmp_path / "s"), out=str(tmp_path / "rl")))
    saved = torch.load(tmp_path / "s" / "checkpoint.pt", weights_only=True)["policy"]
    kept = summary["kept_epoch"]
    for name, tensor in warm.policy.state_dict().items():
        assert torch.equal(tensor, saved[name]), name
    fresh = LMPolicy(lm, family="GuiAndroid-v0", device="cpu")
    changed = any(not torch.equal(a, b) for a, b in zip(saved.values(), fresh.state_dict().values(), strict=True))
    assert changed == (kept > 0)  # the kept epoch's weights, the untouched model when epoch 0 was best
    warm.close()
    assert main(["sft", "--policy", "lm", "--out", str(tmp_path / "x")]) == 2  # no --lm-path


def test_micro_batches_add_up_to_the_whole_batch_gradient(tmp_path, tiny_encoder: str) -> None:
    from agents.sft import _accumulate_nll

    torch.set_num_threads(1)
    lm = LMPolicy(tiny_lm(tmp_path / "lm", vocab="actions", family="GuiAndroid-v0"), family="GuiAndroid-v0",
                  device="cpu", max_prompt_tokens=256)  # fmt: skip
    candidate = CandidatePolicy("GuiAndroid-v0", tiny_encoder, hidden=8, seed=0)
    for policy in (lm, candidate):
        rng = np.random.default_rng(0)
        demos, _ = collect_demonstrations(policy, "GuiAndroid-v0", ["SystemWifiTurnOn"], 1, 0.0, rng)
        grads = []
        for micro in (len(demos), 1):
            for p in policy.parameters():
                p.grad = None
            nll = _accumulate_nll(policy, demos, micro)
            grads.append([p.grad.clone() for p in policy.parameters() if p.grad is not None])
            # by hand: the per-token NLL of the whole batch, as one pass gives it
            with torch.no_grad():
                logp, mask, _ = policy.log_probs(demos)
            assert nll == pytest.approx(float(-(logp * mask).sum() / mask.sum()), rel=1e-5)
        assert grads[0] and all(torch.allclose(a, b, atol=1e-6) for a, b in zip(*grads, strict=True))
