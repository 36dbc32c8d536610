"""One way in, against a real server (issue 19, points 5 and 6): what only uvicorn in front shows.

- ``X-Forwarded-For`` is believed only from ``UNODUO_TRUSTED_PROXIES`` (uvicorn believed it from
  127.0.0.1 by default: 60 wrong tokens with distinct headers never got a 429).
- The socket goes through the same wrong-token limit as HTTP (it skipped it: 200 wrong-token
  upgrades, none throttled), and its refusals before the feed are close codes, not a bare 403.
- No token reaches the server's log, not even one sent as ``?token=``.
"""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.reliability.attacks import close_code, read_head, served, ws_upgrade

LIMIT = 5  # wrong tokens a minute in these tests


def wrong_token_statuses(base: str, count: int, forwarded: bool) -> list[int]:
    statuses = []
    with httpx.Client(base_url=base, timeout=60) as client:
        for n in range(count):
            headers = {"Authorization": f"Bearer wrong-{n}"}
            if forwarded:
                headers["X-Forwarded-For"] = f"203.0.113.{n + 1}"
            statuses.append(client.get("/api/me", headers=headers).status_code)
    return statuses


def test_forwarded_for_headers_do_not_dodge_the_wrong_token_limit(tmp_path: Path) -> None:
    with served(tmp_path, tmp_path / "xff.sqlite3", UNODUO_BAD_TOKENS_PER_MINUTE=str(LIMIT)) as server:
        statuses = wrong_token_statuses(server.base, 3 * LIMIT, forwarded=True)
    assert statuses[:LIMIT] == [401] * LIMIT
    assert set(statuses[LIMIT:]) == {429}, statuses


def test_a_trusted_proxy_s_forwarded_for_is_believed(tmp_path: Path) -> None:
    settings = {"UNODUO_BAD_TOKENS_PER_MINUTE": str(LIMIT), "UNODUO_TRUSTED_PROXIES": "127.0.0.1"}
    with served(tmp_path, tmp_path / "proxy.sqlite3", **settings) as server:
        statuses = wrong_token_statuses(server.base, 3 * LIMIT, forwarded=True)
    assert set(statuses) == {401}, statuses  # each a different client behind the proxy


def socket_close_code(port: int, path: str, headers: dict[str, str] | None = None) -> tuple[int, int]:
    """The HTTP status of the upgrade and the close code that follows it."""
    sock = ws_upgrade(port, path, headers)
    try:
        status, rest = read_head(sock)
        return status, close_code(sock, rest) if status == 101 else -1
    finally:
        sock.close()


def test_wrong_token_upgrades_are_throttled_like_http(tmp_path: Path) -> None:
    with served(tmp_path, tmp_path / "ws.sqlite3", UNODUO_BAD_TOKENS_PER_MINUTE=str(LIMIT)) as server:
        answers = [socket_close_code(server.port, f"/api/matches/m_x/ws?token=wrong-{n}") for n in range(3 * LIMIT)]
        after = httpx.get(f"{server.base}/api/me", headers={"Authorization": "Bearer another"}, timeout=60)
    assert answers[:LIMIT] == [(101, 4401)] * LIMIT
    assert set(answers[LIMIT:]) == {(101, 4429)}, answers
    assert after.status_code == 429  # one limit for both ways in


def test_refusals_before_the_feed_are_close_codes_not_a_bare_403(tmp_path: Path) -> None:
    with served(tmp_path, tmp_path / "codes.sqlite3") as server:
        token = httpx.post(f"{server.base}/api/players", json={"name": "ada"}, timeout=60).json()["token"]
        bearer = {"Authorization": f"Bearer {token}"}
        match_id = httpx.post(
            f"{server.base}/api/matches", headers=bearer, json={"opponent": "bot:greedy"}, timeout=60
        ).json()["id"]
        unknown = socket_close_code(server.port, "/api/matches/m_nope/ws")
        bad_token = socket_close_code(server.port, f"/api/matches/{match_id}/ws?token=nobody")
        bad_header = socket_close_code(server.port, f"/api/matches/{match_id}/ws", {"Authorization": "Basic abc"})
        bad_since = socket_close_code(server.port, f"/api/matches/{match_id}/ws?since={2**40}")
    assert (unknown, bad_token, bad_header, bad_since) == ((101, 4404), (101, 4401), (101, 4401), (101, 1008))


def test_no_token_reaches_the_log(tmp_path: Path) -> None:
    with served(tmp_path, tmp_path / "log.sqlite3") as server:
        token = httpx.post(f"{server.base}/api/players", json={"name": "ada"}, timeout=60).json()["token"]
        bearer = {"Authorization": f"Bearer {token}"}
        match_id = httpx.post(
            f"{server.base}/api/matches", headers=bearer, json={"opponent": "bot:greedy"}, timeout=60
        ).json()["id"]
        socket_close_code(server.port, f"/api/matches/m_nope/ws?since=0&token={token}")
        sock = ws_upgrade(server.port, f"/api/matches/{match_id}/ws?token={token}&since=0")
        read_head(sock)
        sock.close()
        httpx.get(f"{server.base}/api/me?token={token}", headers=bearer, timeout=60)
        httpx.get(f"{server.base}/api/matches/{match_id}/events?token={token}&since=0", timeout=60)
        httpx.get(f"{server.base}/api/me", headers={"Authorization": "Bearer wrong-token-zzz"}, timeout=60)
        log = server.output()
    assert token not in log
    assert "token=[redacted]" in log and "wrong-token-zzz" not in log
