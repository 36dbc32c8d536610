"""Check a replay file (FAIRNESS.md) with no trust in the server.

In order: the header; the hash chain; the revealed seed against the commitment; a re-run of
every command through the Decider with that seed (which re-derives every cut, shuffle, recycle,
verdict and score); then each receipt a client kept. The first failure is named by its line.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.audit import rerun
from engine.chain import first_broken_seq
from engine.events import Event
from engine.shuffle import Dealer

REPLAY_FORMAT = "unoduo-replay"
REPLAY_VERSION = 1


class ReplayUnreadable(Exception):
    """The file is not a replay file at all (exit 2), as opposed to one that fails a check (exit 1)."""


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


def parse_replay(text: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise ReplayUnreadable("the file is empty")
    parsed: list[Any] = []
    for number, line in enumerate(lines, start=1):
        try:
            parsed.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise ReplayUnreadable(f"line {number} is not JSON: {exc.msg}") from None
        if not isinstance(parsed[-1], dict):
            raise ReplayUnreadable(f"line {number} is not a JSON object")
    return parsed[0], parsed[1:]


def _envelope_problem(env: dict[str, Any]) -> str | None:
    for key, kind in (("stream", str), ("seq", int), ("type", str), ("data", dict), ("at", str),
                      ("prev", str), ("hash", str)):
        if not isinstance(env.get(key), kind):
            return f"the envelope has no valid '{key}'"
    return None


def verify_replay(text: str, receipts: Sequence[Receipt] = ()) -> Report:
    """Run every check; raises ReplayUnreadable if the text is not a replay file."""
    header, envelopes = parse_replay(text)
    report = Report()
    if header.get("format") != REPLAY_FORMAT or header.get("version") != REPLAY_VERSION:
        raise ReplayUnreadable(f"line 1 is not a '{REPLAY_FORMAT}' version {REPLAY_VERSION} header")
    if not envelopes:
        return report.fail(2, "the replay holds no events")
    for index, env in enumerate(envelopes):
        problem = _envelope_problem(env)
        if problem:
            return report.fail(index + 2, problem)
    broken = first_broken_seq(envelopes)
    if broken is not None:
        return report.fail(broken + 1, f"the hash chain breaks at seq {broken}")
    report.checks.append(f"chain: {len(envelopes)} events, every link and hash holds")

    events = [Event(env["type"], env["data"]) for env in envelopes]
    first, last = events[0], events[-1]
    if first.type != "match_created":
        return report.fail(2, "the first event is not match_created")
    if last.type != "seed_revealed":
        return report.fail(len(envelopes) + 1, "the match is not finished: no seed_revealed event")
    try:
        seed = bytes.fromhex(last.data["server_seed"])
    except (KeyError, TypeError, ValueError):
        return report.fail(len(envelopes) + 1, "the revealed seed is not hex")
    if hashlib.sha256(seed).hexdigest() != first.data.get("commitment"):
        return report.fail(len(envelopes) + 1, "sha256 of the revealed seed is not the commitment of line 2")
    report.checks.append("seed: sha256(server_seed) equals the commitment made at creation")

    mismatch = rerun(events, Dealer(seed))
    if mismatch is not None:
        return report.fail(mismatch.index + 2, mismatch.reason)
    report.checks.append("re-run: every cut, shuffle, decision, verdict and score follows from the rules")

    by_seq = {env["seq"]: env["hash"] for env in envelopes}
    for receipt in receipts:
        if by_seq.get(receipt.seq) != receipt.hash:
            line = receipt.seq + 1 if receipt.seq in by_seq else None
            return report.fail(line, f"receipt {receipt.seq}:{receipt.hash[:12]}… is not in this log: it was rewritten")
        report.checks.append(f"receipt {receipt.seq}: present")
    return report
