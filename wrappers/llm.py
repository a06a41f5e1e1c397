"""LLM backends for the LLM-driven parts of ADMIRE (paper 000, App. A.1.3 and A.2.2).

ADMIRE uses GPT-4o to initialise and refine milestones (§3.1, Eq. 6-7; prompts in Fig. 14-15)
and, for the process-reward baseline, as an LLM-as-judge of each step (Fig. 16). Here any model
can play those parts through the small :class:`LLM` protocol:

- :class:`OpenAICompatibleLLM` — any server speaking the OpenAI chat-completions API (vLLM,
  SGLang, llama.cpp, Ollama, OpenAI itself), over the standard library's ``urllib``;
- :class:`TransformersLLM` — a local causal LM loaded with ``transformers`` from a path
  (``local_files_only=True``: nothing is downloaded).

:func:`parse_milestones` reads a milestone list back strictly: a JSON array of non-empty
strings, nothing else.

Example:
    >>> parse_milestones('```json\\n["Open <App>", "Tap \\\\"Save\\\\""]\\n```')
    ['Open <App>', 'Tap "Save"']
    >>> parse_milestones("1. Open the app")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    wrappers.generation.GenerationError: expected a JSON array ..., but the output is not JSON (...); output: '1. ...'
    >>> judge = OpenAICompatibleLLM("http://localhost:8000/v1", model="Qwen2.5-VL-7B-Instruct")
    >>> judge.url
    'http://localhost:8000/v1/chat/completions'
    >>> judge.complete("Answer 'yes' or 'no'.")  # doctest: +SKIP
    'yes'
"""

from __future__ import annotations

import base64
import http.client
import json
import os
import re
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar, Protocol, runtime_checkable

from wrappers.generation import GenerationError

#: Environment variables read, in this order, for the API key when none is passed.
API_KEY_ENV_VARS = ("GUI_GYM_LLM_API_KEY", "OPENAI_API_KEY")

_ECHO = 200  # characters of a bad output echoed in an error message


class LLMError(RuntimeError):
    """An LLM backend could not produce a reply; the message says what happened and what to check."""


@runtime_checkable
class LLM(Protocol):
    """A text (optionally image) completion backend.

    ``complete`` returns the model's reply to one user turn. ``images`` are encoded image files
    (PNG or JPEG bytes). Backends that set ``supports_images = False`` raise :class:`LLMError`
    when given images; callers check the attribute (absent means False) before sending any.
    """

    def complete(self, prompt: str, images: Sequence[bytes] | None = None) -> str: ...


def _snippet(text: str | bytes, n: int = _ECHO) -> str:
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return text if len(text) <= n else text[:n] + "…"


# -- strict milestone-list parsing --------------------------------------------------------------
_FENCE = re.compile(r"\A```[\w+-]*[ \t]*\n?(.*?)\n?[ \t]*```\Z", re.DOTALL)


def parse_milestones(text: str) -> list[str]:
    """Parse an LLM's milestone list strictly (the "strict JSON array" of Fig. 14-15).

    Accepted: a JSON array of non-empty strings, with surrounding whitespace and at most one
    markdown code fence around it (```` ```json ... ``` ````). Anything else — prose around the
    array, numbering, an empty array, non-string or blank items — raises
    :class:`~wrappers.generation.GenerationError` saying what was wrong (the output is echoed,
    truncated). Items are returned stripped of surrounding whitespace.
    """
    if not isinstance(text, str):
        raise GenerationError(f"expected the LLM's text output, got {type(text).__name__}")
    body = text.strip()
    if not body:
        raise GenerationError("expected a JSON array of non-empty strings, but the output is empty")
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1).strip()
    try:
        value = json.loads(body)
    except ValueError as e:
        raise GenerationError(
            f"expected a JSON array of non-empty strings, but the output is not JSON ({e}); output: {_snippet(text)!r}"
        ) from None
    if not isinstance(value, list):
        raise GenerationError(
            f"expected a JSON array of non-empty strings, got a JSON {type(value).__name__}; output: {_snippet(text)!r}"
        )
    if not value:
        raise GenerationError("expected a JSON array of non-empty strings, got an empty array")
    for i, item in enumerate(value):
        if not isinstance(item, str) or not item.strip():
            raise GenerationError(
                f"expected a JSON array of non-empty strings, but item {i} is {_snippet(json.dumps(item), 60)}; "
                f"output: {_snippet(text)!r}"
            )
    return [item.strip() for item in value]


# -- OpenAI-compatible HTTP backend ----------------------------------------------------------------
def _image_mime(data: bytes) -> str:
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    raise LLMError("images must be encoded PNG, JPEG, GIF or WebP files (bytes); got unrecognised data")


def image_data_url(data: bytes) -> str:
    """An encoded image as a base64 ``data:`` URL, the form the OpenAI chat API takes inline.

    >>> image_data_url(b"\\x89PNG\\r\\n\\x1a\\n")[:30]
    'data:image/png;base64,iVBORw0K'
    """
    return f"data:{_image_mime(data)};base64,{base64.b64encode(data).decode('ascii')}"


class OpenAICompatibleLLM:
    """A chat-completions endpoint: ``POST {base_url}/chat/completions`` (OpenAI format).

    Args:
        base_url: the API root, e.g. ``"http://localhost:8000/v1"`` (vLLM) or
            ``"https://api.openai.com/v1"``.
        model: the model name the server expects.
        api_key: sent as ``Authorization: Bearer``; if ``None``, read from the environment
            variable ``GUI_GYM_LLM_API_KEY``, else ``OPENAI_API_KEY``; if neither is set, no
            header is sent (local servers need none).
        timeout: seconds to wait for the connection and for each read of the reply.
        retries: further attempts after a connection error, a timeout, HTTP 5xx or HTTP 429.
        backoff: seconds before the first retry, doubled each retry (capped at ``max_backoff``;
            a 429/503 ``Retry-After`` header is honoured up to the same cap).
        temperature: sampling temperature (0: greedy-like, for reproducible judgments).
        max_tokens: cap on the reply length (``None``: the server's default).
        supports_images: whether the model takes images (sent as base64 ``image_url`` parts);
            set False for a text-only model so callers send text alone.
        system_prompt: an optional system message before the user turn.

    Every failure raises :class:`LLMError` naming the URL, what happened and what to check;
    client errors (4xx other than 429) and malformed replies are not retried.
    """

    supports_images: bool

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = 30.0,
        retries: int = 2,
        backoff: float = 1.0,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        supports_images: bool = True,
        system_prompt: str | None = None,
        max_backoff: float = 30.0,
    ) -> None:
        if not isinstance(base_url, str) or not re.match(r"^https?://[^/\s]+", base_url):
            raise ValueError(f"base_url must be an http(s) URL such as 'http://localhost:8000/v1', got {base_url!r}")
        if not model:
            raise ValueError("model must name the model the server serves (e.g. 'gpt-4o')")
        if timeout <= 0 or retries < 0 or backoff < 0 or max_backoff < 0:
            raise ValueError("timeout must be positive; retries, backoff and max_backoff non-negative")
        self.base_url = base_url.rstrip("/")
        self.url = f"{self.base_url}/chat/completions"
        self.model = model
        if api_key is None:
            api_key = next((os.environ[v] for v in API_KEY_ENV_VARS if os.environ.get(v)), None)
        self._api_key = api_key
        self.timeout = float(timeout)
        self.retries = int(retries)
        self.backoff = float(backoff)
        self.max_backoff = float(max_backoff)
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.supports_images = bool(supports_images)
        self.system_prompt = system_prompt
        self._opener = urllib.request.build_opener()  # honours http(s)_proxy / no_proxy

    def __repr__(self) -> str:
        return f"OpenAICompatibleLLM(base_url={self.base_url!r}, model={self.model!r})"

    def __deepcopy__(self, memo: dict[int, Any]) -> OpenAICompatibleLLM:
        return self  # a client (and its loaded model) is shared, never copied (e.g. by ``env.spec``)

    def __getstate__(self) -> dict[str, Any]:  # picklable for subprocess vector envs
        return {k: v for k, v in self.__dict__.items() if k != "_opener"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._opener = urllib.request.build_opener()

    def payload(self, prompt: str, images: Sequence[bytes] | None = None) -> dict[str, Any]:
        """The JSON body for one user turn (images as base64 data-URL ``image_url`` parts)."""
        if images:
            if not self.supports_images:
                raise LLMError(f"{self!r} was configured with supports_images=False but was given images")
            content: Any = [{"type": "text", "text": prompt}]
            content += [{"type": "image_url", "image_url": {"url": image_data_url(img)}} for img in images]
        else:
            content = prompt
        messages = [{"role": "system", "content": self.system_prompt}] if self.system_prompt else []
        messages.append({"role": "user", "content": content})
        body: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": self.temperature}
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        return body

    def complete(self, prompt: str, images: Sequence[bytes] | None = None) -> str:
        data = json.dumps(self.payload(prompt, images)).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        attempts = self.retries + 1
        problem = ""
        retry_after: float | None = None
        for attempt in range(attempts):
            if attempt:
                delay = self.backoff * 2 ** (attempt - 1) if retry_after is None else retry_after
                time.sleep(min(delay, self.max_backoff))
            retry_after = None
            request = urllib.request.Request(self.url, data=data, headers=headers, method="POST")
            try:
                with self._opener.open(request, timeout=self.timeout) as response:
                    raw = response.read()
            except urllib.error.HTTPError as e:
                detail = _snippet(_read_quietly(e))
                problem = f"HTTP {e.code} {e.reason}" + (f": {detail}" if detail else "")
                if e.code == 429 or e.code >= 500:
                    retry_after = _retry_after(e.headers.get("Retry-After") if e.headers else None)
                    continue
                hint = {
                    401: "the API key (api_key= or $GUI_GYM_LLM_API_KEY / $OPENAI_API_KEY)",
                    403: "the API key and its permissions",
                    404: "base_url (the API root, usually ending in /v1) and the model name",
                }.get(e.code, "the request: base_url, model name and server logs")
                raise LLMError(f"POST {self.url} failed with {problem}. Check {hint}.") from None
            except (TimeoutError, urllib.error.URLError, http.client.HTTPException, OSError) as e:
                reason = e.reason if isinstance(e, urllib.error.URLError) else e
                if isinstance(reason, TimeoutError) or "timed out" in str(reason):
                    problem = f"no reply within timeout={self.timeout:g}s"
                else:
                    problem = f"connection failed ({type(reason).__name__}: {reason})"
                continue
            return self._parse(raw)
        raise LLMError(
            f"POST {self.url} failed after {attempts} attempt(s): {problem}. Check that an OpenAI-compatible "
            f"server is running and reachable at base_url={self.base_url!r} and serves model {self.model!r}; "
            f"raise timeout= for slow models."
        )

    def _parse(self, raw: bytes) -> str:
        try:
            reply = json.loads(raw)
        except ValueError:
            raise LLMError(
                f"POST {self.url} returned a body that is not JSON: {_snippet(raw)!r}. Is base_url the "
                f"OpenAI-compatible API root (usually ending in /v1)?"
            ) from None
        choices = reply.get("choices") if isinstance(reply, dict) else None
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            error = reply.get("error") if isinstance(reply, dict) else None
            what = f"an error: {_snippet(json.dumps(error))}" if error else f"no choices: {_snippet(raw)!r}"
            raise LLMError(f"POST {self.url} returned {what}")
        choice = choices[0]
        message = choice.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):  # some servers return content parts
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        if not isinstance(content, str):
            raise LLMError(
                f"POST {self.url} returned a choice without text content "
                f"(finish_reason={choice.get('finish_reason')!r}): {_snippet(raw)!r}"
            )
        return content


def _read_quietly(e: urllib.error.HTTPError) -> bytes:
    try:
        return e.read() or b""
    except Exception:
        return b""


def _retry_after(value: str | None) -> float | None:
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


# -- local transformers backend -------------------------------------------------------------------
class TransformersLLM:
    """A local causal LM through ``transformers``, loaded lazily from ``path``, decoding greedily.

    ``path`` is a directory written by ``save_pretrained`` (``config.json``, weights, tokenizer
    files); it is loaded with ``local_files_only=True``. The prompt goes through the tokenizer's
    chat template when it has one (one user turn, plus ``system_prompt`` if given), otherwise
    it is used as is. :meth:`complete` returns only the newly generated text. Text only:
    ``supports_images`` is False.

    Example:
        >>> llm = TransformersLLM("/models/Qwen2.5-7B-Instruct", max_new_tokens=256)  # doctest: +SKIP
        >>> llm.complete("Output a JSON array of two colours.")  # doctest: +SKIP
        '["red", "blue"]'
    """

    supports_images: ClassVar[bool] = False

    def __init__(
        self,
        path: str | os.PathLike,
        max_new_tokens: int = 256,
        device: str = "cpu",
        dtype: str | None = None,
        system_prompt: str | None = None,
        trust_remote_code: bool = False,
    ) -> None:
        p = Path(path).expanduser()
        if not (p / "config.json").is_file():
            raise FileNotFoundError(
                f"TransformersLLM: no model at {str(p)!r} (expected a directory with config.json, the weights and "
                f"the tokenizer files, as written by save_pretrained). Pass the local path of a causal LM, e.g. "
                f"TransformersLLM('/models/Qwen2.5-7B-Instruct'); nothing is downloaded."
            )
        if max_new_tokens < 1:
            raise ValueError("max_new_tokens must be positive")
        self.path = p
        self.max_new_tokens = int(max_new_tokens)
        self.device = device
        self.dtype = dtype
        self.system_prompt = system_prompt
        self.trust_remote_code = trust_remote_code
        self._tokenizer: Any = None
        self._model: Any = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"TransformersLLM({str(self.path)!r})"

    def __deepcopy__(self, memo: dict[int, Any]) -> TransformersLLM:
        return self  # a client (and its loaded model) is shared, never copied (e.g. by ``env.spec``)

    def __getstate__(self) -> dict[str, Any]:  # pickled without the loaded model: each process loads its own
        return {k: v for k, v in self.__dict__.items() if k not in ("_tokenizer", "_model", "_lock")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state, _tokenizer=None, _model=None, _lock=threading.Lock())

    def _load(self) -> tuple[Any, Any]:
        with self._lock:
            if self._model is None:
                try:
                    from transformers import AutoModelForCausalLM, AutoTokenizer

                    kw: dict[str, Any] = {"local_files_only": True, "trust_remote_code": self.trust_remote_code}
                    tokenizer = AutoTokenizer.from_pretrained(self.path, **kw)
                    if self.dtype is not None:
                        kw["dtype"] = self.dtype
                    model = AutoModelForCausalLM.from_pretrained(self.path, **kw)
                    model.to(self.device).eval()
                except Exception as e:
                    raise LLMError(f"TransformersLLM: could not load the model at {str(self.path)!r}: {e}") from e
                self._tokenizer, self._model = tokenizer, model
        return self._tokenizer, self._model

    def complete(self, prompt: str, images: Sequence[bytes] | None = None) -> str:
        if images:
            raise LLMError(f"{self!r} is text-only (supports_images=False) but was given images")
        import torch

        tokenizer, model = self._load()
        if getattr(tokenizer, "chat_template", None):
            messages = [{"role": "system", "content": self.system_prompt}] if self.system_prompt else []
            messages.append({"role": "user", "content": prompt})
            text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
            enc = tokenizer(text, return_tensors="pt", add_special_tokens=False)
        else:
            text = f"{self.system_prompt}\n\n{prompt}" if self.system_prompt else prompt
            enc = tokenizer(text, return_tensors="pt")
        input_ids = enc["input_ids"].to(model.device)
        attention_mask = enc.get("attention_mask")
        n = int(input_ids.shape[1])
        limit = getattr(model.config, "max_position_embeddings", None) or getattr(model.config, "n_positions", None)
        if limit and n + self.max_new_tokens > int(limit):
            raise LLMError(
                f"{self!r}: the prompt has {n} tokens; with max_new_tokens={self.max_new_tokens} that exceeds the "
                f"model's context of {limit} tokens"
            )
        pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
        kwargs: dict[str, Any] = {"max_new_tokens": self.max_new_tokens, "do_sample": False}
        if pad is not None:
            kwargs["pad_token_id"] = pad
        if attention_mask is not None:
            kwargs["attention_mask"] = attention_mask.to(model.device)
        try:
            with torch.inference_mode():
                out = model.generate(input_ids=input_ids, **kwargs)
        except Exception as e:
            raise LLMError(f"{self!r}: generation failed: {type(e).__name__}: {e}") from e
        return tokenizer.decode(out[0, n:], skip_special_tokens=True).strip()
