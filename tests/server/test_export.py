"""``unoduo export --match ID --db URL``: the replay straight from the database, on both databases."""

from __future__ import annotations

import random
from pathlib import Path

from fastapi.testclient import TestClient
from typer.testing import CliRunner

from cli.main import app
from engine.fairness.verify import verify_replay
from tests.server.helpers import ok, play_to_end, register

runner = CliRunner()


def test_export_writes_the_same_replay_as_the_api_and_refuses_what_it_cannot(
    client: TestClient, url: str, tmp_path: Path
) -> None:
    _, headers = register(client, "ada")
    match_id = ok(client.post("/api/matches", headers=headers, json={"opponent": "bot:greedy"}), 201)["id"]
    live = runner.invoke(app, ["export", "--match", match_id, "--db", url])
    assert live.exit_code == 1 and "still live" in live.output
    ok(client.post(f"/api/matches/{match_id}/join", headers=headers, json={"entropy": "e"}))
    play_to_end(client, match_id, headers, 0, random.Random(3))
    out = tmp_path / "m.jsonl"
    result = runner.invoke(app, ["export", "--match", match_id, "--db", url, "-o", str(out)])
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    assert text == client.get(f"/api/matches/{match_id}/replay").text
    assert verify_replay(text).ok
    unknown = runner.invoke(app, ["export", "--match", "m_nope", "--db", url])
    assert unknown.exit_code == 1 and "no match" in unknown.output
    missing = runner.invoke(app, ["export", "--match", match_id, "--db", str(tmp_path / "none.sqlite3")])
    assert missing.exit_code == 1 and "no database" in missing.output
