"""engine.record.snapshot_codec: MatchState <-> JSON-ready dict, exact in both directions."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from engine.game.cards import Color
from engine.game.rulesets import CLASSIC_2P, UNO_DUO, Ruleset
from engine.game.state import MatchState, Pending, PendingKind, Phase, WildDrawFourContext
from engine.record.snapshot_codec import SNAPSHOT_FORMAT, decode_state, encode_state
from tests.server.store.helpers import play_random


def roundtrip(state: MatchState) -> MatchState:
    return decode_state(json.loads(json.dumps(encode_state(state))))


def test_every_field_of_match_state_is_encoded() -> None:
    names = {f.name for f in dataclasses.fields(MatchState)}
    assert set(encode_state(MatchState())) == names | {"format"}


@pytest.mark.parametrize("ruleset", [UNO_DUO, CLASSIC_2P], ids=lambda r: r.name)
def test_every_state_of_real_matches_round_trips(ruleset: Ruleset) -> None:
    seen_kinds: set[PendingKind] = set()
    wd4 = 0
    for seed in (1, 2):
        for match, _events in play_random(seed, ruleset, max_commands=400):
            state = match.state
            seen_kinds.add(state.pending.kind)
            wd4 += state.wd4 is not None
            assert roundtrip(state) == state
    # classic-2p has no Wild Draw Four decision (D13c enforced), no Draw Two decision (D25) and
    # restarts on a Wild starter: a turn and a drawn card
    assert PendingKind.TURN in seen_kinds and len(seen_kinds) >= (4 if ruleset is UNO_DUO else 2)
    assert wd4 > 0  # a Wild Draw Four context was part of some state


def test_hand_built_states_round_trip() -> None:
    custom = Ruleset.from_dict({**UNO_DUO.to_dict(), "target": 350, "uno_penalty": 4})
    states = [
        MatchState(),
        MatchState(
            version=77,
            ruleset=custom,
            commitment="ab" * 32,
            entropies=("left", None),
            phase=Phase.PLAY,
            round=3,
            player1=1,
            scores=(12, 190),
            cuts=2,
            draw_pile=(5, 9, 111),
            draft_pile=(3,),
            discard=(0, 108),
            hands=((1, 2, 110), ()),
            color=Color.BLUE,
            pending=Pending(PendingKind.VOLLEY, seat=0, total=4, card=None, starter=False),
            uno_said=(True, False),
            uno_open=(False, True),
            wd4=WildDrawFourContext(player=1, hand=(4, 7), top_before=0, color_before=None),
            last_challenge={"by": 0, "hand": [1, 2], "evidence": {"matching": None}},
            recycles=1,
            draft_steps=14,
            winner=None,
            last_round={"round": 2, "scores": [12, 190]},
            server_seed="cd" * 32,
            timeouts=(2, 1),
        ),
        MatchState(
            phase=Phase.MATCH_OVER,
            winner=0,
            pending=Pending(PendingKind.DUMP, seat=1, starter=True),
            wd4=WildDrawFourContext(player=0, hand=(), top_before=3, color_before=Color.RED),
        ),
    ]
    for kind in PendingKind:
        states.append(MatchState(pending=Pending(kind, seat=1, card=42)))
    for state in states:
        encoded = encode_state(state)
        assert encoded["format"] == SNAPSHOT_FORMAT
        assert json.loads(json.dumps(encoded)) == encoded  # JSON-ready as it is
        back = roundtrip(state)
        assert back == state
        assert isinstance(back.draw_pile, tuple) and isinstance(back.hands[0], tuple)
        assert back.ruleset == state.ruleset


def broken(**changes: Any) -> dict[str, Any]:
    data = encode_state(MatchState(pending=Pending(PendingKind.TURN, seat=0)))
    data.update(changes)
    return data


@pytest.mark.parametrize(
    "data",
    [
        None,
        [],
        broken(format=999),
        {k: v for k, v in broken().items() if k != "hands"},
        broken(extra=1),
        broken(version="7"),
        broken(phase="nap"),
        broken(color="purple"),
        broken(draw_pile=[1, "2"]),
        broken(hands=[[1]]),
        broken(uno_said=[1, 0]),
        broken(pending={"kind": "turn", "seat": "0"}),
        broken(pending={"kind": "turn", "seat": 0, "total": 0, "card": None, "starter": "no"}),
        broken(wd4={"player": 0}),
        broken(ruleset={"name": "uno-duo", "deck_size": 50}),
        broken(entropies=["a", 1]),
        broken(last_round=[1]),
        broken(scores=[1, True]),
        broken(timeouts=[1]),
        broken(timeouts=[0, "1"]),
    ],
)
def test_malformed_snapshots_raise_value_error(data: Any) -> None:
    with pytest.raises(ValueError):
        decode_state(data)
