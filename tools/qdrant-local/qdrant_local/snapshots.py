"""Collection snapshots: the flushed Edge shard plus meta.json, archived as an uncompressed tar.

Layout: <data>/snapshots/<collection>/<name>.snapshot with a sidecar <name>.snapshot.checksum
(sha256 hex), mirroring Qdrant's snapshot directory. Archive members:
  qdrant-local-snapshot.json   manifest (format, collection, created, engine)
  collection/meta.json         Qdrant-shaped collection config as requested
  collection/shard/...         the Edge shard directory (segments, WAL, edge_config.json)
Recovery extracts into a temp dir, checks the shard opens, then swaps it in for the collection.
"""

from __future__ import annotations

import datetime as dt
import errno
import io
import hashlib
import json
import os
import shutil
import tarfile
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import qdrant_edge as qe

from .errors import BadRequest, NotFound, Unsupported
from .store import Collection, Store, safe_dir_name

FORMAT = "qdrant-local-snapshot/1"
MANIFEST = "qdrant-local-snapshot.json"


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


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


def _dir_name(collection: str) -> str:
    return safe_dir_name(collection)


class Snapshots:
    def __init__(self, store: Store) -> None:
        self.store = store

    def dir_for(self, collection: str) -> Path:
        return self.store.snapshots_dir / _dir_name(collection)

    @staticmethod
    def _describe(path: Path) -> dict[str, Any]:
        st = path.stat()
        checksum_file = path.with_name(path.name + ".checksum")
        checksum = checksum_file.read_text().strip() if checksum_file.is_file() else None
        created = dt.datetime.fromtimestamp(st.st_mtime, tz=dt.timezone.utc).replace(tzinfo=None)
        return {
            "name": path.name,
            "creation_time": created.isoformat(timespec="seconds"),
            "size": st.st_size,
            "checksum": checksum,
        }

    def list(self, collection: str) -> list[dict[str, Any]]:
        self.store.get(collection)  # 404 for unknown collections, like Qdrant
        d = self.dir_for(collection)
        if not d.is_dir():
            return []
        files = sorted(p for p in d.iterdir() if p.is_file() and p.name.endswith(".snapshot"))
        return [self._describe(p) for p in files]

    def create(self, collection: str) -> dict[str, Any]:
        d = self.dir_for(collection)
        d.mkdir(parents=True, exist_ok=True)

        def run(c: Collection) -> dict[str, Any]:
            c.shard.flush()
            c.dirty = False
            now = dt.datetime.now(dt.timezone.utc)
            base = f"{collection}-0-{now.strftime('%Y-%m-%d-%H-%M-%S')}"
            name, n = f"{base}.snapshot", 1
            while (d / name).exists():
                n += 1
                name = f"{base}-{n}.snapshot"
            final = d / name
            tmp = d / f".{name}.partial"
            manifest = {
                "format": FORMAT,
                "collection": collection,
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
            checksum = _sha256(tmp)
            os.replace(tmp, final)
            final.with_name(final.name + ".checksum").write_text(checksum)
            return self._describe(final)

        # A read lock is enough: it excludes writers, so the flushed files stay still while archived.
        return self.store.read(collection, run)

    def _resolve(self, collection: str, name: str) -> Path:
        if not name or "/" in name or "\\" in name or name in (".", "..") or not name.endswith(".snapshot"):
            raise BadRequest(f"Bad request: invalid snapshot name {name!r}")
        p = self.dir_for(collection) / name
        if not p.is_file():
            raise NotFound(f"Snapshot {name} not found")
        return p

    def path(self, collection: str, name: str) -> Path:
        self.store.get(collection)
        return self._resolve(collection, name)

    def delete(self, collection: str, name: str) -> bool:
        p = self.path(collection, name)
        p.unlink()
        p.with_name(p.name + ".checksum").unlink(missing_ok=True)
        return True

    def _location(self, collection: str, location: Any) -> Path:
        if not isinstance(location, str) or not location:
            raise BadRequest("Format error in JSON body: location must be a string (file:// URI or snapshot name)")
        if location.startswith(("http://", "https://")):
            raise Unsupported("recovering from http(s) locations; use a file:// URI or a snapshot name")
        if location.startswith("file://"):
            u = urlparse(location)
            if u.netloc not in ("", "localhost"):
                raise BadRequest(f"Bad request: file URI must be local: {location}")
            p = Path(unquote(u.path)).resolve()
            root = self.store.snapshots_dir.resolve()
            if root not in p.parents:
                raise BadRequest(f"Bad request: snapshot path {p} is outside the snapshots directory {root}")
            if not p.is_file():
                raise NotFound(f"Snapshot file {p} not found")
            return p
        if "://" in location:
            raise BadRequest(f"Bad request: unsupported snapshot location scheme: {location}")
        return self._resolve(collection, location)

    def recover(self, collection: str, body: dict[str, Any]) -> bool:
        from .store import validate_collection_name

        validate_collection_name(collection)
        src = self._location(collection, body.get("location"))
        expected = body.get("checksum")
        if expected is not None:
            if not isinstance(expected, str):
                raise BadRequest("Format error in JSON body: checksum must be a sha256 hex string")
            actual = _sha256(src)
            if actual.lower() != expected.lower():
                raise BadRequest(f"Bad request: Snapshot checksum mismatch: expected {expected}, got {actual}")
        prio = body.get("priority")
        if prio is not None and prio not in ("replica", "snapshot", "no_sync"):
            raise BadRequest("Format error in JSON body: priority must be one of replica, snapshot, no_sync")
        work = self.store.tmp_dir / f"recover-{uuid.uuid4().hex}"
        work.mkdir(parents=True)
        try:
            try:
                with tarfile.open(src, "r") as tar:
                    members = tar.getmembers()
                    for m in members:
                        if m.name.startswith("/") or ".." in Path(m.name).parts or not (m.isfile() or m.isdir()):
                            raise BadRequest(f"Bad request: unsafe or unsupported entry in snapshot: {m.name}")
                    tar.extractall(work, members=members, filter="data")
            except tarfile.TarError as e:
                raise BadRequest(f"Bad request: not a qdrant-local snapshot archive: {e}") from None
            try:
                manifest = json.loads((work / MANIFEST).read_text())
                meta = json.loads((work / "collection" / "meta.json").read_text())
            except (OSError, ValueError):
                raise BadRequest("Bad request: not a qdrant-local snapshot archive (manifest or meta.json missing)") from None
            if manifest.get("format") != FORMAT:
                raise BadRequest(f"Bad request: unknown snapshot format {manifest.get('format')!r}")
            prepared = work / "collection"
            full_sizes = manifest.get("full_sizes") or {}
            if not isinstance(full_sizes, dict):
                raise BadRequest("Bad request: corrupt snapshot manifest (full_sizes)")
            for arc, size in full_sizes.items():
                fp = (work / arc).resolve()
                if work.resolve() not in fp.parents or not fp.is_file() or not isinstance(size, int) or size < fp.stat().st_size:
                    raise BadRequest(f"Bad request: corrupt snapshot manifest entry {arc!r}")
                os.truncate(fp, size)
            try:
                probe = qe.EdgeShard.load(str(prepared / "shard"))
                probe.close()
            except Exception as e:  # noqa: BLE001
                raise BadRequest(f"Bad request: snapshot shard does not load: {e}") from None
            self.store.install(collection, prepared, meta)
            return True
        finally:
            shutil.rmtree(work, ignore_errors=True)
