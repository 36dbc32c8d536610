"""`unoduo verify`: an auditor re-checks a replay with no trust in the server (docs/FAIRNESS.md).

Replays here are made as a server makes them (``engine.record.replay``); tampering is done as a
dishonest server would, with the seed in hand: edit, then recompute every commitment and hash
after the edit. Each must still be caught, and named by its line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cli.main import app
from engine import UNO_DUO
from engine.fairness.verify import Receipt, verify_replay
from engine.record.replay import replay_text as make_replay
from tests.engine.playing import play_match, short
from tests.engine.playing import reseal as reseal_lines

runner = CliRunner()
SEED = (21).to_bytes(32, "big")  # play_match seeds the server with the match seed's bytes


def lines_of(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()[1:]]


def replay_text(lines: list[dict[str, Any]], version: int = 2) -> str:
    header = {
        "format": "unoduo-replay",
        "version": version,
        "match": "1",
        "ruleset": "uno-duo",
        "players": ["a", "b"],
        "engine": "test",
    }
    return "\n".join(json.dumps(x) for x in [header, *lines]) + "\n"


def reseal(lines: list[dict[str, Any]], seed: bytes = SEED) -> list[dict[str, Any]]:
    return reseal_lines(lines, seed)


@pytest.fixture(scope="module")
def finished() -> list[dict[str, Any]]:
    match = play_match(21, short(UNO_DUO, 60), 0.85)
    return lines_of(make_replay("1", "uno-duo", ["a", "b"], match.events))


def copy(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    copied: list[dict[str, Any]] = json.loads(json.dumps(lines))
    return copied


def first(lines: list[dict[str, Any]], type_: str) -> int:
    return next(i for i, e in enumerate(lines) if e["type"] == type_)


def test_an_honest_replay_verifies(finished: list[dict[str, Any]], tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    path.write_text(replay_text(finished))
    receipt = f"{finished[10]['seq']}:{finished[10]['hash']}"
    result = runner.invoke(app, ["verify", str(path), "--receipt", receipt])
    assert result.exit_code == 0, result.output
    assert "verified" in result.output and "receipt 11: present" in result.output
    assert "sealed fields: all" in result.output


def test_an_edited_event_breaks_the_chain_at_its_line(finished: list[dict[str, Any]]) -> None:
    edited = copy(finished)
    edited[30]["data"] = {**edited[30]["data"], "seat": 1 - edited[30]["data"].get("seat", 0)}
    report = verify_replay(replay_text(edited))
    assert not report.ok and report.line == 32 and "seq 31" in (report.failure or "")


def test_an_edited_opening_is_named_by_line_and_field(finished: list[dict[str, Any]], tmp_path: Path) -> None:
    edited = copy(finished)
    index = first(edited, "cards_drawn")
    edited[index]["open"]["codes"] = ["W+4"] * len(edited[index]["open"]["codes"])
    path = tmp_path / "m.jsonl"
    path.write_text(replay_text(edited))
    result = runner.invoke(app, ["verify", str(path)])
    assert result.exit_code == 1
    assert f"line {index + 2}: field 'codes': the opened value ['W+4'," in result.output
    assert "commits to" in result.output and "the value (or the seal) was changed" in result.output


def test_a_missing_or_extra_opening_is_named(finished: list[dict[str, Any]]) -> None:
    missing = copy(finished)
    index = first(missing, "round_started")
    del missing[index]["open"]["deck"]
    report = verify_replay(replay_text(missing))
    assert not report.ok and report.line == index + 2 and "'deck' has no opened value" in (report.failure or "")
    extra = copy(finished)
    extra[0]["open"]["note"] = "x"
    report = verify_replay(replay_text(extra))
    assert not report.ok and report.line == 2 and "'note'" in (report.failure or "")


def test_a_rewritten_deck_is_caught_by_the_shuffle_re_run(finished: list[dict[str, Any]]) -> None:
    forged = copy(finished)
    index = first(forged, "round_started")
    deck = forged[index]["open"]["deck"]
    deck[0], deck[1] = deck[1], deck[0]
    report = verify_replay(replay_text(reseal(forged)))
    assert not report.ok and report.line is not None and report.line <= index + 2
    assert "rules give" in (report.failure or "")


def test_a_hidden_field_moved_into_the_clear_is_caught(finished: list[dict[str, Any]]) -> None:
    forged = copy(finished)
    index = first(forged, "card_played")
    forged[index]["data"]["card"] = forged[index]["open"].pop("card")
    report = verify_replay(replay_text(reseal(forged)))
    assert not report.ok and report.line == index + 2 and "schema" in (report.failure or "")


def test_a_forged_challenge_verdict_or_score_is_caught(finished: list[dict[str, Any]]) -> None:
    forged = copy(finished)
    index = first(forged, "round_ended")
    forged[index]["data"] = {**forged[index]["data"], "points": forged[index]["data"]["points"] + 1}
    report = verify_replay(replay_text(reseal(forged)))
    assert not report.ok and report.line == index + 2


def test_a_wrong_seed_fails_the_commitment(finished: list[dict[str, Any]]) -> None:
    forged = copy(finished)
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


def test_a_version_1_replay_is_refused_with_the_version_named(finished: list[dict[str, Any]], tmp_path: Path) -> None:
    path = tmp_path / "old.jsonl"
    path.write_text(replay_text(finished, version=1))
    result = runner.invoke(app, ["verify", str(path)])
    assert result.exit_code == 2
    assert "version 1 replay" in result.output and "reads version 2" in result.output
    assert "Traceback" not in result.output


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


def renumber(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**line, "seq": seq} for seq, line in enumerate(lines, start=1)]


def _edit_public(lines: list[dict[str, Any]], field: str) -> int:
    """Edit one public field the way a dishonest server would; returns the index edited."""
    if field == "card":
        index = first(lines, "card_played")
        lines[index]["data"]["code"] = "G0" if lines[index]["data"]["code"] != "G0" else "G1"
    elif field == "colour":
        chosen = first(lines, "color_chosen") if any(x["type"] == "color_chosen" for x in lines) else None
        if chosen is None:
            chosen = next(i for i, x in enumerate(lines) if x["type"] == "card_played" and x["data"].get("color"))
        index = chosen
        key = "color"
        lines[index]["data"][key] = "blue" if lines[index]["data"][key] != "blue" else "red"
    elif field == "verdict":
        index = first(lines, "round_ended")
        lines[index]["data"]["winner"] = 1 - lines[index]["data"]["winner"]
    elif field == "score":
        index = first(lines, "round_ended")
        lines[index]["data"]["points"] += 5
    else:  # time
        index = len(lines) // 2
        lines[index]["at"] = "2030-01-01T00:00:00.000000Z"
    return index


@pytest.mark.parametrize("field", ["card", "colour", "verdict", "score", "time"])
def test_an_edited_field_breaks_the_chain_at_its_line(finished: list[dict[str, Any]], field: str) -> None:
    forged = copy(finished)
    index = _edit_public(forged, field)
    report = verify_replay(replay_text(forged))
    assert not report.ok and report.line == index + 2
    assert "edited after it was hashed" in (report.failure or "")


@pytest.mark.parametrize("field", ["card", "colour", "verdict", "score"])
def test_an_edit_with_every_hash_recomputed_is_caught_by_the_re_run(finished: list[dict[str, Any]], field: str) -> None:
    forged = copy(finished)
    index = _edit_public(forged, field)
    report = verify_replay(replay_text(reseal(forged)))
    assert not report.ok and report.line is not None and report.line <= index + 2
    assert "rules give" in (report.failure or "") or "schema" in (report.failure or "")


def test_a_time_rewritten_with_every_hash_recomputed_is_caught_by_a_receipt(finished: list[dict[str, Any]]) -> None:
    forged = copy(finished)
    index = _edit_public(forged, "time")
    kept = Receipt(finished[index]["seq"], finished[index]["hash"])  # what the client was sent at the time
    report = verify_replay(replay_text(reseal(forged)), [kept])
    assert not report.ok and "is not in this log" in (report.failure or "")


@pytest.mark.parametrize("how", ["removed", "inserted", "reordered", "duplicated"])
def test_a_removed_inserted_reordered_or_duplicated_event_is_named(finished: list[dict[str, Any]], how: str) -> None:
    forged = copy(finished)
    index = first(forged, "cards_drawn")
    if how == "removed":
        del forged[index]
    elif how == "inserted":
        forged.insert(index, copy([forged[index - 1]])[0])
    elif how == "reordered":
        forged[index], forged[index + 1] = forged[index + 1], forged[index]
    else:
        forged.insert(index + 1, copy([forged[index]])[0])
    report = verify_replay(replay_text(forged))
    assert not report.ok and report.line is not None and report.line in (index + 2, index + 3)
    assert "chain breaks" in (report.failure or "")


def test_a_changed_commitment_is_caught_even_with_every_hash_recomputed(finished: list[dict[str, Any]]) -> None:
    forged = copy(finished)
    forged[0]["data"]["commitment"] = "ab" * 32
    report = verify_replay(replay_text(reseal(forged)))
    assert not report.ok and "the seed or the commitment was changed" in (report.failure or "")


def test_an_illegal_move_inserted_with_a_consistent_chain_is_caught_by_the_re_run(
    finished: list[dict[str, Any]],
) -> None:
    forged = copy(finished)
    index = next(i for i, x in enumerate(forged) if x["type"] == "command" and x["data"]["command"]["type"] == "play")
    seat = forged[index]["data"]["seat"]
    bogus = {**copy([forged[index]])[0], "data": {"seat": seat, "command": {"type": "uno"}}}
    forged.insert(index, bogus)
    report = verify_replay(replay_text(reseal(renumber(forged))))
    assert not report.ok and report.line == index + 2
    assert "not legal" in (report.failure or "") or "rules give" in (report.failure or "")


# ---------------------------------------------------------------- a table of more than two


def play_table(seed: int, seats: int, target: int = 200) -> list[Any]:
    """A whole ``classic`` match at a table of ``seats`` of random legal commands (random UNO
    calls by every seat, and ``wd4_check = challenge`` so that challenges happen): its events."""
    import random

    from engine import LocalMatch, Phase
    from engine.game.rulesets import CLASSIC, Ruleset
    from tests.engine.playing import random_command

    rng = random.Random(seed)
    ruleset = Ruleset.from_dict({**CLASSIC.to_dict(), "wd4_check": "challenge", "target": target})
    entropies = tuple(f"seat {seat} says {seed}" for seat in range(seats))
    match = LocalMatch.start(seed.to_bytes(32, "big"), ruleset, entropies, seats=seats)
    for _ in range(100_000):
        if match.state.phase is Phase.MATCH_OVER:
            return list(match.events)
        seat = match.state.pending.seat
        caller = rng.randrange(seats)
        if rng.random() < 0.2 and caller != seat and {"type": "uno"} in match.view(caller)["legal"]:
            seat = caller
        assert seat is not None
        match.act(seat, random_command(match.state, seat, rng, 0.7))
    raise AssertionError("the table's match did not finish")


TABLE_SEED = 5


@pytest.fixture(scope="module")
def table() -> list[dict[str, Any]]:
    events = play_table(TABLE_SEED, 5)
    players = [f"p{seat}" for seat in range(5)]
    return lines_of(make_replay("t5", "classic", players, events))


def table_text(lines: list[dict[str, Any]]) -> str:
    header = {
        **json.loads(replay_text([])),
        "match": "t5",
        "ruleset": "classic",
        "players": [f"p{s}" for s in range(5)],
    }
    return "\n".join(json.dumps(x) for x in [header, *lines]) + "\n"


def test_a_replay_of_a_table_of_five_verifies(table: list[dict[str, Any]], tmp_path: Path) -> None:
    assert table[0]["data"]["seats"] == 5 and len(table[-1]["data"]["entropies"]) == 5
    assert any(line["type"] == "challenge_resolved" for line in table)
    report = verify_replay(table_text(table))
    assert report.ok, (report.line, report.failure)
    path = tmp_path / "table.jsonl"
    path.write_text(table_text(table), encoding="utf-8")
    result = runner.invoke(app, ["verify", str(path)])
    assert result.exit_code == 0 and "verified:" in result.output, result.output


def test_at_a_table_of_five_another_seats_entropy_or_a_dealt_hand_changed_is_caught(
    table: list[dict[str, Any]],
) -> None:
    seed = (TABLE_SEED).to_bytes(32, "big")
    # The revealed entropy of seat 3, and its seat_joined, changed alike: every shuffle changes.
    lines = copy(table)
    joined = next(i for i, e in enumerate(lines) if e["type"] == "seat_joined" and e["data"]["seat"] == 3)
    lines[joined]["open"]["entropy"] = "someone else's"
    lines[-1]["data"]["entropies"][3] = "someone else's"
    report = verify_replay(table_text(reseal_lines(lines, seed)))
    assert not report.ok and report.line is not None and report.line > joined + 2, report.failure
    # Two seats' dealt hands swapped, resealed: the deal is re-run from the deck and differs.
    lines = copy(table)
    dealt = first(lines, "cards_dealt")
    opened = lines[dealt]["open"]
    opened["hand1"], opened["hand4"] = opened["hand4"], opened["hand1"]
    report = verify_replay(table_text(reseal_lines(lines, seed)))
    assert not report.ok and report.line == dealt + 2, report.failure
