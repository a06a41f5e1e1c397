"""The simulated phone's shell: what ``adb shell`` reaches on it.

A small interpreter of the command lines that agents and controllers send (AndroidWorld's and
AndroidLab's, adbutils', the ``adb`` client's): ``uiautomator dump [FILE]``, ``screencap [-p]
[FILE]``, ``input tap|swipe|text|keyevent|keycombination``, ``am start|force-stop|broadcast|stack
list|stack remove`` (the INSERT contact and SENDTO sms intents; the clipper app's ``clipper.set``
/ ``clipper.get`` broadcasts), ``monkey -p``, ``pm list packages|clear|grant``, ``dumpsys
window|activity [recents]|input|display``, ``wm size|density`` (those of the activity, package
and window managers in :mod:`~gui_gym.android.sim.adb.activities`), ``getprop``, ``settings
get|put|delete|list`` (any key), ``date``, ``content query|insert|delete`` (contacts, SMS, the
media store: :mod:`~gui_gym.android.sim.adb.providers`), the file commands of
:mod:`~gui_gym.android.sim.adb.files` (``cat``, ``rm``, ``mkdir``, ``ls``, ``find``, ``test`` /
``[``, ``printf``, ``touch``, ``stat``…), those of :mod:`~gui_gym.android.sim.adb.system`
(``svc``, ``cp``, ``sqlite3`` on the telephony database; the app data folders and AndroidWorld's
snapshots of them), ``echo``, ``grep`` (in pipes), ``true``, ``false``, ``sleep``, ``whoami``
(those of :mod:`~gui_gym.android.sim.adb.text`), ``exit``. sh's grammar
as far as controllers use it: ``;``, ``&&``, ``||``, ``|``, line breaks, ``if … then … else …
fi``, redirections (``>``, ``>>``, ``<``, ``2>``, ``2>&1``), globs over the phone's files, and
sh's quoting.

It runs nothing: every command is read as data and mapped onto the simulator — an input event is
an :class:`~gui_gym.android.actions.Action` given to :meth:`Device.act
<gui_gym.android.sim.device.Device.act>`, the env's own action path — and files live in an
in-memory ``/sdcard`` (Markor's notebook mounted in it). What sh would run or substitute
(``$(...)``, backquotes, ``$VAR``, subshells) is refused with sh's kind of error, so agent text that
reaches this shell stays text, as it must on a device. An unknown command gets sh's
``inaccessible or not found`` and exit status 127, never an exception.

Example:
    >>> from gui_gym.android.sim.device import Device
    >>> sh = Shell(Device())
    >>> sh.run("echo hello && wm size").stdout
    b'hello\\nPhysical size: 1080x2400\\n'
    >>> sh.run("monkey -p com.google.android.deskclock -c android.intent.category.LAUNCHER 1").status
    0
    >>> sh.run("dumpsys window | grep mCurrentFocus").stdout.decode().strip()[:44]
    'mCurrentFocus=Window{5c1e0d0 u0 com.google.a'
    >>> sh.run("rm -rf $(echo /)").status, sh.run("nosuch").stderr
    (2, b'/system/bin/sh: nosuch: inaccessible or not found\\n')
"""

from __future__ import annotations

import datetime as dt
import fnmatch
import io
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from gui_gym.android.actions import Action
from gui_gym.android.settings_keys import ANDROID_KEYS, from_android, to_android
from gui_gym.android.sim.adb import providers  # noqa: F401 (registers ``content``)
from gui_gym.android.sim.adb.commands import COMMANDS, command
from gui_gym.android.sim.adb.files import check_database, sync_in, sync_out
from gui_gym.android.sim.adb.system import app_folders
from gui_gym.android.sim.adb.text import MAX_SLEEP_S  # noqa: F401 (registers echo, grep, sleep, date…)
from gui_gym.android.ui import SCREEN_H, SCREEN_W, to_xml

__all__ = ["KEYCODES", "PROPS", "Result", "Shell"]

SH = "/system/bin/sh"
#: Key codes ``input keyevent`` takes (name or number) and the action each is.
KEYCODES = {
    "KEYCODE_HOME": 3,
    "KEYCODE_BACK": 4,
    "KEYCODE_ENTER": 66,
    "KEYCODE_DEL": 67,
    "KEYCODE_MOVE_END": 123,
    "KEYCODE_APP_SWITCH": 187,
}
_KEY_ACTIONS = {3: "home", 4: "back", 66: "enter"}
#: ``getprop``'s answers: an Android 13 emulator image, as AndroidWorld runs.
PROPS = {
    "ro.build.version.sdk": "33",
    "ro.build.version.release": "13",
    "ro.product.model": "sdk_gphone64_x86_64",
    "ro.product.name": "sdk_gphone64_x86_64",
    "ro.product.device": "emulator64_x86_64",
    "ro.product.manufacturer": "Google",
    "ro.build.characteristics": "emulator",
    "ro.kernel.qemu": "1",
    "sys.boot_completed": "1",
    "ro.sf.lcd_density": "420",
    "persist.sys.timezone": "UTC",
}
#: Other names of ``/sdcard`` on a phone.
_ALIASES = ("/storage/emulated/0", "/storage/self/primary", "/mnt/sdcard", "/data/media/0")  # emulated storage
MAX_FILE = 64 << 20  # a pushed file larger than this is refused (the sim holds files in memory)
_DUMP = "/sdcard/window_dump.xml"


@dataclass
class Result:
    """What a command line did: its output, errors and exit status."""

    stdout: bytes = b""
    stderr: bytes = b""
    status: int = 0


class _Exit(Exception):
    def __init__(self, status: int) -> None:
        self.status = status


class Shell:
    """The shell of one simulated phone (*device*, a :class:`~gui_gym.android.sim.device.Device`).

    ``files`` is its storage (path -> bytes). ``screenshot(size)`` renders the screen (default:
    the simulator's renderer at the device's size).
    """

    def __init__(
        self, device: Any, screenshot: Callable[[], bytes] | None = None, max_storage: int | None = None
    ) -> None:
        self.device = device
        #: bytes every file together may hold (``None``: no limit): pushes and redirections alike
        self.max_storage = max_storage
        self.files: dict[str, bytes] = {}
        self.dirs: set[str] = {"/", "/sdcard", "/sdcard/Download", "/data", "/data/local", "/data/local/tmp"}
        self.mtimes: dict[str, dt.datetime] = {}  # a file's or folder's last change (else the clock's now)
        #: per app database path: (fingerprint of the app's data, the file written for it) at the last sync
        self.databases_shown: dict[str, tuple[bytes, bytes | None]] = {}
        #: a database just written at an app's path and the app's data read from it (read once)
        self.databases_checked: dict[str, tuple[bytes, Any]] = {}
        self._screenshot = screenshot
        self.select_all = False  # Ctrl+A was pressed: the next Delete clears the whole field
        #: ``settings put`` of keys the simulator does not model, kept as Android keeps any key
        self.other_settings: dict[tuple[str, str], str] = {}
        #: the package of a helper activity open over the screen (the clipper app), or None
        self.helper: str | None = None
        #: the recent-task id of each app's task (a new id when the task starts again)
        self.task_ids: dict[str, int] = {}
        self._next_task_id = 12
        #: files the phone made itself (path -> their bytes), not counted as storage while unchanged
        self.system_files: dict[str, bytes] = {}
        app_folders(self)

    # -- the command line -----------------------------------------------------------------
    def run(self, line: str | bytes, stdin: bytes = b"") -> Result:
        """Run one command line; never raises."""
        if isinstance(line, bytes):
            line = line.decode("utf-8", errors="replace")
        out, err = io.BytesIO(), io.BytesIO()
        try:
            status = self._line(line, stdin, out, err)
        except _Exit as e:
            status = e.status
        except Exception as e:  # a bug here must not take the server down: sh reports, the phone goes on
            err.write(f"{SH}: internal error: {type(e).__name__}\n".encode())
            status = 1
        return Result(out.getvalue(), err.getvalue(), status)

    def _line(self, line: str, stdin: bytes, out: io.BytesIO, err: io.BytesIO) -> int:
        try:
            tree = _Parser(_tokens(line)).script()
        except ValueError as e:
            err.write(f"{SH}: syntax error: {e}\n".encode())
            return 2
        with self.mounted():
            return self._run(tree, stdin, out, err)

    def _run(self, node: Any, stdin: bytes, out: io.BytesIO, err: io.BytesIO) -> int:
        """Evaluate a parsed node: a list, an and-or chain, a pipeline, an ``if`` or a command."""
        if isinstance(node, _If):
            for cond, body in node.branches:
                if self._run(cond, stdin, out, err) == 0:
                    return self._run(body, stdin, out, err)
            return self._run(node.otherwise, stdin, out, err) if node.otherwise is not None else 0
        if isinstance(node, _Simple):
            return self._simple(node, stdin, out, err)
        kind, items = node
        if kind == "list":
            status = 0
            for item in items:
                status = self._run(item, stdin, out, err)
            return status
        if kind == "and_or":
            status = self._run(items[0], stdin, out, err)
            for op, item in items[1:]:
                if (op == "&&") == (status == 0):
                    status = self._run(item, stdin, out, err)
            return status
        status, data = 0, stdin  # a pipeline
        for i, cmd in enumerate(items):
            sink = out if i == len(items) - 1 else io.BytesIO()
            status = self._run(cmd, data, sink, err)
            data = sink.getvalue() if sink is not out else b""
        return status

    def _simple(self, cmd: _Simple, stdin: bytes, out: io.BytesIO, err: io.BytesIO) -> int:
        """One command with its redirections (``>``, ``>>``, ``<``, ``2>``, ``2>&1``, ``>&2``)."""
        sink_out, sink_err = out, err
        files: list[tuple[str, io.BytesIO, bool]] = []
        for op, target in cmd.redirects:
            if op == "<":
                p = self.path(target)
                if p not in self.files:
                    err.write(f"{SH}: can't open '{target}': No such file or directory\n".encode())
                    return 1
                stdin = self.files[p]
            elif op in (">&", "1>&", "2>&"):
                if target not in ("1", "2"):
                    err.write(f"{SH}: {target}: bad file descriptor\n".encode())
                    return 1
                stream = sink_out if target == "1" else sink_err
                if op == "2>&":
                    sink_err = stream
                else:
                    sink_out = stream
            else:
                buf = io.BytesIO()
                files.append((target, buf, op.endswith(">>")))
                if op.startswith("2"):
                    sink_err = buf
                else:
                    sink_out = buf
        argv = [m for w in cmd.argv for m in self.expand(w)]
        status = self._command(argv, stdin, sink_out, sink_err) if argv else 0
        for target, buf, append in files:
            p = self.path(target)
            if p == "/dev/null":
                continue
            data = (self.files.get(p, b"") if append else b"") + buf.getvalue()
            problem = self.write(p, data)
            if problem:
                err.write(f"{SH}: can't create {target}: {problem.split(': ', 1)[-1]}\n".encode())
                return 1
        return status

    def _command(self, argv: list[str], stdin: bytes, out: io.BytesIO, err: io.BytesIO) -> int:
        name, args = argv[0], argv[1:]
        handler = COMMANDS.get(name)
        if handler is None:
            err.write(f"{SH}: {name}: inaccessible or not found\n".encode())
            return 127
        return handler(self, args, stdin, out, err)

    # -- the phone --------------------------------------------------------------------------
    def act(self, action: Action, err: io.BytesIO) -> int:
        """Send one input event through the simulator's action path."""
        outcome = self.device.act(action)
        if not outcome.valid:
            # a real device takes the event whatever it hits; the simulator says it did nothing
            err.write(f"{outcome.reason}\n".encode() if outcome.reason else b"")
        return 0

    def package(self, app: str | None) -> str:
        if app is None:
            return "com.google.android.apps.nexuslauncher"
        return self.device.apps[app].package

    def app_of(self, package: str) -> str | None:
        for name, app in self.device.apps.items():
            if app.package == package:
                return name
        return None

    def screenshot(self) -> bytes:
        if self._screenshot is not None:
            return self._screenshot()
        from PIL import Image

        from gui_gym.android.sim.render import Renderer

        dark = bool(self.device.state.settings.get("dark_theme"))
        pixels = Renderer((SCREEN_W, SCREEN_H)).render(self.device.screen(), dark=dark)
        buf = io.BytesIO()
        Image.fromarray(pixels).save(buf, format="PNG")
        return buf.getvalue()

    # -- files ------------------------------------------------------------------------------------
    @contextmanager
    def mounted(self) -> Iterator[None]:
        """The apps' folders (Markor's notebook) as files for the length of a command; what the
        command changed there goes back into the app's data."""
        sync_in(self)
        try:
            yield
        finally:
            sync_out(self)

    def expand(self, word: str) -> list[str]:
        """A word with an unquoted glob as the phone's matching paths, sorted (the word itself
        when nothing matches, as sh leaves it); any other word as it is."""
        pattern = getattr(word, "pattern", None)
        if pattern is None:
            return [str(word)]
        absolute = pattern.startswith("/")
        alias = next((a for a in _ALIASES if pattern.startswith(a + "/")), None)
        if alias is not None:  # /storage/emulated/0/* lists /sdcard, and answers in the name given
            pattern = "/sdcard" + pattern[len(alias) :]
        parts = [q for q in pattern.split("/") if q]
        found = ["/"]
        for k, part in enumerate(parts):
            last = k == len(parts) - 1
            nxt = []
            for base in found:
                names = [name for name, is_dir, _ in self.listing(base) or [] if is_dir or last]
                hidden = part.startswith(".")
                nxt += [
                    base.rstrip("/") + "/" + name
                    for name in names
                    if fnmatch.fnmatchcase(name, part) and (hidden or not name.startswith("."))
                ]
            found = nxt
        if not found:
            return [str(word)]
        if alias is not None:
            found = [alias + f[len("/sdcard") :] for f in found]
        return sorted(f if absolute else f[1:] for f in found)

    def path(self, p: str) -> str:
        """*p* made absolute and normal (``/storage/emulated/0`` is ``/sdcard``, as on a phone)."""
        if not p.startswith("/"):
            p = "/" + p  # adb shell's working directory is /
        parts: list[str] = []
        for part in p.split("/"):
            if part in ("", "."):
                continue
            if part == "..":
                if parts:
                    parts.pop()
                continue
            parts.append(part)
        out = "/" + "/".join(parts)
        for alias in _ALIASES:
            if out == alias or out.startswith(alias + "/"):
                out = "/sdcard" + out[len(alias) :]
        return out

    def write(self, path: str, data: bytes) -> str | None:
        """Store *data* at *path*; the error text when it cannot be."""
        p = self.path(path)
        parent = p.rsplit("/", 1)[0] or "/"
        if parent not in self.dirs:
            return f"{p}: No such file or directory"
        if p in self.dirs:
            return f"{p}: Is a directory"
        refused = check_database(self, p, data)
        if refused is not None:
            return refused
        if len(data) > MAX_FILE:
            return f"{p}: No space left on device"
        if self.max_storage is not None and self.used(but=p) + len(data) > self.max_storage:
            return (
                f"{p}: No space left on device: the simulated phone's storage is limited to {self.max_storage} "
                f"bytes (max_storage), {self.used(but=p)} bytes are in use and this file would pass it"
            )
        self.files[p] = bytes(data)
        self.mtimes[p] = self.device.state.now
        return None

    def used(self, but: str | None = None) -> int:
        """Bytes the files hold, leaving out the file at ``but`` (one written over is replaced),
        the apps' databases (the apps' own data, each at most ``MAX_DATABASE_BYTES``) and the
        phone's own files as it made them (AndroidWorld's snapshots of the apps' data)."""
        return sum(
            len(data)
            for p, data in self.files.items()
            if p != but and p not in self.databases_shown and self.system_files.get(p) is not data
        )

    def listing(self, path: str) -> list[tuple[str, bool, int]] | None:
        """``(name, is_dir, size)`` of a directory's entries, or ``None`` when it is none."""
        p = self.path(path)
        if p not in self.dirs:
            return None
        prefix = p.rstrip("/") + "/"
        names: dict[str, tuple[bool, int]] = {}
        for d in self.dirs:
            if d.startswith(prefix) and d != p and "/" not in d[len(prefix) :]:
                names[d[len(prefix) :]] = (True, 0)
        for f, data in self.files.items():
            if f.startswith(prefix) and "/" not in f[len(prefix) :]:
                names[f[len(prefix) :]] = (False, len(data))
        return [(n, d, s) for n, (d, s) in sorted(names.items())]


class _Op(str):
    """An operator token (``;``, ``&&``, ``|``…), as opposed to a word that holds the same text."""


_OPERATORS = ("&&", "||", ";;", ">>", "<<", "&>", ">&", "<&", "|&", ";", "&", "|", "<", ">", "(", ")")


def _expands(line: str, i: int) -> bool:
    """Whether sh would substitute or expand at ``line[i]`` (a backquote, ``$(``, ``${``, ``$NAME``)."""
    if line[i] == "`":
        return True
    nxt = line[i + 1] if i + 1 < len(line) else ""
    return line[i] == "$" and (nxt in ("(", "{") or nxt.isalpha() or nxt == "_")


def _tokens(line: str) -> list[str]:
    """sh's words and operators (:class:`_Op`), with its quoting: ``'…'`` literal, ``"…"`` with
    ``\\`` escapes, a backslash escaping the next character; an unquoted line break separates
    commands. What sh would substitute or run (``$(…)``, backquotes, ``${…}``, ``$NAME``) is
    refused, not run; a word with an unquoted glob carries its pattern (:meth:`Shell.expand`)."""
    tokens: list[str] = []
    word: list[str] = []
    pattern: list[str] = []  # the word as an fnmatch pattern: quoted *?[ escaped
    in_word = quoted = glob = False
    i, n = 0, len(line)

    def end_word() -> None:
        nonlocal in_word, quoted, glob
        if in_word:
            tokens.append(_Word("".join(word), quoted, "".join(pattern) if glob else None))
            word.clear()
            pattern.clear()
            in_word = quoted = glob = False

    def literal(text: str) -> None:
        word.append(text)
        pattern.append("".join(f"[{c}]" if c in "*?[" else c for c in text))

    while i < n:
        c = line[i]
        if c in " \t":
            end_word()
            i += 1
        elif c == "\n":
            end_word()
            tokens.append(_Op(";"))
            i += 1
        elif c == "#" and not in_word:
            j = line.find("\n", i)
            i = n if j < 0 else j  # a comment runs to the end of the line
        elif c == "\\":
            if i + 1 < n and line[i + 1] != "\n":
                literal(line[i + 1])
            in_word = quoted = True
            i += 2
        elif c == "'":
            j = line.find("'", i + 1)
            if j < 0:
                raise ValueError("unterminated quoted string")
            literal(line[i + 1 : j])
            in_word = quoted = True
            i = j + 1
        elif c == '"':
            i += 1
            while i < n and line[i] != '"':
                if line[i] == "\\" and i + 1 < n and line[i + 1] in '"\\$`\n':
                    literal(line[i + 1])
                    i += 2
                    continue
                if line[i] == "`" or (
                    line[i] == "$"
                    and i + 1 < n
                    and (line[i + 1] in "({" or line[i + 1].isalpha() or line[i + 1] == "_")
                ):
                    raise ValueError("command substitution and parameter expansion are not supported here")
                literal(line[i])
                i += 1
            if i >= n:
                raise ValueError("unterminated quoted string")
            in_word = quoted = True
            i += 1
        elif c == "`" or (
            c == "$" and i + 1 < n and (line[i + 1] in "({" or line[i + 1].isalpha() or line[i + 1] == "_")
        ):
            raise ValueError("command substitution and parameter expansion are not supported here")
        elif c in ";&|<>()":
            fd = ""
            if c in "<>" and in_word and not quoted and "".join(word) in ("1", "2"):
                fd, in_word = "".join(word), False  # 2>file: the digit names the stream
                word.clear()
            end_word()
            op = next(o for o in _OPERATORS if line.startswith(o, i))
            tokens.append(_Op(fd + op))
            i += len(op)
        else:
            if c in "*?[" and not (c == "[" and not in_word and (i + 1 >= n or line[i + 1] in " \t")):
                glob = True  # expanded over the phone's files when the command runs
            word.append(c)
            pattern.append(c)
            in_word = True
            i += 1
    end_word()
    return tokens


class _Word(str):
    """A word token; ``quoted`` when any of it was quoted (so ``'if'`` is no keyword); ``pattern``
    when it holds an unquoted ``*``, ``?`` or ``[``: the fnmatch pattern it expands by."""

    quoted: bool
    pattern: str | None

    def __new__(cls, text: str, quoted: bool = False, pattern: str | None = None) -> _Word:
        w = super().__new__(cls, text)
        w.quoted, w.pattern = quoted, pattern
        return w


@dataclass
class _Simple:
    argv: list[_Word]
    redirects: list[tuple[str, str]]


@dataclass
class _If:
    branches: list[tuple[Any, Any]]
    otherwise: Any


_KEYWORDS = ("if", "then", "elif", "else", "fi")
_REDIRECTS = (">", ">>", "<", "1>", "1>>", "2>", "2>>", ">&", "1>&", "2>&")


class _Parser:
    """sh's grammar, the part agents and controllers use: lists (``;``, ``&``, line breaks),
    ``&&`` / ``||``, pipelines, ``if … then … [elif …] [else …] fi`` and simple commands with
    redirections. Subshells, functions and loops are refused."""

    def __init__(self, tokens: list[str]) -> None:
        self.toks, self.i = tokens, 0

    def peek(self) -> str | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def keyword(self) -> str | None:
        t = self.peek()
        return str(t) if isinstance(t, _Word) and not t.quoted and t in _KEYWORDS else None

    def script(self) -> Any:
        tree = self.list(stop=())
        if self.peek() is not None:
            raise ValueError(f"unexpected '{self.peek()}'")
        return tree

    def list(self, stop: tuple[str, ...]) -> Any:
        items = []
        while True:
            while isinstance(self.peek(), _Op) and self.peek() in (";", "&"):
                self.i += 1
            t = self.peek()
            if t is None or (self.keyword() in stop and stop):
                break
            items.append(self.and_or())
            t = self.peek()
            if t is None or self.keyword() in stop:
                continue
            if not (isinstance(t, _Op) and t in (";", "&")):
                raise ValueError(f"unexpected '{t}'")
        return ("list", items)

    def and_or(self) -> Any:
        items: list[Any] = [self.pipeline()]
        while isinstance(self.peek(), _Op) and self.peek() in ("&&", "||"):
            op = str(self.toks[self.i])
            self.i += 1
            items.append((op, self.pipeline()))
        return ("and_or", items)

    def pipeline(self) -> Any:
        cmds = [self.command()]
        while isinstance(self.peek(), _Op) and self.peek() == "|":
            self.i += 1
            cmds.append(self.command())
        return ("pipeline", cmds)

    def command(self) -> Any:
        kw = self.keyword()
        if kw == "if":
            return self.if_clause()
        if kw is not None:
            raise ValueError(f"unexpected '{kw}'")
        argv: list[str] = []
        redirects: list[tuple[str, str]] = []
        while (t := self.peek()) is not None:
            if isinstance(t, _Op):
                if t not in _REDIRECTS:
                    break
                self.i += 1
                target = self.peek()
                if target is None or isinstance(target, _Op):
                    raise ValueError(f"'{t}' needs a file")
                redirects.append((str(t), str(target)))
                self.i += 1
                continue
            argv.append(t)
            self.i += 1
        if not argv and not redirects:
            t = self.peek()
            if t is not None and t in ("(", ")"):
                raise ValueError(f"'{t}': subshells are not supported here")
            raise ValueError(f"unexpected '{t if t is not None else 'end of line'}'")
        return _Simple(argv, redirects)

    def expect(self, kw: str) -> None:
        if self.keyword() != kw:
            raise ValueError(f"expected '{kw}', got '{self.peek() if self.peek() is not None else 'end of line'}'")
        self.i += 1

    def if_clause(self) -> _If:
        self.expect("if")
        branches = []
        cond = self.list(stop=("then",))
        self.expect("then")
        branches.append((cond, self.list(stop=("elif", "else", "fi"))))
        otherwise = None
        while self.keyword() == "elif":
            self.i += 1
            cond = self.list(stop=("then",))
            self.expect("then")
            branches.append((cond, self.list(stop=("elif", "else", "fi"))))
        if self.keyword() == "else":
            self.i += 1
            otherwise = self.list(stop=("fi",))
        self.expect("fi")
        return _If(branches, otherwise)


# ----------------------------------------------------------------------------- the commands


@command("exit")
def _exit(sh: Shell, args: list[str], stdin: bytes, out: io.BytesIO, err: io.BytesIO) -> int:
    try:
        raise _Exit(int(args[0]) & 0xFF if args else 0)
    except ValueError:
        err.write(f"{SH}: exit: {args[0]}: bad number\n".encode())
        raise _Exit(2) from None


@command("service")
def _service(sh: Shell, args: list[str], stdin: bytes, out: io.BytesIO, err: io.BytesIO) -> int:
    if args[:1] == ["check"] and len(args) > 1:
        out.write(f"Service {args[1]}: found\n".encode())
        return 0
    out.write(b"Result: Parcel(00000000    '....')\n")  # the call is taken; the phone has no such service
    return 0


@command("uiautomator")
def _uiautomator(sh: Shell, args: list[str], stdin: bytes, out: io.BytesIO, err: io.BytesIO) -> int:
    if not args or args[0] != "dump":
        err.write(b"Usage: uiautomator dump [--compressed] [file]\n")
        return 1
    files = [a for a in args[1:] if not a.startswith("--")]
    target = files[0] if files else _DUMP
    xml = to_xml(sh.device.tree()).encode("utf-8")
    if target in ("/dev/tty", "/dev/stdout"):
        out.write(xml)
        return 0
    problem = sh.write(target, xml)
    if problem:
        err.write(f"ERROR: could not write to {problem}\n".encode())
        return 1
    # the real tool's message, its spelling included
    out.write(f"UI hierchary dumped to: {sh.path(target)}\n".encode())
    return 0


@command("screencap")
def _screencap(sh: Shell, args: list[str], stdin: bytes, out: io.BytesIO, err: io.BytesIO) -> int:
    files = [a for a in args if not a.startswith("-")]
    png = sh.screenshot()
    if not files:
        out.write(png)
        return 0
    problem = sh.write(files[0], png)
    if problem:
        err.write(f"Error opening file: {problem}\n".encode())
        return 1
    return 0


def _ints(args: Sequence[str], n: int) -> list[int] | None:
    try:
        return [int(float(a)) for a in args[:n]] if len(args) >= n else None
    except ValueError:
        return None


@command("input")
def _input(sh: Shell, args: list[str], stdin: bytes, out: io.BytesIO, err: io.BytesIO) -> int:
    if args and args[0] in ("touchscreen", "keyboard", "mouse", "touchpad"):
        args = args[1:]  # the input source
    if not args:
        err.write(b"Usage: input [<source>] <command> [<arg>...]\n")
        return 1
    verb, rest = args[0], args[1:]
    if sh.helper is not None:  # a helper app is in front: Back closes it, other input reaches what is beneath
        sh.helper = None
        keys = [a for a in rest if not a.startswith("--")] if verb == "keyevent" else []
        if keys and (int(keys[0]) if keys[0].isdigit() else KEYCODES.get(keys[0].upper())) == 4:
            rest = keys[1:]
            if not rest:
                return 0
    if verb == "tap":
        xy = _ints(rest, 2)
        if xy is None:
            err.write(b"Error: tap needs x y\n")
            return 1
        return sh.act(Action("tap", point=(xy[0], xy[1])), err)
    if verb in ("swipe", "draganddrop"):
        pts = _ints(rest, 4)
        if pts is None:
            err.write(b"Error: swipe needs x1 y1 x2 y2 [duration]\n")
            return 1
        duration = _ints(rest[4:], 1)
        start, end = (pts[0], pts[1]), (pts[2], pts[3])
        if start == end and duration is not None and duration[0] >= 500:
            return sh.act(Action("long_press", point=start), err)  # a swipe that holds still
        if start == end:
            return sh.act(Action("tap", point=start), err)
        return sh.act(Action("swipe", point=start, end=end), err)
    if verb == "text":
        if not rest:
            err.write(b"Error: text needs a string\n")
            return 1
        text = " ".join(rest).replace("%s", " ")
        return sh.act(Action("type", text=text, clear=False, enter=False), err)
    if verb == "keycombination":
        codes = {KEYCODES.get(a.upper(), a) for a in rest}
        if {"113", "29"} <= {str(c) for c in codes} or {"114", "29"} <= {str(c) for c in codes}:
            sh.select_all = True  # Ctrl+A selects the focused field's text
        return 0
    if verb == "keyevent":
        status, deletes = 0, 0
        for key in (a for a in rest if not a.startswith("--")):
            code = KEYCODES.get(key.upper()) if not key.isdigit() else int(key)
            if code == 67:  # a run of Deletes is one edit of the field
                deletes += 1
                continue
            if deletes:
                _delete(sh, deletes, err)
                deletes = 0
            kind = _KEY_ACTIONS.get(code) if code is not None else None
            if code == 123:
                continue  # the cursor stands at the end of the field already
            if kind is None:
                err.write(f"keyevent {key}: this phone models Home, Back, Enter, Del and App switch only\n".encode())
                status = 0 if code is not None else 1
                continue
            sh.act(Action(kind), err)
        if deletes:
            _delete(sh, deletes, err)
        return status
    err.write(f"Error: Unknown command: {verb}\n".encode())
    return 1


def _delete(sh: Shell, n: int, err: io.BytesIO) -> None:
    if sh.select_all:  # Delete on a selection clears the field
        sh.select_all = False
        fh = sh.device.focused_host()
        n = len(fh[0].form.get(fh[1], "")) if fh is not None else n
    outcome = sh.device.delete_keys(n)
    if not outcome.valid and outcome.reason:
        err.write(f"{outcome.reason}\n".encode())


@command("getprop")
def _getprop(sh: Shell, args: list[str], stdin: bytes, out: io.BytesIO, err: io.BytesIO) -> int:
    if args:
        out.write(f"{PROPS.get(args[0], '')}\n".encode())
    else:
        out.write("".join(f"[{k}]: [{v}]\n" for k, v in sorted(PROPS.items())).encode())
    return 0


@command("settings")
def _settings(sh: Shell, args: list[str], stdin: bytes, out: io.BytesIO, err: io.BytesIO) -> int:
    """``settings get|put|delete|list NAMESPACE [KEY [VALUE]]``: the keys of
    :data:`~gui_gym.android.settings_keys.ANDROID_KEYS` are the simulator's settings; any other
    key is kept as Android keeps it (``get`` answers what was put, ``null`` before)."""
    if len(args) < 2 or args[0] not in ("get", "put", "list", "delete"):
        err.write(b"usage: settings get|put|delete|list NAMESPACE [KEY [VALUE]]\n")
        return 1
    verb, namespace, rest = args[0], args[1], args[2:]
    if namespace not in ("system", "secure", "global"):
        err.write(f"Invalid namespace '{namespace}'\n".encode())
        return 1
    state = sh.device.state.settings
    if verb == "list":
        lines = {key: to_android(name, state.get(name)) for (ns, key), name in ANDROID_KEYS.items() if ns == namespace}
        lines.update({key: v for (ns, key), v in sh.other_settings.items() if ns == namespace})
        out.write("".join(f"{k}={v}\n" for k, v in sorted(lines.items())).encode())
        return 0
    if not rest:
        err.write(b"usage: settings get|put|delete NAMESPACE KEY [VALUE]\n")
        return 1
    name = ANDROID_KEYS.get((namespace, rest[0]))
    if verb == "get":
        value = to_android(name, state.get(name)) if name else sh.other_settings.get((namespace, rest[0]), "null")
        out.write(f"{value}\n".encode())
        return 0
    if verb == "delete":
        if name is None and sh.other_settings.pop((namespace, rest[0]), None) is not None:
            out.write(b"Deleted 1 rows\n")
        else:
            out.write(b"Deleted 0 rows\n")  # the phone's own settings stay (a phone resets them to defaults)
        return 0
    if len(rest) < 2:
        err.write(b"usage: settings put NAMESPACE KEY VALUE\n")
        return 1
    if name is None:
        sh.other_settings[(namespace, rest[0])] = rest[1]
        return 0
    try:
        state[name] = from_android(name, rest[1])
    except ValueError:
        err.write(f"bad value {rest[1]!r} for {rest[0]}\n".encode())
        return 1
    sh.device.invalidate()
    return 0


# the file and provider commands register themselves with @command
from gui_gym.android.sim.adb import activities  # noqa: E402, F401 (registers am, monkey, pm, dumpsys, wm)
