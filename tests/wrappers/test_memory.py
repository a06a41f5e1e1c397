"""UI-Mem's experience memory: Eq. 1, App. E and R(t) against hand-computed values, Fig. 14's
rendering at three levels, retrieval and merging, and the file a run shares between processes."""

from __future__ import annotations

import json
import math
import pickle

import numpy as np
import pytest
from _util import run_in_processes

from wrappers.memory import (
    ExperienceMemory,
    Guidance,
    GuidanceStep,
    MemoryConfig,
    abstract,
    instantiate,
    rate_scores,
    recency,
    score_plans,
    slots,
    ucb_scores,
)
from wrappers.state import StateFileError

# ----------------------------------------------------------------------------- Eq. 1, App. E, R(t)


def test_eq1_by_hand() -> None:
    # plans (N_succ, N_used): A (3, 5), B (1, 0), C (0, 3); Σ N_succ = 4, Σ N_used = 8, ln 8 = 2.0794
    a = 3 / 4 + 0.5 * math.sqrt(math.log(8) / 6)  # 0.75 + 0.5 * 0.5887 = 1.0444
    b = 1 / 4 + 0.5 * math.sqrt(math.log(8) / 1)  # 0.25 + 0.5 * 1.4420 = 0.9710
    c = 0 / 4 + 0.5 * math.sqrt(math.log(8) / 4)  # 0.00 + 0.5 * 0.7210 = 0.3605
    assert ucb_scores([(3, 5), (1, 0), (0, 3)], weight=0.5) == pytest.approx([a, b, c])
    assert [round(x, 4) for x in (a, b, c)] == [1.0444, 0.9710, 0.3605]
    # no use yet (ln 0) or one use (ln 1): no exploration bonus
    assert ucb_scores([(2, 0), (2, 0)]) == [0.5, 0.5]
    assert ucb_scores([(1, 1), (3, 0)]) == [0.25, 0.75]
    assert ucb_scores([(0, 0)]) == [0.0]


def test_app_e_variant_by_hand() -> None:
    # own success rate min(1, N_succ / max(N_used, 1)) + c·sqrt(ln Σ N_used / (N_used + 1)); Σ N_used = 8
    bonus = math.sqrt(math.log(8) / 6), math.sqrt(math.log(8) / 1), math.sqrt(math.log(8) / 4)
    want = [3 / 5 + bonus[0], 1.0 + bonus[1], 0.0 + bonus[2]]
    assert rate_scores([(3, 5), (1, 0), (0, 3)], weight=1.0) == pytest.approx(want)
    assert score_plans([(3, 5)], ranking="rate") == rate_scores([(3, 5)])
    with pytest.raises(ValueError, match="unknown ranking 'ucb'"):
        score_plans([(1, 1)], ranking="ucb")


def test_recency_by_hand() -> None:
    assert recency(0, 0.1) == 1.0
    assert recency(5, 0.1) == pytest.approx(1 / 1.5)
    assert recency(10, 0.5) == pytest.approx(1 / 6)
    assert recency(7, 0.0) == 1.0
    with pytest.raises(ValueError):
        recency(-1, 0.1)


# ----------------------------------------------------------------------------- templates and guidance


def test_placeholders_round_trip() -> None:
    values = {"Name": "Zara Costa", "First": "Zara", "Phone": "+1 555 0100"}
    text = "Type 'Zara Costa' then +1 555 0100; Zara again"
    template = abstract(text, values)
    assert template == "Type '{{Name}}' then {{Phone}}; {{First}} again"  # longest value first
    assert instantiate(template, values) == text and slots(template) == ["Name", "Phone", "First"]
    assert instantiate("{{ Unknown }} stays", values) == "{{ Unknown }} stays"


def test_guidance_renders_fig14_shapes() -> None:
    g = Guidance(
        (
            GuidanceStep("Open Contacts, tap 'Add new contact'.", ("Tap the floating '+' button.",),
                         ("Don't use the 'Select contacts' add button.",)),
            GuidanceStep("Select 'New Incognito tab'.", ("Select this option from the expanded menu list.",)),
            GuidanceStep("Enter 'www.baidu.com' and Go.", (),
                         ("Press Enter or 'Go' icon after typing.", "Verify internet connection if navigation fails.")),
            GuidanceStep("Tap 'Save'."),
        )
    )  # fmt: skip
    assert g.render("strong").split("\n") == [
        "1.Open Contacts, tap 'Add new contact'.  (Guidance: Tip: Tap the floating '+' button. "
        "Avoid: Don't use the 'Select contacts' add button.)",
        "2.Select 'New Incognito tab'.  (Guidance: Tip: Select this option from the expanded menu list.)",
        "3.Enter 'www.baidu.com' and Go.  (Guidance: Avoid: 1. Press Enter or 'Go' icon after typing. "
        "2. Verify internet connection if navigation fails.)",
        "4.Tap 'Save'.",
    ]  # Fig. 14 and Fig. 16's lines
    assert g.render("weak").split("\n")[0] == "1.Open Contacts, tap 'Add new contact'."
    assert g.render("none") == "" and Guidance().render("strong") == "" and not Guidance()
    with pytest.raises(ValueError, match="unknown guidance level 'full'"):
        g.render("full")


# ----------------------------------------------------------------------------- retrieval and merging


class WordMatcher:
    """A stand-in embedding: cosine similarity of word-count vectors (``similarity(a, b)``)."""

    def similarity(self, a: list[str], b: list[str]) -> np.ndarray:
        vocab = sorted({w for t in a + b for w in t.lower().split()})

        def vec(t: str) -> np.ndarray:
            v = np.array([t.lower().split().count(w) for w in vocab], dtype=float)
            return v / (np.linalg.norm(v) or 1.0)

        return np.array([[float(vec(x) @ vec(y)) for y in b] for x in a])


def contacts_memory(**config) -> ExperienceMemory:
    mem = ExperienceMemory(config=MemoryConfig(**config))
    mem.add_workflow("AddContact", ["Open Contacts", "Enter {{Name}}", "Tap Save"], instruction="Add {{Name}}",
                     scene="contacts", length=6)  # fmt: skip
    return mem


def test_a_workflow_merges_with_its_repeats_and_eq1_picks_among_plans() -> None:
    mem = contacts_memory(ucb_weight=0.0)
    mem.add_workflow("AddContact", ["open contacts", "Enter {{Name}}", "Tap  Save"], length=8)  # same words
    mem.add_workflow("AddContact", ["Open Contacts", "Tap +", "Enter {{Name}}", "Tap Save"], length=9)
    plans = mem.plans("AddContact")
    assert [(p["n_succ"], p["n_used"], p["length"]) for p in plans] == [(2, 0, 7.0), (1, 0, 9.0)]
    g = mem.retrieve("AddContact", "weak", values={"Name": "Zara"})
    assert g.render("weak") == "1.Open Contacts\n2.Enter Zara\n3.Tap Save"  # the larger share of successes
    assert [p["n_used"] for p in mem.plans("AddContact")] == [1, 0]  # counted (not yet written)
    # with exploration, the unused plan wins once the first has been used: Eq. 1 with λ = 1
    explore = contacts_memory(ucb_weight=1.0)
    explore.add_workflow("AddContact", ["Open Contacts", "Enter {{Name}}", "Tap Save"])
    explore.add_workflow("AddContact", ["Open Contacts", "Tap +", "Enter {{Name}}", "Tap Save"])
    # (N_succ, N_used) (2, 0) vs (1, 0), then (2, 1) vs (1, 0): no bonus yet (ln 0, ln 1), the first
    assert [len(explore.retrieve("AddContact", "weak").steps) for _ in range(2)] == [3, 3]
    # (2, 2) vs (1, 0): 2/3 + sqrt(ln 2 / 3) = 1.1473 < 1/3 + sqrt(ln 2 / 1) = 1.1659: the unused one
    assert len(explore.retrieve("AddContact", "weak").steps) == 4


def test_strong_guidance_brings_skills_and_recent_failures() -> None:
    mem = contacts_memory(warnings=1, decay=0.5)
    mem.add_skill("contacts", "Enter {{Name}}", "Tap 'First name', type {{Name}}")
    mem.add_skill("contacts", "Enter {{Name}}", "tap 'first name', type {{name}}")  # same words: merged
    mem.add_failure("contacts", "Tap Save", "saved early", "Check the name before Save")
    mem.tick()
    mem.tick()
    mem.add_failure("contacts", "Tap Save", "wrong button", "Use the Save at the top")  # the most recent
    assert mem.skills("contacts", "Enter {{Name}}")[0]["n_succ"] == 2
    g = mem.retrieve("AddContact", "strong", values={"Name": "Zara"})
    assert g.steps[1].tips == ("Tap 'First name', type Zara",)
    assert g.steps[2].warnings == ("Use the Save at the top",)  # R(0) = 1 > R(2) = 1 / (1 + 0.5·2)
    assert mem.retrieve("AddContact", "weak").steps[1].tips == ()  # weak: the workflow only
    assert mem.retrieve("AddContact", "none") == Guidance()
    assert mem.retrieve("Unknown", "strong") == Guidance()  # nothing known: no guidance
    mem.flush()
    assert mem.skills("contacts", "Enter {{Name}}")[0]["n_used"] == 1  # only the strong retrieval showed it


def test_fallbacks_borrow_from_similar_tasks_and_subtasks_with_a_matcher() -> None:
    mem = ExperienceMemory(matcher=WordMatcher(), config=MemoryConfig(match_threshold=0.6, merge_threshold=0.8))
    mem.add_workflow("AddContact", ["Open Contacts", "Enter the name {{Name}}"], instruction="Add a contact {{Name}}",
                     scene="contacts")  # fmt: skip
    mem.add_skill("contacts", "Type the name {{Name}}", "Tap First name and type {{Name}}")
    g = mem.retrieve("AddFriend", "strong", values={"Name": "Ann"}, instruction="Add a contact {{Name}} please")
    assert g.render("weak") == "1.Open Contacts\n2.Enter the name Ann"  # the most similar template
    assert g.steps[1].tips == ("Tap First name and type Ann",)  # a similar subtask's skill
    assert ExperienceMemory().retrieve("AddFriend", "strong", instruction="Add a contact") == Guidance()
    # near-duplicates merge by embedding similarity, keeping the more detailed text
    mem.add_skill("contacts", "Type the name {{Name}}", "Tap First name and then type {{Name}}")
    assert [(s["text"], s["n_succ"]) for s in mem.skills("contacts", "Type the name {{Name}}")] == [
        ("Tap First name and then type {{Name}}", 2)
    ]


def test_lists_are_capped_dropping_the_lowest_ranked() -> None:
    mem = ExperienceMemory(config=MemoryConfig(max_entries=2, ucb_weight=0.0))
    for _ in range(3):
        mem.add_skill("s", "t", "good way")
    mem.add_skill("s", "t", "other way")
    mem.add_skill("s", "t", "newest way")  # over the cap: the lowest-ranked older one goes
    assert [x["text"] for x in mem.skills("s", "t")] == ["good way", "newest way"]
    for i in range(3):
        mem.add_failure("s", "t", "", f"guideline {i}")
        mem.tick()
    assert [f["guideline"] for f in mem.failures("s", "t")] == ["guideline 1", "guideline 2"]  # the stalest went
    with pytest.raises(ValueError, match="max_entries"):
        MemoryConfig(max_entries=0)


# ----------------------------------------------------------------------------- the shared file


def test_round_trip_and_sharing_through_the_file(tmp_path) -> None:
    path = tmp_path / "memory.json"
    mem = ExperienceMemory(path)
    mem.add_workflow("T", ["a", "b"], instruction="do {{X}}", scene="app")
    mem.add_skill("app", "a", "tap a")
    mem.add_failure("app", "b", "cause", "fix b")
    other = ExperienceMemory(path)  # another process's copy
    other.retrieve("T", "strong")
    other.flush()
    assert mem.plans("T")[0]["n_used"] == 1 and mem.skills("app", "a")[0]["n_used"] == 1
    assert ExperienceMemory.load(path).to_dict() == mem.to_dict()
    clone = pickle.loads(pickle.dumps(ExperienceMemory(path, matcher=WordMatcher())))
    assert clone.matcher is None and clone.tick() == 1 and mem.clock == 1


def test_a_damaged_file_is_a_clear_error_and_is_never_overwritten(tmp_path, caplog) -> None:
    path = tmp_path / "memory.json"
    mem = ExperienceMemory(path)
    mem.add_skill("app", "a", "tap a")
    path.write_text('{"kind": "uimem_memory", "format_version": 1, "data": {"clock": 0')
    with pytest.raises(StateFileError, match="cannot read this uimem_memory"):
        ExperienceMemory.load(path)
    mem.add_skill("app", "a", "tap b")  # the running copy saves its change beside the file
    assert "not overwriting" in caplog.text and path.read_text().endswith('"clock": 0')


def _recovered(tmp_path) -> list:
    return sorted(tmp_path.glob("memory.recovered-*.json"))


@pytest.mark.parametrize(
    "damage",
    [b"\x00\xffgarbage from another process", b"", b'{"kind": "uimem_memory", "format_version": 1, "da'],
    ids=["garbage", "truncated", "cut-short"],
)
def test_a_file_damaged_mid_run_loses_none_of_the_runs_updates(tmp_path, caplog, damage: bytes) -> None:
    path = tmp_path / "memory.json"
    mem = ExperienceMemory(path)
    mem.add_workflow("T", ["open", "save"], scene="app")
    mem.add_skill("app", "open", "tap the icon")
    path.write_bytes(damage)  # another process damages the file mid-run
    with caplog.at_level("WARNING"):
        mem.add_skill("app", "save", "tap Save")  # the update made after the damage
        mem.retrieve("T", "strong")  # a use, written at the flush
        mem.flush()
        mem.save()
    assert path.read_bytes() == damage  # the damaged file is left as it is
    [recovery] = _recovered(tmp_path)
    assert mem.recovery_path == recovery
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 1 and str(path) in warnings[0] and str(recovery) in warnings[0]
    # the recovery file is a whole memory: what was read before the damage and every change since
    back = ExperienceMemory.load(recovery)
    assert [s["text"] for s in back.skills("app", "save")] == ["tap Save"]
    assert [s["text"] for s in back.skills("app", "open")] == ["tap the icon"]
    assert back.plans("T")[0]["n_used"] == 1 and back.skills("app", "open")[0]["n_used"] == 1
    # later changes of the run go to the same recovery file
    mem.add_failure("app", "save", "saved too early", "type first")
    assert _recovered(tmp_path) == [recovery]
    assert ExperienceMemory.load(recovery).failures("app", "save")[0]["guideline"] == "type first"
    assert path.read_bytes() == damage


def test_after_a_repair_the_memory_follows_the_file_and_names_the_recovery_file(tmp_path, caplog) -> None:
    path = tmp_path / "memory.json"
    mem = ExperienceMemory(path)
    mem.add_skill("app", "a", "tap a")
    good = path.read_bytes()
    path.write_text("garbage")
    mem.add_skill("app", "b", "tap b")
    recovery = mem.recovery_path
    assert recovery is not None and ExperienceMemory.load(recovery).skills("app", "b")
    path.write_bytes(good)  # another process puts a good copy back
    with caplog.at_level("WARNING"):
        mem.add_skill("app", "c", "tap c")
    assert mem.recovery_path is None and str(recovery) in caplog.text
    assert ExperienceMemory.load(path).skills("app", "c") and not ExperienceMemory.load(path).skills("app", "b")
    assert ExperienceMemory.load(recovery).skills("app", "b")  # kept, for a person to merge
    # a damaged file that is removed is written afresh
    path.write_text("garbage")
    mem.add_skill("app", "d", "tap d")
    path.unlink()
    mem.add_skill("app", "e", "tap e")
    assert ExperienceMemory.load(path).skills("app", "e") and ExperienceMemory.load(path).skills("app", "d")
    assert len(_recovered(tmp_path)) == 2


def test_a_copy_in_another_process_names_its_own_recovery_file(tmp_path) -> None:
    path = tmp_path / "memory.json"
    mem = ExperienceMemory(path)
    mem.add_skill("app", "a", "tap a")
    path.write_text("garbage")
    mem.add_skill("app", "b", "tap b")
    clone = pickle.loads(pickle.dumps(mem))
    assert mem.recovery_path is not None and clone.recovery_path is None
    clone.add_skill("app", "c", "tap c")
    assert clone.recovery_path not in (None, mem.recovery_path) and len(_recovered(tmp_path)) == 2
    assert path.read_text() == "garbage"


def _doc(data: dict) -> str:
    return json.dumps({"kind": "uimem_memory", "format_version": 1, "data": data})


GOOD_PLAN = {"steps": ["a"], "n_succ": 1, "n_used": 0, "length": 3.0, "rationale": "", "updated": 0}


def _plan(**bad) -> dict:
    return {"clock": 0, "tasks": {"T": {"instruction": "", "scene": "", "plans": [{**GOOD_PLAN, **bad}]}}, "scenes": {}}


BAD = {
    "clock": {"clock": -1, "tasks": {}, "scenes": {}},
    "tasks list": {"clock": 0, "tasks": [], "scenes": {}},
    "no plans": {"clock": 0, "tasks": {"T": {"instruction": "", "scene": ""}}, "scenes": {}},
    "empty steps": _plan(steps=[]),
    "text count": _plan(n_succ="1"),
    "bool count": _plan(n_used=True),
    "negative length": _plan(length=-1),
    "rationale": _plan(rationale=None),
    "skill text": {"clock": 0, "tasks": {}, "scenes": {"app": {"a": {"skills": [{"text": ""}], "failures": []}}}},
    "failure": {"clock": 0, "tasks": {}, "scenes": {"app": {"a": {"skills": [], "failures": [{"guideline": 3}]}}}},
    "scene list": {"clock": 0, "tasks": {}, "scenes": {"app": []}},
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_half_valid_memory_fails_at_load_naming_the_problem(tmp_path, case: str) -> None:
    path = tmp_path / "memory.json"
    path.write_text(_doc(BAD[case]))
    with pytest.raises(StateFileError, match=rf"^{path}: cannot read this uimem_memory \("):
        ExperienceMemory.load(path)
    path.write_text(_doc({"clock": 2, "tasks": {"T": {"instruction": "", "scene": "", "plans": [GOOD_PLAN]}},
                          "scenes": {}}))  # fmt: skip
    assert ExperienceMemory.load(path).clock == 2


def _worker(path: str, worker: int, n: int) -> None:
    mem = ExperienceMemory(path)
    for i in range(n):
        mem.add_workflow("shared", ["a", "b"])
        mem.add_skill("app", f"sub {worker}", f"way {i}")
        mem.retrieve("shared", "strong")
    mem.flush()


def test_several_processes_share_one_memory(tmp_path) -> None:
    path = str(tmp_path / "memory.json")
    run_in_processes(_worker, [(path, w, 6) for w in range(3)])
    mem = ExperienceMemory.load(path)
    plan = mem.plans("shared")[0]
    assert (plan["n_succ"], plan["n_used"]) == (18, 18)  # no success and no use lost
    assert sum(len(mem.skills("app", f"sub {w}")) for w in range(3)) == 3 * 6
