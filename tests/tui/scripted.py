"""Live tests of ``unoduo play`` against a scripted opponent: a second registered player whom the
test itself drives (its views from its own match socket, its commands over HTTP), choosing each
move with a strategy so that a wanted situation (a volley, a Wild Draw Four, a missed UNO)
comes about quickly on the server's random deal; and the table's side of it, played by keys
through Pilot as a player would, each key chosen from what the table shows.

A strategy sees its own seat's view and the other seat's (the test knows both hands: that is
what lets it steer a random deal); it returns a command, or None to wait.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from textual.pilot import Pilot
from textual.widgets import OptionList

from bench.progress import STALL_SECONDS, Stall
from engine.game.cards import Color, parse_card
from engine.game.rules import could_have_played
from engine.game.rulesets import WildDrawFourRule
from tests.tui.helpers import until
from tui_client.apps.play_app import PlayApp
from tui_client.connection.api import Api, ApiError
from tui_client.models.play_model import PlayModel
from tui_client.screens.lobby_screen import LobbyScreen
from tui_client.screens.table_screen import PlayScreen

PASSWORD = "the scripted players' password"  # a module's tests share one server: a name is made once

View = dict[str, Any]
Command = dict[str, Any]
Strategy = Callable[[View, View | None], Command | None]
COLOUR_KEYS = {"red": "r", "yellow": "y", "green": "g", "blue": "b"}
COLOURS = tuple(COLOUR_KEYS)
MOVE_SECONDS = 900  # the match's clock: never what ends a wait, even on a slow machine


# ---------------------------------------------------------------- cards and views


def colour_of(code: str) -> str | None:
    color = parse_card(code).color
    return None if color is None else color.value


def is_draw_two(code: str) -> bool:
    return code.endswith("+2") and not code.startswith("W")


def draw_twos(hand: list[str]) -> list[str]:
    return [code for code in hand if is_draw_two(code)]


def plays(view: View) -> list[str]:
    """The cards the view's ``legal`` list lets its seat play now (one entry per face)."""
    return [str(c["card"]) for c in view.get("legal") or [] if c.get("type") == "play"]


def offered(view: View, kind: str) -> bool:
    return any(c.get("type") == kind for c in view.get("legal") or [])


def pending(view: View | None) -> dict[str, Any]:
    return dict((view or {}).get("pending") or {})


def hand_of(view: View | None) -> list[str]:
    return [str(c) for c in (view or {}).get("hand") or []]


def draw_or_keep(view: View) -> Command:
    """Draw on a turn; keep the drawn card when that is the decision."""
    return {"type": "draw"} if offered(view, "draw") else {"type": "pass"}


def play(card: str, color: str = "red") -> Command:
    command: Command = {"type": "play", "card": card}
    if card.startswith("W"):
        command["color"] = color
    return command


def most_held_colour(hand: list[str]) -> str:
    counts = {c: 0 for c in COLOURS}
    for code in hand:
        colour = colour_of(code)
        if colour is not None:
            counts[colour] += 1
    return max(COLOURS, key=lambda c: counts[c])


def could_follow(card: str, hand: list[str]) -> bool:
    """Could a card of ``hand`` (not a wild) be played on ``card``?"""
    face = parse_card(card)
    return any(
        not (other := parse_card(code)).is_wild and (other.color is face.color or other.rank is face.rank)
        for code in hand
    )


def matching_cards(hand_after: list[str], top: str, color: str) -> list[str]:
    """D13: the cards left in a hand that made its Wild Draw Four illegal (``uno-duo``'s rule)."""
    top_card, active = parse_card(top), Color(color)
    rule = WildDrawFourRule.NO_PLAYABLE
    return [code for code in hand_after if could_have_played(parse_card(code), top_card, active, rule)]


# ---------------------------------------------------------------- the scripted opponent


@dataclass
class Sent:
    """One command the opponent sent, and the view it chose it from."""

    command: Command
    before: View
    after: View


@dataclass
class ScriptedOpponent:
    """Seat 1 of a casual match, played by ``strategy`` as soon as each of its decisions comes."""

    server: str
    name: str
    seat: int = 1
    api: Api = field(init=False)
    player_id: str = ""
    match: str = ""
    strategy: Strategy | None = None
    other: Callable[[], View | None] = lambda: None  # the other seat's view (the table's)
    view: View | None = None
    paused: bool = False  # set: it takes no decision (so the table stays as the test left it)
    sent: list[Sent] = field(default_factory=list)
    problem: str | None = None
    _task: asyncio.Task[None] | None = None

    def __post_init__(self) -> None:
        self.api = Api(self.server)

    async def register(self) -> str:
        """Register (with a password), or sign in as the player of that name (an earlier test's)."""
        try:
            player = await self.api.register(self.name, PASSWORD)
        except ApiError as error:
            if error.code != "name_taken":
                raise
            player = await self.api.sign_in(self.name, password=PASSWORD)
        self.api.token = str(player["token"])
        self.player_id = str(player["id"])
        return self.player_id

    async def join(self, match: str) -> None:
        self.match = match
        await self.api.join(match, secrets.token_hex(16))

    def start(self, strategy: Strategy, other: Callable[[], View | None]) -> None:
        self.strategy, self.other = strategy, other
        self._task = asyncio.create_task(self._follow())

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        await self.api.aclose()

    def check(self) -> None:
        """Fail the test with the opponent's problem, if it had one."""
        assert self.problem is None, f"the scripted opponent: {self.problem}"

    @property
    def version(self) -> int:
        return int((self.view or {}).get("version", 0))

    async def _follow(self) -> None:
        try:
            socket = await self.api.open_socket(self.match, 0)
            async with socket:
                async for text in socket:
                    data = json.loads(text)
                    if data.get("type") not in ("event", "decision"):  # a decision: its view is after its events
                        continue
                    view = data["view"]
                    if int(view.get("version", 0)) <= self.version:
                        continue  # older than the answer to our last command
                    self.view = view
                    await self._act()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 — kept for the test to report, never swallowed
            self.problem = f"{type(exc).__name__}: {exc}"

    async def _act(self) -> None:
        """Decide while the newest view is this seat's decision (a draw's answer comes at once)."""
        while await self._act_once():
            pass

    async def _act_once(self) -> bool:
        view = self.view
        assert view is not None and self.strategy is not None
        if self.paused or pending(view).get("seat") != self.seat or not view.get("legal"):
            return False
        command = self.strategy(view, self.other())
        if command is None:
            return False
        body = {"command_id": secrets.token_hex(8), "expected_version": view["version"], "command": command}
        response = await self.api.client.post(
            f"/api/matches/{self.match}/commands", json=body, headers=self.api.auth_headers()
        )
        answer = response.json()
        if response.status_code == 409 and answer.get("code") == "stale_version":
            return False  # decided on a view that moved on: the socket brings the newer one
        if response.status_code != 200:
            self.problem = f"{command} refused: {response.status_code} {answer}"
            return False
        after = answer["view"]
        self.sent.append(Sent(command, view, after))
        if int(after["version"]) <= self.version:
            return False
        self.view = after
        return True


# ---------------------------------------------------------------- the table's side, by keys


async def open_against(pilot: Pilot[Any], app: PlayApp, opponent: ScriptedOpponent) -> PlayScreen:
    """Sign in, create a casual match against ``opponent`` (seat 0 is ours), let it join, then join
    from the lobby as a player would (r, the match's line, Enter) and wait for the table."""
    await until(pilot, lambda: isinstance(app.screen, LobbyScreen) and app.screen.me is not None, "the lobby")
    lobby = app.screen
    assert isinstance(lobby, LobbyScreen) and app.credentials is not None
    await opponent.register()
    made = await app.api.create_match(opponent.player_id, MOVE_SECONDS)
    match = str(made["id"])
    await opponent.join(match)
    await pilot.press("r")
    await until(pilot, lambda: any(e.match == match for e in lobby.entries), "the match in the lobby")
    entry = next(e for e in lobby.entries if e.match == match)
    assert entry.kind == "join" and entry.seat == 0 and entry.names[1] == opponent.name
    options = lobby.query_one("#matches", OptionList)
    options.highlighted = lobby.entries.index(entry)
    options.focus()
    await pilot.press("enter")
    await until(pilot, lambda: isinstance(app.screen, PlayScreen), "the table")
    screen = app.screen
    assert isinstance(screen, PlayScreen)
    await until(pilot, lambda: screen.connected and screen.model.view is not None, "the socket")
    return screen


def keys_for(model: PlayModel, command: Command) -> list[str]:
    """The keys a player presses at this table to send ``command``."""
    kind = command["type"]
    if kind == "draft":
        return ["k" if command["keep"] else "p"]
    if kind == "play":
        hand = model.hand
        index = hand.index(command["card"])
        if pending(model.view).get("kind") == "drawn":
            index = model.selected  # the drawn card: the table selects it
            assert hand[index] == command["card"], (hand, index, command)
        steps = (index - model.selected) % len(hand)
        keys = ["right"] * steps if steps <= len(hand) // 2 else ["left"] * (len(hand) - steps)
        keys.append("enter")
        if command["card"].startswith("W"):
            keys.append(COLOUR_KEYS[command["color"]])
        return keys
    if kind == "color":
        return [COLOUR_KEYS[command["color"]]]
    return {"draw": ["d"], "pass": ["p"], "accept": ["a"], "challenge": ["c"], "uno": ["u"], "dump": ["x"]}[kind]


def settled(model: PlayModel) -> bool:
    """Has the table taken in the whole answer to the last command? Every decision opens with an
    ``awaiting`` event, the last of its burst; a key pressed on the view before it would be
    decided on a table that has moved on."""
    return model.view is not None and model.last_type == "awaiting" and model.outstanding is None


def ready(screen: PlayScreen) -> bool:
    return screen.connected and settled(screen.model)


async def press_for(pilot: Pilot[Any], screen: PlayScreen, command: Command, *, stale_ok: bool = False) -> None:
    """Press the keys of ``command`` and wait for the server's answer. A refusal fails the test,
    but for a stale view when ``stale_ok`` (the opponent moved meanwhile: decided again)."""
    model = screen.model
    version = model.version
    sent_at = model.sent_at  # when the table last sent a command
    keys = keys_for(model, command)
    await pilot.press(*keys)
    assert model.sent_at > sent_at, f"{keys} for {command} sent nothing: {model.status!r}"
    await until(
        pilot,
        lambda: model.outstanding is None and (model.version > version or model.status_style == "refusal"),
        f"the answer to {command}",
    )
    if model.status_style == "refusal":
        assert stale_ok and "[stale_version]" in model.status, model.status


def where(model: PlayModel, opponent: ScriptedOpponent) -> str:
    """Both sides' decisions and hands, for a failure's message."""
    view, theirs = model.view or {}, opponent.view or {}
    return (
        f"table: v{model.version} {pending(view)} hand {hand_of(view)} legal {view.get('legal')} "
        f"status {model.status!r}; opponent: v{opponent.version} {pending(theirs)} hand {hand_of(theirs)} "
        f"legal {theirs.get('legal')}; {len(opponent.sent)} sent"
    )


async def hunt(
    pilot: Pilot[Any],
    screen: PlayScreen,
    opponent: ScriptedOpponent,
    choose: Strategy,
    found: Callable[[], bool],
    what: str,
) -> int:
    """Play the table with ``choose`` (seeing the opponent's view too) until ``found()``; the number
    of commands sent. Fails once the match has not moved for the stall window (each strategy gets
    there in a few dozen moves, however slowly), or at once if the opponent failed."""
    model = screen.model
    stall = Stall(STALL_SECONDS)
    moves = 0
    while not found():
        opponent.check()
        assert not model.over, f"the match ended before {what}"
        stall.moved(model.version)
        assert not stall.stuck, f"no {what}: the match stopped moving ({moves} moves): {where(model, opponent)}"
        view = model.view
        command = choose(view, opponent.view) if ready(screen) and view is not None else None
        if command is None:
            await pilot.pause(0.02)
            continue
        await press_for(pilot, screen, command, stale_ok=True)
        moves += 1
    return moves
