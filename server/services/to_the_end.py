"""Work that must finish once begun, whoever asked for it: :func:`to_the_end`.

An append the store makes has to reach the live copy of its match, and through it the clock, the
house bots and the tournament (``MatchService._after_change``). The coroutine that asked may be
cancelled half-way: a socket's command task ends when its client closes the socket, and a client
closes it as soon as it sees the match end, which is while the server is still landing that very
append (a club evening stalled so: the match was over, its tournament never heard).
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


async def to_the_end(work: Coroutine[Any, Any, T]) -> T:
    """Run ``work`` to its end and return what it returns. A cancellation of the caller meanwhile
    waits for the end (the caller keeps whatever it holds, such as a match's lock, until then)
    and is raised after it; only a cancellation of ``work`` itself ends it early."""
    task = asyncio.ensure_future(work)
    cancelled = False
    while True:
        try:
            result = await asyncio.shield(task)
        except asyncio.CancelledError:
            if task.done():
                raise  # ``work`` itself was cancelled (or raised CancelledError)
            cancelled = True
            continue
        if cancelled:
            raise asyncio.CancelledError
        return result
