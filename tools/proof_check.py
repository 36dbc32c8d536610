#!/usr/bin/env python3
# mypy: allow-any-generics
"""Check an unoduo proof of one event with nothing but Python's standard library.

    python3 proof_check.py PROOF [--match ID] [--receipt SEQ:HASH ...] [--replay FILE]

A proof (docs/REPLAYS.md "Proofs of one event") settles one disputed ruling during the match:
a challenged Wild Draw Four (`challenge_resolved`, D13/D13c/D20) or a caught UNO (`uno_caught`,
D14/D22). In order, stopping at the first failure:
1. shape: format `unoduo-proof` version 1, its keys and nothing more; every envelope has exactly
   the keys of an envelope (nothing opened inside one);
2. chain: seq counts from 1 on the match's stream, each prev is the hash before it, each hash is
   recomputed; the first event is match_created with the proof's commitment, ruleset and
   wd4_rule; the last is the disputed event, with the proof's seq, type and hash;
3. openings: exactly the fields the ruling needs are opened (a challenge: `hand` and `matching`
   of the disputed event; a catch: none), and each opens its commitment;
4. the public log, folded: each seat's hand size, the top card, the active colour and the UNO
   windows, from the public fields alone;
5. the verdict: the proof's `verdict` must be what the rules give for the opened hand on the
   public log (a challenge: the hand's cards that could have been played on the card and colour
   the Wild Draw Four was played on, under wd4_rule; a catch: one card, UNO unsaid, the window
   open). Then the event's own record of the ruling is held against it: the head, the hand's
   size (the cards the Wild Draw Four left: no card dropped or added), the evidence, `matching`,
   the verdict; for a catch, the caught hand's one card and open window.
6. anchors, when given: --match (the proof is of that match), --receipt (an event's hash as
   another viewer received it: a re-hashed, edited chain fails here), --replay (the finished
   match's replay holds the same envelopes, and its seed, or a duplicate round's deal key,
   gives the opened salts).

The chain alone proves the events link to the commitment, not that they are the server's: whoever
edits an event can hash the chain again. Compare the disputed event's hash (printed) with another
viewer's receipt or the replay. Exit 0 with a one-line verdict; 1 when a check fails; 3 when the
proof holds but the log's ruling is not what the rules give (a wrong ruling, proved: whose, the
anchors say); 2 when the file cannot be read.
"""

import argparse
import hashlib
import hmac
import json
import sys
from collections import Counter

ENVELOPE = {"stream": str, "seq": int, "type": str, "data": dict, "sealed": dict, "at": str, "prev": str, "hash": str}
HASHED = ("stream", "seq", "type", "data", "sealed", "at", "prev")
PROOF_KEYS = {
    "format",
    "version",
    "match",
    "ruleset",
    "wd4_rule",
    "commitment",
    "event",
    "open",
    "verdict",
    "envelopes",
}
OPENS = {"challenge_resolved": ["hand", "matching"], "uno_caught": []}  # what each ruling needs opened
TURN_OPENING = {"play", "draw", "accept", "challenge", "dump"}  # a seat begins a turn: others' UNO windows close
RUN = ["0"] + [n for n in "123456789" for _ in "ab"] + ["S", "S", "R", "R", "+2", "+2"]
COLOURS = {"R": "red", "Y": "yellow", "G": "green", "B": "blue"}
RULES = ("no_playable", "no_colour_match", "no_match")
MISSING = object()


class Unreadable(Exception):
    """Not a proof file at all: exit 2."""


class Failed(Exception):
    """A check does not hold: exit 1."""


class Contradicted(Exception):
    """The proof holds, and shows that the log's ruling is not what the rules give: exit 3."""


# ---------------------------------------------------------------- the algorithms of FAIRNESS.md


def canonical(value: object) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def envelope_hash(event: dict) -> str:
    return hashlib.sha256(canonical({k: event[k] for k in HASHED})).hexdigest()


def seal_salt(seed: bytes, stream: str, seq: int, name: str) -> bytes:
    return hmac.new(seed, f"seal:{stream}:{seq}:{name}".encode(), hashlib.sha256).digest()


def commitment(salt: bytes, value: object) -> str:
    return hashlib.sha256(salt + canonical(value)).hexdigest()


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def faces(deck_size: int) -> list[str]:
    """Card code by card id: R, Y, G, B each 0 1 1 .. 9 9 S S R R +2 +2, then the W, then four W+4."""
    return [c + r for c in "RYGB" for r in RUN] + ["W"] * (deck_size - 104) + ["W+4"] * 4


# ---------------------------------------------------------------- the rules the verdicts turn on


def colour_of(code: str) -> str | None:
    return None if code in ("W", "W+4") else COLOURS.get(code[:1])


def rank_of(code: str) -> str:
    return code if code in ("W", "W+4") else code[1:]


def could_have_played(code: str, top: str, colour: str | None, rule: str) -> bool:
    """D13 / D13c: does this card, left in the hand, make the Wild Draw Four illegal?"""
    own = colour_of(code)
    if rule == "no_colour_match":  # the official rules' challenge: a card of the active colour
        return own is not None and own == colour
    if rule == "no_match":  # D13c: colour, number or symbol of the top; a wild matches nothing
        return own is not None and (own == colour or rank_of(code) == rank_of(top))
    if code == "W+4":  # no_playable (D13): any card that could be played, a plain Wild too
        return False
    return code == "W" or own == colour or rank_of(code) == rank_of(top)


# ---------------------------------------------------------------- the checks


def short(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def same(what: str, expected: object, found: object) -> None:
    """Fail unless found is expected; for two objects, name the first key that differs."""
    if expected == found:
        return
    if isinstance(expected, dict) and isinstance(found, dict):
        key = next(k for k in [*expected, *found] if expected.get(k, MISSING) != found.get(k, MISSING))
        what, expected, found = f"{what}, its {key}", expected.get(key, "(none)"), found.get(key, "(none)")
        same(what, expected, found)
    raise Failed(f"{what}: expected {short(expected)}, found {short(found)}")


def read(text: str) -> dict:
    try:
        proof = json.loads(text)
    except json.JSONDecodeError as exc:
        raise Unreadable(f"not JSON: {exc.msg} (line {exc.lineno})") from None
    if not isinstance(proof, dict) or proof.get("format") != "unoduo-proof":
        raise Unreadable("not an unoduo-proof (no format 'unoduo-proof')")
    if type(proof.get("version")) is not int or proof["version"] != 1:
        raise Unreadable(f"a proof of version {short(proof.get('version'))}; this checker reads version 1")
    return proof


def check_shape(proof: dict) -> list[dict]:
    same("the proof's keys", sorted(PROOF_KEYS), sorted(proof))
    envelopes = proof["envelopes"]
    if not isinstance(envelopes, list) or not envelopes:
        raise Failed("envelopes is not a list of events")
    for i, e in enumerate(envelopes, start=1):
        if not isinstance(e, dict):
            raise Failed(f"envelope {i} is not an object")
        same(f"envelope {i}'s keys (an envelope only: nothing opened in it)", sorted(ENVELOPE), sorted(e))
        for key, kind in ENVELOPE.items():
            if type(e[key]) is not kind:
                raise Failed(f"envelope {i}: '{key}' is not a JSON {kind.__name__}")
    for key, kind in (("event", dict), ("open", dict), ("verdict", dict), ("match", str), ("commitment", str)):
        if not isinstance(proof[key], kind):
            raise Failed(f"'{key}' is not a JSON {kind.__name__}")
    return envelopes


def check_chain(proof: dict, envelopes: list[dict]) -> dict:
    stream, prev = f"match-{proof['match']}", "0" * 64
    for n, e in enumerate(envelopes, start=1):
        same(f"#{n}: stream", stream, e["stream"])
        same(f"#{n}: seq", n, e["seq"])
        same(f"#{n} ({e['type']}): prev, the hash of the event before", prev, e["prev"])
        same(f"#{n} ({e['type']}): hash, the sha256 of its canonical envelope", envelope_hash(e), e["hash"])
        prev = e["hash"]
    first, last = envelopes[0], envelopes[-1]
    same("#1, the first event", "match_created", first["type"])
    ruleset = first["data"].get("ruleset")
    if not (isinstance(ruleset, dict) and ruleset.get("deck_size") in (108, 112) and ruleset.get("wd4_rule") in RULES):
        raise Failed("#1: the ruleset has no deck_size of 108 or 112, or no known wd4_rule")
    same("#1: the seed commitment, against the proof's", proof["commitment"], first["data"].get("commitment"))
    same("#1: the ruleset's name, against the proof's", proof["ruleset"], ruleset.get("name"))
    same("#1: the ruleset's wd4_rule, against the proof's", proof["wd4_rule"], ruleset.get("wd4_rule"))
    claimed = {"seq": last["seq"], "type": last["type"], "hash": last["hash"]}
    same("the disputed event (the proof's last envelope)", proof["event"], claimed)
    if last["type"] not in OPENS:
        raise Failed(f"#{last['seq']} is a {last['type']}: a proof is of a challenge_resolved or an uno_caught")
    return ruleset


def check_openings(proof: dict, event: dict, deck: list[str]) -> None:
    opened, wanted = proof["open"], OPENS[event["type"]]
    same(f"the fields opened (a {event['type']} opens these and no other)", sorted(wanted), sorted(opened))
    for name in wanted:
        opening = opened[name]
        if not isinstance(opening, dict) or sorted(opening) != ["salt", "value"]:
            raise Failed(f"the opening of '{name}' is not {{value, salt}}")
        if name not in event["sealed"]:
            raise Failed(f"'{name}' is not a sealed field of #{event['seq']}")
        try:
            salt = bytes.fromhex(opening["salt"])
        except (TypeError, ValueError):
            raise Failed(f"the salt of '{name}' is not hex") from None
        if len(salt) != 32:
            raise Failed(f"the salt of '{name}' is not 32 bytes")
        same(
            f"#{event['seq']}.{name}: sha256(salt + canonical(opened value))",
            event["sealed"][name],
            commitment(salt, opening["value"]),
        )
        value = opening["value"]
        if not (isinstance(value, list) and all(isinstance(c, str) and c in deck for c in value)):
            raise Failed(f"#{event['seq']}.{name}: not a list of card codes of this deck")
        over = [c for c, k in Counter(value).items() if k > deck.count(c)]
        if over:
            raise Failed(f"#{event['seq']}.{name}: more {over[0]} than the deck holds")


class Table:
    """The public log folded: hand sizes, top card, active colour, UNO windows, the last Wild Draw Four."""

    def __init__(self, seats: int) -> None:
        self.seats = seats
        self.counts, self.open = [0] * seats, [False] * seats
        self.top: str | None = None
        self.colour: str | None = None
        self.four: dict | None = None  # the last Wild Draw Four played: seat, cards left, top and colour before

    def close_others(self, seat: int) -> None:
        self.open = [o and i == seat for i, o in enumerate(self.open)]

    def fold(self, e: dict) -> None:
        d, t = e["data"], e["type"]
        if t == "round_started":
            self.counts, self.open = [0] * self.seats, [False] * self.seats
            self.top = self.colour = self.four = None
        elif t == "cards_dealt":
            self.counts = [int(c) for c in d["counts"]]
        elif t == "drafted":
            self.counts[d["seat"]] += 1
        elif t == "command" and d["command"].get("type") in TURN_OPENING:
            self.close_others(d["seat"])
        elif t == "timed_out" and d.get("action") and d["action"].get("type") in TURN_OPENING:
            self.close_others(d["seat"])
        elif t == "starter_turned":
            self.top, self.colour = d["code"], colour_of(d["code"])
        elif t == "color_chosen":
            self.colour = d["color"]
        elif t == "card_played":
            seat = d["seat"]
            self.counts[seat] -= 1
            if self.counts[seat] < 0:
                raise Failed(f"#{e['seq']}: seat {seat} plays a card it does not have (by the public counts)")
            one = self.counts[seat] == 1
            self.open[seat] = one and not d.get("uno")
            if d["code"] == "W+4":
                self.four = {"seat": seat, "left": self.counts[seat], "top": self.top, "colour": self.colour}
            self.top, self.colour = d["code"], d["color"]
        elif t == "cards_drawn":
            self.counts[d["seat"]] += d["count"]
            self.open[d["seat"]] = False
        elif t in ("uno_said", "uno_caught", "match_forfeited"):
            self.open[d["seat"]] = False
        elif t == "challenge_resolved":
            self.four = None


def fold_public(envelopes: list[dict], seats: int) -> Table:
    table = Table(seats)
    for e in envelopes:
        try:
            table.fold(e)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
            raise Failed(f"#{e['seq']} ({e['type']}): malformed public data ({exc!r})") from None
    return table


def head_of(envelopes: list[dict]) -> tuple[int, str]:
    """(seat, command type) of the disputed event's head: the seat's command or its timeout's action."""
    if len(envelopes) < 2:
        raise Failed("the disputed event has no head before it")
    head = envelopes[-2]
    d = head["data"]
    if head["type"] == "command" and isinstance(d.get("command"), dict):
        return d.get("seat"), d["command"].get("type")
    if head["type"] == "timed_out" and isinstance(d.get("action"), dict):
        return d.get("seat"), d["action"].get("type")
    raise Failed(f"#{head['seq']}: the disputed event does not follow a command (found a {head['type']})")


def differs(findings: list[str], what: str, rules: object, logged: object) -> None:
    """Note where the log's own record of the ruling is not what the rules and the public log give."""
    if rules != logged:
        findings.append(f"{what}: the rules give {short(rules)}, the event has {short(logged)}")


def check_challenge(proof: dict, envelopes: list[dict], ruleset: dict, seats: int) -> tuple[str, list[str]]:
    """The challenge's words, and where its recorded ruling contradicts the rules (empty: it holds)."""
    event = envelopes[-1]
    d, n = event["data"], event["seq"]
    table = fold_public(envelopes[:-1], seats)
    by, player = d.get("by"), d.get("player")
    same(f"#{n - 1}: the head (the challenger's challenge)", (by, "challenge"), head_of(envelopes))
    four = table.four
    if four is None:
        raise Failed(f"#{n}: no Wild Draw Four was played since the last challenge or round start")
    same(f"#{n}: player, the seat that played the last Wild Draw Four", four["seat"], player)
    if by == player:
        raise Failed(f"#{n}: the challenger is the player")
    rule, evidence = ruleset["wd4_rule"], d.get("evidence")
    if not isinstance(evidence, dict):
        raise Failed(f"#{n}: no evidence")
    hand, matching = proof["open"]["hand"]["value"], proof["open"]["matching"]["value"]
    could = [c for c in hand if could_have_played(c, four["top"], four["colour"], rule)]
    verdict = "illegal" if could else "legal"
    draws = {"seat": player, "count": 4}
    if not could:
        draws = {"seat": by, "count": int(ruleset.get("failed_challenge_draw", 6))}
    expected = {
        "ruling": "D20" if seats > 2 else "D13" if rule == "no_playable" else "D13c",
        "verdict": verdict,
        "by": by,
        "player": player,
        "wd4_rule": rule,
        "top": four["top"],
        "color": four["colour"],
        "hand_size": len(hand),
        "matching": could,
        "draws": draws,
    }
    same("the proof's verdict (what the rules give for the opened hand on the public log)", expected, proof["verdict"])
    findings: list[str] = []
    differs(findings, f"#{n}: evidence.rule, the ruleset's wd4_rule", rule, evidence.get("rule"))
    differs(findings, f"#{n}: evidence.top, the card it was played on", four["top"], evidence.get("top"))
    differs(findings, f"#{n}: evidence.color, the colour it was played on", four["colour"], evidence.get("color"))
    left = "the challenged hand's size (the cards the Wild Draw Four left, by the public counts)"
    differs(findings, f"#{n}: {left}", four["left"], len(hand))
    differs(findings, f"#{n}: matching, the cards that could have been played under {rule}", could, matching)
    differs(findings, f"#{n}: the verdict", verdict, d.get("verdict"))
    held = f"held {', '.join(could)}, playable" if could else "held no card playable"
    words = (
        f"#{n} challenge_resolved ({expected['ruling']}): {verdict} — seat {player}'s hand of {len(hand)} {held} "
        f"on {four['top']} ({four['colour']}) under {rule}; seat {draws['seat']} draws {draws['count']}"
    )
    return words, findings


def check_catch(proof: dict, envelopes: list[dict], ruleset: dict, seats: int) -> tuple[str, list[str]]:
    """The catch's words, and where the recorded catch contradicts D14 / D22 (empty: it holds)."""
    event = envelopes[-1]
    d, n = event["data"], event["seq"]
    table = fold_public(envelopes[:-1], seats)
    seat, by = d.get("seat"), d.get("by")
    if not (isinstance(seat, int) and isinstance(by, int) and 0 <= seat < seats and 0 <= by < seats and seat != by):
        raise Failed(f"#{n}: seat and by are not two seats of the table")
    same(f"#{n - 1}: the head (the catcher's uno)", (by, "uno"), head_of(envelopes))
    held, window = table.counts[seat], table.open[seat]
    caught = held == 1 and window
    draws = {"seat": seat, "count": int(ruleset.get("uno_penalty", 2))} if caught else None
    expected = {
        "ruling": "D22" if seats > 2 else "D14",
        "verdict": "caught" if caught else "not caught",
        "seat": seat,
        "by": by,
        "hand_size": held,
        "draws": draws,
    }
    same("the proof's verdict (what the rules give on the public log)", expected, proof["verdict"])
    findings: list[str] = []
    differs(findings, f"#{n}: seat {seat}'s hand size (public counts)", 1, held)
    if held == 1 and not window:
        findings.append(f"#{n}: seat {seat}'s UNO window was closed (said, or a turn begun since)")
    if caught:
        words = (
            f"#{n} uno_caught ({expected['ruling']}): caught — seat {seat} held one card, UNO unsaid, the window "
            f"open, when seat {by} said UNO; seat {seat} draws {draws['count'] if draws else 0}"
        )
    else:
        words = f"#{n} uno_caught ({expected['ruling']}): not caught — seat {seat} could not be caught when seat {by} said UNO"
    return words, findings


def check_receipt(envelopes: list[dict], text: str) -> str:
    seq_text, _, digest = text.partition(":")
    if not seq_text.isdigit() or len(digest) != 64:
        raise Unreadable(f"a receipt is SEQ:HASH (a number, a colon, 64 hex digits), not {text!r}")
    seq = int(seq_text)
    if not 1 <= seq <= len(envelopes):
        raise Failed(f"receipt #{seq} lies beyond this proof (it holds #1 to #{len(envelopes)})")
    same(f"#{seq}: its hash against the receipt", digest.lower(), envelopes[seq - 1]["hash"])
    return f"receipt #{seq}"


def check_replay(proof: dict, envelopes: list[dict], path: str) -> str:
    with open(path, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    lines = rows[1:]
    if len(lines) < len(envelopes) or not lines or lines[-1].get("type") != "seed_revealed":
        raise Failed(f"{path} is not the replay of a finished match holding #1 to #{len(envelopes)}")
    for e in envelopes:
        same(f"#{e['seq']}: its hash against the replay's", lines[e["seq"] - 1].get("hash"), e["hash"])
    seed = bytes.fromhex(lines[-1]["data"]["server_seed"])
    same("the replay's seed against the commitment", proof["commitment"], sha(seed))
    link = envelopes[0]["data"].get("duplicate")
    if isinstance(link, dict):  # a duplicate round's seals are salted with its deal key (docs/FAIRNESS.md)
        seed = bytes.fromhex(rows[0].get("deal_key") or "")
        same("sha256(the replay's deal_key) against match_created's duplicate.deal", link.get("deal"), sha(seed))
    last = envelopes[-1]
    for name, opening in proof["open"].items():
        same(
            f"the salt of '{name}', from the revealed seed",
            seal_salt(seed, last["stream"], last["seq"], name).hex(),
            opening["salt"],
        )
    return "the replay"


def check(text: str, match: str | None = None, receipts: tuple[str, ...] = (), replay: str | None = None) -> str:
    """The one-line verdict of a proof that holds. Failed (or Unreadable) names what does not hold;
    Contradicted says that the proof holds but the log's own ruling breaks the rules."""
    proof = read(text)
    envelopes = check_shape(proof)
    ruleset = check_chain(proof, envelopes)
    seats = envelopes[0]["data"].get("seats", 2)
    if not (type(seats) is int and 2 <= seats <= 10):
        raise Failed(f"#1: seats is not a number from 2 to 10: {short(seats)}")
    event = envelopes[-1]
    check_openings(proof, event, faces(ruleset["deck_size"]))
    try:
        if event["type"] == "challenge_resolved":
            words, findings = check_challenge(proof, envelopes, ruleset, seats)
        else:
            words, findings = check_catch(proof, envelopes, ruleset, seats)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        raise Failed(f"#{event['seq']}: malformed data ({exc!r})") from None
    if match is not None:
        same("the match", match, proof["match"])
    anchors = [check_receipt(envelopes, r) for r in receipts]
    if replay is not None:
        anchors.append(check_replay(proof, envelopes, replay))
    anchored = f"; anchored by {', '.join(anchors)}" if anchors else f"; hash {event['hash']}"
    if findings:
        whose = "" if anchors else " (the server's, if every viewer received that hash: check with --receipt)"
        raise Contradicted(
            f"proof holds, RULING CONTRADICTED: match {proof['match']} {words}; but {'; '.join(findings)}"
            f"{anchored}{whose}"
        )
    return f"proof ok: match {proof['match']} {words}{anchored}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Check an unoduo proof of one event (a challenge or a caught UNO).")
    parser.add_argument("file", help="a proof file (unoduo proof -o FILE)")
    parser.add_argument("--match", help="the match the proof must be of")
    parser.add_argument(
        "--receipt", action="append", default=[], help="SEQ:HASH another viewer kept; repeat for several"
    )
    parser.add_argument("--replay", help="the finished match's replay file (.jsonl), to hold the proof against")
    args = parser.parse_args(argv)
    try:
        with open(args.file, encoding="utf-8") as f:
            text = f.read()
        print(check(text, args.match, tuple(args.receipt), args.replay))
    except (OSError, UnicodeDecodeError, Unreadable) as exc:
        print(f"proof_check: {args.file}: {exc}", file=sys.stderr)
        return 2
    except json.JSONDecodeError as exc:
        print(f"proof_check: --replay: not JSON lines ({exc.msg})", file=sys.stderr)
        return 2
    except Failed as exc:
        print(f"proof FAILED: {exc}")
        return 1
    except Contradicted as exc:
        print(exc)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
