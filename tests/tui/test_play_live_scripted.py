"""``unoduo play`` against a real server on loopback, at the three moments of UNO Duo that a
house bot rarely hands a player on cue: a Draw Two volley (D8), a Wild Draw Four to challenge
(D12, D13), and an opponent left on one card without saying UNO (D14).

The opponent is a second registered player that the test drives itself (tests/tui/scripted.py):
its strategy, knowing both hands, steers the server's random deal towards the situation; the
table is played by keys through Pilot, each key chosen from what the table shows. Once there,
the test answers through the table (Enter on a Draw Two, ``c``, ``u``) and checks what the player
is shown: the table's line, the prompt, the buttons and the log in words."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import Button, Static

from tests.cli.serving import free_port, serve, serve_env, stop, wait_until_up
from tests.tui.helpers import plain, until
from tests.tui.scripted import (
    PASSWORD,
    Command,
    ScriptedOpponent,
    View,
    colour_of,
    could_follow,
    draw_or_keep,
    draw_twos,
    hand_of,
    hunt,
    is_draw_two,
    matching_cards,
    most_held_colour,
    offered,
    open_against,
    pending,
    play,
    plays,
    press_for,
    settled,
)
from tui_client.apps.play_app import PlayApp, make_play_app
from tui_client.models.play_model import PlayModel, uno_window
from tui_client.screens.table_screen import PlayScreen
from tui_client.widgets.play_widgets import PlayLog

pytestmark = pytest.mark.anyio

SIZE = (100, 30)
ME, THEM = "tia", "olga"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    db = tmp_path_factory.mktemp("scripted-server") / "play.sqlite3"
    process = serve("--port", str(port), "--db", f"sqlite:///{db}", env=serve_env())
    try:
        base = f"http://127.0.0.1:{port}"
        wait_until_up(base, process)
        yield base
    finally:
        stop(process)


def text_of(app: PlayApp, selector: str) -> str:
    return plain(app.screen.query_one(selector, Static))


def shown_buttons(screen: PlayScreen) -> list[str]:
    return [str(b.label) for b in screen.query("#actions Button").results(Button) if b.display]


def log_text(model: PlayModel) -> str:
    return "\n".join(line.text for line in model.log)


def deciding(model: PlayModel, seat: int, kind: str) -> bool:
    """Is ``seat`` taking a decision of ``kind``, the table having taken in all that led to it?"""
    p = pending(model.view)
    return settled(model) and p.get("seat") == seat and p.get("kind") == kind


# ---------------------------------------------------------------- what both sides do meanwhile


def routine(view: View, kind: str) -> Command | None:
    """The decisions no strategy here cares about."""
    if kind == "color":
        return {"type": "color", "color": most_held_colour(hand_of(view))}
    if kind == "dump":
        return {"type": "pass"} if offered(view, "pass") else draw_or_keep(view)
    if kind == "wild_draw_four":
        return {"type": "accept"}
    if kind == "volley":
        return {"type": "draw"}
    return None


def mine(view: View, seat: int) -> str | None:
    """The kind of decision ``seat`` has to take now, or None."""
    p = pending(view)
    return str(p.get("kind")) if p.get("seat") == seat and view.get("legal") else None


# ---------------------------------------------------------------- a volley (D8)


class VolleyOpponent:
    """Keeps Draw Twos from the draft and draws until it holds one; plays one when the table holds
    one to answer with (or it holds two), answers a volley with one while the table can go on;
    otherwise sheds its other cards down to two. Once ``finale`` is set it answers a volley by
    drawing the whole total."""

    def __init__(self) -> None:
        self.finale = False

    def __call__(self, view: View, table: View | None) -> Command | None:
        kind = mine(view, 1)
        hand = hand_of(view)
        if kind == "draft":
            return {"type": "draft", "keep": is_draw_two(str(pending(view)["card"]))}
        ours = [c for c in plays(view) if is_draw_two(c)]
        table_holds_one = bool(draw_twos(hand_of(table)))
        if kind == "volley":
            return play(ours[0]) if ours and table_holds_one and not self.finale else {"type": "draw"}
        if kind not in ("turn", "drawn"):
            return routine(view, kind or "")
        if ours and (table_holds_one or len(draw_twos(hand)) >= 2):
            return play(ours[0])
        others = [c for c in plays(view) if not is_draw_two(c)]
        if draw_twos(hand) and others and len(hand) >= 3:
            return play(others[0], most_held_colour(hand))
        return draw_or_keep(view)  # seeking a Draw Two


def table_for_a_volley(view: View, them: View | None) -> Command | None:
    """Keeps Draw Twos from the draft and draws until it holds one; then turns the colour to one
    of the opponent's Draw Twos, and plays its own when it holds two (and the opponent one, or it
    holds three): the opponent answers it, and a volley is on."""
    kind = mine(view, 0)
    hand = hand_of(view)
    if kind == "draft":
        return {"type": "draft", "keep": is_draw_two(str(pending(view)["card"]))}
    if kind not in ("turn", "drawn"):
        return routine(view, kind) if kind else None
    ours = [c for c in plays(view) if is_draw_two(c)]
    theirs = draw_twos(hand_of(them))
    held = len(draw_twos(hand))
    if held >= 2 and ours and (theirs or held >= 3):
        return play(ours[0])
    if not held:
        return draw_or_keep(view)  # seeking a Draw Two
    targets = sorted({colour_of(c) or "" for c in theirs})
    others = [c for c in plays(view) if not is_draw_two(c)]
    candidates = [c for c in others if not c.startswith("W") and colour_of(c) in targets]
    if not candidates and targets:
        candidates = [c for c in others if c.startswith("W")]
    candidates = candidates or others
    if candidates and len(hand) - held >= 2:
        return play(candidates[0], targets[0] if targets else most_held_colour(hand))
    return draw_or_keep(view)


async def test_a_volley_answered_with_a_draw_two(server: str, tmp_path: Path) -> None:
    """Facing a Draw Two with a Draw Two in hand, the table shows the volley's total, the prompt
    offers both answers; Enter on the Draw Two raises the volley by 2 and the opponent, drawing,
    takes the whole total; then it is the player's turn."""
    app = make_play_app(server, ME, config_dir=tmp_path, password=PASSWORD)
    opponent = ScriptedOpponent(server, THEM)
    strategy = VolleyOpponent()
    try:
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_against(pilot, app, opponent)
            model = screen.model
            opponent.start(strategy, lambda: model.view)

            def facing_with_a_draw_two() -> bool:
                return deciding(model, 0, "volley") and bool(plays(model.view or {}))

            await hunt(pilot, screen, opponent, table_for_a_volley, facing_with_a_draw_two, "volley to answer")
            strategy.finale = True
            view = model.view or {}
            total = int(pending(view)["total"])
            assert view["top"].endswith("+2") and total >= 2
            assert f"volley {total}" in text_of(app, "#table")
            assert f"volley! play a Draw Two (Enter) or draw {total} (d)" in text_of(app, "#prompt")
            assert {"Play a Draw Two (⏎)", f"Draw {total} (d)"} <= set(shown_buttons(screen))
            assert f"{THEM} played {view['top']} — you face {total}" in log_text(model)
            assert all(is_draw_two(c) for c in plays(view))  # only a Draw Two stacks (D8)
            before = list(view["hand_counts"])

            card = plays(view)[0]
            await press_for(pilot, screen, play(card))
            raised = total + 2
            stacked = f"you played {card} — {THEM} faces {raised}"
            await until(pilot, lambda: stacked in log_text(model), "the volley raised")
            drew = f"{THEM} drew {raised} cards (the volley)"
            await until(pilot, lambda: drew in log_text(model), "the opponent drawing the volley")
            await until(pilot, lambda: deciding(model, 0, "turn"), "our turn after the volley")
            after = model.view or {}
            assert after["hand_counts"] == [before[0] - 1, before[1] + raised]
            assert "volley" not in text_of(app, "#table")
            assert drew in plain(screen.query_one(PlayLog))
            assert model.check.ok, model.check.problem
            opponent.check()
    finally:
        await opponent.close()


# ---------------------------------------------------------------- a Wild Draw Four challenged (D13)


def opponent_with_a_wild_draw_four(view: View, table: View | None) -> Command | None:
    """Keeps a Wild Draw Four from the draft and draws until it holds one; plays it only while
    another of its cards could have been played (so a challenge is upheld, D13)."""
    kind = mine(view, 1)
    hand = hand_of(view)
    if kind == "draft":
        return {"type": "draft", "keep": pending(view)["card"] == "W+4"}
    if kind in ("turn", "drawn"):
        if "W+4" in plays(view):
            rest = list(hand)
            rest.remove("W+4")
            if matching_cards(rest, str(view["top"]), str(view["color"])):
                return play("W+4", most_held_colour(rest))
        return draw_or_keep(view)
    return routine(view, kind or "")


def table_for_a_wild_draw_four(view: View, them: View | None) -> Command | None:
    """Keeps its hand at two cards or more; plays whatever it may (a Wild Draw Four of its own
    first, so that it goes round again), else draws."""
    kind = mine(view, 0)
    hand = hand_of(view)
    if kind == "draft":
        return {"type": "draft", "keep": True}
    if kind in ("turn", "drawn"):
        cards = sorted(plays(view), key=lambda c: c != "W+4")
        if cards and len(hand) > 2:
            return play(cards[0], most_held_colour(hand))
        return draw_or_keep(view)
    return routine(view, kind) if kind else None


async def test_a_wild_draw_four_challenged_and_upheld(server: str, tmp_path: Path) -> None:
    """Facing a Wild Draw Four, the prompt and the buttons offer accept (a) and challenge (c);
    ``c`` challenges, and the log says in words that the play was illegal, naming the cards
    that could have been played and showing the challenger the hand (D13); the opponent draws
    4 and the player takes the next turn in the named colour."""
    app = make_play_app(server, ME, config_dir=tmp_path, password=PASSWORD)
    opponent = ScriptedOpponent(server, THEM)
    try:
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_against(pilot, app, opponent)
            model = screen.model
            opponent.start(opponent_with_a_wild_draw_four, lambda: model.view)
            await hunt(
                pilot,
                screen,
                opponent,
                table_for_a_wild_draw_four,
                lambda: deciding(model, 0, "wild_draw_four"),
                "Wild Draw Four to face",
            )
            view = model.view or {}
            wd4 = next(s for s in reversed(opponent.sent) if s.command.get("card") == "W+4")
            named = str(wd4.command["color"])
            hand_after = hand_of(wd4.after)
            matching = matching_cards(hand_after, str(wd4.before["top"]), str(wd4.before["color"]))
            assert matching and view["top"] == "W+4" and view["color"] == named
            assert f"{THEM} played W+4 naming {named} — you may accept or challenge" in log_text(model)
            assert f"{THEM} played a Wild Draw Four on you: accept (a) or challenge (c)" in text_of(app, "#prompt")
            assert {"Accept +4 (a)", "Challenge (c)"} <= set(shown_buttons(screen))
            before = list(view["hand_counts"])

            await press_for(pilot, screen, {"type": "challenge"})
            verdict = (
                f"you challenged {THEM}'s Wild Draw Four: it was illegal ({' '.join(matching)} could have been played)"
                f" — {THEM}'s hand: {' '.join(hand_after)}"  # the challenger sees the hand (D13)
            )
            await until(pilot, lambda: verdict in log_text(model), "the verdict")
            assert "you challenged the Wild Draw Four!" in log_text(model)
            penalty = f"{THEM} drew 4 cards (the challenge was upheld)"
            await until(pilot, lambda: penalty in log_text(model), "the penalty")
            await until(pilot, lambda: deciding(model, 0, "turn"), "our turn after the challenge")
            after = model.view or {}
            challenge = after["last_challenge"]
            assert challenge["verdict"] == "illegal" and challenge["by"] == 0
            assert challenge["hand"] == hand_after
            assert after["hand_counts"] == [before[0], before[1] + 4]
            assert after["color"] == named  # the named colour stands
            assert penalty in plain(screen.query_one(PlayLog))
            assert model.check.ok, model.check.problem
            opponent.check()
    finally:
        await opponent.close()


# ---------------------------------------------------------------- UNO not said, caught (D14)


def opponent_who_forgets_uno(view: View, table: View | None) -> Command | None:
    """Plays every card it can and never says UNO; on its last card it waits (to be caught)."""
    kind = mine(view, 1)
    hand = hand_of(view)
    if kind == "draft":
        return {"type": "draft", "keep": True}
    if view.get("phase") == "play" and len(hand) == 1:
        return None
    if kind in ("turn", "drawn"):
        cards = sorted(plays(view), key=lambda c: c.startswith("W"))
        if cards:
            return play(cards[0], most_held_colour(hand))  # no "uno": it forgets
        return draw_or_keep(view)
    return routine(view, kind or "")


def table_that_feeds(view: View, them: View | None) -> Command | None:
    """Plays only cards the opponent can follow (it knows the opponent's hand), keeping two or
    more; names the opponent's colour; otherwise draws."""
    kind = mine(view, 0)
    hand = hand_of(view)
    theirs = hand_of(them)
    if kind == "draft":
        return {"type": "draft", "keep": True}
    if kind in ("turn", "drawn"):
        cards = [c for c in plays(view) if not c.startswith("W") and could_follow(c, theirs)]
        if cards and len(hand) > 2:
            return play(cards[0])
        return draw_or_keep(view)
    if kind == "color":
        return {"type": "color", "color": most_held_colour(theirs)}
    return routine(view, kind) if kind else None


async def test_catching_an_opponent_who_did_not_say_uno(server: str, tmp_path: Path) -> None:
    """When the opponent is down to one card without UNO, the table offers the catch (a button
    "Catch them: UNO! (u)"); ``u`` catches them, the log says so, and they draw 2."""
    app = make_play_app(server, ME, config_dir=tmp_path, password=PASSWORD)
    opponent = ScriptedOpponent(server, THEM)
    try:
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_against(pilot, app, opponent)
            model = screen.model
            opponent.start(opponent_who_forgets_uno, lambda: model.view)

            def catchable() -> bool:
                view = model.view or {}
                return settled(model) and view.get("phase") == "play" and uno_window(view, 1) and offered(view, "uno")

            await hunt(pilot, screen, opponent, table_that_feeds, catchable, "missed UNO")
            view = model.view or {}
            assert view["hand_counts"][1] == 1 and view["uno"] == [False, False]
            assert "Catch them: UNO! (u)" in shown_buttons(screen)
            played = f"{THEM} played "
            last_play = next(line.text for line in reversed(model.log) if line.text.startswith(played))
            assert "said UNO" not in last_play

            opponent.paused = True  # whatever its decision now, it waits: the table stays as the catch left it
            await press_for(pilot, screen, {"type": "uno"})
            caught = f"you caught {THEM} without UNO!"
            penalty = f"{THEM} drew 2 cards (UNO penalty)"
            await until(pilot, lambda: penalty in log_text(model), "the UNO penalty")
            assert caught in log_text(model)
            after = model.view or {}
            assert after["hand_counts"][1] == 3 and not offered(after, "uno")
            assert "Catch them: UNO! (u)" not in shown_buttons(screen)
            assert caught in plain(screen.query_one(PlayLog)) and penalty in plain(screen.query_one(PlayLog))
            assert model.check.ok, model.check.problem
            opponent.check()
    finally:
        await opponent.close()
