"""The tournament-level check of duplicate rounds (docs/FAIRNESS.md "Checking a duplicate round"),
for ``unoduo tournament deals``: from the tournament as ``GET /api/tournaments/{id}`` gives it and
the replays of its matches, with no trust in the server.

For each round whose deal key is revealed: every match dealt from it verifies as a replay (chain,
seed, seals, shuffles, re-run: ``engine.fairness.verify``) with that key; its ``match_created`` names the
round and ``sha256(key)``; and every such match of the round opened the same first deck. Once the
tournament is finished: ``sha256(seed)`` is the creation's commitment, and each revealed key is
``engine.game.duplicate.round_deal_key(seed, round, entropies)`` with the entrants' entropies in
pairing order. Pure: the caller fetches.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.fairness.verify import verify_replay
from engine.game.duplicate import DEAL_FIELD, deal_commitment, round_deal_key
from engine.game.errors import ReplayUnreadable


@dataclass
class DealReport:
    ok: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.failures


def _first_deck(lines: list[dict[str, Any]]) -> list[int] | None:
    for line in lines:
        if line.get("type") == "round_started" and line.get("data", {}).get("restart") == 0:
            deck = line.get("open", {}).get("deck")
            return deck if isinstance(deck, list) else None
    return None


def _check_match(
    t: Mapping[str, Any], number: int, key: bytes, match_id: str, text: str, report: DealReport
) -> list[int] | None:
    """One match of the round: the replay verifies with ``key`` and names the round's deal."""
    where = f"round {number}, {match_id}"
    try:
        lines = [json.loads(line) for line in text.splitlines() if line.strip()]
        verified = verify_replay(text, deal_key=key)
    except (ReplayUnreadable, ValueError) as exc:
        report.failures.append(f"{where}: the replay cannot be read: {exc}")
        return None
    link = lines[1].get("data", {}).get(DEAL_FIELD) if len(lines) > 1 else None
    if link is None:
        report.ok.append(f"{where}: dealt on its own (a replay ruling's match), left out")
        return None
    want = {"tournament": t["id"], "round": number, "deal": deal_commitment(key)}
    if link != want:
        report.failures.append(f"{where}: match_created names {link}, not the round's deal {want}")
        return None
    if not verified.ok:
        report.failures.append(f"{where}: line {verified.line}: {verified.failure}")
        return None
    return _first_deck(lines[1:])


def check_deals(t: Mapping[str, Any], replay_of: Callable[[str], str | None]) -> DealReport:
    """Every check above on tournament ``t``; ``replay_of(match_id)`` fetches a replay's text
    (None: the server gave none). A cancelled pairing (a withdrawal) is left out: nobody played it."""
    report = DealReport()
    keys: dict[str, str] = t.get("deal_keys") or {}
    for rnd in t.get("rounds") or []:
        number = int(rnd["number"])
        key_hex = keys.get(str(number))
        if key_hex is None:
            if rnd.get("pairings"):
                report.ok.append(f"round {number}: its deal key is not revealed yet (every pairing must be decided)")
            continue
        key = bytes.fromhex(key_hex)
        decks: dict[str, list[int] | None] = {}
        for pairing in rnd.get("pairings") or []:
            if pairing.get("status") == "cancelled":
                continue
            for match_id in [*(pairing.get("annulled") or []), pairing.get("match")]:
                text = replay_of(match_id) if match_id else None
                if match_id and text is None:
                    report.failures.append(f"round {number}, {match_id}: the server gives no replay of it")
                elif match_id and text is not None:
                    decks[match_id] = _check_match(t, number, key, match_id, text, report)
        dealt = {m: d for m, d in decks.items() if d is not None}
        if len({json.dumps(d) for d in dealt.values()}) > 1:
            report.failures.append(f"round {number}: its matches did not all open the same deck")
        else:
            report.ok.append(f"round {number}: {len(dealt)} matches verify with the revealed key and opened one deck")
    seed_hex = t.get("server_seed")
    if t.get("status") != "finished" or not seed_hex:
        report.ok.append("the tournament's seed is revealed at its end: the keys' derivation is checked then")
        return report
    seed = bytes.fromhex(seed_hex)
    if hashlib.sha256(seed).hexdigest() != t.get("commitment"):
        report.failures.append("sha256 of the revealed seed is not the commitment made at creation")
        return report
    entropies = t.get("entropies") or {}
    order = [entropies.get(p["id"], "") for p in t.get("players") or []]
    for label, key_hex in sorted(keys.items(), key=lambda item: int(item[0])):
        if round_deal_key(seed, int(label), order).hex() != key_hex:
            report.failures.append(f"round {label}: the revealed key is not the one the seed and the entropies give")
    if report.passed:
        report.ok.append(
            f"seed: its sha256 is the commitment; all {len(keys)} deal keys follow from it and the entropies"
        )
    return report
