"""The real ``adb`` client for the device tests: the binary inside the adbutils wheel, else Debian's."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest


def adb_binary() -> str:
    """The path of a runnable ``adb`` client (the test fails, saying what to install, where there is none)."""
    try:
        import adbutils.binaries

        path = Path(adbutils.binaries.__file__).with_name("adb")
        if path.is_file():
            if not os.access(path, os.X_OK):
                path.chmod(path.stat().st_mode | stat.S_IXUSR)
            return str(path)
    except ImportError:
        pass
    found = shutil.which("adb")
    if found is None:  # the dev extra installs adbutils, whose wheel carries adb: a missing one is an error
        pytest.fail("no adb client: pip install -e '.[dev]' (adbutils' wheel carries adb) or apt-get install adb")
    return found


def adb(port: int, *args: str, timeout: float = 30, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    """``adb -P PORT ARGS`` against a server on loopback; never starts a server of its own."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ADB_")}
    env["ADB_MDNS"] = "0"
    return subprocess.run(
        [adb_binary(), "-H", "127.0.0.1", "-P", str(port), *args],
        capture_output=True, timeout=timeout, env=env, input=stdin,
    )  # fmt: skip
