"""Android's copy and paste: the text-selection toolbar a long press on a text field opens.

A long press on a field focuses it and shows the floating toolbar with "Paste" (when the
clipboard holds text) and "Select all" (when the field does); with the text selected it offers
"Cut" and "Copy" (never in a password field) and "Paste". The toolbar is the last view of the
window its field is in (the app's or its dialog's), so every dump and element list shows it.
"""

from __future__ import annotations

import gymnasium as gym

import gui_gym  # noqa: F401  (registers GuiAndroid-v0)
from gui_gym.android.actions import Action, parse_action
from gui_gym.android.sim.apps.base import App
from gui_gym.android.sim.device import Device
from gui_gym.android.sim.dialogs import InputDialog
from gui_gym.android.sim.tasks.base import Oracle
from gui_gym.android.sim.tasks.clipboard import copy_field, paste_into, text_action
from gui_gym.android.sim.widgets import UI, Screen
from gui_gym.android.ui import to_xml


class Form(Screen):
    """A screen with a one-line field, a password field and a multi-line field."""

    def build(self, ui: UI, dev: Device) -> None:
        ui.toolbar("Form")
        ui.field(self, "name", "Name", rid="test:id/name")
        ui.field(self, "pin", "PIN", rid="test:id/pin", password=True)
        ui.field(self, "notes", "Notes", rid="test:id/notes", multiline=True)
        ui.button("Rename", lambda: dev.open_dialog(InputDialog("on_rename", "Rename", [("title", "Title")])))

    def on_rename(self, dev: Device, value: dict) -> str:
        self.form["name"] = value.get("title", "")
        return "Rename"


class FormApp(App):
    name = "form"
    label = "Form"
    package = "test.form"

    def root(self, dev: Device) -> Screen:
        return Form()


def _device(**form: str) -> tuple[Device, Form]:
    dev = Device(apps={"form": FormApp()})
    dev.launch("form")
    screen = dev.top_screen()
    assert isinstance(screen, Form)
    screen.form.update(form)
    dev.invalidate()
    return dev, screen


def _field(dev: Device, label: str):
    return next(n for n in dev.elements() if n.field is not None and n.label == label)


def _act(dev: Device, kind: str, node=None, **kw) -> str:
    out = dev.act(parse_action(Action(kind, element=None if node is None else node.bounds, **kw)))
    assert out.valid, out.reason
    return out.description


def _items(dev: Device) -> list[str]:
    return [n.desc for n in dev.text_actions()]


def _tap_item(dev: Device, title: str) -> str:
    return _act(dev, "tap", next(n for n in dev.text_actions() if n.desc == title))


def test_select_all_then_copy_puts_the_fields_text_on_the_clipboard() -> None:
    dev, screen = _device(name="Jane's Flower Shop")
    said = _act(dev, "long_press", _field(dev, "Name"))
    assert said == 'Long press the "Name" field to show the text actions'
    assert screen.focus == "name" and dev.state.keyboard
    assert _items(dev) == ["Select all"]  # nothing selected, nothing to paste
    assert _tap_item(dev, "Select all") == 'Select all the text of "Name"'
    assert _items(dev) == ["Cut", "Copy"]
    assert _tap_item(dev, "Copy") == 'Copy "Jane\'s Flower Shop" from "Name" to the clipboard'
    assert dev.state.clipboard == "Jane's Flower Shop"
    assert screen.form["name"] == "Jane's Flower Shop" and _items(dev) == []  # the toolbar closed


def test_paste_shows_only_with_a_clip_and_inserts_at_the_end() -> None:
    dev, screen = _device(name="Hello ")
    _act(dev, "long_press", _field(dev, "Name"))
    assert "Paste" not in _items(dev)
    dev.state.clipboard = "world\nagain"
    dev.invalidate()
    _act(dev, "long_press", _field(dev, "Name"))
    assert _items(dev) == ["Paste", "Select all"]
    assert _tap_item(dev, "Paste") == 'Paste "world again" into "Name"'
    assert screen.form["name"] == "Hello world again"  # a one-line field takes the lines as one
    _act(dev, "long_press", _field(dev, "Notes"))
    _tap_item(dev, "Paste")
    assert screen.form["notes"] == "world\nagain"


def test_with_all_selected_paste_and_typing_replace_the_text_and_cut_empties_it() -> None:
    dev, screen = _device(name="old", notes="old notes")
    dev.state.clipboard = "new"
    for way in ("paste", "type", "cut"):
        screen.form["name"] = "old"
        dev.invalidate()
        _act(dev, "long_press", _field(dev, "Name"))
        _tap_item(dev, "Select all")
        assert _items(dev) == ["Cut", "Copy", "Paste"]
        if way == "paste":
            _tap_item(dev, "Paste")
            assert screen.form["name"] == "new"
        elif way == "type":
            assert _act(dev, "type", text="typed") == (
                'Replace the text of "Name" with "typed"; Press Enter to move to the next field "PIN"'
            )
            assert screen.form["name"] == "typed"
        else:
            assert _tap_item(dev, "Cut") == 'Cut "old" from "Name" to the clipboard'
            assert screen.form["name"] == "" and dev.state.clipboard == "old"
        assert dev.state.selection is None


def test_a_password_field_offers_no_copy_and_an_empty_field_no_toolbar() -> None:
    dev, _ = _device(pin="1234")
    _act(dev, "long_press", _field(dev, "PIN"))
    _tap_item(dev, "Select all")
    assert _items(dev) == []  # no Cut/Copy of a password, and nothing to paste
    said = _act(dev, "long_press", _field(dev, "Notes"))
    assert said == 'Long press the "Notes" field (no text to select, nothing to paste)'
    assert dev.state.selection is None and dev.top_screen().focus == "notes"


def test_any_other_action_dismisses_the_toolbar_and_a_refused_one_keeps_it() -> None:
    dev, screen = _device(name="abc")
    for other in (
        lambda: _act(dev, "tap", _field(dev, "Notes")),
        lambda: _act(dev, "back"),
        lambda: _act(dev, "enter"),
        lambda: _act(dev, "type", text="d", clear=False, enter=False),
    ):
        _act(dev, "long_press", _field(dev, "Name"))
        assert _items(dev) == ["Select all"]
        assert not dev.act(parse_action(Action("tap", element=(0, 1000, 10, 1010)))).valid  # nothing there
        assert _items(dev) == ["Select all"]
        _act(dev, "wait")  # time passes, the toolbar stays
        assert _items(dev) == ["Select all"]
        other()
        assert _items(dev) == [] and dev.state.selection is None
    assert screen.form["name"] == "abcd"  # typing with only the cursor adds at the end


def test_the_toolbar_is_the_last_view_of_the_fields_window() -> None:
    dev, _ = _device(name="abc")
    before = [w.id for w in dev.windows()]
    _act(dev, "long_press", _field(dev, "Name"))
    assert sorted(w.id for w in dev.windows()) == sorted([*before, 9])  # the keyboard came up; no window else
    root = dev.tree()
    bar = root.children[-1]
    assert bar.package == "test.form" and bar.children[0].desc == "floating_toolbar"
    xml = to_xml(root)
    assert xml.index('content-desc="floating_toolbar"') > xml.index('resource-id="test:id/notes"')
    item = 'content-desc="Select all" checkable="false" checked="false" clickable="true"'
    assert item in xml and 'text="Select all" resource-id="android:id/floating_toolbar_menu_item_text"' in xml
    name_box, bar_box = _field(dev, "Name").bounds, bar.bounds
    assert bar_box[1] >= name_box[3] and bar_box[0] < (name_box[0] + name_box[2]) // 2 < bar_box[2]  # no room above
    dev.top_screen().form["notes"] = "x"
    _act(dev, "long_press", _field(dev, "Notes"))
    notes_box, bar_box = _field(dev, "Notes").bounds, dev.tree().children[-1].bounds
    assert bar_box[3] <= notes_box[1]  # above the field
    # the field keeps its dump: an EditText here is not reported long-clickable
    assert 'long-clickable="true"' not in xml


def test_a_field_of_a_dialog_gets_the_toolbar_over_the_dialog_and_behind_it_none() -> None:
    dev, _ = _device(name="abc")
    _act(dev, "tap", next(n for n in dev.elements() if n.text == "Rename"))
    name_box = (42, 392, 1038, 542)  # the screen's Name field, dimmed behind the dialog
    out = dev.act(parse_action(Action("long_press", element=name_box)))
    assert not out.valid and dev.state.selection is None
    dev.state.clipboard = "Report"
    dev.invalidate()
    _act(dev, "long_press", _field(dev, "Title"))
    assert dev.window().id == 7 and dev.tree().children[-1].children[0].desc == "floating_toolbar"
    assert _items(dev) == ["Paste"]
    _tap_item(dev, "Paste")
    assert dev.top_screen().dialog.form["title"] == "Report"


def test_a_snapshot_keeps_the_selection_on_its_own_field() -> None:
    dev, _ = _device(name="abc")
    _act(dev, "long_press", _field(dev, "Name"))
    _tap_item(dev, "Select all")
    snap = dev.snapshot()
    _tap_item(dev, "Copy")
    dev.restore(snap)
    assert _items(dev) == ["Cut", "Copy"] and dev.state.selection.host is dev.top_screen()
    _tap_item(dev, "Cut")
    assert dev.top_screen().form["name"] == "" and dev.state.clipboard == "abc"


def test_the_oracle_helpers_copy_and_paste() -> None:
    dev, screen = _device(name="copy me", notes="keep")
    steps = 0
    while dev.state.clipboard != "copy me":
        act = copy_field(Oracle(dev, {}), "Name")
        assert act is not None and dev.act(parse_action(act)).valid
        steps += 1
    assert steps == 3  # long press, Select all, Copy
    while screen.form.get("notes") != "copy me":
        act = paste_into(Oracle(dev, {}), "Notes", replace=True)
        assert act is not None and dev.act(parse_action(act)).valid
        steps += 1
    assert steps == 6  # long press, Select all, Paste
    assert paste_into(Oracle(dev, {}), "Nowhere") is None and text_action(Oracle(dev, {}), "Paste") is None


def test_agents_see_the_toolbar_in_every_dump_and_element_list() -> None:
    """Settings' search field through the env: the toolbar's items are in AndroidWorld's element
    list and the dump, and can be tapped by index."""
    for kw in ({}, {"ui_elements": "dump"}, {"ui_format": "mobilerl"}):
        env = gym.make("GuiAndroid-v0", task="SystemCopyToClipboard", **kw)
        env.reset(options={"params": {"seed": 0}})
        for _ in range(4):  # launch, open the search, type the text, long press the field
            obs, _, _, _, info = env.step(env.unwrapped.oracle_action())
        assert "Select all" in obs["ui"] and "Paste" in obs["ui"], kw
        names = [e.content_description for e in info["ui_elements"]]
        _, _, _, _, info = env.step({"action_type": "click", "index": names.index("Select all")})
        assert info["action_description"] == 'Select all the text of "Search settings"'
        names = [e.content_description for e in info["ui_elements"]]
        env.step({"action_type": "click", "index": names.index("Copy")})
        assert env.unwrapped.device.state.clipboard == env.unwrapped.params["clipboard_content"], kw
        env.close()
