"""Tasks that carry information from one app to another (AndroidWorld's multi_app tag)."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from gui_gym.android.sim.apps.contacts import tasks as ct
from gui_gym.android.sim.apps.contacts.tasks import contact_open, digits, open_contact
from gui_gym.android.sim.apps.contacts.tasks import db as contacts_db
from gui_gym.android.sim.apps.markor import tasks as mk
from gui_gym.android.sim.apps.messages import tasks as sms
from gui_gym.android.sim.apps.messages.app import Message
from gui_gym.android.sim.tasks.base import Milestone, Oracle, Params, TaskTemplate, in_app
from gui_gym.android.sim.tasks.data import people, pick

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device


def sent_containing(dev: Device, number: str, needle_digits: str) -> bool:
    return any(needle_digits in digits(t) for t in sms.db(dev).sent_to(number))


class SimpleSmsShareContactNumber(TaskTemplate):
    """Look a number up in Contacts, then text it to someone in Messages."""

    id = "SimpleSmsShareContactNumber"
    app = "messages"
    apps = ("contacts", "messages")
    difficulty = "medium"
    template = "Send {other}'s phone number to {name} by text message."
    placeholders: ClassVar[dict[str, str]] = {"Name": "name", "Other": "other", "Number": "other_phone"}
    milestones = (
        Milestone("Open the Contacts app", lambda d, p: in_app(d, "contacts")),
        Milestone(
            "Open the contact <Other> to read the number",
            lambda d, p: contact_open(d, p["other"]) or sent_containing(d, p["phone"], digits(p["other_phone"])),
        ),
        Milestone(
            "Open the Simple SMS Messenger app",
            lambda d, p: in_app(d, "messages") or sent_containing(d, p["phone"], digits(p["other_phone"])),
        ),
        Milestone(
            "Choose the contact <Name> as the recipient",
            lambda d, p: sms.thread_open(d, p["phone"]) or sent_containing(d, p["phone"], digits(p["other_phone"])),
        ),
        Milestone("Send <Number> to <Name>", lambda d, p: sent_containing(d, p["phone"], digits(p["other_phone"]))),
    )

    def sample(self, rng: np.random.Generator) -> Params:
        (f1, l1), (f2, l2) = people(rng, 2)
        return {"first": f1, "last": l1, "name": f"{f1} {l1}", "ofirst": f2, "olast": l2, "other": f"{f2} {l2}"}

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        contacts = sms.setup_inbox(dev, rng, 8, 4, keep=[(p["first"], p["last"]), (p["ofirst"], p["olast"])])
        by_name = {c.name: c for c in contacts}
        p["phone"], p["other_phone"] = by_name[p["name"]].phone, by_name[p["other"]].phone
        sms.db(dev).remove(p["phone"])  # no conversation yet with the recipient

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        sent = sms.db(dev).log
        return len(sent) == 1 and sent_containing(dev, p["phone"], digits(p["other_phone"]))

    def oracle(self, o: Oracle) -> str:
        p = o.p
        if sent_containing(o.dev, p["phone"], digits(p["other_phone"])):
            return o.finish()
        if not contact_open(o.dev, p["other"]) and o.app != "messages":
            return open_contact(o, p["other"]) or o.launch("Simple SMS Messenger")
        return sms.send_step(o, p["phone"], p["other_phone"], p["name"], contact=True)


class MarkorNoteFromSms(TaskTemplate):
    """Read a message in Messages, keep it in a Markor note, then reply."""

    id = "MarkorNoteFromSms"
    app = "markor"
    apps = ("messages", "markor")
    difficulty = "hard"
    template = (
        "Save the last message {name} sent me in a new Markor note named {note}, then reply to {name} with: {reply}"
    )
    placeholders: ClassVar[dict[str, str]] = {"Name": "name", "Note": "note", "Reply": "reply", "Message": "expected"}
    milestones = (
        Milestone("Open the conversation with <Name> in Messages", lambda d, p: sms.thread_open(d, p["phone"])),
        Milestone("Open the Markor app", lambda d, p: in_app(d, "markor")),
        Milestone("Create the note <Note>", lambda d, p: mk.is_note(d, p["note"])),
        Milestone('Write "<Message>" into <Note> and save it', lambda d, p: mk.note_has(d, p["note"], p["expected"])),
        Milestone('Reply "<Reply>" to <Name>', lambda d, p: sms.was_sent(d, p["phone"], p["reply"])),
    )

    def sample(self, rng: np.random.Generator) -> Params:
        ((first, last),) = people(rng, 1)
        return {
            "first": first,
            "last": last,
            "name": f"{first} {last}",
            "note": mk.new_name(rng),
            "reply": pick(rng, sms.OUTGOING),
        }

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        contacts = sms.setup_inbox(dev, rng, 6, 5, keep=[(p["first"], p["last"])])
        p["phone"] = next(c.phone for c in contacts if c.name == p["name"])
        conv = sms.db(dev).get(p["phone"])
        if not conv.messages[-1].incoming:
            conv.messages.append(Message(pick(rng, sms.CHAT), True, conv.messages[-1].time + dt.timedelta(minutes=3)))
        p["expected"] = conv.messages[-1].text
        mk.populate(dev, rng, int(rng.integers(2, 5)))

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return mk.note_has(dev, p["note"], p["expected"]) and sms.sent_exactly(dev, [(p["phone"], p["reply"])])

    def oracle(self, o: Oracle) -> str:
        p = o.p
        dev = o.dev
        if not mk.note_has(dev, p["note"], p["expected"]):
            if mk.db(dev).get(p["note"]) is None:
                if o.app != "markor" and not sms.thread_open(dev, p["phone"]):
                    return sms.open_thread(o, p["phone"]) or o.launch("Markor")  # read the message first
                return mk.create_step(o, "", p["note"], "OK")
            return mk.write_note(o, p["note"], p["expected"])
        if not sms.was_sent(dev, p["phone"], p["reply"]):
            return sms.open_thread(o, p["phone"]) or sms.send_in_thread(o, p["reply"])
        return o.finish()


class ContactsAddFromSms(TaskTemplate):
    """Read a new number off a text message, then save it in Contacts."""

    id = "ContactsAddFromSms"
    app = "contacts"
    apps = ("messages", "contacts")
    difficulty = "medium"  # 9 expert steps: Enter after each Type moves to the next field
    template = "{first} texted me from a new number. Save that number as a new contact named {name}."
    placeholders: ClassVar[dict[str, str]] = {"Name": "name", "First": "first", "Last": "last", "Number": "phone"}
    milestones = (
        Milestone("Open the Simple SMS Messenger app", lambda d, p: in_app(d, "messages")),
        Milestone("Open the message from <First> to read the number", lambda d, p: sms.thread_open(d, p["phone"])),
        Milestone("Open the Contacts app", lambda d, p: in_app(d, "contacts")),
        Milestone(
            'Enter the name "<Name>" in a new contact',
            lambda d, p: ct.editor_holds(d, "last", p["last"]) or ct.has_contact(d, p["name"], p["phone"]),
        ),
        Milestone("Save <Name> with the number <Number>", lambda d, p: ct.has_contact(d, p["name"], p["phone"])),
    )

    def sample(self, rng: np.random.Generator) -> Params:
        ((first, last),) = people(rng, 1)
        return {"first": first, "last": last, "name": f"{first} {last}"}

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        contacts = sms.setup_inbox(dev, rng, 6, 6)
        contacts_db(dev).contacts[:] = [c for c in contacts if c.first != p["first"]]
        known = {digits(c.phone) for c in contacts_db(dev).contacts}
        p["phone"] = next(c.number for c in sms.db(dev).sorted() if digits(c.number) not in known)
        conv = sms.db(dev).get(p["phone"])
        conv.messages.append(
            Message(
                f"Hi! It's {p['first']}, this is my new number.",
                True,
                dev.state.now - dt.timedelta(minutes=int(rng.integers(5, 50))),
            )
        )

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return len(contacts_db(dev).find(p["name"])) == 1 and ct.has_contact(dev, p["name"], p["phone"])

    def oracle(self, o: Oracle) -> str:
        p = o.p
        if ct.has_contact(o.dev, p["name"], p["phone"]):
            return o.finish()
        if o.app != "contacts" and not sms.thread_open(o.dev, p["phone"]):
            return sms.open_thread(o, p["phone"]) or o.launch("Contacts")  # read the number first
        if o.app == "messages":
            return o.launch("Contacts")
        return ct.add_contact_step(o, p["first"], p["last"], p["phone"])


TEMPLATES = (SimpleSmsShareContactNumber, MarkorNoteFromSms, ContactsAddFromSms)
