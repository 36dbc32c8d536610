"""The match page's model (``/m/{id}``), from the calls the public API makes for a spectator:
``GET /api/matches/{id}`` (``MatchReads.show``: the summary and the spectator's view, or once the
match is over the audit view everyone gets), ``GET /api/matches/{id}/events`` (``events_since``:
the envelopes as a spectator receives them, for the log) and, once it is over,
``GET /api/matches/{id}/replay`` (``TournamentService.replay``: the replay file, for the scrubber
and the Wild Draw Four verdicts). Nothing reads the match's state: a live match's page holds no
more than a spectator's socket would, and a match of a duplicate round not revealed yet is
refused (``Withheld``) exactly as those routes refuse it.

The replay is read by the terminal client's scrubber core (``tui_client.models.replay_model``):
verified, folded once and kept for the next ``?at=`` (the most recently read finished matches, up
to :data:`REPLAY_EVENTS_KEPT` events in all, the newest always), so scrubbing a match costs one
fold, not one per step; at most :data:`FOLDS_AT_ONCE` folds run at once.
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from markupsafe import Markup, escape

from engine.fairness.audit_report import ChallengeFacts
from engine.record.sealing import AUDITOR
from server.schemas import MatchDetail, MatchView
from server.services.match_reads import MatchReads
from server.services.players import Caller
from server.services.tournaments import TournamentService
from server.store.models import PlayerPublic
from server.store.records import Envelope
from server.web.player_page import match_path, player_path, tournament_path
from tui_client.models.narration import describe_event, table_after
from tui_client.models.replay_model import ReplayModel

LOG_EVENTS_READ: Final = 600  # the newest events read back for the log (a match has hundreds to thousands)
LOG_LINES: Final = 80  # the newest of their lines the log shows
REPLAY_LOG_BEFORE: Final = 10  # events told before the scrubber's one
REPLAY_EVENTS_KEPT: Final = 6000  # events of folded replays kept for the next ?at= (~13 kB each: ~80 MB)
FOLDS_AT_ONCE: Final = 2  # replays folded at the same time (~0.4 s of CPU per 800 events)
SPECTATOR: Final = Caller()  # no token: what the pages ask as
TABLE_KEYS: Final = ("ruleset", "target", "rules", "seats", "dealer", "direction", "departed")


class BadStep(ValueError):
    """An ``at`` that is not a whole number (the page answers 400, naming it)."""


def parse_at(text: str | None) -> int | None:
    """``?at=`` as the scrubber takes it: None for none or empty, else a whole number (clamped later)."""
    if text is None or not text.strip():
        return None
    value = text.strip()
    digits = value.removeprefix("-").removeprefix("+")
    if not (digits.isascii() and digits.isdigit()) or len(digits) > 12:
        raise BadStep(f"at must be an event number (a whole number), not {value[:40]!r}")
    return int(value)


@dataclass(frozen=True)
class SeatRow:
    seat: int
    name: str
    path: str | None  # the player's page (None: nobody sits there yet)
    kind: str | None
    score: int
    cards: int | None  # cards in hand (None before the deal)
    place: int | None
    to_play: bool
    winner: bool
    uno: bool
    hand: list[str] | None  # shown only where the view shows it: the replay's audit view


@dataclass(frozen=True)
class LogRow:
    seq: int
    text: str
    current: bool = False


@dataclass(frozen=True)
class ChallengeRow:
    number: int
    facts: ChallengeFacts
    player: str
    challenger: str
    draws: list[str]  # "bob drew 4 (challenge_failed): R1 G2 …"
    at_path: str  # the replay at the verdict


@dataclass(frozen=True)
class ReplayStep:
    """The scrubber: the table just after event ``seq`` (the audit view a finished match gives everyone)."""

    seq: int
    total: int
    prev: int | None
    next: int | None
    prev_round: int | None
    next_round: int | None
    event: str
    round: int
    top: str | None
    color: str | None
    draw_pile: int
    seats: list[SeatRow]
    log: list[LogRow]
    challenge: int | None  # the number of the challenge whose verdict this step is in
    verified: bool
    failure: str


@dataclass(frozen=True)
class MatchPage:
    id: str
    path: str
    status: str  # waiting, live, finished, annulled
    version: int
    ruleset: str | None
    target: int
    tournament: str | None
    tournament_path: str | None
    round: int | None  # the tournament's round
    game_round: int  # the match's round (hand) now
    phase: str
    seats: list[SeatRow]
    top: str | None
    color: str | None
    draw_pile: int
    status_words: str
    result: str | None
    replaced_by: str | None  # the path of the match that replays an annulled one
    log: list[LogRow]
    replay: ReplayStep | None
    challenges: list[ChallengeRow]

    @property
    def live(self) -> bool:
        return self.status in ("waiting", "live")


def _name(seat: PlayerPublic | None, number: int) -> str:
    return seat.name if seat is not None else f"seat {number} (open)"


def seat_rows(detail: MatchDetail, hands: Sequence[Sequence[str]] | None = None) -> list[SeatRow]:
    """Each seat as the view shows it; ``hands`` only for the replay (the audit view)."""
    summary, view = detail.match, detail.view
    rows = []
    for i, player in enumerate(summary.seats):
        rows.append(
            SeatRow(
                seat=i,
                name=_name(player, i),
                path=None if player is None else player_path(player),
                kind=None if player is None else player.kind,
                score=view.scores[i] if i < len(view.scores) else 0,
                cards=view.hand_counts[i] if view.round and i < len(view.hand_counts) else None,
                place=summary.places[i] if summary.places is not None and i < len(summary.places) else None,
                to_play=view.turn == i and summary.status == "live",
                winner=player is not None and summary.status == "finished" and summary.winner == player.id,
                uno=bool(view.uno[i]) if i < len(view.uno) else False,
                hand=list(hands[i]) if hands is not None and i < len(hands) else None,
            )
        )
    return rows


def names_of(detail: MatchDetail) -> list[str]:
    return [_name(p, i) for i, p in enumerate(detail.match.seats)]


DOING: Final = {  # what the seat whose decision it is has to do, by the pending decision's kind
    "draft": "to keep or pass the card looked at",
    "turn": "to play or draw",
    "drawn": "to play or keep the drawn card",
    "volley": "to answer the volley",
    "wild_draw_four": "to accept or challenge the Wild Draw Four",
    "dump": "to dump or not",
    "color": "to name the starter's colour",
}


def status_words(detail: MatchDetail) -> str:
    """What the match is doing, in a line ("" where its status says it all)."""
    summary, view = detail.match, detail.view
    names = names_of(detail)
    if summary.status == "waiting":
        return "waiting for its players to join"
    if summary.status == "annulled":
        return "by the director's ruling" + (": replayed in another match" if summary.replaced_by else "")
    if summary.status != "live":
        return ""
    who = names[view.turn] if view.turn is not None and 0 <= view.turn < len(names) else None
    kind = view.pending.kind
    doing = f": {who} {DOING.get(kind, 'to ' + kind.replace('_', ' '))}" if who else ""
    return f"hand {view.round}{doing}"


def narrate(envelopes: Sequence[Envelope], names: Sequence[str], view: MatchView) -> list[LogRow]:
    """The log as the terminal client's live table tells a spectator (``narration.describe_event``),
    each event against what the events before it said (the decision it answered, a table's
    direction); the newest :data:`LOG_LINES` lines."""
    seen = view.model_dump()
    table: Mapping[str, Any] | None = {k: seen.get(k) for k in TABLE_KEYS if k in seen}
    pending: object = None
    rows: list[LogRow] = []
    for event in envelopes:
        before = {**(table or {}), "pending": {"kind": pending}}
        words = describe_event(event, seat=None, names=names, before=before)
        if words is not None:
            rows.append(LogRow(int(event.get("seq", 0)), words))
        if event.get("type") == "awaiting":
            pending = (event.get("data") or {}).get("kind")
        table = table_after(table, event)
    return rows[-LOG_LINES:]


def challenge_rows(model: ReplayModel, path: str) -> list[ChallengeRow]:
    """Every challenged Wild Draw Four of the replay with its verdict and the evidence (the hand
    it was played from, the cards that made it illegal), as ``unoduo audit`` reports them."""
    rows = []
    for number, c in enumerate(model.challenges, start=1):
        draws = [f"{model.name(d.seat)} drew {d.count} ({d.reason.replace('_', ' ')})" for d in c.draws]
        rows.append(
            ChallengeRow(
                number, c, model.name(c.player), model.name(c.challenger), draws, f"{path}?at={c.resolved_seq}"
            )
        )
    return rows


def replay_step(model: ReplayModel, detail: MatchDetail, at: int | None) -> ReplayStep:
    """The scrubber at event ``at`` (clamped to the match; None: the last event)."""
    seq = model.clamp(model.total if at is None else at)
    frame = model.frame(seq, AUDITOR, before=REPLAY_LOG_BEFORE)
    seen = frame.view
    state_detail = MatchDetail(match=detail.match, view=MatchView.model_validate(seen))
    seats = [  # who is to play at this step, not at the end; places and the winner come at the end
        replace(row, to_play=seen.get("turn") == row.seat, winner=False, place=None)
        for row in seat_rows(state_detail, seen.get("hands"))
    ]
    prev_round = model.prev_round(seq) if seq > 1 else None
    next_round = model.next_round(seq) if seq < model.total else None
    return ReplayStep(
        seq=seq,
        total=model.total,
        prev=seq - 1 if seq > 1 else None,
        next=seq + 1 if seq < model.total else None,
        prev_round=prev_round if prev_round != seq else None,
        next_round=next_round if next_round != seq else None,
        event=frame.event_type,
        round=frame.round,
        top=seen.get("top"),
        color=seen.get("color"),
        draw_pile=int(seen.get("draw_pile") or 0),
        seats=seats,
        log=[LogRow(line.seq, line.text, line.current) for line in frame.log],
        challenge=None if frame.challenge is None else frame.challenge.number,
        verified=model.ok,
        failure=model.failure_words(),
    )


class MatchPages:
    """Builds match pages; keeps the last finished matches' replays folded (:data:`REPLAY_EVENTS_KEPT`)."""

    def __init__(
        self, reads: MatchReads, tournaments: TournamentService, events_kept: int = REPLAY_EVENTS_KEPT
    ) -> None:
        self.reads = reads
        self.tournaments = tournaments
        self.events_kept = events_kept
        self._replays: OrderedDict[str, ReplayModel] = OrderedDict()  # newest last
        self._lock = threading.Lock()
        self._folding = asyncio.Semaphore(FOLDS_AT_ONCE)

    def _kept(self, match_id: str) -> ReplayModel | None:
        with self._lock:
            found = self._replays.get(match_id)
            if found is not None:
                self._replays.move_to_end(match_id)
            return found

    def _fold(self, match_id: str) -> ReplayModel:
        """The match's replay as ``GET /api/matches/{id}/replay`` gives a spectator, read and folded
        (once: a finished match's replay never changes), kept within the budget. Blocking."""
        model = ReplayModel(self.tournaments.replay(match_id, SPECTATOR), source=match_id)
        with self._lock:
            self._replays[match_id] = model
            while len(self._replays) > 1 and sum(m.total for m in self._replays.values()) > self.events_kept:
                self._replays.popitem(last=False)
        return model

    async def replay(self, match_id: str) -> ReplayModel:
        found = self._kept(match_id)
        if found is not None:
            return found
        async with self._folding:  # a cost cap: other pages and the API do not wait behind folds
            again = self._kept(match_id)  # folded while this one waited its turn
            return again if again is not None else await asyncio.to_thread(self._fold, match_id)

    async def detail(self, match_id: str) -> MatchDetail:
        """``GET /api/matches/{id}`` as a spectator (``MatchNotFound``, ``Withheld`` as there)."""
        return await self.reads.show(match_id, SPECTATOR)

    async def log(self, detail: MatchDetail) -> list[LogRow]:
        since = max(0, detail.view.version - LOG_EVENTS_READ)
        envelopes = await self.reads.events_since(detail.match.id, SPECTATOR, since)
        return narrate(envelopes, names_of(detail), detail.view)

    async def page(self, match_id: str, at: int | None = None) -> MatchPage:
        """The page of ``match_id``; ``at``: the replay's step (a finished match's)."""
        detail = await self.detail(match_id)
        summary, view = detail.match, detail.view
        log = await self.log(detail)
        replay = None
        challenges: list[ChallengeRow] = []
        result = None
        path = match_path(match_id)
        if summary.status == "finished":
            model = await self.replay(match_id)
            result = model.result()
            if model.ok:
                replay = replay_step(model, detail, at)
                challenges = challenge_rows(model, path)
        return MatchPage(
            id=summary.id,
            path=path,
            status=summary.status,
            version=view.version,
            ruleset=summary.ruleset,
            target=view.target,
            tournament=summary.tournament,
            tournament_path=None if summary.tournament is None else tournament_path(summary.tournament),
            round=summary.round,
            game_round=view.round,
            phase=view.phase,
            seats=seat_rows(detail),
            top=view.top,
            color=view.color,
            draw_pile=view.draw_pile,
            status_words=status_words(detail),
            result=result,
            replaced_by=None if summary.replaced_by is None else match_path(summary.replaced_by),
            log=log,
            replay=replay,
            challenges=challenges,
        )


COLOUR_WORDS: Final = {"R": "red", "Y": "yellow", "G": "green", "B": "blue"}
RANK_WORDS: Final = {"S": "Skip", "R": "Reverse", "+2": "Draw Two"}


def card_words(code: str) -> str:
    """A card code in words, for screen readers and tooltips: ``R5`` red 5, ``G+2`` green Draw Two,
    ``W+4`` Wild Draw Four, ``W`` Wild."""
    if code == "W":
        return "Wild"
    if code == "W+4":
        return "Wild Draw Four"
    colour, rank = COLOUR_WORDS.get(code[:1]), code[1:]
    if colour is None:
        return code
    return f"{colour} {RANK_WORDS.get(rank, rank)}"


def card(code: str) -> Markup:
    """A card as the pages show it: its code coloured, its name for screen readers and as a tooltip.
    A function (not a template macro) so that a live region rendered alone has it too."""
    words = card_words(code)
    return Markup(
        f'<span class="card card-{escape(code[:1].lower())}" title="{escape(words)}">'
        f'<span aria-hidden="true">{escape(code)}</span><span class="sr">{escape(words)}</span></span>'
    )


def cards(codes: Sequence[str] | None) -> Markup:
    """Cards in a row; ``none`` for none."""
    if not codes:
        return Markup('<span class="empty">none</span>')
    return Markup(" ").join(card(code) for code in codes)
