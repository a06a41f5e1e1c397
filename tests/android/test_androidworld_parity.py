"""The AndroidWorld suite against AndroidWorld's own files.

``fixtures/androidworld/facts.json`` holds what AndroidWorld's task classes and
``task_metadata.json`` say of each task (id, template, label, optimal steps, tags);
``instances.json.gz`` what AndroidWorld's own code gave for seeds 0-29 of every task: the
parameters of ``generate_random_params`` after ``random.seed(seed)``, the goal text, and for the
information-retrieval tasks the parameters and expected answers after ``initialize_task``'s draws.
Both were recorded from AndroidWorld at the commit they name (re-record with
``tests/android/androidworld_record.py`` in an environment where AndroidWorld imports).

Seeds 20-29 are never looked at while writing a task's draws: they check that the draws follow
AndroidWorld's code, not the recorded examples.
"""

from __future__ import annotations

import datetime as dt
import gzip
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gui_gym.android.backends.sim import SimBackend
from gui_gym.android.sim.tasks import ALL_TASKS as TASKS
from gui_gym.android.sim.tasks.androidworld import AW_COMMIT, SUITE

HERE = Path(__file__).parent / "fixtures" / "androidworld"
FACTS = json.loads((HERE / "facts.json").read_text())
with gzip.open(HERE / "instances.json.gz", "rt") as _f:
    INSTANCES = json.load(_f)
BY_ID = {t["id"]: t for t in FACTS["tasks"]}
SEEDS = range(30)

#: AndroidWorld's tasks not yet in the suite (part 2: apps the phone is gaining).
NOT_YET: set[str] = set()
#: Parameters AndroidWorld takes from the host's wall clock, not from the seed: their shape is checked.
WALL_CLOCK = {"MarkorCreateFolder": {"folder_name": r"folder_\d{8}_\d{6}"}}

PRESENT = sorted(t.id for t in TASKS.values() if t.suite == SUITE)


def plain(value: Any) -> Any:
    """A recorded value as the suite keeps it: a dataclass row as a dict of its fields, a
    datetime/date/time as its ISO text."""
    if isinstance(value, dict):
        if len(value) == 1:
            ((key, inner),) = value.items()
            if key in ("__datetime__", "__date__", "__time__"):
                return inner
            if key == "__image__":  # a PIL image AndroidWorld draws: its mode and size, as the suite writes it
                mode, size = inner.split()
                return f"<PIL.Image.Image image mode={mode} size={size}>"
        return {k: plain(v) for k, v in value.items() if k != "__dataclass__"}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def test_fixtures_name_one_commit() -> None:
    assert FACTS["commit"] == INSTANCES["commit"] == AW_COMMIT


def test_the_suite_is_androidworlds_list_as_far_as_the_phone_has_its_apps() -> None:
    assert set(PRESENT) <= set(BY_ID), set(PRESENT) - set(BY_ID)
    missing = set(BY_ID) - set(PRESENT)
    assert missing == NOT_YET, {"missing": sorted(missing - NOT_YET), "now present": sorted(NOT_YET - missing)}


@pytest.mark.parametrize("task_id", PRESENT)
def test_spec_is_androidworlds(task_id: str) -> None:
    fact, spec = BY_ID[task_id], TASKS[task_id].spec()
    assert (spec.id, spec.suite, spec.template) == (task_id, SUITE, fact["template"])
    # task_metadata.json writes optimal_steps as text ("3"); the spec holds the number.
    assert (spec.difficulty, spec.optimal_steps, spec.tags) == (
        fact["difficulty"],
        int(fact["optimal_steps"]),
        tuple(fact["tags"]),
    )


def _start(task_id: str, seed: int) -> Any:
    backend = SimBackend()
    return backend.start(task_id, np.random.default_rng(seed), {"seed": seed})


@pytest.mark.parametrize("task_id", PRESENT)
def test_instances_are_androidworlds(task_id: str) -> None:
    """Every seed: AndroidWorld's goal byte for byte and its parameters (after its set-up's draws
    for the information-retrieval tasks)."""
    wall = WALL_CLOCK.get(task_id, {})
    for seed in SEEDS:
        rec = INSTANCES["tasks"][task_id][str(seed)]
        episode = _start(task_id, seed)
        want = plain(rec.get("params_after_setup", rec["params"]))
        got = {k: episode.params.get(k, "<missing>") for k in want}
        goal = rec["goal"]
        for key, pattern in wall.items():
            assert re.fullmatch(pattern, str(got[key])), (seed, key, got[key])
            goal = goal.replace(str(want[key]), str(got[key]))
            got[key] = want[key]
        assert got == want, f"seed {seed}"
        assert episode.instruction == goal, f"seed {seed}"


def _as_answer(expected: str) -> str:
    """An expected answer as an agent writes it: a date and time (recorded as ``str(datetime)``)
    in the form AndroidWorld's ``check_agent_answer`` parses, ``%B %d %Y %H:%M``."""
    try:
        return dt.datetime.fromisoformat(expected).strftime("%B %d %Y %H:%M")
    except ValueError:
        return expected


QUESTIONS = [t for t in PRESENT if "expected" in INSTANCES["tasks"][t]["0"]]


@pytest.mark.parametrize("task_id", QUESTIONS)
def test_information_retrieval_answers_are_androidworlds(task_id: str) -> None:
    """AndroidWorld's expected answer, given as the agent's answer, is judged a success; an
    empty one is not."""
    task = TASKS[task_id]
    for seed in SEEDS:
        rec = INSTANCES["tasks"][task_id][str(seed)]
        backend = SimBackend()
        episode = backend.start(task_id, np.random.default_rng(seed), {"seed": seed})
        answer = ", ".join(_as_answer(e) for e in rec["expected"])
        assert task.check(backend.device, episode.params, answer, "complete"), f"seed {seed}: {answer!r}"
        assert not task.check(backend.device, episode.params, "", "complete"), f"seed {seed}"


def test_fuzzy_match_is_difflibs_ratio_test() -> None:
    """The kept, bounded ``fuzzy_match`` answers as ``SequenceMatcher(...).ratio() >= 0.9`` does,
    near the threshold (small edits) and far from it, for short texts and ones past difflib's
    200-character autojunk length."""
    import difflib
    import random

    from gui_gym.android.sim.tasks.androidworld import fuzzy_match

    r = random.Random(0)
    alphabet = "abcde FGHIJ"
    matched = 0
    for _ in range(20_000):
        a = "".join(r.choice(alphabet) for _ in range(r.randint(0, 30)))
        if r.random() < 0.5:  # a few edits away
            chars = list(a)
            for _ in range(r.randint(0, 3)):
                if chars and r.random() < 0.5:
                    del chars[r.randrange(len(chars))]
                else:
                    chars.insert(r.randint(0, len(chars)), r.choice(alphabet))
            b = "".join(chars)
        else:
            b = "".join(r.choice(alphabet) for _ in range(r.randint(0, 30)))
        if r.random() < 0.1:
            a, b = a * 10, b * 10
        expected = difflib.SequenceMatcher(None, a.lower(), b.lower()).ratio() >= 0.9
        assert fuzzy_match(a, b) is expected, (a, b)
        matched += expected
    assert 2_000 < matched < 18_000  # both answers were exercised
    assert fuzzy_match("Hello", None) is False and fuzzy_match("", "") is True
