"""``unoduo bench live`` on a few commands: real figures, and the reference beside them."""

from __future__ import annotations

from bench.live import run


def test_the_live_bench_measures_the_service_and_the_engine_alone() -> None:
    figures = run(matches=2, commands=60)
    assert figures.commands >= 60
    assert figures.service_us > 0 and figures.engine_us > 0 and figures.decision_us > 0
    assert figures.ratio > 1  # the store and the fan-out cost something on top of the rules
    assert figures.decision_ratio > 1
