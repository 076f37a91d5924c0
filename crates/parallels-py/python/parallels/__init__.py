"""Find and align the passages texts share, from Python.

The same engine as the ``parallels`` command (a Rust library, called
through :mod:`parallels._parallels`): every call releases the GIL and runs
on the library's own threads, and every bad input raises a Python
exception that names the record at fault.

* :func:`align` — every pair of a few texts, as ``parallels align --format
  json`` (the ``parallels.align/1`` document, as a dict).
* :func:`scan` — every shared passage of a corpus, as ``parallels scan``:
  files, folders and globs, or an in-memory Arrow table / pandas DataFrame
  with ``id`` and ``text`` columns. The tables come back as Arrow tables
  (``documents``, ``passages``, ``clusters``, with the columns of
  ``scan --format parquet``).
* :func:`dedup` — exact and near-duplicate documents, as ``parallels
  dedup``: the kept rows (every column) and the removed ones with reason,
  kept id and similarity.
* :func:`fingerprints`, :func:`minhash` — building blocks over a batch of
  texts (winnowed seeds; MinHash signatures and LSH band keys), vectorized
  for Arrow record batches: the per-partition work of :mod:`parallels.spark`,
  with :func:`align_candidates` (a batch of candidate pairs, given the
  corpus-wide :class:`FeatureTable` summed from :func:`feature_counts`).

Offsets are code points into the original texts, half-open.
"""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from . import _parallels
from ._parallels import ALIGN_SCHEMA, PARQUET_SCHEMA, SCAN_SCHEMA, FeatureTable, align_candidates, feature_counts

__all__ = [
    "ALIGN_SCHEMA",
    "PARQUET_SCHEMA",
    "SCAN_SCHEMA",
    "FeatureTable",
    "align",
    "align_candidates",
    "align_files",
    "dedup",
    "feature_counts",
    "fingerprints",
    "minhash",
    "scan",
]

Texts = Union[Sequence[str], Mapping[str, str]]
Source = Union[str, "os.PathLike[str]", Sequence[Union[str, "os.PathLike[str]"]], pa.Table, Any]


def _ids_and_texts(texts: Texts, ids: Optional[Sequence[str]]) -> "tuple[List[str], List[str]]":
    if isinstance(texts, Mapping):
        if ids is not None:
            raise TypeError("give ids or a dict of texts, not both")
        ids, texts = list(texts.keys()), list(texts.values())
    elif isinstance(texts, str):
        raise TypeError("texts: a list or dict of str, not one str")
    else:
        texts = list(texts)
        ids = [str(k) for k in range(len(texts))] if ids is None else list(ids)
    if len(ids) != len(texts):
        raise ValueError(f"{len(texts)} texts but {len(ids)} ids")
    seen = set()
    for k, (i, t) in enumerate(zip(ids, texts)):
        if not isinstance(i, str):
            raise TypeError(f"record {k}: the id must be a str, not {type(i).__name__}")
        if not isinstance(t, str):
            raise TypeError(f"record {k} (id {i!r}): the text must be a str, not {type(t).__name__}")
        if i in seen:
            raise ValueError(f"record {k}: id {i!r} is given twice")
        seen.add(i)
    return list(ids), list(texts)


def _named(call: Any, *args: Any, **options: Any) -> Any:
    """``call(*args, **options)``, an integer option out of range named in
    a ``ValueError`` (the extension's ``OverflowError`` names none)."""
    try:
        return call(*args, **options)
    except OverflowError:
        ints = [(k, v) for k, v in options.items() if isinstance(v, int) and not isinstance(v, bool)]
        for out in (lambda v: v < 0, lambda v: v >= 2**64, lambda v: v >= 2**32):
            for k, v in ints:
                if out(v):
                    raise ValueError(f"{k}={v}: out of range (a whole number from 0)") from None
        raise


def align(texts: Texts, ids: Optional[Sequence[str]] = None, **options: Any) -> Dict[str, Any]:
    """Align every pair of ``texts`` and return the ``parallels.align/1`` object.

    ``texts`` is a list of str (ids ``"0"``, ``"1"``, … unless ``ids`` is
    given) or a dict id → text. Options (keywords) are those of ``parallels
    align``: ``sigmas``, ``gap``, ``semantic`` (False: ``--no-semantic``),
    ``script``, ``numbers``, ``footnotes``, ``boilerplate`` (False: the
    ``--no-…`` switches), ``max_size_mib`` and ``sentences`` (``"text"``, or
    ``"lines"``: one sentence a line, as sentence aligners take texts). A
    document's ``path`` is its id; its ``encoding`` is ``utf-8``. Where two
    texts in two languages are versions of one another, their passage is
    aligned completely: its ``unlinked`` sentences are those without
    counterpart.
    """
    ids, texts = _ids_and_texts(texts, ids)
    return json.loads(_named(_parallels.align, texts, ids, **options))


def align_files(
    paths: Sequence[Union[str, "os.PathLike[str]"]], *, semantic: bool = True, max_size_mib: Optional[int] = None
) -> Dict[str, Any]:
    """Align text files exactly as ``parallels align --format json FILES``
    does (ids from the file names, encodings detected). A file over
    ``max_size_mib`` (default: the command's ``--max-size``) raises
    ``ValueError``; a pipe or a device is read up to that limit, no further."""
    options: Dict[str, Any] = {"semantic": semantic}
    if max_size_mib is not None:
        options["max_size_mib"] = max_size_mib
    return json.loads(_named(_parallels.align_files, [os.fspath(p) for p in paths], **options))


def _as_table(data: Any) -> Optional[pa.Table]:
    """An Arrow table of ``data`` if it is a table (Arrow or pandas), else None."""
    if isinstance(data, pa.Table):
        return data
    if isinstance(data, pa.RecordBatch):
        return pa.Table.from_batches([data])
    if type(data).__module__.startswith("pandas") and hasattr(data, "columns"):
        return pa.Table.from_pandas(data, preserve_index=False)
    return None


def _paths(data: Any) -> List[str]:
    """The paths of ``data`` (a path, a glob or a list of them). ``scan``
    and ``dedup`` read strings as paths; a string that names no file and
    is no glob pattern is most likely a text given where a table was
    meant, so the error says how to pass texts."""
    paths = [os.fspath(data)] if isinstance(data, (str, os.PathLike)) else [os.fspath(p) for p in data]
    for p in paths:
        if isinstance(p, str) and not any(c in p for c in "*?[") and not os.path.exists(p):
            shown = p if len(p) <= 60 else p[:57] + "..."
            raise ValueError(
                f"{shown!r}: no such file or folder. scan and dedup read strings as paths (folders, JSON Lines, "
                "Parquet, glob patterns); to give texts, give a table: "
                "pyarrow.table({'id': ids, 'text': texts}) or a pandas DataFrame with those columns"
            )
    return paths


def _check_columns(table: pa.Table, id: str, text: str, *others: Optional[str]) -> None:
    for name in (id, text, *others):
        if name is not None and name not in table.column_names:
            raise ValueError(f"the table has no column {name!r} (columns: {', '.join(table.column_names)})")
    if not pa.types.is_string(table.schema.field(text).type) and not pa.types.is_large_string(
        table.schema.field(text).type
    ):
        raise ValueError(f"column {text!r} holds {table.schema.field(text).type}, not strings")


class _TableFile:
    """An in-memory table written to a temporary Parquet file, for
    :func:`dedup`, whose kept rows are written by copying the input file's
    rows (``scan`` reads a table in memory); error messages and sources
    name ``table#ROW``."""

    def __init__(self, table: pa.Table):
        self.dir = tempfile.TemporaryDirectory(prefix="parallels-")
        self.path = os.path.join(self.dir.name, "table.parquet")
        pq.write_table(table, self.path)

    def rename(self, s: str) -> str:
        return s.replace(self.path, "table")

    def __enter__(self) -> "_TableFile":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.dir.cleanup()


def _read_ipc(data: bytes) -> pa.Table:
    return pa.ipc.open_stream(pa.py_buffer(data)).read_all()


def _renamed_sources(t: pa.Table, column: str, f: "_TableFile") -> pa.Table:
    i = t.schema.get_field_index(column)
    renamed = pa.array([None if s is None else f.rename(s) for s in t.column(column).to_pylist()], pa.string())
    return t.set_column(i, t.schema.field(i), renamed)


def scan(data: Source, *, id: str = "id", text: str = "text", group: Optional[str] = None, **options: Any) -> Dict[str, Any]:
    """Every shared passage of a corpus, as ``parallels scan``.

    ``data`` is a path, glob or list of them (text folders, JSON Lines,
    Parquet), or an Arrow table / pandas DataFrame with ``id`` and ``text``
    columns (other columns become ``meta``). Options are those of the
    command, as keywords: ``group_by_dir``, ``strict`` (default True here:
    a bad record raises), ``max_df``, ``min_seeds``, ``min_significance``, ``min_specificity``,
    ``all``, ``memory_mib``, ``script``/``numbers``/``footnotes``/
    ``boilerplate`` (False switches the rule off), ``translations``
    (default True: in a corpus of two languages or more that the encoder
    knows, translations are found by meaning; False is ``scan
    --no-translations``), and ``output`` with ``format`` ("jsonl" or
    "parquet") to also write the command's tables.

    Returns a dict: ``documents``, ``passages``, ``clusters`` (Arrow tables
    with the columns of ``scan --format parquet``) and ``summary`` (the
    ``summary.json`` object).
    """
    table = _as_table(data)
    if table is None:
        d, p, c, s = _named(_parallels.scan, _paths(data), id=id, text=text, group=group, **options)
        return {"documents": _read_ipc(d), "passages": _read_ipc(p), "clusters": _read_ipc(c), "summary": json.loads(s)}
    _check_columns(table, id, text, group)
    # The table goes to the library as it is (an Arrow IPC stream, read in
    # memory); its rows' sources are ``table#ROW``.
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as w:
        w.write_table(table)
    d, p, c, s = _named(_parallels.scan, [], id=id, text=text, group=group, table=sink.getvalue().to_pybytes(), **options)
    summary = json.loads(s)
    summary.pop("inputs", None)
    return {"documents": _read_ipc(d), "passages": _read_ipc(p), "clusters": _read_ipc(c), "summary": summary}


def dedup(data: Source, *, id: str = "id", text: str = "text", **options: Any) -> Dict[str, Any]:
    """Exact and near-duplicate documents, as ``parallels dedup``.

    ``data`` is a path, glob or list of them, or an Arrow table / pandas
    DataFrame with ``id`` and ``text`` columns. Options are those of the
    command, as keywords: ``threshold``, ``ngram``, ``perms``, ``bands``
    with ``rows``, ``verify`` ("exact" or "signature"), ``keep`` ("first"
    or "longest"), ``keep_field``, ``paragraphs``,
    ``min_paragraph_tokens``, ``memory_mib``, the normalization switches,
    ``strict`` (default True), and for files ``output`` with ``format``.

    Returns a dict: ``removed`` (Arrow table: ``id``, ``source``,
    ``reason``, ``duplicate_of``, ``duplicate_of_source``,
    ``similarity``), ``stats`` (the counts), and ``kept``: for a table,
    the kept rows with every column (a DataFrame for a DataFrame, texts
    trimmed with ``paragraphs=True``); for files, the kept ids.
    """
    table = _as_table(data)
    if table is None:
        fates, stats = _named(_parallels.dedup, _paths(data), id=id, text=text, **options)
        fates = _read_ipc(fates)
        kept = fates.filter(fates.column("kept")).column("id")
        removed = fates.filter(pc.invert(fates.column("kept"))).drop(["kept"])
        return {"kept": kept, "removed": removed, "stats": json.loads(stats)}
    for key in ("output", "format"):
        if key in options:
            raise TypeError(f"{key}=: dedup of a table returns the kept rows; write them yourself")
    _check_columns(table, id, text)
    with _TableFile(table) as f:
        out = os.path.join(f.dir.name, "kept")
        try:
            fates, stats = _named(_parallels.dedup, [f.path], id=id, text=text, output=out, format="parquet", **options)
        except ValueError as e:
            raise ValueError(f.rename(str(e))) from None
        fates = _read_ipc(fates)
        kept = pq.read_table(os.path.join(out, "table.parquet"))
        removed = fates.filter(pc.invert(fates.column("kept"))).drop(["kept"])
        removed = _renamed_sources(_renamed_sources(removed, "source", f), "duplicate_of_source", f)
    if not isinstance(data, (pa.Table, pa.RecordBatch)):
        return {"kept": kept.to_pandas(), "removed": removed.to_pandas(), "stats": json.loads(stats)}
    return {"kept": kept, "removed": removed, "stats": json.loads(stats)}


def _texts_of(texts: Any) -> List[str]:
    if isinstance(texts, (pa.Array, pa.ChunkedArray)):
        texts = texts.to_pylist()
    texts = list(texts)
    for k, t in enumerate(texts):
        if not isinstance(t, str):
            raise TypeError(f"record {k}: the text must be a str, not {type(t).__name__}")
    return texts


def _one_batch(t: pa.Table) -> pa.RecordBatch:
    batches = t.combine_chunks().to_batches()
    return batches[0] if batches else pa.RecordBatch.from_pylist([], schema=t.schema)


def fingerprints(texts: Any, **options: Any) -> pa.RecordBatch:
    """Normalize and fingerprint a batch of texts (a list of str or an Arrow
    string array) as ``scan`` does: a record batch with ``chars``,
    ``seed_hash`` (winnowed n-gram hashes) and ``seed_pos`` (their token
    positions), one row per text. Options: the normalization switches."""
    return _one_batch(_read_ipc(_named(_parallels.fingerprints, _texts_of(texts), **options)))


def minhash(texts: Any, **options: Any) -> pa.RecordBatch:
    """MinHash sketches of a batch of texts as ``dedup`` makes them: a record
    batch with ``signature``, ``exact`` (16 bytes; null without tokens),
    ``tokens``, ``chars`` and ``band_keys``, one row per text. The rest of
    ``dedup``'s decision is in ``_parallels.settle_pairs`` (candidate pairs
    by their signatures), ``_parallels.exact_similarities`` (the exact
    check) and ``_parallels.keepers`` (the kept member of a cluster). Options: ``threshold``,
    ``ngram``, ``perms``, ``bands``/``rows`` and the normalization switches."""
    return _one_batch(_read_ipc(_named(_parallels.minhash, _texts_of(texts), **options)))
