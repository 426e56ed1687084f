"""Server-side logic: filter translation/validation and store semantics, on a temp data dir."""

from __future__ import annotations

import json
import threading
from http.client import HTTPConnection
from pathlib import Path
from typing import Any

import pytest

from qdrant_local.errors import BadRequest, Conflict, NotFound
from qdrant_local.filters import parse_filter, parse_point_id
from qdrant_local.server import Server
from qdrant_local.snapshots import Snapshots
from qdrant_local.store import Store

POINTS = [
    {"id": 1, "vector": [1, 0, 0, 0], "payload": {"city": "Berlin", "n": 1, "tags": ["a", "b"], "geo": {"country": "DE"}}},
    {"id": 2, "vector": [0, 1, 0, 0], "payload": {"city": "London", "n": 5, "tags": ["b"], "geo": {"country": "UK"}}},
    {"id": 3, "vector": [0, 0, 1, 0], "payload": {"city": "Moscow", "n": 9, "tags": [], "note": None}},
    {"id": "5c56c793-69f3-4fbf-87e6-c4bf54c28c26", "vector": [0, 0, 0, 1], "payload": {"city": "Berlin", "n": 7.5}},
]


@pytest.fixture()
def store(tmp_path: Path) -> Store:
    s = Store(tmp_path)
    s.create("c", {"vectors": {"size": 4, "distance": "Cosine"}})
    s.upsert("c", {"points": POINTS})
    yield s
    s.close()


def ids(store: Store, flt: dict[str, Any]) -> list[Any]:
    return sorted((p["id"] for p in store.scroll("c", {"filter": flt, "limit": 100})["points"]), key=str)


@pytest.mark.parametrize(
    ("flt", "expected"),
    [
        ({"must": [{"key": "city", "match": {"value": "Berlin"}}]}, [1, "5c56c793-69f3-4fbf-87e6-c4bf54c28c26"]),
        ({"must": {"key": "city", "match": {"value": "Berlin"}}}, [1, "5c56c793-69f3-4fbf-87e6-c4bf54c28c26"]),
        ({"should": [{"key": "city", "match": {"value": "London"}}, {"key": "n", "range": {"gt": 8}}]}, [2, 3]),
        ({"must_not": [{"key": "city", "match": {"any": ["Berlin", "London"]}}]}, [3]),
        ({"must": [{"key": "n", "range": {"gte": 5, "lt": 9}}]}, [2, "5c56c793-69f3-4fbf-87e6-c4bf54c28c26"]),
        ({"must": [{"key": "geo.country", "match": {"value": "DE"}}]}, [1]),
        ({"must": [{"key": "tags", "match": {"value": "b"}}]}, [1, 2]),
        ({"must": [{"is_empty": {"key": "tags"}}]}, [3, "5c56c793-69f3-4fbf-87e6-c4bf54c28c26"]),
        ({"must": [{"is_null": {"key": "note"}}]}, [3]),
        ({"must": [{"has_id": [2, "5C56C793-69F3-4FBF-87E6-C4BF54C28C26"]}]}, [2, "5c56c793-69f3-4fbf-87e6-c4bf54c28c26"]),
        ({"must": [{"key": "city", "match": {"except": ["Berlin"]}}]}, [2, 3]),
        ({"must": [{"should": [{"key": "n", "range": {"lt": 2}}, {"key": "n", "range": {"gt": 8}}]}]}, [1, 3]),
        ({"min_should": {"conditions": [{"key": "city", "match": {"value": "Berlin"}}, {"key": "n", "range": {"gt": 6}}], "min_count": 2}}, ["5c56c793-69f3-4fbf-87e6-c4bf54c28c26"]),
        ({}, [1, 2, 3, "5c56c793-69f3-4fbf-87e6-c4bf54c28c26"]),
    ],
)
def test_filter_semantics(store: Store, flt: dict[str, Any], expected: list[Any]) -> None:
    assert ids(store, flt) == sorted(expected, key=str)
    assert store.count("c", {"filter": flt})["count"] == len(expected)


@pytest.mark.parametrize(
    "flt",
    [
        {"must": [{"key": "x"}]},
        {"must": [{"key": "x", "match": {"value": 1.5}}]},
        {"must": [{"key": "x", "match": {"any": [1, "a"]}}]},
        {"must": [{"key": "x", "range": {"gt": "2020-01-01T00:00:00Z", "lt": 3}}]},
        {"must": [{"has_id": ["nope"]}]},
        {"must": "x"},
        {"bogus": []},
        {"must": [{"unknown": 1}]},
    ],
)
def test_bad_filters(flt: dict[str, Any]) -> None:
    with pytest.raises(BadRequest):
        parse_filter(flt)


def test_point_ids() -> None:
    assert parse_point_id(5) == 5
    assert parse_point_id("5C56C793-69F3-4FBF-87E6-C4BF54C28C26") == "5c56c793-69f3-4fbf-87e6-c4bf54c28c26"
    for bad in (-1, True, 1.5, "x", None, 2**64):
        with pytest.raises(BadRequest):
            parse_point_id(bad)


def test_query_and_errors(store: Store) -> None:
    r = store.query("c", {"query": [1, 0, 0, 0], "limit": 2, "with_payload": ["city"]})
    assert r["points"][0]["id"] == 1 and r["points"][0]["payload"] == {"city": "Berlin"}
    by_id = store.query("c", {"query": 1, "limit": 10})
    assert 1 not in [p["id"] for p in by_id["points"]]
    with pytest.raises(BadRequest, match="dimension"):
        store.upsert("c", {"points": [{"id": 9, "vector": [1, 2]}]})
    with pytest.raises(Conflict):
        store.create("c", {"vectors": {"size": 4, "distance": "Cosine"}})
    with pytest.raises(NotFound):
        store.info("missing")
    with pytest.raises(BadRequest):
        store.create("bad/name", {"vectors": {"size": 4, "distance": "Cosine"}})
    with pytest.raises(BadRequest):
        store.create("d", {"vectors": {"size": 4, "distance": "Hamming"}})


def test_persistence_and_snapshot_recover(tmp_path: Path) -> None:
    s = Store(tmp_path)
    s.create("c", {"vectors": {"a": {"size": 2, "distance": "Dot"}, "b": {"size": 3, "distance": "Euclid"}}})
    s.create_index("c", {"field_name": "k", "field_schema": {"type": "integer", "lookup": True, "range": True}})
    s.upsert("c", {"points": [{"id": i, "vector": {"a": [1, i], "b": [0, 0, i]}, "payload": {"k": i}} for i in range(10)]})
    snaps = Snapshots(s)
    snap = snaps.create("c")
    s.delete_points("c", {"filter": {"must": [{"key": "k", "range": {"lt": 5}}]}})
    assert s.count("c", {})["count"] == 5
    s.close()

    s2 = Store(tmp_path)  # reload from disk
    assert s2.count("c", {})["count"] == 5
    Snapshots(s2).recover("c", {"location": snap["name"], "checksum": snap["checksum"]})
    assert s2.count("c", {})["count"] == 10
    assert s2.info("c")["payload_schema"]["k"]["data_type"] == "integer"
    top = s2.query("c", {"query": [0, 0, 9], "using": "b", "limit": 1})
    assert top["points"][0]["id"] == 9
    # Recover into a new collection name from a file:// URI inside the snapshots dir.
    path = snaps.dir_for("c") / snap["name"]
    Snapshots(s2).recover("copy", {"location": path.as_uri()})
    assert s2.count("copy", {})["count"] == 10
    with pytest.raises(BadRequest):
        Snapshots(s2).recover("copy", {"location": "file:///etc/passwd"})
    s2.close()


def test_http_envelope(tmp_path: Path) -> None:
    server = Server("127.0.0.1", 0, Store(tmp_path), flush_interval_s=60)
    t = threading.Thread(target=server.serve_forever, daemon=True)
    t.start()
    try:
        conn = HTTPConnection("127.0.0.1", server.port)

        def call(method: str, path: str, body: str | None = None) -> tuple[int, Any]:
            conn.request(method, path, body=body)
            r = conn.getresponse()
            return r.status, json.loads(r.read())

        st, root = call("GET", "/")
        assert st == 200 and "not a Qdrant server" in root["title"]
        st, body = call("PUT", "/collections/h", json.dumps({"vectors": {"size": 2, "distance": "Cosine"}}))
        assert st == 200 and body["result"] is True and body["status"] == "ok" and isinstance(body["time"], float)
        st, body = call("PUT", "/collections/h/points?wait=true", "{not json")
        assert st == 400 and "Format error" in body["status"]["error"]
        st, body = call("POST", "/collections/nope/points/count", "{}")
        assert st == 404 and "doesn't exist" in body["status"]["error"]
        st, body = call("GET", "/collections/h/snapshots/x.snapshot")
        assert st == 404
        st, body = call("POST", "/collections/h/unknown", "{}")
        assert st == 404
    finally:
        server.shutdown()
