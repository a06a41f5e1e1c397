"""AndroidWorld's Simple Draw Pro task on the simulated phone (``apps/draw/androidworld.py``): the
oracle solves AndroidWorld's instances 0-29 through the env, doing nothing fails, near misses fail,
the saved file is a real picture, and a draw computed by hand from AndroidWorld's source."""

from __future__ import annotations

import io
import random

import gymnasium as gym
import numpy as np
from PIL import Image

import gui_gym  # noqa: F401  (registers GuiAndroid-v0)
from gui_gym.android.backends.sim import SimBackend
from gui_gym.android.sim.apps.draw import androidworld as aw
from gui_gym.android.sim.apps.draw.app import Canvas, encode
from gui_gym.android.sim.apps.files import data
from gui_gym.android.sim.tasks import TASKS
from gui_gym.android.sim.tasks.androidworld import random_file_name

ID = "SimpleDrawProCreateDrawing"


def _start(seed: int) -> tuple[SimBackend, dict]:
    backend = SimBackend()
    episode = backend.start(ID, np.random.default_rng(seed), {"seed": seed})
    return backend, episode.params


def test_the_oracle_solves_androidworlds_instances() -> None:
    env = gym.make("GuiAndroid-v0", task=ID)
    for seed in range(30):
        env.reset(options={"params": {"seed": seed}})
        steps = 0
        while True:
            _, reward, term, trunc, info = env.step(env.unwrapped.oracle_action())
            steps += 1
            assert info["format_valid"], f"seed {seed}, step {steps}: {info.get('reason')}"
            if term or trunc:
                break
        assert term and info["success"] and reward == 1.0, f"seed {seed}"
        assert info["progress"] == 1.0, f"seed {seed}: milestones left unreached"
        dev, p = env.unwrapped.backend.device, env.unwrapped.params
        raw = data.read(dev, f"Pictures/{p['file_name']}")
        assert raw is not None
        if p["file_name"].endswith(".svg"):
            assert raw.startswith(b"<?xml") and b"<path" in raw
        else:  # a real PNG / JPEG showing the line drawn
            img = Image.open(io.BytesIO(raw))
            assert img.format == ("PNG" if p["file_name"].endswith(".png") else "JPEG")
            assert img.convert("L").getextrema()[0] < 64
    env.close()


def test_doing_nothing_fails() -> None:
    env = gym.make("GuiAndroid-v0", task=ID)
    for seed in range(5):
        env.reset(options={"params": {"seed": seed}})
        _, reward, term, _, info = env.step("finish()")
        assert term and not info["success"] and reward == 0.0, f"seed {seed}"
    env.close()


def test_the_draw_by_hand() -> None:
    """``generate_random_params`` (simple_draw_pro.py): ``random.choices(words, k=1)``, then
    ``generate_random_file_name()``, then ``random.choice(extensions)``."""
    r = random.Random(7)
    word = r.choices(list(aw.WORDS), k=1)[0]
    name = random_file_name(r)
    ext = r.choice(list(aw.EXTENSIONS))
    assert TASKS[ID].sample_seed(7)["file_name"] == f"{word}_{name}{ext}"


def _save(backend: SimBackend, folder: str, name: str, ext: str) -> None:
    dev = backend.device
    dev.launch("draw")
    screen = dev.top_screen()
    assert isinstance(screen, Canvas)
    screen.on_save(dev, (folder, name, ext))


def test_near_misses_fail() -> None:
    """The name typed with its extension (``x.png.png``), the app's default folder, or another
    format: no file at ``Pictures/<file_name>``."""
    backend, p = _start(4)
    task, dev = TASKS[ID], backend.device
    stem, ext = p["file_name"].rsplit(".", 1)
    _save(backend, "Pictures", p["file_name"], ext)
    _save(backend, "Simple Draw", stem, ext)
    _save(backend, "Pictures", stem, "png" if ext != "png" else "jpg")
    assert not task.check(dev, p, None, "complete")
    _save(backend, "Pictures", stem, ext)
    assert task.check(dev, p, None, "complete")


def test_the_files_are_what_the_app_writes() -> None:
    strokes = (((0, 0, 0), 12, ((10, 10), (200, 10))),)
    assert encode(strokes, "png")[:8] == b"\x89PNG\r\n\x1a\n"
    assert encode(strokes, "jpg")[:3] == b"\xff\xd8\xff"
    assert b'd="M10,10 L200,10"' in encode(strokes, "svg")
