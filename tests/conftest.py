"""Shared set-up: make the package importable from a plain checkout and tune hypothesis."""

from __future__ import annotations

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HERE = os.path.dirname(os.path.abspath(__file__))
for _p in (ROOT, HERE):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import pytest  # noqa: E402
from _browser import browser, chromium_present  # noqa: E402, F401  (the session's headless Chromium)
from hypothesis import HealthCheck, settings  # noqa: E402

PROXY_VARS = ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY")


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Loopback servers in tests must not be reached through a proxy set in the environment."""
    for var in PROXY_VARS:
        monkeypatch.delenv(var, raising=False)


settings.register_profile(
    "gui_gym",
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "gui_gym"))


@pytest.fixture(scope="session")
def tiny_encoder(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A tiny random BERT encoder directory (see ``_util.save_tiny_encoder``)."""
    from _util import save_tiny_encoder

    return save_tiny_encoder(tmp_path_factory.mktemp("tiny_bert"))
