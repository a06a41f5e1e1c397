"""A ``transformers`` causal LM that writes the env's text actions: the policy for real models.

The model reads, as MobileRL does, the task, its own last few actions and the current screen,
and writes one action in the env's syntax on one line. What the syntax is, and how an
observation reads as text, the env's family says (:func:`gui_gym.core.family.family_of`: its
``action_prompt()`` and ``observation_text()``; on the phone, AndroidLab's ``do(action=...)`` /
``finish(...)`` and the UI dump). Whatever it writes is sent as is: text that does not parse is the env's no-op with
``info["format_valid"] = False`` (ADMIRE's format penalty), never an exception here.

A :class:`~agents.policies.base.Decision` keeps the prompt and response token ids, so
:meth:`LMPolicy.log_probs` scores it again under the current weights; ``decide`` computes its
``logp`` with that same scoring pass, so old and new log-probs agree before an update (the
PPO ratio starts at exactly 1, not at the drift between a KV-cached sampler and a full pass).

Models are loaded from a local directory only (``local_files_only=True``); nothing is
downloaded. :func:`~agents.policies.tiny_lm.tiny_lm` writes a tiny random one for tests.

Example:
    >>> import tempfile, gymnasium as gym, gui_gym
    >>> from agents.policies.tiny_lm import tiny_lm
    >>> tmp = tempfile.TemporaryDirectory()
    >>> policy = LMPolicy(tiny_lm(tmp.name), family="GuiAndroid-v0", device="cpu", max_new_tokens=8)
    >>> env = gym.make("GuiAndroid-v0", task="SystemWifiTurnOn", ui_format="compressed")
    >>> obs, info = env.reset(seed=0)
    >>> (d,) = policy.decide([obs], [[]], rng=np.random.default_rng(0))
    >>> d.action == d.label, 1 <= d.tokens <= 8, d.logp.dtype
    (True, True, dtype('float32'))
    >>> logp, mask, entropy = policy.log_probs([d])
    >>> bool(np.allclose(logp[0, : d.tokens].detach().numpy(), d.logp, atol=1e-5))
    True
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from transformers import AutoModelForCausalLM, AutoTokenizer, PreTrainedModel

from agents.policies.base import Decision, TrainablePolicyMixin, guidance_of
from gui_gym.core.family import EnvFamily, family_of

__all__ = ["SCREENS", "LMPolicy"]

#: How the observation is shown: in full as the env gives it (on the phone MobileRL's compressed
#: tree when the env is made with ``ui_format="compressed"``), or as the family's compact text.
SCREENS = ("full", "text")
_SLOT = "\x00SCREEN\x00"  # where the screen goes in a rendered prompt; never in real text
_CUT = "\n[screen cut]"


class LMPolicy(TrainablePolicyMixin):
    """A causal LM policy over text actions (the :class:`~agents.policies.base.TrainablePolicy`
    contract).

    Args:
        model: a local checkpoint directory (``save_pretrained`` output) or a loaded
            ``PreTrainedModel`` (then pass ``tokenizer``).
        family: the env family (an :class:`~gui_gym.core.family.EnvFamily` or a registered env
            id): its ``action_prompt()`` is the system text, its ``observation_text()`` the screen.
        tokenizer: a tokenizer or its directory; default: the one in ``model``'s directory.
        device: default ``"cuda"`` when available, else ``"cpu"``.
        max_new_tokens: the longest action, in tokens.
        history: how many of its own previous actions the prompt shows (MobileRL's state).
        temperature, top_p: the sampling distribution. ``logp`` (in ``decide`` and
            ``log_probs``) is the log-prob under softmax(logits / temperature), before the top-p
            cut, as verl scores its rollouts.
        max_prompt_tokens: prompts are cut to this many tokens: the screen's tail goes first,
            then the oldest previous actions; the instruction and the ``Action:`` cue stay.
        screen: ``"full"`` shows the observation as the env gives it (on the phone, make the
            env with ``ui_format="compressed"``: the XML dump is ~8x longer); ``"text"`` shows
            the family's compact text, shorter but (on the phone) without element bounds, so
            the model cannot name a ``Tap`` target from it.
        dtype: e.g. ``"bfloat16"``; default: the checkpoint's.
        micro_batch: sequences per forward pass when scoring (bounds the ``[B, L, vocab]`` logits).

    The prompt uses the tokenizer's chat template when it has one (a system turn with the
    family's action prompt, a user turn), else plain text. The model is kept in eval mode
    (no dropout), so a decision's log-prob is a function of the weights alone.
    """

    def __init__(
        self,
        model: str | os.PathLike | PreTrainedModel,
        tokenizer: Any = None,
        *,
        family: EnvFamily | str | None = None,
        device: str | torch.device | None = None,
        max_new_tokens: int = 48,
        history: int = 4,
        temperature: float = 1.0,
        top_p: float = 1.0,
        max_prompt_tokens: int = 1024,
        screen: str = "full",
        dtype: str | torch.dtype | None = None,
        micro_batch: int = 8,
    ) -> None:
        if max_new_tokens < 1:
            raise ValueError(f"max_new_tokens must be positive, got {max_new_tokens}")
        if history < 0:
            raise ValueError(f"history must be >= 0, got {history}")
        if not temperature > 0:
            raise ValueError(f"temperature must be > 0 (greedy=True picks the most likely token), got {temperature}")
        if not 0 < top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1], got {top_p}")
        if screen not in SCREENS:
            raise ValueError(f"screen must be one of {SCREENS}, got {screen!r}")
        if micro_batch < 1:
            raise ValueError(f"micro_batch must be positive, got {micro_batch}")
        if family is None:
            raise ValueError(
                "LMPolicy needs family=: the env's family or its id (e.g. family_of(env) or 'GuiAndroid-v0')"
            )
        self.env_id = family if isinstance(family, str) else None  # what config() can rebuild from
        self.family = family_of(family)
        self.system_prompt = self.family.action_prompt()
        torch_dtype = getattr(torch, dtype) if isinstance(dtype, str) else dtype
        if torch_dtype is not None and not isinstance(torch_dtype, torch.dtype):
            raise ValueError(f"dtype must be a torch dtype or its name (e.g. 'bfloat16'), got {dtype!r}")

        if isinstance(model, (str, os.PathLike)):
            path = os.fspath(model)
            if not os.path.isfile(os.path.join(path, "config.json")):
                raise FileNotFoundError(
                    f"LMPolicy needs a local checkpoint directory (config.json, weights and tokenizer files, as "
                    f"written by save_pretrained); {path!r} is not one. Nothing is downloaded: copy the model "
                    f"there first, or build a tiny one with agents.policies.tiny_lm.tiny_lm(path)."
                )
            kw: dict[str, Any] = {"local_files_only": True}
            if torch_dtype is not None:
                kw["dtype"] = torch_dtype
            model = AutoModelForCausalLM.from_pretrained(path, **kw)
            self._source = path
            if tokenizer is None:
                tokenizer = path
        elif isinstance(model, torch.nn.Module):
            if torch_dtype is not None:
                model = model.to(torch_dtype)
            self._source = str(getattr(model, "name_or_path", "") or "")
            if tokenizer is None:
                raise ValueError("LMPolicy(model=<a loaded model>) needs tokenizer= as well")
        else:
            raise TypeError(f"model must be a checkpoint directory or a PreTrainedModel, not {type(model).__name__}")
        if isinstance(tokenizer, (str, os.PathLike)):
            tokenizer = AutoTokenizer.from_pretrained(os.fspath(tokenizer), local_files_only=True)
        if tokenizer.pad_token_id is None:
            if tokenizer.eos_token is None:
                raise ValueError("the tokenizer has neither a pad nor an eos token; set tokenizer.pad_token")
            tokenizer.pad_token = tokenizer.eos_token

        self.device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        self.model = model.to(self.device).eval()
        self.tokenizer = tokenizer
        self.max_new_tokens = int(max_new_tokens)
        self.history = int(history)
        self.temperature = float(temperature)
        self.top_p = float(top_p)
        self.max_prompt_tokens = int(max_prompt_tokens)
        self.screen = screen
        self.micro_batch = int(micro_batch)
        self._chat = bool(getattr(tokenizer, "chat_template", None))
        self._system_turn = True  # cleared when the chat template refuses a system turn
        self._cut_ids = self._ids(_CUT)
        self._stops: torch.Tensor | None = None
        self._stop_set: set[int] = set()
        # The score pass needs logits at the response positions only: ask for just those.
        params = _forward_params(self.model)
        self._keep_arg = "logits_to_keep" in params
        # transformers 5.2x renamed the KV cache argument and output field past_key_values → cache
        self._cache_arg = "cache" if "cache" in params else "past_key_values"

        context = getattr(self.model.config, "max_position_embeddings", None) or getattr(
            self.model.config, "n_positions", None
        )
        if context and self.max_prompt_tokens + self.max_new_tokens > int(context):
            raise ValueError(
                f"max_prompt_tokens + max_new_tokens = {self.max_prompt_tokens + self.max_new_tokens} exceeds the "
                f"model's context of {context} tokens"
            )
        fixed = sum(map(len, self._frame("", [], 1)))
        if fixed > self.max_prompt_tokens:
            raise ValueError(
                f"max_prompt_tokens={self.max_prompt_tokens} is below the {fixed} tokens of the fixed prompt "
                "(system text and cues); raise it"
            )

    def __repr__(self) -> str:
        return f"LMPolicy({self._source or type(self.model).__name__!r}, device={str(self.device)!r})"

    # ------------------------------------------------------------------ prompt

    def encode_prompt(self, observation: dict[str, Any], history: Sequence[Decision | str] = ()) -> list[int]:
        """The prompt token ids for ``observation`` after the actions in ``history`` (decisions
        or their labels), at most ``max_prompt_tokens`` long."""
        instruction = self.family.instruction(observation).strip()
        # The tokens that can be shown lie in the first 64 characters per token (tokens are a few
        # characters long): do not tokenize the rest of a huge dump.
        text, limit = self._screen_of(observation), 64 * self.max_prompt_tokens
        screen, cut = self._ids(text[:limit]), len(text) > limit
        labels = (
            [str(getattr(d, "label", d)) for d in history[max(0, len(history) - self.history) :]]
            if self.history
            else []
        )
        first = len(history) - len(labels) + 1  # step number of the first action shown
        guidance = guidance_of(observation)
        # drop the oldest actions only when no screen fits at all, and the guidance after them
        for guide in (guidance, "") if guidance else ("",):
            for k in range(len(labels) + 1):
                prefix, suffix = self._frame(instruction, labels[k:], first + k, guide)
                room = self.max_prompt_tokens - len(prefix) - len(suffix)
                if len(screen) <= room and not cut:
                    return prefix + screen + suffix
                room -= len(self._cut_ids)
                if room >= 0:
                    return prefix + screen[:room] + self._cut_ids + suffix
        raise ValueError(
            f"the instruction alone ({len(self._ids(instruction))} tokens) does not fit max_prompt_tokens="
            f"{self.max_prompt_tokens} with the system text; raise max_prompt_tokens"
        )

    def _screen_of(self, obs: Any) -> str:
        return self.family.observation_text(obs, full=self.screen == "full")

    def _frame(
        self, instruction: str, labels: Sequence[str], first: int, guidance: str = ""
    ) -> tuple[list[int], list[int]]:
        """Token ids before and after the screen."""
        lines = [f"Task: {instruction}"]
        if guidance:  # UI-Mem's experience guidance, as its rollouts see it (Fig. 14)
            lines += ["Guidance:", guidance]
        if self.history:
            lines.append("Previous actions:" + ("" if labels else " none"))
            lines += [f"{first + i}. {label}" for i, label in enumerate(labels)]
        lines += ["Screen:", _SLOT, "Action:"]
        body = "\n".join(lines)
        if self._chat:
            text = self._render_chat(body)
        else:
            text = f"{self.system_prompt}\n\n{body}"
        before, slot, after = text.rpartition(_SLOT)  # the last one: an instruction cannot fake it
        if not slot:
            raise ValueError("the tokenizer's chat template dropped the user message; LMPolicy cannot use it")
        # Plain text gets the tokenizer's own special tokens (e.g. BOS); a chat template writes its own.
        return self._ids(before, special=not self._chat), self._ids(after)

    def _render_chat(self, body: str) -> str:
        from jinja2 import TemplateError

        if self._system_turn:
            messages = [{"role": "system", "content": self.system_prompt}, {"role": "user", "content": body}]
            try:
                return self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
            except TemplateError:  # e.g. Gemma's template has no system role
                self._system_turn = False
        messages = [{"role": "user", "content": f"{self.system_prompt}\n\n{body}"}]
        return self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)

    def _ids(self, text: str, special: bool = False) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=special)["input_ids"]) if text else []

    # ------------------------------------------------------------------ acting

    def decide(
        self,
        observations: Sequence[dict[str, Any]],
        histories: Sequence[Sequence[Decision]],
        greedy: bool = False,
        rng: np.random.Generator | Sequence[np.random.Generator] | None = None,
    ) -> list[Decision]:
        """One decision per observation, generated in one left-padded batch.

        ``rng`` seeds the sampling: one generator for the batch, or one per observation (then
        each row's tokens depend on its own generator only, not on the rest of the batch);
        ``None`` draws fresh entropy. ``greedy`` takes the most likely token at each step.
        """
        if len(observations) != len(histories):
            raise ValueError(f"{len(observations)} observations but {len(histories)} histories")
        if not observations:
            return []
        prompts = [self.encode_prompt(o, h) for o, h in zip(observations, histories, strict=True)]
        noise = None if greedy else self._noise(len(prompts), rng)
        responses = self._generate(prompts, noise)
        with torch.no_grad():
            logp, _, _ = self._score(prompts, responses, entropy=False)
        logp_np = logp.float().cpu().numpy()
        out = []
        for i, (prompt, response) in enumerate(zip(prompts, responses, strict=True)):
            text = self.tokenizer.decode(response, skip_special_tokens=True).split("\n", 1)[0].strip()
            out.append(
                Decision(
                    action=text,
                    label=text,
                    logp=logp_np[i, : len(response)].astype(np.float32),
                    data={"prompt": prompt, "response": response},
                )
            )
        return out

    def imitate(self, observation: dict[str, Any], history: Sequence[Decision | str], action: str) -> Decision:
        """The decision that writes ``action`` (an expert's) on ``observation`` after ``history``, for
        behaviour cloning (:mod:`agents.sft`): the prompt :meth:`decide` would build, and the
        response the action's tokens then EOS (a newline without one), the token that ends a generated action, so
        :meth:`log_probs` gives the NLL of the whole line and of stopping after it. Any text is an
        action to an LM, so this is never ``None`` (the candidate policy's may be)."""
        action = action.split("\n", 1)[0].strip()
        eos = self.tokenizer.eos_token_id
        response = self._ids(action) + ([int(eos)] if eos is not None else self._ids("\n"))
        return Decision(
            action=action,
            label=action,
            logp=np.zeros(len(response), dtype=np.float32),
            data={"prompt": self.encode_prompt(observation, history), "response": response},
        )

    def _noise(self, n: int, rng: np.random.Generator | Sequence[np.random.Generator] | None) -> torch.Tensor:
        """Uniforms ``[n, max_new_tokens]`` for inverse-CDF sampling, a fixed number per row."""
        if rng is None or isinstance(rng, np.random.Generator):
            u = (rng if rng is not None else np.random.default_rng()).random((n, self.max_new_tokens))
        else:
            if len(rng) != n:
                raise ValueError(f"{n} observations but {len(rng)} generators in rng")
            u = np.stack([g.random(self.max_new_tokens) for g in rng])
        return torch.from_numpy(u).to(self.device, torch.float32)

    @torch.no_grad()
    def _generate(self, prompts: list[list[int]], noise: torch.Tensor | None) -> list[list[int]]:
        """Response ids per prompt, up to and including the first stop token (EOS or a token
        holding a newline), so an empty action still has one token."""
        ids, attn = self._pad(prompts, None)
        pos = (attn.cumsum(-1) - 1).clamp(min=0)
        done = torch.zeros(len(prompts), dtype=torch.bool, device=self.device)
        keep: dict[str, Any] = {"logits_to_keep": 1} if self._keep_arg else {}
        steps: list[torch.Tensor] = []
        inputs, past = ids, None
        for t in range(self.max_new_tokens):
            keep[self._cache_arg] = past
            out = self.model(input_ids=inputs, attention_mask=attn, position_ids=pos, use_cache=True, **keep)
            past = getattr(out, self._cache_arg)
            logits = out.logits[:, -1].float() / self.temperature
            token = logits.argmax(-1) if noise is None else self._sample(logits, noise[:, t])
            token = token.masked_fill(done, self.tokenizer.pad_token_id)
            steps.append(token)
            done |= self._stop_table(logits.shape[-1])[token]
            if bool(done.all()):
                break
            inputs = token[:, None]
            attn = torch.cat([attn, attn.new_ones(len(prompts), 1)], dim=1)
            pos = pos[:, -1:] + 1
        rows = torch.stack(steps, dim=1).tolist()
        responses = []
        for row in rows:
            end = next((j + 1 for j, tok in enumerate(row) if tok in self._stop_set), len(row))
            responses.append(row[:end])
        return responses

    def _sample(self, logits: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
        """Inverse-CDF draw from softmax(logits), cut to the top-p nucleus, with uniforms ``u``."""
        probs = logits.softmax(-1)
        order = None
        if self.top_p < 1:
            probs, order = probs.sort(-1, descending=True)
            # Keep the smallest prefix whose mass reaches top_p (the top token always stays).
            probs = probs.masked_fill(probs.cumsum(-1) - probs >= self.top_p, 0.0)
        cdf = probs.cumsum(-1)
        k = torch.searchsorted(cdf, (u * cdf[:, -1]).unsqueeze(-1), right=True).clamp(max=probs.shape[-1] - 1)
        return (k if order is None else order.gather(-1, k)).squeeze(-1)

    def _stop_table(self, vocab: int) -> torch.Tensor:
        if self._stops is None or self._stops.numel() != vocab:
            n = min(vocab, len(self.tokenizer))
            texts = self.tokenizer.batch_decode([[i] for i in range(n)])
            stops = {i for i, t in enumerate(texts) if "\n" in t}
            gen_config = getattr(self.model, "generation_config", None)
            for eos in (self.tokenizer.eos_token_id, getattr(gen_config, "eos_token_id", None)):
                stops.update(eos if isinstance(eos, (list, tuple)) else [] if eos is None else [eos])
            self._stop_set = {int(i) for i in stops if 0 <= int(i) < vocab}
            table = torch.zeros(vocab, dtype=torch.bool)
            table[sorted(self._stop_set)] = True
            self._stops = table.to(self.device)
        return self._stops

    # ------------------------------------------------------------------ scoring

    def log_probs(self, decisions: Sequence[Decision]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``(logp, mask, entropy)``, each ``[N, L]`` float32 (L the longest response): the
        response tokens' log-probs, a 0/1 mask of real tokens, and the entropy of the full
        next-token distribution at each of them; differentiable, zero where masked."""
        prompts, responses = [], []
        for i, d in enumerate(decisions):
            data = getattr(d, "data", None)
            if not (isinstance(data, dict) and data.get("prompt") and data.get("response")):
                raise TypeError(
                    f"decisions[{i}] has no prompt and response token ids in its data: "
                    "LMPolicy.log_probs scores only decisions an LMPolicy made"
                )
            prompts.append(list(data["prompt"]))
            responses.append(list(data["response"]))
        if not decisions:
            empty = torch.zeros(0, 1, device=self.device)
            return empty, empty.clone(), empty.clone()
        return self._score(prompts, responses, entropy=True)

    def _score(
        self, prompts: list[list[int]], responses: list[list[int]], entropy: bool
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        width = max(len(r) for r in responses)
        logps, ents = [], []
        for s in range(0, len(prompts), self.micro_batch):
            chunk = responses[s : s + self.micro_batch]
            ids, attn = self._pad(prompts[s : s + self.micro_batch], chunk)
            n = max(len(r) for r in chunk)
            keep = {"logits_to_keep": n + 1} if self._keep_arg else {}
            pos = (attn.cumsum(-1) - 1).clamp(min=0)
            out = self.model(input_ids=ids, attention_mask=attn, position_ids=pos, use_cache=False, **keep)
            # Logits at the last prompt token .. the second-to-last response column predict the response.
            logits = out.logits[:, -(n + 1) : -1].float() / self.temperature
            logsm = logits.log_softmax(-1)
            logps.append(F.pad(logsm.gather(-1, ids[:, -n:, None]).squeeze(-1), (0, width - n)))
            if entropy:
                ents.append(F.pad(-(logsm.exp() * logsm).sum(-1), (0, width - n)))
        lengths = torch.tensor([len(r) for r in responses], device=self.device)
        mask = (torch.arange(width, device=self.device) < lengths[:, None]).float()
        logp = torch.cat(logps) * mask
        ent = torch.cat(ents) * mask if entropy else torch.zeros_like(logp)
        return logp, mask, ent

    def _pad(self, prompts: list[list[int]], responses: list[list[int]] | None) -> tuple[torch.Tensor, torch.Tensor]:
        """``[B, P + R]`` ids and attention mask: prompts left-padded so they all end at column
        P, responses right-padded after them."""
        p = max(len(x) for x in prompts)
        r = max(len(x) for x in responses) if responses else 0
        pad = self.tokenizer.pad_token_id
        ids = torch.full((len(prompts), p + r), pad, dtype=torch.long)
        attn = torch.zeros((len(prompts), p + r), dtype=torch.long)
        for i, prompt in enumerate(prompts):
            ids[i, p - len(prompt) : p] = torch.tensor(prompt)
            attn[i, p - len(prompt) : p] = 1
            if responses:
                ids[i, p : p + len(responses[i])] = torch.tensor(responses[i])
                attn[i, p : p + len(responses[i])] = 1
        return ids.to(self.device), attn.to(self.device)

    # ------------------------------------------------------------------ state

    def parameters(self) -> Iterator[torch.nn.Parameter]:
        return self.model.parameters()

    def state_dict(self) -> dict[str, Any]:
        return self.model.state_dict()

    def load_state_dict(self, state: dict[str, Any]) -> Any:
        return self.model.load_state_dict(state)

    def config(self) -> dict[str, Any]:
        """Plain values: ``LMPolicy(**config())`` rebuilds this policy from its source checkpoint
        (then :meth:`load_state_dict`), or from a :meth:`save_pretrained` directory given as ``model``."""
        return {
            "model": self._source,
            "family": self.env_id,
            "max_new_tokens": self.max_new_tokens,
            "history": self.history,
            "temperature": self.temperature,
            "top_p": self.top_p,
            "max_prompt_tokens": self.max_prompt_tokens,
            "screen": self.screen,
            "dtype": str(self.model.dtype).removeprefix("torch."),
            "micro_batch": self.micro_batch,
        }

    def save_pretrained(self, directory: str | os.PathLike) -> str:
        """Write the model and tokenizer to ``directory`` so ``LMPolicy(directory)`` loads them."""
        path = os.fspath(directory)
        self.model.save_pretrained(path)
        self.tokenizer.save_pretrained(path)
        return path


def _forward_params(model: torch.nn.Module) -> set[str]:
    import inspect

    return set(inspect.signature(model.forward).parameters)
