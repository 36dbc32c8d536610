"""Making matches: a casual one (``POST /api/matches``: two seats, or a ``classic`` table of 2 to
10 mixing people and house bots) or a tournament's scheduled one.

A match is registered first (``match_registered`` on the ``matches`` stream: its seats as
player ids, its tournament and round, ruleset and clock, a casual match's creator), then
created (the engine's ``match_created`` with the commitment to a fresh server seed, the seats'
names and, at a table of more than two, their count; stored with the seed in one
transaction). House bots at the table take their seats at once. Both steps are idempotent on
the match id, so a tournament's retry after a crash finds the match made before.

A casual table is checked whole before anything is made: every person named exists (by id or
name, ``resolve_player``), none twice, the caller not among them, 1 to 9 opponents, a ruleset
that seats that many. A refused request changes nothing (not even a house bot is registered).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets

from engine.bots import BOT_PREFIX, UnknownBotError, normalize_bot_name
from engine.game.commands import CreateMatch
from engine.game.decide import decide_step
from engine.game.duplicate import deal_link, duplicate_dealer
from engine.game.errors import shown
from engine.game.rulesets import MAX_SEATS, RULESETS, Ruleset, get_ruleset, seats_allowed
from engine.game.seat_names import player_label
from engine.game.shuffle import Dealer, commitment_of
from engine.game.state import INITIAL_STATE
from server.domain_errors import Malformed, PlayerNotFound
from server.services.invitations import Invitations
from server.services.live_match import LiveMatch
from server.services.match_commands import OK, MatchCommands
from server.services.match_registry import MatchRegistry
from server.services.players import ensure_house_bot, house_bot_id, house_bot_of, resolve_player
from server.store.errors import ConcurrencyError
from server.store.event_store import EventStore
from server.store.models import PlayerPublic
from server.store.secrets import match_seed_rows, new_server_seed
from server.store.server_events import MatchRegistered
from server.store.streams import MATCHES_STREAM, match_stream

TABLE_RULESET = "classic"  # the default for a table of three or more
TWO_SEAT_DEFAULT = "uno-duo"


def new_match_id() -> str:
    return "m_" + secrets.token_hex(8)


def table_ruleset(name: str | None, opponents: int) -> Ruleset:
    """The ruleset of a casual table with ``opponents`` besides the caller (Malformed if none fits)."""
    if not 1 <= opponents <= MAX_SEATS - 1:
        raise Malformed(f"a table has 2 to {MAX_SEATS} seats: name 1 to {MAX_SEATS - 1} opponents, not {opponents}")
    name = name or (TWO_SEAT_DEFAULT if opponents == 1 else TABLE_RULESET)
    if name not in RULESETS:
        raise Malformed(f"unknown ruleset {shown(name)}: choose one of {', '.join(RULESETS)}")
    ruleset = get_ruleset(name)
    if opponents + 1 not in seats_allowed(ruleset):
        raise Malformed(
            f"{name} is played by two: a table of {opponents + 1} plays {TABLE_RULESET} (name one opponent for {name})"
        )
    return ruleset


def seat_table(store: EventStore, caller: PlayerPublic, entries: list[str], seat: int | None) -> list[PlayerPublic]:
    """The players of a casual table, by seat: the caller at ``seat`` (0 if None), the opponents
    in the order named in the other seats. Every entry is checked before any house bot is
    registered, so a refusal leaves nothing behind (blocking: call in a thread)."""
    where = 0 if seat is None else seat
    if not 0 <= where <= len(entries):
        raise Malformed(f"seat must be 0 to {len(entries)} at a table of {len(entries) + 1}, not {where}")
    people: dict[int, PlayerPublic] = {}
    bots: dict[int, str] = {}
    for index, entry in enumerate(entries):
        if entry.strip().startswith(BOT_PREFIX):
            try:
                bots[index] = normalize_bot_name(entry.strip())
            except UnknownBotError:
                raise PlayerNotFound(entry) from None
            continue
        found = resolve_player(store, entry)
        if found.kind == "bot" and house_bot_of(found) is None:
            raise Malformed(f"{found.id!r} is a bot that this server does not run")
        if found.id == caller.id:
            raise Malformed(
                "a match needs two different players"
                if len(entries) == 1
                else f"you sit at the table already: {shown(entry)} names you; leave yourself out of opponents"
            )
        if any(p.id == found.id for p in people.values()):
            raise Malformed(f"{found.name} is named twice: a player takes one seat")
        people[index] = found
    taken = {p.id for p in people.values()}
    for index, bot in bots.items():  # each bot seat a bot player of its own: bot-NAME-1, bot-NAME-2, …
        number = 1
        while house_bot_id(bot, number) in taken:
            number += 1
        taken.add(house_bot_id(bot, number))
        people[index] = ensure_house_bot(store, BOT_PREFIX + bot, number)
    opponents = [people[index] for index in range(len(entries))]
    return [*opponents[:where], caller, *opponents[where:]]


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
        self,
        caller: PlayerPublic,
        opponents: list[str],
        ruleset_name: str | None,
        move_seconds: int | None = None,
        seat: int | None = None,
    ) -> LiveMatch:
        """A casual match: the caller at ``seat`` (0 if None), the opponents (player ids, names or
        ``bot:NAME``, in the order given) in the other seats; a table of 2 to 10.

        Refused (TooManyOpen) while the caller has as many open invitations as one may have: a
        table is one invitation, whoever else sits at it."""
        ruleset = table_ruleset(ruleset_name, len(opponents))
        async with self.invitations.making(caller):
            seats = await asyncio.to_thread(seat_table, self.store, caller, opponents, seat)
            return await self.make(new_match_id(), seats, ruleset, move_seconds or self.move_seconds, creator=caller.id)

    async def make(
        self,
        match_id: str,
        seats: list[PlayerPublic],
        ruleset: Ruleset,
        move_seconds: int,
        tournament: str | None = None,
        round_number: int | None = None,
        creator: str | None = None,
        deal: bytes | None = None,
    ) -> LiveMatch:
        """Register and create ``match_id`` (idempotent on the id); its house bots take their seats.

        ``deal``: a duplicate round's deal key (``engine.game.duplicate``): the match's seed derives
        from it, its shuffles and seals are under it, and it is the secret stored for the match."""
        registered = MatchRegistered(
            match=match_id,
            seats=tuple(p.id for p in seats),
            tournament=tournament,
            round=round_number,
            ruleset=ruleset.name,
            move_seconds=move_seconds,
            creator=creator,
        )
        await self.store.append_async(
            MATCHES_STREAM,
            [registered.event()],
            expected_seq=None,
            command_id=f"register-{match_id}",
            result=OK,
        )
        dealer = Dealer(new_server_seed()) if deal is None else duplicate_dealer(deal, match_id)
        link = None
        if deal is not None and tournament is not None and round_number is not None:
            link = deal_link(tournament, round_number, deal)
        first_drafter = None if tournament is None else 0
        # The seats' names go on the chain: a replay names its players (docs/REPLAYS.md).
        # A table of more than two says how many seats it has; a two-seat match's events are as they were.
        create = CreateMatch(
            ruleset,
            commitment_of(dealer.server_seed),
            first_drafter,
            tuple(player_label(p.name, p.kind) for p in seats),  # a bot account's with "[bot]"
            None if len(seats) == 2 else len(seats),
            link,
        )
        events, _state = decide_step(INITIAL_STATE, create, dealer)
        secret = dealer.server_seed if deal is None else deal  # the registry's dealer_of_secret tells them apart
        with contextlib.suppress(ConcurrencyError):  # made before: a retry of the same match id
            await self.store.append_async(
                match_stream(match_id),
                events,
                expected_seq=0,
                command_id="create",
                result=OK,
                extra_rows=lambda at: match_seed_rows(match_id, secret, at),
                seal_seed=dealer.seal_seed,
            )
        live = await self.registry.open(match_id)
        await self.commands.join_bots(live)
        return live
