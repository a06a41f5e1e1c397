"""TFRecord files and ``tf.train.Example`` messages, read and written without TensorFlow.

**Framing.** A TFRecord file (AndroidControl ships its shards gzip-compressed as one stream;
plain files are read too, and concatenated gzip members are accepted) is a run of records, each
``length`` (uint64 little-endian), ``masked_crc32c(length bytes)`` (uint32 LE), ``data``
(``length`` bytes) and ``masked_crc32c(data)`` (uint32 LE). The CRC is CRC-32C (Castagnoli:
reflected polynomial ``0x82F63B78``, initial value and final XOR ``0xFFFFFFFF``); the mask
rotates it right by 15 bits and adds ``0xA282EAD8`` (mod 2**32). A file ends cleanly at a record
boundary; anything else is a :class:`TFRecordError` that names the file, the record and what is
wrong. The length CRC is always checked (a damaged length would otherwise ask for gigabytes);
``verify=False`` skips the data CRC.

**CRC-32C speed.** The ``crc32c`` package is used when it is importable (never required). Else
short inputs go through a 256-entry table one byte at a time, and long ones (screenshots) through
the same table run over many slices of the input at once with numpy: each slice's CRC from a zero
register, then the slices folded together with a table for "shift by one slice of zeros" (CRC is
linear over GF(2), so ``crc(A + B) = shift(crc(A), len(B)) ^ crc(B)`` from a zero register).

**Protocol buffers.** The wire-format helpers (:func:`read_varint`, :func:`iter_fields`,
:func:`encode_varint`, :func:`field_varint`, :func:`field_bytes`) read and write any message
given its field numbers: wire type 0 (varint), 1 (8 bytes), 2 (length-delimited), 5 (4 bytes).
:func:`parse_example` and :func:`encode_example` apply them to TensorFlow's ``Example`` (field 1
``features``) → ``Features`` (field 1: map entries ``key`` = 1, ``value`` = 2) → ``Feature``
(one of ``bytes_list`` = 1, ``float_list`` = 2, ``int64_list`` = 3), each list holding its
values in field 1; repeated numbers are read packed or unpacked.

Example:
    >>> hex(crc32c(b"123456789")), hex(masked_crc32c(b"123456789"))
    ('0xe3069283', '0xc78ab0e5')
    >>> data = encode_example({"goal": [b"open the app"], "ids": [7, -1], "w": Feature("float", [0.5])})
    >>> parse_example(data)["ids"]
    Feature(kind='int64', values=[7, -1])
    >>> parse_example(data)["w"].values
    [0.5]
    >>> len(frame_record(data)) == len(data) + 16
    True
"""

from __future__ import annotations

import gzip
import io
import struct
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

from gui_gym.core.io import atomic_write
from gui_gym.experience.record import ExperienceError

__all__ = [
    "Feature",
    "TFRecordError",
    "crc32c",
    "encode_example",
    "encode_varint",
    "field_bytes",
    "field_varint",
    "frame_record",
    "iter_fields",
    "mask_crc",
    "masked_crc32c",
    "packed_varints",
    "parse_example",
    "read_record",
    "read_records",
    "read_varint",
    "signed32",
    "signed64",
    "unmask_crc",
    "write_records",
]

#: The largest record read (an AndroidControl episode with its screenshots is tens of MB).
MAX_RECORD = 1 << 31
_POLY = 0x82F63B78
_MASK_DELTA = 0xA282EAD8
_U32 = 0xFFFFFFFF
_U64 = (1 << 64) - 1
#: Inputs at least this long go through the numpy path.
_NUMPY_MIN = 1 << 14


class TFRecordError(ExperienceError):
    """A TFRecord file or a protocol-buffer message that cannot be read (names where and why)."""


# -- CRC-32C ---------------------------------------------------------------------------------------


def _make_table() -> list[int]:
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ _POLY if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _make_table()


def _feed(data: bytes | memoryview, reg: int) -> int:
    """The register after ``data``, one byte at a time (no initial or final XOR)."""
    t = _TABLE
    for b in data:
        reg = t[(reg ^ b) & 0xFF] ^ (reg >> 8)
    return reg


@lru_cache(maxsize=8)
def _shift_tables(n: int) -> tuple[list[int], list[int], list[int], list[int]]:
    """Per byte of the register, what ``n`` zero bytes turn it into (the shift is linear)."""
    import numpy as np

    table = np.array(_TABLE, dtype=np.uint32)
    reg = (np.arange(256, dtype=np.uint32)[None, :] << np.array([0, 8, 16, 24], dtype=np.uint32)[:, None]).ravel()
    for _ in range(n):
        reg = table[reg & 0xFF] ^ (reg >> 8)
    rows = reg.reshape(4, 256).tolist()
    return rows[0], rows[1], rows[2], rows[3]


def _feed_numpy(data: bytes | memoryview, reg: int) -> int:
    """:func:`_feed` over slices of ``data`` at once (see the module docstring)."""
    import numpy as np

    n = len(data)
    width = 128 if n < (2 << 20) else 256  # slice length: few numpy steps, few slices to fold (measured)
    buf = np.frombuffer(data, dtype=np.uint8)
    # The register's start value is the same as XOR-ing it into the first four bytes from zero.
    head = buf[:4] ^ np.frombuffer(reg.to_bytes(4, "little"), dtype=np.uint8)
    pad = (-n) % width  # leading zero bytes leave a zero register as it is
    full = np.concatenate([np.zeros(pad, dtype=np.uint8), head, buf[4:]]).reshape(-1, width).T.copy()
    table = np.array(_TABLE, dtype=np.uint32)
    crcs = np.zeros(full.shape[1], dtype=np.uint32)
    for row in full:
        crcs = table[(crcs ^ row) & 0xFF] ^ (crcs >> 8)
    s0, s1, s2, s3 = _shift_tables(width)
    out = 0
    for c in crcs.tolist():
        out = s0[out & 0xFF] ^ s1[(out >> 8) & 0xFF] ^ s2[(out >> 16) & 0xFF] ^ s3[out >> 24] ^ c
    return out


try:  # an optional C implementation
    from crc32c import crc32c as _crc32c_c  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - depends on the environment
    _crc32c_c = None


def crc32c(data: bytes | bytearray | memoryview, crc: int = 0) -> int:
    """CRC-32C (Castagnoli) of ``data``; pass a previous result as ``crc`` to continue it."""
    if _crc32c_c is not None:
        return _crc32c_c(bytes(data), crc)
    reg = (crc ^ _U32) & _U32
    if len(data) >= _NUMPY_MIN:
        try:
            return _feed_numpy(memoryview(data).cast("B"), reg) ^ _U32
        except ImportError:  # pragma: no cover - numpy is a dependency of gymnasium
            pass
    return _feed(memoryview(data).cast("B"), reg) ^ _U32


def mask_crc(crc: int) -> int:
    """TFRecord's mask: rotate right by 15 bits, add ``0xA282EAD8`` (mod 2**32)."""
    return ((((crc >> 15) | (crc << 17)) & _U32) + _MASK_DELTA) & _U32


def unmask_crc(masked: int) -> int:
    """The inverse of :func:`mask_crc`."""
    rot = (masked - _MASK_DELTA) & _U32
    return ((rot >> 17) | (rot << 15)) & _U32


def masked_crc32c(data: bytes | bytearray | memoryview) -> int:
    return mask_crc(crc32c(data))


# -- records ---------------------------------------------------------------------------------------


def frame_record(data: bytes) -> bytes:
    """One record's bytes: length, its masked CRC, ``data``, its masked CRC."""
    head = struct.pack("<Q", len(data))
    return head + struct.pack("<I", masked_crc32c(head)) + bytes(data) + struct.pack("<I", masked_crc32c(data))


def write_records(path: str | Path, records: Iterable[bytes], *, compress: bool = True) -> int:
    """Write ``records`` as a TFRecord file (one gzip stream when ``compress``), atomically; their number."""
    count = [0]

    def write(raw: BinaryIO) -> None:
        out: BinaryIO = gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) if compress else raw  # type: ignore[assignment]
        for data in records:
            out.write(frame_record(data))
            count[0] += 1
        if out is not raw:
            out.close()  # writes the gzip trailer; the file itself stays open

    atomic_write(path, write, binary=True)
    return count[0]


def _open(path: str | Path) -> tuple[BinaryIO, BinaryIO]:
    """(the stream of record bytes, the file under it); gzip is told by its magic bytes."""
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"{p}: no such TFRecord file")
    raw = open(p, "rb")  # noqa: SIM115 - the caller closes it
    magic = raw.read(2)
    raw.seek(0)
    if magic == b"\x1f\x8b":
        return gzip.GzipFile(fileobj=raw, mode="rb"), raw  # type: ignore[return-value]
    return raw, raw


class _Reader:
    """Reads the records of one file in order, with errors that say where."""

    def __init__(self, path: str | Path, verify: bool) -> None:
        self.path, self.verify = str(path), verify
        self.stream, self.raw = _open(path)
        self.index = 0
        self.offset = 0  # in the record bytes (after gunzip)

    def close(self) -> None:
        self.stream.close()
        self.raw.close()

    def _fail(self, what: str) -> TFRecordError:
        return TFRecordError(f"{self.path}: record {self.index} (byte {self.offset} of the records): {what}")

    def _read(self, n: int, what: str) -> bytes:
        try:
            got = self.stream.read(n)
        except (OSError, EOFError, zlib.error) as err:  # BadGzipFile is an OSError
            raise self._fail(f"the gzip stream is damaged ({err})") from None
        if len(got) != n:
            raise self._fail(f"truncated: {what} needs {n} bytes, the file has {len(got)} left")
        return got

    def _header(self) -> int | None:
        """The next record's length, or ``None`` at a clean end of file."""
        try:
            first = self.stream.read(12)
        except (OSError, EOFError, zlib.error) as err:
            raise self._fail(f"the gzip stream is damaged ({err})") from None
        if not first:
            return None
        if len(first) < 12:
            raise self._fail(f"truncated: the record header needs 12 bytes, the file has {len(first)} left")
        (length,) = struct.unpack_from("<Q", first)
        (stored,) = struct.unpack_from("<I", first, 8)
        if masked_crc32c(first[:8]) != stored:
            raise self._fail("bad CRC of the length (the file is damaged or not TFRecord)")
        if length > MAX_RECORD:
            raise self._fail(f"a record of {length} bytes; at most {MAX_RECORD} (an episode is far smaller)")
        return length

    def next(self) -> bytes | None:
        length = self._header()
        if length is None:
            return None
        data = self._read(length, "the record data")
        (stored,) = struct.unpack("<I", self._read(4, "the data CRC"))
        if self.verify and masked_crc32c(data) != stored:
            raise self._fail("bad CRC of the data (the file is damaged)")
        self.index += 1
        self.offset += length + 16
        return data

    def skip(self) -> bool:
        """Step over one record without reading it into memory; ``False`` at the end."""
        length = self._header()
        if length is None:
            return False
        try:
            self.stream.seek(length + 4, io.SEEK_CUR)
        except (OSError, EOFError, zlib.error) as err:
            raise self._fail(f"the gzip stream is damaged ({err})") from None
        self.index += 1
        self.offset += length + 16
        return True


def read_records(path: str | Path, *, verify: bool = True) -> Iterator[bytes]:
    """The records of a TFRecord file (gzip or plain), each checked against its CRCs."""
    reader = _Reader(path, verify)
    try:
        while (data := reader.next()) is not None:
            yield data
    finally:
        reader.close()


def read_record(path: str | Path, index: int, *, verify: bool = True) -> bytes:
    """Record ``index`` of a file, stepping over those before it (a gzip file has no random access)."""
    if index < 0:
        raise TFRecordError(f"{path}: no record {index}")
    reader = _Reader(path, verify)
    try:
        for _ in range(index):
            if not reader.skip():
                raise TFRecordError(f"{path}: no record {index}: the file holds {reader.index} records")
        data = reader.next()
        if data is None:
            raise TFRecordError(f"{path}: no record {index}: the file holds {reader.index} records")
        return data
    finally:
        reader.close()


# -- protocol buffer wire format ---------------------------------------------------------------------


def read_varint(buf: bytes | memoryview, pos: int) -> tuple[int, int]:
    """The unsigned varint at ``pos`` and the position after it."""
    result = shift = 0
    n = len(buf)
    while True:
        if pos >= n:
            raise TFRecordError("truncated protocol buffer: a varint runs past the end")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result & _U64, pos
        shift += 7
        if shift >= 70:
            raise TFRecordError("bad protocol buffer: a varint longer than 10 bytes")


def iter_fields(buf: bytes | memoryview) -> Iterator[tuple[int, int, Any]]:
    """``(field number, wire type, value)`` of each field: an int for wire type 0, else the field's
    bytes (slices of ``buf``: views, not copies, when ``buf`` is a memoryview)."""
    pos, n = 0, len(buf)
    while pos < n:
        key, pos = read_varint(buf, pos)
        num, wt = key >> 3, key & 7
        if num == 0:
            raise TFRecordError("bad protocol buffer: field number 0")
        if wt == 0:
            value, pos = read_varint(buf, pos)
        elif wt == 2:
            size, pos = read_varint(buf, pos)
            if pos + size > n:
                raise TFRecordError(f"truncated protocol buffer: field {num} needs {size} bytes, {n - pos} left")
            value, pos = buf[pos : pos + size], pos + size
        elif wt in (1, 5):
            size = 8 if wt == 1 else 4
            if pos + size > n:
                raise TFRecordError(f"truncated protocol buffer: field {num} needs {size} bytes, {n - pos} left")
            value, pos = buf[pos : pos + size], pos + size
        else:
            raise TFRecordError(f"bad protocol buffer: field {num} has wire type {wt} (groups are not supported)")
        yield num, wt, value


def packed_varints(buf: bytes | memoryview) -> list[int]:
    """The varints of a packed repeated field."""
    out, pos = [], 0
    while pos < len(buf):
        v, pos = read_varint(buf, pos)
        out.append(v)
    return out


def signed32(v: int) -> int:
    """A varint read as ``int32`` (negative ones are written sign-extended to 64 bits)."""
    v &= _U32
    return v - (1 << 32) if v >= 1 << 31 else v


def signed64(v: int) -> int:
    """A varint read as ``int64`` (two's complement)."""
    v &= _U64
    return v - (1 << 64) if v >= 1 << 63 else v


def encode_varint(v: int) -> bytes:
    """A varint; a negative number as its 64-bit two's complement (10 bytes), as protobuf writes int32/int64."""
    v &= _U64
    out = bytearray()
    while v > 0x7F:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def field_varint(num: int, value: int) -> bytes:
    return encode_varint(num << 3) + encode_varint(int(value))


def field_bytes(num: int, payload: bytes) -> bytes:
    return encode_varint((num << 3) | 2) + encode_varint(len(payload)) + payload


# -- tf.train.Example --------------------------------------------------------------------------------


class Feature(NamedTuple):
    """One feature of an ``Example``: ``kind`` is ``bytes``, ``float`` or ``int64`` (``""`` when unset)."""

    kind: str
    values: list[Any]


_KINDS = {1: "bytes", 2: "float", 3: "int64"}
_KIND_FIELDS = {v: k for k, v in _KINDS.items()}


def _parse_feature(buf: memoryview) -> Feature:
    kind, values = "", []
    for num, wt, payload in iter_fields(buf):
        if num not in _KINDS or wt != 2:
            continue
        kind, values = _KINDS[num], []  # a oneof: the last one set wins
        for vnum, vwt, v in iter_fields(payload):
            if vnum != 1:
                continue
            if kind == "bytes" and vwt == 2:
                values.append(bytes(v))
            elif kind == "float" and vwt == 5:
                values.append(struct.unpack("<f", v)[0])
            elif kind == "float" and vwt == 2:
                if len(v) % 4:
                    raise TFRecordError(f"bad float_list: {len(v)} packed bytes is not a multiple of 4")
                values.extend(struct.unpack(f"<{len(v) // 4}f", v))
            elif kind == "int64" and vwt == 0:
                values.append(signed64(v))
            elif kind == "int64" and vwt == 2:
                values.extend(signed64(x) for x in packed_varints(v))
            else:
                raise TFRecordError(f"bad {kind}_list: a value has wire type {vwt}")
    return Feature(kind, values)


def parse_example(data: bytes | memoryview) -> dict[str, Feature]:
    """A serialized ``tf.train.Example`` as ``{key: Feature(kind, values)}`` (bytes stay bytes)."""
    out: dict[str, Feature] = {}
    for num, wt, features in iter_fields(memoryview(data).cast("B")):  # views: each value copied once
        if num != 1 or wt != 2:
            continue
        for fnum, fwt, entry in iter_fields(features):
            if fnum != 1 or fwt != 2:
                continue
            key, value = "", Feature("", [])
            for enum_, ewt, v in iter_fields(entry):
                if enum_ == 1 and ewt == 2:
                    try:
                        key = bytes(v).decode("utf-8")
                    except UnicodeDecodeError:
                        raise TFRecordError(f"bad Example: a feature key is not UTF-8 ({bytes(v[:40])!r})") from None
                elif enum_ == 2 and ewt == 2:
                    value = _parse_feature(v)
            out[key] = value  # a map: the last entry for a key wins
    return out


def _feature_bytes(value: Feature | Sequence[Any]) -> bytes:
    if isinstance(value, Feature):
        kind, values = value
    else:
        values = list(value)
        if all(isinstance(v, (bytes, bytearray, str)) for v in values):
            kind = "bytes"
        elif all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            kind = "int64"
        elif all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            kind = "float"
        else:
            raise TypeError("a feature's values are all bytes/str, all ints or all floats; else give a Feature")
        if not values:
            kind = "bytes"
    if kind == "":
        return b""
    if kind not in _KIND_FIELDS:
        raise ValueError(f"unknown feature kind {kind!r}")
    if kind == "bytes":
        body = b"".join(field_bytes(1, v.encode("utf-8") if isinstance(v, str) else bytes(v)) for v in values)
    elif kind == "float":
        body = field_bytes(1, struct.pack(f"<{len(values)}f", *values)) if values else b""
    else:
        body = field_bytes(1, b"".join(encode_varint(int(v)) for v in values)) if values else b""
    return field_bytes(_KIND_FIELDS[kind], body)


def encode_example(features: Mapping[str, Feature | Sequence[Any]]) -> bytes:
    """A ``tf.train.Example`` holding ``features``: each a :class:`Feature` or a list whose kind
    follows its values (bytes or str → ``bytes_list``, ints → ``int64_list``, floats →
    ``float_list``); numbers are written packed."""
    entries = b"".join(
        field_bytes(1, field_bytes(1, key.encode("utf-8")) + field_bytes(2, _feature_bytes(value)))
        for key, value in features.items()
    )
    return field_bytes(1, entries)
