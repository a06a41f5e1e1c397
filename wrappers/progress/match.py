"""Steps as comparable action tokens, and ProgRM's soft match ``f`` (App. A, Eq. 9).

::

    f(a, b) = 0                          type_a ≠ type_b
              SBERT(text_a, text_b)      type_a = type_b ∈ {INPUT, ANSWER}
              ε                          type_a = type_b = NOTHING
              1[a = b]                   otherwise

with ε = 0.4 (the paper's value: waiting is sometimes necessary, so no-ops still match, but
weakly). The types are the env contract's action kinds (``Step.action_kind``, never a parse of a
family's syntax): ``input`` that writes a text is INPUT, ``answer`` is ANSWER, and ``wait`` or an
action that did not parse or apply (``format_valid`` false, kind ``invalid``) is NOTHING. The
text of an INPUT or ANSWER is the first quoted phrase of its description (families quote the
text an action writes: ``Type "Zara" into "First name"``, ``Answer "42"``); an ``input`` whose
description quotes nothing (a key press) compares like any other action. "a = b" compares the
grounded action description the env reports (``Tap the "Save" button``): the same target
element, wherever it is drawn. A log without descriptions compares the action text; one without
kinds (written before steps carried them) has every valid step of one type, ``other``.

Task-instance values are abstracted before comparison (``Zara`` → ``<FirstName>``, from the
trajectory's ``meta["placeholders"]``) so that trajectories of different instances of one task
share their recipes; logs without placeholders compare literal text.

Example:
    >>> from gui_gym.core.trajectory import Step
    >>> tok = [action_token(Step('do(action="Type", text="Zara")', action_description='Type "Zara"',
    ...                          action_kind="input"), {"FirstName": "Zara"}),
    ...        action_token(Step('do(action="Wait")', action_kind="wait")),
    ...        action_token(Step('do(action="Back")', action_description="Back", action_kind="navigate"))]
    >>> tok[0]
    ActionToken(kind='input', key='Type "<FirstName>"', text='<FirstName>')
    >>> ActionMatch(text_similarity=lambda a, b: np.zeros((len(a), len(b)))).matrix(tok, tok).round(2).tolist()
    [[1.0, 0.0, 0.0], [0.0, 0.4, 0.0], [0.0, 0.0, 1.0]]
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gui_gym.core import contract as C
from gui_gym.core.trajectory import Step, Trajectory
from wrappers.generation import abstract

__all__ = ["EPSILON", "ActionMatch", "ActionToken", "action_token", "trajectory_tokens"]

#: f for two NOTHING actions (ProgRM App. A).
EPSILON = 0.4
INPUT, ANSWER, NOTHING = C.INPUT, C.ANSWER, "nothing"
#: an input that writes no text; a step of a record without kinds
KEY, OTHER = "key", "other"
TEXT_KINDS = (INPUT, ANSWER)
_QUOTED = re.compile(r'"([^"]*)"')
TextSimilarity = Callable[[Sequence[str], Sequence[str]], np.ndarray]


@dataclass(frozen=True)
class ActionToken:
    """What the soft match compares of one step: its type, identity and free text."""

    kind: str
    key: str
    text: str = ""


def action_token(step: Step, placeholders: Mapping[str, str] | None = None) -> ActionToken:
    """The token of one recorded step (instance values abstracted with ``placeholders``)."""
    kind = step.action_kind or str(step.info.get(C.ACTION_KIND) or "")
    if not step.format_valid or kind == C.INVALID:
        return ActionToken(NOTHING, "")
    values = tuple(sorted((placeholders or {}).items()))
    return _token(kind, str(step.action), str(step.action_description or ""), values)


@functools.lru_cache(maxsize=65536)
def _token(kind: str, raw: str, description: str, placeholders: tuple[tuple[str, str], ...]) -> ActionToken:
    # Logs repeat the same actions over and over: abstract each one once.
    values = dict(placeholders)
    if kind == C.WAIT:
        return ActionToken(NOTHING, "")
    key = abstract(description.strip(), values) or abstract(raw.strip(), values)  # no description: the action
    if not kind:  # a record without its kind: one type for every valid step
        return ActionToken(OTHER, key)
    written = _QUOTED.search(description)
    if kind in (C.INPUT, C.ANSWER) and written:
        return ActionToken(INPUT if kind == C.INPUT else ANSWER, key, abstract(written.group(1), values))
    if kind == C.INPUT:  # writes no text (a key press)
        return ActionToken(KEY, key)
    return ActionToken(kind, key or kind)


def trajectory_tokens(trajectory: Trajectory) -> list[ActionToken]:
    """The tokens of every step, abstracted with the trajectory's ``meta["placeholders"]``."""
    placeholders = trajectory.meta.get("placeholders") or {}
    if not isinstance(placeholders, Mapping):
        placeholders = {}
    return [action_token(s, {str(k): str(v) for k, v in placeholders.items()}) for s in trajectory.steps]


class ActionMatch:
    """ProgRM's soft match (Eq. 9) over :class:`ActionToken` s, as a matrix for the LCS.

    Args:
        epsilon: the score of two NOTHING actions (0.4 in the paper).
        text_similarity: ``(texts_a, texts_b) -> matrix`` of similarities for INPUT/ANSWER
            texts; ``None`` uses cosine similarity of all-MiniLM-L6-v2 (the paper's SBERT),
            from :class:`wrappers.matching.SemanticMatcher`'s shared encoder and cache.
        hard: score every pair by exact token equality instead (the hard LCS of Eq. 7).
    """

    def __init__(
        self, epsilon: float = EPSILON, text_similarity: TextSimilarity | None = None, hard: bool = False
    ) -> None:
        if not 0.0 <= epsilon <= 1.0:
            raise ValueError(f"epsilon must lie in [0, 1], got {epsilon}")
        self.epsilon = float(epsilon)
        self.hard = bool(hard)
        self._text_similarity = text_similarity
        self._encoder: Any = None

    def __call__(self, a: ActionToken, b: ActionToken) -> float:
        return float(self.matrix([a], [b])[0, 0])

    def text_similarity(self, a: Sequence[str], b: Sequence[str]) -> np.ndarray:
        if self._text_similarity is not None:
            return np.asarray(self._text_similarity(a, b), dtype=np.float64)
        if self._encoder is None:
            from wrappers.matching import SemanticMatcher

            self._encoder = SemanticMatcher(mode="cosine")
        ea, eb = self._encoder.encode(a), self._encoder.encode(b)
        return (ea @ eb.T).astype(np.float64)

    def prepare(self, tokens: Sequence[ActionToken]) -> None:
        """Encode every free text among ``tokens`` in one batch (labelling calls it once)."""
        texts = sorted({t.text for t in tokens if t.kind in TEXT_KINDS and t.text})
        if texts and self._text_similarity is None and not self.hard:
            self.text_similarity(texts[:1], texts[:1])  # loads the encoder
            self._encoder.encode(texts)

    def matrix(self, a: Sequence[ActionToken], b: Sequence[ActionToken]) -> np.ndarray:
        """``F[i, j] = f(a_i, b_j)`` for two token sequences."""
        out = np.zeros((len(a), len(b)), dtype=np.float64)
        if not a or not b:
            return out
        if self.hard:
            index: dict[ActionToken, int] = {}
            ia = np.array([index.setdefault(t, len(index)) for t in a])
            ib = np.array([index.setdefault(t, len(index)) for t in b])
            return (ia[:, None] == ib[None, :]).astype(np.float64)
        kinds: dict[str, int] = {}
        keys: dict[str, int] = {}
        ka = np.array([kinds.setdefault(t.kind, len(kinds)) for t in a])
        kb = np.array([kinds.setdefault(t.kind, len(kinds)) for t in b])
        same_kind = ka[:, None] == kb[None, :]
        xa = np.array([keys.setdefault(t.key, len(keys)) for t in a])
        xb = np.array([keys.setdefault(t.key, len(keys)) for t in b])
        out[:] = same_kind & (xa[:, None] == xb[None, :])
        nothing_a = np.array([t.kind == NOTHING for t in a])
        nothing_b = np.array([t.kind == NOTHING for t in b])
        out[nothing_a[:, None] & nothing_b[None, :]] = self.epsilon
        text_a = [i for i, t in enumerate(a) if t.kind in TEXT_KINDS]
        text_b = [j for j, t in enumerate(b) if t.kind in TEXT_KINDS]
        if text_a and text_b:
            ta, tb = [a[i].text for i in text_a], [b[j].text for j in text_b]
            sim = np.zeros((len(ta), len(tb)))
            equal = np.array([[x == y for y in tb] for x in ta])
            need = ~equal & np.array([[bool(x) for _ in tb] for x in ta]) & np.array([[bool(y) for y in tb]] * len(ta))
            if need.any():
                rows, cols = np.nonzero(need.any(axis=1))[0], np.nonzero(need.any(axis=0))[0]
                sub = self.text_similarity([ta[i] for i in rows], [tb[j] for j in cols])
                sim[np.ix_(rows, cols)] = sub
            sim = np.where(equal, 1.0, np.where(need, np.clip(sim, 0.0, 1.0), 0.0))
            block = same_kind[np.ix_(text_a, text_b)]
            out[np.ix_(text_a, text_b)] = np.where(block, sim, 0.0)
        return out
