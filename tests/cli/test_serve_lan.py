"""Players on other laptops reach ``unoduo serve --host 0.0.0.0`` at the machine's network address,
and the server says which (issue 33, point 6): 0.0.0.0 is no address to give anyone."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from bench.progress import STALL_SECONDS
from cli import serve_runtime
from cli.serve_runtime import lan_address, where_players_connect
from tests.cli.serving import free_port, serve, serve_env, stop, wait_until_up


def test_the_line_names_the_address_players_type(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(serve_runtime, "lan_address", lambda: "192.168.1.20")
    assert (
        where_players_connect("0.0.0.0", 8000)
        == "players on other machines: unoduo play --server http://192.168.1.20:8000"
    )
    assert where_players_connect("::", 8000).endswith("--server http://192.168.1.20:8000")
    assert (
        where_players_connect("10.0.0.5", 9000)
        == "players on other machines: unoduo play --server http://10.0.0.5:9000"
    )
    assert where_players_connect("127.0.0.1", 8000).startswith(
        "only this machine can connect; for other laptops: unoduo serve --host 0.0.0.0"
    )
    monkeypatch.setattr(serve_runtime, "lan_address", lambda: None)
    assert "hostname -I" in where_players_connect("0.0.0.0", 8000)


def test_a_server_on_every_address_answers_on_the_network_address_it_names(tmp_path: Path) -> None:
    address = lan_address()
    if address is None:
        pytest.skip("this machine has no network address other than loopback")
    port = free_port()
    process = serve("--host", "0.0.0.0", "--port", str(port), "--db", str(tmp_path / "club.sqlite3"), env=serve_env())
    base = f"http://{address}:{port}"
    try:
        wait_until_up(base, process)
        assert httpx.get(f"{base}/api", timeout=STALL_SECONDS).json()["name"] == "unoduo"
    finally:
        output = stop(process)
    assert f"players on other machines: unoduo play --server {base}\n" in output, output
