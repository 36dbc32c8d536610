"""``unoduo tournament fairplay ID`` (cli/fairplay_table.py): a hand-built report at 80 columns,
then the command against a real ``unoduo serve`` process: the table, ``--json``, the refusals."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from rich.console import Console
from typer.testing import CliRunner, Result

from cli.fairplay_table import print_fairplay
from cli.main import app
from tests.cli.serving import running
from tests.cli.test_tournament_cmd import TOKEN, finished

LONG = "Wilhelmina-Augusta von Hohenzollern-Sigmaringen"
runner = CliRunner(
    env={
        "UNODUO_URL": None,
        "UNODUO_DIRECTOR_TOKEN": None,
        "COLUMNS": "80",
        "FORCE_COLOR": None,
        "TTY_COMPATIBLE": None,
    }
)


def row(name: str, kind: str, moves: int, mean: float | None, timeouts: int = 0, lost: int = 0) -> dict[str, Any]:
    figures = {
        "mean_seconds": mean,
        "stdev_seconds": None if mean is None else 1.118034,
        "median_seconds": mean,
        "p90_seconds": None if mean is None else 12.5,
        "fastest_seconds": mean,
        "slowest_seconds": mean,
    }
    return {
        "player": {"id": f"p_{name[:4]}", "name": name, "kind": kind},
        "matches": 2,
        "moves": moves,
        **figures,
        "timeouts": timeouts,
        "timeout_forfeits": lost,
    }


REPORT = {
    "tournament": "t_0123456789abcdef",
    "name": "Club night",
    "status": "finished",
    "move_seconds": 60,
    "matches": 3,
    "players": [
        row("ada", "human", 120, 3.5, timeouts=4, lost=1),
        row("greedy-1", "bot", 98, 0.000012),
        row(LONG, "bot_account", 11, 14.25),
        row("nobody", "human", 0, None),
    ],
}


def rendered(width: int) -> str:
    out = Console(file=io.StringIO(), width=width, force_terminal=False, color_system=None)
    print_fairplay(out, REPORT)
    text = out.file.getvalue()  # type: ignore[attr-defined]
    assert isinstance(text, str)
    return text


def test_the_table_fits_80_columns_with_every_figure_and_each_kind_labelled() -> None:
    text = rendered(80)
    lines = text.splitlines()
    assert all(len(line) <= 80 for line in lines), [len(line) for line in lines]
    assert lines[0] == "Club night (t_0123456789abcdef) · finished · move clock 60 s · 3 matches read"
    header = next(line for line in lines if "moves" in line).split()
    assert header == ["player", "moves", "mean", "s", "spread", "s", "p90", "s", "timeouts", "matches"]
    ada = next(line for line in lines if line.lstrip().startswith("ada")).split()
    assert ada == ["ada", "120", "3.50", "1.12", "12.50", "4", "(1", "lost)", "2"]
    assert next(line for line in lines if "greedy-1" in line).split() == [
        "greedy-1",
        "(bot)",
        "98",
        "0.00",
        "1.12",
        "12.50",
        "0",
        "2",
    ]
    assert next(line for line in lines if line.lstrip().startswith("nobody")).split() == [
        "nobody",
        "0",
        "—",
        "—",
        "—",
        "0",
        "2",
    ]
    assert "(bot account)" in text and "14.25" in text  # the long name folds; its numbers stay whole
    assert "not a verdict" in text


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running(tmp_path_factory.mktemp("fairplay") / "x.sqlite3", clean=True, UNODUO_DIRECTOR_TOKEN=TOKEN) as url:
        yield url


def unoduo(*args: str, url: str, token: str | None = TOKEN) -> Result:
    options = ["--url", url] + (["--token", token] if token is not None else [])
    result = runner.invoke(app, ["tournament", *args, *options])
    assert "Traceback" not in result.output, result.output
    return result


def test_the_command_prints_the_servers_figures(base: str) -> None:
    director = {"Authorization": f"Bearer {TOKEN}"}
    body = {"name": "Bots", "players": ["bot:greedy", "bot:random", "bot:greedy"], "rules": {"target": 30}}
    with httpx.Client(base_url=base) as client:
        created = client.post("/api/tournaments", json=body, headers=director)
        assert created.status_code == 201, created.text
        tournament_id = created.json()["id"]
        assert client.post(f"/api/tournaments/{tournament_id}/start", headers=director).status_code == 200
        t = finished(base, tournament_id)
        answer = client.get(f"/api/tournaments/{tournament_id}/fairplay", headers=director).json()

    shown = unoduo("fairplay", tournament_id, url=base)
    assert shown.exit_code == 0, shown.output
    assert all(len(line) <= 80 for line in shown.stdout.splitlines())
    assert shown.stdout.startswith(f"Bots ({tournament_id}) · finished · move clock 60 s · 3 matches read")
    for player, figures in zip(t["players"], answer["players"], strict=True):
        line = next(line for line in shown.stdout.splitlines() if line.lstrip().startswith(player["name"] + " "))
        assert line.split()[:3] == [player["name"], "(bot)", str(figures["moves"])]
        assert figures["moves"] > 0 and figures["matches"] == 2 and figures["timeouts"] == 0
    as_json = unoduo("fairplay", tournament_id, "--json", url=base)
    assert as_json.exit_code == 0 and json.loads(as_json.stdout) == answer


def test_the_command_needs_the_directors_token_and_a_known_tournament(base: str) -> None:
    without = unoduo("fairplay", "t_0", url=base, token=None)
    assert without.exit_code == 2 and "director's token" in without.stderr and without.stdout == ""
    wrong = unoduo("fairplay", "t_0", url=base, token="not-the-director-token")
    assert wrong.exit_code == 1 and wrong.stderr.startswith("error (401 unauthorized): ")
    unknown = unoduo("fairplay", "t_nobody", url=base)
    assert unknown.exit_code == 1 and unknown.stderr.startswith("error (404 not_found): ")
