"""No import circles in ``agents/``: the module graph (every import, lazy ones too) has no cycle,
and every module imports on its own in a fresh interpreter, in a random order."""

from __future__ import annotations

import ast
import random
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "agents"


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted((ROOT / PACKAGE).rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__main__":
            continue
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The ``agents`` modules that ``name`` imports anywhere in its file (top level or in a function)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            # ``from pkg import mod`` imports the submodule; ``from mod import name`` the module
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        else:
            continue
        for t in targets:
            while t and t not in known:  # ``import agents.algos.losses.x`` → the deepest known module
                t = t.rpartition(".")[0]
            if t and t != name:
                found.add(t)
    return found


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as a path of modules, or None."""
    state: dict[str, int] = {}  # 1: on the stack, 2: done
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_the_cycle_finder_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_the_agents_module_graph_has_no_cycle():
    modules = _modules()
    known = set(modules)
    # A package's own __init__ imports its submodules; a submodule depends on its parent package
    # only through what it names, so the edge ``agents.algos.grpo → agents.algos`` exists only
    # when grpo imports from ``agents.algos`` itself (which would be a real circle).
    graph = {name: _imports(name, path, known) for name, path in modules.items()}
    assert {"agents.train", "agents.collect", "agents.cli", "agents.distributed"} <= known
    assert "agents.train" not in graph["agents.distributed"]
    cycle = _cycle(graph)
    assert cycle is None, "import circle: " + " → ".join(cycle or ())


def test_every_agents_module_imports_alone_in_a_random_order():
    names = sorted(_modules())
    seed = random.randrange(1 << 30)
    random.Random(seed).shuffle(names)
    code = "import importlib, sys\nfor n in sys.argv[1:]:\n    importlib.import_module(n)\n"
    done = subprocess.run([sys.executable, "-c", code, *names], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"order seed {seed}: {names}\n{done.stderr[-3000:]}"
