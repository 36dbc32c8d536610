"""The scrubber's headless core: the fold, the marks, moving, perspectives, words, and speed."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.fairness.audit_report import audit, table_at
from engine.game.errors import ReplayUnreadable
from engine.protocol.views import view
from engine.record.sealing import AUDITOR
from tests.tui.helpers import CLASSIC, SAMPLE, sample_text, tampered_text
from tui_client.models.replay_model import PERSPECTIVES, MarkKind, ReplayModel, TimelineBar


@pytest.fixture(scope="module")
def model() -> ReplayModel:
    return ReplayModel(sample_text(), source=str(SAMPLE))


def test_folds_every_event_and_agrees_with_the_audit(model: ReplayModel) -> None:
    assert model.ok and model.total == 513 and len(model.states) == 514
    report = audit(sample_text())
    assert model.challenges == report.challenges  # the same function, the same facts
    assert [c.resolved_seq for c in model.challenges] == [80, 90, 402, 415]
    assert model.table(80) == table_at(model.events, 80)
    assert [r.scores for r in model.round_scores] == [(0, 70), (0, 182), (0, 230)]
    assert model.target == 200


def test_timeline_marks(model: ReplayModel) -> None:
    kinds = {kind: [m.seq for m in model.marks if m.kind is kind] for kind in MarkKind}
    assert kinds[MarkKind.CHALLENGE] == [80, 90, 402, 415]
    assert kinds[MarkKind.ROUND_END] == [205, 417, 511]
    assert kinds[MarkKind.UNO_CAUGHT] == [390]
    assert 149 in kinds[MarkKind.VOLLEY]  # seat 0 faces a volley of 4
    bar = TimelineBar(80, model.total, model.marks)
    cells = bar.cells()
    assert cells[bar.column(80)] is MarkKind.CHALLENGE and cells[bar.column(390)] is MarkKind.UNO_CAUGHT
    for column in range(80):
        assert bar.column(bar.seq_at(column)) == column  # a click lands in the column clicked


def test_moving_by_round_and_challenge(model: ReplayModel) -> None:
    assert [start for _round, start in model.round_starts] == [6, 206, 418]
    assert model.next_round(1) == 6 and model.next_round(6) == 206 and model.next_round(418) == 513
    assert model.prev_round(300) == 206 and model.prev_round(206) == 6 and model.prev_round(6) == 1
    assert model.next_challenge(1) == 80 and model.next_challenge(80) == 90 and model.next_challenge(415) == 80
    assert model.prev_challenge(90) == 80 and model.prev_challenge(80) == 415


def test_a_seat_sees_only_what_it_was_shown(model: ReplayModel) -> None:
    for viewer in PERSPECTIVES:
        assert model.view_at(81, viewer) == view(model.states[81], viewer)
    assert "hands" in model.view_at(81, AUDITOR)
    seat0 = model.view_at(81, 0)
    assert "hands" not in seat0 and seat0["hand"] is not None and seat0["hand_counts"][1] == 10
    # seat 1's penalty draw: its codes are sealed to seat 1
    assert model.describe(81, 1).endswith("W+4 BS BS R9")
    assert model.describe(81, 0) == "seat 1 drew 4 cards (the challenge was upheld)"
    # the challenged hand and what matched are opened to the challenger (seat 0) only
    assert "(YS could have been played) — seat 1 draws 4 — seat 1's hand: R3 R7 Y1 Y1 YS Y+2" in model.describe(80, 0)
    assert "could have been played" not in model.describe(80, 1) and "hand:" not in model.describe(80, 1)
    at0, at1 = model.challenge_at(80, 0), model.challenge_at(80, 1)
    assert at0 is not None and at0.hand_shown and at0.hands_shown == (True, False)
    assert at1 is not None and not at1.hand_shown and at1.hands_shown == (False, True)


def test_events_in_plain_words(model: ReplayModel) -> None:
    assert model.describe(77, AUDITOR) == "seat 1 played W+4 naming green — seat 0 may accept or challenge"
    assert model.describe(80, AUDITOR) == (
        "seat 0 challenged seat 1's Wild Draw Four: it was illegal (YS could have been played)"
        " — seat 1 draws 4 — seat 1's hand: R3 R7 Y1 Y1 YS Y+2"
    )
    # the words are the live table's (tui_client.models.narration), told with seat numbers: every event has a line
    assert model.describe(76, AUDITOR) == "seat 1: play W+4 naming green"
    assert model.describe(78, AUDITOR) == "seat 0 may accept the Wild Draw Four or challenge it"
    played = [s for s in range(1, model.total + 1) if "faces 4" in model.describe(s, AUDITOR)]
    assert played and model.describe(played[0], AUDITOR).startswith("seat 1 played ")
    assert model.describe(205, AUDITOR).startswith("round 1 over: seat 0 went out; seat 1's ")
    assert model.describe(205, AUDITOR).endswith(" count 70 points — scores: seat 0 0, seat 1 70")
    for seq in range(1, model.total + 1):
        for viewer in PERSPECTIVES:
            assert model.describe(seq, viewer)
    log = model.log(80, AUDITOR, before=3)
    assert [line.seq for line in log] == [77, 78, 79, 80] and log[-1].current


def test_the_audit_panel_shows_from_the_verdict_to_its_penalty(model: ReplayModel) -> None:
    assert model.challenge_at(79, AUDITOR) is None
    at = model.challenge_at(81, AUDITOR)
    assert at is not None and at.number == 1 and at.span == (80, 81) and at.facts.matching == ["YS"]
    assert model.challenge_at(82, AUDITOR) is None


def test_a_failing_replay_is_not_folded() -> None:
    bad = ReplayModel(tampered_text())
    assert not bad.ok and bad.total == 0 and bad.challenges == []
    assert bad.failure_words().startswith("NOT VERIFIED: line 81: field 'matching'")


def test_not_a_replay_is_unreadable() -> None:
    with pytest.raises(ReplayUnreadable):
        ReplayModel("not json\n")


@pytest.mark.parametrize("path", [SAMPLE, CLASSIC], ids=["uno-duo-200-points", "classic-1374-events"])
def test_every_event_in_every_perspective_has_its_frame(path: Path) -> None:
    """Every frame (state, view, words of the last 30 events, audit facts) of every event, in every
    perspective, newest first: each is the event it was asked for, seen by the viewer asked for.
    (How fast: ``unoduo bench scrub``, docs/BENCHMARKS.md; timings are never asserted in tests.)"""
    model = ReplayModel(path.read_text(encoding="utf-8"))
    for viewer in PERSPECTIVES:
        for seq in range(model.total, 0, -1):
            frame = model.frame(seq, viewer, before=30)
            assert frame.seq == seq and frame.viewer == viewer and frame.view["version"] == seq
            assert 1 <= len(frame.log) <= 31
