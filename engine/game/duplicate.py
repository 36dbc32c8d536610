"""Duplicate rounds (docs/FAIRNESS.md "Duplicate rounds"): every match of a round on one deal.

A tournament with ``duplicate`` on deals every match of round ``r`` from one **deal key**:

- the round seed ``R_r = HMAC-SHA256(T, f"duplicate:round:{r}")``, ``T`` the tournament's seed
  (committed by ``tournament_created``, revealed by ``tournament_finished``);
- the deal key ``K_r = sha256(R_r | e_1 | … | e_n)``: :func:`engine.game.shuffle.shuffle_key` of
  the round seed and every entrant's entropy (given on entering, "" if none), in pairing order;
- a match ``m`` of the round: its server seed ``S_m = HMAC-SHA256(K_r, f"duplicate:match:{m}")``
  (committed by its ``match_created`` as any match's), every shuffle keyed by ``K_r`` (so the
  same labels give the same orders in every match of the round) and every seal salted by
  ``K_r``; ``match_created`` carries ``duplicate: {tournament, round, deal}`` with
  ``deal = sha256(K_r)``.

The match's own ``seed_revealed`` reveals ``S_m``, which opens nothing (the seals and the
shuffles are under ``K_r``); the tournament reveals ``K_r`` once every pairing of the round is
decided (``duplicate_revealed``). Pure: no I/O.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping, Sequence
from typing import Any, Final

from engine.game.shuffle import Dealer, commitment_of, shuffle_key

ROUND_LABEL: Final = "duplicate:round:{round}"
MATCH_LABEL: Final = "duplicate:match:{match}"
DEAL_FIELD: Final = "duplicate"  # match_created's field naming the round a match was dealt from


def round_seed(tournament_seed: bytes, round_number: int) -> bytes:
    """``R_r``: secret until the tournament's seed is revealed; one round's gives no other's."""
    label = ROUND_LABEL.format(round=round_number).encode()
    return hmac.new(tournament_seed, label, hashlib.sha256).digest()


def deal_key(round_seed_bytes: bytes, entropies: Sequence[str]) -> bytes:
    """``K_r = sha256(R_r | e_1 | … | e_n)``: the entrants' entropies in pairing order."""
    return shuffle_key(round_seed_bytes, *entropies)


def round_deal_key(tournament_seed: bytes, round_number: int, entropies: Sequence[str]) -> bytes:
    return deal_key(round_seed(tournament_seed, round_number), entropies)


def deal_commitment(key: bytes) -> str:
    """``sha256(K_r)``: what every match of the round names in ``match_created``."""
    return commitment_of(key)


def match_seed(key: bytes, match_id: str) -> bytes:
    """``S_m``: the server seed of match ``match_id`` dealt from ``key``."""
    return hmac.new(key, MATCH_LABEL.format(match=match_id).encode(), hashlib.sha256).digest()


def duplicate_dealer(key: bytes, match_id: str) -> Dealer:
    """The dealer of a duplicate match: seed ``S_m``, shuffles and seals under ``key``."""
    return Dealer(match_seed(key, match_id), deal_key=key)


def deal_link(tournament_id: str, round_number: int, key: bytes) -> dict[str, Any]:
    """``match_created``'s ``duplicate`` field."""
    return {"tournament": tournament_id, "round": round_number, "deal": deal_commitment(key)}


def dealer_of_secret(secret: bytes, match_id: str, commitment: str | None) -> Dealer:
    """The dealer a stored match secret gives: the match's own seed (its sha256 is the
    commitment), else a duplicate round's deal key, from which the seed derives."""
    if commitment and commitment_of(secret) != commitment:
        dealer = duplicate_dealer(secret, match_id)
        if commitment_of(dealer.server_seed) == commitment:
            return dealer
    return Dealer(secret)


def link_problem(created: Mapping[str, Any], match_id: str, key: bytes, revealed_seed: bytes) -> str | None:
    """Why ``key`` is not the deal key of this match, or None: ``sha256(key)`` is the ``deal``
    of ``match_created`` and the revealed seed is ``HMAC(key, "duplicate:match:{m}")``."""
    link = created.get(DEAL_FIELD)
    if not isinstance(link, Mapping):
        return "match_created names no duplicate round"
    if deal_commitment(key) != link.get("deal"):
        return f"sha256 of the deal key is {deal_commitment(key)[:16]}… but match_created's deal is {str(link.get('deal'))[:16]}…"
    if match_seed(key, match_id) != revealed_seed:
        return "the revealed seed is not HMAC-SHA256(deal key, 'duplicate:match:<match>')"
    return None
