"""Re-record ``fixtures/androidworld/instances.json.gz``: AndroidWorld's own draws for seeds 0-29.

Run with a Python where AndroidWorld imports (its requirements installed, its source on the path)::

    AW_SOURCE=/path/to/android_world-checkout python tests/android/androidworld_record.py

For every task of ``facts.json`` and every seed it records what AndroidWorld's code gives after
``random.seed(seed)``: ``generate_random_params()`` (plus ``seed``), the goal, and for the
information-retrieval tasks the parameters and expected answers after ``initialize_task``'s draws
(``initialize_proto``, ``_maybe_replace_date``; for OpenTracks' tasks, the distances rounded to the
miles the app shows, as its ``setup_task_state`` rounds them). Dataclass rows are written as dicts marked
``__dataclass__``, dates and times as ``{"__datetime__": iso}``.
"""

from __future__ import annotations

import dataclasses
import datetime
import gzip
import json
import os
import random
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent / "fixtures" / "androidworld"
SEEDS = range(30)


def plain(v: Any) -> Any:
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        return {"__dataclass__": type(v).__name__, **{k: plain(x) for k, x in dataclasses.asdict(v).items()}}
    if isinstance(v, dict):
        return {str(k): plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, (datetime.datetime, datetime.date, datetime.time)):
        return {"__" + type(v).__name__ + "__": v.isoformat()}
    if isinstance(v, (str, int, float, bool)) or v is None:
        return v
    if hasattr(v, "mode") and hasattr(v, "size") and hasattr(v, "getpixel"):  # a PIL image: no address
        return {"__image__": f"{v.mode} {v.size[0]}x{v.size[1]}"}
    return {"__repr__": repr(v)}


def main() -> None:
    sys.path.insert(0, os.environ.get("AW_SOURCE", "."))
    from android_world import registry
    from android_world.task_evals.information_retrieval import activity_app_utils, information_retrieval, proto_utils

    facts = json.loads((HERE / "facts.json").read_text())
    questions = {t["id"] for t in facts["tasks"] if "information_retrieval" in t["module"]}
    reg = registry.TaskRegistry().get_registry(registry.TaskRegistry.ANDROID_WORLD_FAMILY)
    out: dict[str, Any] = {"commit": facts["commit"], "tasks": {}}
    for task in facts["tasks"]:
        name, cls, per = task["id"], reg.get(task["id"]), {}
        for seed in SEEDS:
            random.seed(seed)
            params = cls.generate_random_params()
            params["seed"] = seed
            instance = cls(params)
            entry: dict[str, Any] = {"params": plain(params)}
            if name in questions:
                random.seed(seed)
                proto_utils.initialize_proto(instance.task, instance.params)
                information_retrieval._maybe_replace_date(instance.params)
                if instance.is_sports_task():  # its set-up rounds each distance to the miles shown
                    for activity in instance.task.relevant_state.state.sports_activity_app.sports_activities:
                        activity_app_utils._create_activity_from_proto(activity)
                entry["expected"] = [str(e) for e in proto_utils.get_expected_answer(instance.task)]
                entry["params_after_setup"] = plain(instance.params)
            entry["goal"] = instance.goal
            per[str(seed)] = entry
        out["tasks"][name] = per
    with gzip.open(HERE / "instances.json.gz", "wt") as f:
        json.dump(out, f, sort_keys=True, separators=(",", ":"))
    print(len(out["tasks"]), "tasks recorded")


if __name__ == "__main__":
    main()
