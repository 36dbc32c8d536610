"""What a knockout's pairing is called where players look (issue 36.6): ``winners' round 2``,
``losers' round 3``, ``grand final``, ``semi-final``, ``round 1 table 3 — top 2 go on``, ``final
table``, ``pool B round 2``. ``GET /api/me``'s ``next`` and the lobby socket's ``pairing`` carry
it as ``label``; the client puts it where a round robin says ``round 2``.

Pure: the words are :mod:`engine.game.bracket_words`' (the terminal client draws its bracket with
the same), on the plan's nodes (:func:`server.tournaments.brackets.plan_of`).
"""

from __future__ import annotations

from engine.game.bracket_words import NodeFacts, RoundNames
from server.tournaments.brackets import plan_of
from server.tournaments.model import Slot, Tournament
from server.tournaments.pools import pool_label

__all__ = ["slot_label"]


def slot_label(t: Tournament, slot: Slot) -> str | None:
    """The label of ``slot`` in knockout ``t``: its node's words, or a pools round's ``pool B
    round 2``; None outside a knockout (the round number says it there) or for a plan not known."""
    if not t.knockout:
        return None
    try:
        plan = plan_of(t)
    except ValueError:  # a format whose plan this server does not draw
        return None
    for index, seeds in enumerate(plan.pools):  # a pools round's match (its node: "pool-A", or none)
        if slot.round <= plan.pool_rounds and any(t.players[i] in slot.seats for i in seeds if i < len(t.players)):
            return f"pool {pool_label(index)} round {slot.round}"
    if slot.node is None:
        return None
    names = RoundNames((NodeFacts(n.id, n.round, n.bracket) for n in plan.nodes), plan.advance)
    try:
        return names.node_words(slot.node)
    except KeyError:  # not a node of the plan
        return None
