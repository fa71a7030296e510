"""`judgeboard serve --address` beyond this machine warns that the dashboard has no sign-in.

The command is run for real with an address of TEST-NET-1 (192.0.2.1, RFC 5737), which no
machine holds: it warns, then Streamlit cannot bind it, so no server listens anywhere."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from dashboard.cli import serve
from tests.paths import REPO_ROOT


@pytest.mark.parametrize("address", ["127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost"])
def test_loopback_addresses_need_no_warning(address: str) -> None:
    assert serve.is_loopback(address)
    assert serve.address_warning(address, 8501) is None


@pytest.mark.parametrize("address", ["0.0.0.0", "::", "192.168.1.20", "dashboard.example"])
def test_other_addresses_warn_while_no_sign_in_is_configured(address: str) -> None:
    assert not serve.is_loopback(address)
    assert not serve.sign_in_configured()
    warning = serve.address_warning(address, 8502)
    assert warning == (
        f"judgeboard serve: warning: {address} can be reached from other machines and the "
        "dashboard has no sign-in: anyone who can reach port 8502 can read every answer and "
        "add or change ratings. Keep the default --address 127.0.0.1 unless everyone on this "
        "network may do that."
    )


def test_serve_prints_the_warning_before_it_starts(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "dashboard.cli", "--db", str(tmp_path / "x.duckdb")]
    command += ["serve", "--address", "192.0.2.1", "--port", "18777", "--no-sample"]
    done = subprocess.run(
        command, cwd=REPO_ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.stderr.splitlines()[0] == serve.address_warning("192.0.2.1", 18777)
    assert done.returncode != 0  # nothing listens: the address belongs to no machine
