"""Knockout brackets: the plan of a single or double elimination, and :func:`resolve`, which fills
any knockout's plan in from the results so far (docs/TOURNAMENTS.md "Knockouts").

Pure: no I/O. The plan is drawn from the seeded entrants alone (seed 0 is the top seed), so every
process and every restart draws the same bracket from the same events; the Decider
(:mod:`server.tournaments.decide`) pairs each round's ready nodes when the round opens.

- Single elimination: a bracket of the next power of two; the standard seed positions (1 v 16,
  8 v 9, 5 v 12, 4 v 13, ...: seeds 1 and 2 meet in the final at the earliest), a missing seed
  is a bye for the seed it would have met, so the byes go to the top seeds.
- Double elimination: the same winners' bracket; its round-1 losers play each other (L1), and
  the losers of winners' round k (k >= 2) drop into losers' round 2k-2 against the survivors of
  the losers' bracket, in an order that keeps apart players who met in the winners' bracket
  (:func:`drop_order`); the winners' champion meets the losers' champion in the grand final
  (``GF``), and if the losers' side wins it, the bracket reset (``GF2``) decides: each has lost
  once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Final, Literal

from server.tournaments import pools, table_knockout
from server.tournaments.bracket_plan import Node, PlaceOf, Plan, PoolPlace, Seed, Source
from server.tournaments.model import Format, Tournament
from server.tournaments.tables import MIN_TABLE

NodeStatus = Literal["waiting", "ready", "decided", "walkover", "void"]
GRAND_FINAL: Final = "GF"
RESET: Final = "GF2"
SINGLE_FINAL: Final = "F"
POOL_STAGE: Final = -1  # the stage of a player who went out in a pools phase: below every bracket stage


class _Nobody:
    """A source known to be empty: a seed beyond the field, the loser of a walkover, ..."""

    def __repr__(self) -> str:
        return "NOBODY"


NOBODY: Final = _Nobody()
_UNKNOWN: Final = object()  # a source not decided yet


@dataclass(frozen=True)
class NodeState:
    """A node as the results so far leave it. ``seats``: one per source, the player or None (not
    known yet, or nobody: a bye). ``places``: once decided, place k's player at ``places[k-1]``
    (None: nobody took it); every entrant not listed went out here in the last place."""

    node: Node
    seats: tuple[str | None, ...]
    status: NodeStatus
    places: tuple[str | None, ...] = ()

    @property
    def entrants(self) -> tuple[str, ...]:
        return tuple(p for p in self.seats if p is not None)

    @property
    def winner(self) -> str | None:
        return self.places[0] if self.places else None

    def place_of(self, player: str) -> int:
        """``player``'s place at this decided node: the last, if the result does not list them;
        below the last when nobody won it (a double forfeit ranks below a lost match)."""
        if player in self.places:
            return self.places.index(player) + 1
        last = max(len(self.seats), 2)
        return last + 1 if self.places[:1] == (None,) else last


@dataclass(frozen=True)
class Resolution:
    """The plan filled in: each node's state, in the plan's order, and once nothing is left to
    play, every entrant's final place (ties shared: two semi-final losers are both 3rd)."""

    nodes: dict[str, NodeState]
    places: dict[str, int] | None = None

    @property
    def finished(self) -> bool:
        return self.places is not None

    def ready(self) -> list[NodeState]:
        """The nodes to be played next (both seats known), in the plan's order."""
        return [s for s in self.nodes.values() if s.status == "ready"]


# ---------------------------------------------------------------- plans


def plan_of(t: Tournament) -> Plan:
    """The plan of knockout ``t``, from its players in seeded order (``t.players`` once started):
    it depends only on how many they are and on what the director chose at the creation."""
    return _plan(
        t.format,
        len(t.players),
        t.table_size,
        t.advance,
        t.pool_size,
        t.pool_format,
        t.pool_rounds,
        t.bracket_format,
    )


# Speed: a page of a 64-player double elimination asks for its plan twice a pairing (127
# pairings; 0.67 ms a drawing, timeit): drawn once per shape instead. Plans are immutable.
@lru_cache(maxsize=256)
def _plan(
    fmt: Format,
    players: int,
    table_size: int | None,
    advance: int | None,
    pool_size: int | None,
    pool_format: str | None,
    pool_rounds: int | None,
    bracket_format: str | None,
) -> Plan:
    if fmt is Format.SINGLE_ELIMINATION:
        return single_elimination(players)
    if fmt is Format.DOUBLE_ELIMINATION:
        return double_elimination(players)
    if fmt is Format.TABLE_KNOCKOUT:
        return table_knockout.plan(players, table_size or MIN_TABLE, advance or table_knockout.DEFAULT_ADVANCE)
    if fmt is Format.POOLS:
        return pools.plan(
            players,
            pool_size or pools.MIN_POOL,
            advance or table_knockout.DEFAULT_ADVANCE,
            pool_format or pools.POOL_FORMATS[0],
            pool_rounds,
            bracket_builder(bracket_format),
        )
    raise ValueError(f"{fmt.value} is not a knockout format")


def bracket_builder(name: str | None) -> Callable[[int], Plan]:
    """A pools tournament's bracket by its recorded name: a double elimination, or a single one."""
    return double_elimination if name == Format.DOUBLE_ELIMINATION.value else single_elimination


def bracket_size(n: int) -> int:
    """The smallest power of two holding ``n`` entrants (2 at least)."""
    size = 2
    while size < n:
        size *= 2
    return size


def seed_positions(size: int) -> list[int]:
    """The standard seeding of a bracket of ``size`` (a power of two): the seeds (0-based) line
    by line, so that line 2i meets line 2i+1 in round 1: [0, 7, 3, 4, 1, 6, 2, 5] for 8 (1 v 8,
    4 v 5, 2 v 7, 3 v 6). Each round's top seeds stay as far apart as they can."""
    order = [0]
    while len(order) < size:
        width = 2 * len(order)
        order = [s for seed in order for s in (seed, width - 1 - seed)]
    return order


def _round_one(n: int, size: int) -> list[tuple[Source, ...]]:
    """Round 1's seats by the standard positions; a seed beyond the field is left out (a bye)."""
    lines = seed_positions(size)
    return [tuple(Seed(s) for s in (lines[2 * i], lines[2 * i + 1]) if s < n) for i in range(size // 2)]


def _winners_bracket(n: int, size: int, stage: Callable[[int], int]) -> list[list[Node]]:
    """The winners' bracket of ``size`` lines, round by round (round r's nodes "Wr-i")."""
    rounds = [[Node(f"W1-{i + 1}", 1, "winners", sources, stage(1)) for i, sources in enumerate(_round_one(n, size))]]
    while len(rounds[-1]) > 1:
        before = rounds[-1]
        r = len(rounds) + 1
        rounds.append(
            [
                Node(f"W{r}-{i + 1}", r, "winners", (PlaceOf(a.id, 1), PlaceOf(b.id, 1)), stage(r))
                for i, (a, b) in enumerate(zip(before[::2], before[1::2], strict=True))
            ]
        )
    return rounds


def single_elimination(n: int) -> Plan:
    """A single elimination of ``n`` seeded entrants (``n`` >= 2). A player who goes out in round
    r has stage r; the final is ``F``."""
    size = bracket_size(n)
    rounds = _winners_bracket(n, size, stage=lambda r: r)
    final = rounds[-1][0]
    rounds[-1] = [Node(SINGLE_FINAL, final.round, "final", final.sources, final.stage)]
    return Plan(tuple(node for nodes in rounds for node in nodes))


def drop_order(count: int, winners_round: int) -> list[int]:
    """Which loser of winners' round ``winners_round`` (0-based, of ``count``) drops into each
    node of its losers' round: the order is reversed after an even winners' round and its halves
    swapped after an odd one (the usual alternation of bracket tools), so a dropped player first
    meets survivors from the other side of the winners' bracket, never one they just beat
    (measured in tests/tournaments/test_brackets.py: no rematch in the first drop round, and
    fewer rematches over the whole losers' bracket than any one order alone)."""
    if winners_round % 2 == 0:
        return list(range(count - 1, -1, -1))
    half = count // 2
    return [(i + half) % count for i in range(count)]


def double_elimination(n: int, drops: Callable[[int, int], list[int]] = drop_order) -> Plan:
    """A double elimination of ``n`` seeded entrants (``n`` >= 2). Nobody goes out in the winners'
    bracket (a double forfeit there puts both out: stage 0); a player who goes out in losers'
    round j has stage j; the grand final and its reset share the top stage. ``drops``: the
    order the losers of each winners' round drop in (:func:`drop_order`; tests compare others)."""
    size = bracket_size(n)
    winners = _winners_bracket(n, size, stage=lambda _r: 0)
    nodes: list[Node] = [node for nodes in winners for node in nodes]
    top = len(winners)  # R: the winners' rounds
    if top == 1:
        champion: Source = PlaceOf(winners[0][0].id, 2)
    else:
        first = winners[0]
        survivors = [
            _losers_node(1, i, (PlaceOf(a.id, 2), PlaceOf(b.id, 2)))
            for i, (a, b) in enumerate(zip(first[::2], first[1::2], strict=True))
        ]
        nodes.extend(survivors)
        for k in range(2, top + 1):
            dropped = winners[k - 1]
            order = drops(len(dropped), k)
            j = 2 * k - 2
            survivors = [
                _losers_node(j, i, (PlaceOf(dropped[order[i]].id, 2), PlaceOf(s.id, 1)))
                for i, s in enumerate(survivors)
            ]
            nodes.extend(survivors)
            if k < top:
                survivors = [
                    _losers_node(j + 1, i, (PlaceOf(a.id, 1), PlaceOf(b.id, 1)))
                    for i, (a, b) in enumerate(zip(survivors[::2], survivors[1::2], strict=True))
                ]
                nodes.extend(survivors)
        champion = PlaceOf(survivors[0].id, 1)
    final_stage = 2 * top - 1
    nodes.append(Node(GRAND_FINAL, 0, "final", (PlaceOf(winners[-1][0].id, 1), champion), final_stage))
    nodes.append(Node(RESET, 0, "final", (PlaceOf(GRAND_FINAL, 1), PlaceOf(GRAND_FINAL, 2)), final_stage, GRAND_FINAL))
    return Plan(tuple(_timed(nodes)))


def _losers_node(j: int, i: int, sources: tuple[Source, ...]) -> Node:
    return Node(f"L{j}-{i + 1}", 0, "losers", sources, j)


def _timed(nodes: Sequence[Node]) -> list[Node]:
    """Each node's round: the earliest after every node it draws on (round 1 for the seeds), so
    the winners' and losers' brackets play side by side."""
    rounds: dict[str, int] = {}
    out = []
    for node in nodes:
        before = [rounds[s.node] for s in node.sources if isinstance(s, PlaceOf)]
        number = 1 + max(before, default=0)
        rounds[node.id] = number
        out.append(Node(node.id, number, node.bracket, node.sources, node.stage, node.reset_of))
    return out


# ---------------------------------------------------------------- filling the plan in


def resolve(
    plan: Plan,
    seeded: Sequence[str],
    results: Mapping[str, Sequence[str | None]],
    pool_standings: Mapping[int, Sequence[str]] | None = None,
) -> Resolution:
    """The plan as ``results`` leave it. ``seeded``: the entrants in seeded order; ``results``:
    node id -> its players in place order (a two-seat node: (winner, loser); (None,): a double
    forfeit, both out); ``pool_standings``: a pools phase's decided pools, pool -> its players in
    place order (a pool not in it is still being played).

    A node whose sources are all known is ready with two entrants or more, a walkover with one (a
    bye: that entrant takes place 1 without a match), void with none. A bracket reset is played
    only when the losers' side won a played grand final: otherwise it is void."""
    pools = pool_standings or {}
    states: dict[str, NodeState] = {}

    def source(s: Source) -> object:
        if isinstance(s, Seed):
            return seeded[s.index] if s.index < len(seeded) else NOBODY
        if isinstance(s, PoolPlace):
            if s.pool not in pools:
                return _UNKNOWN
            ranked = pools[s.pool]
            return ranked[s.place - 1] if s.place <= len(ranked) else NOBODY
        before = states[s.node]
        if before.status in ("waiting", "ready"):
            return _UNKNOWN
        if s.place > len(before.places):
            return NOBODY
        return before.places[s.place - 1] or NOBODY

    for node in plan.nodes:
        values = [source(s) for s in node.sources]
        seats = tuple(v if isinstance(v, str) else None for v in values)
        if node.reset_of is not None and not _reset_needed(states[node.reset_of]):
            status: NodeStatus = "waiting" if _UNKNOWN in values else "void"
            states[node.id] = NodeState(node, seats, status)
            continue
        if _UNKNOWN in values:
            states[node.id] = NodeState(node, seats, "waiting")
            continue
        entrants = [p for p in seats if p is not None]
        if not entrants:
            states[node.id] = NodeState(node, seats, "void")
        elif len(entrants) == 1:
            states[node.id] = NodeState(node, seats, "walkover", (entrants[0],))
        elif node.id in results:
            states[node.id] = NodeState(node, seats, "decided", tuple(results[node.id]))
        else:
            states[node.id] = NodeState(node, seats, "ready")
    done = all(s.status in ("decided", "walkover", "void") for s in states.values())
    places = ranked_places(states, pools) if done and plan.nodes else None
    return Resolution(states, places)


def _reset_needed(final: NodeState) -> bool:
    """A grand final played and won by its second seat (the losers' bracket's champion)."""
    if final.status in ("waiting", "ready"):
        return True  # not known yet: the reset waits
    return final.status == "decided" and len(final.seats) == 2 and final.winner == final.seats[1]


def ranked_places(states: Mapping[str, NodeState], pools: Mapping[int, Sequence[str]]) -> dict[str, int]:
    """Every entrant's final place (docs/TOURNAMENTS.md "Final places"): the further a player got
    (the stage of the last node they sat at), the better; at the same stage, the better place at
    that node; otherwise tied, and the places after a tie are skipped (1, 2, 3, 3, 5)."""
    exits: dict[str, tuple[int, int]] = {}
    for pool, ranked in pools.items():
        del pool
        for place, player in enumerate(ranked, start=1):
            exits[player] = (POOL_STAGE, place)
    for state in states.values():
        if state.status not in ("decided", "walkover"):
            continue
        for player in state.entrants:
            exits[player] = (state.node.stage, state.place_of(player))
    ranked = sorted(exits, key=lambda p: (-exits[p][0], exits[p][1]))
    places: dict[str, int] = {}
    for i, player in enumerate(ranked):
        same = i > 0 and exits[ranked[i - 1]] == exits[player]
        places[player] = places[ranked[i - 1]] if same else i + 1
    return places


def ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def source_text(source: Source, plan: Plan) -> str:
    """How the public bracket names a seat's source: "seed 3", "winner of W1-2", "loser of
    W1-2", "2nd of table T1-3", "2nd of pool B"."""
    if isinstance(source, Seed):
        return f"seed {source.index + 1}"
    if isinstance(source, PoolPlace):
        return f"{ordinal(source.place)} of pool {chr(ord('A') + source.pool)}"
    node = plan.node(source.node)
    if node.bracket == "table":
        return f"{ordinal(source.place)} of table {source.node}"
    return f"{'winner' if source.place == 1 else 'loser'} of {source.node}"
