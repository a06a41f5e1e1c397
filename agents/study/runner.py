"""Run the reward-shaping study: every setting × seed, resumable, crash-tolerant. Read top to bottom.

1. ``OUT/study.json`` records the mode, the exact command and the config. A study directory
   holds one config: rerunning it with the same settings resumes it; a different task split
   or budget is an error (choose another ``--out``).
2. With ``warm_start``, the starting policy is behaviour-cloned once (``OUT/sft``). The reward
   models the settings need (:mod:`agents.study.reward_models`) are then trained once on rollouts
   of the training tasks: the warm-started actor's own (ProgRM §3.1 learns from its agents' rollouts,
   Qwen2.5-7B's and GPT-4o-mini's, plus App. B's synthesis), or the oracle mix without a warm start.
   A model that cannot be built fails only the settings that read it.
3. Each run (setting, seed) trains the same candidate policy with the same algorithm on the
   same tasks (:class:`~agents.train.Trainer`, directory ``OUT/runs/<setting>/seed<k>``). Before
   and after training it is evaluated (greedily, or sampled with ``eval_sampled``) with the env's
   own success check on held-out seeds of the training tasks ("seen") and of the held-out tasks
   ("unseen"); every episode is a line of ``eval.jsonl`` (success, length and the env's final
   task score, e.g. WebShop's reward at Buy Now), keyed by (phase, split, task, seed): writing a
   row again replaces it, so a run stopped anywhere and resumed has each row once (a torn last
   line is dropped and its episode evaluated again). ``status.json`` closes the run: ``done``,
   ``crashed`` (an exception; its message is kept) or ``diverged`` (non-finite weights, or most
   updates skipped for non-finite losses), with the iteration the finishing process resumed at.
   Once it is written the run's ``eval.jsonl`` and ``metrics.jsonl`` are gzipped
   (:func:`pack_run`; :func:`pack_study` packs the finished runs of an existing study).
4. With ``workers`` > 1 each run gets a fresh process (nothing of an earlier run carries
   over; the cores are shared among the workers, :func:`gui_gym.core.threads.configure_threads`),
   and a worker whose study process is killed stops too. Runs share only the embeddings they
   encoded (``OUT/embeddings``): a text's embedding is the same bits in every process, so this
   spares the encoding and changes no result. With one worker the runs share the
   study's process: nothing a run computes depends on what ran before (embeddings are encoded
   text by text, numerics run on one thread, the trainer seeds its generators). A worker that
   dies takes only its run with it: the run is recorded as crashed and the pool is rebuilt.
   Finished runs (any status) are skipped when the study is resumed; ``retry_failed`` runs
   crashed and diverged ones again. An interrupted run resumes from its last checkpoint and
   ends as it would have uninterrupted (its milestone hit counts in ``status.json`` then cover
   the iterations since).
5. :func:`agents.study.report.write_report` turns the raw files into ``OUT/reward_study.md``.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import logging
import math
import multiprocessing
import os
import platform
import shutil
import statistics
import threading
import time
import traceback
from collections import Counter, defaultdict
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import MISSING, asdict, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tqdm import tqdm

from agents.study.data import RAW_FILES, REPORT_COLUMNS, read_jsonl_objects
from agents.study.leakage import EXPERIENCE_FILE, check_disjoint, experience_file
from agents.study.settings import Setting, StudyConfig, setting
from agents.study.tiers import TIERS_FILE, oracle_tiers, read_tiers
from gui_gym.core.io import atomic_write, atomic_write_json
from gui_gym.core.threads import configure_threads

#: The env of a study unless its config's ``extra`` names another ``env_id`` (the learned reward
#: models learn from rollouts of the study's env: it needs an ``oracle_action()``).
DEFAULT_ENV = "GuiAndroid-v0"

log = logging.getLogger(__name__)

__all__ = ["FINISHED", "pack_run", "pack_study", "read_status", "run_dir", "run_one", "run_study", "slim_run"]

FINISHED = ("done", "crashed", "diverged")
#: Config fields that may change when a study is resumed (more seeds or settings, other workers).
_RESUMABLE = {"settings", "seeds", "workers"}


def run_dir(out: str | os.PathLike[str], name: str, seed: int) -> Path:
    return Path(out) / "runs" / name / f"seed{seed}"


def read_status(path: Path) -> dict[str, Any] | None:
    """A run's ``status.json``, or None when it has none (not finished) or it is unreadable."""
    try:
        status = json.loads((path / "status.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return status if isinstance(status, dict) and status.get("status") in FINISHED else None


def pack_run(path: Path) -> list[Path]:
    """Gzip a finished run's raw files (:data:`~agents.study.data.RAW_FILES`): ``eval.jsonl`` becomes
    ``eval.jsonl.gz``, ``metrics.jsonl`` ``metrics.jsonl.gz``. Each is compressed with mtime 0 and no
    name in its header (the same lines give the same bytes), written atomically, and checked to
    decompress to the plain file's bytes before that is removed. A file already packed is left as it
    is; returns the files written.

    Only for a finished run: an unfinished one appends to its plain files when it resumes.
    """
    written = []
    for name in RAW_FILES:
        plain, packed = path / name, path / f"{name}.gz"
        if not plain.is_file():
            continue
        data = plain.read_bytes()
        blob = gzip.compress(data, compresslevel=9, mtime=0)
        atomic_write(packed, lambda f, b=blob: f.write(b), binary=True)
        if gzip.decompress(packed.read_bytes()) != data:  # never remove the only good copy
            raise OSError(f"{packed} does not decompress to the bytes of {plain}; the plain file is kept")
        plain.unlink()
        written.append(packed)
    return written


def slim_run(path: Path) -> bool:
    """Keep only :data:`~agents.study.data.REPORT_COLUMNS` of a finished, packed run's
    ``metrics.jsonl.gz`` (byte-reproducibly, atomically); the report reads the same rows. A line
    that is not a JSON object is kept as it is (the report counts it as skipped either way).
    Returns whether the file changed; a second call changes nothing."""
    packed = path / "metrics.jsonl.gz"
    if not packed.is_file():
        return False
    lines = []
    for line in gzip.decompress(packed.read_bytes()).decode("utf-8").splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            row = None
        if isinstance(row, dict):
            line = json.dumps({k: v for k, v in row.items() if k in REPORT_COLUMNS})
        lines.append(line)
    blob = gzip.compress("".join(f"{x}\n" for x in lines).encode("utf-8"), compresslevel=9, mtime=0)
    if blob == packed.read_bytes():
        return False
    atomic_write(packed, lambda f: f.write(blob), binary=True)
    return True


def _pack(path: Path) -> None:
    """:func:`pack_run`, for a run that has just finished: a failure only leaves its plain files."""
    try:
        pack_run(path)
    except OSError as e:
        log.warning("could not gzip the raw files of %s (%s); they stay plain, as readable", path, e)


def pack_study(out: str | os.PathLike[str], slim: bool = False) -> dict[str, int]:
    """Gzip the raw files of every finished run (:func:`read_status`) of the study in ``out``
    (:func:`pack_run`); unfinished runs keep theirs. Running it again changes nothing.

    With ``slim``, each packed ``metrics.jsonl.gz`` keeps only the columns the report reads
    (:func:`slim_run`). Returns the counts: ``finished`` runs, runs ``packed`` now (and
    ``slimmed``), and the raw files' bytes on disk ``before`` and ``after``, over the finished runs.
    """
    out = Path(out)
    runs = out / "runs"
    if not runs.is_dir():
        raise FileNotFoundError(f"{out} holds no runs/: is it a `gui-gym study --out` directory?")
    counts = dict(finished=0, packed=0, before=0, after=0)

    def size(path: Path) -> int:
        return sum(f.stat().st_size for n in RAW_FILES for f in (path / n, path / f"{n}.gz") if f.is_file())

    for path in sorted(p for p in runs.glob("*/seed*") if p.is_dir()):
        if read_status(path) is None:
            continue
        counts["finished"] += 1
        counts["before"] += size(path)
        counts["packed"] += bool(pack_run(path))
        if slim:
            counts["slimmed"] = counts.get("slimmed", 0) + slim_run(path)
        counts["after"] += size(path)
    return counts


def still_to_run(status: dict[str, Any] | None, retry_failed: bool = False) -> bool:
    """Whether a study (re)runs a run of this :func:`read_status`: unfinished, or crashed or diverged
    with ``retry_failed``."""
    return status is None or (retry_failed and status["status"] != "done")


# ----------------------------------------------------------------------------- one run


def train_config(cfg: StudyConfig, s: Setting, seed: int, out: Path) -> Any:
    """The :class:`~agents.train.TrainConfig` of one run: only the reward and the seed differ between
    runs (and a setting's own env, algorithm, advantage level, R(τ) or group sampler)."""
    from agents.train import TrainConfig

    values = dict(
        tasks=cfg.train_tasks,
        reward=with_admire_gamma(s.spec(str(out / "models")), cfg.admire_gamma),
        algo=s.algo or cfg.algo,
        iterations=cfg.iterations,
        tasks_per_iter=cfg.tasks_per_iter,
        group_size=cfg.group_size,
        max_steps=cfg.max_steps,
        eval_every=cfg.eval_every,
        eval_episodes=cfg.curve_episodes,
        num_envs=cfg.num_envs,
        seed=seed,
        out=str(run_dir(out, s.name, seed)),
        progress=False,
    )
    for key in ("sampler", "level", "returns"):  # the setting's own optimiser (its paper's, for <name>@paper)
        if getattr(s, key) is not None:
            values[key] = getattr(s, key)
    values["eval_greedy"] = not cfg.eval_sampled
    if cfg.warm_start:  # every setting's RL starts from the study's behaviour-cloned policy
        values["init"] = str(out / SFT_DIR)
    values.update(cfg.extra)
    if s.env_id is not None:  # its own env: expert trajectories of the same tasks, at seeds never evaluated
        values["env_id"] = s.env_id
        values["tasks"] = ",".join(f"train:{t.strip()}" for t in cfg.train_tasks.split(",") if t.strip())
        values["env_kwargs"] = {"data": str(out / EXPERIENCE_FILE), "data_format": "gui-gym"}
    return TrainConfig(**values)


def with_admire_gamma(spec: str, gamma: float | None) -> str:
    """``spec`` with ADMIRE's decay ``gamma`` on its milestone term (unchanged for None or no milestones).

    >>> with_admire_gamma("milestone-adaptive=no-decay+spa", 0.95)
    'milestone-adaptive=no-decay,gamma:0.95+spa'
    >>> with_admire_gamma("milestone", 0.9), with_admire_gamma("outcome", 0.9)
    ('milestone=gamma:0.9', 'outcome')
    """
    if gamma is None:
        return spec
    parts = []
    for part in spec.split("+"):
        name, eq, arg = part.partition("=")
        if name.strip().startswith("milestone"):
            part = f"{name}={arg},gamma:{gamma:g}" if eq and arg else f"{name}=gamma:{gamma:g}"
        parts.append(part)
    return "+".join(parts)


def live_evaluator(cfg: StudyConfig, tcfg: Any, policy: Any, out: Path) -> Any:
    """A trainer on the study's env that only evaluates *policy* (a setting trained elsewhere is
    evaluated where the others are)."""
    from agents.train import Trainer

    values = asdict(tcfg)
    values.update(
        env_id=cfg.extra.get("env_id", DEFAULT_ENV), tasks=cfg.train_tasks, algo=cfg.algo, reward="outcome",
        out=str(out / "live"), eval_tasks=None, env_kwargs=dict(cfg.extra.get("env_kwargs", {})),
    )  # fmt: skip
    return Trainer(type(tcfg)(**values), policy=policy)


def _eval_rows(
    trainer: Any, phase: str, tasks: dict[str, list[str]], n: int, tiers: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    """One row per evaluation episode; ``tiers`` (task → tier) replaces the family's difficulty."""
    rows = []
    tiers = tiers or {}
    for split, ids in tasks.items():
        episodes, errors = trainer.evaluation_episodes(ids, n)
        for ep in episodes:
            rows.append(dict(phase=phase, split=split, task=ep.task_id, seed=ep.instance.seed,
                             difficulty=tiers.get(ep.task_id, ep.difficulty), success=bool(ep.success),
                             length=ep.length, score=round(ep.outcome, 6)))  # fmt: skip
        for inst, err in errors:
            log.warning("evaluation episode %s/%s dropped: %s", inst.task, inst.seed, err)
    return rows


def _row_key(row: dict[str, Any]) -> tuple[Any, ...]:
    """What identifies an evaluation row within its run."""
    return row.get("phase"), row.get("split"), row.get("task"), row.get("seed")


def _write_rows(path: Path, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Merge ``rows`` into ``path`` by :func:`_row_key` (a row written again replaces the old one,
    in its place), atomically; returns every row now in the file."""
    merged = {_row_key(r): r for r in _read_rows(path)}
    merged.update((_row_key(r), r) for r in rows)
    atomic_write(path, lambda f: f.write("".join(json.dumps(r) + "\n" for r in merged.values())))
    return list(merged.values())


def _read_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of ``path`` ([] when it is missing), one per key (the last); a torn line is dropped."""
    rows = read_jsonl_objects(path)[0] if path.exists() else []
    return list({_row_key(r): r for r in rows}.values())


def _expected_keys(phase: str, tasks: dict[str, list[str]], n: int) -> set[tuple[Any, ...]]:
    return {(phase, split, t, seed) for split, ids in tasks.items() for t in ids for seed in range(n)}


def _milestone_stats(trainer: Any, s: Setting) -> dict[str, Any]:
    """Coverage (ADMIRE App. B.6) over the training tasks and hit counts per milestone (App. B.2)."""
    if "milestone" not in s.reward:
        return {"milestone_coverage": None, "milestone_hits": None}
    book = trainer.reward_state.book
    if book is not None:  # adaptive: the tasks the book has milestones for by the end
        covered = [bool(book.templates(t)) for t in trainer.train_tasks]
    else:
        specs = {spec.id: spec for spec in trainer.family.tasks(trainer.train_tasks)}
        covered = [bool(getattr(specs.get(t), "milestones", ())) for t in trainer.train_tasks]
    hits: dict[str, Counter[str]] = defaultdict(Counter)
    if book is not None:  # settled per batch by the trainer: the book holds the final counts
        book.flush()
        for task in book.tasks():
            for counts in book.hit_counts(task).values():
                hits[task].update(counts)
    else:
        try:
            counters = trainer.rollouts.envs.get_attr("hits")
        except AttributeError:
            counters = ()
        for counter in counters:
            for (task, _epoch, template), n in counter.items():
                hits[task][template] += n
    return {
        "milestone_coverage": sum(covered) / max(1, len(covered)),
        "milestone_hits": {t: dict(c.most_common()) for t, c in sorted(hits.items())},
    }


def _diverged(trainer: Any) -> str | None:
    import torch

    for name, p in trainer.policy.named_parameters() if hasattr(trainer.policy, "named_parameters") else ():
        if not torch.isfinite(p).all():
            return f"non-finite weights in {name}"
    done = [m for m in trainer.history if "updates" in m]
    skipped = sum(m.get("skipped_updates", 0) for m in done)
    total = skipped + sum(m.get("updates", 0) for m in done)
    if total and skipped / total > 0.5:
        return f"{skipped} of {total} updates skipped for a non-finite loss or gradient"
    return None


def _matchers(tcfg: Any) -> list[Any]:
    """The encoders a run reads texts with: the policy's and the milestone reward's MiniLM."""
    from wrappers.matching import SemanticMatcher

    found = {m.model_key: m for m in (SemanticMatcher(tcfg.encoder), SemanticMatcher())}
    return list(found.values())


def _embeddings_file(out: Path, key: str) -> Path:
    return out / "embeddings" / f"{hashlib.sha1(key.encode()).hexdigest()[:16]}.npz"


def _load_embeddings(out: Path, matchers: list[Any]) -> None:
    """Fill each encoder's cache with the embeddings earlier runs of the study saved. A text's
    embedding is the same bits in every process (encoded alone, on one thread), so this spares
    the encoding, never changes a result."""
    import numpy as np

    from wrappers.matching import unpack_texts

    for m in matchers:
        path = _embeddings_file(out, m.model_key)
        try:
            with np.load(path, allow_pickle=False) as z:
                if str(z["model"]) == m.model_key:
                    m.add_to_cache(unpack_texts(z), z["vectors"], normalized=True)
        except FileNotFoundError:
            continue
        except Exception as e:  # a damaged file only costs the encoding
            log.warning("ignoring the study's saved embeddings %s: %s", path, e)


def _save_embeddings(out: Path, matchers: list[Any]) -> None:
    """Write each encoder's cache (with what other runs saved meanwhile) for the runs to come."""
    import numpy as np

    from wrappers.matching import pack_texts

    _load_embeddings(out, matchers)
    for m in matchers:
        texts, vectors = m.cache_arrays()
        if not texts:
            continue
        arrays = {**pack_texts(texts), "vectors": vectors, "model": np.array(m.model_key)}
        try:
            atomic_write(_embeddings_file(out, m.model_key), lambda f, a=arrays: np.savez(f, **a), binary=True)
        except OSError as e:  # only the next runs' encoding is at stake
            log.warning("could not save the study's embeddings: %s", e)


def _check_leakage(cfg: StudyConfig, s: Setting, out: Path) -> None:
    """:func:`~agents.study.leakage.check_disjoint` for ``s`` on this study's tasks and its data."""
    from agents.train import task_ids

    env_id = cfg.extra.get("env_id", DEFAULT_ENV)
    seen = task_ids(cfg.train_tasks, env_id)
    unseen = task_ids(cfg.heldout_tasks, env_id) if cfg.heldout_tasks else []
    experience: list[str] = []
    if s.env_id is not None:
        from gui_gym.experience.readers import read_gui_gym

        experience = [e.id for e in read_gui_gym(out / EXPERIENCE_FILE)]
    check_disjoint(cfg, s, seen, unseen, experience)


def run_one(cfg: StudyConfig, name: str, seed: int, out: str | os.PathLike[str]) -> dict[str, Any]:
    """Train and evaluate one (setting, seed); returns (and writes) its ``status.json``. Never raises
    for a failure of the run itself: the exception is the status."""
    from agents.train import Trainer, build_policy, task_ids

    out = Path(out)
    s = setting(name)
    path = run_dir(out, name, seed)
    path.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    status: dict[str, Any] = {"setting": name, "seed": seed, "reward": s.reward, "status": "done", "error": None,
                              "code": code_version()}  # fmt: skip
    trainer, start = None, 0
    try:
        missing = [m for m in s.needs if not (out / "models" / m / "best.pt").exists()]
        if missing:
            raise FileNotFoundError(f"reward model {', '.join(missing)} was not built (see {out / 'models'})")
        tcfg = train_config(cfg, s, seed, out)
        _check_leakage(cfg, s, out)
        matchers = _matchers(tcfg)
        _load_embeddings(out, matchers)
        trainer = Trainer(tcfg, resume=(path / "checkpoint.pt").exists())
        start = trainer.iteration
        judge = trainer if s.env_id is None else live_evaluator(cfg, tcfg, trainer.policy, path)
        unseen = task_ids(cfg.heldout_tasks, judge.cfg.env_id) if cfg.heldout_tasks else []
        splits = {"seen": list(judge.train_tasks), "unseen": unseen}
        tiers = read_tiers(out)
        have = {_row_key(r) for r in _read_rows(path / "eval.jsonl")}
        if not _expected_keys("untrained", splits, cfg.eval_episodes) <= have:
            # before training: this seed's initial policy (rebuilt if a resumed run trained it)
            policy = judge.policy
            if trainer.iteration:
                judge.policy = build_policy(tcfg)
            _write_rows(path / "eval.jsonl", _eval_rows(judge, "untrained", splits, cfg.eval_episodes, tiers))
            judge.policy = policy
        trainer.run(close=False)
        _write_rows(path / "eval.jsonl", _eval_rows(judge, "trained", splits, cfg.eval_episodes, tiers))
        if judge is not trainer:
            judge.close()
        _save_embeddings(out, matchers)
        reason = _diverged(trainer)
        if reason:
            status.update(status="diverged", error=reason)
        status.update(_milestone_stats(trainer, s))
    except KeyboardInterrupt:
        raise
    except Exception as e:  # a failed run is a result: recorded, and the study goes on
        status.update(status="crashed", error=f"{type(e).__name__}: {e}", traceback=traceback.format_exc(limit=8))
    finally:
        if trainer is not None:
            trainer.close()
    status["iterations"] = trainer.iteration if trainer is not None else 0
    status["wall_s"] = round(time.perf_counter() - t0, 1)  # this process's: from iteration resumed_at on
    status["resumed_at"] = start
    atomic_write_json(path / "status.json", status)
    _pack(path)
    return status


def _worker_init(workers: int, study_pid: int) -> None:
    """A worker's share of the cores, and its end when the study process is gone (killed): an
    orphaned run would go on writing files that the resumed study writes too."""
    configure_threads(workers=workers)

    def watch() -> None:
        while os.getppid() == study_pid:
            time.sleep(1.0)
        os._exit(70)

    threading.Thread(target=watch, name="study-watchdog", daemon=True).start()


# ----------------------------------------------------------------------------- the study


def _check_resumable(out: Path, cfg: StudyConfig) -> dict[str, Any]:
    """The ``study.json`` of a study in ``out`` that ``cfg`` continues ({} when there is none)."""
    path = out / "study.json"
    if not path.exists():
        return {}
    try:
        study = json.loads(path.read_text(encoding="utf-8"))
        saved = study["config"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ValueError(f"{path} is unreadable ({e}); move it away or choose another --out") from e
    now = json.loads(json.dumps(asdict(cfg)))
    defaults = {f.name: f.default for f in fields(StudyConfig) if f.default is not MISSING}
    # a setting the study was run before had: its default then
    changed = [k for k in now if k not in _RESUMABLE and saved.get(k, defaults.get(k)) != now[k]]
    if changed:
        raise ValueError(
            f"{out} holds a study with other settings ({', '.join(f'{k}={saved.get(k)!r}' for k in changed)}); "
            "rerun it with the same ones to resume, or choose another --out"
        )
    return study


def code_version() -> str | None:
    """The commit of the code a run trains with (``+dirty`` with uncommitted changes to tracked files),
    or None outside a git checkout: a study resumed over several sessions says what each run ran."""
    import subprocess

    root = Path(__file__).resolve().parents[2]
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                               capture_output=True, text=True, timeout=10)  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    if head.returncode != 0 or not head.stdout.strip():
        return None
    return head.stdout.strip() + ("+dirty" if dirty.returncode == 0 and dirty.stdout.strip() else "")


def _write_study(out: Path, cfg: StudyConfig, command: str, started: str, wall: float, done: bool) -> None:
    """``wall``: the study's seconds so far, every process's; written as runs finish, so that a study
    killed between runs keeps the time it had spent."""
    atomic_write_json(
        out / "study.json",
        {
            "mode": cfg.mode,
            "command": command,
            "config": asdict(cfg),
            "started": started,
            "finished": datetime.now(UTC).isoformat(timespec="seconds") if done else None,
            "wall_s": round(wall, 1),
            "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
        },
    )


def _crashed(out: Path, name: str, seed: int, error: str) -> dict[str, Any]:
    status = {"setting": name, "seed": seed, "reward": setting(name).reward, "status": "crashed", "error": error,
              "iterations": 0, "wall_s": 0.0}  # fmt: skip
    path = run_dir(out, name, seed)
    path.mkdir(parents=True, exist_ok=True)
    atomic_write_json(path / "status.json", status)
    _pack(path)
    return status


#: The study's behaviour-cloned starting policy (``gui-gym sft``'s run directory), under ``OUT``.
SFT_DIR = "sft"


def prepare_tiers(cfg: StudyConfig, out: Path) -> dict[str, dict[str, Any]]:
    """``OUT/tiers.json``: every study task's oracle length and tier (measured once; {} without ``tier_cuts``)."""
    if cfg.tier_cuts is None:
        return {}
    path = out / TIERS_FILE
    if path.exists():
        return json.loads(path.read_text(encoding="utf-8"))
    from agents.train import task_ids

    env_id = cfg.extra.get("env_id", DEFAULT_ENV)
    tasks = task_ids(cfg.train_tasks, env_id) + (task_ids(cfg.heldout_tasks, env_id) if cfg.heldout_tasks else [])
    try:
        tiers = oracle_tiers(env_id, tasks, cfg.tier_cuts, env_kwargs=dict(cfg.extra.get("env_kwargs", {})))
    except TypeError as e:  # no oracle: the family's declared difficulty stands (the report says which)
        log.warning("%s; the study keeps the declared difficulty", e)
        return {}
    atomic_write_json(path, tiers)
    return tiers


def prepare_warm_start(cfg: StudyConfig, out: Path, progress: bool = True) -> dict[str, Any]:
    """Behaviour-clone the study's starting policy once (``OUT/sft``), on the training tasks'
    demonstration seeds, evaluated on their held-out seeds; a finished one is reused. A summary kept without
    its weights (a committed study on a new machine) is cloned again and must say the same, or this refuses."""
    from agents.sft import SFTConfig, clone
    from agents.train import CHECKPOINT

    where = out / SFT_DIR
    summary = where / "sft_summary.json"
    kept = json.loads(summary.read_text(encoding="utf-8")) if summary.exists() else None
    if kept is not None and (where / CHECKPOINT).exists():
        return kept
    if where.exists():  # a clone cut short, or kept without its weights (they are not committed): clone again
        shutil.rmtree(where)
    extra = cfg.extra
    sft = SFTConfig(
        env_id=extra.get("env_id", DEFAULT_ENV), env_kwargs=dict(extra.get("env_kwargs", {})),
        tasks=cfg.train_tasks, demos_per_task=cfg.sft_demos, epochs=cfg.sft_epochs, k=cfg.sft_k,
        eval_seeds=cfg.curve_episodes, max_steps=cfg.max_steps, encoder=extra.get("encoder"),
        hidden=int(extra.get("hidden", 128)), num_envs=cfg.num_envs, out=str(where), progress=progress,
        tiers=read_tiers(out),
    )  # fmt: skip
    made = clone(sft)
    if kept is not None and _clone_results(kept) != _clone_results(made):
        # finished runs started from the kept clone: a different one would mix two starting policies
        raise RuntimeError(
            f"the warm start cloned again in {where} differs from the one this study's runs started from "
            f"(kept epoch {kept.get('kept_epoch')} → {made.get('kept_epoch')}, pass@1 "
            f"{(kept.get('kept') or {}).get('pass@1_all')} → {(made.get('kept') or {}).get('pass@1_all')}); "
            "run the study in a new --out, or rerun every finished run"
        )
    return made


def _clone_results(summary: dict[str, Any]) -> dict[str, Any]:
    """What a clone's summary says of the policy (not where or how long it ran)."""
    keys = ("demonstration_steps", "coverage", "oracle_episodes", "oracle_successes", "kept_epoch", "kept", "before")
    untimed = {k: summary.get(k) for k in keys}
    for k in ("kept", "before"):  # epoch rows carry their wall seconds
        if isinstance(untimed[k], dict):
            untimed[k] = {key: v for key, v in untimed[k].items() if key != "seconds"}
    return untimed


def run_study(
    cfg: StudyConfig,
    out: str | os.PathLike[str],
    command: str = "",
    retry_failed: bool = False,
    progress: bool = True,
    report: bool = True,
) -> Path:
    """Run (or resume) the study in ``out``; returns the path of ``reward_study.md`` (or of ``out``)."""
    out = Path(out)
    settings = cfg.setting_list()
    previous = _check_resumable(out, cfg)
    out.mkdir(parents=True, exist_ok=True)
    # A resumed study keeps its start time and adds this session's time to the earlier ones.
    started = previous.get("started") or datetime.now(UTC).isoformat(timespec="seconds")
    t0 = time.perf_counter() - float(previous.get("wall_s") or 0.0)
    _write_study(out, cfg, command, started, time.perf_counter() - t0, done=False)

    jobs: list[tuple[str, int]] = []
    for seed in cfg.seeds:  # seed-major: a study cut short still has every setting on the first seeds
        for s in settings:
            status = read_status(run_dir(out, s.name, seed))
            if still_to_run(status, retry_failed):
                if status is not None:  # a failed run is retried from scratch
                    shutil.rmtree(run_dir(out, s.name, seed))
                jobs.append((s.name, seed))
            else:  # finished: packed already, unless its process was killed just after status.json
                _pack(run_dir(out, s.name, seed))
    total = len(settings) * len(cfg.seeds)
    if total > len(jobs):
        print(f"{total - len(jobs)} of {total} runs already finished in {out}: skipped")
    prepare_tiers(cfg, out)
    if any(setting(name).env_id is not None for name, _ in jobs):
        from agents.train import task_ids

        experience_file(out, task_ids(cfg.train_tasks, cfg.extra.get("env_id", DEFAULT_ENV)))
    for s in {setting(name) for name, _ in jobs}:  # before anything trains: no setting sees what it is tested on
        _check_leakage(cfg, s, out)
    if cfg.warm_start and jobs:  # first: the reward models learn from the warm-started actor's rollouts
        prepare_warm_start(cfg, out, progress)
    needed = sorted({m for name, _ in jobs for m in setting(name).needs})  # only for runs still to do
    if needed:
        from agents.study.reward_models import prepare_reward_models
        from agents.train import task_ids

        env_id = cfg.extra.get("env_id", DEFAULT_ENV)
        try:
            prepare_reward_models(
                out / "models", task_ids(cfg.train_tasks, env_id), needed, episodes=cfg.rm_episodes,
                epochs=cfg.rm_epochs, patience=cfg.rm_patience, seed=0, max_steps=cfg.max_steps, progress=progress,
                env_id=env_id, actor=out / SFT_DIR if cfg.warm_start else None,
            )  # fmt: skip
        except KeyboardInterrupt:
            raise
        except Exception as e:  # the settings that read a model report it; the others run
            log.warning("reward models could not be built: %s: %s", type(e).__name__, e)

    bar = tqdm(total=len(jobs), desc="study", unit="run", disable=not progress)

    def finished(status: dict[str, Any]) -> None:
        _write_study(out, cfg, command, started, time.perf_counter() - t0, done=False)
        bar.update(1)
        note = status["status"] if status["status"] != "done" else f"{status['wall_s']:.0f}s"
        bar.write(f"  {status['setting']} seed {status['seed']}: {note}"
                  + (f" ({status['error'].splitlines()[0][:100]})" if status.get("error") else ""))  # fmt: skip

    try:
        if cfg.workers <= 1 or len(jobs) <= 1:
            for name, seed in jobs:
                finished(run_one(cfg, name, seed, out))
        else:
            _run_pool(cfg, jobs, out, finished)
    finally:
        bar.close()
    _write_study(out, cfg, command, started, time.perf_counter() - t0, done=True)
    if not report:
        return out
    from agents.study.report import write_report

    return write_report(out)


def _run_pool(cfg: StudyConfig, jobs: list[tuple[str, int]], out: Path, finished: Any) -> None:
    """Runs over ``cfg.workers`` processes. When a worker dies the pool goes with it: the runs in
    flight are queued again (they resume from their checkpoints) and a run in flight at two such
    deaths is recorded as crashed."""
    pending = list(jobs)
    deaths: Counter[tuple[str, int]] = Counter()
    ctx = multiprocessing.get_context("spawn")  # no fork of a process holding torch threads
    while pending:
        pool = ProcessPoolExecutor(
            max_workers=min(cfg.workers, len(pending)), mp_context=ctx, initializer=_worker_init,
            initargs=(cfg.workers, os.getpid()), max_tasks_per_child=1,  # a fresh process per run
        )  # fmt: skip
        running: dict[Future, tuple[str, int]] = {}
        try:
            while pending or running:
                while pending and len(running) < cfg.workers:
                    job = pending.pop(0)
                    running[pool.submit(run_one, cfg, job[0], job[1], out)] = job
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for fut in done:
                    job = running.pop(fut)
                    try:
                        finished(fut.result())
                    except BrokenProcessPool:
                        running[fut] = job
                        raise
                    except Exception as e:  # the result could not come back (e.g. unpicklable)
                        finished(_crashed(out, *job, f"{type(e).__name__}: {e}"))
        except BrokenProcessPool:
            for job in running.values():
                if read_status(run_dir(out, *job)) is not None:
                    continue
                deaths[job] += 1
                if deaths[job] >= 2:
                    finished(_crashed(out, *job, "its worker process died twice (out of memory, or killed?)"))
                else:
                    pending.insert(0, job)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


def estimate_minutes(
    cfg: StudyConfig,
    out: str | os.PathLike[str] | None = None,
    retry_failed: bool = False,
    seconds_per_iteration: float = 1.5,
) -> float:
    """A rough wall-clock estimate of the runs still to do (:func:`still_to_run`). Runs already
    finished in ``out`` set the pace (their mean wall time per iteration: evaluations, reward models
    and the other worker's load included); without any, ``seconds_per_iteration`` (the warm-started
    quick mode measured about 1.5 s per iteration per run, with two workers on two cores)."""
    todo, paces = 0, []
    for s in cfg.setting_list():
        for seed in cfg.seeds:
            status = None if out is None else read_status(run_dir(out, s.name, seed))
            todo += still_to_run(status, retry_failed)
            if status is not None and status["status"] == "done" and status.get("wall_s"):
                trained = int(status.get("iterations") or 0) - int(status.get("resumed_at") or 0)
                if trained > 0:  # the iterations this process trained in its wall time
                    paces.append(float(status["wall_s"]) / trained)
    pace = statistics.fmean(paces) if paces else seconds_per_iteration
    return math.ceil(todo / max(1, cfg.workers)) * cfg.iterations * pace / 60
