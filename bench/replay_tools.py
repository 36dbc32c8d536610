"""``unoduo bench replay``: ``unoduo verify`` and ``unoduo audit`` on a whole match, as a director runs them.

Each command runs as its own process, as typed at a prompt, several times; the figure is its wall
time beyond the interpreter's start-up. The reference, run the same way in the same run, is
``python -c pass`` with the same interpreter: the start-up every command pays and no code of ours
can avoid. The issue's bar: each under 0.5 s beyond that, on a whole match to 200.

Also reported, in this process: the time of the checks alone (``verify_replay``, ``audit``), so a
slow figure can be told apart from a slow import.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from bench.report import BENCHMARKS_MD, cpu_model, section_head, write_docs_section
from engine.fairness.audit_report import audit
from engine.fairness.verify import verify_replay
from engine.record.replay import parse_replay

SECTION = "## Replay tools (verify, audit)"
ROOT = Path(__file__).resolve().parents[1]
DEFAULT_REPLAY = ROOT / "replays" / "match-to-200.jsonl"
BAR_SECONDS = 0.5


@dataclass(frozen=True)
class ToolFigures:
    events: int
    final_scores: list[int]
    startup_s: float  # median wall time of `python -c pass`
    verify_s: float  # median wall time of `unoduo verify FILE`
    audit_s: float  # median wall time of `unoduo audit FILE`
    verify_in_process_s: float
    audit_in_process_s: float

    @property
    def verify_beyond(self) -> float:
        return self.verify_s - self.startup_s

    @property
    def audit_beyond(self) -> float:
        return self.audit_s - self.startup_s


def _wall(argv: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        done = subprocess.run(argv, cwd=ROOT, capture_output=True, check=False)
        times.append(time.perf_counter() - started)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} exited {done.returncode}: {done.stderr.decode()[:300]}")
    return statistics.median(times)


def _in_process(action: object, runs: int) -> float:
    assert callable(action)
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def run(replay: Path, runs: int) -> ToolFigures:
    text = replay.read_text(encoding="utf-8")
    _header, lines = parse_replay(text)
    ended = next((line for line in lines if line["type"] == "match_ended"), None)
    scores = list(ended["data"]["scores"]) if ended else []
    cli = [sys.executable, "-m", "cli.main"]
    return ToolFigures(
        events=len(lines),
        final_scores=scores,
        startup_s=_wall([sys.executable, "-c", "pass"], runs),
        verify_s=_wall([*cli, "verify", str(replay)], runs),
        audit_s=_wall([*cli, "audit", str(replay)], runs),
        verify_in_process_s=_in_process(lambda: verify_replay(text), runs),
        audit_in_process_s=_in_process(lambda: audit(text), runs),
    )


def run_and_report(replay: Path, runs: int, write_docs: bool, command: str) -> ToolFigures:
    console = Console()
    console.log(f"{replay.name}: unoduo verify and unoduo audit, {runs} runs each, against `python -c pass`…")
    f = run(replay, runs)

    def verdict(seconds: float) -> str:
        return "met" if seconds < BAR_SECONDS else "NOT met"

    rows = [
        ("`python -c pass` (the interpreter's start-up: reference)", f.startup_s, "-", "-"),
        ("`unoduo verify FILE`", f.verify_s, f"{f.verify_beyond:.3f} s", verdict(f.verify_beyond)),
        ("`unoduo audit FILE`", f.audit_s, f"{f.audit_beyond:.3f} s", verdict(f.audit_beyond)),
    ]
    body = [
        f"A whole match: {f.events} events, final scores {f.final_scores}.",
        "",
        "| command | wall time (median) | beyond start-up (target < 0.5 s) | |",
        "| --- | ---: | ---: | --- |",
        *[f"| {name} | {seconds:.3f} s | {beyond} | {ok} |" for name, seconds, beyond, ok in rows],
        "",
        f"In this process, without start-up or imports: `verify_replay` {f.verify_in_process_s * 1000:.1f} ms, "
        f"`audit` (which verifies first) {f.audit_in_process_s * 1000:.1f} ms. The rest of each command's time "
        "is importing the engine and the command line (typer, rich).",
    ]
    for line in body:
        console.print(line)
    if write_docs:
        facts = [
            f"CPU: {cpu_model()}; Python {sys.version.split()[0]}; wall time of a fresh process per run",
            f"the replay: `{replay.relative_to(ROOT) if replay.is_relative_to(ROOT) else replay}`, {runs} runs each",
        ]
        write_docs_section(BENCHMARKS_MD, SECTION, "\n".join([*section_head(SECTION, command, facts), *body]) + "\n")
        console.print(f"wrote {BENCHMARKS_MD}")
    return f
