"""A timed Swiss round (RULES.md D26, docs/TOURNAMENTS.md "Timed rounds") through a real
``unoduo serve``: created by ``unoduo tournament create --round-minutes``, a bring-your-own
client's seat that joins and waits (a hand is in play), time called in its match at the round's
deadline, the hand then finished by the client, the match ended on its totals, the tournament
going on to its next round (where the director calls time early, ``unoduo tournament
call-time``) and its end, ``unoduo tournament show`` saying so, and every replay verified."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from bench.progress import Stall
from cli.main import app
from engine.fairness.verify import verify_replay
from tests.cli.serving import running
from tests.cli.test_tournament_cmd import finished
from tests.server.helpers import ok, play_to_end, register

TOKEN = "director-token-for-the-timed-e2e"
DIRECTOR = {"Authorization": f"Bearer {TOKEN}"}
ROUND_MINUTES = "0.2"  # 12 s a round: the waiting seat's hand is surely in play when time is called


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running(tmp_path_factory.mktemp("timed_e2e") / "x.sqlite3", clean=True, UNODUO_DIRECTOR_TOKEN=TOKEN) as url:
        yield url


def match_view(http: httpx.Client, match_id: str, headers: dict[str, str]) -> dict[str, Any]:
    return ok(http.get(f"/api/matches/{match_id}", headers=headers))["view"]  # type: ignore[no-any-return]


def time_called_in(http: httpx.Client, match_id: str, headers: dict[str, str]) -> dict[str, Any]:
    """The seat's view once time has been called in its match; fails only when nothing comes for the
    stall window (longer than a round here)."""
    stall = Stall()
    while not stall.stuck:
        seen = match_view(http, match_id, headers)
        if seen["time_called"] is not None:
            return seen
        stall.moved(seen["version"])
        time.sleep(0.2)
    raise AssertionError(f"time was never called in {match_id}")


def my_match(t: dict[str, Any], player: str, number: int) -> tuple[str, int]:
    pairing = next(p for p in t["rounds"][number - 1]["pairings"] if player in (p["white"]["id"], p["black"]["id"]))
    return pairing["match"], 0 if pairing["white"]["id"] == player else 1


def round_open(http: httpx.Client, tournament_id: str, number: int) -> dict[str, Any]:
    stall = Stall()
    while not stall.stuck:
        t = ok(http.get(f"/api/tournaments/{tournament_id}"))
        if len(t["rounds"]) >= number and t["rounds"][number - 1]["status"] != "pending":
            return t  # type: ignore[no-any-return]
        stall.moved(repr(t["rounds"]))
        time.sleep(0.2)
    raise AssertionError(f"round {number} of {tournament_id} never opened")


def test_a_timed_swiss_round_calls_time_mid_hand_and_goes_on(base: str) -> None:
    with httpx.Client(base_url=base, timeout=30) as http:
        ada, ada_h = register(http, "ada")
        runner = CliRunner(env={"UNODUO_URL": None, "UNODUO_DIRECTOR_TOKEN": None, "COLUMNS": "80", "TZ": "UTC"})
        made = runner.invoke(
            app,
            [
                *("tournament", "create", "Timed night", "-p", "ada", "-p", "bot:greedy", "-p", "bot:random"),
                *("-p", "bot:greedy", "--rule", "target=500", "--format", "swiss", "--rounds", "2"),
                *("--round-minutes", ROUND_MINUTES, "--start", "--url", base, "--token", TOKEN),
            ],
        )
        assert made.exit_code == 0, made.output
        assert "timed:    12 s a round, then time is called (D26)" in made.stdout
        tournament_id = made.stdout.split()[2]

        # Round 1: the client joins and waits; its hand is in play when the round runs out.
        t = round_open(http, tournament_id, 1)
        deadline = t["rounds"][0]["deadline"]
        match_id, seat = my_match(t, ada, 1)
        joined = ok(http.post(f"/api/matches/{match_id}/join", headers=ada_h, json={"entropy": "ada-1"}))["view"]
        assert joined["phase"] in ("draft", "play") and joined["time_called"] is None
        seen = time_called_in(http, match_id, ada_h)
        assert seen["time_called"] == deadline and seen["phase"] in ("draft", "play")  # mid-hand
        assert seen["round"] == joined["round"] == 1  # the hand it was called in
        spectator = match_view(http, match_id, {})
        assert spectator["time_called"] == deadline
        final, _ = play_to_end(http, match_id, ada_h, seat, random.Random(1))
        scores = final["scores"]
        assert max(scores) < 500 and scores.count(min(scores)) == 1  # ended on its totals: the lowest wins
        assert final["winner"] == scores.index(min(scores))

        # Round 2 opens once round 1 is decided (the bots' match was called too, or ended first).
        t = round_open(http, tournament_id, 2)
        assert t["rounds"][0]["time_called"] == deadline
        called = {m["id"]: m["time_called"] for m in t["rounds"][0]["matches"]}
        assert called[match_id] == deadline
        match_id, seat = my_match(t, ada, 2)
        ok(http.post(f"/api/matches/{match_id}/join", headers=ada_h, json={"entropy": "ada-2"}))
        # Round 2: the director calls time before the deadline (unoduo tournament call-time).
        called = runner.invoke(app, ["tournament", "call-time", tournament_id, "--url", base, "--token", TOKEN])
        assert called.exit_code == 0, called.output
        assert called.stdout.startswith(f"time called in {tournament_id} (Timed night): round 2 at "), called.stdout
        assert match_view(http, match_id, ada_h)["time_called"] is not None
        final, _ = play_to_end(http, match_id, ada_h, seat, random.Random(2))
        if max(final["scores"]) < 500:  # the totals decided it (a first hand of 500 would have, too)
            assert final["winner"] == final["scores"].index(min(final["scores"]))

        t = finished(base, tournament_id)
        assert [r["deadline"] is not None for r in t["rounds"]] == [True, True]
        shown = runner.invoke(app, ["tournament", "show", tournament_id, "--url", base])
        assert shown.exit_code == 0, shown.output
        lines = [line.rstrip() for line in shown.stdout.splitlines()]
        assert max(len(line) for line in lines) <= 80
        for number in (1, 2):
            assert any(line.startswith(f"Round {number} · finished · time called") for line in lines), shown.stdout
        assert t["rounds"][1]["time_called"] < t["rounds"][1]["deadline"]  # the director's call came first
        for rnd in t["rounds"]:
            for summary in rnd["matches"]:
                replay = http.get(f"/api/matches/{summary['id']}/replay")
                assert replay.status_code == 200, replay.text
                report = verify_replay(replay.text)
                assert report.ok, (summary["id"], report.failure)
