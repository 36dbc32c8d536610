"""The client's own checks of everything a match's socket sends it (docs/FAIRNESS.md).

For each envelope, in order: it belongs to this match's stream, its ``seq`` follows the last
one, its ``prev`` is the last one's ``hash``, and its ``hash`` is the sha256 of the canonical
JSON of ``{stream, seq, type, data, sealed, at, prev}`` (``engine.record.chain.envelope_hash``). Each
opening in ``open`` must open its commitment: ``sha256(salt + canonical(value))`` is
``sealed[name]`` (``engine.record.sealing.opening_problem``). When the seed is revealed, its sha256
must be the commitment of ``match_created``, and every salt the client was given must be the
one the seed gives (``engine.record.sealing.seal_salt``): the values shown during play were bound to
the seed from the start. A receipt kept from an earlier session must still match: the event
at its ``seq`` must have its ``hash``, or the log was rewritten since.

Pure: no I/O, no Textual. The first problem found is kept; checking goes on from the event
received, so one break is reported once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.record.chain import ZERO_HASH, envelope_hash
from engine.record.replay import stream_of
from engine.record.sealing import opening_problem, seal_salt
from tui_client.connection.config import Receipt

ENVELOPE_KEYS = ("stream", "seq", "type", "data", "sealed", "at", "prev", "hash")


@dataclass
class ChainCheck:
    """The running check of one match's envelopes, from seq 1 (or from a resume point)."""

    match: str
    earlier: Receipt | None = None  # a receipt from an earlier session, to hold against the log
    last_seq: int = 0
    last_hash: str = ZERO_HASH
    last_at: str = ""
    problem: str | None = None
    envelopes: int = 0  # checked in this session
    openings: int = 0
    earlier_confirmed: bool | None = None  # None until the event at the earlier receipt's seq arrives
    commitment: str | None = None  # the seed commitment, from match_created
    seed_checked: bool = False
    _salts: list[tuple[int, str, str]] = field(default_factory=list)  # (seq, name, salt hex) received

    @property
    def stream(self) -> str:
        return stream_of(self.match)

    @property
    def ok(self) -> bool:
        return self.problem is None

    def receipt(self) -> Receipt:
        return Receipt(self.match, self.last_seq, self.last_hash, self.last_at, self.ok, self.problem)

    def _fail(self, problem: str) -> str:
        if self.problem is None:
            self.problem = problem
        return problem

    def check(self, event: Mapping[str, Any]) -> list[str]:
        """Check one received event (envelope plus ``open``); the problems found, in words."""
        problems: list[str] = []
        missing = [k for k in ENVELOPE_KEYS if k not in event]
        seq = event.get("seq")
        if missing or not isinstance(seq, int):
            problems.append(f"an event without {', '.join(missing) or 'a whole-number seq'}: not an envelope")
            for p in problems:
                self._fail(p)
            return problems
        if event["stream"] != self.stream:
            problems.append(f"event #{seq} belongs to stream {event['stream']!r}, not {self.stream!r}")
        if seq != self.last_seq + 1:
            problems.append(
                f"expected event #{self.last_seq + 1}, received #{seq}: an event is missing, repeated or out of order"
            )
        if event["prev"] != self.last_hash:
            problems.append(
                f"event #{seq}: its prev {str(event['prev'])[:12]}… is not the hash of the event before it "
                f"({self.last_hash[:12]}…)"
            )
        try:
            recomputed = envelope_hash(
                event["stream"], seq, event["type"], event["data"], event["sealed"], event["at"], event["prev"]
            )
        except (TypeError, ValueError) as exc:
            recomputed = f"unhashable ({exc})"
        if recomputed != event["hash"]:
            problems.append(
                f"event #{seq} ({event['type']}): its content hashes to {recomputed[:12]}…, "
                f"not to the hash it carries ({str(event['hash'])[:12]}…)"
            )
        opened = event.get("open") or {}
        if not isinstance(opened, Mapping):
            problems.append(f"event #{seq}: its open is not an object")
            opened = {}
        for name, opening in opened.items():
            problem = opening_problem(event, name, opening) if isinstance(opening, Mapping) else "not an object"
            if problem is not None:
                problems.append(f"event #{seq} ({event['type']}): {problem}")
            else:
                self.openings += 1
                self._salts.append((seq, str(name), str(opening["salt"])))
        earlier = self.earlier
        if earlier is not None and earlier.seq == seq:
            self.earlier_confirmed = earlier.hash == event["hash"]
            if not self.earlier_confirmed:
                problems.append(
                    f"event #{seq} now hashes to {str(event['hash'])[:12]}…, but your receipt says "
                    f"{earlier.hash[:12]}…: the log was rewritten since you saw it"
                )
        data = event["data"] if isinstance(event["data"], Mapping) else {}
        if event["type"] == "match_created" and isinstance(data.get("commitment"), str):
            self.commitment = data["commitment"]
        if event["type"] == "seed_revealed":
            problems += self._check_seed(data.get("server_seed"))
        for p in problems:
            self._fail(p)
        self.last_seq = seq
        self.last_hash = str(event["hash"])
        self.last_at = str(event["at"])
        self.envelopes += 1
        return problems

    def finished(self) -> list[str]:
        """The whole log has been received (the socket closed with the match over): a receipt
        from before that lies beyond its end means events were removed since."""
        earlier = self.earlier
        if earlier is not None and self.earlier_confirmed is None and earlier.seq > self.last_seq:
            self.earlier_confirmed = False
            return [
                self._fail(
                    f"the log ends at #{self.last_seq}, but your receipt is for #{earlier.seq}: events were removed"
                )
            ]
        return []

    def _check_seed(self, seed_hex: object) -> list[str]:
        try:
            seed = bytes.fromhex(str(seed_hex))
        except ValueError:
            return ["the revealed seed is not hex"]
        problems = []
        if self.commitment is not None and hashlib.sha256(seed).hexdigest() != self.commitment:
            problems.append("the revealed seed does not hash to the commitment of match_created")
        for seq, name, salt in self._salts:
            if seal_salt(seed, self.stream, seq, name).hex() != salt:
                problems.append(f"event #{seq}: the salt of '{name}' you were given is not the one the seed gives")
                break
        self.seed_checked = not problems
        return problems

    def summary(self) -> str:
        """One line: what was checked, or the first problem."""
        if self.problem is not None:
            return f"CHECK FAILED: {self.problem}"
        words = f"chain ✓ #{self.last_seq}"
        if self.openings:
            words += f" · {self.openings} opening{'s' if self.openings != 1 else ''} ✓"
        if self.seed_checked:
            words += " · seed ✓"
        if self.earlier_confirmed:
            words += f" · receipt #{self.earlier.seq if self.earlier else '?'} ✓"
        return words
