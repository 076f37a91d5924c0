#!/usr/bin/env python3
"""A bounded load test of `parallels serve` on loopback (issue 35).

Builds a library from the text files under --corpus (each file cut into
documents of about 2 KB), starts `parallels serve` on it, and for
--duration seconds runs at once:

* --clients small clients, each a keep-alive connection asking
  `POST /api/query` with a 1 KB excerpt of a library document (it finds
  that document) and `GET /api/info`, one after the other;
* --large clients posting a large text (the whole corpus, cut at
  --large-kib KiB) to `/api/query`, again and again;
* --slow clients sending a request head one byte every 0.5 s (they
  should be cut off by the head timeout, then reconnect);
* --idle connections opened and left silent (reopened when closed);
* --slow-readers clients (one thread) asking `GET /api/documents/N` for
  a large document (`big`, --big-kib KiB, added to the library) with a
  receive buffer of 4 KiB, reading the status line of the answer and
  nothing more (issue 47): each waits until the server closes it, then
  asks again.

It samples the server's resident memory every second (/proc/PID/status)
and reports: small query latency (p50, p95, p99, max), answers by status,
connection errors, large queries answered or stopped, how long slow
clients were held, the slow readers' answers (200: sent within the
budget; 503: refused at once) and how long they were held, peak and
final RSS, whether the server stayed up.

    python3 bench/serve_load.py --bin target/release/parallels \\
        --corpus ../shared/corpus --work bench/out/serve --duration 120
    python3 bench/serve_load.py … --clients 10 --slow 0 --idle 0 --large 0 \\
        --slow-readers 500 --big-kib 3500

Nothing here is a test: it prints numbers for BENCHMARKS.md.
"""

import argparse
import http.client
import json
import multiprocessing
import os
import shutil
import random
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path


def build_library(bin_, corpus, work, big_kib=0):
    work.mkdir(parents=True, exist_ok=True)
    lib = work / "lib.jsonl"
    texts = []
    for p in sorted(corpus.rglob("*")):
        if p.is_file() and p.suffix in (".txt", ".text", "") and p.stat().st_size < 20 << 20:
            try:
                texts.append((p, p.read_text(encoding="utf-8")))
            except (UnicodeDecodeError, OSError):
                pass
    docs = []
    for p, t in texts:
        for k in range(0, len(t), 2000):
            piece = t[k:k + 2000]
            if piece.strip():
                docs.append({"id": f"{p.relative_to(corpus)}#{k // 2000}", "text": piece})
    if big_kib:
        # One large document for the slow readers, of random Han
        # characters: it shares nothing with the library, so that the
        # small queries cost what they cost without it.
        rng = random.Random(47)
        chars = []
        while len(chars) * 3 < big_kib << 10:
            chars.append(chr(rng.randrange(0x4E00, 0x9FA6)))
            if len(chars) % 20 == 19:
                chars.append("。\n" if len(chars) % 200 < 20 else "，")
        docs.append({"id": f"big{big_kib}", "text": "".join(chars)})
    with open(lib, "w", encoding="utf-8") as f:
        for d in docs:
            f.write(json.dumps(d, ensure_ascii=False) + "\n")
    idx = work / (f"lib-random{big_kib}.idx" if big_kib else "lib.idx")
    # An index left by another build of parallels may not be readable by
    # this one: built again (an index this build reads is kept).
    if (idx / "manifest.json").exists():
        probe = subprocess.run([bin_, "query", "--doc", docs[0]["id"], "--index", str(idx), "--summary"],
                               capture_output=True, text=True)
        if probe.returncode != 0:
            print(f"{idx}: not readable by this build ({probe.stderr.strip()[:200]}); building it again",
                  file=sys.stderr)
            shutil.rmtree(idx)
    if not (idx / "manifest.json").exists():
        subprocess.run([bin_, "index", "build", str(lib), "--index", str(idx)], check=True)
    big = "\n".join(t for _, t in texts)
    docs = [d for d in docs if not d["id"].startswith("big")]
    return idx, docs, big


def rss_mib(pid):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.small = []          # seconds
        self.status = {}         # (kind, status) -> count
        self.errors = {}         # kind -> count
        self.slow_held = []      # seconds a slow client was held
        self.large = []          # (status, seconds)
        self.reader_held = []    # seconds a slow reader was held

    def count(self, key, table):
        with self.lock:
            table[key] = table.get(key, 0) + 1


def small_client(addr, docs, stop, stats, seed):
    rnd = random.Random(seed)
    conn = None
    while not stop.is_set():
        d = rnd.choice(docs)
        text = d["text"][:1000]
        body = json.dumps({"text": text, "top": 5})
        try:
            if conn is None:
                conn = http.client.HTTPConnection(*addr, timeout=60)
            t0 = time.perf_counter()
            conn.request("POST", "/api/query", body, {"Content-Type": "application/json"})
            r = conn.getresponse()
            r.read()
            dt = time.perf_counter() - t0
            with stats.lock:
                stats.small.append(dt)
            stats.count(("query", r.status), stats.status)
            conn.request("GET", "/api/info")
            r = conn.getresponse()
            r.read()
            stats.count(("info", r.status), stats.status)
        except (OSError, http.client.HTTPException) as e:
            stats.count(type(e).__name__, stats.errors)
            if conn is not None:
                conn.close()
            conn = None
            time.sleep(0.05)
    if conn is not None:
        conn.close()


def large_client(addr, big, stop, stats):
    body = json.dumps({"text": big})
    while not stop.is_set():
        try:
            conn = http.client.HTTPConnection(*addr, timeout=600)
            t0 = time.perf_counter()
            conn.request("POST", "/api/query", body, {"Content-Type": "application/json"})
            r = conn.getresponse()
            r.read()
            with stats.lock:
                stats.large.append((r.status, time.perf_counter() - t0))
            conn.close()
        except (OSError, http.client.HTTPException) as e:
            stats.count("large " + type(e).__name__, stats.errors)
            time.sleep(0.5)


def slow_client(addr, stop, stats):
    head = b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 200
    while not stop.is_set():
        try:
            s = socket.create_connection(addr, timeout=5)
        except OSError as e:
            stats.count("slow connect " + type(e).__name__, stats.errors)
            time.sleep(0.5)
            continue
        t0 = time.perf_counter()
        try:
            for b in head:
                if stop.is_set():
                    break
                s.send(bytes([b]))
                time.sleep(0.5)
        except OSError:
            pass
        with stats.lock:
            stats.slow_held.append(time.perf_counter() - t0)
        s.close()


def idle_client(addr, stop, stats):
    while not stop.is_set():
        try:
            s = socket.create_connection(addr, timeout=5)
        except OSError as e:
            stats.count("idle connect " + type(e).__name__, stats.errors)
            time.sleep(0.5)
            continue
        s.settimeout(1)
        while not stop.is_set():
            try:
                if s.recv(1) == b"":
                    break  # closed by the server
            except socket.timeout:
                continue
            except OSError:
                break
        s.close()


def slow_readers(n, addr, path, stop, stats):
    """N clients in one thread (so that they cost the Python side little):
    each asks for a large document with a 4 KiB receive buffer, reads the
    status line of the answer and nothing more, waits for the server to
    close the connection (seen in TCP_INFO: the socket leaves
    ESTABLISHED), then asks again."""
    request = f"GET {path} HTTP/1.1\r\nHost: {addr[0]}:{addr[1]}\r\n\r\n".encode()
    socks = {}  # socket -> [start time, status read]

    def connect():
        try:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.settimeout(10)
            s.connect(addr)
            s.sendall(request)
            s.setblocking(False)
            socks[s] = [time.perf_counter(), False]
        except OSError as e:
            stats.count("reader connect " + type(e).__name__, stats.errors)

    for _ in range(n):
        if stop.is_set():
            break
        connect()
    while not stop.is_set():
        for s, st in list(socks.items()):
            if not st[1]:
                try:
                    head = s.recv(12)
                    parts = head.split()
                    stats.count(("reader", int(parts[1]) if len(parts) > 1 else 0), stats.status)
                    st[1] = True
                except BlockingIOError:
                    pass
                except (OSError, ValueError) as e:
                    stats.count("reader " + type(e).__name__, stats.errors)
                    st[1] = True
            if s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1)[0] != 1:  # not ESTABLISHED
                with stats.lock:
                    stats.reader_held.append(time.perf_counter() - st[0])
                s.close()
                del socks[s]
                connect()
        time.sleep(0.5)
    for s in socks:
        s.close()


def readers_process(n, addr, path, stop, out):
    """`slow_readers` in a process of its own; its counts go back on `out`."""
    stats = Stats()
    slow_readers(n, addr, path, stop, stats)
    out.put((stats.status, stats.errors, stats.reader_held))


def pct(xs, p):
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default="target/release/parallels")
    ap.add_argument("--corpus", type=Path, default=Path("../shared/corpus"))
    ap.add_argument("--work", type=Path, default=Path("bench/out/serve"))
    ap.add_argument("--duration", type=float, default=120)
    ap.add_argument("--clients", type=int, default=200)
    ap.add_argument("--large", type=int, default=2)
    ap.add_argument("--large-kib", type=int, default=1024)
    ap.add_argument("--slow", type=int, default=100)
    ap.add_argument("--idle", type=int, default=300)
    ap.add_argument("--timeout", type=int, default=30, help="serve --timeout")
    ap.add_argument("--slow-readers", type=int, default=0)
    ap.add_argument("--big-kib", type=int, default=3500, help="size of the document slow readers ask for")
    ap.add_argument("--serve-args", default="", help="more arguments of serve (e.g. '--send-budget 64')")
    args = ap.parse_args()

    idx, docs, big = build_library(args.bin, args.corpus, args.work, args.big_kib if args.slow_readers else 0)
    big = big.encode()[: args.large_kib << 10].decode("utf-8", "ignore")
    server = subprocess.Popen(
        [args.bin, "serve", "--index", str(idx), "--port", "0", "--timeout", str(args.timeout),
         *args.serve_args.split()],
        stderr=subprocess.PIPE, text=True)
    line = server.stderr.readline()
    if "http://" not in line:
        sys.exit(f"serve did not start: {line.strip()}")
    addr_text = line.split("http://")[1].split("/")[0]
    host, port = addr_text.rsplit(":", 1)
    addr = (host, int(port))
    threading.Thread(target=lambda: [None for _ in server.stderr], daemon=True).start()
    print(f"serving {len(docs)} documents on {addr_text}; pid {server.pid}", flush=True)
    big_path = None
    if args.slow_readers:
        conn = http.client.HTTPConnection(*addr, timeout=60)
        offset = 0
        while big_path is None:
            conn.request("GET", f"/api/documents?offset={offset}&limit=1000")
            page = json.loads(conn.getresponse().read())
            for d in page["documents"]:
                if d["id"].startswith("big"):
                    big_path = f"/api/documents/{d['doc']}"
            offset += 1000
            if offset >= page["total"] and big_path is None:
                sys.exit("the large document is not in the index")
        conn.close()

    stats, stop = Stats(), threading.Event()
    threads = []
    for k in range(args.clients):
        threads.append(threading.Thread(target=small_client, args=(addr, docs, stop, stats, k)))
    for _ in range(args.large):
        threads.append(threading.Thread(target=large_client, args=(addr, big, stop, stats)))
    for _ in range(args.slow):
        threads.append(threading.Thread(target=slow_client, args=(addr, stop, stats)))
    for _ in range(args.idle):
        threads.append(threading.Thread(target=idle_client, args=(addr, stop, stats)))
    readers = None
    if args.slow_readers:
        # In a process of their own: polling hundreds of sockets holds the
        # GIL, and the small clients' latencies would measure that.
        readers_stop, readers_out = multiprocessing.Event(), multiprocessing.Queue()
        readers = multiprocessing.Process(
            target=readers_process, args=(args.slow_readers, addr, big_path, readers_stop, readers_out))
        readers.start()
    for t in threads:
        t.daemon = True
        t.start()
    rss, t0 = [], time.time()
    while time.time() - t0 < args.duration:
        time.sleep(1)
        r = rss_mib(server.pid)
        if r is not None:
            rss.append(r)
        if server.poll() is not None:
            break
    stop.set()
    up = server.poll() is None
    if readers is not None:
        readers_stop.set()
        status, errors, held = readers_out.get(timeout=120)
        readers.join(timeout=30)
        for k, n in status.items():
            stats.status[k] = stats.status.get(k, 0) + n
        for k, n in errors.items():
            stats.errors[k] = stats.errors.get(k, 0) + n
        stats.reader_held.extend(held)
    for t in threads:
        t.join(timeout=5)
    small = stats.small
    ms = lambda x: f"{x * 1000:.0f} ms"
    print(f"duration {time.time() - t0:.0f} s; server up at the end: {up}")
    print(f"small queries: {len(small)} answered; p50 {ms(pct(small, 50))}, p95 {ms(pct(small, 95))}, "
          f"p99 {ms(pct(small, 99))}, max {ms(max(small) if small else float('nan'))}; "
          f"over 1 s: {sum(1 for x in small if x > 1)}")
    print("answers by status:", dict(sorted((f"{k}:{s}", n) for (k, s), n in stats.status.items())))
    print("errors:", stats.errors)
    large = stats.large
    print(f"large queries ({len(big.encode()) >> 10} KiB): " +
          ", ".join(f"{s} in {t:.1f} s" for s, t in large[:10]) + (" …" if len(large) > 10 else ""))
    if stats.slow_held:
        print(f"slow clients held: median {statistics.median(stats.slow_held):.1f} s, "
              f"max {max(stats.slow_held):.1f} s ({len(stats.slow_held)} connections)")
    if stats.reader_held:
        print(f"slow readers held until the server closed them: median {statistics.median(stats.reader_held):.1f} s, "
              f"max {max(stats.reader_held):.1f} s ({len(stats.reader_held)} connections)")
    if rss:
        print(f"server RSS: peak {max(rss):.0f} MiB, final {rss[-1]:.0f} MiB")
    server.kill()
    server.wait()
    return 0 if up else 1


if __name__ == "__main__":
    sys.exit(main())
