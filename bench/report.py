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
HAND_KEPT = "hand-kept"  # a subsection whose heading says so is kept by --write-docs (write_docs_section)
_INTRO = "# Benchmarks\n\nFigures from `unoduo bench …` runs, each with the machine and the exact command.\n\n"


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def hand_kept(section: str) -> list[str]:
    """The subsections (``### …``) of ``section`` whose heading says :data:`HAND_KEPT`: figures kept by
    hand (a before-and-after table, say) that a benchmark's run does not make again."""
    parts = re.split(r"^(?=### )", section, flags=re.M)[1:]
    return [p.rstrip("\n") + "\n" for p in parts if HAND_KEPT in p.partition("\n")[0]]


def write_docs_section(path: Path, heading: str, section: str) -> None:
    """Replace (or add) the section that starts with ``heading``, leaving the others as they are,
    and, at its end, its hand-kept subsections (:func:`hand_kept`) that ``section`` does not have."""
    old = path.read_text(encoding="utf-8") if path.exists() else _INTRO
    pattern = re.compile(rf"^{re.escape(heading)}\n.*?(?=^## |\Z)", re.S | re.M)
    found = pattern.search(old)
    if found:
        headings = {line for line in section.splitlines() if line.startswith("### ")}
        kept = [k for k in hand_kept(found.group(0)) if k.partition("\n")[0] not in headings]
        section = "\n".join([section.rstrip("\n") + "\n", *kept])
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
