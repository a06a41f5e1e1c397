"""UI-Mem's self-evolving update: the built-in extractor on an oracle and a failed episode of the
simulator (through the uimem term's batch payload), the writes into the memory, and fallbacks."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

import gui_gym  # noqa: F401
from gui_gym.core import contract as C
from wrappers.memory import ExperienceMemory, GuidanceReward, GuidanceWrapper
from wrappers.memory.evolve import BuiltinExtractor, EpisodeRecord, evolve


def _record(task: str, actions: list[str] | None, seed: int = 0, **kw) -> EpisodeRecord:
    """An episode of ``task`` (the oracle's when ``actions`` is None) as the uimem term publishes it."""
    env = GuidanceReward(GuidanceWrapper(gym.make("GuiAndroid-v0", task=task, **kw)))
    env.reset(seed=seed)
    i = 0
    while True:
        action = env.unwrapped.oracle_action() if actions is None else actions[min(i, len(actions) - 1)]
        _, _, term, trunc, info = env.step(action)
        i += 1
        if term or trunc:
            return EpisodeRecord.from_dict(json.loads(info[C.EPISODE_SETTLE])["uimem"])


def test_an_oracle_success_gives_its_workflow_and_a_skill_per_milestone() -> None:
    record = _record("ContactsAddContact", None, seed=2)
    assert record.success and record.scene == "contacts" and record.level == "none"
    x = BuiltinExtractor()(record)
    assert x.workflow == [
        "Open the Contacts app", "Open the form to create a new contact", 'Enter the first name "{{First}}"',
        'Enter the last name "{{Last}}"', 'Enter the phone number "{{Number}}"', "Save the new contact {{Name}}",
    ]  # fmt: skip
    skills = dict(x.skills)
    assert skills['Enter the first name "{{First}}"'].startswith('Type "{{First}}" into "First name"')
    assert all(record.placeholders["First"] not in text for _, text in x.skills)  # abstract
    assert x.failure is None


def test_a_failure_gives_a_diagnosis_of_the_first_unmet_milestone() -> None:
    record = _record("SystemWifiTurnOn", ['do(action="Launch", app="Settings")', 'do(action="Swipe", direction="up")',
                                          'do(action="Back")', 'do(action="Back")'], max_steps=5)  # fmt: skip
    assert not record.success
    x = BuiltinExtractor()(record)
    assert x.workflow is None and x.skills == [("Open the Settings app", "Launch Settings")]
    subtask, cause, guideline = x.failure
    assert subtask == 'Open "Network & internet"'
    assert cause.startswith(
        """'Open "Network & internet"' was not reached after 'Open the Settings app'; the actions"""
    )
    assert guideline.startswith("""To reach 'Open "Network & internet"', do not repeat 'Press Back""")


def test_evolve_writes_merges_and_ticks() -> None:
    memory = ExperienceMemory()
    ok = _record("SystemWifiTurnOn", None, seed=0)
    again = _record("SystemWifiTurnOn", None, seed=1)
    bad = _record("SystemWifiTurnOn", ['do(action="Home")'], max_steps=3)
    counts = evolve(memory, [ok, again, bad])
    assert counts == {"workflows": 2, "skills": 6, "failures": 1, "episodes": 3} and memory.clock == 1
    plan = memory.plans("SystemWifiTurnOn")[0]
    assert plan["n_succ"] == 2 and plan["steps"][0] == "Open the Settings app"  # the two successes merged
    guidance = memory.retrieve("SystemWifiTurnOn", "strong", scene="settings")
    assert guidance.steps[0].warnings and guidance.steps[-1].tips


def test_a_failing_extractor_falls_back_to_the_builtin_one(caplog: pytest.LogCaptureFixture) -> None:
    def broken(record: EpisodeRecord) -> None:
        raise RuntimeError("the LLM is down")

    memory = ExperienceMemory()
    evolve(memory, [_record("SystemWifiTurnOn", None)], broken)
    assert memory.plans("SystemWifiTurnOn") and "using the built-in extractor" in caplog.text


@pytest.mark.parametrize(
    "bad",
    [{}, {"task_id": "A", "instruction": "x", "milestones": [], "success": True, "steps": [["a", "not a list"]]},
     {"task_id": "A", "instruction": "x", "milestones": 3, "success": True, "steps": []}],
)  # fmt: skip
def test_a_record_that_is_not_one_is_a_clear_error(bad: dict) -> None:
    with pytest.raises(ValueError, match="not an episode record"):
        EpisodeRecord.from_dict(bad)


@pytest.mark.parametrize("env_id", ["ALFWorld-v0", "WebShop-v0", "TextRooms-v0", "GuiExperience-v0"])
def test_the_update_learns_on_every_family_with_milestones(env_id: str) -> None:
    """The uimem term's payload and the built-in extractor on the other families: episodes of the
    family's first admissible actions leave experience in the memory."""
    import textrooms  # noqa: F401

    from gui_gym.core.family import family_of
    from wrappers.spec import RewardState, make_env

    state = RewardState()
    family = family_of(env_id)
    task = family.tasks(None)[0].id
    env = make_env(env_id, tasks=task, reward="uimem", state=state, max_steps=6)
    records = []
    for seed in range(2):
        obs, info = env.reset(seed=seed)
        while True:
            obs, _, term, trunc, info = env.step(family.admissible_actions(obs, info)[seed % 2].action)
            if term or trunc:
                records.append(EpisodeRecord.from_dict(json.loads(info[C.EPISODE_SETTLE])["uimem"]))
                break
    assert all(r.milestones for r in records)  # the family reports its task's milestones
    counts = evolve(state.experience_memory(), records)
    assert counts["episodes"] == 2 and counts["skills"] + counts["failures"] + counts["workflows"] > 0
