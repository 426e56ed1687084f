"""Entry point: python -m qdrant_local --host 127.0.0.1 --port 16333 --data-dir DIR"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from pathlib import Path

from . import __version__
from .server import QDRANT_API_VERSION, Server
from .store import Store


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="qdrant_local", description="qdrant-local: a local stand-in for the Qdrant server over Qdrant Edge")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=16333)
    ap.add_argument("--data-dir", type=Path, default=Path("./qdrant-local-data"))
    ap.add_argument("--flush-interval", type=float, default=5.0, help="seconds between flushes of changed collections")
    ap.add_argument("--log-level", default="INFO")
    args = ap.parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    log = logging.getLogger("qdrant_local")

    store = Store(args.data_dir.resolve())
    server = Server(args.host, args.port, store, args.flush_interval)
    log.info(
        "qdrant-local %s: LOCAL STAND-IN for the Qdrant server (Qdrant Edge engine, not a Qdrant server), "
        "Qdrant REST subset v%s, listening on http://%s:%d, data dir %s",
        __version__, QDRANT_API_VERSION, args.host, server.port, args.data_dir.resolve(),
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
