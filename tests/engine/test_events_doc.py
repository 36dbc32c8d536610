"""docs/EVENTS.md documents every event type, every data field the engine emits, the batch heads,
and, for every field of every event's schema (engine.game.events.SCHEMAS), whether it is public or
sealed, and to whom a sealed field is opened."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from functools import cache
from pathlib import Path

import pytest

from engine import UNO_DUO, LocalMatch, Phase, TimeOut
from engine.game.commands import CallTime, CreateMatch, Forfeit, JoinSeat
from engine.game.events import HEAD_TYPES, SCHEMAS, EventSchema, EventType, Sealed
from engine.game.rulesets import MAX_SEATS
from engine.game.shuffle import Dealer, commitment_of
from engine.game.state import PendingKind
from engine.play.scenario import DEFAULT_SEED, build_dealer, parse_spec, run_scenario

ROOT = Path(__file__).resolve().parents[2]
EVENTS_DOC = ROOT / "docs" / "EVENTS.md"
SCENARIOS = sorted((ROOT / "docs" / "scenarios").glob("*.json"))
SECTION = re.compile(r"^### `([a-z_]+)`\s*$", re.MULTILINE)
ROW = re.compile(r"^\|(.*)\|\s*$", re.MULTILINE)
FIELD_CELL = re.compile(r"^`([a-z_0-9]+)`$")


def sections() -> dict[str, str]:
    text = EVENTS_DOC.read_text(encoding="utf-8")
    marks = list(SECTION.finditer(text))
    out: dict[str, str] = {}
    for index, mark in enumerate(marks):
        end = marks[index + 1].start() if index + 1 < len(marks) else len(text)
        out[mark.group(1)] = text[mark.end() : end]
    return out


def clock_events() -> list[dict[str, object]]:
    """A scenario holds seats' commands only, not the server's clock: so a match whose seats let
    every draft step time out, until one forfeits (``timed_out``, ``match_forfeited``)."""
    dealer = build_dealer(parse_spec({"first_drafter": 0}), UNO_DUO)
    match = LocalMatch.start(DEFAULT_SEED, UNO_DUO, dealer=dealer)
    while match.state.phase is not Phase.MATCH_OVER:
        seat = match.state.pending.seat
        assert seat is not None
        match.apply(TimeOut(seat))
    return [e.to_dict() for e in match.events]


def forfeit_events() -> list[dict[str, object]]:
    """A tournament's match (the schedule names round 1's first drafter) that a seat forfeits
    in the draft (``forfeit_declared``, ``match_created.first_drafter``) after its round's time
    was called (``time_called``, RULES.md D26)."""
    match = LocalMatch(dealer=Dealer(DEFAULT_SEED))
    match.apply(CreateMatch(UNO_DUO, commitment_of(DEFAULT_SEED), first_drafter=1))
    match.apply(JoinSeat(0, "a"))
    match.apply(JoinSeat(1, "b"))
    match.apply(CallTime("2026-12-07T12:00:00.000000Z"))
    match.apply(Forfeit(0, "withdrawal"))
    return [e.to_dict() for e in match.events]


@cache
def emitted() -> dict[str, dict[str, set[object]]]:
    """Per event type, per data key, the values seen across every docs scenario (and the clock's)."""
    seen: dict[str, dict[str, set[object]]] = defaultdict(lambda: defaultdict(set))
    runs = [clock_events(), forfeit_events()]
    for path in SCENARIOS:
        output = run_scenario(json.loads(path.read_text(encoding="utf-8")))
        runs.append(output["setup"] + [e for r in output["results"] if r["ok"] for e in r["events"]])
    for events in runs:
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
    assert fields, f"no docs scenario (nor clock_events) emits {event_type}: add one, so its fields are checked"
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
    fake = "### `cut`\ntext `cut`\n### `awaiting`\n`seat`\n"
    assert set(SECTION.findall(fake)) == {"cut", "awaiting"}
    assert {t.value for t in EventType} - set(SECTION.findall(fake))


# ---------------------------------------------------------------- the field tables against the schema


def field_rows(section: str) -> dict[str, str]:
    """Field name -> its visibility cell, from the markdown table(s) of one event's section.

    A table's header row names its columns; the one headed ``visibility`` is read. A row is a
    field row when its first cell is one backticked name (``| `card` | ... |``). A field named in
    two rows is an error, as is a field table without a visibility column.
    """
    rows: dict[str, str] = {}
    column: int | None = None
    for match in ROW.finditer(section):
        cells = [c.strip() for c in match.group(1).split("|")]
        if cells[0] == "field":
            assert "visibility" in cells, f"a field table has no visibility column: {cells}"
            column = cells.index("visibility")
            continue
        name = FIELD_CELL.match(cells[0])
        if name is None:
            continue  # the header's separator, or a row of another kind of table
        assert column is not None, f"the row of `{name.group(1)}` comes before its table's header"
        assert name.group(1) not in rows, f"`{name.group(1)}` is documented in two rows"
        rows[name.group(1)] = cells[column] if column < len(cells) else ""
    return rows


def expected_audience(schema: EventSchema, mark: Sealed) -> str:
    """What a sealed field's visibility cell must name: who the schema opens it to."""
    if mark.to is None:
        return "auditors"
    if isinstance(mark.to, int):
        return f"seat {mark.to}"
    assert mark.to in schema.public, f"{schema.type}: a field is sealed to `{mark.to}`, not a public field"
    return f"(`{mark.to}`)"  # e.g. "sealed → that seat (`seat`)", "sealed → the challenger (`by`)"


def visibility_problems(schema: EventSchema, section: str) -> list[str]:
    """Every way the section's field table disagrees with the schema (empty when it agrees)."""
    rows = field_rows(section)
    where = schema.type.value
    problems = [
        f"{where}.{name} is in the schema but has no row in its table" for name in schema.fields if name not in rows
    ]
    problems += [
        f"{where}.{name} is documented but is not a field of the schema" for name in rows if name not in schema.fields
    ]
    for name in schema.fields:
        cell = rows.get(name)
        if cell is None:
            continue
        mark = schema.sealed.get(name)
        if mark is None:
            if cell != "public":
                problems.append(f"{where}.{name} is public in engine/game/events.py, but its row says {cell!r}")
            continue
        audience = expected_audience(schema, mark)
        if not cell.startswith("sealed"):
            problems.append(
                f"{where}.{name} is sealed in engine/game/events.py (to {mark.to!r}); its row says {cell!r}"
            )
        elif audience not in cell:
            problems.append(f"{where}.{name} is sealed to {mark.to!r}: its row must name {audience!r}, not {cell!r}")
    return problems


@pytest.mark.parametrize("event_type", [t.value for t in EventType])
def test_every_schema_field_is_documented_with_its_visibility(event_type: str) -> None:
    section = sections().get(event_type)
    assert section is not None, f"{event_type} has no section"
    problems = visibility_problems(SCHEMAS[event_type], section)
    assert not problems, "docs/EVENTS.md disagrees with engine/game/events.py:\n" + "\n".join(problems)


def test_the_table_reader_catches_an_undocumented_or_mislabelled_field() -> None:
    schema = SCHEMAS[EventType.CARDS_DRAWN.value]
    header = "| field | type | visibility | meaning |\n| --- | --- | --- | --- |\n"
    good = header + (
        "| `seat` | seat | public | who |\n| `count` | integer | public | n |\n| `reason` | string | public | why |\n"
        "| `cards` | ids | sealed → auditors | ids |\n| `codes` | codes | sealed → that seat (`seat`) | codes |\n"
    )
    assert visibility_problems(schema, good) == []
    missing = good.replace("| `codes` | codes | sealed → that seat (`seat`) | codes |\n", "")
    assert visibility_problems(schema, missing) == ["cards_drawn.codes is in the schema but has no row in its table"]
    leaked = good.replace("sealed → that seat (`seat`)", "public")
    assert len(visibility_problems(schema, leaked)) == 1
    wrong_audience = good.replace("sealed → that seat (`seat`)", "sealed → auditors")
    assert len(visibility_problems(schema, wrong_audience)) == 1
    hidden_public = good.replace("| `count` | integer | public |", "| `count` | integer | sealed → auditors |")
    assert len(visibility_problems(schema, hidden_public)) == 1
    stale = good + "| `m` | integer | public | an old name |\n"
    assert visibility_problems(schema, stale) == ["cards_drawn.m is documented but is not a field of the schema"]


def test_every_sealed_field_is_opened_to_someone_the_doc_can_name() -> None:
    for schema in SCHEMAS.values():
        for name, mark in schema.sealed.items():
            assert mark.to is None or mark.to in range(MAX_SEATS) or mark.to in schema.public, (
                f"{schema.type}.{name} is sealed to {mark.to!r}: neither a seat nor a public field of the event"
            )
