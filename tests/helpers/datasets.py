"""Helpers for the dataset tests: an isolated cache, a local HTTP server (no network beyond
127.0.0.1). The shared dataset folder comes from the ``shared_datasets`` fixture (conftest.py)."""

from __future__ import annotations

import http.server
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest


def isolate(monkeypatch: pytest.MonkeyPatch, data_dir: Path, offline: bool = True) -> None:
    """Point the cache at ``data_dir`` and keep the test away from the internet."""
    monkeypatch.setenv("TSATTN_DATA_DIR", str(data_dir))
    monkeypatch.delenv("TSATTN_DATA_URL", raising=False)
    if offline:
        monkeypatch.setenv("TSATTN_OFFLINE", "1")
    else:
        monkeypatch.delenv("TSATTN_OFFLINE", raising=False)


@contextmanager
def serve(files: dict[str, bytes], delay: float = 0.0):
    """Serve ``files`` ({"/path": bytes}) on 127.0.0.1; yield (base_url, request_counts)."""
    counts: dict[str, int] = {}
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's naming)
            path = self.path.split("?")[0]
            with lock:
                counts[path] = counts.get(path, 0) + 1
            body = files.get(path)
            if body is None:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            half = len(body) // 2
            self.wfile.write(body[:half])
            self.wfile.flush()
            time.sleep(delay)
            self.wfile.write(body[half:])

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", counts
    finally:
        server.shutdown()
        server.server_close()
