"""``unoduo bench tournament`` (the command is in ``cli.bench_cmd``): a whole tournament through a real server.

The issue's performance bar: "a 16-bot round-robin (120 matches to 200) through a real server on
SQLite; wall time in docs/BENCHMARKS.md. Target: under 60 s on this machine." Issue 22 adds the
other formats ("``unoduo bench tournament`` reports each format's wall time"): ``--format swiss``
(standard run: 20 bots, 5 rounds, uno-duo to 200) and ``--format tables`` (16 bots at tables of 4,
5 rounds, classic to 500 with ``rules.round_limit`` 3), each checked by its own :func:`check_swiss`
or :func:`check_tables` and written to its own section of docs/BENCHMARKS.md; no wall-time target
is set for them. The round robin (the default) is the run it always was, in the section it always had.

A real ``unoduo serve`` is started as a subprocess (``bench.launch.ServerProcess``: loopback, a
fresh SQLite file or a throw-away PostgreSQL schema, ``UNODUO_BOT_THINK_SECONDS=0`` so the house
bots answer at once, and a director token of the run's own). The client, this process, does no
playing: it creates the tournament of ``--players`` bot entries (``bot:random``, ``bot:greedy``,
… alternating, as ``--bots`` lists them), starts it, and reads ``GET /api/tournaments`` (the
light list) every :data:`POLL_SECONDS` until the tournament says ``finished``, and its pairings
every :data:`PROGRESS_SECONDS`: the run fails only if no pairing is decided for ``--stall`` seconds
(stuck), never because a loaded machine takes longer. The server does
everything else by itself: it opens each round's matches, its bots play both seats, it records
each result and opens the next round.

Figures: wall time from the ``POST /api/tournaments/{id}/start`` to the first read that says
``finished`` (so it is late by at most one poll), matches, engine events (the sum of the matches'
stream heads: each match's ``view.version``, read after the timing), matches/s, events/s, and the
CPU seconds of the server process (``/proc/PID/stat``) and of the client over that time.

The result is checked, and a wrong one fails the run (:func:`check`, for a round robin): every round finished, with
one bye for an odd field; every pair met exactly once; every pairing decided by a match played to
its end (no forfeits: house bots answer at once); each summary's ``seats[0]`` is the pairing's
white; the standings add up (every player played n - 1, won + lost = played, the byes recorded,
sum of ``won`` = the pairings with a winner, each player's won and points as their results say).

The reference, in this process after the server has stopped (so the two never share the cores):
the very same matches played again by the engine alone (:func:`play_alone`: no store, no network,
no service): each match's seed (its replay reveals it), its bots in their seats, and the house
bots' turns taken as ``MatchService`` takes them, so the engine makes the same events, one for one
(checked: a match played differently fails the run). The ratio is the server's
wall time over the engine's. A table's match is played again the same way: its seats (3 to 10),
seat 0 the first dealer, the seats' names and the table's size given to ``CreateMatch`` as
``MatchCreation.make`` gives them, every seat joined in order.
"""

from __future__ import annotations

import importlib.metadata as md
import os
import platform
import secrets
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import httpx
from rich.console import Console
from rich.table import Table

from bench.launch import DEFAULT_POSTGRES_URL, BenchError, ServerProcess, database
from bench.progress import STALL_SECONDS, Stall
from bench.report import BENCHMARKS_MD, cpu_model, section_head, write_docs_section
from bench.server import CpuMeter
from engine.bots import SeatMemories, bot_choice, get_bot, normalize_bot_name
from engine.game.commands import CreateMatch, JoinSeat, parse_seat_command
from engine.game.errors import UnoDuoError
from engine.game.rulesets import Ruleset, get_ruleset
from engine.game.shuffle import Dealer, commitment_of
from engine.game.state import Phase
from engine.play.match import LocalMatch
from engine.protocol.views import legal_commands, view
from engine.record.replay import parse_replay
from server.services.house_bots import BOT_CHAIN
from server.tournaments.tables import table_sizes

SECTION = "## Tournament"  # the round robin's section of docs/BENCHMARKS.md (the first, unchanged)
SECTIONS = {"round_robin": SECTION, "swiss": "## Tournament: Swiss", "tables": "## Tournament: tables"}
FORMATS = tuple(SECTIONS)
TARGET_SECONDS = 60.0  # the bar, for the standard run: 16 bots, uno-duo to 200, SQLite
STANDARD_PLAYERS = 16
# The standard runs of the other formats (issue 22's "how it is shown"): no wall-time target is set for them.
STANDARD_FIELD = {"round_robin": STANDARD_PLAYERS, "swiss": 20, "tables": 16}
STANDARD_ROUNDS = 5  # swiss and tables
STANDARD_TABLE_SIZE = 4
STANDARD_ROUND_LIMIT = 3  # tables: a match ends after this many rounds (rules.round_limit), the best total winning
AFFINE_ORDERS = (3, 4, 5, 7)  # q * q players at tables of q, up to q + 1 rounds: nobody meets twice
POLL_SECONDS = 0.2
PROGRESS_SECONDS = 1.0  # how often the pairings decided so far are read (the run's progress)
REQUEST_SECONDS = 60.0


@dataclass
class Options:
    players: int = STANDARD_PLAYERS
    bots: tuple[str, ...] = ("random", "greedy")
    target: int | None = None  # None: the ruleset's own (uno-duo: 200, classic: 500)
    ruleset: str = ""  # "": the format's (tables: classic; otherwise uno-duo)
    db: str = "sqlite"
    postgres_url: str = DEFAULT_POSTGRES_URL
    stall: float = STALL_SECONDS  # no pairing decided for this long: the run is stuck (fails)
    poll: float = POLL_SECONDS
    format: str = "round_robin"  # round_robin | swiss | tables
    rounds: int | None = None  # swiss and tables (None: 5); a round robin's follow from the field
    table_size: int = STANDARD_TABLE_SIZE  # tables: the preferred size
    round_limit: int | None = None  # tables (None: 3); 0 is none

    def __post_init__(self) -> None:
        if self.format not in SECTIONS:
            raise BenchError(f"format must be one of {', '.join(FORMATS)}, not {self.format!r}")
        if not self.ruleset:
            self.ruleset = "classic" if self.format == "tables" else "uno-duo"

    def entries(self) -> list[str]:
        """The tournament's entries, in pairing-number order: the bots of ``bots`` in turn."""
        return [f"bot:{self.bots[i % len(self.bots)]}" for i in range(self.players)]

    @property
    def resolved_target(self) -> int:
        return self.target if self.target is not None else get_ruleset(self.ruleset).target

    @property
    def resolved_rounds(self) -> int:
        """The rounds the tournament has: a round robin's n - 1 (n for an odd field), else ``rounds`` or 5."""
        if self.format == "round_robin":
            return self.players - 1 + self.players % 2
        return self.rounds if self.rounds is not None else STANDARD_ROUNDS

    @property
    def resolved_round_limit(self) -> int:
        """Tables: the match's round limit (0: none, the target alone ends a match); other formats: 0."""
        if self.format != "tables":
            return 0
        return self.round_limit if self.round_limit is not None else STANDARD_ROUND_LIMIT

    @property
    def section(self) -> str:
        """This format's section of docs/BENCHMARKS.md."""
        return SECTIONS[self.format]

    @property
    def exact_design(self) -> bool:
        """Tables: q * q players at tables of q for at most q + 1 rounds (an affine plane): 0 repeat meetings."""
        q = self.table_size
        return (
            self.format == "tables" and q in AFFINE_ORDERS and self.players == q * q and self.resolved_rounds <= q + 1
        )

    @property
    def standard(self) -> bool:
        """The run the target is set for: 16 bots, uno-duo to 200, on SQLite (a round robin only)."""
        default = get_ruleset("uno-duo").target
        return (
            self.format == "round_robin"
            and self.players == STANDARD_PLAYERS
            and self.ruleset == "uno-duo"
            and self.resolved_target == default
            and self.db == "sqlite"
        )


@dataclass(frozen=True)
class PlayedMatch:
    """A match the server played, as its replay tells it: enough for the engine to play it again."""

    id: str
    round: int
    seed: bytes  # revealed by its last event
    bots: tuple[str, ...]  # by seat: white's (a table's first dealer's) first; 2 to 10 seats
    ruleset: Ruleset
    types: tuple[str, ...]  # its events' types, in order
    names: tuple[str, ...] | None = None  # the seats' names its match_created records (None: none recorded)
    rounds_played: int = 0  # its match_ended's rounds


@dataclass
class EngineRun:
    """The reference: the same matches played by the engine alone, in this process."""

    matches: int
    events: int
    seconds: float  # wall (perf_counter)
    cpu: float  # process CPU (process_time)
    same: int  # matches whose events (types, in order) are the server's, one for one


@dataclass
class Report:
    options: Options
    tournament_id: str = ""
    status: str = ""
    rounds: int = 0
    pairings: int = 0
    matches: int = 0  # pairings decided by a match played to its end
    seconds: float = 0.0  # wall: the start request sent → a read saying finished
    events: int | None = None  # the sum of the matches' stream heads
    server_cpu: float | None = None
    client_cpu: float = 0.0
    engine: EngineRun | None = None
    problems: list[str] = field(default_factory=list)
    facts: list[str] = field(default_factory=list)
    standings: list[dict[str, Any]] = field(default_factory=list)
    played: list[PlayedMatch] = field(default_factory=list)
    opened_at: list[float] = field(default_factory=list)  # round k: seconds after the start it was first seen open
    repeats: int | None = None  # tables: meetings beyond the first of every pair (0: nobody met twice)
    pairs_met: int | None = None  # tables: the pairs of players who sat at one table at least once
    server_log_tail: str = ""
    server_exit: int | None = 0

    @property
    def finished(self) -> bool:
        return self.status == "finished"

    @property
    def ok(self) -> bool:
        """Finished, and every check of the result held."""
        return self.finished and not self.problems

    @property
    def matches_per_second(self) -> float:
        return self.matches / self.seconds if self.seconds else 0.0

    @property
    def events_per_second(self) -> float | None:
        return None if self.events is None or not self.seconds else self.events / self.seconds

    @property
    def ratio(self) -> float | None:
        """The server's wall time over the engine alone's, for the same matches."""
        if self.engine is None or not self.engine.seconds or not self.finished:
            return None
        return self.seconds / self.engine.seconds

    @property
    def cpu_ratio(self) -> float | None:
        if self.engine is None or not self.engine.cpu or self.server_cpu is None or not self.finished:
            return None
        return self.server_cpu / self.engine.cpu

    @property
    def target_met(self) -> bool | None:
        """Under the target (None: not the standard run, or no valid result to judge)."""
        if not self.options.standard or not self.ok:
            return None
        return self.seconds < TARGET_SECONDS


# ---------------------------------------------------------------- checking the result


@dataclass
class _TwoSeatTally:
    """What a two-seat tournament's pairings say, added up as they are read (round robin and Swiss)."""

    target: int
    lower_wins: bool
    scoring: Any
    met: Counter[frozenset[str]] = field(default_factory=Counter)
    byes: Counter[str] = field(default_factory=Counter)
    won: Counter[str] = field(default_factory=Counter)
    lost: Counter[str] = field(default_factory=Counter)
    played: Counter[str] = field(default_factory=Counter)
    whites: Counter[str] = field(default_factory=Counter)
    blacks: Counter[str] = field(default_factory=Counter)
    points_for: Counter[str] = field(default_factory=Counter)
    points_against: Counter[str] = field(default_factory=Counter)
    with_winner: int = 0
    doubles: int = 0

    @classmethod
    def of(cls, t: dict[str, Any]) -> _TwoSeatTally:
        rules = t.get("rules", {})
        scoring = rules.get("scoring", "loser_scores")
        return cls(target=int(rules.get("target", 0)), lower_wins=scoring != "winner_scores", scoring=scoring)

    def pairing(self, p: dict[str, Any], summaries: dict[str, Any], problems: list[str]) -> tuple[str, str]:
        """Read one pairing: its players met, its result tallied, what is wrong with it added to ``problems``."""
        white, black = p["white"]["id"], p["black"]["id"]
        self.met[frozenset((white, black))] += 1
        self.whites[white] += 1
        self.blacks[black] += 1
        res = p.get("result")
        where = f"pairing {p.get('slot')} ({white} - {black})"
        if p.get("status") != "decided" or res is None:
            problems.append(f"{where} is {p.get('status')!r}, not decided")
            return white, black
        self.played.update((white, black))
        winner = res.get("winner")
        if winner is None:
            self.doubles += 1
            self.lost.update((white, black))
        elif winner not in (white, black):
            problems.append(f"{where}: the winner {winner!r} is not one of its players")
        else:
            self.with_winner += 1
            self.won[winner] += 1
            self.lost[black if winner == white else white] += 1
        if res.get("forfeit") or res.get("reason") != "played":
            problems.append(f"{where}: decided by forfeit ({res.get('reason')}), not played")
            return white, black
        scores = res.get("scores", [0, 0])
        self.points_for[white] += scores[0]
        self.points_against[white] += scores[1]
        self.points_for[black] += scores[1]
        self.points_against[black] += scores[0]
        if max(scores) < self.target:
            problems.append(f"{where}: final totals {scores}, neither reached the target {self.target}")
        elif winner in (white, black) and scores[0] != scores[1]:
            lower = white if scores[0] < scores[1] else black
            if (winner == lower) != self.lower_wins:
                problems.append(f"{where}: {winner} won with totals {scores} ({self.scoring})")
        summary = summaries.get(res.get("match") or "")
        if summary is None:
            problems.append(f"{where}: its match {res.get('match')!r} is not among the round's matches")
            return white, black
        seats = [s["id"] if s else None for s in summary.get("seats", [])]
        if seats != [white, black]:
            problems.append(f"{where}: match {summary['id']} seats {seats}, not white then black")
        if summary.get("status") != "finished" or summary.get("winner") != winner:
            problems.append(f"{where}: match {summary['id']} {summary.get('status')}, winner {summary.get('winner')}")
        return white, black


def _field(t: dict[str, Any], players: int, rounds: int, problems: list[str]) -> list[str]:
    """The checks every format shares: finished, ``players`` distinct players, ``rounds`` rounds. The ids."""
    if t.get("status") != "finished":
        problems.append(f"status is {t.get('status')!r}, not 'finished'")
    ids = [p["id"] for p in t.get("players", [])]
    if len(ids) != players or len(set(ids)) != players:
        problems.append(f"{len(set(ids))} distinct players, not {players}")
    if len(t.get("rounds", [])) != rounds:
        problems.append(f"{len(t.get('rounds', []))} rounds, not {rounds}")
    return ids


def _ranks(rows: list[dict[str, Any]], ids: list[str], problems: list[str]) -> None:
    """One standings row per player, ranked 1 to n."""
    if sorted(row["player"] for row in rows) != sorted(ids):
        problems.append("the standings do not have one row per player")
    if [row["rank"] for row in rows] != list(range(1, len(rows) + 1)):
        problems.append(f"ranks {[row['rank'] for row in rows]}, not 1 to {len(rows)}")


def _row_problems(player: str, row: dict[str, Any], expect: dict[str, int], problems: list[str]) -> None:
    """A standings row's columns against what the results say (and won + lost = played)."""
    wrong: dict[str, tuple[Any, Any]] = {k: (row.get(k), v) for k, v in expect.items() if row.get(k) != v}
    if row.get("won", 0) + row.get("lost", 0) != row.get("played"):
        wrong["won + lost"] = (row.get("won", 0) + row.get("lost", 0), row.get("played"))
    if wrong:
        shown = ", ".join(f"{k} {got} (expected {want})" for k, (got, want) in wrong.items())
        problems.append(f"standings of {player}: {shown}")


def _two_seat_rounds(t: dict[str, Any], players: int, ids: list[str], problems: list[str]) -> _TwoSeatTally:
    """The rounds of a two-seat tournament (a round robin's or a Swiss's) read into a tally: every
    round finished, a bye exactly when the field is odd, ``players // 2`` pairings, each pairing's
    match read (:meth:`_TwoSeatTally.pairing`), and every player paired once or given the bye."""
    odd = players % 2 == 1
    tally = _TwoSeatTally.of(t)
    for r in t.get("rounds", []):
        number = r.get("number")
        if r.get("status") != "finished":
            problems.append(f"round {number} is {r.get('status')!r}, not finished")
        bye = r.get("bye")
        if (bye is not None) != odd:
            problems.append(f"round {number}: bye {bye!r} in a field of {players}")
        if bye is not None:
            tally.byes[bye] += 1
        pairings = r.get("pairings", [])
        if len(pairings) != players // 2:
            problems.append(f"round {number}: {len(pairings)} pairings, not {players // 2}")
        seated = [bye] if bye is not None else []
        summaries = {m["id"]: m for m in r.get("matches", [])}
        for p in pairings:
            seated += tally.pairing(p, summaries, problems)
        if sorted(x for x in seated if x is not None) != sorted(ids):
            problems.append(f"round {number} does not pair every player exactly once (or give the bye)")
    return tally


def check(t: dict[str, Any], players: int) -> list[str]:
    """What is wrong with a finished round-robin of ``players`` as ``GET /api/tournaments/{id}`` shows it
    (an empty list: nothing)."""
    problems: list[str] = []
    ids = _field(t, players, players - 1 + players % 2, problems)
    odd = players % 2 == 1
    tally = _two_seat_rounds(t, players, ids, problems)
    pairs = players * (players - 1) // 2
    twice = [sorted(pair) for pair, count in tally.met.items() if count != 1]
    if len(tally.met) != pairs or twice:
        problems.append(
            f"{len(tally.met)} pairs met, not {pairs}" + (f"; more than once: {twice[:3]}" if twice else "")
        )

    rows = t.get("standings", [])
    _ranks(rows, ids, problems)
    total_won = sum(row["won"] for row in rows)
    if total_won != tally.with_winner:
        problems.append(f"sum of won is {total_won}, but {tally.with_winner} pairings were decided with a winner")
    total_lost = sum(row["lost"] for row in rows)
    if total_lost != tally.with_winner + 2 * tally.doubles:
        problems.append(f"sum of lost is {total_lost}, not {tally.with_winner + 2 * tally.doubles}")
    for row in rows:
        player = row["player"]
        expect = {
            "played": players - 1,
            "won": tally.won[player],
            "lost": tally.lost[player],
            "byes": 1 if odd else 0,
            "points_for": tally.points_for[player],
            "points_against": tally.points_against[player],
        }
        if tally.byes[player] != expect["byes"]:
            row = {**row, "byes in the schedule": tally.byes[player]}
            expect["byes in the schedule"] = expect["byes"]
        _row_problems(player, row, expect, problems)
    return problems


COLOUR_SPREAD = 2  # FIDE C.04.3: a player's whites minus blacks stays within ±2


def check_swiss(t: dict[str, Any], players: int, rounds: int) -> list[str]:
    """What is wrong with a finished Swiss of ``players`` over ``rounds`` rounds (an empty list: nothing):
    every round finished; everyone paired once a round or given the bye (one a round in an odd field,
    none in an even one); nobody meets anyone twice; each player's whites minus blacks within ±2; at
    most one bye each; every pairing decided by a match played to its end, white in ``seats[0]``; the
    standings ranked 1 to n, sum of won = the games with a winner, each player's played, won, lost,
    byes and points as their results say, and score = won + byes, never higher below."""
    problems: list[str] = []
    ids = _field(t, players, rounds, problems)
    tally = _two_seat_rounds(t, players, ids, problems)
    twice = [sorted(pair) for pair, count in tally.met.items() if count > 1]
    if twice:
        problems.append(f"{len(twice)} pairs met more than once: {twice[:3]}")
    for player in ids:
        spread = tally.whites[player] - tally.blacks[player]
        if abs(spread) > COLOUR_SPREAD:
            problems.append(
                f"{player}: {tally.whites[player]} whites, {tally.blacks[player]} blacks (beyond ±{COLOUR_SPREAD})"
            )
        if tally.byes[player] > 1:
            problems.append(f"{player}: {tally.byes[player]} byes, more than one")

    rows = t.get("standings", [])
    _ranks(rows, ids, problems)
    total_won = sum(row["won"] for row in rows)
    if total_won != tally.with_winner:
        problems.append(f"sum of won is {total_won}, but {tally.with_winner} games were decided with a winner")
    for row in rows:
        player = row["player"]
        expect = {
            "played": tally.played[player],
            "won": tally.won[player],
            "lost": tally.lost[player],
            "byes": tally.byes[player],
            "points_for": tally.points_for[player],
            "points_against": tally.points_against[player],
            "score": tally.won[player] + tally.byes[player],
        }
        _row_problems(player, row, expect, problems)
    scores = [row.get("score", 0) for row in rows]
    if scores != sorted(scores, reverse=True):
        problems.append(f"scores {scores} are not highest first")
    return problems


def table_meetings(t: dict[str, Any]) -> Counter[frozenset[str]]:
    """How often each two players sat at one table, over the tournament's rounds."""
    met: Counter[frozenset[str]] = Counter()
    for r in t.get("rounds", []):
        for p in r.get("pairings", []):
            seats = [s["id"] for s in p.get("seats", []) if s]
            met.update(frozenset(pair) for pair in combinations(seats, 2))
    return met


def repeat_meetings(t: dict[str, Any]) -> int:
    """Tables: the meetings beyond the first of every pair of players (0: nobody met anyone twice)."""
    return sum(count - 1 for count in table_meetings(t).values())


def expected_places(winner: int, scores: list[int]) -> list[int]:
    """RULES.md D23 with nobody leaving: the winner first, the others by total (highest first), equal
    totals sharing a place, the next place after a shared one skipped (1, 2, 2, 4)."""
    places = []
    for seat, score in enumerate(scores):
        if seat == winner:
            places.append(1)
        else:
            better = sum(1 for other, s in enumerate(scores) if other != winner and other != seat and s > score)
            places.append(2 + better)
    return places


def check_tables(
    t: dict[str, Any], players: int, rounds: int, *, round_limit: int = 0, exact_design: bool = False
) -> list[str]:
    """What is wrong with a finished tables tournament of ``players`` over ``rounds`` rounds (an empty list:
    nothing): every round finished; every table 3 to 10 seats, a round's tables within one seat of each
    other; everyone seated once a round; every table decided by a match played to its end (its seats the
    table's, its places the result's), someone at the target unless a round limit is set; the places as
    D23 gives them from the totals; the standings ranked 1 to n, each player's score the placement points
    of their places, the points handed out all accounted for, won = firsts, played = tables. Repeat
    meetings are counted (:func:`repeat_meetings`, a figure); with ``exact_design`` (q * q players at
    tables of q, an affine plane) any repeat is wrong."""
    problems: list[str] = []
    ids = _field(t, players, rounds, problems)
    rules = t.get("rules", {})
    target = int(rules.get("target", 0))
    points = [int(x) for x in t.get("placement_points", [])]
    if not points:
        problems.append("no placement points published")
    earned: Counter[str] = Counter()
    firsts: Counter[str] = Counter()
    tables_of: Counter[str] = Counter()
    for r in t.get("rounds", []):
        number = r.get("number")
        if r.get("status") != "finished":
            problems.append(f"round {number} is {r.get('status')!r}, not finished")
        if r.get("bye") is not None:
            problems.append(f"round {number}: a bye {r['bye']!r} at a tables tournament")
        tables = r.get("pairings", [])
        sizes = [len(p.get("seats", [])) for p in tables]
        if not sizes or min(sizes) < 3 or max(sizes) > 10 or max(sizes) - min(sizes) > 1:
            problems.append(f"round {number}: tables of {sizes} (3 to 10 seats, within one of each other)")
        seated = [s["id"] for p in tables for s in p.get("seats", []) if s]
        if sorted(seated) != sorted(ids):
            problems.append(f"round {number} does not seat every player exactly once")
        summaries = {m["id"]: m for m in r.get("matches", [])}
        for p in tables:
            seats = [s["id"] for s in p.get("seats", []) if s]
            where = f"table {p.get('slot')} ({', '.join(seats)})"
            res = p.get("result")
            if p.get("status") != "decided" or res is None:
                problems.append(f"{where} is {p.get('status')!r}, not decided")
                continue
            if res.get("forfeit") or res.get("reason") != "played":
                problems.append(f"{where}: decided by forfeit ({res.get('reason')}), not played")
                continue
            scores, places, winner = res.get("scores") or [], res.get("places") or [], res.get("winner")
            if len(scores) != len(seats) or len(places) != len(seats) or winner not in seats:
                problems.append(f"{where}: totals {scores}, places {places}, winner {winner!r} do not fit its seats")
                continue
            tables_of.update(seats)
            firsts[winner] += 1
            if places != expected_places(seats.index(winner), scores):
                problems.append(f"{where}: places {places} for totals {scores}, winner {winner} (D23)")
            if max(scores) < target and not round_limit:
                problems.append(f"{where}: final totals {scores}, nobody reached the target {target}")
            for seat, place in zip(seats, places, strict=True):
                earned[seat] += points[place - 1] if 0 < place <= len(points) else 0
            summary = summaries.get(res.get("match") or "")
            if summary is None:
                problems.append(f"{where}: its match {res.get('match')!r} is not among the round's matches")
                continue
            if [s["id"] if s else None for s in summary.get("seats", [])] != seats:
                problems.append(f"{where}: match {summary['id']} is not seated as the table")
            if summary.get("status") != "finished" or summary.get("places") != places:
                problems.append(
                    f"{where}: match {summary['id']} {summary.get('status')}, places {summary.get('places')}"
                )
    repeats = repeat_meetings(t)
    if exact_design and repeats:
        problems.append(f"{repeats} repeat meetings where an exact design (an affine plane) has none")

    rows = t.get("standings", [])
    _ranks(rows, ids, problems)
    handed_out = sum(earned.values())
    total = sum(row.get("score", 0) for row in rows)
    if total != handed_out:
        problems.append(f"sum of score is {total}, but the tables handed out {handed_out} placement points")
    for row in rows:
        player = row["player"]
        expect = {
            "played": tables_of[player],
            "won": firsts[player],
            "lost": tables_of[player] - firsts[player],
            "byes": 0,
            "score": earned[player],
        }
        _row_problems(player, row, expect, problems)
    scores = [row.get("score", 0) for row in rows]
    if scores != sorted(scores, reverse=True):
        problems.append(f"scores {scores} are not highest first")
    return problems


def check_format(t: dict[str, Any], options: Options) -> list[str]:
    """The check of ``options.format``: :func:`check`, :func:`check_swiss` or :func:`check_tables`."""
    if options.format == "swiss":
        return check_swiss(t, options.players, options.resolved_rounds)
    if options.format == "tables":
        return check_tables(
            t,
            options.players,
            options.resolved_rounds,
            round_limit=options.resolved_round_limit,
            exact_design=options.exact_design,
        )
    return check(t, options.players)


# ---------------------------------------------------------------- the run


def _expect(response: httpx.Response, status: int, what: str) -> httpx.Response:
    if response.status_code != status:
        raise BenchError(f"{what}: HTTP {response.status_code} {response.text[:300]}")
    return response


def _ok(response: httpx.Response, status: int, what: str) -> Any:
    return _expect(response, status, what).json()


def tournament_body(options: Options) -> dict[str, Any]:
    """``POST /api/tournaments``'s body: a round robin's as it always was; a Swiss adds its format and
    rounds, a tables tournament its table size and ``rules.round_limit`` too."""
    body: dict[str, Any] = {"name": "bench", "players": options.entries(), "ruleset": options.ruleset}
    rules: dict[str, Any] = {}
    if options.target is not None:
        rules["target"] = options.target
    if options.format != "round_robin":
        body["format"] = options.format
        body["rounds"] = options.resolved_rounds
    if options.format == "tables":
        body["table_size"] = options.table_size
        if options.resolved_round_limit:
            rules["round_limit"] = options.resolved_round_limit
    if rules:
        body["rules"] = rules
    return body


def _drive(server: ServerProcess, options: Options, token: str, log: Callable[[str], None]) -> Report:
    report = Report(options)
    director = {"Authorization": f"Bearer {token}"}
    assert server.process is not None
    cpu = CpuMeter(server.process.pid)
    with httpx.Client(base_url=server.base, timeout=REQUEST_SECONDS) as http:
        body = tournament_body(options)
        created = _ok(http.post("/api/tournaments", headers=director, json=body), 201, "POST /api/tournaments")
        report.tournament_id = tid = created["id"]
        log(f"tournament {tid}: {options.players} players; starting it…")
        cpu.begin()
        began = time.perf_counter()
        _ok(http.post(f"/api/tournaments/{tid}/start", headers=director), 200, "POST …/start")
        opened = 0
        stall = Stall(options.stall)
        progress_read = 0.0
        while True:
            listed = _ok(http.get("/api/tournaments"), 200, "GET /api/tournaments")
            row = next((r for r in listed if r["id"] == tid), None)
            if row is None:
                raise BenchError(f"GET /api/tournaments does not list {tid}")
            report.status, report.rounds = row["status"], row["rounds"]
            elapsed = time.perf_counter() - began
            if row["opened"] != opened:  # read first: a last round may open and finish between two reads
                opened = row["opened"]
                report.opened_at += [elapsed] * (opened - len(report.opened_at))
                log(f"round {opened} of {report.rounds} opened at {elapsed:.1f} s")
            if report.status == "finished":
                break
            if elapsed - progress_read >= PROGRESS_SECONDS:
                progress_read = elapsed
                t = _ok(http.get(f"/api/tournaments/{tid}"), 200, f"GET /api/tournaments/{tid}")
                stall.moved(sum(p["status"] == "decided" for r in t["rounds"] for p in r["pairings"]))
                if stall.stuck:
                    report.problems.append(
                        f"stuck: no pairing decided for {options.stall:g} s (round {opened} of {report.rounds})"
                    )
                    break
            time.sleep(options.poll)
        report.seconds = time.perf_counter() - began
        report.client_cpu, report.server_cpu = cpu.end()
        log(f"{report.status} after {report.seconds:.1f} s; reading the results…")

        t = _ok(http.get(f"/api/tournaments/{tid}"), 200, f"GET /api/tournaments/{tid}")
        report.standings = list(t["standings"])
        report.pairings = sum(len(r["pairings"]) for r in t["rounds"])
        if report.finished:
            report.problems += check_format(t, options)
        if options.format == "tables":
            met = table_meetings(t)
            report.repeats, report.pairs_met = sum(met.values()) - len(met), len(met)
        bot_of = {p["id"]: normalize_bot_name(e) for p, e in zip(t["players"], options.entries(), strict=True)}
        ruleset = Ruleset.from_dict(t["rules"])
        events = 0
        for r in t["rounds"]:
            for p in r["pairings"]:
                result = p.get("result") or {}
                match_id = result.get("match")
                if not match_id or result.get("forfeit"):
                    continue
                view = _ok(http.get(f"/api/matches/{match_id}"), 200, f"GET /api/matches/{match_id}")["view"]
                if view.get("phase") != "match_over":
                    report.problems.append(f"match {match_id} is in phase {view.get('phase')!r}, not match_over")
                    continue
                events += int(view["version"])
                replay = _expect(http.get(f"/api/matches/{match_id}/replay"), 200, f"GET …/{match_id}/replay")
                _, lines = parse_replay(replay.text)
                if len(lines) != view["version"]:
                    report.problems.append(
                        f"match {match_id}: {len(lines)} replay lines, stream head {view['version']}"
                    )
                seated = [s["id"] for s in p.get("seats") or [p["white"], p["black"]]]
                bots = tuple(bot_of[player] for player in seated)
                seed = bytes.fromhex(lines[-1]["data"]["server_seed"])
                types = tuple(x["type"] for x in lines)
                names = lines[0]["data"].get("names")
                ended: dict[str, Any] = next((x["data"] for x in reversed(lines) if x["type"] == "match_ended"), {})
                played = PlayedMatch(
                    match_id,
                    r["number"],
                    seed,
                    bots,
                    ruleset,
                    types,
                    None if names is None else tuple(names),
                    int(ended.get("rounds", 0)),
                )
                report.played.append(played)
                limit = options.resolved_round_limit
                if limit and played.rounds_played < limit and max(result.get("scores") or [0]) < ruleset.target:
                    report.problems.append(
                        f"match {match_id} ended after {played.rounds_played} rounds, before the round limit"
                        f" {limit}, with nobody at the target"
                    )
        report.matches = len(report.played)
        report.events = events
    return report


def play_alone(match: PlayedMatch) -> LocalMatch:
    """``match`` played again by the engine alone: its seed, its bots in their seats (two, or a table's
    3 to 10), round 1's first drafter (a table's first dealer) seat 0, the seats' names and a table's
    size as the server's ``CreateMatch`` gives them, and the house bots' turns taken as ``MatchService``
    takes them (the seat whose decision it is, else the first seat with a legal command, e.g. in a UNO
    window; each choice with ``Dealer.bot_chance(match id, version, seat)``), so it is the same match,
    event for event."""
    seats = len(match.bots)
    local = LocalMatch(dealer=Dealer(match.seed))
    # As MatchCreation.make creates a tournament's match: seat 0 first, the seats' names, a table's size.
    local.apply(CreateMatch(match.ruleset, commitment_of(match.seed), 0, match.names, None if seats == 2 else seats))
    for seat in range(seats):  # as MatchCommands.join_bots seats the house bots, in seat order
        local.apply(JoinSeat(seat, ""))
    memories = SeatMemories({seat: get_bot(name) for seat, name in enumerate(match.bots)})  # as LiveMatch folds
    memories.see(local.events)
    while local.state.phase is not Phase.MATCH_OVER:
        state = local.state
        movers = [seat for seat in range(seats) if legal_commands(state, seat)]
        if not movers:
            raise BenchError(f"match {match.id} played alone: nobody can move at version {state.version}")
        seat = state.pending.seat if state.pending.seat in movers else movers[0]
        rng = local.dealer.bot_chance(match.id, state.version, seat)
        seen = view(state, seat)
        before = len(local.events)
        bot = get_bot(match.bots[seat])  # a fresh bot a move, as the server asks one
        local.apply(parse_seat_command(seat, bot_choice(bot, seen, rng, memories.knowledge(seat, seen))))
        memories.see(local.events[before:])
    return local


def engine_run(matches: list[PlayedMatch]) -> EngineRun:
    """The reference: the server's matches played by the engine alone (:func:`play_alone`), timed."""
    events = same = 0
    began, began_cpu = time.perf_counter(), time.process_time()
    played = []
    for match in matches:
        try:
            played.append(play_alone(match))
        except UnoDuoError as exc:  # a bot's command refused: it is not the server's match
            raise BenchError(f"match {match.id} played alone: {exc}") from None
    seconds, cpu = time.perf_counter() - began, time.process_time() - began_cpu
    for match, local in zip(matches, played, strict=True):
        events += len(local.events)
        same += tuple(str(e.type) for e in local.events) == match.types
    return EngineRun(matches=len(matches), events=events, seconds=seconds, cpu=cpu, same=same)


def run_bench(options: Options, log: Callable[[str], None]) -> Report:
    token = "bench-director-" + secrets.token_hex(12)
    with (
        database(options.db, options.postgres_url, "unoduo_bench_tournament") as url,
        TemporaryDirectory(prefix="unoduo-bench-log-") as tmp,
    ):
        server = ServerProcess(url, Path(tmp) / "server.log", {"UNODUO_DIRECTOR_TOKEN": token})
        log(f"starting unoduo serve on {server.base} ({options.db})…")
        try:
            server.start()
            report = _drive(server, options, token, log)
        finally:
            server.stop()
            tail = server.log_tail(40)
    report.server_log_tail, report.server_exit = tail, server.returncode
    log(f"the reference: the same {len(report.played)} matches played again by the engine alone…")
    report.engine = engine_run(report.played)
    if report.engine.same != report.engine.matches:
        report.problems.append(
            f"the engine alone, from the same seeds, played {report.engine.matches - report.engine.same} of"
            f" {report.engine.matches} matches differently from the server"
        )
    report.facts = machine_facts(options)
    if server.returncode != 0:
        report.facts.append(f"the server did NOT stop cleanly on SIGINT: exit {server.returncode} (None: killed)")
    return report


# ---------------------------------------------------------------- report


def machine_facts(options: Options) -> list[str]:
    sync = os.environ.get("UNODUO_SQLITE_SYNCHRONOUS", "FULL (default)")
    db = f"SQLite (a fresh file; synchronous={sync})" if options.db == "sqlite" else "PostgreSQL (a fresh schema)"
    return [
        f"nproc: {os.cpu_count()}; CPU: {cpu_model()}",
        f"Python {platform.python_version()}; uvicorn {md.version('uvicorn')}, httpx {md.version('httpx')}",
        f"server: one `unoduo serve` process (one uvicorn worker) on {db}, `UNODUO_BOT_THINK_SECONDS=0`:"
        f" house bots in {'every seat of every table' if options.format == 'tables' else 'both seats of every match'},"
        " each answering the moment it has the move",
        tournament_fact(options),
        f"client: this process, on the same machine; it only creates and starts the tournament and reads"
        f" `GET /api/tournaments` every {options.poll:g} s until it is finished",
        "load average at the end of the run (1/5/15 min): " + " / ".join(f"{x:.2f}" for x in os.getloadavg()),
    ]


def tournament_fact(options: Options) -> str:
    """The tournament run, in one line of the machine facts."""
    n, bots = options.players, ", ".join(f"bot:{b}" for b in options.bots)
    rules = f"{options.ruleset} to {options.resolved_target}"
    if options.format == "swiss":
        return (
            f"tournament: {n} entries ({bots} in turn), Swiss (FIDE Dutch, each round paired when it opens),"
            f" {options.resolved_rounds} rounds of {n // 2} matches played at once{', one bye a round' if n % 2 else ''};"
            f" {rules}; move clock 60 s (never reached)"
        )
    if options.format == "tables":
        sizes = table_sizes(n, options.table_size)
        limit = options.resolved_round_limit
        return (
            f"tournament: {n} entries ({bots} in turn), tables (preferred size {options.table_size}),"
            f" {options.resolved_rounds} rounds of {len(sizes)} tables ({', '.join(map(str, sizes))} seats) played"
            f" at once; {rules}"
            + (f", round limit {limit} (`rules.round_limit`: after round {limit} the best total wins)" if limit else "")
            + "; move clock 60 s (never reached)"
        )
    return (
        f"tournament: {n} entries ({bots} in turn), single round-robin,"
        f" {rules}; {n - 1 + n % 2} rounds of {n // 2} matches played at"
        f" once{', one bye a round' if n % 2 else ''}; move clock 60 s (never reached)"
    )


Row = tuple[str, str, str, str]  # measure, figure, target, verdict


def _cores(cpu: float | None, seconds: float) -> str:
    return "-" if cpu is None or not seconds else f"{cpu:.1f} s ({cpu / seconds:.2f} of a core)"


def rows(report: Report) -> list[Row]:
    met = report.target_met
    verdict = "-" if met is None else ("PASS" if met else "NOT met")
    if report.options.format != "round_robin":
        target = "(none set)"
    elif report.options.standard:
        target = f"< {TARGET_SECONDS:g} s"
    else:
        target = f"(< {TARGET_SECONDS:g} s is for 16 bots to 200)"
    eps = report.events_per_second
    engine = report.engine
    tables = report.options.format == "tables"
    out: list[Row] = [
        ("wall time, `POST …/start` → `finished`", f"{report.seconds:.1f} s", target, verdict),
        (
            "matches played to the end (of tables)" if tables else "matches played to the end (of pairings)",
            f"{report.matches} of {report.pairings}",
            "",
            "",
        ),
        *format_rows(report),
        (
            "engine events (sum of the matches' stream heads)",
            "-" if report.events is None else f"{report.events:,}",
            "",
            "",
        ),
        (
            "the longest match of each round, summed (events made one after another)",
            f"{critical_events(report):,} events"
            + (f" ({critical_events(report) / report.events:.0%} of all)" if report.events else ""),
            "",
            "",
        ),
        ("matches/s", f"{report.matches_per_second:.2f}", "", ""),
        ("events/s", "-" if eps is None else f"{eps:,.0f}", "", ""),
        ("server CPU", _cores(report.server_cpu, report.seconds), "", ""),
        ("client CPU (this process: create, start, poll)", _cores(report.client_cpu, report.seconds), "", ""),
    ]
    if engine is not None:
        out += [
            (
                f"engine alone: the same {engine.matches} matches played again in this process, one after another",
                f"{engine.seconds:.2f} s wall, {engine.cpu:.2f} s CPU; {engine.events:,} events",
                "reference",
                "",
            ),
            (
                "… the same events as the server's (types, in order), match for match",
                f"{engine.same} of {engine.matches}",
                "all",
                "ok" if engine.same == engine.matches else "DIFFERENT",
            ),
            (
                "ratio: server wall time / engine alone",
                "-" if report.ratio is None else f"{report.ratio:.1f}×",
                "",
                "",
            ),
            (
                "ratio: server CPU / engine alone CPU",
                "-" if report.cpu_ratio is None else f"{report.cpu_ratio:.1f}×",
                "",
                "",
            ),
        ]
    out.append(
        (
            "the result checks (schedule, results, standings add up)",
            "all hold" if report.ok else f"{len(report.problems)} FAILED",
            "all hold",
            "ok" if report.ok else "WRONG",
        )
    )
    return out


def format_rows(report: Report) -> list[Row]:
    """A Swiss's or a tables tournament's own figures (a round robin has none beyond the common ones)."""
    options = report.options
    if options.format == "round_robin":
        return []
    out: list[Row] = [
        ("rounds (planned)", f"{len(report.opened_at) or report.rounds} ({options.resolved_rounds})", "", "")
    ]
    if report.opened_at:
        out.append(("round 1 seen open, after the start", f"{report.opened_at[0]:.1f} s", "", ""))
    if options.format == "tables":
        n = options.players
        pairs = n * (n - 1) // 2
        exact = options.exact_design
        repeats = "-" if report.repeats is None else f"{report.repeats}"
        verdict = "" if report.repeats is None or not exact else ("ok" if report.repeats == 0 else "WRONG")
        out += [
            (
                "repeat meetings (meetings beyond a pair's first)",
                repeats,
                "0 (an exact design)" if exact else "fewest",
                verdict,
            ),
            ("pairs of players who met", "-" if report.pairs_met is None else f"{report.pairs_met} of {pairs}", "", ""),
        ]
        rounds = [m.rounds_played for m in report.played]
        if rounds:
            out.append(
                (
                    "UNO rounds a match (fewest / mean / most)",
                    f"{min(rounds)} / {sum(rounds) / len(rounds):.1f} / {max(rounds)}",
                    f"round limit {options.resolved_round_limit}" if options.resolved_round_limit else "",
                    "",
                )
            )
    return out


def round_rows(report: Report) -> list[tuple[str, ...]]:
    """Per round: its wall time (from its opening seen to the next one's, ± a poll), its matches' events,
    and the longest match's: a round lasts as long as its longest match, whose events come one after another."""
    out: list[tuple[str, ...]] = []
    ends = [*report.opened_at[1:], report.seconds]
    for number, (began, ended) in enumerate(zip(report.opened_at, ends, strict=True), start=1):
        events = [len(m.types) for m in report.played if m.round == number]
        longest = max(events, default=0)
        seconds = ended - began
        out.append(
            (
                str(number),
                f"{seconds:.1f}",
                f"{len(events)}",
                f"{sum(events):,}",
                f"{longest:,}",
                f"{seconds / longest * 1000:.2f}" if longest and seconds > 0 else "-",
            )
        )
    return out


ROUND_HEADERS = ("round", "seconds", "matches", "events", "longest match, events", "ms an event of the longest match")


def critical_events(report: Report) -> int:
    """The longest match of each round, summed: the events the tournament makes one after another."""
    longest: dict[int, int] = {}
    for m in report.played:
        longest[m.round] = max(longest.get(m.round, 0), len(m.types))
    return sum(longest.values())


def reading(report: Report) -> list[str]:
    """What the figures say: where the wall time goes."""
    critical = critical_events(report)
    engine = report.engine
    if not critical or not report.events or not report.seconds or engine is None or not engine.events:
        return []
    cores = (
        "" if report.server_cpu is None else f" (the server used {report.server_cpu / report.seconds:.2f} of a core)"
    )
    per_event = report.seconds / critical * 1000
    lines = [
        f"Reading: a round lasts as long as its longest match, and the longest matches of the rounds hold"
        f" {critical / report.events:.0%} of all events ({critical:,}). In a match the events come one after"
        f" another (the bots' moves are decided a chain at a time, at most {BOT_CHAIN} moves, each on the state"
        " the one before leads to, and a chain is committed before the next is decided), so once a round is down to"
        " its last match the server does one match's moves in sequence, and the wall time follows the latency"
        f" of a move, not the throughput{cores}: {per_event:.2f} ms of wall time per event of those longest"
        f" matches, where the engine alone takes {engine.seconds / engine.events * 1e6:.0f} µs an event."
    ]
    if report.options.standard and report.target_met is False:
        lines.append(
            f"For the {TARGET_SECONDS:g} s target, with these matches, those {critical:,} events would have to take"
            f" {TARGET_SECONDS / critical * 1000:.2f} ms each at most (all the rest of the tournament's events in"
            " their shadow)."
        )
    return lines


def measured_text(report: Report) -> list[str]:
    if report.options.format != "round_robin":
        return [format_measured_text(report)]
    return [
        "What is measured: a real `unoduo serve` (a subprocess) runs a whole round-robin of house bots by itself;"
        " the client creates the tournament, starts it and reads the tournament list until it says `finished`."
        " *Wall time*: from the `POST /api/tournaments/{id}/start` to the first read that says `finished` (late"
        f" by at most one poll, {report.options.poll:g} s). *Engine events*: each match's `view.version` (the head"
        " of its stream), summed, read after the timing. *Server CPU*: from `/proc/PID/stat` over the same time."
        " The result is checked before any figure counts: every round finished (one bye a round in an odd"
        " field), every pair met once, every pairing decided by a match played to its end, `seats[0]` of each"
        " match the pairing's white, and the standings adding up (played n - 1 each, won + lost = played, sum"
        " of won = the pairings with a winner, each player's won, byes and points as their results say)."
        " *Reference*: after the server has stopped, the very same matches played again in this process by the"
        " engine alone (`LocalMatch`: no store, no network, no service), one after another: each match's seed"
        " (its replay reveals it), its bots in their seats, white the first drafter, and the bots' turns taken"
        " as `MatchService` takes them (the seat whose decision it is, else the first seat with a legal command;"
        " each choice from `Dealer.bot_chance(match id, version, seat)`, the seed's secret chance), so the engine"
        " makes the server's events"
        " one for one (checked). The ratios set the server's wall time and CPU beside the engine's for the"
        " same matches: what the store, the service, the HTTP server and the tournament cost on top of the"
        " rules."
    ]


_FORMAT_CHECKS = {
    "swiss": "every round finished; everyone paired once a round or given the bye (one a round in an odd field);"
    " nobody met anyone twice; each player's whites minus blacks within ±2; at most one bye each; every pairing"
    " decided by a match played to its end, `seats[0]` of each match the pairing's white; the standings ranked"
    " 1 to n, sum of won = the games with a winner, each player's played, won, lost, byes and points as their"
    " results say, and score = won + byes (highest first)",
    "tables": "every round finished; every table 3 to 10 seats, a round's tables within one seat of each other;"
    " everyone seated once a round; every table decided by a match played to its end, seated as the table, with"
    " the table's places; the places as RULES.md D23 gives them from the totals (the winner first, then by total,"
    " equal totals sharing a place); a match ended before the round limit only with someone at the target; the"
    " standings ranked 1 to n, each player's score the placement points of their places, the points handed out"
    " all accounted for, won = firsts, played = tables. The repeat meetings (every pair's meetings beyond the"
    " first) are counted and shown; where an exact design exists (q × q players at tables of q for up to q + 1"
    " rounds, an affine plane: 16 players at tables of 4 for 5 rounds) any repeat fails the run",
}


def format_measured_text(report: Report) -> str:
    """What a Swiss's or a tables tournament's run measures and checks (the round robin's text is its own)."""
    options = report.options
    if options.format == "swiss":
        what = "a Swiss of house bots by itself (house bots in both seats; the server pairs each round when it opens)"
    else:
        what = (
            "a tables tournament of house bots by itself (house bots in every seat; the server seats the rounds"
            " by its schedule)"
        )
    return (
        f"What is measured: a real `unoduo serve` (a subprocess) runs {what}; the client creates the tournament"
        " (`POST /api/tournaments` with its `format`), starts it and reads the tournament list until it says"
        " `finished`. *Wall time*: from the `POST /api/tournaments/{id}/start` to the first read that says"
        f" `finished` (late by at most one poll, {options.poll:g} s). *Engine events*: each match's `view.version`,"
        " summed, read after the timing. *Server CPU*: from `/proc/PID/stat` over the same time. The result is"
        f" checked before any figure counts: {_FORMAT_CHECKS[options.format]}. *Reference*: after the server has"
        " stopped, the very same matches played again in this process by the engine alone (`LocalMatch`: no"
        " store, no network, no service), one after another: each match's seed (its replay reveals it), its bots"
        " in their seats, seat 0 the first "
        + ("drafter" if options.format == "swiss" else "dealer")
        + ", the seats' names and the table's size as the server's `CreateMatch` gives them, and the bots' turns"
        " taken as `MatchService` takes them (the seat whose decision it is, else the first seat with a legal"
        " command; each choice from `Dealer.bot_chance(match id, version, seat)`), so the engine makes the"
        " server's events one for one (checked: a match played differently fails the run). The ratios set the"
        " server's wall time and CPU beside the engine's for the same matches."
    )


def markdown(report: Report, command: str) -> str:
    lines = [*section_head(report.options.section, command, report.facts), *measured_text(report), ""]
    lines += ["| measure | figure | target | |", "| --- | ---: | ---: | --- |"]
    lines += [f"| {m} | {f} | {t} | {v} |" for m, f, t, v in rows(report)]
    engine = report.engine
    if engine is not None and report.events and report.matches and engine.matches:
        lines += [
            "",
            f"Per match: {report.events / report.matches:,.0f} events on average; the server took"
            f" {report.seconds / report.matches * 1000:,.0f} ms of wall time a match (the matches of a round"
            f" played at once), the engine alone {engine.seconds / engine.matches * 1000:,.1f} ms (one at a time).",
        ]
    notes = reading(report)
    if notes:
        lines += ["", *[line for note in notes for line in (note, "")]][:-1]
    if report.opened_at:
        lines += [
            "",
            "| " + " | ".join(ROUND_HEADERS) + " |",
            "| ---: |" + " ---: |" * (len(ROUND_HEADERS) - 1),
            *["| " + " | ".join(r) + " |" for r in round_rows(report)],
        ]
    if report.problems:
        lines += ["", "The result is WRONG:", "", *[f"- {p}" for p in report.problems[:20]]]
    return "\n".join(lines) + "\n"


def _table(report: Report) -> Table:
    title = "unoduo bench tournament" + (
        "" if report.options.format == "round_robin" else f" --format {report.options.format}"
    )
    table = Table(title=title, title_justify="left")
    for name, justify in (("measure", "left"), ("figure", "right"), ("target", "right"), ("", "left")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for row in rows(report):
        table.add_row(*row)
    return table


def _round_table(report: Report) -> Table:
    table = Table(title="by round", title_justify="left")
    for name in ROUND_HEADERS:
        table.add_column(name, justify="right")
    for row in round_rows(report):
        table.add_row(*row)
    return table


def run_and_report(options: Options, write_docs: bool, command: str) -> Report:
    """Run the benchmark, print its figures, and (``write_docs``) rewrite its docs section."""
    console = Console()
    report = run_bench(options, lambda m: console.log(m))
    console.print(_table(report))
    console.print(_round_table(report))
    for fact in report.facts:
        console.print(f"  {fact}", markup=False)
    for note in reading(report):
        console.print(note, markup=False)
    if report.problems:
        console.print("[bold red]the result is WRONG:[/]")
        for problem in report.problems[:50]:
            console.print(f"  {problem}", markup=False)
        console.print("server log (last lines):", markup=False)
        console.print(report.server_log_tail, markup=False)
    if write_docs:
        write_docs_section(BENCHMARKS_MD, options.section, markdown(report, command))
        console.print(f"wrote {BENCHMARKS_MD}")
    return report
