"""Background work of the tournament service (recording a result, a join deadline) that fails
for another reason than the database is said in the log and tried again, never lost unseen."""

from __future__ import annotations

import asyncio
import logging
from types import SimpleNamespace
from typing import Any, cast

import pytest

from server.services import tournaments as module
from server.services.tournaments import MAX_FAILURES, TournamentService


def service() -> TournamentService:
    matches: Any = SimpleNamespace(clock=None, registry=None, commands=None, reads=None)
    return TournamentService(store=cast(Any, None), matches=matches)


async def no_wait(_seconds: float) -> None:
    return None


def test_work_that_fails_once_is_tried_again(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr("server.services.tournaments.asyncio.sleep", no_wait)
    calls: list[int] = []

    async def work() -> None:
        calls.append(1)
        if len(calls) == 1:
            raise LookupError("the summary is not there yet")

    with caplog.at_level(logging.ERROR, logger=module.__name__):
        asyncio.run(service()._retrying(work, "the result of m_x"))
    assert len(calls) == 2
    assert "the result of m_x: failed; trying again" in caplog.text
    assert "the summary is not there yet" in caplog.text


def test_work_that_keeps_failing_is_given_up_and_said(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr("server.services.tournaments.asyncio.sleep", no_wait)
    calls: list[int] = []

    async def work() -> None:
        calls.append(1)
        raise RuntimeError("broken")

    with caplog.at_level(logging.ERROR, logger=module.__name__):
        asyncio.run(service()._retrying(work, "the result of m_y"))
    assert len(calls) == MAX_FAILURES + 1
    assert f"the result of m_y: failed {MAX_FAILURES + 1} times; given up" in caplog.text


def test_the_seeds_kept_are_bounded() -> None:
    kept = service()
    kept.seed = lambda tournament_id: tournament_id.encode()  # type: ignore[method-assign]
    for n in range(module.SEEDS_KEPT + 50):
        asyncio.run(kept._seed(f"t_{n}"))
    assert len(kept._seeds) == module.SEEDS_KEPT and "t_0" not in kept._seeds
