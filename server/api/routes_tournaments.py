"""Round-robin tournaments (docs/TOURNAMENTS.md): the director's routes, the public table, disputes."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Annotated, Any, Literal
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import Response
from pydantic import (
    AfterValidator,
    AwareDatetime,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    field_validator,
)

from engine.game.rulesets import MAX_SEATS
from engine.game.rulings import RULING_PATTERN, RULING_RANGE
from server.api.bodies import RequestBody
from server.api.routes_matches import BEARER_OPTIONAL, EventSeq, MatchId
from server.api.text import readable_text
from server.deps import CallerDep, DirectorDep, PlayerDep, TournamentServiceDep
from server.domain_errors import Unauthorized
from server.errors import error_responses
from server.schemas import DisputePublic, FormatName, KnockoutExport, TournamentListed, TournamentPublic
from server.services.players import Caller
from server.services.tournament_folds import TournamentNotFound
from server.services.tournament_listing import DEFAULT_PAGE, MAX_PAGE, TournamentListing, UnknownCursor
from server.services.tournaments import NewTournament, TournamentViews, dispute_public
from server.store.models import ID_LEN
from server.tournaments.formats import start_time_problem
from server.tournaments.timed import MAX_ROUND_MINUTES

router = APIRouter(prefix="/api", tags=["tournaments"])

TournamentId = Annotated[str, Path(min_length=1, max_length=ID_LEN, pattern=r"^[A-Za-z0-9_-]+$")]
DisputeId = Annotated[str, Path(min_length=1, max_length=ID_LEN, pattern=r"^[A-Za-z0-9_-]+$")]
NOTE_LEN = 500
TRF_MEDIA = "text/plain; charset=utf-8"
TRF_BODY = {
    "description": "FIDE's Tournament Report File (TRF-16): header lines (012 name, 042/052 dates, 062 players, "
    "XXR rounds), then one 001 line per player with each round's opponent, colour and result",
    "content": {"text/plain": {"schema": {"type": "string"}}},
}


def _start_in_range(moment: datetime) -> datetime:
    problem = start_time_problem(moment)
    if problem is not None:
        raise ValueError(problem)
    return moment


# Checked before anything is written: a time that cannot be stored or read back is a 400 here.
RoundStart = Annotated[AwareDatetime, AfterValidator(_start_in_range)]


class CreateTournamentRequest(RequestBody):
    name: StrictStr = Field(min_length=1, max_length=100)
    players: list[Annotated[StrictStr, Field(min_length=1, max_length=100)]] = Field(
        default_factory=list,
        max_length=64,
        description="players by id or name, and house-bot entries (bot:greedy, bot:coach-1 … bot:coach-5, bot:rule-v1, bot:random), in pairing order: 2 to 64, "
        "or any number up to 64 for an open tournament",
    )
    open: StrictBool = Field(default=False, description="players may enter (and leave) themselves until the start")
    bot_accounts: StrictBool = Field(
        default=False,
        description="bot accounts (kind bot_account: programs people registered, docs/BOTS.md) may be entered "
        "or enter themselves; off by default, and a bot account named in players is then refused (409)",
    )
    ruleset: StrictStr = Field(default="uno-duo", description="uno-duo (default) or classic-2p")
    rules: dict[str, Any] = Field(default_factory=dict, description="switches of the ruleset to override")
    double: StrictBool = Field(default=False, description="a double round-robin (colours reversed in the second)")
    move_seconds: StrictInt = Field(default=60, ge=1, le=86_400, description="the move clock of every match")
    join_seconds: StrictInt = Field(
        default=300, ge=1, le=7 * 86_400, description="after a round opens, how long a seat has to join its match"
    )
    format: FormatName = Field(
        default="round_robin",
        description="round_robin (the Berger table), swiss (two seats, paired round by round: FIDE Dutch), "
        "tables (classic at tables of 3-10), single_elimination or double_elimination (two seats: knockout "
        'brackets, docs/TOURNAMENTS.md "Knockouts"), table_knockout or pools',
    )
    rounds: StrictInt | None = Field(default=None, ge=1, le=30, description="swiss and tables: how many rounds")
    table_size: StrictInt | None = Field(
        default=None, ge=3, le=10, description="tables and table_knockout: the preferred table size"
    )
    advance: StrictInt | None = Field(
        default=None,
        ge=1,
        le=9,
        description="table_knockout: how many of each table go on; pools: of each pool (default 2)",
    )
    pool_format: Literal["round_robin", "swiss"] | None = Field(
        default=None, description="pools: round_robin (default) or swiss (then `rounds` is the pools' rounds)"
    )
    pool_size: StrictInt | None = Field(default=None, ge=3, le=16, description="pools: the most players a pool holds")
    bracket: Literal["single_elimination", "double_elimination"] | None = Field(
        default=None, description="pools: the bracket the qualifiers go into (default single_elimination)"
    )
    placement_points: list[Annotated[StrictInt, Field(ge=0, le=1000)]] | None = Field(
        default=None,
        max_length=10,
        description="tables: the points for 1st, 2nd, … place at a table (default: k-1 down to 0 for tables of k)",
    )
    seeding: Literal["entry", "rating"] = Field(
        default="entry",
        description="pairing numbers (the round-robin's Berger numbers, the Swiss's initial order): the order of "
        "players (entry), or by rating in the ruleset's family when the tournament starts (rating, docs/RATINGS.md)",
    )
    duplicate: StrictBool = Field(
        default=False,
        description="duplicate rounds: every pairing of a round is dealt the same committed deck order, and the "
        'standings gain a same-deal column (round_robin and swiss; docs/TOURNAMENTS.md "Duplicate rounds")',
    )
    round_starts: list[RoundStart] = Field(
        default_factory=list,
        max_length=30,
        description="each round's start time (ISO 8601 with its offset), round 1 first: a round opens no earlier; "
        "its join deadline counts from its opening. From 2000-01-01 to 2999-12-31 in UTC",
    )
    # One number type, so that the bounds reach the OpenAPI schema (on a union of two they did not).
    round_minutes: Annotated[StrictFloat, Field(gt=0, le=MAX_ROUND_MINUTES, allow_inf_nan=False)] | None = Field(
        default=None,
        description="timed rounds (RULES.md D26): each round's wall-clock limit in minutes from its opening "
        "(a fraction is taken: 0.5 is 30 seconds); when it runs out, time is called in every match of the "
        "round still being played. Any format; null: untimed",
    )

    starts_at: RoundStart | None = Field(
        default=None,
        description="when the tournament starts by itself (ISO 8601 with its offset; in the future): check-in "
        "closes and round 1 opens (at its own start time if later); null: the director starts it",
    )
    check_in_minutes: StrictInt | None = Field(
        default=None,
        ge=1,
        le=24 * 60,
        description="an open tournament: entrants confirm with POST …/check-in during this many minutes before "
        "the start (starts_at, else round 1's start time); the unconfirmed are withdrawn at the start",
    )

    forbidden_pairs: list[
        Annotated[list[Annotated[StrictStr, Field(min_length=1, max_length=100)]], Field(min_length=2, max_length=2)]
    ] = Field(
        default_factory=list,
        max_length=32,
        description="swiss, single_elimination, double_elimination: pairs of players (names or ids) never "
        "paired where a pairing (a bracket's round 1: a swap of seeds) can avoid it; "
        "a round that cannot says so",
    )

    late_entry_rounds: StrictInt | None = Field(
        default=None,
        ge=1,
        le=30,
        description="swiss: entries stay open after the start until this round is paired; a late entrant is "
        "paired from the next round",
    )
    late_entry_bye: StrictBool = Field(
        default=False, description="with late_entry_rounds: each round a late entrant missed scores ½ (else 0)"
    )

    @field_validator("name")
    @classmethod
    def _readable(cls, value: str) -> str:
        return readable_text(value, "a name")


class ByeRequest(RequestBody):
    round: StrictInt = Field(ge=1, le=30, description="the Swiss round, not paired yet, to sit out for ½")


class EntryRequest(RequestBody):
    player: StrictStr | None = Field(
        default=None,
        min_length=1,
        max_length=100,
        description="the director: the player to enter (a name, an id or bot:NAME); a player leaves it out",
    )
    entropy: StrictStr = Field(
        default="",
        max_length=256,
        description="a player entering itself: its entropy for the deals of duplicate rounds (docs/FAIRNESS.md)",
    )


class WithdrawRequest(RequestBody):
    player: StrictStr = Field(min_length=1, max_length=100, description="the player, by id or name")
    note: StrictStr = Field(default="", max_length=NOTE_LEN)

    @field_validator("note")
    @classmethod
    def _readable(cls, value: str) -> str:
        return value and readable_text(value, "a note")  # a note the director reads, as a dispute's


class DisputeRequest(RequestBody):
    seq: EventSeq = Field(description="the event disputed")
    note: StrictStr = Field(min_length=1, max_length=NOTE_LEN)

    @field_validator("note")
    @classmethod
    def _readable(cls, value: str) -> str:
        return readable_text(value, "a note")


class RulingRequest(RequestBody):
    # The values are in the schema (an enum, a range, a pattern), not only in the descriptions:
    # a request /openapi.json calls valid is one the server takes, but for a seat the table lacks.
    decision: Literal["stands", "replay", "award"] = Field(description="stands, replay or award")
    note: StrictStr = Field(min_length=1, max_length=NOTE_LEN)
    # The schema bounds a seat by the largest table; the service checks it against the match's own seats.
    seat: StrictInt | None = Field(
        default=None,
        ge=0,
        le=MAX_SEATS - 1,
        description="award: the seat the match goes to (0 … the table's seats − 1)",
    )
    rule: StrictStr | None = Field(
        default=None, pattern=RULING_PATTERN, description=f"a ruling of RULES.md cited: {RULING_RANGE}"
    )

    @field_validator("note")
    @classmethod
    def _readable(cls, value: str) -> str:
        return readable_text(value, "a note")


async def entrant(caller: CallerDep) -> Caller:
    """A player (for themselves) or the director (401 for anyone else)."""
    if caller.player is None and not caller.director:
        raise Unauthorized("this needs a player's token or the director's: 'Authorization: Bearer TOKEN'")
    return caller


EntrantDep = Annotated[Caller, Depends(entrant)]
EntryName = Annotated[str, Path(min_length=1, max_length=100, description="the player: an id or a name")]


def _views(service: TournamentServiceDep) -> TournamentViews:
    return TournamentViews(service)


@router.post(
    "/tournaments",
    status_code=201,
    response_model=TournamentPublic,
    responses=error_responses(400, 401, 404, 409, 413, 503),
)
async def create_tournament(
    body: CreateTournamentRequest, _director: DirectorDep, tournaments: TournamentServiceDep
) -> TournamentPublic:
    """A tournament of one format (round_robin, swiss, tables): pairing numbers follow ``players``;
    each ``bot:NAME`` becomes a bot player of its own."""
    request = NewTournament(
        name=body.name,
        players=list(body.players),
        ruleset=body.ruleset,
        rules=dict(body.rules),
        double=body.double,
        move_seconds=body.move_seconds,
        join_seconds=body.join_seconds,
        open=body.open,
        format=body.format,
        rounds=body.rounds,
        table_size=body.table_size,
        placement_points=body.placement_points,
        round_starts=list(body.round_starts),
        bot_accounts=body.bot_accounts,
        seeding=body.seeding,
        duplicate=body.duplicate,
        advance=body.advance,
        pool_format=body.pool_format,
        pool_size=body.pool_size,
        bracket=body.bracket,
        starts_at=body.starts_at,
        check_in_minutes=body.check_in_minutes,
        forbidden_pairs=[(a, b) for a, b in body.forbidden_pairs],
        round_minutes=body.round_minutes,
        late_entry_rounds=body.late_entry_rounds,
        late_entry_bye=body.late_entry_bye,
    )
    t = await tournaments.create(request)
    return await asyncio.to_thread(_views(tournaments).public, t)


@router.get(
    "/tournaments",
    response_model=list[TournamentListed],
    responses=error_responses(400, 401, 404, 503),
    openapi_extra=BEARER_OPTIONAL,
)
async def list_tournaments(
    request: Request,
    response: Response,
    caller: CallerDep,
    limit: Annotated[
        int, Query(ge=1, le=MAX_PAGE, description=f"tournaments on the page, 1 to {MAX_PAGE} (default {DEFAULT_PAGE})")
    ] = DEFAULT_PAGE,
    before: Annotated[
        str | None,
        Query(
            min_length=1,
            max_length=ID_LEN,
            pattern=r"^[A-Za-z0-9_-]+$",
            description="a tournament id (the last of the page before): the page continues with those created "
            "before it",
        ),
    ] = None,
) -> list[TournamentListed]:
    """The tournaments a page at a time, newest first; whether each is open to entries, how many
    are entered, and (with a player's token) whether the caller is. When older ones remain, a
    ``Link: <…>; rel="next"`` header gives the next page's address (its ``before``: the last id
    of this page). 404 for a ``before`` that names no tournament."""
    player = caller.player.id if caller.player is not None else None
    listing: TournamentListing = request.app.state.tournament_listing
    try:
        page = await asyncio.to_thread(listing.page, player, limit, before)
    except UnknownCursor:
        raise TournamentNotFound(str(before)) from None
    if page.more and page.lines:
        following = urlencode({"limit": limit, "before": page.lines[-1].id})
        response.headers["Link"] = f'</api/tournaments?{following}>; rel="next"'
    return page.lines


@router.get(
    "/tournaments/{tournament_id}/trf",
    response_class=Response,
    responses={200: TRF_BODY, **error_responses(400, 401, 404, 409, 503)},
    openapi_extra=BEARER_OPTIONAL,
)
async def tournament_trf(
    tournament_id: TournamentId, _caller: CallerDep, tournaments: TournamentServiceDep
) -> Response:
    """The tournament as a FIDE TRF-16 report (a round robin's or a Swiss's; start ranks follow the
    pairing numbers), for a pairing program or a federation's rating officer; 409 for a tables one.
    It stops before a duplicate round not revealed yet (docs/TOURNAMENTS.md "Duplicate rounds")."""
    t = await tournaments.get(tournament_id)
    text = await asyncio.to_thread(_views(tournaments).trf, t)
    return Response(
        text.encode(), media_type=TRF_MEDIA, headers={"Content-Disposition": f'attachment; filename="{t.id}.trf"'}
    )


@router.get(
    "/tournaments/{tournament_id}/export.json",
    response_model=KnockoutExport,
    responses=error_responses(400, 401, 404, 409, 503),
    openapi_extra=BEARER_OPTIONAL,
)
async def tournament_export(
    tournament_id: TournamentId, _caller: CallerDep, tournaments: TournamentServiceDep
) -> KnockoutExport:
    """A knockout whole as JSON (its seeds, plan, results and final places), where FIDE's TRF has
    no way to say a bracket; 409 for a round robin, a Swiss or a tables tournament (their export:
    /trf or the tournament itself)."""
    t = await tournaments.get(tournament_id)
    return await asyncio.to_thread(_views(tournaments).export, t)


@router.post(
    "/tournaments/{tournament_id}/start",
    response_model=TournamentPublic,
    responses=error_responses(400, 401, 404, 409, 503),
)
async def start_tournament(
    tournament_id: TournamentId, _director: DirectorDep, tournaments: TournamentServiceDep
) -> TournamentPublic:
    """Fix the schedule (a round robin's Berger table, a tables tournament's seating; a Swiss pairs
    each round when it opens) and open round 1 (at its start time, if it has one)."""
    t = await tournaments.start(tournament_id)
    return await asyncio.to_thread(_views(tournaments).public, t)


@router.post(
    "/tournaments/{tournament_id}/call-time",
    response_model=TournamentPublic,
    responses=error_responses(400, 401, 404, 409, 503),
)
async def call_time(
    tournament_id: TournamentId, _director: DirectorDep, tournaments: TournamentServiceDep
) -> TournamentPublic:
    """The director calls time now (RULES.md D26): in every match still being played the hand in
    play is the last, unless the best total is shared when it ends.
    A round whose time was called already keeps its first call; 409 when no match is being played."""
    t = await tournaments.call_time_now(tournament_id)
    return await asyncio.to_thread(_views(tournaments).public, t, full=True)


@router.post(
    "/tournaments/{tournament_id}/entries",
    status_code=201,
    response_model=TournamentPublic,
    responses=error_responses(400, 401, 403, 404, 409, 413, 503),
)
async def enter(
    tournament_id: TournamentId,
    caller: EntrantDep,
    tournaments: TournamentServiceDep,
    body: EntryRequest | None = None,
) -> TournamentPublic:
    """Enter before the start: a player enters itself in an open tournament (no body; 409 if the
    tournament is not open); the director enters anyone (``player``: name, id or ``bot:NAME``).
    409 once started, for a player entered already, when the tournament is full (64), or for a
    bot account when the tournament does not take bot accounts (``bot_accounts``)."""
    entropy = body.entropy if body is not None else ""
    t = await tournaments.enter(tournament_id, caller, body.player if body is not None else None, entropy)
    return await asyncio.to_thread(_views(tournaments).public, t)


@router.post(
    "/tournaments/{tournament_id}/check-in",
    response_model=TournamentPublic,
    responses=error_responses(400, 401, 403, 404, 409, 503),
)
async def check_in(
    tournament_id: TournamentId, player: PlayerDep, tournaments: TournamentServiceDep
) -> TournamentPublic:
    """An entrant confirms they are here, in the check-in window before the start (the player's own
    token; 409 outside the window or without check-in, 404 when not entered; again: the same answer)."""
    t = await tournaments.check_in(tournament_id, player)
    return await asyncio.to_thread(_views(tournaments).public, t)


@router.post(
    "/tournaments/{tournament_id}/byes",
    status_code=201,
    response_model=TournamentPublic,
    responses=error_responses(400, 401, 403, 404, 409, 503),
)
async def request_bye(
    tournament_id: TournamentId, body: ByeRequest, player: PlayerDep, tournaments: TournamentServiceDep
) -> TournamentPublic:
    """A Swiss entrant asks for a half-point bye in a round not paired yet (the player's own token):
    left out of that round's pairing, ½ to the score. 409 once the round is paired, past the most
    a player may ask (2), or not a Swiss; 404 not entered; the same request again: the same answer."""
    t = await tournaments.request_bye(tournament_id, player, body.round)
    return await asyncio.to_thread(_views(tournaments).public, t)


@router.delete(
    "/tournaments/{tournament_id}/entries/{player}",
    response_model=TournamentPublic,
    responses=error_responses(400, 401, 403, 404, 409, 503),
)
async def leave(
    tournament_id: TournamentId, player: EntryName, caller: EntrantDep, tournaments: TournamentServiceDep
) -> TournamentPublic:
    """Leave before the start: that player (by id or name), or the director taking anyone out. 409 once started."""
    t = await tournaments.leave(tournament_id, caller, player)
    return await asyncio.to_thread(_views(tournaments).public, t)


@router.get(
    "/tournaments/{tournament_id}",
    response_model=TournamentPublic,
    responses=error_responses(400, 401, 404, 503),
    openapi_extra=BEARER_OPTIONAL,
)
async def get_tournament(
    tournament_id: TournamentId, caller: CallerDep, tournaments: TournamentServiceDep
) -> TournamentPublic:
    """The schedule by round, each match's state and result, and the standings with every tie-break column.
    A duplicate round not revealed yet shows its pairings ``withheld``, none of its matches and none of
    its results, to everyone but the director (docs/TOURNAMENTS.md "Duplicate rounds")."""
    t = await tournaments.get(tournament_id)
    return await asyncio.to_thread(_views(tournaments).public, t, full=caller.director)


@router.post(
    "/tournaments/{tournament_id}/withdraw",
    response_model=TournamentPublic,
    responses=error_responses(400, 401, 404, 409, 413, 503),
)
async def withdraw(
    tournament_id: TournamentId, body: WithdrawRequest, _director: DirectorDep, tournaments: TournamentServiceDep
) -> TournamentPublic:
    """A withdrawal, by the published rule (docs/TOURNAMENTS.md "Withdrawals")."""
    t = await tournaments.withdraw(tournament_id, body.player, body.note)  # the player by id or name
    return await asyncio.to_thread(_views(tournaments).public, t)


@router.post(
    "/matches/{match_id}/disputes",
    status_code=201,
    response_model=DisputePublic,
    responses=error_responses(400, 401, 403, 404, 409, 413, 503),
)
async def open_dispute(
    match_id: MatchId, body: DisputeRequest, caller: CallerDep, tournaments: TournamentServiceDep
) -> DisputePublic:
    """A seat flags an event of its tournament match for the director, until the tournament ends."""
    dispute = await tournaments.dispute(match_id, caller, body.seq, body.note)
    t = await tournaments.get(dispute.id.rpartition("-d")[0])
    return dispute_public(t, t.disputes[dispute.id])


async def disputes_director(caller: CallerDep) -> Caller:
    """The director; a player is pointed to their own list (``GET /api/me/disputes``)."""
    if not caller.director:
        raise Unauthorized(
            "the list of every dispute needs the director's token ('Authorization: Bearer DIRECTOR_TOKEN'); "
            "a player's own disputes and their rulings are at GET /api/me/disputes"
        )
    return caller


@router.get("/disputes", response_model=list[DisputePublic], responses=error_responses(400, 401, 503))
async def list_disputes(
    _director: Annotated[Caller, Depends(disputes_director)],
    tournaments: TournamentServiceDep,
    status: Annotated[str, Query(pattern="^(open|all)$", description="open (default) or all")] = "open",
) -> list[DisputePublic]:
    """The disputes of every tournament, each with the path of the audit view at its event."""
    return [dispute_public(t, d) for t, d in await tournaments.disputes(only_open=status == "open")]


@router.post(
    "/disputes/{dispute_id}/ruling",
    response_model=DisputePublic,
    responses=error_responses(400, 401, 404, 409, 413, 503),
)
async def rule(
    dispute_id: DisputeId, body: RulingRequest, _director: DirectorDep, tournaments: TournamentServiceDep
) -> DisputePublic:
    """Record the ruling (stands, replay or award) with the director's note; the standings follow from it."""
    t, dispute = await tournaments.rule(dispute_id, body.decision, body.note, body.seat, body.rule)
    return dispute_public(t, dispute)
