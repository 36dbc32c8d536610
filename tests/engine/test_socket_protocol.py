"""engine/protocol/socket_protocol.py: the close codes and what they ask of a client, the reconnect policy."""

from __future__ import annotations

from engine.protocol.socket_protocol import (
    FINAL,
    FINAL_WORDS,
    REASON_LIMIT,
    Close,
    Reconnect,
    close_reason,
    envelopes_of,
)


def test_a_refusal_closes_with_4000_plus_its_status_and_unavailable_asks_to_try_again() -> None:
    assert [Close.of_status(s) for s in (400, 401, 403, 404, 429)] == [4400, 4401, 4403, 4404, 4429]
    assert Close.of_status(503) == Close.TRY_AGAIN == 1013


def test_only_closes_a_retry_cannot_mend_are_final_and_each_has_words() -> None:
    assert set(FINAL_WORDS) == FINAL
    for again in (Close.RESTART, Close.TRY_AGAIN, Close.INTERNAL, Close.TOO_MANY):
        assert again not in FINAL  # a restart, a slow reader, a bug or a lockout: try again later
    assert Close.OVER not in FINAL  # the match's end: the table says so, no reconnect and no error


def test_the_pauses_grow_to_five_seconds_and_start_again_once_a_connection_speaks() -> None:
    pauses = Reconnect()
    assert [pauses.next_delay() for _ in range(7)] == [0.2, 0.5, 1.0, 2.0, 5.0, 5.0, 5.0]
    pauses.heard()
    assert pauses.next_delay() == 0.2


def test_a_close_reason_is_cut_to_the_frame_never_inside_a_character() -> None:
    reason = close_reason("é" * 200)
    assert len(reason.encode()) <= REASON_LIMIT and set(reason) == {"é"}
    assert close_reason("short") == "short"


def test_the_envelopes_of_a_message() -> None:
    one = {"seq": 1}
    assert envelopes_of({"type": "event", "event": one}) == [one]
    assert envelopes_of({"type": "decision", "events": [one, {"seq": 2}]}) == [one, {"seq": 2}]
    assert envelopes_of({"type": "decision", "events": [one, 3]}) == []
    assert envelopes_of({"type": "result"}) == [] and envelopes_of([one]) == []
