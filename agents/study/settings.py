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
empo                     EMPO on the oracle trajectories of the training  EMPO Table 2 / App. F (offline
                         tasks (GuiExperience-v0, Eq. 4-6), evaluated     training, online evaluation)
                         live like the others
uimem                    UI-Mem: guidance from the run's experience       UI-Mem Table 3 (the unguided policy
                         memory in stratified groups along the dropout    against vanilla GRPO)
                         curriculum, Eq. 4-5's reward (``--sampler
                         uimem``); evaluated unguided like the others
=======================  ===============================================  ====================================

A setting with its own ``env_id`` trains there (``empo``: on the experience env, with its own
algorithm, on the ``train`` split of the study's training tasks' expert trajectories) and is
evaluated on the study's env, on the same tasks and seeds as every other setting.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from wrappers.spec import parse_reward

__all__ = ["MODES", "SETTINGS", "Setting", "StudyConfig", "setting"]


@dataclass(frozen=True)
class Setting:
    """One reward setting of the study."""

    name: str
    reward: str  # a reward spec; "{models}" is replaced by the study's reward-model directory
    group: str  # "main", "progrm" or "ablation": which table it belongs to
    label: str  # how the tables name it
    needs: tuple[str, ...] = ()  # reward models it reads: "progress-env", "progress-lcs", "orm"
    env_id: str | None = None  # the env it trains on (None: the study's)
    algo: str | None = None  # its own algorithm (None: the study's)
    sampler: str | None = None  # its own group sampler (None: the algorithm's)

    def __post_init__(self) -> None:
        parse_reward(self.spec("MODELS"))  # a setting is a valid spec of the registry, or an error now

    def spec(self, models_dir: str) -> str:
        return self.reward.replace("{models}", str(models_dir))


SETTINGS: tuple[Setting, ...] = (
    Setting("outcome", "outcome", "main", "Outcome (env check)"),
    Setting("milestone-static", "milestone", "main", "Milestone, static (annotated)"),
    Setting("milestone-adaptive", "milestone-adaptive", "main", "Milestone, adaptive (ADMIRE)"),
    Setting("progress-env", "progress={models}/progress-env/best.pt", "progrm", "ProgRM Env", ("progress-env",)),
    Setting("progress-lcs", "progress={models}/progress-lcs/best.pt", "progrm", "ProgRM LCS", ("progress-lcs",)),
    Setting("orm", "orm={models}/orm/best.pt", "progrm", "ORM (learned outcome)", ("orm",)),
    Setting("spa", "spa", "main", "Outcome + SPA"),
    Setting("milestone+spa", "milestone-adaptive+spa", "main", "ADMIRE + SPA"),
    Setting("admire-base-success", "milestone-adaptive=base-success", "ablation", "w/ base reward on success"),
    Setting("admire-no-base-failure", "milestone-adaptive=no-base-failure", "ablation", "w/o base reward on failure"),
    Setting("admire-no-decay", "milestone-adaptive=no-decay", "ablation", "w/o reward decay"),
    Setting("empo", "outcome", "main", "EMPO (offline experience)", env_id="GuiExperience-v0", algo="empo"),
    Setting("uimem", "uimem", "main", "UI-Mem (memory-guided groups)", sampler="uimem"),
)


def setting(name: str) -> Setting:
    """The setting called ``name`` (ValueError listing the names otherwise)."""
    for s in SETTINGS:
        if s.name == name:
            return s
    raise ValueError(f"unknown study setting {name!r}; choose from {', '.join(s.name for s in SETTINGS)}")


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
    settings: tuple[str, ...] = tuple(s.name for s in SETTINGS)
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
    extra: dict[str, Any] = field(default_factory=dict)  # TrainConfig overrides for every run

    def with_overrides(self, **changes: Any) -> StudyConfig:
        return dataclasses.replace(self, **{k: v for k, v in changes.items() if v is not None})

    def setting_list(self) -> list[Setting]:
        return [setting(n) for n in self.settings]


# Tasks the candidate policy can solve (the oracle's action is among its candidates at every
# step of most instances): the split keeps every tier in both training and held-out tasks.
_QUICK_TRAIN = "SystemWifiTurnOn,ClockStopWatchRunning,TasksCompleteTask,TurnOffWifiAndTurnOnBluetooth,TasksEditPriority,SystemMultiSettingSetup"  # noqa: E501
_QUICK_HELDOUT = "SystemBluetoothTurnOff,MarkorRenameNote,ExpenseDeleteMultiple"
_FULL_TRAIN = (
    "SystemWifiTurnOn,SystemDarkThemeOn,ClockStopWatchRunning,ClockAlarmTurnOff,TasksCompleteTask,TasksDeleteTask,"
    "ContactsFavorite,MarkorDeleteNote,TurnOffWifiAndTurnOnBluetooth,TasksEditPriority,ClockTimerEntry,"
    "SimpleCalendarDeleteOneEvent,TasksAddTaskWithDetails,SystemMultiSettingSetup,TasksRescheduleTasks,"
    "MarkorDeleteAllNotes,SimpleCalendarDeleteEventsOnDate"
)
_FULL_HELDOUT = (
    "SystemBluetoothTurnOff,SystemWifiTurnOff,ExpenseDeleteSingle,MarkorRenameNote,SimpleCalendarInviteToEvent,"
    "ExpenseDeleteMultiple,TasksAddMultiple"
)

#: ``quick``: about 15 minutes on 2 CPU cores. ``full``: hours on a CPU; sized for a long run.
MODES: dict[str, StudyConfig] = {
    "quick": StudyConfig(mode="quick", train_tasks=_QUICK_TRAIN, heldout_tasks=_QUICK_HELDOUT, warm_start=True),
    "full": StudyConfig(
        mode="full",
        warm_start=True,
        eval_sampled=True,
        train_tasks=_FULL_TRAIN,
        heldout_tasks=_FULL_HELDOUT,
        seeds=(0, 1, 2, 3, 4),
        iterations=300,
        max_steps=20,
        eval_every=20,
        curve_episodes=4,
        eval_episodes=16,  # sampled: at least 16 per task to see differences of a few points
        rm_episodes=3000,
        rm_epochs=30,
        rm_patience=3,
    ),
}
