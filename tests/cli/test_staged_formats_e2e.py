"""A table knockout and pools into a bracket against a real ``unoduo serve`` (issue 36): created
with ``unoduo tournament create --bot-accounts``, run to the end by house bots and one
bring-your-own bot (``examples/bot.py`` on its own bot account, seed 1), every match's replay
verified. The bring-your-own bot plays each of its matches itself (a classic table of 4 in the
first), refuses nothing and leaves when the tournament finishes.

- 31 house bots and the bot at tables of 4, the top 2 of each going on: 8 tables, 4, 2, then the
  final table; classic with ``round_limit=1`` (one hand a table), so the run is short.
- 15 house bots and the bot in round-robin pools of 4, the top 2 of each into a bracket of 8:
  3 pools rounds, then 3 bracket rounds; uno-duo to 50.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import re
import subprocess
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner, Result

from cli.main import app
from engine.fairness.verify import verify_replay
from engine.game.seat_names import player_label
from tests.cli.serving import running
from tests.cli.test_bot_example_e2e import _bot, _exited
from tests.cli.test_tournament_cmd import finished
from tests.server.helpers import ok

TOKEN = "director-token-for-the-staged-e2e"


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running(tmp_path_factory.mktemp("staged_e2e") / "x.sqlite3", clean=True, UNODUO_DIRECTOR_TOKEN=TOKEN) as url:
        yield url


def unoduo(*args: str, url: str) -> Result:
    env = {"UNODUO_URL": None, "UNODUO_DIRECTOR_TOKEN": None, "FORCE_COLOR": None, "TTY_COMPATIBLE": None}
    runner = CliRunner(env={**env, "COLUMNS": "80", "TZ": "UTC"})
    return runner.invoke(app, ["tournament", *args, "--url", url, "--token", TOKEN])


def created(result: Result) -> str:
    assert result.exit_code == 0, result.output
    return result.stdout.split()[2]


def entries(own: str, count: int) -> list[str]:
    """``-p`` options: the bot account ``own`` first (seed 1), then house bots to ``count`` in all."""
    house = ("bot:greedy" if i % 2 else "bot:random" for i in range(1, count))
    return [arg for name in (own, *house) for arg in ("-p", name)]


def register(base: str, name: str) -> dict[str, Any]:
    """A bot account of ``name`` (its token shown this once), as a bring-your-own bot registers."""
    with httpx.Client(base_url=base, timeout=30.0) as client:
        account: dict[str, Any] = ok(client.post("/api/players", json={"name": name, "bot": True}), 201)
    return account


@contextlib.contextmanager
def playing(base: str, account: dict[str, Any], log: Path) -> Iterator[subprocess.Popen[str]]:
    """``examples/bot.py --once`` on ``account``'s token, started after the tournament (round 1 is
    open: it finds its match in the lobby's first ``state``); killed afterwards if still there."""
    process = _bot(base, log=log, token=account["token"])
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def played_by_itself(base: str, t: dict[str, Any], account: dict[str, Any], output: str) -> list[dict[str, Any]]:
    """The bot account's pairings in ``t``, each one it played itself: seated in the replay under
    its ``[bot]`` name, no move of its left to the clock, nothing refused. Its output is clean."""
    assert "refused" not in output and "Traceback" not in output, output
    assert output.count("finished") == 1, output
    own = [p for r in t["rounds"] for p in r["pairings"] if account["id"] in [s["id"] for s in p["seats"]]]
    with httpx.Client(base_url=base, timeout=30.0) as client:
        for p in own:
            lines = [json.loads(line) for line in client.get(f"/api/matches/{p['match']}/replay").text.splitlines()]
            seat = [s["id"] for s in p["seats"]].index(account["id"])
            assert lines[1]["data"]["names"][seat] == f"{account['name']} [bot]"
            assert not any(line.get("type") in ("timed_out", "match_forfeited") for line in lines), p["node"]
    return own


def every_replay_verifies(base: str, t: dict[str, Any]) -> int:
    """Each match of ``t`` (its pairings' matches) checked by ``verify``: the chain, every
    commitment opened, every decision re-run. How many were checked."""
    matches = [p["match"] for r in t["rounds"] for p in r["pairings"] if p.get("match")]
    with httpx.Client(base_url=base, timeout=30.0) as client:
        for match_id in matches:
            reply = client.get(f"/api/matches/{match_id}/replay")
            assert reply.status_code == 200, reply.text
            report = verify_replay(reply.text)
            assert report.ok, (match_id, report.line, report.failure)
    return len(matches)


def top(table: dict[str, Any], advance: int) -> list[str]:
    """A decided table's first ``advance`` players, equal places by seat order (the better seed)."""
    places = table["result"]["places"]
    order = sorted(range(len(places)), key=lambda i: (places[i], i))
    return [table["seats"][i]["id"] for i in order[:advance]]


def shown_at_80(base: str, tournament_id: str) -> list[str]:
    """``unoduo tournament show`` at 80 columns: its lines, every one within 80."""
    shown = unoduo("show", tournament_id, url=base)
    assert shown.exit_code == 0, shown.output
    lines = [line.rstrip() for line in shown.stdout.splitlines()]
    assert max(len(line) for line in lines) <= 80, "\n".join(line for line in lines if len(line) > 80)
    return lines


def test_thirty_two_bots_at_tables_of_four_top_two_go_on(base: str, tmp_path: Path) -> None:
    account = register(base, "table-bot")
    made = unoduo(
        *("create", "Table knockout", *entries("table-bot", 32), "--ruleset", "classic", "--rule", "round_limit=1"),
        *("--format", "table_knockout", "--table-size", "4", "--advance", "2", "--bot-accounts", "--start"),
        url=base,
    )
    with playing(base, account, tmp_path / "table-bot.log") as bot:
        t = finished(base, created(made))
        output = _exited(bot, tmp_path / "table-bot.log")
    tables = [r["pairings"] for r in t["rounds"] if r["pairings"]]
    assert [len(r) for r in tables] == [8, 4, 2, 1]
    assert all(len(p["seats"]) == 4 for r in tables for p in r)
    assert [p["node"] for p in tables[0]] == [f"T1-{i}" for i in range(1, 9)] and tables[3][0]["node"] == "F"
    for earlier, later in itertools.pairwise(tables):
        assert {s["id"] for p in later for s in p["seats"]} == {q for p in earlier for q in top(p, 2)}
    places = {row["player"]: row["place"] for row in t["places"]}
    assert sorted(places) == sorted(p["id"] for p in t["players"])
    final = tables[3][0]
    assert [places[q] for q in top(final, 4)] == [1, 2, 3, 4]
    assert Counter(places.values()) == {1: 1, 2: 1, 3: 1, 4: 1, 5: 2, 7: 2, 9: 4, 13: 4, 17: 8, 25: 8}
    assert every_replay_verifies(base, t) == 15
    own = played_by_itself(base, t, account, output)
    assert own[0]["node"] == "T1-1" and len(own[0]["seats"]) == 4  # a classic table of 4
    assert len(own) == 1 + sum(account["id"] in top(p, 2) for r in tables[:3] for p in r)
    lines = shown_at_80(base, t["id"])
    assert "Final table" in lines and any(line.startswith("  F ") for line in lines)


def test_sixteen_bots_in_pools_of_four_into_a_bracket_of_eight(base: str, tmp_path: Path) -> None:
    account = register(base, "pools-bot")
    made = unoduo(
        *("create", "Pools night", *entries("pools-bot", 16), "--rule", "target=50", "--format", "pools"),
        *("--pool-size", "4", "--advance", "2", "--pool-format", "round_robin", "--bracket", "single_elimination"),
        *("--bot-accounts", "--start"),
        url=base,
    )
    with playing(base, account, tmp_path / "pools-bot.log") as bot:
        t = finished(base, created(made))
        output = _exited(bot, tmp_path / "pools-bot.log")
    rounds = [r["pairings"] for r in t["rounds"] if r["pairings"]]
    assert [len(r) for r in rounds] == [8, 8, 8, 4, 2, 1]
    assert {p["node"] for r in rounds[:3] for p in r} == {"pool-A", "pool-B", "pool-C", "pool-D"}
    pool_of = {s["id"]: p["node"] for r in rounds[:3] for p in r for s in p["seats"]}
    for p in rounds[3]:  # the bracket's first round: never two players of one pool
        assert pool_of[p["seats"][0]["id"]] != pool_of[p["seats"][1]["id"]]
    places = {row["player"]: row["place"] for row in t["places"]}
    assert Counter(places.values()) == {1: 1, 2: 1, 3: 2, 5: 4, 9: 4, 13: 4}
    assert every_replay_verifies(base, t) == 8 * 3 + 4 + 2 + 1
    own = played_by_itself(base, t, account, output)
    assert [p["node"] for p in own[:3]] == [pool_of[account["id"]]] * 3  # its pool's three matches
    assert len(own) - 3 == {1: 3, 2: 3, 3: 2, 5: 1, 9: 0, 13: 0}[places[account["id"]]]
    lines = shown_at_80(base, t["id"])
    for pool in t["pools"]:  # each pool's table, in standing order
        names = {p["id"]: player_label(p["name"], p["kind"]) for p in t["players"]}
        line = next(x for x in lines if x.strip().startswith(f"pool {pool['pool']}:"))
        assert [names[q] for q in pool["players"]] == re.findall(r"(\S+(?: \[bot\])?) \d+–\d+", line), line
