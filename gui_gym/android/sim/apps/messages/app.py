"""Messages (com.simplemobiletools.smsmessenger, like Simple SMS Messenger 5.19.3).

Database: :class:`MessagesData`, conversations keyed by phone number (its digits, see
:func:`number_key`), each a list of :class:`Message` (text, incoming or outgoing, time, read);
every message is one row of the telephony provider's ``sms`` table (its ``_id``, the
conversation's ``thread_id``, the conversation's number as ``address``: see
:mod:`~gui_gym.android.sim.apps.messages.storage`). ``log`` records every message sent from the
app. Conversations show the name of the Contacts entry with the same number. Screens: the
conversation list (newest first, scrolls; long press: Delete with confirmation; FAB: new
conversation), a thread (the messages, the message field "Type a message…" and the send button
``thread_send_message`` reading "SMS"; the toolbar deletes the conversation; showing a thread
marks its messages read), and "New conversation" (a recipient field "Add Contact or Number…"
taking a number or a contact name; matching contacts are listed and tappable; the check mark,
shown once more than two characters are typed, or Enter opens the thread).

Outside the screens: :func:`receive` is a text arriving (the emulator's ``sms send``), unread;
:func:`compose` is the ``SENDTO`` intent (``sms:<number>`` with ``sms_body``): the thread with
the number, its message field holding the body, in front.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from gui_gym.android.actions import MAX_QUOTE, clip_text
from gui_gym.android.sim.apps.base import App
from gui_gym.android.sim.apps.contacts.app import Contact, ContactsData
from gui_gym.android.sim.apps.messages.data import PKG, Conversation, Message, MessagesData, is_number, number_key
from gui_gym.android.sim.apps.messages.storage import DATABASE
from gui_gym.android.sim.dialogs import AlertDialog, MenuDialog
from gui_gym.android.sim.widgets import PAD, UI, Inapplicable, Screen
from gui_gym.android.ui import SCREEN_W, Node

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

__all__ = [
    "PKG", "Conversation", "Message", "MessagesApp", "MessagesData", "compose", "is_number", "number_key", "receive",
]  # fmt: skip

BUBBLE_H = 190  # one message in a thread
COMPOSER_H = 200  # the message field and Send button at the bottom of a thread
CONVERSATION_IDS = ("conversation_image", "conversation_address", "conversation_body_short")
CONTACT_IDS = ("item_contact_image", "item_contact_name", "item_contact_number")
SNIPPET = 40  # characters of the last message shown in the conversation list


def _db(dev: Device) -> MessagesData:
    return dev.data("messages")


def _contacts(dev: Device) -> ContactsData:
    return dev.data("contacts")


def contact_names(dev: Device) -> dict[str, str]:
    """Number key -> contact name, for every contact with a phone number."""
    return {number_key(c.phone): c.name for c in _contacts(dev).contacts if c.phone}


def display_name(dev: Device, number: str) -> str:
    """The contact name for ``number``, else the number itself."""
    return contact_names(dev).get(number_key(number), number)


def _stamp(now: dt.datetime, t: dt.datetime, short: bool = False) -> str:
    """``9:30`` today, else ``Oct 14, 18:05`` (``Oct 14`` when ``short``)."""
    if t.date() == now.date():
        return t.strftime("%-H:%M")
    return t.strftime("%b %-d" if short else "%b %-d, %-H:%M")


def _narrow(node: Node, right: int) -> None:
    """Shrink a full-width field to end at ``right``."""
    l, t, _, b = node.bounds
    node.bounds = (l, t, right, b)


def _confirm_delete(name: str) -> AlertDialog:
    return AlertDialog(
        "on_delete",
        "Delete this conversation?",
        f"All messages with {name} will be deleted.",
        [("Cancel", None), ("Delete", "delete")],
    )


class ConversationList(Screen):
    def __init__(self) -> None:
        super().__init__()
        self.menu_number = ""

    def build(self, ui: UI, dev: Device) -> None:
        ui.toolbar("Messages", up=False)
        names = contact_names(dev)
        now = dev.state.now

        def render(ui: UI, c: Conversation) -> None:
            name = names.get(c.key, c.number)
            last = c.messages[-1].text
            snippet = last if len(last) <= SNIPPET else last[: SNIPPET - 1].rstrip() + "…"
            row = ui.row(
                name,
                snippet,
                on_tap=lambda: self._open(dev, c.number),
                on_long_press=lambda: self._menu(dev, c.number),
                rid=f"{PKG}:id/conversation_holder",
                icon="avatar",
                label=name,
            )
            _, t, _, _ = row.bounds
            for child, rid in zip(row.children, CONVERSATION_IDS, strict=False):
                child.bounds = (*child.bounds[:2], min(child.bounds[2], 820), child.bounds[3])
                child.rid = f"{PKG}:id/{rid}"  # item_conversation.xml
            stamp = _stamp(now, c.last_time, short=True)
            row.children.append(
                Node(
                    "android.widget.TextView",
                    (840, t + 20, SCREEN_W - PAD, t + 88),
                    stamp,
                    package=PKG,
                    rid=f"{PKG}:id/conversation_date",
                    role="subtext",
                )
            )

        ui.scroll_list(
            self,
            "list",
            _db(dev).sorted(),
            render,
            empty="No stored conversations have been found",
            list_id="conversations_list",
        )
        ui.fab("Start a conversation", lambda: self._new(dev), rid=f"{PKG}:id/conversations_fab")

    def _open(self, dev: Device, number: str) -> str:
        dev.push(ThreadScreen(number))
        return f"Open the conversation with {display_name(dev, number)} in Simple SMS Messenger"

    def _new(self, dev: Device) -> str:
        dev.push(NewConversation())
        return 'Tap the "Start a conversation" button in Simple SMS Messenger'

    def _menu(self, dev: Device, number: str) -> str:
        self.menu_number = number
        name = display_name(dev, number)
        dev.open_dialog(MenuDialog("on_menu", [("Delete", "delete"), ("Copy number", "copy")], title=name))
        return f"Long press the conversation with {name} in Simple SMS Messenger"

    def on_menu(self, dev: Device, value: str) -> str | None:
        name = display_name(dev, self.menu_number)
        if value == "copy":
            dev.toast("Copied to clipboard")
            return f"Copy the number of {name} in Simple SMS Messenger"
        dev.open_dialog(_confirm_delete(name))
        return f'Tap "Delete" for the conversation with {name} in Simple SMS Messenger'

    def on_delete(self, dev: Device, value: str) -> str:
        name = display_name(dev, self.menu_number)
        _db(dev).remove(self.menu_number)
        dev.toast("Conversation deleted")
        return f"Confirm deleting the conversation with {name} in Simple SMS Messenger"


class ThreadScreen(Screen):
    """One conversation; ``focus=True`` opens it with the message field focused."""

    def __init__(self, number: str, focus: bool = False) -> None:
        super().__init__()
        self.number = number
        self.scroll["thread"] = 1 << 30  # start at the newest message
        self.focus = "msg" if focus else None

    def build(self, ui: UI, dev: Device) -> None:
        db = _db(dev)
        conv = db.get(self.number)
        db.mark_read(self.number)  # on screen: read (the app marks a thread read when it shows it)
        name = display_name(dev, self.number)
        actions = [("Delete", "delete", lambda: self._delete(dev))] if conv is not None else []
        ui.toolbar(name, up=lambda: self._up(dev), actions=actions)
        now = dev.state.now

        def render(ui: UI, m: Message) -> None:
            _, t, _, b = ui.rect(BUBBLE_H, x0=0, x1=SCREEN_W)
            x0, x1 = (PAD, 820) if m.incoming else (260, SCREEN_W - PAD)
            kind = "received" if m.incoming else "sent"
            ui.add(
                Node(
                    "android.widget.LinearLayout",
                    (x0, t + 15, x1, b - 15),
                    rid=f"{PKG}:id/{kind}_message_holder",
                    role="bubble",
                    style=kind,
                    children=[
                        Node(
                            "android.widget.TextView",
                            (x0 + 30, t + 35, x1 - 30, b - 75),
                            m.text,
                            package=PKG,
                            rid=f"{PKG}:id/thread_message_body",
                            role="text",
                        ),
                        Node(
                            "android.widget.TextView",
                            (x0 + 30, b - 75, x1 - 30, b - 25),
                            _stamp(now, m.time),
                            package=PKG,
                            rid=f"{PKG}:id/thread_date_time",
                            role="subtext",
                        ),
                    ],
                )
            )

        ui.scroll_list(
            self,
            "thread",
            conv.messages if conv else [],
            render,
            item_h=BUBBLE_H,
            bottom=ui.bottom - COMPOSER_H,
            empty="No messages yet",
            list_id="thread_messages_list",
        )
        y = ui.bottom - COMPOSER_H + 25
        ui.y = y
        field_ = ui.field(self, "msg", "Type a message…", rid=f"{PKG}:id/thread_type_message", label="Type a message")
        _narrow(field_, 850)
        # The app's MyButton: a send icon above the text "SMS", described "OK" (its layout's
        # contentDescription), dimmed and not clickable while the field is empty.
        typed = bool(self.form.get("msg", "").strip())
        ui.add(
            Node(
                "android.widget.Button",
                (880, y + 15, SCREEN_W - 40, y + 135),
                "SMS",
                desc="OK",
                rid=f"{PKG}:id/thread_send_message",
                on_tap=(lambda: self._send(dev)) if typed else None,
                enabled=typed,
                role="icon",
                style="send",
            )
        )

    def _up(self, dev: Device) -> str:
        dev.pop()
        return 'Tap the "Navigate up" button in Simple SMS Messenger'

    def _send(self, dev: Device) -> str:
        text = self.form.get("msg", "").strip()
        if not text:
            raise Inapplicable("the message is empty: type a message before tapping Send")
        db = _db(dev)
        db.add(self.number, text, incoming=False, time=dev.state.now)
        db.log.append((self.number, text))
        dev.state.events.append("sms_sent")
        self.form["msg"] = ""
        self.scroll["thread"] = 1 << 30
        return f'Send the message "{text}" to {display_name(dev, self.number)} in Simple SMS Messenger'

    def _delete(self, dev: Device) -> str:
        name = display_name(dev, self.number)
        dev.open_dialog(_confirm_delete(name))
        return f'Tap the "Delete" button for the conversation with {name} in Simple SMS Messenger'

    def on_delete(self, dev: Device, value: str) -> str:
        name = display_name(dev, self.number)
        _db(dev).remove(self.number)
        dev.pop()
        dev.toast("Conversation deleted")
        return f"Confirm deleting the conversation with {name} in Simple SMS Messenger"


class NewConversation(Screen):
    """Pick a recipient: type a number (then confirm) or tap one of the matching contacts."""

    def __init__(self) -> None:
        super().__init__()
        self.focus = "to"

    def build(self, ui: UI, dev: Device) -> None:
        ui.toolbar("New conversation", up=lambda: self._up(dev))
        y = ui.y + 20
        ui.y = y
        _narrow(
            ui.field(
                self,
                "to",
                "Add Contact or Number…",
                rid=f"{PKG}:id/new_conversation_address",
                label="Add contact or number",
            ),
            850,
        )
        if len(self.form.get("to", "")) > 2:  # the app shows the check mark past two characters
            ui.add(
                Node(
                    "android.widget.ImageView",
                    (880, y + 15, SCREEN_W - 40, y + 135),
                    desc="Confirm",
                    rid=f"{PKG}:id/new_conversation_confirm",
                    on_tap=lambda: self._confirm(dev),
                    role="icon",
                    style="check",
                )
            )

        def render(ui: UI, c: Contact) -> None:
            row = ui.row(
                c.name,
                c.phone,
                on_tap=lambda: self._pick(dev, c.uid),
                rid=f"{PKG}:id/item_contact_holder",
                icon="avatar",
                label=c.name,
            )
            for child, rid in zip(row.children, CONTACT_IDS, strict=False):
                child.rid = f"{PKG}:id/{rid}"  # the commons' item_contact_with_number.xml

        ui.scroll_list(self, "list", self._matches(dev), render, empty="No contacts found", list_id="contacts_list")

    def _matches(self, dev: Device) -> list[Contact]:
        q = " ".join(self.form.get("to", "").lower().split())
        qd = "".join(c for c in q if c.isdigit())
        out = [c for c in _contacts(dev).sorted() if c.phone]
        if q:
            out = [c for c in out if q in c.name.lower() or (qd and qd in "".join(filter(str.isdigit, c.phone)))]
        return out

    def _up(self, dev: Device) -> str:
        dev.pop()
        return 'Tap the "Navigate up" button in Simple SMS Messenger'

    def _open(self, dev: Device, number: str) -> None:
        dev.pop()
        dev.push(ThreadScreen(number, focus=True))

    def _pick(self, dev: Device, uid: int) -> str:
        c = _contacts(dev).by_uid(uid)
        if c is None:
            raise Inapplicable("this contact no longer exists")
        self._open(dev, c.phone)
        return f'Select the contact "{c.name}" ({c.phone}) as the recipient in Simple SMS Messenger'

    def _confirm(self, dev: Device) -> str:
        q = self.form.get("to", "").strip()
        if not q:
            raise Inapplicable("enter a phone number or a contact name first")
        if is_number(q):
            self._open(dev, q)
            return f"Start a conversation with {display_name(dev, q)} in Simple SMS Messenger"
        key = " ".join(q.lower().split())
        exact = [c for c in _contacts(dev).contacts if c.phone and c.name.lower() == key]
        if len(exact) != 1:
            shown = clip_text(q, MAX_QUOTE)
            raise Inapplicable(f'"{shown}" is neither a phone number nor the name of one contact with a number')
        self._open(dev, exact[0].phone)
        return f"Start a conversation with {exact[0].name} in Simple SMS Messenger"

    def on_enter(self, dev: Device, key: str) -> str:
        return self._confirm(dev)


def receive(dev: Device, number: str, text: str) -> Conversation:
    """A text from ``number`` arrives now (the emulator's ``sms send``): unread until shown."""
    conv = _db(dev).add(number, text, incoming=True, time=dev.state.now, read=False)
    dev.invalidate()
    return conv


def compose(dev: Device, number: str, body: str = "") -> ThreadScreen:
    """The ``SENDTO`` intent (``sms:<number>``, extra ``sms_body``): the app comes to the front
    on the thread with ``number``, its message field holding ``body`` (nothing is sent; a thread
    without messages focuses the field, the keyboard up). The thread joins the app's task when
    the app is running, else it is the task's only screen (``NewConversationActivity`` hands the
    intent on to ``ThreadActivity`` and finishes)."""
    running = bool(dev.state.stacks.get("messages"))
    dev.launch("messages")
    conv = _db(dev).get(number)
    thread = ThreadScreen(number, focus=conv is None or not conv.messages)  # empty: the keyboard shows
    thread.form["msg"] = body
    if running:
        dev.push(thread)
    else:
        dev.state.stacks["messages"] = [thread]
        dev.state.keyboard = thread.focus is not None
    dev.invalidate()
    return thread


class MessagesApp(App):
    name = "messages"
    label = "Simple SMS Messenger"
    launcher_label = "SMS Messenger"
    package = PKG
    activity = "com.simplemobiletools.smsmessenger.activities.MainActivity"
    aliases = ("simple sms messenger", "simple sms")
    color = (30, 136, 229)
    icon = "messages"
    databases = (DATABASE,)

    def initial_data(self) -> MessagesData:
        return MessagesData()

    def root(self, dev: Device) -> Screen:
        return ConversationList()
