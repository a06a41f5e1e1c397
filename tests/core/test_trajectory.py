"""Trajectory records and their JSON Lines files."""

from __future__ import annotations

import json
import logging
import os

import pytest
from _util import make, oracle_episode

from gui_gym.core.trajectory import Step, Trajectory, read_jsonl, write_jsonl


def _traj(i: int = 0) -> Trajectory:
    t = Trajectory(
        task_id=f"Task{i}",
        instruction="Créer le contact « Zoë » ☕\nline two",
        seed=i,
        success=bool(i % 2),
        truncated=False,
        meta={"model": "x", "temps": [0.1, 0.2]},
    )
    t.steps.append(
        Step(
            action='do(action="Type", text="Zoë \\"q\\"")',
            observation="<hierarchy/>",
            reward=0.0,
            format_valid=True,
            action_description='Type "Zoë"',
            milestones=["Open the app"],
            progress=0.5,
            info={"reason": None, "n": 3},
        )
    )
    t.steps.append(Step(action="finish()", reward=1.0))
    return t


def test_write_read_roundtrip(tmp_path) -> None:
    path = tmp_path / "t.jsonl"
    trajs = [_traj(i) for i in range(3)] + [Trajectory(task_id="Empty", instruction="")]
    write_jsonl(path, trajs)
    back = read_jsonl(path)
    assert back == trajs
    assert len(back[0]) == 2
    assert path.read_text(encoding="utf-8").count("\n") == len(trajs)  # one trajectory per line
    write_jsonl(str(path), [])
    assert read_jsonl(str(path)) == []


def test_append_and_replace(tmp_path) -> None:
    path = tmp_path / "t.jsonl"
    write_jsonl(path, [_traj(0)])
    write_jsonl(path, [_traj(1), _traj(2)], append=True)
    assert [t.task_id for t in read_jsonl(path)] == ["Task0", "Task1", "Task2"]
    write_jsonl(path, [_traj(5)])
    assert [t.task_id for t in read_jsonl(path)] == ["Task5"]
    assert sorted(os.listdir(tmp_path)) == ["t.jsonl"]  # no temporary files left behind


def test_roundtrip_of_a_real_episode(tmp_path) -> None:
    env = make("ContactsAddContact")
    info0, steps = oracle_episode(env, 0)
    t = Trajectory(task_id=info0["task_id"], instruction=info0["instruction"], seed=0)
    for a, obs, r, _term, _trunc, info in steps:
        t.steps.append(Step.from_info(a, info, observation=obs["ui"], reward=r))
    t.success = steps[-1][5]["success"]
    write_jsonl(tmp_path / "ep.jsonl", [t])
    assert read_jsonl(tmp_path / "ep.jsonl") == [t]


def test_step_from_info_reads_the_contract_keys(tmp_path) -> None:
    env = make("ContactsAddContact")
    _, steps = oracle_episode(env, 0)
    for a, _obs, r, _term, _trunc, info in steps:
        s = Step.from_info(a, info, observation="screen", reward=r)
        assert (s.action, s.observation, s.reward) == (a, "screen", float(r))
        assert s.format_valid is info["format_valid"] and s.action_kind == info["action_kind"]
        assert s.action_description == info["action_description"]
        assert s.milestones == info["milestones"] and s.milestones is not info["milestones"]
        assert s.progress == info["progress"]
    kinds = [Step.from_info(a, info).action_kind for a, *_, info in steps]
    assert kinds[0] == "navigate" and "input" in kinds and kinds[-1] == "finish"
    # an invalid action, a structured action, and an info without the optional keys
    env.reset(seed=0)
    _, _, _, _, info = env.step("not an action")
    s = Step.from_info({"action_type": "wait"}, info)
    assert (s.action, s.format_valid, s.action_kind) == ("{'action_type': 'wait'}", False, "invalid")
    assert Step.from_info("x", {}) == Step("x")


def test_records_without_an_action_kind_still_load(tmp_path) -> None:
    t = _traj(0)
    t.steps[0].action_kind = "input"
    old = t.to_dict()
    for step in old["steps"]:
        del step["action_kind"]  # a log written before steps carried it
    path = tmp_path / "old.jsonl"
    path.write_text(json.dumps(old) + "\n" + json.dumps(t.to_dict()) + "\n", encoding="utf-8")
    back_old, back_new = read_jsonl(path, strict=True)
    assert [s.action_kind for s in back_old.steps] == ["", ""]
    assert back_new == t and back_new.steps[0].action_kind == "input"


CORRUPT = [
    "{not json",
    '{"task_id": "x", "instruction": "y"',  # truncated
    "[1, 2, 3]",
    '"just a string"',
    "42",
    "null",
    '{"instruction": "no task id"}',
    '{"task_id": "x"}',
    '{"task_id": "x", "instruction": "y", "steps": [{"no_action": 1}]}',
    '{"task_id": "x", "instruction": "y", "steps": [{"action": "a", "bogus": 1}]}',
    '{"task_id": "x", "instruction": "y", "steps": 5}',
    '{"task_id": "x", "instruction": "y", "steps": ["a"]}',
    '{"task_id": "x", "instruction": "y", "unknown_field": 1}',
    "[" * 100_000 + "]" * 100_000,
    '{"a": ' * 50_000 + "1" + "}" * 50_000,
]


@pytest.mark.parametrize("bad", CORRUPT, ids=[f"{b[:20]}x{len(b)}" for b in CORRUPT])
def test_corrupt_line_is_skipped_with_a_warning(tmp_path, caplog, bad: str) -> None:
    path = tmp_path / "mixed.jsonl"
    good = [_traj(0), _traj(1)]
    lines = [
        json.dumps(good[0].to_dict(), ensure_ascii=False),
        bad,
        "",
        json.dumps(good[1].to_dict(), ensure_ascii=False),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        back = read_jsonl(path)
    assert back == good
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 2, warnings  # the line, then the count
    assert str(path) in warnings[0] and ":2:" in warnings[0], warnings[0]
    assert warnings[1] == f"{path}: skipped 1 bad line(s) of 3, read 2 trajectory(s)"
    with pytest.raises(ValueError, match=":2:"):
        read_jsonl(path, strict=True)


def test_invalid_utf8_is_reported_not_fatal(tmp_path, caplog) -> None:
    path = tmp_path / "bytes.jsonl"
    good = json.dumps(_traj(0).to_dict()).encode()
    path.write_bytes(good + b"\n" + b"\xff\xfe{\x80garbage\n" + good + b"\n")
    with caplog.at_level(logging.WARNING):
        back = read_jsonl(path)
    assert len(back) == 2
    assert any(f"{path}:2" in r.getMessage() for r in caplog.records)


def test_missing_file_raises(tmp_path) -> None:
    with pytest.raises(FileNotFoundError):
        read_jsonl(tmp_path / "nope.jsonl")


def test_from_dict_validation() -> None:
    with pytest.raises(ValueError):
        Trajectory.from_dict({"task_id": "x"})
    with pytest.raises(ValueError):
        Trajectory.from_dict(["task_id", "instruction"])  # type: ignore[arg-type]
    t = _traj(3)
    assert Trajectory.from_dict(t.to_dict()) == t
