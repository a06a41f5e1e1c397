"""Re-write ``gui_gym/android/sim/tasks/androidworld_questions.json``: AndroidWorld's definitions of
the information-retrieval tasks the phone has, read from its ``tasks.textproto``.

Run with a Python where AndroidWorld's protos import (protobuf installed, its source on the path)::

    AW_SOURCE=/path/to/android_world-checkout python tests/android/androidworld_questions_record.py

For each task it keeps what :mod:`gui_gym.android.sim.tasks.information` replays: the prompt, the
parameters with their possible values (in the file's order, duplicates kept: they weight the
draw), the relevant state's rows with their set fields in the proto's field-number order (the order
``initialize_proto`` formats them in, which fixes the order of its ``_without_replacement`` draws),
the exclusion conditions, and the expectations. The run-time code needs no protobuf.

It also writes ``fixtures/androidworld/question_states.json``: for seeds 0-19 of each task, a
digest of the rows AndroidWorld's own set-up inserts (``calendar_utils.setup_task_state``,
``task_app_utils.setup_task_state``, run after ``initialize_proto`` and ``_maybe_replace_date``
with the database writes captured instead of pushed), ``remoteId`` and the keys left out (they
are random or numbered by the database): the start states the simulator must reproduce.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import random
import sys
from pathlib import Path
from typing import Any

STATES = Path(__file__).parent / "fixtures" / "androidworld" / "question_states.json"
STATE_SEEDS = range(20)
#: what a digest leaves out of a row: random (``remoteId``, OpenTracks' ``uuid``) or numbered by the database
UNDIGESTED = ("remoteId", "id", "_id", "uuid")
OUT = Path(__file__).resolve().parents[2] / "gui_gym" / "android" / "sim" / "tasks" / "androidworld_questions.json"
TEXTPROTO = "android_world/task_evals/information_retrieval/proto/tasks.textproto"
#: the information-retrieval tasks the phone has (Simple Calendar Pro, Tasks, Joplin, OpenTracks)
TASKS = (
    "NotesIsTodo",
    "NotesMeetingAttendeeCount",
    "NotesRecipeIngredientCount",
    "NotesTodoItemCount",
    "SimpleCalendarAnyEventsOnDate",
    "SimpleCalendarEventOnDateAtTime",
    "SimpleCalendarEventsInNextWeek",
    "SimpleCalendarEventsInTimeRange",
    "SimpleCalendarEventsOnDate",
    "SimpleCalendarFirstEventAfterStartTime",
    "SimpleCalendarLocationOfEvent",
    "SimpleCalendarNextEvent",
    "SimpleCalendarNextMeetingWithPerson",
    "TasksCompletedTasksForDate",
    "TasksDueNextWeek",
    "TasksDueOnDate",
    "TasksHighPriorityTasks",
    "TasksHighPriorityTasksDueOnDate",
    "TasksIncompleteTasksOnDate",
    "SportsTrackerActivitiesCountForWeek",
    "SportsTrackerActivitiesOnDate",
    "SportsTrackerActivityDuration",
    "SportsTrackerLongestDistanceActivity",
    "SportsTrackerTotalDistanceForCategoryOverInterval",
    "SportsTrackerTotalDurationForCategoryThisWeek",
)
#: tasks whose start state is not digested: Joplin's set-up reads folder ids back from the phone
#: between its writes (``joplin_app_utils``), so it cannot run with the writes captured
UNRECORDED_STATES = frozenset(t for t in TASKS if t.startswith("Notes"))


def main() -> None:
    source = os.environ.get("AW_SOURCE", ".")
    sys.path.insert(0, source)
    from android_world.task_evals.information_retrieval.proto import task_pb2
    from google.protobuf import text_format

    proto = task_pb2.Tasks()
    text_format.Merge((Path(source) / TEXTPROTO).read_text(), proto)
    by_name = {t.name: t for t in proto.tasks}
    facts = json.loads((Path(__file__).parent / "fixtures" / "androidworld" / "facts.json").read_text())
    out: dict[str, Any] = {"commit": facts["commit"], "source": TEXTPROTO, "tasks": {}}
    for name in TASKS:
        t = by_name[name]
        ((app_field, app), *_) = t.relevant_state.state.ListFields()
        ((list_field, rows),) = [(f, v) for f, v in app.ListFields() if f.name != "app_name"]
        expectations = []
        for e in t.success_criteria.expectations:
            x: dict[str, Any] = {"match": task_pb2.Expectation.MatchType.Name(e.match_type)}
            if e.HasField("expected_value"):
                x["expected_value"] = e.expected_value
            else:
                ft = e.field_transformation
                x["operation"] = task_pb2.FieldTransformation.Operation.Name(ft.operation)
                x["field"] = ft.field_name
            if e.HasField("tolerance"):
                x["tolerance"] = e.tolerance
            expectations.append(x)
        out["tasks"][name] = {
            "prompt": t.prompt,
            "app": app_field.name,
            "app_name": getattr(app, "app_name", ""),
            "rows_field": list_field.name,
            "params": [[p.name, list(p.possible_values)] for p in t.task_params],
            "rows": [[[f.name, v] for f, v in row.ListFields()] for row in rows],
            "exclusions": [
                [c.field, task_pb2.ExclusionCondition.Operation.Name(c.operation), c.value]
                for c in t.relevant_state.exclusion_conditions
            ],
            "expectations": expectations,
        }
    OUT.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    print(len(out["tasks"]), "tasks written to", OUT)
    record_states(out["commit"])


def digest(rows: list[dict[str, Any]]) -> str:
    """The digest of a start state: its rows in insertion order, without :data:`UNDIGESTED`."""
    plain = [{k: v for k, v in r.items() if k not in UNDIGESTED} for r in rows]
    blob = json.dumps(plain, sort_keys=True, default=lambda v: v.hex() if isinstance(v, bytes) else repr(v))
    return hashlib.sha256(blob.encode()).hexdigest()


def record_states(commit: str) -> None:
    from android_world.task_evals.information_retrieval import activity_app_utils as ir_sports
    from android_world.task_evals.information_retrieval import calendar_utils as ir_calendar
    from android_world.task_evals.information_retrieval import information_retrieval as ir
    from android_world.task_evals.information_retrieval import information_retrieval_registry, proto_utils
    from android_world.task_evals.information_retrieval import task_app_utils as ir_tasks

    written: list[Any] = []
    ir_calendar.utils.clear_calendar_db = lambda env: None
    ir_calendar.utils.add_events = lambda rows, env: written.append(rows)
    ir_tasks.clear_task_db = lambda env: None
    ir_tasks.add_tasks = lambda rows, env: written.append(rows)
    ir_sports.clear_db = lambda env: None
    ir_sports._add_activities = lambda rows, env: written.append(rows)
    registry = information_retrieval_registry.InformationRetrievalRegistry().registry
    out: dict[str, Any] = {"commit": commit, "seeds": list(STATE_SEEDS), "left_out": list(UNDIGESTED), "tasks": {}}
    for name in (t for t in TASKS if t not in UNRECORDED_STATES):
        cls, per = registry[name], {}
        for seed in STATE_SEEDS:
            random.seed(seed)
            params = cls.generate_random_params()
            params["seed"] = seed
            task = cls(params)
            random.seed(seed)  # TaskEval.initialize_task
            proto_utils.initialize_proto(task.task, task.params)
            ir._maybe_replace_date(task.params)
            state = task.task.relevant_state
            written.clear()
            if task.is_calendar_task():
                ir_calendar.setup_task_state(state.state.calendar, list(state.exclusion_conditions), None)
            elif task.is_sports_task():
                ir_sports.setup_task_state(state.state.sports_activity_app, list(state.exclusion_conditions), None)
            else:
                ir_tasks.setup_task_state(state.state.tasks_app, list(state.exclusion_conditions), None)
            (rows,) = written
            per[str(seed)] = digest([dataclasses.asdict(r) for r in rows])
        out["tasks"][name] = per
    STATES.write_text(json.dumps(out, indent=1) + "\n")
    print("start states of", len(out["tasks"]), "tasks written to", STATES)


if __name__ == "__main__":
    main()
