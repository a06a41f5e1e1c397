"""The served phone's activity, package and window managers: ``am`` (start, force-stop,
broadcast, stack list/remove, the intents AndroidWorld sends), ``monkey``, ``pm``, ``dumpsys``
and ``wm``, on the simulator's screens and apps (registered with
:func:`~gui_gym.android.sim.adb.commands.command` when :mod:`~gui_gym.android.sim.adb.shell` is
imported)."""

from __future__ import annotations

import io

from gui_gym.android.actions import Action
from gui_gym.android.sim import permissions
from gui_gym.android.sim.adb.commands import PhoneShell as Shell
from gui_gym.android.sim.adb.commands import command
from gui_gym.android.sim.device import LAUNCHER_ACTIVITY
from gui_gym.android.ui import SCREEN_H, SCREEN_W

#: What ``am start -a android.intent.action.VIEW -d URI`` opens (AndroidWorld's default URIs).
_VIEW_URIS = {
    "content://contacts/people": "contacts",
    "content://com.android.calendar": "calendar",
    "content://media/external/images/media": "gallery",  # the pictures: Simple Gallery Pro shows them
}


#: Helper apps an AndroidWorld emulator has besides the phone's apps: package -> activity. They
#: have no screen here: launched, one sits over the screen until Back (or any other input, which
#: reaches the app beneath) or Home; the clipper app's broadcasts set and read the clipboard.
HELPERS = {"ca.zgrs.clipper": "ca.zgrs.clipper.Main"}
#: what the clipper app answers when it has set the clipboard
CLIPPER_SET = "Text is copied into clipboard."
#: the Miniwob app: its package, and the broadcasts AndroidWorld reads its episode by
MINIWOB_PACKAGE = "com.google.androidenv.miniwob"
MINIWOB_UTTERANCE = "com.google.androidenv.miniwob.app.GET_UTTERANCE_ACTION"
MINIWOB_REWARD = "com.google.androidenv.miniwob.app.GET_REWARD_ACTION"


def _broadcast(sh: Shell, args: list[str], out: io.BytesIO, err: io.BytesIO) -> int:
    """``am broadcast``; ``ADB_INPUT_TEXT`` / ``ADB_INPUT_B64`` reach the ADB Keyboard IME, which
    types the message into the focused field (AndroidLab's images have it as their keyboard);
    ``clipper.set -e text TEXT`` / ``clipper.get`` reach the clipper app (AndroidWorld's
    clipboard), which reads the clipboard only while it is in front (Android 10 and later)."""
    import base64
    import binascii

    action = next((args[j + 1] for j in range(len(args) - 1) if args[j] == "-a"), "")
    extras = {args[j + 1]: args[j + 2] for j in range(len(args) - 2) if args[j] in ("--es", "-e")}
    out.write(f"Broadcasting: Intent {{ act={action} flg=0x400000{' (has extras)' if extras else ''} }}\n".encode())
    if action in ("ADB_INPUT_TEXT", "ADB_INPUT_B64") and "msg" in extras:
        text = extras["msg"]
        if action == "ADB_INPUT_B64":
            try:
                text = base64.b64decode(text, validate=True).decode("utf-8")
            except (binascii.Error, UnicodeDecodeError):
                out.write(b"Broadcast completed: result=0\n")
                return 0
        sh.act(Action("type", text=text, clear=False, enter=False), err)
        out.write(b"Broadcast completed: result=-1\n")
        return 0
    if action == "clipper.set" and "text" in extras:
        sh.device.state.clipboard = extras["text"]
        sh.device.invalidate()
        out.write(f'Broadcast completed: result=-1, data="{CLIPPER_SET}"\n'.encode())
        return 0
    if action in (MINIWOB_UTTERANCE, MINIWOB_REWARD) and sh.device.state.foreground == "miniwob":
        from gui_gym.android.sim.apps.miniwob import app as miniwob  # its receiver runs while it is resumed

        data = sh.device.data("miniwob").utterance if action == MINIWOB_UTTERANCE else miniwob.reward_text(sh.device)
        out.write(f'Broadcast completed: result=-1, data="{data}"\n'.encode())
        return 0
    if action == "clipper.get" and sh.helper == "ca.zgrs.clipper":
        out.write(f'Broadcast completed: result=-1, data="{sh.device.state.clipboard}"\n'.encode())
        return 0
    out.write(b"Broadcast completed: result=0\n")
    return 0


def _send_to(sh: Shell, data: str, extras: dict[str, str], out: io.BytesIO, err: io.BytesIO) -> int:
    """The SMS app's SENDTO intent (``-d sms:NUMBER --es sms_body TEXT``): the conversation with
    NUMBER, its message field holding TEXT (nothing is sent until Send is tapped, as on a phone)."""
    from gui_gym.android.sim.apps.messages.app import compose

    number = data.split(":", 1)[1].split("?", 1)[0].strip()
    if not number:
        err.write(
            "Error: Activity not started, unable to resolve Intent "
            f"{{ act=android.intent.action.SENDTO dat={data[:80]} }}\n".encode()
        )
        return 1
    out.write(f"Starting: Intent {{ act=android.intent.action.SENDTO dat={data} (has extras) }}\n".encode())
    running = bool(sh.device.state.stacks.get("messages"))
    status = sh.act(Action("launch", app=sh.device.apps["messages"].label), err)  # a second passes, as for any start
    if not running:
        sh.device.state.stacks.pop("messages", None)  # the intent's thread is the new task's only screen
    compose(sh.device, number, extras.get("sms_body", ""))  # the app's own handling of the intent
    return status


def _insert_contact(sh: Shell, extras: dict[str, str], out: io.BytesIO, err: io.BytesIO) -> int:
    """The contacts app's INSERT intent: its editor, filled from the ``name`` and ``phone`` extras
    (nothing is saved until Save is tapped, as on a phone)."""
    from gui_gym.android.sim.apps.contacts.app import Contact, ContactEditor

    first, _, last = extras.get("name", "").strip().partition(" ")
    out.write(b"Starting: Intent { act=android.intent.action.INSERT typ=vnd.android.cursor.dir/contact }\n")
    status = sh.act(Action("launch", app=sh.device.apps["contacts"].label), err)
    sh.device.push(ContactEditor(None, Contact(first, last.strip(), extras.get("phone", ""))))
    sh.device.invalidate()
    return status


def _launch(sh: Shell, package: str, err: io.BytesIO) -> int:
    if package in HELPERS:
        sh.helper = package
        return 0
    sh.helper = None
    app = sh.app_of(package)
    if app is None:
        err.write(f"Error: Activity not started, unable to resolve Intent for {package}\n".encode())
        return 1
    return sh.act(Action("launch", app=sh.device.apps[app].label), err)


def _task_id(sh: Shell, app: str | None) -> int:
    """The recent-task id of ``app``'s task (the launcher's: 1); a task started anew gets a new id."""
    if app is None:
        return 1
    if app not in sh.task_ids or not sh.device.state.stacks.get(app):
        sh.task_ids[app] = sh._next_task_id
        sh._next_task_id += 1
    return sh.task_ids[app]


def _recent_apps(sh: Shell) -> list[str]:
    """The apps with a task, most recent first (what Overview shows)."""
    st = sh.device.state
    return [a for a in st.recents if st.stacks.get(a)]


def _stack_remove(sh: Shell, args: list[str], err: io.BytesIO) -> int:
    """``am stack remove TASK_ID``: the task is closed, as swiping its card away in Overview."""
    if len(args) != 1 or not args[0].isdigit():
        err.write(b"usage: am stack remove <TASK_ID>\n")
        return 1
    st = sh.device.state
    app = next((a for a in _recent_apps(sh) if _task_id(sh, a) == int(args[0])), None)
    if app is None:
        return 0  # no such task: nothing to remove (Android says nothing either)
    st.stacks.pop(app, None)
    if app in st.recents:
        st.recents.remove(app)
    if st.foreground == app:
        st.foreground, st.keyboard = None, False
    sh.device.invalidate()
    return 0


@command("am")
def _am(sh: Shell, args: list[str], stdin: bytes, out: io.BytesIO, err: io.BytesIO) -> int:
    if args[:2] == ["stack", "list"]:  # the visible task (android_env's current-activity check)
        focus, tid = _focus(sh), _task_id(sh, sh.device.state.foreground)
        out.write(
            f"RootTask id={tid} bounds=[0,0][{SCREEN_W},{SCREEN_H}] displayId=0 userId=0\n"
            f"  taskId={tid}: {_task_base(sh)} bounds=[0,0][{SCREEN_W},{SCREEN_H}] userId=0 visible=true "
            f"topActivity=ComponentInfo{{{focus}}}\n".encode()
        )
        return 0
    if args[:2] == ["stack", "remove"]:
        return _stack_remove(sh, args[2:], err)
    if args[:1] == ["broadcast"]:
        return _broadcast(sh, args[1:], out, err)
    if not args or args[0] not in ("start", "start-activity", "force-stop"):
        err.write(b"usage: am start [-n PACKAGE/ACTIVITY] ... | am force-stop PACKAGE | am broadcast ...\n")
        return 1
    if args[0] == "force-stop":
        if len(args) > 1 and args[1] == sh.helper:
            sh.helper = None
        app = sh.app_of(args[1]) if len(args) > 1 else None
        if app is not None:
            if sh.device.state.foreground == app:
                sh.act(Action("home"), err)
            sh.device.state.stacks.pop(app, None)  # the process is gone: it starts afresh
            sh.device.invalidate()
        return 0
    component, action, mime, extras = None, None, "", {}
    i = 1
    while i < len(args):
        a = args[i]
        if a in ("-n", "-a", "-t", "-d") and i + 1 < len(args):
            component = args[i + 1] if a == "-n" else component
            action = args[i + 1] if a == "-a" else action
            mime = args[i + 1] if a == "-t" else mime
            i += 2
        elif a in ("-e", "--es", "--ez", "--ei") and i + 2 < len(args):
            extras[args[i + 1]] = args[i + 2]
            i += 3
        else:
            i += 1
    if action == "android.intent.action.INSERT" and "contact" in mime:
        sh.helper = None
        return _insert_contact(sh, extras, out, err)
    data = next((args[j + 1] for j in range(len(args) - 1) if args[j] == "-d"), None)
    if action == "android.intent.action.SENDTO" and data is not None and data.startswith(("sms:", "smsto:")):
        sh.helper = None
        return _send_to(sh, data, extras, out, err)
    if action == "android.intent.action.VIEW" and data is not None and component is None:
        app = next((a for prefix, a in _VIEW_URIS.items() if data.startswith(prefix)), None)
        if app not in sh.device.apps:
            err.write(f"Error: Activity not started, unable to resolve Intent {{ act={action} dat={data} }}\n".encode())
            return 1
        out.write(f"Starting: Intent {{ act={action} dat={data} }}\n".encode())
        return sh.act(Action("launch", app=sh.device.apps[app].label), err)
    package = component.split("/", 1)[0] if component else next((a for a in args[1:] if not a.startswith("-")), "")
    out.write(f"Starting: Intent {{ cmp={component or package} }}\n".encode())
    status = _launch(sh, package, err)
    if status == 0 and package == MINIWOB_PACKAGE and extras:
        return _miniwob_intent(sh, extras, err)
    return status


def _miniwob_intent(sh: Shell, extras: dict[str, str], err: io.BytesIO) -> int:
    """The Miniwob app's extras (AndroidWorld's ``MiniWoBTask.initialize_task``): ``RL_TASK_APP_CONFIG``
    ``{"task": NAME}`` loads the task's page and ``reset`` starts its episode (``step`` only
    starts the app's logging). A page that does not load leaves the app on its last page."""
    import json

    from gui_gym.android.sim.apps.miniwob import app as miniwob
    from gui_gym.android.sim.apps.miniwob.pages import PageMissing
    from gui_gym.android.sim.web.chromium import BrowserError

    dev = sh.device
    name = dev.data("miniwob").task
    if "RL_TASK_APP_CONFIG" in extras:
        try:
            config = json.loads(extras["RL_TASK_APP_CONFIG"])
        except ValueError:
            config = {}
        name = str(config.get("task", "")) if isinstance(config, dict) else ""
    if name and ("RL_TASK_APP_CONFIG" in extras or extras.get("reset") == "true"):
        try:
            miniwob.load_task(dev, name, seed=0)  # the served phone is reproducible: seed 0
        except (PageMissing, BrowserError) as e:
            err.write(f"W/AndroidRLTask: could not load {name}: {e}\n".encode())
        dev.invalidate()
    return 0


@command("monkey")
def _monkey(sh: Shell, args: list[str], stdin: bytes, out: io.BytesIO, err: io.BytesIO) -> int:
    package = args[args.index("-p") + 1] if "-p" in args and args.index("-p") + 1 < len(args) else None
    if package is None:
        err.write(b"usage: monkey -p PACKAGE -c android.intent.category.LAUNCHER 1\n")
        return 1
    status = _launch(sh, package, err)
    out.write(b"  bash arg: -p\n" if status else b"Events injected: 1\n")
    return status


@command("pm")
def _pm(sh: Shell, args: list[str], stdin: bytes, out: io.BytesIO, err: io.BytesIO) -> int:
    if args[:1] == ["clear"] and len(args) >= 2:
        return _pm_clear(sh, args[-1], out, err)
    if args[:1] in (["grant"], ["revoke"]):  # the runtime grants an app asks for (sim.permissions)
        if len(args) != 3:
            err.write(f"usage: pm {args[0]} PACKAGE PERMISSION\n".encode())
            return 1
        if sh.app_of(args[1]) is None and args[1] not in HELPERS and args[1] not in PROVIDERS:
            err.write(
                f"Exception occurred while executing '{args[0]}':\n"
                f"java.lang.IllegalArgumentException: Unknown package: {args[1]}\n".encode()
            )
            return 255
        if args[0] == "grant":
            permissions.grant(sh.device, args[1], args[2])
        else:  # Android kills the app's process when a runtime permission is revoked
            permissions.revoke(sh.device, args[1], args[2])
            app = sh.app_of(args[1])
            if app is not None:
                sh.device.state.stacks.pop(app, None)
                if sh.device.state.foreground == app:
                    sh.device.state.foreground = None
        sh.device.invalidate()
        return 0
    if args[:2] != ["list", "packages"]:
        err.write(b"usage: pm list packages | pm clear PACKAGE | pm grant PACKAGE PERMISSION\n")
        return 1
    packages = sorted({app.package for app in sh.device.apps.values()} | {"android", "com.android.systemui"})
    needle = next((a for a in args[2:] if not a.startswith("-")), "")
    out.write("".join(f"package:{p}\n" for p in packages if needle in p).encode())
    return 0


#: Providers that hold an app's data (package -> app): ``pm clear`` of the provider empties it;
#: ``pm clear`` of the app itself only closes the app, as on a phone.
PROVIDERS = {"com.android.providers.contacts": "contacts", "com.android.providers.telephony": "messages"}


def _pm_clear(sh: Shell, package: str, out: io.BytesIO, err: io.BytesIO) -> int:
    """``pm clear``: the app's data back to a fresh install's, the app closed."""
    provided = PROVIDERS.get(package)
    app = provided or sh.app_of(package)
    if app is None:
        out.write(b"Failed\n")
        return 1
    state = sh.device.state
    if provided or app not in PROVIDERS.values():
        state.data[app] = sh.device.apps[app].initial_data()
    state.stacks.pop(app, None)
    if state.foreground == app:
        state.foreground = None
    sh.device.invalidate()
    out.write(b"Success\n")
    return 0


def _focus(sh: Shell) -> str:
    """The activity in front (a helper app's, else the phone's :meth:`Device.top_activity`)."""
    if sh.helper is not None:
        return f"{sh.helper}/{HELPERS[sh.helper]}"
    return sh.device.top_activity()


def _task_base(sh: Shell) -> str:
    """The activity the visible task was started with (the app's launch activity): the base of a
    task whose top is another package's activity, such as the permission controller's dialog."""
    if sh.helper is not None:
        return _focus(sh)
    app = sh.device.state.foreground
    pkg = sh.package(app)
    if app is None:
        return f"{pkg}/{LAUNCHER_ACTIVITY}"
    return f"{pkg}/{sh.device.apps[app].activity or pkg + '.MainActivity'}"


def _recents_dump(sh: Shell) -> str:
    """``dumpsys activity recents`` as Android 13 prints it, for the tasks Overview shows."""
    launcher = sh.package(None)
    lines = [
        "ACTIVITY MANAGER RECENT TASKS (dumpsys activity recents)",
        "  mRecentsUid=10111",
        f"  mRecentsComponent=ComponentInfo{{{launcher}/com.android.quickstep.RecentsActivity}}",
        "  mFreezeTaskListReordering=false",
        "  mFreezeTaskListReorderingPendingTimeout=false",
        "",
        "  Recent tasks:",
    ]
    apps = _recent_apps(sh)
    for i, app in enumerate(apps):
        a = sh.device.apps[app]
        component = f"{a.package}/{a.activity or a.package + '.MainActivity'}"
        uid = 10120 + list(sh.device.apps).index(app)
        tid = _task_id(sh, app)
        visible = "true" if app == sh.device.state.foreground and not sh.device.state.recents_open else "false"
        lines += [
            f"  * Recent #{i}: Task{{{0x3DB498F + tid:07x} #{tid} type=standard A={uid}:{a.package} U=0 "
            f"visible={visible} mode=fullscreen translucent=false sz=1}}",
            f"    userId=0 effectiveUid=u0a{uid - 10000} mCallingUid=2000 mUserSetupComplete=true",
            f"    affinity={uid}:{a.package}",
            f"    intent={{act=android.intent.action.MAIN cat=[android.intent.category.LAUNCHER] flg=0x10200000 "
            f"cmp={component}}}",
            f"    realActivity={{{component}}}",
            f"    taskId={tid} rootTaskId={tid}",
        ]
    lines += ["", "  Visible recent tasks (most recent first):"]
    for i, app in enumerate(apps):
        a = sh.device.apps[app]
        component = f"{a.package}/{a.activity or a.package + '.MainActivity'}"
        lines += [
            f"  * RecentTaskInfo #{i}:",
            f"    id={_task_id(sh, app)}",
            "    userId=0",
            "    hasTask=true",
            f"    baseIntent=Intent {{ act=android.intent.action.MAIN cat=[android.intent.category.LAUNCHER] "
            f"flg=0x10200000 cmp={component} }}",
            f"    realActivity={{{component}}}",
        ]
    return "\n".join(lines) + "\n"


@command("dumpsys")
def _dumpsys(sh: Shell, args: list[str], stdin: bytes, out: io.BytesIO, err: io.BytesIO) -> int:
    what = args[0] if args else ""
    focus = _focus(sh)
    if what == "window":
        out.write(
            (
                "WINDOW MANAGER WINDOWS (dumpsys window windows)\n"
                f"  mCurrentRotation=ROTATION_0\n"
                f"  mCurrentFocus=Window{{5c1e0d0 u0 {focus}}}\n"
                f"  mFocusedApp=ActivityRecord{{8a1f3e2 u0 {focus} t12}}\n"
                f"  mDisplayInfo: app {SCREEN_W} x {SCREEN_H}\n"
            ).encode()
        )
        return 0
    if what == "activity" and args[1:2] == ["recents"]:
        out.write(_recents_dump(sh).encode())
        return 0
    if what == "activity":
        tid = _task_id(sh, sh.device.state.foreground)
        out.write(f"  mResumedActivity: ActivityRecord{{8a1f3e2 u0 {focus} t{tid}}}\n".encode())
        return 0
    if what == "display":
        out.write(
            f"  mBaseDisplayInfo=DisplayInfo{{real {SCREEN_W} x {SCREEN_H}, density 420}}\n"
            f"  mOverrideDisplayInfo=DisplayInfo{{real {SCREEN_W} x {SCREEN_H}, rotation 0}}\n"
            "  mCurrentOrientation=0\n  orientation=0\n".encode()
        )
        return 0
    if what == "power":
        out.write(b"  mWakefulness=Awake\n  mHoldingDisplaySuspendBlocker=true\n")
        return 0
    if what == "input":
        keyboard = "true" if sh.device.state.keyboard else "false"
        out.write(
            f"INPUT MANAGER (dumpsys input)\n  mInputShown={keyboard}\n"
            f"  Viewport INTERNAL: displayId=0, orientation=0, logicalFrame=[0, 0, {SCREEN_W}, {SCREEN_H}]\n"
            "    SurfaceOrientation: 0\n".encode()
        )
        return 0
    err.write(f"Can't find service: {what}\n".encode())
    return 1


@command("wm")
def _wm(sh: Shell, args: list[str], stdin: bytes, out: io.BytesIO, err: io.BytesIO) -> int:
    if args[:1] == ["size"]:
        out.write(f"Physical size: {SCREEN_W}x{SCREEN_H}\n".encode())
        return 0
    if args[:1] == ["density"]:
        out.write(b"Physical density: 420\n")
        return 0
    err.write(b"usage: wm size | wm density\n")
    return 1
