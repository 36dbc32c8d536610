"""What a knockout's pairing is called where players look (issue 36.6): ``winners' round 2``,
``losers' round 3``, ``grand final``, ``semi-final``, ``round 1 table 3 — top 2 go on``, ``final
table``, ``pool B round 2``. ``GET /api/me``'s ``next`` and the lobby socket's ``pairing`` carry
it as ``label``; the client puts it where a round robin says ``round 2``.

Pure: the words are :mod:`engine.game.bracket_words`' (the terminal client draws its bracket with
the same), on the plan's nodes (:func:`server.tournaments.brackets.plan_of`).
"""

from __future__ import annotations

from engine.game.bracket_words import NodeFacts, RoundNames
from server.tournaments.bracket_plan import Plan
from server.tournaments.brackets import plan_of
from server.tournaments.knockouts import going_on, pool_standings_of, state
from server.tournaments.model import Slot, Tournament
from server.tournaments.pools import pool_label

__all__ = ["coming_label", "slot_label"]


def _names(plan: Plan) -> RoundNames:
    return RoundNames((NodeFacts(n.id, n.round, n.bracket) for n in plan.nodes), plan.advance)


def _pool_of(t: Tournament, plan: Plan, player: str) -> int | None:
    for index, seeds in enumerate(plan.pools):
        if any(t.players[i] == player for i in seeds if i < len(t.players)):
            return index
    return None


def slot_label(t: Tournament, slot: Slot) -> str | None:
    """The label of ``slot`` in knockout ``t``: its node's words, or a pools round's ``pool B
    round 2``; None outside a knockout (the round number says it there) or for a plan not known."""
    if not t.knockout:
        return None
    try:
        plan = plan_of(t)
    except ValueError:  # a format whose plan this server does not draw
        return None
    pool = _pool_of(t, plan, slot.seats[0]) if slot.round <= plan.pool_rounds else None
    if pool is not None:  # a pools round's match (its node: "pool-A")
        return f"pool {pool_label(pool)} round {slot.round}"
    if slot.node is None:
        return None
    try:
        return _names(plan).node_words(slot.node)
    except KeyError:  # not a node of the plan
        return None


def coming_label(t: Tournament, player: str, seed: bytes) -> tuple[bool, str | None]:
    """Knockout ``t``'s next round for ``player``, not paired yet: whether they are still in (a
    player out has no round to come) and, where the plan already seats them, what it is called
    (``losers' round 2``, ``pool B round 3``); ``seed`` breaks the pools' ties as their
    standings do."""
    plan = plan_of(t)
    if plan.pools and t.opened < plan.pool_rounds:  # the pools phase: everyone plays every round
        pool = _pool_of(t, plan, player)
        return True, f"pool {pool_label(pool)} round {t.opened + 1}" if pool is not None else None
    resolution = state(t, pool_standings_of(t, seed))
    if player not in going_on(resolution):
        return False, None
    waiting = [s for s in resolution.nodes.values() if s.status in ("waiting", "ready") and player in s.entrants]
    if not waiting:
        return True, None
    return True, _names(plan).node_words(min(waiting, key=lambda s: s.node.round).node.id)
