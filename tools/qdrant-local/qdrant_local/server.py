"""HTTP layer: the subset of Qdrant's REST API that RAG Immune uses, over Qdrant Edge.

qdrant-local is a LOCAL STAND-IN (Qdrant Edge engine in-process), not a Qdrant server.
Responses use Qdrant's envelope: {"result": ..., "status": "ok", "time": seconds};
errors: {"status": {"error": message}, "time": seconds} with a 4xx/5xx status. Where Qdrant 1.18
answers otherwise (auth refusals and snapshot download errors in plain text, unknown routes as an
empty 404, wait=false snapshot operations as 202 {"status": "accepted"}), so does this server;
tools/stack/test/integration/qdrant-contract.test.ts holds the two side by side.
"""

from __future__ import annotations

import hmac
import json
import logging
import re
import threading
import time
import traceback
import uuid
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, BinaryIO, Callable
from urllib.parse import parse_qs, unquote, urlsplit

from .errors import ApiError, BadRequest, NotFound, PlainError, Unprocessable
from .multipart import MultipartError, boundary_of, read_parts
from .snapshots import PRIORITIES, Snapshots, sha256_validation_error
from .store import Store

log = logging.getLogger("qdrant_local")

TITLE = "qdrant-local (Qdrant Edge stand-in, not a Qdrant server)"
# Reported Qdrant API version: the REST subset follows Qdrant 1.18 and @qdrant/js-client-rest 1.18
# accepts servers whose minor version differs by at most one.
QDRANT_API_VERSION = "1.18.0"
MAX_BODY = 256 * 1024 * 1024
# Qdrant lets these through without a key (src/actix/mod.rs: exact "/" and "/healthz", prefix "/readyz", "/livez").
AUTH_WHITELIST = ("/", "/healthz", "/readyz", "/livez")

Handler = Callable[["Request"], Any]


class BodyReader:
    """Reads a request body (Content-Length or chunked) incrementally."""

    def __init__(self, rfile: BinaryIO, headers: Any) -> None:
        self.rfile = rfile
        self.chunked = "chunked" in (headers.get("Transfer-Encoding") or "").lower()
        self.remaining = 0 if self.chunked else max(0, int(headers.get("Content-Length") or 0))
        self._chunk_left = 0
        self._done = False

    def read(self, n: int) -> bytes:
        if self._done:
            return b""
        if not self.chunked:
            if self.remaining <= 0:
                self._done = True
                return b""
            data = self.rfile.read(min(n, self.remaining))
            if not data:
                self._done = True
                return b""
            self.remaining -= len(data)
            return data
        if self._chunk_left == 0:
            line = self.rfile.readline(65537)
            size = int(line.split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while self.rfile.readline(65537) not in (b"\r\n", b"\n", b""):
                    pass
                self._done = True
                return b""
            self._chunk_left = size
        data = self.rfile.read(min(n, self._chunk_left))
        self._chunk_left -= len(data)
        if self._chunk_left == 0:
            self.rfile.readline(3)
        return data

    def read_all(self, limit: int = MAX_BODY) -> bytes:
        chunks, total = [], 0
        while chunk := self.read(1 << 20):
            total += len(chunk)
            if total > limit:
                raise ApiError("Payload too large", 413)
            chunks.append(chunk)
        return b"".join(chunks)

    def drain(self) -> None:
        while self.read(1 << 20):
            pass


class Request:
    def __init__(self, method: str, path_params: dict[str, str], query: dict[str, str], body: BodyReader, headers: Any) -> None:
        self.method = method
        self.params = path_params
        self.query = query
        self.reader = body
        self.headers = headers
        self._body: bytes | None = None

    @property
    def body(self) -> bytes:
        if self._body is None:
            self._body = self.reader.read_all()
        return self._body

    def json(self, required: bool = True) -> dict[str, Any]:
        body = self.body
        if not body.strip():
            if required:
                raise BadRequest("Format error in JSON body: EOF while parsing a value at line 1 column 0")
            return {}
        try:
            v = json.loads(body)
        except (ValueError, UnicodeDecodeError) as e:
            raise BadRequest(f"Format error in JSON body: {e}") from None
        if not isinstance(v, dict):
            raise BadRequest("Format error in JSON body: expected a JSON object")
        return v

    def flag(self, name: str, default: bool = False) -> bool:
        v = self.query.get(name)
        if v is None:
            return default
        if v in ("true", "false"):
            return v == "true"
        raise BadRequest(f"Deserialize error in query parameters: {name}: provided string was not `true` or `false`")


class FileResponse:
    def __init__(self, path: Path, content_type: str = "application/octet-stream") -> None:
        self.path = path
        self.content_type = content_type


@dataclass
class Accepted:
    """Qdrant's answer to wait=false on snapshot operations: 202 {"status": "accepted"} (no result)."""


class _Text(str):
    pass


class _Raw(dict):  # type: ignore[type-arg]
    """A JSON body sent as-is, without the {"result": ...} envelope."""


def _in_background(name: str, fn: Callable[[], Any]) -> Accepted:
    def run() -> None:
        try:
            fn()
        except ApiError as e:
            log.warning("background %s failed: %s", name, e.message)
        except Exception:  # noqa: BLE001
            log.error("background %s failed:\n%s", name, traceback.format_exc())

    threading.Thread(target=run, daemon=True, name=f"bg-{name}").start()
    return Accepted()


def _parse_alias_actions(body: dict[str, Any]) -> list[dict[str, Any]]:
    actions = body.get("actions")
    if not isinstance(actions, list):
        raise BadRequest("Format error in JSON body: missing field `actions`" if actions is None else "Format error in JSON body: invalid type: expected a sequence")
    shapes = {
        "create_alias": ("collection_name", "alias_name"),
        "delete_alias": ("alias_name",),
        "rename_alias": ("old_alias_name", "new_alias_name"),
    }
    for a in actions:
        ok = isinstance(a, dict) and len(a) == 1
        if ok:
            kind, args = next(iter(a.items()))
            ok = kind in shapes and isinstance(args, dict) and all(isinstance(args.get(k), str) for k in shapes[kind])
        if not ok:
            raise BadRequest("Format error in JSON body: data did not match any variant of untagged enum AliasOperations")
    return actions


class App:
    def __init__(self, store: Store, api_key: str | None = None) -> None:
        self.store = store
        self.api_key = api_key or None
        self.snapshots = Snapshots(store)
        self.routes: list[tuple[str, re.Pattern[str], Handler, str]] = []
        self._register()

    def route(self, method: str, pattern: str, fn: Handler) -> None:
        rx = "^" + re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", pattern) + "$"
        self.routes.append((method, re.compile(rx), fn, pattern))

    def _register(self) -> None:
        s, snaps = self.store, self.snapshots
        C = "/collections/{collection_name}"

        def update_result(r: Request, op_id: int) -> dict[str, Any]:
            return {"operation_id": op_id, "status": "completed" if r.flag("wait", False) else "acknowledged"}

        def name(r: Request) -> str:
            return r.params["collection_name"]

        def snapshot_op(r: Request, what: str, fn: Callable[[], Any]) -> Any:
            # Snapshot operations wait by default; wait=false answers 202 at once and runs in the background.
            if r.flag("wait", True):
                return fn()
            return _in_background(what, fn)

        # Like Qdrant, the root answers a bare VersionInfo object (no result envelope).
        self.route("GET", "/", lambda r: _Raw({"title": TITLE, "version": QDRANT_API_VERSION, "commit": None}))
        self.route("GET", "/healthz", lambda r: _Text("healthz check passed"))
        self.route("GET", "/livez", lambda r: _Text("healthz check passed"))
        self.route("GET", "/readyz", lambda r: _Text("all shards are ready"))
        self.route("GET", "/collections", lambda r: {"collections": [{"name": n} for n in s.names()]})
        self.route("POST", "/collections/aliases", lambda r: s.update_aliases(_parse_alias_actions(r.json())))
        self.route("GET", "/aliases", lambda r: s.list_aliases())
        self.route("GET", C, lambda r: s.info(name(r)))
        self.route("PUT", C, lambda r: (s.create(name(r), r.json()), True)[1])
        self.route("DELETE", C, lambda r: s.delete(name(r)))
        self.route("GET", C + "/exists", lambda r: {"exists": s.exists(name(r))})
        self.route("GET", C + "/aliases", lambda r: s.collection_aliases(name(r)))
        self.route("PUT", C + "/index", lambda r: update_result(r, s.create_index(name(r), r.json())))
        self.route("DELETE", C + "/index/{field_name}", lambda r: update_result(r, s.delete_index(name(r), r.params["field_name"])))
        self.route("PUT", C + "/points", lambda r: update_result(r, s.upsert(name(r), r.json())))
        self.route("POST", C + "/points", lambda r: s.retrieve(name(r), r.json()))
        self.route("GET", C + "/points/{id}", lambda r: s.get_point(name(r), r.params["id"]))
        self.route("POST", C + "/points/delete", lambda r: update_result(r, s.delete_points(name(r), r.json())))
        self.route("POST", C + "/points/payload", lambda r: update_result(r, s.payload_op(name(r), "set", r.json())))
        self.route("PUT", C + "/points/payload", lambda r: update_result(r, s.payload_op(name(r), "overwrite", r.json())))
        self.route("POST", C + "/points/payload/delete", lambda r: update_result(r, s.payload_op(name(r), "delete", r.json())))
        self.route("POST", C + "/points/payload/clear", lambda r: update_result(r, s.payload_op(name(r), "clear", r.json())))
        self.route("POST", C + "/points/query", lambda r: s.query(name(r), r.json(required=False)))
        self.route("POST", C + "/points/search", lambda r: s.search(name(r), r.json()))
        self.route("POST", C + "/points/scroll", lambda r: s.scroll(name(r), r.json(required=False)))
        self.route("POST", C + "/points/count", lambda r: s.count(name(r), r.json(required=False)))
        self.route("GET", C + "/snapshots", lambda r: snaps.list(name(r)))
        self.route("POST", C + "/snapshots", lambda r: snapshot_op(r, "snapshot", lambda: snaps.create(name(r))))
        self.route("POST", C + "/snapshots/upload", self._upload)
        self.route("PUT", C + "/snapshots/recover", lambda r: self._recover(r, snapshot_op))
        self.route("GET", C + "/snapshots/{snapshot_name}", self._download)
        self.route(
            "DELETE",
            C + "/snapshots/{snapshot_name}",
            lambda r: snapshot_op(r, "snapshot delete", lambda: snaps.delete(name(r), r.params["snapshot_name"])),
        )

    def _recover(self, r: Request, snapshot_op: Callable[[Request, str, Callable[[], Any]], Any]) -> Any:
        # The body is read (and refused) before anything else, as Qdrant's extractors do.
        req = self.snapshots.parse_recover(r.body)
        collection = r.params["collection_name"]
        return snapshot_op(
            r, "recover", lambda: self.snapshots.recover_from(collection, req["location"], req.get("checksum"), req.get("api_key"))
        )

    def _download(self, r: Request) -> FileResponse:
        # Qdrant answers download errors in plain text, not in the JSON envelope.
        try:
            return FileResponse(self.snapshots.path(r.params["collection_name"], r.params["snapshot_name"]))
        except ApiError as e:
            raise PlainError(e.status, e.message) from None

    def _upload(self, r: Request) -> Any:
        # Qdrant's extractors run side by side and the first to fail answers: the multipart reader
        # refuses another content type or an empty body at once, else the query is refused before
        # the body is read (a refusal does not spool gigabytes), else the form is read.
        boundary = boundary_of(r.headers.get("Content-Type"))
        if boundary is None:
            raise PlainError(415, "ContentTypeIncompatible")
        if not r.reader.chunked and r.reader.remaining == 0:
            raise PlainError(400, "Multipart stream is incomplete")
        priority = r.query.get("priority")
        if priority is not None and priority not in PRIORITIES:
            expected = ", ".join(f"`{x}`" for x in PRIORITIES)
            raise BadRequest(f"Deserialize error in query parameters: unknown variant `{priority}`, expected one of {expected}")
        checksum = r.query.get("checksum")
        if checksum is not None:
            problem = sha256_validation_error("checksum", checksum)
            if problem:
                raise Unprocessable(f"Validation error in query parameters: {problem}")
        wait = r.flag("wait", True)
        spool = self.store.tmp_dir / f"upload-{uuid.uuid4().hex}"
        spool.mkdir(parents=True)
        try:
            try:
                parts = read_parts(r.reader.read, boundary, spool)
            except MultipartError as e:
                log.info("upload: %s", e)
                raise PlainError(400, "Multipart stream is incomplete") from None
            snapshot = next((p for p in parts if p.name == "snapshot"), None)
            if snapshot is None:
                raise PlainError(400, "Required field is missing: snapshot")
            collection = r.params["collection_name"]
            # The archive leaves the spool (removed below) before the recovery, which may run in the background.
            kept = self.store.tmp_dir / f"upload-{uuid.uuid4().hex}.snapshot"
            snapshot.path.rename(kept)

            def recover() -> bool:
                try:
                    return self.snapshots.recover_upload(collection, kept, snapshot.filename, checksum)
                finally:
                    kept.unlink(missing_ok=True)

            return recover() if wait else _in_background("upload recover", recover)
        finally:
            for p in spool.iterdir():
                p.unlink(missing_ok=True)
            spool.rmdir()

    def authorised(self, headers: Any) -> str | None:
        """None when the request may pass; else Qdrant's 401 text."""
        if self.api_key is None:
            return None
        key = headers.get("api-key")
        if key is None:
            auth = headers.get("authorization") or ""
            key = auth[len("Bearer ") :] if auth.startswith("Bearer ") else None
        if key is None:
            return "Must provide an API key or an Authorization bearer token"
        if hmac.compare_digest(key.encode(), self.api_key.encode()):
            return None
        return "Invalid API key or JWT"

    def dispatch(self, method: str, raw_path: str, body: BodyReader, headers: Any) -> tuple[int, Any]:
        parts = urlsplit(raw_path)
        path = parts.path.rstrip("/") or "/"
        query = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        found: tuple[Handler, dict[str, str]] | None = None
        whitelisted = False
        for m, rx, fn, pattern in self.routes:
            match = rx.match(path)
            if match and m == method:
                found = (fn, {k: unquote(v) for k, v in match.groupdict().items()})
                whitelisted = pattern in AUTH_WHITELIST
                break
        if not whitelisted:
            refusal = self.authorised(headers)
            if refusal is not None:
                raise PlainError(401, refusal, content_type=None)
        if found is None:
            log.info("%s %s: not a route Qdrant or qdrant-local serves here (404)", method, path)
            raise PlainError(404, "", content_type=None)
        fn, params = found
        return 200, fn(Request(method, params, query, body, headers))


def make_handler(app: App) -> type[BaseHTTPRequestHandler]:
    class QdrantHandler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "qdrant-local"
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            log.debug("%s %s", self.address_string(), format % args)

        def _send(self, status: int, payload: bytes, content_type: str | None) -> None:
            self.send_response(status)
            if content_type:
                self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(payload)

        def _handle(self) -> None:
            started = time.perf_counter()
            reader = BodyReader(self.rfile, self.headers)
            try:
                status, result = app.dispatch(self.command, self.path, reader, self.headers)
            except ApiError as e:
                status, result = e.status, e
            except Exception as e:  # noqa: BLE001 - never let a request kill the server
                log.error("internal error on %s %s: %s\n%s", self.command, self.path, e, traceback.format_exc())
                status, result = 500, ApiError(f"Service internal error: {e}", 500)
            # Whatever the handler left unread must go, or the next request on this connection breaks;
            # a refused large body is not worth reading: close the connection instead.
            if not reader._done:
                if reader.chunked or reader.remaining > (1 << 20):
                    self.close_connection = True
                else:
                    reader.drain()
            elapsed = time.perf_counter() - started
            if isinstance(result, PlainError):
                self._send(status, result.message.encode(), result.content_type)
            elif isinstance(result, ApiError):
                self.close_connection = self.close_connection or status >= 500
                data = json.dumps({"status": {"error": result.message}, "time": elapsed}).encode()
                self._send(status, data, "application/json")
            elif isinstance(result, Accepted):
                self._send(202, json.dumps({"status": "accepted", "time": elapsed}).encode(), "application/json")
            elif isinstance(result, FileResponse):
                size = result.path.stat().st_size
                self.send_response(200)
                self.send_header("Content-Type", result.content_type)
                self.send_header("Content-Length", str(size))
                self.send_header("Content-Disposition", f'attachment; filename="{result.path.name}"')
                self.end_headers()
                with result.path.open("rb") as f:
                    while chunk := f.read(1 << 20):
                        self.wfile.write(chunk)
            elif isinstance(result, _Raw):
                self._send(200, json.dumps(dict(result)).encode(), "application/json")
            elif isinstance(result, _Text):
                self._send(200, str(result).encode(), "text/plain; charset=utf-8")
            else:
                data = json.dumps({"result": result, "status": "ok", "time": elapsed}, allow_nan=False).encode()
                self._send(status, data, "application/json")

        do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = _handle

    return QdrantHandler


class Server:
    def __init__(self, host: str, port: int, store: Store, flush_interval_s: float = 5.0, api_key: str | None = None) -> None:
        self.store = store
        self.app = App(store, api_key)
        ThreadingHTTPServer.allow_reuse_address = True
        self.httpd = ThreadingHTTPServer((host, port), make_handler(self.app))
        self.httpd.daemon_threads = True
        self._stop = threading.Event()
        self._flusher = threading.Thread(target=self._flush_loop, args=(flush_interval_s,), daemon=True, name="flusher")

    @property
    def port(self) -> int:
        return self.httpd.server_address[1]

    def _flush_loop(self, interval: float) -> None:
        while not self._stop.wait(interval):
            try:
                self.store.flush_dirty()
            except Exception as e:  # noqa: BLE001
                log.error("periodic flush failed: %s", e)

    def serve_forever(self) -> None:
        self._flusher.start()
        self.httpd.serve_forever(poll_interval=0.2)

    def shutdown(self) -> None:
        self._stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.store.close()
