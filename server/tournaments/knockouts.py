"""A running knockout read from its fold: the plan filled in with the results so far, and the next
round to open (docs/TOURNAMENTS.md "Knockouts"). The Decider (:mod:`server.tournaments.decide`)
asks here when a knockout's round is due; the public view and the final places read the same
:func:`state`.

Pure: the fold in, the plan's state out. A round of a knockout is paired when it opens, like a
Swiss round: its ready nodes, one pairing per node, in the plan's order (board 1 first), each
pairing recorded with its node (``RoundPaired.nodes``). Byes and walkovers are never played: a
node with one entrant sends them on without a match.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from server.tournaments.bracket_plan import Bracket, PlaceOf
from server.tournaments.brackets import NodeState, Resolution, plan_of, ranked_places, resolve
from server.tournaments.model import RoundPaired, Slot, Tournament
from server.tournaments.pools import POOL_FORMATS, is_pool_node, pair_pools, pool_standings
from server.tournaments.schedule import Pairing, ScheduledRound


def node_result(slot: Slot) -> tuple[str | None, ...] | None:
    """A decided slot's players in place order (a two-seat one: winner, loser; a double forfeit:
    ``(None,)``, both out); None while it is being played. At a table, equal places (equal totals,
    RULES.md D23: after a round limit every seat but the winner may be on 0) go by seat order, which
    is the seeding's (the better seed, or a table's winner before a runner-up, sits first): the
    better seed goes on. A seat whose player had withdrawn by then takes no place (None): nobody
    goes on in it, however few are left at the table, and its player is last there."""
    r = slot.result
    if r is None:
        return None
    if r.winner is None:
        return (None,)
    if r.places is not None and len(slot.seats) > 2:
        places = r.places
        order = sorted(range(len(slot.seats)), key=lambda i: (places[i], i))
        return tuple(None if slot.seats[i] in r.gone else slot.seats[i] for i in order)
    return (r.winner, *(p for p in slot.seats if p != r.winner))


def node_results(t: Tournament) -> dict[str, tuple[str | None, ...]]:
    """Every decided node of ``t``: its players in place order."""
    out: dict[str, tuple[str | None, ...]] = {}
    for slot in t.slots.values():
        result = node_result(slot)
        if slot.node is not None and result is not None:
            out[slot.node] = result
    return out


def pool_standings_of(t: Tournament, seed: bytes) -> Mapping[int, Sequence[str]] | None:
    """A pools phase's decided pools (pool -> players in place order, :func:`server.tournaments.
    pools.pool_standings`: the lot, keyed by ``seed``, breaks what the chain leaves tied); None
    for a bracket alone."""
    plan = plan_of(t)
    if not plan.pools:
        return None
    return pool_standings(t, plan, t.pool_format or POOL_FORMATS[0], seed)


def bracket_of(t: Tournament, node: str) -> Bracket:
    """Which part of the event a pairing's node is: a pool's match (``"pool"``), or its plan
    node's bracket (``"winners"``, ``"losers"``, ``"final"``, ``"table"``)."""
    return "pool" if is_pool_node(node) else plan_of(t).node(node).bracket


def pools_round(t: Tournament) -> NextRound | None:
    """A pools phase's next step while it lasts (None once it is over, or for a bracket alone):
    nothing while a round is being played, else the next pools round, paired when it opens."""
    plan = plan_of(t)
    if t.opened >= plan.pool_rounds:
        return None
    if t.opened and not t.round_done(t.opened):
        return NextRound()
    scheduled, nodes = pair_pools(t, plan, t.pool_format or POOL_FORMATS[0], t.opened + 1)
    return NextRound(paired=RoundPaired(scheduled, nodes))


def state(t: Tournament, pool_standings: Mapping[int, Sequence[str]] | None = None) -> Resolution:
    """``t``'s plan as its results leave it (``t.players``: the seeded order once started)."""
    return resolve(plan_of(t), t.players, node_results(t), pool_standings)


@dataclass(frozen=True)
class NextRound:
    """What a knockout does next: open round ``number`` with ``nodes`` (``paired``), or finish
    (``finished``: every node decided), or nothing yet (both None/False: a round still playing)."""

    paired: RoundPaired | None = None
    finished: bool = False


def next_round(t: Tournament, pool_standings: Mapping[int, Sequence[str]] | None = None) -> NextRound:
    """Once the last opened round is done: the next round, paired with its ready nodes, or the
    finish when nothing is left to play (a bracket reset not needed ends it). A round whose nodes
    are all walkovers or void (forfeits emptied them) opens with nothing to play and is over at
    once: rounds open one after the other, so a round's start time and the service's wait for it
    always name the round that opens next."""
    if t.opened and not t.round_done(t.opened):
        return NextRound()
    resolution = state(t, pool_standings)
    if resolution.finished:
        return NextRound(finished=True)
    number = t.opened + 1
    if number > resolution_rounds(t):
        return NextRound()  # cannot be: a plan's last round decides it; never open rounds past it
    return NextRound(paired=paired_round(number, [s for s in resolution.ready() if s.node.round == number]))


def resolution_rounds(t: Tournament) -> int:
    """The most rounds ``t``'s plan can take."""
    return plan_of(t).rounds


def paired_round(number: int, nodes: Sequence[NodeState]) -> RoundPaired:
    """Round ``number``'s pairings, one per node in the plan's order (seat 0: the node's first source)."""
    scheduled = ScheduledRound(number, tuple(Pairing(*s.entrants) for s in nodes), None)
    return RoundPaired(scheduled, tuple(s.node.id for s in nodes))


def going_on(resolution: Resolution) -> set[str]:
    """The players still in: each one's last decided node sends them on to a node not void."""
    feeds: dict[tuple[str, int], list[str]] = {}
    for s in resolution.nodes.values():
        for source in s.node.sources:
            if isinstance(source, PlaceOf):
                feeds.setdefault((source.node, source.place), []).append(s.node.id)
    last: dict[str, tuple[str, int]] = {}
    for s in resolution.nodes.values():
        if s.status in ("decided", "walkover"):
            for player in s.entrants:
                last[player] = (s.node.id, s.place_of(player))
        elif s.status in ("waiting", "ready"):
            for player in s.entrants:
                last.pop(player, None)
    waiting = {p for s in resolution.nodes.values() if s.status in ("waiting", "ready") for p in s.entrants}
    fed = {
        player for player, at in last.items() if any(resolution.nodes[n].status != "void" for n in feeds.get(at, ()))
    }
    return waiting | fed


def current_places(t: Tournament, pool_standings: Mapping[int, Sequence[str]] | None = None) -> dict[str, int]:
    """Every entrant's place: the final places once everything is decided; before, the players
    still in share the top and each player out is ranked below them by the knockout's rule."""
    resolution = state(t, pool_standings)
    if resolution.places is not None:
        return resolution.places
    alive = going_on(resolution)
    out = ranked_places(resolution.nodes, pool_standings or {})
    places = dict.fromkeys(alive, 1)
    gone = {p: place for p, place in out.items() if p not in alive}
    for player, place in gone.items():
        ahead = sum(1 for other, theirs in gone.items() if theirs < place)
        places[player] = 1 + len(alive) + ahead
    for player in t.players:
        places.setdefault(player, 1)  # not seated yet (a pools phase): still in
    return places
