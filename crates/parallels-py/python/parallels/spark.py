"""``scan`` and ``dedup`` on Spark, when one machine is not enough.

:func:`dedup` (below) removes the documents ``parallels dedup`` removes.
:func:`scan` runs the stages of ``parallels scan`` with Spark's own parts,
and gives the passages ``parallels scan`` gives on one machine (same
document pairs, same spans, same scores; translations too):

1. **Fingerprints**, per partition (``mapInArrow``): each text normalized,
   segmented and winnowed into seeds by the library, and in the same pass
   the batch's sentence features counted into the scan's hashed table
   (:func:`parallels._parallels.scan_blocks`, as
   :func:`parallels.fingerprints` and :func:`parallels.feature_counts`
   with each text prepared once).
2. **Document frequencies and candidate pairs**: the seeds partitioned by
   hash (one shuffle) and settled by hash in each partition by the
   library, as ``scan`` settles them
   (:func:`parallels._parallels.group_seeds`): a seed's document
   frequency; seeds in more than ``max_df`` documents are boilerplate;
   every two documents of different groups sharing a seed get a vote.
   The votes (by their pair's first document) and each document's shared
   seeds (by document) go to the same partitions (one shuffle), where one
   pass sums the votes by pair (pairs with ``min_seeds`` are candidates)
   and gathers each document's shared seeds.
3. **Corpus-wide feature weights**: the counts summed by bucket in the
   same pass as the seeds, collected (with the number of candidate
   pairs, one small job) and broadcast once; each Python worker makes
   the table from them once.
4. **Translations**, when the documents (counted by language in the
   fingerprint pass, each document's language the library's) hold two
   languages or more that the encoder knows and ``translations`` is on
   (the library says, :func:`parallels._parallels.compared_languages`):
   each compared document's sentences read as bags of tokens and their
   vectors quantized to 16 bits, per partition by the library
   (:func:`parallels._parallels.translation_units`); the vectors
   collected on the driver (1 KB a sentence), where the library fills its
   bank in document order, mines it and makes the candidate pairs, as
   ``scan`` does on one machine
   (:func:`parallels._parallels.translation_candidates`); then the
   candidate pairs in groups by their first document (a cogroup), each
   group's documents encoded in full and each pair aligned with meaning
   by the library in the task
   (:func:`parallels._parallels.align_translations`). Pairs with passages
   here are left out of the next stage, as ``scan`` leaves them out, and
   their passages come after the lexical ones, as ``scan`` writes them.
5. **Alignment of candidate pairs** (a cogroup, ``applyInArrow``): the
   pairs in groups by their first document, each group with the
   documents its pairs need (text and shared seeds, once per group), go
   through the very function ``scan`` aligns its chunks with
   (significance, the reporting bar and all). A document needed by two
   groups is prepared in both, so the groups are few: one per
   ``_PAIRS_PER_GROUP`` (100,000) pairs, at most one per shuffle
   partition; the library aligns one group's pairs on all the cores of
   its machine.
6. **Clusters**: made by the library on the driver
   (:func:`parallels._parallels.clusters`) when there are at most
   ``_DRIVER_CLUSTERS`` passages (a million: a few hundred MB on the
   driver; the passages are counted as they are found), with the
   clusters table and each document's passage count
   and coverage; the passages table is then sorted in one partition and
   the documents table keeps the input's partitions (in the input's
   order) without a shuffle. Beyond, connected components as DataFrame
   iterations (every node takes the smallest label among its neighbours
   and its own until none changes; one join and one aggregation a round)
   over the passages' two sides and the spans of one document that are
   one place (found per document by the library), each component's
   members and excerpt made by the library, clusters numbered by their
   first member, and the tables made by joins, aggregations and sorts.
   Either way a document's ``shared`` share is the library's.

Stages 1 and 2 move many small rows (a seed is a few dozen bytes, and a
10 MB corpus has a million seeds): their shuffles carry them packed, one
Arrow IPC block per source batch and destination partition (packed by
the library), so that Spark moves a few blocks instead of converting
every row. A document's
group is compared by its 64-bit hash (``xxhash64``): two groups whose
names collide would not be compared with each other (for a million
groups, a chance of about 3 in 10⁸).

Rows without an id or a text are skipped, and of rows with the same id
the first is kept, as the command skips them; ``documents.source`` is
``row#N``, N the row's place in ``df``. No job of its own numbers the
rows: a document's number inside the stages is its row's Spark id
(``monotonically_increasing_id``, in ``df``'s order; the library's
batch functions renumber the documents of a batch densely in that
order), and the fingerprint pass counts each partition's rows and sends
each document's id hash along with the seeds, so that the job which
collects the feature counts also gives the rows' numbers and whether an
id hash is used twice. If one is (an id used twice, or two ids of one
hash), the documents are found exactly by one aggregation and the seed
passes run again without the later rows of an id. ``df`` is cached
once, and every stage reads the documents from that cache. Spark's jobs
carry descriptions naming the stage (``parallels.spark.scan: ...``), for
its UI and event log.
"""

from __future__ import annotations

import uuid
from typing import Any, Dict, Iterator, List, Optional

import pyarrow as pa
import pyarrow.compute as pc

from . import _parallels

__all__ = ["scan", "dedup"]

_NORMALIZE = ("script", "numbers", "footnotes", "boilerplate")
_SCAN_OPTIONS = ("max_df", "min_seeds", "min_significance", "min_specificity", "all", "translations") + _NORMALIZE

# The passages table as Spark holds it (no unsigned integers).
_LINK = pa.struct(
    [
        ("a_start", pa.int64()),
        ("a_end", pa.int64()),
        ("b_start", pa.int64()),
        ("b_end", pa.int64()),
        ("score", pa.float64()),
        ("meaning", pa.float64()),
    ]
)
_PASSAGES = pa.schema(
    [
        ("a_doc", pa.string()),
        ("b_doc", pa.string()),
        ("cluster", pa.int64()),
        ("kind", pa.string()),
        ("a_start", pa.int64()),
        ("a_end", pa.int64()),
        ("b_start", pa.int64()),
        ("b_end", pa.int64()),
        ("score", pa.float64()),
        ("significance", pa.float64()),
        ("links", pa.list_(_LINK)),
    ]
)
# As the alignment stages give them: with the two documents' places in
# the input, each passage's place among those of its pair, and its stage
# (``tier``: 0 lexical, 1 translations; the command writes the lexical
# passages first).
_PASSAGES_ROWS = (
    _PASSAGES.append(pa.field("a", pa.int64()))
    .append(pa.field("b", pa.int64()))
    .append(pa.field("seq", pa.int64()))
    .append(pa.field("tier", pa.int64()))
)
_PASSAGES_ROWS_DDL = (
    "a_doc string, b_doc string, cluster long, kind string, a_start long, a_end long, b_start long, b_end long, "
    "score double, significance double, links array<struct<a_start:long,a_end:long,b_start:long,b_end:long,"
    "score:double,meaning:double>>, a long, b long, seq long, tier long"
)

# The feature table of each Python worker, by scan.
_TABLES: Dict[int, Any] = {}


# The options `check_scan_options` takes.
_CHECKED = ("max_df", "min_seeds", "min_significance", "min_specificity", "all", "translations")


def _check(options: Dict[str, Any]) -> None:
    for k in options:
        if k not in _SCAN_OPTIONS:
            raise TypeError(f"scan() got an unexpected keyword argument {k!r} (options: {', '.join(_SCAN_OPTIONS)})")


def _admitted(b: pa.RecordBatch, texts: Optional[List[Optional[str]]] = None) -> Any:
    """Which rows of a batch (``id``, ``text``; ``texts``: its texts as a
    list, when the caller has them) the library takes as documents
    (:func:`parallels._parallels.documents`: an id that is not empty, a
    text that is not blank), as the command's reader takes them: a boolean
    array."""
    from parallels import _parallels as native

    if texts is None:
        texts = b.column("text").to_pylist()
    return pa.array(native.documents(b.column("id").to_pylist(), texts), pa.bool_())


def scan(df: Any, id: str = "id", text: str = "text", group: Optional[str] = None, **options: Any) -> Dict[str, Any]:
    """Every shared passage of the documents of a Spark DataFrame.

    ``df`` has a column ``id`` (unique) and ``text``; ``group`` names a
    column whose equal values are never compared (a book, a newspaper
    series). Options are those of ``parallels scan``: ``max_df``,
    ``min_seeds``, ``min_significance``, ``min_specificity``, ``all``,
    ``translations`` (default True; False is ``scan --no-translations``),
    and the normalization switches ``script``, ``numbers``, ``footnotes``,
    ``boilerplate``.

    Returns DataFrames ``passages``, ``clusters`` and ``documents`` with
    the columns of ``scan --format parquet`` (integers as Spark's longs;
    ``documents.source`` is ``row#N``, N the row's place in ``df``;
    ``meta`` the other columns as a JSON object).
    """
    from pyspark.sql import functions as F

    _check(options)
    for name in (id, text, group):
        if name is not None and name not in df.columns:
            raise ValueError(f"the DataFrame has no column {name!r} (columns: {', '.join(df.columns)})")
    spark = df.sparkSession
    defaults = _parallels.SCAN_DEFAULTS
    max_df = options.get("max_df", defaults["max_df"])
    min_seeds = options.get("min_seeds", defaults["min_seeds"])
    # The library's bounds, asked on the driver before any job.
    _parallels.check_scan_options(**{k: options[k] for k in _CHECKED if k in options})
    norm = {k: options[k] for k in _NORMALIZE if k in options}
    translations = options.get("translations", True)
    align_opts = dict(norm, **{k: options[k] for k in ("min_significance", "min_specificity", "all") if k in options})

    # Spark's jobs named by stage, for its UI and event log.
    sc = spark.sparkContext
    say = lambda what: sc.setJobDescription(f"parallels.spark.scan: {what}")  # noqa: E731
    # The rows, each with its Spark id (``_mid``: its partition << 33 | its
    # place in the partition), cached: every stage reads the documents
    # from here. A document's number ``doc`` is its row's Spark id, so the
    # documents' order is the rows'.
    others = [c for c in df.columns if c not in (id, text, group)]
    meta = F.to_json(F.struct(*[F.col(c) for c in others])) if others else F.lit("{}")
    tagged = (
        df.select(
            F.col(id).cast("string").alias("id"),
            F.col(text).cast("string").alias("text"),
            (F.col(group).cast("string") if group else F.lit(None).cast("string")).alias("grp"),
            meta.alias("meta"),
        )
        .withColumn("_mid", F.monotonically_increasing_id())
        .cache()
    )
    group_hash = F.when(F.col("grp").isNotNull(), F.xxhash64("grp")).alias("g")

    # Stages 1 to 3 move many small rows (a seed is four numbers; a 10 MB
    # corpus has a million): they go through Spark's shuffles packed, as
    # Arrow IPC blocks of rows with one destination partition (``_packed``),
    # so that Spark moves a few blocks instead of converting every row.
    parts = int(spark.conf.get("spark.sql.shuffle.partitions"))

    # 1. Fingerprints, per partition, by the library (each text prepared
    # once, the rows packed there): every seed of every text (``hash``,
    # ``doc``, ``pos``, the group's hash ``g``) to the partition of its
    # hash; the batch's sentence-feature counts (``bucket`` -1 counts the
    # sentences) to the partition of their bucket. Rows that are not
    # documents (the library's rule) are only counted; the count of the
    # partition's rows and the rows skipped (``_SIZES``, for the rows'
    # numbers and the documents table) and each document's id hash
    # (``_IDS``, to the partition of the hash, to find ids used twice) go
    # along.
    def fingerprint(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from parallels import _parallels as native

        rows, part, skipped, langs = 0, None, [], {}
        for b in batches:
            if b.num_rows == 0:
                continue
            if part is None:
                part = b.column("doc")[0].as_py() >> 33
            rows += b.num_rows
            # Rows that are not documents (the library says which) are
            # only counted, and named to the driver.
            texts = b.column("text").to_pylist()
            ok = _admitted(b, texts)
            skipped.extend(pc.filter(b.column("doc"), pc.invert(ok)).to_pylist())
            b = b.filter(ok)
            texts = [t for t, k in zip(texts, ok.to_pylist()) if k]
            if translations:
                for lang in native.languages(texts):
                    langs[lang] = langs.get(lang, 0) + 1
            seeds, counts = native.scan_blocks(texts, b.column("doc").to_pylist(), b.column("g").to_pylist(), parts, **norm)
            yield _packed(_SEEDS, seeds)
            yield _packed(_COUNTS, counts)
            ids = b.select(["idd", "idh", "doc"]).filter(pc.is_valid(b.column("idd")))
            if ids.num_rows:
                yield _packed(_IDS, _by_dest(ids, "idd"))
        if part is not None:
            sizes = pa.table(
                {
                    "part": [part],
                    "rows": [rows],
                    "skipped": pa.array([skipped], pa.list_(pa.int64())),
                    "languages": pa.array([list(langs)], pa.list_(pa.string())),
                    "language_docs": pa.array([list(langs.values())], pa.list_(pa.int64())),
                }
            )
            yield _packed(_SIZES, [(0, _ipc(sizes))])

    # 2. Document frequencies, candidate pairs and feature weights: each
    # partition's seeds settled by hash by the library (``_group``): every
    # place of a seed in two documents or more with its document frequency
    # (to its document's partition), and the votes of the seeds in at most
    # `max_df` documents for every two of their documents of different
    # groups, counted by pair (to the pair's partition); the feature counts
    # summed by bucket; the id hashes used more than once counted. Then, in
    # one pass over the places and votes (both in the partition of their
    # first document), the votes summed by pair and each document's shared
    # seeds, sorted (``_pairs_and_places``), with each partition's sums.
    def seed_pass(documents: Any) -> Any:
        return (
            documents.mapInArrow(fingerprint, _PACKED_DDL)
            .repartition("dest")
            .mapInArrow(lambda it: _group(it, max_df, parts), _PACKED_DDL)
            .repartition("dest")
            .mapInArrow(lambda it: _pairs_and_places(it, min_seeds), _SETTLED_DDL)
            .localCheckpoint()  # (three branches read it)
        )

    # 3. Corpus-wide feature weights (each bucket summed in its partition,
    # gathered in one), the number of candidate pairs, the rows of each
    # partition and the id hashes used twice: one small job.
    def sums_of(settled: Any) -> Dict[str, Any]:
        t = settled.where(F.col("pairs").isNotNull()).select("pairs", "counts", "sizes", "repeats").toArrow()
        blobs = lambda c: [x for xs in t.column(c).to_pylist() for x in xs]  # noqa: E731
        sizes = _unpack(blobs("sizes"))
        return {
            "pairs": sum(t.column("pairs").to_pylist()),
            "counts": blobs("counts"),
            "sizes": dict(zip(sizes.column("part").to_pylist(), sizes.column("rows").to_pylist())) if sizes.num_rows else {},
            "repeats": sum(t.column("repeats").to_pylist()),
            "skipped": [m for ms in sizes.column("skipped").to_pylist() for m in ms] if sizes.num_rows else [],
            "languages": [
                (lang, n)
                for ls, ns in zip(*(sizes.column(c).to_pylist() for c in ("languages", "language_docs")))
                for lang, n in zip(ls, ns)
            ]
            if sizes.num_rows
            else [],
        }

    # First as if every id were used once (the usual case): every row
    # read, the documents numbered by their rows' Spark ids.
    say("fingerprints, seeds grouped by hash, candidate pairs")
    settled = seed_pass(
        tagged.select(
            F.col("_mid").alias("doc"),
            "id",
            "text",
            group_hash,
            F.when(F.col("id").isNotNull(), F.pmod(F.xxhash64("id"), F.lit(parts))).cast("int").alias("idd"),
            F.when(F.col("id").isNotNull(), F.xxhash64("id")).alias("idh"),
        )
    )
    say("feature counts")
    sums = sums_of(settled)
    if sums["repeats"]:
        # Some id hashes are used twice (an id used twice, or two ids of
        # one hash): the documents found exactly, the later rows of an id
        # left out, and the seeds made again from them.
        say("rows numbered")
        docs = _documents_in_order(_marked(spark, tagged, sums["skipped"]), spark)
        say("fingerprints, seeds grouped by hash, candidate pairs (ids used twice left out)")
        settled = seed_pass(
            docs.select(
                "doc", "id", "text", group_hash, F.lit(None).cast("int").alias("idd"), F.lit(None).cast("long").alias("idh")
            )
        )
        say("feature counts")
        sums = sums_of(settled)
        docs = docs.withColumn("row", F.col("doc"))
    else:
        docs = _marked(spark, tagged, sums["skipped"]).where("_document").drop("_document").withColumnRenamed("_mid", "doc")
        docs = docs.withColumn("row", _row_number(sums["sizes"], "doc"))
    pairs = sums["pairs"]
    # (As they are, Arrow IPC streams: each Python worker makes the table.)
    weights = spark.sparkContext.broadcast(sums["counts"])
    key = uuid.uuid4().hex

    # The passages found, counted as they are (an accumulator: a task run
    # again counts twice, so at most an overcount, which only sends the
    # clusters to the DataFrame iterations sooner).
    found_count = sc.accumulator(0)

    # 4. Translations, when the corpus holds two languages or more that
    # the encoder knows (the library's rule, from the documents counted by
    # language in the fingerprint pass): candidates by meaning, aligned
    # with meaning (``_translations``); their pairs are not aligned again
    # lexically.
    languages = sums["languages"]
    compared = _parallels.compared_languages([l for l, _ in languages], [n for _, n in languages], translations=translations)
    translated = _translations(spark, docs, sorted(compared), parts, norm, found_count, say) if compared else None

    # 5. Alignment of candidate pairs: the pairs in groups by their first
    # document, each group with the documents its pairs need (text, id,
    # shared seeds; a document once per group, not once per pair). A
    # document needed in several groups is prepared in each, so the groups
    # are few: one per `_PAIRS_PER_GROUP` pairs, at most one per shuffle
    # partition (the library aligns a group's pairs on every core of its
    # machine).
    say("candidate pairs aligned")
    cand = settled.where(F.col("a").isNotNull()).select("a", "b", "k")
    if translated is not None:
        # (As the command: a pair with passages by meaning is left out.)
        pairs_across = translated.select("a", "b").distinct().toArrow()
        if pairs_across.num_rows:
            cand = cand.join(F.broadcast(_local(spark, pairs_across)), ["a", "b"], "left_anti")
    shared = settled.where(F.col("doc").isNotNull()).select("doc", "shared_pos", "shared_df")
    groups = max(1, min(parts, -(-pairs // _PAIRS_PER_GROUP)))
    # Each group's key lands in a shuffle partition of its own (Spark
    # partitions the cogroup by the key's hash), so each is a task.
    keys = F.array(*[F.lit(k).cast("long") for k in _keys_of_partitions(spark, groups, parts)])
    cand = cand.withColumn("part", F.element_at(keys, F.pmod(F.xxhash64("a"), F.lit(groups)).cast("int") + 1))
    # (The documents' group key under its own name: the two sides of the
    # cogroup come from one DataFrame.)
    need = (
        cand.select(F.col("part").alias("at"), F.col("a").alias("doc"))
        .unionByName(cand.select(F.col("part").alias("at"), F.col("b").alias("doc")))
        .distinct()
        .join(docs.select("doc", "id", "text"), "doc")
        .join(shared, "doc")
    )

    def align(pairs: pa.Table, needed: pa.Table) -> pa.Table:
        from parallels import _parallels as native

        if pairs.num_rows == 0:
            return _PASSAGES_ROWS.empty_table()
        table = _TABLES.get(key)
        if table is None:
            _TABLES.clear()
            table = _TABLES[key] = native.FeatureTable.of_blocks(weights.value)
        ids = needed.column("doc").to_pylist()
        out = native.align_candidates(
            pairs.column("a").to_pylist(),
            pairs.column("b").to_pylist(),
            pairs.column("k").to_pylist(),
            ids,
            needed.column("text").to_pylist(),
            [p or [] for p in needed.column("shared_pos").to_pylist()],
            [f or [] for f in needed.column("shared_df").to_pylist()],
            table,
            **align_opts,
        )
        found = pa.ipc.open_stream(pa.py_buffer(out)).read_all()
        a = pc.cast(found.column("a_doc"), pa.int64())
        b = pc.cast(found.column("b_doc"), pa.int64())
        name = dict(zip(ids, needed.column("id").to_pylist()))
        found = found.set_column(0, "a_doc", pa.array([name[d] for d in a.to_pylist()], pa.string()))
        found = found.set_column(1, "b_doc", pa.array([name[d] for d in b.to_pylist()], pa.string()))
        found = found.cast(_PASSAGES)
        found_count.add(found.num_rows)
        # Order inside a pair, for the output order of the command.
        return _with_places(found, a, b, 0)

    passages = (
        cand.groupBy("part").cogroup(need.groupBy("at")).applyInArrow(align, _PASSAGES_ROWS_DDL).localCheckpoint()
    )
    if translated is not None:
        passages = passages.unionByName(translated)

    # 6. Clusters, and the three tables.
    say("clusters")
    docs = docs.withColumn("chars", F.length("text"))  # code points, as the library counts
    if found_count.value <= _DRIVER_CLUSTERS:
        tables = _finish_here(spark, passages, docs)
    else:
        tables = _finish_by_iterations(passages, docs)
    sc.setJobDescription(None)
    return tables


def _with_places(found: pa.Table, a: Any, b: Any, tier: int) -> pa.Table:
    """A group's passages (:data:`_PASSAGES`, by pair, each pair's in
    order) with their documents' places ``a``, ``b``, an order that keeps
    each pair's passages in theirs (``seq``) and the stage that found them
    (``tier``): :data:`_PASSAGES_ROWS`."""
    n = found.num_rows
    return (
        found.append_column("a", a)
        .append_column("b", b)
        .append_column("seq", pa.array(range(n), pa.int64()))
        .append_column("tier", pa.array([tier] * n, pa.int64()))
    )


# Candidate pairs across languages are aligned in groups of about this
# many (each pair's two documents are encoded in full, once per group).
_TRANSLATIONS_PER_GROUP = 2_000


def _translations(spark: Any, docs: Any, compared: List[str], parts: int, norm: Dict[str, Any], found_count: Any, say: Any) -> Any:
    """The translations stage of ``scan`` (``scan/across.rs``) with
    Spark's parts, for the documents ``docs`` (``doc``, ``id``, ``text``)
    when the languages ``compared`` are two or more: each document's units
    read as bags of tokens, their vectors quantized to 16 bits, per
    partition by the library (:func:`parallels._parallels.translation_units`);
    on the driver, the bank filled in document order, mined, and the
    candidate pairs made by the library
    (:func:`parallels._parallels.translation_candidates`); then the
    candidates in groups by their first document, each group with the
    documents it needs, encoded in full and aligned by the library
    (:func:`parallels._parallels.align_translations`), in the tasks. The
    passages (rows of :data:`_PASSAGES_ROWS`, ``tier`` 1), or None when
    there is no candidate."""
    from pyspark.sql import functions as F

    def units(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from parallels import _parallels as native

        for b in batches:
            if b.num_rows:
                blob = native.translation_units(b.column("text").to_pylist(), b.column("doc").to_pylist(), compared, **norm)
                yield pa.RecordBatch.from_arrays([pa.array([blob], pa.binary())], names=["blob"])

    say("translations: sentences read as bags of tokens")
    blobs = docs.select("doc", "text").mapInArrow(units, "blob binary").toArrow().column("blob").to_pylist()
    say("translations: candidate pairs")
    cands = pa.ipc.open_stream(pa.py_buffer(_parallels.translation_candidates(blobs))).read_all()
    del blobs
    if cands.num_rows == 0:
        return None
    groups = max(1, min(parts, -(-cands.num_rows // _TRANSLATIONS_PER_GROUP)))
    keys = F.array(*[F.lit(k).cast("long") for k in _keys_of_partitions(spark, groups, parts)])
    cand = _local(spark, cands).withColumn("part", F.element_at(keys, F.pmod(F.xxhash64("a"), F.lit(groups)).cast("int") + 1))
    need = (
        cand.select(F.col("part").alias("at"), F.col("a").alias("doc"))
        .unionByName(cand.select(F.col("part").alias("at"), F.col("b").alias("doc")))
        .distinct()
        .join(docs.select("doc", "id", "text"), "doc")
    )

    def align(pairs: pa.Table, needed: pa.Table) -> pa.Table:
        from parallels import _parallels as native

        if pairs.num_rows == 0:
            return _PASSAGES_ROWS.empty_table()
        pairs = pairs.sort_by([("a", "ascending"), ("b", "ascending")])
        ids = needed.column("doc").to_pylist()
        out = native.align_translations(
            *(pairs.column(c).to_pylist() for c in ("a", "b", "pair_a", "pair_b", "margin", "chain")),
            ids,
            needed.column("text").to_pylist(),
            **norm,
        )
        found = pa.ipc.open_stream(pa.py_buffer(out)).read_all()
        a = pc.cast(found.column("a_doc"), pa.int64())
        b = pc.cast(found.column("b_doc"), pa.int64())
        name = dict(zip(ids, needed.column("id").to_pylist()))
        found = found.set_column(0, "a_doc", pa.array([name[d] for d in a.to_pylist()], pa.string()))
        found = found.set_column(1, "b_doc", pa.array([name[d] for d in b.to_pylist()], pa.string()))
        found = found.cast(_PASSAGES)
        found_count.add(found.num_rows)
        return _with_places(found, a, b, 1)

    say("translations: candidate pairs encoded and aligned")
    return cand.groupBy("part").cogroup(need.groupBy("at")).applyInArrow(align, _PASSAGES_ROWS_DDL).localCheckpoint()


# The documents table's columns as ``_documents`` makes them (``doc`` is
# dropped when the table is ordered).
_DOCUMENT_COLUMNS = ["doc", "id", "source", "chars", "encoding", "language", "group", "passages", "shared", "meta"]


def _documents(docs: Any, per_doc: Any) -> Any:
    """The documents table's columns of ``docs`` joined with ``per_doc``
    (``doc``, its ``passages`` and their ``spans``), each document's
    ``shared`` share from its spans and its ``language`` by the library
    (:func:`parallels._parallels.shared_shares`,
    :func:`parallels._parallels.languages`), in ``docs``' partitions."""
    from pyspark.sql import functions as F

    joined = docs.join(per_doc, "doc", "left").select(
        "doc",
        "id",
        F.concat(F.lit("row#"), F.col("row").cast("string")).alias("source"),
        "chars",
        F.lit("utf-8").alias("encoding"),
        F.col("grp").alias("group"),
        F.coalesce(F.col("passages"), F.lit(0).cast("long")).alias("passages"),
        "spans",
        "meta",
        "text",
    )

    def shares(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from parallels import _parallels as native

        for b in batches:
            spans = [[(x["s"], x["e"]) for x in ss] if ss else [] for ss in b.column("spans").to_pylist()]
            shared = pa.array(native.shared_shares(b.column("chars").to_pylist(), spans), pa.float64())
            language = pa.array(native.languages(b.column("text").to_pylist()), pa.string())
            columns = [b.column(n) for n in ("doc", "id", "source", "chars", "encoding")] + [language]
            columns += [b.column(n) for n in ("group", "passages")] + [shared, b.column("meta")]
            yield pa.RecordBatch.from_arrays(columns, names=_DOCUMENT_COLUMNS)

    from pyspark.sql.types import DoubleType, StringType, StructField, StructType

    field = {f.name: f for f in joined.schema.fields}
    field["language"] = StructField("language", StringType())
    field["shared"] = StructField("shared", DoubleType())
    out = StructType([field[n] for n in _DOCUMENT_COLUMNS])
    return joined.mapInArrow(shares, out)


def _local(spark: Any, t: pa.Table) -> Any:
    """A DataFrame of a table made on the driver, in one partition (Spark
    would cut it into a task per core)."""
    return spark.createDataFrame(t).coalesce(1)


def _finish_here(spark: Any, passages: Any, docs: Any) -> Dict[str, Any]:
    """The three tables when the passages' spans fit on the driver: the
    clusters made there by the library (:func:`_clusters_here`), the
    clusters table and each document's passage count and coverage made
    there too (the excerpts' texts taken from the documents when the
    clusters table is computed), and the
    passages and documents tables kept in order without a shuffle: the
    passages, few, sorted in one partition; the documents in the
    partitions ``docs`` has, which hold them in input order (a document's
    ``doc`` is its row's place in the input)."""
    from pyspark.sql import functions as F

    t = passages.select("a", "b", "seq", "a_doc", "b_doc", "a_start", "a_end", "b_start", "b_end").toArrow()
    cluster_of, member_rows, excerpt_at = _clusters_here(t)
    name = dict(zip(t.column("a").to_pylist(), t.column("a_doc").to_pylist()))
    name.update(zip(t.column("b").to_pylist(), t.column("b_doc").to_pylist()))
    members: List[List[Dict[str, Any]]] = [[] for _ in range(excerpt_at.num_rows)]
    for c, d, s, e in zip(*(member_rows.column(x).to_pylist() for x in ("cluster", "doc", "s", "e"))):
        members[c].append({"doc": name[d], "start": s, "end": e})
    # The clusters with their excerpts' spans; the excerpts' texts are
    # taken from the documents when the table is computed (in the
    # documents' partitions; then the clusters, few, in one partition, in
    # their order).
    excerpts = excerpt_at.rename_columns(["id", "doc", "s", "e"]).append_column(
        "size", pa.array([len(m) for m in members], pa.int64())
    ).append_column(
        "members",
        pa.array(members, pa.list_(pa.struct([("doc", pa.string()), ("start", pa.int64()), ("end", pa.int64())]))),
    )
    clusters = (
        docs.select("doc", "text")
        .join(F.broadcast(_local(spark, excerpts)), "doc")
        .repartition(1)
        .sortWithinPartitions("id")
        .select("id", "size", "members", F.expr("substring(text, s + 1, e - s)").alias("excerpt"))
    )
    # Each document's passages and their spans (its share inside them is
    # the library's, in ``_documents``).
    spans: Dict[int, List[Any]] = {}
    for side in ("a", "b"):
        for d, s, e in zip(*(t.column(x).to_pylist() for x in (side, f"{side}_start", f"{side}_end"))):
            spans.setdefault(d, []).append((s, e))
    per_doc = pa.table(
        {
            "doc": pa.array(list(spans), pa.int64()),
            "passages": pa.array([len(ss) for ss in spans.values()], pa.int64()),
            "spans": pa.array(
                [[{"s": a, "e": b} for a, b in ss] for ss in spans.values()],
                pa.list_(pa.struct([("s", pa.int64()), ("e", pa.int64())])),
            ),
        }
    )
    passages_out = (
        passages.drop("cluster")
        .join(F.broadcast(_local(spark, cluster_of)), ["a", "b", "seq"])
        .coalesce(1)
        .sortWithinPartitions("tier", "a", "b", "seq")
        .select(*_PASSAGES.names)
    )
    documents_out = (
        _documents(docs, F.broadcast(_local(spark, per_doc))).sortWithinPartitions("doc").drop("doc")
    )
    return {"passages": passages_out, "clusters": clusters, "documents": documents_out}


def _finish_by_iterations(passages: Any, docs: Any) -> Dict[str, Any]:
    """The three tables when the passages are too many for the driver:
    clusters by DataFrame iterations (:func:`_clusters_by_iterations`),
    everything else by joins and aggregations."""
    from pyspark.sql import functions as F

    cluster_of, member_rows, excerpt_at = _clusters_by_iterations(passages)
    ids = docs.select("doc", "id")
    excerpt = excerpt_at.join(docs.select("doc", "text"), "doc").select(
        "cluster", F.expr("substring(text, s + 1, e - s)").alias("excerpt")
    )
    clusters_out = (
        member_rows.join(ids, "doc")
        .groupBy("cluster")
        .agg(F.sort_array(F.collect_list(F.struct("pos", F.col("id").alias("doc"), F.col("s").alias("start"), F.col("e").alias("end")))).alias("m"))
        .join(excerpt, "cluster")
        .orderBy("cluster")
        .select(
            F.col("cluster").cast("long").alias("id"),
            F.size("m").cast("long").alias("size"),
            F.expr("transform(m, x -> named_struct('doc', x.doc, 'start', x.start, 'end', x.end))").alias("members"),
            "excerpt",
        )
    )
    passages_out = (
        passages.drop("cluster")
        .join(cluster_of, ["a", "b", "seq"])
        .orderBy("tier", "a", "b", "seq")
        .select(*_PASSAGES.names)
    )
    # Documents: passages taken part in, and their spans.
    sides = passages.select(F.col("a").alias("doc"), F.col("a_start").alias("s"), F.col("a_end").alias("e")).unionByName(
        passages.select(F.col("b").alias("doc"), F.col("b_start").alias("s"), F.col("b_end").alias("e"))
    )
    per_doc = sides.groupBy("doc").agg(
        F.count("*").alias("passages"), F.collect_list(F.struct("s", "e")).alias("spans")
    )
    documents_out = _documents(docs, per_doc).orderBy("doc").drop("doc")
    return {"passages": passages_out, "clusters": clusters_out, "documents": documents_out}


# Candidate pairs are aligned in groups of about this many (fewer groups,
# fewer documents prepared again in another group; more, more tasks).
_PAIRS_PER_GROUP = 100_000


def _keys_of_partitions(spark: Any, n: int, parts: int) -> List[int]:
    """``n`` (at most ``parts``) long keys that Spark's hash partitioning
    into ``parts`` partitions puts into ``n`` different partitions, as Spark
    itself places them (``pmod(hash(key), parts)``, the partition a shuffle
    by that key sends it to; one small job): the smallest key of each
    partition among the first longs."""
    from pyspark.sql import functions as F

    first: Dict[int, int] = {}
    start, size = 0, 16 * parts
    while len(first) < n:
        rows = (
            spark.range(start, start + size)
            .select("id", F.pmod(F.hash("id"), F.lit(parts)).alias("p"))
            .groupBy("p")
            .agg(F.min("id").alias("k"))
            .collect()
        )
        for r in rows:
            first.setdefault(r["p"], r["k"])
        start, size = start + size, 2 * size
    return sorted(first.values())[:n]


# Clusters are made on the driver, by the library, when the passages are at
# most this many (their spans go to the driver as Python tuples, about 250
# bytes a passage); beyond, by DataFrame iterations.
_DRIVER_CLUSTERS = 1_000_000


def _clusters_here(t: pa.Table) -> Any:
    """The clusters of the passages ``t`` (``a``, ``b``, ``seq`` and the
    spans) made on the driver by the library
    (:func:`parallels._parallels.clusters`, as ``scan`` makes them): each
    passage's cluster (``a``, ``b``, ``seq``, ``cluster``), each cluster's
    members (``cluster``, ``pos``, ``doc``, ``s``, ``e``) and excerpt span
    (``cluster``, ``doc``, ``s``, ``e``), as Arrow tables."""
    cols = [t.column(c).to_pylist() for c in ("a", "a_start", "a_end", "b", "b_start", "b_end")]
    of, members, excerpts = _parallels.clusters(list(zip(*cols)))
    cluster_of = pa.table(
        {"a": t.column("a"), "b": t.column("b"), "seq": t.column("seq"), "cluster": pa.array(of, pa.int64())}
    )
    flat = [(c, i, d, s, e) for c, ms in enumerate(members) for i, (d, s, e) in enumerate(ms)]
    names = ("cluster", "pos", "doc", "s", "e")
    member_rows = pa.table({n: pa.array([r[j] for r in flat], pa.int64()) for j, n in enumerate(names)})
    excerpt_at = pa.table(
        {
            "cluster": pa.array(range(len(excerpts)), pa.int64()),
            **{n: pa.array([x[j] for x in excerpts], pa.int64()) for j, n in enumerate(("doc", "s", "e"))},
        }
    )
    return cluster_of, member_rows, excerpt_at


def _clusters_by_iterations(passages: Any) -> Any:
    """The clusters of :func:`_clusters_here`, for more passages than the
    driver holds: connected components as DataFrame iterations over the
    passages' two sides and the spans of one document that are one place
    (found per document by the library, :func:`parallels._parallels.place_edges`);
    each component's members and excerpt made by the library
    (:func:`parallels._parallels.cluster_members`), and the clusters
    numbered by their first member."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    p = passages.select("a", "b", "seq", "a_start", "a_end", "b_start", "b_end").withColumn(
        "pid", F.monotonically_increasing_id()
    ).localCheckpoint()
    # Two nodes per passage, its A side and its B side.
    nodes = (
        p.select("pid", F.lit(0).alias("side"), F.col("a").alias("doc"), F.col("a_start").alias("s"), F.col("a_end").alias("e"))
        .unionByName(
            p.select("pid", F.lit(1).alias("side"), F.col("b").alias("doc"), F.col("b_start").alias("s"), F.col("b_end").alias("e"))
        )
        .withColumn("node", F.col("pid") * 2 + F.col("side"))
    )
    # Edges: the two sides of a passage, and two spans of one document that
    # are one place (each document's spans together in a row).
    place = (
        nodes.groupBy("doc")
        .agg(F.collect_list(F.struct("s", "e", "node")).alias("spans"))
        .where(F.size("spans") > 1)
        .mapInArrow(_place_edges, "u long, v long")
    )
    edges = p.select((F.col("pid") * 2).alias("u"), (F.col("pid") * 2 + 1).alias("v")).unionByName(place)
    # Every node is in an edge (its passage's), so every node gets a label:
    # the smallest node of its component.
    labels = _components(edges)
    # Members and excerpt per component; components numbered by their
    # first member.
    members = (
        nodes.join(labels, "node")
        .groupBy("label")
        .agg(F.collect_list(F.struct("doc", "s", "e")).alias("spans"))
        .mapInArrow(_members, _MEMBERS_DDL)
    )
    numbered = members.withColumn(
        "cluster",
        F.row_number().over(
            Window.orderBy(F.col("members")[0]["doc"], F.col("members")[0]["s"], F.col("members")[0]["e"])
        )
        - 1,
    ).localCheckpoint()
    member_rows = numbered.select(F.col("cluster").cast("long").alias("cluster"), F.posexplode("members").alias("pos", "m")).select(
        "cluster", F.col("pos").cast("long").alias("pos"), F.col("m.doc").alias("doc"), F.col("m.s").alias("s"), F.col("m.e").alias("e")
    )
    excerpt_at = numbered.select(
        F.col("cluster").cast("long").alias("cluster"),
        F.col("excerpt.doc").alias("doc"),
        F.col("excerpt.s").alias("s"),
        F.col("excerpt.e").alias("e"),
    )
    cluster_of = (
        p.join(labels.withColumnRenamed("node", "a_node"), F.col("a_node") == F.col("pid") * 2)
        .join(numbered.select("label", F.col("cluster").cast("long").alias("cluster")), "label")
        .select("a", "b", "seq", "cluster")
    )
    return cluster_of, member_rows, excerpt_at


def _place_edges(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """Rows ``doc``, ``spans`` (``s``, ``e``, ``node``) to the pairs of nodes
    that are one place, by the library."""
    from parallels import _parallels as native

    for b in batches:
        spans = b.column("spans")
        flat = pc.list_flatten(spans)
        docs = pc.take(b.column("doc"), pc.list_parent_indices(spans))
        u, v = native.place_edges(*(x.to_pylist() for x in (docs, flat.field("s"), flat.field("e"), flat.field("node"))))
        yield pa.RecordBatch.from_arrays([pa.array(u, pa.int64()), pa.array(v, pa.int64())], names=["u", "v"])


_PLACE = pa.struct([("doc", pa.int64()), ("s", pa.int64()), ("e", pa.int64())])
_MEMBERS_DDL = "label long, members array<struct<doc:long,s:long,e:long>>, excerpt struct<doc:long,s:long,e:long>"


def _members(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """Rows ``label``, ``spans`` (a component's spans) to its members and
    excerpt, by the library."""
    from parallels import _parallels as native

    for b in batches:
        clusters = [[(x["doc"], x["s"], x["e"]) for x in ss] for ss in b.column("spans").to_pylist()]
        made = native.cluster_members(clusters)
        place = lambda t: {"doc": t[0], "s": t[1], "e": t[2]}  # noqa: E731
        yield pa.RecordBatch.from_arrays(
            [
                b.column("label"),
                pa.array([[place(m) for m in ms] for ms, _ in made], pa.list_(_PLACE)),
                pa.array([place(e) for _, e in made], _PLACE),
            ],
            names=["label", "members", "excerpt"],
        )


_DEDUP_OPTIONS = ("threshold", "ngram", "perms", "bands", "rows", "verify", "keep", "keep_field") + _NORMALIZE


# The kinds of packed blocks (``_packed``).
_SEEDS, _COUNTS, _PLACES, _VOTES, _IDS, _SIZES, _REPEATS = range(7)
_PACKED_DDL = "dest int, kind int, blob binary"
_PACKED = ["dest", "kind", "blob"]


def _packed(kind: int, blocks: List[Any]) -> pa.RecordBatch:
    """Blocks ``(partition, Arrow IPC stream)`` as a batch of rows ``dest``,
    ``kind``, ``blob``: what goes through Spark's shuffles packed."""
    return pa.RecordBatch.from_arrays(
        [pa.array([d for d, _ in blocks], pa.int32()), pa.array([kind] * len(blocks), pa.int32()), pa.array([b for _, b in blocks], pa.binary())],
        names=_PACKED,
    )


def _ipc(t: Any) -> bytes:
    """A table or record batch as one Arrow IPC stream."""
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, t.schema) as w:
        w.write(t)
    return sink.getvalue().to_pybytes()


def _by_dest(t: pa.Table, dest: str) -> List[Any]:
    """The rows of ``t`` as blocks ``(partition, Arrow IPC stream)`` by
    their column ``dest`` (left out of the blocks)."""
    rest = t.drop_columns([dest])
    return [(d, _ipc(rest.filter(pc.equal(t.column(dest), d)))) for d in pc.unique(t.column(dest)).to_pylist()]


def _unpack(blobs: Any) -> pa.Table:
    """The rows of packed blocks (``_packed``), in one table."""
    tables = [pa.ipc.open_stream(pa.py_buffer(b)).read_all() for b in blobs]
    return pa.concat_tables(tables) if tables else pa.table({})


def _blobs(batches: Iterator[pa.RecordBatch]) -> Dict[int, Any]:
    """The packed blocks of a partition by kind."""
    out: Dict[int, Any] = {}
    for b in batches:
        for k, blob in zip(b.column("kind").to_pylist(), b.column("blob").to_pylist()):
            out.setdefault(k, []).append(blob)
    return out


def _group(batches: Iterator[pa.RecordBatch], max_df: int, parts: int) -> Iterator[pa.RecordBatch]:
    """One partition of the fingerprint pass's blocks (every seed of each
    of its hashes, every count of each of its buckets), settled: the
    seeds by hash by the library, as ``scan`` settles them
    (:func:`parallels._parallels.group_seeds`): every place of a seed in
    two documents or more (``doc``, ``pos``, its document frequency
    ``df``) to its document's partition, and the votes of the seeds in at
    most ``max_df`` documents for every two of their documents of
    different groups, counted by pair (``a`` < ``b``, ``votes``) to the
    pair's partition; the feature counts summed by bucket; the rows of
    each input partition passed on, and the id hashes of more than one
    document counted, to the partition that gathers the sums."""
    blobs = _blobs(batches)
    if _COUNTS in blobs:
        counts = _unpack(blobs[_COUNTS]).group_by("bucket", use_threads=False).aggregate([("count", "sum")])
        yield _packed(_COUNTS, [(0, _ipc(counts.rename_columns(["bucket", "count"])))])
    if _SIZES in blobs:
        yield _packed(_SIZES, [(0, b) for b in blobs[_SIZES]])
    if _IDS in blobs:
        ids = _unpack(blobs[_IDS]).group_by("idh", use_threads=False).aggregate([("doc", "count")])
        repeats = pc.sum(pc.greater(ids.column("doc_count"), 1).cast(pa.int64())).as_py()
        yield _packed(_REPEATS, [(0, _ipc(pa.table({"repeats": [repeats]})))])
    if _SEEDS in blobs:
        places, votes = _parallels.group_seeds(blobs[_SEEDS], max_df, parts)
        yield _packed(_PLACES, places)
        yield _packed(_VOTES, votes)


# Candidate pairs, shared places and sums, as the pass that makes them
# gives them: a row is one of the three, the others' columns null. A
# partition's sums row gives its number of candidate pairs (``pairs``)
# and, in the partition that gathers them, the corpus's sentence-feature
# counts (``counts``, Arrow IPC streams of ``bucket``, ``count``), the
# rows of each input partition (``sizes``: ``part``, ``rows``) and the
# number of id hashes of more than one document (``repeats``).
_SETTLED_DDL = (
    "a long, b long, k long, doc long, shared_pos array<long>, shared_df array<long>, pairs long, counts array<binary>, "
    "sizes array<binary>, repeats long"
)
_SETTLED = pa.schema(
    [(n, pa.int64()) for n in ("a", "b", "k", "doc")]
    + [(n, pa.list_(pa.int64())) for n in ("shared_pos", "shared_df")]
    + [("pairs", pa.int64()), ("counts", pa.list_(pa.binary())), ("sizes", pa.list_(pa.binary())), ("repeats", pa.int64())]
)


def _settled_rows(n: int, **columns: Any) -> pa.RecordBatch:
    """``n`` rows of :data:`_SETTLED` with ``columns`` given, the others
    null."""
    return pa.RecordBatch.from_arrays(
        [columns[f.name] if f.name in columns else pa.nulls(n, f.type) for f in _SETTLED], schema=_SETTLED
    )


def _pairs_and_places(batches: Iterator[pa.RecordBatch], min_seeds: int) -> Iterator[pa.RecordBatch]:
    """One partition of the settled seeds (packed votes of its pairs, by
    their first document, and packed shared places of its documents; the
    two go to the same partition by the same document number; and, in
    one partition, every partition's summed feature counts): the
    candidate pairs, the votes summed by pair (``a``, ``b``, ``k``, those
    with at least ``min_seeds``); each document's shared places as one
    row (``doc`` and its positions and frequencies as lists, sorted by
    position, then frequency); and one sums row, the partition's number
    of pairs and the sums it gathered (feature counts, rows of each input
    partition, id hashes used twice). Rows of :data:`_SETTLED`."""
    blobs = _blobs(batches)
    pairs = 0
    if blobs.get(_VOTES):
        v = _unpack(blobs[_VOTES]).group_by(["a", "b"], use_threads=False).aggregate([("votes", "sum")])
        v = v.filter(pc.greater_equal(v.column("votes_sum"), min_seeds))
        pairs = v.num_rows
        yield _settled_rows(pairs, **{c: v.column(x).combine_chunks() for c, x in (("a", "a"), ("b", "b"), ("k", "votes_sum"))})
    repeats = _unpack(blobs.get(_REPEATS, []))
    yield _settled_rows(
        1,
        pairs=pa.array([pairs], pa.int64()),
        counts=pa.array([blobs.get(_COUNTS, [])], pa.list_(pa.binary())),
        sizes=pa.array([blobs.get(_SIZES, [])], pa.list_(pa.binary())),
        repeats=pa.array([pc.sum(repeats.column("repeats")).as_py() or 0 if repeats.num_rows else 0], pa.int64()),
    )
    t = _unpack(blobs.get(_PLACES, []))
    if t.num_rows == 0:
        return
    t = t.sort_by([("doc", "ascending"), ("pos", "ascending"), ("df", "ascending")])
    doc = t.column("doc").combine_chunks()
    n = len(doc)
    change = pc.indices_nonzero(pc.not_equal(doc.slice(1), doc.slice(0, n - 1)))
    starts = pa.concat_arrays([pa.array([0], pa.int64()), pc.add(pc.cast(change, pa.int64()), 1)])
    offsets = pc.cast(pa.concat_arrays([starts, pa.array([n], pa.int64())]), pa.int32())
    yield _settled_rows(
        len(starts),
        doc=pc.take(doc, starts),
        shared_pos=pa.ListArray.from_arrays(offsets, t.column("pos").combine_chunks()),
        shared_df=pa.ListArray.from_arrays(offsets, t.column("df").combine_chunks()),
    )


def _row_number(sizes: Dict[int, int], mid: str) -> Any:
    """A row's place in the input (0, 1, ...), as ``zipWithIndex``
    numbers them, from its Spark id (column ``mid``: partition << 33 |
    place in the partition) and the rows of each partition (``sizes``)."""
    from pyspark.sql import functions as F

    offsets, total = [], 0
    for p in range(max(sizes, default=-1) + 1):
        offsets.append(total)
        total += sizes.get(p, 0)
    place = F.shiftright(F.col(mid), 33).cast("int") + 1
    start = F.element_at(F.array(*[F.lit(o).cast("long") for o in offsets]), place) if offsets else F.lit(0).cast("long")
    return start + F.col(mid).bitwiseAND(F.lit((1 << 33) - 1))


def _marked(spark: Any, tagged: Any, skipped: List[int]) -> Any:
    """``tagged`` with a column ``_document``: whether the row is a
    document, that is not among the rows the library ``skipped`` (by their
    ``_mid``; a broadcast join, which keeps ``tagged``'s partitions and
    order)."""
    from pyspark.sql import functions as F

    if not skipped:
        return tagged.withColumn("_document", F.lit(True))
    flags = _local(spark, pa.table({"_mid": pa.array(skipped, pa.int64()), "_skip": pa.array([True] * len(skipped))}))
    return tagged.join(F.broadcast(flags), "_mid", "left").withColumn("_document", F.col("_skip").isNull()).drop("_skip")


def _documents_in_order(tagged: Any, spark: Any) -> Any:
    """The documents of ``tagged`` (``id``, ``text``, ..., ``_mid`` the
    row's Spark id, ``_document`` whether the library takes the row as a
    document: :func:`_marked`), when some ids may be used more than once:
    the rows that are documents, of those with the same id the first, each with
    ``doc``, its row's place in ``tagged`` (0, 1, ...; rows skipped are
    counted), in the partitions of ``tagged``, so in that order. One job
    counts the rows of each partition and finds the ids used more than
    once (each row gives two keys to one aggregation: its partition, and
    its id). Those go to the driver and are broadcast: each row of such an
    id but its first is left out (and the documents are then cached
    themselves, so that the join is done once).
    """
    from pyspark.sql import functions as F

    valid = F.col("_document")
    keys = F.explode(
        F.array(
            F.struct(F.lit(0).alias("k"), F.shiftright("_mid", 33).cast("string").alias("key")),
            F.when(valid, F.struct(F.lit(1).alias("k"), F.col("id").alias("key"))),
        )
    )
    counted = (
        tagged.select("_mid", keys.alias("x"))
        .where(F.col("x").isNotNull())
        .groupBy("x.k", "x.key")
        .agg(F.count("*").alias("n"), F.min("_mid").alias("first"))
        .where((F.col("k") == 0) | (F.col("n") > 1))
        .collect()
    )
    sizes = {int(r["key"]): r["n"] for r in counted if r["k"] == 0}
    again = [(r["key"], r["first"]) for r in counted if r["k"] == 1]
    docs = tagged.where(valid).drop("_document")
    if again:
        ids, firsts = zip(*again)
        first = _local(spark, pa.table({"id": pa.array(ids, pa.string()), "_first": pa.array(firsts, pa.int64())}))
        docs = (
            docs.join(F.broadcast(first), "id", "left")
            .where(F.col("_first").isNull() | (F.col("_mid") == F.col("_first")))
            .drop("_first")
        )
    docs = docs.withColumn("doc", _row_number(sizes, "_mid")).drop("_mid")
    return docs.cache() if again else docs


def _components(edges: Any) -> Any:
    """Connected components of an undirected graph given as a DataFrame of
    edges ``u``, ``v`` (longs), by DataFrame iterations: every node takes
    the smallest label of its neighbours and its own until none changes,
    so each component ends labelled with its smallest node. One join and
    one aggregation a round (each node is its own neighbour, so the
    aggregation sees its old label too, and tells whether it moved).
    Returns ``node``, ``label`` for every node of an edge."""
    from pyspark.sql import functions as F

    nodes = edges.select(F.col("u").alias("n")).unionByName(edges.select(F.col("v").alias("n")))
    both = (
        edges.select("u", "v")
        .unionByName(edges.select(F.col("v").alias("u"), F.col("u").alias("v")))
        .unionByName(nodes.select(F.col("n").alias("u"), F.col("n").alias("v")))
        .distinct()
        .localCheckpoint()
    )
    labels = both.groupBy(F.col("u").alias("node")).agg(F.min("v").alias("label")).localCheckpoint()
    while True:
        new = (
            both.join(labels.withColumnRenamed("node", "v"), "v")
            .groupBy(F.col("u").alias("node"))
            .agg(
                F.min("label").alias("label"),
                F.min(F.when(F.col("u") == F.col("v"), F.col("label"))).alias("old"),
            )
            .localCheckpoint()
        )
        labels = new.select("node", "label")
        if new.where(F.col("label") < F.col("old")).limit(1).count() == 0:
            return labels


def dedup(df: Any, id: str = "id", text: str = "text", **options: Any) -> Dict[str, Any]:
    """The documents of a Spark DataFrame without their exact and near
    duplicates, as ``parallels dedup`` removes them.

    ``df`` has a column ``id`` (unique) and ``text``. Options are those of
    ``parallels dedup``: ``threshold``, ``ngram``, ``perms``, ``bands``
    with ``rows``, ``verify`` ("exact" or "signature"), ``keep`` ("first"
    or "longest"), ``keep_field`` (a numeric column, or strings that parse
    as numbers), and the normalization switches ``script``, ``numbers``,
    ``footnotes``, ``boilerplate``. Paragraph-level dedup
    (``--paragraphs``) is the command's alone.

    Returns DataFrames ``kept`` (the kept rows of ``df``, every column, in
    ``df``'s order) and ``removed`` (``id``, ``source``, ``reason``
    "exact" or "near", ``duplicate_of``, ``duplicate_of_source``,
    ``similarity``, as the command's ``--removed`` list; a source is
    ``row#N``, N the row's place in ``df``). Rows the command would skip (no
    id or no text, a text of whitespace only, an id used by an earlier
    row) are in neither.

    The stages, each from Spark's own parts:

    1. **Sketch**, per partition (``mapInArrow``): the rows the library
       takes as documents (:func:`parallels._parallels.documents`), each
       text's MinHash signature, hash of the normalized token sequence,
       length and LSH band keys (:func:`parallels.minhash`); of the rows
       with one id, the first kept (a window).
    2. **Exact copies**: documents with the same token hash join the first
       of them (an aggregation); only the first goes on.
    3. **Candidate pairs**: documents sharing a band key, each with the
       earlier ones among the first ``bucket_cap`` of its bucket, as
       ``dedup`` compares them (each bucket's documents gathered, its pairs
       made by the library).
    4. **Verification**: the signatures settle the pairs far from the
       threshold (``mapInArrow`` over pairs with both signatures); the
       others, unless already joined through settled pairs, are decided
       by the exact Jaccard similarity of their shingle sets
       (``mapInArrow`` over pairs with both texts).
    5. **Clusters**: connected components as DataFrame iterations; in each,
       one document kept by the command's own rule
       (:func:`parallels._parallels.keepers`), the others removed with
       their similarity to it as the command measures it.
    """
    from pyspark.sql import Window
    from pyspark.sql import functions as F
    from pyspark.sql.types import LongType, StructField, StructType

    for k in options:
        if k not in _DEDUP_OPTIONS:
            raise TypeError(f"dedup() got an unexpected keyword argument {k!r} (options: {', '.join(_DEDUP_OPTIONS)})")
    keep_field = options.get("keep_field")
    for name in (id, text, keep_field):
        if name is not None and name not in df.columns:
            raise ValueError(f"the DataFrame has no column {name!r} (columns: {', '.join(df.columns)})")
    keep = "field" if keep_field is not None else options.get("keep", "first")
    if keep not in ("first", "longest", "field"):
        raise ValueError(f'keep={keep!r}: "first" or "longest" (or keep_field=...)')
    sketch_opts = {k: options[k] for k in ("threshold", "ngram", "perms", "bands", "rows") + _NORMALIZE if k in options}
    settle_opts = {k: options[k] for k in ("threshold", "perms", "verify") if k in options}
    exact_opts = {k: options[k] for k in ("ngram",) + _NORMALIZE if k in options}
    # Bad options fail here, on the driver, naming the option.
    _parallels.minhash(["甲"], **sketch_opts)
    _parallels.settle_pairs([], [], **settle_opts)
    threshold = options.get("threshold", _parallels.DEDUP_DEFAULTS["threshold"])
    cap = _parallels.DEDUP_DEFAULTS["bucket_cap"]
    spark = df.sparkSession

    # Every row with its place in `df`; the documents are the rows the
    # command would read (the first row of each id).
    doc_col = "_parallels_doc"
    while doc_col in df.columns:
        doc_col = "_" + doc_col
    # (Numbered through the RDD, not in the JVM as scan numbers its rows:
    # measured on the 45 MB dedup corpus, JVM numbering here shuffled
    # 150 MB more.)
    schema = StructType(list(df.schema.fields) + [StructField(doc_col, LongType(), False)])
    indexed = spark.createDataFrame(df.rdd.zipWithIndex().map(lambda r: (*r[0], r[1])), schema)
    value = F.lit(None).cast("double")
    if keep_field is not None:
        v = F.col(keep_field)
        value = F.trim(v.cast("string")).cast("double") if dict(df.dtypes)[keep_field] == "string" else v.cast("double")
    rows = indexed.select(
        F.col(doc_col).alias("doc"),
        F.col(id).cast("string").alias("id"),
        F.col(text).cast("string").alias("text"),
        value.alias("value"),
    )

    # 1. Sketches, of the rows the library takes as documents
    # (``_admitted``), with their ids.
    def sketch(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from parallels import minhash

        for b in batches:
            b = b.filter(_admitted(b))
            s = minhash(b.column("text"), **sketch_opts)
            yield pa.RecordBatch.from_arrays(
                [
                    b.column("doc"),
                    b.column("id"),
                    pc.cast(s.column("exact"), pa.binary()),
                    pc.cast(s.column("chars"), pa.int64()),
                    pc.cast(s.column("signature"), pa.list_(pa.int32()), safe=False),
                    pc.cast(s.column("band_keys"), pa.list_(pa.int64()), safe=False),
                ],
                names=["doc", "id", "exact", "chars", "signature", "band_keys"],
            )

    sketched = rows.select("doc", "id", "text").mapInArrow(
        sketch, "doc long, id string, exact binary, chars long, signature array<int>, band_keys array<long>"
    )
    # The documents: of the rows with one id, the first.
    first = Window.partitionBy("id").orderBy("doc")
    sketched = sketched.withColumn("_n", F.row_number().over(first)).where(F.col("_n") == 1).drop("_n", "id").localCheckpoint()
    docs = rows.join(sketched.select("doc"), "doc", "left_semi").cache()
    sk = sketched.where(F.col("exact").isNotNull()).localCheckpoint()  # no tokens: never a duplicate

    # 2. Exact copies join the first document with their tokens.
    firsts = sk.groupBy("exact").agg(F.min("doc").alias("rep"))
    sk = sk.join(firsts, "exact").localCheckpoint()
    copies = sk.where(F.col("doc") != F.col("rep")).select(F.col("rep").alias("u"), F.col("doc").alias("v"))
    reps = sk.where(F.col("doc") == F.col("rep"))

    # 3. Candidate pairs: keys of two documents or more; in each bucket,
    # each document with the earlier ones among the first `cap`.
    # The pairs of each bucket are the library's (`bucket_pairs`).
    def bucket_pairs(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from parallels import _parallels as native

        for b in batches:
            a, b_ = native.bucket_pairs(b.column("docs").to_pylist(), cap)
            yield pa.RecordBatch.from_arrays([pa.array(a, pa.int64()), pa.array(b_, pa.int64())], names=["a", "b"])

    pairs = (
        reps.select("doc", F.explode("band_keys").alias("key"))
        .groupBy("key")
        .agg(F.sort_array(F.collect_list("doc")).alias("docs"))
        .where(F.size("docs") > 1)
        .mapInArrow(bucket_pairs, "a long, b long")
        .distinct()
    )

    # 4. The signatures settle what they can.
    sigs = reps.select("doc", "signature")

    def with_sigs(p: Any, a: str = "a", b: str = "b") -> Any:
        return p.join(sigs.select(F.col("doc").alias(a), F.col("signature").alias("sa")), a).join(
            sigs.select(F.col("doc").alias(b), F.col("signature").alias("sb")), b
        )

    def settle(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from parallels import _parallels as native

        for b in batches:
            u32 = pa.list_(pa.uint32())
            sa = pc.cast(b.column("sa"), u32, safe=False).to_pylist()
            sb = pc.cast(b.column("sb"), u32, safe=False).to_pylist()
            decision, estimate = native.settle_pairs(sa, sb, **settle_opts)
            yield pa.RecordBatch.from_arrays(
                [b.column("a"), b.column("b"), pa.array(decision, pa.int32()), pa.array(estimate, pa.float64())],
                names=["a", "b", "decision", "estimate"],
            )

    settled = with_sigs(pairs).mapInArrow(settle, "a long, b long, decision int, estimate double").localCheckpoint()
    joined = settled.where(F.col("decision") == 1).select(F.col("a").alias("u"), F.col("b").alias("v"))
    edges = copies.unionByName(joined).localCheckpoint()
    # The pairs left to the exact check, unless the settled ones joined
    # them already (as the command drops them).
    before = _components(edges)
    label_of = lambda side: before.select(F.col("node").alias(side), F.col("label").alias("l" + side))  # noqa: E731
    open_pairs = (
        settled.where(F.col("decision") == -1)
        .join(label_of("a"), "a", "left")
        .join(label_of("b"), "b", "left")
        .where(F.coalesce("la", "a") != F.coalesce("lb", "b"))
        .select("a", "b")
        .localCheckpoint()
    )
    needed = open_pairs.select(F.col("a").alias("doc")).unionByName(open_pairs.select(F.col("b").alias("doc")))
    needed = needed.distinct().localCheckpoint()
    texts = docs.select("doc", "text")

    def exact(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from parallels import _parallels as native

        for b in batches:
            j = native.exact_similarities(b.column("ta").to_pylist(), b.column("tb").to_pylist(), **exact_opts)
            yield pa.RecordBatch.from_arrays(
                [b.column("a"), b.column("b"), pa.array(j, pa.float64())], names=["a", "b", "similarity"]
            )

    def with_texts(p: Any, a: str = "a", b: str = "b") -> Any:
        return p.join(texts.select(F.col("doc").alias(a), F.col("text").alias("ta")), a).join(
            texts.select(F.col("doc").alias(b), F.col("text").alias("tb")), b
        )

    checked = with_texts(open_pairs).mapInArrow(exact, "a long, b long, similarity double")
    verified = checked.where(F.col("similarity") >= threshold).select(F.col("a").alias("u"), F.col("b").alias("v"))

    # 5. Clusters, one document kept in each.
    labels = _components(edges.unionByName(verified))
    members = (
        labels.withColumnRenamed("node", "doc")
        .join(sk.select("doc", "chars", "exact", "rep"), "doc")
        .join(docs.select("doc", "value"), "doc")
        .localCheckpoint()
    )
    grouped = members.groupBy("label").agg(F.sort_array(F.collect_list(F.struct("doc", "chars", "value"))).alias("m"))

    def choose(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from parallels import _parallels as native

        for b in batches:
            m = b.column("m").to_pylist()
            kept = native.keepers(
                [[x["doc"] for x in c] for c in m],
                [[x["chars"] for x in c] for c in m],
                [[x["value"] for x in c] for c in m],
                keep=keep,
            )
            yield pa.RecordBatch.from_arrays([b.column("label"), pa.array(kept, pa.int64())], names=["label", "keeper"])

    keepers = grouped.mapInArrow(choose, "label long, keeper long")
    k = members.select(
        F.col("doc").alias("keeper"), F.col("exact").alias("k_exact"), F.col("rep").alias("k_rep")
    )
    gone = (
        members.join(keepers, "label")
        .where(F.col("doc") != F.col("keeper"))
        .join(k, "keeper")
        .select(
            "doc",
            "keeper",
            (F.col("exact") == F.col("k_exact")).alias("same"),
            F.col("rep").alias("rm"),
            F.col("k_rep").alias("rk"),
        )
        .localCheckpoint()
    )
    # Similarity as the command measures it: exact when both (first
    # copies) went through the exact check, the signatures' estimate
    # otherwise; 1 for an exact copy.
    flag = lambda side: needed.select(F.col("doc").alias(side), F.lit(True).alias("n" + side))  # noqa: E731
    near = (
        gone.where(~F.col("same"))
        .join(flag("rm"), "rm", "left")
        .join(flag("rk"), "rk", "left")
        .withColumn("exactly", F.coalesce("nrm", F.lit(False)) & F.coalesce("nrk", F.lit(False)))
    )
    by_exact = with_texts(near.where("exactly").select("doc", F.col("rm").alias("a"), F.col("rk").alias("b")))
    by_exact = by_exact.mapInArrow(
        lambda it: (
            pa.RecordBatch.from_arrays([b.column("doc"), e.column("similarity")], names=["doc", "similarity"])
            for b, e in ((b, next(exact(iter([b])))) for b in it)
        ),
        "doc long, similarity double",
    )
    by_estimate = with_sigs(near.where(~F.col("exactly")).select("doc", F.col("rm").alias("a"), F.col("rk").alias("b")))
    by_estimate = by_estimate.mapInArrow(
        lambda it: (
            pa.RecordBatch.from_arrays([b.column("doc"), s.column("estimate")], names=["doc", "similarity"])
            for b, s in ((b, next(settle(iter([b])))) for b in it)
        ),
        "doc long, similarity double",
    )
    # (As the removed list gives them: the library's rounding.)
    def listed(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from parallels import _parallels as native

        for b in batches:
            rounded = pa.array(native.listed_similarities(b.column("similarity").to_pylist()), pa.float64())
            yield pa.RecordBatch.from_arrays([b.column("doc"), rounded], names=["doc", "similarity"])

    similarity = by_exact.unionByName(by_estimate).mapInArrow(listed, "doc long, similarity double")
    ids = docs.select("doc", "id")
    removed = (
        gone.join(similarity, "doc", "left")
        .join(ids, "doc")
        .join(ids.select(F.col("doc").alias("keeper"), F.col("id").alias("duplicate_of")), "keeper")
        .orderBy("doc")
        .select(
            "id",
            F.concat(F.lit("row#"), F.col("doc").cast("string")).alias("source"),
            F.when(F.col("same"), F.lit("exact")).otherwise(F.lit("near")).alias("reason"),
            "duplicate_of",
            F.concat(F.lit("row#"), F.col("keeper").cast("string")).alias("duplicate_of_source"),
            F.when(F.col("same"), F.lit(1.0)).otherwise(F.col("similarity")).alias("similarity"),
        )
    )
    out = docs.select("doc").join(gone.select("doc"), "doc", "left_anti")
    kept = (
        indexed.join(out.withColumnRenamed("doc", doc_col), doc_col).orderBy(doc_col).select(*[F.col(c) for c in df.columns])
    )
    return {"kept": kept, "removed": removed}
