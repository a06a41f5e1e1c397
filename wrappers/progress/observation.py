"""Observations as the text reward models read: the env family's ``observation_text``.

A progress or outcome model reads the screen (or room) as compact text. Which text an
observation makes is the family's business (:meth:`gui_gym.core.family.EnvFamily.observation_text`),
so wrappers resolve the family of the env they wrap once, at construction, and never import it.
An env whose class names no family still works when its observations are text already, or a
dict with a ``"text"`` entry; anything else fails on the first observation with a message that
names the fix.

Example:
    >>> import gymnasium as gym, gui_gym
    >>> env = gym.make("GuiAndroid-v0", task="SystemWifiTurnOn")
    >>> obs, _ = env.reset(seed=0)
    >>> observation_reader(env)(obs)[:13]
    'nexuslauncher'
    >>> observation_reader(gym.make("CartPole-v1"))({"text": "a room"})
    'a room'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import gymnasium as gym

from gui_gym.core.family import family_of

__all__ = ["ObservationText", "observation_reader"]

#: observation -> text
ObservationText = Callable[[Any], str]


def observation_reader(env: gym.Env | gym.vector.VectorEnv) -> ObservationText:
    """The function that turns ``env``'s observations into text (one of a vector env's sub-envs).

    The env's family's ``observation_text`` when its class names one; otherwise a reader that
    takes a string observation as it is and a dict's ``"text"`` entry, and raises ``TypeError``
    naming the fix for anything else.
    """
    where: Any = env
    if isinstance(env, gym.vector.SyncVectorEnv):
        where = env.envs[0]
    elif isinstance(env, gym.vector.VectorEnv):  # sub-envs in other processes: ask for their spec
        where = env.spec or env.get_attr("spec")[0]
    name = getattr(where, "id", None) or type(env).__name__
    if where is None:
        return _generic(name)
    try:
        return family_of(where).observation_text
    except ValueError:
        return _generic(name)


def _generic(name: str) -> ObservationText:
    def text(obs: Any) -> str:
        if isinstance(obs, str):
            return obs
        if isinstance(obs, Mapping) and isinstance(obs.get("text"), str):
            return obs["text"]
        raise TypeError(
            f"{name} names no env family and its observations are {type(obs).__name__}, not text: give its env "
            "class a `family` attribute whose observation_text turns them into text (see gui_gym.core.family), "
            'or make the observation a string or a dict with a "text" entry'
        )

    return text
