"""Simple SMS Messenger's data: conversations of messages, keyed by phone number.

Each :class:`Message` is one row of the telephony provider's ``sms`` table and each
:class:`Conversation` one of its ``threads`` (see :mod:`~gui_gym.android.sim.apps.messages.storage`).
"""

from __future__ import annotations

import datetime as dt
import functools
from dataclasses import dataclass, field

PKG = "com.simplemobiletools.smsmessenger"


@functools.lru_cache(maxsize=4096)  # read for every conversation on every lookup and screen
def number_key(number: str) -> str:
    """The digits of a phone number without a leading US country code: the conversation key."""
    d = "".join(c for c in number if c.isdigit())
    return d[1:] if len(d) == 11 and d.startswith("1") else d


def is_number(text: str) -> bool:
    """Whether ``text`` reads as a phone number (digits and ``+-(). `` only, 3+ digits)."""
    t = text.strip()
    return bool(t) and all(c in "0123456789+-(). " for c in t) and sum(c.isdigit() for c in t) >= 3


@dataclass
class Message:
    text: str
    incoming: bool
    time: dt.datetime
    read: bool = True  # a received text stays unread until its thread is shown
    id: int = 0  # its ``_id`` in the sms table (0: numbered when the table is written)


@dataclass
class Conversation:
    number: str
    messages: list[Message] = field(default_factory=list)
    thread_id: int = 0  # its ``_id`` in the threads table (0: numbered when the table is written)

    @property
    def key(self) -> str:
        return number_key(self.number)

    @property
    def last_time(self) -> dt.datetime:
        return self.messages[-1].time if self.messages else dt.datetime.min


@dataclass
class MessagesData:
    conversations: list[Conversation] = field(default_factory=list)
    log: list[tuple[str, str]] = field(default_factory=list)  # (number, text) sent from the app
    next_id: int = 1  # the sms table's next ``_id``
    next_thread: int = 1  # the threads table's next ``_id``

    def get(self, number: str) -> Conversation | None:
        key = number_key(number)
        return next((c for c in self.conversations if c.key == key), None)

    def add(self, number: str, text: str, incoming: bool, time: dt.datetime, read: bool = True) -> Conversation:
        """Append a message to the conversation with ``number`` (created if needed), numbered
        as the provider numbers a new row."""
        conv = self.get(number)
        if conv is None:
            conv = Conversation(number, thread_id=self.next_thread)
            self.next_thread += 1
            self.conversations.append(conv)
        conv.messages.append(Message(text, incoming, time, read=read, id=self.next_id))
        self.next_id += 1
        conv.messages.sort(key=lambda m: m.time)
        return conv

    def unread(self, number: str) -> list[Message]:
        """Received texts from ``number`` not yet shown."""
        conv = self.get(number)
        return [m for m in conv.messages if m.incoming and not m.read] if conv else []

    def mark_read(self, number: str) -> None:
        for m in self.unread(number):
            m.read = True

    def remove(self, number: str) -> None:
        key = number_key(number)
        self.conversations[:] = [c for c in self.conversations if c.key != key]

    def sorted(self) -> list[Conversation]:
        """Conversations with messages, the most recent first."""
        return sorted((c for c in self.conversations if c.messages), key=lambda c: c.last_time, reverse=True)

    def sent_to(self, number: str) -> list[str]:
        """Texts sent from the app to ``number``."""
        key = number_key(number)
        return [t for n, t in self.log if number_key(n) == key]
