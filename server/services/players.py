"""Players: registration, who a token belongs to, naming a player, and the house bots.

A house bot (``bot:greedy``, ``bot:random``, … one per module of ``engine.bots``) is a bot
player with the fixed id ``bot-<name>-1`` and the name ``<name>`` (``greedy``), registered once
under a fixed command id, so creating it on demand from several requests at once registers it once.
A table (or a tournament) with several bots of one kind seats ``bot-<name>-1``, ``bot-<name>-2``,
… named ``greedy``, ``greedy-2``, … (``engine.fairness.house_bots.house_bot_name``), each a player of its
own, the same players at every table and in every tournament: a house bot's name is unique on the
server and says what it is. (Servers before issue 33 named them ``greedy-1`` and made every
tournament bot players of its own, ``bot-greedy-<tournament>-<n>``; migration 0011 renamed them.)
Its token is random and never shown: bots do not call the API, the server moves for them.

:func:`resolve_player` is the one way the API turns what someone typed (an id, a name, or
``bot:NAME``) into a player.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import re
import time
from collections.abc import Callable
from dataclasses import dataclass

from engine.bots import BOT_PREFIX, UnknownBotError, bot_names, normalize_bot_name
from engine.fairness.house_bots import house_bot_name, house_bot_of_id
from engine.game.seat_names import BOT_ACCOUNT_LABEL
from server.domain_errors import AmbiguousName, Malformed, NameTaken, PlayerNotFound
from server.names import NameRefused, check_name, folded, name_key
from server.services.passwords import hasher
from server.store.errors import InvalidAppendError
from server.store.event_store import EventStore
from server.store.models import PlayerPublic
from server.store.players import (
    PLAYER_ID_RE,
    get_player,
    holder_of,
    new_player_id,
    new_token,
    player_by_token,
    players_named,
    register_player,
)
from server.store.secrets import is_director_token

CALLER_SECONDS = 2.0  # how long a token's owner is remembered (a token signed out elsewhere stops within it)
MAX_ENTRY = 200  # characters of an id or name worth looking up


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
    """Who each token names, remembered for :data:`CALLER_SECONDS` (a request's look-up costs a
    database read otherwise). A token signed out here is forgotten at once (:meth:`forget`); one
    signed out by another server process stops working here within those seconds. A token nobody
    has is looked up each time (so a flood of bad tokens cannot fill the memory)."""

    def __init__(
        self,
        store: EventStore,
        size: int = 10_000,
        seconds: float = CALLER_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.size = size
        self.seconds = seconds
        self.clock = clock
        self._known: dict[str, tuple[float, Caller]] = {}  # sha256 of the token -> (when looked up, its caller)

    async def of(self, token: str) -> Caller | None:
        key = hashlib.sha256(token.encode()).hexdigest()
        now = self.clock()
        found = self._known.get(key)
        if found is not None and now - found[0] < self.seconds:
            return found[1]
        self._known.pop(key, None)
        caller = await asyncio.to_thread(authenticate, self.store, token)
        if caller is None:
            return None
        while len(self._known) >= self.size:
            self._known.pop(next(iter(self._known)))
        self._known[key] = (now, caller)
        return caller

    def forget(self, token: str) -> None:
        """``token`` was signed out: it names nobody from now on (in this process)."""
        self._known.pop(hashlib.sha256(token.encode()).hexdigest(), None)


def shown_name(name: str) -> str:
    """``name`` as it will be shown and compared (``server.names.check_name``), or ``Malformed`` (400).

    A name ending in the bot accounts' label (``[bot]``) is refused too: nobody looks like a bot
    account who is not one, and a bot account's name is not labelled twice."""
    try:
        checked = check_name(name)
    except NameRefused as exc:
        raise Malformed(str(exc)) from None
    if name_key(checked).endswith(name_key(BOT_ACCOUNT_LABEL)):
        raise Malformed(f"a name may not end in {BOT_ACCOUNT_LABEL}: the server labels bot accounts so")
    return checked


def _unless_same(name: str, held: str) -> str | None:
    """``held`` if it is another name than ``name`` that looks like it (not only another case)."""
    return None if folded(name) == folded(held) else held


def register_human(
    store: EventStore, name: str, password_hash: str | None = None, *, bot: bool = False
) -> tuple[PlayerPublic, str]:
    """A new human player (or, with ``bot``, a bot account: someone's program, kind
    ``bot_account``, under the same name rules) and their token (the only time the token is seen).

    The name is checked and normalized by ``server.names.check_name``: an invisible, blank,
    piled-up, mixed-script look-alike, unrecommended-letter or house-bot name is refused
    (``Malformed``, 400); a name another player holds, or one that looks like it (compared by
    ``name_key``, the UTS #39 skeleton), is ``NameTaken`` (409, naming the name it looks like), even when two
    registrations of it race (the database's unique constraint decides, in the append's
    transaction: the loser's event is never written).
    """
    shown = shown_name(name)
    key = name_key(shown)
    holder = holder_of(store, key)
    if holder is not None:
        raise NameTaken(shown, _unless_same(shown, holder.name))
    token = new_token()
    player_id = new_player_id()
    try:
        result = register_player(
            store,
            player_id=player_id,
            name=shown,
            kind="bot_account" if bot else "human",
            token=token,
            password_hash=password_hash,
        )
    except InvalidAppendError:
        holder = holder_of(store, key)
        if holder is not None:  # lost a race for the name
            raise NameTaken(shown, _unless_same(shown, holder.name)) from None
        raise
    return PlayerPublic.model_validate(result.result), token


async def register(
    store: EventStore, name: str, password: str | None = None, *, bot: bool = False, source: str = ""
) -> tuple[PlayerPublic, str]:
    """:func:`register_human` with an optional password (hashed off the event loop, a few at a time,
    ``source``'s in its turn: ``server.services.passwords``);
    ``bot`` registers a bot account (docs/BOTS.md): never moved for by the server (:func:`house_bot_of`)."""
    shown = shown_name(name)
    holder = await asyncio.to_thread(holder_of, store, name_key(shown))
    if holder is not None:
        raise NameTaken(shown, _unless_same(shown, holder.name))  # before spending a hash on it
    password_hash = None if password is None else await hasher.hash(password, source=source)
    return await asyncio.to_thread(functools.partial(register_human, store, shown, password_hash, bot=bot))


def resolve_player(store: EventStore, text: str) -> PlayerPublic:
    """The player ``text`` names: a player id, ``bot:NAME`` (the house bot, made now if need be),
    or a name (compared as names are, ``server.names.name_key``).

    ``PlayerNotFound`` (404) if nobody is; ``AmbiguousName`` (409, listing the ids) for a name
    several players have (tournament bots such as ``greedy-1``, or humans registered under one
    name before names were unique).
    """
    entry = text.strip() if isinstance(text, str) else ""
    if not entry or len(entry) > MAX_ENTRY or not entry.isprintable():  # no name has a control character
        raise PlayerNotFound(entry)
    if entry.startswith(BOT_PREFIX):
        try:
            return ensure_house_bot(store, entry)
        except UnknownBotError:
            raise PlayerNotFound(entry) from None
    if PLAYER_ID_RE.fullmatch(entry):
        by_id = get_player(store, entry)
        if by_id is not None:
            return by_id
    house_bot = house_bot_named(store, entry)
    if house_bot is not None:
        return house_bot
    named = players_named(store, name_key(entry))
    if not named:
        raise PlayerNotFound(entry)
    if len(named) > 1:
        raise AmbiguousName(entry, [p.id for p in named])
    return named[0]


def house_bot_id(bot: str, number: int = 1) -> str:
    return f"bot-{bot}-{number}"


NUMBERED = re.compile(r"(.+)-([1-9][0-9]{0,3})")


def _house_bot_and_number(entry: str) -> tuple[str, int] | None:
    """``greedy`` -> (greedy, 1), ``greedy-2`` -> (greedy, 2), ``rule-v1-2`` -> (rule-v1, 2): a bot's
    own name first (a name may end in a number of its own), else a bot's name and a number."""
    if entry in bot_names():
        return entry, 1
    found = NUMBERED.fullmatch(entry)
    if found is None or found.group(1) not in bot_names():
        return None
    return found.group(1), int(found.group(2))


def house_bot_named(store: EventStore, entry: str) -> PlayerPublic | None:
    """The house bot ``entry`` names, if it exists: ``greedy`` (and ``greedy-1``, its name before
    issue 33) is ``bot-greedy-1``, ``greedy-2`` is ``bot-greedy-2``. Found by its id, so the many
    tournament bots an older server made under one name never make the name ambiguous; nothing is
    created here (``bot:NAME`` does that)."""
    found = _house_bot_and_number(folded(entry))
    return None if found is None else get_player(store, house_bot_id(*found))


def house_bot_of(player: PlayerPublic) -> str | None:
    """The engine bot that plays for ``player`` if it is a house bot, else None (a bot account,
    ``bot_account``, is someone's program: it plays through the API like a person)."""
    if player.kind != "bot":
        return None
    return house_bot_of_id(player.id)  # bot-NAME-1, or bot-NAME-<tournament>-<n> for a tournament's entry


def ensure_house_bot(store: EventStore, entry: str, number: int = 1) -> PlayerPublic:
    """The ``number``-th bot player for ``bot:NAME`` (the first one unless a table seats several of
    that kind), created now if it does not exist yet."""
    bot = normalize_bot_name(entry)
    player_id = house_bot_id(bot, number)
    existing = get_player(store, player_id)
    if existing is not None:
        return existing
    register_player(
        store,
        player_id=player_id,
        name=house_bot_name(bot, number),
        kind="bot",
        token=new_token(),
        command_id=f"house-bot-{bot}" if number == 1 else f"house-bot-{bot}-{number}",
    )
    created = get_player(store, player_id)
    assert created is not None
    return created


def ensure_house_bots(store: EventStore) -> list[PlayerPublic]:
    return [ensure_house_bot(store, name) for name in bot_names()]
