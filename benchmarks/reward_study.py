"""The reward-shaping study: ``python benchmarks/reward_study.py [--mode quick|full|full-alfworld|full-webshop] ...``.

The same as ``gui-gym study`` (:mod:`agents.study`): warm-starts the candidate policy, trains it
under each reward setting (outcome, ORM, static and adaptive milestones, ProgRM Env and LCS
progress models, SPA, milestones + SPA, ADMIRE's ablations, EMPO, UI-Mem) with a common optimiser
and with each paper's own, with several paired seeds, evaluates on held-out seeds and held-out
tasks, and writes ``benchmarks/results/<mode>-study/reward_study.md`` with tables, learning
curves and the raw per-run metrics. The quick mode takes about 15 minutes on 2 CPU cores;
rerunning a command resumes it.
"""

from __future__ import annotations

import sys

from agents.cli import main

if __name__ == "__main__":
    sys.exit(main(["study", *sys.argv[1:]]))
