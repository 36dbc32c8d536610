"""``unoduo bench tournament`` on tiny tournaments through a real server (a round robin, a Swiss, a
tables tournament): consistent figures, a checked result, the engine alone playing the same matches;
and each format's check finding nothing wrong in a sound tournament and naming what is wrong otherwise."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from bench.launch import BenchError
from bench.report import write_docs_section
from bench.tournament import (
    SECTION,
    Options,
    check,
    check_swiss,
    check_tables,
    critical_events,
    expected_places,
    markdown,
    repeat_meetings,
    round_rows,
    rows,
    run_bench,
    tournament_body,
)
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


def _finished(players: int, rounds_played: int | None = None) -> dict[str, Any]:
    """A finished round-robin as GET /api/tournaments/{id} shows it (only the keys ``check`` reads);
    its first ``rounds_played`` rounds, ranked by score, are a sound Swiss (nobody meets twice, the
    Berger table's colours alternate, at most one bye each)."""
    from server.tournaments.schedule import round_robin

    ids = [f"p{i}" for i in range(players)]
    rounds: list[dict[str, Any]] = []
    columns = ("played", "won", "lost", "byes", "points_for", "points_against")
    tally: dict[str, dict[str, int]] = {p: dict.fromkeys(columns, 0) for p in ids}
    for r in round_robin(ids)[:rounds_played]:
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
    order = ids if rounds_played is None else sorted(ids, key=lambda p: -(tally[p]["won"] + tally[p]["byes"]))
    rows_ = [
        {"player": p, "rank": rank, "score": tally[p]["won"] + tally[p]["byes"], **tally[p]}
        for rank, p in enumerate(order, start=1)
    ]
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


# ---------------------------------------------------------------- Swiss and tables


def test_a_tiny_swiss_is_timed_checked_and_played_again_by_the_engine(tmp_path: Path) -> None:
    options = Options(players=5, format="swiss", rounds=3, target=30, poll=0.05)
    assert options.ruleset == "uno-duo" and tournament_body(options)["format"] == "swiss"
    report = run_bench(options, lambda _: None)

    assert report.server_exit == 0, report.server_log_tail
    assert report.ok and not report.problems, report.problems
    assert report.rounds == 3 and len(report.opened_at) == 3
    assert report.pairings == report.matches == 6 == len(report.played)  # 2 games a round, one bye
    assert all(len(m.bots) == 2 for m in report.played)
    engine = report.engine
    assert engine is not None and engine.same == engine.matches == 6 and engine.events == report.events
    assert report.ratio is not None and report.ratio == report.seconds / engine.seconds
    rows_ = report.standings
    assert sum(row["byes"] for row in rows_) == 3 and max(row["byes"] for row in rows_) == 1
    assert all(row["score"] == row["won"] + row["byes"] for row in rows_)
    figures = {m: f for m, f, _, _ in rows(report)}
    assert figures["rounds (planned)"] == "3 (3)"

    doc = tmp_path / "BENCHMARKS.md"
    write_docs_section(doc, SECTION, "## Tournament\n\nthe round robin's, kept\n")
    write_docs_section(doc, options.section, markdown(report, "unoduo bench tournament --format swiss"))
    text = doc.read_text()
    assert "## Tournament\n\nthe round robin's, kept\n" in text and "## Tournament: Swiss" in text
    assert "Swiss (FIDE Dutch" in text and "colour" not in text.split("## Tournament: Swiss")[0]
    assert "WRONG" not in text


def test_a_tiny_tables_tournament_plays_every_table_match_again_event_for_event(tmp_path: Path) -> None:
    # 9 players at tables of 3 for 2 rounds: the affine plane of order 3, so nobody may meet twice
    options = Options(players=9, format="tables", table_size=3, rounds=2, round_limit=1, poll=0.05)
    assert options.ruleset == "classic" and options.exact_design
    body = tournament_body(options)
    assert body["table_size"] == 3 and body["rounds"] == 2 and body["rules"] == {"round_limit": 1}
    report = run_bench(options, lambda _: None)

    assert report.server_exit == 0, report.server_log_tail
    assert report.ok and not report.problems, report.problems
    assert report.pairings == report.matches == 6 == len(report.played)
    assert all(len(m.bots) == 3 and m.names is not None and len(m.names) == 3 for m in report.played)
    assert all(m.rounds_played >= 1 for m in report.played)
    engine = report.engine
    assert engine is not None and engine.same == engine.matches == 6 and engine.events == report.events
    assert report.repeats == 0 and report.pairs_met == 18  # 6 tables of 3 pairs each, all different
    figures = {m: (f, t, v) for m, f, t, v in rows(report)}
    assert figures["repeat meetings (meetings beyond a pair's first)"] == ("0", "0 (an exact design)", "ok")
    assert figures["pairs of players who met"][0] == "18 of 36"
    assert figures["matches played to the end (of tables)"][0] == "6 of 6"
    text = markdown(report, "unoduo bench tournament --format tables")
    assert text.startswith("## Tournament: tables\n") and "round limit 1" in text and "WRONG" not in text


def _finished_tables(players: int, size: int, rounds: int) -> dict[str, Any]:
    """A finished tables tournament (only the keys ``check_tables`` reads): seat 0 wins every table,
    the others' totals 50, 50, 10, … so places run 1, 2, 2, 4, …; placement points size-1 .. 0."""
    from server.tournaments.tables import table_schedule

    ids = [f"p{i}" for i in range(players)]
    points = list(range(size - 1, -1, -1))
    score = dict.fromkeys(ids, 0)
    firsts = dict.fromkeys(ids, 0)
    played = dict.fromkeys(ids, 0)
    out: list[dict[str, Any]] = []
    for number, tables in enumerate(table_schedule(ids, size, rounds), start=1):
        pairings, matches = [], []
        for board, seats in enumerate(tables, start=1):
            match = f"m{number}-{board}"
            totals = [100] + [50 if i < 3 else 10 for i in range(1, len(seats))]
            places = expected_places(0, totals)
            for seat, place in zip(seats, places, strict=True):
                score[seat] += points[place - 1] if place <= len(points) else 0
                played[seat] += 1
            firsts[seats[0]] += 1
            pairings.append(
                {
                    "slot": f"{number}.{board}",
                    "seats": [{"id": s} for s in seats],
                    "status": "decided",
                    "result": {
                        "winner": seats[0],
                        "scores": totals,
                        "places": places,
                        "forfeit": False,
                        "reason": "played",
                        "match": match,
                    },
                }
            )
            matches.append({"id": match, "status": "finished", "places": places, "seats": [{"id": s} for s in seats]})
        out.append({"number": number, "status": "finished", "bye": None, "pairings": pairings, "matches": matches})
    order = sorted(ids, key=lambda p: -score[p])
    standings = [
        {
            "player": p,
            "rank": rank,
            "played": played[p],
            "won": firsts[p],
            "lost": played[p] - firsts[p],
            "byes": 0,
            "score": score[p],
        }
        for rank, p in enumerate(order, start=1)
    ]
    return {
        "status": "finished",
        "players": [{"id": p} for p in ids],
        "rules": {"target": 500, "scoring": "winner_scores", "round_limit": 3},
        "placement_points": points,
        "rounds": out,
        "standings": standings,
    }


def test_the_swiss_check_finds_nothing_wrong_in_a_sound_swiss_and_names_what_is_wrong_otherwise() -> None:
    for players, rounds in ((6, 3), (7, 4), (20, 5)):
        assert check_swiss(_finished(players, rounds), players, rounds) == []

    t = _finished(6, 3)  # the same pair in rounds 1 and 2
    t["rounds"][1]["pairings"][0]["white"] = t["rounds"][0]["pairings"][0]["white"]
    t["rounds"][1]["pairings"][0]["black"] = t["rounds"][0]["pairings"][0]["black"]
    assert any("pairs met more than once" in p for p in check_swiss(t, 6, 3))

    t = _finished(7, 4)  # a second bye for round 1's
    t["rounds"][1]["bye"] = t["rounds"][0]["bye"]
    problems = check_swiss(t, 7, 4)
    assert any("2 byes, more than one" in p for p in problems)
    assert any("round 2 does not pair every player" in p for p in problems)

    t = _finished(6, 3)  # white three times with the colours of every pairing swapped to one player
    player = "p0"
    for r in t["rounds"]:
        for p in r["pairings"]:
            if p["black"]["id"] == player:
                p["white"], p["black"] = p["black"], p["white"]
                p["result"]["scores"].reverse()
                match = next(m for m in r["matches"] if m["id"] == p["result"]["match"])
                match["seats"].reverse()
    problems = check_swiss(t, 6, 3)
    assert any("p0: 3 whites, 0 blacks" in p for p in problems)

    t = _finished(6, 3)
    t["standings"][0]["score"] += 1
    problems = check_swiss(t, 6, 3)
    assert any("standings of" in p and "score" in p for p in problems)

    t = _finished(6, 3)
    assert any("2 rounds, not 3" in p for p in check_swiss({**t, "rounds": t["rounds"][:2]}, 6, 3))


def test_the_tables_check_counts_repeats_and_names_what_is_wrong() -> None:
    t = _finished_tables(16, 4, 5)
    assert repeat_meetings(t) == 0
    assert check_tables(t, 16, 5, round_limit=3, exact_design=True) == []
    for players, size, rounds in ((10, 4, 3), (13, 5, 4)):  # mixed sizes: 4 + 3 + 3, 5 + 4 + 4
        t = _finished_tables(players, size, rounds)
        assert check_tables(t, players, rounds, round_limit=3) == []
        assert repeat_meetings(t) > 0  # reported, not wrong: no exact design
    assert expected_places(2, [10, 40, 99, 40]) == [4, 2, 1, 2]

    t = _finished_tables(16, 4, 5)  # two players of round 2 swap tables: meetings repeat
    a, b = t["rounds"][1]["pairings"][0], t["rounds"][1]["pairings"][1]
    a["seats"][1], b["seats"][1] = b["seats"][1], a["seats"][1]
    assert repeat_meetings(t) > 0
    assert any("repeat meetings where an exact design" in p for p in check_tables(t, 16, 5, exact_design=True))

    t = _finished_tables(16, 4, 5)  # a table of 5 beside one of 3
    a, b = t["rounds"][0]["pairings"][0], t["rounds"][0]["pairings"][1]
    a["seats"].append(b["seats"].pop())
    assert any("round 1: tables of [5, 3, 4, 4]" in p for p in check_tables(t, 16, 5))

    t = _finished_tables(16, 4, 5)  # places not as the totals say
    t["rounds"][2]["pairings"][0]["result"]["places"] = [1, 2, 3, 4]
    problems = check_tables(t, 16, 5)
    assert any("(D23)" in p for p in problems) and any("placement points" in p for p in problems)

    t = _finished_tables(16, 4, 5)  # a player's placement points miscounted
    t["standings"][5]["score"] += 1
    assert any("standings of" in p and "score" in p for p in check_tables(t, 16, 5))

    t = _finished_tables(16, 4, 5)  # nobody at the target is fine only under a round limit
    assert check_tables(t, 16, 5, round_limit=3) == []
    assert any("nobody reached the target 500" in p for p in check_tables(t, 16, 5, round_limit=0))

    t = _finished_tables(16, 4, 5)
    t["rounds"][4]["pairings"][3]["result"].update(forfeit=True, reason="timeouts")
    assert any("decided by forfeit (timeouts)" in p for p in check_tables(t, 16, 5))


def test_the_format_options() -> None:
    assert tournament_body(Options()) == {
        "name": "bench",
        "players": Options().entries(),
        "ruleset": "uno-duo",
    }  # the round robin's body as it always was
    assert tournament_body(Options(target=30))["rules"] == {"target": 30}
    tables = Options(format="tables")
    assert tables.ruleset == "classic" and tables.resolved_round_limit == 3 and tables.resolved_rounds == 5
    assert tables.exact_design and tables.section == "## Tournament: tables" and not tables.standard
    assert not Options(format="tables", players=17).exact_design
    assert Options(format="swiss").resolved_round_limit == 0 and Options(players=7).resolved_rounds == 7
    assert "rules" not in tournament_body(Options(format="tables", round_limit=0))
    with pytest.raises(BenchError):
        Options(format="knockout")


def test_bad_format_options_are_refused() -> None:
    runner = CliRunner()
    for args in (
        ["--format", "knockout"],
        ["--rounds", "3"],  # a round robin's rounds follow from its field
        ["--format", "swiss", "--table-size", "4"],
        ["--format", "swiss", "--round-limit", "2"],
        ["--format", "tables", "--table-size", "2"],
        ["--format", "tables", "--table-size", "11"],
        ["--format", "tables", "--round-limit", "101"],
        ["--format", "swiss", "--rounds", "0"],
    ):
        result = runner.invoke(app, ["bench", "tournament", *args])
        assert result.exit_code == 2, (args, result.output)


def test_the_command_runs_a_tiny_tables_tournament_and_exits_zero() -> None:
    args = ["--format", "tables", "--players", "6", "--table-size", "3", "--rounds", "1", "--round-limit", "1"]
    result = CliRunner().invoke(app, ["bench", "tournament", *args])
    assert result.exit_code == 0, result.output
    assert "repeat meetings" in result.output and "all hold" in result.output
