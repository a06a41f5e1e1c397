"""gui-gym's EMPO against the authors' released code (X-PLUG/MobileAgent ``UI-S1/``), recorded by
``record_uis1.py`` into ``fixtures/uis1`` (see its ``SOURCES.md``):

- ``reward.json``: ``gui_traj.gui_action_match_compute_score`` (the training reward) on full
  responses; gui-gym's ``score_step(..., rule="released")`` must give the same reward and the
  same match (``extract_match``: what patches a step and cuts Eq. 5's return);
- ``acreal.json``: ``qwenvl_utils.evaluate_android_control_action`` (AC-Real's step verdict) on
  eval-file steps; gui-gym's AC-Real plays on ``score_step``'s type and match;
- ``advantages.json``: ``compute_step_discounted_returns`` (Eq. 5) and the step + episode
  advantage (``mean_std_norm``, weights 1) against ``discounted_returns`` and
  ``dual_level_advantages(variant="released")``.

Each expert step is read by gui-gym's own UI-S1 reader (``readers/uis1.py`` ``parse_step``):
``action_content.bbox`` and ``check_options.candidate_bbox`` become ``ExpertStep.boxes``; swipes
given by points use ``swipe_convention="uis1-train"`` (the train file writes a vertical swipe's
finger path reversed, and upstream's reward flips the up/down label of the points to match); a
swipe with ``check_options.direction`` takes the label as the content's direction.

Numbers agree to 1e-9, except where upstream computes in float32 (``compute_step_discounted_returns``
casts the rewards to float32; the trainer's tensors are float32): there gui-gym's float64 value,
rounded to float32, must be within one float32 ulp of upstream's, or exactly equal when every input
is a float32 number. The advantages were recorded in both dtypes (upstream's functions take the
dtype of their tensors): float64 to 1e-9, float32 to 1e-6.

AC-Real is compared with the evaluator's verdict on the eval file's own ``check_options``
(``function``); the fixture also records what the released driver passes it (``driver``: its
``fix_line`` drops the boxes and labels), which is not compared.

A case that disagrees fails. Only the documented, intended departures listed in ``DEPARTURES`` are
``xfail(strict=True)``: they must keep failing, so a change that closes one shows up.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from gui_gym.experience.matching import score_step
from gui_gym.experience.readers.uis1 import parse_step
from gui_gym.experience.released import released_verdict
from gui_gym.experience.returns import discounted_returns

FIXTURES = Path(__file__).parent / "fixtures" / "uis1"
TOL = 1e-9


def _load(name: str) -> dict:
    with open(FIXTURES / name, encoding="utf-8") as f:
        return json.load(f)


REWARD, ACREAL, ADVANTAGES = _load("reward.json"), _load("acreal.json"), _load("advantages.json")
SCREEN = tuple(REWARD["meta"]["screen"])

_BOX_LIST = (
    "upstream's training reward normalises candidate_bbox only when it is one flat 4-vector "
    "(gui_utils/utils.py norm_coordinate L20-22): a list of boxes (the eval file's form) stays in pixels "
    "and never holds a normalised point, and a list of exactly four boxes raises (score 0.1); the "
    "released trainer only passes the flat action_content.bbox (rl_dataset.py L746-749); gui-gym reads "
    "both forms as boxes and matches the expert's element (the first)"
)
DEPARTURES: dict[str, dict[str, str]] = {
    "reward": {
        "click-box-list/inside-box-far-from-point": _BOX_LIST,
        "click-four-boxes/exact": _BOX_LIST,
    },
    "acreal": {},
}


def _params(kind: str, cases: list[dict]) -> list:
    known = DEPARTURES[kind]
    missing = set(known) - {c["id"] for c in cases}
    assert not missing, f"DEPARTURES names cases the fixture lacks: {sorted(missing)}"
    # the documented departures (their reasons above) must keep failing: strict, so closing one fails the run
    return [
        pytest.param(c, id=c["id"], marks=[pytest.mark.xfail(strict=True, reason=known[c["id"]])])
        if c["id"] in known
        else pytest.param(c, id=c["id"])
        for c in cases
    ]


# -- the training reward (gui_traj.py) -------------------------------------------------------------
@pytest.mark.parametrize("case", _params("reward", REWARD["cases"]))
def test_released_reward_equals_upstreams(case: dict) -> None:
    step = parse_step(case["step"], SCREEN, swipe_convention="uis1-train")
    got = score_step(case["response"], step, SCREEN, rule="released")
    want = (case["score"], case["extract_match"])
    assert abs(got.reward - case["score"]) <= TOL and got.matched == case["extract_match"], (
        f"upstream (score, extract_match) = {want}, gui-gym = {(got.reward, got.matched)} "
        f"[gui-gym format/type/accuracy {got.format}/{got.type}/{got.accuracy}; upstream format "
        f"{case['format_score']}, type {case['type_match']}]"
    )


# -- AC-Real's step verdict (qwenvl_utils.py) ------------------------------------------------------
@pytest.mark.parametrize("case", _params("acreal", [c for c in ACREAL["cases"] if "error" not in c["function"]]))
def test_acreal_verdict_equals_upstreams(case: dict) -> None:
    step = parse_step(case["step"], SCREEN)
    got = released_verdict(case["response"], step, SCREEN)
    want = (case["function"]["type_match"], case["function"]["exact_match"])
    assert got == want, f"upstream (type, match) = {want}, gui-gym = {got}"


def test_acreal_fixture_records_upstreams_failures() -> None:
    # evaluate_android_control_action has no branch for terminate/answer/key: NotImplementedError,
    # which process_line turns into step_id = 0 for the whole task (recorded, not compared)
    errors = {c["id"]: c["function"]["error"] for c in ACREAL["cases"] if "error" in c["function"]}
    assert errors == {"terminate/terminate": "NotImplementedError"}
    case = next(c for c in ACREAL["cases"] if c["id"] == "terminate/terminate")
    with pytest.raises(NotImplementedError):  # gui-gym's AC-Real then counts the task 0, as the driver does
        released_verdict(case["response"], parse_step(case["step"], SCREEN), SCREEN)


# -- Eq. 5 (compute_step_discounted_returns) -------------------------------------------------------
def _exact32(values: list[float]) -> bool:
    return all(float(np.float32(v)) == v for v in values)


def _assert_float32_close(got: list[float], want: list[float], inputs: list[float]) -> None:
    got_a, want_a = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    assert got_a.shape == want_a.shape
    if _exact32(inputs):  # every input a float32 number: the same arithmetic, to 1e-9
        assert np.max(np.abs(got_a - want_a), initial=0.0) <= TOL, (got, want)
        return
    rounded = got_a.astype(np.float32).astype(np.float64)
    ulp = np.spacing(np.abs(want_a).astype(np.float32)).astype(np.float64)
    assert np.all(np.abs(rounded - want_a) <= ulp), f"upstream {want}, gui-gym {got}"


@pytest.mark.parametrize("case", ADVANTAGES["returns"], ids=lambda c: c["id"])
def test_discounted_returns_equal_upstreams(case: dict) -> None:
    got = discounted_returns(case["rewards"], case["matched"], case["gamma"])
    _assert_float32_close(got, case["returns"], [*case["rewards"], case["gamma"]])


# -- Eq. 6 as released (step_norm_reward + episode_norm_reward, mean_std_norm) --------------------------
GROUPS = ADVANTAGES["advantages"]["groups"]


def test_advantage_fixture_conditions() -> None:
    adv = ADVANTAGES["advantages"]
    assert (adv["mode"], adv["epsilon"], adv["weights"], adv["gamma"]) == ("mean_std_norm", 1e-6, [1.0, 1.0], 0.5)


@pytest.mark.parametrize("group", GROUPS, ids=lambda g: g["id"])
def test_batch_returns_equal_upstreams(group: dict) -> None:
    gamma = ADVANTAGES["advantages"]["gamma"]
    for r in group["rollouts"]:
        _assert_float32_close(
            discounted_returns(r["rewards"], r["matched"], gamma), r["returns"], [*r["rewards"], gamma]
        )


@pytest.mark.parametrize("part", ["total", "step", "episode"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("group", GROUPS, ids=lambda g: g["id"])
def test_released_advantages_equal_upstreams(group: dict, dtype: str, part: str) -> None:
    from agents.algos.empo import dual_level_advantages  # agents.algos imports torch: only here

    rollouts = group["rollouts"]
    weights = {"total": (1.0, 1.0), "step": (1.0, 0.0), "episode": (0.0, 1.0)}[part]
    got = dual_level_advantages(
        [np.array(r["returns"]) for r in rollouts],  # R_t^i exactly as upstream's returns held them
        [np.array(r["rewards"], dtype=np.float32 if dtype == "float32" else np.float64) for r in rollouts],
        *weights,
        variant="released",
    )
    tol = TOL if dtype == "float64" else 1e-6
    for i, (g, r) in enumerate(zip(got, rollouts, strict=True)):
        want = np.array(r[dtype][part])
        assert np.max(np.abs(g - want)) <= tol, f"rollout {i}: upstream {want.tolist()}, gui-gym {g.tolist()}"
