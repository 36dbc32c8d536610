"""The API's answers that are not one table's public model (those are in ``server/store/models.py``).

A view is ``engine.protocol.views.view()``'s dict: :class:`MatchView` documents the keys docs/PROTOCOL.md
fixes and lets every other key through unchanged (a view may gain keys), rather than modelling
each nested shape.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from engine.game.rulings import RULING_RANGE
from server.schemas_reviews import ReviewFiguresPublic
from server.store.models import EventPublic, MatchSummaryPublic, PlayerPublic

# server.tournaments.model.Format's values (docs/TOURNAMENTS.md "Formats", "Knockouts")
FormatName = Literal[
    "round_robin",
    "swiss",
    "tables",
    "single_elimination",
    "double_elimination",
    "table_knockout",
    "pools",
]


def _absent_if_none(value: Any) -> bool:
    return value is None


class ServerInfo(BaseModel):
    """What this server is and where to read about it (``GET /`` and ``GET /api``)."""

    name: Literal["unoduo"] = "unoduo"
    version: str = Field(description="the server's (and engine's) version")
    docs: str = Field(default="/docs", description="interactive API docs")
    openapi: str = Field(default="/openapi.json", description="the OpenAPI document")
    api: str = Field(default="/api", description="where the API's paths start (docs/API.md)")


class PlayerWithToken(PlayerPublic):
    """A player just registered, with their token (shown this once: the server keeps its hash only)."""

    token: str = Field(description="send it as 'Authorization: Bearer TOKEN'")


class MatchSummaryShown(MatchSummaryPublic):
    """docs/API.md's match summary as a client is shown it: with ``replaced_by`` for a match that a
    director's ``replay`` ruling annulled (the match that plays the pairing again)."""

    replaced_by: str | None = Field(
        default=None, description="an annulled match: the match that replays it (a replay ruling); else null"
    )


class SeatForfeit(BaseModel):
    """A seat that lost by forfeit: ``reason`` timeouts, join_deadline, withdrawal or ruling."""

    seat: int
    reason: str


class MatchEnding(BaseModel):
    """How one of the caller's matches ended (or why it was annulled), so that nobody reads a
    forfeit as ``won 0–0``."""

    how: Literal["played", "forfeit", "round_limit", "time_called", "annulled"] = Field(
        description="played to the target; forfeit (a two-seat match that a seat forfeited); round_limit "
        "(a table whose round limit ended it before anyone reached the target); time_called (a timed "
        "tournament round ran out and the totals decided it, RULES.md D26); annulled"
    )
    forfeits: list[SeatForfeit] = Field(default_factory=list, description="each seat that forfeited, with why")
    reason: str | None = Field(
        default=None,
        description="annulled: ruling (a replay ruling), no_show (neither seat joined), withdrawal, expired "
        "(a casual invitation nobody took up); else null",
    )
    rounds: int | None = Field(default=None, description="rounds played, once it ended; else null")


class MyMatch(MatchSummaryShown):
    """One of the caller's matches (``GET /api/me``): a summary and, once over, how it ended."""

    ended: MatchEnding | None = Field(default=None, description="finished or annulled: how; else null")


class Me(PlayerPublic):
    """The caller, every match they have a seat in (by match id), and their next tournament pairings."""

    matches: list[MyMatch]
    next: list[NextMatch] = Field(
        default_factory=list,
        description="in each running tournament: the pairings of open rounds waiting for their seats "
        "(with match and join_deadline), then the next pairing in a round not yet open",
    )


class Pending(BaseModel):
    """The decision the match waits for: ``kind``, and what that decision needs (e.g. ``total``)."""

    model_config = ConfigDict(extra="allow")

    kind: str = Field(description="draft, turn, drawn, volley, wild_draw_four, dump, color or none")


class MatchView(BaseModel):
    """What one viewer sees of a match (docs/PROTOCOL.md "View"): a seat's, a spectator's, or the audit view.

    Only an audit view (the director, or anyone once the match is over) has ``hands`` and
    ``draw_order``. A view may carry keys beyond those listed here.
    """

    model_config = ConfigDict(extra="allow")

    viewer: int | Literal["spectator", "auditor"] = Field(
        description="a seat number (0 to seats-1), spectator or auditor"
    )
    version: int = Field(description="number of events folded so far")
    phase: str = Field(description="waiting, draft, play, round_over or match_over, …")
    round: int
    scores: list[int]
    target: int
    player1: int | None = Field(description="seat of this round's first drafter (classic: the dealer)")
    turn: int | None = Field(description="seat whose decision it is, or null")
    pending: Pending
    hand: list[str] | None = Field(description="the viewer's own cards (codes); null for a spectator")
    hand_counts: list[int]
    top: str | None = Field(description="the top discard")
    color: str | None = Field(description="the active colour")
    draw_pile: int = Field(description="how many cards the draw pile holds")
    draft_pile: list[str]
    uno: list[bool] = Field(description="per seat: has said UNO on its current one-card hand")
    legal: list[dict[str, Any]] = Field(description="the commands this viewer may send now (docs/PROTOCOL.md)")
    commitment: str = Field(description="the deck-seed commitment (docs/FAIRNESS.md)")
    last_challenge: dict[str, Any] | None = Field(description="null or {by, hand, verdict, evidence}")
    hands: list[list[str]] | None = Field(
        default=None, exclude_if=_absent_if_none, description="audit view only: every seat's hand"
    )
    draw_order: list[str] | None = Field(
        default=None, exclude_if=_absent_if_none, description="audit view only: the draw pile, top first"
    )
    annulled: bool | None = Field(
        default=None,
        exclude_if=_absent_if_none,
        description="true once the match is annulled (then legal is empty and deadline null); absent otherwise",
    )
    replaced_by: str | None = Field(
        default=None, exclude_if=_absent_if_none, description="an annulled match: the match that replays it"
    )


class MatchDetail(BaseModel):
    """A match as the caller may see it."""

    match: MatchSummaryShown
    view: MatchView


class MatchOutcome(MatchDetail):
    """What a join or a command did: the match and view after it, and its events as the caller may see them.

    ``events`` are the command's events and the house bots' answers to it.
    """

    events: list[EventPublic]


# ---------------------------------------------------------------- tournaments (docs/TOURNAMENTS.md)


class TournamentResult(BaseModel):
    """How a pairing was decided. ``winner`` is a player id (null: a double forfeit)."""

    winner: str | None
    scores: list[int] = Field(description="the match's final totals, white's first; [0, 0] for a forfeit")
    forfeit: bool = Field(description="a forfeit: a win and a loss, with no points")
    reason: str = Field(description="played, or the forfeit's: timeouts, join_deadline, withdrawal, ruling, no_show")
    match: str | None = Field(description="the match that decided it; null when none was played")
    places: list[int] | None = Field(
        default=None, description="a table's: each seat's final place (1 first; equal totals share one), in seat order"
    )


class PairingPublic(BaseModel):
    """One pairing (or, in a tables tournament, one table) of the schedule (``slot`` =
    "round.board"); ``seats[0]`` (``white``) is the first drafter, or a table's first dealer."""

    slot: str
    board: int
    seats: list[PlayerPublic] = Field(default_factory=list, description="every seat's player, in seat order")
    white: PlayerPublic
    black: PlayerPublic
    status: Literal["pending", "live", "decided", "cancelled", "withheld"] = Field(
        description="pending: its round is not open yet; cancelled: a withdrawal annulled it; withheld: a "
        "duplicate round not revealed yet, whose pairings show no state and no result until every one of "
        'them is decided (docs/TOURNAMENTS.md "Duplicate rounds")'
    )
    match: str | None = Field(description="the match playing it (the latest, after a replay ruling)")
    annulled: list[str] = Field(description="earlier matches of this pairing annulled by a replay ruling")
    result: TournamentResult | None
    bracket: Literal["winners", "losers", "final", "table", "pool"] | None = Field(
        default=None, description="a knockout's: the bracket of the node it plays; null in other formats"
    )
    node: str | None = Field(
        default=None, description='a knockout\'s: the plan\'s node it plays ("W1-2", "L3-1", "GF")'
    )


class BracketNodePublic(BaseModel):
    """One node of a knockout's plan (docs/TOURNAMENTS.md "Knockouts"): a match, or a bye."""

    id: str = Field(description='"W1-2": winners\' round 1, match 2; "L3-1"; "GF", "GF2" (the reset); "F"; "T1-2"')
    round: int
    bracket: Literal["winners", "losers", "final", "table", "pool"]
    stage: int = Field(description="how far a player who goes out here got (final places: higher is further)")
    seats: list[str | None] = Field(description="each seat's player id; null: not known yet, or nobody (a bye)")
    sources: list[str] = Field(description='where each seat comes from: "seed 3", "winner of W1-2", "loser of W1-2"')
    status: Literal["waiting", "ready", "live", "decided", "walkover", "void"] = Field(
        description="waiting: a seat not known yet; walkover: one entrant goes on without a match (a bye); "
        "void: nobody (a reset not needed)"
    )
    match: str | None = Field(description="the match that plays it (the latest, after a replay ruling)")
    winner: str | None


class PlacePublic(BaseModel):
    place: int = Field(description="competition rank: tied players share it and the next places are skipped")
    player: str


class PoolPublic(BaseModel):
    pool: str = Field(description="the pool's letter: A, B, …")
    node: str = Field(description="the node its matches carry (pool-A, …)")
    players: list[str] = Field(description="the pool's players (ids) in standing order")
    decided: bool = Field(
        description="every pool round played and every pairing decided: its places go into the bracket"
    )
    standings: list[StandingPublic] = Field(
        description="the pool's table by its format's chain (the lot last; a withdrawn player last, never going on)"
    )


class RoundPublic(BaseModel):
    number: int
    status: Literal["pending", "running", "finished"]
    matches: list[MatchSummaryPublic] = Field(
        description="the round's matches (seats[0] is white); none of a duplicate round's until it is revealed"
    )
    bye: str | None = Field(description="the player who sits this round out (an odd field)")
    pairings: list[PairingPublic]
    starts_at: str | None = Field(
        default=None, description="the start time the director gave the round (it opens no earlier); null: none"
    )
    note: str | None = Field(
        default=None, description="what the round could not do as asked: a forbidden pair no pairing avoided"
    )
    deadline: str | None = Field(
        default=None, description="a timed round (round_minutes) once open: when it runs out of time; else null"
    )
    time_called: str | None = Field(
        default=None, description="when time was called in the round (its deadline, or the director's call); else null"
    )


class StandingPublic(BaseModel):
    rank: int
    player: str = Field(description="a player id")
    name: str
    played: int
    won: int
    lost: int
    byes: int
    forfeits: int = Field(description="this player's matches decided by forfeit, won or lost")
    points_for: int = Field(description="the player's own final totals over matches played (not forfeits)")
    points_against: int = Field(description="the opponents' totals in those matches")
    withdrawn: bool
    half_byes: int = Field(
        default=0, description="a Swiss: half-point byes (asked for, or rounds missed by a late entry)"
    )
    score: int | float = Field(
        default=0,
        description="what ranks first: match wins (round_robin), the Swiss score (a win or a bye: 1, a half-point "
        "bye: 0.5), "
        "placement points (tables)",
    )
    tiebreaks: dict[str, int | float] = Field(
        description="the format's chain, in order: round_robin match_wins, head_to_head, sonneborn_berger, "
        "points_difference, points_conceded, lot; swiss score, buchholz, sonneborn_berger, match_wins, "
        "points_difference, points_conceded, lot; tables placement_points, match_points, firsts, lot"
    )
    decided_by: str | None = Field(description="the tie-break that puts this row above the next; null for the last")
    same_deal: float | None = Field(
        default=None,
        description="duplicate rounds: matchpoints on the same deals as a percentage (50: the field's average); "
        "null without a comparison or when the tournament is not duplicate (docs/TOURNAMENTS.md)",
    )


class DisputePublic(BaseModel):
    id: str
    tournament: str
    slot: str
    match: str
    seq: int = Field(description="the disputed event")
    seat: int
    player: str
    note: str
    at: str
    status: Literal["open", "ruled"]
    decision: Literal["stands", "replay", "award"] | None
    ruling_note: str | None
    award_to: int | None = Field(description="the seat an award went to")
    rule: str | None = Field(description=f"the ruling of RULES.md cited, {RULING_RANGE}")
    ruled_at: str | None
    audit_view: str = Field(description="the path of the match's view just after the disputed event")


class WithdrawalPublic(BaseModel):
    player: str
    annulled: bool = Field(description="fewer than half played: every result of the player annulled")


class TournamentPublic(BaseModel):
    """docs/API.md's tournament, with the schedule, the results and the standings."""

    id: str
    name: str
    status: Literal["created", "running", "finished"]
    open: bool = Field(default=False, description="players enter (and leave) themselves until the start")
    bot_accounts: bool = Field(
        default=False, description="bot accounts (kind bot_account, docs/BOTS.md) may be entered; off by default"
    )
    seeding: Literal["entry", "rating"] = Field(
        default="entry", description="pairing numbers by the entry order, or by rating at the start"
    )
    seed_ratings: dict[str, int] = Field(
        default_factory=dict, description="a rating seeding: each player's rating when it started (by player id)"
    )
    duplicate: bool = Field(default=False, description="duplicate rounds: a round's pairings share one deal")
    deal_keys: dict[str, str] = Field(
        default_factory=dict,
        description="duplicate rounds: each finished round's deal key (hex), by round number (docs/FAIRNESS.md)",
    )
    entropies: dict[str, str] = Field(
        default_factory=dict,
        description="duplicate rounds, once finished: the entropy each entrant gave on entering (by player id; "
        'none: ""), from which with the seed anyone recomputes every deal key',
    )
    ruleset: str
    rules: dict[str, Any] = Field(description="the complete ruleset in force")
    format: FormatName = "round_robin"
    rounds_planned: int = Field(default=0, description="how many rounds it has (a Swiss pairs each when it opens)")
    table_size: int | None = Field(default=None, description="tables: the preferred size of a table")
    advance: int | None = Field(
        default=None, description="table_knockout: how many of each table go on; pools: of each pool"
    )
    pool_format: Literal["round_robin", "swiss"] | None = Field(default=None, description="pools: each pool's format")
    pool_size: int | None = Field(default=None, description="pools: the most players a pool holds")
    bracket_format: Literal["single_elimination", "double_elimination"] | None = Field(
        default=None, description="pools: the bracket the pools' qualifiers go into (asked for as `bracket`)"
    )
    placement_points: list[int] = Field(
        default_factory=list, description="tables: the points for 1st, 2nd, … at a table (past the end: 0)"
    )
    repeat_meetings: int | None = Field(
        default=None,
        description="tables, once started: how many times two players meet again in the seating (each pair's "
        "meetings past the first, summed; 0 when everyone meets everyone at most once)",
    )
    double: bool
    move_seconds: int
    join_seconds: int
    round_minutes: float | None = Field(
        default=None, description="timed rounds (RULES.md D26): each round's wall-clock limit in minutes; null: untimed"
    )
    commitment: str = Field(description="sha256 of the tournament's seed (lots), revealed at the end")
    server_seed: str | None = Field(description="the seed, once the tournament has finished")
    players: list[PlayerPublic] = Field(description="in pairing-number order (number 1 first)")
    withdrawals: list[WithdrawalPublic]
    rounds: list[RoundPublic]
    standings: list[StandingPublic]
    open_disputes: int = Field(
        description="disputes waiting for a ruling (those of a duplicate round not revealed yet: for the director only)"
    )
    bracket: list[BracketNodePublic] = Field(
        default_factory=list, description="a knockout's plan as the results leave it, node by node; [] otherwise"
    )
    places: list[PlacePublic] = Field(
        default_factory=list,
        description="a finished knockout's final places, every entrant, best first, ties shared; [] otherwise",
    )
    pools: list[PoolPublic] = Field(
        default_factory=list, description="pools into a bracket, once started: each pool's standings; [] otherwise"
    )
    starts_at: str | None = Field(default=None, description="when it starts by itself; null: the director starts it")
    check_in_minutes: int | None = Field(default=None, description="the check-in window before the start; null: none")
    check_in_opens: str | None = Field(default=None, description="when entrants may check in; null: no check-in")
    checked_in: list[str] = Field(default_factory=list, description="the entrants who checked in (player ids)")
    forbidden_pairs: list[list[str]] = Field(
        default_factory=list, description="pairs of player ids never paired where avoidable (a swiss's)"
    )
    late_entry_rounds: int | None = Field(default=None, description="a swiss: entries taken until this round is paired")
    late_entry_bye: bool = Field(
        default=False, description="a late entrant's missed rounds score a half-point bye each"
    )
    half_byes: dict[str, list[str]] = Field(
        default_factory=dict, description="the half-point byes asked for, by round number: player ids"
    )
    late_entries: dict[str, int] = Field(
        default_factory=dict, description="late entrants (player id) and the first round each was paired in"
    )
    not_checked_in: list[PlayerPublic] = Field(
        default_factory=list, description="the entrants withdrawn at the start for not checking in"
    )


class NodeResultPublic(BaseModel):
    """A decided node of a knockout, as the JSON export gives it."""

    node: str
    round: int
    match: str | None = Field(description="the match that decided it; null: decided without one (a forfeit)")
    places: list[str | None] = Field(description="its players in place order (winner first); [null]: both forfeited")
    scores: list[int] = Field(description="each seat's total, in seat order")
    forfeit: bool
    reason: str


class KnockoutExport(BaseModel):
    """``GET /api/tournaments/{id}/export.json``: a knockout whole (its plan, results and places),
    where FIDE's TRF has no way to say a bracket (docs/TOURNAMENTS.md "Exports")."""

    id: str
    name: str
    format: FormatName
    ruleset: str
    seeding: Literal["entry", "rating"]
    status: Literal["created", "running", "finished"]
    seeds: list[PlayerPublic] = Field(description="the entrants in seeded order (seed 1 first)")
    bracket: list[BracketNodePublic]
    results: list[NodeResultPublic] = Field(description="the decided nodes, in the order they were paired")
    places: list[PlacePublic] = Field(description="once finished: every entrant's final place; [] before")
    withdrawals: list[str]
    commitment: str
    server_seed: str | None


class TournamentListed(BaseModel):
    id: str
    name: str
    status: Literal["created", "running", "finished"]
    players: int
    rounds: int
    opened: int = Field(description="rounds opened so far")
    format: FormatName = "round_robin"
    open: bool = Field(default=False, description="players may enter themselves until the start")
    entries: int = Field(default=0, description="players entered so far (the same count as players)")
    entered: bool | None = Field(
        default=None, description="whether the caller is entered; null without a player's token"
    )
    check_in_opens: str | None = Field(default=None, description="when entrants may check in; null: no check-in")
    checked_in: int = Field(default=0, description="how many entrants have checked in")
    you_checked_in: bool | None = Field(
        default=None, description="whether the caller has checked in; null without a player's token"
    )
    late_entry_until: int | None = Field(
        default=None, description="a running Swiss still taking late entries: until this round is paired"
    )
    you_missed_check_in: bool | None = Field(
        default=None,
        description="whether the caller was withdrawn at the start for not checking in; null without a player's token",
    )


class NextMatch(BaseModel):
    """A player's next pairing in a running tournament, in a round not open yet."""

    tournament: str
    round: int
    opponent: str = Field(description="a player id")
    opponent_name: str = Field(default="", description="the opponent's name")
    white: bool = Field(description="whether the player is white (seat 0, first drafter) in it")
    opponents: list[str] = Field(default_factory=list, description="every other seat's player id (a table: 2-9)")
    starts_at: str | None = Field(default=None, description="the round's start time, if the director gave one")
    match: str | None = Field(default=None, description="the match to join, once its round is open; else null")
    label: str | None = Field(
        default=None,
        description='a knockout\'s name for it: "winners\' round 2", "grand final", "round 1 table 3 — top 2 go '
        'on", "pool B round 2"; null elsewhere (the round number says it)',
    )
    join_deadline: str | None = Field(
        default=None,
        description="ISO time by which the seat must join (its round is open); null before the round opens, "
        "or when no deadline applies (a replayed match after its round's deadline)",
    )


class FamilyRating(BaseModel):
    """A player's rating in one family (docs/RATINGS.md): shown on the Glicko scale in both."""

    rating: float
    deviation: float
    provisional: bool = Field(description="true while the deviation is 110 or more (lichess's mark)")
    games: int = Field(description="rated matches")


class RatingPoint(BaseModel):
    """The rating after one rated match (the chart's points)."""

    match: str
    at: str = Field(description="when the match ended")
    rating: float
    deviation: float


class HistoryItem(BaseModel):
    """One match of the player's, as their page lists it."""

    match: str
    at: str = Field(description="when the match was made")
    status: Literal["waiting", "live", "finished", "annulled", "withheld"] = Field(
        description="withheld: a match of a duplicate round not revealed yet; its scores, result and rating "
        'change are shown once the round is (docs/TOURNAMENTS.md "Duplicate rounds")'
    )
    ruleset: str | None
    family: str | None = Field(description="the rating family of the ruleset: uno-duo or classic")
    tournament: str | None
    tournament_name: str | None
    round: int | None
    seat: int = Field(description="the player's seat")
    seats: list[PlayerPublic | None]
    scores: list[int]
    places: list[int] | None
    result: Literal["won", "lost", "drawn"] | None = Field(description="a two-seat match's result for this player")
    place: int | None = Field(description="the player's final place at a table")
    rating_change: float | None = Field(description="what the match did to the player's rating; null: unrated")
    unrated: str | None = Field(description="why a finished match was not rated (e.g. casual, not played)")


class TournamentPlayed(BaseModel):
    id: str
    name: str
    format: str
    status: Literal["created", "running", "finished"]
    rank: int | None = Field(description="the player's rank in the standings")
    players: int


class HeadToHead(BaseModel):
    """The player's record against one opponent: at a table, ``won`` counts finishing above them."""

    opponent: PlayerPublic
    played: int
    won: int
    lost: int
    drawn: int


class PlayerPage(PlayerPublic):
    """``GET /api/players/{id}`` (docs/API.md "Ratings and bot accounts")."""

    ratings: dict[str, FamilyRating] = Field(description="by family: uno-duo, classic")
    rating_history: dict[str, list[RatingPoint]] = Field(description="by family, oldest first, the last 100")
    history: list[HistoryItem] = Field(description="the player's matches, newest first")
    tournaments: list[TournamentPlayed]
    head_to_head: list[HeadToHead] = Field(description="the most-met opponents first, at most 20")
    review: ReviewFiguresPublic | None = Field(
        default=None,
        description="Game Review (docs/REVIEW.md) of the player's last finished matches (at most 20), as far as reviewed",
    )


class Versus(HeadToHead):
    """``GET /api/players/{id}/versus/{other}``: the record and the matches they met in."""

    player: PlayerPublic
    matches: list[HistoryItem]


class FairPlayRow(BaseModel):
    """One player's fair-play signals (docs/TOURNAMENTS.md "Fair-play signals"): data, not a verdict."""

    player: PlayerPublic = Field(description="the player, with its kind (human, bot, bot_account)")
    matches: int = Field(description="the tournament's matches this player held a seat in (replayed ones too)")
    moves: int = Field(description="decisions the player answered itself (timeouts and uno calls not counted)")
    mean_seconds: float | None = Field(description="mean move time; null without a move")
    stdev_seconds: float | None = Field(description="population standard deviation of the move times")
    median_seconds: float | None = Field(description="median move time (the mean of the two middle ones)")
    p90_seconds: float | None = Field(description="90th percentile of the move times, by nearest rank")
    fastest_seconds: float | None
    slowest_seconds: float | None
    timeouts: int = Field(description="decisions whose move clock ran out (timed_out events of this seat)")
    timeout_forfeits: int = Field(description="matches forfeited by three timeouts in a row")
    reviewed_matches: int = Field(default=0, description="finished matches of the player whose Game Review is computed")
    reviewed_decisions: int = Field(default=0, description="decisions with a choice in those reviews")
    agreement: float | None = Field(
        default=None,
        description="share of those decisions where the choice was the coach's (the top level's criterion)",
    )
    average_loss: float | None = Field(default=None, description="mean loss a decision, in expected match points")


class FairPlayReport(BaseModel):
    """``GET /api/tournaments/{id}/fairplay``: every entrant's move times and timeouts, in pairing order.
    Move times are differences of the events' public ``at`` stamps."""

    tournament: str
    name: str
    status: Literal["created", "running", "finished"]
    move_seconds: int = Field(description="the move clock of the tournament's matches")
    matches: int = Field(description="matches read (finished, live and annulled ones)")
    players: list[FairPlayRow]
    review_note: str = Field(
        default="", description="what the Game Review figures (agreement, average loss) mean and do not mean"
    )


# ---------------------------------------------------------------- the lobby (WS /api/me/ws?lobby=1, GET /api/me/lobby)


class LobbyBye(BaseModel):
    """A round in which the player has the bye (a win without play), opened or paired already."""

    tournament: str
    round: int
    starts_at: str | None = None
    opened: bool = Field(description="the round is open (under way) now")


class LobbyComing(BaseModel):
    """A running tournament's next round, not paired yet (a Swiss pairs each round as it opens)."""

    tournament: str
    round: int
    starts_at: str | None = Field(default=None, description="the round's start time, if the director gave one")
    label: str | None = Field(
        default=None,
        description='a knockout\'s name for the player\'s next match ("losers\' round 2", "pool B round 3") when '
        "the bracket already seats them there; null otherwise",
    )


class LobbyState(BaseModel):
    """Everything the lobby draws for one player, at one moment (docs/SERVER.md "The lobby socket").
    Built from the same reads as ``GET /api/me``, ``GET /api/tournaments``, ``GET /api/tournaments/{id}``
    and ``GET /api/me/disputes``, with the same secrecy."""

    me: Me = Field(description="GET /api/me: the player, their matches (with how each ended), their next pairings")
    watch: list[MatchSummaryShown] = Field(
        default_factory=list,
        description="live matches of the player's running tournaments without them, as the tournament page "
        "lists them (a duplicate round's are withheld until its reveal)",
    )
    tournaments: list[TournamentListed] = Field(
        default_factory=list,
        description="GET /api/tournaments's first page (open ones with entries, running, finished)",
    )
    byes: list[LobbyBye] = Field(default_factory=list)
    coming: list[LobbyComing] = Field(default_factory=list)
    names: dict[str, str] = Field(default_factory=dict, description="tournament id -> name, for every id above")
    disputes: list[DisputePublic] = Field(default_factory=list, description="GET /api/me/disputes")
