#!/usr/bin/env python3
# mypy: allow-any-generics
"""Check an unoduo replay file (format 2) with nothing but Python's standard library.

    python3 replay_check.py FILE

In order, stopping at the first failure and naming its line (docs/REPLAYS.md explains each):
1. lines: a version 2 header, then one envelope (stream, seq, type, data, sealed, at, prev,
   hash) plus `open` per line, all on the match's stream;
2. chain: seq counts from 1, each prev is the hash before it, each hash is recomputed;
3. seed: the first event is match_created, the last seed_revealed, whose seed's sha256 is the
   commitment made at creation;
4. sealed: every sealed field is opened, and its value opens the commitment with the salt
   recomputed from the seed (nothing unsealed is opened);
5. shuffles: the revealed entropies (one per seat, 2 to 10) are those the players gave; every
   cut, round deck and shuffled recycle is recomputed from the seed and the entropies; their
   labels count up;
6. faces: every card code beside a card id is that id's face in the canonical deck.

Not the rules: which cards a draw takes or a recycle gathers, who wins a cut, whether a play
or a challenge was legal, any score. A score, colour or verdict edited, with the chain rebuilt,
passes here; `unoduo verify FILE` catches it by re-running every decision through the engine.
Exit 0 when every check holds, 1 when one fails, 2 when the file cannot be read.
"""

import argparse
import hashlib
import hmac
import json
import sys

KEYS = {"stream": str, "seq": int, "type": str, "data": dict, "sealed": dict, "at": str, "prev": str, "hash": str}
HASHED = ("stream", "seq", "type", "data", "sealed", "at", "prev")
RUN = ["0"] + [n for n in "123456789" for _ in "ab"] + ["S", "S", "R", "R", "+2", "+2"]
ONE, MANY = [("card", "code")], [("cards", "codes")]  # (card id field, card code field): the same cards
FACES = {"cut": MANY, "draft_completed": MANY, "cards_drawn": MANY, "starter_turned": ONE, "awaiting": ONE}
FACES |= {"card_played": ONE, "drafted": [("pile_card", "pile_code"), ("hand_card", "hand_code")]}


class Unreadable(Exception):
    """Not a version 2 replay file at all: exit 2."""


class Failed(Exception):
    """A check does not hold on line `line` of the file: exit 1."""

    def __init__(self, line: int, what: str) -> None:
        super().__init__(f"line {line}: {what}")
        self.line = line


# ---------------------------------------------------------------- the algorithms of FAIRNESS.md


def canonical(value: object) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def envelope_hash(event: dict) -> str:
    return hashlib.sha256(canonical({k: event[k] for k in HASHED})).hexdigest()


def seal_salt(seed: bytes, stream: str, seq: int, name: str) -> bytes:
    return hmac.new(seed, f"seal:{stream}:{seq}:{name}".encode(), hashlib.sha256).digest()


def commitment(salt: bytes, value: object) -> str:
    return hashlib.sha256(salt + canonical(value)).hexdigest()


def shuffle_key(seed: bytes, *entropies: str) -> bytes:
    """sha256(seed | e0 | e1 | ... | e{N-1}): every seat's entropy, in seat order."""
    return hashlib.sha256(seed + b"".join(b"|" + e.encode() for e in entropies)).digest()


class Stream:
    """The bytes HMAC-SHA256(key, f"{label}:{i}") for i = 0, 1, 2, ... end to end."""

    def __init__(self, key: bytes, label: str) -> None:
        self.key, self.label, self.block, self.buffer = key, label, 0, b""

    def below(self, n: int) -> int:
        """A uniform integer in 0 .. n-1: 8 bytes big-endian, the biased top values thrown away."""
        limit = 2**64 - 2**64 % n
        while True:
            while len(self.buffer) < 8:
                self.buffer += hmac.new(self.key, f"{self.label}:{self.block}".encode(), hashlib.sha256).digest()
                self.block += 1
            x, self.buffer = int.from_bytes(self.buffer[:8], "big"), self.buffer[8:]
            if x < limit:
                return x % n


def shuffle(ids: list[int], key: bytes, label: str) -> list[int]:
    """Fisher-Yates from the back; index 0 of the result is the top of the pile."""
    out, stream = list(ids), Stream(key, label)
    for i in range(len(out) - 1, 0, -1):
        j = stream.below(i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def faces(deck_size: int) -> list[str]:
    """Card code by card id: R, Y, G, B each 0 1 1 .. 9 9 S S R R +2 +2, then the W, then four W+4."""
    return [c + r for c in "RYGB" for r in RUN] + ["W"] * (deck_size - 104) + ["W+4"] * 4


# ---------------------------------------------------------------- the checks


def short(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."


def same(n: int, what: str, expected: object, found: object) -> None:
    """Fail line n unless found is expected; for two lists of one length, name the first difference."""
    if expected == found:
        return
    if isinstance(expected, list) and isinstance(found, list) and len(expected) == len(found):
        i = next(i for i in range(len(found)) if expected[i] != found[i])
        what, expected, found = f"{what}, at index {i}", expected[i], found[i]
    raise Failed(n, f"{what}: expected {short(expected)}, found {short(found)}")


def read(text: str) -> tuple[dict, list[dict]]:
    rows = []
    for n, line in enumerate([t for t in text.splitlines() if t.strip()], start=1):
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise Unreadable(f"line {n} is not JSON: {exc.msg}") from None
        if not isinstance(rows[-1], dict):
            raise Unreadable(f"line {n} is not a JSON object")
    if not rows or rows[0].get("format") != "unoduo-replay" or rows[0].get("version") != 2:
        raise Unreadable("line 1 is not the header of an unoduo-replay of version 2")
    return rows[0], rows[1:]


def check_lines(header: dict, events: list[dict]) -> str:
    for key in ("match", "ruleset", "players", "engine"):
        if key not in header:
            raise Failed(1, f"the header has no '{key}'")
    if not events:
        raise Failed(1, "the replay holds no events")
    stream = f"match-{header['match']}"
    for n, e in enumerate(events, start=2):
        same(n, "the line's keys", sorted([*KEYS, "open"]), sorted(e))
        for key, kind in [*KEYS.items(), ("open", dict)]:
            if not isinstance(e[key], kind):
                raise Failed(n, f"'{key}' is not a JSON {kind.__name__}")
        same(n, "stream", stream, e["stream"])
    return f"lines: a version 2 header and {len(events)} event lines on stream {stream}"


def check_chain(events: list[dict]) -> str:
    prev = "0" * 64
    for n, e in enumerate(events, start=2):
        same(n, "seq", n - 1, e["seq"])
        same(n, "prev (the hash of the line before)", prev, e["prev"])
        same(n, "hash (sha256 of the canonical envelope)", envelope_hash(e), e["hash"])
        prev = e["hash"]
    return f"chain: {len(events)} hashes recomputed, every link holds"


def check_seed(events: list[dict]) -> bytes:
    last, ruleset = len(events) + 1, events[0]["data"].get("ruleset")
    same(2, "the first event", "match_created", events[0]["type"])
    if not (isinstance(ruleset, dict) and ruleset.get("deck_size") in (108, 112) and "recycle" in ruleset):
        raise Failed(2, "the ruleset has no deck_size of 108 or 112, or no recycle rule")
    same(last, "the last event (a finished match reveals its seed)", "seed_revealed", events[-1]["type"])
    try:
        seed = bytes.fromhex(events[-1]["data"]["server_seed"])
    except (KeyError, TypeError, ValueError):
        raise Failed(last, "server_seed is not hex") from None
    found = hashlib.sha256(seed).hexdigest()
    same(last, "sha256(server_seed) against the commitment of line 2", events[0]["data"].get("commitment"), found)
    return seed


def check_deal(header: dict, events: list[dict], seed: bytes, given: str | None) -> bytes | None:
    """A duplicate round's deal key K (FAIRNESS.md), which keys its shuffles and seals; None for others."""
    link, match = events[0]["data"].get("duplicate"), events[0]["stream"].removeprefix("match-")
    if link is None:
        return None
    try:
        key = bytes.fromhex(given if given is not None else header["deal_key"])
        same(2, "sha256(deal key) against duplicate.deal", link["deal"], hashlib.sha256(key).hexdigest())
    except (KeyError, TypeError, ValueError):
        raise Failed(2, "a duplicate round's match: its deal key (header deal_key or --deal-key) is needed") from None
    derived = hmac.new(key, f"duplicate:match:{match}".encode(), hashlib.sha256).hexdigest()
    same(len(events) + 1, "server_seed against HMAC(deal key, 'duplicate:match:<match>')", derived, seed.hex())
    return key


def check_sealed(events: list[dict], seed: bytes) -> str:
    for n, e in enumerate(events, start=2):
        same(n, "the opened fields against the sealed ones", sorted(e["sealed"]), sorted(e["open"]))
        for name, digest in e["sealed"].items():
            found = commitment(seal_salt(seed, e["stream"], e["seq"], name), e["open"][name])
            same(n, f"{e['type']}.{name}: sha256(salt + canonical(opened value))", digest, found)
    return f"sealed: all {sum(len(e['sealed']) for e in events)} commitments open with their values"


def seat_count(events: list[dict]) -> int:
    """match_created's `seats` (a table of 2 to 10; a two-seat match may not record it)."""
    seats = events[0]["data"].get("seats", 2)
    if not (type(seats) is int and 2 <= seats <= 10):
        raise Failed(2, f"seats is not a number from 2 to 10: {short(seats)}")
    return seats


def check_shuffles(events: list[dict], seed: bytes, deal: bytes | None = None) -> str:
    revealed, ruleset, seats = events[-1]["data"].get("entropies"), events[0]["data"]["ruleset"], seat_count(events)
    size = ruleset["deck_size"]
    if not (isinstance(revealed, list) and len(revealed) == seats and all(isinstance(x, str) for x in revealed)):
        raise Failed(len(events) + 1, f"entropies is not a list of {seats} strings, one per seat")
    key = shuffle_key(seed, *revealed) if deal is None else deal
    cuts = rnd = restart = recycles = decks = shuffled = 0
    for n, e in enumerate(events, start=2):
        d, o = e["data"], e["open"]
        try:
            if e["type"] == "seat_joined":
                same(n, f"seat {d['seat']}'s entropy, as seed_revealed gives it", revealed[d["seat"]], o["entropy"])
            elif e["type"] == "cut":
                same(n, "the cut's number", cuts, d["cut"])
                same(n, f"cards of cut:{cuts}", shuffle(list(range(size)), key, f"cut:{cuts}")[:seats], o["cards"])
                cuts += 1
            elif e["type"] == "round_started":
                r, k = d["round"], d["restart"]
                if (r, k) != (rnd + 1, 0) and not (rnd and (r, k) == (rnd, restart + 1)):
                    raise Failed(n, f"round {r} restart {k} cannot follow round {rnd} restart {restart}")
                label = f"round:{r}:deck" if k == 0 else f"round:{r}:deck:{k}"
                same(n, f"deck of {label}", shuffle(list(range(size)), key, label), o["deck"])
                rnd, restart, recycles, decks = r, k, 0, decks + 1
            elif e["type"] == "pile_recycled":
                recycles += 1
                same(n, f"the recycle's number in round {rnd}", recycles, d["recycle"])
                same(n, "count, the cards of the new pile", len(o["cards"]), d["count"])
                if ruleset["recycle"] == "shuffle":
                    label = f"round:{rnd}:recycle:{recycles}"
                    same(n, f"cards of {label}", shuffle(sorted(o["cards"]), key, label), o["cards"])
                    shuffled += 1
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise Failed(n, f"{e['type']}: malformed data ({exc!r})") from None
    source = "the round's deal key" if deal else f"the seed and the {seats} seats' entropies"
    return f"shuffles: {cuts} cuts, {decks} decks, {shuffled} recycles recomputed from {source}"


def check_faces(events: list[dict]) -> str:
    face, count = faces(events[0]["data"]["ruleset"]["deck_size"]), 0
    for n, e in enumerate(events, start=2):
        whole = {**e["data"], **e["open"]}
        try:
            pairs = [(whole[i], whole[c], c) for i, c in FACES.get(e["type"], []) if i in whole and c in whole]
            if e["type"] == "cards_dealt":  # each hand's codes, sorted by card id (a seat that left: none)
                hands = [whole.get(f"hand{s}", []) for s in range(len(whole["cards"]))]
                pairs = [(sorted(ids), hands[s], f"hand{s}") for s, ids in enumerate(whole["cards"])]
            for ids, codes, name in pairs:
                named = [face[i] for i in ids] if isinstance(ids, list) else face[ids]
                same(n, f"{e['type']}.{name}, the faces of its card ids", named, codes)
                count += 1
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise Failed(n, f"{e['type']}: malformed data ({exc!r})") from None
    return f"faces: {count} card codes are the faces of the card ids beside them"


def check(text: str, ok: list[str], deal_key: str | None = None) -> None:
    """Append an `ok` line per check that holds; raise Failed at the first that does not."""
    header, events = read(text)
    ok.append(check_lines(header, events))
    ok.append(check_chain(events))
    seed = check_seed(events)
    ok.append("seed: sha256(server_seed) on the last line is the commitment on line 2")
    deal = check_deal(header, events, seed, deal_key)  # None unless a duplicate round's match
    ok.append(check_sealed(events, seed if deal is None else deal))
    ok.append(check_shuffles(events, seed, deal))
    ok.append(check_faces(events))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Check an unoduo replay's chain, seed, seals and shuffles.")
    parser.add_argument("file", help="a replay file (.jsonl) of a finished match")
    parser.add_argument("--deal-key", help="a duplicate round's deal key (hex); default: the header's deal_key")
    args = parser.parse_args(argv)
    ok: list[str] = []
    failure: Failed | None = None
    try:
        with open(args.file, encoding="utf-8") as f:
            check(f.read(), ok, args.deal_key)
    except (OSError, UnicodeDecodeError, Unreadable) as exc:
        print(f"replay_check: {args.file}: {exc}", file=sys.stderr)
        return 2
    except Failed as exc:
        failure = exc
    for line in ok:
        print(f"ok  {line}")
    if failure is not None:
        print(f"FAIL {failure}")
        return 1
    print(f"checked: {args.file} (not the rules: `unoduo verify` re-runs every decision)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
