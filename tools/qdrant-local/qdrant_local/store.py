"""Collections backed by Qdrant Edge shards: create/load/delete, points, queries, payload indexes.

One collection = one Edge shard in <data>/collections/<name>/shard plus meta.json holding the
Qdrant-shaped collection config as it was requested. Reads of a collection run concurrently;
writes, flushes, snapshots and recovery of the same collection are serialised by its RW lock.
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
import shutil
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, TypeVar

import qdrant_edge as qe

from .errors import ApiError, BadRequest, Conflict, NotFound, Unprocessable, Unsupported, WrongInput
from .filters import (
    LENIENT,
    FilterMode,
    PointId,
    parse_filter,
    parse_order_by,
    parse_point_id,
    parse_search_params,
    parse_with_payload,
    parse_with_vector,
    render_point_id,
)
from .locks import RWLock

log = logging.getLogger("qdrant_local")

T = TypeVar("T")

DISTANCES = {
    "Cosine": qe.Distance.Cosine,
    "Euclid": qe.Distance.Euclid,
    "Dot": qe.Distance.Dot,
    "Manhattan": qe.Distance.Manhattan,
}

SCHEMA_TYPES = {
    "keyword": qe.PayloadSchemaType.Keyword,
    "integer": qe.PayloadSchemaType.Integer,
    "float": qe.PayloadSchemaType.Float,
    "geo": qe.PayloadSchemaType.Geo,
    "text": qe.PayloadSchemaType.Text,
    "bool": qe.PayloadSchemaType.Bool,
    "datetime": qe.PayloadSchemaType.Datetime,
    "uuid": qe.PayloadSchemaType.Uuid,
}
SCHEMA_NAMES = {v: k for k, v in SCHEMA_TYPES.items()}

_PARAM_CLASSES: dict[str, Any] = {
    "keyword": qe.KeywordIndexParams,
    "integer": qe.IntegerIndexParams,
    "float": qe.FloatIndexParams,
    "geo": qe.GeoIndexParams,
    "text": qe.TextIndexParams,
    "bool": qe.BoolIndexParams,
    "datetime": qe.DatetimeIndexParams,
    "uuid": qe.UuidIndexParams,
}
_TOKENIZERS = {
    "prefix": qe.TokenizerType.Prefix,
    "whitespace": qe.TokenizerType.Whitespace,
    "word": qe.TokenizerType.Word,
    "multilingual": qe.TokenizerType.Multilingual,
}

# Index params fields Qdrant serialises even when unset (lib/segment/src/data_types/index.rs).
_UNSKIPPED_PARAMS = {"integer": ("lookup", "range", "is_principal"), "float": ("is_principal",), "datetime": ("is_principal",)}

MAX_NAME_LEN = 255
_BAD_NAME_CHARS = set('<>:"/\\|?*\0')


def validate_collection_name(name: str) -> str:
    if not name or len(name) > MAX_NAME_LEN or name in (".", "..") or any(
        ch in _BAD_NAME_CHARS or ord(ch) < 32 for ch in name
    ):
        raise BadRequest(
            f"Validation error in path parameters: [collection_name: must be 1..{MAX_NAME_LEN} characters "
            f"and must not contain < > : \" / \\ | ? * or control characters]"
        )
    return name


_SIMPLE_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$")


def safe_dir_name(name: str) -> str:
    """Simple names are used as-is; anything else maps onto a stable uuid-derived directory name."""
    if _SIMPLE_NAME.match(name):
        return name
    return "x-" + uuid.uuid5(uuid.NAMESPACE_URL, "qdrant-local:" + name).hex


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _finite_floats(v: Any, where: str) -> list[float]:
    if not isinstance(v, list) or not v:
        raise BadRequest(f"Format error in JSON body: {where} must be a non-empty list of numbers")
    out: list[float] = []
    for x in v:
        if isinstance(x, bool) or not isinstance(x, (int, float)) or (isinstance(x, float) and not math.isfinite(x)):
            raise BadRequest(f"Format error in JSON body: {where} must contain only finite numbers")
        out.append(float(x))
    return out


def _edge_call(fn: Callable[[], T]) -> T:
    """Run an Edge call; engine errors on user input become 400 like Qdrant's "Wrong input"."""
    try:
        return fn()
    except ApiError:
        raise
    except (ValueError, TypeError, Exception) as e:  # noqa: BLE001 - the binding raises plain Exception
        missing = re.fullmatch(r"No point with id (\S+)", str(e))
        if missing:
            raise NotFound(f"No point with id {missing.group(1)} found") from None
        raise BadRequest(f"Wrong input: {e}") from None


def parse_vectors_config(v: Any) -> dict[str, Any]:
    """Validate Qdrant's `vectors` (single params or {name: params}) and return it normalised."""
    if not isinstance(v, dict) or not v:
        raise BadRequest("Format error in JSON body: vectors must be {size, distance} or {name: {size, distance}}")

    def one(p: Any, where: str) -> dict[str, Any]:
        if not isinstance(p, dict):
            raise BadRequest(f"Format error in JSON body: {where} must be an object {{size, distance}}")
        size, dist = p.get("size"), p.get("distance")
        if not _is_int(size) or size < 1 or size > 65536 or dist not in DISTANCES:
            # Qdrant's VectorsConfig is an untagged enum (single params or a map of them): any bad field
            # fails the whole value with serde's generic message.
            raise BadRequest("Format error in JSON body: data did not match any variant of untagged enum VectorsConfig")
        if p.get("multivector_config") is not None:
            raise Unsupported(f"{where}.multivector_config")
        if p.get("datatype") not in (None, "float32"):
            raise Unsupported(f"{where}.datatype {p.get('datatype')!r} (only float32)")
        out = {"size": size, "distance": dist}
        if p.get("on_disk") is not None:
            if not isinstance(p["on_disk"], bool):
                raise BadRequest(f"Format error in JSON body: {where}.on_disk must be a boolean")
            out["on_disk"] = p["on_disk"]
        for k in ("hnsw_config", "quantization_config"):
            if p.get(k) is not None:
                out[k] = p[k]  # recorded and reported; Edge defaults are used for indexing
        return out

    if "size" in v or "distance" in v:
        return one(v, "vectors")
    return {name: one(p, f"vectors.{name}") for name, p in v.items()}


def is_named(vectors: dict[str, Any]) -> bool:
    return "size" not in vectors


def edge_config(vectors: dict[str, Any]) -> qe.EdgeConfig:
    def params(p: dict[str, Any]) -> qe.EdgeVectorParams:
        return qe.EdgeVectorParams(size=p["size"], distance=DISTANCES[p["distance"]], on_disk=p.get("on_disk"))

    if is_named(vectors):
        return qe.EdgeConfig(vectors={name: params(p) for name, p in vectors.items()})
    return qe.EdgeConfig(vectors=params(vectors))


@dataclass
class Collection:
    name: str
    path: Path
    meta: dict[str, Any]
    shard: Any
    lock: RWLock = field(default_factory=RWLock)
    closed: bool = False
    dirty: bool = False
    op_counter: int = 0

    @property
    def vectors(self) -> dict[str, Any]:
        return self.meta["vectors"]

    def vector_sizes(self) -> dict[str, int]:
        v = self.vectors
        return {name: p["size"] for name, p in v.items()} if is_named(v) else {"": v["size"]}

    def write_meta(self) -> None:
        tmp = self.path / "meta.json.tmp"
        tmp.write_text(json.dumps(self.meta, indent=2))
        os.replace(tmp, self.path / "meta.json")

    def next_op(self) -> int:
        self.op_counter += 1
        return self.op_counter


class Store:
    def __init__(self, data_dir: Path, snapshots_dir: Path | None = None) -> None:
        self.data_dir = data_dir
        self.collections_dir = data_dir / "collections"
        # Qdrant keeps snapshots in their own directory (QDRANT__STORAGE__SNAPSHOTS_PATH); the default
        # stays <data>/snapshots, where earlier qdrant-local versions wrote them.
        self.snapshots_dir = (snapshots_dir or data_dir / "snapshots").resolve()
        self.tmp_dir = data_dir / ".tmp"
        self.aliases_file = data_dir / "aliases" / "data.json"
        for d in (self.collections_dir, self.snapshots_dir, self.tmp_dir, self.aliases_file.parent):
            d.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(self.tmp_dir, ignore_errors=True)
        self.tmp_dir.mkdir(parents=True, exist_ok=True)
        self._registry_lock = threading.RLock()
        self._collections: dict[str, Collection] = {}
        self._aliases: dict[str, str] = {}
        self.peer_id = self._peer_id()
        self._load_all()

    def _peer_id(self) -> int:
        """A random id fixed per data dir, used in snapshot names like Qdrant's peer id."""
        path = self.data_dir / "peer_id"
        try:
            return int(path.read_text().strip())
        except (OSError, ValueError):
            peer = int.from_bytes(os.urandom(7), "big") or 1
            path.write_text(str(peer))
            return peer

    # ------------------------------------------------------------------ lifecycle

    def _load_all(self) -> None:
        for d in sorted(self.collections_dir.iterdir()):
            meta_path = d / "meta.json"
            if not d.is_dir() or not meta_path.is_file():
                continue
            try:
                meta = json.loads(meta_path.read_text())
                shard = qe.EdgeShard.load(str(d / "shard"))
                self._collections[meta["name"]] = Collection(meta["name"], d, meta, shard)
                log.info("loaded collection %r (%d points)", meta["name"], shard.info().points_count)
            except Exception as e:  # noqa: BLE001
                log.error("could not load collection in %s: %s", d, e)
        if self.aliases_file.is_file():
            try:
                aliases = json.loads(self.aliases_file.read_text())
                self._aliases = {a: c for a, c in aliases.items() if isinstance(a, str) and c in self._collections}
            except (OSError, ValueError) as e:
                log.error("could not load aliases from %s: %s", self.aliases_file, e)

    def close(self) -> None:
        with self._registry_lock:
            for c in list(self._collections.values()):
                with c.lock.write():
                    if not c.closed:
                        c.shard.flush()
                        c.shard.close()
                        c.closed = True
            self._collections.clear()

    def flush_dirty(self) -> None:
        for c in self.list_objects():
            if c.dirty:
                with c.lock.write():
                    if not c.closed and c.dirty:
                        c.shard.flush()
                        c.dirty = False

    # ------------------------------------------------------------------ registry

    def list_objects(self) -> list[Collection]:
        with self._registry_lock:
            return list(self._collections.values())

    def names(self) -> list[str]:
        with self._registry_lock:
            return sorted(self._collections)

    def resolve(self, name: str) -> str:
        """An alias resolves to its collection; any other name is taken as a collection name (as Qdrant)."""
        with self._registry_lock:
            return self._aliases.get(name, name)

    def exists(self, name: str) -> bool:
        with self._registry_lock:
            return self.resolve(name) in self._collections

    def get(self, name: str) -> Collection:
        with self._registry_lock:
            real = self.resolve(name)
            c = self._collections.get(real)
        if c is None:
            raise NotFound(f"Collection `{real}` doesn't exist!")
        return c

    def read(self, name: str, fn: Callable[[Collection], T]) -> T:
        c = self.get(name)
        with c.lock.read():
            if c.closed:
                raise NotFound(f"Collection `{name}` doesn't exist!")
            return fn(c)

    def write(self, name: str, fn: Callable[[Collection], T]) -> T:
        c = self.get(name)
        with c.lock.write():
            if c.closed:
                raise NotFound(f"Collection `{name}` doesn't exist!")
            c.dirty = True
            return fn(c)

    def _dir_for(self, name: str) -> Path:
        return self.collections_dir / safe_dir_name(name)

    def create(self, name: str, body: dict[str, Any]) -> None:
        validate_collection_name(name)
        if body.get("sparse_vectors"):
            raise Unsupported("sparse_vectors")
        if body.get("init_from") is not None:
            raise Unsupported("init_from")
        vectors = parse_vectors_config(body.get("vectors"))
        with self._registry_lock:
            if name in self._collections:
                raise Conflict(f"Wrong input: Collection `{name}` already exists!")
            if name in self._aliases:
                raise WrongInput(f"Can't create collection with name {name}. Alias with the same name already exists")
            path = self._dir_for(name)
            shutil.rmtree(path, ignore_errors=True)
            path.mkdir(parents=True)
            try:
                shard = qe.EdgeShard.create(str(path / "shard"), edge_config(vectors))
            except Exception as e:  # noqa: BLE001
                shutil.rmtree(path, ignore_errors=True)
                raise BadRequest(f"Wrong input: {e}") from None
            meta = {
                "name": name,
                "vectors": vectors,
                "created_at": time.time(),
                "payload_index_params": {},
                "request": {k: v for k, v in body.items() if k != "vectors"},
            }
            c = Collection(name, path, meta, shard)
            c.write_meta()
            self._collections[name] = c
            log.info("created collection %r vectors=%s", name, json.dumps(vectors))

    def delete(self, name: str) -> bool:
        """Deletes collection `name` (never through an alias, as Qdrant) and the aliases pointing at it."""
        with self._registry_lock:
            if any(target == name for target in self._aliases.values()):
                self._aliases = {a: t for a, t in self._aliases.items() if t != name}
                self._save_aliases()
            c = self._collections.get(name)
            if c is None:
                return False
            with c.lock.write():
                c.closed = True
                try:
                    c.shard.close()
                finally:
                    del self._collections[name]
                    shutil.rmtree(c.path, ignore_errors=True)
            log.info("deleted collection %r", name)
            return True

    def install(self, name: str, prepared_dir: Path, meta: dict[str, Any]) -> None:
        """Replace (or create) collection `name` with the prepared directory (meta.json + shard/)."""
        with self._registry_lock:
            old = self._collections.get(name)
            path = self._dir_for(name)
            trash = self.tmp_dir / f"trash-{uuid.uuid4().hex}"
            if old is not None:
                with old.lock.write():
                    old.closed = True
                    old.shard.close()
                    del self._collections[name]
                    if old.path.exists():
                        os.replace(old.path, trash)
            elif path.exists():
                os.replace(path, trash)
            meta = dict(meta, name=name)
            os.replace(prepared_dir, path)
            shard = qe.EdgeShard.load(str(path / "shard"))
            c = Collection(name, path, meta, shard)
            c.write_meta()
            self._collections[name] = c
            shutil.rmtree(trash, ignore_errors=True)

    # ------------------------------------------------------------------ aliases

    def _save_aliases(self) -> None:
        tmp = self.aliases_file.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(self._aliases, indent=2, sort_keys=True))
        os.replace(tmp, self.aliases_file)

    def update_aliases(self, actions: list[dict[str, Any]]) -> bool:
        """Qdrant's POST /collections/aliases: actions apply in order under one lock, so no reader sees a
        half-done swap; like Qdrant, a failing action does not undo the actions before it."""
        with self._registry_lock:
            for action in actions:
                kind, args = next(iter(action.items()))
                if kind == "create_alias":
                    collection, alias = args["collection_name"], args["alias_name"]
                    if collection not in self._collections:
                        raise NotFound(f"Collection `{collection}` doesn't exist!")
                    if alias in self._collections:
                        raise Conflict(f"Wrong input: Collection `{alias}` already exists!")
                    self._aliases[alias] = collection
                elif kind == "delete_alias":
                    if self._aliases.pop(args["alias_name"], None) is None:
                        continue
                else:  # rename_alias
                    old, new = args["old_alias_name"], args["new_alias_name"]
                    if old not in self._aliases:
                        raise NotFound(f"Alias {old} does not exists!")
                    self._aliases[new] = self._aliases.pop(old)
                self._save_aliases()
            return True

    def collection_aliases(self, name: str) -> dict[str, Any]:
        """Aliases of collection `name` (taken literally: an alias name or an unknown name has none)."""
        with self._registry_lock:
            return {"aliases": [{"alias_name": a, "collection_name": name} for a in sorted(self._aliases) if self._aliases[a] == name]}

    def list_aliases(self) -> dict[str, Any]:
        with self._registry_lock:
            return {
                "aliases": [
                    {"alias_name": a, "collection_name": c}
                    for c in sorted(self._collections)
                    for a in sorted(self._aliases)
                    if self._aliases[a] == c
                ]
            }

    # ------------------------------------------------------------------ collection info

    def info(self, name: str) -> dict[str, Any]:
        def run(c: Collection) -> dict[str, Any]:
            i = c.shard.info()
            schema: dict[str, Any] = {}
            for key, pi in i.payload_schema.items():
                entry: dict[str, Any] = {"data_type": SCHEMA_NAMES.get(pi.data_type, str(pi.data_type)), "points": pi.points}
                params = c.meta.get("payload_index_params", {}).get(key)
                if isinstance(params, dict):
                    entry["params"] = params
                schema[key] = entry
            req = c.meta.get("request", {})
            hnsw = {"m": 16, "ef_construct": 100, "full_scan_threshold": 10000, "max_indexing_threads": 0, "on_disk": False}
            if isinstance(req.get("hnsw_config"), dict):
                hnsw.update(req["hnsw_config"])
            return {
                "status": "green",
                "optimizer_status": "ok",
                "indexed_vectors_count": i.indexed_vectors_count,
                "points_count": i.points_count,
                "segments_count": i.segments_count,
                "config": {
                    "params": {
                        "vectors": c.vectors,
                        "shard_number": 1,
                        "replication_factor": 1,
                        "write_consistency_factor": 1,
                        "on_disk_payload": True,
                    },
                    "hnsw_config": hnsw,
                    "optimizer_config": {
                        "deleted_threshold": 0.2,
                        "vacuum_min_vector_number": 1000,
                        "default_segment_number": 0,
                        "max_segment_size": None,
                        "memmap_threshold": None,
                        "indexing_threshold": 10000,
                        "flush_interval_sec": 5,
                        "max_optimization_threads": None,
                        "prevent_unoptimized": None,
                    },
                    "wal_config": {"wal_capacity_mb": 32, "wal_segments_ahead": 0, "wal_retain_closed": 1},
                    "quantization_config": req.get("quantization_config"),
                },
                "payload_schema": schema,
                # Updates are applied before the answer, so nothing ever waits in the queue.
                "update_queue": {"length": 0},
            }

        return self.read(name, run)

    # ------------------------------------------------------------------ payload index

    def create_index(self, name: str, body: dict[str, Any]) -> int:
        field_name = body.get("field_name")
        if not isinstance(field_name, str) or not field_name:
            raise BadRequest("Format error in JSON body: field_name must be a non-empty string")
        schema = body.get("field_schema")
        if schema is None:
            raise BadRequest("Bad request: field_schema is required (qdrant-local does not infer index types)")
        params_json: dict[str, Any] | None = None
        if isinstance(schema, str):
            type_name = schema
        elif isinstance(schema, dict) and isinstance(schema.get("type"), str):
            type_name = schema["type"]
            params_json = schema
        else:
            raise BadRequest("Format error in JSON body: field_schema must be a type name or {type, ...params}")
        if type_name not in SCHEMA_TYPES:
            raise BadRequest("Format error in JSON body: data did not match any variant of untagged enum PayloadFieldSchema")
        edge_schema: Any = SCHEMA_TYPES[type_name]
        if params_json is not None:
            kwargs = {k: v for k, v in params_json.items() if k != "type" and v is not None}
            if "tokenizer" in kwargs:
                if kwargs["tokenizer"] not in _TOKENIZERS:
                    raise BadRequest(f"Format error in JSON body: field_schema.tokenizer: unknown variant {kwargs['tokenizer']!r}")
                kwargs["tokenizer"] = _TOKENIZERS[kwargs["tokenizer"]]
            for k, v in kwargs.items():
                if isinstance(v, (dict, list)):
                    raise Unsupported(f"field_schema.{k}")
            try:
                edge_schema = _PARAM_CLASSES[type_name](**kwargs)
            except TypeError as e:
                raise BadRequest(f"Format error in JSON body: field_schema: {e}") from None

        if params_json is not None:
            # Qdrant reports these params with the fields it never skips (None when not given).
            for k in _UNSKIPPED_PARAMS.get(type_name, ()):
                params_json.setdefault(k, None)

        def run(c: Collection) -> int:
            _edge_call(lambda: c.shard.update(qe.UpdateOperation.create_field_index(field_name, edge_schema)))
            c.meta.setdefault("payload_index_params", {})[field_name] = params_json
            c.write_meta()
            return c.next_op()

        return self.write(name, run)

    def delete_index(self, name: str, field_name: str) -> int:
        def run(c: Collection) -> int:
            _edge_call(lambda: c.shard.update(qe.UpdateOperation.delete_field_index(field_name)))
            c.meta.setdefault("payload_index_params", {}).pop(field_name, None)
            c.write_meta()
            return c.next_op()

        return self.write(name, run)

    # ------------------------------------------------------------------ points: writes

    def _vector(self, c: Collection, v: Any, where: str) -> Any:
        sizes = c.vector_sizes()
        if isinstance(v, list):
            if "" not in sizes:
                raise BadRequest(f"Wrong input: Not existing vector name error: (unnamed vector); collection has named vectors {sorted(sizes)}")
            vec = _finite_floats(v, where)
            if len(vec) != sizes[""]:
                raise BadRequest(f"Wrong input: Vector dimension error: expected dim: {sizes['']}, got {len(vec)}")
            return vec
        if isinstance(v, dict):
            out: dict[str, Any] = {}
            for vname, vv in v.items():
                if vname not in sizes:
                    raise BadRequest(f"Wrong input: Not existing vector name error: {vname}")
                if isinstance(vv, dict):
                    raise Unsupported(f"{where}.{vname}: sparse vectors")
                vec = _finite_floats(vv, f"{where}.{vname}")
                if len(vec) != sizes[vname]:
                    raise BadRequest(f"Wrong input: Vector dimension error: expected dim: {sizes[vname]}, got {len(vec)}")
                out[vname] = vec
            if "" in out and len(out) == 1:
                return out[""]
            return out
        raise BadRequest(f"Format error in JSON body: {where} must be a list of numbers or {{name: vector}}")

    def _payload(self, p: Any, where: str) -> dict[str, Any] | None:
        if p is None:
            return None
        if not isinstance(p, dict):
            raise BadRequest(f"Format error in JSON body: {where} must be an object")
        return p

    def upsert(self, name: str, body: dict[str, Any]) -> int:
        def run(c: Collection) -> int:
            points: list[qe.Point] = []
            if "points" in body:
                raw = body["points"]
                if not isinstance(raw, list):
                    raise BadRequest("Format error in JSON body: points must be a list")
                for i, p in enumerate(raw):
                    if not isinstance(p, dict):
                        raise BadRequest(f"Format error in JSON body: points[{i}] must be an object")
                    if "vector" not in p:
                        raise BadRequest(f"Format error in JSON body: points[{i}]: missing field `vector`")
                    points.append(
                        qe.Point(
                            parse_point_id(p.get("id"), f"points[{i}].id"),
                            self._vector(c, p["vector"], f"points[{i}].vector"),
                            self._payload(p.get("payload"), f"points[{i}].payload"),
                        )
                    )
            elif "batch" in body:
                b = body["batch"]
                if not isinstance(b, dict) or not isinstance(b.get("ids"), list):
                    raise BadRequest("Format error in JSON body: batch must be {ids, vectors, payloads?}")
                ids = b["ids"]
                vectors = b.get("vectors")
                payloads = b.get("payloads")
                if isinstance(vectors, list):
                    per_point: list[Any] = vectors
                elif isinstance(vectors, dict):
                    per_point = [{k: vs[i] for k, vs in vectors.items() if isinstance(vs, list) and i < len(vs)} for i in range(len(ids))]
                else:
                    raise BadRequest("Format error in JSON body: batch.vectors must be a list of vectors or {name: [vectors]}")
                if len(per_point) != len(ids) or (payloads is not None and (not isinstance(payloads, list) or len(payloads) != len(ids))):
                    raise BadRequest("Wrong input: batch ids, vectors and payloads must have the same length")
                for i, pid in enumerate(ids):
                    points.append(
                        qe.Point(
                            parse_point_id(pid, f"batch.ids[{i}]"),
                            self._vector(c, per_point[i], f"batch.vectors[{i}]"),
                            self._payload(payloads[i] if payloads else None, f"batch.payloads[{i}]"),
                        )
                    )
            else:
                raise BadRequest("Format error in JSON body: expected `points` or `batch`")
            if body.get("update_filter") is not None:
                cond = parse_filter(body["update_filter"], "update_filter")
                op = qe.UpdateOperation.upsert_points(points, condition=cond)
            else:
                op = qe.UpdateOperation.upsert_points(points)
            if points:
                _edge_call(lambda: c.shard.update(op))
            return c.next_op()

        return self.write(name, run)

    def _selector(self, body: dict[str, Any], what: str) -> tuple[list[PointId] | None, Any]:
        # Qdrant validates the filter of a payload update (422) but not that of points/delete.
        mode = LENIENT if what == "delete" else FilterMode()
        if body.get("points") is not None:
            ids = body["points"]
            if not isinstance(ids, list):
                raise BadRequest("Format error in JSON body: points must be a list of point ids")
            return [parse_point_id(x, f"points[{i}]") for i, x in enumerate(ids)], None
        if body.get("filter") is not None:
            return None, parse_filter(body["filter"], "filter", mode)
        raise BadRequest(f"Format error in JSON body: {what} needs `points` (list of ids) or `filter`")

    def delete_points(self, name: str, body: dict[str, Any]) -> int:
        ids, flt = self._selector(body, "delete")

        def run(c: Collection) -> int:
            if ids is not None:
                if ids:
                    _edge_call(lambda: c.shard.update(qe.UpdateOperation.delete_points(ids)))
            else:
                _edge_call(lambda: c.shard.update(qe.UpdateOperation.delete_points_by_filter(flt)))
            return c.next_op()

        return self.write(name, run)

    def payload_op(self, name: str, kind: str, body: dict[str, Any]) -> int:
        ids, flt = self._selector(body, kind)
        U = qe.UpdateOperation
        key = body.get("key")
        if key is not None and not isinstance(key, str):
            raise BadRequest("Format error in JSON body: key must be a string")
        if kind in ("set", "overwrite"):
            payload = body.get("payload")
            if not isinstance(payload, dict):
                raise BadRequest("Format error in JSON body: payload must be an object")
            if kind == "set":
                op = U.set_payload(ids, payload, key) if ids is not None else U.set_payload_by_filter(flt, payload, key)
            else:
                op = U.overwrite_payload(ids, payload, key) if ids is not None else U.overwrite_payload_by_filter(flt, payload, key)
        elif kind == "delete":
            keys = body.get("keys")
            if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
                raise BadRequest("Format error in JSON body: keys must be a list of strings")
            op = U.delete_payload(ids, keys) if ids is not None else U.delete_payload_by_filter(flt, keys)
        else:
            op = U.clear_payload(ids) if ids is not None else U.clear_payload_by_filter(flt)

        def run(c: Collection) -> int:
            _edge_call(lambda: c.shard.update(op))
            return c.next_op()

        return self.write(name, run)

    # ------------------------------------------------------------------ points: reads

    @staticmethod
    def render_record(r: Any, want_payload: bool, want_vector: bool) -> dict[str, Any]:
        out: dict[str, Any] = {"id": render_point_id(r.id)}
        if want_payload:
            out["payload"] = r.payload if r.payload is not None else {}
        if want_vector and r.vector is not None:
            out["vector"] = r.vector
        if r.order_value is not None:
            out["order_value"] = r.order_value
        return out

    @staticmethod
    def render_scored(p: Any, want_payload: bool, want_vector: bool) -> dict[str, Any]:
        out: dict[str, Any] = {"id": render_point_id(p.id), "version": p.version, "score": p.score}
        if want_payload:
            out["payload"] = p.payload if p.payload is not None else {}
        if want_vector and p.vector is not None:
            out["vector"] = p.vector
        if p.order_value is not None:
            out["order_value"] = p.order_value
        return out

    def retrieve(self, name: str, body: dict[str, Any]) -> list[dict[str, Any]]:
        ids_raw = body.get("ids")
        if not isinstance(ids_raw, list):
            raise BadRequest("Format error in JSON body: ids must be a list of point ids")
        ids = [parse_point_id(x, f"ids[{i}]") for i, x in enumerate(ids_raw)]
        wp = parse_with_payload(body.get("with_payload"), False)
        wv = parse_with_vector(body.get("with_vector"), False)

        def run(c: Collection) -> list[dict[str, Any]]:
            recs = _edge_call(lambda: c.shard.retrieve(ids, with_payload=wp, with_vector=wv))
            return [self.render_record(r, wp is not False, wv is not False) for r in recs]

        return self.read(name, run)

    def get_point(self, name: str, raw_id: str) -> dict[str, Any]:
        try:
            pid: PointId = parse_point_id(int(raw_id) if raw_id.isdigit() else raw_id, "id")
        except BadRequest:
            raise WrongInput(f"Can not recognize {json.dumps(raw_id)} as point id") from None

        def run(c: Collection) -> dict[str, Any]:
            recs = _edge_call(lambda: c.shard.retrieve([pid], with_payload=True, with_vector=True))
            if not recs:
                raise NotFound(f"Point with id {pid} does not exists!")
            return self.render_record(recs[0], True, True)

        return self.read(name, run)

    def _limit(self, v: Any, default: int, where: str = "limit", minimum: int = 0) -> int:
        if v is None:
            return default
        if not _is_int(v) or v < 0:
            raise BadRequest(f"Format error in JSON body: invalid value: {v!r}, expected usize")
        if v < minimum:
            raise Unprocessable(f"Validation error in JSON body: [{where}: value {v} invalid, must be {minimum} or larger]")
        return v

    def _using(self, c: Collection, using: Any) -> str | None:
        if using is None:
            return None
        if not isinstance(using, str):
            raise BadRequest("Format error in JSON body: using must be a vector name")
        if using not in c.vector_sizes():
            raise BadRequest(f"Wrong input: Not existing vector name error: {using}")
        return using or None

    def _query_vector(self, c: Collection, v: Any, using: str | None, where: str, exclude: list[PointId]) -> list[float]:
        """A dense vector, or a point id whose stored vector is used (the id is then excluded, like Qdrant)."""
        if isinstance(v, list):
            sizes = c.vector_sizes()
            vec = _finite_floats(v, where)
            target = using or ""
            if target not in sizes:
                raise BadRequest("Wrong input: collection has named vectors; set `using` to one of " + str(sorted(sizes)))
            if len(vec) != sizes[target]:
                raise BadRequest(f"Wrong input: Vector dimension error: expected dim: {sizes[target]}, got {len(vec)}")
            return vec
        if _is_int(v) or isinstance(v, str):
            pid = parse_point_id(v, where)
            vname = using or ""
            recs = _edge_call(lambda: c.shard.retrieve([pid], with_payload=False, with_vector=[vname] if vname else True))
            if not recs or recs[0].vector is None:
                raise NotFound(f"No point with id {pid} found")
            vec = recs[0].vector
            if isinstance(vec, dict):
                vec = vec.get(vname)
            if not isinstance(vec, list):
                raise BadRequest(f"Wrong input: point {pid} has no vector {vname!r}")
            exclude.append(pid)
            return vec
        if isinstance(v, dict):
            raise Unsupported(f"{where}: sparse or other structured vector inputs")
        raise BadRequest(f"Format error in JSON body: {where} must be a vector (list of numbers) or a point id")

    def _scoring_query(self, c: Collection, q: Any, using: str | None, where: str, exclude: list[PointId]) -> Any:
        if q is None:
            return None
        if isinstance(q, dict):
            if len(q) != 1:
                raise BadRequest(f"Format error in JSON body: {where} must have exactly one kind (nearest, order_by, fusion, rrf, sample)")
            (kind, val), = q.items()
            if kind == "nearest":
                return qe.Query.Nearest(self._query_vector(c, val, using, f"{where}.nearest", exclude), using=using)
            if kind == "order_by":
                return parse_order_by(val, f"{where}.order_by")
            if kind == "fusion":
                if val == "rrf":
                    return qe.Fusion.Rrf(k=2)
                if val == "dbsf":
                    return qe.Fusion.Dbsf()
                raise BadRequest(f"Format error in JSON body: {where}.fusion must be \"rrf\" or \"dbsf\"")
            if kind == "rrf":
                r = val if isinstance(val, dict) else {}
                k = r.get("k", 2)
                if not _is_int(k) or k < 1:
                    raise BadRequest(f"Format error in JSON body: {where}.rrf.k must be a positive integer")
                return qe.Fusion.Rrf(k=k, weights=r.get("weights"))
            if kind == "sample":
                if val != "random":
                    raise BadRequest(f"Format error in JSON body: {where}.sample must be \"random\"")
                return qe.Sample.Random
            if kind in ("recommend", "discover", "context", "formula", "mmr", "relevance_feedback"):
                raise Unsupported(f"{where}: `{kind}` queries")
            raise BadRequest(f"Format error in JSON body: {where}: unknown query kind {kind!r}")
        return qe.Query.Nearest(self._query_vector(c, q, using, where, exclude), using=using)

    def _prefetch(self, c: Collection, p: Any, where: str, exclude: list[PointId]) -> qe.Prefetch:
        if not isinstance(p, dict):
            raise BadRequest(f"Format error in JSON body: {where} must be an object")
        using = self._using(c, p.get("using"))
        subs = p.get("prefetch")
        sub_list = [] if subs is None else (subs if isinstance(subs, list) else [subs])
        thr = p.get("score_threshold")
        if thr is not None and (isinstance(thr, bool) or not isinstance(thr, (int, float))):
            raise BadRequest(f"Format error in JSON body: {where}.score_threshold must be a number")
        return qe.Prefetch(
            limit=self._limit(p.get("limit"), 10, f"{where}.limit"),
            query=self._scoring_query(c, p.get("query"), using, f"{where}.query", exclude),
            prefetches=[self._prefetch(c, s, f"{where}.prefetch[{i}]", exclude) for i, s in enumerate(sub_list)] or None,
            params=parse_search_params(p.get("params"), f"{where}.params"),
            filter=parse_filter(p.get("filter"), f"{where}.filter"),
            score_threshold=None if thr is None else float(thr),
        )

    def query(self, name: str, body: dict[str, Any], prefix: str = "internal.") -> dict[str, Any]:
        if body.get("lookup_from") is not None:
            raise Unsupported("lookup_from")
        limit = self._limit(body.get("limit"), 10, f"{prefix}limit", 1)
        offset = self._limit(body.get("offset"), 0, f"{prefix}offset")
        wp = parse_with_payload(body.get("with_payload"), False)
        wv = parse_with_vector(body.get("with_vector"), False)
        flt = parse_filter(body.get("filter"), "filter", FilterMode(prefix))
        params = parse_search_params(body.get("params"))
        thr = body.get("score_threshold")
        if thr is not None and (isinstance(thr, bool) or not isinstance(thr, (int, float))):
            raise BadRequest("Format error in JSON body: score_threshold must be a number")

        def run(c: Collection) -> dict[str, Any]:
            exclude: list[PointId] = []
            using = self._using(c, body.get("using"))
            q = self._scoring_query(c, body.get("query"), using, "query", exclude)
            pf = body.get("prefetch")
            pf_list = [] if pf is None else (pf if isinstance(pf, list) else [pf])
            prefetches = [self._prefetch(c, p, f"prefetch[{i}]", exclude) for i, p in enumerate(pf_list)]
            f = flt
            if exclude:
                ex = qe.HasIdCondition(set(exclude))
                f = qe.Filter(must=[f], must_not=[ex]) if f is not None else qe.Filter(must_not=[ex])
            req = qe.QueryRequest(
                limit=limit,
                offset=offset,
                query=q,
                prefetches=prefetches or None,
                with_vector=wv,
                with_payload=wp,
                filter=f,
                score_threshold=None if thr is None else float(thr),
                params=params,
            )
            pts = _edge_call(lambda: c.shard.query(req))
            return {"points": [self.render_scored(p, wp is not False, wv is not False) for p in pts]}

        return self.read(name, run)

    def search(self, name: str, body: dict[str, Any]) -> list[dict[str, Any]]:
        """Deprecated POST /points/search, mapped onto a nearest query."""
        v = body.get("vector")
        using = None
        if isinstance(v, dict):
            using, v = v.get("name"), v.get("vector")
        q = {k: body.get(k) for k in ("filter", "params", "limit", "offset", "with_payload", "with_vector", "score_threshold")}
        q["query"] = v if isinstance(v, list) else _raise(BadRequest("Format error in JSON body: vector must be a list of numbers or {name, vector}"))
        q["using"] = using
        return self.query(name, q, "search_request.")["points"]

    def scroll(self, name: str, body: dict[str, Any]) -> dict[str, Any]:
        limit = self._limit(body.get("limit"), 10, "scroll_request.limit", 1)
        offset = None if body.get("offset") is None else parse_point_id(body["offset"], "offset")
        wp = parse_with_payload(body.get("with_payload"), True)
        wv = parse_with_vector(body.get("with_vector"), False)
        flt = parse_filter(body.get("filter"), "filter", FilterMode("scroll_request."))
        order_by = None if body.get("order_by") is None else parse_order_by(body["order_by"])
        if order_by is not None and offset is not None:
            raise BadRequest("Bad request: Cannot use an `offset` when using `order_by`")

        def run(c: Collection) -> dict[str, Any]:
            req = qe.ScrollRequest(offset=offset, limit=limit, filter=flt, with_payload=wp, with_vector=wv, order_by=order_by)
            recs, nxt = _edge_call(lambda: c.shard.scroll(req))
            return {
                "points": [self.render_record(r, wp is not False, wv is not False) for r in recs],
                "next_page_offset": None if nxt is None else render_point_id(nxt),
            }

        return self.read(name, run)

    def count(self, name: str, body: dict[str, Any]) -> dict[str, Any]:
        flt = parse_filter(body.get("filter"), "filter", FilterMode("count_request."))
        exact = body.get("exact", True)
        if not isinstance(exact, bool):
            raise BadRequest("Format error in JSON body: exact must be a boolean")
        return self.read(name, lambda c: {"count": _edge_call(lambda: c.shard.count(qe.CountRequest(exact=exact, filter=flt)))})


def _raise(e: Exception) -> Any:
    raise e
