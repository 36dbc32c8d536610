"""Players: registration, who a token belongs to, and the house bots.

A house bot (``bot:greedy``, ``bot:random``, … one per module of ``engine.bots``) is a bot
player with the fixed id ``bot-<name>-1`` and the name ``<name>-1``, registered once under a
fixed command id, so creating it on demand from several requests at once registers it once.
Its token is random and never shown: bots do not call the API, the server moves for them.
"""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass

from engine.bots import BOT_PREFIX, UnknownBotError, bot_names, normalize_bot_name
from engine.house_bots import house_bot_of_id
from server.names import NameRefused, check_name
from server.services.errors import Malformed
from server.store.event_store import EventStore
from server.store.models import PlayerPublic
from server.store.players import get_player, new_player_id, new_token, player_by_token, register_player
from server.store.secrets import is_director_token


@dataclass(frozen=True, slots=True)
class Caller:
    """Who sent a request: a player, the director, or nobody (no token)."""

    player: PlayerPublic | None = None
    director: bool = False


def authenticate(store: EventStore, token: str) -> Caller | None:
    """The caller a Bearer token names, or None for a token nobody has."""
    if is_director_token(store, token):
        return Caller(director=True)
    player = player_by_token(store, token)
    return None if player is None else Caller(player=player)


class Callers:
    """Who each token names, remembered: a token never changes owner. A token nobody has is
    looked up each time (so a flood of bad tokens cannot fill the memory)."""

    def __init__(self, store: EventStore, size: int = 10_000) -> None:
        self.store = store
        self.size = size
        self._known: dict[str, Caller] = {}  # sha256 of the token -> its caller

    async def of(self, token: str) -> Caller | None:
        key = hashlib.sha256(token.encode()).hexdigest()
        found = self._known.get(key)
        if found is None:
            found = await asyncio.to_thread(authenticate, self.store, token)
            if found is None:
                return None
            if len(self._known) >= self.size:
                self._known.pop(next(iter(self._known)))
            self._known[key] = found
        return found


def register_human(store: EventStore, name: str) -> tuple[PlayerPublic, str]:
    """A new human player and their token (the only time the token is seen).

    The name is checked and normalized by ``server.names.check_name``: an invisible, blank,
    piled-up, mixed-script look-alike or house-bot name is refused (``Malformed``, 400).
    """
    try:
        shown_name = check_name(name)
    except NameRefused as exc:
        raise Malformed(str(exc)) from None
    token = new_token()
    player_id = new_player_id()
    result = register_player(store, player_id=player_id, name=shown_name, kind="human", token=token)
    info = result.result
    return PlayerPublic.model_validate(info), token


def house_bot_id(bot: str) -> str:
    return f"bot-{bot}-1"


def house_bot_of(player: PlayerPublic) -> str | None:
    """The engine bot that plays for ``player`` if it is a house bot, else None."""
    if player.kind != "bot":
        return None
    return house_bot_of_id(player.id)  # bot-NAME-1, or bot-NAME-<tournament>-<n> for a tournament's entry


def ensure_house_bot(store: EventStore, entry: str) -> PlayerPublic:
    """The bot player for ``bot:NAME`` (created now if it does not exist yet)."""
    bot = normalize_bot_name(entry)
    player_id = house_bot_id(bot)
    existing = get_player(store, player_id)
    if existing is not None:
        return existing
    register_player(
        store,
        player_id=player_id,
        name=f"{bot}-1",
        kind="bot",
        token=new_token(),
        command_id=f"house-bot-{bot}",
    )
    created = get_player(store, player_id)
    assert created is not None
    return created


def ensure_house_bots(store: EventStore) -> list[PlayerPublic]:
    return [ensure_house_bot(store, name) for name in bot_names()]


def resolve_opponent(store: EventStore, entry: str) -> PlayerPublic | None:
    """A player id, or a ``bot:NAME`` entry; None if no such player or bot exists."""
    if entry.startswith(BOT_PREFIX):
        try:
            return ensure_house_bot(store, entry)
        except UnknownBotError:
            return None
    return get_player(store, entry)
