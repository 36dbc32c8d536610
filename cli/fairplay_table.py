"""What ``unoduo tournament fairplay ID`` prints (docs/TOURNAMENTS.md "Fair-play signals").

One row per entrant, in pairing order: the player (a bot labelled as one), moves, the mean,
spread (population standard deviation) and 90th percentile of the move times in seconds, the
timeouts (with the matches they forfeited) and the matches. It fits 80 columns with names of up
to about 24 characters; a longer name folds, the numbers never do. ``--json`` has every figure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

__all__ = ["fairplay_table", "print_fairplay", "review_table"]

NONE = "—"
KIND_LABELS = {"bot": "bot", "bot_account": "bot account"}
FOOTNOTE = (
    "Move time: from the event that put the seat to a decision to its own answer, by the events' "
    "at stamps; timeouts are not timed. Data to look at, not a verdict."
)


def _seconds(value: Any) -> str:
    return NONE if value is None else f"{float(value):.2f}"


def _player(row: Mapping[str, Any]) -> str:
    player = row["player"]
    label = KIND_LABELS.get(str(player.get("kind")))
    return f"{player['name']} ({label})" if label else str(player["name"])


def _timeouts(row: Mapping[str, Any]) -> str:
    lost = int(row["timeout_forfeits"])
    return f"{row['timeouts']} ({lost} lost)" if lost else str(row["timeouts"])


def fairplay_table(report: Mapping[str, Any]) -> Table:
    out = Table(title="Fair play", title_justify="left", title_style="bold", box=box.SIMPLE_HEAD, pad_edge=False)
    out.add_column("player", overflow="fold", ratio=1)
    for column in ("moves", "mean s", "spread s", "p90 s", "timeouts", "matches"):
        out.add_column(column, justify="right", no_wrap=True)
    for row in report["players"]:
        out.add_row(
            Text(_player(row)),
            str(row["moves"]),
            _seconds(row["mean_seconds"]),
            _seconds(row["stdev_seconds"]),
            _seconds(row["p90_seconds"]),
            _timeouts(row),
            str(row["matches"]),
        )
    return out


def _share(value: Any) -> str:
    return NONE if value is None else f"{100 * float(value):.0f}%"


def review_table(report: Mapping[str, Any]) -> Table:
    """Each entrant's Game Review figures (docs/REVIEW.md): matches reviewed so far, decisions,
    agreement with the coach's choice, average loss in expected match points."""
    out = Table(title="Game Review", title_justify="left", title_style="bold", box=box.SIMPLE_HEAD, pad_edge=False)
    out.add_column("player", overflow="fold", ratio=1)
    for column in ("reviewed", "decisions", "agreement", "avg loss"):
        out.add_column(column, justify="right", no_wrap=True)
    for row in report["players"]:
        loss = row.get("average_loss")
        out.add_row(
            Text(_player(row)),
            f"{row.get('reviewed_matches', 0)} of {row['matches']}",
            str(row.get("reviewed_decisions", 0)),
            _share(row.get("agreement")),
            NONE if loss is None else f"{float(loss):.3f}",
        )
    return out


def print_fairplay(out: Console, report: Mapping[str, Any]) -> None:
    out.print(
        Text(
            f"{report['name']} ({report['tournament']}) · {report['status']} · move clock "
            f"{report['move_seconds']} s · {report['matches']} match{'' if report['matches'] == 1 else 'es'} read"
        )
    )
    out.print(fairplay_table(report))
    out.print(Text(FOOTNOTE))
    if report.get("review_note"):  # a server with Game Review (issue 37)
        out.print(review_table(report))
        out.print(Text(str(report["review_note"])))
