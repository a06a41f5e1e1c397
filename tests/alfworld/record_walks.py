"""Play seeded random walks on ALFWorld game files with the real engine and record each as a JSONL transcript.

The walks exercise what hand-written scripts miss: long mixes of valid commands (biased towards the ones
that change state) and near-misses (a wrong number or receptacle, the other grammar's wording, case,
spacing and unicode variants, empty input, commands that were admissible earlier but are not now).
Recorded from the real engine, they are the reference the embedded engine must match byte for byte.

Runs only where ``alfworld==0.4.2`` is installed (as ``record_transcripts.py``). Usage, from the
repository root::

    python tests/alfworld/record_walks.py --games DIR [DIR ...] --out DIR [--seeds 3] [--steps 60] [--gzip]

Every ``game.tw-pddl`` under each DIR (or each file named) is loaded once; walk ``i`` (``i < --seeds``)
resets it and plays at most ``--steps`` commands, stopping when the game is done. A walk depends only on
the seed and the game file's bytes, so reruns reproduce it. A game that fails to load or to play is
reported and skipped; the exit status is 1 if any was. Output: ``<out>/<label>.walk<i>.jsonl`` (``.gz``
with ``--gzip``, written with a zero timestamp so reruns are byte-identical), where ``<label>`` is the
game's folder relative to the DIR it was found under, ``/`` written as ``__``. Line 1 is the header
(``command: null``, the reset observation, its admissible commands), each further line one step, in the
format of ``fixtures/transcripts`` (SOURCES.md).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import random
import re
import sys
import time
from dataclasses import dataclass, field
from multiprocessing import Pool
from pathlib import Path

from record_transcripts import make_env, require_engine, to_legacy

TASK_TYPES = (
    "pick_and_place_simple",
    "look_at_obj_in_light",
    "pick_clean_then_place_in_recep",
    "pick_heat_then_place_in_recep",
    "pick_cool_then_place_in_recep",
    "pick_two_obj_and_place",
)
P_ADMISSIBLE = 0.75  # the rest of the steps are near-misses
STATE_CHANGING = ("take ", "move ", "put ", "open ", "heat ", "cool ", "clean ", "use ", "slice ")
STATE_CHANGING_WEIGHT = 6  # relative to 1 for go to / close / examine / look / inventory / help
NUMBER = re.compile(r"\d+")
# Commands with a receptacle slot: (prefix, receptacle). ``examine`` also names objects; a wrong one is as good.
RECEPTACLE_SLOT = re.compile(
    r"^(go to|open|close|examine|take .+ from|move .+ to|put .+ in/on|(?:heat|cool|clean) .+ with) (.+)$"
)
GARBAGE = ("xyzzy", "take all", "examine room", "look around", "go to", "take", "open", "slice", "inventory please")
UNICODE_SWAPS = (("e", "é"), ("o", "о"), ("1", "１"), (" ", "\u00a0"), (" ", " \u200b"), ("a", "ä"))


@dataclass
class WalkPolicy:
    """Chooses each step's command from the current admissible list and what the walk has seen so far."""

    rng: random.Random
    legacy: bool
    seen: set[str] = field(default_factory=set)  # commands admissible at some earlier step
    receptacles: set[str] = field(default_factory=set)  # names that filled a receptacle slot

    def observe(self, admissible: list[str]) -> None:
        self.seen.update(admissible)
        for command in admissible:
            match = RECEPTACLE_SLOT.match(command)
            if match:
                self.receptacles.add(match.group(2))

    def next_command(self, admissible: list[str]) -> str:
        if self.rng.random() < P_ADMISSIBLE:
            return self.admissible(admissible)
        return self.near_miss(admissible)

    def admissible(self, admissible: list[str]) -> str:
        weights = [STATE_CHANGING_WEIGHT if c.startswith(STATE_CHANGING) else 1 for c in admissible]
        return self.rng.choices(admissible, weights)[0]

    def near_miss(self, admissible: list[str]) -> str:
        kinds = [
            self.wrong_number,
            self.wrong_receptacle,
            self.other_grammar,
            self.case_or_space,
            self.empty,
            self.unicode,
            self.stale,
            self.garbage,
        ]
        self.rng.shuffle(kinds)
        for kind in kinds:  # the first kind that applies here (garbage and empty always do)
            command = kind(admissible)
            if command is not None:
                return command
        raise AssertionError("unreachable: garbage() always returns a command")

    def wrong_number(self, admissible: list[str]) -> str | None:
        numbered = [c for c in admissible if NUMBER.search(c)]
        if not numbered:
            return None
        command = self.rng.choice(numbered)
        match = self.rng.choice(list(NUMBER.finditer(command)))
        n = int(match.group())
        other = self.rng.choice([n + 1, n + 2, max(n - 1, 0), 0, 10, 11, 99])
        return command[: match.start()] + str(other) + command[match.end() :]

    def wrong_receptacle(self, admissible: list[str]) -> str | None:
        slotted = [m for m in map(RECEPTACLE_SLOT.match, admissible) if m]
        if not slotted:
            return None
        match = self.rng.choice(slotted)
        others = sorted(self.receptacles - {match.group(2)})
        if not others:
            return None
        return f"{match.group(1)} {self.rng.choice(others)}"

    def other_grammar(self, admissible: list[str]) -> str | None:
        """A placement in the other grammar's words (``put X in/on R`` <-> ``move X to R``), or ``help`` in legacy."""
        placements = [c for c in admissible if c.startswith(("move ", "put "))]
        if placements:
            return to_legacy(self.rng.choice(placements))
        takes = [m for m in (re.match(r"^take (.+) from (.+)$", c) for c in admissible) if m]
        if takes:
            match = self.rng.choice(takes)
            obj, recep = match.groups()
            return f"move {obj} to {recep}" if self.legacy else f"put {obj} in/on {recep}"
        return "help" if self.legacy else None

    def case_or_space(self, admissible: list[str]) -> str:
        command = self.rng.choice(admissible)
        variants = (
            command.upper(),
            command.capitalize(),
            command.title(),
            command.replace(" ", "  ", 1),
            command.replace(" ", "\t", 1),
            command.replace(" ", "", 1),
            f" {command} ",
            f"\t{command}\n",
            f"{command}.",
        )
        return self.rng.choice(variants)

    def empty(self, _admissible: list[str]) -> str:
        return self.rng.choice(["", " ", "   ", "\t", "\n"])

    def unicode(self, admissible: list[str]) -> str:
        command = self.rng.choice(admissible)
        swaps = [(a, b) for a, b in UNICODE_SWAPS if a in command]
        if not swaps or self.rng.random() < 0.2:
            return self.rng.choice([f"{command} 🍎", "日本語", "café ☕", "\u200b"])
        a, b = self.rng.choice(swaps)
        return command.replace(a, b, 1)

    def stale(self, admissible: list[str]) -> str | None:
        earlier = sorted(self.seen - set(admissible))
        return self.rng.choice(earlier) if earlier else None

    def garbage(self, admissible: list[str]) -> str:
        command = self.rng.choice(admissible)
        cut = command[: self.rng.randrange(1, len(command) + 1)]
        return self.rng.choice([*GARBAGE, cut, "go to " + "a" * self.rng.randrange(50, 400)])


def find_games(paths: list[Path]) -> list[tuple[Path, str]]:
    """(game file, label) for every game.tw-pddl named or found under the given folders, in sorted order."""
    found = []
    for root in paths:
        if root.is_file():
            found.append((root, root.parent.name))
            continue
        for game in sorted(root.rglob("game.tw-pddl")):
            rel = game.parent.relative_to(root)
            found.append((game, "__".join(rel.parts) or root.name))
    return found


def task_type_of(gamefile: Path, problem: str) -> str | None:
    """The task type from the data set's folder names, else guessed from the goal's predicates."""
    for part in reversed(gamefile.parts):
        for task_type in TASK_TYPES:
            if part.startswith(task_type):
                return task_type
    goal = problem[problem.find("(:goal") :].lower()
    for marker, task_type in (
        ("istoggled", "look_at_obj_in_light"),
        ("isclean", "pick_clean_then_place_in_recep"),
        ("ishot", "pick_heat_then_place_in_recep"),
        ("iscool", "pick_cool_then_place_in_recep"),
        ("?o2", "pick_two_obj_and_place"),
    ):
        if marker in goal:
            return task_type
    return "pick_and_place_simple" if "inreceptacle" in goal else None


def walk(env, policy: WalkPolicy, steps: int, meta: dict) -> list[dict]:
    """One walk from a fresh reset: the header row, then one row per step until done or ``steps``."""
    obs, infos = env.reset()
    admissible = list(infos["admissible_commands"])
    rows = [
        {
            "command": None,
            **meta,
            "observation": obs,
            "task": obs.split("\n\n")[-1],
            "admissible_commands": admissible,
            "won": bool(infos["won"]),
            "score": infos.get("score"),
            "max_score": infos.get("max_score"),
        }
    ]
    policy.observe(admissible)
    for _ in range(steps):
        command = policy.next_command(admissible)
        obs, score, done, infos = env.step(command)
        admissible = list(infos["admissible_commands"])
        rows.append(
            {
                "command": command,
                "observation": obs,
                "admissible_commands": admissible,
                "won": bool(infos["won"]),
                "score": score,
                "done": bool(done),
            }
        )
        policy.observe(admissible)
        if done:  # the gym env answers anything after done with the last observation: nothing to learn
            break
    return rows


def write_rows(path: Path, rows: list[dict]) -> None:
    data = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode("utf-8")
    path.write_bytes(gzip.compress(data, mtime=0) if path.suffix == ".gz" else data)


def record_game(job: tuple[Path, str, Path, int, int, bool, bool]) -> dict:
    """Every walk of one game (one env, reset per walk); a failure is returned, not raised, so others go on."""
    gamefile, label, out, seeds, steps, gz, skip_existing = job
    suffix = ".jsonl.gz" if gz else ".jsonl"
    targets = [out / f"{label}.walk{seed}{suffix}" for seed in range(seeds)]
    report = {"game": label, "walks": 0, "steps": 0, "won": 0, "seconds": 0.0, "error": None}
    if skip_existing and all(t.exists() for t in targets):
        return report
    t0 = time.perf_counter()
    env = None
    try:
        raw = gamefile.read_bytes()
        game = json.loads(raw)
        legacy = 'template :: "put {o} in/on {r}"' in game["grammar"]
        digest = hashlib.sha256(raw).hexdigest()[:16]
        env = make_env(gamefile)
        for seed, target in zip(range(seeds), targets, strict=True):
            meta = {
                "game": label,
                "task_type": task_type_of(gamefile, game["pddl_problem"]),
                "grammar": "legacy" if legacy else "current",
                "script": f"walk{seed}",
                "seed": seed,
                "max_steps": steps,
            }
            policy = WalkPolicy(random.Random(f"{seed}:{digest}"), legacy)
            rows = walk(env, policy, steps, meta)
            write_rows(target, rows)
            report["walks"] += 1
            report["steps"] += len(rows) - 1
            report["won"] += rows[-1]["won"]
    except Exception as exc:  # any failure of the real engine on one game is reported, not fatal
        report["error"] = f"{type(exc).__name__}: {exc}"
    finally:
        if env is not None:
            env.close()
    report["seconds"] = round(time.perf_counter() - t0, 2)
    return report


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=Path, nargs="+", required=True, help="game.tw-pddl files or folders")
    parser.add_argument("--out", type=Path, required=True, help="folder for the walk transcripts")
    parser.add_argument("--seeds", type=int, default=3, help="walks per game (seeds 0..N-1)")
    parser.add_argument("--steps", type=int, default=60, help="most commands per walk")
    parser.add_argument("--gzip", action="store_true", help="write .jsonl.gz")
    parser.add_argument("--jobs", type=int, default=1, help="games played in parallel processes")
    parser.add_argument("--skip-existing", action="store_true", help="skip games whose walks are all written")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    require_engine("record_walks.py")
    games = find_games(args.games)
    if not games:
        sys.exit(f"no game.tw-pddl found under {', '.join(map(str, args.games))}")
    args.out.mkdir(parents=True, exist_ok=True)
    jobs = [(g, label, args.out, args.seeds, args.steps, args.gzip, args.skip_existing) for g, label in games]
    failed = []
    with Pool(args.jobs) if args.jobs > 1 else _Serial() as pool:
        for report in pool.imap(record_game, jobs):
            if report["error"]:
                failed.append(report)
                print(f"FAILED {report['game']}: {report['error']}", file=sys.stderr, flush=True)
            else:
                print(
                    f"{report['game']}: {report['walks']} walks, {report['steps']} steps, "
                    f"{report['won']} won, {report['seconds']} s",
                    flush=True,
                )
    print(f"{len(games) - len(failed)} games recorded, {len(failed)} failed", flush=True)
    return 1 if failed else 0


class _Serial:
    """The Pool interface, in this process (no fork for --jobs 1)."""

    def __enter__(self) -> _Serial:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def imap(self, fn, items):  # mirrors multiprocessing.Pool.imap
        return map(fn, items)


if __name__ == "__main__":
    sys.exit(main())
