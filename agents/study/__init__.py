"""The reward-shaping study: the papers' comparisons of reward settings on ``GuiAndroid-v0``.

``gui-gym study --mode quick`` (or ``python benchmarks/reward_study.py``) trains one policy under
every setting of :mod:`agents.study.settings` with several seeds
(:mod:`agents.study.runner`) and writes ``reward_study.md`` with tables and learning curves
(:mod:`agents.study.report`).
"""

from agents.study.settings import MODES, SETTINGS, Setting, StudyConfig, setting

__all__ = ["MODES", "SETTINGS", "Setting", "StudyConfig", "setting"]
