"""A corpus of damaged files for every loader: each damage is an error naming the file.

For each loader a good file is written by the project's own writer, then damaged: emptied,
truncated at several points, replaced by random bytes or zeros, by a directory, made non-UTF-8,
nested 100 000 deep, given the wrong top-level type, or the right shape with fields of the wrong
type. Each must raise ``ValueError`` (``CorruptFileError``, ``StateFileError``) or
``FileNotFoundError`` whose message holds the path — never a ``RecursionError``,
``UnicodeDecodeError``, ``KeyError``, ``TypeError``, zip or pickle error — and a command must
exit 2 with one ``error:`` line naming the file. A byte-order mark is not damage: the file
loads as it was. Two documented exceptions: an empty JSON Lines file is an empty list to the
library readers (an empty log is a log); the commands reject it.

The checkpoint test flips 16 bytes at every offset of a real checkpoint: each variant raises
naming the file, or loads exactly the original tensors (the flip hit bytes no content depends on,
such as the zip's alignment padding) — never other numbers.
"""

from __future__ import annotations

import contextlib
import io
import json
import pickle
import random
import struct
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

import gui_gym  # noqa: F401  (registers the env ids the commands use)
from agents.cli import main
from agents.cli.progrm import _read, labelled_examples
from agents.plot import read_metrics
from gui_gym.core.io import atomic_write
from gui_gym.core.trajectory import Step, Trajectory, read_jsonl, write_jsonl
from wrappers import MilestoneBook, SharedState, ShortestLengths
from wrappers.matching import SemanticMatcher
from wrappers.memory import ExperienceMemory
from wrappers.progress import attach_labels, env_labels
from wrappers.progress.model import FORMAT, FORMAT_VERSION, atomic_save, read_checkpoint

#: What must never escape a loader.
FORBIDDEN = (RecursionError, UnicodeDecodeError, KeyError, TypeError, zipfile.BadZipFile, pickle.UnpicklingError,
             EOFError, struct.error)  # fmt: skip
DEEP = {"lists": b"[" * 100_000 + b"]" * 100_000, "objects": b'{"a": ' * 50_000 + b"1" + b"}" * 50_000}


def cli(*args: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


@dataclass
class Loader:
    """One loader: how to write a good file, how to load one, and its own kind of bad fields."""

    name: str
    filename: str
    write: Callable[[Path], None]
    load: Callable[[Path], Any]  # a command: returns (code, stdout, stderr)
    kind: str  # "json", "jsonl" (one record per good file) or "zip"
    wrong_types: list[bytes] = field(default_factory=list)
    wrong_top: list[bytes] = field(default_factory=list)
    command: bool = False
    empty_is_empty: bool = False  # a library JSON Lines reader: an empty file is []


# ----------------------------------------------------------------------------- good files


def _trajectory() -> Trajectory:
    steps = [
        Step('do(action="Launch", app="Clock")', observation="home | Clock", action_description="Launch Clock",
             milestones=["Open the Clock app"], progress=0.5, action_kind="navigate"),
        Step('do(action="Tap", element="Start")', observation='clock | Button "Start"',
             action_description='Tap the "Start" button', milestones=["Start"], progress=1.0, action_kind="interact"),
    ]  # fmt: skip
    meta = {"final_observation": 'clock | Button "Stop"', "task_milestones": 2}
    return Trajectory("ClockStopWatchRunning", "Run the stopwatch.", seed=0, steps=steps, success=True, meta=meta)


def _line(record: dict) -> bytes:
    return (json.dumps(record) + "\n").encode()


def _traj_with(path: tuple, value: Any) -> bytes:
    record = _trajectory().to_dict()
    target = record
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return _line(record)


TRAJECTORY_WRONG_TYPES = [
    _traj_with(("steps", 0, "reward"), "high"),
    _traj_with(("steps", 0, "info"), [1]),
    _traj_with(("steps", 0, "milestones"), "Open the Clock app"),
    _traj_with(("steps", 0, "format_valid"), "yes"),
    _traj_with(("steps",), {"0": {}}),
    _traj_with(("success",), "true"),
    _traj_with(("seed",), "0"),
    _traj_with(("meta",), []),
    _traj_with(("task_id",), 7),
]
JSON_WRONG_TOP = [b"[]", b'"a string"', b"3", b"null", b"true"]


def _state_doc(kind: str, data: Any, version: Any = 1) -> bytes:
    return json.dumps({"kind": kind, "format_version": version, "data": data}).encode()


def _write_state(path: Path) -> None:
    SharedState(path).save()


def _write_book(path: Path) -> None:
    steps = [Step("", action_description=d, info={"obs": str(i)}) for i, d in enumerate(["Open A", "Save x1"])]
    t = Trajectory("A", "do A", steps=steps, success=True, meta={"placeholders": {"X": "x1"}})
    book = MilestoneBook(path, generator=lambda req: [s.action_description for s in req.trajectory.steps])
    book.update(t, epoch=1)
    book.record("A", ["Open A"], epoch=1)
    book.flush()


def _book_entry(**change: Any) -> dict:
    entry = {"milestones": ["a"], "versions": [], "history": [], "hits": {}, "episodes": 1, "successes": 1}
    return {"tasks": {"A": {**entry, **change}}}


def _write_spa(path: Path) -> None:
    lengths = ShortestLengths(path)
    lengths.observe("ClockStopWatchRunning|Run the stopwatch.", 4)


def _write_memory(path: Path) -> None:
    memory = ExperienceMemory(path)
    memory.add_workflow("ContactsAddContact", ["Open Contacts", "Enter {{Name}}"], scene="contacts")
    memory.add_skill("contacts", "Enter {{Name}}", "Tap 'First name' and type {{Name}}")
    memory.add_failure("contacts", "Enter {{Name}}", "typed in the search bar", "Tap 'First name' first")


def _write_checkpoint(path: Path) -> None:
    torch.manual_seed(0)
    head = {"0.weight": torch.randn(8, 5), "0.bias": torch.randn(8), "2.weight": torch.randn(1, 8)}
    ckpt = {"format": FORMAT, "version": FORMAT_VERSION, "config": {"hidden": 8}, "head": head, "extra": {"epoch": 3}}
    atomic_save(ckpt, path)


def _checkpoint_bytes(obj: Any) -> bytes:
    buf = io.BytesIO()
    torch.save(obj, buf)
    return buf.getvalue()


def _load_checkpoint(path: Path) -> dict:
    ckpt = read_checkpoint(path)
    return {"config": ckpt["config"], "extra": ckpt["extra"], **{k: v.tolist() for k, v in ckpt["head"].items()}}


CHECKPOINT_WRONG_TYPES = [
    _checkpoint_bytes({"format": FORMAT, "version": str(FORMAT_VERSION), "config": {}, "head": {}}),
    _checkpoint_bytes({"format": FORMAT, "version": FORMAT_VERSION, "config": [], "head": {}}),
    _checkpoint_bytes({"format": FORMAT, "version": FORMAT_VERSION, "config": {}, "head": [torch.zeros(2)]}),
    _checkpoint_bytes({"format": 3, "version": FORMAT_VERSION, "config": {}, "head": {}}),
    # a global weights_only refuses (torch's message runs to several lines; ours is one)
    _checkpoint_bytes({"format": FORMAT, "version": FORMAT_VERSION, "config": {"lr": Fraction(1, 3)}, "head": {}}),
]


class _Cache:
    """Embedding caches of a matcher whose model key is a directory of the test's own."""

    def __init__(self, root: Path) -> None:
        self.model = root / "model"
        self.model.mkdir(exist_ok=True)

    def write(self, path: Path) -> None:
        m = SemanticMatcher(model=self.model)
        m.clear_cache()
        m.add_to_cache(["Turn on Wi-Fi", "Open Settings"], np.random.default_rng(0).normal(size=(2, 8)))
        m.save_cache(path)
        m.clear_cache()

    def load(self, path: Path) -> dict:
        m = SemanticMatcher(model=self.model)
        m.clear_cache()
        m.load_cache(path)
        out = {t: e.tolist() for t, e in m.cache.items()}
        m.clear_cache()
        return out

    def npz(self, **arrays: Any) -> bytes:
        buf = io.BytesIO()
        np.savez(buf, **arrays)
        return buf.getvalue()

    def wrong(self) -> list[bytes]:
        key = np.array(str(self.model.resolve()))
        texts = np.array(["a", "b"])
        return [
            self.npz(texts=texts, embeddings=np.zeros((3, 8), np.float32), model=key),  # rows != texts
            self.npz(texts=np.array([1.0, 2.0]), embeddings=np.zeros((2, 8), np.float32), model=key),
            self.npz(texts=texts, embeddings=np.array([["x"] * 8] * 2), model=key),
            self.npz(texts=texts, embeddings=np.full((2, 8), np.nan, np.float32), model=key),
            self.npz(texts=texts, embeddings=np.zeros((2, 8), np.float32), model=np.array([1, 2])),
            self.npz(texts=texts.reshape(1, 2), embeddings=np.zeros((2, 8), np.float32), model=key),
        ]

    def wrong_top(self) -> list[bytes]:
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as z:
            z.writestr("notes.txt", "not arrays")
        return [buf.getvalue(), self.npz(texts=np.array(["a"])), _checkpoint_bytes({"texts": ["a"]})]


METRICS = [{"iteration": 0, "success_rate": 0.25, "reward_milestone": 0.1, "mean_length": 6.0}]
METRICS_WRONG_TYPES = [
    _line({"iteration": "0", "success_rate": 0.25}),
    _line({"iteration": 0, "success_rate": "high"}),
    _line({"iteration": 0, "reward_milestone": [0.1]}),
    _line({"iteration": True, "mean_length": 4}),
    _line({"success_rate": 0.5}),  # no iteration
]


def _write_metrics(path: Path) -> None:
    atomic_write(path, lambda f: f.write("".join(json.dumps(r) + "\n" for r in METRICS)))


def _write_labelled(path: Path) -> None:
    t = _trajectory()
    write_jsonl(path, [attach_labels(t, env_labels(t))])


def _labelled_wrong() -> list[bytes]:
    t = attach_labels(_trajectory(), env_labels(_trajectory())).to_dict()
    bad_label = json.loads(json.dumps(t))
    for s in bad_label["steps"]:
        s["info"]["progress_label"] = "half"
    return [_line(bad_label), *TRAJECTORY_WRONG_TYPES]


def loaders(root: Path) -> list[Loader]:
    cache = _Cache(root)
    plot_out = root / "curves.png"
    synth_out = root / "synth_out.jsonl"
    return [
        Loader("checkpoint", "best.pt", _write_checkpoint, _load_checkpoint, "zip", CHECKPOINT_WRONG_TYPES,
               [_checkpoint_bytes([1, 2]), _checkpoint_bytes(torch.zeros(3)), _checkpoint_bytes("text")]),
        Loader("shared state", "state.json", _write_state, lambda p: SharedState.load(p).to_dict(), "json",
               [_state_doc("state", {}, "1"), _state_doc("state", []), _state_doc(3, {}),
                b'{"kind": "state", "format_version": 1}'], JSON_WRONG_TOP),
        Loader("milestone book", "book.json", _write_book, lambda p: MilestoneBook.load(p).to_dict(), "json",
               [_state_doc("milestone_book", {"tasks": []}),
                _state_doc("milestone_book", _book_entry(versions=[{"version": "1"}])),
                _state_doc("milestone_book", _book_entry(hits={"1": {"a": "2"}})),
                _state_doc("milestone_book", _book_entry(history=[{"task_id": "A", "instruction": "x",
                                                                     "steps": [["a", "yes", None]]}])),
                _state_doc("milestone_book", _book_entry(episodes="1"))], JSON_WRONG_TOP),
        Loader("experience memory", "memory.json", _write_memory, lambda p: ExperienceMemory.load(p).to_dict(),
               "json",
               [_state_doc("uimem_memory", {"clock": "0", "tasks": {}, "scenes": {}}),
                _state_doc("uimem_memory", {"clock": 0, "tasks": [], "scenes": {}}),
                _state_doc("uimem_memory", {"clock": 0, "tasks": {"T": {"instruction": "", "scene": "",
                                                                       "plans": [{"steps": "a"}]}}, "scenes": {}}),
                _state_doc("uimem_memory", {"clock": 0, "tasks": {}, "scenes": {"s": {"t": {"skills": [{"text": 1}],
                                                                                            "failures": []}}}})],
               JSON_WRONG_TOP),
        Loader("spa lengths", "spa.json", _write_spa, lambda p: ShortestLengths.load(p).to_dict(), "json",
               [_state_doc("spa_shortest_lengths", {"shortest": {"k": "4"}}),
                _state_doc("spa_shortest_lengths", {"shortest": {"k": True}}),
                _state_doc("spa_shortest_lengths", {"shortest": {"k": 0}}),
                _state_doc("spa_shortest_lengths", {"shortest": ["k", 4]})], JSON_WRONG_TOP),
        Loader("trajectory JSONL", "trajs.jsonl", lambda p: write_jsonl(p, [_trajectory()]),
               lambda p: [t.to_dict() for t in read_jsonl(p)], "jsonl", TRAJECTORY_WRONG_TYPES,
               [b"[1, 2]\n", b'"trajectory"\n', b"null\n"], empty_is_empty=True),
        Loader("progress data", "labelled.jsonl", _write_labelled,
               lambda p: labelled_examples(_read(str(p)), str(p)), "jsonl", _labelled_wrong(), [b"[1]\n", b"7\n"]),
        Loader("embedding cache", "cache.npz", cache.write, cache.load, "zip", cache.wrong(), cache.wrong_top()),
        Loader("metrics", "metrics.jsonl", _write_metrics, read_metrics, "jsonl", METRICS_WRONG_TYPES,
               [b"[0, 0.5]\n", b"0.5\n"], empty_is_empty=True),
        Loader("plot command", "metrics.jsonl", _write_metrics, lambda p: cli("plot", p.parent, "-o", plot_out),
               "jsonl", METRICS_WRONG_TYPES, [b"[0, 0.5]\n"], command=True),
        Loader("synth command", "trajs.jsonl", lambda p: write_jsonl(p, [_trajectory()]),
               lambda p: cli("progrm", "synth", p, synth_out), "jsonl",
               [*TRAJECTORY_WRONG_TYPES, _traj_with(("steps",), [])],  # a success with no step to edit
               [b"[1, 2]\n", b"{}\n"], command=True),
    ]  # fmt: skip


NAMES = ["checkpoint", "shared state", "milestone book", "experience memory", "spa lengths", "trajectory JSONL",
         "progress data", "embedding cache", "metrics", "plot command", "synth command"]  # fmt: skip


# ----------------------------------------------------------------------------- damages


def _truncations(good: bytes) -> list[bytes]:
    """Prefixes that end inside the content (a cut just before a JSON Lines newline keeps a whole line)."""
    end = len(good.rstrip(b"\n"))
    return [good[: max(1, int(end * f))] for f in (0.1, 0.5, 0.9)] + [good[: end - 1]]


def _not_utf8(good: bytes) -> bytes:
    at = good.index(b'"', len(good) // 3) + 1  # inside a string
    return good[:at] + b"\xff\xfe\xc3(" + good[at:]


def damages(loader: Loader, good: bytes) -> dict[str, bytes | None]:
    """Each damage's bytes (``None``: a directory in place of the file)."""
    rng = random.Random(f"{loader.name}")
    out: dict[str, bytes | None] = {"directory": None}
    out |= {f"truncated{i}": cut for i, cut in enumerate(_truncations(good))}
    out |= {f"garbage{i}": bytes(rng.randrange(256) for _ in range(n)) for i, n in enumerate((7, 600, 5000))}
    out |= {"zeros": b"\x00" * 4096, "text": b"this is not the file you are looking for\n"}
    out |= {f"wrong_top{i}": b for i, b in enumerate(loader.wrong_top)}
    out |= {f"wrong_types{i}": b for i, b in enumerate(loader.wrong_types)}
    if not loader.empty_is_empty:
        out["empty"] = b""
    if loader.kind != "zip":
        out |= {"not_utf8": _not_utf8(good), **{f"deep_{k}": v for k, v in DEEP.items()}}
        out["deep_inside"] = good.replace(b"{", b"{" + b'"deep": ' + b"[" * 150 + b"]" * 150 + b", ", 1)
    return out


def assert_rejected(loader: Loader, path: Path, damage: str) -> None:
    if loader.command:
        code, _, err = loader.load(path)
        lines = err.strip().splitlines()
        assert code == 2 and "Traceback" not in err, (damage, code, err)
        errors = [line for line in lines if line.startswith("error:")]
        assert len(errors) == 1 and str(path) in errors[0], (damage, err)
        return
    try:
        loader.load(path)
    except Exception as e:  # the point is which type escapes
        assert isinstance(e, ValueError | FileNotFoundError), (damage, type(e), e)
        assert not isinstance(e, FORBIDDEN), (damage, type(e), e)
        assert str(path) in str(e), (damage, e)
        assert "\n" not in str(e), (damage, e)
    else:
        pytest.fail(f"{loader.name}: {damage} loaded without an error")


def _place(path: Path, data: bytes | None) -> None:
    if path.is_dir():
        path.rmdir()
    if data is None:
        path.unlink(missing_ok=True)
        path.mkdir()
    else:
        path.write_bytes(data)


@pytest.mark.parametrize("name", NAMES)
def test_every_damage_is_a_clear_error_naming_the_file(tmp_path: Path, name: str) -> None:
    (loader,) = [x for x in loaders(tmp_path) if x.name == name]
    path = tmp_path / "run" / loader.filename
    path.parent.mkdir()
    loader.write(path)
    good = path.read_bytes()
    expected = loader.load(path)
    if loader.command:
        assert expected[0] == 0, expected
    cases = damages(loader, good)
    assert len(cases) >= 14
    for damage, data in cases.items():
        _place(path, data)
        assert_rejected(loader, path, damage)
    if loader.empty_is_empty:
        _place(path, b"")
        assert loader.load(path) == []
    # A byte-order mark is not damage: the file reads as it was (a binary file may refuse it).
    _place(path, b"\xef\xbb\xbf" + good)
    if loader.kind == "zip":
        with contextlib.suppress(ValueError):
            assert loader.load(path) == expected
    elif loader.command:
        assert loader.load(path)[0] == 0
    else:
        assert loader.load(path) == expected


# ----------------------------------------------------------------------------- JSON Lines, partly damaged


@pytest.mark.parametrize("name", ["trajectory JSONL", "synth command"])
def test_a_damaged_line_among_good_ones_is_named_and_counted(tmp_path, caplog, name) -> None:
    """The documented JSON Lines behaviour: the good lines are used, each bad one is reported with
    file:line, and the count of skipped lines is reported."""
    loader = next(x for x in loaders(tmp_path) if x.name == name)
    path = tmp_path / loader.filename
    good = _line(_trajectory().to_dict())
    path.write_bytes(b"\xef\xbb\xbf" + good + good[: len(good) // 2] + b"\n" + good + b"\xff\n")
    with caplog.at_level("WARNING"):
        result = loader.load(path)
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert warnings[0].startswith(f"{path}:2: skipped corrupt trajectory line (not JSON")
    assert warnings[1].startswith(f"{path}:4: skipped corrupt trajectory line (not UTF-8")
    assert f"{path}: skipped 2 bad line(s) of 4, read 2 trajectory(s)" in warnings
    if loader.command:
        assert result[0] == 0 and "wrote" in result[1]
    else:
        assert result == [_trajectory().to_dict()] * 2


# ----------------------------------------------------------------------------- checkpoint checksums


def test_flipped_bytes_in_a_checkpoint_never_load_as_other_numbers(tmp_path) -> None:
    """16 random bytes at every offset of a real checkpoint: an error naming the file, or the
    original data (the bytes held no content); never silently different tensors."""
    path = tmp_path / "best.pt"
    _write_checkpoint(path)
    original, expected = path.read_bytes(), _load_checkpoint(path)
    rng = random.Random(16)
    loaded_equal = rejected = 0
    checksum_errors = 0
    damaged = tmp_path / "damaged.pt"
    for at in range(len(original) - 16):
        data = bytearray(original)
        data[at : at + 16] = bytes(rng.randrange(256) for _ in range(16))
        if data == original:
            continue
        damaged.write_bytes(bytes(data))
        try:
            got = _load_checkpoint(damaged)
        except ValueError as e:
            assert str(damaged) in str(e) and not isinstance(e, UnicodeDecodeError), (at, e)
            rejected += 1
            checksum_errors += "checksum mismatch: the file is damaged; restore it or start again" in str(e)
            continue
        assert got == expected, f"16 bytes flipped at offset {at} loaded as different data"
        loaded_equal += 1
    assert rejected > loaded_equal > 0 and checksum_errors > 0, (rejected, loaded_equal, checksum_errors)


def test_a_checkpoint_with_damaged_tensor_bytes_names_the_checksum(tmp_path) -> None:
    path = tmp_path / "best.pt"
    _write_checkpoint(path)
    with zipfile.ZipFile(path) as z:
        info = next(i for i in z.infolist() if i.filename.endswith("data/0"))
    data = bytearray(path.read_bytes())
    name_len, extra_len = struct.unpack_from("<HH", data, info.header_offset + 26)  # of the local header
    start = info.header_offset + 30 + name_len + extra_len  # the member's bytes
    data[start + 8] ^= 0x01  # one bit of one float
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=r"best\.pt: checksum mismatch: the file is damaged; restore it or start"):
        read_checkpoint(path)
