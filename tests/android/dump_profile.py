"""Structural profile of a `uiautomator dump` XML file.

The simulator's dumps are checked against real device dumps (tests/android/fixtures/dumps)
by comparing these profiles, so every field is something a real dump shows and a test can
assert on: which window is dumped, how deep and wide the tree is, which attributes appear in
which order, where bounds break the parent/child nesting.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass

_BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")

Rect = tuple[int, int, int, int]


@dataclass(frozen=True)
class DumpProfile:
    """Facts about one dump; counts are over every <node> in the file."""

    root_package: str
    top_level_nodes: int
    root_bounds: Rect
    node_count: int
    max_depth: int
    attribute_order: tuple[str, ...]
    uniform_attribute_order: bool
    naf_count: int
    naf_always_first: bool
    overflowing_nodes: int
    packages: Counter[str]
    class_histogram: Counter[str]
    zero_area_nodes: int
    offscreen_nodes: int
    resource_ids: frozenset[str]

    @property
    def has_naf(self) -> bool:
        return self.naf_count > 0


def parse_bounds(text: str) -> Rect:
    """'[l,t][r,b]' -> (l, t, r, b); raises ValueError on anything else."""
    match = _BOUNDS.fullmatch(text.strip())
    if match is None:
        raise ValueError(f"bounds {text!r} is not of the form [l,t][r,b]")
    left, top, right, bottom = (int(v) for v in match.groups())
    return left, top, right, bottom


def _hierarchy(xml_text: str) -> ET.Element:
    """The <hierarchy> element; rejects files that are not a uiautomator dump."""
    root = ET.fromstring(xml_text.encode("utf-8"))
    if root.tag != "hierarchy":
        raise ValueError(f"expected a <hierarchy> root element, got <{root.tag}>")
    if not any(child.tag == "node" for child in root):
        raise ValueError("the <hierarchy> element holds no <node>: nothing was dumped")
    return root


def _depth(node: ET.Element) -> int:
    children = [c for c in node if c.tag == "node"]
    return 1 + max((_depth(c) for c in children), default=0)


def _contains(outer: Rect, inner: Rect) -> bool:
    return outer[0] <= inner[0] and outer[1] <= inner[1] and inner[2] <= outer[2] and inner[3] <= outer[3]


def _area(rect: Rect) -> int:
    return max(0, rect[2] - rect[0]) * max(0, rect[3] - rect[1])


def _offscreen(rect: Rect, screen: tuple[int, int]) -> bool:
    """True when the node lies wholly outside the display (a zero-area node does not count)."""
    width, height = screen
    if _area(rect) == 0:
        return False
    return rect[2] <= 0 or rect[3] <= 0 or rect[0] >= width or rect[1] >= height


def _without_naf(names: list[str]) -> tuple[str, ...]:
    return tuple(n for n in names if n != "NAF")


def profile(xml_text: str, screen: tuple[int, int] | None = None) -> DumpProfile:
    """Profile a dump. `screen` is the display size; by default the largest right/bottom
    edge among the top-level nodes, which is the display for a full-screen window."""
    hierarchy = _hierarchy(xml_text)
    tops = [c for c in hierarchy if c.tag == "node"]
    nodes = list(hierarchy.iter("node"))
    top_bounds = [parse_bounds(t.get("bounds", "")) for t in tops]
    if screen is None:
        screen = (max(b[2] for b in top_bounds), max(b[3] for b in top_bounds))

    orders = [_without_naf(list(n.attrib)) for n in nodes]
    naf_first = all(next(iter(n.attrib)) == "NAF" for n in nodes if "NAF" in n.attrib)

    overflowing = 0
    for parent in nodes:
        outer = parse_bounds(parent.get("bounds", ""))
        for child in parent:
            if child.tag == "node" and not _contains(outer, parse_bounds(child.get("bounds", ""))):
                overflowing += 1

    rects = [parse_bounds(n.get("bounds", "")) for n in nodes]
    return DumpProfile(
        root_package=tops[0].get("package", ""),
        top_level_nodes=len(tops),
        root_bounds=top_bounds[0],
        node_count=len(nodes),
        max_depth=max(_depth(t) for t in tops),
        attribute_order=orders[0],
        uniform_attribute_order=len(set(orders)) == 1,
        naf_count=sum(1 for n in nodes if n.get("NAF") == "true"),
        naf_always_first=naf_first,
        overflowing_nodes=overflowing,
        packages=Counter(n.get("package", "") for n in nodes),
        class_histogram=Counter(n.get("class", "") for n in nodes),
        zero_area_nodes=sum(1 for r in rects if _area(r) == 0),
        offscreen_nodes=sum(1 for r in rects if _offscreen(r, screen)),
        resource_ids=frozenset(n.get("resource-id", "") for n in nodes) - {""},
    )
