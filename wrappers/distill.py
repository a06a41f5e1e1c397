"""The built-in milestone generator Φ: milestones distilled from successful trajectories, no LLM.

ADMIRE §3.1 abstracts a successful trajectory into milestones with an LLM: initialised from an
exemplar (Eq. 6, prompt P_init, Fig. 14) and refined when a new successful trajectory shows a
better path (Eq. 7, prompt P_update, Fig. 15). The prompts ask for *essential* steps only, short,
non-overlapping, in order, with task values replaced by placeholders. This module does the same
with rules over what every env reports (``format_valid``, ``action_kind``, ``action_description``
and the observation digests the recorder keeps), one pure function per stage, for any family:

1. :func:`clean_steps` drops invalid steps, terminal/answer/wait steps, steps that changed
   nothing, loops (the screen came back to where it was), excursions (navigation elsewhere and
   back), and navigation that returned to a screen seen before;
2. :func:`abstract_steps` puts ``<Slot>`` placeholders in place of the instance's values;
3. :func:`merge_preparations` keeps only the later of two steps on the same target
   (``Tap the "Last name" field`` prepares ``Type "<Last>" into "Last name"``);
   :func:`generalise_values` turns a slot's date written another way into the slot, and the
   dates, times and numbers left into ``<date>``, ``<time>``, ``<number>``; :func:`collapse_repeats`
   makes one step of a run of equal ones;
4. :func:`generalise_across` turns a quoted value that another successful trajectory of the task
   has in the same step with another value (the message the user sent before, found on the
   screen rather than in the instruction: no slot) into ``<text>``; :func:`recurring_steps` keeps
   the steps that recur, in order, in enough of the task's successful trajectories, so one-off
   detours and instance-specific values drop out;
5. :func:`refine` (Eq. 7) keeps the current milestones unless the new trajectory took a more
   minimal path or the current ones no longer recur.

It never reads the env's own milestone annotations (``Step.milestones``, ``progress``): adaptive
milestones must come from the agent's behaviour, not copy the static ones. Nor does it read a
family's action syntax: the kinds are the contract's (``navigate``, ``input``, ``wait`` …).

Example (a hand-built trajectory: "Tap the field" prepares the typing, the tap on the same
screen changed nothing, and "Finish" only ends the episode):

    >>> from gui_gym.core.trajectory import Step, Trajectory
    >>> def step(desc, obs, kind="interact"):
    ...     return Step(action="", action_description=desc, action_kind=kind, info={"obs": obs})
    >>> t = Trajectory("ContactsAddContact", "Add Zara Costa.", success=True, meta={
    ...     "start_obs": "home", "placeholders": {"Name": "Zara Costa", "First": "Zara"}}, steps=[
    ...     step("Launch Contacts", "list", "navigate"),
    ...     step('Tap the "Create contact" button in Contacts', "form"),
    ...     step("Tap at (3, 4)", "form"),
    ...     step('Tap the "First name" field', "form-focus"),
    ...     step('Type "Zara" into "First name"', "form-zara", "input"),
    ...     step('Tap the "Save" button to save the contact "Zara Costa" in Contacts', "saved"),
    ...     step("Finish the task", "saved", "finish")])
    >>> gen = BuiltinMilestoneGenerator()
    >>> gen(GenerationRequest(t.task_id, t.instruction, t, placeholders=t.meta["placeholders"]))
    ['Launch Contacts', 'Tap the "Create contact" button in Contacts', 'Type "<First>" into "First name"', \
'Tap the "Save" button to save the contact "<Name>" in Contacts']
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gui_gym.core import contract as C
from gui_gym.core.trajectory import Step, Trajectory
from wrappers.generation import GenerationError, GenerationRequest, abstract

__all__ = [
    "BuiltinMilestoneGenerator",
    "abstract_steps",
    "action_kind",
    "clean_steps",
    "collapse_repeats",
    "distill_trajectory",
    "generalise_across",
    "generalise_values",
    "instance_specific",
    "merge_preparations",
    "recurring_steps",
    "recurs",
    "refine",
    "signature",
]

# Actions that end the episode or let time pass: the outcome reward already credits the end,
# and waiting or looking around is not a step an agent could be credited for (the screen may
# change by itself; a text world's `look` and `inventory` change nothing).
NON_MILESTONE_KINDS = frozenset({C.FINISH, C.ANSWER, C.WAIT, C.INVALID})
_QUOTED = re.compile(r'"([^"]+)"')
_SLOT = re.compile(r"<\w+>")
_PAREN = re.compile(r"\s*\([^()]*\)")
_DATE_WORDS = re.compile(
    r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|wed|thu|fri|sat|sun|"
    r"january|february|march|april|may|june|july|august|september|october|november|december|"
    r"jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\b"
)


_MONTH_NAMES = (
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
)  # fmt: skip
_ANY_MONTH = r"(?:" + "|".join(rf"{m}|{m[:3]}" for m in _MONTH_NAMES) + r"|sept)\.?"
_WEEKDAY = r"(?:mon|tue|tues|wed|wednes|thu|thurs|fri|sat|satur|sun)(?:day)?\.?"
_ISO = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}:\d{2}))?")
_WRITTEN = re.compile(
    rf"(?<!\w)(?:{_WEEKDAY},?\s+)?({_ANY_MONTH})\s+(\d{{1,2}})(?!\d)(?:,?\s+(\d{{4}}))?(?:,?\s+(\d{{1,2}}:\d{{2}}))?",
    re.I,
)
# What is left of an instance once its slots are placeholders: the Fig. 14 prompt asks for
# "generic placeholders" in their place; these names are no slot, so they stay as they are when
# a template is filled, and matchers take them as "any value" (ADMIRE Fig. 13).
_GENERIC = (
    (re.compile(r"(?<![\w-])\d{4}-\d{1,2}-\d{1,2}(?![\w-])"), "<date>"),
    (re.compile(rf"(?<!\w)(?:{_WEEKDAY},?\s+)?{_ANY_MONTH}\s+\d{{1,2}}(?!\d)(?:,?\s+\d{{4}})?", re.I), "<date>"),
    (re.compile(rf"(?<!\w){_ANY_MONTH}\s+\d{{4}}(?!\d)", re.I), "<date>"),
    (re.compile(rf"(?<!\w){_WEEKDAY}(?!\w)", re.I), "<day>"),
    (re.compile(r"(?<![\w:])\d{1,2}:\d{2}(?![\w:])"), "<time>"),
    (re.compile(r"(?<![\w<])\+?\d+(?:[.,]\d+)*(?:[ -]\d+)*(?![\w>])"), "<number>"),
)


# ----------------------------------------------------------------------------- stage 1: clean


def action_kind(step: Step) -> str | None:
    """The contract's kind of the step's action (``interact``, ``navigate``, ``finish`` …):
    ``step.action_kind``, else ``step.info["action_kind"]``, else ``None`` (a record that does
    not say; such a step is taken for an action on the world, whatever its text)."""
    kind = step.action_kind or step.info.get(C.ACTION_KIND)
    return str(kind) if kind else None


def _hides_work(kinds: Sequence[str | None], states: Sequence[object]) -> bool:
    """Whether a loop (these steps, in order; ``states[j]`` the screen before step j and
    ``states[j + 1]`` the one after) may have done work its final screen does not show.

    - it entered text (saved somewhere: a contact added, the form empty again for the next);
    - a navigation came after work and did not just undo the one step before it: leaving the
      place (another app, the home screen) keeps what was done there while another screen shows
      (a form opened in Contacts, then the home screen), and going back past two or more steps
      undoes the step that opened the screen it leaves, not what was done there (a contact
      opened and added to favourites, then Back to the list that does not show favourites).
      A navigation that returns to the screen before the one step of work since the last
      navigation (a wrong item opened, then Back) undid that step.
    """
    done = 0  # steps other than navigation since the last navigation
    for j, kind in enumerate(kinds):
        if kind == C.INPUT:
            return True
        if kind == C.NAVIGATE:
            undoes_one = done == 1 and states[j + 1] == states[j - 1]
            if done and not undoes_one:
                return True
            done = 0
        else:
            done += 1
    return False


def clean_steps(trajectory: Trajectory) -> list[Step]:
    """The steps that moved the episode on: no invalid, terminal, no-op, looping or excursion steps.

    Rules on the contract's action kinds (``step.action_kind``) and the recorder's observation
    digests, never on a family's action syntax:

    - ``format_valid`` False or kind ``invalid``: the action changed nothing (env contract);
    - kind ``finish`` / ``answer`` / ``wait``: ending the episode is the outcome's job, and
      waiting or looking around (``look``, ``inventory``) is no step of the task;
    - a loop: the screen after step j is the one before step i ≤ j (i = j: a step that changed
      nothing), so steps i..j went nowhere: a scroll and back, a wrong item opened and closed,
      a switch toggled twice. The trajectory is walked back from its end, taking each screen at
      its first visit, so what is kept is the path that reached each screen first. A loop that
      may hide work (see ``_hides_work``) is kept;
    - an excursion: a run of navigation steps that went somewhere else and ends by repeating a
      navigation that led to the place in use (another app opened and left, then the app
      launched again). The repeat resumes the place where it was, but its screen may differ in
      a detail (the keyboard closed), which hides the loop from the digests;
    - navigation that returns to a screen seen before (Back, Home, scrolling back) took part in
      the rules above and is dropped: whatever it leads to is described by the next step, and
      another path may navigate otherwise. Navigation to a new screen (launching an app, going
      to a place, scrolling to an item) stays.

    Without observation digests (``step.info["obs"]``) only the first, second and fourth rules
    apply, and every navigation stays.
    """
    steps: list[Step] = []
    kinds: list[str | None] = []
    states: list[object] = [trajectory.meta.get("start_obs") or object()]  # object(): equal to nothing
    for step in trajectory.steps:
        kind = action_kind(step)
        if step.format_valid and kind not in NON_MILESTONE_KINDS:
            steps.append(step)
            kinds.append(kind)
            states.append(step.info.get("obs") or object())
    seen: dict[object, list[int]] = {}
    for k, state in enumerate(states):
        seen.setdefault(state, []).append(k)
    # states[k] is the screen after steps[k - 1]; walk back from the last one
    path: list[int] = []
    k = len(steps)
    while k > 0:
        loop_start = next(
            (i for i in seen[states[k]] if i == k - 1 or (i < k and not _hides_work(kinds[i:k], states[i : k + 1]))), k
        )
        if loop_start < k:
            k = loop_start  # steps loop_start..k-1 came back to this screen: skip them
        else:
            path.append(k - 1)
            k -= 1
    path.reverse()
    path = _drop_excursions(path, steps, kinds)
    return [steps[j] for j in path if kinds[j] != C.NAVIGATE or seen[states[j + 1]][0] == j + 1]


def _drop_excursions(path: list[int], steps: Sequence[Step], kinds: Sequence[str | None]) -> list[int]:
    """Drop each run of navigation steps that went somewhere else and ends by repeating a
    navigation that led to the place in use (compared by ``action_description``)."""
    out: list[int] = []
    run: list[int] = []  # navigation steps not yet followed by anything else
    place: set[str] = set()  # the navigations that led to where the last work is done
    for j in path:
        if kinds[j] == C.NAVIGATE:
            where = _where(steps[j])
            if run and where in place and any(_where(steps[r]) not in place for r in run):
                run = []  # back where it worked: the run went nowhere
            else:
                run.append(j)
            continue
        if run:  # work in a new place: that place is the one in use now, not every place seen so far
            place = {_where(steps[r]) for r in run}
        out.extend(run)
        out.append(j)
        run = []
    return out + run


def _where(step: Step) -> str:
    return " ".join(step.action_description.split()).casefold()


# ------------------------------------------------------------------------ stage 2: abstract


def abstract_steps(descriptions: Sequence[str], placeholders: Mapping[str, str]) -> list[str]:
    """Templates: each placeholder value becomes ``<Slot>`` (as :func:`abstract`, also ignoring case,
    since apps capitalise values: priority "medium" shows as "Medium"); instance details in
    parentheses that no slot covers (a phone number next to a contact, the date on a picker) are
    dropped, as the Fig. 14 prompt asks for milestones "free of specific details"."""
    values = sorted(
        ((s, v.strip()) for s, v in placeholders.items() if len(v.strip()) >= 2), key=lambda kv: -len(kv[1])
    )
    out = []
    for text in descriptions:
        text = abstract(text, placeholders)
        for slot, value in values:
            text = re.sub(rf"(?<![\w<]){re.escape(value)}(?![\w>])", f"<{slot}>", text, flags=re.I)
        text = _PAREN.sub(lambda m: m.group(0) if _SLOT.search(m.group(0)) else "", text)
        text = _QUOTED.sub(lambda m: '"' + " ".join(m.group(1).split()) + '"', text)  # typed "\\nText"
        out.append(" ".join(text.split()))
    return out


def instance_specific(template: str, placeholders: Mapping[str, str]) -> bool:
    """True if a quoted value is a part of a slot's value but no slot itself (the first name
    "Tomas" of ``<Name1>`` "Tomas Patel"): a value of this instance that no placeholder can
    carry to another, and that two instances may share by chance."""
    parts = {w.lower() for v in placeholders.values() for w in re.findall(r"[\w'.+-]+", v) if len(w) >= 2}
    return any(q in parts for q in _quoted(template) if not _SLOT.search(q))


# --------------------------------------------- stage 3: merge preparations, generalise values


def _quoted(text: str) -> set[str]:
    return {" ".join(q.split()).lower() for q in _QUOTED.findall(text) if q.strip()}


def _dates(text: str) -> set[tuple[int, int]]:
    """(month, day) of each date written out in ``text`` ("October 21, 2023", "Sat, Oct 21")."""
    return {(_month(m.group(1)), int(m.group(2))) for m in _WRITTEN.finditer(text)}


def _mentions(text: str, phrase: str) -> bool:
    text = " ".join(text.split()).lower()
    if "<" not in phrase:  # a label ("Name") is not named by a slot ("<Name>")
        text = _SLOT.sub(" ", text)
    return re.search(rf"(?<!\w){re.escape(phrase)}(?!\w)", text) is not None


def merge_preparations(descriptions: Sequence[str]) -> list[str]:
    """Drop each step whose quoted target the next step names again: it prepared that step.

    Focusing a field before typing into it (``Tap the "Last name" field``, ``Type "Costa" into
    "Last name"``), opening an item's menu before choosing an entry for the same item, typing a
    name before creating the note of that name, tapping "Priority" before setting the priority,
    picking a day in a date picker before the form shows that date (dates are values too, written
    out rather than quoted, compared by month and day):
    the later step says what the stage achieved, the earlier one was a means to it (Fig. 14:
    milestones "non-overlapping"). Chains merge into their last step. The target must reappear as
    a whole phrase; run this on templates (after :func:`abstract_steps`) so that typing the last
    name "<Last>" is not taken for a preparation of saving the contact "<Name>" that contains it.
    """
    out = []
    for i, text in enumerate(descriptions):
        if i + 1 < len(descriptions):
            nxt = descriptions[i + 1]
            if any(_mentions(nxt, q) for q in _quoted(text)) or _dates(text) & _dates(nxt):
                continue
        out.append(text)
    return out


def _month(name: str) -> int:
    return next(i for i, n in enumerate(_MONTH_NAMES) if n.startswith(name.lower()[:3]))


def _date_of(value: str) -> tuple[int, int, str | None, str | None] | None:
    """(month, day, year, time) of a slot value that is a date ("2023-10-21 10:00", "Sunday, October 29")."""
    value = value.strip()
    if m := _ISO.fullmatch(value):
        return int(m.group(2)) - 1, int(m.group(3)), m.group(1), m.group(4)
    if m := _WRITTEN.fullmatch(value):
        return _month(m.group(1)), int(m.group(2)), m.group(3), m.group(4)
    return None


def _date_pattern(month: int, day: int, year: str | None, time: str | None) -> re.Pattern[str]:
    """Any way an app writes this date (ISO, "Sat, Oct 21, 2023", "October 21"), with its time if it has one."""
    name = _MONTH_NAMES[month]
    written = rf"(?:{_WEEKDAY},?\s+)?(?:{name}|{name[:3]}{'|sept' if month == 8 else ''})\.?\s+0?{day}(?!\d)"
    written += rf"(?:,?\s+{year})?" if year else r"(?:,?\s+\d{4})?"
    iso = rf"{year}-0?{month + 1}-0?{day}" if year else rf"\d{{4}}-0?{month + 1}-0?{day}"
    rx = rf"(?<![\w-])(?:{iso}|{written})"
    if time:
        hour, minute = time.split(":")
        rx += rf"(?:,?\s+|\s+at\s+|[ T])0?{int(hour)}:{minute}"
    return re.compile(rx + r"(?![\w:])", re.I)


def generalise_values(templates: Sequence[str], placeholders: Mapping[str, str]) -> list[str]:
    """Dates that are a slot's value written another way become that slot (the app shows the
    ``<Date>`` "2023-11-26" as "Sunday, November 26, 2023"); the dates, weekdays, times and
    numbers left are this instance's details (the picker's default time, a count of tasks, a
    keypad digit) and become ``<date>``, ``<day>``, ``<time>``, ``<number>``."""
    dated = [(slot, _date_of(v)) for slot, v in placeholders.items()]
    patterns = [(slot, _date_pattern(*d)) for slot, d in sorted(dated, key=lambda x: x[1] is None or not x[1][3]) if d]
    out = []
    for text in templates:
        for slot, rx in patterns:  # with a time first: "Oct 21, 2023 10:00" is <Start>, not <Date> 10:00
            text = _slot_free_sub(rx, f"<{slot}>", text)
        for rx, generic in _GENERIC:
            text = _slot_free_sub(rx, generic, text)
        out.append(text)
    return out


def _slot_free_sub(rx: re.Pattern[str], repl: str, text: str) -> str:
    """``rx.sub`` outside the ``<Slot>`` tokens."""
    parts = re.split(r"(<\w+>)", text)
    return "".join(p if i % 2 else rx.sub(repl, p) for i, p in enumerate(parts))


def collapse_repeats(templates: Sequence[str]) -> list[str]:
    """One step for a run of steps with equal signatures (a slider scrolled twice, keypad digits):
    repeating an action is one stage, and another instance may need a different number of them.
    The last of the run is kept: it is the one that completed the stage."""
    out: list[str] = []
    for t in templates:
        if out and signature(out[-1]) == signature(t):
            out[-1] = t
        else:
            out.append(t)
    return out


def distill_trajectory(trajectory: Trajectory, placeholders: Mapping[str, str] | None = None) -> list[str]:
    """Stages 1-3 on one trajectory: its essential steps as templates, in order (Eq. 6 from one
    exemplar). ``placeholders`` default to ``trajectory.meta["placeholders"]``."""
    if placeholders is None:
        placeholders = trajectory.meta.get("placeholders") or {}
    steps = [s.action_description.strip() for s in clean_steps(trajectory)]
    templates = merge_preparations(abstract_steps([s for s in steps if s], placeholders))
    return collapse_repeats(generalise_values(templates, placeholders))


# ----------------------------------------------------------------- stage 4: recurrence filter


def signature(text: str) -> str:
    """A normalised form for comparing steps of different instances: lower case, no details in
    parentheses, digits and month/weekday names masked (dates and counts no slot covers differ
    between instances), ``<Slot>`` names kept as they are."""
    text = _PAREN.sub("", text)
    pieces = []
    for i, piece in enumerate(re.split(r"(<\w+>)", text)):
        if i % 2:
            pieces.append(piece.lower())
        else:
            pieces.append(re.sub(r"\d+", "#", _DATE_WORDS.sub("<d>", piece.lower())))
    return " ".join("".join(pieces).split()).rstrip(" .")


def _lcs_pairs(a: Sequence[str], b: Sequence[str]) -> list[tuple[int, int]]:
    """Index pairs of one longest common subsequence of ``a`` and ``b``."""
    n, m = len(a), len(b)
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            table[i][j] = table[i + 1][j + 1] + 1 if a[i] == b[j] else max(table[i + 1][j], table[i][j + 1])
    pairs, i, j = [], 0, 0
    while i < n and j < m:
        if a[i] == b[j]:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return pairs


def _needed(n: int, min_support: float) -> int:
    return max(1, math.ceil(min_support * n - 1e-9))


#: The generic placeholder of a quoted value that differs between instances and no slot covers.
TEXT = "<text>"


def generalise_across(
    reference: Sequence[str], others: Sequence[Sequence[str]], placeholders: Mapping[str, str] | None = None
) -> tuple[list[str], list[list[str]]]:
    """``reference`` and ``others`` with each quoted value of a ``reference`` step made ``<text>``
    where another path lacks that step but has it with another value there (same
    :func:`signature` otherwise): a value of the instance that no slot names (a message the task
    reads off the screen, a note's text), as :func:`generalise_values` does for dates and numbers.
    The step is rewritten in every path that has it (with either value). Quotes holding a slot
    of ``placeholders`` stay, and so does a value that every path has in that step (a label), or
    that the other path's step has as another step of ``reference`` (``Open "Display"`` on a
    detour beside ``Open "Network & internet"``: two labels, not one value)."""
    slots = set(placeholders or {})
    mine = {signature(t) for t in reference}
    ref = list(reference)
    rest = [list(o) for o in others]
    for i, text in enumerate(ref):
        for m in reversed(list(_QUOTED.finditer(text))):
            if m.group(1) == TEXT or slots & set(re.findall(r"<(\w+)>", m.group(1))):
                continue
            wild = _with_quote(text, m, TEXT)
            key, own = signature(wild), signature(text)
            edits, differs = [], False
            for k, other in enumerate(rest):
                same = [(k, j, _with_quote(step, q, TEXT)) for j, step in enumerate(other) if signature(step) == own
                        for q in _QUOTED.finditer(step) if signature(_with_quote(step, q, TEXT)) == key]  # fmt: skip
                if same:  # this path has the step as it is: it agrees
                    edits += same
                    continue
                found = [
                    (k, j, _with_quote(step, q, TEXT))
                    for j, step in enumerate(other)
                    if signature(step) not in mine  # another step of this path too ("Open "Display"")
                    for q in _QUOTED.finditer(step)
                    if signature(_with_quote(step, q, TEXT)) == key
                ]
                differs = differs or bool(found)
                edits += found
            if differs:
                text = ref[i] = wild
                for k, j, replaced in edits:
                    rest[k][j] = replaced
    return ref, rest


def _with_quote(text: str, quote: re.Match[str], value: str) -> str:
    return text[: quote.start(1)] + value + text[quote.end(1) :]


def recurring_steps(reference: Sequence[str], others: Sequence[Sequence[str]], min_support: float) -> list[str]:
    """The steps of ``reference`` that recur, aligned in order (a longest common subsequence of
    signatures), in at least ``min_support`` of all the paths (``reference`` included).

    A detour that changed state happens in one successful trajectory, not in most: it drops out.
    With no ``others`` every step is kept.
    """
    ref = [signature(t) for t in reference]
    support = [1] * len(ref)
    for other in others:
        for i, _ in _lcs_pairs(ref, [signature(t) for t in other]):
            support[i] += 1
    need = _needed(1 + len(others), min_support)
    return [t for t, c in zip(reference, support, strict=True) if c >= need]


def recurs(milestones: Sequence[str], paths: Sequence[Sequence[str]], min_support: float) -> bool:
    """Whether every milestone recurs, in order, in at least ``min_support`` of the paths."""
    if not paths:
        return False
    sigs = [signature(m) for m in milestones]
    hits = sum(len(_lcs_pairs(sigs, [signature(t) for t in p])) == len(sigs) for p in paths)
    return hits >= _needed(len(paths), min_support)


# ------------------------------------------------------------------------- stage 5: refine


def refine(
    current: Sequence[str],
    path: Sequence[str],
    candidate: Sequence[str],
    paths: Sequence[Sequence[str]],
    min_support: float,
) -> list[str]:
    """Eq. 7: switch to ``candidate`` (the recurring steps of the new trajectory's ``path``) only if
    that path is more minimal than the current milestones (strictly fewer steps: a shortcut, or
    detours left out) or ``current`` no longer recurs in the successful ``paths``; otherwise keep
    ``current`` unchanged (Fig. 15: "by default, assume the current milestones are already
    sufficient"). A longer alternative route does not thin the milestones out."""
    if len(path) < len(current) or not recurs(current, paths, min_support):
        return list(candidate)
    return list(current)


# ------------------------------------------------------------------------------- generator


@dataclass
class BuiltinMilestoneGenerator:
    """Φ without an LLM (ADMIRE §3.1, Eq. 6-7), a :class:`wrappers.generation.MilestoneGenerator`.

    Args:
        min_support: the share of the successful trajectories considered (the new one included)
            a step must recur in to stay a milestone: with two or three trajectories, all of them;
            with nine, seven. With one trajectory every distilled step stays. High by default,
            since a milestone that some good path skips stops the matcher's pointer (Eq. 9) and
            with it every later milestone; too few milestones only make the reward sparser.
        max_history: how many of the latest ``request.history`` trajectories are considered.

    With ``request.current`` empty the milestones are the new trajectory's recurring steps
    (Eq. 6); otherwise these replace the current ones only as :func:`refine` allows (Eq. 7).
    Raises :class:`GenerationError` when nothing is left.
    """

    min_support: float = 0.75
    max_history: int = 8

    def __post_init__(self) -> None:
        if not 0.0 < self.min_support <= 1.0:
            raise ValueError(f"min_support must lie in (0, 1], got {self.min_support}")
        if self.max_history < 0:
            raise ValueError(f"max_history must be >= 0, got {self.max_history}")

    def __call__(self, request: GenerationRequest) -> list[str]:
        placeholders = request.placeholders or request.trajectory.meta.get("placeholders") or {}
        path = distill_trajectory(request.trajectory, placeholders)
        history = list(request.history[-self.max_history :]) if self.max_history else []
        others = [distill_trajectory(t) for t in history]
        if others:
            # A value that is only part of a slot (a first name) cannot be told from a chance
            # coincidence between instances: across instances such steps do not generalise.
            path = [t for t in path if not instance_specific(t, placeholders)]
            path, others = generalise_across(path, others, placeholders)
        candidate = recurring_steps(path, others, self.min_support)
        if not candidate:
            raise GenerationError(
                f"no milestone for {request.task_id}: none of the {len(path)} distilled steps of the new trajectory "
                f"recurs in {self.min_support:.0%} of {1 + len(others)} successful trajectories"
            )
        if not request.current:
            return candidate
        return refine(request.current, path, candidate, [path, *others], self.min_support)
