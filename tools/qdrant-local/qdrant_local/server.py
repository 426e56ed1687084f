"""HTTP layer: the subset of Qdrant's REST API that RAG Immune uses, over Qdrant Edge.

qdrant-local is a LOCAL STAND-IN (Qdrant Edge engine in-process), not a Qdrant server.
Responses use Qdrant's envelope: {"result": ..., "status": "ok", "time": seconds};
errors: {"status": {"error": message}, "time": seconds} with a 4xx/5xx status.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
import traceback
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable
from urllib.parse import parse_qs, unquote, urlsplit

from . import __version__
from .errors import ApiError, BadRequest, NotFound
from .snapshots import Snapshots
from .store import Store

log = logging.getLogger("qdrant_local")

TITLE = "qdrant-local (Qdrant Edge stand-in, not a Qdrant server)"
# Reported Qdrant API version: the REST subset follows Qdrant 1.18 and @qdrant/js-client-rest 1.18
# accepts servers whose minor version differs by at most one.
QDRANT_API_VERSION = "1.18.0"
MAX_BODY = 256 * 1024 * 1024

Handler = Callable[["Request"], Any]


class Request:
    def __init__(self, method: str, path_params: dict[str, str], query: dict[str, str], body: bytes) -> None:
        self.method = method
        self.params = path_params
        self.query = query
        self._body = body

    def json(self, required: bool = True) -> dict[str, Any]:
        if not self._body.strip():
            if required:
                raise BadRequest("Format error in JSON body: request body is empty; a JSON object is required")
            return {}
        try:
            v = json.loads(self._body)
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
        raise BadRequest(f"Query deserialize error: {name}: expected true or false, got {v!r}")


class FileResponse:
    def __init__(self, path: Any, content_type: str = "application/octet-stream") -> None:
        self.path = path
        self.content_type = content_type


class App:
    def __init__(self, store: Store) -> None:
        self.store = store
        self.snapshots = Snapshots(store)
        self.routes: list[tuple[str, re.Pattern[str], Handler]] = []
        self._register()

    def route(self, method: str, pattern: str, fn: Handler) -> None:
        rx = "^" + re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", pattern) + "$"
        self.routes.append((method, re.compile(rx), fn))

    def _register(self) -> None:
        s, snaps = self.store, self.snapshots
        C = "/collections/{collection_name}"

        def update_result(r: Request, op_id: int) -> dict[str, Any]:
            return {"operation_id": op_id, "status": "completed" if r.flag("wait", False) else "acknowledged"}

        def name(r: Request) -> str:
            return r.params["collection_name"]

        # Like Qdrant, the root answers a bare VersionInfo object (no result envelope).
        self.route("GET", "/", lambda r: _Raw({"title": TITLE, "version": QDRANT_API_VERSION, "commit": None, "qdrant_local_version": __version__}))
        for p in ("/healthz", "/livez", "/readyz"):
            self.route("GET", p, lambda r: _Text("healthz check passed"))
        self.route("GET", "/collections", lambda r: {"collections": [{"name": n} for n in s.names()]})
        self.route("GET", C, lambda r: s.info(name(r)))
        self.route("PUT", C, lambda r: (s.create(name(r), r.json()), True)[1])
        self.route("DELETE", C, lambda r: s.delete(name(r)))
        self.route("GET", C + "/exists", lambda r: {"exists": s.exists(name(r))})
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
        self.route("POST", C + "/snapshots", lambda r: snaps.create(name(r)))
        self.route("PUT", C + "/snapshots/recover", lambda r: snaps.recover(name(r), r.json()))
        self.route("GET", C + "/snapshots/{snapshot_name}", lambda r: FileResponse(snaps.path(name(r), r.params["snapshot_name"])))
        self.route("DELETE", C + "/snapshots/{snapshot_name}", lambda r: snaps.delete(name(r), r.params["snapshot_name"]))

    def dispatch(self, method: str, raw_path: str, body: bytes) -> tuple[int, Any]:
        parts = urlsplit(raw_path)
        path = parts.path.rstrip("/") or "/"
        query = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        allowed: list[str] = []
        for m, rx, fn in self.routes:
            match = rx.match(path)
            if not match:
                continue
            if m != method:
                allowed.append(m)
                continue
            params = {k: unquote(v) for k, v in match.groupdict().items()}
            return 200, fn(Request(method, params, query, body))
        if allowed:
            raise ApiError(f"Method {method} not allowed for {path} (allowed: {', '.join(sorted(set(allowed)))})", 405)
        raise NotFound(f"{method} {path} is not part of the Qdrant API subset served by qdrant-local")


class _Text(str):
    pass


class _Raw(dict):  # type: ignore[type-arg]
    """A JSON body sent as-is, without the {"result": ...} envelope."""


def make_handler(app: App) -> type[BaseHTTPRequestHandler]:
    class QdrantHandler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "qdrant-local"
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            log.debug("%s %s", self.address_string(), format % args)

        def _read_body(self) -> bytes:
            if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
                chunks, total = [], 0
                while True:
                    line = self.rfile.readline(65537)
                    size = int(line.split(b";")[0].strip() or b"0", 16)
                    if size == 0:
                        while self.rfile.readline(65537) not in (b"\r\n", b"\n", b""):
                            pass
                        return b"".join(chunks)
                    total += size
                    if total > MAX_BODY:
                        raise ApiError("Payload too large", 413)
                    chunks.append(self.rfile.read(size))
                    self.rfile.readline(3)
            length = int(self.headers.get("Content-Length") or 0)
            if length < 0 or length > MAX_BODY:
                raise ApiError("Payload too large", 413)
            return self.rfile.read(length) if length else b""

        def _send(self, status: int, payload: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(payload)

        def _handle(self) -> None:
            started = time.perf_counter()
            try:
                body = self._read_body()
                status, result = app.dispatch(self.command, self.path, body)
            except ApiError as e:
                status, result = e.status, e
            except Exception as e:  # noqa: BLE001 - never let a request kill the server
                log.error("internal error on %s %s: %s\n%s", self.command, self.path, e, traceback.format_exc())
                status, result = 500, ApiError(f"Service internal error: {e}", 500)
            elapsed = time.perf_counter() - started
            if isinstance(result, ApiError):
                self.close_connection = self.close_connection or status >= 500
                data = json.dumps({"status": {"error": result.message}, "time": elapsed}).encode()
                self._send(status, data, "application/json")
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

        do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _handle

    return QdrantHandler


class Server:
    def __init__(self, host: str, port: int, store: Store, flush_interval_s: float = 5.0) -> None:
        self.store = store
        self.app = App(store)
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
