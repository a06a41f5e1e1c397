"""AndroidWorld's Contacts tasks (``task_evals/single/contacts.py``).

- ContactsAddContact (``common_validators/contacts_validators.py:AddContact``): the contacts
  provider is cleared (``pm clear com.android.providers.contacts``); success is a row of
  ``content query --uri content://contacts/phones/ --projection display_name:number`` whose
  ``display_name`` is the name exactly and whose number has the same digits.
- ContactsNewContactDraft: the new-contact form filled in, not saved, judged on the screen's
  accessibility elements (all windows, invisible ones too): a field hinted "First name" whose
  text fuzzy-matches the first name, one hinted "Last name" likewise, one hinted "Phone" with
  the number's digits, and the phone label: an element reading it and described "<label> Phone",
  or reading it just below the phone field.
"""

from __future__ import annotations

import random
import re
from typing import TYPE_CHECKING, ClassVar

from gui_gym.android.forest import UIElement, window_elements
from gui_gym.android.sim.apps.contacts.app import ContactEditor, ContactList, ContactsData
from gui_gym.android.sim.apps.contacts.tasks import add_contact_step, editor_holds
from gui_gym.android.sim.dialogs import MenuDialog
from gui_gym.android.sim.tasks.androidworld import AndroidWorldTask, fuzzy_match, random_name, random_number
from gui_gym.android.sim.tasks.base import Milestone, Oracle, Params, back_stack, in_app

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device


def db(dev: Device) -> ContactsData:
    return dev.data("contacts")


def digits(s: str) -> str:
    """``contacts_utils.clean_phone_number``: the digits alone."""
    return re.sub(r"\D", "", s)


def listed(dev: Device) -> list[tuple[str, str]]:
    """``contacts_utils.list_contacts``: (display_name, digits of number) of each phone row."""
    return [(c.name, digits(c.phone)) for c in db(dev).contacts if c.phone]


def new_contact_form(dev: Device) -> ContactEditor | None:
    """The new-contact editor on the Contacts back stack, if any."""
    return next((s for s in back_stack(dev, "contacts") if isinstance(s, ContactEditor) and s.uid is None), None)


class ContactsAddContact(AndroidWorldTask):
    id = "ContactsAddContact"
    app = "contacts"
    apps = ("contacts",)
    difficulty = "easy"
    template = "Create a new contact for {name}. Their number is {number}."
    optimal_steps = 5
    tags = ("data_entry", "parameterized")
    placeholders: ClassVar[dict[str, str]] = {"Name": "name", "Number": "number", "First": "first", "Last": "last"}
    milestones = (
        Milestone("Open the Contacts app", lambda d, p: in_app(d, "contacts")),
        Milestone("Open the form to create a new contact", lambda d, p: new_contact_form(d) is not None),
        Milestone('Enter the first name "<First>"', lambda d, p: editor_holds(d, "first", p["first"])),
        Milestone('Enter the last name "<Last>"', lambda d, p: editor_holds(d, "last", p["last"])),
        Milestone('Enter the phone number "<Number>"', lambda d, p: editor_holds(d, "phone", p["number"])),
        Milestone("Save the new contact <Name>", lambda d, p: ContactsAddContact.saved(d, p)),
    )

    def generate(self, r: random.Random) -> Params:
        name = random_name(r)
        number = random_number(r)
        first, _, last = name.partition(" ")  # given names are one word; family names may be two
        return {"name": name, "number": number, "first": first, "last": last}

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        dev.state.data["contacts"] = ContactsData()  # clear_contacts: pm clear of the provider
        dev.state.stacks.pop("contacts", None)
        dev.invalidate()

    @staticmethod
    def saved(dev: Device, p: Params) -> bool:
        return (p["name"], digits(p["number"])) in listed(dev)

    def check(self, dev: Device, params: Params, answer: str | None, status: str | None) -> bool:
        return self.saved(dev, params)

    def oracle(self, o: Oracle) -> str:
        p = o.p
        if self.saved(o.dev, p):
            return o.finish()
        return add_contact_step(o, p["first"], p["last"], p["number"])


# -- ContactsNewContactDraft's screen rule (``contacts.py``: _contact_info_is_entered)


def _below(phone: UIElement, other: UIElement) -> bool:
    """``_vertically_adjacent``: ``other`` starts within one field height under ``phone``."""
    a, b = phone.bbox_pixels, other.bbox_pixels
    if not a or not b:
        return False
    return a.y_max <= b.y_min <= a.y_max + a.height


def contact_info_entered(elements: list[UIElement], first: str, last: str, phone: str, label: str) -> bool:
    """The elements show a first name, a last name and a phone number in fields hinted so, and the
    phone label (described "<label> Phone", or just below the phone field)."""
    first_el = last_el = phone_el = label_el = None
    for e in elements:
        if e.text and fuzzy_match(e.text, first) and e.hint_text == "First name":
            first_el = e
        elif e.text and fuzzy_match(e.text, last) and e.hint_text == "Last name":
            last_el = e
        elif e.text and digits(e.text) == digits(phone) and e.hint_text == "Phone":
            phone_el = e
        elif e.text == label and e.content_description == f"{label} Phone":
            label_el = e
    if phone_el is not None and label_el is None:
        label_el = next((e for e in elements if e.text == label and _below(phone_el, e)), None)
    return None not in (first_el, last_el, phone_el, label_el)


def all_elements(dev: Device) -> list[UIElement]:
    """``forest_to_ui_elements(state.forest, exclude_invisible_elements=False)``."""
    return [e.element for e in window_elements(dev.windows(), exclude_invisible=False)]


def draft_holds(dev: Device, key: str, p: Params) -> bool:
    """The new-contact form holds the asked ``key`` (compared as the check compares it)."""
    form = new_contact_form(dev)
    if form is None:
        return False
    if key == "phone_label":
        return form.label == p["phone_label"]
    value = form.form.get(key, "")
    if key == "phone":
        return bool(value) and digits(value) == digits(p["phone"])
    return bool(value) and fuzzy_match(value, p[key])


class ContactsNewContactDraft(AndroidWorldTask):
    id = "ContactsNewContactDraft"
    app = "contacts"
    apps = ("contacts",)
    difficulty = "easy"
    template = (
        "Go to the new contact screen and enter the following details: First Name: {first}, Last Name: {last},"
        " Phone: {phone}, Phone Label: {phone_label}. Do NOT hit save."
    )
    optimal_steps = 6
    tags = ("screen_reading", "data_entry")
    placeholders: ClassVar[dict[str, str]] = {
        "First": "first",
        "Last": "last",
        "Phone": "phone",
        "Label": "phone_label",
    }
    milestones = (
        Milestone("Open the Contacts app", lambda d, p: in_app(d, "contacts")),
        Milestone("Open the new contact screen", lambda d, p: new_contact_form(d) is not None),
        Milestone('Enter the first name "<First>"', lambda d, p: draft_holds(d, "first", p)),
        Milestone('Enter the last name "<Last>"', lambda d, p: draft_holds(d, "last", p)),
        Milestone('Enter the phone number "<Phone>"', lambda d, p: draft_holds(d, "phone", p)),
        Milestone('Set the phone label to "<Label>"', lambda d, p: draft_holds(d, "phone_label", p)),
    )

    FIRST_NAMES = ("Alice", "Bob", "Charlie", "David", "Eva", "Frank", "Grace", "Hannah", "Ivan", "Jack")
    LAST_NAMES = ("Johnson", "Smith", "Brown", "Taylor", "Adams", "Wilson", "Lee", "White", "Harris", "Clark")
    PHONE_LABELS = ("Home", "Work")

    def generate(self, r: random.Random) -> Params:
        first = r.choice(self.FIRST_NAMES)
        last = r.choice(self.LAST_NAMES)
        phone = f"{r.randint(100, 999)}-{r.randint(100, 999)}-{r.randint(1000, 9999)}"
        phone_label = r.choice(self.PHONE_LABELS)
        return {"first": first, "last": last, "phone": phone, "phone_label": phone_label}

    def check(self, dev: Device, params: Params, answer: str | None, status: str | None) -> bool:
        return contact_info_entered(
            all_elements(dev), params["first"], params["last"], params["phone"], params["phone_label"]
        )

    def oracle(self, o: Oracle) -> str:
        p, s = o.p, o.screen
        if o.app != "contacts":
            return o.launch("Contacts")
        if isinstance(s, ContactList) and s.dialog is None:
            return o.tap(o.find(desc="Create contact"))
        if not isinstance(s, ContactEditor) or s.uid is not None:
            return o.back()
        if isinstance(s.dialog, MenuDialog):
            return o.tap(o.find(p["phone_label"], role="menuitem"))
        if s.dialog is not None:
            return o.back()
        act = o.fill_form([("First name", p["first"]), ("Last name", p["last"]), ("Phone", p["phone"])])
        if act is not None:
            return act
        if s.label != p["phone_label"]:
            return o.tap(o.find(label="Phone label"))
        return o.finish()


TEMPLATES = (ContactsAddContact, ContactsNewContactDraft)
