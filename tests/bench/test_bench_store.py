"""``unoduo bench store`` runs end to end (briefly), and writes only its own section of BENCHMARKS.md."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from bench.report import write_docs_section
from cli.main import app


def test_a_short_bench_run_prints_every_row() -> None:
    result = CliRunner().invoke(
        app, ["bench", "store", "--db", "sqlite", "--seconds", "0.2", "--writers", "1,3"], env={"COLUMNS": "200"}
    )
    assert result.exit_code == 0, result.output
    for text in ("group commit", "per command", "raw insert", "commands/s", "nproc:", "SQLite"):
        assert text in result.output


def test_bad_options_are_refused() -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["bench", "store", "--db", "oracle"]).exit_code == 2
    assert runner.invoke(app, ["bench", "store", "--writers", "0"]).exit_code == 2


def test_the_event_store_section_is_replaced_and_other_sections_kept(tmp_path: Path) -> None:
    doc = tmp_path / "BENCHMARKS.md"
    write_docs_section(doc, "## Event store", "## Event store\n\nfirst\n")
    assert doc.read_text().startswith("# Benchmarks") and "first" in doc.read_text()
    doc.write_text(doc.read_text() + "\n## Engine\n\nengine figures\n")
    write_docs_section(doc, "## Event store", "## Event store\n\nsecond\n")
    text = doc.read_text()
    assert "second" in text and "first" not in text and "## Engine\n\nengine figures" in text
