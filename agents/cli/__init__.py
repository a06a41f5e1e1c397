"""The ``gui-gym`` command line.

::

    gui-gym tasks [--env ID] [--difficulty hard] [--app contacts]
    gui-gym rollout [--env ID] [--env-kwargs K=V ...] --policy oracle,random --episodes 40 [--task ID|TIER]
                    [--save-screens DIR] [--out T.jsonl]
    gui-gym play [--env ID] [--task ID] [--seed 0] [--save-screens DIR]
    gui-gym progrm synth|label|train|eval ...   (see agents/cli/progrm.py)
    gui-gym train [--env ID] [--env-kwargs K=V ...] [--preset quick] [--algo grpo|rloo|dapo|reinforce++|adagrpo|ppo]
                  [--reward milestone+spa] ...
    gui-gym plot RUN_DIR... [-o curves.png]       (see agents/cli/train.py)
    gui-gym sft --tasks easy,medium --out runs/sft  (behaviour cloning; then gui-gym train --init runs/sft)
    gui-gym study [--env ID] [--mode quick|full] [--out DIR] [--settings a,b] [--seeds 0,1,2] [--report-only]
    gui-gym calibrate-matcher [--pairs FILE.jsonl] [--mode all|guarded|cosine] [--deltas 0.30:0.95:0.05]
                              [--split all|calib|heldout] [--plot FILE.png]
    gui-gym webshop serve|generate ...            (see agents/cli/webshop.py)
    gui-gym export-experience OUT.jsonl [--format gui-gym|ui-s1] [--screens DIR]
    gui-gym ac-real [--policy oracle|random|noisy|RUN_DIR] [--data embedded|PATH] [--tasks test]
    gui-gym serve-adb [--port 5037] [--task ID --seed N]   (see agents/cli/device.py)

``--env`` (default ``GuiAndroid-v0``) takes any registered env id, or gymnasium's
``module:EnvId`` form: the module is imported first, so an env your own module registers works.
Every command takes ``--threads N`` (torch's CPU threads; see :mod:`gui_gym.core.threads`).
One module per command group: :mod:`agents.cli.env` (tasks, rollout, play),
:mod:`agents.cli.calibrate`, :mod:`agents.cli.train` (train, plot), :mod:`agents.cli.sft`, :mod:`agents.cli.progrm`,
:mod:`agents.cli.study`, :mod:`agents.cli.webshop`, :mod:`agents.cli.experience`, :mod:`agents.cli.device`.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

import gui_gym  # noqa: F401  (registers the env ids)
from agents.cli import calibrate, device, env, experience, progrm, sft, study, train, webshop
from agents.cli.common import add_threads_argument
from gui_gym.core.threads import configure_threads

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gui-gym", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    env.add_parser(sub)
    calibrate.add_parser(sub)
    progrm.add_parser(sub)
    train.add_parser(sub)
    sft.add_parser(sub)
    study.add_parser(sub)
    webshop.add_parser(sub)
    experience.add_parser(sub)
    device.add_parser(sub)
    for command in sub.choices.values():
        add_threads_argument(command)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if not logging.getLogger().handlers:  # library warnings (corrupt lines, missing recipes) reach the user
        logging.basicConfig(level=logging.WARNING, format="warning: %(message)s")
    try:
        configure_threads(getattr(args, "threads", None))  # before any torch work of the command
        return args.func(args)
    except ValueError as e:  # unknown task ids, damaged files and the like: a message, not a traceback
        print(f"error: {e}", file=sys.stderr)
        return 2
    except OSError as e:  # a missing, unreadable or unwritable file or directory names itself
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
