"""``GuiExperience-v0``: expert trajectories as an environment (EMPO)."""
