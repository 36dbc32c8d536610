"""FIDE TRF16 export of a round robin or a Swiss (the Tournament Report File, FIDE Handbook C.04.A annex).

The layout, 1-based columns of each `001` player line:

    1-3 "001"   5-8 start rank   10 sex   11-13 title   15-47 name   49-52 rating
    54-56 federation   58-68 FIDE id   70-79 birth date   81-84 points   86-89 rank
    then per round r (r = 1, 2, ...) a 10-character block at columns 90+10(r-1) to 99+10(r-1):
    two spaces, the opponent's start rank (4 digits, "0000" for none), a space, the colour
    (w, b, or - for no game), a space, the result.

Results: 1 win, 0 loss, + forfeit win, - forfeit loss (a double forfeit is "-" on both lines),
U a Swiss's pairing-allocated bye ("0000 - U", scored as a win), H a half-point bye ("0000 - H",
½: asked for, or a late entrant's missed round where the director allows it), Z no game and no point ("0000 -
Z": a round not paired, a round robin's free round, a pairing annulled by a withdrawal). A game
still being played (or a duplicate round not revealed yet) is left out: its block is blank, which
TRF16 reads as "0000 - Z", and at the end of a line nothing is written at all; never a loss.
Header lines: 012 name, 042 start date, 052 end date, 062 number of players, 092 the type, and
the JaVaFo/bbpPairings extensions XXR (the number of rounds) and, for a Swiss, XXC white1
(pairing number 1 had white in round 1). UNO Duo has no ratings, sexes, titles, federations or
FIDE ids: those columns stay blank.

Points and rank of a report (:func:`tournament_trf`) are the standings' own (the rows of
``Tournament.standings``: the score that ranks first, and the place), never computed here; a
pairing program's input (:func:`trf_text`) leaves the rank column blank.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from engine.game.seat_names import BOT_ACCOUNT_LABEL
from server.tournaments.model import Format, Tournament
from server.tournaments.standings import StandingRow, row_score
from server.tournaments.swiss import SwissRound

_NAME_WIDTH = 33
_NOT_PAIRED = "0000 - Z"
_BYE = "0000 - U"
_HALF_BYE = "0000 - H"  # a half-point bye: asked for by the player, or a late entrant's missed round
_IN_PLAY = " " * 8  # a game still being played: a blank block (TRF16: the same as "0000 - Z")


def _points(value: float) -> str:
    return f"{value:.1f}"


def _round_blocks(
    players: Sequence[str], history: Sequence[SwissRound]
) -> tuple[dict[str, list[str]], dict[str, float]]:
    """Each player's 8-character round entries ("oooo c r") and total score."""
    start_rank = {pid: rank for rank, pid in enumerate(players, start=1)}
    blocks: dict[str, list[str]] = {pid: [] for pid in players}
    scores: dict[str, float] = dict.fromkeys(players, 0)
    for round_ in history:
        seen: set[str] = set()
        for game in round_.games:
            for pid, colour, other in ((game.white, "w", game.black), (game.black, "b", game.white)):
                if pid not in blocks:
                    continue
                seen.add(pid)
                scores[pid] += int(game.winner == pid)
                blocks[pid].append(_game_entry(start_rank.get(other, 0), colour, game.winner == pid, game.forfeit))
        if round_.bye is not None and round_.bye in blocks:
            seen.add(round_.bye)
            scores[round_.bye] += 1
            blocks[round_.bye].append(_BYE)
        for pid in round_.half_byes:
            if pid in blocks:
                seen.add(pid)
                scores[pid] += 0.5
                blocks[pid].append(_HALF_BYE)
        for pid in players:
            if pid not in seen:
                blocks[pid].append(_NOT_PAIRED)
    return blocks, scores


def _game_entry(opponent: int, colour: str, won: bool, forfeit: bool) -> str:
    result = ("+" if won else "-") if forfeit else ("1" if won else "0")
    return f"{opponent:4d} {colour} {result}"


def _report_blocks(t: Tournament) -> dict[str, list[str]]:
    """Each player's entries for the rounds opened so far, read as the standings read the fold:
    a decided pairing as its result, a pairing annulled by a withdrawal as no game, one not
    decided yet as left out (blank), a bye that counts as "U" in a Swiss and as no point in a
    round robin (where the standings' first column, match wins, does not count it)."""
    start_rank = {pid: rank for rank, pid in enumerate(t.players, start=1)}
    blocks: dict[str, list[str]] = {pid: [] for pid in t.players}
    byes_count = t.format is Format.SWISS
    for scheduled in t.rounds[: t.opened]:
        entries: dict[str, str] = {}
        for slot in t.round_slots(scheduled.number):
            for pid, colour, other in ((slot.white, "w", slot.black), (slot.black, "b", slot.white)):
                r = slot.result
                if t.cancelled(slot):
                    entries[pid] = _NOT_PAIRED
                elif r is None:
                    entries[pid] = _IN_PLAY
                else:
                    entries[pid] = _game_entry(start_rank[other], colour, r.winner == pid, r.forfeit)
        bye = scheduled.bye
        if bye is not None and not t.withdrawn.get(bye, False):
            entries[bye] = _BYE if byes_count else _NOT_PAIRED
        for pid in t.half_byes_in(scheduled.number):
            entries[pid] = _HALF_BYE
        for pid in t.players:
            blocks[pid].append(entries.get(pid, _NOT_PAIRED))
    return blocks


def _fitted(name: str) -> str:
    """``name`` cut to the name field; a bot account's label (``[bot]``) stays at its end."""
    label = f" {BOT_ACCOUNT_LABEL}"
    if len(name) > _NAME_WIDTH and name.endswith(label):
        return name[: _NAME_WIDTH - len(label)].rstrip() + label
    return name[:_NAME_WIDTH]


def _player_line(start_rank: int, name: str, points: float, rank: int | None, rounds: Sequence[str]) -> str:
    name_field = _fitted(name).ljust(_NAME_WIDTH)
    rank_field = "" if rank is None else str(rank)
    head = f"001 {start_rank:4d} {'':1}{'':3} {name_field} {'':4} {'':3} {'':11} {'':10} {_points(points):>4} {rank_field:>4}"
    return (head + "".join(f"  {entry}" for entry in rounds)).rstrip()  # a game in play at the end: nothing


def _file(
    name: str,
    kind: str,
    players: Sequence[str],
    names: Mapping[str, str],
    columns: Mapping[str, tuple[float, int | None, Sequence[str]]],
    rounds_total: int,
    start: str | None,
    end: str | None,
) -> str:
    """The whole file: ``columns`` maps a player to (points, rank or None, round entries)."""
    lines = [f"012 {name}"]
    if start:
        lines.append(f"042 {start}")
    if end:
        lines.append(f"052 {end}")
    lines.append(f"062 {len(players)}")
    lines.append(f"092 {kind}")
    lines.append(f"XXR {rounds_total}")
    if kind == _SWISS:
        lines.append("XXC white1")
    for start_rank, pid in enumerate(players, start=1):
        display = " ".join(names.get(pid, pid).split())  # one line, no tabs
        points, rank, entries = columns[pid]
        lines.append(_player_line(start_rank, display, points, rank, entries))
    return "\n".join(lines) + "\n"


_SWISS = "Individual: Swiss-System (FIDE Dutch)"


def tournament_trf(
    t: Tournament,
    rows: Sequence[StandingRow],
    names: Mapping[str, str],
    start: str | None = None,
    end: str | None = None,
) -> str:
    """The TRF16 report of a round robin or a Swiss: the rounds opened so far as ``t`` (the fold as
    shown: a duplicate round not revealed yet has no result in it) reads them, and each player's
    points and rank from ``rows``, the tournament's standings of that same fold."""
    if t.format is Format.SWISS:
        kind = _SWISS
    else:
        kind = "Individual: Double Round-Robin" if t.double else "Individual: Round-Robin"
    blocks = _report_blocks(t)
    by_player = {row.player: row for row in rows}
    columns = {pid: (row_score(by_player[pid]), by_player[pid].rank, blocks[pid]) for pid in t.players}
    return _file(t.name, kind, t.players, names, columns, t.planned, start, end)


def trf_text(
    name: str,
    players: Sequence[str],
    names: Mapping[str, str],
    history: Sequence[SwissRound],
    rounds_total: int,
    start: str | None = None,
    end: str | None = None,
    *,
    absent_next: Collection[str] = (),
) -> str:
    """A pairing program's TRF16 input of a Swiss: `players` in start-rank order, `names` id -> name,
    the rounds of `history` (points from them; the rank column blank: a report of a tournament is
    :func:`tournament_trf`, ranked by its standings). `absent_next` marks players who will not be
    paired in the next round (a "0000 - Z" entry for it), which is how a pairing program reading
    the file learns of a withdrawal before pairing that round.
    """
    blocks, scores = _round_blocks(players, history)
    for pid in absent_next:
        if pid in blocks:
            blocks[pid].append(_NOT_PAIRED)
    columns = {pid: (scores[pid], None, blocks[pid]) for pid in players}
    return _file(name, _SWISS, players, names, columns, rounds_total, start, end)
