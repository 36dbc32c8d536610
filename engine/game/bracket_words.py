"""A knockout's rounds and matches in words (docs/TOURNAMENTS.md "Knockouts"): ``winners' round
2``, ``losers' final``, ``grand final``, ``semi-final``, ``round 1 table 3 — top 2 go on``,
``final table``, ``pool B round 2``.

One wording for the server's lobby line (``GET /api/me``'s ``next``, the lobby socket's
``pairing``), ``unoduo tournament show`` and the terminal client's bracket, which may import no
server code: so it lives here, on plain facts about the plan's nodes (id, tournament round,
bracket), not on the server's plan types.

A bracket's round is counted within that bracket: a double elimination's losers' bracket plays
its round 1 in the tournament's round 2, beside the winners' round 2. A single elimination (no
losers' bracket) names its last three rounds as people do: quarter-final, semi-final, final.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

__all__ = ["SECTION_WORDS", "NodeFacts", "RoundNames"]

SECTION_WORDS: dict[str, str] = {
    "winners": "winners' bracket",
    "losers": "losers' bracket",
    "final": "grand final",
    "table": "tables",
    "pool": "pools",
}


@dataclass(frozen=True)
class NodeFacts:
    """What the words need of a node: its id, the tournament round that plays it, its bracket."""

    id: str
    round: int
    bracket: str


class RoundNames:
    """The words for every node of one plan, from its nodes in plan order (board order)."""

    def __init__(self, nodes: Iterable[NodeFacts], advance: int = 1) -> None:
        self.nodes = list(nodes)
        self.advance = advance
        rounds: dict[str, list[int]] = {}
        for node in self.nodes:
            rounds.setdefault(node.bracket, [])
            if node.round not in rounds[node.bracket]:
                rounds[node.bracket].append(node.round)
        self._rounds = {bracket: sorted(numbers) for bracket, numbers in rounds.items()}
        self._by_id: Mapping[str, NodeFacts] = {node.id: node for node in self.nodes}
        self.double = "losers" in self._rounds

    def bracket_round(self, node_id: str) -> int:
        """The node's round counted within its bracket (1-based)."""
        node = self._by_id[node_id]
        return self._rounds[node.bracket].index(node.round) + 1

    def last_round(self, bracket: str) -> int:
        return len(self._rounds.get(bracket, ()))

    def table_number(self, node_id: str) -> int:
        """A node's board among its round's nodes of the same bracket (1-based, plan order)."""
        node = self._by_id[node_id]
        same = [n.id for n in self.nodes if n.bracket == node.bracket and n.round == node.round]
        return same.index(node_id) + 1

    def round_words(self, bracket: str, number: int) -> str:
        """The heading of round ``number`` (within ``bracket``): ``winners' round 2``,
        ``semi-final``, ``losers' final``, ``grand final``, ``final table``."""
        last = self.last_round(bracket)
        if bracket in ("winners", "final") and not self.double:  # a single elimination, its final either way
            total = self.last_round("winners") + self.last_round("final")
            from_end = total - (number + (self.last_round("winners") if bracket == "final" else 0))
            return ("final", "semi-final", "quarter-final")[from_end] if from_end < 3 else f"round {number}"
        if bracket == "winners":
            return "winners' final" if number == last > 1 else f"winners' round {number}"
        if bracket == "losers":
            return "losers' final" if number == last > 1 else f"losers' round {number}"
        if bracket == "final":
            return "grand final" if number == 1 else "grand final reset"
        if bracket == "table":
            final_round = self._rounds["table"][-1]
            alone = sum(1 for n in self.nodes if n.bracket == "table" and n.round == final_round) == 1
            return "final table" if number == last > 1 and alone else f"table round {number}"
        return f"{bracket} round {number}"

    def node_words(self, node_id: str) -> str:
        """One node's label, as the lobby says it: ``winners' round 2``, ``grand final``,
        ``round 1 table 3 — top 2 go on``, ``final table``."""
        node = self._by_id[node_id]
        number = self.bracket_round(node_id)
        words = self.round_words(node.bracket, number)
        if node.bracket != "table" or words == "final table":
            return words
        return f"round {number} table {self.table_number(node_id)} — top {self.advance} go on"
