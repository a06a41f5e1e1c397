"""The simulated phone's emulator console: what ``adb emu COMMAND`` reaches.

An Android emulator listens on a loopback console port, the number in its serial
(``emulator-5554`` → 5554); ``adb -s emulator-5554 emu sms send +15551234 hello`` connects there
directly (not through the adb server), sends an optional ``auth TOKEN`` line, the command and
``quit``, and prints what the console answered after its first two ``OK`` lines.
:class:`EmulatorConsole` answers as the emulator does, line by line (``\\r\\n`` line ends):

- on connecting: ``Android Console: type 'help' for a list of commands`` and ``OK`` (this console
  asks no token: a token sent with ``auth`` is taken);
- ``sms send NUMBER TEXT``: a text from NUMBER (``+`` and digits) arrives at the phone, in the
  Messages app, unread, at the phone's clock (AndroidWorld's ``adb_utils.text_emulator``); ``OK``,
  or ``KO: …`` with the reason when the number or the text is missing or malformed;
- ``help``, ``ping`` (``I am alive!``), ``quit`` / ``exit`` (the connection ends);
- anything else: ``KO: unknown command, try 'help'``.

The text is data: it becomes the message's body, nothing runs it. A line longer than
:data:`MAX_LINE` bytes is refused (``KO``) and the connection closed.

Example:
    >>> import socket
    >>> from gui_gym.android.sim.adb.server import AdbServer
    >>> server = AdbServer(port=0)
    >>> console = EmulatorConsole(server, port=0).start()
    >>> with socket.create_connection(("127.0.0.1", console.port)) as s:
    ...     _ = s.sendall(b"sms send +15550100 Hello there\\nquit\\n")
    ...     answer = b"".join(iter(lambda: s.recv(4096), b""))
    >>> answer.decode().split("\\r\\n")[1:3]
    ['OK', 'OK']
    >>> server.backend.device.data("messages").get("+15550100").messages[-1].text
    'Hello there'
    >>> console.close(); server.close()
"""

from __future__ import annotations

import re
import socket
from typing import Any

from gui_gym.android.sim.adb.listener import MAX_CONNECTIONS, Listener

__all__ = ["MAX_LINE", "EmulatorConsole"]

#: The longest command line the console reads (an SMS body is far shorter).
MAX_LINE = 16 * 1024
BANNER = b"Android Console: type 'help' for a list of commands\r\nOK\r\n"
HELP = (
    b"Android console commands:\r\n\r\n"
    b"    help|h|?         print a list of commands\r\n"
    b"    sms              SMS related commands\r\n"
    b"    ping             check if the emulator is alive\r\n"
    b"    quit|exit        quit control session\r\n\r\n"
    b"try 'help <command>' for command-specific help\r\nOK\r\n"
)
_NUMBER = re.compile(r"\+?[0-9]+")


class EmulatorConsole(Listener):
    """The console of *server*'s phone (an :class:`~gui_gym.android.sim.adb.server.AdbServer`) on
    *host*:*port*; see the module docstring."""

    name = "adb-console"

    def __init__(
        self,
        server: Any,
        host: str = "127.0.0.1",
        port: int = 5554,
        timeout: float = 30.0,
        max_connections: int = MAX_CONNECTIONS,
    ) -> None:
        super().__init__(host, port, timeout, max_connections)
        self.server = server

    def handle(self, conn: socket.socket) -> None:
        with conn:
            try:
                conn.sendall(BANNER)
                buf = b""
                while True:
                    while b"\n" not in buf:
                        if len(buf) > MAX_LINE:
                            conn.sendall(f"KO: a command line of more than {MAX_LINE} bytes\r\n".encode())
                            return
                        chunk = conn.recv(4096)
                        if not chunk:
                            return
                        buf += chunk
                    line, buf = buf.split(b"\n", 1)
                    answer = self.command(line.rstrip(b"\r").decode("utf-8", errors="replace"))
                    if answer is None:
                        return
                    conn.sendall(answer)
            except OSError:
                pass

    def command(self, line: str) -> bytes | None:
        """The console's answer to one command line; ``None``: the session ends."""
        words = line.split()
        if not words:
            return b""
        verb = words[0].lower()
        if verb in ("quit", "exit"):
            return None
        if verb == "auth":
            return BANNER
        if verb in ("help", "h", "?"):
            return HELP
        if verb == "ping":
            return b"I am alive!\r\nOK\r\n"
        if verb == "sms":
            return self._sms(line.lstrip()[len(words[0]) :].lstrip())
        return b"KO: unknown command, try 'help'\r\n"

    def _sms(self, rest: str) -> bytes:
        sub, _, rest = rest.partition(" ")
        if sub != "send":
            return b"KO: bad sub-command, try 'help sms'\r\n"
        number, _, text = rest.lstrip(" ").partition(" ")
        if not number or not text:
            return b"KO: missing argument, try 'sms send <phonenumber> <text message>'\r\n"
        if not _NUMBER.fullmatch(number):
            return b"KO: bad phone number format, must be [+](0-9)*\r\n"
        with self.server.lock:
            device = self.server.backend.device
            data = device.data("messages")
            try:
                data.add(number, text, True, device.state.now, read=False)  # a text that has just come in
            except TypeError:  # a messages model that keeps no read state
                data.add(number, text, True, device.state.now)
            device.invalidate()
        return b"OK\r\n"
