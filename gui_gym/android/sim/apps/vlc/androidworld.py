"""AndroidWorld's VLC tasks (``task_evals/single/vlc.py``): ``VlcCreatePlaylist`` and
``VlcCreateTwoPlaylists``.

Parameters (``generate_random_params``): a playlist name (``_generate_playlist_name``: a theme, then
a qualifier, ``"Summer Highlights Ultimate Collection"``), 2-5 video names (``generate_file_name``:
``<prefix>_<1-99>_<suffix>.mp4``, modified) and as many noise names; the two-playlist task draws two
such sets in turn. The goal lists the names in order; the second playlist's sentence starts with a
small "create".

Set-up (``_VLC.initialize_task`` then ``VlcCreatePlaylist.initialize_task``): every file of the
shared storage deleted (``clear_internal_storage``), ``/storage/emulated/0/VLCVideos`` emptied, the
rows of ``Playlist``, ``Media`` and ``PlaylistMediaRelation`` deleted from VLC's ``vlc_media.db``,
then each video written to ``VLCVideos`` (``write_video_file_to_device``: a 320 x 240 video at one
frame per second showing a random 10-character string, drawn first, for 20-180 seconds, drawn
next): the playlist's files, then the noise files. The two-playlist task sets up the first set so,
then writes the second set's files without clearing anything.

Check (``is_successful``): the rows of ``SELECT Playlist.name, Media.filename,
PlaylistMediaRelation.position`` (inner joins) pass ``sqlite_validators.verify_playlist``: as many
rows whose playlist name ``fuzzy_match``-es the asked name as there are files, and for each file at
index ``i`` a row of such a playlist with exactly that file name at position ``i`` (VLC counts
positions from 0). The two-playlist task scores the mean of the two checks.

The oracle builds each playlist in VLC as a person would: Browse, Internal memory, VLCVideos, a
file's "More Actions", "Add to playlist"; the first file's dialog gets the new playlist's name
(Enter creates it), each next file is added by tapping the playlist in the dialog.
"""

from __future__ import annotations

import posixpath
import random
from typing import TYPE_CHECKING, ClassVar

from gui_gym.android.sim.apps.markor.androidworld import clear_device_storage, video_file_name
from gui_gym.android.sim.apps.vlc.app import (
    ADD_TO_PLAYLIST,
    INTERNAL_MEMORY,
    MORE_ACTIONS,
    PLAYLIST_NAME,
    ContextSheet,
    SavePlaylistDialog,
    VlcBrowser,
    VlcMain,
)
from gui_gym.android.sim.apps.vlc.data import VlcData, library, vlc
from gui_gym.android.sim.media import media
from gui_gym.android.sim.tasks.androidworld import AndroidWorldTask, fuzzy_match, random_string
from gui_gym.android.sim.tasks.base import Milestone, Oracle, Params

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

#: ``apps.VlcApp.videos_path`` (``/storage/emulated/0/VLCVideos``), below /sdcard
VLC_FOLDER = "VLCVideos"
#: ``_generate_playlist_name``'s themes and qualifiers (data)
THEMES = (
    "Adventure",
    "Comedy",
    "Daily Routines",
    "Documentary Insights",
    "Epic Moments",
    "Family Gatherings",
    "Fitness Challenges",
    "Gaming Sessions",
    "How To",
    "Mystery and Thrills",
    "Recipe Collection",
    "Road Trips",
    "Summer Highlights",
    "Tech Reviews",
    "Travel Guide",
    "Ultimate Fails",
)
QUALIFIERS = ("Essentials", "Favorites", "Marathon", "Playlist", "Series", "Specials", "Ultimate Collection")


def playlist_name(r: random.Random) -> str:
    """``_generate_playlist_name``: a theme, then a qualifier."""
    theme = r.choice(THEMES)
    qualifier = r.choice(QUALIFIERS)
    return f"{theme} {qualifier}"


def playlist_params(r: random.Random) -> Params:
    """``VlcCreatePlaylist.generate_random_params``: the name, 2-5 files, as many noise files."""
    name = playlist_name(r)
    n = r.randint(2, 5)
    files = [video_file_name(r) for _ in range(n)]
    return {"playlist_name": name, "files": files, "noise_files": [video_file_name(r) for _ in range(n)]}


def verify_playlist(data: VlcData, name: str, files: list[str]) -> bool:
    """``sqlite_validators.verify_playlist`` over the rows of ``vlc._get_playlist_info_query``."""
    rows = [row for row in data.playlist_rows() if fuzzy_match(row[0], name)]
    if len(rows) != len(files):
        return False
    return all(any(f == filename and i == position for _, filename, position in rows) for i, f in enumerate(files))


def _path(name: str) -> str:
    return posixpath.join(VLC_FOLDER, name)


def reset_vlc(dev: Device) -> None:
    """``_VLC.initialize_task`` and ``_clear_playlist_dbs``: the storage's files deleted, VLCVideos
    emptied (the folder stays: AndroidWorld's VLC set-up made it), the playlists and media rows gone."""
    clear_device_storage(dev)
    store = media(dev)
    store.clear(VLC_FOLDER)
    store.dirs.add(VLC_FOLDER)
    data = vlc(dev)
    data.playlists, data.media, data.playlist_media = [], [], []


def setup_files(dev: Device, files: list[str], noise: list[str], r: random.Random) -> None:
    """``VlcCreatePlaylist.setup_files``: each file, then each noise file, written to VLCVideos
    showing a random 10-character string (drawn first) for 20-180 seconds (drawn next)."""
    store = media(dev)
    for name in [*files, *noise]:
        text = random_string(r, 10)
        seconds = r.randint(20, 180)
        store.add_video(_path(name), [(text, seconds)], dev.state.now)


def _launched(dev: Device) -> bool:
    return "vlc" in dev.state.launched


def _created(dev: Device, name: str) -> bool:
    return any(fuzzy_match(p.name, name) for p in vlc(dev).playlists)


def playlist_step(o: Oracle, name: str, files: list[str]) -> str | None:
    """One step toward the playlist ``name`` holding ``files`` in order; ``None`` once it does."""
    data = library(o.dev) if o.app == "vlc" else vlc(o.dev)
    if verify_playlist(data, name, files):
        return None
    p = data.playlist_by_name(name)
    done = [m.filename for m in data.tracks(p.id_playlist)] if p is not None else []
    if done != files[: len(done)]:
        return None  # not a prefix of the files: nothing this plan can mend
    target = _path(files[len(done)])
    if o.app != "vlc" or o.screen is None:
        return o.launch("VLC")
    s = o.screen
    d = s.dialog
    if isinstance(d, SavePlaylistDialog):
        if d.paths != [target]:
            return o.back()
        if p is not None:
            return o.tap(o.find(role="row", label=p.name))
        return o.fill(PLAYLIST_NAME, name) or o.tap(o.find(label="Save", role="textbutton"))
    if isinstance(d, ContextSheet):
        if d.path != target:
            return o.back()
        return o.tap(o.find(ADD_TO_PLAYLIST, role="menuitem"))
    if d is not None or o.keyboard:
        return o.back()
    if isinstance(s, VlcMain):
        if s.tab != "Browse":
            return o.tap(o.find(desc="Browse", role="tab"))
        return o.tap(o.find(role="row", label=INTERNAL_MEMORY))
    if isinstance(s, VlcBrowser):
        folder = posixpath.dirname(target)
        if s.folder == folder:
            return _tap_more(o, s, posixpath.basename(target))
        if s.folder == "" or folder.startswith(s.folder + "/"):
            child = folder[len(s.folder) :].lstrip("/").split("/")[0]
            return _reveal(o, s, child) or o.tap(o.find(role="row", label=child))
    return o.back()


def _reveal(o: Oracle, s: VlcBrowser, name: str) -> str | None:
    order = [obj if kind == "dir" else obj.name for kind, obj in s.entries(o.dev)]
    at = order.index(name)

    def before(row: object) -> bool:
        label = getattr(row, "label", "")
        return label in order and order.index(label) < at

    return o.reveal(lambda n: n.role == "row" and n.label == name, before=before, list_rid=":id/network_list")


def _tap_more(o: Oracle, s: VlcBrowser, name: str) -> str:
    act = _reveal(o, s, name)
    if act is not None:
        return act
    row = o.find(role="row", label=name)
    more = None if row is None else next((c for c in row.walk() if c.desc == MORE_ACTIONS), None)
    if row is not None and more is None:  # the row is cut at an edge of the list: bring it in
        lst = o.find(rid=":id/network_list", role="list")
        if lst is not None and lst.on_scroll is not None:
            near_bottom = row.bounds[1] > (lst.bounds[1] + lst.bounds[3]) // 2
            return o.swipe("up" if near_bottom else "down", dist="short", within=lst)
    return o.tap(more if more is not None else row)


class VlcCreatePlaylist(AndroidWorldTask):
    """``VlcCreatePlaylist`` (see the module docstring)."""

    id = "VlcCreatePlaylist"
    app = "vlc"
    apps = ("vlc",)
    template = (
        'Create a playlist titled "{playlist_name}" with the following files in VLC (located in Internal'
        " Memory/VLCVideos), in order: {files}"
    )
    difficulty = "medium"
    optimal_steps = 14
    tags = ("data_edit", "repetition", "parameterized")
    placeholders: ClassVar[dict[str, str]] = {"Playlist": "playlist_name", "Files": "files_text"}
    milestones = (
        Milestone("Open the VLC app", lambda d, p: _launched(d) or _created(d, p["playlist_name"])),
        Milestone('Create the playlist "<Playlist>"', lambda d, p: _created(d, p["playlist_name"])),
        Milestone(
            'Add <Files> to "<Playlist>", in this order',
            lambda d, p: verify_playlist(vlc(d), p["playlist_name"], p["files"]),
        ),
    )

    def generate(self, r: random.Random) -> Params:
        params = playlist_params(r)
        params["files_text"] = ", ".join(params["files"])
        return params

    def instruction(self, params: Params) -> str:
        return (
            f'Create a playlist titled "{params["playlist_name"]}" with the following files in VLC (located in'
            f" Internal Memory/VLCVideos), in order: {', '.join(params['files'])}"
        )

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        reset_vlc(dev)
        setup_files(dev, params["files"], params["noise_files"], r)

    def check(self, dev: Device, params: Params, answer: str | None, status: str | None) -> bool:
        return verify_playlist(vlc(dev), params["playlist_name"], params["files"])

    def oracle(self, o: Oracle) -> str:
        return playlist_step(o, o.p["playlist_name"], o.p["files"]) or o.finish()


class VlcCreateTwoPlaylists(AndroidWorldTask):
    """``VlcCreateTwoPlaylists``: two playlists; the score is the mean of their two checks."""

    id = "VlcCreateTwoPlaylists"
    app = "vlc"
    apps = ("vlc",)
    template = (
        'Create a playlist titled "{playlist_name1}" with the following files in VLC, in order: {files1}. And'
        ' then, Create a playlist titled "{playlist_name2}" with the following files in VLC (located in Internal'
        " Memory/VLCVideos), in order: {files1}"
    )
    difficulty = "medium"
    optimal_steps = 24
    tags = ("data_entry", "requires_setup", "parameterized")
    placeholders: ClassVar[dict[str, str]] = {
        "Playlist1": "playlist_name1",
        "Files1": "files1_text",
        "Playlist2": "playlist_name2",
        "Files2": "files2_text",
    }
    milestones = (
        Milestone("Open the VLC app", lambda d, p: _launched(d) or _created(d, p["playlist_name1"])),
        Milestone('Create the playlist "<Playlist1>"', lambda d, p: _created(d, p["playlist_name1"])),
        Milestone(
            'Add <Files1> to "<Playlist1>", in this order',
            lambda d, p: verify_playlist(vlc(d), p["playlist_name1"], p["files1"]),
        ),
        Milestone(
            'Create the playlist "<Playlist2>"',
            lambda d, p: verify_playlist(vlc(d), p["playlist_name1"], p["files1"]) and _created(d, p["playlist_name2"]),
        ),
        Milestone(
            'Add <Files2> to "<Playlist2>", in this order',
            lambda d, p: (
                verify_playlist(vlc(d), p["playlist_name1"], p["files1"])
                and verify_playlist(vlc(d), p["playlist_name2"], p["files2"])
            ),
        ),
    )

    def generate(self, r: random.Random) -> Params:
        one, two = playlist_params(r), playlist_params(r)
        return {
            "playlist_name1": one["playlist_name"],
            "files1": one["files"],
            "noise_files1": one["noise_files"],
            "playlist_name2": two["playlist_name"],
            "files2": two["files"],
            "noise_files2": two["noise_files"],
            "files1_text": ", ".join(one["files"]),
            "files2_text": ", ".join(two["files"]),
        }

    def instruction(self, params: Params) -> str:
        goal1 = (
            f'Create a playlist titled "{params["playlist_name1"]}" with the following files in VLC (located in'
            f" Internal Memory/VLCVideos), in order: {', '.join(params['files1'])}"
        )
        goal2 = (
            f'create a playlist titled "{params["playlist_name2"]}" with the following files in VLC, in order:'
            f" {', '.join(params['files2'])}"
        )
        return f"{goal1}. And then, {goal2}."

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        reset_vlc(dev)  # task1.initialize_task
        setup_files(dev, params["files1"], params["noise_files1"], r)
        setup_files(dev, params["files2"], params["noise_files2"], r)  # task2.setup_files: nothing cleared

    def score(self, dev: Device, params: Params, answer: str | None, status: str | None) -> float:
        data = vlc(dev)
        one = verify_playlist(data, params["playlist_name1"], params["files1"])
        two = verify_playlist(data, params["playlist_name2"], params["files2"])
        return (float(one) + float(two)) / 2

    def check(self, dev: Device, params: Params, answer: str | None, status: str | None) -> bool:
        return self.score(dev, params, answer, status) == 1.0

    def oracle(self, o: Oracle) -> str:
        p = o.p
        return (
            playlist_step(o, p["playlist_name1"], p["files1"])
            or playlist_step(o, p["playlist_name2"], p["files2"])
            or o.finish()
        )


TEMPLATES = (VlcCreatePlaylist, VlcCreateTwoPlaylists)

__all__ = ["TEMPLATES", "playlist_name", "playlist_params", "verify_playlist"]
