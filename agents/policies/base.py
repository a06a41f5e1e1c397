"""What a trainable policy gives the trainers: decisions with log-probs, and log-probs again.

A trainer never looks inside a policy. It asks for one :class:`Decision` per env
(:meth:`TrainablePolicy.decide`), sends ``decision.action`` to the env, and later asks the
policy to score the same decisions under its current parameters
(:meth:`TrainablePolicy.log_probs`). A decision's log-prob is per *token*: one token for a
candidate-action policy (the chosen candidate), the response tokens for a language model.
Everything a policy needs to score a decision again lives in ``decision.data``, which is
picklable, so decisions travel to a replay buffer, a checkpoint or a Ray worker and back.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np
import torch

from gui_gym.core.contract import EXPERT_ACTION, GUIDANCE, PATCH_LABEL, PATCHED

__all__ = ["Decision", "TrainablePolicy", "TrainablePolicyMixin", "guidance_of", "history_entry"]


def guidance_of(obs: Any) -> str:
    """The experience guidance an observation carries for the policy (UI-Mem; ``""`` for none)."""
    text = obs.get(GUIDANCE, "") if isinstance(obs, dict) else ""
    return text.strip() if isinstance(text, str) else ""


@dataclass
class Decision:
    """One action a policy took.

    Attributes:
        action: the text sent to the env.
        label: what the agent did, in its own words; the history of later steps.
        logp: per-token log-probs under the policy that sampled it (float32, at least one).
        data: whatever :meth:`TrainablePolicy.log_probs` needs to score it again (picklable).
    """

    action: str
    label: str
    logp: np.ndarray
    data: Any = field(default=None, repr=False)

    @property
    def tokens(self) -> int:
        return len(self.logp)


def history_entry(decision: Decision, info: dict[str, Any]) -> Decision:
    """What a policy's history keeps of *decision* after its step's *info*: the decision, or,
    where an experience env patched the step (EMPO §3.3), the expert's action in its place
    (the decision itself still trains, with its own reward)."""
    if not info.get(PATCHED) or not isinstance(info.get(PATCH_LABEL), str):
        return decision
    label = info[PATCH_LABEL]
    return Decision(str(info.get(EXPERT_ACTION, label)), label, decision.logp, decision.data)


@runtime_checkable
class TrainablePolicy(Protocol):
    """The contract between policies and trainers (see the module docstring)."""

    def decide(
        self,
        observations: Sequence[dict[str, Any]],
        histories: Sequence[Sequence[Decision]],
        greedy: bool = False,
        rng: np.random.Generator | Sequence[np.random.Generator] | None = None,
    ) -> list[Decision]:
        """One decision per observation; ``histories[i]`` holds env i's earlier decisions this episode.

        ``rng`` is one generator for the batch, or one per observation: with one per
        observation, each env's actions depend only on its own generator, not on what else is
        in the batch (so local, vectorised and distributed rollouts of a seed agree).
        """
        ...

    def log_probs(self, decisions: Sequence[Decision]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``(logp, mask, entropy)``, each ``[len(decisions), max tokens]``, differentiable in ``logp``.

        Row i scores ``decisions[i]`` under the current parameters; ``mask`` marks its tokens
        (``mask[i, :decisions[i].tokens]``), ``entropy`` is the policy's entropy at each token.
        """
        ...

    def parameters(self) -> Iterator[torch.nn.Parameter]: ...

    def state_dict(self) -> dict[str, Any]: ...

    def load_state_dict(self, state: dict[str, Any]) -> Any: ...

    def config(self) -> dict[str, Any]:
        """Plain values that rebuild this policy (with :meth:`state_dict`)."""
        ...


class TrainablePolicyMixin:
    """``act(obs, info)`` / ``reset(seed)`` (the :class:`~agents.policies.baselines.Policy`
    protocol) on top of ``decide``, so a trainable policy also runs in :func:`agents.rollout.rollout`.

    ``greedy`` (default False) picks the most likely action instead of sampling.
    """

    greedy: bool = False

    def reset(self, seed: int | None = None) -> None:
        self._history: list[Decision] = []
        self._rng = np.random.default_rng(seed)

    def act(self, obs: dict[str, Any], info: dict[str, Any] | None = None) -> str:
        if not hasattr(self, "_history"):
            self.reset()
        if info and self._history:  # ``info`` is the last step's: a patched step shows the expert's action
            self._history[-1] = history_entry(self._history[-1], info)
        (decision,) = self.decide([obs], [self._history], greedy=self.greedy, rng=self._rng)  # type: ignore[attr-defined]
        self._history.append(decision)
        return decision.action
