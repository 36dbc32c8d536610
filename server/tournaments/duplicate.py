"""The "same-deal" column of a duplicate tournament's standings (docs/TOURNAMENTS.md "Duplicate rounds").

Every pairing of a duplicate round is dealt the same cards, so a result can be set beside
the others on the same deal, as duplicate bridge does. A player's **margin** in a match is
their final total less the opponent's (the other way round where the lower total wins). On
each round's deal, the players who sat in the same seat form a group; in it each player
scores a **matchpoint** for every other member whose margin is smaller, half for an equal
one. The column is a player's matchpoints over all their rounds as a percentage of the
comparisons they had (50 is the field's average); None with no comparison (alone in every
group). Forfeits, annulled results and replayed matches (dealt on their own) take no part.

Pure: the fold's results in (``Tournament.deal_results``), numbers out.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class DealResult:
    """One player's result on one round's deal, from one seat."""

    round: int
    seat: int
    player: str
    margin: int


def matchpoints(results: list[DealResult]) -> dict[str, tuple[float, int]]:
    """Per player: (matchpoints, comparisons) over every (round, seat) group they sat in."""
    groups: dict[tuple[int, int], list[DealResult]] = defaultdict(list)
    for result in results:
        groups[(result.round, result.seat)].append(result)
    out: dict[str, tuple[float, int]] = {}
    for members in groups.values():
        for one in members:
            points = sum(1.0 if one.margin > o.margin else 0.5 if one.margin == o.margin else 0.0 for o in members)
            points -= 0.5  # the player against themselves
            had, compared = out.get(one.player, (0.0, 0))
            out[one.player] = (had + points, compared + len(members) - 1)
    return out


def same_deal(players: Sequence[str], results: list[DealResult]) -> dict[str, float | None]:
    """Each player's same-deal percentage (one decimal), None without a comparison; ``results``:
    every played result dealt its round's cards, one per seat (the fold's ``deal_results``)."""
    scores = matchpoints(results)
    out: dict[str, float | None] = {}
    for player in players:
        points, compared = scores.get(player, (0.0, 0))
        out[player] = round(100 * points / compared, 1) if compared else None
    return out
