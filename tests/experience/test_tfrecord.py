"""TFRecord framing, CRC-32C and tf.train.Example wire format, on files written to tmp_path."""

from __future__ import annotations

import gzip
import random
import struct

import pytest

from gui_gym.experience.readers import tfrecord
from gui_gym.experience.readers.tfrecord import (
    Feature,
    TFRecordError,
    crc32c,
    encode_example,
    encode_varint,
    field_bytes,
    field_varint,
    frame_record,
    mask_crc,
    masked_crc32c,
    parse_example,
    read_record,
    read_records,
    read_varint,
    signed32,
    unmask_crc,
    write_records,
)


def _reference_crc32c(data: bytes) -> int:
    """An independent table-driven CRC-32C (Castagnoli, reflected 0x82F63B78) for comparison."""
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ (0x82F63B78 if c & 1 else 0)
        table.append(c)
    crc = 0xFFFFFFFF
    for b in data:
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


# -- CRC-32C ------------------------------------------------------------------------------------------


def test_crc32c_check_values_from_the_spec() -> None:
    assert crc32c(b"123456789") == 0xE3069283
    assert masked_crc32c(b"123456789") == 0xC78AB0E5
    assert unmask_crc(0xC78AB0E5) == 0xE3069283
    assert crc32c(b"") == 0
    assert mask_crc(0) == 0xA282EAD8


@pytest.mark.parametrize("size", [1, 3, 4, 5, 1000, 16383, 16384, 16385, 70001])
def test_crc32c_long_and_short_paths_agree_with_a_reference(size: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tfrecord, "_crc32c_c", None)  # the pure-Python/numpy code, even if crc32c is installed
    data = random.Random(size).randbytes(size)
    assert crc32c(data) == _reference_crc32c(data)
    cut = size // 3
    assert crc32c(data[cut:], crc32c(data[:cut])) == crc32c(data)  # continuing a CRC
    assert crc32c(bytearray(data)) == crc32c(memoryview(data)) == crc32c(data)


def test_mask_round_trips() -> None:
    rng = random.Random(1)
    for _ in range(100):
        c = rng.getrandbits(32)
        assert unmask_crc(mask_crc(c)) == c


# -- framing ------------------------------------------------------------------------------------------

RECORDS = [b"", b"first", bytes(range(256)) * 100, "ünïcode".encode()]


@pytest.mark.parametrize("compress", [True, False])
def test_records_round_trip(tmp_path, compress: bool) -> None:
    path = tmp_path / "data.tfrecord"
    assert write_records(path, RECORDS, compress=compress) == len(RECORDS)
    raw = path.read_bytes()
    assert raw.startswith(b"\x1f\x8b") == compress
    if not compress:
        assert len(raw) == sum(len(r) + 16 for r in RECORDS)
        assert raw[:12] == struct.pack("<Q", 0) + struct.pack("<I", masked_crc32c(struct.pack("<Q", 0)))
    assert list(read_records(path)) == RECORDS
    assert read_record(path, 2) == RECORDS[2]
    assert read_record(path, 3) == RECORDS[3]
    with pytest.raises(TFRecordError, match="no record 4: the file holds 4 records"):
        read_record(path, 4)


def test_concatenated_gzip_members_read_as_one_stream(tmp_path) -> None:
    path = tmp_path / "joined.tfrecord.gz"
    path.write_bytes(gzip.compress(frame_record(b"a")) + gzip.compress(frame_record(b"b")))
    assert list(read_records(path)) == [b"a", b"b"]


def test_a_flipped_data_byte_is_a_crc_error(tmp_path) -> None:
    path = tmp_path / "plain.tfrecord"
    write_records(path, [b"x" * 50, b"y" * 50], compress=False)
    raw = bytearray(path.read_bytes())
    raw[66 + 12 + 10] ^= 0x01  # inside the second record's data
    path.write_bytes(bytes(raw))
    with pytest.raises(TFRecordError, match=r"plain\.tfrecord: record 1 .*bad CRC of the data"):
        list(read_records(path))
    damaged = list(read_records(path, verify=False))  # the data CRC can be skipped
    assert damaged[1] != b"y" * 50 and len(damaged[1]) == 50


def test_a_flipped_length_byte_is_a_crc_error_even_unverified(tmp_path) -> None:
    path = tmp_path / "plain.tfrecord"
    write_records(path, [b"x" * 50], compress=False)
    raw = bytearray(path.read_bytes())
    raw[5] ^= 0x40  # the length would ask for terabytes
    path.write_bytes(bytes(raw))
    with pytest.raises(TFRecordError, match=r"record 0 .*bad CRC of the length"):
        list(read_records(path, verify=False))


@pytest.mark.parametrize(("cut", "what"), [(3, "record header"), (30, "record data"), (64, "data CRC")])
def test_a_truncated_file_is_an_error(tmp_path, cut: int, what: str) -> None:
    path = tmp_path / "cut.tfrecord"
    write_records(path, [b"x" * 50], compress=False)
    path.write_bytes(path.read_bytes()[:cut])
    with pytest.raises(TFRecordError, match=f"cut.tfrecord: record 0 .*truncated: the {what}"):
        list(read_records(path))


def test_a_truncated_gzip_shard_is_an_error(tmp_path) -> None:
    path = tmp_path / "cut.gz"
    write_records(path, [random.Random(0).randbytes(5000)])
    path.write_bytes(path.read_bytes()[:-100])
    with pytest.raises(TFRecordError, match=r"cut\.gz: record 0"):
        list(read_records(path))


def test_a_damaged_gzip_stream_is_an_error(tmp_path) -> None:
    path = tmp_path / "bad.gz"
    path.write_bytes(b"\x1f\x8b" + b"\x00" * 40)
    with pytest.raises(TFRecordError, match=r"bad\.gz: record 0 .*gzip stream is damaged"):
        list(read_records(path))


def test_a_missing_file_names_itself(tmp_path) -> None:
    with pytest.raises(FileNotFoundError, match=r"nothing\.tfrecord"):
        list(read_records(tmp_path / "nothing.tfrecord"))


# -- protocol buffers ---------------------------------------------------------------------------------


def test_varints() -> None:
    assert encode_varint(0) == b"\x00"
    assert encode_varint(300) == b"\xac\x02"
    assert len(encode_varint(-1)) == 10  # int32/int64 negatives are sign-extended
    value, pos = read_varint(encode_varint(-5), 0)
    assert signed32(value) == -5 and pos == 10
    with pytest.raises(TFRecordError, match="truncated"):
        read_varint(b"\x80\x80", 0)


def test_example_round_trip() -> None:
    features = {
        "episode_id": [2**40, -3],
        "goal": ["héllo", b"\x00raw"],
        "widths": Feature("float", [0.25, -1.5]),
        "empty": Feature("bytes", []),
        "unset": Feature("", []),
    }
    got = parse_example(encode_example(features))
    assert got == {
        "episode_id": Feature("int64", [2**40, -3]),
        "goal": Feature("bytes", ["héllo".encode(), b"\x00raw"]),
        "widths": Feature("float", [0.25, -1.5]),
        "empty": Feature("bytes", []),
        "unset": Feature("", []),
    }


def test_example_reads_unpacked_numbers_and_skips_unknown_fields() -> None:
    int64_list = field_varint(1, 7) + field_varint(1, 2**64 - 2)  # unpacked: -2 as two's complement
    float_list = encode_varint((1 << 3) | 5) + struct.pack("<f", 2.5)  # one unpacked float
    entry = lambda key, feature: field_bytes(1, field_bytes(1, key.encode()) + field_bytes(2, feature))  # noqa: E731
    data = field_bytes(
        1,
        entry("n", field_bytes(3, int64_list))
        + entry("f", field_bytes(2, float_list))
        + entry("n", field_bytes(3, field_varint(1, 9)))  # a map key again: the last one wins
        + field_varint(7, 1),  # an unknown field inside Features
    ) + field_bytes(9, b"ignored")
    assert parse_example(data) == {"n": Feature("int64", [9]), "f": Feature("float", [2.5])}
    assert parse_example(field_bytes(1, entry("n", field_bytes(3, int64_list)))) == {"n": Feature("int64", [7, -2])}


def test_damaged_examples_raise() -> None:
    data = encode_example({"goal": [b"x" * 40]})
    with pytest.raises(TFRecordError, match="truncated protocol buffer"):
        parse_example(data[:-5])
    with pytest.raises(TFRecordError, match="wire type 3"):
        parse_example(b"\x0b")
    with pytest.raises(TypeError):
        encode_example({"mixed": [1, b"x"]})
