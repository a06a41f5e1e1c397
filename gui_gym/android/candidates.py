"""The admissible actions on a screen, read from what the agent sees.

A candidate-action policy does not write free text: it chooses among the actions a person
could take on the visible screen. :func:`candidate_actions` lists them from the observation
alone (the UI dump in ``obs["ui"]``: uiautomator XML or any compressed format of
:mod:`gui_gym.android.compressed`; and the instruction), never from hidden task parameters or
env state:

- tap each clickable element, long-press each long-clickable one and each text field (an
  EditText's long press opens the text-selection toolbar: Cut, Copy, Paste, Select all);
- swipe each scrollable element in four directions, and the screen up and down;
- type each candidate string of the instruction (quoted text, names, a text after a colon,
  file names, numbers), when the screen has a text field;
- Enter (with a text field), Back, Home, launch each app;
- finish, declare the task infeasible, and answer with each text the screen shows.

Each :class:`Candidate` has the action in the env's text syntax and a short natural-language
``label`` ("tap \\"Dark theme\\"") that a sentence encoder reads.

Example:
    >>> import gymnasium as gym, gui_gym
    >>> env = gym.make("GuiAndroid-v0", task="SystemWifiTurnOn")
    >>> obs, info = env.reset(seed=0)
    >>> cands = candidate_actions(obs)
    >>> [c.label for c in cands if c.kind == "launch"][:2]
    ['launch Contacts', 'launch Simple SMS Messenger']
    >>> env.unwrapped.oracle_action() in {c.action for c in cands}
    True

    MobileRL's format gives the same elements, its 0-999 bounds scaled back to pixels (the icon
    is [820,820][1070,1100] in the dump):

    >>> env = gym.make("GuiAndroid-v0", task="SystemWifiTurnOn", ui_format="compressed")
    >>> obs, info = env.reset(seed=0)
    >>> [c.action for c in candidate_actions(obs) if c.label == 'tap "Settings Settings"']
    ['do(action="Tap", element=[820,820,1070,1098])']
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from typing import Any, NamedTuple

from gui_gym.android.actions import Action, contract_kind, format_action
from gui_gym.android.compressed import detect_format, is_system_bounds, parse_compressed
from gui_gym.android.sim.apps import APPS as _DEVICE_APPS
from gui_gym.android.ui import SYSTEM_IDS, SYSTEM_PACKAGE
from gui_gym.core.family import Candidate

__all__ = ["APPS", "KINDS", "Candidate", "ScreenElement", "candidate_actions", "instruction_strings", "parse_screen"]

#: The apps of the simulated phone (``Launch`` targets); pass ``apps=`` for another device.
APPS = tuple(app.label for app in _DEVICE_APPS.values())
#: Candidate kinds, in the order :func:`candidate_actions` lists them.
KINDS = ("tap", "long_press", "swipe", "type", "enter", "back", "home", "launch", "finish", "infeasible", "answer")

_BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")
_LINE = re.compile(r"^(?P<indent>\s*)\[\d+\]\s+(?P<cls>\S+)(?P<rest>.*)$")
_QUOTED = re.compile(r'"([^"]*)"')
_DESC = re.compile(r'desc="([^"]*)"')
_ID = re.compile(r"\bid=(\S+)")
_FLAG_TOKEN = re.compile(r"[a-z-]+(?:,[a-z-]+)*")


class ScreenElement(NamedTuple):
    """One node of the visible UI: what the dump says about it."""

    text: str
    desc: str
    cls: str
    rid: str
    bounds: tuple[int, int, int, int]
    clickable: bool
    long_clickable: bool
    scrollable: bool
    editable: bool
    system: bool
    #: The text a person reads on it: its own text or description, else its children's.
    label: str
    #: Texts of its descendants that the format folded into it (MobileRL's ``|`` pieces).
    folded: tuple[str, ...] = ()


def parse_screen(ui: str) -> list[ScreenElement]:
    """The elements of a uiautomator XML dump or a compressed tree, in document order.

    Text that is neither gives ``[]`` (a pixels-only or unknown observation has no elements).

    >>> [(e.cls, e.label, e.bounds, e.clickable) for e in parse_screen("TextView;click;Clock;[10,520][260,800]")]
    [('TextView', 'Clock', (10, 520, 260, 800), True)]
    """
    text = (ui or "").strip()
    if text.startswith("<"):
        return _from_xml(text)
    fmt = detect_format(text)
    if fmt == "indexed":
        return _from_compressed(text)
    if fmt is not None:
        return _from_mobilerl(text)
    return []


def _from_xml(text: str) -> list[ScreenElement]:
    try:
        root = ET.fromstring(text)
    except ET.ParseError:
        return []
    out: list[ScreenElement] = []

    def visit(node: ET.Element) -> str:
        children = [visit(child) for child in node if child.tag == "node"]
        own = (node.get("text") or "").strip() or (node.get("content-desc") or "").strip()
        label = own or " ".join(c for c in children if c)[:120]
        m = _BOUNDS.fullmatch(node.get("bounds", ""))
        if m:
            rid = (node.get("resource-id") or "").rsplit("/", 1)[-1]
            cls = (node.get("class") or "").rsplit(".", 1)[-1]
            out.append(
                ScreenElement(
                    text=(node.get("text") or "").strip(),
                    desc=(node.get("content-desc") or "").strip(),
                    cls=cls,
                    rid=rid,
                    bounds=tuple(int(v) for v in m.groups()),  # type: ignore[arg-type]
                    clickable=node.get("clickable") == "true",
                    long_clickable=node.get("long-clickable") == "true",
                    scrollable=node.get("scrollable") == "true",
                    editable=cls == "EditText",
                    system=node.get("package") == SYSTEM_PACKAGE or rid in SYSTEM_IDS,
                    label=label,
                )
            )
        return label

    for node in root:
        if node.tag == "node":
            visit(node)
    # Children were appended before their parents; restore document (reading) order.
    return sorted(out, key=lambda e: (e.bounds[1], e.bounds[0], -(e.bounds[3] - e.bounds[1])))


def _from_compressed(text: str) -> list[ScreenElement]:
    rows: list[tuple[int, dict[str, Any]]] = []
    for line in text.splitlines():
        m = _LINE.match(line)
        if not m:
            continue
        rest = m.group("rest")
        b = _BOUNDS.search(rest)
        if not b:
            continue
        head = rest[: b.start()]
        desc_m = _DESC.search(head)
        without_desc = _DESC.sub("", head)
        text_m = _QUOTED.search(without_desc)
        id_m = _ID.search(head)
        flags = {f for tok in _QUOTED.sub("", head).split() if _FLAG_TOKEN.fullmatch(tok) for f in tok.split(",")}
        rid = id_m.group(1) if id_m else ""
        rows.append(
            (
                len(m.group("indent")),
                {
                    "text": text_m.group(1) if text_m else "",
                    "desc": desc_m.group(1) if desc_m else "",
                    "cls": m.group("cls"),
                    "rid": rid,
                    "bounds": tuple(int(v) for v in b.groups()),
                    "clickable": "clickable" in flags,
                    "long_clickable": "long-clickable" in flags,
                    "scrollable": "scrollable" in flags,
                    "editable": m.group("cls") == "EditText",
                    "system": rid in SYSTEM_IDS
                    or bool(re.search(r"Battery|Wi-Fi (on|off)|Bluetooth (on|off)", desc_m.group(1) if desc_m else "")),
                },
            )
        )
    out = []
    for i, (indent, row) in enumerate(rows):
        own = row["text"] or row["desc"]
        if not own:  # a container reads as its indented children
            kids = []
            for depth, child in rows[i + 1 :]:
                if depth <= indent:
                    break
                kids.append(child["text"] or child["desc"])
            own = " ".join(k for k in kids if k)[:120]
        out.append(ScreenElement(label=own, **row))
    return out


def _from_mobilerl(text: str) -> list[ScreenElement]:
    """MobileRL's formats: no resource ids or packages, so the system bars are told by place."""
    nodes = parse_compressed(text)
    out = []
    for i, n in enumerate(nodes):
        label = " ".join(t for t in (n.text.strip(), n.desc, *n.folded) if t)
        if not label:  # a container reads as its indented children
            kids = []
            for child in nodes[i + 1 :]:
                if child.depth <= n.depth:
                    break
                kids.append(child.text or child.desc or " ".join(child.folded))
            label = " ".join(k for k in kids if k)
        out.append(
            ScreenElement(
                text=n.text.strip(),
                desc=n.desc,
                cls=n.cls,
                rid="",
                bounds=n.bounds,
                clickable="click" in n.flags,
                long_clickable="long-click" in n.flags,
                scrollable="scroll" in n.flags,
                editable=n.cls == "EditText",
                system=is_system_bounds(n.bounds),
                label=label.strip()[:120],
                folded=n.folded,
            )
        )
    return out


_CAPITALISED = re.compile(r"\b([A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,3})")
_FILENAME = re.compile(r"\b[\w-]+\.(?:md|txt|pdf|jpg|png|mp3|csv)\b")
_NUMBER = re.compile(r"(?<![\w.])\d[\d:.,/-]*\d(?![\w])|(?<![\w.])\d(?![\w.])")
_AFTER_COLON = re.compile(r":\s*(.+?)\s*$")
_PHONE = re.compile(r"(?<![\w+])\+?\d{1,3}[ -]\d{3}[ -]\d{3}[ -]?\d{4}\b")
# Sentence-initial verbs and question words are capitalised but are not names to type.
_STOP = {
    *("Add", "Delete", "Turn", "Mark", "Open", "Send", "Create"),
    *("What", "Which", "How", "When", "Who", "Answer", "I"),
}


def instruction_strings(instruction: str, limit: int = 12) -> list[str]:
    """Strings of the instruction an agent might type: quoted text, a text after a colon (with and
    without its full stop), names (capitalised words), phone numbers with their country code, the
    words of a two- or three-word name, file names and numbers, longest first within each kind.

    >>> instruction_strings('Add a task "Buy groceries" to my to-do list in Tasks.')
    ['Buy groceries', 'Tasks']
    >>> instruction_strings("Send a text message to Ethan Moreau with message: See you at 5.")
    ['See you at 5', 'See you at 5.', 'Ethan Moreau', 'Ethan', 'Moreau']
    >>> instruction_strings("Create a new contact for Maya Garcia. Their number is +1 217-555-8097.")[2:5]
    ['+1 217-555-8097', 'Maya', 'Garcia']
    """
    text = instruction or ""
    found: list[str] = []
    found += [q.strip() for q in re.findall(r"[\"“‘']([^\"”’']{1,80})[\"”’']", text)]
    m = _AFTER_COLON.search(text)
    if m:
        found.append(m.group(1).rstrip("."))
        if m.group(1).endswith("."):  # a sentence to type keeps its full stop
            found.append(m.group(1))
    names = []
    for name in _CAPITALISED.findall(text):
        words = name.split()
        while words and words[0] in _STOP:
            words = words[1:]
        if words and not any(" ".join(words) in q for q in found):  # not a piece of a quoted text
            names.append(" ".join(words))
    found += sorted(set(names), key=lambda s: (-len(s), text.index(s)))
    found += _PHONE.findall(text)  # a phone number with its country code, as a form takes it
    # a person's first and last name, for forms with a field each
    found += [w for n in names if 2 <= len(n.split()) <= 3 for w in n.split() if len(w) > 1]
    found += _FILENAME.findall(text)
    found += _NUMBER.findall(text)
    out: list[str] = []
    for s in found:
        s = s.strip()
        if s and s not in out and len(s) <= 80:
            out.append(s)
    return out[:limit]


def _name(e: ScreenElement) -> str:
    label = e.label or e.rid.replace("_", " ") or e.cls
    return f'"{label[:60]}"' if label else e.cls


def candidate_actions(
    obs: dict[str, Any] | str,
    apps: Sequence[str] = APPS,
    max_candidates: int = 96,
    max_answers: int = 24,
) -> list[Candidate]:
    """The admissible actions on this screen (see the module docstring), deduplicated.

    ``obs`` is the env's observation dict (``"ui"`` and ``"instruction"``) or a UI dump. The
    list is deterministic for a given observation and never longer than ``max_candidates``;
    finish, infeasible, Back and Home are always on it.
    """
    ui = obs.get("ui", "") if isinstance(obs, dict) else str(obs)
    instruction = str(obs.get("instruction", "")) if isinstance(obs, dict) else ""
    elements = parse_screen(ui)
    app_elements = [e for e in elements if not e.system]
    out: list[Candidate] = []
    seen: set[str] = set()

    def add(action: Action, kind: str, label: str) -> None:
        # AndroidLab syntax has no infeasible status (it writes finish(message="infeasible"), which
        # the env reads as an answer): declare it in AndroidWorld's JSON, as the task oracles do.
        text = format_action(action, "androidworld" if action.kind == "status" else "androidlab")
        if text not in seen:
            seen.add(text)
            out.append(Candidate(text, kind, label, contract_kind(action)))

    for e in app_elements:
        if e.clickable:
            add(Action("tap", element=e.bounds), "tap", f"tap {_name(e)}")
    for e in app_elements:
        if e.long_clickable or e.editable:
            add(Action("long_press", element=e.bounds), "long_press", f"long press {_name(e)}")
    for e in app_elements:
        if e.scrollable:
            for d in ("up", "down", "left", "right"):
                add(Action("swipe", direction=d, dist="long", element=e.bounds), "swipe", f"swipe {d} on {_name(e)}")
    for d in ("up", "down"):
        add(Action("swipe", direction=d, dist="medium"), "swipe", f"swipe {d}")
    editable = any(e.editable for e in app_elements)
    if editable:
        for s in instruction_strings(instruction):
            add(Action("type", text=s), "type", f'type "{s}"')
        add(Action("enter"), "enter", "press Enter")
    add(Action("back"), "back", "go back")
    add(Action("home"), "home", "go to the home screen")
    for app in apps:
        add(Action("launch", app=app), "launch", f"launch {app}")
    add(Action("finish"), "finish", "finish: the task is done")
    add(Action("status", goal_status="infeasible"), "infeasible", "declare the task infeasible")
    answers = 0
    for e in app_elements:
        for value in (e.text, e.desc, *e.folded):
            if answers >= max_answers or not value or len(value) > 80 or value in ("complete", "infeasible"):
                continue
            before = len(out)
            add(Action("answer", text=value), "answer", f'answer "{value}"')
            answers += len(out) - before
    if len(out) > max_candidates:  # keep the fixed actions; drop the last screen-derived ones
        fixed = {"back", "home", "launch", "finish", "infeasible"}
        keep_fixed = [c for c in out if c.kind in fixed]
        rest = [c for c in out if c.kind not in fixed][: max(0, max_candidates - len(keep_fixed))]
        rest_set = set(rest)
        out = [c for c in out if c in rest_set or c.kind in fixed]
    return out
