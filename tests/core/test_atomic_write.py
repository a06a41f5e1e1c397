"""gui_gym.core.io: the one atomic file write (temp file beside the target, fsync, rename)."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time

import pytest
import torch

from gui_gym.core.io import STALE_AFTER_S, atomic_write, atomic_write_json, read_json, remove_stale_temporaries
from gui_gym.core.trajectory import Step, Trajectory, read_jsonl, write_jsonl
from wrappers.progress.model import atomic_save


def _listing(directory) -> list[str]:
    return sorted(os.listdir(directory))


def test_a_failing_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "metrics.csv"
    atomic_write(path, lambda f: f.write("old\n"))

    def half_then_fail(f):
        f.write("new, but only half of it")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError, match="disk full"):
        atomic_write(path, half_then_fail)
    assert path.read_text() == "old\n"
    assert _listing(tmp_path) == ["metrics.csv"]  # no .tmp litter


def test_a_failing_first_write_creates_nothing(tmp_path):
    with pytest.raises(KeyboardInterrupt):  # BaseException too: Ctrl-C mid-write
        atomic_write(tmp_path / "a" / "b.json", lambda f: (_ for _ in ()).throw(KeyboardInterrupt))
    assert _listing(tmp_path / "a") == []


def test_writes_text_binary_and_creates_parents(tmp_path):
    text = tmp_path / "deep" / "dir" / "note.txt"
    atomic_write(text, lambda f: f.write("héllo"))
    assert text.read_text(encoding="utf-8") == "héllo"
    blob = tmp_path / "blob.bin"
    atomic_write(blob, lambda f: f.write(bytes(range(256))), binary=True)
    assert blob.read_bytes() == bytes(range(256))


def test_new_files_get_ordinary_permissions(tmp_path):
    """Not the 0o600 of a temporary file: what open(path, "w") gives under the process umask."""
    plain = tmp_path / "plain.txt"
    plain.write_text("x")
    atomic = tmp_path / "atomic.txt"
    atomic_write(atomic, lambda f: f.write("x"))
    assert stat.S_IMODE(atomic.stat().st_mode) == stat.S_IMODE(plain.stat().st_mode)


def test_json_keeps_the_previous_copy_as_bak_unless_told_not_to(tmp_path):
    path = tmp_path / "status.json"
    atomic_write_json(path, {"iteration": 1})
    assert not (tmp_path / "status.json.bak").exists()
    atomic_write_json(path, {"iteration": 2})
    assert json.loads(path.read_text()) == {"iteration": 2}
    assert json.loads((tmp_path / "status.json.bak").read_text()) == {"iteration": 1}
    atomic_write_json(path, {"iteration": 3}, backup=False)
    assert json.loads((tmp_path / "status.json.bak").read_text()) == {"iteration": 1}
    with pytest.raises(TypeError):  # not JSON: the write fails, both files stay as they were
        atomic_write_json(path, {"iteration": object()})
    assert json.loads(path.read_text()) == {"iteration": 3}
    assert _listing(tmp_path) == ["status.json", "status.json.bak"]


def test_the_callers_write_through_it(tmp_path):
    """Trajectories and torch checkpoints: a failure mid-write keeps the previous file."""
    traj = Trajectory(task_id="t", instruction="do it", seed=0, steps=[Step(action="a", reward=1.0)])
    path = tmp_path / "runs.jsonl"
    write_jsonl(path, [traj])

    class Broken(Trajectory):
        def to_dict(self):
            raise ValueError("cannot serialise")

    with pytest.raises(ValueError):
        write_jsonl(path, [traj, Broken(task_id="x", instruction="", seed=1)])
    assert [t.task_id for t in read_jsonl(path)] == ["t"]

    ckpt = tmp_path / "best.pt"
    atomic_save({"format": "x", "w": torch.ones(3)}, ckpt)
    with pytest.raises(Exception):  # noqa: B017 - torch's pickler error type is not ours to pin
        atomic_save({"bad": lambda: None}, ckpt)
    assert torch.load(ckpt, weights_only=True)["w"].tolist() == [1.0, 1.0, 1.0]
    assert _listing(tmp_path) == ["best.pt", "runs.jsonl"]


# ----------------------------------------------------------------------------- killed writers

_SLOW_WRITER = """
import sys, time
from gui_gym.core.io import atomic_write

def slow(f):
    f.write("half of the new docu")
    f.flush()
    print("writing", flush=True)
    time.sleep(120)

atomic_write(sys.argv[1], slow)
"""


def _start_slow_writer(path) -> subprocess.Popen:
    """A process caught in the middle of ``atomic_write(path)``: its temporary exists, no rename yet."""
    proc = subprocess.Popen([sys.executable, "-c", _SLOW_WRITER, str(path)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "writing\n"  # EOF ("") if the writer died instead
    return proc


def _temporaries(directory) -> list[str]:
    return sorted(n for n in os.listdir(directory) if n.endswith((".tmp", ".tmp.bak")))


def test_a_writer_killed_mid_write_leaves_a_temporary_the_next_write_removes(tmp_path):
    path = tmp_path / "status.json"
    atomic_write_json(path, {"done": 1})
    proc = _start_slow_writer(path)
    try:
        (tmp,) = _temporaries(tmp_path)
        assert tmp.startswith(".status.json.") and f".{proc.pid}." in tmp  # recognisable: target and pid
        atomic_write_json(path, {"done": 2})  # the writer is alive: its temporary stays
        assert _temporaries(tmp_path) == [tmp]
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    assert json.loads(path.read_text()) == {"done": 2}  # the killed write changed nothing
    assert _temporaries(tmp_path) == [tmp]  # no one could remove it while it died
    atomic_write_json(path, {"done": 3})
    assert _temporaries(tmp_path) == []
    assert json.loads(path.read_text()) == {"done": 3}


def test_loading_removes_a_killed_writers_temporary_too(tmp_path):
    path = tmp_path / "book.json"
    atomic_write_json(path, {"done": 1})
    proc = _start_slow_writer(path)
    proc.send_signal(signal.SIGKILL)
    proc.wait(30)
    assert len(_temporaries(tmp_path)) == 1
    assert read_json(path) == {"done": 1}
    assert _temporaries(tmp_path) == []


def test_temporaries_that_cannot_be_asked_go_once_old(tmp_path):
    """Another host's (a shared disk) or an older naming's: removed once untouched for STALE_AFTER_S."""
    path = tmp_path / "spa.json"
    names = [".spa.json.k2x9q7ab.tmp", ".spa.json.0a1b2c3d.4242.beef.tmp", ".spa.json.0a1b2c3d.4242.beef.tmp.bak"]
    for n in names:
        (tmp_path / n).write_text("partial")
    old = tmp_path / "other.json"  # another target's temporary is not this write's business
    (tmp_path / ".other.json.k2x9q7ab.tmp").write_text("partial")
    atomic_write_json(path, {"a": 1})
    assert _temporaries(tmp_path) == sorted([*names, ".other.json.k2x9q7ab.tmp"])  # recent: kept
    long_ago = time.time() - STALE_AFTER_S - 60
    for n in [*names, ".other.json.k2x9q7ab.tmp"]:
        os.utime(tmp_path / n, (long_ago, long_ago))
    assert len(remove_stale_temporaries(path)) == 3
    assert _temporaries(tmp_path) == [".other.json.k2x9q7ab.tmp"] and not old.exists()
    assert json.loads(path.read_text()) == {"a": 1}
