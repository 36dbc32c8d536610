"""Making matches: a casual one (``POST /api/matches``) or a tournament's scheduled one.

A match is registered first (``match_registered`` on the ``matches`` stream: its seats as
player ids, its tournament and round, ruleset and clock), then created (the engine's
``match_created`` with the commitment to a fresh server seed and the seats' names, stored with the seed in one
transaction). House bots at the table take their seats at once. Both steps are idempotent on
the match id, so a tournament's retry after a crash finds the match made before.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets

from engine.commands import CreateMatch
from engine.decide import decide_step
from engine.errors import shown
from engine.rulesets import RULESETS, Ruleset, get_ruleset
from engine.shuffle import Dealer, commitment_of
from engine.state import INITIAL_STATE
from server.services.errors import Malformed, PlayerNotFound
from server.services.invitations import Invitations
from server.services.live_match import LiveMatch
from server.services.match_commands import OK, MatchCommands
from server.services.match_registry import MatchRegistry
from server.services.players import house_bot_of, resolve_opponent
from server.store.errors import ConcurrencyError
from server.store.models import PlayerPublic
from server.store.secrets import match_seed_rows, new_server_seed
from server.store.server_events import MatchRegistered
from server.store.streams import MATCHES_STREAM, match_stream


def new_match_id() -> str:
    return "m_" + secrets.token_hex(8)


class MatchCreation:
    """Registers and creates matches in ``registry``'s store; ``commands`` seats the house bots."""

    def __init__(
        self, registry: MatchRegistry, commands: MatchCommands, invitations: Invitations, *, move_seconds: int
    ) -> None:
        self.registry = registry
        self.store = registry.store
        self.commands = commands
        self.invitations = invitations
        self.move_seconds = move_seconds  # a casual match's clock unless its creator sets one

    async def create(
        self, caller: PlayerPublic, opponent_entry: str, ruleset_name: str | None, move_seconds: int | None = None
    ) -> LiveMatch:
        """A casual match: the caller in seat 0, the opponent (a player id or ``bot:NAME``) in seat 1.

        Refused (TooManyOpen) while the caller has as many open invitations as one may have."""
        name = ruleset_name or "uno-duo"
        if name not in RULESETS:
            raise Malformed(f"unknown ruleset {shown(name)}: choose one of {', '.join(RULESETS)}")
        ruleset = get_ruleset(name)
        opponent = await asyncio.to_thread(resolve_opponent, self.store, opponent_entry)
        if opponent is None:
            raise PlayerNotFound(opponent_entry)
        if opponent.id == caller.id:
            raise Malformed("a match needs two different players")
        if opponent.kind == "bot" and house_bot_of(opponent) is None:
            raise Malformed(f"{opponent.id!r} is a bot that this server does not run")
        async with self.invitations.making(caller):
            return await self.make(new_match_id(), [caller, opponent], ruleset, move_seconds or self.move_seconds)

    async def make(
        self,
        match_id: str,
        seats: list[PlayerPublic],
        ruleset: Ruleset,
        move_seconds: int,
        tournament: str | None = None,
        round_number: int | None = None,
    ) -> LiveMatch:
        """Register and create ``match_id`` (idempotent on the id); its house bots take their seats."""
        registered = MatchRegistered(
            match=match_id,
            seats=(seats[0].id, seats[1].id),
            tournament=tournament,
            round=round_number,
            ruleset=ruleset.name,
            move_seconds=move_seconds,
        )
        await self.store.append_async(
            MATCHES_STREAM,
            [registered.event()],
            expected_seq=None,
            command_id=f"register-{match_id}",
            result=OK,
        )
        seed = new_server_seed()
        first_drafter = None if tournament is None else 0
        # The seats' names go on the chain: a replay names its players (docs/REPLAYS.md).
        create = CreateMatch(ruleset, commitment_of(seed), first_drafter, (seats[0].name, seats[1].name))
        events, _state = decide_step(INITIAL_STATE, create, Dealer(seed))
        with contextlib.suppress(ConcurrencyError):  # made before: a retry of the same match id
            await self.store.append_async(
                match_stream(match_id),
                events,
                expected_seq=0,
                command_id="create",
                result=OK,
                extra_rows=lambda at: match_seed_rows(match_id, seed, at),
                seal_seed=seed,
            )
        live = await self.registry.open(match_id)
        await self.commands.join_bots(live)
        return live
