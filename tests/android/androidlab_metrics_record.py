"""Record what AndroidLab's own metric functions answer on fixed cases
(``tests/android/fixtures/androidlab/metrics.json``), for ``test_androidlab.py`` to compare with.

Usage::

    python tests/android/androidlab_metrics_record.py --git PATH   # a bare clone of THUDM/Android-Lab
    python tests/android/androidlab_metrics_record.py --lab PATH   # or a checkout

``calculate_partial_acc`` and ``compute_image_similarity`` are taken from AndroidLab's
``evaluation/task.py`` as they are (their source, unmodified, run with numpy and Pillow; the rest
of the module needs the emulator's packages and is not imported); the screenshots are written as
PNG files, as AndroidLab reads them from disk. The per-task ROR and RRR are AndroidLab's
``add_metrics`` formulas on those answers.
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import tempfile
from pathlib import Path

import numpy as np
from PIL import Image

OUT = Path(__file__).resolve().parent / "fixtures" / "androidlab" / "metrics.json"


def lab_functions(source: str) -> dict:
    """AndroidLab's two metric functions, defined from their own source."""
    tree = ast.parse(source)
    keep = [
        n
        for n in tree.body
        if isinstance(n, ast.FunctionDef) and n.name in ("calculate_partial_acc", "compute_image_similarity")
    ]
    assert len(keep) == 2, "AndroidLab's evaluation/task.py no longer defines both functions"
    space: dict = {"np": np, "Image": Image}
    # AndroidLab's own code, as it is (a referee the developer runs, never agent text)
    exec(compile(ast.Module(body=keep, type_ignores=[]), "evaluation/task.py", "exec"), space)
    return space


def screens(rng: np.random.Generator) -> dict[str, list[np.ndarray]]:
    """Screenshot sequences covering the rule's cases (the test builds them again from the same seed)."""
    white = np.full((6, 4, 3), 255, np.uint8)
    a = white.copy()
    a[1:3, 1:3] = (20, 40, 60)
    b = a.copy()
    b[4, 0] = (0, 0, 0)  # one pixel differs: 3 of 3·(4+1) inked values
    noisy = rng.integers(0, 256, (6, 4, 3), dtype=np.uint8)
    big = np.full((20, 20, 3), 200, np.uint8)
    near = big.copy()
    near[0, 0, 0] = 201  # 1 of 1,200 values differs: 99.92 % alike, above 0.999
    far = big.copy()
    far[:2, :2] = 0  # 12 of 1,200 differ: 99 %, below
    cases = {
        "one": [a],
        "two_same": [a, a],
        "three_same": [a, a, a],
        "unchanged_then_changed": [a, a, b, b, noisy],
        "all_white": [white, white, white, white],
        "noise": [noisy, a, noisy, noisy],
        "near_and_far": [big, near, far, far, big],
        "shapes_differ": [a, big, big],
    }
    return cases


SUBGOALS = [
    {"complete": True, "1": True, "2": False},
    {"complete": False},
    {"complete": False, "judge_page": True, "1": True, "2": False, "3": False},
    {"complete": False, "1": "512 MB"},
    {"complete": False, "1": 0, "2": None, "3": [], "4": 1},
]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--lab", type=Path)
    where.add_argument("--git", type=Path)
    args = p.parse_args()
    if args.lab is not None:
        source = (args.lab / "evaluation/task.py").read_text(encoding="utf-8")
    else:
        source = subprocess.run(["git", f"--git-dir={args.git}", "show", "HEAD:evaluation/task.py"],
                                check=True, capture_output=True, text=True).stdout  # fmt: skip
    lab = lab_functions(source)
    cases = screens(np.random.default_rng(0))
    out: dict = {"partial_acc": [], "screens": {}}
    for flags in SUBGOALS:
        out["partial_acc"].append({"result": flags, "partial_acc": lab["calculate_partial_acc"](flags)})
    with tempfile.TemporaryDirectory() as tmp:
        for name, seq in cases.items():
            paths = []
            for i, arr in enumerate(seq):
                path = Path(tmp) / f"{name}_{i}.png"
                Image.fromarray(arr).save(path)
                paths.append(str(path))
            simi, unchanged = lab["compute_image_similarity"](paths)
            steps = len(seq)
            ror = 1 if steps - 1 == 0 else 1 - unchanged / (steps - 1)  # add_metrics
            out["screens"][name] = {
                "similarities": [None if s != s else s for s in simi], "ineffective": unchanged,
                "ror": ror,
            }  # fmt: skip
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(out, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
