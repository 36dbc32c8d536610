"""A knockout's bracket, headless (docs/TUI.md "The bracket"): ``GET /api/tournaments/{id}``'s
``bracket`` (its nodes: seats, sources, status, winner) and ``places`` drawn as text, for the
terminal client's bracket pane and for ``unoduo tournament show``. No Textual, no I/O.

- :func:`draw`: the bracket as a picture: a section per bracket (winners', losers', the grand
  final; tables; pools, then their bracket), a column per round, each match a box with its id,
  status and seats; a box sits between the two it is fed by, joined to them by lines. The
  player's own matches and where they go next are marked (their path), as are results. The
  picture is plain lines plus style spans with meaning (``mine``, ``winner``…): the widget
  chooses the colours.
- :func:`round_lines`: the same bracket as text rounds (``Winners' round 2`` then ``W2-1
  alice 1 – 0 bob``, ``W3-1 alice v (winner of W2-2)``), for the CLI.
- :func:`places_lines`: the final places, ties shared (``3rd= bob, dan``).

A node's sources come as words (``winner of W1-2``, ``2nd of table T1-3``, ``1st of pool B``,
``seed 3``); the feeder a source names is read back from them (:func:`feeder_of`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from engine.game.bracket_words import SECTION_WORDS, NodeFacts, RoundNames
from engine.game.score_words import ordinal
from engine.game.seat_names import player_label
from tui_client.models.tournament_model import cut_name, is_knockout

__all__ = [
    "BracketNode",
    "Drawing",
    "Span",
    "draw",
    "feeder_of",
    "is_knockout",
    "nodes_of",
    "path_of",
    "places_lines",
    "round_lines",
]

BOX_WIDTH: Final = 22  # a match's box: 15 characters of name
GAP: Final = 3  # between two rounds' boxes: room for the lines that join them
STATUS_WORDS: Final = {"live": "live", "ready": "to play", "walkover": "bye", "void": "void"}
SOURCE = re.compile(r"^(?:(winner|loser)|(\d+)(?:st|nd|rd|th)) of (?:table )?(\S+)$")
SECTION_ORDER: Final = ("pool", "winners", "losers", "final", "table")


def feeder_of(source: str) -> tuple[str, int] | None:
    """The node and place a source's words name: ``winner of W1-2`` → ("W1-2", 1), ``loser of
    W1-2`` → ("W1-2", 2), ``2nd of table T1-3`` → ("T1-3", 2); None for a seed or a pool place."""
    found = SOURCE.match(source.strip())
    if found is None or " of pool " in source:
        return None
    word, number, node = found.groups()
    place = 1 if word == "winner" else 2 if word == "loser" else int(number)
    return node, place


@dataclass(frozen=True)
class BracketNode:
    """One match of the bracket, as the API sends it, with each seat's place once decided."""

    id: str
    round: int
    bracket: str
    seats: tuple[str | None, ...]
    sources: tuple[str, ...]
    status: str
    match: str | None
    winner: str | None
    places: tuple[int | None, ...]  # per seat: its place at this node (decided only)
    forfeit: str = ""  # decided by a forfeit: its reason in words ("join deadline"); "" when played

    @property
    def decided(self) -> bool:
        return self.status in ("decided", "walkover")

    def place_of(self, player: str) -> int | None:
        return self.places[self.seats.index(player)] if player in self.seats else None


def forfeit_of(pairing: Mapping[str, Any] | None) -> str:
    """A pairing decided by a forfeit: its reason in words (``join deadline``); "" otherwise."""
    result = pairing.get("result") if pairing is not None else None
    if not isinstance(result, Mapping) or not result.get("forfeit"):
        return ""
    return str(result.get("reason") or "forfeit").replace("_", " ")


def _places(
    node: Mapping[str, Any], seats: tuple[str | None, ...], pairing: Mapping[str, Any] | None
) -> tuple[int | None, ...]:
    """Each seat's place at a decided node: a table's from its match's result, two seats' by the winner."""
    winner = node.get("winner")
    if node.get("status") not in ("decided", "walkover") or winner is None:
        return tuple(None for _ in seats)
    result = pairing.get("result") if pairing is not None else None
    if isinstance(result, Mapping) and isinstance(result.get("places"), list):
        order = [str(p.get("id")) for p in pairing.get("seats") or [] if isinstance(p, Mapping)] if pairing else []
        by_player = dict(zip(order, result["places"], strict=False))
        if all(s is None or s in by_player for s in seats):
            return tuple(by_player.get(s) if s is not None else None for s in seats)
    return tuple((1 if s == winner else 2) if s is not None else None for s in seats)


def nodes_of(tournament: Mapping[str, Any]) -> list[BracketNode]:
    """The bracket's nodes in plan order, each seat's place filled in from its match's result."""
    every = [
        p
        for r in tournament.get("rounds") or []
        if isinstance(r, Mapping)
        for p in r.get("pairings") or []
        if isinstance(p, Mapping)
    ]
    pairings = {str(p["match"]): p for p in every if p.get("match")}
    by_node = {str(p["node"]): p for p in every if p.get("node")}  # a forfeit without a match
    out = []
    for node in tournament.get("bracket") or []:
        if not isinstance(node, Mapping) or not node.get("id"):
            continue
        seats = tuple(str(s) if s else None for s in node.get("seats") or [])
        match = str(node["match"]) if node.get("match") else None
        played = (pairings.get(match) if match else None) or by_node.get(str(node["id"]))  # its pairing
        out.append(
            BracketNode(
                id=str(node["id"]),
                round=int(node.get("round") or 0),
                bracket=str(node.get("bracket") or "winners"),
                seats=seats,
                sources=tuple(str(s) for s in node.get("sources") or []),
                status=str(node.get("status") or "waiting"),
                match=match,
                winner=str(node["winner"]) if node.get("winner") else None,
                places=_places(node, seats, played),
                forfeit=forfeit_of(played),
            )
        )
    return out


def round_names(tournament: Mapping[str, Any], nodes: Sequence[BracketNode]) -> RoundNames:
    advance = tournament.get("advance")
    return RoundNames((NodeFacts(n.id, n.round, n.bracket) for n in nodes), advance if isinstance(advance, int) else 1)


def names_of(tournament: Mapping[str, Any]) -> dict[str, str]:
    return {
        str(p.get("id")): player_label(str(p.get("name") or p.get("id")), p.get("kind"))
        for p in tournament.get("players") or []
        if isinstance(p, Mapping)
    }


# ---------------------------------------------------------------- the player's path


@dataclass(frozen=True)
class Path:
    """Where a player has been and goes: ``mine`` their matches, ``next`` the matches their
    undecided one sends them to (win or, in a double elimination, lose), ``current`` the match
    they play now or next (None once they are out or it is over)."""

    mine: frozenset[str] = frozenset()
    next: frozenset[str] = frozenset()
    current: str | None = None


def targets(nodes: Iterable[BracketNode]) -> dict[str, list[tuple[str, int, int]]]:
    """Feeder node → [(target node, seat index, place)] from the sources' words."""
    out: dict[str, list[tuple[str, int, int]]] = {}
    for node in nodes:
        for seat, source in enumerate(node.sources):
            found = feeder_of(source)
            if found is not None:
                out.setdefault(found[0], []).append((node.id, seat, found[1]))
    return out


def path_of(nodes: Sequence[BracketNode], player: str | None) -> Path:
    if not player:
        return Path()
    mine = [n for n in nodes if player in n.seats]
    if not mine:
        return Path()
    pending = [n for n in mine if not n.decided and n.status != "void"]
    current = min(pending, key=lambda n: n.round) if pending else None
    ahead: set[str] = set()
    if current is not None:
        ahead = {target for target, _seat, _place in targets(nodes).get(current.id, [])}
    return Path(frozenset(n.id for n in mine), frozenset(ahead), current.id if current else None)


# ---------------------------------------------------------------- the picture


@dataclass(frozen=True)
class Span:
    row: int
    start: int
    end: int
    style: str  # heading, round, box, mine, next, live, winner, out, me, source, bye, line, path, place


@dataclass(frozen=True)
class Section:
    """Where a section starts (its title's row) and its rounds' headings with their columns."""

    row: int
    title: str
    headings: tuple[tuple[int, str], ...]


@dataclass
class Drawing:
    lines: list[str]
    spans: list[Span]
    anchors: dict[str, tuple[int, int]] = field(default_factory=dict)  # node id → (row, column) of its box
    sections: list[Section] = field(default_factory=list)

    def where(self, row: int, col: int, width: int) -> str:
        """What the view at (``row``, ``col``), ``width`` wide, shows: the section and the rounds
        in view (``Losers' bracket: losers' round 2 · losers' round 3``), for a heading that stays."""
        above = [s for s in self.sections if s.row <= row + 1]
        if not above:
            return ""
        section = above[-1]
        shown = [words for x, words in section.headings if col - BOX_WIDTH < x < col + width - 4]
        return f"{section.title}: {' · '.join(shown)}" if shown else section.title

    @property
    def width(self) -> int:
        return max((len(line) for line in self.lines), default=0)

    def plain(self) -> str:
        return "\n".join(line.rstrip() for line in self.lines)


UP, DOWN, LEFT, RIGHT = 1, 2, 4, 8
JOINS: Final = {
    LEFT | RIGHT: "─",
    LEFT: "─",
    RIGHT: "─",
    UP | DOWN: "│",
    UP: "│",
    DOWN: "│",
    DOWN | RIGHT: "┌",
    DOWN | LEFT: "┐",
    UP | RIGHT: "└",
    UP | LEFT: "┘",
    UP | DOWN | RIGHT: "├",
    UP | DOWN | LEFT: "┤",
    LEFT | RIGHT | DOWN: "┬",
    LEFT | RIGHT | UP: "┴",
    UP | DOWN | LEFT | RIGHT: "┼",
}
STRONGER: Final = ("path", "mine", "next")  # where styles meet on a cell, the first of these wins


class Canvas:
    """A grid of characters with a style per cell; lines joined where they meet."""

    def __init__(self) -> None:
        self.cells: dict[tuple[int, int], str] = {}
        self.styles: dict[tuple[int, int], str] = {}
        self.joins: dict[tuple[int, int], int] = {}

    def text(self, row: int, col: int, words: str, style: str = "") -> None:
        for offset, char in enumerate(words):
            self.cells[(row, col + offset)] = char
            self._style(row, col + offset, style)

    def _style(self, row: int, col: int, style: str) -> None:
        if not style:
            return
        held = self.styles.get((row, col))
        if held in STRONGER and (style not in STRONGER or STRONGER.index(style) > STRONGER.index(held)):
            return
        self.styles[(row, col)] = style

    def join(self, row: int, col: int, bits: int, style: str) -> None:
        self.joins[(row, col)] = self.joins.get((row, col), 0) | bits
        self._style(row, col, style)

    def link(self, start: tuple[int, int], end: tuple[int, int], style: str) -> None:
        """A line from ``start`` (just right of a box) to ``end`` (just left of another):
        across, down or up at the middle of the gap, across again."""
        (r1, c1), (r2, c2) = start, end
        middle = c1 + (c2 - c1) // 2
        for col in range(c1, middle):
            self.join(r1, col, LEFT | RIGHT, style)
        if r1 == r2:
            self.join(r1, middle, LEFT | RIGHT, style)
        else:
            self.join(r1, middle, LEFT | (DOWN if r2 > r1 else UP), style)
            for row in range(min(r1, r2) + 1, max(r1, r2)):
                self.join(row, middle, UP | DOWN, style)
            self.join(r2, middle, RIGHT | (UP if r2 > r1 else DOWN), style)
        for col in range(middle + 1, c2 + 1):
            self.join(r2, col, LEFT | RIGHT, style)

    def drawing(self, anchors: dict[str, tuple[int, int]], sections: list[Section]) -> Drawing:
        for where, bits in self.joins.items():
            self.cells.setdefault(where, JOINS[bits])
        rows = max((r for r, _c in self.cells), default=-1) + 1
        width = max((c for _r, c in self.cells), default=-1) + 1
        grid = [[" "] * width for _ in range(rows)]
        for (r, c), char in self.cells.items():
            grid[r][c] = char
        spans: list[Span] = []
        for r in range(rows):
            run: tuple[int, str] | None = None
            for c in range(width + 1):
                style = self.styles.get((r, c), "") if c < width else ""
                if run is not None and style != run[1]:
                    spans.append(Span(r, run[0], c, run[1]))
                    run = None
                if style and run is None:
                    run = (c, style)
        return Drawing(["".join(row).rstrip() for row in grid], spans, anchors, sections)


@dataclass(frozen=True)
class Row:
    """A line inside a box: words, a mark at its right (a result: 1/0, a table's place), their style."""

    words: str
    mark: str = ""
    style: str = ""


@dataclass(frozen=True)
class Box:
    id: str
    title: str
    status: str
    rows: tuple[Row, ...]
    border: str = "box"  # mine, next, live or box

    @property
    def height(self) -> int:
        return len(self.rows) + 2


@dataclass
class Column:
    heading: str
    boxes: list[Box]


def short_source(source: str) -> str:
    """A source in a box: ``2nd of table T1-3`` as ``2nd of T1-3``."""
    return source.replace(" of table ", " of ")


def node_box(node: BracketNode, names: Mapping[str, str], me: str | None, path: Path, advance: int = 1) -> Box:
    """A node's box: its seats (a decided table by place), each result's mark; its border
    says whether it is on the player's path."""
    table = len(node.seats) > 2 or node.bracket == "table"
    rows = []
    order = list(range(len(node.seats)))
    if node.decided and table:  # a decided table: by place
        order = sorted(order, key=lambda i: (node.places[i] or 99, i))
    for i in order:
        player = node.seats[i]
        place = node.places[i] if i < len(node.places) else None
        if player is None:
            words = (
                "bye"
                if node.status in ("walkover", "void")
                else short_source(node.sources[i])
                if i < len(node.sources)
                else "?"
            )
            rows.append(Row(words, "", "bye" if node.status in ("walkover", "void") else "source"))
            continue
        mark = ""
        style = ""
        if place is not None and node.status == "decided":
            mark = ordinal(place) if table else ("1" if place == 1 else "0")
            style = "winner" if place == 1 or (table and place <= advance) else "out"
        elif node.status == "walkover":
            style = "winner"
        elif node.status == "void":  # a reset not needed: nobody plays it
            style = "bye"
        rows.append(Row(names.get(player, player), mark, "me" if player == me else style))
    if not table and len(rows) == 1:  # a bye: the seat nobody takes, shown as such
        rows.append(Row("bye", "", "bye"))
    border = (
        "mine"
        if node.id in path.mine
        else "next"
        if node.id in path.next
        else "live"
        if node.status == "live"
        else "box"
    )
    status = "forfeit" if node.forfeit and node.status == "decided" else STATUS_WORDS.get(node.status, "")
    return Box(node.id, node.id, status, tuple(rows), border)


def box_lines(canvas: Canvas, box: Box, row: int, col: int) -> None:
    inner = BOX_WIDTH - 2
    border = box.border
    title = f" {box.title} "
    status = f" {box.status} " if box.status else ""
    fill = max(0, inner - len(title) - len(status))
    canvas.text(row, col, "┌", border)
    canvas.text(row, col + 1, title, "mine" if border == "mine" else "round")
    canvas.text(row, col + 1 + len(title), "─" * fill, border)
    canvas.text(row, col + 1 + len(title) + fill, status, "live" if box.status == "live" else border)
    canvas.text(row, col + BOX_WIDTH - 1, "┐", border)
    for index, line in enumerate(box.rows, start=1):
        room = inner - 2 - 4  # a space each side, a mark of 3 and a space before it
        words = cut_name(line.words, room)
        canvas.text(row + index, col, "│", border)
        canvas.text(row + index, col + 1, " " + words.ljust(room), line.style)
        canvas.text(row + index, col + 1 + 1 + room, " " + line.mark.rjust(3) + " ", line.style if line.mark else "")
        canvas.text(row + index, col + BOX_WIDTH - 1, "│", border)
    bottom = row + box.height - 1
    canvas.text(bottom, col, "└" + "─" * inner + "┘", border)


def layout(
    canvas: Canvas,
    top: int,
    columns: Sequence[Column],
    anchors: dict[str, tuple[int, int]],
    feeds: Mapping[str, list[tuple[str, int, int]]],
    path: Path,
) -> int:
    """Place a section's columns from row ``top``: each box between the boxes that feed it (in
    this section), never over the one above; join each feeder to its target. The next free row."""
    pitch = BOX_WIDTH + GAP
    heading_row = top
    for index, column in enumerate(columns):
        canvas.text(heading_row, index * pitch, cut_name(column.heading, pitch - 1), "round")
    placed: dict[str, tuple[int, int, Box]] = {}  # id → (row, column index, box)
    fed_by: dict[str, list[tuple[str, int]]] = {}
    for feeder, found in feeds.items():
        for target, seat, _place in found:
            fed_by.setdefault(target, []).append((feeder, seat))
    bottom = top + 1
    for index, column in enumerate(columns):
        free = top + (2 if any(c.heading for c in columns) else 1)  # the headings' row, a blank line
        for box in column.boxes:
            centres = [
                placed[f][0] + placed[f][2].height / 2
                for f, _seat in fed_by.get(box.id, [])
                if f in placed and placed[f][1] == index - 1
            ]
            wanted = round(sum(centres) / len(centres) - box.height / 2) if centres else free
            row = max(wanted, free)
            placed[box.id] = (row, index, box)
            anchors[box.id] = (row, index * pitch)
            box_lines(canvas, box, row, index * pitch)
            free = row + box.height + 1
            bottom = max(bottom, free)
    for feeder, found in feeds.items():
        if feeder not in placed:
            continue
        f_row, f_col, f_box = placed[feeder]
        for target, seat, _place in found:
            if target not in placed or placed[target][1] != f_col + 1:
                continue  # another section, or not the next column: the seat's words say where from
            t_row, t_col, _t_box = placed[target]
            exit_row = f_row + f_box.height // 2
            style = "path" if feeder in path.mine and (target in path.mine or target in path.next) else "line"
            canvas.link((exit_row, (f_col + 1) * pitch - GAP), (t_row + 1 + seat, t_col * pitch - 1), style)
            canvas.text(exit_row, (f_col + 1) * pitch - GAP - 1, "├", f_box.border)
            canvas.text(t_row + 1 + seat, t_col * pitch, "┤", placed[target][2].border)
    return bottom


def sections_of(tournament: Mapping[str, Any], nodes: Sequence[BracketNode]) -> list[tuple[str, list[Column]]]:
    """The bracket's sections in order, each a list of columns (rounds) of boxes."""
    names = round_names(tournament, nodes)
    present = [b for b in SECTION_ORDER if any(n.bracket == b for n in nodes)]
    out = []
    single = not names.double
    for bracket in present:
        if bracket == "final" and single:
            continue  # a single elimination's final sits at the end of its one bracket
        members = [
            n for n in nodes if n.bracket == bracket or (single and bracket == "winners" and n.bracket == "final")
        ]
        rounds = sorted({n.round for n in members})
        columns = []
        for number in rounds:
            here = [n for n in members if n.round == number]
            heading = names.round_words(here[0].bracket, names.bracket_round(here[0].id))
            columns.append(Column(heading, []))
        out.append((bracket, columns))
    return out


def section_title(tournament: Mapping[str, Any], bracket: str, double: bool) -> str:
    if bracket == "winners":
        return "Winners' bracket" if double else "Bracket"
    if bracket == "table":
        advance = tournament.get("advance") or 2
        size = tournament.get("table_size")
        return f"Tables{f' of {size}' if size else ''} · the top {advance} of each table go on"
    return SECTION_WORDS.get(bracket, bracket).capitalize()


def draw(tournament: Mapping[str, Any], me: str | None = None) -> Drawing:
    """The whole picture: the places once finished, the pools (if any), then each bracket."""
    nodes = nodes_of(tournament)
    names = names_of(tournament)
    path = path_of(nodes, me)
    canvas = Canvas()
    if not nodes:
        entered = len(tournament.get("players") or [])
        canvas.text(
            0, 0, f"The bracket is drawn when the tournament starts, from its {entered} seeded entrants.", "source"
        )
        return canvas.drawing({}, [])
    anchors: dict[str, tuple[int, int]] = {}
    sections: list[Section] = []
    pitch = BOX_WIDTH + GAP
    row = 0
    places = places_lines(tournament, width=BOX_WIDTH * 3 + GAP * 2)
    if places:
        canvas.text(row, 0, "Final places", "heading")
        sections.append(Section(row, "Final places", ()))
        row += 1
        for line in places_rows(tournament, me, BOX_WIDTH * 3 + GAP * 2):
            col = 0
            for index, (part, mine) in enumerate(line):
                if index:
                    canvas.text(row, col, " · ", "place")
                    col += 3
                canvas.text(row, col, part, "me" if mine else "place")
                col += len(part)
            row += 1
        row += 1
    pools = pool_boxes(tournament, names, me)
    if pools:
        canvas.text(row, 0, pools_title(tournament), "heading")
        sections.append(Section(row, "Pools", ()))
        row = layout(canvas, row + 1, [Column("", [b]) for b in pools], anchors, {}, path)
    rn = round_names(tournament, nodes)
    feeds = targets(nodes)
    for bracket, columns in sections_of(tournament, nodes):
        members = {
            n.id
            for n in nodes
            if n.bracket == bracket or (not rn.double and bracket == "winners" and n.bracket == "final")
        }
        by_round = sorted({n.round for n in nodes if n.id in members})
        for node in nodes:
            if node.id in members:
                columns[by_round.index(node.round)].boxes.append(node_box(node, names, me, path, rn.advance))
        title = section_title(tournament, bracket, rn.double)
        canvas.text(row, 0, title, "heading")
        sections.append(
            Section(row, title.split(" · ")[0], tuple((i * pitch, c.heading) for i, c in enumerate(columns)))
        )
        section_feeds = {f: [t for t in found if t[0] in members] for f, found in feeds.items() if f in members}
        row = layout(canvas, row + 1, columns, anchors, section_feeds, path)
    return canvas.drawing(anchors, sections)


# ---------------------------------------------------------------- pools


def pools_title(tournament: Mapping[str, Any]) -> str:
    kind = "Swiss" if tournament.get("pool_format") == "swiss" else "round-robin"
    advance = tournament.get("advance") or 2
    return f"Pools ({kind}) · the top {advance} of each pool go on to the bracket"


@dataclass(frozen=True)
class Pool:
    """A pool as its matches show it: its letter, its players (best record first), each one's
    won–lost."""

    letter: str
    players: tuple[str, ...]
    records: Mapping[str, tuple[int, int]]


def pools_of(tournament: Mapping[str, Any]) -> list[Pool]:
    """The pools of a pools phase: each pool's players in the server's standing order (``pools``,
    by the pool's chain), else by wins, fewer losses, seed; each one's won–lost so far from the
    pool rounds' pairings (``bracket`` ``pool``, ``node`` ``pool-A``)."""
    seed = {str(p.get("id")): i for i, p in enumerate(tournament.get("players") or []) if isinstance(p, Mapping)}
    pools: dict[str, dict[str, list[int]]] = {}
    for r in tournament.get("rounds") or []:
        for p in (r.get("pairings") or []) if isinstance(r, Mapping) else []:
            if not isinstance(p, Mapping) or p.get("bracket") != "pool":
                continue
            letter = str(p.get("node") or "pool-?").removeprefix("pool-")
            records = pools.setdefault(letter, {})
            result = p.get("result") if isinstance(p.get("result"), Mapping) else None
            for seat in p.get("seats") or []:
                who = str(seat.get("id")) if isinstance(seat, Mapping) else ""
                record = records.setdefault(who, [0, 0])
                if result is not None:
                    record[0 if who == result.get("winner") else 1] += 1
    ranked = {  # the server's standing order of each pool (its chain), when it sends it
        str(p.get("pool")): [str(x) for x in p.get("players") or []]
        for p in tournament.get("pools") or []
        if isinstance(p, Mapping)
    }
    out = []
    for letter in sorted(set(pools) | set(ranked)):
        records = pools.get(letter, {})
        by_record = sorted(records, key=lambda who: (-records[who][0], records[who][1], seed.get(who, 999)))
        order = ranked.get(letter) or by_record
        out.append(Pool(letter, tuple(order), {who: (w, lost) for who, (w, lost) in records.items()}))
    return out


def pool_boxes(tournament: Mapping[str, Any], names: Mapping[str, str], me: str | None) -> list[Box]:
    """A box per pool: its players by record, each with won–lost; the ones in the bracket in bold."""
    seated = {
        s for node in tournament.get("bracket") or [] if isinstance(node, Mapping) for s in node.get("seats") or [] if s
    }
    boxes = []
    for pool in pools_of(tournament):
        rows = []
        for player in pool.players:
            won, lost = pool.records.get(player, (0, 0))
            style = "me" if player == me else "winner" if player in seated else ""
            rows.append(Row(names.get(player, player), f"{won}–{lost}", style))
        border = "mine" if me in pool.players else "box"
        boxes.append(Box(pool.letter, f"pool {pool.letter}", "", tuple(rows), border))
    return boxes


# ---------------------------------------------------------------- places and rounds as text


def places_rows(tournament: Mapping[str, Any], me: str | None, width: int) -> list[list[tuple[str, bool]]]:
    """The places as lines of at most ``width``, each a list of parts (``1st ann``, ``3rd= bob,
    dan``) with whether the part holds ``me``; parts are joined by `` · ``."""
    names = names_of(tournament)
    by_place: dict[int, list[str]] = {}
    for entry in tournament.get("places") or []:
        if isinstance(entry, Mapping) and isinstance(entry.get("place"), int):
            by_place.setdefault(entry["place"], []).append(str(entry.get("player")))
    lines: list[list[tuple[str, bool]]] = []
    line: list[tuple[str, bool]] = []
    used = 0
    for place in sorted(by_place):
        who = by_place[place]
        part = f"{ordinal(place)}{'=' if len(who) > 1 else ''} {', '.join(names.get(p, p) for p in who)}"
        if line and used + 3 + len(part) > width:
            lines.append(line)
            line, used = [], 0
        used += (3 if line else 0) + len(part)
        line.append((part, me in who))
    return [*lines, line] if line else lines


def places_lines(tournament: Mapping[str, Any], width: int = 80) -> list[str]:
    return [" · ".join(part for part, _mine in line) for line in places_rows(tournament, None, width)]


def match_words(node: BracketNode, names: Mapping[str, str], width: int = 20) -> str:
    """One node in words: ``alice 1 – 0 bob``, ``alice v (winner of W1-3)``, ``alice (bye)``,
    ``alice v bob · live``; a table ``bob 1st, dan 2nd, ann 3rd, cyd 4th``."""

    def seat(i: int) -> str:
        player = node.seats[i] if i < len(node.seats) else None
        if player is not None:
            return cut_name(names.get(player, player), width)
        return (
            "(bye)" if node.status in ("walkover", "void") else f"({node.sources[i]})" if i < len(node.sources) else "?"
        )

    count = len(node.seats)
    if count > 2 or node.bracket == "table":
        order = list(range(count))
        if node.status == "decided":
            order.sort(key=lambda i: (node.places[i] or 99, i))
            said = ", ".join(f"{seat(i)} {ordinal(node.places[i] or 0)}" for i in order)
        else:
            said = ", ".join(seat(i) for i in order)
        return said + (f" · {STATUS_WORDS[node.status]}" if node.status in STATUS_WORDS else "")
    if node.status == "walkover":
        present = [i for i in range(count) if node.seats[i] is not None]
        return f"{seat(present[0])} (bye)" if present else "(void)"
    if node.status == "void":
        return "(not played)"
    if node.status == "decided" and count == 2:
        first = 0 if node.places[0] == 1 else 1
        return f"{seat(first)} 1 – 0 {seat(1 - first)}" + (f" (forfeit: {node.forfeit})" if node.forfeit else "")
    said = f"{seat(0)} v {seat(1)}" if count == 2 else " v ".join(seat(i) for i in range(count))
    return said + (f" · {STATUS_WORDS[node.status]}" if node.status in STATUS_WORDS else "")


def round_lines(tournament: Mapping[str, Any], width: int = 80) -> list[tuple[str, list[str]]]:
    """The bracket as text rounds, in the order they are played: (heading, [``W2-1  alice 1 –
    0 bob``, …]); a line longer than ``width`` is broken after a comma, indented."""
    nodes = nodes_of(tournament)
    names = names_of(tournament)
    rn = round_names(tournament, nodes)
    out: list[tuple[str, list[str]]] = []
    keys: list[tuple[int, int, str]] = []
    groups: dict[tuple[int, int, str], list[BracketNode]] = {}
    for node in nodes:
        key = (node.round, SECTION_ORDER.index(node.bracket) if node.bracket in SECTION_ORDER else 9, node.bracket)
        if key not in groups:
            keys.append(key)
        groups.setdefault(key, []).append(node)
    pad = max((len(n.id) for n in nodes), default=0) + 2
    for key in sorted(keys):
        members = groups[key]
        heading = rn.round_words(members[0].bracket, rn.bracket_round(members[0].id))
        heading = heading[0].upper() + heading[1:]
        if members[0].bracket == "table":
            heading += f" · the top {rn.advance} of each table go on" if heading != "Final table" else ""
        lines: list[str] = []
        for node in members:
            lines += fold(node.id.ljust(pad) + match_words(node, names), width, pad)
        out.append((heading, lines))
    return out


def fold(line: str, width: int, indent: int) -> list[str]:
    """``line`` broken after ", " (or before " (") to fit ``width``, the rest indented by ``indent``."""
    out: list[str] = []
    while len(line) > width:
        comma = line.rfind(", ", indent, width)
        note = line.rfind(" (", indent, width + 1)
        if max(comma, note) <= indent:
            break
        cut_at, skip = (comma + 1, 2) if comma >= note else (note, 1)
        out.append(line[:cut_at])
        line = " " * indent + line[cut_at + skip :]
    return [*out, line]
