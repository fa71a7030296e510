"""Debian's nginx in front of several dashboard replicas, for the tests (and the benchmark).

The shipped example (deploy/nginx/judgeboard.conf) is the config under test: only its listen
address and its upstream servers are replaced. nginx runs as a normal process, in the
foreground and without worker processes, with its own prefix in a temporary folder (its
config, logs, temporary files and PID there, nothing under /etc or /var), on a free port of
127.0.0.1; it is stopped by its PID. Its access log writes, for every request, the replica
that served it and the affinity key (the browser's cookie, or the one given with this answer):
a WebSocket's line is written when it closes.
"""

from __future__ import annotations

import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from tests.paths import REPO_ROOT

NGINX = Path("/usr/sbin/nginx")
EXAMPLE = REPO_ROOT / "deploy" / "nginx" / "judgeboard.conf"
START_TIMEOUT_S = 60.0
# One line a request, fields split by tabs (a cookie or request never holds a tab).
LOG_FORMAT = "$msec\\t$status\\t$upstream_addr\\t$judgeboard_replica\\t$request"

_MAIN = """daemon off;
master_process off;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log info;
events {{ worker_connections 512; }}
http {{
    client_body_temp_path {prefix}/tmp/body;
    proxy_temp_path {prefix}/tmp/proxy;
    fastcgi_temp_path {prefix}/tmp/fastcgi;
    uwsgi_temp_path {prefix}/tmp/uwsgi;
    scgi_temp_path {prefix}/tmp/scgi;
    log_format replicas "{log_format}";
    access_log {prefix}/access.log replicas;
    include {prefix}/judgeboard.conf;
}}
"""


@dataclass(frozen=True)
class Request:
    """One line of the access log."""

    ended_s: float
    status: int
    upstream: str  # the replica's host:port ("-" when nginx answered itself)
    key: str  # the affinity key: the browser's judgeboard_replica cookie, or the one set now
    request: str  # "GET /path HTTP/1.1"

    @property
    def path(self) -> str:
        parts = self.request.split(" ")
        return parts[1].split("?", 1)[0] if len(parts) > 1 else ""


def nginx_binary() -> Path:
    if not NGINX.exists():
        raise RuntimeError(
            f"nginx is missing ({NGINX}): install Debian's nginx package "
            "(apt-get install nginx; `make nginx`, which `make test` runs, does this)"
        )
    return NGINX


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def proxy_config(example: str, *, port: int, replicas: list[int]) -> str:
    """The example config listening on 127.0.0.1:`port` in front of the `replicas` ports."""
    servers = "".join(f"    server 127.0.0.1:{p};\n" for p in replicas)
    text, n_upstreams = re.subn(
        r"(upstream judgeboard \{\n    hash [^\n]*\n)(?:    server [^\n]*\n)+",
        lambda m: m.group(1) + servers,
        example,
    )
    text, n_listens = re.subn(r"listen 127\.0\.0\.1:\d+;", f"listen 127.0.0.1:{port};", text)
    if n_upstreams != 1 or n_listens != 1:
        raise RuntimeError(f"{EXAMPLE}: expected one upstream block and one listen line")
    return text


class NginxProxy:
    """`NginxProxy(replica_ports).start()`; `url`; `requests()`; `stop()`."""

    def __init__(self, replicas: list[int]) -> None:
        self.replicas = replicas
        self.prefix = Path(tempfile.mkdtemp(prefix="jb-nginx-"))
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None

    def _write_config(self) -> Path:
        (self.prefix / "tmp").mkdir()
        example = EXAMPLE.read_text(encoding="utf-8")
        config = proxy_config(example, port=self.port, replicas=self.replicas)
        (self.prefix / "judgeboard.conf").write_text(config, encoding="utf-8")
        main = self.prefix / "nginx.conf"
        main.write_text(_MAIN.format(prefix=self.prefix, log_format=LOG_FORMAT), encoding="utf-8")
        return main

    def start(self) -> NginxProxy:
        binary = nginx_binary()
        main = self._write_config()
        argv = [str(binary), "-p", str(self.prefix), "-e", str(self.prefix / "error.log")]
        checked = subprocess.run(
            [*argv, "-t", "-c", str(main)], capture_output=True, text=True, check=False
        )
        if checked.returncode:
            raise RuntimeError(f"nginx -t refused the config: {checked.stderr.strip()}")
        with open(self.prefix / "stderr.log", "wb") as out:
            self.process = subprocess.Popen(
                [*argv, "-c", str(main)], stdout=out, stderr=subprocess.STDOUT
            )
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_ready(self) -> None:
        """A bounded poll until a request through the proxy reaches a replica."""
        assert self.process is not None
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"nginx exited with {self.process.returncode}: {self.log()}")
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=5) as answer:
                    if answer.status == 200:
                        return
            except OSError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"nginx did not answer within {START_TIMEOUT_S:.0f} s: {self.log()}")

    def log(self) -> str:
        found = [self.prefix / "stderr.log", self.prefix / "error.log"]
        return " ".join(p.read_text(errors="replace")[-1000:] for p in found if p.exists())

    def requests(self) -> list[Request]:
        """Every request nginx has finished so far."""
        path = self.prefix / "access.log"
        if not path.exists():
            return []
        found = []
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            ended, status, upstream, cookie, request = line.split("\t", 4)
            found.append(Request(float(ended), int(status), upstream, cookie, request))
        return found

    def stop(self) -> None:
        """Stop nginx by its PID (a fast shutdown: open WebSockets are closed) and remove its
        folder."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=15)
        self.process = None
        shutil.rmtree(self.prefix, ignore_errors=True)
