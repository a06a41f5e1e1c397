"""Speed of ``WebShop-v0``'s embedded engine and search, the baselines' scores, and upstream's text
env on the same catalog in the same run.

Usage::

    python benchmarks/webshop.py                   # ~2 minutes (includes the 100k catalog)
    python benchmarks/webshop.py --quick           # seconds: 1k only, fewer episodes
    python benchmarks/webshop.py --upstream-python /path/venv/bin/python --webshop /path/WebShop \\
        --jar /path/anserini-0.14.3-fatjar.jar     # + upstream's own text env, same actions

What is measured (CPU time of this process, so a busy machine does not distort per-core figures):

* catalog: ``generate`` (1k, 100k) and building the shop (loading, prices, goals, BM25 index);
* search: mean latency of ``BM25Search.search`` over the test goals' instructions, uncached;
* steps/s of a :class:`~gui_gym.webshop.engine.Session` (the engine) and of ``gym.make("WebShop-v0")``
  (contract ``info``, milestones), driven by a seeded random walk over the available actions with
  fresh searches (no query cache hits), at 1k and 100k products;
* baselines on the test split (upstream's first 500 goals): the rule baseline of the WebShop
  paper (search the instruction, buy the first result, no options) and the careful shopper
  (``oracle_action``): mean score x100 and success (score 1.0);
* upstream: with ``--upstream-python``, that interpreter runs ``WebAgentTextEnv`` from the given
  checkout over the same catalog (written there by ``tests/webshop/record_upstream.py``) and plays
  the same random walk; its steps/s (wall clock) and the ratio are printed.

Targets (issue 17): >= 2,000 steps/s per core at 1k products; search <= 2 ms at 1k and <= 20 ms at
100k; catalog and index <= 1 s for 1k; the rule baseline near upstream's (score ~45, success ~10%).
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gymnasium as gym

import gui_gym  # noqa: F401
from gui_gym.webshop import engine as E
from gui_gym.webshop.engine import Session, Shop
from gui_gym.webshop.expert import next_action
from gui_gym.webshop.generator import generate
from gui_gym.webshop.search import BM25Search

cpu, wall = time.process_time, time.perf_counter
NAV = ("back to search", "next >", "< prev")


def walk(available: dict, instruction: str, rng: random.Random) -> str:
    """A random shopper: a fresh search now and then, else a random click."""
    clickables = [c for c in available["clickables"] if c != "search"]
    if available["has_search_bar"] or not clickables or rng.random() < 0.1:
        words = instruction.split()
        return f"search[{' '.join(rng.sample(words, k=min(len(words), rng.randint(2, 8))))}]"
    return f"click[{rng.choice(clickables)}]"


def time_catalog(n: int) -> dict:
    E._generated_shop.cache_clear()
    t = cpu()
    generate(n)
    gen = cpu() - t
    t = cpu()
    shop = Shop.generated(n)
    total = cpu() - t
    return {"products": n, "generate_s": gen, "generate_and_index_s": total, "goals": len(shop.goals), "shop": shop}


def time_search(shop: Shop, queries: list[str]) -> float:
    engine = BM25Search.from_products(shop.catalog.products)  # a fresh engine: no cached queries
    t = cpu()
    for q in queries:
        engine.search(q)
    return (cpu() - t) / len(queries) * 1000


def time_engine(shop: Shop, steps: int, seed: int = 0) -> tuple[float, list[tuple[int, list[str]]]]:
    rng = random.Random(seed)
    played: list[tuple[int, list[str]]] = []
    done = 0
    t = cpu()
    while done < steps:
        goal = rng.randrange(len(shop.goals))
        session, actions = Session(shop, goal), []
        for _ in range(15):
            action = walk(session.available_actions(), session.instruction, rng)
            session.step(action)
            actions.append(action)
            done += 1
            if session.done:
                break
        played.append((goal, actions))
    return done / (cpu() - t), played


def time_env(n: int, steps: int, seed: int = 1) -> float:
    """The env under its own random walk (other queries than the engine's: no cache hits)."""
    env = gym.make("WebShop-v0", split="all", num_products=n)
    rng = random.Random(seed)
    done = 0
    t = cpu()
    while done < steps:
        _, info = env.reset(seed=rng.randrange(2**31))
        for _ in range(15):
            _, _, terminated, truncated, info = env.step(walk(info["available_actions"], info["instruction"], rng))
            done += 1
            if terminated or truncated:
                break
    return done / (cpu() - t)


def baselines(shop: Shop, n: int) -> dict:
    rule, oracle = [], []
    for i in range(n):
        s = Session(shop, i)
        s.step(f"search[{s.instruction}]")
        first = [c for c in s.available_actions()["clickables"] if c not in NAV]
        if first:
            s.step(f"click[{first[0]}]")
            s.step("click[buy now]")
        rule.append(s.reward_info.score if s.reward_info else 0.0)
        s = Session(shop, i)
        for _ in range(15):
            s.step(next_action(s))
            if s.done:
                break
        oracle.append(s.reward_info.score if s.reward_info else 0.0)
    summary = {}
    for name, scores in (("rule", rule), ("oracle", oracle)):
        summary[name] = {"score": 100 * statistics.mean(scores), "success": 100 * sum(x == 1.0 for x in scores) / n}
    return summary


UPSTREAM = r"""
import json, random, sys, time
sys.argv = [sys.argv[0]] + json.loads(sys.argv[1])
webshop, jar, episodes = sys.argv[1], sys.argv[2], json.loads(open(sys.argv[3]).read())
sys.path.insert(0, sys.argv[4])
import record_upstream as R
R._stub_modules(jar, None)
sys.path.insert(0, webshop)
import os; os.chdir(webshop)
from web_agent_site.envs.web_agent_text_env import WebAgentTextEnv
random.seed(0)
env = WebAgentTextEnv(observation_mode="text", num_products=1000, human_goals=True)
steps, t = 0, time.perf_counter()
for goal, actions in episodes:
    env.reset(session=goal)
    for a in actions:
        _, _, done, _ = env.step(a)
        steps += 1
        if done:
            break
print(json.dumps({"steps_per_s": steps / (time.perf_counter() - t), "steps": steps}))
"""


def upstream(args: argparse.Namespace, shop: Shop) -> dict | None:
    """Upstream's text env over the catalog the recorder wrote into the checkout (300 products)."""
    _, episodes = time_engine(shop, 300, seed=1)
    path = Path("/tmp/webshop-bench-episodes.json")
    path.write_text(json.dumps(episodes))
    script_dir = str(Path(__file__).resolve().parents[1] / "tests" / "webshop")
    argv = json.dumps([args.webshop, args.jar, str(path), script_dir])
    run = subprocess.run([args.upstream_python, "-c", UPSTREAM, argv], capture_output=True, text=True, timeout=1800)
    if run.returncode != 0:
        print("upstream failed:", run.stderr[-1500:])
        return None
    theirs = json.loads(run.stdout.strip().splitlines()[-1])
    t = wall()
    steps = 0
    for goal, actions in episodes:
        s = Session(shop, goal)
        for a in actions:
            s.step(a)
            steps += 1
            if s.done:
                break
    ours = steps / (wall() - t)
    return {"upstream_steps_per_s": theirs["steps_per_s"], "engine_steps_per_s_wall": ours, "steps": steps}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--upstream-python", default=None)
    parser.add_argument("--webshop", default=None, help="the WebShop checkout the recorder prepared")
    parser.add_argument("--jar", default=None, help="anserini-0.14.3-fatjar.jar (for the recorder's stubs)")
    args = parser.parse_args()
    print(f"python {platform.python_version()}, {platform.machine()}, CPU time per core")

    sizes = [1000] if args.quick else [1000, 100_000]
    steps = 3000 if args.quick else 20_000
    for n in sizes:
        c = time_catalog(n)
        shop = c.pop("shop")
        queries = [g["instruction_text"].lower() for g in shop.goals[:300]]
        ms = time_search(shop, queries)
        engine_sps, _ = time_engine(shop, steps if n == 1000 else steps // 4)
        env_sps = time_env(n, steps if n == 1000 else steps // 4)
        print(
            f"{n:>7} products: generate {c['generate_s']:.2f} s, "
            f"generate+load+index {c['generate_and_index_s']:.2f} s, "
            f"{c['goals']} goals | search {ms:.2f} ms/query | engine {engine_sps:,.0f} steps/s | "
            f"env {env_sps:,.0f} steps/s"
        )
    shop = Shop.generated(1000)
    b = baselines(shop, 100 if args.quick else 500)
    for name, v in b.items():
        print(f"{name:>6} baseline on the test split: score {v['score']:.1f}, success {v['success']:.1f}%")
    if args.upstream_python:
        E._generated_shop.cache_clear()
        result = upstream(args, Shop.generated(300))
        if result:
            ratio = result["engine_steps_per_s_wall"] / result["upstream_steps_per_s"]
            print(
                f"upstream text env (300 products, Lucene, spaCy): {result['upstream_steps_per_s']:,.0f} steps/s; "
                f"engine {result['engine_steps_per_s_wall']:,.0f} steps/s on the same {result['steps']} steps "
                f"(wall): {ratio:,.0f}x"
            )


if __name__ == "__main__":
    main()
