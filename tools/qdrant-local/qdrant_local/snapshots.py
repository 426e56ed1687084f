"""Collection snapshots: the flushed Edge shard plus meta.json, archived as an uncompressed tar.

Naming and layout follow Qdrant: <snapshots>/<collection>/<collection>-<peer id>-<YYYY-MM-DD-HH-MM-SS>.snapshot
with a sidecar <name>.checksum (sha256 hex). As in Qdrant, a second snapshot of a collection in the
same second gets the same name and replaces the first. Archive members (qdrant-local's own format,
not loadable by a Qdrant server):
  qdrant-local-snapshot.json   manifest (format, collection, created, engine, full sizes)
  collection/meta.json         Qdrant-shaped collection config as requested
  collection/shard/...         the Edge shard directory (segments, WAL, edge_config.json)

Recovery takes what Qdrant's PUT /collections/{name}/snapshots/recover takes: a `location` URL
(file:// inside the snapshots directory, or http(s):// to download, with an optional `api_key`),
`priority` and `checksum`, with Qdrant's refusals (a bare name is not a URL: "relative URL without a
base"). POST .../snapshots/upload stores the uploaded archive in the collection's snapshots
directory and recovers from it, as Qdrant does.
"""

from __future__ import annotations

import datetime as dt
import errno
import hashlib
import http.client
import io
import json
import logging
import os
import re
import shutil
import tarfile
import urllib.error
import urllib.request
import uuid
from http import HTTPStatus
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import qdrant_edge as qe

from .errors import ApiError, BadRequest, Forbidden, NotFound, ServiceError, Unprocessable, WrongInput
from .serde import JsonObject, enum_variant, optional_string, read_object, rust_debug
from .store import Collection, Store, validate_collection_name

log = logging.getLogger("qdrant_local")

FORMAT = "qdrant-local-snapshot/1"
MANIFEST = "qdrant-local-snapshot.json"
PRIORITIES = ("no_sync", "snapshot", "replica")


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def sha256_validation_error(where: str, value: str) -> str | None:
    """Qdrant's validate_sha256_hash, worded as its validator renders it (None when valid)."""
    if len(value) != 64:
        return (
            f"[{where}: Validation error: invalid_sha256_hash "
            f'[{{"value": String({rust_debug(value)}), "length": Number({len(value)}), "expected_length": Number(64)}}]]'
        )
    if not all(ch in "0123456789abcdefABCDEF" for ch in value):
        return f"[{where}: invalid characters, expected 0-9, a-f, A-F]"
    return None


def _data_length(path: Path, size: int) -> int:
    """Length of `path` without trailing zero bytes (holes are skipped via SEEK_DATA/SEEK_HOLE)."""
    if size == 0:
        return 0
    end = size
    fd = os.open(path, os.O_RDONLY)
    try:
        try:
            end, pos = 0, 0
            while pos < size:
                try:
                    start = os.lseek(fd, pos, os.SEEK_DATA)
                except OSError as e:
                    if e.errno == errno.ENXIO:
                        break
                    raise
                pos = os.lseek(fd, start, os.SEEK_HOLE)
                end = pos
        except (OSError, AttributeError):
            end = size
        block = 1 << 16
        while end > 0:
            start = max(0, end - block)
            os.lseek(fd, start, os.SEEK_SET)
            chunk = os.read(fd, end - start)
            stripped = chunk.rstrip(b"\0")
            if stripped:
                return start + len(stripped)
            end = start
        return 0
    finally:
        os.close(fd)


# ---------------------------------------------------------------------------------------------
# Snapshot locations: the subset of the WHATWG URL parsing (Rust's url crate) a location needs.

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")


def _remove_dot_segments(path: str) -> str:
    out: list[str] = []
    segments = path.split("/")
    for i, seg in enumerate(segments):
        last = i == len(segments) - 1
        if seg in (".", "%2e", "%2E"):
            if last:
                out.append("")
            continue
        if seg.lower() in ("..", ".%2e", "%2e.", "%2e%2e"):
            if len(out) > 1:
                out.pop()
            if last:
                out.append("")
            continue
        out.append(seg)
    result = "/".join(out)
    return result if result.startswith("/") else "/" + result


class Location:
    """A parsed `location`: its scheme, the normalised URL text and, for file URLs, the local path."""

    def __init__(self, raw: str) -> None:
        text = raw.strip("\x00\x01\x02\x03\x04\x05\x06\x07\x08\t\n\x0b\x0c\r\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f ")
        text = text.replace("\t", "").replace("\n", "").replace("\r", "")
        m = _SCHEME.match(text)
        if not m:
            raise ValueError("relative URL without a base")
        self.scheme = m.group(1).lower()
        rest = text[m.end() :]
        self.path: str | None = None
        self.host = ""
        if self.scheme == "file":
            rest = rest.replace("\\", "/")
            if rest.startswith("//"):
                authority, _, tail = rest[2:].partition("/")
                self.host = authority.lower()
                path = "/" + tail
            else:
                path = "/" + rest.lstrip("/")
            path = path.split("?", 1)[0].split("#", 1)[0]
            path = _remove_dot_segments(path)
            self.url = f"file://{self.host}{path}"
            # Url::to_file_path: only an empty host or localhost maps onto a local path.
            self.path = unquote(path) if self.host in ("", "localhost") else None
        elif self.scheme in ("http", "https"):
            parts = urlsplit(text)
            if not parts.hostname:
                raise ValueError("empty host")
            self.host = parts.hostname
            self.url = text if parts.path else text + "/"
        else:
            self.url = text


def _location_field(obj: JsonObject) -> Location:
    v = obj.values["location"]
    if not isinstance(v, str):
        raise obj.fail(f"invalid type: {_unexpected(v)}, expected a string representing an URL", "location")
    try:
        return Location(v)
    except ValueError as e:
        raise obj.fail(f"{e}: {rust_debug(v)}", "location") from None


def _unexpected(v: Any) -> str:
    from .serde import unexpected

    return unexpected(v)


class Snapshots:
    def __init__(self, store: Store) -> None:
        self.store = store

    def dir_for(self, collection: str) -> Path:
        """Qdrant's <snapshots>/<collection>; collection names are validated, so the name is the directory."""
        return self.store.snapshots_dir / collection

    @staticmethod
    def _describe(path: Path) -> dict[str, Any]:
        st = path.stat()
        checksum_file = path.with_name(path.name + ".checksum")
        created = dt.datetime.fromtimestamp(int(st.st_mtime), tz=dt.timezone.utc).replace(tzinfo=None)
        out: dict[str, Any] = {"name": path.name, "creation_time": created.isoformat(timespec="seconds"), "size": st.st_size}
        if checksum_file.is_file():
            out["checksum"] = checksum_file.read_text().strip()
        return out

    # ------------------------------------------------------------------ create / list / get / delete

    def list(self, collection: str) -> list[dict[str, Any]]:
        real = self.store.get(collection).name  # 404 for unknown collections; an alias lists its collection's
        d = self.dir_for(real)
        if not d.is_dir():
            return []
        files = sorted(p for p in d.iterdir() if p.is_file() and p.suffix == ".snapshot")
        return [self._describe(p) for p in files]

    def create(self, collection: str) -> dict[str, Any]:
        def run(c: Collection) -> dict[str, Any]:
            d = self.dir_for(c.name)
            d.mkdir(parents=True, exist_ok=True)
            c.shard.flush()
            c.dirty = False
            now = dt.datetime.now(dt.timezone.utc)
            # Qdrant's name; a second snapshot in the same second replaces the first, as in Qdrant.
            name = f"{c.name}-{self.store.peer_id}-{now.strftime('%Y-%m-%d-%H-%M-%S')}.snapshot"
            final = d / name
            tmp = self.store.tmp_dir / f"{name}.{uuid.uuid4().hex}.partial"
            manifest: dict[str, Any] = {
                "format": FORMAT,
                "collection": c.name,
                "created": now.isoformat(),
                "engine": "qdrant-edge-py",
                "note": "qdrant-local snapshot (Qdrant Edge shard), not a Qdrant server snapshot",
            }
            with tarfile.open(tmp, "w", format=tarfile.PAX_FORMAT) as tar:
                # Edge preallocates sparse files (WAL segments, mmap chunks): store each file without its
                # trailing zeros and record the full length, so archives stay small and recovery
                # re-extends the files sparsely.
                full_sizes: dict[str, int] = {}
                entries: list[tuple[Path, str, int]] = []
                for root, dirs, files in os.walk(c.path / "shard"):
                    dirs.sort()
                    for fname in sorted(files):
                        fp = Path(root) / fname
                        arc = "collection/" + fp.relative_to(c.path).as_posix()
                        size = fp.stat().st_size
                        stored = _data_length(fp, size)
                        if stored != size:
                            full_sizes[arc] = size
                        entries.append((fp, arc, stored))
                manifest["full_sizes"] = full_sizes
                data = json.dumps(manifest, indent=2).encode()
                info = tarfile.TarInfo(MANIFEST)
                info.size = len(data)
                info.mtime = int(now.timestamp())
                tar.addfile(info, io.BytesIO(data))
                tar.add(c.path / "meta.json", arcname="collection/meta.json")
                for fp, arc, stored in entries:
                    info = tar.gettarinfo(str(fp), arcname=arc)
                    info.size = stored
                    with fp.open("rb") as f:
                        tar.addfile(info, f)
            checksum = sha256_file(tmp)
            # Like Qdrant: the checksum file first, then the archive moved into place.
            final.with_name(final.name + ".checksum").write_text(checksum)
            os.replace(tmp, final)
            return self._describe(final)

        # A read lock is enough: it excludes writers, so the flushed files stay still while archived.
        return self.store.read(collection, run)

    def path(self, collection: str, name: str) -> Path:
        """Qdrant's SnapshotStorageLocalFS::get_snapshot_path, with its 404s."""
        real = self.store.get(collection).name
        d = self.dir_for(real)
        try:
            root = d.resolve(strict=True)
        except OSError:
            raise NotFound(f"Snapshot directory: {d} not found") from None
        try:
            p = (root / name).resolve(strict=True)
        except (OSError, RuntimeError):
            raise NotFound(f"Snapshot {name} not found") from None
        if root not in p.parents or not p.is_file():
            raise NotFound(f"Snapshot {name} not found")
        return p

    def delete(self, collection: str, name: str) -> bool:
        p = self.path(collection, name)
        p.unlink()
        p.with_name(p.name + ".checksum").unlink(missing_ok=True)
        return True

    # ------------------------------------------------------------------ recover

    def parse_recover(self, body: bytes) -> dict[str, Any]:
        """The SnapshotRecover body, with serde's errors and positions; then Qdrant's validation (422)."""
        obj = read_object(body)
        out: dict[str, Any] = {}
        for key in obj.values:  # serde reads the fields in document order
            if key == "location":
                out["location"] = _location_field(obj)
            elif key == "priority":
                out["priority"] = enum_variant(obj, "priority", PRIORITIES)
            elif key in ("checksum", "api_key"):
                out[key] = optional_string(obj, key)
        if "location" not in out:
            raise obj.fail("missing field `location`")
        if out.get("checksum") is not None:
            problem = sha256_validation_error("checksum", out["checksum"])
            if problem:
                raise Unprocessable(f"Validation error in JSON body: {problem}")
        return out

    def recover(self, collection: str, body: bytes) -> bool:
        validate_collection_name(collection)
        req = self.parse_recover(body)
        return self.recover_from(collection, req["location"], req.get("checksum"), req.get("api_key"))

    def recover_from(self, collection: str, location: Location, checksum: str | None, api_key: str | None) -> bool:
        work = self.store.tmp_dir / f"recover-{uuid.uuid4().hex}"
        work.mkdir(parents=True)
        try:
            if location.scheme == "file":
                src = self._local_file(location)
            elif location.scheme in ("http", "https"):
                src = self._download(location, api_key, work / "download.snapshot")
            else:
                raise BadRequest(f"URL {location.url} with scheme {location.scheme} is not supported")
            if checksum is not None:
                actual = sha256_file(src)
                if actual.lower() != checksum.lower():
                    raise WrongInput(f"Snapshot checksum mismatch: expected {checksum}, got {actual}")
            self._restore(collection, src, work)
            return True
        finally:
            shutil.rmtree(work, ignore_errors=True)

    def _local_file(self, location: Location) -> Path:
        """Qdrant's download_snapshot for file:// URLs: absolute, existing, inside the snapshots directory."""
        if location.path is None:
            raise BadRequest("Invalid snapshot URI, file path must be absolute or on localhost")
        path = Path(location.path)
        if not path.exists():
            raise BadRequest(f"Snapshot file {rust_debug(str(path))} does not exist")
        try:
            canonical = path.resolve(strict=True)
        except OSError as e:
            raise BadRequest(f"Failed to resolve snapshot path {rust_debug(str(path))}: {e}") from None
        root = self.store.snapshots_dir.resolve()
        if canonical != root and root not in canonical.parents:
            raise Forbidden(f"Snapshot file path must be inside the snapshots directory {rust_debug(str(root))}")
        return canonical

    def _download(self, location: Location, api_key: str | None, target: Path) -> Path:
        headers = {"api-key": api_key} if api_key else {}
        request = urllib.request.Request(location.url, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=600) as response, target.open("wb") as out:  # noqa: S310 - http(s) only
                shutil.copyfileobj(response, out, 1 << 20)
        except urllib.error.HTTPError as e:
            phrase = HTTPStatus(e.code).phrase if e.code in HTTPStatus._value2member_map_ else ""
            raise WrongInput(f"Failed to download tar from {location.url}: status - {e.code} {phrase}".rstrip()) from None
        except (urllib.error.URLError, OSError, http.client.HTTPException):
            raise ServiceError(f"Http request error: error sending request for url ({location.url})") from None
        return target

    def _restore(self, collection: str, src: Path, work: Path) -> None:
        try:
            with tarfile.open(src, "r") as tar:
                members = tar.getmembers()
                for m in members:
                    if m.name.startswith("/") or ".." in Path(m.name).parts or not (m.isfile() or m.isdir()):
                        raise ServiceError(f"File IO error: unsafe or unsupported entry in snapshot: {m.name}")
                tar.extractall(work / "x", members=members, filter="data")
        except (tarfile.TarError, OSError) as e:
            raise ServiceError(f"File IO error: not a qdrant-local snapshot archive: {e}") from None
        root = work / "x"
        try:
            manifest = json.loads((root / MANIFEST).read_text())
            meta = json.loads((root / "collection" / "meta.json").read_text())
        except (OSError, ValueError):
            raise ServiceError("File IO error: not a qdrant-local snapshot archive (manifest or meta.json missing)") from None
        if manifest.get("format") != FORMAT:
            raise ServiceError(f"File IO error: unknown snapshot format {manifest.get('format')!r}")
        prepared = root / "collection"
        full_sizes = manifest.get("full_sizes") or {}
        if not isinstance(full_sizes, dict):
            raise ServiceError("File IO error: corrupt snapshot manifest (full_sizes)")
        for arc, size in full_sizes.items():
            fp = (root / arc).resolve()
            if root.resolve() not in fp.parents or not fp.is_file() or not isinstance(size, int) or size < fp.stat().st_size:
                raise ServiceError(f"File IO error: corrupt snapshot manifest entry {arc!r}")
            os.truncate(fp, size)
        try:
            probe = qe.EdgeShard.load(str(prepared / "shard"))
            probe.close()
        except Exception as e:  # noqa: BLE001
            raise ServiceError(f"snapshot shard does not load: {e}") from None
        # An alias recovers its collection; an unknown name gets a new collection (as Qdrant).
        target = self.store.resolve(collection)
        if self.store.exists(target):
            current = self.store.get(target).vectors
            if current != meta.get("vectors"):
                raise WrongInput(
                    "Snapshot is not compatible with existing collection: "
                    f"Collection vectors: {_vectors_debug(current)} Snapshot Vectors: {_vectors_debug(meta.get('vectors'))}"
                )
        self.store.install(target, prepared, meta)

    # ------------------------------------------------------------------ upload

    def save_upload(self, collection: str, upload: Path, filename: str | None) -> Location:
        """Qdrant's do_save_uploaded_snapshot: the archive goes into <snapshots>/<name as given>/ and stays."""
        base = Path(filename).name if filename else ""
        if not base or base in (".", ".."):
            base = str(uuid.uuid4())
        d = self.dir_for(collection)
        d.mkdir(parents=True, exist_ok=True)
        target = d / base
        shutil.move(str(upload), target)
        return Location(target.resolve().as_uri())

    def recover_upload(self, collection: str, upload: Path, filename: str | None, checksum: str | None) -> bool:
        validate_collection_name(collection)
        if checksum is not None:
            actual = sha256_file(upload)
            if actual.lower() != checksum.lower():
                # Qdrant's StorageError::checksum_mismatch(computed, given): "expected" is what it computed.
                raise ApiError(f"Checksum mismatch: expected {actual}, actual {checksum}", 400)
        location = self.save_upload(collection, upload, filename)
        return self.recover_from(collection, location, None, None)


def _vectors_debug(v: Any) -> str:
    """Rust's Debug of a VectorsConfig, close enough to read: Single(VectorParams { size: 4, distance: Cosine, .. })."""

    def params(p: Any) -> str:
        if not isinstance(p, dict):
            return repr(p)
        on_disk = p.get("on_disk")
        return (
            f"VectorParams {{ size: {p.get('size')}, distance: {p.get('distance')}, hnsw_config: None, "
            f"quantization_config: None, on_disk: {'None' if on_disk is None else f'Some({str(on_disk).lower()})'}, "
            "datatype: None, multivector_config: None }"
        )

    if isinstance(v, dict) and "size" in v:
        return f"Single({params(v)})"
    if isinstance(v, dict):
        return "Multi({" + ", ".join(f"{json.dumps(k)}: {params(p)}" for k, p in sorted(v.items())) + "})"
    return repr(v)
