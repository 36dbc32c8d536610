"""``unoduo proof``: from a finished match's replay, and from a running server as a player (the
events as the server sends that player, with the token ``unoduo play`` saved); the file written
checks with tools/proof_check.py; events that cannot be proved, and a seat that does not hold the
challenged hand, are refused in words."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

import cli.proof_cmd
from cli.main import app
from cli.tournament_cmd import Server
from engine.record.sealing import Viewer
from tests.engine.test_proofs import (
    judged_legal,
    of_type,
    proof_check,
    scenario_match,
    sealed,
    seen_by,
    wrong_server_log,
)
from tui_client.connection.config import ConfigStore, Credentials

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "replays" / "sim-2026-uno-duo-16-greedy-vs-random.jsonl"
URL = "http://127.0.0.1:8765"
runner = CliRunner(env={"UNODUO_URL": None, "UNODUO_TOKEN": None, "COLUMNS": "200"})


def test_a_proof_from_a_replay_is_written_and_checks(tmp_path: Path) -> None:
    out = tmp_path / "p.json"
    result = runner.invoke(app, ["proof", "--replay", str(SAMPLE), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"wrote {out}: proof of #415 challenge_resolved (D13: legal), 415 public events")
    assert "python3 tools/proof_check.py" in result.output
    assert proof_check.check(out.read_text(encoding="utf-8"), replay=str(SAMPLE)).startswith("proof ok")
    lines = [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines()[1:]]
    caught = of_type(lines, "uno_caught")["seq"]
    result = runner.invoke(app, ["proof", "--replay", str(SAMPLE), "--seq", str(caught), "-o", str(out)])
    assert result.exit_code == 0 and f"proof of #{caught} uno_caught (D14: caught)" in result.output
    assert json.loads(out.read_text(encoding="utf-8"))["open"] == {}


def test_what_cannot_be_proved_is_refused_in_one_line(tmp_path: Path) -> None:
    out = tmp_path / "p.json"
    refused = runner.invoke(app, ["proof", "--replay", str(SAMPLE), "--seq", "5", "-o", str(out)])
    assert refused.exit_code == 1 and not out.exists()
    assert refused.output.startswith("unoduo proof: event #5 (cut) cannot be proved on its own")
    both = runner.invoke(app, ["proof", "m1", "--replay", str(SAMPLE), "-o", str(out)])
    assert both.exit_code == 2 and "one of the two" in both.output
    neither = runner.invoke(app, ["proof", "-o", str(out)])
    assert neither.exit_code == 2
    missing = runner.invoke(app, ["proof", "--replay", str(tmp_path / "none.jsonl"), "-o", str(out)])
    assert missing.exit_code == 2 and "cannot read" in missing.output


def served(monkeypatch: pytest.MonkeyPatch, viewer: Viewer) -> list[dict[str, Any]]:
    """The server's events endpoint, answering as it would to ``viewer``; the requests it got."""
    match, seed = scenario_match("d13_illegal_no_playable.json")
    body = "".join(json.dumps(e) + "\n" for e in seen_by(sealed(match, seed, "m1"), viewer))
    asked: list[dict[str, Any]] = []

    def answer_to(server: Server, method: str, path: str, body_: Any = None, params: Any = None) -> httpx.Response:
        asked.append({"url": server.url, "token": server.token, "method": method, "path": path, "params": params})
        return httpx.Response(200, text=body, request=httpx.Request(method, server.url + path))

    monkeypatch.setattr(cli.proof_cmd, "answer_to", answer_to)
    return asked


def test_a_proof_from_the_server_as_the_challenger(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    asked = served(monkeypatch, 0)
    ConfigStore(URL, tmp_path).save_credentials(Credentials(URL, "p_ann", "ann", "token-of-ann"))
    out = tmp_path / "challenge.json"
    result = runner.invoke(app, ["proof", "m1", "--server", URL, "--config-dir", str(tmp_path), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert asked == [
        {
            "url": URL,
            "token": "token-of-ann",
            "method": "GET",
            "path": "/api/matches/m1/events",
            "params": {"since": "0"},
        }
    ]
    assert "proof of #54 challenge_resolved (D13: illegal), 54 public events, 2 field(s) opened" in result.output
    words = proof_check.check(out.read_text(encoding="utf-8"), match="m1")
    assert "illegal — seat 1's hand of 6 held G5" in words


def test_the_challenged_seat_cannot_make_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    asked = served(monkeypatch, 1)
    out = tmp_path / "p.json"
    result = runner.invoke(app, ["proof", "m1", "--server", URL, "--token", "token-of-bob", "-o", str(out)])
    assert result.exit_code == 1 and not out.exists()
    assert "only the challenger (seat 0) is sent the challenged hand during play (D13)" in result.output
    assert asked[0]["token"] == "token-of-bob"


def test_a_wrong_ruling_is_written_and_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server judged legal a hand that held G5: the proof is written all the same, with the
    rules' verdict, and the command says the log disagrees; the checker exits 3."""
    log = wrong_server_log("d13_illegal_no_playable.json", judged_legal)
    body = "".join(json.dumps(e) + "\n" for e in seen_by(log, 0))

    def answer_to(server: Server, method: str, path: str, body_: Any = None, params: Any = None) -> httpx.Response:
        return httpx.Response(200, text=body, request=httpx.Request(method, server.url + path))

    monkeypatch.setattr(cli.proof_cmd, "answer_to", answer_to)
    out = tmp_path / "wrong.json"
    result = runner.invoke(app, ["proof", "m1", "--server", URL, "--token", "t", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "(D13: illegal) — the log recorded legal: its ruling breaks the rules" in result.output
    with pytest.raises(proof_check.Contradicted, match="RULING CONTRADICTED"):
        proof_check.check(out.read_text(encoding="utf-8"))
