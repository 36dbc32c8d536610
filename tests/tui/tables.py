"""A ``classic`` table of N seats on fixed data, for the table's screen tests: the envelopes of a
few turns of a round (sealed and chained by ``engine.record.sealing`` as the server does) with the view
of one seat after each (docs/PROTOCOL.md "Tables of more than two": ``seats``, ``dealer``,
``direction``, ``departed``, one entry per seat in ``hand_counts``, ``scores``, ``uno``).

The views are written here, not folded by the engine: they say what the screen must draw
(whose turn, who said UNO, who left, the direction after a Reverse) on cue, at any table size.
:class:`Table` keeps the little that changes from turn to turn and hands out
``(event, view)`` pairs; :func:`table_messages` is the socket's messages for the scripted round.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any, cast

import httpx
from websockets.asyncio.client import ClientConnection

from engine.bots import get_bot
from engine.game.commands import CreateMatch, JoinSeat
from engine.game.evolve import evolve
from engine.game.rulesets import CLASSIC
from engine.game.shuffle import Dealer, commitment_of
from engine.game.state import INITIAL_STATE
from engine.play.match import LocalMatch
from engine.protocol.views import view
from engine.record.chain import ZERO_HASH
from engine.record.jsonfmt import AT_FORMAT
from engine.record.replay import replay_text, sealed_log, stream_of
from engine.record.sealing import openings_for, seal_event
from tests.tui.test_play_snapshots import ReplayedSocket, refuse
from tui_client.connection.api import Api

MATCH = "m_table"
SERVER = "http://unoduo.test"
SEED = bytes(range(32))
NOW = datetime(2026, 1, 1, 0, 10, tzinfo=UTC)  # the frozen clock
DEADLINE = (NOW + timedelta(seconds=42)).strftime(AT_FORMAT)
NAMES = ("ann", "bob", "greedy-1", "dan", "random-2", "fay", "gus", "hal", "ivy", "jo")
RULES = {"name": "classic", "hand_size": 7, "target": 500, "scoring": "winner_scores"}


def seat_names(seats: int) -> list[str]:
    return list(NAMES[:seats])


@dataclass
class Table:
    """A round at ``seats`` seats as ``viewer`` sees it: what a view needs, changed turn by turn."""

    seats: int
    viewer: int = 0
    dealer: int = 0
    direction: int = 1
    turn: int = 1
    top: str = "Y3"
    color: str = "yellow"
    draw_pile: int = 0
    counts: list[int] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)
    uno: list[bool] = field(default_factory=list)
    departed: list[bool] = field(default_factory=list)
    hand: list[str] = field(default_factory=lambda: ["R2", "Y7", "YS", "G4", "B1", "B+2", "W"])
    prev: str = ZERO_HASH
    seq: int = 0

    def __post_init__(self) -> None:
        self.counts = self.counts or [7] * self.seats
        self.counts[self.viewer] = len(self.hand)
        self.scores = self.scores or [0] * self.seats
        self.uno = self.uno or [False] * self.seats
        self.departed = self.departed or [False] * self.seats
        self.draw_pile = self.draw_pile or 108 - 7 * self.seats - 1

    def next_after(self, seat: int) -> int:
        for distance in range(1, self.seats):
            candidate = (seat + self.direction * distance) % self.seats
            if not self.departed[candidate]:
                return candidate
        return seat

    def view(self) -> dict[str, Any]:
        mine = self.turn == self.viewer
        legal = [{"type": "play", "card": c} for c in self.hand if c[0] in (self.color[0].upper(), "W")]
        return {
            "viewer": self.viewer,
            "version": self.seq,
            "ruleset": "classic",
            "rules": RULES,
            "phase": "play",
            "round": 2,
            "scores": list(self.scores),
            "target": 500,
            "player1": self.dealer,
            "seats": self.seats,
            "dealer": self.dealer,
            "direction": self.direction,
            "departed": list(self.departed),
            "turn": self.turn,
            "pending": {"kind": "turn", "seat": self.turn},
            "hand": list(self.hand),
            "hand_counts": list(self.counts),
            "top": self.top,
            "color": self.color,
            "draw_pile": self.draw_pile,
            "draft_pile": [],
            "uno": list(self.uno),
            "legal": [*legal, {"type": "draw"}] if mine else [],
            "deadline": DEADLINE,
            "move_seconds": 60,
        }

    def event(self, type_: str, data: dict[str, Any]) -> dict[str, Any]:
        self.seq += 1
        at = f"2026-01-01T00:00:{self.seq % 60:02d}.000000Z"
        sealed = seal_event(stream_of(MATCH), self.seq, type_, data, at, self.prev, SEED)
        self.prev = sealed.envelope["hash"]
        opened = openings_for(type_, sealed.envelope["data"], sealed.openings, self.viewer)
        return {**sealed.envelope, "open": dict(opened)}

    def message(self, type_: str, data: dict[str, Any]) -> str:
        event = self.event(type_, data)
        return json.dumps({"type": "event", "event": event, "view": self.view()})

    # ------------------------------------------------------------ what happens at the table

    def play(self, code: str, color: str, *, uno: bool = False) -> str:
        """The seat to move plays ``code``: Skip skips, Reverse turns (at 3+ seats), the turn moves on."""
        seat = self.turn
        data = {"seat": seat, "code": code, "color": color, "uno": uno, "card": 0}
        self.top, self.color = code, color
        self.counts[seat] -= 1
        self.uno[seat] = uno
        if code.endswith("R"):
            self.direction = -self.direction
            data["direction"] = self.direction  # recorded at a table of 3+ (engine.game.events.CardPlayed)
        after = self.next_after(seat)
        self.turn = self.next_after(after) if code.endswith("S") else after
        return self.message("card_played", data)

    def draw(self) -> str:
        seat = self.turn
        self.counts[seat] += 1
        self.uno[seat] = False
        self.draw_pile -= 1
        self.turn = self.next_after(seat)
        return self.message("cards_drawn", {"seat": seat, "count": 1, "reason": "draw"})

    def leave(self, seat: int) -> str:
        self.departed[seat] = True
        if self.turn == seat:
            self.turn = self.next_after(seat)
        return self.message("match_forfeited", {"seat": seat, "reason": "timeouts"})


def table_messages(seats: int) -> list[str]:
    """The socket messages seat 0 (ann) is sent for a round at ``seats`` seats, ending on her turn:
    at 4 seats (ann deals) dan says UNO and turns the direction, and it is bob's turn; at 10
    seats (hal deals), as well, two Skips, a seat that leaves by forfeit and one that draws, and
    it is ann's turn. Other sizes: just the deal."""
    t = Table(seats, dealer=0 if seats == 4 else 7, scores=[61, 0, 212, 30, 88, 0, 145, 20, 9, 0][:seats])
    t.turn = t.next_after(t.dealer)
    messages = [
        t.message("match_created", {"ruleset": RULES, "names": seat_names(seats), "seats": seats}),
        t.message("round_started", {"round": 2, "player1": t.dealer}),
    ]
    if seats == 4:  # ann deals; bob, greedy-1, then dan, who turns it back to greedy-1 and bob
        messages += [t.play("Y5", "yellow"), t.play("G5", "green")]
        t.counts[3] = 2
        messages += [t.play("GR", "green", uno=True)]  # dan: one card left; the direction turns: greedy-1
        messages += [t.play("G9", "green")]  # greedy-1: bob's turn, ann's after his
        return messages
    if seats != 10:
        return messages
    # 10 seats, dealer 7 (hal): ivy (8) first
    messages += [t.play("Y5", "yellow"), t.play("YS", "yellow")]  # jo skips ann
    messages += [t.play("Y7", "yellow"), t.play("G7", "green")]  # bob, greedy-1
    t.counts[3] = 2
    messages += [t.play("G2", "green", uno=True), t.play("G8", "green")]  # dan (UNO), random-2
    messages += [t.leave(5), t.play("G9", "green"), t.play("GR", "green")]  # fay leaves; gus, hal turns it
    messages += [t.play("GS", "green")]  # gus skips random-2 (fay has left)
    t.counts[2] = 2
    messages += [t.draw(), t.play("G1", "green", uno=True), t.play("B1", "blue")]  # dan draws; greedy-1 (UNO), bob
    return messages


# ---------------------------------------------------------------- a real classic table (the engine)


def real_match(seats: int, target: int = 60, steps: int | None = None, seed: str = "tui-table") -> LocalMatch:
    """A ``classic`` match at ``seats`` seats that the engine deals and decides, named as the
    server names them (``match_created``'s ``names``), random bots at every seat; played
    ``steps`` decisions, or (None) to the end (``target`` points: a short match)."""
    server_seed = hashlib.sha256(f"unoduo-{seed}|{seats}".encode()).digest()
    match = LocalMatch(dealer=Dealer(server_seed))
    ruleset = replace(CLASSIC, target=target)
    match.apply(CreateMatch(ruleset, commitment_of(server_seed), names=tuple(seat_names(seats)), seats=seats))
    for seat in range(seats):
        match.apply(JoinSeat(seat, f"entropy-{seat}"))
    bot = get_bot("random")
    rngs = [random.Random(f"{seed}:{seats}:{seat}") for seat in range(seats)]
    done = 0
    while match.state.winner is None and (steps is None or done < steps):
        mover = match.state.pending.seat
        assert mover is not None
        match.act(mover, bot.choose(view(match.state, mover), rngs[mover]))
        done += 1
    return match


def real_messages(match: LocalMatch, viewer: int, seed: bytes = SEED) -> list[str]:
    """The socket messages ``viewer`` is sent for ``match`` so far: each envelope with the
    openings it may see, and its view right after it (the clock at 42 s), as the server sends them;
    sealed with ``seed`` (the match's own, ``match.dealer.server_seed``, for salts the revealed seed gives)."""
    messages = []
    state = INITIAL_STATE
    for event, sealed in zip(match.events, sealed_log(match.events, stream_of(MATCH), seed), strict=True):
        state = evolve(state, event)
        seen = view(state, viewer)
        seen["deadline"] = DEADLINE if state.pending.seat is not None else None
        seen["move_seconds"] = 60
        opened = openings_for(event.type, sealed.envelope["data"], sealed.openings, viewer)
        messages.append(json.dumps({"type": "event", "event": {**sealed.envelope, "open": dict(opened)}, "view": seen}))
    return messages


def real_replay(seats: int, target: int = 60, seed: str = "tui-table") -> str:
    """A finished ``classic`` match at ``seats`` seats as its replay file (FAIRNESS.md)."""
    match = real_match(seats, target, seed=seed)
    return replay_text(f"m_table{seats}", "classic", [f"p_{name}" for name in seat_names(seats)], match.events)


class FrozenClock(datetime):
    """``tui_client.models.play_model``'s clock in the tests: always :data:`NOW` (the move clock reads 42 s)."""

    @classmethod
    def now(cls, tz: Any = None) -> FrozenClock:
        return cls.fromtimestamp(NOW.timestamp(), tz)


class TableApi(Api):
    """The app's connection: no HTTP answers, and one match whose socket sends ``messages``."""

    def __init__(self, messages: list[str], match: str = MATCH) -> None:
        super().__init__(SERVER, transport=httpx.MockTransport(refuse))
        self.messages = messages
        self.match_id = match

    async def open_socket(self, match_id: str, since: int) -> ClientConnection:
        assert (match_id, since) == (self.match_id, 0)
        return cast(ClientConnection, ReplayedSocket(self.messages))
