"""ALFWorld's game files read as data: the PDDL problem of a ``game.tw-pddl`` and what it says.

An ALFWorld game file (``game.tw-pddl``) is a JSON object holding the PDDL domain
(``alfred.pddl``), the text grammar (``alfred.twl2``), the PDDL problem of one household and task,
whether it is solvable, and an expert walkthrough. :func:`read_game` reads one into a
:class:`GameFile`; :func:`parse_problem` turns the problem's text into a :class:`Problem`: its
typed objects, its initial facts and its goal. Nothing here is evaluated or run: PDDL is read as
nested lists of words, and anything else is refused with the file named.

Example:
    >>> p = parse_problem('''(define (problem p) (:domain alfred)
    ...   (:objects agent1 - agent Egg_bar_1 - object CounterTop_bar_2 - receptacle)
    ...   (:init (objectType Egg_bar_1 EggType) (atLocation agent1 loc_3))
    ...   (:goal (and (isHot Egg_bar_1))))''')
    >>> p.name, p.objects["Egg_bar_1"], sorted(p.init)[0]
    ('p', 'object', ('atlocation', 'agent1', 'loc_3'))
    >>> p.goal
    ('and', ('ishot', 'Egg_bar_1'))
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeAlias

from gui_gym.core.io import CorruptFileError, read_json

__all__ = [
    "GameFile",
    "PddlError",
    "Problem",
    "format_goal",
    "format_problem",
    "parse_problem",
    "parse_sexpr",
    "read_game",
]

#: A parsed S-expression: a word, or a list of them.
SExpr: TypeAlias = "str | list[SExpr]"
#: The keys a ``game.tw-pddl`` file holds (``walkthrough`` and ``solvable`` may be absent).
GAME_KEYS = ("pddl_domain", "grammar", "pddl_problem")
MAX_DEPTH = 200  # deeper nesting than any PDDL problem has is refused, not recursed into
MAX_CHARS = 5_000_000


class PddlError(ValueError):
    """PDDL text that cannot be read: unbalanced parentheses, a missing section, a bad shape."""


@dataclass(frozen=True)
class Problem:
    """A PDDL problem: ``objects`` maps each object to its type; ``init`` holds the initial facts
    as tuples ``(predicate, arg, ...)`` with the predicate lower-cased (PDDL names are
    case-insensitive; ALFWorld's arguments keep their case); ``goal`` is the goal formula as
    nested tuples, operators and predicates lower-cased (``("and", ("ishot", "Egg_1"))``)."""

    name: str
    domain: str
    objects: dict[str, str]
    init: frozenset[tuple[str, ...]]
    goal: tuple[Any, ...]

    def facts(self, predicate: str) -> list[tuple[str, ...]]:
        """The initial facts of ``predicate`` (any case), without the predicate, sorted."""
        p = predicate.lower()
        return sorted(f[1:] for f in self.init if f[0] == p)


@dataclass(frozen=True)
class GameFile:
    """One ``game.tw-pddl``: the PDDL domain and grammar texts, the parsed problem, and the
    expert walkthrough (commands in the file's grammar) when the file has one."""

    path: str
    domain: str
    grammar: str
    problem: Problem
    solvable: bool | None = None
    walkthrough: tuple[str, ...] = field(default_factory=tuple)


def parse_sexpr(text: str) -> list[SExpr]:
    """The top-level S-expressions of ``text``: words and parenthesised lists; ``;`` starts a
    comment that runs to the end of the line. Raises :class:`PddlError` on unbalanced
    parentheses or nesting deeper than :data:`MAX_DEPTH`."""
    if len(text) > MAX_CHARS:
        raise PddlError(f"PDDL text of {len(text)} characters; the limit is {MAX_CHARS}")
    stack: list[list[SExpr]] = [[]]
    word: list[str] = []

    def flush() -> None:
        if word:
            stack[-1].append("".join(word))
            word.clear()

    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == ";":
            flush()
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if c == "(":
            flush()
            if len(stack) > MAX_DEPTH:
                raise PddlError(f"PDDL nested deeper than {MAX_DEPTH} levels")
            stack.append([])
        elif c == ")":
            flush()
            if len(stack) == 1:
                raise PddlError(f"unbalanced ')' at character {i}")
            done = stack.pop()
            stack[-1].append(done)
        elif c.isspace():
            flush()
        else:
            word.append(c)
        i += 1
    flush()
    if len(stack) != 1:
        raise PddlError(f"{len(stack) - 1} '(' left open at the end of the text")
    return stack[0]


def parse_problem(text: str) -> Problem:
    """A :class:`Problem` from the text of a PDDL ``(define (problem ...) ...)``."""
    forms = parse_sexpr(text)
    if len(forms) != 1 or not isinstance(forms[0], list) or not forms[0] or _word(forms[0][0]) != "define":
        raise PddlError("a PDDL problem is one (define (problem NAME) ...) form")
    define = forms[0]
    header = define[1] if len(define) > 1 else None
    if not (isinstance(header, list) and len(header) == 2 and _word(header[0]) == "problem"):
        raise PddlError("the problem has no (problem NAME) header")
    sections = {_word(s[0]): s[1:] for s in define[2:] if isinstance(s, list) and s and isinstance(s[0], str)}
    for needed in (":objects", ":init", ":goal"):
        if needed not in sections:
            raise PddlError(f"the problem has no {needed} section")
    domain = sections.get(":domain", [""])
    goal = sections[":goal"]
    if len(goal) != 1 or not isinstance(goal[0], list):
        raise PddlError("(:goal ...) holds one formula")
    init = []
    for fact in sections[":init"]:
        if not (isinstance(fact, list) and fact and all(isinstance(w, str) for w in fact)):
            raise PddlError(f"an :init fact must be (predicate arg ...), got {_show(fact)}")
        init.append((fact[0].lower(), *fact[1:]))  # type: ignore[union-attr]
    return Problem(
        name=str(header[1]),
        domain=str(domain[0]) if domain and isinstance(domain[0], str) else "",
        objects=_typed(sections[":objects"]),
        init=frozenset(init),  # type: ignore[arg-type]
        goal=_formula(goal[0]),
    )


def read_game(path: str | os.PathLike[str]) -> GameFile:
    """Read a ``game.tw-pddl`` file. FileNotFoundError if there is none; :class:`CorruptFileError`
    naming the file if it is not such a file (not JSON, keys missing, PDDL that cannot be read)."""
    data = read_json(path, "ALFWorld game file (game.tw-pddl)")
    where = str(Path(path))
    if not isinstance(data, dict):
        raise CorruptFileError(f"{where}: an ALFWorld game file holds a JSON object, not {type(data).__name__}")
    missing = [k for k in GAME_KEYS if not isinstance(data.get(k), str)]
    if missing:
        raise CorruptFileError(f"{where}: not an ALFWorld game file: no text under {', '.join(missing)}")
    walkthrough = data.get("walkthrough") or []
    if not (isinstance(walkthrough, list) and all(isinstance(c, str) for c in walkthrough)):
        raise CorruptFileError(f"{where}: 'walkthrough' must be a list of commands")
    solvable = data.get("solvable")
    try:
        problem = parse_problem(data["pddl_problem"])
    except PddlError as e:
        raise CorruptFileError(f"{where}: its pddl_problem cannot be read: {e}") from None
    return GameFile(
        path=where,
        domain=data["pddl_domain"],
        grammar=data["grammar"],
        problem=problem,
        solvable=solvable if isinstance(solvable, bool) else None,
        walkthrough=tuple(walkthrough),
    )


# -- writing -------------------------------------------------------------------------------------

#: The domain's predicates as ``alfred.pddl`` spells them (alfworld/data/alfred.pddl:20-52), in the
#: order the data set's problems list their facts (receptacleType first, objectAtLocation last).
#: :class:`Problem` keeps predicates lower-cased; writing restores this spelling.
PREDICATES = (
    "receptacleType",
    "objectType",
    "canContain",
    "pickupable",
    "isReceptacleObject",
    "openable",
    "atLocation",
    "opened",
    "cleanable",
    "isClean",
    "heatable",
    "coolable",
    "isHot",
    "isCool",
    "toggleable",
    "isOn",
    "isToggled",
    "sliceable",
    "isSliced",
    "inReceptacle",
    "inReceptacleObject",
    "isReceptacleObjectFull",
    "wasInReceptacle",
    "receptacleAtLocation",
    "objectAtLocation",
    "holdsAny",
    "holds",
    "holdsAnyReceptacleObject",
    "moveable",
    "full",
    "checked",
    "examined",
)
_SPELLING = {p.lower(): p for p in PREDICATES}
_FACT_ORDER = {p.lower(): i for i, p in enumerate(PREDICATES)}
#: Object kinds in the order the data set declares them; ``agent`` names come first, unindented.
_KIND_ORDER = ("agent", "otype", "rtype", "object", "receptacle", "location")
_INDENT = " " * 8


def format_problem(problem: Problem) -> str:
    """The PDDL text of ``problem``, laid out like ALFWorld's ``initial_state.pddl``: objects
    grouped by kind (agent, otype, rtype, object, receptacle, location; names sorted), facts in
    the data set's predicate order (sorted within one), then the goal. What it writes reads back
    through :func:`parse_problem` to an equal :class:`Problem`; TextWorld and fast-downward read it."""
    lines = [f"(define (problem {problem.name})"]
    if problem.domain:
        lines.append(f"(:domain {problem.domain})")
    lines.append("(:objects")
    kinds = sorted(set(problem.objects.values()), key=lambda k: (_rank(_KIND_ORDER, k), k))
    for kind in kinds:
        pad = "" if kind == "agent" else _INDENT
        lines += [f"{pad}{n} - {kind}" for n in sorted(n for n, k in problem.objects.items() if k == kind)]
    lines += [f"{_INDENT})", "", "(:init"]
    facts = sorted(problem.init, key=lambda f: (_FACT_ORDER.get(f[0], len(_FACT_ORDER)), f))
    lines += [f"{_INDENT}({' '.join((_SPELLING.get(f[0], f[0]), *f[1:]))})" for f in facts]
    lines += [f"{_INDENT})", "", format_goal(problem.goal), ")", ""]
    return "\n".join(lines)


def format_goal(formula: tuple[Any, ...]) -> str:
    """``(:goal ...)`` holding ``formula`` (a goal as :func:`parse_problem` gives it), one
    sub-formula a line, indented four spaces a level as in alfworld/gen/goal_library.py."""
    return "(:goal\n" + _format_formula(formula, 1) + "\n)"


def _format_formula(f: tuple[Any, ...], level: int) -> str:
    pad = "    " * level
    head = f[0]
    if head in ("exists", "forall"):
        variables = " ".join(f"{v} - {t}" for v, t in f[1].items())
        return f"{pad}({head} ({variables})\n{_format_formula(f[2], level + 1)}\n{pad})"
    if head in _OPERATORS:
        if head == "not" and len(f) == 2 and f[1][0] not in _OPERATORS:
            return f"{pad}(not {_format_formula(f[1], 0)})"
        inner = "\n".join(_format_formula(x, level + 1) for x in f[1:])
        return f"{pad}({head}\n{inner}\n{pad})"
    return f"{pad}({' '.join((_SPELLING.get(head, head), *f[1:]))})"


def _rank(order: tuple[str, ...], item: str) -> int:
    return order.index(item) if item in order else len(order)


# -- helpers -------------------------------------------------------------------------------------


def _word(x: SExpr) -> str:
    return x.lower() if isinstance(x, str) else ""


def _show(x: SExpr, limit: int = 80) -> str:
    text = x if isinstance(x, str) else "(" + " ".join(_show(y, limit) for y in x) + ")"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _typed(items: list[SExpr]) -> dict[str, str]:
    """``a b - T c - U`` as ``{a: T, b: T, c: U}`` (PDDL's typed list; untyped names are ``object``)."""
    out: dict[str, str] = {}
    pending: list[str] = []
    i = 0
    while i < len(items):
        x = items[i]
        if not isinstance(x, str):
            raise PddlError(f"(:objects ...) lists names and types, got {_show(x)}")
        if x == "-":
            if i + 1 >= len(items) or not isinstance(items[i + 1], str) or not pending:
                raise PddlError("a '-' in (:objects ...) must follow names and precede one type")
            for name in pending:
                out[name] = str(items[i + 1])
            pending = []
            i += 2
            continue
        pending.append(x)
        i += 1
    for name in pending:
        out[name] = "object"
    return out


_OPERATORS = {"and", "or", "not", "imply", "exists", "forall", "when"}


def _formula(x: SExpr) -> tuple[Any, ...]:
    """A goal formula as nested tuples: operators and predicates lower-cased, quantifier variable
    lists kept as typed dicts (``("exists", {"?o": "object"}, body)``)."""
    if not isinstance(x, list) or not x or not isinstance(x[0], str):
        raise PddlError(f"a formula is (operator-or-predicate ...), got {_show(x)}")
    head = x[0].lower()
    if head in ("exists", "forall"):
        if len(x) != 3 or not isinstance(x[1], list):
            raise PddlError(f"({head} (?v - type ...) formula) expected, got {_show(x)}")
        return (head, _typed(x[1]), _formula(x[2]))
    if head in _OPERATORS:
        return (head, *(_formula(y) for y in x[1:]))
    if not all(isinstance(w, str) for w in x[1:]):
        raise PddlError(f"a predicate takes names, got {_show(x)}")
    return (head, *x[1:])
