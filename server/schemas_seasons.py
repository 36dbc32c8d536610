"""What the season routes answer (docs/API.md "Seasons"): the service builds these, the routes
declare them as their ``response_model``."""

from __future__ import annotations

from pydantic import BaseModel, Field


class SeasonResultPublic(BaseModel):
    tournament: str
    place: int = Field(description="the player's final place in the event (among their division, with divisions)")
    points: int
    counted: bool = Field(description="whether these points count (a player's best `best_of` events count)")


class SeasonStandingPublic(BaseModel):
    rank: int = Field(description="1-based, within the division; shared by players equal on every tie-break")
    player: str = Field(description="a player id")
    name: str
    division: str | None = None
    events: int = Field(description="finished events of the season the player played")
    points: int = Field(description="the counted events' points")
    counted: list[str] = Field(description="the tournaments whose points count, in season order")
    wins: int = Field(description="first places (the second tie-break)")
    best_place: int | None = Field(description="the best single place (the third tie-break)")
    results: list[SeasonResultPublic] = Field(description="every finished event played, in season order")


class SeasonTournamentPublic(BaseModel):
    id: str
    name: str
    status: str = Field(description="created, running or finished (the tournament's own)")
    in_play: bool = Field(description="not finished: its places do not count yet")
    players: int


class DivisionPublic(BaseModel):
    name: str
    players: list[str] = Field(description="player ids, best first")


class MovePublic(BaseModel):
    player: str
    name: str
    source: str = Field(description="the division left")
    target: str = Field(description="the division joined")
    direction: str = Field(description="up or down")


class SeasonPublic(BaseModel):
    id: str
    name: str
    status: str = Field(description="open or finished")
    best_of: int | None = Field(description="a player's best N events count; null: every event")
    points_by_place: list[int] = Field(description="points for 1st, 2nd, ... place; places beyond score 0")
    tiebreaks: list[str] = Field(description="the published order, after points")
    divisions: list[DivisionPublic] = Field(
        description="as the season started, best first; players named in none play in the lowest"
    )
    promote: int
    relegate: int
    follows: str | None = Field(description="the season whose divisions this one started from")
    commitment: str = Field(description="sha256 of the season's seed, which draws the lots")
    server_seed: str | None = Field(description="the seed, revealed at the finish")
    created_at: str
    finished_at: str | None
    tournaments: list[SeasonTournamentPublic]
    standings: list[SeasonStandingPublic] = Field(description="by division (best first), then by rank")
    moves: list[MovePublic] = Field(description="at the finish: who went up and who went down")
    divisions_after: list[DivisionPublic] = Field(
        description="at the finish: the divisions with the moves made, where a following season starts"
    )


class SeasonListed(BaseModel):
    id: str
    name: str
    status: str
    tournaments: int
    created_at: str


class SeasonOfTournament(BaseModel):
    tournament: str
    season: SeasonListed | None = Field(description="the season the tournament is in; null for none")
