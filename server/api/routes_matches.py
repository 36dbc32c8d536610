"""Casual matches over HTTP: create, join, view, commands, events (NDJSON), replay."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, Query, Request
from fastapi.responses import Response, StreamingResponse
from pydantic import BeforeValidator, Discriminator, Field, StrictInt, StrictStr, Tag

from engine.game.rulesets import MAX_SEATS
from engine.record.jsonfmt import ndjson_line
from server.api.bodies import RequestBody
from server.api.commands import CommandRequest
from server.api.forwarding import forward_request, forward_stream, from_a_peer, owner_elsewhere
from server.deps import CallerDep, MatchReadsDep, MatchRegistryDep, MatchServiceDep, PlayerDep, TournamentServiceDep
from server.errors import error_responses
from server.limits import ID_LEN, MATCH_ID_PATTERN, MAX_SEQ
from server.schemas import MatchDetail, MatchOutcome
from server.store.models import MatchSummaryPublic

router = APIRouter(prefix="/api/matches", tags=["matches"])

MatchId = Annotated[str, Path(min_length=1, max_length=ID_LEN, pattern=MATCH_ID_PATTERN)]
NDJSON = "application/x-ndjson"


def _seq_in_range(value: object) -> object:
    """Refuse a seq outside the seq column's range by name (bigger numbers only trouble the database)."""
    text = str(value).strip()
    digits = text.removeprefix("-").removeprefix("+")
    if digits.isascii() and digits.isdigit() and (len(digits) > 10 or not 0 <= int(text) <= MAX_SEQ):
        raise ValueError(f"a seq is a whole number from 0 to {MAX_SEQ}")
    return value


# The bounds come before the validator: so pydantic writes them into /openapi.json as minimum and
# maximum (after it, or as Query(ge=…, le=…), they came out as "ge"/"le", which JSON Schema ignores).
Seq = Annotated[int, Field(ge=0, le=MAX_SEQ), BeforeValidator(_seq_in_range)]
EventSeq = Annotated[int, Field(ge=1, le=MAX_SEQ), BeforeValidator(_seq_in_range)]
"""A seq naming an event: 1 to ``MAX_SEQ``."""

EVENTS_BODY = {
    "description": "NDJSON: one event envelope a line (an `EventPublic`: the envelope and the `open` values "
    "the caller may see), in seq order",
    "content": {NDJSON: {"schema": {"type": "string"}, "itemSchema": {"$ref": "#/components/schemas/EventPublic"}}},
}
# No token is a spectator: these routes document the bearer as optional.
BEARER_OPTIONAL: dict[str, Any] = {"security": [{}]}
REPLAY_BODY = {
    "description": "the replay file (docs/FAIRNESS.md), NDJSON: a header line `{format, version, match, ruleset, "
    "players, engine}`, then one line per event: its envelope with `open` holding each sealed field's value",
    "content": {NDJSON: {"schema": {"type": "string"}, "itemSchema": {"type": "object"}}},
}


OpponentEntry = Annotated[StrictStr, Field(min_length=1, max_length=100)]


class _NewMatch(RequestBody):
    ruleset: StrictStr | None = Field(
        default=None,
        description="uno-duo (the default for two), classic-2p, or classic (the default, and the only one, "
        "for a table of three or more)",
    )
    move_seconds: StrictInt | None = Field(
        default=None, ge=1, le=86_400, description="the per-move limit in seconds (default: the server's, 60)"
    )


class MatchOfTwoRequest(_NewMatch):
    """A casual match of two: the caller at seat 0, the opponent at seat 1."""

    opponent: OpponentEntry = Field(
        description="a player id or name, or a house bot: bot:greedy, bot:coach-1 … bot:coach-5, bot:rule-v1, bot:random"
    )

    def entries(self) -> str:
        return self.opponent


class TableRequest(_NewMatch):
    """A table of 2 to 10: the caller at ``seat``, the opponents in the other seats in order."""

    opponents: list[OpponentEntry] = Field(
        min_length=1,
        max_length=MAX_SEATS - 1,  # a table seats 2 to 10 (RULES.md D18)
        description="1 to 9 entries (player ids or names, or house bots such as bot:greedy or bot:coach-3; a bot entry may come several "
        "times, each a bot of its own), seated after you in this order",
    )
    seat: StrictInt | None = Field(default=None, ge=0, le=9, description="your seat (default 0)")

    def entries(self) -> list[str]:
        return list(self.opponents)


def _one_form(body: object) -> object:
    """Say in words which of the two shapes a body misses, before pydantic lists both failures."""
    if isinstance(body, dict):
        if ("opponent" in body) == ("opponents" in body):
            raise ValueError("name the opponent (a match of two) or the opponents (a table), one of the two")
        if "seat" in body and "opponent" in body:
            raise ValueError("seat goes with opponents (a table); with opponent you take seat 0")
    return body


def _form_of(body: object) -> str:
    return "table" if isinstance(body, dict) and "opponents" in body else "match"


# Two shapes, each closed (no other field): a body naming both opponent and opponents, or seat
# with opponent, fits neither, and /openapi.json says so (anyOf), so a client can tell beforehand.
CreateMatchRequest = Annotated[
    Annotated[MatchOfTwoRequest, Tag("match")] | Annotated[TableRequest, Tag("table")],
    Discriminator(_form_of),  # errors of the one shape the body is, not of both
    BeforeValidator(_one_form),
]


class JoinRequest(RequestBody):
    entropy: StrictStr = Field(default="", max_length=256, description="your contribution to the shuffle key")


@router.post(
    "", status_code=201, response_model=MatchSummaryPublic, responses=error_responses(400, 401, 404, 409, 413, 503)
)
async def create_match(body: CreateMatchRequest, player: PlayerDep, matches: MatchServiceDep) -> MatchSummaryPublic:
    """A casual match: the caller takes seat 0, the opponent (a player or a house bot) seat 1; or a
    ``classic`` table of 2 to 10 with ``opponents``, the caller at ``seat`` (0 unless it says)."""
    seat = body.seat if isinstance(body, TableRequest) else None
    return await matches.create(player, body.entries(), body.ruleset, body.move_seconds, seat)


@router.post(
    "/{match_id}/join", response_model=MatchOutcome, responses=error_responses(400, 401, 403, 404, 409, 413, 422, 503)
)
async def join_match(
    request: Request, match_id: MatchId, caller: CallerDep, matches: MatchServiceDep, body: JoinRequest | None = None
) -> MatchOutcome | Response:
    """Take your seat; the match starts when every seat has joined (house bots join at once).

    Joining again with the same entropy is a retry (the first answer); with other entropy, 409 ``not_now``.
    """
    if (owner := await owner_elsewhere(request, match_id)) and (forwarded := await forward_request(request, owner)):
        return forwarded
    return await matches.join(match_id, caller, (body or JoinRequest()).entropy)


@router.get(
    "/{match_id}",
    response_model=MatchDetail,
    responses=error_responses(400, 401, 403, 404, 503),
    openapi_extra=BEARER_OPTIONAL,
)
async def get_match(
    match_id: MatchId,
    caller: CallerDep,
    reads: MatchReadsDep,
    at: Annotated[EventSeq | None, Query(description="the view just after this event (seq) instead of now")] = None,
) -> MatchDetail:
    """The caller's view (seat, spectator, or audit) and the match summary; ``at``: as it was then.
    403 ``withheld``: a duplicate round's match before its round is revealed, to anyone but its seats
    and the director (docs/TOURNAMENTS.md "Duplicate rounds")."""
    return await reads.show(match_id, caller, at)


@router.post(
    "/{match_id}/commands",
    response_model=MatchOutcome,
    responses=error_responses(400, 401, 403, 404, 409, 413, 422, 503),
)
async def send_command(
    request: Request, match_id: MatchId, body: CommandRequest, caller: CallerDep, matches: MatchServiceDep
) -> MatchOutcome | Response:
    """Apply a seat's command; returns the new view and the events as the caller may see them."""
    if (owner := await owner_elsewhere(request, match_id)) and (forwarded := await forward_request(request, owner)):
        return forwarded
    return await matches.command(match_id, caller, body.command_id, body.expected_version, body.command)


@router.get(
    "/{match_id}/events",
    response_class=Response,
    responses={200: EVENTS_BODY, **error_responses(400, 401, 403, 404, 503)},
    openapi_extra=BEARER_OPTIONAL,
)
async def match_events(
    request: Request,
    match_id: MatchId,
    caller: CallerDep,
    registry: MatchRegistryDep,
    reads: MatchReadsDep,
    since: Annotated[Seq, Query(description=f"the last seq the client has (0 to {MAX_SEQ})")] = 0,
    follow: Annotated[int, Query(ge=0, le=1, description="1: keep the stream open until the match's last event")] = 0,
) -> Response:
    """The events after ``since`` the caller may see, one JSON envelope per line (403 ``withheld``: a
    duplicate round's match not revealed yet, to anyone but its seats and the director)."""
    if follow:
        await registry.may_read(match_id, caller)  # an unknown match is a 404, a withheld one 403, before the stream
        if (owner := await owner_elsewhere(request, match_id)) and (streamed := await forward_stream(request, owner)):
            return streamed
        return StreamingResponse(reads.follow(match_id, caller, since), media_type=NDJSON)
    envelopes = await reads.events_since(match_id, caller, since)
    return Response(b"".join(ndjson_line(e) for e in envelopes), media_type=NDJSON)


@router.get(
    "/{match_id}/replay",
    response_class=Response,
    responses={200: REPLAY_BODY, **error_responses(400, 401, 403, 404, 409, 503)},
    openapi_extra=BEARER_OPTIONAL,
)
def match_replay(match_id: MatchId, caller: CallerDep, tournaments: TournamentServiceDep) -> Response:
    """The replay file of a finished match (docs/FAIRNESS.md); 409 while it is live, and while a
    duplicate round's other matches may still be playing its cards (docs/TOURNAMENTS.md): to its
    seats and the director 409, to anyone else 403 ``withheld``, as every read of such a match."""
    return Response(
        tournaments.replay(match_id, caller).encode(),
        media_type=NDJSON,
        headers={"Content-Disposition": f'attachment; filename="{match_id}.jsonl"'},
    )


# Every method, so that a GET is the same 404 as a POST without the key (a 405 would say the route is there).
EVERY_METHOD = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


@router.api_route("/{match_id}/handoff", methods=EVERY_METHOD, include_in_schema=False)
async def hand_over(request: Request, match_id: MatchId, matches: MatchServiceDep) -> dict[str, bool]:
    """Another server, where a seat of the match just connected, asks this one (its owner) to hand
    it over (server.api.forwarding.take_over). Only servers know the key; to anyone else the route
    is not there, whatever the method."""
    if request.method != "POST" or not from_a_peer(request):
        raise HTTPException(404, "Not Found")
    return {"handed_over": await matches.hand_over(match_id)}
