"""Signing in on another device, signing out, and the director's one-time sign-in codes.

A player signs in by name with their password or with a code the director gave them, and gets a
new token; their other tokens keep working (at most ``server.store.players.MAX_TOKENS``, the
oldest dropped). Every refusal has the same words, whether the name is unknown, the password
wrong or the code wrong, used or expired, and takes as long: an unknown name is checked against
a dummy hash (``server.services.passwords``). The route reserves each attempt against the
address's and the name's wrong-password limits before the hash, and gives it back when the
password was right (``server.services.sign_in_gate``).

A code is :data:`CODE_LENGTH` characters of :data:`CODE_ALPHABET` (no 0/O, 1/I/L to confuse),
shown as ``XXXX-XXXX`` and taken in any case, with or without the dash; it lives
:data:`CODE_MINUTES` minutes, is kept as an argon2id hash, and works once. A player has at most
one: a new one replaces the last.
"""

from __future__ import annotations

import asyncio
import re
import secrets
from datetime import datetime, timedelta

from server.domain_errors import Malformed
from server.names import name_key
from server.services.passwords import hasher
from server.services.players import resolve_player
from server.store.event_store import EventStore, format_at
from server.store.models import PlayerPublic
from server.store.players import (
    PLAYER_ID_RE,
    UNIQUE_KINDS,
    Account,
    account_of,
    add_token,
    holder_of,
    new_token,
    set_code,
    use_code,
)

CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
CODE_LENGTH = 8
CODE_MINUTES = 15
SIGN_IN_REFUSED = "no player has this name with this password or code (a code works once, for 15 minutes)"
_SEPARATORS = re.compile(r"[\s-]+")


def new_code() -> str:
    raw = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
    return f"{raw[:4]}-{raw[4:]}"


def clean_code(code: str) -> str:
    """A code as typed (``abcd-efgh``, ``ABCDEFGH``, ``abcd efgh``) in the form it was hashed in."""
    raw = _SEPARATORS.sub("", code).upper()
    return f"{raw[:4]}-{raw[4:]}"


def _account_named(store: EventStore, name: str) -> Account | None:
    """The human who signs in as ``name``: the holder of that name, or (a player registered under
    a name an older player has, before names were unique) the player with that id."""
    entry = name.strip()
    if not entry.isprintable():  # no name has a control character (and PostgreSQL refuses NUL)
        return None
    holder = holder_of(store, name_key(entry))
    player_id = holder.id if holder is not None else entry if PLAYER_ID_RE.fullmatch(entry) else None
    account = account_of(store, player_id) if player_id is not None else None
    return account if account is not None and account.player.kind in UNIQUE_KINDS else None  # a bot account too


async def sign_in(
    store: EventStore, name: str, *, password: str | None = None, code: str | None = None, source: str = ""
) -> tuple[PlayerPublic, str] | None:
    """A new token for the player ``name`` if ``password`` (or ``code``) is theirs; None if not.

    ``source``: the client address, whose turn the hash waits for (``server.services.passwords``);
    the caller has admitted the attempt already (``server.services.sign_in_gate``)."""
    if (password is None) == (code is None):
        raise Malformed("sign in with a password or with a code, one of the two")
    account = await asyncio.to_thread(_account_named, store, name)
    if password is not None:
        stored = account.password_hash if account is not None else None
        if not await hasher.verify(stored, password, source=source):
            return None
    else:
        assert code is not None
        now = format_at(store.clock())
        live = account is not None and account.code_expires is not None and account.code_expires > now
        stored = account.code_hash if account is not None and live else None
        if not await hasher.verify(stored, clean_code(code), source=source):
            return None
        assert account is not None and stored is not None
        if not await asyncio.to_thread(use_code, store, account.player.id, stored):
            return None  # another sign-in used it a moment ago, or a newer code replaced it
    assert account is not None
    token = new_token()
    await asyncio.to_thread(add_token, store, account.player.id, token)
    return account.player, token


async def issue_code(store: EventStore, entry: str) -> tuple[PlayerPublic, str, datetime]:
    """A new one-time code for the human ``entry`` names (id or name), replacing any earlier one."""
    player = await asyncio.to_thread(resolve_player, store, entry)
    if player.kind not in UNIQUE_KINDS:  # a bot account's owner may need a way back in too
        raise Malformed(f"{player.name} is a bot: sign-in codes are for human players")
    code = new_code()
    expires = store.clock() + timedelta(minutes=CODE_MINUTES)
    code_hash = await hasher.hash(code)
    await asyncio.to_thread(set_code, store, player.id, code_hash, format_at(expires))
    return player, code, expires
