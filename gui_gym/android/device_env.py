"""``GuiAndroidDevice-v0``: ``GuiAndroid-v0`` on a phone or emulator over adb.

The same observation and action spaces, actions and ``info`` keys as the simulator, from a device
an adb server can see (:class:`~gui_gym.android.backends.adb.AdbBackend`). By default it runs the
tasks a device can judge: those whose state is read back over adb (Settings, Contacts, Messages,
Markor) and AndroidWorld's Clock tasks, judged from the screen; ``task=`` picks others, which run
instruction-only (``info["judged_by"] == "agent"``).

Example (with ``gui-gym serve-adb --port 5039`` running, or any device on a real adb server)::

    env = gym.make("GuiAndroidDevice-v0", port=5039)
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step('do(action="Launch", app="Settings")')
"""

from __future__ import annotations

from typing import Any

from gui_gym.android.backends.adb import AdbBackend
from gui_gym.android.env import GuiAndroidEnv

__all__ = ["GuiAndroidDeviceEnv"]


class GuiAndroidDeviceEnv(GuiAndroidEnv):
    """:class:`~gui_gym.android.env.GuiAndroidEnv` with ``backend="adb"`` (see the module docstring).

    Args:
        task: as ``GuiAndroidEnv``'s; default: every task the device judges (state or screen).
        serial: the device (default: the only one the adb server lists).
        host, port: the adb server (5037: the one ``adb`` starts; ``gui-gym serve-adb``'s port).
        settle_timeout, command_timeout: seconds to wait for the screen to settle, for one command.
        **kwargs: the other arguments of ``GuiAndroidEnv`` (observation mode, step limit ...).
    """

    def __init__(
        self,
        task: str | list[str] | None = None,
        serial: str | None = None,
        host: str = "127.0.0.1",
        port: int = 5037,
        settle_timeout: float = 3.0,
        command_timeout: float = 20.0,
        **kwargs: Any,
    ) -> None:
        if "backend" in kwargs or "backend_options" in kwargs:
            raise TypeError("GuiAndroidDevice-v0 is the adb backend; give serial/host/port (or use GuiAndroid-v0)")
        backend = AdbBackend(serial, host, port, settle_timeout=settle_timeout, command_timeout=command_timeout)
        if task is None:
            task = [t for t in backend.tasks if backend.judged_by(t) != "agent"]
        super().__init__(task=task, backend=backend, **kwargs)
