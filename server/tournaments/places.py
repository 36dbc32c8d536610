"""A finished tournament's final places: the one answer a season (and anything else that ranks
events against each other) reads (docs/TOURNAMENTS.md "Seasons").

Pure: no I/O. Every format answers here, in one place, so a format added later plugs in with a
branch of its own. A knockout answers from its bracket (the ``places`` it publishes, ties shared:
two semi-final losers share 3rd). The formats with standings (round robin, Swiss, tables) answer
from the standings' ranks:

* players still in the tournament at its end first, in the standings' order; a place is shared
  only where the standings share a rank (they break every tie by lot, but for players who played
  nothing);
* then every player who withdrew (results kept or annulled), in the standings' order among them.

Places are competition ranks ("1, 2, 2, 4"): a place is one more than the number of players
finishing strictly ahead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from server.tournaments.knockouts import current_places, pool_standings_of
from server.tournaments.model import Tournament
from server.tournaments.standings import StandingRow

__all__ = ["final_places", "standings_of"]


def final_places(t: Tournament, seed: bytes) -> dict[str, int]:
    """Every entrant of ``t`` -> their final place (1 = first), ties shared. ``seed``: the
    tournament's, which draws its lots (a finished tournament has revealed it: ``t.server_seed``).
    A knockout: its bracket's places (docs/TOURNAMENTS.md "Final places"), a withdrawn player's
    too (they went out where they forfeited)."""
    if t.knockout:
        return current_places(t, pool_standings_of(t, seed))
    rows = t.standings(seed)
    staying = [r for r in rows if r.player not in t.withdrawn]
    gone = [r for r in rows if r.player in t.withdrawn]
    return {**_ranked(staying, 0), **_ranked(gone, len(staying))}


def _ranked(rows: Sequence[StandingRow], ahead: int) -> dict[str, int]:
    """``rows`` in order, after ``ahead`` players: each one's place, shared with the row above
    when the standings gave both the same rank."""
    places: dict[str, int] = {}
    for index, row in enumerate(rows):
        shared = index > 0 and rows[index - 1].rank == row.rank
        places[row.player] = places[rows[index - 1].player] if shared else ahead + index + 1
    return places


def standings_of(t: Tournament, seed: bytes) -> list[StandingRow]:
    """The table every reader shows (the tournament's page, a player's page). A knockout's is
    ranked by its places (provisional until the finish: the players still in share the top), its
    counts (played, won, lost, points) the same as every format's, with no tie-break columns: the
    bracket decided. Tied players are listed in seed order."""
    rows = t.standings(seed)
    if not t.knockout:
        return rows
    places = final_places(t, seed)
    order = {p: i for i, p in enumerate(t.players)}
    ranked = sorted(rows, key=lambda r: (places.get(r.player, len(rows)), order.get(r.player, 0)))
    return [replace(r, rank=places.get(r.player, len(rows)), tiebreaks={}, decided_by=None) for r in ranked]
