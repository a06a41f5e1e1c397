"""``gui-gym train`` and ``gui-gym plot``.

::

    gui-gym train --preset quick                                   # the README's main job
    gui-gym train --tasks easy --reward milestone+spa --algo grpo --policy candidate --out runs/a
    gui-gym train --out runs/a --resume                            # continue an interrupted run
    gui-gym train --env mypkg.envs:MyEnv-v0 --env-kwargs max_steps=30 --tasks all
    gui-gym plot runs/a runs/b -o curves.png

Every :class:`~agents.train.TrainConfig` field is a flag (``--tasks-per-iter``, ``--clip-high``
…); a preset fills in several, and flags given explicitly win over it. ``--env`` is ``env_id``
and ``--env-kwargs KEY=VALUE ...`` fills ``env_kwargs`` (values as JSON). With ``--policy lm``
on GuiAndroid-v0 the screen is MobileRL's App. C text (``ui_format="mobilerl_appc"``: pixel
bounds, as the env's taps take) unless ``ui_format`` is given.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from agents.algos.registry import ALGORITHMS
from agents.cli.common import (
    ENV_HELP,
    ENV_KWARGS_HELP,
    add_config_flags,
    config_values,
    env_kwargs,
    lm_screen,
    parse_env_kwarg,
)
from agents.train import TrainConfig, Trainer, task_ids
from gui_gym.core import contract as C
from gui_gym.core.contract import TASK

#: Named settings. ``quick`` is the README's main job: about ten minutes on two CPU cores.
PRESETS: dict[str, dict[str, Any]] = {
    "quick": dict(
        tasks="SystemWifiTurnOn,SystemBluetoothTurnOff,SystemDarkThemeOn,ClockStopWatchRunning,ClockAlarmTurnOff,"
        "TasksCompleteTask,TasksDeleteTask,ContactsFavorite",
        reward="milestone",
        algo="grpo",
        level="step",  # ADMIRE trains its milestone reward with step-level GRPO (Eq. 12-13)
        policy="candidate",
        iterations=120,
        tasks_per_iter=4,
        group_size=8,
        max_steps=12,
        eval_every=30,
        eval_episodes=6,
        num_envs=8,
        out="runs/quick",
    ),
}

_HELP = {
    "tasks": "training tasks: a tier (easy/medium/hard), a task id, or comma-separated ids",
    "eval_tasks": "held-out evaluation tasks (default: the training tasks on held-out seeds)",
    "reward": "reward spec: outcome, milestone, milestone-adaptive, progress[=CKPT], orm=CKPT, spa, uimem; join with +",
    "sampler": "group sampler: uniform, fcf (MobileRL), uimem (UI-Mem's guided groups; with --reward uimem)",
    "algo": "grpo, rloo, dapo, reinforce++, adagrpo (or ppo: Stable-Baselines3 MaskablePPO)",
    "level": "trajectory, or step (ADMIRE's step-level GRPO, Eq. 12-13)",
    "returns": "R(τ) a group compares: sum, spa or mean (default: the algorithm's; see agents.algos.returns)",
    "policy": "candidate (MiniLM candidate-action policy, CPU) or lm (a local transformers causal LM)",
    "lm_path": "local transformers checkpoint directory for --policy lm",
    "out": "run directory (metrics, checkpoint, plot)",
}


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "train",
        help="train a reference agent with shaped rewards (default env: GuiAndroid-v0)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--preset", choices=sorted(PRESETS), help="named settings (explicit flags win)")
    p.add_argument("--resume", action="store_true", help="continue the run in --out from its checkpoint")
    p.add_argument("--env", "--env-id", dest="env_id", metavar="ID", help=ENV_HELP)
    p.add_argument("--env-kwargs", nargs="+", type=parse_env_kwarg, metavar="KEY=VALUE", help=ENV_KWARGS_HELP)
    add_config_flags(p, TrainConfig, _HELP, skip=("extra", "env_id", "env_kwargs"))
    p.set_defaults(func=cmd_train)

    p = sub.add_parser("plot", help="draw learning curves of training runs")
    p.add_argument("runs", nargs="+", help="run directories (each with metrics.jsonl)")
    p.add_argument("-o", "--out", default="curves.png", help="image file (default: curves.png)")
    p.add_argument("--labels", help="comma-separated legend labels, one per run")
    p.set_defaults(func=cmd_plot)


def config_from_args(args: argparse.Namespace) -> TrainConfig:
    values: dict[str, Any] = dict(PRESETS[args.preset]) if args.preset else {}
    values.update(config_values(args, TrainConfig, skip=("env_kwargs",)))
    # a preset's step level goes with its algorithm; another --algo without one brings its own level
    explicit_algo = getattr(args, "algo", None) and getattr(args, "level", None) is None
    own = ALGORITHMS.get(str(values.get("algo", "grpo")).lower(), ALGORITHMS["grpo"])
    if explicit_algo and values.get("level") == "step" and not own.has_step_level:
        values.pop("level")
    kwargs = {**values.get("env_kwargs", {}), **env_kwargs(getattr(args, "env_kwargs", None))}
    values["env_kwargs"] = lm_screen(values, kwargs)
    return TrainConfig(**values)


def cmd_train(args: argparse.Namespace) -> int:
    cfg = config_from_args(args)
    if cfg.algo == "ppo":
        return _train_sb3(cfg)
    trainer = Trainer(cfg, resume=args.resume)
    print(f"run directory: {trainer.out}  (resume with: gui-gym train --out {trainer.out} --resume ...)")
    try:
        summary = trainer.run()
    except KeyboardInterrupt:
        print(f"\ninterrupted after iteration {trainer.iteration}; resume with --resume --out {trainer.out}")
        return 130
    baseline = random_baseline(cfg)
    _print_summary(summary, baseline, cfg.eval_greedy)
    from agents.plot import plot_runs

    png = Path(cfg.out) / "curves.png"
    plot_runs([cfg.out], png)
    (Path(cfg.out) / "summary.json").write_text(json.dumps({**summary, "random_policy": baseline}, indent=2))
    print(f"learning curves: {png}")
    return 0


def random_baseline(cfg: TrainConfig) -> dict[str, float]:
    """:class:`~agents.policies.RandomPolicy` on the same held-out instances as the evaluation."""
    import gymnasium as gym

    import gui_gym  # noqa: F401
    from agents.policies import RandomPolicy

    tasks = task_ids(cfg.eval_tasks or cfg.tasks, cfg.env_id, cfg.env_kwargs)
    env = gym.make(cfg.env_id, task=tasks, **cfg.make_kwargs)
    policy = RandomPolicy(cfg.env_id)
    wins = total = 0
    for task in tasks:
        for seed in range(cfg.eval_episodes):
            policy.reset(seed)  # the same stream as a fresh RandomPolicy(seed=seed)
            obs, info = env.reset(seed=seed, options={TASK: task})
            while True:
                obs, _, terminated, truncated, info = env.step(policy.act(obs, info))
                if terminated or truncated:
                    break
            wins += bool(info.get(C.SUCCESS))
            total += 1
    env.close()
    return {"episodes": total, "success_rate": wins / max(1, total)}


def _print_summary(summary: dict[str, Any], baseline: dict[str, float], greedy: bool = True) -> None:
    first, last = summary.get("first_eval"), summary.get("last_eval")
    how = "greedy" if greedy else "sampled"
    print(f"\ntrained {summary['iterations']} iterations; held-out success ({how}), same seeds for all:")
    print(f"  random policy         {baseline['success_rate']:6.1%}  ({baseline['episodes']} episodes)")
    if first is not None:
        print(f"  policy before training {first['eval_success_rate']:6.1%}")
    if last is not None and last is not first:
        print(f"  policy after training  {last['eval_success_rate']:6.1%}")


def _train_sb3(cfg: TrainConfig) -> int:
    from agents.sb3 import make_sb3_env, train_sb3

    steps = cfg.iterations * cfg.tasks_per_iter * cfg.group_size * (cfg.max_steps or 20)
    env = make_sb3_env(
        task=task_ids(cfg.tasks, cfg.env_id, cfg.env_kwargs), reward=cfg.reward, encoder=cfg.encoder, seed=cfg.seed,
        env_id=cfg.env_id, **cfg.env_kwargs,
    )  # fmt: skip
    model = train_sb3("maskable_ppo", env, total_timesteps=steps, seed=cfg.seed)
    Path(cfg.out).mkdir(parents=True, exist_ok=True)
    model.save(str(Path(cfg.out) / "maskable_ppo"))
    print(f"trained MaskablePPO for {steps} steps; saved {Path(cfg.out) / 'maskable_ppo.zip'}")
    return 0


def cmd_plot(args: argparse.Namespace) -> int:
    from agents.plot import plot_runs

    labels = [s.strip() for s in args.labels.split(",")] if args.labels else None
    plot_runs(args.runs, args.out, labels)
    print(f"wrote {args.out}")
    return 0
