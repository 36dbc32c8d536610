"""`unoduo verify`: an auditor re-checks a replay with no trust in the server (FAIRNESS.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cli.main import app
from engine import UNO_DUO
from engine.chain import seal
from engine.chain import ZERO_HASH
from engine.verify import Receipt, verify_replay
from tests.engine.playing import play_match, short

runner = CliRunner()


def envelopes_of(events: list[Any], stream: str = "match-1") -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    prev = ZERO_HASH
    for seq, event in enumerate(events, start=1):
        env = seal(stream, seq, event.type, json.loads(json.dumps(event.data)), f"2026-11-29T20:00:{seq % 60:02d}Z", prev)
        out.append(env)
        prev = env["hash"]
    return out


def replay_text(envelopes: list[dict[str, Any]]) -> str:
    header = {"format": "unoduo-replay", "version": 1, "match": "1", "ruleset": "uno-duo",
              "players": ["a", "b"], "engine": "test"}
    return "\n".join(json.dumps(x) for x in [header, *envelopes]) + "\n"


def reseal(envelopes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What a dishonest server would do: rewrite, then recompute every hash after the edit."""
    out: list[dict[str, Any]] = []
    prev = ZERO_HASH
    for env in envelopes:
        new = seal(env["stream"], env["seq"], env["type"], env["data"], env["at"], prev)
        out.append(new)
        prev = new["hash"]
    return out


@pytest.fixture(scope="module")
def finished() -> list[dict[str, Any]]:
    return envelopes_of(play_match(21, short(UNO_DUO, 60), 0.85).events)


def test_an_honest_replay_verifies(finished: list[dict[str, Any]], tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    path.write_text(replay_text(finished))
    receipt = f"{finished[10]['seq']}:{finished[10]['hash']}"
    result = runner.invoke(app, ["verify", str(path), "--receipt", receipt])
    assert result.exit_code == 0, result.output
    assert "verified" in result.output and "receipt 11: present" in result.output


def test_an_edited_event_breaks_the_chain_at_its_line(finished: list[dict[str, Any]]) -> None:
    edited = [dict(e) for e in finished]
    edited[30]["data"] = {**edited[30]["data"], "seat": 1 - edited[30]["data"].get("seat", 0)}
    report = verify_replay(replay_text(edited))
    assert not report.ok and report.line == 32 and "seq 31" in (report.failure or "")


def test_a_rewritten_deck_is_caught_by_the_shuffle_re_run(finished: list[dict[str, Any]]) -> None:
    forged = [dict(e) for e in finished]
    index = next(i for i, e in enumerate(forged) if e["type"] == "round_started")
    deck = list(forged[index]["data"]["deck"])
    deck[0], deck[1] = deck[1], deck[0]
    forged[index]["data"] = {**forged[index]["data"], "deck": deck}
    report = verify_replay(replay_text(reseal(forged)))
    assert not report.ok and report.line is not None and report.line <= index + 2
    assert "rules give" in (report.failure or "")


def test_a_forged_challenge_verdict_or_score_is_caught(finished: list[dict[str, Any]]) -> None:
    forged = [dict(e) for e in finished]
    index = next(i for i, e in enumerate(forged) if e["type"] == "round_ended")
    forged[index]["data"] = {**forged[index]["data"], "points": forged[index]["data"]["points"] + 1}
    report = verify_replay(replay_text(reseal(forged)))
    assert not report.ok and report.line == index + 2


def test_a_wrong_seed_fails_the_commitment(finished: list[dict[str, Any]]) -> None:
    forged = [dict(e) for e in finished]
    forged[-1]["data"] = {**forged[-1]["data"], "server_seed": "00" * 32}
    report = verify_replay(replay_text(reseal(forged)))
    assert not report.ok and "commitment" in (report.failure or "")


def test_a_receipt_missing_from_the_log_proves_a_rewrite(finished: list[dict[str, Any]], tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    path.write_text(replay_text(finished))
    result = runner.invoke(app, ["verify", str(path), "--receipt", f"5:{'ab' * 32}"])
    assert result.exit_code == 1 and "rewritten" in result.output
    assert Receipt.parse(f"5:{'AB' * 32}").hash == "ab" * 32


def test_a_live_match_is_not_verifiable(finished: list[dict[str, Any]]) -> None:
    report = verify_replay(replay_text(finished[:40]))
    assert not report.ok and "not finished" in (report.failure or "")


@pytest.mark.parametrize("content", ["", "not json\n", '{"format": "other"}\n', "[1, 2]\n"])
def test_unreadable_files_exit_2(content: str, tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    result = runner.invoke(app, ["verify", str(path)])
    assert result.exit_code == 2


def test_missing_file_and_bad_receipt_exit_2(tmp_path: Path) -> None:
    assert runner.invoke(app, ["verify", str(tmp_path / "none.jsonl")]).exit_code == 2
    path = tmp_path / "m.jsonl"
    path.write_text("{}\n")
    assert runner.invoke(app, ["verify", str(path), "--receipt", "nonsense"]).exit_code == 2
