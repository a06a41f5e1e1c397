"""Contacts tasks of gui-gym's own suite (add several, delete, favourite, a question, edit a number,
delete one that does not exist). AndroidWorld's Contacts tasks are in
:mod:`~gui_gym.android.sim.apps.contacts.androidworld`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from gui_gym.android.sim.apps.contacts.app import Contact, ContactDetail, ContactEditor, ContactList, ContactsData
from gui_gym.android.sim.dialogs import AlertDialog, MenuDialog
from gui_gym.android.sim.tasks.base import Milestone, Oracle, Params, TaskTemplate, back_stack, in_app
from gui_gym.android.sim.tasks.data import people, phone_number

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device


def db(dev: Device) -> ContactsData:
    return dev.data("contacts")


def digits(s: str) -> str:
    return "".join(c for c in s if c.isdigit())


def populate(dev: Device, rng: np.random.Generator, n: int, keep: Sequence[tuple[str, str]] = ()) -> list[Contact]:
    """Fill Contacts with ``n`` people (the ``keep`` names among them), distinct names."""
    names = list(keep)
    for first, last in people(rng, n + len(keep)):
        if len(names) >= n:
            break
        if (first, last) not in names:
            names.append((first, last))
    d = db(dev)
    return [d.add(Contact(first, last, phone_number(rng))) for first, last in names]


def has_contact(dev: Device, name: str, phone: str | None = None) -> bool:
    return any(phone is None or digits(c.phone) == digits(phone) for c in db(dev).find(name))


def open_contact(o: Oracle, name: str) -> str | None:
    """From anywhere: get to the contact list and tap ``name``; ``None`` once its page is open."""
    s = o.screen
    if o.app != "contacts":
        return o.launch("Contacts")
    if isinstance(s, ContactDetail):
        c = db(o.dev).by_uid(s.uid)
        if c is not None and c.name == name:
            return None
        return o.back()
    if not isinstance(s, ContactList) or s.dialog is not None:
        return o.back()
    act = o.reveal(lambda n: n.role == "row" and n.label == name, before=lambda r: r.label.lower() < name.lower())
    if act is not None:
        return act
    return o.tap(o.find(role="row", label=name))


def contact_open(dev: Device, name: str) -> bool:
    """The detail page of the contact ``name`` is on the Contacts back stack."""
    return any(
        isinstance(s, ContactDetail) and (c := db(dev).by_uid(s.uid)) is not None and c.name == name
        for s in back_stack(dev, "contacts")
    )


def options_open(dev: Device, name: str) -> bool:
    """A long-press menu or delete confirmation about ``name`` is showing in the list."""
    for s in back_stack(dev, "contacts"):
        if isinstance(s, ContactList) and isinstance(s.dialog, (MenuDialog, AlertDialog)):
            c = db(dev).by_uid(getattr(s, "menu_uid", -1))
            if c is not None and c.name == name:
                return True
    return False


def editor_holds(dev: Device, key: str, value: str) -> bool:
    return any(
        isinstance(s, ContactEditor) and s.form.get(key, "").strip() == value for s in back_stack(dev, "contacts")
    )


def editing_contact(dev: Device, name: str, phone: str | None = None) -> bool:
    """The editor of the saved contact ``name`` is on the Contacts back stack (holding the phone
    number ``phone``, if given); not another contact's editor, nor a new contact's."""
    return any(
        isinstance(s, ContactEditor)
        and s.uid is not None
        and (c := db(dev).by_uid(s.uid)) is not None
        and c.name == name
        and (phone is None or s.form.get("phone", "").strip() == phone)
        for s in back_stack(dev, "contacts")
    )


def add_contact_step(o: Oracle, first: str, last: str, phone: str) -> str:
    """One oracle step toward saving a new contact (first, last, phone)."""
    s = o.screen
    if o.app != "contacts":
        return o.launch("Contacts")
    if isinstance(s, ContactEditor) and s.uid is None and s.dialog is None:
        act = o.fill_form([("First name", first), ("Last name", last), ("Phone", phone)])
        return act or o.tap(o.find(desc="Save"))
    if isinstance(s, ContactList) and s.dialog is None:
        return o.tap(o.find(desc="Create contact"))
    return o.back()


class ContactsAddMultiple(TaskTemplate):
    id = "ContactsAddMultiple"
    app = "contacts"
    difficulty = "hard"
    template = "Add two new contacts: {name1} with number {phone1}, and {name2} with number {phone2}."
    placeholders: ClassVar[dict[str, str]] = {
        "Name1": "name1",
        "Phone1": "phone1",
        "Name2": "name2",
        "Phone2": "phone2",
    }
    milestones = (
        Milestone("Open the Contacts app", lambda d, p: in_app(d, "contacts")),
        Milestone(
            "Save the contact <Name1> with number <Phone1>", lambda d, p: has_contact(d, p["name1"], p["phone1"])
        ),
        Milestone(
            "Save the contact <Name2> with number <Phone2>", lambda d, p: has_contact(d, p["name2"], p["phone2"])
        ),
    )

    def sample(self, rng: np.random.Generator) -> Params:
        (f1, l1), (f2, l2) = people(rng, 2)
        return {
            "first1": f1,
            "last1": l1,
            "name1": f"{f1} {l1}",
            "phone1": phone_number(rng),
            "first2": f2,
            "last2": l2,
            "name2": f"{f2} {l2}",
            "phone2": phone_number(rng),
        }

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        populate(dev, rng, 3)
        db(dev).contacts[:] = [c for c in db(dev).contacts if c.name not in (p["name1"], p["name2"])]

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return has_contact(dev, p["name1"], p["phone1"]) and has_contact(dev, p["name2"], p["phone2"])

    def oracle(self, o: Oracle) -> str:
        p = o.p
        for i in ("1", "2"):
            if not has_contact(o.dev, p["name" + i], p["phone" + i]):
                if isinstance(o.screen, ContactDetail):
                    return o.back()
                return add_contact_step(o, p["first" + i], p["last" + i], p["phone" + i])
        return o.finish()


class ContactsDeleteContact(TaskTemplate):
    id = "ContactsDeleteContact"
    app = "contacts"
    difficulty = "easy"
    template = "Delete the contact {name} from my contacts."
    placeholders: ClassVar[dict[str, str]] = {"Name": "name"}
    milestones = (
        Milestone("Open the Contacts app", lambda d, p: in_app(d, "contacts")),
        Milestone(
            "Open the options for <Name>", lambda d, p: options_open(d, p["name"]) or not has_contact(d, p["name"])
        ),
        Milestone("Delete the contact <Name>", lambda d, p: not has_contact(d, p["name"])),
    )

    def sample(self, rng: np.random.Generator) -> Params:
        people_ = people(rng, 8)
        return {"people": people_, "name": " ".join(people_[int(rng.integers(8))])}

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        for first, last in p["people"]:
            db(dev).add(Contact(first, last, phone_number(rng)))

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return not has_contact(dev, p["name"]) and len(db(dev).contacts) == len(p["people"]) - 1

    def oracle(self, o: Oracle) -> str:
        name = o.p["name"]
        if not has_contact(o.dev, name):
            return o.finish()
        s = o.screen
        if o.app != "contacts":
            return o.launch("Contacts")
        if isinstance(s, ContactList):
            if s.dialog is not None and not options_open(o.dev, name):
                return o.back()  # a menu or confirmation about someone else
            if isinstance(s.dialog, MenuDialog):
                return o.tap(o.find("Delete", role="menuitem"))
            if isinstance(s.dialog, AlertDialog):
                return o.tap(o.find(label="Delete", role="textbutton"))
            act = o.reveal(
                lambda n: n.role == "row" and n.label == name, before=lambda r: r.label.lower() < name.lower()
            )
            return act or o.long_press(o.find(role="row", label=name))
        return o.back()


class ContactsFavorite(TaskTemplate):
    id = "ContactsFavorite"
    app = "contacts"
    difficulty = "easy"
    template = "Add {name} to my favourite contacts."
    placeholders: ClassVar[dict[str, str]] = {"Name": "name"}
    milestones = (
        Milestone("Open the Contacts app", lambda d, p: in_app(d, "contacts")),
        Milestone("Open the contact <Name>", lambda d, p: contact_open(d, p["name"])),
        Milestone("Add <Name> to favourites", lambda d, p: any(c.starred for c in db(d).find(p["name"]))),
    )

    def sample(self, rng: np.random.Generator) -> Params:
        people_ = people(rng, 7)
        return {"people": people_, "name": " ".join(people_[int(rng.integers(7))])}

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        for first, last in p["people"]:
            db(dev).add(Contact(first, last, phone_number(rng)))

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        starred = [c.name for c in db(dev).contacts if c.starred]
        return starred == [p["name"]]

    def oracle(self, o: Oracle) -> str:
        name = o.p["name"]
        if any(c.starred for c in db(o.dev).find(name)):
            return o.finish()
        act = open_contact(o, name)
        return act or o.tap(o.find(desc="Add to favourites"))


class ContactsPhoneNumberQuestion(TaskTemplate):
    id = "ContactsPhoneNumberQuestion"
    app = "contacts"
    difficulty = "easy"
    kind = "question"
    template = "What is the phone number of {name}? Answer with the number only."
    placeholders: ClassVar[dict[str, str]] = {"Name": "name", "Phone": "phone"}
    milestones = (
        Milestone("Open the Contacts app", lambda d, p: in_app(d, "contacts")),
        Milestone("Open the contact <Name>", lambda d, p: contact_open(d, p["name"])),
    )

    def sample(self, rng: np.random.Generator) -> Params:
        people_ = people(rng, 9)
        return {"people": people_, "name": " ".join(people_[int(rng.integers(9))])}

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        for first, last in p["people"]:
            c = db(dev).add(Contact(first, last, phone_number(rng)))
            if c.name == p["name"]:
                p["phone"] = c.phone

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return answer is not None and digits(answer) == digits(p["phone"]) and bool(digits(answer))

    def oracle(self, o: Oracle) -> str:
        act = open_contact(o, o.p["name"])
        if act is not None:
            return act
        row = o.find(rid=":id/phone")
        shown = [c.text for c in row.children if c.role == "text"] if row is not None else []
        return o.answer(shown[0] if shown else "")


class ContactsEditPhone(TaskTemplate):
    id = "ContactsEditPhone"
    app = "contacts"
    difficulty = "medium"
    template = "Change the phone number of {name} to {phone}."
    placeholders: ClassVar[dict[str, str]] = {"Name": "name", "Phone": "phone"}
    milestones = (
        Milestone("Open the Contacts app", lambda d, p: in_app(d, "contacts")),
        Milestone("Open the contact <Name>", lambda d, p: contact_open(d, p["name"])),
        Milestone("Edit the contact <Name>", lambda d, p: editing_contact(d, p["name"])),
        Milestone('Enter the phone number "<Phone>"', lambda d, p: editing_contact(d, p["name"], p["phone"])),
        Milestone("Save the new number of <Name>", lambda d, p: has_contact(d, p["name"], p["phone"])),
    )

    def sample(self, rng: np.random.Generator) -> Params:
        people_ = people(rng, 14)
        return {"people": people_, "name": " ".join(people_[int(rng.integers(14))]), "phone": phone_number(rng)}

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        for first, last in p["people"]:
            db(dev).add(Contact(first, last, phone_number(rng)))

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return has_contact(dev, p["name"], p["phone"]) and len(db(dev).contacts) == len(p["people"])

    def oracle(self, o: Oracle) -> str:
        p = o.p
        if has_contact(o.dev, p["name"], p["phone"]):
            return o.finish()
        s = o.screen
        if isinstance(s, ContactEditor) and s.uid is not None and s.dialog is None:
            return o.fill("Phone", p["phone"]) or o.tap(o.find(desc="Save"))
        act = open_contact(o, p["name"])
        return act or o.tap(o.find(desc="Edit contact"))


class ContactsDeleteNonexistent(TaskTemplate):
    id = "ContactsDeleteNonexistent"
    app = "contacts"
    difficulty = "easy"
    kind = "infeasible"
    template = "Delete the contact {name} from my contacts."
    placeholders: ClassVar[dict[str, str]] = {"Name": "name"}
    milestones = (Milestone("Open the Contacts app", lambda d, p: in_app(d, "contacts")),)

    def sample(self, rng: np.random.Generator) -> Params:
        people_ = people(rng, 7)
        return {"people": people_[:6], "name": " ".join(people_[6])}

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        for first, last in p["people"]:
            db(dev).add(Contact(first, last, phone_number(rng)))

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return len(db(dev).contacts) == len(p["people"])  # nothing else was deleted

    def oracle(self, o: Oracle) -> str:
        if o.app != "contacts":
            return o.launch("Contacts")
        return o.infeasible()


TEMPLATES = (
    ContactsAddMultiple,
    ContactsDeleteContact,
    ContactsFavorite,
    ContactsPhoneNumberQuestion,
    ContactsEditPhone,
    ContactsDeleteNonexistent,
)
