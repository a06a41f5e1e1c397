"""EMPO's rule reward (Eq. 4), App. C's matching at its boundaries, reading responses, Eq. 5 and the record."""

from __future__ import annotations

import pytest

from gui_gym.experience.matching import (
    POINT_DISTANCE,
    click_matches,
    read_response,
    score_step,
    step_reward,
    text_matches,
)
from gui_gym.experience.record import (
    Experience,
    ExperienceError,
    ExpertStep,
    UIAction,
    content_direction,
    dumps,
    finger_direction,
    loads,
    swipe_points,
)
from gui_gym.experience.returns import discounted_returns

SCREEN = (1000, 2000)


# -- Eq. 4 ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("fmt", "type_", "acc", "paper"),
    [(0, 0, 0, 0.0), (0, 1, 1, 0.0), (1, 0, 0, 0.1), (1, 0, 1, 0.1), (1, 1, 0, 0.5), (1, 1, 1, 1.0)],
)
def test_eq4_gates_type_on_format_and_accuracy_on_both(fmt, type_, acc, paper) -> None:
    # 0.1·f + 0.4·I[f=1]·type + 0.5·I[f·type=1]·acc, by hand
    assert step_reward(fmt, type_, acc) == pytest.approx(paper)


def test_the_released_split_is_ungated() -> None:
    # 0.1·[think] + 0.9·{1 type and accuracy, 0.5 type, 0.1 another action, 0 none}
    assert step_reward(0, 1, 1, "released") == pytest.approx(0.9)
    assert step_reward(1, 1, 0, "released") == pytest.approx(0.55)
    assert step_reward(1, 0, 0, "released") == pytest.approx(0.19)
    assert step_reward(0, 0, 0, "released") == pytest.approx(0.09)
    assert step_reward(0, 0, 0, "released", parsed=False) == 0.0
    with pytest.raises(ValueError, match="rule"):
        step_reward(1, 1, 1, "other")


# -- App. C: clicks ----------------------------------------------------------------------------------
def test_click_inside_the_box_enlarged_by_1_2_counts_at_its_edge() -> None:
    box = (400, 900, 600, 1100)  # 200 wide: ×1.2 reaches 20 px further on each side
    far = (5000.0, 5000.0)  # the expert's point far away: only the box decides
    assert click_matches((380, 1000), far, [box], SCREEN)
    assert not click_matches((379, 1000), far, [box], SCREEN)
    assert click_matches((620, 880), far, [box], SCREEN)
    assert not click_matches((621, 1000), far, [box], SCREEN)


def test_click_within_0_04_of_the_point_in_normalised_coordinates() -> None:
    expert = (500, 1000)
    assert click_matches((540, 1000), expert, [], SCREEN)  # 40/1000 = 0.04: on the boundary
    assert not click_matches((541, 1000), expert, [], SCREEN)
    assert click_matches((500, 1080), expert, [], SCREEN)  # 80/2000 = 0.04 (per-axis normalisation)
    assert not click_matches((500, 1081), expert, [], SCREEN)
    d = POINT_DISTANCE / 2**0.5  # on the diagonal
    assert click_matches((500 + d * 1000 - 0.01, 1000 + d * 2000 - 0.01), expert, [], SCREEN)


def test_relaxed_text_match() -> None:
    assert text_matches("  Hello World ", "hello world")
    assert text_matches("hello", "Hello world") and text_matches("say hello world now", "hello world")
    assert not text_matches("hallo", "hello") and not text_matches("", "hello")
    assert text_matches("", "")


# -- reading responses --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ('<think>tap it</think><action>{"action": "click", "coordinate": [10, 20]}</action>', ("click", (10, 20))),
        ('{"action": "long_press", "coordinate": [1, 2], "time": 2}', ("long_press", (1, 2))),
        ('do(action="Tap", element=[0,0,100,200])', ("click", (50, 100))),
        ('do(action="Long Press", element=[10,20])', ("long_press", (10, 20))),
        ('{"action_type": "click", "x": 7, "y": 9}', ("click", (7, 9))),
    ],
)
def test_points_from_every_syntax(response: str, expected) -> None:
    action = read_response(response).action
    assert action is not None and (action.action, action.point) == expected


def test_directions_buttons_and_texts_from_every_syntax() -> None:
    def read(text: str) -> UIAction:
        action = read_response(text).action
        assert action is not None, text
        return action

    # a finger moving up scrolls the content down; AndroidWorld's scroll names the content's way
    assert read('do(action="Swipe", direction="up", dist="medium")').direction == "down"
    assert read('{"action_type": "scroll", "direction": "down"}').direction == "down"
    assert read('{"action": "swipe", "coordinate": [500, 1500], "coordinate2": [500, 500]}').direction == "down"
    assert read('do(action="Swipe", start=[100,500], end=[900,500])').direction == "left"
    assert read('do(action="Back")').button == "Back" and read('do(action="Home")').button == "Home"
    assert read('{"action": "system_button", "button": "enter"}').button == "Enter"
    assert read('do(action="Launch", app="Clock")').text == "Clock"
    assert read('do(action="Type", text="hi")').text == "hi"
    assert read('{"action_type": "status", "goal_status": "infeasible"}').status == "failure"
    assert read("finish()").action == "terminate"
    assert read('finish(message="42")').action == "answer"


@pytest.mark.parametrize(
    "garbage",
    ["", "hello", "<action>{not json}</action>", '{"action": "fly"}', '{"action": "click"}', 42, None, "x" * 200_000],
)
def test_garbage_reads_as_no_action_with_a_reason(garbage) -> None:
    read = read_response(garbage)
    assert read.action is None and read.reason


def test_score_step_end_to_end() -> None:
    step = ExpertStep(UIAction("click", point=(500, 1000), box=(450, 950, 550, 1050)))
    assert score_step('{"action": "click", "coordinate": [540, 1040]}', step, SCREEN).reward == 1.0
    s = score_step('{"action": "click", "coordinate": [900, 100]}', step, SCREEN)
    assert (s.format, s.type, s.accuracy, s.reward, s.matched) == (1, 1, 0, 0.5, False)
    s = score_step('{"action": "wait"}', step, SCREEN)
    assert (s.type, s.reward) == (0, 0.1)
    s = score_step("nonsense", step, SCREEN)
    assert (s.format, s.reward, s.matched) == (0, 0.0, False)
    # require_thought: a readable action without <think> fails the format, and gates the rest
    s = score_step('{"action": "click", "coordinate": [500, 1000]}', step, SCREEN, require_thought=True)
    assert (s.format, s.reward, s.matched) == (0, 0.0, False)
    s = score_step('<think>x</think>{"action": "click", "coordinate": [500, 1000]}', step, SCREEN)
    assert (s.reward, s.matched) == (1.0, True)  # a bare JSON after the thought reads too
    s = score_step(
        '<think>x</think><action>{"action": "click", "coordinate": [500, 1000]}</action>', step, SCREEN, "released"
    )
    assert (s.reward, s.matched) == (1.0, True)
    # finish(message=...) answers, and also terminates
    assert score_step('finish(message="done")', ExpertStep(UIAction("terminate")), SCREEN).matched
    assert score_step('finish(message="Paris")', ExpertStep(UIAction("answer", text="paris")), SCREEN).matched
    wrong = ExpertStep(UIAction("swipe", direction="up"))
    assert score_step('{"action_type": "scroll", "direction": "down"}', wrong, SCREEN).reward == 0.5


# -- Eq. 5 --------------------------------------------------------------------------------------------
def test_eq5_returns_cut_at_patched_steps_by_hand() -> None:
    # γ = 0.5: matched run 1, 1, then a patched 0.5, then 1, 1
    assert discounted_returns([1, 1, 0.5, 1, 1], [True, True, False, True, True]) == [1.5, 1.0, 0.5, 1.5, 1.0]
    # no patch: R_1 = 1 + 0.5 + 0.25 = 1.75
    assert discounted_returns([1, 1, 1], [True] * 3) == [1.75, 1.5, 1.0]
    # γ = 0 is each step's own reward; a final mismatch keeps its own
    assert discounted_returns([1, 0.5, 0.1], [True, True, False], gamma=0.0) == [1.0, 0.5, 0.1]
    assert discounted_returns([], []) == []
    with pytest.raises(ValueError):
        discounted_returns([1], [True, False])
    with pytest.raises(ValueError):
        discounted_returns([1], [True], gamma=1.5)


# -- the record ---------------------------------------------------------------------------------------
def test_directions_and_standard_swipes() -> None:
    assert finger_direction((0, 100), (0, 0)) == "up" and finger_direction((0, 0), (10, 10)) == "down"  # tie: vertical
    assert finger_direction((0, 0), (11, 10)) == "right" and content_direction("up") == "down"
    start, end = swipe_points("down", (1080, 2400))
    assert finger_direction(start, end) == "up"
    assert UIAction("swipe", point=start, point2=end).direction == "down"


def test_record_round_trip_and_validation() -> None:
    steps = (
        ExpertStep(UIAction("click", box=(0, 0, 10, 10)), boxes=((0, 0, 100, 100),), thought="tap"),
        ExpertStep(UIAction("type", text="héllo"), native='do(action="Type", text="héllo")'),
        ExpertStep(UIAction("terminate")),
    )
    e = Experience("E/1", "do it", steps, (1080, 2400), task="T", seed=1, meta={"split": "train"})
    assert e.steps[0].action.point == (5.0, 5.0) and e.steps[0].boxes[0] == (0, 0, 10, 10)
    assert e.steps[2].action.status == "success"
    [back] = loads(dumps([e]))
    assert back == e and back.meta == {"split": "train"}
    with pytest.raises(ExperienceError, match="unknown action"):
        UIAction("fly")
    with pytest.raises(ExperienceError, match="needs a point or a box"):
        UIAction("click")
    with pytest.raises(ExperienceError, match="finite"):
        UIAction("click", point=(float("nan"), 1))
    with pytest.raises(ExperienceError, match="left, top, right, bottom"):
        UIAction("click", box=(10, 10, 0, 0))
    with pytest.raises(ExperienceError, match="system_button"):
        UIAction("system_button", button="Power")
    with pytest.raises(ExperienceError, match="no steps"):
        Experience("x", "g", ())
    with pytest.raises(ExperienceError, match=r"experiences:2: not JSON"):
        list(loads(dumps([e]) + "{oops\n"))
    with pytest.raises(ExperienceError, match=r":1: .*malformed"):
        list(loads('{"id": "x", "goal": "g"}\n'))


def test_only_the_experts_element_counts_not_the_containers_around_it() -> None:
    # the candidate boxes hold the target and the screens around it; a click on another element
    # inside those containers is no match (the whole screen would match every click)
    step = ExpertStep(UIAction("click", box=(900, 100, 1000, 200)), boxes=((0, 0, 1000, 2000), (0, 80, 1000, 1900)))
    assert step.boxes[0] == (900, 100, 1000, 200)
    assert not score_step('{"action": "click", "coordinate": [500, 900]}', step, SCREEN).matched
    assert score_step('{"action": "click", "coordinate": [905, 105]}', step, SCREEN).matched
    # without the element's own box (AndroidControl's data), the smallest box under the point is it
    ac = ExpertStep(UIAction("click", point=(950, 150)), boxes=((900, 100, 1000, 200), (0, 0, 1000, 2000)))
    assert not score_step('{"action": "click", "coordinate": [500, 900]}', ac, SCREEN).matched
    assert score_step('{"action": "click", "coordinate": [995, 195]}', ac, SCREEN).matched


def test_ids_that_are_not_plain_numbers_survive_the_uis1_writer(tmp_path) -> None:
    from gui_gym.experience.readers.uis1 import read_uis1, write_uis1

    steps = (ExpertStep(UIAction("wait")),)
    made = [Experience(i, "g", steps) for i in ("0141544666483837", "²", "42")]
    write_uis1(made, tmp_path / "x.jsonl")
    assert [e.id for e in read_uis1(tmp_path / "x.jsonl")] == ["0141544666483837", "²", "42"]
