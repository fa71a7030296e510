"""The shipped nginx example (deploy/nginx/judgeboard.conf) run by Debian's nginx in front of
two small HTTP servers on 127.0.0.1 that answer with their own port: a browser's cookie pins
it to one replica, the first answer gives the cookie, and different browsers reach both.
(tests/browser/test_replicas.py does the same with two dashboards and Chromium.)"""

from __future__ import annotations

import http.server
import threading
import urllib.request
from collections.abc import Iterator

import pytest

from tests.support.nginx import EXAMPLE, NginxProxy, proxy_config


class _Answer(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # the name http.server calls
        body = str(self.server.server_address[1]).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def proxy() -> Iterator[NginxProxy]:
    servers = [http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Answer) for _ in range(2)]
    for server in servers:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    made = NginxProxy([s.server_address[1] for s in servers])
    try:
        yield made.start()
    finally:
        made.stop()
        for server in servers:
            server.shutdown()
            server.server_close()


def _get(url: str, cookie: str | None) -> tuple[str, str | None]:
    request = urllib.request.Request(url, headers={"Cookie": cookie} if cookie else {})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return answer.read().decode(), answer.headers.get("Set-Cookie")


def test_a_cookie_pins_a_browser_to_one_replica(proxy: NginxProxy) -> None:
    replicas = {str(port) for port in proxy.replicas}
    first, given = _get(f"{proxy.url}/", None)
    assert first in replicas and given is not None and given.startswith("judgeboard_replica=")
    cookie = given.split(";", 1)[0]
    assert {_get(f"{proxy.url}/page{n}", cookie)[0] for n in range(20)} == {first}
    # 40 browsers, each with a cookie of its own, land on both replicas (odds of not: 2^-39)
    landed = {_get(f"{proxy.url}/", f"judgeboard_replica=browser-{n}")[0] for n in range(40)}
    assert landed == replicas


def test_the_example_config_keeps_its_shape() -> None:
    text = proxy_config(EXAMPLE.read_text(encoding="utf-8"), port=9, replicas=[7, 8])
    assert "listen 127.0.0.1:9;" in text
    assert "server 127.0.0.1:7;\n    server 127.0.0.1:8;\n}" in text
    with pytest.raises(RuntimeError, match="expected one upstream block"):
        proxy_config("events {}", port=9, replicas=[7])
