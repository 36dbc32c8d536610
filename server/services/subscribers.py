"""A list of subscribers to one kind of news (e.g. "this tournament match ended"), told in order.

Given at construction to the service that has the news and to those that want it, so neither
patches the other: ``MatchService(…, on_match_over=ended)`` tells it, ``TournamentService(…,
match_over=ended)`` subscribes to it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Subscribers(Generic[T]):
    """Callables told each ``value`` (``subscribers(value)``), in the order they subscribed."""

    def __init__(self) -> None:
        self._subscribers: list[Callable[[T], None]] = []

    def subscribe(self, subscriber: Callable[[T], None]) -> None:
        self._subscribers.append(subscriber)

    def __call__(self, value: T) -> None:
        for subscriber in list(self._subscribers):
            subscriber(value)
