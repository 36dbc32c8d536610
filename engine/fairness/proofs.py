"""A proof of one disputed event, made during the match and revealing nothing else (docs/REPLAYS.md
"Proofs of one event", issue 25).

A dispute is otherwise settled from the replay, which exists only once the seed is revealed and
every card with it. Two rulings turn on no more than one hand, and their proof can be made while
the match is played:

- ``challenge_resolved`` (D13, D13c, D20): the verdict follows from the challenged hand, the top
  card and the colour under the match's ``wd4_rule``. The challenger was sent the openings of the
  event's ``hand`` and ``matching`` (the cards of that hand that could have been played, a
  function of the hand and the public top card): the proof carries those two and no other.
- ``uno_caught`` (D14, D22): the ruling turns on the caught hand's *size* (one card), on
  whether UNO was said since, and on whether the window was still open; all three are public.
  The proof opens nothing at all.

A proof is the public envelopes from ``match_created`` (the seed commitment) up to and including
the disputed event, the openings that event's ruling needs, and the verdict the rules give for
them (from the opened hand and the public log, not copied from the event): so a ruling the server
got wrong is proved as well as one it got right, and the checker says which. Envelopes are
what every viewer (spectators too) received; a salt is ``HMAC(seed, label)``, so the salts of the
opened fields say nothing about any other commitment. ``tools/proof_check.py`` checks a proof with
the standard library alone.

Pure: no I/O. ``unoduo proof`` and the terminal client's ``e`` key write what this returns.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from engine.game.cards import Color, parse_card
from engine.game.errors import CardParseError, ReplayUnreadable, UnoDuoError
from engine.game.rules import could_have_played
from engine.game.rulesets import WildDrawFourRule
from engine.record.chain import describe_break, first_broken_seq
from engine.record.jsonfmt import compact
from engine.record.replay import parse_replay
from engine.record.sealing import Opening, opening_problem, seal_salt

__all__ = [
    "PROOF_FORMAT",
    "PROOF_OPENINGS",
    "PROOF_VERSION",
    "ProofRefused",
    "build_proof",
    "proof_from_events",
    "proof_from_replay",
    "proof_text",
    "provable_seqs",
    "recorded_verdict",
]

PROOF_FORMAT: Final = "unoduo-proof"
PROOF_VERSION: Final = 1
ENVELOPE_KEYS: Final = ("stream", "seq", "type", "data", "sealed", "at", "prev", "hash")

# The provable events and the sealed fields of each that its proof opens: exactly these, no more.
PROOF_OPENINGS: Final[dict[str, tuple[str, ...]]] = {
    "challenge_resolved": ("hand", "matching"),
    "uno_caught": (),
}


class ProofRefused(UnoDuoError, ValueError):
    """No proof can be made of that event from what was given (said in words)."""


def _envelope(event: Mapping[str, Any]) -> dict[str, Any]:
    missing = [k for k in ENVELOPE_KEYS if k not in event]
    if missing:
        raise ProofRefused(f"an event without {', '.join(missing)}: not an envelope")
    return {k: event[k] for k in ENVELOPE_KEYS}


def _seats(envelopes: Sequence[Mapping[str, Any]]) -> int:
    seats = envelopes[0]["data"].get("seats", 2) if envelopes else 2
    return seats if isinstance(seats, int) else 2


def _involves(envelope: Mapping[str, Any], seat: int) -> bool:
    """Did ``seat`` take part in this ruling, holding what its proof opens? A challenger holds the
    challenged hand (D13); either side of a catch can prove it (it opens nothing)."""
    data = envelope["data"]
    if envelope["type"] == "challenge_resolved":
        return bool(data.get("by") == seat)
    return seat in (data.get("by"), data.get("seat"))


def provable_seqs(events: Sequence[Mapping[str, Any]], seat: int | None = None) -> list[int]:
    """The seqs of the provable events among ``events`` (those ``seat`` took part in and holds
    the openings for, when a seat is given), oldest first."""
    found = [int(e["seq"]) for e in events if e.get("type") in PROOF_OPENINGS]
    if seat is None:
        return found
    return [int(e["seq"]) for e in events if e.get("type") in PROOF_OPENINGS and _involves(e, seat)]


def _refuse_type(envelope: Mapping[str, Any]) -> None:
    if envelope["type"] not in PROOF_OPENINGS:
        raise ProofRefused(
            f"event #{envelope['seq']} ({envelope['type']}) cannot be proved on its own: only a challenge_resolved "
            "(a challenged Wild Draw Four) or an uno_caught (a caught UNO) can, during the match; any other "
            "dispute is settled from the replay"
        )


def _ruling(kind: str, seats: int, rule: str = "no_playable") -> str:
    """The rule the verdict applies: D13 (UNO Duo's challenge), D13c (a classic challenge), D20 (a
    table of 3+); D14 (a catch), D22 (a catch at a table of 3+)."""
    if kind == "challenge_resolved":
        return "D20" if seats > 2 else "D13" if rule == "no_playable" else "D13c"
    return "D22" if seats > 2 else "D14"


# Commands with which a seat begins a turn and so closes every other seat's UNO window (D14, D22).
_TURN_OPENING: Final = frozenset({"play", "draw", "accept", "challenge", "dump"})


class _PublicTable:
    """The public log folded (public fields only): each seat's hand size, the top card, the active
    colour, the UNO windows, and the last Wild Draw Four (its seat, the cards it left, what it was
    played on). ``tools/proof_check.py`` folds the same way, written again with the stdlib."""

    def __init__(self, seats: int) -> None:
        self.seats = seats
        self.counts = [0] * seats
        self.open = [False] * seats
        self.top: str | None = None
        self.colour: str | None = None
        self.four: tuple[int, int, str | None, str | None] | None = None

    def _new_round(self) -> None:
        self.counts, self.open = [0] * self.seats, [False] * self.seats
        self.top = self.colour = None
        self.four = None

    def fold(self, e: Mapping[str, Any]) -> None:
        d, t = e["data"], e["type"]
        if t == "round_started":
            self._new_round()
        elif t == "cards_dealt":
            self.counts = [int(c) for c in d["counts"]]
        elif t == "drafted":
            self.counts[d["seat"]] += 1
        elif t in ("command", "timed_out"):
            action = d.get("command") if t == "command" else d.get("action")
            if isinstance(action, Mapping) and action.get("type") in _TURN_OPENING:
                self.open = [o and i == d["seat"] for i, o in enumerate(self.open)]
        elif t == "starter_turned":
            self.top, self.colour = d["code"], _colour_of(d["code"])
        elif t == "color_chosen":
            self.colour = d["color"]
        elif t == "card_played":
            seat = d["seat"]
            self.counts[seat] -= 1
            self.open[seat] = self.counts[seat] == 1 and not d.get("uno")
            if d["code"] == "W+4":
                self.four = (seat, self.counts[seat], self.top, self.colour)
            self.top, self.colour = d["code"], d["color"]
        elif t == "cards_drawn":
            self.counts[d["seat"]] += d["count"]
            self.open[d["seat"]] = False
        elif t in ("uno_said", "uno_caught", "match_forfeited"):
            self.open[d["seat"]] = False
        elif t == "challenge_resolved":
            self.four = None


def _colour_of(code: str) -> str | None:
    card = parse_card(code)
    return card.color.value if card.color is not None else None


def _folded(envelopes: Sequence[Mapping[str, Any]], seats: int) -> _PublicTable:
    table = _PublicTable(seats)
    for e in envelopes:
        try:
            table.fold(e)
        except (KeyError, TypeError, ValueError, IndexError, CardParseError) as exc:
            raise ProofRefused(f"event #{e['seq']} ({e['type']}): its public data cannot be read ({exc})") from None
    return table


def _challenge_verdict(
    envelopes: Sequence[Mapping[str, Any]], ruleset: Mapping[str, Any], hand: Sequence[str], seats: int
) -> dict[str, Any]:
    """What D13 gives for the opened hand, on the card and colour the public log says the Wild
    Draw Four was played on (whatever the event itself recorded)."""
    event = envelopes[-1]
    data = event["data"]
    four = _folded(envelopes[:-1], seats).four
    if four is None:
        raise ProofRefused(f"event #{event['seq']}: no Wild Draw Four was played before it in this round")
    _seat, _left, top_code, colour = four
    try:
        rule = WildDrawFourRule(str(ruleset.get("wd4_rule")))
        top = parse_card(top_code)
        cards = [parse_card(code) for code in hand]
    except (CardParseError, ValueError) as exc:
        raise ProofRefused(f"event #{event['seq']}: the hand or the top card cannot be read ({exc})") from None
    matching = [c.code for c in cards if could_have_played(c, top, Color(colour) if colour else None, rule)]
    loser, count = (data["player"], 4) if matching else (data["by"], int(ruleset.get("failed_challenge_draw", 6)))
    return {
        "ruling": _ruling("challenge_resolved", seats, rule.value),
        "verdict": "illegal" if matching else "legal",
        "by": data["by"],
        "player": data["player"],
        "wd4_rule": rule.value,
        "top": top.code,
        "color": colour,
        "hand_size": len(cards),
        "matching": matching,
        "draws": {"seat": loser, "count": count},
    }


def _catch_verdict(envelopes: Sequence[Mapping[str, Any]], ruleset: Mapping[str, Any], seats: int) -> dict[str, Any]:
    """What D14 gives: caught when the seat held one card, undeclared, its window still open."""
    data = envelopes[-1]["data"]
    table = _folded(envelopes[:-1], seats)
    seat = data["seat"]
    if not (isinstance(seat, int) and 0 <= seat < seats):
        raise ProofRefused(f"event #{envelopes[-1]['seq']}: seat {seat!r} is not a seat of the table")
    caught = table.counts[seat] == 1 and table.open[seat]
    return {
        "ruling": _ruling("uno_caught", seats),
        "verdict": "caught" if caught else "not caught",
        "seat": seat,
        "by": data["by"],
        "hand_size": table.counts[seat],
        "draws": {"seat": seat, "count": int(ruleset.get("uno_penalty", 2))} if caught else None,
    }


def recorded_verdict(proof: Mapping[str, Any]) -> str:
    """The verdict the log recorded for the proof's event (a catch records only "caught")."""
    event = proof["envelopes"][-1]
    return str(event["data"].get("verdict")) if event["type"] == "challenge_resolved" else "caught"


def build_proof(
    events: Sequence[Mapping[str, Any]], openings: Mapping[str, Mapping[str, Any]], seq: int | None = None
) -> dict[str, Any]:
    """The proof of event ``seq`` (default: the last provable one) of this log, from seq 1.

    ``events`` are the match's envelopes in order (anything beside the envelope's keys, such as
    ``open``, is dropped); ``openings`` are the disputed event's openings the caller holds
    (``{name: {"value", "salt"}}``), of which only those :data:`PROOF_OPENINGS` names are kept.
    ProofRefused when the log is not whole from seq 1, the event cannot be proved, or an opening
    it needs is missing or does not open its commitment."""
    if not events:
        raise ProofRefused("no events: nothing to prove")
    if seq is None:
        seqs = provable_seqs(events)
        if not seqs:
            raise ProofRefused("no challenged Wild Draw Four and no caught UNO in this log: nothing to prove")
        seq = seqs[-1]
    if not 1 <= seq <= len(events):
        raise ProofRefused(f"there is no event #{seq} here (the log holds #1 to #{len(events)})")
    envelopes = [_envelope(e) for e in events[:seq]]
    broken = first_broken_seq(envelopes)
    if broken is not None:
        raise ProofRefused(f"the log does not link from its first event: {describe_break(envelopes, broken)}")
    first, event = envelopes[0], envelopes[-1]
    if first["type"] != "match_created":
        raise ProofRefused("the log does not start with match_created (the seed commitment)")
    _refuse_type(event)
    names = PROOF_OPENINGS[event["type"]]
    opened: dict[str, Opening] = {}
    for name in names:
        opening = openings.get(name)
        if opening is None:
            by = event["data"].get("by")
            raise ProofRefused(
                f"event #{seq}: you hold no opening of its '{name}': only the challenger (seat {by}) is sent the "
                "challenged hand during play (D13); after the match, make the proof from the replay"
            )
        problem = opening_problem(event, name, opening)
        if problem is not None:
            raise ProofRefused(f"event #{seq}: {problem}")
        opened[name] = Opening(value=opening["value"], salt=str(opening["salt"]))
    ruleset = first["data"].get("ruleset") or {}
    seats = _seats(envelopes)
    try:
        if event["type"] == "challenge_resolved":
            verdict = _challenge_verdict(envelopes, ruleset, opened["hand"]["value"], seats)
        else:
            verdict = _catch_verdict(envelopes, ruleset, seats)
    except (KeyError, TypeError, AttributeError) as exc:
        raise ProofRefused(f"event #{seq}: its public data cannot be read ({exc!r})") from None
    stream = str(first["stream"])
    return {
        "format": PROOF_FORMAT,
        "version": PROOF_VERSION,
        "match": stream.removeprefix("match-"),
        "ruleset": ruleset.get("name"),
        "wd4_rule": ruleset.get("wd4_rule"),
        "commitment": first["data"].get("commitment"),
        "event": {"seq": seq, "type": event["type"], "hash": event["hash"]},
        "open": opened,
        "verdict": verdict,
        "envelopes": envelopes,
    }


def proof_from_events(events: Sequence[Mapping[str, Any]], seq: int | None = None) -> dict[str, Any]:
    """The proof from a viewer's log: each envelope with the ``open`` (value and salt) it was sent,
    as the server's events endpoint and live socket give them."""
    if seq is None:
        seqs = provable_seqs(events)
        seq = seqs[-1] if seqs else None
    disputed = events[seq - 1] if seq is not None and 1 <= seq <= len(events) else {}
    openings = disputed.get("open") or {}
    if not isinstance(openings, Mapping):
        raise ProofRefused(f"event #{seq}: its open is not an object")
    return build_proof(events, openings, seq)


def proof_from_replay(text: str, seq: int | None = None) -> dict[str, Any]:
    """The proof from a finished match's replay file: its values, the salts recomputed from the
    revealed seed (only the disputed event's, only the fields its proof opens)."""
    try:
        header, lines = parse_replay(text)
    except ReplayUnreadable as exc:
        raise ProofRefused(str(exc)) from None
    if not lines or lines[-1].get("type") != "seed_revealed":
        raise ProofRefused("the replay's last event does not reveal the seed: not a finished match's replay")
    duplicate = isinstance(lines[0].get("data"), Mapping) and "duplicate" in lines[0]["data"]
    try:  # a duplicate round's match is salted with its round's deal key (docs/FAIRNESS.md)
        seed = bytes.fromhex(str(header["deal_key"] if duplicate else lines[-1]["data"]["server_seed"]))
    except (KeyError, TypeError, ValueError):
        raise ProofRefused("the replay's revealed seed (or a duplicate round's deal key) is not hex") from None
    if seq is None:
        seqs = provable_seqs(lines)
        seq = seqs[-1] if seqs else None
    openings: dict[str, Opening] = {}
    if seq is not None and 1 <= seq <= len(lines):
        line = lines[seq - 1]
        values = line.get("open") or {}
        for name in PROOF_OPENINGS.get(str(line.get("type")), ()):
            if name in values:
                salt = seal_salt(seed, str(line["stream"]), int(line["seq"]), name)
                openings[name] = Opening(value=values[name], salt=salt.hex())
    return build_proof(lines, openings, seq)


def proof_text(proof: Mapping[str, Any]) -> str:
    """The proof file: JSON, one key a line and one envelope a line (readable, diffable, small)."""
    head = [f"  {json.dumps(k)}: {compact(v)}" for k, v in proof.items() if k != "envelopes"]
    rows = [f"    {compact(e)}" for e in proof.get("envelopes", [])]
    body = ",\n".join([*head, '  "envelopes": [\n' + ",\n".join(rows) + "\n  ]"])
    return "{\n" + body + "\n}\n"
