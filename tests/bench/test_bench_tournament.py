"""``unoduo bench tournament`` on a tiny round-robin through a real server: consistent figures, a checked result."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from bench.report import write_docs_section
from bench.tournament import SECTION, Options, check, critical_events, markdown, round_rows, rows, run_bench
from cli.main import app


def test_a_tiny_round_robin_is_timed_checked_and_played_again_by_the_engine(tmp_path: Path) -> None:
    options = Options(players=4, target=30, poll=0.05)
    report = run_bench(options, lambda _: None)

    assert report.server_exit == 0, report.server_log_tail
    assert report.ok and not report.problems, report.problems
    assert report.status == "finished" and report.rounds == 3
    assert report.pairings == report.matches == 6 == len(report.played)
    assert report.seconds > 0 and report.matches_per_second == report.matches / report.seconds
    assert report.events is not None and report.events == sum(len(m.types) for m in report.played)
    assert report.events_per_second == report.events / report.seconds
    assert all(m.types[0] == "match_created" and m.types[-1] == "seed_revealed" for m in report.played)
    assert report.server_cpu is not None and 0 < report.server_cpu
    # the reference: the very same matches, event for event, played by the engine alone
    engine = report.engine
    assert engine is not None and engine.matches == 6 and engine.same == 6 and engine.events == report.events
    assert engine.seconds > 0 and report.ratio == report.seconds / engine.seconds
    # the standings as the server shows them: 3 played each, sum of won = 6 matches
    assert len(report.standings) == 4
    assert all(row["played"] == 3 and row["byes"] == 0 for row in report.standings)
    assert sum(row["won"] for row in report.standings) == 6
    # by round: every round opened, its matches and events adding up to the whole
    assert len(report.opened_at) == 3 and report.opened_at == sorted(report.opened_at)
    by_round = round_rows(report)
    assert [r[2] for r in by_round] == ["2", "2", "2"]
    assert sum(int(r[3].replace(",", "")) for r in by_round) == report.events
    assert critical_events(report) == sum(int(r[4].replace(",", "")) for r in by_round) <= report.events

    assert report.target_met is None  # the 60 s target is for 16 bots to 200
    figures = {m: f for m, f, _, _ in rows(report)}
    assert figures["matches played to the end (of pairings)"] == "6 of 6"
    assert figures["… the same events as the server's (types, in order), match for match"] == "6 of 6"
    doc = tmp_path / "BENCHMARKS.md"
    write_docs_section(doc, SECTION, markdown(report, "unoduo bench tournament --players 4 --target 30"))
    text = doc.read_text()
    assert text.startswith("# Benchmarks") and "## Tournament" in text and "nproc:" in text
    assert "`unoduo bench tournament --players 4 --target 30`" in text and "| 3 |" in text
    assert "WRONG" not in text


def _finished(players: int) -> dict[str, Any]:
    """A finished round-robin as GET /api/tournaments/{id} shows it (only the keys ``check`` reads)."""
    from server.tournaments.schedule import round_robin

    ids = [f"p{i}" for i in range(players)]
    rounds: list[dict[str, Any]] = []
    columns = ("played", "won", "lost", "byes", "points_for", "points_against")
    tally: dict[str, dict[str, int]] = {p: dict.fromkeys(columns, 0) for p in ids}
    for r in round_robin(ids):
        pairings, matches = [], []
        for board, pair in enumerate(r.pairings, start=1):
            match = f"m{r.number}-{board}"
            white, black = pair.white, pair.black  # white always wins 10 to 200
            pairings.append(
                {
                    "slot": f"{r.number}.{board}",
                    "white": {"id": white},
                    "black": {"id": black},
                    "status": "decided",
                    "match": match,
                    "result": {
                        "winner": white,
                        "scores": [10, 200],
                        "forfeit": False,
                        "reason": "played",
                        "match": match,
                    },
                }
            )
            matches.append(
                {"id": match, "status": "finished", "winner": white, "seats": [{"id": white}, {"id": black}]}
            )
            for player, won, own, other in ((white, 1, 10, 200), (black, 0, 200, 10)):
                row = tally[player]
                row["played"] += 1
                row["won"] += won
                row["lost"] += 1 - won
                row["points_for"] += own
                row["points_against"] += other
        if r.bye is not None:
            tally[r.bye]["byes"] += 1
        rounds.append(
            {"number": r.number, "status": "finished", "bye": r.bye, "pairings": pairings, "matches": matches}
        )
    rows_ = [{"player": p, "rank": rank, **tally[p]} for rank, p in enumerate(ids, start=1)]
    return {
        "status": "finished",
        "players": [{"id": p} for p in ids],
        "rules": {"target": 200, "scoring": "loser_scores"},
        "rounds": rounds,
        "standings": rows_,
    }


def test_the_check_finds_nothing_wrong_in_a_sound_table_and_names_what_is_wrong_otherwise() -> None:
    for players in (4, 5):
        assert check(_finished(players), players) == []

    t = _finished(5)
    t["standings"][0]["won"] += 1
    problems = check(t, 5)
    assert any("sum of won is" in p for p in problems) and any("standings of p0" in p for p in problems)

    t = _finished(5)
    t["rounds"][0]["bye"] = None
    assert any("bye None in a field of 5" in p for p in check(t, 5))

    t = _finished(4)
    t["rounds"][1]["pairings"][0]["result"]["winner"] = t["rounds"][1]["pairings"][0]["black"]["id"]
    assert any("won with totals" in p for p in check(t, 4))  # in uno-duo the lower total wins

    t = _finished(4)
    t["rounds"][2]["matches"][0]["seats"].reverse()
    assert any("not white then black" in p for p in check(t, 4))

    t = _finished(4)
    t["rounds"][2]["pairings"][0]["result"].update(forfeit=True, reason="timeouts")
    assert any("decided by forfeit (timeouts)" in p for p in check(t, 4))

    t = _finished(4)
    t["status"] = "running"
    t["rounds"][2]["status"] = "running"
    assert any("not 'finished'" in p for p in check(t, 4)) and any("round 3 is 'running'" in p for p in check(t, 4))


def test_bad_options_are_refused() -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["bench", "tournament", "--db", "oracle"]).exit_code == 2
    assert runner.invoke(app, ["bench", "tournament", "--players", "1"]).exit_code == 2
    assert runner.invoke(app, ["bench", "tournament", "--players", "65"]).exit_code == 2
    assert runner.invoke(app, ["bench", "tournament", "--bots", "random,nobody"]).exit_code == 2
    assert runner.invoke(app, ["bench", "tournament", "--bots", ","]).exit_code == 2
    assert runner.invoke(app, ["bench", "tournament", "--target", "0"]).exit_code == 2
    assert runner.invoke(app, ["bench", "tournament", "--stall", "0"]).exit_code == 2


def test_the_command_runs_a_tiny_tournament_and_exits_zero() -> None:
    result = CliRunner().invoke(app, ["bench", "tournament", "--players", "3", "--bots", "greedy", "--target", "20"])
    assert result.exit_code == 0, result.output
    assert "the result checks" in result.output and "all hold" in result.output
