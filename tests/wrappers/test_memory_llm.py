"""UI-Mem's LLM extractor (Figs. 11-13) against a canned server on loopback: a good model's
experience lands abstract in the memory; garbage, slow and dead servers fall back to the
built-in extractor and never stop the update."""

from __future__ import annotations

import json
import time

import pytest
from _loopback import CannedHandler, CannedServer, dead_url, serving

from wrappers.generation import GenerationError
from wrappers.llm import OpenAICompatibleLLM
from wrappers.memory import ExperienceMemory
from wrappers.memory.evolve import EpisodeRecord, evolve
from wrappers.memory.llm import LLMExtractor

SUCCESS = EpisodeRecord(
    task_id="ContactsAddContact", instruction="Add a contact Zara Costa.", success=True,
    milestones=["Open the Contacts app", "Enter the name Zara Costa", "Save the contact"],
    placeholders={"Name": "Zara Costa"}, scene="contacts",
    steps=[("Launch Contacts", ["Open the Contacts app"], True, ""), ("Tap 'Create contact'", [], True, ""),
           ("Type 'Zara Costa'", ["Enter the name Zara Costa"], True, ""),
           ("Tap 'Save'", ["Save the contact"], True, "")],
)  # fmt: skip
FAILURE = EpisodeRecord(
    task_id="ContactsAddContact", instruction="Add a contact Zara Costa.", success=False,
    milestones=SUCCESS.milestones, placeholders={"Name": "Zara Costa"}, scene="contacts",
    steps=[("Launch Contacts", ["Open the Contacts app"], True, ""), ("", [], False, "no element 7 on the screen")],
)  # fmt: skip


class Handler(CannedHandler):
    def do_POST(self) -> None:
        mode = self.path.split("/")[1]
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        prompt = body["messages"][-1]["content"]
        with self.server.lock:  # type: ignore[attr-defined]
            self.server.requests.append(prompt)  # type: ignore[attr-defined]
        if mode == "slow":
            time.sleep(0.5)
        if mode == "garbage":
            return self.reply("Sure! The agent did great.")
        if mode == "unknown":
            return self.reply('{"success_experiences": [{"subtask_id": "T9", "plan_summary": "x"}]}')
        if "generalizes specific automation rules" in prompt:  # Fig. 13
            plan = prompt.split('Specific Plan: "', 1)[1].split('"\n', 1)[0]
            return self.reply(json.dumps({"generalized_plan": plan.replace("Zara Costa", "{{Name}}")}))
        if "Execution Plan" in prompt:  # Fig. 12
            return self.reply('```json\n{"execution_plan": ["S1", "S2", "S3"], "rationale": "in order\n}\n```'
                              .replace("order\n", "order\"\n"))  # fmt: skip
        experiences = [{"subtask_id": "T1", "plan_summary": "Tap the Contacts icon on the home screen."}]
        if "Failed subtasks: []" in prompt:
            experiences.append({"subtask_id": "T2", "plan_summary": "Tap 'First name' and type Zara Costa."})
            return self.reply(json.dumps({"success_experiences": experiences, "failure_diagnosis": None}))
        guideline = "Open the form with 'Create contact' before typing Zara Costa."
        diagnosis = {"first_failed_subtask_id": "S2", "root_cause": "Tapped an element Zara Costa never had.",
                     "correction_guideline": guideline}  # fmt: skip
        return self.reply(json.dumps({"success_experiences": experiences, "failure_diagnosis": diagnosis}))


@pytest.fixture
def server() -> CannedServer:
    with serving(CannedServer(Handler)) as srv:
        yield srv


def llm(server: CannedServer, mode: str, timeout: float = 5.0) -> OpenAICompatibleLLM:
    return OpenAICompatibleLLM(server.url(mode), model="tiny", timeout=timeout, retries=0, backoff=0.0)


@pytest.mark.parametrize("abstraction", ["values", "llm"])
def test_a_good_model_fills_the_memory_with_abstract_experience(server: CannedServer, abstraction: str) -> None:
    extractor = LLMExtractor(llm(server, "good"), abstraction=abstraction)
    memory = ExperienceMemory(extractor=extractor)
    evolve(memory, [SUCCESS, FAILURE], memory.extractor)
    assert memory.plans("ContactsAddContact")[0]["steps"] == [
        "Open the Contacts app", "Enter the name {{Name}}", "Save the contact"]  # fmt: skip
    assert memory.plans("ContactsAddContact")[0]["rationale"] == "in order"
    assert [s["text"] for s in memory.skills("contacts", "Enter the name {{Name}}")] == [
        "Tap 'First name' and type {{Name}}."
    ]
    (failure,) = memory.failures("contacts", "Enter the name {{Name}}")  # the paper's S-id read as T2
    assert failure["guideline"] == "Open the form with 'Create contact' before typing {{Name}}."
    prompts = server.requests
    assert "Subtasks: " in prompts[0] and 'Completed subtasks: ["T1", "T2", "T3"]' in prompts[0]
    assert 'Failed subtasks: ["T2", "T3"]' in " ".join(prompts)
    assert "[invalid: no element 7 on the screen]" in " ".join(prompts)
    assert any("Essential State Definitions" in p for p in prompts)
    assert any("generalizes specific automation rules" in p for p in prompts) == (abstraction == "llm")


@pytest.mark.parametrize("mode", ["garbage", "unknown", "slow", "dead"])
def test_a_bad_model_falls_back_to_the_builtin_extractor(
    server: CannedServer, mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    client = OpenAICompatibleLLM(dead_url(), model="tiny", timeout=1.0, retries=0) if mode == "dead" else None
    extractor = LLMExtractor(client or llm(server, mode, timeout=0.2))
    with pytest.raises(GenerationError):
        extractor(SUCCESS)
    memory = ExperienceMemory()
    counts = evolve(memory, [SUCCESS, FAILURE], extractor)
    assert counts["workflows"] == 1 and counts["failures"] == 1 and memory.clock == 1
    assert memory.plans("ContactsAddContact")[0]["steps"][1] == "Enter the name {{Name}}"
    assert "using the built-in extractor" in caplog.text
