"""`unoduo simulate` and `unoduo bench engine` through typer's CliRunner: good and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import bench.engine as bench_engine
from cli.main import app
from engine.fairness.verify import verify_replay

runner = CliRunner()


def simulate(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["simulate", *args])
    assert "Traceback" not in result.output
    return result.exit_code, result.stdout, result.stderr


def test_simulate_prints_the_table() -> None:
    code, out, err = simulate("--matches", "6", "--bots", "greedy,random", "--seed", "4")
    assert code == 0, err
    for text in (
        "6 matches · uno-duo · seed 4",
        "greedy",
        "random",
        "95% interval",
        "challenges",
        "upheld",
        "UNO catches",
        "mean rounds per match",
        "mean actions per round",
        "hands:",
        "hands won",
        "hand %",
    ):
        assert text in out
    assert "6 matches in" in err  # the timing goes to stderr, not into the table


def test_the_same_seed_gives_the_same_table_with_any_number_of_jobs() -> None:
    args = ("-n", "8", "--bots", "bot:greedy,bot:random", "--ruleset", "classic-2p", "--seed", "12")
    first = simulate(*args)
    again = simulate(*args)
    parallel = simulate(*args, "--jobs", "2")
    assert first[0] == again[0] == parallel[0] == 0
    assert first[1] == again[1] == parallel[1]
    assert simulate("-n", "8", "--bots", "greedy,random", "--ruleset", "classic-2p", "--seed", "13")[1] != first[1]


def test_replays_are_written_verifiable_and_byte_identical(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two" / "nested"
    assert simulate("-n", "3", "--seed", "8", "--replays", str(one))[0] == 0
    assert simulate("-n", "3", "--seed", "8", "--replays", str(two), "--jobs", "2")[0] == 0
    names = sorted(p.name for p in one.iterdir())
    assert names == [
        "sim-8-uno-duo-0-greedy-vs-random.jsonl",
        "sim-8-uno-duo-1-random-vs-greedy.jsonl",
        "sim-8-uno-duo-2-greedy-vs-random.jsonl",
    ]
    for name in names:
        text = (one / name).read_text(encoding="utf-8")
        assert (two / name).read_bytes() == (one / name).read_bytes()
        assert json.loads(text.splitlines()[0])["players"] in (
            ["bot:greedy", "bot:random"],
            ["bot:random", "bot:greedy"],
        )
        assert verify_replay(text).ok


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bots", "greedy,minimax"], "unknown bot 'minimax'"),
        (["--bots", "greedy"], "two bot names"),
        (["--bots", "greedy,random,random"], "two bot names"),
        (["--matches", "0"], "--matches must be at least 1"),
        (["-n", "-5"], "--matches must be at least 1"),
        (["--ruleset", "uno-trio"], "unknown ruleset 'uno-trio'"),
        (["--jobs", "0"], "--jobs must be at least 1"),
        (["--matches", "many"], "Invalid value for '--matches'"),
    ],
)
def test_simulate_refuses_bad_input_with_exit_2(args: list[str], message: str) -> None:
    code, out, err = simulate(*args)
    assert code == 2
    assert message in err
    assert out == ""


def test_an_unwritable_replays_directory_is_refused(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    code, out, err = simulate("-n", "1", "--replays", str(blocker / "replays"))
    assert code == 2 and "cannot write replays to" in err and out == ""


def bench(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["bench", "engine", *args])
    assert "Traceback" not in result.output
    return result.exit_code, result.stdout, result.stderr


def test_bench_engine_without_rlcard_prints_a_note(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench_engine, "_rlcard_game", lambda: None)
    code, out, err = bench("--seconds", "0.3")
    assert code == 0, err
    assert "self-play actions/s (engine core)" in out and "fold stored events/s" in out
    assert "RLCard is not installed" in out and "CPU:" in out


def test_bench_engine_against_rlcard_writes_its_docs_section(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    pytest.importorskip("rlcard")
    doc = tmp_path / "BENCHMARKS.md"
    doc.write_text("# Benchmarks\n\n## Event store\n\nkept as it is\n\n## Engine\n\nold figures\n")
    monkeypatch.setattr(bench_engine, "BENCHMARKS_MD", doc)
    code, out, err = bench("--seconds", "0.3", "--ruleset", "classic-2p", "--write-docs")
    assert code == 0, err
    assert "×" in out and "actions/s ≥ 2× RLCard:" in out
    assert "search playout actions/s ≥ 1× RLCard:" in out
    text = doc.read_text()
    assert "## Event store\n\nkept as it is" in text and "old figures" not in text
    assert "## Engine" in text and "| self-play actions/s (engine core) |" in text and "rlcard" in text
    assert "| self-play actions/s (search playout) |" in text


def test_bench_playout_agreement_counts_and_writes_its_section(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import bench.playout_agreement as agreement

    doc = tmp_path / "BENCHMARKS.md"
    doc.write_text("# Benchmarks\n\n## Engine\n\nkept as it is\n")
    monkeypatch.setattr(agreement, "BENCHMARKS_MD", doc)
    result = runner.invoke(app, ["bench", "playout-agreement", "--actions", "300", "--write-docs"])
    assert result.exit_code == 0, result.output
    assert "300 actions compared" in result.stdout and "no disagreement" in result.stdout
    text = doc.read_text()
    assert "## Engine\n\nkept as it is" in text and "## Engine: the search playout agrees with the Decider" in text


@pytest.mark.parametrize(
    ("args", "message"), [(["--seconds", "0"], "--seconds"), (["--ruleset", "x"], "unknown ruleset")]
)
def test_bench_engine_refuses_bad_input(args: list[str], message: str) -> None:
    code, _, err = bench(*args)
    assert code == 2 and message in err
