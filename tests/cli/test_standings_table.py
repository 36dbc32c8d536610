"""``unoduo tournament show`` fits the terminal (cli/standings_table.py): at 80 columns a compact
standings table with the deciding tie-break abbreviated and a legend, every line within 80
columns, nothing folded; the full tie-break columns with ``--wide`` or when wide enough; results
winner first with the ruleset's rule."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

from cli.main import app
from cli.standings_table import print_show, result_words
from tests.cli.serving import free_port, serve, serve_env, stop, wait_until_up
from tests.cli.test_tournament_cmd import STANDING_HEADERS, TOKEN, finished

PLAYERS = ["bot:greedy", "bot:random", "bot:greedy", "bot:random", "bot:greedy", "bot:random"]


def runner(columns: int | None) -> CliRunner:
    env = {"UNODUO_URL": None, "UNODUO_DIRECTOR_TOKEN": None, "FORCE_COLOR": None, "TTY_COMPATIBLE": None}
    return CliRunner(env={**env, "COLUMNS": None if columns is None else str(columns)})


@pytest.fixture(scope="module")
def six(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """A finished six-player round-robin on a real ``unoduo serve`` (five rounds, fifteen matches)."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    db = tmp_path_factory.mktemp("standings") / "x.sqlite3"
    process = serve("--port", str(port), "--db", f"sqlite:///{db}", env=serve_env(UNODUO_DIRECTOR_TOKEN=TOKEN))
    try:
        wait_until_up(url, process)
        players = [arg for p in PLAYERS for arg in ("-p", p)]
        args = ["tournament", "create", "Club night", *players, "--rule", "target=30", "--start", "--url", url]
        created = runner(None).invoke(app, [*args, "--token", TOKEN])
        assert created.exit_code == 0, created.output
        tournament_id = created.stdout.split()[2]
        yield url, tournament_id, finished(url, tournament_id)
    finally:
        output = stop(process)
    assert "Traceback" not in output, output


def show(url: str, tournament_id: str, columns: int | None, *extra: str) -> str:
    result = runner(columns).invoke(app, ["tournament", "show", tournament_id, *extra, "--url", url])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_at_80_columns_every_line_fits_and_nothing_is_folded(six: tuple[str, str, dict[str, Any]]) -> None:
    url, tournament_id, t = six
    out = show(url, tournament_id, 80)
    lines = [line.rstrip() for line in out.splitlines()]
    assert max(len(line) for line in lines) <= 80, "\n".join(line for line in lines if len(line) > 80)
    standings = lines[lines.index("Standings") + 1 : lines.index("Standings") + 4 + len(t["standings"])]
    head = next(line for line in standings if "player" in line)
    assert re.search(r"#\s+player\s+P\s+W–L\s+points for–against\s+decided by", head), head
    for row in t["standings"]:
        line = next(line for line in lines if re.match(rf"\s*{row['rank']}\s+{re.escape(row['name'])}\s", line))
        wl = f"{row['won']}–{row['lost']}"
        assert wl in line and f"{row['points_for']}–{row['points_against']}" in line, line
        if row["decided_by"]:  # the deciding tie-break, abbreviated, with the row's value: whole
            short = {"match_wins": "MW", "head_to_head": "H2H", "sonneborn_berger": "SB"}.get(row["decided_by"])
            if short:
                assert f"{short} {row['tiebreaks'][row['decided_by']]}" in line, line
    legend = {
        "match_wins": "MW match wins",
        "head_to_head": "H2H head to head",
        "sonneborn_berger": "SB Sonneborn–Berger",
    }
    for row in t["standings"]:  # the legend says each abbreviation the table uses
        assert legend.get(row["decided_by"] or "", "") in out
    assert "sonneborn berger" not in out  # the full columns are left out
    names = {p["id"]: p["name"] for p in t["players"]}
    for round_ in t["rounds"]:
        assert f"Round {round_['number']} · finished" in out
        for pairing in round_["pairings"]:
            result = pairing["result"]
            white, black = result["scores"]
            winner_first = (white, black) if result["winner"] == pairing["white"]["id"] else (black, white)
            assert f"{names[result['winner']]} wins {winner_first[0]}–{winner_first[1]}" in out
            assert pairing["match"] in out  # whole, not folded
    assert "results winner first (lowest total wins)" in out


def test_wide_shows_every_tiebreak_column_and_decided_by_whole(six: tuple[str, str, dict[str, Any]]) -> None:
    url, tournament_id, t = six
    out = show(url, tournament_id, None)  # no terminal: as wide as it takes
    for column in STANDING_HEADERS:
        assert column in out, column
    assert "(lowest total wins)" in out
    # --wide at 120 columns: the other columns fold to make room, "decided by" never does
    wide = show(url, tournament_id, 120, "--wide")
    assert max(len(line.rstrip()) for line in wide.splitlines()) <= 120
    assert "decided by" in wide
    for row in t["standings"]:
        line = next(line for line in wide.splitlines() if re.match(rf"│\s*{row['rank']}\s*│", line))
        assert line.rstrip("│ ").endswith((row["decided_by"] or "—").replace("_", " ")), line


def test_a_wide_terminal_gets_the_full_table_only_if_it_fits() -> None:
    t = tournament()
    assert "sonneborn berger" in rendered(t, 250) and "sonneborn berger" not in rendered(t, 120)
    assert "sonneborn berger" not in rendered(t, 100)  # up to 100 columns: compact by default


def test_results_are_winner_first_with_forfeits_said() -> None:
    names = {"a": "ann", "b": "bob"}
    pairing = {"white": {"id": "a"}, "result": {"winner": "b", "scores": [229, 31], "forfeit": False}}
    assert result_words(pairing, names) == "bob wins 31–229"
    forfeit = {"white": {"id": "a"}, "result": {"winner": "a", "forfeit": True, "reason": "join_deadline"}}
    assert result_words(forfeit, names) == "ann wins by forfeit (join deadline)"
    classic = tournament(ruleset="classic-2p")
    assert "(first to 500 wins)" in rendered(classic, 80)


def tournament(ruleset: str = "uno-duo") -> dict[str, Any]:
    players = [{"id": f"p{i}", "name": f"player-{i}"} for i in range(6)]
    standings = [
        {
            "rank": i + 1,
            "player": p["id"],
            "name": p["name"],
            "played": 5,
            "won": 5 - i,
            "lost": i,
            "byes": 0,
            "forfeits": 0,
            "points_for": 100 + i,
            "points_against": 900 - i,
            "withdrawn": False,
            "tiebreaks": {
                "match_wins": 5 - i,
                "head_to_head": 0,
                "sonneborn_berger": 10 - i,
                "points_difference": 800 - i,
                "points_conceded": 100 + i,
                "lot": i,
            },
            "decided_by": "match_wins" if i < 5 else None,
        }
        for i, p in enumerate(players)
    ]
    pairing = {
        "board": 1,
        "white": players[0],
        "black": players[1],
        "status": "finished",
        "result": {"winner": "p0", "scores": [12, 300], "forfeit": False},
        "match": "m_0123456789abcdef",
    }
    return {
        "players": players,
        "standings": standings,
        "ruleset": ruleset,
        "rules": {},
        "rounds": [{"number": 1, "status": "finished", "pairings": [pairing], "bye": None}],
    }


def rendered(t: dict[str, Any], width: int) -> str:
    buffer = io.StringIO()
    print_show(Console(file=buffer, width=width, color_system=None), t, ["header"])
    return buffer.getvalue()
