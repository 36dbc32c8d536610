"""``unoduo bench scale``: a tiny two-server run end to end (the report's structure and its checks,
never its figures against a time budget), and the pure pieces: process-tree CPU from /proc stat
lines, the configurations, the ratio checks, the choice of the server to kill."""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from bench.launch import DEFAULT_POSTGRES_URL, ServerProcess
from bench.report import write_docs_section
from bench.scale import (
    CONFIG_HEADERS,
    SECTION,
    Config,
    ConfigResult,
    Options,
    RetryLostRaces,
    ScaleReport,
    checks,
    choose_victim,
    config_rows,
    cpu_per_command,
    lost_race,
    markdown,
    parse_configs,
    parse_stat,
    run_scale,
    tree_cpu_seconds,
    tree_ticks,
    within,
)
from bench.server import PhaseResult, _run_async
from cli.main import app

POSTGRES_URL = os.environ.get("UNODUO_TEST_POSTGRES_URL", DEFAULT_POSTGRES_URL)


def _stat(pid: int, name: str, ppid: int, utime: int, stime: int) -> str:
    # pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime …
    return f"{pid} ({name}) S {ppid} 1 1 0 -1 4194560 100 0 0 0 {utime} {stime} 0 0 20 0 1 0 5 0 0"


def test_a_stat_line_is_read_after_the_last_parenthesis_of_the_name() -> None:
    assert parse_stat(_stat(42, "python -m (cli) serve", 7, 120, 30)) == (42, 7, 150)


def test_cpu_is_summed_over_each_root_and_all_its_descendants_once() -> None:
    stats = [
        _stat(1, "init", 0, 1000, 1000),
        _stat(10, "serve", 1, 100, 10),  # a root
        _stat(11, "worker", 10, 50, 5),  # its child
        _stat(12, "worker thread", 11, 7, 3),  # its grandchild
        _stat(20, "serve", 1, 200, 20),  # a second root
        _stat(30, "client", 1, 999, 999),  # not a server
        "garbage line",
    ]
    assert tree_ticks(stats, [10]) == 110 + 55 + 10
    assert tree_ticks(stats, [10, 20]) == 175 + 220
    assert tree_ticks(stats, [10, 11]) == 175  # a root inside another's tree is not counted twice
    assert tree_ticks(stats, [99]) == 0  # gone
    assert tree_cpu_seconds([]) is None


def test_this_process_tree_has_used_some_cpu() -> None:
    used = tree_cpu_seconds([os.getpid()])
    assert used is not None and used > 0


def test_configurations_are_parsed_in_order_each_once() -> None:
    assert parse_configs("servers=1, 2,workers=2,servers=2") == [Config(1), Config(2), Config(1, 2)]
    assert [c.name for c in parse_configs("servers=3,workers=2,sticky=2")] == ["servers=3", "workers=2", "sticky=2"]
    assert parse_configs("sticky=2") == [Config(2, sticky=True)] and Config(2, sticky=True).processes == 2
    assert Config(1, 2).processes == 2 and Config(3).processes == 3
    for bad in ("", "threads=2", "servers=0", "servers=x", "workers=9"):
        with pytest.raises(ValueError):
            parse_configs(bad)


def _phase(
    name: str, commands: int, cpu: float | None, seconds: float = 10.0, pace: float | None = None
) -> PhaseResult:
    phase = PhaseResult(name, "ws", 10, pace=pace, commands=commands, seconds=seconds, server_cpu=cpu)
    phase.round_trips = [0.01] * 98 + [0.06, 0.07]
    return phase


def _config(config: Config, commands: int, cpu: float) -> ConfigResult:
    result = ConfigResult(config, frames="decision")
    result.saturated = _phase("WebSocket, saturation", commands, cpu)
    result.paced = _phase("WebSocket, paced", commands // 2, cpu / 2, pace=1000)
    return result


def test_the_checks_set_cpu_per_command_and_rates_against_one_server() -> None:
    one = _config(Config(1), 10_000, 8.0)  # 0.8 ms a command
    two = _config(Config(2), 10_000, 9.0)  # 1.125×: kept
    three = _config(Config(3), 10_000, 24.0)  # 3×: missed
    workers = _config(Config(1, 2), 16_000, 13.0)  # 1.6× the commands/s: met
    report = ScaleReport(Options(), [one, two, three, workers], None, [])
    assert cpu_per_command(one.saturated) == pytest.approx(0.0008)
    assert cpu_per_command(PhaseResult("x", "ws", 1)) is None and within(None, 1.2) is None
    verdicts = {c[0]: (c[1], c[3]) for c in checks(report)}
    assert verdicts[
        "servers=2: server CPU per accepted command, summed over its processes, over servers=1's (saturation)"
    ] == ("1.12×", "kept")
    assert verdicts[
        "servers=3: server CPU per accepted command, summed over its processes, over servers=1's (paced)"
    ] == ("3.00×", "MISSED")
    assert verdicts["workers=2 commands/s (saturation) over servers=1's"] == ("1,600 / 1,000 = 1.60×", "met")
    p99 = [v for k, v in verdicts.items() if k.startswith("servers=1: paced round trip p99")]
    assert p99 == [("60.0 ms", "NOT met")]  # the 99th of 100 round trips (nearest rank): 60 ms
    rows = config_rows(report)
    assert [r[0] for r in rows] == ["servers=1", "servers=2", "servers=3", "workers=2"]
    assert all(len(r) == len(CONFIG_HEADERS) for r in rows)
    assert rows[2][11] == "MISSED / MISSED" and rows[1][11] == "kept / kept"

    slow = _config(Config(1, 2), 12_000, 13.0)
    verdicts = {c[0]: c[3] for c in checks(ScaleReport(Options(), [one, slow], None, []))}
    assert verdicts["workers=2 commands/s (saturation) over servers=1's"] == "NOT met"
    missing = ConfigResult(Config(1, 2), available=False, note="no --workers")
    verdicts = {c[0]: c[1] for c in checks(ScaleReport(Options(), [one, missing], None, []))}
    assert verdicts["workers=2 commands/s over servers=1's"] == "unavailable"
    assert config_rows(ScaleReport(Options(), [one, missing], None, []))[1][3] == "unavailable"


def test_the_owner_of_the_most_live_matches_is_killed(tmp_path: Path) -> None:
    a, b = (ServerProcess("sqlite://", tmp_path / f"{n}.log", name=n) for n in ("a", "b"))
    a.up = b.up = True
    live = {"m1": 30, "m2": 40, "m3": 50}
    owned = {"m1": f"http://127.0.0.1:{b.port}", "m2": f"http://127.0.0.1:{b.port}/", "m3": a.base, "gone": a.base}
    assert choose_victim([a, b], live, owned, 0) == (b, ["m1", "m2"])
    # without leases every server holds every match: the kills take turns
    assert choose_victim([a, b], live, {}, 1) == (b, ["m1", "m2", "m3"])


def test_a_set_up_request_that_lost_a_race_on_a_shared_stream_is_sent_again() -> None:
    race = b'{"code":"malformed","message":"the append breaks a database constraint: duplicate key value violates unique constraint \\"uq_events_stream_seq\\""}'
    answers = iter([(400, race), (400, race), (201, b'{"id": "p1"}')])
    sent: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request.content.decode())
        status, body = next(answers)
        return httpx.Response(status, content=body)

    retrying = RetryLostRaces(httpx.MockTransport(answer))

    async def register() -> httpx.Response:
        async with httpx.AsyncClient(base_url="http://x", transport=retrying) as http:
            return await http.post("/api/players", json={"name": "a"})

    response = _run_async(register())
    assert response.status_code == 201 and response.json() == {"id": "p1"}
    assert retrying.retried == 2 and len(sent) == 3 and len(set(sent)) == 1
    assert lost_race(400, race) and not lost_race(409, race) and not lost_race(400, b'{"code":"malformed"}')


def test_bad_options_are_refused() -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["bench", "scale", "--configs", "threads=2"]).exit_code == 2
    assert runner.invoke(app, ["bench", "scale", "--frames", "batch"]).exit_code == 2
    assert runner.invoke(app, ["bench", "scale", "--seconds", "0"]).exit_code == 2
    assert runner.invoke(app, ["bench", "scale", "--players", "0"]).exit_code == 2


def test_a_tiny_two_server_run_reports_every_configuration_its_checks_and_a_takeover(
    tmp_path: Path, postgres_reachable: None
) -> None:
    options = Options(
        configs=parse_configs("servers=1,servers=2,sticky=2"),
        players=2,
        seconds=2.0,
        rate=20.0,
        kills=1,
        takeover_bots=4,
        takeover_target=20,
        postgres_url=POSTGRES_URL,
    )
    report = run_scale(options, lambda _: None)

    assert report.problems == []
    assert [c.name for c in report.configs] == ["servers=1", "servers=2", "sticky=2"]
    for config in report.configs:
        assert config.available and config.frames in ("decision", "event")
        for phase in config.phases():
            assert not phase.errors and phase.commands > 0 and len(phase.round_trips) == phase.commands
            assert phase.server_cpu is not None and phase.server_cpu > 0
    assert report.configs[1].paced is not None and report.configs[1].paced.pace == 20.0
    verdicts = {c[0]: c[3] for c in checks(report)}
    cpu_checks = [v for k, v in verdicts.items() if k.startswith("servers=2: server CPU per accepted command")]
    assert len(cpu_checks) == 2 and set(cpu_checks) <= {"kept", "MISSED"}
    assert sum(k.endswith("achieved)") for k in verdicts) == 3  # a paced p99 check per configuration
    sticky = report.configs[2].off_owner  # with ownership, the server that started a match owns it
    assert sticky is None or (sticky[0] == 0 and sticky[1] > 0)

    takeover = report.takeover
    assert takeover is not None and takeover.ok, takeover.problems
    (kill,) = takeover.kills
    assert kill.matches >= 1 and kill.not_moved == [] and kill.unseen == []
    assert len(kill.seconds) == kill.matches and all(s > 0 for s in kill.seconds)
    assert takeover.replays_verified >= takeover.matches_checked == kill.matches

    doc = tmp_path / "BENCHMARKS.md"
    write_docs_section(doc, SECTION, markdown(report, "unoduo bench scale --players 2"))
    text = doc.read_text()
    assert "## Scale-out" in text and "| servers=2 | 2 |" in text and "**Takeover after `kill -9` of an owner**" in text
    assert "load average" in text and "≤ 1.2×" in text
