"""A WebView on the phone: a page in a real headless Chromium (:mod:`.chromium`), shown at the
phone's size, its elements in the dump as Android's WebView exposes them to uiautomator.

What an agent reads of a page is what Chromium's Android accessibility layer gives the framework:
an ``android.webkit.WebView`` whose descendants are the page's elements, each with an Android
class by its role (:data:`CLASSES`: buttons ``android.widget.Button``, text inputs
``android.widget.EditText``, check boxes ``android.widget.CheckBox`` ...; everything else
``android.view.View``), its text, its description, checkable/checked, clickable (an element with a
click handler, a link, a control), focusable/focused, enabled, password, and its bounds in screen
pixels. Runs of text are nodes of their own unless they are an element's only content.

Page coordinates map to the screen by the WebView's place on screen and its zoom: a CSS pixel is
``zoom`` screen pixels (AndroidWorld's MiniWoB app zooms its pages to 500 %). Touches on the WebView
become the mouse events a WebView's tap dispatches, at the page point under the finger.

Everything from the page is data: its texts go into the dump, its pixels into the screenshot;
nothing of it is run here, and text typed by an agent reaches the page only as key input.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

from PIL import Image

from gui_gym.android.sim.web.chromium import BrowserError, Chromium
from gui_gym.android.ui import Node

#: the page's elements by role, as Chromium's Android accessibility names their classes
CLASSES = {
    "textbox": "android.widget.EditText",
    "button": "android.widget.Button",
    "checkbox": "android.widget.CheckBox",
    "radio": "android.widget.RadioButton",
    "slider": "android.widget.SeekBar",
    "combobox": "android.widget.Spinner",
    "image": "android.widget.Image",
    "list": "android.widget.ListView",
    "table": "android.widget.GridView",
    "dialog": "android.app.Dialog",
    "progress": "android.widget.ProgressBar",
    "tablist": "android.widget.TabWidget",
}
VIEW = "android.view.View"
TEXTVIEW = "android.widget.TextView"  # a run of text, or a div/p/heading holding only text
WEBVIEW = "android.webkit.WebView"

# Before any page script: remember which elements get click-like listeners (Chromium calls an
# element with a click listener clickable; the page's own code cannot be asked afterwards).
LISTEN_JS = r"""
(() => {
  const add = EventTarget.prototype.addEventListener;
  const kinds = new Set([
    "click", "mousedown", "mouseup", "touchstart", "touchend", "pointerdown", "pointerup", "dblclick"]);
  EventTarget.prototype.addEventListener = function (type, fn, opts) {
    if (kinds.has(type) && this && this.nodeType === 1) { this.__ggClick = true; }
    return add.call(this, type, fn, opts);
  };
})();
"""

# The page as accessibility nodes: [role, text, desc, flags, [l, t, r, b], children, hint, html id];
# flags bits:
# 1 clickable, 2 focusable, 4 focused, 8 checkable, 16 checked, 32 disabled, 64 password,
# 128 selected, 256 scrollable, 512 editable. Rectangles in CSS pixels of the viewport.
TREE_JS = r"""
(() => {
  const TEXT_INPUTS = new Set(["text", "password", "email", "number", "search", "tel", "url", ""]);
  const active = document.activeElement;
  function role(el) {
    const tag = el.tagName.toLowerCase(), type = (el.getAttribute("type") || "").toLowerCase();
    const aria = (el.getAttribute("role") || "").toLowerCase();
    if (aria === "button") return "button";
    if (aria === "checkbox") return "checkbox";
    if (aria === "radio") return "radio";
    if (aria === "tablist") return "tablist";
    if (aria === "dialog") return "dialog";
    const editRoot = el.isContentEditable && el.parentElement && !el.parentElement.isContentEditable;
    if (tag === "textarea" || editRoot) return "textbox";
    if (tag === "input") {
      if (type === "checkbox") return "checkbox";
      if (type === "radio") return "radio";
      if (type === "range") return "slider";
      if (type === "button" || type === "submit" || type === "reset" || type === "image") return "button";
      if (["date", "time", "color", "datetime-local", "month", "week"].includes(type)) return "combobox";
      if (type === "hidden") return "";
      if (TEXT_INPUTS.has(type)) return "textbox";
      return "textbox";
    }
    if (tag === "button") return "button";
    if (tag === "select") return "combobox";
    if (tag === "img" || tag === "canvas" || tag === "svg") return "image";
    if (tag === "ul" || tag === "ol") return "list";
    if (tag === "table") return "table";
    if (tag === "progress" || tag === "meter") return "progress";
    return "view";
  }
  function shown(el) {
    const st = getComputedStyle(el);
    return st.display !== "none" && st.visibility !== "hidden" && st.visibility !== "collapse"
      && parseFloat(st.opacity || "1") > 0;
  }
  function box(r) { return [r.left, r.top, r.right, r.bottom]; }
  function textOf(node) { return (node.textContent || "").replace(/\s+/g, " ").trim(); }
  function walk(el) {
    if (!shown(el)) return null;
    const tag = el.tagName.toLowerCase();
    if (tag === "script" || tag === "style" || tag === "noscript" || tag === "head" || tag === "option") return null;
    if (el.getAttribute("aria-hidden") === "true") return null;
    const r = role(el);
    if (r === "") return null;
    const rect = el.getBoundingClientRect();
    let flags = 0;
    const type = (el.getAttribute("type") || "").toLowerCase();
    const control = ["textbox", "button", "checkbox", "radio", "slider", "combobox"].includes(r);
    const handler = el.__ggClick || typeof el.onclick === "function" || el.hasAttribute("onclick");
    if (control || tag === "a" || handler) flags |= 1;
    const tabbable = el.tabIndex >= 0 && el.hasAttribute("tabindex");
    if (control || (tag === "a" && el.hasAttribute("href")) || tabbable) flags |= 2;
    if (el === active && active !== document.body) flags |= 4;
    if (r === "checkbox" || r === "radio") {
      flags |= 8;
      if (el.checked || el.getAttribute("aria-checked") === "true") flags |= 16;
    }
    if (el.disabled) flags |= 32;
    if (tag === "input" && type === "password") flags |= 64;
    if (tag === "option" && el.selected || el.getAttribute("aria-selected") === "true") flags |= 128;
    const st = getComputedStyle(el);
    if ((st.overflowY === "auto" || st.overflowY === "scroll") && el.scrollHeight > el.clientHeight + 1) flags |= 256;
    if (r === "textbox") flags |= 512;
    let text = "", desc = el.getAttribute("aria-label") || "";
    const kids = [];
    if (r === "textbox") {
      text = tag === "input" || tag === "textarea" ? el.value : textOf(el);
      desc = desc || "";
      return [r, text, desc, flags, box(rect), [], el.getAttribute("placeholder") || "", el.id || ""];
    }
    if (tag === "input") {
      // the accessible name: a check box's or radio button's from its <label>, else the value
      // (a submit button's caption; an unlabelled check box's "on"), as Chromium names it
      const labelled = (r === "checkbox" || r === "radio") && el.labels && el.labels.length;
      text = (labelled ? textOf(el.labels[0]) : "") || el.getAttribute("title") || el.value || "";
      return [r, text, desc, flags, box(rect), [], "", el.id || ""];
    }
    if (tag === "select") {
      const opt = el.options[el.selectedIndex];
      return [r, opt ? opt.text : "", desc, flags, box(rect), [], "", el.id || ""];
    }
    if (r === "image") {
      desc = desc || el.getAttribute("alt") || el.getAttribute("title") || "";
      return [r, "", desc, flags, box(rect), [], "", el.id || ""];
    }
    const elementKids = Array.from(el.childNodes).filter(n => n.nodeType === 1);
    const onlyText = elementKids.length === 0 && tag !== "a";
    if (onlyText) {
      // a leaf: its text is its children's; a div, span, p or heading of text is a TextView
      text = textOf(el);
      const generic = /^(div|span|p|h[1-6]|label|b|i|em|strong|small|font|center)$/.test(tag);
      if (r === "view" && generic && text) return ["textview", text, desc, flags, box(rect), [], "", el.id || ""];
      if (r === "button") return [r, text, desc, flags, box(rect), [], "", el.id || ""];
    } else {
      if (tag === "a") desc = desc || textOf(el);  // a link's text is its description; its text runs stay below it
      for (const n of el.childNodes) {
        if (n.nodeType === 3) {
          const t = n.textContent.replace(/\s+/g, " ").trim();
          if (!t) continue;
          const range = document.createRange(); range.selectNodeContents(n);
          const rr = range.getBoundingClientRect();
          if (rr.width === 0 && rr.height === 0) continue;
          kids.push(["text", t, "", 0, box(rr), [], "", ""]);
        } else if (n.nodeType === 1) {
          const k = walk(n);
          if (k !== null) kids.push(k);
        }
      }
    }
    if ((rect.width === 0 || rect.height === 0) && kids.length === 0) return null;
    return [r, text, desc, flags, box(rect), kids, "", el.id || ""];
  }
  const body = document.body;
  return {
    title: document.title || "",
    tree: body ? walk(body) : null,
    scroll: [window.scrollX, window.scrollY],
    size: [document.documentElement.scrollWidth, document.documentElement.scrollHeight],
  };
})()
"""

_NOT_TEXT = "['checkbox','radio','button','submit','reset','range','color','file','image','hidden']"

# A US keyboard's keys: (DOM ``code``, Windows virtual key code) of each printable ASCII character,
# the shifted ones on their base key. ``adb shell input text`` (AndroidWorld's typing) sends each
# character as the key events of its key, which a page sees as keydown/keypress/keyup.
_PUNCT = {
    " ": ("Space", 32), "-": ("Minus", 189), "_": ("Minus", 189), "=": ("Equal", 187), "+": ("Equal", 187),
    "[": ("BracketLeft", 219), "{": ("BracketLeft", 219), "]": ("BracketRight", 221), "}": ("BracketRight", 221),
    "\\": ("Backslash", 220), "|": ("Backslash", 220), ";": ("Semicolon", 186), ":": ("Semicolon", 186),
    "'": ("Quote", 222), '"': ("Quote", 222), ",": ("Comma", 188), "<": ("Comma", 188), ".": ("Period", 190),
    ">": ("Period", 190), "/": ("Slash", 191), "?": ("Slash", 191), "`": ("Backquote", 192), "~": ("Backquote", 192),
}  # fmt: skip
_SHIFTED_DIGITS = dict(zip(")!@#$%^&*(", "0123456789", strict=True))


def key_of(c: str) -> tuple[str, int] | None:
    """The (``code``, virtual key code) that types character ``c`` on a US keyboard (``None``: no key does).

    >>> key_of("a"), key_of("Q"), key_of("7"), key_of("!"), key_of("é")
    (('KeyA', 65), ('KeyQ', 81), ('Digit7', 55), ('Digit1', 49), None)
    """
    if len(c) != 1 or not c.isascii():
        return None
    if c.isalpha():
        return f"Key{c.upper()}", ord(c.upper())
    digit = c if c.isdigit() else _SHIFTED_DIGITS.get(c)
    if digit is not None:
        return f"Digit{digit}", ord(digit)
    return _PUNCT.get(c)


# After the last input: the tasks it queued have run (a timer turn), or two animation frames have
# passed (a gesture's scroll and what it set off are done).
SETTLE = "new Promise(r => setTimeout(() => r(true), 0))"
SETTLE_FRAMES = "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))"
SCROLLS = (
    "[window.scrollX, window.scrollY, ...Array.from(document.querySelectorAll('*'))"
    ".filter(e => e.scrollTop || e.scrollLeft).flatMap(e => [e.scrollTop, e.scrollLeft])]"
)


@dataclass
class Frame:
    """Where a WebView sits on screen and how it zooms its page."""

    left: int
    top: int
    right: int
    bottom: int
    zoom: float  # screen pixels per CSS pixel

    def to_screen(self, rect: list[float]) -> tuple[int, int, int, int] | None:
        """A page rectangle (CSS pixels of the viewport) in screen pixels, cut to the view;
        ``None`` when nothing of it is inside."""
        z = self.zoom
        l, t = self.left + round(rect[0] * z), self.top + round(rect[1] * z)
        r, b = self.left + round(rect[2] * z), self.top + round(rect[3] * z)
        l, t, r, b = max(l, self.left), max(t, self.top), min(r, self.right), min(b, self.bottom)
        if r <= l or b <= t:
            return None
        return (l, t, r, b)

    def to_page(self, x: int, y: int) -> tuple[float, float]:
        """A screen point as a page point (CSS pixels of the viewport)."""
        return ((x - self.left) / self.zoom, (y - self.top) / self.zoom)


class WebView:
    """One page in one headless Chromium, seen through a WebView of ``frame``'s size and zoom.

    The page's accessibility nodes and screenshot are read when asked for and kept until the page
    may have changed (any input, a navigation, an evaluation that says so)."""

    def __init__(self, frame: Frame) -> None:
        self.frame = frame
        self.browser = Chromium(*self._metrics(frame))
        self.browser.command("Page.addScriptToEvaluateOnNewDocument", {"source": LISTEN_JS})
        self.url = ""
        self._tree: dict[str, Any] | None = None
        self._shot: Image.Image | None = None
        self._reads: dict[str, Any] = {}
        self.version = 0  # counts the page's possible changes (keys a screenshot)

    @staticmethod
    def _metrics(frame: Frame) -> tuple[int, int, float]:
        """The viewport (CSS pixels) a frame shows, and the screenshot's scale: half the phone's
        pixels (the env's default frame is 540x1200)."""
        width = round((frame.right - frame.left) / frame.zoom)
        height = round((frame.bottom - frame.top) / frame.zoom)
        return width, height, frame.zoom / 2

    def fit(self, frame: Frame) -> None:
        """Show the page through ``frame`` (the same place, another zoom: a page laid out wider)."""
        if frame != self.frame:
            self.frame = frame
            self.browser.resize(*self._metrics(frame))
            self.changed()

    def close(self) -> None:
        self.browser.close()

    def changed(self) -> None:
        """The page may have changed: read it again when next asked."""
        self._tree = self._shot = None
        self._reads.clear()
        self.version += 1

    def read(self, expression: str) -> Any:
        """The value of a JavaScript expression that only reads the page, kept until it changes."""
        if expression not in self._reads:
            self._reads[expression] = self.browser.evaluate(expression)
        return self._reads[expression]

    # -- the page ------------------------------------------------------------------------
    def load(self, url: str) -> None:
        """Navigate to ``url`` (a fresh browser first when the old one died)."""
        if not self.browser.alive:
            self.browser.restart()
            self.browser.command("Page.addScriptToEvaluateOnNewDocument", {"source": LISTEN_JS})
        self.browser.navigate(url)
        self.url = url
        self.changed()

    def evaluate(self, expression: str, changes: bool = True) -> Any:
        """Run page JavaScript the app itself runs (never an agent's text)."""
        try:
            return self.browser.evaluate(expression)
        finally:
            if changes:
                self.changed()

    def tree(self) -> dict[str, Any]:
        """The page's accessibility nodes (see :data:`TREE_JS`), kept until the page changes."""
        if self._tree is None:
            self._tree = self.browser.evaluate(TREE_JS)
        return self._tree

    def screenshot(self) -> Image.Image:
        """The WebView's pixels (half the frame's size in screen pixels), kept until the page changes."""
        if self._shot is None:
            img = Image.open(io.BytesIO(self.browser.screenshot()))
            img.load()
            self._shot = img.convert("RGB")
        return self._shot

    # -- the dump ------------------------------------------------------------------------
    def nodes(self, package: str, rid: str) -> Node:
        """The WebView's node with the page's nodes under it (screen pixels, cut to the view)."""
        f = self.frame
        page = self.tree()
        box = (f.left, f.top, f.right, f.bottom)
        scrollable = page["size"][1] * f.zoom > f.bottom - f.top + 1 or page["size"][0] * f.zoom > f.right - f.left + 1
        document = Node(
            WEBVIEW,
            box,
            page.get("title") or "",
            package=package,
            focusable=True,
            scrollable=scrollable,
            role="webnode",
        )
        body = self._node(page["tree"], package) if page.get("tree") is not None else None
        if body is not None:  # the body is no node of its own: its content is the document's
            document.children = body.children
        return Node(WEBVIEW, box, rid=rid, package=package, focusable=True, children=[document], role="web")

    def _node(self, raw: list[Any], package: str) -> Node | None:
        role, text, desc, flags, rect, kids, hint, html_id = raw
        bounds = self.frame.to_screen(rect)
        children = [n for n in (self._node(k, package) for k in kids) if n is not None]
        if bounds is None:
            return None
        cls = VIEW if role == "view" else TEXTVIEW if role in ("text", "textview") else CLASSES[role]
        if flags & 64 and text:
            text = "\u2022" * len(text)  # a password field shows a bullet per character
        node = Node(
            cls,
            bounds,
            text,
            rid=html_id,
            desc=desc,
            package=package,
            clickable=bool(flags & 1),
            focusable=bool(flags & 2),
            focused=bool(flags & 4),
            checkable=bool(flags & 8),
            checked=bool(flags & 16),
            enabled=not flags & 32,
            password=bool(flags & 64),
            selected=bool(flags & 128),
            scrollable=bool(flags & 256),
            children=children,
            label=text or desc or hint,
            role="webnode",
        )
        return node

    # -- input ---------------------------------------------------------------------------
    def settle(self, frames: bool = False) -> None:
        """Wait until the page has handled the input sent: the tasks it queued at once, or with
        ``frames`` the two frames after (a gesture's scroll, what it set off)."""
        self.browser.evaluate(SETTLE_FRAMES if frames else SETTLE)
        self.changed()

    def touch(self, points: list[tuple[int, int]], hold_ms: float = 0.0) -> None:
        """A finger on the WebView through screen ``points``, then settled. A tap (one point, not
        held) is delivered as the mouse events and click a WebView's tap ends in (a touch gesture
        costs a frame per event in headless Chromium); a long press or a swipe as touch events,
        from which the page's own gesture handling scrolls, drags or presses."""
        if len(points) == 1 and not hold_ms:
            self.browser.click(*self.frame.to_page(*points[0]))
            self.settle()
            return
        self.browser.touch([self.frame.to_page(x, y) for x, y in points], hold_ms)
        self.settle(frames=True)

    def scroll_offsets(self) -> list[float]:
        """Every scroll offset of the page (the document's and each scrolled element's)."""
        return self.browser.evaluate(SCROLLS) or []

    def focused_editable(self) -> bool:
        """Whether the page's focused element takes text."""
        return bool(
            self.read(
                "(() => { const e = document.activeElement; if (!e || e === document.body) return false;"
                " const t = (e.getAttribute('type') || '').toLowerCase();"
                " return e.tagName === 'TEXTAREA' || e.isContentEditable ||"
                " (e.tagName === 'INPUT' && !NOT_TEXT.includes(t)); })()".replace("NOT_TEXT", _NOT_TEXT)
            )
        )

    def editable_at(self, x: int, y: int) -> bool:
        """Whether the element under screen point (``x``, ``y``) takes text."""
        px, py = self.frame.to_page(x, y)
        return bool(
            self.read(
                f"(() => {{ const e = document.elementFromPoint({px!r}, {py!r}); if (!e) return false;"
                " const t = (e.getAttribute('type') || '').toLowerCase();"
                " return e.tagName === 'TEXTAREA' || e.isContentEditable ||"
                " (e.tagName === 'INPUT' && !NOT_TEXT.includes(t)); })()".replace("NOT_TEXT", _NOT_TEXT)
            )
        )

    def focused_value(self) -> str:
        value = self.read(
            "(() => { const e = document.activeElement; if (!e) return '';"
            " return e.value !== undefined ? String(e.value) : (e.isContentEditable ? e.innerText : ''); })()"
        )
        return value if isinstance(value, str) else ""

    def type(self, text: str, delete: int = 0, select_all: bool = False) -> None:
        """Key input into the focused element: ``delete`` Backspaces (or select all, then
        Backspace), then ``text`` key by key as ``adb shell input text`` types it (a page's key
        handlers see each key); a run of characters no key types is committed as an input method
        commits it."""
        b = self.browser
        backspace = b.key_calls("Backspace", "Backspace", 8)
        calls: list[tuple[str, dict[str, Any]]] = []
        if select_all:
            b.evaluate(
                "(() => { const e = document.activeElement; if (e && e.select) e.select();"
                " else document.execCommand('selectAll'); })()"
            )
            calls += backspace
        else:
            calls += backspace * delete
        run = ""  # characters no key types, committed together
        for c in text:
            key = key_of(c)
            if key is None:
                run += c
                continue
            if run:
                calls.append(("Input.insertText", {"text": run}))
                run = ""
            calls += b.key_calls(c, key[0], key[1], c)
        if run:
            calls.append(("Input.insertText", {"text": run}))
        if calls:  # sent at once: Chromium runs them in order, one round trip in all
            b.commands(calls)
        self.settle()

    def enter(self) -> None:
        self.browser.key("Enter", "Enter", 13, "\r")
        self.settle()


__all__ = ["BrowserError", "Frame", "WebView"]
