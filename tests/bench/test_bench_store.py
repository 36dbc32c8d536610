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


def test_a_hand_kept_subsection_survives_a_rewrite_of_its_section(tmp_path: Path) -> None:
    doc = tmp_path / "BENCHMARKS.md"
    kept = "### Before and after (hand-kept)\n\n| run | ratio |\n| --- | ---: |\n| before | 4.8× |\n"
    write_docs_section(doc, "## Tournament", f"## Tournament\n\nfirst run\n\n### By round\n\nold rounds\n\n{kept}")
    doc.write_text(doc.read_text() + "\n## Tournament: Swiss\n\nswiss figures\n")
    write_docs_section(doc, "## Tournament", "## Tournament\n\nsecond run\n\n### By round\n\nnew rounds\n")
    text = doc.read_text()
    assert "second run" in text and "new rounds" in text and "first run" not in text and "old rounds" not in text
    assert text.count(kept) == 1 and text.index(kept) < text.index("## Tournament: Swiss\n\nswiss figures")
    # a run that writes the subsection itself (bench capacity's "### Before") is not given a second copy
    write_docs_section(doc, "## Tournament", f"## Tournament\n\nthird run\n\n{kept}")
    assert doc.read_text().count("### Before and after (hand-kept)") == 1
