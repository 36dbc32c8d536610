"""The table takes the socket's ``decision`` messages (``?frames=decision``): each event of a
decision is checked (hash chain, openings, seed) and narrated exactly as the same events sent one
message each, and the table shows the view after the decision's last event.

Model-level, on real matches the engine plays (tests/tui/tables.py): the per-event messages a
viewer is sent, and the same events grouped as the server groups them (one head event and what
follows it up to the next), fed to two models that must end alike. Inside a decision the words
are told against the table as the decision's events change it (a starter Reverse of a new round
at a table of three: who plays first), though only the view after its last event is sent.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.game.events import HEAD_TYPES
from engine.protocol.socket_protocol import envelopes_of
from tests.tui.tables import MATCH, real_match, real_messages, seat_names
from tui_client.connection.api import socket_url
from tui_client.models.play_model import PlayModel


def decisions(messages: list[str]) -> list[dict[str, Any]]:
    """The per-event messages grouped into ``decision`` messages, as the server sends them."""
    out: list[dict[str, Any]] = []
    for text in messages:
        message = json.loads(text)
        event = message["event"]
        if event["type"] in HEAD_TYPES or not out:
            out.append({"type": "decision", "events": [], "view": None})
        out[-1]["events"].append(event)
        out[-1]["view"] = message["view"]
    return out


def test_the_client_asks_for_decision_frames() -> None:
    assert socket_url("http://h:1", "m_1", 7) == "ws://h:1/api/matches/m_1/ws?since=7&frames=decision"


@pytest.mark.parametrize(
    ("seats", "viewer", "seed"),
    [(2, 0, "tui-table"), (4, 1, "tui-table"), (5, 3, "tui-table"), (3, 0, "s5")],  # s5: a starter Reverse
)
def test_decision_messages_are_taken_event_by_event(seats: int, viewer: int, seed: str) -> None:
    match = real_match(seats, seed=seed)
    messages = real_messages(match, viewer, match.dealer.server_seed)
    grouped = decisions(messages)
    assert len(grouped) < len(messages) / 2  # the test batches several events a message
    by_event, by_decision = (PlayModel(MATCH, viewer, seat_names(seats)) for _ in range(2))
    for text in messages:
        assert by_event.apply(json.loads(text)) == []
    for message in grouped:
        assert by_decision.apply(message) == []
    assert by_decision.check.ok and by_decision.check.seed_checked
    assert by_decision.check.receipt() == by_event.check.receipt()
    assert by_decision.check.openings == by_event.check.openings > 0
    assert by_decision.view == by_event.view and by_decision.over
    assert [(line.seq, line.text, line.style) for line in by_decision.log] == [
        (line.seq, line.text, line.style) for line in by_event.log
    ]


def test_a_broken_chain_inside_a_decision_is_caught() -> None:
    match = real_match(3)
    grouped = decisions(real_messages(match, 0, match.dealer.server_seed))
    target = next(m for m in grouped if len(m["events"]) > 2)
    target["events"][1] = {**target["events"][1], "prev": "0" * 64}
    model = PlayModel(MATCH, 0, seat_names(3))
    problems = [p for message in grouped for p in model.apply(message)]
    assert problems and not model.check.ok
    assert problems[0].startswith(f"event #{target['events'][1]['seq']}:"), problems[0]


def test_envelopes_of() -> None:
    one = {"seq": 1}
    assert envelopes_of({"type": "event", "event": one}) == [one]
    assert envelopes_of({"type": "decision", "events": [one, {"seq": 2}]}) == [one, {"seq": 2}]
    assert envelopes_of({"type": "decision", "events": []}) == []
    assert envelopes_of({"type": "decision", "events": [one, 3]}) == []
    assert envelopes_of({"type": "result"}) == []
    model = PlayModel(MATCH, 0)
    assert model.apply({"type": "decision", "events": [], "view": {}}) and not model.check.ok
