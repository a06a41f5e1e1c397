"""``WebShop-v0`` behind the env contract: registry, vector envs, splits, modes, data files, bad input."""

from __future__ import annotations

from typing import ClassVar

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import gui_gym  # noqa: F401
from gui_gym.core import contract as C
from gui_gym.core.family import family_of
from gui_gym.webshop.generator import generate, write


def run_oracle(env: gym.Env, seed: int) -> tuple[float, dict, int]:
    _, info = env.reset(seed=seed)
    for n in range(1, 16):
        _, reward, terminated, truncated, info = env.step(env.unwrapped.oracle_action())
        if terminated or truncated:
            return reward, info, n
    raise AssertionError("the oracle did not finish")


def test_check_env_and_spaces() -> None:
    env = gym.make("WebShop-v0", split="test")
    check_env(env.unwrapped, skip_render_check=True)
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert set(obs) == {"instruction", "text", "admissible"} and obs["admissible"] == "search[<query>]"
    assert info[C.TASK_ID].startswith("human:") and info[C.DIFFICULTY] in ("easy", "medium", "hard")
    assert info[C.TASK_MILESTONES][0].startswith("Search for ") and info[C.TASK_MILESTONES][-1] == 'Click "Buy Now"'
    assert info["available_actions"] == {"has_search_bar": True, "clickables": ["search"]}


def test_the_oracle_buys_what_the_goal_asks(tmp_path) -> None:
    env = gym.make("WebShop-v0", split="test")
    for seed in range(10):
        reward, info, steps = run_oracle(env, seed)
        assert reward == 1.0 and info[C.SUCCESS] and info["task_score"] == 1.0
        assert info[C.PROGRESS] == 1.0 and info[C.ACTION_KIND] == C.FINISH and steps <= 15
        assert info["reward_info"]["r_type"] == 1.0 and info["nouns"] == "stored"


def test_contract_keys_along_an_episode() -> None:
    env = gym.make("WebShop-v0", split="test")
    obs, info = env.reset(seed=1, options={C.TASK: "human:7"})
    assert info[C.TASK_ID] == "human:7"
    first = info[C.TASK_MILESTONES][0]
    query = obs["instruction"].split(", and price")[0]
    _, reward, terminated, truncated, info = env.step(f"search[{query}]")
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert info[C.FORMAT_VALID] and info[C.ACTION_KIND] == C.INPUT
    assert info[C.ACTION_DESCRIPTION] == f'Search for "{query.lower()}"'
    assert info[C.MILESTONES] == [first] and 0 < info[C.PROGRESS] < 1
    product = next(a for a in info[C.ADMISSIBLE_ACTIONS] if a.startswith("click[b0"))
    _, _, _, _, info = env.step(product)
    assert info[C.ACTION_KIND] == C.INTERACT
    assert info[C.ACTION_DESCRIPTION].startswith(f'Click "{product[6:-1].upper()}" (')
    _, _, _, _, info = env.step("click[description]")
    assert info[C.ACTION_KIND] == C.NAVIGATE and info[C.ACTION_DESCRIPTION].startswith('Click "Description" on B0')


@pytest.mark.parametrize(
    "action",
    ["search[", "click[nonexistent]", "click[search]", "buy it", "", "search[" + "x" * 600 + "]", 3.5, None],
)
def test_malformed_actions_are_reported_no_ops(action) -> None:
    env = gym.make("WebShop-v0", split="test")
    obs, _ = env.reset(seed=0)
    obs2, reward, terminated, truncated, info = env.step(action)
    assert obs2 == obs and reward == 0.0 and not terminated and not truncated
    assert info[C.FORMAT_VALID] is False and info[C.ACTION_KIND] == C.INVALID and info[C.REASON]
    assert info[C.ACTION_DESCRIPTION].startswith("Invalid action")


def test_step_limit_truncates() -> None:
    env = gym.make("WebShop-v0", split="test", max_steps=3)
    env.reset(seed=0)
    for _ in range(2):
        assert not any(env.step("click[nowhere]")[2:4])
    _, _, terminated, truncated, info = env.step("click[nowhere]")
    assert truncated and not terminated and info[C.SUCCESS] is False
    with pytest.raises(gym.error.ResetNeeded):
        env.step("search[x]")


@pytest.mark.parametrize("mode", ["text", "text_rich", "html", "url"])
def test_observation_modes(mode: str) -> None:
    env = gym.make("WebShop-v0", split="test", observation_mode=mode)
    obs, _ = env.reset(seed=0)
    text = obs["text"]
    expected = {
        "text": "WebShop [SEP] Instruction: [SEP] ",
        "text_rich": "WebShop\nInstruction: \n",
        "html": "<!DOCTYPE html>",
        "url": "http://127.0.0.1:3000/",
    }[mode]
    assert text.startswith(expected)
    assert env.unwrapped.html().startswith("<!DOCTYPE html>")


def test_splits_and_conventions() -> None:
    shop = gym.make("WebShop-v0", split="test").unwrapped.shop
    n = len(shop.goals)
    sizes = {
        (split, conv): len(gym.make("WebShop-v0", split=split, split_convention=conv).unwrapped.tasks)
        for split, conv in [("test", "upstream"), ("eval", "upstream"), ("train", "upstream"), ("train", "verl-agent")]
    }
    assert sizes == {
        ("test", "upstream"): 500, ("eval", "upstream"): 1000, ("train", "upstream"): n - 1500,
        ("train", "verl-agent"): n - 500,
    }  # fmt: skip
    with pytest.raises(ValueError, match="no eval split"):
        gym.make("WebShop-v0", split="eval", split_convention="verl-agent")
    with pytest.raises(ValueError, match="unknown split"):
        gym.make("WebShop-v0", split="dev")


def test_task_selection_by_tier_and_bad_ids() -> None:
    env = gym.make("WebShop-v0", split="test", task="hard")
    _, info = env.reset(seed=0)
    assert info[C.DIFFICULTY] == "hard"
    with pytest.raises(ValueError, match="unknown task id"):
        gym.make("WebShop-v0", split="test", task="human:999999")
    with pytest.raises(ValueError, match="unknown task id"):
        env.reset(options={C.TASK: "nope"})


@pytest.mark.parametrize("selection", ["", " , ", []])
def test_an_empty_selection_is_refused(selection) -> None:
    with pytest.raises(ValueError, match="no WebShop goals selected"):
        gym.make("WebShop-v0", split="test", task=selection)


def test_synthetic_goals_name_their_options() -> None:
    env = gym.make("WebShop-v0", split="test", goals="synthetic")
    _obs, info = env.reset(seed=0)
    assert info[C.TASK_ID].startswith("synthetic:")
    reward, info, _ = run_oracle(env, 3)
    assert reward == 1.0


def test_data_dir_reads_upstreams_files(tmp_path) -> None:
    write(generate(120, seed=2), tmp_path)
    env = gym.make("WebShop-v0", data_dir=str(tmp_path), split="all")
    assert len(env.unwrapped.shop.catalog.products) == 120
    reward, info, _ = run_oracle(env, 0)
    assert reward == 1.0
    small = gym.make("WebShop-v0", data_dir=str(tmp_path), split="all", num_products=50, reviews=True)
    assert len(small.unwrapped.shop.catalog.products) == 50
    assert any(p["Reviews"] for p in small.unwrapped.shop.catalog.products)
    (tmp_path / "title_nouns.json").unlink()
    env = gym.make("WebShop-v0", data_dir=str(tmp_path), split="all")
    _, _, terminated, _, info = _buy_first(env)
    assert terminated and info["nouns"] in ("spacy", "fallback")


def _buy_first(env: gym.Env):
    obs, _ = env.reset(seed=0)
    env.step(f"search[{obs['instruction']}]")
    first = next(c for c in env.unwrapped.admissible() if c.startswith("click[b0"))
    env.step(first)
    return env.step("click[buy now]")


def test_missing_and_damaged_data_give_clear_errors(tmp_path) -> None:
    with pytest.raises(FileNotFoundError, match="no WebShop data directory"):
        gym.make("WebShop-v0", data_dir=str(tmp_path / "none"))
    write(generate(30), tmp_path)
    (tmp_path / "items_ins_v2.json").write_text("{oops")
    with pytest.raises(ValueError, match=r"items_ins_v2\.json: not a readable WebShop attribute file"):
        gym.make("WebShop-v0", data_dir=str(tmp_path))


def test_upstream_backend_without_a_checkout_says_what_to_do(monkeypatch, tmp_path) -> None:
    from gui_gym.webshop.backends.upstream import UpstreamMissingError

    monkeypatch.delenv("WEBSHOP_PATH", raising=False)
    with pytest.raises(UpstreamMissingError, match="needs webshop_path"):
        gym.make("WebShop-v0", backend="upstream")
    write(generate(30), tmp_path / "data")
    with pytest.raises(UpstreamMissingError, match="is not a WebShop checkout"):
        gym.make("WebShop-v0", backend="upstream", webshop_path=str(tmp_path), split="all")


def test_vector_env_runs_episodes() -> None:
    envs = gym.vector.SyncVectorEnv([lambda: gym.make("WebShop-v0", split="test") for _ in range(3)])
    obs, _ = envs.reset(seed=[0, 1, 2])
    assert len(obs["text"]) == 3 and all(t.startswith("WebShop [SEP]") for t in obs["text"])
    actions = np.array([f"search[{i}]" for i in obs["instruction"]], dtype=object)
    obs, _rewards, terminated, _truncated, _infos = envs.step(actions)
    assert all("Page 1 (Total results:" in t for t in obs["text"]) and not terminated.any()
    envs.close()


def test_async_vector_env() -> None:
    envs = gym.vector.AsyncVectorEnv([lambda: gym.make("WebShop-v0", split="test", num_products=200) for _ in range(2)])
    obs, _ = envs.reset(seed=[0, 1])
    obs, *_ = envs.step(np.array(["click[search]", "search[shampoo]"], dtype=object))
    assert obs["text"][0].startswith("WebShop [SEP]") and "Total results" in obs["text"][1]
    envs.close()


def test_family_candidates_drive_an_episode() -> None:
    env = gym.make("WebShop-v0", split="test")
    family = family_of("WebShop-v0")
    obs, info = env.reset(seed=0)
    candidates = family.admissible_actions(obs, info)
    assert candidates[0].kind == "search" and candidates[0].action_kind == C.INPUT
    obs, _, _, _, info = env.step(candidates[0].action)
    candidates = family.admissible_actions(obs, info)
    kinds = {c.kind for c in candidates}
    assert {"back", "page", "product"} <= kinds
    product = next(c for c in candidates if c.kind == "product")
    assert product.label.startswith("open ") and product.label != f"open {product.action[6:-1]}"
    assert " | " in family.observation_text(obs) and "Available actions:" in family.observation_text(obs, full=True)
    assert len(family.tasks("test")) == 500


def test_a_ten_letter_option_is_no_product() -> None:
    from gui_gym.webshop.family import candidate_kind

    assert candidate_kind("click[strawberry]")[0] == "option"
    assert candidate_kind("click[b07xyz1234]")[0] == "product"
    assert candidate_kind("click[b07xyz1234]", {"b0aaaaaaaa"})[0] == "option"
    assert candidate_kind("click[strawberry]", {"strawberry"})[0] == "product"


class _RecordingUpstream:
    """Stands in for upstream's text env: an embedded session that logs what it is sent and
    whose Buy Now pays a set score, so the env's use of the upstream answer shows."""

    sent: ClassVar[list[str]] = []

    def __init__(self, webshop_path, observation_mode, num_products=None, human_goals=True, seed=0) -> None:
        from gui_gym.webshop.engine import Shop

        self.shop = Shop.from_directory(webshop_path + "/data", seed=seed, num_products=num_products)
        self.session = None

    @property
    def goals(self):
        return self.shop.goals

    def reset(self, goal_index: int) -> str:
        from gui_gym.webshop.engine import Session

        self.session = Session(self.shop, goal_index)
        return self.observation()

    def step(self, action: str):
        _RecordingUpstream.sent.append(action)
        outcome = self.session.step(action)
        return self.observation(), (0.25 if outcome.done else 0.0), outcome.done

    def observation(self) -> str:
        return "UPSTREAM " + self.session.observation("text")

    def close(self) -> None:
        pass


def test_upstream_backend_answers_and_refused_queries_stay_home(monkeypatch, tmp_path) -> None:
    import gui_gym.webshop.backends.upstream as upstream

    write(generate(120, seed=2), tmp_path / "data")
    monkeypatch.setattr(upstream, "UpstreamBackend", _RecordingUpstream)
    _RecordingUpstream.sent = []
    env = gym.make("WebShop-v0", backend="upstream", webshop_path=str(tmp_path), split="all")
    obs, _ = env.reset(seed=0)
    assert obs["text"].startswith("UPSTREAM WebShop")
    _, _, _, _, info = env.step("search[" + "x" * 600 + "]")
    assert not info[C.FORMAT_VALID] and _RecordingUpstream.sent == []  # refused here, not sent there
    while True:
        _, reward, terminated, truncated, info = env.step(env.unwrapped.oracle_action())
        if terminated or truncated:
            break
    assert terminated and reward == 0.25 and info["task_score"] == 0.25  # upstream's score counts
    assert info["embedded_task_score"] == 1.0 and not info[C.SUCCESS]
    assert _RecordingUpstream.sent[-1] == "click[buy now]"


def test_admire_matcher_follows_the_oracle_through_every_milestone() -> None:
    """The static milestones name what the actions' descriptions say, so ADMIRE's matcher (Eq. 9,
    the default δ) moves its pointer through all of them along the oracle's purchase."""
    from wrappers.spec import make_env

    for task in ("human:1500", "human:1584", "human:1812", "human:2160"):
        env = make_env("WebShop-v0", tasks=task, reward="milestone")
        env.reset(seed=0)
        while True:
            _, _, term, trunc, info = env.step(env.unwrapped.oracle_action())
            if term or trunc:
                break
        hit, total = info["milestones_hit"], info["milestones_total"]
        assert info[C.SUCCESS] and hit == total >= 3, (task, hit, total)
        env.close()
