"""Server-side logic: filter translation/validation and store semantics, on a temp data dir.

What Qdrant itself answers is checked by tools/stack/test/integration/qdrant-contract.test.ts, which
runs the same calls against the real server and this one; these tests pin qdrant-local's side of
it (and the parts a contract run cannot make deterministic, such as a second snapshot in the same
second) without a Qdrant binary.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
from http.client import HTTPConnection
from pathlib import Path
from typing import Any, Iterator

import pytest

from qdrant_local import snapshots as snapshots_module
from qdrant_local.errors import ApiError, BadRequest, Conflict, Forbidden, NotFound, Unprocessable, WrongInput
from qdrant_local.filters import LENIENT, parse_filter, parse_point_id
from qdrant_local.multipart import read_parts
from qdrant_local.serde import read_object
from qdrant_local.server import Server
from qdrant_local.snapshots import Snapshots
from qdrant_local.store import Store

ROOT = Path(__file__).resolve().parents[1]

POINTS = [
    {"id": 1, "vector": [1, 0, 0, 0], "payload": {"city": "Berlin", "n": 1, "tags": ["a", "b"], "geo": {"country": "DE"}, "open": True}},
    {"id": 2, "vector": [0, 1, 0, 0], "payload": {"city": "London", "n": 5, "tags": ["b"], "geo": {"country": "UK"}, "open": False}},
    {"id": 3, "vector": [0, 0, 1, 0], "payload": {"city": "Moscow", "n": 9, "tags": [], "note": None, "open": True}},
    {"id": "5c56c793-69f3-4fbf-87e6-c4bf54c28c26", "vector": [0, 0, 0, 1], "payload": {"city": "Berlin", "n": 7.5}},
]
UUID = "5c56c793-69f3-4fbf-87e6-c4bf54c28c26"


@pytest.fixture()
def store(tmp_path: Path) -> Iterator[Store]:
    s = Store(tmp_path / "data", tmp_path / "snapshots")
    s.create("c", {"vectors": {"size": 4, "distance": "Cosine"}})
    s.upsert("c", {"points": POINTS})
    yield s
    s.close()


def ids(store: Store, flt: dict[str, Any]) -> list[Any]:
    return sorted((p["id"] for p in store.scroll("c", {"filter": flt, "limit": 100})["points"]), key=str)


@pytest.mark.parametrize(
    ("flt", "expected"),
    [
        ({"must": [{"key": "city", "match": {"value": "Berlin"}}]}, [1, UUID]),
        ({"must": {"key": "city", "match": {"value": "Berlin"}}}, [1, UUID]),
        ({"should": [{"key": "city", "match": {"value": "London"}}, {"key": "n", "range": {"gt": 8}}]}, [2, 3]),
        ({"must_not": [{"key": "city", "match": {"any": ["Berlin", "London"]}}]}, [3]),
        ({"must": [{"key": "n", "range": {"gte": 5, "lt": 9}}]}, [2, UUID]),
        ({"must": [{"key": "geo.country", "match": {"value": "DE"}}]}, [1]),
        ({"must": [{"key": "tags", "match": {"value": "b"}}]}, [1, 2]),
        ({"must": [{"is_empty": {"key": "tags"}}]}, [3, UUID]),
        ({"must": [{"is_null": {"key": "note"}}]}, [3]),
        ({"must": [{"has_id": [2, UUID.upper()]}]}, [2, UUID]),
        ({"must": [{"key": "city", "match": {"except": ["Berlin"]}}]}, [2, 3]),
        ({"must": [{"should": [{"key": "n", "range": {"lt": 2}}, {"key": "n", "range": {"gt": 8}}]}]}, [1, 3]),
        ({"min_should": {"conditions": [{"key": "city", "match": {"value": "Berlin"}}, {"key": "n", "range": {"gt": 6}}], "min_count": 2}}, [UUID]),
        ({"must": [{"key": "open", "match": {"value": True}}]}, [1, 3]),
        ({"must": [{"key": "open", "match": {"value": False}}]}, [2]),
        ({}, [1, 2, 3, UUID]),
    ],
)
def test_filter_semantics(store: Store, flt: dict[str, Any], expected: list[Any]) -> None:
    assert ids(store, flt) == sorted(expected, key=str)
    assert store.count("c", {"filter": flt})["count"] == len(expected)


def test_bool_match_with_an_index(store: Store) -> None:
    """qdrant-edge-py 0.9 reads MatchValue(True) as the integer 1; filters.py works around it."""
    store.create_index("c", {"field_name": "open", "field_schema": "bool"})
    assert ids(store, {"must": [{"key": "open", "match": {"value": True}}]}) == [1, 3]
    assert ids(store, {"must_not": [{"key": "open", "match": {"value": True}}]}) == sorted([2, UUID], key=str)


@pytest.mark.parametrize(
    ("flt", "status"),
    [
        ({"must": [{"key": "x"}]}, 422),
        ({"must": [{"key": "x", "match": {"value": 1.5}}]}, 400),
        ({"must": [{"key": "x", "match": {"any": [1, "a"]}}]}, 400),
        ({"must": [{"key": "x", "range": {"gt": "2020-01-01T00:00:00Z", "lt": 3}}]}, 400),
        ({"must": [{"key": "x", "range": {"gt": "yesterday"}}]}, 400),
        ({"must": [{"has_id": ["nope"]}]}, 400),
        ({"must": "x"}, 400),
        ({"bogus": []}, 400),
        ({"must": [{"unknown": 1}]}, 400),
    ],
)
def test_bad_filters(flt: dict[str, Any], status: int) -> None:
    with pytest.raises(ApiError) as e:
        parse_filter(flt)
    assert e.value.status == status


def test_validation_messages_name_the_request_struct(store: Store) -> None:
    bad = {"must": [{"key": "city"}]}
    with pytest.raises(Unprocessable, match=r"^Validation error in JSON body: \[internal\.filter\.must\[0\]\.__all__: Validation error: At least"):
        store.query("c", {"query": [1, 0, 0, 0], "filter": bad})
    with pytest.raises(Unprocessable, match=r"\[scroll_request\.filter\.must\[0\]\.__all__"):
        store.scroll("c", {"filter": bad})
    with pytest.raises(Unprocessable, match=r"\[count_request\.filter\.should\[0\]\.must\[0\]\.__all__"):
        store.count("c", {"filter": {"should": [bad]}})
    with pytest.raises(Unprocessable, match=r"\[internal\.limit: value 0 invalid, must be 1 or larger\]"):
        store.query("c", {"query": [1, 0, 0, 0], "limit": 0})


def test_delete_filters_are_not_validated(store: Store) -> None:
    """As in Qdrant: a condition-less field condition matches nothing, so under must_not it matches all."""
    store.delete_points("c", {"filter": {"must": [{"key": "city"}]}})
    assert store.count("c", {})["count"] == 4
    assert parse_filter({"must_not": [{"key": "city"}]}, "filter", LENIENT) is not None
    store.delete_points("c", {"filter": {"must_not": [{"key": "city"}]}})
    assert store.count("c", {})["count"] == 0


def test_point_ids() -> None:
    assert parse_point_id(5) == 5
    assert parse_point_id(UUID.upper()) == UUID
    for bad in (-1, True, 1.5, "x", None, 2**64):
        with pytest.raises(BadRequest, match="is not a valid point ID"):
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
    with pytest.raises(BadRequest, match="untagged enum VectorsConfig"):
        store.create("d", {"vectors": {"size": 4, "distance": "Hamming"}})
    with pytest.raises(NotFound, match=r"^Not found: No point with id 999 found$"):
        store.payload_op("c", "set", {"points": [999], "payload": {"x": 1}})
    with pytest.raises(NotFound, match=r"^Not found: Point with id 999 does not exists!$"):
        store.get_point("c", "999")
    with pytest.raises(WrongInput, match=r'Can not recognize "abc" as point id'):
        store.get_point("c", "abc")
    assert store.retrieve("c", {"ids": [1]}) == [{"id": 1}], "POST /points returns no payload unless asked, as Qdrant"


def test_aliases(tmp_path: Path) -> None:
    s = Store(tmp_path / "data")
    for name in ("blue", "green"):
        s.create(name, {"vectors": {"size": 2, "distance": "Dot"}})
        s.upsert(name, {"points": [{"id": 1, "vector": [1, 0], "payload": {"colour": name}}]})
    assert s.update_aliases([{"create_alias": {"collection_name": "blue", "alias_name": "live"}}]) is True
    assert s.retrieve("live", {"ids": [1], "with_payload": True})[0]["payload"] == {"colour": "blue"}
    assert s.exists("live") and s.info("live")["points_count"] == 1
    # The blue/green swap, in one call.
    s.update_aliases([{"delete_alias": {"alias_name": "live"}}, {"create_alias": {"collection_name": "green", "alias_name": "live"}}])
    assert s.retrieve("live", {"ids": [1], "with_payload": True})[0]["payload"] == {"colour": "green"}
    assert s.list_aliases() == {"aliases": [{"alias_name": "live", "collection_name": "green"}]}
    assert s.collection_aliases("green") == {"aliases": [{"alias_name": "live", "collection_name": "green"}]}
    assert s.collection_aliases("live") == {"aliases": []}
    # Refusals, with Qdrant's statuses.
    with pytest.raises(Conflict, match="Collection `blue` already exists"):
        s.update_aliases([{"create_alias": {"collection_name": "green", "alias_name": "blue"}}])
    with pytest.raises(NotFound, match="Alias ghost does not exists!"):
        s.update_aliases([{"rename_alias": {"old_alias_name": "ghost", "new_alias_name": "x"}}])
    with pytest.raises(WrongInput, match="Alias with the same name already exists"):
        s.create("live", {"vectors": {"size": 2, "distance": "Dot"}})
    assert s.delete("live") is False and s.exists("green"), "an alias name never deletes its collection"
    # A failing action keeps the actions before it (as Qdrant: not transactional).
    with pytest.raises(NotFound):
        s.update_aliases([{"delete_alias": {"alias_name": "live"}}, {"create_alias": {"collection_name": "nope", "alias_name": "live"}}])
    assert s.list_aliases() == {"aliases": []}
    s.update_aliases([{"create_alias": {"collection_name": "green", "alias_name": "live"}}])
    s.close()
    s2 = Store(tmp_path / "data")  # aliases persist
    assert s2.list_aliases() == {"aliases": [{"alias_name": "live", "collection_name": "green"}]}
    assert s2.delete("green") is True
    assert s2.list_aliases() == {"aliases": []}, "deleting a collection drops its aliases"
    s2.close()


def _recover_body(**fields: Any) -> bytes:
    return json.dumps(fields).encode()


def test_recover_locations(tmp_path: Path) -> None:
    s = Store(tmp_path / "data", tmp_path / "snapshots")
    s.create("c", {"vectors": {"a": {"size": 2, "distance": "Dot"}, "b": {"size": 3, "distance": "Euclid"}}})
    s.create_index("c", {"field_name": "k", "field_schema": {"type": "integer", "lookup": True, "range": True}})
    s.upsert("c", {"points": [{"id": i, "vector": {"a": [1, i], "b": [0, 0, i]}, "payload": {"k": i}} for i in range(10)]})
    snaps = Snapshots(s)
    snap = snaps.create("c")
    assert snap["name"].startswith(f"c-{s.peer_id}-") and snap["name"].endswith(".snapshot")
    path = tmp_path / "snapshots" / "c" / snap["name"]
    assert path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == snap["checksum"]
    s.delete_points("c", {"filter": {"must": [{"key": "k", "range": {"lt": 5}}]}})
    assert s.count("c", {})["count"] == 5
    s.close()

    s2 = Store(tmp_path / "data", tmp_path / "snapshots")  # reload from disk
    snaps = Snapshots(s2)
    assert s2.count("c", {})["count"] == 5
    # A bare name is not a URL: refused as Qdrant refuses it, with serde's position.
    with pytest.raises(BadRequest) as e:
        snaps.recover("c", _recover_body(location=snap["name"], checksum=snap["checksum"]))
    column = len(json.dumps({"location": snap["name"]})) - 1
    assert e.value.message == f'Format error in JSON body: relative URL without a base: "{snap["name"]}" at line 1 column {column}'
    with pytest.raises(BadRequest, match=r"missing field `location` at line 1 column 2$"):
        snaps.recover("c", b"{}")
    with pytest.raises(BadRequest, match=r"unknown variant `bogus`, expected one of `no_sync`, `snapshot`, `replica` at line 1 column"):
        snaps.recover("c", _recover_body(location=path.as_uri(), priority="bogus"))
    with pytest.raises(Unprocessable, match=r"Validation error in JSON body: \[checksum: "):
        snaps.recover("c", _recover_body(location=path.as_uri(), checksum="abc"))
    with pytest.raises(WrongInput, match="Snapshot checksum mismatch: expected 0000"):
        snaps.recover("c", _recover_body(location=path.as_uri(), checksum="0" * 64))
    with pytest.raises(BadRequest, match=r'^Bad request: Snapshot file ".*/missing.snapshot" does not exist$'):
        snaps.recover("c", _recover_body(location=(path.parent / "missing.snapshot").as_uri()))
    outside = tmp_path / "outside.snapshot"
    outside.write_bytes(path.read_bytes())
    with pytest.raises(Forbidden, match="must be inside the snapshots directory"):
        snaps.recover("c", _recover_body(location=outside.as_uri()))
    with pytest.raises(Forbidden):
        snaps.recover("c", _recover_body(location=f"file://{tmp_path}/snapshots/c/../../outside.snapshot"))
    with pytest.raises(BadRequest, match="file path must be absolute or on localhost"):
        snaps.recover("c", _recover_body(location="file://host/x.snapshot"))
    with pytest.raises(BadRequest, match="with scheme ftp is not supported"):
        snaps.recover("c", _recover_body(location="ftp://h/x.snapshot"))
    assert s2.count("c", {})["count"] == 5, "no refusal recovered anything"

    assert snaps.recover("c", _recover_body(location=path.as_uri(), checksum=snap["checksum"], priority="snapshot")) is True
    assert s2.count("c", {})["count"] == 10
    assert s2.info("c")["payload_schema"]["k"]["data_type"] == "integer"
    assert s2.query("c", {"query": [0, 0, 9], "using": "b", "limit": 1})["points"][0]["id"] == 9
    # Into a new collection (created from the snapshot), and not into one with other vectors.
    assert snaps.recover("copy", _recover_body(location=f"file://localhost{path}")) is True
    assert s2.count("copy", {})["count"] == 10
    s2.create("other", {"vectors": {"size": 8, "distance": "Cosine"}})
    with pytest.raises(WrongInput, match="Snapshot is not compatible with existing collection"):
        snaps.recover("other", _recover_body(location=path.as_uri()))
    # Through an alias: the snapshot is the collection's, and the recovery is too.
    s2.update_aliases([{"create_alias": {"collection_name": "c", "alias_name": "live"}}])
    via = snaps.create("live")
    assert via["name"].startswith("c-") and {x["name"] for x in snaps.list("live")} == {snap["name"], via["name"]}
    s2.close()


def test_same_second_snapshot_replaces_the_first(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    fixed = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)

    class Clock(dt.datetime):
        @classmethod
        def now(cls, tz: Any = None) -> dt.datetime:  # noqa: ARG003
            return fixed

    monkeypatch.setattr(snapshots_module.dt, "datetime", Clock)
    snaps = Snapshots(store)
    first = snaps.create("c")
    store.upsert("c", {"points": [{"id": 50, "vector": [1, 1, 0, 0]}]})
    second = snaps.create("c")
    assert first["name"] == second["name"] == f"c-{store.peer_id}-2026-01-02-03-04-05.snapshot"
    assert first["checksum"] != second["checksum"]
    assert [x["checksum"] for x in snaps.list("c")] == [second["checksum"]]


def test_serde_positions() -> None:
    obj = read_object(b'{"priority": "snapshot",\n  "location": "x.snapshot"}')
    assert obj.fail("boom", "location").message == "Format error in JSON body: boom at line 2 column 26"
    assert read_object(b"{}").fail("missing field `location`").message.endswith("at line 1 column 2")
    for bad in (b"", b"[1]", b'{"a" 1}', b'{"a": 1', b'{"a": 1, "a": 2}'):
        with pytest.raises(BadRequest, match="^Format error in JSON body: "):
            read_object(bad)


def test_multipart_reader(tmp_path: Path) -> None:
    payload = os.urandom(300_000) + b"\r\n--notquite" + os.urandom(1000)
    body = (
        b"--XyZ\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nhello\r\n"
        b"--XyZ\r\nContent-Disposition: form-data; name=\"snapshot\"; filename=\"../a b.snapshot\"\r\n"
        b"Content-Type: application/octet-stream\r\n\r\n" + payload + b"\r\n--XyZ--\r\n"
    )
    pos = 0

    def read(n: int) -> bytes:  # tiny reads: boundaries straddle chunks
        nonlocal pos
        chunk = body[pos : pos + min(n, 777)]
        pos += len(chunk)
        return chunk

    parts = read_parts(read, "XyZ", tmp_path)
    assert [(p.name, p.filename) for p in parts] == [("note", None), ("snapshot", "../a b.snapshot")]
    assert parts[0].path.read_bytes() == b"hello"
    assert parts[1].path.read_bytes() == payload


@pytest.fixture()
def server(tmp_path: Path) -> Iterator[Server]:
    srv = Server("127.0.0.1", 0, Store(tmp_path / "data", tmp_path / "snapshots"), flush_interval_s=60, api_key="k3y")
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield srv
    srv.shutdown()


def _call(srv: Server, method: str, path: str, body: bytes | str | None = None, headers: dict[str, str] | None = None) -> tuple[int, str | None, bytes]:
    conn = HTTPConnection("127.0.0.1", srv.port, timeout=30)
    conn.request(method, path, body=body, headers={"api-key": "k3y", **(headers or {})})
    r = conn.getresponse()
    data = r.read()
    conn.close()
    return r.status, r.getheader("Content-Type"), data


def test_http_auth_and_envelope(server: Server) -> None:
    st, ctype, body = _call(server, "GET", "/", headers={"api-key": ""})
    assert st == 200 and "not a Qdrant server" in json.loads(body)["title"]
    for path in ("/healthz", "/livez", "/readyz"):
        conn = HTTPConnection("127.0.0.1", server.port)
        conn.request("GET", path)
        assert conn.getresponse().status == 200
    conn = HTTPConnection("127.0.0.1", server.port)
    conn.request("GET", "/collections")
    r = conn.getresponse()
    assert (r.status, r.getheader("Content-Type"), r.read()) == (401, None, b"Must provide an API key or an Authorization bearer token")
    assert _call(server, "GET", "/collections", headers={"api-key": "wrong"})[::2] == (401, b"Invalid API key or JWT")
    st, _, body = _call(server, "GET", "/collections", headers={"api-key": "", "Authorization": "Bearer k3y"})
    assert st == 401  # an empty api-key header is a key, and a wrong one
    conn = HTTPConnection("127.0.0.1", server.port)
    conn.request("GET", "/collections", headers={"Authorization": "Bearer k3y"})
    assert conn.getresponse().status == 200
    assert _call(server, "GET", "/no/such/route")[::2] == (404, b"")

    st, _, body = _call(server, "PUT", "/collections/h", json.dumps({"vectors": {"size": 2, "distance": "Cosine"}}))
    doc = json.loads(body)
    assert st == 200 and doc["result"] is True and doc["status"] == "ok" and isinstance(doc["time"], float)
    st, _, body = _call(server, "PUT", "/collections/h/points?wait=true", "{not json")
    assert st == 400 and "Format error" in json.loads(body)["status"]["error"]
    st, _, body = _call(server, "POST", "/collections/nope/points/count", "{}")
    assert st == 404 and json.loads(body)["status"]["error"] == "Not found: Collection `nope` doesn't exist!"
    st, ctype, body = _call(server, "GET", "/collections/h/snapshots/x.snapshot")
    assert st == 404 and ctype.startswith("text/plain") and body.startswith(b"Not found: Snapshot directory: ")
    st, _, body = _call(server, "POST", "/collections/h/snapshots?wait=false")
    assert (st, json.loads(body)["status"]) == (202, "accepted")


def test_http_upload_download_recover(server: Server) -> None:
    _call(server, "PUT", "/collections/u", json.dumps({"vectors": {"size": 2, "distance": "Dot"}}))
    _call(server, "PUT", "/collections/u/points?wait=true", json.dumps({"points": [{"id": i, "vector": [1, i]} for i in range(5)]}))
    st, _, body = _call(server, "POST", "/collections/u/snapshots")
    snap = json.loads(body)["result"]
    st, ctype, archive = _call(server, "GET", f"/collections/u/snapshots/{snap['name']}")
    assert st == 200 and ctype == "application/octet-stream" and hashlib.sha256(archive).hexdigest() == snap["checksum"]
    _call(server, "POST", "/collections/u/points/delete?wait=true", json.dumps({"points": [0, 1]}))

    def form(name: str = "snapshot") -> tuple[bytes, dict[str, str]]:
        body = (
            f'--b0\r\nContent-Disposition: form-data; name="{name}"; filename="up.snapshot"\r\n\r\n'.encode() + archive + b"\r\n--b0--\r\n"
        )
        return body, {"Content-Type": "multipart/form-data; boundary=b0"}

    st, _, body = _call(server, "POST", f"/collections/u/snapshots/upload?checksum={'0' * 64}", *form())
    assert st == 400 and json.loads(body)["status"]["error"] == f"Checksum mismatch: expected {snap['checksum']}, actual {'0' * 64}"
    assert _call(server, "POST", "/collections/u/snapshots/upload", *form("other"))[::2] == (400, b"Required field is missing: snapshot")
    assert _call(server, "POST", "/collections/u/snapshots/upload", archive, {"Content-Type": "application/octet-stream"})[::2] == (
        415,
        b"ContentTypeIncompatible",
    )
    st, _, body = _call(server, "POST", "/collections/u/snapshots/upload?checksum=abc", *form())
    assert st == 422
    st, _, body = _call(server, "POST", f"/collections/u/snapshots/upload?priority=snapshot&checksum={snap['checksum']}", *form())
    assert (st, json.loads(body)["result"]) == (200, True)
    count = json.loads(_call(server, "POST", "/collections/u/points/count", "{}")[2])["result"]["count"]
    assert count == 5
    names = sorted(x["name"] for x in json.loads(_call(server, "GET", "/collections/u/snapshots")[2])["result"])
    assert names == sorted([snap["name"], "up.snapshot"]), "the uploaded archive stays in the snapshots dir, as in Qdrant"

    # Recover from a URL: the server's own download endpoint, with the key.
    _call(server, "POST", "/collections/u/points/delete?wait=true", json.dumps({"points": [2]}))
    url = f"http://127.0.0.1:{server.port}/collections/u/snapshots/{snap['name']}"
    st, _, body = _call(server, "PUT", "/collections/u/snapshots/recover", json.dumps({"location": url}))
    assert st == 400 and json.loads(body)["status"]["error"] == f"Wrong input: Failed to download tar from {url}: status - 401 Unauthorized"
    st, _, body = _call(server, "PUT", "/collections/u/snapshots/recover", json.dumps({"location": url, "api_key": "k3y"}))
    assert (st, json.loads(body)["result"]) == (200, True)
    assert json.loads(_call(server, "POST", "/collections/u/points/count", "{}")[2])["result"]["count"] == 5


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_cli_takes_the_qdrant_environment(tmp_path: Path) -> None:
    port = _free_port()
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "QDRANT__SERVICE__HOST": "127.0.0.1",
        "QDRANT__SERVICE__HTTP_PORT": str(port),
        "QDRANT__STORAGE__STORAGE_PATH": str(tmp_path / "storage"),
        "QDRANT__STORAGE__SNAPSHOTS_PATH": str(tmp_path / "snaps"),
        "QDRANT__SERVICE__API_KEY": "env-key",
        "QDRANT__LOG_LEVEL": "WARN",
    }
    proc = subprocess.Popen([sys.executable, "-m", "qdrant_local"], cwd=ROOT, env=env, stderr=subprocess.PIPE)
    try:
        deadline = time.time() + 20
        while True:
            try:
                conn = HTTPConnection("127.0.0.1", port, timeout=2)
                conn.request("GET", "/collections", headers={"api-key": "env-key"})
                r = conn.getresponse()
                break
            except OSError:
                assert time.time() < deadline, "qdrant_local did not start"
                time.sleep(0.1)
        assert r.status == 200
        conn = HTTPConnection("127.0.0.1", port, timeout=2)
        conn.request("GET", "/collections")
        assert conn.getresponse().status == 401
        conn = HTTPConnection("127.0.0.1", port, timeout=2)
        conn.request("PUT", "/collections/e", body=json.dumps({"vectors": {"size": 2, "distance": "Dot"}}), headers={"api-key": "env-key"})
        conn.getresponse().read()
        conn.request("POST", "/collections/e/snapshots", headers={"api-key": "env-key"})
        name = json.loads(conn.getresponse().read())["result"]["name"]
        assert (tmp_path / "snaps" / "e" / name).is_file() and (tmp_path / "storage" / "collections" / "e").is_dir()
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=20)
    assert b"LOCAL STAND-IN" in err and b"API key required" in err
