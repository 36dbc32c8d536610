"""The schedule of a ``tables`` tournament: classic UNO at tables of 3 to 10 (issue 22).

Pure: no I/O, no clock; the one search is seeded from its inputs, so the same field, table
size and number of rounds always give the same schedule, and anyone can recompute it.

Three questions, one function each:

- :func:`table_sizes`: how ``n`` players sit at tables as near the director's preferred size
  as the field allows, every table 3 to 10 (never a table of one or two).
- :func:`table_schedule`: who sits at which table in each round, spreading the meetings as
  evenly as possible. Where an exact design exists it is used: ``q * q`` players at tables of
  ``q`` (q = 3, 4, 5 or 7) form the affine plane of order ``q``, whose ``q + 1`` parallel
  classes are ``q + 1`` rounds in which every two players meet exactly once (so in fewer rounds
  nobody meets anyone twice); 16 players in 5 rounds of tables of 4 is that plane for q = 4.
  Otherwise a greedy seating, round by round, then a hill-climb of swaps between tables, each
  taken only if it lowers the number of repeat meetings.
- :func:`repeat_meetings`: the count the schedule is judged by, the meetings beyond the first
  of every pair of players.

At every table ``seats[0]`` is the first dealer (Player 1 of the match's round 1): the player
at that table who has dealt least so far, so first deals rotate over the field.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Sequence
from typing import Final

__all__ = ["MAX_TABLE", "MIN_TABLE", "meetings", "repeat_meetings", "table_schedule", "table_sizes"]

MIN_TABLE: Final = 3
MAX_TABLE: Final = 10
SEARCH_PASSES: Final = 40  # hill-climb passes over one round's swaps; each pass stops early once nothing improves

Table = tuple[str, ...]
Round = list[Table]


def table_sizes(players: int, preferred: int) -> list[int]:
    """The table sizes of one round, largest first: the fewest tables off ``preferred`` (then the
    smallest total distance from it), sizes differing by at most one."""
    if not MIN_TABLE <= preferred <= MAX_TABLE:
        raise ValueError(f"a table seats {MIN_TABLE} to {MAX_TABLE}, not {preferred}")
    if players < MIN_TABLE:
        raise ValueError(f"a tables tournament needs at least {MIN_TABLE} players, not {players}")
    best: list[int] | None = None
    best_key: tuple[int, int] | None = None
    for count in range(-(-players // MAX_TABLE), players // MIN_TABLE + 1):
        base, extra = divmod(players, count)
        sizes = [base + 1] * extra + [base] * (count - extra)
        key = (max(abs(s - preferred) for s in sizes), sum(abs(s - preferred) for s in sizes))
        if best_key is None or key < best_key:
            best, best_key = sizes, key
    assert best is not None  # players >= 3 always admits one table count
    return best


def meetings(schedule: Sequence[Sequence[Sequence[str]]]) -> Counter[frozenset[str]]:
    """How often each two players sat at one table, over the whole schedule."""
    met: Counter[frozenset[str]] = Counter()
    for tables in schedule:
        for table in tables:
            met.update(_pairs(table))
    return met


def _pairs(table: Sequence[str]) -> list[frozenset[str]]:
    """Every two players of one table."""
    return [frozenset(pair) for pair in itertools.combinations(table, 2)]


def repeat_meetings(schedule: Sequence[Sequence[Sequence[str]]]) -> int:
    """The meetings beyond the first of every pair: 0 when nobody meets anyone twice."""
    return sum(count - 1 for count in meetings(schedule).values())


def table_schedule(players: Sequence[str], preferred: int, rounds: int) -> list[Round]:
    """``rounds`` rounds of tables for ``players`` (ids, in pairing order), each table's
    ``seats[0]`` its first dealer. An exact design where one exists, else the searched one."""
    ids = list(players)
    if len(set(ids)) != len(ids):
        raise ValueError("a player can be entered once")
    if rounds < 1:
        raise ValueError(f"a tournament has at least one round, not {rounds}")
    sizes = table_sizes(len(ids), preferred)
    seatings = _affine_plane(ids, sizes, rounds)
    if seatings is None:
        seatings = _searched(ids, sizes, rounds)
    return _rotate_dealers(ids, seatings)


# ---------------------------------------------------------------- the exact design


def _field_of(q: int) -> tuple[list[list[int]], list[list[int]]] | None:
    """Addition and multiplication tables of the field of order ``q`` (primes, and 4), else None."""
    if q == 4:  # GF(4) = {0, 1, a, a + 1} with a^2 = a + 1, elements written 0..3 as bit pairs
        add = [[x ^ y for y in range(4)] for x in range(4)]
        logs = {1: 0, 2: 1, 3: 2}
        exps = [1, 2, 3]
        mul = [[0 if x == 0 or y == 0 else exps[(logs[x] + logs[y]) % 3] for y in range(4)] for x in range(4)]
        return add, mul
    if q >= 2 and all(q % d for d in range(2, q)):
        return [[(x + y) % q for y in range(q)] for x in range(q)], [[(x * y) % q for y in range(q)] for x in range(q)]
    return None


def _affine_plane(ids: list[str], sizes: list[int], rounds: int) -> list[Round] | None:
    """The affine plane of order q for q*q players at tables of q, when q + 1 >= rounds."""
    q = sizes[0]
    if len(ids) != q * q or any(s != q for s in sizes) or rounds > q + 1:
        return None
    field = _field_of(q)
    if field is None:
        return None
    add, mul = field
    point = {(x, y): ids[x * q + y] for x in range(q) for y in range(q)}
    classes: list[Round] = []
    for slope in range(q):  # the lines y = slope * x + b, one table per b
        classes.append([tuple(point[(x, add[mul[slope][x]][b])] for x in range(q)) for b in range(q)])
    classes.append([tuple(point[(c, y)] for y in range(q)) for c in range(q)])  # the lines x = c
    return classes[:rounds]


# ---------------------------------------------------------------- the searched schedule


def _searched(ids: list[str], sizes: list[int], rounds: int) -> list[Round]:
    """Round by round: a greedy seating that avoids those who met, then swaps that lower repeats."""
    rng = random.Random(f"tables:{len(ids)}:{','.join(map(str, sizes))}:{rounds}")
    met: Counter[frozenset[str]] = Counter()
    schedule: list[Round] = []
    for _ in range(rounds):
        tables = _greedy_round(ids, sizes, met, rng)
        tables = _improve(tables, met, rng)
        for table in tables:
            met.update(_pairs(table))
        schedule.append([tuple(t) for t in tables])
    return schedule


def _cost(player: str, table: Sequence[str], met: Counter[frozenset[str]]) -> int:
    """The repeat meetings ``player`` would add by sitting at ``table``."""
    return sum(met[frozenset((player, other))] for other in table if other != player)


def _greedy_round(
    ids: list[str], sizes: list[int], met: Counter[frozenset[str]], rng: random.Random
) -> list[list[str]]:
    order = ids[:]
    rng.shuffle(order)
    tables: list[list[str]] = [[] for _ in sizes]
    for player in order:
        open_tables = [i for i, t in enumerate(tables) if len(t) < sizes[i]]
        best = min(open_tables, key=lambda i: (_cost(player, tables[i], met), len(tables[i]), i))
        tables[best].append(player)
    return tables


def _improve(tables: list[list[str]], met: Counter[frozenset[str]], rng: random.Random) -> list[list[str]]:
    """Swap two players of two tables while a swap lowers the round's repeat meetings."""
    for _ in range(SEARCH_PASSES):
        improved = False
        pairs = list(itertools.combinations(range(len(tables)), 2))
        rng.shuffle(pairs)
        for a, b in pairs:
            for i, j in itertools.product(range(len(tables[a])), range(len(tables[b]))):
                x, y = tables[a][i], tables[b][j]
                before = _cost(x, tables[a], met) + _cost(y, tables[b], met)
                rest_a = [p for p in tables[a] if p != x]
                rest_b = [p for p in tables[b] if p != y]
                after = _cost(y, rest_a, met) + _cost(x, rest_b, met)
                if after < before:
                    tables[a][i], tables[b][j] = y, x
                    improved = True
        if not improved:
            break
    return tables


# ---------------------------------------------------------------- first dealers


def _rotate_dealers(ids: list[str], schedule: list[Round]) -> list[Round]:
    """Each table in pairing order, started at the player who has dealt first least often
    (then the earlier pairing number): over the rounds first deals go round the field."""
    number = {p: i for i, p in enumerate(ids)}
    dealt: Counter[str] = Counter()
    out: list[Round] = []
    for tables in schedule:
        seated: Round = []
        for table in tables:
            ordered = sorted(table, key=number.__getitem__)
            dealer = min(ordered, key=lambda p: (dealt[p], number[p]))
            start = ordered.index(dealer)
            seated.append(tuple(ordered[start:] + ordered[:start]))
            dealt[dealer] += 1
        out.append(seated)
    return out
