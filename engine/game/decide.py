"""``decide(state, command, dealer) -> events``: the only place the rules of docs/RULES.md live.

Pure: no I/O, no clock, no randomness of its own. Every deck order comes from the injected
:class:`~engine.game.shuffle.Dealer`. A command the rules do not allow raises
:class:`~engine.game.errors.CommandRefused` (code, message, ruling id) and changes nothing.

Internally each emitted event's effect is applied at once (``_Batch.emit``, with the same
``engine.game.evolve.EFFECTS`` the fold uses), so later steps of the same command see it and the
events are consistent with ``evolve`` by construction.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NoReturn, cast

from engine.game.cards import COLOR_ORDER, Card, Color, Ranks
from engine.game.commands import (
    MAX_ENTROPY_LENGTH,
    MAX_MOMENT_LENGTH,
    MAX_NAME_LENGTH,
    Accept,
    CallTime,
    Challenge,
    ChooseColor,
    Command,
    CommandType,
    CreateMatch,
    Draft,
    Draw,
    Dump,
    JoinSeat,
    Pass,
    Play,
    SayUno,
    SeatAction,
    SeatCommand,
    TimeOut,
    format_action,
)
from engine.game.commands import Forfeit as ForfeitCommand
from engine.game.errors import CommandRefused, ErrorCode
from engine.game.events import (
    Awaiting,
    CardPlayed,
    CardsDealt,
    CardsDrawn,
    ChallengeResolved,
    ColorChosen,
    CommandRecorded,
    Cut,
    DraftCompleted,
    Drafted,
    DrawLapsed,
    Event,
    EventType,
    ForfeitDeclared,
    MatchCreated,
    MatchEnded,
    MatchForfeited,
    PileRecycled,
    RoundEnded,
    RoundStarted,
    SeatJoined,
    SeedRevealed,
    StarterTurned,
    TimeCalled,
    TimedOut,
    UnoCaught,
    UnoSaid,
)
from engine.game.evolve import EFFECTS
from engine.game.rules import (
    TIMEOUTS_TO_FORFEIT,
    allowed_commands,
    could_have_played,
    dump_cards,
    dump_offered,
    hand_points,
    wild_draw_four_breaks_rule,
)
from engine.game.rulesets import (
    MAX_SEATS,
    Deal,
    DrawRule,
    Recycle,
    ReverseRule,
    Scoring,
    StarterWild,
    WildDrawFourCheck,
    seats_allowed,
)
from engine.game.seating import active_seats, next_clockwise, next_seat
from engine.game.shuffle import Dealer
from engine.game.state import MatchState, PendingKind, PendingKinds, Phases

MAX_CUTS = 1000


def _refuse(code: ErrorCode, message: str, rule: str | None = None) -> NoReturn:
    raise CommandRefused(code, message, rule)


class _Batch:
    """The events of one command, folded as they are emitted.

    The state being built is a private draft: each event's effect (``engine.game.evolve.EFFECTS``,
    the same functions the fold uses) is written into it in place, and it is handed out, never
    to change again, when the command is decided. The version is set once, at the end.
    """

    def __init__(self, state: MatchState, dealer: Dealer) -> None:
        self.state = draft = _new(MatchState)  # private until the batch is done
        self.fields = draft.__dict__
        self.fields.update(state.__dict__)
        self.dealer = dealer
        self.events: list[Event] = []
        self.headless = False  # a timeout's default action: its ``timed_out`` is the head, not ``command``

    def emit(self, type_: EventType, record: Mapping[str, Any]) -> None:
        """Record an event (its typed record, freshly built by the caller) and apply its effect."""
        data = cast(dict[str, Any], record)  # a TypedDict is a plain dict at run time
        self.events.append(Event(type_, data))
        self.fields.update(EFFECTS[type_](self.state, data))

    def done(self) -> tuple[list[Event], MatchState]:
        self.fields["version"] += len(self.events)
        return self.events, self.state

    @property
    def entropies(self) -> tuple[str, ...]:
        """Every seat's entropy in seat order ("" for a seat that never joined: it left first)."""
        return tuple([e or "" for e in self.state.entropies])

    def codes(self, ids: tuple[int, ...] | list[int]) -> list[str]:
        codes = self.state.facts.codes
        return [codes[i] for i in ids]

    def await_(self, seat: int, kind: PendingKind, total: int | None = None, starter: bool = False) -> None:
        record = Awaiting(seat=seat, kind=_KIND_VALUE[kind])
        if total is not None:
            record["total"] = total
        if starter:
            record["starter"] = True
        self.emit(EventType.AWAITING, record)

    def await_card(self, seat: int, kind: PendingKind, card_id: int, code: str | None = None) -> None:
        """An awaited decision about one card: the card just drawn (D6), or the starter to colour (D4)."""
        record = Awaiting(seat=seat, kind=_KIND_VALUE[kind], card=card_id)
        if code is not None:
            record["code"] = code
        self.emit(EventType.AWAITING, record)


_new = object.__new__
_KIND_VALUE = {kind: kind.value for kind in PendingKind}
_COLOR_VALUE = {color: color.value for color in Color}


# ---------------------------------------------------------------- entry point


def decide(state: MatchState, command: Command, dealer: Dealer) -> list[Event]:
    return decide_step(state, command, dealer)[0]


def decide_step(state: MatchState, command: Command, dealer: Dealer) -> tuple[list[Event], MatchState]:
    """``decide`` plus the state its events fold to (already computed while deciding)."""
    batch = _Batch(state, dealer)
    if isinstance(command, SeatCommand):
        _seat_command(batch, command)
    elif isinstance(command, CreateMatch):
        _create(batch, command)
    elif isinstance(command, JoinSeat):
        _join(batch, command)
    elif isinstance(command, TimeOut):
        _time_out(batch, command)
    elif isinstance(command, ForfeitCommand):
        _forfeit(batch, command)
    elif isinstance(command, CallTime):
        _call_time(batch, command)
    else:  # pragma: no cover - the type union is closed
        _refuse(ErrorCode.UNKNOWN_COMMAND, f"unknown command {command!r}")
    return batch.done()


def _create(batch: _Batch, command: CreateMatch) -> None:
    if batch.state.phase is not Phases.NEW:
        _refuse(ErrorCode.NOT_NOW, "this match has already been created")
    record = MatchCreated(ruleset=command.ruleset.to_dict(), commitment=command.commitment)
    seats = 2
    if command.seats is not None:
        allowed = seats_allowed(command.ruleset)
        if command.seats.__class__ is not int or command.seats not in allowed:
            _refuse(
                ErrorCode.MALFORMED,
                f"{command.ruleset.name} is played by {allowed.start} to {allowed.stop - 1} seats,"
                f" not {command.seats!r}",
                "D18",
            )
        seats = command.seats
        record["seats"] = seats
    if command.first_drafter is not None:
        if command.first_drafter.__class__ is not int or not 0 <= command.first_drafter < seats:
            _refuse(
                ErrorCode.MALFORMED,
                f"first_drafter must be a seat from 0 to {seats - 1}, not {command.first_drafter!r}",
            )
        record["first_drafter"] = command.first_drafter
    if command.names is not None:
        names = command.names
        if (
            not isinstance(names, tuple)
            or len(names) != seats
            or not all(isinstance(n, str) and 0 < len(n) <= MAX_NAME_LENGTH for n in names)
        ):
            _refuse(
                ErrorCode.MALFORMED, f"names must be {_count_words(seats)} names of 1 to {MAX_NAME_LENGTH} characters"
            )
        record["names"] = list(names)
    if command.duplicate is not None:  # a duplicate round's match (engine.game.duplicate): where its deal comes from
        record["duplicate"] = dict(command.duplicate)
    batch.emit(EventType.MATCH_CREATED, record)


def _join(batch: _Batch, command: JoinSeat) -> None:
    state = batch.state
    if command.seat.__class__ is not int or not 0 <= command.seat < state.seats:
        _refuse(ErrorCode.NOT_A_PLAYER, f"seat must be {_seat_range(state)}, not {command.seat!r}")
    if state.phase is not Phases.WAITING:
        _refuse(ErrorCode.NOT_NOW, "seats can only be taken before the match starts")
    if state.entropies[command.seat] is not None:
        _refuse(ErrorCode.NOT_NOW, f"seat {command.seat} has already joined")
    if state.departed[command.seat]:
        _refuse(ErrorCode.NOT_NOW, f"seat {command.seat} has left this table")
    if not isinstance(command.entropy, str) or len(command.entropy) > MAX_ENTROPY_LENGTH:
        _refuse(ErrorCode.MALFORMED, f"entropy must be a string of at most {MAX_ENTROPY_LENGTH} characters")
    batch.emit(EventType.SEAT_JOINED, SeatJoined(seat=command.seat, entropy=command.entropy))
    if _all_joined(batch.state):
        _start_match(batch)


def _all_joined(state: MatchState) -> bool:
    """Every seat still at the table has joined (a seat that left before joining is not waited for)."""
    return all(e is not None or gone for e, gone in zip(state.entropies, state.departed, strict=True))


def _count_words(n: int) -> str:
    return "two" if n == 2 else str(n)


def _seat_range(state: MatchState) -> str:
    return "0 or 1" if state.seats == 2 else f"0 to {state.seats - 1}"


def _start_match(batch: _Batch) -> None:
    """D2: cut for the first drafter (unless a schedule or a scenario fixes it), then round 1."""
    first = batch.state.scheduled_first_drafter
    if first is None:
        first = batch.dealer.first_drafter
    if first is None:
        deck = batch.state.deck
        for _ in range(MAX_CUTS):
            k = batch.state.cuts
            cards = list(batch.dealer.cut(batch.entropies, k, len(deck)))
            winner = _cut_winner([deck[i].rank.number for i in cards], batch.state.departed)
            batch.emit(EventType.CUT, Cut(cut=k, codes=batch.codes(cards), first_drafter=winner, cards=cards))
            if winner is not None:
                first = winner
                break
        else:  # pragma: no cover - probability ~0
            raise RuntimeError("the cut did not settle")
    _start_round(batch, 1, first)


def _cut_winner(numbers: list[int | None], departed: tuple[bool, ...]) -> int | None:
    """D2/D18: the seat whose cut card is the single highest number; None (cut again) if any seat
    still at the table cut a non-number or the highest number is shared."""
    cutting = [n for n, gone in zip(numbers, departed, strict=True) if not gone]
    if any(n is None for n in cutting):
        return None
    best = max(n for n in cutting if n is not None)
    if cutting.count(best) != 1:
        return None
    return next(i for i, n in enumerate(numbers) if n == best and not departed[i])


# ---------------------------------------------------------------- rounds


def _start_round(batch: _Batch, number: int, player1: int, restart: int = 0) -> None:
    """Shuffle round ``number``'s deck (its ``restart``-th fresh start) and draft or deal it."""
    state = batch.state
    deck = batch.dealer.round_deck(batch.entropies, number, len(state.deck), restart)
    batch.emit(EventType.ROUND_STARTED, RoundStarted(round=number, player1=player1, restart=restart, deck=list(deck)))
    ruleset = batch.state.ruleset
    if ruleset.deal is Deal.DRAFT:
        batch.await_(player1, PendingKinds.DRAFT)
        return
    # D18: one card at a time, starting at the dealer's left (the seat that moves first).
    order = [next_clockwise(state, player1)]
    while len(order) < len(active_seats(state)):
        order.append(next_clockwise(state, order[-1]))
    hands: list[list[int]] = [[] for _ in range(state.seats)]
    for i, card_id in enumerate(deck[: len(order) * ruleset.hand_size]):
        hands[order[i % len(order)]].append(card_id)
    record = CardsDealt(
        counts=[len(hand) for hand in hands],
        cards=hands,
        hand0=batch.codes(sorted(hands[0])),
        hand1=batch.codes(sorted(hands[1])),
    )
    for seat in range(2, state.seats):
        record[_HAND_FIELDS[seat]] = batch.codes(sorted(hands[seat]))  # type: ignore[literal-required]
    batch.emit(EventType.CARDS_DEALT, record)
    _turn_starter(batch)


_HAND_FIELDS = tuple(f"hand{seat}" for seat in range(MAX_SEATS))


def _turn_starter(batch: _Batch) -> None:
    """D4: turn the starter and let it act on Player 2."""
    card_id = batch.state.draw_pile[0]
    record = StarterTurned(code=batch.codes([card_id])[0], card=card_id)
    turns = _turns_direction(batch.state, batch.state.card(card_id))
    if turns:
        record["direction"] = -batch.state.direction
    batch.emit(EventType.STARTER_TURNED, record)
    card = batch.state.card(card_id)
    state = batch.state
    if card.is_wild and state.ruleset.starter_wild is StarterWild.RESTART:
        # classic-2p, seed 004: "reshuffle the cards and start again": a fresh deck and deal.
        assert state.player1 is not None
        _start_round(batch, state.round, state.player1, state.restarts + 1)
        return
    assert state.player1 is not None
    # Player 1 is the dealer in a dealt game (D18); p2, the seat at its left, moves first.
    p1 = state.player1
    p2 = next_clockwise(state, p1)
    rank = card.rank
    if rank.is_wild:
        batch.await_card(p1, PendingKinds.COLOR, card_id)
    elif rank is Ranks.DRAW_TWO:
        _draw(batch, p2, 2, "starter")
        batch.await_(next_seat(state, p2), PendingKinds.TURN)
    elif turns:
        batch.await_(p1, PendingKinds.TURN)  # D19: the direction turns, so the dealer moves first
    elif rank is Ranks.SKIP or (rank is Ranks.REVERSE and state.ruleset.reverse is not ReverseRule.DUMP):
        batch.await_(next_seat(state, p2), PendingKinds.TURN)  # the first player is skipped
    elif rank is Ranks.REVERSE and dump_offered(state, p2):
        batch.await_(p2, PendingKinds.DUMP, starter=True)
    else:
        batch.await_(p2, PendingKinds.TURN)


def _turns_direction(state: MatchState, card: Card) -> bool:
    """D19/D20: does this Reverse turn the direction? Only where the ruleset says so and more than
    two seats are still at the table (with two a Reverse acts as a Skip)."""
    return (
        card.rank is Ranks.REVERSE and state.ruleset.reverse is ReverseRule.DIRECTION and len(active_seats(state)) > 2
    )


def _end_round(batch: _Batch, winner: int) -> None:
    """D15: a hand is empty (and any last Draw Two or Wild Draw Four settled)."""
    _score_round(batch, winner, blocked=False)


def _end_blocked_round(batch: _Batch) -> None:
    """D17/D24: every seat in turn drew and received nothing; the lowest hand wins the round
    (nobody, if several share the lowest value)."""
    state = batch.state
    points = {seat: hand_points(state, seat) for seat in active_seats(state)}
    lowest = min(points.values())
    lowest_seats = [seat for seat, value in points.items() if value == lowest]
    _score_round(batch, lowest_seats[0] if len(lowest_seats) == 1 else None, blocked=True)


def _blocked(state: MatchState) -> bool:
    """D17/D24: as many empty draws in a row as there are seats at the table."""
    return state.empty_draws >= (2 if state.seats == 2 else len(active_seats(state)))


def _score_round(batch: _Batch, winner: int | None, blocked: bool) -> None:
    """D15/D16/D17: score the round, then end the match (the target, or the round limit) or start
    the next round."""
    state = batch.state
    if state.seats > 2:
        _score_table_round(batch, winner, blocked)
        return
    ruleset = state.ruleset
    scores = list(state.scores)
    loser = None if winner is None else 1 - winner
    points = 0
    scorer: int | None = None
    if winner is not None and loser is not None:
        points = hand_points(state, loser)
        scorer = loser if ruleset.scoring is Scoring.LOSER_SCORES else winner
        scores[scorer] += points
    record = RoundEnded(
        round=state.round,
        winner=winner,
        loser=loser,
        points=points,
        loser_hand=batch.codes(state.hands[loser]) if loser is not None else [],
        scores=scores,
        blocked=blocked,
    )
    if blocked:
        record["hands"] = [batch.codes(state.hands[0]), batch.codes(state.hands[1])]
    batch.emit(EventType.ROUND_ENDED, record)
    lowest_wins = ruleset.scoring is Scoring.LOSER_SCORES
    match_winner = None
    if scorer is not None and scores[scorer] >= ruleset.target:
        match_winner = (1 - scorer) if lowest_wins else scorer
    _after_round(batch, match_winner, scores, lowest_wins)


def _after_round(batch: _Batch, winner: int | None, scores: list[int], lowest_wins: bool) -> None:
    """End the match with ``winner`` (the target decided it), or with the round limit's winner,
    or start the next round."""
    if winner is None:
        winner = _round_limit_winner(batch.state, scores, lowest_wins)
    if winner is None:
        _next_round(batch)
    else:
        _end_match(batch, winner, scores)


def _round_limit_winner(state: MatchState, scores: list[int], lowest_wins: bool) -> int | None:
    """The seat the round limit, or time called, makes the winner now, or None (no limit, not
    reached and no time called, or a tie).

    Project ruling over RULES.md D23 (issue 22, a table tournament's round limit): when round
    ``round_limit`` (or any later round) ends, scored as usual, and no seat has reached the
    target, the match ends and the single best total of the seats still at the table wins: the
    lowest where reaching the target loses (``loser_scores``), else the highest. The places then
    follow the totals (``places_of``; equal totals share a place). While the best total is
    shared the match plays on, one round at a time, until a round ends with a single best.

    RULES.md D26 (time called in a timed tournament round) is the same rule from the first
    round that ends after the call: one place decides a match on its totals.
    """
    limit = state.ruleset.round_limit
    if state.time_called is None and (not limit or state.round < limit):
        return None
    staying = active_seats(state)
    best = (min if lowest_wins else max)(scores[seat] for seat in staying)
    leaders = [seat for seat in staying if scores[seat] == best]
    return leaders[0] if len(leaders) == 1 else None


def _next_round(batch: _Batch) -> None:
    """The deal passes to the next seat clockwise (D18; at two seats, the other seat)."""
    state = batch.state
    assert state.player1 is not None
    _start_round(batch, state.round + 1, next_clockwise(state, state.player1))


def _score_table_round(batch: _Batch, winner: int | None, blocked: bool) -> None:
    """D23/D24 at a table of 3+: the winner scores every other hand (a departed seat's too, set
    aside for the round); every hand is shown; the first total to reach the target wins (or
    the round limit ends the match: :func:`_round_limit_winner`)."""
    state = batch.state
    scores = list(state.scores)
    points = 0
    if winner is not None:
        points = sum(hand_points(state, seat) for seat in range(state.seats) if seat != winner)
        scores[winner] += points
    record = RoundEnded(
        round=state.round,
        winner=winner,
        loser=None,
        points=points,
        loser_hand=[],
        scores=scores,
        blocked=blocked,
        hands=[batch.codes(hand) for hand in state.hands],
    )
    batch.emit(EventType.ROUND_ENDED, record)
    reached = winner is not None and scores[winner] >= state.ruleset.target
    _after_round(batch, winner if reached else None, scores, lowest_wins=False)  # D23: the winner scores


def places_of(winner: int, scores: list[int], departures: tuple[int, ...]) -> list[int]:
    """D23: the winner first; the other seats still at the table by total, highest first, equal
    totals sharing a place; then the seats that left, the first to leave last."""
    seats = range(len(scores))
    staying = sorted((s for s in seats if s != winner and s not in departures), key=lambda s: -scores[s])
    places = [0] * len(scores)
    places[winner] = 1
    for index, seat in enumerate(staying):
        tied = index > 0 and scores[staying[index - 1]] == scores[seat]
        places[seat] = places[staying[index - 1]] if tied else index + 2
    for index, seat in enumerate(reversed(departures)):
        places[seat] = len(staying) + 2 + index
    return places


def _end_match(batch: _Batch, winner: int, scores: list[int]) -> None:
    """D16/D23, or a forfeit: the match is over and the seed is revealed."""
    state = batch.state
    record = MatchEnded(
        winner=winner, loser=1 - winner if state.seats == 2 else None, scores=scores, rounds=state.round
    )
    if state.ruleset.reverse is ReverseRule.DIRECTION:  # classic, any table size: the places (D23)
        record["places"] = places_of(winner, scores, state.departures)
    batch.emit(EventType.MATCH_ENDED, record)
    batch.emit(
        EventType.SEED_REVEALED,
        SeedRevealed(server_seed=batch.dealer.server_seed.hex(), entropies=list(batch.entropies)),
    )


# ---------------------------------------------------------------- drawing


def _recycle_if_empty(batch: _Batch) -> None:
    """D7, at once: an empty draw pile takes every discard but the top, the moment it empties.

    Called after every event that can empty the draw pile or grow the discard pile (a draw, a
    play), so the draw pile is never empty while there is something to recycle.
    """
    state = batch.state
    if state.draw_pile or len(state.discard) <= 1:
        return
    rest = state.discard[:-1]
    m = state.recycles + 1
    if state.ruleset.recycle is Recycle.SHUFFLE:
        order = batch.dealer.recycle(batch.entropies, state.round, m, rest)
    else:
        order = rest  # turned over: the first card discarded becomes the top
    batch.emit(
        EventType.PILE_RECYCLED,
        PileRecycled(recycle=m, count=len(order), set_aside=state.discard[-1], cards=list(order)),
    )


def _draw(batch: _Batch, seat: int, count: int, reason: str) -> list[int]:
    """Take ``count`` cards from the draw pile; what it cannot give lapses (D7)."""
    drawn: list[int] = []
    while len(drawn) < count:
        pile = batch.state.draw_pile
        if not pile:
            batch.emit(
                EventType.DRAW_LAPSED,
                DrawLapsed(seat=seat, missing=count - len(drawn), received=len(drawn), reason=reason),
            )
            break
        take = list(pile[: count - len(drawn)])
        batch.emit(
            EventType.CARDS_DRAWN,
            CardsDrawn(seat=seat, count=len(take), reason=reason, cards=take, codes=batch.codes(take)),
        )
        drawn.extend(take)
        _recycle_if_empty(batch)
    return drawn


# ---------------------------------------------------------------- seat commands

_PENDING_RULE = {
    PendingKinds.DRAFT: "D3",
    PendingKinds.TURN: "D5",
    PendingKinds.DRAWN: "D6",
    PendingKinds.VOLLEY: "D8",
    PendingKinds.WILD_DRAW_FOUR: "D12",
    PendingKinds.DUMP: "D10",
    PendingKinds.COLOR: "D4",
}

_PENDING_WORDS = {
    PendingKinds.DRAFT: "a draft step: keep or pass the card you look at",
    PendingKinds.TURN: "a turn: play a card or draw",
    PendingKinds.DRAWN: "the card just drawn: play it or pass to keep it",
    PendingKinds.VOLLEY: "a Draw Two volley: play a Draw Two or draw the total",
    PendingKinds.WILD_DRAW_FOUR: "a Wild Draw Four: accept or challenge",
    PendingKinds.DUMP: "a Reverse dump: dump every card of the colour, or pass",
    PendingKinds.COLOR: "a Wild starter: name the colour",
}


def describe_pending(kind: PendingKind) -> str:
    return _PENDING_WORDS.get(kind, "nothing")


def _seat_command(batch: _Batch, command: SeatCommand) -> None:
    state = batch.state
    seat, action = command.seat, command.action
    _check_in_play(state, seat, command.expected_version, "both seats must join first", "you")
    if isinstance(action, SayUno):
        _say_uno(batch, seat)
        return
    pending = state.pending
    if pending.seat != seat:
        whose = "nobody's" if pending.seat is None else f"seat {pending.seat}'s"
        _refuse(
            ErrorCode.NOT_YOUR_TURN,
            f"it is {whose} decision ({describe_pending(pending.kind)})",
            _PENDING_RULE.get(pending.kind),
        )
    if action.type not in allowed_commands(pending):
        _refuse(
            ErrorCode.NOT_NOW,
            f"'{action.type.value}' is not allowed now: you face {describe_pending(pending.kind)}",
            _PENDING_RULE.get(pending.kind),
        )
    handler = _ACTION_HANDLERS[action.type]
    handler(batch, seat, action)


def _check_in_play(state: MatchState, seat: int, expected_version: int | None, not_started: str, who: str) -> None:
    """What a seat's command and a timeout both need: a real seat, a match in play, the version seen."""
    if seat.__class__ is not int or not 0 <= seat < state.seats:
        _refuse(ErrorCode.NOT_A_PLAYER, f"seat must be {_seat_range(state)}, not {seat!r}")
    if state.departed[seat] and state.phase is not Phases.MATCH_OVER:
        _refuse(ErrorCode.NOT_A_PLAYER, f"seat {seat} has left this table")
    phase = state.phase
    if phase is Phases.MATCH_OVER:
        _refuse(ErrorCode.MATCH_OVER, "the match is over")
    if phase is Phases.NEW or phase is Phases.WAITING:
        _refuse(ErrorCode.NOT_NOW, f"the match has not started: {not_started}")
    if expected_version is not None and expected_version != state.version:
        _refuse(
            ErrorCode.STALE_VERSION,
            f"the match has moved on: {who} saw version {expected_version}, it is now {state.version}",
        )


def _head(batch: _Batch, seat: int, action: SeatAction) -> None:
    if not batch.headless:
        batch.emit(EventType.COMMAND, CommandRecorded(seat=seat, command=format_action(action)))


def _say_uno(batch: _Batch, seat: int) -> None:
    """D14: declare your own one-card hand, catch the opponent's, or both at once."""
    state = batch.state
    own = state.uno_open[seat]
    caught = [other for other, open_ in enumerate(state.uno_open) if open_ and other != seat]
    if not own and not caught:
        _refuse(ErrorCode.UNO_NOT_OPEN, "no UNO window is open: nobody holds an undeclared single card", "D14")
    _head(batch, seat, SayUno())
    if own:
        batch.emit(EventType.UNO_SAID, UnoSaid(seat=seat))
    for other in caught:  # D14, D22: any other seat catches, and the first recorded wins the race
        batch.emit(EventType.UNO_CAUGHT, UnoCaught(seat=other, by=seat))
        _draw(batch, other, batch.state.ruleset.uno_penalty, "uno_penalty")


def _draft(batch: _Batch, seat: int, action: Draft) -> None:
    """D3: keep the looked-at card (next goes to the draft pile) or pass it (and keep the next)."""
    _head(batch, seat, action)
    top, second = batch.state.draw_pile[0], batch.state.draw_pile[1]
    hand_card, pile_card = (top, second) if action.keep else (second, top)
    codes = batch.state.facts.codes
    batch.emit(
        EventType.DRAFTED,
        Drafted(
            seat=seat,
            keep=action.keep,
            pile_code=codes[pile_card],
            pile_card=pile_card,
            hand_card=hand_card,
            hand_code=codes[hand_card],
        ),
    )
    state = batch.state
    if state.draft_steps < 2 * state.ruleset.hand_size:
        batch.await_(next_seat(state, seat), PendingKinds.DRAFT)
        return
    batch.emit(
        EventType.DRAFT_COMPLETED, DraftCompleted(codes=batch.codes(state.draft_pile), cards=list(state.draft_pile))
    )
    _turn_starter(batch)


def _find_in_hand(state: MatchState, seat: int, card: Card) -> int | None:
    codes, code = state.facts.codes, card.code
    for card_id in state.hands[seat]:
        if codes[card_id] == code:
            return card_id
    return None


def _check_color(card: Card, action: Play) -> None:
    if card.is_wild:
        if action.color is None:
            rule = "D12" if card.rank is Ranks.WILD_DRAW_FOUR else "D11"
            _refuse(
                ErrorCode.COLOR_REQUIRED, f'{card.code} needs a colour: add "color": red, yellow, green or blue', rule
            )
    elif action.color is not None:
        _refuse(ErrorCode.MALFORMED, f'{card.code} is not a wild: it takes no colour, leave out "color"')


def _play(batch: _Batch, seat: int, action: Play) -> None:
    state = batch.state
    pending = state.pending
    kind = pending.kind
    card = action.card
    facts = state.facts
    if kind is PendingKinds.DRAWN:
        assert pending.card is not None
        if facts.codes[pending.card] != card.code:
            held = _find_in_hand(state, seat, card) is not None
            _refuse(
                ErrorCode.CARD_NOT_PLAYABLE if held else ErrorCode.CARD_NOT_IN_HAND,
                f"after drawing, only the card you drew ({facts.codes[pending.card]}) may be played",
                "D6",
            )
        card_id = pending.card
    else:
        found = _find_in_hand(state, seat, card)
        if found is None:
            _refuse(ErrorCode.CARD_NOT_IN_HAND, f"you do not hold {card.code}")
        card_id = found
    top_id = state.discard[-1]
    if kind is PendingKinds.VOLLEY:
        if not state.ruleset.draw_two_stacking:
            _refuse(ErrorCode.CARD_NOT_PLAYABLE, "this ruleset has no Draw Two volley: draw the cards", "D8")
        if card.rank is not Ranks.DRAW_TWO:
            _refuse(
                ErrorCode.CARD_NOT_PLAYABLE,
                f"facing a Draw Two volley only a Draw Two may be played, or draw {pending.total}",
                "D8",
            )
    elif not facts.matching[state.color][facts.ranks[top_id]][card_id]:  # D5, as cards.plays_on
        colour = state.color.value if state.color else "none"
        _refuse(
            ErrorCode.CARD_NOT_PLAYABLE,
            f"{card.code} does not match the top card {facts.codes[top_id]} (active colour {colour}):"
            " play that colour, the same number or symbol, or a wild",
            "D6" if kind is PendingKinds.DRAWN else "D5",
        )
    if card.rank is Ranks.WILD_DRAW_FOUR and state.ruleset.wd4_check is WildDrawFourCheck.ENFORCED:
        if wild_draw_four_breaks_rule(state, seat, card_id):
            _refuse(
                ErrorCode.CARD_NOT_PLAYABLE,
                f"a Wild Draw Four may be played only when no other card in your hand matches the top card"
                f" {facts.codes[top_id]} by colour, number or symbol",
                "D13c",
            )
    _check_color(card, action)
    volley_total = pending.total if kind is PendingKinds.VOLLEY else 0
    _head(batch, seat, action)
    color = action.color if card.is_wild else card.color
    assert color is not None
    record = CardPlayed(seat=seat, code=card.code, color=_COLOR_VALUE[color], uno=action.uno, card=card_id)
    if _turns_direction(state, card):
        record["direction"] = -state.direction
    batch.emit(EventType.CARD_PLAYED, record)
    _recycle_if_empty(batch)
    _resolve_play(batch, seat, card, volley_total)


def _resolve_play(batch: _Batch, seat: int, card: Card, volley_total: int) -> None:
    """What a single played card does next (D8-D12, D15)."""
    state = batch.state
    opponent = next_seat(state, seat)  # the next player (after a Reverse, in the new direction)
    hand_empty = not state.hands[seat]
    rank = card.rank
    if rank is Ranks.DRAW_TWO:
        total = volley_total + 2
        if hand_empty:
            _draw(batch, opponent, total, "volley")
            _end_round(batch, seat)
        else:
            _draw_two_hits(batch, opponent, total)
    elif rank is Ranks.WILD_DRAW_FOUR:
        if state.ruleset.wd4_check is WildDrawFourCheck.ENFORCED:
            # D13c: checked when played, so nothing to challenge: the next player draws 4 and
            # loses the turn (D12, D20).
            _draw(batch, opponent, 4, "wild_draw_four")
            _after_wild_draw_four(batch, seat, next_seat(state, opponent))
        else:
            batch.await_(opponent, PendingKinds.WILD_DRAW_FOUR)
    elif hand_empty:
        _end_round(batch, seat)
    elif rank is Ranks.SKIP:
        batch.await_(next_seat(state, seat, 2), PendingKinds.TURN)  # D9, D20: the next player is skipped
    elif rank is Ranks.REVERSE:
        reverse = state.ruleset.reverse
        if reverse is ReverseRule.DUMP:
            if dump_offered(state, seat):
                batch.await_(seat, PendingKinds.DUMP)
            else:
                batch.await_(opponent, PendingKinds.TURN)
        elif reverse is ReverseRule.GO_AGAIN or len(active_seats(state)) == 2:
            batch.await_(seat, PendingKinds.TURN)  # a Skip at two seats
        else:
            batch.await_(opponent, PendingKinds.TURN)  # D20: the direction has turned
    else:
        batch.await_(opponent, PendingKinds.TURN)


def _draw_two_hits(batch: _Batch, victim: int, total: int) -> None:
    """A Draw Two (or a volley of them) now faces ``victim``, the next player.

    D8: with ``draw_two_stacking`` the victim decides (volley or draw), even when its hand holds
    no Draw Two, so the flow never tells whether it did. D25: without it there is no choice, so
    nothing is asked (no ``awaiting``, no move clock): the victim draws the total at once and
    loses the turn, as after a Draw Two starter (D4, D19) or an enforced Wild Draw Four (D13c).
    It has not begun a turn, so a UNO window open now stays open (D14, D22: only a ``command``
    of a turn-opening type closes another seat's window). A ruleset recorded before D25
    (``draw_two_at_once`` false) asks for the draw, as those matches were played.
    """
    if batch.state.ruleset.draw_two_hits_at_once:
        _volley_drawn(batch, victim, total)
    else:
        batch.await_(victim, PendingKinds.VOLLEY, total=total)


def _volley_drawn(batch: _Batch, seat: int, total: int) -> None:
    """``seat`` draws a Draw Two's ``total`` and loses the turn (D8, D20, D25)."""
    _draw(batch, seat, total, "volley")
    if _blocked(batch.state):
        _end_blocked_round(batch)  # D17, D24
    else:
        batch.await_(next_seat(batch.state, seat), PendingKinds.TURN)


def _draw_command(batch: _Batch, seat: int, action: Draw) -> None:
    pending = batch.state.pending
    _head(batch, seat, action)
    if pending.kind is PendingKinds.VOLLEY:
        _volley_drawn(batch, seat, pending.total)
        return
    drawn = _draw(batch, seat, 1, "draw")
    if drawn and batch.state.ruleset.draw is DrawRule.UNTIL_PLAYABLE:
        # D21, the seed's variant: keep drawing until a playable card comes, at most 10 cards.
        while len(drawn) < MAX_DRAWN_UNTIL_PLAYABLE and not _playable_now(batch.state, seat, drawn[-1]):
            more = _draw(batch, seat, 1, "draw")
            if not more:
                break
            drawn.extend(more)
    if drawn:
        # D6: the drawer always answers, with `play` (if the card is playable) or `pass`, so the
        # opponent never learns from the flow of the game whether the drawn card was playable.
        batch.await_card(seat, PendingKinds.DRAWN, drawn[-1], batch.state.facts.codes[drawn[-1]])
    elif _blocked(batch.state):
        _end_blocked_round(batch)  # D17, D24: every other seat drew nothing just before
    else:
        batch.await_(next_seat(batch.state, seat), PendingKinds.TURN)


MAX_DRAWN_UNTIL_PLAYABLE = 10  # D21


def _playable_now(state: MatchState, seat: int, card_id: int) -> bool:
    """Could ``seat`` play ``card_id`` on the top card now (D5; D13c where enforced)?"""
    facts = state.facts
    if not facts.matching[state.color][facts.ranks[state.discard[-1]]][card_id]:
        return False
    if card_id in facts.wild_fours and state.ruleset.wd4_check is WildDrawFourCheck.ENFORCED:
        return not wild_draw_four_breaks_rule(state, seat, card_id)
    return True


def _pass(batch: _Batch, seat: int, action: Pass) -> None:
    pending = batch.state.pending
    _head(batch, seat, action)
    if pending.kind is PendingKinds.DUMP and pending.starter:
        batch.await_(seat, PendingKinds.TURN)
    else:
        batch.await_(next_seat(batch.state, seat), PendingKinds.TURN)


def _dump(batch: _Batch, seat: int, action: Dump) -> None:
    """D10: play every other card of the Reverse's colour, all or nothing, in the chosen order."""
    state = batch.state
    color = state.color
    assert color is not None
    wrong = [c.code for c in action.cards if c.color is not color]
    if wrong:
        _refuse(
            ErrorCode.DUMP_WRONG_COLOR,
            f"a dump plays only {color.value} cards; {', '.join(wrong)} cannot be dumped",
            "D10",
        )
    remaining = list(state.hands[seat])
    chosen: list[int] = []
    deck = state.deck
    for card in action.cards:
        match = next((i for i in remaining if deck[i] == card), None)
        if match is None:
            _refuse(ErrorCode.CARD_NOT_IN_HAND, f"you do not hold {card.code} (or not that many of it)", "D10")
        remaining.remove(match)
        chosen.append(match)
    required = dump_cards(state, seat)
    if len(chosen) != len(required):
        _refuse(
            ErrorCode.DUMP_INCOMPLETE,
            f"a dump is all or nothing: you hold {len(required)} {color.value} cards"
            f" ({', '.join(batch.codes(required))}) and must play every one",
            "D10",
        )
    _head(batch, seat, action)
    for index, card_id in enumerate(chosen):
        last = index == len(chosen) - 1
        batch.emit(
            EventType.CARD_PLAYED,
            CardPlayed(seat=seat, code=deck[card_id].code, color=color.value, uno=action.uno and last, card=card_id),
        )
        _recycle_if_empty(batch)
    last_card = deck[chosen[-1]]
    opponent = next_seat(batch.state, seat)
    if not batch.state.hands[seat]:
        if last_card.rank is Ranks.DRAW_TWO:
            _draw(batch, opponent, 2, "volley")
        _end_round(batch, seat)
    elif last_card.rank is Ranks.SKIP:
        batch.await_(seat, PendingKinds.TURN)
    elif last_card.rank is Ranks.DRAW_TWO:
        _draw_two_hits(batch, opponent, 2)
    else:
        batch.await_(opponent, PendingKinds.TURN)


def _accept(batch: _Batch, seat: int, action: Accept) -> None:
    """D12: draw 4; the player of the Wild Draw Four takes another turn (or the round ends, D15)."""
    _head(batch, seat, action)
    context = batch.state.wd4
    assert context is not None
    _draw(batch, seat, 4, "wild_draw_four")
    _after_wild_draw_four(batch, context.player, next_seat(batch.state, seat))


def _after_wild_draw_four(batch: _Batch, player: int, next_turn: int) -> None:
    """The Wild Draw Four's victim has drawn and lost the turn: ``next_turn`` moves (at two
    seats, the player of the Wild Draw Four again), or the round ends if it was the last card."""
    if batch.state.phase is Phases.ROUND_OVER:
        _end_round(batch, player)
    else:
        batch.await_(next_turn, PendingKinds.TURN)


def _challenge(batch: _Batch, seat: int, action: Challenge) -> None:
    """D13: judge the hand as the Wild Draw Four left it; the loser of the challenge draws."""
    state = batch.state
    context = state.wd4
    assert context is not None
    deck = state.deck
    top = deck[context.top_before]
    rule = state.ruleset.wd4_rule
    matching = [i for i in context.hand if could_have_played(deck[i], top, context.color_before, rule)]
    verdict = "illegal" if matching else "legal"
    _head(batch, seat, action)
    batch.emit(
        EventType.CHALLENGE_RESOLVED,
        ChallengeResolved(
            by=seat,
            player=context.player,
            verdict=verdict,
            evidence={
                "rule": rule.value,
                "top": top.code,
                "color": context.color_before.value if context.color_before else None,
            },
            hand=batch.codes(context.hand),
            matching=batch.codes(matching),
        ),
    )
    if matching:
        _draw(batch, context.player, 4, "challenge_upheld")
        batch.await_(seat, PendingKinds.TURN)
    else:
        _draw(batch, seat, state.ruleset.failed_challenge_draw, "challenge_failed")
        _after_wild_draw_four(batch, context.player, next_seat(batch.state, seat))


def _choose_color(batch: _Batch, seat: int, action: ChooseColor) -> None:
    """D4: Player 1 names the colour of a Wild starter; a Wild Draw Four starter then hits Player 2."""
    starter = batch.state.pending.card
    assert starter is not None
    _head(batch, seat, action)
    batch.emit(EventType.COLOR_CHOSEN, ColorChosen(seat=seat, color=action.color.value))
    if batch.state.card(starter).rank is Ranks.WILD_DRAW_FOUR:
        _draw(batch, next_seat(batch.state, seat), 4, "starter")
        batch.await_(seat, PendingKinds.TURN)
    else:
        batch.await_(next_seat(batch.state, seat), PendingKinds.TURN)


_ActionHandler = Callable[[_Batch, int, Any], None]
_ACTION_HANDLERS: dict[CommandType, _ActionHandler] = {
    CommandType.PLAY: _play,
    CommandType.DRAW: _draw_command,
    CommandType.DRAFT: _draft,
    CommandType.PASS: _pass,
    CommandType.DUMP: _dump,
    CommandType.ACCEPT: _accept,
    CommandType.CHALLENGE: _challenge,
    CommandType.COLOR: _choose_color,
}


# ---------------------------------------------------------------- move clocks


def _time_out(batch: _Batch, command: TimeOut) -> None:
    """The server's clock: the pending seat's time ran out (docs/RULES.md "Move clocks and timeouts").

    The decision's default action is applied through the same handler a seat's command uses,
    headed by ``timed_out`` instead of ``command``; the ``TIMEOUTS_TO_FORFEIT``-th timeout in a
    row forfeits the match instead.
    """
    state = batch.state
    seat = command.seat
    if seat.__class__ is not int:
        _refuse(ErrorCode.NOT_A_PLAYER, f"seat must be {_seat_range(state)}, not {seat!r}")
    _check_in_play(state, seat, command.expected_version, "no decision is on the clock", "the clock")
    pending = state.pending
    if pending.seat != seat:
        whose = "nobody's" if pending.seat is None else f"seat {pending.seat}'s"
        _refuse(ErrorCode.NOT_YOUR_TURN, f"it is {whose} decision ({describe_pending(pending.kind)})")
    kind = pending.kind
    count = state.timeouts[seat] + 1
    if count >= TIMEOUTS_TO_FORFEIT:
        batch.emit(EventType.TIMED_OUT, TimedOut(seat=seat, kind=_KIND_VALUE[kind], action=None, count=count))
        _seat_leaves(batch, seat, "timeouts")
        return
    action = default_action(state, seat)
    batch.emit(
        EventType.TIMED_OUT, TimedOut(seat=seat, kind=_KIND_VALUE[kind], action=format_action(action), count=count)
    )
    batch.headless = True
    _ACTION_HANDLERS[action.type](batch, seat, action)
    after = batch.state.pending
    if kind is PendingKinds.TURN and after.kind is PendingKinds.DRAWN and after.seat == seat:
        _pass(batch, seat, _PASS)  # the default draw's card is kept, in the same batch
    batch.headless = False


FORFEIT_REASONS = frozenset({"join_deadline", "withdrawal", "ruling"})


def _call_time(batch: _Batch, command: CallTime) -> None:
    """RULES.md D26: a timed round's time ran out. Recorded with its moment; nothing else happens
    now: the hand in play is finished, and when it ends :func:`_round_limit_winner` decides the
    match on its totals (or, the best total shared, lets one more hand be played). Refused
    (``not_now``) before the match exists, once it is over, and when time was called already:
    the server's call is then a no-op."""
    state = batch.state
    moment = command.moment
    if moment.__class__ is not str or not 0 < len(moment) <= MAX_MOMENT_LENGTH:
        _refuse(ErrorCode.MALFORMED, f"time is called at a moment: a string of 1 to {MAX_MOMENT_LENGTH} characters")
    if state.phase is Phases.NEW or state.phase is Phases.MATCH_OVER:
        _refuse(ErrorCode.NOT_NOW, "time is called only in a match that has been created and has not ended", "D26")
    if state.time_called is not None:
        _refuse(ErrorCode.NOT_NOW, f"time was called already, at {state.time_called}", "D26")
    batch.emit(EventType.TIME_CALLED, TimeCalled(moment=moment))


def _forfeit(batch: _Batch, command: ForfeitCommand) -> None:
    """A tournament's forfeit (docs/TOURNAMENTS.md): ``seat`` loses now, whatever the phase.

    Open from the moment the match is created to its end: a seat that never joined can forfeit.
    The scores stay as they are; the match ends with the seed revealed, as any other end.
    """
    state = batch.state
    if command.seat.__class__ is not int or not 0 <= command.seat < state.seats:
        _refuse(ErrorCode.NOT_A_PLAYER, f"seat must be {_seat_range(state)}, not {command.seat!r}")
    if command.reason not in FORFEIT_REASONS:
        _refuse(ErrorCode.MALFORMED, f"a forfeit's reason is one of {', '.join(sorted(FORFEIT_REASONS))}")
    if state.phase is Phases.NEW or state.phase is Phases.MATCH_OVER:
        _refuse(ErrorCode.NOT_NOW, "only a match that has been created and has not ended can be forfeited")
    if state.departed[command.seat]:
        _refuse(ErrorCode.NOT_NOW, f"seat {command.seat} has already left this table")
    batch.emit(EventType.FORFEIT_DECLARED, ForfeitDeclared(seat=command.seat, reason=command.reason))
    _seat_leaves(batch, command.seat, command.reason)


def _seat_leaves(batch: _Batch, seat: int, reason: str) -> None:
    """A forfeit: at two seats the other seat wins now. At a table of 3+ the seat leaves and play
    goes on (docs/RULES.md "A seat that leaves"): its hand stays set aside, to be scored by D23
    at the round's end; a decision of its own passes to the next player; the last seat left wins."""
    scores = list(batch.state.scores)
    batch.emit(EventType.MATCH_FORFEITED, MatchForfeited(seat=seat, reason=reason))
    state = batch.state
    staying = active_seats(state)
    if state.seats == 2 or len(staying) == 1:
        _end_match(batch, staying[0], scores)
        return
    if state.phase is Phases.WAITING:
        if _all_joined(state):
            _start_match(batch)
        return
    if state.pending.seat != seat:
        return
    if state.phase is Phases.ROUND_OVER:  # it faced a last Wild Draw Four, still to settle (D15)
        _end_round(batch, next(s for s in range(state.seats) if not state.hands[s]))
    else:
        batch.await_(next_seat(state, seat), PendingKinds.TURN)


_PASS = Pass()
_DEFAULT_ACTIONS: dict[PendingKind, SeatAction] = {
    PendingKinds.DRAFT: Draft(keep=True),
    PendingKinds.TURN: Draw(),
    PendingKinds.DRAWN: _PASS,
    PendingKinds.VOLLEY: Draw(),
    PendingKinds.WILD_DRAW_FOUR: Accept(),
    PendingKinds.DUMP: _PASS,
}


def default_action(state: MatchState, seat: int) -> SeatAction:
    """The action a timeout applies for ``seat``'s pending decision (docs/RULES.md "Move clocks").

    A Wild starter's colour is the one the seat holds most cards of; a tie, or a hand without a
    coloured card, takes the first in the order red, yellow, green, blue.
    """
    kind = state.pending.kind
    if kind is PendingKinds.COLOR:
        colors = state.facts.colors
        counts = dict.fromkeys(COLOR_ORDER, 0)
        for card_id in state.hands[seat]:
            color = colors[card_id]
            if color is not None:
                counts[color] += 1
        return ChooseColor(max(COLOR_ORDER, key=counts.__getitem__))  # max keeps the first of a tie
    action = _DEFAULT_ACTIONS.get(kind)
    if action is None:  # pragma: no cover - a pending seat always faces one of the kinds above
        raise RuntimeError(f"no default action for {kind}")
    return action
