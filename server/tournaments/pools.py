"""Pools into a bracket: round-robin or Swiss pools, then the top ``advance`` of each pool into a
single or double elimination bracket (docs/TOURNAMENTS.md "Pools into a bracket"; issue 36).

Pure: no I/O. What is fixed at the start comes from the number of entrants alone; what depends
on results (a Swiss pool's next round, a pool's standings) from the fold's results.

- **Pools**: ``ceil(n / pool_size)`` pools, sizes as even as possible (differing by at most one),
  the seeds dealt by snake (:func:`server.tournaments.spread.snake`): pool A gets seeds 1 and 2P,
  pool B seeds 2 and 2P - 1, ... Pools are lettered A, B, C ...
- **Pool rounds**: all pools play their round r in the tournament's round r. A round-robin pool
  plays its Berger table (:mod:`server.tournaments.schedule`); a Swiss pool is paired round by
  round by the Dutch system (:mod:`server.tournaments.swiss`) from its own results. The pools
  phase lasts as many rounds as its longest pool (a round robin of 5 takes 5 rounds, of 4 three).
- **Pool standings**: each pool's own table by its format's chain (:mod:`server.tournaments.
  standings`: a round robin's match wins, head-to-head, ...; a Swiss's score, Buchholz, ...),
  the lot last; a player who withdrew is ranked last in their pool (so goes on only from a pool
  with too few others, and then forfeits).
- **Into the bracket** (:func:`bracket_seeds`): the pool winners are the top seeds (pool A's
  first), then the runners-up, then the thirds ...; each tier after the first is ordered so that
  players of one pool could meet as late as possible in the bracket: in different halves where
  the count allows, so a pool winner's first opponent is another pool's runner-up (an optimal
  assignment per tier, :func:`server.tournaments.spread.place_tiers`, whose cost of two players
  of one pool is larger the earlier they could meet).
- **Final places**: the bracket's places first, then the players out in the pools by their pool
  place (every pool's 3rd shares one place, the 4ths the next, ...):
  :func:`server.tournaments.brackets.ranked_places`, the one rule of every knockout.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Final

from server.tournaments.bracket_plan import Plan, PoolPlace, Seed, Source
from server.tournaments.model import Slot, Tournament, lots
from server.tournaments.schedule import Pairing, ScheduledRound, round_robin, rounds_per_cycle
from server.tournaments.spread import place_tiers, snake
from server.tournaments.standings import SWISS_TIEBREAKS, TIEBREAKS, Result, StandingRow, standings
from server.tournaments.swiss import SwissError, SwissGame, SwissRound, pair_round

__all__ = [
    "MAX_POOL",
    "MIN_POOL",
    "POOL_FORMATS",
    "PoolTable",
    "PoolsError",
    "bracket_seeds",
    "check_pool_settings",
    "check_pools",
    "into_bracket",
    "is_pool_node",
    "pair_pools",
    "plan",
    "pool_label",
    "pool_node",
    "pool_players",
    "pool_rounds",
    "pool_sizes",
    "pool_standings",
    "pool_tables",
    "pooled_seeds",
    "round_of_pools",
]

MIN_POOL: Final = 3
MAX_POOL: Final = 16
POOL_FORMATS: Final = ("round_robin", "swiss")


class PoolsError(ValueError):
    """The field, pool size, format and ``advance`` make no pools; the text says why."""


def pool_label(pool: int) -> str:
    """Pool 0 is ``"A"``, pool 25 ``"Z"`` (64 entrants in pools of 3 make 22 pools at most)."""
    return string.ascii_uppercase[pool]


def pool_node(pool: int) -> str:
    """The node a pool's matches carry on the API (``"pool-A"``): a pool is no node of the bracket's plan."""
    return f"pool-{pool_label(pool)}"


def is_pool_node(node: str) -> bool:
    """Whether a pairing's node is a pool's (:func:`pool_node`) rather than one of the plan's."""
    return node.startswith("pool-")


def pool_sizes(entrants: int, pool_size: int) -> list[int]:
    """The pools' sizes: ``ceil(entrants / pool_size)`` pools, as even as possible, largest first."""
    count = -(-entrants // pool_size)
    base, extra = divmod(entrants, count)
    return [base + 1] * extra + [base] * (count - extra)


def pooled_seeds(entrants: int, pool_size: int) -> tuple[tuple[int, ...], ...]:
    """Each pool's seeds (0-based, best first), dealt by snake."""
    return tuple(tuple(pool) for pool in snake(entrants, pool_sizes(entrants, pool_size)))


def check_pool_settings(pool_size: int, advance: int, pool_format: str, rounds: int | None) -> None:
    """What can be refused before the field is known (an open tournament's), saying why."""
    if pool_format not in POOL_FORMATS:
        raise PoolsError(f"pool_format: round_robin or swiss, not {pool_format!r}")
    if not MIN_POOL <= pool_size <= MAX_POOL:
        raise PoolsError(f"pool_size: {MIN_POOL} to {MAX_POOL}, not {pool_size}")
    if not 1 <= advance < pool_size:
        raise PoolsError(f"advance: 1 to {pool_size - 1} (someone must go out of a pool of {pool_size})")
    if pool_format == "round_robin" and rounds is not None:
        raise PoolsError("round-robin pools have their rounds from their size: rounds is for Swiss pools")
    if pool_format == "swiss" and (rounds is None or not 1 <= rounds < pool_size):
        raise PoolsError(f"Swiss pools need rounds: 1 to {pool_size - 1} (a pool's players less one)")


def check_pools(entrants: int, pool_size: int, advance: int, pool_format: str, rounds: int | None) -> int:
    """Refuse pools that cannot be played (:class:`PoolsError`); the rounds of the pools phase."""
    check_pool_settings(pool_size, advance, pool_format, rounds)
    if entrants < 2 * MIN_POOL - 1:
        raise PoolsError(f"pools into a bracket need at least two pools: {2 * MIN_POOL - 1} players or more")
    sizes = pool_sizes(entrants, pool_size)
    if len(sizes) < 2:
        raise PoolsError(f"{entrants} players in pools of {pool_size} make one pool: choose a smaller pool_size")
    if advance >= min(sizes):
        raise PoolsError(
            f"advance: 1 to {min(sizes) - 1} ({entrants} players in pools of {pool_size} make a pool of "
            f"{min(sizes)}, and someone must go out there)"
        )
    return pool_rounds(sizes, pool_format, rounds)


def pool_rounds(sizes: Sequence[int], pool_format: str, rounds: int | None) -> int:
    """How many rounds the pools phase lasts: a round robin's longest pool, or a Swiss's ``rounds``
    (which the smallest pool must be able to play without a rematch)."""
    if pool_format == "round_robin":
        return max(rounds_per_cycle(size) for size in sizes)
    if rounds is None or not 1 <= rounds <= min(sizes) - 1:
        raise PoolsError(f"Swiss pools need rounds: 1 to {min(sizes) - 1} (the smallest pool's players less one)")
    return rounds


@dataclass(frozen=True)
class PoolGame:
    """One game of a pool round: white, black, the winner (None: not decided or a double forfeit)."""

    white: str
    black: str
    winner: str | None
    forfeit: bool = False


def round_of_pools(
    pools: Sequence[Sequence[str]],
    number: int,
    pool_format: str,
    history: Sequence[Sequence[Sequence[PoolGame]]],
    rounds: int,
    absent: Sequence[str] = (),
) -> list[tuple[int, Pairing]]:
    """Round ``number``'s boards, pool A's first: (pool, pairing). ``pools``: each pool's players,
    best seed first; ``history``: per pool, its earlier rounds' games; ``absent``: withdrawn players.
    A round-robin pool plays its Berger table's round ``number`` (a pool whose table is shorter
    rests); a Swiss pool is paired by the Dutch system, and rests this round when withdrawals left
    it no pairing without a rematch (its standings stand as they are)."""
    boards: list[tuple[int, Pairing]] = []
    gone = set(absent)
    for index, players in enumerate(pools):
        if pool_format == "round_robin":
            table = round_robin(players)
            if number <= len(table):
                boards.extend((index, p) for p in table[number - 1].pairings)
            continue
        earlier = [_swiss_round(players, games, gone) for games in history[index]]
        try:
            paired = pair_round(players, earlier, rounds, absent=gone & set(players))
        except SwissError:
            continue
        boards.extend((index, Pairing(w, b)) for w, b in paired.boards)
    return boards


def _swiss_round(players: Sequence[str], games: Sequence[PoolGame], gone: set[str]) -> SwissRound:
    """A pool's earlier round as the pairing program reads it: its bye is the pool's player who was
    not paired and has not withdrawn."""
    seated = {p for g in games for p in (g.white, g.black)}
    resting = [p for p in players if p not in seated and p not in gone]
    return SwissRound(
        tuple(SwissGame(g.white, g.black, g.winner, g.forfeit) for g in games),
        resting[0] if len(resting) == 1 else None,
    )


def first_meetings(bracket: Plan) -> dict[int, int]:
    """Each seed's line in ``bracket``'s first round (two lines a node, a bye's missing seat left
    out): two seeds can first meet in round ``(line_a ^ line_b).bit_length()``."""
    lines: dict[int, int] = {}
    first = [n for n in bracket.nodes if n.round == min(m.round for m in bracket.nodes) and n.bracket != "losers"]
    for i, node in enumerate(first):
        for k, source in enumerate(node.sources):
            if isinstance(source, Seed):
                lines[source.index] = 2 * i + k
    return lines


def bracket_seeds(pools: int, advance: int, bracket: Plan) -> list[PoolPlace]:
    """The bracket's entrants in seed order (the best first): every pool's winner, pool A's first,
    then the runners-up, ..., each tier placed so that players of one pool could meet as late as
    ``bracket`` (drawn for ``pools * advance`` seeds) allows: in different halves where they can."""
    entrants = pools * advance
    line = first_meetings(bracket)
    final_round = max(line.values(), default=1).bit_length()
    weight = entrants + 1  # a meeting one round earlier outweighs every later one together

    def cost(pool: int, seed: int, placed: Sequence[tuple[int, int]]) -> int:
        total = 0
        for other, at in placed:
            if other == pool:
                meets = (line[seed] ^ line[at]).bit_length()  # 1: the first round, final_round: the final
                total += weight ** (final_round - meets)
        return total

    tiers = [list(range(pools)) for _ in range(advance)]
    slots = [list(range(tier * pools, (tier + 1) * pools)) for tier in range(advance)]
    placed = place_tiers(tiers, slots, cost)
    return [PoolPlace(pool, tier + 1) for tier, order in enumerate(placed) for pool in order]


def plan(
    entrants: int, pool_size: int, advance: int, pool_format: str, rounds: int | None, bracket: Callable[[int], Plan]
) -> Plan:
    """The pools' whole plan: the pools, their rounds, and ``bracket`` (a single or double
    elimination's builder, :mod:`server.tournaments.brackets`) for their qualifiers, seeded
    across pools; :class:`PoolsError` for pools that cannot be played."""
    phase = check_pools(entrants, pool_size, advance, pool_format, rounds)
    qualifiers = advance * len(pool_sizes(entrants, pool_size))
    return into_bracket(bracket(qualifiers), entrants, pool_size, advance, phase)


def into_bracket(bracket: Plan, entrants: int, pool_size: int, advance: int, pool_rounds: int) -> Plan:
    """The pools' plan: ``bracket`` (a single or double elimination drawn for the qualifiers'
    count) with its seeds replaced by pool places (:func:`bracket_seeds`) and its rounds played
    after the ``pool_rounds`` rounds of the pools."""
    pools = pooled_seeds(entrants, pool_size)
    seeds = bracket_seeds(len(pools), advance, bracket)

    def placed(source: Source) -> Source:
        return seeds[source.index] if isinstance(source, Seed) else source

    nodes = tuple(
        replace(node, round=node.round + pool_rounds, sources=tuple(placed(s) for s in node.sources))
        for node in bracket.nodes
    )
    return Plan(nodes, pools=pools, pool_rounds=pool_rounds, advance=1)


# ---------------------------------------------------------------- read from the fold


def pool_players(t: Tournament, plan: Plan) -> list[list[str]]:
    """Each pool's players, best seed first (``t.players`` is the seeded order once started)."""
    return [[t.players[i] for i in pool] for pool in plan.pools]


def _pool_slots(t: Tournament, plan: Plan, players: Sequence[str], number: int | None = None) -> list[Slot]:
    """The pools phase's pairings among ``players`` (one pool), of round ``number`` or of them all."""
    members = set(players)
    return [
        s
        for s in t.slots.values()
        if s.round <= plan.pool_rounds and (number is None or s.round == number) and set(s.seats) <= members
    ]


def _games(t: Tournament, slots: Sequence[Slot]) -> list[PoolGame]:
    out = []
    for slot in slots:
        r = slot.result
        out.append(PoolGame(slot.white, slot.black, r.winner if r else None, r is not None and r.forfeit))
    return out


def pair_pools(t: Tournament, plan: Plan, pool_format: str, number: int) -> tuple[ScheduledRound, tuple[str, ...]]:
    """Round ``number`` of the pools phase, paired when it opens: its boards (pool A's first) and
    each board's pool label (the slot's node)."""
    pools = pool_players(t, plan)
    history = [[_games(t, _pool_slots(t, plan, players, r)) for r in range(1, number)] for players in pools]
    boards = round_of_pools(pools, number, pool_format, history, plan.pool_rounds, absent=tuple(t.withdrawn))
    return (
        ScheduledRound(number, tuple(pairing for _, pairing in boards), None),
        tuple(pool_node(pool) for pool, _ in boards),
    )


@dataclass(frozen=True)
class PoolTable:
    """One pool's standings as they stand: its rows best first (a withdrawn player last), and
    whether the pool is decided (every round of the pools phase opened, every pairing decided)."""

    pool: int
    rows: tuple[StandingRow, ...]
    decided: bool


def pool_tables(t: Tournament, plan: Plan, pool_format: str, seed: bytes) -> list[PoolTable]:
    """Every pool's standings by the pool format's own chain, the lot (keyed by ``seed``) last;
    a player who withdrew is ranked below everyone still in."""
    chain = SWISS_TIEBREAKS if pool_format == "swiss" else TIEBREAKS
    drawn = lots(seed, t.players)
    phase_over = t.opened >= plan.pool_rounds
    out: list[PoolTable] = []
    for index, players in enumerate(pool_players(t, plan)):
        slots = _pool_slots(t, plan, players)
        results = [
            Result(s.white, s.black, s.result.winner, (s.result.scores[0], s.result.scores[1]), s.result.forfeit)
            for s in slots
            if s.result is not None
        ]
        byes: dict[str, int] = dict.fromkeys(players, 0)
        if pool_format == "swiss":
            for number in range(1, min(t.opened, plan.pool_rounds) + 1):
                bye = _swiss_round(players, _games(t, _pool_slots(t, plan, players, number)), set(t.withdrawn)).bye
                if bye is not None:
                    byes[bye] += 1
        rows = standings(
            players,
            results,
            byes,
            [p for p in drawn if p in players],
            lower_total_wins=t.lower_total_wins(),
            chain=chain,
        )
        ordered = [r for r in rows if r.player not in t.withdrawn] + [r for r in rows if r.player in t.withdrawn]
        moved = ordered != rows  # a withdrawn player moved last: the ranks follow the rows
        ranked = tuple(replace(r, rank=i) for i, r in enumerate(ordered, start=1)) if moved else tuple(rows)
        out.append(PoolTable(index, ranked, phase_over and all(t.done(slot) for slot in slots)))
    return out


def pool_standings(t: Tournament, plan: Plan, pool_format: str, seed: bytes) -> dict[int, list[str]]:
    """Each decided pool's players in place order (:func:`pool_tables`): what the bracket's pool
    places are filled from."""
    return {
        table.pool: [row.player for row in table.rows]
        for table in pool_tables(t, plan, pool_format, seed)
        if table.decided
    }
