"""Snapshots: loading a match from its latest snapshot plus the tail gives the same state as
folding every event; a snapshot is only a cache, so deleting or spoiling them changes nothing."""

from __future__ import annotations

import pytest
from sqlalchemy import text, update

from engine.game.evolve import fold
from engine.game.rulesets import CLASSIC_2P, UNO_DUO, Ruleset
from engine.game.state import INITIAL_STATE, Phase
from server.store.event_store import EventStore
from server.store.models import snapshots_table
from server.store.snapshots import Snapshots
from server.store.streams import match_stream
from tests.server.store.helpers import play_random

EVERY = 40


def store_match(
    store: EventStore, snaps: Snapshots, match_id: str, seed: int, ruleset: Ruleset, max_commands: int | None = None
) -> tuple[str, int]:
    """Play a random match, appending each command's events as one command; check loads on the way."""
    stream = match_stream(match_id)
    commands = 0
    for match, events in play_random(seed, ruleset, max_commands):
        appended = store.append(
            stream,
            events,
            expected_seq=match.state.version - len(events),
            command_id=f"cmd-{commands}",
            seal_seed=match.dealer.server_seed,
        )
        snaps.after_append(stream, match.state, appended)
        if commands % 37 == 0:  # now and then, a load from whatever snapshot is there
            assert snaps.load(stream, save=False) == match.state
        commands += 1
    assert max_commands is not None or match.state.phase is Phase.MATCH_OVER
    return stream, match.state.version


@pytest.mark.parametrize(
    ("seed", "ruleset", "max_commands"), [(9, UNO_DUO, None), (9, CLASSIC_2P, 300)], ids=["uno-duo", "classic"]
)
def test_loading_with_snapshots_equals_folding_everything(
    store: EventStore, seed: int, ruleset: Ruleset, max_commands: int | None
) -> None:
    """A whole UNO Duo match (5 rounds, its end and seed reveal) and the start of a classic one."""
    snaps = Snapshots(store, every=EVERY)
    stream, version = store_match(store, snaps, "m1", seed, ruleset, max_commands)
    assert snaps.count(stream) >= version // EVERY - 1 >= 5
    folded = fold(e.event() for e in store.iter_stream(stream))
    with_snapshots = snaps.load(stream)
    without = snaps.load(stream, use_snapshots=False, save=False)
    assert with_snapshots == without == folded and folded.version == version
    latest = snaps.latest(stream)
    assert latest is not None and version - latest.seq < EVERY  # only the tail was folded

    assert snaps.delete() >= 5
    assert snaps.count() == 0
    assert snaps.load(stream, save=False) == folded  # no snapshots: same result


def test_a_snapshot_that_does_not_fit_the_log_is_ignored(store: EventStore) -> None:
    snaps = Snapshots(store, every=EVERY)
    stream, _ = store_match(store, snaps, "m2", 3, UNO_DUO, max_commands=150)
    truth = snaps.load(stream, use_snapshots=False, save=False)
    latest = snaps.latest(stream)
    assert latest is not None
    with store.engine.begin() as conn:  # a stale snapshot: the event it was taken at is not that one
        conn.execute(
            update(snapshots_table)
            .where(snapshots_table.c.stream == stream, snapshots_table.c.seq == latest.seq)
            .values(hash="f" * 64)
        )
    assert snaps.load(stream, save=False) == truth
    with store.engine.begin() as conn:  # unreadable snapshots of any kind
        conn.execute(update(snapshots_table).values(state={"format": 1, "junk": True}))
    assert snaps.latest(stream) is None
    assert snaps.load(stream, save=False) == truth


def test_load_saves_a_snapshot_when_the_tail_is_long(store: EventStore) -> None:
    snaps = Snapshots(store, every=EVERY)
    stream, version = store_match(store, Snapshots(store, every=10**9), "m3", 4, UNO_DUO, max_commands=100)
    assert snaps.count(stream) == 0
    state = snaps.load(stream)
    assert snaps.count(stream) == 1 and state.version == version
    latest = snaps.latest(stream)
    assert latest is not None and latest.seq == version and latest.state == state
    assert snaps.load(stream) == state


def test_an_empty_stream_loads_the_initial_state(store: EventStore) -> None:
    snaps = Snapshots(store, every=EVERY)
    assert snaps.load("match-none") == INITIAL_STATE
    assert snaps.count() == 0
    with pytest.raises(ValueError):
        Snapshots(store, every=0)
    with store.engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM snapshots")).scalar_one() == 0
