"""Upstream WebShop's own text env behind ``WebShop-v0(backend="upstream")``.

Drives ``web_agent_site.envs.web_agent_text_env.WebAgentTextEnv`` from a local checkout of
https://github.com/princeton-nlp/WebShop (its ``setup.sh`` downloads the data, builds the
Lucene indexes and installs pyserini, Java and spaCy). The embedded engine follows along over
the same data files for milestones, the oracle and the reward's parts; the observation is
upstream's.

Upstream draws its prices and price bounds from Python's global ``random``;
:class:`UpstreamBackend` seeds it with the env's ``seed_prices`` before building the server, so
the goals it serves are the ones the embedded shop derives from the same files.
"""

from __future__ import annotations

import importlib
import os
import random
import sys
from pathlib import Path
from typing import Any

__all__ = ["UpstreamBackend", "UpstreamMissingError"]


class UpstreamMissingError(ImportError):
    """No importable WebShop checkout."""


def _import_env(webshop_path: str | None) -> Any:
    path = webshop_path or os.environ.get("WEBSHOP_PATH")
    if not path:
        raise UpstreamMissingError(
            "backend='upstream' needs a WebShop checkout: pass webshop_path=... or set WEBSHOP_PATH "
            "(git clone https://github.com/princeton-nlp/WebShop && ./setup.sh -d small)"
        )
    root = Path(path).expanduser().resolve()
    if not (root / "web_agent_site" / "envs" / "web_agent_text_env.py").is_file():
        raise UpstreamMissingError(f"{root} is not a WebShop checkout (no web_agent_site/envs/web_agent_text_env.py)")
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    try:
        return importlib.import_module("web_agent_site.envs.web_agent_text_env")
    except Exception as err:  # its imports (pyserini, spaCy model, flask) fail in many ways
        raise UpstreamMissingError(
            f"the WebShop checkout at {root} does not import: {type(err).__name__}: {err}. "
            "Run its setup.sh (pyserini with Java, spaCy's en_core_web_sm, its data files)."
        ) from err


class UpstreamBackend:
    """One upstream ``WebAgentTextEnv``; ``reset(goal_index)``, ``step(action)``,
    ``observation()``, ``close()``."""

    def __init__(
        self,
        webshop_path: str | None,
        observation_mode: str = "text",
        num_products: int | None = 1000,
        human_goals: bool = True,
        seed: int = 0,
    ) -> None:
        module = _import_env(webshop_path)
        random.seed(seed)  # upstream's prices and price bounds come from the global generator
        self.env = module.WebAgentTextEnv(
            observation_mode=observation_mode, num_products=num_products, human_goals=human_goals
        )
        self._obs = ""

    @property
    def goals(self) -> list[dict[str, Any]]:
        return self.env.server.goals

    def reset(self, goal_index: int) -> str:
        obs, _ = self.env.reset(session=goal_index)
        self._obs = obs
        return obs

    def step(self, action: str) -> tuple[str, float, bool]:
        obs, reward, done, _ = self.env.step(action)
        self._obs = obs
        return obs, float(reward), bool(done)

    def observation(self) -> str:
        return self._obs

    def available_actions(self) -> dict[str, Any]:
        return self.env.get_available_actions()

    def close(self) -> None:
        self.env.close()
