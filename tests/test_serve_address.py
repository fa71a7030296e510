"""`judgeboard serve --address` beyond this machine refuses to serve without sign-in, unless
`--insecure` is given: then it warns that the dashboard has no sign-in.

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


def _serve(tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "dashboard.cli", "--db", str(tmp_path / "x.duckdb")]
    command += ["serve", "--address", "192.0.2.1", "--port", "18777", "--no-sample", *extra]
    return subprocess.run(
        command, cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False
    )


def test_serve_refuses_a_non_loopback_address_without_sign_in(tmp_path: Path) -> None:
    done = _serve(tmp_path)
    assert done.returncode == 2
    assert "refusing to serve on 192.0.2.1:18777 without sign-in" in done.stderr
    assert "--insecure" in done.stderr
    assert not (tmp_path / "x.duckdb").exists()  # refused before anything was opened


def test_a_users_file_or_an_oidc_provider_is_sign_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dashboard.auth import users

    db = tmp_path / "x.duckdb"
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(users.USERS_ENV, raising=False)
    assert not serve.sign_in_configured(db)
    (tmp_path / ".streamlit").mkdir()
    (tmp_path / ".streamlit" / "secrets.toml").write_text('[auth]\nclient_id = "x"\n')
    assert serve.sign_in_configured(db)
    (tmp_path / ".streamlit" / "secrets.toml").unlink()
    users.add_user(users.users_path(db), "ana", "correct horse", role="admin")
    assert serve.sign_in_configured(db)
    assert serve.address_warning("0.0.0.0", 8501, db_path=db) is None


def test_serve_insecure_prints_the_warning_before_it_starts(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "dashboard.cli", "--db", str(tmp_path / "x.duckdb")]
    command += ["serve", "--address", "192.0.2.1", "--port", "18777", "--no-sample"]
    command += ["--insecure"]
    done = subprocess.run(
        command, cwd=REPO_ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.stderr.splitlines()[0] == serve.address_warning("192.0.2.1", 18777)
    assert done.returncode != 0  # nothing listens: the address belongs to no machine
