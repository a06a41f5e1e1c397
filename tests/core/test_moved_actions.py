"""The action grammar moved to the Android family; the old import paths still work, with a warning."""

from __future__ import annotations

import subprocess
import sys

import pytest

import gui_gym.android.actions as android_actions


@pytest.mark.parametrize(("module", "name"), [("gui_gym.core.actions", "parse_action"), ("gui_gym.core", "Action")])
def test_old_paths_warn_and_give_the_android_names(module: str, name: str) -> None:
    code = f"from {module} import {name} as x"
    scope: dict[str, object] = {}
    with pytest.warns(DeprecationWarning, match=f"moved to gui_gym.android.actions.{name}"):
        exec(code, scope)  # the import statement a user wrote before the move
    assert scope["x"] is getattr(android_actions, name)


def test_unknown_names_are_attribute_errors() -> None:
    import gui_gym.core
    import gui_gym.core.actions

    with pytest.raises(AttributeError):
        gui_gym.core.no_such_name  # noqa: B018
    with pytest.raises(AttributeError):
        gui_gym.core.actions.no_such_name  # noqa: B018


def test_importing_the_core_loads_no_family() -> None:
    code = (
        "import gui_gym.core, gui_gym.core.actions, sys; "
        "print(sorted(m for m in sys.modules if m.startswith('gui_gym.android')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
