"""AndroidControl episodes from its TFRecord shards, without TensorFlow.

**The data** (Google's ``android_control`` release): shards ``android_control-000NN-of-00020``
(gzip TFRecord, :mod:`~gui_gym.experience.readers.tfrecord`), one ``tf.train.Example`` per
episode with the features ``episode_id`` (int64), ``goal`` (bytes), and per observation
``screenshots`` (PNG), ``screenshot_widths`` / ``screenshot_heights`` (int64) and
``accessibility_trees`` (a serialized android_env ``AndroidAccessibilityForest``), and per action
``actions`` (a JSON object with ``action_type``) and ``step_instructions``: N observations, N−1
actions, action i taken on observation i. ``splits.json`` beside the shards lists episode ids per
split (``train``, ``validation``, ``test``); ``test_subsplits.json`` the test's out-of-domain
parts (``IDD``, ``app_unseen``, ``task_unseen``, ``category_unseen``).

**Actions** (``action_type`` → :class:`~gui_gym.experience.record.UIAction`): ``click`` /
``long_press`` ``x``, ``y`` (pixels) → a point; ``scroll`` ``direction`` → a swipe of that
direction as it is (AndroidControl names the way the content moves, which is the record's
convention; AndroidWorld's executor reads the horizontal labels so too, while UI-S1's data takes
them as the finger's way); ``open_app``
``app_name`` → ``open``; ``input_text`` ``text`` → ``type``; ``navigate_home`` /
``navigate_back`` → ``system_button`` Home / Back; ``wait`` → ``wait``; and, defensively, the
``type`` one README version lists (click ``x``, ``y``, type ``text``, Enter) → ``type`` with its
point. The release has no terminate action; ``terminate=True`` appends ``terminate(success)`` on
the last observation, as UI-S1's training data does.

**Each step** keeps ``ui``: the observation's forest as a ``uiautomator``-style XML dump (every
window's root in forest order, nodes not visible to the user left out, :func:`forest_to_xml`),
``boxes`` for a click or long press: the bounds of the visible nodes (any window) whose bounds
contain the point (edges included, empty boxes skipped), smallest area first, duplicates once —
the nested list UI-S1's ``candidate_bbox`` holds; ``instruction``: the step instruction;
``native``: the action's JSON as the data has it; and ``screenshot``: a reference
``"<shard>#<record>/<observation>"`` that :func:`load_screenshot` turns into the PNG bytes, so
that reading episodes never holds their images. Episodes with no action are skipped.

**Checks** (:mod:`~gui_gym.experience.readers.checks`): a click's or long press's ``x``, ``y``
must lie on its observation's screen (``0 ≤ x ≤ width``, ``0 ≤ y ≤ height``); screenshot sizes
are whole pixels up to ``MAX_SIDE``. Screenshots are references into the shard the reader itself
built, never paths the data gives. Every error names the shard and the record (``shard: record
i``), and the step or observation where there is one.

Example (a one-action episode written with this module's encoder):
    >>> import tempfile, pathlib
    >>> forest = {"windows": [{"id": 1, "window_type": "TYPE_APPLICATION", "tree": {"nodes": [
    ...     {"bounds_in_screen": {"right": 1080, "bottom": 2400}, "child_ids": [1], "is_visible_to_user": True},
    ...     {"unique_id": 1, "bounds_in_screen": {"left": 456, "top": 2211, "right": 624, "bottom": 2337},
    ...      "class_name": "android.widget.TextView", "text": "Create", "is_clickable": True,
    ...      "is_visible_to_user": True}]}}]}
    >>> ep = encode_episode(8193, "Publish my art", [{"action_type": "click", "x": 540, "y": 2273}],
    ...                     forests=[forest, forest], screenshots=[b"png0", b"png1"])
    >>> shard = pathlib.Path(tempfile.mkdtemp()) / "android_control-00000-of-00001"
    >>> write_records(shard, [ep])
    1
    >>> [e] = read_androidcontrol(shard)
    >>> e.id, e.screen, e.steps[0].action.point, e.steps[0].boxes
    ('8193', (1080, 2400), (540, 2273), ((456, 2211, 624, 2337), (0, 0, 1080, 2400)))
    >>> 'text="Create"' in e.steps[0].ui, load_screenshot(e.steps[0].screenshot)
    (True, b'png0')
"""

from __future__ import annotations

import glob
import json
import os
from collections.abc import Iterator, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from gui_gym.android.ui import Node, to_xml
from gui_gym.experience.readers.checks import on_screen, screen_size, split_reference
from gui_gym.experience.readers.tfrecord import (
    Feature,
    TFRecordError,
    encode_example,
    encode_varint,
    field_bytes,
    field_varint,
    iter_fields,
    packed_varints,
    parse_example,
    read_record,
    read_records,
    signed32,
    signed64,
    write_records,
)
from gui_gym.experience.record import Box, Experience, ExperienceError, ExpertStep, UIAction

__all__ = [
    "SHARD_PATTERN",
    "SPAN_SOURCES",
    "WINDOW_TYPES",
    "candidate_boxes",
    "decode_forest",
    "encode_episode",
    "encode_forest",
    "forest_roots",
    "forest_to_xml",
    "iter_androidcontrol",
    "load_screenshot",
    "parse_action",
    "read_androidcontrol",
    "shard_files",
    "write_records",
]

SHARD_PATTERN = "android_control-*-of-*"
#: ``AndroidAccessibilityWindowInfo.WindowType`` by value (6 and 7 are recent; unknown → UNKNOWN_TYPE).
WINDOW_TYPES = (
    "UNKNOWN_TYPE",
    "TYPE_APPLICATION",
    "TYPE_INPUT_METHOD",
    "TYPE_SYSTEM",
    "TYPE_ACCESSIBILITY_OVERLAY",
    "TYPE_SPLIT_SCREEN_DIVIDER",
    "TYPE_MAGNIFICATION_OVERLAY",
    "TYPE_WINDOW_CONTROL",
)
#: ``AndroidAccessibilityNodeInfoClickableSpan.SpanSource`` by value.
SPAN_SOURCES = ("UNKNOWN_TYPE", "TEXT", "CONTENT_DESCRIPTION")


# -- the accessibility forest (android_env/proto/a11y) -------------------------------------------


class _F(NamedTuple):
    """One field of a message: its name, its kind (int32, int64, bool, enum, string, message),
    whether it repeats, and the enum's names or the message's fields."""

    name: str
    kind: str
    repeated: bool = False
    sub: Any = None


_RECT = {1: _F("left", "int32"), 2: _F("top", "int32"), 3: _F("right", "int32"), 4: _F("bottom", "int32")}
_ACTION = {1: _F("id", "int32"), 2: _F("label", "string")}
_SPAN = {
    1: _F("text", "string"),
    2: _F("url", "string"),
    3: _F("source", "enum", sub=SPAN_SOURCES),
    4: _F("start", "int32"),
    5: _F("node_id", "int32"),
}
_NODE = {
    1: _F("unique_id", "int32"),
    2: _F("bounds_in_screen", "message", sub=_RECT),
    3: _F("class_name", "string"),
    4: _F("content_description", "string"),
    5: _F("hint_text", "string"),
    6: _F("package_name", "string"),
    7: _F("text", "string"),
    8: _F("text_selection_start", "int64"),
    9: _F("text_selection_end", "int64"),
    10: _F("view_id_resource_name", "string"),
    11: _F("window_id", "int32"),
    12: _F("is_checkable", "bool"),
    13: _F("is_checked", "bool"),
    14: _F("is_clickable", "bool"),
    15: _F("is_editable", "bool"),
    16: _F("is_enabled", "bool"),
    17: _F("is_focusable", "bool"),
    18: _F("is_focused", "bool"),
    19: _F("is_long_clickable", "bool"),
    20: _F("is_password", "bool"),
    21: _F("is_scrollable", "bool"),
    22: _F("is_selected", "bool"),
    23: _F("is_visible_to_user", "bool"),
    24: _F("actions", "message", True, _ACTION),
    25: _F("child_ids", "int32", True),
    26: _F("clickable_spans", "message", True, _SPAN),
    27: _F("depth", "int32"),
    28: _F("labeled_by_id", "int32"),
    29: _F("label_for_id", "int32"),
    30: _F("drawing_order", "int32"),
    31: _F("tooltip_text", "string"),
}
_TREE = {1: _F("nodes", "message", True, _NODE)}
_WINDOW = {
    1: _F("bounds_in_screen", "message", sub=_RECT),
    2: _F("display_id", "int32"),
    3: _F("id", "int32"),
    4: _F("layer", "int32"),
    5: _F("title", "string"),
    6: _F("window_type", "enum", sub=WINDOW_TYPES),
    7: _F("is_accessibility_focused", "bool"),
    8: _F("is_active", "bool"),
    9: _F("is_focused", "bool"),
    10: _F("is_in_picture_in_picture_mode", "bool"),
    11: _F("tree", "message", sub=_TREE),
}
_FOREST = {1: _F("windows", "message", True, _WINDOW)}


def _default(f: _F) -> Any:
    if f.repeated:
        return []
    return {"message": lambda: _decode(b"", f.sub), "string": str, "bool": bool, "enum": lambda: f.sub[0]}.get(
        f.kind, int
    )()


def _scalar(f: _F, v: int) -> Any:
    if f.kind == "int32":
        return signed32(v)
    if f.kind == "int64":
        return signed64(v)
    if f.kind == "bool":
        return v != 0
    v = signed32(v)
    return f.sub[v] if 0 <= v < len(f.sub) else f.sub[0]  # enum: an unknown value reads as UNKNOWN


def _decode(buf: bytes | memoryview, schema: Mapping[int, _F]) -> dict[str, Any]:
    """A message as a dict of every field (proto3 defaults for absent ones; unknown fields and
    fields with an unexpected wire type skipped, as protobuf does)."""
    out = {f.name: _default(f) for f in schema.values()}
    for num, wt, v in iter_fields(buf):
        f = schema.get(num)
        if f is None:
            continue
        if f.kind in ("message", "string"):
            if wt != 2:
                continue
            value = _decode(v, f.sub) if f.kind == "message" else str(v, "utf-8", "replace")
            if f.repeated:
                out[f.name].append(value)
            else:
                out[f.name] = value
            continue
        if wt == 0:
            raw = [v]
        elif wt == 2 and f.repeated:
            raw = packed_varints(v)
        else:
            continue
        values = [_scalar(f, x) for x in raw]
        if f.repeated:
            out[f.name].extend(values)
        elif values:
            out[f.name] = values[-1]
    return out


def _enum_value(f: _F, v: Any) -> int:
    if isinstance(v, str):
        if v not in f.sub:
            raise ValueError(f"{f.name}: unknown enum name {v!r}; one of {', '.join(f.sub)}")
        return f.sub.index(v)
    return int(v)


def _encode(msg: Mapping[str, Any], schema: Mapping[int, _F]) -> bytes:
    parts = []
    for num, f in schema.items():
        v = msg.get(f.name)
        if v is None:
            continue
        if f.kind == "message":
            for m in v if f.repeated else [v]:
                parts.append(field_bytes(num, _encode(m, f.sub)))
        elif f.kind == "string":
            if v:
                parts.append(field_bytes(num, v.encode("utf-8")))
        elif f.repeated:
            if v:  # packed, as proto3 writes repeated scalars
                parts.append(field_bytes(num, b"".join(encode_varint(int(x)) for x in v)))
        else:
            x = _enum_value(f, v) if f.kind == "enum" else int(v)
            if x:
                parts.append(field_varint(num, x))
    return b"".join(parts)


def decode_forest(data: bytes) -> dict[str, Any]:
    """A serialized ``AndroidAccessibilityForest`` as a dict with the proto's field names, every
    field present (the shape :func:`gui_gym.android.forest.to_forest` gives): ``windows`` →
    ``tree`` → ``nodes``, enums by name, rects as ``left/top/right/bottom``."""
    try:
        return _decode(memoryview(data).cast("B"), _FOREST)
    except TFRecordError as err:
        raise TFRecordError(f"accessibility forest: {err}") from None


def encode_forest(forest: Mapping[str, Any]) -> bytes:
    """A forest dict (any subset of the fields; enums by name or number) as proto3 wire bytes:
    default values left out, ``child_ids`` packed."""
    return _encode(forest, _FOREST)


# -- forest → UI tree -----------------------------------------------------------------------------


def _bounds(node: Mapping[str, Any]) -> tuple[int, int, int, int]:
    r = node.get("bounds_in_screen") or {}
    return int(r.get("left", 0)), int(r.get("top", 0)), int(r.get("right", 0)), int(r.get("bottom", 0))


def _node(n: Mapping[str, Any]) -> Node:
    return Node(
        n.get("class_name", ""),
        _bounds(n),
        n.get("text", ""),
        rid=n.get("view_id_resource_name", ""),
        desc=n.get("content_description", ""),
        package=n.get("package_name", ""),
        clickable=bool(n.get("is_clickable")),
        long_clickable=bool(n.get("is_long_clickable")),
        checkable=bool(n.get("is_checkable")),
        checked=bool(n.get("is_checked")),
        focusable=bool(n.get("is_focusable")),
        focused=bool(n.get("is_focused")),
        scrollable=bool(n.get("is_scrollable")),
        enabled=bool(n.get("is_enabled")),
        password=bool(n.get("is_password")),
        selected=bool(n.get("is_selected")),
        visible=bool(n.get("is_visible_to_user")),
    )


def forest_roots(forest: Mapping[str, Any]) -> list[Node]:
    """Each window's tree as :class:`~gui_gym.android.ui.Node` objects, windows in forest order.

    ``child_ids`` link a window's nodes by ``unique_id``; a node is the child of the first node
    (in list order) that names it, so what is built is always a tree. The roots are the nodes no
    one names (normally the one with id 0); ids that name no node are ignored.
    """
    roots: list[Node] = []
    for window in forest.get("windows", ()):
        nodes = (window.get("tree") or {}).get("nodes", ())
        built: dict[int, Node] = {}
        order: list[tuple[int, Mapping[str, Any]]] = []
        for n in nodes:
            uid = int(n.get("unique_id", 0))
            if uid not in built:  # a repeated id: the first node keeps it
                built[uid] = _node(n)
                order.append((uid, n))
        claimed: set[int] = set()
        for uid, n in order:
            for cid in n.get("child_ids", ()):
                if cid in built and cid != uid and cid not in claimed:
                    claimed.add(cid)
                    built[uid].children.append(built[cid])
        roots.extend(built[uid] for uid, _ in order if uid not in claimed)
    return roots


def forest_to_xml(forest: Mapping[str, Any]) -> str:
    """The forest as a ``uiautomator`` dump (:func:`gui_gym.android.ui.to_xml`): every window's
    root as a top-level node, in forest order (android_env lists windows lowest layer first);
    nodes not visible to the user, and what they hold, left out as a dump leaves them out."""
    try:
        return to_xml([r for r in forest_roots(forest) if r.visible])
    except RecursionError:
        raise ExperienceError("accessibility forest: a tree too deep to write as XML (a damaged forest?)") from None


def candidate_boxes(forest: Mapping[str, Any], point: Sequence[float]) -> list[Box]:
    """Bounds of the visible nodes (any window) containing ``point`` (edges included; empty boxes
    skipped), smallest area first, each box once."""
    x, y = float(point[0]), float(point[1])
    found: dict[tuple[int, int, int, int], int] = {}
    for window in forest.get("windows", ()):
        for n in (window.get("tree") or {}).get("nodes", ()):
            if not n.get("is_visible_to_user"):
                continue
            l, t, r, b = _bounds(n)
            if l < r and t < b and l <= x <= r and t <= y <= b:
                found.setdefault((l, t, r, b), (r - l) * (b - t))
    return sorted(found, key=lambda box: found[box])  # sorted is stable: equal areas keep tree order


# -- actions ---------------------------------------------------------------------------------------


def _num(data: Mapping[str, Any], key: str) -> float:
    v = data.get(key)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ExperienceError(f"action {json.dumps(data)}: {key!r} must be a number")
    return v


def _str(data: Mapping[str, Any], key: str) -> str:
    v = data.get(key)
    if not isinstance(v, str):
        raise ExperienceError(f"action {json.dumps(data)}: {key!r} must be text")
    return v


def parse_action(action: str | bytes | Mapping[str, Any]) -> UIAction:
    """An AndroidControl action (its JSON text or the decoded object) as a :class:`UIAction`."""
    if isinstance(action, (str, bytes)):
        try:
            data = json.loads(action)
        except (json.JSONDecodeError, UnicodeDecodeError) as err:
            raise ExperienceError(f"action {action[:80]!r} is not JSON ({err})") from None
    else:
        data = action
    if not isinstance(data, Mapping):
        raise ExperienceError(f"an action is a JSON object, got {data!r}")
    kind = data.get("action_type")
    if kind in ("click", "long_press"):
        return UIAction(kind, point=(_num(data, "x"), _num(data, "y")))
    if kind == "scroll":
        return UIAction("swipe", direction=_str(data, "direction").strip().lower())
    if kind == "open_app":
        return UIAction("open", text=_str(data, "app_name"))
    if kind == "input_text":
        return UIAction("type", text=_str(data, "text"))
    if kind == "type":  # one README version: click at x, y, type, press Enter
        point = (_num(data, "x"), _num(data, "y")) if "x" in data or "y" in data else None
        return UIAction("type", text=_str(data, "text"), point=point)
    if kind in ("navigate_home", "navigate_back"):
        return UIAction("system_button", button="Home" if kind == "navigate_home" else "Back")
    if kind == "wait":
        t = data.get("time", data.get("seconds"))
        return UIAction("wait", time=t if isinstance(t, (int, float)) and not isinstance(t, bool) else None)
    raise ExperienceError(f"action {json.dumps(data)}: unknown action_type {kind!r}")


# -- episodes --------------------------------------------------------------------------------------


def shard_files(path: str | Path) -> list[Path]:
    """The shards at ``path``: a file, a glob pattern, or a directory (its ``android_control-*-of-*``
    files, else its ``*.tfrecord*`` files), sorted."""
    text = str(path)
    p = Path(text)
    if p.is_file():
        return [p]
    if p.is_dir():
        found = sorted(p.glob(SHARD_PATTERN)) or sorted(p.glob("*.tfrecord*"))
        found = [f for f in found if f.is_file()]
        if not found:
            raise FileNotFoundError(f"{p}: no AndroidControl shards ({SHARD_PATTERN} or *.tfrecord*) in this directory")
        return found
    if glob.has_magic(text):
        found = sorted(Path(f) for f in glob.glob(text) if Path(f).is_file())
        if not found:
            raise FileNotFoundError(f"{text}: no file matches this pattern")
        return found
    raise FileNotFoundError(f"{p}: no such file or directory")


def _split_ids(files: Sequence[Path], split: str, splits: str | Path | None) -> set[int]:
    """The episode ids of ``split`` from ``splits.json`` (or ``test_subsplits.json``)."""
    where = Path(splits) if splits is not None else files[0].parent / "splits.json"
    candidates = [where] if splits is not None else [where, where.with_name("test_subsplits.json")]
    seen: list[str] = []
    for f in candidates:
        if not f.is_file():
            if f == where:
                raise FileNotFoundError(f"{f}: no splits file (needed for split={split!r}; pass splits=PATH)")
            continue
        try:
            data = json.loads(f.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
            raise ExperienceError(f"{f}: not a JSON splits file ({err})") from None
        if not isinstance(data, Mapping):
            raise ExperienceError(f"{f}: a splits file maps split names to episode ids")
        if split in data:
            try:
                return {int(i) for i in data[split]}
            except (TypeError, ValueError):
                raise ExperienceError(f"{f}: split {split!r} holds something other than episode ids") from None
        seen += list(data)
    raise ExperienceError(f"no split {split!r} in {where}; splits: {', '.join(map(str, seen))}")


def _values(ex: Mapping[str, Feature], key: str, kind: str, where: str) -> list[Any] | None:
    f = ex.get(key)
    if f is None:
        return None
    if f.kind not in (kind, ""):
        raise ExperienceError(f"{where}: feature {key!r} is a {f.kind}_list, expected {kind}_list")
    return f.values


def _text(v: bytes, what: str) -> str:
    try:
        return v.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ExperienceError(f"{what} is not UTF-8 ({err})") from None


def _episode(ex: Mapping[str, Feature], shard: str, index: int, *, with_ui: bool, terminate: bool) -> Experience | None:
    where = f"{shard}: record {index}"
    ids = _values(ex, "episode_id", "int64", where)
    goal = _values(ex, "goal", "bytes", where)
    actions = _values(ex, "actions", "bytes", where)
    widths = _values(ex, "screenshot_widths", "int64", where)
    heights = _values(ex, "screenshot_heights", "int64", where)
    required = {"episode_id": ids, "goal": goal, "screenshot_widths": widths, "screenshot_heights": heights}
    for key, v in required.items():
        if not v:
            raise ExperienceError(f"{where}: no {key!r} feature (is this an AndroidControl shard?)")
    if actions is None:
        raise ExperienceError(f"{where}: no 'actions' feature (is this an AndroidControl shard?)")
    assert ids and goal and widths and heights
    n_obs = len(widths)
    shots = _values(ex, "screenshots", "bytes", where)
    trees = _values(ex, "accessibility_trees", "bytes", where)
    instructions = _values(ex, "step_instructions", "bytes", where)
    counts = {"screenshot_heights": heights, "screenshots": shots, "accessibility_trees": trees}
    for key, v in counts.items():
        if v is not None and len(v) != n_obs:
            raise ExperienceError(f"{where}: {len(v)} {key} for {n_obs} screenshot_widths")
    if len(actions) != n_obs - 1:
        raise ExperienceError(f"{where}: {len(actions)} actions for {n_obs} observations (expected {n_obs - 1})")
    if instructions is not None and len(instructions) != len(actions):
        raise ExperienceError(f"{where}: {len(instructions)} step_instructions for {len(actions)} actions")
    if not actions:
        return None
    episode_id = ids[0]
    sizes = []
    for i, (w, h) in enumerate(zip(widths, heights, strict=True)):
        try:
            sizes.append(screen_size(w, h, "the screenshot's width and height"))
        except ExperienceError as err:
            raise ExperienceError(f"{where} (episode {episode_id}), observation {i}: {err}") from None

    def observation(i: int) -> tuple[str | None, str | None, dict[str, Any] | None]:
        ref = f"{shard}#{index}/{i}" if shots is not None else None
        if not with_ui or trees is None:
            return ref, None, None
        try:
            forest = decode_forest(trees[i])
            return ref, forest_to_xml(forest), forest
        except (TFRecordError, ExperienceError) as err:
            raise ExperienceError(f"{where} (episode {episode_id}), observation {i}: {err}") from None

    steps = []
    for i, raw in enumerate(actions):
        native = _text(raw, f"{where}: action {i}")
        try:
            action = parse_action(native)
            if action.point is not None:  # a click's or long press's, on the screen it was taken on
                on_screen(action.point, sizes[i], "the action's x, y")
        except ExperienceError as err:
            raise ExperienceError(f"{where} (episode {episode_id}), step {i}: {err}") from None
        ref, ui, forest = observation(i)
        boxes: list[Box] = []
        if forest is not None and action.action in ("click", "long_press") and action.point is not None:
            boxes = candidate_boxes(forest, action.point)
        instruction = _text(instructions[i], f"{where}: step instruction {i}") if instructions is not None else None
        try:
            steps.append(ExpertStep(action, tuple(boxes), ref, ui, None, instruction, native))
        except ExperienceError as err:
            raise ExperienceError(f"{where} (episode {episode_id}), step {i}: {err}") from None
    final_ref = f"{shard}#{index}/{n_obs - 1}" if shots is not None else None
    if terminate:
        _, ui, _ = observation(n_obs - 1)
        steps.append(ExpertStep(UIAction("terminate", status="success"), (), final_ref, ui))
    meta: dict[str, Any] = {"episode_id": episode_id, "shard": shard, "record": index}
    if len(set(sizes)) > 1:
        meta["screens"] = [list(s) for s in sizes]
    app = next((s.action.text for s in steps if s.action.action == "open"), None)
    goal_text = _text(goal[0], f"{where}: goal")
    try:
        return Experience(
            str(episode_id),
            goal_text,
            tuple(steps),
            sizes[0],
            source="androidcontrol",
            app=app,
            final_screenshot=final_ref,
            meta=meta,
        )
    except ExperienceError as err:
        raise ExperienceError(f"{where} (episode {episode_id}): {err}") from None


def iter_androidcontrol(
    path: str | Path,
    *,
    split: str | None = None,
    splits: str | Path | None = None,
    limit: int | None = None,
    verify: bool = True,
    with_ui: bool = True,
    terminate: bool = False,
) -> Iterator[Experience]:
    """:func:`read_androidcontrol`, one episode at a time."""
    files = shard_files(path)
    wanted = _split_ids(files, split, splits) if split is not None else None
    n = 0
    for f in files:
        shard = os.path.abspath(f)
        for index, data in enumerate(read_records(f, verify=verify)):
            if limit is not None and n >= limit:
                return
            try:
                ex = parse_example(data)
            except TFRecordError as err:
                raise ExperienceError(f"{shard}: record {index}: not a tf.train.Example ({err})") from None
            if wanted is not None:
                ids = _values(ex, "episode_id", "int64", f"{shard}: record {index}")
                if not ids or ids[0] not in wanted:
                    continue
            e = _episode(ex, shard, index, with_ui=with_ui, terminate=terminate)
            if e is not None:
                n += 1
                yield e


def read_androidcontrol(
    path: str | Path,
    *,
    split: str | None = None,
    splits: str | Path | None = None,
    limit: int | None = None,
    verify: bool = True,
    with_ui: bool = True,
    terminate: bool = False,
) -> list[Experience]:
    """AndroidControl episodes from shards (a file, a glob or a directory).

    ``split`` keeps the episodes of one split of ``splits`` (default: ``splits.json`` beside the
    shards, then ``test_subsplits.json``); ``limit`` stops after that many episodes; ``verify``
    checks every record's data CRC; ``with_ui=False`` skips the forests (no ``ui``, no ``boxes``);
    ``terminate`` appends a ``terminate(success)`` step.
    """
    return list(
        iter_androidcontrol(
            path, split=split, splits=splits, limit=limit, verify=verify, with_ui=with_ui, terminate=terminate
        )
    )


@lru_cache(maxsize=2)
def _screenshots(shard: str, stamp: tuple[int, int], index: int) -> tuple[bytes, ...]:
    ex = parse_example(read_record(shard, index))
    return tuple(_values(ex, "screenshots", "bytes", f"{shard}: record {index}") or ())


def load_screenshot(ref: str) -> bytes:
    """The PNG bytes a step's ``screenshot`` reference (``"<shard>#<record>/<observation>"``)
    names. A gzip shard is read from its start up to that record; the last two episodes' images
    stay cached, so loading an episode's screenshots in turn reads the shard once.

    It opens the shard the reference names: a reference read from a file is checked before it
    gets here (:func:`~gui_gym.experience.readers.read_gui_gym` keeps the shard inside the data
    file's folder; :func:`read_androidcontrol` names the shards it was given)."""
    parts = split_reference(ref)
    if parts is None:
        raise ExperienceError(f"{ref!r} is not a screenshot reference (<shard>#<record>/<observation>)")
    shard, index, obs = parts
    p = Path(shard)
    if not p.is_file():
        raise FileNotFoundError(f"{shard}: no such shard (screenshot {ref!r})")
    st = p.stat()
    shots = _screenshots(shard, (st.st_mtime_ns, st.st_size), int(index))
    if int(obs) >= len(shots):
        raise ExperienceError(f"{ref!r}: the episode has {len(shots)} screenshots")
    return shots[int(obs)]


def encode_episode(
    episode_id: int,
    goal: str,
    actions: Sequence[Mapping[str, Any] | str],
    *,
    step_instructions: Sequence[str] | None = None,
    screenshots: Sequence[bytes] | None = None,
    sizes: Sequence[tuple[int, int]] | None = None,
    forests: Sequence[Mapping[str, Any] | bytes] | None = None,
) -> bytes:
    """One episode as AndroidControl's ``tf.train.Example`` (for fixtures and exports):
    ``len(actions) + 1`` observations, each ``sizes`` entry (default 1080×2400); features left
    ``None`` are left out."""
    n = len(actions) + 1
    sizes = list(sizes) if sizes is not None else [(1080, 2400)] * n
    features: dict[str, Feature | list[Any]] = {
        "episode_id": Feature("int64", [int(episode_id)]),
        "goal": [goal],
        "screenshot_widths": Feature("int64", [w for w, _ in sizes]),
        "screenshot_heights": Feature("int64", [h for _, h in sizes]),
        "actions": Feature("bytes", [a if isinstance(a, str) else json.dumps(a) for a in actions]),
    }
    if step_instructions is not None:
        features["step_instructions"] = Feature("bytes", list(step_instructions))
    if screenshots is not None:
        features["screenshots"] = Feature("bytes", list(screenshots))
    if forests is not None:
        features["accessibility_trees"] = Feature(
            "bytes", [f if isinstance(f, bytes) else encode_forest(f) for f in forests]
        )
    return encode_example(features)
