"""The milestone generator Φ parameterised by an LLM, with ADMIRE's prompts (paper 000, §3.1).

Initialisation (Eq. 6) uses the prompt of Fig. 14 (P_init) on one successful trajectory;
refinement (Eq. 7) the prompt of Fig. 15 (P_update) on a new successful trajectory and the
current milestones. The prompt texts below are the paper's (markdown emphasis as printed).

Example:
    >>> from gui_gym.core.trajectory import Step, Trajectory
    >>> from wrappers.generation import GenerationRequest
    >>> class Canned:  # any object with complete(prompt, images=None) -> str
    ...     def complete(self, prompt, images=None):
    ...         return '["Open Contacts", "Enter the first name \\\\"Zara\\\\"", "Save the contact"]'
    >>> t = Trajectory("ContactsAddContact", "Add a contact named Zara Costa.",
    ...                steps=[Step("...", action_description="Launch Contacts")])
    >>> LLMMilestoneGenerator(Canned())(GenerationRequest(t.task_id, t.instruction, t, placeholders={"First": "Zara"}))
    ['Open Contacts', 'Enter the first name "<First>"', 'Save the contact']
"""

from __future__ import annotations

import json
import re

from wrappers.generation import GenerationError, GenerationRequest, abstract
from wrappers.llm import LLM, parse_milestones

#: Fig. 14: "Prompt used to initialize the task's milestones based on the correct trajectory."
INIT_PROMPT = """You are an expert in mobile GUI operations. You will be given a successfully completed task trajectory, including:

- the task name and overall goal,
- a sequence of action descriptions representing user interactions, and
- corresponding reference screenshots.

Your task is to identify only the **essential steps** required to accomplish the goal. Focus exclusively on actions that are absolutely necessary, and **ignore** redundant or non-essential steps.

Your objective is to distill these essential actions into a **concise list of milestones items** representing the key sub-tasks needed to complete the goal. These milestones:

- should represent **logically distinct stages** of progress toward the goal,
- must be **clear**,
- should be **short, non-overlapping, and non-redundant**, and
- must include **only necessary steps**.
- Keep important action-related keywords unchanged.

When task-specific details appear (such as names, dates, events, entries, files, or paths), replace them with generic placeholders like '<Name>', '<Date>', '<Event>', '<Entry>', '<File>', or '<Path>'.

Your final output must be a **strict JSON array** containing only these milestone strings.

Do **not** include any numbering, explanations, commentary, or other non-JSON content.

Focus on summarizing the **core actions** into a clean, abstract milestone — generalizable and free of specific details.

For example: "Locate the <Entry> on the page", "Input <Name> as the note name", "Navigate to the <Path> on the page".

Task: {task}

User Instruction: {Instruction}

Example action descriptions from new trajectory (ordered; may be redundant): {Action Description List}

Output the essential milestone as a strict JSON array."""  # noqa: E501

#: Fig. 15: "Prompt used to refining the task's milestones based on the correct trajectory."
REFINE_PROMPT = """You are an expert in refining mobile GUI task milestones. You will be provided with the following information:

- the task name and overall goal,
- an existing milestone,
- a set of action descriptions from a newly observed successful trajectory, and
- corresponding reference screenshots.

Your role is to analyze the new trajectory, filtering out any redundant or meaningless interactions and focusing only on actions that are **essential** for achieving the task's objective.

Your primary responsibility is to determine whether the **existing milestone** can be improved based on the new information.

By default, assume the current milestones are already sufficient. They should be revised **only** if the new trajectory clearly reveals **more minimal, precise, or effective** actions that better represent the essential steps.

If the existing milestone already provides a clear, general, and minimal set of essential steps, return it **unchanged**.

If an update is warranted, output the improved milestones as a **strict JSON array**. Each milestone must be:

- a short, **executable step** starting with an action verb,
- **non-redundant** and **clearly phrased**, and
- generalized by replacing task-specific details (e.g., names, dates, events, entries, paths) with placeholders such as '<Name>', '<Date>', '<Event>', '<Entry>', or '<Path>'.

Do **not** include any numbering, commentary, or text outside the JSON structure.

Your output must contain **only** the finalized milestones in valid JSON format.

Task: {task}

User Instruction: {Instruction}

Existing milestone (JSON): {Milestone}

Example action descriptions from new trajectory (ordered; may be redundant): {Action Description List}

Decide whether to keep the existing milestone or refine it. Output **ONLY** the final milestone as a strict JSON array."""  # noqa: E501


_FIELD = re.compile(r"\{(task|Instruction|Milestone|Action Description List)\}")


def _fill(template: str, values: dict[str, str]) -> str:
    """Fill the paper's ``{...}`` fields in one pass (values may contain braces or field names)."""
    return _FIELD.sub(lambda m: values[m.group(1)], template)


class LLMMilestoneGenerator:
    """Φ(τ, G, P_init) and Φ(τ_new, M_G^(i), G, P_update) with an :class:`~wrappers.llm.LLM` (Eq. 6-7).

    Implements :class:`wrappers.generation.MilestoneGenerator`. ``request.current`` empty → the
    Fig. 14 prompt on ``request.trajectory``; otherwise the Fig. 15 prompt with the current
    milestones as JSON. ``{task}`` is the task id, ``{Instruction}`` the instruction, and the
    action description list the trajectory's ``action_description`` values in order (empty
    ones left out), as a JSON array.

    The paper's prompts mention reference screenshots; trajectories here carry text only, so
    no screenshots are passed (the prompt text is kept as printed).

    The reply must be a strict JSON array of non-empty strings (see
    :func:`wrappers.llm.parse_milestones`); the LLM abstracts task-specific values into
    placeholders as the prompt asks, and :func:`~wrappers.generation.abstract` then turns any
    concrete value of ``request.placeholders`` left in into its ``<Slot>``. Garbage, empty or
    non-JSON output, and a failing backend, raise :class:`~wrappers.generation.GenerationError`.
    """

    def __init__(self, llm: LLM) -> None:
        if llm is None or not callable(getattr(llm, "complete", None)):
            raise TypeError(
                "LLMMilestoneGenerator needs an LLM with complete(prompt, images=None) -> str, e.g. "
                "OpenAICompatibleLLM(base_url, model) or TransformersLLM(path) from wrappers.llm"
            )
        self.llm = llm

    def prompt(self, request: GenerationRequest) -> str:
        """The P_init (Fig. 14) or P_update (Fig. 15) prompt for ``request``."""
        actions = [s.action_description for s in request.trajectory.steps if s.action_description]
        values = {
            "task": request.task_id,
            "Instruction": request.instruction,
            "Action Description List": json.dumps(actions, ensure_ascii=False),
            "Milestone": json.dumps(list(request.current), ensure_ascii=False),
        }
        return _fill(REFINE_PROMPT if request.current else INIT_PROMPT, values)

    def __call__(self, request: GenerationRequest) -> list[str]:
        prompt = self.prompt(request)
        try:
            reply = self.llm.complete(prompt)
        except Exception as e:  # LLMError, or whatever a user's backend raises
            raise GenerationError(f"the LLM call failed ({type(e).__name__}: {e})") from e
        milestones = parse_milestones(reply)
        return [abstract(m, request.placeholders) for m in milestones]
