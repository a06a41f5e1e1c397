"""``gui-gym export-experience`` and ``gui-gym ac-real``: expert trajectories as data and as a test.

::

    gui-gym export-experience OUT.jsonl [--tasks all] [--format gui-gym|ui-s1] [--screens DIR]
    gui-gym ac-real [--policy oracle|random|noisy|RUN_DIR] [--data embedded|PATH] [--tasks test]
                    [--rule paper|released] [--json]

``export-experience`` writes the embedded set (the simulator's oracle trajectories) in gui-gym's
JSON Lines or UI-S1's; with ``--screens DIR`` every step also gets its screenshot (a PNG in DIR,
1080×2400) and its UI dump, ready for supervised fine-tuning. DIR must lie inside OUT's folder
(the readers open no screenshot outside a data file's folder): the file names the PNGs relative to
that folder, so the two move together. ``ac-real`` is EMPO's
AndroidControl-Real evaluation (:mod:`gui_gym.experience.acreal`): each task played greedily on
the expert's screens until the first mismatch; it prints PG, TSR and Score.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from agents.cli.common import env_kwargs, parse_env_kwarg

__all__ = ["add_parser", "cmd_ac_real", "cmd_export"]


def cmd_export(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from PIL import Image

    from gui_gym.experience.embedded import embedded_experiences
    from gui_gym.experience.record import dumps
    from gui_gym.experience.screens import SimScreens
    from gui_gym.experience.tasks import select_experiences

    chosen = select_experiences(embedded_experiences(), args.tasks)
    if args.screens:
        # the readers keep a data file's screenshots inside its folder: the PNGs go there, and
        # the file names them relative to it, so the file and its screens move together
        shots, folder = Path(args.screens), Path(args.out).resolve().parent
        under = _under(shots.resolve(), folder)
        if under is None:
            print(
                f"error: --screens {args.screens} is outside the folder of {args.out} ({folder}); a data "
                "file's screenshots must lie inside its folder, so put the screens under the output's folder "
                f"(e.g. --screens {folder / 'screens'})",
                file=sys.stderr,
            )
            return 2
        shots.mkdir(parents=True, exist_ok=True)
        source = SimScreens("xml", pixels=True, screen_size=(1080, 2400), cache_size=1)
        rendered = []
        for e in chosen:
            screens = source.screens(e)
            steps = []
            for t, (step, screen) in enumerate(zip(e.steps, screens, strict=True)):
                name = f"{e.id.replace('/', '_')}_{t}.png"
                Image.fromarray(screen.pixels).save(shots / name)
                steps.append(replace(step, screenshot=(under / name).as_posix(), ui=screen.ui))
            rendered.append(e.with_steps(steps))
        chosen = rendered
    if args.format == "ui-s1":
        from gui_gym.experience.readers.uis1 import write_uis1

        write_uis1(chosen, args.out)
    else:
        from gui_gym.core.io import atomic_write

        text = dumps(chosen)
        atomic_write(args.out, lambda f: f.write(text))
    print(f"{len(chosen)} experiences, {sum(len(e) for e in chosen)} steps -> {args.out}")
    return 0


def _under(path: Path, folder: Path) -> Path | None:
    """``path`` relative to ``folder`` (both resolved), ``None`` when it lies outside it."""
    try:
        return path.relative_to(folder)
    except ValueError:
        return None


def cmd_ac_real(args: argparse.Namespace) -> int:
    import gymnasium as gym

    from agents.policies.baselines import NoisyOraclePolicy, OraclePolicy, RandomPolicy
    from gui_gym.experience.acreal import evaluate

    kwargs = env_kwargs(args.env_kwargs)
    kwargs.setdefault("rule", args.rule)
    tasks = args.tasks or ("test" if args.data == "embedded" else "all")
    try:
        probe = gym.make("GuiExperience-v0", task=tasks, data=args.data, data_format=args.format, **kwargs)
    except (ValueError, FileNotFoundError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if args.policy == "oracle":
        policy = OraclePolicy(probe)
    elif args.policy == "random":
        policy = RandomPolicy("GuiExperience-v0", seed=args.seed)
    elif args.policy == "noisy":
        policy = NoisyOraclePolicy(probe, epsilon=args.epsilon, seed=args.seed)
    elif Path(args.policy).exists():
        from agents.train import policy_from_run

        policy, _ = policy_from_run(args.policy)
        policy.greedy = True  # AC-Real plays greedily (App. F)
    else:
        print(f"error: --policy is oracle, random, noisy or a run directory; {args.policy!r} is none", file=sys.stderr)
        return 2

    def act(obs, info, env):  # the oracle asks the env that is playing
        if isinstance(policy, (OraclePolicy, NoisyOraclePolicy)):
            oracle = policy if isinstance(policy, OraclePolicy) else policy.oracle
            oracle.env = env
        return policy.act(obs, info)

    rule = kwargs.pop("rule")
    result = evaluate(act, probe.unwrapped.experiences, tasks, reset=policy.reset, rule=rule, **kwargs)
    if args.json:
        print(json.dumps(result.as_dict()))
    else:
        n = len(result.progress)
        print(f"AC-Real over {n} tasks: PG {result.pg:.3f}  TSR {result.tsr:.3f}  Score {result.score:.3f}")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("export-experience", help="write the embedded expert trajectories as a data set")
    p.add_argument("out", help="the JSON Lines file to write")
    p.add_argument("--tasks", default="all", help="experiences: ids, tasks, tiers, train/test (default: all)")
    p.add_argument("--format", choices=("gui-gym", "ui-s1"), default="gui-gym")
    p.add_argument(
        "--screens",
        metavar="DIR",
        help="also write each step's screenshot (PNG) here and, in the gui-gym format, its UI dump "
        "(UI-S1's format has no field for it); a folder inside the output file's folder, which the "
        "file names the PNGs relative to",
    )
    p.set_defaults(func=cmd_export)
    p = sub.add_parser("ac-real", help="EMPO's AndroidControl-Real evaluation: PG, TSR and Score")
    p.add_argument("--policy", default="oracle", help="oracle, random, noisy, or a training run directory")
    p.add_argument("--data", default="embedded", help="embedded, or a data set path (UI-S1, AndroidControl...)")
    p.add_argument("--format", default="auto", help="the data set's reader (default: from the path)")
    p.add_argument("--tasks", help="experiences to evaluate (default: the embedded set's test split, or all of --data)")
    p.add_argument(
        "--rule",
        choices=("paper", "released"),
        default="paper",
        help="the step match: App. C as the env applies it, or the authors' released evaluator",
    )
    p.add_argument("--env-kwargs", nargs="+", type=parse_env_kwarg, metavar="KEY=VALUE", help="more env arguments")
    p.add_argument("--epsilon", type=float, default=0.2, help="the noisy oracle's random-action rate")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print the metrics as JSON")
    p.set_defaults(func=cmd_ac_real)
