"""A game's record as Redis keeps it: one string, "<rev> <version> <meta length>[ <codec>]\n"
and then the metadata and the engine's state, compressed.

Two codecs, both always read; the `record_codec` setting says which one a worker writes:

- `zstd`: zstd (level 3) with a dictionary trained on records (`data/records-v1.zdict`,
  by `scripts/record_dictionary.py`), named `zd1` in the head. A record is 3.4 times smaller
  than its JSON, where zlib made it 1.6 times smaller, and takes 2-3 µs to write.
- `zlib`: level 1, no codec in the head: what workers before 2026-12-05 write and read.
  Writing it costs ~6-18 µs, and on gRPC's path ~35 µs more: zlib lets go of the GIL, and
  under load gRPC's poller thread takes it and the loop waits for it back
  (docs/performance.md, "Round five"). It is the setting for a rolling upgrade from such
  workers, which cannot read `zd1`.

Only the head's first number (the rev) is read by the Lua scripts; the codec comes last.
A dictionary is frozen once records are written with it: a better one is a new file and a
new codec name, never an edit.
"""

from __future__ import annotations

import zlib
from importlib import resources
from typing import Literal

import zstandard

from .base import Record

RecordCodec = Literal["zstd", "zlib"]
CODECS: tuple[RecordCodec, ...] = ("zstd", "zlib")

ZSTD_V1 = b"zd1"
LARGEST = 1 << 20
"""The most a record may decompress to: far above any game's (a few KiB), so that no
corrupt or foreign value makes a worker allocate without bound."""

_DICTIONARY = zstandard.ZstdCompressionDict(
    resources.files("genial.service").joinpath("data", "records-v1.zdict").read_bytes()
)
# The dictionary is named by the head, not by the frame: its id would take 4 bytes.
_compress = zstandard.ZstdCompressor(
    level=3, dict_data=_DICTIONARY, write_dict_id=False, write_checksum=False
).compress
_decompress = zstandard.ZstdDecompressor(dict_data=_DICTIONARY).decompress


def pack(record: Record, codec: RecordCodec) -> bytes:
    head = b"%d %d %d" % (record.rev, record.version, len(record.meta))
    data = record.meta + record.state
    if codec == "zlib":
        return head + b"\n" + zlib.compress(data, 1)
    return head + b" " + ZSTD_V1 + b"\n" + _compress(data)


def unpack(raw: bytes) -> Record:
    """A record in any codec, whichever this worker writes."""
    head, _, body = raw.partition(b"\n")
    rev, version, meta_length, *codec = head.split()
    if not codec:
        data = zlib.decompress(body)
    elif codec == [ZSTD_V1]:
        data = _decompress(body, max_output_size=LARGEST)
    else:
        raise ValueError(f"a record in an unknown codec {codec[0]!r}")
    length = int(meta_length)
    return Record(data[length:], data[:length], int(version), int(rev))
