"""Events in plain words: the one narration of the terminal client, for the live table's log
(``play_model``) and the replay scrubber's (``replay_model``).

A :class:`Voice` says who is who: the live table speaks from its seat ("you", the other player by
name), the scrubber calls seats by the names the replay records (``engine.game.seat_names``; "seat 0",
"seat 1" for a replay without them). A result is always said winner first, with the rule of
the ruleset (``engine.game.score_words``). Both tell an event with the same words
from :func:`describe`; they differ only in what they pass in: the live log leaves out the events
whose effects say it all (``every`` False: most commands and ``awaiting``s), the scrubber has a
line for every event and knows what follows it (the ``awaiting`` after a Draw Two, the cards
drawn after a challenge), which the live table learns only when it comes (:func:`awaiting_suffix`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.game.rulesets import RULESETS
from engine.game.score_words import result_words, rule_words
from tui_client.models.seating import direction_name, is_table, next_seat, seat_count

__all__ = [
    "SEATS",
    "Voice",
    "awaiting_suffix",
    "describe",
    "describe_event",
    "event_data",
    "match_result",
    "rules_of_view",
    "table_result",
]

Data = Mapping[str, Any]

DRAW_REASONS = {
    "draw": "",
    "volley": "the volley",
    "starter": "the starter",
    "wild_draw_four": "the Wild Draw Four",
    "challenge_upheld": "the challenge was upheld",
    "challenge_failed": "the challenge failed",
    "uno_penalty": "UNO penalty",
}
TIMEOUT_KINDS = {
    "draft": "the draft",
    "turn": "a turn",
    "drawn": "the drawn card",
    "volley": "the volley",
    "wild_draw_four": "the Wild Draw Four",
    "dump": "the dump",
    "color": "the starter's colour",
}
WAITING = {  # what an awaiting the live log leaves out waits for (the scrubber's line)
    "draft": "to keep or pass the card looked at",
    "turn": "to play or draw",
    "drawn": "to play or keep the drawn card",
}


@dataclass(frozen=True)
class Voice:
    """Who is who in the words: seat ``me`` is "you" (None: nobody is), a seat with a name in
    ``names`` is called by it, any other "seat N"."""

    me: int | None = None
    names: Sequence[str] = ()

    def name(self, seat: object) -> str:
        if isinstance(seat, int) and seat == self.me:
            return "you"
        if isinstance(seat, int) and 0 <= seat < len(self.names):
            return self.names[seat]
        return f"seat {seat}"

    def their(self, seat: object) -> str:
        who = self.name(seat)
        return "your" if who == "you" else f"{who}'s"

    def verb(self, seat: object, you: str, other: str) -> str:
        """The verb for ``seat``: ``you`` form for "you" ("face"), ``other`` for the rest ("faces")."""
        return you if isinstance(seat, int) and seat == self.me else other


SEATS = Voice()  # the scrubber's: seat 0, seat 1


def codes_text(codes: object) -> str:
    return " ".join(str(c) for c in codes) if isinstance(codes, list | tuple) and codes else "no cards"


def cards_text(count: object) -> str:
    return f"{count} card{'s' if count != 1 else ''}"


def event_data(event: Mapping[str, Any]) -> dict[str, Any]:
    """An envelope's data with the values of the openings it carries (what its viewer may see)."""
    opened = {k: o.get("value") for k, o in (event.get("open") or {}).items() if isinstance(o, Mapping)}
    return {**(event.get("data") or {}), **opened}


def describe_event(
    event: Mapping[str, Any],
    *,
    seat: int | None,
    names: Sequence[str],
    before: Mapping[str, Any] | None = None,
) -> str | None:
    """A received envelope in words from ``seat``'s side, for the live log (None: left out).
    ``before`` is the view before it (what a ``pass`` answered)."""
    pending = ((before or {}).get("pending") or {}).get("kind")
    voice = Voice(seat, names)
    return describe(
        str(event.get("type")), event_data(event), voice, answered=pending, rules=rules_of_view(before), table=before
    )


def table_after(table: Mapping[str, Any] | None, event: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The table the next event of the same decision is told against (``describe_event``'s
    ``before``), when only the view after the decision's last event is sent (``?frames=decision``):
    ``table`` with what ``event`` changed of what the words read of it, a new round's dealer and
    direction, a Reverse's direction. Nothing else the words read changes inside one decision."""
    if table is None:
        return None
    d = event_data(event)
    if event.get("type") == "round_started" and "player1" in d:
        return {**table, "dealer": d["player1"], "direction": 1}
    if d.get("direction") in (1, -1):
        return {**table, "direction": d["direction"]}
    return table


def rules_of_view(view: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """What a table view says of its rules (its ruleset's name and target) as a ruleset dict
    with the scoring of that named ruleset: enough to say how the match is won."""
    if not view or not isinstance(view.get("ruleset"), str):
        return None
    base = RULESETS.get(view["ruleset"])
    rules: dict[str, Any] = {"name": view["ruleset"], "target": view.get("target")}
    if base is not None:
        rules["scoring"] = base.scoring.value
        rules["draw_two_stacking"] = base.draw_two_stacking
    shown = view.get("rules")
    if isinstance(shown, Mapping) and isinstance(shown.get("draw_two_stacking"), bool):
        rules["draw_two_stacking"] = shown["draw_two_stacking"]  # the match's own, overrides included
    return rules


def match_result(d: Data, voice: Voice, rules: Data | None, *, forfeit: bool = False) -> str:
    """A ``match_ended``'s data in words, winner first with the rule: ``bob wins 31–229 (lowest
    total wins)``; from a seat, ``you win …`` or ``you lost: bob wins 67–202 (…)``."""
    scores = list(d.get("scores") or [0, 0])
    winner = d.get("winner")
    if not isinstance(winner, int) or not 0 <= winner < len(scores):
        return "–".join(str(x) for x in scores)
    if len(scores) > 2:
        places = d.get("places")
        return table_result(
            scores, winner, voice, rules, forfeit=forfeit, places=places if isinstance(places, list) else None
        )
    words = result_words(
        voice.name(winner), scores, winner, rules, verb=voice.verb(winner, "win", "wins"), forfeit=forfeit
    )
    if voice.me is not None and voice.me != winner:
        return f"you lost: {words}"
    return words


def table_result(
    scores: Sequence[int],
    winner: int,
    voice: Voice,
    rules: Data | None,
    *,
    forfeit: bool = False,
    places: Sequence[object] | None = None,
) -> str:
    """A table's result, winner first with the rule, then every other seat in its place with its
    total: ``ann wins with 512 (first to 500 wins) — bob 340 · cyd 212 · dan 0``; from a seat,
    ``you win …`` or ``you lost: ann wins …``."""
    why = "by forfeit" if forfeit else rule_words(rules)
    head = f"{voice.name(winner)} {voice.verb(winner, 'win', 'wins')} with {scores[winner]}"
    head += f" ({why})" if why else ""

    def place(seat: int) -> tuple[int, int, int]:
        at = places[seat] if places is not None and seat < len(places) else None
        return (at if isinstance(at, int) else len(scores), -scores[seat], seat)

    rest = sorted((s for s in range(len(scores)) if s != winner), key=place)
    words = f"{head} — {' · '.join(f'{voice.name(s)} {scores[s]}' for s in rest)}"
    if voice.me is not None and voice.me != winner:
        return f"you lost: {words}"
    return words


def names_words(names: Sequence[str]) -> str:
    """``ann vs bob`` for two, ``ann, bob, cyd and dan`` for more."""
    if len(names) == 2:
        return f"{names[0]} vs {names[1]}"
    return ", ".join(names[:-1]) + f" and {names[-1]}"


def _draw_reason(reason: str, rules: Data | None) -> str:
    """Why cards were drawn, in words: a Draw Two's cards are "the volley" only where Draw Twos
    stack; without stacking (classic, RULES.md D25) they are the Draw Two's, drawn at once."""
    if reason == "volley" and rules is not None and rules.get("draw_two_stacking") is False:
        return "the Draw Two"
    return DRAW_REASONS.get(reason, reason)


def deals(rules: Data | None) -> bool:
    """Does the ruleset's Player 1 deal (``classic``: the dealer, RULES.md D18)?"""
    return bool(rules) and (rules or {}).get("name") == "classic"


def _turns(table: Data | None) -> bool:
    """Does a Skip or Reverse at this table say more than the next turn does (3+ seats)?"""
    return is_table(table) and seat_count(table) > 2


def turned_words(direction: object) -> str:
    """`` — direction now counter-clockwise``: what a Reverse (``card_played``'s or
    ``starter_turned``'s ``direction``, recorded at a table of 3+) did; "" without one."""
    if direction not in (1, -1):
        return ""
    return f" — direction now {direction_name(direction)}"


def action_suffix(d: Data, table: Data | None, voice: Voice) -> str:
    """What a Skip or a Reverse did at a table of 3+ (``table``: the view before it): ``— bob is
    skipped``, ``— direction now counter-clockwise``."""
    if "direction" in d:
        return turned_words(d["direction"])
    code, seat = str(d.get("code")), d.get("seat")
    if not _turns(table) or not isinstance(seat, int) or not code.endswith("S") or code.startswith("W"):
        return ""
    skipped = next_seat(table, seat)
    if skipped is None:
        return ""
    return f" — {voice.name(skipped)} {voice.verb(skipped, 'are', 'is')} skipped"


def _starter_suffix(d: Data, table: Data | None, voice: Voice) -> str:
    """A starter Skip or Reverse at a table of 3+ (D19): who is skipped, who moves first."""
    dealer = (table or {}).get("dealer")
    code = str(d.get("code"))
    if not _turns(table) or not isinstance(dealer, int):
        return ""
    if "direction" in d:
        return turned_words(d["direction"]) + f": {voice.name(dealer)} {voice.verb(dealer, 'play', 'plays')} first"
    first = next_seat(table, dealer, 1)
    if code.endswith("S") and not code.startswith("W") and first is not None:
        return f" — {voice.name(first)} {voice.verb(first, 'are', 'is')} skipped"
    return ""


def describe(
    kind: str,
    d: Data,
    voice: Voice,
    *,
    every: bool = False,
    answered: object = None,
    after: Data | None = None,
    then: Data | None = None,
    rules: Data | None = None,
    forfeit: bool = False,
    table: Data | None = None,
) -> str | None:
    """Event ``kind`` with data ``d`` (as its viewer sees it) in words. ``every``: words for every
    event (else None for a command or an awaiting whose effects say it). ``answered``: the kind of
    decision a command answered; ``after``: the awaiting that closes the event's batch; ``then``:
    the event right after it (the cards a challenge made someone draw); ``rules``: the match's
    ruleset (a dict: how it is won); ``forfeit``: the match ended by a forfeit; ``table``: the view
    of the table just before the event (at 3+ seats it says who a Skip skips and where a Reverse
    turns)."""
    who = voice.name(d.get("seat"))
    if kind == "match_created":
        created = d.get("ruleset") or {}
        names = d.get("names")
        seated = f" — {names_words([str(n) for n in names])}" if isinstance(names, list) and len(names) >= 2 else ""
        return (
            f"match created: {created.get('name')}, to {created.get('target')} points ({rule_words(created)}){seated}"
        )
    if kind == "seat_joined":
        return f"{who} joined"
    if kind == "command":
        return _command_words(d, voice, answered, every)
    if kind == "timed_out":
        return _timeout_words(d, voice)
    if kind == "cut":
        codes = d.get("codes") or ["?", "?"]
        first = d.get("first_drafter")
        if len(codes) > 2:
            cuts = ", ".join(f"{voice.name(s)} {code}" for s, code in enumerate(codes))
            return f"cut: {cuts} — " + (
                f"{voice.name(first)} {voice.verb(first, 'deal', 'deals')}" if first is not None else "cut again"
            )
        then_words = (
            f"{voice.name(first)} {voice.verb(first, 'draft', 'drafts')} first" if first is not None else "cut again"
        )
        return f"cut: {voice.name(0)} {codes[0]}, {voice.name(1)} {codes[1]} — {then_words}"
    if kind == "round_started":
        again = f" again (fresh start {d['restart']})" if d.get("restart") else ""
        p1 = d.get("player1")
        if deals(rules):
            return f"round {d.get('round')} starts{again} — {voice.name(p1)} {voice.verb(p1, 'deal', 'deals')}"
        return f"round {d.get('round')} starts{again} — {voice.name(p1)} {voice.verb(p1, 'are', 'is')} Player 1"
    if kind == "cards_dealt":
        counts = d.get("counts") or [0, 0]
        seats = range(len(counts))
        hands = [f"; {voice.their(s)} hand: {codes_text(d[f'hand{s}'])}" for s in seats if f"hand{s}" in d]
        if len(counts) > 2:
            each = (
                f"{counts[0]} cards to each of {len(counts)} seats"
                if len(set(counts)) == 1
                else "/".join(map(str, counts))
            )
            return f"dealt {each}{''.join(hands)}"
        return f"dealt {counts[0]} and {counts[1]} cards{''.join(hands)}"
    if kind == "drafted":
        return _drafted_words(d, who)
    if kind == "draft_completed":
        return f"draft complete: the draft pile ({cards_text(len(d.get('codes') or []))}) goes under the draw pile"
    if kind == "starter_turned":
        return f"starter turned: {d.get('code')}" + _starter_suffix(d, table, voice)
    if kind == "awaiting":
        return _awaiting_words(d, voice, every)
    if kind == "card_played":
        turned = action_suffix(d, table, voice)
        return _played_words(d, who) + turned + (awaiting_suffix(after, voice) or "")
    if kind == "cards_drawn":
        count = d.get("count")
        why = _draw_reason(str(d.get("reason")), rules)
        codes = f": {codes_text(d['codes'])}" if "codes" in d else ""
        what = "a card" if count == 1 and not why else cards_text(count)
        return f"{who} drew {what}{f' ({why})' if why else ''}{codes}"
    if kind == "draw_lapsed":
        return f"no cards left to draw: {who} should have drawn {cards_text(d.get('missing'))} more"
    if kind == "pile_recycled":
        return f"the discard pile is shuffled into a new draw pile ({cards_text(d.get('count'))})"
    if kind == "color_chosen":
        return f"{who} named {d.get('color')}"
    if kind == "challenge_resolved":
        return _challenge_words(d, voice, then)
    if kind == "uno_said":
        return f"{who} said UNO!"
    if kind == "uno_caught":
        return f"{voice.name(d.get('by'))} caught {who} without UNO!"
    if kind == "round_ended":
        return _round_words(d, voice)
    if kind == "match_ended":
        rounds = d.get("rounds")
        return f"match over: {match_result(d, voice, rules, forfeit=forfeit)} after {rounds} round{'s' if rounds != 1 else ''}"
    if kind == "seed_revealed":
        return "the server's seed is revealed: every shuffle and sealed card can now be checked"
    if kind == "match_forfeited" and _turns(table):
        return f"{who} {voice.verb(d.get('seat'), 'leave', 'leaves')} the table: a forfeit ({d.get('reason')})"
    if kind == "match_forfeited":
        return f"{who} {voice.verb(d.get('seat'), 'forfeit', 'forfeits')} the match ({d.get('reason')})"
    if kind == "forfeit_declared":
        return f"{who} {voice.verb(d.get('seat'), 'lose', 'loses')} by forfeit ({d.get('reason')})"
    if kind == "time_called":
        return TIME_CALLED_WORDS
    return kind


TIME_CALLED_WORDS = "time is called: this hand is the last, unless the best total is shared when it ends (D26)"


def awaiting_suffix(awaiting: Data | None, voice: Voice) -> str | None:
    """What an awaiting (its data) adds to the play just before it: "— you face 4" after a Draw
    Two, "— you may accept or challenge" after a Wild Draw Four; None for any other."""
    if awaiting is None:
        return None
    who = voice.name(awaiting.get("seat"))
    if awaiting.get("kind") == "volley":
        return f" — {who} {voice.verb(awaiting.get('seat'), 'face', 'faces')} {awaiting.get('total')}"
    if awaiting.get("kind") == "wild_draw_four":
        return f" — {who} may accept or challenge"
    return None


def command_words(command: Data) -> str:
    """A command object in words, as an instruction ("play W naming green + UNO")."""
    kind = command.get("type")
    if kind == "play":
        words = f"play {command.get('card')}"
        if command.get("color"):
            words += f" naming {command['color']}"
        return words + (" + UNO" if command.get("uno") else "")
    if kind == "draft":
        return "keep the card looked at" if command.get("keep") else "pass the card looked at"
    if kind == "dump":
        return f"dump {codes_text(command.get('cards') or [])}" + (" + UNO" if command.get("uno") else "")
    if kind == "color":
        return f"name {command.get('color')}"
    return {
        "draw": "draw",
        "pass": "keep the drawn card",
        "accept": "accept the Wild Draw Four",
        "challenge": "challenge the Wild Draw Four",
        "uno": "say UNO",
    }.get(str(kind), str(kind))


def _command_words(d: Data, voice: Voice, answered: object, every: bool) -> str | None:
    command = d.get("command") or {}
    who = voice.name(d.get("seat"))
    kind = command.get("type")
    if kind == "pass":
        return f"{who} did not dump" if answered == "dump" else f"{who} kept the drawn card"
    if kind == "accept":
        return f"{who} accepted the Wild Draw Four"
    if kind == "challenge":
        return f"{who} challenged the Wild Draw Four!"
    # play, draw, draft, dump, color, uno: the events that follow say what happened
    return f"{who}: {command_words(command)}" if every else None


def _timeout_words(d: Data, voice: Voice) -> str:
    action = d.get("action")
    count = d.get("count")
    head = f"{voice.their(d.get('seat'))} time ran out ({TIMEOUT_KINDS.get(str(d.get('kind')), d.get('kind'))})"
    if not isinstance(action, Mapping):
        return f"{head} — {count} timeouts in a row: a forfeit"
    kind = action.get("type")
    default = {
        "draft": "the card looked at is kept",
        "draw": "a card is drawn",
        "pass": "the drawn card is kept" if d.get("kind") != "dump" else "no dump",
        "accept": "the Wild Draw Four is accepted",
        "color": f"{action.get('color')} is named",
    }.get(str(kind), str(kind))
    return f"{head} — {default} ({count} in a row; 3 forfeit the match)"


def _drafted_words(d: Data, who: str) -> str:
    pile = d.get("pile_code")
    if "hand_code" in d:
        took = d["hand_code"]
        if d.get("keep"):
            return f"{who} kept {took}; {pile} goes face up on the draft pile"
        return f"{who} passed {pile} onto the draft pile and took {took}"
    if d.get("keep"):
        return f"{who} kept the card looked at; {pile} goes face up on the draft pile"
    return f"{who} passed {pile} onto the draft pile and took the next card"


def _awaiting_words(d: Data, voice: Voice, every: bool) -> str | None:
    kind = d.get("kind")
    seat = d.get("seat")
    who = voice.name(seat)
    if kind == "volley":
        total = d.get("total")
        return f"{who} {voice.verb(seat, 'face', 'faces')} a volley of {total}: a Draw Two, or draw {total}"
    if kind == "wild_draw_four":
        return f"{who} may accept the Wild Draw Four or challenge it"
    if kind == "color":
        return f"{who} {voice.verb(seat, 'name', 'names')} the starter's colour"
    if kind == "dump":
        return f"{who} may dump every card of the colour, or not"
    if not every:
        return None  # draft, turn, drawn: the live prompt line says whose decision it is
    waits = f"to play or keep the drawn {d['code']}" if kind == "drawn" and "code" in d else WAITING.get(str(kind))
    return f"waiting for {who} {waits or kind}"


def _played_words(d: Data, who: str) -> str:
    code = str(d.get("code"))
    words = f"{who} played {code}"
    if code.startswith("W"):
        words += f" naming {d.get('color')}"
    if d.get("uno"):
        words += " and said UNO!"
    return words


def _challenge_words(d: Data, voice: Voice, then: Data | None) -> str:
    by, player = d.get("by"), d.get("player")
    words = f"{voice.name(by)} challenged {voice.their(player)} Wild Draw Four: "
    if d.get("verdict") == "illegal":
        words += "it was illegal"
        if d.get("matching"):
            words += f" ({codes_text(d['matching'])} could have been played)"
    else:
        words += "it was legal"
    if then is not None:  # the cards the verdict made someone draw
        drawer = then.get("seat")
        words += f" — {voice.name(drawer)} {voice.verb(drawer, 'draw', 'draws')} {then.get('count')}"
    if isinstance(d.get("hand"), list):  # opened to the challenger (and auditors) only: D13 shows it them
        words += f" — {voice.their(player)} hand: {codes_text(d['hand'])}"
    return words


def _round_words(d: Data, voice: Voice) -> str:
    scores = d.get("scores") or [0, 0]
    winner, loser = d.get("winner"), d.get("loser")
    if d.get("blocked"):
        how = "blocked (nobody can draw)"
        if winner is not None:
            how += f", {voice.name(winner)} held fewer points"
    else:
        how = f"{voice.name(winner)} went out"
    points = d.get("points")
    if loser is not None and points:
        how += f"; {voice.their(loser)} {codes_text(d.get('loser_hand'))} count {points} points"
    elif len(scores) > 2 and winner is not None:
        how += f" and {voice.verb(winner, 'score', 'scores')} {points or 0} points"
    totals = ", ".join(f"{voice.name(s)} {score}" for s, score in enumerate(scores))
    return f"round {d.get('round')} over: {how} — scores: {totals}"
