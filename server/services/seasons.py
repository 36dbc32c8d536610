"""Seasons (docs/TOURNAMENTS.md "Seasons"): the service that keeps them. No HTTP here.

A season is the stream ``season-<id>``; :mod:`server.tournaments.season_model` folds it and
:mod:`server.tournaments.season_decide` decides, purely. This service reads the facts a decision
needs (the players a division names, each tournament's final places, the season's seed), asks
the Decider, and appends what it decides on the version it read: a lost race reads again and
decides again. The table is computed at every read from the season and its tournaments' folds
(a handful of tournaments, each fold kept by the tournaments' service): nothing is stored but events.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Final, NoReturn

from engine.game.errors import shown
from engine.game.shuffle import commitment_of
from server.domain_errors import NotFound, NotNow
from server.schemas_seasons import (
    DivisionPublic,
    MovePublic,
    SeasonListed,
    SeasonOfTournament,
    SeasonPublic,
    SeasonResultPublic,
    SeasonStandingPublic,
    SeasonTournamentPublic,
)
from server.services.players import resolve_player
from server.services.tournaments import TournamentService
from server.store.errors import ConcurrencyError
from server.store.event_store import EventStore
from server.store.secrets import match_seed, match_seed_rows, new_server_seed
from server.tournaments.model import FINISHED as TOURNAMENT_FINISHED
from server.tournaments.model import Tournament
from server.tournaments.places import final_places
from server.tournaments.season_decide import (
    AddTournament,
    CreateSeason,
    FinishSeason,
    SeasonDecision,
    decide,
)
from server.tournaments.season_model import (
    SEASON_PREFIX,
    ClaimReleased,
    Division,
    Season,
    SeasonClaimed,
    claim_holder,
    claim_stream,
    fold,
    season_stream,
)
from server.tournaments.season_table import TIEBREAKS, Places, SeasonRow, season_table

RACE_RETRIES: Final = 20


class SeasonNotFound(NotFound):
    def __init__(self, season_id: str) -> None:
        super().__init__(f"no season {shown(season_id)}")


@dataclass(frozen=True)
class NewSeason:
    """What a director asks for (``POST /api/seasons``), shaped by the route: divisions' players by id or name."""

    name: str
    best_of: int | None = None
    points_by_place: tuple[int, ...] | None = None
    divisions: tuple[tuple[str, tuple[str, ...]], ...] | int | None = None
    promote: int | None = None
    relegate: int | None = None
    follows: str | None = None


def new_season_id() -> str:
    return "s_" + secrets.token_hex(8)


class SeasonService:
    def __init__(self, store: EventStore, tournaments: TournamentService) -> None:
        self.store = store
        self.tournaments = tournaments
        self._locks: dict[str, asyncio.Lock] = {}

    # ------------------------------------------------------------ reading

    def load(self, season_id: str) -> Season:
        """The season as its stream stands (SeasonNotFound if it has none). Blocking."""
        events = self.store.read(season_stream(season_id))
        if not events:
            raise SeasonNotFound(season_id)
        return fold(season_id, ((e.type, e.data, e.at) for e in events))

    async def get(self, season_id: str) -> Season:
        return await asyncio.to_thread(self.load, season_id)

    def ids(self) -> list[str]:
        return [s.removeprefix(SEASON_PREFIX) for s in self.store.streams(SEASON_PREFIX)]

    def holder(self, tournament_id: str) -> str | None:
        """The season whose claim ``tournament_id`` is under (None: none). Blocking."""
        events = self.store.read(claim_stream(tournament_id))
        return claim_holder((e.type, e.data) for e in events)

    def season_of(self, tournament_id: str) -> Season | None:
        """The season ``tournament_id`` is in (claimed and added). Blocking."""
        holder = self.holder(tournament_id)
        if holder is None:
            return None
        season = self.load(holder)
        return season if tournament_id in season.tournaments else None

    # ------------------------------------------------------------ deciding

    async def create(self, request: NewSeason) -> Season:
        """Resolve the divisions' players, draw the seed, and let the Decider make the season."""
        before = await self.get(request.follows) if request.follows is not None else None
        divisions = await asyncio.to_thread(self._divisions, request.divisions)
        seed = new_server_seed()
        command = CreateSeason(
            name=request.name,
            commitment=commitment_of(seed),
            best_of=request.best_of,
            points_by_place=request.points_by_place,
            divisions=divisions,
            promote=request.promote,
            relegate=request.relegate,
            follows=before,
        )
        season_id = new_season_id()
        decision = decide(Season(season_id), command)
        await self.store.append_async(
            season_stream(season_id),
            [e.event() for e in decision.events],
            expected_seq=0,
            command_id=decision.command_id,
            result={"ok": True},
            extra_rows=lambda at: match_seed_rows(season_id, seed, at),
        )
        return await self.get(season_id)

    def _divisions(
        self, asked: tuple[tuple[str, tuple[str, ...]], ...] | int | None
    ) -> tuple[Division, ...] | int | None:
        if asked is None or isinstance(asked, int):
            return asked
        return tuple(
            Division(name, tuple(resolve_player(self.store, p).id for p in players)) for name, players in asked
        )

    async def add(self, season_id: str, tournament_id: str) -> Season:
        """Add a tournament: it must exist, be in no other season, and the season take it (open,
        not there yet, not full). The claim is taken first, and let go if the season refuses."""
        await self.get(season_id)  # 404 for no such season, then for no such tournament
        await self.tournaments.get(tournament_id)
        command = AddTournament(tournament_id)

        async def adding(season: Season) -> SeasonDecision:
            return decide(season, command)

        async with self._lock(season_id):
            decide(await self.get(season_id), command)  # refused before any claim is taken
            await self._claim(season_id, tournament_id)
            try:
                await self._decide(season_id, adding)
            except Exception:  # the season refused (or the store failed): nothing of it was appended
                await self._release(season_id, tournament_id)
                raise
        return await self.get(season_id)

    async def finish(self, season_id: str) -> Season:
        """End the season: its table becomes final and, with divisions, the moves are recorded."""
        async with self._lock(season_id):

            async def finishing(s: Season) -> SeasonDecision:
                finished, in_play = await asyncio.to_thread(self._places, s)
                seed = await asyncio.to_thread(self._seed, s.id)
                return decide(s, FinishSeason(finished, tuple(in_play), seed))

            await self._decide(season_id, finishing)
        return await self.get(season_id)

    def _seed(self, season_id: str) -> bytes:
        seed = match_seed(self.store, season_id)
        if seed is None:  # pragma: no cover - written with the creation, in the same transaction
            raise NotNow(f"season {season_id!r} has no seed")
        return seed

    def _lock(self, season_id: str) -> asyncio.Lock:
        return self._locks.setdefault(season_id, asyncio.Lock())

    async def _decide(self, season_id: str, deciding: Callable[[Season], Awaitable[SeasonDecision]]) -> None:
        """Decide on a fresh fold and append on its version; a lost race folds and decides again."""
        for _ in range(RACE_RETRIES):
            season = await self.get(season_id)
            decision = await deciding(season)
            try:
                await self._append(season, decision)
                return
            except ConcurrencyError:
                continue
        raise NotNow(f"season {season_id!r} kept moving: try again")

    async def _append(self, season: Season, decision: SeasonDecision) -> None:
        await self.store.append_async(
            season_stream(season.id),
            [e.event() for e in decision.events],
            expected_seq=season.version,
            command_id=decision.command_id,
            result={"ok": True},
        )

    async def _claim(self, season_id: str, tournament_id: str) -> None:
        """Take the tournament's claim for ``season_id`` on the claim stream's version read (a
        second season racing for it loses the append, reads again and finds it held)."""
        for _ in range(RACE_RETRIES):
            events = await asyncio.to_thread(self.store.read, claim_stream(tournament_id))
            holder = claim_holder((e.type, e.data) for e in events)
            if holder == season_id:
                return
            if holder is not None:
                await self._refuse_held(tournament_id, holder)
            try:
                await self.store.append_async(
                    claim_stream(tournament_id), [SeasonClaimed(season_id).event()], expected_seq=len(events)
                )
                return
            except ConcurrencyError:
                continue
        raise NotNow(f"tournament {tournament_id!r}'s season kept moving: try again")

    async def _refuse_held(self, tournament_id: str, holder: str) -> NoReturn:
        """The refusal for a tournament another season holds; one whose adding never finished
        there (a server stopped between the claim and the season's append) is said so."""
        listed = tournament_id in (await self.get(holder)).tournaments
        unfinished = "" if listed else f" (its adding there did not finish: add it to {holder!r} again)"
        raise NotNow(
            f"tournament {tournament_id!r} is in season {holder!r} already{unfinished}: a tournament is in one season"
        )

    async def _release(self, season_id: str, tournament_id: str) -> None:
        await self.store.append_async(
            claim_stream(tournament_id), [ClaimReleased(season_id).event()], expected_seq=None
        )

    # ------------------------------------------------------------ the table

    def _places(self, season: Season) -> tuple[Places, list[str]]:
        """Each finished tournament's final places, and the tournaments still in play. Blocking."""
        finished: dict[str, dict[str, int]] = {}
        in_play: list[str] = []
        for tournament_id in season.tournaments:
            t = self.tournaments.load(tournament_id)
            if t.status == TOURNAMENT_FINISHED and t.server_seed is not None:
                finished[tournament_id] = final_places(t, bytes.fromhex(t.server_seed))
            else:
                in_play.append(tournament_id)
        return finished, in_play

    def table(self, season: Season) -> list[SeasonRow]:
        """The season's table as it stands. Blocking."""
        finished, _in_play = self._places(season)
        return season_table(season, finished, self._seed(season.id))


class SeasonViews:
    """The season as the routes answer it (blocking: run in a thread)."""

    def __init__(self, service: SeasonService) -> None:
        self.service = service
        self.registry = service.tournaments.registry

    def _name(self, player_id: str) -> str:
        found = self.registry.player(player_id)
        return found.name if found is not None else player_id

    def public(self, season: Season) -> SeasonPublic:
        rows = self.service.table(season)
        tournaments = [self._tournament(self.service.tournaments.load(t)) for t in season.tournaments]
        return SeasonPublic(
            id=season.id,
            name=season.name,
            status=season.status,
            best_of=season.best_of,
            points_by_place=list(season.points_by_place),
            tiebreaks=list(TIEBREAKS[1:]),
            divisions=[DivisionPublic(name=d.name, players=list(d.players)) for d in season.divisions],
            promote=season.promote,
            relegate=season.relegate,
            follows=season.follows,
            commitment=season.commitment,
            server_seed=season.server_seed,
            created_at=season.created_at,
            finished_at=season.finished_at or None,
            tournaments=tournaments,
            standings=[self._row(r) for r in rows],
            moves=[
                MovePublic(
                    player=m.player,
                    name=self._name(m.player),
                    source=m.source,
                    target=m.target,
                    direction="up" if _index(season, m.target) < _index(season, m.source) else "down",
                )
                for m in season.moves
            ],
            divisions_after=[DivisionPublic(name=d.name, players=list(d.players)) for d in season.divisions_after],
        )

    def _row(self, row: SeasonRow) -> SeasonStandingPublic:
        return SeasonStandingPublic(
            rank=row.rank,
            player=row.player,
            name=self._name(row.player),
            division=row.division,
            events=row.events,
            points=row.points,
            counted=list(row.counted),
            wins=row.wins,
            best_place=row.best_place,
            results=[
                SeasonResultPublic(tournament=r.tournament, place=r.place, points=r.points, counted=r.counted)
                for r in row.results
            ],
        )

    @staticmethod
    def _tournament(t: Tournament) -> SeasonTournamentPublic:
        return SeasonTournamentPublic(
            id=t.id, name=t.name, status=t.status, in_play=t.status != TOURNAMENT_FINISHED, players=len(t.players)
        )

    def listed(self) -> list[SeasonListed]:
        seasons = [self.service.load(s) for s in self.service.ids()]
        seasons.sort(key=lambda s: (s.created_at, s.id), reverse=True)
        return [_listed(s) for s in seasons]

    def of_tournament(self, tournament_id: str) -> SeasonOfTournament:
        season = self.service.season_of(tournament_id)
        return SeasonOfTournament(tournament=tournament_id, season=None if season is None else _listed(season))


def _listed(season: Season) -> SeasonListed:
    return SeasonListed(
        id=season.id,
        name=season.name,
        status=season.status,
        tournaments=len(season.tournaments),
        created_at=season.created_at,
    )


def _index(season: Season, division: str) -> int:
    return next(i for i, d in enumerate(season.divisions) if d.name == division)
