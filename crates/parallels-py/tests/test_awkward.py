"""One corpus of awkward records through every front end: the command
line, ``parallels.scan``/``parallels.dedup`` and ``parallels.spark.scan``/
``spark.dedup`` read the same documents from it and give the same
passages, documents, clusters, kept and removed records (issue 34).

The records: blank and whitespace-only texts, an id used twice (blank
first and real later, and the reverse), a text with a lone surrogate
(``\\ud800`` in the JSON, read as U+FFFD), an empty id, a numeric id, and
a very long line; among them two pairs sharing passages and exact and
near copies for dedup; and a second language: the bundled Chinese
example and its English rendering (a translation found by meaning, the
documents of random Han sentences compared with the English too)."""

from __future__ import annotations

import json
import random

import pyarrow.parquet as pq
import pytest
from conftest import ROOT, _edit, _sentence, run_cli

import parallels


def _awkward(tmp_path):
    rng = random.Random(34)
    sents = lambda n: "".join(_sentence(rng) for _ in range(n))  # noqa: E731
    p1, p2, p3 = sents(6), sents(6), sents(8)
    a = sents(10) + p1 + sents(10) + p2 + sents(10)
    b = sents(12) + p1 + sents(8) + p2 + sents(12)
    c = sents(15) + p3 + sents(15)
    # A very long line: some 400,000 characters, sharing p3 with c.
    long = sents(6000) + p3 + sents(6000)
    copy = sents(40)
    lines = [
        {"id": "a", "text": "   \n\u3000 "},  # blank first ...
        {"id": "a", "text": a},  # ... the real one later
        {"id": "b", "text": b},
        {"id": "c", "text": c},  # real first ...
        {"id": "c", "text": ""},  # ... a blank one later
        {"id": "", "text": sents(20)},  # an empty id
        {"id": 7, "text": copy},  # a numeric id
        {"id": "copy", "text": copy},  # an exact copy of it
        {"id": "near", "text": _edit(rng, copy, 0.004)},  # a near copy
        {"id": "surrogate", "text": sents(10) + "<lone>" + sents(10)},
        {"id": "long", "text": long},
        {"id": "white", "text": "\t \u2003"},
        # A second language: the English of paragraphs of the Chinese one,
        # after a blank record of its id.
        {"id": "zh", "text": (ROOT / "examples" / "v1.txt").read_text(encoding="utf-8")},
        {"id": "en", "text": "\n"},
        {"id": "en", "text": (ROOT / "examples" / "v1.en.txt").read_text(encoding="utf-8")},
    ]
    path = tmp_path / "awkward.jsonl"
    # The lone surrogate as JSON writes it: the escape `\ud800`.
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in lines).replace("<lone>", "\\ud800")
    path.write_text(text, encoding="utf-8")
    return path


def _passages(rows):
    return [
        (r["a_doc"], r["b_doc"], r["kind"], r["a_start"], r["a_end"], r["b_start"], r["b_end"], r["score"], r["significance"])
        for r in rows
    ]


def _documents(rows):
    return [(r["id"], r["chars"], r["language"], r["passages"], r["shared"]) for r in rows]


def _clusters(rows):
    return [(c["id"], c["size"], c["excerpt"], [(m["doc"], m["start"], m["end"]) for m in c["members"]]) for c in rows]


@pytest.fixture(scope="module")
def awkward(tmp_path_factory):
    return _awkward(tmp_path_factory.mktemp("awkward"))


def _cli_scan(cli, path, out):
    run_cli(cli, "scan", str(path), "-o", str(out), "--format", "parquet")
    return {t: pq.read_table(out / f"{t}.parquet").to_pylist() for t in ("passages", "clusters", "documents")}


def _cli_dedup(cli, path, out):
    run_cli(cli, "dedup", str(path), "-o", str(out / "kept.jsonl"), "--removed", str(out / "removed.jsonl"))
    # Kept records are copied byte for byte (the numeric id stays a
    # number there); ids are compared as text.
    kept = [str(json.loads(x)["id"]) for x in (out / "kept.jsonl").read_text(encoding="utf-8").splitlines()]
    removed = [json.loads(x) for x in (out / "removed.jsonl").read_text(encoding="utf-8").splitlines()]
    return kept, [(r["id"], r["reason"], r["duplicate_of"], r["similarity"]) for r in removed]


def test_the_command_line_reads_the_awkward_records_as_documents(cli, awkward, tmp_path):
    want = _cli_scan(cli, awkward, tmp_path / "scan")
    ids = [d["id"] for d in want["documents"]]
    assert ids == ["a", "b", "c", "7", "copy", "near", "surrogate", "long", "zh", "en"]
    assert [d["language"] for d in want["documents"]][-3:] == ["zh", "zh", "en"]
    assert {(p["a_doc"], p["b_doc"]) for p in want["passages"]} >= {("a", "b"), ("c", "long")}
    # The translation, by meaning, after the lexical passages.
    assert [(p["a_doc"], p["b_doc"], p["kind"]) for p in want["passages"]][-1] == ("zh", "en", "parallel")
    kept, removed = _cli_dedup(cli, awkward, tmp_path / "dedup")
    assert kept == ["a", "b", "c", "7", "surrogate", "long", "zh", "en"]
    assert [(r[0], r[1], r[2]) for r in removed] == [("copy", "exact", "7"), ("near", "near", "7")]


def test_python_gives_what_the_command_line_gives(cli, awkward, tmp_path):
    want = _cli_scan(cli, awkward, tmp_path / "scan")
    got = parallels.scan(str(awkward), strict=False)
    assert _passages(got["passages"].to_pylist()) == _passages(want["passages"])
    assert _clusters(got["clusters"].to_pylist()) == _clusters(want["clusters"])
    assert _documents(got["documents"].to_pylist()) == _documents(want["documents"])
    kept, removed = _cli_dedup(cli, awkward, tmp_path / "dedup")
    got = parallels.dedup(str(awkward), strict=False)
    assert got["kept"].to_pylist() == kept
    assert [(r["id"], r["reason"], r["duplicate_of"], r["similarity"]) for r in got["removed"].to_pylist()] == removed
