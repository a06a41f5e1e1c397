"""ALFWorld: its game files read as data (:mod:`gui_gym.alfworld.pddl`)."""
