"""A bring-your-own bot for unoduo (docs/BOTS.md), on the standard library and ``websockets``: it registers
a bot account (or uses a saved token), follows its lobby, joins each match it is in and plays legal moves:
    python examples/bot.py --server http://127.0.0.1:8000 --name robo --token-file robo.token --once"""

from __future__ import annotations

import argparse
import asyncio
import functools
import hashlib
import json
import os
import sys
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

COLORS = {"R": "red", "Y": "yellow", "G": "green", "B": "blue"}
RANK = {"dump": 0, "play": 1, "draft": 2, "accept": 3, "color": 4, "draw": 5, "pass": 6}  # first choice first
LATE = {"stale_version", "match_over"}  # decided on an old view (the socket catching up): a newer one is coming
FINAL = {1000, 4401, 4403, 4404, 4409}  # closed for good: the match is over, or the socket is not ours
Json = dict[str, Any]
Handler = Callable[[ClientConnection, Json], Awaitable[bool]]  # True: done with this socket
log = functools.partial(print, "bot:", file=sys.stderr, flush=True)


class Bot:
    def __init__(self, server: str, token: str = "") -> None:
        self.server, self.token = server.rstrip("/"), token
        self.matches: dict[str, asyncio.Task[None]] = {}

    def http(self, method: str, path: str, body: Json | None = None) -> Any:
        headers = {"Content-Type": "application/json", "Authorization": f"Bearer {self.token}"}
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.server + path, data, headers, method=method)
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.loads(answer.read() or b"null")

    async def follow(self, path: Callable[[], str], handle: Handler) -> None:
        """Read a socket until ``handle`` is done or it is closed for good; after a drop, resume at ``path()``."""
        while True:
            url = "ws" + self.server.removeprefix("http") + path()
            try:
                async with connect(url, additional_headers={"Authorization": f"Bearer {self.token}"}) as ws:
                    async for raw in ws:
                        if await handle(ws, json.loads(raw)):
                            return
                return  # closed 1000
            except ConnectionClosed as closed:
                if closed.rcvd is not None and closed.rcvd.code in FINAL:
                    return log(f"{path()} closed: {closed.rcvd.code} {closed.rcvd.reason}")
            except OSError as exc:
                log(f"{path()}: {exc}; reconnecting")
            await asyncio.sleep(1)

    def take(self, match_id: str | None) -> None:  # once: a pairing may come in the state and as a message
        if match_id and match_id not in self.matches:
            self.matches[match_id] = asyncio.create_task(self.play(match_id))

    async def lobby(self, once: bool) -> None:  # WS /api/me/ws: the matches open at connect, then news
        async def handle(_ws: ClientConnection, message: Json) -> bool:
            if message["type"] == "state":
                for summary in message["matches"]:  # every match of ours, a tournament's open rounds too
                    self.take(summary["id"] if summary["status"] in ("waiting", "live") else None)
            elif message["type"] == "pairing" or message.get("status") == "waiting":
                self.take(message["match"])  # a round opened for us, or a casual invitation
            elif message["type"] == "tournament" and message["status"] == "finished":
                log(f"tournament {message['tournament']} finished")
                return once
            return False

        await self.follow(lambda: "/api/me/ws", handle)

    async def play(self, match_id: str) -> None:
        entropy = hashlib.sha256(f"{self.token}|{match_id}".encode()).hexdigest()  # the same on a retry
        try:
            await asyncio.to_thread(self.http, "POST", f"/api/matches/{match_id}/join", {"entropy": entropy})
        except urllib.error.HTTPError as exc:  # 409: annulled, or joined with other entropy
            return log(f"cannot join {match_id}: {exc.code} {exc.read().decode()[:200]}")
        seen = {"seq": 0, "sent": -1}  # the last event read (a reconnect resumes after it), the last position played

        async def handle(ws: ClientConnection, message: Json) -> bool:
            if message["type"] == "event":
                seen["seq"], view = message["event"]["seq"], message["view"]
                if view["version"] > seen["sent"] and (command := choose(view)) is not None:
                    seen["sent"] = version = view["version"]  # one command per position, and only in it:
                    order = {"command_id": f"{match_id}-{version}", "expected_version": version, "command": command}
                    await ws.send(json.dumps({"type": "command", **order}))
            elif message["type"] == "result" and not message["ok"] and message["error"]["code"] not in LATE:
                log(f"{match_id}: refused {message['error']}")
            return bool(message["type"] == "annulled")

        await self.follow(lambda: f"/api/matches/{match_id}/ws?since={seen['seq']}", handle)


def choose(view: Json) -> Json | None:
    """A legal command for this view, or None when there is nothing to do (any ruleset, any seat count:
    it picks from ``legal``, never counts seats): UNO when it counts, else
    dump, play (plain cards before wilds), then the rest; a wild takes our commonest colour."""
    legal, counts, said = view["legal"], view["hand_counts"], view["uno"]
    if {"type": "uno"} in legal and any(n == 1 and not said[s] for s, n in enumerate(counts)):
        return {"type": "uno"}  # declare our own last card, or catch a seat that forgot
    options: list[Json] = [c for c in legal if c["type"] in RANK]
    if not isinstance(view["viewer"], int) or not options:
        return None
    best = dict(sorted(options, key=lambda c: (RANK[c["type"]], c.get("card", "")[:1] == "W"))[0])
    hand: list[str] = view["hand"] or []
    if best["type"] == "color" or best.get("card", "").startswith("W"):
        colours = Counter(COLORS[card[0]] for card in hand if card[0] in COLORS)
        best["color"] = colours.most_common(1)[0][0] if colours else "red"
    if best["type"] == "play" and len(hand) == 2:
        best["uno"] = True  # this play leaves one card: say it with the play
    return best


async def main() -> None:
    parser = argparse.ArgumentParser(description="an unoduo bot (docs/BOTS.md)")
    parser.add_argument("--server", default="http://127.0.0.1:8000")
    parser.add_argument("--name", help="register a bot account of this name (when there is no token yet)")
    parser.add_argument("--token-file", type=Path, help="the token is read here (a new account's is saved here)")
    parser.add_argument("--once", action="store_true", help="exit when the first tournament it is in finishes")
    args = parser.parse_args()
    saved: Path | None = args.token_file  # the token is the account: it is kept there, mode 600
    token = os.environ.get("UNODUO_BOT_TOKEN") or (saved.read_text().strip() if saved and saved.exists() else "")
    if not token and not args.name:
        parser.error("give --name to register, or a token ($UNODUO_BOT_TOKEN or --token-file)")
    if not token:  # register a bot account: the server shows its token this once
        try:
            made = Bot(args.server).http("POST", "/api/players", {"name": args.name, "bot": True})
        except urllib.error.HTTPError as exc:
            raise SystemExit(f"bot: the server refused: {exc.code} {exc.read().decode()[:300]}") from None
        token = str(made["token"])
        log(f"registered {made['name']} ({made['id']}, {made['kind']})")
        if saved is not None:
            saved.write_text(token + "\n")
            saved.chmod(0o600)
    bot = Bot(args.server, token)
    await bot.lobby(args.once)
    await asyncio.gather(*bot.matches.values())  # every match to its last event


if __name__ == "__main__":
    asyncio.run(main())
