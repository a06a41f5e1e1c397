"""Scripted experts for MiniWoB++ pages: each reads the page's DOM (what a careful person reads
on the screen) and answers the next phone action, from whatever state the page is in.

An expert is JavaScript run in the page (this module's own; it only reads) that returns the next
step: ``["tap", [l, t, r, b]]`` (a CSS rectangle to tap), ``["type", [l, t, r, b], text]`` (make the
field there hold ``text``: tap it first when it is not focused), ``["scroll", [l, t, r, b], finger]``
(swipe the scrolled box there, the finger moving ``"up"`` or ``"down"``) or ``["none", why]`` (the
page shows nothing to do). :func:`next_action` turns it into the phone's action text on the element's
screen bounds. :data:`EXPERTS` maps page names to experts; pages without one train from the outcome.
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from gui_gym.android.actions import Action, format_action
from gui_gym.android.sim.apps.calendar.tasks import pick_time
from gui_gym.android.sim.dialogs import MenuDialog, MultiChoiceDialog, TimePickerDialog
from gui_gym.android.ui import flatten

if TYPE_CHECKING:
    from gui_gym.android.sim.tasks.base import Oracle
    from gui_gym.android.sim.web.webview import WebView

# Shared helpers: an element's rectangle, the query's text, elements by their text.
_LIB = r"""
const R = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
const Q = () => document.getElementById('query').textContent.replace(/\s+/g, ' ').trim();
const T = e => e.textContent.replace(/\s+/g, ' ').trim();
const all = s => Array.from(document.querySelectorAll(s)).filter(e => e.getBoundingClientRect().width > 0);
const fill = (e, text) => (e.value === text ? null : ['type', R(e), text]);
// an element hidden in a scrolled box: swipe the box (the finger's direction) until it shows
const reach = e => {
  const r = e.getBoundingClientRect();
  for (let p = e.parentElement; p; p = p.parentElement) {
    if (!/(auto|scroll)/.test(getComputedStyle(p).overflowY) || p.scrollHeight <= p.clientHeight + 1) continue;
    const c = p.getBoundingClientRect();
    if (r.bottom > c.bottom) return ['scroll', R(p), 'up'];
    if (r.top < c.top) return ['scroll', R(p), 'down'];
  }
  return null;
};
// where a tap reaches e: its rectangle when its centre shows it, else a point of it that another
// element does not cover (MiniWoB++ places some elements at random, overlapping)
const P = e => {
  const r = e.getBoundingClientRect();
  const shows = (x, y) => {
    const h = document.elementFromPoint(x, y);
    return h !== null && (h === e || e.contains(h));
  };
  if (shows((r.left + r.right) / 2, (r.top + r.bottom) / 2)) return R(e);
  for (let i = 1; i < 8; i++) for (let j = 1; j < 8; j++) {
    const x = r.left + r.width * i / 8, y = r.top + r.height * j / 8;
    if (shows(x, y)) return [x - 1, y - 1, x + 1, y + 1];
  }
  return R(e);
};
const tap = e => reach(e) || ['tap', P(e)];
// MiniWoB++'s shapes (common/shapes.js) read back from the SVG: size (20 px large, 10 px small), colour,
// text and type; a description "[large|small] [colour] <text|type|item>" as it matches them
const SHAPE_COLORS = ['red', 'green', 'blue', 'aqua', 'black', 'magenta', 'yellow'];
const shapesOf = () => Array.from(document.querySelectorAll('#area_svg text, #area_svg rect, #area_svg circle, '
  + '#area_svg polygon')).map(el => {
  const tag = el.tagName.toLowerCase();
  let px;
  if (tag === 'text') px = parseFloat(el.getAttribute('font-size'));
  else if (tag === 'rect') px = +el.getAttribute('width');
  else if (tag === 'circle') px = 2 * el.getAttribute('r');
  else { const xs = el.getAttribute('points').trim().split(/\s+/).map(p => +p.split(',')[0]); px = xs[2] - xs[0]; }
  const text = tag === 'text' ? el.textContent : {rect: 'rectangle', circle: 'circle', polygon: 'triangle'}[tag];
  const type = tag !== 'text' ? 'shape' : /\d/.test(text) ? 'digit' : 'letter';
  return {el, size: px > 15 ? 'large' : 'small', color: el.getAttribute('fill'), text, type};
});
const desc = phrase => {
  const w = phrase.trim().split(' ');
  const size = ['large', 'small'].includes(w[0]) ? w.shift() : '';
  const color = SHAPE_COLORS.includes(w[0]) && w.length > 1 ? w.shift() : '';
  return {size, color, what: w.join(' ')};
};
const matches = (s, d) => (!d.size || s.size === d.size) && (!d.color || s.color === d.color)
  && (d.what === 'item' || s.text === d.what || s.type === d.what);
"""

_PLANS: dict[str, str] = {
    "click-button": r"""
const want = Q().match(/"(.*)" button/)[1];
const b = all('#area button').find(e => T(e) === want);
return b ? ['tap', P(b)] : ['none', 'no button ' + want];""",
    "click-link": r"""
const want = Q().match(/link "(.*)"\./)[1];
const a = all('#area .alink').find(e => e.innerHTML === want);
return a ? ['tap', P(a)] : ['none', 'no link ' + want];""",
    "click-test": r"""return ['tap', P(document.getElementById('subbtn'))];""",
    "click-test-2": r"""
const want = Q().match(/button (\w+)\./)[1];
const b = all('#area button').find(e => T(e) === want);
return b ? ['tap', P(b)] : ['none', 'no button ' + want];""",
    "click-dialog": r"""
const x = all('button.ui-button, .ui-dialog-titlebar-close')[0];
return x ? ['tap', P(x)] : ['none', 'no close button'];""",
    "focus-text": r"""return ['tap', P(document.getElementById('tt'))];""",
    "enter-text": r"""
const want = Q().match(/Enter "(.*)" into/)[1];
return fill(document.getElementById('tt'), want) || ['tap', P(document.getElementById('subbtn'))];""",
    "enter-password": r"""
const want = Q().match(/password "(.*)" into/)[1];
return fill(document.getElementById('password'), want) || fill(document.getElementById('verify'), want)
  || ['tap', P(document.getElementById('subbtn'))];""",
    "login-user": r"""
const m = Q().match(/username "(.*)" and the password "(.*)" into/);
return fill(document.getElementById('username'), m[1]) || fill(document.getElementById('password'), m[2])
  || ['tap', P(document.getElementById('subbtn'))];""",
    "click-checkboxes": r"""
const q = Q().match(/^Select (.*) and click Submit\.$/)[1];
const want = q === 'nothing' ? [] : q.split(', ').map(s => s.trim());
for (const l of all('#area label')) {
  const box = l.querySelector('input');
  if (box.checked !== want.includes(T(l))) return ['tap', P(box)];
}
return ['tap', P(document.getElementById('subbtn'))];""",
    "click-option": r"""
const want = Q().match(/^Select (.*) and click Submit\.$/)[1];
const l = all('#area label').find(e => T(e) === want);
if (!l) return ['none', 'no option ' + want];
const box = l.querySelector('input');
return box.checked ? ['tap', P(document.getElementById('subbtn'))] : ['tap', P(box)];""",
    "click-button-sequence": r"""
const pushed = typeof buttonsPushed === 'undefined' ? [] : buttonsPushed;
return ['tap', P(document.getElementById(pushed.length === 0 ? 'subbtn' : 'subbtn2'))];""",
    "enter-text-2": r"""
const m = Q().match(/^Type "(.*)" in all (upper|lower) case letters/);
const want = m[2] === 'upper' ? m[1].toUpperCase() : m[1].toLowerCase();
return fill(document.getElementById('tt'), want) || ['tap', P(document.getElementById('subbtn'))];""",
    "simple-arithmetic": r"""
const m = T(document.getElementById('math-problem')).match(/^(-?\d+) ([-+x]) (-?\d+) =$/);
const a = +m[1], b = +m[3];
const want = String(m[2] === '+' ? a + b : m[2] === '-' ? a - b : a * b);
return fill(document.getElementById('math-answer'), want) || ['tap', P(document.getElementById('subbtn'))];""",
    "focus-text-2": r"""
const n = {'1st': 1, '2nd': 2, '3rd': 3}[Q().match(/the (\w+) input/)[1]];
return ['tap', P(document.getElementById('tt' + n))];""",
    "click-tab": r"""
const want = Q().match(/(Tab #\d)/)[1];
const a = all('#area li a').find(e => T(e) === want);
return a ? ['tap', P(a)] : ['none', 'no tab ' + want];""",
    "click-widget": r"""
const want = Q().match(/a "(.*)" widget/)[1];
const w = all('#area [data-type]').find(e => e.getAttribute('data-type') === want);
return w ? ['tap', P(w)] : ['none', 'no widget ' + want];""",
    "click-collapsible": r"""
if (all('.ui-accordion-content').length === 0) return ['tap', P(all('#area h3')[0])];
return ['tap', P(document.getElementById('subbtn'))];""",
    "simple-algebra": r"""
const p = T(document.getElementById('math-problem'));
let m = p.match(/^x ([-+]) (\d+) = (\d+)$/), x;
if (m) x = m[1] === '+' ? +m[3] - +m[2] : +m[3] + +m[2];
else { m = p.match(/^(\d+) ([-+]) x = (\d+)$/); x = m[2] === '+' ? +m[3] - +m[1] : +m[1] - +m[3]; }
return fill(document.getElementById('math-answer'), String(x)) || ['tap', P(document.getElementById('subbtn'))];""",
    "read-table": r"""
const key = Q().match(/value of (.*) into the text field/)[1];
const row = all('#tab tr').find(tr => T(tr.children[0]) === key);
if (!row) return ['none', 'no row ' + key];
return fill(document.getElementById('tt'), T(row.children[1])) || ['tap', P(document.getElementById('subbtn'))];""",
    "read-table-2": r"""
for (const n of [1, 2]) {
  const key = T(document.getElementById('ll' + n)).replace(/:$/, '');
  const row = all('#tab tr').find(tr => T(tr.children[0]) === key);
  if (!row) return ['none', 'no row ' + key];
  const step = fill(document.getElementById('tt' + n), T(row.children[1]));
  if (step) return step;
}
return ['tap', P(document.getElementById('subbtn'))];""",
    "scroll-text": r"""
const box = document.getElementById('text-area');
if (box.scrollTop + box.clientHeight < box.scrollHeight - 1) return ['scroll', R(box), 'up'];  // read to its end
const words = T(box).split(' ');
const last = words[words.length - 1].replace(/[^a-zA-Z0-9]/g, '');
return fill(document.getElementById('answer-input'), last) || ['tap', P(document.getElementById('subbtn'))];""",
    "scroll-text-2": r"""
const box = document.getElementById('text-area');
const atEnd = box.scrollTop + box.clientHeight >= box.scrollHeight - 1;
if (/to the bottom/.test(Q()) && !atEnd) return ['scroll', R(box), 'up'];
if (/to the top/.test(Q()) && box.scrollTop > 0) return ['scroll', R(box), 'down'];
return ['tap', P(document.getElementById('subbtn'))];""",
    "visual-addition": r"""
const n = id => document.querySelectorAll('#' + id + ' .addition-block').length;
return fill(document.getElementById('math-answer'), String(n('visual-1') + n('visual-2')))
  || ['tap', P(document.getElementById('subbtn'))];""",
    "choose-date": r"""
const m = Q().match(/Select (\d\d)\/(\d\d)\/(\d{4}) as the date/);
const field = document.getElementById('datepicker');
if (field.value === m[1] + '/' + m[2] + '/' + m[3]) return ['tap', P(document.getElementById('subbtn'))];
const pop = document.getElementById('ui-datepicker-div');
if (!pop || pop.getBoundingClientRect().width === 0) return ['tap', P(field)];  // open the calendar
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October',
  'November', 'December'];
const month = MONTHS.indexOf(T(pop.querySelector('.ui-datepicker-month')));
const shown = 12 * +T(pop.querySelector('.ui-datepicker-year')) + month;
const want = 12 * +m[3] + (+m[1] - 1);
if (shown > want) return ['tap', P(pop.querySelector('.ui-datepicker-prev'))];
if (shown < want) return ['tap', P(pop.querySelector('.ui-datepicker-next'))];
const day = all('#ui-datepicker-div td:not(.ui-datepicker-other-month) a').find(a => +T(a) === +m[2]);
return day ? ['tap', P(day)] : ['none', 'no day ' + m[2]];""",
    "click-checkboxes-soft": r"""
// the words' meanings, as a person knows them: the page's own table of synonyms
const q = Q().match(/^Select words similar to (.*) and click Submit\.$/)[1];
const asked = q === 'nothing' ? [] : q.split(', ').map(s => s.trim());
const similar = (a, b) => SYNONYMS.some(g => g.includes(a) && g.includes(b));
for (const l of all('#boxes label')) {
  const box = l.querySelector('input');
  if (box.checked !== asked.some(w => similar(w, T(l)))) return ['tap', P(box)];
}
return ['tap', P(document.getElementById('subbtn'))];""",
    "click-menu-2": r"""
const menu = document.getElementById('menu');
if (menu.getBoundingClientRect().width === 0) return ['tap', P(document.getElementById('open-menu'))];
const icon = document.querySelector('#query .ui-icon');  // "the item with the <icon> icon": the same glyph
const label = icon ? null : Q().match(/labeled "(.*)"\.$/)[1];
const own = li => T(li.querySelector(':scope > div'));
const item = Array.from(menu.querySelectorAll('li')).find(li => icon
  ? li.querySelector(':scope > div > .ui-icon').className === icon.className : own(li) === label);
if (!item) return ['none', 'no item ' + Q()];
if (item.getBoundingClientRect().width > 0) return ['tap', P(item.querySelector(':scope > div'))];
// in a closed submenu: open it
return ['tap', P(item.parentElement.closest('li').querySelector(':scope > div'))];""",
    "text-transform": r"""
return fill(document.getElementById('tt'), T(document.getElementById('captcha')).replace(/ /g, ''))
  || ['tap', P(document.getElementById('subbtn'))];""",
    "login-user-popup": r"""
const cancel = document.getElementById('popup-cancel');
if (cancel && cancel.getBoundingClientRect().width > 0) return ['tap', P(cancel)];
const m = Q().match(/username "(.*)" and the password "(.*)" into/);
return fill(document.getElementById('username'), m[1]) || fill(document.getElementById('password'), m[2])
  || ['tap', P(document.getElementById('subbtn'))];""",
    "multi-orderings": r"""
const m = Q().match(/^Search for (.*) movies directed by (.*) from year (.*)\.$/);
const want = {genre: m[1], director: m[2], year: m[3]};
const name = e => {
  const box = e.closest('tr, .row, .field, .ui-entry, label, p') || e.parentElement;
  const text = [e.placeholder, e.getAttribute('aria-label'), box && T(box)].join(' ').toLowerCase();
  return text.includes('genre') ? 'genre' : (text.includes('year') || text.includes('date')) ? 'year'
    : (text.includes('director') || text.includes('name')) ? 'director' : null;
};
for (const e of all('#area input[type=text]')) {
  const k = name(e);
  if (k) { const step = fill(e, want[k]); if (step) return step; }
}
const go = all('#area button, #area .final, #area .ui-submit').find(e => /^(Submit|Search|Go!)$/.test(T(e)));
return go ? ['tap', P(go)] : ['none', 'no submit'];""",
    "click-color": r"""
const q = document.getElementById('query').children[0];
const want = q.tagName === 'DIV' ? /background-color: (.*);/.exec(q.getAttribute('style'))[1] : T(q);
const b = all('#area .color').find(e => e.getAttribute('data-color') === want);
return b ? ['tap', P(b)] : ['none', 'no box ' + want];""",
    "click-dialog-2": r"""
const want = Q().match(/labeled "(.*)"\.$/)[1];
const b = want === 'x' ? all('.ui-dialog-titlebar-close')[0]
  : all('.ui-dialog-buttonpane button').find(e => T(e) === want);
return b ? ['tap', P(b)] : ['none', 'no button ' + want];""",
    "click-tab-2": r"""
const want = Q().match(/link "(.*)"\.$/)[1];
const shown = all('#area .alink').find(e => e.innerHTML === want);
if (shown) return ['tap', P(shown)];
const link = Array.from(document.querySelectorAll('#area .alink')).find(e => e.innerHTML === want);
if (!link) {  // click-tab-2-medium empties its second tab: where the link was, that tab is the answer
  const empty = all('#area li.ui-tab')
    .find(li => !document.querySelector('#' + li.getAttribute('aria-controls') + ' .alink'));
  return empty ? ['tap', P(empty)] : ['none', 'no link ' + want];
}
return ['tap', P(document.querySelector('#area a[href="#' + link.closest('[id^=tabs-]').id + '"]'))];""",
    "click-collapsible-2": r"""
const want = Q().match(/link "(.*)"\.$/)[1];
const shown = all('#area .alink').find(e => e.innerHTML === want);
if (shown) return ['tap', P(shown)];
const section = Array.from(document.querySelectorAll('#area .alink')).find(e => e.innerHTML === want)
  .closest('.ui-accordion-content');
return ['tap', P(section.previousElementSibling)];""",
    "find-word": r"""
const n = +Q().match(/the (\d+)(?:st|nd|rd|th) word/)[1];
const word = T(document.querySelector('#area p')).split(' ')[n - 1].replace(/[^a-zA-Z]/g, '');
return fill(document.getElementById('answer-input'), word) || ['tap', P(document.getElementById('subbtn'))];""",
    "grid-coordinate": r"""
const want = Q().match(/coordinate (\(-?\d,-?\d\))/)[1];
const c = all('circle').find(e => e.getAttribute('id') === want);
return c ? ['tap', P(c)] : ['none', 'no point ' + want];""",
    "click-shades": r"""
const want = Q().match(/shades of (\w+) and/)[1];
for (const e of all('#area span')) {
  if ((e.getAttribute('class') === 'selected') !== (e.getAttribute('data-color') === want)) return ['tap', P(e)];
}
return ['tap', P(document.getElementById('submit'))];""",
    "identify-shape": r"""
const s = document.querySelector('#area_svg text, #area_svg rect, #area_svg circle, #area_svg polygon');
const tag = s.tagName.toLowerCase();
const want = tag === 'text' ? (/\d/.test(s.textContent) ? 'digit' : 'letter')
  : {rect: 'rectangle', circle: 'circle', polygon: 'triangle'}[tag];
return ['tap', P(document.querySelector('#area-buttons button[data-type="' + want + '"]'))];""",
    "navigate-tree": r"""
const want = Q().match(/named "(.*)"\.$/)[1];
const shown = all('#tree span').find(e => T(e) === want);
if (shown) return ['tap', P(shown)];
const target = Array.from(document.querySelectorAll('#tree span')).find(e => T(e) === want);
const above = [];  // the folders above it, innermost first
for (let li = target.closest('li').parentElement.closest('li'); li; li = li.parentElement.closest('li')) {
  above.push(li);
}
const closed = above.reverse().find(li => li.querySelector(':scope > ul').getBoundingClientRect().height === 0);
return closed ? ['tap', P(closed.querySelector(':scope > span'))] : ['none', 'no closed folder above ' + want];""",
    "click-shape": r"""
const d = desc(Q().match(/^Click on an? (.*)$/)[1]);
const s = shapesOf().find(s => matches(s, d));
return s ? ['tap', P(s.el)] : ['none', 'no shape ' + Q()];""",
    "count-shape": r"""
const d = desc(Q().match(/^How many (.*)s are there\?/)[1]);
const n = String(shapesOf().filter(s => matches(s, d)).length);
const b = all('#count-buttons button').find(e => T(e) === n);
return b ? ['tap', P(b)] : ['none', 'no button ' + n];""",
    "guess-number": r"""
const shown = id => !document.getElementById(id).classList.contains('hide');
const last = id => +document.querySelector('#' + id + ' span').textContent;
const guess = shown('higher') ? last('higher') + 1 : shown('lower') ? last('lower') - 1 : 5;
return fill(document.getElementById('tt'), String(guess)) || ['tap', P(document.getElementById('subbtn'))];""",
    "search-engine": r"""
const m = Q().match(/enter "(.*)" and press "Search", then find and click the (\d+)\w\w search result/);
const n = +m[2] - 1;
const box = document.getElementById('search-text');
if (box.value !== m[1]) return fill(box, m[1]);
const titles = all('#page-content .search-title');
if (titles.length === 0) return ['tap', P(document.getElementById('search'))];
const want = String(Math.floor(n / 3) + 1);
const active = all('#pagination li.active a')[0];
if (!active || T(active) !== want) {
  const link = all('#pagination li a').find(a => T(a) === want);
  return link ? ['tap', P(link)] : ['none', 'no page ' + want];
}
return ['tap', P(titles[n % 3])];""",
    "social-media": r"""
const m = Q().match(/^For the user (\S+), click on the "(.*)" button\.$/);
const ACTIONS = {share: 'Share via DM', copy: 'Copy link to Tweet', embed: 'Embed Tweet', 'menu-user': 'Mute',
  'block-user': 'Block', report: 'Report', reply: 'Reply', retweet: 'Retweet', like: 'Like'};
const action = Object.keys(ACTIONS).find(k => ACTIONS[k] === m[2]);
const media = Array.from(document.querySelectorAll('#area .media')).find(e => T(e.querySelector('.username')) === m[1]);
if (!media || !action) return ['none', 'no post or button for ' + Q()];
const target = media.querySelector('.' + action);
if (target.closest('ul') && target.closest('ul').classList.contains('hide')) return tap(media.querySelector('.more'));
return tap(target);""",
    "social-media-all": r"""
const m = Q().match(/^Click the "(.*)" button on (all|\d+) posts? by (\S+) and then click Submit\.$/);
const action = {Reply: 'reply', Retweet: 'retweet', Like: 'like', Share: 'share'}[m[1]];
const want = m[2] === 'all' ? Infinity : +m[2];
let done = 0;
for (const media of document.querySelectorAll('#area .media')) {
  const mine = T(media.querySelector('.username')) === m[3];
  for (const b of media.querySelectorAll('.controls .reply, .controls .retweet, .controls .like, .controls .share')) {
    const on = b.classList.contains('active');
    const should = mine && b.classList.contains(action) && (on || done < want);
    if (mine && b.classList.contains(action) && on) done++;
    if (on !== should) return tap(b);
    if (should && !on) done++;
  }
}
return tap(document.querySelector('#submitRow button'));""",
    "email-inbox": r"""
const q = Q();
// what is asked: the page's own phrasings (the NL pages' templates) read back, else the fixed one
let ask = null;
const senders = Array.from(document.querySelectorAll('#main .email-thread .email-sender')).map(T);
const sets = typeof TEMPLATES !== 'undefined' ? TEMPLATES
  : typeof NL_TEMPLATES !== 'undefined' ? {forward: {train: NL_TEMPLATES, test: []}} : null;
if (sets) {
  for (const act of Object.keys(sets)) {
    for (const t of [...sets[act].train, ...(sets[act].test || [])]) {
      const keys = [];
      const rx = t.trim().replace(/\s+/g, ' ').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
        .replace(/NAME|DEST|MSG/g, k => { keys.push(k); return '(.+?)'; });
      const m = q.match(new RegExp('^' + rx + '$', 'i'));
      if (!m) continue;
      const got = {act};
      keys.forEach((k, i) => { got[k] = m[i + 1]; });
      // of several readings, the one naming a sender in the inbox with the fewest words captured
      const known = senders.includes(got.NAME);
      const size = keys.reduce((n, k) => n + got[k].length, 0);
      if (!ask || (known && !ask.known) || (known === ask.known && size < ask.size)) ask = {...got, known, size};
    }
  }
} else {
  const m = q.match(new RegExp('^Find the email by (.*?) and (reply to them with the text "(.*)"'
    + '|forward that email to (.*)|click the trash|click the star)'));
  ask = {NAME: m[1], MSG: m[3], DEST: m[4], act: m[3] !== undefined ? 'reply' : m[4] !== undefined ? 'forward'
    : /trash/.test(m[2]) ? 'delete' : 'important'};
  if (ask.DEST) ask.DEST = ask.DEST.replace(/\.$/, '');
}
if (!ask) return ['none', 'not understood: ' + q];
const name = ask.NAME, act = ask.act === 'star' ? 'important' : ask.act;
const open = id => { const e = document.getElementById(id); return e && !e.classList.contains('hide') ? e : null; };
const byId = id => document.getElementById(id);
if (open('reply')) return fill(byId('reply-text'), ask.MSG) || tap(byId('send-reply'));
const dest = () => document.querySelector('#forward .forward-sender');
if (open('forward')) return fill(dest(), ask.DEST) || tap(byId('send-forward'));
const email = open('email');
if (email && T(email.querySelector('.email-sender')) !== name) return tap(document.getElementById('close-email'));
if (email) {
  const sel = {reply: '.email-reply', forward: '.email-forward', delete: '.email-actions .trash',
    important: '.email-actions .star'}[act];
  return tap(email.querySelector(sel));
}
const thread = Array.from(document.querySelectorAll('#main .email-thread'))
  .find(e => T(e.querySelector('.email-sender')) === name);
if (!thread) return ['none', 'no email by ' + name];
if (act === 'delete') return tap(thread.querySelector('.trash'));
if (act === 'important') return tap(thread.querySelector('.star'));
return tap(thread.querySelector('.email-sender'));""",
}
for _same, _as in (
    ("click-checkboxes-large", "click-checkboxes"),
    ("click-checkboxes-transfer", "click-checkboxes"),
    ("click-test-transfer", "click-test-2"),
    ("enter-text-dynamic", "enter-text"),
    ("unicode-test", "click-button"),
    ("multi-layouts", "multi-orderings"),
    ("click-tab-2-hard", "click-tab-2"),
    ("click-tab-2-easy", "click-tab-2"),
    ("choose-date-easy", "choose-date"),
    ("choose-date-medium", "choose-date"),
    ("click-tab-2-medium", "click-tab-2"),
    ("social-media-some", "social-media-all"),
    ("email-inbox-nl-turk", "email-inbox"),
    ("email-inbox-forward-nl", "email-inbox"),
    ("email-inbox-forward-nl-turk", "email-inbox"),
    ("email-inbox-delete", "email-inbox"),
    ("email-inbox-forward", "email-inbox"),
    ("email-inbox-important", "email-inbox"),
    ("email-inbox-noscroll", "email-inbox"),
    ("email-inbox-reply", "email-inbox"),
    ("email-inbox-star-reply", "email-inbox"),
):
    _PLANS[_same] = _PLANS[_as]


def _plan(name: str) -> str:
    return f"(() => {{ {_LIB} {_PLANS[name]}\n}})()"  # a plan may end in a comment


def next_action(o: Oracle, view: WebView, name: str) -> str:
    """The expert's next action on page ``name``, as the phone's action text."""
    step = view.evaluate(_plan(name), changes=False)
    kind = step[0] if isinstance(step, list) and step else "none"
    if kind == "none":
        return o.finish()
    bounds = view.frame.to_screen(step[1])
    if bounds is None:
        return o.swipe("up")  # the element is below the view: bring it up
    if kind == "tap":
        return format_action(Action("tap", element=bounds))
    if kind == "scroll":  # a swipe on the scrolled box, the finger moving ``step[2]``
        return format_action(Action("swipe", element=bounds, direction=step[2], dist="short"))
    focused = (
        view.focused_editable()
        and view.evaluate(
            "(() => { const r = document.activeElement.getBoundingClientRect();"
            " return [r.left, r.top, r.right, r.bottom]; })()",
            changes=False,
        )
        == step[1]
    )
    if not focused:
        return format_action(Action("tap", element=bounds))
    if view.focused_value() == step[2] + "\n":  # a text area took the Type's Enter as a new line
        key = next((n for n in o.dev.windows() if n.type == "input_method"), None)
        delete = next((n for n in flatten(key.root) if n.desc == "Delete"), None) if key else None
        if delete is not None:  # the keyboard's Delete takes it back
            return format_action(Action("tap", element=delete.bounds))
    return o.type(step[2])


def _expert(name: str) -> Callable[[Oracle, WebView], str]:
    return lambda o, view: next_action(o, view, name)


def _rect(view: WebView, expression: str) -> tuple[int, int, int, int] | None:
    rect = view.evaluate(
        f"(() => {{ const r = {expression}.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; }})()",
        changes=False,
    )
    return view.frame.to_screen(rect) if isinstance(rect, list) else None


def choose_list(o: Oracle, view: WebView) -> str:
    """choose-list: open the list (Android's own list dialog) and choose the asked item, then Submit."""
    want = view.evaluate("document.getElementById('query').textContent", changes=False)
    want = want.split("Select ", 1)[1].rsplit(" from the list", 1)[0].strip()
    if isinstance(o.dialog, MenuDialog):
        return o.tap(o.find(want, role="menuitem"))
    chosen = view.evaluate(
        "(() => { const s = document.getElementById('options'); return s.options[s.selectedIndex].text; })()",
        changes=False,
    )
    target = "document.getElementById('options')" if chosen != want else "document.querySelector('#area button')"
    box = _rect(view, target)
    return o.finish() if box is None else format_action(Action("tap", element=box))


def click_scroll_list(o: Oracle, view: WebView) -> str:
    """click-scroll-list: open the multiple list (Android's checkable list), check the asked items and
    only them, OK, then Submit."""
    query = view.evaluate("document.getElementById('query').textContent", changes=False)
    asked = query.split("Select ", 1)[1].rsplit(" from the scroll list", 1)[0]
    options = view.evaluate("Array.from(document.getElementById('options').options).map(o => o.text)", changes=False)
    # the asked items: one, or two joined by ", " (an item's own text may hold a comma)
    want = next(
        (set(c) for n in (1, 2) for c in itertools.permutations(range(len(options)), n)
         if ", ".join(options[i] for i in c) == asked),
        None,
    )  # fmt: skip
    if want is None:
        return o.finish()
    if isinstance(o.dialog, MultiChoiceDialog):
        for label, value in o.dialog.items:
            if (value in o.dialog.checked) != (value in want):
                return o.tap(o.find(label, role="checkbox"))
        return o.tap(o.find(rid="android:id/button1"))
    chosen = view.evaluate(
        "Array.from(document.getElementById('options').options).flatMap((o, i) => o.selected ? [i] : [])",
        changes=False,
    )
    target = "document.getElementById('options')" if set(chosen) != want else "document.querySelector('#area button')"
    box = _rect(view, target)
    return o.finish() if box is None else format_action(Action("tap", element=box))


_TERMINAL = """(() => {
  const q = document.getElementById('query').textContent;
  const m = q.match(/extension \\.(\\S+)$/);
  const lines = Array.from(document.querySelectorAll('#terminal-contents > div')).map(d => d.textContent.trim());
  const listed = lines.findIndex(l => /^user\\$\\s*ls$/.test(l));
  return {focused: document.activeElement === document.getElementById('terminal-target'),
          ext: m ? m[1] : '', files: listed < 0 ? null : (lines[listed + 1] || '').split(/\\s+/).filter(Boolean)};
})()"""


def terminal(o: Oracle, view: WebView) -> str:
    """terminal: focus the terminal, list the files (``ls``), delete the one the task names (``rm``)."""
    state = view.evaluate(_TERMINAL, changes=False)
    if not state["focused"]:
        box = _rect(view, "document.getElementById('terminal')")
        return o.finish() if box is None else format_action(Action("tap", element=box))
    if state["files"] is None:
        return o.type("ls")
    ext = state["ext"]
    name = next((f for f in state["files"] if (f.endswith("." + ext) if ext else "." not in f)), None)
    return o.finish() if name is None else o.type(f"rm {name}")


def enter_time(o: Oracle, view: WebView) -> str:
    """enter-time: open the time field's picker (Android's), type the asked time, then Submit."""
    query = view.evaluate("document.getElementById('query').textContent", changes=False)
    m = re.search(r"Enter (\d+):(\d{2}) ([AP]M) as the time", query)
    if m is None:
        return o.finish()
    hour = int(m.group(1)) % 12 + (12 if m.group(3) == "PM" else 0)
    target = dt.time(hour, int(m.group(2)))
    if isinstance(o.dialog, TimePickerDialog):
        return pick_time(o, target)
    value = view.evaluate("document.getElementById('tt').value", changes=False)
    which = (
        "document.getElementById('tt')" if value != target.strftime("%H:%M") else "document.getElementById('subbtn')"
    )
    box = _rect(view, which)
    return o.finish() if box is None else format_action(Action("tap", element=box))


#: the pages with an expert, by name
EXPERTS: dict[str, Callable[[Oracle, WebView], str]] = {name: _expert(name) for name in _PLANS}
EXPERTS.update(
    {"choose-list": choose_list, "click-scroll-list": click_scroll_list, "enter-time": enter_time, "terminal": terminal}
)
