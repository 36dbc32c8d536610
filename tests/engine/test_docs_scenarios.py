"""Every worked example of docs/RULES.md is a scenario in docs/scenarios/, run here.

Each scenario file carries an ``expect`` object (the format is in docs/RULES.md, "Reading a
worked example"):

- ``ok``: one boolean per command, exactly;
- ``errors``: for every refused command (and only those), a subset of its error
  (``code``, ``rule``), keyed by the command's index;
- ``events``: per command index, ``[type, data subset]`` pairs that must occur, in that order,
  among the events the command produced;
- ``setup``: the same, for the events before the first command (match creation, the cut,
  round 1's start);
- ``views``: one subset per seat (the scenario's ``seats``, 2 unless it says), of each seat's
  final view, seat 0 first;
- ``audit``: a subset of the final audit view.

A subset match compares objects key by key (recursively); lists and scalars must be equal.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from engine.game.errors import ErrorCode
from engine.play.scenario import run_scenario

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
SCENARIOS = DOCS / "scenarios"
RULES_DOC = DOCS / "RULES.md"
SCENARIO_FILES = sorted(SCENARIOS.glob("*.json"))
RULING_ID = re.compile(r"D(\d+)([a-z]?)")


def ruling_key(ruling: str) -> tuple[int, str]:
    """``"D13c"`` -> ``(13, "c")``: rulings in document order (D13, then D13c, then D14)."""
    found = RULING_ID.fullmatch(ruling)
    assert found, f"not a ruling id: {ruling!r}"
    return int(found.group(1)), found.group(2)


RULING_IDS = sorted([f"D{n}" for n in range(1, 26)] + ["D13c"], key=ruling_key)
EXPECT_KEYS = {"ok", "errors", "events", "setup", "views", "audit"}
POINT_KEYS = EXPECT_KEYS - {"ok"}


# ---------------------------------------------------------------- the expect checker


def _same(expected: Any, actual: Any) -> bool:
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    return bool(expected == actual)


def subset_problems(expected: Any, actual: Any, where: str) -> list[str]:
    """Where ``actual`` fails to contain ``expected`` (objects by key, everything else by value)."""
    if isinstance(expected, Mapping):
        if not isinstance(actual, Mapping):
            return [f"{where}: expected an object, got {actual!r}"]
        problems: list[str] = []
        for key, value in expected.items():
            if key not in actual:
                problems.append(f"{where}.{key}: missing")
            else:
                problems += subset_problems(value, actual[key], f"{where}.{key}")
        return problems
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(expected) != len(actual):
            return [f"{where}: expected {expected!r}, got {actual!r}"]
        problems = []
        for index, (e, a) in enumerate(zip(expected, actual, strict=False)):
            problems += subset_problems(e, a, f"{where}[{index}]")
        return problems
    if not _same(expected, actual):
        return [f"{where}: expected {expected!r}, got {actual!r}"]
    return []


def event_problems(expected: list[Any], events: list[dict[str, Any]], where: str) -> list[str]:
    """Each ``[type, data subset]`` must match a later event than the previous one did."""
    position = 0
    for number, item in enumerate(expected):
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[1], Mapping)):
            return [f"{where}[{number}]: write an expected event as [type, {{data subset}}]"]
        type_, data = item
        while position < len(events):
            event = events[position]
            position += 1
            if event["type"] == type_ and not subset_problems(data, event["data"], ""):
                break
        else:
            seen = [e["type"] for e in events]
            return [f"{where}[{number}]: no {type_} event with {data!r} in order (events: {seen})"]
    return []


def expect_problems(spec: Mapping[str, Any], output: Mapping[str, Any]) -> list[str]:
    """Everything in ``spec["expect"]`` that ``output`` (run_scenario's answer) does not meet."""
    expect = spec.get("expect")
    if not isinstance(expect, Mapping):
        return ["the scenario has no expect object"]
    unknown = set(expect) - EXPECT_KEYS
    if unknown:
        return [f"unknown expect keys: {sorted(unknown)}"]
    if not POINT_KEYS & set(expect):
        return ["expect pins nothing beyond ok: add events, views, audit, setup or errors"]
    results = output["results"]
    problems: list[str] = []
    ok = expect.get("ok")
    if not isinstance(ok, list) or len(ok) != len(spec.get("commands", [])):
        return [f"expect.ok must list one boolean per command ({len(spec.get('commands', []))})"]
    actual_ok = [r["ok"] for r in results]
    for index, (wanted, got) in enumerate(zip(ok, actual_ok, strict=False)):
        if wanted is not got:
            detail = "" if got else f": {results[index]['error']}"
            problems.append(f"command {index}: expected ok={wanted}, got ok={got}{detail}")
    errors = expect.get("errors", {})
    refused = {str(i) for i, r in enumerate(results) if not r["ok"]}
    if set(errors) != refused:
        problems.append(f"expect.errors must name exactly the refused commands {sorted(refused, key=int)}")
    for key, error in errors.items():
        if key in refused:
            problems += subset_problems(error, results[int(key)]["error"], f"errors[{key}]")
    for key, wanted_events in expect.get("events", {}).items():
        index = int(key)
        if index >= len(results) or not results[index]["ok"]:
            problems.append(f"events[{key}]: command {key} was not accepted, it has no events")
            continue
        problems += event_problems(wanted_events, results[index]["events"], f"events[{key}]")
    if "setup" in expect:
        problems += event_problems(expect["setup"], output["setup"], "setup")
    if "views" in expect:
        views, seats = expect["views"], spec.get("seats", 2)
        if not isinstance(views, list) or len(views) != seats or len(output["views"]) != seats:
            problems.append(f"expect.views and the output's views must hold one object per seat ({seats})")
        else:
            for seat in range(seats):
                problems += subset_problems(views[seat], output["views"][seat], f"views[{seat}]")
    if "audit" in expect:
        problems += subset_problems(expect["audit"], output["audit"], "audit")
    return problems


def load(path: Path) -> dict[str, Any]:
    spec = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(spec, dict)
    return spec


# ---------------------------------------------------------------- every scenario meets its expect


def test_there_are_scenarios() -> None:
    assert len(SCENARIO_FILES) >= 40


@pytest.mark.parametrize("path", SCENARIO_FILES, ids=[p.name for p in SCENARIO_FILES])
def test_scenario_meets_its_expect(path: Path) -> None:
    spec = load(path)
    assert isinstance(spec.get("note"), str) and spec["note"].strip(), "every example explains itself"
    output = run_scenario(spec)
    problems = expect_problems(spec, output)
    assert problems == [], "\n".join(problems)


# ---------------------------------------------------------------- the checker can fail


def _first(name: str) -> Path:
    return SCENARIOS / name


def test_checker_catches_a_flipped_ok() -> None:
    spec = load(_first("d05_matching.json"))
    spec["expect"]["ok"][-1] = not spec["expect"]["ok"][-1]
    assert expect_problems(spec, run_scenario(spec))


def test_checker_catches_a_wrong_error_code() -> None:
    spec = load(_first("d10_dump_incomplete.json"))
    key = next(iter(spec["expect"]["errors"]))
    spec["expect"]["errors"][key]["code"] = "dump_wrong_color"
    assert expect_problems(spec, run_scenario(spec))


def test_checker_catches_a_missing_or_misplaced_event() -> None:
    spec = load(_first("d13_illegal_no_playable.json"))
    output = run_scenario(spec)
    for events in spec["expect"]["events"].values():
        for item in events:
            if item[0] == "challenge_resolved":
                item[1]["verdict"] = "legal"
    assert expect_problems(spec, output)
    spec = load(_first("d08_volley.json"))
    key, events = next(iter(spec["expect"]["events"].items()))
    spec["expect"]["events"][key] = list(reversed(events)) if len(events) > 1 else events + events
    assert expect_problems(spec, run_scenario(spec))


def test_checker_catches_a_wrong_view_or_audit_value() -> None:
    spec = load(_first("d01_eight_wilds.json"))
    spec["expect"]["audit"]["scores"] = [0, 108]
    assert expect_problems(spec, run_scenario(spec))
    spec = load(_first("d16_match_end.json"))
    spec["expect"]["views"][0]["winner"] = 1
    assert expect_problems(spec, run_scenario(spec))
    spec["expect"]["views"] = [{"phase": "play"}, {}]
    assert expect_problems(spec, run_scenario(spec))


def test_checker_reads_one_view_per_seat_at_a_bigger_table() -> None:
    spec = load(_first("d20_challenge_illegal.json"))
    output = run_scenario(spec)
    assert len(output["views"]) == spec["seats"] == 4
    spec["expect"]["views"][3]["last_challenge"]["hand"] = spec["expect"]["views"][2]["last_challenge"]["hand"]
    assert expect_problems(spec, output)  # seat 3 did not see the challenged hand
    spec["expect"]["views"] = spec["expect"]["views"][:2]
    assert expect_problems(spec, output)  # four seats, two views: refused, not half checked


def test_checker_refuses_an_expect_that_pins_nothing() -> None:
    spec = load(_first("d05_matching.json"))
    spec["expect"] = {"ok": spec["expect"]["ok"]}
    assert expect_problems(spec, run_scenario(spec))


def test_checker_needs_an_error_entry_for_every_refusal() -> None:
    spec = load(_first("d10_dump_incomplete.json"))
    spec["expect"]["errors"] = {}
    assert expect_problems(spec, run_scenario(spec))


def test_subset_match_is_strict_about_booleans_and_lists() -> None:
    assert subset_problems(True, 1, "x")
    assert subset_problems([1, 2], [1, 2, 3], "x")
    assert subset_problems({"a": {"b": 1}}, {"a": {"b": 2, "c": 3}}, "x")
    assert not subset_problems({"a": {"b": 2}}, {"a": {"b": 2, "c": 3}}, "x")


# ---------------------------------------------------------------- docs/RULES.md links the examples

LINK = re.compile(r"\]\((?:\./)?(scenarios/[A-Za-z0-9_.-]+\.json)\)")
HEADING = re.compile(r"^(#{1,6}) +(.*)$", re.MULTILINE)


def ruling_sections(text: str) -> dict[str, str]:
    """``D<n>`` -> the text under the heading that starts with that id (up to the next heading
    of the same or a higher level)."""
    headings = [(m.start(), len(m.group(1)), m.group(2)) for m in HEADING.finditer(text)]
    sections: dict[str, str] = {}
    for index, (start, level, title) in enumerate(headings):
        found = re.match(r"(D\d+[a-z]?)\b", title)
        if not found:
            continue
        end = len(text)
        for later_start, later_level, _ in headings[index + 1 :]:
            if later_level <= level:
                end = later_start
                break
        sections.setdefault(found.group(1), text[start:end])
    return sections


def test_every_ruling_has_a_section_with_an_existing_worked_example() -> None:
    sections = ruling_sections(RULES_DOC.read_text(encoding="utf-8"))
    assert sorted(sections, key=ruling_key) == RULING_IDS
    for ruling in RULING_IDS:
        links = LINK.findall(sections[ruling])
        assert links, f"{ruling} links no scenario"
        for link in links:
            assert (DOCS / link).is_file(), f"{ruling} links {link}, which does not exist"


def test_every_scenario_is_linked_from_the_rules_document() -> None:
    linked = set(LINK.findall(RULES_DOC.read_text(encoding="utf-8")))
    on_disk = {f"scenarios/{p.name}" for p in SCENARIO_FILES}
    assert on_disk - linked == set(), "scenarios nobody links"
    assert linked - on_disk == set(), "links to scenarios that do not exist"


def test_every_refusal_code_is_shown_by_a_scenario() -> None:
    shown: set[str] = set()
    for path in SCENARIO_FILES:
        for error in load(path)["expect"].get("errors", {}).values():
            shown.add(error["code"])
    assert {code.value for code in ErrorCode} - shown == set()


@pytest.mark.parametrize("ruling", RULING_IDS)
def test_every_ruling_is_cited_by_an_example_that_pins_it(ruling: str) -> None:
    """The scenarios a ruling links must exist and name the ruling (file name or note)."""
    sections = ruling_sections(RULES_DOC.read_text(encoding="utf-8"))
    names = [Path(link).name for link in LINK.findall(sections[ruling])]
    number, suffix = ruling_key(ruling)
    assert any(
        name.startswith(f"d{number:02d}{suffix}_") or re.search(rf"\b{ruling}\b", load(SCENARIOS / name)["note"])
        for name in names
    )


def test_every_rule_a_refusal_cites_is_a_ruling_of_the_document() -> None:
    for path in SCENARIO_FILES:
        for key, error in load(path)["expect"].get("errors", {}).items():
            rule = error.get("rule")
            assert rule is None or rule in RULING_IDS, f"{path.name} errors[{key}] cites {rule!r}"
