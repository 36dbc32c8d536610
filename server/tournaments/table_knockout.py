"""The table knockout's plan: classic UNO at tables, the top ``advance`` of each table go on, round
after round, down to a final table (docs/TOURNAMENTS.md "Table knockout"; issue 36).

Pure: the plan is drawn from the number of entrants, the table size and ``advance`` alone, at
the start, so every process draws the same plan. Each round:

- **Sizes**: the survivors sit at tables as :func:`server.tournaments.tables.table_sizes` seats a
  tables tournament (as near ``table_size`` as the field allows, sizes differing by at most one,
  never below 3). When that is one table, it is the **final table** (node ``"F"``): so 5
  survivors at tables of 4 play one final of 5 rather than a table of 3 and one of 2. Two
  survivors (``advance`` 1 from two tables) play a heads-up final.
- **Round 1** seats the seeds by snake (:func:`server.tournaments.spread.snake`): table 1 gets
  seeds 1 and 2T, table 2 seeds 2 and 2T - 1, ... so every table has one of the best.
- **Later rounds** seat the qualifiers in tiers, every table's winner first, then every
  runner-up, ..., each tier in snake order over the new tables, the tier's order chosen so that
  two players from one table sit at different tables wherever the count allows (an optimal
  assignment per tier, :func:`server.tournaments.spread.place_tiers`); with fewer new tables than
  ``advance`` some must meet again, as few as possible.
- A table's places are its match's (RULES.md D23; its round limit if the director set one); a
  seat that withdrew is last at its table. Final places: the final table's places first, then
  by the round one went out in (later is better) and the place at that table, ties shared
  (:mod:`server.tournaments.bracket_plan`): every 3rd of round 2's tables shares one place.

Every non-final table must seat more than ``advance`` (else nobody would go out there): a field,
table size and ``advance`` that would seat a table of ``advance`` or fewer are refused with
:class:`TableKnockoutError`, which says which round.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from server.tournaments.bracket_plan import Node, PlaceOf, Plan, Seed, Source
from server.tournaments.spread import place_tiers, snake
from server.tournaments.tables import MAX_TABLE, MIN_TABLE, table_sizes

__all__ = ["DEFAULT_ADVANCE", "FINAL", "TableKnockoutError", "plan", "round_sizes"]

DEFAULT_ADVANCE: Final = 2
FINAL: Final = "F"


class TableKnockoutError(ValueError):
    """The field, table size and ``advance`` make no table knockout; the text says why."""


def round_sizes(players: int, table_size: int) -> list[int]:
    """One round's table sizes for ``players`` survivors (one table: the final)."""
    if players == 2:  # advance 1 from two tables: a heads-up final
        return [2]
    return table_sizes(players, table_size)


def table_id(round_number: int, table: int, final: bool) -> str:
    """``"T2-3"``: round 2, table 3 (1-based); the final table is ``"F"``."""
    return FINAL if final else f"T{round_number}-{table}"


def plan(entrants: int, table_size: int, advance: int = DEFAULT_ADVANCE, seats: int = MAX_TABLE) -> Plan:
    """The whole knockout for ``entrants`` seeded players (seed 0 the best) at tables of about
    ``table_size``; ``seats``: the most the ruleset deals for at one table."""
    if not MIN_TABLE <= table_size <= MAX_TABLE:
        raise TableKnockoutError(f"table_size: {MIN_TABLE} to {MAX_TABLE}, not {table_size}")
    if not 1 <= advance < table_size:
        raise TableKnockoutError(f"advance: 1 to {table_size - 1} (fewer than a table seats), not {advance}")
    if entrants < MIN_TABLE:
        raise TableKnockoutError(f"a table knockout needs at least {MIN_TABLE} players, not {entrants}")
    nodes: list[Node] = []
    players = entrants
    previous: list[str] = []  # the node ids of the round before
    round_number = 1
    while True:
        sizes = round_sizes(players, table_size)
        final = len(sizes) == 1
        if max(sizes) > seats:
            raise TableKnockoutError(
                f"round {round_number} would seat {max(sizes)} at a table, and the ruleset's deck deals for at "
                f"most {seats} (its hand_size): choose a smaller table_size"
            )
        if not final and min(sizes) <= advance:
            raise TableKnockoutError(
                f"round {round_number} seats {players} players at tables of {min(sizes)} to {max(sizes)}: a table "
                f"of {min(sizes)} where the top {advance} go on sends nobody out; choose a smaller advance or "
                "another table_size"
            )
        if round_number == 1:
            seats_of: list[list[Source]] = [[Seed(i) for i in group] for group in snake(players, sizes)]
        else:
            seats_of = _qualifiers_seated(previous, advance, sizes)
        ids = [table_id(round_number, i, final) for i in range(1, len(sizes) + 1)]
        nodes.extend(
            Node(node_id, round_number, "table", tuple(sources), round_number)
            for node_id, sources in zip(ids, seats_of, strict=True)
        )
        if final:
            return Plan(tuple(nodes), advance=advance)
        previous = ids
        players = advance * len(sizes)
        round_number += 1


def _qualifiers_seated(previous: Sequence[str], advance: int, sizes: Sequence[int]) -> list[list[Source]]:
    """The next round's tables: the qualifiers of ``previous`` tables, tier by tier (every winner,
    then every runner-up, ...) in snake order, players of one table kept apart."""
    tables = len(previous)
    count = advance * tables
    at_table = [0] * count  # position in the tier-major list -> the new table it sits at
    for table, positions in enumerate(snake(count, sizes)):
        for position in positions:
            at_table[position] = table
    tiers = [list(range(tables)) for _ in range(advance)]
    slots = [list(range(p * tables, (p + 1) * tables)) for p in range(advance)]

    def cost(source: int, position: int, placed: Sequence[tuple[int, int]]) -> int:
        return sum(1 for s, q in placed if s == source and at_table[q] == at_table[position])

    placed = place_tiers(tiers, slots, cost)
    by_position: dict[int, Source] = {}
    for tier, sources in enumerate(placed):
        for source, position in zip(sources, slots[tier], strict=True):
            by_position[position] = PlaceOf(previous[source], tier + 1)
    seated: list[list[Source]] = [[] for _ in sizes]
    for position in sorted(by_position):  # a table's seats: the better tier first
        seated[at_table[position]].append(by_position[position])
    return seated
