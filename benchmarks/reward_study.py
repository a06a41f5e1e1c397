"""The reward-shaping study: ``python benchmarks/reward_study.py [--mode quick|full] ...``.

The same as ``gui-gym study`` (:mod:`agents.study`): trains the candidate policy with GRPO under
each reward setting (outcome, ORM, static and adaptive milestones, ProgRM Env and LCS progress
models, SPA, milestones + SPA, ADMIRE's ablations) with several seeds, evaluates on held-out
seeds and held-out tasks, and writes ``benchmarks/results/reward_study.md`` with tables,
learning curves and the raw per-run metrics. The quick mode takes about 15 minutes on 2 CPU
cores; rerunning a command resumes it.
"""

from __future__ import annotations

import sys

from agents.cli import main

if __name__ == "__main__":
    sys.exit(main(["study", *sys.argv[1:]]))
