"""OsmAnd on the simulated phone (``apps/osmand``) and AndroidWorld's OsmAndFavorite and
OsmAndMarker: search, the context menu's "Add" and "Marker", favourites as ``favorites.gpx`` and
markers in ``map_markers_db``; each oracle solves AndroidWorld's instances 0-29 through the env;
idling and near misses fail; draws and check rules checked by hand against AndroidWorld's
``task_evals/single/osmand.py``."""

from __future__ import annotations

import random
import sqlite3
from xml.etree import ElementTree as ET

import pytest
from _aw import make, solve, start

from gui_gym.android.sim.apps.osmand import androidworld as aw
from gui_gym.android.sim.apps.osmand.data import Favorite, Marker, OsmAndData, find, osmand
from gui_gym.android.sim.apps.osmand.storage import (
    decode_favorites,
    decode_markers,
    encode_favorites,
    encode_markers,
)
from gui_gym.android.sim.storage import StorageError

IDS = ("OsmAndFavorite", "OsmAndMarker")  # OsmAndTrack: below


@pytest.mark.parametrize("task_id", IDS)
def test_the_oracle_solves_androidworlds_instances(task_id: str) -> None:
    env = make(task_id)
    for seed in range(30):
        start(env, seed)
        info, actions, reached = solve(env)
        assert info["success"], (seed, actions)
        assert len(reached) == 3, (seed, reached)
        assert len(actions) <= 8


@pytest.mark.parametrize("task_id", IDS)
def test_idle_fails(task_id: str) -> None:
    env = make(task_id)
    _, dev = start(env, 3)
    assert not env.unwrapped.task.check(dev, env.unwrapped.params, None, None)


def test_near_misses_fail() -> None:
    env = make("OsmAndFavorite")
    _, dev = start(env, 0)  # Rotenboden, Liechtenstein (47.1275785, 9.5387131)
    task, params = env.unwrapped.task, env.unwrapped.params
    assert params["location"] == "Rotenboden, Liechtenstein"
    # a favourite 0.0015 degrees away, named otherwise: outside AndroidWorld's 0.001 box
    osmand(dev).favorites.append(Favorite("Home", 47.1290785, 9.5387131))
    assert not task.check(dev, params, None, None)
    # the right point as a marker is not a favourite
    osmand(dev).markers.append(Marker("m", 47.1275785, 9.5387131))
    assert not task.check(dev, params, None, None)
    osmand(dev).favorites.append(Favorite("Home 2", 47.1280, 9.5390))  # within 0.001 on both axes
    assert task.check(dev, params, None, None)

    env = make("OsmAndMarker")
    _, dev = start(env, 2)  # "47.0688832, 9.5061564" (Balzers' coordinates)
    task, params = env.unwrapped.task, env.unwrapped.params
    osmand(dev).favorites.append(Favorite("Balzers", 47.0688832, 9.5061564))
    osmand(dev).markers.append(Marker("m", 47.0688832, 9.5081564))  # 0.002 east
    assert not task.check(dev, params, None, None)


def test_draws_and_rules_by_hand() -> None:
    # osmand.py, _random_location_str: random.sample of the 12 names, then getrandbits(1):
    # 1 keeps the name, 0 gives f"{lat}, {lon}".
    r = random.Random(2)
    name = r.sample(sorted(aw.LOCATIONS), 1)[0]
    bit = r.getrandbits(1)
    assert (name, bit) == ("Balzers, Liechtenstein", 0)
    assert aw.random_locations(random.Random(2)) == ["47.0688832, 9.5061564"]
    # _parse_coords / _coords_match (strict < 0.001 on each axis); _waypoint_matches_location
    # also accepts a name containing the location text.
    assert aw.location_coords("47.0688832, 9.5061564") == (47.0688832, 9.5061564)
    assert aw.coords_match((47.0, 9.5), (47.0009, 9.4991))
    assert not aw.coords_match((47.0, 9.5), (47.0011, 9.5))
    assert aw.favorite_matches(Favorite("My Triesen, Liechtenstein spot", 0.0, 0.0), "Triesen, Liechtenstein")
    assert not aw.favorite_matches(Favorite("Triesen", 0.0, 0.0), "Triesen, Liechtenstein")


def test_search_finds_names_and_coordinates() -> None:
    assert [p.name for p in find("Schaan")] == ["Schaan", "Schaanwald"]
    assert [p.name for p in find("planken, liechtenstein")] == ["Planken"]
    (point,) = find("47.0688832, 9.5061564")
    assert (point.lat, point.lon, point.name) == (47.0688832, 9.5061564, "")
    assert find("Vaduz") == []


def test_files_as_the_app_keeps_them_and_as_androidworld_rewrites_them() -> None:
    data = OsmAndData([Favorite("Triesen", 47.106997, 9.5274854, "2023-10-15T15:34:00Z")])
    raw = encode_favorites(data)
    ns = {"gpx": "http://www.topografix.com/GPX/1/1"}
    root = ET.fromstring(raw)
    (wpt,) = root.findall("gpx:wpt", ns)
    assert (wpt.get("lat"), wpt.find("gpx:name", ns).text) == ("47.106997", "Triesen")
    # _clear_favorites removes the wpts and writes the tree back with ElementTree (ns0: prefixes)
    tree = ET.ElementTree(root)
    import io

    out = io.BytesIO()
    tree.write(out)
    assert decode_favorites(out.getvalue()).favorites[0].name == "Triesen"
    root.remove(wpt)
    out = io.BytesIO()
    ET.ElementTree(root).write(out)
    assert decode_favorites(out.getvalue()).favorites == []
    for bad in (b"not xml", b"<kml/>", b'<gpx><wpt lat="x" lon="1"/></gpx>', b"<!DOCTYPE gpx [<!ENTITY a 'b'>]><gpx/>"):
        with pytest.raises(StorageError):
            decode_favorites(bad)
    # map_markers with MapMarkersDbHelper's columns, read by name as OsmAndMapMarker reads them
    raw = encode_markers(OsmAndData(markers=[Marker("k1", 47.1, 9.5, title="X")]))
    con = sqlite3.connect(":memory:")
    con.deserialize(raw)
    con.row_factory = sqlite3.Row
    (row,) = con.execute("SELECT * FROM map_markers").fetchall()
    assert (row["marker_id"], row["marker_lat"], row["marker_lon"], row["marker_active"]) == ("k1", 47.1, 9.5, 1)
    con.execute("DELETE FROM map_markers")
    con.commit()
    assert decode_markers(con.serialize()).markers == []


# ----------------------------------------------------------------------------- OsmAndTrack


def test_track_oracle_solves_androidworlds_instances() -> None:
    env = make("OsmAndTrack")
    for seed in range(30):
        start(env, seed)
        info, actions, reached = solve(env)
        assert info["success"], (seed, actions)
        assert len(reached) == 4, (seed, reached)
        assert len(actions) <= 30


def test_track_idle_and_near_misses_fail() -> None:
    from gui_gym.android.sim.apps.osmand.tracks import TRACKS, encode_track
    from gui_gym.android.sim.media import media

    env = make("OsmAndTrack")
    _, dev = start(env, 1)  # Schaanwald, then Bendern
    task, params = env.unwrapped.task, env.unwrapped.params
    assert params["waypoints"] == ["Schaanwald, Liechtenstein", "Bendern, Liechtenstein"]
    assert not task.check(dev, params, None, None)
    schaanwald, bendern = aw.LOCATIONS["Schaanwald, Liechtenstein"], aw.LOCATIONS["Bendern, Liechtenstein"]
    when = dev.state.now
    store = media(dev)
    store.add_file(f"{TRACKS}/reversed.gpx", encode_track("r", [bendern, schaanwald]), when)  # wrong order
    store.add_file(f"{TRACKS}/one.gpx", encode_track("o", [schaanwald]), when)  # a waypoint missing
    far = (bendern[0] + 0.0015, bendern[1])  # outside AndroidWorld's 0.001 box
    store.add_file(f"{TRACKS}/far.gpx", encode_track("f", [schaanwald, far]), when)
    store.add_file("Download/t.gpx", encode_track("d", [schaanwald, bendern]), when)  # not in tracks/
    assert not task.check(dev, params, None, None)
    # points between the waypoints are allowed
    store.add_file(f"{TRACKS}/ok.gpx", encode_track("k", [(47.0, 9.5), schaanwald, (47.1, 9.5), bendern]), when)
    assert task.check(dev, params, None, None)
    # the set-up empties the folder again
    env.reset(options={"params": {"seed": 1}})
    assert media(env.unwrapped.backend.device).folder(TRACKS) == []


def test_track_draws_and_rule_by_hand() -> None:
    # osmand.py, OsmAndTrack.generate_random_params: random.randint(2, 4), then
    # _random_location_str(names_only=True): random.sample of the 12 names, no bit drawn;
    # track_name "<first> to <last>".
    r = random.Random(1)
    n = r.randint(2, 4)
    names = r.sample(list(aw.LOCATIONS), n)
    assert (n, names) == (2, ["Schaanwald, Liechtenstein", "Bendern, Liechtenstein"])
    params = aw.OsmAndTrack().generate(random.Random(1))
    assert params == {"track_name": "Schaanwald, Liechtenstein to Bendern, Liechtenstein", "waypoints": names}
    # _track_matches: targets matched in order, each within 0.001 (strict) on both axes
    t = [(47.0, 9.0), (47.5, 9.5)]
    assert aw.track_matches([(47.0005, 9.0), (1.0, 1.0), (47.5, 9.4995)], t)
    assert not aw.track_matches([(47.5, 9.5), (47.0, 9.0)], t)
    assert not aw.track_matches([(47.0011, 9.0), (47.5, 9.5)], t)
