"""Entry point: python -m qdrant_local --host 127.0.0.1 --port 16333 --data-dir DIR [--snapshots-dir DIR] [--api-key KEY]

Every option also comes from the environment variable the real Qdrant server reads, so a launcher
can give both the same environment: QDRANT__SERVICE__HOST, QDRANT__SERVICE__HTTP_PORT,
QDRANT__STORAGE__STORAGE_PATH, QDRANT__STORAGE__SNAPSHOTS_PATH, QDRANT__SERVICE__API_KEY,
QDRANT__LOG_LEVEL. A flag wins over the variable. The other QDRANT__* variables (gRPC port,
telemetry, ...) are ignored: qdrant-local serves REST only.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
from pathlib import Path

from . import __version__
from .server import QDRANT_API_VERSION, Server
from .store import Store


def _env(name: str) -> str | None:
    v = os.environ.get(name)
    return v if v not in (None, "") else None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="qdrant_local", description="qdrant-local: a local stand-in for the Qdrant server over Qdrant Edge")
    ap.add_argument("--host", default=_env("QDRANT__SERVICE__HOST") or "127.0.0.1")
    ap.add_argument("--port", type=int, default=int(_env("QDRANT__SERVICE__HTTP_PORT") or 16333))
    ap.add_argument("--data-dir", type=Path, default=Path(_env("QDRANT__STORAGE__STORAGE_PATH") or "./qdrant-local-data"))
    ap.add_argument(
        "--snapshots-dir",
        type=Path,
        default=Path(v) if (v := _env("QDRANT__STORAGE__SNAPSHOTS_PATH")) else None,
        help="where collection snapshots live (default <data-dir>/snapshots); recover by file:// accepts only files inside it",
    )
    ap.add_argument(
        "--api-key",
        default=_env("QDRANT__SERVICE__API_KEY"),
        help="require this key (header api-key, or Authorization: Bearer) on every route but /, /healthz, /livez, /readyz",
    )
    ap.add_argument("--flush-interval", type=float, default=5.0, help="seconds between flushes of changed collections")
    ap.add_argument("--log-level", default={"WARN": "WARNING"}.get(lv := (_env("QDRANT__LOG_LEVEL") or "INFO").upper(), lv))
    args = ap.parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    log = logging.getLogger("qdrant_local")

    store = Store(args.data_dir.resolve(), args.snapshots_dir.resolve() if args.snapshots_dir else None)
    server = Server(args.host, args.port, store, args.flush_interval, api_key=args.api_key)
    # Logged at WARNING so it shows whatever the level: nobody should mistake this for the real server.
    log.warning(
        "qdrant-local %s: LOCAL STAND-IN for the Qdrant server (Qdrant Edge engine, not a Qdrant server), "
        "Qdrant REST subset v%s, listening on http://%s:%d, data dir %s, snapshots dir %s, API key %s",
        __version__,
        QDRANT_API_VERSION,
        args.host,
        server.port,
        args.data_dir.resolve(),
        store.snapshots_dir,
        "required" if args.api_key else "not required",
    )

    def stop(signum: int, _frame: object) -> None:
        log.info("signal %d: flushing and stopping", signum)
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    server.serve_forever()
    # serve_forever returns once shutdown() has stopped the loop; wait for the flush/close to finish.
    store.close()
    log.info("qdrant-local stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
