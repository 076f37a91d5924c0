"""The Python API against the command line, on the bundled example and a
planted corpus; bad input raises, naming the record."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import ROOT, copies_cut_anywhere, copy_ends, run_cli, two_languages, write_jsonl

import parallels

EXAMPLES = [ROOT / "examples" / f"v{k}.txt" for k in (1, 2, 3)]


def test_align_files_equals_the_cli_json(cli):
    want = json.loads(run_cli(cli, "align", *map(str, EXAMPLES), "--format", "json").stdout)
    got = parallels.align_files(EXAMPLES)
    assert got == want
    assert got["schema"] == parallels.ALIGN_SCHEMA
    assert len(got["pairs"]) == 3 and all(p["passages"] for p in got["pairs"])


def test_align_texts_equals_the_cli_json(cli):
    want = json.loads(run_cli(cli, "align", *map(str, EXAMPLES), "--format", "json").stdout)
    texts = {p.stem: p.read_text(encoding="utf-8") for p in EXAMPLES}
    got = parallels.align(texts)
    assert got["pairs"] == want["pairs"]
    assert [(d["id"], d["chars"]) for d in got["documents"]] == [(d["id"], d["chars"]) for d in want["documents"]]
    # A list takes ids from `ids`; options are the command's.
    lexical = parallels.align(list(texts.values()), ids=list(texts), semantic=False)
    want = json.loads(run_cli(cli, "align", *map(str, EXAMPLES), "--format", "json", "--no-semantic").stdout)
    assert lexical["pairs"] == want["pairs"]


LINES = ROOT / "crates" / "parallels-cli" / "tests" / "fixtures" / "lines"
EN_LINES = (LINES / "walls.en.txt").read_text(encoding="utf-8")
DE_LINES = (LINES / "walls.de.txt").read_text(encoding="utf-8")


def test_align_translations_one_sentence_a_line_completely(cli, tmp_path):
    got = parallels.align({"en": EN_LINES, "de": DE_LINES}, sentences="lines")
    (tmp_path / "en.txt").write_text(EN_LINES, encoding="utf-8")
    (tmp_path / "de.txt").write_text(DE_LINES, encoding="utf-8")
    args = ["align", str(tmp_path / "en.txt"), str(tmp_path / "de.txt"), "--sentences", "lines", "--format", "json"]
    assert got["pairs"] == json.loads(run_cli(cli, *args).stdout)["pairs"]
    [passage] = got["pairs"][0]["passages"]
    assert len(passage["links"]) == 8
    [unlinked] = passage["unlinked"]
    s, e = unlinked["b"]  # "de", given second, is the pair's B
    assert DE_LINES[s:e] == "Die Fischer flickten dann ihre Netze am Ufer."
    with pytest.raises(ValueError, match="sentences=\"words\""):
        parallels.align({"en": EN_LINES, "de": DE_LINES}, sentences="words")


def test_align_rejects_bad_input_naming_the_record():
    with pytest.raises(TypeError, match=r"record 1 \(id 'b'\)"):
        parallels.align({"a": "甲乙丙", "b": 7})
    with pytest.raises(ValueError, match=r"record 1: id 'x' is given twice"):
        parallels.align(["甲", "乙"], ids=["x", "x"])
    with pytest.raises(ValueError, match="2 texts but 1 ids"):
        parallels.align(["甲", "乙"], ids=["x"])
    with pytest.raises(TypeError):
        parallels.align(["甲", "乙"], no_such_option=1)
    with pytest.raises(ValueError, match="sigmas"):
        parallels.align(["甲", "乙"], sigmas=-1.0)
    with pytest.raises(ValueError, match=r'text "big": 1.1 MiB is more than max_size_mib=1'):
        parallels.align({"big": "甲" * 400_000, "small": "乙"}, max_size_mib=1)
    # An integer out of range is named (the extension's OverflowError
    # names no argument).
    with pytest.raises(ValueError, match=r"gap=-1: out of range"):
        parallels.align(["甲", "乙"], gap=-1)
    with pytest.raises(ValueError, match=r"max_size_mib=-5: out of range"):
        parallels.align(["甲", "乙"], max_size_mib=-5, gap=2**40)


def test_ctrl_c_stops_waiting_for_a_long_call():
    # Ctrl-C (here the main thread's interrupt, as a signal would set it)
    # raises KeyboardInterrupt while the work runs, not when it is done:
    # the call returns in a fraction of the time the whole work takes.
    import random
    import threading
    import time

    rng = random.Random(2)
    han = [chr(c) for c in range(0x4E00, 0x4E00 + 1500)]
    base = "".join("".join(rng.choice(han) for _ in range(rng.randint(8, 30))) + "。" for _ in range(12000))
    texts = {"a": base, "b": base[len(base) // 3 :] + base[: len(base) // 3]}
    start = time.monotonic()
    parallels.align(texts, semantic=False)
    whole = time.monotonic() - start
    timer = threading.Timer(whole / 10, __import__("_thread").interrupt_main)
    start = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        parallels.align(texts, semantic=False)
    stopped = time.monotonic() - start
    timer.join()
    assert stopped < whole / 2, (stopped, whole)


def _passages(rows):
    return sorted((r["a_doc"], r["b_doc"], r["a_start"], r["a_end"], r["b_start"], r["b_end"]) for r in rows)


def test_scan_of_files_and_of_a_table_equal_the_cli(cli, corpus, tmp_path):
    out = tmp_path / "cli"
    run_cli(cli, "scan", str(corpus["path"]), "--group", "group", "-o", str(out), "--format", "parquet")
    want = pq.read_table(out / "passages.parquet")
    got = parallels.scan(str(corpus["path"]), group="group")
    assert got["passages"].equals(want)
    assert got["clusters"].equals(pq.read_table(out / "clusters.parquet"))
    assert got["documents"].equals(pq.read_table(out / "documents.parquet"))
    assert got["summary"]["stats"] == json.loads((out / "summary.json").read_text())["stats"]
    assert pq.read_schema(out / "passages.parquet").metadata[b"parallels.schema"] == parallels.PARQUET_SCHEMA.encode()
    # The same records as an in-memory table: the same passages.
    table = pa.Table.from_pylist(corpus["records"])
    mem = parallels.scan(table, group="group")
    assert _passages(mem["passages"].to_pylist()) == _passages(want.to_pylist())
    assert mem["documents"].column("source").to_pylist()[:2] == ["table#0", "table#1"]
    # And as a pandas DataFrame.
    frame = parallels.scan(table.to_pandas(), group="group")
    assert frame["passages"].equals(mem["passages"])
    # Every planted copy is found once every passage is reported (some
    # short ones are below the default significance), and the reported
    # passages are among them.
    everything = parallels.scan(table, group="group", all=True)["passages"].to_pylist()
    pairs = {(r["a_doc"], r["b_doc"]) for r in everything}
    ids = {r["n"]: r["id"] for r in corpus["records"]}
    groups = {r["id"]: r["group"] for r in corpus["records"]}
    planted = 0
    for p in corpus["planted"]:
        a, b = sorted((ids[p["source"]], ids[p["copy"]]))
        if groups[a] is None or groups[a] != groups[b]:
            planted += 1
            assert (a, b) in pairs, p
    assert planted > 20
    assert set(_passages(want.to_pylist())) <= set(_passages(everything))


def test_scan_gives_a_copy_cut_anywhere_its_own_ends():
    # A run cut inside a sentence of one document, set in mid-sentence in
    # another: `verbatim`, its ends where the copy's are, as the CLI's.
    records, gold = copies_cut_anywhere()
    got = parallels.scan(pa.Table.from_pylist(records))["passages"].to_pylist()
    want = [("verbatim", a, b) for _, _, a, b in gold]
    assert copy_ends(got, gold) == want
    assert len(got) == len(gold)


def test_scan_writes_the_cli_tables(corpus, tmp_path):
    parallels.scan(str(corpus["path"]), output=str(tmp_path / "o"), format="jsonl", min_significance=0)
    lines = (tmp_path / "o" / "passages.jsonl").read_text(encoding="utf-8").splitlines()
    assert lines and all(json.loads(x)["a_doc"] for x in lines)


def test_scan_rejects_bad_input_naming_the_record(corpus):
    with pytest.raises(ValueError, match="no column 'body'"):
        parallels.scan(pa.table({"id": ["a"], "text": ["甲"]}), text="body")
    bad = pa.table({"id": ["a", "b", "c"], "text": ["甲乙丙丁", None, "戊己庚"]})
    with pytest.raises(ValueError, match=r"table#1"):
        parallels.scan(bad)
    with pytest.raises(ValueError, match="max_df"):
        parallels.scan(str(corpus["path"]), max_df=1)
    with pytest.raises(ValueError):
        parallels.scan(str(corpus["dir"] / "missing.jsonl"))


def test_dedup_equals_the_cli(cli, corpus, tmp_path):
    removed = tmp_path / "removed.jsonl"
    run_cli(cli, "dedup", str(corpus["path"]), "-o", str(tmp_path / "kept.jsonl"), "--removed", str(removed))
    want = [json.loads(x) for x in removed.read_text(encoding="utf-8").splitlines()]
    assert want, "the planted copies are duplicates"
    got = parallels.dedup(str(corpus["path"]))
    assert got["removed"].to_pylist() == want
    kept = [json.loads(x)["id"] for x in (tmp_path / "kept.jsonl").read_text(encoding="utf-8").splitlines()]
    assert got["kept"].to_pylist() == kept
    # Over a table: the kept rows with every column, the same removed ids.
    table = pa.Table.from_pylist(corpus["records"])
    mem = parallels.dedup(table)
    assert mem["kept"].column_names == table.column_names
    assert mem["kept"].column("id").to_pylist() == kept
    assert [(r["id"], r["reason"], r["duplicate_of"], r["similarity"]) for r in mem["removed"].to_pylist()] == [
        (r["id"], r["reason"], r["duplicate_of"], r["similarity"]) for r in want
    ]
    frame = parallels.dedup(table.to_pandas())
    assert list(frame["kept"]["id"]) == kept


def test_dedup_rejects_bad_input():
    with pytest.raises(ValueError, match="threshold"):
        parallels.dedup(pa.table({"id": ["a"], "text": ["甲"]}), threshold=1.5)
    with pytest.raises(ValueError, match="bands and rows"):
        parallels.dedup(pa.table({"id": ["a"], "text": ["甲"]}), bands=4)
    with pytest.raises(ValueError, match=r"table#0"):
        parallels.dedup(pa.table({"id": ["a", "b"], "text": [None, "乙"]}))
    # A keep field no record holds a number in: misspelled, refused.
    rows = pa.table({"id": ["a", "b"], "text": ["甲乙丙丁", "甲乙丙丁"], "score": [1, 2]})
    with pytest.raises(ValueError, match=r'keep field "scroe" holds a number in none of the 2 records'):
        parallels.dedup(rows, keep_field="scroe")
    assert parallels.dedup(rows, keep_field="score")["kept"].column("id").to_pylist() == ["b"]
    with pytest.raises(ValueError, match=r"ngram=-3: out of range"):
        parallels.dedup(rows, ngram=-3)


def test_building_blocks_over_a_batch(corpus):
    texts = [r["text"] for r in corpus["records"][:20]]
    fp = parallels.fingerprints(pa.array(texts))
    assert fp.num_rows == 20
    assert fp.column("chars").to_pylist() == [len(t) for t in texts]
    for h, p in zip(fp.column("seed_hash").to_pylist(), fp.column("seed_pos").to_pylist()):
        assert len(h) == len(p) > 0 and p == sorted(p)
    # A text's fingerprint does not depend on its batch.
    alone = parallels.fingerprints([texts[3]])
    assert alone.column("seed_hash").to_pylist()[0] == fp.column("seed_hash").to_pylist()[3]
    mh = parallels.minhash(texts + [texts[0], ""], perms=64, bands=8, rows=8)
    sig = mh.column("signature").to_pylist()
    assert len(sig[0]) == 64 and len(mh.column("band_keys").to_pylist()[0]) == 8
    assert sig[20] == sig[0] and mh.column("exact")[20] == mh.column("exact")[0]
    assert mh.column("exact")[21].as_py() is None and mh.column("tokens").to_pylist()[21] == 0
    assert parallels.fingerprints([]).num_rows == 0
    with pytest.raises(TypeError, match="record 1"):
        parallels.minhash(["甲", None])
    # The feature table of counts as blocks (as the Spark driver sends
    # them) names the block that is not one.
    with pytest.raises(ValueError, match="block 1"):
        parallels.FeatureTable.of_blocks([parallels._parallels.scan_blocks(texts, list(range(20)), [None] * 20, 1)[1][0][1], b"junk"])


def test_dedup_decisions_over_a_batch(corpus):
    from parallels import _parallels as native

    text = corpus["records"][0]["text"]
    near = text[:-3] + "甲"  # all shingles but a few shared
    far = corpus["records"][1]["text"]
    cut = text[: len(text) * 17 // 20]  # 85% of the shingles
    mh = parallels.minhash([text, near, far, cut])
    sig = mh.column("signature").to_pylist()
    assert mh.column("chars").to_pylist()[:3] == [len(text), len(near), len(far)]
    decision, estimate = native.settle_pairs([sig[0], sig[0], sig[0]], [sig[1], sig[2], sig[3]])
    # A near copy joined, an unrelated text turned away, both by their
    # signatures; 85% of a text is left to the exact check.
    assert decision == [1, 0, -1] and estimate[0] > 0.95 and estimate[1] < 0.1
    j = native.exact_similarities([text, text], [near, cut])
    assert j[0] > 0.98 and 0.8 < j[1] < 0.9
    # With the signatures alone nothing is left unsettled.
    assert -1 not in native.settle_pairs([sig[0]], [sig[3]], verify="signature")[0]
    # The kept member: first, longest (the first of equals), largest value.
    members, chars, values = [[2, 5, 9]], [[10, 30, 30]], [[None, 1.0, 7.5]]
    assert native.keepers(members, chars, values, keep="first") == [2]
    assert native.keepers(members, chars, values, keep="longest") == [5]
    assert native.keepers(members, chars, values, keep="field") == [9]
    assert native.keepers(members, chars, [[None, None, float("nan")]], keep="field") == [2]
    with pytest.raises(ValueError, match="cluster 0"):
        native.keepers([[5, 2]], [[1, 1]], [[None, None]])
    with pytest.raises(ValueError, match="pair 0"):
        native.settle_pairs([sig[0][:5]], [sig[1]])


def _between(passages, x, y):
    return [p for p in passages if {p["a_doc"], p["b_doc"]} == {x, y}]


def test_scan_finds_translations_as_the_cli(cli, tmp_path):
    # A corpus in two languages (the command's test corpus): the English
    # rendering of v1 is found against v1, and the rendered paragraph
    # inside Mark against its Chinese paragraph, as `parallels scan` finds
    # them; the summary says what was compared.
    records, (h0, h1) = two_languages()
    path = write_jsonl(tmp_path / "docs.jsonl", records)
    run_cli(cli, "scan", str(path), "-o", str(tmp_path / "cli"), "--format", "parquet")
    want = pq.read_table(tmp_path / "cli" / "passages.parquet").to_pylist()
    got = parallels.scan(str(path))
    passages = got["passages"].to_pylist()
    assert passages == want
    docs = got["documents"].to_pylist()
    assert [(d["id"], d["language"]) for d in docs] == [("zh", "zh"), ("en", "en"), ("other", "zh"), ("host", "en"), ("mark", "en")]

    text = {r["id"]: r["text"] for r in records}
    [p] = _between(passages, "en", "zh")
    assert p["kind"] == "parallel" and (p["a_doc"], p["b_doc"]) == ("zh", "en")
    assert p["b_end"] - p["b_start"] >= len(text["en"]) * 9 // 10
    v1 = text["zh"]
    assert v1.index("当天晚上，市议会") <= p["a_start"] and p["a_end"] <= v1.index("四月十四日黄昏")
    assert len(p["links"]) >= 20 and p["significance"] > 0
    pairs = [(text["en"][l["b_start"] : l["b_end"]], v1[l["a_start"] : l["a_end"]]) for l in p["links"]]
    assert any("fifteen to eight" in e and "十五票对八票" in z for e, z in pairs), pairs
    [p] = [p for p in _between(passages, "host", "zh") if p["kind"] == "parallel"]
    assert (p["b_start"], p["b_end"]) == (h0, h1)
    start = v1.index("四月三日")
    assert p["a_start"] == start and v1[p["a_start"] : p["a_end"]] in v1[start:]
    for x, y in [("mark", "zh"), ("mark", "other"), ("en", "other"), ("host", "other")]:
        assert not _between(passages, x, y), (x, y)
    clusters = got["clusters"].to_pylist()
    [p] = _between(passages, "en", "zh")
    assert {"en", "zh"} <= {m["doc"] for m in clusters[p["cluster"]]["members"]}

    stats = got["summary"]["stats"]
    assert stats["languages"] == {"en": 3, "zh": 2}
    assert stats["across_sentences"] > 300 and stats["across_encoded"] > 0
    assert stats["across_candidates"] >= stats["across_pairs"] >= 2

    # translations=False is `scan --no-translations`: the languages are not
    # compared; the paragraph copied into Mark is still found, as a copy.
    run_cli(cli, "scan", str(path), "-o", str(tmp_path / "off"), "--format", "parquet", "--no-translations")
    off = parallels.scan(str(path), translations=False)
    passages = off["passages"].to_pylist()
    assert passages == pq.read_table(tmp_path / "off" / "passages.parquet").to_pylist()
    assert not _between(passages, "en", "zh") and not _between(passages, "host", "zh")
    assert [p["kind"] for p in _between(passages, "en", "host")] == ["verbatim"]
    assert "languages" not in off["summary"]["stats"]
    # Checked as the other keywords are.
    with pytest.raises(TypeError):
        parallels.scan(str(path), translations="no")
    with pytest.raises(TypeError):
        parallels.scan(str(path), no_translations=True)
