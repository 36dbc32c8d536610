"""The table's ``e`` key (tui_client.models.proof_key): the proof of the last challenge or caught UNO the
seat took part in, made from the events the table received and checked, written to a file whose
place is said; refused in words when the seat holds none (the challenged seat, a spectator, a
match with no challenge yet). Model-level on a stacked-deck match, and at a live table (Pilot)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.game.evolve import evolve
from engine.game.state import INITIAL_STATE
from engine.protocol.views import view
from engine.record.sealing import SPECTATOR, Viewer
from tests.engine.test_proofs import proof_check, scenario_match, sealed, seen_by
from tests.tui.helpers import until
from tests.tui.test_lobby_screens import canned_table, lobby_app
from tui_client.models.play_model import PlayModel
from tui_client.models.proof_key import PROOFS_DIR, write_last_proof


def table_of(name: str, viewer: Viewer) -> PlayModel:
    """A table's model that received the scenario's match as ``viewer``, one socket message an event."""
    match, seed = scenario_match(name)
    model = PlayModel("m1", viewer if isinstance(viewer, int) else None, ["ann", "bob"])
    state = INITIAL_STATE
    for event, envelope in zip(match.events, seen_by(sealed(match, seed, "m1"), viewer), strict=True):
        state = evolve(state, event)
        assert model.apply({"type": "event", "event": envelope, "view": view(state, viewer)}) == []
    return model


def test_the_challenger_writes_the_proof_and_it_checks(tmp_path: Path) -> None:
    model = table_of("d13_illegal_no_playable.json", 0)
    done = write_last_proof(model.received, model.seat, model.match, tmp_path)
    assert done.path == tmp_path / "proof-m1-54.json"
    assert done.words == f"proof of #54 (D13: illegal) written to {done.path} · tools/proof_check.py checks it"
    words = proof_check.check(done.path.read_text(encoding="utf-8"), match="m1")
    assert words.startswith("proof ok: match m1 #54 challenge_resolved (D13): illegal")


@pytest.mark.parametrize(
    ("viewer", "words"),
    [
        (1, "no challenge you made and no caught UNO of yours yet: nothing to prove"),
        (SPECTATOR, "a spectator took part in no challenge or catch: nothing to prove"),
    ],
)
def test_a_seat_without_the_hand_is_told_so(tmp_path: Path, viewer: Viewer, words: str) -> None:
    model = table_of("d13_illegal_no_playable.json", viewer)
    done = write_last_proof(model.received, model.seat, model.match, tmp_path)
    assert done.path is None and done.words == words and list(tmp_path.iterdir()) == []


def test_either_side_of_a_catch_proves_it(tmp_path: Path) -> None:
    for seat in (0, 1):
        model = table_of("d14_caught.json", seat)
        done = write_last_proof(model.received, seat, model.match, tmp_path / str(seat))
        assert done.path is not None
        proof = json.loads(done.path.read_text(encoding="utf-8"))
        assert proof["open"] == {} and proof["verdict"]["verdict"] == "caught"
        assert proof_check.check(done.path.read_text(encoding="utf-8")).startswith("proof ok")


@pytest.mark.anyio
async def test_the_e_key_at_the_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app, api = lobby_app(tmp_path, monkeypatch)
    async with app.run_test(size=(80, 24)) as pilot:
        table = await canned_table(pilot, api)
        await pilot.press("e")  # the canned match has no challenge and no catch yet
        assert table.model.status == "no challenge you made and no caught UNO of yours yet: nothing to prove"
        assert table.model.status_style == "refusal"
        received: list[dict[str, Any]] = table_of("d13_illegal_no_playable.json", 0).received
        table.model.received = received  # as if the table had received that match
        await pilot.press("e")
        path = tmp_path / PROOFS_DIR / f"proof-{table.model.match}-54.json"
        await until(pilot, lambda: path.exists(), "the proof file")
        assert table.model.status == f"proof of #54 (D13: illegal) written to {path} · tools/proof_check.py checks it"
        assert proof_check.check(path.read_text(encoding="utf-8")).startswith("proof ok")
