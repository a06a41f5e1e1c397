"""Word lists task parameters are drawn from (all embedded; nothing is downloaded)."""

from __future__ import annotations

import numpy as np

FIRST_NAMES = (
    "Sofia",
    "Liam",
    "Amara",
    "Noah",
    "Yuki",
    "Mateo",
    "Priya",
    "Oliver",
    "Chloe",
    "Diego",
    "Hana",
    "Lucas",
    "Fatima",
    "Ethan",
    "Ines",
    "Kofi",
    "Maya",
    "Arjun",
    "Elena",
    "Tomas",
    "Zara",
    "Jonas",
    "Leila",
    "Marco",
)
LAST_NAMES = (
    "Lopez",
    "Chen",
    "Okafor",
    "Schmidt",
    "Tanaka",
    "Rossi",
    "Patel",
    "Novak",
    "Dubois",
    "Silva",
    "Kim",
    "Haddad",
    "Jensen",
    "Moreau",
    "Costa",
    "Mensah",
    "Ivanova",
    "Garcia",
    "Nguyen",
    "Larsen",
    "Fischer",
    "Romero",
)
WORDS = (
    "budget",
    "garden",
    "meeting",
    "travel",
    "recipe",
    "project",
    "reading",
    "workout",
    "groceries",
    "ideas",
    "journal",
    "planning",
    "review",
    "holiday",
    "lecture",
    "invoice",
    "birthday",
    "music",
    "repair",
    "launch",
)
SENTENCES = (
    "Call the plumber before Friday.",
    "Buy oat milk, eggs and basil.",
    "Draft the quarterly report outline.",
    "Book tickets for the museum.",
    "Water the plants on the balcony.",
    "Send the slides to the team.",
    "Renew the library books.",
    "Plan the route for the hike.",
    "Check the car tyre pressure.",
    "Pick up the dry cleaning.",
)
EVENT_TITLES = (
    "Team sync",
    "Dentist appointment",
    "Yoga class",
    "Project review",
    "Lunch with Sam",
    "Budget meeting",
    "Guitar lesson",
    "Book club",
    "Parent call",
    "Design workshop",
    "Code review",
    "Coffee with Ana",
)
EXPENSE_NAMES = (
    "Coffee",
    "Groceries",
    "Taxi",
    "Cinema",
    "Books",
    "Lunch",
    "Train ticket",
    "Gym",
    "Pharmacy",
    "Dinner",
    "Phone bill",
    "Haircut",
)
EXPENSE_CATEGORIES = ("Food", "Transport", "Entertainment", "Health", "Bills", "Shopping", "Other")
TASK_TITLES = (
    "Pay rent",
    "Call mom",
    "Fix the bike",
    "Prepare slides",
    "Clean the kitchen",
    "Order printer ink",
    "Reply to Jonas",
    "Back up photos",
    "Schedule checkup",
    "Return the parcel",
    "Water plants",
    "Update CV",
)


def pick(rng: np.random.Generator, seq, k: int | None = None):
    """One item (``k=None``) or ``k`` distinct items of ``seq``."""
    if k is None:
        return seq[int(rng.integers(len(seq)))]
    idx = rng.choice(len(seq), size=k, replace=False)
    return [seq[int(i)] for i in idx]


def phone_number(rng: np.random.Generator) -> str:
    """A US-style number as contacts show it, e.g. ``+1 415-555-0134``."""
    return f"+1 {int(rng.integers(200, 990))}-555-{int(rng.integers(100, 9999)):04d}"


def person(rng: np.random.Generator) -> tuple[str, str]:
    return pick(rng, FIRST_NAMES), pick(rng, LAST_NAMES)


def people(rng: np.random.Generator, k: int) -> list[tuple[str, str]]:
    """``k`` people with distinct full names."""
    firsts = pick(rng, FIRST_NAMES, k)
    lasts = pick(rng, LAST_NAMES, k)
    return list(zip(firsts, lasts, strict=False))
