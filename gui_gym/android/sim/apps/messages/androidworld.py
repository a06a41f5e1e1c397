"""AndroidWorld's Simple SMS Messenger tasks (``task_evals/single/sms.py``, judged by
``common_validators/sms_validators.py``): send, reply, reply to the newest text, resend, send
the clipboard, forward a received address.

AndroidWorld judges them on the telephony provider, not on the app: ``content query --uri
content://sms/sent`` (each row's ``address``, ``body`` and ``date``, the newest first), read with
its own row parser (:func:`~gui_gym.android.sim.apps.messages.storage.parse_row`). A task is done
when a sent row's address, without dashes and spaces, is the asked number exactly (``+1`` and
ten digits), its body fuzzy-matches the asked text and it is at most five minutes old, while
Simple SMS Messenger is the app in front; a screen showing a text that starts with "Sending"
fails the episode (AndroidWorld raises). ``SimpleSmsResend`` counts sent rows instead (one more
than after set-up, the newest one equal to the one sent before). :func:`sent_rows` gives the rows
the phone served over adb prints for that query (:mod:`~gui_gym.android.sim.apps.messages.storage`).

Set-up happens as AndroidWorld's does, with its draws in its order: texts arrive as the
emulator's ``sms send`` delivers them (unread, one at a time), contacts are added as the
Contacts app saves them (name and number), a text sent during set-up goes through the
``SENDTO`` intent and the thread's "SMS" button, which leaves that thread in front. The phone's
clock runs on during set-up as AndroidWorld's does: a second for each text, contact or tap, and
AndroidWorld's own pauses (five seconds in every SMS task's common set-up), so texts get
distinct times in arrival order.
"""

from __future__ import annotations

import datetime as dt
import random
from typing import TYPE_CHECKING, ClassVar

from gui_gym.android.forest import window_elements
from gui_gym.android.sim.apps.contacts.app import Contact
from gui_gym.android.sim.apps.messages.app import (
    ConversationList,
    MessagesData,
    NewConversation,
    ThreadScreen,
    compose,
    number_key,
    receive,
)
from gui_gym.android.sim.apps.messages.storage import SENT, parse_row, queried
from gui_gym.android.sim.apps.messages.tasks import (
    SEND_BUTTON,
    draft_holds,
    open_thread,
    send_in_thread,
    send_step,
    thread_open,
)
from gui_gym.android.sim.tasks.androidworld import (
    SENTENCES,
    AndroidWorldTask,
    fuzzy_match,
    random_address,
    random_name,
    random_number,
)
from gui_gym.android.sim.tasks.base import Milestone, Oracle, Params, back_stack, in_app

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

#: The text that asks for a resend (``SimpleSmsResend.initialize_task``).
GLITCH = "Sorry, there was a glitch, what was the last message you sent me?"
WINDOW_MS = 5 * 60 * 1000  # ``was_sent``'s five minutes


def db(dev: Device) -> MessagesData:
    return dev.data("messages")


# ----------------------------------------------------------------------------- AndroidWorld's rules


def sent_rows(dev: Device) -> list[dict[str, str]]:
    """``content query --uri content://sms/sent`` as ``sms_validators`` reads it: each row parsed,
    the newest first."""
    return [parse_row(text) for text in queried(db(dev), SENT)]


def _address(row: dict[str, str]) -> str:
    return row["address"].replace("-", "").replace(" ", "")


def was_sent(dev: Device, number: str, body: str, window: bool = True) -> bool:
    """``sms_validators.was_sent``: a sent row to exactly ``number`` whose body fuzzy-matches
    ``body``, dated at most five minutes before the phone's clock (``window``)."""
    now_ms = int(dev.state.now.replace(tzinfo=dt.UTC).timestamp()) * 1000  # ``date +%s`` x 1000
    return any(
        _address(r) == number and fuzzy_match(r["body"], body) and (not window or now_ms - int(r["date"]) <= WINDOW_MS)
        for r in sent_rows(dev)
    )


def sms_in_front(dev: Device) -> bool:
    """``get_current_activity``'s package is Simple SMS Messenger's (not behind recent apps)."""
    return in_app(dev, "messages")


def stuck_sending(dev: Device) -> bool:
    """``_check_if_stuck_at_sending``: an element on screen whose text starts with "Sending"
    (AndroidWorld raises then: the episode fails)."""
    return any(
        e.element.text is not None and e.element.text.startswith("Sending")
        for e in window_elements(dev.windows(), exclude_invisible=True)
    )


def sms_judged(dev: Device, number: str, message: str) -> bool:
    """``SimpleSMSSendSms.is_successful``."""
    if stuck_sending(dev):
        return False
    return was_sent(dev, number, message) and sms_in_front(dev)


# ----------------------------------------------------------------------------- set-up steps


def pause(dev: Device, seconds: float) -> None:
    """Time passing on the phone during set-up (AndroidWorld's sleeps, its adb round trips)."""
    dev.state.now += dt.timedelta(seconds=seconds)


def text_from(dev: Device, number: str, body: str) -> None:
    """``adb_utils.text_emulator``: the emulator delivers a text from ``number``."""
    pause(dev, 1)
    receive(dev, number, body)


def add_contact(dev: Device, name: str, number: str) -> None:
    """``contacts_utils.add_contact``: the INSERT intent's editor with the name and the number,
    then Save (the name is split at its first space, as the editor takes it)."""
    first, _, last = name.strip().partition(" ")
    dev.data("contacts").add(Contact(first, last.strip(), number))
    pause(dev, 1)
    dev.invalidate()


def send_from_setup(dev: Device, number: str, message: str) -> None:
    """``AndroidToolController.send_sms``: the ``SENDTO`` intent opens the thread with ``message``
    typed, five seconds later the "SMS" button is tapped. The thread stays in front."""
    thread = compose(dev, number, message)
    pause(dev, 5)
    thread._send(dev)
    dev.invalidate()


def common_setup(dev: Device) -> None:
    """``SimpleSMSSendSms.initialize_task`` after the base: airplane mode off, the sms and threads
    tables emptied, then five seconds' wait."""
    dev.state.settings["airplane"] = False
    dev.state.data["messages"] = MessagesData()
    dev.state.stacks.pop("messages", None)
    if dev.state.foreground == "messages":
        dev.state.foreground = None
    pause(dev, 5)
    dev.invalidate()


# ----------------------------------------------------------------------------- milestones and oracle steps


def _finish(o: Oracle) -> str:
    """Done: end the episode with Simple SMS Messenger in front (AndroidWorld requires it)."""
    return o.finish() if sms_in_front(o.dev) else o.launch("Simple SMS Messenger")


def new_conversation_open(d: Device) -> bool:
    return any(isinstance(s, NewConversation) for s in back_stack(d, "messages"))


def open_app_milestone() -> Milestone:
    return Milestone("Open the Simple SMS Messenger app", lambda d, p: in_app(d, "messages"))


def paste_step(o: Oracle, text: str) -> str:
    """In the open thread (no toolbar open): tap "SMS" once the message field holds the
    clipboard's ``text``; else empty the field, then long press it (the text-selection toolbar
    offers "Paste")."""
    field = o.field("Type a message")
    if field is None:
        return o.back()
    host, key = field.field
    current = host.form.get(key, "")
    if current.strip() == text.strip():
        return o.tap(o.find(rid=SEND_BUTTON))
    if current:
        return o.replace("") if field.focused else o.tap(field)
    return o.long_press(field)


def pick_recipient(o: Oracle, name: str, number: str) -> str:
    """One step toward the thread with the contact ``name`` whose number is ``number`` (there may
    be two contacts of that name): type the name in "New conversation", tap that contact."""
    s = o.screen
    if o.app != "messages":
        return o.launch("Simple SMS Messenger")
    if isinstance(s, ThreadScreen) and s.dialog is None:
        if number_key(s.number) == number_key(number):
            return ""
        return o.tap(o.find(desc="Navigate up"))
    if isinstance(s, NewConversation) and s.dialog is None:
        act = o.fill("Add contact or number", name)
        if act is not None:
            return act
        for row in o.nodes:
            if row.role == "row" and row.label == name and any(c.text == number for c in row.children):
                return o.tap(row)
        return o.swipe("up", within=o.find(role="list"))
    if isinstance(s, ConversationList) and s.dialog is None:
        return o.tap(o.find(desc="Start a conversation"))
    return o.back()


# ----------------------------------------------------------------------------- the tasks


class _SmsTask(AndroidWorldTask):
    """``SimpleSMSSendSms``: a number and one of the random sentences."""

    app = "messages"
    apps: ClassVar[tuple[str, ...]] = ("messages",)

    def generate(self, r: random.Random) -> Params:
        number = random_number(r)
        return {"number": number, "message": r.choice(SENTENCES)}

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        common_setup(dev)

    def check(self, dev: Device, params: Params, answer: str | None, status: str | None) -> bool:
        return sms_judged(dev, params["number"], params["message"])


def _send_milestones(paste: bool = False) -> tuple[Milestone, ...]:
    def sent(d: Device, p: Params) -> bool:
        return was_sent(d, p["number"], p["message"], window=False)

    typed = (
        Milestone(
            "Paste the clipboard content into the message field",
            lambda d, p: draft_holds(d, p["number"], p["message"]) or sent(d, p),
        )
        if paste
        else Milestone(
            'Type the message "<Message>"', lambda d, p: draft_holds(d, p["number"], p["message"]) or sent(d, p)
        )
    )
    return (
        open_app_milestone(),
        Milestone(
            "Start a new conversation",
            lambda d, p: new_conversation_open(d) or thread_open(d, p["number"]) or sent(d, p),
        ),
        Milestone("Enter the number <Number> as the recipient", lambda d, p: thread_open(d, p["number"]) or sent(d, p)),
        typed,
        Milestone(
            "Send the clipboard content to <Number>" if paste else "Send the message to <Number>",
            sent,
        ),
    )


class SimpleSmsSend(_SmsTask):
    id = "SimpleSmsSend"
    difficulty = "medium"
    optimal_steps = 6
    tags = ("parameterized",)
    template = "Send a text message using Simple SMS Messenger to {number} with message: {message}"
    placeholders: ClassVar[dict[str, str]] = {"Number": "number", "Message": "message"}
    milestones = _send_milestones()

    def oracle(self, o: Oracle) -> str:
        p = o.p
        if was_sent(o.dev, p["number"], p["message"]):
            return _finish(o)
        return send_step(o, p["number"], p["message"], p["number"], contact=False)


class SimpleSmsSendClipboardContent(_SmsTask):
    """The clipboard holds the message (set through the clipper app at set-up)."""

    id = "SimpleSmsSendClipboardContent"
    difficulty = "easy"
    optimal_steps = 6
    tags = ("data_entry", "parameterized")
    template = "Send a message to {number} with the clipboard content in Simple SMS Messenger"
    placeholders: ClassVar[dict[str, str]] = {"Number": "number"}
    milestones = _send_milestones(paste=True)

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        common_setup(dev)
        pause(dev, 1)  # clipper launched, the broadcast, Back
        dev.state.clipboard = params["message"]

    def oracle(self, o: Oracle) -> str:
        p = o.p
        if was_sent(o.dev, p["number"], p["message"]):
            return _finish(o)
        s = o.screen
        if o.app == "messages" and isinstance(s, ThreadScreen) and number_key(s.number) == number_key(p["number"]):
            paste = next((n for n in o.dev.text_actions() if n.desc == "Paste"), None)
            if paste is not None:  # the text-selection toolbar over the field
                return o.tap(paste)
            if s.dialog is None:
                return paste_step(o, o.dev.state.clipboard)
        return send_step(o, p["number"], p["message"], p["number"], contact=False)


def _reply_milestones(open_text: str) -> tuple[Milestone, ...]:
    def sent(d: Device, p: Params) -> bool:
        return was_sent(d, p["number"], p["message"], window=False)

    return (
        open_app_milestone(),
        Milestone(open_text, lambda d, p: thread_open(d, p["number"]) or sent(d, p)),
        Milestone('Type the message "<Message>"', lambda d, p: draft_holds(d, p["number"], p["message"]) or sent(d, p)),
        Milestone("Send the reply", sent),
    )


def reply_step(o: Oracle, number: str, message: str) -> str:
    """Open the (existing) conversation with ``number`` and send ``message`` there; start one
    if it was deleted."""
    if was_sent(o.dev, number, message):
        return _finish(o)
    if db(o.dev).get(number) is None:
        return send_step(o, number, message, number, contact=False)
    return open_thread(o, number) or send_in_thread(o, message)


class SimpleSmsReply(_SmsTask):
    """Texts from 1-5 random numbers arrive, one from the number among them."""

    id = "SimpleSmsReply"
    difficulty = "easy"
    optimal_steps = 4
    tags = ("search", "data_entry", "parameterized")
    template = "Reply to {number} with message: {message} in Simple SMS Messenger"
    placeholders: ClassVar[dict[str, str]] = {"Number": "number", "Message": "message"}
    milestones = _reply_milestones("Open the conversation with <Number>")

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        common_setup(dev)
        texted = False
        for _ in range(r.randint(1, 5)):
            if not texted and r.choice([True, False]):
                text_from(dev, params["number"], r.choice(SENTENCES))
                texted = True
            other = random_number(r)
            text_from(dev, other, r.choice(SENTENCES))
        if not texted:
            text_from(dev, params["number"], r.choice(SENTENCES))
        pause(dev, 0.5)

    def oracle(self, o: Oracle) -> str:
        return reply_step(o, o.p["number"], o.p["message"])


class SimpleSmsReplyMostRecent(_SmsTask):
    """0-5 texts from random numbers, five seconds, then one from the number: the newest."""

    id = "SimpleSmsReplyMostRecent"
    difficulty = "medium"
    optimal_steps = 5
    tags = ("parameterized",)
    template = "Reply to the most recent text message using Simple SMS Messenger with message: {message}"
    placeholders: ClassVar[dict[str, str]] = {"Message": "message"}
    milestones = _reply_milestones("Open the most recent conversation")

    @staticmethod
    def _other_sentence(r: random.Random, message: str) -> str:
        """``_generate_non_goal_message``: a random sentence, drawn again while it is the reply."""
        text = r.choice(SENTENCES)
        while text == message:
            text = r.choice(SENTENCES)
        return text

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        common_setup(dev)
        for _ in range(r.randint(0, 5)):
            other = random_number(r)
            text_from(dev, other, self._other_sentence(r, params["message"]))
        pause(dev, 5)
        text_from(dev, params["number"], self._other_sentence(r, params["message"]))
        pause(dev, 5)

    def oracle(self, o: Oracle) -> str:
        return reply_step(o, o.p["number"], o.p["message"])


def _forwarded(d: Device, p: Params) -> bool:
    return was_sent(d, p["number"], p["message"], window=False)


class SimpleSmsSendReceivedAddress(_SmsTask):
    """Contacts ``name1`` (``number``) and ``name2`` (a random number, ``number2``); ``name2``
    texts an address, to be sent on to ``name1``. AndroidWorld's ``excluding`` does not exclude,
    so the two names may be one: then the right contact is the one with ``number``."""

    id = "SimpleSmsSendReceivedAddress"
    apps = ("messages", "contacts")
    difficulty = "medium"
    optimal_steps = 9
    tags = ("information_retrieval", "parameterized")
    template = "Text the address of the event to {name1} that {name2} just sent me in Simple SMS Messenger"
    placeholders: ClassVar[dict[str, str]] = {"Name1": "name1", "Name2": "name2"}

    milestones = (
        open_app_milestone(),
        Milestone(
            "Read the address <Name2> sent",
            lambda d, p: thread_open(d, p["number2"]) or not db(d).unread(p["number2"]) or _forwarded(d, p),
        ),
        Milestone(
            "Start a new conversation",
            lambda d, p: new_conversation_open(d) or thread_open(d, p["number"]) or _forwarded(d, p),
        ),
        Milestone(
            "Choose the contact <Name1> as the recipient",
            lambda d, p: thread_open(d, p["number"]) or _forwarded(d, p),
        ),
        Milestone(
            "Type the address",
            lambda d, p: draft_holds(d, p["number"], p["message"]) or _forwarded(d, p),
        ),
        Milestone("Send the address to <Name1>", lambda d, p: _forwarded(d, p)),
    )

    def generate(self, r: random.Random) -> Params:
        name1 = random_name(r)
        name2 = random_name(r, excluding=name1)
        return {"name1": name1, "number": random_number(r), "name2": name2, "message": random_address(r)}

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        common_setup(dev)
        number2 = random_number(r)
        params["number2"] = number2
        add_contact(dev, params["name1"], params["number"])
        pause(dev, 5)
        add_contact(dev, params["name2"], number2)
        text_from(dev, number2, params["message"])
        pause(dev, 1)

    def oracle(self, o: Oracle) -> str:
        p = o.p
        if was_sent(o.dev, p["number"], p["message"]):
            return _finish(o)
        if db(o.dev).unread(p["number2"]):  # read what name2 sent first
            return open_thread(o, p["number2"]) or o.back()
        return pick_recipient(o, p["name1"], p["number"]) or send_in_thread(o, p["message"])


class SimpleSmsResend(_SmsTask):
    """The contact ``name`` (``number``); ``message`` was sent to them at set-up (the thread is
    left in front), then they asked for it again."""

    id = "SimpleSmsResend"
    apps = ("messages", "contacts")
    difficulty = "medium"
    optimal_steps = 6
    tags = ("parameterized",)
    template = "Resend the message I just sent to {name} in Simple SMS Messenger"
    placeholders: ClassVar[dict[str, str]] = {"Name": "name"}

    milestones = (
        Milestone(
            "Type the last message sent to <Name> again",
            lambda d, p: draft_holds(d, p["number"], p["message"]) or SimpleSmsResend.resent(d, p),
        ),
        Milestone("Send it to <Name>", lambda d, p: SimpleSmsResend.resent(d, p)),
    )

    def generate(self, r: random.Random) -> Params:
        name = random_name(r)
        number = random_number(r)
        return {"name": name, "number": number, "message": r.choice(SENTENCES)}

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        common_setup(dev)
        add_contact(dev, params["name"], params["number"])
        pause(dev, 3)
        send_from_setup(dev, params["number"], params["message"])
        pause(dev, 3)
        text_from(dev, params["number"], GLITCH)
        pause(dev, 1)
        params["sent_before"] = [[r["address"], r["body"]] for r in sent_rows(dev)]  # ``before_messages``

    @staticmethod
    def resent(dev: Device, params: Params) -> bool:
        """``SimpleSmsResend.is_successful``: exactly one more sent row than after set-up, the
        newest one (``after[0]``) with the address and a fuzzy-equal body of the set-up's oldest
        (``before[-1]``). No clock, app or "Sending" rule."""
        before = params["sent_before"]
        after = sent_rows(dev)
        if len(after) != len(before) + 1:
            return False
        address, body = before[-1]
        newest = after[0]
        return _address(newest) == address.replace("-", "").replace(" ", "") and fuzzy_match(newest["body"], body)

    def check(self, dev: Device, params: Params, answer: str | None, status: str | None) -> bool:
        return self.resent(dev, params)

    def oracle(self, o: Oracle) -> str:
        p = o.p
        if self.resent(o.dev, p):
            return o.finish()
        if len(sent_rows(o.dev)) > len(p["sent_before"]):
            return o.infeasible()  # something else was sent since: a resend can no longer count
        if db(o.dev).get(p["number"]) is None:
            return pick_recipient(o, p["name"], p["number"]) or send_in_thread(o, p["message"])
        return open_thread(o, p["number"]) or send_in_thread(o, p["message"])


TEMPLATES = (
    SimpleSmsSend,
    SimpleSmsReply,
    SimpleSmsReplyMostRecent,
    SimpleSmsResend,
    SimpleSmsSendClipboardContent,
    SimpleSmsSendReceivedAddress,
)
