"""Launcher icons: every app has a glyph of its own, drawn inside its round icon."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw

from gui_gym.android.sim.apps import APPS
from gui_gym.android.sim.icons import GLYPHS, ON_WHITE, WHITE, draw_app_icon


def _icon(glyph: str, color: tuple[int, int, int], size: int = 96) -> np.ndarray:
    img = Image.new("RGB", (size, size), (38, 70, 83))
    draw_app_icon(ImageDraw.Draw(img), (0, 0, size, size), glyph, color)
    return np.asarray(img)


def test_every_app_names_a_glyph_of_its_own() -> None:
    glyphs = [app.icon for app in APPS.values()]
    assert all(g in GLYPHS for g in glyphs), [a.name for a in APPS.values() if a.icon not in GLYPHS]
    assert len(set(glyphs)) == len(glyphs)  # no two apps look alike


@pytest.mark.parametrize("glyph", sorted(GLYPHS))
def test_a_glyph_is_drawn_inside_the_circle(glyph: str) -> None:
    color = (26, 115, 232)
    bare, drawn = _icon("", color), _icon(glyph, color)
    differs = np.any(bare != drawn, axis=2)
    assert differs.sum() > 96 * 96 // 40  # the glyph covers a visible part of the icon
    ys, xs = np.nonzero(differs)
    r = np.hypot(xs - 47.5, ys - 47.5)
    assert r.max() <= 48  # nothing outside the round icon
    background = (38, 70, 83)
    assert tuple(drawn[2, 2]) == background  # the corners stay the launcher's
    disc = WHITE if glyph in ON_WHITE else color
    assert tuple(drawn[48, 3]) == disc and tuple(drawn[3, 48]) == disc  # the rim: the app's colour


def test_an_icon_smaller_than_a_few_pixels_draws_nothing() -> None:
    assert not np.any(_icon("clock", (255, 0, 0), size=3) != _icon("", (255, 0, 0), size=3))
