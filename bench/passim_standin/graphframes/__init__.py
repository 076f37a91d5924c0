"""A stand-in for GraphFrames' Python package, for bench/bench_passim.sh.

passim 2 calls GraphFrame(vertices, edges).connectedComponents() once, to
group its aligned passages into clusters. The real class drives a JVM
library that spark-submit fetches with --packages; this machine runs
offline, so that library is missing. This stand-in gives the same answer
(one component id per vertex: the smallest vertex index of its connected
component) by collecting the graph to the driver and joining it with a
union-find. It is fit for the small graphs of the benchmark only; passim's
alignments (its --pairwise output), which the comparison times, do not
depend on it.
"""

from pyspark.sql import SparkSession


class GraphFrame:
    def __init__(self, v, e):
        self.vertices = v
        self.edges = e

    def cache(self):
        self.vertices.cache()
        self.edges.cache()
        return self

    def connectedComponents(self, *args, **kwargs):
        spark = SparkSession.builder.getOrCreate()
        ids = [r["id"] for r in self.vertices.select("id").collect()]
        index = {v: i for i, v in enumerate(ids)}
        parent = list(range(len(ids)))

        def find(x):
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for r in self.edges.select("src", "dst").collect():
            a, b = index.get(r["src"]), index.get(r["dst"])
            if a is None or b is None:
                continue
            ra, rb = find(a), find(b)
            if ra != rb:
                parent[max(ra, rb)] = min(ra, rb)
        rows = [(v, find(i)) for i, v in enumerate(ids)]
        id_type = self.vertices.schema["id"].dataType
        schema = f"id {id_type.simpleString()}, component long"
        return spark.createDataFrame(rows, schema)
