"""gui-gym's own Messages tasks (SimpleSmsSendToContact, …) and the oracle steps the app's
tasks share. AndroidWorld's SMS tasks are in :mod:`~gui_gym.android.sim.apps.messages.androidworld`."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from gui_gym.android.sim.apps.contacts.app import Contact
from gui_gym.android.sim.apps.contacts.tasks import populate
from gui_gym.android.sim.apps.messages.app import (
    ConversationList,
    Message,
    MessagesData,
    NewConversation,
    ThreadScreen,
    display_name,
    number_key,
)
from gui_gym.android.sim.dialogs import AlertDialog, MenuDialog
from gui_gym.android.sim.tasks.base import Milestone, Oracle, Params, TaskTemplate, back_stack, in_app
from gui_gym.android.sim.tasks.data import people, phone_number, pick

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

SEND_BUTTON = ":id/thread_send_message"  # the thread's send button (its text "SMS")

CHAT = (
    "Are we still on for lunch tomorrow?",
    "Running 10 minutes late, sorry!",
    "Can you send me the address?",
    "Happy birthday! Have a great day.",
    "The package arrived this morning.",
    "Did you watch the game last night?",
    "Call me when you get a chance.",
    "Thanks for dinner, it was lovely.",
    "The meeting moved to 3pm.",
    "Don't forget to bring the charger.",
    "I left the keys under the mat.",
    "Can we reschedule to Friday?",
    "The train is delayed again.",
    "Got the tickets for Saturday!",
    "Let me know when you're home.",
    "See you at the gym at 7.",
    "Your order is ready for pickup.",
    "Can you water my plants this weekend?",
    "I found your umbrella in my car.",
    "Parking is free after 6pm.",
    "The kids loved the pancakes.",
    "Bring a jacket, it gets cold at night.",
    "Which platform does the bus leave from?",
    "I'll be at the cafe by noon.",
)
OUTGOING = (
    "See you at 6",
    "On my way!",
    "I'll call you back in 10 minutes.",
    "Can you pick up milk on the way home?",
    "Happy to help, just let me know.",
    "The meeting starts at 3pm.",
    "Thanks, got it!",
    "Dinner is at 8 tonight.",
    "Sorry, I missed your call.",
    "Let's meet at the cafe near the station.",
    "Running late, start without me.",
    "Congrats on the new job!",
)


def db(dev: Device) -> MessagesData:
    return dev.data("messages")


def same_text(a: str, b: str) -> bool:
    """Message texts match up to case and spacing."""
    return " ".join(a.casefold().split()) == " ".join(b.casefold().split())


def words(text: str) -> str:
    """Lower-case words without punctuation: how answers are compared."""
    return " ".join(re.sub(r"[^\w\s]", "", text.lower()).split())


def contains(haystack: str, needle: str) -> bool:
    return bool(needle) and f" {needle} " in f" {haystack} "


def was_sent(dev: Device, number: str, text: str) -> bool:
    return any(same_text(t, text) for t in db(dev).sent_to(number))


def sent_exactly(dev: Device, expected: list[tuple[str, str]]) -> bool:
    """The app sent exactly these (number, text) messages, in any order, nothing else."""
    got = sorted((number_key(n), " ".join(t.casefold().split())) for n, t in db(dev).log)
    want = sorted((number_key(n), " ".join(t.casefold().split())) for n, t in expected)
    return got == want


def thread_open(dev: Device, number: str) -> bool:
    key = number_key(number)
    return any(isinstance(s, ThreadScreen) and number_key(s.number) == key for s in back_stack(dev, "messages"))


def draft_holds(dev: Device, number: str, text: str) -> bool:
    return any(
        isinstance(s, ThreadScreen)
        and number_key(s.number) == number_key(number)
        and same_text(s.form.get("msg", ""), text)
        for s in back_stack(dev, "messages")
    )


def fill_inbox(dev: Device, rng: np.random.Generator, numbers: list[str], now: dt.datetime) -> None:
    """A conversation of 2-5 messages with each number, the first number the most recent."""
    for i, number in enumerate(numbers):
        last = now - dt.timedelta(hours=2 * i + 1, minutes=int(rng.integers(0, 100)))
        n = int(rng.integers(2, 6))
        texts = pick(rng, CHAT, n)
        for j, text in enumerate(texts):
            incoming = j == 0 or bool(rng.random() < 0.6)
            db(dev).add(number, text, incoming, last - dt.timedelta(minutes=7 * (n - 1 - j)))


def setup_inbox(
    dev: Device, rng: np.random.Generator, n_contacts: int, n_convs: int, keep: Sequence[tuple[str, str]] = ()
) -> list[Contact]:
    """Contacts (the ``keep`` names among them) and ``n_convs`` conversations in random order
    with some of them and with unknown numbers; the ``keep`` contacts always have one."""
    contacts = populate(dev, rng, n_contacts, list(keep))
    kept = [c for c in contacts if (c.first, c.last) in keep]
    others = [c.phone for c in contacts if c not in kept]
    rng.shuffle(others)
    numbers = [c.phone for c in kept] + others[: max(0, n_convs - len(kept) - 2)]
    while len(numbers) < n_convs:
        numbers.append(phone_number(rng))
    order = rng.permutation(len(numbers))
    fill_inbox(dev, rng, [numbers[int(i)] for i in order], dev.state.now)
    return contacts


def options_open(dev: Device, number: str) -> bool:
    """A menu or delete confirmation about the conversation with ``number`` is open."""
    key = number_key(number)
    for s in back_stack(dev, "messages"):
        about = s.menu_number if isinstance(s, ConversationList) else s.number if isinstance(s, ThreadScreen) else ""
        if about and number_key(about) == key and isinstance(s.dialog, (MenuDialog, AlertDialog)):
            return True
    return False


def open_thread(o: Oracle, number: str) -> str | None:
    """From anywhere: get to the conversation list and open the (existing) conversation with
    ``number``; ``None`` once its thread is open with no dialog."""
    s = o.screen
    if o.app != "messages":
        return o.launch("Simple SMS Messenger")
    if isinstance(s, ThreadScreen) and number_key(s.number) == number_key(number) and s.dialog is None:
        return None
    if not isinstance(s, ConversationList) or s.dialog is not None:
        return o.back()
    act = reveal_conversation(o, number)
    return act or o.tap(o.find(role="row", label=display_name(o.dev, number)))


def reveal_conversation(o: Oracle, number: str) -> str | None:
    """Scroll the conversation list toward the conversation with ``number``."""
    order = {display_name(o.dev, c.number): i for i, c in enumerate(db(o.dev).sorted())}
    name = display_name(o.dev, number)
    target = order.get(name, 0)
    return o.reveal(lambda n: n.role == "row" and n.label == name, before=lambda r: order.get(r.label, -1) < target)


def send_in_thread(o: Oracle, text: str) -> str:
    """In an open thread: type ``text`` into the message field, then tap the send button ("SMS")."""
    return o.fill("Type a message", text) or o.tap(o.find(rid=SEND_BUTTON))


def start_conversation(o: Oracle, recipient: str, contact: bool) -> str:
    """One step from anywhere but a thread toward a new one: open "New conversation" and
    enter ``recipient``, a number (then confirm) or a contact name (then tap its suggestion;
    if no such contact is listed, the task cannot be done)."""
    s = o.screen
    if o.app != "messages":
        return o.launch("Simple SMS Messenger")
    if isinstance(s, NewConversation) and s.dialog is None:
        act = o.fill("Add contact or number", recipient)
        if act is not None:
            return act
        if contact:
            row = o.find(role="row", label=recipient)
            return o.infeasible() if row is None else o.tap(row)
        return o.tap(o.find(desc="Confirm"))
    if isinstance(s, ConversationList) and s.dialog is None:
        return o.tap(o.find(desc="Start a conversation"))
    return o.back()


def send_step(o: Oracle, number: str, text: str, recipient: str, contact: bool) -> str:
    """One step toward sending ``text`` to ``number`` through a new conversation with
    ``recipient`` (the number itself, or a contact name when ``contact``)."""
    s = o.screen
    if o.app == "messages" and isinstance(s, ThreadScreen) and s.dialog is None:
        if number_key(s.number) == number_key(number):
            return send_in_thread(o, text)
        return o.tap(o.find(desc="Navigate up"))
    return start_conversation(o, recipient, contact)


def send_milestones(key: str, recipient_step: str, recipient: str) -> tuple[Milestone, ...]:
    """Milestones of sending ``p["message"]`` to the number ``p[key]`` in a new conversation;
    each later step also counts as reached once the message is sent."""

    def sent(d: Device, p: Params) -> bool:
        return was_sent(d, p[key], p["message"])

    return (
        Milestone("Open the Simple SMS Messenger app", lambda d, p: in_app(d, "messages")),
        Milestone(
            "Start a new conversation",
            lambda d, p: (
                any(isinstance(s, NewConversation) for s in back_stack(d, "messages"))
                or thread_open(d, p[key])
                or sent(d, p)
            ),
        ),
        Milestone(recipient_step, lambda d, p: thread_open(d, p[key]) or sent(d, p)),
        Milestone('Type the message "<Message>"', lambda d, p: draft_holds(d, p[key], p["message"]) or sent(d, p)),
        Milestone(f"Send the message to {recipient}", sent),
    )


class SimpleSmsSendToContact(TaskTemplate):
    id = "SimpleSmsSendToContact"
    app = "messages"
    apps = ("messages", "contacts")
    difficulty = "medium"
    template = "Send a text message using Simple SMS Messenger to my contact {name} with message: {message}"
    placeholders: ClassVar[dict[str, str]] = {"Name": "name", "Message": "message"}
    milestones = send_milestones("phone", "Choose the contact <Name> as the recipient", "<Name>")

    def sample(self, rng: np.random.Generator) -> Params:
        ((first, last),) = people(rng, 1)
        return {"first": first, "last": last, "name": f"{first} {last}", "message": pick(rng, OUTGOING)}

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        contacts = setup_inbox(dev, rng, 8, 5, keep=[(p["first"], p["last"])])
        target = next(c for c in contacts if c.name == p["name"])
        p["phone"] = target.phone
        db(dev).remove(target.phone)  # no conversation yet: start one

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return sent_exactly(dev, [(p["phone"], p["message"])])

    def oracle(self, o: Oracle) -> str:
        p = o.p
        if was_sent(o.dev, p["phone"], p["message"]):
            return o.finish()
        return send_step(o, p["phone"], p["message"], p["name"], contact=True)


class SimpleSmsLatestMessageQuestion(TaskTemplate):
    id = "SimpleSmsLatestMessageQuestion"
    app = "messages"
    difficulty = "easy"
    kind = "question"
    template = (
        "What was the last message I received from {name} in Simple SMS Messenger? Answer with the message text only."
    )
    placeholders: ClassVar[dict[str, str]] = {"Name": "name"}
    milestones = (
        Milestone("Open the Simple SMS Messenger app", lambda d, p: in_app(d, "messages")),
        Milestone("Open the conversation with <Name>", lambda d, p: thread_open(d, p["phone"])),
    )

    def sample(self, rng: np.random.Generator) -> Params:
        ((first, last),) = people(rng, 1)
        return {
            "first": first,
            "last": last,
            "name": f"{first} {last}",
            "n_convs": int(rng.integers(8, 19)),
            "reply_last": bool(rng.random() < 0.5),
        }

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        contacts = setup_inbox(dev, rng, 16, p["n_convs"], keep=[(p["first"], p["last"])])
        p["phone"] = next(c.phone for c in contacts if c.name == p["name"])
        conv = db(dev).get(p["phone"])
        last = conv.messages[-1]
        if p["reply_last"] and last.incoming:  # half of the time, the newest message is one we sent
            conv.messages.append(Message(pick(rng, OUTGOING), False, last.time + dt.timedelta(minutes=2)))
        p["expected"] = next(m.text for m in reversed(conv.messages) if m.incoming)
        p["others"] = [m.text for m in conv.messages if m.incoming and m.text != p["expected"]]

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        got = words(answer or "")
        if not got or not contains(got, words(p["expected"])):
            return False
        return not any(contains(got, words(t)) for t in p["others"])  # not a dump of the whole thread

    def oracle(self, o: Oracle) -> str:
        if db(o.dev).get(o.p["phone"]) is None and not thread_open(o.dev, o.p["phone"]):
            return o.infeasible()  # the conversation was deleted: the answer is lost
        act = open_thread(o, o.p["phone"])
        if act is not None:
            return act
        received = [n for n in o.nodes if n.rid.endswith(":id/received_message_holder")]
        if not received:
            return o.swipe("down", within=o.find(role="list"))  # older messages are above
        body = next(c for c in received[-1].children if c.rid.endswith(":id/thread_message_body"))
        return o.answer(body.text)


class SimpleSmsDeleteConversation(TaskTemplate):
    id = "SimpleSmsDeleteConversation"
    app = "messages"
    difficulty = "easy"
    template = "Delete my conversation with {name} in Simple SMS Messenger."
    placeholders: ClassVar[dict[str, str]] = {"Name": "name"}
    milestones = (
        Milestone("Open the Simple SMS Messenger app", lambda d, p: in_app(d, "messages")),
        Milestone(
            "Open the options for the conversation with <Name>",
            lambda d, p: options_open(d, p["phone"]) or db(d).get(p["phone"]) is None,
        ),
        Milestone("Delete the conversation with <Name>", lambda d, p: db(d).get(p["phone"]) is None),
    )

    def sample(self, rng: np.random.Generator) -> Params:
        ((first, last),) = people(rng, 1)
        return {"first": first, "last": last, "name": f"{first} {last}", "n_convs": int(rng.integers(5, 11))}

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        contacts = setup_inbox(dev, rng, 10, p["n_convs"], keep=[(p["first"], p["last"])])
        p["phone"] = next(c.phone for c in contacts if c.name == p["name"])

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        d = db(dev)
        return d.get(p["phone"]) is None and len(d.sorted()) == p["n_convs"] - 1 and not d.log

    def oracle(self, o: Oracle) -> str:
        phone = o.p["phone"]
        if db(o.dev).get(phone) is None:
            return o.finish()
        s = o.screen
        if o.app != "messages":
            return o.launch("Simple SMS Messenger")
        if isinstance(s, (ConversationList, ThreadScreen)) and s.dialog is not None and options_open(o.dev, phone):
            if isinstance(s.dialog, MenuDialog):
                return o.tap(o.find("Delete", role="menuitem"))
            return o.tap(o.find(label="Delete", role="textbutton"))
        if isinstance(s, ConversationList) and s.dialog is None:
            act = reveal_conversation(o, phone)
            return act or o.long_press(o.find(role="row", label=display_name(o.dev, phone)))
        return o.back()


class SimpleSmsSendMultiple(TaskTemplate):
    id = "SimpleSmsSendMultiple"
    app = "messages"
    apps = ("messages", "contacts")
    difficulty = "hard"
    template = 'Send the message "{message}" to my contacts {name1} and {name2} in Simple SMS Messenger.'
    placeholders: ClassVar[dict[str, str]] = {"Name1": "name1", "Name2": "name2", "Message": "message"}
    milestones = (
        Milestone("Open the Simple SMS Messenger app", lambda d, p: in_app(d, "messages")),
        Milestone(
            "Open a conversation with <Name1>",
            lambda d, p: thread_open(d, p["phone1"]) or was_sent(d, p["phone1"], p["message"]),
        ),
        Milestone("Send the message to <Name1>", lambda d, p: was_sent(d, p["phone1"], p["message"])),
        Milestone(
            "Open a conversation with <Name2>",
            lambda d, p: thread_open(d, p["phone2"]) or was_sent(d, p["phone2"], p["message"]),
        ),
        Milestone("Send the message to <Name2>", lambda d, p: was_sent(d, p["phone2"], p["message"])),
    )

    def sample(self, rng: np.random.Generator) -> Params:
        (f1, l1), (f2, l2) = people(rng, 2)
        return {
            "first1": f1,
            "last1": l1,
            "name1": f"{f1} {l1}",
            "first2": f2,
            "last2": l2,
            "name2": f"{f2} {l2}",
            "message": pick(rng, OUTGOING),
        }

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        keep = [(p["first1"], p["last1"]), (p["first2"], p["last2"])]
        contacts = setup_inbox(dev, rng, 9, 6, keep=keep)
        for i in ("1", "2"):
            p["phone" + i] = next(c.phone for c in contacts if c.name == p["name" + i])
            db(dev).remove(p["phone" + i])

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return sent_exactly(dev, [(p["phone1"], p["message"]), (p["phone2"], p["message"])])

    def oracle(self, o: Oracle) -> str:
        p = o.p
        for i in ("1", "2"):
            if not was_sent(o.dev, p["phone" + i], p["message"]):
                return send_step(o, p["phone" + i], p["message"], p["name" + i], contact=True)
        return o.finish()


class SimpleSmsSendToUnknownContact(TaskTemplate):
    id = "SimpleSmsSendToUnknownContact"
    app = "messages"
    apps = ("messages", "contacts")
    difficulty = "easy"
    kind = "infeasible"
    template = "Send a text message using Simple SMS Messenger to my contact {name} with message: {message}"
    placeholders: ClassVar[dict[str, str]] = {"Name": "name"}
    milestones = (Milestone("Open the Simple SMS Messenger app", lambda d, p: in_app(d, "messages")),)

    def sample(self, rng: np.random.Generator) -> Params:
        people_ = people(rng, 9)
        return {"people": people_[:8], "name": " ".join(people_[8]), "message": pick(rng, OUTGOING)}

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        setup_inbox(dev, rng, 8, 5, keep=p["people"])

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return not db(dev).log  # nothing was sent to anyone

    def oracle(self, o: Oracle) -> str:
        return start_conversation(o, o.p["name"], contact=True)  # typing the name lists no such contact


# SimpleSmsSend and SimpleSmsReply are AndroidWorld's (``androidworld.py``).
TEMPLATES = (
    SimpleSmsSendToContact,
    SimpleSmsLatestMessageQuestion,
    SimpleSmsDeleteConversation,
    SimpleSmsSendMultiple,
    SimpleSmsSendToUnknownContact,
)
