"""Issue 33.7: ``unoduo tournament create`` prints back every setting as the server recorded it
(the format, the ruleset's switches given with --rule, each round's start time, the clocks, the
entries and the seeding), each line within 80 columns, so the director can check them. It said
nothing of a tables tournament's round limit or start times before."""

from __future__ import annotations

from typing import Any

from typer.testing import CliRunner

from cli.main import app
from cli.tournament_cmd import settings_lines
from tests.cli.test_tournament_formats_cli import answer, stub, utc  # noqa: F401 (fixtures: the stub server; autouse: UTC)

STARTS = ["2026-12-08T19:30:00.000000Z", "2026-12-08T20:15:00.000000Z", None]


def created(**extra: Any) -> dict[str, Any]:
    """A tables tournament as POST /api/tournaments answers it: not started, its rounds pending."""
    players = [{"id": f"p_{i}", "name": f"player {i}", "kind": "human"} for i in range(1, 7)]
    rules = {"name": "classic", "target": 300, "round_limit": 3, "scoring": "winner_scores", "hand_size": 7}
    rounds: list[dict[str, Any]] = [
        {"number": n, "status": "pending", "starts_at": at, "pairings": []} for n, at in enumerate(STARTS, 1)
    ]
    return {
        "id": "t_0123456789abcdef",
        "name": "Classic night",
        "status": "created",
        "ruleset": "classic",
        "rules": rules,
        "format": "tables",
        "rounds_planned": 3,
        "table_size": 3,
        "placement_points": [2, 1, 0],
        "move_seconds": 45,
        "join_seconds": 120,
        "players": players,
        "rounds": rounds,
        "open": False,
        "seeding": "entry",
        "bot_accounts": False,
        "duplicate": False,
        "double": False,
        **extra,
    }


def test_create_prints_the_round_limit_the_start_times_and_every_other_setting(stub: str) -> None:  # noqa: F811
    answer("POST", "/api/tournaments", created(), status=201)
    args = ["tournament", "create", "Classic night", "--format", "tables", "--ruleset", "classic", "--rounds", "3"]
    args += ["--table-size", "3", "--rule", "round_limit=3", "--rule", "target=300", "--move-seconds", "45"]
    args += ["--round-start", "2026-12-08 19:30", "--round-start", "2026-12-08 20:15", "--url", stub]
    result = CliRunner(env={"COLUMNS": "80"}).invoke(app, [*args, "--token", "t" * 32])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert "  ruleset:  classic · round_limit 3 · target 300" in lines  # in the order given
    assert "  round 1:  starts Tue 8 Dec 19:30" in lines and "  round 2:  starts Tue 8 Dec 20:15" in lines
    assert "  round 3:  opens when round 2 is over" in lines
    assert "  format:   tables of 3 · 3 rounds · points 2/1/0" in lines
    assert "  clocks:   45 s a move · 120 s to join once a round opens" in lines
    assert "  entries:  fixed · 6 so far" in lines
    assert "round_limit 3" in lines[0]  # the first line's ruleset shows a switch off by default too
    settings = lines[1 : lines.index("  seeding:  pairing numbers by entry order (--player)") + 1]
    assert all(len(line) <= 80 for line in settings), [line for line in settings if len(line) > 80]


def test_an_open_tournament_without_start_times_says_how_its_rounds_open() -> None:
    t = created(open=True, seeding="rating", duplicate=True, rules={"name": "uno-duo"}, ruleset="uno-duo")
    t["rounds"] = [{"number": n, "status": "pending", "starts_at": None} for n in (1, 2, 3)]
    lines = settings_lines(t)
    assert "  ruleset:  uno-duo (its defaults)" in lines
    assert "  rounds:   round 1 at the start, then each when the one before is over" in lines
    assert any(line.startswith("  entries:  open (players enter") for line in lines)
    assert "  seeding:  pairing numbers by rating, at the start" in lines
    assert "  also:     duplicate rounds" in lines
