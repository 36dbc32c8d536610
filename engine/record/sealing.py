"""Sealed fields (docs/FAIRNESS.md "Sealed fields"): hidden data in a chain everyone can check.

The Decider's events carry their whole data. Before an event joins the chain it is split by
its schema (``engine.game.events``): public fields stay in ``data``; each hidden field becomes
``sealed[name] = sha256(salt + canonical(value))`` with a salt that only the server can compute
until the seed is revealed (``HMAC-SHA256(server_seed, "seal:{stream}:{seq}:{name}")``). The
value and its salt are kept beside the envelope as an *opening*; a viewer is sent the openings
it may see, and can check each one against its commitment at once. Guessing a commitment
without its salt is guessing a 256-bit key: the 112 possible cards are no help.

Pure: no I/O. The event store seals at append time; ``engine.record.replay`` seals self-play logs.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, TypedDict

from engine.game.events import SCHEMAS, Sealed
from engine.record.chain import canonical, chain_envelope

SPECTATOR: Final = "spectator"
AUDITOR: Final = "auditor"
Viewer = int | Literal["spectator", "auditor"]
"""Who is looking: seat 0 or 1, a spectator, or an auditor (the director, or anyone once a
match is over)."""


class Opening(TypedDict):
    """A sealed field's value and its salt (hex): what opens its commitment."""

    value: Any
    salt: str


class SealingError(ValueError):
    """Hidden data to seal but no seed to salt it with (a server bug, never a client's fault)."""


def seal_salt(server_seed: bytes, stream: str, seq: int, name: str) -> bytes:
    return hmac.new(server_seed, f"seal:{stream}:{seq}:{name}".encode(), hashlib.sha256).digest()


def commitment(salt: bytes, value: Any) -> str:
    return hashlib.sha256(salt + canonical(value)).hexdigest()


def split(type_: str, data: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(public data, hidden values) of an event's whole data. Types without a schema (the
    server's own streams) are all public."""
    schema = SCHEMAS.get(type_)
    if schema is None or not schema.sealed:
        return dict(data), {}
    sealed = schema.sealed
    public = {k: v for k, v in data.items() if k not in sealed}
    hidden = {k: v for k, v in data.items() if k in sealed}
    return public, hidden


def join(public: Mapping[str, Any], values: Mapping[str, Any]) -> dict[str, Any]:
    """An event's whole data again: its public data plus its opened values."""
    return {**public, **values}


@dataclass(frozen=True, slots=True)
class SealedEvent:
    """An envelope on the chain and the openings of its sealed fields (never hashed)."""

    envelope: dict[str, Any]
    openings: dict[str, Opening]


def seal_event(
    stream: str,
    seq: int,
    type_: str,
    data: Mapping[str, Any],
    at: str,
    prev: str,
    server_seed: bytes | None,
) -> SealedEvent:
    public, hidden = split(type_, data)
    return seal_split(stream, seq, type_, public, hidden, at, prev, server_seed)


def seal_split(
    stream: str,
    seq: int,
    type_: str,
    public: dict[str, Any],
    hidden: Mapping[str, Any],
    at: str,
    prev: str,
    server_seed: bytes | None,
) -> SealedEvent:
    """:func:`seal_event` of data already :func:`split` into its public fields and its hidden values."""
    sealed: dict[str, str] = {}
    openings: dict[str, Opening] = {}
    if hidden:
        if server_seed is None:
            raise SealingError(f"{type_} has hidden fields ({', '.join(hidden)}) but no seed to seal them with")
        for name, value in hidden.items():
            salt = seal_salt(server_seed, stream, seq, name)
            sealed[name] = commitment(salt, value)
            openings[name] = Opening(value=value, salt=salt.hex())
    return SealedEvent(chain_envelope(stream, seq, str(type_), public, sealed, at, prev), openings)


def _opened_to(mark: Sealed, public: Mapping[str, Any]) -> int | None:
    if mark.to is None or isinstance(mark.to, int):
        return mark.to
    seat = public.get(mark.to)
    return seat if isinstance(seat, int) else None


def may_open(type_: str, public: Mapping[str, Any], name: str, viewer: Viewer) -> bool:
    """May ``viewer`` see sealed field ``name`` of this event during play?"""
    if viewer == AUDITOR:
        return True
    schema = SCHEMAS.get(type_)
    if schema is None or name not in schema.sealed or not isinstance(viewer, int):
        return False
    return _opened_to(schema.sealed[name], public) == viewer


def openings_for(
    type_: str, public: Mapping[str, Any], openings: Mapping[str, Opening], viewer: Viewer
) -> dict[str, Opening]:
    """The openings ``viewer`` may receive with this event's envelope."""
    return {name: o for name, o in openings.items() if may_open(type_, public, name, viewer)}


def seen_by(type_: str, data: Mapping[str, Any], viewer: Viewer) -> dict[str, Any]:
    """An event's data as ``viewer`` receives it during play: its public fields and only the
    sealed fields ``viewer`` may open (a seat's own hand, draws and challenge evidence)."""
    schema = SCHEMAS.get(type_)
    if schema is None or not schema.sealed:
        return dict(data)
    sealed = schema.sealed
    return {k: v for k, v in data.items() if k not in sealed or may_open(type_, data, k, viewer)}


def opening_problem(envelope: Mapping[str, Any], name: str, opening: Mapping[str, Any]) -> str | None:
    """Why an opening does not open its commitment, or None when it does (a client's check)."""
    sealed = envelope.get("sealed") or {}
    if name not in sealed:
        return f"'{name}' is not a sealed field of this event"
    try:
        salt = bytes.fromhex(str(opening["salt"]))
    except (KeyError, ValueError):
        return f"the salt of '{name}' is not hex"
    if commitment(salt, opening.get("value")) != sealed[name]:
        return f"the opened value of '{name}' does not match its commitment"
    return None
