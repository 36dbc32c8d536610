"""``unoduo season …`` against a real ``unoduo serve`` (issue 36.5): a season of two small
tournaments played by house bots, made, filled, shown at 80 columns, finished with its moves, and
followed by the next season; every refusal one line (exit 1), a director command without the
token stopped before sending (exit 2)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner, Result

from cli.main import app
from tests.cli.serving import running
from tests.cli.test_tournament_cmd import finished, refused

TOKEN = "director-token-for-the-season-e2e"


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running(tmp_path_factory.mktemp("season_e2e") / "x.sqlite3", clean=True, UNODUO_DIRECTOR_TOKEN=TOKEN) as url:
        yield url


def unoduo(*args: str, url: str, token: str | None = TOKEN) -> Result:
    env = {"UNODUO_URL": None, "UNODUO_DIRECTOR_TOKEN": None, "FORCE_COLOR": None, "TTY_COMPATIBLE": None}
    runner = CliRunner(env={**env, "COLUMNS": "80", "TZ": "UTC"})
    options = ["--url", url] + (["--token", token] if token is not None else [])
    result = runner.invoke(app, [*args, *options])
    assert "Traceback" not in result.output, result.output
    return result


def tournament(base: str, name: str, *players: str) -> str:
    entries = [arg for p in players for arg in ("-p", p)]
    made = unoduo("tournament", "create", name, *entries, "--rule", "target=30", "--start", url=base)
    assert made.exit_code == 0, made.output
    return made.stdout.split()[2]


def season_json(base: str, season_id: str) -> dict[str, Any]:
    answer: dict[str, Any] = httpx.get(f"{base}/api/seasons/{season_id}").json()
    return answer


def test_a_season_of_two_bot_nights_through_a_real_server(base: str) -> None:
    made = unoduo("season", "create", "Winter", "--best-of", "1", "--divisions", "2", "--promote", "1", url=base)
    assert made.exit_code == 0, made.output
    season_id = made.stdout.split()[2].rstrip(":")
    first = tournament(base, "Night 1", "bot:greedy", "bot:random", "bot:greedy")
    second = tournament(base, "Night 2", "bot:random", "bot:greedy", "bot:random", "bot:greedy")
    added = unoduo("season", "add", season_id, first, second, url=base)
    assert added.exit_code == 0 and added.stdout.count("added ") == 2, added.output
    twice = refused(unoduo("season", "add", season_id, first, url=base))
    assert twice.startswith("error (409 ") and "already" in twice
    assert refused(unoduo("season", "add", season_id, first, url=base, token=None), 2).startswith("this command needs")
    finished(base, first)
    finished(base, second)
    shown = unoduo("season", "show", season_id, url=base)
    assert shown.exit_code == 0, shown.output
    lines = [line.rstrip() for line in shown.stdout.splitlines()]
    assert max(len(line) for line in lines) <= 80, "\n".join(line for line in lines if len(line) > 80)
    assert lines[0] == "Winter · open · 2 of 2 events finished"
    assert lines[1:3] == [
        "the best event counts · points 25/18/15/12/10/8/6/4/2/1",
        "2 divisions · at the end 1 go up, 2 go down",
    ]
    assert any(re.match(rf"\s*1\. Night 1 \({first}\): finished", line) for line in lines), lines
    season = season_json(base, season_id)
    rows = season["standings"]
    assert {r["division"] for r in rows} == {"Division 2"}  # everyone starts in the lowest
    assert len(rows) == 4 and all(len(r["counted"]) == 1 for r in rows)
    for row in rows:
        cells = rf"[│\s]*{row['rank']}=?[│\s]+{re.escape(row['name'])}[│\s]+{row['events']}[│\s]+{row['points']}[│\s]"
        assert any(re.match(cells, x) for x in lines), (row, shown.stdout)
    ended = unoduo("season", "finish", season_id, url=base)
    assert ended.exit_code == 0, ended.output
    season = season_json(base, season_id)
    (move,) = season["moves"]
    assert move["player"] == rows[0]["player"] and move["direction"] == "up" and move["target"] == "Division 1"
    assert f"{move['name']}: up, from Division 2 to Division 1" in ended.stdout
    assert refused(unoduo("season", "finish", season_id, url=base)).startswith("error (409 ")
    following = unoduo("season", "create", "Spring", "--follows", season_id, "--json", url=base)
    assert following.exit_code == 0, following.output
    spring = season_json(base, following.stdout[following.stdout.index("{") :].split('"id": "')[1].split('"')[0])
    assert spring["divisions"] == season["divisions_after"] and spring["best_of"] == 1
    assert spring["divisions"][0]["players"] == [move["player"]]
    listed = unoduo("season", "list", url=base)
    assert listed.exit_code == 0 and "Winter" in listed.stdout and "Spring" in listed.stdout
    assert refused(unoduo("season", "show", "s_nobody", url=base)).startswith("error (404 ")


def test_bad_options_stop_before_sending() -> None:
    """Options that cannot make a request: exit 2 and one line, nothing sent (no server here)."""
    nowhere = "http://127.0.0.1:9"
    for args in (
        ("season", "create", "W", "--points", "25,x"),
        ("season", "create", "W", "--divisions", "2", "--division", "A"),
        ("season", "create", "W", "--division", "=ann"),
    ):
        assert refused(unoduo(*args, url=nowhere), 2), args
    assert refused(unoduo("season", "finish", "s_1", url=nowhere, token=None), 2).startswith("this command needs")
