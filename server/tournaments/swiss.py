"""Swiss pairings by the FIDE Dutch system (FIDE Handbook C.04.3, with C.04.1 and C.04.2).

UNO Duo has no draws: a win scores 1, a loss 0, the pairing-allocated bye (PAB) 1, a forfeit
win 1; a double forfeit leaves both on 0. A half-point bye (asked for by the player, or a late
entrant's missed round when the director allows it) scores ½, so scores are counted here in
half points (a win is 2): whole numbers throughout, and for scores without halves every
comparison, and so every pairing, is what it was when a point was 1. "White" is seat 0 (the first drafter of the match's
first round) and its balance is kept as chess keeps colours.

How a round is paired. The Dutch rules pair one bracket after another, from the top score down,
each by a list of criteria in priority order. We get the same choices from one maximum-weight
matching (networkx `max_weight_matching`, `maxcardinality=True`: everyone is paired when that
is possible at all) over the pairs the absolute criteria allow (C.1 no rematch, C.3 no two
players with the same absolute colour preference, except topscorers in the last round), plus a
virtual bye vertex joined to the players still eligible for the PAB (C.2) when the number of
players is odd. Each edge's weight is one big integer whose digits are, most significant first:

1. the pair itself (completion, C.4), then the score group of the bye assignee (as low as
   possible: the 2025 rules' bye criterion, which bbpPairings 6 applies);
2. per bracket, from the top: its downfloaters (C.5, as few as possible), its pairing score
   differences (C.6: the downfloaters' scores first, then the pairs' differences, largest first),
   the same two for the next bracket (C.7), then the colour criteria of the pairs made in the
   bracket (C.10 to C.13), its repeated floats (C.14 to C.17) and their score differences (C.18
   to C.21), and last the Dutch order of candidates: the moved-down players take the highest
   residents they can (B.3/D), then the remainder pairs S1 against S2 with the fewest and
   smallest exchanges (D.2) and the first transposition (D.1).

bbpPairings (github.com/BieremaBoyzProgramming/bbpPairings, src/swisssystems/dutch.cpp:
computeEdgeWeight, insertColorBits) builds the same kind of weight but matches one bracket at a
time, several matchings per bracket; we match the round once per pass, and the order digits,
which need to know each bracket's remainder, are refined from the previous pass (at most three
passes). tools/swiss_crosscheck.py measures the agreement; /work/notes/doc_swiss.md has the
figures and what is simplified.

The function is pure: the same players, history and round count always give the same pairings.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import networkx as nx

WHITE = "w"
BLACK = "b"
_BYE = "\x00bye"  # the virtual vertex of the pairing-allocated bye: no player id starts with NUL
_DIGIT_BITS = 9  # one criterion's digit: its sum over a round (at most 32 pairs) stays within +-255
_MAX_PASSES = 3
# digits whose round sums can pass 255: a sum of BSNs (up to 32 * 63), sums of score differences
_WIDTHS = {"exchange_bsn": 3, "f18": 2, "f19": 2, "f20": 2, "f21": 2}


class SwissError(ValueError):
    """No pairing of the round satisfies the absolute criteria (C.1 to C.3)."""


@dataclass(frozen=True)
class SwissGame:
    """One game of a round: `winner` None is a double forfeit (both lose).

    A forfeited game (`forfeit`) was not played: it gives no colour and no float, but the two
    players count as having met (they are not paired again).
    """

    white: str
    black: str
    winner: str | None
    forfeit: bool = False


@dataclass(frozen=True)
class SwissRound:
    """The games of one round, its pairing-allocated bye (1 point), if any, and its half-point
    byes (½ each: players left out of the pairing on their own request, or late entrants)."""

    games: tuple[SwissGame, ...]
    bye: str | None = None
    half_byes: tuple[str, ...] = ()


POINT = 2  # a win, a forfeit win or the PAB, in half points
HALF = 1  # a half-point bye


@dataclass(frozen=True)
class Pairings:
    """A round's pairings: (white, black) per board, board 1 first, and the bye; ``forced``: the
    forbidden pairs it had to pair because no pairing of the round avoided them."""

    boards: tuple[tuple[str, str], ...]
    bye: str | None
    forced: tuple[tuple[str, str], ...] = ()


@dataclass
class _Player:
    """What the pairing needs to know of one active player."""

    pid: str
    number: int  # pairing number - 1 (0 is the top of the initial ranking)
    score: int = 0  # in half points (a win: POINT)
    colours: list[str] = field(default_factory=list)  # colours of played games, in order
    floats: list[str] = field(default_factory=list)  # per past round: "down", "up" or ""
    bye_eligible: bool = True  # C.2: no PAB yet and no forfeit win
    order: int = 0  # position by score, then pairing number (A.2)

    @property
    def colour_imbalance(self) -> int:
        return abs(self.colours.count(WHITE) - self.colours.count(BLACK))

    @property
    def repeated_colour(self) -> str | None:
        """The colour of the two latest played games when they are the same (A.6.a)."""
        if len(self.colours) >= 2 and self.colours[-1] == self.colours[-2]:
            return self.colours[-1]
        return None

    @property
    def preference(self) -> str | None:
        """The colour preference of A.6: absolute, strong, mild, or none (no game played)."""
        whites, blacks = self.colours.count(WHITE), self.colours.count(BLACK)
        lower = BLACK if whites > blacks else WHITE
        repeated = self.repeated_colour
        if self.colour_imbalance > 1:
            return lower
        if repeated is not None:
            return _invert(repeated)
        if self.colour_imbalance > 0:
            return lower
        if self.colours:
            return _invert(self.colours[-1])
        return None

    @property
    def absolute(self) -> bool:
        return self.colour_imbalance > 1 or self.repeated_colour is not None

    @property
    def strong(self) -> bool:
        return not self.absolute and self.colour_imbalance == 1


def _invert(colour: str) -> str:
    return BLACK if colour == WHITE else WHITE


def _game_points(game: SwissGame, pid: str) -> int:
    return POINT if game.winner == pid else 0


def _build_players(
    players: Sequence[str], history: Sequence[SwissRound], absent: Collection[str]
) -> tuple[dict[str, _Player], set[frozenset[str]]]:
    """Scores, colours, floats and bye eligibility of every player, and the pairs that met."""
    everyone = {pid: _Player(pid, number) for number, pid in enumerate(players)}
    met: set[frozenset[str]] = set()
    for round_ in history:
        before = {pid: p.score for pid, p in everyone.items()}
        played: set[str] = set()
        for game in round_.games:
            met.add(frozenset((game.white, game.black)))
            for pid, colour, other in ((game.white, WHITE, game.black), (game.black, BLACK, game.white)):
                player = everyone.get(pid)
                if player is None:
                    continue
                player.score += _game_points(game, pid)
                if game.forfeit:
                    if game.winner == pid:
                        player.bye_eligible = False
                    continue
                played.add(pid)
                player.colours.append(colour)
                mine, theirs = before[pid], before.get(other, 0)
                player.floats.append("down" if mine > theirs else "up" if mine < theirs else "")
        if round_.bye is not None and round_.bye in everyone:
            everyone[round_.bye].score += POINT
            everyone[round_.bye].bye_eligible = False
        for pid in round_.half_byes:
            if pid in everyone:
                everyone[pid].score += HALF  # still eligible for the PAB: it is no full point
        for pid, player in everyone.items():
            if pid not in played:
                # 2025 rules 1.4.3: scoring more than a loss without playing (the PAB, a forfeit
                # win, a half-point bye) is a downfloat; an absence or a forfeit loss is no float
                unearned = pid == round_.bye or pid in round_.half_byes or any(g.winner == pid for g in round_.games)
                player.floats.append("down" if unearned else "")
    active = {pid: p for pid, p in everyone.items() if pid not in absent}
    for order, player in enumerate(sorted(active.values(), key=lambda p: (-p.score, p.number))):
        player.order = order
    return active, met


def _compatible(a: _Player, b: _Player, met: set[frozenset[str]], last_round_threshold: int | None) -> bool:
    """C.1 (no second meeting) and C.3 (no clash of the same absolute colour preference).

    In the last round a clash is allowed when either player is a topscorer, one with more than
    half the maximum score so far (A.7); `last_round_threshold` is that half, None before.
    """
    if frozenset((a.pid, b.pid)) in met:
        return False
    if a.absolute and b.absolute and a.preference == b.preference:
        return last_round_threshold is not None and (a.score > last_round_threshold or b.score > last_round_threshold)
    return True


def _first_colour_difference(a: _Player, b: _Player) -> tuple[str, str] | None:
    """The colours of the latest played games (counted back from each one's last) that differ (E.3)."""
    for colour_a, colour_b in zip(reversed(a.colours), reversed(b.colours), strict=False):
        if colour_a != colour_b:
            return colour_a, colour_b
    return None


def _colour_of(a: _Player, b: _Player) -> str:
    """The colour player `a` gets against `b` by the allocation rules E.1 to E.5 (white first)."""
    pref_a, pref_b = a.preference, b.preference
    higher = a if a.order < b.order else b
    if pref_a is None or pref_b is None or pref_a != pref_b:  # E.1: both granted
        if pref_a is not None:
            return pref_a
        if pref_b is not None:
            return _invert(pref_b)
        # E.5: no preference at all: the higher ranked gets white with an odd pairing number
        higher_colour = WHITE if higher.number % 2 == 0 else BLACK
        return higher_colour if a is higher else _invert(higher_colour)
    # E.2: the stronger preference (absolute beats the rest; of two absolutes, the wider imbalance)
    if a.absolute and (not b.absolute or a.colour_imbalance > b.colour_imbalance):
        return pref_a
    if b.absolute and (not a.absolute or b.colour_imbalance > a.colour_imbalance):
        return _invert(pref_b)
    if a.strong and not b.strong:
        return pref_a
    if b.strong and not a.strong:
        return _invert(pref_b)
    difference = _first_colour_difference(a, b)
    if difference is not None:  # E.3: alternate from the latest round where they differed
        return difference[1]
    # E.4: the higher ranked player's preference
    return pref_a if a is higher else _invert(pref_b)


@dataclass(frozen=True)
class _Brackets:
    """Who sits where in each bracket, used by the Dutch order digits (C.04.3 B, D)."""

    remainder: dict[int, list[str]]  # bracket -> its residents not paired with an MDP, in rank order
    s1_size: dict[int, int]  # bracket -> the number of pairs made inside its remainder


class _Weights:
    """The digit layout of one round's edge weights and the edge weight function."""

    def __init__(
        self,
        players: dict[str, _Player],
        scores: list[int],
        brackets: _Brackets,
        rounds_played: int,
        forbidden: Collection[frozenset[str]] = (),
    ) -> None:
        self.players = players
        self.forbidden = forbidden
        self.scores = scores  # distinct scores, highest first
        self.group = {score: index for index, score in enumerate(scores)}
        self.residents = {
            index: sorted((p for p in players.values() if p.score == score), key=lambda p: p.order)
            for index, score in enumerate(scores)
        }
        self.brackets = brackets
        self.resident_index = {p.pid: i for members in self.residents.values() for i, p in enumerate(members)}
        self.rounds_played = rounds_played
        self.max_difference = POINT * (rounds_played + 2)
        # Forbidden pairings (the director's): right below completion, above every Dutch criterion,
        # so a pairing that avoids them all wins whenever one exists, and otherwise the fewest.
        keys: list[tuple[object, ...]] = [("pair",), *([("forbidden",)] if forbidden else []), ("bye_score",)]
        differences = range(self.max_difference, 0, -1)
        for k in range(len(scores)):
            keys.append(("cross", k))
            keys.extend(("psd_down", k, d) for d in differences)
            keys.extend(("psd", k, d) for d in differences)
            if k + 1 < len(scores):  # C.7: the next bracket's pairs and PSD, before this one's colours
                keys.append(("next_cross", k + 1))
                keys.extend(("next_psd_down", k + 1, d) for d in differences)
                keys.extend(("next_psd", k + 1, d) for d in differences)
            keys.extend([("c10", k), ("c11", k), ("c12", k), ("c13", k)])
            keys.extend([("f14", k), ("f15", k), ("f16", k), ("f17", k)])
            keys.extend([("f18", k), ("f19", k), ("f20", k), ("f21", k)])
            above = sum(1 for p in players.values() if p.score > scores[k])
            keys.extend(("mdp", k, i) for i in range(above))
            keys.extend([("exchange", k), ("exchange_bsn", k)])
            size, half = len(brackets.remainder.get(k, [])), brackets.s1_size.get(k, 0)
            keys.extend(("keep", k, i) for i in range(half))
            keys.extend(("raise", k, i) for i in range(half, size))
            keys.extend(("s1", k, i) for i in range(size))
        self.shift: dict[tuple[object, ...], int] = {}
        shift = 0
        for key in reversed(keys):
            self.shift[key] = shift
            shift += _DIGIT_BITS * _WIDTHS.get(str(key[0]), 1)
        # bracket sequence numbers (BSN, from 0) and the size of S1 of each remainder
        self.bsn = {(k, pid): i for k, members in brackets.remainder.items() for i, pid in enumerate(members)}
        self.half = brackets.s1_size

    def _float_of(self, player: _Player, rounds_back: int) -> str:
        if len(player.floats) < rounds_back:
            return ""
        return player.floats[-rounds_back]

    def _structure(
        self, high: _Player, low_score: int, low_group: int, digits: list[tuple[tuple[object, ...], int]]
    ) -> None:
        """C.5 and C.6: `high` floats out of every bracket above `low_group`."""
        for k in range(self.group[high.score], low_group):
            digits.extend([(("cross", k), -1), (("next_cross", k), -1)])
            difference = high.score - self.scores[k] + POINT
            digits.extend([(("psd_down", k, difference), -1), (("next_psd_down", k, difference), -1)])
            if self._float_of(high, 1) == "down":
                digits.append((("f14", k), -1))
            if self._float_of(high, 2) == "down":
                digits.append((("f16", k), -1))

    def group_rank(self, player: _Player) -> int:
        """How many score groups lie below the player's (0 for the lowest)."""
        return len(self.scores) - 1 - self.group[player.score]

    def bye(self, player: _Player) -> int:
        digits: list[tuple[tuple[object, ...], int]] = [(("pair",), 1), (("bye_score",), -self.group_rank(player))]
        self._structure(player, player.score - POINT, len(self.scores), digits)
        return self._combine(digits)

    def pair(self, high: _Player, low: _Player) -> int:
        """The weight of pairing `high` (ranked above) with `low`."""
        digits: list[tuple[tuple[object, ...], int]] = [(("pair",), 1)]
        if frozenset((high.pid, low.pid)) in self.forbidden:
            digits.append((("forbidden",), -1))
        k = self.group[low.score]
        self._structure(high, low.score, k, digits)
        difference = high.score - low.score
        if difference:
            digits.extend([(("psd", k, difference), -1), (("next_psd", k, difference), -1)])
            if self._float_of(low, 1) == "up":
                digits.extend([(("f15", k), -1), (("f19", k), -difference)])
            if self._float_of(low, 2) == "up":
                digits.extend([(("f17", k), -1), (("f21", k), -difference)])
            # C.18, C.20: the score differences of repeated downfloaters, as small as possible
            if self._float_of(high, 1) == "down":
                digits.append((("f18", k), -difference))
            if self._float_of(high, 2) == "down":
                digits.append((("f20", k), -difference))
        digits.extend(((name, k), -1) for name in _colour_faults(high, low))
        if difference:
            # B/D for a heterogeneous bracket: the MDPs (S1), from the highest, take the
            # earliest residents (S2) they can; `high.order` is its rank among the players above.
            resident = self.resident_index[low.pid]
            digits.append((("mdp", k, high.order), 2 * len(self.residents[k]) - resident))
        high_bsn = self.bsn.get((k, high.pid))
        low_bsn = self.bsn.get((k, low.pid))
        if high_bsn is not None and low_bsn is not None:
            # D.2: the fewest exchanges (S1' is the set of the pairs' higher players: a pair
            # whose higher player comes from S2 is one exchange), then the smallest difference
            # of the exchanged BSNs (the smallest sum of S1's BSNs); then D.1's
            # transpositions: each higher player, from the top, gets the earliest partner.
            size = len(self.brackets.remainder[k])
            digits.append((("exchange", k), -int(high_bsn >= self.half[k])))
            digits.append((("exchange_bsn", k), -high_bsn))
            # then the S1 players exchanged as low as possible, the S2 ones as high as possible
            digits.append((("keep" if high_bsn < self.half[k] else "raise", k, high_bsn), 1))
            digits.append((("s1", k, high_bsn), 2 * size - low_bsn))
        return self._combine(digits)

    def _combine(self, digits: Iterable[tuple[tuple[object, ...], int]]) -> int:
        weight = 0
        for key, value in digits:
            shift = self.shift.get(key)
            if shift is not None:
                weight += value << shift
        return weight


def _colour_faults(a: _Player, b: _Player) -> list[str]:
    """Which colour criteria the pair breaks: C.10 (a colour difference beyond 2), C.11 (a third
    colour in a row), C.12 (a preference not granted), C.13 (a strong preference not granted)."""
    pref_a, pref_b = a.preference, b.preference
    if pref_a is None or pref_b is None or pref_a != pref_b:
        return []
    faults = ["c12"]
    if a.colour_imbalance > 1 and b.colour_imbalance > 1:
        faults.append("c10")
    if a.absolute and b.absolute:
        if a.colour_imbalance == b.colour_imbalance:
            if a.repeated_colour is not None and a.repeated_colour == b.repeated_colour:
                faults.append("c11")
        else:
            loser = b if a.colour_imbalance > b.colour_imbalance else a
            if loser.repeated_colour == _invert(pref_a):
                faults.append("c11")
    a_strong = a.strong or a.absolute
    b_strong = b.strong or b.absolute
    if a_strong and b_strong and not (a.absolute and b.absolute):
        faults.append("c13")
    return faults


def _match(
    players: dict[str, _Player],
    met: set[frozenset[str]],
    weights: _Weights,
    threshold: int | None,
) -> dict[str, str]:
    import networkx as nx  # Speed: only a Swiss round's pairing needs it (measured: 0.2 s of CPU at every server start)

    graph: nx.Graph[str] = nx.Graph()
    ordered = sorted(players.values(), key=lambda p: p.order)
    graph.add_nodes_from(p.pid for p in ordered)
    for i, high in enumerate(ordered):
        for low in ordered[i + 1 :]:
            if _compatible(high, low, met, threshold):
                graph.add_edge(high.pid, low.pid, weight=weights.pair(high, low))
    if len(ordered) % 2:
        graph.add_node(_BYE)
        for player in ordered:
            if player.bye_eligible:
                graph.add_edge(player.pid, _BYE, weight=weights.bye(player))
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    partner: dict[str, str] = {}
    for u, v in matching:
        partner[u], partner[v] = v, u
    if len(partner) != graph.number_of_nodes():
        raise SwissError("no pairing of this round meets the absolute criteria (no rematch, one bye, colours)")
    return partner


def _brackets_of(players: dict[str, _Player], scores: list[int], partner: dict[str, str] | None) -> _Brackets:
    """Each bracket's remainder (its residents not paired with an MDP) and the size of its S1 (the
    pairs made inside the remainder: C.04.3 B.2, "MaxPairs"), from the last matching, or a first
    guess (no MDPs, every remainder paired as far as its size allows) when there is none yet."""
    group = {score: index for index, score in enumerate(scores)}
    remainder: dict[int, list[str]] = {}
    inner_pairs: dict[int, int] = {}
    for player in sorted(players.values(), key=lambda p: p.order):
        k = group[player.score]
        other = None if partner is None else partner[player.pid]
        if other is not None and other != _BYE and players[other].score > player.score:
            continue  # paired with an MDP: not in the remainder
        remainder.setdefault(k, []).append(player.pid)
        if other is not None and other != _BYE and players[other].score == player.score:
            inner_pairs[k] = inner_pairs.get(k, 0) + 1
    if partner is None:
        s1_size = {k: len(members) // 2 for k, members in remainder.items()}
    else:
        s1_size = {k: inner_pairs.get(k, 0) // 2 for k in remainder}
    return _Brackets(remainder, s1_size)


def pair_round(
    players: Sequence[str],
    history: Sequence[SwissRound],
    rounds_total: int,
    absent: Collection[str] = (),
    forbidden: Collection[frozenset[str]] = (),
) -> Pairings:
    """Pair the next round by the Dutch system.

    `players` is the initial ranking (pairing number 1 first), `history` the rounds played so far,
    `absent` the withdrawn players (neither paired nor given the bye), `forbidden` the pairs the
    director forbade: an absolute criterion, relaxed only when no pairing of the round avoids
    them (then as few as possible are paired, named in ``Pairings.forced``). Raises SwissError
    when no legal pairing exists.
    """
    if len(set(players)) != len(players):
        raise ValueError("a player id is listed twice")
    active, met = _build_players(players, history, set(absent))
    if not active:
        return Pairings((), None)
    rounds_played = len(history)
    # A.7: when pairing the last round, a topscorer has more than half of the points played for
    # (in half points: more than ``rounds_played``; for whole scores the same as more than R // 2)
    threshold = rounds_played if rounds_played and rounds_played >= rounds_total - 1 else None
    scores = sorted({p.score for p in active.values()}, reverse=True)
    partner: dict[str, str] | None = None
    for _ in range(_MAX_PASSES):
        weights = _Weights(active, scores, _brackets_of(active, scores, partner), rounds_played, forbidden)
        found = _match(active, met, weights, threshold)
        if found == partner:
            break
        partner = found
    assert partner is not None
    pairings = _pairings_from(active, partner)
    forced = tuple(pair for pair in pairings.boards if frozenset(pair) in forbidden)
    return Pairings(pairings.boards, pairings.bye, forced) if forced else pairings


def _pairings_from(players: dict[str, _Player], partner: dict[str, str]) -> Pairings:
    bye = next((pid for pid, other in partner.items() if other == _BYE), None)
    pairs: list[tuple[_Player, _Player]] = []
    for pid, other in partner.items():
        if other == _BYE or pid == _BYE:
            continue
        a, b = players[pid], players[other]
        if a.order < b.order:
            pairs.append((a, b))
    pairs.sort(key=lambda pair: (-pair[0].score, -pair[1].score, pair[0].order))
    boards = []
    for high, low in pairs:
        colour = _colour_of(high, low)
        boards.append((high.pid, low.pid) if colour == WHITE else (low.pid, high.pid))
    return Pairings(tuple(boards), bye)
