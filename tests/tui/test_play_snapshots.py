"""What the table and the tournament screen of ``unoduo play`` look like (pytest-textual-snapshot;
after a deliberate change of a screen: ``pytest tests/tui --snapshot-update``, then look at the
SVGs in tests/tui/__snapshots__/).

A live server deals at random, so the screens are fed fixed data through the app's ``api``:
- the table: a match the engine plays from a fixed seed (two greedy bots on seeded random
  streams) to the middle of round 2, sealed and chained as the server does, and sent to the
  screen by a socket that replays those messages (ann's view, seat 0); the clock is frozen;
- the tournament: a five-player round-robin in its last round, whose standings are computed by
  the server's own standings (``server.tournaments``) from fixed results, served by a fake
  HTTP transport after passing the server's response model.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, cast

import httpx
import pytest
from textual.pilot import Pilot
from websockets.asyncio.client import ClientConnection

from engine.bots import get_bot
from engine.game.evolve import evolve
from engine.game.state import INITIAL_STATE
from engine.play.match import LocalMatch
from engine.protocol.views import view
from engine.record.jsonfmt import AT_FORMAT
from engine.record.replay import sealed_log, stream_of
from engine.record.sealing import openings_for
from server.schemas import TournamentPublic
from server.tournaments.schedule import round_robin
from server.tournaments.standings import Result, standings
from tests.tui.helpers import until
from tui_client.apps.play_app import PlayApp, make_play_app
from tui_client.connection.api import Api
from tui_client.models import play_model
from tui_client.models.tournament_model import STANDING_COLUMNS
from tui_client.screens.signin_screen import SignInScreen
from tui_client.screens.table_screen import PlayScreen
from tui_client.screens.tournament_screen import TournamentScreen

SERVER = "http://unoduo.test"

# ---------------------------------------------------------------- the table: a match from a fixed seed

MATCH = "m_snapshot"
NAMES = ("ann", "bob")
SEED = hashlib.sha256(b"unoduo-tui-snapshot|63").digest()
STEPS = 55  # the bots' decisions up to ann's turn in the middle of round 2
NOW = datetime(2026, 1, 1, 0, 10, tzinfo=UTC)  # the frozen clock
DEADLINE = NOW + timedelta(seconds=42)


def canned_messages() -> list[str]:
    """The socket messages ann (seat 0) is sent for the match so far: each event's envelope with
    the openings she may see, and her view right after it (the move clock at 42 s)."""
    match = LocalMatch.start(SEED, entropies=NAMES)
    bots = (get_bot("greedy"), get_bot("greedy"))
    rngs = (random.Random("63:0"), random.Random("63:1"))
    for _ in range(STEPS):
        seat = match.state.pending.seat
        assert seat is not None
        match.act(seat, bots[seat].choose(view(match.state, seat), rngs[seat]))
    messages = []
    state = INITIAL_STATE
    for event, sealed in zip(match.events, sealed_log(match.events, stream_of(MATCH), SEED), strict=True):
        state = evolve(state, event)
        seen = view(state, 0)
        seen["deadline"] = DEADLINE.strftime(AT_FORMAT) if state.pending.seat is not None else None
        seen["move_seconds"] = 60
        envelope = {**sealed.envelope, "open": openings_for(event.type, sealed.envelope["data"], sealed.openings, 0)}
        messages.append(json.dumps({"type": "event", "event": envelope, "view": seen}))
    return messages


class ReplayedSocket:
    """What the table reads from ``Api.open_socket``: the canned messages, then silence (a match
    waiting on its player). Commands sent are kept, never answered."""

    def __init__(self, messages: list[str]) -> None:
        self.messages = messages
        self.sent: list[str] = []
        self.close_code: int | None = None
        self.close_reason: str | None = None

    async def _read(self) -> AsyncIterator[str]:
        for text in self.messages:
            yield text
        await asyncio.Event().wait()

    def __aiter__(self) -> AsyncIterator[str]:
        return self._read()

    async def send(self, text: str) -> None:
        self.sent.append(text)

    async def close(self) -> None:
        self.close_code = 1000


def refuse(request: httpx.Request) -> httpx.Response:
    return httpx.Response(404, json={"code": "not_found", "message": f"nothing canned at {request.url.path}"})


class ReplayedApi(Api):
    """The app's connection: no HTTP answers, and one match whose socket replays ``messages``."""

    def __init__(self, messages: list[str]) -> None:
        super().__init__(SERVER, transport=httpx.MockTransport(refuse))
        self.messages = messages

    async def open_socket(self, match_id: str, since: int) -> ClientConnection:
        assert (match_id, since) == (MATCH, 0)
        return cast(ClientConnection, ReplayedSocket(self.messages))


class FrozenClock(datetime):
    @classmethod
    def now(cls, tz: Any = None) -> FrozenClock:
        return cls.fromtimestamp(NOW.timestamp(), tz)


def table_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[PlayApp, int]:
    monkeypatch.setattr(play_model, "datetime", FrozenClock)
    messages = canned_messages()
    app = make_play_app(SERVER, config_dir=tmp_path, api=ReplayedApi(messages))
    return app, len(messages)


async def open_the_table(pilot: Pilot[Any], events: int) -> PlayScreen:
    """The lobby first (no saved token: it opens the sign-in screen), then the canned match's table over it."""
    app = pilot.app
    assert isinstance(app, PlayApp)
    await until(pilot, lambda: isinstance(app.screen, SignInScreen) and app.screen.ready, "the sign-in screen")
    screen = app.open_table(MATCH, 0, NAMES)
    await until(pilot, lambda: screen.model.last_seq == events and screen.connected, "the canned match")
    return screen


@pytest.mark.anyio
async def test_the_canned_table_is_in_the_middle_of_round_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the snapshot below shows, in words (so a change of the engine's play cannot pass unseen)."""
    app, events = table_app(tmp_path, monkeypatch)
    async with app.run_test(size=(100, 30)) as pilot:
        model = (await open_the_table(pilot, events)).model
        v = model.view or {}
        assert (v["phase"], v["round"], v["pending"]) == ("play", 2, {"kind": "turn", "seat": 0})
        assert v["scores"][0] > 0 and model.check.ok and model.check.openings > 0
        assert model.seconds_left() == 42.0
        assert set(model.hand) - model.playable and model.playable  # some cards dimmed, some bright
        assert any(card.startswith("W") for card in model.hand)


def test_the_table_in_the_middle_of_a_round(snap_compare: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The table at ann's turn, round 2: the opponent's cards face down, the top card and the
    colour, the piles, both scores and the target, the prompt with the clock, the hand (the
    playable cards bright, the selected one marked), the buttons, the log and the chain check."""
    app, events = table_app(tmp_path, monkeypatch)

    async def run_before(pilot: Pilot[Any]) -> None:
        await open_the_table(pilot, events)

    assert snap_compare(app, terminal_size=(100, 30), run_before=run_before)


# ---------------------------------------------------------------- the tournament: standings from fixed results

TOURNAMENT = "t_spring"
PLAYERS = {f"p_{name}": name for name in ("ann", "bob", "cyd", "dee", "eve")}
LOTS = ["p_cyd", "p_eve", "p_ann", "p_dee", "p_bob"]
TARGET = 100
# (round, board) → (winner's name, the totals white's first, how): round 5's board 2 is being played.
RESULTS: dict[tuple[int, int], tuple[str, tuple[int, int], str]] = {
    (1, 1): ("bob", (40, 104), "played"),
    (1, 2): ("dee", (112, 67), "played"),
    (2, 1): ("cyd", (121, 88), "played"),
    (2, 2): ("ann", (35, 102), "played"),
    (3, 1): ("ann", (108, 51), "played"),
    (3, 2): ("eve", (0, 0), "timeouts"),
    (4, 1): ("dee", (110, 95), "played"),
    (4, 2): ("cyd", (100, 72), "played"),
    (5, 1): ("bob", (103, 80), "played"),
}
LIVE = (5, 2, (23, 41))


def player(pid: str) -> dict[str, str]:
    return {"id": pid, "name": PLAYERS[pid], "kind": "human"}


def tournament_detail() -> dict[str, Any]:
    """``GET /api/tournaments/t_spring``: the schedule of the server's round-robin, the results
    above, the standings the server's own tie-break chain gives them; checked against the
    server's response model."""
    ids = list(PLAYERS)
    by_name = {name: pid for pid, name in PLAYERS.items()}
    rounds = []
    results = []
    schedule = round_robin(ids)
    for scheduled in schedule:
        matches, pairings = [], []
        for board, pairing in enumerate(scheduled.pairings, start=1):
            match = f"m_spring_{scheduled.number}_{board}"
            decided = RESULTS.get((scheduled.number, board))
            live = (scheduled.number, board) == LIVE[:2]
            seats = [player(pairing.white), player(pairing.black)]
            result = None
            if decided is not None:
                name, scores, how = decided
                winner, forfeit = by_name[name], how != "played"
                results.append(Result(pairing.white, pairing.black, winner, scores, forfeit=forfeit))
                result = {"winner": winner, "scores": list(scores), "forfeit": forfeit, "reason": how, "match": match}
            summary_scores = list(LIVE[2]) if live else list(decided[1]) if decided else [0, 0]
            matches.append(
                {
                    "id": match,
                    "status": "live" if live else "finished",
                    "player1": 0,
                    "winner": result["winner"] if result else None,
                    "tournament": TOURNAMENT,
                    "round": scheduled.number,
                    "ruleset": "uno-duo",
                    "move_seconds": 60,
                    "seats": seats,
                    "scores": summary_scores,
                    "places": None,  # a classic match's places once it ends (API.md); none here
                }
            )
            pairings.append(
                {
                    "slot": f"{scheduled.number}.{board}",
                    "board": board,
                    "white": seats[0],
                    "black": seats[1],
                    "status": "decided" if result else "live",
                    "match": match,
                    "annulled": [],
                    "result": result,
                }
            )
        status = "running" if scheduled.number == len(schedule) else "finished"
        rounds.append(
            {
                "number": scheduled.number,
                "status": status,
                "matches": matches,
                "bye": scheduled.bye,
                "pairings": pairings,
            }
        )
    byes = {r.bye: 1 for r in schedule if r.bye}
    rows = standings(ids, results, byes, LOTS)
    detail = {
        "id": TOURNAMENT,
        "name": "Spring Cup",
        "status": "running",
        "ruleset": "uno-duo",
        "rules": {"name": "uno-duo", "target": TARGET},
        "double": False,
        "move_seconds": 60,
        "join_seconds": 300,
        "commitment": hashlib.sha256(b"spring").hexdigest(),
        "server_seed": None,
        "players": [player(pid) for pid in ids],
        "withdrawals": [],
        "rounds": rounds,
        "standings": [
            {
                "rank": r.rank,
                "player": r.player,
                "name": PLAYERS[r.player],
                "played": r.played,
                "won": r.won,
                "lost": r.lost,
                "byes": r.byes,
                "forfeits": r.forfeits,
                "points_for": r.points_for,
                "points_against": r.points_against,
                "withdrawn": False,
                "tiebreaks": dict(r.tiebreaks),
                "decided_by": r.decided_by,
            }
            for r in rows
        ],
        "open_disputes": 0,
    }
    checked: dict[str, Any] = TournamentPublic.model_validate(detail).model_dump(mode="json")
    return checked


def tournament_app(tmp_path: Path) -> PlayApp:
    detail = tournament_detail()

    def answer(request: httpx.Request) -> httpx.Response:
        if request.method == "GET" and request.url.path == f"/api/tournaments/{TOURNAMENT}":
            return httpx.Response(200, json=detail)
        return refuse(request)

    api = Api(SERVER, transport=httpx.MockTransport(answer))
    return make_play_app(SERVER, config_dir=tmp_path, tournament=TOURNAMENT, api=api)


async def loaded(pilot: Pilot[Any]) -> TournamentScreen:
    screen = pilot.app.screen
    assert isinstance(screen, TournamentScreen)
    await until(pilot, lambda: screen.loads >= 1, "the tournament")
    return screen


def test_the_canned_standings_use_the_tie_break_chain() -> None:
    """What the snapshot below shows: four players level on two wins, parted by the later
    columns of the chain (so the table's every column has something to show)."""
    rows = tournament_detail()["standings"]
    assert [r["name"] for r in rows] == ["ann", "dee", "bob", "cyd", "eve"]
    assert [r["won"] for r in rows] == [2, 2, 2, 2, 1]
    assert {r["decided_by"] for r in rows} == {"points_difference", "head_to_head", "match_wins", None}
    assert [r["forfeits"] for r in rows] == [0, 1, 0, 0, 1] and all(r["byes"] == 1 for r in rows)
    assert set(rows[0]["tiebreaks"]) == {
        key.removeprefix("tb:") for key, _ in STANDING_COLUMNS if key.startswith("tb:")
    }


def test_the_tournament_standings_and_schedule(snap_compare: Any, tmp_path: Path) -> None:
    """The tournament screen in the last round: the title line, the standings with every column
    (played, won, lost, byes, forfeits, points for and against, each tie-break of the chain, and
    "decided by" in words), and the schedule by round with each pairing's status and result,
    the forfeit, the live pairing and the byes."""

    async def run_before(pilot: Pilot[Any]) -> None:
        await loaded(pilot)

    assert snap_compare(tournament_app(tmp_path), terminal_size=(150, 40), run_before=run_before)
