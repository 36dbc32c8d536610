"""``unoduo bench web-live`` on a small field: real figures from a real server, the reference beside them."""

from __future__ import annotations

from bench.web_live import Options, extra_cpu_per_frame_us, run, summary


def test_the_web_live_bench_follows_a_tournament_with_many_pages_and_with_one() -> None:
    reference, many = run(Options(pages=5, players=4, join_seconds=1))
    assert reference.pages == 1 and many.pages == 5
    for phase in (reference, many):
        assert phase.results == 6  # a round robin of four: six pairings, each a no-show
        assert len(phase.latencies) == phase.results * phase.pages  # every result reached every page
        assert all(latency > 0 for latency in phase.latencies)  # received after it was recorded, never before
        assert phase.versions >= 2 and phase.frames >= 2 * phase.pages  # the start, then results a second later
        assert phase.server_cpu > 0 and phase.rss_open > 0
    assert isinstance(extra_cpu_per_frame_us(reference, many), float) and len(summary(reference, many)) == 3
