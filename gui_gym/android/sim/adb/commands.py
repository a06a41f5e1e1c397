"""The served phone's shell commands, by name: the registry the shell and the command modules share.

A command is a function ``(shell, args, stdin, out, err) -> exit status`` registered with
:func:`command`; it reads and changes the phone only through what :class:`PhoneShell` offers.
"""

from __future__ import annotations

import datetime as dt
import io
from collections.abc import Callable
from typing import Any, Protocol

__all__ = ["COMMANDS", "Handler", "PhoneShell", "command"]


class PhoneShell(Protocol):
    """What a command sees of the shell (:class:`~gui_gym.android.sim.adb.shell.Shell`)."""

    device: Any
    files: dict[str, bytes]
    dirs: set[str]
    mtimes: dict[str, dt.datetime]

    def path(self, p: str) -> str: ...

    def write(self, path: str, data: bytes) -> str | None: ...

    def listing(self, path: str) -> list[tuple[str, bool, int]] | None: ...


Handler = Callable[[Any, list[str], bytes, io.BytesIO, io.BytesIO], int]
#: command name -> handler
COMMANDS: dict[str, Handler] = {}


def command(*names: str) -> Callable[[Handler], Handler]:
    """Register the decorated function as the command(s) *names*."""

    def register(fn: Handler) -> Handler:
        for n in names:
            COMMANDS[n] = fn
        return fn

    return register
