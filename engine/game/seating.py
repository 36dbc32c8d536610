"""Who sits where and who is next: the order of play at a table of 2 to 10 (RULES.md D18, D20).

Seats are numbered 0…N−1 clockwise; the next player is the next seat still at the table in the
current direction. At two seats the next player is simply the other seat.
"""

from __future__ import annotations

from engine.game.state import MatchState


def next_seat(state: MatchState, seat: int, steps: int = 1) -> int:
    """The seat ``steps`` players after ``seat`` in the current direction, skipping departed seats."""
    n = state.seats
    if n == 2:  # the two-seat hot path: always the other seat (a two-seat match ends on a forfeit)
        return seat if steps % 2 == 0 else 1 - seat
    departed = state.departed
    step = state.direction
    for _ in range(steps):
        seat = (seat + step) % n
        while departed[seat]:
            seat = (seat + step) % n
    return seat


def next_clockwise(state: MatchState, seat: int) -> int:
    """The next seat still at the table clockwise, whatever the direction (the deal passes so, D18)."""
    n = state.seats
    seat = (seat + 1) % n
    while state.departed[seat]:
        seat = (seat + 1) % n
    return seat


def active_seats(state: MatchState) -> tuple[int, ...]:
    """The seats still at the table, in seat order."""
    return tuple(i for i in range(state.seats) if not state.departed[i])
