"""The play client's headless core on canned envelopes and views: the log in words, the actions a
view offers (a volley, a Wild Draw Four, an UNO window), keys into commands, the checks of the
chain and of the openings, the lobby's list and the config files."""

from __future__ import annotations

import json
import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from engine.record.chain import ZERO_HASH
from engine.record.replay import stream_of
from engine.record.sealing import openings_for, seal_event
from tui_client.connection.api import refusal_words, socket_url
from tui_client.connection.config import ConfigStore, Credentials, Receipt, server_key
from tui_client.models.lobby_model import lobby_entries, next_lines
from tui_client.models.narration import describe_event
from tui_client.models.play_model import PlayModel, offered_actions, prompt_words
from tui_client.models.receipts import ChainCheck
from tui_client.widgets.play_widgets import hand_layout, status_text

MATCH = "m_canned"
SEED = bytes(range(32))
NAMES = ["ann", "greedy-1"]


class Chain:
    """Envelopes as the server seals them (engine.record.sealing), with the openings ``viewer`` is sent."""

    def __init__(self, viewer: int | str = 0) -> None:
        self.viewer = viewer
        self.prev = ZERO_HASH
        self.seq = 0

    def event(self, type_: str, data: dict[str, Any]) -> dict[str, Any]:
        self.seq += 1
        at = f"2026-01-01T00:00:{self.seq % 60:02d}.000000Z"
        sealed = seal_event(stream_of(MATCH), self.seq, type_, data, at, self.prev, SEED)
        self.prev = sealed.envelope["hash"]
        opened = openings_for(type_, sealed.envelope["data"], sealed.openings, self.viewer)  # type: ignore[arg-type]
        return {**sealed.envelope, "open": dict(opened)}


def view(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "viewer": 0,
        "version": 1,
        "ruleset": "uno-duo",
        "rules": {"hand_size": 7},
        "phase": "play",
        "round": 1,
        "scores": [0, 0],
        "target": 200,
        "player1": 0,
        "turn": 0,
        "pending": {"kind": "turn", "seat": 0},
        "hand": ["R5", "B+2", "W"],
        "hand_counts": [3, 5],
        "top": "R7",
        "color": "red",
        "draw_pile": 40,
        "draft_pile": [],
        "uno": [False, False],
        "legal": [],
        "deadline": None,
    }
    base.update(changes)
    return base


def message(event: dict[str, Any], v: dict[str, Any]) -> dict[str, Any]:
    return {"type": "event", "event": event, "view": {**v, "version": event["seq"]}}


def model_with(*pairs: tuple[str, dict[str, Any], dict[str, Any]], seat: int | None = 0) -> PlayModel:
    chain = Chain(seat if seat is not None else "spectator")
    m = PlayModel(MATCH, seat, list(NAMES))
    for type_, data, v in pairs:
        m.apply(message(chain.event(type_, data), v))
    return m


# ---------------------------------------------------------------- the log in words


def test_a_draw_two_and_the_volley_it_opens_are_one_line() -> None:
    m = model_with(
        ("card_played", {"seat": 1, "code": "R+2", "color": "red", "uno": False, "card": 23}, view()),
        (
            "awaiting",
            {"seat": 0, "kind": "volley", "total": 4},
            view(pending={"kind": "volley", "seat": 0, "total": 4}),
        ),
    )
    assert m.log[-1].text == "greedy-1 played R+2 — you face 4"
    assert len(m.log) == 1


def test_a_volley_from_the_other_side() -> None:
    m = model_with(
        ("card_played", {"seat": 0, "code": "B+2", "color": "blue", "uno": False, "card": 98}, view()),
        ("awaiting", {"seat": 1, "kind": "volley", "total": 2}, view(pending={"kind": "volley", "seat": 1})),
    )
    assert m.log[-1].text == "you played B+2 — greedy-1 faces 2"
    assert m.log[-1].style == "mine"


def test_a_wild_draw_four_played_on_you() -> None:
    m = model_with(
        ("card_played", {"seat": 1, "code": "W+4", "color": "green", "uno": False, "card": 110}, view()),
        (
            "awaiting",
            {"seat": 0, "kind": "wild_draw_four"},
            view(pending={"kind": "wild_draw_four", "seat": 0, "played_by": 1}),
        ),
    )
    assert m.log[-1].text == "greedy-1 played W+4 naming green — you may accept or challenge"


@pytest.mark.parametrize(
    ("type_", "data", "seat", "words"),
    [
        ("cards_drawn", {"seat": 0, "count": 1, "reason": "draw", "cards": [5], "codes": ["R5"]}, 0, "you drew a card: R5"),
        ("cards_drawn", {"seat": 1, "count": 4, "reason": "volley", "cards": [1, 2, 3, 4], "codes": ["R1"] * 4}, 0,
         "greedy-1 drew 4 cards (the volley)"),
        ("drafted", {"seat": 0, "keep": True, "pile_code": "B3", "pile_card": 80, "hand_card": 40, "hand_code": "G7"}, 0,
         "you kept G7; B3 goes face up on the draft pile"),
        ("drafted", {"seat": 1, "keep": False, "pile_code": "B3", "pile_card": 80, "hand_card": 40, "hand_code": "G7"}, 0,
         "greedy-1 passed B3 onto the draft pile and took the next card"),
        ("timed_out", {"seat": 0, "kind": "draft", "action": {"type": "draft", "keep": True}, "count": 1}, 0,
         "your time ran out (the draft) — the card looked at is kept (1 in a row; 3 forfeit the match)"),
        ("timed_out", {"seat": 1, "kind": "turn", "action": None, "count": 3}, 0,
         "greedy-1's time ran out (a turn) — 3 timeouts in a row: a forfeit"),
        ("challenge_resolved", {"by": 0, "player": 1, "verdict": "illegal", "evidence": {},
                                "hand": ["G5", "B1"], "matching": ["G5"]}, 0,
         "you challenged greedy-1's Wild Draw Four: it was illegal (G5 could have been played) — greedy-1's hand: G5 B1"),
        ("challenge_resolved", {"by": 0, "player": 1, "verdict": "legal", "evidence": {}, "hand": ["B1"], "matching": []}, 0,
         "you challenged greedy-1's Wild Draw Four: it was legal — greedy-1's hand: B1"),
        ("challenge_resolved", {"by": 0, "player": 1, "verdict": "illegal", "evidence": {},
                                "hand": ["G5", "B1"], "matching": ["G5"]}, 1,
         "ann challenged your Wild Draw Four: it was illegal"),
        ("uno_caught", {"seat": 1, "by": 0}, 0, "you caught greedy-1 without UNO!"),
        ("uno_said", {"seat": 1}, 0, "greedy-1 said UNO!"),
        ("round_ended", {"round": 1, "winner": 1, "loser": 0, "points": 25, "loser_hand": ["R5", "W"],
                         "scores": [25, 0], "blocked": False}, 0,
         "round 1 over: greedy-1 went out; your R5 W count 25 points — scores: you 25, greedy-1 0"),
        ("match_ended", {"winner": 0, "loser": 1, "scores": [150, 205], "rounds": 6}, 0,
         "match over: you win 150–205 after 6 rounds"),
        ("time_called", {"moment": "2026-12-07T12:00:00.000000Z"}, 1,
         "time is called: this hand is the last, unless the best total is shared when it ends (D26)"),
    ],
)  # fmt: skip
def test_events_in_plain_words(type_: str, data: dict[str, Any], seat: int, words: str) -> None:
    event = Chain(seat).event(type_, data)
    assert describe_event(event, seat=seat, names=NAMES) == words


def test_a_spectator_reads_names_and_no_hidden_card() -> None:
    event = Chain("spectator").event(
        "cards_drawn", {"seat": 0, "count": 1, "reason": "draw", "cards": [5], "codes": ["R5"]}
    )
    assert event["open"] == {}
    assert describe_event(event, seat=None, names=NAMES) == "ann drew a card"


def test_a_pass_is_worded_by_the_decision_it_answered() -> None:
    event = Chain(0).event("command", {"seat": 0, "command": {"type": "pass"}})
    assert describe_event(event, seat=0, names=NAMES, before=view(pending={"kind": "drawn", "seat": 0})) == (
        "you kept the drawn card"
    )
    assert (
        describe_event(event, seat=0, names=NAMES, before=view(pending={"kind": "dump", "seat": 0}))
        == "you did not dump"
    )


# ---------------------------------------------------------------- what a view offers


def test_a_volley_offers_the_draw_twos_and_the_total() -> None:
    v = view(
        pending={"kind": "volley", "seat": 0, "total": 4},
        legal=[{"type": "play", "card": "B+2"}, {"type": "draw"}],
    )
    offers = {o.action: o for o in offered_actions(v, 0)}
    assert set(offers) == {"play", "draw"}
    assert offers["play"].cards == ("B+2",) and offers["play"].label == "Play a Draw Two"
    assert offers["draw"].label == "Draw 4" and offers["draw"].command == {"type": "draw"}
    assert prompt_words(v, 0, NAMES) == "volley! play a Draw Two (Enter) or draw 4 (d)"

    m = model_with(("awaiting", {"seat": 0, "kind": "volley", "total": 4}, v))
    assert m.choosing_card and m.playable == {"B+2"}
    assert m.decide("play").note == "R5 cannot be played now; playable: B+2"  # the cursor is on R5
    m.move(1)
    assert m.decide("enter").command == {"type": "play", "card": "B+2"}
    assert m.decide("draw").command == {"type": "draw"}
    assert m.decide("accept").note == "there is no Wild Draw Four to accept"


def test_a_wild_draw_four_offers_accept_and_challenge_only() -> None:
    v = view(
        pending={"kind": "wild_draw_four", "seat": 0, "played_by": 1},
        legal=[{"type": "accept"}, {"type": "challenge"}],
    )
    assert [o.action for o in offered_actions(v, 0)] == ["accept", "challenge"]
    assert prompt_words(v, 0, NAMES) == "greedy-1 played a Wild Draw Four on you: accept (a) or challenge (c)"
    m = model_with(("awaiting", {"seat": 0, "kind": "wild_draw_four"}, v))
    assert not m.choosing_card  # the hand is not dimmed: no card is to be played
    assert m.decide("challenge").command == {"type": "challenge"}
    assert m.decide("accept").command == {"type": "accept"}
    assert m.decide("draw").note == "you cannot draw now"
    assert m.decide("enter").note == "no card can be played now"


def test_an_uno_window_of_the_other_seat_offers_the_catch() -> None:
    v = view(
        pending={"kind": "turn", "seat": 0},
        hand_counts=[3, 1],
        legal=[{"type": "play", "card": "R5"}, {"type": "draw"}, {"type": "uno"}],
    )
    offers = {o.action: o for o in offered_actions(v, 0)}
    assert offers["uno"].label == "Catch them: UNO!" and offers["uno"].command == {"type": "uno"}
    m = model_with(("awaiting", {"seat": 0, "kind": "turn"}, v))
    assert m.decide("uno").command == {"type": "uno"}


def test_an_uno_window_of_your_own_and_on_the_other_seats_turn() -> None:
    v = view(pending={"kind": "turn", "seat": 1}, turn=1, hand=["G2"], hand_counts=[1, 4], legal=[{"type": "uno"}])
    assert [(o.action, o.label) for o in offered_actions(v, 0)] == [("uno", "UNO!")]
    m = model_with(("awaiting", {"seat": 1, "kind": "turn"}, v))
    assert not m.my_decision  # the decision is the other seat's, but UNO may be said any time
    assert m.decide("uno").command == {"type": "uno"}
    assert m.decide("draw").note == "it is not your decision now"


def test_uno_with_the_next_play() -> None:
    v = view(hand=["R5", "G2"], hand_counts=[2, 4], legal=[{"type": "play", "card": "R5"}, {"type": "draw"}])
    m = model_with(("awaiting", {"seat": 0, "kind": "turn"}, v))
    assert m.decide("uno").note == "UNO! goes with your next play"
    assert "UNO! goes with your next play" in m.prompt()
    assert m.decide("enter").command == {"type": "play", "card": "R5", "uno": True}


def test_a_wild_asks_for_its_colour() -> None:
    v = view(legal=[{"type": "play", "card": "R5"}, {"type": "play", "card": "W"}, {"type": "draw"}])
    m = model_with(("awaiting", {"seat": 0, "kind": "turn"}, v))
    m.select(2)
    assert m.decide("enter").note == "name the colour for your W: r y g b"
    assert m.prompt().startswith("name the colour for your W")
    assert m.decide("color", "b").command == {"type": "play", "card": "W", "color": "blue"}
    assert m.choosing_color is None


def test_the_draft_keys() -> None:
    v = view(
        phase="draft",
        hand=["R5"],
        pending={"kind": "draft", "seat": 0, "step": 3, "card": "G7"},
        legal=[{"type": "draft", "keep": True}, {"type": "draft", "keep": False}],
    )
    assert prompt_words(v, 0, NAMES) == "draft step 3/14: you look at G7 — keep it (k) or pass it (p)"
    m = model_with(("awaiting", {"seat": 0, "kind": "draft"}, v))
    assert m.decide("enter").command == {"type": "draft", "keep": True}
    assert m.decide("keep").command == {"type": "draft", "keep": True}
    assert m.decide("pass").command == {"type": "draft", "keep": False}
    assert m.decide("draw").note == "you cannot draw now"


def test_a_drawn_card_is_kept_with_p_or_k() -> None:
    v = view(
        hand=["R5", "B+2", "W", "G3"],
        pending={"kind": "drawn", "seat": 0, "card": "G3"},
        legal=[{"type": "pass"}],
    )
    m = model_with(("awaiting", {"seat": 0, "kind": "drawn"}, v))
    assert m.selected_card == "G3"  # the cursor goes to the card just drawn
    assert prompt_words(v, 0, NAMES) == "you drew G3: it cannot be played — keep it (p)"
    assert m.decide("keep").command == {"type": "pass"}
    assert m.decide("pass").command == {"type": "pass"}


def test_commands_carry_an_id_and_the_version_and_one_waits_for_its_answer() -> None:
    chain = Chain(0)
    m = PlayModel(MATCH, 0, list(NAMES))
    turn = view(legal=[{"type": "draw"}])
    m.apply(message(chain.event("awaiting", {"seat": 0, "kind": "turn"}), turn))
    envelope = m.envelope({"type": "draw"})
    assert envelope["type"] == "command" and envelope["expected_version"] == 1
    assert envelope["command_id"].startswith(m.session)
    waiting = "waiting for the server to answer your last command…"
    assert m.decide("draw").note == waiting
    # The result comes before the command's events (docs/SERVER.md "The live socket"); until they
    # are in, the view is still the one the command answered: a key must not be decided on it.
    m.apply({"type": "result", "command_id": envelope["command_id"], "ok": True, "version": 3})
    assert m.outstanding is not None and m.decide("draw").note == waiting
    m.apply(message(chain.event("command", {"seat": 0, "command": {"type": "draw"}}), turn))
    assert m.outstanding is not None and m.decide("draw").note == waiting
    m.apply(message(chain.event("awaiting", {"seat": 0, "kind": "turn"}), turn))
    assert m.outstanding is None and m.decide("draw").command == {"type": "draw"}
    # A result whose events are already in (a retried command id's first outcome) ends the wait at once.
    again = m.envelope({"type": "draw"})
    m.apply({"type": "result", "command_id": again["command_id"], "ok": True, "version": 2})
    assert m.outstanding is None


def test_a_refusal_is_shown_in_words() -> None:
    m = model_with(("awaiting", {"seat": 0, "kind": "turn"}, view(legal=[{"type": "draw"}])))
    sent = m.envelope({"type": "play", "card": "G9"})
    error = {"code": "card_not_in_hand", "message": "you do not hold G9", "rule": "D5"}
    m.apply({"type": "result", "command_id": sent["command_id"], "ok": False, "error": error})
    assert m.status == "refused: You do not hold G9. (rule D5) [card_not_in_hand]"
    assert m.status_style == "refusal" and m.log[-1].text == m.status
    assert status_text(m).plain == m.status
    assert refusal_words({"code": "not_now", "message": "", "rule": None}) == "Not_now. [not_now]"


def test_watching_offers_nothing() -> None:
    m = model_with(("awaiting", {"seat": 0, "kind": "turn"}, view(viewer="spectator", hand=None, legal=[])), seat=None)
    assert m.watching and m.offers() == [] and m.hand == []
    assert m.decide("draw").note == "you are watching: there is no seat to play from"
    assert prompt_words(m.view, None, NAMES) == "ann: to play"


def test_the_clock_counts_down_to_the_deadline() -> None:
    now = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
    deadline = (now + timedelta(seconds=42.5)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    m = model_with(("awaiting", {"seat": 0, "kind": "turn"}, view(deadline=deadline)))
    assert m.seconds_left(now) == 42.5
    assert m.seconds_left(now + timedelta(minutes=5)) == 0.0


def test_hand_layout_wraps() -> None:
    chips = hand_layout(["R5", "W+4", "B+2", "G1"], 14)
    assert [(c.row, c.x0, c.x1) for c in chips] == [(0, 0, 4), (0, 5, 10), (1, 0, 5), (1, 6, 10)]


# ---------------------------------------------------------------- the checks


def _events(viewer: int = 0) -> list[dict[str, Any]]:
    chain = Chain(viewer)
    commitment = "b" * 64
    return [
        chain.event("match_created", {"ruleset": {"name": "uno-duo", "target": 200}, "commitment": commitment}),
        chain.event("seat_joined", {"seat": 0, "entropy": "mine"}),
        chain.event("cards_drawn", {"seat": 0, "count": 1, "reason": "draw", "cards": [5], "codes": ["R5"]}),
    ]


def test_a_true_chain_and_its_openings_check() -> None:
    check = ChainCheck(MATCH)
    for event in _events():
        assert check.check(event) == []
    assert check.ok and check.last_seq == 3 and check.openings == 2
    assert check.summary() == "chain ✓ #3 · 2 openings ✓"


@pytest.mark.parametrize(
    ("tamper", "says"),
    [
        (lambda es: es[1]["data"].update(seat=1), "event #2 (seat_joined): its content hashes to"),
        (lambda es: es[2]["open"]["codes"].update(value=["W+4"]), "the opened value of 'codes' does not match"),
        (lambda es: es.pop(1), "expected event #2, received #3"),
        (lambda es: es[2].update(stream="match-other"), "belongs to stream 'match-other'"),
    ],
)
def test_a_broken_chain_or_opening_is_named(tamper: Any, says: str) -> None:
    events = _events()
    tamper(events)
    m = PlayModel(MATCH, 0, list(NAMES))
    for event in events:
        m.apply(message(event, view()))
    assert not m.check.ok and says in str(m.check.problem)
    assert m.check.summary().startswith("CHECK FAILED: ")
    line = status_text(m)
    assert line.plain.strip().startswith("CHECK FAILED") and "#ff5252" in str(line.style)
    assert any(entry.style == "problem" for entry in m.log)


def test_the_revealed_seed_must_match_its_commitment_and_the_salts() -> None:
    from hashlib import sha256

    chain = Chain(0)
    good = [
        chain.event("match_created", {"ruleset": {}, "commitment": sha256(SEED).hexdigest()}),
        chain.event("seat_joined", {"seat": 0, "entropy": "mine"}),
        chain.event("seed_revealed", {"server_seed": SEED.hex(), "entropies": ["mine", ""]}),
    ]
    check = ChainCheck(MATCH)
    assert [check.check(e) for e in good] == [[], [], []]
    assert check.seed_checked and "seed ✓" in check.summary()

    chain = Chain(0)
    bad = [
        chain.event("match_created", {"ruleset": {}, "commitment": "0" * 64}),
        chain.event("seed_revealed", {"server_seed": SEED.hex(), "entropies": ["", ""]}),
    ]
    check = ChainCheck(MATCH)
    check.check(bad[0])
    assert check.check(bad[1]) == ["the revealed seed does not hash to the commitment of match_created"]


def test_an_earlier_receipt_is_held_against_the_log() -> None:
    events = _events()
    same = ChainCheck(MATCH, earlier=Receipt(MATCH, 2, events[1]["hash"]))
    for event in events:
        same.check(event)
    assert same.ok and same.earlier_confirmed and "receipt #2 ✓" in same.summary()
    other = ChainCheck(MATCH, earlier=Receipt(MATCH, 2, "f" * 64))
    for event in events:
        other.check(event)
    assert not other.ok and "the log was rewritten since you saw it" in str(other.problem)


# ---------------------------------------------------------------- the lobby and the files


def test_the_lobby_lists_play_join_watch_and_done() -> None:
    ann = {"id": "p_ann", "name": "ann", "kind": "human"}
    bot = {"id": "bot-greedy-1", "name": "greedy-1", "kind": "bot"}
    bea = {"id": "p_bea", "name": "bea", "kind": "human"}

    def summary(match: str, status: str, seats: list[Any], **more: Any) -> dict[str, Any]:
        return {
            "id": match,
            "status": status,
            "seats": seats,
            "scores": [10, 20],
            "tournament": None,
            "winner": None,
            **more,
        }

    me = {
        "id": "p_ann",
        "matches": [
            summary("m_old", "finished", [ann, bot], winner="p_ann"),
            summary("m_live", "live", [ann, bot]),
            summary("m_wait", "waiting", [bea, ann], tournament="t_1", round=2),
        ],
        "next": [{"tournament": "t_1", "round": 3, "opponent": "p_bea", "white": True}],
    }
    tournament = {
        "id": "t_1",
        "name": "Spring",
        "players": [ann, bea, bot],
        "rounds": [{"matches": [summary("m_other", "live", [bea, bot], tournament="t_1", round=2)]}],
    }
    entries = lobby_entries(me, [tournament], {"t_1": "Spring"})
    assert [(e.kind, e.match, e.seat) for e in entries] == [
        ("play", "m_live", 0),
        ("join", "m_wait", 1),
        ("watch", "m_other", None),
        ("done", "m_old", 0),
    ]
    assert entries[2].text == "watch  bea vs greedy-1 · Spring round 2 · 10–20"
    assert entries[3].text == "done   vs greedy-1 · casual · you won 10–20"
    assert next_lines(me, [tournament]) == ["Spring round 3: vs bea (white: you draft first)"]


def test_credentials_and_receipts_are_private_files(tmp_path: Path) -> None:
    store = ConfigStore("http://127.0.0.1:8000/", tmp_path)
    assert store.load_credentials() is None
    store.save_credentials(Credentials(store.server, "p_1", "ann", "secret-token"))
    assert stat.S_IMODE(store.credentials_path.stat().st_mode) == 0o600
    assert stat.S_IMODE(store.credentials_path.parent.stat().st_mode) == 0o700
    assert json.loads(store.credentials_path.read_text())["token"] == "secret-token"
    again = ConfigStore("http://127.0.0.1:8000", tmp_path)
    assert again.load_credentials() == Credentials("http://127.0.0.1:8000", "p_1", "ann", "secret-token")
    assert ConfigStore("http://127.0.0.1:8001", tmp_path).load_credentials() is None
    assert server_key("http://127.0.0.1:8000") != server_key("http://127.0.0.1:8001")

    store.save_receipt(Receipt("m_1", 42, "a" * 64, "2026-01-01T00:00:00Z"))
    assert stat.S_IMODE(store.receipts_path.stat().st_mode) == 0o600
    assert ConfigStore("http://127.0.0.1:8000", tmp_path).receipt("m_1") == Receipt(
        "m_1", 42, "a" * 64, "2026-01-01T00:00:00Z"
    )


def test_socket_urls() -> None:
    assert socket_url("http://h:1", "m_1", 7) == "ws://h:1/api/matches/m_1/ws?since=7&frames=decision"
    assert socket_url("https://h/", "m_1", 0) == "wss://h/api/matches/m_1/ws?since=0&frames=decision"


def test_a_receipt_beyond_the_end_of_a_finished_log() -> None:
    check = ChainCheck(MATCH, earlier=Receipt(MATCH, 9, "a" * 64))
    for event in _events():
        check.check(event)
    assert check.ok
    assert check.finished() == ["the log ends at #3, but your receipt is for #9: events were removed"]
    assert not check.ok


def test_an_unanswered_command_is_given_up() -> None:
    m = model_with(("awaiting", {"seat": 0, "kind": "turn"}, view(legal=[{"type": "draw"}])))
    m.envelope({"type": "draw"})
    assert not m.expire(15, now=m.sent_at + 1)
    assert m.expire(15, now=m.sent_at + 16)
    assert m.outstanding is None and m.status_style == "refusal"
    assert m.decide("draw").command == {"type": "draw"}
