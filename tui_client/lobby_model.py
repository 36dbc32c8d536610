"""The lobby's headless core: what ``GET /api/me`` and the player's tournaments offer, in words.

Entries, in order: the player's own live matches (play), those waiting for a seat to join
(join and play), live matches of the player's tournaments that they are not seated in (watch),
then their finished matches, newest first (look back at the table). No Textual, no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

MAX_FINISHED = 10


@dataclass(frozen=True)
class LobbyEntry:
    kind: str  # play, join, watch, done
    match: str
    seat: int | None  # the player's seat; None to watch
    names: tuple[str, str]
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


def seat_names(summary: Mapping[str, Any]) -> tuple[str, str]:
    seats = [*list(summary.get("seats") or [])[:2], None, None]
    out = [str(p.get("name") or p.get("id")) if isinstance(p, Mapping) else "(empty seat)" for p in seats[:2]]
    return out[0], out[1]


def _where(summary: Mapping[str, Any], tournament_names: Mapping[str, str]) -> str:
    tournament = summary.get("tournament")
    if not tournament:
        return "casual"
    name = tournament_names.get(str(tournament), str(tournament))
    return f"{name} round {summary.get('round')}"


def _scores(summary: Mapping[str, Any]) -> str:
    scores = summary.get("scores") or [0, 0]
    return f"{scores[0]}–{scores[1]}"


def _entry(summary: Mapping[str, Any], player_id: str, tournament_names: Mapping[str, str]) -> LobbyEntry | None:
    match = summary.get("id")
    if not isinstance(match, str):
        return None
    seat = seat_of(summary, player_id)
    names = seat_names(summary)
    status = summary.get("status")
    where = _where(summary, tournament_names)
    if seat is None:
        if status != "live":
            return None
        return LobbyEntry(
            "watch", match, None, names, f"watch  {names[0]} vs {names[1]} · {where} · {_scores(summary)}"
        )
    other = names[1 - seat]
    if status == "live":
        return LobbyEntry("play", match, seat, names, f"play   vs {other} · {where} · {_scores(summary)} · live")
    if status == "waiting":
        return LobbyEntry("join", match, seat, names, f"join   vs {other} · {where} · waiting for a seat to join")
    if status == "finished":
        winner = summary.get("winner")
        result = "you won" if winner == player_id else "you lost" if winner else "no winner"
        return LobbyEntry("done", match, seat, names, f"done   vs {other} · {where} · {result} {_scores(summary)}")
    return None  # annulled


def lobby_entries(
    me: Mapping[str, Any],
    tournaments: Iterable[Mapping[str, Any]] = (),
    tournament_names: Mapping[str, str] | None = None,
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
    entries = [_entry(m, player_id, names) for m in [*mine, *watch]]
    order = {"play": 0, "join": 1, "watch": 2, "done": 3}
    present = [e for e in entries if e is not None]
    finished = [e for e in present if e.kind == "done"][::-1][:MAX_FINISHED]
    current = sorted((e for e in present if e.kind != "done"), key=lambda e: order[e.kind])
    return current + finished


def is_member(tournament: Mapping[str, Any], player_id: str) -> bool:
    return any(isinstance(p, Mapping) and p.get("id") == player_id for p in tournament.get("players") or [])


def next_lines(me: Mapping[str, Any], tournaments: Sequence[Mapping[str, Any]] = ()) -> list[str]:
    """The player's next pairing in each running tournament (``next``), in words."""
    names: dict[str, str] = {}
    titles: dict[str, str] = {}
    for t in tournaments:
        titles[str(t.get("id"))] = str(t.get("name") or t.get("id"))
        for p in t.get("players") or []:
            if isinstance(p, Mapping):
                names[str(p.get("id"))] = str(p.get("name") or p.get("id"))
    lines = []
    for n in me.get("next") or []:
        if not isinstance(n, Mapping):
            continue
        tournament = str(n.get("tournament"))
        opponent = names.get(str(n.get("opponent")), str(n.get("opponent")))
        colour = "white: you draft first" if n.get("white") else "black: they draft first"
        lines.append(f"{titles.get(tournament, tournament)} round {n.get('round')}: vs {opponent} ({colour})")
    return lines
