"""Fuzzing to zero: schemathesis against ``/openapi.json`` in-process, and Hypothesis on the parsers.

The API is fuzzed through its ASGI app (``schemathesis.openapi.from_asgi``) on a temporary
SQLite file holding a small world: players, a human-vs-human match, a match against a house
bot, tournaments (one created, one running with an open dispute, one finished) so that the
generated path parameters often name something real. Every check schemathesis has runs on every
answer (examples, coverage and fuzzing phases, then a stateful run over the links it infers):
no 5xx, no answer outside its documented schema, no undocumented status, ``Allow`` on every 405.

``positive_data_acceptance`` expects a schema-valid request to be accepted; the game refuses
some schema-valid requests by rules JSON Schema cannot state (a card not in your hand, a name
with a control character). Those refusals are accepted by :data:`RULE_REFUSALS` only: each a
status, an error code and a message pattern, with the reason; anything else fails.

CI runs a bounded quick version; ``UNODUO_FUZZ_EXAMPLES=500`` runs the long one (figures in
docs/RELIABILITY-fuzz-races-input.md).
"""

from __future__ import annotations

import json
import math
import os
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st
from hypothesis.errors import FlakyStrategyDefinition
from hypothesis.stateful import get_state_machine_test
from schemathesis.openapi.checks import RejectedPositiveData
from schemathesis.python import asgi

from engine.game.commands import SeatCommand, format_action, parse_action, parse_seat_command
from engine.game.errors import CommandRefused, ErrorCode, ScenarioError, UnoDuoError
from engine.play.scenario import ScenarioSpec, parse_spec, run_scenario
from server.app import make_app
from server.settings import Settings

DIRECTOR_TOKEN = "director-token-for-fuzzing-0123456789"
pytestmark = pytest.mark.slow  # a sweep: CI runs it in the slow tier
QUICK = 8  # examples per operation in CI
EXAMPLES = int(os.environ.get("UNODUO_FUZZ_EXAMPLES", str(QUICK)))
STATEFUL_EXAMPLES = max(4, EXAMPLES // 10)  # sequences per session
STATEFUL_SESSIONS = max(2, EXAMPLES // 50)
STATEFUL_SEED = 20_260_000
PARSER_EXAMPLES = max(200, EXAMPLES * 4)

DIRECTOR_OPERATIONS = {
    "POST /api/tournaments",
    "POST /api/tournaments/{tournament_id}/start",
    "POST /api/tournaments/{tournament_id}/withdraw",
    "GET /api/disputes",
    "POST /api/disputes/{dispute_id}/ruling",
    "POST /api/players/{player}/codes",
}
SIGN_OUT = "DELETE /api/sessions/current"  # sent with a token of its own: the fuzzer's player stays signed in

COMMANDS = "POST /api/matches/{match_id}/commands"
BODY_FIELDS = r"^(?!(body|command_id|expected_version|command): )"  # not pydantic's words on the body's own fields

# Schema-valid requests the server refuses by a rule JSON Schema does not state: (operations,
# status, error code, message pattern, why). Only these get past positive_data_acceptance; any other refusal of valid data fails.
RULE_REFUSALS: list[tuple[set[str], int, str, str, str]] = [
    (
        {
            "POST /api/players",
            "POST /api/tournaments",
            "POST /api/tournaments/{tournament_id}/withdraw",
            "POST /api/matches/{match_id}/disputes",
            "POST /api/disputes/{dispute_id}/ruling",
        },
        400,
        "malformed",
        r"cannot contain control or format characters|needs printable characters|can only contain printable",
        "names and notes must read as typed: no control or format characters (server/api/text.py)",
    ),
    ({COMMANDS}, 400, "malformed", r"^command_id: .*must be printable", "a command_id is printable characters"),
    (
        {"POST /api/sessions"},
        400,
        "malformed",
        r"send a password or a code, one of the two",
        "a sign-in sends a password or a code, not both (one field's rule on another)",
    ),
    (
        {"POST /api/players/{player}/codes"},
        400,
        "malformed",
        r"is a bot: sign-in codes are for human players",
        "codes are for human players; the path's name cannot say it names a bot",
    ),
    (
        {"POST /api/matches", "POST /api/tournaments"},
        400,
        "malformed",
        r"^unknown ruleset",
        "rulesets are named in the field's description (uno-duo, classic-2p), not as an enum",
    ),
    ({"POST /api/tournaments"}, 400, "malformed", r"^rules", "rule switches are the ruleset's (docs/RULES.md)"),
    (
        {"POST /api/matches"},
        400,
        "malformed",
        r"^seat must be 0 to \d+ at a table of|is named twice: a player takes one seat|^you sit at the table already"
        r"|is played by two: a table of|is a bot that this server does not run",
        "a table's seats follow from its opponents (the seat within the table, each person once, the caller not"
        " among them, a two-seat ruleset only for two; docs/API.md Tables of more than two)",
    ),
    (
        {"POST /api/tournaments"},
        400,
        "malformed",
        r"^a tournament needs 2 to 64 players",
        "a tournament that is not open names its 2 to 64 players (one field's rule on another: open)",
    ),
    (
        {"POST /api/tournaments"},
        400,
        "malformed",
        r"^a round_robin has its rounds|^double is for a round_robin|needs rounds: |^table_size and placement_points"
        r"|can meet each other at most|plays a ruleset of 3 or more seats|needs table_size: |needs at least 3 players"
        r"|^placement_points|start times for|start time needs its offset|^round start times go forward",
        "a format's fields follow from the format, its players and its ruleset (one field's rule on another: "
        "format, rounds, table_size, placement_points, round_starts; docs/TOURNAMENTS.md Formats)",
    ),
    (
        {"POST /api/tournaments"},
        400,
        "malformed",
        r"are for table_knockout and pools|^a table knockout |^pools |^pools need |^bracket: |plays two-seat matches"
        r"|has its rounds from its|^double is for a round_robin|^duplicate rounds are for|needs at least 2 players"
        r"|^table_size is for|^double, duplicate and placement_points|start times for a bracket"
        r"|^late_entry|^forbidden_pairs|^a forbidden pair|is forbidden twice|^starts_at|^check_in_minutes"
        r"|^check-in (is for|needs)",
        "the knockout formats', timed rounds', check-in's, late entry's and forbidden pairs' fields follow from the "
        "format, its ruleset and each other (one field's rule on another; docs/TOURNAMENTS.md)",
    ),
    (
        {"POST /api/tournaments"},
        400,
        "malformed",
        r"^a player can be entered once",
        "each player is entered once (the same name twice is the same player)",
    ),
    (
        {"POST /api/matches/{match_id}/disputes"},
        400,
        "malformed",
        r"^disputes are for tournament matches|^seq must name an event of this match",
        "a dispute names an event that exists, of a tournament match",
    ),
    (
        {"GET /api/matches/{match_id}"},
        400,
        "malformed",
        r"^at must name an event of this match",
        "at names an event the match has (its count is the match's, not the schema's)",
    ),
    (
        {"GET /api/matches/{match_id}/review"},
        400,
        "malformed",
        r"^seat \d+ is not at this table",
        "a review's seat is one of the match's (its count is the match's, not the schema's)",
    ),
    (
        {"POST /api/disputes/{dispute_id}/ruling"},
        400,
        "malformed",
        r"^an award names the seat|^only an award names a seat",
        "an award, and only an award, names a seat (one field's rule on another)",
    ),
    ({COMMANDS}, 400, "malformed", BODY_FIELDS, "a command's shape is docs/PROTOCOL.md's; the schema says 'an object'"),
    ({COMMANDS}, 400, "unknown_command", r".", "command types are docs/PROTOCOL.md's"),
    ({COMMANDS}, 422, "", r".", "a rule refusal (not_your_turn, card_not_playable, …) of a well-formed command"),
]


PROTOCOL_COMMANDS: list[dict[str, Any]] = [
    {"type": "draft", "keep": True},
    {"type": "draft", "keep": False},
    {"type": "draw"},
    {"type": "pass"},
    {"type": "accept"},
    {"type": "challenge"},
    {"type": "uno"},
    {"type": "color", "color": "red"},
    {"type": "play", "card": "R5"},
    {"type": "play", "card": "W", "color": "blue"},
    {"type": "dump", "cards": ["G7", "G7"]},
]


@dataclass
class Figures:
    """Requests by operation and status, and the schema-valid requests refused by a rule, by reason."""

    answers: Counter[tuple[str, int]] = field(default_factory=Counter)
    accepted: Counter[str] = field(default_factory=Counter)
    stateful_requests: int = 0
    restarts: int = 0  # stateful sessions ended by a sequence that drew differently on a changed database

    def report(self) -> None:
        by_status = Counter[int]()
        for (_, status), count in self.answers.items():
            by_status[status] += count
        print(f"\nfuzz: {sum(self.answers.values())} requests, by status {dict(sorted(by_status.items()))}")
        print(f"  of them stateful: {self.stateful_requests} ({STATEFUL_SESSIONS} sessions, {self.restarts} restarted)")
        for (label, status), count in sorted(self.answers.items()):
            print(f"  {label} {status}: {count}")
        for reason, count in self.accepted.most_common():
            print(f"  schema-valid, refused by a rule ({count}): {reason}")


@dataclass
class World:
    """The fuzzed app, its schema, and the things in its database the fuzzer is steered towards."""

    schema: Any
    client: asgi.ASGIClient
    player_token: str
    sign_out_token: str
    ids: dict[str, list[str]]
    figures: Figures


def _ok(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, (response.status_code, response.text)
    return response.json()


def _seed(client: asgi.ASGIClient) -> tuple[str, dict[str, list[str]]]:
    """Players, matches, tournaments and a dispute; the player token the fuzzer sends, and the ids."""
    director = {"Authorization": f"Bearer {DIRECTOR_TOKEN}"}
    players = [_ok(client.post("/api/players", json={"name": name}), 201) for name in ("ada", "bob", "cy")]
    ada, bob, cy = ({"Authorization": f"Bearer {p['token']}"} for p in players)
    human = _ok(client.post("/api/matches", headers=ada, json={"opponent": players[1]["id"]}), 201)["id"]
    for headers in (ada, bob):
        _ok(client.post(f"/api/matches/{human}/join", headers=headers, json={"entropy": "e"}))
    bot = _ok(client.post("/api/matches", headers=ada, json={"opponent": "bot:greedy"}), 201)["id"]
    _ok(client.post(f"/api/matches/{bot}/join", headers=ada, json={}))
    waiting = _ok(client.post("/api/matches", headers=cy, json={"opponent": players[0]["id"]}), 201)["id"]

    quick = {"target": 30}
    created = _ok(
        client.post(
            "/api/tournaments",
            headers=director,
            json={"name": "later", "players": [players[0]["id"], players[2]["id"]], "rules": quick},
        ),
        201,
    )["id"]
    running = _ok(
        client.post(
            "/api/tournaments",
            headers=director,
            json={"name": "now", "players": [players[0]["id"], players[1]["id"]], "rules": quick},
        ),
        201,
    )["id"]
    t = _ok(client.post(f"/api/tournaments/{running}/start", headers=director))
    paired = t["rounds"][0]["pairings"][0]["match"]
    _ok(client.post(f"/api/matches/{paired}/join", headers=ada, json={}))
    dispute = _ok(client.post(f"/api/matches/{paired}/disputes", headers=ada, json={"seq": 1, "note": "fuzz"}), 201)[
        "id"
    ]
    bots = _ok(
        client.post(
            "/api/tournaments",
            headers=director,
            json={"name": "bots", "players": ["bot:random", "bot:greedy"], "rules": quick},
        ),
        201,
    )["id"]
    done = _ok(client.post(f"/api/tournaments/{bots}/start", headers=director))
    finished = done["rounds"][0]["pairings"][0]["match"]
    ids = {
        "match_id": [human, bot, waiting, paired, finished],
        "finished_match_id": [finished],
        "tournament_id": [created, running, bots],
        "dispute_id": [dispute],
    }
    return str(players[0]["token"]), ids


@pytest.fixture(scope="module")
def figures() -> Iterator[Figures]:
    """Every fuzzing test's figures, printed at the end of the module (``pytest -s`` shows them)."""
    totals = Figures()
    yield totals
    totals.report()


@pytest.fixture
def world(tmp_path: Path, figures: Figures) -> Iterator[World]:
    """A world per test: schemathesis ends every ASGI app's lifespan (and so its store) when a test ends."""
    path = tmp_path / "fuzz.sqlite3"
    settings_ = Settings(
        database_url=f"sqlite:///{path}",
        director_token=DIRECTOR_TOKEN,
        sqlite_synchronous="NORMAL",
        bot_think_seconds=0,
        register_per_minute=0,
        bad_tokens_per_minute=0,
    )
    app = make_app(settings_)
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    with asgi.get_client(app) as client:
        token, ids = _seed(client)
        sign_out = _ok(client.post("/api/players", json={"name": "leaving"}), 201)["token"]
        world = World(
            schema=schema, client=client, player_token=token, sign_out_token=sign_out, ids=ids, figures=figures
        )
        _steer(world)
        yield world


def _steer(world: World) -> None:
    """The fuzzer's token (the director's on director routes), real ids, and the accepted rule refusals."""
    schema = world.schema

    def whose(case: Any, context: Any) -> str:
        label = f"{context.operation.method.upper()} {context.operation.path}"
        return "director" if label in DIRECTOR_OPERATIONS else "sign_out" if label == SIGN_OUT else "player"

    @schema.auth(cache_by_key=whose)  # one cached token per key, not one for every operation
    class Tokens:
        def get(self, case: Any, context: Any) -> str:
            tokens = {"director": DIRECTOR_TOKEN, "sign_out": world.sign_out_token}
            return tokens.get(whose(case, context), world.player_token)

        def set(self, case: Any, data: str, context: Any) -> None:
            case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}

    @schema.hook
    def flatmap_path_parameters(context: Any, path_parameters: dict[str, Any]) -> Any:
        # A valid id the fuzzer made up is swapped, often, for one that names something real;
        # an invalid one (a negative case) is left as it is.
        choices: dict[str, Any] = {}
        for name, value in (path_parameters or {}).items():
            known = world.ids.get(name)
            if known and isinstance(value, str) and re.fullmatch(r"[A-Za-z0-9_-]{1,64}", value):
                choices[name] = st.sampled_from([*known, value])
            else:
                choices[name] = st.just(value)
        return st.fixed_dictionaries(choices)

    @schema.hook
    def flatmap_body(context: Any, body: Any) -> Any:
        # A command object the fuzzer made up is swapped, often, for one of docs/PROTOCOL.md's,
        # so that commands get past parsing to the rules (and some are applied).
        operation = context.operation
        if operation is None or operation.path != "/api/matches/{match_id}/commands" or not isinstance(body, dict):
            return st.just(body)
        if not isinstance(body.get("command"), dict):
            return st.just(body)
        return st.sampled_from([*PROTOCOL_COMMANDS, body["command"]]).map(lambda command: {**body, "command": command})

    @schema.hook
    def map_case(context: Any, case: Any) -> Any:
        # follow=1 on a live match is a stream that stays open until the match ends (by design);
        # the fuzzer follows only the finished match, or ids no match has (the server's are m_…).
        # tests/reliability/test_bad_input.py reads a live one.
        query = case.query if isinstance(case.query, dict) else None
        match_id = str((case.path_parameters or {}).get("match_id", ""))
        real = match_id.startswith("m_") and match_id not in world.ids["finished_match_id"]
        if query is not None and str(query.get("follow")) == "1" and real:
            case.query = {**query, "follow": 0}
        return case

    @schema.hook
    def after_call(context: Any, case: Any, response: Any) -> None:
        world.figures.answers[(f"{case.method.upper()} {case.path}", response.status_code)] += 1

    @schema.hook
    def filter_failure(context: Any, failure: Any, case: Any, response: Any) -> bool:
        if not isinstance(failure, RejectedPositiveData):
            return True
        reason = accepted_refusal(f"{case.method.upper()} {case.path}", response.status_code, response.text)
        if reason is None:
            reason = strict_integer_refusal(case.body, response.status_code, response.text)
        if reason is None:
            return True
        world.figures.accepted[reason] += 1
        return False


def accepted_refusal(operation: str, status: int, text: str) -> str | None:
    """The reason a schema-valid request to ``operation`` may be refused with this answer, or None (a failure)."""
    try:
        body = json.loads(text)
    except ValueError:
        return None
    if not isinstance(body, dict) or set(body) != {"code", "message", "rule"}:
        return None
    for operations, want_status, code, pattern, reason in RULE_REFUSALS:
        if operation not in operations or status != want_status or (code and body["code"] != code):
            continue
        if re.search(pattern, body["message"]):
            return reason
    return None


# A round's start time outside 2000-2999 (UTC), which a format's own rule refuses (docs/TOURNAMENTS.md
# "Start times"); named in the same answer as a strict integer's problem when a body has both.
ROUND_START_RANGE = (
    r"round_starts\.\d+: Value error, a round's start time must be from 2000-01-01 to 2999-12-31 \(UTC\)"
)
STRICT_INTEGER = "a whole number is written without a fraction (120, not 120.0): the API's integers are strict"


def strict_integer_refusal(body: Any, status: int, text: str) -> str | None:
    """JSON Schema counts 120.0 as an integer; the API's strict integers refuse it (and "120", and true)
    by name. Accepted only when the field named is one the body gives as such a float."""
    try:
        answer = json.loads(text)
    except ValueError:
        return None
    if status != 400 or not isinstance(answer, dict) or answer.get("code") != "malformed" or not isinstance(body, dict):
        return None
    strict = False  # at least one problem is a strict integer's
    for problem in str(answer.get("message")).split("; "):
        if re.fullmatch(ROUND_START_RANGE, problem):  # said beside them: a documented range, not a strict integer
            continue
        # (a body of several shapes names its shape first: "match.move_seconds", "table.seat")
        match = re.fullmatch(r"(?:match\.|table\.)?(\w+)(?:\.(\d+))?: Input should be a valid integer", problem)
        value = body.get(match.group(1)) if match else None
        if match and match.group(2) is not None:  # an item of a list: placement_points.6
            index = int(match.group(2))
            value = value[index] if isinstance(value, list) and index < len(value) else None
        if not (isinstance(value, float) and value.is_integer()):
            return None
        strict = True
    return STRICT_INTEGER if strict else None


schema = schemathesis.pytest.from_fixture("world_schema")


@pytest.fixture
def world_schema(world: World) -> Any:
    return world.schema


ALL_CHECKS = [
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_headers_conformance",
    "response_schema_conformance",
    "negative_data_rejection",
    "positive_data_acceptance",
    "missing_required_header",
    "unsupported_method",
    "allow_header_conformance",
    "use_after_free",
    "ensure_resource_availability",
    "ignored_auth",
    "object_level_authorization",
]


def test_every_check_is_on(world_schema: Any) -> None:
    checks = world_schema.config.checks
    assert [name for name in ALL_CHECKS if not checks.get_by_name(name=name).enabled] == []


@schema.parametrize()
@settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True, database=None
)
def test_every_operation_answers_as_documented(case: Any) -> None:
    case.call_and_validate()


def test_stateful_runs_answer_as_documented(world: World) -> None:
    """Sequences along the links schemathesis infers (a created match's id into its join, …), in
    seeded sessions. A run changes the server's database, so Hypothesis may find that a sequence
    it explored draws differently the next time (``FlakyStrategyDefinition``): that session ends
    and the next seed starts, as schemathesis's own runner does. A check failure fails the test."""
    machine = world.schema.as_state_machine()
    before = sum(world.figures.answers.values())
    for session in range(STATEFUL_SESSIONS):
        run = get_state_machine_test(
            machine,
            settings=settings(
                max_examples=STATEFUL_EXAMPLES,
                deadline=None,
                suppress_health_check=list(HealthCheck),
                stateful_step_count=6,
                database=None,
                # No shrinking: replaying a sequence against a database it changed draws other links.
                phases=[Phase.explicit, Phase.generate],
            ),
            _min_steps=2,
        )
        try:
            seed(STATEFUL_SEED + session)(run)()
        except FlakyStrategyDefinition:
            world.figures.restarts += 1
        except AssertionError as error:
            if not replay_diverged(error):
                raise
            world.figures.restarts += 1
    steps = sum(world.figures.answers.values()) - before
    world.figures.stateful_requests += steps
    assert steps >= STATEFUL_SESSIONS * 2, "the stateful sessions made (almost) no requests"


def replay_diverged(error: AssertionError) -> bool:
    """Hypothesis asserts (rather than raising Flaky) when a replay draws past a value it rejected before."""
    tb = error.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and tb.tb_frame.f_globals.get("__name__") == "hypothesis.internal.conjecture.datatree"


# ---------------------------------------------------------------- the parsers, on any JSON

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=12), inner, max_size=6),
    max_leaves=20,
)
CARD_CODES = ["R5", "b0", "Y+2", "gs", "R r", "W", "w+4", "W+4", "X9", "", " R5 "]
command_like = st.fixed_dictionaries(
    {
        "type": st.sampled_from(["draft", "play", "draw", "pass", "dump", "accept", "challenge", "color", "uno"])
        | st.text(max_size=8)
        | json_values
    },
    optional={
        "keep": json_values,
        "card": st.sampled_from(CARD_CODES) | json_values,
        "cards": st.lists(st.sampled_from(CARD_CODES) | json_values, max_size=4) | json_values,
        "color": st.sampled_from(["red", "yellow", "green", "blue", "R", "purple", None]) | json_values,
        "uno": json_values,
        "expected_version": st.integers(min_value=-5, max_value=10**30) | json_values,
    },
)
# What parsing a command may refuse: its shape, a seat that is not 0 or 1, a missing or bad colour.
PARSE_CODES = {
    ErrorCode.MALFORMED,
    ErrorCode.UNKNOWN_COMMAND,
    ErrorCode.NOT_A_PLAYER,
    ErrorCode.BAD_COLOR,
    ErrorCode.COLOR_REQUIRED,
}


@settings(max_examples=PARSER_EXAMPLES, deadline=None, derandomize=True, database=None)
@given(seat=json_values | st.sampled_from([0, 1]), obj=json_values | command_like)
def test_any_json_is_a_command_or_a_clean_refusal(seat: Any, obj: Any) -> None:
    try:
        command = parse_seat_command(seat, obj)
    except CommandRefused as refusal:
        assert refusal.code in PARSE_CODES, refusal
        assert len(refusal.message) < 400, "a refusal echoes what it was sent only in part"
        return
    assert isinstance(command, SeatCommand) and command.seat == seat
    again = parse_action(json.loads(json.dumps(format_action(command.action))))
    assert again == command.action, "the canonical shape of a command reads back as the same command"


scenario_like = st.fixed_dictionaries(
    {},
    optional={
        "ruleset": st.sampled_from(["uno-duo", "classic-2p", "poker"]) | json_values,
        "rules": st.dictionaries(st.sampled_from(["target", "deck", "draft", "x"]), json_values, max_size=3)
        | json_values,
        "first_drafter": st.sampled_from([0, 1, 2, None, True]) | json_values,
        "decks": st.lists(st.lists(st.sampled_from(CARD_CODES), max_size=20), max_size=3) | json_values,
        "seed": st.sampled_from(["00ff", "abc", "zz", ""]) | json_values,
        "entropy": st.tuples(st.text(max_size=4), st.text(max_size=4)) | json_values,
        "commands": st.lists(st.tuples(st.sampled_from([0, 1, 2]) | json_values, command_like), max_size=6)
        | json_values,
        "note": json_values,
        "expect": json_values,
    },
)


@settings(max_examples=PARSER_EXAMPLES, deadline=None, derandomize=True, database=None)
@given(raw=json_values | scenario_like)
def test_any_json_is_a_scenario_result_or_a_clean_error(raw: Any) -> None:
    try:
        spec = parse_spec(raw)
    except ScenarioError as error:
        assert str(error)
    else:
        assert isinstance(spec, ScenarioSpec)
    try:
        result = run_scenario(raw)
    except UnoDuoError as error:
        assert isinstance(error, ScenarioError), f"{type(error).__name__}: {error}"
        return
    assert set(result) == {"setup", "results", "views", "audit"}
    assert len(result["results"]) == len(spec.commands)
    json.dumps(result, allow_nan=False)  # the answer is plain JSON
    assert not any(isinstance(v, float) and not math.isfinite(v) for v in _leaves(result))


def _leaves(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        for item in value.values():
            yield from _leaves(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _leaves(item)
    else:
        yield value
