"""The Spark driver in local mode against the command line, on the planted
corpus: the same passages (document pairs, spans, scores), clusters and
per-document counts."""

from __future__ import annotations

import json
import os
import sys

import pyarrow.parquet as pq
import pytest
from conftest import copies_cut_anywhere, copy_ends, run_cli

pyspark = pytest.importorskip("pyspark")


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    s = (
        SparkSession.builder.master("local[2]")
        .appName("parallels-test")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", "100")
        # Many small jobs on little data: the JVM's quick compiler alone,
        # and no adaptive re-planning, save more than they cost.
        .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
        .config("spark.sql.adaptive.enabled", "false")
        .getOrCreate()
    )
    yield s
    s.stop()


def _rows(table):
    return [
        (r["a_doc"], r["b_doc"], r["kind"], r["a_start"], r["a_end"], r["b_start"], r["b_end"], r["score"], r["significance"])
        for r in table
    ]


@pytest.mark.parametrize("clusters", ["on the driver", "by iterations"])
def test_spark_scan_equals_the_cli(spark, cli, corpus, tmp_path, monkeypatch, clusters):
    # Candidate pairs aligned in more than one group (a document needed by
    # pairs of two groups goes to both).
    monkeypatch.setattr(parallels_spark(), "_PAIRS_PER_GROUP", 7)
    if clusters == "by iterations":
        # The tables as they are made past `_DRIVER_CLUSTERS` passages.
        monkeypatch.setattr(parallels_spark(), "_DRIVER_CLUSTERS", 0)
    out = tmp_path / "cli"
    run_cli(cli, "scan", str(corpus["path"]), "--group", "group", "-o", str(out), "--format", "parquet")
    want = pq.read_table(out / "passages.parquet").to_pylist()
    assert len(want) > 20

    df = spark.read.json(str(corpus["path"])).repartition(3)
    # Rows in the file's order (repartition shuffles them): by `n`.
    df = df.orderBy("n")
    got = parallels_spark().scan(df, group="group")
    passages = [r.asDict(recursive=True) for r in got["passages"].collect()]
    # Same pairs, same spans, same scores and significance, same order.
    assert _rows(passages) == _rows(want)
    links = lambda ps: [[(l["a_start"], l["a_end"], l["b_start"], l["b_end"], l["score"]) for l in p["links"]] for p in ps]
    assert links(passages) == links(want)
    assert [p["cluster"] for p in passages] == [p["cluster"] for p in want]

    clusters = [r.asDict(recursive=True) for r in got["clusters"].orderBy("id").collect()]
    want_clusters = pq.read_table(out / "clusters.parquet").to_pylist()
    assert [(c["id"], c["size"], c["excerpt"]) for c in clusters] == [
        (c["id"], c["size"], c["excerpt"]) for c in want_clusters
    ]
    assert [c["members"] for c in clusters] == [c["members"] for c in want_clusters]

    documents = got["documents"].collect()
    want_docs = pq.read_table(out / "documents.parquet").to_pylist()
    assert [(d["id"], d["chars"], d["group"], d["passages"], d["shared"]) for d in documents] == [
        (d["id"], d["chars"], d["group"], d["passages"], d["shared"]) for d in want_docs
    ]
    assert json.loads(documents[0]["meta"]) == {"n": 0}


@pytest.mark.parametrize("translations", [True, False])
def test_spark_scan_finds_translations_as_the_cli(spark, cli, tmp_path, translations):
    # The corpus in two languages of the command's test: the same passages
    # by meaning (pairs, spans, scores, significance, links; after the
    # lexical ones), clusters and documents (with their languages) as
    # `parallels scan`, and with translations=False as `--no-translations`.
    from conftest import two_languages, write_jsonl

    records, _ = two_languages()
    path = write_jsonl(tmp_path / "docs.jsonl", records)
    out = tmp_path / "cli"
    run_cli(cli, "scan", str(path), "-o", str(out), "--format", "parquet", *([] if translations else ["--no-translations"]))
    want = pq.read_table(out / "passages.parquet").to_pylist()
    parallel = [(p["a_doc"], p["b_doc"]) for p in want if p["kind"] == "parallel"]
    assert (("zh", "en") in parallel and ("zh", "host") in parallel) == translations, parallel

    df = spark.createDataFrame([(r["id"], r["text"]) for r in records], "id string, text string")
    got = parallels_spark().scan(df, translations=translations)
    passages = [r.asDict(recursive=True) for r in got["passages"].collect()]
    assert _rows(passages) == _rows(want)
    links = lambda ps: [[(l["a_start"], l["a_end"], l["b_start"], l["b_end"], l["score"], l["meaning"]) for l in p["links"]] for p in ps]  # noqa: E731
    assert links(passages) == links(want)
    assert [p["cluster"] for p in passages] == [p["cluster"] for p in want]
    clusters = [r.asDict(recursive=True) for r in got["clusters"].orderBy("id").collect()]
    want_clusters = pq.read_table(out / "clusters.parquet").to_pylist()
    assert [(c["id"], c["size"], c["excerpt"], c["members"]) for c in clusters] == [
        (c["id"], c["size"], c["excerpt"], c["members"]) for c in want_clusters
    ]
    fields = lambda ds: [(d["id"], d["chars"], d["language"], d["passages"], d["shared"]) for d in ds]  # noqa: E731
    assert fields(got["documents"].collect()) == fields(pq.read_table(out / "documents.parquet").to_pylist())


def test_spark_scan_gives_a_copy_cut_anywhere_its_own_ends(spark):
    # A run cut inside a sentence of one document, set in mid-sentence in
    # another: `verbatim`, its ends where the copy's are, as the CLI's.
    records, gold = copies_cut_anywhere()
    df = spark.createDataFrame([(r["id"], r["text"]) for r in records], "id string, text string")
    got = parallels_spark().scan(df)
    passages = [r.asDict(recursive=True) for r in got["passages"].collect()]
    assert copy_ends(passages, gold) == [("verbatim", a, b) for _, _, a, b in gold]
    assert len(passages) == len(gold)


def test_spark_reads_the_rows_the_cli_reads(spark, cli, tmp_path):
    # A blank first row of id "a" (white space only) is no document: the
    # real "a" after it is, and its two passages with "b" are found, as
    # `parallels scan` finds them (Spark used to keep the blank row as "a",
    # drop the real one and report nothing).
    import random

    from conftest import _sentence

    rng = random.Random(9)
    sents = lambda n: "".join(_sentence(rng) for _ in range(n))  # noqa: E731
    a, p1, p2 = sents(30), sents(6), sents(6)
    rows = [
        ("a", "   \n\u3000 "),
        ("a", a[:200] + p1 + a[200:400] + p2 + a[400:]),
        ("b", sents(10) + p1 + sents(10) + p2 + sents(10)),
    ]
    path = tmp_path / "docs.jsonl"
    path.write_text("".join(json.dumps({"id": i, "text": t}, ensure_ascii=False) + "\n" for i, t in rows), encoding="utf-8")
    out = tmp_path / "cli"
    run_cli(cli, "scan", str(path), "-o", str(out), "--format", "parquet")
    want = pq.read_table(out / "passages.parquet").to_pylist()
    assert len(want) == 2
    got = parallels_spark().scan(spark.createDataFrame(rows, "id string, text string").coalesce(1))
    passages = [r.asDict(recursive=True) for r in got["passages"].collect()]
    assert _rows(passages) == _rows(want)
    docs = got["documents"].collect()
    assert [(d["id"], d["passages"]) for d in docs] == [("a", 2), ("b", 2)]


def test_spark_clusters_by_iterations_equal_the_librarys(spark):
    # Past `_DRIVER_CLUSTERS` passages, clusters are made by DataFrame
    # iterations instead of by the library on the driver: the same
    # clusters, members and excerpt spans. Passages over few documents
    # with spans that chain (one document's spans overlapping by half or
    # more are one place), overlap too little, or stand alone.
    import random

    rng = random.Random(3)
    rows = []
    for k in range(80):
        a, b = sorted(rng.sample(range(12), 2))
        s, t = rng.randrange(0, 400, 10), rng.randrange(0, 400, 10)
        n = rng.choice([20, 40, 60, 100])
        rows.append((a, b, k, s, s + n, t, t + n + rng.randrange(0, 20)))
    passages = spark.createDataFrame(rows, "a long, b long, seq long, a_start long, a_end long, b_start long, b_end long")
    ps = parallels_spark()
    here = ps._clusters_here(passages.toArrow())
    there = ps._clusters_by_iterations(passages)
    key = lambda df: sorted(tuple(r) for r in df.collect())
    cluster_of, members, excerpts = (sorted(tuple(r.values()) for r in x.to_pylist()) for x in here)
    # Many clusters, some of more than two members, spans merged.
    sizes = [sum(1 for m in members if m[0] == c) for c in {c for *_, c in cluster_of}]
    assert len(sizes) > 5 and max(sizes) > 2 and len(members) < 2 * len(rows)
    assert key(there[0].select("a", "b", "seq", "cluster")) == cluster_of
    assert key(there[1].select("cluster", "pos", "doc", "s", "e")) == members
    assert key(there[2].select("cluster", "doc", "s", "e")) == excerpts


def test_spark_scan_of_nothing_shared_and_of_no_rows(spark):
    # Texts that share nothing: no passage, no cluster, every document
    # listed with 0 passages. No rows at all: three empty tables.
    rows = [(f"d{k}", "".join(chr(0x4E00 + 40 * k + j) for j in range(40)) + "。") for k in range(6)]
    got = parallels_spark().scan(spark.createDataFrame(rows, "id string, text string"))
    assert got["passages"].count() == 0 and got["clusters"].count() == 0
    documents = got["documents"].collect()
    assert [(d["id"], d["chars"], d["passages"], d["shared"]) for d in documents] == [(f"d{k}", 41, 0, 0.0) for k in range(6)]
    empty = parallels_spark().scan(spark.createDataFrame([], "id string, text string"))
    assert [empty[t].count() for t in ("passages", "clusters", "documents")] == [0, 0, 0]


def test_spark_scan_rejects_bad_options(spark):
    df = spark.createDataFrame([("a", "甲乙丙")], "id string, text string")
    with pytest.raises(ValueError, match="no column 'body'"):
        parallels_spark().scan(df, text="body")
    with pytest.raises(TypeError, match="no_such"):
        parallels_spark().scan(df, no_such=1)
    with pytest.raises(ValueError, match="max_df"):
        parallels_spark().scan(df, max_df=1)
    with pytest.raises(TypeError):
        parallels_spark().scan(df, translations="no")


def test_spark_rows_are_numbered_in_order_and_the_first_of_an_id_kept(spark):
    # Rows over several partitions, ids used more than once, a row without
    # text (skipped, so the next row of its id is that id's document): the
    # documents are numbered by their place in the DataFrame (`row#N`),
    # across partitions, and the first row of an id with a text is kept.
    rows = [(f"d{k % 7}", None if k == 4 else "甲乙丙丁戊己" * (k + 1), k) for k in range(12)]
    df = spark.createDataFrame(rows, "id string, text string, n long").repartition(3).orderBy("n")
    assert df.rdd.getNumPartitions() > 1
    first = [0, 1, 2, 3, 5, 6, 11]
    documents = parallels_spark().scan(df)["documents"].collect()
    assert [(d["id"], d["source"]) for d in documents] == [(f"d{k % 7}", f"row#{k}") for k in first]
    assert [json.loads(d["meta"])["n"] for d in documents] == first
    got = parallels_spark().dedup(df)
    kept, removed = got["kept"].collect(), got["removed"].collect()
    assert sorted([r["n"] for r in kept] + [int(r["source"][4:]) for r in removed]) == first
    # Every id used once (scan's usual way: no job numbers the rows before
    # the seeds), rows without an id or a text still counted in the rows'
    # numbers.
    rows = [(None if k == 7 else f"e{k}", None if k == 4 else "甲乙丙丁戊己" * (k + 1), k) for k in range(12)]
    df = spark.createDataFrame(rows, "id string, text string, n long").repartition(3).orderBy("n")
    documents = parallels_spark().scan(df)["documents"].collect()
    assert [(d["id"], d["source"]) for d in documents] == [(f"e{k}", f"row#{k}") for k in range(12) if k not in (4, 7)]


def parallels_spark():
    import parallels.spark

    return parallels.spark


def _dedup_corpus(corpus, tmp_path):
    """The planted corpus, with near copies at several distances from the
    threshold (so that the signatures settle some pairs and the exact check
    decides others) and a numeric field to keep by."""
    import random

    from conftest import _edit

    rng = random.Random(11)
    records = [dict(r) for r in corpus["records"]]
    for k in range(3, 60, 4):
        rate = (0.01, 0.015, 0.02, 0.03)[k % 4]
        records.append(dict(records[k], id=f"y{k:04d}", text=_edit(rng, records[k]["text"], rate)))
    for k, r in enumerate(records):
        r["score"] = rng.randrange(100)
        r["n"] = k  # the file's order
    path = tmp_path / "dedup.jsonl"
    with open(path, "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    return path, records


# `keep="longest"` differs from these in the rule alone, which
# test_api.py checks against the command's.
@pytest.mark.parametrize("options", [[], ["--keep-field", "score", "--threshold", "0.7"]])
def test_spark_dedup_equals_the_cli(spark, cli, corpus, tmp_path, options):
    path, records = _dedup_corpus(corpus, tmp_path)
    run_cli(cli, "dedup", str(path), "-o", str(tmp_path / "kept.jsonl"), "--removed", str(tmp_path / "removed.jsonl"), *options)
    want = [json.loads(l) for l in open(tmp_path / "removed.jsonl", encoding="utf-8")]
    kept_ids = [json.loads(l)["id"] for l in open(tmp_path / "kept.jsonl", encoding="utf-8")]
    assert {r["reason"] for r in want} == {"exact", "near"}

    kw = {}
    if "--keep-field" in options:
        kw.update(keep_field="score", threshold=0.7)
    df = spark.read.json(str(path)).repartition(3).orderBy("n")
    got = parallels_spark().dedup(df, **kw)
    removed = [r.asDict() for r in got["removed"].collect()]
    # Same documents removed, for the same reason, as duplicates of the same
    # kept ones, with the same similarity.
    fields = lambda rs: [(r["id"], r["reason"], r["duplicate_of"], r["similarity"]) for r in rs]  # noqa: E731
    assert fields(removed) == fields(want)
    line = {r["id"]: k for k, r in enumerate(records)}
    assert [int(r["source"][4:]) for r in removed] == [line[r["id"]] for r in want]
    # The kept rows, every column, in order.
    kept = got["kept"].collect()
    assert [r["id"] for r in kept] == kept_ids
    assert set(got["kept"].columns) == set(df.columns)
    assert [r.asDict() for r in kept[:3]] == [{c: records[line[r["id"]]][c] for c in df.columns} for r in kept[:3]]


def test_spark_dedup_rejects_bad_options(spark):
    df = spark.createDataFrame([("a", "甲乙丙")], "id string, text string")
    with pytest.raises(ValueError, match="no column 'body'"):
        parallels_spark().dedup(df, text="body")
    with pytest.raises(TypeError, match="paragraphs"):
        parallels_spark().dedup(df, paragraphs=True)
    with pytest.raises(ValueError, match="threshold"):
        parallels_spark().dedup(df, threshold=1.5)
    with pytest.raises(ValueError, match="verify"):
        parallels_spark().dedup(df, verify="maybe")


def test_spark_group_keys_land_in_partitions_of_their_own(spark):
    # The keys the alignment groups get are sent by Spark's own shuffle
    # (hash partitioning by the key) into distinct partitions.
    from pyspark.sql import functions as F

    ps = parallels_spark()
    for n, parts in [(1, 1), (2, 2), (5, 8), (8, 8), (3, 200)]:
        keys = ps._keys_of_partitions(spark, n, parts)
        shuffled = spark.createDataFrame([(k,) for k in keys], "k long").repartition(parts, "k")
        rows = shuffled.select(F.spark_partition_id().alias("p")).collect()
        assert len(keys) == n and len({r["p"] for r in rows}) == n


def test_spark_reads_the_awkward_records_as_the_cli(spark, cli, tmp_path):
    # The corpus of test_awkward.py (blank texts, ids used twice, an empty
    # id, a numeric one, a lone surrogate, a very long line): the same
    # documents, passages, clusters, kept and removed records as the CLI.
    from test_awkward import _awkward, _cli_dedup, _cli_scan, _clusters, _documents, _passages

    path = _awkward(tmp_path)
    want = _cli_scan(cli, path, tmp_path / "scan")
    df = spark.read.json(str(path)).coalesce(1)
    got = parallels_spark().scan(df)
    as_rows = lambda t: [r.asDict(recursive=True) for r in t.collect()]  # noqa: E731
    assert _passages(as_rows(got["passages"])) == _passages(want["passages"])
    assert _clusters(as_rows(got["clusters"].orderBy("id"))) == _clusters(want["clusters"])
    assert _documents(as_rows(got["documents"])) == _documents(want["documents"])

    kept, removed = _cli_dedup(cli, path, tmp_path / "dedup")
    got = parallels_spark().dedup(df)
    assert [str(r["id"]) for r in got["kept"].collect()] == kept
    assert [(r["id"], r["reason"], r["duplicate_of"], r["similarity"]) for r in got["removed"].collect()] == removed
