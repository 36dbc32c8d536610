"""``unoduo tournament list`` reads ``GET /api/tournaments`` page by page (issue 32, point 6: the
listing pages, newest first, ``limit`` at most 200) and still prints every tournament, oldest first."""

from __future__ import annotations

from typing import Any

import pytest

from cli import tournament_cmd
from cli.tournament_cmd import LISTING_PAGE, Server, every_tournament


def serve_pages(monkeypatch: pytest.MonkeyPatch, ids: list[str], paging: bool = True) -> list[dict[str, str]]:
    """A server holding ``ids`` (oldest first) that answers pages newest first, as the API does;
    the queries it was asked are returned."""
    asked: list[dict[str, str]] = []

    def call_list(_server: Server, path: str, params: dict[str, str] | None = None) -> list[dict[str, Any]]:
        assert path == "/api/tournaments"
        asked.append(dict(params or {}))
        if not paging:  # a server from before paging: everything, oldest first
            return [{"id": i} for i in ids]
        newest_first = ids[::-1]
        params = params or {}
        start = newest_first.index(params["before"]) + 1 if "before" in params else 0
        limit = int(params.get("limit", 50))
        assert 1 <= limit <= LISTING_PAGE
        return [{"id": i} for i in newest_first[start : start + limit]]

    monkeypatch.setattr(tournament_cmd, "call_list", call_list)
    return asked


@pytest.mark.parametrize("count", [0, 1, LISTING_PAGE - 1, LISTING_PAGE, 2 * LISTING_PAGE + 7])
def test_every_page_is_read_and_printed_oldest_first(monkeypatch: pytest.MonkeyPatch, count: int) -> None:
    ids = [f"t_{n:04d}" for n in range(count)]
    asked = serve_pages(monkeypatch, ids)
    assert [t["id"] for t in every_tournament(Server("http://x", None))] == ids
    assert len(asked) == count // LISTING_PAGE + 1
    assert all(q["limit"] == str(LISTING_PAGE) for q in asked)


def test_a_server_that_does_not_page_is_read_once_over(monkeypatch: pytest.MonkeyPatch) -> None:
    ids = [f"t_{n:04d}" for n in range(LISTING_PAGE + 30)]
    asked = serve_pages(monkeypatch, ids, paging=False)
    assert sorted(t["id"] for t in every_tournament(Server("http://x", None))) == ids
    assert len(asked) == 2  # the second page repeats the first: the end
