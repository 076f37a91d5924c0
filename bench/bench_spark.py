"""One run of the Spark driver (`parallels.spark.scan` or `.dedup`) on a
JSON Lines corpus, for bench_spark.sh: the tables written as Parquet (so
that everything is computed once), and Spark's own measures read back from
its event log: tasks, their run time, and the bytes shuffled.

    python bench/bench_spark.py scan|dedup DOCS OUT [--master local[2]] [--partitions N] [--java-options "..."]

Prints one JSON object: wall seconds (session start, the driver's work),
input partitions, tasks, executor run time (s), shuffle bytes written and
read, and the counts of the tables.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import sys
import tempfile
import time


def event_totals(log_dir: str, jobs_out: str = "") -> dict:
    """Sums over every task of the application's event log; with
    ``jobs_out``, one line per job there (wall ms, stages, tasks, shuffle
    written, and the call site of its last stage: the line of the driver
    that started it)."""
    tasks = run_ms = shuffle_w = shuffle_r = 0
    per_stage: dict = {}
    jobs: dict = {}  # job -> [start ms, end ms, stage ids, call site]
    stage_job: dict = {}
    # Spark 4 writes a folder of rolling event files per application.
    for path in glob.glob(os.path.join(log_dir, "**", "*"), recursive=True):
        if not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8") as f:
            for line in f:
                if jobs_out and '"SparkListenerJobStart"' in line:
                    e = json.loads(line)
                    infos = e.get("Stage Infos") or []
                    site = infos[-1].get("Stage Name", "") if infos else ""
                    site = (e.get("Properties") or {}).get("spark.job.description") or site
                    jobs[e["Job ID"]] = [e.get("Submission Time", 0), 0, list(e.get("Stage IDs") or []), site]
                    for sid in e.get("Stage IDs") or []:
                        stage_job[sid] = e["Job ID"]
                    continue
                if jobs_out and '"SparkListenerJobEnd"' in line:
                    e = json.loads(line)
                    if e["Job ID"] in jobs:
                        jobs[e["Job ID"]][1] = e.get("Completion Time", 0)
                    continue
                if '"SparkListenerTaskEnd"' not in line:
                    continue
                e = json.loads(line)
                m = e.get("Task Metrics") or {}
                tasks += 1
                run_ms += m.get("Executor Run Time", 0)
                w = (m.get("Shuffle Write Metrics") or {}).get("Shuffle Bytes Written", 0)
                r = m.get("Shuffle Read Metrics") or {}
                shuffle_w += w
                shuffle_r += r.get("Remote Bytes Read", 0) + r.get("Local Bytes Read", 0)
                s = per_stage.setdefault(e["Stage ID"], [0, 0, 0])
                s[0] += 1
                s[1] += m.get("Executor Run Time", 0)
                s[2] += w
    if jobs_out:
        with open(jobs_out, "w", encoding="utf-8") as o:
            o.write("job\tstart_ms\twall_ms\tstages_run\ttasks\texecutor_ms\tshuffle_write_kb\tcall site\n")
            first = min((v[0] for v in jobs.values()), default=0)
            for j, (t0, t1, sids, site) in sorted(jobs.items()):
                ran = [sid for sid in sids if sid in per_stage]
                o.write(
                    f"{j}\t{t0 - first}\t{t1 - t0}\t{len(ran)}\t{sum(per_stage[x][0] for x in ran)}\t"
                    f"{sum(per_stage[x][1] for x in ran)}\t{sum(per_stage[x][2] for x in ran) // 1024}\t{site}\n"
                )
    return {
        "tasks": tasks,
        "executor_run_s": round(run_ms / 1000, 2),
        "shuffle_write_mb": round(shuffle_w / 2**20, 1),
        "shuffle_read_mb": round(shuffle_r / 2**20, 1),
        "stages": len(per_stage),
        # The first stage reads the input: a task per input partition.
        "input_partitions": per_stage[min(per_stage)][0] if per_stage else 0,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["scan", "dedup"])
    ap.add_argument("docs")
    ap.add_argument("out")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--partitions", type=int, default=0, help="input and shuffle partitions (0: Spark's input splits, 8 shuffle partitions)")
    ap.add_argument("--memory", default="2g")
    ap.add_argument("--jobs", default="", help="write one line per Spark job here (TSV: wall ms, stages, tasks, call site)")
    ap.add_argument("--java-options", default="", help="the JVM's options (spark.driver.extraJavaOptions; local mode: the executors' too)")
    a = ap.parse_args()

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    import parallels.spark as ps

    logs = tempfile.mkdtemp(prefix="parallels-spark-events-")
    t0 = time.perf_counter()
    b = (
        SparkSession.builder.master(a.master)
        .appName(f"parallels-bench-{a.mode}")
        .config("spark.driver.memory", a.memory)
        .config("spark.ui.enabled", "false")
        .config("spark.eventLog.enabled", "true")
        .config("spark.eventLog.dir", "file://" + logs)
        .config("spark.eventLog.compress", "false")
    )
    if a.java_options:
        b = b.config("spark.driver.extraJavaOptions", a.java_options)
    size = os.path.getsize(a.docs)
    b = b.config("spark.ui.showConsoleProgress", "false")
    if not a.partitions:
        # Spark's 200 shuffle partitions are 200 tasks per shuffle for a
        # few MB on two cores: 8 instead.
        b = b.config("spark.sql.shuffle.partitions", "8").config("spark.default.parallelism", "8")
    else:
        b = (
            b.config("spark.sql.shuffle.partitions", str(a.partitions))
            .config("spark.default.parallelism", str(a.partitions))
            .config("spark.sql.files.maxPartitionBytes", str(size // a.partitions + 1))
            .config("spark.sql.files.openCostInBytes", "0")
        )
    spark = b.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    t1 = time.perf_counter()
    # The schema given, as one who knows the file reads it (inferring it
    # reads the whole file once more): the first record's fields, when
    # all are strings; else inferred.
    with open(a.docs, encoding="utf-8") as f:
        first = json.loads(f.readline())
    if all(isinstance(v, str) for v in first.values()):
        df = spark.read.schema(", ".join(f"`{k}` string" for k in first)).json(a.docs)
    else:
        df = spark.read.json(a.docs)
    if a.mode == "dedup":
        df = df.select("id", "text", *[c for c in df.columns if c not in ("id", "text")])
    t2 = time.perf_counter()
    shutil.rmtree(a.out, ignore_errors=True)
    counts = {}
    if a.mode == "scan":
        got = ps.scan(df)
        for name in ("passages", "clusters", "documents"):
            spark.sparkContext.setJobDescription(f"write {name}")
            got[name].write.parquet(os.path.join(a.out, name))
    else:
        got = ps.dedup(df)
        for name in ("kept", "removed"):
            spark.sparkContext.setJobDescription(f"write {name}")
            got[name].write.parquet(os.path.join(a.out, name))
    t3 = time.perf_counter()
    spark.stop()
    # The rows written, counted from the files' footers (not by Spark: no
    # job of the benchmark's own in the time measured).
    import pyarrow.dataset as pds

    for name in got:
        counts[name] = pds.dataset(os.path.join(a.out, name), format="parquet").count_rows()
    out = {
        "mode": a.mode,
        "master": a.master,
        "session_s": round(t1 - t0, 2),
        "work_s": round(t3 - t2, 2),
        "read_s": round(t2 - t1, 2),
        **event_totals(logs, a.jobs),
        "rows": counts,
    }
    shutil.rmtree(logs, ignore_errors=True)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
