"""``unoduo scenario FILE`` (docs/PROTOCOL.md): exit 0 with the JSON answer for a good file, whether or
not its commands are refused; exit 2 with the reason on stderr for a file that cannot be read or
does not have the scenario shape."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cli.main import app
from engine import UNO_DUO
from engine.play.selfplay import play_match
from engine.record.replay import replay_text

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "docs" / "scenarios"
GOOD = SCENARIOS / "d10_reverse_dump.json"

runner = CliRunner()


def run_cli(*args: str, stdin: str | None = None) -> Any:
    return runner.invoke(app, ["scenario", *args], input=stdin)


def write(tmp_path: Path, content: object, name: str = "scenario.json") -> Path:
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return path


def assert_answer(stdout: str, commands: int) -> dict[str, Any]:
    answer = json.loads(stdout)
    assert set(answer) >= {"results", "views", "audit"}
    assert len(answer["results"]) == commands
    assert [v["viewer"] for v in answer["views"]] == [0, 1]
    assert answer["audit"]["viewer"] == "auditor"
    assert "hands" in answer["audit"] and "draw_order" in answer["audit"]
    assert all("hands" not in v and "draw_order" not in v for v in answer["views"])
    return answer


# ---------------------------------------------------------------- good files


def test_d10_good_file_exits_0_with_results_views_and_audit() -> None:
    result = run_cli(str(GOOD))
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    spec = json.loads(GOOD.read_text(encoding="utf-8"))
    answer = assert_answer(result.stdout, len(spec["commands"]))
    assert all(r["ok"] for r in answer["results"])
    assert answer["views"][1]["hand"] == ["GS", "B1"]


def test_refused_commands_still_exit_0_and_carry_code_message_and_rule() -> None:
    path = SCENARIOS / "d10_dump_incomplete.json"
    result = run_cli(str(path), "--indent", "2")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("{\n  ")
    answer = assert_answer(result.stdout, len(json.loads(path.read_text(encoding="utf-8"))["commands"]))
    refused = [r["error"] for r in answer["results"] if not r["ok"]]
    assert refused[0]["code"] == "dump_incomplete" and refused[0]["rule"] == "D10"
    assert refused[0]["message"]


def test_scenario_from_stdin() -> None:
    spec = {"first_drafter": 1, "commands": [[1, {"type": "draft", "keep": True}], [1, {"type": "draw"}]]}
    result = run_cli("-", stdin=json.dumps(spec))
    assert result.exit_code == 0, result.stderr
    answer = assert_answer(result.stdout, 2)
    assert answer["results"][0]["ok"] is True
    assert answer["results"][1]["error"]["code"] == "not_your_turn"


def test_the_installed_command_runs_a_scenario_end_to_end(tmp_path: Path) -> None:
    spec = {"first_drafter": 0, "decks": [["R5", "G7"]], "commands": [[0, {"type": "draft", "keep": True}]]}
    path = write(tmp_path, spec)
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "scenario", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    answer = assert_answer(done.stdout, 1)
    assert answer["results"][0]["events"][1]["data"]["hand_code"] == "R5"
    assert answer["views"][0]["draft_pile"] == ["G7"]


def test_the_installed_command_exits_2_on_a_bad_file(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "scenario", str(tmp_path / "missing.json")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "cannot read" in done.stderr and done.stdout == ""


# ---------------------------------------------------------------- files that cannot be read


def test_missing_file_exits_2(tmp_path: Path) -> None:
    result = run_cli(str(tmp_path / "nope.json"))
    assert result.exit_code == 2
    assert "cannot read" in result.stderr and "nope.json" in result.stderr
    assert result.stdout == ""


def test_directory_exits_2(tmp_path: Path) -> None:
    result = run_cli(str(tmp_path))
    assert result.exit_code == 2
    assert "cannot read" in result.stderr


def test_non_utf8_file_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"note": "caf\xe9"}')
    result = run_cli(str(path))
    assert result.exit_code == 2
    assert "UTF-8" in result.stderr


@pytest.mark.parametrize("text", ["", "{", "{'commands': []}", "[1, 2,]", "null x"])
def test_invalid_json_exits_2(tmp_path: Path, text: str) -> None:
    result = run_cli(str(write(tmp_path, text)))
    assert result.exit_code == 2
    assert "not valid JSON" in result.stderr
    assert result.stdout == ""


def test_invalid_json_on_stdin_exits_2() -> None:
    result = run_cli("-", stdin="{not json")
    assert result.exit_code == 2
    assert "not valid JSON" in result.stderr


# ---------------------------------------------------------------- files of the wrong shape

WRONG_SHAPES = {
    "not_an_object": ([{"commands": []}], "a scenario is a JSON object"),
    "decks_not_a_list": ({"decks": "R5 G7"}, "decks: Input should be a valid array"),
    "deck_not_a_list": ({"decks": ["R5"]}, "decks.0: Input should be a valid array"),
    "unknown_card": ({"decks": [["R5", "R10"]]}, "decks[0][1]: unknown card 'R10'"),
    "card_not_a_string": ({"decks": [["R5", 7]]}, "decks.0.1: Input should be a valid string"),
    "too_many_wilds_uno_duo": ({"decks": [["W"] * 9]}, "decks[0][8]: the uno-duo deck has no more W"),
    "too_many_wilds_classic": (
        {"ruleset": "classic-2p", "decks": [["W"] * 5]},
        "decks[0][4]: the classic-2p deck has no more W",
    ),
    "two_zeros": ({"decks": [[], ["R0", "r0"]]}, "decks[1][1]: the uno-duo deck has no more R0"),
    "unknown_key": ({"deck": [["R5"]]}, "unknown scenario key: deck"),
    "unknown_ruleset": ({"ruleset": "uno"}, "ruleset must be one of"),
    "bad_first_drafter": ({"first_drafter": 2}, "first_drafter: must be 0 or 1"),
    "boolean_first_drafter": ({"first_drafter": True}, "first_drafter: must be 0 or 1"),
    "commands_not_a_list": ({"commands": {"0": "draw"}}, "commands: Input should be a valid array"),
    "command_not_a_pair": ({"commands": [[0]]}, "commands.0.1: Field required"),
    "bad_rules_value": ({"rules": {"recycle": "burn"}}, "rules:"),
    "unknown_rules_field": ({"rules": {"colour": 1}}, "rules: unknown ruleset field colour"),
    "rules_not_an_object": ({"rules": ["flip"]}, "rules: Input should be an object"),
    "seed_not_hex": ({"seed": "xyz"}, "seed must be a hex string"),
    # Issue 32: ten hands of 11 and a starter need 111 of 108 cards (it was an IndexError traceback).
    "hands_over_the_deck": (
        {"ruleset": "classic", "seats": 10, "rules": {"hand_size": 11}},
        "rules: hand_size 11 at 10 seats deals 110 cards and turns a starter: 111 cards, more than the 108-card deck",
    ),
    "bad_entropy": ({"entropy": ["only one"]}, "entropy.1: Field required"),
}


@pytest.mark.parametrize("case", sorted(WRONG_SHAPES))
def test_wrong_shape_exits_2_with_the_reason(tmp_path: Path, case: str) -> None:
    spec, reason = WRONG_SHAPES[case]
    result = run_cli(str(write(tmp_path, spec)))
    assert result.exit_code == 2, result.stdout
    assert reason in result.stderr
    assert result.stderr.startswith("unoduo scenario: ")
    assert result.stdout == ""


def test_a_full_stack_of_every_card_is_accepted(tmp_path: Path) -> None:
    """The limit is the deck's own count: all 8 W and 4 W+4 of uno-duo may be stacked."""
    spec = {"first_drafter": 0, "decks": [["W"] * 8 + ["W+4"] * 4], "commands": []}
    result = run_cli(str(write(tmp_path, spec)))
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["audit"]["draw_order"][:12] == ["W"] * 8 + ["W+4"] * 4


# ---------------------------------------------------------------- what-if from a replay (--from REPLAY --at SEQ)

BEFORE_CHALLENGE = "95"  # the awaiting after seat 1's Wild Draw Four; seat 0 challenged at seq 96
ACCEPT = '[{"seat": 0, "type": "accept"}]'


@pytest.fixture(scope="module")
def replay(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """replays/sim-2026-uno-duo-11-greedy-vs-greedy.jsonl, made again byte for byte (``unoduo simulate
    --seed 2026``, match 11), so the test does not hang on which samples the kit keeps."""
    result = play_match(["greedy", "greedy"], UNO_DUO, 2026, 11)
    path = tmp_path_factory.mktemp("replays") / "sim-2026-uno-duo-11-greedy-vs-greedy.jsonl"
    path.write_text(replay_text(result.match_id, result.ruleset, result.players, result.events), encoding="utf-8")
    return path


def what_if(replay: Path, *args: str) -> Any:
    return run_cli("--from", str(replay), *args)


def events_of(answer: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [e["data"] for r in answer["results"] if r["ok"] for e in r["events"] if e["type"] == kind]


def test_what_if_the_challenger_had_accepted(replay: Path) -> None:
    result = what_if(replay, "--at", BEFORE_CHALLENGE, "--commands", ACCEPT)
    assert result.exit_code == 0, result.stderr
    answer = assert_answer(result.stdout, 1)
    assert answer["from"] == {"file": str(replay), "match": "sim-2026-uno-duo-11", "seq": 95, "event": "awaiting",
                              "hands": []}  # fmt: skip
    assert len(answer["setup"]) == 95
    (drawn,) = events_of(answer, "cards_drawn")
    assert drawn["seat"] == 0 and drawn["count"] == 4
    assert events_of(answer, "challenge_resolved") == []


def test_what_if_commands_from_a_file_as_pairs(tmp_path: Path, replay: Path) -> None:
    path = write(tmp_path, [[0, {"type": "accept"}]], "commands.json")
    from_file = what_if(replay, "--at", BEFORE_CHALLENGE, "--commands", f"@{path}")
    inline = what_if(replay, "--at", BEFORE_CHALLENGE, "--commands", ACCEPT)
    assert from_file.exit_code == 0, from_file.stderr
    assert json.loads(from_file.stdout) == json.loads(inline.stdout)


def test_what_if_she_had_held_a_yellow_card_the_challenge_is_upheld(replay: Path) -> None:
    real = what_if(replay, "--at", BEFORE_CHALLENGE, "--commands", '[[0, {"type": "challenge"}]]')
    edited = what_if(
        replay, "--at", BEFORE_CHALLENGE, "--hand", "1=W+4,Y5", "--commands", '[[0, {"type": "challenge"}]]'
    )
    assert real.exit_code == 0 and edited.exit_code == 0, edited.stderr
    (before,) = events_of(json.loads(real.stdout), "challenge_resolved")
    answer = json.loads(edited.stdout)
    (after,) = events_of(answer, "challenge_resolved")
    assert before["verdict"] == "legal" and after["verdict"] == "illegal"
    assert answer["from"]["hands"] == [{"seat": 1, "cards": ["Y5", "W+4"], "was": ["W+4", "W+4"]}]
    assert "Y5" in answer["audit"]["hands"][1]  # and she draws the four: the challenge is upheld
    assert len(answer["audit"]["hands"][1]) == 6


def test_what_if_without_commands_shows_the_start_position(replay: Path) -> None:
    result = what_if(replay, "--at", BEFORE_CHALLENGE, "--indent", "2")
    assert result.exit_code == 0, result.stderr
    answer = assert_answer(result.stdout, 0)
    assert answer["audit"]["pending"]["kind"] == "wild_draw_four" and answer["audit"]["pending"]["seat"] == 0


def tampered(tmp_path: Path, replay: Path) -> Path:
    text = replay.read_text(encoding="utf-8").replace('"card":"Y7"}', '"card":"Y8"}', 1)
    return write(tmp_path, text, "tampered.jsonl")


WHAT_IF_ERRORS: dict[str, tuple[list[str], str]] = {
    "seq_zero": (["--at", "0"], "--at 0: out of range; this replay's events are seq 1 to 281"),
    "seq_past_the_end": (["--at", "282"], "--at 282: out of range; this replay's events are seq 1 to 281"),
    "seq_inside_a_command": (["--at", "96"], "start before that command (--at 95) or after it (--at 99)"),
    "no_at": ([], "--from needs --at SEQ"),
    "bad_hand": (["--at", "95", "--hand", "3=R5"], "--hand '3=R5': write SEAT=CODES"),
    "unknown_card": (["--at", "95", "--hand", "1=R10"], "unknown card 'R10'"),
    "no_free_copy": (["--at", "95", "--hand", "1=W+4,W+4,W+4,W+4,W+4"], "asks for 5 W+4 but only 3"),
    "hand_before_the_round": (["--at", "2", "--hand", "1=R5"], "no round is in play here"),
    "commands_not_json": (["--at", "95", "--commands", "[{"], "--commands is not valid JSON"),
    "commands_not_a_list": (["--at", "95", "--commands", '{"seat": 0}'], "commands: a JSON list"),
    "command_without_seat": (["--at", "95", "--commands", '[{"type": "accept"}]'], "commands[0]:"),
    "commands_file_missing": (["--at", "95", "--commands", "@/nonexistent/c.json"], "cannot read /nonexistent/c.json"),
    "file_and_from": ([str(GOOD), "--at", "95"], "give either a scenario FILE or --from REPLAY, not both"),
}


@pytest.mark.parametrize("case", sorted(WHAT_IF_ERRORS))
def test_bad_what_if_input_exits_2_with_one_line(case: str, replay: Path) -> None:
    args, reason = WHAT_IF_ERRORS[case]
    result = what_if(replay, *args)
    assert result.exit_code == 2, result.stdout
    assert result.stderr.startswith("unoduo scenario: ")
    assert reason in result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert result.stdout == ""


def test_a_tampered_replay_is_refused(tmp_path: Path, replay: Path) -> None:
    result = run_cli("--from", str(tampered(tmp_path, replay)), "--at", "95", "--commands", ACCEPT)
    assert result.exit_code == 2
    assert "tampered.jsonl does not verify (line 91: the hash chain breaks at seq 90" in result.stderr
    assert result.stdout == ""


def test_a_missing_replay_is_refused(tmp_path: Path) -> None:
    result = run_cli("--from", str(tmp_path / "gone.jsonl"), "--at", "5")
    assert result.exit_code == 2
    assert "cannot read" in result.stderr and "gone.jsonl" in result.stderr


@pytest.mark.parametrize("args", [["--at", "95"], ["--commands", ACCEPT], ["--hand", "1=R5"]])
def test_what_if_options_need_from(args: list[str]) -> None:
    result = run_cli(str(GOOD), *args)
    assert result.exit_code == 2
    assert "go with --from REPLAY" in result.stderr


def test_neither_file_nor_from_exits_2() -> None:
    result = run_cli()
    assert result.exit_code == 2
    assert "give a scenario FILE" in result.stderr


def test_a_what_if_has_the_shape_of_a_scenario_answer(replay: Path) -> None:
    spec = {"first_drafter": 0, "commands": [[0, {"type": "draft", "keep": True}]]}
    normal = json.loads(run_cli("-", stdin=json.dumps(spec)).stdout)
    answer = json.loads(what_if(replay, "--at", BEFORE_CHALLENGE, "--commands", ACCEPT).stdout)
    assert list(answer) == ["from", *normal]
    assert set(answer["results"][0]) == set(normal["results"][0])
    assert set(answer["audit"]) == set(normal["audit"])


def test_the_installed_command_runs_a_what_if_end_to_end(replay: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "scenario", "--from", str(replay), "--at", "95", "--commands", ACCEPT],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    answer = assert_answer(done.stdout, 1)
    assert answer["from"]["seq"] == 95
