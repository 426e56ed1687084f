"""Translate Qdrant REST JSON (filters, point ids, payload/vector selectors) into Qdrant Edge objects.

Qdrant Edge exposes the engine's own filter types (the same segment code the Qdrant server uses),
so the semantics of must / should / must_not / min_should, match, range, is_empty, is_null,
has_id, nested and "a.b" / "a[].b" key paths are the engine's. This module only validates the
JSON shapes of Qdrant's published API and builds the matching Edge objects, raising BadRequest
with a clear message for anything malformed.
"""

from __future__ import annotations

import json
import math
import uuid
from dataclasses import dataclass
from typing import Any

import qdrant_edge as qe

from .errors import BadRequest, Unprocessable, Unsupported

PointId = int | str


class _EdgeBool:
    """A bool qdrant-edge-py 0.9 matches as a bool.

    Its MatchValue extracts str, then int, then bool, and a Python bool is an int, so MatchValue(True)
    matches the integer 1 and a bool payload index never matches. PyO3 extracts an object whose type
    looks like numpy's bool_ as a bool (through __bool__) and not as an int (no __index__), which is
    the one way to hand Edge a real bool. tests/test_qdrant_local.py::test_bool_match keeps it honest.
    """

    __module__ = "numpy"

    def __init__(self, value: bool) -> None:
        self._value = value

    def __bool__(self) -> bool:
        return self._value


_EdgeBool.__name__ = _EdgeBool.__qualname__ = "bool_"


@dataclass(frozen=True)
class FilterMode:
    """How a filter is checked, per endpoint, as Qdrant does.

    prefix: the request struct Qdrant names in its 422 validation error ("internal." for query,
    "scroll_request.", "count_request.", "" for set payload). lenient: the endpoint does not validate
    (points/delete): a field condition without any condition then matches nothing, as in Qdrant.
    """

    prefix: str = ""
    lenient: bool = False


STRICT = FilterMode()
LENIENT = FilterMode(lenient=True)
_NOTHING = qe.HasIdCondition(set())

_U64_MAX = 2**64 - 1


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    return (isinstance(v, (int, float)) and not isinstance(v, bool)) and not (
        isinstance(v, float) and (math.isnan(v) or math.isinf(v))
    )


def _bad_id(v: Any) -> BadRequest:
    shown = v if isinstance(v, str) else json.dumps(v)
    return BadRequest(f"Format error in JSON body: value {shown} is not a valid point ID, valid values are either an unsigned integer or a UUID")


def parse_point_id(v: Any, where: str = "id") -> PointId:
    """Qdrant point ids are unsigned 64-bit integers or UUID strings (normalised to lowercase hyphenated)."""
    if _is_int(v):
        if v < 0 or v > _U64_MAX:
            raise _bad_id(v)
        return v
    if isinstance(v, str):
        try:
            return str(uuid.UUID(v))
        except ValueError:
            raise _bad_id(v) from None
    raise _bad_id(v)


def render_point_id(v: Any) -> PointId:
    if isinstance(v, uuid.UUID):
        return str(v)
    return v


def _as_list(v: Any, where: str) -> list[Any]:
    """Qdrant accepts a single condition or a list of them for must/should/must_not."""
    if v is None:
        return []
    if isinstance(v, list):
        return v
    if isinstance(v, dict):
        return [v]
    raise BadRequest(f"Format error in JSON body: {where} must be a condition object or a list of conditions")


def _obj(v: Any, where: str) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise BadRequest(f"Format error in JSON body: {where} must be an object")
    return v


def _key(v: Any, where: str) -> str:
    if not isinstance(v, str) or not v:
        raise BadRequest(f"Format error in JSON body: {where} must be a non-empty string (payload key path)")
    return v


_FILTER_KEYS = {"must", "should", "must_not", "min_should"}
_FIELD_CONDITION_KEYS = {
    "match",
    "range",
    "geo_bounding_box",
    "geo_radius",
    "geo_polygon",
    "values_count",
    "is_empty",
    "is_null",
}


def parse_filter(v: Any, where: str = "filter", mode: FilterMode = STRICT) -> qe.Filter | None:
    """Qdrant Filter JSON -> qe.Filter. None / {} -> None (no filtering)."""
    if v is None:
        return None
    f = _obj(v, where)
    unknown = set(f) - _FILTER_KEYS
    if unknown:
        raise BadRequest(f"Format error in JSON body: {where}: unknown field(s) {sorted(unknown)}; expected must, should, must_not, min_should")
    must = [parse_condition(c, f"{where}.must[{i}]", mode) for i, c in enumerate(_as_list(f.get("must"), f"{where}.must"))]
    should = [parse_condition(c, f"{where}.should[{i}]", mode) for i, c in enumerate(_as_list(f.get("should"), f"{where}.should"))]
    must_not = [
        parse_condition(c, f"{where}.must_not[{i}]", mode) for i, c in enumerate(_as_list(f.get("must_not"), f"{where}.must_not"))
    ]
    min_should = None
    if f.get("min_should") is not None:
        ms = _obj(f["min_should"], f"{where}.min_should")
        conds = ms.get("conditions")
        if not isinstance(conds, list):
            raise BadRequest(f"Format error in JSON body: {where}.min_should.conditions must be a list")
        mc = ms.get("min_count")
        if not _is_int(mc) or mc < 0:
            raise BadRequest(f"Format error in JSON body: {where}.min_should.min_count must be a non-negative integer")
        min_should = qe.MinShould(
            [parse_condition(c, f"{where}.min_should.conditions[{i}]", mode) for i, c in enumerate(conds)], mc
        )
    return qe.Filter(
        must=must or None,
        should=should or None,
        must_not=must_not or None,
        min_should=min_should,
    )


def parse_condition(v: Any, where: str, mode: FilterMode = STRICT) -> Any:
    c = _obj(v, where)
    if "key" in c:
        return _field_condition(c, where, mode)
    if "is_empty" in c:
        return qe.IsEmptyCondition(_key(_obj(c["is_empty"], f"{where}.is_empty").get("key"), f"{where}.is_empty.key"))
    if "is_null" in c:
        return qe.IsNullCondition(_key(_obj(c["is_null"], f"{where}.is_null").get("key"), f"{where}.is_null.key"))
    if "has_id" in c:
        ids = c["has_id"]
        if not isinstance(ids, list):
            raise BadRequest(f"Format error in JSON body: {where}.has_id must be a list of point ids")
        return qe.HasIdCondition({parse_point_id(i, f"{where}.has_id[{n}]") for n, i in enumerate(ids)})
    if "has_vector" in c:
        if not isinstance(c["has_vector"], str):
            raise BadRequest(f"Format error in JSON body: {where}.has_vector must be a vector name")
        return qe.HasVectorCondition(c["has_vector"])
    if "nested" in c:
        n = _obj(c["nested"], f"{where}.nested")
        return qe.NestedCondition(_key(n.get("key"), f"{where}.nested.key"), parse_filter(n.get("filter") or {}, f"{where}.nested.filter", mode))
    if set(c) & _FILTER_KEYS or not c:
        return parse_filter(c, where, mode)
    raise BadRequest(
        f"Format error in JSON body: {where}: unknown condition {sorted(c)}; expected a field condition (key + match/range/...), "
        "is_empty, is_null, has_id, has_vector, nested or a nested filter"
    )


def _field_condition(c: dict[str, Any], where: str, mode: FilterMode = STRICT) -> Any:
    key = _key(c.get("key"), f"{where}.key")
    unknown = set(c) - _FIELD_CONDITION_KEYS - {"key"}
    if unknown:
        raise BadRequest(f"Format error in JSON body: {where}: unknown field(s) {sorted(unknown)} in field condition")
    kwargs: dict[str, Any] = {}
    if c.get("match") is not None:
        kwargs["match"] = _match(c["match"], f"{where}.match")
    if c.get("range") is not None:
        kwargs["range"] = _range(c["range"], f"{where}.range")
    if c.get("geo_bounding_box") is not None:
        g = _obj(c["geo_bounding_box"], f"{where}.geo_bounding_box")
        kwargs["geo_bounding_box"] = qe.GeoBoundingBox(
            _geo_point(g.get("top_left"), f"{where}.geo_bounding_box.top_left"),
            _geo_point(g.get("bottom_right"), f"{where}.geo_bounding_box.bottom_right"),
        )
    if c.get("geo_radius") is not None:
        g = _obj(c["geo_radius"], f"{where}.geo_radius")
        if not _is_number(g.get("radius")):
            raise BadRequest(f"Format error in JSON body: {where}.geo_radius.radius must be a number (meters)")
        kwargs["geo_radius"] = qe.GeoRadius(_geo_point(g.get("center"), f"{where}.geo_radius.center"), float(g["radius"]))
    if c.get("geo_polygon") is not None:
        g = _obj(c["geo_polygon"], f"{where}.geo_polygon")
        exterior = _line(g.get("exterior"), f"{where}.geo_polygon.exterior")
        interiors = None
        if g.get("interiors") is not None:
            if not isinstance(g["interiors"], list):
                raise BadRequest(f"Format error in JSON body: {where}.geo_polygon.interiors must be a list")
            interiors = [_line(x, f"{where}.geo_polygon.interiors[{i}]") for i, x in enumerate(g["interiors"])]
        kwargs["geo_polygon"] = qe.GeoPolygon(exterior, interiors)
    if c.get("values_count") is not None:
        vc = _obj(c["values_count"], f"{where}.values_count")
        for k in vc:
            if k not in ("lt", "gt", "lte", "gte") or (vc[k] is not None and (not _is_int(vc[k]) or vc[k] < 0)):
                raise BadRequest(f"Format error in JSON body: {where}.values_count: {k} must be one of lt/gt/lte/gte with a non-negative integer")
        kwargs["values_count"] = qe.ValuesCount(**{k: v for k, v in vc.items() if v is not None})
    for flag in ("is_empty", "is_null"):
        if c.get(flag) is not None:
            if not isinstance(c[flag], bool):
                raise BadRequest(f"Format error in JSON body: {where}.{flag} must be a boolean")
            kwargs[flag] = c[flag]
    if not kwargs:
        if mode.lenient:
            return _NOTHING
        raise Unprocessable(
            f"Validation error in JSON body: [{mode.prefix}{where}.__all__: Validation error: "
            "At least one field condition must be specified [{}]]"
        )
    return qe.FieldCondition(key, **kwargs)


def _match(v: Any, where: str) -> Any:
    m = _obj(v, where)
    if len(m) != 1:
        raise BadRequest(f"Format error in JSON body: {where} must have exactly one of value, any, except, text, text_any, phrase, prefix")
    (kind, val), = m.items()
    if kind == "value":
        if isinstance(val, bool):
            return qe.MatchValue(_EdgeBool(val))  # type: ignore[arg-type]
        if _is_int(val) or isinstance(val, str):
            return qe.MatchValue(val)
        raise BadRequest(f"Format error in JSON body: {where}.value must be a string, integer or boolean (floats are matched with range)")
    if kind in ("any", "except"):
        if not isinstance(val, list) or not (
            all(isinstance(x, str) for x in val) or all(_is_int(x) for x in val)
        ):
            raise BadRequest(f"Format error in JSON body: {where}.{kind} must be a list of strings or a list of integers")
        return qe.MatchAny(val) if kind == "any" else qe.MatchExcept(val)
    if kind in ("text", "text_any", "phrase", "prefix", "substring"):
        if not isinstance(val, str):
            raise BadRequest(f"Format error in JSON body: {where}.{kind} must be a string")
        return {
            "text": qe.MatchText,
            "text_any": qe.MatchTextAny,
            "phrase": qe.MatchPhrase,
            "prefix": qe.MatchPrefix,
            "substring": qe.MatchSubstring,
        }[kind](val)
    raise BadRequest(f"Format error in JSON body: {where}: unknown match kind {kind!r}")


def _range(v: Any, where: str) -> Any:
    r = _obj(v, where)
    unknown = set(r) - {"gt", "gte", "lt", "lte"}
    if unknown:
        raise BadRequest(f"Format error in JSON body: {where}: unknown field(s) {sorted(unknown)}; expected gt, gte, lt, lte")
    vals = {k: x for k, x in r.items() if x is not None}
    if all(_is_number(x) for x in vals.values()):
        return qe.RangeFloat(**{k: float(x) for k, x in vals.items()})
    if all(isinstance(x, str) for x in vals.values()):
        try:
            return qe.RangeDateTime(**vals)
        except Exception:  # noqa: BLE001 - the binding raises ValueError for a string it cannot parse
            bad = next(x for x in vals.values() if not _is_datetime(x))
            raise BadRequest(
                f"Format error in JSON body: '{bad}' does not match accepted datetime format (RFC3339). Example: 2014-01-01T00:00:00Z"
            ) from None
    raise BadRequest(f"Format error in JSON body: {where}: bounds must be all numbers or all RFC 3339 datetime strings")


def _is_datetime(s: str) -> bool:
    try:
        qe.RangeDateTime(gt=s)
        return True
    except Exception:  # noqa: BLE001
        return False


def _geo_point(v: Any, where: str) -> qe.GeoPoint:
    p = _obj(v, where)
    lon, lat = p.get("lon"), p.get("lat")
    if not _is_number(lon) or not _is_number(lat) or not (-180 <= lon <= 180) or not (-90 <= lat <= 90):
        raise BadRequest(f"Format error in JSON body: {where} must be {{lon: -180..180, lat: -90..90}}")
    return qe.GeoPoint(float(lon), float(lat))


def _line(v: Any, where: str) -> list[qe.GeoPoint]:
    pts = _obj(v, where).get("points")
    if not isinstance(pts, list):
        raise BadRequest(f"Format error in JSON body: {where}.points must be a list of geo points")
    return [_geo_point(p, f"{where}.points[{i}]") for i, p in enumerate(pts)]


def parse_with_payload(v: Any, default: bool, where: str = "with_payload") -> Any:
    """bool | [keys] | {include: [...]} | {exclude: [...]} -> Edge WithPayloadType."""
    if v is None:
        return default
    if isinstance(v, bool):
        return v
    if isinstance(v, list) and all(isinstance(k, str) for k in v):
        return qe.PayloadSelector.Include(v)
    if isinstance(v, dict) and len(v) == 1:
        (kind, keys), = v.items()
        if isinstance(keys, str):
            keys = [keys]
        if kind in ("include", "exclude") and isinstance(keys, list) and all(isinstance(k, str) for k in keys):
            return qe.PayloadSelector.Include(keys) if kind == "include" else qe.PayloadSelector.Exclude(keys)
    raise BadRequest(f"Format error in JSON body: {where} must be a boolean, a list of keys, {{include: [...]}} or {{exclude: [...]}}")


def parse_with_vector(v: Any, default: bool, where: str = "with_vector") -> Any:
    if v is None:
        return default
    if isinstance(v, bool):
        return v
    if isinstance(v, list) and all(isinstance(k, str) for k in v):
        return v
    raise BadRequest(f"Format error in JSON body: {where} must be a boolean or a list of vector names")


def parse_search_params(v: Any, where: str = "params") -> qe.SearchParams | None:
    if v is None:
        return None
    p = _obj(v, where)
    kwargs: dict[str, Any] = {}
    if p.get("hnsw_ef") is not None:
        if not _is_int(p["hnsw_ef"]) or p["hnsw_ef"] < 0:
            raise BadRequest(f"Format error in JSON body: {where}.hnsw_ef must be a non-negative integer")
        kwargs["hnsw_ef"] = p["hnsw_ef"]
    for flag in ("exact", "indexed_only"):
        if p.get(flag) is not None:
            if not isinstance(p[flag], bool):
                raise BadRequest(f"Format error in JSON body: {where}.{flag} must be a boolean")
            kwargs[flag] = p[flag]
    if p.get("quantization") is not None:
        q = _obj(p["quantization"], f"{where}.quantization")
        kwargs["quantization"] = qe.QuantizationSearchParams(
            **{k: q[k] for k in ("ignore", "rescore", "oversampling") if q.get(k) is not None}
        )
    if p.get("acorn") is not None:
        raise Unsupported(f"{where}.acorn")
    return qe.SearchParams(**kwargs)


def parse_order_by(v: Any, where: str = "order_by") -> qe.OrderBy:
    if isinstance(v, str):
        return qe.OrderBy(_key(v, where))
    o = _obj(v, where)
    direction = o.get("direction")
    if direction is not None and direction not in ("asc", "desc"):
        raise BadRequest(f"Format error in JSON body: {where}.direction must be \"asc\" or \"desc\"")
    start_from = o.get("start_from")
    if start_from is not None and not (_is_number(start_from) or isinstance(start_from, str)):
        raise BadRequest(f"Format error in JSON body: {where}.start_from must be a number or a datetime string")
    return qe.OrderBy(
        _key(o.get("key"), f"{where}.key"),
        direction=None if direction is None else (qe.Direction.Asc if direction == "asc" else qe.Direction.Desc),
        start_from=start_from,
    )
