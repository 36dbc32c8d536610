"""FIDE TRF16 export of a Swiss tournament (the Tournament Report File, FIDE Handbook C.04.A annex).

The layout, 1-based columns of each `001` player line:

    1-3 "001"   5-8 start rank   10 sex   11-13 title   15-47 name   49-52 rating
    54-56 federation   58-68 FIDE id   70-79 birth date   81-84 points   86-89 rank
    then per round r (r = 1, 2, ...) a 10-character block at columns 90+10(r-1) to 99+10(r-1):
    two spaces, the opponent's start rank (4 digits, "0000" for none), a space, the colour
    (w, b, or - for no game), a space, the result.

Results: 1 win, 0 loss, + forfeit win, - forfeit loss (a double forfeit is "-" on both lines),
U the pairing-allocated bye ("0000 - U", scored as a win), Z a round not paired (absent).
Header lines: 012 name, 042 start date, 052 end date, 062 number of players, 092 the type, and
the JaVaFo/bbpPairings extensions XXR (the number of rounds) and XXC white1 (pairing number 1
had white in round 1). UNO Duo has no ratings, sexes, titles, federations or FIDE ids: those
columns stay blank.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from engine.seat_names import BOT_ACCOUNT_LABEL
from server.tournaments.swiss import SwissRound

_NAME_WIDTH = 33
_NOT_PAIRED = "0000 - Z"


def _points(value: int) -> str:
    return f"{value:.1f}"


def _round_blocks(players: Sequence[str], history: Sequence[SwissRound]) -> tuple[dict[str, list[str]], dict[str, int]]:
    """Each player's 8-character round entries ("oooo c r") and total score."""
    start_rank = {pid: rank for rank, pid in enumerate(players, start=1)}
    blocks: dict[str, list[str]] = {pid: [] for pid in players}
    scores = dict.fromkeys(players, 0)
    for round_ in history:
        seen: set[str] = set()
        for game in round_.games:
            for pid, colour, other in ((game.white, "w", game.black), (game.black, "b", game.white)):
                if pid not in blocks:
                    continue
                seen.add(pid)
                won = game.winner == pid
                scores[pid] += int(won)
                result = ("+" if won else "-") if game.forfeit else ("1" if won else "0")
                blocks[pid].append(f"{start_rank.get(other, 0):4d} {colour} {result}")
        if round_.bye is not None and round_.bye in blocks:
            seen.add(round_.bye)
            scores[round_.bye] += 1
            blocks[round_.bye].append("0000 - U")
        for pid in players:
            if pid not in seen:
                blocks[pid].append(_NOT_PAIRED)
    return blocks, scores


def _fitted(name: str) -> str:
    """``name`` cut to the name field; a bot account's label (``[bot]``) stays at its end."""
    label = f" {BOT_ACCOUNT_LABEL}"
    if len(name) > _NAME_WIDTH and name.endswith(label):
        return name[: _NAME_WIDTH - len(label)].rstrip() + label
    return name[:_NAME_WIDTH]


def _player_line(start_rank: int, name: str, points: int, rank: int, rounds: Sequence[str]) -> str:
    name_field = _fitted(name).ljust(_NAME_WIDTH)
    head = f"001 {start_rank:4d} {'':1}{'':3} {name_field} {'':4} {'':3} {'':11} {'':10} {_points(points):>4} {rank:4d}"
    return head + "".join(f"  {entry}" for entry in rounds)


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
    """The TRF16 text of a Swiss tournament: `players` in start-rank order, `names` id -> name.

    Ranks in the 001 lines are by score, then start rank. `absent_next` marks players who will
    not be paired in the next round (a "0000 - Z" entry for it), which is how a pairing program
    reading the file learns of a withdrawal before pairing that round.
    """
    blocks, scores = _round_blocks(players, history)
    for pid in absent_next:
        if pid in blocks:
            blocks[pid].append(_NOT_PAIRED)
    ranking = sorted(range(len(players)), key=lambda i: (-scores[players[i]], i))
    rank_of = {players[i]: rank for rank, i in enumerate(ranking, start=1)}
    lines = [f"012 {name}"]
    if start:
        lines.append(f"042 {start}")
    if end:
        lines.append(f"052 {end}")
    lines.append(f"062 {len(players)}")
    lines.append("092 Individual: Swiss-System (FIDE Dutch)")
    lines.append(f"XXR {rounds_total}")
    lines.append("XXC white1")
    for start_rank, pid in enumerate(players, start=1):
        display = " ".join(names.get(pid, pid).split())  # one line, no tabs
        lines.append(_player_line(start_rank, display, scores[pid], rank_of[pid], blocks[pid]))
    return "\n".join(lines) + "\n"
