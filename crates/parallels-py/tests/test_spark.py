"""The Spark driver in local mode against the command line, on the planted
corpus: the same passages (document pairs, spans, scores), clusters and
per-document counts."""

from __future__ import annotations

import json
import os
import sys

import pyarrow.parquet as pq
import pytest
from conftest import run_cli

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
        .getOrCreate()
    )
    yield s
    s.stop()


def _rows(table):
    return [
        (r["a_doc"], r["b_doc"], r["kind"], r["a_start"], r["a_end"], r["b_start"], r["b_end"], r["score"], r["significance"])
        for r in table
    ]


def test_spark_scan_equals_the_cli(spark, cli, corpus, tmp_path):
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


def test_spark_scan_rejects_bad_options(spark):
    df = spark.createDataFrame([("a", "甲乙丙")], "id string, text string")
    with pytest.raises(ValueError, match="no column 'body'"):
        parallels_spark().scan(df, text="body")
    with pytest.raises(TypeError, match="no_such"):
        parallels_spark().scan(df, no_such=1)
    with pytest.raises(ValueError, match="max_df"):
        parallels_spark().scan(df, max_df=1)


def parallels_spark():
    import parallels.spark

    return parallels.spark
