"""engine.record.event_codec: the stored data is derived from an event class's typed fields and read back
to the same event; a version above 1 is written as ``"v"`` and older shapes are upcast one
version at a time; version-1 data (every engine event, every replay line) is read as it is."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, ClassVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.game.events import RECORDS, VERSIONS, EventType
from engine.record.event_codec import CODEC, INLINED, EventCodec, UnknownEventType, read_event, recorded_when_set
from engine.record.replay import parse_replay
from tests.profiles import examples

ROOT = Path(__file__).resolve().parents[2]


class Colour(StrEnum):
    RED = "red"
    BLUE = "blue"


@dataclass(frozen=True)
class Spot:
    x: int
    y: int


@dataclass(frozen=True)
class Everything:
    """One field of every kind the codec reads."""

    TYPE: ClassVar[str] = "everything"
    VERSION: ClassVar[int] = 1

    text: str
    count: int
    flag: bool
    maybe: int | None
    names: tuple[str, ...]
    pair: tuple[int, str]
    items: list[int]
    table: Mapping[str, int]
    free: dict[str, Any]
    colour: Colour
    spot: Spot
    spots: tuple[Spot, ...]
    note: str = recorded_when_set("")
    later: tuple[int, ...] = recorded_when_set(())


@dataclass(frozen=True)
class Inlined:
    TYPE: ClassVar[str] = "inlined"

    spot: Spot = field(metadata=INLINED)


def fresh() -> EventCodec:
    codec = EventCodec()
    codec.register(Everything)
    codec.register(Inlined)
    return codec


json_leaf = st.none() | st.booleans() | st.integers() | st.text(max_size=4)
spots = st.builds(Spot, st.integers(), st.integers())
everything = st.builds(
    Everything,
    text=st.text(),
    count=st.integers(),
    flag=st.booleans(),
    maybe=st.none() | st.integers(),
    names=st.lists(st.text(max_size=3), max_size=3).map(tuple),
    pair=st.tuples(st.integers(), st.text(max_size=3)),
    items=st.lists(st.integers(), max_size=3),
    table=st.dictionaries(st.text(max_size=3), st.integers(), max_size=3),
    free=st.dictionaries(st.text(max_size=3), json_leaf, max_size=3),
    colour=st.sampled_from(Colour),
    spot=spots,
    spots=st.lists(spots, max_size=2).map(tuple),
    note=st.text(max_size=3),
    later=st.lists(st.integers(), max_size=2).map(tuple),
)


@settings(max_examples=examples(200))
@given(everything)
def test_every_kind_of_field_reads_back_what_it_writes(event: Everything) -> None:
    codec = fresh()
    stored = json.loads(json.dumps(codec.encode(event).data))  # as a store gives it back
    assert codec.decode("everything", stored) == event
    assert "v" not in stored


def test_the_data_is_plain_json_named_by_the_fields() -> None:
    event = Everything("a", 1, True, None, ("x",), (2, "y"), [3], {"k": 4}, {"f": None}, Colour.RED, Spot(5, 6), ())
    assert fresh().encode(event).data == {
        "text": "a",
        "count": 1,
        "flag": True,
        "maybe": None,
        "names": ["x"],
        "pair": [2, "y"],
        "items": [3],
        "table": {"k": 4},
        "free": {"f": None},
        "colour": "red",
        "spot": {"x": 5, "y": 6},
        "spots": [],
    }  # note and later left out: they hold their defaults


def test_a_field_recorded_when_set_is_written_once_set() -> None:
    event = Everything("a", 1, True, None, (), (2, "y"), [], {}, {}, Colour.BLUE, Spot(0, 0), (), note="n", later=(1,))
    data = fresh().encode(event).data
    assert data["note"] == "n" and data["later"] == [1]


def test_an_inlined_dataclass_spreads_its_fields_into_the_data() -> None:
    codec = fresh()
    assert codec.encode(Inlined(Spot(1, 2))).data == {"x": 1, "y": 2}
    assert codec.decode("inlined", {"x": 1, "y": 2}) == Inlined(Spot(1, 2))


def test_a_missing_field_without_a_default_is_an_error() -> None:
    with pytest.raises(KeyError, match="'y' is missing"):
        fresh().decode("inlined", {"x": 1})


def test_an_unknown_type_is_refused_on_decode_and_left_alone_by_upcast() -> None:
    codec = fresh()
    with pytest.raises(UnknownEventType):
        codec.decode("nobody_registered_this", {})
    data = {"a": 1}
    assert codec.upcast("nobody_registered_this", data) is data


def test_a_type_registered_twice_is_refused() -> None:
    codec = fresh()

    @dataclass(frozen=True)
    class Other:
        TYPE: ClassVar[str] = "everything"

    with pytest.raises(ValueError, match="registered twice"):
        codec.register(Other)


# ---------------------------------------------------------------- versions and upcasters


@dataclass(frozen=True)
class Moved:
    """A test type at version 3: version 1 was ``{"to": "3,4"}``, version 2 ``{"x": 3, "y": 4}``,
    version 3 adds ``why``."""

    TYPE: ClassVar[str] = "moved"
    VERSION: ClassVar[int] = 3

    x: int
    y: int
    why: str


def versioned() -> EventCodec:
    codec = EventCodec()
    codec.register(Moved)

    @codec.upcaster("moved", 1)
    def split_the_text(data: dict[str, Any]) -> dict[str, Any]:
        x, y = data.pop("to").split(",")
        return {**data, "x": int(x), "y": int(y)}

    @codec.upcaster("moved", 2)
    def add_why(data: dict[str, Any]) -> dict[str, Any]:
        return {**data, "why": ""}

    return codec


def test_a_later_version_is_written_with_its_number() -> None:
    assert versioned().encode(Moved(1, 2, "w")).data == {"x": 1, "y": 2, "why": "w", "v": 3}


def test_each_older_shape_is_upcast_one_version_at_a_time() -> None:
    codec = versioned()
    assert codec.decode("moved", {"to": "3,4"}) == Moved(3, 4, "")  # no "v": version 1
    assert codec.decode("moved", {"x": 3, "y": 4, "v": 2}) == Moved(3, 4, "")
    assert codec.decode("moved", {"x": 3, "y": 4, "why": "w", "v": 3}) == Moved(3, 4, "w")


def test_the_stored_data_is_not_changed_by_reading_it() -> None:
    stored = {"to": "3,4"}
    versioned().decode("moved", stored)
    assert stored == {"to": "3,4"}


def test_a_version_newer_than_the_code_or_a_gap_in_the_chain_is_an_error() -> None:
    codec = versioned()
    with pytest.raises(ValueError, match="newer"):
        codec.decode("moved", {"x": 3, "y": 4, "why": "", "v": 4})
    gap = EventCodec()
    gap.register(Moved)
    with pytest.raises(ValueError, match="no upcaster from version 1"):
        gap.decode("moved", {"to": "3,4"})


def test_an_upcaster_is_registered_once_per_version() -> None:
    codec = versioned()
    with pytest.raises(ValueError, match="already has an upcaster"):
        codec.upcaster("moved", 1)(lambda data: data)


def test_version_zero_fills_what_older_writers_left_out_and_leaves_version_one_alone() -> None:
    codec = EventCodec()

    @dataclass(frozen=True)
    class Said:
        TYPE: ClassVar[str] = "said"

        text: str
        loud: bool

    codec.register(Said)
    codec.upcaster("said", 0)(lambda data: {"loud": False, **data})
    assert codec.decode("said", {"text": "hi"}) == Said("hi", False)
    assert codec.decode("said", {"text": "hi", "loud": True}) == Said("hi", True)


# ---------------------------------------------------------------- the engine family


def test_every_engine_event_type_is_registered_with_its_record_and_version() -> None:
    for event_type in EventType:
        assert CODEC.class_of(event_type.value) is RECORDS[event_type]
        assert CODEC.version_of(event_type.value) == VERSIONS[event_type] == 1


def test_every_replay_line_reads_as_it_is_stored() -> None:
    """Version 1 everywhere: reading a stored engine event hands back the very same data."""
    for path in sorted((ROOT / "replays").glob("*.jsonl")):
        _header, lines = parse_replay(path.read_text(encoding="utf-8"))
        for line in lines:
            assert read_event(line["type"], line["data"]).data is line["data"]
