"""UI-Mem's experience extraction with a language model: the paper's prompts (Figs. 11-13).

:class:`LLMExtractor` is an extractor for :func:`wrappers.memory.evolve.evolve`, taking any
:class:`~wrappers.llm.LLM` (an OpenAI-compatible server, a local transformers model). Per episode:

1. Fig. 11 (subtask experience and failure analysis): the goal, the subtasks ``T1, T2, …`` (the
   task's milestones), the steps, and which subtasks were completed and which failed (pre-computed
   from the env's milestones, as the paper pre-computes them with its verifier); the reply's
   ``success_experiences`` become skills, its ``failure_diagnosis`` the diagnosis of the first
   failed subtask.
2. Fig. 12 (workflow), successes only: the essential states ``S1, S2, …`` (the same milestones),
   the states the env verified, the steps; the reply's ``execution_plan`` (state ids, in order)
   becomes the workflow and its ``rationale`` is kept.
3. Fig. 13 (abstraction), with ``abstraction="llm"``: each extracted text and the episode's slot
   values; the reply's ``generalized_plan`` is stored. The default, ``abstraction="values"``,
   substitutes the values itself (:func:`~wrappers.memory.templates.abstract`): the same result
   without a model call per text.

A reply that is not what the prompt asks for (not JSON, unknown ids, missing keys) raises
:class:`~wrappers.generation.GenerationError`; :func:`~wrappers.memory.evolve.evolve` then logs it
and uses the built-in extractor for that episode, so a failing model never stops training. The
paper's verifier prompt (Fig. 10) is not needed: the envs report success and milestones.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from wrappers.generation import GenerationError
from wrappers.llm import LLM, parse_json_object
from wrappers.memory.evolve import EpisodeRecord, Extraction
from wrappers.memory.templates import abstract

__all__ = ["ABSTRACT_PROMPT", "EXPERIENCE_PROMPT", "WORKFLOW_PROMPT", "LLMExtractor"]

EXPERIENCE_PROMPT = """You are an expert in analyzing mobile UI automation agents.
Your goal is to extract 'Rules of Experience' based on an execution trajectory.
You will be given the results of a trajectory analysis, indicating which subtasks succeeded and which failed.

### Task Context
Goal: '{task_description}'
Subtasks: {all_subtasks}
### Trajectory Summary
{formatted_steps_str}
### Analysis Results (Pre-computed)
Completed subtasks: {completed_subtasks}
Failed subtasks: {failed_subtasks}
### Your Task
Generate 'Experience' for the successful subtasks and the failed subtasks.
1. Success Experience: For every completed subtask, extract a clear, step-by-step execution plan.
- CRITICAL: If the step involves interacting with a specific name, number, or text found in the 'Goal', you MUST \
include that exact value in your summary (e.g., 'Click on contact Alice' instead of 'Click on the contact').
2. Failure Analysis: For the *first* failed subtask encountered (the bottleneck), explain WHY it failed and HOW to \
avoid it.
### Output Format
Return a JSON object:
```json
{
"success_experiences": [
{ "subtask_id": "T1", "plan_summary": "Locate the conversation entry corresponding to '+123456' on the main screen \
and tap it..." },
{ "subtask_id": "T2", "plan_summary": "Type 'Hello World' into the text box..." }
],
"failure_diagnosis": {
"first_failed_subtask_id": "S3",
"root_cause": "...",
"correction_guideline": "..."
}
}
```"""

WORKFLOW_PROMPT = """You are an expert GUI agent analyst. Your goal is to reverse-engineer the High-Level Execution \
Plan from a successful agent trajectory.
## The Concept
An 'Execution Plan' is strictly a sequence of Essential State IDs (e.g., ['S1', 'S3', 'S2']) that represents the \
logical order in which key milestones were achieved.
## Inputs provided to you
1. Task Instruction: What the agent was trying to do.
2. Essential State Definitions: A dictionary mapping IDs (S1, S2...) to state descriptions.
3. Agent Trajectory: The actual actions taken.
4. Verified States: Which states the Reward Model confirms were triggered.
## Your Task
Analyze the connection between the Trajectory and the Essential State Definitions.
Determine the exact order in which the Essential States were achieved.
## Guidelines
- Strict Vocabulary: You must ONLY use the provided State IDs (S1, S2, etc.). Do not invent new steps.
- Order Matters: The list must reflect the chronological order of achievement.
- Noise Filtering: If the agent performed useless actions between S1 and S2, ignore them. Only capture the state \
transitions.
- Missing States: If a state was defined in the template but NOT achieved in the trajectory, do NOT include it.
- Rationale: Provide a brief explanation of why this order was chosen (e.g., 'S3 had to be done before S2 because...').
## Output Format
Respond with a JSON object:
```json
{
"execution_plan": ["S1", "S3", "S2"],
"rationale": "The agent first opened the dialog (S1), then immediately solved the puzzle (S3) within the dialog, \
and finally confirmed the app selection (S2)."
}
```

## Task Instruction
'{instruction}'
## Essential State Definitions (Vocabulary)
{states_desc_str}
## Verified States (from Reward Model)
{completed_states_sequence}
## Agent Trajectory
{history_block}
## Perform Analysis
Based on the trajectory and verified states, reconstruct the sequence of Essential States."""

ABSTRACT_PROMPT = """You represent a system that generalizes specific automation rules into template rules.
Your task is to replace specific values with their corresponding variable placeholders based on the provided bindings.
You must output valid JSON.

### Input Data
1. Specific Plan: "{extracted_plan_summary}"
2. Variable Bindings: {slot_bindings}
### Instruction
Rewrite the 'Specific Plan' by replacing any occurrence of the values found in 'Variable Bindings' with their \
dictionary keys wrapped in double curly braces (e.g., {{key}}).
Do not change the structure of the sentence, only swap the values for variables.
### Output Format
Return a single JSON object with the key "generalized_plan". Do not include markdown formatting (like ```json).
### Example
Input Plan: "Search for 'Starbucks' in the map bar and select the one on '5th Avenue'.
Bindings: { "search_term": "Starbucks", "target_street": "5th Avenue" }
Output: { "generalized_plan": "Search for {{search_term}} in the map bar and select the one on {{target_street}}." }
### Your Output"""

_FIELD = re.compile(
    r"\{(task_description|all_subtasks|formatted_steps_str|completed_subtasks|failed_subtasks|instruction|"
    r"states_desc_str|completed_states_sequence|history_block|extracted_plan_summary|slot_bindings)\}"
)


def _fill(template: str, values: Mapping[str, str]) -> str:
    """Fill the prompt's ``{field}`` slots in one pass (values may hold braces and field names)."""
    return _FIELD.sub(lambda m: values[m.group(1)], template)


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise GenerationError(f"expected {what} as a non-empty string, got {value!r:.80}")
    return value.strip()


class LLMExtractor:
    """Extract experience with an LLM and the paper's prompts (see the module docstring).

    Args:
        llm: the language model (:class:`~wrappers.llm.LLM`).
        abstraction: ``"values"`` (substitute the slot values) or ``"llm"`` (Fig. 13).
    """

    def __init__(self, llm: LLM, abstraction: str = "values") -> None:
        if abstraction not in ("values", "llm"):
            raise ValueError(f"abstraction is 'values' or 'llm', not {abstraction!r}")
        self.llm, self.abstraction = llm, abstraction

    def _ask(self, prompt: str, what: str) -> dict[str, Any]:
        try:
            reply = self.llm.complete(prompt)
        except Exception as err:
            raise GenerationError(f"the LLM failed: {type(err).__name__}: {err}") from err
        return parse_json_object(reply, what)

    def _abstract(self, text: str, values: Mapping[str, str]) -> str:
        if self.abstraction == "values" or not values:
            return abstract(text, values)
        prompt = _fill(ABSTRACT_PROMPT, {"extracted_plan_summary": text, "slot_bindings": json.dumps(dict(values))})
        return _text(
            self._ask(prompt, 'a JSON object with "generalized_plan"').get("generalized_plan"), "generalized_plan"
        )

    @staticmethod
    def _steps(record: EpisodeRecord) -> str:
        lines = []
        for i, (description, reached, valid, reason) in enumerate(record.steps, 1):
            line = f"Step {i}: {description or '(no action)'}"
            if not valid:
                line += f" [invalid: {reason or 'not applied'}]"
            if reached:
                line += f" -> reached: {'; '.join(reached)}"
            lines.append(line)
        return "\n".join(lines) or "(no steps)"

    def __call__(self, record: EpisodeRecord) -> Extraction:
        milestones = list(dict.fromkeys(record.milestones))
        reached = [m for _, ms, _, _ in record.steps for m in ms]
        order = list(dict.fromkeys(m for m in reached if m in milestones))
        subtask_ids = {f"T{i}": m for i, m in enumerate(milestones, 1)}
        state_ids = {f"S{i}": m for i, m in enumerate(milestones, 1)}
        steps = self._steps(record)
        completed = [k for k, m in subtask_ids.items() if m in order]
        failed = [] if record.success else [k for k, m in subtask_ids.items() if m not in order]
        reply = self._ask(
            _fill(EXPERIENCE_PROMPT, {
                "task_description": record.instruction,
                "all_subtasks": json.dumps(subtask_ids, ensure_ascii=False),
                "formatted_steps_str": steps,
                "completed_subtasks": json.dumps(completed), "failed_subtasks": json.dumps(failed),
            }),
            "the experience JSON object",
        )  # fmt: skip
        values = record.placeholders
        out = Extraction()
        experiences = reply.get("success_experiences") or []
        if not isinstance(experiences, list):
            raise GenerationError("success_experiences must be a list")
        for e in experiences:
            if not isinstance(e, dict):
                raise GenerationError(f"a success experience must be an object, got {e!r:.80}")
            sid = str(e.get("subtask_id", "")).strip()
            if sid not in subtask_ids:
                raise GenerationError(f"success_experiences names the unknown subtask {sid!r}")
            plan = self._abstract(_text(e.get("plan_summary"), "plan_summary"), values)
            out.skills.append((abstract(subtask_ids[sid], values), plan))
        diagnosis = reply.get("failure_diagnosis")
        if not record.success and isinstance(diagnosis, dict) and failed:
            sid = str(diagnosis.get("first_failed_subtask_id", "")).strip()
            sid = "T" + sid[1:] if sid[:1] == "S" else sid  # the paper's own example writes S3
            if sid not in subtask_ids:
                raise GenerationError(f"failure_diagnosis names the unknown subtask {sid!r}")
            cause = self._abstract(_text(diagnosis.get("root_cause"), "root_cause"), values)
            guideline = self._abstract(_text(diagnosis.get("correction_guideline"), "correction_guideline"), values)
            out.failure = (abstract(subtask_ids[sid], values), cause, guideline)
        if record.success and order:
            plan = self._ask(
                _fill(WORKFLOW_PROMPT, {
                    "instruction": record.instruction,
                    "states_desc_str": json.dumps(state_ids, ensure_ascii=False),
                    "completed_states_sequence": json.dumps([k for k, m in state_ids.items() if m in order]),
                    "history_block": steps,
                }),
                "the execution plan JSON object",
            )  # fmt: skip
            ids = plan.get("execution_plan")
            if not isinstance(ids, list) or not ids or not all(isinstance(i, str) and i in state_ids for i in ids):
                raise GenerationError(f"execution_plan must list the given state ids, got {ids!r:.80}")
            out.workflow = [abstract(state_ids[i], values) for i in dict.fromkeys(ids)]
            out.rationale = str(plan.get("rationale") or "")
        return out
