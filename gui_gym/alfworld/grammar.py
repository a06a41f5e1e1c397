"""Which ALFWorld grammar a game speaks, and its task line.

Every ALFWorld game file carries the text grammar ``alfred.twl2`` with ``UNKNOWN GOAL`` replaced by
the task (``alfworld/agents/utils/misc.py:107``). Two versions are in use:

- the **current** one (alfworld 0.4.2, data set 2.1.2): ``move {o} to {r}`` and ``You move the …
  to the ….``, arrival names the receptacle (``You arrive at drawer 1.``), and a ``help`` action;
- the **legacy** one (data set 2.1.1, what the ReAct prompts were written against): ``put {o} in/on
  {r}`` and ``You put the … in/on the ….``, arrival names the location (``You arrive at loc 3.``),
  no ``help`` (alfworld's ``scripts/patch_tw-pddl.py`` turns one into the other).

:func:`read_grammar` tells them apart from a game file's grammar and domain text, feature by
feature, and reads the task line from the grammar's ``task`` rule.

Example:
    >>> g = Grammar.current("put some pencil on dresser")
    >>> g.task, g.put_template, g.help
    ('Your task is to: put some pencil on dresser.', 'move {o} to {r}', True)
    >>> Grammar.legacy_version("put some pencil on dresser").put_template
    'put {o} in/on {r}'
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

__all__ = ["Grammar", "GrammarError", "read_grammar"]

_TASK_PREFIX = "Your task is to: "
_HEADER = re.compile(r'grammar\s*::\s*"""(.*?)"""\s*;', re.S)
_PUT_TEMPLATE = re.compile(r'action\s+PutObject\s*\{\s*template\s*::\s*"([^"]*)"')
_HELP_ACTION = re.compile(r"\baction\s+help\s*\{")
_DOMAIN_HELP = re.compile(r"\(:action\s+help\b", re.I)


class GrammarError(ValueError):
    """A grammar text that is not an ALFWorld grammar this engine speaks."""


@dataclass(frozen=True)
class Grammar:
    """What of a grammar the engine needs: the task line and the version's three differences."""

    #: the intro's last paragraph: ``Your task is to: <goal>.``
    task: str
    #: the template of moving an object into a receptacle
    put_template: str = "move {o} to {r}"
    #: whether arrival names the location (``You arrive at loc 3.``) instead of the receptacle
    arrive_at_location: bool = False
    #: whether ``help`` is an action
    help: bool = True

    @property
    def legacy(self) -> bool:
        """Whether this is the legacy (2.1.1, ReAct) grammar."""
        return self.put_template != "move {o} to {r}"

    @property
    def goal(self) -> str:
        """The goal text alone (``put some pencil on dresser``)."""
        text = self.task.removeprefix(_TASK_PREFIX)
        return text[:-1] if text.endswith(".") else text

    @classmethod
    def current(cls, goal: str) -> Grammar:
        """The current grammar (alfworld 0.4.2) with this goal text."""
        return cls(task=f"{_TASK_PREFIX}{goal}.")

    @classmethod
    def legacy_version(cls, goal: str) -> Grammar:
        """The legacy grammar (2.1.1, the ReAct prompts') with this goal text."""
        return cls(task=f"{_TASK_PREFIX}{goal}.", put_template="put {o} in/on {r}", arrive_at_location=True, help=False)


def read_grammar(grammar: str, domain: str = "") -> Grammar:
    """The :class:`Grammar` of a game file's ``grammar`` text (and ``pddl_domain``, which decides
    whether ``help`` exists: TextWorld offers an action only when both define it).

    Raises :class:`GrammarError` when the text has no JSON rule block or no ``task`` rule, or uses
    a move template this engine does not know (such a game needs ``backend="textworld"``).
    """
    header = _HEADER.search(grammar)
    if header is None:
        raise GrammarError('no grammar :: """{...}"""; block: not an ALFWorld .twl2 grammar')
    try:
        rules = json.loads(header.group(1))
    except json.JSONDecodeError as e:
        raise GrammarError(f"the grammar's rule block is not JSON: {e}") from None
    try:
        task = rules["task"][0]["rhs"]
        arrival = rules["GotoLocation.feedback"][0]["rhs"]
    except (KeyError, IndexError, TypeError):
        raise GrammarError("the grammar has no 'task' or 'GotoLocation.feedback' rule") from None
    put = _PUT_TEMPLATE.search(grammar)
    put_template = put.group(1) if put else "move {o} to {r}"
    if put_template not in ("move {o} to {r}", "put {o} in/on {r}"):
        raise GrammarError(f"unknown PutObject template {put_template!r}; play this game with backend='textworld'")
    has_help = bool(_HELP_ACTION.search(grammar)) and (not domain or bool(_DOMAIN_HELP.search(domain)))
    return Grammar(
        task=str(task),
        put_template=put_template,
        arrive_at_location="{lend.name}" in str(arrival),
        help=has_help,
    )
