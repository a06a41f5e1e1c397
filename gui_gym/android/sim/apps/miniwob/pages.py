"""MobileMiniWoB++'s pages: AndroidWorld's MiniWoB registry and the MiniWoB++ pages that run it.

The pages are MiniWoB++'s own HTML and JavaScript, loaded from Farama's ``miniwob`` package
(``pip install miniwob``) as ``file://`` URLs, offline. AndroidWorld's MiniWoB app
(``com.google.androidenv.miniwob``) runs the same pages with a few behaviours of its own, which
:data:`AW_BEHAVIOUR` gives the package's pages at load (the pages' files are not changed):

- the episode timer is cancelled at reset (``core.EP_TIMER`` and the countdown cleared), so no page
  times out, and the reward display is hidden;
- ``core.endEpisode`` records every reward it is given (AndroidWorld's has no guard on a cleared
  timer; the package's would drop the reward once the timer is cleared);
- clicks are not drawn on the click canvas beside the task, and the cover shown before an episode
  is blank.

AndroidWorld reads the goal from the page (``core.getUtterance()``: the ``#query`` text with its
white space collapsed), succeeds when the page's raw reward is exactly 1 and ends the episode as
soon as the page has given any non-zero reward; every task has complexity 3, 30 steps.

Where AndroidWorld's copies of the pages differ from MiniWoB++'s (the package's): 31 of the 92
pages differ in some line, most in jQuery UI id resets or texts; in some the reward formula
differs (``click-checkboxes*``: AndroidWorld pays 1 or -1 where MiniWoB++ pays the share of
boxes right), which changes no success, since both pay exactly 1 only when every box is right.
``drag-item`` is not in the package: it cannot be loaded here (its reset says so).
"""

from __future__ import annotations

import functools
from pathlib import Path

#: AndroidWorld's MiniWoB registry (``miniwob_registry._NAMES``), in its (alphabetical) order
NAMES = (
    "bisect-angle", "book-flight", "choose-date", "choose-date-easy", "choose-date-medium", "choose-list",
    "circle-center", "click-button", "click-button-sequence", "click-checkboxes", "click-checkboxes-large",
    "click-checkboxes-soft", "click-checkboxes-transfer", "click-collapsible", "click-collapsible-2",
    "click-color", "click-dialog", "click-dialog-2", "click-link", "click-menu-2", "click-option", "click-pie",
    "click-scroll-list", "click-shades", "click-shape", "click-tab", "click-tab-2", "click-tab-2-easy",
    "click-tab-2-hard", "click-tab-2-medium", "click-test", "click-test-2", "click-test-transfer",
    "click-widget", "copy-paste", "copy-paste-2", "count-shape", "count-sides", "drag-box", "drag-item",
    "email-inbox", "email-inbox-delete", "email-inbox-forward", "email-inbox-forward-nl",
    "email-inbox-forward-nl-turk", "email-inbox-important", "email-inbox-nl-turk", "email-inbox-noscroll",
    "email-inbox-reply", "email-inbox-star-reply", "enter-date", "enter-password", "enter-text",
    "enter-text-2", "enter-text-dynamic", "enter-time", "find-midpoint", "find-word", "focus-text",
    "focus-text-2", "grid-coordinate", "guess-number", "highlight-text", "highlight-text-2", "identify-shape",
    "login-user", "login-user-popup", "multi-layouts", "multi-orderings", "navigate-tree", "read-table",
    "read-table-2", "resize-textarea", "right-angle", "scroll-text", "scroll-text-2", "search-engine",
    "simon-says", "simple-algebra", "simple-arithmetic", "social-media", "social-media-all",
    "social-media-some", "terminal", "text-transform", "tic-tac-toe", "unicode-test", "use-autocomplete",
    "use-colorwheel", "use-colorwheel-2", "use-slider", "visual-addition",
)  # fmt: skip
#: the subset papers use (``_NAMES_SUBSET``, Synapse's 64), as far as AndroidWorld registers it:
#: ``click-menu`` and ``use-spinner`` are in the subset but not in the registry
SUBSET = (
    "book-flight", "choose-date", "choose-list", "click-button", "click-button-sequence", "click-checkboxes",
    "click-checkboxes-large", "click-checkboxes-soft", "click-checkboxes-transfer", "click-collapsible",
    "click-collapsible-2", "click-color", "click-dialog", "click-dialog-2", "click-link", "click-option",
    "click-pie", "click-scroll-list", "click-shades", "click-shape", "click-tab", "click-tab-2",
    "click-tab-2-hard", "click-test", "click-test-2", "click-widget", "copy-paste", "copy-paste-2",
    "count-shape", "email-inbox", "email-inbox-forward-nl", "email-inbox-forward-nl-turk",
    "email-inbox-nl-turk", "enter-date", "enter-password", "enter-text", "enter-text-dynamic", "enter-time",
    "find-word", "focus-text", "focus-text-2", "grid-coordinate", "guess-number", "identify-shape",
    "login-user", "login-user-popup", "multi-layouts", "multi-orderings", "navigate-tree", "read-table",
    "search-engine", "simple-algebra", "simple-arithmetic", "social-media", "social-media-all",
    "social-media-some", "terminal", "text-transform", "tic-tac-toe", "unicode-test", "use-autocomplete",
    "use-slider",
)  # fmt: skip
#: AndroidWorld's goal around the page's utterance (``MiniWoBTask.goal``)
GOAL = "Follow the instructions shown on the top of the screen: {utterance}"
#: every MiniWoB task's complexity in AndroidWorld (3), and the step limit it gives (10 per unit)
COMPLEXITY = 3
STEP_LIMIT = 10 * COMPLEXITY

INSTALL_HINT = "the MiniWoB++ pages come from Farama's package: pip install 'miniwob==1.1.0' (or gui-gym[miniwob])"


class PageMissing(RuntimeError):
    """The MiniWoB++ pages (or one page) are not installed; the message says how to get them."""


@functools.cache
def pages_dir() -> Path:
    """The folder of the MiniWoB++ task pages (``.../miniwob/html/miniwob``)."""
    try:
        import miniwob  # the pages' package: this suite needs it, nothing else
    except ImportError as e:
        raise PageMissing(f"the MiniWoB++ pages are not installed; {INSTALL_HINT}") from e
    folder = Path(miniwob.__file__).resolve().parent / "html" / "miniwob"
    if not folder.is_dir():
        raise PageMissing(f"the miniwob package has no pages at {folder}; {INSTALL_HINT}")
    return folder


def page_url(name: str) -> str:
    """The ``file://`` URL of task ``name``'s page."""
    if name not in NAMES:
        raise PageMissing(f"{name!r} is not one of AndroidWorld's MiniWoB tasks")
    path = pages_dir() / f"{name}.html"
    if not path.is_file():
        raise PageMissing(f"the installed miniwob package has no page {name}.html ({INSTALL_HINT})")
    return path.as_uri()


def class_name(name: str) -> str:
    """AndroidWorld's task class (``task.name``) for page ``name``: ``click-button`` -> ``MiniWobClickButton``."""
    return "MiniWob" + "".join(part.capitalize() for part in name.split("-"))


# AndroidWorld's app behaviour on the package's pages (see the module's docstring). Run once the
# page has loaded and ``core.startEpisode`` has made its cover and display.
AW_BEHAVIOUR = r"""
(() => {
  if (window.__ggAW) return true;
  window.__ggAW = true;
  const end = core.endEpisode;
  core.endEpisode = function (reward, timeProportional, reason) {
    if (core.EP_TIMER === null) core.EP_TIMER = -1;  // record the reward even with the timer cleared
    return end.call(core, reward, timeProportional, reason);
  };
  document.body.removeEventListener('click', core.canvasDrawClick);
  if (core.cover_div) { core.cover_div.innerHTML = ''; core.cover_div.onclick = null; }
  if (window.jQuery) jQuery.fx.off = true;  // effects end at once: what is read is what is shown
  return true;
})()
"""

# AndroidWorld's reset (MainActivity.reset), after seeding the page's random numbers.
RESET = r"""
(() => {{
  Math.seedrandom({seed});
  core.startEpisodeReal();
  clearTimeout(core.EP_TIMER); clearInterval(core.CD_TIMER);
  core.EP_TIMER = null; core.CD_TIMER = null;
  core.hideDisplay();
  const u = core.getUtterance();
  return typeof u === 'string' ? u : (u && u.utterance) || '';
}})()
"""

#: the page's episode state: [done, raw reward, reward, reason]
STATE = "[WOB_DONE_GLOBAL, WOB_RAW_REWARD_GLOBAL, WOB_REWARD_GLOBAL, WOB_REWARD_REASON]"
#: whether the page has made its cover (``core.startEpisode`` ran on load)
READY = "typeof core !== 'undefined' && core.cover_div !== null"
