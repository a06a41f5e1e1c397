"""A tiny random causal LM with a byte-level tokenizer, built in code: for tests, demos and
smoke runs of :class:`~agents.policies.lm.LMPolicy` (nothing is downloaded).

Example:
    >>> import tempfile
    >>> from transformers import AutoTokenizer
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = tiny_lm(tmp.name, vocab="actions", family="GuiAndroid-v0")
    >>> tok = AutoTokenizer.from_pretrained(path, local_files_only=True)
    >>> text = 'do(action="Swipe", direction="up", dist="medium")'
    >>> tok.decode(tok(text)["input_ids"]) == text, len(tok(text)["input_ids"]) < len(text)
    (True, True)
"""

from __future__ import annotations

import os
from pathlib import Path

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

from gui_gym.core.family import EnvFamily, family_of

__all__ = ["EOS", "VOCABS", "tiny_lm", "tiny_tokenizer"]

#: ``"bytes"``: the 256 bytes, no merges (an action is one token per character);
#: ``"actions"``: byte-level BPE with merges learnt from a family's action prompt, so an action
#: takes a few tokens (an AndroidLab ``Swipe`` is 49 bytes, over the default 48 new tokens).
VOCABS = ("bytes", "actions")
EOS = "<|endoftext|>"
_ACTIONS_VOCAB = 576


def tiny_tokenizer(vocab: str = "bytes", family: EnvFamily | str | None = None) -> PreTrainedTokenizerFast:
    """A byte-level tokenizer (no unknown tokens: any text round-trips) with one special token,
    :data:`EOS`, that is also BOS; no pad token (:class:`~agents.policies.lm.LMPolicy` uses EOS).
    ``vocab="actions"`` learns its merges from ``family``'s action prompt."""
    if vocab not in VOCABS:
        raise ValueError(f"vocab must be one of {VOCABS}, got {vocab!r}")
    if vocab == "actions" and family is None:
        raise ValueError("vocab='actions' learns from a family's action prompt: pass family= (an env id or family)")
    # No regex split: merges may cross punctuation, so 'do(action="' can become one token.
    byte_level = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    if vocab == "bytes":
        tok = Tokenizer(models.BPE(vocab={c: i for i, c in enumerate(alphabet)}, merges=[]))
        tok.add_special_tokens([EOS])
    else:
        tok = Tokenizer(models.BPE())
        trainer = trainers.BpeTrainer(
            vocab_size=_ACTIONS_VOCAB, initial_alphabet=alphabet, special_tokens=[EOS], show_progress=False
        )
        tok.pre_tokenizer = byte_level
        tok.train_from_iterator(_corpus(family_of(family)), trainer)
    tok.pre_tokenizer = byte_level
    tok.decoder = decoders.ByteLevel()
    return PreTrainedTokenizerFast(tokenizer_object=tok, eos_token=EOS, bos_token=EOS)


def _corpus(family: EnvFamily) -> list[str]:
    """What a policy reads and writes: the system prompt, the prompt's cues and the prompt's lines
    (each one alone, so merges do not span two actions: the examples are lines of it)."""
    prompt = family.action_prompt()
    lines = [prompt, "Task: \nPrevious actions: none\nScreen:\n\nAction:"]
    return lines + [line for line in prompt.splitlines() for _ in range(20)]


def tiny_lm(
    path: str | os.PathLike,
    vocab: str = "bytes",
    layers: int = 1,
    hidden: int = 32,
    seed: int = 0,
    family: EnvFamily | str | None = None,
) -> str:
    """Write a random Llama-architecture causal LM and its :func:`tiny_tokenizer` to ``path``
    (``LMPolicy(path)`` loads it); return ``path`` as a string.

    Same ``seed`` and arguments give the same weights; the global torch RNG is left untouched.
    """
    if layers < 1 or hidden < 8:
        raise ValueError(f"need layers >= 1 and hidden >= 8, got layers={layers}, hidden={hidden}")
    heads = max(1, hidden // 16)
    if hidden % heads or (hidden // heads) % 2:
        raise ValueError(f"hidden={hidden} must split into {heads} heads of an even size (rotary embeddings)")
    tokenizer = tiny_tokenizer(vocab, family)
    eos = tokenizer.eos_token_id
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=hidden,
        intermediate_size=2 * hidden,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=heads,
        max_position_embeddings=4096,
        tie_word_embeddings=True,
        bos_token_id=eos,
        eos_token_id=eos,
    )
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = LlamaForCausalLM(config)
    out = Path(path)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return str(out)
