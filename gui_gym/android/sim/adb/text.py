"""The served phone's small text and clock commands: ``echo [-n]``, ``true``, ``false``, ``grep
[-iv] PATTERN`` (on its input, in pipes), ``whoami``, ``sleep SECONDS`` (the phone's clock moves
on) and ``date [+FORMAT | MMDDhhmmYY.ss]`` (prints or sets the phone's clock).

They register themselves with :func:`~gui_gym.android.sim.adb.commands.command`;
:mod:`~gui_gym.android.sim.adb.shell` imports this module so that they do.
"""

from __future__ import annotations

import io
import re

from gui_gym.android.sim.adb.commands import PhoneShell as Shell
from gui_gym.android.sim.adb.commands import command

__all__ = ["MAX_SLEEP_S"]


@command("echo")
def _echo(sh: Shell, args: list[str], stdin: bytes, out: io.BytesIO, err: io.BytesIO) -> int:
    newline = True
    if args and args[0] == "-n":
        newline, args = False, args[1:]
    out.write((" ".join(args) + ("\n" if newline else "")).encode())
    return 0


@command("true")
def _true(sh: Shell, args: list[str], stdin: bytes, out: io.BytesIO, err: io.BytesIO) -> int:
    return 0


@command("false")
def _false(sh: Shell, args: list[str], stdin: bytes, out: io.BytesIO, err: io.BytesIO) -> int:
    return 1


#: the longest ``sleep`` the phone's clock takes at once (an hour)
MAX_SLEEP_S = 3600.0


@command("sleep")
def _sleep(sh: Shell, args: list[str], stdin: bytes, out: io.BytesIO, err: io.BytesIO) -> int:
    """``sleep SECONDS``: the phone's clock moves on by that much at once (a video plays on, a timer
    runs down); the host does not wait. The clock moves with the phone's actions, not the host's."""
    try:
        seconds = float(args[0]) if len(args) == 1 else float("nan")
    except ValueError:
        seconds = float("nan")
    if not 0 <= seconds <= MAX_SLEEP_S:  # also NaN, inf
        err.write(f"sleep: bad duration {' '.join(args)[:40]!r} (0 to {MAX_SLEEP_S:g} seconds)\n".encode())
        return 1
    sh.device.pass_time(seconds)
    return 0


@command("grep")
def _grep(sh: Shell, args: list[str], stdin: bytes, out: io.BytesIO, err: io.BytesIO) -> int:
    flags = {c for a in args if a.startswith("-") and len(a) > 1 for c in a[1:]}
    words = [a for a in args if not a.startswith("-") or len(a) == 1]
    if not words:
        err.write(b"usage: grep [-iv] PATTERN\n")
        return 2
    try:
        pattern = re.compile(words[0], re.I if "i" in flags else 0)
    except re.error:
        pattern = re.compile(re.escape(words[0]), re.I if "i" in flags else 0)
    found = False
    for line in stdin.decode("utf-8", errors="replace").splitlines(keepends=True):
        if bool(pattern.search(line)) != ("v" in flags):
            out.write(line.encode())
            found = True
    return 0 if found else 1


@command("whoami")
def _whoami(sh: Shell, args: list[str], stdin: bytes, out: io.BytesIO, err: io.BytesIO) -> int:
    out.write(b"root\n")  # an emulator image run as AndroidWorld runs it (adb root)
    return 0


@command("date")
def _date(sh: Shell, args: list[str], stdin: bytes, out: io.BytesIO, err: io.BytesIO) -> int:
    """``date`` prints the phone's clock (``+FORMAT`` too); ``date MMDDhhmmYY.ss`` sets it, as
    AndroidWorld sets an emulator's."""
    import datetime as dt

    now = sh.device.state.now
    if not args:
        out.write(now.strftime("%a %b %d %H:%M:%S UTC %Y\n").encode())
        return 0
    if args[0].startswith("+"):  # %s: seconds since the epoch (the clock is UTC, whatever the host's zone)
        epoch = str(int(now.replace(tzinfo=dt.UTC).timestamp()))
        parts = re.split(r"(%%|%s)", args[0][1:])
        text = "".join(epoch if p == "%s" else "%" if p == "%%" else now.strftime(p) for p in parts)
        out.write((text + "\n").encode())
        return 0
    try:
        sh.device.state.now = dt.datetime.strptime(args[0], "%m%d%H%M%y.%S")
    except ValueError:
        err.write(f"date: bad date {args[0][:40]!r}\n".encode())
        return 1
    sh.device.invalidate()
    out.write(sh.device.state.now.strftime("%a %b %d %H:%M:%S UTC %Y\n").encode())
    return 0
