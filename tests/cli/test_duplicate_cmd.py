"""Duplicate rounds from the command line and on the terminal client's tournament screen:
``unoduo tournament create --duplicate`` on a real ``unoduo serve``, ``tournament show`` with the
deal keys and the SD column within 80 columns, ``unoduo verify`` on a replay of the round (with
and without the key), and the tournament model's columns (docs/TOURNAMENTS.md "Duplicate rounds")."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console

from cli.main import app
from cli.standings_table import print_show
from tests.cli.serving import free_port, serve, serve_env, stop, wait_until_up
from tests.cli.test_standings_table import runner
from tests.cli.test_tournament_cmd import TOKEN, finished
from tui_client.models.tournament_model import standings_cells, standings_columns, standings_legend


def test_create_show_and_verify_a_duplicate_round_robin(tmp_path: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    process = serve(
        "--port", str(port), "--db", f"sqlite:///{tmp_path / 'd.sqlite3'}", env=serve_env(UNODUO_DIRECTOR_TOKEN=TOKEN)
    )
    try:
        wait_until_up(url, process)
        players = [arg for p in ["bot:greedy", "bot:random"] * 2 for arg in ("-p", p)]
        args = ["tournament", "create", "Dup night", *players, "--rule", "target=30", "--duplicate", "--start"]
        created = runner(None).invoke(app, [*args, "--url", url, "--token", TOKEN])
        assert created.exit_code == 0, created.output
        assert "duplicate rounds" in created.stdout.splitlines()[0]
        tournament_id = created.stdout.split()[2]
        t = finished(url, tournament_id)
        assert t["duplicate"] and sorted(t["deal_keys"]) == ["1", "2", "3"]

        shown = runner(80).invoke(app, ["tournament", "show", tournament_id, "--url", url])
        assert shown.exit_code == 0, shown.output
        lines = [line.rstrip() for line in shown.stdout.splitlines()]
        assert max(len(line) for line in lines) <= 80, "\n".join(line for line in lines if len(line) > 80)
        assert any(line.startswith("duplicate rounds:") for line in lines)
        assert any(t["deal_keys"]["1"] in line for line in lines)
        assert any(" SD " in f" {line} " for line in lines) and any("SD same-deal %" in line for line in lines)

        checked = runner(None).invoke(app, ["tournament", "deals", tournament_id, "--url", url])
        assert checked.exit_code == 0, checked.output
        assert "round 1: 2 matches verify with the revealed key and opened one deck" in checked.stdout

        match_id = t["rounds"][0]["pairings"][0]["match"]
        replay = tmp_path / "r.jsonl"
        replay.write_text(httpx.get(f"{url}/api/matches/{match_id}/replay").text, encoding="utf-8")
        verified = runner(None).invoke(app, ["verify", str(replay)])
        assert verified.exit_code == 0, verified.output
        assert "deal: sha256(deal key)" in verified.stdout
        exported = tmp_path / "exported.jsonl"
        db = str(tmp_path / "d.sqlite3")
        done = runner(None).invoke(app, ["export", "--match", match_id, "--db", db, "-o", str(exported)])
        assert done.exit_code == 0, done.output
        assert runner(None).invoke(app, ["verify", str(exported)]).exit_code == 0  # unoduo export: the key too
        stripped = tmp_path / "stripped.jsonl"
        text = replay.read_text(encoding="utf-8").replace(f',"deal_key":"{t["deal_keys"]["1"]}"', "")
        stripped.write_text(text, encoding="utf-8")
        assert runner(None).invoke(app, ["verify", str(stripped)]).exit_code == 1
        again = runner(None).invoke(app, ["verify", str(stripped), "--deal-key", t["deal_keys"]["1"]])
        assert again.exit_code == 0, again.output
        wrong = runner(None).invoke(app, ["verify", str(stripped), "--deal-key", t["deal_keys"]["2"]])
        assert wrong.exit_code == 1 and "does not belong" in wrong.stdout

        # An open duplicate tournament: a player enters with its own entropy (tournament enter --entropy).
        args = ["tournament", "create", "Open dup", "--open", "--duplicate", "--rule", "target=30"]
        opened = runner(None).invoke(app, [*args, "--url", url, "--token", TOKEN])
        assert opened.exit_code == 0, opened.output
        open_id = opened.stdout.split()[2]
        me = httpx.post(f"{url}/api/players", json={"name": "Ada"}).json()
        entered = runner(None).invoke(
            app, ["tournament", "enter", open_id, "--entropy", "ada's dice", "--url", url, "--token", me["token"]]
        )
        assert entered.exit_code == 0, entered.output
        director = ["--url", url, "--token", TOKEN]
        assert runner(None).invoke(app, ["tournament", "enter", open_id, "-p", "bot:greedy", *director]).exit_code == 0
        assert runner(None).invoke(app, ["tournament", "start", open_id, *director]).exit_code == 0
        withdrawn = runner(None).invoke(app, ["tournament", "withdraw", open_id, "Ada", *director])
        assert withdrawn.exit_code == 0, withdrawn.output
        assert finished(url, open_id)["entropies"] == {me["id"]: "ada's dice"}
        checked = runner(None).invoke(app, ["tournament", "deals", open_id, "--url", url])
        assert checked.exit_code == 0 and "all 1 deal keys follow" in checked.stdout, checked.output
    finally:
        output = stop(process)
    assert "Traceback" not in output, output


def standing(rank: int, name: str, same_deal: float | None) -> dict[str, Any]:
    return {
        "rank": rank,
        "player": f"p{rank}",
        "name": name,
        "played": 5,
        "won": 3,
        "lost": 2,
        "byes": 0,
        "forfeits": 0,
        "points_for": 321,
        "points_against": 123,
        "withdrawn": False,
        "score": 3,
        "tiebreaks": {"match_wins": 3, "head_to_head": 0, "sonneborn_berger": 7, "lot": rank},
        "decided_by": "sonneborn_berger",
        "same_deal": same_deal,
    }


def duplicate_tournament(kind: str) -> dict[str, Any]:
    names = ["a-name-of-twenty-ch", "bea", "cy", "dee"]
    return {
        "id": "t_1",
        "name": "Dup",
        "status": "finished",
        "format": kind,
        "ruleset": "uno-duo",
        "rules": {},
        "duplicate": True,
        "players": [{"id": f"p{i}", "name": n, "kind": "human"} for i, n in enumerate(names, start=1)],
        "standings": [standing(i, n, [62.5, 50.0, None, 37.5][i - 1]) for i, n in enumerate(names, start=1)],
        "rounds": [],
        "rounds_planned": 3,
    }


def test_the_sd_column_fits_80_columns_in_both_tables() -> None:
    for kind in ("round_robin", "swiss"):
        buffer = io.StringIO()
        print_show(Console(file=buffer, width=80, color_system=None), duplicate_tournament(kind), ["Dup"])
        lines = buffer.getvalue().splitlines()
        assert max(len(line.rstrip()) for line in lines) <= 80, kind
        assert any("62.5" in line for line in lines) and any("—" in line and "cy" in line for line in lines)


def test_the_tournament_screen_shows_sd_before_the_deciding_column() -> None:
    for kind in ("round_robin", "swiss"):
        t = duplicate_tournament(kind)
        for full in (False, True):
            columns = standings_columns(t, full)
            assert columns[-2] == ("same_deal", "SD")
            cells = standings_cells(t, full)
            assert [row[-2] for row in cells] == ["62.5", "50.0", "–", "37.5"]
            assert all(len(row) == len(columns) for row in cells)
        assert "SD same deal %" in standings_legend(t)
        t["duplicate"] = False
        assert ("same_deal", "SD") not in standings_columns(t, False)
