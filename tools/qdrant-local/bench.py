"""Rough figures for qdrant-local over HTTP: upsert N points of dim D, queries, snapshot create/recover.

usage: python bench.py [--url http://127.0.0.1:16333] [--api-key KEY] [--points 10000] [--dim 384]
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import statistics
import time
from urllib.parse import urlparse


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", default="http://127.0.0.1:16333")
    ap.add_argument("--points", type=int, default=10000)
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--batch", type=int, default=500)
    ap.add_argument("--api-key", default=None)
    a = ap.parse_args()
    u = urlparse(a.url)
    conn = http.client.HTTPConnection(u.hostname, u.port)

    def call(method: str, path: str, body: object | None = None) -> object:
        headers = {"Content-Type": "application/json", **({"api-key": a.api_key} if a.api_key else {})}
        conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
        r = conn.getresponse()
        data = json.loads(r.read())
        if r.status != 200:
            raise RuntimeError(f"{method} {path}: {r.status} {data}")
        return data["result"]

    name = f"bench_{int(time.time())}"
    rnd = random.Random(7)
    call("PUT", f"/collections/{name}", {"vectors": {"size": a.dim, "distance": "Cosine"}})
    call("PUT", f"/collections/{name}/index?wait=true", {"field_name": "tenant", "field_schema": "keyword"})
    vecs = [[rnd.uniform(-1, 1) for _ in range(a.dim)] for _ in range(a.points)]
    t0 = time.perf_counter()
    for s in range(0, a.points, a.batch):
        pts = [{"id": i, "vector": vecs[i], "payload": {"tenant": f"t{i % 10}", "n": i}} for i in range(s, min(s + a.batch, a.points))]
        call("PUT", f"/collections/{name}/points?wait=true", {"points": pts})
    up = time.perf_counter() - t0
    print(f"upsert {a.points} x dim {a.dim} (batches of {a.batch}): {up:.2f}s ({a.points / up:.0f} points/s)")

    def bench_query(label: str, extra: dict) -> None:
        times = []
        for _ in range(50):
            q = [rnd.uniform(-1, 1) for _ in range(a.dim)]
            t = time.perf_counter()
            call("POST", f"/collections/{name}/points/query", {"query": q, "limit": 10, **extra})
            times.append(time.perf_counter() - t)
        print(f"query {label}: median {statistics.median(times) * 1000:.1f} ms, p95 {sorted(times)[int(len(times) * 0.95)] * 1000:.1f} ms")

    bench_query("top-10 no filter", {})
    bench_query("top-10 filter tenant + range", {"filter": {"must": [{"key": "tenant", "match": {"value": "t3"}}, {"key": "n", "range": {"gte": 1000}}]}, "with_payload": True})
    t = time.perf_counter()
    snap = call("POST", f"/collections/{name}/snapshots")
    print(f"snapshot create: {time.perf_counter() - t:.2f}s, size {snap['size'] / 1e6:.1f} MB")  # type: ignore[index]
    call("POST", f"/collections/{name}/points/delete?wait=true", {"filter": {"must": [{"key": "tenant", "match": {"value": "t1"}}]}})
    t = time.perf_counter()
    # A location is a URL, as in Qdrant: the server's own download URL works without knowing its snapshots dir.
    location = f"{a.url.rstrip('/')}/collections/{name}/snapshots/{snap['name']}"  # type: ignore[index]
    call("PUT", f"/collections/{name}/snapshots/recover", {"location": location, "api_key": a.api_key})
    print(f"snapshot recover: {time.perf_counter() - t:.2f}s")
    cnt = call("POST", f"/collections/{name}/points/count", {})
    print(f"count after recover: {cnt['count']}")  # type: ignore[index]
    call("DELETE", f"/collections/{name}/snapshots/{snap['name']}")  # type: ignore[index]
    call("DELETE", f"/collections/{name}")


if __name__ == "__main__":
    main()
