"""Instructions executed per ``GuiAndroid-v0`` step, counted by valgrind's callgrind: a figure a
busy machine does not move, to set beside the timings of ``env_throughput.py``.

Usage::

    python benchmarks/env_instructions.py                       # this checkout
    python benchmarks/env_instructions.py --code ../old-checkout # another checkout, same workload

Each configuration runs twice under ``valgrind --tool=callgrind``: once up to the end of the
warm-up (imports, env, one reset per task), once with ``--steps`` more steps of
``env_throughput.py``'s seeded action mix; the difference divided by the steps is the figure.
Resets inside the measured steps are counted, as in ``env_throughput.py``. Needs ``valgrind``
(``apt-get install valgrind``).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
CONFIGS = {"text": ("text", (540, 1200), 300), "pixels": ("pixels", (540, 1200), 40)}

_WORKLOAD = r"""
import sys
sys.path.insert(0, {bench!r})
import env_throughput as B
import gui_gym
assert gui_gym.__file__.startswith({code!r}), gui_gym.__file__
mode, size, steps = {mode!r}, {size!r}, {steps}
env = B.make_env(mode, size)
for tid in B.POOL:
    env.reset(options={{"task": tid}})
_, info = env.reset(seed=0)
driver = B.Driver(0)
for _ in range(steps):
    _, _, term, trunc, info = env.step(driver.act(info["ui_elements"]))
    if term or trunc:
        _, info = env.reset()
"""


def instructions(code: Path, mode: str, size: tuple[int, int], steps: int) -> int:
    """Instructions callgrind counts for the workload with ``steps`` steps, run from ``code``."""
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp, "workload.py")
        # the measured checkout's own driver (it puts its checkout first on sys.path)
        bench = code / "benchmarks"
        script.write_text(_WORKLOAD.format(bench=str(bench), code=str(code), mode=mode, size=size, steps=steps))
        out = Path(tmp, "callgrind.out")
        env = dict(os.environ, PYTHONPATH=str(code), OMP_NUM_THREADS="1", PYTHONHASHSEED="0")
        run = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, str(script)],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        if run.returncode != 0:
            raise RuntimeError(f"the workload failed under valgrind:\n{run.stderr[-2000:]}")
        if run.stdout.strip():
            print(run.stdout.strip())
        found = re.search(r"^summary:\s+(\d+)", out.read_text(), re.MULTILINE)
        if found is None:
            raise RuntimeError(f"no summary line in {out}")
        return int(found.group(1))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--code", type=Path, default=HERE.parent, help="the checkout to measure (default: this one)")
    ap.add_argument("--configs", default=",".join(CONFIGS), help=f"comma list of {sorted(CONFIGS)}")
    args = ap.parse_args()
    if shutil.which("valgrind") is None:
        print("valgrind is not installed: apt-get install valgrind", file=sys.stderr)
        return 2
    code = args.code.resolve()
    print(f"code: {code}")
    for name in args.configs.split(","):
        mode, size, steps = CONFIGS[name]
        base = instructions(code, mode, size, 0)
        total = instructions(code, mode, size, steps)
        print(f"{name} {size[0]}x{size[1]}: {(total - base) / steps / 1e6:.3f} M instructions per step ({steps} steps)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
