"""The import rules of ARCHITECTURE.md, checked on the source.

- ``gui_gym`` imports nothing of ``wrappers`` or ``agents``;
- ``gui_gym.core`` names no family: it imports no family package and no module of it;
- a family imports ``gui_gym.core`` and itself (the experience family may read other families'
  public modules);
- ``wrappers`` imports ``gui_gym.core`` (and ``gui_gym`` itself, which registers the ids) only;
- ``agents`` reaches family code only through ``family_of``: only ``agents/cli`` and
  ``agents/study`` may import a family;
- no module imports another module's private (``_name``) attribute;
- no import cycles between modules.
"""

from __future__ import annotations

import ast
import itertools
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("gui_gym", "wrappers", "agents")


def _modules() -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


MODULES = _modules()


def _imports(module: str, path: Path, top_level_only: bool = False) -> Iterator[tuple[str, list[str], int]]:
    """``(imported module, names taken from it, line)`` for each import of ours in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = tree.body if top_level_only else _walk(tree)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in PACKAGES:
                    yield alias.name, [], node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            if base.split(".")[0] in PACKAGES:
                names = [a.name for a in node.names]
                # "from pkg import module" imports the module
                subs = [f"{base}.{n}" for n in names if f"{base}.{n}" in MODULES]
                yield base, [n for n in names if f"{base}.{n}" not in MODULES], node.lineno
                for sub in subs:
                    yield sub, [], node.lineno


def _walk(node: ast.AST) -> Iterator[ast.AST]:
    """Every node, less the bodies of ``if TYPE_CHECKING:`` (annotations only, never run)."""
    for child in ast.iter_child_nodes(node):
        test = child.test if isinstance(child, ast.If) else None
        if test is not None and "TYPE_CHECKING" in ast.unparse(test):
            yield from (n for c in child.orelse for n in [c, *_walk(c)])
            continue
        yield child
        yield from _walk(child)


def _family(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "gui_gym" and len(parts) > 1 and parts[1] != "core" else None


def _violations() -> list[str]:
    bad = []
    for module, path in MODULES.items():
        top = module.split(".")[0]
        where = f"{path.relative_to(ROOT)}"
        for target, names, line in _imports(module, path):
            target_top, target_family = target.split(".")[0], _family(target)
            at = f"{where}:{line} imports {target}"
            if top == "gui_gym" and target_top in ("wrappers", "agents"):
                bad.append(f"{at}: gui_gym imports nothing of wrappers or agents")
            if module.startswith("gui_gym.core") and target_family:
                bad.append(f"{at}: gui_gym.core names no family")
            own = _family(module)
            if own and target_family and target_family != own and own != "experience":
                bad.append(f"{at}: a family imports only gui_gym.core and itself")
            if top == "wrappers" and target_family:
                bad.append(f"{at}: wrappers import gui_gym.core only")
            if top == "agents" and target_family and not module.startswith(("agents.cli", "agents.study")):
                bad.append(
                    f"{at}: agents reach family code through family_of (only agents.cli/agents.study may import it)"
                )
            private = [n for n in names if n.startswith("_") and not n.startswith("__")]
            if private and target != module:
                bad.append(f"{at}: private names {private} from another module")
    return bad


def test_core_names_no_family_but_the_deprecated_alias() -> None:
    """No string in gui_gym.core's code (docstrings aside) names a family module, except the one
    deprecated alias that forwards the old ``gui_gym.core.actions`` names to the Android family."""
    found = []
    for module, path in MODULES.items():
        if not module.startswith("gui_gym.core"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {
            id(n.body[0].value)
            for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef)) and n.body and isinstance(n.body[0], ast.Expr)
        }
        for node in ast.walk(tree):
            text = node.value if isinstance(node, ast.Constant) and id(node) not in docstrings else None
            if isinstance(text, str) and re.search(r"gui_gym\.(?!core\b)\w+", text):
                found.append((module, text))
    assert found == [("gui_gym.core.actions", "gui_gym.android.actions")], found


def test_import_rules() -> None:
    assert not _violations(), "\n".join(_violations())


def test_no_import_cycles() -> None:
    # Imports inside functions count too: a cycle that only a lazy import keeps from failing is
    # still two modules that each need the other. A package and its own submodules (re-exports)
    # are not a cycle by themselves.
    graph = {m: {t for t, _, _ in _imports(m, p) if t in MODULES and t != m} for m, p in MODULES.items()}
    state: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for t in sorted(graph[m]):
            if state.get(t) == 1:
                cycle = [*stack[stack.index(t) :], t]
                if not all(a.startswith(b + ".") or b.startswith(a + ".") for a, b in itertools.pairwise(cycle)):
                    cycles.append(cycle)
            elif t not in state:
                visit(t)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


@pytest.mark.parametrize("rule", ["core", "wrappers"])
def test_the_checker_sees_a_violation(rule: str, tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text("from gui_gym.android.actions import parse_action\nfrom wrappers.spa import _x\n")
    module = "gui_gym.core.m" if rule == "core" else "wrappers.m"
    found = list(_imports(module, path))
    assert ("gui_gym.android.actions", ["parse_action"], 1) in found and ("wrappers.spa", ["_x"], 2) in found
