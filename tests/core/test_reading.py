"""gui_gym.core.io's readers: a damaged file is an error naming it and its problem, never a bare
RecursionError, UnicodeDecodeError or zipfile error; a byte-order mark is not damage."""

from __future__ import annotations

import io
import json
import logging
import zipfile

import pytest

from gui_gym.core.io import (
    MAX_JSON_DEPTH,
    CorruptFileError,
    check_zip,
    loads_json,
    read_json,
    read_jsonl_records,
)

DEEP = ["[" * 100_000 + "]" * 100_000, '{"a": ' * 50_000 + "1" + "}" * 50_000, "[" * 100_000]


@pytest.mark.parametrize("text", DEEP, ids=["lists", "objects", "unclosed"])
def test_deep_nesting_is_a_clear_error(tmp_path, text):
    path = tmp_path / "state.json"
    path.write_text(text)
    with pytest.raises(CorruptFileError, match=rf"^{path}: not a readable milestone book: nested deeper than"):
        read_json(path, "milestone book")


def test_nesting_the_parser_survives_is_still_limited():
    ok = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    assert loads_json(ok, "x") is not None
    deeper = {"a": json.loads("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH)}
    with pytest.raises(CorruptFileError, match=f"deeper than {MAX_JSON_DEPTH}"):
        loads_json(json.dumps(deeper), "x.json")


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"", "empty"),
        (b" \n\t", "empty"),
        (b'{"a": "caf\xe9"}', "not UTF-8 text (byte 10"),
        (b'{"a": [1, 2', "not JSON (Expecting"),
        (b"\x00" * 64, "not JSON"),
        (b'{"n": ' + b"9" * 5000 + b"}", "not JSON"),  # past Python's digit limit for int()
    ],
)
def test_damaged_json_names_the_file_and_the_problem(tmp_path, data, problem):
    path = tmp_path / "status.json"
    path.write_bytes(data)
    with pytest.raises(CorruptFileError) as e:
        read_json(path, "run status")
    assert str(e.value).startswith(f"{path}: not a readable run status: {problem}"), e.value


def test_a_byte_order_mark_is_read_past(tmp_path):
    path = tmp_path / "s.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps({"a": "é"}).encode())
    assert read_json(path) == {"a": "é"}


def test_missing_and_directory(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"no task split at .*nope\.json; run it first"):
        read_json(tmp_path / "nope.json", "task split", "run it first")
    with pytest.raises(CorruptFileError, match=rf"{tmp_path} is a directory, not a task split"):
        read_json(tmp_path, "task split")


def _row(value):
    if not isinstance(value, dict) or not isinstance(value.get("i"), int):
        raise ValueError("no integer i")
    return value["i"]


def test_jsonl_bom_first_line_is_kept(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + b'{"i": 1}\n{"i": 2}\r\n\n{"i": 3}')
    assert read_jsonl_records(path, "row", _row, strict=True) == [1, 2, 3]


def test_jsonl_bad_lines_are_named_counted_and_skipped(tmp_path, caplog):
    path = tmp_path / "rows.jsonl"
    lines = [b'{"i": 0}', *[b'{"i": "x"}'] * 7, b"\xff\xfe", b"[" * 5000, b'{"i": 9}']
    path.write_bytes(b"\n".join(lines) + b"\n")
    log = logging.getLogger("rows")
    with caplog.at_level(logging.WARNING, "rows"):
        assert read_jsonl_records(path, "row", _row, report=log) == [0, 9]
    msgs = [r.getMessage() for r in caplog.records]
    assert [m.split(":")[1] for m in msgs[:5]] == ["2", "3", "4", "5", "6"]  # the first five, one by one
    assert msgs[5] == f"{path}: skipped 9 bad line(s) of 11, read 2 row(s)"
    assert msgs[0] == f"{path}:2: skipped corrupt row line (no integer i)"
    with pytest.raises(CorruptFileError, match=rf"^{path}:2: corrupt row line \(no integer i\)"):
        read_jsonl_records(path, "row", _row, strict=True)


@pytest.mark.parametrize("data", [b"garbage\x00\x01\nmore garbage\n", b"\x00" * 100, b'{"i": 1'])
def test_jsonl_with_nothing_readable_is_an_error(tmp_path, data):
    path = tmp_path / "rows.jsonl"
    path.write_bytes(data)
    first = rf"{path}:1: skipped corrupt row line \(not JSON"
    with pytest.raises(CorruptFileError, match=rf"^{path}: not a row file: no line is a valid row; first: {first}"):
        read_jsonl_records(path, "row", _row)


def test_empty_jsonl_is_an_empty_list(tmp_path):
    (tmp_path / "e.jsonl").write_bytes(b"")
    assert read_jsonl_records(tmp_path / "e.jsonl", "row", _row) == []


def _zip(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


def test_check_zip_finds_a_damaged_member():
    data = _zip({"a": b"x" * 100, "b": b"y" * 100})
    check_zip(io.BytesIO(data), "ok.zip", "zip archive")
    damaged = bytearray(data)
    at = data.index(b"y" * 100) + 50
    damaged[at : at + 4] = b"zzzz"
    f = io.BytesIO(bytes(damaged))
    with pytest.raises(CorruptFileError, match=r"^bad\.zip: checksum mismatch: the file is damaged; restore it"):
        check_zip(f, "bad.zip", "zip archive")
    assert f.tell() == 0
    for junk in (b"", b"PK\x03\x04" + b"\x00" * 40, data[: len(data) // 2]):
        want = r"^junk\.zip is not a readable zip archive: damaged, truncated, or not a zip archive at all"
        with pytest.raises(CorruptFileError, match=want):
            check_zip(io.BytesIO(junk), "junk.zip", "zip archive")
