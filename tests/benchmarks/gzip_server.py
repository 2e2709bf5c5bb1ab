"""A static server that compresses text and WebAssembly with gzip, as real hosts do (the benches).

`python -m http.server` sends no compression, which makes a page look slower than it is on
GitHub Pages or nginx; Lighthouse's figures are only meaningful against a compressing server.
"""

from __future__ import annotations

import functools
import gzip
import http.server
import os
import threading
from pathlib import Path

from sitebuild.serve import QuietServer

# Types a host compresses; archives and images are compressed already.
COMPRESSED_TYPES = ("text/", "application/javascript", "application/json", "application/wasm", "image/svg+xml")


class GzipHandler(http.server.SimpleHTTPRequestHandler):
    # Compressed bodies by (path, mtime): each file is compressed once per server.
    _cache: dict[tuple[str, float], bytes] = {}
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".mjs": "application/javascript", ".js": "application/javascript",
                      ".wasm": "application/wasm", ".json": "application/json"}

    def log_message(self, *args):
        pass

    def send_head(self):
        path = self.translate_path(self.path)
        if os.path.isdir(path):
            index = os.path.join(path, "index.html")
            if not self.path.split("?", 1)[0].endswith("/") or not os.path.isfile(index):
                return super().send_head()
            path = index
        ctype = self.guess_type(path)
        wants_gzip = "gzip" in self.headers.get("Accept-Encoding", "")
        if not (wants_gzip and os.path.isfile(path) and ctype.startswith(COMPRESSED_TYPES)):
            return super().send_head()
        key = (path, os.path.getmtime(path))
        body = self._cache.get(key)
        if body is None:
            body = self._cache[key] = gzip.compress(Path(path).read_bytes(), compresslevel=6, mtime=0)
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Vary", "Accept-Encoding")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return _Body(body)


class _Body:
    """What send_head returns: a file-like body that do_GET copies and closes."""

    def __init__(self, data: bytes):
        self.data = data

    def read(self, *_):
        data, self.data = self.data, b""
        return data

    def close(self):
        pass


def serve_gzip(directory: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    """Serve `directory` on a free local port; returns the server and its base URL."""
    handler = functools.partial(GzipHandler, directory=str(directory))
    server = QuietServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"
