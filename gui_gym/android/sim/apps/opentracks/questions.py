"""AndroidWorld's information-retrieval tasks on OpenTracks (``proto/tasks.textproto``,
``SportsTracker*``).

Each is defined by AndroidWorld's data (:mod:`gui_gym.android.sim.tasks.information`): the goal
and parameters are drawn as AndroidWorld draws them (dates reworded), and the start state is what
its ``activity_app_utils.setup_task_state`` writes: the relevant activities (their distance
rounded to what the app shows in miles, and that rounded distance is the one the answer uses),
then 20 noise activities in the two weeks before the device's clock (noise that would change the
answer drawn again), shuffled and inserted as ``tracks`` rows. The answer is judged as
AndroidWorld's ``check_agent_answer`` judges it (distances within 10 m).

The expert opens the app, scrolls the track list until every track of the answer shows (each
row: name, date, time, total time, distance in miles, category) and answers; a distance is read
in miles and given in meters.

``uuid``: AndroidWorld's come from ``uuid4`` (drawing nothing from ``random``); here from a
generator of the instance's own, so a seed always gives the same rows.
"""

from __future__ import annotations

import datetime as dt
import random
from typing import TYPE_CHECKING, Any, ClassVar

from gui_gym.android.sim.apps.opentracks.app import ITEM_H, TrackList
from gui_gym.android.sim.apps.opentracks.data import LABEL, MILE, OpenTracksData, Row
from gui_gym.android.sim.tasks.androidworld import DEVICE_TIME
from gui_gym.android.sim.tasks.base import Milestone, Oracle, Params, in_app
from gui_gym.android.sim.tasks.information import (
    DATE_FORMAT,
    Exclusion,
    PromptQuestion,
    compare,
    parse_date,
    random_datetime,
    show_row,
    to_datetime,
    unix_seconds,
)

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

#: noise activities of a SportsTracker task (``setup_task_state``'s 20)
NOISE = 20

#: ``activity_app_utils._CATEGORY_TO_ACTIVITY_NAMES``: noise activities' categories and names
CATEGORY_TO_NAMES: dict[str, tuple[str, ...]] = {
    "biking": (
        "Scenic Cycling", "Bike Tour", "Trail Ride", "Bicycle Adventure", "Pedal Excursion",
        "Cycle Trip", "Off-road Cycling", "Mountain Biking", "Road Cycling", "Bike Expedition",
    ),
    "running": (
        "Trail Run", "Road Run", "Jogging", "Running Adventure", "Sprint Session",
        "Trail Jog", "Long Distance Run", "Morning Run", "Evening Run", "Running Challenge",
    ),
    "hiking": (
        "Trail Hike", "Mountain Trek", "Hiking Excursion", "Nature Walk", "Outdoor Hike",
        "Scenic Hike", "Mountain Hike", "Wilderness Hike", "Hill Walk", "Nature Hike",
    ),
    "swimming": (
        "Pool Swim", "Open Water Swim", "Swim Workout", "Swim Session", "Swimming Adventure",
        "Lap Swim", "Swim Training", "Water Exercise", "Swimming Excursion", "Swim Challenge",
    ),
    "walking": (
        "Neighborhood Walk", "Evening Stroll", "Morning Walk", "Urban Walk", "Nature Walk",
        "City Stroll", "Trail Walk", "Casual Walk", "Power Walk", "Brisk Walk",
    ),
    "skiing": (
        "Ski Trip", "Slope Session", "Alpine Skiing", "Downhill Skiing", "Cross-country Skiing",
        "Backcountry Skiing", "Powder Day", "Snow Adventure", "Winter Skiing", "Ski Expedition",
    ),
    "snowboarding": (
        "Snowboard Trip", "Freestyle Session", "Slope Riding", "Snowboard Adventure", "Snowboarding Excursion",
        "Powder Ride", "Mountain Snowboarding", "Backcountry Snowboarding", "Snowboard Challenge", "Snowboard Trek",
    ),
    "kayaking": (
        "Kayak Tour", "Paddling Adventure", "Kayak Excursion", "River Paddle", "Lake Kayaking",
        "Sea Kayaking", "Kayak Expedition", "Waterway Paddle", "Kayak Journey", "Paddle Outing",
    ),
    "rowing": (
        "Rowing Adventure", "Crew Session", "Lake Rowing", "River Rowing", "Rowing Excursion",
        "Rowing Challenge", "Rowing Workout", "Rowing Trek", "Rowing Expedition", "Sculling Session",
    ),
    "sailing": (
        "Sailing Trip", "Sailing Adventure", "Sailboat Ride", "Boat Tour", "Yacht Sailing",
        "Sailing Excursion", "Nautical Adventure", "Sailing Expedition", "Windward Sailing", "Sailboat Expedition",
    ),
    "skateboarding": (
        "Skateboard Session", "Urban Skate", "Skatepark Session", "Skateboard Adventure", "Street Skateboarding",
        "Skateboarding Excursion", "Skateboard Trek", "Skateboard Ride", "Skateboard Challenge",
        "Skateboard Exploration",
    ),
    "surfing": (
        "Surf Session", "Beach Surfing", "Wave Riding", "Surfing Adventure", "Surfing Excursion",
        "Surfboard Session", "Surfing Challenge", "Surf Trek", "Surfing Expedition", "Wave Exploration",
    ),
    "climbing": (
        "Rock Climbing", "Indoor Climbing", "Bouldering", "Climbing Adventure", "Climbing Excursion",
        "Crag Climbing", "Mountain Climbing", "Rock Climbing Challenge", "Climbing Session", "Climbing Expedition",
    ),
    "mountain biking": (
        "Mountain Bike Ride", "Trail Biking", "MTB Adventure", "Mountain Biking Excursion", "Off-road Biking",
        "Dirt Biking", "Mountain Bike Expedition", "Singletrack Session", "MTB Trek", "Trail Riding",
    ),
    "road biking": (
        "Road Bike Ride", "Cycling Adventure", "Road Cycling", "Long Distance Ride", "Bike Touring",
        "Road Bike Session", "Countryside Cycling", "City Cycling", "Bike Commute", "Road Riding",
    ),
    "trail running": (
        "Trail Run", "Off-road Running", "Trail Jog", "Trail Running Adventure", "Trail Run Session",
        "Trail Running Challenge", "Long Distance Trail Run", "Trail Run Expedition", "Trail Running Trek",
        "Off-road Run",
    ),
    "trail hiking": (
        "Trail Hike", "Hiking Adventure", "Nature Hike", "Mountain Trail Hike", "Scenic Hiking",
        "Trail Trek", "Trail Walking", "Off-road Hike", "Trail Hiking Excursion", "Hiking Expedition",
    ),
    "cycling": (
        "Scenic Cycling", "Bike Tour", "Trail Ride", "Bicycle Adventure", "Pedal Excursion",
        "Cycle Trip", "Off-road Cycling", "Mountain Biking", "Road Cycling", "Bike Expedition",
    ),
    "paddling": (
        "Boat Tour", "Paddle Adventure", "River Paddle", "Lake Paddling", "Sea Paddling",
        "Boating Expedition", "Waterway Paddle", "Paddle Journey", "Paddle Outing", "Canoeing Adventure",
    ),
}  # fmt: skip
_CATEGORIES = tuple(CATEGORY_TO_NAMES)


def _db(dev: Device) -> OpenTracksData:
    return dev.data("opentracks")


def rounded_distance(meters: float) -> int:
    """``_distance_rounding_error_conversion``: to miles with two decimals (what the app shows)
    and back to whole meters."""
    return round(round(meters * (1.0 / MILE), 2) * MILE)


def _uuids(seed: Any) -> Any:
    g = random.Random(f"opentracks uuid {seed}")
    while True:
        yield g.getrandbits(128).to_bytes(16, "big")


def activity_row(row: Row, uuid: bytes) -> Row:
    """``_create_activity_from_proto``: the ``tracks`` row of an activity; ``row``'s
    ``total_distance`` becomes the rounded one, as AndroidWorld rewrites its proto."""
    start = unix_seconds(to_datetime(row["start_date"], row.get("start_time", ""))) * 1000
    distance = rounded_distance(float(row["total_distance"]))
    row["total_distance"] = str(distance)
    stop = start + int(float(row["duration"]) * 60 * 1000)
    total = stop - start
    speed = float(row["total_distance"]) / (total * 1000)
    category = row.get("category", "")
    return {
        "name": row["name"],
        "category": category,
        "activity_type": category,
        "description": row.get("description", ""),
        "totaldistance": float(row["total_distance"]),
        "starttime": start,
        "stoptime": stop,
        "totaltime": total,
        "movingtime": total,
        "avgspeed": speed,
        "avgmovingspeed": speed,
        "elevationgain": int(row["elevation_gain"]) if "elevation_gain" in row else 0,
        "elevationloss": int(row["elevation_loss"]) if "elevation_loss" in row else 0,
        "uuid": uuid,
    }


def noise_row(r: random.Random) -> Row:
    """``_generate_random_activity``'s draws, as the proto row it fills."""
    category = r.choice(list(CATEGORY_TO_NAMES))
    name = r.choice(CATEGORY_TO_NAMES[category])
    start = random_datetime(r, center=DEVICE_TIME - dt.timedelta(days=7))
    minutes = dt.timedelta(minutes=r.randrange(1, 60 * 5))
    return {
        "category": category,
        "name": name,
        "start_date": start.strftime(DATE_FORMAT),
        "start_time": start.strftime("%H:%M"),
        "duration": str(int(minutes.seconds / 60)),
        "total_distance": str(r.randint(0, 20000)),
        "elevation_gain": str(r.randint(0, 500)),
        "elevation_loss": str(r.randint(0, 500)),
    }


def passes(track: Row, exclusions: list[Exclusion]) -> bool:
    """``_check_activity_conditions``: False when the activity meets every exclusion."""
    if not exclusions:
        return True
    met = True
    for field, op, value in exclusions:
        if field == "start_date":
            day = (dt.datetime(1970, 1, 1) + dt.timedelta(seconds=int(track["starttime"] / 1000))).date()
            met = met and compare(day, op, parse_date(value))
        elif field == "category":
            met = met and compare(track["category"].lower(), op, value.lower())
        elif field == "total_distance":
            met = met and compare(track["totaldistance"], op, float(rounded_distance(float(value))))
    return not met


def write_tracks(dev: Device, params: Params, rows: list[Row], exclusions: list[Exclusion], r: random.Random) -> None:
    """``activity_app_utils.setup_task_state``: the relevant activities, 20 noise ones, shuffled,
    inserted in that order (``_id`` 1, 2, ...); the relevant ones' ids in ``params["relevant_ids"]``."""
    data = _db(dev)
    data.tracks.clear()
    data.next_id = 1
    uuids = _uuids(params.get("seed"))
    relevant = [activity_row(row, next(uuids)) for row in rows]
    noise: list[Row] = []
    tries = 0
    while len(noise) < NOISE:
        tries += 1
        if tries > 10_000:
            raise ValueError("generation exhausted")
        candidate = activity_row(noise_row(r), next(uuids))
        if passes(candidate, exclusions):
            noise.append(candidate)
    tracks = relevant + noise
    r.shuffle(tracks)
    where = {id(t): i for i, t in enumerate(tracks)}
    inserted = [data.add(t) for t in tracks]
    params["relevant_ids"] = [inserted[where[id(t)]]["_id"] for t in relevant]
    params["names"] = ", ".join(t["name"] for t in relevant)


# ----------------------------------------------------------------------------- predicates and steps


def _viewport(dev: Device) -> tuple[int, int] | None:
    """The track list's scroll offset and height, when it is in front."""
    if not (in_app(dev, "opentracks") and isinstance(dev.top_screen(), TrackList)):
        return None
    lst = next((n for n in dev.elements() if n.role == "list" and n.rid.endswith(":id/track_list")), None)
    if lst is None:
        return None
    return lst.style[0], lst.bounds[3] - lst.bounds[1]


def listed(dev: Device, p: Params) -> bool:
    """The track list is in front, scrolled down to the last track of the answer (every track
    of the answer has been on screen on the way down from the top)."""
    view = _viewport(dev)
    if view is None:
        return False
    off, height = view
    order = [t["_id"] for t in _db(dev).listed()]
    last = max((order.index(i) for i in p["relevant_ids"] if i in order), default=0)
    return off <= last * ITEM_H and (last + 1) * ITEM_H <= off + height


def show_track(o: Oracle, track_id: int) -> str | None:
    """Scroll the track list until the track's row shows whole; ``None`` once it does."""
    order = [t["_id"] for t in _db(o.dev).listed()]
    if track_id not in order:
        return None
    return show_row(o, o.find(rid=":id/track_list", role="list"), order.index(track_id), ITEM_H)


class SportsQuestion(PromptQuestion):
    """An IR task on OpenTracks: set-up writes the ``tracks`` rows; the expert reads the list."""

    app = "opentracks"
    apps = ("opentracks",)
    placeholders: ClassVar[dict[str, str]] = {"Tracks": "names"}
    milestones = (
        Milestone(f"Open {LABEL}", lambda d, p: in_app(d, "opentracks")),
        Milestone("Show <Tracks> in the track list", listed),
    )

    def write_state(
        self, dev: Device, params: Params, rows: list[Row], exclusions: list[Exclusion], r: random.Random
    ) -> None:
        write_tracks(dev, params, rows, exclusions, r)

    def oracle(self, o: Oracle) -> str:
        if o.app != "opentracks":
            return o.launch(LABEL)
        if not isinstance(o.screen, TrackList) or o.dialog is not None:
            return o.back()
        # down the list from the top, each track of the answer in turn, the last one in view
        order = [t["_id"] for t in _db(o.dev).listed()]
        view = _viewport(o.dev)
        off, height = view if view is not None else (0, 0)
        positions = sorted(order.index(i) for i in o.p["relevant_ids"] if i in order)
        for pos in positions:
            if (pos + 1) * ITEM_H > off + height or pos == positions[-1]:
                act = show_track(o, order[pos])
                if act is not None:
                    return act
        return o.answer(self.answer(o.p))


class SportsTrackerActivitiesCountForWeek(SportsQuestion):
    id = "SportsTrackerActivitiesCountForWeek"
    template = (
        "How many {category} activities did I do this week in the OpenTracks app? Express your answer as a single"
        " integer."
    )
    difficulty = "easy"
    optimal_steps = 3
    tags = ("search", "requires_setup", "parameterized")


class SportsTrackerActivitiesOnDate(SportsQuestion):
    id = "SportsTrackerActivitiesOnDate"
    template = (
        "What activities did I do {date} in the OpenTracks app? Answer with the category only. If there are"
        " multiples categories, format your answer in a comma separated list."
    )
    difficulty = "hard"
    optimal_steps = 10
    tags = (
        "search",
        "complex_ui_understanding",
        "screen_reading",
        "information_retrieval",
        "transcription",
        "parameterized",
    )


class SportsTrackerActivityDuration(SportsQuestion):
    id = "SportsTrackerActivityDuration"
    template = (
        "How long was my {category} activity {date} in the OpenTracks app? Express your answer in minutes as a"
        " single integer."
    )
    difficulty = "easy"
    optimal_steps = 6
    tags = ("information_retrieval", "parameterized")


class SportsTrackerLongestDistanceActivity(SportsQuestion):
    id = "SportsTrackerLongestDistanceActivity"
    template = (
        "What was the longest distance covered in a {category} activity in the OpenTracks app this week? Express"
        " your answer in meters as a single integer."
    )
    difficulty = "easy"
    optimal_steps = 2
    tags = ("parameterized", "screen_reading", "information_retrieval", "math_counting")


class SportsTrackerTotalDistanceForCategoryOverInterval(SportsQuestion):
    id = "SportsTrackerTotalDistanceForCategoryOverInterval"
    template = (
        "What was the total distance covered for {category} activities in the OpenTracks app from {start_date} to"
        " {end_date}? Express your answer in meters as a single integer."
    )
    difficulty = "hard"
    optimal_steps = 11
    tags = ("search", "parameterized", "math_counting")


class SportsTrackerTotalDurationForCategoryThisWeek(SportsQuestion):
    id = "SportsTrackerTotalDurationForCategoryThisWeek"
    template = (
        "What was the total duration of {category} activities in the OpenTracks app this week? Express your answer"
        " in minutes as a single integer."
    )
    difficulty = "hard"
    optimal_steps = 8
    tags = ("math_counting", "search", "parameterized")


TEMPLATES = (
    SportsTrackerActivitiesCountForWeek,
    SportsTrackerActivitiesOnDate,
    SportsTrackerActivityDuration,
    SportsTrackerLongestDistanceActivity,
    SportsTrackerTotalDistanceForCategoryOverInterval,
    SportsTrackerTotalDurationForCategoryThisWeek,
)

__all__ = ["CATEGORY_TO_NAMES", "TEMPLATES", "SportsQuestion", "write_tracks"]
