#!/usr/bin/env python3
"""Does `parallels query` find the original of a translation? (issue 45, dev half)

For each seed, the xling-dev crawl (../shared/corpus/xling-dev/build.py) is built; the English and French documents of
its planted document pairs (zh-en novel chapters and Mark chapters, the de-fr article) are the texts asked, and
everything else (the Chinese and German originals, distractors in every language) is indexed. Each text is asked once
(`parallels query QUERIES.jsonl --index IDX --format json`); its top hit is the library document sharing the most of
its characters (the union of its passages' spans in the text), and it is found when that is its original and covers
at least half of it (a tie counts as a miss: another document shares as much). `--library zh-de` indexes only the
Chinese and German documents (the issue's wording: no English or French document in the library, so no same-language
version of a text, such as the WMB revision of a KJV chapter, competes with its original). Prints a Markdown table per
seed and the total; `--timings` also builds the index without vectors and prints the CPU seconds of both builds and of
the queries (from the kernel's accounting of the child process).

Usage: python3 bench/eval_query_xling.py [--bin target/release/parallels] [--seeds 1 2 3] [--work /tmp/xq]
                                         [--library everything|zh-de] [--timings] [--errors]
Reads ../shared/corpus (never copied into the repository); the crawl and the indexes go under --work."""
import argparse, json, os, pathlib, resource, subprocess, sys, time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
BUILD = ROOT.parent / "shared" / "corpus" / "xling-dev" / "build.py"


def run(cmd, log):
    """Run cmd; (wall seconds, CPU seconds of the child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.time()
    with open(log, "w") as err:
        r = subprocess.run(cmd, stderr=err, stdout=subprocess.DEVNULL)
    wall = time.time() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        sys.exit(f"{' '.join(map(str, cmd))} failed ({r.returncode}); see {log}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def covered(spans):
    """Characters in the union of [s, e) spans."""
    total, end = 0, -1
    for s, e in sorted(spans):
        if e <= end:
            continue
        total += e - max(s, end)
        end = e
    return total


def one_seed(a, seed):
    work = pathlib.Path(a.work) / f"seed{seed}" / a.library
    data = pathlib.Path(a.work) / f"seed{seed}" / "crawl"
    if not (data / "gold.json").exists():
        subprocess.run([sys.executable, str(BUILD), "--out", str(data), "--seed", str(seed)], check=True,
                       stdout=subprocess.DEVNULL)
    gold = json.loads((data / "gold.json").read_text(encoding="utf-8"))
    names, langs, chars = gold["names"], gold["languages"], gold["chars"]
    original = {p["b"]: p["a"] for p in gold["pairs"]}      # en/fr side -> zh/de side
    assert all(langs[q] in ("en", "fr") for q in original), "a planted pair's b side is not English or French"
    lib, asked = [], []
    for line in (data / "corpus.jsonl").read_text(encoding="utf-8").splitlines():
        d = json.loads(line)
        if d["id"] in original:
            asked.append(line)
        elif a.library == "everything" or langs[d["id"]] in ("zh", "de"):
            lib.append(line)
    work.mkdir(parents=True, exist_ok=True)
    (work / "lib.jsonl").write_text("\n".join(lib) + "\n", encoding="utf-8")
    (work / "asked.jsonl").write_text("\n".join(asked) + "\n", encoding="utf-8")
    timing = {}
    for name, flags in [("idx", [])] + ([("plain.idx", ["--no-translations"])] if a.timings else []):
        idx = work / name
        subprocess.run(["rm", "-rf", str(idx)], check=True)
        timing[name] = run([a.bin, "index", "build", str(work / "lib.jsonl"), "--index", str(idx)] + flags,
                           work / f"{name}.log")
    out = work / "answer.json"
    timing["query"] = run([a.bin, "query", str(work / "asked.jsonl"), "--index", str(work / "idx"), "--format", "json",
                           "-o", str(out), "--timings"], work / "query.log")
    answer = json.loads(out.read_text(encoding="utf-8"))
    by_query = {}
    for p in answer["pairs"]:
        by_query.setdefault(p["a"], []).append((covered([tuple(x["a"]) for x in p["passages"]]), p["b"]))
    rows, found = [], 0
    for q in sorted(original, key=lambda q: names[q]):
        hits = sorted(by_query.get(q, []), key=lambda h: -h[0])
        top = hits[0] if hits else (0, None)
        tie = len(hits) > 1 and hits[1][0] == top[0]
        ok = top[1] == original[q] and 2 * top[0] >= chars[q] and not tie
        if tie:
            top = (top[0], " = ".join(sorted(names[b] for c, b in hits if c == top[0])))
        found += ok
        mine = next((c for c, b in hits if b == original[q]), 0)
        rows.append((names[q], langs[q], chars[q], names.get(top[1], top[1] or "-"), top[0], mine, len(hits), ok))
    return rows, found, timing, work


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=str(ROOT / "target" / "release" / "parallels"))
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--work", default="/tmp/parallels-eval-query-xling")
    ap.add_argument("--library", choices=["everything", "zh-de"], default="everything")
    ap.add_argument("--timings", action="store_true")
    ap.add_argument("--errors", action="store_true", help="list every text whose original is not the top hit")
    a = ap.parse_args()
    total = n = 0
    for seed in a.seeds:
        rows, found, timing, work = one_seed(a, seed)
        total += found
        n += len(rows)
        print(f"\n### seed {seed}, library {a.library}: {found} of {len(rows)}\n")
        print("| text asked | lang | chars | top hit | its chars | original's chars | hits | found |")
        print("|---|---|---:|---|---:|---:|---:|:-:|")
        for r in rows:
            print("| " + " | ".join(str(x) for x in r[:-1]) + f" | {'yes' if r[-1] else 'no'} |")
        if a.timings:
            (bw, bc), (pw, pc), (qw, qc) = timing["idx"], timing["plain.idx"], timing["query"]
            print(f"\nindex build: {bw:.1f} s wall, {bc:.1f} s CPU with vectors; {pw:.1f} s wall, {pc:.1f} s CPU "
                  f"without ({bc / pc:.2f}×); {len(rows)} queries: {qw:.1f} s wall, {qc:.1f} s CPU "
                  f"({qc / len(rows):.2f} s CPU a text, the index opened once)")
            for f in ["idx", "plain.idx"]:
                size = sum(p.stat().st_size for p in (work / f).rglob("*") if p.is_file())
                print(f"{f}: {size / 1e6:.1f} MB")
        if a.errors:
            for r in rows:
                if not r[-1]:
                    print(f"missed: {r[0]} (top {r[3]} {r[4]} chars; original {r[5]} chars)")
    print(f"\ntotal: {total} of {n}")


if __name__ == "__main__":
    main()
