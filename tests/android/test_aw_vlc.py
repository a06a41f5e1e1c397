"""VLC on the simulated phone (``apps/vlc``) and AndroidWorld's MarkorTranscribeVideo (in
``apps/markor/androidworld.py``): the Video tab's grid (titles and lengths as VLC writes them,
groups by name), Browse down to Download, the player (the frame that shows follows the phone's
clock, in the pixels and not in the view tree; pause, seeking, the end, resuming), a pushed MP4
with its ``mvhd`` length; the task's oracle solves AndroidWorld's instances 0-29 through the env;
idling and near misses fail; a draw and the title rule checked by hand against their sources."""

from __future__ import annotations

import datetime as dt
import random

import numpy as np
import pytest
from _aw import make, solve, start

from gui_gym.android.actions import parse_action
from gui_gym.android.sim.apps.markor import androidworld as markor_aw
from gui_gym.android.sim.apps.vlc.app import VlcBrowser, VlcGroup, VlcMain, VlcPlayer, shown_frames
from gui_gym.android.sim.apps.vlc.data import media_title, ms_text
from gui_gym.android.sim.apps.vlc.oracle import watched
from gui_gym.android.sim.device import Device
from gui_gym.android.sim.media import media
from gui_gym.android.sim.render import Renderer
from gui_gym.android.sim.tasks import TASKS
from gui_gym.android.sim.tasks.androidworld import GIVEN_NAMES, random_string
from gui_gym.android.ui import Node, to_xml

ID = "MarkorTranscribeVideo"
NOW = dt.datetime(2023, 10, 15, 15, 34)
SIZE = (540, 1200)
FRAMES = [("edna", 8), ("pineapple", 8), ("walrus", 8)]


def _act(dev: Device, action: str) -> str:
    out = dev.act(parse_action(action))
    assert out.valid, out.reason
    return out.description


def _node(dev: Device, **match: str) -> Node:
    return next(n for n in dev.elements() if all(getattr(n, k) == v for k, v in match.items()))


def _tap(dev: Device, **match: str) -> str:
    return _act(dev, f'do(action="Tap", element={list(_node(dev, **match).bounds)})')


def _phone() -> Device:
    """A phone with a video of three 8-second frames in Download and a few more videos."""
    dev = Device()
    dev.reset(now=NOW)
    store = media(dev)
    store.add_video("Download/clip_3_.mp4", FRAMES, NOW)
    store.add_video("Download/recording_13_export_tNmI.mp4", [("abc", 40)], NOW)
    store.add_video("Download/recording_11__gIRH.mp4", [("xyz", 125)], NOW)
    store.add_video("Movies/2023_02_17_scene_34_4K.mp4", [("q", 3725)], NOW)
    _act(dev, 'do(action="Launch", app="VLC")')
    return dev


def _play(dev: Device) -> VlcPlayer:
    """Browse → Internal memory → Download → clip_3_.mp4."""
    _tap(dev, desc="Browse")
    _tap(dev, role="row", label="Internal memory")
    _tap(dev, role="row", label="Download")
    _tap(dev, role="row", label="clip_3_.mp4")
    player = dev.top_screen()
    assert isinstance(player, VlcPlayer)
    return player


def _frame_pixels(dev: Device, renderer: Renderer) -> np.ndarray:
    l, t, r, b = _node(dev, rid="org.videolan.vlc:id/surface_video").bounds
    shot = renderer.render(dev.screen())
    return shot[t // 2 : b // 2, l // 2 : r // 2]


def _wait(dev: Device, n: int = 1) -> None:
    for _ in range(n):
        _act(dev, 'do(action="Wait")')


# ----------------------------------------------------------------------------- the app


def test_the_video_tab_shows_titles_lengths_and_groups_by_name() -> None:
    dev = _phone()
    assert isinstance(dev.top_screen(), VlcMain)
    titles = [n.text for n in dev.elements() if n.rid.endswith(":id/ml_item_title")]
    times = [n.text for n in dev.elements() if n.rid.endswith(":id/ml_item_time")]
    # by name, case-insensitive; the two recordings share "recording_1" (more than six characters)
    assert titles == ["2023_02_17_scene_34_4K", "clip_3_", "recording_1"]
    assert times == ["1:02:05", "0:24", "2 videos"]
    assert _node(dev, label="clip_3_", role="row").desc == "Video: clip_3_"
    _tap(dev, label="recording_1", role="row")
    assert isinstance(dev.top_screen(), VlcGroup)
    inside = [n.text for n in dev.elements() if n.rid.endswith(":id/ml_item_title")]
    assert inside == ["recording_11__gIRH", "recording_13_export_tNmI"]
    assert [n.text for n in dev.elements() if n.rid.endswith(":id/ml_item_time")] == ["2:05", "0:40"]


def test_browse_leads_from_internal_memory_to_download() -> None:
    dev = _phone()
    _tap(dev, desc="Browse")
    assert _node(dev, role="row", label="Internal memory") is not None
    _tap(dev, role="row", label="Internal memory")
    s = dev.top_screen()
    assert isinstance(s, VlcBrowser) and s.folder == ""
    rows = [n.label for n in dev.elements() if n.rid.endswith(":id/browser_container")]
    assert rows[:6] == ["Alarms", "Android", "Audiobooks", "DCIM", "Documents", "Download"]
    download = _node(dev, role="row", label="Download")
    assert next(c.text for c in download.walk() if c.rid.endswith(":id/text")) == "3 *§*"  # three files
    assert download.desc == "Folder: Download, 3 media files"
    _tap(dev, role="row", label="Download")
    assert [n.label for n in dev.elements() if n.rid.endswith(":id/browser_container")] == [
        "clip_3_.mp4",
        "recording_11__gIRH.mp4",
        "recording_13_export_tNmI.mp4",
    ]
    _act(dev, 'do(action="Back")')
    assert isinstance(dev.top_screen(), VlcBrowser) and dev.top_screen().folder == ""


def test_the_player_shows_each_frame_in_turn_in_the_pixels_only() -> None:
    dev = _phone()
    renderer = Renderer(SIZE)
    player = _play(dev)
    xml = to_xml(dev.tree())
    assert "edna" not in xml and "pineapple" not in xml  # an image view: no text
    assert _node(dev, rid="org.videolan.vlc:id/player_overlay_time").text == "0:01"
    assert _node(dev, rid="org.videolan.vlc:id/player_overlay_length").text == "0:24"
    first = _frame_pixels(dev, renderer)
    _wait(dev, 2)  # 7 s: still the first frame
    assert np.array_equal(_frame_pixels(dev, renderer), first)
    _wait(dev)  # 10 s: the second
    assert player.position(dev) == 10
    second = _frame_pixels(dev, renderer)
    assert not np.array_equal(second, first)
    assert "pineapple" not in to_xml(dev.tree())
    assert shown_frames(dev, "Download/clip_3_.mp4") == {0, 1}
    _wait(dev, 3)  # 19 s: the third
    assert not np.array_equal(_frame_pixels(dev, renderer), second)
    assert watched(dev, "Download/clip_3_.mp4")


def test_the_controls_hide_after_four_seconds_and_a_tap_brings_them_back() -> None:
    dev = _phone()
    _play(dev)
    assert any(n.rid.endswith(":id/player_overlay_play") for n in dev.elements())
    _wait(dev, 2)
    assert not any(n.rid.endswith(":id/player_overlay_play") for n in dev.elements())
    _tap(dev, rid="org.videolan.vlc:id/player_root")
    assert _node(dev, rid="org.videolan.vlc:id/player_overlay_play").desc == "Pause"


def test_pause_holds_the_frame_and_the_seek_bar_moves_playback() -> None:
    dev = _phone()
    renderer = Renderer(SIZE)
    player = _play(dev)
    _tap(dev, desc="Pause")  # at 0:01
    assert player.started is None and _node(dev, desc="Play") is not None
    still = _frame_pixels(dev, renderer)
    _wait(dev, 5)  # paused: the controls stay, the picture does not change
    assert _node(dev, rid="org.videolan.vlc:id/player_overlay_time").text == "0:01"
    assert np.array_equal(_frame_pixels(dev, renderer), still)
    bar = _node(dev, rid="org.videolan.vlc:id/player_overlay_seekbar")
    l, t, r, b = bar.bounds
    x = l + (r - l) * 17 // 24  # 17 s of 24: the third frame
    _act(dev, f'do(action="Tap", element=[{x - 1},{t},{x + 1},{b}])')
    assert int(player.position(dev)) == 16 and player.started is None
    assert _node(dev, rid="org.videolan.vlc:id/player_overlay_time").text == "0:16"
    assert shown_frames(dev, "Download/clip_3_.mp4") == {0, 2}  # the paused pictures; 8-16 s never showed
    third = _frame_pixels(dev, renderer)
    assert not np.array_equal(third, still)
    # A swipe drags the thumb from where the finger lands (the bar's middle, 12 s) by a share of the bar.
    _act(dev, f'do(action="Swipe", element={list(bar.bounds)}, direction="left", dist="short")')  # finger left
    assert player.position(dev) == 6  # 12 s less a quarter of 24 s
    x = l + (r - l) * 10 // 24
    _act(dev, f'do(action="Tap", element=[{x - 1},{t},{x + 1},{b}])')
    assert shown_frames(dev, "Download/clip_3_.mp4") == {0, 1, 2}
    _tap(dev, desc="Play")
    assert player.started is not None


def test_the_player_closes_at_the_end_and_vlc_keeps_what_was_played() -> None:
    dev = _phone()
    _play(dev)
    _wait(dev, 8)  # 25 s of a 24-second video
    dev.elements()  # the screen as it shows now (the env observes it after each step)
    assert isinstance(dev.top_screen(), VlcBrowser)  # back to the list
    row = dev.data("vlc").by_path("Download/clip_3_.mp4")
    assert row.play_count == 1 and row.last_time == -1  # played to the end: nothing to resume
    # Leaving half-way keeps the position, and opening it again asks whether to resume.
    _tap(dev, role="row", label="clip_3_.mp4")
    _wait(dev, 3)
    _act(dev, 'do(action="Back")')
    assert row.last_time == 10_000
    _tap(dev, role="row", label="clip_3_.mp4")
    assert dev.top_screen().dialog is not None
    assert "Resume from last position?" in to_xml(dev.tree())
    _tap(dev, text="RESUME")
    assert dev.top_screen().position(dev) == 11  # 10 s, and the tap's second


def test_a_pushed_mp4_lists_with_its_mvhd_length_and_plays_black() -> None:
    dev = _phone()
    raw = media(dev).files["Download/clip_3_.mp4"].data()  # an MP4 as the phone writes one: 24 s
    media(dev).add_file("Download/pushed.mp4", raw, NOW)
    _act(dev, 'do(action="Back")')
    _act(dev, 'do(action="Launch", app="VLC")')
    times = {
        next(c.text for c in n.walk() if c.rid.endswith(":id/ml_item_title")): next(
            (c.text for c in n.walk() if c.rid.endswith(":id/ml_item_time")), ""
        )
        for n in dev.elements()
        if n.role == "row" and n.desc.startswith("Video")
    }
    assert times["pushed"] == "0:24"
    _tap(dev, role="row", label="pushed")
    player = dev.top_screen()
    assert isinstance(player, VlcPlayer) and player.length(dev) == 24
    renderer = Renderer(SIZE)
    pixels = _frame_pixels(dev, renderer)
    assert pixels.max() < 10  # undecoded: a black picture
    assert _node(dev, rid="org.videolan.vlc:id/player_overlay_length").text == "0:24"


def test_titles_and_times_are_vlcs() -> None:
    # medialibrary (the revision VLC 3.5.4 pins, 981f8867) test/unittest/TitleAnalyzerTests.cpp cases
    assert media_title("xvid sea 1080p otter bluray") == "sea otter"
    assert media_title("word - word") == "word word"
    assert media_title("Audio track is DDP.5.1") == "Audio track is"
    assert media_title("Game.of.Thrones.S08E02.1080p.WEB.x264-ADRENALiNE[ettv]") == "Game of Thrones S08E02"
    # underscores are word characters to the rules: AndroidWorld's names only lose their extension
    assert media_title("tT3Q_episode_80_.mp4") == "tT3Q_episode_80_"
    assert [ms_text(ms) for ms in (0, 8_000, 180_000, 3_725_000)] == ["0:00", "0:08", "3:00", "1:02:05"]


# ----------------------------------------------------------------------------- the task


def test_the_draws_are_androidworlds() -> None:
    # android_world task_evals/single/markor.py MarkorTranscribeVideo.generate_random_params: the number
    # of names (randint(2, 4)), random.sample of COMMON_GIVEN_NAMES, vlc.generate_file_name (prefix,
    # suffix, randint(1, 99), then generate_modified_file_name), the noise names' count, each a name.
    r = random.Random(0)
    k = r.randint(2, 4)
    names = r.sample(GIVEN_NAMES, k)
    prefix = r.choice(["clip", "footage", "scene", "recording", "highlight", "moment", "episode"])
    suffix = r.choice(["", "HD", "4K", "raw", "export"])
    num = r.randint(1, 99)
    p = TASKS[ID].sample_seed(0)
    assert (names, prefix, suffix, num) == (["Louis", "Alice", "Hana"], "highlight", "raw", 52)
    assert p["messages"] == names and p["text"] == "Louis,Alice,Hana"
    assert p["video_name"] == "highlight_52_raw_w3ni.mp4"
    assert p["file_name"] == "highlight_52_raw_w3ni_transcription.txt"
    # initialize_task: random.seed(seed), then per noise file write_video_file_to_device(file, ...,
    # messages=[generate_random_string(10)], fps=1, message_display_time=random.randint(20, 180)):
    # the keyword arguments are evaluated left to right, the string first.
    env = make(ID, obs_mode="text")
    _, dev = start(env, 0)
    r = random.Random(0)
    for name in p["noise_files"]:
        text = random_string(r, 10)
        assert media(dev).files[f"Download/{name}"].frames == ((text, r.randint(20, 180)),)
    assert media(dev).files["Download/highlight_52_raw_w3ni.mp4"].frames == (
        ("Louis", 8),
        ("Alice", 8),
        ("Hana", 8),
    )
    env.close()


def test_the_oracle_solves_androidworlds_instances() -> None:
    env, task = make(ID, obs_mode="text"), TASKS[ID]
    for seed in range(30):
        info0, _ = start(env, seed)
        info, actions, reached = solve(env)
        assert info["success"] is True, (seed, actions[-3:])
        assert len(actions) < env.unwrapped._limit, seed
        assert list(info0["milestones"]) + reached == task.milestone_texts(env.unwrapped.params), seed
    env.close()


def test_idling_fails() -> None:
    env = make(ID, obs_mode="text")
    for seed in range(3):
        start(env, seed)
        _, reward, term, _, info = env.step("finish()")
        assert term and info["success"] is False and reward == 0.0
    env.close()


@pytest.mark.parametrize(
    "text, name, ok",
    [
        ("Louis, Alice, Hana", None, True),  # the goal's ", ": within the fuzzy match
        ("Louis,Alice,Hana\n", None, True),
        ("Louis, Alice", None, False),  # a frame left out
        ("Louis, Alice, Hanna, Bob", None, False),
        ("Louis, Alice, Hana", "highlight_52_raw_w3ni_transcription.md", False),  # another file
    ],
)
def test_near_misses_fail(text: str, name: str | None, ok: bool) -> None:
    env = make(ID, obs_mode="text")
    _, dev = start(env, 0)
    p = env.unwrapped.params
    markor_aw.notebook(dev).write(name or p["file_name"], text, dev.state.now)
    assert TASKS[ID].check(dev, p, None, "complete") is ok
    env.close()


# ----------------------------------------------------------------------------- playlists (AndroidWorld vlc.py)

PLAYLIST_IDS = ("VlcCreatePlaylist", "VlcCreateTwoPlaylists")


def test_add_to_playlist_creates_a_playlist_and_appends_in_order() -> None:
    from gui_gym.android.sim.apps.vlc.app import ContextSheet, SavePlaylistDialog, VlcPlaylist
    from gui_gym.android.sim.apps.vlc.storage import DATABASE

    dev = _phone()
    _tap(dev, desc="Browse")
    _tap(dev, role="row", label="Internal memory")
    _tap(dev, role="row", label="Download")
    row = _node(dev, role="row", label="recording_11__gIRH.mp4")
    more = next(c for c in row.walk() if c.desc == "More Actions")
    assert more.rid == "org.videolan.vlc:id/item_more"
    _act(dev, f'do(action="Tap", element={list(more.bounds)})')
    sheet = dev.top_screen().dialog
    assert isinstance(sheet, ContextSheet) and sheet.title == "recording_11__gIRH"
    _tap(dev, text="Add to playlist")
    assert isinstance(dev.top_screen().dialog, SavePlaylistDialog)
    texts = [n.text for n in dev.elements() if n.text]
    assert texts[:4] == ["Add to new playlist", "1 media", "Playlist name", "SAVE"] and "No playlist found." in texts
    _tap(dev, label="Playlist name", role="field")
    _act(dev, 'do(action="Type", text="Road Trips Series")')  # Enter (actionSend) creates it
    assert dev.top_screen().dialog is None
    row = _node(dev, role="row", label="clip_3_.mp4")
    _act(dev, f'do(action="Tap", element={list(next(c for c in row.walk() if c.desc == "More Actions").bounds)})')
    _tap(dev, text="Add to playlist")
    _tap(dev, role="row", label="Road Trips Series")  # an existing playlist: appended
    data = dev.data("vlc")
    assert data.playlist_rows() == [
        ("Road Trips Series", "recording_11__gIRH.mp4", 0),
        ("Road Trips Series", "clip_3_.mp4", 1),
    ]
    # the same name again is refused, as SavePlaylistDialog does
    _act(dev, f'do(action="Tap", element={list(next(c for c in row.walk() if c.desc == "More Actions").bounds)})')
    _tap(dev, text="Add to playlist")
    _tap(dev, label="Playlist name", role="field")
    _act(dev, 'do(action="Type", text="Road Trips Series")')
    assert "Playlist Road Trips Series already exists" in [n.text for n in dev.elements()]
    _act(dev, 'do(action="Back")')
    _act(dev, 'do(action="Back")')
    # the Playlists tab lists it; it opens on its videos in order
    _act(dev, 'do(action="Back")')
    _act(dev, 'do(action="Back")')
    _tap(dev, desc="Playlists")
    _tap(dev, role="row", label="Road Trips Series")
    assert isinstance(dev.top_screen(), VlcPlaylist)
    assert [n.label for n in dev.elements() if n.role == "row"] == ["recording_11__gIRH", "clip_3_"]
    # vlc_media.db as the served phone shows it, read back the same
    back = DATABASE.decode(DATABASE.encode(data))
    assert back.playlist_rows() == data.playlist_rows()


@pytest.mark.parametrize("task_id", PLAYLIST_IDS)
def test_the_playlist_oracles_solve_androidworlds_instances(task_id: str) -> None:
    env, task = make(task_id, obs_mode="text"), TASKS[task_id]
    for seed in range(30):
        info0, dev = start(env, seed)
        p = env.unwrapped.params
        info, actions, reached = solve(env)
        assert len(actions) < env.unwrapped._limit, seed
        milestones = list(info0["milestones"]) + reached
        if p.get("playlist_name1", 1) == p.get("playlist_name2"):
            # Both playlists drawn with the same name (instance 14): verify_playlist counts the rows of
            # every playlist of that name, which cannot be both len(files1) and len(files2), and VLC
            # refuses a second playlist of a name: the first one is the most there is (0.5).
            assert task.score(dev, p, None, "complete") == 0.5 and info["success"] is False, seed
            assert milestones == task.milestone_texts(p)[:4], seed  # "created" the second: the same name
            continue
        assert info["success"] is True and info["progress"] == 1.0, (seed, actions[-3:])
        assert milestones == task.milestone_texts(p), seed
    env.close()


@pytest.mark.parametrize("task_id", PLAYLIST_IDS)
def test_the_playlist_tasks_fail_when_idle(task_id: str) -> None:
    env = make(task_id, obs_mode="text")
    for seed in range(3):
        _, dev = start(env, seed)
        assert not dev.data("vlc").playlists
        _, reward, term, _, info = env.step("finish()")
        assert term and info["success"] is False and reward == 0.0, seed
    env.close()


def _playlist(dev: Device, name: str, files: list[str]) -> None:
    from gui_gym.android.sim.apps.vlc.data import library

    data = library(dev)
    p = data.create_playlist(name, 0)
    for f in files:
        data.append(p.id_playlist, data.by_path(f"VLCVideos/{f}").id_media)


def test_the_playlist_near_misses_fail() -> None:
    task = TASKS["VlcCreatePlaylist"]
    env = make("VlcCreatePlaylist", obs_mode="text")
    _, dev = start(env, 0)
    p = env.unwrapped.params
    files = p["files"]
    _playlist(dev, p["playlist_name"], list(reversed(files)))  # the wrong order
    assert not task.check(dev, p, None, "complete")
    dev.data("vlc").playlists.clear()
    _playlist(dev, p["playlist_name"], files[:-1])  # a file left out
    assert not task.check(dev, p, None, "complete")
    dev.data("vlc").playlists.clear()
    _playlist(dev, p["playlist_name"], [*files, p["noise_files"][0]])  # a noise file too
    assert not task.check(dev, p, None, "complete")
    dev.data("vlc").playlists.clear()
    _playlist(dev, "Summer Highlights", files)  # another name
    assert not task.check(dev, p, None, "complete")
    dev.data("vlc").playlists.clear()
    _playlist(dev, p["playlist_name"].lower() + ".", files)  # fuzzy_match: case and a dot do not count
    assert task.check(dev, p, None, "complete")
    env.close()


def test_two_playlists_score_half_for_one() -> None:
    task = TASKS["VlcCreateTwoPlaylists"]
    env = make("VlcCreateTwoPlaylists", obs_mode="text")
    _, dev = start(env, 1)
    p = env.unwrapped.params
    _playlist(dev, p["playlist_name1"], p["files1"])
    assert task.score(dev, p, None, "complete") == 0.5 and not task.check(dev, p, None, "complete")
    _playlist(dev, p["playlist_name2"], p["files2"])
    assert task.score(dev, p, None, "complete") == 1.0
    env.close()


def test_the_playlist_draws_and_check_by_hand() -> None:
    from gui_gym.android.sim.apps.vlc.androidworld import QUALIFIERS, THEMES

    # vlc.py VlcCreatePlaylist.generate_random_params: _generate_playlist_name (random.choice of the
    # 16 themes, then of the 7 qualifiers), num_files = randint(2, 5), the files, then as many noise
    # files, each generate_file_name (prefix, suffix, randint(1, 99), generate_modified_file_name).
    r = random.Random(1)
    name = f"{r.choice(THEMES)} {r.choice(QUALIFIERS)}"
    n = r.randint(2, 5)
    p = TASKS["VlcCreatePlaylist"].sample_seed(1)
    assert (name, n) == (p["playlist_name"], len(p["files"])) == ("Epic Moments Series", 2)
    assert p["files"] == ["scene_64__OWfb.mp4", "edited_episode_56_raw.mp4"]
    # initialize_task: per file, then per noise file, messages=[generate_random_string(10)] then
    # message_display_time=random.randint(20, 180), after random.seed(seed); written to VLCVideos.
    env = make("VlcCreatePlaylist", obs_mode="text")
    _, dev = start(env, 1)
    r = random.Random(1)
    for f in [*p["files"], *p["noise_files"]]:
        text = random_string(r, 10)
        assert media(dev).files[f"VLCVideos/{f}"].frames == ((text, r.randint(20, 180)),)
    # sqlite_validators.verify_playlist: the rows whose playlist name fuzzy-matches must number
    # exactly len(files), and file i must sit at position i (VLC's positions count from 0)
    _playlist(dev, "Epic Moments Series", ["scene_64__OWfb.mp4", "edited_episode_56_raw.mp4"])
    assert dev.data("vlc").playlist_rows() == [
        ("Epic Moments Series", "scene_64__OWfb.mp4", 0),
        ("Epic Moments Series", "edited_episode_56_raw.mp4", 1),
    ]
    assert TASKS["VlcCreatePlaylist"].check(dev, p, None, "complete")
    env.close()


def test_androidworlds_query_reads_the_served_database() -> None:
    """AndroidWorld's ``_get_playlist_info_query`` run on ``vlc_media.db`` as the phone writes it; its
    set-up's ``DELETE FROM`` of the three tables, pushed back, leaves the videos to be indexed again."""
    import sqlite3

    from gui_gym.android.sim.apps.vlc.data import library
    from gui_gym.android.sim.apps.vlc.storage import DATABASE

    dev = _phone()
    _playlist_dev = library(dev)
    pl = _playlist_dev.create_playlist("Comedy Favorites", 0)
    _playlist_dev.append(pl.id_playlist, _playlist_dev.by_path("Download/clip_3_.mp4").id_media)
    con = sqlite3.connect(":memory:")
    con.deserialize(DATABASE.encode(_playlist_dev))
    query = (
        "SELECT Playlist.name AS playlist_name, Media.filename AS media_file_name, PlaylistMediaRelation.position"
        " AS order_in_playlist FROM PlaylistMediaRelation INNER JOIN Playlist ON Playlist.id_playlist ="
        " PlaylistMediaRelation.playlist_id INNER JOIN Media ON Media.id_media = PlaylistMediaRelation.media_id"
        " ORDER BY Playlist.name, PlaylistMediaRelation.position"
    )
    assert con.execute(query).fetchall() == [("Comedy Favorites", "clip_3_.mp4", 0)]
    for table in ("Playlist", "Media", "PlaylistMediaRelation"):
        con.execute(f"DELETE FROM {table}")
    con.commit()
    cleared = DATABASE.decode(con.serialize())
    assert not cleared.playlists and not cleared.media and not cleared.playlist_media
    dev.state.data["vlc"] = cleared
    assert len(library(dev).media) == 4  # the videos on the phone, indexed again
