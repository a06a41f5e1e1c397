"""LLM backends (wrappers.llm) and the LLM milestone generator (wrappers.llm_generator).

An OpenAI-compatible server runs on loopback with canned behaviours chosen by the first path
segment of the base URL; a tiny transformers model is built from a config in a temp dir.
"""

from __future__ import annotations

import base64
import json
import pickle
import time
from collections.abc import Iterator
from typing import Any

import pytest
from _loopback import CannedHandler, CannedServer, dead_url, serving

from gui_gym.core.trajectory import Step, Trajectory
from wrappers.generation import GenerationError, GenerationRequest
from wrappers.llm import LLM, LLMError, OpenAICompatibleLLM, TransformersLLM, parse_milestones
from wrappers.llm_generator import INIT_PROMPT, REFINE_PROMPT, LLMMilestoneGenerator

MILESTONES = ["Launch Contacts", 'Enter the first name "Zara"', 'Tap the "Save" button']
CANNED = {
    "good": json.dumps(MILESTONES),
    "garbage": "Sure! Here are the milestones:\n1. Open the app\n2. Save",
    "empty": "",
    "fenced": "```json\n" + json.dumps(MILESTONES, indent=1) + "\n```\n",
    "slow": json.dumps(MILESTONES),
}


# -- a canned OpenAI-compatible server ------------------------------------------------------------
class _Server(CannedServer):
    requests: list[tuple[str, dict[str, str], Any]]  # (path, headers, body)

    def __init__(self) -> None:
        super().__init__(_Handler)
        self.hits: dict[str, int] = {}


class _Handler(CannedHandler):
    server: _Server

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        mode, _, rest = self.path.strip("/").partition("/")
        with self.server.lock:
            self.server.requests.append((self.path, dict(self.headers), json.loads(raw)))
            self.server.hits[mode] = n = self.server.hits.get(mode, 0) + 1
        if rest != "v1/chat/completions":
            self.send_json(404, b'{"error": {"message": "no such route"}}')
        elif mode == "slow":
            time.sleep(0.5)
            self.reply(CANNED["slow"])
        elif mode.startswith("flaky"):  # 500 twice, then the good list
            self.send_json(500, b"upstream busy") if n <= 2 else self.reply(CANNED["good"])
        elif mode.startswith("ratelimit"):  # 429 once (Retry-After: 0), then the good list
            self.send_json(429, b"slow down", {"Retry-After": "0"}) if n <= 1 else self.reply(CANNED["good"])
        elif mode == "malformed":
            self.send_json(200, b"<html>this is not json")
        elif mode == "nochoices":
            self.send_json(200, b'{"error": {"message": "model not loaded"}}')
        elif mode == "nullcontent":
            self.reply(None)
        elif mode == "unauthorised":
            self.send_json(401, b'{"error": {"message": "bad key"}}')
        elif mode in CANNED:
            self.reply(CANNED[mode])
        else:
            self.send_json(404, b'{"error": {"message": "unknown mode"}}')


@pytest.fixture(scope="module")
def server() -> Iterator[_Server]:
    with serving(_Server()) as srv:
        yield srv


@pytest.fixture(autouse=True)
def _no_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("GUI_GYM_LLM_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)


def client(server: _Server, mode: str, **kw: Any) -> OpenAICompatibleLLM:
    kw = {"timeout": 5.0, "retries": 0, "backoff": 0.0, **kw}
    return OpenAICompatibleLLM(server.url(mode), model="tiny", **kw)


def request(current: list[str] | None = None) -> GenerationRequest:
    t = Trajectory("ContactsAddContact", "Add a contact named Zara Costa.", seed=0, success=True)
    for d in ["Launch Contacts", 'Tap the "Create contact" button', "", 'Type "Zara" into "First name"']:
        t.steps.append(Step(action='do(action="Back")', action_description=d))
    return GenerationRequest(t.task_id, t.instruction, t, current=current or [], placeholders={"First": "Zara"})


# -- parse_milestones ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text, expected",
    [
        ('["a", "b"]', ["a", "b"]),
        ('  \n ["a" ,\n "b"]\n ', ["a", "b"]),
        ('```json\n["a", "b"]\n```', ["a", "b"]),
        ('```\n["a"]\n```', ["a"]),
        ('```JSON ["  a  "]```', ["a"]),
        ('["Enter \\"<Name>\\""]', ['Enter "<Name>"']),
    ],
)
def test_parse_milestones_accepts(text: str, expected: list[str]) -> None:
    assert parse_milestones(text) == expected


@pytest.mark.parametrize(
    "text, why",
    [
        ("", "empty"),
        ("   \n", "empty"),
        ("[]", "empty array"),
        ('{"milestones": ["a"]}', "JSON dict"),
        ('"a"', "JSON str"),
        ('["a", 3]', "item 1 is 3"),
        ('["a", "  "]', "item 1"),
        ('["a", null]', "item 1 is null"),
        ('Here you go: ["a"]', "not JSON"),
        ('["a"]\nHope this helps', "not JSON"),
        ('```json\n["a"]\n```\n```json\n["b"]\n```', "not JSON"),
        ("1. Open\n2. Save", "not JSON"),
        ("x" * 5000, "not JSON"),
    ],
)
def test_parse_milestones_rejects(text: str, why: str) -> None:
    with pytest.raises(GenerationError, match="expected a JSON array") as e:
        parse_milestones(text)
    assert why in str(e.value)
    assert len(str(e.value)) < 500  # the echoed output is truncated


# -- OpenAICompatibleLLM ---------------------------------------------------------------------------
def test_good_reply_and_request_format(server: _Server) -> None:
    llm = client(server, "good")
    assert isinstance(llm, LLM)
    assert llm.complete("Give milestones") == CANNED["good"]
    path, headers, body = server.requests[-1]
    assert path == "/good/v1/chat/completions"
    assert body["model"] == "tiny" and body["temperature"] == 0.0
    assert body["messages"] == [{"role": "user", "content": "Give milestones"}]
    assert "Authorization" not in headers and headers["Content-Type"] == "application/json"


def test_images_are_sent_as_data_url_parts(server: _Server) -> None:
    png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16
    jpeg = b"\xff\xd8\xff\xe0" + b"\x01" * 16
    client(server, "good", system_prompt="Be terse.").complete("look", images=[png, jpeg])
    messages = server.requests[-1][2]["messages"]
    assert messages[0] == {"role": "system", "content": "Be terse."}
    text, first, second = messages[1]["content"]
    assert text == {"type": "text", "text": "look"}
    assert first["type"] == "image_url" and second["type"] == "image_url"
    head, data = first["image_url"]["url"].split(",", 1)
    assert head == "data:image/png;base64" and base64.b64decode(data) == png
    assert second["image_url"]["url"].startswith("data:image/jpeg;base64,")
    with pytest.raises(LLMError, match="PNG, JPEG"):
        client(server, "good").complete("look", images=[b"not an image"])
    with pytest.raises(LLMError, match="supports_images=False"):
        client(server, "good", supports_images=False).complete("look", images=[png])


def test_api_key_from_argument_or_environment(server: _Server, monkeypatch: pytest.MonkeyPatch) -> None:
    client(server, "good", api_key="sk-arg").complete("hi")
    assert server.requests[-1][1]["Authorization"] == "Bearer sk-arg"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
    client(server, "good").complete("hi")
    assert server.requests[-1][1]["Authorization"] == "Bearer sk-openai"
    monkeypatch.setenv("GUI_GYM_LLM_API_KEY", "sk-gui-gym")
    client(server, "good").complete("hi")
    assert server.requests[-1][1]["Authorization"] == "Bearer sk-gui-gym"
    assert "sk-gui-gym" not in repr(client(server, "good"))


def test_fenced_and_empty_replies_are_returned_as_is(server: _Server) -> None:
    assert client(server, "fenced").complete("x") == CANNED["fenced"]
    assert client(server, "empty").complete("x") == ""


def test_slow_reply_times_out(server: _Server) -> None:
    llm = client(server, "slow", timeout=0.05, retries=1)
    with pytest.raises(LLMError) as e:
        llm.complete("x")
    msg = str(e.value)
    assert "/slow/v1/chat/completions" in msg and "no complete reply within timeout=0.05s" in msg
    assert "the one before failed" not in msg  # the deadline covers retries: none was left for a second attempt


def test_retries_on_5xx_then_succeeds(server: _Server) -> None:
    assert client(server, "flaky-a", retries=2).complete("x") == CANNED["good"]
    assert server.hits["flaky-a"] == 3
    with pytest.raises(LLMError, match=r"after 2 attempt\(s\): HTTP 500 .*upstream busy"):
        client(server, "flaky-b", retries=1).complete("x")
    assert server.hits["flaky-b"] == 2


def test_retries_on_429(server: _Server) -> None:
    assert client(server, "ratelimit", retries=1, backoff=30.0).complete("x") == CANNED["good"]  # Retry-After: 0
    assert server.hits["ratelimit"] == 2


def test_client_errors_are_not_retried(server: _Server) -> None:
    with pytest.raises(LLMError, match=r"HTTP 401.*API key") as e:
        client(server, "unauthorised", retries=3).complete("x")
    assert "/unauthorised/v1/chat/completions" in str(e.value)
    assert server.hits["unauthorised"] == 1
    with pytest.raises(LLMError, match=r"HTTP 404.*base_url"):
        OpenAICompatibleLLM(f"http://127.0.0.1:{server.server_address[1]}/good", "tiny", retries=0).complete("x")


@pytest.mark.parametrize(
    "mode, match",
    [("malformed", "not JSON.*<html>"), ("nochoices", "an error.*model not loaded"), ("nullcontent", "without text")],
)
def test_malformed_responses(server: _Server, mode: str, match: str) -> None:
    with pytest.raises(LLMError, match=match):
        client(server, mode, retries=2).complete("x")
    assert server.hits[mode] == 1  # not retried


def test_dead_port_is_a_clear_error() -> None:
    url = dead_url()
    llm = OpenAICompatibleLLM(url, model="tiny", timeout=1.0, retries=1, backoff=0.0)
    with pytest.raises(LLMError) as e:
        llm.complete("x")
    msg = str(e.value)
    assert f"{url}/chat/completions" in msg
    assert "connection failed" in msg and "2 attempt(s)" in msg and "server is running" in msg


@pytest.mark.parametrize(
    "kw, match",
    [
        ({"base_url": "localhost:8000"}, "http"),
        ({"model": ""}, "model"),
        ({"timeout": 0}, "timeout"),
        ({"retries": -1}, "retries"),
    ],
)
def test_bad_configuration(kw: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        OpenAICompatibleLLM(**{"base_url": "http://localhost:8000/v1", "model": "m", **kw})


# -- LLMMilestoneGenerator over HTTP ---------------------------------------------------------------
def test_generator_initialises_with_the_fig14_prompt(server: _Server) -> None:
    out = LLMMilestoneGenerator(client(server, "good"))(request())
    assert out == ["Launch Contacts", 'Enter the first name "<First>"', 'Tap the "Save" button']
    prompt = server.requests[-1][2]["messages"][-1]["content"]
    head = INIT_PROMPT.split("Task: {task}")[0]
    assert prompt.startswith(head)
    assert "Task: ContactsAddContact\n" in prompt
    assert "User Instruction: Add a contact named Zara Costa.\n" in prompt
    actions = json.dumps(["Launch Contacts", 'Tap the "Create contact" button', 'Type "Zara" into "First name"'])
    assert f"(ordered; may be redundant): {actions}\n" in prompt
    assert prompt.endswith("Output the essential milestone as a strict JSON array.")
    assert "{" not in prompt.replace(actions, "")  # every field filled


def test_generator_refines_with_the_fig15_prompt(server: _Server) -> None:
    current = ["Open Contacts", "Save the contact <Name>"]
    out = LLMMilestoneGenerator(client(server, "fenced"))(request(current))
    assert out == ["Launch Contacts", 'Enter the first name "<First>"', 'Tap the "Save" button']
    prompt = server.requests[-1][2]["messages"][-1]["content"]
    assert prompt.startswith(REFINE_PROMPT.split("Task: {task}")[0])
    assert f"Existing milestone (JSON): {json.dumps(current)}\n" in prompt
    assert "Output **ONLY** the final milestone as a strict JSON array." in prompt


@pytest.mark.parametrize("mode, match", [("garbage", "not JSON"), ("empty", "empty"), ("malformed", "LLM call failed")])
def test_generator_rejects_bad_output(server: _Server, mode: str, match: str) -> None:
    with pytest.raises(GenerationError, match=match):
        LLMMilestoneGenerator(client(server, mode))(request())


def test_generator_wraps_backend_failures() -> None:
    gen = LLMMilestoneGenerator(OpenAICompatibleLLM(dead_url(), "tiny", timeout=1.0, retries=0))
    with pytest.raises(GenerationError, match=r"LLMError.*connection failed"):
        gen(request())


def test_generator_needs_an_llm() -> None:
    with pytest.raises(TypeError, match="OpenAICompatibleLLM"):
        LLMMilestoneGenerator(None)  # type: ignore[arg-type]


def test_prompt_fields_with_braces_are_filled_once() -> None:
    class Echo:
        def complete(self, prompt: str, images: Any = None) -> str:
            self.prompt = prompt
            return '["x"]'

    echo = Echo()
    req = request()
    req.instruction = "Name it {task} {Milestone}"
    LLMMilestoneGenerator(echo)(req)
    assert "User Instruction: Name it {task} {Milestone}\n" in echo.prompt


# -- TransformersLLM on a tiny local model ---------------------------------------------------------
@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> str:
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    corpus = [INIT_PROMPT, REFINE_PROMPT, 'Launch Contacts Tap the "Save" button [ "a" , "b" ]']
    tok = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(corpus, trainers.WordLevelTrainer(special_tokens=["[UNK]", "[PAD]", "[EOS]"]))
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]", eos_token="[EOS]")
    path = tmp_path_factory.mktemp("tiny-gpt2")
    fast.save_pretrained(path)
    config = GPT2Config(
        vocab_size=len(fast), n_positions=1024, n_embd=32, n_layer=2, n_head=2, eos_token_id=fast.eos_token_id
    )
    torch.manual_seed(0)
    GPT2LMHeadModel(config).save_pretrained(path)
    return str(path)


def test_transformers_llm_returns_text(tiny_model: str) -> None:
    llm = TransformersLLM(tiny_model, max_new_tokens=8)
    assert isinstance(llm, LLM) and llm.supports_images is False
    out = llm.complete("Launch Contacts and tap Save")
    assert isinstance(out, str)
    assert llm.complete("Launch Contacts and tap Save") == out  # greedy: deterministic


def test_transformers_llm_uses_the_chat_template(tiny_model: str, tmp_path: Any) -> None:
    import shutil

    from transformers import AutoTokenizer

    path = tmp_path / "chat"
    shutil.copytree(tiny_model, path)
    tok = AutoTokenizer.from_pretrained(path, local_files_only=True)
    # a template that writes each message three times: a prompt's length shows whether it was used
    tok.chat_template = (
        "{% for m in messages %}{{ m['content'] }} {{ m['content'] }} {{ m['content'] }} {% endfor %}"
        "{% if add_generation_prompt %}[{% endif %}"
    )
    tok.save_pretrained(path)
    long_prompt = "Save " * 400
    assert isinstance(TransformersLLM(tiny_model, max_new_tokens=4).complete(long_prompt), str)  # 400 tokens fit
    llm = TransformersLLM(path, max_new_tokens=4, system_prompt="Be terse")
    assert isinstance(llm.complete("tap Save"), str)
    with pytest.raises(LLMError, match=r"the prompt has 120[0-9] tokens"):  # 3 x (400 + system prompt) + 1
        llm.complete(long_prompt)


def test_transformers_garbage_is_a_generation_error(tiny_model: str) -> None:
    gen = LLMMilestoneGenerator(TransformersLLM(tiny_model, max_new_tokens=12))
    with pytest.raises(GenerationError, match="expected a JSON array"):
        gen(request())
    with pytest.raises(GenerationError, match="expected a JSON array"):
        gen(request(["Open Contacts"]))


def test_backends_pickle(server: _Server, tiny_model: str) -> None:
    llm = pickle.loads(pickle.dumps(client(server, "good")))
    assert llm.complete("x") == CANNED["good"]
    local = TransformersLLM(tiny_model, max_new_tokens=4)
    out = local.complete("tap Save")
    copy = pickle.loads(pickle.dumps(local))
    assert copy._model is None and copy.complete("tap Save") == out  # loads its own model


def test_transformers_llm_errors(tiny_model: str, tmp_path: Any) -> None:
    with pytest.raises(FileNotFoundError, match=r"no model at .*save_pretrained.*TransformersLLM\('/models/"):
        TransformersLLM(tmp_path / "missing")
    llm = TransformersLLM(tiny_model, max_new_tokens=8)
    with pytest.raises(LLMError, match="text-only"):
        llm.complete("x", images=[b"\x89PNG\r\n\x1a\n"])
    with pytest.raises(LLMError, match="context of 1024 tokens"):
        llm.complete("Save " * 1100)
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "config.json").write_text("{not json")
    with pytest.raises(LLMError, match="could not load"):
        TransformersLLM(tmp_path / "broken").complete("x")
