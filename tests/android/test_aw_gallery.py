"""Simple Gallery Pro on the simulated phone (``apps/gallery``) and AndroidWorld's two tasks that read a
picture in it (MarkorTranscribeReceipt in ``apps/markor/androidworld.py``, ExpenseAddMultipleFromGallery
in ``apps/expense/androidworld.py``): the folder grid, a folder's media grid and the viewer; the
picture is in the pixels and not in the view tree; a pushed PNG or JPEG shows; the oracles solve
AndroidWorld's instances 0-29 through the env; idling and near misses fail; draws and checks computed
by hand from AndroidWorld's source."""

from __future__ import annotations

import datetime as dt
import io
import random

import numpy as np
import pytest
from _aw import make, solve, start
from PIL import Image

from gui_gym.android.actions import parse_action
from gui_gym.android.sim.apps.expense.androidworld import GALLERY_NOISE, GALLERY_PICTURE, rows_as_text, table
from gui_gym.android.sim.apps.gallery.app import (
    FilePickerDialog,
    FolderGrid,
    MediaGrid,
    PickDirectoryDialog,
    PropertiesDialog,
    Viewer,
    size_text,
)
from gui_gym.android.sim.apps.markor import androidworld as markor_aw
from gui_gym.android.sim.device import Device
from gui_gym.android.sim.media import media
from gui_gym.android.sim.render import Renderer
from gui_gym.android.sim.tasks import TASKS
from gui_gym.android.sim.tasks.androidworld import ADJECTIVES, NOUNS, random_string
from gui_gym.android.ui import to_xml

IDS = ["MarkorTranscribeReceipt", "ExpenseAddMultipleFromGallery"]
NOW = dt.datetime(2023, 10, 15, 15, 34)
LINES = ("Tech Gadgets Inc.", "Innovating the Future", "", "2023-09-06, Bluetooth Keyboard, $97.58")
SIZE = (540, 1200)  # screenshots at half the phone's size


def _act(dev: Device, action: str) -> str:
    out = dev.act(parse_action(action))
    assert out.valid, out.reason
    return out.description


def _tap(dev: Device, **match: str) -> str:
    node = next(n for n in dev.elements() if all(getattr(n, k) == v for k, v in match.items()))
    return _act(dev, f'do(action="Tap", element={list(node.bounds)})')


def _phone() -> Device:
    """A phone with pictures in two folders and a video in a third."""
    dev = Device()
    dev.reset(now=NOW)
    store = media(dev)
    store.add_image("DCIM/receipt.png", LINES, NOW - dt.timedelta(minutes=1))
    store.add_image("DCIM/blank.png", (), NOW - dt.timedelta(minutes=2))  # white, nothing drawn
    store.add_image("Pictures/older.jpg", ("Older",), NOW - dt.timedelta(days=3))
    store.add_video("Movies/clip.mp4", [("edna", 8), ("pineapple", 8)], NOW - dt.timedelta(days=1))
    _act(dev, 'do(action="Launch", app="Simple Gallery Pro")')
    return dev


def _region(dev: Device, renderer: Renderer) -> np.ndarray:
    """The screenshot's pixels where the viewer's picture is."""
    l, t, r, b = next(n for n in dev.elements() if n.rid.endswith(":id/gestures_view")).bounds
    shot = renderer.render(dev.screen())
    return shot[t // 2 : b // 2, l // 2 : r // 2]


# ----------------------------------------------------------------------------- the app


def test_the_folder_grid_lists_each_media_folder_with_its_count_newest_first() -> None:
    dev = _phone()
    assert isinstance(dev.top_screen(), FolderGrid)
    cells = [n for n in dev.elements() if n.rid.endswith(":id/dir_holder")]
    shown = [
        (
            next(c.text for c in n.walk() if c.rid.endswith(":id/dir_name")),
            next(c.text for c in n.walk() if c.rid.endswith(":id/photo_cnt")),
        )
        for n in cells
    ]
    assert shown == [("DCIM", "2"), ("Movies", "1"), ("Pictures", "1")]  # by the newest file's time
    thumbs = [n for n in dev.elements() if n.rid.endswith(":id/dir_thumbnail")]
    assert len(thumbs) == 3 and all(n.cls == "android.widget.ImageView" and not n.text and not n.desc for n in thumbs)
    assert cells[0].bounds[2] - cells[0].bounds[0] == 540  # two columns
    # the search field filters the folders by name; Back closes the search
    _tap(dev, rid="com.simplemobiletools.gallery.pro:id/top_toolbar_search")
    _act(dev, 'do(action="Type", text="pic")')
    assert [n.label for n in dev.elements() if n.rid.endswith(":id/dir_holder")] == ["Pictures"]
    _act(dev, 'do(action="Back")')
    assert len([n for n in dev.elements() if n.rid.endswith(":id/dir_holder")]) == 3


def test_a_folder_shows_its_files_as_thumbnails_without_names() -> None:
    dev = _phone()
    assert _tap(dev, label="DCIM") == 'Open the folder "DCIM" in Simple Gallery Pro'
    s = dev.top_screen()
    assert isinstance(s, MediaGrid) and s.folder == "DCIM"
    cells = [n for n in dev.elements() if n.rid.endswith(":id/media_item_holder")]
    assert [n.label for n in cells] == ["receipt.png", "blank.png"]  # newest first
    assert cells[0].bounds[2] - cells[0].bounds[0] == 360  # three columns
    texts = [n.text for n in dev.elements() if n.text]
    assert texts == ["Search in DCIM"]  # the search hint only: no file names (the app's default)
    _act(dev, 'do(action="Back")')
    _tap(dev, label="Movies")
    assert [n.text for n in dev.elements() if n.rid.endswith(":id/video_duration")] == ["00:16"]
    _tap(dev, desc="Back")
    assert isinstance(dev.top_screen(), FolderGrid)


def test_the_viewer_shows_the_picture_in_pixels_only_and_swipes_to_its_neighbours() -> None:
    dev = _phone()
    renderer = Renderer(SIZE)
    _tap(dev, label="DCIM")
    _tap(dev, label="receipt.png")
    s = dev.top_screen()
    assert isinstance(s, Viewer) and s.path == "DCIM/receipt.png"
    assert any(n.role == "title" and n.text == "receipt.png" for n in dev.elements())  # the top bar's title
    shown = _region(dev, renderer)
    xml = to_xml(dev.tree())
    assert not any(line and line in xml for line in LINES)  # the receipt's text is in no view
    assert not dev.act(parse_action('do(action="Long Press", element=[400,1000,600,1100])')).valid  # no text to select
    # swipe left: the next file of the folder (blank.png), then back to the receipt
    assert "blank.png" in _act(dev, 'do(action="Swipe", direction="left")')
    assert dev.top_screen().path == "DCIM/blank.png"
    blank = _region(dev, renderer)
    assert shown.shape == blank.shape and (shown != blank).any()
    assert (shown < 60).all(axis=2).sum() > (blank < 60).all(axis=2).sum()  # the text's dark pixels
    assert "already at the last" in _act(dev, 'do(action="Swipe", direction="left")')
    _act(dev, 'do(action="Swipe", direction="right")')
    assert dev.top_screen().path == "DCIM/receipt.png"
    _act(dev, 'do(action="Back")')
    assert isinstance(dev.top_screen(), MediaGrid)


@pytest.mark.parametrize("fmt", ["PNG", "JPEG"])
def test_a_pushed_picture_shows_in_the_viewer(fmt: str) -> None:
    """Bytes written from outside (``adb push``) are shown as they are."""
    raw = io.BytesIO()
    Image.new("RGB", (400, 300), (220, 20, 20)).save(raw, format=fmt)
    dev = Device()
    dev.reset(now=NOW)
    name = "pushed.png" if fmt == "PNG" else "pushed.jpg"
    media(dev).add_file(f"Pictures/{name}", raw.getvalue(), NOW)
    _act(dev, 'do(action="Launch", app="Simple Gallery Pro")')
    _tap(dev, label="Pictures")
    _tap(dev, label=name)
    px = _region(dev, Renderer(SIZE)).reshape(-1, 3).astype(int)
    red = (px[:, 0] > 180) & (px[:, 1] < 80) & (px[:, 2] < 80)
    assert red.mean() > 0.3
    _tap(dev, desc="Properties")
    d = dev.top_screen().dialog
    assert isinstance(d, PropertiesDialog)
    rows = dict(d.rows(dev))
    assert rows["Name"] == name and rows["Resolution"] == "400 x 300 (0.1MP)"
    assert rows["Path"] == "/storage/emulated/0/Pictures" and rows["Size"] == size_text(len(raw.getvalue()))


def test_delete_moves_the_file_out_and_the_last_one_leaves_the_viewer() -> None:
    dev = _phone()
    _tap(dev, label="Pictures")
    _tap(dev, label="older.jpg")
    _tap(dev, desc="Delete")
    assert _tap(dev, label="Yes") == 'Move "older.jpg" to the Recycle Bin in Simple Gallery Pro'
    assert "Pictures/older.jpg" not in media(dev).files
    assert isinstance(dev.top_screen(), MediaGrid)  # it was the folder's only file


def test_size_text_is_simple_commons_format_size() -> None:
    assert [size_text(n) for n in (0, 999, 1024, 1536, 23_962, 5 * 1024**2)] == [
        "0 B",
        "999 B",
        "1 kB",
        "1.5 kB",
        "23.4 kB",
        "5 MB",
    ]


# ----------------------------------------------------------------------------- the tasks


@pytest.mark.parametrize("task_id", IDS)
def test_the_oracle_solves_androidworlds_instances(task_id: str) -> None:
    env, task = make(task_id, obs_mode="text"), TASKS[task_id]
    for seed in range(30):
        info0, _ = start(env, seed)
        info, actions, reached = solve(env)
        assert info["success"] is True and info["progress"] == 1.0, (seed, actions[-3:])
        assert len(actions) < env.unwrapped._limit, seed
        assert list(info0["milestones"]) + reached == task.milestone_texts(env.unwrapped.params), seed
        assert any(a.startswith('do(action="Launch", app="Simple Gallery Pro")') for a in actions)
    env.close()


@pytest.mark.parametrize("task_id", IDS)
def test_doing_nothing_fails(task_id: str) -> None:
    env = make(task_id, obs_mode="text")
    for seed in range(5):
        start(env, seed)
        _, reward, term, _, info = env.step("finish()")
        assert term and info["success"] is False and reward == 0.0, seed
    env.close()


def test_receipt_start_state_and_near_misses() -> None:
    env = make("MarkorTranscribeReceipt", obs_mode="text")
    task = TASKS["MarkorTranscribeReceipt"]
    _, dev = start(env, 1)
    p = env.unwrapped.params
    # AndroidWorld's instance 1 (receipt_generator.create_receipt: 2 transactions); the picture shows
    # the company, slogan, transactions and footer, not the header the note must start with
    assert p["text"] == "Date, Item, Amount\n2023-08-19, USB-C Cable, $12.43\n2023-04-18, External Hard Drive, $115.16"
    f = media(dev).files[markor_aw.RECEIPT_PICTURE]
    assert list(media(dev).files) == ["DCIM/receipt.png"] and f.data()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [x for x in f.lines if x] == [
        p["receipt"]["company"],
        p["receipt"]["slogan"],
        *p["text"].split("\n")[1:],
        *markor_aw.RECEIPT_FOOTER,
    ]
    notes = dev.data("markor")
    notes.write("Receipts/receipt.md", p["text"], NOW)  # the right text in another folder
    notes.write("receipt.txt", p["text"], NOW)  # and under another name
    assert not task.check(dev, p, None, "complete")
    notes.write("receipt.md", "Date, Item, Amount", NOW)  # the header only
    assert not task.check(dev, p, None, "complete")
    notes.write("receipt.md", p["text"].rsplit("\n", 1)[0], NOW)  # the last transaction left out
    assert not task.check(dev, p, None, "complete")
    # CreateFile.is_successful (android_world/task_evals/common_validators/file_validators.py): the
    # file's text with "\r" removed, stripped, fuzzy_match-ed (difflib ratio >= 0.9): line ends and
    # trailing blank lines do not count, nor do a few misread digits
    misread = p["text"].replace("$12.43", "$12.48").replace("08-19", "08-18")
    notes.write("receipt.md", misread, NOW)
    assert task.check(dev, p, None, "complete")
    notes.write("receipt.md", p["text"].replace("\n", "\r\n") + "\n\n", NOW)  # CRLF, trailing lines: read alike
    assert task.check(dev, p, None, "complete")


def test_receipt_transaction_draws_in_androidworlds_order() -> None:
    """``receipt_generator._random_transaction`` (android_world/task_evals/utils/receipt_generator.py):
    ``random.choice(items)``, then ``random.uniform(*price_range)``, then ``_random_date()``'s
    ``random.randrange(days)`` over the days from 2023-01-01 to ``device_constants.DT``'s date
    (2023-10-15: 287 days); written ``f"{date}, {item}, ${price:.2f}"``. By hand: Webcam at 20.505
    dollars on day 2 is "2023-01-03, Webcam, $20.50" (20.505 is stored a hair below, rounding down)."""
    calls = []

    class Scripted(random.Random):
        def choice(self, seq):  # type: ignore[override]
            calls.append(("choice", len(seq)))
            return seq[4]

        def uniform(self, a, b):  # type: ignore[override]
            calls.append(("uniform", a, b))
            return 20.505

        def randrange(self, n):  # type: ignore[override]
            calls.append(("randrange", n))
            return 2

    assert markor_aw.receipt_transaction(Scripted()) == "2023-01-03, Webcam, $20.50"
    assert calls == [("choice", 6), ("uniform", 20, 70), ("randrange", 287)]


def test_expense_pictures_are_androidworlds_text_blocks() -> None:
    """``ExpenseAddMultipleFromGallery.initialize_task`` (android_world/task_evals/single/expense.py):
    ``expenses.jpg`` shows the targets, ``old_expenses_0..9.jpg`` the noise rows, each as
    ``_get_expense_rows_as_text(rows, 'text_block', wrap_width=60)``. Instance 0's first target is
    Taxi Fare, 17968 cents, category 7 (Transportation), note "A need": its block, by hand."""
    env = make("ExpenseAddMultipleFromGallery", obs_mode="text")
    _, dev = start(env, 0)
    p = env.unwrapped.params
    store = media(dev)
    assert sorted(store.files) == sorted([GALLERY_PICTURE, *GALLERY_NOISE])
    lines = store.files[GALLERY_PICTURE].lines
    assert lines[:5] == (
        "Expense: Taxi Fare",
        " amount_dollars: $179.68",
        " category_name: Transportation",
        " note: A need",
        "",
    )
    assert all(
        store.files[n].lines == tuple(rows_as_text(p["noise_row_objects"], "text_block", 60).split("\n"))
        for n in GALLERY_NOISE
    )
    assert [f.name for f in store.folder("DCIM")][-1] == "expenses.jpg"  # written first: the oldest
    assert store.files[GALLERY_PICTURE].data()[:2] == b"\xff\xd8"  # a JPEG
    # textwrap.wrap at 60: a long value breaks at the last space before column 60
    row = dict(p["row_objects"][0], note="word " * 15)
    block = rows_as_text([row], "text_block", 60).split("\n")
    assert block[3:5] == [" note: " + ("word " * 12).strip(), "word word word"]


def test_expense_near_miss_fails() -> None:
    env = make("ExpenseAddMultipleFromGallery", obs_mode="text")
    task = TASKS["ExpenseAddMultipleFromGallery"]
    start(env, 3)
    info, _, _ = solve(env)
    assert info["success"]
    dev, p = env.unwrapped.backend.device, env.unwrapped.params
    data = dev.data("expense")
    added = next(e for e in data.expenses if e.name == p["row_objects"][1]["name"])
    added.amount += 1  # one cent off
    assert table(dev) and not task.check(dev, p, None, "complete")


# ----------------------------------------------------------------------------- Copy to (SaveCopyOfReceiptTaskEval)

RECEIPT_ID = "SaveCopyOfReceiptTaskEval"


def _in_dialog(dev: Device) -> list[str]:
    return [n.text for n in dev.elements() if n.text]


def test_copy_to_from_the_viewer_picks_another_folder_and_copies_the_same_bytes() -> None:
    dev = _phone()
    _tap(dev, label="DCIM")
    _tap(dev, label="receipt.png")
    _tap(dev, desc="More options")
    assert [n.text for n in dev.elements() if n.role == "menuitem"] == ["Copy to", "Move to"]
    _tap(dev, text="Copy to")
    s = dev.top_screen()
    assert isinstance(s.dialog, PickDirectoryDialog) and "Select destination" in _in_dialog(dev)
    # the folders holding media; the file's own folder is refused
    assert [n.label for n in dev.elements() if n.rid.endswith(":id/dir_holder")] == ["DCIM", "Movies", "Pictures"]
    _tap(dev, label="DCIM")
    assert dev.state.toast == "Source and destination cannot be the same" and isinstance(s.dialog, PickDirectoryDialog)
    _tap(dev, text="OTHER FOLDER")
    assert isinstance(s.dialog, FilePickerDialog) and s.dialog.folder == "DCIM"  # the file's folder first
    crumbs = [n.text for n in dev.elements() if n.rid.endswith(":id/breadcrumb_text")]
    assert crumbs == ["Internal", "> DCIM"] and "Select a folder" in _in_dialog(dev)
    _tap(dev, text="Internal")
    rows = [n.label for n in dev.elements() if n.rid.endswith(":id/list_item_holder")]
    assert {"DCIM", "Documents", "Download"} <= set(rows) and rows == sorted(rows, key=str.lower)
    _tap(dev, label="Download", rid="com.simplemobiletools.gallery.pro:id/list_item_holder")
    assert "Copy" in _tap(dev, text="OK") and s.dialog is None
    store = media(dev)
    src, copy = store.files["DCIM/receipt.png"], store.files["Download/receipt.png"]
    assert copy.data() == src.data() and copy.mtime == src.mtime  # the same bytes, the date kept
    assert dev.data("gallery").last_copy_path == "Download"
    # a second copy there: the name is taken, "(1)" is added; the picker starts at the last destination
    _tap(dev, desc="More options")
    _tap(dev, text="Copy to")
    _tap(dev, text="OTHER FOLDER")
    assert s.dialog.folder == "Download"
    _tap(dev, text="OK")
    assert "Download/receipt(1).png" in store.files


def test_move_to_takes_the_file_out_of_its_folder() -> None:
    dev = _phone()
    _tap(dev, label="Pictures")
    _tap(dev, label="older.jpg")
    data = media(dev).files["Pictures/older.jpg"].data()
    _tap(dev, desc="More options")
    _tap(dev, text="Move to")
    _tap(dev, label="DCIM")  # a folder of the grid: picked at once
    assert "Pictures/older.jpg" not in media(dev).files and media(dev).files["DCIM/older.jpg"].data() == data
    assert isinstance(dev.top_screen(), MediaGrid)  # the folder's last file gone: the viewer closed


def test_the_receipt_oracle_solves_androidworlds_instances() -> None:
    env, task = make(RECEIPT_ID, obs_mode="text"), TASKS[RECEIPT_ID]
    for seed in range(30):
        info0, dev = start(env, seed)
        p = env.unwrapped.params
        src = media(dev).files[f"DCIM/{p['file_name']}"]
        info, actions, reached = solve(env)
        assert info["success"] is True and len(actions) < env.unwrapped._limit, (seed, actions[-3:])
        assert list(info0["milestones"]) + reached == task.milestone_texts(p), seed
        assert media(dev).files[f"Download/{p['file_name']}"].data() == src.data()  # a true copy
        assert f"DCIM/{p['file_name']}" in media(dev).files
    env.close()


def test_the_receipt_task_fails_when_idle() -> None:
    env = make(RECEIPT_ID, obs_mode="text")
    for seed in range(3):
        _, dev = start(env, seed)
        assert list(media(dev).files) == [f"DCIM/{env.unwrapped.params['file_name']}"]
        _, reward, term, _, info = env.step("finish()")
        assert term and info["success"] is False and reward == 0.0, seed
    env.close()


def test_the_receipt_near_misses_fail() -> None:
    env = make(RECEIPT_ID, obs_mode="text")
    task = TASKS[RECEIPT_ID]
    _, dev = start(env, 4)
    p = env.unwrapped.params
    store = media(dev)
    src = store.files[f"DCIM/{p['file_name']}"]
    store.add_file(f"Pictures/{p['file_name']}", src.data(), NOW)  # the wrong folder
    store.add_file(f"Download/Receipts/{p['file_name']}", src.data(), NOW)  # below Download, not in it
    store.add_file(f"Download/{p['file_name'][:-4]}(1).jpg", src.data(), NOW)  # another name
    store.add_file(f"Download/{p['file_name'][:-4]}.png", src.data(), NOW)
    assert not task.check(dev, p, None, "complete")
    store.add_file(f"Download/{p['file_name']}", b"", NOW)  # AndroidWorld only looks for the name
    assert task.check(dev, p, None, "complete")
    env.close()


def test_the_receipt_draws_and_check_by_hand() -> None:
    # simple_gallery_pro.py SaveCopyOfReceiptTaskEval.generate_random_params: receipt_generator.
    # create_receipt() first (num_transactions=1: _random_company_info's two choices, then
    # _random_transaction's choice of item, uniform price and _random_date's randrange over the
    # 287 days from 2023-01-01 to the device date), then "receipt_" +
    # user_data_generation.generate_random_file_name() + ".jpg".
    r = random.Random(0)
    company, slogan = r.choice(markor_aw.RECEIPT_COMPANIES), r.choice(markor_aw.RECEIPT_SLOGANS)
    item, (low, high) = r.choice(markor_aw.RECEIPT_ITEMS)
    price = r.uniform(low, high)
    day = dt.date(2023, 1, 1) + dt.timedelta(days=r.randrange(287))
    adjective, noun = r.choice(ADJECTIVES), r.choice(NOUNS)
    kind, prefix = r.choice(["date_prefix", "random_suffix", "fixed_suffix"]), r.choice([True, False])
    assert (adjective, noun, kind, prefix) == ("alert", "zebra", "random_suffix", False)
    name = f"receipt_{adjective}_{noun}_{random_string(r, 4)}.jpg"
    p = TASKS[RECEIPT_ID].sample_seed(0)
    assert name == p["file_name"] == "receipt_alert_zebra_w3ni.jpg"
    assert p["receipt"]["transactions"] == [f"{day.isoformat()}, {item}, ${price:.2f}"]
    assert (p["receipt"]["company"], p["receipt"]["slogan"]) == (company, slogan)
    # is_successful: file_utils.check_file_or_folder_exists(file_name, DOWNLOAD_DATA) runs
    # `find /storage/emulated/0/Download -type f -o -type d` and looks for the exact line
    # "/storage/emulated/0/Download/receipt_alert_zebra_w3ni.jpg"
    from gui_gym.android.sim.adb.shell import Shell

    dev = Device()
    dev.reset(now=NOW)
    media(dev).add_file("Download/receipt_alert_zebra_w3ni.jpg", b"\xff\xd8", NOW)
    found = Shell(dev).run("find /storage/emulated/0/Download -type f -o -type d").stdout.decode().split("\n")
    assert "/storage/emulated/0/Download/receipt_alert_zebra_w3ni.jpg" in found
    assert TASKS[RECEIPT_ID].check(dev, p, None, None)
