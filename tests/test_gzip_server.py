"""The benches' compressing static server (tests/benchmarks/gzip_server.py): what it sends is what a
gzip-serving host sends, byte for byte once decompressed, with the types browsers need."""

from __future__ import annotations

import gzip
import sys
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "benchmarks"))
from gzip_server import serve_gzip  # noqa: E402


def fetch(url: str, gzip_ok: bool = True):
    request = urllib.request.Request(url, headers={"Accept-Encoding": "gzip"} if gzip_ok else {})
    with urllib.request.urlopen(request) as response:
        return response.headers, response.read()


def test_text_and_wasm_are_gzipped_and_decompress_to_the_file(tmp_path):
    (tmp_path / "licao").mkdir()
    page = ("<!doctype html><p>Lição " * 200).encode()
    (tmp_path / "licao" / "index.html").write_bytes(page)
    (tmp_path / "py.wasm").write_bytes(b"\0asm" + bytes(4000))
    (tmp_path / "a.zip").write_bytes(b"PK" + bytes(100))
    server, base = serve_gzip(tmp_path)
    try:
        headers, body = fetch(base + "licao/")
        assert headers["Content-Encoding"] == "gzip" and headers["Content-Type"].startswith("text/html")
        assert gzip.decompress(body) == page and len(body) < len(page) / 5
        headers, body = fetch(base + "py.wasm")
        assert headers["Content-Type"] == "application/wasm" and gzip.decompress(body) == b"\0asm" + bytes(4000)
        headers, body = fetch(base + "a.zip")  # compressed already: sent as it is
        assert headers["Content-Encoding"] is None and body == b"PK" + bytes(100)
        headers, body = fetch(base + "licao/", gzip_ok=False)  # a client that cannot inflate
        assert headers["Content-Encoding"] is None and body == page
    finally:
        server.shutdown()
        server.server_close()
