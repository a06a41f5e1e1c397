"""Write AndroidLab's task table (``gui_gym/android/data/androidlab_tasks.jsonl``) from its sources.

Usage::

    python tests/android/androidlab_table_record.py --lab PATH   # a checkout of THUDM/Android-Lab
    python tests/android/androidlab_table_record.py --git PATH   # or a bare clone (read at HEAD)

Each task's id, category and instruction come from ``evaluation/config/<app>.yaml`` as its
evaluation loads them (``yaml.safe_load``); the app (its ``APP``) and package from the same file,
except Cantook's, whose YAML names no package (``templates/packages.py`` maps the app's name to it);
``kind`` from ``metric_type`` (``query_detect``: a query, ``operation`` or ``operations``: an
operation); ``human_steps`` (what RRR divides by) from
``evaluation/tasks/human_ground_turth/ground_truth_length.json``. Needs PyYAML.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "gui_gym" / "android" / "data" / "androidlab_tasks.jsonl"
CONFIGS = ("bluecoins", "calendar", "cantook", "clock", "contacts", "map", "pimusic", "setting", "zoom")


def reader(lab: Path | None, git: Path | None):
    if lab is not None:
        return lambda rel: (lab / rel).read_text(encoding="utf-8")
    assert git is not None
    return lambda rel: (
        subprocess.run(
            ["git", f"--git-dir={git}", "show", f"HEAD:{rel}"], check=True, capture_output=True, text=True
        ).stdout
    )


def rows(read) -> list[dict]:
    import yaml  # only this tool reads YAML: PyYAML stays out of the project's dependencies

    packages = dict(re.findall(r'"([^"]+)":\s*"([\w.]+)"', read("templates/packages.py")))
    human = json.loads(read("evaluation/tasks/human_ground_turth/ground_truth_length.json"))
    out = []
    for name in CONFIGS:
        cfg = yaml.safe_load(read(f"evaluation/config/{name}.yaml"))
        package = cfg["package"] if "." in cfg["package"] else packages[cfg["APP"]]
        for t in cfg["tasks"]:
            kind = "query" if t["metric_type"] == "query_detect" else "operation"
            assert t["metric_type"] in ("query_detect", "operation", "operations"), t
            out.append({
                "id": t["task_id"], "app": cfg["APP"], "package": package, "category": t.get("category"),
                "instruction": t["task"], "kind": kind, "human_steps": human[t["task_id"]],
            })  # fmt: skip
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--lab", type=Path, help="a checkout of THUDM/Android-Lab")
    where.add_argument("--git", type=Path, help="a bare clone of it (read at HEAD)")
    args = p.parse_args()
    table = rows(reader(args.lab, args.git))
    OUT.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in table), encoding="utf-8")
    print(f"wrote {len(table)} tasks to {OUT}")


if __name__ == "__main__":
    main()
