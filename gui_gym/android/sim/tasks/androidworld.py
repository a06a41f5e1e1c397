"""AndroidWorld's suite on the simulated phone: the task base class and the draws tasks share.

AndroidWorld (google-research/android_world) makes a task instance in a fixed order, which
:class:`AndroidWorldTask` replays on a private :class:`random.Random`:

1. ``random.seed(seed)``, then the task class's ``generate_random_params()``, then
   ``params["seed"] = seed`` (``suite_utils._instantiate_task``): here :meth:`~AndroidWorldTask.generate`.
2. ``initialize_task`` seeds ``random`` again with ``params["seed"]`` before its own draws (noise
   rows, reworded dates, picks of information-retrieval tasks): here :meth:`~AndroidWorldTask.initialize`.

So AndroidWorld's instance ``seed`` is the same instance here: the same goal text byte for byte, the
same parameters, the same start state. A reset picks a seed from the env's generator;
``env.reset(options={"params": {"seed": s}})`` asks for AndroidWorld's instance ``s``.

Every instance starts on AndroidWorld's device clock, Sunday 2023-10-15 15:34:00 UTC
(``device_constants.DT``), in 24-hour format.

The functions below draw exactly as ``task_evals/utils/user_data_generation.py`` draws (same
calls on the generator, same order), from the same vocabularies, so parameters built from them
match AndroidWorld's for every seed. Facts recorded from AndroidWorld at commit :data:`AW_COMMIT`.
"""

from __future__ import annotations

import datetime as dt
import difflib
import functools
import posixpath
import random
import string
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from gui_gym.android.sim.tasks.base import Params, TaskTemplate

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

#: The AndroidWorld commit whose task definitions the suite follows.
AW_COMMIT = "d9c569f764b3a5629321858de03ff653d0f24056"
#: The suite's name (``TaskSpec.suite``; ``task="androidworld"`` selects it).
SUITE = "androidworld"
#: AndroidWorld's device clock at the start of every task (UTC; ``device_constants.DT``).
DEVICE_TIME = dt.datetime(2023, 10, 15, 15, 34, 0)


class AndroidWorldTask(TaskTemplate):
    """An AndroidWorld task: its id, template, label, ``optimal_steps`` and tags as AndroidWorld
    gives them (``task_metadata.json``), its parameters drawn as AndroidWorld draws them.

    Subclasses implement :meth:`generate` (AndroidWorld's ``generate_random_params``, drawing
    from ``r`` in AndroidWorld's order), :meth:`initialize` (the draws and writes of its
    ``initialize_task``), ``check`` (what its ``is_successful`` computes, 0.0-1.0 for composite
    tasks through :meth:`score`) and ``oracle``. ``difficulty`` is AndroidWorld's label, not our
    oracle's length (``gui-gym tasks --suite androidworld`` prints both).
    """

    suite: ClassVar[str] = SUITE
    optimal_steps: ClassVar[int] = 0

    # -- to implement --------------------------------------------------------------------
    def generate(self, r: random.Random) -> Params:
        """AndroidWorld's ``generate_random_params``, drawing from ``r`` in its order."""
        return {}

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        """The draws and writes of AndroidWorld's ``initialize_task`` (``r`` is seeded with
        ``params["seed"]`` as AndroidWorld seeds ``random``). May update ``params`` where
        AndroidWorld does (information-retrieval tasks reword their dates there)."""

    # -- provided ------------------------------------------------------------------------
    def sample(self, rng: np.random.Generator) -> Params:
        return self.sample_seed(int(rng.integers(2**32)))

    def sample_seed(self, seed: int) -> Params:
        """AndroidWorld's instance ``seed``: its parameters, with ``"seed"`` set."""
        params = self.generate(random.Random(seed))
        params["seed"] = int(seed)
        return params

    def setup(self, dev: Device, params: Params, rng: np.random.Generator) -> None:
        seed = params.get("seed")
        self.initialize(dev, params, random.Random(seed))

    def clock(self, rng: np.random.Generator) -> dt.datetime:
        return DEVICE_TIME


# ----------------------------------------------------------------------------- matching


def fuzzy_match(a: str | None, b: str | None, ignore_case: bool = True) -> bool:
    """AndroidWorld's ``fuzzy_match_lib.fuzzy_match``: ``difflib`` ratio ≥ 0.9 (``None`` never matches).

    >>> fuzzy_match("Hello world", "hello world."), fuzzy_match("cat", "dog"), fuzzy_match("", "")
    (True, False, True)
    """
    if a is None or b is None:
        return False
    if ignore_case:
        a, b = a.lower(), b.lower()
    return ratio_at_least_09(a, b)


@functools.lru_cache(maxsize=1 << 16)
def ratio_at_least_09(a: str, b: str) -> bool:
    """``SequenceMatcher(None, a, b).ratio() >= 0.9``, kept per pair (a success check compares the
    same rows every step). The ratio is 2M/T with M matched characters: the bounds first, as
    difflib's own cheaper upper bounds, so a pair far apart is settled without matching."""
    if a == b:
        return True
    la, lb = len(a), len(b)
    if 2.0 * min(la, lb) / (la + lb) < 0.9:  # M <= the shorter length
        return False
    m = difflib.SequenceMatcher(None, a, b)
    return m.quick_ratio() >= 0.9 and m.ratio() >= 0.9


# ----------------------------------------------------------------------------- shared draws


def random_string(r: random.Random, length: int) -> str:
    """``generate_random_string``: letters and digits."""
    return "".join(r.choices(string.ascii_letters + string.digits, k=length))


def _random_date_str(r: random.Random) -> str:
    start = dt.date(2023, 1, 1)
    days = (dt.date(2023, 10, 14) - start).days
    return (start + dt.timedelta(days=r.randint(0, days))).strftime("%Y_%m_%d")


def modified_file_name(r: random.Random, base: str) -> str:
    """``generate_modified_file_name``: a date prefix, 4 random characters or a word, before or
    after the name part, always before the extension.

    >>> modified_file_name(random.Random(0), "notes.md")
    'notes_c7E4.md'
    """
    kind = r.choice(["date_prefix", "random_suffix", "fixed_suffix"])
    as_prefix = r.choice([True, False])
    stem, ext = posixpath.splitext(base)
    if kind == "date_prefix":
        mod = _random_date_str(r)
    elif kind == "random_suffix":
        mod = random_string(r, 4)
    else:
        mod = r.choice(["backup", "copy", "final", "edited"])
    return f"{mod}_{stem}{ext}" if as_prefix else f"{stem}_{mod}{ext}"


def random_file_name(r: random.Random) -> str:
    """``generate_random_file_name``: ``adjective_noun`` modified, with no extension."""
    adjective = r.choice(ADJECTIVES)
    noun = r.choice(NOUNS)
    return modified_file_name(r, f"{adjective}_{noun}")


def noise_file_names(r: random.Random, base: str, variants: list[str], n: int = 20) -> set[str]:
    """The names ``generate_noise_files`` draws: 1-``n`` distinct variants of ``variants`` (85%)
    or of ``base``, each given a variant's extension when it has none. A set, as AndroidWorld's:
    the files' contents are drawn in the set's iteration order, which AndroidWorld does not fix."""
    count = r.randint(1, n)
    names: set[str] = set()
    while len(names) < count:
        if r.random() <= 0.85:
            name = modified_file_name(r, r.choice(variants))
        else:
            name = modified_file_name(r, base)
        if len(name.split(".")) == 1:
            name += posixpath.splitext(r.choice(variants))[1]
        names.add(name)
    return names


def random_name(r: random.Random, excluding: str = "") -> str:
    """``generate_random_name``: a family name is drawn first, then a given name.

    AndroidWorld's ``excluding`` never excludes a name (its ``re.split`` arguments are swapped),
    so neither does this; the argument is kept for the call's shape.
    """
    family = r.choice(FAMILY_NAMES)
    given = r.choice(GIVEN_NAMES)
    return f"{given} {family}"


def random_number(r: random.Random) -> str:
    """``generate_random_number``: ``+1`` and ten digits (the first may be 0)."""
    return "+1" + "".join(r.choice(string.digits) for _ in range(10))


def random_address(r: random.Random) -> str:
    """``generate_random_address``: one of eight US addresses."""
    return r.choice(ADDRESSES)


ADDRESSES: tuple[str, ...] = (
    "123 Main St Girdwood, AK, 99587",
    "6 Elm St, Birmingham, AL, 35217",
    "789 E Oak St, Phoenix AZ 85006",
    "1011 S Maple St, Little Rock, AR, 72204",
    "1415 W Cedar Ave Denver, CO, 80223",
    "968 Spruce St, Hartford, CT, 06103",
    "1819 Birch Ct, Dover, DE, 19901",
    "2021 Poplar St, Atlanta, GA, 30340",
)

FAMILY_NAMES: tuple[str, ...] = (
    "Ahmed",
    "Ali",
    "Alves",
    "Chen",
    "Fernandez",
    "Ferreira",
    "Garcia",
    "Gonzalez",
    "Hernandez",
    "Ibrahim",
    "Li",
    "Liu",
    "Lopez",
    "Martin",
    "Mohamed",
    "Mohammed",
    "Muller",
    "Pereira",
    "Wang",
    "Zhang",
    "da Silva",
    "dos Santos",
)
GIVEN_NAMES: tuple[str, ...] = (
    "Abdullah",
    "Adam",
    "Ahmed",
    "Alejandro",
    "Ali",
    "Alice",
    "Amelia",
    "Amina",
    "Amir",
    "Ana",
    "Anna",
    "Aria",
    "Arthur",
    "Ava",
    "Camila",
    "Carlos",
    "Charlie",
    "Charlotte",
    "Daniel",
    "David",
    "Elias",
    "Ella",
    "Ema",
    "Emil",
    "Emilia",
    "Emily",
    "Emma",
    "Eva",
    "Fatima",
    "Freya",
    "Gabriel",
    "George",
    "Grace",
    "Hana",
    "Hannah",
    "Henry",
    "Hugo",
    "Ian",
    "Ibrahim",
    "Isabella",
    "Isla",
    "Ivan",
    "Jack",
    "James",
    "Jose",
    "Juan",
    "Laura",
    "Leo",
    "Leon",
    "Leonardo",
    "Liam",
    "Lily",
    "Lina",
    "Louis",
    "Luca",
    "Lucas",
    "Luis",
    "Luka",
    "Maria",
    "Mariam",
    "Mark",
    "Martin",
    "Martina",
    "Maryam",
    "Mateo",
    "Matteo",
    "Maya",
    "Mia",
    "Miguel",
    "Mila",
    "Mohammad",
    "Muhammad",
    "Nikola",
    "Noa",
    "Noah",
    "Nora",
    "Oliver",
    "Olivia",
    "Omar",
    "Oscar",
    "Petar",
    "Samuel",
    "Santiago",
    "Sara",
    "Sarah",
    "Sofia",
    "Sofija",
    "Sophia",
    "Sophie",
    "Theo",
    "Theodore",
    "Thiago",
    "Thomas",
    "Valentina",
    "Victoria",
    "William",
    "Willow",
)
SENTENCES: tuple[str, ...] = (
    "Don't forget to water the plants while I'm away.",
    "Your dentist appointment is scheduled for 2 PM on Thursday.",
    "Lunch meeting with Sarah at 1 PM Cafe L'amour.",
    "The dog's vet appointment is next Monday at 11 AM.",
    "Parents' evening at school this Wednesday.",
    "Monthly budget meeting pushed to Friday.",
    "Pick up groceries: Milk and Bread and Apples.",
    "Gym membership renewal due on the 20th.",
    "The library book is due back on the 15th.",
    "Reminder to call Grandma for her birthday.",
    "Weekend plans: Hiking trip to Blue Mountain.",
    "Book club meets next Tuesday to discuss '1984'.",
    "Dry cleaning is ready for pick-up.",
    "Wedding anniversary on the 30th. Make reservations!",
    "Yoga class every Tuesday and Thursday at 6 PM.",
    "Hello, World!",
    "To be or not to be.",
    "A quick brown fox.",
    "Lorem Ipsum is simply dummy text.",
    "The night is dark and full of terrors.",
    "May the Force be with you.",
    "Elementary, my dear Watson.",
    "It's a bird, it's a plane.",
    "Winter is coming.",
    "The cake is a lie.",
    "Inconceivable!",
    "A journey of a thousand miles begins with a single step.",
    "I think, therefore I am.",
    "The early bird catches the worm.",
    "Ignorance is bliss.",
    "Actions speak louder than words.",
    "Beauty is in the eye of the beholder.",
    "Better late than never.",
    "Cleanliness is next to godliness.",
    "Don't cry over spilled milk.",
    "The pen is mightier than the sword.",
    "When in Rome, do as the Romans do.",
    "The squeaky wheel gets the grease.",
    "Where there is smoke, there is fire.",
    "You can't make an omelette without breaking a few eggs.",
)
ADJECTIVES: tuple[str, ...] = (
    "quick",
    "happy",
    "silly",
    "brave",
    "kind",
    "clever",
    "gentle",
    "proud",
    "friendly",
    "funny",
    "curious",
    "smart",
    "bold",
    "calm",
    "fierce",
    "wise",
    "strong",
    "bright",
    "eager",
    "fancy",
    "helpful",
    "jolly",
    "lively",
    "neat",
    "polite",
    "sharp",
    "shy",
    "super",
    "tough",
    "witty",
    "active",
    "alert",
    "best",
    "busy",
    "cool",
    "fair",
    "fancy",
    "fine",
    "glad",
    "good",
    "great",
    "hot",
    "nice",
    "pretty",
    "proud",
    "ready",
    "real",
    "safe",
    "sure",
    "warm",
)
NOUNS: tuple[str, ...] = (
    "apple",
    "banana",
    "cat",
    "dog",
    "elephant",
    "fish",
    "guitar",
    "house",
    "island",
    "jacket",
    "king",
    "lion",
    "monkey",
    "nest",
    "ocean",
    "penguin",
    "queen",
    "rabbit",
    "snake",
    "tree",
    "umbrella",
    "violin",
    "watch",
    "xylophone",
    "yacht",
    "zebra",
    "ant",
    "bear",
    "cow",
    "deer",
    "eagle",
    "frog",
    "goat",
    "horse",
    "igloo",
    "jelly",
    "koala",
    "lamp",
    "mouse",
    "nurse",
    "owl",
    "pig",
    "quilt",
    "rose",
    "sun",
    "tiger",
    "unicorn",
    "vase",
    "wolf",
    "fox",
    "zebra",
)
