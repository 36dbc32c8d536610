"""Check a replay file (docs/FAIRNESS.md) with no trust in the server.

In order: the header; every line's shape; the hash chain; the revealed seed against the
commitment; every sealed field against its opened value (salts recomputed from the seed);
a re-run of every command through the Decider with that seed, which must give back each event
whole and split exactly as its schema says (so every cut, shuffle, recycle, verdict and score
is re-derived); then each receipt a client kept. The first failure is named by its line.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.fairness.audit import rerun
from engine.game.duplicate import DEAL_FIELD, link_problem
from engine.game.errors import ReplayUnreadable
from engine.game.events import EventType
from engine.game.shuffle import Dealer
from engine.record.chain import describe_break, first_broken_seq
from engine.record.event_codec import read_event
from engine.record.replay import parse_replay
from engine.record.sealing import commitment, join, opening_problem, seal_salt, split

__all__ = ["Receipt", "ReplayUnreadable", "Report", "verify_live_log", "verify_replay"]


@dataclass(frozen=True)
class Receipt:
    seq: int
    hash: str

    @classmethod
    def parse(cls, text: str) -> Receipt:
        seq_text, sep, digest = text.partition(":")
        if not sep or not seq_text.isdigit() or len(digest) != 64:
            raise ValueError(f"a receipt is SEQ:HASH (a number, a colon, 64 hex digits), not {text!r}")
        return cls(int(seq_text), digest.lower())


@dataclass
class Report:
    checks: list[str] = field(default_factory=list)
    failure: str | None = None
    line: int | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None

    def fail(self, line: int | None, message: str) -> Report:
        self.failure, self.line = message, line
        return self


_SHAPE = (
    ("stream", str),
    ("seq", int),
    ("type", str),
    ("data", dict),
    ("sealed", dict),
    ("at", str),
    ("prev", str),
    ("hash", str),
    ("open", dict),
)


def _shown(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _line_problem(line: dict[str, Any]) -> str | None:
    for key, kind in _SHAPE:
        if not isinstance(line.get(key), kind):
            return f"the line has no valid '{key}'"
    return None


def _seal_problem(line: dict[str, Any], seed: bytes) -> str | None:
    """Does every sealed commitment open with its value and the salt the seed gives?"""
    sealed, opened = line["sealed"], line["open"]
    for name in sealed:
        if name not in opened:
            return f"sealed field '{name}' has no opened value"
    for name in opened:
        if name not in sealed:
            return f"'{name}' is opened but is not a sealed field of this event"
    for name, digest in sealed.items():
        salt = seal_salt(seed, line["stream"], line["seq"], name)
        found = commitment(salt, opened[name])
        if found != digest:
            return (
                f"field '{name}': the opened value {_shown(opened[name])} commits to {found[:16]}… but the event "
                f"holds {str(digest)[:16]}…: the value (or the seal) was changed"
            )
    return None


def verify_replay(
    text: str,
    receipts: Sequence[Receipt] = (),
    on_stage: Callable[[str], None] | None = None,
    deal_key: bytes | None = None,
) -> Report:
    """Run every check; raises ReplayUnreadable if the text is not a replay file of this version.

    ``on_stage(name)`` is told as each check begins (``read``, ``chain``, ``seed``, ``seals``,
    ``re-run``, ``receipts``): a progress display for long files. A duplicate round's match
    (docs/FAIRNESS.md "Duplicate rounds") is checked with its round's deal key: ``deal_key``,
    else the header's ``deal_key`` (hex), which the server adds once the round is revealed."""

    def stage(name: str) -> None:
        if on_stage is not None:
            on_stage(name)

    stage("read")
    header, lines = parse_replay(text)
    report = Report()
    if not lines:
        return report.fail(2, "the replay holds no events")
    for index, line in enumerate(lines):
        problem = _line_problem(line)
        if problem:
            return report.fail(index + 2, problem)
    stage("chain")
    broken = first_broken_seq(lines)
    if broken is not None:
        return report.fail(broken + 1, f"the hash chain breaks at seq {broken}: {describe_break(lines, broken)}")
    report.checks.append(f"chain: {len(lines)} events, every link and hash holds")

    stage("seed")
    first, last = lines[0], lines[-1]
    if first["type"] != EventType.MATCH_CREATED:
        return report.fail(2, "the first event is not match_created")
    if last["type"] != EventType.SEED_REVEALED:
        return report.fail(len(lines) + 1, "the match is not finished: no seed_revealed event")
    try:
        seed = bytes.fromhex(last["data"]["server_seed"])
    except (KeyError, TypeError, ValueError):
        return report.fail(len(lines) + 1, "the revealed seed is not hex")
    if hashlib.sha256(seed).hexdigest() != first["data"].get("commitment"):
        return report.fail(
            len(lines) + 1,
            f"sha256 of the revealed seed is {hashlib.sha256(seed).hexdigest()[:16]}… but the commitment of line 2 "
            f"is {str(first['data'].get('commitment'))[:16]}…: the seed or the commitment was changed",
        )
    report.checks.append("seed: sha256(server_seed) equals the commitment made at creation")
    dealer = Dealer(seed)
    if DEAL_FIELD in first["data"]:
        key = deal_key if deal_key is not None else _header_key(header)
        if key is None:
            return report.fail(
                2,
                "a duplicate round's match: its cards and seals are checked with the round's deal key, which the "
                "tournament reveals once the round is over (re-export the replay then, or give --deal-key)",
            )
        problem = link_problem(first["data"], str(first["stream"]).removeprefix("match-"), key, seed)
        if problem:
            return report.fail(2, f"the deal key does not belong to this match: {problem}")
        dealer = Dealer(seed, deal_key=key)
        report.checks.append("deal: sha256(deal key) equals match_created's deal, and the seed derives from it")

    stage("seals")
    sealed_count = 0
    for index, line in enumerate(lines):
        problem = _seal_problem(line, dealer.seal_seed)
        if problem:
            return report.fail(index + 2, problem)
        sealed_count += len(line["sealed"])
    report.checks.append(f"sealed fields: all {sealed_count} commitments open with their values")

    events = [read_event(line["type"], join(line["data"], line["open"])) for line in lines]
    for index, (line, event) in enumerate(zip(lines, events, strict=False)):
        public, hidden = split(event.type, event.data)
        if public != line["data"] or set(hidden) != set(line["sealed"]):
            return report.fail(
                index + 2, f"{event.type}: the public and sealed fields are not split as its schema says"
            )
    stage("re-run")
    mismatch = rerun(events, dealer)
    if mismatch is not None:
        return report.fail(mismatch.index + 2, mismatch.reason)
    report.checks.append("re-run: every cut, shuffle, decision, verdict and score follows from the rules")
    called = next((e.data.get("moment") for e in events if e.type == EventType.TIME_CALLED), None)
    if called is not None:  # RULES.md D26: the re-run decided the end on the totals from the call on
        report.checks.append(f"time called at {called}: the match was decided on its totals from that hand (D26)")

    stage("receipts")
    by_seq = {line["seq"]: line["hash"] for line in lines}
    for receipt in receipts:
        if by_seq.get(receipt.seq) != receipt.hash:
            found = receipt.seq + 1 if receipt.seq in by_seq else None
            return report.fail(
                found, f"receipt {receipt.seq}:{receipt.hash[:12]}… is not in this log: it was rewritten"
            )
        report.checks.append(f"receipt {receipt.seq}: present")
    return report


def _header_key(header: dict[str, Any]) -> bytes | None:
    try:
        return bytes.fromhex(str(header["deal_key"]))
    except (KeyError, ValueError):
        return None


def verify_live_log(envelopes: Sequence[dict[str, Any]]) -> Report:
    """What can be checked of a match that is not over, from its envelopes as an auditor (the
    director) receives them, each ``open`` holding ``{value, salt}`` per field: every line's
    shape, the hash chain, the first event, and every opening against its commitment. The seed
    is not revealed yet, so the shuffles and the re-run wait for the replay (``unoduo verify``)."""
    report = Report()
    if not envelopes:
        return report.fail(None, "the match has no events")
    for index, envelope in enumerate(envelopes):
        problem = _line_problem(envelope)
        if problem:
            return report.fail(index + 1, f"event {index + 1}: {problem}")
    broken = first_broken_seq(list(envelopes))
    if broken is not None:
        return report.fail(broken, f"the hash chain breaks at seq {broken}: {describe_break(list(envelopes), broken)}")
    report.checks.append(f"chain: {len(envelopes)} events, every link and hash holds")
    if envelopes[0]["type"] != EventType.MATCH_CREATED:
        return report.fail(1, "the first event is not match_created")
    opened = 0
    for envelope in envelopes:
        for name, opening in envelope["open"].items():
            problem = opening_problem(envelope, name, opening if isinstance(opening, dict) else {})
            if problem:
                return report.fail(envelope["seq"], f"seq {envelope['seq']}: {problem}")
            opened += 1
    report.checks.append(f"openings: all {opened} opened values match their commitments")
    report.checks.append("not over yet: the seed is revealed at the end; the shuffles and the re-run are checked then")
    return report
