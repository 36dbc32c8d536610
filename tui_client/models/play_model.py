"""The play client's headless core: one table as the socket describes it. No Textual, no I/O.

The server sends, per decision (one command, bot move, timeout or join: ``?frames=decision``),
its events' envelopes with the openings this viewer may see, and the viewer's view right after
the last (docs/SERVER.md "The live socket"); one message per event from a server asked for
nothing else. :class:`PlayModel` keeps the newest
view, checks every envelope as it comes (``tui_client.models.receipts``), writes the event log in
plain words from this seat's side (``tui_client.models.narration``), and turns a key into a command
that the view's ``legal`` list allows (:func:`offered_actions`, :meth:`PlayModel.decide`).
Nothing is folded here: the view is the server's, and the client only offers what it lists.
Every command goes out with ``command_id`` and ``expected_version`` set.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from engine.game.cards import COLOR_ORDER, parse_color
from engine.game.errors import CardParseError
from engine.game.score_words import result_words
from engine.protocol.socket_protocol import envelopes_of
from tui_client.connection.api import refusal_words
from tui_client.connection.config import Receipt
from tui_client.models.lobby_model import clock_words
from tui_client.models.narration import Voice, awaiting_suffix, describe_event, table_after, table_result
from tui_client.models.receipts import ChainCheck
from tui_client.models.seating import seat_count

__all__ = [
    "COLOUR_KEYS",
    "Decision",
    "LogLine",
    "Offer",
    "PlayModel",
    "offered_actions",
    "prompt_words",
]

COLOUR_KEYS = {color.letter.lower(): color.value for color in COLOR_ORDER}  # r y g b
MAX_LOG = 400

# ---------------------------------------------------------------- the socket's messages


# ---------------------------------------------------------------- what may be done now


@dataclass(frozen=True)
class Offer:
    """One action the view's ``legal`` list allows now: its key, its words, its command.

    ``command`` is None for a play (the selected card says which) and for naming a colour (the
    colour key says which)."""

    action: str  # play, keep, draft_pass, draw, pass, dump, accept, challenge, color, uno
    key: str
    label: str
    command: dict[str, Any] | None = None
    cards: tuple[str, ...] = ()  # play: the cards that may be played


def _pending(view: Mapping[str, Any] | None) -> dict[str, Any]:
    pending = (view or {}).get("pending") or {}
    return dict(pending) if isinstance(pending, Mapping) else {}


def offered_actions(view: Mapping[str, Any] | None, seat: int | None) -> list[Offer]:
    """The actions ``seat`` may take in ``view``, straight from its ``legal`` list (docs/PROTOCOL.md)."""
    if view is None or seat is None:
        return []
    legal = [c for c in view.get("legal") or [] if isinstance(c, Mapping)]
    pending = _pending(view)
    kind = pending.get("kind")
    offers: list[Offer] = []
    plays = tuple(str(c.get("card")) for c in legal if c.get("type") == "play")
    if plays:
        label = "Play the drawn card" if kind == "drawn" else "Play a Draw Two" if kind == "volley" else "Play"
        offers.append(Offer("play", "enter", label, None, plays))
    for c in legal:
        t = c.get("type")
        if t == "draft":
            keep = bool(c.get("keep"))
            card = pending.get("card")
            looked = f" {card}" if card else ""
            if keep:
                offers.append(Offer("keep", "k", f"Keep{looked}", {"type": "draft", "keep": True}))
            else:
                offers.append(Offer("draft_pass", "p", f"Pass{looked}", {"type": "draft", "keep": False}))
        elif t == "draw":
            label = f"Draw {pending.get('total')}" if kind == "volley" else "Draw"
            offers.append(Offer("draw", "d", label, {"type": "draw"}))
        elif t == "pass":
            label = "Don't dump" if kind == "dump" else "Keep the drawn card"
            offers.append(Offer("pass", "p", label, {"type": "pass"}))
        elif t == "dump":
            cards = [str(x) for x in c.get("cards") or []]
            offers.append(Offer("dump", "x", f"Dump {' '.join(cards)}", {"type": "dump", "cards": cards}))
        elif t == "accept":
            offers.append(Offer("accept", "a", "Accept +4", {"type": "accept"}))
        elif t == "challenge":
            offers.append(Offer("challenge", "c", "Challenge", {"type": "challenge"}))
        elif t == "color":
            offers.append(Offer("color", "r/y/g/b", "Name a colour", None))
        elif t == "uno":
            offers.append(Offer("uno", "u", _uno_label(view, seat), {"type": "uno"}))
    return offers


def uno_window(view: Mapping[str, Any], seat: int) -> bool:
    """Is ``seat`` down to one card without having said UNO (so it may say it, or be caught)?"""
    counts = view.get("hand_counts") or []
    said = view.get("uno") or []
    return 0 <= seat < min(len(counts), len(said)) and counts[seat] == 1 and not said[seat]


def _uno_label(view: Mapping[str, Any], seat: int) -> str:
    return "UNO!" if uno_window(view, seat) else "Catch them: UNO!"


def prompt_words(view: Mapping[str, Any] | None, seat: int | None, names: Sequence[str]) -> str:
    """What the table waits for, in words, with the keys that answer it."""
    voice = Voice(seat, names)
    if view is None:
        return "waiting for the match…"
    pending = _pending(view)
    phase = view.get("phase")
    if phase == "match_over" or view.get("winner") is not None:
        scores = list(view.get("scores") or [0, 0])
        winner = view.get("winner")
        if not isinstance(winner, int) or not 0 <= winner < len(scores):
            return f"match over: {'–'.join(str(x) for x in scores)}"
        rules = view.get("rules")
        if len(scores) > 2:
            return "match over: " + table_result(scores, winner, voice, rules if isinstance(rules, Mapping) else None)
        verb = voice.verb(winner, "win", "wins")
        return "match over: " + result_words(
            voice.name(winner), scores, winner, rules if isinstance(rules, Mapping) else None, verb=verb
        )
    if phase in ("new", "waiting"):
        return "waiting for every seat to join…" if seat_count(view) > 2 else "waiting for both seats to join…"
    turn = pending.get("seat")
    kind = pending.get("kind")
    if turn is None or kind in (None, "none"):
        return "…"
    mine = turn == seat
    who = voice.name(turn)
    rules = view.get("rules") or {}
    steps = 2 * int(rules.get("hand_size") or 7)
    if kind == "draft":
        step = f"draft step {pending.get('step')}/{steps}"
        if mine:
            return f"{step}: you look at {pending.get('card')} — keep it (k) or pass it (p)"
        return f"{step}: {who} is drafting"
    if not mine:
        waits = {
            "turn": "to play",
            "drawn": "to play or keep the drawn card",
            "volley": f"facing a volley of {pending.get('total')}",
            "wild_draw_four": "to accept or challenge your Wild Draw Four",
            "dump": "to dump or not",
            "color": "to name the starter's colour",
        }.get(str(kind), str(kind))
        return f"{who}: {waits}"
    playable = [str(c.get("card")) for c in view.get("legal") or [] if c.get("type") == "play"]
    if kind == "turn":
        return f"your turn: play a card (←/→, Enter; {playable_count(view, playable)} playable) or draw (d)"
    if kind == "drawn":
        card = pending.get("card")
        if playable:
            return f"you drew {card}: play it (Enter) or keep it (p)"
        return f"you drew {card}: it cannot be played — keep it (p)"
    if kind == "volley":
        total = pending.get("total")
        if playable:
            return f"volley! play a Draw Two (Enter) or draw {total} (d)"
        return f"volley! you have no Draw Two: draw {total} (d)"
    if kind == "wild_draw_four":
        return f"{voice.name(pending.get('played_by'))} played a Wild Draw Four on you: accept (a) or challenge (c)"
    if kind == "dump":
        also = " — or play a turn" if pending.get("starter") else ""
        return f"dump every {pending.get('color')} card (x) or not (p){also}"
    if kind == "color":
        return f"name the colour of the starter {pending.get('starter')}: r y g b"
    return str(kind)


def playable_count(view: Mapping[str, Any], playable: Sequence[str]) -> int:
    """How many cards of the hand may be played: ``legal`` lists a card once however many copies
    are held, the hand marks every copy (issue 33.7: ``2 playable`` under three marked cards)."""
    hand = view.get("hand")
    if not isinstance(hand, list):
        return len(playable)
    allowed = set(playable)
    return sum(1 for card in hand if str(card) in allowed)


# ---------------------------------------------------------------- the table


@dataclass
class LogLine:
    seq: int  # 0: not an event (a note of the client's)
    text: str
    style: str = ""  # "", "mine", "note", "refusal", "problem"


@dataclass(frozen=True)
class Decision:
    """What a key leads to: a command to send, and/or a note for the status line."""

    command: dict[str, Any] | None = None
    note: str | None = None


@dataclass
class PlayModel:
    """One match's table, from a seat (0 … N-1) or as a spectator (``seat`` None); ``names``
    has one name per seat."""

    match: str
    seat: int | None
    names: list[str] = field(default_factory=lambda: ["seat 0", "seat 1"])
    earlier: Receipt | None = None
    session: str = field(default_factory=lambda: secrets.token_hex(4))
    view: dict[str, Any] | None = None
    log: list[LogLine] = field(default_factory=list)
    selected: int = 0
    choosing_color: str | None = None  # a wild waiting for its colour
    uno_armed: bool = False  # say UNO with the next play
    outstanding: str | None = None  # the command_id sent and not yet answered (result and events)
    answered_at: int = 0  # the version its ok result announced: its events are still on the way
    sent_at: float = 0.0  # time.monotonic() when it was sent
    status: str = ""  # the last refusal or note, in words
    status_style: str = ""  # "refusal", "note"
    last_type: str = ""
    annulled: str | None = None  # the director's ruling annulled this match: what the table says instead
    picked: int | None = None  # the event (seq) picked in the log to dispute; None: the latest
    _count: int = 0
    check: ChainCheck = field(init=False)
    received: list[dict[str, Any]] = field(default_factory=list)  # every event with its open: for proofs
    round_deadline: str | None = None  # a timed tournament round's (RULES.md D26): when its time runs out

    def __post_init__(self) -> None:
        self.check = ChainCheck(self.match, self.earlier)

    # ------------------------------------------------------------ what the socket sends

    @property
    def version(self) -> int:
        return int(self.view.get("version", 0)) if self.view else 0

    @property
    def last_seq(self) -> int:
        return self.check.last_seq

    @property
    def watching(self) -> bool:
        return self.seat is None

    @property
    def voice(self) -> Voice:
        """Who is who in the table's words: the player is "you", the others by name."""
        return Voice(self.seat, self.names)

    def name(self, seat: int) -> str:
        """A seat's name (``seat N`` without one), never "you"."""
        return self.names[seat] if 0 <= seat < len(self.names) else f"seat {seat}"

    @property
    def over(self) -> bool:
        return self.view is not None and (self.view.get("phase") == "match_over" or self.last_type == "seed_revealed")

    @property
    def finished(self) -> bool:
        """Over or annulled: nothing more will be played at this table."""
        return self.over or self.annulled is not None

    def annul(self, words: str) -> None:
        """The director's ruling annulled the match: no more moves here; ``words`` say so and where to go."""
        self.annulled = words
        self.outstanding = None
        self.choosing_color = None
        self.uno_armed = False
        self.note(words, "note")
        self._add(0, words, "note")

    def apply(self, message: Mapping[str, Any]) -> list[str]:
        """Take one socket message (``event``, ``decision`` or ``result``); the check problems it raised, if any.

        A ``decision`` message's events are taken one by one, in order, exactly as ``event``
        messages are; its view is the one after its last event."""
        kind = message.get("type")
        if kind in ("event", "decision"):
            events = envelopes_of(message)
            view = message.get("view")
            if not events or not isinstance(view, Mapping):
                return [self.check._fail(f"an {kind} message without its events or view")]
            problems: list[str] = []
            table: Mapping[str, Any] | None = self.view
            for event in events[:-1]:
                problems += self.apply_event(event, None, table)
                table = table_after(table, event)
            return problems + self.apply_event(events[-1], view, table)
        if kind == "result":
            self.apply_result(message)
        return []

    def apply_event(
        self, event: Mapping[str, Any], view: Mapping[str, Any] | None, table: Mapping[str, Any] | None = None
    ) -> list[str]:
        """Check and narrate one envelope; ``view`` is the view right after it (None for an event
        of a decision before its last: the table shown stays the one before the decision), and
        ``table`` the table just before it when that is not the view shown (inside a decision)."""
        problems = self.check.check(event)
        self.received.append(dict(event))
        before = self.view if table is None else table
        if view is not None:
            self.view = dict(view)
            if self.outstanding is not None and self.answered_at and self.version >= self.answered_at:
                self.outstanding = None  # the answer is complete: its events are in
            if self.seat is None and isinstance(view.get("viewer"), int):
                self.seat = int(view["viewer"])
        self.last_type = str(event.get("type"))
        awaiting = event.get("data") if event.get("type") == "awaiting" else None
        suffix = awaiting_suffix(awaiting, Voice(self.seat, self.names))
        last = self.log[-1] if self.log else None
        if suffix and last is not None and last.seq == event.get("seq", 0) - 1 and " played " in last.text:
            last.text += suffix  # "greedy-1 played R+2 — you face 4"
        else:
            words = describe_event(event, seat=self.seat, names=self.names, before=before)
            if words is not None:
                data = event.get("data") or {}
                mine = self.seat is not None and data.get("seat") == self.seat
                self._add(int(event.get("seq", 0)), words, "mine" if mine else "")
        for problem in problems:
            self._add(int(event.get("seq", 0)), f"CHECK FAILED: {problem}", "problem")
        self._settle()
        return problems

    def apply_result(self, message: Mapping[str, Any]) -> None:
        command_id = message.get("command_id")
        if command_id is not None and command_id == self.outstanding:
            version = message.get("version")
            if message.get("ok") and isinstance(version, int) and version > self.version:
                # The result comes before the command's events (docs/SERVER.md "The live socket"):
                # until they are in, the view is the one the command answered, and a key pressed
                # on it would be decided on a table that has moved on (a stale_version refusal).
                self.answered_at = version
            else:
                self.outstanding = None
        if message.get("ok"):
            if self.status_style == "refusal":
                self.status, self.status_style = "", ""
            return
        error = message.get("error") or {}
        words = refusal_words(error if isinstance(error, Mapping) else {})
        self.note(f"refused: {words}", "refusal")
        self._add(0, f"refused: {words}", "refusal")

    def note(self, words: str, style: str = "note") -> None:
        self.status, self.status_style = words, style

    def expire(self, seconds: float, now: float | None = None) -> bool:
        """Give up on a command unanswered for ``seconds`` (so the keys work again); True if one was."""
        if self.outstanding is None or (now if now is not None else time.monotonic()) - self.sent_at < seconds:
            return False
        self.outstanding = None
        self.note("no answer from the server to your last command: look at the table and try again", "refusal")
        return True

    def lost_connection(self) -> None:
        """The socket went away: a command sent on it may never be answered."""
        self.outstanding = None

    def _add(self, seq: int, text: str, style: str = "") -> None:
        self.log.append(LogLine(seq, text, style))
        del self.log[:-MAX_LOG]

    def _settle(self) -> None:
        """Keep the cursor on a card, the colour prompt and UNO flag only while they still apply."""
        hand = self.hand
        if hand:
            self.selected = max(0, min(self.selected, len(hand) - 1))
            pending = _pending(self.view)
            if pending.get("kind") == "drawn" and pending.get("seat") == self.seat and pending.get("card") in hand:
                self.selected = len(hand) - 1 - hand[::-1].index(pending["card"])
        else:
            self.selected = 0
        if self.choosing_color is not None and self.choosing_color not in self.playable:
            self.choosing_color = None
        if self.uno_armed and len(hand) != 2:
            self.uno_armed = False

    # ------------------------------------------------------------ what the table shows

    @property
    def hand(self) -> list[str]:
        v = self.view or {}
        if v.get("hand") is not None:
            return [str(c) for c in v["hand"]]
        hands = v.get("hands")
        if self.seat is not None and isinstance(hands, list) and 0 <= self.seat < len(hands):
            return [str(c) for c in hands[self.seat]]
        return []

    @property
    def legal(self) -> list[dict[str, Any]]:
        return [dict(c) for c in (self.view or {}).get("legal") or [] if isinstance(c, Mapping)]

    @property
    def playable(self) -> set[str]:
        return {str(c.get("card")) for c in self.legal if c.get("type") == "play"}

    @property
    def my_decision(self) -> bool:
        return (
            self.annulled is None
            and self.seat is not None
            and _pending(self.view).get("seat") == self.seat
            and bool(self.legal)
        )

    @property
    def choosing_card(self) -> bool:
        """Is it the player's decision, and one that plays a card from the hand (so the hand shows
        which cards may be played)?"""
        pending = _pending(self.view)
        kind = pending.get("kind")
        return self.my_decision and (
            kind in ("turn", "drawn", "volley") or (kind == "dump" and bool(pending.get("starter")))
        )

    @property
    def selected_card(self) -> str | None:
        hand = self.hand
        return hand[self.selected] if hand and 0 <= self.selected < len(hand) else None

    def offers(self) -> list[Offer]:
        if self.annulled is not None:
            return []
        offers = offered_actions(self.view, self.seat)
        caught = self.catchable()
        if caught is not None:  # at a table any other seat may catch (D22): say whom
            offers = [replace(o, label=f"Catch {self.name(caught)}: UNO!") if o.action == "uno" else o for o in offers]
        return offers

    def catchable(self) -> int | None:
        """At a table of more than two, the other seat down to one card without UNO said (the
        one a ``u`` would catch), if any."""
        view = self.view or {}
        if self.seat is None or seat_count(view) <= 2 or uno_window(view, self.seat):
            return None
        return next((s for s in range(seat_count(view)) if s != self.seat and uno_window(view, s)), None)

    def prompt(self) -> str:
        if self.annulled is not None:
            return self.annulled
        if self.choosing_color is not None:
            return f"name the colour for your {self.choosing_color}: r y g b (Esc: another card)"
        words = prompt_words(self.view, self.seat, self.names)
        if self.uno_armed:
            words += " · UNO! goes with your next play"
        return words

    def seconds_left(self, now: datetime | None = None) -> float | None:
        """Until the pending decision's ``deadline`` (the server's clock); None without one."""
        deadline = (self.view or {}).get("deadline")
        if not isinstance(deadline, str) or self.finished:
            return None
        try:
            at = datetime.fromisoformat(deadline.replace("Z", "+00:00"))
        except ValueError:
            return None
        return max(0.0, (at - (now or datetime.now(UTC))).total_seconds())

    def round_clock(self, now: datetime | None = None) -> str | None:
        """A timed round's clock (RULES.md D26): ``time called`` once the view says so, else
        ``12:34 left in round`` until the round's deadline; None for an untimed match or one over."""
        if (self.view or {}).get("time_called"):
            return "time called: decided on totals"
        if self.round_deadline is None or self.finished:
            return None
        try:
            at = datetime.fromisoformat(self.round_deadline.replace("Z", "+00:00"))
        except ValueError:
            return None
        left = (at - (now or datetime.now(UTC))).total_seconds()
        return f"{clock_words(left)} left in round" if left > 0 else "round time up"

    def receipt(self) -> Receipt:
        return self.check.receipt()

    # ------------------------------------------------------------ the event to dispute

    def events(self) -> list[LogLine]:
        """The log's lines that are events (one per seq: the first line of each)."""
        out: list[LogLine] = []
        for line in self.log:
            if line.seq > 0 and line.style != "problem" and (not out or out[-1].seq != line.seq):
                out.append(line)
        return out

    def pick_event(self, delta: int) -> None:
        """Move the log's marker ``delta`` events back (negative) or forth; past the newest it is
        the newest again (``picked`` None: the marker follows the log)."""
        events = self.events()
        if not events:
            return
        seqs = [line.seq for line in events]
        at = seqs.index(self.picked) if self.picked in seqs else len(seqs) - 1
        at += delta
        self.picked = None if at >= len(seqs) - 1 else seqs[max(0, at)]

    def dispute_target(self) -> LogLine | None:
        """The event a dispute would be about: the one picked in the log, else the latest."""
        events = self.events()
        picked = next((line for line in events if line.seq == self.picked), None)
        return picked or (events[-1] if events else None)

    # ------------------------------------------------------------ keys into commands

    def move(self, delta: int) -> None:
        hand = self.hand
        if hand:
            self.selected = (self.selected + delta) % len(hand)

    def select(self, index: int) -> None:
        if 0 <= index < len(self.hand):
            self.selected = index

    def decide(self, action: str, color: str | None = None) -> Decision:
        """The command a key asks for, if the view's ``legal`` list allows it; else a note why not."""
        if self.annulled is not None:
            return Decision(note=self.annulled)
        if self.watching:
            return Decision(note="you are watching: there is no seat to play from")
        if self.outstanding is not None:
            return Decision(note="waiting for the server to answer your last command…")
        if self.over:
            return Decision(note="the match is over")
        offers = {o.action: o for o in self.offers()}
        # ``p`` and ``k`` mean what the decision at hand makes of them.
        if action == "pass" and "pass" not in offers and "draft_pass" in offers:
            action = "draft_pass"
        elif (
            action == "keep"
            and "keep" not in offers
            and "pass" in offers
            and _pending(self.view).get("kind") == "drawn"
        ):
            action = "pass"  # keep the drawn card
        if action == "uno":
            return self._uno(offers)
        if action == "color":
            return self._color(color, offers)
        if action == "enter":
            if "keep" in offers:
                action = "keep"
            elif "play" in offers:
                action = "play"
            else:
                return Decision(note=self._nothing_to(action))
        if action == "play":
            return self._play(offers)
        offer = offers.get(action)
        if offer is None or offer.command is None:
            return Decision(note=self._nothing_to(action))
        return Decision(command=dict(offer.command))

    def _nothing_to(self, action: str) -> str:
        if not self.my_decision:
            return "it is not your decision now"
        words = {
            "draw": "you cannot draw now",
            "pass": "there is nothing to pass or keep now",
            "draft_pass": "there is nothing to pass now",
            "keep": "there is nothing to keep now",
            "dump": "there is no dump to make now",
            "accept": "there is no Wild Draw Four to accept",
            "challenge": "there is no Wild Draw Four to challenge",
            "enter": "no card can be played now",
        }
        return words.get(action, f"{action} is not possible now")

    def _play(self, offers: Mapping[str, Offer]) -> Decision:
        offer = offers.get("play")
        card = self.selected_card
        if offer is None:
            return Decision(note=self._nothing_to("enter"))
        if card is None or card not in offer.cards:
            return Decision(note=f"{card or 'that'} cannot be played now; playable: {' '.join(offer.cards)}")
        if card.startswith("W"):
            self.choosing_color = card
            return Decision(note=f"name the colour for your {card}: r y g b")
        return Decision(command=self._with_uno({"type": "play", "card": card}))

    def _color(self, color: str | None, offers: Mapping[str, Offer]) -> Decision:
        try:
            name = parse_color(color).value
        except CardParseError as exc:
            return Decision(note=str(exc))
        if self.choosing_color is not None and "play" in offers and self.choosing_color in offers["play"].cards:
            card, self.choosing_color = self.choosing_color, None
            return Decision(command=self._with_uno({"type": "play", "card": card, "color": name}))
        if "color" in offers:
            return Decision(command={"type": "color", "color": name})
        selected = self.selected_card
        if selected is not None and selected.startswith("W") and "play" in offers and selected in offers["play"].cards:
            return Decision(command=self._with_uno({"type": "play", "card": selected, "color": name}))
        return Decision(note="there is no colour to name now")

    def _uno(self, offers: Mapping[str, Offer]) -> Decision:
        if "uno" in offers:
            return Decision(command={"type": "uno"})
        if self.my_decision and "play" in offers and len(self.hand) == 2:
            self.uno_armed = not self.uno_armed
            return Decision(note="UNO! goes with your next play" if self.uno_armed else "UNO taken back")
        return Decision(note="no UNO to say or catch now")

    def _with_uno(self, command: dict[str, Any]) -> dict[str, Any]:
        if self.uno_armed and len(self.hand) == 2:
            command["uno"] = True
        self.uno_armed = False
        return command

    def cancel(self) -> None:
        self.choosing_color = None

    def envelope(self, command: Mapping[str, Any]) -> dict[str, Any]:
        """The socket message for ``command``: a fresh ``command_id`` and the version it was decided at."""
        self._count += 1
        command_id = f"{self.session}-{self._count}"
        self.outstanding = command_id
        self.answered_at = 0
        self.sent_at = time.monotonic()
        return {
            "type": "command",
            "command_id": command_id,
            "expected_version": self.version,
            "command": dict(command),
        }


def round_deadline_in(tournament: Mapping[str, Any], number: object) -> str | None:
    """Round ``number``'s deadline in a tournament as ``GET /api/tournaments/{id}`` gives it (None:
    untimed, or no such round)."""
    for rnd in tournament.get("rounds") or []:
        if isinstance(rnd, Mapping) and rnd.get("number") == number:
            deadline = rnd.get("deadline")
            return deadline if isinstance(deadline, str) else None
    return None
