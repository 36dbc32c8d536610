"""The lobby's headless core: what ``GET /api/me`` (or the lobby socket's ``state``), the
player's tournaments, the open tournaments and the player's disputes offer, in words.

Entries, in order: the player's own live matches (play), those waiting for a seat to join
(join and play), live matches of the player's tournaments that they are not seated in (watch),
then their finished matches, newest first (look back at the table). Each line of the lobby has
an id that names what it is about (``join:m_…``, ``open:t_…``), never its row, so the cursor
stays on the same thing when the list is drawn again. No Textual, no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from engine.game.seat_names import player_label
from tui_client.models.tournament_model import TournamentLine, node_name, tournament_lines

MAX_FINISHED = 10


@dataclass(frozen=True)
class LobbyEntry:
    kind: str  # play, join, watch, done
    match: str
    seat: int | None  # the player's seat; None to watch
    names: tuple[str, ...]  # one per seat
    text: str

    @property
    def option_id(self) -> str:
        return f"{self.kind}:{self.match}"


def seat_of(summary: Mapping[str, Any], player_id: str) -> int | None:
    """The seat ``player_id`` holds in a match summary, or None."""
    for seat, player in enumerate(summary.get("seats") or []):
        if isinstance(player, Mapping) and player.get("id") == player_id:
            return seat
    return None


def seat_names(summary: Mapping[str, Any]) -> tuple[str, ...]:
    """One name per seat of a match summary (at least two; an empty seat says so)."""
    seats = list(summary.get("seats") or [])
    seats += [None] * (2 - len(seats))
    return tuple(
        player_label(str(p.get("name") or p.get("id")), p.get("kind")) if isinstance(p, Mapping) else "(empty seat)"
        for p in seats
    )  # a bot account's name with "[bot]"


SHOWN_OPPONENTS = 3  # a table's line names this many of the other seats, then "+N"


def listed(names: Sequence[str]) -> str:
    """``bob, cyd, dan +6``: the first :data:`SHOWN_OPPONENTS` names, then how many more."""
    if len(names) <= SHOWN_OPPONENTS:
        return ", ".join(names)
    return ", ".join(names[:SHOWN_OPPONENTS]) + f" +{len(names) - SHOWN_OPPONENTS}"


def others_words(names: Sequence[str], seat: int) -> str:
    """Who the player at ``seat`` plays, clockwise from their left: ``bob``, ``bob, cyd, dan +6``."""
    return listed([names[(seat + i) % len(names)] for i in range(1, len(names))])


def table_words(names: Sequence[str]) -> str:
    """A match to watch: ``ann vs bob``, or ``a table of 10: ann, bob, cyd +7``."""
    if len(names) == 2:
        return f"{names[0]} vs {names[1]}"
    return f"a table of {len(names)}: {listed(names)}"


def match_where(summary: Mapping[str, Any], tournament_names: Mapping[str, str]) -> str:
    tournament = summary.get("tournament")
    if not tournament:
        return "casual"
    name = tournament_names.get(str(tournament), str(tournament))
    node = node_name(summary.get("node"))  # a knockout's match: its node in the bracket (W2-1, pool A)
    return f"{name} round {summary.get('round')}" + (f" · {node}" if node else "")


def _scores(summary: Mapping[str, Any]) -> str:
    """Both totals, the winner's first once there is one (``31–229``), else seat 0's first."""
    scores = list(summary.get("scores") or [0, 0])
    winner = summary.get("winner")
    seats = summary.get("seats") or []
    won = next((i for i, p in enumerate(seats) if isinstance(p, Mapping) and p.get("id") == winner), None)
    if won is not None and won < len(scores):
        scores = [scores[won], *(x for i, x in enumerate(scores) if i != won)]
    return "–".join(str(x) for x in scores)


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


FORFEIT_WORDS = {  # why a seat forfeited (MatchEnding.forfeits' reason), said of that seat
    "timeouts": "ran out of time",
    "join_deadline": "did not join in time",
    "withdrawal": "withdrew",
    "ruling": "forfeited by a ruling",
}
ANNULLED_WORDS = {  # why a match was annulled (MatchEnding.reason)
    "ruling": "annulled by a ruling",
    "no_show": "annulled: neither seat joined in time",
    "withdrawal": "annulled: a withdrawal",
    "expired": "annulled: the invitation was not taken up",
}


def _ended(summary: Mapping[str, Any]) -> Mapping[str, Any]:
    """How the match ended, as the summary says (``ended``; {} from a server that does not)."""
    ended = summary.get("ended")
    return ended if isinstance(ended, Mapping) else {}


def _why(reason: object, you: bool) -> str:
    words = FORFEIT_WORDS.get(str(reason), "forfeited")
    if you:
        return {"ran out of time": "you ran out of time", "did not join in time": "you did not join in time"}.get(
            words, f"you {words.replace('forfeited by', 'lost by')}"
        )
    return words


def _result(summary: Mapping[str, Any], seat: int, names: Sequence[str]) -> str:
    """How a finished match of the player at ``seat`` ended: who won (by their seat in the summary,
    never guessed from who the player is not), how (``you won by forfeit: bob withdrew``, ``bob won:
    you forfeited (you ran out of time)``, at the round limit), and at a table of 3+ the player's place."""
    winner = summary.get("winner")
    seats = summary.get("seats") or []
    won = next((i for i, p in enumerate(seats) if isinstance(p, Mapping) and p.get("id") == winner), None)
    ended = _ended(summary)
    forfeits = [f for f in ended.get("forfeits") or [] if isinstance(f, Mapping)]
    mine = next((f for f in forfeits if f.get("seat") == seat), None)
    if ended.get("how") == "forfeit" and won is not None:
        if won == seat:
            other = next((f for f in forfeits if f.get("seat") != seat), None)
            loser = names[int(other["seat"])] if other is not None and int(other["seat"]) < len(names) else "they"
            why = f": {loser} {_why(other.get('reason'), False)}" if other is not None else ""
            return f"you won by forfeit{why}"
        why = f" ({_why(mine.get('reason'), True)})" if mine is not None else ""
        return f"{names[won]} won: you forfeited{why}"
    if won is None:
        who = "no winner"
    else:
        who = "you won" if won == seat else f"{names[won]} won"
    places = summary.get("places")
    if won != seat and isinstance(places, list) and len(places) > 2 and seat < len(places):
        who += f", you came {_ordinal(int(places[seat]))} of {len(places)}"
    out = f"{who} {_scores(summary)}"
    if mine is not None:
        out += f" (you forfeited: {_why(mine.get('reason'), True)})"
    if ended.get("how") == "round_limit":
        rounds = ended.get("rounds")
        out += f" at the round limit ({rounds} round{'' if rounds == 1 else 's'})"
    elif ended.get("how") == "time_called":
        out += " when time was called"
    return out


def round_clock_words(summary: Mapping[str, Any], now: datetime | None = None) -> str:
    """A timed tournament round's clock on a match's line (RULES.md D26): ``time called``, or
    ``12:34 left in the round``; "" for a match of an untimed round."""
    if summary.get("time_called"):
        return "time called: decided on totals"
    left = seconds_until(parse_time(summary.get("round_deadline")), now)
    if left is None:
        return ""
    return f"{clock_words(left)} left in the round" if left > 0 else "round time up"


def _entry(
    summary: Mapping[str, Any], player_id: str, tournament_names: Mapping[str, str], now: datetime | None = None
) -> LobbyEntry | None:
    match = summary.get("id")
    if not isinstance(match, str):
        return None
    seat = seat_of(summary, player_id)
    names = seat_names(summary)
    status = summary.get("status")
    where = match_where(summary, tournament_names)
    if seat is None:
        if status != "live":
            return None
        return LobbyEntry("watch", match, None, names, f"watch  {table_words(names)} · {where} · {_scores(summary)}")
    other = others_words(names, seat)
    if status == "live":
        clock = round_clock_words(summary, now)
        live = f"live · {clock}" if clock else "live"
        return LobbyEntry("play", match, seat, names, f"play   vs {other} · {where} · {_scores(summary)} · {live}")
    if status == "waiting":
        return LobbyEntry("join", match, seat, names, f"join   vs {other} · {where} · waiting for a seat to join")
    if status == "finished":
        return LobbyEntry("done", match, seat, names, f"done   vs {other} · {where} · {_result(summary, seat, names)}")
    if status == "annulled":
        replaced = summary.get("replaced_by")
        again = f": replayed as {replaced}" if replaced else ""
        why = ANNULLED_WORDS.get(str(_ended(summary).get("reason")), "annulled by a ruling")
        return LobbyEntry("void", match, seat, names, f"void   vs {other} · {where} · {why}{again}")
    return None


def lobby_entries(
    me: Mapping[str, Any],
    tournaments: Iterable[Mapping[str, Any]] = (),
    tournament_names: Mapping[str, str] | None = None,
    now: datetime | None = None,
) -> list[LobbyEntry]:
    """The lobby's list for ``me`` (``GET /api/me``) and the details of the player's tournaments."""
    player_id = str(me.get("id"))
    names = dict(tournament_names or {})
    mine = [m for m in me.get("matches") or [] if isinstance(m, Mapping)]
    seen = {m.get("id") for m in mine}
    watch: list[Mapping[str, Any]] = []
    for t in tournaments:
        for rnd in t.get("rounds") or []:
            for m in rnd.get("matches") or []:
                if isinstance(m, Mapping) and m.get("status") == "live" and m.get("id") not in seen:
                    seen.add(m.get("id"))
                    watch.append(m)
    entries = [_entry(m, player_id, names, now) for m in [*mine, *watch]]
    order = {"play": 0, "join": 1, "watch": 2}
    present = [e for e in entries if e is not None]
    finished = [e for e in present if e.kind in ("done", "void")][::-1][:MAX_FINISHED]
    current = sorted((e for e in present if e.kind in order), key=lambda e: order[e.kind])
    return current + finished


def is_member(tournament: Mapping[str, Any], player_id: str) -> bool:
    return any(isinstance(p, Mapping) and p.get("id") == player_id for p in tournament.get("players") or [])


def start_words(value: object, now: datetime | None = None) -> str:
    """A round's start time if it is still to come, in the local zone: ``starts 19:30`` today,
    ``starts Tue 8 Dec 19:30`` another day; "" for none or a time past."""
    at = parse_time(value)
    now = now or datetime.now(UTC)
    if at is None or at <= now:
        return ""
    local = at.astimezone()
    if local.date() == now.astimezone().date():
        return f"starts {local:%H:%M}"
    if local.year != now.astimezone().year:  # another year: said, or a date years ahead reads as this one's
        return f"starts {local:%a} {local.day} {local:%b} {local.year} {local:%H:%M}"
    return f"starts {local:%a} {local.day} {local:%b %H:%M}"


def next_lines(
    me: Mapping[str, Any], tournaments: Sequence[Mapping[str, Any]] = (), now: datetime | None = None
) -> list[str]:
    """The player's next pairing in each running tournament (``next``), in words: two seats
    ``Cup round 2: vs bob (white: you draft first)``, a table ``Cup round 2 at a table of 4
    with bob, cyd, dan``; either with ``· starts 19:30`` while its round's start is to come."""
    names: dict[str, str] = {}
    titles: dict[str, str] = {}
    for t in tournaments:
        titles[str(t.get("id"))] = str(t.get("name") or t.get("id"))
        for p in t.get("players") or []:
            if isinstance(p, Mapping):
                names[str(p.get("id"))] = player_label(str(p.get("name") or p.get("id")), p.get("kind"))
    lines = []
    for n in me.get("next") or []:
        if not isinstance(n, Mapping):
            continue
        tournament = str(n.get("tournament"))
        label = n.get("label")
        title = titles.get(tournament, tournament)
        title += f" · {label}" if isinstance(label, str) and label else f" round {n.get('round')}"
        others = [str(o) for o in n.get("opponents") or []]
        if len(others) > 1:  # a table: every other seat
            who = [names.get(o, o) for o in others]
            said = str(n.get("opponent_name") or "")
            if any(o not in names for o in others) and said.count(", ") == len(others) - 1:
                who = said.split(", ")  # the tournament is not loaded: the server's names
            size = "" if label else f" at a table of {len(others) + 1}"  # a knockout's label says the table
            line = f"{title}{size}{',' if label else ''} with {listed(who)}"
        else:
            opponent = names.get(str(n.get("opponent")), str(n.get("opponent_name") or n.get("opponent")))
            colour = "white: you draft first" if n.get("white") else "black: they draft first"
            line = f"{title}{'' if label else ':'} vs {opponent} ({colour})"
        starts = start_words(n.get("starts_at"), now)
        lines.append(f"{line} · {starts}" if starts else line)
    return lines


# ---------------------------------------------------------------- pairings and their join deadline


@dataclass(frozen=True)
class Pairing:
    """A round opened a match for the player (the lobby socket's ``pairing`` message)."""

    tournament: str
    round: int
    match: str
    deadline: datetime | None  # the join deadline (the server's clock)
    name: str = ""  # the tournament's name, when the message says it
    opponent: str = ""  # the opponent's name, when the message says it
    seats: int = 2  # the match's seats (a table: 3-10), when the message says it
    label: str = ""  # a knockout's name for it ("winners' round 2"), said instead of "round N"


def parse_time(value: object) -> datetime | None:
    """An ISO-8601 time from the server (``…Z`` or with an offset), or None."""
    if not isinstance(value, str):
        return None
    try:
        at = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


def pairing_of(message: Mapping[str, Any]) -> Pairing | None:
    """The pairing a ``{"type": "pairing", …}`` message announces, or None if it is not one."""
    match, tournament, rnd = message.get("match"), message.get("tournament"), message.get("round")
    if not isinstance(match, str) or not isinstance(tournament, str) or not isinstance(rnd, int):
        return None
    opponent = message.get("opponent")
    if isinstance(opponent, Mapping):
        opponent = player_label(str(opponent.get("name") or opponent.get("id")), opponent.get("kind"))
    name = message.get("name")
    return Pairing(
        tournament,
        rnd,
        match,
        parse_time(message.get("join_deadline")),
        str(name) if isinstance(name, str) else "",
        str(opponent) if isinstance(opponent, str) else "",
        seats if isinstance(seats := message.get("seats"), int) and seats >= 2 else 2,
        label if isinstance(label := message.get("label"), str) else "",
    )


def clock_words(seconds: float) -> str:
    """``4:32`` (minutes and seconds, rounded up so 0:00 means the deadline has passed)."""
    whole = max(0, int(seconds + 0.999))
    return f"{whole // 60}:{whole % 60:02d}"


def seconds_until(deadline: datetime | None, now: datetime | None = None) -> float | None:
    if deadline is None:
        return None
    return (deadline - (now or datetime.now(UTC))).total_seconds()


def pairing_words(
    pairing: Pairing, opponent: str | None, tournament_name: str, state: str, now: datetime | None = None
) -> str:
    """``Cup round 2 vs bob — join within 4:32 · taking your seat…`` (``state``: what the
    client is doing about it, or "" when it waits for the player); a table's ``Cup round 2 at a
    table of 4 with bob, cyd, dan — join within 4:32``."""
    if pairing.seats > 2:
        size = "," if pairing.label else f" at a table of {pairing.seats}"
        vs = (size + (f" with {opponent}" if opponent else "")).rstrip(",")
    else:
        vs = f" vs {opponent}" if opponent else ""
    where = f" · {pairing.label}" if pairing.label else f" round {pairing.round}"
    out = f"{tournament_name}{where}{vs}"
    left = seconds_until(pairing.deadline, now)
    if state != "joined":
        if left is None:
            out += " — join now"
        elif left > 0:
            out += f" — join within {clock_words(left)}"
        else:
            out += " — the join deadline has passed"
    if state == "joined":
        out += " — you have taken your seat"
    elif state:
        out += f" · {state}"
    return out


def waiting_lines(
    me: Mapping[str, Any], tournaments: Sequence[Mapping[str, Any]] = (), now: datetime | None = None
) -> list[str]:
    """``waiting for Cup round 3: vs bea (white: you draft first) · starts 19:30`` per running tournament."""
    return [f"waiting for {line}" for line in next_lines(me, tournaments, now)]


def state_tournaments(state: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The lobby state's tournament names and live matches to watch, in the shape :func:`lobby_entries`
    and :func:`next_lines` read (``id``, ``name``, ``rounds`` → ``matches``)."""
    names = state.get("names") or {}
    out: list[dict[str, Any]] = [{"id": tid, "name": name, "rounds": []} for tid, name in names.items()]
    out.append({"id": "", "name": "", "rounds": [{"matches": list(state.get("watch") or [])}]})
    return out


def bye_lines(state: Mapping[str, Any], now: datetime | None = None) -> list[str]:
    """``Swiss round 3: you have the bye (a win without play)`` and ``Swiss round 2: paired when it
    opens · starts 19:30`` from the lobby state, soonest first."""
    names = state.get("names") or {}
    items: list[tuple[str, str]] = []
    for b in state.get("byes") or []:
        if isinstance(b, Mapping):
            title = f"{names.get(b.get('tournament'), b.get('tournament'))} round {b.get('round')}"
            starts = "" if b.get("opened") else start_words(b.get("starts_at"), now)
            text = f"{title}: you have the bye (a win without play)" + (f" · {starts}" if starts else "")
            items.append((str(b.get("starts_at") or "~"), text))
    for c in state.get("coming") or []:
        if isinstance(c, Mapping):
            label = c.get("label")
            where = f" · {label}" if isinstance(label, str) and label else f" round {c.get('round')}"
            title = f"{names.get(c.get('tournament'), c.get('tournament'))}{where}"
            starts = start_words(c.get("starts_at"), now)
            text = f"{title}: paired when it opens" + (f" · {starts}" if starts else "")
            items.append((str(c.get("starts_at") or "~"), text))
    return [text for _at, text in sorted(items)]


# ---------------------------------------------------------------- open tournaments


@dataclass(frozen=True)
class OpenLine:
    """A tournament players may enter themselves until it starts."""

    tournament: str
    name: str
    entered: bool
    players: int
    text: str
    check_in: bool = False  # the player may check in now (k)

    @property
    def option_id(self) -> str:
        return f"open:{self.tournament}"


def open_lines(
    listed: Sequence[Mapping[str, Any]],
    details: Mapping[str, Mapping[str, Any]],
    player_id: str,
    now: datetime | None = None,
) -> list[OpenLine]:
    """The open tournaments not started yet (``open: true``, ``status: created``), whether the
    player is in each (from its details' ``players``), with the key that enters or leaves, and
    with check-in, its window, how many confirmed and the key that checks in (k)."""
    out = []
    for t in listed:
        if not isinstance(t, Mapping) or not t.get("open") or not t.get("id"):
            continue
        late = t.get("late_entry_until")  # a running Swiss still taking late entries
        if not (t.get("status") == "created" or (t.get("status") == "running" and late)):
            continue
        tid = str(t["id"])
        detail = details.get(tid) or {}
        entered = bool(t.get("entered")) if t.get("entered") is not None else is_member(detail, player_id)
        count = int(t.get("entries") or t.get("players") or 0)
        name = str(t.get("name") or tid)
        if entered and late:
            text = f"open   {name} · {count} entered · you are in"
        elif entered:
            text = f"open   {name} · {count} entered · you are in (e: leave)"
        else:
            text = f"open   {name} · {count} entered · e: enter"
        if late:
            text += f" · late entry until round {late}"
        words, offered = check_in_words(t, entered, now)
        out.append(OpenLine(tid, name, entered, count, text + words, offered))
    return out


def check_in_words(t: Mapping[str, Any], entered: bool, now: datetime | None = None) -> tuple[str, bool]:
    """What the open line adds for check-in, and whether to offer it: before the window when it
    opens; in it how many confirmed and, for an entrant who has not, ``k: check in``."""
    opens = parse_time(t.get("check_in_opens"))
    if opens is None:
        return "", False
    moment = now or datetime.now(UTC)
    if moment < opens:
        return f" · check-in {start_words(t.get('check_in_opens'), now)}", False
    confirmed = f" · {int(t.get('checked_in') or 0)} checked in"
    if entered and t.get("you_checked_in"):
        return confirmed + ", you too", False
    if entered:
        return confirmed + " · k: check in", True
    return confirmed, False


# ---------------------------------------------------------------- disputes and rulings


@dataclass(frozen=True)
class DisputeLine:
    dispute: str
    match: str
    text: str


DECISIONS = {"stands": "the result stands", "replay": "the match is replayed", "award": "the match is awarded"}


def dispute_where(dispute: Mapping[str, Any], names: Mapping[str, str]) -> str:
    """Where a dispute's match was played, by the tournament's name (``Swiss night round 1 board
    1``, from its ``slot`` ``1.1``) when ``names`` knows it, else the match's id."""
    name = names.get(str(dispute.get("tournament")))
    round_, _, board = str(dispute.get("slot") or "").partition(".")
    if name is None or not round_.isdigit():
        return str(dispute.get("match"))
    return f"{name} round {round_}" + (f" board {board}" if board.isdigit() else "")


def dispute_lines(
    disputes: Sequence[Mapping[str, Any]], player_id: str, limit: int = 6, names: Mapping[str, str] | None = None
) -> list[DisputeLine]:
    """The player's disputes, newest first: what was disputed, where (``names``: tournament id →
    name), by whom, and the ruling in words."""
    out = []
    for d in list(disputes)[::-1][:limit]:
        if not isinstance(d, Mapping) or not d.get("id"):
            continue
        who = "you" if d.get("player") == player_id else "your opponent"
        head = f"#{d.get('seq')} in {dispute_where(d, names or {})} ({who})"
        note = str(d.get("note") or "")
        if d.get("status") == "ruled" or d.get("decision"):
            decision = DECISIONS.get(str(d.get("decision")), str(d.get("decision")))
            replaced = d.get("replaced_by")
            if replaced:
                decision += f" as {replaced}"
            ruling = d.get("ruling_note")
            said = f': "{ruling}"' if ruling else ""
            text = f"{head}: ruled — {decision}{said}"
        else:
            text = f'{head}: open, waiting for the director · "{note}"'
        out.append(DisputeLine(str(d["id"]), str(d.get("match")), text))
    return out


def with_ruling(disputes: list[dict[str, Any]], ruling: Mapping[str, Any]) -> list[dict[str, Any]]:
    """``disputes`` with a ``ruling`` message (``dispute``, ``match``, ``decision``, ``note``) applied;
    a dispute not listed yet is added (its seq unknown until the list is read again)."""
    dispute = ruling.get("dispute")
    out = []
    found = False
    for d in disputes:
        if d.get("id") == dispute:
            found = True
            d = {**d, "status": "ruled", "decision": ruling.get("decision"), "ruling_note": ruling.get("note")}
            if ruling.get("replaced_by"):
                d["replaced_by"] = ruling.get("replaced_by")
        out.append(d)
    if not found and isinstance(dispute, str):
        out.append(
            {
                "id": dispute,
                "match": ruling.get("match"),
                "seq": "?",
                "status": "ruled",
                "decision": ruling.get("decision"),
                "ruling_note": ruling.get("note"),
                "replaced_by": ruling.get("replaced_by"),
            }
        )
    return out


def keep_cursor(before: str | None, ids: Sequence[str | None], index: int | None) -> int | None:
    """Where the cursor goes in a list drawn again: on the same id if it is still there, else
    at the same row (clamped), else None for an empty list. Disabled rows have id None and
    are skipped."""
    if not ids:
        return None
    if before is not None and before in ids:
        return ids.index(before)
    enabled = [i for i, x in enumerate(ids) if x is not None]
    if not enabled:
        return None
    want = index or 0
    return min(enabled, key=lambda i: (abs(i - want), i))


def cursor_key(option_id: str) -> str:
    """What a lobby line is about, for keeping the cursor on it: ``match:m_…`` for a match's line
    whatever it offers (join, then play, then done), ``tournament:t_…`` for a tournament's."""
    kind, _, thing = option_id.partition(":")
    if kind in ("open", "tournament"):
        return f"tournament:{thing}"
    return f"match:{thing}"


def join_text(entry: LobbyEntry, deadline: datetime | None, now: datetime | None = None) -> str:
    """A join line with the join deadline counting down, when the lobby knows it."""
    left = seconds_until(deadline, now)
    if entry.kind != "join" or left is None:
        return entry.text
    head = entry.text.removesuffix(" · waiting for a seat to join")
    if left <= 0:
        return f"{head} · the join deadline has passed"
    return f"{head} · join within {clock_words(left)}"


# ---------------------------------------------------------------- every line, in one place


@dataclass(frozen=True)
class LobbyLines:
    """Every line the lobby draws from what it knows (the lobby state, or what it fetched), less
    the pairings the socket announced a moment ago (their join deadline counts down on screen)."""

    entries: list[LobbyEntry]
    next: list[str]  # the next box: pairings waiting, then byes and rounds not paired yet
    open: list[OpenLine]
    tournaments: list[TournamentLine]
    disputes: list[DisputeLine]

    def words(self) -> dict[str, list[str]]:
        """Each part's lines in words, as drawn (a test compares them with the HTTP API's)."""
        return {
            "entries": [e.text for e in self.entries],
            "next": list(self.next),
            "open": [o.text for o in self.open],
            "tournaments": [t.text for t in self.tournaments],
            "disputes": [d.text for d in self.disputes],
        }


def lobby_lines(
    me: Mapping[str, Any],
    tournaments: Sequence[Mapping[str, Any]],
    listed: Sequence[Mapping[str, Any]],
    disputes: Sequence[Mapping[str, Any]],
    *,
    open_details: Mapping[str, Mapping[str, Any]] | None = None,
    byes: Sequence[str] = (),
    mine: Iterable[str] = (),
    now: datetime | None = None,
    shown: int = 20,
) -> LobbyLines:
    """The lobby's lines for ``me`` (``GET /api/me``): its matches and the live matches of
    ``tournaments`` (details: ``id``, ``name``, ``rounds`` → ``matches``, ``players``), the next
    box (``byes``: :func:`bye_lines`), the first ``shown`` of ``listed`` (``GET /api/tournaments``)
    as open tournaments to enter or tournament lines (``mine``: those the player plays in), and
    the player's ``disputes``."""
    player_id = str(me.get("id"))
    names = {str(t.get("id")): str(t.get("name") or t.get("id")) for t in tournaments}
    titles = {**{str(t.get("id")): str(t.get("name") or t.get("id")) for t in listed}, **names}
    opens = open_lines(listed[:shown], open_details or {}, player_id, now)
    opened = {line.tournament for line in opens}
    return LobbyLines(
        entries=lobby_entries(me, tournaments, names, now),
        next=[*waiting_lines(me, tournaments, now), *byes],
        open=opens,
        tournaments=[t for t in tournament_lines(listed[:shown], mine) if t.tournament not in opened],
        disputes=dispute_lines(disputes, player_id, names=titles),
    )


def state_lines(state: Mapping[str, Any], now: datetime | None = None) -> LobbyLines:
    """Every line the lobby draws from the lobby socket's ``lobby`` state."""
    listed = [t for t in state.get("tournaments") or [] if isinstance(t, Mapping)]
    return lobby_lines(
        state.get("me") or {},
        state_tournaments(state),
        listed,
        [d for d in state.get("disputes") or [] if isinstance(d, Mapping)],
        byes=bye_lines(state, now),
        mine=[str(t.get("id")) for t in listed if t.get("entered")],
        now=now,
    )
