"""``WebShop-v0``: upstream WebShop's shop behind the gui-gym env contract.

By default the env shops in the embedded catalog (1,000 generated products and their human-style
goals); ``data_dir=`` reads upstream's own data files instead, and ``backend="upstream"`` drives a
local WebShop checkout's text env (:mod:`gui_gym.webshop.backends.upstream`).

- observation: ``{"instruction", "text": the page in ``observation_mode`` (``text`` — upstream's
  ``[SEP]``-joined page —, ``text_rich``, ``html`` or ``url``), "admissible": the actions that
  apply, one per line (``search[<query>]`` where there is a search bar, then ``click[...]`` for
  each clickable)}``; the action: ``search[keywords]`` or ``click[label]``, as upstream.
- ``info``: the contract's keys plus ``available_actions`` (upstream's dict), ``url``, and at the
  purchase ``task_score`` (upstream's score), ``reward_info`` (its parts) and ``nouns`` (which
  noun tagger scored the type). ``success`` is a score of 1.0 (verl-agent's rule).
- reward: the score at ``Buy Now`` (which ends the episode), else 0; ``max_steps`` (15,
  verl-agent's limit) truncates.

Example:
    >>> import gymnasium as gym, gui_gym
    >>> env = gym.make("WebShop-v0", split="test")
    >>> obs, info = env.reset(seed=0)
    >>> obs["text"].startswith("WebShop [SEP] Instruction: [SEP] ")
    True
    >>> _, reward, terminated, truncated, info = env.step("click[nothing here]")
    >>> info["format_valid"], reward, terminated
    (False, 0.0, False)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, ClassVar

import gymnasium as gym

from gui_gym.core import contract as C
from gui_gym.core.spaces import AnyText
from gui_gym.webshop.engine import Outcome, Session, Shop
from gui_gym.webshop.expert import Milestone, goal_milestones, next_action, option_matches
from gui_gym.webshop.goals import GOAL_KINDS, SPLIT_CONVENTIONS, SPLITS, split_indices
from gui_gym.webshop.pages import BACK_TO_SEARCH, END_BUTTON, NEXT_PAGE, PREV_PAGE, SUB_PAGES
from gui_gym.webshop.reward import NounTagger, type_reward
from gui_gym.webshop.search import SearchEngine
from gui_gym.webshop.tasks import GoalTask, goal_tasks, resolve

__all__ = ["MAX_STEPS", "OBSERVATION_MODES", "WebShopEnv", "action_kind"]

MAX_STEPS = 15  # verl-agent's WebShop episode limit
OBSERVATION_MODES = ("text", "text_rich", "html", "url")
BACKENDS = ("embedded", "upstream")
TEXT_LIMIT = 200_000
_NAVIGATION = {BACK_TO_SEARCH.lower(), NEXT_PAGE.lower(), PREV_PAGE.lower(), *(s.lower() for s in SUB_PAGES)}


def action_kind(outcome: Outcome) -> str:
    """The contract's kind of an applied action."""
    if not outcome.valid:
        return C.INVALID
    if outcome.kind == "search":
        return C.INPUT
    label = outcome.label.lower()
    if label == END_BUTTON.lower():
        return C.FINISH
    if outcome.target == "button" and label in _NAVIGATION:
        return C.NAVIGATE
    return C.INTERACT


class WebShopEnv(gym.Env):
    """WebShop as a Gymnasium env (see the module docstring).

    Args:
        task: the goals to draw from: a goal id (``human:42``, any split), a list, a tier
            (``easy``/``medium``/``hard`` by the number of goal attributes and options), a
            category, ``<split>:<any of those>`` (``test:hard``), or ``None`` (the whole split).
        split: ``train``, ``eval``, ``test`` or ``all`` of the served (shuffled) goals.
        split_convention: ``upstream`` (test = the first 500, eval = the next 1,000, train = the
            rest) or ``verl-agent`` (test = the first 500, train = the rest).
        goals: ``human`` (the human-goal file's instructions) or ``synthetic`` (upstream's
            attribute-file instructions with every option combination).
        num_products: how many products: the embedded catalog's size (default 1,000, like
            upstream's small set; 100,000 works), or the first *n* of ``data_dir``'s product file
            (default all of them, as upstream's ``num_products=None``).
        catalog_seed: the embedded catalog's seed.
        seed_prices: the seed of ranged prices and price bounds (upstream draws them from
            Python's global ``random``; the same seed there gives the same draws).
        data_dir: a WebShop data directory (upstream's ``items_shuffle*.json``,
            ``items_ins_v2*.json``, ``items_human_ins.json``) to shop in instead.
        observation_mode: ``text`` (default), ``text_rich``, ``html`` or ``url``. ``html`` is the
            served shop's own page (same text, buttons and forms as upstream's templates, not
            their markup); ``text``, ``text_rich`` and ``url`` are upstream's exactly.
        show_attrs: show the ``Attributes`` button (upstream's ``show_attrs``).
        reviews: fill the ``Reviews`` pages and ratings from the catalog's reviews (upstream's
            loader leaves them out, so by default the pages are empty and the rating ``N.A.``).
        search: a search engine object (``search(query, k) -> ids``), e.g. a Lucene index.
        tagger: the type reward's noun tagger (e.g. :class:`~gui_gym.webshop.reward.SpacyNouns`).
        backend: ``embedded`` or ``upstream`` (needs ``webshop_path``, a WebShop checkout).
            With ``upstream`` the observation, reward and end of episode are upstream's; the
            embedded engine follows along for milestones, the oracle and ``reward_info`` (its own
            score, where it differs, in ``info["embedded_task_score"]``). A query the embedded
            engine refuses (over 500 characters, control characters) is not sent upstream either.
        max_steps: the episode's step limit.
    """

    # "text" repeats the page unchanged after an action that does nothing.
    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "render_fps": 4, C.FEEDBACK_KEYS: ()}
    family: ClassVar[Any] = "gui_gym.webshop.family:FAMILY"

    def __init__(
        self,
        task: str | Sequence[str] | None = None,
        split: str = "train",
        split_convention: str = "upstream",
        goals: str = "human",
        num_products: int | None = None,
        catalog_seed: int = 0,
        seed_prices: int = 0,
        data_dir: str | None = None,
        observation_mode: str = "text",
        show_attrs: bool = False,
        reviews: bool = False,
        search: SearchEngine | None = None,
        tagger: NounTagger | None = None,
        backend: str = "embedded",
        webshop_path: str | None = None,
        max_steps: int = MAX_STEPS,
        render_mode: str | None = None,
        shop: Shop | None = None,
    ) -> None:
        if observation_mode not in OBSERVATION_MODES:
            raise ValueError(
                f"unknown observation_mode {observation_mode!r}; choose from {', '.join(OBSERVATION_MODES)}"
            )
        if goals not in GOAL_KINDS:
            raise ValueError(f"unknown goals {goals!r}; choose from {', '.join(GOAL_KINDS)}")
        if split not in SPLITS:
            raise ValueError(f"unknown split {split!r}; choose from {', '.join(SPLITS)}")
        if split_convention not in SPLIT_CONVENTIONS:
            raise ValueError(
                f"unknown split_convention {split_convention!r}; choose from {', '.join(SPLIT_CONVENTIONS)}"
            )
        if backend not in BACKENDS:
            raise ValueError(f"unknown backend {backend!r}; choose from {', '.join(BACKENDS)}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        if int(max_steps) < 1:
            raise ValueError(f"max_steps must be at least 1, got {max_steps}")
        self.observation_mode, self.max_steps, self.render_mode = observation_mode, int(max_steps), render_mode
        self.split, self.split_convention = split, split_convention
        if backend == "upstream" and data_dir is None and shop is None:
            import os

            root = webshop_path or os.environ.get("WEBSHOP_PATH")
            data_dir = os.path.join(root, "data") if root else None
            if data_dir is None:
                from gui_gym.webshop.backends.upstream import UpstreamMissingError

                raise UpstreamMissingError(
                    "backend='upstream' needs webshop_path=... (or WEBSHOP_PATH): a WebShop checkout"
                )
        if shop is None:
            if data_dir is not None:
                shop = Shop.from_directory(
                    data_dir,
                    goals,
                    seed_prices,
                    num_products=num_products,
                    search=search,
                    tagger=tagger,
                    show_attrs=show_attrs,
                    reviews=reviews,
                )
            else:
                size = 1000 if num_products is None else num_products
                base = Shop.generated(size, catalog_seed, goals, seed_prices, show_attrs, reviews)
                shop = base
                if search is not None or tagger is not None:
                    engine, nouns = search or base.search, tagger or base.tagger
                    shop = Shop(base.catalog, base.goals, engine, nouns, goals, show_attrs)
        self.shop = shop
        indices = split_indices(len(shop.goals), split, split_convention)
        if len(indices) == 0:
            raise ValueError(
                f"split {split!r} ({split_convention}) is empty: the shop has {len(shop.goals)} {goals} goals; "
                "use split='all', the verl-agent convention, or a larger catalog"
            )
        self.tasks: list[GoalTask] = goal_tasks(shop, indices)  # the split's goals
        self.all_tasks: list[GoalTask] = goal_tasks(shop, range(len(shop.goals)))  # any id resolves
        self._by_id = {t.id: t for t in self.all_tasks}
        self.pool = resolve(task, self.all_tasks, self.tasks, split_convention)
        self._upstream: Any = None
        if backend == "upstream":
            from gui_gym.webshop.backends.upstream import UpstreamBackend

            self._upstream = UpstreamBackend(
                webshop_path, observation_mode, num_products, human_goals=goals == "human", seed=seed_prices
            )
            theirs = [g["instruction_text"] for g in self._upstream.goals]
            if theirs != [g["instruction_text"] for g in shop.goals]:
                raise ValueError(
                    "upstream WebShop serves other goals than the embedded shop derives from the same files "
                    "(another data directory, num_products or seed_prices?)"
                )
        self.observation_space = gym.spaces.Dict(
            {"instruction": AnyText(2_000), "text": AnyText(TEXT_LIMIT), "admissible": AnyText(TEXT_LIMIT)}
        )
        self.action_space = AnyText(10_000)
        self.session: Session | None = None
        self.task: GoalTask | None = None
        self._milestones: list[Milestone] = []
        self._reached: list[bool] = []
        self._steps = 0
        self._done = True

    # -- gymnasium API ---------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        super().reset(seed=seed)
        options = options or {}
        pool = self._select(options[C.TASK]) if C.TASK in options else self.pool
        task = pool[int(self.np_random.integers(len(pool)))] if len(pool) > 1 else pool[0]
        self.task = task
        self.session = Session(self.shop, task.index, rng=random.Random(int(self.np_random.integers(2**31))))
        if self._upstream is not None:
            self._upstream.reset(task.index)
        self._milestones = goal_milestones(self.session.goal)
        self._reached = [False] * len(self._milestones)
        self._steps, self._done = 0, False
        info = self._info(True, "Reset", C.WAIT, [])
        info[C.DIFFICULTY] = task.difficulty
        info[C.TASK_MILESTONES] = [m.label for m in self._milestones]
        info[C.PLACEHOLDERS] = {}
        return self._obs(), info

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        if self.session is None or self._done:
            raise gym.error.ResetNeeded("call reset() before step() (the episode has ended)")
        self._steps += 1
        outcome = self.session.step(action)
        theirs: tuple[float, bool] | None = None
        if self._upstream is not None and isinstance(action, str) and not outcome.refused:
            _, upstream_reward, upstream_done = self._upstream.step(action)
            theirs = (upstream_reward, upstream_done)
        reached = self._advance(outcome)
        kind = action_kind(outcome)
        info = self._info(outcome.valid, self._describe(action, outcome), kind, reached)
        if not outcome.valid:
            info[C.REASON] = outcome.reason
        terminated = outcome.done
        if theirs is not None and theirs[1] != outcome.done:
            # upstream is the truth on this backend; the engines agree on every recorded episode
            terminated = True
            info["backend_disagrees"] = f"upstream done={theirs[1]}, embedded done={outcome.done}"
        truncated = not terminated and self._steps >= self.max_steps
        reward = 0.0
        if terminated:
            reward = float(theirs[0]) if theirs is not None else float(outcome.reward)
            info["task_score"] = reward
            if self.session.reward_info is not None:
                info["reward_info"] = self.session.reward_info.verbose()
                info["nouns"] = self.session.reward_info.nouns
                if theirs is not None and abs(outcome.reward - reward) > 1e-9:
                    info["embedded_task_score"] = float(outcome.reward)
        if terminated or truncated:
            self._done = True
            info[C.SUCCESS] = bool(terminated and reward >= 1.0)
        return self._obs(), reward, terminated, truncated, info

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.session is None:
            return None
        return self.session.observation("text_rich")

    def close(self) -> None:
        if self._upstream is not None:
            self._upstream.close()

    # -- extras ----------------------------------------------------------------------------------
    def oracle_action(self) -> str:
        """A careful shopper's next action (:func:`gui_gym.webshop.expert.next_action`)."""
        if self.session is None:
            raise gym.error.ResetNeeded("call reset() before oracle_action()")
        return next_action(self.session)

    @property
    def instruction(self) -> str:
        return self.session.instruction if self.session is not None else ""

    def html(self) -> str:
        """The current page as HTML (what the served shop shows)."""
        if self.session is None:
            raise gym.error.ResetNeeded("call reset() before html()")
        return self.session.observation("html")

    def admissible(self) -> list[str]:
        """The actions that apply now, as text (``search[<query>]`` stands for any query)."""
        if self.session is None or self.session.done:
            return []
        available = self.session.available_actions()
        out = ["search[<query>]"] if available["has_search_bar"] else []
        # upstream lists the search button among the clickables but ignores click[search]
        return out + [f"click[{c}]" for c in available["clickables"] if c != "search"]

    # -- internals ---------------------------------------------------------------------------------
    def _select(self, selection: Any) -> list[GoalTask]:
        """The goals a reset names; one id is looked up directly (a shop may hold 200,000 goals)."""
        if isinstance(selection, str) and selection in self._by_id:
            return [self._by_id[selection]]
        return resolve(selection, self.all_tasks, self.tasks, self.split_convention)

    def _advance(self, outcome: Outcome) -> list[str]:
        """Milestones reached by this step (each once, in any order)."""
        assert self.session is not None
        session, reached = self.session, []
        for i, m in enumerate(self._milestones):
            if self._reached[i]:
                continue
            hit = False
            if m.kind == "search":
                hit = outcome.valid and outcome.kind == "search"
            elif m.kind == "item":
                hit = session.page.kind == "item_page" and self._of_goal_type(session.asin)
            elif m.kind == "option":
                hit = self._of_goal_type(session.asin) and any(
                    option_matches(v, m.option) for v in session.options.values()
                )
            elif m.kind == "buy":
                hit = outcome.done
            if hit:
                self._reached[i] = True
                reached.append(m.label)
        return reached

    def _of_goal_type(self, asin: str | None) -> bool:
        assert self.session is not None
        product = self.shop.product(asin) if asin else None
        return product is not None and type_reward(product, self.session.goal, self.shop.tagger)["r_type"] == 1.0

    def _describe(self, action: Any, outcome: Outcome) -> str:
        assert self.session is not None
        if not outcome.valid:
            shown = action[:80] if isinstance(action, str) else f"<{type(action).__name__}>"
            return f"Invalid action: {shown!r}: {outcome.reason}"
        if outcome.kind == "search":
            return f'Search for "{outcome.label}"'
        if outcome.target == "a":
            product = self.shop.product(outcome.label) or {}
            return f'Click "{outcome.label}" ({str(product.get("Title", ""))[:60]})'
        where = f" on {self.session.asin}" if self.session.asin else ""
        return f'Click "{outcome.label}"{where}'

    def _obs(self) -> dict[str, str]:
        assert self.session is not None
        if self._upstream is not None:
            text = self._upstream.observation()
        else:
            text = self.session.observation(self.observation_mode)
        return {
            "instruction": self.session.instruction[:2_000],
            "text": text[:TEXT_LIMIT],
            "admissible": "\n".join(self.admissible())[:TEXT_LIMIT],
        }

    def _info(self, valid: bool, description: str, kind: str, reached: list[str]) -> dict[str, Any]:
        assert self.session is not None and self.task is not None
        n = len(self._milestones)
        return {
            C.TASK_ID: self.task.id,
            C.INSTRUCTION: self.session.instruction,
            C.ADMISSIBLE_ACTIONS: self.admissible(),
            C.FORMAT_VALID: valid,
            C.ACTION_KIND: kind,
            C.ACTION_DESCRIPTION: description,
            C.MILESTONES: reached,
            C.PROGRESS: sum(self._reached) / n if n else 0.0,
            "available_actions": self.session.available_actions(),
            "url": self.session.url,
        }
