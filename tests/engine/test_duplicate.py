"""Duplicate rounds' seed scheme (engine/game/duplicate.py, docs/FAIRNESS.md "Duplicate rounds")."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import UNO_DUO, LocalMatch, Phase
from engine.fairness.verify import verify_replay
from engine.game.commands import CreateMatch, JoinSeat
from engine.game.duplicate import (
    deal_commitment,
    deal_link,
    dealer_of_secret,
    duplicate_dealer,
    match_seed,
    round_deal_key,
)
from engine.game.events import EventType
from engine.game.shuffle import Dealer, commitment_of
from engine.record.replay import header_line, replay_line, sealed_log, stream_of
from tests.engine.playing import next_actor, random_command
from tests.profiles import examples
from tools import replay_check

SEED = bytes(range(32))
ENTROPIES = ("ana's", "", "ben")

seeds = st.binary(min_size=32, max_size=32)
entropy_lists = st.lists(st.text(max_size=12), min_size=2, max_size=6)


def play_duplicate(match_id: str, key: bytes, entropies: tuple[str, str] = ("", ""), rng_seed: int = 1) -> LocalMatch:
    """A whole uno-duo match of random legal commands dealt from ``key``, as a tournament makes it."""
    dealer = duplicate_dealer(key, match_id)
    match = LocalMatch(dealer=dealer)
    link = deal_link("t_1", 1, key)
    match.apply(CreateMatch(UNO_DUO, commitment_of(dealer.server_seed), 0, ("Ana", "Ben"), None, link))
    for seat, entropy in enumerate(entropies):
        match.apply(JoinSeat(seat, entropy))
    rng = random.Random(rng_seed)
    while match.state.phase is not Phase.MATCH_OVER:
        seat = next_actor(match.state, rng)
        match.act(seat, random_command(match.state, seat, rng, play_bias=0.6))
    return match


def replay_of(match_id: str, match: LocalMatch, key: bytes | None) -> str:
    """The replay file a server writes: sealed under the deal key; the key in the header (once revealed)."""
    sealed = sealed_log(match.events, stream_of(match_id), match.dealer.seal_seed)
    lines = [header_line(match_id, "uno-duo", ["p_a", "p_b"], deal_key=key)]
    return "\n".join(lines + [replay_line(s.envelope, s.openings) for s in sealed]) + "\n"


def decks(match: LocalMatch) -> dict[int, list[int]]:
    return {e.data["round"]: e.data["deck"] for e in match.events if e.type == EventType.ROUND_STARTED}


@settings(max_examples=examples(40), deadline=None)
@given(seeds, st.integers(1, 30), entropy_lists, st.text(min_size=1, max_size=8), st.text(min_size=1, max_size=8))
def test_every_match_of_a_round_gets_the_same_deck_order(
    seed: bytes, round_number: int, entropies: list[str], first: str, second: str
) -> None:
    key = round_deal_key(seed, round_number, entropies)
    one, two = duplicate_dealer(key, "m_" + first), duplicate_dealer(key, "m_x" + second)
    for r in (1, 2, 5):
        assert one.round_deck(["a", "b"], r, 112) == two.round_deck(
            ["c", "d"], r, 112
        )  # the seats' entropy moves nothing
    assert one.server_seed != two.server_seed  # each match's own seed: its seals and bot chance apart


@settings(max_examples=examples(40), deadline=None)
@given(seeds, st.integers(1, 30), st.integers(1, 30), entropy_lists)
def test_different_rounds_and_entropies_deal_differently(seed: bytes, r: int, s: int, entropies: list[str]) -> None:
    if r == s:
        s = r + 1
    one, two = round_deal_key(seed, r, entropies), round_deal_key(seed, s, entropies)
    assert one != two
    assert Dealer(SEED, deal_key=one).round_deck([], 1, 112) != Dealer(SEED, deal_key=two).round_deck([], 1, 112)
    assert round_deal_key(seed, r, [*entropies, "x"]) != one  # every entrant's entropy counts


@settings(max_examples=examples(20), deadline=None)
@given(seeds, st.text(max_size=10))
def test_the_stored_secret_gives_the_right_dealer(seed: bytes, match_id: str) -> None:
    key = round_deal_key(seed, 1, ENTROPIES)
    dealer = dealer_of_secret(key, match_id, commitment_of(match_seed(key, match_id)))
    assert dealer == duplicate_dealer(key, match_id)
    assert dealer_of_secret(seed, match_id, commitment_of(seed)) == Dealer(seed)  # any other match: as before
    assert dealer.seal_seed == key and Dealer(seed).seal_seed == seed


def test_two_duplicate_matches_share_their_decks_and_both_replays_verify(tmp_path: Path) -> None:
    key = round_deal_key(SEED, 1, ENTROPIES)
    one = play_duplicate("m_t1_1_1", key, ("x", "y"), rng_seed=1)
    two = play_duplicate("m_t1_1_2", key, ("z", ""), rng_seed=2)
    shared = set(decks(one)) & set(decks(two))
    assert 1 in shared and all(decks(one)[r] == decks(two)[r] for r in shared)
    created = one.events[0].data
    assert created["duplicate"] == {"tournament": "t_1", "round": 1, "deal": deal_commitment(key)}
    for match_id, match in (("m_t1_1_1", one), ("m_t1_1_2", two)):
        text = replay_of(match_id, match, key)
        report = verify_replay(text)
        assert report.ok, report.failure
        assert any(c.startswith("deal:") for c in report.checks)
        path = tmp_path / f"{match_id}.jsonl"
        path.write_text(text, encoding="utf-8")
        assert replay_check.main([str(path)]) == 0


def test_without_the_revealed_key_a_duplicate_replay_does_not_verify() -> None:
    key = round_deal_key(SEED, 1, ENTROPIES)
    text = replay_of("m_a", play_duplicate("m_a", key), None)
    report = verify_replay(text)
    assert not report.ok and "deal key" in str(report.failure)
    assert verify_replay(text, deal_key=key).ok


def test_a_tampered_round_key_fails_the_check(tmp_path: Path) -> None:
    key = round_deal_key(SEED, 1, ENTROPIES)
    other = round_deal_key(SEED, 2, ENTROPIES)
    match = play_duplicate("m_a", key)
    text = replay_of("m_a", match, other)
    report = verify_replay(text)
    assert not report.ok and report.line == 2 and "does not belong" in str(report.failure)
    path = tmp_path / "m_a.jsonl"
    path.write_text(text, encoding="utf-8")
    assert replay_check.main([str(path)]) == 1


def test_a_deck_dealt_from_another_key_is_caught() -> None:
    """A server that dealt one match of the round from another order cannot pass it off as the round's."""
    key, other = round_deal_key(SEED, 1, ENTROPIES), round_deal_key(SEED, 1, ("forged",))
    match = play_duplicate("m_a", other)
    lines = [json.loads(t) for t in replay_of("m_a", match, other).splitlines()]
    lines[0]["deal_key"] = key.hex()
    report = verify_replay("\n".join(json.dumps(line) for line in lines) + "\n")
    assert not report.ok


def test_the_match_seed_reveals_nothing_of_the_deal() -> None:
    """``seed_revealed`` gives S_m = HMAC(K, …): the shuffles and the seals are under K."""
    key = round_deal_key(SEED, 1, ENTROPIES)
    match = play_duplicate("m_a", key)
    revealed = bytes.fromhex(match.events[-1].data["server_seed"])
    assert revealed == match_seed(key, "m_a") != key
    deck = decks(match)[1]
    assert list(Dealer(revealed).round_deck(match.events[-1].data["entropies"], 1, 112)) != deck


def test_old_matches_are_dealt_exactly_as_before() -> None:
    plain = Dealer(SEED)
    assert plain.deal_key is None and plain.key(["a", "b"]) != plain.key(["a", "c"])
    made = LocalMatch.start(SEED, UNO_DUO, ("a", "b"))
    assert "duplicate" not in made.events[0].data
    assert any(e.type == EventType.ROUND_STARTED for e in made.events)


def test_the_code_in_fairness_md_derives_the_same_keys() -> None:
    """docs/FAIRNESS.md's snippets, run in order as the page says, agree with engine/game/duplicate.py."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "FAIRNESS.md").read_text(encoding="utf-8")
    namespace: dict[str, object] = {}
    for block in re.findall(r"```python\n(.*?)```", text, re.S):
        exec(block, namespace)  # the page's own code, as an auditor would run it
    rng = random.Random(3)
    for r in range(1, 6):
        seed, entropies = rng.randbytes(32), [str(rng.random()) for _ in range(rng.randrange(1, 5))]
        key = round_deal_key(seed, r, entropies)
        assert namespace["deal_key"](seed, r, entropies) == key  # type: ignore[operator]
        assert namespace["duplicate_match_seed"](key, f"m_{r}") == match_seed(key, f"m_{r}")  # type: ignore[operator]
