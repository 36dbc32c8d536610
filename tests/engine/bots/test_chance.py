"""The house bots' chance (engine/game/shuffle.py ``Dealer.bot_chance``, docs/FAIRNESS.md "House bots' chance").

It is the documented HMAC stream under the server seed (an auditor's own implementation,
tests/house_bot_chance.py, gives the same draws); the same (seed, match, version, seat) gives
the same draws, any other gives other draws; and nothing public about a match predicts it.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.bots import get_bot
from engine.game.shuffle import ChanceRandom, Dealer, RandomStream, bot_chance_label, commitment_of
from tests.chance_bounds import most_hits_by_chance
from tests.engine.bots.helpers import craft_view
from tests.house_bot_chance import HouseBotChance
from tests.profiles import examples

SEEDS = st.binary(min_size=32, max_size=32)
MATCH_IDS = st.text(min_size=1, max_size=40)
VERSIONS = st.integers(min_value=0, max_value=10**6)
SEATS = st.sampled_from([0, 1])


def draws(rng: random.Random) -> list[object]:
    """A bit of everything a bot could ask of its chance."""
    items = list(range(10))
    rng.shuffle(items)
    return [
        rng.choice(["a", "b", "c"]),
        rng.randrange(1, 1000),
        rng.getrandbits(1),
        rng.getrandbits(13),
        rng.getrandbits(64),
        rng.getrandbits(70),
        rng.random(),
        items,
        rng.sample(range(100), 5),
        rng.randint(1, 6),
    ]


@settings(max_examples=examples(60), deadline=None)
@given(SEEDS, MATCH_IDS, VERSIONS, SEATS)
def test_the_bots_chance_is_the_published_stream(seed: bytes, match_id: str, version: int, seat: int) -> None:
    engine = Dealer(seed).bot_chance(match_id, version, seat)
    auditor = HouseBotChance(seed, match_id, version, seat)
    assert draws(engine) == draws(auditor)


@settings(max_examples=examples(30), deadline=None)
@given(SEEDS, MATCH_IDS, VERSIONS, SEATS)
def test_the_same_decision_gets_the_same_chance(seed: bytes, match_id: str, version: int, seat: int) -> None:
    """Two processes, or a repeated drive, ask the bot the same question with the same chance."""
    first, again = Dealer(seed).bot_chance(match_id, version, seat), Dealer(seed).bot_chance(match_id, version, seat)
    assert draws(first) == draws(again)


def test_every_seed_match_version_and_seat_has_its_own_chance() -> None:
    seeds = [hashlib.sha256(bytes([i])).digest() for i in range(3)]
    firsts = {
        (s, m, v, seat): Dealer(s).bot_chance(m, v, seat).getrandbits(128)
        for s in seeds
        for m in ("m1", "m2", "m:1")
        for v in range(40)
        for seat in (0, 1)
    }
    assert len(set(firsts.values())) == len(firsts)
    # The label names one (match, version, seat) only, whatever the match id holds.
    assert bot_chance_label("a:1", 2, 0) != bot_chance_label("a", 12, 0)
    assert bot_chance_label("m", 3, 1) == "house-bot:m:3:1"


def test_a_bot_chance_cannot_be_re_seeded_or_saved() -> None:
    rng = Dealer(b"\x01" * 32).bot_chance("m", 1, 0)
    with pytest.raises(TypeError):
        rng.seed(5)
    with pytest.raises(TypeError):
        rng.getstate()
    with pytest.raises(TypeError):
        rng.setstate(())
    with pytest.raises(IndexError):
        rng.choice([])
    with pytest.raises(ValueError):
        rng.getrandbits(-1)
    assert rng.getrandbits(0) == 0 and isinstance(rng, ChanceRandom)


def test_bot_random_chooses_uniformly_with_it() -> None:
    """Each of four legal commands, and each colour of a wild, about a quarter of the time."""
    legal = [{"type": "play", "card": "W"}, {"type": "draw"}, {"type": "play", "card": "R3"}, {"type": "pass"}]
    seen = craft_view(legal=legal, hand=["W", "R3"])
    bot = get_bot("random")
    counts: dict[str, int] = {}
    for version in range(4000):
        choice = bot.choose(seen, Dealer(b"\x02" * 32).bot_chance("m", version, 1))
        key = choice.get("color") or choice["type"] + choice.get("card", "")
        counts[key] = counts.get(key, 0) + 1
    for key in ("draw", "playR3", "pass"):
        assert 850 <= counts[key] <= 1150, counts  # 1000 expected, sd 27
    for colour in ("red", "yellow", "green", "blue"):
        assert 180 <= counts[colour] <= 320, counts  # 250 expected, sd 15


Public = Callable[[str, int, int, str], random.Random]  # (match id, version, seat, commitment) -> a guess

PUBLIC_SCHEMES: dict[str, Public] = {
    "Random(match:version), the scheme before issue 19": lambda m, v, s, c: random.Random(f"{m}:{v}"),
    "Random(match:version:seat)": lambda m, v, s, c: random.Random(f"{m}:{v}:{s}"),
    "the derivation keyed by the commitment": lambda m, v, s, c: HouseBotChance(bytes.fromhex(c), m, v, s),
    "the derivation keyed by sha256(match id)": lambda m, v, s, c: HouseBotChance(
        hashlib.sha256(m.encode()).digest(), m, v, s
    ),
    "the derivation keyed by zeros": lambda m, v, s, c: HouseBotChance(bytes(32), m, v, s),
}


@pytest.mark.parametrize("scheme", list(PUBLIC_SCHEMES))
def test_nothing_public_about_a_match_predicts_its_bots_chance(scheme: str) -> None:
    """2,000 two-way choices over 50 matches: a guess from public data hits about half of them."""
    guess = PUBLIC_SCHEMES[scheme]
    hits = 0
    for match in range(50):
        seed = hashlib.sha256(f"secret {match}".encode()).digest()
        match_id, commitment = f"m{match}", commitment_of(seed)
        for version in range(20):
            for seat in (0, 1):
                truth = Dealer(seed).bot_chance(match_id, version, seat).choice([0, 1])
                hits += truth == guess(match_id, version, seat, commitment).choice([0, 1])
    assert hits <= most_hits_by_chance([0.5] * 2000), f"{scheme}: {hits} of 2000"


def test_it_is_not_the_shuffle_stream_nor_a_seal_salt() -> None:
    """The bots' stream is its own: other messages under the seed, another key than the shuffle's."""
    from engine.record.sealing import seal_salt

    seed = b"\x03" * 32
    stream = RandomStream(seed, bot_chance_label("m", 5, 1)).read(32)
    assert stream != seal_salt(seed, "match-m", 5, "codes")
    assert stream != RandomStream(Dealer(seed).key(["", ""]), bot_chance_label("m", 5, 1)).read(32)
