"""What the reward-shaping study compares, and at what budget.

Each :class:`Setting` is a reward spec (:mod:`wrappers.spec`) trained with the same policy,
algorithm and task split. ``{models}`` in a spec is the study's reward-model directory: the
progress models and the outcome reward model are trained once per study
(:mod:`agents.study.reward_models`) on rollouts of the training tasks only.

The comparisons, in the papers' terms:

=======================  ===============================================  ====================================
setting                  reward spec                                      paper
=======================  ===============================================  ====================================
outcome                  the env's success check                          every paper's baseline
orm                      a learned outcome reward model in its place      ProgRM Table 1 ("w/ ORM")
milestone-static         annotated milestones                             ADMIRE Table 3 ("Static (Human)")
milestone-adaptive       milestones distilled from successes (ADMIRE)     ADMIRE Table 1 / Table 3
progress-env             progress model trained on env milestone labels   ProgRM Table 1 ("ProgRM Env")
progress-lcs             progress model trained on LCS labels             ProgRM Table 1 ("ProgRM LCS")
spa                      outcome with the shortest-path adjustment        MobileRL Fig. 4c / Fig. 6
milestone+spa            ADMIRE and SPA together                          (ours)
admire-base-success      ADMIRE + k/K base reward on successes            ADMIRE App. B.3 / Fig. 4
admire-no-base-failure   ADMIRE without the k/K base on failures          ADMIRE App. B.3 / Fig. 4
admire-no-decay          ADMIRE with λ fixed at λ0 (γ = 1)                ADMIRE App. B.3 / Fig. 4
milestone-cosine         ADMIRE scored by the paper's own matcher (pure   ADMIRE Eq. 8-9, against the guarded
                         cosine at δ = 0.75)                              matcher of the other settings
outcome-step             outcome under ADMIRE's step-level GRPO           the control of ADMIRE's optimiser:
                         (Eq. 12-13)                                      only the reward differs from ADMIRE
empo                     EMPO on the oracle trajectories of the training  EMPO Table 2 (offline training on
                         tasks at seeds the study never evaluates         expert trajectories; evaluated
                                                                          online)
                         (GuiExperience-v0, Eq. 4-6), evaluated live
                         like the others
uimem                    UI-Mem: guidance from the run's experience       UI-Mem Table 3 (the unguided policy
                         memory in stratified groups along the dropout    against vanilla GRPO)
                         curriculum, Eq. 4-5's reward (``--sampler
                         uimem``); evaluated unguided like the others
=======================  ===============================================  ====================================

A setting with its own ``env_id`` trains there (``empo``: on the experience env, with its own
algorithm, on the oracle's trajectories of the study's training tasks at seeds 800000-800005,
``OUT/experience.jsonl``) and is evaluated on the study's env, on the same tasks and seeds as every
other setting. No setting learns from an instance it is evaluated on (:mod:`agents.study.leakage`
checks every source before a run starts).

Two views of the same rewards. The **common** optimiser (:data:`COMMON`: trajectory-level GRPO
on R(τ) = the sum of the rewards, 4 tasks × 8 trajectories) trains every setting named as above,
a controlled comparison where only the reward differs. The **paper** view trains each reward
the way its paper does: the run ``<name>@paper`` (:func:`setting` derives it) uses the
setting's :attr:`Setting.paper` optimiser and :attr:`Setting.paper_reward`:

======================  =====================================================================
ADMIRE (milestone*,     step-level GRPO (Eq. 12-13), the milestone book settled once per batch
admire-*)               (Alg. 1, batch-synchronous)
ProgRM (progress-*,     REINFORCE++ (§2.4, β = 0.001 KL in the reward) on the reward model's
orm)                    output alone (``no-outcome+progress=…``; the ORM already replaces the
                        outcome), the models trained on the warm-started actor's own rollouts
MobileRL (spa)          AdaGRPO: SPA over the group's shortest success, AdaPR replay, FCF
EMPO, UI-Mem            their own algorithm / group sampler in both views (``empo``, ``uimem``)
outcome                 GRPO in both views: every paper's baseline
outcome-step            ADMIRE's step-level GRPO on the outcome alone (paper view only): against
                        ``milestone-adaptive@paper``, only the reward differs
======================  =====================================================================
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from wrappers.spec import parse_reward

__all__ = ["COMMON", "MODES", "PAPER", "SETTINGS", "Optimiser", "Setting", "StudyConfig", "all_settings", "setting"]


@dataclass(frozen=True)
class Optimiser:
    """How a run trains: :class:`~agents.train.TrainConfig`'s algo, level, returns and sampler."""

    algo: str = "grpo"
    level: str = "trajectory"
    returns: str | None = None  # None: the algorithm's own R(τ)
    sampler: str | None = None  # None: the algorithm's own group sampler

    def describe(self) -> str:
        """How the report names it, e.g. ``"GRPO, step-level (ADMIRE Eq. 12-13)"``."""
        names = {"grpo": "GRPO", "reinforce++": "REINFORCE++ (ProgRM §2.4)", "empo": "EMPO (Eq. 6)",
                 "adagrpo": "AdaGRPO (MobileRL §2.2: SPA, AdaPR, FCF)"}  # fmt: skip
        text = names.get(self.algo, self.algo)
        if self.level == "step":
            text += ", step-level (ADMIRE Eq. 12-13)"
        elif self.algo == "grpo":
            text += f", trajectory-level, R(τ) = {self.returns or 'sum'}"
        if self.sampler:
            text += f", {self.sampler} group sampler"
        return text


#: The common optimiser: trajectory-level GRPO on the summed rewards, the same for every setting.
COMMON = Optimiser()
#: The separator of a paper-view run's name: ``milestone-adaptive@paper``.
PAPER = "@paper"


@dataclass(frozen=True)
class Setting:
    """One reward setting of the study, and the optimiser it trains with."""

    name: str
    reward: str  # a reward spec; "{models}" is replaced by the study's reward-model directory
    group: str  # "main", "progrm" or "ablation": which table it belongs to
    label: str  # how the tables name it
    needs: tuple[str, ...] = ()  # reward models it reads: "progress-env", "progress-lcs", "orm"
    env_id: str | None = None  # the env it trains on (None: the study's)
    algo: str | None = None  # its own algorithm (None: the study's)
    sampler: str | None = None  # its own group sampler (None: the algorithm's)
    level: str | None = None  # its own advantage level (None: trajectory)
    returns: str | None = None  # its own R(τ) (None: the algorithm's)
    #: how its paper trains it, where that differs from the common optimiser: ``<name>@paper`` runs it
    paper: Optimiser | None = None
    paper_reward: str | None = None  # the reward its paper trains on, where it differs (ProgRM: the model alone)
    view: str = "common"  # "common", "paper", or "both" (the same run serves both views)

    def __post_init__(self) -> None:
        parse_reward(self.spec("MODELS"))  # a setting is a valid spec of the registry, or an error now
        if self.paper_reward is not None:
            parse_reward(self.paper_reward.replace("{models}", "MODELS"))

    def spec(self, models_dir: str) -> str:
        return self.reward.replace("{models}", str(models_dir))

    @property
    def optimiser(self) -> Optimiser:
        """What this run trains with (the study's ``algo`` where the setting names none)."""
        return Optimiser(self.algo or COMMON.algo, self.level or COMMON.level, self.returns, self.sampler)

    def paper_variant(self) -> Setting:
        """``<name>@paper``: the same reward trained by its paper's optimiser (ValueError without one)."""
        if self.paper is None:
            raise ValueError(f"setting {self.name!r} has no paper optimiser of its own: it is run as {self.name!r}")
        p = self.paper
        return dataclasses.replace(
            self, name=self.name + PAPER, reward=self.paper_reward or self.reward, label=f"{self.label} · paper",
            algo=p.algo, level=p.level, returns=p.returns, sampler=p.sampler, paper=None, paper_reward=None,
            view="paper",
        )  # fmt: skip


_ADMIRE = Optimiser(level="step")  # ADMIRE §3.3: step-level GRPO, milestones settled per batch (Alg. 1)
_PROGRM = Optimiser(algo="reinforce++")  # ProgRM §2.4
_MOBILERL = Optimiser(algo="adagrpo")  # MobileRL §2.2: SPA returns, AdaPR, FCF

SETTINGS: tuple[Setting, ...] = (
    Setting("outcome", "outcome", "main", "Outcome (env check)", view="both"),
    Setting("milestone-static", "milestone", "main", "Milestone, static (annotated)", paper=_ADMIRE),
    Setting("milestone-adaptive", "milestone-adaptive", "main", "Milestone, adaptive (ADMIRE)", paper=_ADMIRE),
    Setting("progress-env", "progress={models}/progress-env/best.pt", "progrm", "ProgRM Env", ("progress-env",),
            paper=_PROGRM, paper_reward="no-outcome+progress={models}/progress-env/best.pt"),
    Setting("progress-lcs", "progress={models}/progress-lcs/best.pt", "progrm", "ProgRM LCS", ("progress-lcs",),
            paper=_PROGRM, paper_reward="no-outcome+progress={models}/progress-lcs/best.pt"),
    Setting("orm", "orm={models}/orm/best.pt", "progrm", "ORM (learned outcome)", ("orm",), paper=_PROGRM),
    Setting("spa", "spa", "main", "Outcome + SPA", paper=_MOBILERL),
    Setting("milestone+spa", "milestone-adaptive+spa", "main", "ADMIRE + SPA"),
    Setting("admire-base-success", "milestone-adaptive=base-success", "ablation", "w/ base reward on success",
            paper=_ADMIRE),
    Setting("admire-no-base-failure", "milestone-adaptive=no-base-failure", "ablation", "w/o base reward on failure",
            paper=_ADMIRE),
    Setting("admire-no-decay", "milestone-adaptive=no-decay", "ablation", "w/o reward decay", paper=_ADMIRE),
    Setting("milestone-cosine", "milestone-adaptive=cosine", "ablation", "paper's cosine matcher (δ = 0.75)",
            paper=_ADMIRE),
    Setting("outcome-step", "outcome", "main", "Outcome, step-level GRPO (control)", level="step", view="paper"),
    Setting("empo", "outcome", "main", "EMPO (offline experience)", env_id="GuiExperience-v0", algo="empo",
            view="paper"),
    Setting("uimem", "uimem", "main", "UI-Mem (memory-guided groups)", sampler="uimem", view="paper"),
)  # fmt: skip


def all_settings() -> list[Setting]:
    """Every setting a study can run: the common-optimiser ones, then each ``<name>@paper``."""
    return [*SETTINGS, *(s.paper_variant() for s in SETTINGS if s.paper is not None)]


def setting(name: str) -> Setting:
    """The setting called ``name``, ``<name>@paper`` included (ValueError listing the names otherwise)."""
    base, paper, rest = name.partition(PAPER)
    for s in SETTINGS:
        if s.name == base and not rest:
            if not paper:
                return s
            if s.paper is not None:
                return s.paper_variant()
    raise ValueError(f"unknown study setting {name!r}; choose from {', '.join(s.name for s in all_settings())}")


@dataclass
class StudyConfig:
    """The budget and task split of a study. Modes (:data:`MODES`) fill these in.

    The policy is the candidate-action policy (MiniLM) and the algorithm step-free GRPO with the
    papers' group shape (4 tasks × 8 trajectories per iteration, ADMIRE App. A.1.2), the same
    for every setting. Training uses seeds from 10⁶ up; evaluation uses seeds 0..n−1 of the
    training tasks ("seen tasks, held-out seeds") and of ``heldout_tasks`` ("unseen tasks").
    """

    mode: str = "quick"
    train_tasks: str = ""  # comma-separated task ids
    heldout_tasks: str = ""  # never trained on, by the policy nor by the reward models
    settings: tuple[str, ...] = tuple(s.name for s in all_settings())
    seeds: tuple[int, ...] = (0, 1, 2)
    algo: str = "grpo"
    iterations: int = 50
    tasks_per_iter: int = 4
    group_size: int = 8
    max_steps: int = 15
    eval_every: int = 10  # learning-curve evaluations on the training tasks (held-out seeds)
    curve_episodes: int = 2  # seeds per training task at each learning-curve evaluation
    eval_episodes: int = 6  # seeds per task in the final evaluation (both splits, before and after)
    eval_sampled: bool = False  # sample the policy at evaluation (temperature 1) instead of its greedy choice
    num_envs: int = 8
    workers: int = 2  # runs trained at once, one process each
    # reward models (ProgRM Env / LCS progress models, the ORM)
    rm_episodes: int = 600  # rollouts of the training tasks to label and train on
    rm_epochs: int = 8
    rm_patience: int = 2
    # warm start: behaviour cloning once per study (gui-gym sft), every setting's RL starts from it
    warm_start: bool = False
    sft_demos: int = 4  # oracle episodes per training task (as many noisy ones again)
    sft_epochs: int = 30
    sft_k: int = 8  # pass@k of the stopping rule and the report
    # tiers: None keeps the family's declared difficulty; (m, h) tiers by the oracle's length
    # (agents.study.tiers: easy under m steps, medium m..h-1, hard from h)
    tier_cuts: tuple[int, int] | None = None
    # ADMIRE's decay per epoch (λ = λ0·γ^E, 0.99; the paper times 150 epochs, App. B.5.1, and trains past
    # 200, App. B.6); None keeps 0.99. A study of fewer epochs rescales it so that the decay reaches as
    # far as 150 of the paper's epochs: γ = 0.99^(150 / its epochs) (0.99^(200 / its epochs) decays faster).
    admire_gamma: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # TrainConfig overrides for every run

    def with_overrides(self, **changes: Any) -> StudyConfig:
        return dataclasses.replace(self, **{k: v for k, v in changes.items() if v is not None})

    def setting_list(self) -> list[Setting]:
        return [setting(n) for n in self.settings]


# Tasks the candidate policy can solve (the oracle's action is among its candidates at every
# step of most instances): the split keeps every tier in both training and held-out tasks.
_QUICK_TRAIN = "SystemWifiTurnOn,ClockStopWatchRunning,TasksCompleteTask,TurnOffWifiAndTurnOnBluetooth,TasksEditPriority,SystemMultiSettingSetup"  # noqa: E501
_QUICK_HELDOUT = "SystemBluetoothTurnOff,MarkorRenameNote,ExpenseDeleteMultiple"
# The full study: 8 training tasks per tier by the oracle's length (under 6 steps, 6-10, 11 and
# more), each with the oracle's action among the candidates at every step; 3 held-out per tier.
_FULL_TRAIN = ",".join((
    "SystemWifiTurnOn", "SystemDarkThemeOn", "ClockStopWatchRunning", "ClockAlarmTurnOff", "TasksCompleteTask",
    "TasksDeleteTask", "ContactsFavorite", "SystemBluetoothTurnOn",  # 3-5 steps
    "TurnOffWifiAndTurnOnBluetooth", "TasksEditPriority", "ClockTimerEntry", "SimpleCalendarDeleteOneEvent",
    "TasksAddTaskWithDetails", "ContactsAddContact", "SimpleSmsSend", "MarkorCreateNote",  # 6-10 steps
    "SystemMultiSettingSetup", "TasksRescheduleTasks", "SimpleCalendarDeleteEvents", "SimpleCalendarDeleteEventsOnDate",
    "SimpleSmsSendMultiple", "MarkorCreateNoteInFolder", "ExpenseDeleteMultiple", "TasksAddMultiple",  # 11-17
))  # fmt: skip
_FULL_HELDOUT = ",".join((
    "SystemBluetoothTurnOff", "SystemWifiTurnOff", "ExpenseDeleteSingle",
    "SimpleCalendarInviteToEvent", "SimpleSmsSendToContact", "MarkorRenameNote",
    "MarkorNoteFromSms", "ExpenseAddMultiple", "SimpleCalendarAddOneEvent",
))  # fmt: skip
# ALFWorld and WebShop (ADMIRE Table 4's generalisation): 8 training tasks per oracle-length tier
# (ALFWorld: under 5 steps, 5-6, 7 and more; WebShop: 3-4 steps, 5, 6 and more), 2 held-out per tier.
_ALFWORLD_TRAIN = ",".join(
    (
        "pick_and_place_simple-Pillow-None-ArmChair-229/trial_T20190909_050117_965446",
        "look_at_obj_in_light-Pillow-None-DeskLamp-313/trial_T20190907_064859_943034",
        "pick_and_place_simple-Candle-None-Toilet-427/trial_T20190907_064602_030544",
        "pick_and_place_simple-RemoteControl-None-Sofa-225/trial_T20190907_234440_614517",
        "look_at_obj_in_light-Box-None-DeskLamp-211/trial_T20190906_223248_857630",
        "look_at_obj_in_light-Pen-None-DeskLamp-317/trial_T20190907_175507_060804",
        "pick_and_place_simple-KeyChain-None-SideTable-222/trial_T20190907_212330_700974",
        "pick_and_place_simple-SoapBottle-None-GarbageCan-430/trial_T20190909_194106_248876",
        "pick_cool_then_place_in_recep-Egg-None-DiningTable-23/trial_T20190908_000900_933641",
        "pick_cool_then_place_in_recep-Pot-None-CounterTop-16/trial_T20190906_155543_288832",
        "pick_and_place_simple-SprayBottle-None-Drawer-418/trial_T20190908_033545_690360",
        "pick_and_place_simple-Tomato-None-Microwave-21/trial_T20190906_193759_728596",
        "pick_cool_then_place_in_recep-Cup-None-DiningTable-8/trial_T20190908_110531_434920",
        "pick_clean_then_place_in_recep-Egg-None-CounterTop-16/trial_T20190909_150212_325062",
        "pick_and_place_simple-HandTowel-None-Drawer-426/trial_T20190907_013125_267236",
        "pick_clean_then_place_in_recep-DishSponge-None-Drawer-411/trial_T20190909_063623_575996",
        "pick_two_obj_and_place-Pencil-None-SideTable-301/trial_T20190906_170641_571791",
        "pick_clean_then_place_in_recep-Spoon-None-Drawer-11/trial_T20190907_132717_566532",
        "pick_clean_then_place_in_recep-Ladle-None-DiningTable-14/trial_T20190909_161820_439676",
        "pick_two_obj_and_place-KeyChain-None-SideTable-328/trial_T20190909_083018_278975",
        "pick_cool_then_place_in_recep-Apple-None-Microwave-23/trial_T20190909_073500_866682",
        "pick_two_obj_and_place-Pen-None-Shelf-318/trial_T20190909_083659_337164",
        "pick_clean_then_place_in_recep-DishSponge-None-Drawer-13/trial_T20190909_003013_938669",
        "pick_two_obj_and_place-SprayBottle-None-Toilet-416/trial_T20190907_154528_810074",
    )
)
_ALFWORLD_HELDOUT = ",".join(
    (
        "pick_and_place_simple-Statue-None-Dresser-310/trial_T20190907_073145_571245",
        "look_at_obj_in_light-Pillow-None-DeskLamp-323/trial_T20190907_091912_667424",
        "pick_and_place_simple-SoapBottle-None-Drawer-6/trial_T20190909_153241_584906",
        "pick_cool_then_place_in_recep-Bread-None-DiningTable-14/trial_T20190907_084228_606532",
        "pick_two_obj_and_place-SoapBottle-None-Drawer-13/trial_T20190909_081233_167909",
        "pick_heat_then_place_in_recep-Mug-None-DiningTable-8/trial_T20190906_221857_690978",
    )
)
_WEBSHOP_TRAIN = ",".join(f"human:{n}" for n in (
    1584, 1596, 1608, 1644, 1812, 1896, 1920, 2136,  # 3-4 steps
    1500, 1512, 1524, 1536, 1548, 1560, 1572, 1620,  # 5
    1680, 1728, 1740, 1764, 1872, 1944, 1992, 2112,  # 6 and more
))  # fmt: skip
_WEBSHOP_HELDOUT = ",".join(f"human:{n}" for n in (2160, 2196, 1632, 1656, 2172, 2184))
# MobileMiniWoB++ (the ``miniwob-subset`` pages with an expert whose every step is among the candidate
# policy's candidates, two steps or more): training pages by the oracle's length (2; 3-4; 5 and more),
# held-out pages that ask the same skills on other pages.
_MINIWOB_TRAIN = ",".join(f"MiniWob{n}" for n in (
    "ClickButtonSequence", "ClickCollapsible", "ClickOption", "ClickCheckboxes",  # 2 steps (4 at most)
    "EnterText", "SearchEngine",  # 3-5
    "LoginUser", "ClickShades",  # 5-7
))  # fmt: skip
_MINIWOB_HELDOUT = ",".join(
    f"MiniWob{n}" for n in ("ClickCollapsible2", "EnterTextDynamic", "EnterPassword", "LoginUserPopup")
)
#: ADMIRE Table 4's comparison on the text families: GRPO against ADMIRE, under both optimisers, with the
#: step-level control that makes ADMIRE's primary comparison one of rewards alone.
_TEXT_SETTINGS = ("outcome", "outcome-step", "milestone-adaptive", "milestone-adaptive@paper", "milestone-static@paper")

#: The full Android study: every setting, ADMIRE's ablations under ADMIRE's own optimiser only.
_FULL_SETTINGS = tuple(s.name for s in all_settings() if not (s.group == "ablation" and s.view == "common"))

_FULL = StudyConfig(
    mode="full",
    settings=_FULL_SETTINGS,
    warm_start=True,
    eval_sampled=True,
    train_tasks=_FULL_TRAIN,
    heldout_tasks=_FULL_HELDOUT,
    tier_cuts=(6, 11),
    # 8 paired seeds: 80% power at 4 pp under the primary family's Holm correction for the paired stds
    # the first 5 seeds showed (median 1.6 pp; agents.study.stats.seeds_needed), ProgRM's excepted
    seeds=tuple(range(8)),
    iterations=200,
    max_steps=20,
    eval_every=25,
    curve_episodes=2,
    eval_episodes=16,  # sampled: at least 16 per task to see differences of a few points
    rm_episodes=2000,
    rm_epochs=20,
    rm_patience=3,
    # 200 iterations of 24 tasks at 4 a time are 33 epochs: γ = 0.99^(150/33) (0.941 for the paper's 200+)
    admire_gamma=0.955,
)

#: ``quick``: about 15 minutes on 2 CPU cores (a smoke run: every setting in both views, one seed);
#: ``quick-miniwob``: ADMIRE's comparison on MobileMiniWoB++ (needs Chromium and the ``miniwob`` extra).
#: ``full``: the Android study, overnight on 2 cores; ``full-alfworld`` / ``full-webshop``: ADMIRE
#: Table 4's generalisation on the text families (run with ``--env ALFWorld-v0`` / ``WebShop-v0``).
MODES: dict[str, StudyConfig] = {
    "quick": StudyConfig(mode="quick", train_tasks=_QUICK_TRAIN, heldout_tasks=_QUICK_HELDOUT, warm_start=True,
                         seeds=(0,), iterations=30, eval_episodes=4, tier_cuts=(6, 11)),
    "full": _FULL,
    # ADMIRE's comparison on MobileMiniWoB++ (Table 1 reports it beside AndroidWorld): the real pages in
    # Chromium (about 14 ms a step); the text families' five settings on three seeds. 30 iterations of 8
    # tasks at 4 a time are 15 epochs: γ = 0.99^(150/15)
    "quick-miniwob": dataclasses.replace(
        _FULL, mode="quick-miniwob", train_tasks=_MINIWOB_TRAIN, heldout_tasks=_MINIWOB_HELDOUT,
        settings=_TEXT_SETTINGS, seeds=(0, 1, 2), iterations=30, eval_every=10, eval_episodes=8, tier_cuts=(3, 5),
        max_steps=15, rm_episodes=0, admire_gamma=0.99 ** (150 / 15),
    ),
    "full-alfworld": dataclasses.replace(
        _FULL, mode="full-alfworld", train_tasks=_ALFWORLD_TRAIN, heldout_tasks=_ALFWORLD_HELDOUT,
        settings=_TEXT_SETTINGS, tier_cuts=(5, 7), max_steps=15, extra={"env_id": "ALFWorld-v0"},
    ),
    "full-webshop": dataclasses.replace(
        _FULL, mode="full-webshop", train_tasks=_WEBSHOP_TRAIN, heldout_tasks=_WEBSHOP_HELDOUT,
        settings=_TEXT_SETTINGS, tier_cuts=(5, 6), max_steps=15, extra={"env_id": "WebShop-v0"},
    ),
}  # fmt: skip
