"""``unoduo tournament`` for a Swiss and a tables tournament against a real ``unoduo serve``
(issue 22): created with the new options, run to the end by house bots, shown at 80 columns
(every line within 80, the format in the header, the chain's columns, every table's seats and
places), and the Swiss exported as TRF (the tables tournament's 409 said as the server says it)."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from cli.main import app
from tests.cli.serving import running
from tests.cli.test_tournament_cmd import finished
from tui_client.models.tournament_model import schedule_rows, standings_cells, standings_columns, title_words

TOKEN = "director-token-for-the-format-e2e"


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running(tmp_path_factory.mktemp("formats_e2e") / "x.sqlite3", clean=True, UNODUO_DIRECTOR_TOKEN=TOKEN) as url:
        yield url


def unoduo(*args: str, url: str, columns: int | None = 80) -> Result:
    env = {"UNODUO_URL": None, "UNODUO_DIRECTOR_TOKEN": None, "FORCE_COLOR": None, "TTY_COMPATIBLE": None}
    runner = CliRunner(env={**env, "COLUMNS": None if columns is None else str(columns), "TZ": "UTC"})
    return runner.invoke(app, ["tournament", *args, "--url", url, "--token", TOKEN])


def created(result: Result) -> str:
    assert result.exit_code == 0, result.output
    return result.stdout.split()[2]


def test_a_swiss_created_run_shown_and_exported(base: str, tmp_path: Path) -> None:
    bots = [arg for i in range(7) for arg in ("-p", "bot:greedy" if i % 2 else "bot:random")]
    start = time.strftime("%Y-%m-%d %H:%M", time.localtime(time.time() - 60))  # a local time, just past
    made = unoduo(
        *("create", "Evening Swiss", *bots, "--rule", "target=30", "--format", "swiss", "--rounds", "3"),
        *("--round-start", start, "--start"),
        url=base,
    )
    tournament_id = created(made)
    assert "Swiss · 3 rounds" in made.stdout.splitlines()[0]
    t = finished(base, tournament_id)
    assert t["format"] == "swiss" and t["rounds"][0]["starts_at"]
    shown = unoduo("show", tournament_id, url=base)
    assert shown.exit_code == 0, shown.output
    lines = [line.rstrip() for line in shown.stdout.splitlines()]
    assert max(len(line) for line in lines) <= 80, "\n".join(line for line in lines if len(line) > 80)
    assert any(line.startswith("Swiss · 3 rounds · 7 players") for line in lines)
    head = next(line for line in lines if re.search(r"#\s+player", line))
    assert re.search(r"#\s+player\s+P\s+Score\s+Bch\s+SB\s+W\s+PD\s+PC\s+by", head), head
    for row in t["standings"]:
        assert any(re.match(rf"\s*{row['rank']}\s+{re.escape(row['name'])}\s+\d+\s+{row['score']}\s", x) for x in lines)
    for number in (1, 2, 3):
        assert any(line.startswith(f"Round {number} · finished") for line in lines)
    trf = unoduo("trf", tournament_id, "-o", str(tmp_path / "x.trf"), url=base)
    assert trf.exit_code == 0, trf.output
    text = (tmp_path / "x.trf").read_text(encoding="utf-8")
    assert text.startswith("012 ") or "\n001 " in text, text[:200]
    assert sum(1 for line in text.splitlines() if line.startswith("001 ")) == 7


def test_a_tables_tournament_created_run_and_shown(base: str) -> None:
    bots = [arg for i in range(8) for arg in ("-p", "bot:greedy" if i % 2 else "bot:random")]
    made = unoduo(
        *("create", "Club tables", *bots, "--ruleset", "classic", "--rule", "target=50", "--format", "tables"),
        *("--rounds", "2", "--table-size", "4", "--placement-points", "5,3,1,0", "--start"),
        url=base,
    )
    tournament_id = created(made)
    # (the server answers rounds_planned 0 for a tables tournament not started yet: no count said)
    assert re.search(r"tables of 4 (· 2 rounds )?· points 5/3/1/0", made.stdout.splitlines()[0]), made.stdout
    assert "started tournament" in made.stdout and "2 rounds; round 1 is open" in made.stdout
    t = finished(base, tournament_id)
    shown = unoduo("show", tournament_id, url=base)
    assert shown.exit_code == 0, shown.output
    lines = [line.rstrip() for line in shown.stdout.splitlines()]
    assert max(len(line) for line in lines) <= 80, "\n".join(line for line in lines if len(line) > 80)
    head = next(line for line in lines if re.search(r"#\s+player", line))
    assert re.search(r"#\s+player\s+P\s+Pts\s+MP\s+1st\s+by", head), head
    said = " ".join(lines)
    for round_ in t["rounds"]:
        for pairing in round_["pairings"]:
            assert f"table {pairing['board']}: " in said
            for seat, place in zip(pairing["seats"], pairing["result"]["places"], strict=True):
                assert re.search(rf"{re.escape(seat['name'])} {place}(st|nd|rd|th)\b", said), seat["name"]
    # the terminal client's rows from the same answer
    assert " · tables of 4 · points 5/3/1/0 · " in title_words(t)
    assert [label for _k, label in standings_columns(t, full=False)] == ["#", "player", "P", "Pts", "MP", "1st", "by"]
    assert len(standings_cells(t, full=False)) == 8
    tables_seen = [r for r in schedule_rows(t) if r.kind == "pairing"]
    assert tables_seen and all(r.finished and len(r.parts) == len(r.seats) >= 3 for r in tables_seen)
    refused = unoduo("trf", tournament_id, url=base)
    assert refused.exit_code == 1 and refused.stderr.startswith("no standard export for this format (tables)"), (
        refused.output
    )
