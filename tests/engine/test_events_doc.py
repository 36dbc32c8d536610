"""docs/EVENTS.md documents every event type, every data field the engine emits, and the batch heads."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from functools import cache
from pathlib import Path

import pytest

from engine.events import HEAD_TYPES, EventType
from engine.scenario import run_scenario
from engine.state import PendingKind

ROOT = Path(__file__).resolve().parents[2]
EVENTS_DOC = ROOT / "docs" / "EVENTS.md"
SCENARIOS = sorted((ROOT / "docs" / "scenarios").glob("*.json"))
SECTION = re.compile(r"^### `([a-z_]+)`\s*$", re.MULTILINE)


def sections() -> dict[str, str]:
    text = EVENTS_DOC.read_text(encoding="utf-8")
    marks = list(SECTION.finditer(text))
    out: dict[str, str] = {}
    for index, mark in enumerate(marks):
        end = marks[index + 1].start() if index + 1 < len(marks) else len(text)
        out[mark.group(1)] = text[mark.end() : end]
    return out


@cache
def emitted() -> dict[str, dict[str, set[object]]]:
    """Per event type, per data key, the values seen across every docs scenario."""
    seen: dict[str, dict[str, set[object]]] = defaultdict(lambda: defaultdict(set))
    for path in SCENARIOS:
        output = run_scenario(json.loads(path.read_text(encoding="utf-8")))
        events = output["setup"] + [e for r in output["results"] if r["ok"] for e in r["events"]]
        for event in events:
            for key, value in event["data"].items():
                seen[event["type"]][key].add(value if isinstance(value, (str, int, bool)) else None)
    return seen


def test_every_event_type_has_exactly_one_section() -> None:
    documented = SECTION.findall(EVENTS_DOC.read_text(encoding="utf-8"))
    assert sorted(documented) == sorted(set(documented)), "a type is documented twice"
    assert set(documented) == {t.value for t in EventType}


@pytest.mark.parametrize("event_type", [t.value for t in EventType])
def test_every_emitted_field_is_documented_under_its_event(event_type: str) -> None:
    fields = emitted().get(event_type)
    assert fields, f"no docs scenario emits {event_type}: add one, so its fields are checked"
    section = sections()[event_type]
    for key in fields:
        assert f"`{key}`" in section, f"{event_type}.{key} is not documented"


def test_every_reason_and_awaited_kind_is_documented() -> None:
    seen = emitted()
    text = sections()
    for event_type in ("cards_drawn", "draw_lapsed"):
        for reason in seen[event_type]["reason"]:
            assert f"`{reason}`" in text["cards_drawn"], f"reason {reason} is not documented"
    kinds = {k.value for k in PendingKind} - {"none"}
    assert seen["awaiting"]["kind"] == kinds
    for kind in kinds:
        assert f"`{kind}`" in text["awaiting"]


def test_the_batch_heads_are_explained() -> None:
    text = EVENTS_DOC.read_text(encoding="utf-8")
    batches = text[text.index("## Batches") : text.index("## Who sees what")]
    for head in HEAD_TYPES:
        assert f"`{head}`" in batches
    assert "re-run" in batches


def test_the_section_finder_sees_a_missing_section() -> None:
    fake = "### `cut`\ntext `k`\n### `awaiting`\n`seat`\n"
    assert set(SECTION.findall(fake)) == {"cut", "awaiting"}
    assert {t.value for t in EventType} - set(SECTION.findall(fake))
