"""A UI-Mem run through the trainer: stratified groups, guided resets, the memory evolving in the
run's file after every iteration, and a resume from the checkpoint that holds it."""

from __future__ import annotations

import json

import torch

from agents.train import MEMORY, TrainConfig, Trainer
from wrappers.memory import ExperienceMemory


def _cfg(tmp_path, encoder: str, **kw) -> TrainConfig:
    base = dict(
        tasks="SystemWifiTurnOn,ClockStopWatchRunning", reward="uimem", sampler="uimem", iterations=2,
        tasks_per_iter=2, group_size=4, num_envs=4, max_steps=8, eval_every=0, eval_episodes=2,
        out=str(tmp_path / "run"), encoder=encoder, progress=False, minibatch=16, hidden=16,
    )  # fmt: skip
    base.update(kw)
    return TrainConfig(**base)


def test_a_uimem_run_evolves_its_memory_and_resumes(tmp_path, tiny_encoder: str) -> None:
    torch.set_num_threads(1)
    trainer = Trainer(_cfg(tmp_path, tiny_encoder, iterations=1))
    seen: list[dict] = []
    sample = trainer.sampler.sample

    def spy(*args, **kwargs):
        batch = sample(*args, **kwargs)
        seen.extend(i.reset_options() for i in batch)
        return batch

    trainer.sampler.sample = spy
    assert trainer.reward_state.memory.matcher is not None  # merges near-duplicates by embedding
    trainer.run()
    assert sorted(o["guidance"] for o in seen[:4]) == ["none", "strong", "strong", "weak"]  # S_0 = 0
    memory = ExperienceMemory.load(tmp_path / "run" / MEMORY)
    assert memory.clock == 1 and len(memory) > 0  # every episode taught something (skills, diagnoses)
    rows = [json.loads(line) for line in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    assert "reward_uimem_progress" in rows[-1] and "reward_uimem_bonus" in rows[-1]
    resumed = Trainer(_cfg(tmp_path, tiny_encoder, iterations=2), resume=True)
    memory = resumed.reward_state.memory
    assert memory is not None and memory.clock == 1 and memory.matcher is not None
    assert resumed.sampler.success == trainer.sampler.success
    resumed.run()
    assert ExperienceMemory.load(tmp_path / "run" / MEMORY).clock == 2
