"""Record EMPO's released reward, AC-Real verdicts, returns and advantages (UI-S1's own code).

Runs the authors' code (https://github.com/X-PLUG/MobileAgent, folder ``UI-S1/``) unchanged:

- ``verl/utils/reward_score/gui_traj.py`` ``gui_action_match_compute_score`` (the training reward,
  with ``gui_utils/utils.py`` ``check_response_match`` and ``x/data/agent/json.py``'s parser);
- ``evaluation/qwenvl_utils.py`` ``evaluate_android_control_action`` (AC-Real's step verdict) and
  ``evaluation/eval_qwenvl.py`` ``fix_line`` (what its driver hands that function);
- ``uis1/core_uis1.py`` ``compute_step_discounted_returns``, ``step_norm_reward``,
  ``episode_norm_reward`` and ``compute_uis1_outcome_advantage`` (mode ``mean_std_norm``).

Only imports are stubbed: ``verl`` and its subpackages become empty packages whose ``__path__`` is
the checkout's (so ``gui_traj.py``'s relative import finds the real ``gui_utils/utils.py`` without
running verl's ``__init__``, which wants ray, tensordict and transformers), and ``verl.DataProto``
(imported by ``core_uis1.py`` for type use only) is ``object``. ``x/`` is UI-S1's real helper
package (it needs pillow, requests, json5, tqdm). torch is the real one (pinned 2.13.0, CPU).

    python tests/experience/record_uis1.py --uis1 /path/to/MobileAgent/UI-S1 \
        --out tests/experience/fixtures/uis1

Every case gives upstream the original image size as its resized size (the Qwen2.5-VL input size
in training), so the predicted point (normalised by the resized size) and the expert's (by the
original size) use one normalisation. Writes ``reward.json``, ``acreal.json`` and
``advantages.json`` (one case a line, keys sorted). The project never imports this file.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import io
import json
import os
import sys
import types

SCREEN = (1080, 2400)  # AndroidControl's usual portrait screen; original == resized here
THINK = "I should act on the screen now."


# -- loading upstream -----------------------------------------------------------------------------
def _load_upstream(root: str) -> types.SimpleNamespace:
    import importlib
    import importlib.util

    sys.path.insert(0, root)  # the x/ helper package and the uis1/ namespace package
    for name in ("verl", "verl.utils", "verl.utils.reward_score", "verl.utils.reward_score.gui_utils"):
        mod = types.ModuleType(name)
        mod.__path__ = [os.path.join(root, *name.split("."))]
        sys.modules[name] = mod
    sys.modules["verl"].DataProto = object  # core_uis1.py imports it; the functions used never touch it
    gui_traj = importlib.import_module("verl.utils.reward_score.gui_traj")
    core = importlib.import_module("uis1.core_uis1")

    def load(name: str, path: str) -> types.ModuleType:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod  # eval_qwenvl.py does `from qwenvl_utils import ...`
        spec.loader.exec_module(mod)
        return mod

    evaluation = os.path.join(root, "evaluation")
    qwenvl = load("qwenvl_utils", os.path.join(evaluation, "qwenvl_utils.py"))
    eval_driver = load("eval_qwenvl", os.path.join(evaluation, "eval_qwenvl.py"))
    return types.SimpleNamespace(gui_traj=gui_traj, core=core, qwenvl=qwenvl, eval_driver=eval_driver)


@contextlib.contextmanager
def _quiet():
    """Upstream prints its inputs and tracebacks; keep them out of the recorder's output."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        yield


# -- responses ------------------------------------------------------------------------------------
def _resp(action: dict | str, think: str | None = THINK) -> str:
    """A full response as EMPO's prompt asks for it (Fig. 22): think block, then the action JSON."""
    body = action if isinstance(action, str) else json.dumps(action, ensure_ascii=False)
    head = "" if think is None else f"<think>\n{think}\n</think>\n"
    return f"{head}<action>\n{body}\n</action>"


def _click(x: float, y: float, kind: str = "click") -> dict:
    return {"action": kind, "coordinate": [x, y]}


def _swipe(p1: tuple[float, float], p2: tuple[float, float]) -> dict:
    return {"action": "swipe", "coordinate": list(p1), "coordinate2": list(p2)}


FINGER = {  # finger paths on a 1080×2400 screen (UI-S1's standard points, as its data writes them)
    "up": ((540, 1800), (540, 600)),
    "down": ((540, 600), (540, 1800)),
    "left": ((810, 1200), (270, 1200)),
    "right": ((270, 1200), (810, 1200)),
}


def _format_variants(cid: str, gt: dict, right: dict) -> list[tuple[str, dict, str]]:
    """The shared response-format variants around a correct action *right*."""
    return [
        (f"{cid}/exact", gt, _resp(right)),
        (f"{cid}/no-think", gt, _resp(right, None)),
        (f"{cid}/empty-think", gt, _resp(right, "")),
        (f"{cid}/blank-think", gt, _resp(right, "  \n\t ")),
    ]


def _reward_cases() -> list[tuple[str, dict, str]]:
    """(id, step in UI-S1's data format, response): training-file steps (``action_content`` with a
    click's ``bbox``) unless the step carries its own ``check_options`` (eval-file style)."""
    cases: list[tuple[str, dict, str]] = []
    add = cases.append

    # click with its element box: box [360, 327, 695, 466] ×1.2 → x [326.5, 728.5], y [313.1, 479.9]
    click = {"action_content": {"action": "click", "coordinate": [540, 390], "bbox": [360, 327, 695, 466]}}
    cases += _format_variants("click-bbox", click, _click(540, 390))
    add(("click-bbox/inside-box-far-from-point", click, _resp(_click(700, 460))))
    add(("click-bbox/enlarged-edge-x", click, _resp(_click(728.5, 390))))
    add(("click-bbox/enlarged-edge-left", click, _resp(_click(326.5, 390))))
    add(("click-bbox/just-inside-enlarged", click, _resp(_click(728, 470))))
    add(("click-bbox/just-outside-enlarged-x", click, _resp(_click(729, 390))))
    add(("click-bbox/just-outside-enlarged-y", click, _resp(_click(700, 481))))
    add(("click-bbox/near-point-outside-box", click, _resp(_click(540, 485))))  # 95/2400 = 0.0396
    add(("click-bbox/far", click, _resp(_click(100, 2000))))
    add(("click-bbox/wrong-type-long-press", click, _resp(_click(540, 390, "long_press"))))
    add(("click-bbox/wrong-type-type", click, _resp({"action": "type", "text": "hello"})))
    add(("click-bbox/wrong-type-no-think", click, _resp({"action": "wait", "time": 1}, None)))
    add(("click-bbox/far-no-think", click, _resp(_click(100, 2000), None)))
    add(("click-bbox/far-empty-think", click, _resp(_click(100, 2000), "")))
    add(("click-bbox/unknown-name-tap", click, _resp(_click(540, 390, "tap"))))
    add(("click-bbox/upper-case-name", click, _resp(_click(540, 390, "CLICK"))))
    add(("click-bbox/missing-coordinate", click, _resp({"action": "click"})))
    add(("click-bbox/float-coordinates", click, _resp(_click(540.25, 390.75))))
    add(("click-bbox/three-coordinates", click, _resp({"action": "click", "coordinate": [540, 390, 1]})))
    add(("click-bbox/malformed-json", click, _resp('{"action": "click", "coordinate": [540, 390]')))
    add(("click-bbox/malformed-json-no-think", click, _resp('{"action": click}', None)))
    add(("click-bbox/no-action-tag", click, f"<think>\n{THINK}\n</think>\nclick at 540, 390"))
    add(("click-bbox/no-action-tag-bare-json", click, f"<think>{THINK}</think>" + json.dumps(_click(540, 390))))
    add(("click-bbox/bare-json-only", click, json.dumps(_click(540, 390))))
    add(("click-bbox/unclosed-action-tag", click, f"<think>{THINK}</think><action>{json.dumps(_click(540, 390))}"))
    add(("click-bbox/androidlab-syntax-in-tag", click, _resp('do(action="Tap", element=[540,390])')))
    add(("click-bbox/code-fence-in-tag", click, _resp("```json\n" + json.dumps(_click(540, 390)) + "\n```")))
    add(("click-bbox/json-list", click, _resp("[540, 390]")))
    add(("click-bbox/json-without-action-key", click, _resp({"coordinate": [540, 390]})))
    add(("click-bbox/two-action-tags-first-right", click, _resp(_click(540, 390)) + _resp(_click(5, 5), None)))
    add(("click-bbox/two-action-tags-first-wrong", click, _resp(_click(5, 5)) + _resp(_click(540, 390), None)))
    add(("click-bbox/empty-response", click, ""))
    add(("click-bbox/think-only", click, f"<think>{THINK}</think>"))

    # click without a box: the 0.04 distance alone (43.2 px across, 96 px down)
    point = {"action_content": {"action": "click", "coordinate": [540, 1200]}}
    cases += _format_variants("click-point", point, _click(540, 1200))
    add(("click-point/dx-43", point, _resp(_click(583, 1200))))
    add(("click-point/dx-43.2-boundary", point, _resp(_click(583.2, 1200))))
    add(("click-point/dx-44", point, _resp(_click(584, 1200))))
    add(("click-point/dx-minus-43.2-boundary", point, _resp(_click(496.8, 1200))))
    add(("click-point/dy-95", point, _resp(_click(540, 1295))))
    add(("click-point/dy-96-boundary", point, _resp(_click(540, 1296))))
    add(("click-point/dy-97", point, _resp(_click(540, 1297))))
    add(("click-point/diagonal-inside", point, _resp(_click(570, 1267))))  # (0.0278, 0.0279): 0.0394
    add(("click-point/diagonal-outside", point, _resp(_click(572, 1269))))  # 0.0413
    add(("click-point/far", point, _resp(_click(900, 300))))
    # the train file's unrounded point
    raw = {"action_content": {"action": "click", "coordinate": [601.7142857142858, 1218.298555377207]}}
    add(("click-raw-point/rounded", raw, _resp(_click(602, 1218))))
    add(("click-raw-point/dx-43", raw, _resp(_click(644.7, 1218.3))))
    add(("click-raw-point/dx-44", raw, _resp(_click(646, 1218))))

    # long press with a box: [400, 900, 600, 1100] ×1.2 → [380, 880, 620, 1120]
    lp = {
        "action_content": {"action": "long_press", "coordinate": [500, 1000], "time": 2, "bbox": [400, 900, 600, 1100]}
    }
    right_lp = {"action": "long_press", "coordinate": [500, 1000], "time": 2}
    cases += _format_variants("long-press", lp, right_lp)
    add(("long-press/no-time", lp, _resp(_click(500, 1000, "long_press"))))
    add(("long-press/enlarged-edge-left", lp, _resp(_click(380, 1000, "long_press"))))
    add(("long-press/just-outside-left", lp, _resp(_click(379, 1000, "long_press"))))
    add(("long-press/enlarged-corner", lp, _resp(_click(620, 1120, "long_press"))))
    add(("long-press/just-inside-corner", lp, _resp(_click(619.9, 1119.9, "long_press"))))
    add(("long-press/just-outside-corner", lp, _resp(_click(621, 1121, "long_press"))))
    add(("long-press/wrong-type-click", lp, _resp(_click(500, 1000))))
    add(("long-press/far", lp, _resp(_click(100, 100, "long_press"))))

    # swipes given by the train file's points: (540,600)→(540,1800) is its "scroll down" (finger up)
    for name, gt_finger in (
        ("down-points", "down"),
        ("up-points", "up"),
        ("left-points", "left"),
        ("right-points", "right"),
    ):
        p1, p2 = FINGER[gt_finger]
        gt = {"action_content": _swipe(p1, p2)}
        for pred in ("up", "down", "left", "right"):
            add((f"swipe-{name}/finger-{pred}", gt, _resp(_swipe(*FINGER[pred]))))
    gt = {"action_content": _swipe(*FINGER["down"])}
    add(("swipe-down-points/no-think", gt, _resp(_swipe(*FINGER["up"]), None)))
    add(("swipe-down-points/short-finger-up", gt, _resp(_swipe((500, 1300), (510, 1250)))))
    add(("swipe-down-points/diagonal-tie", gt, _resp(_swipe((300, 1500), (700, 1100)))))  # |dx| = |dy|: vertical
    add(("swipe-down-points/zero-length", gt, _resp(_swipe((540, 1200), (540, 1200)))))
    add(("swipe-down-points/missing-coordinate2", gt, _resp({"action": "swipe", "coordinate": [540, 1800]})))
    add(("swipe-down-points/direction-only", gt, _resp({"action": "swipe", "direction": "down"})))
    add(("swipe-down-points/wrong-type-click", gt, _resp(_click(540, 1200))))
    add(
        (
            "swipe-diagonal-gt/finger-matching",
            {"action_content": _swipe((200, 1800), (700, 1000))},
            _resp(_swipe((200, 1800), (700, 1000))),
        )
    )
    add(
        (
            "swipe-diagonal-gt/finger-up",
            {"action_content": _swipe((200, 1800), (700, 1000))},
            _resp(_swipe(*FINGER["up"])),
        )
    )
    # eval-file style: check_options carries AndroidControl's direction label (the points are the finger's)
    for label, finger_pts in (("down", "up"), ("up", "down"), ("left", "left"), ("right", "right")):
        gt = {"action_content": _swipe(*FINGER[finger_pts]), "check_options": {"action": "swipe", "direction": label}}
        for pred in ("up", "down", "left", "right"):
            add((f"swipe-label-{label}/finger-{pred}", gt, _resp(_swipe(*FINGER[pred]))))

    # type: relaxed text (lower case, stripped, either inside the other)
    typ = {"action_content": {"action": "type", "text": "Sculpture art"}}
    right_type = {"action": "type", "text": "Sculpture art"}
    cases += _format_variants("type", typ, right_type)
    for cid, text in (
        ("case-and-space", "  sculpture ART \n"), ("prefix", "Sculpture"), ("inner-word", "ture a"),
        ("superstring", "Sculpture art gallery"), ("wrong", "Painting"), ("empty", ""), ("space-only", "   "),
        ("inner-space-differs", "Sculpture  art"), ("unicode-case", "SCULPTURE ART"),
    ):  # fmt: skip
        add((f"type/{cid}", typ, _resp({"action": "type", "text": text})))
    add(("type/number-text", typ, _resp({"action": "type", "text": 42})))
    add(("type/missing-text", typ, _resp({"action": "type"})))
    add(("type/wrong-type-answer", typ, _resp({"action": "answer", "text": "Sculpture art"})))
    add(("type/wrong-type-open", typ, _resp({"action": "open", "text": "Sculpture art"})))

    # open
    opn = {"action_content": {"action": "open", "text": "Zoho Meeting"}}
    cases += _format_variants("open", opn, {"action": "open", "text": "Zoho Meeting"})
    for cid, text in (("lower", "zoho meeting"), ("prefix", "Zoho"), ("superstring", "Zoho Meeting app"),
                      ("wrong", "Gmail"), ("empty", "")):  # fmt: skip
        add((f"open/{cid}", opn, _resp({"action": "open", "text": text})))
    add(("open/wrong-type-click", opn, _resp(_click(540, 1200))))
    add(("open/wrong-type-type", opn, _resp({"action": "type", "text": "Zoho Meeting"})))

    # system button
    btn = {"action_content": {"action": "system_button", "button": "Back"}}
    cases += _format_variants("button", btn, {"action": "system_button", "button": "Back"})
    for cid, name in (("lower", "back"), ("upper-spaced", " BACK "), ("wrong", "Home"), ("enter", "Enter"),
                      ("unknown-name", "Volume")):  # fmt: skip
        add((f"button/{cid}", btn, _resp({"action": "system_button", "button": name})))
    add(("button/missing-button", btn, _resp({"action": "system_button"})))
    add(("button/wrong-type-key", btn, _resp({"action": "key", "text": "KEYCODE_BACK"})))
    home = {"action_content": {"action": "system_button", "button": "Home"}}
    add(("button-home/home", home, _resp({"action": "system_button", "button": "Home"})))
    add(("button-home/back", home, _resp({"action": "system_button", "button": "Back"})))

    # wait and terminate: the type alone
    wait = {"action_content": {"action": "wait", "time": 2}}
    cases += _format_variants("wait", wait, {"action": "wait", "time": 2})
    add(("wait/other-time", wait, _resp({"action": "wait", "time": 5})))
    add(("wait/no-time", wait, _resp({"action": "wait"})))
    add(("wait/text-time", wait, _resp({"action": "wait", "time": "2s"})))
    add(("wait/wrong-type-terminate", wait, _resp({"action": "terminate", "status": "success"})))
    term = {"action_content": {"action": "terminate", "status": "success"}}
    cases += _format_variants("terminate", term, {"action": "terminate", "status": "success"})
    add(("terminate/failure", term, _resp({"action": "terminate", "status": "failure"})))
    add(("terminate/no-status", term, _resp({"action": "terminate"})))
    add(("terminate/other-status", term, _resp({"action": "terminate", "status": "done"})))
    add(("terminate/wrong-type-answer", term, _resp({"action": "answer", "text": "done"})))

    # answer and key: upstream's rule wants a predicted `type` for both
    ans = {"action_content": {"action": "answer", "text": "42 degrees"}}
    add(("answer/answer-exact", ans, _resp({"action": "answer", "text": "42 degrees"})))
    add(("answer/answer-wrong", ans, _resp({"action": "answer", "text": "17"})))
    add(("answer/type-exact", ans, _resp({"action": "type", "text": "42 degrees"})))
    add(("answer/type-substring", ans, _resp({"action": "type", "text": "42"})))
    add(("answer/type-wrong", ans, _resp({"action": "type", "text": "17"})))
    add(("answer/answer-no-think", ans, _resp({"action": "answer", "text": "42 degrees"}, None)))
    add(("answer/wrong-type-terminate", ans, _resp({"action": "terminate", "status": "success"})))
    key = {"action_content": {"action": "key", "text": "KEYCODE_ENTER"}}
    add(("key/key-exact", key, _resp({"action": "key", "text": "KEYCODE_ENTER"})))
    add(("key/key-wrong", key, _resp({"action": "key", "text": "KEYCODE_BACK"})))
    add(("key/type-exact", key, _resp({"action": "type", "text": "KEYCODE_ENTER"})))
    add(("key/type-substring", key, _resp({"action": "type", "text": "enter"})))
    add(("key/type-wrong", key, _resp({"action": "type", "text": "KEYCODE_BACK"})))
    add(("key/wrong-type-button", key, _resp({"action": "system_button", "button": "Enter"})))

    # step annotations (train data may mark a step HARMFUL or NEUTRAL; GOOD is the default)
    for note in ("HARMFUL", "NEUTRAL", "GOOD"):
        gt = {"action_content": {"action": "click", "coordinate": [540, 1200]}, "annotation": note}
        add((f"annotation-{note.lower()}/exact", gt, _resp(_click(540, 1200))))
        add((f"annotation-{note.lower()}/far", gt, _resp(_click(100, 100))))
        add((f"annotation-{note.lower()}/wrong-type", gt, _resp({"action": "wait"})))

    # eval-file style candidate_bbox (a list of boxes) handed to the training reward
    one = {
        "action_content": {"action": "click", "coordinate": [962, 220]},
        "check_options": {"action": "click", "candidate_bbox": [[886, 162, 1038, 278]], "coordinate": [962, 220]},
    }
    add(("click-box-list/inside-box-far-from-point", one, _resp(_click(1030, 275))))
    add(("click-box-list/near-point", one, _resp(_click(962, 230))))
    four = {"action_content": {"action": "click", "coordinate": [540, 2273]},
            "check_options": {"action": "click", "coordinate": [540, 2273], "candidate_bbox": [
                [456, 2211, 624, 2337], [0, 473, 1080, 2337], [20, 1194, 530, 2336], [3, 475, 267, 739]]}}  # fmt: skip
    add(("click-four-boxes/exact", four, _resp(_click(540, 2273))))
    return cases


def _check_options(step: dict) -> dict:
    """What the training reward receives: ``TrajDataset.__getitem__``'s ``fix_line``
    (``verl/utils/dataset/rl_dataset.py`` L738-751, a closure, so restated here): the step's
    ``action_content`` plus its ``annotation`` (default GOOD) and ``candidate_bbox`` = its
    ``bbox`` (else []). An eval-style step brings its own ``check_options`` (plus GOOD)."""
    if "check_options" in step:
        return {**copy.deepcopy(step["check_options"]), "annotation": step.get("annotation", "GOOD")}
    check = copy.deepcopy(step["action_content"])
    check["annotation"] = step.get("annotation", "GOOD")
    check["candidate_bbox"] = step["action_content"].get("bbox", [])
    return check


def record_rewards(up: types.SimpleNamespace) -> list[dict]:
    w, h = SCREEN
    extra = {"width": w, "height": h, "resized_width": w, "resized_height": h}
    out = []
    seen = set()
    for cid, step, response in _reward_cases():
        assert cid not in seen, cid
        seen.add(cid)
        check = _check_options(step)
        with _quiet():
            res = up.gui_traj.gui_action_match_compute_score(
                response, {"check_options": copy.deepcopy(check), "num_steps": 5, "thought": ""}, extra_info=extra
            )
        out.append({
            "id": cid, "step": step, "check_options": check, "response": response,
            "score": float(res["score"]), "format_score": float(res["format_score"]),
            "type_match": bool(res["type_match"]), "extract_match": bool(res["extract_match"]),
        })  # fmt: skip
    return out


# -- AC-Real --------------------------------------------------------------------------------------
def _acreal_cases() -> list[tuple[str, dict, str]]:
    """(id, eval-file step, response): steps as ``datasets/android_control_evaluation_std.jsonl``
    writes them (``action_content`` and ``check_options``; boxes as lists)."""
    cases: list[tuple[str, dict, str]] = []
    add = cases.append

    def step(ac: dict, check: dict) -> dict:
        return {"action_content": ac, "check_options": check}

    # the eval file's episode 8193 step 1: the tab's box, then its container's
    two = step(_click(540, 2273), {"action": "click", "candidate_bbox": [[456, 2211, 624, 2337], [0, 473, 1080, 2337]],
                                   "coordinate": [540, 2273]})  # fmt: skip
    add(("click-two-boxes/exact", two, _resp(_click(540, 2273))))
    add(("click-two-boxes/first-box-edge", two, _resp(_click(624, 2300))))
    add(("click-two-boxes/second-box-only", two, _resp(_click(540, 1000))))
    add(("click-two-boxes/second-box-enlarged-only", two, _resp(_click(540, 300))))  # 473 − 186.4 = 286.6
    add(("click-two-boxes/outside-all", two, _resp(_click(540, 150))))
    add(("click-two-boxes/long-press", two, _resp(_click(540, 2273, "long_press"))))
    one = step(
        _click(962, 220), {"action": "click", "candidate_bbox": [[886, 162, 1038, 278]], "coordinate": [962, 220]}
    )
    add(("click-one-box/exact", one, _resp(_click(962, 220))))
    add(("click-one-box/enlarged-edge", one, _resp(_click(870.8, 220))))
    add(("click-one-box/just-inside", one, _resp(_click(871, 220))))
    add(("click-one-box/just-outside", one, _resp(_click(870, 220))))
    add(("click-one-box/inside-far-from-point", one, _resp(_click(1030, 275))))
    add(("click-one-box/near-point-outside-box", one, _resp(_click(962, 300))))
    add(("click-one-box/far", one, _resp(_click(100, 2000))))
    add(("click-one-box/no-think", one, _resp(_click(962, 220), None)))
    lp = step({"action": "long_press", "coordinate": [134, 607], "time": 2},
              {"action": "long_press", "candidate_bbox": [[3, 475, 267, 739]], "coordinate": [134, 607]})  # fmt: skip
    add(("long-press/inside-box", lp, _resp(_click(250, 700, "long_press"))))
    add(("long-press/outside", lp, _resp(_click(600, 1500, "long_press"))))
    add(("long-press/click", lp, _resp(_click(134, 607))))
    # open with the app icon's box: a click on the icon also counts
    opb = step(
        {"action": "open", "text": "pCloud"},
        {"action": "open", "text": "pCloud", "candidate_bbox": [[561, 231, 771, 503]]},
    )
    add(("open-box/open-exact", opb, _resp({"action": "open", "text": "pCloud"})))
    add(("open-box/open-superstring", opb, _resp({"action": "open", "text": "pCloud app"})))
    add(("open-box/open-wrong", opb, _resp({"action": "open", "text": "Dropbox"})))
    add(("open-box/click-centre", opb, _resp(_click(666, 367))))
    add(("open-box/click-inside", opb, _resp(_click(580, 250))))
    add(("open-box/click-enlarged-edge", opb, _resp(_click(771 + 21, 367))))
    add(("open-box/click-near-centre-outside", opb, _resp(_click(666, 585))))  # 218/2400 = 0.09: no
    add(("open-box/click-far", opb, _resp(_click(100, 2000))))
    add(("open-box/type", opb, _resp({"action": "type", "text": "pCloud"})))
    opn = step({"action": "open", "text": "ZARA"}, {"action": "open", "text": "ZARA"})
    add(("open-nobox/open-lower", opn, _resp({"action": "open", "text": "zara"})))
    add(("open-nobox/click", opn, _resp(_click(540, 1200))))
    # swipes: the evaluator checks the type only
    for label, finger_pts in (("down", "up"), ("up", "down"), ("left", "left"), ("right", "right")):
        sw = step(_swipe(*FINGER[finger_pts]), {"action": "swipe", "direction": label})
        for pred in ("up", "down", "left", "right"):
            add((f"swipe-{label}/finger-{pred}", sw, _resp(_swipe(*FINGER[pred]))))
        add((f"swipe-{label}/click", sw, _resp(_click(540, 1200))))
    typ = step({"action": "type", "text": "Sculpture art"}, {"action": "type", "text": "Sculpture art"})
    add(("type/exact", typ, _resp({"action": "type", "text": "Sculpture art"})))
    add(("type/substring", typ, _resp({"action": "type", "text": "sculpture"})))
    add(("type/wrong", typ, _resp({"action": "type", "text": "Painting"})))
    add(("type/answer", typ, _resp({"action": "answer", "text": "Sculpture art"})))
    wait = step({"action": "wait", "time": 2}, {"action": "wait", "time": 2})
    add(("wait/wait", wait, _resp({"action": "wait", "time": 2})))
    add(("wait/terminate", wait, _resp({"action": "terminate", "status": "success"})))
    btn = step({"action": "system_button", "button": "Back"}, {"action": "system_button", "button": "Back"})
    add(("button/back", btn, _resp({"action": "system_button", "button": "back"})))
    add(("button/home", btn, _resp({"action": "system_button", "button": "Home"})))
    add(("button/click", btn, _resp(_click(100, 2300))))
    term = step({"action": "terminate", "status": "success"}, {"action": "terminate", "status": "success"})
    add(("terminate/terminate", term, _resp({"action": "terminate", "status": "success"})))
    return cases


def _verdict(up: types.SimpleNamespace, response: str, check: dict) -> dict:
    w, h = SCREEN
    fm = up.eval_driver.JsonFormat(up.gui_traj.RAW_SPACE, add_thought=True, force_add_thought=True)  # main()'s
    try:
        with _quiet():
            pred = fm.parse_response(response)
            t, e = up.qwenvl.evaluate_android_control_action(pred["action_content"], copy.deepcopy(check), w, h, w, h)
    except Exception as err:  # process_line: any exception ends the task with step_id = 0
        return {"error": type(err).__name__}
    return {"type_match": bool(t), "exact_match": bool(e)}


def record_acreal(up: types.SimpleNamespace) -> list[dict]:
    out = []
    for cid, step, response in _acreal_cases():
        driver_check = up.eval_driver.fix_line({"steps": [copy.deepcopy(step)]})["steps"][0]["check_options"]
        out.append({
            "id": cid, "step": step, "response": response,
            "function": _verdict(up, response, step["check_options"]),
            "driver_check_options": driver_check, "driver": _verdict(up, response, driver_check),
        })  # fmt: skip
    return out


# -- returns and advantages -----------------------------------------------------------------------
RETURN_CASES = [  # (id, rewards r_t as the reward gives them, extract_match flags, γ)
    ("all-matched-0.5", [1.0, 1.0, 1.0, 1.0], [True] * 4, 0.5),
    ("patched-middle-0.5", [1.0, 1.0, 0.55, 1.0, 1.0], [True, True, False, True, True], 0.5),
    ("ends-on-mismatch-0.5", [1.0, 0.9, 0.19], [True, True, False], 0.5),
    ("two-patches-0.5", [1.0, 0.55, 1.0, 0.1, 0.9, 1.0], [True, False, True, False, True, True], 0.5),
    ("first-mismatch-0.5", [0.55, 1.0, 1.0], [False, True, True], 0.5),
    ("single-0.5", [0.55], [False], 0.5),
    ("all-matched-0.9", [1.0, 0.9, 1.0, 1.0, 0.9], [True] * 5, 0.9),
    ("patched-0.95", [0.9, 1.0, 0.45, 1.0, 0.09, 1.0], [True, True, False, True, False, True], 0.95),
    ("gamma-0", [1.0, 0.9, 0.55, 1.0], [True, True, False, True], 0.0),
    ("gamma-1", [1.0, 0.9, 0.55, 1.0, 1.0], [True, True, False, True, True], 1.0),
    ("dyadic-0.25", [1.0, 0.5, 0.25, 1.0], [True, True, True, True], 0.25),
    ("mismatch-with-reward-1-0.5", [1.0, 1.0, 1.0], [True, False, True], 0.5),
]

GROUPS = [  # (id, rollouts as (r_t, extract_match) lists): one experience (uid) each, N rollouts
    ("three-lengths", [
        ([1.0, 1.0, 1.0], [True, True, True]),
        ([1.0, 0.55], [True, False]),
        ([0.19], [False]),
    ]),
    ("patched-four", [
        ([1.0, 0.55, 1.0, 1.0], [True, False, True, True]),
        ([1.0, 1.0, 0.9, 1.0], [True, True, True, True]),
        ([0.55, 1.0], [False, False]),
        ([1.0, 1.0, 0.1], [True, True, False]),
    ]),
    ("identical", [([1.0, 0.55], [True, False]), ([1.0, 0.55], [True, False])]),
    ("lone-one-step", [([0.55], [False])]),
    ("lone-three-steps", [([1.0, 0.9, 0.19], [True, True, False])]),
    ("eight-rollouts", [
        ([1.0, 1.0, 1.0, 1.0, 1.0], [True] * 5),
        ([1.0, 1.0, 0.55, 1.0, 1.0], [True, True, False, True, True]),
        ([0.9, 0.45], [True, False]),
        ([1.0, 0.19], [True, False]),
        ([0.55], [False]),
        ([1.0, 1.0, 1.0, 0.55], [True, True, True, False]),
        ([0.09], [False]),
        ([1.0, 0.9, 1.0, 1.0, 0.1], [True, True, True, True, False]),
    ]),
]  # fmt: skip


def _batch(rows: list[tuple[str, str, int, float, bool]], torch) -> types.SimpleNamespace:
    import numpy as np

    nt = {
        "rewards": np.array([r for _, _, _, r, _ in rows], dtype=object),  # as dapo_ray_trainer.py L316 leaves it
        "traj_uid": np.array([t for _, t, _, _, _ in rows], dtype=object),
        "extract_match": np.array([m for _, _, _, _, m in rows], dtype=object),
    }
    return types.SimpleNamespace(
        non_tensor_batch=nt, batch={"input_ids": torch.zeros((len(rows), 4), dtype=torch.long)}
    )


def record_returns(up: types.SimpleNamespace) -> list[dict]:
    import torch

    out = []
    for cid, rewards, matched, gamma in RETURN_CASES:
        rows = [("u", "t", k, r, m) for k, (r, m) in enumerate(zip(rewards, matched, strict=True))]
        got = up.core.compute_step_discounted_returns(_batch(rows, torch), gamma)
        assert got.dtype == torch.float32
        out.append({"id": cid, "rewards": rewards, "matched": matched, "gamma": gamma,
                    "returns": [float(v) for v in got.tolist()]})  # fmt: skip
    return out


def record_advantages(up: types.SimpleNamespace, gamma: float = 0.5, width: int = 8) -> dict:
    """All groups in one batch, in the trainer's order (round by round, the rollouts still going),
    each response of its own valid length with the score on its last valid token (``naive.py`` L95)."""
    import numpy as np
    import torch

    rows = []  # (uid, traj_uid, step_id, r, matched)
    longest = max(len(r) for _, rollouts in GROUPS for r, _ in rollouts)
    for t in range(longest):
        for gid, rollouts in GROUPS:
            for i, (rs, ms) in enumerate(rollouts):
                if t < len(rs):
                    rows.append((gid, f"{gid}#{i}", t, rs[t], ms[t]))
    returns32 = up.core.compute_step_discounted_returns(_batch(rows, torch), gamma)
    valid = [3 + (7 * k) % (width - 2) for k in range(len(rows))]  # 3..8 tokens, varied
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for k, v in enumerate(valid):
        mask[k, :v] = 1
    index = np.array([u for u, _, _, _, _ in rows], dtype=object)
    traj = np.array([t for _, t, _, _, _ in rows], dtype=object)
    step_id = np.array([s for _, _, s, _, _ in rows], dtype=object)

    def run(dtype) -> dict[str, list[float]]:
        token = torch.zeros((len(rows), width), dtype=dtype)
        for k, (v, row) in enumerate(zip(valid, rows, strict=True)):
            token[k, v - 1] = row[3]
        step_rewards = returns32.to(dtype)
        parts = {
            "step": up.core.step_norm_reward(step_rewards, mask, index, step_id, 1e-6, remove_std=False),
            "episode": up.core.episode_norm_reward(token, mask, index, traj, 1e-6, remove_std=False),
            "total": up.core.compute_uis1_outcome_advantage(
                token, step_rewards, mask, index, traj, step_id, 1e-6, 1.0, 1.0, mode="mean_std_norm"
            )[0],
        }
        out = {}
        for name, adv in parts.items():
            assert adv.dtype == dtype, (name, adv.dtype)
            per_row = []
            for k, v in enumerate(valid):
                row = adv[k]
                assert torch.all(row[v:] == 0) and torch.all(row[:v] == row[0]), (name, k)
                per_row.append(float(row[0]))
            out[name] = per_row
        return out

    f32, f64 = run(torch.float32), run(torch.float64)
    groups = []
    for gid, rollouts in GROUPS:
        recs = []
        for i, (rs, ms) in enumerate(rollouts):
            ks = [k for k, row in enumerate(rows) if row[1] == f"{gid}#{i}"]
            recs.append({
                "rewards": rs, "matched": ms, "returns": [float(returns32[k]) for k in ks],
                "float32": {p: [f32[p][k] for k in ks] for p in ("step", "episode", "total")},
                "float64": {p: [f64[p][k] for k in ks] for p in ("step", "episode", "total")},
            })  # fmt: skip
        groups.append({"id": gid, "rollouts": recs})
    order = [[u, int(t.split("#")[1]), s] for u, t, s, _, _ in rows]
    return {"gamma": gamma, "epsilon": 1e-6, "mode": "mean_std_norm", "weights": [1.0, 1.0],
            "batch_order": order, "valid_lengths": valid, "groups": groups}  # fmt: skip


# -- writing --------------------------------------------------------------------------------------
def _write(path: str, meta: dict, key: str, items: list) -> None:
    lines = [json.dumps(x, sort_keys=True, ensure_ascii=False) for x in items]
    head = json.dumps(meta, sort_keys=True, ensure_ascii=False)
    with open(path, "w", encoding="utf-8") as f:
        f.write('{"meta": ' + head + ',\n "' + key + '": [\n' + ",\n".join(lines) + "\n]}\n")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--uis1", required=True, help="the UI-S1 folder of an X-PLUG/MobileAgent checkout")
    parser.add_argument("--out", required=True)
    parser.add_argument("--commit", default="", help="the checkout's commit, written into the fixtures")
    args = parser.parse_args()
    up = _load_upstream(os.path.abspath(args.uis1))
    import numpy
    import torch

    os.makedirs(args.out, exist_ok=True)
    meta = {"commit": args.commit, "screen": list(SCREEN), "numpy": numpy.__version__, "torch": torch.__version__,
            "python": sys.version.split()[0]}  # fmt: skip
    rewards = record_rewards(up)
    _write(os.path.join(args.out, "reward.json"), {**meta, "entry": "gui_action_match_compute_score",
           "extra_info": "width=resized_width, height=resized_height", "num_steps": 5}, "cases", rewards)  # fmt: skip
    acreal = record_acreal(up)
    _write(os.path.join(args.out, "acreal.json"), {**meta, "entry": "evaluate_android_control_action"}, "cases", acreal)
    returns = record_returns(up)
    adv = record_advantages(up)
    with open(os.path.join(args.out, "advantages.json"), "w", encoding="utf-8") as f:
        f.write('{"meta": ' + json.dumps(meta, sort_keys=True) + ',\n "returns": [\n')
        f.write(",\n".join(json.dumps(x, sort_keys=True) for x in returns) + "\n],\n")
        f.write(' "advantages": {\n')
        f.write(
            ",\n".join(f"  {json.dumps(k)}: {json.dumps(v, sort_keys=True)}" for k, v in adv.items() if k != "groups")
        )
        f.write(',\n  "groups": [\n' + ",\n".join(json.dumps(g, sort_keys=True) for g in adv["groups"]) + "\n]}}\n")
    print(f"recorded {len(rewards)} reward cases, {len(acreal)} AC-Real cases, {len(returns)} return cases and "
          f"{len(adv['groups'])} advantage groups in {args.out}")  # fmt: skip


if __name__ == "__main__":
    main()
