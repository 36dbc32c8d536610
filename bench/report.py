"""What every benchmark shares: the machine's CPU model, the section names, and writing a
benchmark's own section of docs/BENCHMARKS.md without touching the others."""

from __future__ import annotations

import platform
import re
from datetime import UTC, datetime
from pathlib import Path

BENCHMARKS_MD = Path(__file__).resolve().parents[1] / "docs" / "BENCHMARKS.md"
ENGINE_SECTION = "## Engine"
STORE_SECTION = "## Event store"
_INTRO = "# Benchmarks\n\nFigures from `unoduo bench …` runs, each with the machine and the exact command.\n\n"


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def write_docs_section(path: Path, heading: str, section: str) -> None:
    """Replace (or add) the section that starts with ``heading``, leaving the others as they are."""
    old = path.read_text(encoding="utf-8") if path.exists() else _INTRO
    pattern = re.compile(rf"^{re.escape(heading)}\n.*?(?=^## |\Z)", re.S | re.M)
    if pattern.search(old):
        new = pattern.sub(lambda _: section + "\n", old, count=1)
    else:
        new = old.rstrip("\n") + "\n\n" + section
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(new.rstrip("\n") + "\n", encoding="utf-8")


def section_head(heading: str, command: str, facts: list[str]) -> list[str]:
    """The opening lines every benchmark section shares: heading, date and command, machine facts."""
    return [
        heading,
        "",
        f"Measured {datetime.now(UTC):%Y-%m-%d} with `{command}`.",
        "",
        *[f"- {fact}" for fact in facts],
        "",
    ]
