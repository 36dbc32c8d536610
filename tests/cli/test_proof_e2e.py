"""``unoduo proof`` against a real ``unoduo serve``: a player challenges a house bot's Wild Draw
Four during a match; with the token ``unoduo play`` saved, ``unoduo proof MATCH`` writes the
proof of that challenge from the server's events as the player received them, while the match
is still live, and tools/proof_check.py (run alone, as a third party would) accepts it."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import httpx
from typer.testing import CliRunner

from cli.main import app
from tests.cli.serving import ROOT, free_port, serve, stop, wait_until_up
from tests.server.helpers import ok, register, shedding, with_color
from tui_client.connection.config import ConfigStore, Credentials

runner = CliRunner(env={"UNODUO_URL": None, "UNODUO_TOKEN": None, "COLUMNS": "200"})


def play_to_a_challenge(client: httpx.Client, headers: dict[str, str], rng: random.Random) -> tuple[str, int, int]:
    """Casual matches against a greedy bot, always challenging its Wild Draw Four, until one is
    challenged: (match, the challenge's seq, the player's seat)."""
    for _attempt in range(6):
        match = ok(client.post("/api/matches", headers=headers, json={"opponent": "bot:greedy"}), 201)["id"]
        ok(client.post(f"/api/matches/{match}/join", headers=headers, json={"entropy": "proof"}))
        seen = ok(client.get(f"/api/matches/{match}", headers=headers))["view"]
        for step in range(3000):
            if seen["phase"] == "match_over":
                break
            legal = seen["legal"]
            challenge = [c for c in legal if c["type"] == "challenge"]
            command = challenge[0] if challenge else with_color(rng.choice(shedding(legal)), rng)
            body = ok(
                client.post(
                    f"/api/matches/{match}/commands",
                    headers=headers,
                    json={"command_id": f"c-{step}", "expected_version": seen["version"], "command": command},
                )
            )
            seen = body["view"]
            for event in body["events"]:
                ours = event["type"] == "challenge_resolved" and event["data"]["by"] == seen["viewer"]
                if ours and seen["phase"] != "match_over":  # the bot may challenge ours: not that one
                    return match, int(event["seq"]), int(seen["viewer"])
    raise AssertionError("no Wild Draw Four to challenge in six matches")


def test_a_challenger_proves_the_challenge_while_the_match_is_live(tmp_path: Path) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    process = serve("--port", str(port), "--db", f"sqlite:///{tmp_path / 'proof.sqlite3'}")
    try:
        wait_until_up(base, process)
        with httpx.Client(base_url=base, timeout=10.0) as client:
            player_id, headers = register(client, "ann")
            token = headers["Authorization"].removeprefix("Bearer ")
            ConfigStore(base, tmp_path).save_credentials(Credentials(base, player_id, "ann", token))
            match, seq, seat = play_to_a_challenge(client, headers, random.Random(25))
            assert ok(client.get(f"/api/matches/{match}", headers=headers))["view"]["phase"] != "match_over"
            out = tmp_path / "proof.json"
            result = runner.invoke(
                app, ["proof", match, "--server", base, "--config-dir", str(tmp_path), "-o", str(out)]
            )
            assert result.exit_code == 0, result.output
            assert f"proof of #{seq} challenge_resolved" in result.output
            checked = subprocess.run(
                [sys.executable, "-I", str(ROOT / "tools" / "proof_check.py"), str(out), "--match", match],
                capture_output=True,
                text=True,
                cwd=tmp_path,
                check=False,
            )
            assert checked.returncode == 0, checked.stdout + checked.stderr
            assert checked.stdout.startswith(f"proof ok: match {match} #{seq} challenge_resolved")
            assert f"seat {1 - seat}'s hand of" in checked.stdout  # the hand judged is the bot's
            # A spectator's copy of the same log holds no opening of the hand: it cannot make the proof.
            nobody = tmp_path / "spectator"
            spectator = [
                "proof",
                match,
                "--server",
                base,
                "--config-dir",
                str(nobody),
                "--seq",
                str(seq),
                "-o",
                str(out),
            ]
            refused = runner.invoke(app, spectator)
            assert refused.exit_code == 1 and "only the challenger" in refused.output
    finally:
        output = stop(process)
    assert "Traceback" not in output, output
