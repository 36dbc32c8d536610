"""``unoduo bench scrub``: the replay scrubber's jump to any event (issue: "under 50 ms").

Two figures, on a whole match (by default the sample match to 200):

- **the headless core**: ``ReplayModel.frame(seq, viewer)`` for every event, in every
  perspective, newest first (the worst case for anything that would fold forward) — the time
  of one jump without the screen;
- **the screen**: the scrubber under Textual's Pilot at 80×24 and 120×40, a run of keys (End,
  Home, ``w``, ``v``, ``]``, ``[``, ←, PageDown …); per key, the scrubber's own measure of the
  jump (``last_update_ms``: the frame built and every widget updated) and the process's CPU
  time for the key (Pilot's own work included, its idle waits not).

The reference, in the same process: folding the match from its first event to the jumped-to
one with the engine (``table_at``), which is what a scrubber that kept no states would pay for
each jump; the ratio says what keeping every state buys. The bar is the issue's: the worst jump
under 50 ms.
"""

from __future__ import annotations

import asyncio
import gc
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console

from bench.report import BENCHMARKS_MD, cpu_model, section_head, write_docs_section
from engine.fairness.audit_report import table_at

SECTION = "## Replay scrubber (jump to any event)"
ROOT = Path(__file__).resolve().parents[1]
DEFAULT_REPLAY = ROOT / "replays" / "match-to-200.jsonl"
BAR_MS = 50.0
KEYS = ["end", "home", "w", "v", "]", "w", "v", "end", "[", "left", "w", "v", "home", "pagedown"] * 2
SIZES = ((80, 24), (120, 40))


@dataclass
class ScreenFigures:
    size: tuple[int, int]
    update_ms: list[float] = field(default_factory=list)  # the scrubber's own measure of each jump
    cpu_ms: list[float] = field(default_factory=list)  # process CPU per key, Pilot included


@dataclass
class ScrubFigures:
    events: int
    open_ms: float  # read + verify + fold every state
    frame_ms: list[float]  # every event × every perspective
    fold_ms: list[float]  # the reference: table_at from the start, for a sample of events
    screens: list[ScreenFigures]

    @property
    def worst_jump_ms(self) -> float:
        return max([max(self.frame_ms), *(max(s.update_ms) for s in self.screens)])


def _core(text: str) -> tuple[int, float, list[float], list[float]]:
    from tui_client.models.replay_model import PERSPECTIVES, ReplayModel

    started = time.perf_counter()
    model = ReplayModel(text)
    open_ms = (time.perf_counter() - started) * 1000
    frames = []
    for viewer in PERSPECTIVES:
        for seq in range(model.total, 0, -1):
            t = time.perf_counter()
            model.frame(seq, viewer, before=30)
            frames.append((time.perf_counter() - t) * 1000)
    folds = []
    for seq in range(model.total, 0, -max(1, model.total // 20)):  # about 20 events, newest first
        t = time.perf_counter()
        table_at(model.events, seq)
        folds.append((time.perf_counter() - t) * 1000)
    return model.total, open_ms, frames, folds


async def _screen(text: str, size: tuple[int, int]) -> ScreenFigures:
    from tui_client.apps.replay_app import ScrubberScreen, make_app

    figures = ScreenFigures(size)
    app = make_app(text, freeze_gc=True)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ScrubberScreen), screen
        for key in KEYS:
            started = time.process_time()
            await pilot.press(key)
            await pilot.pause()
            figures.cpu_ms.append((time.process_time() - started) * 1000)
            figures.update_ms.append(screen.last_update_ms)
    gc.unfreeze()
    return figures


def run(replay: Path) -> ScrubFigures:
    text = replay.read_text(encoding="utf-8")
    events, open_ms, frames, folds = _core(text)
    screens = [asyncio.run(_screen(text, size)) for size in SIZES]
    return ScrubFigures(events, open_ms, frames, folds, screens)


def _ms(values: list[float]) -> str:
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return f"median {statistics.median(ordered):.2f} ms, p99 {p99:.2f} ms, worst {ordered[-1]:.2f} ms"


def lines(f: ScrubFigures) -> list[str]:
    fold = statistics.median(f.fold_ms)
    frame = statistics.median(f.frame_ms)
    verdict = "met" if f.worst_jump_ms < BAR_MS else "NOT met"
    body = [
        f"A whole match: {f.events} events. Opening it (read, verify, fold and keep every state): {f.open_ms:.1f} ms.",
        "",
        "| | per jump |",
        "| --- | --- |",
        f"| headless core, `frame(seq, viewer)`, every event × 3 perspectives ({len(f.frame_ms)} jumps) | {_ms(f.frame_ms)} |",
    ]
    for s in f.screens:
        w, h = s.size
        body.append(
            f"| the screen at {w}×{h}, the scrubber's own measure ({len(s.update_ms)} keys) | {_ms(s.update_ms)} |"
        )
        body.append(f"| the screen at {w}×{h}, process CPU per key, Pilot included | {_ms(s.cpu_ms)} |")
    body += [
        f"| reference: `table_at`, folding from the first event ({len(f.fold_ms)} events) | {_ms(f.fold_ms)} |",
        "",
        f"Worst jump {f.worst_jump_ms:.1f} ms (target < {BAR_MS:.0f} ms: {verdict}); a kept-state jump costs "
        f"{frame / fold:.3f}× a fold from the start (medians).",
    ]
    return body


def run_and_report(replay: Path, write_docs: bool, command: str) -> ScrubFigures:
    console = Console()
    console.log(f"{replay.name}: every jump of the headless core, then {len(KEYS)} keys at each of {SIZES}…")
    f = run(replay)
    body = lines(f)
    for line in body:
        console.print(line)
    if write_docs:
        where = replay.relative_to(ROOT) if replay.is_relative_to(ROOT) else replay
        facts = [f"CPU: {cpu_model()}; Python {sys.version.split()[0]}", f"the replay: `{where}`"]
        write_docs_section(BENCHMARKS_MD, SECTION, "\n".join([*section_head(SECTION, command, facts), *body]) + "\n")
        console.print(f"wrote {BENCHMARKS_MD}")
    return f
