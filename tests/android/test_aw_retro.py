"""Retro Music on the simulated phone (``apps/retro``) and AndroidWorld's four Retro tasks: the songs
read from MP3 tags in the media store, a playlist made through the menus, the queue, "Save as
file" into Downloads, the databases as the real app keeps them; each task's oracle solves
AndroidWorld's instances 0-29 through the env; idling and near misses fail; draws and check rules
checked by hand against AndroidWorld's ``retro_music.py``."""

from __future__ import annotations

import datetime as dt
import random
import sqlite3

import pytest
from _aw import make, solve, start

from gui_gym.android.actions import parse_action
from gui_gym.android.sim.apps.retro import androidworld as aw
from gui_gym.android.sim.apps.retro.data import make_mp3, put_song, read_mp3, retro, songs
from gui_gym.android.sim.apps.retro.storage import PLAYBACK_DB, PLAYLIST_DB, decode_queue
from gui_gym.android.sim.device import Device
from gui_gym.android.sim.media import media
from gui_gym.android.sim.tasks import TASKS
from gui_gym.android.ui import Node

NOW = dt.datetime(2023, 10, 15, 15, 34)
IDS = ("RetroCreatePlaylist", "RetroPlayingQueue", "RetroPlaylistDuration", "RetroSavePlaylist")


def _act(dev: Device, action: str) -> str:
    out = dev.act(parse_action(action))
    assert out.valid, out.reason
    return out.description


def _node(dev: Device, **match: str) -> Node:
    return next(n for n in dev.elements() if all(getattr(n, k) == v for k, v in match.items()))


def _tap(dev: Device, **match: str) -> str:
    return _act(dev, f'do(action="Tap", element={list(_node(dev, **match).bounds)})')


def _menu_of(dev: Device, title: str) -> str:
    row = _node(dev, role="row", label=title)
    menu = next(c for c in row.children if c.rid.endswith(":id/menu"))
    return _act(dev, f'do(action="Tap", element={list(menu.bounds)})')


def _phone() -> Device:
    dev = Device()
    dev.reset(now=NOW)
    for i, (title, artist) in enumerate((("Night Drive", "Emma"), ("Moments", "Ali"), ("Golden Days", "Ava"))):
        put_song(dev, f"Music/{title}.mp3", title, artist, 200_000 + 1000 * i, NOW)
    _act(dev, 'do(action="Launch", app="Retro Music")')
    return dev


def test_the_songs_tab_lists_the_tagged_mp3s_by_title() -> None:
    dev = _phone()
    _tap(dev, desc="Songs", role="tab")
    titles = [n.text for n in dev.elements() if n.rid.endswith(":id/title")]
    assert titles == ["Golden Days", "Moments", "Night Drive"]
    assert _node(dev, role="row", label="Moments").children[2].text == "Ali"
    assert dev.top_activity() == "code.name.monkey.retromusic/code.name.monkey.retromusic.activities.MainActivity"


def test_a_playlist_made_through_the_menus_is_in_playlist_db_in_order() -> None:
    dev = _phone()
    _tap(dev, desc="Songs", role="tab")
    for i, title in enumerate(("Night Drive", "Golden Days")):
        _menu_of(dev, title)
        _tap(dev, text="Add to playlist")
        if i == 0:
            _tap(dev, text="New playlist")
            _act(dev, 'do(action="Type", text="Party Mix 3")')
            _tap(dev, text="CREATE")
        else:
            _tap(dev, text="Party Mix 3")
    assert aw.playlist_rows(dev) == [
        ("Party Mix 3", "Night Drive", 199_993, 0),
        ("Party Mix 3", "Golden Days", 202_004, 1),
    ]
    raw = PLAYLIST_DB.encode(retro(dev))
    con = sqlite3.connect(":memory:")
    con.deserialize(raw)
    query = aw_query()
    assert con.execute(query).fetchall() == [
        ("Party Mix 3", "Night Drive", 199_993, 0),
        ("Party Mix 3", "Golden Days", 202_004, 1),
    ]
    # the playlist exported: DocumentsUI on Downloads, <name>.m3u, the M3U the app writes
    _tap(dev, desc="Playlists", role="tab")
    _menu_of(dev, "Party Mix 3")
    _tap(dev, text="Save as file")
    assert dev.top_activity() == "com.google.android.documentsui/com.android.documentsui.picker.PickActivity"
    _tap(dev, text="SAVE")
    text = media(dev).files["Download/Party Mix 3.m3u"].data().decode()
    assert text.splitlines()[:3] == [
        "#EXTM3U",
        "#EXTINF:199993,Emma - Night Drive",
        "/storage/emulated/0/Music/Night Drive.mp3",
    ]


def aw_query() -> str:
    """AndroidWorld's ``_get_playlist_info_query`` (retro_music.py), as it reads playlist.db."""
    return """SELECT pe.playlist_name, se.title, se.duration,
        ROW_NUMBER() OVER (PARTITION BY pe.playlist_name ORDER BY se.song_key) - 1 AS o
        FROM PlaylistEntity pe JOIN SongEntity se ON pe.playlist_id = se.playlist_creator_id
        ORDER BY pe.playlist_name, o"""


def test_the_queue_is_kept_in_music_playback_state_in_order() -> None:
    dev = _phone()
    _tap(dev, desc="Songs", role="tab")
    for title in ("Night Drive", "Golden Days"):
        _menu_of(dev, title)
        _tap(dev, text="Add to playing queue")
    raw = PLAYBACK_DB.encode(retro(dev))
    con = sqlite3.connect(":memory:")
    con.deserialize(raw)
    assert [r[0] for r in con.execute("SELECT title from playing_queue;")] == ["Night Drive", "Golden Days"]
    assert [s.title for s in decode_queue(raw).queue] == ["Night Drive", "Golden Days"]
    _tap(dev, text="Moments")  # playing a song makes the queue the whole list
    assert [s.title for s in retro(dev).queue] == ["Golden Days", "Moments", "Night Drive"]


def test_mp3_tags_and_length_are_read_as_the_media_scanner_reads_them() -> None:
    tags = read_mp3(make_mp3("Dreamer's Awake", "Zoë", 3 * 60 * 1000))
    assert (tags.title, tags.artist) == ("Dreamer's Awake", "Zoë")
    assert abs(tags.duration - 180_000) <= 26  # one MPEG frame of 1152 samples at 44.1 kHz
    dev = Device()
    media(dev).add_file("Music/untagged.mp3", b"\xff\xfb\x90\xc4" + bytes(16_000 - 4), NOW)
    (song,) = songs(dev)
    assert (song.title, song.artist_name, song.duration) == ("untagged", "<unknown>", 1000)  # 128 kbit/s


@pytest.mark.parametrize("task_id", IDS)
def test_the_oracle_solves_androidworlds_instances(task_id: str) -> None:
    env = make(task_id)
    for seed in range(30):
        start(env, seed)
        info, _, reached = solve(env)
        assert info["success"], (seed, info.get("reason"))
        assert len(reached) == len(TASKS[task_id].milestones), seed
    env.close()


@pytest.mark.parametrize("task_id", IDS)
def test_idle_fails(task_id: str) -> None:
    env = make(task_id)
    _, dev = start(env, 3)
    task = TASKS[task_id]
    params = env.unwrapped._episode.params
    assert not task.check(dev, params, None, None)
    assert task.score(dev, params, None, None) == 0.0
    env.close()


def test_near_misses_fail() -> None:
    env = make("RetroSavePlaylist")
    _, dev = start(env, 0)
    params = env.unwrapped._episode.params
    task = TASKS["RetroSavePlaylist"]
    data = retro(dev)
    by_title = {s.title: s for s in songs(dev)}
    want = aw.titles(params["files"])
    playlist = data.create(params["playlist_name"])
    data.add(playlist, [by_title[t] for t in reversed(want)])  # the wrong order
    assert not TASKS["RetroCreatePlaylist"].check(dev, params, None, None)
    data.entries.clear()
    data.add(playlist, [by_title[t] for t in want])
    assert task.score(dev, params, None, None) == 0.5  # the playlist, not the file
    media(dev).add_file(f"Download/{params['playlist_name']}.m3u", b"#EXTM3U", NOW)
    assert task.score(dev, params, None, None) == 1.0
    # the queue: one song short
    queue_task = TASKS["RetroPlayingQueue"]
    data.queue = [by_title[t] for t in want[:-1]]
    assert not queue_task.check(dev, params, None, None)
    data.queue.append(by_title[want[-1]])
    assert queue_task.check(dev, params, None, None)
    env.close()


def test_duration_rule_counts_every_playlist() -> None:
    """``RetroPlaylistDuration.is_successful``: any row of another playlist fails; 45-50 minutes."""
    env = make("RetroPlaylistDuration")
    _, dev = start(env, 1)
    params = env.unwrapped._episode.params
    data = retro(dev)
    by_title = {s.title: s for s in songs(dev)}
    target = [by_title[t] for t in aw.titles(params["files"])]
    assert abs(sum(s.duration for s in target) - aw.TARGET_MS) < 26 * len(target)
    playlist = data.create(params["playlist_name"])
    data.add(playlist, target)
    assert TASKS["RetroPlaylistDuration"].check(dev, params, None, None)
    data.add(data.create("Other"), target[:1])
    assert not TASKS["RetroPlaylistDuration"].check(dev, params, None, None)
    env.close()


def test_draws_by_hand() -> None:
    """``_generate_playlist_name`` draws the number before the theme; ``generate_random_params``
    samples 15 songs then the count (retro_music.py)."""
    r = random.Random(7)
    number = r.randint(1, 999)
    theme = r.choice(aw.THEMES)
    songs15 = r.sample(aw.SONGS, 15)
    n = r.randint(2, 5)
    params = TASKS["RetroCreatePlaylist"].sample_seed(7)
    assert params["playlist_name"] == f"{theme} {number}"
    assert params["files"] == [f"{s}.mp3" for s in songs15[:n]]
    assert aw.list_with_sum(random.Random(0), 10, 3) == [6, 0, 4]  # cuts sorted(randint(0, 10) x2) = [6, 6]
