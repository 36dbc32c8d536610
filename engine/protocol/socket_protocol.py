"""The two live sockets' protocol, shared by the server and the terminal client: every message's
shape, the close codes and what each asks of a client, and the one reconnect policy.

``WS /api/matches/{id}/ws`` (a table) and ``WS /api/me/ws`` (the lobby): docs/SERVER.md "The live
socket" and "The lobby socket", docs/PROTOCOL.md "Live messages". The server builds its messages
as these types and closes with these codes; the client reads them with the same types and decides
from :data:`FINAL` whether to reconnect. Nothing here does I/O: the server and the client each
bring their own socket.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum
from typing import Any, Literal, NotRequired, TypedDict


class Close(IntEnum):
    """Why a socket was closed, and (see :data:`FINAL`) whether reconnecting can help."""

    OVER = 1000  # a table: after the match's last event (or an annulment's last message)
    POLICY = 1008  # a bad query parameter (``since``, ``token``, ``frames``); a peer port's stranger
    TOO_BIG = 1009  # a frame or message over 64 KiB (uvicorn's own)
    INTERNAL = 1011  # the server could not go on with this socket (a bug; the log says which)
    RESTART = 1012  # the server is stopping, or the server playing the match went away
    TRY_AGAIN = 1013  # fell behind, took no message for too long, or the database is unavailable
    BAD_REQUEST = 4400
    BAD_TOKEN = 4401
    FORBIDDEN = 4403  # a duplicate round's match not revealed yet, to someone without a seat in it
    NOT_FOUND = 4404
    REPLACED = 4409  # a newer lobby socket of the same player took this one's place
    TOO_MANY = 4429  # too many wrong tokens from this address: back off

    @classmethod
    def of_status(cls, status: int) -> int:
        """The close code of a refusal the same request over HTTP answers with ``status``:
        4000 + the status (4400, 4401, 4403, 4404, 4429, …); 1013 for 503 (try again later)."""
        return cls.TRY_AGAIN if status == 503 else 4000 + status


FINAL: frozenset[int] = frozenset(
    {Close.POLICY, Close.BAD_REQUEST, Close.BAD_TOKEN, Close.FORBIDDEN, Close.NOT_FOUND, Close.REPLACED}
)
"""Closes after which a client does not reconnect by itself: the same socket would be refused again
(a 4409 too: two windows of one player would otherwise push each other out for ever)."""

FINAL_WORDS: dict[int, str] = {
    Close.POLICY: "refused",
    Close.BAD_REQUEST: "bad request",
    Close.BAD_TOKEN: "bad token",
    Close.FORBIDDEN: "not yours to watch yet",
    Close.NOT_FOUND: "no such match",
    Close.REPLACED: "opened in another window",
}
"""How a client names each final close before the server's reason."""

REASON_LIMIT = 120  # bytes of a close frame's reason (RFC 6455 leaves 123 after the code; a margin kept)


def close_reason(text: str) -> str:
    """``text`` cut to what a close frame carries, never inside a character."""
    return text.encode()[:REASON_LIMIT].decode(errors="ignore")


class Reconnect:
    """The one reconnect policy: a growing pause after each failure (0.2 s up to 5 s), back to the
    shortest once a connection has spoken (a socket that opens and closes at once keeps backing off)."""

    DELAYS = (0.2, 0.5, 1.0, 2.0, 5.0)  # then every DELAYS[-1]

    def __init__(self) -> None:
        self.failures = 0

    def heard(self) -> None:
        """A message arrived: the connection works, the next drop starts the pauses again."""
        self.failures = 0

    def next_delay(self) -> float:
        """The pause before the next attempt (each call counts one failure)."""
        delay = self.DELAYS[min(self.failures, len(self.DELAYS) - 1)]
        self.failures += 1
        return delay


# ---------------------------------------------------------------- the table socket


class Opened(TypedDict):
    """An envelope with the openings this viewer may see (docs/FAIRNESS.md, sealed fields)."""

    seq: int
    type: str
    open: NotRequired[dict[str, Any]]


class EventMessage(TypedDict):
    """``frames=event`` (the default): one per event, with this viewer's view right after it."""

    type: Literal["event"]
    event: dict[str, Any]
    view: dict[str, Any]


class DecisionMessage(TypedDict):
    """``frames=decision``: every event one append wrote, in ``seq`` order, and the view after the last."""

    type: Literal["decision"]
    events: list[dict[str, Any]]
    view: dict[str, Any]


class AnnulledMessage(TypedDict):
    """A table's last message when its match was annulled (then a 1000 close)."""

    type: Literal["annulled"]
    match: str
    replaced_by: str | None
    message: str
    view: dict[str, Any]


class ResultOk(TypedDict):
    type: Literal["result"]
    command_id: str
    ok: Literal[True]
    version: int


class ResultRefused(TypedDict):
    type: Literal["result"]
    command_id: str | None
    ok: Literal[False]
    error: dict[str, Any]  # PROTOCOL.md's {"code", "message", "rule"}


class CommandMessage(TypedDict):
    """What a seat sends: the same body as ``POST /api/matches/{id}/commands``, with ``type``."""

    type: Literal["command"]
    command_id: str
    expected_version: NotRequired[int]
    command: dict[str, Any]


TableMessage = EventMessage | DecisionMessage | AnnulledMessage | ResultOk | ResultRefused


def envelopes_of(message: object) -> list[Mapping[str, Any]]:
    """The envelopes one table message carries, in ``seq`` order: an ``event`` message's one, a
    ``decision`` message's every one; none for another message or a malformed one."""
    if not isinstance(message, Mapping):
        return []
    kind = message.get("type")
    if kind == "event":
        found: list[Any] = [message.get("event")]
    elif kind == "decision" and isinstance(message.get("events"), list):
        found = list(message["events"])
    else:
        return []
    return found if found and all(isinstance(e, Mapping) for e in found) else []


# ---------------------------------------------------------------- the lobby socket


class PairingMessage(TypedDict):
    """A round opened a match for the player (or a replay ruling made their pairing's new match)."""

    type: Literal["pairing"]
    tournament: str
    name: str
    round: int
    match: str
    join_deadline: str | None
    opponent: dict[str, Any]  # {id, name, kind}
    white: bool
    seats: int
    label: str | None  # a knockout's: "winners' round 2", "round 1 table 3 — top 2 go on" (None: "round N" says it)


class MatchMessage(TypedDict):
    """One of the player's matches was made, started, ended or annulled."""

    type: Literal["match"]
    match: str
    status: str
    tournament: str | None
    round: int | None
    replaced_by: str | None


class RulingMessage(TypedDict):
    """The director ruled on a dispute of a match the player is seated in."""

    type: Literal["ruling"]
    dispute: str
    tournament: str
    match: str
    seq: int
    decision: str
    note: str
    rule: str | None


class TournamentMessage(TypedDict):
    """A tournament the player is entered in started or finished."""

    type: Literal["tournament"]
    tournament: str
    name: str
    status: str


class LobbyStateMessage(TypedDict):
    """``?lobby=1``: everything the client's lobby draws (``GET /api/me/lobby``), at each change."""

    type: Literal["lobby"]
    version: int
    lobby: dict[str, Any]


LOBBY_TYPES: frozenset[str] = frozenset({"state", "lobby", "pairing", "match", "ruling", "tournament"})
"""The lobby socket's message types (``state`` is ``GET /api/me``'s body beside ``type``); a
client ignores a type it does not know."""
