"""``unoduo bench server`` runs end to end against a real server (briefly) and reports sensible figures."""

from __future__ import annotations

import random
from pathlib import Path

from typer.testing import CliRunner

from bench.report import write_docs_section
from bench.server import (
    SECTION,
    Options,
    PhaseResult,
    markdown,
    percentile,
    reading,
    rows,
    run_bench,
    sections,
    thinker,
)
from cli.main import app


def test_a_tiny_run_measures_capacity_then_latency_at_a_paced_load(tmp_path: Path) -> None:
    # 2 players at 20 commands/s in all: each thinks 100 ms (± 50 %) between an answer and its next command
    options = Options(matches=2, seconds=2.5, noop_seconds=1, watched=1, spectators=2, rate=20)  # raw HTTP client
    report = run_bench(options, lambda _: None)

    assert report.server_exit == 0, report.server_log_tail
    assert report.noop.requests > 0 and report.noop.rate > 0 and not report.noop.errors
    assert [p.name for p in report.phases] == [
        "WebSocket, saturation",
        "WebSocket, saturation, per-decision frames",
        "HTTP POST, saturation",
        "WebSocket, paced",
        "HTTP POST, paced",
        "WebSocket, paced + 2 spectators",
    ]
    for phase in report.phases:
        assert not phase.errors, phase.errors
        assert phase.commands > 0 and phase.rate > 0 and phase.seconds > 0
        assert len(phase.round_trips) == phase.commands
        assert phase.match0_round_trips and phase.deliveries  # match 0 is the watched one
        assert all(t > 0 for t in phase.round_trips + phase.deliveries)
    saturated, decisions, paced = report.phases[0], report.phases[1], report.phases[3]
    assert (saturated.frames, decisions.frames, decisions.pace) == ("event", "decision", None)
    assert saturated.pace is None and paced.pace == 20 and paced.think == 0.1
    # the think time holds the paced players back: at most 2 players / 0.05 s = 40 commands/s, however fast
    # the machine (no bound on saturation's rate: a loaded machine makes it slower, and that is no failure)
    assert paced.rate <= 2 / 0.05 * 1.05
    crowded = report.phases[5]
    assert crowded.spectators == 2 and crowded.pace == 20 and crowded.crowd_deliveries and crowded.crowd_messages > 0

    parts = [title for title, _ in sections(report)]
    assert parts[0].startswith("Capacity") and parts[1].startswith("Latency at a paced load") and len(parts) == 3
    measures = [m for m, _, _, _ in rows(report)]
    assert any("no-op" in m for m in measures)
    assert any("at saturation (queueing)" in m for m in measures)
    assert any("achieved of offered" in m for m in measures)
    assert any("match 0's player round trip p99, without → with 2 spectators" in m for m in measures)
    assert any("all players' round trip p99, without → with 2 spectators" in m for m in measures)
    assert any("per-decision frames: commands/s" in m for m in measures)
    assert any(note.startswith("Frames: with one message per decision") for note in reading(report))
    doc = tmp_path / "BENCHMARKS.md"
    write_docs_section(doc, SECTION, markdown(report, "unoduo bench server --matches 2"))
    text = doc.read_text()
    assert text.startswith("# Benchmarks") and "## Server" in text and "≤ 50 ms" in text and "nproc:" in text
    assert "**Capacity (saturation: no think time)**" in text and "UNODUO_BOT_THINK_SECONDS=0" in text


def test_a_paced_player_thinks_half_to_one_and_a_half_times_the_mean() -> None:
    think = thinker(0.1, random.Random(7))
    samples = [think() for _ in range(2000)]
    assert 0.05 <= min(samples) < 0.055 and 0.145 < max(samples) <= 0.15
    assert abs(sum(samples) / len(samples) - 0.1) < 0.003


def test_a_paced_phase_below_the_offered_rate_did_not_keep_up() -> None:
    phase = PhaseResult("WebSocket, paced", "ws", matches=100, pace=1000, commands=4000, seconds=10)
    assert phase.think == 0.1 and phase.kept_up is False
    assert PhaseResult("x", "ws", matches=100, pace=1000, commands=9500, seconds=10).kept_up is True
    assert PhaseResult("x", "ws", matches=100, commands=9500, seconds=10).kept_up is None


def test_percentiles_are_nearest_rank() -> None:
    samples = [float(i) for i in range(1, 101)]
    assert percentile(samples, 50) == 50.0 and percentile(samples, 99) == 99.0 and percentile([], 50) is None


def test_bad_options_are_refused() -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["bench", "server", "--db", "oracle"]).exit_code == 2
    assert runner.invoke(app, ["bench", "server", "--seconds", "0"]).exit_code == 2
    assert runner.invoke(app, ["bench", "server", "--matches", "0"]).exit_code == 2
    assert runner.invoke(app, ["bench", "server", "--http-client", "curl"]).exit_code == 2
    assert runner.invoke(app, ["bench", "server", "--rate", "0"]).exit_code == 2


def test_the_httpx_client_can_drive_the_no_op_and_the_http_phase_instead() -> None:
    options = Options(matches=1, seconds=1, noop_seconds=0.5, watched=0, spectators=0, http_client="httpx")
    report = run_bench(options, lambda _: None)
    assert report.noop.requests > 0 and not report.noop.errors
    http = report.phase("HTTP POST, saturation")
    assert http is not None and http.commands > 0 and not http.errors
    assert report.noop.client_cpu > 0 and http.client_cpu > 0
