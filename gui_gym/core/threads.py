"""How many CPU threads torch may use, and which computations always run on one.

Two different questions, answered separately:

- **Speed.** torch's default is one intra-op thread per core, and its OpenMP threads spin while
  they wait. On a 2-core machine shared with one busy process a short training run was 1.6x
  slower with two threads than with one (4-9x under heavier load), while on an idle machine two
  threads were 1.3x faster. :func:`choose_threads` therefore picks the cores this process may
  run on (``os.sched_getaffinity``), divided among the workers sharing them, less the cores
  other processes keep busy (the load average), and never fewer than one.
  :func:`configure_threads` applies it at the start of a command. ``--threads N``,
  ``GUI_GYM_THREADS=N`` and an explicit ``OMP_NUM_THREADS`` override the choice, in that order.
  Work split into independent single-threaded tasks (texts encoded alone) spreads over
  :func:`budget` threads: the process's share of its cores, busy or not, since such threads
  never wait for each other.
- **Bit-exact numerics.** With more than one thread, torch's matrix products (MKL) and large
  reductions give different last bits for different thread counts, and MKL's even from run to
  run (measured on the candidate policy's gradients with torch 2.13). Whatever reaches a run's
  results — sentence embeddings, the policy's forward and backward pass, the optimizer — is
  therefore computed on :data:`NUMERIC_THREADS` (one) intra-op thread: :func:`one_thread` around
  a computation, :func:`pin_numeric_threads` for a whole training process. Runs are then
  identical whatever thread count the user set, and a resumed run continues bit for bit.

torch is imported inside the functions only: importing this module costs nothing.

Example:
    >>> choose_threads(workers=2, cores=2, load=0.0, environ={})
    1
    >>> choose_threads(cores=2, load=0.0, environ={})  # an idle 2-core machine, one worker
    2
    >>> choose_threads(cores=2, load=1.0, environ={})  # one other busy process on it
    1
    >>> choose_threads(cores=8, load=0.0, environ={"OMP_NUM_THREADS": "3"})  # the user's setting wins
    3
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Iterator, Mapping

__all__ = [
    "ENV_VAR",
    "NUMERIC_THREADS",
    "available_cores",
    "budget",
    "choose_threads",
    "configure_threads",
    "one_thread",
    "pin_numeric_threads",
]

#: The environment variable that sets the thread count of gui-gym's commands (like ``--threads``).
ENV_VAR = "GUI_GYM_THREADS"
#: Intra-op threads of every computation whose bits reach a run's results.
NUMERIC_THREADS = 1
# The OMP_NUM_THREADS value configure_threads exported (for child processes): not the user's.
_exported: str | None = None
# budget(): decided by configure_threads, or by budget() once when it was never called.
_budget: int | None = None


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity; ``os.cpu_count()`` where there is none)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # macOS, Windows
        return max(1, os.cpu_count() or 1)


def _positive(value: str | int, source: str) -> int:
    try:
        n = int(value)
    except (TypeError, ValueError):
        n = 0
    if n < 1:
        raise ValueError(f"{source} must be a positive number of threads, got {value!r}")
    return n


def _busy_cores(cores: int) -> float:
    """Cores of ours that other processes keep busy: the 1-minute load average, scaled from the
    whole machine to the cores this process may use."""
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # Windows
        return 0.0
    return load * cores / max(cores, os.cpu_count() or cores)


def choose_threads(
    workers: int = 1,
    threads: int | None = None,
    *,
    cores: int | None = None,
    load: float | None = None,
    environ: Mapping[str, str] | None = None,
) -> int:
    """The intra-op thread count for one of ``workers`` processes sharing this process's cores.

    ``threads`` (``--threads``), else ``GUI_GYM_THREADS``, else an explicit ``OMP_NUM_THREADS``
    decides when given. Otherwise: ``cores`` (default :func:`available_cores`) divided among the
    ``workers``, less the cores busy with other work (``load``: default the load average, scaled
    to our cores), at least 1. Idle threads that spin cost far more on a busy machine (4-9x) than
    a missing one costs on an idle one (1.3x), so a half-busy core counts as busy.
    """
    env = os.environ if environ is None else environ
    if threads is not None:
        return _positive(threads, "--threads")
    if env.get(ENV_VAR):
        return _positive(env[ENV_VAR], ENV_VAR)
    omp = env.get("OMP_NUM_THREADS")
    if omp and (environ is not None or omp != _exported):
        return _positive(omp, "OMP_NUM_THREADS")
    cores = available_cores() if cores is None else max(1, int(cores))
    busy = _busy_cores(cores) if load is None else max(0.0, float(load))
    share = cores // max(1, int(workers))
    free = cores - math.ceil(busy - 0.25)  # a core more than a quarter busy is taken
    return max(1, min(share, free))


def configure_threads(threads: int | None = None, workers: int = 1) -> int:
    """Give torch :func:`choose_threads`' count of intra-op threads, one inter-op thread (gui-gym
    runs nothing in parallel between ops), and export the count as ``OMP_NUM_THREADS`` so that
    child processes (sub-env workers, study workers) start with it. Returns the count."""
    import torch

    global _exported, _budget
    n = choose_threads(workers, threads)
    _budget = choose_threads(workers, threads, load=0.0)
    torch.set_num_threads(n)
    with contextlib.suppress(RuntimeError):  # fixed once parallel work has started: keep it
        torch.set_num_interop_threads(1)
    if os.environ.get("OMP_NUM_THREADS") != str(n):  # the user's own value stays theirs
        os.environ["OMP_NUM_THREADS"] = _exported = str(n)
    return n


def budget() -> int:
    """Threads for work split into independent tasks, each on one intra-op thread (texts encoded
    alone): this process's share of its cores (:func:`choose_threads` less the load, decided
    once; the user's setting wins). Unlike intra-op threads, which wait for each other at every
    op so that one preempted thread stalls them all, such threads do not wait for each other:
    on a busy core they slow down by their share, not several times over."""
    global _budget
    if _budget is None:
        _budget = choose_threads(load=0.0)
    return _budget


@contextlib.contextmanager
def one_thread() -> Iterator[None]:
    """Run the block on :data:`NUMERIC_THREADS` intra-op thread, then restore the count: its
    results are then the same bits whatever the process's thread setting."""
    import torch

    before = torch.get_num_threads()
    if before == NUMERIC_THREADS:
        yield
        return
    torch.set_num_threads(NUMERIC_THREADS)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def pin_numeric_threads() -> int:
    """Set the process to :data:`NUMERIC_THREADS` intra-op thread (a trainer does, for its whole
    life: rollouts, backward passes and optimizer steps all reach the weights). Returns the
    count it had."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(NUMERIC_THREADS)
    return before
