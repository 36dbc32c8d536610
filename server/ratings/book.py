"""The rating book: every player's rating in each ruleset family, folded from match results.

Pure: :class:`Book` holds the ratings, :meth:`Book.rate` takes one :class:`Result` and returns
the :class:`Change` of each seat it rated; a rebuild is ``Book()`` fed every result in the order
the matches ended, so the same results always give the same ratings to the last bit.

Families (docs/RATINGS.md): ``uno-duo`` (the ``uno-duo`` ruleset, two seats) is rated by
Glicko-2 with lichess's constants, each match a rating period of its own and the deviation
widened by the days since the player's last match; ``classic`` (``classic-2p`` and ``classic``
tables of 2 to 10) by OpenSkill's Plackett–Luce on the places, a two-seat classic match being a
table of two, so that one family has one model and one scale. A rating is *provisional* while
its deviation is :data:`PROVISIONAL_DEVIATION` or more, as lichess marks it.

A seat's identity is whoever the rating belongs to (a person, a bot account, or a house bot's
engine: every ``greedy-N`` shares ``bot:greedy``'s rating, see ``server.services.ratings``).
When one identity holds several seats of a match (two greedy bots at one table), the others are
rated against each of those seats as usual and that identity itself is not updated by the match.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Final

from server.ratings.glicko2 import LICHESS, PROVISIONAL_DEVIATION, Rating, periods_between, rate_match
from server.ratings.tables import TableRating, newcomer, rate_table, shown

__all__ = ["FAMILIES", "Book", "Change", "PlayerRating", "Result", "family_of"]

UNO_DUO: Final = "uno-duo"
CLASSIC: Final = "classic"
FAMILIES: Final = (UNO_DUO, CLASSIC)
_FAMILY_OF_RULESET: Final = {"uno-duo": UNO_DUO, "classic-2p": CLASSIC, "classic": CLASSIC}


def family_of(ruleset: str | None) -> str | None:
    """The rating family of a ruleset name (None: a ruleset no family rates)."""
    return _FAMILY_OF_RULESET.get(ruleset or "")


@dataclass(frozen=True)
class Result:
    """One match as the ratings read it: ``seats`` the rating identities in seat order,
    ``places`` each seat's final place (1 first; two seats: the winner 1, the other 2), ``at``
    when it ended (ISO UTC)."""

    match: str
    family: str
    at: str
    seats: tuple[str, ...]
    places: tuple[int, ...]

    def __post_init__(self) -> None:
        if self.family not in FAMILIES:
            raise ValueError(f"unknown rating family {self.family!r}")
        if len(self.seats) < 2 or len(self.seats) != len(self.places):
            raise ValueError(f"a rated match needs two or more seats and one place each: {self}")
        if self.family == UNO_DUO and (len(self.seats) != 2 or sorted(self.places) != [1, 2]):
            raise ValueError(f"an uno-duo match has two seats, a winner and a loser: {self}")


@dataclass(frozen=True)
class PlayerRating:
    """One identity's rating in one family: Glicko-2's ``rating/deviation/volatility`` for
    uno-duo; OpenSkill's ``mu/sigma`` for classic (``rating`` and ``deviation`` then the shown
    values, ``volatility`` 0). ``games``: rated matches; ``last_at``: when the last one ended."""

    rating: float
    deviation: float
    volatility: float = 0.0
    mu: float | None = None
    sigma: float | None = None
    games: int = 0
    last_at: str | None = None

    @property
    def provisional(self) -> bool:
        return self.deviation >= PROVISIONAL_DEVIATION

    def glicko(self) -> Rating:
        return Rating(self.rating, self.deviation, self.volatility)

    def table(self) -> TableRating:
        assert self.mu is not None and self.sigma is not None
        return TableRating(self.mu, self.sigma)


def newcomer_in(family: str) -> PlayerRating:
    if family == UNO_DUO:
        r = LICHESS.newcomer()
        return PlayerRating(r.rating, r.deviation, r.volatility)
    t = newcomer()
    rating, deviation = shown(t)
    return PlayerRating(rating, deviation, mu=t.mu, sigma=t.sigma)


@dataclass(frozen=True)
class Change:
    """What one match did to one identity's rating."""

    match: str
    identity: str
    family: str
    at: str
    before: float
    after: float
    deviation: float  # after the match


def _days(since: str | None, until: str) -> float | None:
    if since is None:
        return None
    delta = datetime.fromisoformat(until) - datetime.fromisoformat(since)
    return delta.total_seconds() / 86400.0


@dataclass
class Book:
    """Ratings by (identity, family); a newcomer's until their first rated match."""

    ratings: dict[tuple[str, str], PlayerRating] = field(default_factory=dict)

    def of(self, identity: str, family: str) -> PlayerRating:
        return self.ratings.get((identity, family)) or newcomer_in(family)

    def rate(self, result: Result) -> list[Change]:
        """Rate one match; the changes in seat order (none for an identity holding several seats)."""
        before = [self.of(identity, result.family) for identity in result.seats]
        if result.family == UNO_DUO:
            after = self._glicko(result, before)
        else:
            after = self._tables(result, before)
        repeated = {identity for identity, n in Counter(result.seats).items() if n > 1}
        changes = []
        for identity, old, new in zip(result.seats, before, after, strict=True):
            if identity in repeated:
                continue
            rated = PlayerRating(new.rating, new.deviation, new.volatility, new.mu, new.sigma, old.games + 1, result.at)
            self.ratings[(identity, result.family)] = rated
            changes.append(
                Change(result.match, identity, result.family, result.at, old.rating, rated.rating, rated.deviation)
            )
        return changes

    @staticmethod
    def _glicko(result: Result, before: Sequence[PlayerRating]) -> list[PlayerRating]:
        first, second = before
        periods = tuple(1.0 if (days := _days(p.last_at, result.at)) is None else periods_between(days) for p in before)
        a, b = rate_match(first.glicko(), second.glicko(), result.places[0] == 1, LICHESS, (periods[0], periods[1]))
        return [PlayerRating(r.rating, r.deviation, r.volatility) for r in (a, b)]

    @staticmethod
    def _tables(result: Result, before: Sequence[PlayerRating]) -> list[PlayerRating]:
        rated = rate_table([p.table() for p in before], result.places)
        out = []
        for t in rated:
            rating, deviation = shown(t)
            out.append(PlayerRating(rating, deviation, mu=t.mu, sigma=t.sigma))
        return out
