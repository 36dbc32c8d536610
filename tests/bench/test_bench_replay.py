"""``unoduo bench replay``: the figures are consistent (each command slower than bare start-up)."""

from __future__ import annotations

from bench.replay_tools import DEFAULT_REPLAY, run


def test_the_replay_tools_bench_measures_both_commands_against_start_up() -> None:
    figures = run(DEFAULT_REPLAY, runs=1)
    assert figures.events > 100 and max(figures.final_scores) >= 200  # a whole match to 200
    assert figures.verify_s > figures.startup_s and figures.audit_s > figures.startup_s
    assert figures.verify_beyond == figures.verify_s - figures.startup_s
    assert 0 < figures.verify_in_process_s < figures.verify_s
    assert 0 < figures.audit_in_process_s < figures.audit_s
