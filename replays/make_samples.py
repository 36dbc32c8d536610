"""Make the curated sample replays of ``replays/`` (the auditor's kit, replays/README.md), or check them.

    .venv/bin/python replays/make_samples.py            # write the samples and replays/samples.json
    .venv/bin/python replays/make_samples.py --check    # exit 1 unless the committed files are what it makes
    .venv/bin/python replays/make_samples.py --explore-blocked 1000   # look further for a blocked round

Every sample is a whole match between the project's own bots, played by ``engine.play.selfplay.play_match``
exactly as ``unoduo simulate`` plays it: match ``index`` of a run with master seed ``MASTER_SEED``
(deck seed, bots' random streams and the referee's coin all derive from those two numbers, the
players' entropies are empty). For each situation the generator takes the first match, in index
order, that shows it, is at most ``MAX_EVENTS`` events long (so the kit stays small) and is not
already another sample (so every file is a different match). A match of a stock ruleset is written
with the match id ``unoduo simulate`` gives it, so its file is byte for byte the one
``unoduo simulate --seed 1 --replays DIR`` writes (only the file name differs).

Nothing here is random and nothing depends on time: the same engine gives the same files on every
run. ``samples.json`` records how each file was found (ruleset, override, bots, index, the seq of
the event that shows the situation), and which searches found nothing (the blocked round).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from engine.game.events import Event, EventType
from engine.game.rulesets import Ruleset
from engine.play.selfplay import play_match, seat_order
from engine.record.replay import replay_text

HERE = Path(__file__).resolve().parent
MANIFEST = "samples.json"
MASTER_SEED = 1
MAX_EVENTS = 500  # about 190 KB of replay
SEARCH = 200  # match indices a search looks through before it gives up
BLOCKED_SEARCH = 100  # per pairing: a blocked round is searched for in every match, so fewer (the check stays quick)
BLOCKED_FILE = "blocked-round.jsonl"

Finder = Callable[[Sequence[Event]], int | None]  # the seq (from 1) of the first event showing it


@dataclass(frozen=True)
class Pairing:
    """Who plays under which rules: a ruleset, an optional override of its fields, one bot per
    seat (two, or a classic table of up to ten)."""

    ruleset: str
    bots: tuple[str, ...]
    rules: tuple[tuple[str, str | int], ...] = ()
    # Played as before RULES.md D25 (``draw_two_at_once`` off: a Draw Two's victim is asked for
    # its draw), as the committed classic samples were recorded. Their files are kept as they
    # were played, the kit's proof that a match recorded before a ruling verifies as recorded;
    # the switch is not part of the match id, which they recorded before it existed.
    before_d25: bool = False

    def build(self) -> Ruleset:
        return Ruleset.from_dict({"name": self.ruleset, **self.override()})

    def override(self) -> dict[str, str | int | bool]:
        """The switches over the named ruleset, as samples.json records them."""
        out: dict[str, str | int | bool] = dict(self.rules)
        if self.before_d25:
            out["draw_two_at_once"] = False
        return out

    def match_id(self, index: int) -> str:
        """``unoduo simulate``'s id for a stock ruleset; the override spelled out otherwise."""
        override = "".join(f"+{key}={value}" for key, value in self.rules)
        return f"sim-{MASTER_SEED}-{self.ruleset}{override}-{index}"

    def label(self) -> str:
        override = "".join(f" {key}={value}" for key, value in self.rules)
        return f"{self.ruleset}{override}, {' vs '.join(self.bots)}"


UNO_DUO_GR = Pairing("uno-duo", ("greedy", "random"))
UNO_DUO_GG = Pairing("uno-duo", ("greedy", "greedy"))
# classic-2p enforces its Wild Draw Four rule when the card is played (D13c), so no challenge is
# ever recorded; with the challenge switched on, a challenge is judged by classic's own rule, no_match.
# The classic pairings play as before D25, as their committed files were recorded (``before_d25``).
CLASSIC_CHALLENGE_GR = Pairing("classic-2p", ("greedy", "random"), (("wd4_check", "challenge"),), before_d25=True)
CLASSIC_GR = Pairing("classic-2p", ("greedy", "random"), before_d25=True)
# A classic table of four, to 200 so that the file stays small (D18-D23).
TABLE_OF_FOUR = Pairing("classic", ("greedy", "random", "greedy", "random"), (("target", 200),), before_d25=True)


@dataclass(frozen=True)
class Sample:
    file: str
    shows: str
    rules: str  # the rulings that settle it (docs/RULES.md)
    pairing: Pairing
    find: Finder
    size_cap: bool = True
    pairings: tuple[Pairing, ...] = field(default=())  # a search over several pairings (the blocked round)
    limit: int = SEARCH


# ---------------------------------------------------------------- the situations


def _first(events: Sequence[Event], test: Callable[[Event], bool]) -> int | None:
    return next((seq for seq, event in enumerate(events, start=1) if test(event)), None)


def challenge(verdict: str) -> Finder:
    def find(events: Sequence[Event]) -> int | None:
        return _first(events, lambda e: e.type == EventType.CHALLENGE_RESOLVED and e.data["verdict"] == verdict)

    return find


def volley(events: Sequence[Event]) -> int | None:
    """A Draw Two answered and answered again: a total of 6 or more drawn (D8)."""
    return _first(
        events, lambda e: e.type == EventType.CARDS_DRAWN and e.data["reason"] == "volley" and e.data["count"] >= 6
    )


def reverse_dump(events: Sequence[Event]) -> int | None:
    """A dump of three cards or more whose last card, a Skip or a Draw Two, has the effect (D10)."""

    def test(e: Event) -> bool:
        command = e.data.get("command", {}) if e.type == EventType.COMMAND else {}
        cards = command.get("cards", []) if command.get("type") == "dump" else []
        return len(cards) >= 3 and cards[-1][1:] in ("S", "+2")

    return _first(events, test)


def uno_catch(events: Sequence[Event]) -> int | None:
    return _first(events, lambda e: e.type == EventType.UNO_CAUGHT)


def match_to_200(events: Sequence[Event]) -> int | None:
    """The end of a uno-duo match in which both seats scored, so the totals carry over visibly (D16)."""
    return _first(events, lambda e: e.type == EventType.MATCH_ENDED and min(e.data["scores"]) > 0)


def table_match(events: Sequence[Event]) -> int | None:
    """The end of a table's match in which a Reverse turned the direction and two seats or more
    scored, so that the places follow totals (D20, D23)."""
    turned = _first(events, lambda e: e.type == EventType.CARD_PLAYED and "direction" in e.data)
    ended = _first(events, lambda e: e.type == EventType.MATCH_ENDED and sum(1 for s in e.data["scores"] if s) >= 2)
    return ended if turned is not None else None


def blocked_round(events: Sequence[Event]) -> int | None:
    return _first(events, lambda e: e.type == EventType.ROUND_ENDED and e.data["blocked"])


SAMPLES: tuple[Sample, ...] = (
    Sample(
        "wd4-legal-challenge-uno-duo.jsonl",
        "a challenged Wild Draw Four that was legal under uno-duo's no_playable rule: the challenger draws 6",
        "D12, D13",
        UNO_DUO_GR,
        challenge("legal"),
    ),
    Sample(
        "wd4-illegal-challenge-uno-duo.jsonl",
        "a challenged Wild Draw Four that was illegal under uno-duo's no_playable rule: its player draws 4",
        "D12, D13",
        UNO_DUO_GR,
        challenge("illegal"),
    ),
    Sample(
        "wd4-legal-challenge-classic-2p.jsonl",
        "classic-2p with the challenge switched on (wd4_check=challenge), judged by classic's own rule no_match: legal",
        "D13, D13c",
        CLASSIC_CHALLENGE_GR,
        challenge("legal"),
    ),
    Sample(
        "wd4-illegal-challenge-classic-2p.jsonl",
        "classic-2p with the challenge switched on (wd4_check=challenge), judged by classic's own rule no_match: illegal",
        "D13, D13c",
        CLASSIC_CHALLENGE_GR,
        challenge("illegal"),
    ),
    Sample(
        "draw-two-volley.jsonl",
        "a Draw Two volley: Draw Twos answered back and forth, the first seat that does not answer draws 6 or more",
        "D8",
        UNO_DUO_GR,
        volley,
    ),
    Sample(
        "reverse-dump.jsonl",
        "a Reverse dump of three cards or more ending on a Skip or a Draw Two, whose effect is the only one that counts",
        "D10",
        UNO_DUO_GR,
        reverse_dump,
    ),
    Sample(
        "uno-catch.jsonl",
        "an UNO catch: a seat left with one card undeclared is caught and draws 2",
        "D14",
        UNO_DUO_GR,
        uno_catch,
    ),
    Sample(
        "match-to-200.jsonl",
        "a whole uno-duo match, round by round, in which both seats score, until one total reaches 200",
        "D15, D16",
        UNO_DUO_GG,
        match_to_200,
    ),
    Sample(
        BLOCKED_FILE,
        "a blocked round: both seats, one after the other, draw and receive nothing",
        "D7, D17",
        UNO_DUO_GR,
        blocked_round,
        size_cap=False,
        pairings=(UNO_DUO_GR, UNO_DUO_GG, CLASSIC_GR),
        limit=BLOCKED_SEARCH,
    ),
    Sample(
        "table-of-four.jsonl",
        "a whole classic match at a table of four to 200: the deal from the dealer's left, Reverses turning the"
        " direction, each round's winner scoring every other hand, the places by the totals",
        "D18, D20, D23",
        TABLE_OF_FOUR,
        table_match,
    ),
)


# ---------------------------------------------------------------- the search


@lru_cache(maxsize=96)
def _events(pairing: Pairing, index: int) -> tuple[Event, ...]:
    return play_match(list(pairing.bots), pairing.build(), MASTER_SEED, index).events


def play(pairing: Pairing, index: int, keep: bool = True) -> tuple[Event, ...]:
    if keep:
        return _events(pairing, index)
    return play_match(list(pairing.bots), pairing.build(), MASTER_SEED, index).events


@dataclass(frozen=True)
class Found:
    sample: Sample
    pairing: Pairing
    index: int
    seq: int
    events: tuple[Event, ...]

    def text(self) -> str:
        players = [f"bot:{bot}" for bot in _seats(self.pairing, self.index)]
        return replay_text(self.pairing.match_id(self.index), self.pairing.ruleset, players, self.events)


def _seats(pairing: Pairing, index: int) -> tuple[str, ...]:
    """The bot in each seat: the entrants move one seat on every match (two swap)."""
    return tuple(pairing.bots[entrant] for entrant in seat_order(index, len(pairing.bots)))


def search(sample: Sample, used: set[tuple[Pairing, int]]) -> Found | None:
    pairings = sample.pairings or (sample.pairing,)
    for pairing in pairings:
        for index in range(sample.limit):
            if (pairing, index) in used:
                continue
            events = play(pairing, index, keep=not sample.pairings)
            if sample.size_cap and len(events) > MAX_EVENTS:
                continue
            seq = sample.find(events)
            if seq is not None:
                used.add((pairing, index))
                return Found(sample, pairing, index, seq, events)
    return None


def _round_of(events: Sequence[Event], seq: int) -> int:
    rounds = [e.data["round"] for e in events[:seq] if e.type == EventType.ROUND_STARTED]
    return rounds[-1] if rounds else 0


def _simulate_command(found: Found) -> str | None:
    pairing = found.pairing
    if pairing.rules or pairing.before_d25:
        return None  # `unoduo simulate` plays stock rulesets only, under today's rulings
    return (
        f"unoduo simulate --seed {MASTER_SEED} -n {found.index + 1} --bots {','.join(pairing.bots)}"
        f" --ruleset {pairing.ruleset} --replays DIR"
    )


def _entry(found: Found, text: str) -> dict[str, Any]:
    pairing = found.pairing
    seats = _seats(pairing, found.index)
    entry: dict[str, Any] = {
        "file": found.sample.file,
        "shows": found.sample.shows,
        "rules": found.sample.rules,
        "ruleset": pairing.ruleset,
        "override": pairing.override(),
        "bots": list(pairing.bots),
        "master_seed": MASTER_SEED,
        "index": found.index,
        "seats": list(seats),
        "match": pairing.match_id(found.index),
        "events": len(found.events),
        "seq": found.seq,
        "event": found.events[found.seq - 1].type,
        "round": _round_of(found.events, found.seq),
        "bytes": len(text.encode()),
        "sha256": hashlib.sha256(text.encode()).hexdigest(),
    }
    command = _simulate_command(found)
    if command is not None:
        entry["simulate"] = command
        entry["simulate_writes"] = f"DIR/{pairing.match_id(found.index)}-{'-vs-'.join(seats)}.jsonl"
    return entry


def _not_found(sample: Sample, limit: int) -> dict[str, Any]:
    pairings = sample.pairings or (sample.pairing,)
    return {
        "file": sample.file,
        "shows": sample.shows,
        "rules": sample.rules,
        "searched": [{"pairing": p.label(), "indices": [0, limit - 1]} for p in pairings],
        "matches": limit * len(pairings),
    }


def make() -> dict[str, str]:
    """Every file the generator owns, name -> text (samples.json included; a sample not found has no file)."""
    used: set[tuple[Pairing, int]] = set()
    files: dict[str, str] = {}
    entries: list[dict[str, Any]] = []
    missing: list[dict[str, Any]] = []
    for sample in SAMPLES:
        found = search(sample, used)
        if found is None:
            missing.append(_not_found(sample, sample.limit))
            continue
        text = found.text()
        files[sample.file] = text
        entries.append(_entry(found, text))
    manifest = {
        "generator": "replays/make_samples.py",
        "master_seed": MASTER_SEED,
        "max_events": MAX_EVENTS,
        "search": SEARCH,
        "blocked_search": BLOCKED_SEARCH,
        "rule": "each sample is the first match, in index order, that shows its situation, has at most max_events"
        " events and is not already another sample (blocked-round: any length)",
        "samples": entries,
        "not_found": missing,
    }
    files[MANIFEST] = json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"
    return files


def owned() -> list[str]:
    return [MANIFEST] + [sample.file for sample in SAMPLES]


# ---------------------------------------------------------------- the commands


def write(directory: Path) -> int:
    files = make()
    for name in owned():
        path = directory / name
        if name in files:
            path.write_text(files[name], encoding="utf-8")
            print(f"wrote {name} ({len(files[name].encode()):,} bytes)")
        elif path.exists():
            path.unlink()
            print(f"removed {name} (no match shows it now)")
    return 0


def check(directory: Path) -> int:
    files = make()
    stale = 0
    for name in owned():
        path = directory / name
        on_disk = path.read_text(encoding="utf-8") if path.exists() else None
        expected = files.get(name)
        if on_disk == expected:
            print(f"ok       {name}" + ("" if expected is not None else " (absent, as it should be)"))
            continue
        stale += 1
        if expected is None:
            print(f"STALE    {name}: the generator makes no such file now")
        elif on_disk is None:
            print(f"MISSING  {name}")
        else:
            print(f"DIFFERS  {name}")
    if stale:
        print(f"{stale} file(s) are not what replays/make_samples.py makes: run it to rewrite them")
        return 1
    print("the committed samples are what replays/make_samples.py makes")
    return 0


def explore_blocked(limit: int) -> int:
    """Look through ``limit`` matches of each pairing for a blocked round, and for any lapsed draw."""
    sample = next(s for s in SAMPLES if s.file == BLOCKED_FILE)
    for pairing in sample.pairings:
        rounds = lapsed = blocked = 0
        first: int | None = None
        for index in range(limit):
            events = play(pairing, index, keep=False)
            rounds += sum(1 for e in events if e.type == EventType.ROUND_ENDED)
            lapsed += sum(1 for e in events if e.type == EventType.DRAW_LAPSED)
            if blocked_round(events) is not None:
                blocked += 1
                first = index if first is None else first
        where = "" if first is None else f", the first in match {first}"
        print(
            f"{pairing.label()}: {limit:,} matches, {rounds:,} rounds, {lapsed:,} lapsed draws, "
            f"{blocked:,} blocked rounds{where}"
        )
    return 0


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Make (or check) the curated sample replays of replays/.")
    parser.add_argument("--check", action="store_true", help="exit 1 unless the committed files are what it makes")
    parser.add_argument(
        "--explore-blocked",
        type=int,
        metavar="N",
        help="search N matches per pairing for a blocked round; writes nothing",
    )
    parser.add_argument("--dir", type=Path, default=HERE, help=argparse.SUPPRESS)
    args = parser.parse_args(None if argv is None else list(argv))
    if args.explore_blocked is not None:
        return explore_blocked(args.explore_blocked)
    return check(args.dir) if args.check else write(args.dir)


if __name__ == "__main__":
    sys.exit(main())
