"""AndroidWorld's Retro Music tasks (``task_evals/single/retro_music.py``) on the simulated phone.

Parameters are drawn as ``generate_random_params`` draws them: the playlist name
(``_generate_playlist_name``: a number 1-999, then a theme), 15 songs sampled from ``_SONGS`` as
``<title>.mp3``, of which the first 2-5 (9-11 for the duration task) are the task's ``files`` and
the rest ``noise_files``. The start state is ``initialize_task``'s: every file of shared storage
deleted (not for the duration task, which skips it), the playlists emptied, then each file put
into ``/sdcard/Music`` as an MP3 tagged with its title and an artist drawn from the common given
names, of 3-5 minutes (the duration task's ``files``: lengths summing to 47.5 minutes,
``_generate_list_with_sum``). The checks are AndroidWorld's on the app's databases:

- RetroCreatePlaylist: ``verify_playlist`` on the rows of ``_get_playlist_info_query`` (the
  playlists joined with their songs, numbered by ``song_key`` per playlist name): exactly
  ``len(files)`` rows whose playlist name fuzzy-matches, the i-th song's title the i-th file's;
- RetroPlayingQueue: the titles of ``playing_queue`` equal the files' titles, in order;
- RetroSavePlaylist: half for the playlist, half for ``/sdcard/Download/<name>.m3u`` existing;
- RetroPlaylistDuration: every row's playlist is the named one (exactly), and the songs' lengths
  add up to 45-50 minutes.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, ClassVar

from gui_gym.android.sim.apps.markor.androidworld import clear_device_storage
from gui_gym.android.sim.apps.retro.app import (
    AddToPlaylistDialog,
    CreatePlaylistDialog,
    PlaylistDetail,
    RetroMain,
    SaveDocument,
)
from gui_gym.android.sim.apps.retro.data import MUSIC, RetroData, put_song, retro
from gui_gym.android.sim.dialogs import MenuDialog
from gui_gym.android.sim.media import media
from gui_gym.android.sim.tasks.androidworld import GIVEN_NAMES, AndroidWorldTask, fuzzy_match
from gui_gym.android.sim.tasks.base import Milestone, Oracle, Params

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

SONGS: tuple[str, ...] = (
    "My Heart is Yours",
    "Endless Summer",
    "Whispering Wind",
    "Lost in the Echo",
    "Chasing Shadows",
    "Night Drive",
    "Echoes of Silence",
    "Bright Lights",
    "Moments",
    "Forever Young",
    "Rising Sun",
    "Silent Dreams",
    "City of Stars",
    "Moonlight Sonata",
    "Through the Storm",
    "Return to Paradise",
    "Voices in the Hall",
    "Under the Sky",
    "Dreamer's Awake",
    "Serenity Now",
    "Falling Feathers",
    "Orbiting Stars",
    "Reflections",
    "Beyond the Horizon",
    "Golden Days",
    "Twilight Calling",
    "Heartbeat Away",
    "Mystic Journey",
    "Hidden Paths",
    "Distant Memories",
    "Path to Zenith",
    "Eternal Flame",
    "Shadows of Time",
    "Whispers of the Past",
    "Waves of Change",
)
THEMES: tuple[str, ...] = (
    "Chill Beats",
    "Morning Vibes",
    "Workout Energy",
    "Study Sessions",
    "Golden Oldies",
    "Indie Gems",
    "Rock Anthems",
    "Electronic Waves",
    "Jazz Classics",
    "Hip Hop Hits",
    "Country Roads",
    "Classical Moods",
    "Pop Essentials",
    "Latin Grooves",
    "Reggae Rhythms",
    "Soulful Sounds",
    "Blues Vibes",
    "Metal Mayhem",
    "Party Mix",
    "Tranquil Tunes",
    "R&B Favorites",
    "Folk Inspirations",
    "Disco Nights",
    "Global Beats",
    "Sleepytime Songs",
    "Acoustic Sessions",
    "Vintage Vinyl",
    "Instrumental Study",
    "Coffeehouse Jazz",
    "Rainy Day Relax",
    "Gym Pump Up",
    "Retro Pop Hits",
    "Indie Rock Roadtrip",
    "Electronic Chillout",
    "Classical Concentration",
    "Jazz Lounge",
    "Hip Hop Bangers",
    "Country Classics",
    "Classical Opera Highlights",
    "Pop Punk Power",
    "Latin Dance Party",
    "Reggae Sunsplash",
    "Soul Classics",
    "Blues Break",
    "Party Starters",
    "Tranquil Ambient",
    "R&B Grooves",
    "Folk Favourites",
    "Disco Fever",
    "World Music Tour",
)
MIN_MS, MAX_MS = 3 * 60 * 1000, 5 * 60 * 1000
TARGET_MS = int(47.5 * 60 * 1000)


def playlist_name(r: random.Random) -> str:
    """``_generate_playlist_name``: the number is drawn before the theme."""
    number = r.randint(1, 999)
    return f"{r.choice(THEMES)} {number}"


def titles(files: list[str]) -> list[str]:
    """The goal's and the checks' song names: each file name up to its first dot."""
    return [f.split(".")[0] for f in files]


def list_with_sum(r: random.Random, n: int, m: int) -> list[int]:
    """``_generate_list_with_sum``: ``m`` non-negative integers adding up to ``n``.

    >>> sum(list_with_sum(random.Random(3), 1000, 9)), len(list_with_sum(random.Random(3), 1000, 9))
    (1000, 9)
    """
    cuts = sorted(r.randint(0, n) for _ in range(m - 1))
    bounds = [0, *cuts, n]
    return [bounds[i + 1] - bounds[i] for i in range(m)]


def playlist_rows(dev: Device) -> list[tuple[str, str, int, int]]:
    """``_get_playlist_info_query``: (playlist name, song title, length ms, order in playlist) of
    every song of every playlist, numbered by ``song_key`` within each playlist name, sorted by name
    then order."""
    data = retro(dev)
    names = {p.playlist_id: p.playlist_name for p in data.playlists}
    by_name: dict[str, list[Any]] = {}
    for e in data.entries:
        if e.playlist_creator_id in names:
            by_name.setdefault(names[e.playlist_creator_id], []).append(e)
    out = []
    for name in sorted(by_name):
        for i, e in enumerate(sorted(by_name[name], key=lambda e: e.song_key)):
            out.append((name, e.song.title, e.song.duration, i))
    return out


def verify_playlist(rows: list[tuple[str, str, int, int]], name: str, expected: list[str]) -> bool:
    """``sqlite_validators.verify_playlist``."""
    if sum(1 for r in rows if fuzzy_match(r[0], name)) != len(expected):
        return False
    return all(any(fuzzy_match(r[0], name) and r[1] == t and r[3] == i for r in rows) for i, t in enumerate(expected))


def put_songs(dev: Device, files: list[str], r: random.Random, durations: list[int] | None = None) -> None:
    """``write_mp3_file_to_device`` for each file: the artist drawn, then the length (unless given)."""
    for i, f in enumerate(files):
        artist = r.choice(GIVEN_NAMES)
        ms = durations[i] if durations is not None else r.randint(MIN_MS, MAX_MS)
        put_song(dev, f"{MUSIC}/{f}", f.split(".")[0], artist, ms, dev.state.now)


def _opened(dev: Device, params: Params) -> bool:
    return "retro" in dev.state.launched


def _created(dev: Device, params: Params) -> bool:
    return any(fuzzy_match(p.playlist_name, params["playlist_name"]) for p in retro(dev).playlists)


class RetroTask(AndroidWorldTask):
    app: ClassVar[str] = "retro"
    apps: ClassVar[tuple[str, ...]] = ("retro",)
    placeholders: ClassVar[dict[str, str]] = {"Playlist": "playlist_name"}
    count: ClassVar[tuple[int, int]] = (2, 5)

    def generate(self, r: random.Random) -> Params:
        name = playlist_name(r)
        files = [f"{s}.mp3" for s in r.sample(SONGS, 15)]
        n = r.randint(*self.count)
        return {"playlist_name": name, "files": files[:n], "noise_files": files[n:]}

    def placeholder_values(self, params: Params) -> dict[str, str]:
        return super().placeholder_values(params) | {"Songs": ", ".join(titles(params["files"]))}

    def instruction(self, params: Params) -> str:
        names = ", ".join(titles(params["files"]))
        return (
            f'Create a playlist in Retro Music titled "{params["playlist_name"]}" with the'
            f" following songs, in order: {names}"
        )

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        clear_device_storage(dev)  # user_data_generation.clear_internal_storage
        dev.state.data["retro"] = RetroData()  # the app's snapshot, then _clear_playlist_dbs
        put_songs(dev, params["files"] + params["noise_files"], r)

    def check(self, dev: Device, params: Params, answer: str | None, status: str | None) -> bool:
        return verify_playlist(playlist_rows(dev), params["playlist_name"], titles(params["files"]))

    # -- the oracle ------------------------------------------------------------------------
    def wanted(self, o: Oracle) -> list[str]:
        """The songs the playlist is to hold, in order."""
        return titles(o.p["files"])

    def done(self, o: Oracle) -> bool:
        return self.check(o.dev, o.p, None, None)

    def after(self, o: Oracle) -> str:
        """What the oracle does once the songs are in."""
        return o.finish()

    def oracle(self, o: Oracle) -> str:
        if self.done(o):
            return self.after(o)
        if o.app != "retro":
            return o.launch("Retro Music")
        data = retro(o.dev)
        name = o.p["playlist_name"]
        playlist = data.playlist(name)
        have = [e.song.title for e in data.songs_of(playlist.playlist_id)] if playlist else []
        want = self.wanted(o)
        nxt = want[len(have)] if have == want[: len(have)] and len(have) < len(want) else want[-1]
        return self.add_step(o, nxt, lambda d: _add_to_playlist_step(o, d, name, playlist is not None))

    def add_step(self, o: Oracle, title: str, in_dialog: Any) -> str:
        """The next action to put ``title`` where the task wants it: its menu on the Songs tab,
        then what ``in_dialog`` does with the dialog that is open."""
        dialog = o.dialog
        if dialog is not None:
            act = in_dialog(dialog)
            if act is not None:
                return act
            return o.back()
        screen = o.screen
        if not isinstance(screen, RetroMain):
            return o.back()
        if screen.tab != "Songs":
            return o.tap(o.find(desc="Songs", role="tab"))
        key = title.lower()
        row = next((n for n in o.nodes if n.role == "row" and n.label == title), None)
        if row is None:
            act = o.reveal(
                lambda n: n.role == "row" and n.label == title,
                before=lambda n: n.label.lower() < key,
                list_rid="recyclerView",
            )
            return act if act is not None else o.back()
        menu = next((c for c in row.children if c.rid.endswith(":id/menu")), None)
        lst = o.find(rid=":id/recyclerView", role="list")
        if lst is not None and (menu is None or menu.bounds[3] > lst.bounds[3] or menu.bounds[1] < lst.bounds[1]):
            below = row.bounds[3] > (lst.bounds[1] + lst.bounds[3]) // 2  # cut off at the bottom: scroll on
            return o.swipe("up" if below else "down", dist="short", within=lst)
        return o.tap(menu)


def _add_to_playlist_step(o: Oracle, dialog: Any, name: str, exists: bool) -> str | None:
    if isinstance(dialog, MenuDialog) and any(v == "Add to playlist" for _, v in dialog.items):
        return o.tap_text("Add to playlist")
    if isinstance(dialog, AddToPlaylistDialog):
        return o.tap_text(name if exists else "New playlist")
    if isinstance(dialog, CreatePlaylistDialog):
        act = o.fill("Playlist name", name)
        return act if act is not None else o.tap_text("CREATE")
    return None


class RetroCreatePlaylist(RetroTask):
    """Create the named playlist holding the files' songs in order."""

    id = "RetroCreatePlaylist"
    template = 'Create a playlist in Retro Music titled "{playlist_name}" with the following songs, in order: {names}'
    difficulty = "medium"
    optimal_steps = 12
    tags = ("data_entry", "repetition", "parameterized")
    milestones = (
        Milestone("Open Retro Music", _opened),
        Milestone('Create the playlist "<Playlist>"', _created),
        Milestone("Add <Songs> to it, in that order", lambda d, p: RetroCreatePlaylist().check(d, p, None, None)),
    )


def _queue_ok(dev: Device, params: Params) -> bool:
    return [s.title for s in retro(dev).queue] == titles(params["files"])


class RetroPlayingQueue(RetroTask):
    """Put the files' songs, in order, in the playing queue."""

    id = "RetroPlayingQueue"
    template = "Add the following songs, in order, {names} to my playing queue in Retro music."
    difficulty = "easy"
    optimal_steps = 16
    tags = ("parameterized",)
    milestones = (
        Milestone("Open Retro Music", _opened),
        Milestone("Add <Songs> to the playing queue, in that order", _queue_ok),
    )

    def instruction(self, params: Params) -> str:
        names = ", ".join(titles(params["files"]))
        return f"Add the following songs, in order, {names} to my playing queue in Retro music."

    def check(self, dev: Device, params: Params, answer: str | None, status: str | None) -> bool:
        return _queue_ok(dev, params)

    def oracle(self, o: Oracle) -> str:
        if self.done(o):
            return o.finish()
        if o.app != "retro":
            return o.launch("Retro Music")
        have = [s.title for s in retro(o.dev).queue]
        want = self.wanted(o)
        if have != want[: len(have)]:  # a song played: the queue is the whole list; start again
            return o.finish()
        nxt = want[len(have)]

        def in_dialog(d: Any) -> str | None:
            if isinstance(d, MenuDialog) and any(v == "Add to playing queue" for _, v in d.items):
                return o.tap_text("Add to playing queue")
            return None

        return self.add_step(o, nxt, in_dialog)


def _exported(dev: Device, params: Params) -> bool:
    return f"Download/{params['playlist_name']}.m3u" in media(dev).files


class RetroSavePlaylist(RetroTask):
    """RetroCreatePlaylist, then "Save as file" into Downloads (``<name>.m3u``); half a point each."""

    id = "RetroSavePlaylist"
    template = (
        'Create a playlist in Retro Music titled "{playlist_name}" with the following songs, in order: {names}.'
        " Then export the playlist to the Downloads directory on the device."
    )
    difficulty = "hard"
    optimal_steps = 25
    tags = ("search", "repetition", "parameterized")
    milestones = (
        Milestone("Open Retro Music", _opened),
        Milestone('Create the playlist "<Playlist>"', _created),
        Milestone(
            "Add <Songs> to it, in that order", lambda d, p: RetroTask.check(RetroSavePlaylist(), d, p, None, None)
        ),
        Milestone('Export it to Downloads as "<Playlist>.m3u"', _exported),
    )

    def instruction(self, params: Params) -> str:
        return super().instruction(params) + ". Then export the playlist to the Downloads directory on the device."

    def score(self, dev: Device, params: Params, answer: str | None, status: str | None) -> float:
        return (float(RetroTask.check(self, dev, params, answer, status)) + float(_exported(dev, params))) / 2

    def check(self, dev: Device, params: Params, answer: str | None, status: str | None) -> bool:
        return self.score(dev, params, answer, status) == 1.0

    def done(self, o: Oracle) -> bool:
        return RetroTask.check(self, o.dev, o.p, None, None)

    def after(self, o: Oracle) -> str:
        if _exported(o.dev, o.p):
            return o.finish()
        name = o.p["playlist_name"]
        screen, dialog = o.screen, o.dialog
        if isinstance(screen, SaveDocument):
            act = o.fill("File name", f"{name}.m3u")
            return act if act is not None else o.tap_text("SAVE")
        if isinstance(dialog, MenuDialog) and any(v == "Save as file" for _, v in dialog.items):
            return o.tap_text("Save as file")
        if dialog is not None or isinstance(screen, PlaylistDetail) or not isinstance(screen, RetroMain):
            return o.back()
        if screen.tab != "Playlists":
            return o.tap(o.find(desc="Playlists", role="tab"))
        row = next((n for n in o.nodes if n.role == "row" and n.label == name), None)
        menu = next((c for c in row.children if c.rid.endswith(":id/menu")), None) if row is not None else None
        return o.tap(menu)


def _duration_ok(dev: Device, params: Params) -> bool:
    rows = playlist_rows(dev)
    if any(r[0] != params["playlist_name"] for r in rows):
        return False
    return 45 * 60 * 1000 <= sum(r[2] for r in rows) <= 50 * 60 * 1000


class RetroPlaylistDuration(RetroTask):
    """Create the named playlist of 45-50 minutes from the songs (the ``files`` add up to 47.5)."""

    id = "RetroPlaylistDuration"
    template = (
        'Create a playlist in Retro Music titled "{playlist_name}" with a duration between 45 and 50 minutes'
        " using the provided songs."
    )
    difficulty = "medium"
    optimal_steps = 15
    tags = ("math_counting", "complex_ui_understanding", "repetition", "parameterized")
    count = (9, 11)
    milestones = (
        Milestone("Open Retro Music", _opened),
        Milestone('Create the playlist "<Playlist>"', _created),
        Milestone("Fill it with songs lasting 45 to 50 minutes in all", _duration_ok),
    )

    def instruction(self, params: Params) -> str:
        return (
            f'Create a playlist in Retro Music titled "{params["playlist_name"]}" with a duration between 45 and 50'
            " minutes using the provided songs."
        )

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        # initialize_task neither clears the storage nor restores the app (it skips the base class's)
        data = retro(dev)
        data.playlists, data.entries = [], []
        data.next_playlist = data.next_key = 1
        files = params["files"]
        put_songs(dev, files, r, list_with_sum(r, TARGET_MS, len(files)))
        put_songs(dev, params["noise_files"], r)

    def check(self, dev: Device, params: Params, answer: str | None, status: str | None) -> bool:
        return _duration_ok(dev, params)


TEMPLATES = (RetroCreatePlaylist, RetroPlayingQueue, RetroPlaylistDuration, RetroSavePlaylist)

__all__ = [
    "TEMPLATES",
    "RetroCreatePlaylist",
    "RetroPlayingQueue",
    "RetroPlaylistDuration",
    "RetroSavePlaylist",
    "playlist_rows",
    "verify_playlist",
]
