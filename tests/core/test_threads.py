"""gui_gym.core.threads: who decides the thread count, and the one-thread numerics."""

from __future__ import annotations

import os

import pytest
import torch

import gui_gym.core.threads as threads
from gui_gym.core.threads import available_cores, choose_threads, configure_threads, one_thread


def test_the_user_decides_first() -> None:
    env = {"GUI_GYM_THREADS": "3", "OMP_NUM_THREADS": "5"}
    assert choose_threads(threads=2, cores=8, load=0.0, environ=env) == 2  # --threads
    assert choose_threads(cores=8, load=0.0, environ=env) == 3  # then GUI_GYM_THREADS
    assert choose_threads(cores=8, load=0.0, environ={"OMP_NUM_THREADS": "5"}) == 5  # then OMP_NUM_THREADS
    for bad, name in ((0, "--threads"), ("two", "GUI_GYM_THREADS")):
        kwargs = {"threads": bad} if name == "--threads" else {"environ": {"GUI_GYM_THREADS": bad}}
        with pytest.raises(ValueError, match=name):
            choose_threads(cores=2, load=0.0, **kwargs)


def test_otherwise_the_cores_are_shared_among_workers_and_busy_ones_left_out() -> None:
    assert choose_threads(cores=2, load=0.0, environ={}) == 2  # idle: two threads are faster
    assert choose_threads(cores=2, load=1.0, environ={}) == 1  # one busy process: spinning threads cost 1.6x
    assert choose_threads(cores=2, load=0.2, environ={}) == 2
    assert choose_threads(cores=2, load=6.0, environ={}) == 1  # never fewer than one
    assert choose_threads(workers=2, cores=2, load=0.0, environ={}) == 1
    assert choose_threads(workers=3, cores=16, load=4.0, environ={}) == 5
    assert available_cores() == len(os.sched_getaffinity(0))


def test_configure_sets_torch_and_tells_child_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    before = torch.get_num_threads()
    monkeypatch.delenv("GUI_GYM_THREADS", raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")  # the user's
    monkeypatch.setattr(threads, "_exported", None)
    monkeypatch.setattr(threads, "_budget", None)
    try:
        assert configure_threads(2) == 2 and torch.get_num_threads() == 2 and threads.budget() == 2
        assert os.environ["OMP_NUM_THREADS"] == "2"  # for sub-env and study workers
        # our own export is not mistaken for the user's setting on the next call
        assert configure_threads(workers=64) == 1
        monkeypatch.setenv("OMP_NUM_THREADS", "2")  # the user's again
        monkeypatch.setattr(threads, "_exported", None)
        assert configure_threads(workers=64) == 2
        monkeypatch.setenv("OMP_NUM_THREADS", "")
        monkeypatch.setattr(threads, "_budget", None)
        assert threads.budget() == available_cores()  # the share, whatever the load
    finally:
        torch.set_num_threads(before)


def test_one_thread_runs_the_block_on_one_and_restores() -> None:
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        with one_thread():
            assert torch.get_num_threads() == 1
        assert torch.get_num_threads() == 2
        with pytest.raises(RuntimeError), one_thread():
            raise RuntimeError("restored on errors too")
        assert torch.get_num_threads() == 2
        assert threads.pin_numeric_threads() == 2 and torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)
