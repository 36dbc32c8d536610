"""Fetching a finished match's replay from a server, over HTTP only (``GET
{server}/api/matches/{id}/replay``, docs/API.md). The client trusts nothing it is sent: the
text is verified like a file (engine.fairness.verify) before anything is shown."""

from __future__ import annotations

from urllib.parse import quote

import httpx


class FetchFailed(Exception):
    """The replay could not be fetched; the message says why, in one line."""


def replay_url(server: str, match: str) -> str:
    return f"{server.rstrip('/')}/api/matches/{quote(match, safe='')}/replay"


async def fetch_replay(
    server: str, match: str, *, transport: httpx.AsyncBaseTransport | None = None, timeout: float = 30.0
) -> str:
    """The replay file's text; FetchFailed for a server that cannot be reached or refuses."""
    url = replay_url(server, match)
    try:
        async with httpx.AsyncClient(transport=transport, timeout=timeout) as client:
            response = await client.get(url)
    except httpx.HTTPError as exc:
        raise FetchFailed(f"cannot fetch {url}: {exc or type(exc).__name__}") from None
    if response.status_code != 200:
        reason = response.reason_phrase
        try:
            body = response.json()
        except ValueError:
            body = None
        if isinstance(body, dict) and body.get("message"):
            reason = f"{body.get('code')}: {body['message']}"
        raise FetchFailed(f"{url} answered {response.status_code} ({reason})")
    return response.text
