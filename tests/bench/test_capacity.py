"""``unoduo bench capacity``: a tiny run end to end (the report's structure, and that commands were
made and answered; never its figures against a budget), the hand-kept "Before" subsection that
``--write-docs`` keeps, and the options it refuses."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from bench.capacity import (
    SECTION,
    STEP_HEADERS,
    Options,
    driver_count,
    kept_subsections,
    markdown,
    run_capacity,
    split,
    step_rows,
    target_rows,
)
from bench.report import write_docs_section
from cli.main import app


def test_a_tiny_run_plays_two_human_seats_a_match_and_measures_the_floor(tmp_path: Path) -> None:
    report = run_capacity(Options(matches=(2,), seconds=3, idle_seconds=1), lambda _: None)

    [step] = report.steps
    server, floor = step.server, step.floor
    assert step.matches == 2 and server.program == "server" and server.drivers == 1
    assert not server.share.errors, server.share.errors
    assert server.share.commands > 0 and len(server.share.round_trips) == server.share.commands
    assert all(t > 0 for t in server.share.round_trips)
    assert server.cpu is not None and server.idle_cpu is not None and server.idle_seconds > 0
    assert all(r is not None for r in server.rss_kib)
    assert floor is not None and floor.program == "floor" and not floor.share.errors
    assert floor.share.commands > 0 and len(floor.share.round_trips) == floor.share.commands
    assert floor.cpu is not None and floor.idle_cpu is not None

    [row] = step_rows(report)
    assert len(row) == len(STEP_HEADERS) and row[0] == "2"
    assert target_rows(report)[0][0].startswith("(no step at 1,000 matches")
    doc = tmp_path / "BENCHMARKS.md"
    doc.write_text(f"# Benchmarks\n\n{SECTION}\n\nold\n\n### Before (commit abc)\n\n| kept |\n\n## Engine\n\nx\n")
    write_docs_section(
        doc, SECTION, markdown(report, "unoduo bench capacity --matches 2", kept_subsections(doc.read_text()))
    )
    text = doc.read_text()
    assert "### Latest run (commit " in text and "### Before (commit abc)\n\n| kept |" in text
    assert "old" not in text and "## Engine\n\nx" in text and text.count(SECTION) == 1
    assert "\n|" + " ---: |" * len(STEP_HEADERS) + "\n| 2 | 1 | " in text  # the steps' table, one row
    assert text.index("### Latest run") < text.index("### Before") < text.index("## Engine")


def test_only_the_before_subsections_are_kept() -> None:
    text = f"# B\n\n{SECTION}\n\nintro\n\n### Latest run (commit x)\n\nnew\n\n### Before (commit y)\n\nold\n\n## Next\n"
    assert kept_subsections(text) == "### Before (commit y)\n\nold\n\n"
    assert kept_subsections("# B\n\n## Other\n") == ""


def test_matches_are_shared_out_evenly_among_the_drivers() -> None:
    assert split(1001, 2) == [501, 500] and split(3, 4) == [1, 1, 1, 0] and sum(split(2000, 4)) == 2000
    assert driver_count(100, None) == 1 and driver_count(1000, None) == 2 and driver_count(2000, 3) == 3


def test_bad_options_are_refused() -> None:
    runner = CliRunner()
    for args in (["--matches", "0"], ["--matches", "a,b"], ["--seconds", "0"], ["--idle-seconds", "-1"], ["--db", "x"]):
        assert runner.invoke(app, ["bench", "capacity", *args]).exit_code == 2, args
