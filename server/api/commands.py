"""A seat's command, as ``POST …/commands`` and the socket both take it: one validator for both.

``CommandRequest`` is the HTTP body; ``CommandMessage`` is the same with the socket's
``"type": "command"``. Both refuse a field they do not have, at the top and inside ``command``
(docs/PROTOCOL.md fixes each command's fields; a misspelt ``colour`` is refused by name, not
dropped). What the fields mean is the engine's to judge (``engine.game.commands.parse_action``).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, StrictInt, StrictStr, field_validator

from server.api.bodies import RequestBody
from server.errors import shown_message
from server.limits import CLIENT_COMMAND_ID_LEN, MAX_SEQ

COMMAND_FIELDS: dict[str, frozenset[str]] = {
    "draft": frozenset({"keep"}),
    "play": frozenset({"card", "color", "uno"}),
    "dump": frozenset({"cards", "uno"}),
    "color": frozenset({"color"}),
}
"""docs/PROTOCOL.md "Commands": the fields of each command besides ``type``."""
NO_FIELDS = frozenset({"draw", "pass", "accept", "challenge", "uno"})


class CommandRequest(RequestBody):
    command_id: StrictStr = Field(
        min_length=1, max_length=CLIENT_COMMAND_ID_LEN, description="makes a retry idempotent"
    )
    expected_version: StrictInt | None = Field(default=None, ge=0, le=MAX_SEQ)
    command: dict[str, Any] = Field(description="a docs/PROTOCOL.md command: its type and that type's fields")

    @field_validator("command_id")
    @classmethod
    def _printable(cls, value: str) -> str:
        if not value.isprintable():
            raise ValueError("command_id must be printable characters")
        return value

    @field_validator("command")
    @classmethod
    def _known_fields(cls, value: dict[str, Any]) -> dict[str, Any]:
        kind = value.get("type")
        if not isinstance(kind, str) or (kind not in COMMAND_FIELDS and kind not in NO_FIELDS):
            return value  # the engine says what is wrong with a command without a type or of none it has
        allowed = COMMAND_FIELDS.get(kind, frozenset()) | {"type"}
        unknown = sorted(str(key) for key in value if key not in allowed)
        if unknown:
            raise ValueError(
                f"{shown_message(unknown[0], 60)!r} is not a field of a {shown_message(kind, 30)!r} command"
            )
        return value


class CommandMessage(CommandRequest):
    """A command sent on the socket: ``{"type": "command", "command_id", "expected_version"?, "command"}``."""

    type: Literal["command"]
