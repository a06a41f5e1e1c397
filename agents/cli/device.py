"""``gui-gym serve-adb``: the simulated phone as an adb device on a loopback port.

::

    gui-gym serve-adb [--port 5037] [--task ContactsAddContact --seed 0] [--device-port 5555]

Then any adb client drives it: ``adb -P 5037 devices``, ``adb -P 5037 shell uiautomator dump``,
adbutils' ``AdbClient(port=5037)``, a controller written for an emulator. With ``--task`` the
phone starts in that task's initial state (the instruction is printed). Port 5037 is the adb
server's own: stop a running ``adb server`` first (``adb kill-server``), or pick another port.
With ``--device-port`` the phone also listens as a network device (adbd's transport protocol), so
a real adb server reaches it with ``adb connect 127.0.0.1:PORT``.

With ``--console`` the phone also answers ``adb emu`` (an emulator's console, on the port its
serial names: ``emulator-5554`` → 5554; pick the serial to pick the port). With ``--expert`` the
server answers the simulator's oracle over the ``host:gui-gym-expert:`` side channel (see
``gui_gym/android/sim/adb/expert.py``), for code that judges the phone with a benchmark's own
task code; off by default, so an agent on a served phone has no oracle to ask.

Limits: ``--max-connections`` (default 64) connections at once, on each port — one more is
refused (``FAIL`` "at its limit of N connections") and logged; ``--max-storage-mb`` (default
256) MiB in the phone's storage — a push that would pass it fails and stores nothing.
"""

from __future__ import annotations

import argparse
import sys
import time

__all__ = ["add_parser", "cmd_serve_adb"]


def cmd_serve_adb(args: argparse.Namespace) -> int:
    import numpy as np

    from gui_gym.android.sim.adb.server import serve_adb

    # unset limits keep the server's defaults (importing them for argparse would slow every command)
    limits = {} if args.max_connections is None else {"max_connections": args.max_connections}
    if args.max_storage_mb is not None:
        limits["max_storage"] = args.max_storage_mb << 20
    try:
        server = serve_adb(host=args.host, port=args.port, serial=args.serial, expert=args.expert, **limits)
    except OSError as err:
        where = f"{args.host}:{args.port}"
        print(f"error: cannot listen on {where}: {err} (is an adb server running there?)", file=sys.stderr)
        return 2
    if args.task:
        try:
            episode = server.backend.start(args.task, np.random.default_rng(args.seed))
        except KeyError:
            server.close()
            print(f"error: unknown task {args.task!r}; `gui-gym tasks` lists them", file=sys.stderr)
            return 2
        print(f"task {args.task} (seed {args.seed}): {episode.instruction}")
    device = console = None
    if args.console:
        from gui_gym.android.sim.adb.console import EmulatorConsole

        number = args.serial.removeprefix("emulator-")
        if not number.isdigit():
            server.close()
            print(f"error: --console needs a serial emulator-PORT, got {args.serial!r}", file=sys.stderr)
            return 2
        try:
            console = EmulatorConsole(server, host=args.host, port=int(number)).start()
        except OSError as err:
            server.close()
            print(f"error: cannot listen on {args.host}:{number}: {err}", file=sys.stderr)
            return 2
        print(f"emulator console at {console.address}; try: adb -P {server.port} -s {args.serial} emu help")
    if args.device_port is not None:
        from gui_gym.android.sim.adb.transport import DeviceTransport

        try:
            conns = {k: v for k, v in limits.items() if k == "max_connections"}
            device = DeviceTransport(server, host=args.host, port=args.device_port, **conns).start()
        except OSError as err:
            server.close()
            if console is not None:
                console.close()
            print(f"error: cannot listen on {args.host}:{args.device_port}: {err}", file=sys.stderr)
            return 2
        print(f"network device at {device.address}; try: adb connect {device.address}")
    print(f"adb server (version 41) with {server.serial} at {server.address}; try: adb -P {server.port} devices -l")
    print("Ctrl-C stops it.", flush=True)
    try:
        while server.running:  # ends on host:kill too
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        for listener in (device, console):
            if listener is not None:
                listener.close()
        server.close()
    return 0


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve-adb", help="serve the simulated phone as an adb device", description=__doc__)
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.add_argument("--host", default="127.0.0.1", help="the address to listen on (default: loopback only)")
    p.add_argument("--port", type=int, default=5037, help="the adb server port (default 5037)")
    p.add_argument("--serial", default="emulator-5554")
    p.add_argument("--task", help="set this task up on the phone first")
    p.add_argument("--seed", type=int, default=0, help="the task instance's seed")
    p.add_argument("--device-port", type=int, help="also listen here as a network device (adb connect)")
    p.add_argument("--console", action="store_true", help="also answer adb emu on the serial's console port")
    p.add_argument("--expert", action="store_true", help="answer the simulator's oracle over a side channel")
    p.add_argument(
        "--max-connections", type=_positive, default=None,
        help="connections served at once, per port; more are refused (default 64)",
    )  # fmt: skip
    p.add_argument(
        "--max-storage-mb", type=_positive, default=None, metavar="MB",
        help="MiB the phone's storage holds; a push past it fails (default 256)",
    )  # fmt: skip
    p.set_defaults(func=cmd_serve_adb)
