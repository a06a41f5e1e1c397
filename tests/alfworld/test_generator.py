"""The world generator: deterministic, split as upstream splits, every world keeps ALFRED's rules,
and what it writes is a game file the data set's readers (and, opt-in, real TextWorld) load."""

from __future__ import annotations

import collections
import hashlib
import json
import os
import re
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from gui_gym.alfworld import vocabulary as voc
from gui_gym.alfworld.generator import (
    OOD_SCENES,
    SPLITS,
    TRAIN_SCENES,
    Household,
    _schedule,  # the type order train's default indices follow
    generate,
    layout,
    write_game,
)
from gui_gym.alfworld.pddl import format_problem, parse_problem, read_game
from gui_gym.alfworld.tasks import TASK_TYPES, TEMPLATES, UPSTREAM_ROOMS, UPSTREAM_SPLIT_TYPES, parse_task_id

ROOT = Path(__file__).resolve().parents[2]
GAMES = Path(__file__).parent / "fixtures" / "games"
COORD = r"(_minus_|_plus_)?\d\d_dot_\d\d"
RECEPTACLE_ID = re.compile(rf"[A-Za-z]+(_bar_{COORD}){{3}}(_bar_(SinkBasin|BathtubBasin))?")
OBJECT_ID = re.compile(rf"[A-Za-z]+(_bar_{COORD}){{3}}")
LOCATION_ID = re.compile(r"loc(_bar_(_minus_)?\d+){2}_bar_[0-3]_bar_(_minus_)?\d+")
LAMP_HOSTS = {"Desk", "Dresser", "SideTable", "Shelf", "CoffeeTable"}
PROPERTIES = ("pickupable", "isreceptacleobject", "cleanable", "heatable", "coolable", "toggleable", "sliceable")
STATE_FACTS = {"ishot", "iscool", "isclean", "holds", "holdsany", "istoggled", "ison", "issliced"}


@cache
def sample() -> tuple[Household, ...]:
    """About 2,000 worlds over the three splits: the evaluation splits whole, train's first 1,300
    and a stretch beyond its default size."""
    worlds = [generate(0, "eval_in_distribution", i) for i in range(SPLITS["eval_in_distribution"])]
    worlds += [generate(0, "eval_out_of_distribution", i) for i in range(SPLITS["eval_out_of_distribution"])]
    worlds += [generate(0, "train", i) for i in range(1300)]
    worlds += [generate(3, "train", i) for i in range(5000, 5426)]
    return tuple(worlds)


def digest(h: Household) -> str:
    return hashlib.sha256((h.task_id + h.goal_text + format_problem(h.problem)).encode()).hexdigest()


# -- determinism and splits ---------------------------------------------------------------------------


def test_same_arguments_same_household_other_arguments_another() -> None:
    a = generate(7, "train", 42)
    assert a == generate(7, "train", 42) and digest(a) == digest(generate(7, "train", 42))
    assert (a.seed, a.split, a.index) == (7, "train", 42)
    others = [generate(8, "train", 42), generate(7, "train", 43), generate(7, "eval_in_distribution", 42)]
    assert all(digest(o) != digest(a) for o in others)


def test_households_are_the_same_in_another_process() -> None:
    """Stable hashing: a fresh interpreter with another hash seed builds byte-identical problems."""
    args = [(0, "train", 5), (1, "eval_in_distribution", 9), (2, "eval_out_of_distribution", 133), (0, "train", 9999)]
    code = (
        "import hashlib, sys\n"
        "from gui_gym.alfworld.generator import generate\n"
        "from gui_gym.alfworld.pddl import format_problem\n"
        f"for a in {args!r}:\n"
        "    h = generate(*a)\n"
        "    print(hashlib.sha256((h.task_id + h.goal_text + format_problem(h.problem)).encode()).hexdigest())\n"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345", "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.split() == [digest(generate(*a)) for a in args]


def test_split_sizes_and_index_range() -> None:
    assert SPLITS == {"train": 3553, "eval_in_distribution": 140, "eval_out_of_distribution": 134}
    assert generate(0, "train", 3553).index == 3553 and generate(0, "train", 250_000).split == "train"
    generate(0, "eval_in_distribution", 139)
    for split, size in list(SPLITS.items())[1:]:
        with pytest.raises(ValueError, match=f"index 0..{size - 1}"):
            generate(0, split, size)


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((0, "valid_seen", 0), "the splits are train, eval_in_distribution, eval_out_of_distribution"),
        ((0, "Train", 0), "unknown split 'Train'"),
        ((0, "train", -1), "index must be an int >= 0"),
        ((0, "train", 1.5), "index must be an int >= 0"),
        ((0, "train", True), "index must be an int >= 0"),
        (("0", "train", 1), "seed must be an int"),
    ],
)
def test_bad_arguments_name_the_choices(args: tuple, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        generate(*args)


def test_out_of_distribution_scenes_are_never_train_scenes() -> None:
    assert set(voc.UNSEEN_SCENES) <= set(OOD_SCENES) and not set(OOD_SCENES) & set(TRAIN_SCENES)
    assert len(OOD_SCENES) + len(TRAIN_SCENES) == 120
    for h in sample():
        assert h.scene in (OOD_SCENES if h.split == "eval_out_of_distribution" else TRAIN_SCENES), h.task_id


def test_evaluation_splits_have_upstreams_task_mix_exactly() -> None:
    for split, upstream in (("eval_in_distribution", "valid_seen"), ("eval_out_of_distribution", "valid_unseen")):
        mix = collections.Counter(h.params.task_type for h in sample() if h.split == split)
        assert mix == UPSTREAM_SPLIT_TYPES[upstream], split
    # Train's 3,553 follow one shuffled schedule of upstream's counts (checked on the sample's 1,300).
    schedule = _schedule(0, "train")
    assert collections.Counter(schedule) == UPSTREAM_SPLIT_TYPES["train"]
    assert all(h.params.task_type == schedule[h.index] for h in sample() if h.split == "train" and h.index < 3553)


def test_every_type_in_every_split_and_every_room_type_used() -> None:
    for split in SPLITS:
        worlds = [h for h in sample() if h.split == split]
        assert {h.params.task_type for h in worlds} == set(TASK_TYPES), split
        assert {h.room for h in worlds} == set(voc.ROOM_TYPES), split


def test_a_scene_is_one_layout_whatever_the_seed() -> None:
    by_scene: dict[int, set[frozenset]] = collections.defaultdict(set)
    for h in sample():
        recs = frozenset(f for f in h.problem.init if f[0] in ("receptacletype", "receptacleatlocation"))
        by_scene[h.scene].add(recs)
    assert len(by_scene) > 60
    assert all(len(v) == 1 for v in by_scene.values())
    assert layout(12) is layout(12) and layout(12).room == "Kitchen"
    with pytest.raises(ValueError, match="no ALFRED scene"):
        layout(500)


# -- the rules every world keeps ---------------------------------------------------------------------


def check_world(h: Household) -> None:
    p, params = h.problem, h.params
    objects = p.objects
    by_pred: dict[str, list[tuple[str, ...]]] = collections.defaultdict(list)
    for f in p.init:
        by_pred[f[0]].append(f[1:])
    rtype = dict(by_pred["receptacletype"])
    otype = dict(by_pred["objecttype"])
    inrec = dict(by_pred["inreceptacle"])
    rloc = dict(by_pred["receptacleatlocation"])
    oloc = dict(by_pred["objectatlocation"])
    cls = {o: t.removesuffix("Type") for o, t in otype.items()}
    rcls = {r: t.removesuffix("Type") for r, t in rtype.items()}

    # Declarations: every name has the kind its facts need; ids are shaped like the data set's.
    assert objects["agent1"] == "agent" and by_pred["atlocation"] == [("agent1", by_pred["atlocation"][0][1])]
    receptacles = {n for n, k in objects.items() if k == "receptacle"}
    objs = {n for n, k in objects.items() if k == "object"}
    assert set(rtype) == receptacles == set(rloc) and len(by_pred["receptacletype"]) == len(receptacles)
    assert set(otype) == objs == set(oloc) and len(by_pred["objectatlocation"]) == len(objs)
    assert all(RECEPTACLE_ID.fullmatch(r) for r in receptacles)
    assert all(OBJECT_ID.fullmatch(o) for o in objs)
    assert all(LOCATION_ID.fullmatch(n) for n, k in objects.items() if k == "location")
    for r, c in rcls.items():
        assert c in voc.RECEPTACLE_CLASSES
        if c in ("SinkBasin", "BathtubBasin"):  # the Demangler's "sinkbasin N" needs this shape
            assert r.startswith(c.removesuffix("Basin") + "_bar_") and r.endswith("_bar_" + c)
        else:
            assert r.split("_bar_")[0] == c
    assert all(o.split("_bar_")[0] == c and c in voc.OBJECT_CLASSES for o, c in cls.items())
    for t in {*otype.values(), *rtype.values(), "KnifeType", "SinkBasinType", "MicrowaveType", "FridgeType"}:
        assert objects[t] in ("otype", "rtype")

    # Properties follow the class, openable receptacles are the openable classes.
    for o, c in cls.items():
        for prop in PROPERTIES:
            assert ((o,) in by_pred[prop]) == (prop in {x.lower() for x in voc.OBJECT_PROPERTIES[c]}), (o, prop)
    assert {r for (r,) in by_pred["openable"]} == {r for r, c in rcls.items() if c in voc.OPENABLE}
    assert {r for (r,) in by_pred["opened"]} <= {r for (r,) in by_pred["openable"]} and len(by_pred["opened"]) <= 1
    expected_cc = {
        (f"{rc}Type", f"{oc}Type") for rc in set(rcls.values()) for oc in set(cls.values()) if oc in voc.CAN_CONTAIN[rc]
    }
    assert set(by_pred["cancontain"]) == expected_cc

    # Placement: pickupable objects only where their class can go, at most three of a class; an
    # object in a receptacle is at its location; lamps on tables, desks, dressers, shelves.
    start = by_pred["atlocation"][0][1]
    assert start not in rloc.values()
    counts = collections.Counter(cls[o] for o in inrec if (o,) in by_pred["pickupable"])
    assert max(counts.values()) <= 3
    for o, r in inrec.items():
        assert oloc[o] == rloc[r]
        if (o,) in by_pred["pickupable"]:
            assert cls[o] in voc.CAN_CONTAIN[rcls[r]], (o, r)
        elif cls[o] == "DeskLamp":
            assert rcls[r] in LAMP_HOSTS
    assert not any(by_pred[s] for s in STATE_FACTS)

    # The task: allowed in this room, everything it needs present, goal false at the start.
    assert h.room in UPSTREAM_ROOMS[params.task_type]
    targets = [o for o in inrec if cls[o] == params.object_target]
    assert len(targets) >= (2 if params.task_type == "pick_two_obj_and_place" else 1)
    assert all((o,) in by_pred["pickupable"] for o in targets)
    if params.task_type == "look_at_obj_in_light":
        assert params.toggle_target == "DeskLamp" and "DeskLamp" in cls.values()
    else:
        assert params.parent_target in rcls.values() and params.object_target in voc.CAN_CONTAIN[params.parent_target]
        need = {"pick_heat_then_place_in_recep": "Microwave", "pick_cool_then_place_in_recep": "Fridge",
                "pick_clean_then_place_in_recep": "SinkBasin"}.get(params.task_type)  # fmt: skip
        assert need is None or need in rcls.values()
        if params.task_type in ("pick_and_place_simple", "pick_two_obj_and_place"):
            assert all(rcls[inrec[o]] != params.parent_target for o in targets)

    # The names the task carries.
    assert h.goal_text in {
        t.format(obj=params.object_target.lower(), recep=params.receptacle.lower(), toggle=params.receptacle.lower())
        for t in TEMPLATES[params.task_type]
    }
    assert parse_task_id(h.task_id) == (params, h.scene, h.task_id.split("/")[1])
    assert p.name == "plan_" + h.task_id.split("/")[1] and p.domain == "alfred"


def test_every_world_keeps_alfreds_rules() -> None:
    for h in sample():
        check_world(h)


def test_worlds_vary_like_the_data_set() -> None:
    """Receptacles share a location in most worlds, some start with a receptacle open, decor and
    fixtures appear, and task ids do not repeat."""
    worlds = sample()
    shared = opened = decor = 0
    for h in worlds:
        locs = collections.Counter(loc for _, loc in h.problem.facts("receptacleAtLocation"))
        shared += any(n > 1 for n in locs.values())
        opened += bool(h.problem.facts("opened"))
        decor += any(
            t in ("HousePlantType", "TelevisionType", "DeskLampType") for _, t in h.problem.facts("objectType")
        )
    assert shared > len(worlds) / 2 and 0 < opened < len(worlds) / 4 and decor > len(worlds) / 4
    assert len({h.task_id for h in worlds}) == len(worlds)
    objects = collections.Counter(h.params.object_target for h in worlds)
    assert len(objects) > 40


def test_format_problem_round_trips() -> None:
    for h in sample()[::40]:
        assert parse_problem(format_problem(h.problem)) == h.problem
    for path in GAMES.glob("*/game.tw-pddl"):
        p = read_game(path).problem
        assert parse_problem(format_problem(p)) == p, path.parent.name


def test_format_problem_is_laid_out_like_the_data_set() -> None:
    text = format_problem(generate(0, "train", 1).problem)
    lines = text.splitlines()
    assert lines[:4] == [f"(define (problem {generate(0, 'train', 1).problem.name})", "(:domain alfred)", "(:objects",
                         "agent1 - agent"]  # fmt: skip
    kinds = [line.rsplit(" - ", 1)[1] for line in lines[4 : lines.index("        )")]]
    assert kinds == sorted(kinds, key=["otype", "rtype", "object", "receptacle", "location"].index)
    init = lines[lines.index("(:init") + 1 : lines.index("(:goal") - 2]
    preds = [line.strip()[1:].split()[0] for line in init]
    assert preds[0] == "receptacleType" and preds[-1] == "objectAtLocation" and "canContain" in preds
    assert text.endswith(")\n)\n")


# -- game files ----------------------------------------------------------------------------------------


def test_write_game_writes_the_data_sets_keys(tmp_path: Path) -> None:
    h = generate(0, "eval_out_of_distribution", 3)
    grammar = '{"rhs": "Your task is to: UNKNOWN GOAL."}'
    path = write_game(h, tmp_path / "g", "(define (domain alfred))", grammar, ["go to desk 1", "look"])
    assert path == tmp_path / "g" / "game.tw-pddl"
    game = json.loads(path.read_text())
    assert list(game) == ["pddl_domain", "grammar", "pddl_problem", "solvable", "walkthrough"]
    assert game["grammar"] == grammar.replace("UNKNOWN GOAL", h.goal_text) and game["solvable"] is True
    back = read_game(path)
    assert back.problem == h.problem and back.walkthrough == ("go to desk 1", "look")
    assert write_game(h, tmp_path / "other.tw-pddl", "(define)", grammar) == tmp_path / "other.tw-pddl"
    with pytest.raises(ValueError, match="UNKNOWN GOAL"):
        write_game(h, tmp_path / "x", "(define)", "no goal slot")


def test_generated_games_load_in_real_textworld(tmp_path: Path) -> None:
    """Opt-in (needs alfworld==0.4.2 with textworld): the real engine loads generated games of every
    type and resets to the welcome, the room and the task line."""
    pytest.importorskip("alfworld.agents.environment.alfred_tw_env")
    import alfworld
    import textworld
    import textworld.gym
    from alfworld.agents.environment.alfred_tw_env import AlfredDemangler, AlfredInfos

    data = Path(alfworld.__file__).resolve().parent / "data"
    domain, grammar = (data / "alfred.pddl").read_text(), (data / "alfred.twl2").read_text()
    picks: dict[str, Household] = {}
    for i in range(40):
        h = generate(0, "eval_out_of_distribution", i)
        if h.room != "Kitchen":  # kitchens take TextWorld seconds to load; one type of each suffices
            picks.setdefault(h.params.task_type, h)
    for h in picks.values():
        path = write_game(h, tmp_path / h.task_id.replace("/", "_"), domain, grammar)
        infos = textworld.EnvInfos(won=True, admissible_commands=True)
        env_id = textworld.gym.register_game(
            str(path), infos, asynchronous=False, wrappers=[AlfredDemangler(shuffle=False), AlfredInfos]
        )
        env = textworld.gym.make(env_id)
        obs, info = env.reset()
        env.close()
        assert obs.startswith("-= Welcome to TextWorld, ALFRED! =-\n\nYou are in the middle of a room.")
        assert obs.endswith(f"\n\nYour task is to: {h.goal_text}.") and not info["won"]
        assert "look" in info["admissible_commands"] and any(
            c.startswith("go to ") for c in info["admissible_commands"]
        )
