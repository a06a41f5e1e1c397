"""LMPolicy: a tiny random causal LM (built from a config, byte-level tokenizer) on GuiAndroid-v0."""

from __future__ import annotations

import json
import math
import pickle
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
import torch

import gui_gym  # noqa: F401  (registers the env ids)
from agents.policies import LMPolicy
from agents.policies.base import Decision, TrainablePolicy
from agents.policies.tiny_lm import tiny_lm
from agents.rollout import rollout
from gui_gym.android.actions import ActionParseError, format_action, parse_action
from gui_gym.android.family import action_examples, action_prompt

TASK = "SystemWifiTurnOn"


ANDROID = "GuiAndroid-v0"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Merged byte-level tokens: prompts half as long as with plain bytes, so tests run faster."""
    return tiny_lm(tmp_path_factory.mktemp("tiny_lm"), vocab="actions", family=ANDROID)


@pytest.fixture(scope="module")
def policy(tiny: str) -> LMPolicy:
    """Shared and never trained (tests that update weights build their own); short prompts for speed."""
    return LMPolicy(tiny, family=ANDROID, device="cpu", max_new_tokens=12, max_prompt_tokens=384)


@pytest.fixture(scope="module")
def obs() -> dict[str, Any]:
    env = gym.make("GuiAndroid-v0", task=TASK, ui_format="compressed")
    return env.reset(seed=0)[0]


def _parses(text: str) -> bool:
    try:
        parse_action(text)
    except ActionParseError:
        return False
    return True


def test_system_prompt_lists_actions_the_parser_accepts() -> None:
    for line in action_examples():
        assert format_action(parse_action(line)) == line
        assert line in action_prompt()


def test_rollout_runs_whole_episodes_and_garbage_is_a_noop(tmp_path: Any) -> None:
    env = gym.make("GuiAndroid-v0", task=TASK, ui_format="compressed", max_steps=3)
    policy = LMPolicy(tiny_lm(tmp_path), family=ANDROID, device="cpu", max_new_tokens=12)  # plain bytes, default prompt
    assert isinstance(policy, TrainablePolicy)
    (result,) = rollout(env, policy, episodes=1, progress=False)
    assert result.steps == 3 and not result.success  # a random model writes no valid action
    for step in result.trajectory.steps:
        assert "\n" not in step.action
        if not _parses(step.action):
            assert step.format_valid is False
    assert result.invalid == sum(not s.format_valid for s in result.trajectory.steps) >= 1
    assert [d.action for d in policy._history] == [s.action for s in result.trajectory.steps]


def test_decide_and_log_probs_agree(policy: LMPolicy, obs: dict[str, Any]) -> None:
    env = gym.make("GuiAndroid-v0", task=TASK, ui_format="compressed", max_steps=4)
    env.reset(seed=0)
    first = policy.decide([obs], [[]], rng=np.random.default_rng(1))
    # Two envs with different prompt lengths: left padding must not leak into the scores.
    short = {"instruction": "Open Clock.", "ui": '[8] TextView "Clock" clickable [10,520][260,800]'}
    batch = policy.decide([obs, short], [[], first], rng=np.random.default_rng(2))
    decisions = first + batch
    for d in decisions:
        assert isinstance(d, Decision) and d.action == d.label and "\n" not in d.action
        assert d.logp.dtype == np.float32 and d.logp.ndim == 1 and 1 <= d.tokens <= policy.max_new_tokens
        assert np.all(d.logp <= 0) and np.all(np.isfinite(d.logp))
        assert len(d.data["response"]) == d.tokens and all(isinstance(t, int) for t in d.data["prompt"])
        _, _, _, _, info = env.step(d.action)  # sent as is, never raised
        if not _parses(d.action):
            assert info["format_valid"] is False and info["reason"]
    assert len(batch[1].data["prompt"]) != len(batch[0].data["prompt"])
    logp, mask, entropy = policy.log_probs(decisions)
    width = max(d.tokens for d in decisions)
    assert logp.shape == mask.shape == entropy.shape == (3, width) and logp.dtype == torch.float32
    assert logp.requires_grad
    for i, d in enumerate(decisions):
        assert mask[i].sum() == d.tokens
        np.testing.assert_allclose(logp[i, : d.tokens].detach().numpy(), d.logp, atol=1e-5)
    real = entropy[mask.bool()]
    assert torch.all(real > 0) and torch.all(real <= math.log(len(policy.tokenizer)) + 1e-4)
    assert torch.all(logp[~mask.bool()] == 0) and torch.all(entropy[~mask.bool()] == 0)
    # Micro-batching changes nothing but memory.
    policy.micro_batch = 1
    try:
        np.testing.assert_allclose(policy.log_probs(decisions)[0].detach().numpy(), logp.detach().numpy(), atol=1e-5)
    finally:
        policy.micro_batch = 8
    again = pickle.loads(pickle.dumps(decisions))
    assert again[2].data == decisions[2].data


def test_empty_generation_is_a_valid_decision(tiny: str, obs: dict[str, Any]) -> None:
    policy = LMPolicy(tiny, family=ANDROID, device="cpu")
    eos = policy.tokenizer.eos_token_id
    bias = torch.zeros(len(policy.tokenizer))
    bias[eos] = 100.0  # the model says EOS first, whatever it reads
    policy.model.lm_head.register_forward_hook(lambda module, inputs, out: out + bias)
    (d,) = policy.decide([obs], [[]], greedy=True)
    assert d.action == "" and d.data["response"] == [eos] and d.tokens == 1
    logp, mask, _ = policy.log_probs([d])
    assert mask.tolist() == [[1.0]] and abs(logp[0, 0].item() - float(d.logp[0])) < 1e-5
    env = gym.make("GuiAndroid-v0", task=TASK, ui_format="compressed")
    env.reset(seed=0)
    info = env.step(d.action)[-1]
    assert info["format_valid"] is False and info["reason"]


def test_one_policy_gradient_step_moves_the_chosen_response(tiny: str, obs: dict[str, Any]) -> None:
    policy = LMPolicy(tiny, family=ANDROID, device="cpu", max_new_tokens=8, max_prompt_tokens=384)
    decisions = policy.decide([obs, obs], [[], []], rng=np.random.default_rng(0))
    width = max(d.tokens for d in decisions)
    old = torch.from_numpy(np.stack([np.pad(d.logp, (0, width - d.tokens)) for d in decisions]))
    before = [p.detach().clone() for p in policy.parameters()]
    advantage = torch.tensor([1.0, -1.0])
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3)
    logp, mask, _ = policy.log_probs(decisions)
    ratio = torch.exp(logp - old)
    assert torch.allclose(ratio[mask.bool()], torch.ones(()), atol=1e-5)  # PPO starts on-policy
    clipped = torch.minimum(ratio * advantage[:, None], ratio.clamp(0.8, 1.2) * advantage[:, None])
    loss = -(clipped * mask).sum() / mask.sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    assert any(not torch.equal(a, b) for a, b in zip(before, policy.parameters(), strict=True))
    with torch.no_grad():
        after = (policy.log_probs(decisions)[0] * mask).sum(1)
    total = (logp.detach() * mask).sum(1)
    assert after[0] > total[0] and after[1] < total[1]


def test_sampling_is_deterministic_under_a_seed(policy: LMPolicy, obs: dict[str, Any]) -> None:
    def actions(rng: Any, n: int = 2) -> list[list[int]]:
        return [d.data["response"] for d in policy.decide([obs] * n, [[]] * n, rng=rng)]

    assert actions(np.random.default_rng(7)) == actions(np.random.default_rng(7))
    assert actions(np.random.default_rng(7)) != actions(np.random.default_rng(8))
    # One generator per observation: a row depends on its own generator, not on the batch.
    rows = actions([np.random.default_rng(3), np.random.default_rng(4)])
    assert rows[1] == actions([np.random.default_rng(4)], n=1)[0]
    greedy = [d.data["response"] for d in policy.decide([obs], [[]], greedy=True, rng=np.random.default_rng(0))]
    assert greedy == [d.data["response"] for d in policy.decide([obs], [[]], greedy=True)]
    with pytest.raises(ValueError, match="generators"):
        policy.decide([obs], [[]], rng=[np.random.default_rng(0)] * 2)


def test_long_screens_are_cut_to_fit(tiny: str, obs: dict[str, Any]) -> None:
    policy = LMPolicy(tiny, family=ANDROID, device="cpu", max_prompt_tokens=1000, history=2)
    fixed = len(policy.encode_prompt({"instruction": "", "ui": ""}))
    long_obs = {"instruction": obs["instruction"], "ui": "\n".join([obs["ui"]] * 30)}
    history = [f'do(action="Launch", app="App{i}")' for i in range(5)]
    ids = policy.encode_prompt(long_obs, history)
    assert fixed < len(ids) <= 1000
    text = policy.tokenizer.decode(ids)
    assert f"Task: {obs['instruction']}" in text and text.endswith("[screen cut]\nAction:")
    assert obs["ui"].splitlines()[0] in text  # the top of the screen stays
    assert '4. do(action="Launch", app="App3")' in text and "App2" not in text  # last `history` actions
    # A short screen is not cut; a prompt budget below the fixed text is refused up front.
    assert "[screen cut]" not in policy.tokenizer.decode(policy.encode_prompt({"instruction": "x", "ui": "short"}))
    with pytest.raises(ValueError, match="max_prompt_tokens"):
        LMPolicy(tiny, family=ANDROID, device="cpu", max_prompt_tokens=100)
    (d,) = policy.decide([long_obs], [[]], greedy=True)
    assert len(d.data["prompt"]) <= 1000


def test_chat_template_is_used_when_present(tiny: str, obs: dict[str, Any]) -> None:
    policy = LMPolicy(tiny, family=ANDROID, device="cpu", max_new_tokens=4)
    policy.tokenizer.chat_template = (
        "{% for m in messages %}<{{ m['role'] }}>{{ m['content'] }}\n{% endfor %}"
        "{% if add_generation_prompt %}<assistant>{% endif %}"
    )
    policy._chat = True
    text = policy.tokenizer.decode(policy.encode_prompt(obs))
    assert text.startswith("<system>You operate") and text.endswith("Action:\n<assistant>")
    assert "<user>Task: Turn wifi on." in text  # AndroidWorld's goal
    (d,) = policy.decide([obs], [[]], rng=np.random.default_rng(0))
    assert d.data["prompt"] == policy.encode_prompt(obs)


def test_screen_text_mode_and_text_only_observations(tiny: str, obs: dict[str, Any]) -> None:
    policy = LMPolicy(tiny, family=ANDROID, device="cpu", screen="text")
    text = policy.tokenizer.decode(policy.encode_prompt(obs))
    # MobileRL's format writes a node's text and description one after the other.
    assert 'TextView "Settings Settings"' in text and "[820,820]" not in text and "clock" not in text
    with pytest.raises(ValueError, match="obs_mode"):
        LMPolicy(tiny, family=ANDROID, device="cpu").encode_prompt({"instruction": "x", "pixels": np.zeros((2, 2, 3))})
    xml_env = gym.make("GuiAndroid-v0", task=TASK)  # screen="full" shows the dump as the env gives it
    full = LMPolicy(tiny, family=ANDROID, device="cpu")
    assert "<hierarchy" in full.tokenizer.decode(full.encode_prompt(xml_env.reset(seed=0)[0]))


def test_save_pretrained_round_trip_and_config(tiny: str, tmp_path: Any, obs: dict[str, Any]) -> None:
    policy = LMPolicy(tiny, family=ANDROID, device="cpu", max_new_tokens=6, history=2, temperature=0.7, top_p=0.9)
    with torch.no_grad():
        next(iter(policy.parameters())).add_(0.01)  # differ from the source checkpoint
    decisions = policy.decide([obs], [[]], rng=np.random.default_rng(0))
    path = policy.save_pretrained(tmp_path / "saved")
    config = policy.config()
    assert json.loads(json.dumps(config)) == config and config["model"] == tiny
    reloaded = LMPolicy(**{**config, "model": path}, device="cpu")
    assert reloaded.tokenizer.pad_token_id == policy.tokenizer.pad_token_id
    for (k, a), (k2, b) in zip(policy.state_dict().items(), reloaded.state_dict().items(), strict=True):
        assert k == k2 and torch.equal(a, b)
    np.testing.assert_allclose(reloaded.log_probs(decisions)[0].detach().numpy()[0], decisions[0].logp, atol=1e-5)
    fresh = LMPolicy(**config, device="cpu")
    fresh.load_state_dict(policy.state_dict())
    assert fresh.decide([obs], [[]], rng=np.random.default_rng(0))[0].data == decisions[0].data


def test_bad_arguments_say_what_is_wrong(tiny: str, tmp_path: Any) -> None:
    with pytest.raises(FileNotFoundError, match="local checkpoint directory"):
        LMPolicy(tmp_path / "no-such-model", family=ANDROID)
    with pytest.raises(ValueError, match="tokenizer"):
        LMPolicy(LMPolicy(tiny, family=ANDROID, device="cpu").model, family=ANDROID)
    for kw in ({"temperature": 0.0}, {"top_p": 0.0}, {"screen": "pixels"}, {"max_new_tokens": 0}, {"family": None}):
        with pytest.raises(ValueError):
            LMPolicy(tiny, **{"family": ANDROID, "device": "cpu", **kw})
    with pytest.raises(TypeError, match="LMPolicy made"):
        LMPolicy(tiny, family=ANDROID, device="cpu").log_probs(
            [Decision("finish()", "finish", np.zeros(1, np.float32), data=None)]
        )
    with pytest.raises(ValueError, match="vocab"):
        tiny_lm(tmp_path / "x", vocab="words")


def test_tiny_lm_is_seeded_and_actions_vocab_is_compact(tmp_path: Any) -> None:
    a = LMPolicy(tiny_lm(tmp_path / "a", seed=1), family=ANDROID, device="cpu")
    b = LMPolicy(tiny_lm(tmp_path / "b", seed=1), family=ANDROID, device="cpu")
    assert all(torch.equal(x, y) for x, y in zip(a.parameters(), b.parameters(), strict=True))
    small = LMPolicy(tiny_lm(tmp_path / "c", vocab="actions", family=ANDROID), family=ANDROID, device="cpu")
    for line in action_examples():
        ids = small.tokenizer(line, add_special_tokens=False)["input_ids"]
        assert small.tokenizer.decode(ids) == line and len(ids) < len(line) // 3


def test_top_p_samples_only_the_nucleus(policy: LMPolicy) -> None:
    probs = torch.tensor([[0.1, 0.5, 0.05, 0.3, 0.05]])
    u = torch.linspace(0, 0.999, 500)
    policy.top_p = 0.7  # nucleus: tokens 1 and 3 (0.5 + 0.3 >= 0.7)
    try:
        picked = torch.cat([policy._sample(probs.log().expand(50, -1), chunk) for chunk in u.split(50)])
    finally:
        policy.top_p = 1.0
    counts = torch.bincount(picked, minlength=5)
    assert counts[[0, 2, 4]].sum() == 0 and abs(counts[1] / 500 - 0.5 / 0.8) < 0.01
    full = torch.bincount(torch.cat([policy._sample(probs.log().expand(50, -1), c) for c in u.split(50)]), minlength=5)
    np.testing.assert_allclose(full.numpy() / 500, probs[0].numpy(), atol=0.01)


def test_imitate_scores_the_expert_line_and_its_end(tiny: str, obs: dict[str, Any]) -> None:
    policy = LMPolicy(tiny, family=ANDROID, device="cpu", max_new_tokens=40, max_prompt_tokens=384)
    action = 'do(action="Swipe", direction="up", dist="medium")'
    d = policy.imitate(obs, ["first", "second"], action + "\nignored")
    eos = policy.tokenizer.eos_token_id
    # by hand: the action's own tokens, then EOS; the prompt decide() would build for that history
    own = policy.tokenizer(action, add_special_tokens=False)["input_ids"]
    assert d.action == d.label == action and d.data["response"] == [*own, eos]
    assert d.data["prompt"] == policy.encode_prompt(obs, ["first", "second"]) and d.tokens == len(d.data["response"])
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
    for _ in range(60):  # behaviour cloning of one line: its NLL falls and greedy decoding writes it
        logp, mask, _ = policy.log_probs([d])
        loss = -(logp * mask).sum() / mask.sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    assert float(loss.detach()) < 0.05
    (greedy,) = policy.decide([obs], [["first", "second"]], greedy=True)
    assert greedy.action == action and greedy.data["response"] == d.data["response"]
