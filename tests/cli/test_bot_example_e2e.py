"""Bring-your-own bots for real (issue 23, docs/BOTS.md): ``examples/bot.py`` as two processes
against ``unoduo serve``, in a round robin with two house bots (``bot_accounts: true``).

The director makes the tournament with ``unoduo tournament create --bot-accounts`` (refused
without it) and reads it with ``tournament show``. One bot registers its own account (``--name``, ``--token-file``) and is running before the
tournament starts (its pairings come as lobby messages); the other is registered by the test and
started once round 1 is open (it finds that match in the lobby's first ``state``). Both play every
match to its end — no forfeit, no timeout, no refused command — and leave by themselves when the
tournament finishes (``--once``); every replay verifies and names the bot accounts with ``[bot]``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from typer.testing import Result

from bench.progress import STALL_SECONDS, Stall
from cli.main import app
from engine.fairness.verify import verify_replay
from tests.cli.serving import ROOT, serve_env, stop
from tests.cli.test_tournament_cmd import runner
from tests.cli.test_tournament_e2e import POLL, TOKEN, _replay, _start, _wait_finished
from tests.server.helpers import ok

BOT = ROOT / "examples" / "bot.py"


def _bot(base: str, *args: str, log: Path, token: str | None = None) -> subprocess.Popen[str]:
    env = serve_env(**({"UNODUO_BOT_TOKEN": token} if token else {}))
    with log.open("w") as out:
        return subprocess.Popen(
            [sys.executable, str(BOT), "--server", base, "--once", *args],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
        )


def _cli(base: str, *args: str) -> Result:
    return runner.invoke(app, ["tournament", *args, "--url", base, "--token", TOKEN])


def _registered(client: httpx.Client, name: str, process: subprocess.Popen[str], log: Path) -> dict[str, Any]:
    """The player ``name`` once the bot process has registered it (it fails at once if the bot exits)."""
    stall = Stall()
    while True:
        found = client.get(f"/api/players/{name}")
        if found.status_code == 200:
            player: dict[str, Any] = found.json()
            return player
        assert process.poll() is None, f"the bot exited: {log.read_text()}"
        assert not stall.stuck, f"the bot registered nobody: {log.read_text()}"
        time.sleep(POLL)


def _exited(process: subprocess.Popen[str], log: Path) -> str:
    """The bot's output once it has left by itself (``--once``); the wait is only a guard."""
    try:
        process.wait(timeout=STALL_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        raise AssertionError(f"the bot did not leave after the tournament: {log.read_text()}") from None
    output = log.read_text()
    assert process.returncode == 0, output
    return output


def test_two_example_bots_play_a_whole_round_robin_through_the_real_server(tmp_path: Path) -> None:
    server, base = _start(tmp_path / "bots.sqlite3")
    bots: list[subprocess.Popen[str]] = []
    logs = {"ada": tmp_path / "ada.log", "bob": tmp_path / "bob.log"}
    token_file = tmp_path / "ada.token"
    try:
        with httpx.Client(base_url=base, timeout=30.0) as client:
            bots.append(_bot(base, "--name", "ada-bot", "--token-file", str(token_file), log=logs["ada"]))
            ada = _registered(client, "ada-bot", bots[0], logs["ada"])
            assert ada["kind"] == "bot_account" and token_file.read_text().strip()
            assert token_file.stat().st_mode & 0o077 == 0  # the token is the account: the owner's alone
            bob = ok(client.post("/api/players", json={"name": "bob-bot", "bot": True}), 201)
            entries = ["-p", "ada-bot", "-p", "bob-bot", "-p", "bot:greedy", "-p", "bot:random", "--rule", "target=60"]
            off = _cli(base, "create", "no robots", *entries)
            assert off.exit_code != 0 and "ada-bot is a bot account" in off.output, off.output
            made = _cli(base, "create", "robots' night", *entries, "--bot-accounts", "--start")
            assert made.exit_code == 0 and "bot accounts may enter" in made.output, made.output
            assert "ada-bot [bot]" in made.output and "greedy [bot]" not in made.output and "greedy" in made.output
            tournament_id = made.output.split("created tournament ", 1)[1].split()[0]
            bots.append(_bot(base, log=logs["bob"], token=bob["token"]))  # round 1 is open already

            t = _wait_finished(client, tournament_id)
            assert t["bot_accounts"] is True and len(ok(client.get("/api/tournaments"))) == 1
            shown = _cli(base, "show", tournament_id)
            assert shown.exit_code == 0 and "ada-bot [bot]" in shown.output and "bob-bot [bot]" in shown.output
            trf = client.get(f"/api/tournaments/{tournament_id}/trf").text
            assert "ada-bot [bot]" in trf and "greedy [bot]" not in trf and "greedy" in trf
            outputs = [_exited(process, logs[who]) for process, who in zip(bots, ("ada", "bob"), strict=True)]

            accounts = {ada["id"]: "ada-bot [bot]", bob["id"]: "bob-bot [bot]"}
            played = {player: 0 for player in accounts}
            for r in t["rounds"]:
                assert r["status"] == "finished" and r["bye"] is None
                for pairing in r["pairings"]:
                    seats = [pairing["white"]["id"], pairing["black"]["id"]]
                    assert pairing["result"]["reason"] == "played", pairing
                    if not set(seats) & set(accounts):
                        continue
                    text = _replay(client, pairing["match"])
                    report = verify_replay(text)
                    assert report.ok, (pairing["match"], report.line, report.failure)
                    lines = [json.loads(line) for line in text.splitlines()]
                    names = lines[1]["data"]["names"]
                    assert [accounts.get(s, n) for s, n in zip(seats, names, strict=True)] == names
                    assert not any(line.get("type") == "timed_out" for line in lines), "a bot let its clock run out"
                    for seat in seats:
                        played[seat] = played.get(seat, 0) + 1
            assert [played[player] for player in accounts] == [3, 3]  # everyone once, every match played
            for output in outputs:
                assert "refused" not in output and "Traceback" not in output, output
            assert "registered ada-bot" in outputs[0] and "bot_account" in outputs[0]
            assert outputs[0].count("finished") == outputs[1].count("finished") == 1
    finally:
        for process in bots:
            if process.poll() is None:
                process.kill()
                process.wait()
        stop(server)
