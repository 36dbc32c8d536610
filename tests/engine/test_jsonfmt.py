"""engine.record.jsonfmt writes by orjson where that is json's very text: compact, canonical (the hashed
form) and NDJSON lines are exactly what ``json.dumps`` gives, for any JSON value, and refuse what it refuses."""

from __future__ import annotations

import dataclasses
import datetime
import enum
import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.record.jsonfmt import canonical, compact, ndjson_line
from tests.profiles import examples


def json_compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def json_canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def outcome(write: Any, value: Any) -> Any:
    try:
        return write(value)
    except (TypeError, ValueError) as exc:
        return type(exc)


def same_as_json(value: Any) -> None:
    assert outcome(compact, value) == outcome(json_compact, value)
    assert outcome(canonical, value) == outcome(json_canonical, value)
    assert outcome(ndjson_line, value) == outcome(lambda v: (json_compact(v) + "\n").encode(), value)


floats = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from(
    [1e-05, 1e-07, 0.0001, 1e16, 1e15, 9.999999999999999e15, 5e-324, -0.0, 1e308, 2.5e-300, 0.1]
)
scalars = st.none() | st.booleans() | st.integers() | st.integers(-(2**70), 2**70) | floats | st.text()
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=5) | st.tuples(inner, inner) | st.dictionaries(st.text(max_size=4), inner, max_size=5)
    ),
    max_leaves=30,
)


@pytest.mark.slow
@given(values)
@settings(max_examples=examples(1500), deadline=None)
def test_any_json_value_is_written_as_json_writes_it(value: Any) -> None:
    same_as_json(value)


class Colour(enum.StrEnum):
    RED = "red"


class Number(enum.IntEnum):
    ONE = 1


@dataclasses.dataclass
class Thing:
    a: int = 1


def nested(depth: int) -> list[Any]:
    top: list[Any] = []
    here = top
    for _ in range(depth):
        here.append([])
        here = here[0]
    return top


@pytest.mark.parametrize(
    "value",
    [
        {"\uffff": 1, "\U0001f600": 2, "\ue000": 3, "a": 4, "Z": 5, "ä": 6},  # keys by code point at every level
        {"z": {"y": 1, "x": [{"b": 1, "a": 2}]}},
        'é\u2028\x7f\x00\x1f"\\',
        "\ud800",  # a lone surrogate: json writes it in compact, canonical cannot encode it
        {2: 2, True: 3, None: 4, 1.5: 5},  # keys json turns into strings
        {"x": Colour.RED, Colour.RED: Number.ONE},
        [2**64, -(2**63) - 1, 2**63 - 1, 2**53 + 1],
        [math.nan, math.inf, -math.inf, 1e-05, 1e-07, "e-", "0.00001", None],
        nested(300),  # deeper than orjson goes
        Thing(),
        datetime.datetime(2026, 1, 1),
        {1, 2},
        object(),
    ],
)
def test_values_where_orjson_and_json_part_are_written_by_json(value: Any) -> None:
    same_as_json(value)
