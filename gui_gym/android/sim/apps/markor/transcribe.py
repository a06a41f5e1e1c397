"""AndroidWorld's Markor transcription tasks: ``MarkorTranscribeReceipt`` (a receipt picture
read in Simple Gallery Pro) and ``MarkorTranscribeVideo`` (a video watched in VLC), with the
receipt's and the videos' draws. :mod:`gui_gym.android.sim.apps.markor.androidworld` lists them
in its ``TEMPLATES`` and re-exports every name."""

from __future__ import annotations

import datetime as dt
import random
from typing import TYPE_CHECKING, ClassVar

from gui_gym.android.sim.apps.markor.common import (
    MarkorAWTask,
    clear_device_storage,
    content_matches,
    exists,
    note_step,
)
from gui_gym.android.sim.apps.markor.tasks import in_markor
from gui_gym.android.sim.tasks.androidworld import DEVICE_TIME, GIVEN_NAMES, modified_file_name, random_string
from gui_gym.android.sim.tasks.base import Milestone, Oracle, Params

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device


# ----------------------------------------------------------------------------- with Simple Gallery Pro

#: ``receipt_generator._random_transaction``'s items and their price ranges (dollars)
RECEIPT_ITEMS: tuple[tuple[str, tuple[int, int]], ...] = (
    ("USB-C Cable", (5, 20)),
    ("Wireless Mouse", (10, 50)),
    ("Bluetooth Keyboard", (30, 100)),
    ("External Hard Drive", (50, 150)),
    ("Webcam", (20, 70)),
    ("Monitor Stand", (15, 60)),
)
#: ``receipt_generator._random_company_info``'s names and slogans
RECEIPT_COMPANIES = ("Tech Gadgets Inc.", "Innovate Solutions Ltd.", "Future Tech LLC", "Gadget Gurus Co.")
RECEIPT_SLOGANS = (
    "Innovating the Future",
    "Technology for Tomorrow",
    "Bringing Ideas to Life",
    "Innovation and Excellence",
)
RECEIPT_HEADER = "Date, Item, Amount"  # in the text to write, not on the picture
RECEIPT_FOOTER = ("Thank you for your purchase!", "Visit us at: www.tech-gadgets.com")
#: where ``MarkorTranscribeReceipt`` puts the picture (``device_constants.GALLERY_DATA``), below /sdcard
RECEIPT_PICTURE = "DCIM/receipt.png"


def receipt_transaction(r: random.Random) -> str:
    """``receipt_generator._random_transaction`` as the receipt writes it: an item, a price drawn
    in its range, then a day of 2023 before the phone's date (``randrange`` over the days from
    January 1st); ``"2023-09-06, Bluetooth Keyboard, $97.58"``."""
    item, (low, high) = r.choice(RECEIPT_ITEMS)
    price = r.uniform(low, high)
    start = dt.date(2023, 1, 1)
    day = start + dt.timedelta(days=r.randrange((DEVICE_TIME.date() - start).days))
    return f"{day.isoformat()}, {item}, ${price:.2f}"


def _receipt_viewed(dev: Device) -> bool:
    from gui_gym.android.sim.apps.gallery.oracle import viewed

    return viewed(dev, RECEIPT_PICTURE)


class MarkorTranscribeReceipt(MarkorAWTask):
    """``MarkorTranscribeReceipt``: a receipt picture (``receipt_generator.create_receipt``: a
    company, its slogan, 1-5 transactions, a footer) at ``/sdcard/DCIM/receipt.png``, to be read in
    Simple Gallery Pro and written to ``receipt.md`` in Markor as csv under the header "Date, Item,
    Amount" (which the picture does not show): ``CreateFile``'s check, the note's stripped text
    ``fuzzy_match``-ing the header and the transactions' lines. The picture's lines are kept in
    ``params["receipt"]`` (AndroidWorld keeps the image, ``img``, which its parameters drop)."""

    id = "MarkorTranscribeReceipt"
    apps = ("gallery", "markor")
    template = (
        "Create a file in Markor, called receipt.md with the transactions from the receipt.png. Use Simple Gallery"
        ' to view the receipt. Please enter transactions in csv format including the header "Date, Item, Amount".'
    )
    difficulty = "medium"
    optimal_steps = 9
    tags = ("transcription", "data_entry", "multi_app", "screen_reading", "memorization", "parameterized")
    placeholders: ClassVar[dict[str, str]] = {"FileName": "file_name"}
    milestones = (
        Milestone(
            "Open receipt.png in Simple Gallery Pro", lambda d, p: _receipt_viewed(d) or exists(d, p["file_name"])
        ),
        Milestone("Open the Markor app", lambda d, p: in_markor(d) or exists(d, p["file_name"])),
        Milestone("Create the note <FileName>", lambda d, p: exists(d, p["file_name"])),
        Milestone(
            "Write the receipt's transactions into <FileName> and save it",
            lambda d, p: content_matches(d, p["file_name"], p["text"]),
        ),
    )

    def generate(self, r: random.Random) -> Params:
        n = r.randint(1, 5)
        company, slogan = r.choice(RECEIPT_COMPANIES), r.choice(RECEIPT_SLOGANS)
        transactions = [receipt_transaction(r) for _ in range(n)]
        return {
            "file_name": "receipt.md",
            "text": "\n".join([RECEIPT_HEADER, *transactions]),
            "receipt": {"company": company, "slogan": slogan, "transactions": transactions},
        }

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        from gui_gym.android.sim.media import media

        clear_device_storage(dev)  # CreateFile.initialize_task
        rc = params["receipt"]
        lines = [rc["company"], rc["slogan"], "", *rc["transactions"], "", *RECEIPT_FOOTER]
        media(dev).add_image(RECEIPT_PICTURE, lines, dev.state.now)

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return content_matches(dev, p["file_name"], p["text"])

    def oracle(self, o: Oracle) -> str:
        from gui_gym.android.sim.apps.gallery.oracle import view_step

        p = o.p
        if self.check(o.dev, p, None, None):
            return o.finish()
        if not _receipt_viewed(o.dev) and not exists(o.dev, p["file_name"]):
            act = view_step(o, RECEIPT_PICTURE)
            if act is not None:
                return act
        return note_step(o, p["file_name"], p["text"])


# ----------------------------------------------------------------------------- with VLC

#: ``MarkorTranscribeVideo``'s seconds per message (``message_display_time=8``)
VIDEO_MESSAGE_SECONDS = 8
#: ``vlc.generate_file_name``'s parts
VIDEO_PREFIXES = ("clip", "footage", "scene", "recording", "highlight", "moment", "episode")
VIDEO_SUFFIXES = ("", "HD", "4K", "raw", "export")
#: where AndroidWorld writes the videos (``device_constants.DOWNLOAD_DATA``), below /sdcard
DOWNLOAD = "Download"


def video_file_name(r: random.Random) -> str:
    """``vlc.generate_file_name``: ``<prefix>_<1-99>_<suffix>.mp4`` (the suffix may be empty),
    then modified as ``generate_modified_file_name`` does (``clip_69__2023_01_30.mp4``)."""
    prefix = r.choice(VIDEO_PREFIXES)
    suffix = r.choice(VIDEO_SUFFIXES)
    num = str(r.randint(1, 99))
    return modified_file_name(r, f"{prefix}_{num}_{suffix}.mp4")


def _video(p: Params) -> str:
    return f"{DOWNLOAD}/{p['video_name']}"


def _video_playing(dev: Device, p: Params) -> bool:
    from gui_gym.android.sim.apps.vlc.app import playing

    return playing(dev, _video(p))


def _video_watched(dev: Device, p: Params) -> bool:
    from gui_gym.android.sim.apps.vlc.oracle import watched

    return watched(dev, _video(p))


class MarkorTranscribeVideo(MarkorAWTask):
    """``MarkorTranscribeVideo``: a video in ``Download`` (``write_video_file_to_device``: 320x240,
    each of 2-4 given names shown for 8 s) among 5-20 noise videos (one random 10-character string
    each, shown 20-180 s); the names it shows, in order and separated by commas, to be written to
    ``<video>_transcription.txt`` in Markor: ``CreateFile``'s check, the note's stripped text
    ``fuzzy_match``-ing ``text`` (the names joined by "," with no space, where the goal's example
    puts ", ": the fuzzy match takes either)."""

    id = "MarkorTranscribeVideo"
    apps = ("vlc", "markor")
    template = (
        "Transcribe the contents of video {video_name} by watching it in VLC player (located in Download) and"
        " writing the sequence of strings shown on each frame to the text file {file_name} in Markor as a comma"
        ' separated list. For example, if the first frame shows the text "edna" and the second frame shows the'
        ' text "pineapple", then the text file should contain only the following text: "edna, pineapple".'
    )
    difficulty = "hard"
    optimal_steps = 10
    tags = ("multi_app", "transcription", "requires_setup", "memorization", "screen_reading", "parameterized")
    placeholders: ClassVar[dict[str, str]] = {"Video": "video_name", "FileName": "file_name", "Text": "text"}
    milestones = (
        Milestone("Open the VLC app", lambda d, p: "vlc" in d.state.launched),
        Milestone("Play the video <Video> in VLC", _video_playing),
        Milestone("Watch every frame of <Video>", _video_watched),
        Milestone("Create the note <FileName>", lambda d, p: exists(d, p["file_name"])),
        Milestone(
            "Write the names the video shows into <FileName> and save it",
            lambda d, p: content_matches(d, p["file_name"], p["text"]),
        ),
    )

    def generate(self, r: random.Random) -> Params:
        messages = r.sample(GIVEN_NAMES, r.randint(2, 4))
        video = video_file_name(r)
        return {
            "file_name": f"{video.split('.')[0]}_transcription.txt",
            "text": ",".join(messages),
            "messages": messages,
            "video_name": video,
            "noise_files": [video_file_name(r) for _ in range(r.randint(5, 20))],
        }

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        from gui_gym.android.sim.media import media

        clear_device_storage(dev)  # CreateFile.initialize_task
        store = media(dev)
        frames = [(m, VIDEO_MESSAGE_SECONDS) for m in params["messages"]]
        store.add_video(_video(params), frames, dev.state.now)
        for name in params["noise_files"]:  # written after: a noise video of the same name replaces it
            text = random_string(r, 10)  # the message is drawn before its display time
            seconds = r.randint(20, 180)
            store.add_video(f"{DOWNLOAD}/{name}", [(text, seconds)], dev.state.now)

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return content_matches(dev, p["file_name"], p["text"])

    def oracle(self, o: Oracle) -> str:
        from gui_gym.android.sim.apps.vlc.oracle import watch_step

        p = o.p
        if self.check(o.dev, p, None, None):
            return o.finish()
        if not exists(o.dev, p["file_name"]):
            act = watch_step(o, _video(p))
            if act is not None:
                return act
        return note_step(o, p["file_name"], ", ".join(p["messages"]))  # as the goal's example writes it
