"""Contacts (com.google.android.contacts): a list, a detail page, an editor, favourites.

Database: :class:`ContactsData` with a list of :class:`Contact` (the contacts provider's rows:
structured name, organisation, one phone number with its type and custom label as the ``data``
table keeps them, one email, starred). Screens: the alphabetic list (scrolls, long-press menu:
Delete / Add to favourites), the contact's detail page (star, edit, delete via the overflow
menu), and the editor ("Create contact" / "Edit contact": First name, Last name, Company, Phone
with its label spinner below it, Email; Save / navigate up discards).

The editor's text fields report their hint (``First name``, ``Last name``, ``Phone`` ...) as
``hint_text`` also once filled, as Android's accessibility does for an EditText. The phone label
spinner reads its label ("Mobile") and is described "<label> Phone" ("Mobile Phone"); tapping it
lists the labels Google Contacts offers (Mobile, Work, Home, Main, Work Fax, Home Fax, Pager,
Other, Custom: a name of your own).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gui_gym.android.sim.apps.base import App
from gui_gym.android.sim.dialogs import AlertDialog, InputDialog, MenuDialog
from gui_gym.android.sim.widgets import UI, Screen
from gui_gym.android.ui import Node

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

PKG = "com.google.android.contacts"

#: The phone labels the editor's spinner offers, in its order, with the ``Phone.TYPE_*`` value
#: the provider stores in ``data2`` (``TYPE_CUSTOM`` 0 keeps the label's text in ``data3``).
PHONE_TYPES: tuple[tuple[str, int], ...] = (
    ("Mobile", 2),
    ("Work", 3),
    ("Home", 1),
    ("Main", 12),
    ("Work Fax", 4),
    ("Home Fax", 5),
    ("Pager", 6),
    ("Other", 7),
    ("Custom", 0),
)
MOBILE = 2
CUSTOM = 0
_TYPE_LABELS = {t: label for label, t in PHONE_TYPES}


def phone_type_label(phone_type: int, custom: str = "") -> str:
    """What a phone type reads as ("Mobile"; a custom type reads its own label)."""
    if phone_type == CUSTOM:
        return custom or "Custom"
    return _TYPE_LABELS.get(phone_type, "Other")


@dataclass
class Contact:
    first: str
    last: str = ""
    phone: str = ""
    email: str = ""
    starred: bool = False
    uid: int = 0
    company: str = ""
    phone_type: int = MOBILE  # Phone.TYPE (data2)
    phone_label: str = ""  # Phone.LABEL (data3), for a custom type

    @property
    def name(self) -> str:
        return f"{self.first} {self.last}".strip()

    @property
    def phone_type_label(self) -> str:
        return phone_type_label(self.phone_type, self.phone_label)


class EditText(Node):
    """A text field that keeps reporting its hint once it holds text (``hint_text`` of the
    accessibility node, which :mod:`gui_gym.android.forest` reads from ``hint``)."""

    __slots__ = ("hint",)

    @classmethod
    def of(cls, node: Node, hint: str) -> EditText:
        out = cls.__new__(cls)
        for slot in Node.__slots__:
            setattr(out, slot, getattr(node, slot))
        out.hint = hint
        return out


@dataclass
class ContactsData:
    contacts: list[Contact] = field(default_factory=list)
    next_uid: int = 1

    def add(self, c: Contact) -> Contact:
        c.uid = self.next_uid
        self.next_uid += 1
        self.contacts.append(c)
        return c

    def by_uid(self, uid: int) -> Contact | None:
        return next((c for c in self.contacts if c.uid == uid), None)

    def find(self, name: str) -> list[Contact]:
        key = " ".join(name.lower().split())
        return [c for c in self.contacts if c.name.lower() == key]

    def sorted(self) -> list[Contact]:
        return sorted(self.contacts, key=lambda c: (c.name.lower(), c.uid))


def _db(dev: Device) -> ContactsData:
    return dev.data("contacts")


class ContactList(Screen):
    def build(self, ui: UI, dev: Device) -> None:
        db = _db(dev)
        ui.toolbar("Contacts", up=False, actions=[("Search contacts", "search", lambda: self._search(dev))])
        query = self.form.get("q", "")
        if self.focus == "q" or query:
            ui.field(self, "q", "Search contacts", rid=f"{PKG}:id/search_src_text", label="Search contacts")
        items = db.sorted()
        if query:
            items = [c for c in items if query.lower() in c.name.lower() or query in c.phone]
        ui.text(f"{len(items)} contacts", h=80, size=34, rid=f"{PKG}:id/count")

        def render(ui: UI, c: Contact) -> None:
            ui.row(
                c.name,
                on_tap=lambda: self._open(dev, c.uid),
                on_long_press=lambda: self._menu(dev, c.uid),
                rid=f"{PKG}:id/contact_row",
                icon="avatar",
                label=c.name,
            )

        ui.scroll_list(
            self, "list", items, render, empty="No contacts", list_id="contact_list", cls="android.widget.ListView"
        )
        ui.fab("Create contact", lambda: self._create(dev), rid=f"{PKG}:id/floating_action_button")

    def _search(self, dev: Device) -> str:
        self.focus = "q"
        dev.state.keyboard = True
        return 'Tap the "Search contacts" button in Contacts'

    def _open(self, dev: Device, uid: int) -> str:
        c = _db(dev).by_uid(uid)
        dev.push(ContactDetail(uid))
        return f'Open the contact "{c.name if c else uid}" in Contacts'

    def _create(self, dev: Device) -> str:
        dev.push(ContactEditor(None))
        return 'Tap the "Create contact" button in Contacts'

    def _menu(self, dev: Device, uid: int) -> str:
        c = _db(dev).by_uid(uid)
        self.menu_uid = uid
        dev.open_dialog(
            MenuDialog(
                "on_menu",
                [("Add to favourites" if not c.starred else "Remove from favourites", "star"), ("Delete", "delete")],
                title=c.name,
            )
        )
        return f'Long press the contact "{c.name}" in Contacts'

    def on_menu(self, dev: Device, value: str) -> str | None:
        c = _db(dev).by_uid(self.menu_uid)
        if c is None:
            return None
        if value == "star":
            c.starred = not c.starred
            return (
                f'{"Add" if c.starred else "Remove"} "{c.name}" {"to" if c.starred else "from"} favourites in Contacts'
            )
        dev.open_dialog(
            AlertDialog(
                "on_delete",
                "Delete this contact?",
                f"{c.name} will be deleted.",
                [("Cancel", None), ("Delete", "delete")],
            )
        )
        return f'Tap "Delete" for "{c.name}" in Contacts'

    def on_delete(self, dev: Device, value: str) -> str:
        c = _db(dev).by_uid(self.menu_uid)
        if c is not None:
            _db(dev).contacts.remove(c)
            dev.toast("Contact deleted")
        return f'Confirm deleting the contact "{c.name if c else ""}" in Contacts'

    def on_enter(self, dev: Device, key: str) -> str:
        self.focus = None
        return f'Search contacts for "{self.form.get("q", "")}"'

    def on_back(self, dev: Device) -> str | None:
        if self.form.get("q") or self.focus == "q":
            self.form["q"] = ""
            self.focus = None
            return "Press Back to close the search"
        return None


class ContactDetail(Screen):
    def __init__(self, uid: int) -> None:
        super().__init__()
        self.uid = uid

    def build(self, ui: UI, dev: Device) -> None:
        c = _db(dev).by_uid(self.uid)
        if c is None:  # deleted underneath us
            ui.toolbar("Contact")
            ui.text("This contact no longer exists.")
            return
        ui.toolbar(
            "",
            actions=[
                (
                    "Remove from favourites" if c.starred else "Add to favourites",
                    "star_on" if c.starred else "star",
                    lambda: self._star(dev),
                ),
                ("Edit contact", "edit", lambda: self._edit(dev)),
                ("More options", "more", lambda: self._more(dev)),
            ],
        )
        ui.spacer(40)
        ui.text(c.name, h=150, size=64, rid=f"{PKG}:id/large_title")
        ui.spacer(40)
        if c.phone:
            ui.row(c.phone, c.phone_type_label, rid=f"{PKG}:id/phone", icon="phone", label=f"Phone {c.phone}")
        if c.email:
            ui.row(c.email, "Email", rid=f"{PKG}:id/email", icon="email", label=f"Email {c.email}")
        if not c.phone and not c.email:
            ui.text("No phone number", size=38)

    def _star(self, dev: Device) -> str:
        c = _db(dev).by_uid(self.uid)
        c.starred = not c.starred
        return f'{"Add" if c.starred else "Remove"} "{c.name}" {"to" if c.starred else "from"} favourites in Contacts'

    def _edit(self, dev: Device) -> str:
        dev.push(ContactEditor(self.uid, _db(dev).by_uid(self.uid)))
        return 'Tap the "Edit contact" button in Contacts'

    def _more(self, dev: Device) -> str:
        dev.open_dialog(MenuDialog("on_more", [("Delete", "delete"), ("Share", "share")]))
        return 'Tap the "More options" button in Contacts'

    def on_more(self, dev: Device, value: str) -> str | None:
        c = _db(dev).by_uid(self.uid)
        if value == "share":
            dev.toast("Sharing is not available")
            return 'Tap "Share" in Contacts'
        dev.open_dialog(
            AlertDialog(
                "on_delete",
                "Delete this contact?",
                f"{c.name} will be deleted.",
                [("Cancel", None), ("Delete", "delete")],
            )
        )
        return f'Tap "Delete" for "{c.name}" in Contacts'

    def on_delete(self, dev: Device, value: str) -> str:
        c = _db(dev).by_uid(self.uid)
        _db(dev).contacts.remove(c)
        dev.toast("Contact deleted")
        dev.pop()
        return f'Confirm deleting the contact "{c.name}" in Contacts'


class ContactEditor(Screen):
    FIELDS = (
        ("first", "First name"),
        ("last", "Last name"),
        ("company", "Company"),
        ("phone", "Phone"),
        ("email", "Email"),
    )

    def __init__(self, uid: int | None, contact: Contact | None = None) -> None:
        super().__init__()
        self.uid = uid
        self.phone_type, self.phone_label = MOBILE, ""
        if contact is not None:
            self.form = {
                "first": contact.first,
                "last": contact.last,
                "company": contact.company,
                "phone": contact.phone,
                "email": contact.email,
            }
            self.phone_type, self.phone_label = contact.phone_type, contact.phone_label
        self.focus = "first" if uid is None else None

    @property
    def label(self) -> str:
        """The phone label the spinner shows."""
        return phone_type_label(self.phone_type, self.phone_label)

    def build(self, ui: UI, dev: Device) -> None:
        ui.toolbar(
            "Create contact" if self.uid is None else "Edit contact",
            up=lambda: self._cancel(dev),
            actions=[("Save", "save", lambda: self._save(dev))],
        )
        ui.spacer(30)
        for key, hint in self.FIELDS:
            rid = f"{PKG}:id/{key}_name" if key in ("first", "last") else f"{PKG}:id/{key}"
            field = ui.field(self, key, hint, rid=rid)
            ui.nodes[ui.nodes.index(field)] = EditText.of(field, hint)
            if key == "phone":
                self._spinner(ui, dev)

    def _spinner(self, ui: UI, dev: Device) -> None:
        """The phone's label spinner, right under the phone field."""
        y = ui.y
        label = self.label
        ui.add(
            Node(
                "android.widget.Spinner",
                (ui.x0, y, ui.x0 + 420, y + 110),
                label,
                desc=f"{label} Phone",
                rid=f"{PKG}:id/spinner",
                on_tap=lambda: self._pick_type(dev),
                focusable=True,
                role="textbutton",
                label="Phone label",
            )
        )
        ui.y = y + 140

    def _pick_type(self, dev: Device) -> str:
        dev.open_dialog(MenuDialog("on_type", list(PHONE_TYPES), selected=self.phone_type))
        return f'Tap the phone label "{self.label}" in Contacts'

    def on_type(self, dev: Device, value: int) -> str:
        if value == CUSTOM:
            dev.open_dialog(InputDialog("on_custom", "Custom label", [("label", "Custom label")]))
            return 'Choose "Custom" for the phone label in Contacts'
        self.phone_type, self.phone_label = value, ""
        return f'Choose "{self.label}" for the phone label in Contacts'

    def on_custom(self, dev: Device, form: dict[str, str]) -> str:
        text = " ".join(form.get("label", "").split())
        if text:
            self.phone_type, self.phone_label = CUSTOM, text
        return f'Set the phone label to "{self.label}" in Contacts'

    def _cancel(self, dev: Device) -> str:
        dev.pop()
        return "Discard the contact edits in Contacts"

    def _save(self, dev: Device) -> str:
        first, last = self.form.get("first", "").strip(), self.form.get("last", "").strip()
        if not first and not last:
            dev.toast("Enter a name to save the contact")
            return 'Tap the "Save" button in Contacts (a name is required)'
        db = _db(dev)
        values: dict[str, object] = {k: self.form.get(k, "").strip() for k, _ in self.FIELDS}
        values.update(phone_type=self.phone_type, phone_label=self.phone_label)
        if self.uid is None:
            c = db.add(Contact(**values))  # type: ignore[arg-type]
        else:
            c = db.by_uid(self.uid)
            for k, v in values.items():
                setattr(c, k, v)
        dev.pop()
        if self.uid is None:
            dev.push(ContactDetail(c.uid))
        dev.toast("Contact saved")
        return f'Tap the "Save" button to save the contact "{c.name}" in Contacts'


class ContactsApp(App):
    name = "contacts"
    label = "Contacts"
    package = PKG
    activity = "com.android.contacts.activities.PeopleActivity"
    aliases = ("contacts",)
    color = (26, 115, 232)
    icon = "contacts"

    def initial_data(self) -> ContactsData:
        return ContactsData()

    def root(self, dev: Device) -> Screen:
        return ContactList()
